// conformance/test_amd_gfx942.cpp: the amd-gfx942 dialect (docs/DIALECTS.md, "amd-gfx942"),
// what an MI300 computes through v_cvt_pk_{fp8,bf8}_f32 and v_cvt_sr_{fp8,bf8}_f32 as AMD's
// code uses them. Inferred from that code, not measured on a device.
//
//   - Hand-computed cases: docs/research/amd-fnuz.md section 5, the "amd-gfx942 none / finite"
//     column, each citing the line of AMD's (or ml_dtypes') code it follows.
//   - What the dialect refuses (OCP FP8, FP6, FP4, MXINT8, E8M0, other runtime formats, the
//     directed roundings) and accepts (rne and rs, saturation none and finite).
//   - The MPFR oracle with the dialect's policies: every f16 input and every code into and out
//     of e4m3fnuz and e5m2fnuz.
//
// The research's "finite" column is HIP's __HIP_SATFINITE / CK's clip: a software clamp of finite
// inputs, then the instruction; Inf passes the clamp and gives 0x80 (satfinite_inf as_none).
#include <gtest/gtest.h>

#include <string>

#include "softmx/convert.hpp"
#include "support/bridge.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

const Dialect& gfx942() {
  const Dialect* d = find_dialect("amd-gfx942");
  if (!d) throw std::runtime_error("no dialect amd-gfx942");
  return *d;
}

struct Case {
  int row;              // docs/research/amd-fnuz.md section 5
  const char* dst;
  std::uint32_t f32;
  std::uint64_t none;   // saturation none: the bare instruction (what the dialect computes)
  Flags none_flags;
  std::uint64_t finite; // saturation finite: HIP __HIP_SATFINITE / CK clip (fmed3 clamp, then the instruction)
  Flags finite_flags;
  const char* why;
};

constexpr Flags x = flag::inexact, u = flag::underflow, o = flag::overflow, v = flag::invalid;

// HIP = ROCm/clr hipamd/include/hip/amd_detail/amd_hip_fp8.h @f9f995c; ml = jax-ml/ml_dtypes
// ml_dtypes/include/float8.h @b793a6e (the software model of the rounding the research reads as
// the instruction's, research 2.2 and 2.4).
const Case kCases[] = {
    {1, "e4m3fnuz", 0x3F800000, 0x40, 0, 0x40, 0, "1.0: exponent 0 + bias 8 (ml 1444); HIP 541-545 RNE CVT"},
    {2, "e4m3fnuz", 0x3F880000, 0x40, x, 0x40, x, "1.0625 ties to the even 1.0 (HIP 317-339 model)"},
    {3, "e4m3fnuz", 0x3F980000, 0x42, x, 0x42, x, "1.1875 ties to the even 1.25"},
    {4, "e4m3fnuz", 0x43700000, 0x7F, 0, 0x7F, 0, "240 = max; fmed3(x, 240, -240) keeps it (HIP 522)"},
    {5, "e4m3fnuz", 0x43740000, 0x7F, x, 0x7F, x, "244 rounds to 240 before the overflow test (ml 1465-1468; [INF])"},
    {6, "e4m3fnuz", 0x43780000, 0x80, o | x, 0x7F, o | x, "248: RNE to 256 overflows to NaN (MLIR clampInput comment); "
                                                          "finite: clamped to 240 first (HIP 522)"},
    {7, "e4m3fnuz", 0xC3780000, 0x80, o | x, 0xFF, o | x, "-248: NaN 0x80; finite: clamped to -240 = 0xFF"},
    {8, "e4m3fnuz", 0x7F800000, 0x80, v, 0x80, v, "+Inf: the clamp skips non-finite inputs (HIP 521), NaN ([INF])"},
    {9, "e4m3fnuz", 0xFF800000, 0x80, v, 0x80, v, "-Inf: as +Inf"},
    {10, "e4m3fnuz", 0x7FC00000, 0x80, 0, 0x80, 0, "+NaN propagates (HIP 521): 0x80"},
    {11, "e4m3fnuz", 0xFFC00000, 0x80, 0, 0x80, 0, "-NaN: 0x80, the one NaN"},
    {12, "e4m3fnuz", 0x80000000, 0x00, 0, 0x00, 0, "-0: +0, no -0 in fnuz (HIP 366 model)"},
    {13, "e4m3fnuz", 0xB9800000, 0x00, u | x, 0x00, u | x, "-2^-12 rounds to zero: +0 (HIP 366)"},
    {14, "e4m3fnuz", 0x3A800000, 0x01, 0, 0x01, 0, "2^-10, the smallest subnormal"},
    {15, "e4m3fnuz", 0x3A000000, 0x00, u | x, 0x00, u | x, "2^-11 ties to the even 0"},
    {16, "e4m3fnuz", 0xBA000000, 0x00, u | x, 0x00, u | x, "-2^-11 ties to 0: +0"},
    {17, "e4m3fnuz", 0x3A400000, 0x01, u | x, 0x01, u | x, "1.5 * 2^-11: above the midpoint"},
    {18, "e4m3fnuz", 0x3BF00000, 0x08, u | x, 0x08, u | x, "7.5 * 2^-10 ties up into the smallest normal 0x08"},
    {19, "e4m3fnuz", 0x49742400, 0x80, o | x, 0x7F, o | x, "1e6: NaN; finite: clamped to 240"},
    {20, "e5m2fnuz", 0x47600000, 0x7F, 0, 0x7F, 0, "57344 = 1.11b * 2^15 (bias 16), max; fmed3 bound 57344"},
    {21, "e5m2fnuz", 0x476A6000, 0x7F, x, 0x7F, x, "60000 rounds to 57344 before the overflow test ([INF])"},
    {22, "e5m2fnuz", 0x47700000, 0x80, o | x, 0x7F, o | x, "61440 ties to the even 2^16: NaN; finite: 57344"},
    {23, "e5m2fnuz", 0x36800000, 0x00, u | x, 0x00, u | x, "2^-18, half the smallest subnormal: ties to 0"},
    {24, "e5m2fnuz", 0xB9800000, 0x90, 0, 0x90, 0, "-2^-12: exponent -12 + 16 = 4, 0b1'00100'00"},
};

TEST(AmdGfx942, HandComputedCasesFromAmdCode) {
  const Dialect& d = gfx942();
  const Format f32 = format(FormatId::f32);
  int n = 0;
  for (const Case& c : kCases) {
    const Format dst = parse_format_spec(c.dst);
    Context ctx;
    ctx.saturation = Saturation::none;
    const Result r = convert(f32, dst, c.f32, ctx, d);
    EXPECT_EQ(r.code, c.none) << "row " << c.row << " " << c.dst << ": " << c.why;
    EXPECT_EQ(r.flags, c.none_flags) << "row " << c.row << " " << c.dst;
    // The default (Saturation::by_destination) is none, the bare instruction (research 4).
    EXPECT_EQ(convert(f32, dst, c.f32, Context{}, d).code, c.none) << "row " << c.row;
    ctx.saturation = Saturation::finite;
    const Result f = convert(f32, dst, c.f32, ctx, d);
    EXPECT_EQ(f.code, c.finite) << "row " << c.row << " " << c.dst << " finite: " << c.why;
    EXPECT_EQ(f.flags, c.finite_flags) << "row " << c.row << " " << c.dst << " finite";
    ++n;
  }
  EXPECT_EQ(n, 24);
  // Decoding the NaN 0x80 into f32 gives the positive canonical NaN (unverified, research 2.2).
  Context dec;
  EXPECT_EQ(convert(parse_format_spec("e4m3fnuz"), f32, 0x80, dec, d).code, 0x7FC00000u);
  EXPECT_EQ(convert(parse_format_spec("e5m2fnuz"), f32, 0x80, dec, d).code, 0x7FC00000u);
  EXPECT_EQ(convert(parse_format_spec("e4m3fnuz"), f32, 0x01, dec, d).code, 0x3A800000u);  // 2^-10
}

TEST(AmdGfx942, RefusesWhatGfx942CannotConvert) {
  const Dialect& d = gfx942();
  Context ctx;
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8,
                     FormatId::e8m0})
    EXPECT_TRUE(unsupported_reason(d, format(f), ctx).has_value()) << format(f).name;
  for (const char* spec : {"e3m4", "e4m3b11fnuz", "e4m3:specials=fnuz", "e2m2", "ue4m3"})
    EXPECT_TRUE(unsupported_reason(d, parse_format_spec(spec), ctx).has_value()) << spec;
  EXPECT_TRUE(unsupported_source_reason(d, parse_format_spec("e3m4")).has_value());
  EXPECT_FALSE(unsupported_source_reason(d, parse_format_spec("e4m3fnuz")).has_value());
  // rne and rs (v_cvt_pk / v_cvt_sr), not the directed modes.
  for (Rounding r : {Rounding::rne, Rounding::rs}) {
    ctx.rounding = r;
    EXPECT_FALSE(unsupported_reason(d, parse_format_spec("e5m2fnuz"), ctx).has_value()) << name(r);
  }
  for (Rounding r : {Rounding::rz, Rounding::ru, Rounding::rd, Rounding::rna, Rounding::ro}) {
    ctx.rounding = r;
    EXPECT_TRUE(unsupported_reason(d, parse_format_spec("e4m3fnuz"), ctx).has_value()) << name(r);
  }
  // Saturation finite (HIP's software clamp) is offered, with Inf as under none (0x80).
  ctx.rounding = Rounding::rne;
  ctx.saturation = Saturation::finite;
  EXPECT_FALSE(unsupported_reason(d, parse_format_spec("e4m3fnuz"), ctx).has_value());
  EXPECT_EQ(d.satfinite_inf, SatfiniteInf::as_none);
  ctx.saturation = Saturation::by_destination;
  // Blocks: no MX instruction on gfx942.
  EXPECT_FALSE(d.block.unsupported.empty());
  // The IEEE destinations (decoding) stay available.
  ctx.rounding = Rounding::rne;
  EXPECT_FALSE(unsupported_reason(d, format(FormatId::f32), ctx).has_value());
}

// Every f16 input and every code against the MPFR oracle given the dialect's policies
// (conformance::to_oracle), under saturation none and finite: 2 x 2 x (65536 + 256) cases.
TEST(AmdGfx942, MatchesTheOracleOnEveryF16AndEveryCode) {
  const Dialect& d = gfx942();
  const oracle::Policies pol = conformance::to_oracle(d);
  const Format f16 = format(FormatId::f16), f32 = format(FormatId::f32);
  std::uint64_t cases = 0, bad = 0;
  for (const char* spec : {"e4m3fnuz", "e5m2fnuz"}) {
    const Format dst = parse_format_spec(spec);
    // The oracle's descriptors by hand (research section 1: bias 8 and 16, fnuz), not the parser's.
    oracle::Desc od;
    od.exp_bits = spec[1] == '4' ? 4 : 5;
    od.man_bits = spec[1] == '4' ? 3 : 2;
    od.bias = spec[1] == '4' ? 8 : 16;
    od.specials = oracle::Desc::Specials::fnuz;
    const oracle::Desc o16 = oracle::desc(oracle::Fmt::f16), o32 = oracle::desc(oracle::Fmt::f32);
    for (Saturation s : {Saturation::none, Saturation::finite}) {
      Context ctx;
      ctx.saturation = s;
      const oracle::Sat os = s == Saturation::none ? oracle::Sat::none : oracle::Sat::finite;
      for (std::uint64_t in = 0; in < 65536; ++in) {
        const Result r = convert(f16, dst, in, ctx, d);
        const oracle::Outcome w = oracle::convert(o16, od, in, oracle::Mode::rne, os, oracle::Tiny::after, pol);
        ++cases;
        if ((r.code != w.code || r.flags != w.flags) && ++bad <= 5)
          ADD_FAILURE() << spec << " f16 " << std::hex << in << ": " << r.code << "/" << int(r.flags) << " oracle "
                        << w.code << "/" << int(w.flags);
      }
      for (std::uint64_t c = 0; c < 256; ++c) {
        const Result r = convert(dst, f32, c, ctx, d);
        const oracle::Outcome w = oracle::convert(od, o32, c, oracle::Mode::rne, os, oracle::Tiny::after, pol);
        ++cases;
        if ((r.code != w.code || r.flags != w.flags) && ++bad <= 5)
          ADD_FAILURE() << spec << " code " << std::hex << c << ": " << r.code << " oracle " << w.code;
      }
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << cases;
  std::printf("amd-gfx942 vs MPFR: %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(bad));
}

}  // namespace
}  // namespace softmx
