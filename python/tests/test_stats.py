"""softmx.error_stats against exact rational arithmetic (Python's fractions) and counts made
with numpy, bit for bit: every statistic is defined to one rounding (or to IEEE operations
numpy performs the same way)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import softmx

ELEMENTS = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8"]


def oracle(x, q, limit=None):
    """The definitions of softmx/stats.hpp, with exact Fractions and float() (correctly
    rounded). `limit`: per-element L_i (None: nothing saturates)."""
    x = np.asarray(x, np.float64).reshape(-1)
    q = np.asarray(q, np.float64).reshape(-1)
    fin = np.isfinite(x) & np.isfinite(q)
    r = dict(count=x.size, compared=int(fin.sum()), input_nan=int(np.isnan(x).sum()), input_inf=int(np.isinf(x).sum()),
             nan=int(np.isnan(q).sum()), inf=int(np.isinf(q).sum()),
             flushed_to_zero=int((fin & (x != 0) & (q == 0)).sum()))
    if limit is None:
        r["saturated"] = 0
    else:
        lim = np.asarray(limit, np.float64).reshape(-1)
        with np.errstate(invalid="ignore"):
            r["saturated"] = int((~np.isnan(x) & ~np.isnan(lim) & (np.abs(x) > lim)).sum())
    xs, qs = x[fin], q[fin]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ae = np.abs(xs - qs)
        rel = np.where(xs == 0, np.where(qs == 0, 0.0, np.inf), ae / np.abs(xs))
    r["max_abs_error"] = float(ae.max()) if ae.size else 0.0
    r["max_rel_error"] = float(rel.max()) if rel.size else 0.0
    n = len(xs)
    if n == 0:
        for k in ("mean_error", "mse", "signal_power", "sqnr_db"):
            r[k] = math.nan
        return r
    e = [Fraction(a) - Fraction(b) for a, b in zip(xs.tolist(), qs.tolist())]
    r["mean_error"] = float(sum(e, Fraction(0)) / n)
    r["mse"] = float(sum((d * d for d in e), Fraction(0)) / n)
    r["signal_power"] = float(sum((Fraction(a) ** 2 for a in xs.tolist()), Fraction(0)) / n)
    ratio = r["signal_power"] / r["mse"] if r["mse"] != 0 else math.inf
    r["sqnr_db"] = math.inf if r["mse"] == 0 else (-math.inf if ratio == 0 else 10 * math.log10(ratio))
    return r


def same(got, want):
    for k, v in want.items():
        g = getattr(got, k)
        if isinstance(v, float):
            assert (math.isnan(g) and math.isnan(v)) or (g == v and math.copysign(1, g) == math.copysign(1, v)), \
                (k, g, v)
        else:
            assert g == v, (k, g, v)


def block_limits(q):
    """L_i: the element format's largest value times the block's scale, per element."""
    info = softmx.format_info(q.element)
    scale = q.scales.astype(np.float64)
    L = np.where(q.scales == 255, np.nan, info.max_finite * np.exp2(scale - 127))
    return np.repeat(L, q.block, axis=q.axis).take(np.arange(q.shape[q.axis]), axis=q.axis)


def data(shape, seed, specials=True):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))).astype(np.float32)
    if specials:
        f = x.reshape(-1)
        f[::17] = 0
        f[3::29] = 1e-30
        f[5::31] = 3e4
        f[7::37] = np.nan
        f[11::41] = np.inf
    return x


@pytest.mark.parametrize("element", ELEMENTS)
def test_mx_stats_against_fractions(element):
    for seed, (shape, axis) in enumerate((((6, 70), 1), ((50, 3), 0), ((200,), 0))):
        x = data(shape, seed)
        for sat in ("finite", "none"):
            q = softmx.quantize(x, element, axis=axis, sat=sat)
            s = softmx.error_stats(x, q)
            deq = q.dequantize(np.float64, sat="none")
            same(s, oracle(x, deq, block_limits(q)))
            assert np.array_equal(s.scale_histogram, np.bincount(q.scales.reshape(-1), minlength=256))


def test_saturation_counts_the_clamped_values():
    x = np.array([1.0, 2.0, 3.0, 500.0] + [0.0] * 28, np.float32)  # floor scale 2^0 for amax 500: 448 max
    q = softmx.quantize(x, "e4m3")
    s = softmx.error_stats(x, q)
    assert q.scales[0] == 127 and s.saturated == 1 and s.max_abs_error == 52.0
    s2 = softmx.error_stats(x, softmx.quantize(x, "e4m3", sat="none"))
    assert s2.saturated == 1 and s2.nan == 1 and s2.compared == 31


def test_plain_arrays_and_format():
    x = data((1000,), 5)
    q = softmx.decode(softmx.encode(x, "e4m3"), "e4m3")
    s = softmx.error_stats(x, q, format="e4m3")
    same(s, oracle(x, q, np.full(x.size, 448.0)))
    assert s.scale_histogram is None and s.scale_counts() == {}
    s2 = softmx.error_stats(x, q)
    assert s2.saturated == 0
    x64 = x.astype(np.float64)
    same(softmx.error_stats(x64, q.astype(np.float16)), oracle(x64, q.astype(np.float16)))


def test_nvfp4_stats():
    x = data((4, 64), 9, specials=False)
    q = softmx.quantize(x, "nvfp4")
    s = softmx.error_stats(x, q)
    deq = q.dequantize(np.float64, sat="none")
    # L per block: 6 * S_dec / S_enc, dequantized from the largest E2M1 code.
    top = softmx.MXArray(q.scales, np.full(q.shape, 7, np.uint8), "nvfp4", encode_scale=q.encode_scale)
    same(s, oracle(x, deq, top.dequantize(np.float64, sat="none")))
    assert s.scale_histogram.sum() == q.scales.size


def test_threads_do_not_change_stats():
    x = data((300, 1000), 3)
    q = softmx.quantize(x, "e2m1")
    base = softmx.error_stats(x, q, threads=1)
    for t in (2, 3, 8):
        got = softmx.error_stats(x, q, threads=t)
        assert got.as_dict().keys() == base.as_dict().keys()
        for k, v in base.as_dict().items():
            if isinstance(v, np.ndarray):
                assert np.array_equal(v, getattr(got, k))
            else:
                assert (v == getattr(got, k)) or (isinstance(v, float) and math.isnan(v))


def test_empty_and_all_nan():
    x = np.full(8, np.nan, np.float32)
    s = softmx.error_stats(x, x)
    assert s.compared == 0 and math.isnan(s.mse) and s.max_abs_error == 0 and s.input_nan == 8 and s.nan == 8
    z = np.zeros(4, np.float32)
    s = softmx.error_stats(z, z)
    assert s.mse == 0 and s.sqnr_db == math.inf and s.signal_power == 0


def test_huge_f64_differences():
    x = np.array([1.7e308, -1.7e308, 1.0], np.float64)
    q = np.array([-1.7e308, 1.0, 1.0], np.float64)
    s = softmx.error_stats(x, q)
    assert s.max_abs_error == math.inf and s.mse == math.inf and s.mean_error == math.inf


@given(hnp.arrays(np.float32, st.integers(1, 80), elements=st.floats(width=32, allow_nan=True)),
       st.sampled_from(ELEMENTS), st.sampled_from([1, 8, 32]))
def test_property_stats(x, element, k):
    q = softmx.quantize(x, element, block=k)
    s = softmx.error_stats(x, q)
    same(s, oracle(x, q.dequantize(np.float64, sat="none"), block_limits(q)))


@given(hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(allow_nan=False, allow_infinity=False,
                                                                    min_value=-1e150, max_value=1e150)),
       hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(allow_nan=False, allow_infinity=False,
                                                                    min_value=-1e150, max_value=1e150)))
def test_property_exact_sums_of_any_doubles(x, y):
    """Any doubles (subnormals and wide exponent spreads included): the exact sums rounded once."""
    n = min(x.size, y.size)
    x, y = x[:n], y[:n]
    same(softmx.error_stats(x, y), oracle(x, y))
