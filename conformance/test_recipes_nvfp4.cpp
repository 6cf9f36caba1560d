// conformance/test_recipes_nvfp4.cpp: te-nvfp4, TransformerEngine's NVFP4BlockScaling, with
// its random Hadamard transform and stochastic rounding.
//
// Hand-computed cases: docs/research/transformer-engine-recipes.md section 4, each citing the TE
// d0067d0 line it follows. Independent checks: the RHT's orthogonality in Boost rationals, its
// outputs against an exact MPFR sum rounded by the MPFR oracle, and the whole recipe against a
// transcription of TE's kernels in host f32 (fmaf for the stochastic-rounding fallback) with MPFR
// conversions.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cfloat>
#include <limits>

#include "softmx/prng.hpp"
#include "support/recipe_support.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::fbits;
using conformance::fval;
using conformance::run_bf16;
using conformance::run_f32;
const float kInf = std::numeric_limits<float>::infinity();

// A literal host transcription of TE's stochastic_round_fp4_e2m1 (ptx.cuh:526-549: fmaf,
// floorf, fminf, copysignf) for x and the random byte r8, in f32 as the kernel computes.
float sr_host(float x, std::uint32_t r8) {
  const float u = static_cast<float>(r8 & 0xFFu) * (1.0f / 256.0f);
  const float a = std::fabs(x);
  const float step = (a >= 4.0f) ? 2.0f : ((a >= 2.0f) ? 1.0f : 0.5f);
  const float tt = std::fmaf(u, step, a);
  const float step_t = (tt >= 4.0f) ? 2.0f : ((tt >= 2.0f) ? 1.0f : 0.5f);
  const float inv = (tt >= 4.0f) ? 0.5f : ((tt >= 2.0f) ? 1.0f : 2.0f);
  return std::copysign(std::fmin(std::floor(tt * inv) * step_t, 6.0f), (x != x) ? 1.0f : x);
}
const float kNaN = std::numeric_limits<float>::quiet_NaN();

RecipeOptions plain() {  // 1x16 blocks, no RHT, no stochastic rounding
  RecipeOptions o;
  o.random_hadamard = false;
  return o;
}

std::vector<float> tensor16(std::initializer_list<std::initializer_list<float>> rows) {
  std::vector<float> x(16 * 16, 0.0f);
  std::size_t r = 0;
  for (auto row : rows) {
    std::size_t c = 0;
    for (float v : row) x[r * 16 + c++] = v;
    ++r;
  }
  return x;
}

std::vector<std::uint8_t> first(const RecipeOutput& o, std::size_t n) {
  return std::vector<std::uint8_t>(o.codes.begin(), o.codes.begin() + static_cast<long>(n));
}
std::vector<std::uint8_t> B(std::initializer_list<int> v) { return std::vector<std::uint8_t>(v.begin(), v.end()); }

// ---- hand-computed cases (research section 4) ------------------------------------------------

// Case 1: G = 10, block [10, 1, -2.5, 0.75]. S_enc = RN(2688 / 10) (core_nvfp4.cuh:87-94),
// S_dec = RN(1 / S_enc) (quantize_transpose_nvfp4.cuh:430); S_enc * RN(1/6) * 10 = 448 exactly:
// scale 0x7E (core_nvfp4.cuh:51-52); m = RN(1 / RN(448 * S_dec)) (:549-550).
TEST(RecipeNvfp4, GlobalAmax10) {
  const RecipeTensor t = run_f32("te-nvfp4", 16, 16, tensor16({{10.0f, 1.0f, -2.5f, 0.75f}}), plain());
  EXPECT_EQ(t.rowwise->amax, fbits(10.0f));
  EXPECT_EQ(t.rowwise->tensor_scale, 0x43866666u);
  EXPECT_EQ(t.rowwise->tensor_scale_inv, 0x3B73CF3Eu);
  EXPECT_EQ(t.rowwise->scales[0], 0x7Eu);
  EXPECT_EQ(t.rowwise->multipliers[0], 0x3F199999u);
  EXPECT_EQ(first(*t.rowwise, 4), B({0x7, 0x1, 0xB, 0x1}));
  ASSERT_EQ(t.rowwise->scales.size(), 16u);  // 16 rows of one 1x16 block
  EXPECT_EQ(t.rowwise->scales[1], 0x00u);     // row 1: all zero (it read scales[16], past the end)
  // Columnwise without RHT: x^T with the same global amax; column 0 = [10, 0, ...].
  EXPECT_EQ(t.columnwise->rows, 16u);
  EXPECT_EQ(t.columnwise->tensor_scale, 0x43866666u);
  EXPECT_EQ(t.columnwise->scales[0], 0x7Eu);
  EXPECT_EQ(t.columnwise->codes[0], 0x7);
}

// Case 2: G = 1000, block [0.001, -0.0005]: 0.001 * (S_enc * RN(1/6)) < 2^-10, scale 0x00; m =
// 1/0 capped to FLT_MAX (:549-550), so the elements saturate to +-6 (0x7, 0xF) under a zero
// scale. The reference (reference_nvfp4.py:764-775) gives the same codes.
TEST(RecipeNvfp4, ZeroScaleSaturates) {
  const auto x = tensor16({{0.001f, -0.0005f}, {1000.0f}});
  for (RecipeImpl impl : {RecipeImpl::kernel, RecipeImpl::reference}) {
    RecipeOptions o = plain();
    o.impl = impl;
    const RecipeTensor t = run_f32("te-nvfp4", 16, 16, x, o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x402C0831u);
    EXPECT_EQ(t.rowwise->scales[0], 0x00u);
    EXPECT_EQ(t.rowwise->multipliers[0], 0x7F7FFFFFu);
    EXPECT_EQ(first(*t.rowwise, 3), B({0x7, 0xF, 0x0}));
  }
}

// Case 3: all zeros. Kernel: S_enc = 1 (core_nvfp4.cuh:91), codes keep -0 (0x8, cvt keeps the
// sign). Reference: 2688 / 0 = Inf, min gives FLT_MAX, "== 0" is false (reference_nvfp4.py:
// 712-729); -0.0 falls in no interval of cast_to_fp4x2 but (x >= 0) & (x <= 0.25): 0x0 (:53,62).
TEST(RecipeNvfp4, ZeroTensor) {
  const auto x = tensor16({{0.0f, -0.0f}});
  RecipeTensor t = run_f32("te-nvfp4", 16, 16, x, plain());
  EXPECT_EQ(t.rowwise->tensor_scale, 0x3F800000u);
  EXPECT_EQ(t.rowwise->scales[0], 0x00u);
  EXPECT_EQ(t.rowwise->multipliers[0], 0x7F7FFFFFu);
  EXPECT_EQ(first(*t.rowwise, 2), B({0x0, 0x8}));
  RecipeOptions r = plain();
  r.impl = RecipeImpl::reference;
  t = run_f32("te-nvfp4", 16, 16, x, r);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7F7FFFFFu);
  EXPECT_EQ(first(*t.rowwise, 2), B({0x0, 0x0}));
}

// Case 4: G = +Inf, block [Inf, 1.0]: 2688 / Inf = 0, so S_enc = 1 (kernel and reference); the
// block amax times RN(1/6) is Inf, fminf gives FLT_MAX, the scale 448 (0x7E); m = RN(1/448);
// Inf gives +6, 1.0 * RN(1/448) gives 0.
TEST(RecipeNvfp4, InfGlobalAmax) {
  for (RecipeImpl impl : {RecipeImpl::kernel, RecipeImpl::reference}) {
    RecipeOptions o = plain();
    o.impl = impl;
    const RecipeTensor t = run_f32("te-nvfp4", 16, 16, tensor16({{kInf, 1.0f}}), o);
    EXPECT_EQ(t.rowwise->tensor_scale, 0x3F800000u);
    EXPECT_EQ(t.rowwise->scales[0], 0x7Eu);
    EXPECT_EQ(t.rowwise->multipliers[0], 0x3B124925u);
    EXPECT_EQ(first(*t.rowwise, 2), B({0x7, 0x0}));
  }
}

// A NaN element: the kernel's amaxes skip it and it becomes +6 (satfinite); the reference's
// torch.max makes the global amax NaN: S_enc NaN, every block's decode NaN (scale 0x7F), encode
// NaN and every code 0 (research section 4's table). A -0 element: 0x8 against 0x0.
TEST(RecipeNvfp4, NanAndNegativeZeroKernelVsReference) {
  const auto x = tensor16({{kNaN, 1.0f}, {-0.0f, 2.0f}});
  RecipeTensor t = run_f32("te-nvfp4", 16, 16, x, plain());
  EXPECT_EQ(t.rowwise->amax, fbits(2.0f));
  EXPECT_EQ(t.rowwise->codes[0], 0x7);
  EXPECT_EQ(t.rowwise->codes[16], 0x8);
  RecipeOptions r = plain();
  r.impl = RecipeImpl::reference;
  t = run_f32("te-nvfp4", 16, 16, x, r);
  EXPECT_EQ(t.rowwise->amax, 0x7FFFFFFFu);
  EXPECT_EQ(t.rowwise->tensor_scale, 0x7FFFFFFFu);
  for (std::uint32_t s : t.rowwise->scales) EXPECT_EQ(s, 0x7Fu);
  for (std::uint8_t c : t.rowwise->codes) EXPECT_EQ(c, 0x0);
  // Without the NaN, the reference keeps its -0 rule only.
  t = run_f32("te-nvfp4", 16, 16, tensor16({{1.0f}, {-0.0f, 2.0f}}), r);
  EXPECT_EQ(t.rowwise->codes[16], 0x0);
  EXPECT_EQ(t.rowwise->codes[17], run_f32("te-nvfp4", 16, 16, tensor16({{1.0f}, {-0.0f, 2.0f}}), plain()).rowwise->codes[17]);
}

// Weights: 16x16 tiles (recipe/__init__.py:605-609): one amax over the tile, its scale stored in
// each of the tile's 16 rows (reference_nvfp4.py:675-690), the same scale for both directions.
TEST(RecipeNvfp4, WeightTiles) {
  std::vector<float> x(32 * 32, 0.25f);
  x[3 * 32 + 5] = 10.0f;  // tile (0, 0)
  x[20 * 32 + 30] = -3.0f;  // tile (1, 1)
  RecipeOptions w;
  w.role = TensorRole::weight;
  const RecipeTensor t = run_f32("te-nvfp4", 32, 32, x, w);
  EXPECT_TRUE(t.tiles_2d);
  EXPECT_FALSE(t.random_hadamard);
  EXPECT_FALSE(t.stochastic_rounding);
  for (std::size_t r = 0; r < 16; ++r) {
    EXPECT_EQ(t.rowwise->scales[r * 2 + 0], 0x7Eu) << r;  // 10 * S_enc(G = 10) / 6 = 448
    EXPECT_EQ(t.rowwise->scales[(16 + r) * 2 + 1], t.rowwise->scales[16 * 2 + 1]) << r;
  }
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t j = 0; j < 32; ++j) EXPECT_EQ(t.columnwise->codes[j * 32 + i], t.rowwise->codes[i * 32 + j]);
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t b = 0; b < 2; ++b)
      EXPECT_EQ(t.columnwise->scales[i * 2 + b], t.rowwise->scales[(b * 16) * 2 + i / 16]);
}

// ---- stochastic rounding: TE's software fallback (ptx.cuh:526-549), research case 5 ------------

TEST(RecipeNvfp4, SoftwareStochasticRoundingCases) {
  auto sr = [](float x, std::uint32_t byte) { return te_stochastic_round_e2m1(fbits(x), byte).code; };
  EXPECT_EQ(sr(0.3f, 0x66), 0x0u);   // 0.3 / 0.5 = 0.6; 0.6 + 102/256 < 1
  EXPECT_EQ(sr(0.3f, 0x67), 0x1u);   // threshold 103
  EXPECT_EQ(sr(5.0f, 0x7F), 0x6u);   // 4
  EXPECT_EQ(sr(5.0f, 0x80), 0x7u);   // 6
  EXPECT_EQ(sr(-2.6f, 0x66), 0xCu);  // -2
  EXPECT_EQ(sr(-2.6f, 0x67), 0xDu);  // -3
  EXPECT_EQ(sr(1.9f, 0xFF), 0x4u);   // t = 2.398 crosses into step 1: 2
  EXPECT_EQ(sr(kNaN, 0x00), 0x7u);   // +6
  EXPECT_EQ(sr(-kNaN, 0xFF), 0x7u);
  EXPECT_EQ(sr(7.0f, 0x00), 0x7u);
  EXPECT_EQ(sr(-kInf, 0x00), 0xFu);
  EXPECT_EQ(sr(-0.0f, 0xFF), 0x8u);
  EXPECT_EQ(sr(0.5f, 0xFF), 0x1u);   // exact values never move: 0.5 + 255/512 < 1.0
  EXPECT_EQ(sr(0.3f, 0x1FF66), 0x0u);  // only the low byte counts
  EXPECT_EQ(sr(0.3f, 0x1FF67), 0x1u);
  // x = 0x3AFFFFFF (2^-9 - 2^-33) with 0xFF: fmaf's one rounding carries 0.5 - 2^-33 to 0.5, where
  // exact 8-bit stochastic rounding (softmx's rs with 8 bits) gives 0.
  EXPECT_EQ(te_stochastic_round_e2m1(0x3AFFFFFFu, 0xFF).code, 0x1u);
  Context rs;
  rs.rounding = Rounding::rs;
  rs.rbits_width = 8;
  rs.rbits = 0xFF;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0x3AFFFFFFu, rs).code, 0x0u);
  // Flags: exact 1.5 none; 0.3 inexact and underflow; 7 overflow; NaN invalid.
  EXPECT_EQ(te_stochastic_round_e2m1(fbits(1.5f), 0x80).flags, 0);
  EXPECT_EQ(te_stochastic_round_e2m1(fbits(0.3f), 0x80).flags, flag::inexact | flag::underflow);
  EXPECT_EQ(te_stochastic_round_e2m1(fbits(7.0f), 0x80).flags, flag::inexact | flag::overflow);
  EXPECT_EQ(te_stochastic_round_e2m1(0x7FC00000u, 0).flags, flag::invalid);
}

// f32 values across the E2M1 range and beyond with 26 random bytes each, and the 8 f32
// neighbours of every threshold B - r * step / 256 (B a grid point, r a byte: where fmaf's
// rounding can carry) with the bytes r - 1, r, r + 1; both signs; against a literal host
// transcription of stochastic_round_fp4_e2m1 (fmaf, floorf, fminf, copysignf).
TEST(RecipeNvfp4, SoftwareStochasticRoundingMatchesHostTranscription) {
  conformance::Tally t("te_stochastic_round_e2m1 vs host fmaf transcription of ptx.cuh:526-549: every 65537th "
                       "f32 below 8 and specials x 26 bytes, every rounding threshold's neighbours x 3 bytes");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cases;  // (x, byte)
  SplitMix64 rng(0x5F8);
  std::vector<std::uint32_t> xs = {0x7FC00000u, 0x7F800000u, 0x7F7FFFFFu, 0, 1, 0x3AFFFFFFu};
  for (std::uint32_t b = 0; b < 0x41000000u; b += 65537) xs.push_back(b);
  for (std::uint32_t e = 0; e < 40; ++e)  // tiny values, which fmaf's sum rounds away
    for (int d = -2; d <= 2; ++d) xs.push_back((0x3B000000u - (e << 23)) + static_cast<std::uint32_t>(d));
  for (std::uint32_t x : xs) {
    for (std::uint32_t r : {0u, 1u, 0x3Fu, 0x40u, 0x7Fu, 0x80u, 0xBFu, 0xC0u, 0xFEu, 0xFFu}) cases.emplace_back(x, r);
    for (int k = 0; k < 16; ++k) cases.emplace_back(x, static_cast<std::uint32_t>(rng.below(256)));
  }
  for (float g : {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f})
    for (float step : {0.5f, 1.0f, 2.0f})
      for (std::uint32_t r = 0; r < 256; ++r) {
        const float th = g - static_cast<float>(r) * step / 256.0f;  // exact
        if (th <= 0.0f) continue;
        for (int d = -4; d <= 4; ++d)
          for (std::uint32_t rr : {r - 1, r, r + 1}) cases.emplace_back(fbits(th) + static_cast<std::uint32_t>(d), rr & 0xFF);
      }
  const std::size_t n = cases.size();
  for (std::size_t i = 0; i < n; ++i) cases.emplace_back(cases[i].first ^ 0x80000000u, cases[i].second);
  for (const auto& c : cases) {
    const std::uint32_t x = c.first, r = c.second;  // not a structured binding: clang 14 cannot capture one
    const std::uint8_t want = conformance::oracle_satfinite(oracle::Fmt::e2m1, sr_host(fval(x), r));
    t.check(te_stochastic_round_e2m1(x, r).code == want, [&] {
      char buf[64];
      std::snprintf(buf, sizeof buf, "x %08X byte %02X", x, r);
      return std::string(buf);
    });
  }
  t.report();
}

// ---- the random Hadamard transform --------------------------------------------------------------

std::array<std::uint16_t, 16> rht(std::array<float, 16> v) {
  std::array<std::uint16_t, 16> in;
  for (int k = 0; k < 16; ++k) in[k] = static_cast<std::uint16_t>(fbits(v[k]) >> 16);
  return te_hadamard16(in);
}

// Research case 6 (nvfp4_tensor.py:94-103; hadamard_transform_utils.cuh:106-109): the signs
// [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] are the mask 0xD7E8.
TEST(RecipeNvfp4, HadamardHandCases) {
  std::array<float, 16> e0{};
  e0[0] = 1.0f;
  auto out = rht(e0);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(out[j], 0x3E80) << j;  // s_0 = +1: every output 0.25
  std::array<float, 16> e3{};
  e3[3] = 1.0f;
  out = rht(e3);
  EXPECT_EQ(out[0], 0xBE80);  // -0.25
  EXPECT_EQ(out[1], 0x3E80);
  EXPECT_EQ(out[2], 0x3E80);
  EXPECT_EQ(out[3], 0xBE80);
  std::array<float, 16> ones;
  ones.fill(1.0f);
  out = rht(ones);
  EXPECT_EQ(out[0], 0xBF80);  // (6 - 10) / 4 = -1
  EXPECT_EQ(out[1], 0x0000);  // an exact zero is +0
  EXPECT_EQ(out[2], 0x3F80);
  std::array<float, 16> t1{};
  t1[0] = 1.0f;
  t1[1] = 0x1p-8f;
  out = rht(t1);
  EXPECT_EQ(out[0], 0x3E80);  // 0.25 + 2^-10: a bf16 tie, to even
  EXPECT_EQ(out[1], 0x3E7F);  // 0.25 - 2^-10, exact
  t1[1] = 3 * 0x1p-9f;
  out = rht(t1);
  EXPECT_EQ(out[0], 0x3E81);
  EXPECT_EQ(out[1], 0x3E7E);
  // Specials: a NaN input makes every output NaN (0x7FFF, the GPU's); +Inf and -Inf terms too.
  std::array<float, 16> n{};
  n[7] = kNaN;
  for (std::uint16_t o : rht(n)) EXPECT_EQ(o, 0x7FFF);
  std::array<float, 16> inf{};
  inf[0] = kInf;
  for (std::uint16_t o : rht(inf)) EXPECT_EQ(o, 0x7F80);
  inf[1] = kInf;  // out_1 = (Inf - Inf) / 4
  EXPECT_EQ(rht(inf)[1], 0x7FFF);
  EXPECT_EQ(rht(inf)[0], 0x7F80);
}

// The transform's matrix M (row k = RHT(e_k), all entries +-1/4 exactly) is orthogonal:
// M M^T = I, computed exactly in Boost rationals, for TE's signs and for every single sign flip.
TEST(RecipeNvfp4, HadamardIsOrthogonalInRationals) {
  using boost::multiprecision::cpp_rational;
  for (std::uint32_t mask : {0xD7E8u, 0x0000u, 0xFFFFu, 0x0001u, 0x8000u, 0x1234u}) {
    std::array<std::array<cpp_rational, 16>, 16> m;
    for (int k = 0; k < 16; ++k) {
      std::array<std::uint16_t, 16> e{};
      e[k] = 0x3F80;  // 1.0
      const auto row = te_hadamard16(e, static_cast<std::uint16_t>(mask));
      for (int j = 0; j < 16; ++j) {
        ASSERT_TRUE(row[j] == 0x3E80 || row[j] == 0xBE80) << k << " " << j;
        m[k][j] = cpp_rational(row[j] == 0x3E80 ? 1 : -1, 4);
      }
      // The sign of row k is the mask's bit k (s_k multiplies input k: out_0 = s_k / 4).
      EXPECT_EQ(row[0] == 0xBE80, ((mask >> k) & 1) != 0);
    }
    for (int a = 0; a < 16; ++a)
      for (int b = 0; b < 16; ++b) {
        cpp_rational s = 0;
        for (int j = 0; j < 16; ++j) s += m[a][j] * m[b][j];
        EXPECT_EQ(s, cpp_rational(a == b ? 1 : 0)) << mask << " " << a << " " << b;
      }
  }
}

// Random bf16 vectors (a narrow and a wide exponent spread) against the exact sum in MPFR, rounded
// to bf16 by the MPFR oracle: the model of research section 4.
TEST(RecipeNvfp4, HadamardMatchesExactSumRoundedByMpfr) {
  conformance::Tally t("te_hadamard16 vs MPFR exact sum rounded to bf16 (oracle): 3000 random vectors x 16");
  SplitMix64 rng(0x4AD);
  mpfr_t acc, term;
  mpfr_inits2(400, acc, term, static_cast<mpfr_ptr>(nullptr));
  for (int trial = 0; trial < 3000; ++trial) {
    std::array<std::uint16_t, 16> v;
    const int spread = trial % 2 ? 4 : 250;
    const int base = 127 - static_cast<int>(rng.below(120));
    for (auto& c : v) {
      const int e = std::clamp(base - static_cast<int>(rng.below(spread)), 1, 254);
      c = static_cast<std::uint16_t>((rng.below(2) << 15) | (e << 7) | rng.below(128));
      if (rng.below(10) == 0) c = static_cast<std::uint16_t>(rng.below(2) << 15);  // zeros
    }
    const std::uint16_t mask = static_cast<std::uint16_t>(rng.below(65536));
    const auto out = te_hadamard16(v, mask);
    bool ok = true;
    for (int j = 0; ok && j < 16; ++j) {
      mpfr_set_zero(acc, 1);
      for (int k = 0; k < 16; ++k) {
        mpfr_set_flt(term, conformance::bf16_value(v[k]), MPFR_RNDN);
        const bool neg = (((mask >> k) & 1) != 0) != ((std::popcount(static_cast<unsigned>(k & j)) & 1) != 0);
        if (neg) mpfr_neg(term, term, MPFR_RNDN);
        mpfr_div_2ui(term, term, 2, MPFR_RNDN);
        mpfr_add(acc, acc, term, MPFR_RNDN);  // exact at 400 bits
      }
      if (mpfr_zero_p(acc)) mpfr_set_zero(acc, 1);
      const oracle::Outcome want = oracle::round_value_all(acc, oracle::Fmt::bf16)
                                       .at(oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after);
      ok = out[j] == want.code;
    }
    t.check(ok, [&] { return "trial " + std::to_string(trial); });
  }
  mpfr_clears(acc, term, static_cast<mpfr_ptr>(nullptr));
  t.report();
}

// ---- the whole recipe against a host-f32 transcription of TE's kernels ---------------------------

// S_enc (core_nvfp4.cuh:81-95), block scales (:40-53), multipliers and elements
// (quantize_transpose_nvfp4.cuh:549-550), the RHT input of the columnwise output (computed here by
// the MPFR oracle), stochastic rounding by a literal fmaf transcription, and the dequantization
// float(S) * amax * (1.0f / 2688) then code * that (dequantize_nvfp4.cuh:65-77), all in host f32.
TEST(RecipeNvfp4, MatchesHostF32TranscriptionOfTheKernels) {
  conformance::Tally t("te-nvfp4 vs host-f32 transcription of TE's kernels + MPFR: 120 random tensors x roles "
                       "(RHT, 16x16 tiles, software SR), both directions, dequantized");
  SplitMix64 rng(0x4F4);
  mpfr_t acc, term;
  mpfr_inits2(400, acc, term, static_cast<mpfr_ptr>(nullptr));
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t rows = 16 * (1 + rng.below(3)), cols = 16 * (1 + rng.below(4));
    const int e0 = static_cast<int>(rng.below(100)) - 50;
    std::vector<std::uint16_t> xb(rows * cols);
    for (auto& c : xb) {
      const float v = rng.below(12) == 0 ? 0.0f
                                         : std::ldexp(static_cast<float>(static_cast<int>(rng.below(20001)) - 10000),
                                                      e0 - 13 + static_cast<int>(rng.below(8)));
      c = static_cast<std::uint16_t>(fbits(v) >> 16);
      if (trial % 9 == 0 && rng.below(50) == 0) c = 0x7FC0;  // NaN
      if (trial % 13 == 0 && rng.below(60) == 0) c = 0xFF80;  // -Inf
    }
    std::vector<float> x(xb.size());
    for (std::size_t i = 0; i < xb.size(); ++i) x[i] = conformance::bf16_value(xb[i]);
    for (TensorRole role : {TensorRole::input, TensorRole::weight, TensorRole::gradient}) {
      RecipeOptions o;
      o.role = role;
      std::vector<std::uint64_t> rr(x.size()), rc(x.size());
      for (auto& r : rr) r = rng.next();
      for (auto& r : rc) r = rng.next();
      o.rbits_rowwise = rr;
      o.rbits_columnwise = rc;
      const RecipeTensor q = run_bf16("te-nvfp4", rows, cols, xb, o);
      const bool rht = role != TensorRole::weight, tiles = role == TensorRole::weight, sr = role == TensorRole::gradient;
      bool ok = q.random_hadamard == rht && q.tiles_2d == tiles && q.stochastic_rounding == sr;
      std::string why;
      for (int dir = 0; dir < 2 && ok; ++dir) {
        // The direction's input matrix m (R x C).
        std::size_t R = dir == 0 ? rows : cols, C = dir == 0 ? cols : rows;
        std::vector<float> m(x.size());
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t j = 0; j < cols; ++j) (dir == 0 ? m[i * cols + j] : m[j * rows + i]) = x[i * cols + j];
        if (dir == 1 && rht) {
          std::vector<float> h(m.size());
          for (std::size_t g = 0; g < m.size(); g += 16)
            for (int jj = 0; jj < 16; ++jj) {
              mpfr_set_zero(acc, 1);
              bool nan = false;
              for (int k = 0; k < 16; ++k) {
                nan |= std::isnan(m[g + k]);
                mpfr_set_flt(term, m[g + k], MPFR_RNDN);
                if ((((0xD7E8 >> k) & 1) != 0) != ((std::popcount(static_cast<unsigned>(k & jj)) & 1) != 0))
                  mpfr_neg(term, term, MPFR_RNDN);
                mpfr_div_2ui(term, term, 2, MPFR_RNDN);
                mpfr_add(acc, acc, term, MPFR_RNDN);
              }
              if (mpfr_zero_p(acc)) mpfr_set_zero(acc, 1);
              h[g + jj] = nan || mpfr_nan_p(acc) ? kNaN
                                                 : conformance::bf16_value(static_cast<std::uint16_t>(
                                                       oracle::round_value_all(acc, oracle::Fmt::bf16)
                                                           .at(oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after)
                                                           .code));
            }
          m = h;
        }
        const RecipeOutput& out = dir == 0 ? *q.rowwise : *q.columnwise;
        if (out.rows != R || out.cols != C) {
          ok = false;
          why = "shape";
          break;
        }
        float g = 0.0f;
        for (float v : m) g = std::fmax(g, std::fabs(v));
        float s_enc = std::fmin(448.0f * 6.0f / g, FLT_MAX);
        if (g == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
        const float s_dec = 1.0f / s_enc;
        ok = out.amax == fbits(g) && out.tensor_scale == fbits(s_enc) && out.tensor_scale_inv == fbits(s_dec);
        if (!ok) why = "global scale";
        std::vector<std::uint32_t> dq(m.size());
        dequantize_recipe(q, dir == 0 ? RecipeDirection::rowwise : RecipeDirection::columnwise, FormatId::f32, dq.data());
        const std::size_t tile = tiles ? 16 : 1;
        for (std::size_t r0 = 0; ok && r0 < R; r0 += tile)
          for (std::size_t b = 0; ok && b < C / 16; ++b) {
            float bmax = 0.0f;
            for (std::size_t r = r0; r < r0 + tile; ++r)
              for (std::size_t j = 0; j < 16; ++j) bmax = std::fmax(bmax, std::fabs(m[r * C + b * 16 + j]));
            const std::uint8_t sc = conformance::oracle_satfinite(oracle::Fmt::e4m3,
                                                                  std::fmin(bmax * (s_enc * (1.0f / 6.0f)), FLT_MAX));
            const float sdec_b = conformance::oracle_value(oracle::Fmt::e4m3, sc);
            const float mult = std::fmin(1.0f / (sdec_b * s_dec), FLT_MAX);
            const float fs = sdec_b * g * (1.0f / 2688.0f);
            for (std::size_t r = r0; ok && r < r0 + tile; ++r) {
              ok = out.scales[r * (C / 16) + b] == sc && out.multipliers[r * (C / 16) + b] == fbits(mult);
              if (!ok) why = "block scale " + std::to_string(r) + "," + std::to_string(b);
              for (std::size_t j = 0; ok && j < 16; ++j) {
                const std::size_t i = r * C + b * 16 + j;
                const float y = m[i] * mult;
                const std::uint8_t want =
                    sr ? conformance::oracle_satfinite(oracle::Fmt::e2m1, sr_host(y, static_cast<std::uint32_t>((dir == 0 ? rr : rc)[i])))
                       : conformance::oracle_satfinite(oracle::Fmt::e2m1, y);
                ok = out.codes[i] == want;
                const float d = conformance::oracle_value(oracle::Fmt::e2m1, want) * fs;
                ok = ok && (std::isnan(d) ? dq[i] == 0x7FFFFFFFu : dq[i] == fbits(d));
                if (!ok) why = "element " + std::to_string(i);
              }
            }
          }
        if (!ok) why = (dir == 0 ? "rowwise " : "columnwise ") + why;
      }
      t.check(ok, [&] { return "trial " + std::to_string(trial) + " " + std::string(name(role)) + ": " + why; });
    }
  }
  mpfr_clears(acc, term, static_cast<mpfr_ptr>(nullptr));
  t.report();
}

// The reference and the kernel agree on data without NaN, -0 and zero tensors (research
// section 4: those are the only differences without stochastic rounding).
TEST(RecipeNvfp4, ReferenceAgreesWithKernelOnOrdinaryData) {
  conformance::Tally t("te-nvfp4 reference == kernel on ordinary data: 100 random tensors x 1-d/2-d");
  SplitMix64 rng(0x4E7);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t rows = 16 * (1 + rng.below(2)), cols = 16 * (1 + rng.below(3));
    std::vector<float> x(rows * cols);
    for (float& v : x) v = std::ldexp(static_cast<float>(1 + static_cast<int>(rng.below(20000))) * (rng.below(2) ? 1 : -1), static_cast<int>(rng.below(40)) - 30);
    for (bool tiles : {false, true}) {
      RecipeOptions k = plain();
      k.tiles_2d = tiles;
      RecipeOptions r = k;
      r.impl = RecipeImpl::reference;
      const RecipeTensor a = run_f32("te-nvfp4", rows, cols, x, k), b = run_f32("te-nvfp4", rows, cols, x, r);
      t.check(a.rowwise->codes == b.rowwise->codes && a.rowwise->scales == b.rowwise->scales &&
                  a.columnwise->codes == b.columnwise->codes && a.rowwise->tensor_scale == b.rowwise->tensor_scale,
              [&] { return "trial " + std::to_string(trial); });
    }
  }
  t.report();
}

// Compact scale shapes (quantizer.cpp:2767-2792) and the swizzled layout.
TEST(RecipeNvfp4, CompactAndSwizzledScales) {
  std::vector<float> x(32 * 64, 1.0f);
  const RecipeTensor t = run_f32("te-nvfp4", 32, 64, x, plain());
  PaddedScales p = te_compact_scales(t, RecipeDirection::rowwise);
  EXPECT_EQ(p.rows, 128u);  // roundup(M, 128)
  EXPECT_EQ(p.cols, 4u);    // roundup(K / 16, 4)
  p = te_compact_scales(t, RecipeDirection::columnwise);
  EXPECT_EQ(p.rows, 128u);  // roundup(K, 128)
  EXPECT_EQ(p.cols, 4u);    // roundup(M / 16, 4)
  EXPECT_EQ(gemm_swizzled_scales(t, RecipeDirection::columnwise)[swizzled_128x4_index(63, 1, 2)],
            t.columnwise->scales[63 * 2 + 1]);
}

TEST(RecipeNvfp4, OptionsTeRefuses) {
  std::vector<std::uint32_t> x(16 * 16, 0);
  const std::size_t shape[2] = {16, 16};
  const Recipe& r = *find_recipe("te-nvfp4");
  auto why = [&](FormatId src, const RecipeOptions& o, std::span<const std::size_t> s) {
    try {
      quantize_recipe(r, src, x.data(), s, o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // The default role input turns RHT on, which needs bf16 (quantizer.cpp:2632-2634).
  EXPECT_NE(why(FormatId::f32, {}, shape).find("bf16"), std::string::npos);
  const std::size_t bad[2] = {16, 24};
  EXPECT_NE(why(FormatId::f32, plain(), bad).find("divisible by 16"), std::string::npos);
  RecipeOptions g;
  g.role = TensorRole::gradient;
  EXPECT_NE(why(FormatId::bf16, g, shape).find("random value"), std::string::npos);
  std::vector<std::uint64_t> rb(256);
  g.rbits_rowwise = rb;
  g.rbits_columnwise = rb;
  g.impl = RecipeImpl::reference;
  EXPECT_NE(why(FormatId::bf16, g, shape).find("no stochastic rounding"), std::string::npos);
  g.impl = RecipeImpl::kernel;
  EXPECT_EQ(why(FormatId::bf16, g, shape), "no error");
  RecipeOptions f;
  f.fp8_format = Fp8Format::hybrid;
  EXPECT_NE(why(FormatId::bf16, f, shape).find("fp8_format"), std::string::npos);
}

}  // namespace
}  // namespace softmx
