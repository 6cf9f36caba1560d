"""The vector engine and the explanation of a conversion: gen, verify, identify, sweep, explain.

Each is the library's own engine (include/softmx/vectors/*.hpp, softmx/explain_report.hpp), the
one the `softmx` command runs: the options take the CLI's names and defaults (src is --from),
the files read and written are the CLI's byte for byte, and each call returns an object with
the results as data. vectors/README.md describes the file format.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _softmx
from ._arrays import format_arg, int_arg, name_arg, threads_arg
from ._progress import run_with_progress

PathLike = Union[str, "os.PathLike[str]"]


def _path_arg(path, what: str) -> str:
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path (str or os.PathLike), got {type(path).__name__}")
    return os.fspath(path)


def _c(path: Optional[str]):
    """A path as the library takes it: the bytes the file system sees (os.fsencode), so that
    a name that is not UTF-8 (bytes, or a str holding surrogate escapes) reaches open(2) whole."""
    return None if path is None else os.fsencode(path)


def _input_file(path, what: str = "path") -> str:
    """An existing regular file to read, or FileNotFoundError / IsADirectoryError naming it."""
    p = _path_arg(path, what)
    if not os.path.exists(p):
        raise FileNotFoundError(2, f"{what}: no such vector file: {p!r}", p)
    if os.path.isdir(p):
        raise IsADirectoryError(21, f"{what}: {p!r} is a folder, expected a vector file", p)
    return p


def _uint_arg(value, what: str, optional: bool = True, hi: int = (1 << 64) - 1) -> Optional[int]:
    """A non-negative integer argument of at most `hi` (default the C++ side's uint64 range):
    ValueError naming it otherwise, TypeError for a non-integer."""
    return int_arg(value, what, optional, lo=0, hi=hi)


def _bool_arg(value, what: str, optional: bool = False) -> Optional[bool]:
    if value is None and optional:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False{' or None' if optional else ''}, got {type(value).__name__}")
    return bool(value)


def _max_errors(value, default: int, what: str = "max_errors") -> int:
    """How many disagreements to keep: 0..2**62 (the CLI's --max-errors range); None: `default`."""
    v = int_arg(value, what, optional=True, lo=0, hi=1 << 62,
                expected="an integer from 0 to 2**62 (how many disagreements to keep)")
    return default if v is None else v


# ---- gen ----

@dataclasses.dataclass(frozen=True)
class GenResult:
    """What gen wrote: `cases` data lines under `header` (the file's header lines), to `path`, or
    as `text` when no path was given. str() is the file's text (read back from path)."""

    cases: int
    header: str
    description: str
    path: Optional[str]
    text: Optional[str]

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        with open(self.path, encoding="ascii") as f:
            return f.read()


def gen(operation: str, *, src: Optional[str] = None, to: Optional[str] = None, a: Optional[str] = None,
        b: Optional[str] = None, block: Optional[int] = None, blocks: Optional[int] = None, acc: Optional[str] = None,
        scale: Optional[str] = None, round: Optional[str] = None, sat: Optional[str] = None,
        tininess: Optional[str] = None, dialect: Optional[str] = None, rbits: Optional[int] = None, level: int = 1,
        seed: int = 1, count: Optional[int] = None, inputs_only: bool = False, export: Optional[str] = None,
        accumulator: Optional[str] = None, addend: Optional[bool] = None, model: Optional[str] = None,
        scale_format: Optional[str] = None, scale_block: Optional[int] = None,
        out: Optional[PathLike] = None) -> GenResult:
    """Test vectors with softmx's results: `softmx gen OPERATION` (vectors/README.md section 6).

    operation: "convert", "quantize", "dequantize", "dot" or "mma". The options are the CLI's,
    with the same defaults (None: the option not given), and apply as they do there:
        convert     src, to (any format spec), round, sat, tininess, dialect, rbits
        quantize    to (element), src (f64/f32/f16/bf16, default f32), block (32), scale, round,
                    sat, tininess, dialect, rbits: unset ones are the dialect's block defaults
        dequantize  src (element), to (host, default f32), round, sat, tininess, dialect
        dot         a, b (elements), block (32), blocks (1), acc ("exact"), to ("f32", "f16" or
                    "bf16": the format of OUT and C), addend (False: True gives each case C after
                    its pairs), round, sat ("none"), tininess
        mma         a, b (named elements), block (the model's K: 32, 64 for the GST models),
                    accumulator ("f32"), addend (True), model ("hopper-fp8-mma"), scale_format
                    ("none", "ue8m0" or "ue4m3"; default the model's: ue8m0 for blackwell-mxf8f6f4
                    and blackwell-mxf4, ue4m3 for blackwell-nvf4, else none), scale_block (the
                    products per scale: the model's 32 or 16, at most block; must divide block)
    An element ("to" of quantize, "src" of dequantize, "a" and "b" of dot) is a named MX element
    format or any runtime spec of at most 8 bits (e1m2, e2m2, e4m3fnuz, int4,
    "e4m3:bias=11:specials=fnuz", ...; docs/SEMANTICS.md 1.2); the header names its canonical
    spec. mma takes the named elements only (no tensor-core model takes a runtime one).
    and for all: level (1 or 2), seed (0..2**64-1), count (level 2's random cases),
    inputs_only (operands only), export ("readmemh").
    out: the file to write (atomically, as the CLI's -o; its bytes are the CLI's). None: the
    text is returned in the result instead.

    Raises ValueError for unknown names and options that do not apply (naming them), OSError
    when `out` cannot be written.
    """
    op = name_arg(operation, "operation")
    path = None if out is None else _path_arg(out, "out")
    if level is None or isinstance(level, bool) or not isinstance(level, (int, np.integer)):
        raise TypeError(f"level must be an int (1 or 2), got {type(level).__name__}")
    seed = _uint_arg(seed, "seed", optional=False)
    level = int_arg(level, "level", lo=1, hi=2, expected="1 or 2")
    # The C++ side checks each value against its operation's limits (block 1..4096, ...) with the
    # CLI's messages; here only what could not reach it: a value beyond its integer type.
    args = dict(src=format_arg(src, "src", True), to=format_arg(to, "to", True), a=format_arg(a, "a", True),
                b=format_arg(b, "b", True), block=_uint_arg(block, "block"), blocks=_uint_arg(blocks, "blocks"),
                acc=name_arg(acc, "acc", True), scale=name_arg(scale, "scale", True),
                round=name_arg(round, "round", True), sat=name_arg(sat, "sat", True),
                tininess=name_arg(tininess, "tininess", True), dialect=name_arg(dialect, "dialect", True),
                rbits=int_arg(rbits, "rbits", True, lo=1, hi=64), level=level, seed=seed,
                count=_uint_arg(count, "count"),
                inputs_only=_bool_arg(inputs_only, "inputs_only"), export=name_arg(export, "export", True),
                accumulator=name_arg(accumulator, "accumulator", True), addend=_bool_arg(addend, "addend", True),
                model=name_arg(model, "model", True), scale_format=name_arg(scale_format, "scale_format", True),
                scale_block=_uint_arg(scale_block, "scale_block"))
    if path is not None:
        r = _softmx.gen(op, _c(path), **args)
        return GenResult(r["cases"], r["header"], r["description"], path, None)
    with tempfile.TemporaryDirectory(prefix="softmx-gen-") as d:
        tmp = os.path.join(d, "out.vec")
        r = _softmx.gen(op, tmp, **args)
        with open(tmp, encoding="ascii") as f:
            text = f.read()
    return GenResult(r["cases"], r["header"], r["description"], None, text)


# ---- verify ----

@dataclasses.dataclass(frozen=True)
class Mismatch:
    """One disagreement between a device's file and softmx.

    A cases file: `line` (from 1; `where` is "FILE line N"), its `operands`, the device's results (`device`) and softmx's
    (`expected`), each a list of ints in the file's columns; a run table: the input range
    `first`..`last` (`count` inputs) over which the table says `device[0]` and softmx
    `expected[0]`. device_flags is None when the file gives no flags. result_differs is False
    when only the flags differ. report: the CLI's text for it (values decomposed, the flags
    spelled out, which settings would give the device's result)."""

    device: List[int]
    expected: List[int]
    device_flags: Optional[int]
    expected_flags: int
    result_differs: bool
    report: str
    line: Optional[int] = None
    where: Optional[str] = None
    operands: Optional[List[int]] = None
    first: Optional[int] = None
    last: Optional[int] = None
    count: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class Completeness:
    """Whether a file holds every case it must, once, in order (vectors/README.md 8).

    status: "complete" (proven: the cases regenerated from the header's level and seed, or a run
    table's first..last), "incomplete" (a difference found) or "unproven" (no difference found,
    but nothing independent of the file proves completeness: docs/VECTORS.md); complete: status
    is "complete"; proven: the same; header_differs: the header's cases or inputs-sha256 are not
    the regenerated list's (the file fails); checked: anything at all was checked;
    basis: "regenerated", "regenerated-open", "header", "runs" or "none"; expected and present
    counts; missing, extra, duplicated, out_of_order (known when `located`), the first of each
    (dicts with line, case, other_line, other_case, operands; None when none); the digests;
    notes: why completeness is unproven or what the header got wrong; text: the CLI's lines."""

    status: str
    complete: bool
    proven: bool
    header_differs: bool
    checked: bool
    basis: str
    source: str
    expected: Optional[int]
    present: int
    located: bool
    missing: int
    extra: int
    duplicated: int
    out_of_order: int
    first_missing: Optional[Dict[str, Any]]
    first_extra: Optional[Dict[str, Any]]
    first_duplicated: Optional[Dict[str, Any]]
    first_out_of_order: Optional[Dict[str, Any]]
    sha256: str
    expected_sha256: str
    notes: List[str]
    text: str


class _Verdict:
    """`passed` (status == "pass") and truth for a result with a verdict `status` ("pass",
    "fail", "unproven"): VerifyResult and Report."""

    __slots__ = ()

    @property
    def passed(self) -> bool:
        return self.status == "pass"  # type: ignore[attr-defined]

    def __bool__(self) -> bool:
        return self.passed


@dataclasses.dataclass(frozen=True)
class VerifyResult(_Verdict):
    """`softmx verify` as data, from the same library call as the CLI: the file's `cases`
    (inputs, for a run table, in `runs` runs), the counts of mismatches (results, flags only;
    `ranges` for a run table), the first max_errors `mismatches`, the file's `completeness`, and
    the verdict: `status` "pass", "fail" or "unproven" with the CLI's `exit_status` (0, 1, 3);
    `mismatch_count`: how many entries `mismatches` holds with no limit, and `truncated`: it
    holds fewer (repr() says "20 of 305 shown"; verify(..., max_errors=N) keeps N);
    `accepted_unproven` when accept_unproven turned an unproven file into a pass; `overrides`:
    the settings checked instead of the header's ("" when none). `passed` (and bool()): status
    is "pass". str() is the CLI's text output, byte for byte; `notes` its standard error, and
    `json` its --json output."""

    file: str
    operation: str
    layout: str
    cases: int
    runs: int
    result_mismatches: int
    flags_only_mismatches: int
    flags_compared: int
    ranges: int
    completeness: Completeness
    status: str
    accepted_unproven: bool
    exit_status: int
    overrides: str
    notes: str
    summary: str
    json: str
    mismatches: List[Mismatch]

    @property
    def mismatched(self) -> int:
        return self.result_mismatches + self.flags_only_mismatches

    @property
    def matched(self) -> int:
        return self.cases - self.mismatched

    @property
    def mismatch_count(self) -> int:
        """The entries `mismatches` would hold with no max_errors limit: one per mismatching line
        of a file of cases, one per mismatching range of a run table (`ranges`)."""
        return self.ranges if self.layout == "runs" else self.mismatched

    @property
    def truncated(self) -> bool:
        """`mismatches` holds only the first len(mismatches) of mismatch_count (max_errors)."""
        return len(self.mismatches) < self.mismatch_count

    def __repr__(self) -> str:
        return (f"VerifyResult(file={self.file!r}, operation={self.operation!r}, status={self.status!r}, "
                f"cases={self.cases}, mismatched={self.mismatched}, "
                f"mismatches=[{_shown(len(self.mismatches), self.mismatch_count, 'verify', 'max_errors')}], "
                f"completeness={self.completeness.status!r})")

    def __str__(self) -> str:
        return "".join(m.report for m in self.mismatches) + self.summary

    def _repr_html_(self) -> str:
        """The verdict, counts, completeness and first mismatches as HTML, for a notebook
        (softmx.report(path) adds the per-class counts and the plots)."""
        from ._report import repr_html
        return repr_html(self)


def _shown(held: int, total: int, function: str, option: str) -> str:
    """What a result's list holds of its total, for repr: "20 of 305 shown; ..."."""
    if held >= total:
        return f"all {total}" if total else "none"
    return f"{held} of {total} shown; {function}(..., {option}={total}) keeps them all"


def _completeness(d) -> Completeness:
    return Completeness(**d)


def _mismatch(d) -> Mismatch:
    return Mismatch(**d)


def _source(path, text) -> Tuple[str, Optional[bytes]]:
    """(name, text): a file to read, or text in memory named by `path` (default "<text>"). The
    text goes to the library as bytes, unchanged (a str as UTF-8): what the reader says of a
    byte it refuses is what the CLI says of the same file."""
    if text is None:
        return _input_file(path), None
    if isinstance(text, str):
        text = text.encode("utf-8", errors="surrogateescape")
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"text must be a str or bytes (a vector file's contents), got {type(text).__name__}")
    return ("<text>" if path is None else _path_arg(path, "path")), bytes(text)


def verify(path: Optional[PathLike] = None, *, text=None, max_errors: Optional[int] = 20,
           threads: Optional[int] = None, progress=None, accept_unproven: bool = False,
           expect_cases: Optional[int] = None, model: Optional[str] = None, acc: Optional[str] = None,
           dialect: Optional[str] = None, round: Optional[str] = None, sat: Optional[str] = None,
           tininess: Optional[str] = None, scale: Optional[str] = None) -> VerifyResult:
    """Checks a file of device results (or a run table) against softmx: `softmx verify FILE`.

    Every line (every input of every run) is recomputed under the file's header, the file's
    completeness is judged (vectors/README.md 8), and the verdict is the CLI's (docs/VECTORS.md):
    "pass" only when every line agrees and completeness is proven; "unproven" when nothing
    disagrees but nothing independent of the file proves every case is there (no level and
    seed); "fail" otherwise. path: str, bytes or os.PathLike (any bytes the file system takes).
    max_errors: the mismatches kept in the result (default 20, as the CLI; None keeps 20, 0
    keeps none; the counts are always complete). threads: for run tables; None uses every core.
    text: the file's contents instead of a file (str or bytes, as gen and sweep return them;
    `path`, if given, names it in messages).
    accept_unproven: take an unproven file as a pass (legacy sets; the result says so), as
        --accept-unproven. expect_cases: the number of cases the file must hold, as
        --expect-cases.
    model, acc, dialect, round, sat, tininess, scale: settings checked instead of the header's
        (as the CLI's --model, --acc, ...; the file is not changed; `overrides` names them).
    progress (run tables; files of cases report none): None (default) shows a progress line on
        sys.stderr while it is a terminal, as the CLI does; True or False: always or never; or a
        callable progress(done, total), called with the inputs checked so far (increasing; the
        last call has done == total). Ctrl-C stops a run table's check at the next chunk with
        KeyboardInterrupt. The result does not depend on it.

    Raises FileNotFoundError / IsADirectoryError naming the path, ValueError naming the file and
    line for a malformed file (the CLI's message) and naming the argument for a bad argument,
    TypeError for an argument of the wrong type.
    """
    p, t = _source(path, text)
    me, th = _max_errors(max_errors, 20), threads_arg(threads)
    ex = _uint_arg(expect_cases, "expect_cases")
    au = _bool_arg(accept_unproven, "accept_unproven")
    over = [name_arg(v, k, True) for k, v in (("model", model), ("acc", acc), ("dialect", dialect), ("round", round),
                                                ("sat", sat), ("tininess", tininess), ("scale", scale))]
    r = run_with_progress(lambda cb: _softmx.verify(_c(p), t, me, th, cb, au, ex, *over), progress, f"verify {p}")
    r["file"] = p
    r["completeness"] = _completeness(r["completeness"])
    r["mismatches"] = [_mismatch(m) for m in r["mismatches"]]
    return VerifyResult(**r)


# ---- identify ----

@dataclasses.dataclass(frozen=True)
class Candidate:
    """One setting softmx models for the file's operation, with its score: agree of total cases
    (inputs; sample points while not `exact`), its settings (dialect, rounding, saturation,
    tininess, scale, accumulation), `key` (the settings without the dialect), `differences` from
    the file's header, and its first disagreements (each a Mismatch)."""

    operation: str
    dialect: str
    rounding: str
    saturation: str
    tininess: str
    scale: str
    accumulation: str
    description: str
    key: str
    agree: int
    total: int
    exact: bool
    percent: str
    exact_disagree: int
    ranges: int
    differences: str
    distance: int
    disagreements: List[Mismatch]

    @property
    def disagreement_count(self) -> Optional[int]:
        """The entries `disagreements` would hold with no max_errors limit: the disagreeing cases
        of a file of cases, the mismatching ranges of a run table checked on every input; None
        for a sampled score (not `exact`), whose ranges are not counted."""
        if not self.exact:
            return None
        return self.ranges if (self.ranges or self.exact_disagree) else self.total - self.agree

    @property
    def truncated(self) -> bool:
        """`disagreements` holds only the first len(disagreements) of disagreement_count."""
        n = self.disagreement_count
        return n is not None and len(self.disagreements) < n


@dataclasses.dataclass(frozen=True)
class IdentifyResult:
    """`softmx identify` as data: every candidate setting, best first (`ranking`), the CLI's
    groups of equal scores (`groups`: agree, total, exact, percent, settings text), whether the
    best agrees everywhere (`agrees`) and the file is complete too (`identified`)."""

    file: str
    header: Dict[str, str]
    runs: bool
    lines: int
    with_flags: int
    completeness: Completeness
    agrees: bool
    identified: bool
    all_exact: bool
    ranking: List[Candidate]
    groups: List[Dict[str, Any]]
    policy_differences: List[str]

    @property
    def best(self) -> Candidate:
        return self.ranking[0]

    def __str__(self) -> str:
        lines = [f"identify: {self.file}: {self.header['description']} (the header's settings)"]
        for i, g in enumerate(self.groups[:5], 1):
            agreement = f"{g['agree']}/{g['total']} ({g['percent']})" + ("" if g["exact"] else " sampled")
            lines.append(f"  {i:<5} {agreement:<32} {g['settings']}")
        b = self.best
        lines.append(f"best: {b.description}: " + ("identified" if self.identified else "not identified") +
                     (f"; differs from the header: {b.differences}" if b.differences else ""))
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        """The verdict and the agreement of every setting as a bar chart, for a notebook."""
        from ._report import repr_html
        return repr_html(self)


def identify(path: Optional[PathLike] = None, *, text=None, exact: int = 3, max_errors: int = 10,
             threads: Optional[int] = None, progress=None) -> IdentifyResult:
    """Which implementation does a device's file match? `softmx identify FILE`.

    Every setting softmx models for the file's operation is scored by the cases (inputs) it
    agrees on and ranked (include/softmx/vectors/identify.hpp). exact: for run tables of more
    than 2**20 inputs, how many of the best sampled scores are checked on every input (3, as the
    CLI); max_errors: disagreements kept per candidate (10); threads: None uses every core;
    text: the file's contents instead of a file, as for verify.
    progress (the exact checks of a run table): None (default) shows a progress line on
        sys.stderr while it is a terminal; True or False: always or never; or a callable
        progress(done, total), called with the inputs checked so far for each candidate checked
        on every input (increasing, up to done == total, then from the start for the next).
        Ctrl-C stops the check at the next chunk with KeyboardInterrupt. The result does not
        depend on it.

    Raises FileNotFoundError / IsADirectoryError naming the path, ValueError for a malformed file.
    """
    p, t = _source(path, text)
    ex = int_arg(exact, "exact", lo=1, hi=100000)
    me, th = _max_errors(max_errors, 10), threads_arg(threads)
    r = run_with_progress(lambda cb: _softmx.identify(_c(p), t, ex, me, th, cb), progress, f"identify {p}")
    r["file"] = p
    r["completeness"] = _completeness(r["completeness"])
    ranking = []
    for c in r["ranking"]:
        c = dict(c)
        c["disagreements"] = [_mismatch(m) for m in c["disagreements"]]
        ranking.append(Candidate(**c))
    r["ranking"] = ranking
    return IdentifyResult(**r)


# ---- sweep ----

@dataclasses.dataclass(frozen=True)
class RunTable:
    """A run table (vectors/README.md 5): every input of `first`..`last` converted, as maximal
    runs of equal results. `lines`: data lines (runs); `header`: its header lines; `path` where it
    was written, or `text` (bytes) when no path was given. runs() reads the runs as numpy arrays.
    str() is the table's text."""

    lines: int
    header: str
    description: str
    first: int
    last: int
    path: Optional[str]
    text: Optional[bytes]

    def runs(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(first, last, code, flags): uint64, uint64, uint64 and int16 arrays, one entry per run
        (flags -1 where the table gives none)."""
        if self.text is not None:
            return _softmx.read_runs(b"<sweep>", self.text)
        return _softmx.read_runs(_c(_input_file(self.path)), None)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text.decode("ascii")
        with open(self.path, encoding="ascii") as f:
            return f.read()


def sweep(src: str, to: str, *, round: Optional[str] = None, sat: Optional[str] = None, tininess: str = "after",
          dialect: str = "ocp", threads: Optional[int] = None, shard=None, out: Optional[PathLike] = None,
          progress=None) -> RunTable:
    """Every input of `src` converted into `to`: the run table `softmx sweep` writes.

    src, to: format specs (src of at most 32 bits). round, sat: None is the dialect's default for
    the destination, as the CLI without --round / --sat. shard: "I/N" or (I, N): shard I of N of
    the inputs, as --shard. out: the file to write (atomically, the CLI's bytes); None returns
    the text. threads: None uses every core; the table does not depend on it.
    progress: None (default) shows the CLI's progress line on sys.stderr while it is a
        terminal; True or False: always or never; or a callable progress(done, total), called
        after each chunk of 2**20 inputs with the inputs converted so far (increasing; the last
        call has done == total). Ctrl-C stops the sweep at the next chunk with KeyboardInterrupt
        (`out` is then not written). The table does not depend on it.
    """
    path = None if out is None else _path_arg(out, "out")
    if shard is not None and not isinstance(shard, str):
        if not isinstance(shard, (tuple, list)) or len(shard) != 2:
            raise TypeError(f"shard must be 'I/N' or a pair (I, N), got {shard!r}")
        i, n = (_uint_arg(v, "shard") for v in shard)
        shard = f"{i}/{n}"
    args = (format_arg(src, "src"), format_arg(to, "to"), name_arg(round, "round", True), name_arg(sat, "sat", True),
            name_arg(tininess, "tininess"), name_arg(dialect, "dialect"), threads_arg(threads), shard, _c(path))
    r = run_with_progress(lambda cb: _softmx.sweep(*args, cb), progress, f"sweep {args[0]} -> {args[1]}")
    return RunTable(r["lines"], r["header"], r["description"], r["first"], r["last"], path, r["text"])


def merge(tables, *, out: Optional[PathLike] = None) -> RunTable:
    """Run tables of one function (sweep's shards, any order) joined into the canonical table of
    their union: `softmx merge [-o OUT] TABLE...`. tables: paths. out: the file to write
    (atomically, the CLI's bytes); None returns the text. ValueError names the tables that do
    not fit together (other settings, a gap, an overlap)."""
    if isinstance(tables, (str, bytes, os.PathLike)):
        raise TypeError("tables must be a list of paths (run tables), not one path")
    paths = [_input_file(t, "tables") for t in tables]
    if not paths:
        raise ValueError("tables: expected at least one run table to merge")
    path = None if out is None else _path_arg(out, "out")
    r = _softmx.merge([_c(q) for q in paths], _c(path))
    return RunTable(r["lines"], r["header"], r["description"], r["first"], r["last"], path, r["text"])


@dataclasses.dataclass(frozen=True)
class TableDiff:
    """Where two run tables over the same inputs disagree (`softmx diff A B` as data): `ranges`
    maximal ranges covering `differing_inputs` of the `inputs`; `differences`: the first
    max_ranges, each {first, last, count, a_code, a_flags, b_code, b_flags} (flags None when not
    both tables give them: then only the outputs are compared). `a`, `b`: the headers described.
    `truncated`: differences holds fewer than `ranges` (repr() says "50 of 812 shown";
    diff(..., max_ranges=N) keeps N). bool() is True when the tables agree on every input."""

    a: str
    b: str
    inputs: int
    ranges: int
    differing_inputs: int
    flags_compared: bool
    a_has_flags: bool
    b_has_flags: bool
    differences: List[Dict[str, Any]]

    def __bool__(self) -> bool:
        return self.ranges == 0

    @property
    def truncated(self) -> bool:
        """`differences` holds only the first len(differences) of the `ranges` (max_ranges)."""
        return len(self.differences) < self.ranges

    def __repr__(self) -> str:
        return (f"TableDiff(a={self.a!r}, b={self.b!r}, inputs={self.inputs}, differing_inputs={self.differing_inputs}, "
                f"ranges={self.ranges}, differences=[{_shown(len(self.differences), self.ranges, 'diff', 'max_ranges')}])")

    def _repr_html_(self) -> str:
        """The verdict and the differing ranges as HTML, for a notebook."""
        from ._report import repr_html
        return repr_html(self)


def _table_arg(t, what: str) -> Tuple[str, Optional[str]]:
    if isinstance(t, RunTable):
        if t.text is not None:
            return f"<{what}>", t.text
        return _input_file(t.path, what), None
    return _input_file(t, what), None


def diff(a, b, *, max_ranges: Optional[int] = 50) -> TableDiff:
    """Where two run tables disagree: `softmx diff A B`. a, b: paths or RunTable objects (sweep's
    results), over the same inputs (source format, first and last); everything else may differ
    (ocp against cuda, rne against rna, softmx against a device). max_ranges: the differences
    kept (50, as the CLI; None keeps 50); the counts are always complete."""
    pa, ta = _table_arg(a, "a")
    pb, tb = _table_arg(b, "b")
    return TableDiff(**_softmx.diff(_c(pa), ta, _c(pb), tb, _max_errors(max_ranges, 50, "max_ranges")))


# ---- explain ----

@dataclasses.dataclass(frozen=True)
class Explanation:
    """The anatomy of one conversion: `softmx explain` as data. str() is the CLI's text, byte for
    byte.

    label: the input as given; src and code when it was a code; exact: its exact value;
    to: the destination; rounding, saturation, tininess, dialect, rbits: the options (defaults
    resolved); neighbours: kind ("special", "below_min", "exact", "between"), lo and hi (magnitude
    codes), d_lo and d_hi (distances in ulps, exact decimals), tie, hi_finite, beyond;
    result: {code, flags, value} under the options (None where the dialect does not take them:
    `unsupported` says why); reason: why that is the result; table: every rounding x saturation
    x dialect cell (code and flags None where n/a); notes: why cells are n/a; stochastic: for
    an inexact input, rbits, first_bits (F) and the probability of rounding away (None otherwise).
    """

    text: str
    label: str
    to: str
    src: Optional[str]
    code: Optional[int]
    exact: str
    rounding: str
    saturation: str
    tininess: str
    dialect: str
    rbits: int
    neighbours: Dict[str, Any]
    result: Optional[Dict[str, Any]]
    unsupported: str
    reason: str
    table: List[Dict[str, Any]]
    notes: List[str]
    stochastic: Optional[Dict[str, Any]]

    def __str__(self) -> str:
        return self.text


def explain(value, to: str, *, src: Optional[str] = None, round: Optional[str] = None, sat: Optional[str] = None,
            dialect: str = "ocp", tininess: str = "after", rbits: Optional[int] = None) -> Explanation:
    """Explains converting one value into `to`: `softmx explain --to TO VALUE`.

    value: a str as the CLI takes it (a decimal or C99 hex float, taken exactly: "0.1" is one
        tenth, not the f64 nearest it), or with `src`, a raw code of src (a hex str of exactly
        src's digits, as the CLI takes it, or an int). A Python float is its f64 value exactly
        (src="f64" and its bits); an int without src is that integer, exactly.
    to, src: format specs (named or runtime: "e4m3fnuz", "e5m2:bias=16").
    round, sat: None is the dialect's default for the destination (as the CLI without them);
    dialect, tininess, rbits: as the CLI's options.
    """
    to = format_arg(to, "to")
    src = format_arg(src, "src", True)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("value must be a str, a float or an int, got bool")
    if src is not None:
        if isinstance(value, (int, np.integer)):
            if value < 0:
                raise ValueError(f"value: a code of {src} is non-negative, got {value}")
            digits = (_softmx.format_info(src)["width"] + 3) // 4
            value = format(int(value), f"0{digits}X")
        elif not isinstance(value, str):
            raise TypeError(f"value must be a code of {src} (a hex str or an int), got {type(value).__name__}")
    elif isinstance(value, (float, np.floating)):
        arr = np.asarray(value)
        fmt = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(arr.dtype)
        if fmt is None:
            raise TypeError(f"value: a float of dtype {arr.dtype} is not taken (float64, float32, float16, or a str)")
        bits = arr.reshape(1).view({"f64": np.uint64, "f32": np.uint32, "f16": np.uint16}[fmt])[0]
        src = fmt
        value = format(int(bits), f"0{arr.dtype.itemsize * 2}X")
    elif isinstance(value, (int, np.integer)):
        value = str(int(value))
    elif not isinstance(value, str):
        raise TypeError(f"value must be a str (a decimal or hex float), a float or an int, got {type(value).__name__}")
    r = _softmx.explain(value, src, to, name_arg(round, "round", True), name_arg(sat, "sat", True),
                        name_arg(tininess, "tininess"), name_arg(dialect, "dialect"),
                        int_arg(rbits, "rbits", True, lo=1, hi=64))
    return Explanation(**r)
