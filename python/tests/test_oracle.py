"""hypothesis properties of softmx.convert, softmx.decode, softmx.quantize and
MXArray.dequantize against an independent oracle in exact rational arithmetic (oracle.py:
the OCP formats written out from their specifications, no softmx code). The other tests
compare the package with the C++ library's reference paths; these compare it with the
specification itself."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import softmx
import oracle

ELEMENTS = list(oracle.ELEMENT_FORMATS)
ROUNDINGS = ["rne", "rna", "rz", "ru", "rd"]

# Few-bit values k * 2^e: exact values, ties and near-ties of every format, subnormals included.
few_bits = st.builds(lambda k, e: k * 2.0 ** e, st.integers(-300, 300), st.integers(-24, 12))
# Finite values of every magnitude an element format can meet after scaling: subnormal f32s to
# far beyond e5m2's range, biased toward the formats' own ranges.
f32_finite = st.one_of(few_bits, st.floats(width=32, allow_nan=False, allow_infinity=False),
                       st.floats(-600, 600, width=32), st.floats(-8, 8, width=32),
                       st.floats(-2.0 ** -5, 2.0 ** -5, width=32))
f64_finite = st.one_of(few_bits, st.floats(allow_nan=False, allow_infinity=False), st.floats(-70000, 70000),
                       st.floats(-8, 8), st.floats(-2.0 ** -15, 2.0 ** -15))


def oracle_codes(values, fmt, rnd, sat):
    return [oracle.round_to_element(Fraction(v), math.copysign(1.0, v) < 0, fmt, rnd, sat) for v in values]


@given(st.lists(f32_finite, min_size=1, max_size=40), st.sampled_from(ELEMENTS), st.sampled_from(ROUNDINGS),
       st.sampled_from(["finite", "none"]))
def test_convert_f32_against_fractions(values, fmt, rnd, sat):
    if sat == "none" and fmt not in ("e4m3", "e5m2"):
        sat = "finite"  # FP6 / FP4 have no Inf or NaN to overflow into
    x = np.array(values, dtype=np.float32)
    before = x.copy()
    got = softmx.encode(x, fmt, round=rnd, sat=sat)
    assert np.array_equal(x, before)
    want = oracle_codes(x.tolist(), fmt, rnd, sat)
    assert got.tolist() == want, (fmt, rnd, sat)


@given(st.lists(f64_finite, min_size=1, max_size=40), st.sampled_from(ELEMENTS), st.sampled_from(ROUNDINGS),
       st.sampled_from(["finite", "none"]))
def test_convert_f64_against_fractions(values, fmt, rnd, sat):
    if sat == "none" and fmt not in ("e4m3", "e5m2"):
        sat = "finite"
    x = np.array(values, dtype=np.float64)
    got = softmx.encode(x, fmt, round=rnd, sat=sat)
    assert got.tolist() == oracle_codes(values, fmt, rnd, sat), (fmt, rnd, sat)


@pytest.mark.parametrize("fmt", ELEMENTS)
def test_decode_against_fields(fmt):
    """Every code decodes to the value of its fields (f64 holds each exactly), NaN where the
    specification has no number."""
    e_bits, m_bits, _, _ = oracle.ELEMENT_FORMATS[fmt]
    n = 1 << (1 + e_bits + m_bits)
    got = softmx.decode(np.arange(n, dtype=np.uint8), fmt, "f64")
    for c in range(n):
        v = oracle.magnitude_value(fmt, c & ((n >> 1) - 1))
        if v is None:
            continue  # Inf / NaN: pinned against the library in test_convert
        want = -v if c & (n >> 1) else v
        assert Fraction(float(got[c])) == want and math.copysign(1.0, got[c]) == (-1.0 if c & (n >> 1) else 1.0)


@settings(max_examples=40)
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 3), st.integers(1, 40)), elements=f32_finite),
       st.sampled_from(ELEMENTS), st.sampled_from([0, 1, -1]), st.sampled_from([1, 5, 16, 32]))
def test_quantize_against_ocp(x, fmt, axis, k):
    """OCP MX 6.3 (floor scale, rne, satfinite) block by block along any axis, partial last
    blocks included; dequantize is value(code) * 2^(S - 127) exactly (f64)."""
    zero_scale = {"min_scale": 0x00, "unit_scale": 0x7F}[softmx.dialect_info("ocp").policies["zero_block_scale"]]
    before = x.copy()
    q = softmx.quantize(x, fmt, block=k, axis=axis)
    assert np.array_equal(x, before)
    xm = np.moveaxis(x, axis, -1)
    codes = np.moveaxis(q.codes, axis, -1)
    scales = np.moveaxis(q.scales, axis, -1)
    deq = np.moveaxis(q.dequantize(np.float64), axis, -1)
    n = xm.shape[-1]
    assert scales.shape[-1] == (n + k - 1) // k
    e_bits, m_bits, _, _ = oracle.ELEMENT_FORMATS[fmt]
    sign = 1 << (e_bits + m_bits)
    for r in range(xm.shape[0]):
        for b in range(0, n, k):
            s, want = oracle.quantize_block(xm[r, b:b + k].tolist(), fmt, zero_scale)
            assert int(scales[r, b // k]) == s
            assert codes[r, b:b + k].tolist() == want
            for c, d in zip(want, deq[r, b:b + k].tolist()):
                v = oracle.magnitude_value(fmt, c & (sign - 1)) * Fraction(2) ** (s - 127)
                assert Fraction(d) == (-v if c & sign else v)
