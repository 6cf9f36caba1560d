// conformance/test_mma_trace_report.cpp: what `softmx verify` says about a block-scaled mma line
// (issue 24 item 7): TensorCoreModel::trace_scaled() and vec::mma_trace_report().
// - The report's TEXT for hand-computed lines: the issue's blackwell-mxf8f6f4 line (SA = SB =
//   0x93, C = 1: C must read +1, not the scale code), a GST line (blackwell-mxf4, a scale
//   group's sum times its scales as one term), UE4M3 and NaN scales, and an unscaled
//   hopper-fp8-mma line whose text must stay exactly what it was before block scales existed.
// - trace_scaled() against mma_scaled() on random lines of every block-scaled model (random
//   codes, scales with NaN and zero codes, C NaN/Inf/0/finite): the same code and flags, and every
//   recorded step re-derived here from the codes (the terms' exact values and exponents, the
//   reference E, the cut, the exact sum, its rounding, the chaining of the groups), 0 mismatches.
// - Planted faults: each kind of wrong step written into otherwise correct traces must be
//   caught by that re-derivation, every time (the counts are printed).
// - End to end: a generated blackwell-mxf8f6f4 file with one D changed, through `softmx verify`.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/dialect.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/report.hpp"
#include "support/cli_run.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using Big = boost::multiprecision::cpp_int;

// ---- lines and headers -------------------------------------------------------------------------

/// One block-scaled mma line: the arguments of mma_scaled().
struct Line {
  FormatId fa = FormatId::e4m3, fb = FormatId::e4m3;
  std::vector<std::uint8_t> a, b;
  FormatId sf = FormatId::e8m0;
  std::size_t block = 32;
  std::vector<std::uint8_t> sa, sb;
  FormatId acc = FormatId::f32;
  std::uint32_t c = 0;
};

Result run(const TensorCoreModel& m, const Line& l) {
  return m.mma_scaled(l.fa, l.a, l.fb, l.b, l.sf, l.block, l.sa, l.sb, l.acc, l.c);
}
TensorCoreTrace trace(const TensorCoreModel& m, const Line& l) {
  return m.trace_scaled(l.fa, l.a, l.fb, l.b, l.sf, l.block, l.sa, l.sb, l.acc, l.c);
}

/// The header of a file of such lines (addend = yes) and the line's operands in file order:
/// A_1..A_K B_1..B_K SA_1..SA_n SB_1..SB_n C (vectors/README.md 4, "Block-scaled mma").
vec::Header header_of(const TensorCoreModel& m, const Line& l) {
  vec::Header h;
  h.operation = vec::Operation::mma;
  h.from = l.fa;
  h.to = l.fb;
  h.block = static_cast<std::uint32_t>(l.a.size());
  h.accumulator = l.acc;
  h.addend = true;
  h.model = std::string(m.name());
  h.scale_format = l.sf == FormatId::e8m0 ? vec::MmaScaleFormat::ue8m0 : vec::MmaScaleFormat::ue4m3;
  h.scale_block = static_cast<std::uint32_t>(l.block);
  return h;
}
std::vector<std::uint64_t> operands_of(const Line& l) {
  std::vector<std::uint64_t> v(l.a.begin(), l.a.end());
  v.insert(v.end(), l.b.begin(), l.b.end());
  v.insert(v.end(), l.sa.begin(), l.sa.end());
  v.insert(v.end(), l.sb.begin(), l.sb.end());
  v.push_back(l.c);
  return v;
}

/// "        LABEL...   VALUE...          e E    WHAT\n": one term line of the report, its
/// columns spelled out here (label column `width`, value column 18, exponent column 5).
std::string term_line(const std::string& label, std::size_t width, const std::string& value, int e,
                      const std::string& what) {
  auto pad = [](std::string s, std::size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; };
  return "        " + pad(label, width) + pad(value, 18) + " e " + pad(std::to_string(e), 5) + what + "\n";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// An e2m1 line of K = 64 products whose only non-zero operands are A_1 = B_1 = 0x2 (+1); the
/// scales, C and the block are the caller's.
Line fp4_unit_line() {
  Line l;
  l.fa = l.fb = FormatId::e2m1;
  l.a.assign(64, 0);
  l.b.assign(64, 0);
  l.a[0] = l.b[0] = 0x2;
  return l;
}

/// A K = 32 line of the Line defaults' formats whose A and B elements are all `code`, under the
/// one scale pair SA_1 = `sa`, SB_1 = `sb`; C is the caller's.
Line uniform_line(std::uint8_t code, std::uint8_t sa, std::uint8_t sb) {
  Line l;
  l.a.assign(32, code);
  l.b.assign(32, code);
  l.sa = {sa};
  l.sb = {sb};
  return l;
}

/// Each of `parts` is in the report `r` (one expectation each, the report printed on failure).
void expect_has_all(const std::string& r, std::initializer_list<std::string> parts) {
  for (const std::string& p : parts) EXPECT_TRUE(contains(r, p)) << r;
}

// ---- the report's text, by hand ----------------------------------------------------------------

TEST(MmaTraceReport, IssueExampleMxf8f6f4ScalesAndC) {
  // blackwell-mxf8f6f4 (ST-FDPA: each product's exponent raised by its two UE8M0 scales, F = 25,
  // zero exponent -133, RZ to f32), e4m3 x e4m3, K = 32, one scale per side: SA = SB = 0x93 =
  // 2^(147 - 127) = 2^20, so every product carries 2^(20 + 20) = 2^40. C = 3F800000 = +1.
  // Elements (e4m3: bias 7, 3 fraction bits; N * 2^(e - 3), e clamped at -6):
  //   A_1 = 0x3C = 1.5  = 12 * 2^-3 (e 0)   B_1 = 0x41 = 2.25 = 9 * 2^-2 (e 1)
  //   A_2 = 0xB8 = -1   = -8 * 2^-3 (e 0)   B_2 = 0x30 = 0.5  = 8 * 2^-4 (e -1)
  //   every other element +0.
  // Terms: A_1*B_1 = 108 * 2^(-5 + 40) = +27*2^37, alignment exponent 0 + 1 + 40 = 41;
  //        A_2*B_2 = -64 * 2^(-7 + 40) = -1*2^39, alignment exponent 0 - 1 + 40 = 39;
  //        C = 2^23 * 2^-23 = +1*2^0, alignment exponent 0.
  // E = max(41, 39, 0, -133) = 41; quantum 2^(41 - 25) = 2^16: both products are multiples of
  // it (kept), C = 1 is cut to 0. Sum 27*2^37 - 4*2^37 = +23*2^37 = 1.4375 * 2^41, exact in f32:
  // exponent field 41 + 127 = 0xA8, fraction 0.4375 * 2^23 = 0x380000: D = 0x54380000.
  const TensorCoreModel& m = blackwell_mxf8f6f4_model();
  Line l;
  l.a.assign(32, 0);
  l.b.assign(32, 0);
  l.a[0] = 0x3C, l.b[0] = 0x41, l.a[1] = 0xB8, l.b[1] = 0x30;
  l.sa = {0x93};
  l.sb = {0x93};
  l.c = 0x3F800000;
  ASSERT_EQ(run(m, l).code, 0x54380000u);
  const std::string r = vec::mma_trace_report(header_of(m, l), operands_of(l));
  std::printf("%s", r.c_str());
  EXPECT_TRUE(contains(r, "    model blackwell-mxf8f6f4 (docs/TENSOR_CORES.md):\n")) << r;
  EXPECT_TRUE(contains(r, "      scales: SA_1 = 93 (2^20), SB_1 = 93 (2^20) for products 1..32\n")) << r;
  EXPECT_TRUE(contains(r, "      C = 3F800000  1\n")) << r;
  EXPECT_TRUE(contains(r, "      group of products 1..32: reference E = 41, terms cut at 2^16\n")) << r;
  EXPECT_TRUE(contains(r, term_line("A_1*B_1", 12, "+27*2^37", 41, "kept"))) << r;
  EXPECT_TRUE(contains(r, term_line("A_2*B_2", 12, "-1*2^39", 39, "kept"))) << r;
  EXPECT_TRUE(contains(r, term_line("C (acc)", 12, "+1*2^0", 0, "cut to +0"))) << r;
  EXPECT_TRUE(contains(r, "        sum of the cut terms +23*2^37\n")) << r;
  EXPECT_TRUE(contains(r, "        rounded into the accumulator: 54380000  3161095929856\n")) << r;
  // What the report said before trace_scaled: SA_1 = 0x93 read as C (147 * 2^-149).
  EXPECT_FALSE(contains(r, "+147*2^-149")) << r;
}

TEST(MmaTraceReport, GstGroupTermCarriesItsScales) {
  // blackwell-mxf4 (GST-FDPA: groups of 16 products summed exactly, each sum times sigma_a *
  // sigma_b one term with alignment exponent eps_a + eps_b; F = 35, zero exponent -139, runs of
  // 64, RZ to f32), e2m1, K = 64, UE8M0 scales per 32: SA_1 = SB_1 = 0x93 (2^20), block 2 at
  // 0x7F (2^0). A_1 = B_1 = 0x2 = +1 (e2m1: 1 fraction bit, 2 * 2^-1), the rest +0; C = +1.
  // Group 1..16: sum 1 * 1 = 1 (4 units of 2^-2), times 2^20 * 2^20: 4 * 2^(-2 + 40) = +1*2^40,
  // alignment exponent 20 + 20 = 40. Groups 17..64 are all zero and offer -139.
  // E = max(e(C) = 0, 40, -139) = 40; quantum 2^(40 - 35) = 2^5: C = 1 cut to 0.
  // D = 2^40 = 0x53800000 (exponent field 167).
  const TensorCoreModel& m = blackwell_mxf4_model();
  Line l = fp4_unit_line();
  l.sa = {0x93, 0x7F};
  l.sb = {0x93, 0x7F};
  l.c = 0x3F800000;
  ASSERT_EQ(run(m, l).code, 0x53800000u);
  const std::string r = vec::mma_trace_report(header_of(m, l), operands_of(l));
  std::printf("%s", r.c_str());
  expect_has_all(r, {"      scales: SA_1 = 93 (2^20), SB_1 = 93 (2^20) for products 1..32\n",
                     "      scales: SA_2 = 7F (2^0), SB_2 = 7F (2^0) for products 33..64\n", "      C = 3F800000  1\n",
                     "      group of products 1..64: reference E = 40, terms cut at 2^5\n",
                     // The label "A_1..16*B_1..16 * SA_1*SB_1" is 27 characters: the column is 28 wide.
                     term_line("C (acc)", 28, "+1*2^0", 0, "cut to +0"),
                     term_line("A_1..16*B_1..16 * SA_1*SB_1", 28, "+1*2^40", 40, "kept"),
                     "        sum of the cut terms +1*2^40\n",
                     "        rounded into the accumulator: 53800000  1099511627776\n"});
}

TEST(MmaTraceReport, Ue4m3AndNanScales) {
  // blackwell-nvf4, UE4M3 scales per 16: SA_1 = 0xB8 is +1 with its sign bit ignored
  // (truncate_e4m3_to_ue4m3), SB_1 = 0x3C = 1.5; A_1 = B_1 = 0x2 (+1): the group term is
  // 4 * 2^-2 * 1 * 1.5 = 12 * 2^-3 (sigma_b = 12 * 2^-3 as an e4m3 significand) = +3*2^-1, its
  // alignment exponent 0 + 0 = 0. C = +0 offers -139, groups 2..4 (all zero) -139: E = 0.
  const TensorCoreModel& m = blackwell_nvf4_model();
  Line l = fp4_unit_line();
  l.sf = FormatId::e4m3;
  l.block = 16;
  l.sa = {0xB8, 0x38, 0x38, 0x01};
  l.sb = {0x3C, 0x38, 0x38, 0x38};
  l.c = 0;
  ASSERT_EQ(run(m, l).code, 0x3FC00000u);  // 1.5
  std::string r = vec::mma_trace_report(header_of(m, l), operands_of(l));
  std::printf("%s", r.c_str());
  expect_has_all(r, {"      scales: SA_1 = B8 (1, sign bit ignored), SB_1 = 3C (1.5) for products 1..16\n",
                     "      scales: SA_4 = 01 (0.001953125), SB_4 = 38 (1) for products 49..64\n",
                     "      C = 00000000  0\n", "      group of products 1..64: reference E = 0, terms cut at 2^-35\n",
                     term_line("A_1..16*B_1..16 * SA_1*SB_1", 28, "+3*2^-1", 0, "kept"),
                     "        rounded into the accumulator: 3FC00000  1.5\n"});
  // A NaN scale (UE4M3 0x7F) decides the line even over zero products; the report says which.
  l.sa[2] = 0x7F;
  r = vec::mma_trace_report(header_of(m, l), operands_of(l));
  EXPECT_TRUE(contains(r, "      scales: SA_3 = 7F (NaN), SB_3 = 38 (1) for products 33..48\n")) << r;
  EXPECT_TRUE(contains(r, "      NaN or Inf operands or a NaN scale decide: D 7FFFFFFF\n")) << r;
  EXPECT_FALSE(contains(r, "group of products")) << r;
  // UE8M0 0xFF on blackwell-mxf8f6f4, and UE8M0 code 0 (2^-127, not zero).
  const TensorCoreModel& st = blackwell_mxf8f6f4_model();
  Line s = uniform_line(0x38, 0xFF, 0x00);
  s.c = 0x3F800000;
  r = vec::mma_trace_report(header_of(st, s), operands_of(s));
  EXPECT_TRUE(contains(r, "      scales: SA_1 = FF (NaN), SB_1 = 00 (2^-127) for products 1..32\n")) << r;
  EXPECT_TRUE(contains(r, "      NaN or Inf operands or a NaN scale decide: D 7FFFFFFF\n")) << r;
}

TEST(MmaTraceReport, AllZeroScaledLine) {
  // Every element +0 and C = +0 under scales 2^20: no term at all; the group says so and D = +0.
  const TensorCoreModel& m = blackwell_mxf8f6f4_model();
  const Line l = uniform_line(0, 0x93, 0x93);
  const std::string r = vec::mma_trace_report(header_of(m, l), operands_of(l));
  EXPECT_TRUE(contains(r, "      scales: SA_1 = 93 (2^20), SB_1 = 93 (2^20) for products 1..32\n"
                          "      C = 00000000  0\n"
                          "      each product term A_i*B_i includes its two scales (its exponent is raised by theirs)\n"
                          "      group of products 1..32: every term zero\n"
                          "        rounded into the accumulator: 00000000  0\n"))
      << r;
}

TEST(MmaTraceReport, UnscaledReportUnchanged) {
  // hopper-fp8-mma (two HMMA k16 steps: products k mod 4 in {0, 1}, then {2, 3}; F = 25; C
  // added after both, RNE), e4m3 x e4m3, K = 32, f32 accumulator. A_1 = B_1 = 0x38 (+1 = 8 *
  // 2^-3), A_3 = 0x40 (+2 = 8 * 2^-2), B_3 = 0x38, the rest +0; C = +1.
  //   step 1 (products 1,2,5,6,..,29,30): A_1*B_1 = 64 * 2^-6 = +1*2^0, E = 0, cut at 2^-25: 1.
  //   step 2 (products 3,4,7,8,..,31,32): A_3*B_3 = 64 * 2^-5 = +1*2^1 (e 1 + 0 = 1) and the
  //     running value 1 (e 0): E = 1, cut at 2^-24; sum 3.
  //   C added exactly: 1 + 3 = +1*2^2, D = 4 = 0x40800000.
  // The text below is what mma_trace_report printed before block-scaled lines existed.
  const TensorCoreModel& m = hopper_fp8_mma_model();
  vec::Header h;
  h.operation = vec::Operation::mma;
  h.from = FormatId::e4m3;
  h.to = FormatId::e4m3;
  h.block = 32;
  h.accumulator = FormatId::f32;
  h.addend = true;
  h.model = "hopper-fp8-mma";
  std::vector<std::uint64_t> ops(65, 0);
  ops[0] = 0x38, ops[2] = 0x40, ops[32] = 0x38, ops[34] = 0x38, ops[64] = 0x3F800000;
  const std::string want =
      "    model hopper-fp8-mma (docs/TENSOR_CORES.md):\n"
      "      group of products 1,2,5,6,9,10,13,14,17,18,21,22,25,26,29,30: reference E = 0, terms cut at 2^-25\n"
      "        A_1*B_1     +1*2^0             e 0    kept\n"
      "        sum of the cut terms +1*2^0\n"
      "        rounded into the accumulator: 3F800000  1\n"
      "      group of products 3,4,7,8,11,12,15,16,19,20,23,24,27,28,31,32: reference E = 1, terms cut at 2^-24\n"
      "        A_3*B_3     +1*2^1             e 1    kept\n"
      "        C (acc)     +1*2^0             e 0    kept\n"
      "        sum of the cut terms +3*2^0\n"
      "        rounded into the accumulator: 40400000  3\n"
      "      C added to the products' result, exactly:\n"
      "        C (acc)     +1*2^0             e 0    kept\n"
      "        products    +3*2^0             e 0    kept\n"
      "        sum of the cut terms +1*2^2\n"
      "        rounded into the accumulator: 40800000  4\n";
  EXPECT_EQ(vec::mma_trace_report(h, ops), want);
  std::vector<std::uint8_t> a(32, 0), b(32, 0);
  a[0] = 0x38, a[2] = 0x40, b[0] = 0x38, b[2] = 0x38;
  EXPECT_EQ(m.mma(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0x3F800000).code, 0x40800000u);
  // A special line: the one-line form, unchanged.
  ops[0] = 0x7F;  // e4m3 NaN
  EXPECT_EQ(vec::mma_trace_report(h, ops),
            "    model hopper-fp8-mma (docs/TENSOR_CORES.md): NaN or Inf operands decide at once: D 7FFFFFFF\n");
}

// ---- an independent re-derivation of every recorded step ---------------------------------------

/// Exact values as integers in units of 2^-kLsb (every value here is a multiple of 2^-600 and
/// below 2^400: products of two scales of at most 2^127 and two elements of at most 2^16, f32 C).
constexpr int kLsb = 600;

Big fixed(bool neg, std::uint64_t n, int q) {
  EXPECT_GE(q + kLsb, 0);
  Big v = Big(n) << (q + kLsb);
  return neg ? Big(-v) : v;
}

/// The exact value of a finite code of f (from softmx's unpack, which the MPFR suites check),
/// as (-1)^sign * sig * 2^(exp - 63).
struct Value {
  ValueClass cls;
  bool neg;
  Big fixed;  // the value in units of 2^-kLsb
  int e;      // max(floor(log2 |v|), the format's emin): the operand-exponent convention
};
Value value_of(FormatId f, std::uint64_t code) {
  const Unpacked u = unpack(format(f), code);
  Value v{u.cls, u.sign, 0, 0};
  if (u.cls != ValueClass::finite) return v;
  const std::uint64_t sig = u.sig >> std::countr_zero(u.sig);
  v.fixed = fixed(u.sign, sig, u.exp - 63 + std::countr_zero(u.sig));
  v.e = std::max<int>(u.exp, format(f).emin());
  return v;
}

/// A block scale: its exact value (units of 2^-kLsb), NaN, zero, and its exponent (UE4M3
/// clamped at -6, as the GST models offer it).
struct Scale {
  bool nan = false, zero = false;
  Big fixed;
  int eps = 0;
};
Scale scale_of(FormatId sf, std::uint8_t code) {
  Scale s;
  if (sf == FormatId::e8m0) {
    s.nan = code == 0xFF;
    s.fixed = fixed(false, 1, code - 127);
    s.eps = code - 127;
    return s;
  }
  const Value v = value_of(FormatId::e4m3, code & 0x7F);
  s.nan = v.cls == ValueClass::nan;
  s.zero = v.cls == ValueClass::zero;
  s.fixed = v.fixed;
  s.eps = v.e;
  return s;
}

int top_bit(const Big& m) { return static_cast<int>(boost::multiprecision::msb(m)); }

/// The exact value (units of 2^-kLsb) as an Unpacked for round_pack.
Unpacked unpacked_of(const Big& v) {
  Unpacked u;
  if (v == 0) return u;
  const Big m = abs(v);
  const int top = top_bit(m);
  u.cls = ValueClass::finite;
  u.sign = v < 0;
  u.exp = top - kLsb;
  if (top >= 63) {
    u.sig = static_cast<std::uint64_t>(m >> (top - 63));
    u.sticky = (m & ((Big(1) << (top - 63)) - 1)) != 0;
  } else {
    u.sig = static_cast<std::uint64_t>(m) << (63 - top);
  }
  return u;
}

/// The code the model's output rounding gives the exact non-zero value v: round_pack onto the
/// accumulator format under the model's mode (the grids of these models are the formats'
/// own: 23 and 10 fraction bits), except that a value of at least 2^(emax + 1) after rounding is
/// Inf whatever the mode (tensor_core.hpp step 6), where IEEE RZ would stop at the largest finite.
std::uint32_t round_model(const TensorCoreModel& m, FormatId acc, const Big& v) {
  const Format& f = format(acc);
  const AccumulatorRounding& ar = acc == FormatId::f16 ? m.params().f16 : m.params().f32;
  EXPECT_EQ(ar.fraction_bits, f.man_bits) << "the check assumes the accumulator's own grid";
  const int emax = (1 << f.exp_bits) - 2 - f.bias;
  const std::uint32_t inf = acc == FormatId::f16 ? 0x7C00u : 0x7F800000u, sign = acc == FormatId::f16 ? 0x8000u : 0x80000000u;
  if (top_bit(Big(abs(v))) - kLsb > emax) return inf | (v < 0 ? sign : 0);
  Context ctx;
  ctx.rounding = ar.mode;
  ctx.saturation = Saturation::none;
  return static_cast<std::uint32_t>(round_pack(f, unpacked_of(v), ctx, ocp_dialect()).code);
}

/// Everything wrong with trace t of line l on model m, re-derived from the codes ("" when
/// nothing): the result (mma_scaled's), the special decision, each group's place, its terms'
/// values, exponents and counts, the reference, quantum and cut, the exact sum, the group's
/// rounding and the chaining of the groups into D.
std::string check_trace(const TensorCoreModel& m, const Line& l, const TensorCoreTrace& t) {
  std::ostringstream err;
  const TensorCoreParams& p = m.params();
  const bool gst = p.scale_application == ScaleApplication::per_group;
  const Result want = run(m, l);
  if (t.result.code != want.code || t.result.flags != want.flags)
    err << "result " << hex(t.result.code, 8) << "/" << hex(t.result.flags, 2) << " but mma_scaled gives "
        << hex(want.code, 8) << "/" << hex(want.flags, 2) << "; ";
  if (t.scale_format != l.sf || t.scale_block != l.block || t.sa != l.sa || t.sb != l.sb) err << "scales not recorded; ";
  const std::size_t K = l.a.size();
  // Specials: a NaN scale, a NaN or Inf C, a NaN or Inf element (e2m1 has none).
  bool special = value_of(l.acc, l.c).cls == ValueClass::nan || value_of(l.acc, l.c).cls == ValueClass::inf;
  for (std::size_t j = 0; j < l.sa.size(); ++j) special |= scale_of(l.sf, l.sa[j]).nan || scale_of(l.sf, l.sb[j]).nan;
  for (std::size_t k = 0; k < K; ++k) {
    const ValueClass ca = value_of(l.fa, l.a[k]).cls, cb = value_of(l.fb, l.b[k]).cls;
    special |= ca == ValueClass::nan || ca == ValueClass::inf || cb == ValueClass::nan || cb == ValueClass::inf;
  }
  if (t.special != special) err << "special " << t.special << " but the line's specials say " << special << "; ";
  if (special || t.special) {
    if (!t.groups.empty()) err << "a special trace with groups; ";
    return err.str();
  }
  const std::size_t L = static_cast<std::size_t>(p.group_size);
  const Value c = value_of(l.acc, l.c);
  Big running = c.cls == ValueClass::finite ? c.fixed : Big(0);  // the accumulator entering a group
  int running_e = c.e;
  const int F = p.alignment_bits, zexp = p.zero_exponent.value_or(-100000);
  const Format& accf = format(l.acc);
  if (t.groups.empty()) err << "no group; ";
  for (std::size_t gi = 0; gi < t.groups.size(); ++gi) {
    const TensorCoreTraceGroup& g = t.groups[gi];
    const std::string at = "group " + std::to_string(gi + 1) + ": ";
    const std::size_t first = gi * L, end = std::min(K, first + L);
    if (g.addend_step || g.first != static_cast<int>(first) || g.count != static_cast<int>(end - first) ||
        g.products.size() != end - first) {
      err << at << "not products " << first + 1 << ".." << end << "; ";
      continue;
    }
    // The terms as they must be, in the model's order: per-product models the non-zero
    // products then the running value; GST the running value then each non-zero scale group.
    struct Want {
      int index, count;
      Big v;
      int ae;
    };
    std::vector<Want> terms;
    int E = gst ? (running != 0 ? running_e : zexp) : zexp;
    for (std::size_t g0 = first; g0 < end; g0 += gst ? static_cast<std::size_t>(p.scale_group) : 1) {
      const std::size_t n = gst ? static_cast<std::size_t>(p.scale_group) : 1;
      const Scale sa = scale_of(l.sf, l.sa[g0 / l.block]), sb = scale_of(l.sf, l.sb[g0 / l.block]);
      Big sum = 0;
      bool any = false;
      int ae = 0;
      for (std::size_t k = g0; k < g0 + n; ++k) {
        const Value va = value_of(l.fa, l.a[k]), vb = value_of(l.fb, l.b[k]);
        if (va.cls != ValueClass::finite || vb.cls != ValueClass::finite) continue;
        any = true;
        sum += va.fixed * vb.fixed;  // units of 2^-2kLsb
        ae = va.e + vb.e + sa.eps + sb.eps;
      }
      const Big scaled = (sum * sa.fixed * sb.fixed) >> (3 * kLsb);  // exact: every factor is dyadic above 2^-600
      if (gst) {
        const bool zero_group = !any || sa.zero || sb.zero;
        E = std::max(E, zero_group ? zexp : sa.eps + sb.eps);
        if (!zero_group && sum != 0) terms.push_back({static_cast<int>(g0), static_cast<int>(n), scaled, sa.eps + sb.eps});
      } else if (any) {
        terms.push_back({static_cast<int>(g0), 1, scaled, ae});
        E = std::max(E, ae);
      }
    }
    if (running != 0) {
      const Want r{-1, 1, running, running_e};
      if (gst) terms.insert(terms.begin(), r);
      else terms.push_back(r);
      E = std::max(E, running_e);
    }
    // With no term at all the reference means nothing (tensor_core.hpp, TensorCoreTraceGroup).
    if (!terms.empty() && (g.reference != E || g.quantum != E - F))
      err << at << "E " << g.reference << " quantum " << g.quantum << ", expected " << E << " and " << E - F << "; ";
    if (g.terms.size() != terms.size()) {
      err << at << g.terms.size() << " terms, expected " << terms.size() << "; ";
      continue;
    }
    Big sum = 0;
    const int Q = E - F;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const TensorCoreTraceTerm& x = g.terms[i];
      const Want& w = terms[i];
      const std::string ti = at + "term " + std::to_string(i + 1) + " (index " + std::to_string(w.index) + "): ";
      if (x.index != w.index || x.count != w.count) err << ti << "index/count " << x.index << "/" << x.count << "; ";
      if (fixed(x.neg, x.n, x.q) != w.v) err << ti << "value wrong; ";
      if (x.align_exponent != w.ae) err << ti << "exponent " << x.align_exponent << ", expected " << w.ae << "; ";
      // The cut toward zero to a multiple of 2^Q (a term already on the grid is kept as is).
      const int kq = std::max(x.q, Q);
      const Big mag = abs(w.v) >> (kq + kLsb);
      if (x.kept_q != kq || Big(x.kept) != mag || x.kept_exact != ((mag << (kq + kLsb)) == abs(w.v)))
        err << ti << "cut wrong (kept " << x.kept << "*2^" << x.kept_q << "); ";
      sum += fixed(w.v < 0, static_cast<std::uint64_t>(mag), kq);
    }
    // The recorded exact sum, and its rounding into the accumulator.
    const Big recorded = g.sum.cls == ValueClass::finite && !g.sum.sticky
                             ? fixed(g.sum.sign, g.sum.sig, g.sum.exp - 63)
                             : Big(g.sum.cls == ValueClass::finite ? -1 : 0);
    if (recorded != sum || (g.sum.cls == ValueClass::finite && g.sum.sticky)) err << at << "sum wrong; ";
    if (sum == 0) {
      if ((g.result & (accf.code_mask() >> 1)) != 0) err << at << "a zero sum gave " << hex(g.result, 8) << "; ";
    } else if (g.result != round_model(m, l.acc, sum)) {
      err << at << "result " << hex(g.result, 8) << ", the sum rounds to " << hex(round_model(m, l.acc, sum), 8) << "; ";
    }
    // The group's result is the next group's running value (tensor_core.hpp step 3), and D.
    const Value r = value_of(l.acc, g.result);
    running = r.cls == ValueClass::finite ? r.fixed : Big(0);
    running_e = r.e;
    if (r.cls == ValueClass::inf && gi + 1 != t.groups.size()) err << at << "groups after an Inf; ";
    if (gi + 1 == t.groups.size()) {
      if (g.result != t.result.code) err << "the last group's result " << hex(g.result, 8) << " is not D; ";
      if (r.cls != ValueClass::inf && end != K) err << "groups end at product " << end << " of " << K << "; ";
    }
  }
  return err.str();
}

// ---- random lines ------------------------------------------------------------------------------

/// A random scale code: mostly near 1 (so the scaled terms meet C and each other), sometimes
/// anywhere, NaN (UE8M0 0xFF; UE4M3 0x7F, 0xFF) or zero (UE4M3 0x00, 0x80; UE8M0 0 is 2^-127).
std::uint8_t random_scale(SplitMix64& rng, FormatId sf) {
  const std::uint64_t r = rng.below(100);
  if (sf == FormatId::e8m0) {
    if (r < 2) return 0xFF;
    if (r < 5) return 0x00;
    if (r < 15) return static_cast<std::uint8_t>(rng.below(255));
    return static_cast<std::uint8_t>(127 + static_cast<int>(rng.below(41)) - 20);
  }
  if (r < 1) return 0x7F;
  if (r < 2) return 0xFF;
  if (r < 5) return rng.below(2) ? 0x00 : 0x80;
  if (r < 20) return static_cast<std::uint8_t>(rng.below(256));
  return static_cast<std::uint8_t>(0x38 + static_cast<int>(rng.below(33)) - 16);  // 2^-2 .. 2^2
}

/// A random element code of f: a quarter zero, a few the negation of the previous one (exact
/// cancellation), the rest anything (NaN and Inf codes included).
std::uint8_t random_element(SplitMix64& rng, FormatId f, std::uint8_t prev) {
  const Format& fm = format(f);
  const std::uint64_t r = rng.below(100);
  if (r < 25) return 0;
  if (r < 32) return static_cast<std::uint8_t>(prev ^ (1u << (fm.width - 1)));
  return static_cast<std::uint8_t>(rng.below(fm.code_mask() + 1));
}

std::uint32_t random_c(SplitMix64& rng, FormatId acc) {
  const bool h = acc == FormatId::f16;
  const std::uint64_t r = rng.below(100);
  if (r < 3) return h ? 0x7E00 : 0x7FC00000;            // quiet NaN
  if (r < 4) return h ? 0x7C01 : 0x7F800001;            // signalling NaN
  if (r < 6) return h ? 0x7C00 : 0x7F800000;            // +Inf
  if (r < 8) return h ? 0xFC00 : 0xFF800000;            // -Inf
  if (r < 20) return h ? 0x0000 : 0x00000000;           // +0
  if (r < 26) return h ? 0x8000 : 0x80000000;           // -0
  if (r < 32) return h ? 0x3C00 : 0x3F800000;           // +1
  if (r < 36) return h ? 0x0001 : 0x00000001;           // the smallest subnormal
  if (r < 70) {  // an exponent near the products' (unscaled 2^-10 .. 2^10)
    if (h) return static_cast<std::uint32_t>((rng.below(2) << 15) | ((5 + rng.below(21)) << 10) | rng.below(1024));
    return static_cast<std::uint32_t>((rng.below(2) << 31) | ((117 + rng.below(21)) << 23) | rng.below(1u << 23));
  }
  const std::uint32_t bits = static_cast<std::uint32_t>(rng.next());
  return h ? (bits & 0xFFFF) : bits;
}

/// A random line for model m: per_product (blackwell-mxf8f6f4) any MX float element pair, K 32
/// or 64, UE8M0 per 32 or 16, f32 or f16; per_group e2m1, K 64 or 128, UE8M0 or UE4M3 per 16 or
/// 32, f32.
Line random_line(SplitMix64& rng, const TensorCoreModel& m) {
  Line l;
  const bool gst = m.params().scale_application == ScaleApplication::per_group;
  static constexpr FormatId kElems[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1};
  if (gst) {
    l.fa = l.fb = FormatId::e2m1;
    l.a.resize(rng.below(2) ? 64 : 128);
    const bool nv = m.name() == "blackwell-nvf4";
    l.sf = (nv ? rng.below(4) != 0 : rng.below(4) == 0) ? FormatId::e4m3 : FormatId::e8m0;
    l.block = rng.below(2) ? 16 : 32;
    l.acc = FormatId::f32;
  } else {
    l.fa = kElems[rng.below(5)];
    l.fb = kElems[rng.below(5)];
    l.a.resize(rng.below(2) ? 32 : 64);
    l.sf = FormatId::e8m0;
    l.block = rng.below(2) ? 16 : 32;
    l.acc = rng.below(4) ? FormatId::f32 : FormatId::f16;
  }
  l.b.resize(l.a.size());
  for (std::size_t k = 0; k < l.a.size(); ++k) {
    l.a[k] = random_element(rng, l.fa, k ? l.a[k - 1] : 0);
    l.b[k] = random_element(rng, l.fb, k ? l.b[k - 1] : 0);
  }
  // Rare NaN/Inf elements in the per-product formats that have them: keep most lines finite.
  for (std::size_t k = 0; k < l.a.size(); ++k) {
    if (value_of(l.fa, l.a[k]).cls != ValueClass::finite && value_of(l.fa, l.a[k]).cls != ValueClass::zero &&
        rng.below(8))
      l.a[k] = 0;
    if (value_of(l.fb, l.b[k]).cls != ValueClass::finite && value_of(l.fb, l.b[k]).cls != ValueClass::zero &&
        rng.below(8))
      l.b[k] = 0;
  }
  const std::size_t n = l.a.size() / l.block;
  for (std::size_t j = 0; j < n; ++j) {
    l.sa.push_back(random_scale(rng, l.sf));
    l.sb.push_back(random_scale(rng, l.sf));
  }
  l.c = random_c(rng, l.acc);
  if (rng.below(40) == 0) {  // every element +0: groups with no product term
    std::fill(l.a.begin(), l.a.end(), 0);
    std::fill(l.b.begin(), l.b.end(), 0);
  }
  return l;
}

const TensorCoreModel* const kScaledModels[] = {&blackwell_mxf8f6f4_model(), &blackwell_mxf4_model(),
                                                &blackwell_nvf4_model()};

TEST(MmaTraceReport, TraceScaledMatchesMmaScaledAndEveryStepRederives) {
  for (const TensorCoreModel* m : kScaledModels) {
    conformance::Tally same(std::string(m->name()) + ": trace_scaled result == mma_scaled (code, flags)");
    conformance::Tally steps(std::string(m->name()) + ": every traced step re-derived from the codes");
    SplitMix64 rng(0x7ACE5CA1ED + same.name().size());
    std::size_t special = 0, groups = 0, terms = 0, cut = 0;
    for (int i = 0; i < 3000; ++i) {
      const Line l = random_line(rng, *m);
      const TensorCoreTrace t = trace(*m, l);
      const Result r = run(*m, l);
      same.check(t.result.code == r.code && t.result.flags == r.flags, [&] {
        return "line " + std::to_string(i) + ": trace " + hex(t.result.code, 8) + " mma_scaled " + hex(r.code, 8);
      });
      const std::string why = check_trace(*m, l, t);
      steps.check(why.empty(), [&] { return "line " + std::to_string(i) + ": " + why; });
      special += t.special;
      groups += t.groups.size();
      for (const auto& g : t.groups) {
        terms += g.terms.size();
        for (const auto& x : g.terms) cut += !x.kept_exact;
      }
    }
    std::printf("[ counts   ] %s: %zu special lines, %zu groups, %zu terms (%zu cut inexactly)\n",
                std::string(m->name()).c_str(), special, groups, terms, cut);
    EXPECT_GT(special, 100u);  // the specials are exercised ...
    EXPECT_GT(cut, 1000u);     // ... and so is the cut
    same.report();
    steps.report();
  }
}

TEST(MmaTraceReport, PlantedFaultsAreCaught) {
  // Each fault, written into correct traces of random lines, must be caught by check_trace on
  // every trace it applies to: the checks above would fail if trace_scaled recorded it.
  struct Fault {
    const char* name;
    std::function<bool(TensorCoreTrace&)> plant;  // false: not applicable to this trace
  };
  auto some_term = [](TensorCoreTrace& t, auto&& f) {
    for (auto& g : t.groups)
      for (auto& x : g.terms)
        if (f(x)) return true;
    return false;
  };
  const std::vector<Fault> faults{
      {"result code off by one", [](TensorCoreTrace& t) { return t.result.code ^= 1, true; }},
      {"a kept value one too large", [&](TensorCoreTrace& t) { return some_term(t, [](auto& x) { return ++x.kept, true; }); }},
      {"a term's scale exponent lost (q - 40)",
       [&](TensorCoreTrace& t) { return some_term(t, [](auto& x) { return x.index >= 0 ? (x.q -= 40, true) : false; }); }},
      {"a term's exponent off by one",
       [&](TensorCoreTrace& t) { return some_term(t, [](auto& x) { return ++x.align_exponent, true; }); }},
      {"C read as a scale (the index -1 term's value replaced)",
       [&](TensorCoreTrace& t) { return some_term(t, [](auto& x) { return x.index == -1 ? (x.n = 147, x.q = -149, true) : false; }); }},
      {"a group's count wrong",
       [&](TensorCoreTrace& t) { return some_term(t, [](auto& x) { return x.index >= 0 ? (++x.count, true) : false; }); }},
      {"reference E one higher",
       [](TensorCoreTrace& t) {
         for (auto& g : t.groups)
           if (!g.terms.empty()) return ++g.reference, ++g.quantum, true;
         return false;
       }},
      {"the sum of the cut terms off",
       [](TensorCoreTrace& t) {
         for (auto& g : t.groups)
           if (g.sum.cls == ValueClass::finite) return g.sum.sig ^= std::uint64_t{1} << 40, true;
         return false;
       }},
      {"a group's rounded result off by one",
       [](TensorCoreTrace& t) {
         for (auto& g : t.groups)
           if (g.result & 0x7FFFFFFF) return g.result ^= 1, true;
         return false;
       }},
      {"a term dropped",
       [](TensorCoreTrace& t) {
         for (auto& g : t.groups)
           if (!g.terms.empty()) return g.terms.pop_back(), true;
         return false;
       }},
      {"special flipped", [](TensorCoreTrace& t) { return t.special = !t.special, true; }},
  };
  for (const Fault& f : faults) {
    conformance::Tally caught(std::string("planted fault caught: ") + f.name);
    for (const TensorCoreModel* m : kScaledModels) {
      SplitMix64 rng(0xFA17 + std::string(m->name()).size());
      for (int i = 0; i < 300; ++i) {
        const Line l = random_line(rng, *m);
        TensorCoreTrace t = trace(*m, l);
        if (!check_trace(*m, l, t).empty()) {
          caught.fail(std::string(m->name()) + " line " + std::to_string(i) + ": the correct trace fails");
          continue;
        }
        if (!f.plant(t)) continue;
        caught.check(!check_trace(*m, l, t).empty(),
                     [&] { return std::string(m->name()) + " line " + std::to_string(i) + ": not caught"; });
      }
    }
    caught.report();
  }
}

TEST(MmaTraceReport, UnscaledGstTraceIsTheModelsOwn) {
  // trace() of a per-group model without scales runs GST with every scale 1, as mma() does.
  for (const TensorCoreModel* m : {&blackwell_mxf4_model(), &blackwell_nvf4_model()}) {
    conformance::Tally t(std::string(m->name()) + ": trace() == mma() without scales");
    SplitMix64 rng(0x6571);
    for (int i = 0; i < 1000; ++i) {
      Line l = random_line(rng, *m);
      const Result r = m->mma(l.fa, l.a, l.fb, l.b, l.acc, l.c);
      const TensorCoreTrace tr = m->trace(l.fa, l.a, l.fb, l.b, l.acc, l.c);
      t.check(tr.result.code == r.code && tr.result.flags == r.flags && tr.scale_block == 0 && tr.sa.empty(),
              [&] { return "line " + std::to_string(i) + ": " + hex(tr.result.code, 8) + " vs " + hex(r.code, 8); });
    }
    t.report();
  }
}

// ---- end to end ----------------------------------------------------------------------------------

std::vector<std::string> fields(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> f;
  for (std::string w; s >> w;) f.push_back(w);
  return f;
}

TEST(MmaTraceReport, VerifyExplainsABlockScaledLine) {
  using softmx::testing::run_cli;
  using softmx::testing::scratch_dir;
  using softmx::testing::slurp;
  using softmx::testing::write_file;
  const std::string dir = scratch_dir("mma-trace-report");
  const std::string path = dir + "/f.vec";
  const auto gen = run_cli("gen mma --a e4m3 --b e4m3 --model blackwell-mxf8f6f4 --level 1 -o '" + path + "'");
  ASSERT_EQ(gen.status, 0) << gen.err;
  std::string text = slurp(path);
  // A line with scales other than 1 (K = 32 e4m3 codes per side, SA, SB, C, D), a finite C and
  // a finite D: its D gets one unit more.
  std::istringstream in(text);
  std::string line, chosen;
  std::size_t at = 0, pos = 0;
  for (; std::getline(in, line); pos += line.size() + 1) {
    const auto f = fields(line);
    if (f.size() != 32 * 2 + 4 || line[0] == '#') continue;
    if (f[64] == "7F" || f[64] == "FF" || f[65] == "FF") continue;
    const std::uint32_t d = static_cast<std::uint32_t>(std::stoul(f[67], nullptr, 16));
    if ((d & 0x7F800000u) == 0x7F800000u || (d & 0x7FFFFFFFu) == 0) continue;
    chosen = line;
    at = pos;
    break;
  }
  ASSERT_FALSE(chosen.empty()) << "no line with a scale other than 1 in the level-1 file";
  const auto f = fields(chosen);
  const std::uint32_t d = static_cast<std::uint32_t>(std::stoul(f[67], nullptr, 16));
  const std::string bad_d = hex(d + 1, 8);
  const std::size_t dpos = chosen.rfind(f[67]);
  text.replace(at + dpos, 8, bad_d);
  write_file(path, text);
  const auto v = run_cli("verify '" + path + "'");
  EXPECT_EQ(v.status, 1) << v.out << v.err;
  std::printf("%s", v.out.substr(0, 4000).c_str());
  // The explanation: the model, the line's scales decoded, C as its value, and the terms.
  const auto scale_text = [](const std::string& code) {
    const int c = std::stoi(code, nullptr, 16);
    return code + " (" + (c == 0xFF ? std::string("NaN") : "2^" + std::to_string(c - 127)) + ")";
  };
  const std::uint32_t c = static_cast<std::uint32_t>(std::stoul(f[66], nullptr, 16));
  EXPECT_TRUE(contains(v.out, "    model blackwell-mxf8f6f4 (docs/TENSOR_CORES.md):\n")) << v.out;
  EXPECT_TRUE(contains(v.out, "      scales: SA_1 = " + scale_text(f[64]) + ", SB_1 = " + scale_text(f[65]) +
                                  " for products 1..32\n"))
      << v.out;
  EXPECT_TRUE(contains(v.out, "      C = " + f[66] + "  " + value_text(format(FormatId::f32), c) + "\n")) << v.out;
  EXPECT_TRUE(contains(v.out, "        rounded into the accumulator: " + f[67])) << v.out;
  EXPECT_TRUE(contains(v.out, bad_d)) << v.out;
  // The trace the report prints is the one trace_scaled gives for these operands.
  Line l;
  for (int k = 0; k < 32; ++k) {
    l.a.push_back(static_cast<std::uint8_t>(std::stoul(f[k], nullptr, 16)));
    l.b.push_back(static_cast<std::uint8_t>(std::stoul(f[32 + k], nullptr, 16)));
  }
  l.sa = {static_cast<std::uint8_t>(std::stoul(f[64], nullptr, 16))};
  l.sb = {static_cast<std::uint8_t>(std::stoul(f[65], nullptr, 16))};
  l.c = c;
  const TensorCoreModel& m = blackwell_mxf8f6f4_model();
  EXPECT_EQ(check_trace(m, l, trace(m, l)), "");
  EXPECT_TRUE(contains(v.out, vec::mma_trace_report(header_of(m, l), operands_of(l)))) << v.out;
}

}  // namespace
}  // namespace softmx
