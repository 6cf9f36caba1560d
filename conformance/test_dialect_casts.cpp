// conformance/test_dialect_casts.cpp: issue 15's "defects in today's dialects", pinned.
//
// Four behaviours of the peers' own casts, modelled as dialect data (docs/DIALECTS.md, "Casts
// that differ by path or by version"; docs/research/ml-dtypes-pytorch-casts.md):
//   1. ml_dtypes' ConvertFrom<kSaturate = true> (`--dialect ml_dtypes --sat finite`): finite
//      overflow clamps, Inf stays Inf (e4m3: NaN), e8m0 zero and negatives give 0x00;
//   2. ml_dtypes-cpp: the direct Eigen::half <-> float8_e5m2 paths keep a NaN's payload;
//   3. torchao: PyTorch's Float8_e8m0fnu -> float gives 0x7F800001 for 0xFF;
//   4. torchao vs torchao-pre-178817: PyTorch's e4m3fn cast after and before PR 178817.
// Each is checked two ways here: hand cases worked from the source line cited beside them, and
// a transcription of that source (written here from the cited lines, not copied) over every
// 8- and 16-bit input and 4,194,304 f32 inputs that include every rounding boundary of the
// destinations, through both the batch (SIMD plan) and the scalar path. The MPFR oracle checks
// the rounding of these dialects over every 16-bit input and 8-bit code, under every mode,
// saturation and tininess, in test_mpfr_exhaustive (conformance::policy_sets() holds them).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "softmx/convert.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::Tally;

const Dialect& D(const char* name) { return *find_dialect(name); }

Context ctx(Saturation s, Rounding r = Rounding::rne) {
  Context c;
  c.rounding = r;
  c.saturation = s;
  return c;
}
constexpr Saturation kFin = Saturation::finite;
constexpr Saturation kNone = Saturation::none;

std::uint64_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }
std::uint64_t cvt(const char* d, FormatId src, FormatId dst, std::uint64_t x, Saturation s) {
  return convert(src, dst, x, ctx(s), D(d)).code;
}
const float kInf = std::numeric_limits<float>::infinity();
const float kMax = std::numeric_limits<float>::max();

// ---------------------------------------------------------------------------------------------
// Transcriptions. Each follows the cited lines of the peer's source, step for step.

// ml_dtypes (jax-ml/ml_dtypes b793a6e, ml_dtypes/include/float8.h) Traits and numeric_limits
// of a destination.
struct MlTo {
  int mbits, bias, max_exponent;  // Traits (:1225-1263), numeric_limits max_exponent
  bool is_signed, has_zero;
  std::uint8_t highest, inf, qnan, lowest, denorm_min;
};
// float8_e4m3fn: max_exponent (0b1111 - 7) + 1 (:726-727); highest 0x7E (:744-746), infinity()
// 0x7F (:756-758), quiet_NaN() 0x7F, lowest 0xFE, denorm_min 0x01.
constexpr MlTo kMlE4m3{3, 7, 9, true, true, 0x7E, 0x7F, 0x7F, 0xFE, 0x01};
// float8_e5m2: max_exponent 0b11111 - 15 (:900); highest 0x7B, infinity() 0x7C, quiet_NaN() 0x7E.
constexpr MlTo kMlE5m2{2, 15, 16, true, true, 0x7B, 0x7C, 0x7E, 0xFB, 0x01};
// float8_e8m0fnu: unsigned, kHasZero = false (:1258-1263), max_exponent bias + 1 (:1025);
// highest 0xFE, infinity() and quiet_NaN() 0xFF, lowest() 0x00 (:1036-1038), denorm_min() 0x00.
constexpr MlTo kMlE8m0{0, 127, 128, false, false, 0xFE, 0xFF, 0xFF, 0x00, 0x00};

struct MlFrom {
  int bits, mbits, bias;
};
constexpr MlFrom kMlF32{32, 23, 127}, kMlF16{16, 10, 15}, kMlBf16{16, 7, 127};

// RoundBitsToNearestEven (:1266-1277): add L + 2^(roundoff-1) - 1.
std::uint64_t ml_round_bits(std::uint64_t bits, int roundoff) {
  const std::uint64_t bias = ((bits >> roundoff) & 1) + (std::uint64_t{1} << (roundoff - 1)) - 1;
  return bits + bias;
}

// Unary minus: rep ^ 0x80 (:106-108); E8M0's returns 0xFF (:447-450).
std::uint8_t ml_negate(const MlTo& t, std::uint8_t r) { return t.is_signed ? static_cast<std::uint8_t>(r ^ 0x80) : 0xFF; }

// ConvertImpl<From, To, kSaturate, kTruncate = false>::run (:1363-1517).
std::uint8_t ml_convert(const MlFrom& s, std::uint64_t from, const MlTo& t, bool saturate) {
  const std::uint64_t sign_mask = std::uint64_t{1} << (s.bits - 1);
  const bool from_sign = (from & sign_mask) != 0;
  const std::uint64_t abs = from & (sign_mask - 1);
  const std::uint64_t inf_bits = ((std::uint64_t{1} << (s.bits - 1 - s.mbits)) - 1) << s.mbits;
  if (abs == inf_bits) return from_sign ? ml_negate(t, t.inf) : t.inf;    // :1371-1374
  if (abs > inf_bits) return from_sign ? ml_negate(t, t.qnan) : t.qnan;   // :1375-1378
  if (abs == 0) {                                                          // :1383-1393
    if (t.has_zero) return from_sign ? 0x80 : 0x00;
    return saturate ? t.denorm_min : t.qnan;
  }
  if (!t.is_signed && from_sign) return saturate ? t.lowest : t.qnan;     // :1396-1401
  // 3. normalise (:1409-1435).
  int unbiased;
  std::uint64_t mant;
  const std::uint64_t biased = abs >> s.mbits, fraction = abs & ((std::uint64_t{1} << s.mbits) - 1);
  if (biased != 0) {
    unbiased = static_cast<int>(biased) - s.bias;
    mant = (std::uint64_t{1} << s.mbits) | fraction;
  } else {
    const int shift = (std::countl_zero(fraction) - (64 - s.mbits)) + 1;
    mant = fraction << shift;
    unbiased = (1 - s.bias) - shift;
  }
  // 4-5. target exponent base (BiasedExp - 1), alignment shift and RNE (:1447-1473).
  const int base = unbiased + t.bias - 1;
  const int denormal = std::max(0, -base);
  const int shift = std::min((s.mbits - t.mbits) + denormal, s.mbits + 2);
  std::uint8_t aligned;
  if (shift > 0) aligned = static_cast<std::uint8_t>(ml_round_bits(mant, shift) >> shift);
  else aligned = static_cast<std::uint8_t>(mant << -shift);
  // 6. pack with the carry, then overflow (:1476-1512).
  const std::uint8_t exp_bits = static_cast<std::uint8_t>(std::max(0, base));
  std::uint8_t r = static_cast<std::uint8_t>(aligned + (exp_bits << t.mbits));
  if (base >= t.max_exponent + t.bias || r > t.highest) r = saturate ? t.highest : t.inf;
  return from_sign ? ml_negate(t, r) : r;  // 7 (:1515-1516)
}

// ConvertImpl<Eigen::half, float8_e5m2, kSaturate, false>::run (:1528-1560).
std::uint8_t ml_half_to_e5m2_direct(std::uint16_t from_bits, bool saturate) {
  const std::uint16_t abs_bits = from_bits & 0x7FFF;
  if (abs_bits == 0x7C00) return static_cast<std::uint8_t>(from_bits >> 8);
  if (abs_bits > 0x7C00) return static_cast<std::uint8_t>((from_bits >> 8) | 0x02);
  from_bits = static_cast<std::uint16_t>(ml_round_bits(from_bits, 8));
  if (saturate && (from_bits & 0x7F00) > (0x7B << 8)) return (from_bits >> 15) ? 0xFB : 0x7B;
  return static_cast<std::uint8_t>(from_bits >> 8);
}

// PyTorch fp8e4m3fn_from_fp32_value (torch/headeronly/util/Float8_e4m3fn.h). `after` follows
// PR 178817 (cyyever/pytorch 0b57c46e, lines 181-188 and 209-212); otherwise 0316fdce.
std::uint8_t torch_e4m3fn(std::uint32_t f_bits, bool after) {
  constexpr std::uint32_t fp8_max = UINT32_C(1087) << 20;     // 480.0f
  constexpr std::uint32_t denorm_mask = UINT32_C(141) << 23;  // magic adder
  const std::uint32_t sign = f_bits & UINT32_C(0x80000000);
  f_bits ^= sign;
  std::uint8_t result;
  if (f_bits >= fp8_max) {
    result = (!after || f_bits > UINT32_C(0x7F800000)) ? 0x7F : 0x7E;
  } else {
    if (f_bits < (UINT32_C(121) << 23)) {  // below 2^-6: the FPU adds the magic number (RNE)
      f_bits = std::bit_cast<std::uint32_t>(std::bit_cast<float>(f_bits) + std::bit_cast<float>(denorm_mask));
      result = static_cast<std::uint8_t>(f_bits - denorm_mask);
    } else {
      const std::uint8_t mant_odd = (f_bits >> 20) & 1;
      f_bits += (static_cast<std::uint32_t>(7 - 127) << 23) + 0x7FFFF;
      f_bits += mant_odd;
      result = static_cast<std::uint8_t>(f_bits >> 20);
    }
    if (after && result == 0x7F) result = 0x7E;  // the carry into NaN saturates (209-212)
  }
  return static_cast<std::uint8_t>(result | (sign >> 24));
}

// f32 inputs: every (sign, exponent, top 11 fraction bits) with the low 12 bits 0, 1, 0x800 and
// 0xFFF: every tie, its neighbours and every binade of e4m3, e5m2 and e8m0 (4,194,304 inputs,
// Inf and NaN included).
// Under the sanitizers (about ten times slower) every 7th high part only.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint32_t kHighStep = 7;
#else
constexpr std::uint32_t kHighStep = 1;
#endif
std::vector<std::uint32_t> f32_inputs() {
  std::vector<std::uint32_t> v;
  v.reserve(std::size_t{1} << 22);
  for (std::uint32_t hi = 0; hi < (1u << 20); hi += kHighStep)
    for (std::uint32_t lo : {0x000u, 0x001u, 0x800u, 0xFFFu}) v.push_back((hi << 12) | lo);
  return v;
}

// Compares a dialect's batch (the SIMD plans where they serve) and scalar results with `want`
// over `in` (f32 or 16-bit codes).
template <class In, class Want>
void compare(Tally& t, const char* dialect, FormatId src, FormatId dst, Saturation s, const std::vector<In>& in,
             Want want) {
  const Converter c(src, dst, ctx(s), D(dialect));
  std::vector<std::uint8_t> out(in.size());
  c.run(in.data(), out.data(), nullptr, in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint8_t w = want(in[i]);
    const std::uint64_t scalar = c(in[i]).code;
    t.check(out[i] == w && scalar == w, [&] {
      char b[160];
      std::snprintf(b, sizeof b, "%s %s->%s %s: input %llX batch %02X scalar %02llX source %02X", dialect,
                    std::string(format(src).name).c_str(), std::string(format(dst).name).c_str(),
                    std::string(name(s)).c_str(), static_cast<unsigned long long>(in[i]), out[i],
                    static_cast<unsigned long long>(scalar), w);
      return std::string(b);
    });
  }
}

std::vector<std::uint16_t> all16() {
  std::vector<std::uint16_t> v(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) v[i] = static_cast<std::uint16_t>(i);
  return v;
}

// ---------------------------------------------------------------------------------------------
// 1. ml_dtypes' saturating cast, ConvertFrom<kSaturate = true> (--sat finite).

TEST(MlDtypesSaturating, HandCases) {
  const auto e4 = [](std::uint64_t x, Saturation s) { return cvt("ml_dtypes", FormatId::f32, FormatId::e4m3, x, s); };
  const auto e5 = [](std::uint64_t x, Saturation s) { return cvt("ml_dtypes", FormatId::f32, FormatId::e5m2, x, s); };
  const auto e8 = [](std::uint64_t x, Saturation s) { return cvt("ml_dtypes", FormatId::f32, FormatId::e8m0, x, s); };
  // :1371-1372: an Inf gives +-infinity() whatever kSaturate is; e4m3fn's infinity() is 0x7F (:756-758).
  EXPECT_EQ(e4(f32(kInf), kFin), 0x7Fu);
  EXPECT_EQ(e4(f32(-kInf), kFin), 0xFFu);  // -x is rep ^ 0x80 (:106-108)
  // e5m2: infinity() 0x7C (:929-931); -infinity() 0xFC.
  EXPECT_EQ(e5(f32(kInf), kFin), 0x7Cu);
  EXPECT_EQ(e5(f32(-kInf), kFin), 0xFCu);
  // 1000 (1.953 * 2^9): base 9 + 7 - 1 = 15 < 16, RNE carries to 0x88 > highest() 0x7E
  // (:1493-1505): kSaturate gives highest() 0x7E, kSaturate = false infinity() 0x7F.
  EXPECT_EQ(e4(f32(1000.0f), kFin), 0x7Eu);
  EXPECT_EQ(e4(f32(1000.0f), kNone), 0x7Fu);
  EXPECT_EQ(e4(f32(-1000.0f), kFin), 0xFEu);
  // e5m2 finite overflow: 1e6 -> highest() 0x7B; kSaturate = false 0x7C.
  EXPECT_EQ(e5(f32(1e6f), kFin), 0x7Bu);
  EXPECT_EQ(e5(f32(1e6f), kNone), 0x7Cu);
  // NaN (:1375-1378): +-quiet_NaN() under both.
  EXPECT_EQ(e4(0x7FC00000, kFin), 0x7Fu);
  EXPECT_EQ(e5(0xFFC00000, kFin), 0xFEu);
  // E8M0. Zero (:1383-1390): kSaturate ? denorm_min() (0x00, :1058-1061) : quiet_NaN(); -0 too
  // (the test is on the absolute bits).
  EXPECT_EQ(e8(f32(0.0f), kFin), 0x00u);
  EXPECT_EQ(e8(f32(-0.0f), kFin), 0x00u);
  EXPECT_EQ(e8(f32(0.0f), kNone), 0xFFu);
  // Negative (:1396-1399): kSaturate ? lowest() (0x00, :1036-1038) : quiet_NaN().
  EXPECT_EQ(e8(f32(-3.0f), kFin), 0x00u);
  EXPECT_EQ(e8(f32(-kMax), kFin), 0x00u);
  EXPECT_EQ(e8(0x80000001, kFin), 0x00u);  // -denorm_min (tests/float8_test.cc:340-348)
  EXPECT_EQ(e8(f32(-3.0f), kNone), 0xFFu);
  // -Inf meets the Inf test first: -infinity() is E8M0's unary minus, 0xFF (:447-450).
  EXPECT_EQ(e8(f32(-kInf), kFin), 0xFFu);
  EXPECT_EQ(e8(f32(kInf), kFin), 0xFFu);
  // FLT_MAX rounds past 0xFE (ties up carry): kSaturate gives highest() 0xFE (:1503-1507).
  EXPECT_EQ(e8(f32(kMax), kFin), 0xFEu);
  EXPECT_EQ(e8(f32(kMax), kNone), 0xFFu);
  // FP4/FP6 (mxfloat.h): infinity() is the max finite, so Inf gives +-max under both; here
  // saturation finite with satfinite_inf as_none reaches the same max (e2m1 0x7 = 6.0).
  EXPECT_EQ(cvt("ml_dtypes", FormatId::f32, FormatId::e2m1, f32(kInf), kFin), 0x7u);
  EXPECT_EQ(cvt("ml_dtypes", FormatId::f32, FormatId::e2m1, f32(-kInf), kNone), 0xFu);
  // ocp's saturation finite is OFP8's SAT: Inf gives max finite (these differ from ml_dtypes).
  EXPECT_EQ(cvt("ocp", FormatId::f32, FormatId::e4m3, f32(kInf), kFin), 0x7Eu);
  EXPECT_EQ(cvt("ocp", FormatId::f32, FormatId::e5m2, f32(-kInf), kFin), 0xFBu);
  EXPECT_EQ(cvt("ocp", FormatId::f32, FormatId::e8m0, f32(0.0f), kFin), 0x00u);
  // Flags: the Inf kept into e5m2 raises nothing, into e4m3 it is a NaN made from an Inf (invalid).
  EXPECT_EQ(convert(FormatId::f32, FormatId::e5m2, f32(kInf), ctx(kFin), D("ml_dtypes")).flags, 0);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, f32(kInf), ctx(kFin), D("ml_dtypes")).flags, flag::invalid);
}

// The transcription of ConvertImpl over every f16 and bf16 input and 4,194,304 f32 inputs into
// e4m3, e5m2 and e8m0, kSaturate both ways.
TEST(MlDtypesSaturating, MatchesConvertImplTranscription) {
  Tally t("ml_dtypes ConvertImpl<kSaturate> transcription: f16, bf16 (all), f32 (boundary sample) -> e4m3, e5m2, e8m0");
  const auto f32s = f32_inputs();
  const auto h = all16();
  for (const MlTo* to : {&kMlE4m3, &kMlE5m2, &kMlE8m0}) {
    const FormatId dst = to == &kMlE4m3 ? FormatId::e4m3 : to == &kMlE5m2 ? FormatId::e5m2 : FormatId::e8m0;
    for (bool sat : {true, false}) {
      const Saturation s = sat ? kFin : kNone;
      compare(t, "ml_dtypes", FormatId::f32, dst, s, f32s, [&](std::uint32_t x) { return ml_convert(kMlF32, x, *to, sat); });
      compare(t, "ml_dtypes", FormatId::f16, dst, s, h, [&](std::uint16_t x) { return ml_convert(kMlF16, x, *to, sat); });
      compare(t, "ml_dtypes", FormatId::bf16, dst, s, h, [&](std::uint16_t x) { return ml_convert(kMlBf16, x, *to, sat); });
    }
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// 2. ml_dtypes-cpp: Eigen::half <-> float8_e5m2 directly (float8.h:1528-1569).

TEST(MlDtypesCpp, HalfToE5m2KeepsTheNanPayload) {
  const auto cpp = [](std::uint64_t h) { return cvt("ml_dtypes-cpp", FormatId::f16, FormatId::e5m2, h, kNone); };
  const auto np = [](std::uint64_t h) { return cvt("ml_dtypes", FormatId::f16, FormatId::e5m2, h, kNone); };
  using Case = std::pair<std::uint64_t, std::uint64_t>;  // {f16 input, e5m2 result}
  // :1543: (from_bits >> 8) | 0b10 (0x7C01 -> 0x7C | 2, 0x7D00 -> 0x7D | 2).
  for (const auto& [h, want] : {Case{0x7E00, 0x7E}, Case{0x7C01, 0x7E}, Case{0x7D00, 0x7F}, Case{0x7FFF, 0x7F},
                                Case{0xFD00, 0xFF}, Case{0xFC01, 0xFE}})
    EXPECT_EQ(cpp(h), want) << std::hex << h;
  // Through float (:1375-1378): +-quiet_NaN() 0x7E / 0xFE.
  for (const auto& [h, want] : {Case{0x7D00, 0x7E}, Case{0xFD00, 0xFE}, Case{0x7FFF, 0x7E}})
    EXPECT_EQ(np(h), want) << std::hex << h;
  // :1535-1536: Inf is from_bits >> 8, also with kSaturate (Inf kept).
  EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::f16, FormatId::e5m2, 0xFC00, kFin), 0xFCu);
  // :1547-1553: overflow of the rounded bits saturates to 0x7B under kSaturate.
  EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::f16, FormatId::e5m2, 0x7BFF, kFin), 0x7Bu);
  EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::f16, FormatId::e5m2, 0x7BFF, kNone), 0x7Cu);
  // Only the f16 source: f32 and bf16 NaNs still take ConvertImpl's quiet_NaN().
  EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::f32, FormatId::e5m2, 0x7FA00000, kNone), 0x7Eu);
  EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::bf16, FormatId::e5m2, 0x7FA0, kNone), 0x7Eu);
}

TEST(MlDtypesCpp, E5m2ToHalfShiftsTheBits) {
  // :1563-1569: static_cast<uint16_t>(rep) << 8, so a signalling e5m2 NaN stays signalling.
  const auto cpp = [](std::uint64_t c) { return cvt("ml_dtypes-cpp", FormatId::e5m2, FormatId::f16, c, kNone); };
  EXPECT_EQ(cpp(0x7D), 0x7D00u);
  EXPECT_EQ(cpp(0x7E), 0x7E00u);
  EXPECT_EQ(cpp(0x7F), 0x7F00u);
  EXPECT_EQ(cpp(0xFD), 0xFD00u);
  // ml_dtypes (through ConvertImpl): +-Eigen::half quiet_NaN() 0x7E00.
  EXPECT_EQ(cvt("ml_dtypes", FormatId::e5m2, FormatId::f16, 0x7D, kNone), 0x7E00u);
  EXPECT_EQ(cvt("ml_dtypes", FormatId::e5m2, FormatId::f16, 0xFF, kNone), 0xFE00u);
  // Every e5m2 code: the direct path is exactly the shift.
  for (std::uint64_t c = 0; c < 256; ++c)
    for (Saturation s : {kFin, kNone}) EXPECT_EQ(cvt("ml_dtypes-cpp", FormatId::e5m2, FormatId::f16, c, s), c << 8) << c;
}

TEST(MlDtypesCpp, HalfToE5m2MatchesTheDirectPathTranscription) {
  Tally t("ml_dtypes float8.h:1528-1560 transcription: every f16 -> e5m2, kSaturate both ways");
  const auto h = all16();
  for (bool sat : {true, false})
    compare(t, "ml_dtypes-cpp", FormatId::f16, FormatId::e5m2, sat ? kFin : kNone, h,
            [&](std::uint16_t x) { return ml_half_to_e5m2_direct(x, sat); });
  t.report();
}

// ---------------------------------------------------------------------------------------------
// 3. PyTorch's Float8_e8m0fnu -> float (torch/headeronly/util/Float8_e8m0fnu.h at 31db7314).

TEST(TorchaoE8m0Decode, NanIsTheSignallingPattern) {
  for (const char* d : {"torchao", "torchao-pre-178817"}) {
    // :137-140: isnan() (x == 0xFF) returns fp32_from_bits(0x7f800001).
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::f32, 0xFF, kNone), 0x7F800001u) << d;
    // :133-135: 0 returns fp32_from_bits(0x00400000) (2^-127); otherwise x << 23.
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::f32, 0x00, kNone), 0x00400000u) << d;
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::f32, 0x7F, kNone), 0x3F800000u) << d;
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::f32, 0xFE, kNone), 0x7F000000u) << d;
    // Into f16 and bf16 PyTorch converts that float (c10 Half and BFloat16 from float): the
    // canonical NaNs 0x7E00 and 0x7FC0.
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::f16, 0xFF, kNone), 0x7E00u) << d;
    EXPECT_EQ(cvt(d, FormatId::e8m0, FormatId::bf16, 0xFF, kNone), 0x7FC0u) << d;
  }
  EXPECT_EQ(cvt("ocp", FormatId::e8m0, FormatId::f32, 0xFF, kNone), 0x7FC00000u);
  EXPECT_EQ(cvt("ml_dtypes", FormatId::e8m0, FormatId::f32, 0xFF, kNone), 0x7FC00000u);
  // Every code, both saturations, batch and scalar: x << 23 for 0x01..0xFE.
  for (Saturation s : {kFin, kNone}) {
    const Converter c(FormatId::e8m0, FormatId::f32, ctx(s), D("torchao"));
    std::vector<std::uint8_t> in(256);
    for (int i = 0; i < 256; ++i) in[i] = static_cast<std::uint8_t>(i);
    std::vector<std::uint32_t> out(256);
    c.run(in.data(), out.data(), nullptr, 256);
    for (std::uint32_t x = 0; x < 256; ++x) {
      const std::uint32_t want = x == 0 ? 0x00400000u : x == 0xFF ? 0x7F800001u : x << 23;
      EXPECT_EQ(out[x], want) << x;
      EXPECT_EQ(c(x).code, want) << x;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 4. PyTorch PR 178817: the e4m3fn cast saturates finite overflow and Inf (torchao), or not
//    (torchao-pre-178817).

TEST(TorchaoPr178817, HandCases) {
  const auto after = [](float x) { return cvt("torchao", FormatId::f32, FormatId::e4m3, f32(x), kFin); };
  const auto before = [](float x) { return cvt("torchao-pre-178817", FormatId::f32, FormatId::e4m3, f32(x), kNone); };
  // 470 (0x43EB0000): the normal path carries into 0x7F; lines 209-211 make it 0x7E. Before: 0x7F.
  EXPECT_EQ(after(470.0f), 0x7Eu);
  EXPECT_EQ(before(470.0f), 0x7Fu);
  // -1000: f_bits >= fp8_max, not NaN: 0x7E | sign (lines 181-188). Before: 0x7F | sign.
  EXPECT_EQ(after(-1000.0f), 0xFEu);
  EXPECT_EQ(before(-1000.0f), 0xFFu);
  // +Inf: f_bits > 0x7F800000 is false, so 0x7E. Before 0x7F; -Inf 0xFF (sign OR-ed in).
  EXPECT_EQ(after(kInf), 0x7Eu);
  EXPECT_EQ(before(kInf), 0x7Fu);
  EXPECT_EQ(before(-kInf), 0xFFu);
  // 464 = the tie above 448: mant_odd 0, the carry stops at 0x7E under both.
  EXPECT_EQ(after(464.0f), 0x7Eu);
  EXPECT_EQ(before(464.0f), 0x7Eu);
  // NaN: 0x7F | sign under both (line 184).
  EXPECT_EQ(cvt("torchao", FormatId::f32, FormatId::e4m3, 0xFFC00000, kFin), 0xFFu);
  // The plain cast after the PR cannot be non-saturating: torchao refuses --sat none into e4m3.
  EXPECT_TRUE(unsupported_reason(D("torchao"), FormatId::e4m3, ctx(kNone)));
  EXPECT_FALSE(unsupported_reason(D("torchao-pre-178817"), FormatId::e4m3, ctx(kNone)));
  // Both default to finite into e4m3: to_mx clamps to +-448 before the cast on PyTorch < 2.13
  // (mx_tensor.py:361-373), so MX element bytes are the same.
  EXPECT_EQ(D("torchao-pre-178817").support[static_cast<int>(FormatId::e4m3)].default_saturation, kFin);
  // E5M2 is unchanged by the PR: overflow to Inf 0x7C under none in both.
  for (const char* d : {"torchao", "torchao-pre-178817"})
    EXPECT_EQ(cvt(d, FormatId::f32, FormatId::e5m2, f32(1e6f), kNone), 0x7Cu) << d;
}

TEST(TorchaoPr178817, MatchesTheCastTranscription) {
  Tally t("PyTorch fp8e4m3fn_from_fp32_value transcription (before and after PR 178817): f32 boundary sample, every f16 "
          "and bf16 (through float) -> e4m3");
  const auto f32s = f32_inputs();
  const auto h = all16();
  const auto widen16 = [](FormatId src, std::uint16_t x) {
    return static_cast<std::uint32_t>(convert(src, FormatId::f32, x, ctx(kNone)).code);  // exact widening
  };
  for (bool after : {true, false}) {
    const char* d = after ? "torchao" : "torchao-pre-178817";
    const Saturation s = after ? kFin : kNone;
    compare(t, d, FormatId::f32, FormatId::e4m3, s, f32s, [&](std::uint32_t x) { return torch_e4m3fn(x, after); });
    for (FormatId src : {FormatId::f16, FormatId::bf16})
      compare(t, d, src, FormatId::e4m3, s, h, [&](std::uint16_t x) {
        return torch_e4m3fn(widen16(src, x), after);  // PyTorch casts a Half or BFloat16 through float
      });
  }
  t.report();
}

}  // namespace
}  // namespace softmx
