// conformance/test_recipes_mxfp8.cpp: te-mxfp8, TransformerEngine's MXFP8BlockScaling.
//
// Hand-computed cases: docs/research/transformer-engine-recipes.md section 3 ("now" = TE
// d0067d0, the transformer-engine dialect; "old" = before 2026-02-05, transformer-engine-2025),
// each citing the line it follows. Property: softmx against a transcription of TE's kernel in host
// f32 (float_to_e8m0's software path, exp2f_rcp<float>, the product) with MPFR conversions.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "softmx/prng.hpp"
#include "support/recipe_support.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
using conformance::fbits;
using conformance::fval;
using conformance::row0;
using conformance::run_f32;

struct Case {
  std::uint8_t scale;
  std::uint32_t multiplier;
  std::vector<std::uint8_t> codes;
};

// Row 0 of a 32 x 32 tensor holds `first` (the rest 0): its first rowwise block, and with one
// value, its first columnwise block too.
Case rowwise_case(std::initializer_list<float> first, const char* dialect = "transformer-engine") {
  RecipeOptions o;
  o.dialect = find_dialect(dialect);
  const RecipeTensor t = run_f32("te-mxfp8", 32, 32, row0(32, 32, first), o);
  return {static_cast<std::uint8_t>(t.rowwise->scales[0]), t.rowwise->multipliers[0],
          std::vector<std::uint8_t>(t.rowwise->codes.begin(), t.rowwise->codes.begin() + static_cast<long>(first.size()))};
}

// Case 1 [1.0]: 1.0 * RN(1/448) = 0x3B124925 rounds up to 0x77 (ptx_arch_spec.cuh:95-101);
// multiplier (254 - 0x77) << 23 = 2^8, 1.0 -> 256 = 0x78 (ptx.cuh:316); dequant scale 0x77 << 23.
// Case 2 [957]: 0x81, multiplier 2^-2, 239.25 -> 240 = 0x77.
// Case 6 [1.96875 * 2^127]: 0xF7, multiplier 2^-120, 0x78.
TEST(RecipeMxfp8, OrdinaryBlocks) {
  for (const char* d : {"transformer-engine", "transformer-engine-2025"}) {
    Case c = rowwise_case({1.0f}, d);
    EXPECT_EQ(c.scale, 0x77);
    EXPECT_EQ(c.multiplier, 0x43800000u);
    EXPECT_EQ(c.codes, std::vector<std::uint8_t>{0x78});
    c = rowwise_case({957.0f}, d);
    EXPECT_EQ(c.scale, 0x81);
    EXPECT_EQ(c.multiplier, 0x3E800000u);
    EXPECT_EQ(c.codes, std::vector<std::uint8_t>{0x77});
    c = rowwise_case({std::bit_cast<float>(0x7F7C0000u)}, d);
    EXPECT_EQ(c.scale, 0xF7);
    EXPECT_EQ(c.multiplier, 0x03800000u);  // 2^-120
    EXPECT_EQ(c.codes, std::vector<std::uint8_t>{0x78});
  }
  RecipeTensor t = run_f32("te-mxfp8", 32, 32, row0(32, 32, {1.0f}));
  std::vector<std::uint32_t> out(32 * 32);
  dequantize_recipe(t, RecipeDirection::rowwise, FormatId::f32, out.data());
  EXPECT_EQ(out[0], 0x3F800000u);  // 0x3B800000 (2^-8) * 256
}

// Case 3 [2^-130]: the quotient is subnormal <= 2^-127, scale 0x00. Now the multiplier is 2^127
// (ptx.cuh:316: (254 - 0) << 23) and 2^-3 gives 0x20; before PR 2647 it was 1.0 and the block
// flushed to 0x00. Dequantizing 0x20 under 0x00: now 2^-127 * 2^-3 (ptx.cuh:339); before PR
// 3262, 0 * x = 0.
TEST(RecipeMxfp8, TinyBlockNowAndOld) {
  Case c = rowwise_case({std::bit_cast<float>(0x00080000u)});
  EXPECT_EQ(c.scale, 0x00);
  EXPECT_EQ(c.multiplier, 0x7F000000u);
  EXPECT_EQ(c.codes, std::vector<std::uint8_t>{0x20});
  c = rowwise_case({std::bit_cast<float>(0x00080000u)}, "transformer-engine-2025");
  EXPECT_EQ(c.scale, 0x00);
  EXPECT_EQ(c.multiplier, 0x3F800000u);
  EXPECT_EQ(c.codes, std::vector<std::uint8_t>{0x00});
  RecipeTensor t = run_f32("te-mxfp8", 32, 32, row0(32, 32, {std::bit_cast<float>(0x00080000u)}));
  std::vector<std::uint32_t> out(32 * 32);
  dequantize_recipe(t, RecipeDirection::rowwise, FormatId::f32, out.data());
  EXPECT_EQ(out[0], 0x00080000u);
  RecipeOptions old;
  old.dialect = find_dialect("transformer-engine-2025");
  t = run_f32("te-mxfp8", 32, 32, row0(32, 32, {std::bit_cast<float>(0x00200000u)}), old);
  t.rowwise->codes[0] = 0x20;  // dequantize 0x20 under scale 0x00 with the old exp2f
  dequantize_recipe(t, RecipeDirection::rowwise, FormatId::f32, out.data());
  EXPECT_EQ(out[0], 0x00000000u);
}

// Case 4 [+Inf, 1.0]: amax Inf, scale 0xFE (ptx_arch_spec.cuh:89-91). Now the multiplier is
// 2^-127 (ptx.cuh:314): Inf stays Inf and saturates to 0x7E, 1.0 gives 0x00; old: +0.0, Inf * 0
// = NaN gives 0x7F. Case 5 [NaN, 1.0]: amax skips NaN (quantize_mxfp8.cuh:255-259): 0x77; NaN
// gives 0x7F and 1.0 0x78, now and old alike.
TEST(RecipeMxfp8, InfAndNanBlocks) {
  Case c = rowwise_case({kInf, 1.0f});
  EXPECT_EQ(c.scale, 0xFE);
  EXPECT_EQ(c.multiplier, 0x00400000u);
  EXPECT_EQ(c.codes, (std::vector<std::uint8_t>{0x7E, 0x00}));
  c = rowwise_case({kInf, 1.0f}, "transformer-engine-2025");
  EXPECT_EQ(c.multiplier, 0x00000000u);
  EXPECT_EQ(c.codes, (std::vector<std::uint8_t>{0x7F, 0x00}));
  for (const char* d : {"transformer-engine", "transformer-engine-2025"}) {
    c = rowwise_case({kNaN, 1.0f}, d);
    EXPECT_EQ(c.scale, 0x77) << d;
    EXPECT_EQ(c.codes, (std::vector<std::uint8_t>{0x7F, 0x78})) << d;
  }
}

// Both directions from one call (ScalingType::BIDIMENSIONAL, quantize_mxfp8.cuh:654-661): the
// columnwise data keeps [M, K]; its scales are one per (32-row block, column). HYBRID gradients
// take E5M2 with RN(1/57344).
TEST(RecipeMxfp8, ColumnwiseAndHybrid) {
  std::vector<float> x(64 * 32, 0.0f);
  x[0 * 32 + 3] = 1.0f;    // column 3, row block 0
  x[40 * 32 + 3] = 957.0f; // column 3, row block 1
  x[40 * 32 + 4] = 1.0f;
  RecipeTensor t = run_f32("te-mxfp8", 64, 32, x);
  EXPECT_EQ(t.columnwise->rows, 64u);
  EXPECT_EQ(t.columnwise->cols, 32u);
  EXPECT_EQ(t.columnwise->block_rows, 32u);
  EXPECT_EQ(t.columnwise->scale_rows, 2u);
  EXPECT_EQ(t.columnwise->scale_cols, 32u);
  EXPECT_EQ(t.columnwise->scales[0 * 32 + 3], 0x77u);
  EXPECT_EQ(t.columnwise->scales[1 * 32 + 3], 0x81u);
  EXPECT_EQ(t.columnwise->scales[1 * 32 + 4], 0x77u);
  EXPECT_EQ(t.columnwise->codes[40 * 32 + 3], 0x77);
  // Rowwise, row 40 holds 957 and 1.0 in one block: scale 0x81, 1.0 * 2^-2 = 0.25 = 0x28.
  EXPECT_EQ(t.rowwise->scales[40], 0x81u);
  EXPECT_EQ(t.rowwise->codes[40 * 32 + 4], 0x28);
  RecipeOptions g;
  g.role = TensorRole::gradient;
  g.fp8_format = Fp8Format::hybrid;
  t = run_f32("te-mxfp8", 64, 32, x, g);
  EXPECT_EQ(t.element, FormatId::e5m2);
  // 957 * RN(1/57344) is in (2^-6, 2^-5): rounded up, 2^-5, scale 0x7A; 957 * 2^5 = 30624 lies
  // between E5M2 28672 (0x77) and 32768 (0x78), nearer 28672: 0x77.
  EXPECT_EQ(t.rowwise->scales[40], 0x7Au);
  EXPECT_EQ(t.rowwise->codes[40 * 32 + 3], 0x77);
}

// Scale tensor padding (mxfp8_tensor.py:164-176) and the cuBLAS layout (scale-layouts.md).
TEST(RecipeMxfp8, CompactAndSwizzledScales) {
  SplitMix64 rng(0x3A7);
  std::vector<float> x(32 * 64);
  for (float& v : x) v = std::ldexp(static_cast<float>(1 + rng.below(1000)), static_cast<int>(rng.below(40)) - 20);
  const RecipeTensor t = run_f32("te-mxfp8", 32, 64, x);
  PaddedScales p = te_compact_scales(t, RecipeDirection::rowwise, 0xEE);
  EXPECT_EQ(p.rows, 128u);  // roundup(M, 128)
  EXPECT_EQ(p.cols, 4u);    // roundup(K / 32, 4)
  EXPECT_EQ(p.codes[5 * 4 + 1], t.rowwise->scales[5 * 2 + 1]);
  EXPECT_EQ(p.codes[5 * 4 + 2], 0xEEu);
  p = te_compact_scales(t, RecipeDirection::columnwise);
  EXPECT_EQ(p.rows, 4u);    // roundup(M / 32, 4)
  EXPECT_EQ(p.cols, 128u);  // roundup(K, 128)
  EXPECT_EQ(p.codes[0 * 128 + 63], t.columnwise->scales[63]);
  // Rowwise swizzled: S[r][c] at the 128x4 index; columnwise: the transposed [K, M/32] matrix.
  const auto rs = gemm_swizzled_scales(t, RecipeDirection::rowwise);
  ASSERT_EQ(rs.size(), 512u);
  EXPECT_EQ(rs[swizzled_128x4_index(5, 1, 2)], t.rowwise->scales[5 * 2 + 1]);
  EXPECT_EQ(rs[3], 0x00);  // padding column 3 of row 0
  const auto cs = gemm_swizzled_scales(t, RecipeDirection::columnwise);
  ASSERT_EQ(cs.size(), 512u);  // 64 data columns x 1 row block -> 128 x 4
  for (std::size_t col = 0; col < 64; ++col) EXPECT_EQ(cs[swizzled_128x4_index(col, 0, 1)], t.columnwise->scales[col]);
}

// Random tensors against a transcription of TE's kernel in host f32: amax by fmaxf from 0,
// biased = float_to_e8m0(amax * RN(1/max)) by its software path (ptx_arch_spec.cuh:84-102),
// m = exp2f_rcp<float>(biased) (ptx.cuh:308-317), q = cvt.rn.satfinite(x * m) by MPFR; and the
// dequantization static_cast<float>(exp2f(biased) * float(q)) (ptx.cuh:335-341).
TEST(RecipeMxfp8, MatchesHostF32TranscriptionOfTheKernel) {
  conformance::Tally t("te-mxfp8 vs host-f32 transcription of quantize_mxfp8.cuh + MPFR cvt: 200 random "
                       "tensors x E4M3/E5M2, both directions, dequantized");
  SplitMix64 rng(0x3F8);
  auto float_to_e8m0 = [](float v) -> std::uint8_t {
    if (std::isnan(v)) return 0xFF;
    if (std::isinf(v)) return 0xFE;
    if (v == 0.0f) return 0x00;
    const std::uint32_t b = fbits(v);
    std::uint8_t e = static_cast<std::uint8_t>(b >> 23);
    const std::uint32_t m = b & 0x7FFFFF;
    if (m > 0 && e != 0xFE && !(e == 0 && m <= 0x400000)) ++e;
    return e;
  };
  auto exp2f_rcp = [](std::uint8_t s) {
    if (s == 255) return fval(0x7FFFFFFFu);
    if (s == 254) return fval(0x00400000u);
    return fval(static_cast<std::uint32_t>(254 - s) << 23);
  };
  auto exp2f = [](std::uint8_t s) {
    if (s == 255) return fval(0x7FFFFFFFu);
    if (s == 0) return fval(0x00400000u);
    return fval(static_cast<std::uint32_t>(s) << 23);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rows = 32 * (1 + rng.below(3)), cols = 32 * (1 + rng.below(3));
    const int e0 = static_cast<int>(rng.below(300)) - 150;
    std::vector<float> x(rows * cols);
    for (float& v : x) {
      const std::uint64_t k = rng.below(200);
      if (k == 0 && trial % 4 == 0) v = std::numeric_limits<float>::quiet_NaN();
      else if (k == 1 && trial % 6 == 0) v = rng.below(2) ? kInf : -kInf;
      else if (k < 20) v = 0.0f;
      else v = std::ldexp(static_cast<float>(static_cast<int>(rng.below(2000001)) - 1000000), std::clamp(e0 + static_cast<int>(rng.below(20)), -149, 107));
    }
    for (TensorRole role : {TensorRole::input, TensorRole::gradient}) {
      RecipeOptions o;
      o.role = role;
      o.fp8_format = Fp8Format::hybrid;
      const RecipeTensor q = run_f32("te-mxfp8", rows, cols, x, o);
      const bool e5 = role == TensorRole::gradient;
      const float rcp = e5 ? fval(0x37924925u) : fval(0x3B124925u);  // RN(1/57344), RN(1/448)
      const oracle::Fmt of = e5 ? oracle::Fmt::e5m2 : oracle::Fmt::e4m3;
      bool ok = true;
      std::string why;
      for (int dir = 0; dir < 2 && ok; ++dir) {
        const RecipeOutput& out = dir == 0 ? *q.rowwise : *q.columnwise;
        std::vector<std::uint32_t> dq(rows * cols);
        dequantize_recipe(q, dir == 0 ? RecipeDirection::rowwise : RecipeDirection::columnwise, FormatId::f32, dq.data());
        for (std::size_t bi = 0; ok && bi < out.scale_rows; ++bi)
          for (std::size_t bj = 0; ok && bj < out.scale_cols; ++bj) {
            float amax = 0.0f;
            for (std::size_t k = 0; k < 32; ++k) {
              const std::size_t i = dir == 0 ? bi : bi * 32 + k, j = dir == 0 ? bj * 32 + k : bj;
              amax = std::fmax(amax, std::fabs(x[i * cols + j]));
            }
            const std::uint8_t s = float_to_e8m0(amax * rcp);
            ok = out.scales[bi * out.scale_cols + bj] == s;
            const float m = exp2f_rcp(s);
            for (std::size_t k = 0; ok && k < 32; ++k) {
              const std::size_t i = dir == 0 ? bi : bi * 32 + k, j = dir == 0 ? bj * 32 + k : bj;
              const std::uint8_t c = conformance::oracle_satfinite(of, x[i * cols + j] * m);
              ok = out.codes[i * cols + j] == c;
              const float d = exp2f(s) * conformance::oracle_value(of, c);
              ok = ok && (std::isnan(d) ? dq[i * cols + j] == 0x7FFFFFFFu : dq[i * cols + j] == fbits(d));
              if (!ok) why = "element " + std::to_string(i) + "," + std::to_string(j);
            }
            if (!ok && why.empty()) why = "scale " + std::to_string(bi) + "," + std::to_string(bj);
          }
      }
      t.check(ok, [&] { return "trial " + std::to_string(trial) + " " + std::string(name(role)) + ": " + why; });
    }
  }
  t.report();
}

TEST(RecipeMxfp8, ShapesAndOptionsTeRefuses) {
  std::vector<std::uint32_t> x(48 * 32, 0);
  const std::size_t bad[2] = {48, 32};
  EXPECT_THROW(quantize_recipe(*find_recipe("te-mxfp8"), FormatId::f32, x.data(), bad), std::invalid_argument);
  const std::size_t good[2] = {32, 32};
  RecipeOptions o;
  o.impl = RecipeImpl::reference;
  EXPECT_THROW(quantize_recipe(*find_recipe("te-mxfp8"), FormatId::f32, x.data(), good, o), std::invalid_argument);
  o = {};
  o.dialect = find_dialect("ocp");
  EXPECT_THROW(quantize_recipe(*find_recipe("te-mxfp8"), FormatId::f32, x.data(), good, o), std::invalid_argument);
  o = {};
  o.tiles_2d = true;
  EXPECT_THROW(quantize_recipe(*find_recipe("te-mxfp8"), FormatId::f32, x.data(), good, o), std::invalid_argument);
  // 3-d tensors flatten to [M, K] as TE's get_2d_dims: (2, 16, 32) is 32 x 32.
  const std::size_t three[3] = {2, 16, 32};
  const RecipeTensor t = quantize_recipe(*find_recipe("te-mxfp8"), FormatId::f32, x.data(), three);
  EXPECT_EQ(t.rows, 32u);
  EXPECT_EQ(t.cols, 32u);
}

}  // namespace
}  // namespace softmx
