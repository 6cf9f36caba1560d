"""The progress argument of sweep, verify and identify: the library's progress callback routed to
Python (python/softmx/_progress.py, bind_vectors.cpp progress_fn). Progress never changes a
result; a callable sees increasing counts that end at the total; Ctrl-C stops a long call."""

import io
import os
import subprocess
import sys

import pytest

import softmx
from softmx import _progress

# A quarter of a percent of f32: 2**22 inputs, four chunks of 2**20 (SweepOptions::chunk).
SHARD = (0, 1024)
N = 1 << 22


def _calls():
    seen = []
    return seen, lambda done, total: seen.append((done, total))


def test_sweep_progress_off_on_and_callable_give_the_same_table(tmp_path):
    off = softmx.sweep("f32", "e4m3", shard=SHARD, progress=False)
    default = softmx.sweep("f32", "e4m3", shard=SHARD)  # pytest's stderr is not a terminal: off
    seen, cb = _calls()
    called = softmx.sweep("f32", "e4m3", shard=SHARD, progress=cb)
    forced = softmx.sweep("f32", "e4m3", shard=SHARD, progress=True, out=tmp_path / "t.vec")
    assert off.text == default.text == called.text
    assert str(forced) == off.text.decode("ascii")
    assert seen == [(k << 20, N) for k in range(1, 5)]


def test_sweep_callable_counts_increase_to_the_total_for_any_threads():
    for threads in (1, 2, 3):
        seen, cb = _calls()
        softmx.sweep("f32", "e5m2", round="rz", shard=(5, 1024), threads=threads, progress=cb)
        done = [d for d, _ in seen]
        assert done == sorted(set(done)) and done[-1] == N and all(t == N for _, t in seen), seen
    seen, cb = _calls()  # fewer inputs than a chunk: one call
    softmx.sweep("e4m3", "e2m1", progress=cb)
    assert seen == [(256, 256)]


def test_verify_of_a_run_table_reports_progress_and_the_same_result():
    table = softmx.sweep("f32", "e4m3", shard=SHARD, progress=False)
    quiet = softmx.verify(text=table.text, progress=False)
    seen, cb = _calls()
    loud = softmx.verify(text=table.text, progress=cb)
    assert quiet == loud and quiet.passed and quiet.cases == N
    assert seen == [(k << 20, N) for k in range(1, 5)]


def test_identify_reports_each_exact_check():
    table = softmx.sweep("e5m2", "e2m1", round="rz", progress=False)
    quiet = softmx.identify(text=table.text, progress=False)
    seen, cb = _calls()
    loud = softmx.identify(text=table.text, progress=cb)
    assert quiet == loud and loud.best.rounding == "rz"
    # A table of 256 inputs: every candidate is checked on every input, one chunk each.
    assert len(seen) == len(loud.ranking) and set(seen) == {(256, 256)}


def test_a_callable_that_raises_stops_the_sweep_and_writes_no_file(tmp_path):
    calls = []

    def stop(done, total):
        calls.append(done)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        softmx.sweep("f32", "e4m3", shard=SHARD, progress=stop, out=tmp_path / "t.vec")
    assert calls == [1 << 20] and os.listdir(tmp_path) == []


def test_the_stderr_line_is_shown_when_asked_and_cleared(capsys):
    softmx.sweep("f32", "e4m3", shard=SHARD, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rsweep f32 -> e4m3: ") and "% " in err and "M inputs/s" in err
    assert err.endswith("\r") and err.rstrip("\r").split("\r")[-1].strip() == ""
    softmx.sweep("f32", "e4m3", shard=SHARD)  # default: stderr is captured, not a terminal
    assert capsys.readouterr().err == ""


def test_the_default_follows_whether_stderr_is_a_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Tty())
    assert isinstance(_progress.progress_arg(None, "x"), _progress.StderrProgress)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert _progress.progress_arg(None, "x") is None
    monkeypatch.setattr(sys, "stderr", None)  # pythonw: no stderr at all
    assert _progress.progress_arg(None, "x") is None


@pytest.mark.parametrize("bad", [1, "yes", 0.5, [print]])
def test_a_bad_progress_argument_is_a_type_error(bad):
    with pytest.raises(TypeError, match=r"progress must be None .*True, False or a callable progress\(done, total\)"):
        softmx.sweep("e4m3", "e2m1", progress=bad)


def test_ctrl_c_stops_a_long_sweep_at_the_next_chunk(tmp_path):
    """SIGINT during a sweep (here sent by the first progress call, as a user's Ctrl-C would
    arrive) raises KeyboardInterrupt at the next chunk: the sweep of all 2**32 f32 inputs stops
    after two chunks, and the output file is not left behind."""
    out = tmp_path / "all.vec"
    code = ("import os, signal, softmx\n"
            "calls = []\n"
            "def cb(done, total):\n"
            "    calls.append(done)\n"
            "    if len(calls) == 1: os.kill(os.getpid(), signal.SIGINT)\n"
            "try:\n"
            f"    softmx.sweep('f32', 'e4m3', out={str(out)!r}, progress=cb)\n"
            "except KeyboardInterrupt:\n"
            "    print('KeyboardInterrupt', calls)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == f"KeyboardInterrupt [{1 << 20}]\n", (r.returncode, r.stdout, r.stderr)
    assert os.listdir(tmp_path) == []


def test_ctrl_c_stops_a_long_sweep_without_progress_too(tmp_path):
    """With progress off, the extension still looks for a pending signal after each chunk: SIGINT
    from another thread while the sweep of all 2**32 f32 inputs runs gives KeyboardInterrupt
    before the table is complete (the file would exist had the sweep run to its end)."""
    out = tmp_path / "all.vec"
    code = ("import os, signal, threading, softmx\n"
            "threading.Timer(0.02, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
            "try:\n"
            # rne on every core finishes in 0.2 s on a fast machine (its fused kernel), before a
            # later signal; ro on one thread has no fused kernel and takes about 1 s.
            f"    softmx.sweep('f32', 'e4m3', round='ro', threads=1, out={str(out)!r}, progress=False)\n"
            "except KeyboardInterrupt:\n"
            "    print('KeyboardInterrupt')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == "KeyboardInterrupt\n", (r.returncode, r.stdout, r.stderr)
    assert os.listdir(tmp_path) == []
