// conformance/test_recipes_fp8.cpp: te-fp8-current and te-fp8-block, TransformerEngine's
// Float8CurrentScaling and Float8BlockScaling.
//
// The hand-computed cases are docs/research/transformer-engine-recipes.md sections 1 and 2, each
// citing the TE d0067d0 line it follows; none is computed by softmx. The properties check softmx
// against a transcription of TE's kernel code in host f32 with MPFR element conversions, and the
// dequantization error against an MPFR bound.
#include <gtest/gtest.h>

#include <cfloat>
#include <limits>

#include "softmx/prng.hpp"
#include "support/recipe_support.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::fbits;
using conformance::run_bf16;
using conformance::run_f32;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<std::uint8_t> codes(const RecipeOutput& o) { return o.codes; }
std::vector<std::uint8_t> B(std::initializer_list<int> v) { return std::vector<std::uint8_t>(v.begin(), v.end()); }

// ---- Float8CurrentScaling: hand-computed cases (research section 1) ----------------------------

// Case 1: amax 3.0, E4M3, eps 0. scale = __fdiv_rn(448, 3) (recipe_common.cuh:31), scale_inv =
// __frcp_rn (utils.cuh:951), q = fp8(RN(x * scale)) (vectorized_pointwise.h:205-207).
TEST(RecipeFp8Current, Amax3) {
  const RecipeTensor t = run_f32("te-fp8-current", 1, 4, {3.0f, -1.0f, 0.1f, std::bit_cast<float>(0x403FFFFFu)});
  ASSERT_TRUE(t.rowwise && t.columnwise);
  EXPECT_EQ(t.element, FormatId::e4m3);  // role input under HYBRID: E4M3
  EXPECT_EQ(t.rowwise->tensor_scale, 0x43155555u);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3BDB6DB7u);
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x3BDB6DB7u}));
  EXPECT_EQ(t.rowwise->amax, 0x40400000u);
  EXPECT_EQ(codes(*t.rowwise), B({0x7E, 0xF1, 0x57, 0x7E}));
  // The columnwise output is the transpose with the same bytes and scale_inv (cast_transpose.cu:163,246).
  EXPECT_EQ(t.columnwise->rows, 4u);
  EXPECT_EQ(t.columnwise->cols, 1u);
  EXPECT_EQ(codes(*t.columnwise), B({0x7E, 0xF1, 0x57, 0x7E}));
  EXPECT_EQ(t.columnwise->scales, t.rowwise->scales);
}

// Case 2: pow2 (recipe_common.cuh:39-46): 0x43155555 & 0xFF800000 = 128; a HYBRID gradient takes
// E5M2 (quantization.py:290-296): scale RN(57344 / 3).
TEST(RecipeFp8Current, PowerOfTwoAndHybridGradient) {
  RecipeOptions o;
  o.power_2_scale = true;
  RecipeTensor t = run_f32("te-fp8-current", 1, 2, {3.0f, 0.1f}, o);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x43000000u);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3C000000u);
  EXPECT_EQ(codes(*t.rowwise), B({0x7C, 0x55}));
  RecipeOptions g;
  g.role = TensorRole::gradient;
  t = run_f32("te-fp8-current", 1, 2, {3.0f, 0.1f}, g);
  EXPECT_EQ(t.element, FormatId::e5m2);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x46955555u);
  EXPECT_EQ(codes(*t.rowwise), B({0x7B, 0x67}));
  g.fp8_format = Fp8Format::e4m3;  // Format.E4M3: E4M3 everywhere
  EXPECT_EQ(run_f32("te-fp8-current", 1, 2, {3.0f, 0.1f}, g).element, FormatId::e4m3);
}

// Case 3: an Inf element. The kernel returns scale 1 for an Inf amax (recipe_common.cuh:24-26);
// the reference divides, 448 / Inf = 0, so scale_inv = Inf, finite x * 0 = 0 (-0 for negatives)
// and Inf * 0 = NaN (quantize_scale_calc.py:32,52,58; ref_per_tensor_cs.py:57).
TEST(RecipeFp8Current, InfAmaxKernelAndReference) {
  const std::vector<float> x = {kInf, 1000.0f, 2.5f, -2.5f};
  for (bool pow2 : {false, true}) {
    RecipeOptions o;
    o.power_2_scale = pow2;
    RecipeTensor t = run_f32("te-fp8-current", 1, 4, x, o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x3F800000u);
    EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3F800000u);
    EXPECT_EQ(codes(*t.rowwise), B({0x7E, 0x7E, 0x42, 0xC2}));
    o.impl = RecipeImpl::reference;
    t = run_f32("te-fp8-current", 1, 4, x, o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x00000000u) << pow2;
    EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x7F800000u) << pow2;
    EXPECT_EQ(codes(*t.rowwise), B({0x7F, 0x00, 0x00, 0x80})) << pow2;
  }
}

// Case 4: amax 2^-130: 448 / 2^-130 overflows (recipe_common.cuh:31-38): FLT_MAX, or 2^127 under
// pow2; scale_inv = __frcp_rn(FLT_MAX) = 2^-128 (0x00200000).
TEST(RecipeFp8Current, OverflowingScale) {
  const std::vector<float> x = {std::bit_cast<float>(0x00080000u)};
  RecipeTensor t = run_f32("te-fp8-current", 1, 1, x);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7F7FFFFFu);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x00200000u);
  RecipeOptions o;
  o.power_2_scale = true;
  t = run_f32("te-fp8-current", 1, 1, x, o);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7F000000u);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x00400000u);
  // The value for Inf: FLT_MAX in the kernel for every input dtype (current_scaling.cu:275) and
  // in the tests' reference (ref_per_tensor_cs.py:17); the input dtype's max in custom_recipes
  // (reference_current_scaling.py:256): bf16 max 0x7F7F0000, whose reciprocal is 0x00202020.
  const std::vector<std::uint16_t> b = {0x0001};  // 2^-133
  EXPECT_EQ(run_bf16("te-fp8-current", 1, 1, b).rowwise->tensor_scale, 0x7F7FFFFFu);
  RecipeOptions r;
  r.impl = RecipeImpl::reference;
  EXPECT_EQ(run_bf16("te-fp8-current", 1, 1, b, r).rowwise->tensor_scale, 0x7F7FFFFFu);
  r.impl = RecipeImpl::custom_reference;
  t = run_bf16("te-fp8-current", 1, 1, b, r);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7F7F0000u);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x00202020u);
}

// Case 5: all zeros (recipe_common.cuh:24; quantize_scale_calc.py:55): scale 1, -0 keeps its sign.
TEST(RecipeFp8Current, ZeroTensorAndEpsilon) {
  for (RecipeImpl impl : {RecipeImpl::kernel, RecipeImpl::reference}) {
    RecipeOptions o;
    o.impl = impl;
    RecipeTensor t = run_f32("te-fp8-current", 1, 2, {0.0f, -0.0f}, o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x3F800000u);
    EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3F800000u);
    EXPECT_EQ(codes(*t.rowwise), B({0x00, 0x80}));
    // A positive epsilon replaces amax 0 (recipe_common.cuh:18-20; quantize_scale_calc.py:29):
    // scale = 448 / 1, scale_inv RN(1/448) = 0x3B124925.
    o.amax_epsilon = 0x3F800000u;
    t = run_f32("te-fp8-current", 1, 2, {0.0f, -0.0f}, o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x43E00000u);
    EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3B124925u);
  }
}

// A NaN element: the kernel's amax skips it (fmaxf, current_scaling.cu:60) and the NaN becomes
// 0x7F; the reference's torch.amax is NaN, so scale and every element are NaN (research section
// 1's table). With pow2 the reference takes frexp(NaN): C gives exponent 0, so scale 0.5.
TEST(RecipeFp8Current, NanElementKernelAndReference) {
  const std::vector<float> x = {kNaN, 3.0f, 1.0f};
  RecipeTensor t = run_f32("te-fp8-current", 1, 3, x);
  EXPECT_EQ(t.rowwise->amax, 0x40400000u);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x43155555u);
  EXPECT_EQ(codes(*t.rowwise), B({0x7F, 0x7E, 0x71}));
  RecipeOptions r;
  r.impl = RecipeImpl::reference;
  t = run_f32("te-fp8-current", 1, 3, x, r);
  EXPECT_EQ(t.rowwise->amax, 0x7FFFFFFFu);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7FFFFFFFu);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x7FFFFFFFu);
  EXPECT_EQ(codes(*t.rowwise), B({0x7F, 0x7F, 0x7F}));
  r.power_2_scale = true;
  t = run_f32("te-fp8-current", 1, 3, x, r);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x3F000000u);
  EXPECT_EQ(codes(*t.rowwise), B({0x7F, 0x3C, 0x30}));
  // A NaN amax given directly (e.g. after an all-reduce): the kernel's isnan gives scale 1 (:24).
  RecipeOptions a;
  a.amax = 0x7FC00000u;
  EXPECT_EQ(run_f32("te-fp8-current", 1, 3, x, a).rowwise->tensor_scale, 0x3F800000u);
  a.amax = 0x40C00000u;  // 6.0: an all-reduced amax larger than the local one
  EXPECT_EQ(run_f32("te-fp8-current", 1, 3, x, a).rowwise->tensor_scale, fbits(448.0f / 6.0f));
}

// ---- Float8BlockScaling: hand-computed cases (research section 2) ------------------------------

// Case 1: 1x128, bf16, amax 3.0, pow2 by default (recipe/__init__.py:429-434): scale 128,
// scale_inv 2^-7 (vector_blockwise.cu:302,313); bf16 0.1 (0x3DCD) * 128 = 12.8125 -> 13.
TEST(RecipeFp8Block, OneByOneTwentyEightBf16) {
  std::vector<std::uint16_t> x(128, 0);
  x[0] = 0x4040;  // 3.0
  x[1] = 0xBF80;  // -1.0
  x[2] = 0x3DCD;
  const RecipeTensor t = run_bf16("te-fp8-block", 1, 128, x);
  EXPECT_TRUE(t.power_2_scale);
  EXPECT_FALSE(t.tiles_2d);
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x3C000000u}));
  EXPECT_EQ(t.rowwise->multipliers, (std::vector<std::uint32_t>{0x43000000u}));
  EXPECT_EQ(t.rowwise->codes[0], 0x7C);
  EXPECT_EQ(t.rowwise->codes[1], 0xF0);
  EXPECT_EQ(t.rowwise->codes[2], 0x55);
}

// Case 2: a 128x128 weight tile whose largest |x| is 2^-133, pow2 off: the overflow value is the
// input dtype's max (recipe_common.cuh:35-38,67; common.h:711).
TEST(RecipeFp8Block, OverflowValueIsTheInputDtypesMax) {
  RecipeOptions o;
  o.role = TensorRole::weight;
  o.power_2_scale = false;
  std::vector<std::uint16_t> xb(128 * 128, 0);
  xb[5] = 0x8001;  // -2^-133
  RecipeTensor t = run_bf16("te-fp8-block", 128, 128, xb, o);
  EXPECT_TRUE(t.tiles_2d);
  EXPECT_EQ(t.rowwise->multipliers, (std::vector<std::uint32_t>{0x7F7F0000u}));
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x00202020u}));
  std::vector<float> xf(128 * 128, 0.0f);
  xf[5] = std::bit_cast<float>(0x00010000u);  // 2^-133 in f32
  t = run_f32("te-fp8-block", 128, 128, xf, o);
  EXPECT_EQ(t.rowwise->multipliers, (std::vector<std::uint32_t>{0x7F7FFFFFu}));
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x00200000u}));
  o.power_2_scale = true;
  for (const RecipeTensor& u : {run_bf16("te-fp8-block", 128, 128, xb, o), run_f32("te-fp8-block", 128, 128, xf, o)}) {
    EXPECT_EQ(u.rowwise->multipliers, (std::vector<std::uint32_t>{0x7F000000u}));
    EXPECT_EQ(u.rowwise->scales, (std::vector<std::uint32_t>{0x00400000u}));
  }
  // The reference uses the input dtype's max too (blockwise_quantizer_reference.py:121-127).
  o.power_2_scale = false;
  o.impl = RecipeImpl::reference;
  EXPECT_EQ(run_bf16("te-fp8-block", 128, 128, xb, o).rowwise->multipliers, (std::vector<std::uint32_t>{0x7F7F0000u}));
}

// Cases 3 and 4: an Inf element gives scale 1 in the kernel, 0 in the reference (scale_inv Inf,
// finite elements 0, the Inf NaN); an all-zero block scale 1 in both.
TEST(RecipeFp8Block, InfAndZeroBlocks) {
  std::vector<float> x(2 * 128, 0.0f);
  x[0] = kInf;
  x[1] = 2.5f;
  x[128 + 1] = -0.0f;
  RecipeTensor t = run_f32("te-fp8-block", 2, 128, x);
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x3F800000u, 0x3F800000u}));
  EXPECT_EQ(t.rowwise->codes[0], 0x7E);
  EXPECT_EQ(t.rowwise->codes[1], 0x42);
  EXPECT_EQ(t.rowwise->codes[128 + 1], 0x80);
  RecipeOptions r;
  r.impl = RecipeImpl::reference;
  t = run_f32("te-fp8-block", 2, 128, x, r);
  EXPECT_EQ(t.rowwise->scales, (std::vector<std::uint32_t>{0x7F800000u, 0x3F800000u}));
  EXPECT_EQ(t.rowwise->multipliers[0], 0x00000000u);
  EXPECT_EQ(t.rowwise->codes[0], 0x7F);
  EXPECT_EQ(t.rowwise->codes[1], 0x00);
  EXPECT_EQ(t.rowwise->codes[128 + 1], 0x80);
}

// Partial tiles and TE's compact scale shapes (quantizer.cpp:1441-1490).
TEST(RecipeFp8Block, PartialTilesAndCompactShapes) {
  SplitMix64 rng(0xB10);
  std::vector<float> x(130 * 200);
  for (float& v : x) v = static_cast<float>(static_cast<int>(rng.below(2001)) - 1000) / 64.0f;
  RecipeTensor t = run_f32("te-fp8-block", 130, 200, x);
  EXPECT_EQ(t.rowwise->scale_rows, 130u);
  EXPECT_EQ(t.rowwise->scale_cols, 2u);
  PaddedScales p = te_compact_scales(t, RecipeDirection::rowwise);
  EXPECT_EQ(p.rows, 2u);    // ceil(K / 128)
  EXPECT_EQ(p.cols, 132u);  // roundup(M, 4)
  EXPECT_EQ(p.codes[1 * 132 + 7], t.rowwise->scales[7 * 2 + 1]);  // row 7, K-block 1 at kb * 132 + m
  EXPECT_EQ(t.columnwise->rows, 200u);
  EXPECT_EQ(t.columnwise->cols, 130u);
  p = te_compact_scales(t, RecipeDirection::columnwise);
  EXPECT_EQ(p.rows, 2u);    // ceil(M / 128)
  EXPECT_EQ(p.cols, 200u);  // roundup(K, 4)
  RecipeOptions w;
  w.role = TensorRole::weight;
  t = run_f32("te-fp8-block", 130, 200, x, w);
  p = te_compact_scales(t, RecipeDirection::rowwise);
  EXPECT_EQ(p.rows, 2u);  // ceil(M / 128)
  EXPECT_EQ(p.cols, 4u);  // roundup(ceil(K / 128), 4)
  p = te_compact_scales(t, RecipeDirection::columnwise);
  EXPECT_EQ(p.rows, 2u);
  EXPECT_EQ(p.cols, 4u);
  EXPECT_THROW(gemm_swizzled_scales(t, RecipeDirection::rowwise), std::invalid_argument);
}

// ---- properties -----------------------------------------------------------------------------

// Random tensors (normal data, specials, tiny and huge values) against a transcription of TE's
// kernels in host f32: compute_scale_from_amax (recipe_common.cuh:14-49), 1/scale, x * scale, and
// cvt.rn.satfinite by the MPFR oracle. Both recipes, both pow2 settings, E4M3 and E5M2, f32 and
// bf16 sources, 1-d and 2-d blocks; and the rowwise/columnwise relations: current scaling's
// columnwise bytes are the transpose; block 2-d too; block 1-d columnwise equals the rowwise output
// of x^T.
TEST(RecipeFp8, MatchesHostF32TranscriptionOfTheKernels) {
  conformance::Tally t("te-fp8-current and te-fp8-block vs host-f32 transcription of TE's kernels + MPFR "
                       "cvt: 300 random tensors x pow2 x role");
  SplitMix64 rng(0xF8C);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rows = 1 + rng.below(trial % 10 == 0 ? 160 : 9), cols = 1 + rng.below(trial % 3 == 0 ? 300 : 20);
    const bool bf16 = trial % 2;
    const int e0 = static_cast<int>(rng.below(80)) - 40;
    std::vector<float> x(rows * cols);
    for (float& v : x) {
      const std::uint64_t k = rng.below(100);
      if (k == 0 && trial % 5 == 0) v = kNaN;
      else if (k == 1 && trial % 7 == 0) v = rng.below(2) ? kInf : -kInf;
      else if (k < 10) v = 0.0f;
      else v = std::ldexp(static_cast<float>(static_cast<int>(rng.below(2000001)) - 1000000), e0 - 20);
      if (trial % 11 == 0 && k == 50) v = std::bit_cast<float>(static_cast<std::uint32_t>(rng.below(0x800000)));  // subnormal
      if (bf16) v = conformance::bf16_value(static_cast<std::uint16_t>(fbits(v) >> 16));  // truncate to bf16
    }
    std::vector<std::uint16_t> xb(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xb[i] = static_cast<std::uint16_t>(fbits(x[i]) >> 16);
    for (const char* recipe : {"te-fp8-current", "te-fp8-block"})
      for (bool pow2 : {false, true})
        for (TensorRole role : {TensorRole::input, TensorRole::weight, TensorRole::gradient}) {
          RecipeOptions o;
          o.power_2_scale = pow2;
          o.role = role;
          o.fp8_format = Fp8Format::hybrid;
          const RecipeTensor q = bf16 ? run_bf16(recipe, rows, cols, xb, o) : run_f32(recipe, rows, cols, x, o);
          const bool block = recipe[7] == 'b';
          const bool e5 = role == TensorRole::gradient;
          const oracle::Fmt of = e5 ? oracle::Fmt::e5m2 : oracle::Fmt::e4m3;
          const float maxv = e5 ? 57344.0f : 448.0f;
          const float vinf = block && bf16 ? std::bit_cast<float>(0x7F7F0000u) : FLT_MAX;
          const std::size_t br = block ? (role == TensorRole::weight ? 128 : 1) : rows, bc = block ? 128 : cols;
          bool ok = true;
          std::string why;
          // Expected rowwise output of a matrix m (r x c) with blocks br x bc.
          auto expect = [&](const std::vector<float>& m, std::size_t r, std::size_t c, std::size_t bR, std::size_t bC,
                            const RecipeOutput& out) {
            for (std::size_t bi = 0; ok && bi * bR < r; ++bi)
              for (std::size_t bj = 0; ok && bj * bC < c; ++bj) {
                float amax = 0.0f;
                for (std::size_t i = bi * bR; i < std::min(r, (bi + 1) * bR); ++i)
                  for (std::size_t j = bj * bC; j < std::min(c, (bj + 1) * bC); ++j) amax = std::fmax(amax, std::fabs(m[i * c + j]));
                const float scale = conformance::te_scale(amax, maxv, pow2, 0.0f, vinf);
                const std::size_t si = bi * out.scale_cols + bj;
                if (out.multipliers[si] != fbits(scale) || out.scales[si] != fbits(1.0f / scale)) {
                  ok = false;
                  why = "scale of block " + std::to_string(bi) + "," + std::to_string(bj);
                }
                for (std::size_t i = bi * bR; ok && i < std::min(r, (bi + 1) * bR); ++i)
                  for (std::size_t j = bj * bC; ok && j < std::min(c, (bj + 1) * bC); ++j)
                    if (out.codes[i * c + j] != conformance::oracle_satfinite(of, m[i * c + j] * scale)) {
                      ok = false;
                      why = "element " + std::to_string(i) + "," + std::to_string(j);
                    }
              }
          };
          expect(x, rows, cols, br, bc, *q.rowwise);
          std::vector<float> xt(x.size());
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) xt[j * rows + i] = x[i * cols + j];
          if (!block) {
            // Current scaling: the same scale; the transposed bytes.
            for (std::size_t i = 0; ok && i < rows; ++i)
              for (std::size_t j = 0; ok && j < cols; ++j)
                ok = q.columnwise->codes[j * rows + i] == q.rowwise->codes[i * cols + j];
            ok = ok && q.columnwise->scales == q.rowwise->scales;
          } else if (role == TensorRole::weight) {
            for (std::size_t i = 0; ok && i < rows; ++i)
              for (std::size_t j = 0; ok && j < cols; ++j)
                ok = q.columnwise->codes[j * rows + i] == q.rowwise->codes[i * cols + j];
            for (std::size_t i = 0; ok && i < q.rowwise->scale_rows; ++i)
              for (std::size_t j = 0; ok && j < q.rowwise->scale_cols; ++j)
                ok = q.columnwise->scales[j * q.columnwise->scale_cols + i] == q.rowwise->scales[i * q.rowwise->scale_cols + j];
            if (!ok && why.empty()) why = "2-d columnwise is not the transpose";
          } else {
            expect(xt, cols, rows, 1, 128, *q.columnwise);
          }
          t.check(ok, [&] {
            return std::string(recipe) + " trial " + std::to_string(trial) + (pow2 ? " pow2 " : " ") +
                   std::string(name(role)) + (bf16 ? " bf16 " : " f32 ") + why;
          });
        }
  }
  t.report();
}

// dequantize(quantize(x)) against x, exactly in MPFR: every finite x with a finite scale comes
// back within half a unit of the FP8 element's place, relative 2^-4 (E4M3) or 2^-3 (E5M2), or
// half the subnormal spacing times scale_inv, plus the f32 roundings (2^-20 relative, 2^-149).
TEST(RecipeFp8, DequantizeErrorBoundAgainstMpfr) {
  conformance::Tally t("te-fp8 dequantize(quantize(x)) - x within the FP8 half-ulp bound, in MPFR: 300 tensors "
                       "x 2 recipes x pow2 x role");
  SplitMix64 rng(0xDE8);
  mpfr_t a, b, bound, tmp;
  mpfr_inits2(256, a, b, bound, tmp, static_cast<mpfr_ptr>(nullptr));
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rows = 1 + rng.below(6), cols = 1 + rng.below(300);
    const int e0 = static_cast<int>(rng.below(200)) - 100;
    std::vector<float> x(rows * cols);
    for (float& v : x)
      v = rng.below(8) == 0 ? 0.0f : std::ldexp(static_cast<float>(static_cast<int>(rng.below(2000001)) - 1000000), e0 - 20 - static_cast<int>(rng.below(30)));
    for (const char* recipe : {"te-fp8-current", "te-fp8-block"})
      for (bool pow2 : {false, true})
        for (TensorRole role : {TensorRole::input, TensorRole::gradient}) {
          RecipeOptions o;
          o.power_2_scale = pow2;
          o.role = role;
          o.fp8_format = Fp8Format::hybrid;
          const RecipeTensor q = run_f32(recipe, rows, cols, x, o);
          const bool e5 = role == TensorRole::gradient;
          std::vector<std::uint32_t> dq(x.size());
          dequantize_recipe(q, RecipeDirection::rowwise, FormatId::f32, dq.data());
          const RecipeOutput& out = *q.rowwise;
          bool ok = true;
          for (std::size_t i = 0; ok && i < x.size(); ++i) {
            const std::size_t r = i / cols, c = i % cols;
            const float sinv = conformance::fval(out.scales[(r / out.block_rows) * out.scale_cols + c / out.block_cols]);
            mpfr_set_flt(a, x[i], MPFR_RNDN);
            mpfr_set_flt(b, conformance::fval(dq[i]), MPFR_RNDN);
            mpfr_sub(tmp, b, a, MPFR_RNDN);  // exact at 256 bits
            mpfr_abs(tmp, tmp, MPFR_RNDN);
            mpfr_abs(bound, a, MPFR_RNDN);
            mpfr_mul_d(bound, bound, (e5 ? 0x1p-3 : 0x1p-4) + 0x1p-20, MPFR_RNDU);
            mpfr_set_flt(a, sinv, MPFR_RNDN);
            mpfr_mul_d(a, a, (e5 ? 0x1p-17 : 0x1p-10) * (1 + 0x1p-20), MPFR_RNDU);
            mpfr_add(bound, bound, a, MPFR_RNDU);
            mpfr_add_d(bound, bound, 0x1p-149, MPFR_RNDU);
            ok = mpfr_cmp(tmp, bound) <= 0;
          }
          t.check(ok, [&] { return std::string(recipe) + " trial " + std::to_string(trial); });
        }
  }
  mpfr_clears(a, b, bound, tmp, static_cast<mpfr_ptr>(nullptr));
  t.report();
}

// Dequantization is float(q) * scale_inv in f32, then the destination (dequantize_fp8.cuh:30-32).
TEST(RecipeFp8, DequantizeFollowsTheKernel) {
  const RecipeTensor q = run_f32("te-fp8-current", 1, 4, {3.0f, -1.0f, 0.1f, 2.0f});
  std::vector<std::uint32_t> out(4);
  dequantize_recipe(q, RecipeDirection::rowwise, FormatId::f32, out.data());
  EXPECT_EQ(out[0], fbits(448.0f * std::bit_cast<float>(0x3BDB6DB7u)));
  EXPECT_EQ(out[1], fbits(-144.0f * std::bit_cast<float>(0x3BDB6DB7u)));
  std::vector<std::uint16_t> o16(4);
  dequantize_recipe(q, RecipeDirection::columnwise, FormatId::bf16, o16.data());
  EXPECT_EQ(o16[0], 0x4040);  // RN_bf16(448 * scale_inv = 3.0000002) = 3.0
  EXPECT_THROW(dequantize_recipe(q, RecipeDirection::rowwise, FormatId::e4m3, out.data()), std::invalid_argument);
  RecipeOptions only_row;
  only_row.columnwise = false;
  const RecipeTensor r = run_f32("te-fp8-current", 1, 1, {1.0f}, only_row);
  EXPECT_FALSE(r.columnwise.has_value());
  EXPECT_THROW(dequantize_recipe(r, RecipeDirection::columnwise, FormatId::f32, out.data()), std::invalid_argument);
}

// Options that do not apply, and inputs TE refuses, are errors naming the option.
TEST(RecipeFp8, BadOptionsAreErrors) {
  auto err = [](const char* recipe, const RecipeOptions& o, FormatId src = FormatId::f32) {
    std::vector<std::uint32_t> x(128 * 128, 0);
    const std::size_t shape[2] = {128, 128};
    try {
      quantize_recipe(*find_recipe(recipe), src, x.data(), shape, o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  RecipeOptions o;
  o.amax = 0x3F800000u;
  EXPECT_NE(err("te-fp8-block", o).find("amax"), std::string::npos);
  o = {};
  o.random_hadamard = true;
  EXPECT_NE(err("te-fp8-current", o).find("Hadamard"), std::string::npos);
  o = {};
  o.impl = RecipeImpl::custom_reference;
  EXPECT_NE(err("te-fp8-block", o).find("custom_recipes"), std::string::npos);
  o = {};
  o.rowwise = o.columnwise = false;
  EXPECT_NE(err("te-fp8-current", o).find("neither"), std::string::npos);
  EXPECT_NE(err("te-fp8-current", {}, FormatId::f64).find("f32, bf16 or f16"), std::string::npos);
  o = {};
  o.amax = 0xBF800000u;
  EXPECT_NE(err("te-fp8-current", o).find("negative"), std::string::npos);
  EXPECT_EQ(find_recipe("Float8CurrentScaling"), find_recipe("te-fp8-current"));
  EXPECT_EQ(find_recipe("TE-NVFP4"), find_recipe("te-nvfp4"));
  EXPECT_EQ(find_recipe("nope"), nullptr);
  EXPECT_EQ(parse_recipe_impl("custom-reference"), RecipeImpl::custom_reference);
  EXPECT_EQ(parse_tensor_role("Gradient"), TensorRole::gradient);
}

}  // namespace
}  // namespace softmx
