"""Dot products and matrix products of MX tensors (docs/BLOCKS.md 5)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _softmx
from ._arrays import name_arg, threads_arg
from ._mxarray import MXArray


def _mx_operand(x, what: str) -> MXArray:
    if not isinstance(x, MXArray):
        raise TypeError(f"{what} must be an MXArray (from softmx.quantize), got {type(x).__name__}; "
                        f"for float arrays use numpy.matmul")
    if x.format == "nvfp4":
        raise TypeError(f"{what} is an nvfp4 array; dot products here take MX arrays (E8M0 scales)")
    return x


def _scale_format(a: MXArray, b: MXArray, what: str) -> str:
    """The scale format both operands share (E8M0; UE4M3 also for blackwell-mxf4/nvf4; any
    other under exact and fp32-sequential only: the library refuses the rest)."""
    if a.scale_format != b.scale_format:
        raise ValueError(f"{what}: a has {a.scale_format} scales and b {b.scale_format}; they need the same scale format")
    return a.scale_format


def matmul(a: MXArray, b: MXArray, *, acc: str = "exact", round: Optional[str] = "rne", sat: Optional[str] = None,
           tininess: str = "after", flags: bool = False, threads: Optional[int] = None):
    """C = A x B for MX tensors, every output bit-exact: C[i, j] is DotGeneral over the blocks of
    row i of A and column j of B (OCP MX 6.1-6.2), an f32 under the accumulation model `acc`.

    a: an (M, K) MXArray blocked along K (axis 1, as quantize(..., axis=-1) makes it), or a
       (K,) vector.
    b: a (K, N) MXArray blocked along K (axis 0: quantize(..., axis=0)), or a (K,) vector.
       Both with the same block size; the element formats may differ, named or runtime (an
       MXArray quantized to "e1m2", "e2m2", "e4m3fnuz", "int4", ...: the same kernels; runtime
       elements take acc "exact" or "fp32-sequential", a tensor-core model raises ValueError).
    acc: "exact" (the exact sum rounded once), "fp32-sequential" (f32 additions in order),
       "hopper-fp8-mma", "hopper-fp8-wgmma" (tensor-core models; docs/TENSOR_CORES.md):
       softmx.accumulation_models().
       Scales: E8M0 (quantize's default), or UE4M3 (quantize(..., scale_format="ue4m3"), or
       "e4m3") for blackwell-mxf4 and blackwell-nvf4 (kind::mxf4nvf4), which read them; any
       scale format (ue4m3, ue5m3, bf16, f16, f32, ...) under "exact" and "fp32-sequential"
       (each term ((P_A * P_B) * X_A) * X_B, docs/BLOCKS.md 5; computed per output); any
       other pairing raises ValueError.
    round, sat, tininess: the f32 output's rounding; sat=None is IEEE overflow to Inf (as
       `softmx dot`). The tensor-core models round their own way and ignore them.
    flags: also return the flags of each output (uint8, C's shape).
    threads: worker threads, an integer from 1 to 1024 (None: every core); the results do not
       depend on it.

    Runs the library's GEMM (softmx/gemm.hpp, as `softmx gemm-golden`) without the GIL: the
    vector kernels for exact, fp32-sequential and the tensor-core models that add C within a
    group; dot_general per output, inside the GEMM, for the outputs no kernel decides (NaN/Inf
    codes or NaN scales, f32's range edges, exact zeros) and for models without a kernel (the
    GST models blackwell-mxf4/nvf4). Every output equals dot_general's bit for bit. An output
    with no element (M or N = 0) is an empty array, computed by no one.

    Returns a float32 array of shape (M, N) ((N,), (M,) or () for vectors, as numpy.matmul).
    """
    a = _mx_operand(a, "a")
    b = _mx_operand(b, "b")
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise ValueError(f"matmul takes 1-d or 2-d MXArrays, got {a.ndim}-d and {b.ndim}-d (use softmx.dot for a "
                         f"product along an axis of N-d arrays)")
    if a.axis != a.ndim - 1:
        raise ValueError(f"matmul: a must be blocked along its last axis (K), but it is blocked along axis {a.axis}: "
                         f"quantize it with axis=-1")
    if b.axis != 0:
        raise ValueError(f"matmul: b must be blocked along its first axis (K), but it is blocked along axis {b.axis}: "
                         f"quantize it with axis=0")
    if a.block != b.block:
        raise ValueError(f"matmul: a and b must have the same block size, got {a.block} and {b.block}")
    ac, asc = (a.codes, a.scales) if a.ndim == 2 else (a.codes.reshape(1, -1), a.scales.reshape(1, -1))
    bc, bsc = (b.codes, b.scales) if b.ndim == 2 else (b.codes.reshape(-1, 1), b.scales.reshape(-1, 1))
    c, fl, _ = _softmx.matmul(asc, ac, a.element, bsc, bc, b.element, a.block, name_arg(acc, "acc"),
                              name_arg(round, "round", True), name_arg(sat, "sat", True),
                              name_arg(tininess, "tininess"), bool(flags), threads_arg(threads),
                              _scale_format(a, b, "matmul"))
    c = c.view(np.float32)
    if a.ndim == 1 or b.ndim == 1:
        shape = (() if a.ndim == 1 else (c.shape[0],)) + (() if b.ndim == 1 else (c.shape[1],))
        c = c.reshape(shape)
        fl = fl.reshape(shape) if flags else fl
    return (c, fl) if flags else c


def dot(a: MXArray, b: MXArray, *, acc: str = "exact", round: Optional[str] = "rne", sat: Optional[str] = None,
        tininess: str = "after", flags: bool = False, threads: Optional[int] = None):
    """DotGeneral along the blocked axis: for two MXArrays of the same shape, axis and block
    size, each output is the dot product of the blocks of one line along that axis (OCP MX
    6.1: X_A * X_B * sum P_A * P_B per block pair, summed over the pairs under `acc`), an f32.

    For 1-d arrays that is one value (a 0-d array): the dot product of two MX vectors, or of
    one block pair when the length is the block size (MXArray(scales, codes, fmt, block=k)
    builds blocks from raw codes). Options as matmul; runs the library's dot_pairs (the GEMM's
    kernels, one pair per lane, as `softmx dot`). Returns a float32 array of the shape with
    the axis removed.
    """
    a = _mx_operand(a, "a")
    b = _mx_operand(b, "b")
    if a.shape != b.shape or a.axis != b.axis or a.block != b.block:
        raise ValueError(f"dot: a and b must have the same shape, axis and block size, got {a.shape} axis {a.axis} "
                         f"block {a.block} and {b.shape} axis {b.axis} block {b.block}")
    c, fl, _ = _softmx.dot(a.scales, a.codes, a.element, b.scales, b.codes, b.element, a.axis, a.block,
                           name_arg(acc, "acc"), name_arg(round, "round", True), name_arg(sat, "sat", True),
                           name_arg(tininess, "tininess"), bool(flags), threads_arg(threads),
                           _scale_format(a, b, "dot"))
    c = c.view(np.float32)
    return (c, fl) if flags else c
