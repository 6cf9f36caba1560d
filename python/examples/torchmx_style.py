#!/usr/bin/env python3
"""torchmx's workflow with softmx: bf16 data, MX quantization along the last axis, dequantization
and an MX matrix product (seeds 000 and 002: MXTensor.to_mx, to_dtype, torch.matmul).

bf16 has no numpy dtype, so bf16 data travels as its uint16 bits (src="bf16"): what
torch.Tensor.view(torch.int16).numpy() hands over without a copy. When PyTorch is installed the
example shows that hand-over both ways; without it, it says so and goes on.

    python3 torchmx_style.py [--m 64 --k 128 --n 32 --seed 0]
"""

import argparse

import numpy as np

import softmx


def bf16_bits(x):
    """f32 values rounded to bf16 (rne), as uint16 bits."""
    return softmx.encode(np.asarray(x, np.float32), "bf16")


def bf16_values(bits):
    """bf16 bits as exact f32 values."""
    return softmx.decode(bits, "bf16", "f32")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("m", 64), ("k", 128), ("n", 32), ("seed", 0)):
        p.add_argument(f"--{name}", type=int, default=default)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)

    # torch.randn(M, K, dtype=torch.bfloat16): bf16 data, here as its bits.
    x_hp = bf16_bits(rng.standard_normal((a.m, a.k)))
    y_hp = bf16_bits(rng.standard_normal((a.k, a.n)))

    # MXTensor.to_mx(x_hp, elem_dtype=float8_e4m3, block_size=32): blocks along the last axis.
    x_mx = softmx.quantize(x_hp, "e4m3", block=32, axis=-1, src="bf16")
    # The matmul pairs blocks along K: B = y (K x N) is blocked along its first axis (torchmx
    # dequantizes both operands and multiplies in bf16; an MX GEMM needs K-blocks on both sides).
    y_mx = softmx.quantize(y_hp, "e3m2", block=32, axis=0, src="bf16")
    print(f"x: {x_mx}\n   scales {x_mx.scales.shape} uint8 E8M0, codes {x_mx.codes.shape} uint8")
    print(f"y: {y_mx}")

    # x_mx.to_dtype(torch.bfloat16): back to bf16 (every MX value is exact in bf16 when its
    # significand fits, so this loses nothing beyond the element rounding).
    x_back = x_mx.dequantize("bf16")
    changed = int(np.count_nonzero(x_back != x_hp))
    print(f"to_dtype(bf16): {changed} of {x_hp.size} elements differ from the input (the e4m3 rounding)")

    # torch.matmul(x_mx, y_mx): softmx's MX GEMM, every output exact (one rounding into f32) ...
    c_exact = softmx.matmul(x_mx, y_mx, acc="exact")
    # ... and torchmx's own result: bf16 operands, an f32 accumulator, one rounding to bf16
    # (docs/research/torchmx.md 9): numpy's f64 product of the dequantized operands is exact here
    # when the sums fit 53 bits, so rounding it to f32 then bf16 is that model.
    ref = x_mx.dequantize(np.float64) @ y_mx.dequantize(np.float64)
    same = np.array_equal(np.float32(ref), c_exact)
    print(f"matmul exact: C {c_exact.shape} float32; equals numpy's f64 product rounded to f32: {same}")
    c_bf16 = bf16_bits(c_exact)
    print(f"torchmx's bf16 output: C as bf16 bits {c_bf16.dtype}, first row {bf16_values(c_bf16[0, :4])}")
    for acc in softmx.accumulation_models():
        if acc in ("blackwell-mxf4", "blackwell-nvf4"):
            continue  # kind::mxf4 / mxf4nvf4 multiply e2m1 blocks only; these operands are e4m3
        if acc == "mxdotp":
            continue  # one MXDOTP instruction takes one element format for A and B; here e4m3 x e3m2
        c = softmx.matmul(x_mx, y_mx, acc=acc)
        print(f"  acc={acc:17s} max |C - exact| = {float(np.max(np.abs(c - c_exact))):.3g}")

    try:
        import torch  # optional: shows the zero-copy hand-over; never required
    except ImportError:
        print("torch: not installed; skipping the zero-copy hand-over (pip-free Debian: apt-get install python3-torch)")
        return
    t = torch.randn(a.m, a.k, dtype=torch.bfloat16)
    bits = t.view(torch.int16).numpy()          # no copy: the tensor's own memory as int16
    assert np.shares_memory(bits, t.view(torch.int16).numpy())
    q = softmx.quantize(bits, "e4m3", src="bf16")  # int16 is read as the bf16 bits, in place
    back = torch.from_numpy(q.dequantize("bf16").view(np.int16)).view(torch.bfloat16)  # no copy back either
    f32 = torch.from_numpy(q.dequantize(np.float32))
    print(f"torch: quantized a bf16 tensor {tuple(t.shape)} in place; back as {back.dtype}, "
          f"max |t - q| = {float((t.float() - f32).abs().max()):.3g}")


if __name__ == "__main__":
    main()
