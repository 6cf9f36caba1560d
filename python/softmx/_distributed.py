"""softmx.distributed: run tables swept in shards on a dask.distributed cluster, then merged.

A run table (vectors/README.md 5) of a 32-bit source is 2^32 conversions: seconds for softmx,
hours for an RTL simulation of a unit. This module cuts the inputs into shards (the ranges
`softmx sweep --shard I/N` covers), runs one dask task per shard on a Client (a given one, or a
LocalCluster made and closed here), each task writing its shard's table to a folder, and then
joins the shards with softmx.merge into the canonical table, byte for byte the table one
`softmx.sweep` (or one run of the same device over every input) writes.

    import softmx
    t = softmx.distributed.sweep("f16", "e4m3", shards=8, out="f16-e4m3.runs")   # a LocalCluster
    t = softmx.distributed.sweep("f32", "e4m3", shards=256, out="f32-e4m3.runs", client=client)
    t = softmx.distributed.sweep("f32", "e4m3", shards=256, out="rtl.runs", client=client,
                                 shard_fn=simulate)                               # an RTL model

Each shard is computed by softmx (shard_fn None) or by `shard_fn(shard)`, any picklable callable
(cloudpickle: a lambda or nested function too) that writes a run table of the shard's inputs to
`shard.path`: that is where a simulator plugs in. The contract, in full (docs/SHARDING.md):

  * shard_fn is called in a worker process with one Shard: `index` and `count` (shard I of N,
    the numbers `softmx sweep --shard I/N` takes), `first` and `last` (its inputs, inclusive:
    floor(I * 2^w / N) .. floor((I + 1) * 2^w / N) - 1 for a w-bit source), the function's
    settings as the table's header gives them (src, to, round, sat, tininess, dialect: names
    resolved, e.g. round "rne" where the caller gave None), `header` (the exact header text
    the shard's table starts with: the whole table's header, with the shard's first and last)
    and `path` (a new file to create, in the shards folder).
  * It writes to `shard.path` a run table (vectors/README.md 5): `shard.header` line for line
    (it may add `x-NAME = VALUE` lines, which merge keeps where every shard has the same), an
    optional `# FIRST OUT FLAGS` line, then `FIRST OUT FLAGS` lines covering exactly
    shard.first .. shard.last, FIRST in the source's hex digits and OUT in the destination's.
    The runs need not be canonical: one line per input (`INPUT OUT FLAGS`, what a simulator
    log gives) is a valid table. FLAGS may be left off, on every line of every shard.
    `shard.writer()` does all of this from result arrays; `shard.inputs()` gives the inputs.
  * Returning is success (the return value is ignored); raising is failure. It may be called
    again for the same shard (dask's retries, a resumed run), each time with a new path: it
    must give the same results for the same inputs and must not write anywhere else that
    another attempt or shard writes.
  * Then the task reads the file with softmx's reader, checks that its header is shard.header
    (less x- keys) and that its runs cover first..last, writes the canonical table atomically
    to `shard.table` (FOLDER/shard-I-of-N.runs) and removes `shard.path`. A table that fails
    the check fails the shard, naming it and the first line that differs.

Failures: a shard whose task raises (or whose worker dies) fails the whole call with ShardError
naming every failed shard, its inputs and its exception, after every other shard has finished;
nothing is merged and `out` is not written. The tables of the shards that succeeded stay in the
folder (each complete: every table is written to a temporary name and renamed), and
`resume=True` takes them up again. Retries are dask's (`retries=`, Client.submit's).

dask is imported only when a sweep starts: `import softmx` does not import it, and this module
works without it (Shard, plan, run_shard). Debian: python3-distributed python3-dask.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import socket
import tempfile
import time
import uuid
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._arrays import int_arg, name_arg, storage_dtype, threads_arg
from ._info import format_info
from ._vectors import RunTable, merge as _merge, sweep as _sweep

PathLike = Union[str, "os.PathLike[str]"]
ShardFn = Callable[["Shard"], Any]

__all__ = ["sweep", "plan", "run_shard", "Shard", "RunWriter", "ShardError", "shard_range"]


class ShardError(RuntimeError):
    """Shards that failed: `failed` maps each failed Shard to its exception (the first failure is
    also the __cause__). Nothing was merged; the other shards' tables are in `folder` (None when
    it was a temporary folder, now removed)."""

    def __init__(self, message: str, failed: Dict["Shard", BaseException], folder: Optional[str]):
        super().__init__(message)
        self.failed = failed
        self.folder = folder


def shard_range(width: int, index: int, count: int) -> Tuple[int, int]:
    """(first, last): the inputs of shard `index` of `count` of a `width`-bit source, as
    `softmx sweep --shard I/N` (vectors/README.md 5): floor(I * 2^w / N) .. floor((I+1) * 2^w / N) - 1."""
    if not 1 <= count <= 1 << width or not 0 <= index < count:
        raise ValueError(f"shard {index} of {count}: expected 1 <= N <= 2^{width} and 0 <= I < N")
    return (index << width) // count, ((index + 1) << width) // count - 1


def _hex(value: int, digits: int) -> str:
    return format(value, f"0{digits}X")


def _header_values(header: str) -> Dict[str, str]:
    d = {}
    for line in header.splitlines():
        k, sep, v = line.partition(" = ")
        if sep:
            d[k.strip()] = v.strip()
    return d


@dataclasses.dataclass(frozen=True)
class Shard:
    """One shard of a sweep: shard `index` of `count` (the numbers `softmx sweep --shard I/N`
    takes) of the source's inputs, `first`..`last` (inclusive). src, to, round, sat, tininess,
    dialect: the function, as the table's header names it (defaults resolved). header: the
    exact header text (lines ending in newline) the shard's table starts with. table: where the
    shard's checked table goes (FOLDER/shard-I-of-N.runs). path: the file shard_fn writes (a new
    temporary name in FOLDER for each attempt; None outside a task)."""

    index: int
    count: int
    first: int
    last: int
    src: str
    to: str
    round: str
    sat: str
    tininess: str
    dialect: str
    header: str
    table: str
    path: Optional[str] = None

    @property
    def size(self) -> int:
        """The number of inputs, last - first + 1."""
        return self.last - self.first + 1

    @property
    def name(self) -> str:
        """"shard I of N (inputs FIRST..LAST)", as messages name it."""
        d = (format_info(self.src).width + 3) // 4
        return f"shard {self.index} of {self.count} (inputs {_hex(self.first, d)}..{_hex(self.last, d)})"

    def inputs(self, chunk: int = 1 << 20) -> Iterator[np.ndarray]:
        """The shard's inputs in order, first to last, as arrays of the source's codes (its
        storage dtype: uint8, uint16 or uint32) of at most `chunk` elements each."""
        chunk = int_arg(chunk, "chunk", lo=1, hi=1 << 40)
        dt = storage_dtype(self.src)
        for lo in range(self.first, self.last + 1, chunk):
            hi = min(lo + chunk, self.last + 1)
            yield np.arange(lo, hi, dtype=np.uint64).astype(dt)

    def writer(self, flags: bool = True) -> "RunWriter":
        """A RunWriter for self.path: it writes the header, then the runs of the results given
        to add(), and checks at close() that every input got one. flags=False: a table without
        FLAGS (a device without flags: every shard then leaves them off)."""
        return RunWriter(self, flags)


class RunWriter:
    """Writes a shard's run table from its results, given in input order in chunks of any size:

        with shard.writer() as w:
            for x in shard.inputs():
                out, fl = simulate(x)        # one result code and flags byte per input
                w.add(out, fl)

    add(out, flags): out (and flags, unless the writer was made with flags=False) are 1-d
    integer arrays of equal length, the results of the next len(out) inputs. Equal neighbours
    are joined into runs, so the table is canonical. close() (or leaving the with block) checks
    that the results of every input first..last were given, then syncs the file; leaving the
    block with an exception removes the file."""

    def __init__(self, shard: Shard, flags: bool = True):
        if shard.path is None:
            raise ValueError(f"{shard.name}: no path to write (a Shard's path is set inside a task)")
        self.shard = shard
        self.flags = bool(flags)
        self._in = (format_info(shard.src).width + 3) // 4
        self._out = (format_info(shard.to).width + 3) // 4
        self._next = shard.first
        self._run: Optional[Tuple[int, int, int]] = None  # (first, code, flags) of the open run
        self._f = open(shard.path, "x", encoding="ascii", newline="\n")
        self._f.write(shard.header)
        self._f.write("# FIRST OUT FLAGS\n" if self.flags else "# FIRST OUT\n")

    def _line(self, first: int, code: int, fl: int) -> str:
        if self.flags:
            return f"{_hex(first, self._in)} {_hex(code, self._out)} {_hex(fl, 2)}\n"
        return f"{_hex(first, self._in)} {_hex(code, self._out)}\n"

    def add(self, out, flags=None) -> None:
        o = np.asarray(out)
        if o.ndim != 1 or not np.issubdtype(o.dtype, np.integer):
            raise TypeError(f"{self.shard.name}: out must be a 1-d array of integer codes, got {o.dtype} {o.shape}")
        if self.flags:
            if flags is None:
                raise ValueError(f"{self.shard.name}: flags missing (use shard.writer(flags=False) for none)")
            f = np.asarray(flags)
            if f.shape != o.shape or not np.issubdtype(f.dtype, np.integer):
                raise ValueError(f"{self.shard.name}: flags must be integers of out's shape {o.shape}, got {f.dtype} {f.shape}")
            if f.size and (f.min() < 0 or f.max() > 0xFF):
                raise ValueError(f"{self.shard.name}: flags must be 0..0xFF")
            f = f.astype(np.uint8)
        elif flags is not None:
            raise ValueError(f"{self.shard.name}: flags given to a writer made with flags=False")
        n = o.size
        if n == 0:
            return
        if self._next + n - 1 > self.shard.last:
            raise ValueError(f"{self.shard.name}: {n} results given where {self.shard.last - self._next + 1} inputs remain")
        if o.min() < 0:
            raise ValueError(f"{self.shard.name}: negative result codes")
        o = o.astype(np.uint64)
        change = o[1:] != o[:-1]
        if self.flags:
            change |= f[1:] != f[:-1]
        starts = [0] + (np.flatnonzero(change) + 1).tolist()
        codes = o[starts].tolist()
        fls = f[starts].tolist() if self.flags else [0] * len(starts)
        parts = []
        for k, s in enumerate(starts):
            first = self._next + s
            if self._run is not None and k == 0 and self._run[1:] == (codes[0], fls[0]):
                continue  # the open run goes on
            if self._run is not None:
                parts.append(self._line(*self._run))
            self._run = (first, codes[k], fls[k])
        self._f.write("".join(parts))
        self._next += n

    def close(self) -> None:
        if self._f.closed:
            return
        try:
            if self._next != self.shard.last + 1:
                d = self._in
                raise ValueError(f"{self.shard.name}: no results for inputs {_hex(self._next, d)}..{_hex(self.shard.last, d)}")
            self._f.write(self._line(*self._run))
            self._f.flush()
            os.fsync(self._f.fileno())
        finally:
            self._f.close()

    def __enter__(self) -> "RunWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
            return
        self._f.close()
        try:
            os.remove(self.shard.path)
        except OSError:
            pass


# ---- planning ----

def _function_header(src: str, to: str, round, sat, tininess, dialect) -> Tuple[str, int]:
    """The header of the whole table's function (first and last aside) and the source's width:
    softmx's own, from a sweep of one input (which also checks every argument)."""
    w = format_info(src).width
    if w > 32:
        raise ValueError(f"cannot sweep {src}: it has 2^{w} inputs (sweep takes sources of up to 32 bits)")
    t = _sweep(src, to, round=round, sat=sat, tininess=tininess, dialect=dialect, threads=1, shard=(0, 1 << w),
               progress=False)
    return t.header, w


def _range_header(header: str, first: int, last: int, digits: int) -> str:
    lines = []
    for line in header.splitlines():
        if line.startswith("first = "):
            line = "first = " + _hex(first, digits)
        elif line.startswith("last = "):
            line = "last = " + _hex(last, digits)
        lines.append(line + "\n")
    return "".join(lines)


def _pair(value, what: str) -> Tuple[int, int]:
    if isinstance(value, str):
        i, sep, n = value.partition("/")
        if not sep:
            raise ValueError(f"{what} must be 'I/N' or a pair (I, N), got {value!r}")
        value = (int(i), int(n))
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{what} must be 'I/N' or a pair (I, N), got {value!r}")
    return int_arg(value[0], what, lo=0), int_arg(value[1], what, lo=1)


def plan(src: str, to: str, *, shards: int, round: Optional[str] = None, sat: Optional[str] = None,
         tininess: str = "after", dialect: str = "ocp", within=None, folder: PathLike = ".") -> List[Shard]:
    """The shards sweep() runs, as Shard objects (path None), without running anything: the
    table of `src` -> `to` under the settings (softmx.sweep's; None: the dialect's default)
    cut into `shards` shards whose tables go to `folder`. within: None (every input of src) or
    (k, M) / "k/M": only shard k of M of the inputs (what softmx.sweep(shard=(k, M)) covers), cut
    into `shards`: shard j is then shard k * shards + j of M * shards, which names its table.
    Raises ValueError for bad settings (the library's message) or more shards than inputs."""
    src, to = name_arg(src, "src"), name_arg(to, "to")
    s = int_arg(shards, "shards", lo=1, hi=1 << 32)
    k, m = (0, 1) if within is None else _pair(within, "within")
    if k >= m:
        raise ValueError(f"within: shard {k} of {m} does not exist (0 <= k < M)")
    header, w = _function_header(src, to, round, sat, tininess, dialect)
    if m * s > 1 << w:
        raise ValueError(f"shards: {m * s} shards of a {w}-bit source would leave some empty (at most 2^{w})")
    hv = _header_values(header)
    folder = os.path.abspath(os.fspath(folder))
    digits = (w + 3) // 4
    n = m * s
    out = []
    for j in range(s):
        i = k * s + j
        first, last = shard_range(w, i, n)
        out.append(Shard(i, n, first, last, hv["from"], hv["to"], hv["rounding"], hv["saturation"], hv["tininess"],
                         hv["dialect"], _range_header(header, first, last, digits),
                         os.path.join(folder, f"shard-{i}-of-{n}.runs")))
    return out


# ---- one shard ----

def _write_atomically(path: str, data: bytes) -> None:
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def _checked(shard: Shard, path: str) -> RunTable:
    """The canonical table of the run table at `path`, read by softmx's reader (merge of one
    table: a malformed table, a gap or runs past `last` are the library's errors), after checking
    that it is shard's: its header (less x- keys) is shard.header. ValueError naming the shard
    and the first line that differs otherwise."""
    try:
        t = _merge([path])
    except (ValueError, OSError) as e:
        raise ValueError(f"{shard.name}: {path} is not a run table softmx can read: {e}") from e
    got = [ln for ln in t.header.splitlines() if not ln.startswith("x-")]
    want = shard.header.splitlines()
    if got != want:
        i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        g = got[i] if i < len(got) else "(none)"
        x = want[i] if i < len(want) else "(none)"
        raise ValueError(f"{shard.name}: the table {path} is not this shard's: its header has {g!r} where "
                         f"the shard's has {x!r} (a shard's table starts with shard.header)")
    return t


def run_shard(shard: Shard, shard_fn: Optional[ShardFn] = None, *, threads: Optional[int] = None,
              resume: bool = False) -> Dict[str, Any]:
    """Computes one shard's table into shard.table (what each dask task runs; callable anywhere,
    e.g. from a Slurm array task): with softmx (shard_fn None; `threads` as softmx.sweep's) or
    by shard_fn(shard) (the module's contract), then checked and written atomically.
    resume: a complete table of this shard already at shard.table is kept (nothing is run).
    Returns {index, count, table, lines, seconds, host, reused}."""
    t0 = time.perf_counter()
    info = dict(index=shard.index, count=shard.count, table=shard.table, host=socket.gethostname(), reused=False)
    if resume and os.path.exists(shard.table):
        try:
            t = _checked(shard, shard.table)
            return dict(info, lines=t.lines, seconds=time.perf_counter() - t0, reused=True)
        except ValueError:
            pass  # not this shard's complete table: computed again
    if shard_fn is None:
        t = _sweep(shard.src, shard.to, round=shard.round, sat=shard.sat, tininess=shard.tininess,
                   dialect=shard.dialect, threads=threads, shard=(shard.index, shard.count), out=shard.table,
                   progress=False)
        return dict(info, lines=t.lines, seconds=time.perf_counter() - t0)
    folder = os.path.dirname(shard.table) or "."
    tmp = os.path.join(folder, f".{os.path.basename(shard.table)}.part-{os.getpid()}-{uuid.uuid4().hex[:12]}")
    try:
        shard_fn(dataclasses.replace(shard, path=tmp))
        if not os.path.exists(tmp):
            raise ValueError(f"{shard.name}: shard_fn returned without writing its table to shard.path")
        t = _checked(shard, tmp)
        _write_atomically(shard.table, t.text)
    finally:
        try:
            os.remove(tmp)
        except OSError:
            pass
    return dict(info, lines=t.lines, seconds=time.perf_counter() - t0)


# ---- the driver ----

# No dashboard, and the scheduler's HTTP routes on a free port rather than 8787 (which another
# cluster may hold).
_NO_DASHBOARD = {"dashboard": False, "dashboard_address": ":0"}


def _worker_softmx() -> str:
    import softmx
    return os.path.realpath(softmx.__file__)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _distributed():
    try:
        import distributed
    except ImportError as e:
        raise ImportError("softmx.distributed.sweep needs dask.distributed (pip install distributed; "
                          "Debian: apt-get install python3-distributed python3-dask)") from e
    return distributed


def _describe(e: BaseException, name: str = "") -> str:
    text = str(e)
    if name and text.startswith(name + ": "):
        text = text[len(name) + 2:]  # the shard's name is said once
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def sweep(src: str, to: str, *, shards: int, round: Optional[str] = None, sat: Optional[str] = None,
          tininess: str = "after", dialect: str = "ocp", out: Optional[PathLike] = None, client=None,
          workers: Optional[int] = None, shard_fn: Optional[ShardFn] = None, threads: Optional[int] = None,
          within=None, folder: Optional[PathLike] = None, keep: bool = False, resume: bool = False,
          retries: int = 0, progress: Optional[Callable[[int, int], object]] = None) -> RunTable:
    """Every input of `src` converted into `to`, in `shards` dask tasks, merged: the canonical
    run table, byte for byte softmx.sweep's (or, with shard_fn, one run of shard_fn over every
    input: any run table the shards give, joined).

    src, to, round, sat, tininess, dialect: as softmx.sweep (None: the dialect's default), the
        function named by every shard's header. They are checked before anything is submitted.
    shards: how many tasks (1 .. 2^w for a w-bit source); shard I covers the inputs
        `softmx sweep --shard I/N` does.
    out: the merged table's file (written atomically by softmx.merge); None returns its text.
    client: a dask.distributed Client to submit to (its workers must import the same softmx and
        see `folder`: on a cluster, a shared file system). None: a LocalCluster of `workers`
        processes (default min(shards, cores)), one thread each, made here and closed at the end.
    shard_fn: None computes each shard with softmx; otherwise the callable each task runs to write
        its shard's table (the module's contract: shard_fn(shard) writes shard.path).
    threads: the threads of softmx's sweep in each task (None: every core of the worker's machine;
        on the LocalCluster made here, cores // workers). The table does not depend on it.
    within: None (every input) or (k, M): only the inputs of shard k of M (softmx.sweep(...,
        shard=(k, M))'s range), cut into `shards`; see plan().
    folder: where the shard tables go (shared by the workers and this process). Default: OUT.shards
        beside `out`, or a temporary folder on this machine (removed at the end) when out is None:
        on a cluster, give `out` or `folder` on a file system every worker sees.
    keep: keep the shard tables after the merge (default: removed, and the folder too when it
        was made here and is left empty).
    resume: keep shard tables already in the folder that are complete tables of their shard
        (from an earlier call that failed or was stopped) instead of computing them again.
    retries: how many times dask runs a failed shard again (Client.submit's retries).
    progress: None, or a callable progress(done, total) called with the shards finished.

    Raises ShardError naming every failed shard (nothing merged, out not written); ValueError
    for bad settings; ImportError when dask.distributed is not installed.
    """
    shards_list = plan(src, to, shards=shards, round=round, sat=sat, tininess=tininess, dialect=dialect, within=within)
    retries = int_arg(retries, "retries", lo=0, hi=1000)
    th = None if threads is None else (threads_arg(threads) or None)
    if workers is not None:
        workers = int_arg(workers, "workers", lo=1, hi=4096)
    if shard_fn is not None and not callable(shard_fn):
        raise TypeError(f"shard_fn must be callable (shard_fn(shard) writes shard.path), got {type(shard_fn).__name__}")
    out_path = None if out is None else os.fspath(out)
    temporary = folder is None and out_path is None
    if folder is None:
        folder = tempfile.mkdtemp(prefix="softmx-shards-") if temporary else out_path + ".shards"
    folder = os.path.abspath(os.fspath(folder))
    made_folder = not os.path.isdir(folder)
    os.makedirs(folder, exist_ok=True)
    shards_list = [dataclasses.replace(s, table=os.path.join(folder, os.path.basename(s.table))) for s in shards_list]
    dd = _distributed()

    try:
        if client is not None:
            tables = _run_all(dd, client, shards_list, shard_fn, th, resume, retries, progress, folder, temporary)
        else:
            n = workers or min(len(shards_list), _cores())
            if th is None:
                th = max(1, _cores() // n)
            with dd.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                 scheduler_kwargs=_NO_DASHBOARD, silence_logs=logging.ERROR) as cluster, \
                    dd.Client(cluster) as c:
                try:
                    where = set(c.run(_worker_softmx).values())
                except Exception as e:  # noqa: BLE001: any failure here is the workers' import
                    raise RuntimeError("the LocalCluster's workers cannot import softmx: start Python with "
                                       "PYTHONPATH naming the folder that holds the softmx package "
                                       f"({_describe(e)})") from e
                here = _worker_softmx()
                if where != {here}:
                    raise RuntimeError(f"the LocalCluster's workers import softmx from {sorted(where)}, this process "
                                       f"from {here}: set PYTHONPATH so that both import the same package")
                tables = _run_all(dd, c, shards_list, shard_fn, th, resume, retries, progress, folder, temporary)
        result = _merge(tables, out=out_path)
        if not keep and not temporary:
            for t in tables:
                try:
                    os.remove(t)
                except OSError:
                    pass
            if made_folder:
                try:
                    os.rmdir(folder)
                except OSError:
                    pass
        return result
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def _run_all(dd, client, shards: Sequence[Shard], shard_fn, threads, resume, retries, progress, folder,
             temporary) -> List[str]:
    """Submits one task per shard, waits for all, and returns their tables in order; ShardError
    when any failed (after all have finished)."""
    token = uuid.uuid4().hex[:8]
    futures = [client.submit(run_shard, s, shard_fn, threads=threads, resume=resume, retries=retries, pure=False,
                             key=f"softmx-shard-{s.index}-of-{s.count}-{token}") for s in shards]
    by_key = {f.key: s for f, s in zip(futures, shards)}
    try:
        done = 0
        for _ in dd.as_completed(futures):
            done += 1
            if progress is not None:
                progress(done, len(futures))
    except BaseException:
        client.cancel(futures)
        raise
    failed = {}
    for f in futures:
        if f.status != "finished":
            try:
                e = f.exception()
            except BaseException as x:  # noqa: BLE001: a cancelled future raises instead of returning
                e = x
            failed[by_key[f.key]] = e if e is not None else RuntimeError(f"task {f.status}")
    if failed:
        lines = [f"  {s.name}: {_describe(e, s.name)}" for s, e in sorted(failed.items(), key=lambda kv: kv[0].index)]
        where = "" if temporary else f"; the other shards' tables are in {folder} (resume=True takes them up)"
        first = min(failed, key=lambda s: s.index)
        raise ShardError(f"softmx.distributed.sweep: {len(failed)} of {len(shards)} shards failed, nothing was "
                         f"merged{where}:\n" + "\n".join(lines), failed, None if temporary else folder) from failed[first]
    return [s.table for s in shards]
