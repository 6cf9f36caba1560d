"""Shared fixtures of the Python tests: the package, the library's reference paths, the CLI,
and the enums' numbers (from the headers, written out here independently of the binding)."""

import os
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import softmx

try:
    import _softmx_reference as reference
except ImportError:  # outside the build tree
    reference = None

def pytest_configure(config):
    config.addinivalue_line("markers", "long: slow exhaustive grids, run by ctest's test_python_long (label long)")


settings.register_profile("softmx", database=None, deadline=None, derandomize=True, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("softmx")

# include/softmx/format.hpp FormatId, context.hpp Rounding / Saturation / Tininess,
# dialect.hpp ScaleRule: the order of the enums.
FORMAT_ID = {n: i for i, n in enumerate(["f64", "f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8",
                                         "e8m0"])}
ROUNDING_ID = {n: i for i, n in enumerate(["rne", "rna", "rz", "ru", "rd", "ro", "rs"])}
SATURATION_ID = {"finite": 0, "none": 1}
TININESS_ID = {"after": 0, "before": 1}
SCALE_RULE_ID = {"floor": 0, "ceil": 1, "even": 2, "rceil": 3}

FORMATS = list(FORMAT_ID)
ELEMENTS = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8"]
HOST = ["f64", "f32", "f16", "bf16"]
ROUNDINGS = list(ROUNDING_ID)
SATURATIONS = ["finite", "none"]
DIALECTS = [d.name for d in softmx.dialects()]
STORAGE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def dialect_index(name):
    return reference.dialect_names().index(name)


def storage(fmt):
    return STORAGE[softmx.format_info(fmt).storage_bytes]


def all_codes(fmt):
    """Every code of a format of at most 16 bits, in its storage type."""
    w = softmx.format_info(fmt).width
    return np.arange(1 << w, dtype=np.uint64).astype(storage(fmt))


@pytest.fixture(scope="session")
def ref():
    if reference is None:
        pytest.skip("_softmx_reference (the build tree's test module) is not importable")
    return reference


def cli_path():
    p = os.environ.get("SOFTMX_CLI")
    if p and os.path.exists(p):
        return p
    return None


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if path is None:
        pytest.skip("SOFTMX_CLI (the softmx command) is not set")

    def run(args, stdin=""):
        r = subprocess.run([path] + list(args), input=stdin, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"softmx {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r.stdout

    return run


def hexcodes(codes, fmt):
    """Codes as the CLI writes them: fixed-width upper-case hex."""
    digits = (softmx.format_info(fmt).width + 3) // 4
    return [format(int(c), f"0{digits}X") for c in np.asarray(codes).reshape(-1)]


def ref_convert(src, dst, codes, rnd, sat, tininess, dialect, rbits=32, random=None):
    """The library's scalar convert() on each code; None when the dialect refuses."""
    r = reference.convert_scalar(FORMAT_ID[src], FORMAT_ID[dst], np.asarray(codes, dtype=np.uint64).reshape(-1),
                                 ROUNDING_ID[rnd], SATURATION_ID[sat], TININESS_ID[tininess], dialect_index(dialect),
                                 rbits, None if random is None else np.asarray(random, dtype=np.uint64).reshape(-1))
    return r
