"""The numpy-like surface (issue 29 part 5): values in, values out (convert; encode for codes),
numpy dtypes wherever a format is named, out=, MXArray's numpy protocol (__array__, dtype,
len, slices along the unblocked axes, @), flags_words on arrays, and results that say when
they hold only the first of their entries.

Every value here comes from the library; the tests compare the new spellings with the calls
they stand for (encode + decode, dequantize, matmul, flags_words of one int) and with numpy's
own IEEE conversions.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import softmx

X = np.array([1.0, 448.0, 464.0, 1e6, -0.3, 0.0, -np.inf, np.nan, 1e-9], dtype=np.float32)
# The destinations without a numpy dtype of their own: every MX element, e8m0, bf16, runtime specs.
VALUE_FORMATS = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0", "bf16", "e3m4", "e4m3fnuz", "int4",
                 "e1m2"]
F32S = hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=9),
                  elements=st.floats(width=32, allow_nan=True, allow_infinity=True))


def same(a, b):
    """Equal arrays: dtype, shape and every value (NaN where NaN)."""
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


# ---- convert: values in, values out ----

@pytest.mark.parametrize("to,dt", [("f16", np.float16), (np.float16, np.float16), (np.dtype("float16"), np.float16),
                                   ("f32", np.float32), (np.float32, np.float32), ("f64", np.float64),
                                   (np.float64, np.float64), (float, np.float64), ("float16", np.float16)])
def test_convert_to_numpy_floats_gives_their_values(to, dt):
    got = softmx.convert(X, to)
    assert got.dtype == dt and got.shape == X.shape
    name = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}[np.dtype(dt)]
    same(got, softmx.encode(X, name).view(dt))


@given(F32S)
@settings(max_examples=200, deadline=None)
def test_convert_f16_is_numpys_astype(x):
    """f32 -> f16 under the default (ocp: rne, overflow to Inf) is IEEE's, as numpy's astype."""
    got = softmx.convert(x, np.float16)
    with np.errstate(over="ignore"):
        same(got, x.astype(np.float16))
    assert got.shape == x.shape


@given(F32S, st.sampled_from(VALUE_FORMATS))
@settings(max_examples=150, deadline=None)
def test_convert_values_are_the_decoded_codes(x, to):
    """convert(x, fmt) for a format without a numpy dtype: the codes of encode, decoded exactly
    (float32 holds every value of these formats), flags as encode's."""
    v, fl = softmx.convert(x, to, flags=True)
    codes, fl2 = softmx.encode(x, to, flags=True)
    assert v.dtype == np.float32
    same(v, softmx.decode(codes, to, np.float64).astype(np.float32))
    same(softmx.decode(codes, to, np.float64), v.astype(np.float64))  # exact: nothing was rounded
    same(fl, fl2)


def test_convert_examples():
    x = np.array([1.0, 448.0, 464.0, 1e6, -0.3], dtype=np.float32)
    assert softmx.convert(x, "e4m3").tolist() == [1.0, 448.0, 448.0, 448.0, -0.3125]
    assert softmx.convert(x, "e4m3").dtype == np.float32
    assert softmx.encode(x, "e4m3").tolist() == [56, 126, 126, 126, 170]
    assert softmx.convert(x, "f16").tolist() == [1.0, 448.0, 464.0, np.inf, np.float16(-0.3)]
    b = softmx.convert(x, "bf16")  # numpy has no bfloat16: float32 holding the bf16 values
    assert b.dtype == np.float32 and b.tolist() == [1.0, 448.0, 464.0, 999424.0, -0.30078125]
    same(b.view(np.uint32) >> np.uint32(16), softmx.encode(x, "bf16").astype(np.uint32))
    assert softmx.convert(np.float32(3.0), "e2m1").shape == ()
    v = softmx.convert(x, "e8m0")
    same(v, np.array([1.0, 512.0, 512.0, 2.0**20, np.nan], np.float32))  # unsigned: -0.3 is NaN


def test_convert_takes_codes_with_src():
    codes = np.arange(256, dtype=np.uint8)
    same(softmx.convert(codes, np.float32, src="e4m3"), softmx.decode(codes, "e4m3"))
    same(softmx.convert(codes, "f32", src="e4m3"), softmx.decode(codes, "e4m3"))
    # bf16 bits in, e4m3 values out
    bf = softmx.encode(X, "bf16")
    same(softmx.convert(bf, "e4m3", src="bf16"), softmx.convert(softmx.convert(X, "bf16"), "e4m3"))
    # a numpy dtype as src
    with np.errstate(over="ignore"):
        h = X.astype(np.float16)
    same(softmx.convert(h.view(np.uint16), "e5m2", src=np.float16), softmx.convert(h, "e5m2"))


def test_value_dtype_is_float64_beyond_float32():
    """A runtime spec whose values leave float32's range is returned as float64, exactly."""
    from softmx._arrays import value_dtype
    for fmt in ["e4m3", "e5m2", "e2m1", "int8", "e8m0", "bf16", "e3m4", "e8m7"]:
        assert value_dtype(fmt) == np.float32, fmt
    assert value_dtype("f16") == np.float16 and value_dtype("f64") == np.float64
    wide = "e8m3:bias=100"
    assert softmx.format_info(wide).max_finite > np.finfo(np.float32).max
    assert value_dtype(wide) == np.float64
    x = np.array([1e30, 2.0**150, -3.0], np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = softmx.convert(x, wide)
        codes = softmx.encode(x, wide)
        want = softmx.decode(codes, wide, np.float64)
    assert v.dtype == np.float64
    same(v, want)


def test_numpy_dtypes_name_formats_everywhere():
    assert softmx.format_info(np.float16).name == "f16"
    assert softmx.format_info(np.dtype(np.float32)).name == "f32"
    same(softmx.encode(X, np.float16), softmx.encode(X, "f16"))
    same(softmx.decode(softmx.encode(X, "e4m3"), "e4m3", np.float16), softmx.convert(X, "e4m3")
         .astype(np.float16))
    q = softmx.quantize(np.ones((2, 32), np.float32), "e4m3", scale_format=np.float32)
    assert q.scale_format == "f32"
    assert str(softmx.explain("0.1", np.float16)) == str(softmx.explain("0.1", "f16"))
    assert softmx.gen("convert", src=np.float16, to="e2m1").text == softmx.gen("convert", src="f16", to="e2m1").text
    assert softmx.sweep("e4m3", np.float16).text == softmx.sweep("e4m3", "f16").text
    pk = softmx.pack(softmx.encode(X[:8], "e2m1"), "e2m1")
    same(softmx.unpack(pk, "e2m1", 8), softmx.encode(X[:8], "e2m1"))


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: softmx.convert(X, np.int32), TypeError, r"to: numpy dtype int32 is not a number format softmx knows"),
    (lambda: softmx.convert(X, object()), TypeError, r"to must be a format name .* got object"),
    (lambda: softmx.convert(X, np.complex64), TypeError, r"numpy dtype complex64"),
    (lambda: softmx.encode(X, 3.5), TypeError, r"to must be a format name .* got float"),
    (lambda: softmx.format_info(3), TypeError, r"format must be a format name"),
    (lambda: softmx.convert(np.arange(3, dtype=np.uint8), "f32", src=np.int8), TypeError, r"src: numpy dtype int8"),
    (lambda: softmx.convert(X, "e9m9"), ValueError, r"bad format spec 'e9m9' for to"),
])
def test_bad_formats(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_inputs_are_never_modified():
    x = X.copy()
    for to in ["f16", np.float32, "e4m3", "bf16", "e8m0"]:
        softmx.convert(x, to)
    same(x, X)


# ---- out= ----

def test_out_is_written_in_place_and_returned():
    o = np.empty(X.shape, np.float16)
    r = softmx.convert(X, np.float16, out=o)
    assert r is o
    same(o, softmx.convert(X, np.float16))
    o = np.empty(X.shape, np.float32)
    r, fl = softmx.convert(X, "e4m3", flags=True, out=o)
    assert r is o
    same(o, softmx.convert(X, "e4m3"))
    same(fl, softmx.encode(X, "e4m3", flags=True)[1])
    c = np.empty(X.shape, np.uint8)
    assert softmx.encode(X, "e4m3", out=c) is c
    same(c, softmx.encode(X, "e4m3"))
    d = np.empty(X.shape, np.float64)
    assert softmx.decode(c, "e4m3", np.float64, out=d) is d
    same(d, softmx.decode(c, "e4m3", np.float64))
    b = np.empty(X.shape, np.uint16)
    assert softmx.decode(c, "e4m3", "bf16", out=b) is b
    same(b, softmx.decode(c, "e4m3", "bf16"))
    # 2-d, and an out that is x itself (the same float32 memory): the result is as without out
    x2 = X.reshape(3, 3).copy()
    want = softmx.convert(x2, "e2m1")
    assert softmx.convert(x2, "e2m1", out=x2) is x2
    same(x2, want)
    with np.errstate(over="ignore"):
        h = X.astype(np.float16)
    softmx.convert(h, np.float16, out=h)
    same(h, softmx.convert(X, np.float16))


def test_dequantize_out():
    x = np.random.default_rng(1).standard_normal((4, 64)).astype(np.float32)
    for q in [softmx.quantize(x, "e4m3"), softmx.quantize(x, "nvfp4"), softmx.quantize(x, "e2m1", scale_format="bf16")]:
        for dt in [np.float32, np.float64, np.float16]:
            o = np.full(x.shape, 7, dt)
            assert q.dequantize(dt, out=o) is o
            same(o, q.dequantize(dt))
        o = np.empty(x.shape, np.float32)
        assert softmx.dequantize(q, out=o) is o
        same(o, q.dequantize())
        r, fl = q.dequantize(np.float16, flags=True, out=np.empty(x.shape, np.float16))
        assert fl == q.dequantize(np.float16, flags=True)[1]


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: np.empty(9, np.float64), TypeError, r"out has dtype float64, but the result is float16"),
    (lambda: np.empty(8, np.float16), ValueError, r"out has shape \(8,\), but the result has shape \(9,\)"),
    (lambda: np.empty(18, np.float16)[::2], ValueError, r"out must be C-contiguous"),
    (lambda: [0.0] * 9, TypeError, r"out must be a numpy.ndarray .* got list"),
])
def test_out_checks(make, exc, msg):
    with pytest.raises(exc, match=msg):
        softmx.convert(X, np.float16, out=make())


def test_out_checks_read_only_and_other_calls():
    ro = np.empty(9, np.float16)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        softmx.convert(X, np.float16, out=ro)
    with pytest.raises(TypeError, match=r"out has dtype float16, but the result is float32"):
        softmx.convert(X, "e4m3", out=np.empty(9, np.float16))
    with pytest.raises(TypeError, match=r"out has dtype float32, but the result is uint8"):
        softmx.encode(X, "e4m3", out=np.empty(9, np.float32))
    q = softmx.quantize(np.ones((2, 32), np.float32), "e4m3")
    with pytest.raises(ValueError, match=r"out has shape \(32, 2\)"):
        q.dequantize(out=np.empty((32, 2), np.float32))
    with pytest.raises(TypeError, match=r"out has dtype float64, but the result is float32"):
        q.dequantize(out=np.empty((2, 32), np.float64))
    with pytest.raises(ValueError, match=r"C-contiguous"):
        q.dequantize(out=np.empty((2, 64), np.float32)[:, ::2])


# ---- MXArray: the numpy protocol ----

def _q(shape=(4, 64), axis=-1, to="e4m3", seed=0, block=32, **kw):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return x, softmx.quantize(x, to, axis=axis, block=block, **kw)


def test_asarray_is_the_dequantized_values():
    x, q = _q()
    a = np.asarray(q)
    assert q.dtype == np.float32 and a.dtype == np.float32 and a.shape == q.shape == (4, 64)
    same(a, q.dequantize())
    assert a.flags.writeable and not np.shares_memory(a, q.codes)
    a[0, 0] = 99  # a new array each time: q is unchanged
    same(np.asarray(q), q.dequantize())
    assert len(q) == 4 and q.ndim == 2 and q.size == 256
    same(np.array(q, dtype=np.float64), q.dequantize(np.float64))
    same(np.asarray(q, dtype=np.float16), q.dequantize(np.float16))
    same(np.asarray(q, dtype=np.complex128), q.dequantize(np.float64).astype(np.complex128))
    with pytest.raises(ValueError, match="cannot be given without making a new array"):
        q.__array__(copy=False)
    same(q.__array__(np.float32, copy=True), q.dequantize())
    # numpy functions take it as its values
    assert np.sum(q, dtype=np.float64) == np.sum(q.dequantize(np.float64))


def test_dtype_is_float64_when_float32_cannot_hold_the_values():
    """448 * 2^127 (e4m3's largest with the largest E8M0 scale) is beyond float32: float64, exact."""
    q = softmx.MXArray(np.array([[254]], np.uint8), np.full((1, 32), 0x7E, np.uint8), "e4m3")
    assert q.dtype == np.float64
    a = np.asarray(q)
    assert a.dtype == np.float64 and a[0, 0] == 448.0 * 2.0**127
    same(a, q.dequantize(np.float64))
    # an NVFP4 array: float32 unless the division by the tensor scale rounds
    _, n = _q(to="nvfp4", block=16)
    assert n.dtype in (np.float32, np.float64)
    same(np.asarray(n), n.dequantize(n.dtype))


SHAPES = st.lists(st.integers(1, 5), min_size=1, max_size=3)


@st.composite
def sliced(draw):
    """An MXArray (random shape, axis, block) and an index of integers and slices along its
    unblocked axes (':' along the blocked one)."""
    shape = draw(SHAPES)
    axis = draw(st.integers(0, len(shape) - 1))
    block = draw(st.integers(1, 4))
    key = []
    for i, n in enumerate(shape):
        if i == axis:
            key.append(slice(None))
        elif draw(st.booleans()):
            key.append(draw(st.integers(-n, n - 1)))
        else:
            key.append(slice(draw(st.none() | st.integers(-n - 1, n + 1)), draw(st.none() | st.integers(-n - 1, n + 1)),
                             draw(st.sampled_from([None, 1, 2, -1, -2]))))
    cut = draw(st.integers(0, len(key)))
    key = tuple(key[:cut])  # trailing axes left out are ':'
    if draw(st.booleans()) and cut < len(shape):
        key = key + (Ellipsis,)
    return shape, axis, block, key, draw(st.sampled_from(["e4m3", "e2m1", "int8", "e3m4"]))


@given(sliced(), st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_slices_of_unblocked_axes_select_values(case, seed):
    shape, axis, block, key, fmt = case
    x = (np.random.default_rng(seed).standard_normal(shape) * 10).astype(np.float32)
    q = softmx.quantize(x, fmt, axis=axis, block=block)
    s = q[key]
    assert isinstance(s, softmx.MXArray)
    want = np.asarray(q)[key]
    same(np.asarray(s), want)
    assert s.shape == want.shape and s.block == block and s.format == q.format and s.flags == q.flags
    # the blocked axis, renumbered past the axes integers removed
    removed = sum(isinstance(k, int) for i, k in enumerate(key[:axis]) if k is not Ellipsis)
    assert s.axis == axis - removed
    assert s.codes.flags.c_contiguous and s.scales.flags.c_contiguous
    same(s.codes, q.codes[key])


def test_whole_block_slices_of_the_blocked_axis():
    x, q = _q(shape=(3, 80))  # blocks 0:32, 32:64, 64:80 (partial)
    for key in [(slice(None), slice(32, 64)), (Ellipsis, slice(32, None)), (1, slice(0, 32)), (slice(None), slice(64, 80)),
                (slice(None), slice(0, 0))]:
        same(np.asarray(q[key]), np.asarray(q)[key])
    xs, qs = _q(shape=(64, 3), axis=0)
    same(np.asarray(qs[32:]), np.asarray(qs)[32:])
    same(np.asarray(qs[:, 1]), np.asarray(qs)[:, 1])
    assert qs[:, 1].axis == 0 and qs[:, 1].ndim == 1


@pytest.mark.parametrize("key,msg", [
    ((slice(None), 3), r"axis 1 is the blocked axis \(blocks of 32 elements share one scale\)"),
    ((0, 5), r"blocked axis"),
    ((slice(None), slice(1, 5)), r"does not select whole blocks of 32"),
    ((slice(None), slice(None, None, 2)), r"does not select whole blocks"),
    ((slice(None), slice(32, 40)), r"does not select whole blocks"),
    (([0, 1],), r"MXArray indices are integers, slices and '...'"),
    ((np.array([True, False, True, True]),), r"MXArray indices are integers"),
    ((None,), r"MXArray indices"),
    ((0, slice(None), 0), r"too many indices"),
    ((Ellipsis, Ellipsis), r"single ellipsis"),
    ((4,), r"index 4 is out of bounds for axis 0 with size 4"),
])
def test_bad_indices(key, msg):
    _, q = _q()
    with pytest.raises(IndexError, match=msg):
        q[key]


def test_nvfp4_and_scale_format_slices():
    x, q = _q(shape=(4, 32), to="nvfp4", block=16)
    s = q[1:3]
    assert s.encode_scale == q.encode_scale and s.format == "nvfp4"
    same(np.asarray(s), np.asarray(q)[1:3])
    x, q = _q(shape=(4, 64), scale_format="ue4m3")
    same(np.asarray(q[2, 32:]), np.asarray(q)[2, 32:])
    assert q[2].scale_format == "ue4m3"


def test_matmul_operator_is_softmx_matmul():
    _, a = _q(shape=(4, 64))
    _, b = _q(shape=(64, 3), axis=0, to="e2m1", seed=1)
    same(a @ b, softmx.matmul(a, b))
    same(a[1] @ b, softmx.matmul(a[1], b))  # a row: a vector
    same(a @ b[:, 0], softmx.matmul(a, b[:, 0]))
    with pytest.raises(TypeError, match=r"MXArray @ takes two MXArrays .* got ndarray"):
        a @ np.ones((64, 3), np.float32)
    with pytest.raises(TypeError, match=r"MXArray @ takes two MXArrays .* got ndarray"):
        np.ones((3, 4), np.float32) @ a
    with pytest.raises(ValueError, match="blocked along its first axis"):
        a @ a


# ---- flags_words on arrays ----

@given(hnp.arrays(st.sampled_from([np.uint8, np.int32, np.uint64]), hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
                  elements=st.integers(0, 255)))
@settings(max_examples=100, deadline=None)
def test_flags_words_of_an_array_is_elementwise(f):
    w = np.asarray(softmx.flags_words(f))  # a 0-d array gives a str, as numpy gives scalars
    assert w.shape == f.shape
    for idx in np.ndindex(f.shape):
        assert w[idx] == softmx.flags_words(int(f[idx]))


def test_flags_words_arrays():
    _, fl = softmx.convert(X, "e4m3", flags=True)
    w = softmx.flags_words(fl)
    assert w.tolist() == [softmx.flags_words(int(v)) for v in fl]
    assert w[3] == "overflow|inexact"
    assert softmx.flags_words([0, 5]).tolist() == ["none", "overflow|inexact"]
    assert softmx.flags_words(np.zeros((0, 2), np.uint8)).shape == (0, 2)
    assert softmx.flags_words(np.uint8(1)) == "inexact"  # a scalar is a str, as before
    with pytest.raises(ValueError, match="flags must be integers from 0 to 255, got 256"):
        softmx.flags_words(np.array([1, 256]))
    with pytest.raises(ValueError, match="got -1"):
        softmx.flags_words([-1])
    with pytest.raises(TypeError, match="dtype float64"):
        softmx.flags_words(np.array([1.0]))
    with pytest.raises(TypeError, match="dtype bool"):
        softmx.flags_words([True])


# ---- results that say they are truncated ----

def test_verify_says_how_many_mismatches_it_holds():
    g = softmx.gen("convert", src="e4m3", to="e2m1")
    lines = g.text.splitlines()
    bad = []
    for line in lines:
        if line and not line.startswith("#") and "=" not in line:  # a case: IN OUT FLAGS
            f = line.split()
            f[1] = format(int(f[1], 16) ^ 1, f"0{len(f[1])}X")  # every result wrong
            line = " ".join(f)
        bad.append(line)
    text = "\n".join(bad) + "\n"
    r = softmx.verify(text=text, progress=False)
    n = r.result_mismatches
    assert n == g.cases == r.mismatch_count and n > 20
    assert len(r.mismatches) == 20 and r.truncated
    assert f"20 of {n} shown; verify(..., max_errors={n}) keeps them all" in repr(r)
    full = softmx.verify(text=text, max_errors=n, progress=False)
    assert len(full.mismatches) == n and not full.truncated and f"all {n}" in repr(full)
    assert full.mismatches[:20] == r.mismatches
    ok = softmx.verify(text=g.text, progress=False)
    assert ok.mismatch_count == 0 and not ok.truncated and "mismatches=[none]" in repr(ok)


def test_verify_run_table_counts_ranges():
    t = softmx.sweep("e4m3", "e2m1", round="rz")
    rne = softmx.sweep("e4m3", "e2m1")
    # a run table of rz results checked under rne (the header's settings overridden)
    r = softmx.verify(text=t.text, round="rne", max_errors=2, progress=False)
    assert r.layout == "runs" and r.mismatch_count == r.ranges > 2
    assert len(r.mismatches) == 2 and r.truncated and f"2 of {r.ranges} shown" in repr(r)
    d = softmx.diff(t, rne, max_ranges=3)
    assert d.ranges > 3 and len(d.differences) == 3 and d.truncated
    assert f"3 of {d.ranges} shown; diff(..., max_ranges={d.ranges}) keeps them all" in repr(d)
    assert not softmx.diff(t, rne, max_ranges=d.ranges).truncated


def test_identify_candidates_say_how_many_disagreements_they_hold():
    g = softmx.gen("convert", src="e4m3", to="e2m1", round="rz")
    r = softmx.identify(text=g.text, max_errors=3, progress=False)
    held = [c for c in r.ranking if c.exact and c.total - c.agree > 3]
    assert held, "some setting disagrees on more than 3 cases"
    for c in held:
        assert c.disagreement_count == c.total - c.agree and len(c.disagreements) == 3 and c.truncated
    assert not r.best.truncated and r.best.disagreement_count == 0


def test_convert_values_feed_error_stats_as_decoded_codes():
    x = np.random.default_rng(3).standard_normal(500).astype(np.float32)
    a = softmx.error_stats(x, softmx.convert(x, "e4m3"), format="e4m3")
    b = softmx.error_stats(x, softmx.decode(softmx.encode(x, "e4m3"), "e4m3"), format="e4m3")
    assert a == b
