"""softmx.quantize / MXArray / dequantize with a scale format other than E8M0 (docs/BLOCKS.md
1.2): scale = amax / max_E rounded to nearest (even) into the scale format, saturating; each
element x / scale rounded once. The pinned cases are worked out by hand in their comments; the
property checks e2m1 blocks with ue4m3 scales against an exact model in Fractions."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import softmx


def test_ue4m3_e2m1_by_hand():
    # 10 / 6 = 1.6667 lies between ue4m3's 1.625 (0x3D) and 1.75 (0x3E), nearer 1.625. Elements:
    # 10/1.625 = 6.15 -> 6 (7); 5/1.625 = 3.08 -> 3 (5); -1/1.625 = -0.615 -> -0.5 (9, tiny);
    # 0.8125/1.625 = 0.5 exactly (1). Flags inexact | underflow.
    x = np.array([10.0, 5.0, -1.0, 0.8125], np.float32)
    q = softmx.quantize(x, "e2m1", block=4, scale_format="ue4m3")
    assert q.scale_format == "ue4m3"
    assert (q.scales.tolist(), q.codes.tolist()) == ([0x3D], [0x7, 0x5, 0x9, 0x1])
    assert q.flags == softmx.INEXACT | softmx.UNDERFLOW
    # value(code) * 1.625, exact in f32.
    assert q.dequantize().tolist() == [9.75, 4.875, -0.8125, 0.8125]
    # The same from parts.
    m = softmx.MXArray(q.scales, q.codes, "e2m1", block=4, scale_format="ue4m3")
    assert m.scale_format == "ue4m3" and "ue4m3" in repr(m)
    assert m.dequantize().tolist() == [9.75, 4.875, -0.8125, 0.8125]


def test_ue5m3_int4_by_hand():
    # int4 max 1.75: 7 / 1.75 = 4 exactly, ue5m3 (bias 15) code 17 << 3 = 0x88; 7/4 = 1.75 (7),
    # -1/4 = -0.25 (0xF).
    q = softmx.quantize(np.array([7.0, -1.0], np.float32), "int4", block=2, scale_format="ue5m3")
    assert (q.scales.tolist(), q.codes.tolist(), q.flags) == ([0x88], [0x7, 0xF], 0)
    assert q.dequantize().tolist() == [7.0, -1.0]


def test_e8m0_is_the_default():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    a = softmx.quantize(x, "e4m3")
    b = softmx.quantize(x, "e4m3", scale_format="e8m0")
    assert a.scale_format == b.scale_format == "e8m0"
    assert np.array_equal(a.scales, b.scales) and np.array_equal(a.codes, b.codes)


def test_refusals_name_the_field():
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="width"):
        softmx.quantize(x, "e2m1", scale_format="f64")
    with pytest.raises(ValueError, match="fixed"):
        softmx.quantize(x, "e2m1", scale_format="int8")
    with pytest.raises(ValueError, match="scale_format"):
        softmx.quantize(x, "e2m1", scale_format="ue4m3x")
    with pytest.raises(ValueError, match="leave scale=None"):
        softmx.quantize(x, "e2m1", scale_format="ue4m3", scale="ceil")
    with pytest.raises(ValueError, match="dialect torchao"):
        softmx.quantize(x, "e2m1", scale_format="ue4m3", dialect="torchao")
    with pytest.raises(ValueError, match="does not apply"):
        softmx.quantize(np.ones(16, np.float32), "nvfp4", scale_format="ue4m3")
    with pytest.raises(TypeError):
        softmx.quantize(x, "e2m1", scale_format=3)
    # ue4m3 is 7 bits: a scale code 0x80 is out of range.
    with pytest.raises(ValueError, match="scales"):
        softmx.MXArray(np.array([0x80], np.uint8), np.array([1, 2], np.uint8), "e2m1", block=2, scale_format="ue4m3")
    q = softmx.quantize(np.ones((2, 32), np.float32), "e4m3", scale_format="ue4m3")
    with pytest.raises(ValueError, match="same scale format"):
        softmx.matmul(q, softmx.quantize(np.ones((32, 2), np.float32), "e4m3", axis=0))
    # error_stats reads the scale format: ones into e4m3 with ue4m3 scales: S = RN(1 / 448) is
    # the subnormal 2^-9 (1/448 = 1.14 * 2^-9), 1 / S = 512 saturates to 448, 448 * 2^-9 = 0.875.
    s = softmx.error_stats(np.ones((2, 32), np.float32), q)
    assert q.scales.tolist() == [[1], [1]]
    assert s.max_abs_error == 0.125 and s.mse == 0.125 ** 2 and s.saturated == 64
    assert s.scale_histogram[1] == 2 and s.scale_histogram.sum() == 2


# ---- the property: an exact model in Fractions ----

def _ue4m3_values():
    # Unsigned E4M3, bias 7, subnormals, 0x7F NaN: code c = (e << 3) | f.
    vals = []
    for c in range(0x7F):
        e, f = c >> 3, c & 7
        vals.append(Fraction(f, 8) * Fraction(2) ** -6 if e == 0 else (1 + Fraction(f, 8)) * Fraction(2) ** (e - 7))
    return vals


UE4M3 = _ue4m3_values()
E2M1 = [Fraction(v) for v in (0, 0.5, 1, 1.5, 2, 3, 4, 6)]  # codes 0..7; 8 + c is the negative


def _nearest_even(v, table):
    """The code of table (ascending, codes in order) nearest v >= 0; ties to the even code;
    beyond the last entry the last (saturation)."""
    if v >= table[-1]:
        return len(table) - 1
    best = min(range(len(table)), key=lambda c: (abs(table[c] - v), c & 1))
    return best


def _model(x):
    finite = [Fraction(float(v)) for v in x]
    amax = max(abs(v) for v in finite)
    if amax == 0:
        s_code = 0
    else:
        s_code = _nearest_even(amax / 6, UE4M3)
        if UE4M3[s_code] == 0:
            s_code = 1  # the smallest positive scale
    S = UE4M3[s_code]
    codes = []
    for v in finite:
        if v == 0:
            mag = 0
        else:
            mag = _nearest_even(abs(v) / S, E2M1)
        codes.append(mag | (8 if v < 0 else 0))  # a negative value keeps its sign (-0 too)
    return s_code, codes


floats = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False, width=32,
                   allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(floats, min_size=1, max_size=16), st.integers(min_value=-30, max_value=10))
def test_e2m1_ue4m3_against_fractions(values, shift):
    x = (np.array(values, np.float32) * np.float32(2.0 ** shift)).astype(np.float32)
    x[x == 0] = 0.0  # +0 (the model does not track zero signs)
    q = softmx.quantize(x, "e2m1", block=len(x), scale_format="ue4m3")
    s_code, codes = _model(x)
    assert q.scales.tolist() == [s_code]
    assert q.codes.tolist() == codes
    # Dequantized: value(code) * S exactly (f64 holds it).
    S = UE4M3[s_code]
    want = [float((-1 if c & 8 else 1) * E2M1[c & 7] * S) for c in codes]
    assert q.dequantize(np.float64).tolist() == want


# ---- matmul and dot read UE4M3 scales under the models that take them ----

def test_matmul_and_dot_with_ue4m3_scales_by_hand():
    # Ones in blocks of 16 into e2m1: S = RN(1 / 6) = 0.171875 (ue4m3 0x23: 2^-3 * 1.375; 1/6 =
    # 0.1667 is nearer it than 0.15625), each element 1 / 0.171875 = 5.82 -> 6 (code 7). Twos:
    # S = RN(2 / 6) = 0.34375 (0x2B: 2^-2 * 1.375), elements 6 again. blackwell-nvf4 (kind::mxf4nvf4,
    # UE4M3 per 16, K in runs of 64) sums each group of 16 products exactly (16 * 36 = 576) and
    # scales it by S_a * S_b: ones x ones = 4 * 576 * 0.171875^2 = 68.0625, twos x ones = 4 * 576 *
    # 0.34375 * 0.171875 = 136.125, both exact in f32 (no truncation at F = 35 applies).
    ones = softmx.quantize(np.ones((1, 64), np.float32), "e2m1", block=16, scale_format="ue4m3")
    twos = softmx.quantize(np.full((1, 64), 2.0, np.float32), "e2m1", block=16, scale_format="ue4m3")
    col = softmx.quantize(np.ones((64, 1), np.float32), "e2m1", axis=0, block=16, scale_format="ue4m3")
    assert list(ones.scales.ravel()) == [0x23] * 4 and list(twos.scales.ravel()) == [0x2B] * 4
    assert set(ones.codes.ravel()) == {7} and set(twos.codes.ravel()) == {7}
    # exact and fp32-sequential read them too (docs/BLOCKS.md 5: each term times S_a * S_b; per
    # block of 16, fp32-sequential's d = RN(576 * 0.171875^2) = 17.015625, exact, four of them).
    for model in ("blackwell-nvf4", "blackwell-mxf4", "exact", "fp32-sequential"):
        assert softmx.matmul(ones, col, acc=model)[0, 0] == np.float32(68.0625)
        assert softmx.matmul(twos, col, acc=model)[0, 0] == np.float32(136.125)
    v1 = softmx.quantize(np.ones(64, np.float32), "e2m1", block=16, scale_format="ue4m3")
    v2 = softmx.quantize(np.full(64, 2.0, np.float32), "e2m1", block=16, scale_format="e4m3")
    assert softmx.dot(v1, v1, acc="blackwell-nvf4") == np.float32(68.0625)
    # e4m3's positive codes are ue4m3's, read the same way (272.25 below); operands whose scale
    # formats are spelled differently are refused: the spelling is the array's scale format.
    with pytest.raises(ValueError, match="same scale format"):
        softmx.dot(v1, v2, acc="blackwell-nvf4")
    assert softmx.dot(v2, v2, acc="blackwell-nvf4") == np.float32(4 * 576 * 0.34375 ** 2)
    assert softmx.dot(v2, v2, acc="exact") == np.float32(4 * 576 * 0.34375 ** 2)
    # The other tensor-core models refuse UE4M3 (the library's message), and so do scale formats
    # the GEMM does not read.
    with pytest.raises(ValueError, match="UE4M3"):
        softmx.matmul(ones, col, acc="hopper-fp8-mma")
    u5 = softmx.quantize(np.ones((1, 64), np.float32), "e2m1", block=16, scale_format="ue5m3")
    u5c = softmx.quantize(np.ones((64, 1), np.float32), "e2m1", axis=0, block=16, scale_format="ue5m3")
    with pytest.raises(ValueError, match="scale format ue5m3 takes exact or fp32-sequential"):
        softmx.matmul(u5, u5c, acc="blackwell-nvf4")
    # ue5m3 under exact: RN(1 / 6) in ue5m3 (3 fraction bits) is 1.011b * 2^-3 = 0.171875 as in
    # ue4m3, elements 6: 4 * 576 * 0.171875^2 = 68.0625 again, computed per output.
    for model in ("exact", "fp32-sequential"):
        assert softmx.matmul(u5, u5c, acc=model)[0, 0] == np.float32(68.0625)


# ---- scale formats wider than a byte: bf16, f16, f32 ----

def test_wide_scales_by_hand():
    # Block (1, 3, -5, 0.125) into e2m1 (max 6): S = RN(5 / 6) in the scale format.
    #   f32: 0.83333331 (0x3F555555); 1/S = 1.2 -> 1 (2), 3/S = 3.6 -> 4 (6), -5/S -> -6 (0xF),
    #   0.125/S = 0.15 -> 0.
    #   bf16: 1.1010101|0101...b * 2^-1 rounds down: 0.83203125 (0x3F55), the same codes.
    #   f16: 1.1010101010|1010...b * 2^-1 rounds up: 0.83349609375 (0x3AAB), the same codes.
    x = np.array([1.0, 3.0, -5.0, 0.125], np.float32)
    for sf, dtype, code, value in (("f32", np.uint32, 0x3F555555, 0.8333333134651184),
                                   ("bf16", np.uint16, 0x3F55, 0.83203125),
                                   ("f16", np.uint16, 0x3AAB, 0.83349609375)):
        q = softmx.quantize(x, "e2m1", block=4, scale_format=sf)
        assert q.scale_format == sf and q.scales.dtype == dtype and q.scales.tolist() == [code], sf
        assert q.codes.tolist() == [2, 6, 0xF, 0]
        # Back in f64: value(code) * S exactly.
        assert q.dequantize(np.float64).tolist() == [value, 4 * value, -6 * value, 0.0], sf
        # From parts: the same array; a float32 array of scales is read as f32 codes.
        p = softmx.MXArray(q.scales, q.codes, "e2m1", block=4, scale_format=sf)
        assert p.dequantize(np.float64).tolist() == q.dequantize(np.float64).tolist()
        s = softmx.error_stats(x, q)
        assert s.scale_histogram is None
        assert s.max_abs_error == max(abs(1 - value), abs(3 - 4 * value), abs(-5 + 6 * value), 0.125)
    p = softmx.MXArray(np.array([0.8333333134651184], np.float32), np.array([2, 6, 0xF, 0], np.uint8), "e2m1",
                       block=4, scale_format="f32")
    assert p.scales.dtype == np.uint32 and p.scales.tolist() == [0x3F555555]
    # A scale code beyond bf16's 16 bits is refused, naming the scales.
    with pytest.raises(ValueError, match="scales"):
        softmx.MXArray(np.array([0x13F55], np.uint32), np.array([2, 6, 0xF, 0], np.uint8), "e2m1", block=4,
                       scale_format="bf16")


def test_matmul_with_f32_scales_against_fractions():
    # Ones in blocks of 16 into e2m1 with f32 scales: S = RN_f32(1 / 6) = 11184811 * 2^-26, each
    # element 1 / S = 5.99999982 -> 6 (code 7). exact: C = RN_f32(4 * 16 * 36 * S^2) (the exact
    # product fits in an f64, so float() is exact and np.float32 rounds once).
    # fp32-sequential: each block's sum 576 is exact, d = RN_f32(576 * S^2), then four f32 adds.
    from fractions import Fraction
    ones = softmx.quantize(np.ones((1, 64), np.float32), "e2m1", block=16, scale_format="f32")
    col = softmx.quantize(np.ones((64, 1), np.float32), "e2m1", axis=0, block=16, scale_format="f32")
    assert ones.scales.tolist() == [[0x3E2AAAAB] * 4] and set(ones.codes.ravel()) == {7}
    S = Fraction(11184811, 2 ** 26)
    assert softmx.matmul(ones, col, acc="exact")[0, 0] == np.float32(float(4 * 576 * S * S))
    d = np.float32(float(576 * S * S))
    acc = np.float32(0)
    for _ in range(4):
        acc = np.float32(acc + d)
    assert softmx.matmul(ones, col, acc="fp32-sequential")[0, 0] == acc
    v = softmx.quantize(np.ones(64, np.float32), "e2m1", block=16, scale_format="f32")
    assert softmx.dot(v, v, acc="exact") == np.float32(float(4 * 576 * S * S))
    # Along a middle axis (the scales gathered 4 bytes at a time): three lines of the same vector.
    t = softmx.quantize(np.ones((3, 64, 2), np.float32), "e2m1", axis=1, block=16, scale_format="bf16")
    got = softmx.dot(t, t, acc="exact")
    # bf16 RN(1/6): 1.0101010|1010...b * 2^-3 rounds up to 1.0101011b * 2^-3 = 171/1024 (0x3E2B).
    assert set(t.scales.ravel().tolist()) == {0x3E2B} and t.scales.dtype == np.uint16
    Sb = Fraction(171, 1024)
    assert got.shape == (3, 2) and (got == np.float32(float(4 * 576 * Sb * Sb))).all()
    # Dequantized along that middle axis (the Dequantizer one element at a time): 6 * 171/1024.
    assert (t.dequantize(np.float64) == float(6 * Sb)).all()
    with pytest.raises(ValueError, match="scale format f32 takes exact or fp32-sequential"):
        softmx.matmul(ones, col, acc="hopper-fp8-mma")

