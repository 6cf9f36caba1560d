"""Scale layouts GEMM consumers read (include/softmx/scale_layout.hpp, docs/RECIPES.md 6).

A scale matrix S is 2-d, (rows, cols) one-byte codes (E8M0, or E4M3 for NVFP4): a row is a
row of the operand in its non-blocked dimension (M for A, N for B), a column one block along
K (so MXArray.scales of A quantized along its last axis is S as it is; B's, quantized along
axis 0, is S transposed). The layouts:

  "cublas-128x4" (also "swizzled-128x4", "128x4"): cuBLAS/cuDNN's 128x4 tiles; S padded with
      `pad` (default 0x00) to 128 * ceil(rows / 128) x 4 * ceil(cols / 4); S[r][c] at
      ((r // 128) * ceil(cols / 4) + c // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + c % 4.
  "torchao" (also "to_blocked"): torchao's to_blocked / from_blocked, the same bytes with
      zero padding.
  "paired" (operand="a" or "b", transposed=trans_a / trans_b): the seed-003 generator's
      a_scale.bin / b_scale.bin; the K blocks padded to an even count with 0x7F (E8M0 1.0).
      A's S is (m, nb), B's is (nb, n).

TransformerEngine's compact tensors are pad_scales (S, transposed or not, padded to multiples)
and its inverse unpad_scales.

Sizes are the CLI's (`softmx layout`): a shape's rows and cols, an index's r and c, and the
padding multiples are integers from 0 (1 for multiples) to 999999999, Python ints or numpy
integer scalars; ValueError outside that range, TypeError for a float, str or bool.
"""

from __future__ import annotations

import struct
from typing import Optional, Tuple

import numpy as np

from . import _softmx
from ._arrays import as_codes, float_arg, int_arg, name_arg

_LAYOUTS = ("cublas-128x4", "torchao", "paired")

#: The largest rows, cols, index or padding multiple: the CLI's (nine digits). Every size and
#: offset computed from them fits in 64 bits.
MAX_DIM = 999_999_999


def scale_layouts():
    """The layout names swizzle_scales and unswizzle_scales take (aliases: swizzled-128x4,
    128x4, to_blocked)."""
    return list(_LAYOUTS)


def _options(layout, operand, transposed):
    layout = name_arg(layout, "layout")
    operand = name_arg(operand, "operand", True)
    if not isinstance(transposed, (bool, np.bool_)):
        raise TypeError(f"transposed must be a bool, got {type(transposed).__name__}")
    return layout, operand, bool(transposed)


def _shape(shape, what: str = "shape") -> Tuple[int, int]:
    """A pair (rows, cols) of integers from 0 to MAX_DIM ("multiple": padding multiples, from 1)."""
    try:
        rows, cols = shape
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be (rows, cols), got {shape!r}") from None
    if what == "multiple":
        lo, expected = 1, f"an integer from 1 to {MAX_DIM} (the padding multiples must be at least 1)"
    else:
        lo, expected = 0, None
    return (int_arg(rows, f"{what}[0]", lo=lo, hi=MAX_DIM, expected=expected),
            int_arg(cols, f"{what}[1]", lo=lo, hi=MAX_DIM, expected=expected))


def swizzle_scales(scales, layout: str = "cublas-128x4", *, operand: Optional[str] = None, transposed: bool = False,
                   pad: Optional[int] = None) -> np.ndarray:
    """S (a 2-d array of scale codes, any unsigned-integer dtype with values 0..255) in `layout`:
    a new 1-d uint8 array of scale_layout_size(S.shape, layout) bytes, padding included.

    layout: "cublas-128x4" (pad: the padding byte, default 0x00), "torchao" or "paired" (with
    operand="a" or "b" and transposed=True for trans_a / trans_b = 1). See the module docstring.
    Raises ValueError for an unknown layout, a missing or misplaced operand, a pad the layout
    does not take, or S not 2-d; TypeError for a float array.
    """
    layout, operand, transposed = _options(layout, operand, transposed)
    s, _ = as_codes(scales, "e8m0", "scales")
    pad = int_arg(pad, "pad", optional=True, lo=0, hi=0xFF, expected="a byte, 0 to 255")
    return _softmx.layout_encode(s, layout, operand, transposed, pad)


def unswizzle_scales(buffer, shape, layout: str = "cublas-128x4", *, operand: Optional[str] = None,
                     transposed: bool = False) -> np.ndarray:
    """The inverse of swizzle_scales: the (rows, cols) = `shape` matrix S (uint8) from the bytes
    of `layout` (a 1-d array or bytes of exactly scale_layout_size(shape, layout) bytes); the
    padding is dropped."""
    layout, operand, transposed = _options(layout, operand, transposed)
    rows, cols = _shape(shape)
    if isinstance(buffer, (bytes, bytearray, memoryview)):
        buffer = np.frombuffer(buffer, dtype=np.uint8)
    b, _ = as_codes(buffer, "e8m0", "buffer")
    return _softmx.layout_decode(b, rows, cols, layout, operand, transposed)


def scale_layout_size(shape, layout: str = "cublas-128x4", *, operand: Optional[str] = None) -> int:
    """Bytes of the `layout` buffer of a (rows, cols) scale matrix (0 for an empty one)."""
    layout, operand, _ = _options(layout, operand, False)
    rows, cols = _shape(shape)
    return _softmx.layout_size(rows, cols, layout, operand)


def scale_layout_index(r: int, c: int, shape, layout: str = "cublas-128x4", *, operand: Optional[str] = None,
                       transposed: bool = False) -> int:
    """The byte offset of S[r][c] in the `layout` buffer of a (rows, cols) matrix; (r, c) may lie
    in the padding. ValueError outside the padded matrix."""
    layout, operand, transposed = _options(layout, operand, transposed)
    rows, cols = _shape(shape)
    r, c = int_arg(r, "r", lo=0, hi=MAX_DIM), int_arg(c, "c", lo=0, hi=MAX_DIM)
    return _softmx.layout_index(r, c, rows, cols, layout, operand, transposed)


def pad_scales(scales, multiple, *, transpose: bool = False, pad: int = 0) -> np.ndarray:
    """TransformerEngine's compact scale tensors: S (2-d), transposed first if `transpose`, then
    padded with `pad` to multiples of multiple = (row_multiple, col_multiple) (MXFP8 rowwise
    (128, 4), columnwise (4, 128)). TE leaves that padding uninitialized; softmx writes `pad`.

    scales: unsigned integers (E8M0 or E4M3 codes) or float32 (FP8 block scales, as their bits);
    the result has the same dtype. pad: a code of that dtype (a float for float32)."""
    a = np.asarray(scales)
    if a.dtype.kind == "f" and a.dtype != np.float32:
        raise TypeError(f"scales: expected unsigned integers or float32, got dtype {a.dtype}")
    if a.dtype.kind not in "uif":
        raise TypeError(f"scales: expected unsigned integers or float32, got dtype {a.dtype}")
    rm, cm = _shape(multiple, "multiple")
    if not isinstance(transpose, (bool, np.bool_)):
        raise TypeError(f"transpose must be a bool, got {type(transpose).__name__}")
    if a.dtype == np.float32:
        bits = np.asarray(a, order="C").view(np.uint32)
        try:
            struct.pack("<f", float_arg(pad, "pad"))
        except OverflowError:
            raise ValueError(f"pad must be an f32 value for float32 scales, got {pad!r}") from None
        pad_bits = int(np.array(pad, dtype=np.float32).view(np.uint32))
        return _softmx.pad_scales(bits, bool(transpose), rm, cm, pad_bits).view(np.float32)
    bits, _ = as_codes(a, "f32", "scales")
    hi = min(int(np.iinfo(a.dtype).max), 0xFFFFFFFF) if a.dtype.kind == "u" else 0xFFFFFFFF
    pad = int_arg(pad, "pad", lo=0, hi=hi, expected=f"0 to {hi} for {a.dtype} scales")
    out = _softmx.pad_scales(bits, bool(transpose), rm, cm, pad)
    return out.astype(a.dtype) if a.dtype.kind == "u" else out


def unpad_scales(padded, shape, multiple, *, transpose: bool = False) -> np.ndarray:
    """The inverse of pad_scales: S, the (rows, cols) = `shape` scale matrix, from TE's compact
    tensor `padded` (2-d, exactly pad_scales' shape for these arguments). The padding is never
    read (TE leaves it uninitialized); where `transpose`, the tensor is transposed back. This is
    how TE's dequantize reads it (float8_blockwise_tensor_storage.py:292-295: crop, then
    transpose). Same dtypes as pad_scales: unsigned integers or float32 (bits kept, NaN payloads
    included); the result has padded's dtype. ValueError for a shape that does not match."""
    a = np.asarray(padded)
    if a.dtype.kind not in "uif" or (a.dtype.kind == "f" and a.dtype != np.float32):
        raise TypeError(f"padded: expected unsigned integers or float32, got dtype {a.dtype}")
    rows, cols = _shape(shape)
    rm, cm = _shape(multiple, "multiple")
    if not isinstance(transpose, (bool, np.bool_)):
        raise TypeError(f"transpose must be a bool, got {type(transpose).__name__}")
    if a.ndim != 2:
        raise ValueError(f"padded must be a 2-d (rows, cols) tensor, got {a.ndim} dimensions")
    if a.dtype == np.float32:
        bits = np.ascontiguousarray(a).view(np.uint32)
        return _softmx.unpad_scales(bits, rows, cols, bool(transpose), rm, cm).view(np.float32)
    bits, _ = as_codes(a, "f32", "padded")
    out = _softmx.unpad_scales(bits, rows, cols, bool(transpose), rm, cm)
    return out.astype(a.dtype) if a.dtype.kind == "u" else out
