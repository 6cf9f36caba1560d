"""softmx.gen, verify, identify, sweep and explain: the library's vector engine from Python, checked
against the `softmx` command on the same arguments (the same bytes, the same counts, the same
text), and every committed vector file verified through Python."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

import softmx

from conftest import cli_path

SOURCE = pathlib.Path(os.environ.get("SOFTMX_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
VECTORS = SOURCE / "vectors"


def _manifest():
    """(path, long): every vector file vectors/MANIFEST lists (made by softmx gen or sweep; the
    recipe outputs under recipes/ and the GEMM golden files under gemm/ are other formats, checked
    by test_recipe.py and test_committed_vectors); the run tables of all 2^32 f32 inputs are
    long (about 2 s of CPU each; ctest -L long), except one kept in the default run."""
    out = []
    kept_f32 = False
    for line in (VECTORS / "MANIFEST").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        _sha, path, command = line.split("\t")
        if not command.startswith(("softmx gen ", "softmx sweep ")):
            continue
        f32_sweep = command.startswith("softmx sweep") and " --from f32 " in command
        long = f32_sweep and kept_f32
        kept_f32 |= f32_sweep
        out.append((path, long))
    return out


def _other_vector_files():
    """Vector files outside the MANIFEST: hardware captures (vectors/cuda/, vectors/published/)."""
    return sorted(str(p.relative_to(VECTORS)) for sub in ("cuda", "published") for p in (VECTORS / sub).rglob("*.vec"))


MANIFEST = _manifest()
COMMITTED = [pytest.param(p, marks=[pytest.mark.long] if long else [], id=p) for p, long in MANIFEST] + \
            [pytest.param(p, id=p) for p in _other_vector_files()]


def test_manifest_lists_every_kind():
    kinds = {p.split("/")[0] for p, _ in MANIFEST}
    assert {"blocks", "dot", "runs"} <= kinds
    assert len(MANIFEST) > 300


@pytest.mark.parametrize("path", COMMITTED)
def test_committed_vector_file_verifies(path):
    # Published captures carry their count and digest but no level and seed: softmx cannot
    # regenerate them, so their completeness is unproven (docs/VECTORS.md), a pass only when
    # accepted; everything softmx wrote is proven complete.
    published = path.startswith("published/")
    r = softmx.verify(VECTORS / path, max_errors=5, accept_unproven=published)
    assert r.mismatched == 0, "".join(m.report for m in r.mismatches)
    assert r.mismatches == []
    assert r.cases > 0 and r.matched == r.cases
    if published:
        assert r.completeness.status == "unproven" and r.accepted_unproven, r.completeness.text
        assert softmx.verify(VECTORS / path, max_errors=0).status == "unproven"
    else:
        assert r.completeness.complete, r.completeness.text
    assert r.passed and bool(r) and r.exit_status == 0


# ---- planted mismatches ----

def _copy(tmp_path, rel):
    dst = tmp_path / pathlib.Path(rel).name
    shutil.copyfile(VECTORS / rel, dst)
    return dst


def _data_lines(text):
    """(index in text.splitlines(), line) of the data lines (not header, not comments)."""
    lines = text.splitlines()
    return [(i, l) for i, l in enumerate(lines) if l and not l.startswith("#") and " = " not in l]


def test_planted_result_mismatch_is_reported_at_its_line(tmp_path):
    p = _copy(tmp_path, "blocks/dequantize-e4m3-f32.vec")
    lines = p.read_text().splitlines()
    data = _data_lines(p.read_text())
    idx, line = data[len(data) // 2]
    fields = line.split()
    # dequantize: SCALE IN OUT FLAGS; flip the lowest bit of OUT.
    out = int(fields[2], 16) ^ 1
    fields[2] = format(out, f"0{len(fields[2])}X")
    lines[idx] = " ".join(fields)
    p.write_text("\n".join(lines) + "\n")
    before = p.read_bytes()
    r = softmx.verify(p)
    assert p.read_bytes() == before  # the input is never modified
    assert (r.mismatched, r.result_mismatches, r.flags_only_mismatches) == (1, 1, 0)
    assert not r.passed
    assert r.completeness.complete  # the operands are untouched
    (m,) = r.mismatches
    assert m.line == idx + 1 and m.where == f"{p} line {idx + 1}"
    assert m.device == [out] and m.expected == [out ^ 1]
    assert m.operands == [int(f, 16) for f in line.split()[:2]]
    assert f"line {idx + 1}" in m.report
    # The CLI agrees on the line and the values.
    if cli_path():
        cp = subprocess.run([cli_path(), "verify", "--json", str(p)], capture_output=True, text=True)
        assert cp.returncode == 1
        j = json.loads(cp.stdout)
        assert j["mismatched"] == 1 and j["mismatches"][0]["line"] == m.line
        assert j["mismatches"][0]["device"] == format(out, "08X")


def test_planted_flags_mismatch_is_flags_only(tmp_path):
    p = _copy(tmp_path, "dot/dot-e4m3-e4m3-k32-exact-L1.vec")
    lines = p.read_text().splitlines()
    idx, line = _data_lines(p.read_text())[3]
    fields = line.split()
    fields[-1] = format(int(fields[-1], 16) ^ 0x01, "02X")  # inexact flipped
    lines[idx] = " ".join(fields)
    p.write_text("\n".join(lines) + "\n")
    r = softmx.verify(p)
    assert (r.mismatched, r.result_mismatches, r.flags_only_mismatches) == (1, 0, 1)
    assert r.mismatches[0].line == idx + 1 and not r.mismatches[0].result_differs


def test_planted_run_mismatch_is_one_range(tmp_path):
    p = _copy(tmp_path, "runs/ocp/f16/" + sorted(os.listdir(VECTORS / "runs/ocp/f16"))[0])
    lines = p.read_text().splitlines()
    data = _data_lines(p.read_text())
    idx, line = data[len(data) // 2]
    first, out = line.split()[:2]
    nxt = int(data[len(data) // 2 + 1][1].split()[0], 16)
    fields = line.split()
    fields[1] = format(int(out, 16) ^ 1, f"0{len(out)}X")
    lines[idx] = " ".join(fields)
    p.write_text("\n".join(lines) + "\n")
    r = softmx.verify(p)
    assert r.ranges == 1 and r.result_mismatches == nxt - int(first, 16)
    (m,) = r.mismatches
    assert (m.first, m.last) == (int(first, 16), nxt - 1)
    assert m.device == [int(out, 16) ^ 1] and m.expected == [int(out, 16)]


def test_dropped_line_is_incomplete(tmp_path):
    p = _copy(tmp_path, "blocks/quantize-f32-e2m1-k32-floor-L1.vec")
    lines = p.read_text().splitlines()
    idx, _ = _data_lines(p.read_text())[5]
    del lines[idx]
    p.write_text("\n".join(lines) + "\n")
    r = softmx.verify(p)
    assert r.mismatched == 0 and not r.passed
    assert r.completeness.status == "incomplete" and r.completeness.missing == 1
    assert "INCOMPLETE" in r.completeness.text


# ---- gen: the CLI's bytes ----

GEN_CASES = [
    ("convert", dict(src="e2m1", to="e4m3")),
    ("convert", dict(src="f16", to="e5m2", dialect="cuda")),
    ("convert", dict(src="f32", to="e4m3", round="rz", sat="none", level=2, count=300, seed=7)),
    ("convert", dict(src="e5m2", to="e4m3fnuz")),
    ("convert", dict(src="bf16", to="e2m1", round="rs", rbits=8, level=1)),
    ("quantize", dict(to="e4m3", level=2, count=40, seed=3)),
    ("quantize", dict(to="e2m1", src="bf16", block=16, scale="ceil", dialect="torchao")),
    ("dequantize", dict(src="e3m2")),
    ("dot", dict(a="e4m3", b="e5m2", acc="fp32-sequential", level=2, count=25)),
    ("mma", dict(a="e4m3", b="e4m3", level=2, count=20, accumulator="f16", addend=False)),
    ("convert", dict(src="e4m3", to="f32", inputs_only=True)),
    ("convert", dict(src="e2m3", to="f16", export="readmemh")),
    # Runtime element specs (issue 14): the header names the canonical spec.
    ("quantize", dict(to="e1m2", block=8, level=2, count=30)),
    ("quantize", dict(to="e4m3:bias=11:specials=fnuz", scale="rceil", round="rz")),
    ("dequantize", dict(src="int4", to="bf16")),
    ("dot", dict(a="e4m3fnuz", b="e2m2", level=2, count=20)),
    # mma's block scales: the model's defaults, and given.
    ("mma", dict(a="e2m1", b="e2m1", model="blackwell-mxf4")),
    ("mma", dict(a="e2m1", b="e2m1", model="blackwell-nvf4", level=2, count=10)),
    ("mma", dict(a="e4m3", b="e5m2", model="blackwell-mxf8f6f4", scale_block=16, block=32)),
    ("mma", dict(a="e2m1", b="e2m1", model="blackwell-mxf4", scale_format="ue8m0", scale_block=16, block=64)),
    ("mma", dict(a="e4m3", b="e4m3", model="blackwell-mxf8f6f4", scale_format="none")),
]


def _cli_args(operation, kw):
    args = ["gen", operation]
    for k, v in kw.items():
        if k == "inputs_only":
            args.append("--inputs-only")
        elif k == "addend":
            args += ["--addend", "yes" if v else "no"]
        elif k in ("scale_format", "scale_block"):
            args += ["--" + k.replace("_", "-"), str(v)]
        else:
            args += ["--" + ("from" if k == "src" else k), str(v)]
    return args


@pytest.mark.parametrize("operation,kw", GEN_CASES, ids=[f"{o}-{i}" for i, (o, _) in enumerate(GEN_CASES)])
def test_gen_writes_the_cli_bytes(tmp_path, operation, kw):
    path = cli_path()
    if path is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    py_file, cli_file = tmp_path / "py.vec", tmp_path / "cli.vec"
    r = softmx.gen(operation, out=py_file, **kw)
    subprocess.run([path] + _cli_args(operation, kw) + ["-o", str(cli_file)], check=True)
    assert py_file.read_bytes() == cli_file.read_bytes()
    mem = softmx.gen(operation, **kw)
    assert mem.text.encode() == cli_file.read_bytes() and str(r) == mem.text
    assert r.cases == mem.cases > 0 and r.path == str(py_file)
    if not kw.get("inputs_only") and not kw.get("export"):
        assert softmx.verify(py_file).passed


def test_gen_output_replaces_a_file_atomically(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text("old")
    softmx.gen("convert", src="e2m1", to="e3m2", out=str(p))
    assert p.read_text().startswith("softmx-vectors = 1\n")
    assert os.listdir(tmp_path) == ["v.vec"]


# ---- sweep: the CLI's bytes ----

SWEEP_CASES = [
    ("e4m3", "e2m1", {}),
    ("bf16", "e4m3", dict(dialect="cuda", shard="1/4")),
    ("f16", "e5m2", dict(round="rz", sat="none", shard=(3, 8))),
    ("e5m2", "e3m4", {}),
    ("e4m3fnuz", "e2m3", dict(round="ru")),
]


@pytest.mark.parametrize("src,to,kw", SWEEP_CASES, ids=[f"{s}-{t}" for s, t, _ in SWEEP_CASES])
def test_sweep_writes_the_cli_bytes(tmp_path, src, to, kw):
    path = cli_path()
    if path is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    args = [path, "sweep", "--from", src, "--to", to, "--threads", "2"]
    for k, v in kw.items():
        args += ["--" + k, v if isinstance(v, str) else f"{v[0]}/{v[1]}"]
    cli_file = tmp_path / "cli.vec"
    subprocess.run(args + ["-o", str(cli_file)], check=True)
    t = softmx.sweep(src, to, threads=2, out=tmp_path / "py.vec", **kw)
    assert (tmp_path / "py.vec").read_bytes() == cli_file.read_bytes()
    m = softmx.sweep(src, to, **kw)
    assert m.text == cli_file.read_bytes() and str(t) == str(m) and t.lines == m.lines
    first, last, code, flags = m.runs()
    assert len(first) == m.lines and first[0] == m.first and last[-1] == m.last
    assert np.all(first[1:] == last[:-1] + 1) and np.all(flags >= 0)
    # The runs are the conversions: every input of the range through softmx.convert.
    inputs = np.arange(m.first, m.last + 1, dtype=np.uint64)
    src_info = softmx.format_info(src)
    st = {1: np.uint8, 2: np.uint16}[src_info.storage_bytes]
    codes, fl = softmx.encode(inputs.astype(st), to, src=src, round=kw.get("round"), sat=kw.get("sat"),
                               dialect=kw.get("dialect", "ocp"), flags=True)
    lengths = (last - first + 1).astype(np.int64)
    assert np.array_equal(np.repeat(code, lengths), codes.astype(np.uint64))
    assert np.array_equal(np.repeat(flags, lengths), fl.astype(np.int16))


def test_merged_shards_are_the_whole_sweep(tmp_path):
    whole = softmx.sweep("bf16", "e2m3", round="rz", dialect="cuda")
    paths = []
    for i in (2, 0, 3, 1):  # any order
        paths.append(tmp_path / f"s{i}.vec")
        softmx.sweep("bf16", "e2m3", round="rz", dialect="cuda", shard=(i, 4), out=paths[-1])
    m = softmx.merge(paths)
    assert m.text == whole.text and m.lines == whole.lines and (m.first, m.last) == (0, 0xFFFF)
    assert m.header == whole.header
    softmx.merge(paths, out=tmp_path / "all.vec")
    assert (tmp_path / "all.vec").read_bytes() == whole.text
    if cli_path():
        subprocess.run([cli_path(), "merge", "-o", str(tmp_path / "cli.vec")] + [str(p) for p in paths], check=True)
        assert (tmp_path / "cli.vec").read_bytes() == whole.text
    with pytest.raises(ValueError, match=r"gap|adjacent|missing|cover"):
        softmx.merge(paths[1:])  # shard 2 of 4 left out


def test_diff_is_the_cli_diff(tmp_path):
    a = softmx.sweep("f16", "e5m2", dialect="ocp", out=tmp_path / "a.vec")
    b = softmx.sweep("f16", "e5m2", round="rz", out=tmp_path / "b.vec")
    d = softmx.diff(tmp_path / "a.vec", b, max_ranges=3)
    assert not d and d.flags_compared and len(d.differences) == 3 and d.inputs == 1 << 16
    assert softmx.diff(a, a) and softmx.diff(a, a).ranges == 0
    # The differences are the conversions' differences, input by input.
    x = np.arange(1 << 16, dtype=np.uint64).astype(np.uint16)
    ca, fa = softmx.encode(x, "e5m2", src="f16", flags=True)
    cb, fb = softmx.encode(x, "e5m2", src="f16", round="rz", flags=True)
    differ = (ca != cb) | (fa != fb)
    assert d.differing_inputs == int(differ.sum())
    first = d.differences[0]
    assert differ[first["first"]:first["last"] + 1].all() and not differ[first["first"] - 1]
    assert (first["a_code"], first["b_code"]) == (ca[first["first"]], cb[first["first"]])
    if cli_path():
        cp = subprocess.run([cli_path(), "diff", str(tmp_path / "a.vec"), str(tmp_path / "b.vec")], capture_output=True,
                            text=True)
        assert cp.returncode == 1
        assert f"differ: {d.ranges} ranges, {d.differing_inputs} of 65536 inputs" in cp.stdout
    with pytest.raises(ValueError, match="not a run table"):
        softmx.diff(VECTORS / "blocks/dequantize-e2m1-f32.vec", a)
    with pytest.raises(ValueError, match="e4m3"):
        softmx.diff(a, softmx.sweep("e4m3", "e5m2"))


def test_verify_and_identify_take_text():
    g = softmx.gen("dequantize", src="e2m1")
    r = softmx.verify(text=g.text)
    assert r.passed and r.file == "<text>" and r.cases == g.cases
    assert softmx.identify(text=g.text.encode()).identified
    bad = g.text.replace("softmx-vectors = 1", "softmx-vectors = 2")
    with pytest.raises(ValueError, match=r"mine\.vec line 1"):
        softmx.verify("mine.vec", text=bad)


# ---- identify ----

def test_identify_finds_the_rounding_the_header_hides(tmp_path):
    g = softmx.gen("convert", src="f16", to="e4m3", round="rz")
    text = g.text.replace("rounding = rz\n", "rounding = rne\n")
    p = tmp_path / "device.vec"
    p.write_text(text)
    v = softmx.verify(p)
    assert v.result_mismatches > 0
    r = softmx.identify(p)
    assert r.identified and r.agrees
    assert r.best.rounding == "rz" and r.best.agree == r.best.total == v.cases
    assert "rz" in r.best.differences
    assert r.ranking[-1].agree < r.best.agree
    path = cli_path()
    if path:
        cp = subprocess.run([path, "identify", str(p)], capture_output=True, text=True)
        assert cp.returncode == 0
        for g in r.groups[:5]:
            assert g["settings"] in cp.stdout
        assert "best: rz finite, dialect ocp" in cp.stdout


def test_identify_a_disagreeing_device(tmp_path):
    p = _copy(tmp_path, "blocks/dequantize-e2m1-f32.vec")
    lines = p.read_text().splitlines()
    idx, line = _data_lines(p.read_text())[10]
    f = line.split()
    f[2] = format(int(f[2], 16) ^ 0x100, "08X")
    lines[idx] = " ".join(f)
    p.write_text("\n".join(lines) + "\n")
    r = softmx.identify(p)
    assert not r.agrees and not r.identified
    assert r.best.total - r.best.agree == 1
    (d,) = r.best.disagreements
    assert d.line == idx + 1 and d.where.endswith(f" line {idx + 1}") and d.report


# ---- explain: the CLI's text ----

EXPLAIN_CASES = [
    ("464", "e4m3", {}),
    ("0.1", "e4m3", {}),
    ("-2.75", "e2m1", dict(round="rz")),
    ("1e10", "e5m2", dict(dialect="cuda")),
    ("7F800001", "e4m3", dict(src="f32")),
    ("3C00", "e2m1", dict(src="f16")),
    ("0.3", "e8m0", {}),
    ("0.015625001", "int8", dict(round="rs", rbits=8)),
    ("300", "e4m3fnuz", {}),
    ("7E", "e3m4", dict(src="e4m3")),
    ("1e-4", "e4m3", dict(sat="none", tininess="before")),
    ("0x1.0001p0", "bf16", dict(dialect="torchao")),
]


@pytest.mark.parametrize("value,to,kw", EXPLAIN_CASES, ids=[f"{v}-{t}" for v, t, _ in EXPLAIN_CASES])
def test_explain_text_is_the_cli_text(cli, value, to, kw):
    args = ["explain", "--to", to]
    for k, v in kw.items():
        args += ["--" + ("from" if k == "src" else k), str(v)]
    e = softmx.explain(value, to, **kw)
    assert str(e) == cli(args + ["--", value])


def test_explain_structure():
    e = softmx.explain("464", "e4m3")
    assert e.result == {"code": 0x7E, "flags": softmx.INEXACT, "value": "448"}
    assert e.neighbours["kind"] == "between" and e.neighbours["tie"]
    assert (e.neighbours["lo"], e.neighbours["hi"]) == (0x7E, 0x7F)
    assert "tie" in e.reason and e.rounding == "rne" and e.saturation == "finite"
    cell = [c for c in e.table if c["rounding"] == "rna" and c["saturation"] == "none" and c["dialect"] == "ocp"]
    assert cell[0]["code"] == 0x7F and cell[0]["flags"] == softmx.OVERFLOW | softmx.INEXACT  # away: 480 overflows to NaN
    given = [c for c in e.table if c["given"]]
    assert {c["rounding"] for c in given} == {"rne"} and len(given) == len(softmx.dialects())
    # A Python float is its f64 value, exactly; an int is that integer.
    assert softmx.explain(0.1, "e4m3").src == "f64"
    assert softmx.explain(0.1, "e4m3").exact != softmx.explain("0.1", "e4m3").exact
    assert str(softmx.explain(464, "e4m3")) == str(e).replace("464 (decimal", "464 (decimal")
    assert softmx.explain(0x7E, "f32", src="e4m3").code == 0x7E
    assert softmx.explain(np.float16(1.5), "e2m1").src == "f16"
    s = softmx.explain("0.015625001", "int8", round="rs", rbits=8).stochastic
    assert s["rbits"] == 8 and 0 <= s["first_bits"] < 256


@given(x=st.floats(width=32, allow_nan=True, allow_infinity=True),
       to=st.sampled_from(["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0", "bf16", "e4m3fnuz", "e3m4"]),
       rnd=st.sampled_from(["rne", "rna", "rz", "ru", "rd", "ro"]), sat=st.sampled_from(["finite", "none"]),
       dialect=st.sampled_from([d.name for d in softmx.dialects()]))
def test_explain_result_is_convert(x, to, rnd, sat, dialect):
    """explain's result, and every cell of its table, is what convert gives for the same f32."""
    v = np.array([x], np.float32)
    e = softmx.explain(v[0], to, round=rnd, sat=sat, dialect=dialect)
    assert e.src == "f32" and e.code == int(v.view(np.uint32)[0])
    try:
        codes, flags = softmx.encode(v, to, round=rnd, sat=sat, dialect=dialect, flags=True)
    except ValueError:
        assert e.result is None and e.unsupported
    else:
        assert e.result["code"] == int(codes[0]) and e.result["flags"] == int(flags[0])
    for cell in e.table:
        if cell["code"] is None:
            continue
        c, f = softmx.encode(v, to, round=cell["rounding"], sat=cell["saturation"], dialect=cell["dialect"], flags=True)
        assert (cell["code"], cell["flags"]) == (int(c[0]), int(f[0]))


# ---- runtime format specs, against the CLI ----

@pytest.mark.parametrize("spec", ["e4m3fnuz", "e5m2:bias=16", "e3m4", "float8_e4m3b11fnuz", "ue4m3", "int4"])
def test_runtime_spec_convert_matches_cli(cli, spec):
    x = np.array([0.0, -0.0, 1.0, -1.5, 3.14159, 1e-3, 200.0, 1e6, np.inf, -np.inf, np.nan, 0.3], np.float32)
    codes = softmx.encode(x, spec)
    bits = x.view(np.uint32)
    out = cli(["convert", "--from", "f32", "--to", spec], stdin="\n".join(format(int(b), "08X") for b in bits) + "\n")
    want = [int(l.split()[1], 16) for l in out.splitlines()]  # IN OUT FLAGS
    assert codes.tolist() == want
    info = softmx.format_info(spec)
    assert info.name == softmx.format_info(info.name).name
    back = softmx.decode(codes, spec, to="f32")
    out = cli(["convert", "--from", spec, "--to", "f32"], stdin="\n".join(format(int(c), f"0{(info.width + 3) // 4}X")
                                                                       for c in codes) + "\n")
    assert back.view(np.uint32).tolist() == [int(l.split()[1], 16) for l in out.splitlines()]


# ---- errors: by message ----

@pytest.mark.parametrize("call,exc,message", [
    (lambda: softmx.gen("transpose"), ValueError, r"unknown operation 'transpose' for operation \(expected convert"),
    (lambda: softmx.gen("convert", src="e2m1"), ValueError, r"missing to=FORMAT"),
    (lambda: softmx.gen("convert", to="e2m1"), ValueError, r"missing src=FORMAT"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", block=32), ValueError,
     r"block does not apply to gen\('convert'\) \(it takes src, to, round"),
    (lambda: softmx.gen("mma", a="e4m3fnuz", b="e4m3"), ValueError, r"a='e4m3fnuz': no tensor-core model takes a runtime"),
    (lambda: softmx.gen("quantize", to="f16"), ValueError, r"to must be an MX element format"),
    (lambda: softmx.gen("convert", src="e2m1", to="e9m9"), ValueError, r"bad format spec 'e9m9' for to: exp:"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", level=3), ValueError, r"level must be 1 or 2, got 3"),
    (lambda: softmx.gen("convert", src="f32", to="e4m3", count=5), ValueError, r"count sets the number of random "
                                                                                r"cases of level=2"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", level=2, count=5), ValueError, r"exhaustive at every level"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", round="nearest"), ValueError,
     r"unknown rounding mode 'nearest' for round"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", dialect="nvidia"), ValueError, r"unknown dialect 'nvidia'"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", rbits=8), ValueError, r"rbits applies only with round='rs'"),
    (lambda: softmx.gen("dot", a="e4m3", b="e4m3", acc="kahan"), ValueError, r"unknown accumulation model 'kahan' for acc"),
    (lambda: softmx.gen("dot", a="e4m3", b="e4m3", blocks=2000), ValueError, r"blocks must be an integer from 1 to 1024"),
    (lambda: softmx.gen("mma", a="e4m3", b="e4m3", model="volta"), ValueError, r"unknown tensor-core model 'volta' for "
                                                                               r"model"),
    (lambda: softmx.gen("mma", a="e4m3", b="e4m3", accumulator="f64"), ValueError, r"accumulator must be 'f32' or 'f16'"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", export="hex"), ValueError, r"unknown export 'hex' for export"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", level="2"), TypeError, r"level must be an int"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", seed=-1), ValueError, r"seed must be an integer from 0 to 18446744073709551615, got -1"),
    (lambda: softmx.gen("convert", src="e2m1", to=4), TypeError, r"to must be a format name .* or None, got int"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", inputs_only=1), TypeError, r"inputs_only must be True or False"),
    (lambda: softmx.gen("convert", src="e2m1", to="e4m3", out="/nonexistent-dir/x.vec"), OSError, r"/nonexistent-dir/x\.vec"),
    (lambda: softmx.verify("/nonexistent/results.vec"), FileNotFoundError, r"no such vector file: '/nonexistent/results\.vec'"),
    (lambda: softmx.verify(VECTORS), IsADirectoryError, r"is a folder, expected a vector file"),
    (lambda: softmx.verify(VECTORS / "README.md"), ValueError, r"README\.md line \d+: expected 'softmx-vectors = 1'"),
    (lambda: softmx.verify(3), TypeError, r"path must be a path"),
    (lambda: softmx.verify(VECTORS / "MANIFEST", max_errors=-1), ValueError, r"max_errors must be an integer from 0 to 2\*\*62"),
    (lambda: softmx.identify("/nonexistent/r.vec"), FileNotFoundError, r"'/nonexistent/r\.vec'"),
    (lambda: softmx.identify(VECTORS / "MANIFEST", exact=0), ValueError, r"exact must be an integer from 1"),
    (lambda: softmx.sweep("f64", "e4m3"), ValueError, r"cannot sweep f64: it has 2\^64 inputs"),
    (lambda: softmx.sweep("e4m3", "e2m1", shard="4/4"), ValueError, r"shard must be 'I/N' or \(I, N\)"),
    (lambda: softmx.sweep("e4m3", "e2m1", shard=[1]), TypeError, r"shard must be 'I/N' or a pair"),
    (lambda: softmx.sweep("e4m3", "e2m1", round="rs"), ValueError, r"cannot sweep with rounding rs: a run table "
                                                                   r"records a function of the input alone"),
    (lambda: softmx.gen("quantize", to="e4m3", dialect="ml_dtypes"), ValueError, r"ml_dtypes has scalar types only, "
                                                                                 r"no block quantization"),
    (lambda: softmx.gen("convert", src="f32", to="e4m3", round="rz", dialect="cuda"), ValueError,
     r"dialect cuda cannot convert to e4m3 with rounding rz"),
    (lambda: softmx.sweep("e4m3", "e9m0x"), ValueError, r"bad format spec 'e9m0x' for to"),
    (lambda: softmx.explain("abc", "e4m3"), ValueError, r"VALUE \"abc\""),
    (lambda: softmx.explain("7G", "e4m3", src="e4m3"), ValueError, r"value: expected 2 hex digits"),
    (lambda: softmx.explain(300, "f32", src="e4m3"), ValueError, r"value: expected"),
    (lambda: softmx.explain([1], "e4m3"), TypeError, r"value must be a str"),
    (lambda: softmx.explain("1", "e4m3", rbits=99), ValueError, r"rbits must be an integer from 1 to 64, got 99"),
    (lambda: softmx.explain("1", "e4m3", round="rz", dialect="cuda"), None, None),
])
def test_vector_errors(call, exc, message):
    if exc is None:
        e = call()  # a combination the dialect refuses is explained, not an error
        assert e.result is None and e.unsupported
        return
    with pytest.raises(exc, match=message):
        call()


def test_unwritable_output_is_an_oserror_naming_it(tmp_path):
    p = tmp_path / "ro.vec"
    p.write_text("x")
    p.chmod(0o444)
    with pytest.raises(OSError, match="ro.vec"):
        softmx.sweep("e2m1", "e4m3", out=p)
    assert p.read_text() == "x"


def test_writing_a_file_keeps_pythons_signal_handlers(tmp_path):
    """The library's output files remove their temporary on SIGINT by installing a handler that
    then kills the process: in Python, Ctrl-C after a gen or sweep to a file must still be a
    KeyboardInterrupt (a REPL or notebook must survive it)."""
    code = ("import os, signal, sys, time, softmx\n"
            f"softmx.sweep('e2m1', 'e4m3', out={str(tmp_path / 'a.vec')!r})\n"
            f"softmx.gen('convert', src='e2m1', to='e4m3', out={str(tmp_path / 'b.vec')!r})\n"
            f"softmx.merge([{str(tmp_path / 'a.vec')!r}], out={str(tmp_path / 'c.vec')!r})\n"
            "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
            "try:\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    time.sleep(5)\n"
            "except KeyboardInterrupt:\n"
            "    print('KeyboardInterrupt')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == "KeyboardInterrupt\n", (r.returncode, r.stderr)
    assert sorted(os.listdir(tmp_path)) == ["a.vec", "b.vec", "c.vec"]


# ---- gen: runtime element specs and mma's block scales (issue 14) ----

def _keys(r):
    return dict(line.split(" = ", 1) for line in r.header.splitlines() if " = " in line)


def test_gen_runtime_elements_name_the_canonical_spec():
    r = softmx.gen("dot", a="e4m3:bias=11:specials=fnuz", b="INT4")
    assert _keys(r)["a"] == "e4m3b11fnuz" and _keys(r)["b"] == "int4"
    q = softmx.gen("quantize", to="e1m2", block=4)
    assert _keys(q)["to"] == "e1m2" and q.cases > 100
    d = softmx.gen("dequantize", src="e4m3fnuz")
    assert _keys(d)["from"] == "e4m3fnuz" and d.cases == 256 * 256
    # A spec equal to a named format is that format, with its bytes.
    assert softmx.gen("quantize", to="e4m3:specials=fn").text == softmx.gen("quantize", to="e4m3").text
    v = softmx.verify(text=q.text)
    assert v.passed and v.cases == q.cases
    ident = softmx.identify(text=q.text)
    assert ident.agrees and ident.identified


@pytest.mark.parametrize("kw,match", [
    (dict(operation="quantize", to="e5m3"), r"to.*width: 9 bits"),
    (dict(operation="quantize", to="ue4m3"), r"to.*sign: it is unsigned"),
    (dict(operation="dequantize", src="e3m2:subnormals=no"), r"src.*subnormals"),
    (dict(operation="dot", a="e1m2", b="e4m3:bias=2000"), r"b.*bias"),
    (dict(operation="dot", a="e1m2", b="e2m2", acc="hopper-fp8-mma"), r"hopper-fp8-mma.*exact or fp32-sequential"),
    (dict(operation="mma", a="e1m2", b="e4m3"), r"a='e1m2': no tensor-core model takes a runtime element"),
    (dict(operation="mma", a="e4m3", b="e4m3", scale_block=16), r"scale_block applies only to a block-scaled mma"),
    (dict(operation="mma", a="e4m3", b="e4m3", scale_format="ue5m3"), r"scale_format must be 'none', 'ue8m0' or 'ue4m3'"),
    (dict(operation="mma", a="e2m1", b="e2m1", model="blackwell-mxf4", scale_block=24), r"scale_block 24 must divide block 64"),
    (dict(operation="mma", a="e4m3", b="e4m3", model="blackwell-mxf8f6f4", scale_format="ue4m3"), r"UE8M0"),
    (dict(operation="dot", a="e4m3", b="e4m3", scale_format="ue8m0"), r"scale_format does not apply to gen\('dot'\)"),
])
def test_gen_runtime_and_scale_errors(kw, match):
    op = kw.pop("operation")
    with pytest.raises(ValueError, match=match):
        softmx.gen(op, **kw)


def test_gen_mma_scale_arguments_are_typed():
    with pytest.raises(TypeError):
        softmx.gen("mma", a="e2m1", b="e2m1", model="blackwell-mxf4", scale_block="16")
    with pytest.raises(TypeError):
        softmx.gen("mma", a="e2m1", b="e2m1", model="blackwell-mxf4", scale_format=8)
    r = softmx.gen("mma", a="e2m1", b="e2m1", model="blackwell-nvf4")
    k = _keys(r)
    assert k["scale-format"] == "ue4m3" and k["scale-block"] == "16" and k["block"] == "64"
    assert softmx.verify(text=r.text).passed
