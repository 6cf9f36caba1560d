"""softmx.encode (the codes of softmx.convert) and softmx.decode against the library's scalar convert(), bit for bit.

Exhaustive over every code of every source of at most 16 bits (e4m3 ... e8m0, f16, bf16) into
every format, under every dialect x rounding x saturation (x tininess); f32 and f64 sources on
the rounding boundaries of every destination plus random bit patterns, under the same grid.
The package's path (vector kernels, threads, views) meets the reference path (one value at a
time through the scalar kernels) only in the library's definitions.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import softmx
from conftest import (DIALECTS, FORMATS, ROUNDINGS, SATURATIONS, all_codes, ref_convert, storage)

SMALL_SOURCES = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0", "f16", "bf16"]


def random_bits(n, rbits, seed):
    rng = np.random.default_rng(seed)
    r = rng.integers(0, 1 << min(rbits, 63), size=n, dtype=np.uint64)
    if rbits == 64:
        r = r | (rng.integers(0, 2, size=n, dtype=np.uint64) << np.uint64(63))
    return r


class Tally:
    """Counts cases and mismatches; keeps the first few mismatches for the message."""

    def __init__(self):
        self.cases = 0
        self.mismatches = 0
        self.examples = []

    def compare(self, what, inputs, got_codes, got_flags, want_codes, want_flags):
        got_codes = np.asarray(got_codes).astype(np.uint64).reshape(-1)
        got_flags = np.asarray(got_flags).reshape(-1)
        bad = (got_codes != want_codes) | (got_flags != want_flags)
        self.cases += got_codes.size
        nbad = int(bad.sum())
        if nbad:
            self.mismatches += nbad
            i = int(np.argmax(bad))
            if len(self.examples) < 5:
                self.examples.append(f"{what}: input {int(np.asarray(inputs).reshape(-1)[i]):#x} -> "
                                     f"{int(got_codes[i]):#x} flags {int(got_flags[i]):#04x}, library "
                                     f"{int(want_codes[i]):#x} flags {int(want_flags[i]):#04x}")

    def check(self):
        print(f"{self.cases} cases, {self.mismatches} mismatches")
        assert self.mismatches == 0, "\n".join(self.examples)
        assert self.cases > 0


def compare_grid(src, codes, tally, dsts=FORMATS, dialects=DIALECTS, roundings=ROUNDINGS, saturations=SATURATIONS,
                 tininess=("after", "before"), threads=None):
    """softmx.encode of `codes` (storage type of src) against ref_convert over the grid."""
    for dst in dsts:
        for dialect in dialects:
            for rnd in roundings:
                for sat in saturations:
                    for tin in tininess:
                        rbits = 32 if rnd == "rs" else None
                        random = random_bits(codes.size, 32, 7).reshape(codes.shape) if rnd == "rs" else None
                        want = ref_convert(src, dst, codes, rnd, sat, tin, dialect, 32, random)
                        kw = dict(src=src, round=rnd, sat=sat, dialect=dialect, tininess=tin, rbits=rbits,
                                  random=random, flags=True, threads=threads)
                        if want is None:
                            with pytest.raises(ValueError, match=dialect):
                                softmx.encode(codes, dst, **kw)
                            continue
                        got, fl = softmx.encode(codes, dst, **kw)
                        assert got.dtype == storage(dst) and got.shape == codes.shape
                        tally.compare(f"{src}->{dst} {dialect} {rnd} {sat} {tin}", codes, got, fl, want[0], want[1])


@pytest.mark.parametrize("src", [s if s not in ("f16", "bf16") else pytest.param(s, marks=pytest.mark.long)
                                 for s in SMALL_SOURCES])
def test_every_code_of_small_sources(src, ref):
    """Every code of src into every format x dialect x rounding x saturation (x tininess for the
    8-bit sources)."""
    tally = Tally()
    codes = all_codes(src)
    tins = ("after", "before") if softmx.format_info(src).width <= 8 else ("after",)
    compare_grid(src, codes, tally, tininess=tins)
    if softmx.format_info(src).width == 16:
        compare_grid(src, codes, tally, dialects=["ocp"], tininess=("before",))
    tally.check()


@pytest.mark.parametrize("src", ["f16", "bf16"])
def test_every_code_of_16_bit_sources_ocp(src, ref):
    """The quick run's share of the 16-bit grid (the whole grid is under the `long` label):
    every code into every format, ocp, rne, both saturations."""
    tally = Tally()
    compare_grid(src, all_codes(src), tally, dialects=["ocp"], roundings=["rne"], tininess=("after",))
    tally.check()


def boundary_values(dst):
    """f64 values at and between the finite values of dst: every value of a format of at most 16
    bits, the midpoints between neighbours, and +-0, +-Inf, NaN."""
    info = softmx.format_info(dst)
    if info.width <= 16:
        codes = all_codes(dst)
        v = softmx.decode(codes, dst, "f64", sat="none")
    else:
        rng = np.random.default_rng(3)
        v = rng.standard_normal(4096) * np.exp2(rng.integers(-140, 130, 4096))
        v = v.astype(np.float32).astype(np.float64) if dst == "f32" else v
    v = np.unique(np.abs(v[np.isfinite(v)]))
    mids = (v[1:] + v[:-1]) / 2
    extra = [0.0, info.max_finite * 2, info.max_finite * 1.0001, np.inf, np.nan]
    out = np.concatenate([v, mids, extra])
    return np.concatenate([out, -out])


def neighbours(values, dtype, steps=2):
    """values rounded to dtype, and their `steps` neighbours on each side in dtype."""
    v = values.astype(dtype)
    out = [v]
    up, down = v, v
    for _ in range(steps):
        up = np.nextafter(up, dtype(np.inf))
        down = np.nextafter(down, dtype(-np.inf))
        out += [up, down]
    return np.concatenate(out)


def special_bits(src):
    """Every NaN kind, infinities, zeros, subnormal edges of f32 or f64, as bit patterns."""
    if src == "f32":
        return np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FFFFFFF, 0x7F800000,
                         0xFF800000, 0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF],
                        dtype=np.uint32)
    return np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF,
                     0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0, 0x8000000000000000, 1,
                     0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF], dtype=np.uint64)


@pytest.mark.long
@pytest.mark.parametrize("src", ["f32", "f64"])
def test_wide_sources_boundaries_and_random(src, ref):
    """f32 and f64 inputs at every rounding boundary of each destination (and their neighbours)
    plus 4096 random bit patterns, into every format x dialect x rounding x saturation."""
    tally = Tally()
    dtype = np.float32 if src == "f32" else np.float64
    ut = np.uint32 if src == "f32" else np.uint64
    rng = np.random.default_rng(11 if src == "f32" else 12)
    rand = rng.integers(0, np.iinfo(ut).max, size=4096, dtype=ut, endpoint=True)
    for dst in FORMATS:
        b = boundary_values(dst)
        with np.errstate(over="ignore", invalid="ignore"):
            vals = neighbours(b, dtype)
        codes = np.concatenate([vals.view(ut), rand, special_bits(src)])
        compare_grid(src, codes, tally, dsts=[dst], tininess=("after",))
        compare_grid(src, codes, tally, dsts=[dst], dialects=["ocp"], saturations=["finite"], tininess=("before",))
    tally.check()


def test_defaults_are_the_clis(cli, ref):
    """round and sat left out take the dialect's default for the destination, as the CLI without
    --round and --sat."""
    x = np.array([1e6, -1e6, 465.0, 3.0, 1e-30, np.inf, -np.inf, np.nan, 0.1, 57344 * 4.0], dtype=np.float32)
    hexes = "\n".join(format(int(v), "08X") for v in x.view(np.uint32)) + "\n"
    for dialect in DIALECTS:
        for dst in FORMATS:
            try:
                got, fl = softmx.encode(x, dst, dialect=dialect, flags=True)
            except ValueError:
                # a refusal must be the CLI's too (the old round='rne' default hid cuda's e8m0 here)
                import os, subprocess
                r = subprocess.run([os.environ["SOFTMX_CLI"], "convert", "--from", "f32", "--to", dst, "--dialect",
                                    dialect], input=hexes, capture_output=True, text=True)
                assert r.returncode == 2, (dialect, dst, r.stdout)
                continue
            out = cli(["convert", "--from", "f32", "--to", dst, "--dialect", dialect], hexes)
            rows = [line.split() for line in out.splitlines()]
            want = np.array([int(r[1], 16) for r in rows], dtype=np.uint64)
            wantf = np.array([int(r[2], 16) for r in rows], dtype=np.uint8)
            assert np.array_equal(got.astype(np.uint64), want), (dialect, dst)
            assert np.array_equal(fl, wantf), (dialect, dst)


@pytest.mark.long
def test_names_and_aliases_agree_with_the_cli(cli):
    """Every rounding, saturation and tininess name (with aliases) and every dialect, through
    the package and through `softmx convert`, on the same f32 inputs into e4m3 and f16."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(64) * np.exp2(rng.integers(-20, 12, 64))).astype(np.float32)
    x[:4] = [448.5, 464.0, 65520.0, 2.0 ** -10 * 1.5]
    hexes = "\n".join(format(int(v), "08X") for v in x.view(np.uint32)) + "\n"
    names = ["rne", "rn", "nearest-even", "rna", "nearest-away", "rz", "zero", "ru", "up", "rd", "down", "ro", "odd"]
    for dst in ("e4m3", "f16", "e2m1"):
        for rnd in names:
            for sat in ("finite", "satfinite", "none", "nosat"):
                for dialect in ("ocp", "cuda", "ml_dtypes"):
                    args = ["convert", "--from", "f32", "--to", dst, "--round", rnd, "--sat", sat, "--dialect", dialect,
                            "--tininess", "before"]
                    try:
                        got, fl = softmx.encode(x, dst, round=rnd, sat=sat, dialect=dialect, tininess="before",
                                                 flags=True)
                    except ValueError as e:
                        import subprocess, os
                        r = subprocess.run([os.environ["SOFTMX_CLI"]] + args, input=hexes, capture_output=True,
                                           text=True)
                        assert r.returncode == 2, (args, str(e))
                        continue
                    rows = [line.split() for line in cli(args, hexes).splitlines()]
                    assert [int(r[1], 16) for r in rows] == [int(c) for c in got], args
                    assert [int(r[2], 16) for r in rows] == [int(f) for f in fl], args


def test_stochastic_rounding_bits(ref):
    """round='rs' with rbits 1, 3, 32 and 64 and per-element random bits, against the library."""
    tally = Tally()
    codes = all_codes("bf16")
    for rbits in (1, 3, 32, 64):
        r = random_bits(codes.size, rbits, rbits)
        for dst in ("e4m3", "e2m1", "e8m0", "int8"):
            want = ref_convert("bf16", dst, codes, "rs", "finite", "after", "ocp", rbits, r)
            got, fl = softmx.encode(codes, dst, src="bf16", round="rs", rbits=rbits, random=r, flags=True)
            tally.compare(f"rs {rbits} {dst}", codes, got, fl, want[0], want[1])
    # One random value for every element broadcasts.
    got = softmx.encode(codes, "e4m3", src="bf16", round="rs", random=5)
    want = ref_convert("bf16", "e4m3", codes, "rs", "finite", "after", "ocp", 32, np.full(codes.size, 5))
    assert np.array_equal(got.astype(np.uint64), want[0])
    tally.check()


def test_threads_do_not_change_results():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(3 * 2 ** 17 + 5) * 100).astype(np.float32)
    base = softmx.encode(x, "e4m3", flags=True, threads=1)
    for t in (2, 3, 8):
        got = softmx.encode(x, "e4m3", flags=True, threads=t)
        assert np.array_equal(got[0], base[0]) and np.array_equal(got[1], base[1])


def test_decode():
    codes = all_codes("e4m3")
    v = softmx.decode(codes, "e4m3")
    assert v.dtype == np.float32
    assert v[0x7E] == 448.0 and v[0x01] == 2.0 ** -9 and np.isnan(v[0x7F]) and v[0x80] == 0 and np.signbit(v[0x80])
    assert softmx.decode(codes, "e4m3", "f64").dtype == np.float64
    assert softmx.decode(codes, "e4m3", np.float16).dtype == np.float16
    b = softmx.decode(codes, "e4m3", "bf16")
    assert b.dtype == np.uint16 and b[0x38] == 0x3F80  # 1.0
    e8 = softmx.decode(all_codes("e8m0"), "e8m0", "f64")
    assert e8[0] == 2.0 ** -127 and e8[127] == 1.0 and np.isnan(e8[255])
    assert softmx.decode([0x7F], "int8")[0] == 127 / 64


@given(hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=9), elements=st.floats(width=32)),
       st.sampled_from(FORMATS), st.sampled_from(["rne", "rz", "ru", "rd", "rna", "ro"]),
       st.sampled_from(SATURATIONS), st.sampled_from(DIALECTS))
def test_property_any_shape(x, dst, rnd, sat, dialect):
    """Any shape, any f32 values: the codes equal the library's scalar convert element by
    element, and the shape is kept."""
    from conftest import reference
    if reference is None:
        pytest.skip("no reference module")
    want = ref_convert("f32", dst, x.view(np.uint32), rnd, sat, "after", dialect)
    if want is None:
        with pytest.raises(ValueError):
            softmx.encode(x, dst, round=rnd, sat=sat, dialect=dialect)
        return
    got, fl = softmx.encode(x, dst, round=rnd, sat=sat, dialect=dialect, flags=True)
    assert got.shape == x.shape
    assert np.array_equal(got.reshape(-1).astype(np.uint64), want[0])
    assert np.array_equal(fl.reshape(-1), want[1])
