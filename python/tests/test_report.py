"""The certificate (issue 27): softmx.report, `softmx report` and the notebook views.

The numbers are the library's (conformance/test_report_data.cpp checks them exactly); here: the
page holds the banner, provenance, counts, plots, failures and the commands that reproduce it, in
that order, and nothing fetched from elsewhere; planted faults show in the counts, the plots and
the explanations; the CLI and Python give the same data and the verify exit statuses; a 2^32-input
run table and a file of 10^6 cases give pages of a few MB at most (their time and size printed);
and the renderer says what to install when matplotlib or jinja2 is missing.
"""

import json
import os
import re
import subprocess
import sys
import time

import pytest

import softmx

CLI = os.environ.get("SOFTMX_CLI")
SOURCE = os.environ.get("SOFTMX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
RENDERER = os.path.join(os.path.dirname(softmx.__file__), "_report_render.py")

needs_cli = pytest.mark.skipif(not CLI, reason="SOFTMX_CLI (the softmx command) is not set")


def data_lines(text):
    """(index, fields) of each data line of a vector file's text."""
    lines = text.split("\n")
    out = []
    header = True
    for i, line in enumerate(lines):
        if not line or line.lstrip().startswith("#"):
            continue
        if header and "=" in line:
            continue
        header = False
        out.append((i, line.split()))
    return lines, out


def plant(text, n_operands, picks):
    """The file with result field 0 of the chosen data lines changed (its lowest bit flipped)."""
    lines, data = data_lines(text)
    for k in picks:
        i, f = data[k]
        r = f[n_operands]
        f[n_operands] = r[:-1] + ("1" if r[-1] == "0" else "0")
        lines[i] = " ".join(f)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A clean and a faulty f16 -> e5m2 results file (every input), the faulty one with ties
    rounded away from zero (the examples' planted fault), and a run table pair."""
    d = tmp_path_factory.mktemp("report")
    clean = d / "clean.vec"
    softmx.gen("convert", src="f16", to="e5m2", out=clean)
    text = clean.read_text()
    lines, data = data_lines(text)
    rna = softmx.gen("convert", src="f16", to="e5m2", round="rna").text
    _, rdata = data_lines(rna)
    for (i, f), (_, g) in zip(data, rdata):
        f[1] = g[1]  # the device's result is rna's; its flags are rne's (they agree on ties)
        lines[i] = " ".join(f)
    faulty = d / "faulty.vec"
    faulty.write_text("\n".join(lines))
    return {"dir": d, "clean": str(clean), "faulty": str(faulty)}


def svgs(page):
    return re.findall(r"<svg\b.*?</svg>", page, re.S)


def test_page_holds_every_section_in_order(files, tmp_path):
    r = softmx.report(files["faulty"], identify=files["faulty"], out=tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page == r.html
    assert r.status == "fail" and r.exit_status == 1 and not r
    assert page.startswith("<!DOCTYPE html>")
    ids = ["verdict", "provenance", "completeness", "counts", "plots", "failures", "reproduce"]
    where = [page.index(f'id="{i}"') for i in ids]
    assert where == sorted(where), "sections out of order"
    assert 'class="banner fail"' in page
    assert ">FAIL<" in page
    # Provenance: version and build, the command, the file's SHA-256, its header, the date.
    data = r.data
    assert data["softmx"]["version"] == softmx.__version__
    sha = data["verified"][0]["file"]["sha256"]
    assert len(sha) == 64 and sha in page
    assert "rounding = rne" in page
    assert data["date"] in page
    assert "softmx report " in page and "--identify" in page
    # Completeness: how it was established.
    assert "regenerated from the header&#39;s level and seed" in page or "regenerated from the header's level and seed" in page
    # Counts: ties fail, nothing else.
    rows = {c["class"]: c for c in data["verified"][0]["classes"]["rows"]}
    assert rows["tie"]["result_failed"] > 0
    assert sum(c["result_failed"] for k, c in rows.items() if k != "tie") == 0
    assert sum(c["checked"] for c in rows.values()) == 65536
    assert '<table class="counts">' in page
    # Plots: the domain grid, the ulp histogram and identify's bars, inline.
    assert len(svgs(page)) >= 3
    # The first failures with their explanations and the setting that gives the device's result.
    assert "the device&#39;s result comes from" in page or "the device's result comes from" in page
    assert "rna" in data["verified"][0]["failures"][0]["producers"]
    assert "softmx verify " in page and "sha256sum " in page


def test_page_is_self_contained(files, tmp_path):
    page = softmx.report(files["faulty"], identify=files["faulty"]).html
    assert "<script" not in page.lower()
    assert "<link" not in page.lower()
    assert "@import" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", page, re.I)
    # ids of the inline figures never meet
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_planted_fault_shows_in_counts_plots_and_explanations(files):
    clean = softmx.report(files["clean"], identify=files["clean"])
    faulty = softmx.report(files["faulty"], identify=files["faulty"])
    assert clean.status == "pass" and clean.exit_status == 0 and clean
    assert 'class="banner pass"' in clean.html
    cv, fv = clean.data["verified"][0], faulty.data["verified"][0]
    assert sum(c["result_failed"] for c in cv["classes"]["rows"]) == 0
    assert sum(fv["grid"]["failed"]) > 0 and sum(cv["grid"]["failed"]) == 0
    assert fv["ulp"][0]["total"] > 0 and cv["ulp"][0]["total"] == 0
    # The failure marks (red) are drawn only in the faulty report's grid.
    grid_clean, grid_faulty = svgs(clean.html)[0], svgs(faulty.html)[0]
    assert "#c62828" not in grid_clean
    assert "#c62828" in grid_faulty
    # identify names rna in both bar charts; the faulty one's best is rna.
    assert faulty.data["identified"][0]["best"]["key"].startswith("rna")
    assert clean.data["identified"][0]["best"]["key"].startswith("rne")
    f0 = fv["failures"][0]
    assert f0["class"] == "tie" and f0["ulps"] in ("+1 ulp", "-1 ulp")
    assert "tie" in f0["softmx_reason"] and f0["report"]
    assert "No failures." in clean.html


@needs_cli
def test_cli_and_python_give_the_same_data_and_statuses(files, tmp_path):
    out = tmp_path / "cli.json"
    p = subprocess.run([CLI, "report", "--json", "-o", str(out), files["faulty"], "--identify", files["faulty"]],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    cli = json.loads(out.read_text())
    py = softmx.report(files["faulty"], identify=files["faulty"], render=False).data
    for d in (cli, py):
        d.pop("command"), d.pop("date"), d.pop("reproduce")
    assert cli == py
    # The page through the CLI: same sections; the verdict's exit status.
    page = tmp_path / "cli.html"
    p = subprocess.run([CLI, "report", "-o", str(page), files["clean"]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert 'class="banner pass"' in page.read_text(encoding="utf-8")
    assert subprocess.run([CLI, "verify", files["clean"]], capture_output=True).returncode == 0


def test_unproven_and_accepted(files, tmp_path):
    text = open(files["clean"]).read().replace("level = 1\n", "")
    u = tmp_path / "u.vec"
    u.write_text(text)
    r = softmx.report(u, render=False)
    assert (r.status, r.exit_status) == ("unproven", 3)
    r = softmx.report(u, accept_unproven=True)
    assert (r.status, r.exit_status) == ("pass", 0)
    assert "unproven" in r.html.lower()


@pytest.mark.parametrize("args", [
    dict(operation="quantize", src="f32", to="e4m3"),
    dict(operation="dequantize", src="e2m1", to="bf16"),
    dict(operation="dot", a="e4m3", b="e5m2"),
    dict(operation="mma", a="e4m3", b="e4m3"),
    dict(operation="mma", a="e2m1", b="e2m1", model="blackwell-nvf4"),
    dict(operation="convert", src="f32", to="e2m1", level=2, count=5000),
])
def test_every_operation(args, tmp_path):
    p = tmp_path / "g.vec"
    softmx.gen(out=p, **args)
    text = p.read_text()
    ver = json.loads(softmx.verify(p).json)
    assert ver["status"] == "pass"
    # The operands end where the results begin: a line's fields less the results and flags.
    results = 1 + 32 if args["operation"] == "quantize" else 1
    flags = 0 if args["operation"] == "mma" else 1
    n_operands = len(data_lines(text)[1][0][1]) - results - flags
    bad = tmp_path / "bad.vec"
    bad.write_text(plant(text, n_operands, [0, 3]))
    r = softmx.report(bad, identify=bad)
    v = r.data["verified"][0]
    assert r.exit_status == 1
    assert sum(c["result_failed"] for c in v["classes"]["rows"]) == 2
    assert sum(c["checked"] for c in v["classes"]["rows"]) == ver["cases"]
    assert sum(v["grid"]["failed"]) >= 2
    assert sum(h["total"] for h in v["ulp"]) == 2
    assert len(v["failures"]) == 2 and all(f["report"] for f in v["failures"])
    assert len(svgs(r.html)) >= 3
    assert ">FAIL<" in r.html


def big_files(d):
    """A 2^32-input run table (f32 -> e4m3) with two planted runs, and a file of 10^6 cases
    (f32 -> e4m3, level 2) with three planted lines."""
    table = d / "t.vec"
    softmx.sweep("f32", "e4m3", out=table, progress=False)
    lines, data = data_lines(table.read_text())
    plant_at = [len(data) // 3, 2 * len(data) // 3]
    for k in plant_at:
        i, f = data[k]
        f[1] = format((int(f[1], 16) + 1) & 0xFF, "02X")
        lines[i] = " ".join(f)
    bad_table = d / "t_bad.vec"
    bad_table.write_text("\n".join(lines))
    cases = d / "m.vec"
    softmx.gen("convert", src="f32", to="e4m3", level=2, count=10**6 - 2886, out=cases)
    text = cases.read_text()
    bad_cases = d / "m_bad.vec"
    bad_cases.write_text(plant(text, 1, [10, 500000, 999999]))
    return table, bad_table, cases, bad_cases


def test_size_and_time_of_a_2_32_run_table_and_a_million_cases(tmp_path):
    table, bad_table, cases, bad_cases = big_files(tmp_path)
    results = {}
    for name, path, extra in (("2^32 run table", bad_table, dict(identify=bad_table, diff=(table, bad_table))),
                              ("10^6 cases", bad_cases, dict(identify=bad_cases))):
        t0 = time.monotonic()
        r = softmx.report(path, out=tmp_path / "r.html", progress=False, **extra)
        secs = time.monotonic() - t0
        size = os.path.getsize(tmp_path / "r.html")
        results[name] = (secs, size)
        print(f"report of a {name} (with identify{' and diff' if 'diff' in extra else ''}): {secs:.2f} s, "
              f"{size / 1e6:.2f} MB")
        assert size < 3_000_000, f"{name}: {size} bytes"
        v = r.data["verified"][0]
        assert r.exit_status == 1
        total = sum(c["checked"] for c in v["classes"]["rows"])
        assert total == (1 << 32 if "run" in name else 10**6)
        failing = sum(c["result_failed"] for c in v["classes"]["rows"])
        assert failing == v["verify"]["result_mismatches"] > 0
        assert len(svgs(r.html)) >= 3
    sys.stdout.flush()


def test_notebook_views(files):
    v = softmx.verify(files["faulty"], max_errors=3)
    h = v._repr_html_()
    assert h.startswith('<div class="sxr">') and "FAIL" in h and "<script" not in h
    i = softmx.identify(files["faulty"])
    h = i._repr_html_()
    assert "PASS" in h and len(svgs(h)) == 1  # the bar chart: rna agrees everywhere
    t = softmx.sweep("f16", "e5m2")
    u = softmx.sweep("f16", "e5m2", round="rna")
    h = softmx.diff(t, u)._repr_html_()
    assert "FAIL" in h and "differ" in h
    r = softmx.report(files["clean"])
    assert "PASS" in r._repr_html_()
    assert str(r).startswith("PASS")


def test_renderer_runs_alone_and_names_what_is_missing(files, tmp_path):
    data = tmp_path / "d.json"
    data.write_text(softmx.report(files["faulty"], render=False).json)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, RENDERER, "--data", str(data)], capture_output=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(b"<!DOCTYPE html>") and b'class="banner fail"' in p.stdout
    # Without site-packages (no matplotlib, no jinja2): exit 4, naming the Debian packages.
    p = subprocess.run([sys.executable, "-S", RENDERER, "--data", str(data)], capture_output=True, env=env)
    if p.returncode == 0:
        pytest.skip("matplotlib and jinja2 are importable without site-packages here")
    assert p.returncode == 4
    assert b"python3-matplotlib" in p.stderr


@needs_cli
def test_cli_without_a_renderer_exits_2_saying_what_to_install(files, tmp_path):
    wrapper = tmp_path / "python-without-site"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    wrapper.chmod(0o755)
    env = dict(os.environ, SOFTMX_PYTHON=str(wrapper))
    out = tmp_path / "never.html"
    p = subprocess.run([CLI, "report", "-o", str(out), files["faulty"]], capture_output=True, text=True, env=env)
    probe = subprocess.run([sys.executable, "-S", "-c", "import matplotlib, jinja2"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("matplotlib and jinja2 are importable without site-packages here")
    assert p.returncode == 2
    assert "python3-matplotlib" in p.stderr and "FAIL" in p.stderr and "--json" in p.stderr
    assert not out.exists()
    # --json needs no Python at all.
    p = subprocess.run([CLI, "report", "--json", "-o", str(tmp_path / "d.json"), files["faulty"]], env=env)
    assert p.returncode == 1


def test_bad_input_names_the_file_and_line(files, tmp_path):
    bad = tmp_path / "bad.vec"
    bad.write_text(open(files["clean"]).read() + "3C00 ZZ 00\n")
    with pytest.raises(ValueError, match=r"bad\.vec line 65551"):
        softmx.report(bad)
    with pytest.raises(FileNotFoundError):
        softmx.report(tmp_path / "missing.vec")
    with pytest.raises(ValueError, match="nothing to report"):
        softmx.report()
    with pytest.raises(TypeError):
        softmx.report(softmx.diff(softmx.sweep("f16", "e5m2"), softmx.sweep("f16", "e5m2")))
