"""MX and NVFP4 tensors: quantize, MXArray, dequantize, fake_quantize, pack and unpack."""

from __future__ import annotations

import struct
from typing import Optional, Tuple

import numpy as np

from . import _softmx
from ._arrays import (_named_dtype, as_codes, as_random, as_values, check_out, float_arg, format_arg, host_target,
                      int_arg, name_arg, normalize_axis, storage_dtype, threads_arg)
from ._info import dialect_info, format_info

_NVFP4 = "nvfp4"

#: The largest block size (elements per block): the CLI's --block limit, 2**20.
MAX_BLOCK = 1 << 20


def _block_arg(block) -> Optional[int]:
    return int_arg(block, "block", optional=True, lo=1, hi=MAX_BLOCK)


def _f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def _f32_arg(value, what: str, exact: bool) -> int:
    """The f32 bits of a real number (a float or int): with `exact`, one that is an f32 value
    (NaN is not one); otherwise rounded to f32. ValueError naming `what` for a value beyond
    f32's range (or, with `exact`, not an f32 value); TypeError for a bool, str, ..."""
    v = float_arg(value, what)
    try:
        bits = _f32_bits(v)
    except OverflowError:
        raise ValueError(f"{what} must be an f32 value, got {value!r}") from None
    if exact and _f32_value(bits) != v:
        raise ValueError(f"{what} must be an f32 value, got {value!r}")
    return bits


def _f32_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class MXArray:
    """A tensor quantized into blocks along one axis: MX (E8M0 scales, or another scale format:
    ue4m3, ue5m3, bf16, f16, f32, ...) or NVFP4 (E4M3 scales and an f32 per-tensor scale). docs/BLOCKS.md is the
    specification.

    Attributes (read-only):
      codes    uint8 array of the data's shape: one element code per byte (low bits);
      scales   the block scales, row-major in the data's shape with the blocked axis shortened
               to ceil(n / block): codes of scale_format in its storage type (uint8 up to 8
               bits, uint16 for bf16 and f16, uint32 for f32); E4M3 codes (uint8) for NVFP4;
      shape, ndim, size; axis (non-negative), block (k);
      format   the element format's name ("e4m3"), or "nvfp4";
      element  the element format ("e2m1" for NVFP4);
      scale_format  the scales' format: "e8m0" (default), a spec such as "ue4m3", "ue5m3",
               "bf16" or "f32" (docs/BLOCKS.md 1.2), or "e4m3" for NVFP4;
      dialect  the dialect it was quantized under (dequantize uses its rules);
      flags    the OR of the exception flags raised while quantizing (0 when built from parts);
      encode_scale, global_amax  NVFP4's f32 per-tensor encode scale and amax (None for MX).

    Made by softmx.quantize, or from parts (codes and scales from a file or another tool):

        MXArray(scales, codes, "e4m3", axis=-1, block=32, dialect="ocp", scale_format="e8m0")
        MXArray(scales, codes, "nvfp4", axis=-1, encode_scale=..., global_amax=...)

    block: an integer from 1 to 2**20 (None: 32; nvfp4: 16, the only size); axis: an integer
    from -codes.ndim to codes.ndim - 1; encode_scale: an f32 value; global_amax: a number,
    rounded to f32. The parts are checked (shapes, code ranges) and copied: ValueError for values out of range,
    TypeError for arguments of the wrong type.
    """

    __slots__ = ("_scales", "_codes", "_format", "_element", "_axis", "_block", "_dialect", "_flags",
                 "_encode_scale", "_global_amax", "_scale_format", "_dtype")

    # numpy defers `ndarray @ q` (and the other binary operators) to MXArray's reflected
    # methods instead of multiplying np.asarray(q) in floats.
    __array_priority__ = 1000

    def __init__(self, scales, codes, format: str, *, axis: int = -1, block: Optional[int] = None,
                 dialect: str = "ocp", encode_scale: Optional[float] = None, global_amax: Optional[float] = None,
                 scale_format: Optional[str] = None):
        format = format_arg(format, "format")
        scale_format = format_arg(scale_format, "scale_format", True)
        self._dtype = None
        nvfp4 = format.lower() == _NVFP4
        element = "e2m1" if nvfp4 else format_info(format).name
        if not nvfp4 and not format_info(element).is_element:
            raise ValueError(f"format must be an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a "
                             f"runtime spec of at most 8 bits such as 'e1m2') or 'nvfp4', not {format!r}")
        c, _ = as_codes(codes, element, "codes")
        c = np.array(c, dtype=np.uint8, order="C", copy=True)
        block = _block_arg(block)
        if block is None:
            block = 16 if nvfp4 else 32
        if nvfp4 and block != 16:
            raise ValueError(f"nvfp4 blocks hold 16 elements, got block={block}")
        ax = normalize_axis(axis, c.ndim)
        if nvfp4 and scale_format is not None and format_info(scale_format).name != "e4m3":
            raise ValueError(f"nvfp4 scales are E4M3 by its recipe; scale_format={scale_format!r} does not apply")
        sfmt = "e4m3" if nvfp4 else _softmx.scale_format_name(scale_format or "e8m0")
        s, _ = as_codes(scales, sfmt, "scales")
        want = tuple(_softmx.scale_shape(list(c.shape), ax, block))
        if s.shape != want:
            raise ValueError(f"scales has shape {s.shape}; codes of shape {c.shape} blocked along axis {ax} in blocks "
                             f"of {block} need scales of shape {want}")
        _softmx.check_codes(c, element, "codes")
        if not nvfp4:
            _softmx.check_codes(s, sfmt, "scales")
        self._scales = _readonly(np.array(s, dtype=s.dtype, order="C", copy=True))
        self._codes = _readonly(c)
        self._format = _NVFP4 if nvfp4 else element
        self._element = element
        self._axis = ax
        self._block = block
        self._dialect = dialect_info(name_arg(dialect, "dialect")).name
        self._flags = 0
        self._scale_format = sfmt
        if nvfp4:
            if encode_scale is None:
                raise ValueError("an nvfp4 MXArray needs encode_scale= (the f32 per-tensor encode scale S_enc)")
            self._encode_scale = _f32_arg(encode_scale, "encode_scale", exact=True)
            self._global_amax = _f32_arg(global_amax, "global_amax", exact=False) if global_amax is not None else 0
        else:
            if encode_scale is not None or global_amax is not None:
                raise ValueError("encode_scale and global_amax belong to nvfp4 arrays only")
            self._encode_scale = None
            self._global_amax = None

    @classmethod
    def _make(cls, scales, codes, fmt, element, axis, block, dialect, flags, encode_scale=None, global_amax=None,
              scale_format="e8m0"):
        self = cls.__new__(cls)
        self._dtype = None
        self._scale_format = "e4m3" if fmt == _NVFP4 else scale_format
        self._scales = _readonly(scales)
        self._codes = _readonly(codes)
        self._format = fmt
        self._element = element
        self._axis = axis
        self._block = block
        self._dialect = dialect
        self._flags = flags
        self._encode_scale = encode_scale
        self._global_amax = global_amax
        return self

    codes = property(lambda self: self._codes)
    #: For a slice (q[1:3]): the flags of the array it was sliced from.
    scales = property(lambda self: self._scales)
    shape = property(lambda self: self._codes.shape)
    ndim = property(lambda self: self._codes.ndim)
    size = property(lambda self: self._codes.size)
    axis = property(lambda self: self._axis)
    block = property(lambda self: self._block)
    format = property(lambda self: self._format)
    element = property(lambda self: self._element)
    dialect = property(lambda self: self._dialect)
    flags = property(lambda self: self._flags)
    scale_format = property(lambda self: self._scale_format)

    @property
    def encode_scale(self) -> Optional[float]:
        return None if self._encode_scale is None else _f32_value(self._encode_scale)

    @property
    def global_amax(self) -> Optional[float]:
        return None if self._global_amax is None else _f32_value(self._global_amax)

    def __repr__(self) -> str:
        extra = f", encode_scale={self.encode_scale!r}" if self._format == _NVFP4 else ""
        if self._format != _NVFP4 and self._scale_format != "e8m0":
            extra = f", scale_format={self._scale_format!r}"
        return (f"MXArray(format={self._format!r}, shape={self.shape}, axis={self._axis}, block={self._block}, "
                f"dialect={self._dialect!r}{extra})")

    def dequantize(self, dtype=np.float32, *, round: Optional[str] = "rne", sat: Optional[str] = None,
                   tininess: str = "after", flags: bool = False, threads: Optional[int] = None,
                   nvfp4_dequantization: str = "exact", out=None):
        """The values: value(code) * 2^(scale - 127) for MX (value(code) * value(scale) for another
        scale_format), element * S_dec / S_enc for NVFP4,
        computed exactly and rounded once into `dtype` (docs/BLOCKS.md 2 and 6) under the array's
        dialect.

        dtype: numpy.float32 (default), float64, float16, or "bf16" (its uint16 bits). f32 and f64
            hold every MX value exactly; f16 and bf16 round (round, sat, tininess as in
            softmx.convert; sat=None is the dialect's default for the destination).
        flags: also return the OR of the flags (an int).
        nvfp4_dequantization: NVFP4 only: "exact" (one rounding of element * S_dec / S_enc) or
            "te-kernel" (TransformerEngine's dequantize kernel: f32 steps through global_amax /
            2688, rne, overflow to Inf; dtype f32, f16 or bf16; round and sat do not apply).
        out: numpy's out=: a C-contiguous, writeable array of the result's dtype (float32,
            float64, float16; uint16 for "bf16") and the array's shape, written in place by the
            library and returned (TypeError for another dtype, ValueError otherwise).
        """
        dst = host_target(dtype)
        dest = out
        if dest is not None:
            dest = check_out(dest, self.shape, as_values(np.empty(0, storage_dtype(dst)), dst).dtype)
            out_codes = dest.view(storage_dtype(dst))
        else:
            out_codes = None
        if self._format == _NVFP4:
            out, fl = _softmx.dequantize_nvfp4(self._scales, self._codes, self._axis, self._encode_scale,
                                               self._global_amax, dst, name_arg(round, "round", True),
                                               name_arg(sat, "sat", True), name_arg(tininess, "tininess"),
                                               name_arg(nvfp4_dequantization, "nvfp4_dequantization"),
                                               **({"out": out_codes} if out_codes is not None else {}))
        else:
            if nvfp4_dequantization != "exact":
                raise ValueError("nvfp4_dequantization applies to nvfp4 arrays only")
            out, fl = _softmx.dequantize(self._scales, self._codes, self._element, self._axis, self._block, dst,
                                         name_arg(round, "round", True), name_arg(sat, "sat", True),
                                         name_arg(tininess, "tininess"), self._dialect, threads_arg(threads),
                                         self._scale_format, **({"out": out_codes} if out_codes is not None else {}))
        values = as_values(out, dst) if dest is None else dest
        return (values, fl) if flags else values

    # ---- numpy protocol (issue 29): the array of its values, len, slices, @ ----

    @property
    def dtype(self) -> np.dtype:
        """The dtype numpy.asarray(q) gives: float32 when the library dequantizes every element
        into float32 exactly (no inexact flag: the usual case), float64 otherwise (an element
        times its scale beyond float32's range or precision: every MX value is exact in
        float64; nvfp4's division by the tensor scale may round even there, once). Computed
        once, by one dequantization, and kept (the array is immutable)."""
        if self._dtype is None:
            self._values()
        return self._dtype

    def _values(self, keep: bool = False) -> Optional[np.ndarray]:
        """The exact values (float32 or float64, see dtype); sets _dtype."""
        if self._dtype is None or self._dtype == np.float32:
            v, fl = self.dequantize(np.float32, flags=True)
            if not fl & 0x01:  # INEXACT: every element is exactly a float32
                self._dtype = np.dtype(np.float32)
                return v
        self._dtype = np.dtype(np.float64)
        return self.dequantize(np.float64)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """numpy.asarray(q), numpy.array(q, dtype): the dequantized values (q.dequantize), a new
        array each call. dtype None: q.dtype (exact); numpy.float32/float64/float16 (or
        ml_dtypes' bfloat16 when installed): dequantized into it by the library, rounded once
        under the array's dialect; any other dtype: numpy's cast of the exact values. copy=False
        raises ValueError (the values are computed, never a view)."""
        if copy is False:
            raise ValueError("numpy.asarray(MXArray, copy=False): an MXArray's values are computed from its codes "
                             "and scales, so they cannot be given without making a new array")
        if dtype is None:
            return self._values()
        dt = np.dtype(dtype)
        if dt in (np.float16, np.float32, np.float64):
            return self.dequantize(dt)
        name = _named_dtype(dt)
        if name is not None and name == "bf16":
            return self.dequantize("bf16").view(dt)
        return self._values().astype(dt)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key) -> "MXArray":
        """q[i], q[1:3], q[:, ::2], q[..., 0]: integers and slices along the unblocked axes
        give an MXArray of the same blocks (codes and scales selected alike; the blocked axis is
        renumbered when an integer removes an axis before it). Along the blocked axis only a
        slice of whole blocks: ':' or start and stop at block boundaries (stop may be the
        axis's end), step 1. IndexError otherwise, saying why; q.dequantize()[...] or
        numpy.asarray(q)[...] indexes the values."""
        full = self._full_key(key)
        scale_key = []
        axis = self._axis
        for i, k in enumerate(full):
            if i != self._axis:
                scale_key.append(k)
                if isinstance(k, (int, np.integer)) and i < self._axis:
                    axis -= 1
                continue
            n = self.shape[i]
            if not isinstance(k, slice):
                raise IndexError(f"MXArray: axis {i} is the blocked axis (blocks of {self._block} elements share one "
                                 f"scale): an integer index there takes one element out of its block, which is no "
                                 f"MXArray; index the other axes, slice whole blocks, or index the values "
                                 f"(numpy.asarray(q)[...])")
            start, stop, step = k.indices(n)
            if (start, stop, step) == (0, n, 1):
                scale_key.append(slice(None))
                continue
            if step != 1 or start % self._block or (stop % self._block and stop != n) or stop < start:
                raise IndexError(f"MXArray: a slice {start}:{stop}:{step} of the blocked axis {i} does not select "
                                 f"whole blocks of {self._block} (start and stop must be multiples of the block size, "
                                 f"or stop the axis's end {n}, step 1); index the values (numpy.asarray(q)[...]) "
                                 f"instead")
            scale_key.append(slice(start // self._block, -(-stop // self._block)))
        codes = np.ascontiguousarray(self._codes[tuple(full)])
        scales = np.ascontiguousarray(self._scales[tuple(scale_key)])
        return MXArray._make(scales, codes, self._format, self._element, axis, self._block, self._dialect,
                             self._flags, self._encode_scale, self._global_amax, self._scale_format)

    def _full_key(self, key) -> tuple:
        """The index as one entry per axis: Ellipsis expanded, missing axes ':'; IndexError for
        anything but integers, slices and one Ellipsis."""
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if k is Ellipsis or isinstance(k, slice):
                continue
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
                raise IndexError(f"MXArray indices are integers, slices and '...' (the array stays blocked), got "
                                 f"{type(k).__name__}; index the values (numpy.asarray(q)[...]) for fancy indexing")
        n_ell = sum(k is Ellipsis for k in key)
        if n_ell > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if len(key) - n_ell > self.ndim:
            raise IndexError(f"too many indices for an MXArray: it is {self.ndim}-dimensional, but "
                             f"{len(key) - n_ell} were indexed")
        if n_ell:
            pos = next(i for i, k in enumerate(key) if k is Ellipsis)
            key = key[:pos] + (slice(None),) * (self.ndim - len(key) + 1) + key[pos + 1:]
        key = key + (slice(None),) * (self.ndim - len(key))
        for i, k in enumerate(key):
            if isinstance(k, (int, np.integer)) and not -self.shape[i] <= k < self.shape[i]:
                raise IndexError(f"index {int(k)} is out of bounds for axis {i} with size {self.shape[i]}")
        return key

    def __matmul__(self, other):
        """q @ r: softmx.matmul(q, r) with its defaults (acc="exact": every output the exact sum
        rounded once into float32). Both operands MXArrays (TypeError otherwise)."""
        if not isinstance(other, MXArray):
            raise _matmul_operand_error(other)
        from ._dot import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):
        raise _matmul_operand_error(other)

    def packed(self) -> np.ndarray:
        """The element codes in the packed byte layout of docs/BLOCKS.md 4, row by row along the
        last axis: FP4 (e2m1, nvfp4) two codes per byte, element 2i in the low nibble; FP6 (e3m2,
        e2m3) four codes per three bytes, least significant bit first; 8-bit formats one per
        byte; any other width w (runtime elements: e1m1 3 bits, e2m2 5, e3m3 7) the same LSB-first
        stream, ceil(w * n / 8) bytes per row of n. Shape: shape[:-1] + (bytes per row,), each row padded with zero bits (an odd FP4
        row leaves its last high nibble 0). softmx.unpack reverses it."""
        return _softmx.pack(self._codes, self._element)


def _matmul_operand_error(other) -> TypeError:
    return TypeError(f"MXArray @ takes two MXArrays (softmx.matmul: the exact MX product), got "
                     f"{type(other).__name__}; quantize it first (softmx.quantize(b, fmt, axis=0) for the right "
                     f"operand), or multiply the values with numpy (numpy.asarray(q) @ b)")


def quantize(x, to: str, *, block: Optional[int] = None, axis: int = -1, scale: Optional[str] = None,
             dialect: str = "ocp", round: Optional[str] = None, sat: Optional[str] = None, tininess: str = "after",
             rbits: Optional[int] = None, random=None, src: Optional[str] = None,
             global_amax: Optional[float] = None, nvfp4_multiplier: str = "reciprocal-product",
             nvfp4_stochastic: str = "rs", threads: Optional[int] = None,
             scale_format: Optional[str] = None) -> MXArray:
    """Quantizes `x` into MX blocks along `axis` (OCP MX v1.0; docs/BLOCKS.md 1 and 3).

    x: float64, float32 or float16 data, or bf16 as uint16 bits with src="bf16" (any array
        numpy.asarray takes; never modified, read in place when C-contiguous).
    to: the element format: "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8" (or aliases such as
        "float8_e4m3fn", "fp4", "mxint8"); any runtime spec of at most 8 bits that can be an
        element (docs/BLOCKS.md 1.1: "e1m2", "e2m2", "e3m4", "e4m3fnuz", "e5m2fnuz", "int4",
        "e4m3:bias=11:specials=fnuz", ...; E8M0 scales, emax from the spec); or "nvfp4" (E2M1
        in blocks of 16 with E4M3 scales and an f32 tensor scale, as TransformerEngine computes
        it; docs/BLOCKS.md 6).
    block: elements per block, an integer from 1 to 2**20 (the CLI's limit); None: 32 (nvfp4:
        16, the only size).
    axis: the blocked axis (default -1, the last). A last partial block is quantized as if
        padded with zeros.
    scale: the shared-scale rule, "floor" (OCP), "ceil", "even", "rceil"; None: the dialect's.
    dialect: "ocp" (default) or another dialect that quantizes blocks (softmx.dialects()).
    round, sat, tininess: the element conversions; None: the dialect's block defaults (ocp:
        rne, finite), as `softmx quantize` without --round/--sat. nvfp4: rne or rs, satfinite.
    rbits, random: round="rs" only, as in softmx.convert (rbits an integer from 1 to 64; one
        random value per element).
    global_amax, nvfp4_multiplier, nvfp4_stochastic: nvfp4 only: the tensor's f32 amax if known
        (a float or int that is an f32 value; else computed); TransformerEngine's multiplier
        form ("reciprocal-product", every current kernel, or "division", a deleted one); with
        round="rs", "rs" (softmx's stochastic rounding with rbits random bits, a model of
        cvt.rs) or "software" (TE's software fallback, the low 8 bits of each random value).
    threads: worker threads, an integer from 1 to 1024; None uses every core. The result does
        not depend on it.
    scale_format: the block scales' format (docs/BLOCKS.md 1.2): None or "e8m0" (OCP's power of
        two, the scale rules above), or a float spec of at most 32 bits: "ue4m3" (NVFP4's scale
        format), "ue5m3", "e4m3" (positive codes only), "bf16", "f16", "f32" (TransformerEngine's
        scale types; the scales come back as uint16 or uint32 codes), ... Then the scale is amax / max_E rounded
        to nearest (saturating) into it, each element x / scale rounded once; scale= must be
        None and the dialect must scale exactly (ValueError otherwise). Not for nvfp4.

    Integer arguments take Python ints or numpy integer scalars: ValueError outside the ranges
    above, TypeError for a bool, float or str.

    Returns an MXArray (its .flags: the OR of the element flags).
    """
    codes, src_name = as_codes(x, src)
    if not format_info(src_name).is_host:
        raise ValueError(f"quantize takes f64, f32, f16 or bf16 data, not {src_name} codes")
    to = format_arg(to, "to")
    ax = normalize_axis(axis, codes.ndim)
    block = _block_arg(block)
    rbits = int_arg(rbits, "rbits", optional=True, lo=1, hi=64)
    rnd = None if random is None else as_random(random, codes.shape)
    if to.lower() == _NVFP4:
        if block is not None and block != 16:
            raise ValueError(f"nvfp4 blocks hold 16 elements, got block={block}")
        if scale is not None:
            raise ValueError("nvfp4 has its own scale computation (E4M3 block scales); scale= does not apply")
        if sat is not None and sat not in ("finite", "satfinite", "sat"):
            raise ValueError("nvfp4 elements are converted with satfinite; sat='none' does not apply")
        if dialect != "ocp":
            raise ValueError("nvfp4 follows TransformerEngine's arithmetic; dialect= does not apply")
        if scale_format is not None:
            raise ValueError("nvfp4 has its own scale format (E4M3 by its recipe); scale_format= does not apply")
        ga = float_arg(global_amax, "global_amax", optional=True)
        s, c, amax_bits, enc_bits, fl = _softmx.quantize_nvfp4(codes, src_name, ax, name_arg(round, "round", True),
                                                                rbits, rnd, ga,
                                                                name_arg(nvfp4_multiplier, "nvfp4_multiplier"),
                                                                name_arg(nvfp4_stochastic, "nvfp4_stochastic"))
        return MXArray._make(s, c, _NVFP4, "e2m1", ax, 16, "ocp", int(fl), enc_bits, amax_bits)
    if global_amax is not None or nvfp4_multiplier != "reciprocal-product" or nvfp4_stochastic != "rs":
        raise ValueError("global_amax, nvfp4_multiplier and nvfp4_stochastic apply to to='nvfp4' only")
    if block is None:
        block = 32
    element = format_info(to).name
    sfmt = _softmx.scale_format_name(format_arg(scale_format, "scale_format", True) or "e8m0")
    s, c, fl = _softmx.quantize(codes, src_name, to, ax, block, name_arg(scale, "scale", True),
                                name_arg(round, "round", True), name_arg(sat, "sat", True),
                                name_arg(tininess, "tininess"), name_arg(dialect, "dialect"), rbits, rnd,
                                threads_arg(threads), sfmt)
    return MXArray._make(s, c, element, element, ax, block, dialect_info(dialect).name, int(fl), scale_format=sfmt)


def fake_quantize(x, to: str, *, dtype=None, **options):
    """quantize(x, to, **options).dequantize(dtype): the values x takes after a round trip
    through the MX format, what pychop's mx_quantize and torchmx's to_mx(...).to_dtype(...)
    return.

    dtype: the result's type; None: x's own (float64, float32, float16; bf16 uint16 bits when x
    is bf16 codes with src="bf16").
    """
    q = quantize(x, to, **options)
    if dtype is None:
        _, src_name = as_codes(x, options.get("src"))
        dtype = src_name
    return q.dequantize(dtype)


def dequantize(q: MXArray, dtype=np.float32, **options):
    """q.dequantize(dtype, **options)."""
    if not isinstance(q, MXArray):
        raise TypeError(f"dequantize takes an MXArray (from softmx.quantize), got {type(q).__name__}")
    return q.dequantize(dtype, **options)


def pack(codes, format: str) -> np.ndarray:
    """Packs element codes (uint8, one per byte) row by row along the last axis into the byte
    layout of docs/BLOCKS.md 4 (see MXArray.packed)."""
    format = format_arg(format, "format")
    if format_info(format).storage_bytes != 1:
        raise ValueError(f"pack packs codes of at most 8 bits, not {format!r} codes")
    c, name = as_codes(codes, format, "codes")
    if c.ndim == 0:
        raise ValueError("pack needs an array of at least one dimension")
    return _softmx.pack(c, name)


def unpack(packed, format: str, count: int) -> np.ndarray:
    """The inverse of pack: each row of packed bytes along the last axis holds `count` codes.

    packed: uint8, at least one dimension. format: an element format of at most 8 bits (w
    bits). count: an integer from 0 to 8 * B // w, B the bytes per row (packed.shape[-1]: the
    most codes B bytes can hold). ValueError when count is out of that range or the rows do not
    have the packed size of `count` codes; TypeError for a count that is not an integer."""
    p = np.asarray(packed)
    if p.dtype != np.uint8:
        raise TypeError(f"packed: expected uint8 bytes, got dtype {p.dtype}")
    format = format_arg(format, "format")
    info = format_info(format)
    if info.storage_bytes != 1:
        raise ValueError(f"unpack unpacks codes of at most 8 bits, not {format!r} codes")
    if p.ndim == 0:
        raise ValueError("unpack needs an array of at least one dimension")
    row = p.shape[-1]
    count = int_arg(count, "count", lo=0, hi=8 * row // info.width,
                    expected=f"an integer from 0 to {8 * row // info.width} (the most {info.name} codes a row of "
                             f"{row} bytes holds)")
    return _softmx.unpack(np.asarray(p, order="C"), format, count)
