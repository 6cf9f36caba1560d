"""softmx.formats(), dialects() and the other tables against the CLI's listings."""

import math

import numpy as np

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
