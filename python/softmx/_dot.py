"""Dot products and matrix products of MX tensors (docs/BLOCKS.md 5)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _softmx
from ._arrays import as_codes, as_values, host_target, name_arg, storage_dtype, threads_arg
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


def _destination(to, c, shape, what: str):
    """The destination's name (f32, f16, bf16) and C as uint32 codes of the result's shape
    (broadcast), or None."""
    name = "f32" if to is None else host_target(to)
    if name not in ("f32", "f16", "bf16"):
        raise ValueError(f"{what}: to must be 'f32', 'f16' or 'bf16' (numpy.float32, numpy.float16), got {to!r}")
    if c is None:
        return name, None
    try:
        codes, _ = as_codes(c, name, "c")
    except TypeError:
        kinds = {"f32": "float32", "f16": "float16", "bf16": "bf16 codes (uint16)"}
        raise TypeError(f"{what}: c must hold {name} values: a {kinds[name]} array or scalar, or {name}'s codes as "
                        f"unsigned integers; got {type(c).__name__} of dtype {np.asarray(c).dtype} (convert it "
                        f"with softmx.convert or numpy first: rounding it is the caller's choice)") from None
    try:
        codes = np.broadcast_to(codes, shape)
    except ValueError:
        raise ValueError(f"{what}: c of shape {codes.shape} does not broadcast to the result's shape {tuple(shape)}") \
            from None
    return name, np.ascontiguousarray(codes, dtype=np.uint32)


def _result(codes: np.ndarray, name: str) -> np.ndarray:
    """uint32 codes of the destination as its values: float32, float16, or bf16 codes (uint16)."""
    if name == "f32":
        return codes.view(np.float32)
    return as_values(codes.astype(storage_dtype(name)), name)


def matmul(a: MXArray, b: MXArray, *, c=None, to=None, acc: str = "exact", round: Optional[str] = "rne",
           sat: Optional[str] = None, tininess: str = "after", flags: bool = False, threads: Optional[int] = None):
    """D = A x B (+ C) for MX tensors, every output bit-exact: D[i, j] is DotGeneral over the
    blocks of row i of A and column j of B (OCP MX 6.1-6.2) plus C[i, j], rounded into `to`
    under the accumulation model `acc` (docs/BLOCKS.md 5, "Addend and destination").

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
    c: the addend C (None: none), values of `to` broadcast to the result's shape: a float32
       array for f32, float16 for f16, or the codes as unsigned integers (bf16: uint16 bits).
       exact adds it to the exact sum and rounds once; fp32-sequential starts its f32
       accumulator at it; a tensor-core model takes it as its own C (mma's accumulator).
    to: the result's format: "f32" (default, or numpy.float32), "f16" (numpy.float16), "bf16".
       A tensor-core model's f16 is its f16 accumulator; bf16 it refuses (ValueError).
    round, sat, tininess: the result's rounding; sat=None is IEEE overflow to Inf (as `softmx
       dot`). The tensor-core models round their own way and ignore them.
    flags: also return the flags of each output (uint8, the result's shape).
    threads: worker threads, an integer from 1 to 1024 (None: every core); the results do not
       depend on it.

    Runs the library's GEMM (softmx/gemm.hpp, as `softmx gemm-golden`) without the GIL: the
    vector kernels for exact, fp32-sequential and the tensor-core models that add C within a
    group; dot_general per output, inside the GEMM, for the outputs no kernel decides (NaN/Inf
    codes or NaN scales, f32's range edges, exact zeros) and for models without a kernel (the
    GST models blackwell-mxf4/nvf4). Every output equals dot_general's bit for bit. An output
    with no element (M or N = 0) is an empty array, computed by no one.

    Returns a float32 array of shape (M, N) ((N,), (M,) or () for vectors, as numpy.matmul);
    float16 for to="f16", bf16 codes as uint16 for to="bf16".
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
    shape = (() if a.ndim == 1 else (ac.shape[0],)) + (() if b.ndim == 1 else (bc.shape[1],))
    to_name, cc = _destination(to, c, shape, "matmul")
    if cc is not None:
        cc = cc.reshape(ac.shape[0], bc.shape[1])
    d, fl, _ = _softmx.matmul(asc, ac, a.element, bsc, bc, b.element, a.block, name_arg(acc, "acc"),
                              name_arg(round, "round", True), name_arg(sat, "sat", True),
                              name_arg(tininess, "tininess"), bool(flags), threads_arg(threads),
                              _scale_format(a, b, "matmul"), to_name, cc)
    d = _result(d, to_name)
    if a.ndim == 1 or b.ndim == 1:
        d = d.reshape(shape)
        fl = fl.reshape(shape) if flags else fl
    return (d, fl) if flags else d


def dot(a: MXArray, b: MXArray, *, c=None, to=None, acc: str = "exact", round: Optional[str] = "rne",
        sat: Optional[str] = None, tininess: str = "after", flags: bool = False, threads: Optional[int] = None):
    """DotGeneral along the blocked axis: for two MXArrays of the same shape, axis and block
    size, each output is the dot product of the blocks of one line along that axis (OCP MX
    6.1: X_A * X_B * sum P_A * P_B per block pair, summed over the pairs under `acc`) plus the
    addend c, rounded into `to` (f32 by default): what an MX dot-product unit (MXDOTP: FP8
    products summed, scaled, added to an FP32 C, rounded once) computes, `softmx dot --addend`.

    For 1-d arrays that is one value (a 0-d array): the dot product of two MX vectors, or of
    one block pair when the length is the block size (MXArray(scales, codes, fmt, block=k)
    builds blocks from raw codes). Options as matmul (c broadcast to the result's shape, the
    shape with the axis removed); runs the library's dot_pairs (the GEMM's kernels, one pair
    per lane, as `softmx dot`). Returns a float32 array of the shape with the axis removed
    (float16 for to="f16", uint16 bf16 codes for to="bf16").
    """
    a = _mx_operand(a, "a")
    b = _mx_operand(b, "b")
    if a.shape != b.shape or a.axis != b.axis or a.block != b.block:
        raise ValueError(f"dot: a and b must have the same shape, axis and block size, got {a.shape} axis {a.axis} "
                         f"block {a.block} and {b.shape} axis {b.axis} block {b.block}")
    shape = a.shape[:a.axis] + a.shape[a.axis + 1:]
    to_name, cc = _destination(to, c, shape, "dot")
    d, fl, _ = _softmx.dot(a.scales, a.codes, a.element, b.scales, b.codes, b.element, a.axis, a.block,
                           name_arg(acc, "acc"), name_arg(round, "round", True), name_arg(sat, "sat", True),
                           name_arg(tininess, "tininess"), bool(flags), threads_arg(threads),
                           _scale_format(a, b, "dot"), to_name, cc)
    d = _result(d, to_name)
    return (d, fl) if flags else d
