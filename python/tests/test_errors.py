"""Bad input is a Python exception with a message that says what was expected, never a crash;
inputs are never modified, and read-only and non-contiguous arrays are accepted."""

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
    (lambda: softmx.convert(X, "e4m3", tininess="early"), ValueError, r"expected 'after' or 'before'"),
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
    (lambda: softmx.convert(X, 5), TypeError, r"to must be a str"),
    (lambda: softmx.convert(X, "e4m3", threads=0), ValueError, r"threads must be None"),
    (lambda: softmx.decode(np.arange(4), "e4m3", to="e5m2"), ValueError, r"dtype must be f64, f32, f16 or bf16"),
    (lambda: softmx.quantize(X, "f16"), ValueError, r"to must be an MX element format"),
    (lambda: softmx.quantize(X, "e4m3", axis=2), ValueError, r"axis 2 is out of range for a 2-d array"),
    (lambda: softmx.quantize(np.float32(1), "e4m3"), ValueError, r"at least one dimension"),
    (lambda: softmx.quantize(X, "e4m3", block=0), ValueError, r"block must be at least 1"),
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
    codes = softmx.convert(x, "e4m3")
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)
    yield "convert", x, lambda v: softmx.convert(v, "e2m1", flags=True)
    yield "convert rs", x, lambda v: softmx.convert(v, "e4m3", round="rs", random=np.arange(512, dtype=np.uint64)
                                                    .reshape(8, 64))
    yield "convert codes", codes, lambda v: softmx.convert(v, "f16", src="e4m3")
    yield "decode", codes, lambda v: softmx.decode(v, "e4m3")
    yield "quantize", x, lambda v: softmx.quantize(v, "e4m3").codes
    yield "quantize axis 0", x, lambda v: softmx.quantize(v, "e2m1", axis=0, block=3).codes
    yield "quantize bf16", bf, lambda v: softmx.quantize(v, "e3m2", src="bf16").codes
    yield "nvfp4", np.nan_to_num(x), lambda v: softmx.quantize(v, "nvfp4").codes
    yield "fake_quantize", x, lambda v: softmx.fake_quantize(v, "int8")
    yield "error_stats", x, lambda v: softmx.error_stats(v, softmx.quantize(x, "e4m3")).mse
    yield "error_stats arrays", x, lambda v: softmx.error_stats(x, v, format="e4m3").mse
    yield "MXArray", codes, lambda v: softmx.MXArray(np.full((8, 2), 127, np.uint8), v, "e4m3").dequantize()
    yield "pack", softmx.convert(x, "e2m1"), lambda v: softmx.pack(v, "e2m1")


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
    assert list(softmx.convert(buf, "e4m3")) == [0x38, 0x7E, 0x7E]
    assert list(softmx.convert(memoryview(buf), "e4m3")) == [0x38, 0x7E, 0x7E]
    assert list(softmx.convert([1.0, 2.0], "e4m3")) == [0x38, 0x40]  # a list is float64
    assert softmx.convert(np.float32(1.0), "e4m3").shape == ()
    assert softmx.convert(np.zeros((0, 3), np.float32), "e4m3").shape == (0, 3)
    assert softmx.convert(np.array([0x3F80], np.int16), "e4m3", src="bf16")[0] == 0x38  # a signed view of bits
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
