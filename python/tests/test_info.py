"""softmx.formats(), dialects() and the other tables against the CLI's listings."""

import math
import warnings

import numpy as np
import pytest

import softmx


def test_formats_match_the_cli(cli):
    # The table: the lines before the first blank one, less the header and the separator line
    # before the runtime formats with a name.
    table = cli(["formats"]).split("\n\n")[0].splitlines()[1:]
    rows = [line.split() for line in table if not line.startswith("--")]
    infos = softmx.formats()
    assert [r[0] for r in rows] == [f.name for f in infos]
    for r, f in zip(rows, infos):
        assert (int(r[1]), int(r[2]), int(r[3]), int(r[4])) == (f.width, f.exp_bits, f.man_bits, f.bias)
        # The largest finite value: decoding the largest code gives it, exactly.
        assert softmx.decode(np.array([f.max_finite_code], dtype=np.uint64), f.name, "f64")[0] == f.max_finite
        if f.min_subnormal is not None and f.subnormals and not f.name.startswith("int"):
            assert r[-1] == f"2^{int(math.log2(f.min_subnormal))}"
    assert softmx.format_info("float8_e4m3fn").name == "e4m3" and softmx.format_info("FP4").name == "e2m1"
    assert softmx.format_info("e8m0").storage_bytes == 1 and softmx.format_info("bf16").storage_bytes == 2


def test_dialects_match_the_cli(cli):
    # The dialects, before the list of tensor-core models that ends `softmx dialects`.
    text = cli(["dialects"]).split("\ntensor-core models:")[0]
    names = [line.split(":")[0] for line in text.splitlines() if line and not line.startswith(" ")]
    ds = softmx.dialects()
    assert [d.name for d in ds] == names
    ocp = softmx.dialect_info("OCP")
    assert ocp.name == "ocp" and ocp.blocks and ocp.scale_rule == "floor"
    assert ocp.destinations["e4m3"]["default_saturation"] == "finite"
    assert not softmx.dialect_info("ml_dtypes").blocks
    assert softmx.accumulation_models()[:2] == ["exact", "fp32-sequential"]
    assert softmx.scale_rules() == ["floor", "ceil", "even", "rceil"]
    assert softmx.flags_words(softmx.OVERFLOW | softmx.INEXACT) == "overflow|inexact"


def test_tensor_core_instructions_name_the_model(tmp_path):
    """Issue 25: from "B200, mma.sync, f32" or "H100, wgmma" to the model, and its alias taken
    wherever a model is (the file spells the model's name)."""
    (row,) = softmx.tensor_core_instructions("B200 mma.sync e4m3 f32")
    assert row.model == "hopper-fp8-mma" and row.alias == "sm100-mma-sync-fp8" and row.arch == "sm_100"
    (row,) = softmx.tensor_core_instructions("H100 wgmma")
    assert row.model == "hopper-fp8-wgmma" and row.confirmed
    every = softmx.tensor_core_instructions()
    assert {r.model for r in every} == set(softmx.accumulation_models()) - {"exact", "fp32-sequential", "mxdotp"}
    assert "sm90-wgmma" in str(every) and str(every).startswith("arch")
    assert softmx.tensor_core_instructions("A100 hmma") == []
    g = softmx.gen("mma", a="e4m3", b="e4m3", model="sm90-wgmma")
    assert "\nmodel = hopper-fp8-wgmma\n" in g.text
    assert softmx.verify(text=g.text, model="sm90-wgmma").passed
    with pytest.raises(TypeError, match="query"):
        softmx.tensor_core_instructions(3)


# ---- issue 29: the formats a user can find, and the note for an unlisted spec ----

def test_formats_is_the_clis_listing(cli):
    fs = softmx.formats()
    assert str(fs) == cli(["formats"])
    assert [f.name for f in fs[:11]] == ["f64", "f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8",
                                         "e8m0"]
    names = [f.name for f in fs]
    for spec in ("e1m2", "e3m4", "e4m3:specials=ieee", "e4m3fnuz", "e4m3b11fnuz", "ue4m3", "int4"):
        assert spec in names
    assert fs.aliases["float8_e3m4"] == "e3m4" and fs.aliases["e4m3ieee"] == "e4m3:specials=ieee"
    assert fs.aliases["float8_e4m3b11"] == "e4m3b11fnuz" and fs.aliases["fp4"] == "e2m1"
    assert "e4m3" not in fs.aliases  # canonical names are not aliases
    forms = [g[0] for g in fs.grammar]
    assert "eXmY" in forms and "intN mxintN" in forms
    e3m4 = fs[names.index("e3m4")]
    assert e3m4.listed and e3m4.aliases == ("float8_e3m4",) and e3m4.nearest is None and e3m4.has_inf


def test_formats_spec_is_the_clis_description(cli):
    info = softmx.formats("float8_e3m4")
    assert info.name == "e3m4" and str(info) == cli(["formats", "float8_e3m4"])
    assert "(alias of e3m4)" in str(info) and "max finite     15.5 (0x6F)" in str(info)
    odd = softmx.formats("e4m4")
    assert not odd.listed and odd.nearest == "e4m3" and odd.width == 9
    assert str(odd) == cli(["formats", "e4m4"])
    with pytest.raises(ValueError, match="ambiguous"):
        softmx.formats("e4m3b11")
    with pytest.raises(TypeError):
        softmx.formats(3)


def test_e4m3b11_and_e4m3ieee():
    with pytest.raises(ValueError, match=r"'e4m3b11' is ambiguous.*e4m3b11fnuz.*e4m3b11fn"):
        softmx.format_info("e4m3b11")
    with pytest.raises(ValueError, match="ambiguous"):
        softmx.encode(np.array([1.0]), "e4m3b11")
    assert softmx.format_info("float8_e4m3b11").name == "e4m3b11fnuz"
    assert softmx.format_info("e4m3ieee").name == "e4m3:specials=ieee"
    assert softmx.encode(np.array([1e6, 240.0]), "e4m3ieee").tolist() == [0x78, 0x77]


def test_runtime_ieee_destination_overflows_to_inf_by_default():
    assert softmx.encode(np.array([1e6, -1e6]), "e3m4").tolist() == [0x70, 0xF0]
    assert softmx.encode(np.array([1e6]), "e3m4", sat="finite").tolist() == [0x6F]
    assert softmx.encode(np.array([1e6]), "e4m3fnuz").tolist() == [0x7F]  # fnuz: ocp's finite


def test_unlisted_spec_warns_once_per_call_site():
    x = np.array([0.3])
    with pytest.warns(softmx.RuntimeFormatWarning) as w:
        codes = softmx.encode(x, "e4m4")
    assert codes.tolist() == [0x53]
    assert len(w) == 1 and issubclass(softmx.RuntimeFormatWarning, UserWarning)
    assert str(w[0].message) == ("'e4m4' is not a named format; read as a runtime format with 4 exponent and 4 "
                                 "mantissa bits (9-bit codes, bias 7, Inf and NaN; spec e4m4); nearest named format: e4m3")
    assert w[0].filename == __file__  # the user's line, not softmx's
    # Listed formats and aliases give none; the warnings module silences it.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        softmx.encode(x, "float8_e4m3")
        softmx.encode(x, "e3m4")
        softmx.format_info("e4m4")  # looking a spec up is not using it
        warnings.filterwarnings("ignore", category=softmx.RuntimeFormatWarning)
        assert softmx.encode(x, "e4m4").tolist() == [0x53]
    with warnings.catch_warnings():
        warnings.simplefilter("error", softmx.RuntimeFormatWarning)
        with pytest.raises(softmx.RuntimeFormatWarning):
            softmx.decode(np.array([0x53], dtype=np.uint16), "e4m4")
