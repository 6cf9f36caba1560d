"""The examples (python/examples/) run and show what they claim, golden_gemm.py writes the
same bytes as `softmx gemm-golden`, and the README's Python quick-start runs as printed."""

import filecmp
import os
import subprocess
import sys

import pytest

from readme_quickstart import quickstart_failures

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
ROOT = os.environ.get("SOFTMX_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))


def run(script, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_torchmx_style():
    out = run("torchmx_style.py", "--m", "16", "--k", "96", "--n", "8")
    assert "equals numpy's f64 product rounded to f32: True" in out
    assert "acc=hopper-fp8-wgmma" in out
    try:
        import torch  # noqa: F401
        assert "torch: quantized a bf16 tensor" in out
    except ImportError:
        assert "torch: not installed; skipping" in out


def test_pychop_style():
    out = run("pychop_style.py", "--rows", "64", "--cols", "96")
    for name in ("mxfp8_e5m2", "mxfp8_e4m3", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8"):
        assert name in out
    assert "MAE" in out


@pytest.mark.parametrize("opts", [[], ["--m", "5", "--n", "7", "--k", "100", "--a", "e4m3", "--b", "e2m3",
                                       "--block", "16", "--seed", "99", "--acc", "fp32-sequential"],
                                  ["--m", "3", "--n", "4", "--k", "64", "--a", "e5m2", "--b", "int8",
                                   "--acc", "hopper-fp8-wgmma"]])
def test_golden_gemm_matches_the_cli(tmp_path, opts):
    cli = os.environ.get("SOFTMX_CLI")
    if not cli:
        pytest.skip("SOFTMX_CLI not set")
    ours, theirs = tmp_path / "py", tmp_path / "cli"
    out = run("golden_gemm.py", "--out", str(ours), *opts)
    assert "wrote" in out
    r = subprocess.run([cli, "gemm-golden", "--out", str(theirs)] + opts, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for f in ("a_f32.bin", "b_f32.bin", "a.bin", "a_scale.bin", "b.bin", "b_scale.bin", "c_golden.bin"):
        assert filecmp.cmp(ours / f, theirs / f, shallow=False), f


def test_readme_quickstart():
    failures = quickstart_failures(os.path.join(ROOT, "README.md"))
    assert not failures, failures
