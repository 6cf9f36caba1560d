// conformance/test_pychop.cpp: softmx's model of inEXASCALE/pychop's mx_quantize (softmx/pychop.hpp,
// dialect pychop).
//
// 1. The hand cases P1-P19 of docs/research/pychop.md section 9 that softmx's formats express
//    (P15-P17: custom specs, runtime formats), each computed from the pychop line it cites
//    ("np:" = pychop/np/mx_formats.py at 242e079), and the statistics() examples of section 8.
// 2. floor(RN_p(log2 x)) (ScaleRule::floor_log2_rn) against MPFR's correctly rounded log2, for
//    the predecessors of every power of two and random values, in f32 and f64.
// 3. mx_quantize against a transcription of MXBlock_._quantize, _quantize_float_element,
//    _quantize_mxint and dequantize written here in host double/float arithmetic (what Python and
//    NumPy compute), with MPFR's log2 for np.log2: random arrays with zeros, NaN, Inf and values
//    just below powers of two, every named format and 9 custom specs, f32 and f64, both NumPy
//    promotion rules.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <mpfr.h>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/pychop.hpp"
#include "softmx/prng.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using V8 = std::vector<std::uint8_t>;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

PychopResult run(std::vector<double> x, const char* fmt, std::size_t bs, PychopOptions o = {}) {
  std::vector<std::uint64_t> bits(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) bits[i] = std::bit_cast<std::uint64_t>(x[i]);
  o.block_size = bs;
  const std::size_t shape[1] = {x.size()};
  return pychop_mx_quantize(FormatId::f64, bits.data(), shape, PychopFormat::named(fmt), o);
}

// The returned values as doubles.
std::vector<double> values(const PychopResult& r) {
  std::vector<double> v;
  for (std::uint64_t c : r.values)
    v.push_back(r.value_format == FormatId::f64 ? std::bit_cast<double>(c)
                                                : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(c))));
  return v;
}

// Same value, same sign of zero, or both NaN.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}
void expect_values(const PychopResult& r, const std::vector<double>& want, FormatId dtype, const char* name) {
  EXPECT_EQ(r.value_format, dtype) << name;
  const auto got = values(r);
  ASSERT_EQ(got.size(), want.size()) << name;
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(same(got[i], want[i])) << name << " [" << i << "]: " << got[i] << " want " << want[i];
}

// ---------------------------------------------------------------------------------------------
// 1. Hand cases (docs/research/pychop.md section 9).
TEST(Pychop, HandCasesElements) {
  // P1: floor(log2 1) - 8 = -8 (np:190, 203-208), exact elements.
  auto r = run({1, 0.5, -0.25, 0}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0x77});
  EXPECT_EQ(r.codes, (V8{0x78, 0x70, 0xE8, 0x00}));
  expect_values(r, {1, 0.5, -0.25, 0}, FormatId::f64, "P1");
  // P2: subnormal step 2^-9, np.rint half to even (np:83-86).
  r = run({1, 3 * std::ldexp(1.0, -17), std::ldexp(1.0, -18), 3 * std::ldexp(1.0, -18)}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.codes, (V8{0x78, 0x03, 0x00, 0x02}));
  expect_values(r, {1, 3 * std::ldexp(1.0, -17), 0, std::ldexp(1.0, -16)}, FormatId::f64, "P2");
  // P3: E2M1 ties to even (np:83-86).
  r = run({1.25, 1.75, 4, 5}, "mxfp4_e2m1", 4);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, (V8{0x2, 0x4, 0x6, 0x6}));
  expect_values(r, {1, 2, 4, 4}, FormatId::f64, "P3");
  // P4: >= max goes to max before rounding (np:80-81).
  expect_values(run({1.8125}, "mxfp8_e4m3", 1), {1.75}, FormatId::f64, "P4 e4m3");
  expect_values(run({7.5}, "mxfp4_e2m1", 1), {6}, FormatId::f64, "P4 e2m1");
  // P6: value == 0 and rounded == 0 give +0.0 (np:74-75, 88-89).
  r = run({1, -std::ldexp(1.0, -18), -0.0, 0.5}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.codes, (V8{0x78, 0x00, 0x00, 0x70}));
  expect_values(r, {1, 0, 0, 0.5}, FormatId::f64, "P6");
  // P12: MXINT8: -127.5 ties to -128 and is kept (-2.0, 0x80); 127.5 clips to 127; -0.25 rounds
  // to -0.0, a value the code 0x00 cannot carry (np:62-67).
  r = run({-1.9921875, 1.9921875, 0.5, -std::ldexp(1.0, -8)}, "mxint8", 4);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, (V8{0x80, 0x7F, 0x20, 0x00}));
  EXPECT_EQ(r.uncoded, (std::vector<std::size_t>{3}));
  expect_values(r, {-2, 1.984375, 0.5, -0.0}, FormatId::f64, "P12");
}

// Custom (exp_bits, sig_bits) specs: P15-P17 of the research table, and an MXINT4 case.
PychopResult run_tuple(std::vector<double> x, int e, int m, std::size_t bs) {
  PychopOptions o;
  o.block_size = bs;
  const std::size_t shape[1] = {x.size()};
  return pychop_mx_quantize(FormatId::f64, x.data(), shape, PychopFormat::tuple(e, m), o);
}

TEST(Pychop, HandCasesCustomSpecs) {
  // P15: (4, 3) as CUSTOM_MX8_E4M3 has max 480 = 1.875 * 2^8 (np:44-51, no name reduction), so
  // emax 8, scale floor(log2 1.875) - 8 = -8 (0x77), and 1.875 * 2^8 = 480 is code 0x7F, a
  // value; the named mxfp8_e4m3 saturates it to 448 (0x7E, np:80-81).
  auto r = run_tuple({1.875}, 4, 3, 1);
  EXPECT_EQ(r.spec.name, "CUSTOM_MX8_E4M3");
  EXPECT_EQ(r.scales, V8{0x77});
  EXPECT_EQ(r.codes, V8{0x7F});
  expect_values(r, {1.875}, FormatId::f64, "P15 custom");
  r = run({1.875}, "mxfp8_e4m3", 1);
  EXPECT_EQ(r.codes, V8{0x7E});
  expect_values(r, {1.75}, FormatId::f64, "P15 named");
  // P16: (5, 2) has max 1.75 * 2^16 (the all-ones exponent is a binade), emax 16: scale
  // 0 - 16 (0x6F); 1 * 2^16 is exponent field 31 (0x7C); 2^-32 * 2^16 = 2^-16, the smallest
  // subnormal 2^(1 - 15 - 2) (0x01), kept. Named mxfp8_e5m2: scale 0x70, and 2^-17 is half the
  // smallest subnormal: ties to even, +0.
  r = run_tuple({1, std::ldexp(1.0, -32)}, 5, 2, 2);
  EXPECT_EQ(r.scales, V8{0x6F});
  EXPECT_EQ(r.codes, (V8{0x7C, 0x01}));
  expect_values(r, {1, std::ldexp(1.0, -32)}, FormatId::f64, "P16 custom");
  r = run({1, std::ldexp(1.0, -32)}, "mxfp8_e5m2", 2);
  EXPECT_EQ(r.scales, V8{0x70});
  expect_values(r, {1, 0}, FormatId::f64, "P16 named");
  // P17: (1, 2) has bias 0, max 1.75 * 2^1 = 3.5, emax 1: scale floor(log2 3) - 1 = 0 (0x7F);
  // 3.0 = 1.5 * 2^1, exponent field 1, fraction 10: code 0b0110; 0.7 is below 2^(1 - 0), on the
  // subnormal step 2^(1 - 2) = 0.5: rint(1.4) = 1, 0.5, code 1 (np:83-86).
  r = run_tuple({3.0, 0.7}, 1, 2, 2);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, (V8{0x6, 0x1}));
  expect_values(r, {3.0, 0.5}, FormatId::f64, "P17");
  // MXINT4, (0, 3): int_scale 2^(4 - 2) = 4 (np:31-37), emax 0; amax 1.99 gives scale 0 (0x7F).
  // -1.99 * 4 = -7.96: rint -8, inside the clip [-8, 7] (np:62-67): -2.0, two's complement
  // code 0x8; 1.0 * 4 = 4: code 0x4; 0.3 * 4 = 1.2: rint 1, 0.25, code 0x1.
  r = run_tuple({-1.99, 1.0, 0.3}, 0, 3, 3);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, (V8{0x8, 0x4, 0x1}));
  expect_values(r, {-2.0, 1.0, 0.25}, FormatId::f64, "MXINT4");
}

TEST(Pychop, HandCasesScale) {
  // P5: np.log2(float32(255.99998)) rounds to 8.0 (np:203): scale 2^0, element 256.
  const std::uint32_t f = 0x437FFFFF;
  const std::size_t one[1] = {1};
  PychopOptions o;
  o.block_size = 1;
  auto r = pychop_mx_quantize(FormatId::f32, &f, one, PychopFormat::named("mxfp8_e4m3"), o);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, V8{0x78});
  EXPECT_EQ(r.value_format, FormatId::f32);
  EXPECT_EQ(r.values[0], 0x43800000u);
  // P5b: the same value in float64: log2 7.99999991, scale 2^-1, 511.99997 saturates.
  r = run({255.99998474121094}, "mxfp8_e4m3", 1);
  EXPECT_EQ(r.scales, V8{0x7E});
  expect_values(r, {224}, FormatId::f64, "P5b");
  // P5c: pred(256) in float64: log2 rounds to 8.0.
  r = run({std::nextafter(256.0, 0.0)}, "mxfp8_e4m3", 1);
  EXPECT_EQ(r.scales, V8{0x7F});
  expect_values(r, {256}, FormatId::f64, "P5c");
  // P7: all-zero block: 2^-127, float32 zeros, +0 (np:183-187).
  r = run({0, -0.0, 0, 0}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0x00});
  EXPECT_EQ(r.codes, (V8{0, 0, 0, 0}));
  expect_values(r, {0, 0, 0, 0}, FormatId::f32, "P7");
  // P8: nanmax ignores the NaN (np:190); the NaN element stays a NaN value (np:72-73).
  r = run({1, kNan, -3, 0.5}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0x78});
  EXPECT_EQ(r.codes, (V8{0x70, 0x7F, 0xFC, 0x68}));
  expect_values(r, {1, kNan, -3, 0.5}, FormatId::f64, "P8");
  // P8b: E2M1 has no NaN code: the value is NaN, the code +0 and uncoded.
  r = run({kNan, 4}, "mxfp4_e2m1", 2);
  EXPECT_EQ(r.scales, V8{0x7F});
  EXPECT_EQ(r.codes, (V8{0x0, 0x6}));
  EXPECT_EQ(r.uncoded, (std::vector<std::size_t>{0}));
  expect_values(r, {kNan, 4}, FormatId::f64, "P8b");
  // P9: NaN among zeros: max_val == 0, the zero block; the NaN is lost (np:192-196).
  r = run({kNan, 0, -0.0, 0}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0x00});
  expect_values(r, {0, 0, 0, 0}, FormatId::f32, "P9");
  // P10: all NaN: np.clip(NaN) keeps the NaN scale.
  r = run({kNan, kNan, kNan, kNan}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0xFF});
  expect_values(r, {kNan, kNan, kNan, kNan}, FormatId::f64, "P10");
  // P11: an infinite amax: 2^127 (np:200-201); Inf saturates; the product overflows float32.
  r = run({1, kInf, -2, 0.5}, "mxfp8_e4m3", 4);
  EXPECT_EQ(r.scales, V8{0xFE});
  EXPECT_EQ(r.codes, (V8{0x00, 0x7E, 0x00, 0x00}));
  expect_values(r, {0, kInf, 0, 0}, FormatId::f32, "P11");
  // P11b: MXINT8 +Inf gives max (finite 127/64 * 2^127), -Inf min -2 (-Inf in float32).
  r = run({kInf, -kInf}, "mxint8", 2);
  EXPECT_EQ(r.codes, (V8{0x7F, 0x80}));
  EXPECT_EQ(r.values[0], 0x7F7E0000u);
  EXPECT_EQ(r.values[1], 0xFF800000u);
  // P18: scale_exp_bits = 5: [-15, 15] (np:23-26); 2^-30 / 2^-15 flushes to +0.
  o = {};
  o.scale_exp_bits = 5;
  r = run({std::ldexp(1.0, -30)}, "mxfp8_e4m3", 1, o);
  EXPECT_EQ(r.scales, V8{127 - 15});
  expect_values(r, {0}, FormatId::f64, "P18");
  // P19: 192 clips to 127 (np:204); NumPy 2 keeps the float64 product, NumPy 1 overflows float32.
  r = run({std::ldexp(1.0, 200)}, "mxfp8_e4m3", 1);
  EXPECT_EQ(r.scales, V8{0xFE});
  expect_values(r, {448 * std::ldexp(1.0, 127)}, FormatId::f64, "P19 numpy 2");
  o = {};
  o.numpy = PychopNumpy::v1;
  expect_values(run({std::ldexp(1.0, 200)}, "mxfp8_e4m3", 1, o), {kInf}, FormatId::f32, "P19 numpy 1");
}

TEST(Pychop, HandCasesLayoutAndBackends) {
  // P13: flatten and pad at the end (np:271-278): blocks cross rows.
  const std::vector<double> x = {0.5, 0.5, 0.5, 8, 8, 8};
  const std::size_t shape[2] = {2, 3};
  PychopOptions o;
  o.block_size = 4;
  auto r = pychop_mx_quantize(FormatId::f64, x.data(), shape, PychopFormat::named("mxfp4_e2m1"), o);
  EXPECT_EQ(r.scales, (V8{0x80, 0x80}));
  expect_values(r, {0, 0, 0, 8, 8, 8}, FormatId::f64, "P13");
  // P14: string formats get block size 32 under torch (tch/mx_formats.py:79-82).
  std::vector<std::uint32_t> f(32, std::bit_cast<std::uint32_t>(0.5f));
  f[0] = std::bit_cast<std::uint32_t>(8.0f);
  const std::size_t s32[1] = {32};
  o.block_size = 16;
  r = pychop_mx_quantize(FormatId::f32, f.data(), s32, PychopFormat::named("mxfp4_e2m1"), o);
  EXPECT_EQ(r.scales, (V8{0x80, 0x7C}));
  o.backend = PychopBackend::torch;
  r = pychop_mx_quantize(FormatId::f32, f.data(), s32, PychopFormat::named("mxfp4_e2m1"), o);
  EXPECT_EQ(r.scales, V8{0x80});
  EXPECT_EQ(r.spec.block_size, 32u);
  EXPECT_EQ(r.values[1], 0u);
  // A tuple uses the argument; an MXSpec its own (np:118-131).
  o.backend = PychopBackend::numpy;
  EXPECT_EQ(pychop_resolve_spec(PychopFormat::tuple(2, 1), o).block_size, 16u);
  EXPECT_EQ(pychop_resolve_spec(PychopFormat::tuple(2, 1), o).name, "CUSTOM_MX4_E2M1");
  EXPECT_EQ(pychop_resolve_spec(PychopFormat::of(*find_pychop_spec("MXINT8")), o).block_size, 32u);
  // Custom specs softmx expresses: FP6, FP4 and MXINT have no specials in OCP either.
  EXPECT_EQ(pychop_element(pychop_custom_spec(3, 2)), FormatId::e3m2);
  EXPECT_EQ(pychop_element(pychop_custom_spec(0, 7)), FormatId::int8);
  // (4, 3) under another name has max 480 (np:44-51): the runtime format without specials.
  EXPECT_EQ(pychop_element(pychop_custom_spec(4, 3)).format(), parse_format_spec("e4m3:specials=none"));
  EXPECT_EQ(pychop_element(pychop_custom_spec(1, 2)).format(), parse_format_spec("e1m2:bias=0:specials=none"));
  EXPECT_EQ(pychop_element(pychop_custom_spec(0, 3)).format(), parse_format_spec("int4"));
  // Wider than 8 bits, or MXINT without a bit: not an MX block element; the message names it.
  for (auto [e, m] : {std::pair{4, 4}, std::pair{5, 10}, std::pair{0, 8}, std::pair{0, 0}, std::pair{9, 0}}) {
    try {
      (void)pychop_element(pychop_custom_spec(e, m));
      ADD_FAILURE() << e << "," << m << " accepted";
    } catch (const std::invalid_argument& x) {
      EXPECT_NE(std::string(x.what()).find("exp_bits " + std::to_string(e) + ", sig_bits " + std::to_string(m)),
                std::string::npos)
          << x.what();
    }
  }
  EXPECT_EQ(pychop_element(pychop_custom_spec(4, 3, 32, 8, "mxfp8_e4m3")), FormatId::e4m3);
  EXPECT_THROW(run({1}, "mxfp9", 1), std::invalid_argument);
  o.scale_exp_bits = 9;
  EXPECT_THROW(run({1}, "mxint8", 1, o), std::invalid_argument);
  const std::uint16_t h = 0x3C00;
  EXPECT_THROW(pychop_mx_quantize(FormatId::f16, &h, std::span<const std::size_t>(), PychopFormat::named("mxint8"), {}),
               std::invalid_argument);
}

TEST(Pychop, Statistics) {
  // MXTensor(np.ones(33), "mxfp4_e2m1", block_size=16) (pc:tests/test_mx_bfp_formats.py:48-53).
  PychopOptions o;
  o.block_size = 16;
  const std::size_t n33[1] = {33};
  PychopStatistics s = pychop_statistics(pychop_resolve_spec(PychopFormat::named("mxfp4_e2m1"), o), n33);
  EXPECT_EQ(s.format, "MXFP4_E2M1");
  EXPECT_EQ(s.num_blocks, 3u);
  EXPECT_EQ(s.total_elements, 33u);
  EXPECT_EQ(s.block_size, 16u);
  EXPECT_EQ(s.scale_exp_bits, 8);
  EXPECT_EQ(s.compression_ratio_fp32, 1056.0 / 216.0);
  EXPECT_EQ(s.compression_ratio_fp16, 528.0 / 216.0);
  EXPECT_EQ(s.bits_per_element, 216.0 / 33.0);
  // (1024, 768) mxfp8_e4m3: T = 264, B = 24576, 8.25 bits per element.
  const std::size_t big[2] = {1024, 768};
  s = pychop_statistics(pychop_resolve_spec(PychopFormat::named("mxfp8_e4m3")), big);
  EXPECT_EQ(s.num_blocks, 24576u);
  EXPECT_EQ(s.bits_per_element, 8.25);
  EXPECT_EQ(s.compression_ratio_fp32, 32.0 * 786432 / (24576.0 * 264));
  EXPECT_EQ(s.original_shape, (std::vector<std::size_t>{1024, 768}));
  // The scale_exp_bits override enters the spec and T (_resolve_spec, np:107-137).
  o.scale_exp_bits = 5;
  s = pychop_statistics(pychop_resolve_spec(PychopFormat::named("mxfp4_e2m1"), o), n33);
  EXPECT_EQ(s.scale_exp_bits, 5);
  EXPECT_EQ(s.bits_per_element, 3.0 * (64 + 5) / 33.0);
}

// ---------------------------------------------------------------------------------------------
// 2. floor(RN_p(log2 x)) against MPFR.

using conformance::mpfr_floor_log2;  // support/mpfr_value.hpp

TEST(Pychop, FloorLog2RoundedAgainstMpfr) {
  conformance::Tally t("floor(RN_p(log2 x)): 60 predecessors of every power of two and 20000 random values, p = 24 and 53, vs MPFR");
  auto check = [&](double x, FormatId src, int p) {
    const Unpacked u = unpack(format(src), src == FormatId::f64 ? std::bit_cast<std::uint64_t>(x)
                                                                 : std::bit_cast<std::uint32_t>(static_cast<float>(x)));
    const int got = floor_log2_rounded(u, p), want = mpfr_floor_log2(x, p);
    t.check(got == want, [&] { return std::to_string(x) + " p " + std::to_string(p) + ": " + std::to_string(got) + " want " + std::to_string(want); });
  };
  for (int k = -148; k <= 127; ++k) {
    float f = std::ldexp(1.0f, k);
    for (int n = 0; n < 60 && f > 0; ++n, f = std::nextafter(f, 0.0f)) check(f, FormatId::f32, 24);
  }
  for (int k = -1073; k <= 1023; k += 7) {
    double d = std::ldexp(1.0, k);
    for (int n = 0; n < 60 && d > 0; ++n, d = std::nextafter(d, 0.0)) check(d, FormatId::f64, 53);
  }
  SplitMix64 rng(0x109);
  for (int i = 0; i < 10000; ++i) {
    const double d = std::bit_cast<double>(rng.next() >> 2 | 0x0010000000000000ull) ;
    if (std::isfinite(d) && d > 0) check(d, FormatId::f64, 53);
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng.next()) & 0x7F7FFFFF);
    if (f > 0) check(f, FormatId::f32, 24);
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// 3. A transcription of pychop's numpy backend (np:62-104, 178-227, 252-307).

struct Params {
  int e, s, bias, emax;
  double max, min;
};
Params params(const PychopSpec& sp) {
  Params p{sp.exp_bits, sp.sig_bits, 0, 0, 0, 0};
  if (p.e == 0) {  // np:31-37
    const double is = std::ldexp(1.0, sp.element_bits() - 2);
    p.max = (std::ldexp(1.0, sp.element_bits() - 1) - 1) / is;
    p.min = -std::ldexp(1.0, sp.element_bits() - 1) / is;
    return p;
  }
  p.bias = (1 << (p.e - 1)) - 1;
  int max_exp = (1 << p.e) - 1, max_sig = (1 << p.s) - 1;
  if (sp.name == "MXFP8_E5M2") --max_exp;
  if (sp.name == "MXFP8_E4M3") --max_sig;
  p.max = (1.0 + max_sig * std::ldexp(1.0, -p.s)) * std::ldexp(1.0, max_exp - p.bias);
  p.emax = static_cast<int>(std::floor(std::log2(p.max)));
  return p;
}

double element(double v, const Params& p) {
  if (p.e == 0) {  // np:96-103, 62-67
    if (std::isnan(v)) return kNan;
    if (v == kInf) return p.max;
    if (v == -kInf) return p.min;
    const double sc = std::ldexp(1.0, p.s - 1);
    double q = std::nearbyint(v * sc);
    q = std::clamp(q, -2 * sc, 2 * sc - 1);
    return q / sc;
  }
  if (std::isnan(v)) return kNan;  // np:70-92
  if (v == 0) return 0.0;
  const double sign = v < 0 ? -1.0 : 1.0;
  v = std::fabs(v);
  if (std::isinf(v) || v >= p.max) return sign * p.max;
  const int ev = std::max(static_cast<int>(std::floor(std::log2(v))), 1 - p.bias);
  const double step = std::ldexp(1.0, ev - p.s);
  double r = std::nearbyint(v / step) * step;
  if (r == 0) return 0.0;
  if (r > p.max) r = p.max;
  return sign * r;
}

// Returns the values as doubles and the array dtype (true: float64).
std::vector<double> transcription(const std::vector<double>& data, bool f32, const Params& p, std::size_t bs,
                                  bool numpy2, bool& out_f64) {
  std::vector<double> flat = data;
  while (flat.size() % bs) flat.push_back(0.0);
  std::vector<double> out;
  std::vector<bool> blk64;
  out_f64 = false;
  for (std::size_t b = 0; b < flat.size() / bs; ++b) {
    const std::vector<double> x(flat.begin() + static_cast<long>(b * bs), flat.begin() + static_cast<long>((b + 1) * bs));
    bool all_zero = true;
    double mx = kNan;  // np.nanmax
    for (double v : x) {
      all_zero &= v == 0;
      if (!std::isnan(v)) mx = std::isnan(mx) ? std::fabs(v) : std::max(mx, std::fabs(v));
    }
    std::vector<float> q(bs, 0.0f);
    double scale;
    bool py_float = true;
    if (all_zero || mx == 0) {
      scale = std::ldexp(1.0, -127);
    } else {
      double se;
      if (std::isinf(mx)) {
        se = 127;
      } else {
        se = std::isnan(mx) ? kNan : mpfr_floor_log2(mx, f32 ? 24 : 53) - p.emax;  // np.floor(np.log2(max_val))
        if (!std::isnan(se)) se = std::clamp(se, -127.0, 127.0);
        py_float = false;
      }
      scale = std::isnan(se) ? kNan : std::ldexp(1.0, static_cast<int>(se));
      for (std::size_t i = 0; i < bs; ++i) {
        const double scaled = f32 ? static_cast<double>(static_cast<float>(x[i]) / static_cast<float>(scale)) : x[i] / scale;
        q[i] = static_cast<float>(element(scaled, p));
      }
    }
    const bool b64 = numpy2 && !f32 && !py_float;
    out_f64 |= b64;
    blk64.push_back(b64);
    for (std::size_t i = 0; i < bs; ++i) {
      const double prod = static_cast<double>(q[i]) * scale;  // exact in double
      out.push_back(b64 ? prod : static_cast<double>(static_cast<float>(prod)));
    }
  }
  out.resize(data.size());
  return out;
}

TEST(Pychop, AgainstTranscription) {
  conformance::Tally t(
      "pychop mx_quantize vs a transcription of its numpy backend: 3000 arrays x (6 named formats + 9 custom "
      "(exp_bits, sig_bits) specs)");
  // The named specs by key, then custom specs by tuple (the runtime formats pychop_element makes).
  std::vector<PychopFormat> formats;
  for (const char* key : {"mxfp8_e5m2", "mxfp8_e4m3", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8"})
    formats.push_back(PychopFormat::named(key));
  for (auto [e, m] : {std::pair{4, 3}, std::pair{5, 2}, std::pair{1, 2}, std::pair{2, 2}, std::pair{3, 4}, std::pair{3, 0},
                      std::pair{1, 1}, std::pair{0, 3}, std::pair{0, 5}})
    formats.push_back(PychopFormat::tuple(e, m));
  SplitMix64 rng(0x9C40);
  for (int trial = 0; trial < 3000; ++trial) {
    const bool f32 = trial % 2;
    const std::size_t n = 1 + rng.next() % 50, bs = 1 + rng.next() % 12;
    const int base = static_cast<int>(rng.next() % 60) - 30 + (trial % 7 == 0 ? 100 : 0) - (trial % 11 == 0 ? 140 : 0);
    std::vector<double> x(n);
    for (double& v : x) {
      const unsigned kind = static_cast<unsigned>(rng.next() % 40);
      const double sgn = rng.next() % 2 ? -1.0 : 1.0;
      if (kind == 0) v = 0.0 * sgn;
      else if (kind == 1) v = kNan;
      else if (kind == 2 && trial % 5 == 0) v = sgn * kInf;
      else if (kind < 8) {  // a few predecessors of a power of two
        double d = std::ldexp(1.0, base + static_cast<int>(rng.next() % 8));
        for (unsigned k = static_cast<unsigned>(rng.next() % 30); k > 0; --k)
          d = f32 ? std::nextafter(static_cast<float>(d), 0.0f) : std::nextafter(d, 0.0);
        v = sgn * d;
      } else {
        v = sgn * std::ldexp(static_cast<double>(rng.next() >> 11), base - 53 - static_cast<int>(rng.next() % 24));
      }
      if (f32) v = static_cast<double>(static_cast<float>(v));
    }
    for (const PychopFormat& fmt : formats) {
      PychopOptions po;
      po.block_size = bs;
      const PychopSpec spec = pychop_resolve_spec(fmt, po);
      const Params p = params(spec);
      const std::string key = spec.name;
      for (PychopNumpy np : {PychopNumpy::v2, PychopNumpy::v1}) {
        PychopOptions o;
        o.block_size = bs;
        o.numpy = np;
        PychopResult r;
        if (f32) {
          std::vector<float> xf(x.begin(), x.end());
          r = pychop_mx_quantize(FormatId::f32, xf.data(), std::array<std::size_t, 1>{n}, fmt, o);
        } else {
          r = pychop_mx_quantize(FormatId::f64, x.data(), std::array<std::size_t, 1>{n}, fmt, o);
        }
        bool want64;
        const auto want = transcription(x, f32, p, bs, np == PychopNumpy::v2, want64);
        const auto got = values(r);
        bool ok = (r.value_format == FormatId::f64) == want64;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n && ok; ++i)
          if (!same(got[i], want[i])) ok = false, bad = i;
        t.check(ok, [&] {
          return key + " trial " + std::to_string(trial) + (f32 ? " f32" : " f64") + " bs " + std::to_string(bs) +
                 " [" + std::to_string(bad) + "] x " + std::to_string(x[bad]) + ": " + std::to_string(got[bad]) + " want " +
                 std::to_string(want[bad]);
        });
      }
    }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
