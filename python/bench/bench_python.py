#!/usr/bin/env python3
"""softmx's Python package against its peers, every ratio measured in this one process.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_python.py [--reps 5] [--log2n 24]

1. softmx.encode f32 -> e4m3 codes over 2^24 values (every core, and one thread) against numpy's
   x.astype(numpy.float16) of the same array (issue 13's target: at least 10x).
2. softmx.quantize f32 -> MXFP8 (e4m3, k = 32) over 2^24 values on one thread against the C++
   library's quantize_tensor called from this process (the build tree's _softmx_reference
   module times it in C++; target: within 1.5x), and on every core.
3. softmx.matmul(acc="exact") of two MX operands against numpy.matmul of the dequantized
   operands (f32 and f64), and the other accumulation models that take e4m3 (bench_matmul.py
   gives every model, medians, at m = n = 256, k = 2048).
Also dequantize and error_stats rates. Times are the best of --reps runs.
"""

import argparse
import os
import time

import numpy as np

import softmx

try:
    import _softmx_reference as reference
except ImportError:
    reference = None


def best(fn, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def rate(n, t):
    return f"{n / t / 1e6:9.1f} M/s"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--mnk", type=int, default=256, help="M = N = K of the matmul")
    a = p.parse_args()
    n = 1 << a.log2n
    cores = softmx._softmx.default_threads()
    print(f"softmx {softmx.__version__}, numpy {np.__version__}, {cores} threads by default "
          f"(os.cpu_count() = {os.cpu_count()}), best of {a.reps}")
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) * 50).astype(np.float32)

    print(f"\n1. convert f32 -> e4m3, {n} values")
    t_np = best(lambda: x.astype(np.float16), a.reps)
    t_all = best(lambda: softmx.encode(x, "e4m3"), a.reps)
    t_one = best(lambda: softmx.encode(x, "e4m3", threads=1), a.reps)
    t_fl = best(lambda: softmx.encode(x, "e4m3", flags=True), a.reps)
    print(f"   numpy x.astype(float16)          {t_np * 1e3:8.2f} ms {rate(n, t_np)}")
    print(f"   softmx.encode  (every core)      {t_all * 1e3:8.2f} ms {rate(n, t_all)}   {t_np / t_all:6.1f}x numpy")
    print(f"   softmx.encode  (1 thread)        {t_one * 1e3:8.2f} ms {rate(n, t_one)}   {t_np / t_one:6.1f}x numpy")
    print(f"   softmx.encode  flags=True        {t_fl * 1e3:8.2f} ms {rate(n, t_fl)}   {t_np / t_fl:6.1f}x numpy")

    print(f"\n2. quantize f32 -> MXFP8 (e4m3, k = 32), {n} values")
    t_q1 = best(lambda: softmx.quantize(x, "e4m3", threads=1), a.reps)
    t_qa = best(lambda: softmx.quantize(x, "e4m3"), a.reps)
    if reference is not None:
        t_cpp = reference.time_quantize_tensor(x, 32, 4, a.reps)  # FormatId::e4m3 = 4
        print(f"   C++ quantize_tensor (1 thread)   {t_cpp * 1e3:8.2f} ms {rate(n, t_cpp)}")
        print(f"   softmx.quantize (1 thread)       {t_q1 * 1e3:8.2f} ms {rate(n, t_q1)}   "
              f"{t_q1 / t_cpp:6.2f}x the C++ time")
        print(f"   softmx.quantize (every core)     {t_qa * 1e3:8.2f} ms {rate(n, t_qa)}   "
              f"{t_qa / t_cpp:6.2f}x the C++ time")
    else:
        print("   (the build tree's _softmx_reference module is not importable: no C++ peer)")
        print(f"   softmx.quantize (1 thread)       {t_q1 * 1e3:8.2f} ms {rate(n, t_q1)}")
        print(f"   softmx.quantize (every core)     {t_qa * 1e3:8.2f} ms {rate(n, t_qa)}")
    q = softmx.quantize(x, "e4m3")
    t_dq = best(lambda: q.dequantize(), a.reps)
    t_st = best(lambda: softmx.error_stats(x, q), max(1, a.reps // 2))
    t_fq = best(lambda: x.astype(np.float16).astype(np.float32), a.reps)
    print(f"   dequantize -> f32 (every core)   {t_dq * 1e3:8.2f} ms {rate(n, t_dq)}")
    print(f"   error_stats (every core)         {t_st * 1e3:8.2f} ms {rate(n, t_st)}")
    print(f"   (numpy f32 -> f16 -> f32 round trip {t_fq * 1e3:.2f} ms)")

    m = a.mnk
    print(f"\n3. matmul {m} x {m} x {m}, e4m3 x e4m3, k = 32 ({m ** 3 / 1e6:.1f} M multiply-adds)")
    xa = rng.standard_normal((m, m)).astype(np.float32)
    xb = rng.standard_normal((m, m)).astype(np.float32)
    qa = softmx.quantize(xa, "e4m3", axis=1)
    qb = softmx.quantize(xb, "e4m3", axis=0)
    da32, db32 = qa.dequantize(), qb.dequantize()
    da64, db64 = qa.dequantize(np.float64), qb.dequantize(np.float64)
    t_n32 = best(lambda: np.matmul(da32, db32), a.reps)
    t_n64 = best(lambda: np.matmul(da64, db64), a.reps)
    print(f"   numpy.matmul f32 of the dequantized   {t_n32 * 1e3:9.2f} ms")
    print(f"   numpy.matmul f64 of the dequantized   {t_n64 * 1e3:9.2f} ms")
    for acc in softmx.accumulation_models():
        reps = a.reps if acc in ("exact", "fp32-sequential") else max(1, a.reps // 2)
        try:
            t = best(lambda: softmx.matmul(qa, qb, acc=acc), reps)
        except ValueError as e:  # the GST models take e2m1 only: bench_matmul.py times them
            print(f"   softmx.matmul acc={acc:17s} refused for e4m3: {e}")
            continue
        print(f"   softmx.matmul acc={acc:17s} {t * 1e3:9.2f} ms   {t / t_n32:8.1f}x numpy f32, "
              f"{t / t_n64:8.1f}x numpy f64 ({m * m / t / 1e6:.2f} M outputs/s)")


if __name__ == "__main__":
    main()
