"""softmx.quantize, MXArray.dequantize, fake_quantize, pack/unpack and NVFP4, bit for bit
against the library's block-by-block path (quantize_block on the scalar instruction set,
blocks gathered by the test module), dequantize_element per element, and the CLI."""

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import softmx
from conftest import (DIALECTS, ELEMENTS, FORMAT_ID, HOST, ROUNDING_ID, SATURATION_ID, SCALE_RULE_ID, TININESS_ID,
                      all_codes, dialect_index, hexcodes, reference)

BLOCK_DIALECTS = [d.name for d in softmx.dialects() if d.blocks]


def ref_quantize(src_name, data_codes, shape, axis, k, element, scale, rnd, sat, tininess, dialect, rbits=32,
                 random=None):
    """The library's quantize_block per block, or the ValueError it raises."""
    return reference.quantize_scalar(
        FORMAT_ID[src_name], np.asarray(data_codes, dtype=np.uint64).reshape(-1), list(shape), axis, k,
        FORMAT_ID[element], -1 if scale is None else SCALE_RULE_ID[scale], -1 if rnd is None else ROUNDING_ID[rnd],
        -1 if sat is None else SATURATION_ID[sat], TININESS_ID[tininess], dialect_index(dialect), rbits,
        None if random is None else np.asarray(random, dtype=np.uint64).reshape(-1))


def tensor(shape, seed, src="f32"):
    """Random data with every kind of special sprinkled in: zeros, NaN, Inf, huge and tiny
    values, whole zero blocks; as values of src (bf16: its uint16 bits)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    x = rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, n))
    pick = rng.integers(0, 40, n)
    x[pick == 0] = 0.0
    x[pick == 1] = np.nan
    x[pick == 2] = np.inf
    x[pick == 3] = -np.inf
    x[pick == 4] = 1e30
    x[pick == 5] = -3e-30
    x[pick == 6] = 448.0 * 1.07
    x[: min(n, 40)] = 0.0  # at least one all-zero block in most layouts
    x = x.reshape(shape)
    if src == "f64":
        return x, x
    if src == "f32":
        return x.astype(np.float32), x.astype(np.float32)
    if src == "f16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16), x.astype(np.float16)
    b = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16 bits (truncated)
    return b, b


LAYOUTS = [((3, 70), 1, 32), ((70, 3), 0, 32), ((2, 33, 5), 1, 16), ((100,), 0, 7), ((4, 8), 1, 1),
           ((5, 64), -1, 32)]


class Tally:
    def __init__(self):
        self.cases = self.mismatches = 0
        self.examples = []

    def check(self):
        print(f"{self.cases} cases, {self.mismatches} mismatches")
        assert self.mismatches == 0, "\n".join(self.examples)
        assert self.cases > 0


def compare_quantize(tally, x, codes, src, shape, axis, k, element, dialect, scale, rnd, sat, tininess="after"):
    ax = axis % len(shape)
    random = None
    if rnd == "rs":
        random = np.random.default_rng(9).integers(0, 1 << 32, size=shape, dtype=np.uint64)
    kw = dict(block=k, axis=axis, scale=scale, dialect=dialect, round=rnd, sat=sat, tininess=tininess,
              src="bf16" if src == "bf16" else None, random=random)
    try:
        want = ref_quantize(src, codes, shape, ax, k, element, scale, rnd, sat, tininess, dialect, 32, random)
    except ValueError as e:
        with pytest.raises(ValueError):
            softmx.quantize(x, element, **kw)
        tally.cases += 1
        return
    q = softmx.quantize(x, element, **kw)
    tally.cases += q.size
    ok = (np.array_equal(q.scales.reshape(-1), want[0]) and np.array_equal(q.codes.reshape(-1), want[1])
          and q.flags == want[2])
    if not ok:
        tally.mismatches += 1
        if len(tally.examples) < 5:
            tally.examples.append(f"{src}->{element} {shape} axis {axis} k {k} {dialect} {scale} {rnd} {sat}")


@pytest.mark.long
@pytest.mark.parametrize("element", ELEMENTS)
def test_quantize_grid(element, ref):
    """Every dialect that quantizes blocks x scale rule (and the dialect's) x rounding (and the
    dialect's, rs included) x saturation (and the dialect's), on tensors with partial blocks,
    specials and zero blocks, along every kind of axis."""
    tally = Tally()
    for li, (shape, axis, k) in enumerate(LAYOUTS):
        x, codes = tensor(shape, li, "f32")
        for dialect in BLOCK_DIALECTS:
            for scale in [None, "floor", "ceil", "even", "rceil"]:
                for rnd in [None, "rne", "rz", "ru", "rd", "rna", "ro", "rs"]:
                    for sat in [None, "finite", "none"]:
                        compare_quantize(tally, x, codes.view(np.uint32), "f32", shape, axis, k, element, dialect,
                                         scale, rnd, sat)
    tally.check()


@pytest.mark.parametrize("src", HOST)
def test_quantize_sources(src, ref):
    """f64, f32, f16 and bf16 data (bf16 as uint16 bits with src='bf16'), every element format
    and dialect, tininess both ways."""
    tally = Tally()
    for li, (shape, axis, k) in enumerate(LAYOUTS):
        x, codes = tensor(shape, 100 + li, src)
        c = codes if src == "bf16" else codes.view({8: np.uint64, 4: np.uint32, 2: np.uint16}[codes.itemsize])
        for element in ELEMENTS:
            for dialect in BLOCK_DIALECTS:
                for tin in ("after", "before"):
                    compare_quantize(tally, x, c, src, shape, axis, k, element, dialect, None, None, None, tin)
    tally.check()


def test_threads_do_not_change_quantization():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((256, 4099)) * 10).astype(np.float32)
    for axis in (-1, 0):
        base = softmx.quantize(x, "e4m3", axis=axis, threads=1)
        for t in (2, 5):
            q = softmx.quantize(x, "e4m3", axis=axis, threads=t)
            assert np.array_equal(q.codes, base.codes) and np.array_equal(q.scales, base.scales)
            assert q.flags == base.flags
            assert np.array_equal(q.dequantize(threads=t), base.dequantize(threads=1))


@pytest.mark.long
@pytest.mark.parametrize("element", ELEMENTS)
def test_dequantize_every_scale_and_code(element, ref):
    """Every scale code x every element code, into f64, f32, f16 and bf16, under every dialect,
    rounding rne and rz, both saturations: the library's dequantize_element per element."""
    w = softmx.format_info(element).width
    ncodes = 1 << w
    codes = np.tile(np.arange(ncodes, dtype=np.uint8), (256, 1))
    scales = np.arange(256, dtype=np.uint8).reshape(256, 1)
    cases = 0
    for dialect in DIALECTS:
        q = softmx.MXArray(scales, codes, element, axis=1, block=ncodes, dialect=dialect)
        for dst in HOST:
            for rnd in ("rne", "rz"):
                for sat in ("finite", "none"):
                    got, fl = q.dequantize("bf16" if dst == "bf16" else dst, round=rnd, sat=sat, flags=True)
                    want, wfl = reference.dequantize_scalar(FORMAT_ID[element], scales.reshape(-1), codes.reshape(-1),
                                                            [256, ncodes], 1, ncodes, FORMAT_ID[dst], ROUNDING_ID[rnd],
                                                            SATURATION_ID[sat], 0, dialect_index(dialect))
                    g = got.view({8: np.uint64, 4: np.uint32, 2: np.uint16}[got.itemsize]).reshape(-1)
                    assert np.array_equal(g.astype(np.uint64), want), (element, dialect, dst, rnd, sat)
                    assert fl == wfl
                    cases += g.size
    print(f"{cases} cases, 0 mismatches")


def test_dequantize_strided_axis(ref):
    """A tensor blocked along a middle axis dequantizes element by element as the library does."""
    x, codes = tensor((3, 37, 4), 21, "f32")
    for element in ELEMENTS:
        q = softmx.quantize(x, element, axis=1, block=8)
        got = q.dequantize(np.float64)
        want, _ = reference.dequantize_scalar(FORMAT_ID[element], q.scales.reshape(-1), q.codes.reshape(-1),
                                              [3, 37, 4], 1, 8, FORMAT_ID["f64"], 0, 1, 0, 0)
        assert np.array_equal(got.view(np.uint64).reshape(-1), want)


def test_quantize_agrees_with_the_cli(cli):
    """softmx.quantize and `softmx quantize` on the same f32 blocks, every block dialect and
    element, with the default options and with names given."""
    x, codes = tensor((6, 32), 31, "f32")
    stdin = "\n".join(" ".join(hexcodes(r, "f32")) for r in codes.view(np.uint32)) + "\n"
    for dialect in BLOCK_DIALECTS:
        for element in ELEMENTS:
            for opts in ([], ["--scale", "ceil", "--round", "rz", "--sat", "none"]):
                kw = {} if not opts else dict(scale="ceil", round="rz", sat="none")
                args = ["quantize", "--to", element, "--dialect", dialect] + opts
                try:
                    q = softmx.quantize(x, element, dialect=dialect, **kw)
                except ValueError:
                    import os, subprocess
                    r = subprocess.run([os.environ["SOFTMX_CLI"]] + args, input=stdin, capture_output=True, text=True)
                    assert r.returncode == 2
                    continue
                rows = [line.split() for line in cli(args, stdin).splitlines()]
                assert [int(r[0], 16) for r in rows] == [int(s) for s in q.scales.reshape(-1)], args
                assert [int(c, 16) for r in rows for c in r[1:]] == [int(c) for c in q.codes.reshape(-1)], args


def test_dequantize_agrees_with_the_cli(cli):
    x, _ = tensor((4, 32), 41, "f32")
    for element in ELEMENTS:
        q = softmx.quantize(x, element)
        stdin = "\n".join(" ".join(hexcodes(q.scales[i], "e8m0") + hexcodes(q.codes[i], element)) for i in range(4))
        for to, dt in (("f32", np.float32), ("f16", np.float16), ("bf16", "bf16")):
            out = cli(["dequantize", "--from", element, "--to", to], stdin + "\n")
            want = [int(v, 16) for v in out.split()]
            got = q.dequantize(dt)
            got = got if to == "bf16" else got.view({4: np.uint32, 2: np.uint16}[got.itemsize])
            assert [int(v) for v in got.reshape(-1)] == want, (element, to)


def test_nvfp4_agrees_with_the_cli(cli):
    """NVFP4 quantization (and its f32 tensor scale) and dequantization, against `softmx
    quantize --to nvfp4` and `softmx dequantize --from nvfp4`."""
    for seed, mult in ((1, "reciprocal-product"), (2, "division")):
        x, codes = tensor((4, 48), 50 + seed, "f32")
        x[np.isnan(x) | np.isinf(x)] = 3.0
        codes = x.view(np.uint32)
        stdin = " ".join(hexcodes(codes, "f32")) + "\n"
        out = cli(["quantize", "--to", "nvfp4", "--nvfp4-multiplier", mult], stdin).splitlines()
        q = softmx.quantize(x, "nvfp4", nvfp4_multiplier=mult)
        header = out[0].split()
        assert header[2] == f"global_amax={q._global_amax:08X}" and header[3] == f"encode_scale={q._encode_scale:08X}"
        rows = [r.split() for r in out[1:]]
        assert [int(r[0], 16) for r in rows] == [int(s) for s in q.scales.reshape(-1)]
        assert [int(c, 16) for r in rows for c in r[1:]] == [int(c) for c in q.codes.reshape(-1)]
        deq = cli(["dequantize", "--from", "nvfp4"], "\n".join(out) + "\n")
        assert [int(v, 16) for v in deq.split()] == [int(v) for v in q.dequantize().view(np.uint32).reshape(-1)]
    # A given global amax, and bf16 input.
    xb = np.arange(32, dtype=np.uint16) + 0x3F80
    q = softmx.quantize(xb, "nvfp4", src="bf16", global_amax=8.0)
    assert q.global_amax == 8.0
    out = cli(["quantize", "--to", "nvfp4", "--from", "bf16", "--global-amax", "41000000"],
              " ".join(hexcodes(xb, "bf16")) + "\n").splitlines()
    assert [int(c, 16) for r in out[1:] for c in r.split()[1:]] == [int(c) for c in q.codes]


def test_nvfp4_along_axis_0_equals_the_transpose():
    x, _ = tensor((40, 6), 61, "f32")
    x[~np.isfinite(x)] = 1.0
    a = softmx.quantize(x, "nvfp4", axis=0)
    b = softmx.quantize(np.ascontiguousarray(x.T), "nvfp4", axis=1)
    assert np.array_equal(a.codes, b.codes.T) and np.array_equal(a.scales, b.scales.T)
    assert np.array_equal(a.dequantize(), b.dequantize().T)


def numpy_pack(codes, element):
    """docs/BLOCKS.md 4, written independently with numpy: FP4 low nibble first; FP6 24-bit
    little-endian groups, element 4i in bits 0-5; 8-bit formats unchanged."""
    c = np.asarray(codes, dtype=np.uint32)
    n = c.shape[-1]
    w = softmx.format_info(element).width
    if w == 4:
        if n % 2:
            c = np.concatenate([c, np.zeros(c.shape[:-1] + (1,), np.uint32)], axis=-1)
        return (c[..., 0::2] | (c[..., 1::2] << 4)).astype(np.uint8)
    if w == 6:
        pad = (-n) % 4
        if pad:
            c = np.concatenate([c, np.zeros(c.shape[:-1] + (pad,), np.uint32)], axis=-1)
        g = c[..., 0::4] | (c[..., 1::4] << 6) | (c[..., 2::4] << 12) | (c[..., 3::4] << 18)
        b = np.stack([g & 0xFF, (g >> 8) & 0xFF, (g >> 16) & 0xFF], axis=-1).reshape(c.shape[:-1] + (-1,))
        return b[..., : (3 * n + 3) // 4].astype(np.uint8)
    return c.astype(np.uint8)


@pytest.mark.parametrize("element", ELEMENTS)
def test_packed_layout(element):
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 4, 5, 31, 32, 33):
        x = rng.standard_normal((3, n)).astype(np.float32)
        q = softmx.quantize(x, element)
        p = q.packed()
        assert np.array_equal(p, numpy_pack(q.codes, element)), (element, n)
        assert np.array_equal(softmx.unpack(p, element, n), q.codes)
        assert np.array_equal(softmx.pack(q.codes, element), p)
    with pytest.raises(ValueError, match="bytes per row"):
        softmx.unpack(np.zeros((2, 5), np.uint8), "e2m1", 4)


def test_fake_quantize():
    x, _ = tensor((8, 64), 71, "f32")
    for element in ELEMENTS:
        y = softmx.fake_quantize(x, element)
        assert y.dtype == np.float32
        assert np.array_equal(y, softmx.quantize(x, element).dequantize(), equal_nan=True)
    x64 = x.astype(np.float64)
    assert softmx.fake_quantize(x64, "e2m1").dtype == np.float64
    xb = (x.view(np.uint32) >> 16).astype(np.uint16)
    yb = softmx.fake_quantize(xb, "e4m3", src="bf16")
    assert yb.dtype == np.uint16
    assert softmx.fake_quantize(x, "nvfp4", dtype=np.float64).dtype == np.float64


def test_mxarray_from_parts():
    x, _ = tensor((4, 40), 81, "f32")
    q = softmx.quantize(x, "e3m2", axis=1, block=16)
    r = softmx.MXArray(q.scales, q.codes, "e3m2", axis=1, block=16)
    assert np.array_equal(r.dequantize(), q.dequantize(), equal_nan=True)
    assert r.shape == (4, 40) and r.axis == 1 and r.block == 16 and r.format == "e3m2" and r.flags == 0
    assert r.scale_format == "e8m0" and r.encode_scale is None
    assert not r.codes.flags.writeable and not r.scales.flags.writeable
    with pytest.raises(ValueError, match=r"need scales of shape \(4, 3\)"):
        softmx.MXArray(q.scales[:, :2], q.codes, "e3m2", axis=1, block=16)
    bad = q.codes.copy()
    bad[1, 2] = 0x40
    with pytest.raises(ValueError, match="out of range for e3m2"):
        softmx.MXArray(q.scales, bad, "e3m2", axis=1, block=16)
    n = softmx.quantize(x, "nvfp4")
    m = softmx.MXArray(n.scales, n.codes, "nvfp4", encode_scale=n.encode_scale, global_amax=n.global_amax)
    assert np.array_equal(m.dequantize(), n.dequantize())
    with pytest.raises(ValueError, match="encode_scale"):
        softmx.MXArray(n.scales, n.codes, "nvfp4")


@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 70)), elements=st.floats(width=32)),
       st.sampled_from(ELEMENTS), st.sampled_from([0, 1, -1]), st.sampled_from([1, 3, 16, 32]),
       st.sampled_from(BLOCK_DIALECTS))
def test_property_quantize(x, element, axis, k, dialect):
    if reference is None:
        pytest.skip("no reference module")
    tally = Tally()
    compare_quantize(tally, x, x.view(np.uint32), "f32", x.shape, axis, k, element, dialect, None, None, None)
    assert tally.mismatches == 0, tally.examples


def test_nvfp4_options_reach_the_library(ref):
    """round='rs' in both stochastic forms (rbits 8 and 32) and TE's dequantize kernel, against
    quantize_nvfp4 / dequantize_nvfp4 called directly."""
    x, _ = tensor((4, 48), 91, "f32")
    x[~np.isfinite(x)] = -2.5
    r0 = np.random.default_rng(3).integers(0, 1 << 32, size=x.shape, dtype=np.uint64)
    for stochastic, form in (("rs", 1), ("software", 0)):
        for rbits in (8, 32):
            r = r0 & np.uint64((1 << rbits) - 1)
            q = softmx.quantize(x, "nvfp4", round="rs", rbits=rbits, random=r, nvfp4_stochastic=stochastic)
            for deq_name, deq in (("exact", 0), ("te-kernel", 1)):
                s, c, d = ref.nvfp4_direct(x.view(np.uint32).reshape(-1), [4, 48], 1, ROUNDING_ID["rs"], form, rbits,
                                           r.reshape(-1), deq)
                assert np.array_equal(q.scales.reshape(-1), s) and np.array_equal(q.codes.reshape(-1), c)
                got = q.dequantize(nvfp4_dequantization=deq_name)
                assert np.array_equal(got.view(np.uint32).reshape(-1), d), (stochastic, rbits, deq_name)
    with pytest.raises(ValueError, match="'exact' or 'te-kernel'"):
        q.dequantize(nvfp4_dequantization="fast")
    with pytest.raises(ValueError, match="'rs' or 'software'"):
        softmx.quantize(x, "nvfp4", nvfp4_stochastic="hw")
