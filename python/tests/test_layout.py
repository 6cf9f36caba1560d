"""Scale layouts from Python (softmx.swizzle_scales and friends over softmx/scale_layout.hpp):
hand-checked offsets, round trips, padding, the paired layout against the golden generator's
a_scale.bin / b_scale.bin, TE's compact padding, errors by message, inputs unchanged."""

import numpy as np
import pytest

import softmx


def swz(r, c, cols):
    """The issue's formula, written out: index = (tileY*nTilesX + tileX)*512 + (r%32)*16 + (r/32)*4 + c
    with r, c inside the tile (r < 128, c < 4)."""
    n_tiles_x = (cols + 3) // 4
    tile_y, tile_x, rr, cc = r // 128, c // 4, r % 128, c % 4
    return (tile_y * n_tiles_x + tile_x) * 512 + (rr % 32) * 16 + (rr // 32) * 4 + cc


# (rows, cols, r, c, offset), offsets computed by hand from the formula above.
HAND = [
    (130, 5, 0, 0, 0), (130, 5, 1, 0, 16), (130, 5, 32, 0, 4), (130, 5, 31, 3, 499), (130, 5, 127, 3, 511),
    (130, 5, 0, 4, 512), (130, 5, 128, 0, 1024), (130, 5, 129, 4, 1552), (130, 5, 96, 2, 14), (1, 1, 0, 0, 0),
    (256, 8, 255, 7, 4 * 512 - 1), (200, 3, 150, 1, 512 + 22 * 16 + 0 * 4 + 1),
]


@pytest.mark.parametrize("rows,cols,r,c,want", HAND)
def test_swizzle_hand_indices(rows, cols, r, c, want):
    assert swz(r, c, cols) == want
    assert softmx.scale_layout_index(r, c, (rows, cols)) == want
    assert softmx.scale_layout_index(r, c, (rows, cols), "torchao") == want
    s = np.zeros((rows, cols), dtype=np.uint8)
    s[r, c] = 0xA5
    buf = softmx.swizzle_scales(s)
    assert buf.dtype == np.uint8 and buf.shape == (softmx.scale_layout_size((rows, cols)),)
    assert np.flatnonzero(buf).tolist() == [want]


@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 5), (128, 4), (129, 4), (130, 9), (300, 2), (257, 13)])
def test_swizzle_round_trip_and_padding(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    s = rng.integers(0, 256, (rows, cols), dtype=np.uint8)
    s0 = s.copy()
    size = 128 * -(-rows // 128) * 4 * -(-cols // 4)
    assert softmx.scale_layout_size((rows, cols)) == size
    for pad in (None, 0x7F):
        buf = softmx.swizzle_scales(s, pad=pad)
        assert buf.size == size
        # every byte is S[r][c] at the formula's offset, and the rest is padding
        want = np.full(size, 0 if pad is None else pad, dtype=np.uint8)
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        want[[swz(int(a), int(b), cols) for a, b in zip(r.ravel(), c.ravel())]] = s.ravel()
        np.testing.assert_array_equal(buf, want)
        np.testing.assert_array_equal(softmx.unswizzle_scales(buf, (rows, cols)), s)
        np.testing.assert_array_equal(softmx.unswizzle_scales(buf.tobytes(), (rows, cols)), s)
    np.testing.assert_array_equal(softmx.swizzle_scales(s, "torchao"), softmx.swizzle_scales(s))
    np.testing.assert_array_equal(softmx.unswizzle_scales(softmx.swizzle_scales(s), (rows, cols), "to_blocked"), s)
    # any unsigned-integer dtype, non-contiguous, read-only: read, never written
    wide = s.astype(np.uint32)[:, ::1].T.copy().T
    wide.flags.writeable = False
    np.testing.assert_array_equal(softmx.swizzle_scales(wide), softmx.swizzle_scales(s))
    np.testing.assert_array_equal(s, s0)


def test_torchao_literal():
    """torchao to_blocked (utils.py:31-70) transcribed with numpy reshapes on a 130 x 5 matrix."""
    rows, cols = 130, 5
    s = (np.arange(rows * cols) % 251 + 1).astype(np.uint8).reshape(rows, cols)
    rp, cp = 256, 8
    p = np.zeros((rp, cp), dtype=np.uint8)
    p[:rows, :cols] = s
    blocks = p.reshape(rp // 128, 128, cp // 4, 4).transpose(0, 2, 1, 3)
    rearranged = blocks.reshape(-1, 4, 32, 4).transpose(0, 2, 1, 3).reshape(-1, 32, 16)
    np.testing.assert_array_equal(softmx.swizzle_scales(s, "torchao"), rearranged.ravel())


def paired_hand(op, transposed, r, c, rows, cols):
    """docs/RECIPES.md 6: A (m, nb) as (m, nb_even/2, 2), [i][j][t] or [j][i][t]; B (nb, n) as
    (nb_even/2, 2, n), [j][c][t] or [c][j][t]."""
    if op == "a":
        m, nbe = rows, cols + cols % 2
        j, t = divmod(c, 2)
        return r * nbe + c if not transposed else j * m * 2 + r * 2 + t
    nbe, n = rows + rows % 2, cols
    j, t = divmod(r, 2)
    return j * n * 2 + c * 2 + t if not transposed else c * nbe + r


@pytest.mark.parametrize("op,transposed", [("a", False), ("a", True), ("b", False), ("b", True)])
def test_paired_hand_and_round_trip(op, transposed):
    # hand values: A m=2, nb=3; B nb=3, n=2
    hand = {("a", False): (1, 2, 6), ("a", True): (1, 2, 6), ("b", False): (1, 1, 3), ("b", True): (1, 1, 5)}
    r, c, want = hand[(op, transposed)]
    shape = (2, 3) if op == "a" else (3, 2)
    assert paired_hand(op, transposed, r, c, *shape) == want
    assert softmx.scale_layout_index(r, c, shape, "paired", operand=op, transposed=transposed) == want
    rng = np.random.default_rng(3)
    for shape in [(2, 3), (3, 2), (5, 4), (4, 7), (1, 1)]:
        s = rng.integers(0, 256, shape, dtype=np.uint8)
        buf = softmx.swizzle_scales(s, "paired", operand=op, transposed=transposed)
        rows, cols = shape
        nb = cols if op == "a" else rows
        assert buf.size == softmx.scale_layout_size(shape, "paired", operand=op) == (rows if op == "a" else cols) * (nb + nb % 2)
        for i in range(rows):
            for j in range(cols):
                assert buf[paired_hand(op, transposed, i, j, rows, cols)] == s[i, j]
        if nb % 2:  # the padding block is 0x7F (E8M0 1.0)
            pads = [paired_hand(op, transposed, i, nb, rows, cols) if op == "a" else
                    paired_hand(op, transposed, nb, i, rows, cols) for i in range(rows if op == "a" else cols)]
            assert buf[pads].tolist() == [0x7F] * len(pads)
        np.testing.assert_array_equal(softmx.unswizzle_scales(buf, shape, "paired", operand=op, transposed=transposed), s)


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 1), (1, 0)])
def test_paired_equals_golden_files(ta, tb):
    """The golden generator's a_scale.bin / b_scale.bin are swizzle_scales(..., 'paired') of the
    scales lut_argmin_quantize gives (its padded (m, nb_even) / (nb_even, n), cropped to nb)."""
    m, n, k = 3, 5, 70
    g = softmx.lut_argmin_golden(m, n, k, trans_a=ta, trans_b=tb)
    nb = -(-k // 32)
    _, _, sa = softmx.lut_argmin_quantize(g.a_f32, "e2m1", axis=1)
    _, _, sb = softmx.lut_argmin_quantize(g.b_f32, "e2m1", axis=0)
    np.testing.assert_array_equal(softmx.swizzle_scales(sa[:, :nb], "paired", operand="a", transposed=bool(ta)), g.a_scale)
    np.testing.assert_array_equal(softmx.swizzle_scales(sb[:nb, :], "paired", operand="b", transposed=bool(tb)), g.b_scale)


def test_pad_scales():
    s = np.arange(15, dtype=np.uint8).reshape(3, 5)
    p = softmx.pad_scales(s, (128, 4))
    assert p.dtype == np.uint8 and p.shape == (128, 8)
    np.testing.assert_array_equal(p[:3, :5], s)
    assert not p[3:].any() and not p[:, 5:].any()
    t = softmx.pad_scales(s, (4, 128), transpose=True, pad=0xFF)
    assert t.shape == (8, 128)
    np.testing.assert_array_equal(t[:5, :3], s.T)
    assert (t[5:] == 0xFF).all() and (t[:, 3:] == 0xFF).all()
    f = np.array([[0.5, 2.0 ** -20]], dtype=np.float32)
    pf = softmx.pad_scales(f, (1, 4), pad=1.0)
    assert pf.dtype == np.float32 and pf.tolist() == [[0.5, 2.0 ** -20, 1.0, 1.0]]


def test_errors():
    s = np.zeros((3, 5), dtype=np.uint8)
    with pytest.raises(ValueError, match="unknown scale layout 'swizzle'.*cublas-128x4, torchao or paired"):
        softmx.swizzle_scales(s, "swizzle")
    with pytest.raises(ValueError, match="layout='paired' needs operand='a'"):
        softmx.swizzle_scales(s, "paired")
    with pytest.raises(ValueError, match="operand must be 'a' or 'b', got 'c'"):
        softmx.swizzle_scales(s, "paired", operand="c")
    with pytest.raises(ValueError, match="operand applies to layout='paired' only"):
        softmx.swizzle_scales(s, operand="a")
    with pytest.raises(ValueError, match="transposed applies to layout='paired' only"):
        softmx.swizzle_scales(s, transposed=True)
    with pytest.raises(ValueError, match="pad applies to layout='cublas-128x4' only"):
        softmx.swizzle_scales(s, "torchao", pad=1)
    with pytest.raises(ValueError, match="pad must be a byte, 0 to 255, got 256"):
        softmx.swizzle_scales(s, pad=256)
    with pytest.raises(ValueError, match="scales must be a 2-d"):
        softmx.swizzle_scales(np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="code 256 is out of range for e8m0"):
        softmx.swizzle_scales(np.array([[256]]))
    with pytest.raises(TypeError, match="scales"):
        softmx.swizzle_scales(np.zeros((2, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="takes 512 bytes swizzled, got 511"):
        softmx.unswizzle_scales(np.zeros(511, dtype=np.uint8), (3, 2))
    with pytest.raises(ValueError, match="paired decode: a 3 x 5 A scale matrix takes 18 bytes, got 17"):
        softmx.unswizzle_scales(np.zeros(17, dtype=np.uint8), (3, 5), "paired", operand="a")
    with pytest.raises(ValueError, match=r"index \(128, 0\) is outside the padded 128 x 8"):
        softmx.scale_layout_index(128, 0, (3, 5))
    with pytest.raises(ValueError, match=r"outside the padded 3 x 6"):
        softmx.scale_layout_index(0, 6, (3, 5), "paired", operand="a")
    with pytest.raises(TypeError, match="shape must be"):
        softmx.unswizzle_scales(np.zeros(512, dtype=np.uint8), 3)
    with pytest.raises(ValueError, match="multiple"):
        softmx.pad_scales(s, (0, 4))


@pytest.mark.parametrize("layout,shape,kw,cli_opts", [
    ("cublas-128x4", (130, 7), {"pad": 0x7F}, ["--pad", "7F"]),
    ("torchao", (100, 2), {}, []),
    ("paired", (3, 5), {"operand": "a", "transposed": True}, ["--operand", "a", "--transposed", "1"]),
    ("paired", (5, 3), {"operand": "b"}, ["--operand", "b"]),
])
def test_python_equals_cli(cli, layout, shape, kw, cli_opts):
    """softmx layout encode / decode / size give the bytes swizzle_scales, unswizzle_scales and
    scale_layout_size give (the same option names on both sides)."""
    s = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    text = " ".join(f"{int(v):02X}" for v in s.ravel())
    buf = softmx.swizzle_scales(s, layout, **kw)
    sh = ["--layout", layout, "--shape", f"{shape[0]}x{shape[1]}"]
    assert [int(t, 16) for t in cli(["layout", "encode"] + sh + cli_opts, text).split()] == buf.tolist()
    dec_opts = [o for o in cli_opts if o not in ("--pad", "7F")]
    back = cli(["layout", "decode"] + sh + dec_opts, " ".join(f"{int(v):02X}" for v in buf))
    assert [int(t, 16) for t in back.split()] == s.ravel().tolist()
    size_opts = dec_opts[:2] if layout == "paired" else []
    size_kw = {"operand": kw["operand"]} if layout == "paired" else {}
    assert int(cli(["layout", "size"] + sh + size_opts)) == softmx.scale_layout_size(shape, layout, **size_kw) == buf.size


def test_pad_scales_equals_cli(cli):
    s = np.random.default_rng(7).integers(0, 256, (5, 3), dtype=np.uint8)
    want = softmx.pad_scales(s, (4, 128), transpose=True, pad=0x11)
    out = cli(["layout", "encode", "--layout", "te-padded", "--multiple", "4x128", "--transposed", "1", "--pad", "11",
               "--shape", "5x3"], " ".join(f"{int(v):02X}" for v in s.ravel()))
    assert [[int(t, 16) for t in line.split()] for line in out.splitlines()] == want.tolist()


def test_unpad_scales():
    # TE FP8 1x128 rowwise, q of shape (3, 256): compact scale_inv [2, roundup(3, 4)] (S
    # transposed), read back by float8_blockwise_tensor_storage.py:292-295 (scale_inv[:, :q_M],
    # then transpose); column 3 is padding TE leaves uninitialized.
    junk = 0xDEADBEEF
    compact = np.array([[10, 11, 12, junk], [20, 21, 22, junk]], dtype=np.uint32)
    s = softmx.unpad_scales(compact, (3, 2), (1, 4), transpose=True)
    assert s.dtype == np.uint32 and s.tolist() == [[10, 20], [11, 21], [12, 22]]
    rng = np.random.default_rng(3)
    for shape, mult, t in [((5, 3), (4, 128), True), ((130, 7), (128, 4), False), ((1, 1), (1, 1), False)]:
        u = rng.integers(0, 256, shape, dtype=np.uint8)
        p = softmx.pad_scales(u, mult, transpose=t, pad=0xAB)
        back = softmx.unpad_scales(p, shape, mult, transpose=t)
        assert back.dtype == np.uint8
        np.testing.assert_array_equal(back, u)
    f = np.array([[0.5, 2.0 ** -20]], dtype=np.float32)
    f = np.concatenate([f, np.array([[0x7FC00001]], dtype=np.uint32).view(np.float32)], axis=1)  # a NaN payload
    pf = softmx.pad_scales(f, (4, 1), transpose=True, pad=np.nan)
    back = softmx.unpad_scales(pf, (1, 3), (4, 1), transpose=True)
    assert back.dtype == np.float32 and back.view(np.uint32).tolist() == f.view(np.uint32).tolist()
    with pytest.raises(ValueError, match=r"padded has shape \(2, 4\), but a \(3, 2\) scale matrix padded to multiples "
                                         r"of \(1, 4\) has \(3, 4\)"):
        softmx.unpad_scales(compact, (3, 2), (1, 4))
    with pytest.raises(ValueError, match="padding multiples must be at least 1"):
        softmx.unpad_scales(compact, (3, 2), (0, 4), transpose=True)
    with pytest.raises(ValueError, match="2-d"):
        softmx.unpad_scales(compact.ravel(), (3, 2), (1, 4), transpose=True)
    with pytest.raises(TypeError, match="float16"):
        softmx.unpad_scales(np.zeros((2, 4), dtype=np.float16), (3, 2), (1, 4), transpose=True)
    assert compact[0, 3] == junk  # the input is not modified


def test_unpad_scales_equals_cli(cli):
    s = np.random.default_rng(8).integers(0, 256, (5, 3), dtype=np.uint8)
    p = softmx.pad_scales(s, (4, 128), transpose=True, pad=0x11)
    out = cli(["layout", "decode", "--layout", "te-padded", "--multiple", "4x128", "--transposed", "1", "--shape", "5x3"],
              " ".join(f"{int(v):02X}" for v in p.ravel()))
    assert [[int(t, 16) for t in line.split()] for line in out.splitlines()] == s.tolist()
    np.testing.assert_array_equal(softmx.unpad_scales(p, (5, 3), (4, 128), transpose=True), s)
