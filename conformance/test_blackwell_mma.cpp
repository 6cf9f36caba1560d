// conformance/test_blackwell_mma.cpp: the Blackwell and Ada tensor-core models
// (blackwell-f8f6f4, blackwell-mxf8f6f4, blackwell-mxf4, blackwell-nvf4, ada-fp8-mma;
// docs/TENSOR_CORES.md 7, docs/research/blackwell-mma.md):
// - the hand-computed cases of research/blackwell-mma.md 9 (A: ST-FDPA, B: GST-FDPA, D: the
//   unscaled forms, G: a Khattak & Mikaitis Ada capture row), each citing its case number;
// - an independent exact oracle (Boost.Multiprecision integers in a 2^-1400 fixed point, values
//   decoded from the code bits here, not by softmx) of each definition: align to the largest
//   exponent (zero terms e_zero), truncate to F fraction bits, sum exactly, RZ to the output
//   grid; random and adversarial cases, 0 mismatches;
// - planted bugs (F - 1, RNE output, no zero exponent, per-group zero rule) that the oracle
//   must catch, with their counts.
#include <gtest/gtest.h>

#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using Big = boost::multiprecision::cpp_int;

// ---- hand cases (research/blackwell-mma.md 9) ---------------------------------------------------

std::uint32_t st(const TensorCoreModel& m, FormatId f, std::vector<std::uint8_t> a, std::vector<std::uint8_t> b,
                 std::uint8_t sa, std::uint8_t sb, std::uint32_t c, std::size_t k = 32) {
  a.resize(k, 0);
  b.resize(k, 0);
  const std::vector<std::uint8_t> vsa(k / 32 ? k / 32 : 1, sa), vsb(vsa.size(), sb);
  return m.mma_scaled(f, a, f, b, FormatId::e8m0, k / vsa.size(), vsa, vsb, FormatId::f32, c).code;
}

TEST(BlackwellMma, StFdpaHandCases) {
  const TensorCoreModel& m = blackwell_mxf8f6f4_model();
  const auto E4 = FormatId::e4m3, E5 = FormatId::e5m2;
  const std::uint8_t one = 0x38;
  EXPECT_EQ(st(m, E4, {one, one, one, one}, {one, one, one, one}, 0x72, 0x73, 0x3F800000), 0x3F800001u);  // case 1
  EXPECT_EQ(st(m, E4, std::vector<std::uint8_t>(8, one), std::vector<std::uint8_t>(8, one), 0x72, 0x72, 0x3F800000),
            0x3F800000u);                                                                                // case 2
  EXPECT_EQ(st(m, E4, {one, one, one}, {one, one, one}, 0x72, 0x73, 0x3F800000), 0x3F800000u);           // case 3
  EXPECT_EQ(st(m, E4, {0xBC}, {one}, 0x72, 0x72, 0x3F800001), 0x3F800001u);                              // case 4
  EXPECT_EQ(st(m, E4, {0x3C, 0xBC}, {0x3C, 0x3C}, 0x7F, 0x7F, 0x33000000), 0x33000000u);                  // case 5
  EXPECT_EQ(st(m, E4, std::vector<std::uint8_t>(32, one), std::vector<std::uint8_t>(32, one), 0x7F, 0x7F, 0x4C800000),
            0x4C800000u);                                                                                // case 6
  EXPECT_EQ(st(m, E4, {one, 0x82}, {one, 0x02}, 0x00, 0x69, 0), 0x00000001u);                            // case 7
  EXPECT_EQ(st(m, E4, {one, 0xA0}, {one, 0x20}, 0x00, 0x69, 0), 0x00000000u);                            // case 8
  EXPECT_EQ(st(m, E4, {}, {}, 0xFF, 0x7F, 0x3F800000), 0x7FFFFFFFu);                                     // case 9
  EXPECT_EQ(st(m, E4, {0x7F}, {one}, 0x7F, 0x7F, 0), 0x7FFFFFFFu);                                       // case 10
  EXPECT_EQ(st(m, E5, {0x7C}, {0x3C}, 0x7F, 0x7F, 0x3F800000), 0x7F800000u);                             // case 11a
  EXPECT_EQ(st(m, E5, {0x7C}, {0x00}, 0x7F, 0x7F, 0x3F800000), 0x7FFFFFFFu);                             // case 11b
  EXPECT_EQ(st(m, E5, {0x7C, 0xFC}, {0x3C, 0x3C}, 0x7F, 0x7F, 0), 0x7FFFFFFFu);                          // case 11c
  EXPECT_EQ(st(m, E4, {one}, {one}, 0x7F, 0x7F, 0x7FC00000), 0x7FFFFFFFu);                               // case 12a
  EXPECT_EQ(st(m, E4, {one}, {one}, 0x7F, 0x7F, 0xFF800000), 0xFF800000u);                               // case 12b
  EXPECT_EQ(st(m, E4, {one}, {one}, 0xE6, 0x7F, 0x7F7FFFFF), 0x7F7FFFFFu);                               // case 13a
  EXPECT_EQ(st(m, E4, {one}, {one}, 0xE7, 0x7F, 0x7F7FFFFF), 0x7F800000u);                               // case 13b
  EXPECT_EQ(st(m, E4, {0x7E}, {0x7E}, 0xFE, 0xFE, 0), 0x7F800000u);                                      // case 14
  EXPECT_EQ(st(m, E5, {0xF0, 0xB8, 0xB4, 0xB0}, {0x64, 0x3C, 0x3C, 0x3C}, 0x7F, 0x7F, 0x4B000000),
            0xBF400000u);  // case 17 (MMA-Sim Table 8)
  // UE4M3 scales are not an mxf8f6f4 form.
  const std::vector<std::uint8_t> z(32, 0), s1(1, 0x38);
  EXPECT_THROW(m.mma_scaled(E4, z, E4, z, FormatId::e4m3, 32, s1, s1, FormatId::f32, 0), std::invalid_argument);
}

struct Gst {
  std::vector<std::uint8_t> a = std::vector<std::uint8_t>(64, 0), b = std::vector<std::uint8_t>(64, 0);
  FormatId sf = FormatId::e8m0;
  std::size_t block = 32;
  std::vector<std::uint8_t> sa, sb;
  Gst(FormatId f, std::size_t blk) : sf(f), block(blk) {
    const std::uint8_t one = f == FormatId::e8m0 ? 0x7F : 0x38;
    sa.assign(64 / blk, one);
    sb.assign(64 / blk, one);
  }
  std::uint32_t run(const TensorCoreModel& m, std::uint32_t c) const {
    return m.mma_scaled(FormatId::e2m1, a, FormatId::e2m1, b, sf, block, sa, sb, FormatId::f32, c).code;
  }
};

TEST(BlackwellMma, GstFdpaHandCases) {
  const TensorCoreModel& mx = blackwell_mxf4_model();
  const TensorCoreModel& nv = blackwell_nvf4_model();
  {  // cases 18a, 18b: +576 and -576 at E = 0 (the scales' exponents), F = 35
    Gst g(FormatId::e8m0, 32);
    for (int k = 0; k < 16; ++k) g.a[k] = 0x7, g.b[k] = 0x7, g.a[16 + k] = 0xF, g.b[16 + k] = 0x7;
    EXPECT_EQ(g.run(mx, 0x2E000000), 0x2E000000u);
    EXPECT_EQ(g.run(mx, 0x2D800000), 0x00000000u);
  }
  {  // case 19: groups summed exactly, each cut as one term
    Gst g(FormatId::e8m0, 16);
    g.a[0] = 0x3, g.b[0] = 0x1, g.a[1] = 0x2, g.b[1] = 0x1;
    g.a[16] = 0x2, g.b[16] = 0x2, g.sa[1] = 0xA2;
    g.a[32] = 0xA, g.b[32] = 0x2, g.sa[2] = 0xA2;
    EXPECT_EQ(g.run(mx, 0), 0x3F800000u);
  }
  {  // case 20: a cancelled group keeps its exponent 40 and cuts C
    Gst g(FormatId::e8m0, 32);
    g.a[0] = 0x7, g.b[0] = 0x7, g.a[1] = 0xF, g.b[1] = 0x7;
    g.sa[0] = g.sb[0] = 0x93;
    EXPECT_EQ(g.run(mx, 0x3F800000), 0x00000000u);
    // case 21: an all-zero group offers -139
    Gst z(FormatId::e8m0, 32);
    z.sa[0] = z.sb[0] = 0x93;
    EXPECT_EQ(z.run(mx, 0x3F800000), 0x3F800000u);
  }
  {  // case 22: a zero UE4M3 scale: an e_zero group of value 0
    Gst g(FormatId::e4m3, 16);
    g.a[0] = 0x7, g.b[0] = 0x7, g.sa[0] = 0x00;
    EXPECT_EQ(g.run(nv, 0x3F800000), 0x3F800000u);
  }
  {  // case 23: the UE4M3 sign bit is dropped
    Gst g(FormatId::e4m3, 16);
    g.a[0] = 0x2, g.b[0] = 0x2, g.sa[0] = 0xB8;
    EXPECT_EQ(g.run(nv, 0), 0x3F800000u);
  }
  {  // cases 24a-c: NaN scales
    Gst g(FormatId::e4m3, 16);
    g.sa[0] = 0x7F;
    EXPECT_EQ(g.run(nv, 0), 0x7FFFFFFFu);
    g.sa[0] = 0xFF;
    EXPECT_EQ(g.run(nv, 0), 0x7FFFFFFFu);
    Gst u(FormatId::e8m0, 32);
    u.sa[0] = 0xFF;
    EXPECT_EQ(u.run(mx, 0), 0x7FFFFFFFu);
  }
  {  // cases 25a, 25b: a subnormal UE4M3 scale aligns at emin -6
    Gst g(FormatId::e4m3, 16);
    g.a[0] = 0x2, g.b[0] = 0x2, g.a[1] = 0xA, g.b[1] = 0x2, g.sa[0] = 0x01;
    EXPECT_EQ(g.run(nv, 0x2A800000), 0x00000000u);
    EXPECT_EQ(g.run(nv, 0x2B000000), 0x2B000000u);
  }
  {  // cases 26a, 26b: the GST floor is -139
    Gst g(FormatId::e8m0, 16);
    g.a[0] = 0x2, g.b[0] = 0x2, g.sa[0] = 0x00, g.sb[0] = 0x69;
    g.a[16] = 0x9, g.b[16] = 0x1, g.sa[1] = 0x00, g.sb[1] = 0x54;
    EXPECT_EQ(g.run(mx, 0), 0x00000000u);
    g.sb[1] = 0x50;
    EXPECT_EQ(g.run(mx, 0), 0x00000001u);
  }
  {  // case 27: a block-32 scale covers groups 0 and 1
    Gst g(FormatId::e8m0, 32);
    g.a[16] = 0x2, g.b[16] = 0x2, g.sa[0] = 0x7E;
    EXPECT_EQ(g.run(mx, 0), 0x3F000000u);
  }
  {  // cases 28a, 28b: C NaN and Inf
    Gst g(FormatId::e8m0, 32);
    g.a[0] = 0x2, g.b[0] = 0x2;
    EXPECT_EQ(g.run(mx, 0x7FC00000), 0x7FFFFFFFu);
    EXPECT_EQ(g.run(mx, 0x7F800000), 0x7F800000u);
  }
  {  // case 29: MMA-Sim Table 8, NVFP4 row (-0.875)
    Gst g(FormatId::e8m0, 16);
    g.a[0] = 0xE, g.b[0] = 0x6, g.sa[0] = 0x8A, g.sb[0] = 0x87;
    g.a[16] = 0xA, g.b[16] = 0x2, g.a[17] = 0xA, g.b[17] = 0x1, g.a[18] = 0x9, g.b[18] = 0x1;
    g.sb[1] = 0x7E;
    EXPECT_EQ(g.run(mx, 0x4B000000), 0xBF600000u);
  }
}

std::uint32_t mma(const TensorCoreModel& m, std::vector<std::uint8_t> a, std::vector<std::uint8_t> b, std::uint32_t c,
                  FormatId f = FormatId::e5m2) {
  a.resize(32, 0);
  b.resize(32, 0);
  return m.mma(f, a, f, b, FormatId::f32, c).code;
}

TEST(BlackwellMma, UnscaledHandCases) {
  const TensorCoreModel &bw = blackwell_f8f6f4_model(), &ada = ada_fp8_mma_model(), &wg = hopper_fp8_wgmma_model();
  const std::vector<std::uint8_t> a30(4, 0x08), b30(4, 0x0C);
  EXPECT_EQ(mma(bw, a30, b30, 0x3F800000), 0x3F800001u);  // case 30: F = 25
  EXPECT_EQ(mma(ada, a30, b30, 0x3F800000), 0x3F800000u);  // case 30: F = 13
  EXPECT_EQ(mma(wg, a30, b30, 0x3F800000), 0x3F800000u);
  std::vector<std::uint8_t> a31(16, 0x20);
  a31.push_back(0x3C);
  EXPECT_EQ(mma(ada, a31, a31, 0), 0x3F802000u);  // case 31: groups of 16 chained
  EXPECT_EQ(mma(bw, a31, a31, 0), 0x3F802000u);
  EXPECT_EQ(mma(wg, a31, a31, 0), 0x3F800000u);
  EXPECT_EQ(mma(ada, {0x3C, 0x3C}, {0x3C, 0x3C}, 0x39C00000), 0x40000400u);  // case 32: e8m13 output
  EXPECT_EQ(mma(bw, {0x3C, 0x3C}, {0x3C, 0x3C}, 0x39C00000), 0x40000600u);
  EXPECT_EQ(mma(bw, {0xF0, 0xB8, 0xB4, 0xB0}, {0x64, 0x3C, 0x3C, 0x3C}, 0x4B000000), 0xBF400000u);  // case 34
  EXPECT_EQ(mma(ada, {0xF0, 0xB8, 0xB4, 0xB0}, {0x64, 0x3C, 0x3C, 0x3C}, 0x4B000000), 0x00000000u);
  // Case 39: Khattak & Mikaitis' Ada E4M3 capture, line 9 (model_validation/Ada/E4M3 at b12b5a7).
  auto hex = [](const char* s) {
    std::vector<std::uint8_t> v;
    for (int i = 0; s[i]; i += 2) v.push_back(static_cast<std::uint8_t>(std::stoul(std::string(s + i, 2), nullptr, 16)));
    return v;
  };
  EXPECT_EQ(mma(ada, hex("373F323DB8C1B5AE38AD37B8B832AF9D2AC299B32EAEB0B5C1B5B3A32E3E3C2B"),
                hex("AF36B0B5B911BF392EA61C33BD3CAAADAE3B2E32A1B2AAB819B9B62228B9B8B7"), 0x3EA00136, FormatId::e4m3),
            0xBF120000u);
}

// ---- the independent oracle --------------------------------------------------------------------

constexpr int kFix = 1400;  // every value is an integer times 2^-kFix

/// A finite value decoded from its bits here (not by softmx): (-1)^neg * n * 2^q with its
/// alignment exponent e = max(floor(log2 |v|), emin).
struct Val {
  bool neg = false;
  Big mag;  // |v| * 2^kFix
  int e = 0;
  bool zero() const { return mag == 0; }
};

Val make(bool neg, std::uint64_t n, int q, int emin) {
  Val v;
  v.neg = neg;
  if (n == 0) return v;
  v.mag = Big(n) << (kFix + q);
  v.e = std::max(static_cast<int>(std::bit_width(n)) - 1 + q, emin);
  return v;
}

/// Minifloat code with `eb` exponent bits, `mb` fraction bits, bias: finite values only.
Val minifloat(std::uint32_t code, int eb, int mb, int bias) {
  const bool neg = (code >> (eb + mb)) & 1;
  const std::uint32_t ef = (code >> mb) & ((1u << eb) - 1), f = code & ((1u << mb) - 1);
  const int emin = 1 - bias;
  if (ef == 0) return make(neg, f, emin - mb, emin);
  return make(neg, (1u << mb) | f, static_cast<int>(ef) - bias - mb, emin);
}

struct Fmt {
  FormatId id;
  int eb, mb, bias;
  bool nanfn;  // e4m3: 0x7F/0xFF is NaN; e5m2: exponent all ones is special
};
const Fmt kE4{FormatId::e4m3, 4, 3, 7, true}, kE5{FormatId::e5m2, 5, 2, 15, false}, kE2M1{FormatId::e2m1, 2, 1, 1, false};

bool special(const Fmt& f, std::uint8_t c) {
  if (f.id == FormatId::e2m1) return false;
  return f.nanfn ? (c & 0x7F) == 0x7F : ((c >> 2) & 0x1F) == 0x1F;
}

Val f32val(std::uint32_t bits) { return minifloat(bits, 8, 23, 127); }

/// |x| truncated to a multiple of 2^Q (toward zero), sign kept.
Big cut(const Val& v, int Q) {
  const int sh = kFix + Q;
  Big m = sh >= 0 ? (v.mag >> sh) << sh : v.mag;
  return v.neg ? Big(-m) : m;
}

/// RZ (or RNE, for planted bugs) of an exact sum (times 2^kFix) onto the f32 grid with
/// `frac` fraction bits, subnormals at 2^(-126 - frac), Inf at 2^128 or more after rounding.
std::uint32_t to_f32(const Big& s, int frac, bool rne = false) {
  if (s == 0) return 0;
  const bool neg = s < 0;
  const Big m = neg ? Big(-s) : s;
  const int msb = static_cast<int>(boost::multiprecision::msb(m)) - kFix;
  const int q = std::max(msb, -126) - frac;
  const int sh = kFix + q;
  Big kept = m >> sh;
  if (rne) {
    const Big rem = m - (kept << sh);
    const Big half = Big(1) << (sh - 1);
    if (rem > half || (rem == half && (kept & 1) != 0)) ++kept;
  }
  if (kept == 0) return neg ? 0x80000000u : 0;
  const double d = std::ldexp(kept.convert_to<double>(), q);
  const float f = static_cast<float>(d);  // exact: kept has at most 24 bits (Inf when >= 2^128)
  std::uint32_t bits = std::bit_cast<std::uint32_t>(std::isinf(d) || std::fabs(d) >= 0x1p128 ? INFINITY : f);
  return bits | (neg ? 0x80000000u : 0);
}

struct OracleSpec {
  int F = 25, frac = 23, ezero = -133;
  bool use_ezero = true, rne = false;
};

/// ST-FDPA: one fused sum of the products (scale exponents added) and C, in runs of L.
std::uint32_t oracle_st(const OracleSpec& o, const Fmt& f, const std::vector<std::uint8_t>& a,
                        const std::vector<std::uint8_t>& b, const std::vector<int>& x, std::uint32_t c, int L) {
  Val acc = f32val(c);
  std::uint32_t out = c;
  for (std::size_t first = 0; first < a.size(); first += static_cast<std::size_t>(L)) {
    std::vector<std::pair<Val, int>> terms;  // value and alignment exponent
    int E = o.use_ezero ? o.ezero : -100000;
    bool any = false;
    if (!acc.zero()) terms.push_back({acc, acc.e}), E = std::max(E, acc.e), any = true;
    for (std::size_t k = first; k < first + static_cast<std::size_t>(L) && k < a.size(); ++k) {
      const Val va = minifloat(a[k], f.eb, f.mb, f.bias), vb = minifloat(b[k], f.eb, f.mb, f.bias);
      if (va.zero() || vb.zero()) continue;
      Val p;
      p.neg = va.neg != vb.neg;
      p.mag = (va.mag * vb.mag) >> kFix;  // exact: products of such values have no bits below 2^-kFix here
      const int xe = x[k];
      p.mag = xe >= 0 ? Big(p.mag << xe) : Big(p.mag >> -xe);
      const int ae = va.e + vb.e + xe;
      terms.push_back({p, ae});
      E = std::max(E, ae);
      any = true;
    }
    Big s = 0;
    if (any)
      for (const auto& t : terms) s += cut(t.first, E - o.F);
    out = s == 0 ? 0u : to_f32(s, o.frac, o.rne);  // (-0 needs C = -0 and -0 products: hand cases)
    if ((out & 0x7F800000u) == 0x7F800000u) return out;
    acc = minifloat(out, 8, 23, 127);
  }
  return out;
}

/// GST-FDPA: groups of 16 summed exactly, times sigma_a sigma_b, aligned at eps_a + eps_b.
std::uint32_t oracle_gst(const OracleSpec& o, bool ue4m3, std::size_t block, const std::vector<std::uint8_t>& a,
                         const std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& sa,
                         const std::vector<std::uint8_t>& sb, std::uint32_t c, bool cancel_keeps = true) {
  auto scale = [&](std::uint8_t code) {
    if (!ue4m3) return make(false, 1, code - 127, -127);
    return minifloat(code & 0x7F, 4, 3, 7);
  };
  Val acc = f32val(c);
  std::uint32_t out = c;
  for (std::size_t first = 0; first < a.size(); first += 64) {
    int E = acc.zero() ? o.ezero : acc.e;
    Big s = 0;
    std::vector<std::pair<Val, int>> terms;
    if (!acc.zero()) terms.push_back({acc, acc.e});
    for (std::size_t g0 = first; g0 < first + 64 && g0 < a.size(); g0 += 16) {
      Val sum;
      Big total = 0;
      bool any = false;
      for (std::size_t k = g0; k < g0 + 16; ++k) {
        const Val va = minifloat(a[k], 2, 1, 1), vb = minifloat(b[k], 2, 1, 1);
        if (va.zero() || vb.zero()) continue;
        any = true;
        const Big p = (va.mag * vb.mag) >> kFix;
        total += va.neg != vb.neg ? Big(-p) : p;
      }
      const Val s_a = scale(sa[g0 / block]), s_b = scale(sb[g0 / block]);
      const bool zero_group = !any || s_a.zero() || s_b.zero() || (!cancel_keeps && total == 0);
      E = std::max(E, zero_group ? o.ezero : s_a.e + s_b.e);
      if (zero_group || total == 0) continue;
      Val t;
      t.neg = total < 0;
      t.mag = (((total < 0 ? Big(-total) : total) * s_a.mag) >> kFix) * s_b.mag >> kFix;
      terms.push_back({t, 0});
    }
    for (const auto& t : terms) s += cut(t.first, E - o.F);
    out = s == 0 ? 0u : to_f32(s, o.frac, o.rne);
    if ((out & 0x7F800000u) == 0x7F800000u) return out;
    acc = minifloat(out, 8, 23, 127);
  }
  return out;
}

TensorCoreModel planted(const TensorCoreModel& m, const char* name, int dF, bool rne, bool no_ezero) {
  TensorCoreParams p = m.params();
  p.name = name;
  p.alignment_bits += dF;
  if (rne) p.f32.mode = Rounding::rne;
  if (no_ezero) p.zero_exponent.reset();
  return TensorCoreModel(p);
}

std::uint8_t draw_code(SplitMix64& rng, const Fmt& f, int zero_pct) {
  for (;;) {
    std::uint8_t c = static_cast<std::uint8_t>(rng.below(f.id == FormatId::e2m1 ? 16 : 256));
    if (static_cast<int>(rng.below(100)) < zero_pct) c &= f.id == FormatId::e2m1 ? 0x8 : 0x80;  // a zero of either sign
    if (!special(f, c)) return c;
  }
}

std::uint32_t draw_c(SplitMix64& rng) {
  switch (rng.below(5)) {
    case 0: return 0;
    case 1: return static_cast<std::uint32_t>(rng.below(0x800000)) | (rng.below(2) ? 0x80000000u : 0);  // subnormal
    case 2: return 0x7F7FFFFFu - static_cast<std::uint32_t>(rng.below(1 << 20));
    default: {
      std::uint32_t v;
      do v = static_cast<std::uint32_t>(rng.next());
      while ((v & 0x7F800000u) == 0x7F800000u);
      return v;
    }
  }
}

TEST(BlackwellMma, StFdpaEqualsTheOracle) {
  conformance::Tally t("blackwell-mxf8f6f4 / f8f6f4 / ada-fp8-mma == exact oracle (random, adversarial)");
  SplitMix64 rng(0xB1AC);
  const TensorCoreModel &mx = blackwell_mxf8f6f4_model(), &ada = ada_fp8_mma_model();
  const TensorCoreModel f24 = planted(mx, "planted-F24", -1, false, false), rne = planted(mx, "planted-rne", 0, true, false),
                        noz = planted(mx, "planted-no-ezero", 0, false, true);
  const TensorCoreModel ada12 = planted(ada, "planted-ada-F12", -1, false, false);
  std::size_t bad_f24 = 0, bad_rne = 0, bad_noz = 0, bad_ada12 = 0;
  const OracleSpec st_spec{25, 23, -133, true, false}, ada_spec{13, 13, -132, true, false};
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const Fmt& f = rng.below(2) ? kE4 : kE5;
    // 0: ordinary; 1: zeros; 2: extreme scales; 3: cancellation; 4: results near 2^-149 (X about
    // -150, C = 0 half the time: the zero exponent's floor decides what is cut)
    const int adv = static_cast<int>(rng.below(5));
    const std::size_t K = rng.below(4) == 0 ? 64 : 32;
    std::vector<std::uint8_t> a(K), b(K), sa(K / 32), sb(K / 32);
    for (std::size_t k = 0; k < K; ++k) a[k] = draw_code(rng, f, adv == 1 ? 80 : 5), b[k] = draw_code(rng, f, adv == 1 ? 80 : 5);
    if (adv == 3)
      for (std::size_t k = 0; k < K / 2; ++k) a[K / 2 + k] = a[k] ^ 0x80, b[K / 2 + k] = b[k];
    for (auto* s : {&sa, &sb})
      for (auto& x : *s)
        x = static_cast<std::uint8_t>(adv == 2 ? (rng.below(3) == 0 ? rng.below(12) : rng.below(2) ? 243 + rng.below(12) : rng.below(255))
                                      : 117 + rng.below(21));
    if (adv == 4)
      for (std::size_t j = 0; j < sa.size(); ++j) sa[j] = static_cast<std::uint8_t>(rng.below(21)), sb[j] = static_cast<std::uint8_t>(80 + rng.below(31));
    const std::uint32_t c = adv == 4 && rng.below(2) ? 0u : draw_c(rng);
    std::vector<int> x(K), zero(K, 0);
    for (std::size_t k = 0; k < K; ++k) x[k] = (sa[k / 32] - 127) + (sb[k / 32] - 127);
    auto got = [&](const TensorCoreModel& m) {
      return m.mma_scaled(f.id, a, f.id, b, FormatId::e8m0, 32, sa, sb, FormatId::f32, c).code;
    };
    const std::uint32_t want = oracle_st(st_spec, f, a, b, x, c, 32);
    const std::uint32_t g = got(mx);
    t.check(g == want, [&] { return "mxf8f6f4 case " + std::to_string(i) + ": " + std::to_string(g) + " want " + std::to_string(want); });
    bad_f24 += got(f24) != want;
    bad_rne += got(rne) != want;
    bad_noz += got(noz) != want;
    // Unscaled: blackwell-f8f6f4 (same arithmetic, scales 1) and Ada (L = 16, F = 13, e8m13).
    const std::uint32_t want_u = oracle_st(st_spec, f, a, b, zero, c, 32);
    const std::uint32_t gu = blackwell_f8f6f4_model().mma(f.id, a, f.id, b, FormatId::f32, c).code;
    t.check(gu == want_u, [&] { return "f8f6f4 case " + std::to_string(i); });
    const std::uint32_t want_a = oracle_st(ada_spec, f, a, b, zero, c, 16);
    const std::uint32_t ga = ada.mma(f.id, a, f.id, b, FormatId::f32, c).code;
    t.check(ga == want_a, [&] { return "ada case " + std::to_string(i) + ": " + std::to_string(ga) + " want " + std::to_string(want_a); });
    bad_ada12 += ada12.mma(f.id, a, f.id, b, FormatId::f32, c).code != want_a;
  }
  t.report();
  std::printf("planted bugs against the oracle (%d cases): F = 24: %zu, RNE output: %zu, no zero exponent: %zu, Ada F = 12: %zu\n",
              n, bad_f24, bad_rne, bad_noz, bad_ada12);
  EXPECT_GT(bad_f24, 100u);
  EXPECT_GT(bad_rne, 100u);
  EXPECT_GT(bad_noz, 0u);
  EXPECT_GT(bad_ada12, 100u);
}

TEST(BlackwellMma, GstFdpaEqualsTheOracle) {
  conformance::Tally t("blackwell-mxf4 / nvf4 == exact oracle (random, adversarial)");
  SplitMix64 rng(0xB1AD);
  const TensorCoreModel& mx = blackwell_mxf4_model();
  const TensorCoreModel f34 = planted(mx, "planted-F34", -1, false, false), rne = planted(mx, "planted-rne", 0, true, false);
  TensorCoreParams p133 = mx.params();
  p133.name = "planted-ezero-133";
  p133.zero_exponent = -133;
  const TensorCoreModel z133(p133);
  std::size_t bad_f34 = 0, bad_rne = 0, bad_z133 = 0, bad_cancel = 0;
  const OracleSpec spec{35, 23, -139, true, false};
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const bool ue4m3 = rng.below(2);
    const std::size_t block = ue4m3 || rng.below(2) ? 16 : 32;
    const int adv = static_cast<int>(rng.below(5));  // as above; 4: UE8M0 eps_a + eps_b about -150
    const std::size_t K = rng.below(4) == 0 ? 128 : 64;
    std::vector<std::uint8_t> a(K), b(K), sa(K / block), sb(K / block);
    for (std::size_t k = 0; k < K; ++k) a[k] = draw_code(rng, kE2M1, adv == 1 ? 85 : 10), b[k] = draw_code(rng, kE2M1, adv == 1 ? 85 : 10);
    if (adv == 3)  // a cancelling group
      for (std::size_t k = 0; k < 8; ++k) a[8 + k] = a[k] ^ 0x8, b[8 + k] = b[k];
    for (auto* s : {&sa, &sb})
      for (auto& x : *s) {
        if (ue4m3) x = static_cast<std::uint8_t>(adv == 2 ? rng.below(256) : 0x30 + rng.below(0x18));
        else x = static_cast<std::uint8_t>(adv == 2 ? (rng.below(2) ? rng.below(12) : 240 + rng.below(15)) : 117 + rng.below(21));
        if (ue4m3 && (x & 0x7F) == 0x7F) x = 0x38;  // NaN scales: hand cases
      }
    if (adv == 3) sa[0] = sb[0] = ue4m3 ? 0x70 : 0x93;  // the cancelling group's scales dominate E (2^14, 2^40)
    if (adv == 4 && !ue4m3)
      for (std::size_t j = 0; j < sa.size(); ++j) sa[j] = static_cast<std::uint8_t>(rng.below(21)), sb[j] = static_cast<std::uint8_t>(80 + rng.below(31));
    const std::uint32_t c = adv == 4 && rng.below(2) ? 0u : draw_c(rng);
    const FormatId sf = ue4m3 ? FormatId::e4m3 : FormatId::e8m0;
    auto got = [&](const TensorCoreModel& m) {
      return m.mma_scaled(FormatId::e2m1, a, FormatId::e2m1, b, sf, block, sa, sb, FormatId::f32, c).code;
    };
    const std::uint32_t want = oracle_gst(spec, ue4m3, block, a, b, sa, sb, c);
    const std::uint32_t g = got(mx);
    t.check(g == want, [&] { return "gst case " + std::to_string(i) + ": " + std::to_string(g) + " want " + std::to_string(want); });
    t.check(got(blackwell_nvf4_model()) == g, [&] { return "nvf4 differs from mxf4, case " + std::to_string(i); });
    bad_f34 += got(f34) != want;
    bad_rne += got(rne) != want;
    bad_z133 += got(z133) != want;
    bad_cancel += oracle_gst(spec, ue4m3, block, a, b, sa, sb, c, false) != want;
  }
  t.report();
  std::printf("planted bugs against the oracle (%d cases): F = 34: %zu, RNE output: %zu, zero exponent -133: %zu; "
              "oracle variant 'cancelled group offers e_zero' differs in %zu\n",
              n, bad_f34, bad_rne, bad_z133, bad_cancel);
  EXPECT_GT(bad_f34, 0u);  // group sums rarely reach 35 bits below E: the hand cases 18b pins F
  EXPECT_GT(bad_rne, 100u);
  // A zero exponent of -133 instead of -139 shows only with bits between 2^-174 and 2^-168:
  // random cases rarely have them (0 here); hand cases 26a/26b pin it.
  EXPECT_GT(bad_cancel, 10u);
}

TEST(BlackwellMma, NamedAndUnconfirmed) {
  for (const char* n : {"blackwell-f8f6f4", "blackwell-mxf8f6f4", "blackwell-mxf4", "blackwell-nvf4"}) {
    const TensorCoreModel* m = find_tensor_core_model(n);
    ASSERT_NE(m, nullptr) << n;
    EXPECT_FALSE(m->params().confirmed) << n;
  }
  // Ada's is confirmed by Khattak & Mikaitis' Ada and L40S captures (test_published_captures).
  EXPECT_TRUE(ada_fp8_mma_model().params().confirmed);
  EXPECT_TRUE(hopper_fp8_wgmma_model().params().confirmed);
  // GST takes e2m1 only, f32 only.
  const std::vector<std::uint8_t> z(64, 0), s(4, 0x7F);
  EXPECT_THROW(blackwell_mxf4_model().mma_scaled(FormatId::e4m3, z, FormatId::e4m3, z, FormatId::e8m0, 16, s, s,
                                                 FormatId::f32, 0),
               std::invalid_argument);
  EXPECT_THROW(blackwell_mxf4_model().mma_scaled(FormatId::e2m1, z, FormatId::e2m1, z, FormatId::e8m0, 16, s, s,
                                                 FormatId::f16, 0),
               std::invalid_argument);
  EXPECT_THROW(blackwell_mxf4_model().mma_scaled(FormatId::e2m1, z, FormatId::e2m1, z, FormatId::e8m0, 16,
                                                 std::span(s).first(3), s, FormatId::f32, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace softmx
