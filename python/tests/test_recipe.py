"""softmx.recipe and softmx.recipes: TransformerEngine's recipes from Python.

Each recipe under several settings gives the same bytes as `softmx recipe` (which
conformance/test_cli_recipe.cpp holds equal to quantize_recipe field for field); the hand-checked
case of test_recipes_nvfp4.cpp GlobalAmax10 (TE core_nvfp4.cuh:87-94, 51-52, 549-550); errors by
message; inputs never modified.
"""

import os
import struct
import subprocess
import threading

import numpy as np
import pytest

import softmx

from conftest import cli_path


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def tensor(seed, shape, specials=True):
    """f32 bits over 2^-20 .. 2^9 with zeros, infinities and NaNs mixed in."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    sign = rng.integers(0, 2, n, dtype=np.uint32) << 31
    exp = (107 + rng.integers(0, 30, n, dtype=np.uint32)) << 23
    man = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    x = sign | exp | man
    if specials:
        k = rng.integers(0, 97, n)
        x[k == 0] = sign[k == 0]
        x[k == 1] = sign[k == 1] | 0x7F800000
        x[k == 2] = 0x7FC00000
    return x.reshape(shape)


def parse_cli(text):
    """The CLI's output: {direction: {"fields": {...}, "codes": [...], ...}}."""
    out, d, sec = {}, None, None
    for line in text.splitlines():
        w = line.split()
        if w[0] == "#":
            sec = None
            if w[1] in ("rowwise", "columnwise"):
                d = w[1]
                out[d] = {"fields": dict(kv.split("=", 1) for kv in w[2:])}
        elif w[0] in ("rowwise", "columnwise"):
            d, sec = w[0], w[1]
            out[d][sec] = []
        else:
            out[d][sec].extend(int(t, 16) for t in w)
    return out


# (recipe, src, shape, python kwargs, CLI arguments)
CASES = [
    ("te-fp8-current", "f32", (8, 24), {}, []),
    ("te-fp8-current", "f32", (2, 4, 24), dict(role="gradient", impl="reference"), ["--role", "gradient", "--impl", "reference"]),
    ("te-fp8-current", "f16", (4, 40), dict(impl="custom-reference", power_2_scale=True, amax=448.0),
     ["--impl", "custom-reference", "--power-2-scale", "1", "--amax", "43E00000"]),
    ("te-fp8-block", "f32", (3, 300), {}, []),
    ("te-fp8-block", "bf16", (130, 140), dict(role="weight", power_2_scale=False), ["--role", "weight", "--power-2-scale", "0"]),
    ("te-mxfp8", "f32", (64, 32), dict(role="gradient"), ["--role", "gradient"]),
    ("te-mxfp8", "bf16", (32, 64), dict(dialect="transformer-engine-2025", outputs="rowwise"),
     ["--dialect", "transformer-engine-2025", "--outputs", "rowwise"]),
    ("te-nvfp4", "bf16", (32, 48), {}, []),
    ("te-nvfp4", "bf16", (16, 32), dict(rht_signs=0x1234, rht_amax=2.0), ["--rht-signs", "1234", "--rht-amax", "40000000"]),
    ("te-nvfp4", "f32", (32, 32), dict(role="weight", impl="reference"), ["--role", "weight", "--impl", "reference"]),
    ("te-nvfp4", "f16", (16, 16), dict(random_hadamard=False, tiles_2d=True, amax=10.0),
     ["--random-hadamard", "0", "--tiles-2d", "1", "--amax", "41200000"]),
    ("te-nvfp4", "bf16", (16, 32), dict(role="gradient", stochastic_form="rs", rbits=12, sr=True),
     ["--role", "gradient", "--stochastic-form", "rs", "--rbits", "12"]),
    ("te-nvfp4", "bf16", (16, 16), dict(role="gradient", sr=True), ["--role", "gradient"]),
]


def _input(src, shape, seed):
    bits = tensor(seed, shape)
    if src == "f32":
        return bits.view(np.float32), bits, 8
    if src == "bf16":
        b = (bits >> 16).astype(np.uint16)
        return b, b, 4
    h = ((bits >> 31) << 15 | ((bits >> 13) & 0x7FFF)).astype(np.uint16)
    return h.view(np.float16), h, 4


@pytest.mark.parametrize("case", range(len(CASES)))
def test_python_equals_cli(case, tmp_path):
    name, src, shape, kwargs, args = CASES[case]
    if cli_path() is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")
    kwargs = dict(kwargs)
    x, codes, digits = _input(src, shape, 1000 + case)
    n = codes.size
    if kwargs.pop("sr", False):
        width = kwargs.get("rbits", 8) if kwargs.get("stochastic_form") == "rs" else 8
        r = np.random.default_rng(case).integers(0, 1 << width, n, dtype=np.uint64)
        kwargs["random_rowwise"] = r
        kwargs["random_columnwise"] = r
        rf = tmp_path / "r.hex"
        rf.write_text("\n".join(format(int(v), f"0{(width + 3) // 4}X") for v in r) + "\n")
        args = args + ["--rbits-rowwise", str(rf), "--rbits-columnwise", str(rf)]
    dq, dq_cli = [(np.float32, "f32"), ("bf16", "bf16"), (np.float16, "f16")][case % 3]
    args = args + ["--layouts", "--dequantize", dq_cli]
    before = np.array(x, copy=True)
    q = softmx.recipe(name, x, src="bf16" if src == "bf16" else None, dequantize=dq, **kwargs)
    assert np.array_equal(before.view(np.uint8), np.asarray(x).view(np.uint8))  # unchanged
    f = tmp_path / "x.hex"
    f.write_text(" ".join(format(int(v), f"0{digits}X") for v in codes.reshape(-1)) + "\n")
    shape_arg = "x".join(str(d) for d in shape)
    r = subprocess.run([cli_path(), "recipe", name, "--shape", shape_arg, "--from", src] + args + [str(f)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli = parse_cli(r.stdout)
    for d in ("rowwise", "columnwise"):
        o = getattr(q, d)
        assert (o is not None) == (d in cli), d
        if o is None:
            continue
        c = cli[d]
        fl = c["fields"]
        assert (int(fl["rows"]), int(fl["cols"])) == (o.rows, o.cols) == o.codes.shape
        assert fl["element"] == o.element and fl["scale_format"] == o.scale_format
        assert fl["block"] == f"{o.block[0]}x{o.block[1]}"
        assert fl["scale_shape"] == f"{o.scales.shape[0]}x{o.scales.shape[1]}"
        assert int(fl["amax"], 16) == o.amax_bits
        assert int(fl["tensor_scale"], 16) == o.tensor_scale_bits
        assert int(fl["tensor_scale_inv"], 16) == o.tensor_scale_inv_bits
        assert int(fl["flags"], 16) == o.flags
        assert c["codes"] == o.codes.reshape(-1).tolist()
        assert c["scales"] == o.scales.reshape(-1).tolist()
        assert c["multipliers"] == o.multipliers.reshape(-1).tolist()
        assert c.get("rht_input") == (None if o.rht_input is None else o.rht_input.reshape(-1).tolist())
        assert c["te_scales"] == o.te_scales.reshape(-1).tolist()
        assert c.get("swizzled_scales") == (None if o.swizzled_scales is None else o.swizzled_scales.reshape(-1).tolist())
        assert (o.swizzled_scales is None) == (o.scale_format == "f32")
        assert o.dequantized.shape == (o.rows, o.cols)
        assert c["dequantized"] == np.asarray(o.dequantized).view(np.uint32 if dq_cli == "f32" else np.uint16).reshape(-1).tolist()
        assert o.codes.dtype == np.uint8 and not o.codes.flags.writeable
        assert o.scales.dtype == (np.uint32 if o.scale_format == "f32" else np.uint8)


def test_global_amax_10_by_hand():
    # G = 10, block [10, 1, -2.5, 0.75]: S_enc = RN(2688 / 10) (core_nvfp4.cuh:87-94), scale 0x7E
    # (:51-52), m = RN(1 / RN(448 * S_dec)) (:549-550).
    x = np.zeros((16, 16), np.float32)
    x[0, :4] = [10, 1, -2.5, 0.75]
    q = softmx.recipe("te-nvfp4", x, random_hadamard=False)
    r = q.rowwise
    assert r.amax == 10.0 and r.amax_bits == 0x41200000
    assert r.tensor_scale_bits == 0x43866666 and r.tensor_scale_inv_bits == 0x3B73CF3E
    assert r.scales.shape == (16, 1) and r.scales[0, 0] == 0x7E and r.scales[1, 0] == 0
    assert r.multipliers[0, 0] == 0x3F199999
    assert r.codes[0, :4].tolist() == [0x7, 0x1, 0xB, 0x1]
    c = q.columnwise
    assert (c.rows, c.tensor_scale_bits, int(c.scales[0, 0]), int(c.codes[0, 0])) == (16, 0x43866666, 0x7E, 0x7)
    assert q.recipe == "te-nvfp4" and q.element == "e2m1" and not q.random_hadamard
    assert r.dequantized is None and r.te_scales.shape == (128, 4) and r.swizzled_scales.shape == (1, 512)
    # TE's dequantization (dequantize_nvfp4.cuh:65-77): 10 -> 6 * RN(RN(448 * 10) * RN(1/2688)).
    d = softmx.recipe("te-nvfp4", x, random_hadamard=False, dequantize=np.float32).rowwise.dequantized
    assert d.dtype == np.float32 and d[0, 0] == np.float32(6) * (np.float32(4480) * np.float32(1 / 2688))


def test_recipes_listed():
    names = [r.name for r in softmx.recipes()]
    assert names == ["te-fp8-current", "te-fp8-block", "te-mxfp8", "te-nvfp4"]
    assert softmx.recipes()[3].te_name == "NVFP4BlockScaling"
    x = np.ones((32, 32), np.float32)
    assert softmx.recipe("MXFP8BlockScaling", x).recipe == "te-mxfp8"  # TE's class names too


def test_readonly_and_noncontiguous_inputs():
    x = tensor(7, (32, 64)).view(np.float32)
    ro = np.array(x)
    ro.flags.writeable = False
    a = softmx.recipe("te-fp8-current", ro)
    b = softmx.recipe("te-fp8-current", np.asfortranarray(x))
    assert np.array_equal(a.rowwise.codes, b.rowwise.codes)
    assert np.array_equal(a.columnwise.codes, a.rowwise.codes.T)


@pytest.mark.parametrize("call, exc, message", [
    (lambda x: softmx.recipe("nope", x), ValueError, "unknown recipe 'nope' (expected one of te-fp8-current"),
    (lambda x: softmx.recipe("te-mxfp8", x[:16, :16]), ValueError, "MXFP8 needs both dimensions divisible by 32"),
    (lambda x: softmx.recipe("te-nvfp4", x), ValueError, "the random Hadamard transform needs bf16 input"),
    (lambda x: softmx.recipe("te-fp8-current", x, role="bias"), ValueError, "role: expected 'input', 'weight' or 'gradient'"),
    (lambda x: softmx.recipe("te-fp8-current", x, impl="gpu"), ValueError, "impl: expected 'kernel', 'reference'"),
    (lambda x: softmx.recipe("te-fp8-current", x, outputs="none"), ValueError, "outputs: expected 'both'"),
    (lambda x: softmx.recipe("te-fp8-current", x, fp8_format="e5m2"), ValueError, "fp8_format: expected 'e4m3' or 'hybrid'"),
    (lambda x: softmx.recipe("te-fp8-current", x, tiles_2d=True), ValueError, "2-d tiles apply to te-fp8-block and te-nvfp4"),
    (lambda x: softmx.recipe("te-fp8-block", x, amax=1.0), ValueError, "a given amax applies to per-tensor scales"),
    (lambda x: softmx.recipe("te-fp8-current", x, power_2_scale=1), TypeError, "power_2_scale must be True, False or None"),
    (lambda x: softmx.recipe("te-fp8-current", x, amax="1"), TypeError, "amax must be a float"),
    (lambda x: softmx.recipe("te-nvfp4", x, rht_signs=0x10000, random_hadamard=False), ValueError, "rht_signs is a 16-bit mask"),
    (lambda x: softmx.recipe("te-nvfp4", x, role="gradient", random_hadamard=False), ValueError,
     "stochastic rounding needs one random value per rowwise element (1024), got 0"),
    (lambda x: softmx.recipe("te-nvfp4", x, role="gradient", random_hadamard=False, random_rowwise=np.full(1024, 256),
                             random_columnwise=np.zeros(1024, np.uint64)), ValueError, "does not fit in rbits = 8 bits"),
    (lambda x: softmx.recipe("te-nvfp4", x, role="gradient", random_hadamard=False, random_rowwise=np.zeros(5, np.uint64)),
     ValueError, "random_rowwise: expected one random value per element of the output (1024), got 5"),
    (lambda x: softmx.recipe("te-fp8-current", x.astype(np.float64)), ValueError, "f64"),
    (lambda x: softmx.recipe("te-fp8-current", x.view(np.uint32)), TypeError, "give src=..."),
    (lambda x: softmx.recipe("te-fp8-current", x, dialect="nope"), ValueError, "nope"),
    (lambda x: softmx.recipe("te-nvfp4", x, role="weight", rht_signs=0xD7E8), ValueError,
     "rht_signs applies with the random Hadamard transform"),
    (lambda x: softmx.recipe("te-nvfp4", x, random_hadamard=False, random_rowwise=np.zeros(1024, np.uint64)), ValueError,
     "random_rowwise applies with stochastic rounding (te-nvfp4 gradients, or stochastic_rounding=True); it is off here"),
    (lambda x: softmx.recipe("te-fp8-current", x, stochastic_form="rs"), ValueError, "stochastic_form applies with stochastic rounding"),
    (lambda x: softmx.recipe("te-nvfp4", x, role="gradient", random_hadamard=False, rbits=12), ValueError,
     "rbits is the width of stochastic_form='rs'"),
    (lambda x: softmx.recipe("te-fp8-current", x, dequantize=np.float64), ValueError, "TE dequantizes into f32, bf16 or f16"),
    (lambda x: softmx.recipe("te-fp8-current", x, dequantize="e4m3"), ValueError, "dtype must be"),
])
def test_errors(call, exc, message):
    x = tensor(3, (32, 32), specials=False).view(np.float32)
    keep = x.copy()
    with pytest.raises(exc) as e:
        call(x)
    assert message in str(e.value), str(e.value)
    assert np.array_equal(x.view(np.uint32), keep.view(np.uint32))


def test_gil_released_threads_agree():
    # Four threads at once give what one gives (the call holds no Python state while it runs).
    x = (tensor(11, (128, 256), specials=False) >> 16).astype(np.uint16)
    one = softmx.recipe("te-nvfp4", x, src="bf16")
    res = [None] * 4

    def work(i):
        res[i] = softmx.recipe("te-nvfp4", x, src="bf16")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for r in res:
        assert np.array_equal(r.columnwise.codes, one.columnwise.codes)
        assert np.array_equal(r.columnwise.rht_input, one.columnwise.rht_input)


# The committed recipe sets (vectors/recipes/, made by `softmx recipe ... --seed 1`): Python's
# recipe() on recipe_test_input gives the same codes, scales and layouts, file by file.
COMMITTED = [
    ("te-fp8-current-f32-16x64-input.txt", "te-fp8-current", "f32", (16, 64), {}),
    ("te-fp8-current-bf16-16x64-gradient.txt", "te-fp8-current", "bf16", (16, 64), {"role": "gradient"}),
    ("te-fp8-block-f32-4x256-input.txt", "te-fp8-block", "f32", (4, 256), {}),
    ("te-fp8-block-f32-8x128-weight.txt", "te-fp8-block", "f32", (8, 128), {"role": "weight"}),
    ("te-mxfp8-bf16-32x32-input.txt", "te-mxfp8", "bf16", (32, 32), {}),
    ("te-nvfp4-bf16-32x32-input.txt", "te-nvfp4", "bf16", (32, 32), {}),
    ("te-nvfp4-bf16-32x32-weight.txt", "te-nvfp4", "bf16", (32, 32), {"role": "weight"}),
]


@pytest.mark.parametrize("case", COMMITTED, ids=[c[0] for c in COMMITTED])
def test_committed_sets_equal_python(case):
    fname, name, src, shape, kw = case
    path = os.path.join(os.environ.get("SOFTMX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "vectors", "recipes", fname)
    with open(path) as f:
        text = f.read()
    assert text.splitlines()[0].endswith(" seed=1")
    x = softmx.recipe_test_input(shape, src, seed=1)
    assert x.shape == shape and x.dtype == (np.uint16 if src == "bf16" else np.float32)
    q = softmx.recipe(name, x, src="bf16" if src == "bf16" else None, **kw)
    cli = parse_cli(text)
    for d in ("rowwise", "columnwise"):
        o, c = getattr(q, d), cli[d]
        assert c["codes"] == o.codes.reshape(-1).tolist()
        assert c["scales"] == o.scales.reshape(-1).tolist()
        assert c["multipliers"] == o.multipliers.reshape(-1).tolist()
        assert int(c["fields"]["amax"], 16) == o.amax_bits
        if "te_scales" in c:
            assert c["te_scales"] == o.te_scales.reshape(-1).tolist()


def test_recipe_test_input():
    a = softmx.recipe_test_input((4, 16), "f32", seed=3)
    b = softmx.recipe_test_input(64, "f32", seed=3)
    assert a.dtype == np.float32 and np.array_equal(a.reshape(-1).view(np.uint32), b.view(np.uint32))
    assert np.isfinite(a).all() and not np.array_equal(a, softmx.recipe_test_input((4, 16), "f32", seed=4))
    h = softmx.recipe_test_input(64, "f16", seed=3)
    assert h.dtype == np.float16 and np.isfinite(h).all()
    nz = np.abs(h[h != 0])
    assert nz.min() >= 2.0 ** -14 and nz.max() < 2.0 ** 13
    with pytest.raises(ValueError, match="must be f32, bf16 or f16"):
        softmx.recipe_test_input(4, "f64")
    with pytest.raises(ValueError, match="positive"):
        softmx.recipe_test_input((0, 4))
    with pytest.raises(ValueError, match="seed"):
        softmx.recipe_test_input(4, seed=-1)
