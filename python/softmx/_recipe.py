"""TransformerEngine's quantization recipes: recipe() and recipes() (docs/RECIPES.md)."""

from __future__ import annotations

import struct
from typing import List, NamedTuple, Optional, Tuple

import numpy as np

from . import _softmx
from ._arrays import as_codes, as_values, host_target, int_arg, name_arg


def _f32_bits(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a float (the f32 value), got {type(v).__name__}")
    try:
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    except OverflowError:
        raise ValueError(f"{what} {v!r} does not fit in f32") from None


def _f32_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _bool_arg(v, what: str) -> Optional[bool]:
    if v is None or isinstance(v, bool):
        return v
    raise TypeError(f"{what} must be True, False or None (the recipe's default), got {type(v).__name__}")


def _random_arg(r, what: str) -> Optional[np.ndarray]:
    if r is None:
        return None
    a = np.asarray(r)
    if a.dtype.kind not in "ui":
        raise TypeError(f"{what}: expected unsigned integers (one random value per element of the output), got dtype {a.dtype}")
    if a.dtype.kind == "i" and a.size and int(a.min()) < 0:
        raise ValueError(f"{what}: random values must be non-negative, got {int(a.min())}")
    return np.ascontiguousarray(a, dtype=np.uint64)


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class RecipeInfo(NamedTuple):
    """A recipe softmx models: its name, TE's class, a one-line summary, the TE sources."""
    name: str
    te_name: str
    summary: str
    sources: str


class RecipeOutput:
    """One output (rowwise or columnwise) of a recipe quantization (softmx::RecipeOutput).

    Attributes (arrays are read-only):
      rows, cols      the data matrix as TE stores it (columnwise: [K, M] for te-fp8-current,
                      te-fp8-block and te-nvfp4; [M, K] for te-mxfp8);
      element         'e4m3', 'e5m2' or 'e2m1'; codes: uint8 (rows, cols);
      block           (block_rows, block_cols) one scale covers;
      scale_format    'f32' (scale_inv bits, uint32), 'e8m0' or 'e4m3' (uint8);
      scales          (scale_rows, scale_cols) codes as TE stores them;
      multipliers     uint32 f32 bits, one per scale: what each block was multiplied by;
      amax, tensor_scale, tensor_scale_inv   f32 values (and *_bits: their bits);
      rht_input       uint16 bf16 bits of RHT(x^T) (columnwise NVFP4 with RHT), else None;
      flags           the OR of the element conversions' flags;
      te_scales       the scales as TE allocates its compact tensor (transposed where TE
                      transposes, padded to its multiples with 0; docs/RECIPES.md 6);
      swizzled_scales te-mxfp8, te-nvfp4: uint8 (1, n), the cuBLAS 128x4 swizzled layout; else None;
      dequantized     with recipe(..., dequantize=DTYPE): TE's dequantization (float32, float16,
                      or bf16 bits as uint16), shape (rows, cols); else None.
    """

    __slots__ = ("rows", "cols", "element", "codes", "block", "scale_format", "scales", "multipliers", "amax_bits",
                 "tensor_scale_bits", "tensor_scale_inv_bits", "rht_input", "flags", "te_scales", "swizzled_scales",
                 "dequantized")

    def __init__(self, d: dict, dequantize: Optional[str] = None):
        self.rows = d["rows"]
        self.cols = d["cols"]
        self.element = d["element"]
        self.codes = _ro(d["codes"])
        self.block = tuple(d["block"])
        self.scale_format = d["scale_format"]
        self.scales = _ro(d["scales"])
        self.multipliers = _ro(d["multipliers"])
        self.amax_bits = d["amax"]
        self.tensor_scale_bits = d["tensor_scale"]
        self.tensor_scale_inv_bits = d["tensor_scale_inv"]
        r = d.get("rht_input")
        self.rht_input = _ro(r) if r is not None else None
        self.flags = d["flags"]
        self.te_scales = _ro(d["te_scales"])
        sw = d.get("swizzled_scales")
        self.swizzled_scales = _ro(sw) if sw is not None else None
        dq = d.get("dequantized")
        self.dequantized = _ro(as_values(dq, dequantize)) if dq is not None else None

    @property
    def amax(self) -> float:
        return _f32_value(self.amax_bits)

    @property
    def tensor_scale(self) -> float:
        return _f32_value(self.tensor_scale_bits)

    @property
    def tensor_scale_inv(self) -> float:
        return _f32_value(self.tensor_scale_inv_bits)

    def __repr__(self) -> str:
        return (f"RecipeOutput({self.rows}x{self.cols} {self.element}, block {self.block[0]}x{self.block[1]}, "
                f"scales {self.scale_format} {self.scales.shape}, amax={self.amax!r})")


class RecipeResult:
    """A recipe quantization: the settings it resolved and its two outputs (None where not made).

    Attributes: recipe, impl, role, source, rows, cols (M, K), element, power_2_scale, tiles_2d,
    random_hadamard, stochastic_rounding, dialect (te-mxfp8's; else None), rowwise, columnwise
    (RecipeOutput or None).
    """

    __slots__ = ("recipe", "impl", "role", "source", "rows", "cols", "element", "power_2_scale", "tiles_2d",
                 "random_hadamard", "stochastic_rounding", "dialect", "rowwise", "columnwise")

    def __init__(self, d: dict, dequantize: Optional[str] = None):
        for k in ("recipe", "impl", "role", "source", "rows", "cols", "element", "power_2_scale", "tiles_2d",
                  "random_hadamard", "stochastic_rounding", "dialect"):
            setattr(self, k, d[k])
        self.rowwise = RecipeOutput(d["rowwise"], dequantize) if d["rowwise"] is not None else None
        self.columnwise = RecipeOutput(d["columnwise"], dequantize) if d["columnwise"] is not None else None

    def __repr__(self) -> str:
        return (f"RecipeResult({self.recipe}, {self.impl}, role={self.role}, {self.rows}x{self.cols} {self.source} -> "
                f"{self.element}, rowwise={self.rowwise is not None}, columnwise={self.columnwise is not None})")


def recipes() -> List[RecipeInfo]:
    """TransformerEngine's recipes softmx models (te-fp8-current, te-fp8-block, te-mxfp8, te-nvfp4)."""
    return [RecipeInfo(*r) for r in _softmx.recipes()]


def recipe_test_input(shape, src: str = "f32", seed: int = 1) -> np.ndarray:
    """The library's deterministic test tensor for the recipes (softmx::recipe_test_input, what
    `softmx recipe --seed S` quantizes and the committed sets under vectors/recipes/ hold):
    finite values, a new base binade every 16 values (2^-7 .. 2^12), up to 7 binades below it,
    about one in 41 a signed zero, from SplitMix64(seed). src: 'f32' (a float32 array), 'f16'
    (float16) or 'bf16' (the bits as uint16, for recipe(..., src='bf16')); shape: an int or a
    tuple of ints, each from 1 to 999999999 and at most 2**28 values in all (the CLI's
    --shape limits), filled row-major; seed: an integer from 0 to 2**64 - 1. Python ints or
    numpy integer scalars: ValueError out of range, TypeError for a float, str or bool."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {type(shape).__name__}") from None
    if not dims:
        raise ValueError("shape must have positive dimensions, got ()")
    positive = f"a positive dimension, an integer from 1 to {_MAX_DIM}"
    shape = tuple(int_arg(d, f"shape[{i}]", lo=1, hi=_MAX_DIM, expected=positive) for i, d in enumerate(dims))
    n = 1
    for d in shape:
        n *= d
    if n > _MAX_VALUES:
        raise ValueError(f"shape {shape} holds {n} values; recipe_test_input makes at most 2**28 ({_MAX_VALUES})")
    seed = int_arg(seed, "seed", lo=0, hi=(1 << 64) - 1)
    src = name_arg(src, "src")
    v = _softmx.recipe_test_input(src, n, seed).reshape(shape)
    if v.dtype == np.uint32:
        return v.view(np.float32)
    return v if src.lower() in ("bf16", "bfloat16") else v.view(np.float16)


_OUTPUTS = {"both": (True, True), "rowwise": (True, False), "columnwise": (False, True)}

#: recipe_test_input's limits, the CLI's for --shape: each dimension 1..999999999, at most 2**28 values.
_MAX_DIM = 999_999_999
_MAX_VALUES = 1 << 28


def recipe(name: str, x, *, src: Optional[str] = None, role: str = "input", impl: str = "kernel",
           outputs: str = "both", fp8_format: Optional[str] = None, power_2_scale: Optional[bool] = None,
           amax_epsilon: float = 0.0, amax: Optional[float] = None, rht_amax: Optional[float] = None,
           tiles_2d: Optional[bool] = None, dialect: Optional[str] = None, random_hadamard: Optional[bool] = None,
           rht_signs: Optional[int] = None, stochastic_rounding: Optional[bool] = None,
           stochastic_form: Optional[str] = None, rbits: Optional[int] = None, random_rowwise=None, random_columnwise=None, dequantize=None) -> RecipeResult:
    """Quantizes `x` with TransformerEngine's recipe `name` (docs/RECIPES.md), both outputs from
    one call, bit for bit as TE at d0067d0 (softmx::quantize_recipe).

    x: float32 or float16 array, or bf16 bits as uint16 with src='bf16' (an N-d array is
    flattened to M x K as TE does; the recipe may require M and K multiples of 32 or 16). Never
    modified. Options are TE's knobs, None meaning the recipe's and the role's default:
      role             'input', 'weight' or 'gradient';
      impl             'kernel' (TE's CUDA kernels), 'reference' or 'custom-reference' (its
                       Python references, which differ on special values);
      outputs          'both', 'rowwise' or 'columnwise';
      fp8_format       'e4m3' or 'hybrid' (FP8 recipes, te-mxfp8);
      power_2_scale, amax_epsilon   FP8 current and block scaling;
      amax, rht_amax   f32 values replacing the computed tensor amax (te-fp8-current, te-nvfp4);
      tiles_2d         te-fp8-block 128x128, te-nvfp4 16x16;
      dialect          te-mxfp8: 'transformer-engine' or 'transformer-engine-2025';
      random_hadamard, rht_signs (16-bit mask, 0 to 0xFFFF, bit i set where sign i is -1;
                       None: TE's 0xD7E8), stochastic_rounding, stochastic_form ('software',
                       the default, or 'rs'), rbits (rs's width, an integer from 1 to 64,
                       default 8): te-nvfp4; each refused where the resolved settings would
                       not read it (RHT or stochastic rounding off);
      random_rowwise, random_columnwise   stochastic rounding: one unsigned value per element of
                       that output (row-major in its shape), below 2^8 (software) or 2^rbits;
      dequantize       numpy.float32, numpy.float16 or 'bf16' (or 'f32', 'f16'): each output's
                       .dequantized is TE's dequantization (softmx::dequantize_recipe).
    ValueError for an unknown name or an option the recipe refuses (the library's message);
    TypeError for wrong types.
    """
    name = name_arg(name, "name")
    codes, fmt = as_codes(x, src)
    out = _OUTPUTS.get(name_arg(outputs, "outputs"))
    if out is None:
        raise ValueError(f"outputs: expected 'both', 'rowwise' or 'columnwise', got {outputs!r}")
    rs = int_arg(rht_signs, "rht_signs", optional=True)
    if rs is not None and not 0 <= rs <= 0xFFFF:
        raise ValueError(f"rht_signs is a 16-bit mask (0 to 0xFFFF), got {rs}")
    dq = None if dequantize is None else host_target(dequantize)
    d = _softmx.recipe_quantize(
        name, codes, fmt, name_arg(role, "role"), name_arg(impl, "impl"), out[0], out[1],
        name_arg(fp8_format, "fp8_format", optional=True), _bool_arg(power_2_scale, "power_2_scale"),
        _f32_bits(amax_epsilon, "amax_epsilon"), None if amax is None else _f32_bits(amax, "amax"),
        None if rht_amax is None else _f32_bits(rht_amax, "rht_amax"), _bool_arg(tiles_2d, "tiles_2d"),
        name_arg(dialect, "dialect", optional=True), _bool_arg(random_hadamard, "random_hadamard"), rs,
        _bool_arg(stochastic_rounding, "stochastic_rounding"), name_arg(stochastic_form, "stochastic_form", optional=True),
        int_arg(rbits, "rbits", optional=True, lo=1, hi=64), _random_arg(random_rowwise, "random_rowwise"),
        _random_arg(random_columnwise, "random_columnwise"), dq)
    return RecipeResult(d, dq)
