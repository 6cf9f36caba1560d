// Self-check of the MPFR oracle against hand-computed expectations taken from
// docs/SEMANTICS.md and the OFP8 / OCP MX tables (FIELD-GUIDE sections 1-2).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "oracles/mpfr_oracle.hpp"

namespace o = softmx::oracle;
using o::Fmt;
using o::Mode;
using o::Outcome;
using o::Policies;
using o::Sat;
using o::Tiny;

namespace {

constexpr uint8_t X = 0x01, U = 0x02, O = 0x04, V = 0x10;

uint64_t f32b(float v) { return std::bit_cast<uint32_t>(v); }
uint64_t f64b(double v) { return std::bit_cast<uint64_t>(v); }

Outcome R(uint64_t code, uint8_t flags) { return Outcome{code, flags}; }

// One conversion of an f32 value.
Outcome cv(float v, Fmt dst, Mode m = Mode::rne, Sat s = Sat::finite, Tiny t = Tiny::after,
           const Policies& p = {}) {
  return o::convert(Fmt::f32, dst, f32b(v), m, s, t, p);
}

// Same outcome in every mode, saturation and tininess?
void expect_all(const o::AllOutcomes& a, Outcome want, const char* what) {
  for (int m = 0; m < o::kModeCount; ++m)
    for (int s = 0; s < 2; ++s)
      for (int t = 0; t < 2; ++t) EXPECT_EQ(a.r[m][s][t], want) << what << " mode " << m << " sat " << s << " tiny " << t;
}

struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, 256); }
  ~Mp() { mpfr_clear(v); }
};

double dec(Fmt f, uint64_t c) {
  Mp m;
  EXPECT_TRUE(o::decode(f, c, m.v)) << o::fmt_name(f) << " " << c;
  return mpfr_get_d(m.v, MPFR_RNDN);  // all tested values are doubles exactly
}

}  // namespace

namespace softmx::oracle {
void PrintTo(const Outcome& r, std::ostream* os) {
  char b[64];
  std::snprintf(b, sizeof b, "{code 0x%llx flags 0x%02x}", (unsigned long long)r.code, r.flags);
  *os << b;
}
}  // namespace softmx::oracle

// ------------------------------------------------------------------ names, widths

TEST(OracleSelf, NamesAndWidths) {
  const char* names[] = {"f64", "f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0"};
  const int widths[] = {64, 32, 16, 16, 8, 8, 6, 6, 4, 8, 8};
  for (int i = 0; i < o::kFmtCount; ++i) {
    auto f = o::fmt_from_name(names[i]);
    ASSERT_TRUE(f.has_value()) << names[i];
    EXPECT_EQ((int)*f, i);
    EXPECT_EQ(o::fmt_name(*f), names[i]);
    EXPECT_EQ(o::width(*f), widths[i]);
  }
  EXPECT_FALSE(o::fmt_from_name("E4M3").has_value());
  EXPECT_FALSE(o::fmt_from_name("fp8").has_value());
  EXPECT_FALSE(o::fmt_from_name("").has_value());
}

// ------------------------------------------------------------------ decoding

TEST(OracleSelf, DecodeAnchors) {
  // max finite, min normal, min subnormal (SEMANTICS table 1).
  EXPECT_EQ(dec(Fmt::f64, 0x7FEFFFFFFFFFFFFFull), std::numeric_limits<double>::max());
  EXPECT_EQ(dec(Fmt::f64, 0x0010000000000000ull), std::ldexp(1.0, -1022));
  EXPECT_EQ(dec(Fmt::f64, 1), std::ldexp(1.0, -1074));
  EXPECT_EQ(dec(Fmt::f32, 0x7F7FFFFF), (double)std::numeric_limits<float>::max());
  EXPECT_EQ(dec(Fmt::f32, 0x00800000), std::ldexp(1.0, -126));
  EXPECT_EQ(dec(Fmt::f32, 0x00000001), std::ldexp(1.0, -149));
  EXPECT_EQ(dec(Fmt::f16, 0x7BFF), 65504.0);
  EXPECT_EQ(dec(Fmt::f16, 0x0400), std::ldexp(1.0, -14));
  EXPECT_EQ(dec(Fmt::f16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(dec(Fmt::f16, 0x3C00), 1.0);
  EXPECT_EQ(dec(Fmt::f16, 0xC000), -2.0);
  EXPECT_EQ(dec(Fmt::bf16, 0x7F7F), std::ldexp(2.0 - std::ldexp(1.0, -7), 127));
  EXPECT_EQ(dec(Fmt::bf16, 0x0080), std::ldexp(1.0, -126));
  EXPECT_EQ(dec(Fmt::bf16, 0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(dec(Fmt::bf16, 0x3F80), 1.0);
  EXPECT_EQ(dec(Fmt::e4m3, 0x7E), 448.0);
  EXPECT_EQ(dec(Fmt::e4m3, 0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(dec(Fmt::e4m3, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(dec(Fmt::e4m3, 0x38), 1.0);
  EXPECT_EQ(dec(Fmt::e4m3, 0xFE), -448.0);
  EXPECT_EQ(dec(Fmt::e5m2, 0x7B), 57344.0);
  EXPECT_EQ(dec(Fmt::e5m2, 0x04), std::ldexp(1.0, -14));
  EXPECT_EQ(dec(Fmt::e5m2, 0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(dec(Fmt::e5m2, 0x3C), 1.0);
  EXPECT_EQ(dec(Fmt::e3m2, 0x1F), 28.0);
  EXPECT_EQ(dec(Fmt::e3m2, 0x04), 0.25);
  EXPECT_EQ(dec(Fmt::e3m2, 0x01), 0.0625);
  EXPECT_EQ(dec(Fmt::e2m3, 0x1F), 7.5);
  EXPECT_EQ(dec(Fmt::e2m3, 0x08), 1.0);
  EXPECT_EQ(dec(Fmt::e2m3, 0x01), 0.125);
  EXPECT_EQ(dec(Fmt::e2m1, 0x7), 6.0);
  EXPECT_EQ(dec(Fmt::e2m1, 0x2), 1.0);
  EXPECT_EQ(dec(Fmt::e2m1, 0x1), 0.5);
  EXPECT_EQ(dec(Fmt::int8, 0x7F), 127.0 / 64);
  EXPECT_EQ(dec(Fmt::int8, 0x01), 1.0 / 64);
  EXPECT_EQ(dec(Fmt::int8, 0x80), -2.0);
  EXPECT_EQ(dec(Fmt::int8, 0x81), -127.0 / 64);
  EXPECT_EQ(dec(Fmt::int8, 0xFF), -1.0 / 64);
  EXPECT_EQ(dec(Fmt::e8m0, 0xFE), std::ldexp(1.0, 127));
  EXPECT_EQ(dec(Fmt::e8m0, 0x7F), 1.0);
  EXPECT_EQ(dec(Fmt::e8m0, 0x00), std::ldexp(1.0, -127));  // never zero
}

TEST(OracleSelf, DecodeSpecialsAndZeros) {
  Mp m;
  // NaN codes
  for (uint64_t c : {0x7Full, 0xFFull}) {
    EXPECT_TRUE(o::is_nan_code(Fmt::e4m3, c));
    EXPECT_FALSE(o::decode(Fmt::e4m3, c, m.v));
  }
  for (uint64_t c : {0x7Dull, 0x7Eull, 0x7Full, 0xFDull, 0xFEull, 0xFFull}) EXPECT_TRUE(o::is_nan_code(Fmt::e5m2, c));
  EXPECT_FALSE(o::is_nan_code(Fmt::e5m2, 0x7C));
  EXPECT_TRUE(o::is_nan_code(Fmt::e8m0, 0xFF));
  EXPECT_FALSE(o::is_nan_code(Fmt::e8m0, 0xFE));
  EXPECT_TRUE(o::is_nan_code(Fmt::f16, 0x7C01));
  EXPECT_TRUE(o::is_nan_code(Fmt::f16, 0xFE00));
  EXPECT_FALSE(o::is_nan_code(Fmt::f16, 0x7C00));
  EXPECT_TRUE(o::is_nan_code(Fmt::bf16, 0x7FC0));
  EXPECT_TRUE(o::is_nan_code(Fmt::f32, 0x7F800001));
  EXPECT_TRUE(o::is_nan_code(Fmt::f64, 0x7FF8000000000000ull));
  EXPECT_FALSE(o::is_nan_code(Fmt::f64, 0x7FF0000000000000ull));
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::int8})
    for (uint64_t c = 0; c < (1u << o::width(f)); ++c) EXPECT_FALSE(o::is_nan_code(f, c));
  // Inf
  ASSERT_TRUE(o::decode(Fmt::e5m2, 0xFC, m.v));
  EXPECT_TRUE(mpfr_inf_p(m.v) && mpfr_signbit(m.v));
  ASSERT_TRUE(o::decode(Fmt::f16, 0x7C00, m.v));
  EXPECT_TRUE(mpfr_inf_p(m.v) && !mpfr_signbit(m.v));
  // signed zeros
  struct Z {
    Fmt f;
    uint64_t pos, neg;
  } zs[] = {{Fmt::f64, 0, 1ull << 63}, {Fmt::f32, 0, 0x80000000}, {Fmt::f16, 0, 0x8000}, {Fmt::bf16, 0, 0x8000},
            {Fmt::e4m3, 0, 0x80},      {Fmt::e5m2, 0, 0x80},         {Fmt::e3m2, 0, 0x20},   {Fmt::e2m3, 0, 0x20},
            {Fmt::e2m1, 0, 0x8}};
  for (auto z : zs) {
    ASSERT_TRUE(o::decode(z.f, z.pos, m.v));
    EXPECT_TRUE(mpfr_zero_p(m.v) && !mpfr_signbit(m.v)) << o::fmt_name(z.f);
    ASSERT_TRUE(o::decode(z.f, z.neg, m.v));
    EXPECT_TRUE(mpfr_zero_p(m.v) && mpfr_signbit(m.v)) << o::fmt_name(z.f);
  }
  ASSERT_TRUE(o::decode(Fmt::int8, 0, m.v));
  EXPECT_TRUE(mpfr_zero_p(m.v) && !mpfr_signbit(m.v));
}

// Every code of the 4- and 6-bit formats against the value lists of the OCP MX spec.
TEST(OracleSelf, DecodeSmallFormatsTables) {
  const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  const double e3m2[32] = {0,    0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, 0.5, 0.625, 0.75,
                           0.875, 1,     1.25,  1.5,    1.75, 2,      2.5,   3,      3.5, 4,     5,
                           6,    7,      8,     10,     12,   14,     16,    20,     24,  28};
  const double e2m3[32] = {0,     0.125, 0.25, 0.375, 0.5,  0.625, 0.75, 0.875, 1,    1.125, 1.25,
                           1.375, 1.5,   1.625, 1.75, 1.875, 2,    2.25,  2.5,  2.75,  3,    3.25,
                           3.5,   3.75,  4,    4.5,   5,    5.5,   6,    6.5,   7,    7.5};
  for (int c = 0; c < 16; ++c) EXPECT_EQ(dec(Fmt::e2m1, c), (c & 8 ? -1 : 1) * e2m1[c & 7]) << c;
  for (int c = 0; c < 64; ++c) {
    EXPECT_EQ(dec(Fmt::e3m2, c), (c & 32 ? -1 : 1) * e3m2[c & 31]) << c;
    EXPECT_EQ(dec(Fmt::e2m3, c), (c & 32 ? -1 : 1) * e2m3[c & 31]) << c;
  }
}

// Every code of the 8-bit formats against the OFP8 / MX definitions written out per field.
TEST(OracleSelf, DecodeEightBitFormats) {
  for (int c = 0; c < 256; ++c) {
    int s = c >> 7, E4 = (c >> 3) & 15, M3 = c & 7, E5 = (c >> 2) & 31, M2 = c & 3;
    double sg = s ? -1 : 1;
    if ((c & 0x7F) != 0x7F) {
      double v = E4 ? std::ldexp(1 + M3 / 8.0, E4 - 7) : std::ldexp(M3 / 8.0, -6);
      EXPECT_EQ(dec(Fmt::e4m3, c), sg * v) << c;
    }
    if (E5 != 31) {
      double v = E5 ? std::ldexp(1 + M2 / 4.0, E5 - 15) : std::ldexp(M2 / 4.0, -14);
      EXPECT_EQ(dec(Fmt::e5m2, c), sg * v) << c;
    }
    EXPECT_EQ(dec(Fmt::int8, c), (double)(int8_t)c / 64.0) << c;
    if (c != 255) {
      EXPECT_EQ(dec(Fmt::e8m0, c), std::ldexp(1.0, c - 127)) << c;
    }
  }
}

TEST(OracleSelf, DecodeMatchesHostFloatAndDouble) {
  Mp m;
  for (uint64_t c = 0; c < (1ull << 32); c += 65521) {
    float fv;
    uint32_t c32 = (uint32_t)c;
    std::memcpy(&fv, &c32, 4);
    if (std::isnan(fv)) continue;
    ASSERT_TRUE(o::decode(Fmt::f32, c, m.v));
    EXPECT_EQ(mpfr_get_d(m.v, MPFR_RNDN), (double)fv) << c;
    EXPECT_EQ(mpfr_signbit(m.v) != 0, std::signbit(fv));
  }
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double dv = std::bit_cast<double>(s);
    if (std::isnan(dv)) continue;
    ASSERT_TRUE(o::decode(Fmt::f64, s, m.v));
    EXPECT_EQ(mpfr_get_d(m.v, MPFR_RNDN), dv);
  }
  // bf16 is the top half of f32.
  for (uint64_t c = 0; c < 65536; ++c) {
    uint32_t c32 = (uint32_t)c << 16;
    float fv;
    std::memcpy(&fv, &c32, 4);
    if (std::isnan(fv)) continue;
    ASSERT_TRUE(o::decode(Fmt::bf16, c, m.v));
    EXPECT_EQ(mpfr_get_d(m.v, MPFR_RNDN), (double)fv) << c;
  }
}

// Every representable value converts to itself, exactly, in every mode (own encoder vs own
// decoder), for every format; Inf codes follow 5.6.
TEST(OracleSelf, RoundTripEveryNarrowCode) {
  Mp m;
  for (Fmt f : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::int8, Fmt::e8m0}) {
    const uint64_t n = 1ull << o::width(f);
    for (uint64_t c = 0; c < n; ++c) {
      if (o::is_nan_code(f, c)) continue;
      ASSERT_TRUE(o::decode(f, c, m.v));
      auto a = o::round_value_all(m.v, f);
      auto b = o::convert_all(f, f, c);
      if (mpfr_inf_p(m.v)) {
        uint64_t maxc = (f == Fmt::f16 ? 0x7BFF : f == Fmt::bf16 ? 0x7F7F : 0x7B) | (c & (n >> 1));
        for (int md = 0; md < o::kModeCount; ++md) {
          EXPECT_EQ(a.at((Mode)md, Sat::none, Tiny::after), R(c, 0));
          EXPECT_EQ(a.at((Mode)md, Sat::finite, Tiny::before), R(maxc, V));
        }
      } else if (f == Fmt::int8 && c == 0x80) {
        expect_all(a, R(0x81, O | X), "int8 -2 without minus2");
        Policies p;
        p.int8_minus2 = true;
        expect_all(o::round_value_all(m.v, f, p), R(0x80, 0), "int8 -2 with minus2");
      } else {
        expect_all(a, R(c, 0), o::fmt_name(f).data());
      }
      for (int md = 0; md < o::kModeCount; ++md)
        for (int s = 0; s < 2; ++s)
          for (int t = 0; t < 2; ++t) EXPECT_EQ(a.r[md][s][t], b.r[md][s][t]) << o::fmt_name(f) << " " << c;
    }
  }
}

TEST(OracleSelf, ElementToWideIsExact) {
  // e4m3 0x01 = 2^-9 -> f32 0x3B000000; e2m1 6 -> f32 0x40C00000; int8 0x80 -> -2.
  expect_all(o::convert_all(Fmt::e4m3, Fmt::f32, 0x01), R(0x3B000000, 0), "e4m3->f32");
  expect_all(o::convert_all(Fmt::e4m3, Fmt::f32, 0xFE), R(0xC3E00000, 0), "e4m3->f32 -448");
  expect_all(o::convert_all(Fmt::e2m1, Fmt::f32, 0x7), R(0x40C00000, 0), "e2m1->f32");
  expect_all(o::convert_all(Fmt::int8, Fmt::f32, 0x80), R(0xC0000000, 0), "int8->f32");
  expect_all(o::convert_all(Fmt::int8, Fmt::bf16, 0x81), R(0xBFFE, 0), "int8->bf16");
  expect_all(o::convert_all(Fmt::e8m0, Fmt::f32, 0x00), R(0x00400000, 0), "e8m0 0 -> f32 subnormal");
  expect_all(o::convert_all(Fmt::e8m0, Fmt::bf16, 0x00), R(0x0040, 0), "e8m0 0 -> bf16 subnormal");
  expect_all(o::convert_all(Fmt::e8m0, Fmt::f64, 0xFE), R(0x47E0000000000000ull, 0), "e8m0 max -> f64");
  expect_all(o::convert_all(Fmt::e5m2, Fmt::f16, 0x01), R(0x0100, 0), "e5m2 2^-16 -> f16");
  expect_all(o::convert_all(Fmt::e5m2, Fmt::f16, 0xFB), R(0xFB00, 0), "e5m2 -> f16 -57344");
  expect_all(o::convert_all(Fmt::f16, Fmt::f64, 0x0001), R(0x3E70000000000000ull, 0), "f16 -> f64 2^-24");
  expect_all(o::convert_all(Fmt::bf16, Fmt::f32, 0x0001), R(0x00010000, 0), "bf16 -> f32");
}

// ------------------------------------------------------------------ OFP8 table 3

TEST(OracleSelf, Ofp8Table3) {
  const float inf = std::numeric_limits<float>::infinity();
  const float qnan = std::bit_cast<float>(0x7FC00000u);
  for (Sat s : {Sat::finite, Sat::none}) {
    // NaN -> NaN
    EXPECT_EQ(cv(qnan, Fmt::e4m3, Mode::rne, s), R(0x7F, 0));
    EXPECT_EQ(cv(qnan, Fmt::e5m2, Mode::rne, s), R(0x7E, 0));
    // below min subnormal -> +-0 (underflow, inexact)
    EXPECT_EQ(cv(std::ldexp(1.f, -20), Fmt::e4m3, Mode::rne, s), R(0x00, U | X));
    EXPECT_EQ(cv(-std::ldexp(1.f, -20), Fmt::e4m3, Mode::rne, s), R(0x80, U | X));
    EXPECT_EQ(cv(std::ldexp(1.f, -20), Fmt::e5m2, Mode::rne, s), R(0x00, U | X));
    EXPECT_EQ(cv(-std::ldexp(1.f, -20), Fmt::e5m2, Mode::rne, s), R(0x80, U | X));
  }
  // +-Inf
  EXPECT_EQ(cv(inf, Fmt::e5m2, Mode::rne, Sat::finite), R(0x7B, V));
  EXPECT_EQ(cv(-inf, Fmt::e5m2, Mode::rne, Sat::finite), R(0xFB, V));
  EXPECT_EQ(cv(inf, Fmt::e5m2, Mode::rne, Sat::none), R(0x7C, 0));
  EXPECT_EQ(cv(-inf, Fmt::e5m2, Mode::rne, Sat::none), R(0xFC, 0));
  EXPECT_EQ(cv(inf, Fmt::e4m3, Mode::rne, Sat::finite), R(0x7E, V));
  EXPECT_EQ(cv(-inf, Fmt::e4m3, Mode::rne, Sat::finite), R(0xFE, V));
  EXPECT_EQ(cv(inf, Fmt::e4m3, Mode::rne, Sat::none), R(0x7F, V));
  EXPECT_EQ(cv(-inf, Fmt::e4m3, Mode::rne, Sat::none), R(0xFF, V));
  // abs > max
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::rne, Sat::finite), R(0x7B, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e5m2, Mode::rne, Sat::finite), R(0xFB, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::rne, Sat::none), R(0x7C, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e5m2, Mode::rne, Sat::none), R(0xFC, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e4m3, Mode::rne, Sat::finite), R(0x7E, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e4m3, Mode::rne, Sat::finite), R(0xFE, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e4m3, Mode::rne, Sat::none), R(0x7F, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e4m3, Mode::rne, Sat::none), R(0xFF, O | X));
}

TEST(OracleSelf, E4m3OverflowBoundary) {
  for (Sat s : {Sat::finite, Sat::none}) {
    EXPECT_EQ(cv(448.f, Fmt::e4m3, Mode::rne, s), R(0x7E, 0));
    EXPECT_EQ(cv(464.f, Fmt::e4m3, Mode::rne, s), R(0x7E, X));  // tie to even 448
    EXPECT_EQ(cv(-464.f, Fmt::e4m3, Mode::rne, s), R(0xFE, X));
    EXPECT_EQ(cv(463.f, Fmt::e4m3, Mode::rne, s), R(0x7E, X));
  }
  EXPECT_EQ(cv(465.f, Fmt::e4m3, Mode::rne, Sat::finite), R(0x7E, O | X));
  EXPECT_EQ(cv(465.f, Fmt::e4m3, Mode::rne, Sat::none), R(0x7F, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e4m3, 0x43F00000, Mode::rne, Sat::finite, Tiny::after), R(0x7E, O | X));  // 480
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e4m3, 0x43F00000, Mode::rne, Sat::none, Tiny::after), R(0x7F, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e4m3, 0x43F00000, Mode::rz, Sat::none, Tiny::after), R(0x7E, O | X));
  // rna: 464 goes to the virtual 480 and overflows
  EXPECT_EQ(cv(464.f, Fmt::e4m3, Mode::rna, Sat::none), R(0x7F, O | X));
  EXPECT_EQ(cv(464.f, Fmt::e4m3, Mode::rna, Sat::finite), R(0x7E, O | X));
  // ro: 450 -> N0 0x7E OR 1 = 0x7F overflows; ro's column is max finite
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::ro, Sat::finite), R(0x7E, O | X));
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::ro, Sat::none), R(0x7E, O | X));
  EXPECT_EQ(cv(-450.f, Fmt::e4m3, Mode::ro, Sat::none), R(0xFE, O | X));
  // directed
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::rz, Sat::none), R(0x7E, X));
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::rd, Sat::none), R(0x7E, X));
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::ru, Sat::none), R(0x7F, O | X));
  EXPECT_EQ(cv(-450.f, Fmt::e4m3, Mode::ru, Sat::none), R(0xFE, X));
  EXPECT_EQ(cv(-450.f, Fmt::e4m3, Mode::rd, Sat::none), R(0xFF, O | X));
  EXPECT_EQ(cv(450.f, Fmt::e4m3, Mode::ru, Sat::finite), R(0x7E, O | X));
}

TEST(OracleSelf, E5m2Overflow) {
  EXPECT_EQ(cv(61440.f, Fmt::e5m2, Mode::rne, Sat::none), R(0x7C, O | X));
  EXPECT_EQ(cv(61440.f, Fmt::e5m2, Mode::rne, Sat::finite), R(0x7B, O | X));
  EXPECT_EQ(cv(61439.f, Fmt::e5m2, Mode::rne, Sat::none), R(0x7B, X));
  EXPECT_EQ(cv(-61440.f, Fmt::e5m2, Mode::rne, Sat::none), R(0xFC, O | X));
  // IEEE 754 7.4 columns, saturation none
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::rz, Sat::none), R(0x7B, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::ru, Sat::none), R(0x7C, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::rd, Sat::none), R(0x7B, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::ro, Sat::none), R(0x7B, O | X));
  EXPECT_EQ(cv(1e6f, Fmt::e5m2, Mode::rna, Sat::none), R(0x7C, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e5m2, Mode::ru, Sat::none), R(0xFB, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e5m2, Mode::rd, Sat::none), R(0xFC, O | X));
  EXPECT_EQ(cv(-1e6f, Fmt::e5m2, Mode::rz, Sat::none), R(0xFB, O | X));
  // f16 / f32 destinations
  EXPECT_EQ(cv(65520.f, Fmt::f16, Mode::rne, Sat::none), R(0x7C00, O | X));  // tie 65504 (odd) / 65536
  EXPECT_EQ(cv(65519.f, Fmt::f16, Mode::rne, Sat::none), R(0x7BFF, X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(std::numeric_limits<double>::max()), Mode::rne, Sat::none, Tiny::after),
            R(0x7F800000, O | X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(-std::numeric_limits<double>::max()), Mode::rne, Sat::finite, Tiny::after),
            R(0xFF7FFFFF, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x7F7FFFFF, Mode::rne, Sat::none, Tiny::after), R(0x7F80, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x7F7FFFFF, Mode::rz, Sat::none, Tiny::after), R(0x7F7F, X));
}

// ------------------------------------------------------------------ the small formats

TEST(OracleSelf, E2m1Rounding) {
  EXPECT_EQ(cv(0.25f, Fmt::e2m1), R(0x0, U | X));  // tie to even zero
  EXPECT_EQ(cv(-0.25f, Fmt::e2m1), R(0x8, U | X));
  EXPECT_EQ(cv(0.25f, Fmt::e2m1, Mode::rna), R(0x1, U | X));
  EXPECT_EQ(cv(0.75f, Fmt::e2m1), R(0x2, U | X));  // tie 0.5 (odd) / 1.0 (even); 0.75 is tiny either way
  EXPECT_EQ(cv(0.75f, Fmt::e2m1, Mode::rne, Sat::finite, Tiny::before), R(0x2, U | X));
  EXPECT_EQ(cv(5.f, Fmt::e2m1), R(0x6, X));  // 4.0
  EXPECT_EQ(cv(5.f, Fmt::e2m1, Mode::rna), R(0x7, X));  // 6.0
  EXPECT_EQ(cv(-5.f, Fmt::e2m1), R(0xE, X));
  EXPECT_EQ(cv(2.5f, Fmt::e2m1), R(0x4, X));
  EXPECT_EQ(cv(1.25f, Fmt::e2m1), R(0x2, X));
  EXPECT_EQ(cv(1.75f, Fmt::e2m1), R(0x4, X));
  EXPECT_EQ(cv(2.5f, Fmt::e2m1, Mode::ru), R(0x5, X));
  EXPECT_EQ(cv(2.5f, Fmt::e2m1, Mode::rd), R(0x4, X));
  EXPECT_EQ(cv(2.5f, Fmt::e2m1, Mode::rz), R(0x4, X));
  EXPECT_EQ(cv(2.5f, Fmt::e2m1, Mode::ro), R(0x5, X));
  EXPECT_EQ(cv(-2.5f, Fmt::e2m1, Mode::ru), R(0xC, X));
  EXPECT_EQ(cv(-2.5f, Fmt::e2m1, Mode::rd), R(0xD, X));
  EXPECT_EQ(cv(-2.5f, Fmt::e2m1, Mode::rz), R(0xC, X));
  EXPECT_EQ(cv(-2.5f, Fmt::e2m1, Mode::ro), R(0xD, X));
  EXPECT_EQ(cv(0.1f, Fmt::e2m1, Mode::ro), R(0x1, U | X));  // never rounds to zero
  EXPECT_EQ(cv(0.1f, Fmt::e2m1, Mode::ru), R(0x1, U | X));
  EXPECT_EQ(cv(0.1f, Fmt::e2m1, Mode::rd), R(0x0, U | X));
  EXPECT_EQ(cv(-0.1f, Fmt::e2m1, Mode::rd), R(0x9, U | X));
  // no Inf, no NaN: overflow always clamps
  for (int m = 0; m < o::kModeCount; ++m)
    for (Sat s : {Sat::finite, Sat::none}) {
      EXPECT_EQ(cv(100.f, Fmt::e2m1, (Mode)m, s), R(0x7, O | X)) << m;
      EXPECT_EQ(cv(-100.f, Fmt::e2m1, (Mode)m, s), R(0xF, O | X)) << m;
    }
  // 7 lies between 6 (code 7, odd) and the virtual 8 (even)
  for (Sat s : {Sat::finite, Sat::none}) {
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::rne, s), R(0x7, O | X));
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::rna, s), R(0x7, O | X));
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::ru, s), R(0x7, O | X));
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::rz, s), R(0x7, X));
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::rd, s), R(0x7, X));
    EXPECT_EQ(cv(7.f, Fmt::e2m1, Mode::ro, s), R(0x7, X));
    EXPECT_EQ(cv(-7.f, Fmt::e2m1, Mode::rd, s), R(0xF, O | X));
    EXPECT_EQ(cv(-7.f, Fmt::e2m1, Mode::ru, s), R(0xF, X));
  }
  EXPECT_EQ(cv(6.5f, Fmt::e2m1), R(0x7, X));  // nearer 6 than 8
  EXPECT_EQ(cv(6.5f, Fmt::e2m1, Mode::ru), R(0x7, O | X));
}

TEST(OracleSelf, Fp6Rounding) {
  // e3m2: 30 ties 28 (0x1F, odd) and the virtual 32 (even): overflow under rne
  EXPECT_EQ(cv(30.f, Fmt::e3m2), R(0x1F, O | X));
  EXPECT_EQ(cv(-30.f, Fmt::e3m2), R(0x3F, O | X));
  EXPECT_EQ(cv(29.f, Fmt::e3m2), R(0x1F, X));
  EXPECT_EQ(cv(26.f, Fmt::e3m2), R(0x1E, X));  // tie 24 (even) / 28
  EXPECT_EQ(cv(0.03125f, Fmt::e3m2), R(0x00, U | X));  // half the min subnormal: tie to 0
  EXPECT_EQ(cv(0.09375f, Fmt::e3m2), R(0x02, U | X));  // 1.5 min subnormal -> 2 (even)
  // 0.234375 = 3.75/16 -> 0.25 (min normal); unbounded it is 1.875*2^-3, which ties to 2*2^-3 = 0.25: not
  // tiny after rounding, tiny before.
  EXPECT_EQ(cv(0.234375f, Fmt::e3m2), R(0x04, X));
  EXPECT_EQ(cv(0.234375f, Fmt::e3m2, Mode::rne, Sat::finite, Tiny::before), R(0x04, U | X));
  EXPECT_EQ(cv(0.234375f, Fmt::e3m2, Mode::rz, Sat::finite, Tiny::after), R(0x03, U | X));
  // e2m3: 7.75 ties 7.5 (0x1F, odd) and the virtual 8: overflow; 7.7 -> 7.5
  EXPECT_EQ(cv(7.75f, Fmt::e2m3), R(0x1F, O | X));
  EXPECT_EQ(cv(7.7f, Fmt::e2m3), R(0x1F, X));
  EXPECT_EQ(cv(7.75f, Fmt::e2m3, Mode::rz, Sat::none), R(0x1F, X));
  EXPECT_EQ(cv(0.0625f, Fmt::e2m3), R(0x00, U | X));
  EXPECT_EQ(cv(0.1875f, Fmt::e2m3), R(0x02, U | X));
  EXPECT_EQ(cv(0.9375f, Fmt::e2m3), R(0x08, X | U));
}

// ------------------------------------------------------------------ e8m0

TEST(OracleSelf, E8m0Ties) {
  EXPECT_EQ(cv(3.f, Fmt::e8m0), R(0x80, X));  // between 2 (0x80) and 4 (0x81): even code
  EXPECT_EQ(cv(6.f, Fmt::e8m0), R(0x82, X));  // between 4 (0x81) and 8 (0x82)
  EXPECT_EQ(cv(1.5f, Fmt::e8m0), R(0x80, X)); // between 1 (0x7F) and 2 (0x80)
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::rna), R(0x81, X));
  EXPECT_EQ(cv(2.9f, Fmt::e8m0), R(0x80, X));
  EXPECT_EQ(cv(3.1f, Fmt::e8m0), R(0x81, X));
  Policies up;
  up.e8m0_ties_up = true;
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::rne, Sat::finite, Tiny::after, up), R(0x81, X));
  EXPECT_EQ(cv(6.f, Fmt::e8m0, Mode::rne, Sat::finite, Tiny::after, up), R(0x82, X));
  // directed and odd
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::rz), R(0x80, X));
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::rd), R(0x80, X));
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::ru), R(0x81, X));
  EXPECT_EQ(cv(3.f, Fmt::e8m0, Mode::ro), R(0x81, X));  // 4 has the odd code
  EXPECT_EQ(cv(5.f, Fmt::e8m0, Mode::ro), R(0x81, X));  // 4 again (8 is 0x82)
  EXPECT_EQ(cv(4.f, Fmt::e8m0, Mode::ro), R(0x81, 0));
  EXPECT_EQ(cv(1.f, Fmt::e8m0), R(0x7F, 0));
}

TEST(OracleSelf, E8m0Specials) {
  const float inf = std::numeric_limits<float>::infinity();
  // zero: clamp_min -> 0x00 with underflow|inexact in every mode; policy nan -> 0xFF invalid
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0), R(0x00, U | X), "e8m0 +0");
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0x80000000), R(0x00, U | X), "e8m0 -0");
  Policies bn;
  bn.e8m0_below_nan = true;
  // Zero has its own knob: below = nan alone leaves zero at 0x00.
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0, bn), R(0x00, U | X), "e8m0 0 below nan, zero min");
  Policies zn;
  zn.e8m0_zero_nan = true;
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0, zn), R(0xFF, V), "e8m0 0 zero nan");
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0x00200000, zn), R(0x00, U | X), "e8m0 2^-128 zero nan only");
  // ml_dtypes / PyTorch: (2^-127, 2^-126) rounds up to 0x01 under rne; exactly 2^-127 stays.
  Policies lb;
  lb.e8m0_lowest_binade_rounds_up = true;
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x00400001, Mode::rne, Sat::finite, Tiny::after, lb), R(0x01, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x00500000, Mode::rne, Sat::finite, Tiny::after, lb), R(0x01, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x00500000, Mode::rne, Sat::finite, Tiny::after), R(0x00, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x00400000, Mode::rne, Sat::finite, Tiny::after, lb), R(0x00, 0));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x00500000, Mode::rz, Sat::finite, Tiny::after, lb), R(0x00, X));
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0x00200000, bn), R(0xFF, V), "e8m0 2^-128 below nan");
  // negative
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, f32b(-1.f)), R(0xFF, V), "e8m0 -1");
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, f32b(-inf)), R(0xFF, V), "e8m0 -inf");
  Policies mag;
  mag.e8m0_negative_magnitude = true;
  EXPECT_EQ(cv(-1.f, Fmt::e8m0, Mode::rne, Sat::finite, Tiny::after, mag), R(0x7F, V));
  EXPECT_EQ(cv(-3.f, Fmt::e8m0, Mode::rz, Sat::finite, Tiny::after, mag), R(0x80, V | X));
  EXPECT_EQ(cv(-3.f, Fmt::e8m0, Mode::ru, Sat::finite, Tiny::after, mag), R(0x81, V | X));  // |x| rounded up
  EXPECT_EQ(cv(-3.f, Fmt::e8m0, Mode::rd, Sat::finite, Tiny::after, mag), R(0x80, V | X));
  EXPECT_EQ(cv(-inf, Fmt::e8m0, Mode::rne, Sat::finite, Tiny::after, mag), R(0xFE, V));
  EXPECT_EQ(cv(-inf, Fmt::e8m0, Mode::rne, Sat::none, Tiny::after, mag), R(0xFF, V));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x80200000, Mode::rne, Sat::finite, Tiny::after, mag), R(0x00, V | U | X));
  // Inf
  EXPECT_EQ(cv(inf, Fmt::e8m0, Mode::rne, Sat::finite), R(0xFE, V));
  EXPECT_EQ(cv(inf, Fmt::e8m0, Mode::rz, Sat::none), R(0xFF, V));
  // NaN (quiet, unsigned)
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0xFFC00000), R(0xFF, 0), "e8m0 nan");
  expect_all(o::convert_all(Fmt::f32, Fmt::e8m0, 0x7F800001), R(0xFF, V), "e8m0 snan");
  // below 2^-127 (clamp_min): 0x00; underflow per 5.3
  const uint64_t x128 = 0x00200000;   // 2^-128
  const uint64_t x15 = 0x00300000;    // 1.5 * 2^-128
  const uint64_t x14 = 0x00280000;    // 1.25 * 2^-128
  for (int m = 0; m < o::kModeCount; ++m)
    for (Sat s : {Sat::finite, Sat::none}) {
      EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x128, (Mode)m, s, Tiny::after), R(0x00, U | X));
      EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x128, (Mode)m, s, Tiny::before), R(0x00, U | X));
      EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, (Mode)m, s, Tiny::before), R(0x00, U | X));
    }
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::rne, Sat::finite, Tiny::after), R(0x00, X));  // not tiny after
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::rna, Sat::finite, Tiny::after), R(0x00, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::ru, Sat::finite, Tiny::after), R(0x00, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::rz, Sat::finite, Tiny::after), R(0x00, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::rd, Sat::finite, Tiny::after), R(0x00, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x15, Mode::ro, Sat::finite, Tiny::after), R(0x00, U | X));  // 2^-128: code -1 is odd
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x14, Mode::rne, Sat::finite, Tiny::after), R(0x00, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, x14, Mode::ru, Sat::finite, Tiny::after), R(0x00, X));
  // top of the range
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F400000, Mode::rne, Sat::none, Tiny::after), R(0xFE, X));  // 1.5*2^127 ties to even 0xFE
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F600000, Mode::rne, Sat::none, Tiny::after), R(0xFF, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F600000, Mode::rne, Sat::finite, Tiny::after), R(0xFE, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F600000, Mode::rz, Sat::none, Tiny::after), R(0xFE, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F000001, Mode::ru, Sat::none, Tiny::after), R(0xFF, O | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F000001, Mode::ro, Sat::none, Tiny::after), R(0xFE, O | X));  // 2^128 has the odd code
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::e8m0, 0x7F000001, Mode::rd, Sat::none, Tiny::after), R(0xFE, X));
}

TEST(OracleSelf, E8m0ToF16) {
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x6F, Mode::rne, Sat::none, Tiny::after), R(0x0100, 0));  // 2^-16, exact subnormal
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x67, Mode::rne, Sat::none, Tiny::after), R(0x0001, 0));  // 2^-24
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x66, Mode::rne, Sat::none, Tiny::after), R(0x0000, U | X));  // 2^-25: tie to 0
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x66, Mode::rna, Sat::none, Tiny::after), R(0x0001, U | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x66, Mode::ru, Sat::none, Tiny::after), R(0x0001, U | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x00, Mode::ru, Sat::none, Tiny::after), R(0x0001, U | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x00, Mode::rd, Sat::none, Tiny::after), R(0x0000, U | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x8E, Mode::rne, Sat::none, Tiny::after), R(0x7800, 0));  // 2^15
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x8F, Mode::rne, Sat::none, Tiny::after), R(0x7C00, O | X));  // 2^16
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x8F, Mode::rne, Sat::finite, Tiny::after), R(0x7BFF, O | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0x8F, Mode::rz, Sat::none, Tiny::after), R(0x7BFF, O | X));
  EXPECT_EQ(o::convert(Fmt::e8m0, Fmt::f16, 0xFF, Mode::rne, Sat::none, Tiny::after), R(0x7E00, 0));
}

// ------------------------------------------------------------------ int8

TEST(OracleSelf, Int8) {
  Policies m2;
  m2.int8_minus2 = true;
  EXPECT_EQ(cv(1.f, Fmt::int8), R(0x40, 0));
  EXPECT_EQ(cv(-1.f, Fmt::int8), R(0xC0, 0));
  EXPECT_EQ(cv(-0.f, Fmt::int8), R(0x00, 0));
  EXPECT_EQ(cv(0.001f, Fmt::int8), R(0x00, X));  // never underflow
  EXPECT_EQ(cv(-0.001f, Fmt::int8), R(0x00, X));
  EXPECT_EQ(cv(0.001f, Fmt::int8, Mode::rne, Sat::finite, Tiny::before), R(0x00, X));
  EXPECT_EQ(cv(0.001f, Fmt::int8, Mode::ru), R(0x01, X));
  EXPECT_EQ(cv(-0.001f, Fmt::int8, Mode::rd), R(0xFF, X));
  EXPECT_EQ(cv(3.f / 128, Fmt::int8), R(0x02, X));   // 1.5/64 -> 2/64 (even)
  EXPECT_EQ(cv(5.f / 128, Fmt::int8), R(0x02, X));   // 2.5/64 -> 2/64
  EXPECT_EQ(cv(-5.f / 128, Fmt::int8), R(0xFE, X));
  EXPECT_EQ(cv(-1.99f, Fmt::int8), R(0x81, X));
  // -2 knob
  for (Sat s : {Sat::finite, Sat::none}) {
    EXPECT_EQ(cv(-2.f, Fmt::int8, Mode::rne, s), R(0x81, O | X));
    EXPECT_EQ(cv(-2.f, Fmt::int8, Mode::rne, s, Tiny::after, m2), R(0x80, 0));
    EXPECT_EQ(cv(-3.f, Fmt::int8, Mode::rne, s, Tiny::after, m2), R(0x80, O | X));
    EXPECT_EQ(cv(-3.f, Fmt::int8, Mode::rne, s), R(0x81, O | X));
    EXPECT_EQ(cv(2.f, Fmt::int8, Mode::rne, s, Tiny::after, m2), R(0x7F, O | X));
    EXPECT_EQ(cv(2.f, Fmt::int8, Mode::rz, s), R(0x7F, O | X));
    EXPECT_EQ(cv(255.f / 128, Fmt::int8, Mode::rne, s), R(0x7F, O | X));  // 127.5/64 ties to 128 (even) -> overflow
    EXPECT_EQ(cv(-255.f / 128, Fmt::int8, Mode::rne, s), R(0x81, O | X));
    EXPECT_EQ(cv(-255.f / 128, Fmt::int8, Mode::rne, s, Tiny::after, m2), R(0x80, X));
    EXPECT_EQ(cv(-255.f / 128, Fmt::int8, Mode::rz, s, Tiny::after, m2), R(0x81, X));
    EXPECT_EQ(cv(-255.f / 128, Fmt::int8, Mode::ro, s, Tiny::after, m2), R(0x81, X));   // 127 is odd
    EXPECT_EQ(cv(-2.01f, Fmt::int8, Mode::ro, s, Tiny::after, m2), R(0x80, O | X));     // 2+1/32 odd -> overflow
  }
  expect_all(o::convert_all(Fmt::int8, Fmt::int8, 0x80, m2), R(0x80, 0), "int8 -2 roundtrip");
}

// ------------------------------------------------------------------ tininess

TEST(OracleSelf, TininessBeforeAfter) {
  // x = 2^-14 - 2^-26 (f32 0x387FF000): rounds to 2^-14 in f16 under rne; with an unbounded exponent
  // range it is 2^-15 * 2047.5/1024, which ties to 2048 (even): not tiny after rounding.
  const uint64_t x = 0x387FF000;
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::rne, Sat::none, Tiny::after), R(0x0400, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::rne, Sat::none, Tiny::before), R(0x0400, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::rna, Sat::none, Tiny::after), R(0x0400, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::ru, Sat::none, Tiny::after), R(0x0400, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::rz, Sat::none, Tiny::after), R(0x03FF, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::rd, Sat::none, Tiny::after), R(0x03FF, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x, Mode::ro, Sat::none, Tiny::after), R(0x03FF, U | X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, x | 0x80000000, Mode::rd, Sat::none, Tiny::after), R(0x8400, X));
  // just below the unbounded tie: 2^-14 - 2^-26 - 2^-38 rounds to 2^-14 in f16 but is tiny after.
  const uint64_t y = 0x387FEFFF;
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, y, Mode::rne, Sat::none, Tiny::after), R(0x0400, U | X));
  // rs tininess uses the same R at the unbounded precision.
  // f = 1/2 at the unbounded last place (2^-25), and 1/2 + 1/4 at the f16 subnormal place (2^-24).
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::f16, x, 2, 1, Sat::none, Tiny::after), R(0x0400, U | X));  // 3+1 -> up; unbounded 2+1 -> down
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::f16, x, 2, 2, Sat::none, Tiny::after), R(0x0400, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::f16, x, 2, 0, Sat::none, Tiny::after), R(0x03FF, U | X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::f16, x, 2, 2, Sat::none, Tiny::before), R(0x0400, U | X));
  // exact tiny results never underflow
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, 0x33800000, Mode::rne, Sat::none, Tiny::before), R(0x0001, 0));  // 2^-24
  // f64 -> f32 at the bottom
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, 1, Mode::rne, Sat::none, Tiny::after), R(0, U | X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, 1, Mode::ru, Sat::none, Tiny::after), R(1, U | X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, (1ull << 63) | 1, Mode::rd, Sat::none, Tiny::after), R(0x80000001, U | X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(std::ldexp(1.0, -150)), Mode::rne, Sat::none, Tiny::after), R(0, U | X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(std::ldexp(1.5, -150)), Mode::rne, Sat::none, Tiny::after), R(1, U | X));
}

TEST(OracleSelf, WideRounding) {
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(1.0 / 3), Mode::rne, Sat::none, Tiny::after), R(0x3EAAAAAB, X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(1.0 / 3), Mode::rz, Sat::none, Tiny::after), R(0x3EAAAAAA, X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(-1.0 / 3), Mode::rd, Sat::none, Tiny::after), R(0xBEAAAAAB, X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(-1.0 / 3), Mode::ru, Sat::none, Tiny::after), R(0xBEAAAAAA, X));
  EXPECT_EQ(o::convert(Fmt::f64, Fmt::f32, f64b(1.0 / 3), Mode::ro, Sat::none, Tiny::after), R(0x3EAAAAAB, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x3F808000, Mode::rne, Sat::none, Tiny::after), R(0x3F80, X));  // tie -> even
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x3F818000, Mode::rne, Sat::none, Tiny::after), R(0x3F82, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x3F808000, Mode::rna, Sat::none, Tiny::after), R(0x3F81, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x3F808000, Mode::ro, Sat::none, Tiny::after), R(0x3F81, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::bf16, 0x3F818000, Mode::ro, Sat::none, Tiny::after), R(0x3F81, X));
  EXPECT_EQ(o::convert(Fmt::f32, Fmt::f16, f32b(1.0f + std::ldexp(1.f, -11)), Mode::rne, Sat::none, Tiny::after),
            R(0x3C00, X));
  // random f64 -> f32 against the host (rne)
  uint64_t s = 12345;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double d = std::bit_cast<double>(s);
    if (!std::isfinite(d) || std::fabs(d) > std::numeric_limits<float>::max()) continue;
    float f = (float)d;
    auto r = o::convert(Fmt::f64, Fmt::f32, s, Mode::rne, Sat::none, Tiny::after);
    EXPECT_EQ(r.code, f32b(f)) << d;
    EXPECT_EQ((r.flags & X) != 0, (double)f != d);
  }
}

// ------------------------------------------------------------------ stochastic rounding

TEST(OracleSelf, Stochastic) {
  // e4m3 1.0625: last place 1/8 at 1.0, so f = 1/2.
  const uint64_t x = f32b(1.0625f);
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 2, 0, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 2, 1, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 2, 2, Sat::finite, Tiny::after), R(0x39, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 2, 3, Sat::finite, Tiny::after), R(0x39, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x | 0x80000000, 2, 2, Sat::finite, Tiny::after), R(0xB9, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 1, 0, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 1, 1, Sat::finite, Tiny::after), R(0x39, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 64, (1ull << 63) - 1, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 64, 1ull << 63, Sat::finite, Tiny::after), R(0x39, X));
  // f = 1/4 + 1/16 (1.0390625): F = 0 with r = 1 (truncated), 1 with r = 2, 5 with r = 4
  const uint64_t y = f32b(1.0390625f);
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, y, 1, 1, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, y, 2, 2, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, y, 2, 3, Sat::finite, Tiny::after), R(0x39, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, y, 4, 10, Sat::finite, Tiny::after), R(0x38, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, y, 4, 11, Sat::finite, Tiny::after), R(0x39, X));
  // exact: never moves
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, f32b(1.125f), 8, 255, Sat::finite, Tiny::after), R(0x39, 0));
  // overflow behaves like rne: 465 -> 448 or the virtual 480
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, f32b(465.f), 8, 0, Sat::none, Tiny::after), R(0x7E, X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, f32b(465.f), 8, 200, Sat::none, Tiny::after), R(0x7F, O | X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e4m3, f32b(465.f), 8, 200, Sat::finite, Tiny::after), R(0x7E, O | X));
  EXPECT_EQ(o::convert_rs(Fmt::f32, Fmt::e5m2, f32b(-60000.f), 8, 255, Sat::none, Tiny::after), R(0xFC, O | X));
  EXPECT_THROW(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 0, 0, Sat::finite, Tiny::after), std::invalid_argument);
  EXPECT_THROW(o::convert_rs(Fmt::f32, Fmt::e4m3, x, 2, 4, Sat::finite, Tiny::after), std::invalid_argument);
}

// ------------------------------------------------------------------ NaN and Inf

// Every source but f64 has its NaNs replaced by f32 0x7FFFFFFF (23 fraction ones), as CUDA does.
void canonicalize_narrow(Policies& p) {
  p.nan_canonical_ones.fill(23);
  p.nan_canonical_ones[static_cast<int>(Fmt::f64)] = 0;
}

TEST(OracleSelf, NaNRules) {
  Policies def, pos, pay, can, pospay;
  pos.nan_sign = Policies::NanSign::positive;
  pay.nan_payload.fill(Policies::Payload::preserve);
  canonicalize_narrow(can);
  pospay.nan_sign = Policies::NanSign::positive;
  pospay.nan_payload.fill(Policies::Payload::preserve);
  auto all = [](Fmt s, Fmt d, uint64_t c, const Policies& p) { return o::convert_all(s, d, c, p); };
  // quiet / signalling, canonical
  expect_all(all(Fmt::f32, Fmt::f16, 0x7FC00000, def), R(0x7E00, 0), "qnan");
  expect_all(all(Fmt::f32, Fmt::f16, 0x7F800001, def), R(0x7E00, V), "snan");
  expect_all(all(Fmt::f32, Fmt::f16, 0xFFC00000, def), R(0xFE00, 0), "-qnan");
  expect_all(all(Fmt::f32, Fmt::f16, 0xFFC00000, pos), R(0x7E00, 0), "-qnan positive");
  expect_all(all(Fmt::f32, Fmt::f64, 0xFFC00001, def), R(0xFFF8000000000000ull, 0), "-qnan f64");
  expect_all(all(Fmt::f32, Fmt::bf16, 0x7FC00001, def), R(0x7FC0, 0), "bf16");
  expect_all(all(Fmt::f32, Fmt::e5m2, 0x7FC00000, def), R(0x7E, 0), "e5m2");
  expect_all(all(Fmt::f32, Fmt::e5m2, 0xFF800001, def), R(0xFE, V), "e5m2 -snan");
  expect_all(all(Fmt::f32, Fmt::e4m3, 0xFF800001, def), R(0xFF, V), "e4m3 -snan");
  expect_all(all(Fmt::f32, Fmt::e4m3, 0xFFC00000, pos), R(0x7F, 0), "e4m3 positive");
  expect_all(all(Fmt::f32, Fmt::f32, 0x7F800001, def), R(0x7FC00000, V), "f32 snan quieted");
  // payload preserve: leading fraction bits, truncated, quiet bit forced
  expect_all(all(Fmt::f32, Fmt::f16, 0x7FA00000, pay), R(0x7F00, V), "snan payload");  // frac 01 -> 0x100|0x200
  expect_all(all(Fmt::f32, Fmt::f32, 0x7F800001, pay), R(0x7FC00001, V), "f32 snan payload");
  expect_all(all(Fmt::f64, Fmt::f32, 0x7FF4000000000000ull, pay), R(0x7FE00000, V), "f64 payload");
  expect_all(all(Fmt::f64, Fmt::f32, 0x7FF0000000000001ull, pay), R(0x7FC00000, V), "f64 payload lost");
  expect_all(all(Fmt::f16, Fmt::f32, 0x7E01, pay), R(0x7FC02000, 0), "f16 payload widened");
  expect_all(all(Fmt::f16, Fmt::f64, 0xFD55, pay), R(0xFFFD540000000000ull, V), "f16 payload f64");
  expect_all(all(Fmt::f16, Fmt::f64, 0xFD55, pospay), R(0x7FFD540000000000ull, V), "positive payload");
  expect_all(all(Fmt::f16, Fmt::e5m2, 0x7D55, pay), R(0x7F, V), "payload 01 | quiet -> 11");
  expect_all(all(Fmt::f16, Fmt::e5m2, 0x7F55, pay), R(0x7F, 0), "payload 11 to e5m2");
  expect_all(all(Fmt::f16, Fmt::e4m3, 0x7F55, pay), R(0x7F, 0), "e4m3 has one NaN");
  // e5m2 as a source is ieee: 0x7D signalling
  expect_all(all(Fmt::e5m2, Fmt::f16, 0x7D, def), R(0x7E00, V), "e5m2 snan");
  expect_all(all(Fmt::e5m2, Fmt::f16, 0x7D, pay), R(0x7F00, V), "e5m2 snan payload");
  expect_all(all(Fmt::e5m2, Fmt::f16, 0xFE, def), R(0xFE00, 0), "e5m2 -qnan");
  expect_all(all(Fmt::e5m2, Fmt::e4m3, 0xFD, def), R(0xFF, V), "e5m2 snan -> e4m3");
  // e4m3 / e8m0 NaNs are quiet
  expect_all(all(Fmt::e4m3, Fmt::f16, 0x7F, def), R(0x7E00, 0), "e4m3 nan");
  expect_all(all(Fmt::e4m3, Fmt::f16, 0xFF, def), R(0xFE00, 0), "e4m3 -nan");
  expect_all(all(Fmt::e4m3, Fmt::e5m2, 0xFF, def), R(0xFE, 0), "e4m3 -nan -> e5m2");
  expect_all(all(Fmt::e8m0, Fmt::f32, 0xFF, def), R(0x7FC00000, 0), "e8m0 nan");
  expect_all(all(Fmt::e8m0, Fmt::e4m3, 0xFF, def), R(0x7F, 0), "e8m0 nan -> e4m3");
  expect_all(all(Fmt::e4m3, Fmt::e8m0, 0xFF, def), R(0xFF, 0), "e4m3 nan -> e8m0");
  // nan_canonical_ones = 23 for every source but f64: their NaNs become f32 0x7FFFFFFF first
  expect_all(all(Fmt::f32, Fmt::e5m2, 0xFFC00000, can), R(0x7E, 0), "canon sign");
  Policies canpay = can;
  canpay.nan_payload.fill(Policies::Payload::preserve);
  expect_all(all(Fmt::f32, Fmt::e5m2, 0xFFC00000, canpay), R(0x7F, 0), "canon payload");
  expect_all(all(Fmt::f16, Fmt::f32, 0xFC01, canpay), R(0x7FFFFFFF, V), "canon snan keeps invalid");
  expect_all(all(Fmt::f16, Fmt::f64, 0x7E00, canpay), R(0x7FFFFFFFE0000000ull, 0), "canon into f64");
  expect_all(all(Fmt::e4m3, Fmt::e4m3, 0xFF, can), R(0x7F, 0), "canon e4m3");
  expect_all(all(Fmt::f64, Fmt::e5m2, 0xFFF8000000000000ull, can), R(0xFE, 0), "f64 not canonicalized");
  // NaN into NaN-less formats: always invalid
  Policies sm, pz, nz, smm2;
  sm.nan_to_finite = Policies::NanToFinite::signed_max;
  pz.nan_to_finite = Policies::NanToFinite::positive_zero;
  nz.nan_to_finite = Policies::NanToFinite::negative_zero;
  smm2.nan_to_finite = Policies::NanToFinite::signed_max;
  smm2.int8_minus2 = true;
  expect_all(all(Fmt::f32, Fmt::e2m1, 0xFFC00000, def), R(0x7, V), "e2m1 +max");
  expect_all(all(Fmt::f32, Fmt::e2m1, 0xFFC00000, sm), R(0xF, V), "e2m1 signed max");
  expect_all(all(Fmt::f32, Fmt::e2m1, 0x7FC00000, sm), R(0x7, V), "e2m1 signed max +");
  expect_all(all(Fmt::f32, Fmt::e2m1, 0xFFC00000, pz), R(0x0, V), "e2m1 +0");
  expect_all(all(Fmt::f32, Fmt::e2m1, 0x7FC00000, nz), R(0x8, V), "e2m1 -0");
  expect_all(all(Fmt::f32, Fmt::e3m2, 0xFFC00000, sm), R(0x3F, V), "e3m2 -max");
  expect_all(all(Fmt::f32, Fmt::e2m3, 0x7FC00000, def), R(0x1F, V), "e2m3 +max");
  expect_all(all(Fmt::e4m3, Fmt::int8, 0xFF, sm), R(0x81, V), "int8 -max");
  expect_all(all(Fmt::e4m3, Fmt::int8, 0xFF, smm2), R(0x80, V), "int8 -max minus2");
  expect_all(all(Fmt::e4m3, Fmt::int8, 0xFF, nz), R(0x00, V), "int8 has no -0");
  expect_all(all(Fmt::e4m3, Fmt::int8, 0x7F, def), R(0x7F, V), "int8 +max");
  Policies sm_can = sm;
  canonicalize_narrow(sm_can);
  expect_all(all(Fmt::f32, Fmt::e2m1, 0xFFC00000, sm_can), R(0x7, V), "canonicalized NaN is positive");
}

TEST(OracleSelf, InfinityRules) {
  const float inf = std::numeric_limits<float>::infinity();
  for (int m = 0; m < o::kModeCount; ++m) {
    EXPECT_EQ(cv(inf, Fmt::f16, (Mode)m, Sat::none), R(0x7C00, 0));
    EXPECT_EQ(cv(-inf, Fmt::f16, (Mode)m, Sat::none), R(0xFC00, 0));
    EXPECT_EQ(cv(inf, Fmt::f16, (Mode)m, Sat::finite), R(0x7BFF, V));
    EXPECT_EQ(cv(-inf, Fmt::bf16, (Mode)m, Sat::finite), R(0xFF7F, V));
    EXPECT_EQ(cv(inf, Fmt::f64, (Mode)m, Sat::none), R(0x7FF0000000000000ull, 0));
    for (Sat s : {Sat::finite, Sat::none}) {
      EXPECT_EQ(cv(inf, Fmt::e2m1, (Mode)m, s), R(0x7, V));
      EXPECT_EQ(cv(-inf, Fmt::e2m1, (Mode)m, s), R(0xF, V));
      EXPECT_EQ(cv(-inf, Fmt::e3m2, (Mode)m, s), R(0x3F, V));
      EXPECT_EQ(cv(inf, Fmt::e2m3, (Mode)m, s), R(0x1F, V));
      EXPECT_EQ(cv(inf, Fmt::int8, (Mode)m, s), R(0x7F, V));
      EXPECT_EQ(cv(-inf, Fmt::int8, (Mode)m, s), R(0x81, V));
    }
  }
  Policies m2;
  m2.int8_minus2 = true;
  EXPECT_EQ(cv(-inf, Fmt::int8, Mode::rne, Sat::none, Tiny::after, m2), R(0x80, V));
}

TEST(OracleSelf, Zeros) {
  for (int m = 0; m < o::kModeCount; ++m) {
    EXPECT_EQ(cv(0.f, Fmt::e4m3, (Mode)m), R(0x00, 0));
    EXPECT_EQ(cv(-0.f, Fmt::e4m3, (Mode)m), R(0x80, 0));
    EXPECT_EQ(cv(-0.f, Fmt::e2m1, (Mode)m), R(0x8, 0));
    EXPECT_EQ(cv(-0.f, Fmt::e3m2, (Mode)m), R(0x20, 0));
    EXPECT_EQ(cv(-0.f, Fmt::int8, (Mode)m), R(0x00, 0));
    EXPECT_EQ(cv(-0.f, Fmt::f64, (Mode)m), R(1ull << 63, 0));
  }
}

// ------------------------------------------------------------------ round_value_all

TEST(OracleSelf, RoundValueHighPrecision) {
  mpfr_t x;
  mpfr_init2(x, 300);
  // 464 + 2^-200 -> above the e4m3 tie: overflows
  mpfr_set_ui(x, 464, MPFR_RNDN);
  mpfr_t eps;
  mpfr_init2(eps, 300);
  mpfr_set_ui_2exp(eps, 1, -200, MPFR_RNDN);
  mpfr_add(x, x, eps, MPFR_RNDN);
  auto a = o::round_value_all(x, Fmt::e4m3);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(0x7F, O | X));
  EXPECT_EQ(a.at(Mode::rz, Sat::none, Tiny::after), R(0x7E, X));
  mpfr_sub(x, x, eps, MPFR_RNDN);
  mpfr_sub(x, x, eps, MPFR_RNDN);  // 464 - 2^-200
  a = o::round_value_all(x, Fmt::e4m3);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(0x7E, X));
  EXPECT_EQ(a.at(Mode::rna, Sat::none, Tiny::after), R(0x7E, X));
  // 0.1 (300 bits) -> f64 matches the host's correctly rounded 0.1
  mpfr_set_str(x, "0.1", 10, MPFR_RNDN);
  a = o::round_value_all(x, Fmt::f64);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(f64b(0.1), X));
  // huge and tiny exponents
  mpfr_set_ui_2exp(x, 3, 5000, MPFR_RNDN);
  a = o::round_value_all(x, Fmt::f64);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(0x7FF0000000000000ull, O | X));
  EXPECT_EQ(a.at(Mode::rz, Sat::none, Tiny::after), R(0x7FEFFFFFFFFFFFFFull, O | X));
  mpfr_set_si_2exp(x, -3, -5000, MPFR_RNDN);
  a = o::round_value_all(x, Fmt::f64);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(1ull << 63, U | X));
  EXPECT_EQ(a.at(Mode::rd, Sat::none, Tiny::after), R((1ull << 63) | 1, U | X));
  a = o::round_value_all(x, Fmt::e8m0);
  expect_all(a, R(0xFF, V), "tiny negative into e8m0");
  mpfr_set_inf(x, -1);
  a = o::round_value_all(x, Fmt::e5m2);
  EXPECT_EQ(a.at(Mode::rne, Sat::none, Tiny::after), R(0xFC, 0));
  mpfr_set_zero(x, -1);
  a = o::round_value_all(x, Fmt::bf16);
  expect_all(a, R(0x8000, 0), "-0 bf16");
  mpfr_clear(eps);
  mpfr_clear(x);
}

// ------------------------------------------------------------------ a second, table-scan reference

namespace {
// Reference by brute force over the decoded value set (doubles): nearest, directed and odd
// rounding of |x| <= max finite, for destinations up to 16 bits. Ties and "odd" use the code's
// lowest bit (for e8m0 that is the exponent's).
struct Scan {
  std::vector<std::pair<double, uint64_t>> mags;  // non-negative finite values, ascending, with codes
  explicit Scan(Fmt f) {
    Mp m;
    for (uint64_t c = 0; c < (1ull << o::width(f)); ++c) {
      if (!o::decode(f, c, m.v) || mpfr_inf_p(m.v) || mpfr_signbit(m.v)) continue;
      mags.push_back({mpfr_get_d(m.v, MPFR_RNDN), c});
    }
    std::sort(mags.begin(), mags.end());
  }
};
}  // namespace

TEST(OracleSelf, AgreesWithTableScanOnEveryF16) {
  for (Fmt d : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::int8, Fmt::e8m0, Fmt::bf16}) {
    Scan sc(d);
    const double maxv = sc.mags.back().first;
    Mp m;
    for (uint64_t c = 0; c < 0x8000; ++c) {  // positive f16
      if (!o::decode(Fmt::f16, c, m.v) || mpfr_inf_p(m.v)) continue;
      double x = mpfr_get_d(m.v, MPFR_RNDN);
      if (x == 0 || x > maxv) continue;
      auto it = std::lower_bound(sc.mags.begin(), sc.mags.end(), std::make_pair(x, (uint64_t)0));
      auto a = o::convert_all(Fmt::f16, d, c);
      if (it != sc.mags.end() && it->first == x) {
        for (int md = 0; md < o::kModeCount; ++md) EXPECT_EQ(a.at((Mode)md, Sat::finite, Tiny::after).code, it->second);
        continue;
      }
      auto hi = *it, lo = *(it - 1);
      double mid = (lo.first + hi.first) / 2;
      uint64_t rne = x < mid ? lo.second : x > mid ? hi.second : ((lo.second & 1) ? hi.second : lo.second);
      uint64_t rna = x < mid ? lo.second : hi.second;
      uint64_t ro = (lo.second & 1) ? lo.second : hi.second;
      auto got = [&](Mode md) { return a.at(md, Sat::finite, Tiny::after); };
      EXPECT_EQ(got(Mode::rne).code, rne) << o::fmt_name(d) << " " << x;
      EXPECT_EQ(got(Mode::rna).code, rna) << o::fmt_name(d) << " " << x;
      EXPECT_EQ(got(Mode::rz).code, lo.second) << o::fmt_name(d) << " " << x;
      EXPECT_EQ(got(Mode::rd).code, lo.second) << o::fmt_name(d) << " " << x;
      EXPECT_EQ(got(Mode::ru).code, hi.second) << o::fmt_name(d) << " " << x;
      EXPECT_EQ(got(Mode::ro).code, ro) << o::fmt_name(d) << " " << x;
      for (int md = 0; md < o::kModeCount; ++md) EXPECT_TRUE(a.r[md][0][0].flags & X);
      // the negative input mirrors it (rd <-> ru)
      if (d == Fmt::e8m0) continue;
      auto n = o::convert_all(Fmt::f16, d, c | 0x8000);
      uint64_t sgn = d == Fmt::int8 ? 0 : (1ull << (o::width(d) - 1));
      auto neg = [&](uint64_t code) { return d == Fmt::int8 ? ((256 - code) & 0xFF) : (code | sgn); };
      EXPECT_EQ(n.at(Mode::rne, Sat::finite, Tiny::after).code, neg(rne));
      EXPECT_EQ(n.at(Mode::ru, Sat::finite, Tiny::after).code, neg(lo.second));
      EXPECT_EQ(n.at(Mode::rd, Sat::finite, Tiny::after).code, neg(hi.second));
    }
  }
}

// ------------------------------------------------------------------ threads

TEST(OracleSelf, ThreadSafe) {
  std::vector<o::AllOutcomes> ref(4096);
  for (uint64_t c = 0; c < 4096; ++c) ref[c] = o::convert_all(Fmt::f16, Fmt::e4m3, c * 16 + 3);
  std::vector<std::thread> th;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    th.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep)
        for (uint64_t c = 0; c < 4096; ++c) {
          auto a = o::convert_all(Fmt::f16, Fmt::e4m3, c * 16 + 3);
          for (int md = 0; md < o::kModeCount; ++md)
            for (int s = 0; s < 2; ++s)
              for (int tt = 0; tt < 2; ++tt) bad[t] += !(a.r[md][s][tt] == ref[c].r[md][s][tt]);
        }
    });
  for (auto& t : th) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0);
}

// ------------------------------------------------------------------ the host's IEEE conversions
// x86-64 converts f64 -> f32 in hardware and f32 -> _Float16 in libgcc's soft-fp; both detect
// tininess after rounding and honour the dynamic rounding mode. (NaN payloads are preserved.)
#if defined(__x86_64__) && defined(__FLT16_MAX__)
namespace {
uint8_t host_flags() {
  uint8_t f = 0;
  if (std::fetestexcept(FE_INEXACT)) f |= X;
  if (std::fetestexcept(FE_UNDERFLOW)) f |= U;
  if (std::fetestexcept(FE_OVERFLOW)) f |= O;
  if (std::fetestexcept(FE_INVALID)) f |= V;
  return f;
}
const int kHostModes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
const Mode kOracleModes[4] = {Mode::rne, Mode::rz, Mode::ru, Mode::rd};
}  // namespace

TEST(OracleSelf, AgreesWithHostF32ToF16AndF64ToF32) {
  Policies p;
  p.nan_payload.fill(Policies::Payload::preserve);
  long bad = 0;
  for (uint64_t c = 0; c < (1ull << 32); c += 9973) {
    const uint32_t c32 = (uint32_t)c;
    volatile float fv = std::bit_cast<float>(c32);
    auto all = o::convert_all(Fmt::f32, Fmt::f16, c32, p);
    for (int k = 0; k < 4; ++k) {
      std::fesetround(kHostModes[k]);
      std::feclearexcept(FE_ALL_EXCEPT);
      volatile _Float16 h = (_Float16)fv;
      uint8_t fl = host_flags();
      std::fesetround(FE_TONEAREST);
      _Float16 hh = h;
      Outcome want{std::bit_cast<uint16_t>(hh), fl};
      if (!(all.at(kOracleModes[k], Sat::none, Tiny::after) == want) && bad++ < 10)
        ADD_FAILURE() << "f32 " << std::hex << c32 << " mode " << k;
    }
  }
  uint64_t s = 88172645463325252ull;
  for (int i = 0; i < 200000; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    uint64_t b = s;
    if (i & 1) b = (b & 0x800FFFFFFFFFFFFFull) | ((uint64_t)((s >> 52) % 320 + 1023 - 180) << 52);  // near f32's range
    volatile double dv = std::bit_cast<double>(b);
    auto all = o::convert_all(Fmt::f64, Fmt::f32, b, p);
    for (int k = 0; k < 4; ++k) {
      std::fesetround(kHostModes[k]);
      std::feclearexcept(FE_ALL_EXCEPT);
      volatile float f = (float)dv;
      uint8_t fl = host_flags();
      std::fesetround(FE_TONEAREST);
      float ff = f;
      Outcome want{std::bit_cast<uint32_t>(ff), fl};
      if (!(all.at(kOracleModes[k], Sat::none, Tiny::after) == want) && bad++ < 10)
        ADD_FAILURE() << "f64 " << std::hex << b << " mode " << k;
    }
  }
  EXPECT_EQ(bad, 0);
}
#endif
