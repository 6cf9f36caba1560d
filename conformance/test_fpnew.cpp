// conformance/test_fpnew.cpp: the fpnew dialect (FPnew / CVFPU's FP-to-FP casts) and the tininess
// rule after-bounded (issue 26, item 1).
//
// - Hand cases, each citing the RTL line it follows (docs/DIALECTS.md, "fpnew": "cast" is
//   openhwgroup/cvfpu src/fpnew_cast_multi.sv at develop 0ad2cd7, "rounding" src/fpnew_rounding.sv,
//   "pkg" src/fpnew_pkg.sv, "pkg8" src/fpnew_pkg.sv at e34456c, PR 131) or issue.
// - Every f16 and bf16 input, and f32 and f64 inputs at every rounding boundary, into every
//   FPnew format under the dialect itself (its modes, saturation none, every tininess rule)
//   against the MPFR oracle, whose after-bounded rule is its own (mpfr_oracle.cpp: the chosen
//   neighbour compared with 2^emin). The rule under every other policy set, named format and
//   runtime family is in test_mpfr_exhaustive, test_mpfr_sampled and test_mpfr_runtime, whose
//   contexts (bridge.hpp all_contexts) include it.
// - The vector kernels under after-bounded against the scalar core: every dialect, every f16
//   and bf16 input, named and runtime destinations; sweeps' segments; MX blocks.
// - Runtime specs read and written alike by every dialect (e4m3:specials=ieee, FP8ALT).
// - identify and verify name fpnew and the tininess rule for files FPnew would write.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/error.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/verify.hpp"
#include "support/bridge.hpp"
#include "support/files.hpp"
#include "support/inputs.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::Tally;

const Dialect& fpnew() { return *find_dialect("fpnew"); }
const Format& fp8alt() {
  static const Format f = parse_format_spec("e4m3:specials=ieee");
  return f;
}

Context ctx(Rounding r, Tininess t = Tininess::after_rounding, Saturation s = Saturation::none) {
  Context c;
  c.rounding = r;
  c.saturation = s;
  c.tininess = t;
  return c;
}

constexpr Flags X = flag::inexact, U = flag::underflow, O = flag::overflow, V = flag::invalid;

Result cvt(FormatId src, const Format& dst, std::uint64_t x, const Context& c, const Dialect& d = fpnew()) {
  return convert(format(src), dst, x, c, d);
}
Result cvt(FormatId src, FormatId dst, std::uint64_t x, const Context& c, const Dialect& d = fpnew()) {
  return convert(src, dst, x, c, d);
}

// ---------------------------------------------------------------------------------------------
// Names.

TEST(FpnewNames, TininessAfterBoundedParsesAndPrints) {
  EXPECT_EQ(parse_tininess("after-bounded"), Tininess::after_bounded);
  EXPECT_EQ(parse_tininess("AFTER-BOUNDED"), Tininess::after_bounded);
  EXPECT_EQ(name(Tininess::after_bounded), "after-bounded");
  EXPECT_EQ(name(Tininess::after_rounding), "after");
  EXPECT_EQ(name(Tininess::before_rounding), "before");
  EXPECT_FALSE(parse_tininess("bounded").has_value());
  for (Tininess t : kTininessRules) EXPECT_EQ(parse_tininess(name(t)), t);
  ASSERT_NE(find_dialect("fpnew"), nullptr);
  EXPECT_EQ(find_dialect("FPNEW"), &fpnew());
}

// ---------------------------------------------------------------------------------------------
// Tininess at the normal boundary (SEMANTICS 5.3).

// The issue's case: f32 0x38600000 = 1.75 * 2^-15, into e5m2 (subnormal quantum 2^-16): 3.5
// quanta, a tie that rne takes to the even 4: 2^-14 = 0x04, the smallest normal. To p = 3 bits
// with an unbounded exponent range 1.75 * 2^-15 is exact and below 2^-14: tiny after rounding
// (flags 03, what RISC-V and FPnew after PR 168 raise); the delivered 0x04 is not below 2^-14:
// not tiny by after-bounded (01, cast:583 uf_after_round = rounded exponent field == 0, and
// cast:729 UF = uf_after_round & NX: FPnew before PR 168).
TEST(FpnewTininess, F32_38600000_IntoE5m2) {
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x38600000, ctx(Rounding::rne, Tininess::after_rounding)),
            (Result{0x04, U | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x38600000, ctx(Rounding::rne, Tininess::after_bounded)),
            (Result{0x04, X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x38600000, ctx(Rounding::rne, Tininess::before_rounding)),
            (Result{0x04, U | X}));
  // Under ocp and the library's default context (after), the same.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e5m2, 0x38600000, Context{}), (Result{0x04, U | X}));
  // rz keeps the subnormal 0x03 (3 * 2^-16): tiny by every rule.
  for (Tininess t : kTininessRules)
    EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x38600000, ctx(Rounding::rz, t)), (Result{0x03, U | X})) << name(t);
}

// The MPFR oracle's own after-bounded rule (the chosen neighbour against 2^emin) on the same
// inputs, so that the exhaustive comparisons below rest on two independent readings.
TEST(FpnewTininess, TheOracleAgreesByHand) {
  using oracle::Mode;
  using oracle::Sat;
  using oracle::Tiny;
  const oracle::Policies pol = conformance::to_oracle(fpnew());
  const auto at = [&](oracle::Fmt s, oracle::Fmt d, std::uint64_t x, Tiny t) {
    return oracle::convert(s, d, x, Mode::rne, Sat::none, t, pol);
  };
  EXPECT_EQ(at(oracle::Fmt::f32, oracle::Fmt::e5m2, 0x38600000, Tiny::after), (oracle::Outcome{0x04, 0x03}));
  EXPECT_EQ(at(oracle::Fmt::f32, oracle::Fmt::e5m2, 0x38600000, Tiny::before), (oracle::Outcome{0x04, 0x03}));
  EXPECT_EQ(at(oracle::Fmt::f32, oracle::Fmt::e5m2, 0x38600000, Tiny::after_bounded), (oracle::Outcome{0x04, 0x01}));
  EXPECT_EQ(at(oracle::Fmt::f64, oracle::Fmt::f32, 0x380FFFFFE0000000, Tiny::after_bounded),
            (oracle::Outcome{0x00800000, 0x01}));
  EXPECT_EQ(at(oracle::Fmt::f32, oracle::Fmt::f16, 0xB87FE000, Tiny::after_bounded), (oracle::Outcome{0x8400, 0x01}));
  EXPECT_EQ(at(oracle::Fmt::f32, oracle::Fmt::e5m2, 0xFFC00000, Tiny::after), (oracle::Outcome{0x7E, 0x00}));
  // e8m0 (ocp's policies): 2^-128 clamps to 2^-127, not below 2^-127.
  EXPECT_EQ(oracle::convert(oracle::Fmt::f32, oracle::Fmt::e8m0, 0x00200000, Mode::rne, Sat::finite, Tiny::after_bounded),
            (oracle::Outcome{0x00, 0x01}));
}

// cvfpu issue 166: f32 0xB87FE000 = -(2 - 2^-10) * 2^-15 into f16: exact at p = 11 and below
// 2^-14 (tiny after rounding: 03); bounded, half an f16 subnormal quantum below 2^-14, a tie to
// the even 0x400: -2^-14 = 0x8400, delivered normal (01; FPnew's cast before PR 168, uf 0 in the
// issue's waveform).
TEST(FpnewTininess, Issue166_F32_B87FE000_IntoF16) {
  EXPECT_EQ(cvt(FormatId::f32, FormatId::f16, 0xB87FE000, ctx(Rounding::rne, Tininess::after_rounding)),
            (Result{0x8400, U | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::f16, 0xB87FE000, ctx(Rounding::rne, Tininess::after_bounded)),
            (Result{0x8400, X}));
}

// cvfpu issue 165: fcvt.s.d of 0x380FFFFFE0000000 = (2 - 2^-23) * 2^-127 under RNE: Spike 03
// (UF|NX), CVA6's FPnew 01 (NX); the result 0x00800000 (2^-126) in both.
TEST(FpnewTininess, Issue165_F64_380FFFFFE0000000_IntoF32) {
  EXPECT_EQ(cvt(FormatId::f64, FormatId::f32, 0x380FFFFFE0000000, ctx(Rounding::rne, Tininess::after_rounding)),
            (Result{0x00800000, U | X}));
  EXPECT_EQ(cvt(FormatId::f64, FormatId::f32, 0x380FFFFFE0000000, ctx(Rounding::rne, Tininess::after_bounded)),
            (Result{0x00800000, X}));
  // RNE at the unbounded precision carries (2 - 2^-24) * 2^-127 up to 2^-126: not tiny by after either.
  EXPECT_EQ(cvt(FormatId::f64, FormatId::f32, 0x380FFFFFF0000000, ctx(Rounding::rne, Tininess::after_rounding)),
            (Result{0x00800000, X}));
}

// after-bounded on other formats (ocp's policies): a subnormal or zero result is tiny, a
// normal one is not; e8m0 (no subnormals) delivers 2^-127 at least, never below 2^emin.
TEST(FpnewTininess, AfterBoundedOnEveryKindOfFormat) {
  const Dialect& ocp = ocp_dialect();
  const Context b = ctx(Rounding::rne, Tininess::after_bounded, Saturation::finite);
  // e4m3: emin -6, subnormal quantum 2^-9, 2^-6 = 8 quanta. 0x3C700000 = 1.875 * 2^-7 = 7.5
  // quanta: a tie that rne takes to the even 8, 0x08 = 2^-6, normal: not tiny by after-bounded;
  // at p = 4 with an unbounded exponent range 1.111b * 2^-7 is exact and below 2^-6: tiny by after.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3C700000, b, ocp), (Result{0x08, X}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3C700000,
                    ctx(Rounding::rne, Tininess::after_rounding, Saturation::finite), ocp),
            (Result{0x08, U | X}));
  // A subnormal result is tiny: 0x3BA00000 = 2.5 quanta, a tie to the even 2.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3BA00000, b, ocp), (Result{0x02, U | X}));
  // So is a zero one: 0x3A000000 = 2^-11, a quarter quantum.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3A000000, b, ocp), (Result{0x00, U | X}));
  // e8m0: 2^-128 (the f32 subnormal 0x00200000) is below 2^-127, and clamp_min delivers 0x00 =
  // 2^-127. before: tiny (03); after: rne at p = 1 keeps 2^-128, tiny (03); after-bounded:
  // 2^-127 is not below 2^-127 (01).
  EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0x00200000, b, ocp), (Result{0x00, X}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0x00200000,
                    ctx(Rounding::rne, Tininess::after_rounding, Saturation::finite), ocp),
            (Result{0x00, U | X}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0x00200000,
                    ctx(Rounding::rne, Tininess::before_rounding, Saturation::finite), ocp),
            (Result{0x00, U | X}));
  // A zero input into e8m0 is e8m0_zero's, not a tininess decision (SEMANTICS 5.4): 03 always.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0, b, ocp), (Result{0x00, U | X}));
  // int8 is fixed point: never underflow.
  EXPECT_EQ(convert(FormatId::f32, FormatId::int8, 0x3B800000, b, ocp), (Result{0x00, X}));  // 2^-8 -> 0
}

// ---------------------------------------------------------------------------------------------
// The fpnew dialect by hand.

// NaN: cast:642-650 special_res = {1'b0, QNAN_EXPONENT, QNAN_MANTISSA} for every NaN input, the
// sign and payload dropped; cast:667 NV for a signalling input only.
TEST(FpnewDialect, EveryNanIsTheRiscvCanonicalNan) {
  const Context c = ctx(Rounding::rne);
  for (std::uint64_t nan : {0xFFC00000ull, 0x7FC00000ull, 0x7FFFFFFFull, 0xFFFFFFFFull, 0xFFC00001ull}) {
    EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, nan, c), (Result{0x7E, 0})) << std::hex << nan;
    EXPECT_EQ(cvt(FormatId::f32, FormatId::f16, nan, c), (Result{0x7E00, 0})) << std::hex << nan;
    EXPECT_EQ(cvt(FormatId::f32, FormatId::bf16, nan, c), (Result{0x7FC0, 0})) << std::hex << nan;
    EXPECT_EQ(cvt(FormatId::f32, FormatId::f64, nan, c), (Result{0x7FF8000000000000, 0})) << std::hex << nan;
    EXPECT_EQ(cvt(FormatId::f32, FormatId::f32, nan, c), (Result{0x7FC00000, 0})) << std::hex << nan;
    EXPECT_EQ(cvt(FormatId::f32, fp8alt(), nan, c), (Result{0x7C, 0})) << std::hex << nan;
  }
  // Signalling NaNs of either sign: the canonical NaN with invalid.
  for (std::uint64_t snan : {0x7F800001ull, 0xFF800001ull, 0xFFBFFFFFull}) {
    EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, snan, c), (Result{0x7E, V})) << std::hex << snan;
    EXPECT_EQ(cvt(FormatId::f32, FormatId::f16, snan, c), (Result{0x7E00, V})) << std::hex << snan;
  }
  EXPECT_EQ(cvt(FormatId::f16, FormatId::f32, 0xFE00, c), (Result{0x7FC00000, 0}));
  EXPECT_EQ(cvt(FormatId::e5m2, FormatId::f32, 0xFF, c), (Result{0x7FC00000, 0}));
  EXPECT_EQ(cvt(FormatId::e5m2, FormatId::f16, 0xFD, c), (Result{0x7E00, V}));  // e5m2 sNaN (quiet bit clear)
  EXPECT_EQ(convert(fp8alt(), format(FormatId::f32), 0xFF, c, fpnew()), (Result{0x7FC00000, 0}));
  // ocp keeps the sign: the difference the issue reports.
  Context oc = c;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e5m2, 0xFFC00000, oc, ocp_dialect()), (Result{0xFE, 0}));
}

// Overflow: cast:467-470 sends |x| >= 2^(emax+1) to the largest normal with the round and
// sticky bits set, rounding:47-59 decides (RNE, RMM: up into the all-ones exponent, Inf; RTZ:
// down, max; RUP/RDN by sign; ROD: max's code is odd, kept); cast:728-731 OF and NX. That is
// SEMANTICS 4 under saturation none.
TEST(FpnewDialect, OverflowIsIeee) {
  const std::uint64_t big = std::bit_cast<std::uint32_t>(1e6f), nbig = big | 0x80000000u;
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::rne)), (Result{0x7C, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::rna)), (Result{0x7C, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::rz)), (Result{0x7B, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::ro)), (Result{0x7B, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::ru)), (Result{0x7C, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, big, ctx(Rounding::rd)), (Result{0x7B, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, nbig, ctx(Rounding::ru)), (Result{0xFB, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, nbig, ctx(Rounding::rd)), (Result{0xFC, O | X}));
  // FP8ALT: max 240 (0x77), Inf 0x78; 248 ties to the even 256 and overflows (cast:584
  // of_after_round: the rounded exponent field all ones).
  EXPECT_EQ(cvt(FormatId::f32, fp8alt(), std::bit_cast<std::uint32_t>(240.0f), ctx(Rounding::rne)), (Result{0x77, 0}));
  EXPECT_EQ(cvt(FormatId::f32, fp8alt(), std::bit_cast<std::uint32_t>(248.0f), ctx(Rounding::rne)),
            (Result{0x78, O | X}));
  EXPECT_EQ(cvt(FormatId::f32, fp8alt(), std::bit_cast<std::uint32_t>(248.0f), ctx(Rounding::rz)), (Result{0x77, X}));
  EXPECT_EQ(cvt(FormatId::f32, fp8alt(), std::bit_cast<std::uint32_t>(1.0f), ctx(Rounding::rne)), (Result{0x38, 0}));
}

// Inf: cast:462-465 (PR 140) gives the all-ones exponent with a zero mantissa, unrounded; cast:728
// and 730 raise neither OF nor NX for an Inf input. In every mode.
TEST(FpnewDialect, InfStaysInfWithoutFlags) {
  for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::rd, Rounding::ru, Rounding::rna, Rounding::ro}) {
    EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x7F800000, ctx(r)), (Result{0x7C, 0})) << name(r);
    EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0xFF800000, ctx(r)), (Result{0xFC, 0})) << name(r);
    EXPECT_EQ(cvt(FormatId::f64, fp8alt(), 0xFFF0000000000000, ctx(r)), (Result{0xF8, 0})) << name(r);
  }
  // Zeros: cast:648-649, the signed zero, no flag.
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x80000000, ctx(Rounding::rne)), (Result{0x80, 0}));
}

// The modes: pkg:140-148 RNE, RTZ, RDN, RUP, RMM, ROD; rounding:47-59. 1.125 lies halfway
// between e5m2's 1.0 (0x3C) and 1.25 (0x3D).
TEST(FpnewDialect, RoundingModes) {
  const std::uint64_t x = 0x3F900000;  // 1.125
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::rne)), (Result{0x3C, X}));  // tie to even
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::rna)), (Result{0x3D, X}));  // RMM: away
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::rz)), (Result{0x3C, X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::rd)), (Result{0x3C, X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::ru)), (Result{0x3D, X}));
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, x, ctx(Rounding::ro)), (Result{0x3D, X}));  // ~abs[0] & |RS
  EXPECT_EQ(cvt(FormatId::f32, FormatId::e5m2, 0x3FB00000, ctx(Rounding::ro)), (Result{0x3D, X}));  // 1.375: odd kept
  // The default mode and saturation (pkg: no saturating cast).
  EXPECT_EQ(support_for(fpnew(), format(FormatId::e5m2)).default_rounding, Rounding::rne);
  EXPECT_EQ(support_for(fpnew(), format(FormatId::e5m2)).default_saturation, Saturation::none);
  EXPECT_EQ(support_for(fpnew(), fp8alt()).default_saturation, Saturation::none);
  for (FormatId f : {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16})
    EXPECT_EQ(support_for(fpnew(), format(f)).default_saturation, Saturation::none) << format(f).name;
}

// What FPnew does not have is refused: OCP's E4M3 (FP8ALT is IEEE-like), FP6, FP4, MXINT8 and
// E8M0 (pkg:50-56, pkg8:53-59), stochastic rounding, saturating casts into FP8 and FP8ALT, other
// runtime formats, blocks.
TEST(FpnewDialect, RefusesWhatFpnewLacks) {
  const Context c = ctx(Rounding::rne);
  for (FormatId f : {FormatId::e4m3, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8, FormatId::e8m0})
    EXPECT_THROW(convert(FormatId::f32, f, 0x3F800000, c, fpnew()), Unsupported) << format(f).name;
  EXPECT_THROW(convert(FormatId::f32, FormatId::e5m2, 0x3F800000, ctx(Rounding::rs), fpnew()), Unsupported);
  EXPECT_THROW(convert(FormatId::f32, FormatId::e5m2, 0x3F800000, ctx(Rounding::rne, Tininess::after_rounding,
                                                                       Saturation::finite), fpnew()),
               Unsupported);
  EXPECT_THROW(convert(format(FormatId::f32), fp8alt(), 0x3F800000, ctx(Rounding::rne, Tininess::after_rounding,
                                                                          Saturation::finite), fpnew()),
               Unsupported);
  EXPECT_THROW(convert(format(FormatId::f32), parse_format_spec("e4m3fnuz"), 0x3F800000, c, fpnew()), Unsupported);
  EXPECT_THROW(convert(parse_format_spec("e5m2fnuz"), format(FormatId::f32), 0x01, c, fpnew()), Unsupported);
  EXPECT_THROW(convert(parse_format_spec("e3m4"), format(FormatId::f32), 0x01, c, fpnew()), Unsupported);
  // finite stays available into the IEEE host formats, as under every dialect (SEMANTICS 4.1).
  EXPECT_EQ(convert(FormatId::f32, FormatId::f16, std::bit_cast<std::uint32_t>(1e6f),
                    ctx(Rounding::rne, Tininess::after_rounding, Saturation::finite), fpnew()),
            (Result{0x7BFF, O | X}));
  BlockOptions o;
  o.element = FormatId::e5m2;
  o.dialect = &fpnew();
  EXPECT_TRUE(quantize_unsupported_reason(FormatId::f32, o).has_value());
}

// FP8ALT is e4m3:specials=ieee: bias 2^(4-1) - 1 = 7 (pkg:347-348), the all-ones exponent Inf
// and NaN (fpnew_classifier.sv 56-61), the canonical spec ml_dtypes' float8_e4m3 names too.
TEST(FpnewDialect, Fp8altIsE4m3SpecialsIeee) {
  const Format& f = fp8alt();
  EXPECT_EQ(f.exp_bits, 4);
  EXPECT_EQ(f.man_bits, 3);
  EXPECT_EQ(f.bias, 7);
  EXPECT_EQ(f.specials, Specials::ieee);
  EXPECT_EQ(f, parse_format_spec("float8_e4m3"));
  EXPECT_EQ(std::string(f.name), "e4m3:specials=ieee");
}

// Every dialect reads a runtime format exactly when it writes it (some mode): the issue's
// "pychop accepts e4m3:specials=ieee as a source but not as a destination".
TEST(FpnewDialect, RuntimeSpecsAreReadAndWrittenAlike) {
  int both = 0, neither = 0;
  for (const char* spec : {"e4m3:specials=ieee", "e4m3fnuz", "e5m2fnuz", "e3m4", "e2m2", "e1m2", "int4", "ue4m3",
                           "e4m3b11fnuz", "e3m2:subnormals=no"}) {
    const Format f = parse_format_spec(spec);
    for (const Dialect& d : all_dialects()) {
      const bool reads = !unsupported_source_reason(d, f).has_value();
      bool writes = false;
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none})
          writes |= !unsupported_reason(d, f, ctx(r, Tininess::after_rounding, s)).has_value();
      EXPECT_EQ(reads, writes) << d.name << " " << spec;
      (reads ? both : neither) += 1;
    }
  }
  EXPECT_GT(both, 0);
  EXPECT_GT(neither, 0);
  // Who takes FP8ALT: the dialects whose implementations describe any format, and fpnew.
  for (const char* d : {"ocp", "ml_dtypes", "gfloat", "fpnew"}) {
    EXPECT_FALSE(unsupported_source_reason(*find_dialect(d), fp8alt()).has_value()) << d;
    EXPECT_FALSE(unsupported_reason(*find_dialect(d), fp8alt(), ctx(Rounding::rne)).has_value()) << d;
  }
  for (const char* d : {"pychop", "torchao", "microxcaling", "cuda", "amd-gfx942"}) {
    EXPECT_TRUE(unsupported_source_reason(*find_dialect(d), fp8alt()).has_value()) << d;
    EXPECT_TRUE(unsupported_reason(*find_dialect(d), fp8alt(), ctx(Rounding::rne, Tininess::after_rounding,
                                                                    Saturation::finite)).has_value())
        << d;
  }
}

// ---------------------------------------------------------------------------------------------
// The dialect against the MPFR oracle.

/// The dialect's contexts into `dst`: its modes (rs aside), saturation none, every tininess rule.
std::vector<Context> fpnew_contexts() {
  std::vector<Context> v;
  for (Rounding r : kDeterministicRoundings)
    for (Tininess t : kTininessRules) v.push_back(ctx(r, t));
  return v;
}

std::vector<Format> fpnew_destinations() {
  std::vector<Format> v;
  for (FormatId f : {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16, FormatId::e5m2}) v.push_back(format(f));
  v.push_back(fp8alt());
  return v;
}

/// `inputs` of src into dst under every fpnew context, scalar and batch (the vector kernels
/// where they serve), against oracle::convert_all with the dialect's policies.
void check_against_mpfr(FormatId src, const Format& dst, const std::vector<std::uint64_t>& inputs, Tally& t) {
  const oracle::Desc os = conformance::to_oracle(format(src)), od = conformance::to_oracle(dst);
  const oracle::Policies pol = conformance::to_oracle(fpnew());
  std::vector<Converter> convs;
  for (const Context& c : fpnew_contexts()) convs.emplace_back(format(src), dst, c, fpnew());
  // The batch results (Converter::run: vector kernels, code tables, the scalar loop).
  const std::size_t n = inputs.size();
  const std::size_t sb = format(src).width / 8, db = dst.width <= 8 ? 1 : dst.width <= 16 ? 2 : dst.width <= 32 ? 4 : 8;
  std::vector<unsigned char> in(n * sb);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(in.data() + i * sb, &inputs[i], sb);  // little-endian host
  std::vector<std::vector<std::uint64_t>> batch(convs.size(), std::vector<std::uint64_t>(n));
  std::vector<std::vector<Flags>> batch_f(convs.size(), std::vector<Flags>(n));
  for (std::size_t k = 0; k < convs.size(); ++k) {
    std::vector<unsigned char> out(n * db);
    convs[k].run(in.data(), out.data(), batch_f[k].data(), n);
    for (std::size_t i = 0; i < n; ++i) std::memcpy(&batch[k][i], out.data() + i * db, db);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto all = oracle::convert_all(os, od, inputs[i], pol);
    for (std::size_t k = 0; k < convs.size(); ++k) {
      const Context& c = convs[k].context();
      const oracle::Outcome& want = all.at(conformance::to_oracle(c.rounding), oracle::Sat::none,
                                           conformance::to_oracle(c.tininess));
      const Result got = convs[k](inputs[i]);
      auto what = [&](const char* path, std::uint64_t code, Flags fl) {
        std::ostringstream o;
        o << std::hex << std::uppercase << "fpnew " << format(src).name << "->" << dst.name << " " << name(c.rounding)
          << " tininess " << name(c.tininess) << " (" << path << "): input " << inputs[i] << " softmx " << code << "/"
          << int(fl) << " oracle " << want.code << "/" << int(want.flags);
        return o.str();
      };
      t.check(got.code == want.code && got.flags == want.flags, [&] { return what("scalar", got.code, got.flags); });
      t.check(batch[k][i] == want.code && batch_f[k][i] == want.flags,
              [&] { return what("batch", batch[k][i], batch_f[k][i]); });
    }
  }
}

TEST(FpnewMpfr, Every16BitInputIntoEveryFpnewFormat) {
  std::vector<std::uint64_t> all(65536);
  for (std::uint64_t x = 0; x < 65536; ++x) all[x] = x;
  for (FormatId src : {FormatId::f16, FormatId::bf16}) {
    Tally t("fpnew mpfr: every " + std::string(format(src).name) +
            " input into f64 f32 f16 bf16 e5m2 e4m3:specials=ieee, 6 modes x 3 tininess, scalar and batch");
    for (const Format& dst : fpnew_destinations()) check_against_mpfr(src, dst, all, t);
    t.report();
  }
}

TEST(FpnewMpfr, F32AndF64AtEveryBoundaryIntoEveryFpnewFormat) {
  for (FormatId src : {FormatId::f32, FormatId::f64}) {
    Tally t("fpnew mpfr: " + std::string(format(src).name) +
            " boundary and special inputs into every fpnew format, 6 modes x 3 tininess, scalar and batch");
    for (const Format& dst : fpnew_destinations()) {
      if (dst == format(src)) continue;
      // Every representable value and midpoint with its nearest source codes (f16 and bf16
      // destinations, tens of thousands of boundaries: one neighbour each side; f32 and f64:
      // each binade's edges, the subnormal-normal one among them), the specials, and a sample.
      std::vector<std::uint64_t> in = conformance::boundary_inputs(src, dst, dst.width == 16 ? 1 : 3);
      const auto sp = conformance::special_inputs(src);
      const auto rnd = conformance::random_inputs(src, dst, 20000, 0xF9A3 + static_cast<unsigned>(dst.width));
      in.insert(in.end(), sp.begin(), sp.end());
      in.insert(in.end(), rnd.begin(), rnd.end());
      check_against_mpfr(src, dst, in, t);
    }
    t.report();
  }
}

// ---------------------------------------------------------------------------------------------
// The vector kernels under after-bounded equal the scalar core (test_batch_simd's check, for the
// rule it does not enumerate).

template <class In>
void compare_isas(const Converter& conv, const std::vector<In>& in, Tally& t) {
  const std::size_t n = in.size(), db = conv.destination_format().width <= 8 ? 1 : 2;
  std::vector<unsigned char> want(n * db), got(n * db);
  std::vector<Flags> want_f(n), got_f(n);
  run_on(conv, Isa::scalar, in.data(), want.data(), want_f.data(), n);
  for (Isa isa : supported_isas()) {
    if (isa == Isa::scalar) continue;
    for (bool with_flags : {true, false}) {
      std::fill(got_f.begin(), got_f.end(), Flags{0xEE});
      run_on(conv, isa, in.data(), got.data(), with_flags ? got_f.data() : nullptr, n);
      std::size_t bad = 0, first = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (std::memcmp(got.data() + i * db, want.data() + i * db, db) != 0 || (with_flags && got_f[i] != want_f[i])) {
          if (!bad) first = i;
          ++bad;
        }
      t.pass(n - bad);
      if (bad)
        t.fail(std::string(conv.source_format().name) + "->" + std::string(conv.destination_format().name) + " " +
                   std::string(name(conv.context().rounding)) + " " + std::string(name(conv.context().saturation)) +
                   " " + std::string(conv.dialect().name) + " on " + name(isa) + ": input " +
                   std::to_string(in[first]) + " (" + std::to_string(bad) + " lanes differ)",
               bad);
    }
  }
}

std::vector<Format> vector_destinations() {
  std::vector<Format> v;
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8,
                     FormatId::e8m0, FormatId::f16, FormatId::bf16})
    v.push_back(format(f));
  // Runtime destinations of every packing shape the lanes read from the plan, with and without
  // subnormals, m = 0 among them.
  for (const char* s : {"e4m3:specials=ieee", "e4m3fnuz", "e2m2", "e1m2", "int4", "ue4m3", "e3m2:subnormals=no",
                        "e4m0", "e5m7"})
    v.push_back(parse_format_spec(s));
  return v;
}

TEST(FpnewSimd, AfterBoundedVectorKernelsEqualTheScalarCore) {
  std::vector<std::uint16_t> all16(65536);
  for (std::size_t i = 0; i < all16.size(); ++i) all16[i] = static_cast<std::uint16_t>(i);
  // f32: every sign and exponent with structured and random fractions.
  std::vector<std::uint32_t> f32;
  SplitMix64 rng(26);
  for (std::uint32_t e = 0; e < 512; ++e)
    for (std::uint32_t k = 0; k < 96; ++k) {
      const std::uint32_t frac = k < 24 ? (0x7FFFFFu >> k) : k < 48 ? (0x400000u >> (k - 24)) | 1u
                                                                     : static_cast<std::uint32_t>(rng.next()) & 0x7FFFFFu;
      f32.push_back((e << 23) | frac);
    }
  Tally t("after-bounded: vector kernels vs the scalar core, every dialect, f16/bf16 exhaustive and an f32 sample");
  int vectorized_settings = 0;
  for (const Dialect& d : all_dialects())
    for (const Format& dst : vector_destinations())
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          const Context c = ctx(r, Tininess::after_bounded, s);
          if (unsupported_reason(d, dst, c)) continue;
          for (FormatId src : {FormatId::f16, FormatId::bf16, FormatId::f32}) {
            if (dst == format(src)) continue;
            const Converter conv(format(src), dst, c, d);
            vectorized_settings += vectorized(conv);
            if (src == FormatId::f32) compare_isas(conv, f32, t);
            else compare_isas(conv, all16, t);
          }
        }
  EXPECT_GT(vectorized_settings, 100);
  t.report();
}

// A sweep's segments (the fused kernel does not take after-bounded; segments_kernel does) equal
// the scalar ones around each destination's smallest normal.
TEST(FpnewSimd, AfterBoundedSweepSegments) {
  Tally t("after-bounded: sweep segments on every ISA vs scalar, 2^20 f32 inputs each side of 2^emin of e4m3 e5m2 "
          "e3m2 e2m3 f16");
  for (FormatId dst : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::f16})
    for (Rounding r : kDeterministicRoundings) {
      const Converter conv(FormatId::f32, dst, ctx(r, Tininess::after_bounded, Saturation::finite), ocp_dialect());
      // The f32 binade just below 2^emin and the start of the next, in a slice of 2^20.
      const std::uint64_t first = static_cast<std::uint64_t>(126 + format(dst).emin()) << 23;
      const std::size_t n = std::size_t{1} << 20;
      for (std::uint64_t at : {first + (std::uint64_t{1} << 23) - n / 2, first}) {
        std::vector<Segment> want(n), got(n);
        want.resize(consecutive_segments(conv, Isa::scalar, at, n, want.data()));
        for (Isa isa : supported_isas()) {
          if (isa == Isa::scalar) continue;
          got.resize(n);
          got.resize(consecutive_segments(conv, isa, at, n, got.data()));
          bool same = got.size() == want.size();
          for (std::size_t i = 0; same && i < got.size(); ++i)
            same = got[i].first == want[i].first && got[i].code == want[i].code && got[i].flags == want[i].flags;
          if (same) t.pass(n);
          else t.check(false, [&] {
            return std::string(format(dst).name) + " " + std::string(name(r)) + " on " + name(isa) + " from " +
                   hex(at, 8) + ": " + std::to_string(got.size()) + " segments, scalar " + std::to_string(want.size());
          });
        }
      }
    }
  t.report();
}

// MX blocks under after-bounded: [448, x, 0, ...] in E4M3 takes scale 2^0 (floor(log2 448) - 8),
// so element 1 is x converted and the block's flags are x's; every instruction set, quantize_block
// and quantize_tensor (many blocks: the block kernel does not take after-bounded) alike.
TEST(FpnewSimd, AfterBoundedBlocks) {
  const Format& e4m3 = format(FormatId::e4m3);
  std::vector<std::uint64_t> xs = conformance::boundary_inputs(FormatId::f32, e4m3, 1);
  xs.erase(std::remove_if(xs.begin(), xs.end(),
                          [](std::uint64_t x) {
                            const float v = std::fabs(std::bit_cast<float>(static_cast<std::uint32_t>(x)));
                            return !(v < 0.125f);  // around and below 2^-6, finite
                          }),
           xs.end());
  ASSERT_GT(xs.size(), 100u);
  Tally t("after-bounded: MX e4m3 blocks [448, x, 0...] vs converting x, quantize_block on every ISA and quantize_tensor");
  for (Rounding r : kDeterministicRoundings) {
    const Context c = ctx(r, Tininess::after_bounded, Saturation::finite);
    std::vector<std::uint32_t> tensor;
    std::vector<Result> want;
    for (std::uint64_t x : xs) {
      std::vector<std::uint32_t> block(32, 0);
      block[0] = std::bit_cast<std::uint32_t>(448.0f);
      block[1] = static_cast<std::uint32_t>(x);
      tensor.insert(tensor.end(), block.begin(), block.end());
      const Result w = convert(FormatId::f32, FormatId::e4m3, x, c);
      want.push_back(w);
      for (Isa isa : supported_isas()) {
        BlockOptions o;
        o.element = FormatId::e4m3;
        o.rounding = r;
        o.saturation = Saturation::finite;
        o.tininess = Tininess::after_bounded;
        o.isa = isa;
        const QuantizedBlock q = quantize_block(FormatId::f32, block.data(), block.size(), o);
        t.check(q.scale == 0x7F && q.codes[0] == 0x7E && q.codes[1] == w.code && q.flags == w.flags, [&] {
          return std::string(name(r)) + " on " + name(isa) + ": x " + hex(x, 8) + " gives " + hex(q.codes[1], 2) + "/" +
                 hex(q.flags, 2) + ", converted " + hex(w.code, 2) + "/" + hex(w.flags, 2);
        });
      }
    }
    BlockOptions o;
    o.element = FormatId::e4m3;
    o.rounding = r;
    o.saturation = Saturation::finite;
    o.tininess = Tininess::after_bounded;
    const std::size_t shape[] = {xs.size(), 32};
    const MxTensor m = quantize_tensor(FormatId::f32, tensor.data(), shape, 1, 32, o);
    Flags all = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      all |= want[i].flags;
      t.check(m.scales[i] == 0x7F && m.codes[32 * i + 1] == want[i].code,
              [&] { return std::string(name(r)) + " tensor block " + std::to_string(i) + ": x " + hex(xs[i], 8); });
    }
    t.check(m.flags == all, [&] { return std::string(name(r)) + " tensor flags " + hex(m.flags, 2); });
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// Vector files: identify and verify name fpnew and the tininess rule.

/// A level-1 file of f16 -> e5m2 (every input) as `gen` writes it under `h`.
std::string generate(const vec::Header& h) {
  const std::string p = (std::filesystem::temp_directory_path() / ("softmx_fpnew_" + std::to_string(::getpid()) + ".vec")).string();
  const vec::Evaluator ev(h);
  vec::OutputFile out(p);
  vec::write_vectors(ev, vec::GenOptions{}, vec::WriteOptions{}, out);
  out.commit();
  const std::string text = softmx::testing::slurp(p);
  std::filesystem::remove(p);
  return text;
}

vec::Header f16_to_e5m2(const std::string& dialect, Tininess t) {
  vec::Header h;
  h.operation = vec::Operation::convert;
  h.from = FormatId::f16;
  h.to = FormatId::e5m2;
  h.ctx = ctx(Rounding::rne, t);
  h.dialect = dialect;
  h.validate("test");
  return h;
}

/// The header of `header_text` with the data lines of `lines_text`: a device's results written
/// into the file of inputs softmx generated under another setting.
std::string with_lines(const std::string& header_text, const std::string& lines_text) {
  const std::string mark = "# IN OUT FLAGS\n";
  const std::size_t a = header_text.find(mark), b = lines_text.find(mark);
  EXPECT_NE(a, std::string::npos);
  EXPECT_NE(b, std::string::npos);
  return header_text.substr(0, a + mark.size()) + lines_text.substr(b + mark.size());
}

vec::Identification identify_text(const std::string& text) {
  vec::IdentifyOptions o;
  o.progress = false;
  return vec::identify([&] { return vec::VectorReader::from_string(text, "device.vec"); }, o);
}

/// The candidates at 100%, as "dialect rounding tininess".
std::vector<std::string> perfect(const vec::Identification& id) {
  std::vector<std::string> v;
  for (std::size_t i : id.ranking) {
    const vec::CandidateScore& s = id.scores[i];
    if (!s.exact || s.agree != s.total) break;
    const vec::Header& c = id.candidates[i].header;
    v.push_back(c.dialect + " " + std::string(name(c.ctx.rounding)) + " " + std::string(name(c.ctx.saturation)) + " " +
                std::string(name(c.ctx.tininess)));
  }
  return v;
}

// FPnew before PR 168 (simulated: softmx's fpnew dialect under after-bounded) answers a file of
// inputs generated under ocp's settings; identify names fpnew with after-bounded, alone.
TEST(FpnewIdentify, NamesFpnewBeforePr168) {
  const std::string inputs = generate(f16_to_e5m2("ocp", Tininess::after_rounding));
  const std::string device = with_lines(inputs, generate(f16_to_e5m2("fpnew", Tininess::after_bounded)));
  const vec::Identification id = identify_text(device);
  EXPECT_TRUE(id.identified());
  const std::vector<std::string> best = perfect(id);
  ASSERT_EQ(best.size(), 1u) << ::testing::PrintToString(best);
  EXPECT_EQ(best[0], "fpnew rne none after-bounded");
  EXPECT_EQ(id.lines, 65536u);
}

// FPnew after PR 168 is ocp under saturation none with every NaN made positive: identify names
// fpnew with tininess after.
TEST(FpnewIdentify, NamesFpnewAfterPr168FromOcpWithCanonicalNans) {
  const std::string inputs = generate(f16_to_e5m2("ocp", Tininess::after_rounding));
  std::istringstream in(inputs);
  std::string line, device;
  bool data = false;
  int changed = 0;
  while (std::getline(in, line)) {
    if (data) {
      // "IN OUT FLAGS": a NaN result of e5m2 (exponent all ones, fraction non-zero) loses its sign.
      const unsigned out = static_cast<unsigned>(std::stoul(line.substr(5, 2), nullptr, 16));
      if ((out & 0x7C) == 0x7C && (out & 0x03) != 0 && (out & 0x80)) {
        line.replace(5, 2, hex(out & 0x7F, 2));
        ++changed;
      }
    }
    if (line == "# IN OUT FLAGS") data = true;
    device += line + "\n";
  }
  EXPECT_EQ(changed, 1023);  // the negative f16 NaNs
  const vec::Identification id = identify_text(device);
  EXPECT_TRUE(id.identified());
  const std::vector<std::string> best = perfect(id);
  ASSERT_EQ(best.size(), 1u) << ::testing::PrintToString(best);
  EXPECT_EQ(best[0], "fpnew rne none after");
}

// verify of FPnew's file against ocp's settings: each mismatch says where the device's result
// comes from, naming fpnew for the NaNs and after-bounded for the flags at 2^emin.
TEST(FpnewVerify, ExplainsNansAndFlagsByFpnewAndAfterBounded) {
  const std::string inputs = generate(f16_to_e5m2("ocp", Tininess::after_rounding));
  const std::string device = with_lines(inputs, generate(f16_to_e5m2("fpnew", Tininess::after_bounded)));
  auto r = vec::VectorReader::from_string(device, "device.vec");
  vec::VerifyOptions o;
  o.max_errors = 100000;
  const vec::VerifyResult v = vec::verify_file(*r, o);
  std::size_t nan_lines = 0, flag_lines = 0;
  for (const vec::VerifyMismatch& m : v.mismatches) {
    const std::size_t at = m.report.find("the device's result comes from: ");
    ASSERT_NE(at, std::string::npos) << m.report;
    const std::string from = m.report.substr(at);
    if (m.result_differs) {
      ++nan_lines;  // a negative NaN: 0x7E where ocp keeps the sign
      EXPECT_EQ(m.got.at(0), 0x7Eu) << m.report;
      EXPECT_NE(from.find("rne (none, any tininess, fpnew)"), std::string::npos) << m.report;
    } else {
      ++flag_lines;  // rounded up to 2^-14: x without u
      EXPECT_EQ(m.got_flags, flag::inexact) << m.report;
      // Every dialect gives 04 under these modes; the flags are after-bounded's (ru's too
      // after rounding, where rounding up at p = 3 reaches 2^-14 as well).
      EXPECT_NE(from.find("rne (either saturation, tininess after-bounded, any dialect)"), std::string::npos) << m.report;
      EXPECT_EQ(from.find("none of the"), std::string::npos) << m.report;
    }
  }
  EXPECT_EQ(nan_lines, 1023u);
  // f16 values in [2^-14 - 2^-17, 2^-14 - 2^-18) round (rne) up to 2^-14 in e5m2 but not at p = 3
  // unbounded: 2^-18 / 2^-24 = 64 f16 codes, both signs.
  EXPECT_EQ(flag_lines, 128u);
}

// The header key: tininess = after-bounded is written and read back.
TEST(FpnewVectors, HeaderKeyTininessAfterBounded) {
  const std::string text = generate(f16_to_e5m2("fpnew", Tininess::after_bounded));
  EXPECT_NE(text.find("\ntininess = after-bounded\n"), std::string::npos);
  EXPECT_NE(text.find("\ndialect = fpnew\n"), std::string::npos);
  auto r = vec::VectorReader::from_string(text, "x.vec");
  EXPECT_EQ(r->header().ctx.tininess, Tininess::after_bounded);
  vec::VerifyOptions o;
  const vec::VerifyResult v = vec::verify_file(*r, o);
  EXPECT_EQ(v.mismatches.size(), 0u);
  std::string bad = text;
  bad.replace(bad.find("after-bounded"), 13, "bounded");
  EXPECT_THROW(vec::VectorReader::from_string(bad, "bad.vec"), InputError);
}

}  // namespace
}  // namespace softmx
