"""softmx.verify's verdict from Python (issue 24): the same library call as `softmx verify`, so
the same status, exit status, text and JSON; settings checked on demand (model=, round=, ...);
unproven files are not a pass; bad files raise ValueError with the CLI's message (never an empty
one), whatever their bytes; paths may be str, bytes, os.PathLike, or names that are not UTF-8;
bad arguments raise ValueError or TypeError naming the argument."""

import gzip
import json
import os
import pathlib
import subprocess

import pytest

import softmx

from conftest import cli_path


def _cli(*args):
    p = cli_path()
    if p is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    return subprocess.run([p, *[os.fsencode(a) if isinstance(a, (str, os.PathLike)) else a for a in args]],
                          capture_output=True)


@pytest.fixture(scope="module")
def convert_file(tmp_path_factory):
    """An exhaustive results file (every e4m3 code into e2m1, 256 cases)."""
    p = tmp_path_factory.mktemp("verdicts") / "e4m3-e2m1.vec"
    softmx.gen("convert", src="e4m3", to="e2m1", out=p)
    return p


@pytest.fixture(scope="module")
def mma_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("verdicts") / "mma.vec"
    softmx.gen("mma", a="e4m3", b="e4m3", model="hopper-fp8-wgmma", out=p)
    return p


def _without(text, *keys):
    return "".join(l for l in text.splitlines(keepends=True) if not any(l.startswith(k + " = ") for k in keys))


def test_the_verdict_is_the_clis(convert_file, tmp_path):
    cases = [convert_file.read_text()]
    bare = _without(convert_file.read_text(), "level", "seed", "cases", "inputs-sha256")
    cases.append(bare)
    lines = convert_file.read_text().splitlines(keepends=True)
    cases.append("".join(lines[:-1]))  # cut: incomplete
    for i, text in enumerate(cases):
        p = tmp_path / f"v{i}.vec"
        p.write_text(text)
        r = softmx.verify(p)
        cp = _cli("verify", p)
        cj = _cli("verify", "--json", p)
        assert r.exit_status == cp.returncode == cj.returncode
        assert str(r) == cp.stdout.decode()
        assert r.json == cj.stdout.decode()
        j = json.loads(r.json)
        assert j["status"] == r.status and j["exit_status"] == r.exit_status
        assert r.notes == cp.stderr.decode()
    assert [softmx.verify(tmp_path / f"v{i}.vec").status for i in range(3)] == ["pass", "unproven", "fail"]


def test_unproven_is_not_a_pass(convert_file, tmp_path):
    p = tmp_path / "bare.vec"
    p.write_text(_without(convert_file.read_text(), "level", "seed", "cases", "inputs-sha256"))
    r = softmx.verify(p)
    assert r.status == "unproven" and r.exit_status == 3 and not r.passed and not bool(r)
    assert r.completeness.status == "unproven" and not r.completeness.proven
    assert "UNPROVEN" in str(r)
    a = softmx.verify(p, accept_unproven=True)
    assert a.status == "pass" and a.accepted_unproven and a.passed and a.exit_status == 0
    assert a.completeness.status == "unproven"


def test_expect_cases(convert_file):
    assert softmx.verify(convert_file, expect_cases=256).passed
    r = softmx.verify(convert_file, expect_cases=255)
    assert r.status == "fail" and r.completeness.status == "incomplete"


def test_settings_on_demand(mma_file, convert_file):
    assert softmx.verify(mma_file, model="hopper-fp8-wgmma").passed
    r = softmx.verify(mma_file, model="blackwell-f8f6f4")
    assert r.status == "fail" and r.mismatched > 0
    assert r.overrides == "model blackwell-f8f6f4 (the file's header: hopper-fp8-wgmma)"
    assert r.completeness.complete  # judged under the file's own header
    cp = _cli("verify", "--model", "blackwell-f8f6f4", mma_file)
    assert str(r) == cp.stdout.decode() or r.mismatched > 20  # the CLI shows every mismatch streamed
    assert r.exit_status == cp.returncode
    r = softmx.verify(convert_file, round="rz")
    assert r.status == "fail" and "rounding rz (the file's header: rne)" in r.overrides
    with pytest.raises(ValueError, match=r"--model 'hopper-fp8-mma': does not apply to operation convert"):
        softmx.verify(convert_file, model="hopper-fp8-mma")
    with pytest.raises(ValueError, match=r"--round 'rs': lines of rs files carry random bits"):
        softmx.verify(convert_file, round="rs")
    with pytest.raises(TypeError, match="model"):
        softmx.verify(convert_file, model=3)


def _cli_message(path):
    """The CLI's error message for `path` (without "softmx verify: error: ")."""
    cp = _cli("verify", path)
    assert cp.returncode == 2
    err = cp.stderr.decode()
    assert err.startswith("softmx verify: error: ")
    return err[len("softmx verify: error: "):].rstrip("\n")


@pytest.mark.parametrize("kind", ["utf16", "gzip", "byte-ff", "nul", "esc", "long-line"])
def test_bad_bytes_give_the_clis_message(convert_file, tmp_path, kind):
    text = convert_file.read_bytes()
    lines = text.splitlines(keepends=True)
    first = next(i for i, l in enumerate(lines) if not l.startswith(b"#") and b"=" not in l)
    if kind == "utf16":
        data = text.decode().encode("utf-16")
    elif kind == "gzip":
        data = gzip.compress(text, mtime=0)
    elif kind == "byte-ff":
        data = b"".join(lines[:first]) + b"\xff" + lines[first][1:] + b"".join(lines[first + 1:])
    elif kind == "nul":
        data = b"".join(lines[:first]) + b"0\x00" + lines[first][2:] + b"".join(lines[first + 1:])
    elif kind == "esc":
        data = b"".join(lines[:first]) + b"\x1b[2J" + lines[first] + b"".join(lines[first + 1:])
    else:
        data = b"".join(lines[:first]) + b"0" * 2_000_000 + b"\n"
    p = tmp_path / f"{kind}.vec"
    p.write_bytes(data)
    with pytest.raises(ValueError) as e:
        softmx.verify(p)
    msg = str(e.value)
    assert msg, "an empty message"
    assert "\x1b" not in msg and "\x00" not in msg
    assert len(msg) < 1000
    assert msg == _cli_message(p)
    # The same bytes given as text name "<text>" and say the same after it.
    with pytest.raises(ValueError) as t:
        softmx.verify(text=data)
    assert str(t.value).split(":", 1)[1] == msg.split(":", 1)[1]
    with pytest.raises(ValueError):
        softmx.identify(p)


def test_paths_of_every_kind(convert_file, tmp_path):
    data = convert_file.read_bytes()
    names = [tmp_path / "plain.vec", tmp_path / "ünïcode.vec"]
    raw = os.fsencode(tmp_path) + b"/latin1-\xe9\xff.vec"  # not UTF-8
    for n in names:
        n.write_bytes(data)
    with open(raw, "wb") as f:
        f.write(data)
    for p in [names[0], str(names[0]), os.fsencode(names[0]), names[1], str(names[1]), raw, os.fsdecode(raw),
              pathlib.Path(os.fsdecode(raw))]:
        r = softmx.verify(p)
        assert r.passed, p
        assert r.file == os.fsdecode(p) if isinstance(p, bytes) else r.file == str(p)
        assert softmx.identify(p).identified
    # A bad file under a name that is not UTF-8: the message shows the name escaped.
    bad = os.fsencode(tmp_path) + b"/bad-\xff.vec"
    with open(bad, "wb") as f:
        f.write(data.replace(b"rounding = rne", b"rounding = nope"))
    with pytest.raises(ValueError, match=r"bad-\\xFF\.vec line \d+: bad value 'nope' for 'rounding'"):
        softmx.verify(bad)


@pytest.mark.parametrize("kwargs,name", [({"max_errors": 10**20}, "max_errors"), ({"max_errors": -1}, "max_errors"),
                                         ({"threads": -1}, "threads"), ({"expect_cases": -1}, "expect_cases"),
                                         ({"expect_cases": 2**64}, "expect_cases"),
                                         ({"accept_unproven": 1}, "accept_unproven")])
def test_bad_arguments_name_themselves(convert_file, kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name) as e:
        softmx.verify(convert_file, **kwargs)
    assert "incompatible function arguments" not in str(e.value)
