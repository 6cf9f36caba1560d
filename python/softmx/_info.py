"""Formats, dialects and the other names softmx accepts (the library's own tables)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Dict, List, Optional, Tuple

from . import _softmx


@dataclasses.dataclass(frozen=True)
class FormatInfo:
    """A number format as the library describes it (include/softmx/format.hpp).

    name: canonical name ("e4m3"); width: bits per code; exp_bits, man_bits, bias: the fields;
    sign: "sign-magnitude", "twos-complement" (int8) or "unsigned" (e8m0); specials: "inf-nan"
    (IEEE), "nan-only" (e4m3, e8m0) or "none"; subnormals; has_inf, has_nan; emin: the exponent
    of the smallest normal; max_finite_code: the largest finite magnitude code; max_finite,
    min_normal, min_subnormal: those values as floats (None where the format has none);
    storage_bytes: bytes of the unsigned integer that holds one code in arrays (1, 2, 4, 8);
    is_element: an MX element format; is_host: f64, f32, f16 or bf16; aliases: its other names
    ("float8_e3m4" for e3m4); listed: one of softmx.formats() (False for a runtime format no
    name names, such as "e4m4"); nearest: for an unlisted one, the nearest listed format's spec
    (None when listed). str() is `softmx formats SPEC`'s text for the spec as written.
    """

    name: str
    width: int
    exp_bits: int
    man_bits: int
    bias: int
    sign: str
    specials: str
    subnormals: bool
    has_inf: bool
    has_nan: bool
    emin: int
    max_finite_code: int
    max_finite: float
    min_normal: Optional[float]
    min_subnormal: Optional[float]
    storage_bytes: int
    is_element: bool
    is_host: bool
    aliases: Tuple[str, ...] = ()
    listed: bool = True
    nearest: Optional[str] = None
    description: str = dataclasses.field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        return self.description

    @property
    def code_mask(self) -> int:
        """The bits a code may use: 2**width - 1."""
        return (1 << self.width) - 1


@dataclasses.dataclass(frozen=True)
class DialectInfo:
    """A dialect: a named bundle of the policies where implementations differ (docs/DIALECTS.md).

    name, summary, sources; blocks: whether it quantizes blocks (blocks_unsupported_reason says
    why not); scale_rule, element_rounding, element_saturation: its block defaults;
    destinations: per format name, the roundings and saturations it accepts and its defaults
    (what round=None and sat=None mean in convert); policies: every other policy by name.
    """

    name: str
    summary: str
    sources: str
    blocks: bool
    blocks_unsupported_reason: Optional[str]
    scale_rule: str
    element_rounding: str
    element_saturation: str
    destinations: Dict[str, Dict[str, Any]]
    policies: Dict[str, str]


def format_info(name) -> FormatInfo:
    """The format called `name` (canonical names and aliases such as "float8_e4m3fn", "fp4",
    "bfloat16", case-insensitive: the library's own lookup), or a numpy dtype that is one
    (numpy.float16 is f16; ml_dtypes' types when it is installed). ValueError for an unknown
    name, TypeError for anything else."""
    if not isinstance(name, str):
        from ._arrays import format_arg  # _arrays imports this module
        name = format_arg(name, "format")
    return _format_info(name)


@functools.lru_cache(maxsize=None)
def _format_info(name: str) -> FormatInfo:
    return FormatInfo(**_softmx.format_info(name))


#: Raised (as a warning) when a format spec names no listed format and is read as a runtime
#: format: a typo such as "e4m4" for e4m3 is a valid 9-bit format. The message names the format
#: read and the nearest listed one (the same line as the CLI's note). A UserWarning; silence it
#: with warnings.filterwarnings("ignore", category=softmx.RuntimeFormatWarning).
RuntimeFormatWarning = _softmx.RuntimeFormatWarning


class Formats(list):
    """The rows of formats(): a FormatInfo per listed format (the 11 named formats, then the
    runtime formats with a name: e1m2, e3m4, e4m3fnuz, ...). aliases: {alias: the spec it reads
    as}; grammar: (form, meaning, examples) per form of the spec grammar; str() is `softmx
    formats`' text (the table, the aliases and the grammar)."""

    def __init__(self, rows, aliases: Dict[str, str], grammar: List[Tuple[str, str, str]], text: str):
        super().__init__(rows)
        self.aliases = aliases
        self.grammar = grammar
        self._text = text

    def __str__(self) -> str:
        return self._text


def formats(spec: Optional[str] = None):
    """The formats a user can name, as `softmx formats` lists them (the library's catalog,
    include/softmx/format_catalog.hpp): a Formats list of FormatInfo (the 11 named formats in
    the library's order f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0, then the runtime
    formats with a name), with .aliases and .grammar; str() is the CLI's text.

    spec: one format instead, as `softmx formats SPEC`: its FormatInfo (format_info(spec)),
    whose str() is that command's text. ValueError for a spec the library refuses (the message
    names the field), TypeError for a non-str."""
    if spec is not None:
        return format_info(spec)
    return Formats([FormatInfo(**d) for d in _softmx.formats()], dict(_softmx.format_aliases()),
                   [tuple(g) for g in _softmx.format_spec_forms()], _softmx.format_listing())


_DIALECT_FIELDS = ("name", "summary", "sources", "blocks", "blocks_unsupported_reason", "scale_rule",
                   "element_rounding", "element_saturation", "destinations")


def _dialect(d: Dict[str, Any]) -> DialectInfo:
    main = {k: d[k] for k in _DIALECT_FIELDS}
    return DialectInfo(**main, policies={k: v for k, v in d.items() if k not in _DIALECT_FIELDS})


@functools.lru_cache(maxsize=None)
def dialect_info(name: str) -> DialectInfo:
    """The dialect called `name` (case-insensitive). ValueError for an unknown name."""
    if not isinstance(name, str):
        raise TypeError(f"a dialect name must be a str, got {type(name).__name__}")
    return _dialect(_softmx.dialect_info(name))


def dialects() -> List[DialectInfo]:
    """Every built-in dialect, ocp first."""
    return [_dialect(d) for d in _softmx.dialects()]


def accumulation_models() -> List[str]:
    """The names `acc=` accepts: "exact", "fp32-sequential" and the tensor-core models (their
    aliases too: which model your GPU's instruction is, tensor_core_instructions() says)."""
    return list(_softmx.accumulation_models())


@dataclasses.dataclass(frozen=True)
class TensorCoreInstruction:
    """One instruction a user runs and the model that computes it (`softmx models`;
    include/softmx/tensor_core_instructions.hpp): arch ("sm_90"), gpus, instruction (PTX),
    elements, scales (block scales, "none"), accumulator (C and D), model (the name `acc=` and
    `model=` take), alias (a name for the model by instruction, taken there too), confirmed (a
    hardware capture reproduced by the model) and evidence (which captures, or which simulator)."""

    arch: str
    gpus: str
    instruction: str
    elements: str
    scales: str
    accumulator: str
    model: str
    alias: str
    confirmed: bool
    evidence: str


class TensorCoreInstructions(list):
    """The rows of tensor_core_instructions(); str() is `softmx models`' table."""

    def __init__(self, rows, text: str):
        super().__init__(rows)
        self._text = text

    def __str__(self) -> str:
        return self._text


def tensor_core_instructions(query: str = "") -> "TensorCoreInstructions":
    """Which tensor-core model computes an instruction: the rows of architecture x instruction x
    elements x accumulator -> model, each with its alias and evidence, as `softmx models QUERY`.
    query: words every returned row holds (case-insensitive; "sm90" finds "sm_90", "mma-sync"
    finds "mma.sync"), e.g. "B200 mma.sync f32" or "H100 wgmma"; "" gives every row.
    A list of TensorCoreInstruction; str() of it is the CLI's table."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    rows = [TensorCoreInstruction(**d) for d in _softmx.tensor_core_instructions(query)]
    return TensorCoreInstructions(rows, _softmx.tensor_core_instruction_table(query))


def scale_rules() -> List[str]:
    """The names `scale=` accepts: "floor", "ceil", "even", "rceil"."""
    return list(_softmx.scale_rules())


#: The exception flags, TestFloat's bits (include/softmx/flags.hpp).
INEXACT = 0x01
UNDERFLOW = 0x02
OVERFLOW = 0x04
INFINITE = 0x08
INVALID = 0x10


def flags_words(flags):
    """The raised flags as words joined by '|' ("overflow|inexact"), or "none".

    flags: an integer from 0 to 255 (the library's 8-bit flag set: an MXArray's .flags, the
    OR of a flags array) gives a str; an array of them (the flags array of convert or matmul,
    any shape, any integer dtype; a list) gives a numpy array of str of its shape, element i
    being flags_words(int(flags[i])). ValueError outside 0..255, TypeError for a float, str or
    bool (or an array of them)."""
    import numpy as np

    from ._arrays import int_arg  # _arrays imports this module
    if isinstance(flags, (list, tuple, np.ndarray)):
        a = np.asarray(flags)
        if a.dtype.kind not in "ui":
            raise TypeError(f"flags must be an integer from 0 to 255 or an array of them, got an array of dtype "
                            f"{a.dtype}")
        if a.size and (int(a.min()) < 0 or int(a.max()) > 0xFF):
            bad = int(a.min()) if int(a.min()) < 0 else int(a.max())
            raise ValueError(f"flags must be integers from 0 to 255, got {bad}")
        return _flag_words_table()[a.astype(np.intp)]
    return _softmx.flags_words(int_arg(flags, "flags", lo=0, hi=0xFF))


@functools.lru_cache(maxsize=None)
def _flag_words_table():
    """flags_words of every flag set 0..255, from the library, as a numpy array of str."""
    import numpy as np
    table = np.array([_softmx.flags_words(i) for i in range(256)])
    table.flags.writeable = False
    return table
