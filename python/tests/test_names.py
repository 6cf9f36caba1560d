"""Every dialect name from Python gives what the CLI gives for it (issue 15: "Every name above
works from the CLI and from Python"): convert with the CLI's defaults (no --round, no --sat) and
with explicit options, quantize and dequantize under each dialect, NVFP4; a setting the CLI
refuses (exit status 2) raises ValueError in Python. Inputs are never modified."""

import subprocess

import numpy as np
import pytest

import softmx
from conftest import DIALECTS, cli_path

X = np.array([1.0, 448.0, 464.0, 1e6, -0.3, 0.75, -0.0, np.nan, -np.inf, 3.0, 1e-9, 1.0625, 0.25, -6.5, 2.0 ** -130],
             dtype=np.float32)
X[7] = np.frombuffer(bytes.fromhex("0000c0ff"), dtype=np.float32)[0]  # -NaN (FFC00000): cuda/TE/gfloat differ


def run(args, stdin):
    path = cli_path()
    if path is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    return subprocess.run([path] + args, input=stdin, capture_output=True, text=True)


def hexes32(x):
    return "\n".join(format(int(v), "08X") for v in np.asarray(x, dtype=np.float32).view(np.uint32).ravel()) + "\n"


def test_dialect_list_is_the_clis():
    r = run(["dialects"], "")
    assert r.returncode == 0
    for d in DIALECTS:
        assert d in r.stdout, d
    assert len(DIALECTS) == 19  # fpnew (issue 26), p3109 (issue 28)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_convert_defaults_and_options_match_cli(dialect):
    """f32 -> every element format and e8m0, and e4m3/e8m0 codes -> f32, under the dialect's
    defaults and under explicit rne + finite/none: codes and flags equal the CLI's, refusals too."""
    x0 = X.copy()
    tried = agreed = refused = 0
    settings = [[], ["--round", "rne", "--sat", "finite"], ["--round", "rne", "--sat", "none"]]
    for dst in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0"):
        for extra in settings:
            args = ["convert", "--from", "f32", "--to", dst, "--dialect", dialect] + extra
            opts = dict(zip([a.lstrip("-") for a in extra[::2]], extra[1::2]))
            r = run(args, hexes32(X))
            tried += 1
            if r.returncode != 0:
                assert r.returncode == 2, (args, r.stderr)
                with pytest.raises(ValueError):
                    softmx.encode(X, dst, dialect=dialect, **opts)
                refused += 1
                continue
            codes, fl = softmx.encode(X, dst, dialect=dialect, flags=True, **opts)
            rows = [line.split() for line in r.stdout.splitlines()]
            assert [int(w[1], 16) for w in rows] == codes.tolist(), args
            assert [int(w[2], 16) for w in rows] == fl.tolist(), args
            agreed += 1
    for src in ("e4m3", "e8m0"):
        codes = np.array([0x00, 0x01, 0x38, 0x7E, 0x7F, 0x80, 0xFE, 0xFF], dtype=np.uint8)
        r = run(["convert", "--from", src, "--to", "f32", "--dialect", dialect],
                "".join(f"{c:02X}\n" for c in codes))
        tried += 1
        if r.returncode != 0:
            with pytest.raises(ValueError):
                softmx.decode(codes, src, dialect=dialect)
            refused += 1
            continue
        got = softmx.decode(codes, src, dialect=dialect).view(np.uint32)
        assert [int(w.split()[1], 16) for w in r.stdout.splitlines()] == got.tolist(), (dialect, src)
        agreed += 1
    np.testing.assert_array_equal(X.view(np.uint32), x0.view(np.uint32))
    assert agreed >= 1 or dialect == "amd-gfx942"
    print(f"[ counts ] {dialect}: {tried} settings, {agreed} equal to the CLI, {refused} refused by both")


def test_distinguishing_defaults():
    """The cases where the old Python default round='rne' differed from the CLI's defaults."""
    assert softmx.encode(np.float32(1.0625), "e4m3", dialect="microxcaling").tolist() == 0x39  # rna, not 0x38
    assert softmx.encode(np.float32(3.0), "e8m0", dialect="cuda").tolist() == 0x81  # ru
    assert softmx.encode(np.float32(3.0), "e8m0", dialect="transformer-engine").tolist() == 0x81
    assert softmx.encode(np.float32(3.0), "e8m0").tolist() == 0x80  # ocp: rne, the tie to even


@pytest.mark.parametrize("dialect", DIALECTS)
def test_quantize_dequantize_match_cli(dialect):
    """quantize f32 and bf16 -> e4m3 / int8 / e2m1 in blocks of 8, then dequantize the CLI's
    blocks back to f32, under the dialect's block defaults."""
    rng = np.random.default_rng(15)
    x = (rng.standard_normal(32) * np.exp2(rng.integers(-8, 8, 32))).astype(np.float32)
    x[3], x[12], x[20:24] = np.inf, np.nan, 0.0
    x0 = x.copy()
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncated to bf16 bits (exact inputs)
    compared = 0
    for src, data, text in (("f32", x, hexes32(x)), ("bf16", bf, "\n".join(f"{v:04X}" for v in bf) + "\n")):
        for to in ("e4m3", "int8", "e2m1"):
            args = ["quantize", "--from", src, "--to", to, "--block", "8", "--dialect", dialect]
            r = run(args, text)
            kw = dict(block=8, dialect=dialect)
            if r.returncode != 0:
                assert r.returncode == 2, (args, r.stderr)
                with pytest.raises(ValueError):
                    softmx.quantize(data, to, src="bf16", **kw) if src == "bf16" else softmx.quantize(data, to, **kw)
                continue
            q = softmx.quantize(data, to, src="bf16", **kw) if src == "bf16" else softmx.quantize(data, to, **kw)
            lines = [[int(t, 16) for t in line.split()] for line in r.stdout.splitlines()]
            assert [l[0] for l in lines] == q.scales.tolist(), args
            assert [c for l in lines for c in l[1:]] == q.codes.tolist(), args
            d = run(["dequantize", "--from", to, "--block", "8", "--dialect", dialect], r.stdout)
            assert d.returncode == 0, d.stderr
            want = [int(t, 16) for line in d.stdout.splitlines() for t in line.split()]
            assert want == q.dequantize().view(np.uint32).tolist(), (args, "dequantize")
            compared += 1
    np.testing.assert_array_equal(x.view(np.uint32), x0.view(np.uint32))
    print(f"[ counts ] {dialect}: {compared} quantize + dequantize settings equal to the CLI")


def test_nvfp4_matches_cli():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(64) * 3).astype(np.float32)
    r = run(["quantize", "--to", "nvfp4"], hexes32(x))
    assert r.returncode == 0, r.stderr
    q = softmx.quantize(x, "nvfp4")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("# nvfp4")
    assert f"encode_scale={np.float32(q.encode_scale).view(np.uint32):08X}" in lines[0]
    rows = [[int(t, 16) for t in line.split()] for line in lines[1:]]
    assert [w[0] for w in rows] == q.scales.tolist()
    assert [c for w in rows for c in w[1:]] == q.codes.tolist()
    d = run(["dequantize", "--from", "nvfp4"], r.stdout)
    assert [int(t, 16) for line in d.stdout.splitlines() for t in line.split()] == q.dequantize().view(np.uint32).tolist()
