"""softmx.matmul and softmx.dot: against exact rational arithmetic (acc='exact'), numpy's f32
additions in order (acc='fp32-sequential'), the CLI's `softmx dot` and the library's
dot_general per output (every model, partial blocks included)."""

from fractions import Fraction

import numpy as np
import pytest

import softmx
from conftest import ELEMENTS, FORMAT_ID, ROUNDING_ID, SATURATION_ID, hexcodes, reference

MODELS = softmx.accumulation_models()
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


def exact_matmul(a, b):
    av, asx = values(a)
    bv, bsx = values(b)
    M, K = av.shape
    N = bv.shape[1]
    k = a.block
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
    av, asx = values(a)
    bv, bsx = values(b)
    M, K = av.shape
    N = bv.shape[1]
    k = a.block
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
