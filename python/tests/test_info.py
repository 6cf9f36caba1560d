"""softmx.formats(), dialects() and the other tables against the CLI's listings."""

import math

import numpy as np
import pytest

import softmx


def test_formats_match_the_cli(cli):
    rows = [line.split() for line in cli(["formats"]).splitlines()[1:]]
    infos = softmx.formats()
    assert [r[0] for r in rows] == [f.name for f in infos]
    for r, f in zip(rows, infos):
        assert (int(r[1]), int(r[2]), int(r[3]), int(r[4])) == (f.width, f.exp_bits, f.man_bits, f.bias)
        # The largest finite value: decoding the largest code gives it, exactly.
        assert softmx.decode(np.array([f.max_finite_code], dtype=np.uint64), f.name, "f64")[0] == f.max_finite
        if f.min_subnormal is not None and f.subnormals and f.name != "int8":
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
    assert {r.model for r in every} == set(softmx.accumulation_models()) - {"exact", "fp32-sequential"}
    assert "sm90-wgmma" in str(every) and str(every).startswith("arch")
    assert softmx.tensor_core_instructions("A100 hmma") == []
    g = softmx.gen("mma", a="e4m3", b="e4m3", model="sm90-wgmma")
    assert "\nmodel = hopper-fp8-wgmma\n" in g.text
    assert softmx.verify(text=g.text, model="sm90-wgmma").passed
    with pytest.raises(TypeError, match="query"):
        softmx.tensor_core_instructions(3)
