#!/usr/bin/env python3
"""MXDOTP's datapath as docs/research/mxdotp.md reads it from the RTL (fpnew_mxdotp_multi.sv,
mxdotp/fpnew_mxdotp_multi_modules.sv), in exact rational arithmetic and independent of softmx:
a second check of the unit's results files (examples/mxdotp/certify.sh writes them) beside
softmx's mxdotp model.

  rtl_reading.py FILE.vec...     prints the first mismatches and a count per file; exit 1 on any

int8 elements (a = int8 or int8:bias=-5) are read as MXDOTPI reads them: code k is the integer k.
"""
import sys
from fractions import Fraction

ELEMS = {  # name: (exp bits, man bits, kind)
    'e4m3': (4, 3, 'fn'), 'e5m2': (5, 2, 'ieee'), 'e3m2': (3, 2, 'none'),
    'e2m3': (2, 3, 'none'), 'e2m1': (2, 1, 'none'), 'int8': (0, 0, 'int'),
}


def dec_elem(fmt, code):
    """-> (cls, sign, value Fraction, signalling) cls in zero finite inf nan"""
    e, m, kind = ELEMS[fmt]
    if kind == 'int':
        v = code - 256 if code >= 128 else code
        return ('zero' if v == 0 else 'finite', v < 0, Fraction(v), False)
    w = 1 + e + m
    s = (code >> (w - 1)) & 1
    ef = (code >> m) & ((1 << e) - 1)
    mf = code & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if kind == 'ieee' and ef == (1 << e) - 1:
        if mf == 0:
            return ('inf', s, None, False)
        return ('nan', s, None, (mf >> (m - 1)) == 0)
    if kind == 'fn' and ef == (1 << e) - 1 and mf == (1 << m) - 1:
        return ('nan', s, None, False)  # E4M3 NaN: mantissa MSB 1, quiet
    if ef == 0:
        v = Fraction(mf, 1 << m) * Fraction(2) ** (1 - bias)
    else:
        v = Fraction((1 << m) + mf, 1 << m) * Fraction(2) ** (ef - bias)
    if s:
        v = -v
    return ('zero' if mf == 0 and ef == 0 else 'finite', s, v, False)


DST = {'f32': (8, 23), 'bf16': (8, 7)}


def dec_dst(to, code):
    e, m = DST[to]
    w = 1 + e + m
    s = (code >> (w - 1)) & 1
    ef = (code >> m) & ((1 << e) - 1)
    mf = code & ((1 << m) - 1)
    if ef == (1 << e) - 1:
        if mf == 0:
            return ('inf', s, None, False, ef, mf)
        return ('nan', s, None, (mf >> (m - 1)) == 0, ef, mf)
    bias = (1 << (e - 1)) - 1
    if ef == 0:
        v = Fraction(mf) * Fraction(2) ** (1 - bias - m)
    else:
        v = Fraction((1 << m) + mf) * Fraction(2) ** (ef - bias - m)
    if s:
        v = -v
    return ('zero' if v == 0 else 'finite', s, v, False, ef, mf)


def ilog2(x):  # floor(log2 x), x > 0 Fraction
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    elif Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def round_to(to, v, rnd):
    """IEEE rounding of non-zero v into `to` with MXDOTP's flags (after-bounded tininess).
    -> (code, flags)"""
    e, m = DST[to]
    w = 1 + e + m
    bias = (1 << (e - 1)) - 1
    s = 1 if v < 0 else 0
    a = -v if v < 0 else v
    E = max(ilog2(a), 1 - bias)
    q = Fraction(2) ** (E - m)  # ulp
    n = a / q
    fl = n.numerator // n.denominator
    rem = n - fl
    inexact = rem != 0
    up = False
    if inexact:
        if rnd == 'rne':
            up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
        elif rnd == 'rna':
            up = rem >= Fraction(1, 2)
        elif rnd == 'rz':
            up = False
        elif rnd == 'ru':
            up = not s
        elif rnd == 'rd':
            up = bool(s)
        elif rnd == 'ro':
            up = fl % 2 == 0
    mag = fl + (1 if up else 0)  # integer significand at exponent E
    # encode
    maxexp = (1 << e) - 2
    flags = 0
    # overflow check (before rounding: E > emax; after: mag reaches 2^(m+1) at emax)
    if E > maxexp - bias or (E == maxexp - bias and mag >= (1 << (m + 1))):
        flags = 0x05
        big = {'rne': True, 'rna': True, 'rz': False, 'ru': not s, 'rd': bool(s), 'ro': False}[rnd]
        code = ((1 << e) - 1) << m if big else (((1 << e) - 2) << m) | ((1 << m) - 1)
        return (s << (w - 1)) | code, flags
    if mag >= (1 << (m + 1)):
        mag >>= 1
        E += 1
    if mag < (1 << m):  # subnormal (E == 1 - bias)
        code = mag
    else:
        code = ((E + bias) << m) | (mag - (1 << m))
    if inexact:
        flags |= 0x01
        if (code >> m) == 0:  # delivered exponent field 0: after-bounded tininess
            flags |= 0x02
    return (s << (w - 1)) | code, flags


def mxdotp(fmt, to, rnd, sa, A, sb, B, c):
    e, m = DST[to]
    w = 1 + e + m
    qnan = (((1 << e) - 1) << m) | (1 << (m - 1))
    inf = ((1 << e) - 1) << m
    ea = [dec_elem(fmt, x) for x in A]
    eb = [dec_elem(fmt, x) for x in B]
    cc = dec_dst(to, c)
    # special cases (fpnew_mxdotp_special_cases)
    produced_nan = any((x[0] == 'inf' and y[0] == 'zero') or (y[0] == 'inf' and x[0] == 'zero')
                       for x, y in zip(ea, eb))
    any_nan = any(x[0] == 'nan' or y[0] == 'nan' for x, y in zip(ea, eb)) or sa == 0xFF or sb == 0xFF \
        or cc[0] == 'nan'
    sig = any(x[3] or y[3] for x, y in zip(ea, eb)) or cc[3]
    any_inf = any(x[0] == 'inf' or y[0] == 'inf' for x, y in zip(ea, eb)) or cc[0] == 'inf'
    pos_inf = any((x[0] == 'inf' or y[0] == 'inf') and not (x[1] ^ y[1]) for x, y in zip(ea, eb)) \
        or (cc[0] == 'inf' and not cc[1])
    neg_inf = any((x[0] == 'inf' or y[0] == 'inf') and (x[1] ^ y[1]) for x, y in zip(ea, eb)) \
        or (cc[0] == 'inf' and cc[1])
    if produced_nan:
        return qnan, 0x10
    if any_nan:
        return qnan, 0x10 if sig else 0
    if any_inf:
        if pos_inf and neg_inf:
            return qnan, 0x10
        return (inf | (1 << (w - 1))) if neg_inf else inf, 0
    scale = (sa - 127) + (sb - 127)
    S = sum(x[2] * y[2] for x, y in zip(ea, eb))  # exact product sum (unscaled)
    sop_nonzero = S != 0
    # accumulator shift (fpnew_mxdotp_accumulator_shift)
    ef, mf = cc[4], cc[5]
    sub = 1 if (ef == 0 and mf != 0) else 0
    shift = (34 - 23) - scale + (ef + sub) - 127
    if shift > 70:
        return c, 0x01 if sop_nonzero else 0
    if shift < -24 and not sop_nonzero:
        return c, 0
    V = S * Fraction(2) ** scale + cc[2]
    if V == 0:
        return 0, 0
    return round_to(to, V, rnd)


def check(path):
    h = {}
    n = bad = 0
    shown = 0
    with open(path) as f:
        for line in f:
            t = line.strip()
            if not t or t.startswith('#'):
                continue
            if '=' in t:
                k, v = t.split('=', 1)
                h[k.strip()] = v.strip()
                continue
            fmt = h['a']
            if fmt.startswith('int8'):
                fmt = 'int8'
            k = int(h['block'])
            to = h.get('to', 'f32')
            rnd = h['rounding']
            fs = t.split()
            sa = int(fs[0], 16)
            A = [int(x, 16) for x in fs[1:k + 1]]
            sb = int(fs[k + 1], 16)
            B = [int(x, 16) for x in fs[k + 2:2 * k + 2]]
            c = int(fs[2 * k + 2], 16)
            out, fl = int(fs[2 * k + 3], 16), int(fs[2 * k + 4], 16)
            r, rf = mxdotp(fmt, to, rnd, sa, A, sb, B, c)
            n += 1
            if (r, rf) != (out, fl):
                bad += 1
                if shown < 10:
                    shown += 1
                    print(f"MISMATCH {t}: ref {r:X} {rf:02X}")
    print(f"{path}: {n} cases, {bad} mismatches against the reading of the RTL")
    return bad


def main():
    bad = sum(check(p) for p in sys.argv[1:])
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
