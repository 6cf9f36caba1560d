// conformance/test_spec_tables.cpp: the specification's tables, pinned by hand.
//
// Every expectation here is typed from the OCP MX v1.0 / OFP8 v1.0 tables (docs/SEMANTICS.md
// section 1 and the field guide), not computed: max normal, min normal, min subnormal and the
// special encodings of every format, OFP8 table 3 row by row, and the known cases where real
// implementations disagree.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "softmx/convert.hpp"

namespace softmx {
namespace {

using F = FormatId;

// Decodes exactly: saturation none, so Inf stays Inf (satfinite would clamp it, SEMANTICS 5.6).
double decode(F f, std::uint64_t code) {
  Context c;
  c.saturation = Saturation::none;
  const Result r = convert(f, F::f64, code, c);
  return std::bit_cast<double>(r.code);
}

std::uint64_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }
std::uint64_t f64(double x) { return std::bit_cast<std::uint64_t>(x); }

Result to(F dst, double x, Rounding r = Rounding::rne, Saturation s = Saturation::finite,
          const Dialect& d = ocp_dialect()) {
  Context c;
  c.rounding = r;
  c.saturation = s;
  return convert(F::f64, dst, f64(x), c, d);
}

struct Limits {
  F f;
  std::uint64_t max_code;
  double max;
  std::uint64_t min_normal_code;
  double min_normal;
  std::uint64_t min_sub_code;
  double min_sub;
};

// OCP MX v1.0 tables 2-5 and OFP8 v1.0 table 1 (E4M3 bias 7: the table, not the swapped prose).
const Limits kLimits[] = {
    {F::e4m3, 0x7E, 448.0, 0x08, 0x1p-6, 0x01, 0x1p-9},
    {F::e5m2, 0x7B, 57344.0, 0x04, 0x1p-14, 0x01, 0x1p-16},
    {F::e3m2, 0x1F, 28.0, 0x04, 0.25, 0x01, 0.0625},
    {F::e2m3, 0x1F, 7.5, 0x08, 1.0, 0x01, 0.125},
    {F::e2m1, 0x7, 6.0, 0x2, 1.0, 0x1, 0.5},
    {F::f16, 0x7BFF, 65504.0, 0x0400, 0x1p-14, 0x0001, 0x1p-24},
    {F::bf16, 0x7F7F, 0x1.FEp127, 0x0080, 0x1p-126, 0x0001, 0x1p-133},
};

TEST(SpecTables, FormatLimits) {
  for (const Limits& l : kLimits) {
    const Format& f = format(l.f);
    SCOPED_TRACE(std::string(f.name));
    EXPECT_EQ(f.max_finite_magnitude(), l.max_code);
    EXPECT_EQ(decode(l.f, l.max_code), l.max);
    EXPECT_EQ(decode(l.f, l.min_normal_code), l.min_normal);
    EXPECT_EQ(decode(l.f, l.min_sub_code), l.min_sub);
    // Negative twins: the sign bit is the top bit of the code.
    const std::uint64_t sign = std::uint64_t{1} << (f.width - 1);
    EXPECT_EQ(decode(l.f, sign | l.max_code), -l.max);
    EXPECT_EQ(decode(l.f, sign | l.min_sub_code), -l.min_sub);
    // And encoding them back is exact.
    EXPECT_EQ(to(l.f, l.max).code, l.max_code);
    EXPECT_EQ(to(l.f, l.max).flags, 0);
    EXPECT_EQ(to(l.f, l.min_sub).code, l.min_sub_code);
    EXPECT_EQ(to(l.f, -l.min_normal).code, sign | l.min_normal_code);
    // Zeros.
    EXPECT_EQ(decode(l.f, 0), 0.0);
    EXPECT_TRUE(std::signbit(decode(l.f, sign)));
  }
}

TEST(SpecTables, SpecialEncodings) {
  // E4M3: S.1111.111 is NaN, no Inf; S.1111.110 is 448.
  EXPECT_TRUE(std::isnan(decode(F::e4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(decode(F::e4m3, 0xFF)));
  EXPECT_EQ(decode(F::e4m3, 0x78), 256.0);  // S.1111.000 is a number
  // E5M2: S.11111.00 is Inf, S.11111.{01,10,11} NaN.
  EXPECT_EQ(decode(F::e5m2, 0x7C), std::numeric_limits<double>::infinity());
  EXPECT_EQ(decode(F::e5m2, 0xFC), -std::numeric_limits<double>::infinity());
  for (std::uint64_t c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(decode(F::e5m2, c))) << c;
  // FP6 / FP4: the all-ones exponent is an ordinary binade; every code is finite.
  for (F f : {F::e3m2, F::e2m3, F::e2m1, F::int8})
    for (std::uint64_t c = 0; c <= format(f).code_mask(); ++c) EXPECT_TRUE(std::isfinite(decode(f, c)));
  EXPECT_EQ(decode(F::e3m2, 0x1C), 16.0);  // 0.111.00
  EXPECT_EQ(decode(F::e2m1, 0x6), 4.0);
  // E8M0: 2^(c-127); 0x00 is 2^-127 (an f32 subnormal, not zero); 0xFF NaN.
  EXPECT_EQ(decode(F::e8m0, 0x00), 0x1p-127);
  EXPECT_EQ(decode(F::e8m0, 0x7F), 1.0);
  EXPECT_EQ(decode(F::e8m0, 0xFE), 0x1p127);
  EXPECT_TRUE(std::isnan(decode(F::e8m0, 0xFF)));
  EXPECT_EQ(convert(F::e8m0, F::f32, 0x00, Context{}).code, 0x00400000u);
  EXPECT_EQ(convert(F::e8m0, F::bf16, 0x00, Context{}).code, 0x0040u);
  // MXINT8: two's complement times 2^-6; 0x80 = -2; 0x7F = 127/64.
  EXPECT_EQ(decode(F::int8, 0x7F), 127.0 / 64);
  EXPECT_EQ(decode(F::int8, 0x80), -2.0);
  EXPECT_EQ(decode(F::int8, 0x81), -127.0 / 64);
  EXPECT_EQ(decode(F::int8, 0xFF), -1.0 / 64);
  EXPECT_EQ(decode(F::int8, 0x01), 1.0 / 64);
}

// OFP8 v1.0 section 5.2.1, table 3: conversion from a wider format (rounding first).
TEST(SpecTables, Ofp8Table3) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Row {
    double x;
    std::uint64_t e5m2_sat, e5m2_nonsat, e4m3_sat, e4m3_nonsat;
  };
  const Row rows[] = {
      {nan, 0x7E, 0x7E, 0x7F, 0x7F},        // NaN -> NaN (ocp: canonical quiet, sign kept)
      {-nan, 0xFE, 0xFE, 0xFF, 0xFF},
      {inf, 0x7B, 0x7C, 0x7E, 0x7F},        // +Inf -> +max / +Inf / +448 / NaN
      {-inf, 0xFB, 0xFC, 0xFE, 0xFF},
      {1e6, 0x7B, 0x7C, 0x7E, 0x7F},        // |x| > max
      {-1e6, 0xFB, 0xFC, 0xFE, 0xFF},
      {0x1p-30, 0x00, 0x00, 0x00, 0x00},    // below min subnormal -> +-0
      {-0x1p-30, 0x80, 0x80, 0x80, 0x80},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.x);
    EXPECT_EQ(to(F::e5m2, r.x, Rounding::rne, Saturation::finite).code, r.e5m2_sat);
    EXPECT_EQ(to(F::e5m2, r.x, Rounding::rne, Saturation::none).code, r.e5m2_nonsat);
    EXPECT_EQ(to(F::e4m3, r.x, Rounding::rne, Saturation::finite).code, r.e4m3_sat);
    EXPECT_EQ(to(F::e4m3, r.x, Rounding::rne, Saturation::none).code, r.e4m3_nonsat);
  }
}

// Rounding happens before the range check (OFP8 5.2.1; field guide section 2).
TEST(SpecTables, RoundThenRangeCheck) {
  EXPECT_EQ(to(F::e4m3, 464.0), (Result{0x7E, flag::inexact}));  // tie 448 / 480: even is 448
  EXPECT_EQ(to(F::e4m3, 464.0, Rounding::rne, Saturation::none), (Result{0x7E, flag::inexact}));
  EXPECT_EQ(to(F::e4m3, 464.00001, Rounding::rne, Saturation::none), (Result{0x7F, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e4m3, 480.0, Rounding::rne, Saturation::none), (Result{0x7F, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e4m3, 480.0, Rounding::rne, Saturation::finite), (Result{0x7E, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e5m2, 61439.0, Rounding::rne, Saturation::none), (Result{0x7B, flag::inexact}));
  EXPECT_EQ(to(F::e5m2, 61440.0, Rounding::rne, Saturation::none), (Result{0x7C, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e5m2, 58000.0, Rounding::rne, Saturation::none), (Result{0x7B, flag::inexact}));  // universal 1302
  // IEEE 754 7.4: toward zero overflows to max finite, toward +inf to Inf (NaN in e4m3).
  EXPECT_EQ(to(F::e5m2, 1e6, Rounding::rz, Saturation::none).code, 0x7Bu);
  EXPECT_EQ(to(F::e5m2, 1e6, Rounding::ru, Saturation::none).code, 0x7Cu);
  EXPECT_EQ(to(F::e5m2, -1e6, Rounding::ru, Saturation::none).code, 0xFBu);
  EXPECT_EQ(to(F::e5m2, -1e6, Rounding::rd, Saturation::none).code, 0xFCu);
  EXPECT_EQ(to(F::e4m3, 449.0, Rounding::ru, Saturation::none).code, 0x7Fu);
  EXPECT_EQ(to(F::e4m3, 449.0, Rounding::rz, Saturation::none), (Result{0x7E, flag::inexact}));
  // Round to odd: 450 truncates to 448 (even), jams to the virtual 480: overflow, max finite.
  EXPECT_EQ(to(F::e4m3, 450.0, Rounding::ro, Saturation::none), (Result{0x7E, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e4m3, 1.1, Rounding::ro), (Result{0x39, flag::inexact}));  // 1.0 -> 1.125
}

TEST(SpecTables, TiesAndSubnormals) {
  // E2M1 grid 0 0.5 1 1.5 2 3 4 6.
  EXPECT_EQ(to(F::e2m1, 0.25), (Result{0x0, flag::underflow | flag::inexact}));  // tie 0 / 0.5: even 0
  EXPECT_EQ(to(F::e2m1, 0.25, Rounding::rna), (Result{0x1, flag::underflow | flag::inexact}));
  EXPECT_EQ(to(F::e2m1, 0.75).code, 0x2u);                                        // tie 0.5 / 1: even 1.0
  EXPECT_EQ(to(F::e2m1, 1.25).code, 0x2u);
  EXPECT_EQ(to(F::e2m1, 2.5).code, 0x4u);
  EXPECT_EQ(to(F::e2m1, 5.0).code, 0x6u);                                         // tie 4 / 6: even 4
  EXPECT_EQ(to(F::e2m1, 5.0, Rounding::rna).code, 0x7u);                          // ROCm aiter: ties away
  EXPECT_EQ(to(F::e2m1, 7.0), (Result{0x7, flag::overflow | flag::inexact}));
  // E4M3 subnormals: 2^-9 steps; 2^-10 ties to 0.
  EXPECT_EQ(to(F::e4m3, 0x1p-10), (Result{0x00, flag::underflow | flag::inexact}));
  EXPECT_EQ(to(F::e4m3, 0x1.8p-10).code, 0x01u);
  // 1.111b * 2^-7 rounds up to the min normal 2^-6 (7.5 subnormal steps tie to 8), but is
  // exact at 4 bits with an unbounded exponent, so it is tiny after rounding too.
  EXPECT_EQ(to(F::e4m3, 0x1.Ep-7), (Result{0x08, flag::underflow | flag::inexact}));
  // 1.1111b * 2^-7 ties up to 2^-6 even at 4 bits: not tiny after rounding, tiny before.
  EXPECT_EQ(to(F::e4m3, 0x1.Fp-7), (Result{0x08, flag::inexact}));
  Context before;
  before.tininess = Tininess::before_rounding;
  EXPECT_EQ(convert(F::f64, F::e4m3, f64(0x1.Fp-7), before), (Result{0x08, flag::underflow | flag::inexact}));
  // Exact subnormal results raise no underflow.
  EXPECT_EQ(to(F::e4m3, 0x1p-9), (Result{0x01, 0}));
}

TEST(SpecTables, E8m0) {
  // Ties by code parity: 3.0 between 2 (0x80) and 4 (0x81) goes to 0x80; 6.0 to 8 (0x82).
  EXPECT_EQ(to(F::e8m0, 3.0), (Result{0x80, flag::inexact}));
  EXPECT_EQ(to(F::e8m0, 6.0), (Result{0x82, flag::inexact}));
  EXPECT_EQ(to(F::e8m0, 3.0, Rounding::rna).code, 0x81u);
  EXPECT_EQ(to(F::e8m0, 1.45).code, 0x7Fu);  // linear, not log-domain (universal rounds to 2)
  EXPECT_EQ(to(F::e8m0, 1.0), (Result{0x7F, 0}));
  EXPECT_EQ(to(F::e8m0, 0x1p127), (Result{0xFE, 0}));
  EXPECT_EQ(to(F::e8m0, 0x1p-127), (Result{0x00, 0}));
  // Below 2^-127 and zero: no representation; ocp clamps to 0x00.
  EXPECT_EQ(to(F::e8m0, 0.0), (Result{0x00, flag::underflow | flag::inexact}));
  EXPECT_EQ(to(F::e8m0, 0x1p-130), (Result{0x00, flag::underflow | flag::inexact}));
  EXPECT_EQ(to(F::e8m0, 0x1.8p-128), (Result{0x00, flag::inexact}));  // rounds to 2^-127 at p = 1: not tiny
  // Overflow, Inf, NaN, negatives.
  EXPECT_EQ(to(F::e8m0, 0x1.8p127), (Result{0xFE, flag::inexact}));  // tie: 0xFE even
  EXPECT_EQ(to(F::e8m0, 0x1.8p127, Rounding::rna, Saturation::none), (Result{0xFF, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::e8m0, std::numeric_limits<double>::infinity()), (Result{0xFE, flag::invalid}));
  EXPECT_EQ(to(F::e8m0, std::numeric_limits<double>::infinity(), Rounding::rne, Saturation::none),
            (Result{0xFF, flag::invalid}));
  EXPECT_EQ(to(F::e8m0, -3.0), (Result{0xFF, flag::invalid}));
  EXPECT_EQ(to(F::e8m0, -0.0), (Result{0x00, flag::underflow | flag::inexact}));
  EXPECT_EQ(to(F::e8m0, std::numeric_limits<double>::quiet_NaN()), (Result{0xFF, 0}));
}

TEST(SpecTables, Int8) {
  EXPECT_EQ(to(F::int8, 1.5), (Result{0x60, 0}));
  EXPECT_EQ(to(F::int8, -1.5), (Result{0xA0, 0}));
  EXPECT_EQ(to(F::int8, 127.0 / 64), (Result{0x7F, 0}));
  EXPECT_EQ(to(F::int8, 2.0), (Result{0x7F, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::int8, -2.0), (Result{0x81, flag::overflow | flag::inexact}));  // ocp: no -2
  EXPECT_EQ(to(F::int8, 1.0 / 128), (Result{0x00, flag::inexact}));              // tie to even 0, no underflow
  EXPECT_EQ(to(F::int8, 3.0 / 128), (Result{0x02, flag::inexact}));              // tie 1/64 / 2/64: even 2
  EXPECT_EQ(to(F::int8, -0.0), (Result{0x00, 0}));                              // one zero
  EXPECT_EQ(to(F::int8, std::numeric_limits<double>::quiet_NaN()), (Result{0x7F, flag::invalid}));
  EXPECT_EQ(to(F::int8, -std::numeric_limits<double>::infinity()), (Result{0x81, flag::invalid}));
  Dialect minus2 = ocp_dialect();
  minus2.int8_minus2 = true;
  EXPECT_EQ(to(F::int8, -2.0, Rounding::rne, Saturation::finite, minus2), (Result{0x80, 0}));
  EXPECT_EQ(to(F::int8, -1.995, Rounding::rne, Saturation::finite, minus2), (Result{0x80, flag::inexact}));
  EXPECT_EQ(to(F::int8, -3.0, Rounding::rne, Saturation::finite, minus2), (Result{0x80, flag::overflow | flag::inexact}));
  EXPECT_EQ(to(F::int8, 2.0, Rounding::rne, Saturation::finite, minus2), (Result{0x7F, flag::overflow | flag::inexact}));
}

TEST(SpecTables, NanAndInfIntoNanlessFormats) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (F f : {F::e3m2, F::e2m3, F::e2m1}) {
    const std::uint64_t sign = std::uint64_t{1} << (format(f).width - 1);
    const std::uint64_t max = format(f).max_finite_magnitude();
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      EXPECT_EQ(to(f, nan, Rounding::rne, s), (Result{max, flag::invalid}));
      EXPECT_EQ(to(f, -nan, Rounding::rne, s), (Result{max, flag::invalid}));  // positive_max
      EXPECT_EQ(to(f, inf, Rounding::rne, s), (Result{max, flag::invalid}));
      EXPECT_EQ(to(f, -inf, Rounding::rne, s), (Result{sign | max, flag::invalid}));
      EXPECT_EQ(to(f, 1e30, Rounding::rne, s), (Result{max, flag::overflow | flag::inexact}));
    }
  }
  // Signalling NaN raises invalid even into a format with NaN.
  EXPECT_EQ(convert(F::f32, F::e4m3, 0x7F800001, Context{}), (Result{0x7F, flag::invalid}));
  EXPECT_EQ(convert(F::f32, F::e4m3, 0x7FC00000, Context{}), (Result{0x7F, 0}));
  EXPECT_EQ(convert(F::f16, F::e5m2, 0xFD00, Context{}), (Result{0xFE, flag::invalid}));
}

// The cuda dialect's distinguishing cases, each from NVIDIA's CUDA 13.0 headers.
TEST(SpecTables, CudaDialectQuirks) {
  const Dialect& cuda = *find_dialect("cuda");
  Context c;
  // Float NaN is canonicalised to 0x7FFFFFFF first: FP8 0x7F whatever the sign.
  EXPECT_EQ(convert(F::f32, F::e4m3, 0xFFC00000, c, cuda).code, 0x7Fu);
  EXPECT_EQ(convert(F::f32, F::e5m2, 0xFFC00000, c, cuda).code, 0x7Fu);
  // The double path keeps the sign (and for E5M2 the fraction bit after the quiet bit).
  EXPECT_EQ(convert(F::f64, F::e4m3, 0xFFF8000000000000, c, cuda).code, 0xFFu);
  EXPECT_EQ(convert(F::f64, F::e5m2, 0xFFF8000000000000, c, cuda).code, 0xFEu);
  EXPECT_EQ(convert(F::f64, F::e5m2, 0x7FFC000000000000, c, cuda).code, 0x7Fu);
  // NaN into FP6/FP4 is +MAXNORM.
  EXPECT_EQ(convert(F::f64, F::e2m1, 0xFFF8000000000000, c, cuda).code, 0x7u);
  // E8M0: sign ignored, zero is 0x00, only rz and ru.
  Context rz, ru;
  rz.rounding = Rounding::rz;
  ru.rounding = Rounding::ru;
  EXPECT_EQ(convert(F::f32, F::e8m0, f32(-3.0f), rz, cuda).code, 0x80u);
  EXPECT_EQ(convert(F::f32, F::e8m0, f32(-3.0f), ru, cuda).code, 0x81u);
  EXPECT_EQ(convert(F::f32, F::e8m0, 0, ru, cuda).code, 0x00u);
  ru.saturation = Saturation::none;
  EXPECT_EQ(convert(F::f32, F::e8m0, 0x7F800000, ru, cuda).code, 0xFFu);
  ru.saturation = Saturation::finite;
  EXPECT_EQ(convert(F::f32, F::e8m0, 0x7F800000, ru, cuda).code, 0xFEu);
  // Decodes: canonical positive NaNs, E8M0 through bf16.
  EXPECT_EQ(convert(F::e4m3, F::f32, 0xFF, c, cuda).code, 0x7FFFFFFFu);
  EXPECT_EQ(convert(F::e8m0, F::f32, 0xFF, c, cuda).code, 0x7FFF0000u);
  EXPECT_EQ(convert(F::e8m0, F::f16, 0xFF, c, cuda).code, 0x7FFFu);
  EXPECT_EQ(convert(F::e8m0, F::bf16, 0x00, c, cuda).code, 0x0040u);
  // What NVIDIA's functions cannot do is refused, not invented.
  EXPECT_THROW(convert(F::f32, F::e4m3, 0, rz, cuda), Unsupported);
  EXPECT_THROW(convert(F::f32, F::int8, 0, c, cuda), Unsupported);
  EXPECT_THROW(convert(F::f32, F::e8m0, 0, c, cuda), Unsupported);
}

}  // namespace
}  // namespace softmx
