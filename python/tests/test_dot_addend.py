"""softmx.dot and softmx.matmul with an addend c and an f16 / bf16 destination (docs/BLOCKS.md 5,
"Addend and destination"): against exact rational arithmetic rounded once (acc='exact'), numpy's
f32 additions in order starting from C (acc='fp32-sequential'), the CLI's `softmx dot --addend
--to`, and gen/verify."""

from fractions import Fraction

import numpy as np
import pytest

import softmx

# The destinations: fraction bits, smallest normal exponent, largest exponent.
DEST = {"f32": (23, -126, 127), "f16": (10, -14, 15), "bf16": (7, -126, 127)}


def round_to(x: Fraction, to: str, mode: str = "rne") -> Fraction:
    """x rounded into `to` (rne or rz), overflow to +-Inf as float('inf'); independent of softmx."""
    m, emin, emax = DEST[to]
    if x == 0:
        return x
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)  # subnormals share the quantum 2^(emin - m)
    q = Fraction(2) ** (e - m)
    n, r = divmod(a, q)
    if mode == "rne" and (r > q / 2 or (r == q / 2 and n % 2 == 1)):
        n += 1
    v = n * q
    if v >= Fraction(2) ** (emax + 1):
        return sign * float("inf")
    return sign * v


def code_of(v, to: str) -> int:
    """The code of an exactly representable value (Fraction, 0 or +-inf) in `to`."""
    if to == "bf16":
        return int(np.array(float(v), np.float32).view(np.uint32)) >> 16  # exact: v is a bf16 value
    dt = np.float32 if to == "f32" else np.float16
    return int(np.array(float(v), dt).view(np.uint32 if to == "f32" else np.uint16))


def value_of(code: int, to: str) -> Fraction:
    if to == "bf16":
        return Fraction(float(np.array(code << 16, np.uint32).view(np.float32)))
    dt, st = (np.float32, np.uint32) if to == "f32" else (np.float16, np.uint16)
    return Fraction(float(np.array(code, st).view(dt)))


def codes(x, to):
    """softmx's result as integer codes."""
    x = np.asarray(x)
    return x.view(np.uint32 if to == "f32" else np.uint16).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)


def operands(fa, fb, M, K, N, k, seed, spread=4):
    rng = np.random.default_rng(seed)
    xa = (rng.standard_normal((M, K)) * np.exp2(rng.integers(-spread, spread, (M, 1)))).astype(np.float32)
    xb = (rng.standard_normal((K, N)) * np.exp2(rng.integers(-spread, spread, (1, N)))).astype(np.float32)
    return softmx.quantize(xa, fa, block=k, axis=1), softmx.quantize(xb, fb, block=k, axis=0)


def exact_sums(a, b):
    """The exact D = A x B as Fractions."""
    av = softmx.decode(a.codes, a.element, "f64")
    bv = softmx.decode(b.codes, b.element, "f64")
    asx = a.scales.astype(np.int64) - 127
    bsx = b.scales.astype(np.int64) - 127
    M, K = av.shape
    N = bv.shape[1]
    k = a.block
    return [[sum(Fraction(av[i, t]) * Fraction(bv[t, j]) * Fraction(2) ** int(asx[i, t // k] + bsx[t // k, j])
                 for t in range(K)) for j in range(N)] for i in range(M)]


def addends(sums, to, rng):
    """C per output: values of `to` aimed at each sum: -S (cancels), far above it, beside it, zero."""
    M, N = len(sums), len(sums[0])
    out = np.zeros((M, N), np.int64)
    for i in range(M):
        for j in range(N):
            s = round_to(sums[i][j], to)
            kind = rng.integers(5)
            if kind == 0 and s != 0:
                v = -s
            elif kind == 1 and s != 0:
                v = s * 2 ** (DEST[to][0] + 3) * (1 if rng.integers(2) else -1)
            elif kind == 2:
                v = round_to(Fraction(float(rng.standard_normal())) * Fraction(2) ** int(rng.integers(-6, 6)), to)
            else:
                v = Fraction(0)
            v = round_to(Fraction(v), to)
            out[i, j] = code_of(v if isinstance(v, Fraction) else Fraction(0), to)  # finite C only here
    return out


@pytest.mark.parametrize("to", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e5m2", "e2m1"), ("int8", "e3m2")])
def test_exact_with_c_against_fractions(fa, fb, to):
    rng = np.random.default_rng(7)
    a, b = operands(fa, fb, 4, 64, 5, 32, 11)
    sums = exact_sums(a, b)
    cc = addends(sums, to, rng)
    cin = cc.astype(np.uint32 if to == "f32" else np.uint16)
    got = codes(softmx.matmul(a, b, c=cin, to=to), to)
    for i in range(4):
        for j in range(5):
            want = round_to(sums[i][j] + value_of(int(cc[i, j]), to), to)
            if want == 0:  # the sign of a zero: + under rne (the terms cancel), or the terms' own
                assert got[i, j] & 0x7FFFFFFF == 0, (i, j)
            else:
                assert got[i, j] == code_of(want, to), (fa, fb, to, i, j)


@pytest.mark.parametrize("to", ["f32", "f16", "bf16"])
def test_fp32_sequential_with_c_against_numpy(to):
    """C starts the f32 accumulator; each block's f32 sum in order, scaled, added; then one
    rounding into `to` (numpy's f32 additions and casts, rne; bf16 rounded by Fractions)."""
    rng = np.random.default_rng(3)
    a, b = operands("e4m3", "e2m1", 3, 96, 4, 32, 5, spread=10)
    sums = exact_sums(a, b)
    cc = addends(sums, to, rng)
    got = codes(softmx.matmul(a, b, c=cc.astype(np.uint32 if to == "f32" else np.uint16), to=to,
                              acc="fp32-sequential"), to)
    av = softmx.decode(a.codes, a.element, "f64")
    bv = softmx.decode(b.codes, b.element, "f64")
    for i in range(3):
        for j in range(4):
            acc = np.float32(float(value_of(int(cc[i, j]), to)))
            for b0 in range(0, 96, 32):
                s = np.float32(0)
                for t in range(b0, b0 + 32):
                    s = np.float32(s + np.float32(av[i, t] * bv[t, j]))
                d = np.float32(np.float64(s) * 2.0 ** int(int(a.scales[i, b0 // 32]) + int(b.scales[b0 // 32, j]) - 254))
                acc = np.float32(acc + d)
            want = code_of(round_to(Fraction(float(acc)), to), to) if acc != 0 else code_of(acc, to)
            assert got[i, j] == want, (to, i, j)


def test_dot_with_c_along_an_axis_and_broadcast():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 64, 2)).astype(np.float32)
    a = softmx.quantize(x, "e4m3", axis=1)
    b = softmx.quantize(x * 0.5, "e4m3", axis=1)
    av = softmx.decode(a.codes, a.element, "f64")
    bv = softmx.decode(b.codes, b.element, "f64")
    exact = [[sum(Fraction(av[o, t, n]) * Fraction(bv[o, t, n])
                  * Fraction(2) ** int(int(a.scales[o, t // 32, n]) + int(b.scales[o, t // 32, n]) - 254)
                  for t in range(64)) for n in range(2)] for o in range(3)]
    plain = softmx.dot(a, b)
    assert plain.shape == (3, 2)
    # A scalar C broadcasts; C = -plain leaves the f32 rounding error of each exact sum, exactly
    # (+0 where the sum was exact in f32).
    one = softmx.dot(a, b, c=np.float32(1))
    residue = softmx.dot(a, b, c=-plain)
    for o in range(3):
        for n in range(2):
            assert codes(one, "f32")[o, n] == code_of(round_to(exact[o][n] + 1, "f32"), "f32")
            r = round_to(exact[o][n] - Fraction(float(plain[o, n])), "f32")
            assert Fraction(float(residue[o, n])) == r and not (r == 0 and np.signbit(residue[o, n]))
    # f16 and bf16: the exact sum (plus C) rounded once: float16 values, bf16 codes (uint16).
    h = softmx.dot(a, b, c=np.full((3, 2), 0.25, np.float16), to="f16")
    bf = softmx.dot(a, b, to=np.dtype("float32")), softmx.dot(a, b, to="bf16")
    assert h.dtype == np.float16 and h.shape == (3, 2) and bf[1].dtype == np.uint16
    for o in range(3):
        for n in range(2):
            assert codes(h, "f16")[o, n] == code_of(round_to(exact[o][n] + Fraction(1, 4), "f16"), "f16")
            assert int(bf[1][o, n]) == code_of(round_to(exact[o][n], "bf16"), "bf16")


def test_tensor_core_models_against_the_cli(cli):
    """A tensor-core model's C and f16 accumulator: softmx.dot equals `softmx dot --addend --to`."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((6, 32)).astype(np.float32)
    a = softmx.quantize(x, "e4m3", axis=1)
    b = softmx.quantize(x[::-1].copy(), "e4m3", axis=1)
    for model in ("hopper-fp8-mma", "hopper-fp8-wgmma", "ada-fp8-mma", "blackwell-f8f6f4"):
        for to in ("f32", "f16"):
            st = np.uint32 if to == "f32" else np.uint16
            cc = rng.integers(0, 1 << 14, 6).astype(st) | st(0x3000 if to == "f16" else 0x3F000000)
            got, fl = softmx.dot(a, b, c=cc, to=to, acc=model, flags=True)
            lines = []
            for i in range(6):
                f = [f"{int(a.scales[i, 0]):02X}"] + [f"{int(v):02X}" for v in a.codes[i]]
                f += [f"{int(b.scales[i, 0]):02X}"] + [f"{int(v):02X}" for v in b.codes[i]]
                f.append(f"{int(cc[i]):0{8 if to == 'f32' else 4}X}")
                lines.append(" ".join(f))
            out = cli(["dot", "--a", "e4m3", "--b", "e4m3", "--acc", model, "--addend", "--to", to], "\n".join(lines) + "\n")
            rows = [r.split() for r in out.splitlines()]
            assert [int(r[0], 16) for r in rows] == [int(v) for v in codes(got, to)], (model, to)
            assert [int(r[1], 16) for r in rows] == [int(v) for v in fl], (model, to)


def test_errors():
    a = softmx.MXArray(np.array([127], np.uint8), np.full(32, 0x38, np.uint8), "e4m3", block=32)
    with pytest.raises(ValueError, match="bf16"):
        softmx.dot(a, a, to="bf16", acc="hopper-fp8-wgmma")
    with pytest.raises(ValueError, match="to must be"):
        softmx.dot(a, a, to="f64")
    with pytest.raises(TypeError, match="c must hold f32 values"):
        softmx.dot(a, a, c=1.0)
    with pytest.raises(TypeError, match="c must hold f16 values"):
        softmx.dot(a, a, c=np.float32(1), to="f16")
    with pytest.raises(ValueError, match="out of range"):
        softmx.dot(a, a, c=np.uint32(1 << 16), to="f16")
    a2 = softmx.MXArray(np.full((2, 1), 127, np.uint8), np.full((2, 32), 0x38, np.uint8), "e4m3", axis=1, block=32)
    with pytest.raises(ValueError, match="broadcast"):
        softmx.dot(a2, a2, c=np.zeros(3, np.float32))
    assert softmx.dot(a, a, c=np.uint32(0x3F800000)) == 33.0


def test_gen_and_verify_with_c(tmp_path):
    path = tmp_path / "d.vec"
    g = softmx.gen("dot", a="e4m3", b="e5m2", block=4, addend=True, to="bf16", level=2, count=100, out=path)
    assert "to = bf16" in g.header and "addend = yes" in g.header
    v = softmx.verify(path)
    assert v.status == "pass", str(v)
    with pytest.raises(ValueError, match="to must be"):
        softmx.gen("dot", a="e4m3", b="e4m3", to="e4m3")
