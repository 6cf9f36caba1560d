#!/usr/bin/env python3
"""pychop's workflow with softmx: fake quantization (quantize then dequantize, what
pychop.mx_quantize(X, format='mxfp8_e4m3') returns) and statistics, over every MX format
(seed 001: mx_quantize, MXTensor.statistics, compare_mx_formats).

softmx's statistics are exact (softmx.ErrorStats defines each one), and add what pychop's lack:
SQNR, the largest errors, the saturated and flushed counts and the scale histogram.

    python3 pychop_style.py [--rows 1024 --cols 768 --block 32 --seed 0]
"""

import argparse

import numpy as np

import softmx

# pychop's format names and softmx's element formats.
FORMATS = {"mxfp8_e5m2": "e5m2", "mxfp8_e4m3": "e4m3", "mxfp6_e3m2": "e3m2", "mxfp6_e2m3": "e2m3",
           "mxfp4_e2m1": "e2m1", "mxint8": "int8"}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("rows", 1024), ("cols", 768), ("block", 32), ("seed", 0)):
        p.add_argument(f"--{name}", type=int, default=default)
    a = p.parse_args()
    x = np.random.default_rng(a.seed).standard_normal((a.rows, a.cols))  # float64, as pychop's example

    print(f"X: {x.shape} float64, blocks of {a.block} along the last axis")
    print(f"{'format':12s} {'bits/elem':>9s} {'vs fp32':>7s} {'MSE':>10s} {'SQNR dB':>8s} {'max |err|':>10s} "
          f"{'max rel':>9s} {'saturated':>9s} {'to zero':>8s}  scales used")
    for name, element in FORMATS.items():
        q = softmx.quantize(x, element, block=a.block)
        x_q = softmx.fake_quantize(x, element, block=a.block)   # pychop.mx_quantize(X, format=name)
        assert x_q.dtype == np.float64 and np.array_equal(x_q, q.dequantize(np.float64))
        s = softmx.error_stats(x, q)
        width = softmx.format_info(element).width
        blocks = q.scales.size
        bits = (width * q.size + 8 * blocks) / q.size   # pychop's bits_per_element (with padding: none here)
        used = s.scale_counts()
        print(f"{name:12s} {bits:9.3f} {32 / bits:7.3f} {s.mse:10.3e} {s.sqnr_db:8.2f} {s.max_abs_error:10.3e} "
              f"{s.max_rel_error:9.3e} {s.saturated:9d} {s.flushed_to_zero:8d}  "
              f"{min(used) - 127:+d}..{max(used) - 127:+d} ({len(used)} codes)")
    # compare_mx_formats prints MSE and MAE; MAE needs the values:
    x_q = softmx.fake_quantize(x, "e4m3", block=a.block)
    print(f"mxfp8_e4m3 MAE = {np.mean(np.abs(x - x_q)):.2e}")


if __name__ == "__main__":
    main()
