// conformance/test_fnuz.cpp: the FNUZ formats and ml_dtypes' IEEE-like FP8, pinned by cases
// computed by hand from ml_dtypes' ConvertImpl (jax-ml/ml_dtypes @ b793a6e,
// ml_dtypes/include/float8.h) and AMD's HIP software model (ROCm/clr
// hipamd/include/hip/amd_detail/amd_hip_fp8.h, cast_to_f8 / cast_from_f8), as tabulated in
// docs/research/amd-fnuz.md section 5 (row numbers below). softmx's ocp dialect gives
// ml_dtypes' default (non-saturating) column under saturation none, and under saturation
// finite AMD's host reading for Inf (docs/DIALECTS.md, "FNUZ").
#include <gtest/gtest.h>

#include <string>

#include "softmx/convert.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

struct Case {
  int row;              // docs/research/amd-fnuz.md section 5
  const char* dst;      // format spec
  std::uint32_t f32;    // input bits
  std::uint64_t none;   // code under saturation none
  Flags none_flags;
  std::uint64_t finite; // code under saturation finite
  Flags finite_flags;
  const char* why;
};

constexpr Flags x = flag::inexact, u = flag::underflow, o = flag::overflow, v = flag::invalid;

const Case kCases[] = {
    {1, "e4m3fnuz", 0x3F800000, 0x40, 0, 0x40, 0, "1.0: exponent 0 + bias 8 = 8 (float8.h:1444)"},
    {2, "e4m3fnuz", 0x3F880000, 0x40, x, 0x40, x, "1.0625 ties to the even 1.0 (RoundBitsToNearestEven, 1266-1277)"},
    {3, "e4m3fnuz", 0x3F980000, 0x42, x, 0x42, x, "1.1875 ties to the even 1.25"},
    {4, "e4m3fnuz", 0x43700000, 0x7F, 0, 0x7F, 0, "240 = 1.111b * 2^7, highest() 0x7F (862)"},
    {5, "e4m3fnuz", 0x43740000, 0x7F, x, 0x7F, x, "244 rounds to 240 first (1465-1468), then 0x7F <= max (1503)"},
    {6, "e4m3fnuz", 0x43780000, 0x80, o | x, 0x7F, o | x, "248 ties to the even 256: overflow, infinity() 0x80 (1503-1511)"},
    {7, "e4m3fnuz", 0xC3780000, 0x80, o | x, 0xFF, o | x, "-248: -0x80 stays 0x80 (353-358, 1516); saturated -max 0xFF"},
    {8, "e4m3fnuz", 0x7F800000, 0x80, v, 0x7F, v, "+Inf: 0x80 (1371); finite: +max, AMD host signed_inf (HIP cast_to_f8)"},
    {9, "e4m3fnuz", 0xFF800000, 0x80, v, 0xFF, v, "-Inf: 0x80; finite: -max"},
    {10, "e4m3fnuz", 0x7FC00000, 0x80, 0, 0x80, 0, "+NaN: quiet_NaN() 0x80 (1375-1378)"},
    {11, "e4m3fnuz", 0xFFC00000, 0x80, 0, 0x80, 0, "-NaN: -quiet_NaN() is 0x80 too"},
    {12, "e4m3fnuz", 0x80000000, 0x00, 0, 0x00, 0, "-0: -zero of a fnuz type is +0 (1386, 353-358)"},
    {13, "e4m3fnuz", 0xB9800000, 0x00, u | x, 0x00, u | x, "-2^-12 rounds to 0, then +0 (1516)"},
    {14, "e4m3fnuz", 0x3A800000, 0x01, 0, 0x01, 0, "2^-10: the smallest subnormal"},
    {15, "e4m3fnuz", 0x3A000000, 0x00, u | x, 0x00, u | x, "2^-11 ties to the even 0"},
    {16, "e4m3fnuz", 0xBA000000, 0x00, u | x, 0x00, u | x, "-2^-11 ties to 0, then +0"},
    {17, "e4m3fnuz", 0x3A400000, 0x01, u | x, 0x01, u | x, "1.5 * 2^-11: above the midpoint"},
    {18, "e4m3fnuz", 0x3BF00000, 0x08, u | x, 0x08, u | x, "7.5 * 2^-10 ties to the even 2^-7 (0x07 -> 0x08)"},
    {19, "e4m3fnuz", 0x49742400, 0x80, o | x, 0x7F, o | x, "1e6: exponent past max_exponent + bias (1503)"},
    {20, "e5m2fnuz", 0x47600000, 0x7F, 0, 0x7F, 0, "57344 = 1.11b * 2^15, bias 16"},
    {21, "e5m2fnuz", 0x476A6000, 0x7F, x, 0x7F, x, "60000 < 61440 rounds to 57344"},
    {22, "e5m2fnuz", 0x47700000, 0x80, o | x, 0x7F, o | x, "61440 ties to the even 2^16: overflow"},
    {23, "e5m2fnuz", 0x36800000, 0x00, u | x, 0x00, u | x, "2^-18 = half the smallest subnormal 2^-17: ties to 0"},
    {24, "e5m2fnuz", 0xB9800000, 0x90, 0, 0x90, 0, "-2^-12: exponent -12 + 16 = 4, 0b1'00100'00"},
    {25, "e4m3b11fnuz", 0x41F80000, 0x80, o | x, 0x7F, o | x, "31 ties to 32 past max 30 (bias 11)"},
    {26, "float8_e4m3", 0x43780000, 0x78, o | x, 0x77, o | x, "248 > max 240 = 0x77 (680): infinity() 0x78 (692)"},
    {27, "float8_e4m3", 0x7F800000, 0x78, 0, 0x77, v, "+Inf stays Inf (1371); finite: max, invalid"},
    {28, "e3m4", 0x417C0000, 0x70, o | x, 0x6F, o | x, "15.75 ties to 16 past max 15.5 (616): Inf 0x70 (628)"},
};

TEST(Fnuz, HandComputedCasesFromMlDtypesAndHip) {
  conformance::Tally t("fnuz and IEEE-like FP8: hand-computed cases (ml_dtypes ConvertImpl, HIP cast_to_f8)");
  for (const Case& k : kCases) {
    for (Saturation s : {Saturation::none, Saturation::finite}) {
      Context c;
      c.saturation = s;
      const Result r = convert(format(FormatId::f32), parse_format_spec(k.dst), k.f32, c);
      const std::uint64_t want = s == Saturation::none ? k.none : k.finite;
      const Flags want_f = s == Saturation::none ? k.none_flags : k.finite_flags;
      t.check(r.code == want && r.flags == want_f, [&] {
        return "row " + std::to_string(k.row) + " " + k.dst + " " + std::string(name(s)) + ": got " +
               std::to_string(r.code) + "/" + std::to_string(r.flags) + ", want " + std::to_string(want) + "/" +
               std::to_string(want_f) + " (" + k.why + ")";
      });
    }
    // ml_dtypes' own dialect: its default cast is the saturation-none column.
    Context c;
    c.saturation = Saturation::none;
    const Result r = convert(format(FormatId::f32), parse_format_spec(k.dst), k.f32, c, *find_dialect("ml_dtypes"));
    t.check(r.code == k.none, [&] { return "row " + std::to_string(k.row) + " ml_dtypes: got " + std::to_string(r.code); });
  }
  t.report();
}

TEST(Fnuz, DecodingAndTheSingleNaN) {
  const Format fnuz = parse_format_spec("e4m3fnuz"), f32 = format(FormatId::f32);
  Context none;
  none.saturation = Saturation::none;
  // 0x80 is a negative quiet NaN: f32 -NaN 0xFFC00000, as ml_dtypes (1364-1378 with From = fnuz).
  EXPECT_EQ(convert(fnuz, f32, 0x80, none).code, 0xFFC00000u);
  EXPECT_EQ(convert(fnuz, f32, 0x80, none).flags, 0);
  EXPECT_EQ(convert(fnuz, f32, 0x01, none).code, 0x3A800000u);  // 2^-10
  EXPECT_EQ(convert(fnuz, f32, 0x7F, none).code, 0x43700000u);  // 240
  EXPECT_EQ(convert(fnuz, f32, 0xFF, none).code, 0xC3700000u);  // -240
  EXPECT_EQ(convert(fnuz, f32, 0x00, none).code, 0x00000000u);  // the one zero
  // The NaN code ignores nan_sign (gfloat: negative) and nan_payload: there is one NaN.
  EXPECT_EQ(convert(f32, fnuz, 0x7FC00000, none, *find_dialect("gfloat")).code, 0x80u);
  EXPECT_EQ(convert(f32, fnuz, 0x7F800001, none).flags, flag::invalid);  // signalling
  // Every code but 0x80 is a number, and 0x80 is the only NaN.
  for (std::uint64_t c = 0; c < 256; ++c) EXPECT_EQ(unpack(fnuz, c).cls == ValueClass::nan, c == 0x80) << c;
  // Between fnuz formats and to OCP e4m3: 0x80 -> NaN, 240 -> 240 (0x77 is 240 in e4m3).
  EXPECT_EQ(convert(fnuz, parse_format_spec("e5m2fnuz"), 0x80, none).code, 0x80u);
  EXPECT_EQ(convert(fnuz, format(FormatId::e4m3), 0x7F, none).code, 0x77u);
  EXPECT_EQ(convert(fnuz, format(FormatId::e4m3), 0x80, none).code, 0xFFu);  // -NaN, sign preserved
}

}  // namespace
}  // namespace softmx
