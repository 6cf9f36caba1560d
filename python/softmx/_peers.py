"""The seeds' workflows as their own code runs them (include/softmx/torchmx.hpp, pychop.hpp):
torchmx's quantize_mx / MXTensor.to_mx / dequantize_mx / to_dtype / matmul / linear, and
pychop's mx_quantize with its MXSpec and statistics(). softmx.quantize(..., dialect="torchmx")
or dialect="pychop" gives the same block arithmetic in softmx's own layout; these give the
peers' layouts and entry points (torchmx: bf16 only, blocks along the last dimension, FP4
packed high nibble first; pychop: the whole array flattened into blocks)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _softmx
from ._arrays import as_codes, int_arg, name_arg, normalize_axis

MXSpec = _softmx.MXSpec

#: The CLI's limits (`softmx torchmx`, `softmx pychop`): block sizes 1..65536; pychop's
#: element exp_bits 0..16 and sig_bits 0..64, scale_exp_bits 1..8 (an E8M0 scale holds at most
#: 8), scale_sig_bits 0..64.
MAX_BLOCK_SIZE = 65536


def _bf16_bits(x, what):
    a = np.asarray(x)
    if a.dtype.kind == "f" and a.dtype.itemsize != 2:
        raise TypeError(f"{what}: torchmx quantizes bf16 data; give its bits as uint16 (or an ml_dtypes bfloat16 "
                        f"array), got dtype {a.dtype}")
    return as_codes(a, "bf16", what)[0]


def _target(target_dtype):
    t = name_arg(target_dtype, "target_dtype")
    return {"float32": "f32", "bfloat16": "bf16"}.get(t, t)


def _values(bits, target):
    return bits.view(np.float32) if target == "f32" else bits


class TorchmxTensor:
    """torchmx's (scale, data_lp) pair, or an MXTensor (with its padding). Read-only:
    element ("float8_e4m3", "float6_e3m2", "float6_e2m3", "float4_e2m1", "int8"), block_size,
    shape (the logical bf16 shape), scale (uint8 E8M0, shape[:-1] + (ceil(n / block),)),
    data (uint8, torchmx's data_lp: FP4 two codes per byte, element 2i in the high nibble;
    int8 two's complement bytes), padding (to_mx's zeros per row), flags."""

    __slots__ = ("_t",)

    def __init__(self, core):
        self._t = core

    element = property(lambda self: self._t.element)
    block_size = property(lambda self: self._t.block_size)
    shape = property(lambda self: self._t.shape)
    scale = property(lambda self: self._t.scale)
    data = property(lambda self: self._t.data)
    padding = property(lambda self: self._t.padding)
    flags = property(lambda self: self._t.flags)

    def to_dtype(self, target_dtype="bf16"):
        """MXTensor.to_dtype: the values in the logical shape, "bf16" (uint16 bits) or "f32"."""
        t = _target(target_dtype)
        out, _ = _softmx.torchmx_to_dtype(self._t, t)
        return _values(out, t)

    def __repr__(self):
        return (f"TorchmxTensor(element={self.element!r}, shape={self.shape}, block_size={self.block_size}, "
                f"padding={self.padding})")


def torchmx_quantize_mx(data_hp, elem_dtype_name: str, block_size: int = 32, *, path: str = "simulated"):
    """torchmx.quantize_mx(data_hp, elem_dtype_name, block_size): bf16 data (uint16 bits) in
    blocks along the last dimension, which must be a multiple of block_size (an integer from 1
    to 65536). path="hardware-exact" is MX_HARDWARE_EXACT_QUANTIZATION=True (dialect
    torchmx-hw-exact). Returns a TorchmxTensor."""
    x = _bf16_bits(data_hp, "data_hp")
    return TorchmxTensor(_softmx.torchmx_quantize(x, name_arg(elem_dtype_name, "elem_dtype_name"),
                                                  _block(block_size), name_arg(path, "path"), False))


def torchmx_to_mx(data_hp, elem_dtype, block_size: int = 32, *, path: str = "simulated"):
    """MXTensor.to_mx(data_hp, elem_dtype, block_size): as torchmx_quantize_mx after padding each
    row with +0.0 to a multiple of block_size (the stored data cut back)."""
    x = _bf16_bits(data_hp, "data_hp")
    return TorchmxTensor(_softmx.torchmx_quantize(x, name_arg(elem_dtype, "elem_dtype"), _block(block_size),
                                                  name_arg(path, "path"), True))


def torchmx_dequantize_mx(data_lp, shared_exp_e8m0, elem_dtype_name: str, block_size: int = 32,
                          target_dtype="bf16", block_dim: int = -1):
    """torchmx.dequantize_mx(data_lp, shared_exp_e8m0, elem_dtype_name, block_size, target_dtype,
    block_dim) on arbitrary bytes: bf16 (uint16 bits) or f32 values in the unpacked shape.
    block_size: an integer from 1 to 65536; block_dim: a dimension of data_lp, an integer from
    -data_lp.ndim to data_lp.ndim - 1."""
    d = as_codes(data_lp, "e8m0", "data_lp")[0]  # bytes; an int8 array (torchmx's int8 data_lp) as its bits
    s = as_codes(shared_exp_e8m0, "e8m0", "shared_exp_e8m0")[0]
    t = _target(target_dtype)
    if d.ndim == 0:
        raise ValueError("data_lp must have at least one dimension, got a 0-d array")
    bd = normalize_axis(block_dim, d.ndim, "block_dim")
    out, _ = _softmx.torchmx_dequantize_mx(d, s, name_arg(elem_dtype_name, "elem_dtype_name"), _block(block_size), t,
                                           bd)
    return _values(out, t)


def torchmx_matmul(a: TorchmxTensor, b: TorchmxTensor, *, acc: str = "exact-f32"):
    """torch.matmul(a, b) of two 2-d MXTensors (a [M, K], b [K, N], each blocked along its last
    dimension): bf16 output (uint16 bits) under acc "exact-f32" (the exact sum rounded to f32,
    then bf16; order-independent) or "fp32-sequential"."""
    _check_tensor(a, "a"), _check_tensor(b, "b")
    out, _ = _softmx.torchmx_matmul(a._t, b._t, name_arg(acc, "acc"))
    return out


def torchmx_linear(a: TorchmxTensor, w: TorchmxTensor, bias=None, *, acc: str = "exact-f32"):
    """torch.nn.functional.linear(a, w, bias): a [M, K] times w^T for w [N, K], plus an optional
    bf16 bias (uint16 bits, N values); bf16 output (uint16 bits)."""
    _check_tensor(a, "a"), _check_tensor(w, "w")
    bb = None if bias is None else _bf16_bits(bias, "bias").reshape(-1)
    out, _ = _softmx.torchmx_linear(a._t, w._t, bb, name_arg(acc, "acc"))
    return out


def _check_tensor(t, what):
    if not isinstance(t, TorchmxTensor):
        raise TypeError(f"{what} must be a TorchmxTensor (softmx.torchmx_to_mx), got {type(t).__name__}")


def _block(block_size):
    return int_arg(block_size, "block_size", lo=1, hi=MAX_BLOCK_SIZE)


def pychop_specs():
    """pychop's MX_FORMATS: {"mxfp8_e5m2": MXSpec, ...}."""
    return _softmx.pychop_named_specs()


def pychop_spec(exp_bits: int, sig_bits: int, block_size: int = 32, scale_exp_bits: int = 8, name: str = ""):
    """pychop's create_mx_spec(exp_bits, sig_bits, block_size, scale_exp_bits, name): an MXSpec
    (default name "CUSTOM_MX{1+e+s}_E{e}M{s}"). Integers (Python ints or numpy integer scalars)
    in the CLI's ranges: exp_bits 0..16, sig_bits 0..64, block_size 1..65536, scale_exp_bits
    1..8; ValueError outside them, TypeError for a float, str or bool."""
    return _softmx.pychop_custom_spec(int_arg(exp_bits, "exp_bits", lo=0, hi=16),
                                      int_arg(sig_bits, "sig_bits", lo=0, hi=64), _block(block_size),
                                      int_arg(scale_exp_bits, "scale_exp_bits", lo=1, hi=8), name_arg(name, "name"))


class PychopResult:
    """What pychop.mx_quantize returns (.values: float64 or float32 in the input's shape, the
    dtype NumPy's promotion gives) with the MX representation softmx derives: .spec (MXSpec),
    .element, .scales (E8M0 codes, one per block of the flattened, zero-padded array), .codes,
    .uncoded (flat indices whose value no element code carries: NaN into formats without NaN,
    MXINT8 -0), .flags, .num_blocks; .statistics() is MXTensor.statistics()."""

    def __init__(self, d):
        self.spec = d["spec"]
        self.element = d["element"]
        self.values = d["values"].view(np.float64 if d["value_format"] == "f64" else np.float32)
        self.scales, self.codes, self.uncoded = d["scales"], d["codes"], d["uncoded"]
        self.flags, self.num_blocks = int(d["flags"]), int(d["num_blocks"])
        self._statistics = d["statistics"]

    def statistics(self):
        return dict(self._statistics)

    def __repr__(self):
        return f"PychopResult(spec={self.spec!r}, shape={self.values.shape}, num_blocks={self.num_blocks})"


def pychop_mx_quantize(data, format="mxfp8_e4m3", block_size: int = 32, *, scale_exp_bits: Optional[int] = None,
                       scale_sig_bits: Optional[int] = None, backend: str = "numpy", numpy: str = "2"):
    """pychop.mx_quantize(data, format, block_size, scale_exp_bits, scale_sig_bits, backend) on a
    float64 or float32 array. format: a key of pychop_specs() (case-insensitive), an MXSpec, or
    an (exp_bits, sig_bits) tuple (or list) of integers, 0..16 and 0..64. block_size: 1..65536;
    scale_exp_bits: 1..8 or None; scale_sig_bits: 0..64 or None. numpy: "2" (NumPy >= 2
    promotion) or "1". Returns a PychopResult. ValueError for integers out of those ranges,
    TypeError for a float, str or bool in their place."""
    a = np.asarray(data)
    if a.dtype not in (np.float64, np.float32):
        raise TypeError(f"data must be a float64 or float32 array (pychop takes no bf16; float16 is not modelled), "
                        f"got dtype {a.dtype}")
    bits, src = as_codes(a, None, "data")
    sexp = int_arg(scale_exp_bits, "scale_exp_bits", optional=True, lo=1, hi=8)
    ssig = int_arg(scale_sig_bits, "scale_sig_bits", optional=True, lo=0, hi=64)
    if isinstance(format, (list, tuple)):
        if len(format) != 2:
            raise TypeError(f"format as a tuple is (exp_bits, sig_bits), got {len(format)} items")
        format = (int_arg(format[0], "format[0] (exp_bits)", lo=0, hi=16),
                  int_arg(format[1], "format[1] (sig_bits)", lo=0, hi=64))
    return PychopResult(_softmx.pychop_mx_quantize(bits, src, format, _block(block_size), sexp, ssig,
                                                   name_arg(backend, "backend"), name_arg(numpy, "numpy")))
