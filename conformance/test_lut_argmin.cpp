// conformance/test_lut_argmin.cpp: the seed-003 MX-FP4 GEMM golden generator (softmx/lut_argmin.hpp,
// the lut-argmin dialect, `softmx gemm-golden --layout lut-argmin`).
//
// "L n" is line n of ../shared/seeds/003_1cfc0588c37cecb0.txt; the hand cases are those of
// docs/research/lut-argmin-golden.md section 8, computed there from the quoted lines. The
// element oracle is Boost.Multiprecision rationals (nearest table value by exact comparison,
// a tie to the smaller magnitude, saturation, zero as +0, NaN as +0), written from the policy
// statement, not from an argmin; the scale oracle is MPFR's correctly rounded log2; the golden
// oracle is an MPFR sum of the decoded files.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <array>
#include <bit>
#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/lut_argmin.hpp"
#include "softmx/prng.hpp"
#include "softmx/scale_layout.hpp"
#include "support/cli_run.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using boost::multiprecision::cpp_rational;
using conformance::Tally;

std::uint32_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }
float fl(std::uint32_t x) { return std::bit_cast<float>(x); }
std::uint8_t idx(LutFormat f, float x) { return lut_argmin_index(f, f32(x)); }
constexpr LutFormat E2 = LutFormat::e2m1, E1 = LutFormat::e1m2;

// One block row (1 x cols) quantized along its last axis.
LutQuantized row(LutFormat f, std::vector<float> v, std::size_t cols = 32) {
  std::vector<std::uint32_t> x(cols, 0);
  for (std::size_t i = 0; i < v.size(); ++i) x[i] = f32(v[i]);
  return lut_argmin_quantize(f, x, 1, cols, 1);
}

// ---- hand cases (research section 8) -------------------------------------------------------------

// Case 1: E2M1 ties go to the lower index, the smaller magnitude (L57-59; LessOrNan keeps the
// first minimum).
TEST(LutArgminHand, Case1E2m1Ties) {
  EXPECT_EQ(idx(E2, 0.75f), 1);  // 0.5 (OCP rne: 1.0)
  EXPECT_EQ(idx(E2, 1.75f), 3);  // 1.5 (rne: 2.0)
  EXPECT_EQ(idx(E2, 3.5f), 5);   // 3.0 (rne: 4.0)
  EXPECT_EQ(idx(E2, 5.0f), 6);   // 4.0
  EXPECT_EQ(idx(E2, 2.5f), 4);   // 2.0
  EXPECT_EQ(idx(E2, 0.25f), 0);  // +0
  EXPECT_EQ(idx(E2, -0.75f), 9);  // -0.5
  EXPECT_EQ(idx(E2, 6.5f), 7);   // clamp (L57) to 6.0
  // The dialect through the ordinary conversion entry point: ocp says 1.0 (0x2), lut-argmin 0.5.
  Context c;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, f32(0.75f), c, ocp_dialect()).code, 0x2u);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, f32(0.75f), c, *find_dialect("lut-argmin")).code, 0x1u);
}

// Case 2: E1M2 ties (L57-59 with the E1M2 table of L19-26).
TEST(LutArgminHand, Case2E1m2Ties) {
  EXPECT_EQ(idx(E1, 0.375f), 1);
  EXPECT_EQ(idx(E1, 0.625f), 2);
  EXPECT_EQ(idx(E1, 0.875f), 3);  // 0.75 (OCP rne: 1.0, code 0x4)
  EXPECT_EQ(idx(E1, 1.125f), 4);
  EXPECT_EQ(idx(E1, 1.375f), 5);
  EXPECT_EQ(idx(E1, 1.625f), 6);
  EXPECT_EQ(idx(E1, 1.8f), 7);  // clamp to 1.75
  EXPECT_EQ(idx(E1, 0.125f), 0);
}

// Case 3: negative values that round to zero, and -0, give index 0 (+0): index 0 and index 8
// (-0.0) are at the same distance and 0 < 8 (L58-59).
TEST(LutArgminHand, Case3NegativeZero) {
  EXPECT_EQ(idx(E2, -0.1f), 0);
  EXPECT_EQ(idx(E2, -0.0f), 0);
  EXPECT_EQ(idx(E2, -0.25f), 0);  // three-way tie 0, 8, 9
  EXPECT_EQ(idx(E1, -0.1f), 0);
  EXPECT_EQ(idx(E1, -0.0f), 0);
  const Dialect& d = *find_dialect("lut-argmin");
  Context c;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0x80000000, c, d).code, 0x0u);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0x80000000, c, ocp_dialect()).code, 0x8u);
  EXPECT_EQ(convert(FormatId::bf16, FormatId::e2m1, 0xBDCD, c, d).code, 0x0u);  // bf16 -0.1
}

// Case 4: NaN gives every distance NaN and index 0; +-Inf are clamped first (L57-59).
TEST(LutArgminHand, Case4NanInf) {
  EXPECT_EQ(lut_argmin_index(E2, 0x7FC00000), 0);
  EXPECT_EQ(lut_argmin_index(E2, 0xFFC00001), 0);
  EXPECT_EQ(lut_argmin_index(E2, 0x7F800000), 7);
  EXPECT_EQ(lut_argmin_index(E2, 0xFF800000), 15);
  EXPECT_EQ(lut_argmin_index(E1, 0x7FC00000), 0);
  EXPECT_EQ(lut_argmin_index(E1, 0x7F800000), 7);
  EXPECT_EQ(lut_argmin_index(E1, 0xFF800000), 15);
}

// Case 5: a simple block (L83-87, L118).
TEST(LutArgminHand, Case5SimpleBlock) {
  const LutQuantized q = row(E2, {1.0f, 0.1875f, -0.375f});
  EXPECT_EQ(q.scales[0], 0x7D);  // amax 1 -> log2 0 -> exp -2 -> 0.25
  EXPECT_EQ(q.scales[1], 0x7F);  // L96-100: nb 1 padded to 2 with 1.0
  EXPECT_EQ(q.index[0], 6);
  EXPECT_EQ(q.index[1], 1);  // 0.75 ties down to 0.5
  EXPECT_EQ(q.index[2], 11);
  EXPECT_EQ(fl(q.dequantized[0]), 1.0f);
  EXPECT_EQ(fl(q.dequantized[1]), 0.125f);
  EXPECT_EQ(fl(q.dequantized[2]), -0.375f);
}

// Case 6: the epsilon edge (L84-85): f32(1e-12) = 0x2B8CBCCC is not below epsilon.
TEST(LutArgminHand, Case6Epsilon) {
  LutQuantized q = row(E2, {fl(0x2B8CBCCC), -5e-13f});
  EXPECT_EQ(q.scales[0], 0x55);  // log2 -39.863 -> -40 - 2 = -42
  EXPECT_EQ(q.index[0], 6);
  EXPECT_EQ(q.index[1], 12);
  q = row(E2, {fl(0x2B8CBCCB), -fl(0x2B8CBCCB)});
  EXPECT_EQ(q.scales[0], 0x7F);  // below epsilon: exp 0
  EXPECT_EQ(q.index[0], 0);
  EXPECT_EQ(q.index[1], 0);
  EXPECT_EQ(q.dequantized[0], 0u);
  EXPECT_EQ(q.dequantized[1], 0u);
}

// Case 7: a NaN block (L83-90): scale NaN (0xFF), indices 0, dequantized NaN.
TEST(LutArgminHand, Case7NanBlock) {
  const LutQuantized q = row(E2, {fl(0x7FC00000), 1.0f, -2.0f});
  EXPECT_EQ(q.scales[0], 0xFF);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(q.index[i], 0);
    EXPECT_TRUE(std::isnan(fl(q.dequantized[i])));
  }
}

// Case 8: an Inf block (L84-86): exponent clamped to 127 (0xFE); Inf -> +-6; others 0.
TEST(LutArgminHand, Case8InfBlock) {
  LutQuantized q = row(E2, {fl(0x7F800000), 1.0f, -3.0f});
  EXPECT_EQ(q.scales[0], 0xFE);
  EXPECT_EQ(q.index[0], 7);
  EXPECT_EQ(q.index[1], 0);
  EXPECT_EQ(q.index[2], 0);
  EXPECT_EQ(q.dequantized[0], 0x7F800000u);  // 6 * 2^127 overflows
  EXPECT_EQ(q.dequantized[1], 0u);
  q = row(E2, {fl(0xFF800000), 5.0f});
  EXPECT_EQ(q.index[0], 15);
  EXPECT_EQ(q.index[1], 0);
  EXPECT_EQ(q.dequantized[0], 0xFF800000u);
}

// Case 9: large finite (L84): 3e38 -> log2 127.82 -> exp 125 (0xFC); 7.05 -> 6.
TEST(LutArgminHand, Case9LargeFinite) {
  const LutQuantized q = row(E2, {3e38f, 1.0f});
  EXPECT_EQ(q.scales[0], 0xFC);
  EXPECT_EQ(q.index[0], 7);
  EXPECT_EQ(fl(q.dequantized[0]), std::ldexp(6.0f, 125));
}

// Case 10 and the section 4 table: the f32 log2 edge (L84).
TEST(LutArgminHand, Case10Log2Edge) {
  LutQuantized q = row(E2, {fl(0x40FFFFFF), -fl(0x40FFFFFF) / 3});
  EXPECT_EQ(q.scales[0], 0x80);  // log2(7.9999995) rounds to 3.0 -> exp 1
  EXPECT_EQ(q.index[0], 6);
  EXPECT_EQ(q.index[1], 11);
  EXPECT_EQ(fl(q.dequantized[0]), 8.0f);
  EXPECT_EQ(fl(q.dequantized[1]), -3.0f);
  EXPECT_EQ(lut_argmin_scale(E2, 0x40FFFFFF, Log2Model::exact).e8m0, 0x7F);
  EXPECT_EQ(lut_argmin_scale(E2, 0x3E7FFFFF).e8m0, 0x7B);
  EXPECT_EQ(lut_argmin_scale(E2, 0x3E7FFFFF, Log2Model::exact).e8m0, 0x7A);
  EXPECT_EQ(lut_argmin_scale(E2, 0x7F7FFFFF).e8m0, 0xFD);
  EXPECT_EQ(lut_argmin_scale(E2, 0x7F7FFFFF, Log2Model::exact).e8m0, 0xFC);
  q = row(E2, {fl(0x7F7FFFFF)});
  EXPECT_EQ(q.dequantized[0], 0x7F800000u);  // 4 * 2^126 = 2^128: +Inf
  EXPECT_EQ(lut_argmin_scale(E1, 0x40FFFFFF).e8m0, 0x82);
  EXPECT_EQ(lut_argmin_scale(E1, 0x40FFFFFF, Log2Model::exact).e8m0, 0x81);
  EXPECT_EQ(lut_argmin_scale(E1, 0x7F7FFFFF).e8m0, 0xFE);  // log2 rounds to 128: clamped 127
  EXPECT_EQ(lut_argmin_scale(E1, 0x7F7FFFFF).exp, 127);
}

std::vector<std::uint8_t> B(std::initializer_list<int> v) { return std::vector<std::uint8_t>(v.begin(), v.end()); }
std::vector<std::uint32_t> F(std::initializer_list<float> v) {
  std::vector<std::uint32_t> r;
  for (float x : v) r.push_back(f32(x));
  return r;
}

// Case 11: a 2x2x2 GEMM byte by byte, all four flag pairs (L134-160).
TEST(LutArgminHand, Case11Gemm2x2x2) {
  const auto a = F({1.0f, -0.75f, 3.5f, 0.1f}), b = F({2.0f, 0.5f, -1.25f, 6.0f});
  struct Want {
    bool ta, tb;
    std::vector<std::uint8_t> a8, b8;
  };
  const Want wants[] = {{false, false, B({0xD6, 0x07}), B({0x16, 0x7C})},
                        {false, true, B({0xD6, 0x07}), B({0xC6, 0x71})},
                        {true, false, B({0x76, 0x0D}), B({0x16, 0x7C})},
                        {true, true, B({0x76, 0x0D}), B({0xC6, 0x71})}};
  for (const Want& w : wants) {
    LutGemmOptions o;
    o.m = o.n = o.k = 2;
    o.trans_a = w.ta;
    o.trans_b = w.tb;
    const LutGemmFiles f = lut_argmin_gemm_golden(a, b, o);
    EXPECT_EQ(f.a_8, w.a8) << w.ta << w.tb;
    EXPECT_EQ(f.b_8, w.b8) << w.ta << w.tb;
    EXPECT_EQ(f.a_scale, B({0x7D, 0x7F, 0x7E, 0x7F}));
    EXPECT_EQ(f.b_scale, B({0x7E, 0x7F, 0x7F, 0x7F}));
    EXPECT_EQ(f.expected, F({2.75f, -4.0f, 6.0f, 1.5f}));  // 00 00 30 40  00 00 80 C0 ...
    EXPECT_EQ(f.f32_sequential, f.expected);
  }
}

// Case 12: the scale order with K = 96 (L96-100, L142-149).
TEST(LutArgminHand, Case12ScaleOrderK96) {
  std::vector<std::uint32_t> a(2 * 96), b(96 * 2);
  for (int i = 0; i < 2; ++i)
    for (int blk = 0; blk < 3; ++blk) a[i * 96 + blk * 32] = f32(std::ldexp(1.0f, 3 * i + blk));
  for (int c = 0; c < 2; ++c)
    for (int blk = 0; blk < 3; ++blk) b[(blk * 32) * 2 + c] = f32(std::ldexp(1.0f, -(3 * c + blk)));
  LutGemmOptions o;
  o.m = o.n = 2;
  o.k = 96;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      o.trans_a = ta;
      o.trans_b = tb;
      const LutGemmFiles f = lut_argmin_gemm_golden(a, b, o);
      EXPECT_EQ(f.a_scale, ta ? B({0x7D, 0x7E, 0x80, 0x81, 0x7F, 0x7F, 0x82, 0x7F})
                              : B({0x7D, 0x7E, 0x7F, 0x7F, 0x80, 0x81, 0x82, 0x7F}));
      EXPECT_EQ(f.b_scale, tb ? B({0x7D, 0x7C, 0x7B, 0x7F, 0x7A, 0x79, 0x78, 0x7F})
                              : B({0x7D, 0x7C, 0x7A, 0x79, 0x7B, 0x7F, 0x78, 0x7F}));
    }
}

// Case 13: odd packing (L64-71): A 3x2.
TEST(LutArgminHand, Case13OddPacking) {
  const auto a = F({1.0f, -0.75f, 3.5f, 0.1f, 0.5f, -6.0f}), b = F({2.0f, 0.5f, -1.25f, 6.0f});
  LutGemmOptions o;
  o.m = 3;
  o.n = o.k = 2;
  LutGemmFiles f = lut_argmin_gemm_golden(a, b, o);
  EXPECT_EQ(f.a_8, B({0xD6, 0x07, 0xF1}));
  EXPECT_EQ(f.a_scale, B({0x7D, 0x7F, 0x7E, 0x7F, 0x7F, 0x7F}));
  o.trans_a = true;
  f = lut_argmin_gemm_golden(a, b, o);
  EXPECT_EQ(f.a_8, B({0x76, 0x01, 0x0D, 0x0F}));
}

// ---- the element oracle: exact rationals ---------------------------------------------------------

cpp_rational exact(std::uint32_t x) {
  const int ef = static_cast<int>((x >> 23) & 0xFF);
  const std::int64_t m = ef ? ((x & 0x7FFFFF) | 0x800000) : (x & 0x7FFFFF);
  const int e = ef ? ef - 150 : -149;
  cpp_rational v = m;
  if (e >= 0) v *= boost::multiprecision::cpp_int(1) << e;
  else v /= boost::multiprecision::cpp_int(1) << -e;
  return (x >> 31) ? cpp_rational(-v) : v;
}

// Round to nearest among the table's values, ties to the smaller magnitude, saturating to +-max;
// zero is +0 (index 0), NaN is +0. Returns the table index of the chosen value.
std::uint8_t oracle_index(LutFormat f, std::uint32_t x) {
  const LutFormatInfo& info = lut_format(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) return 0;
  const bool neg = x >> 31;
  cpp_rational a = (x & 0x7FFFFFFF) == 0x7F800000 ? exact(info.max_bits) : exact(x & 0x7FFFFFFF);
  // The magnitudes 0 < v1 < ... < v7 (indices 0..7), and the nearest with ties down: above the
  // midpoint (v_{i-1} + v_i) / 2 means v_i or larger.
  static const auto mids = [] {
    std::array<std::array<cpp_rational, 8>, 2> m;
    for (LutFormat g : {E2, E1})
      for (int i = 1; i < 8; ++i)
        m[static_cast<int>(g)][i] = (exact(lut_format(g).table[i - 1]) + exact(lut_format(g).table[i])) / 2;
    return m;
  }();
  int best = 0;
  for (int i = 1; i < 8; ++i)
    if (a > mids[static_cast<int>(f)][i]) best = i;
  if (best == 0) return 0;  // zero: always +0
  return static_cast<std::uint8_t>(neg ? best + 8 : best);
}

// Every bf16 input (as f32) for both formats.
TEST(LutArgminElements, EveryBf16InputAgainstRationals) {
  for (LutFormat f : {E2, E1}) {
    Tally t(std::string("lut-argmin ") + std::string(lut_format(f).name) + ": every bf16 input vs rationals");
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
      const std::uint32_t x = h << 16;
      const std::uint8_t got = lut_argmin_index(f, x), want = oracle_index(f, x);
      t.check(got == want, [&] { return "x=0x" + std::to_string(x) + " got " + std::to_string(got) + " want " + std::to_string(want); });
    }
    t.report();
  }
}

// Every f32 within 2^12 ulps of each table midpoint, entry and the clamp bound, both signs.
TEST(LutArgminElements, F32NearMidpointsAgainstRationals) {
  for (LutFormat f : {E2, E1}) {
    const LutFormatInfo& info = lut_format(f);
    std::vector<float> centres;
    for (int i = 0; i < 8; ++i) {
      centres.push_back(fl(info.table[i]));
      if (i) centres.push_back((fl(info.table[i - 1]) + fl(info.table[i])) / 2);  // exact
    }
    centres.push_back(2 * fl(info.max_bits));
    Tally t(std::string("lut-argmin ") + std::string(info.name) + ": f32 within 4096 ulps of every midpoint and entry");
    for (float c : centres)
      for (std::uint32_t sign : {0u, 0x80000000u})
        for (int d = -4096; d <= 4096; ++d) {
          const std::int64_t b = static_cast<std::int64_t>(f32(c)) + d;
          if (b < 0) continue;
          const std::uint32_t x = static_cast<std::uint32_t>(b) | sign;
          const std::uint8_t got = lut_argmin_index(f, x), want = oracle_index(f, x);
          t.check(got == want, [&] { return "x=" + std::to_string(x) + " got " + std::to_string(got) + " want " + std::to_string(want); });
        }
    t.report();
  }
}

// The literal argmin of L57-59 with the script's own f32 distances (host f32 here: the test
// transcribes the script, it is not the library), against the core's E2M1 path and the library's
// E1M2 table, on every bf16 input and 2^20 random f32.
std::uint8_t script_argmin(LutFormat f, std::uint32_t x) {
  const LutFormatInfo& info = lut_format(f);
  const float mx = fl(info.max_bits);
  float c = fl(x);
  if (!std::isnan(c)) c = std::min(std::max(c, -mx), mx);
  int best = 0;
  float bd = std::fabs(c - fl(info.table[0]));
  for (int i = 1; i < 16; ++i) {
    const float d = std::fabs(c - fl(info.table[i]));
    if (std::isnan(bd)) break;                       // LessOrNan: the first NaN wins
    if (std::isnan(d) || d < bd) bd = d, best = i;   // a NaN beats a number
  }
  return static_cast<std::uint8_t>(best);
}
TEST(LutArgminElements, ScriptTranscription) {
  SplitMix64 rng(15);
  for (LutFormat f : {E2, E1}) {
    Tally t(std::string("lut-argmin ") + std::string(lut_format(f).name) + ": script's f32 argmin transcription");
    auto one = [&](std::uint32_t x) {
      t.check(lut_argmin_index(f, x) == script_argmin(f, x), [&] { return "x=" + std::to_string(x); });
    };
    for (std::uint32_t h = 0; h < 0x10000; ++h) one(h << 16);
    for (int i = 0; i < (1 << 20); ++i) {
      const std::uint32_t r = static_cast<std::uint32_t>(rng.next());
      one((r & 0x80FFFFFF) | ((0x78u + (r >> 24) % 12) << 23));  // |x| in [2^-7, 2^5): the table's range
    }
    t.report();
  }
}

// ---- the scale: MPFR's correctly rounded log2 -----------------------------------------------------

// floor(RN_f32(log2 x)) by MPFR.
// (|log2 x| is normal in f32, so rounding it to 24 bits is RN_f32.)
int mpfr_floor_log2_f32(std::uint32_t x) { return conformance::mpfr_floor_log2(static_cast<double>(fl(x)), 24); }

// The 4148 edge values of research section 4 (the 60 f32 below each 2^k, k = -39..128), and the
// values above each 2^k, against MPFR; the count of values one binade up must be 4148.
TEST(LutArgminScale, Log2EdgesAgainstMpfr) {
  Tally t("lut-argmin scale: floor(f32 log2) at 2^k - j ulp, k = -39..128 vs MPFR");
  std::uint64_t up = 0;
  for (int k = -39; k <= 128; ++k)
    for (std::uint32_t j = 1; j <= 60; ++j)
      for (int side : {-1, 0, 1}) {
        const std::uint32_t p = static_cast<std::uint32_t>(k + 127) << 23;  // 2^k (k = 128: Inf bits)
        const std::uint32_t x = side < 0 ? p - j : p + j - 1;
        if (side > 0 && k == 128) continue;
        if (side == 0 && j > 1) continue;
        if (x < 0x2B8CBCCC || x >= 0x7F800000) continue;
        const int want = mpfr_floor_log2_f32(x);
        const LutScale s = lut_argmin_scale(E2, x);
        t.check(s.exp == std::clamp(want - 2, -128, 127), [&] { return "amax=" + std::to_string(x); });
        if (side < 0 && want == k) ++up;
      }
  t.report();
  EXPECT_EQ(up, 4148u);
}

TEST(LutArgminScale, RandomAmaxAgainstMpfr) {
  Tally t("lut-argmin scale: 200000 random amax vs MPFR (both formats, both log2 models)");
  SplitMix64 rng(3);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t x = 0x2B8CBCCC + static_cast<std::uint32_t>(rng.below(0x7F800000 - 0x2B8CBCCC));
    const int fr = mpfr_floor_log2_f32(x), fe = static_cast<int>(x >> 23) - 127;
    for (LutFormat f : {E2, E1}) {
      const int emax = lut_format(f).emax;
      const LutScale r = lut_argmin_scale(f, x), e = lut_argmin_scale(f, x, Log2Model::exact);
      t.check(r.exp == std::min(fr - emax, 127) && r.e8m0 == r.exp + 127 && e.exp == fe - emax,
              [&] { return "amax=" + std::to_string(x); });
    }
  }
  // Below epsilon, zero, Inf, NaN (L84-87).
  for (std::uint32_t x : {0u, 1u, 0x2B8CBCCBu})
    t.check(lut_argmin_scale(E2, x).e8m0 == 0x7F && lut_argmin_scale(E2, x).exp == 0, [&] { return "tiny " + std::to_string(x); });
  t.check(lut_argmin_scale(E2, 0x7F800000).e8m0 == 0xFE, [] { return std::string("inf"); });
  t.check(lut_argmin_scale(E2, 0x7FC00000).e8m0 == 0xFF && lut_argmin_scale(E2, 0x7FC00000).nan, [] { return std::string("nan"); });
  t.report();
}

// ---- the files, decoded back ---------------------------------------------------------------------

// Reads index (r, c) of a packed rows x cols matrix (L62-72).
std::uint8_t nibble(const std::vector<std::uint8_t>& p, std::size_t cols, std::size_t r, std::size_t c) {
  const std::uint8_t byte = p[r * ((cols + 1) / 2) + c / 2];
  return (c & 1) ? byte >> 4 : byte & 0xF;
}

// RN_f32 of the exact sum of products of f32 values, by MPFR (precision enough for any sum here).
std::uint32_t mpfr_dot(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::size_t m,
                       std::size_t n, std::size_t k, std::size_t i, std::size_t j) {
  mpfr_t s, p, x;
  mpfr_inits2(2000, s, p, x, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(s, 1);
  for (std::size_t t = 0; t < k; ++t) {
    mpfr_set_flt(p, fl(a[i * k + t]), MPFR_RNDN);
    mpfr_set_flt(x, fl(b[t * n + j]), MPFR_RNDN);
    mpfr_mul(p, p, x, MPFR_RNDN);
    mpfr_add(s, s, p, MPFR_RNDN);
  }
  (void)m;
  const float r = mpfr_get_flt(s, MPFR_RNDN);  // normal results here: one rounding
  mpfr_clears(s, p, x, static_cast<mpfr_ptr>(nullptr));
  return f32(r);
}

TEST(LutArgminFiles, DecodeBack) {
  Tally t("lut-argmin files: decoded back (shapes x flags x formats) vs inputs, scales, MPFR golden");
  struct Shape {
    std::size_t m, n, k;
  };
  const Shape shapes[] = {{3, 5, 33}, {4, 7, 64}, {5, 3, 97}, {1, 1, 1}, {2, 9, 130}, {6, 4, 32}, {3, 3, 7}};
  for (const Shape& s : shapes)
    for (LutFormat fa : {E2, E1})
      for (LutFormat fb : {E2, E1})
        for (bool ta : {false, true})
          for (bool tb : {false, true}) {
            const LutGemmOptions o{.m = s.m, .n = s.n, .k = s.k, .trans_a = ta, .trans_b = tb, .a = fa, .b = fb};
            const std::vector<std::uint32_t> ab = gemm_golden_inputs(s.m * 1000 + s.k, s.m * s.k + s.k * s.n);
            const std::vector<std::uint32_t> A(ab.begin(), ab.begin() + static_cast<long>(s.m * s.k)),
                B(ab.begin() + static_cast<long>(s.m * s.k), ab.end());
            const LutGemmFiles f = lut_argmin_gemm_golden(A, B, o);
            const std::size_t nb = (s.k + 31) / 32, nbe = nb + (nb & 1);
            const std::string tag = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                    (ta ? " ta" : "") + (tb ? " tb" : "");
            t.check(f.a_8.size() == (ta ? s.k * ((s.m + 1) / 2) : s.m * ((s.k + 1) / 2)) &&
                        f.b_8.size() == (tb ? s.n * ((s.k + 1) / 2) : s.k * ((s.n + 1) / 2)) &&
                        f.a_scale.size() == s.m * nbe && f.b_scale.size() == s.n * nbe,
                    [&] { return tag + ": file sizes"; });
            const auto sa = decode_paired(f.a_scale, s.m, nb, PairedOperand::a, ta);
            const auto sb = decode_paired(f.b_scale, nb, s.n, PairedOperand::b, tb);
            // Every padding scale byte is 0x7F (L96-100): count them in the raw file.
            std::size_t pads = 0;
            for (std::uint8_t v : f.a_scale) pads += v == 0x7F;
            t.check(nb % 2 == 0 || pads >= s.m, [&] { return tag + ": a_scale padding"; });
            // Elements: decoded index and scale give the dequantized value (L90), and each is the
            // oracle's index of x / scale.
            for (std::size_t i = 0; i < s.m; ++i)
              for (std::size_t c = 0; c < s.k; ++c) {
                const std::uint8_t ix = ta ? nibble(f.a_8, s.m, c, i) : nibble(f.a_8, s.k, i, c);
                const int se = sa[i * nb + c / 32] - 127;
                const float want = std::ldexp(fl(lut_format(fa).table[ix]), se);
                const std::uint8_t oi = oracle_index(fa, f32(std::ldexp(fl(A[i * s.k + c]), -se)));
                t.check(f.a_dequantized[i * s.k + c] == f32(want) && ix == oi, [&] { return tag + ": A element"; });
              }
            for (std::size_t r = 0; r < s.k; ++r)
              for (std::size_t c = 0; c < s.n; ++c) {
                const std::uint8_t ix = tb ? nibble(f.b_8, s.k, c, r) : nibble(f.b_8, s.n, r, c);
                const int se = sb[(r / 32) * s.n + c] - 127;
                const float want = std::ldexp(fl(lut_format(fb).table[ix]), se);
                const std::uint8_t oi = oracle_index(fb, f32(std::ldexp(fl(B[r * s.n + c]), -se)));
                t.check(f.b_dequantized[r * s.n + c] == f32(want) && ix == oi, [&] { return tag + ": B element"; });
              }
            // Odd rows end in a zero high nibble (L64-68).
            const std::size_t a_cols = ta ? s.m : s.k;
            if (a_cols % 2)
              for (std::size_t r = 0; r < (ta ? s.k : s.m); ++r)
                t.check((f.a_8[r * ((a_cols + 1) / 2) + a_cols / 2] >> 4) == 0, [&] { return tag + ": odd pad"; });
            // The golden: the exact sum, by MPFR; and the sequential f32 model equals it whenever
            // K fits one block (research section 7: exact in any order).
            for (std::size_t i = 0; i < s.m; ++i)
              for (std::size_t j = 0; j < s.n; ++j) {
                t.check(f.expected[i * s.n + j] == mpfr_dot(f.a_dequantized, f.b_dequantized, s.m, s.n, s.k, i, j),
                        [&] { return tag + ": expected"; });
                if (s.k <= 32)
                  t.check(f.f32_sequential[i * s.n + j] == f.expected[i * s.n + j], [&] { return tag + ": sequential"; });
              }
          }
  t.report();
}

// A sum that is not exact in f32: the sequential model rounds at each step, the exact one once.
TEST(LutArgminFiles, SequentialModelRoundsEachStep) {
  // 1 + 2^-24 + 2^-24: sequentially 1 (each half-ulp tie goes to even), exactly 1 + 2^-23.
  const std::vector<std::uint32_t> a = F({1.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -24)}), b = F({1.0f, 1.0f, 1.0f});
  EXPECT_EQ(fl(lut_argmin_matmul(a, b, 1, 1, 3, LutGemmModel::f32_sequential)[0]), 1.0f);
  EXPECT_EQ(fl(lut_argmin_matmul(a, b, 1, 1, 3, LutGemmModel::exact)[0]), 1.0f + std::ldexp(1.0f, -23));
}

// ---- the command line ----------------------------------------------------------------------------

std::vector<std::uint8_t> file_bytes(const std::string& p) {
  const std::string s = testing::slurp(p);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}
std::vector<std::uint8_t> le(const std::vector<std::uint32_t>& v) {
  std::vector<std::uint8_t> r;
  for (std::uint32_t x : v)
    for (int i = 0; i < 4; ++i) r.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
  return r;
}

TEST(LutArgminCli, FilesEqualTheLibrary) {
  const std::string dir = testing::scratch_dir("lut_argmin") + "/out";
  for (const char* fa : {"e2m1", "e1m2"}) {
    const auto r = testing::run_cli(std::string("gemm-golden --layout lut-argmin --m 3 --n 5 --k 33 --trans-a 1 --trans-b 0 --a ") +
                                    fa + " --seed 7 -o '" + dir + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    LutGemmOptions o;
    o.m = 3;
    o.n = 5;
    o.k = 33;
    o.trans_a = true;
    o.a = *parse_lut_format(fa);
    const auto ab = gemm_golden_inputs(7, 3 * 33 + 33 * 5);
    const std::vector<std::uint32_t> A(ab.begin(), ab.begin() + 99), B(ab.begin() + 99, ab.end());
    const LutGemmFiles f = lut_argmin_gemm_golden(A, B, o);
    EXPECT_EQ(file_bytes(dir + "/data/input/a_8.bin"), f.a_8);
    EXPECT_EQ(file_bytes(dir + "/data/input/b_8.bin"), f.b_8);
    EXPECT_EQ(file_bytes(dir + "/data/input/a_scale.bin"), f.a_scale);
    EXPECT_EQ(file_bytes(dir + "/data/input/b_scale.bin"), f.b_scale);
    EXPECT_EQ(file_bytes(dir + "/data/golden/expected_data.bin"), le(f.expected));
    EXPECT_EQ(file_bytes(dir + "/data/golden/expected_f32_sequential.bin"), le(f.f32_sequential));
    EXPECT_EQ(file_bytes(dir + "/data/golden/a_f32.bin"), le(A));
    EXPECT_NE(testing::slurp(dir + "/data/golden/manifest.txt").find("a_format = " + std::string(fa)), std::string::npos);
  }
  // The inputs are gemm-golden's own stream: the default layout's a_f32.bin holds the same values.
  const std::string d2 = testing::scratch_dir("lut_argmin") + "/plain";
  const auto r = testing::run_cli("gemm-golden --m 3 --n 5 --k 33 --seed 7 --out '" + d2 + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ab = gemm_golden_inputs(7, 3 * 33 + 33 * 5);
  EXPECT_EQ(file_bytes(d2 + "/a_f32.bin"), le(std::vector<std::uint32_t>(ab.begin(), ab.begin() + 99)));
  EXPECT_EQ(file_bytes(d2 + "/b_f32.bin"), le(std::vector<std::uint32_t>(ab.begin() + 99, ab.end())));
}

TEST(LutArgminCli, BadArguments) {
  const std::string dir = testing::scratch_dir("lut_argmin") + "/bad";
  struct Bad {
    std::string args, says;
  };
  const Bad bad[] = {{"--trans-a 2", "--trans-a expects 0 or 1"},
                     {"--a e4m3", "--a expects e2m1 or e1m2"},
                     {"--log2 fast", "--log2 expects rounded or exact"},
                     {"--m 0", "--m"},
                     {"--block 16", "unknown option --block"}};
  for (const Bad& b : bad) {
    const auto r = testing::run_cli("gemm-golden --layout lut-argmin " + b.args + " -o '" + dir + "'");
    EXPECT_EQ(r.status, 2) << b.args;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << b.args << ": " << r.err;
  }
  auto r = testing::run_cli("gemm-golden --layout lut-argmin --m 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing -o DIR"), std::string::npos) << r.err;
  r = testing::run_cli("gemm-golden --layout swizzled -o '" + dir + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("expected lut-argmin"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace softmx
