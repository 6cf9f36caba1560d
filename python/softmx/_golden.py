"""The seed-003 MX-FP4 GEMM golden generator: `softmx gemm-golden --layout lut-argmin` from Python
(include/softmx/lut_argmin_files.hpp, the function the CLI calls: the same bytes)."""

from __future__ import annotations

import os
from typing import Dict, Optional

import numpy as np

from . import _softmx
from ._arrays import as_codes, int_arg, name_arg
from ._info import flags_words

_MAX_DIM = {"m": 1 << 14, "n": 1 << 14, "k": 1 << 16}
_MAX_VALUES = 1 << 26


class LutGolden:
    """The files of `softmx gemm-golden --layout lut-argmin` and their arrays.

    files     {path: bytes}, paths relative to the output folder ("data/input/a_8.bin", ...,
              "data/golden/manifest.txt"), in the CLI's order;
    layouts   {path: the manifest's description of the bytes};
    command   the manifest's `command = ` line (the equivalent CLI command);
    flags     the exact golden's exception flags (softmx.flags_words(flags));
    a_8, b_8, a_scale, b_scale   the input files as uint8 arrays (packed table indices: rows of
              ceil(cols / 2) bytes; scales in the paired layout, 1-d);
    expected, f32_sequential     C (m, n) float32: the exact model and the sequential f32 model;
    a_f32, b_f32                 the inputs, (m, k) and (k, n) float32;
    manifest  the manifest's text.
    """

    def __init__(self, m, n, k, trans_a, trans_b, files, layouts, command, flags):
        self.m, self.n, self.k, self.trans_a, self.trans_b = m, n, k, trans_a, trans_b
        self.files: Dict[str, bytes] = files
        self.layouts: Dict[str, str] = layouts
        self.command = command
        self.flags = flags
        u8 = lambda p: np.frombuffer(files[p], dtype=np.uint8)
        f32 = lambda p, shape: np.frombuffer(files[p], dtype="<f4").astype(np.float32).reshape(shape)
        self.a_8 = u8("data/input/a_8.bin").reshape((k, (m + 1) // 2) if trans_a else (m, (k + 1) // 2))
        self.b_8 = u8("data/input/b_8.bin").reshape((n, (k + 1) // 2) if trans_b else (k, (n + 1) // 2))
        self.a_scale = u8("data/input/a_scale.bin")
        self.b_scale = u8("data/input/b_scale.bin")
        self.expected = f32("data/golden/expected_data.bin", (m, n))
        self.f32_sequential = f32("data/golden/expected_f32_sequential.bin", (m, n))
        self.a_f32 = f32("data/golden/a_f32.bin", (m, k))
        self.b_f32 = f32("data/golden/b_f32.bin", (k, n))
        self.manifest = files["data/golden/manifest.txt"].decode("ascii")

    def __repr__(self) -> str:
        return (f"LutGolden(m={self.m}, n={self.n}, k={self.k}, trans_a={self.trans_a}, trans_b={self.trans_b}, "
                f"flags='{flags_words(self.flags)}')")


def _bool01(v, what):
    """A flag: a bool, or the integer 0 or 1 (a Python int or numpy integer scalar)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} expects 0 or 1 (or a bool), got {type(v).__name__}")
    if v not in (0, 1):
        raise ValueError(f"{what} expects 0 or 1 (or a bool), got {int(v)}")
    return bool(v)


def lut_argmin_golden(m: int = 64, n: int = 64, k: int = 256, *, trans_a=False, trans_b=False, a: str = "e2m1",
                      b: str = "e2m1", seed: int = 1, log2: str = "rounded", inputs=None,
                      out: Optional[str] = None) -> LutGolden:
    """`softmx gemm-golden --layout lut-argmin --m M --n N --k K --trans-a 0|1 --trans-b 0|1 --a A
    --b B --seed S --log2 L -o OUT`: the seed-003 generator's data/input/{a_8,b_8,a_scale,b_scale}.bin
    for the same f32 inputs, softmx's exact C (data/golden/expected_data.bin), the sequential f32
    model, the inputs and a manifest, byte for byte as that command writes them (the manifest's
    command line is that command, with OUT = `out`, or DIR without one). docs/DIALECTS.md
    (lut-argmin) has the rules.

    m, n, k: integers 1..16384, 1..16384, 1..65536, at most 2**26 values in each of A, B and C
        (the CLI's limits). trans_a, trans_b: store A, B transposed (the script's flags: a bool,
        0 or 1). a, b: "e2m1" or "e1m2". seed: the SplitMix64 seed of the inputs, an integer
        from 0 to 2**64 - 1 (gemm-golden's stream: A then B).
    log2: "rounded" (floor of the correctly rounded f32 log2, the script's) or "exact".
    inputs: (A, B), float32 arrays of shapes (m, k) and (k, n), in place of the seeded inputs (the
        script's torch.randn draws); the manifest then says `inputs = given`, not the seed.
    out: a folder: writes out/data/input and out/data/golden (each replaced as a unit).

    Returns a LutGolden (its .files hold every file's bytes; its arrays view them). Raises
    ValueError for bad sizes or names, TypeError for inputs that are not float32 and for sizes,
    seeds or flags that are not integers (Python ints or numpy integer scalars), OSError when
    `out` cannot be written.
    """
    dims = {}
    for name, v in (("m", m), ("n", n), ("k", k)):
        v = int_arg(v, name)
        if not 1 <= v <= _MAX_DIM[name]:
            raise ValueError(f"{name} expects an integer from 1 to {_MAX_DIM[name]}, got {v}")
        dims[name] = v
    m, n, k = dims["m"], dims["n"], dims["k"]
    if m * k > _MAX_VALUES or k * n > _MAX_VALUES or m * n > _MAX_VALUES:
        raise ValueError(f"lut-argmin takes at most 2^26 values in each of A (m x k), B (k x n) and C (m x n); "
                         f"got {m} x {n} x {k}")
    trans_a, trans_b = _bool01(trans_a, "trans_a"), _bool01(trans_b, "trans_b")
    a, b, log2 = name_arg(a, "a"), name_arg(b, "b"), name_arg(log2, "log2")
    seed = int_arg(seed, "seed")
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed expects 0 to 18446744073709551615, got {seed}")
    if out is not None:
        out = os.fspath(out)
        if not isinstance(out, str) or not out:
            raise ValueError("out must be a folder path")
    a_in = b_in = None
    if inputs is not None:
        try:
            A, B = inputs
        except (TypeError, ValueError):
            raise TypeError("inputs must be a pair (A, B) of float32 arrays") from None
        for what, x in (("inputs[0] (A)", A), ("inputs[1] (B)", B)):
            if np.asarray(x).dtype != np.float32:
                raise TypeError(f"{what} must be a float32 array, got dtype {np.asarray(x).dtype}")
        a_in = as_codes(A, None, "inputs[0] (A)")[0]
        b_in = as_codes(B, None, "inputs[1] (B)")[0]
        command = f"softmx.lut_argmin_golden(m={m}, n={n}, k={k}, trans_a={int(trans_a)}, trans_b={int(trans_b)}, " \
                  f"a={a!r}, b={b!r}, log2={log2!r}, inputs=(A, B)) (Python)"
    else:
        command = (f"softmx gemm-golden --layout lut-argmin --m {m} --n {n} --k {k} --trans-a {int(trans_a)} "
                   f"--trans-b {int(trans_b)} --a {a} --b {b} --seed {seed} --log2 {log2} -o "
                   f"{out if out is not None else 'DIR'}")
    files, flags = _softmx.lut_argmin_golden(m, n, k, trans_a, trans_b, a, b, seed, log2, a_in, b_in, command, out)
    return LutGolden(m, n, k, trans_a, trans_b, {p: data for p, _, data in files}, {p: l for p, l, _ in files}, command,
                     int(flags))


def gemm_golden_inputs(seed: int, count: int) -> np.ndarray:
    """The input values of `softmx gemm-golden` (both layouts): `count` float32 values from
    SplitMix64(seed), each (sum of 12 draws >> 40, minus 6 * 2^24) * 2^-24 rounded to f32 (rne);
    A row-major (m * k values) then B (k * n). seed: an integer from 0 to 2**64 - 1; count: an
    integer from 0 to 2**28."""
    seed, count = int_arg(seed, "seed"), int_arg(count, "count")
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed expects 0 to 18446744073709551615, got {seed}")
    if not 0 <= count <= 1 << 28:
        raise ValueError(f"count expects 0 to 2^28, got {count}")
    return _softmx.gemm_golden_inputs(seed, count).view(np.float32)


def lut_argmin_quantize(x, fmt: str = "e2m1", *, axis: int = 1, log2: str = "rounded"):
    """The generator's _quantize(matrix, fmt, axis): x a 2-d float32 array, blocks of 32 along
    axis 1 (each row) or axis 0 (each column). Returns (index, dequantized, scales): uint8 table
    indices of x's shape, the float32 values table[index] * scale, and the E8M0 scales padded to
    an even count of blocks with 0x7F ((rows, nb_even) for axis 1, (nb_even, cols) for axis 0).
    axis: the integer 0 or 1 (ValueError otherwise)."""
    arr = np.asarray(x)
    if arr.dtype != np.float32:
        raise TypeError(f"x must be a float32 array, got dtype {arr.dtype}")
    bits = as_codes(arr, None, "x")[0]
    axis = int_arg(axis, "axis", lo=0, hi=1, expected="0 (blocks down each column) or 1 (along each row)")
    index, deq, scales = _softmx.lut_argmin_quantize(bits, name_arg(fmt, "fmt"), axis, name_arg(log2, "log2"))
    return index, deq.view(np.float32), scales
