#!/usr/bin/env python3
"""The MX-FP4 GEMM golden generator's workflow with softmx (seed 003): random A and B, A
quantized along K per row and B along K per column, the packed codes and scales written to
files, and the golden C = A x B, exact (every output one rounding of the exact sum).

The files and their layouts are those of `softmx gemm-golden` (docs/BLOCKS.md 7), and with the
same options this script writes the same bytes: the inputs come from the same SplitMix64
stream (each value the sum of 12 draws of 24 bits, centred, times 2^-24, rounded to f32).

    python3 golden_gemm.py --out DIR [--m 64 --n 64 --k 256 --a e2m1 --b e2m1 --block 32
                                      --seed 1 --acc exact]
"""

import argparse
import hashlib
import os

import numpy as np

import softmx

_GAMMA = 0x9E3779B97F4A7C15


def splitmix64(seed, n):
    """The first n outputs of SplitMix64(seed) (include/softmx/prng.hpp), vectorised: output i
    depends only on seed + (i + 1) * gamma."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(_GAMMA))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def draw_values(seed, count):
    """count values: (sum of 12 draws >> 40, minus 6 * 2^24) * 2^-24 rounded to f32 (rne)."""
    d = (splitmix64(seed, 12 * count) >> np.uint64(40)).astype(np.int64).reshape(count, 12)
    v = np.ldexp((d.sum(axis=1) - 6 * (1 << 24)).astype(np.float64), -24)  # exact in f64
    return softmx.convert(v, np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--k", type=int, default=256)
    p.add_argument("--a", default="e2m1")
    p.add_argument("--b", default="e2m1")
    p.add_argument("--block", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--acc", default="exact")
    o = p.parse_args()
    M, N, K = o.m, o.n, o.k

    vals = draw_values(o.seed, M * K + K * N)
    A = vals[: M * K].reshape(M, K)
    B = vals[M * K:].reshape(K, N)
    qa = softmx.quantize(A, o.a, block=o.block, axis=1)
    qb = softmx.quantize(B, o.b, block=o.block, axis=0)
    C = softmx.matmul(qa, qb, acc=o.acc, sat="none")   # f32, overflow to Inf

    files = {
        "a_f32.bin": A,
        "b_f32.bin": B,
        "a.bin": qa.packed(),                                          # M rows of K packed codes
        "a_scale.bin": qa.scales,                                      # M x K/block
        "b.bin": softmx.pack(np.ascontiguousarray(qb.codes.T), o.b),   # B^T: N rows of K packed codes
        "b_scale.bin": np.ascontiguousarray(qb.scales.T),              # N x K/block
        "c_golden.bin": C,
    }
    os.makedirs(o.out, exist_ok=True)
    lines = [f"# softmx golden_gemm.py: M={M} N={N} K={K} a={o.a} b={o.b} block={o.block} seed={o.seed} "
             f"acc={o.acc} (little-endian, layouts as softmx gemm-golden)"]
    for name, arr in files.items():
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        with open(os.path.join(o.out, name), "wb") as f:
            f.write(data)
        lines.append(f"file = {name} bytes={len(data)} sha256={hashlib.sha256(data).hexdigest()}")
    with open(os.path.join(o.out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    exact = np.float32(qa.dequantize(np.float64) @ qb.dequantize(np.float64))
    print(f"wrote {o.out}: C = A ({M} x {K} {o.a}) x B ({K} x {N} {o.b}), {o.acc} accumulation; "
          f"C equals numpy's f64 product of the dequantized operands rounded to f32: "
          f"{np.array_equal(exact, C) if o.acc == 'exact' else 'n/a'}")


if __name__ == "__main__":
    main()
