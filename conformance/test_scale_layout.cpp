// conformance/test_scale_layout.cpp: the scale layouts consumers expect (softmx/scale_layout.hpp).
//
// Hand-checked indices come from docs/research/scale-layouts.md section 4 (TE swizzle.cuh:34-40
// step by step, and nvmath-python's two docstring values) and docs/research/lut-argmin-golden.md
// section 8 cases 11-13 (the seed generator's bytes). The layouts are also checked against
// literal transcriptions of the code that defines them: torchao's to_blocked view/permute chain
// (utils.py:59-70) and nvmath's strided 5-d view (_scales_2d_matrix_tiled_layout), neither of
// which uses softmx's index formula.
#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "softmx/prng.hpp"
#include "softmx/scale_layout.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

std::vector<std::uint8_t> bytes(std::initializer_list<int> v) { return std::vector<std::uint8_t>(v.begin(), v.end()); }

// ---- the 128x4 swizzle: hand-checked indices --------------------------------------------------

// scale-layouts.md section 4, each row following swizzle.cuh:34-40.
TEST(Swizzle128x4, HandCheckedIndices) {
  // NVFP4 A of shape (128, 128): 8 scale columns, nTilesX = 2 (nvmath get_block_scale_offset).
  EXPECT_EQ(swizzled_128x4_index(5, 2, 8), 82u);    // (0,0) tile; 5*16 + 0 + 2
  EXPECT_EQ(swizzled_128x4_index(5, 5, 8), 593u);   // tile (0,1) = 512; 80 + 0 + 1
  EXPECT_EQ(swizzled_128x4_index(37, 1, 8), 85u);   // 5*16 + (37/32)*4 + 1
  EXPECT_EQ(swizzled_128x4_index(127, 3, 8), 511u); // the last byte of tile 0: 31*16 + 3*4 + 3
  EXPECT_EQ(swizzled_128x4_index(130, 6, 8), 1570u);  // tile (1,1) = 3*512; 2*16 + 0 + 2
  // Shape (100, 2), padded to (128, 4): nTilesX = 1.
  EXPECT_EQ(swizzled_128x4_index(99, 1, 2), 61u);   // 3*16 + 3*4 + 1
  // MXFP8 columnwise, data [M = 64, N = 256]: compact scales [4, 256]; entry (k-block 1, column
  // 200) is swizzled as r = 200, c = 1 in a matrix of 64/32 = 2 columns (nTilesX = 1):
  // tile (1, 0) = 512, 8*16 + 2*4 + 1.
  EXPECT_EQ(swizzled_128x4_index(200, 1, 2), 649u);
  EXPECT_EQ(swizzled_128x4_size(100, 2), 512u);
  EXPECT_EQ(swizzled_128x4_size(130, 7), 2048u);
  EXPECT_EQ(swizzled_128x4_size(1, 1), 512u);
  EXPECT_EQ(swizzled_128x4_size(384, 12), 4608u);
  EXPECT_EQ(swizzled_128x4_size(0, 5), 0u);
}

// One 512-byte tile: line b of 16 bytes holds rows b, b+32, b+64, b+96 with their 4 columns.
TEST(Swizzle128x4, OneTileLayout) {
  std::vector<std::uint8_t> s(128 * 4);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(i % 251);
  const auto buf = encode_swizzled_128x4(s, 128, 4);
  ASSERT_EQ(buf.size(), 512u);
  for (std::size_t b = 0; b < 32; ++b)
    for (std::size_t g = 0; g < 4; ++g)
      for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(buf[b * 16 + g * 4 + c], s[(g * 32 + b) * 4 + c]);
}

// torchao to_blocked, transcribed literally (utils.py:59-70): pad with zeros, then
// view(nrb, 128, ncb, 4).permute(0, 2, 1, 3) -> A[i][j][k][l] = P[i*128 + k][j*4 + l];
// reshape(-1, 4, 32, 4) -> B[t][g][b][c] = A flat at ((t*4 + g)*32 + b)*4 + c;
// transpose(1, 2) -> C[t][b][g][c]; reshape(-1, 32, 16).flatten() -> C in row-major order.
std::vector<std::uint8_t> to_blocked_literal(const std::vector<std::uint8_t>& s, std::size_t R, std::size_t C) {
  const std::size_t nrb = (R + 127) / 128, ncb = (C + 3) / 4;
  std::vector<std::uint8_t> P(nrb * 128 * ncb * 4, 0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) P[r * ncb * 4 + c] = s[r * C + c];
  // A (contiguous after reshape, in logical order).
  std::vector<std::uint8_t> A;
  for (std::size_t i = 0; i < nrb; ++i)
    for (std::size_t j = 0; j < ncb; ++j)
      for (std::size_t k = 0; k < 128; ++k)
        for (std::size_t l = 0; l < 4; ++l) A.push_back(P[(i * 128 + k) * ncb * 4 + j * 4 + l]);
  std::vector<std::uint8_t> out;
  for (std::size_t t = 0; t < nrb * ncb; ++t)
    for (std::size_t b = 0; b < 32; ++b)
      for (std::size_t g = 0; g < 4; ++g)
        for (std::size_t c = 0; c < 4; ++c) out.push_back(A[((t * 4 + g) * 32 + b) * 4 + c]);
  return out;
}

// nvmath-python _scales_2d_matrix_tiled_layout: the unblocked axis as (tiles, 4, 32) with
// strides (512 * nTilesX, 4, 16), the blocked axis as (tiles, 4) with strides (512, 1).
std::size_t nvmath_offset(std::size_t r, std::size_t c, std::size_t C) {
  const std::size_t ntx = (C + 3) / 4;
  return (r / 128) * 512 * ntx + ((r % 128) / 32) * 4 + (r % 32) * 16 + (c / 4) * 512 + (c % 4);
}

// scale-layouts.md section 3's table, and every shape up to 300 x 20 against both
// transcriptions, with round trips both ways.
TEST(Swizzle128x4, MatchesToBlockedAndNvmathAndRoundTrips) {
  conformance::Tally t("128x4 swizzle == torchao to_blocked (literal) == nvmath offsets; round trips, "
                       "R 1..300 x C 1..20 and the research shapes");
  SplitMix64 rng(0x5A1);
  std::vector<std::pair<std::size_t, std::size_t>> shapes = {{128, 4}, {256, 8}, {100, 2}, {130, 7}, {1, 1}, {384, 12}};
  for (std::size_t R = 1; R <= 300; R += 7)
    for (std::size_t C = 1; C <= 20; ++C) shapes.emplace_back(R, C);
  for (const auto& shape : shapes) {
    const std::size_t R = shape.first, C = shape.second;  // captured below: clang 14 cannot capture a binding
    std::vector<std::uint8_t> s(R * C);
    for (auto& b : s) b = static_cast<std::uint8_t>(1 + rng.below(255));  // never the padding byte
    const auto buf = encode_swizzled_128x4(s, R, C);
    bool ok = buf == to_blocked_literal(s, R, C) && buf == torchao_to_blocked(s, R, C);
    std::size_t pads = 0;
    for (auto b : buf) pads += b == 0;
    ok = ok && pads == buf.size() - R * C;  // research table: 312 for (100, 2), 1138 for (130, 7)
    for (std::size_t r = 0; ok && r < R; ++r)
      for (std::size_t c = 0; ok && c < C; ++c) ok = buf[nvmath_offset(r, c, C)] == s[r * C + c];
    ok = ok && decode_swizzled_128x4(buf, R, C) == s && torchao_from_blocked(buf, R, C) == s;
    // encode(decode(B)) == B for a buffer whose padding is 0x00; a random buffer decodes and
    // re-encodes to itself with its padding zeroed.
    std::vector<std::uint8_t> rnd(buf.size());
    for (auto& b : rnd) b = static_cast<std::uint8_t>(rng.below(256));
    const auto again = encode_swizzled_128x4(decode_swizzled_128x4(rnd, R, C), R, C);
    for (std::size_t i = 0; ok && i < rnd.size(); ++i) ok = again[i] == (buf[i] == 0 ? 0 : rnd[i]);
    t.check(ok, [&] { return "shape " + std::to_string(R) + " x " + std::to_string(C); });
  }
  EXPECT_EQ(encode_swizzled_128x4(bytes({1}), 1, 1).size(), 512u);
  EXPECT_EQ(encode_swizzled_128x4(bytes({9}), 1, 1, 0x7F)[1], 0x7F);  // a chosen padding byte
  t.report();
}

TEST(Swizzle128x4, BadSizesAreRefused) {
  EXPECT_THROW(encode_swizzled_128x4(bytes({1, 2, 3}), 2, 2), std::invalid_argument);
  EXPECT_THROW(decode_swizzled_128x4(std::vector<std::uint8_t>(511), 1, 1), std::invalid_argument);
  EXPECT_THROW(torchao_from_blocked(std::vector<std::uint8_t>(100), 100, 2), std::invalid_argument);
}

// ---- the seed generator's paired layout ---------------------------------------------------------

// lut-argmin-golden.md section 8 case 12 (K = 96, nb = 3 padded to 4, m = n = 2): A row i has
// scale bytes 0x7D + 3i + b, B column c has 0x7D - 3c - b, for blocks b = 0..2.
TEST(PairedLayout, SeedGeneratorBytesCase12) {
  const auto a = bytes({0x7D, 0x7E, 0x7F, 0x80, 0x81, 0x82});  // (m = 2, nb = 3)
  EXPECT_EQ(encode_paired(a, 2, 3, PairedOperand::a, false), bytes({0x7D, 0x7E, 0x7F, 0x7F, 0x80, 0x81, 0x82, 0x7F}));
  EXPECT_EQ(encode_paired(a, 2, 3, PairedOperand::a, true), bytes({0x7D, 0x7E, 0x80, 0x81, 0x7F, 0x7F, 0x82, 0x7F}));
  const auto b = bytes({0x7D, 0x7A, 0x7C, 0x79, 0x7B, 0x78});  // (nb = 3, n = 2): S[b][c]
  EXPECT_EQ(encode_paired(b, 3, 2, PairedOperand::b, false), bytes({0x7D, 0x7C, 0x7A, 0x79, 0x7B, 0x7F, 0x78, 0x7F}));
  EXPECT_EQ(encode_paired(b, 3, 2, PairedOperand::b, true), bytes({0x7D, 0x7C, 0x7B, 0x7F, 0x7A, 0x79, 0x78, 0x7F}));
}

// Cases 11 and 13: nb = 1, so both flags give the same bytes; m = 3 for case 13.
TEST(PairedLayout, SeedGeneratorBytesCases11And13) {
  for (bool tr : {false, true}) {
    EXPECT_EQ(encode_paired(bytes({0x7D, 0x7E}), 2, 1, PairedOperand::a, tr), bytes({0x7D, 0x7F, 0x7E, 0x7F}));
    EXPECT_EQ(encode_paired(bytes({0x7E, 0x7F}), 1, 2, PairedOperand::b, tr), bytes({0x7E, 0x7F, 0x7F, 0x7F}));
    EXPECT_EQ(encode_paired(bytes({0x7D, 0x7E, 0x7F}), 3, 1, PairedOperand::a, tr),
              bytes({0x7D, 0x7F, 0x7E, 0x7F, 0x7F, 0x7F}));
  }
  EXPECT_EQ(paired_index(PairedOperand::a, true, 1, 2, 2, 3), 6u);   // [j=1][i=1][t=0]
  EXPECT_EQ(paired_index(PairedOperand::b, false, 2, 1, 3, 2), 6u);  // [j=1][c=1][t=0]
}

// The permutations as torch would apply them: a literal (nb_even/2, 2) reshape and permute of
// the padded tensor (seed lines 142-149), compared with encode_paired; and round trips.
TEST(PairedLayout, MatchesLiteralPermutesAndRoundTrips) {
  conformance::Tally t("paired layout == literal reshape/permute; round trips; m, n 1..9 x nb 1..9, both flags");
  SplitMix64 rng(0x9A1);
  for (std::size_t ext = 1; ext <= 9; ++ext)
    for (std::size_t nb = 1; nb <= 9; ++nb)
      for (PairedOperand op : {PairedOperand::a, PairedOperand::b})
        for (bool tr : {false, true}) {
          const std::size_t rows = op == PairedOperand::a ? ext : nb, cols = op == PairedOperand::a ? nb : ext;
          std::vector<std::uint8_t> s(rows * cols);
          for (auto& b : s) b = static_cast<std::uint8_t>(rng.below(256));
          const std::size_t ne = nb + nb % 2;
          // Padded (A: (m, ne); B: (ne, n)) with 0x7F.
          std::vector<std::uint8_t> want;
          auto S = [&](std::size_t i, std::size_t blk) -> std::uint8_t {  // i: row of A / column of B
            if (blk >= nb) return 0x7F;
            return op == PairedOperand::a ? s[i * nb + blk] : s[blk * ext + i];
          };
          if (op == PairedOperand::a) {
            // reshape (m, ne/2, 2): X[i][j][t] = S[i][2j+t]; flag 0 as is, flag 1 permute(1, 0, 2).
            if (!tr) for (std::size_t i = 0; i < ext; ++i) for (std::size_t j = 0; j < ne / 2; ++j) for (std::size_t u = 0; u < 2; ++u) want.push_back(S(i, 2 * j + u));
            else for (std::size_t j = 0; j < ne / 2; ++j) for (std::size_t i = 0; i < ext; ++i) for (std::size_t u = 0; u < 2; ++u) want.push_back(S(i, 2 * j + u));
          } else {
            // reshape (ne/2, 2, n): Y[j][t][c] = S[2j+t][c]; flag 0 permute(0, 2, 1) -> [j][c][t];
            // flag 1 permute(2, 0, 1) -> [c][j][t].
            if (!tr) for (std::size_t j = 0; j < ne / 2; ++j) for (std::size_t c = 0; c < ext; ++c) for (std::size_t u = 0; u < 2; ++u) want.push_back(S(c, 2 * j + u));
            else for (std::size_t c = 0; c < ext; ++c) for (std::size_t j = 0; j < ne / 2; ++j) for (std::size_t u = 0; u < 2; ++u) want.push_back(S(c, 2 * j + u));
          }
          const auto got = encode_paired(s, rows, cols, op, tr);
          bool ok = got == want && got.size() == paired_size(op, rows, cols) &&
                    decode_paired(got, rows, cols, op, tr) == s;
          std::set<std::size_t> seen;
          for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) seen.insert(paired_index(op, tr, r, c, rows, cols));
          ok = ok && seen.size() == rows * cols && *seen.rbegin() < got.size();
          t.check(ok, [&] {
            return std::string(op == PairedOperand::a ? "A " : "B ") + std::to_string(rows) + " x " +
                   std::to_string(cols) + (tr ? " transposed" : "");
          });
        }
  EXPECT_THROW(encode_paired(bytes({1, 2, 3}), 2, 2, PairedOperand::a, false), std::invalid_argument);
  EXPECT_THROW(decode_paired(bytes({1, 2, 3}), 1, 3, PairedOperand::a, false), std::invalid_argument);
  t.report();
}

// ---- TE's compact padding --------------------------------------------------------------------

TEST(PadScales, TransposeAndPad) {
  const std::vector<std::uint32_t> s = {1, 2, 3, 4, 5, 6};  // 2 x 3
  const PaddedScales p = pad_scales(s, 2, 3, false, 128, 4, 0xEE);
  EXPECT_EQ(p.rows, 128u);
  EXPECT_EQ(p.cols, 4u);
  EXPECT_EQ(p.codes[0 * 4 + 2], 3u);
  EXPECT_EQ(p.codes[1 * 4 + 0], 4u);
  EXPECT_EQ(p.codes[0 * 4 + 3], 0xEEu);
  EXPECT_EQ(p.codes[5 * 4 + 0], 0xEEu);
  const PaddedScales q = pad_scales(s, 2, 3, true, 1, 4);  // FP8 1x128: [blocks, roundup(rows, 4)]
  EXPECT_EQ(q.rows, 3u);
  EXPECT_EQ(q.cols, 4u);
  EXPECT_EQ(q.codes, (std::vector<std::uint32_t>{1, 4, 0, 0, 2, 5, 0, 0, 3, 6, 0, 0}));
  EXPECT_THROW(pad_scales(s, 2, 2, false, 1, 1), std::invalid_argument);
  EXPECT_THROW(pad_scales(s, 2, 3, false, 0, 1), std::invalid_argument);
}

// TE's FP8 1x128 dequantize of a rowwise tensor, by hand: q of shape (q_M, q_K) = (3, 256) has
// ceil(256/128) = 2 blocks a row, so its compact scale_inv is [2, roundup(3, 4)] = [2, 4], S
// transposed (docs/research/scale-layouts.md section 2, quantizer.cpp:1441-1490). TE reads it
// back in float8_blockwise_tensor_storage.py (commit d0067d0d): :261 `scales_tiled_dim,
// scales_untiled_dim = scale_inv.shape` = (2, 4); :292-294 `if scales_untiled_dim > q_M:
// scale_inv = scale_inv[:, :q_M]` (4 > 3: drop column 3, the padding); :295 `dq_scale =
// scale_inv.transpose(-2, -1)...reshape(q_M, scales_tiled_dim, 1)`, so row m, block k of q is
// scaled by compact[k][m]. The padding (column 3) holds junk, as TE's at::empty leaves it.
TEST(UnpadScales, HandComputedFp8BlockRowwise) {
  const std::uint32_t junk = 0xDEADBEEFu;
  const std::vector<std::uint32_t> compact = {10, 11, 12, junk,   // block 0 of rows 0, 1, 2
                                              20, 21, 22, junk};  // block 1
  EXPECT_EQ(padded_scales_shape(3, 2, true, 1, 4), (std::pair<std::size_t, std::size_t>{2, 4}));
  EXPECT_EQ(unpad_scales(compact, 3, 2, true, 1, 4), (std::vector<std::uint32_t>{10, 20, 11, 21, 12, 22}));
  // MXFP8 rowwise, as tests/pytorch/test_mxfp8_2d_quantize.py:36-38 crops it: data (2, 64) has
  // S of 2 x ceil(64/32) = 2 x 2 in a compact [roundup(2, 128), roundup(2, 4)] = [128, 4]
  // tensor, and `scale[:rows, :ceil(cols/32)]` is its top-left corner.
  std::vector<std::uint32_t> mx(128 * 4, junk);
  mx[0] = 0x7F, mx[1] = 0x80, mx[4] = 0x01, mx[5] = 0xFE;
  EXPECT_EQ(unpad_scales(mx, 2, 2, false, 128, 4), (std::vector<std::uint32_t>{0x7F, 0x80, 0x01, 0xFE}));
}

// decode(encode(S)) == S for every shape up to 9 x 9, both orientations and several multiples,
// whatever the padding holds; a buffer of the wrong size is refused.
TEST(UnpadScales, RoundTripsAndIgnoresThePadding) {
  int cases = 0;
  for (std::size_t rows = 0; rows <= 9; ++rows)
    for (std::size_t cols = 0; cols <= 9; ++cols)
      for (const bool t : {false, true})
        for (const auto& [rm, cm] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 4}, {4, 1}, {3, 5}, {128, 4}, {4, 128}}) {
          std::vector<std::uint32_t> s(rows * cols);
          for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint32_t>(i * 2654435761u);
          const PaddedScales p = pad_scales(s, rows, cols, t, rm, cm, 0x55);
          ASSERT_EQ(padded_scales_shape(rows, cols, t, rm, cm), (std::pair<std::size_t, std::size_t>{p.rows, p.cols}));
          ASSERT_EQ(unpad_scales(p.codes, rows, cols, t, rm, cm), s) << rows << "x" << cols << " t=" << t;
          const PaddedScales q = pad_scales(s, rows, cols, t, rm, cm, 0xAAAAAAAAu);
          ASSERT_EQ(unpad_scales(q.codes, rows, cols, t, rm, cm), s);
          if (rows * cols != 0 && (p.rows != (t ? cols : rows) || p.cols != (t ? rows : cols))) {
            ASSERT_NE(p.codes, q.codes);  // the padding really is there, and really is skipped
          }
          ++cases;
        }
  EXPECT_EQ(cases, 10 * 10 * 2 * 6);
  const std::vector<std::uint32_t> v(12);
  EXPECT_THROW(unpad_scales(v, 2, 3, true, 1, 5), std::invalid_argument);  // wants 3 x 5 = 15
  EXPECT_THROW(unpad_scales(v, 2, 3, false, 0, 1), std::invalid_argument);
  EXPECT_NO_THROW(unpad_scales(v, 2, 3, true, 1, 4));
}

}  // namespace
}  // namespace softmx
