"""softmx.quantize / dequantize / pack with runtime element formats (docs/BLOCKS.md 1.1 and 4):
specs such as "e1m2", "e2m2", "e4m3fnuz" and "int4" as the element of MX blocks with E8M0
scales. Every expected scale and code is worked out by hand in its comment."""

import numpy as np
import pytest

import softmx

# [3.5, 1, -0.5, 0.75]: amax 3.5 = 1.75 * 2^1.
X4 = np.array([3.5, 1.0, -0.5, 0.75], dtype=np.float32)


def test_e1m2_block_by_hand():
    # The seed's E1M2 (bias 1, max 1.75, emax 0): s = floor(log2 3.5) - 0 = 1, S = 0x80. Halved:
    # 1.75 -> 7 (field 1, fraction 3); 0.5 -> 2 (subnormal 2/4); -0.25 -> 8|1 = 9; 0.375 is the tie
    # of 0.25 (code 1) and 0.5 (code 2): rne takes the even code 2. 0.375 is tiny (below 1.0) and
    # inexact: flags inexact | underflow.
    q = softmx.quantize(X4, "e1m2", block=4)
    assert q.format == "e1m2" and q.element == "e1m2"
    assert q.scales.tolist() == [0x80]
    assert q.codes.tolist() == [0x7, 0x2, 0x9, 0x2]
    assert q.flags == softmx.INEXACT | softmx.UNDERFLOW
    # Decoded: value * 2: 3.5, 1, -0.5 and 1.0 (the tie went up).
    assert q.dequantize().tolist() == [3.5, 1.0, -0.5, 1.0]
    assert softmx.fake_quantize(X4, "e1m2", block=4).tolist() == [3.5, 1.0, -0.5, 1.0]


def test_other_runtime_elements_by_hand():
    # e4m3fnuz (bias 8, max 240 = 1.875 * 2^7, emax 7): s = 1 - 7 = -6, S = 0x79; times 64: 224 =
    # 1.75 * 2^7 -> field 15 fraction 6 = 0x7E; 64 -> field 14 = 0x70; -32 -> 0x80 | field 13 =
    # 0xE8; 48 = 1.5 * 2^5 -> field 13 fraction 4 = 0x6C. Exact.
    q = softmx.quantize(X4, "e4m3fnuz", block=4)
    assert (q.scales.tolist(), q.codes.tolist(), q.flags) == ([0x79], [0x7E, 0x70, 0xE8, 0x6C], 0)
    assert q.dequantize().tolist() == X4.tolist()
    # e2m2 (5 bits, bias 1, max 7 = 1.75 * 2^2, emax 2): [7, 1] gives s = 2 - 2 = 0, S = 0x7F;
    # 7 -> field 3 fraction 3 = 0x0F, 1 -> field 1 = 0x04.
    q = softmx.quantize(np.array([7.0, 1.0], np.float32), "e2m2", block=2)
    assert (q.scales.tolist(), q.codes.tolist()) == ([0x7F], [0x0F, 0x04])
    # int4 (two's complement E1M2 fixed point, -2 .. 1.75): as e1m2, with -0.25 = 0xF.
    q = softmx.quantize(X4, "int4", block=4)
    assert (q.scales.tolist(), q.codes.tolist()) == ([0x80], [0x7, 0x2, 0xF, 0x2])
    assert q.dequantize().tolist() == [3.5, 1.0, -0.5, 1.0]
    # A spec equal to a named format is that format: e2m1:bias=1 is e2m1.
    assert softmx.quantize(X4, "e2m1:bias=1", block=4).format == "e2m1"


def test_runtime_tensor_along_both_axes():
    # Two blocks of e1m2 along axis 1: [3.5 1 -0.5 0.75] as above, and [0.1875 -0.125 0.03125
    # 0.0625]: amax 0.1875 = 1.5 * 2^-3, s = -3, S = 0x7C; times 8: 1.5 -> 6, -1 -> 0xC,
    # 0.25 -> 1, 0.5 -> 2, exact.
    x = np.array([[3.5, 1.0, -0.5, 0.75], [0.1875, -0.125, 0.03125, 0.0625]], np.float32)
    q = softmx.quantize(x, "e1m2", block=4, axis=1)
    assert q.scales.tolist() == [[0x80], [0x7C]]
    assert q.codes.tolist() == [[0x7, 0x2, 0x9, 0x2], [0x6, 0xC, 0x1, 0x2]]
    t = softmx.quantize(np.ascontiguousarray(x.T), "e1m2", block=4, axis=0)
    assert t.scales.tolist() == [[0x80, 0x7C]]
    assert t.codes.T.tolist() == q.codes.tolist()
    assert softmx.dequantize(q, np.float64).tolist() == [[3.5, 1.0, -0.5, 1.0], [0.1875, -0.125, 0.03125, 0.0625]]


def test_mxarray_from_parts_and_nan():
    # e4m3fnuz's only NaN is 0x80 (the negative-zero code); ocp keeps its sign.
    q = softmx.MXArray(np.array([0x7F], np.uint8), np.array([0x80, 0x38], np.uint8), "e4m3fnuz", block=2)
    # 0x38 = field 7, fraction 0: 2^(7 - 8) = 0.5, times the scale 2^0.
    out = q.dequantize()
    assert np.isnan(out[0]) and out[1] == 0.5
    assert softmx.MXArray(np.array([0x80], np.uint8), np.array([0x7], np.uint8), "e1m2", block=1).dequantize()[0] == 3.5
    with pytest.raises(ValueError, match=r"out of range for e1m2"):
        softmx.MXArray(np.array([0x7F], np.uint8), np.array([0x10], np.uint8), "e1m2", block=1)


def test_pack_runtime_widths_by_hand():
    # e1m1 (3 bits): codes 1..7, 0 in one LSB-first stream: D1 58 1F (BLOCKS.md 4).
    assert softmx.pack(np.array([1, 2, 3, 4, 5, 6, 7, 0], np.uint8), "e1m1").tolist() == [0xD1, 0x58, 0x1F]
    assert softmx.unpack(np.array([0xD1, 0x58, 0x1F], np.uint8), "e1m1", 8).tolist() == [1, 2, 3, 4, 5, 6, 7, 0]
    # e2m2 (5 bits): 1F 01 10 0A -> 3F 40 05.
    assert softmx.pack(np.array([0x1F, 0x01, 0x10, 0x0A], np.uint8), "e2m2").tolist() == [0x3F, 0x40, 0x05]
    # An MXArray of e2m2 packs its codes the same way: [7, 1, -0.5, 3] (s = 0) has codes 0F 04
    # (as above), -0.5 = sign | subnormal fraction 2 = 0x12, 3 = 1.5 * 2^1 = field 2 fraction 2 =
    # 0x0A; stream 0F | 04 << 5 | 12 << 10 | 0A << 15 = 0x5488F -> 8F 48 05.
    q = softmx.quantize(np.array([7.0, 1.0, -0.5, 3.0], np.float32), "e2m2", block=4)
    assert q.codes.tolist() == [0x0F, 0x04, 0x12, 0x0A]
    assert q.packed().tolist() == [0x8F, 0x48, 0x05]
    assert softmx.unpack(q.packed(), "e2m2", 4).tolist() == q.codes.tolist()
    # e1m2 (4 bits) packs as nibbles, low first, as the seed does.
    assert softmx.pack(np.array([0x7, 0x9, 0xF], np.uint8), "e1m2").tolist() == [0x97, 0x0F]


@pytest.mark.parametrize("spec,field", [("e5m3", "width: 9 bits"), ("ue4m3", "sign: it is unsigned"),
                                        ("e3m2:subnormals=no", "subnormals:")])
def test_specs_that_cannot_be_elements(spec, field):
    with pytest.raises(ValueError, match=f"to '{spec}': the runtime format .* cannot be an MX element: {field}"):
        softmx.quantize(X4, spec, block=4)
    with pytest.raises(ValueError, match="format must be an MX element format"):
        softmx.MXArray(np.array([0x7F], np.uint8), np.array([0], np.uint8), spec, block=1)
    assert not softmx.format_info(spec).is_element
    assert softmx.format_info("e1m2").is_element
