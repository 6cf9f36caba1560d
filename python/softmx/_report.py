"""The certificate: `softmx report` as softmx.report(), and the notebook views of results.

softmx.report() runs the library's make_report (include/softmx/vectors/report_data.hpp, the call
`softmx report` makes): every number of the page (verdicts, per-class counts, failure locations,
ulp errors, identify's scores) is the library's, returned as its JSON (docs/REPORT.md); the page
is drawn by _report_render (jinja2, matplotlib SVG inline), the renderer `softmx report` runs too.

VerifyResult, IdentifyResult and TableDiff show themselves in a notebook (_repr_html_) through
the same renderer, from the data they already hold (no file is read again): the verdict, the
counts, the completeness, the first failures with their explanations and, for identify, the
agreement of every setting as a bar chart. The per-class counts and failure plots of a file come
with softmx.report(path).
"""

from __future__ import annotations

import dataclasses
import html as _html
import json as _json
import os
import shlex
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _softmx
from ._arrays import int_arg, threads_arg
from ._progress import run_with_progress
from ._vectors import IdentifyResult, RunTable, TableDiff, VerifyResult, _c, _input_file, _path_arg, _Verdict

PathLike = Union[str, bytes, "os.PathLike[str]"]


@dataclasses.dataclass(frozen=True)
class Report(_Verdict):
    """softmx's certificate for some results: `status` ("pass", "fail", "unproven") and
    `exit_status` (0, 1, 3: those `softmx verify`, identify and diff give for the same files),
    `verdict` (one line), `json` (the library's report data, docs/REPORT.md; `data` parsed),
    `html` (the self-contained page; None when render=False) and `path` (where it was written,
    or None). bool() is True for a pass; str() is the verdict; a notebook shows the page."""

    status: str
    exit_status: int
    verdict: str
    json: str
    html: Optional[str]
    path: Optional[str]

    @property
    def data(self) -> Dict[str, Any]:
        return _json.loads(self.json)

    def __str__(self) -> str:
        return self.verdict + (f" (written to {self.path})" if self.path else "")

    def save(self, path: PathLike) -> str:
        """Writes the page to `path` (atomically: a temporary file beside it, renamed)."""
        if self.html is None:
            raise ValueError("this report was made with render=False: it has no page")
        return _write_atomic(_path_arg(path, "path"), self.html)

    def _repr_html_(self) -> str:
        from ._report_render import render_html
        return render_html(self.data, fragment=True)


def _write_atomic(path: str, text: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _file_of(x, what: str) -> str:
    """A path to read: a path itself, or the file a result object was made from."""
    if isinstance(x, (VerifyResult, IdentifyResult)):
        if not os.path.isfile(os.fsencode(x.file)):
            raise ValueError(f"{what}: the {type(x).__name__} was not made from a file ({x.file!r}): write the text "
                             "to a file and pass its path")
        return x.file
    if isinstance(x, RunTable):
        if x.path is None:
            raise ValueError(f"{what}: this RunTable was not written to a file: sweep(..., out=PATH) writes one")
        return x.path
    if isinstance(x, TableDiff):
        raise TypeError(f"{what}: a TableDiff holds no paths: pass the tables as diff=(a, b)")
    return _input_file(x, what)


def _pairs(diff) -> List[Tuple[str, str]]:
    if diff is None:
        return []
    if isinstance(diff, tuple) and len(diff) == 2 and not isinstance(diff[0], (tuple, list)):
        diff = [diff]
    out = []
    for p in diff:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise TypeError(f"diff: expected a pair (a, b) of run tables or a list of pairs, got {p!r}")
        out.append((_file_of(p[0], "diff"), _file_of(p[1], "diff")))
    return out


def _list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (str, bytes, os.PathLike, VerifyResult, IdentifyResult, RunTable)):
        return [x]
    return list(x)


def report(*files, identify=(), diff=(), out: Optional[PathLike] = None, max_failures: int = 20,
           threads: Optional[int] = None, accept_unproven: bool = False, expect_cases: Optional[int] = None,
           title: Optional[str] = None, render: bool = True, progress=None) -> Report:
    """The certificate for some results: `softmx report FILE... [--identify F] [--diff A B] -o OUT`.

    files: results files of any operation and run tables (paths, or VerifyResult and RunTable
        objects made from files), each verified as softmx.verify(path) verifies it;
    identify: a path (or IdentifyResult) or a list of them, each identified as softmx.identify does;
    diff: a pair (a, b) of run tables (paths or RunTable objects written to files), or a list of
        pairs, each compared as softmx.diff does.
    out: where to write the page (atomically); None: not written (Report.html holds it).
    max_failures: failures kept whole per input (20; every count is complete); threads: None uses
    every core; accept_unproven, expect_cases: as verify's; title: the page's title.
    render: False returns the report's data without drawing the page (no matplotlib or jinja2
        needed then).

    Returns a Report: .status, .exit_status (those of `softmx verify` and friends for the same
    files), .verdict, .json (the library's data) and .html. Raises ValueError for a malformed
    file (named, with the line: the CLI's message), FileNotFoundError for a missing one, and
    ImportError naming the Debian packages when the page cannot be drawn.
    """
    vf: List[str] = []
    idf: List[str] = []
    for x in files:
        if isinstance(x, IdentifyResult):
            idf.append(_file_of(x, "files"))
        else:
            vf.append(_file_of(x, "files"))
    idf += [_file_of(x, "identify") for x in _list(identify)]
    pairs = _pairs(diff)
    if not vf and not idf and not pairs:
        raise ValueError("nothing to report: give results files or run tables, identify=... or diff=(a, b)")
    mf = int_arg(max_failures, "max_failures", lo=1, hi=100000)
    th = threads_arg(threads)
    ex = int_arg(expect_cases, "expect_cases", True, lo=0, hi=(1 << 64) - 1)
    if not isinstance(accept_unproven, bool):
        raise TypeError(f"accept_unproven must be True or False, got {type(accept_unproven).__name__}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    path = None if out is None else _path_arg(out, "out")
    # The command line that makes the same report (provenance and "how to reproduce").
    args = ["softmx", "report"] + vf
    for f in idf:
        args += ["--identify", f]
    for a, b in pairs:
        args += ["--diff", a, b]
    if mf != 20:
        args += ["--max-failures", str(mf)]
    if accept_unproven:
        args.append("--accept-unproven")
    if ex is not None:
        args += ["--expect-cases", str(ex)]
    if title:
        args += ["--title", title]
    args += ["-o", path if path is not None else "REPORT.html"]
    command = " ".join(shlex.quote(os.fsdecode(a)) for a in args)
    raw = run_with_progress(
        lambda cb: _softmx.report_data([_c(p) for p in vf], [_c(p) for p in idf], [(_c(a), _c(b)) for a, b in pairs],
                                       mf, th, accept_unproven, ex, command.encode("utf-8", "surrogateescape"),
                                       (title or "").encode("utf-8"), cb),
        progress, "report")
    text = raw.decode("ascii")
    data = _json.loads(text)
    page = None
    if render:
        from ._report_render import MISSING, render_html
        if MISSING:
            raise ImportError("drawing the report needs " + " and ".join(MISSING) +
                              " (Debian: apt-get install python3-matplotlib python3-jinja2); render=False returns the "
                              "data without the page")
        page = render_html(data)
        if path is not None:
            _write_atomic(path, page)
    return Report(data["status"], int(data["exit_status"]), data["verdict"], text, page,
                  path if (render and path is not None) else None)


# ---- notebook views of results (from the data they hold) ----

def _hexes(values) -> str:
    return " ".join(format(int(v), "X") for v in values) if values is not None else ""


def _verify_data(v: VerifyResult) -> Dict[str, Any]:
    ver = _json.loads(v.json)
    fails = []
    for m, j in zip(v.mismatches, ver.get("mismatches", [])):
        f = {"range": m.first is not None, "report": m.report, "class": "", "ulps": "", "producers": "",
             "device": j.get("device", ""), "expected": j.get("expected", ""), "device_flags": j.get("device_flags"),
             "expected_flags": j.get("expected_flags", "")}
        if m.first is not None:
            f.update(where=f"{j['first']}..{j['last']}", operands=j["first"], count=m.count)
        else:
            f.update(where=m.where or f"line {m.line}", operands=j.get("operands", ""))
        fails.append(f)
    verdict = v.summary.rstrip("\n").split("\n")[-1]
    entry = {"kind": "verify", "file": {"path": v.file, "sha256": "", "bytes": "", "modified": ""},
             "description": v.operation, "layout": v.layout, "status": v.status, "exit_status": v.exit_status,
             "verdict": verdict, "verify": ver, "completeness_text": v.completeness.text, "failures": fails,
             "reproduce": [{"command": "softmx verify " + shlex.quote(v.file), "expect": f"exit status {v.exit_status}"}]}
    return _page(v.status, v.exit_status, verdict, "softmx.verify", verified=[entry], max_failures=len(fails))


def _identify_data(r: IdentifyResult) -> Dict[str, Any]:
    keys: List[str] = []
    groups: Dict[str, List[Any]] = {}
    for c in r.ranking:
        if c.key not in groups:
            keys.append(c.key)
            groups[c.key] = []
        groups[c.key].append(c)
    best = r.ranking[0]
    bars = []
    for k in keys:
        top = groups[k][0]
        bars.append({"key": k, "agree": top.agree, "total": top.total, "exact": top.exact, "percent": top.percent,
                     "best": top is best,
                     "dialects": [c.dialect for c in groups[k]
                                  if (c.agree, c.total, c.exact) == (top.agree, top.total, top.exact)]})
    ranking = [{"key": c.key, "dialect": c.dialect, "description": c.description, "agree": c.agree, "total": c.total,
                "exact": c.exact, "percent": c.percent, "differences": c.differences} for c in r.ranking]
    status = "pass" if r.identified else ("unproven" if r.agrees and r.completeness.status == "unproven" else "fail")
    exit_status = {"pass": 0, "fail": 1, "unproven": 3}[status]
    fails = [{"range": m.first is not None, "where": m.where or f"{m.first:X}..{m.last:X}",
              "operands": _hexes(m.operands if m.operands is not None else [m.first]), "device": _hexes(m.device),
              "expected": _hexes(m.expected),
              "device_flags": None if m.device_flags is None else format(m.device_flags, "02X"),
              "expected_flags": format(m.expected_flags, "02X"), "count": m.count, "class": "", "ulps": "",
              "producers": "", "report": m.report} for m in best.disagreements]
    verdict = (f"best: {best.description}: " +
               ("identified" if r.identified else f"agrees on {best.agree} of {best.total}" +
                ("" if best.exact else " sampled")))
    comp = dataclasses.asdict(r.completeness)
    comp["inputs_sha256"] = comp.pop("sha256")
    comp["expected_inputs_sha256"] = comp.pop("expected_sha256")
    entry = {"kind": "identify", "file": {"path": r.file, "sha256": "", "bytes": "", "modified": ""},
             "description": r.header.get("description", ""), "layout": "runs" if r.runs else "cases",
             "status": status, "exit_status": exit_status, "verdict": verdict, "completeness": comp,
             "completeness_text": r.completeness.text, "best": ranking[0], "bars": bars, "ranking": ranking,
             "policy_differences": list(r.policy_differences), "failures": fails,
             "reproduce": [{"command": "softmx identify " + shlex.quote(r.file), "expect": f"exit status {exit_status}"}]}
    return _page(status, exit_status, verdict, "softmx.identify", identified=[entry], max_failures=len(fails))


def _diff_data(t: TableDiff) -> Dict[str, Any]:
    status = "pass" if t.ranges == 0 else "fail"
    verdict = ("identical: every input gives the same result" if t.ranges == 0 else
               f"differ: {t.ranges} ranges, {t.differing_inputs} of {t.inputs} inputs")
    diffs = [{"first": format(d["first"], "X"), "last": format(d["last"], "X"), "count": d["count"],
              "a": format(d["a_code"], "X"), "b": format(d["b_code"], "X"),
              "a_flags": None if d.get("a_flags") is None else format(d["a_flags"], "02X"),
              "b_flags": None if d.get("b_flags") is None else format(d["b_flags"], "02X"),
              "input_text": format(d["first"], "X"), "a_text": format(d["a_code"], "X"), "b_text": format(d["b_code"], "X"),
              "a_reason": "", "b_reason": ""} for d in t.differences]
    entry = {"kind": "diff", "a": {"file": {"path": "A: " + t.a, "sha256": "", "bytes": "", "modified": ""}},
             "b": {"file": {"path": "B: " + t.b, "sha256": "", "bytes": "", "modified": ""}},
             "inputs": t.inputs, "ranges": t.ranges, "differing_inputs": t.differing_inputs, "status": status,
             "exit_status": 0 if status == "pass" else 1, "verdict": verdict, "differences": diffs, "reproduce": []}
    return _page(status, entry["exit_status"], verdict, "softmx.diff", diffs=[entry], max_failures=len(diffs))


def _page(status, exit_status, verdict, command, **entries) -> Dict[str, Any]:
    from . import __version__
    d = {"schema": "softmx-report/1", "title": command + " result", "softmx": {"version": __version__, "build": ""},
         "command": command, "date": "", "status": status, "exit_status": exit_status,
         "verdict": status.upper() + ": " + verdict, "verified": [], "identified": [], "diffs": [], "reproduce": [],
         "max_failures": 20}
    d.update(entries)
    return d


def repr_html(obj) -> str:
    """The notebook view of a VerifyResult, IdentifyResult or TableDiff (or a <pre> of its text
    when jinja2 is missing)."""
    try:
        from ._report_render import render_html
        if isinstance(obj, VerifyResult):
            return render_html(_verify_data(obj), fragment=True)
        if isinstance(obj, IdentifyResult):
            return render_html(_identify_data(obj), fragment=True)
        if isinstance(obj, TableDiff):
            return render_html(_diff_data(obj), fragment=True)
    except ImportError:
        pass
    return "<pre>" + _html.escape(str(obj)) + "</pre>"
