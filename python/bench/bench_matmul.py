#!/usr/bin/env python3
"""softmx.matmul under every accumulation model against numpy's float32 matmul of the same
dequantized operands, every ratio measured in this one process.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_matmul.py [--m 256 --n 256 --k 2048] [--reps 7]

A (M x K) and B (K x N) are standard normal data quantized to MX (e4m3 x e4m3, blocks of 32
along K; e2m1 x e2m1 for the models that take only FP4, the GST models). Each line gives the
median of --reps calls, the element products per second, and the time over numpy.matmul of
the dequantized f32 operands of that line (the two calls alternate, so both see the same load). softmx.matmul
runs the library's GEMM (softmx/gemm.hpp) on --threads threads (default: every core); numpy's
matmul uses its BLAS with its own threads. The load average is printed: on a shared machine
the figures move with it.
"""

import argparse
import os
import statistics
import time

import numpy as np

import softmx

GST = {"blackwell-mxf4", "blackwell-nvf4"}  # e2m1 x e2m1 only (docs/TENSOR_CORES.md)


def median_times(fns, reps):
    """The median time of each of fns, called in turn (fn0, fn1, fn0, fn1, ...) so that both see
    the same load."""
    times = [[] for _ in fns]
    for _ in range(reps):
        for fn, t in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=256)
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--k", type=int, default=2048)
    p.add_argument("--block", type=int, default=32)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--threads", type=int, default=None, help="softmx.matmul's threads (default: every core)")
    o = p.parse_args()
    M, N, K = o.m, o.n, o.k
    products = M * N * K
    load = os.getloadavg()
    print(f"softmx {softmx.__version__}, numpy {np.__version__}; M = {M}, N = {N}, K = {K}, block {o.block}; "
          f"median of {o.reps}; softmx threads: {o.threads or softmx._softmx.default_threads()}; "
          f"os.cpu_count() = {os.cpu_count()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((M, K)).astype(np.float32)
    xb = rng.standard_normal((K, N)).astype(np.float32)
    operands = {}
    for fmt in ("e4m3", "e2m1"):
        qa = softmx.quantize(xa, fmt, block=o.block, axis=1)
        qb = softmx.quantize(xb, fmt, block=o.block, axis=0)
        operands[fmt] = (qa, qb, qa.dequantize(np.float32), qb.dequantize(np.float32))
    print(f"\n{'acc':20s} {'operands':12s} {'softmx ms':>10s} {'G prod/s':>9s} {'numpy ms':>9s} {'x numpy f32':>12s}")
    for acc in softmx.accumulation_models():
        fmt = "e2m1" if acc in GST else "e4m3"
        qa, qb, da, db = operands[fmt]
        try:
            t0 = time.perf_counter()
            softmx.matmul(qa, qb, acc=acc, threads=o.threads)  # warm-up (and the operands' check)
            warm = time.perf_counter() - t0
        except ValueError as e:
            print(f"{acc:20s} {fmt + ' x ' + fmt:12s} refused: {e}")
            continue
        reps = o.reps if warm < 1 else min(o.reps, 3)  # models without a kernel run seconds a call
        t, t_np = median_times([lambda: softmx.matmul(qa, qb, acc=acc, threads=o.threads),
                                lambda: np.matmul(da, db)], reps)
        print(f"{acc:20s} {fmt + ' x ' + fmt:12s} {t * 1e3:10.2f} {products / t / 1e9:9.3f} {t_np * 1e3:9.3f} "
              f"{t / t_np:11.1f}x" + ("" if reps == o.reps else f"  (median of {reps})"))
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
