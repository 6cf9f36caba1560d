// conformance/test_torchmx.cpp: softmx's model of rain-neuromorphics/torchmx (softmx/torchmx.hpp,
// dialects torchmx and torchmx-hw-exact).
//
// 1. The hand cases T1-T16 of docs/research/torchmx.md section 8, each computed from the torchmx
//    line it cites (tmx: = torchmx 7648b97, ao061: = torchao v0.6.1).
// 2. Every bf16 input against a transcription of torchmx's simulated path written here from the
//    source lines (integer exponent fields for the scale, the exact quotient, the MPFR oracle's
//    RNE satfinite cast for FP elements, rint and a +-127 clamp for int8), alone in a block and
//    beside each of a few block maxima, and dequantized (exact product rounded by MPFR).
// 3. The bf16 matmul against an MPFR sum rounded to f32 then bf16 (exact-f32) and against the
//    host's fmaf loop (fp32-sequential).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "oracles/mpfr_oracle.hpp"
#include "softmx/block.hpp"
#include "softmx/dialect.hpp"
#include "softmx/prng.hpp"
#include "softmx/torchmx.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using V8 = std::vector<std::uint8_t>;
using V16 = std::vector<std::uint16_t>;

TorchmxTensor q1(const V16& x, const char* elem, std::size_t bs, TorchmxPath path = TorchmxPath::simulated) {
  const std::size_t shape[1] = {x.size()};
  return torchmx_quantize_mx(x.data(), shape, elem, bs, path);
}
V16 back_bf16(const TorchmxTensor& t) {
  V16 out(t.shape.back() * (t.shape.size() == 2 ? t.shape[0] : 1));
  torchmx_to_dtype(t, FormatId::bf16, out.data());
  return out;
}

// ---------------------------------------------------------------------------------------------
// 1. Hand cases (docs/research/torchmx.md section 8).
struct Hand {
  const char* name;
  const char* elem;
  std::size_t bs;
  V16 in;
  V8 scale, codes;
  V16 out;
};

TEST(Torchmx, HandCases) {
  const Hand cases[] = {
      // T1: fields 127,126,125,0 -> max 127 - max_pow2 8 = 0x77 (mx_quantization_utils.py:529-549).
      {"T1", "float8_e4m3", 4, {0x3F80, 0x3F00, 0xBE80, 0x0000}, {0x77}, {0x78, 0x70, 0xE8, 0x00},
       {0x3F80, 0x3F00, 0xBE80, 0x0000}},
      // T2: the exact f32 quotient, c10's RNE cast: 272 ties to 256, 304 to 320 (469-481).
      {"T2", "float8_e4m3", 4, {0x3F80, 0x3F88, 0x3F98, 0x0000}, {0x77}, {0x78, 0x78, 0x7A, 0x00},
       {0x3F80, 0x3F80, 0x3FA0, 0x0000}},
      // T3: clamp to +-448 before the cast (469-471).
      {"T3", "float8_e4m3", 4, {0x3FE8, 0x3FFF, 0xBFF0, 0x0000}, {0x77}, {0x7E, 0x7E, 0xFE, 0x00},
       {0x3FE0, 0x3FE0, 0xBFE0, 0x0000}},
      // T4: bf16 subnormals: max field 0, 0 - 8 clamps to 0 (546-549); -0 kept (473).
      {"T4", "float8_e4m3", 4, {0x0008, 0x0001, 0x8000, 0x0000}, {0x00}, {0x20, 0x08, 0x80, 0x00},
       {0x0008, 0x0001, 0x8000, 0x0000}},
      // T5: a field of 255 gives 0xFF (552-556); the NaN quotients become +0.0 (473).
      {"T5", "float8_e4m3", 4, {0x3F80, 0x7F80, 0xC000, 0x7FC0}, {0xFF}, {0x00, 0x00, 0x00, 0x00},
       {0x7FC0, 0x7FC0, 0x7FC0, 0x7FC0}},
      // T7: -2^-11 rounds to -0 (0x80), 2^-10 ties to 0, 0.75 2^-9 rounds up (473-481).
      {"T7", "float8_e4m3", 4, {0x4380, 0xBA00, 0x3A80, 0x3AC0}, {0x7F}, {0x78, 0x80, 0x00, 0x01},
       {0x4380, 0x8000, 0x0000, 0x3B00}},
      // T9: int8 max_pow2 = 6 (dtypes.py:85): 127 - 6 = 0x79; torch.round ties to even, clamp +-127 (496).
      {"T9", "int8", 4, {0x3F80, 0xBF00, 0x3C00, 0xBFFF}, {0x79}, {0x40, 0xE0, 0x00, 0x81},
       {0x3F80, 0xBF00, 0x0000, 0xBFFE}},
      // T10: max field 1, 1 - 6 clamps to 0: integers on 2^-127, 1.5 ties to 2 (546-549, 496).
      {"T10", "int8", 2, {0x0060, 0x0080}, {0x00}, {0x02, 0x02}, {0x0080, 0x0080}},
      // T12: E3M2, 31.875 clamps to 28, 2.25 ties to 2 (ao061 custom_fp_utils.py:91-121).
      {"T12", "float6_e3m2", 4, {0x3FFF, 0xBE20, 0x3E10, 0x0000}, {0x7B}, {0x1F, 0x31, 0x10, 0x00},
       {0x3FE0, 0xBE20, 0x3E00, 0x0000}},
      // T13: E2M3, 0.15625 is 1.25 subnormal steps: the denormal branch rounds to 1 (103-106).
      {"T13", "float6_e2m3", 2, {0x3F80, 0x3D20}, {0x7D}, {0x18, 0x01}, {0x3F80, 0x3D00}},
      // T14: E2M1 zero block with a -0: sign re-attached (131-138), packed high nibble first
      // (utils.py:120-145).
      {"T14", "float4_e2m1", 4, {0x0000, 0x8000, 0x0000, 0x0000}, {0x00}, {0x08, 0x00},
       {0x0000, 0x8000, 0x0000, 0x0000}},
      // T15: the largest bf16: 254 - 8 = 0xF6; 510 clamps to 448 (545-549).
      {"T15", "float8_e4m3", 1, {0x7F7F}, {0xF6}, {0x7E}, {0x7F60}},
  };
  for (const Hand& c : cases) {
    const TorchmxTensor t = q1(c.in, c.elem, c.bs);
    EXPECT_EQ(t.scale, c.scale) << c.name;
    EXPECT_EQ(t.data, c.codes) << c.name;
    EXPECT_EQ(back_bf16(t), c.out) << c.name;
  }
}

// T6: MX_HARDWARE_EXACT_QUANTIZATION=True writes subnormal codes into a NaN-scale block
// (mx_quantization_utils.py:289-291, 313-315, 331-349, 387); the simulated path writes zeros.
TEST(Torchmx, HardwareExactNanScaleBlock) {
  const V16 x = {0x7C00, 0x7C40, 0x7F80, 0x7AC0};
  const TorchmxTensor hw = q1(x, "float8_e4m3", 4, TorchmxPath::hardware_exact);
  EXPECT_EQ(hw.scale, V8{0xFF});
  EXPECT_EQ(hw.data, (V8{0x04, 0x06, 0x00, 0x01}));
  const TorchmxTensor sim = q1(x, "float8_e4m3", 4);
  EXPECT_EQ(sim.data, (V8{0x00, 0x00, 0x00, 0x00}));
  // Negative elements: the sign is forced to 0 first (289-291).
  const TorchmxTensor neg = q1({0xFC00, 0x7FC0}, "float8_e4m3", 2, TorchmxPath::hardware_exact);
  EXPECT_EQ(neg.data, (V8{0x04, 0x00}));
  // int8 always takes the simulated path (mx_tensor.py:80-90).
  EXPECT_EQ(q1({0x7C00, 0x7FC0}, "int8", 2, TorchmxPath::hardware_exact).data, (V8{0x00, 0x00}));
}

// T8: to_mx pads each row with +0.0 (mx_tensor.py:217-221), keeps ceil(5/2) = 3 FP4 bytes
// (231-243); to_dtype re-pads and cuts back (284-323).
TEST(Torchmx, ToMxPadding) {
  const V16 x = {0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0};
  const std::size_t shape[2] = {1, 5};
  const TorchmxTensor t = torchmx_to_mx(x.data(), shape, "float4_e2m1", 4);
  EXPECT_EQ(t.scale, (V8{0x7F, 0x7F}));
  EXPECT_EQ(t.data, (V8{0x24, 0x56, 0x60}));
  EXPECT_EQ(t.padding, 3u);
  EXPECT_EQ(back_bf16(t), (V16{0x3F80, 0x4000, 0x4040, 0x4080, 0x4080}));
  // Two rows of 3 in e4m3 blocks of 2: each row padded on its own.
  const V16 y = {0x3F80, 0x4000, 0x4040, 0x3F00, 0x3E80, 0x4100};
  const std::size_t s2[2] = {2, 3};
  const TorchmxTensor u = torchmx_to_mx(y.data(), s2, "float8_e4m3", 2);
  EXPECT_EQ(u.scale, (V8{0x78, 0x78, 0x76, 0x7A}));  // [1,2] [3,+0] | [0.5,0.25] [8,+0]
  EXPECT_EQ(u.scale_shape, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(u.data.size(), 6u);
  EXPECT_EQ(back_bf16(u), y);
  // quantize_mx itself refuses (mx_tensor.py:68-70); an odd block size cannot pad (228-230).
  EXPECT_THROW(torchmx_quantize_mx(x.data(), shape, "float4_e2m1", 4), std::invalid_argument);
  EXPECT_THROW(torchmx_to_mx(x.data(), shape, "float8_e4m3", 3), std::invalid_argument);
}

// T11: dequantize_mx on arbitrary bytes: exact product rounded once (mx_tensor.py:157-162).
TEST(Torchmx, DequantizeMx) {
  const V8 data = {0x01, 0x05, 0x08, 0x7E}, scale = {0x00};
  const std::size_t ds[1] = {4}, ss[1] = {1};
  V16 b(4);
  torchmx_dequantize_mx(data, ds, scale, ss, "float8_e4m3", 4, FormatId::bf16, 0, b.data());
  EXPECT_EQ(b, (V16{0x0000, 0x0001, 0x0001, 0x0460}));
  std::vector<std::uint32_t> f(4);
  torchmx_dequantize_mx(data, ds, scale, ss, "float8_e4m3", 4, FormatId::f32, 0, f.data());
  EXPECT_EQ(f, (std::vector<std::uint32_t>{0x00002000, 0x0000A000, 0x00010000, 0x04600000}));
  // block_dim 0 of a 2-d tensor: the scale of row r / 2 (repeat_interleave along dim 0).
  const V8 d2 = {0x38, 0x38, 0x38, 0x38};  // e4m3 1.0
  const V8 s2 = {0x7F, 0x80};
  const std::size_t ds2[2] = {2, 2}, ss2[2] = {1, 2};
  torchmx_dequantize_mx(d2, ds2, s2, ss2, "float8_e4m3", 2, FormatId::bf16, 0, b.data());
  EXPECT_EQ(b, (V16{0x3F80, 0x4000, 0x3F80, 0x4000}));
  // int8 as integers: 64 * 2^(0x79 - 127) = 1.
  const V8 d3 = {0x40}, s3 = {0x79};
  const std::size_t ds3[1] = {1}, ss3[1] = {1};
  torchmx_dequantize_mx(d3, ds3, s3, ss3, "int8", 1, FormatId::bf16, 0, b.data());
  EXPECT_EQ(b[0], 0x3F80);
  EXPECT_THROW(torchmx_dequantize_mx(data, ds, scale, ss, "float8_e4m3", 4, FormatId::f16, 0, b.data()),
               std::invalid_argument);
  EXPECT_THROW(torchmx_dequantize_mx(data, ds, scale, ss, "float8_e5m2", 4, FormatId::bf16, 0, b.data()),
               std::invalid_argument);
}

TEST(Torchmx, RefusesWhatTorchmxRefuses) {
  const V16 x = {0x3F80, 0x3F80};
  const std::size_t shape[1] = {2};
  EXPECT_THROW(torchmx_quantize_mx(x.data(), shape, "float8_e5m2", 2), std::invalid_argument);  // dtypes.py:143-149
  EXPECT_THROW(torchmx_quantize_mx(x.data(), shape, "fp8", 2), std::invalid_argument);
  EXPECT_THROW(torchmx_quantize_mx(x.data(), shape, "float8_e4m3", 0), std::invalid_argument);
  // The dialect itself takes bf16 only (mx_tensor.py:59-61).
  BlockOptions o;
  o.dialect = find_dialect("torchmx");
  EXPECT_TRUE(quantize_unsupported_reason(FormatId::f32, o).has_value());
  EXPECT_FALSE(quantize_unsupported_reason(FormatId::bf16, o).has_value());
}

// T16: the matmul rounds into f32 first (ops.py:60-68 with f32 accumulation), so 1 + 2^-8 +
// 2^-30 gives 0x3F80, not the single rounding's 0x3F81.
TEST(Torchmx, MatmulDoubleRounding) {
  const V16 a = {0x3F80, 0x3B80, 0x3080}, b = {0x3F80, 0x3F80, 0x3F80};
  const std::size_t sa[2] = {1, 3}, sb[2] = {3, 1};
  const TorchmxTensor ta = torchmx_to_mx(a.data(), sa, "float8_e4m3", 1);
  const TorchmxTensor tb = torchmx_to_mx(b.data(), sb, "float8_e4m3", 1);
  EXPECT_EQ(ta.scale, (V8{0x77, 0x6F, 0x59}));
  EXPECT_EQ(tb.scale, (V8{0x77, 0x77, 0x77}));
  EXPECT_EQ(ta.data, (V8{0x78, 0x78, 0x78}));
  for (auto acc : {TorchmxAccumulation::exact_f32, TorchmxAccumulation::fp32_sequential}) {
    const TorchmxMatmul c = torchmx_matmul(ta, tb, acc);
    ASSERT_EQ(c.c.size(), 1u);
    EXPECT_EQ(c.c[0], 0x3F80) << name(acc);
  }
  // linear with a bias: w = b^T, bias -1 cancels the 1 exactly.
  const TorchmxTensor tw = torchmx_to_mx(b.data(), sa, "float8_e4m3", 1);
  const V16 bias = {0xBF80};
  const TorchmxMatmul l = torchmx_linear(ta, tw, std::span<const std::uint16_t>(bias));
  EXPECT_EQ(l.c[0], 0x3B80);  // RN_bf16(RN_f32(2^-8 + 2^-30)) = 2^-8
}

// The hardware-exact path inside a NaN-scale block, transcribed from
// quantize_mx_with_e8m0_shared_exponent_hw_exact (mx_quantization_utils.py:283-402): sign forced
// to 0 (289-291), new_exp = E_x - 255 + bias (313-315), the subnormal significand
// 1<<6 | msbs<<3 | sticky<<2 rounded to even by 7 - m - new_exp (331-349), a carry out of the
// mantissa zeroes it and bumps new_exp (352-356), the underflow mask zeroes everything (366-372),
// then the codes of elements still in [-m, 0] are written (387). Every bf16 value beside a NaN.
TEST(Torchmx, HardwareExactNanBlocksAgainstTranscription) {
  conformance::Tally t("torchmx-hw-exact: every bf16 value beside a NaN, 4 FP dtypes, vs a transcription of lines 283-402");
  struct Fp {
    const char* name;
    int bias, m;
  };
  const Fp fps[] = {{"float8_e4m3", 7, 3}, {"float6_e3m2", 3, 2}, {"float6_e2m3", 1, 3}, {"float4_e2m1", 1, 1}};
  for (const Fp& e : fps) {
    V16 in;
    for (std::uint32_t x = 0; x < 65536; ++x) {
      in.push_back(static_cast<std::uint16_t>(x));
      in.push_back(0x7FC0);
    }
    const std::size_t shape[2] = {65536, 2};
    const TorchmxTensor q = torchmx_quantize_mx(in.data(), shape, e.name, 2, TorchmxPath::hardware_exact);
    const bool fp4 = std::string_view(e.name) == "float4_e2m1";
    for (std::uint32_t x = 0; x < 65536; ++x) {
      const int ex = (x >> 7) & 0xFF, mant = x & 0x7F;
      int want = 0;
      int new_exp = ex - 255 + e.bias;
      if ((x & 0x7FFF) != 0 && ex != 0) {  // bf16 subnormals normalise far below -m
        const int sig = 1 << 6 | (mant >> 4) << 3 | ((mant & 0xF) != 0) << 2;
        int r = 0;
        if (new_exp <= 0 && new_exp >= -e.m) {
          const int shift = 7 - e.m - new_exp;
          const int q0 = sig >> shift, rem = sig & ((1 << shift) - 1), half = 1 << (shift - 1);
          r = q0 + ((rem > half || (rem == half && (q0 & 1))) ? 1 : 0);  // round_to_even
        }
        if (r > (1 << e.m) - 1) r = 0, ++new_exp;                      // 352-356
        if (new_exp <= 0 && new_exp >= -e.m) want = r;                  // 387
      }
      const int got = fp4 ? q.data[x] >> 4 : q.data[2 * x];
      const int got_nan = fp4 ? q.data[x] & 0xF : q.data[2 * x + 1];
      t.check(q.scale[x] == 0xFF && got == want && got_nan == 0, [&] {
        return std::string(e.name) + " " + std::to_string(x) + ": code " + std::to_string(got) + " want " + std::to_string(want);
      });
    }
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// 2. Every bf16 input against a transcription of torchmx's simulated path.

double bf16_value(std::uint16_t b) { return static_cast<double>(std::bit_cast<float>(std::uint32_t{b} << 16)); }
int field(std::uint16_t b) { return (b >> 7) & 0xFF; }  // (data_int >> 7) & 0xFF (527-531)

struct Elem {
  const char* name;
  oracle::Fmt fmt;
  int max_pow2;  // dtypes.py:34-92
};
constexpr Elem kElems[] = {{"float8_e4m3", oracle::Fmt::e4m3, 8},
                           {"float6_e3m2", oracle::Fmt::e3m2, 4},
                           {"float6_e2m3", oracle::Fmt::e2m3, 2},
                           {"float4_e2m1", oracle::Fmt::e2m1, 2},
                           {"int8", oracle::Fmt::int8, 6}};

// The reference: scale byte and element codes (unpacked) of one block.
void reference(const Elem& e, const V16& x, std::uint8_t& S, V8& codes) {
  int mx = 0;
  for (auto b : x) mx = std::max(mx, field(b));
  S = static_cast<std::uint8_t>(mx == 255 ? 255 : std::clamp(mx - e.max_pow2, 0, 254));  // 542-556
  codes.assign(x.size(), 0);
  if (S == 255) return;  // NaN quotients become +0.0 (473)
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double q = std::ldexp(bf16_value(x[i]), 127 - S);  // exact: bf16 / 2^(S-127)
    if (e.fmt == oracle::Fmt::int8) {
      const double r = std::clamp(std::nearbyint(std::clamp(q, -127.0, 127.0)), -127.0, 127.0);  // 469-471, 496
      codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(r));
    } else {
      codes[i] = static_cast<std::uint8_t>(oracle::convert(oracle::Fmt::f64, e.fmt, std::bit_cast<std::uint64_t>(q),
                                                           oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after)
                                               .code);
    }
  }
}

// The exact product code * 2^(S-127) (int8: integer * 2^(S-127)) rounded by MPFR to bf16.
std::uint16_t reference_bf16(const Elem& e, std::uint8_t S, std::uint8_t code) {
  if (S == 255) return 0x7FC0;
  mpfr_t v;
  mpfr_init2(v, 64);
  if (e.fmt == oracle::Fmt::int8) mpfr_set_si(v, static_cast<std::int8_t>(code), MPFR_RNDN);
  else oracle::decode(e.fmt, code, v);
  mpfr_mul_2si(v, v, static_cast<int>(S) - 127, MPFR_RNDN);
  const double d = mpfr_get_d(v, MPFR_RNDN);  // exact: at most 8 bits, exponent >= -136
  mpfr_clear(v);
  return static_cast<std::uint16_t>(oracle::convert(oracle::Fmt::f64, oracle::Fmt::bf16, std::bit_cast<std::uint64_t>(d),
                                                    oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after)
                                        .code);
}

// Under AddressSanitizer (scripts/test-sanitized.sh) every 8th input: the release run covers all.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kStride = 8;
#else
constexpr std::size_t kStride = 1;
#endif

TEST(Torchmx, EveryBf16InputAgainstTranscription) {
  conformance::Tally t("torchmx: every bf16 value alone and beside 3 block maxima, 5 element dtypes, codes and bf16 out");
  const std::uint16_t partners[] = {0x3F80, 0x0001, 0x7F7F};  // 1.0, the smallest subnormal, the largest bf16
  for (const Elem& e : kElems) {
    for (int mode = 0; mode < 4; ++mode) {
      // Blocks of 2 (mode 0: each value doubled; else: [x, partner]), 32768 blocks per call.
      V16 in;
      in.reserve(2 * 65536);
      for (std::uint32_t x = 0; x < 65536; ++x) {
        in.push_back(static_cast<std::uint16_t>(x));
        in.push_back(mode == 0 ? static_cast<std::uint16_t>(x) : partners[mode - 1]);
      }
      const std::size_t shape[2] = {65536, 2};
      const TorchmxTensor q = torchmx_quantize_mx(in.data(), shape, e.name, 2);
      V16 out(in.size());
      torchmx_to_dtype(q, FormatId::bf16, out.data());
      for (std::size_t b = 0; b < 65536; b += kStride) {
        const V16 blk = {in[2 * b], in[2 * b + 1]};
        std::uint8_t S;
        V8 codes;
        reference(e, blk, S, codes);
        V8 got = {q.data[e.fmt == oracle::Fmt::e2m1 ? b : 2 * b], 0};
        if (e.fmt == oracle::Fmt::e2m1) {
          got = {static_cast<std::uint8_t>(got[0] >> 4), static_cast<std::uint8_t>(got[0] & 0xF)};
        } else {
          got[1] = q.data[2 * b + 1];
        }
        const bool ok = q.scale[b] == S && got == codes && out[2 * b] == reference_bf16(e, S, codes[0]) &&
                        out[2 * b + 1] == reference_bf16(e, S, codes[1]);
        t.check(ok, [&] {
          char s[200];
          std::snprintf(s, sizeof s, "%s [%04X %04X]: S %02X codes %02X %02X out %04X %04X; want S %02X codes %02X %02X",
                        e.name, blk[0], blk[1], q.scale[b], got[0], got[1], out[2 * b], out[2 * b + 1], S, codes[0],
                        codes[1]);
          return std::string(s);
        });
      }
    }
  }
  t.report();
}

// f32 dequantization is exact (mx_tensor.py:157-162): every code under a spread of scales.
TEST(Torchmx, F32DequantizeExact) {
  conformance::Tally t("torchmx: dequantize_mx to f32, every code x 9 scales x 5 dtypes, vs MPFR");
  const std::uint8_t scales[] = {0x00, 0x01, 0x20, 0x79, 0x7F, 0x80, 0xE0, 0xF6, 0xFF};
  for (const Elem& e : kElems) {
    const int w = oracle::width(e.fmt);
    const std::size_t n = std::size_t{1} << w;
    for (std::uint8_t S : scales) {
      V8 data;
      for (std::size_t c = 0; c < n; c += (w == 4 ? 2 : 1)) {
        if (w == 4) data.push_back(static_cast<std::uint8_t>(c << 4 | (c + 1)));
        else data.push_back(static_cast<std::uint8_t>(c));
      }
      const std::size_t ds[1] = {data.size()}, ss[1] = {1};
      const V8 sc = {S};
      std::vector<std::uint32_t> f(n);
      torchmx_dequantize_mx(data, ds, sc, ss, e.name, n, FormatId::f32, 0, f.data());
      for (std::size_t c = 0; c < n; ++c) {
        std::uint32_t want = 0x7FC00000;
        mpfr_t v;
        mpfr_init2(v, 64);
        bool nan = S == 255;
        if (!nan) {
          if (e.fmt == oracle::Fmt::int8) mpfr_set_si(v, static_cast<std::int8_t>(c), MPFR_RNDN);
          else nan = !oracle::decode(e.fmt, c, v);
        }
        if (!nan) {
          mpfr_mul_2si(v, v, static_cast<int>(S) - 127, MPFR_RNDN);
          want = std::bit_cast<std::uint32_t>(mpfr_get_flt(v, MPFR_RNDN));
        }
        mpfr_clear(v);
        // A NaN code or scale: some NaN (PyTorch's bits depend on its kernel, research section 5).
        const bool ok = nan ? std::isnan(std::bit_cast<float>(f[c])) : f[c] == want;
        t.check(ok, [&] {
          return std::string(e.name) + " code " + std::to_string(c) + " S " + std::to_string(S) + ": " +
                 std::to_string(f[c]) + " want " + std::to_string(want);
        });
      }
    }
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// 3. The matmul: random e4m3 operands whose products and partial sums may round in f32.
TEST(Torchmx, MatmulAgainstMpfrAndHostFma) {
  conformance::Tally t("torchmx matmul: 400 random products, exact-f32 vs MPFR, fp32-sequential vs host fmaf");
  SplitMix64 rng(0x70C4);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t m = 1 + rng.next() % 3, k = 1 + rng.next() % 40, n = 1 + rng.next() % 3;
    V16 a(m * k), b(k * n);
    for (auto& v : a) v = static_cast<std::uint16_t>((rng.next() % 2) << 15 | (100 + rng.next() % 60) << 7 | rng.next() % 128);
    for (auto& v : b) v = static_cast<std::uint16_t>((rng.next() % 2) << 15 | (100 + rng.next() % 60) << 7 | rng.next() % 128);
    const std::size_t sa[2] = {m, k}, sb[2] = {k, n};
    const std::size_t bs = trial % 2 ? 1 : 2;
    const TorchmxTensor ta = torchmx_to_mx(a.data(), sa, "float8_e4m3", bs);
    const TorchmxTensor tb = torchmx_to_mx(b.data(), sb, "float8_e4m3", 1);
    V16 da = back_bf16(ta), db = back_bf16(tb);
    const TorchmxMatmul ce = torchmx_matmul(ta, tb, TorchmxAccumulation::exact_f32);
    const TorchmxMatmul cs = torchmx_matmul(ta, tb, TorchmxAccumulation::fp32_sequential);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        mpfr_t s, p;
        mpfr_init2(s, 2000);
        mpfr_init2(p, 64);
        mpfr_set_zero(s, 1);
        float seq = 0.0f;
        for (std::size_t x = 0; x < k; ++x) {
          const double av = bf16_value(da[i * k + x]), bv = bf16_value(db[x * n + j]);
          mpfr_set_d(p, av, MPFR_RNDN);
          mpfr_mul_d(p, p, bv, MPFR_RNDN);  // exact: 16 bits
          mpfr_add(s, s, p, MPFR_RNDN);
          seq = std::fmaf(static_cast<float>(av), static_cast<float>(bv), seq);
        }
        const float f = mpfr_get_flt(s, MPFR_RNDN);  // no subnormal sums for these exponents
        mpfr_clear(s);
        mpfr_clear(p);
        auto to_bf16 = [](float v) {
          return static_cast<std::uint16_t>(oracle::convert(oracle::Fmt::f32, oracle::Fmt::bf16, std::bit_cast<std::uint32_t>(v),
                                                            oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after)
                                                .code);
        };
        const std::uint16_t we = to_bf16(f), ws = to_bf16(seq);
        t.check(ce.c[i * n + j] == we && cs.c[i * n + j] == ws, [&] {
          char b2[160];
          std::snprintf(b2, sizeof b2, "trial %d (%zu,%zu): exact %04X want %04X, seq %04X want %04X", trial, i, j,
                        ce.c[i * n + j], we, cs.c[i * n + j], ws);
          return std::string(b2);
        });
      }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
