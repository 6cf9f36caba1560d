"""Bad input is a Python exception with a message that says what was expected, never a crash;
inputs are never modified, and read-only and non-contiguous arrays are accepted."""

import re

import numpy as np
import pytest

import softmx

X = np.linspace(-500, 500, 96, dtype=np.float32).reshape(3, 32)


@pytest.mark.parametrize("call,exc,message", [
    (lambda: softmx.convert(X, "e9m9"), ValueError, r"bad format spec 'e9m9' for to: exp: expected 0 to 8 exponent "
                                                  r"bits, got 9 \(a named format: f64, f32"),
    (lambda: softmx.convert(X, "e4m3:bias=x"), ValueError, r"bad format spec 'e4m3:bias=x' for to: bias: expected an "
                                                           r"integer"),
    (lambda: softmx.quantize(X, "e5m3"), ValueError, r"to 'e5m3': the runtime format e5m3 cannot be an MX element: "
                                                     r"width: 9 bits"),
    (lambda: softmx.quantize(X, "ue4m3"), ValueError, r"cannot be an MX element: sign: it is unsigned"),
    (lambda: softmx.convert(X, "e4m3", round="nearest"), ValueError, r"unknown rounding mode 'nearest' for round "
                                                                     r"\(expected rne, rna, rz, ru, rd, ro or rs\)"),
    (lambda: softmx.convert(X, "e4m3", sat="clip"), ValueError, r"unknown saturation 'clip' for sat \(expected "
                                                                r"'finite' or 'none'"),
    (lambda: softmx.convert(X, "e4m3", dialect="nvidia"), ValueError, r"unknown dialect 'nvidia' for dialect "
                                                                      r"\(expected one of ocp, cuda"),
    (lambda: softmx.convert(X, "e4m3", tininess="early"), ValueError, r"expected 'after', 'before' or 'after-bounded'"),
    (lambda: softmx.convert(X, "e4m3", round="rz", dialect="cuda"), ValueError, r"cuda"),
    (lambda: softmx.convert(X, "e4m3", rbits=8), ValueError, r"rbits applies only with round='rs'"),
    (lambda: softmx.convert(X, "e4m3", random=3), ValueError, r"random gives the random bits of round='rs'"),
    (lambda: softmx.convert(X, "e4m3", round="rs"), ValueError, r"round='rs' needs random="),
    (lambda: softmx.convert(X, "e4m3", round="rs", rbits=4, random=16), ValueError, r"does not fit in rbits = 4"),
    (lambda: softmx.convert(X, "e4m3", round="rs", rbits=65, random=1), ValueError, r"1 to 64"),
    (lambda: softmx.convert(X, "e4m3", round="rs", random=np.ones(5, np.uint64)), ValueError, r"does not broadcast"),
    (lambda: softmx.convert(X, "e4m3", round="rs", random=np.ones(96) * 0.5), TypeError, r"unsigned integers"),
    (lambda: softmx.convert(X.astype(np.int32), "e4m3"), TypeError, r"give src=\.\.\."),
    (lambda: softmx.convert(X.astype(complex), "e4m3"), TypeError, r"expected a float64, float32 or float16 array"),
    (lambda: softmx.convert(np.array(["a"]), "e4m3"), TypeError, r"expected a float64"),
    (lambda: softmx.convert(np.array([16], np.uint8), "f32", src="e2m1"), ValueError,
     r"code 16 at flat index 0 is out of range for e2m1 \(expected 0 to 15\)"),
    (lambda: softmx.convert(np.array([300]), "f32", src="e4m3"), ValueError, r"code 300 is out of range for e4m3"),
    (lambda: softmx.convert(np.array([-1]), "f32", src="e4m3"), ValueError, r"code -1 is negative"),
    (lambda: softmx.convert(X, "e4m3", src="bf16"), TypeError, r"holds f32 values, but src='bf16'"),
    (lambda: softmx.convert(X, 5), TypeError, r"to must be a format name \(a str such as 'e4m3' or 'f16'\) or a numpy "
                                              r"float dtype .*, got int"),
    (lambda: softmx.convert(X, np.int32), TypeError, r"to: numpy dtype int32 is not a number format softmx knows"),
    (lambda: softmx.convert(X, "e4m3", threads=0), ValueError, r"threads must be None"),
    (lambda: softmx.decode(np.arange(4), "e4m3", to="e5m2"), ValueError, r"dtype must be f64, f32, f16 or bf16"),
    (lambda: softmx.quantize(X, "f16"), ValueError, r"to must be an MX element format"),
    (lambda: softmx.quantize(X, "e4m3", axis=2), ValueError, r"axis 2 is out of range for a 2-d array"),
    (lambda: softmx.quantize(np.float32(1), "e4m3"), ValueError, r"at least one dimension"),
    (lambda: softmx.quantize(X, "e4m3", block=0), ValueError, r"block must be an integer from 1 to 1048576, got 0"),
    (lambda: softmx.quantize(X, "e4m3", scale="round"), ValueError, r"expected floor, ceil, even or rceil"),
    (lambda: softmx.quantize(X, "e4m3", dialect="ml_dtypes"), ValueError, r"no block quantization"),
    (lambda: softmx.quantize(X, "int8", dialect="cuda"), ValueError, r"MXINT8"),
    (lambda: softmx.quantize(X, "nvfp4", block=32), ValueError, r"nvfp4 blocks hold 16"),
    (lambda: softmx.quantize(X, "nvfp4", round="rz"), ValueError, r"'rne' or 'rs'"),
    (lambda: softmx.quantize(X.astype(np.float64), "nvfp4"), ValueError, r"not f64"),
    (lambda: softmx.quantize(X, "e4m3", global_amax=1.0), ValueError, r"to='nvfp4' only"),
    (lambda: softmx.quantize(np.arange(3, dtype=np.uint8), "e4m3", src="e4m3"), ValueError,
     r"takes f64, f32, f16 or bf16 data"),
    (lambda: softmx.matmul(X, X), TypeError, r"a must be an MXArray"),
    (lambda: softmx.matmul(softmx.quantize(X, "e4m3"), softmx.quantize(X, "e4m3")), ValueError,
     r"b must be blocked along its first axis \(K\)"),
    (lambda: softmx.matmul(softmx.quantize(X, "e4m3", axis=0), softmx.quantize(X.T, "e4m3", axis=0)), ValueError,
     r"a must be blocked along its last axis"),
    (lambda: softmx.matmul(softmx.quantize(X, "e4m3"), softmx.quantize(X, "e4m3", axis=0)), ValueError,
     r"a's columns must match b's rows"),
    (lambda: softmx.matmul(softmx.quantize(X, "e4m3"), softmx.quantize(X.T, "e4m3", axis=0, block=16)), ValueError,
     r"same block size"),
    (lambda: softmx.matmul(softmx.quantize(X, "e4m3"), softmx.quantize(X.T, "e4m3", axis=0), acc="tf32"), ValueError,
     r"unknown accumulation model 'tf32' for acc \(expected one of exact, fp32-sequential, hopper-fp8-mma"),
    (lambda: softmx.matmul(softmx.quantize(X, "nvfp4"), softmx.quantize(X.T, "e4m3", axis=0)), TypeError,
     r"nvfp4 array"),
    (lambda: softmx.dot(softmx.quantize(X, "e4m3"), softmx.quantize(X[:2], "e4m3")), ValueError,
     r"same shape, axis and block size"),
    (lambda: softmx.error_stats(X, X[:2]), ValueError, r"x has shape \(3, 32\) and q has shape \(2, 32\)"),
    (lambda: softmx.error_stats(X, softmx.quantize(X[:2], "e4m3")), ValueError, r"x has shape"),
    (lambda: softmx.error_stats(X, X, format="e9"), ValueError, r"unknown format 'e9'"),
    (lambda: softmx.MXArray(np.zeros((3, 1), np.uint8), np.zeros((3, 32), np.uint8), "f32"), ValueError,
     r"MX element format"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "e4m3"), ValueError,
     r"need scales of shape \(3, 1\)"),
    (lambda: softmx.MXArray(np.zeros((3, 1), np.uint8), np.full((3, 32), 64, np.uint8), "e2m3"), ValueError,
     r"out of range for e2m3"),
    (lambda: softmx.quantize(X, "e4m3").dequantize(np.int32), ValueError, r"dtype must be numpy.float64"),
    (lambda: softmx.quantize(X, "e4m3").dequantize("e4m3"), ValueError, r"dtype must be f64"),
    (lambda: softmx.quantize(X, "e4m3").dequantize(round="rs"), ValueError, r"no round='rs'"),
    (lambda: softmx.pack(np.zeros(3, np.uint16), "f16"), ValueError, r"at most 8 bits"),
    (lambda: softmx.format_info("nope"), ValueError, r"unknown format 'nope'"),
    (lambda: softmx.dialect_info("nope"), ValueError, r"unknown dialect 'nope'"),
    (lambda: softmx.convert(X, "e4m3\x00x"), ValueError, r"'e4m3\\x00x'"),
])
def test_error_messages(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_gfloat_refuses_nan_in_a_nanless_format():
    x = np.zeros(32, np.float32)
    x[3] = np.nan
    with pytest.raises(ValueError, match="gfloat"):
        softmx.quantize(x, "e2m1", dialect="gfloat")


def variants(a):
    """The same values as a C-contiguous array, a read-only one, a non-contiguous view (every
    other element of a larger array), a Fortran-ordered copy and a reversed view."""
    ro = a.copy()
    ro.flags.writeable = False
    big = np.empty((a.shape[0], 2 * a.shape[1]) if a.ndim == 2 else (2 * a.shape[0],), a.dtype)
    if a.ndim == 2:
        big[:, ::2] = a
        strided = big[:, ::2]
    else:
        big[::2] = a
        strided = big[::2]
    return {"contiguous": a.copy(), "readonly": ro, "strided": strided, "fortran": np.asfortranarray(a),
            "reversed": a[::-1][::-1] if a.ndim == 1 else a[::-1, ::-1][::-1, ::-1]}


def calls():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((8, 64)) * 50).astype(np.float32)
    x[0, 0] = np.nan
    codes = softmx.encode(x, "e4m3")
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)
    yield "convert", x, lambda v: softmx.convert(v, "e2m1", flags=True)
    yield "convert rs", x, lambda v: softmx.convert(v, "e4m3", round="rs", random=np.arange(512, dtype=np.uint64)
                                                    .reshape(8, 64))
    yield "convert codes", codes, lambda v: softmx.convert(v, "f16", src="e4m3")
    yield "convert values", codes, lambda v: softmx.convert(v, "e2m1", src="e4m3")
    yield "encode", x, lambda v: softmx.encode(v, "e2m1", flags=True)
    yield "decode", codes, lambda v: softmx.decode(v, "e4m3")
    yield "quantize", x, lambda v: softmx.quantize(v, "e4m3").codes
    yield "quantize axis 0", x, lambda v: softmx.quantize(v, "e2m1", axis=0, block=3).codes
    yield "quantize bf16", bf, lambda v: softmx.quantize(v, "e3m2", src="bf16").codes
    yield "nvfp4", np.nan_to_num(x), lambda v: softmx.quantize(v, "nvfp4").codes
    yield "fake_quantize", x, lambda v: softmx.fake_quantize(v, "int8")
    yield "error_stats", x, lambda v: softmx.error_stats(v, softmx.quantize(x, "e4m3")).mse
    yield "error_stats arrays", x, lambda v: softmx.error_stats(x, v, format="e4m3").mse
    yield "MXArray", codes, lambda v: softmx.MXArray(np.full((8, 2), 127, np.uint8), v, "e4m3").dequantize()
    yield "pack", softmx.encode(x, "e2m1"), lambda v: softmx.pack(v, "e2m1")


@pytest.mark.parametrize("name,data,fn", list(calls()), ids=[c[0] for c in calls()])
def test_inputs_unchanged_and_layouts_accepted(name, data, fn):
    """Each call gives the same result for every layout of the same values, and leaves every
    input exactly as it was (bytes compared, NaN payloads included)."""
    want = fn(data.copy())
    for label, v in variants(data).items():
        before = v.copy()
        got = fn(v)
        assert np.array_equal(v.view(np.uint8) if v.flags.c_contiguous else np.ascontiguousarray(v).view(np.uint8),
                              before.view(np.uint8)), (name, label)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.array_equal(np.asarray(g), np.asarray(w), equal_nan=True), (name, label)


def test_mxarray_operands_unchanged():
    rng = np.random.default_rng(1)
    a = softmx.quantize(rng.standard_normal((4, 64)).astype(np.float32), "e4m3")
    b = softmx.quantize(rng.standard_normal((64, 3)).astype(np.float32), "e5m2", axis=0)
    snap = [a.codes.copy(), a.scales.copy(), b.codes.copy(), b.scales.copy()]
    softmx.matmul(a, b, acc="fp32-sequential")
    softmx.dot(a, a)
    a.dequantize(np.float16)
    a.packed()
    assert all(np.array_equal(s, t) for s, t in zip(snap, [a.codes, a.scales, b.codes, b.scales]))
    with pytest.raises(ValueError):
        a.codes[0, 0] = 1  # read-only: an MXArray cannot be changed behind its back


def test_buffer_protocol_and_lists():
    import array
    buf = array.array("f", [1.0, 448.0, 500.0])
    assert list(softmx.encode(buf, "e4m3")) == [0x38, 0x7E, 0x7E]
    assert list(softmx.encode(memoryview(buf), "e4m3")) == [0x38, 0x7E, 0x7E]
    assert list(softmx.convert(memoryview(buf), "e4m3")) == [1.0, 448.0, 448.0]
    assert list(softmx.encode([1.0, 2.0], "e4m3")) == [0x38, 0x40]  # a list is float64
    assert softmx.encode(np.float32(1.0), "e4m3").shape == ()
    assert softmx.convert(np.float32(1.0), "e4m3").shape == ()
    assert softmx.encode(np.zeros((0, 3), np.float32), "e4m3").shape == (0, 3)
    assert softmx.convert(np.zeros((0, 3), np.float32), np.float16).shape == (0, 3)
    assert softmx.encode(np.array([0x3F80], np.int16), "e4m3", src="bf16")[0] == 0x38  # a signed view of bits
    assert softmx.quantize(np.zeros((0, 64), np.float32), "e4m3").scales.shape == (0, 2)


def test_zero_copy_views():
    """A C-contiguous array of a float dtype or of the codes' storage dtype reaches the library
    as a view of its own memory; other layouts are copied once."""
    from softmx._arrays import as_codes
    x = np.arange(1000, dtype=np.float32)
    v, name = as_codes(x, None)
    assert name == "f32" and v.dtype == np.uint32 and np.shares_memory(v, x)
    b = np.arange(1000, dtype=np.uint16)
    assert np.shares_memory(as_codes(b, "bf16")[0], b)
    ro = x.copy()
    ro.flags.writeable = False
    assert np.shares_memory(as_codes(ro, None)[0], ro)
    assert not np.shares_memory(as_codes(x[::2], None)[0], x)
    assert not np.shares_memory(as_codes(b.astype(np.uint32), "bf16")[0], b)


@pytest.mark.long
def test_the_gil_is_released():
    """While one thread converts a large array, another keeps running Python: the library runs
    without the GIL. (With the GIL held, the other thread would stall for the whole call.)"""
    import threading
    import time
    x = np.random.default_rng(0).standard_normal(1 << 24).astype(np.float32)
    softmx.convert(x[:1000], "e4m3")
    t0 = time.perf_counter()
    softmx.convert(x, "e4m3", flags=True, threads=1)
    single = time.perf_counter() - t0
    span = {}

    def work():
        span["start"] = time.perf_counter()
        softmx.convert(x, "e4m3", flags=True, threads=1)
        span["end"] = time.perf_counter()

    th = threading.Thread(target=work)
    ticks = []
    th.start()
    while th.is_alive():
        ticks.append(time.perf_counter())
    th.join()
    inside = [t for t in ticks if span["start"] < t < span["end"]]
    # Python switches threads every 5 ms; a call of `single` seconds that held the GIL would
    # leave the main thread no ticks inside it beyond a switch or two.
    assert single > 0.02
    assert len(inside) > 100, (len(inside), single)


# ---- integer arguments (issue 24, item 8) ----
# Every integer argument that reaches the extension (whose C++ parameters are unsigned, size_t,
# uint64, int or long) is range-checked in Python: -1, 2**64 and the first value past the
# documented limit are a ValueError naming the argument and the value (never pybind11's
# "incompatible function arguments" TypeError, an OverflowError, a crash or a silently wrapped
# value); a float, str or bool in its place is a TypeError naming it; numpy integer scalars
# work as the ints they hold.

def _bf16_rows():
    return np.zeros((1, 32), np.uint16)


def _torchmx():
    return softmx.torchmx_quantize_mx(_bf16_rows(), "int8", 32)


def _packed():
    return softmx.pack(softmx.encode(X, "e2m1"), "e2m1")  # rows of 16 bytes: at most 32 e2m1 codes


S = np.arange(6, dtype=np.uint8).reshape(3, 2)
BF16_16 = np.zeros((16, 16), np.uint16)
RANDOM_256 = np.zeros(256, np.uint64)

# (id, the argument's name as messages give it, fn(value), values out of range, a valid value[,
# the call for the valid value when it is not fn])
INT_ARGS = [
    ("convert-rbits", "rbits", lambda v: softmx.convert(X, "e4m3", round="rs", rbits=v, random=0), [-1, 2**64, 65], 8),
    ("convert-threads", "threads", lambda v: softmx.convert(X, "e4m3", threads=v), [-1, 2**64, 1025], 2),
    ("decode-threads", "threads", lambda v: softmx.decode(np.arange(8, dtype=np.uint8), "e4m3", threads=v),
     [-1, 2**64, 1025], 2),
    ("quantize-block", "block", lambda v: softmx.quantize(X, "e4m3", block=v), [-1, 2**64, 2**20 + 1], 16),
    ("quantize-axis", "axis", lambda v: softmx.quantize(X, "e4m3", axis=v), [-3, 2, 2**64], 0),
    ("quantize-rbits", "rbits", lambda v: softmx.quantize(X, "e4m3", round="rs", rbits=v, random=0),
     [-1, 2**64, 65], 8),
    ("quantize-nvfp4-rbits", "rbits", lambda v: softmx.quantize(X, "nvfp4", round="rs", rbits=v, random=0),
     [-1, 2**64, 65], 8),
    ("quantize-threads", "threads", lambda v: softmx.quantize(X, "e4m3", threads=v), [-1, 2**64, 1025], 2),
    ("fake_quantize-block", "block", lambda v: softmx.fake_quantize(X, "e4m3", block=v), [-1, 2**64, 2**20 + 1], 16),
    ("MXArray-block", "block",
     lambda v: softmx.MXArray(np.zeros((3, 1), np.uint8), np.zeros((3, 32), np.uint8), "e4m3", block=v),
     [-1, 2**64, 2**20 + 1], 32),
    ("MXArray-axis", "axis",
     lambda v: softmx.MXArray(np.zeros((3, 1), np.uint8), np.zeros((3, 32), np.uint8), "e4m3", axis=v),
     [-3, 2, 2**64], 1),
    ("MXArray.dequantize-threads", "threads", lambda v: softmx.quantize(X, "e4m3").dequantize(threads=v),
     [-1, 2**64, 1025], 2),
    ("dequantize-threads", "threads", lambda v: softmx.dequantize(softmx.quantize(X, "e4m3"), threads=v),
     [-1, 2**64, 1025], 2),
    ("unpack-count", "count", lambda v: softmx.unpack(_packed(), "e2m1", v), [-1, 2**64, 33], 32),
    ("matmul-threads", "threads",
     lambda v: softmx.matmul(softmx.quantize(X, "e4m3"), softmx.quantize(X.T, "e4m3", axis=0), threads=v),
     [-1, 2**64, 1025], 2),
    ("dot-threads", "threads", lambda v: softmx.dot(softmx.quantize(X, "e4m3"), softmx.quantize(X, "e4m3"), threads=v),
     [-1, 2**64, 1025], 2),
    ("error_stats-threads", "threads", lambda v: softmx.error_stats(X, softmx.quantize(X, "e4m3"), threads=v),
     [-1, 2**64, 1025], 2),
    ("error_stats-arrays-threads", "threads", lambda v: softmx.error_stats(X, X, format="e4m3", threads=v),
     [-1, 2**64, 1025], 2),
    ("flags_words-flags", "flags", lambda v: softmx.flags_words(v), [-1, 2**64, 256], 5),
    ("swizzle_scales-pad", "pad", lambda v: softmx.swizzle_scales(S, pad=v), [-1, 2**64, 256], 7),
    ("unswizzle_scales-rows", "shape[0]", lambda v: softmx.unswizzle_scales(np.zeros(512, np.uint8), (v, 2)),
     [-1, 2**64, 10**9], 3),
    ("unswizzle_scales-cols", "shape[1]", lambda v: softmx.unswizzle_scales(np.zeros(512, np.uint8), (3, v)),
     [-1, 2**64, 10**9], 2),
    ("scale_layout_size-rows", "shape[0]", lambda v: softmx.scale_layout_size((v, 2)), [-1, 2**64, 10**9], 3),
    ("scale_layout_size-cols", "shape[1]", lambda v: softmx.scale_layout_size((3, v), "paired", operand="a"),
     [-1, 2**64, 10**9], 5),
    ("scale_layout_index-r", "r", lambda v: softmx.scale_layout_index(v, 0, (3, 2)), [-1, 2**64, 10**9], 1),
    ("scale_layout_index-c", "c", lambda v: softmx.scale_layout_index(0, v, (3, 2)), [-1, 2**64, 10**9], 1),
    ("scale_layout_index-shape", "shape[0]", lambda v: softmx.scale_layout_index(0, 0, (v, 2)), [-1, 2**64, 10**9], 3),
    # Each out-of-range multiple with the largest valid other one: today's code asks for 10**18
    # codes (a MemoryError), where 10**9 x 4 would fill 16 GB.
    ("pad_scales-multiple0", "multiple[0]", lambda v: softmx.pad_scales(S, (v, 10**9 - 1)), [0, 2**64, 10**9], 4,
     lambda v: softmx.pad_scales(S, (v, 4))),
    ("pad_scales-multiple1", "multiple[1]", lambda v: softmx.pad_scales(S, (10**9 - 1, v)), [0, 2**64, 10**9], 4,
     lambda v: softmx.pad_scales(S, (4, v))),
    ("pad_scales-pad", "pad", lambda v: softmx.pad_scales(S, (4, 4), pad=v), [-1, 2**64, 256], 7),
    ("pad_scales-pad-uint64", "pad", lambda v: softmx.pad_scales(S.astype(np.uint64), (4, 4), pad=v),
     [-1, 2**64, 2**32], 7),
    ("unpad_scales-rows", "shape[0]", lambda v: softmx.unpad_scales(np.zeros((4, 4), np.uint8), (v, 2), (4, 4)),
     [-1, 2**64, 10**9], 3),
    ("unpad_scales-cols", "shape[1]", lambda v: softmx.unpad_scales(np.zeros((4, 4), np.uint8), (3, v), (4, 4)),
     [-1, 2**64, 10**9], 2),
    ("unpad_scales-multiple0", "multiple[0]", lambda v: softmx.unpad_scales(np.zeros((4, 4), np.uint8), (3, 2), (v, 4)),
     [0, 2**64, 10**9], 4),
    ("unpad_scales-multiple1", "multiple[1]", lambda v: softmx.unpad_scales(np.zeros((4, 4), np.uint8), (3, 2), (4, v)),
     [0, 2**64, 10**9], 4),
    ("lut_argmin_golden-m", "m", lambda v: softmx.lut_argmin_golden(v, 2, 2), [-1, 2**64, 16385], 2),
    ("lut_argmin_golden-n", "n", lambda v: softmx.lut_argmin_golden(2, v, 2), [-1, 2**64, 16385], 2),
    ("lut_argmin_golden-k", "k", lambda v: softmx.lut_argmin_golden(2, 2, v), [-1, 2**64, 65537], 2),
    ("lut_argmin_golden-seed", "seed", lambda v: softmx.lut_argmin_golden(2, 2, 2, seed=v), [-1, 2**64], 5),
    ("lut_argmin_golden-trans_a", "trans_a", lambda v: softmx.lut_argmin_golden(2, 2, 2, trans_a=v), [-1, 2**64, 2], 1),
    ("lut_argmin_golden-trans_b", "trans_b", lambda v: softmx.lut_argmin_golden(2, 2, 2, trans_b=v), [-1, 2**64, 2], 1),
    ("gemm_golden_inputs-seed", "seed", lambda v: softmx.gemm_golden_inputs(v, 3), [-1, 2**64], 5),
    ("gemm_golden_inputs-count", "count", lambda v: softmx.gemm_golden_inputs(1, v), [-1, 2**64, 2**28 + 1], 3),
    ("lut_argmin_quantize-axis", "axis", lambda v: softmx.lut_argmin_quantize(np.zeros((2, 32), np.float32), axis=v),
     [-1, 2**64, 2], 1),
    ("torchmx_quantize_mx-block_size", "block_size", lambda v: softmx.torchmx_quantize_mx(_bf16_rows(), "int8", v),
     [-1, 2**64, 65537], 32),
    ("torchmx_to_mx-block_size", "block_size", lambda v: softmx.torchmx_to_mx(_bf16_rows(), "int8", v),
     [-1, 2**64, 65537], 32),
    ("torchmx_dequantize_mx-block_size", "block_size",
     lambda v: softmx.torchmx_dequantize_mx(_torchmx().data, _torchmx().scale, "int8", v), [-1, 2**64, 65537], 32),
    ("torchmx_dequantize_mx-block_dim", "block_dim",
     lambda v: softmx.torchmx_dequantize_mx(_torchmx().data, _torchmx().scale, "int8", 32, block_dim=v),
     [-3, 2, 2**64], 1),
    ("pychop_spec-exp_bits", "exp_bits", lambda v: softmx.pychop_spec(v, 2), [-1, 2**64, 17], 3),
    ("pychop_spec-sig_bits", "sig_bits", lambda v: softmx.pychop_spec(3, v), [-1, 2**64, 65], 2),
    ("pychop_spec-block_size", "block_size", lambda v: softmx.pychop_spec(3, 2, v), [-1, 2**64, 65537], 16),
    ("pychop_spec-scale_exp_bits", "scale_exp_bits", lambda v: softmx.pychop_spec(3, 2, 32, v), [-1, 2**64, 9], 8),
    ("pychop_mx_quantize-block_size", "block_size", lambda v: softmx.pychop_mx_quantize(np.ones(4), block_size=v),
     [-1, 2**64, 65537], 2),
    ("pychop_mx_quantize-scale_exp_bits", "scale_exp_bits",
     lambda v: softmx.pychop_mx_quantize(np.ones(4), scale_exp_bits=v), [-1, 2**64, 9], 8),
    ("pychop_mx_quantize-scale_sig_bits", "scale_sig_bits",
     lambda v: softmx.pychop_mx_quantize(np.ones(4), scale_sig_bits=v), [-1, 2**64, 65], 0),
    ("pychop_mx_quantize-format-exp_bits", "exp_bits", lambda v: softmx.pychop_mx_quantize(np.ones(4), (v, 1)),
     [-1, 2**64, 17], 2),
    ("pychop_mx_quantize-format-sig_bits", "sig_bits", lambda v: softmx.pychop_mx_quantize(np.ones(4), (2, v)),
     [-1, 2**64, 65], 1),
    # The limit is on the values in all: 2**28 (a shape of 2**28 + 2**14 values). Today's code
    # makes a 1 GiB tensor for it; a dimension of 2**32 would take all the memory there is.
    ("recipe_test_input-shape", "shape", lambda v: softmx.recipe_test_input((2**14, v)), [-1, 2**64, 2**14 + 1], 4),
    ("recipe_test_input-seed", "seed", lambda v: softmx.recipe_test_input(4, seed=v), [-1, 2**64], 5),
    ("recipe-rbits", "rbits",
     lambda v: softmx.recipe("te-nvfp4", BF16_16, src="bf16", role="gradient", stochastic_form="rs", rbits=v,
                             random_rowwise=RANDOM_256, random_columnwise=RANDOM_256), [-1, 2**64, 65], 8),
    ("recipe-rht_signs", "rht_signs", lambda v: softmx.recipe("te-nvfp4", BF16_16, src="bf16", rht_signs=v),
     [-1, 2**64, 0x10000], 0x1234),
]


def _out_of_range_cases():
    for ident, name, fn, bad, *_ in INT_ARGS:
        for v in bad:
            yield pytest.param(fn, name, v, id=f"{ident}={'2**64' if v == 2**64 else v}")


@pytest.mark.parametrize("fn,name,value", list(_out_of_range_cases()))
def test_integer_argument_out_of_range(fn, name, value):
    """-1, 2**64 and the limit + 1: ValueError naming the argument and the value."""
    with pytest.raises(ValueError) as e:
        fn(value)
    message = str(e.value)
    assert re.search(rf"(?<![\w\[]){re.escape(name)}(?!\w)", message), message
    assert str(value) in message, message
    assert "incompatible function arguments" not in message


def _wrong_type_cases():
    for ident, name, fn, *_ in INT_ARGS:
        for v in (2.0, "2", np.float64(2.0)):
            yield pytest.param(fn, name, v, id=f"{ident}={type(v).__name__}")


@pytest.mark.parametrize("fn,name,value", list(_wrong_type_cases()))
def test_integer_argument_wrong_type(fn, name, value):
    """A float or a str where an integer is expected: TypeError naming the argument."""
    with pytest.raises(TypeError) as e:
        fn(value)
    message = str(e.value)
    assert name in message and "incompatible function arguments" not in message, message


def _digest(r):
    """A comparable form of what the public functions return."""
    if isinstance(r, np.ndarray):
        return r.dtype.str, r.shape, r.tobytes()
    if isinstance(r, (tuple, list)):
        return tuple(_digest(x) for x in r)
    if isinstance(r, softmx.MXArray):
        return repr(r), _digest(r.codes), _digest(r.scales), r.flags
    if isinstance(r, softmx.LutGolden):
        return tuple(sorted(r.files.items()))
    if isinstance(r, softmx.TorchmxTensor):
        return repr(r), _digest(r.data), _digest(r.scale)
    if isinstance(r, softmx.PychopResult):
        return repr(r), _digest(r.values), _digest(r.codes), _digest(r.scales)
    if isinstance(r, softmx.RecipeResult):
        return repr(r), _digest(r.rowwise.codes), _digest(r.rowwise.scales)
    if isinstance(r, softmx.ErrorStats):
        return repr(r)
    if isinstance(r, (str, int, float)):
        return r
    return repr(r)


@pytest.mark.parametrize("fn,ok", [pytest.param((rest or [fn])[0], ok, id=ident)
                                   for ident, _, fn, _, ok, *rest in INT_ARGS])
def test_numpy_integer_scalars_work(fn, ok):
    """np.int64(5) is 5 (and so are the other numpy integer types that hold the value)."""
    want = _digest(fn(ok))
    assert _digest(fn(np.int64(ok))) == want
    assert _digest(fn(np.uint16(ok))) == want


def test_numpy_integer_scalars_in_tuples():
    assert softmx.recipe_test_input(np.int64(16), seed=np.uint64(3)).tobytes() == \
        softmx.recipe_test_input((np.int32(16),), seed=3).tobytes()
    assert softmx.scale_layout_size((np.int64(130), np.uint8(7))) == softmx.scale_layout_size((130, 7))
    r = softmx.pychop_mx_quantize(np.ones(4), (np.int64(2), np.int8(1)))
    assert r.spec.name == "CUSTOM_MX4_E2M1"
    assert softmx.lut_argmin_golden(2, 2, 2, trans_a=np.int64(1)).trans_a is True


@pytest.mark.parametrize("call,exc,message", [
    (lambda: softmx.quantize(X, "e4m3", block=-1), ValueError, r"^block must be an integer from 1 to 1048576, got -1$"),
    (lambda: softmx.quantize(X, "e4m3", block=2**64), ValueError,
     r"^block must be an integer from 1 to 1048576, got 18446744073709551616$"),
    (lambda: softmx.unpack(_packed(), "e2m1", count=-1), ValueError,
     r"^count must be an integer from 0 to 32 \(the most e2m1 codes a row of 16 bytes holds\), got -1$"),
    (lambda: softmx.unpack(_packed(), "f16", 4), ValueError, r"at most 8 bits"),
    (lambda: softmx.unpack(np.uint8(3), "e2m1", 4), ValueError, r"at least one dimension"),
    (lambda: softmx.convert(X, "e4m3", threads=2**64), ValueError,
     r"^threads must be None \(every core\) or an integer from 1 to 1024, got 18446744073709551616$"),
    (lambda: softmx.convert(X, "e4m3", threads=1.5), TypeError,
     r"^threads must be None \(every core\) or an integer from 1 to 1024, got float$"),
    (lambda: softmx.quantize(X, "e4m3", block="32"), TypeError, r"^block must be an integer from 1 to 1048576 or None, "
                                                                r"got str$"),
    (lambda: softmx.flags_words(True), TypeError, r"flags must be an integer from 0 to 255, got bool"),
    (lambda: softmx.pychop_mx_quantize(np.ones(4), (2, 1, 0)), TypeError, r"\(exp_bits, sig_bits\), got 3 items"),
    (lambda: softmx.torchmx_dequantize_mx(np.uint8(0), np.uint8(0), "int8"), ValueError, r"data_lp must have at least"),
    (lambda: softmx.recipe_test_input(2.5), TypeError, r"shape must be an int or a tuple of ints, got float"),
    (lambda: softmx.recipe_test_input(()), ValueError, r"positive dimensions"),
])
def test_integer_argument_messages(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# Real-number arguments: a str or bool is a TypeError naming the argument; a value past a
# float's or an f32's range is a ValueError (never an OverflowError); a value that does not
# fit the f32 a pad is stored in is not silently made Inf.
@pytest.mark.parametrize("call,exc,message", [
    (lambda: softmx.quantize(X, "nvfp4", global_amax="1.0"), TypeError, r"global_amax must be a float"),
    (lambda: softmx.quantize(X, "nvfp4", global_amax=True), TypeError, r"global_amax must be a float"),
    (lambda: softmx.quantize(X, "nvfp4", global_amax=10**400), ValueError, r"global_amax .* too large for a float"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "nvfp4", encode_scale="1"),
     TypeError, r"encode_scale must be a float"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "nvfp4", encode_scale=1e300),
     ValueError, r"encode_scale must be an f32 value, got 1e\+300"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "nvfp4", encode_scale=10**400),
     ValueError, r"encode_scale .* too large for a float"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "nvfp4", encode_scale=1.0,
                            global_amax=1e300), ValueError, r"global_amax must be an f32 value"),
    (lambda: softmx.MXArray(np.zeros((3, 2), np.uint8), np.zeros((3, 32), np.uint8), "nvfp4", encode_scale=1.0,
                            global_amax="2"), TypeError, r"global_amax must be a float"),
    (lambda: softmx.pad_scales(np.zeros((2, 2), np.float32), (4, 4), pad=1e300), ValueError,
     r"pad must be an f32 value for float32 scales"),
    (lambda: softmx.pad_scales(np.zeros((2, 2), np.float32), (4, 4), pad="x"), TypeError, r"pad must be a float"),
])
def test_real_argument_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_real_arguments_accept_numbers():
    q = softmx.quantize(np.linspace(-3, 3, 32, dtype=np.float32), "nvfp4", global_amax=np.float32(3.0))
    assert q.global_amax == 3.0 and softmx.quantize(np.ones(16, np.float32), "nvfp4", global_amax=3).global_amax == 3.0
    m = softmx.MXArray(q.scales, q.codes, "nvfp4", encode_scale=np.float64(q.encode_scale), global_amax=3)
    np.testing.assert_array_equal(m.dequantize(), q.dequantize())
    pf = softmx.pad_scales(np.ones((1, 1), np.float32), (1, 2), pad=np.float32(2.0))
    assert pf.tolist() == [[1.0, 2.0]]
