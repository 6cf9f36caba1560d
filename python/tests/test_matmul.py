"""softmx.matmul and softmx.dot: against exact rational arithmetic (acc='exact'), numpy's f32
additions in order (acc='fp32-sequential'), the CLI's `softmx dot` and the library's
dot_general per output (every model, partial blocks included)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import softmx
from conftest import ELEMENTS, FORMAT_ID, ROUNDING_ID, SATURATION_ID, hexcodes, reference

# mxdotp (the MXDOTP unit, docs/BLOCKS.md 5.2) takes one element format for both sides, never
# plain int8, and chains instructions of 8/11/16 products: conformance's test_rtl_mxdotp and
# test_dot_addend check it; here the models that take any pair (less GST's below).
MODELS = [m for m in softmx.accumulation_models() if m != "mxdotp"]
# The GST models (MMA-Sim's GST-FDPA: kind::mxf4, kind::mxf4nvf4) take e2m1 x e2m1 blocks of a
# multiple of 16 only; every other model takes every element pair.
GST = {"blackwell-mxf4", "blackwell-nvf4"}
ANY_PAIR_MODELS = [m for m in MODELS if m not in GST]


def round_f32(x: Fraction) -> float:
    """x rounded to f32, to nearest with ties to even, overflow to Inf (independent of softmx)."""
    if x == 0:
        return 0.0
    sign = -1.0 if x < 0 else 1.0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)  # subnormals share the quantum 2^-149
    q = Fraction(2) ** (e - 23)
    n, r = divmod(a, q)
    if r > q / 2 or (r == q / 2 and n % 2 == 1):
        n += 1
    v = n * q
    if v >= Fraction(2) ** 128:
        return sign * float("inf")
    return sign * float(v)


def values(q):
    """Exact element values and scale exponents of an MXArray as Fractions."""
    v = softmx.decode(q.codes, q.element, "f64")
    s = q.scales.astype(np.int64) - 127
    return v, s


def decoded(a, b):
    """A's and B's exact values and scale exponents (values()), then M, K, N and the block size."""
    av, asx = values(a)
    bv, bsx = values(b)
    return av, asx, bv, bsx, av.shape[0], av.shape[1], bv.shape[1], a.block


def exact_matmul(a, b):
    av, asx, bv, bsx, M, K, N, k = decoded(a, b)
    out = np.zeros((M, N), np.float32)
    for i in range(M):
        for j in range(N):
            total = Fraction(0)
            for t in range(K):
                total += Fraction(av[i, t]) * Fraction(bv[t, j]) * Fraction(2) ** int(asx[i, t // k] + bsx[t // k, j])
            out[i, j] = round_f32(total)
    return out


def sequential_matmul(a, b):
    """BLOCKS.md 5's fp32-sequential: per block an f32 sum in order, scaled exactly and rounded,
    then an f32 sum of the blocks in order; numpy's f32 arithmetic (rne)."""
    av, asx, bv, bsx, M, K, N, k = decoded(a, b)
    out = np.zeros((M, N), np.float32)
    for i in range(M):
        for j in range(N):
            acc = np.float32(0)
            for b0 in range(0, K, k):
                s = np.float32(0)
                for t in range(b0, min(K, b0 + k)):
                    s = np.float32(s + np.float32(av[i, t] * bv[t, j]))
                d = np.float32(np.float64(s) * 2.0 ** int(asx[i, b0 // k] + bsx[b0 // k, j]))
                acc = np.float32(acc + d)
            out[i, j] = acc
    return out


def operands(fa, fb, M, K, N, k, seed, spread=4):
    rng = np.random.default_rng(seed)
    xa = (rng.standard_normal((M, K)) * np.exp2(rng.integers(-spread, spread, (M, 1)))).astype(np.float32)
    xb = (rng.standard_normal((K, N)) * np.exp2(rng.integers(-spread, spread, (1, N)))).astype(np.float32)
    return softmx.quantize(xa, fa, block=k, axis=1), softmx.quantize(xb, fb, block=k, axis=0)


@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e5m2", "e2m1"), ("e2m3", "int8"), ("e3m2", "e5m2")])
def test_exact_against_fractions(fa, fb):
    for K, k in ((64, 32), (45, 16)):
        a, b = operands(fa, fb, 5, K, 4, k, K)
        got = softmx.matmul(a, b)
        want = exact_matmul(a, b)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (fa, fb, K)


@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e2m1", "e5m2")])
def test_fp32_sequential_against_numpy(fa, fb):
    a, b = operands(fa, fb, 4, 70, 3, 32, 3, spread=20)
    got = softmx.matmul(a, b, acc="fp32-sequential")
    want = sequential_matmul(a, b)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_every_model_against_the_cli(cli):
    """Every accumulation model and element pair, 6 x 5 outputs of K = 96: `softmx dot` on the
    same block pairs."""
    cases = 0
    for model in MODELS:
        for fa, fb in (("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e2m1", "e2m1"), ("int8", "e3m2")):
            if model in GST and (fa, fb) != ("e2m1", "e2m1"):
                continue
            a, b = operands(fa, fb, 6, 96, 5, 32, 13, spread=8)
            got, fl = softmx.matmul(a, b, acc=model, flags=True)
            nb = 3
            lines = []
            for i in range(6):
                for j in range(5):
                    f = []
                    for blk in range(nb):
                        f += hexcodes([a.scales[i, blk]], "e8m0") + hexcodes(a.codes[i, 32 * blk:32 * blk + 32], fa)
                        f += hexcodes([b.scales[blk, j]], "e8m0") + hexcodes(b.codes[32 * blk:32 * blk + 32, j], fb)
                    lines.append(" ".join(f))
            out = cli(["dot", "--a", fa, "--b", fb, "--blocks", str(nb), "--acc", model], "\n".join(lines) + "\n")
            rows = [r.split() for r in out.splitlines()]
            assert [int(r[0], 16) for r in rows] == [int(v) for v in got.view(np.uint32).reshape(-1)], (model, fa, fb)
            assert [int(r[1], 16) for r in rows] == [int(v) for v in fl.reshape(-1)], (model, fa, fb)
            cases += got.size
    print(f"{cases} outputs, 0 mismatches")


@pytest.mark.parametrize("model", ANY_PAIR_MODELS)
def test_partial_blocks_and_options_against_the_library(model, ref):
    """K not a multiple of the block size, rounding modes and saturation, every model: the
    library's dot_general per output, with the blocks laid out by the test module."""
    for K, k in ((50, 16), (33, 32), (7, 3)):
        for rnd, sat in (("rne", None), ("rz", "finite"), ("ru", "none")):
            a, b = operands("e4m3", "e2m1", 3, K, 4, k, K + k, spread=30)
            got, fl = softmx.matmul(a, b, acc=model, round=rnd, sat=sat, flags=True)
            bt = np.ascontiguousarray(b.codes.T)
            bst = np.ascontiguousarray(b.scales.T)
            want, wfl = ref.dot_rows(FORMAT_ID["e4m3"], a.scales.reshape(-1), a.codes.reshape(-1), FORMAT_ID["e2m1"],
                                     bst.reshape(-1), bt.reshape(-1), 3, 4, K, k, model, ROUNDING_ID[rnd],
                                     SATURATION_ID[sat or "none"])
            assert np.array_equal(got.view(np.uint32).reshape(-1), want), (model, K, k, rnd, sat)
            assert np.array_equal(fl.reshape(-1), wfl)


def test_threads_do_not_change_matmul():
    a, b = operands("e4m3", "e4m3", 37, 256, 29, 32, 5)
    base = softmx.matmul(a, b, threads=1)
    for t in (2, 3, 7):
        assert np.array_equal(softmx.matmul(a, b, threads=t).view(np.uint32), base.view(np.uint32))


def test_vectors_and_dot():
    a, b = operands("e4m3", "e4m3", 3, 64, 2, 32, 6)
    c = softmx.matmul(a, b)
    # Vector x matrix, matrix x vector and vector . vector take numpy.matmul's shapes.
    rng = np.random.default_rng(2)
    v = softmx.quantize(rng.standard_normal(64).astype(np.float32), "e4m3", axis=0)
    assert softmx.matmul(v, b).shape == (2,)
    assert softmx.matmul(a, v).shape == (3,)
    assert softmx.matmul(v, v).shape == ()
    mv = softmx.matmul(a, v)
    vv = softmx.dot(v, v)
    assert vv.shape == () and vv == softmx.matmul(v, v)
    # dot along the last axis of two (3, 64) arrays = the diagonal of A x A^T.
    a2 = softmx.quantize(a.dequantize(), "e4m3", axis=1)
    d = softmx.dot(a2, a2)
    at = softmx.quantize(np.ascontiguousarray(a.dequantize().T), "e4m3", axis=0)
    full = softmx.matmul(a2, at)
    assert np.array_equal(d, np.diag(full))
    # dot along axis 0 of (64, 2) arrays = matmul of the transposes.
    d0 = softmx.dot(b, b)
    bt = softmx.quantize(np.ascontiguousarray(b.dequantize().T), "e4m3", axis=1)
    assert np.array_equal(d0, np.diag(softmx.matmul(bt, b)))
    assert mv.dtype == np.float32 and c.dtype == np.float32


def test_specials_follow_the_library(ref):
    """NaN scales, Inf elements (e5m2), overflow to Inf and cancellation to zero."""
    codes_a = np.zeros((2, 32), np.uint8)
    codes_b = np.zeros((32, 2), np.uint8)
    codes_a[0, 0] = 0x7C  # e5m2 +Inf
    codes_a[1, :] = 0x7B  # 57344
    codes_b[:, :] = 0x7B
    codes_b[0, 0] = 0x00  # 0: Inf * 0 = NaN in output (0, 0)
    a = softmx.MXArray(np.array([[127], [254]], np.uint8), codes_a, "e5m2", axis=1)
    b = softmx.MXArray(np.array([[127, 255]], np.uint8), codes_b, "e5m2", axis=0)
    for model in ANY_PAIR_MODELS:
        got, fl = softmx.matmul(a, b, acc=model, flags=True)
        want, wfl = ref.dot_rows(FORMAT_ID["e5m2"], a.scales.reshape(-1), codes_a.reshape(-1), FORMAT_ID["e5m2"],
                                 np.ascontiguousarray(b.scales.T).reshape(-1), np.ascontiguousarray(codes_b.T).reshape(-1),
                                 2, 2, 32, 32, model, 0, 1)
        assert np.array_equal(got.view(np.uint32).reshape(-1), want), model
        assert np.array_equal(fl.reshape(-1), wfl)
    got = softmx.matmul(a, b)
    assert np.isnan(got[0, 0]) and np.isinf(got[1, 0]) and np.isnan(got[:, 1]).all()


# ---- matmul through the library's GEMM against dot_general per output ---------------------------

# (M, K, N, block): partial tiles of the vector kernels, K not a multiple of the block, M = 1,
# N = 1, both 1, and one block of one element.
SHAPES = [(9, 100, 17, 32), (1, 50, 7, 16), (6, 33, 1, 32), (1, 7, 1, 3), (3, 1, 2, 1)]


def reference_matmul(ref, a, b, model, rnd="rne", sat=None):
    """The library's reference path: dot_general per output, B's columns laid out as rows here."""
    (M, K), N = a.codes.shape, b.codes.shape[1]
    want, wfl = ref.dot_rows(FORMAT_ID[a.element], a.scales.reshape(-1), a.codes.reshape(-1), FORMAT_ID[b.element],
                             np.ascontiguousarray(b.scales.T).reshape(-1), np.ascontiguousarray(b.codes.T).reshape(-1),
                             M, N, K, a.block, model, ROUNDING_ID[rnd], SATURATION_ID[sat or "none"])
    return want.reshape(M, N), wfl.reshape(M, N)


def adversarial(q, rows, seed):
    """q with scales at f32's edges and specials planted: a NaN scale, scales that overflow f32
    in the product, scales that make subnormal products, and the format's largest and smallest
    magnitudes, each in its own vector (`rows`: vectors along axis 0 (A) or 1 (B))."""
    rng = np.random.default_rng(seed)
    s, c = q.scales.copy(), q.codes.copy()
    sv = s if rows else s.T
    cv = c if rows else c.T
    n = sv.shape[0]
    sv[rng.integers(n), rng.integers(sv.shape[1])] = 0xFF  # NaN scale
    sv[rng.integers(n), :] = 250                           # X = 2^123: overflow with a large partner
    sv[rng.integers(n), :] = 20                            # X = 2^-107: subnormal or zero products
    top = softmx.encode(np.float32(1e30), q.element, sat="finite")  # the largest finite code
    cv[rng.integers(n), rng.integers(cv.shape[1], size=min(4, cv.shape[1]))] = top
    return softmx.MXArray(s, c, q.element, axis=1 if rows else 0, block=q.block)


def test_matmul_every_model_and_pair_equals_the_reference(ref):
    """Every accumulation model x every element format pair x SHAPES, quantized normal data
    (scale spread 2^+-12), and its adversarial form under rne/sat unset, rz/finite and rd/none:
    softmx.matmul (the library's GEMM) == dot_general per output, codes and flags. A pair the model refuses raises ValueError in both."""
    outputs = refused = 0
    for si, (M, K, N, k) in enumerate(SHAPES):
        for fa in ELEMENTS:
            for fb in ELEMENTS:
                a, b = operands(fa, fb, M, K, N, k, 100 * si + 7 * ELEMENTS.index(fa) + ELEMENTS.index(fb), spread=12)
                snap = [x.copy() for x in (a.codes, a.scales, b.codes, b.scales)]
                cases = [(a, b, "rne", None)]
                if M >= 3 and N >= 3:  # the range edges under each saturation and a directed rounding
                    x, y = adversarial(a, True, si), adversarial(b, False, si + 1)
                    cases += [(x, y, "rne", None), (x, y, "rz", "finite"), (x, y, "rd", "none")]
                for x, y, rnd, sat in cases:
                    for model in MODELS:
                        try:
                            want, wfl = reference_matmul(ref, x, y, model, rnd, sat)
                        except ValueError:
                            with pytest.raises(ValueError):
                                softmx.matmul(x, y, acc=model, round=rnd, sat=sat)
                            refused += 1
                            continue
                        got, fl = softmx.matmul(x, y, acc=model, round=rnd, sat=sat, flags=True)
                        assert got.shape == (M, N) and got.dtype == np.float32 and fl.dtype == np.uint8
                        assert np.array_equal(got.view(np.uint32), want), (model, fa, fb, M, K, N, k, rnd, sat)
                        assert np.array_equal(fl, wfl), (model, fa, fb, M, K, N, k, rnd, sat)
                        outputs += got.size
                assert all(np.array_equal(s, t) for s, t in zip(snap, (a.codes, a.scales, b.codes, b.scales)))
    print(f"{outputs} outputs, 0 mismatches; {refused} (model, pair) refused by both")
    assert outputs > 0


def test_gst_models_on_their_operands(ref):
    """The GST models (no kernel: dot_general per output inside the GEMM) on e2m1 x e2m1 with
    blocks of 16 and 32 (K a multiple of the block: they take blocks of one size)."""
    cases = 0
    for model in sorted(GST & set(MODELS)):
        for M, K, N, k in ((5, 64, 4, 32), (1, 48, 3, 16), (4, 40, 1, 16)):
            a, b = operands("e2m1", "e2m1", M, K, N, k, K + M, spread=10)
            try:
                want, wfl = reference_matmul(ref, a, b, model)
            except ValueError:
                with pytest.raises(ValueError):
                    softmx.matmul(a, b, acc=model)
                continue
            got, fl = softmx.matmul(a, b, acc=model, flags=True)
            assert np.array_equal(got.view(np.uint32), want) and np.array_equal(fl, wfl), (model, M, K, N, k)
            cases += 1
    assert cases >= 2 * len(GST & set(MODELS))


def test_matmul_empty_outputs():
    a = softmx.MXArray(np.zeros((0, 2), np.uint8), np.zeros((0, 40), np.uint8), "e4m3", axis=1)
    b = softmx.MXArray(np.zeros((2, 3), np.uint8), np.zeros((40, 3), np.uint8), "e4m3", axis=0)
    c, fl = softmx.matmul(a, b, flags=True)
    assert c.shape == (0, 3) and fl.shape == (0, 3) and c.dtype == np.float32


def test_dot_every_axis_equals_the_reference(ref):
    """softmx.dot (the library's dot_pairs) along the last, first and a middle axis of 3-d
    arrays == dot_general per line, under every model that takes the pair."""
    rng = np.random.default_rng(11)
    shape = (3, 37, 4)
    for axis in (0, 1, 2):
        xa = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(np.float32)
        xb = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(np.float32)
        a = softmx.quantize(xa, "e4m3", block=16, axis=axis)
        b = softmx.quantize(xb, "e5m2", block=16, axis=axis)
        # Each line as a row: move the axis last; the scales the same way.
        la = np.ascontiguousarray(np.moveaxis(a.codes, axis, -1)).reshape(-1, shape[axis])
        lb = np.ascontiguousarray(np.moveaxis(b.codes, axis, -1)).reshape(-1, shape[axis])
        sa = np.ascontiguousarray(np.moveaxis(a.scales, axis, -1)).reshape(la.shape[0], -1)
        sb = np.ascontiguousarray(np.moveaxis(b.scales, axis, -1)).reshape(lb.shape[0], -1)
        oshape = shape[:axis] + shape[axis + 1:]
        for model in ANY_PAIR_MODELS:
            got, fl = softmx.dot(a, b, acc=model, flags=True)
            assert got.shape == oshape
            for line in range(la.shape[0]):
                want, wfl = ref.dot_rows(FORMAT_ID["e4m3"], sa[line], la[line], FORMAT_ID["e5m2"], sb[line], lb[line],
                                         1, 1, shape[axis], 16, model, 0, 1)
                assert got.view(np.uint32).reshape(-1)[line] == want[0], (axis, model, line)
                assert fl.reshape(-1)[line] == wfl[0], (axis, model, line)


@pytest.mark.parametrize("call,exc,message", [
    (lambda a, b: softmx.matmul(a, b.dequantize()), TypeError, r"b must be an MXArray"),
    (lambda a, b: softmx.matmul(a, b, acc=3), TypeError, r"acc"),
    (lambda a, b: softmx.matmul(a, b, acc="fp16-sequential"), ValueError, r"unknown accumulation model 'fp16-sequential'"),
    (lambda a, b: softmx.matmul(a, b, round="rs"), ValueError, r"round='rs' is not available"),
    (lambda a, b: softmx.matmul(a, b, round="nearest"), ValueError, r"round"),
    (lambda a, b: softmx.matmul(a, b, threads=0), ValueError, r"threads"),
    (lambda a, b: softmx.matmul(a, softmx.quantize(np.ones((40, 3), np.float32), "e4m3", axis=0)), ValueError,
     r"a is \(4, 64\) and b is \(40, 3\): a's columns must match b's rows"),
    (lambda a, b: softmx.matmul(a, softmx.quantize(np.ones((64, 3), np.float32), "e4m3", axis=0, block=16)),
     ValueError, r"same block size, got 32 and 16"),
    (lambda a, b: softmx._softmx.matmul(a.scales[:, :1].copy(), a.codes, "e4m3", b.scales, b.codes, "e4m3", 32,
                                        "exact", "rne", None, "after", False, 0), ValueError,
     r"the scales must be \(M, ceil\(K / block\)\) = \(4, 2\)"),
    (lambda a, b: softmx._softmx.matmul(a.scales, np.full((4, 64), 0xFF, np.uint8), "e2m1", b.scales, b.codes,
                                        "e4m3", 32, "exact", "rne", None, "after", False, 0), ValueError,
     r"out of range for e2m1"),
])
def test_matmul_errors(call, exc, message):
    rng = np.random.default_rng(3)
    a = softmx.quantize(rng.standard_normal((4, 64)).astype(np.float32), "e4m3", axis=1)
    b = softmx.quantize(rng.standard_normal((64, 3)).astype(np.float32), "e4m3", axis=0)
    with pytest.raises(exc, match=message):
        call(a, b)


@settings(max_examples=200)
@given(fa=st.sampled_from(ELEMENTS), fb=st.sampled_from(ELEMENTS), model=st.sampled_from(ANY_PAIR_MODELS),
       M=st.integers(1, 12), K=st.integers(1, 80), N=st.integers(1, 12), k=st.integers(1, 40),
       rnd=st.sampled_from([r for r in ROUNDING_ID if r != "rs"]), sat=st.sampled_from([None, "finite", "none"]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_matmul_random_codes_property(ref, fa, fb, model, M, K, N, k, rnd, sat, seed):
    """Random codes (any code of the format, NaN and Inf included, 1 in 100; else finite codes)
    and random scales (mostly near 2^0, else near f32's top or bottom, 1 in 50 NaN), any shape
    and block size, rounding and saturation: softmx.matmul == dot_general per output."""
    rng = np.random.default_rng(seed)
    nb = (K + k - 1) // k

    def codes(fmt, shape):
        every = np.arange(1 << softmx.format_info(fmt).width, dtype=np.uint8)
        finite = every[np.isfinite(softmx.decode(every, fmt, "f64"))]
        return np.where(rng.random(shape) < 0.01, rng.choice(every, shape), rng.choice(finite, shape)).astype(np.uint8)

    def scales(shape):  # near 1, near f32's top (products overflow), near its bottom, or NaN
        pick = rng.random(shape)
        s = np.where(pick < 0.7, rng.integers(110, 145, shape),
                     np.where(pick < 0.85, rng.integers(190, 255, shape), rng.integers(0, 60, shape)))
        return np.where(rng.random(shape) < 0.02, 255, s).astype(np.uint8)

    a = softmx.MXArray(scales((M, nb)), codes(fa, (M, K)), fa, axis=1, block=k)
    b = softmx.MXArray(scales((nb, N)), codes(fb, (K, N)), fb, axis=0, block=k)
    want, wfl = reference_matmul(ref, a, b, model, rnd, sat)
    got, fl = softmx.matmul(a, b, acc=model, round=rnd, sat=sat, flags=True)
    assert np.array_equal(got.view(np.uint32), want) and np.array_equal(fl, wfl)


# Runtime element formats (issue 14; docs/BLOCKS.md 1.1): the same GEMM kernels, the exact model
# against Fractions and fp32-sequential against numpy's f32 additions; tensor-core models refuse.
RUNTIME_PAIRS = [("e1m2", "e1m2"), ("e2m2", "e1m2"), ("e3m4", "e4m3fnuz"), ("int4", "e2m2"), ("e1m1", "e5m2fnuz"),
                 ("e4m3b11fnuz", "e4m3")]


@pytest.mark.parametrize("fa,fb", RUNTIME_PAIRS)
def test_runtime_elements_exact_against_fractions(fa, fb):
    for K, k in ((64, 32), (45, 16)):
        a, b = operands(fa, fb, 4, K, 3, k, K, spread=8)
        assert a.element == fa and b.element == fb
        got, fl = softmx.matmul(a, b, flags=True)
        want = exact_matmul(a, b)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (fa, fb, K)
        # The dot of row 0 of A and column 0 of B, as softmx.dot along the blocked axis.
        row = softmx.quantize(a.dequantize()[0], fa, block=k)
        col = softmx.quantize(b.dequantize()[:, 0], fb, block=k)
        assert np.array_equal(softmx.dot(row, col).view(np.uint32), got[0, 0].view(np.uint32)), (fa, fb, K)


@pytest.mark.parametrize("fa,fb", RUNTIME_PAIRS)
def test_runtime_elements_fp32_sequential_against_numpy(fa, fb):
    a, b = operands(fa, fb, 4, 70, 3, 32, 3, spread=20)
    got = softmx.matmul(a, b, acc="fp32-sequential")
    want = sequential_matmul(a, b)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (fa, fb)


def test_runtime_elements_refused_by_tensor_core_models():
    a, b = operands("e1m2", "e4m3", 2, 32, 2, 32, 1)
    for model in ("hopper-fp8-mma", "blackwell-mxf4"):
        with pytest.raises(ValueError, match=r"a runtime element \(e1m2\) takes exact or fp32-sequential"):
            softmx.matmul(a, b, acc=model)
    with pytest.raises(ValueError, match=r"a runtime element \(e1m2\)"):
        softmx.dot(a, softmx.quantize(a.dequantize(), "e1m2", axis=1), acc="hopper-fp8-wgmma")
    with pytest.raises(ValueError, match=r"a's format 'ue4m3'"):
        softmx._softmx.matmul(a.scales, a.codes, "ue4m3", b.scales, b.codes, "e4m3", 32, "exact", "rne", None, "after",
                              False, 0)


@settings(max_examples=40, deadline=None)
@given(ea=st.integers(1, 5), ma=st.integers(0, 3), eb=st.integers(1, 5), mb=st.integers(0, 3),
       K=st.integers(1, 48), k=st.integers(1, 20), seed=st.integers(0, 2 ** 32 - 1))
def test_runtime_elements_property_exact_against_fractions(ea, ma, eb, mb, K, k, seed):
    """Randomly drawn ExMy element descriptors (at most 8 bits, no specials: the OCP convention
    below 8 bits), the exact model against Fractions."""
    fa, fb = f"e{ea}m{min(ma, 7 - ea)}", f"e{eb}m{min(mb, 7 - eb)}"  # 1 + e + m <= 8 bits
    a, b = operands(fa, fb, 3, K, 2, k, seed, spread=6)
    got = softmx.matmul(a, b)
    want = exact_matmul(a, b)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (fa, fb, K, k)
