"""torchmx's and pychop's own entry points from Python (softmx/torchmx.hpp, pychop.hpp): hand cases
from docs/DIALECTS.md, agreement with softmx.quantize(dialect="torchmx" / "pychop") (the same
policies reached through the generic block path), the peers' layouts (FP4 high nibble first,
to_mx padding, pychop's flattened blocks), statistics, errors, inputs unchanged."""

import numpy as np
import pytest

import softmx


def bf16(x):
    """float32 values that are exact in bf16, as their bits."""
    x = np.asarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    assert not (b & 0xFFFF).any()
    return (b >> 16).astype(np.uint16)


def test_torchmx_hand_cases():
    # DIALECTS.md torchmx row: bf16 [1.0, -0.5] -> int8 k=2: scale 0x79 (ocp's - 6), data 0x40 0xE0
    t = softmx.torchmx_quantize_mx(np.array([[0x3F80, 0xBF00]], dtype=np.uint16), "int8", 2)
    assert t.scale.tolist() == [[0x79]] and t.data.tolist() == [[0x40, 0xE0]]
    # torchmx-hw-exact row: a NaN-scale block keeps subnormal codes of |V|/2^128
    x = np.array([[0x7C00, 0x7C40, 0x7F80, 0x7AC0]], dtype=np.uint16)
    h = softmx.torchmx_quantize_mx(x, "float8_e4m3", 4, path="hardware-exact")
    assert h.scale.tolist() == [[0xFF]] and h.data.tolist() == [[0x04, 0x06, 0x00, 0x01]]
    s = softmx.torchmx_quantize_mx(x, "float8_e4m3", 4)
    assert s.scale.tolist() == [[0xFF]] and s.data.tolist() == [[0, 0, 0, 0]]


@pytest.mark.parametrize("elem,fmt", [("float8_e4m3", "e4m3"), ("float6_e3m2", "e3m2"), ("float6_e2m3", "e2m3"),
                                      ("float4_e2m1", "e2m1"), ("int8", "int8")])
def test_torchmx_equals_dialect(elem, fmt):
    rng = np.random.default_rng(7)
    v = (rng.standard_normal((3, 64)) * np.exp2(rng.integers(-6, 6, (3, 64)))).astype(np.float32)
    x = bf16(np.where(True, v.view(np.uint32) & 0xFFFF0000, 0).astype(np.uint32).view(np.float32))
    x0 = x.copy()
    t = softmx.torchmx_quantize_mx(x, elem, 32)
    q = softmx.quantize(x, fmt, src="bf16", dialect="torchmx", block=32)
    np.testing.assert_array_equal(t.scale, q.scales)
    if fmt == "e2m1":  # torchmx packs two codes per byte, element 2i in the high nibble
        np.testing.assert_array_equal(t.data, (q.codes[:, 0::2] << 4) | q.codes[:, 1::2])
    else:
        np.testing.assert_array_equal(t.data, q.codes)
    np.testing.assert_array_equal(t.to_dtype("f32"), q.dequantize())
    np.testing.assert_array_equal(softmx.torchmx_dequantize_mx(t.data, t.scale, elem, 32, "f32"), q.dequantize())
    np.testing.assert_array_equal(t.to_dtype("bf16"), q.dequantize().view(np.uint32) >> 16)  # exact in bf16
    np.testing.assert_array_equal(x, x0)


def test_torchmx_to_mx_padding_and_matmul():
    rng = np.random.default_rng(9)
    a = bf16(rng.integers(-8, 9, (4, 40)).astype(np.float32) / 4)
    b = bf16(rng.integers(-8, 9, (40, 3)).astype(np.float32) / 4)
    ta = softmx.torchmx_to_mx(a, "float8_e4m3", 32)
    assert ta.padding == 24 and ta.data.shape == (4, 40) and ta.scale.shape == (4, 2)
    tb = softmx.torchmx_to_mx(np.ascontiguousarray(b.T), "float8_e4m3", 32)
    with pytest.raises(ValueError):
        softmx.torchmx_quantize_mx(a, "float8_e4m3", 32)  # 40 is not a multiple of 32
    # small multiples of 1/4 are exact in e4m3: C is the exact product, rounded to f32 then bf16
    fa, fb = a.astype(np.uint32) << 16, b.astype(np.uint32) << 16
    c = fa.view(np.float32).astype(np.float64) @ fb.view(np.float32).astype(np.float64)
    # c is exact in f64 and in f32 (multiples of 1/16 below 2^8); one rounding to bf16 (rne)
    assert (c.astype(np.float32) == c).all()
    want = softmx.encode(c.astype(np.float32), "bf16")
    lin = softmx.torchmx_linear(ta, tb)
    assert lin.dtype == np.uint16 and lin.shape == (4, 3)
    np.testing.assert_array_equal(lin, want)
    np.testing.assert_array_equal(softmx.torchmx_linear(ta, tb, acc="fp32-sequential"), want)
    tbk = softmx.torchmx_to_mx(b, "float8_e4m3", 32)  # [K, N] blocked along N, as torch.matmul takes it
    np.testing.assert_array_equal(softmx.torchmx_matmul(ta, tbk), want)
    bias = bf16(np.array([1.0, -2.0, 0.5], dtype=np.float32))
    lb = softmx.torchmx_linear(ta, tb, bias)
    np.testing.assert_array_equal(lb, softmx.encode((c + [1.0, -2.0, 0.5]).astype(np.float32), "bf16"))


def test_pychop_equals_dialect_and_statistics():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(96) * 3
    x[5] = np.nan
    x0 = x.copy()
    for key, fmt in (("mxfp8_e4m3", "e4m3"), ("mxfp4_e2m1", "e2m1"), ("mxint8", "int8"), ("MXFP6_E3M2", "e3m2")):
        r = softmx.pychop_mx_quantize(x, key)
        q = softmx.quantize(x, fmt, dialect="pychop")
        np.testing.assert_array_equal(r.scales, q.scales)
        assert r.element == fmt and r.values.dtype == np.float64 and r.values.shape == x.shape
        keep = np.ones(96, bool)
        keep[r.uncoded] = False
        np.testing.assert_array_equal(r.codes[keep], q.codes[keep])
    r = softmx.pychop_mx_quantize(np.linspace(-3, 3, 50), "mxfp4_e2m1")
    # 50 elements, block 32: B = 2 blocks of T = 4 * 32 + 8 bits (mx_formats.py:100-105, 309-332)
    assert r.statistics() == {"format": "MXFP4_E2M1", "exp_bits": 2, "sig_bits": 1, "block_size": 32,
                              "scale_exp_bits": 8, "original_shape": (50,), "num_blocks": 2, "total_elements": 50,
                              "compression_ratio_fp32": 32 * 50 / 272, "compression_ratio_fp16": 16 * 50 / 272,
                              "bits_per_element": 272 / 50}
    # DIALECTS.md pychop row: NaN -> e2m1 code 0 (+0), not OCP's 7
    n = softmx.pychop_mx_quantize(np.array([np.nan, 1.0], dtype=np.float32), "mxfp4_e2m1")
    assert n.codes[0] == 0 and n.uncoded.tolist() == [0] and n.values.dtype == np.float32
    assert softmx.pychop_mx_quantize(np.ones(4), "mxfp4_e2m1", numpy="1").values.dtype == np.float32  # NumPy 1.x promotion
    assert softmx.pychop_mx_quantize(np.ones(4), (2, 1)).spec.name == "CUSTOM_MX4_E2M1"
    # Custom specs are runtime formats (research/pychop.md P15 and P17, np:39-58, 83-86): (4, 3)
    # under its custom name has max 480, so 1.875 * 2^8 is code 0x7F; (1, 2) has bias 0, max 3.5.
    c = softmx.pychop_mx_quantize(np.array([1.875]), (4, 3), 1)
    assert (c.scales.tolist(), c.codes.tolist(), c.values.tolist()) == ([0x77], [0x7F], [1.875])
    c = softmx.pychop_mx_quantize(np.array([3.0, 0.7]), (1, 2), 2)
    assert (c.scales.tolist(), c.codes.tolist(), c.values.tolist()) == ([0x7F], [6, 1], [3.0, 0.5])
    assert c.element == "e1m2:bias=0"
    s = softmx.pychop_spec(3, 2, 16, name="MINE")
    assert (s.name, s.block_size, s.total_bits_per_block) == ("MINE", 16, 6 * 16 + 8)
    assert softmx.pychop_mx_quantize(np.ones(40), s).num_blocks == 3
    assert sorted(softmx.pychop_specs()) == ["mxfp4_e2m1", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp8_e4m3", "mxfp8_e5m2",
                                             "mxint8"]
    np.testing.assert_array_equal(x, x0)


def test_errors():
    x = np.zeros((1, 32), dtype=np.uint16)
    with pytest.raises(ValueError, match="e5m2"):
        softmx.torchmx_quantize_mx(x, "float8_e5m2", 32)
    with pytest.raises(TypeError, match="bf16"):
        softmx.torchmx_quantize_mx(np.zeros((1, 32), np.float32), "int8", 32)
    with pytest.raises(ValueError, match="path expects 'simulated' or 'hardware-exact'"):
        softmx.torchmx_quantize_mx(x, "int8", 32, path="exact")
    t = softmx.torchmx_quantize_mx(x, "int8", 32)
    with pytest.raises(ValueError, match="target_dtype must be bf16 or f32"):
        t.to_dtype("f16")
    with pytest.raises(ValueError, match="acc expects 'exact-f32' or 'fp32-sequential'"):
        softmx.torchmx_matmul(t, t, acc="fast")
    with pytest.raises(TypeError, match="TorchmxTensor"):
        softmx.torchmx_matmul(t, x)
    with pytest.raises(ValueError, match="backend expects 'numpy', 'torch' or 'jax'"):
        softmx.pychop_mx_quantize(np.ones(4), backend="cupy")
    with pytest.raises(ValueError, match="mxfp9"):
        softmx.pychop_mx_quantize(np.ones(4), "mxfp9")
    with pytest.raises(ValueError, match="exp_bits 4, sig_bits 4.*width: 9 bits"):
        softmx.pychop_mx_quantize(np.ones(4), (4, 4))
    with pytest.raises(TypeError, match="float64 or float32"):
        softmx.pychop_mx_quantize(np.ones(4, np.float16))
    with pytest.raises(TypeError, match="format must be"):
        softmx.pychop_mx_quantize(np.ones(4), 3)
