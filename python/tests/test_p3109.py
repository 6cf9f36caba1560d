"""IEEE P3109 formats through Python (issue 28; docs/FORMATS.md 5): the draft's names for the
rounding directions and saturations, every bf16 input against the committed run tables
(vectors/p3109/, softmx's, and vectors/peers/gfloat-p3109/, gfloat's), every code against the
working group's value tables (conformance/data/p3109/tables/), and the errors of bad specs."""

import math
import os
import pathlib

import numpy as np
import pytest

import softmx

SOURCE = pathlib.Path(os.environ.get("SOFTMX_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
VECTORS = SOURCE / "vectors"
TABLES = SOURCE / "conformance" / "data" / "p3109" / "tables"

# softmx's short names and the draft's (v4.0 4.2, 4.7.5).
ROUNDINGS = {"rne": "NearestTiesToEven", "rna": "NearestTiesToAway", "rz": "TowardZero", "ru": "TowardPositive",
             "rd": "TowardNegative", "ro": "ToOdd"}
SATURATIONS = {"finite": "SatFinite", "none": "SatNone", "propagate": "SatPropagate"}
FORMATS = ["binary8p3se", "binary8p4se", "binary8p5se"]
BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)


def read_runs(path):
    """A run table (vectors/README.md 5): (header dict, codes[65536], flags[65536] or None)."""
    header, firsts, outs, flags = {}, [], [], []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "=" in line and not firsts:
            k, v = line.split("=", 1)
            header[k.strip()] = v.strip()
            continue
        f = line.split()
        firsts.append(int(f[0], 16))
        outs.append(int(f[1], 16))
        if len(f) > 2:
            flags.append(int(f[2], 16))
    ends = firsts[1:] + [int(header["last"], 16) + 1]
    lengths = np.array(ends) - np.array(firsts)
    codes = np.repeat(np.array(outs, dtype=np.uint8), lengths)
    fl = np.repeat(np.array(flags, dtype=np.uint8), lengths) if flags else None
    assert codes.size == 65536, path
    return header, codes, fl


@pytest.mark.parametrize("fmt", FORMATS)
def test_p3109_every_bf16_input_under_the_drafts_names(fmt):
    """encode with round="NearestTiesToEven" ..., sat="SatFinite" ... gives every code and flag of
    the committed table (softmx sweep --round rne --sat finite --dialect p3109), the same as the
    short names."""
    tables = 0
    for short, draft in ROUNDINGS.items():
        for sat, sat_draft in SATURATIONS.items():
            header, want, want_flags = read_runs(VECTORS / "p3109" / fmt / "runs" / f"bf16-{short}-{sat}.runs")
            assert header["to"] == fmt and header["dialect"] == "p3109"
            got, fl = softmx.encode(BF16, fmt, src="bf16", round=draft, sat=sat_draft, dialect="p3109", flags=True)
            assert got.dtype == np.uint8
            np.testing.assert_array_equal(got, want, err_msg=f"{fmt} {draft} {sat_draft}")
            np.testing.assert_array_equal(fl, want_flags, err_msg=f"{fmt} {draft} {sat_draft} flags")
            short_names = softmx.encode(BF16, fmt, src="bf16", round=short, sat=sat, dialect="p3109")
            np.testing.assert_array_equal(short_names, got)
            tables += 1
    assert tables == 18


@pytest.mark.parametrize("fmt", FORMATS)
def test_p3109_gfloat_tables(fmt):
    """gfloat's results (vectors/peers/gfloat-p3109/: 5 roundings x sat False/True) are softmx's."""
    files = sorted((VECTORS / "peers" / "gfloat-p3109" / fmt).glob("bf16-*.runs"))
    assert len(files) == 10
    for path in files:
        header, want, fl = read_runs(path)
        assert fl is None  # gfloat has no flags
        got = softmx.encode(BF16, fmt, src="bf16", round=header["rounding"], sat=header["saturation"],
                            dialect="p3109")
        np.testing.assert_array_equal(got, want, err_msg=path.name)


def table_values(path):
    """The working group's value table: value (float, NaN, +-Inf) of every code."""
    vals = []
    for line in path.read_text().splitlines()[1:]:
        v = line.split(",")[1].strip()
        vals.append({"NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v) if v in ("NaN", "Inf", "-Inf")
                    else float.fromhex(v))
    return np.array(vals)


@pytest.mark.parametrize("fmt", ["binary8p3se", "binary8p4se", "binary8p5se", "binary8p3sf", "binary8p4ue",
                                 "binary8p1uf", "binary6p2se", "binary4p4ue", "binary3p1sf"])
def test_p3109_decode_every_code_equals_the_value_table(fmt):
    """decode (and convert from codes) gives the published value of every code, exactly."""
    want = table_values(TABLES / ("B" + fmt[1:] + ".csv"))
    k = int(fmt[6:fmt.index("p")])
    codes = np.arange(2 ** k, dtype=np.uint8)
    got = softmx.decode(codes, fmt, "f64", dialect="p3109")
    assert got.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=fmt)
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok], err_msg=fmt)
    # convert from codes gives values too (issue 29: values in, values out).
    np.testing.assert_array_equal(softmx.convert(codes, "f64", src=fmt, dialect="p3109")[ok], want[ok])


def test_p3109_saturations_by_the_drafts_names():
    x = np.array([1.0, 1e10, -1e10, np.inf, -np.inf, np.nan, 0.3], dtype=np.float32)
    enc = lambda sat: softmx.encode(x, "binary8p3se", sat=sat, dialect="p3109").tolist()  # noqa: E731
    # 1 = 0x40; max finite 49152 = 0x7E; Inf 0x7F, -Inf 0xFF; the one NaN 0x80; 0.3 -> 0.3125 (0x39).
    assert enc("SatFinite") == [0x40, 0x7E, 0xFE, 0x7E, 0xFE, 0x80, 0x39]
    assert enc("SatPropagate") == [0x40, 0x7E, 0xFE, 0x7F, 0xFF, 0x80, 0x39]
    assert enc("SatNone") == [0x40, 0x7F, 0xFF, 0x7F, 0xFF, 0x80, 0x39]
    assert enc("OvfInf") == enc("SatNone")  # the exemplars' older name
    assert enc(None) == enc("SatNone")  # the p3109 dialect's default
    v = softmx.convert(x, "binary8p3se", sat="SatPropagate", dialect="p3109")
    assert v.dtype == np.float32
    assert v[:5].tolist() == [1.0, 49152.0, -49152.0, math.inf, -math.inf]
    assert math.isnan(v[5]) and v[6] == 0.3125
    _, fl = softmx.encode(x, "binary8p3se", sat="SatPropagate", dialect="p3109", flags=True)
    assert fl.tolist() == [0, 0x05, 0x05, 0, 0, 0, 0x01]  # overflow|inexact on 1e10, Inf exact
    # ToOdd under SatNone overflows to Inf (odd code 0x7F), P3109 4.7.5's rules 43 and 46.
    assert softmx.encode(np.array([1e10], np.float32), "binary8p3se", round="ToOdd", sat="SatNone",
                         dialect="p3109").tolist() == [0x7F]
    # The dialect lists propagate; ocp does not.
    assert "propagate" in softmx.dialect_info("p3109").destinations["f32"]["saturations"]
    assert "propagate" not in softmx.dialect_info("ocp").destinations["f32"]["saturations"]


def test_p3109_unsigned_and_finite_domains():
    # binary8p4ue: NaN 0xFF, +Inf 0xFE, max finite 0xFD; a negative input saturates to 0 (Mlo).
    x = np.array([np.nan, np.inf, -1.0, 1.0], dtype=np.float32)
    assert softmx.encode(x, "binary8p4ue", sat="SatFinite", dialect="p3109").tolist() == [0xFF, 0xFD, 0x00, 0x80]
    assert softmx.encode(x, "binary8p4ue", sat="SatNone", dialect="p3109").tolist()[:2] == [0xFF, 0xFE]
    # binary8p4sf is e4m3fnuz by its fields: NaN 0x80, no Inf; SatNone sends Inf to max finite 0x7F.
    info = softmx.format_info("binary8p4sf")
    assert info.specials == "fnuz" and info.bias == 8 and info.max_finite_code == 0x7F
    assert softmx.encode(np.array([np.inf], np.float32), "binary8p4sf", sat="SatNone",
                         dialect="p3109").tolist() == [0x7F]
    info = softmx.format_info("Binary8p3se")  # the draft's capital B
    assert info.specials == "extended" and info.bias == 16 and info.max_finite == 49152.0 and info.has_inf


@pytest.mark.parametrize("spec,part", [
    ("binary8p9se", "P = 9"),      # P < K signed
    ("binary8p0se", "P = 0"),
    ("binary8p9ue", "P = 9"),      # P <= K unsigned
    ("binary17p3se", "K = 17"),    # K <= 16
    ("binary1p1ue", "K = 1"),
    ("binary16p2se", "exponent bits"),  # 14 exponent bits: beyond f64 (docs/FORMATS.md 5)
    ("binary10p1se", "exponent bits"),  # 9 exponent bits: the runtime family's limit of 8
    ("binary2p1se", "no finite non-zero value"),
])
def test_p3109_bad_specs_are_value_errors(spec, part):
    with pytest.raises(ValueError, match=part):
        softmx.encode(np.array([1.0], np.float32), spec, dialect="p3109")
    with pytest.raises(ValueError, match=part):
        softmx.format_info(spec)


def test_p3109_bad_names_are_value_errors():
    x = np.array([1.0], np.float32)
    with pytest.raises(ValueError, match="propagate"):  # ocp does not list SatPropagate
        softmx.encode(x, "binary8p3se", sat="SatPropagate")
    with pytest.raises(ValueError):
        softmx.encode(x, "binary8p3se", sat="SatClamp", dialect="p3109")
    with pytest.raises(ValueError):
        softmx.encode(x, "binary8p3se", round="NearestTiesToZero", dialect="p3109")
