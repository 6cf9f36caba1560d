"""softmx.lut_argmin_golden against `softmx gemm-golden --layout lut-argmin`: the same files, byte
for byte, manifest included (the CLI run with the command line Python records); out= writes
them; caller-given inputs; lut_argmin_quantize; errors by message."""

import os
import subprocess

import numpy as np
import pytest

import softmx
from conftest import cli_path

SETS = [
    dict(m=3, n=5, k=70, trans_a=1, trans_b=0, a="e1m2", b="e2m1", seed=1, log2="rounded"),
    dict(m=4, n=3, k=64, trans_a=0, trans_b=1, a="e2m1", b="e1m2", seed=9, log2="exact"),
    dict(m=1, n=1, k=1, trans_a=1, trans_b=1, a="e2m1", b="e2m1", seed=0, log2="rounded"),
    dict(m=7, n=2, k=33, trans_a=0, trans_b=0, a="e2m1", b="e2m1", seed=18446744073709551615, log2="rounded"),
]


def read_tree(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


@pytest.mark.parametrize("o", SETS, ids=lambda o: f"{o['m']}x{o['n']}x{o['k']}-{o['trans_a']}{o['trans_b']}")
def test_same_bytes_as_cli(o, tmp_path):
    cli = cli_path()
    if cli is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    py_dir, cli_dir = str(tmp_path / "py"), str(tmp_path / "cli")
    g = softmx.lut_argmin_golden(**o, out=py_dir)
    args = g.command.split()[1:]
    assert args[-1] == py_dir
    r = subprocess.run([cli] + args[:-1] + [cli_dir], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got, want = read_tree(py_dir), read_tree(cli_dir)
    assert sorted(got) == sorted(want) == sorted(g.files)
    assert len(want) == 9  # 4 in data/input, 5 in data/golden
    for p in want:
        if p.endswith("manifest.txt"):  # the command lines differ by the folder only
            assert want[p].replace(cli_dir.encode(), py_dir.encode()) == got[p] == g.files[p]
        else:
            assert want[p] == got[p] == g.files[p], p
    # the arrays view those bytes
    m, n, k = o["m"], o["n"], o["k"]
    assert g.expected.shape == (m, n) and g.a_f32.shape == (m, k) and g.b_f32.shape == (k, n)
    assert g.expected.tobytes() == want["data/golden/expected_data.bin"]
    assert g.a_8.tobytes() == want["data/input/a_8.bin"] and g.b_scale.tobytes() == want["data/input/b_scale.bin"]
    assert f"golden flags {softmx.flags_words(g.flags)}" in r.stdout


def test_arrays_and_given_inputs():
    g = softmx.lut_argmin_golden(4, 6, 40, trans_b=True)
    assert "seed = 1" in g.manifest and "--trans-b 1" in g.command and "-o DIR" in g.command
    A, B = g.a_f32.copy(), g.b_f32.copy()
    A0, B0 = A.copy(), B.copy()
    h = softmx.lut_argmin_golden(4, 6, 40, trans_b=True, inputs=(A, B))
    for p in g.files:
        if not p.endswith("manifest.txt"):
            assert h.files[p] == g.files[p], p
    assert "inputs = given" in h.manifest and "seed =" not in h.manifest
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(B, B0)
    # the data files decode back: A's codes are lut_argmin_quantize's, packed low nibble first
    idx, deq, _ = softmx.lut_argmin_quantize(A, "e2m1", axis=1)
    packed = np.zeros((4, 20), dtype=np.uint8)
    packed[:] = idx[:, 0::2] | (idx[:, 1::2] << 4)
    np.testing.assert_array_equal(g.a_8, packed)
    # C exact: every product of the dequantized values is exact in f64 here, and the sums too
    _, deqb, _ = softmx.lut_argmin_quantize(B, "e2m1", axis=0)
    c = deq.astype(np.float64) @ deqb.astype(np.float64)
    np.testing.assert_array_equal(g.expected, c.astype(np.float32))


def test_quantize_hand_cases():
    """research/lut-argmin-golden.md: ties toward the lower index (zero side), clamp first,
    -0 and negatives rounding to zero give +0 (index 0), NaN index 0; amax 6 -> scale 2^0."""
    x = np.zeros((1, 96), dtype=np.float32)
    x[0, :7] = [6.0, 0.25, 0.75, -0.25, -0.0, 2.5, -7.0]  # amax 7: floor(log2 7) - 2 = 0
    x[0, 32:34] = [np.nan, 1.0]                          # amax NaN: scale NaN (0xFF)
    x0 = x.copy()
    idx, deq, s = softmx.lut_argmin_quantize(x, "e2m1", axis=1)
    # block 3 all zero: amax < 1e-12 gives exp 0 (L85); the 4th is the even-count padding 0x7F
    assert s.tolist() == [[127, 255, 127, 127]]
    assert idx[0, :7].tolist() == [7, 0, 1, 0, 0, 4, 15]
    assert deq[0, :7].tolist() == [6.0, 0.0, 0.5, 0.0, 0.0, 2.0, -6.0]
    assert idx[0, 32] == 0 and np.isnan(deq[0, 32:34]).all()
    np.testing.assert_array_equal(x.view(np.uint32), x0.view(np.uint32))


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="m expects an integer from 1 to 16384, got 0"):
        softmx.lut_argmin_golden(0)
    with pytest.raises(ValueError, match="at most 2\\^26 values"):
        softmx.lut_argmin_golden(16384, 16384, 8192)
    with pytest.raises(ValueError, match="a expects e2m1 or e1m2 .*got 'e4m3'"):
        softmx.lut_argmin_golden(2, 2, 2, a="e4m3")
    with pytest.raises(ValueError, match="log2 expects 'rounded' or 'exact', got 'floor'"):
        softmx.lut_argmin_golden(2, 2, 2, log2="floor")
    with pytest.raises(ValueError, match="trans_a expects 0 or 1"):
        softmx.lut_argmin_golden(2, 2, 2, trans_a=2)
    with pytest.raises(ValueError, match=r"inputs\[1\] \(B\) must have shape \(2, 2\), got \(2, 3\)"):
        softmx.lut_argmin_golden(2, 2, 2, inputs=(np.zeros((2, 2), np.float32), np.zeros((2, 3), np.float32)))
    with pytest.raises(TypeError, match="must be a float32 array, got dtype float64"):
        softmx.lut_argmin_golden(2, 2, 2, inputs=(np.zeros((2, 2)), np.zeros((2, 2))))
    with pytest.raises(ValueError, match="axis must be 0"):
        softmx.lut_argmin_quantize(np.zeros((2, 2), np.float32), axis=2)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="file"):
        softmx.lut_argmin_golden(2, 2, 2, out=str(blocker / "sub"))


def test_gemm_golden_inputs():
    """The seeded inputs are gemm_golden_inputs' stream, A then B; a different seed differs."""
    g = softmx.lut_argmin_golden(3, 4, 5, seed=11)
    v = softmx.gemm_golden_inputs(11, 3 * 5 + 5 * 4)
    assert v.dtype == np.float32 and np.abs(v).max() <= 6
    np.testing.assert_array_equal(v, np.concatenate([g.a_f32.ravel(), g.b_f32.ravel()]))
    assert not np.array_equal(softmx.gemm_golden_inputs(12, 35), v)
    assert softmx.gemm_golden_inputs(11, 0).shape == (0,)
    with pytest.raises(ValueError, match="seed expects 0 to 18446744073709551615, got -1"):
        softmx.gemm_golden_inputs(-1, 3)
