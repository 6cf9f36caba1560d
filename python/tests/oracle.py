"""An independent oracle in exact rational arithmetic (Python's fractions), for the hypothesis
properties of test_oracle.py.

Nothing here calls softmx: the element formats are written out from the OCP specifications
(OFP8 v1.0 for e4m3 / e5m2, MX v1.0 section 5.3 for e3m2 / e2m3 / e2m1), each value is computed
from its code's fields, and rounding chooses between the two neighbours of the exact input by
exact comparison. Block quantization follows OCP MX v1.0 section 6.3 (the `floor` scale rule).
"""

import bisect
import math
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

# name: (exponent bits, fraction bits, bias, specials). Specials: "e4m3" (S.1111.111 is NaN,
# no Inf), "ieee" (all-ones exponent is Inf / NaN), "none" (every code is a number).
ELEMENT_FORMATS = {
    "e4m3": (4, 3, 7, "e4m3"),
    "e5m2": (5, 2, 15, "ieee"),
    "e3m2": (3, 2, 3, "none"),
    "e2m3": (2, 3, 1, "none"),
    "e2m1": (2, 1, 1, "none"),
}


def magnitude_value(fmt: str, code: int) -> Optional[Fraction]:
    """The value of a magnitude code (sign bit clear) from its fields; None for Inf / NaN."""
    e_bits, m_bits, bias, specials = ELEMENT_FORMATS[fmt]
    e = code >> m_bits
    m = code & ((1 << m_bits) - 1)
    if specials == "ieee" and e == (1 << e_bits) - 1:
        return None
    if specials == "e4m3" and e == 15 and m == 7:
        return None
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias)
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias)


def finite_magnitudes(fmt: str) -> List[Tuple[int, Fraction]]:
    """(code, value) of every finite non-negative code, ascending (the codes are monotonic)."""
    e_bits, m_bits, _, _ = ELEMENT_FORMATS[fmt]
    out = []
    for c in range(1 << (e_bits + m_bits)):
        v = magnitude_value(fmt, c)
        if v is not None:
            out.append((c, v))
    return out


_TABLES: Dict[str, List[Tuple[int, Fraction]]] = {}
_VALUES: Dict[str, List[Fraction]] = {}


def table(fmt: str) -> List[Tuple[int, Fraction]]:
    if fmt not in _TABLES:
        _TABLES[fmt] = finite_magnitudes(fmt)
    return _TABLES[fmt]


def overflow_code(fmt: str) -> int:
    """The magnitude code of an overflow without saturation: Inf for e5m2, NaN for e4m3."""
    return {"e5m2": 0x7C, "e4m3": 0x7F}[fmt]


def round_to_element(x: Fraction, negative: bool, fmt: str, rnd: str, sat: str) -> int:
    """The code of finite x (its sign given separately, so that -0 keeps it) in `fmt` under
    rounding rne / rna / rz / ru / rd and saturation "finite" or "none" (IEEE 754's overflow
    rule: a result beyond the largest finite value, with the exponent range unbounded, is Inf,
    or NaN in e4m3; rz, and ru / rd toward zero, stop at the largest finite value)."""
    e_bits, m_bits, _, _ = ELEMENT_FORMATS[fmt]
    sign = 1 << (e_bits + m_bits)
    a = abs(x)
    t = table(fmt)
    max_code, max_val = t[-1]
    # The neighbours lo <= a <= hi; past the largest finite value, hi is the value the next
    # code would have with an unbounded exponent (max + one ulp at max's exponent).
    vals = [v for _, v in t] if fmt not in _VALUES else _VALUES[fmt]
    _VALUES[fmt] = vals
    i = bisect.bisect_left(vals, a)  # vals[i - 1] < a <= vals[i]
    hi = t[i] if i < len(t) else None
    lo = hi if hi is not None and hi[1] == a else t[max(i - 1, 0)]
    if hi is None:
        ulp = max_val - t[-2][1]
        hi = (max_code + 1, max_val + ulp)
    toward_inf = (rnd == "ru" and not negative) or (rnd == "rd" and negative)
    if lo[1] == a:
        code = lo[0]
    elif rnd == "rz" or (rnd in ("ru", "rd") and not toward_inf):
        code = lo[0]
    elif rnd in ("ru", "rd"):
        code = hi[0]
    else:
        d_lo, d_hi = a - lo[1], hi[1] - a
        if d_lo < d_hi:
            code = lo[0]
        elif d_hi < d_lo:
            code = hi[0]
        elif rnd == "rna":
            code = hi[0]
        else:
            code = lo[0] if lo[0] % 2 == 0 else hi[0]
    if code > max_code:
        code = max_code if sat == "finite" else overflow_code(fmt)
    return code | (sign if negative else 0)


def floor_log2(a: Fraction) -> int:
    """floor(log2 a) for a > 0, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


EMAX = {"e4m3": 8, "e5m2": 15, "e3m2": 4, "e2m3": 2, "e2m1": 2}


def quantize_block(values: List[float], fmt: str, zero_scale: int) -> Tuple[int, List[int]]:
    """OCP MX 6.3 for one block of finite floats: the E8M0 scale code and the element codes
    (rne, satfinite). `zero_scale`: the scale code of an all-zero block (a dialect policy)."""
    xs = [Fraction(v) for v in values]
    amax = max(abs(v) for v in xs)
    if amax == 0:
        s = zero_scale - 127
    else:
        s = max(floor_log2(amax) - EMAX[fmt], -127)
    scale = Fraction(2) ** s
    codes = [round_to_element(v / scale, math.copysign(1.0, v_f) < 0, fmt, "rne", "finite")
             for v, v_f in zip(xs, values)]
    return s + 127, codes
