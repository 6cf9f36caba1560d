// conformance/test_blocks_scale_format.cpp: MX blocks whose scale format is not E8M0
// (docs/BLOCKS.md 1.2 and 2): cases computed by hand, and quantize and dequantize against an
// MPFR computation of the definition.
//
// The oracle never asks softmx for a value: max_E and the scale's value come from the oracle's
// own decoding of the codes, the scale is the oracle's rounding (rne, saturating) of amax / max_E
// computed in MPFR at 512 bits, every element is the oracle's rounding of x / S (MPFR, 512
// bits), and a dequantized element is the oracle's rounding of value(code) * value(S) (exact
// at 128 bits).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mpfr.h>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

std::uint32_t f32_bits(float x) { return std::bit_cast<std::uint32_t>(x); }
float f32_of(std::uint32_t b) { return std::bit_cast<float>(b); }
Format spec(const char* s) { return parse_format_spec(s); }

using Mpfr = conformance::MpfrValue<512>;

// ---- by hand (the worked examples of BLOCKS.md 1.2 and 2) ----
//
// ue4m3: unsigned, 4 exponent bits (bias 7), 3 fraction bits, fn (0x7F NaN, max 0x7E = 448),
// subnormals k/8 * 2^-6 (code 1 = 2^-9). e2m1: max 6 (code 7); magnitudes 0 0.5 1 1.5 2 3 4 6.

TEST(BlocksScaleFormat, Ue4m3E2m1ByHand) {
  BlockOptions o;
  o.element = FormatId::e2m1;
  o.scale_format = spec("ue4m3");
  // amax 10: 10 / 6 = 1.6667 = 1.1010101...b; ue4m3 keeps 1.101b (1.625) or 1.110b (1.75): the
  // remainder 0.0417 is below half an ulp (0.0625), RNE gives 1.625, code (7 << 3) | 5 = 0x3D.
  // Elements x / 1.625: 10 -> 6.154 -> 6 (code 7, inexact); 5 -> 3.0769 -> 3 (code 5, inexact);
  // -1 -> -0.6154 -> -0.5 (code 0x9, inexact, and tiny: below e2m1's smallest normal 1, so
  // underflow); 0.8125 = 1.625 / 2 -> 0.5 exactly (code 1, no flag).
  {
    const std::vector<float> x = {10.0f, 5.0f, -1.0f, 0.8125f};
    std::vector<std::uint32_t> in;
    for (float v : x) in.push_back(f32_bits(v));
    const QuantizedBlock q = quantize_block(FormatId::f32, in.data(), in.size(), o);
    EXPECT_EQ(q.scale, 0x3D);
    EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x7, 0x5, 0x9, 0x1}));
    EXPECT_EQ(q.flags, flag::inexact | flag::underflow);
    // Dequantized into f32: 6 * 1.625 = 9.75, 3 * 1.625 = 4.875, -0.8125, 0.8125 (exact).
    const Context ctx;
    const float want[] = {9.75f, 4.875f, -0.8125f, 0.8125f};
    for (int i = 0; i < 4; ++i) {
      const Result r = dequantize_element(format(FormatId::e2m1), o.scale_format, q.scale, q.codes[i], FormatId::f32, ctx);
      EXPECT_EQ(r.code, f32_bits(want[i])) << i;
      EXPECT_EQ(r.flags, 0);
    }
  }
  // amax 6000: 6000 / 6 = 1000 > 448: saturated to 448 (0x7E). 6000 / 448 = 13.39 -> e2m1
  // overflows: saturation finite (ocp's block element default) gives 6 (code 7), overflow | inexact.
  {
    const std::uint32_t in[] = {f32_bits(6000.0f), f32_bits(448.0f)};
    const QuantizedBlock q = quantize_block(FormatId::f32, in, 2, o);
    EXPECT_EQ(q.scale, 0x7E);
    EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x7, 0x2}));  // 448 / 448 = 1: code 2
    EXPECT_EQ(q.flags, flag::overflow | flag::inexact);
  }
  // amax 2^-20: 2^-20 / 6 = 2^-22.58 lies below half of ue4m3's smallest subnormal 2^-9: it rounds
  // to 0, and the smallest positive scale 2^-9 (code 0x01) is taken; 2^-20 / 2^-9 = 2^-11 rounds
  // to +0 in e2m1 (underflow, inexact).
  {
    const std::uint32_t in[] = {f32_bits(std::ldexp(1.0f, -20)), f32_bits(0.0f)};
    const QuantizedBlock q = quantize_block(FormatId::f32, in, 2, o);
    EXPECT_EQ(q.scale, 0x01);
    EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x0, 0x0}));
    EXPECT_EQ(q.flags, flag::underflow | flag::inexact);
  }
  // A zero block: scale code 0 (+0), elements keep their zeros' signs.
  {
    const std::uint32_t in[] = {f32_bits(0.0f), f32_bits(-0.0f)};
    const QuantizedBlock q = quantize_block(FormatId::f32, in, 2, o);
    EXPECT_EQ(q.scale, 0x00);
    EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x0, 0x8}));
    EXPECT_EQ(q.flags, 0);
  }
  // NaN and Inf under ocp (nan_block / inf_block nan_scale, nan_scale_elements zero): the NaN
  // scale 0x7F, every element code 0; an Inf raises invalid, a quiet NaN nothing.
  {
    const std::uint32_t in[] = {f32_bits(1.0f), f32_bits(std::numeric_limits<float>::quiet_NaN())};
    const QuantizedBlock q = quantize_block(FormatId::f32, in, 2, o);
    EXPECT_EQ(q.scale, 0x7F);
    EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0, 0}));
    EXPECT_EQ(q.flags, 0);
    const std::uint32_t inf[] = {f32_bits(1.0f), f32_bits(-std::numeric_limits<float>::infinity())};
    const QuantizedBlock qi = quantize_block(FormatId::f32, inf, 2, o);
    EXPECT_EQ(qi.scale, 0x7F);
    EXPECT_EQ(qi.flags, flag::invalid);
  }
}

// ue5m3 (8 bits, IEEE-like: bias 15, 0xF8 Inf, max 0xF7 = 61440) with MXINT4 (int4: k/4, max
// 1.75): amax 7 / 1.75 = 4 exactly: code (17 << 3) = 0x88. 7 / 4 = 1.75 (0x7), -1 / 4 = -0.25
// (0xF), 0.3 / 4 = 0.075 -> 0 or 0.25: nearer 0 (code 0; int4 is fixed point: inexact only).
TEST(BlocksScaleFormat, Ue5m3Int4ByHand) {
  BlockOptions o;
  o.element = spec("int4");
  o.scale_format = spec("ue5m3");
  const std::uint32_t in[] = {f32_bits(7.0f), f32_bits(-1.0f), f32_bits(0.3f)};
  const QuantizedBlock q = quantize_block(FormatId::f32, in, 3, o);
  EXPECT_EQ(q.scale, 0x88);
  EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x7, 0xF, 0x0}));
  EXPECT_EQ(q.flags, flag::inexact);
  // Dequantize with the Inf scale 0xF8: 1.75 * Inf = Inf, 0 * Inf = NaN with invalid.
  const Context ctx;
  const Result r = dequantize_element(o.element, o.scale_format, 0xF8, 0x7, FormatId::f32, ctx);
  EXPECT_EQ(r.code, 0x7F800000u);
  const Result z = dequantize_element(o.element, o.scale_format, 0xF8, 0x0, FormatId::f32, ctx);
  EXPECT_TRUE(std::isnan(f32_of(static_cast<std::uint32_t>(z.code))));
  EXPECT_EQ(z.flags, flag::invalid);
}

// A signed e4m3 scale (NVIDIA's UE4M3 held in an FP8 byte): quantize writes positive codes only;
// dequantize reads a code with the sign bit as the negative value it encodes.
TEST(BlocksScaleFormat, SignedE4m3Scale) {
  BlockOptions o;
  o.element = FormatId::e2m1;
  o.scale_format = FormatId::e4m3;
  BlockOptions u = o;
  u.scale_format = spec("ue4m3");
  SplitMix64 rng(7);
  for (int t = 0; t < 50; ++t) {
    std::vector<std::uint32_t> in(16);
    for (auto& v : in) v = f32_bits(std::ldexp(static_cast<float>(rng.below(1000)) - 500.0f, static_cast<int>(rng.below(20)) - 10));
    const QuantizedBlock a = quantize_block(FormatId::f32, in.data(), in.size(), o);
    const QuantizedBlock b = quantize_block(FormatId::f32, in.data(), in.size(), u);
    EXPECT_EQ(a.scale, b.scale);  // the same positive codes as ue4m3
    EXPECT_LT(a.scale, 0x80);
    EXPECT_EQ(a.codes, b.codes);
  }
  const Context ctx;
  EXPECT_EQ(dequantize_element(format(FormatId::e2m1), FormatId::e4m3, 0xB8, 0x2, FormatId::f32, ctx).code,
            f32_bits(-1.0f));  // 1 * (-1)
}

// E8M0, named or spelled as a spec, is the unchanged path: the same bytes as the default options.
TEST(BlocksScaleFormat, E8m0IsTheDefault) {
  SplitMix64 rng(3);
  std::vector<std::uint32_t> in(64 * 32);
  for (auto& v : in) v = static_cast<std::uint32_t>(rng.next());
  for (const char* el : {"e4m3", "e2m1", "e1m2", "int4"}) {
    BlockOptions a;
    a.element = spec(el);
    BlockOptions b = a;
    b.scale_format = spec("ue8m0");
    EXPECT_TRUE(b.scale_format.is_e8m0());
    const std::size_t shape[] = {64, 32};
    const MxTensor ta = quantize_tensor(FormatId::f32, in.data(), shape, 1, 32, a);
    const MxTensor tb = quantize_tensor(FormatId::f32, in.data(), shape, 1, 32, b);
    EXPECT_EQ(ta.scales, tb.scales) << el;
    EXPECT_EQ(ta.codes, tb.codes) << el;
    EXPECT_EQ(ta.flags, tb.flags) << el;
  }
}

TEST(BlocksScaleFormat, Refusals) {
  const std::uint32_t in[] = {f32_bits(1.0f)};
  auto refused = [&](BlockOptions o, const char* needle) {
    try {
      (void)quantize_block(FormatId::f32, in, 1, o);
      ADD_FAILURE() << "accepted, wanted " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("scale_format"), std::string::npos) << e.what();
    }
  };
  BlockOptions o;
  o.scale_format = FormatId::f64;
  refused(o, "width");
  o.scale_format = FormatId::int8;
  refused(o, "fixed");
  o.scale_format = spec("ue4m3");
  o.rule = ScaleRule::ceil;
  refused(o, "scale rule");
  o.rule.reset();
  o.dialect = find_dialect("torchao");
  ASSERT_NE(o.dialect, nullptr);
  refused(o, "dialect torchao");
  EXPECT_TRUE(mx_scale_reason(spec("ue4m3")) == std::nullopt);
  EXPECT_TRUE(mx_scale_reason(format(FormatId::f32)) == std::nullopt);
  EXPECT_TRUE(mx_scale_reason(format(FormatId::f64)).has_value());
  // A scale code beyond the format's width (ue4m3 is 7 bits) is refused on the way back.
  const std::size_t shape[] = {2};
  const std::uint8_t scales[] = {0x80}, codes[] = {1, 2};
  MxTensorRef t{FormatId::e2m1, shape, 0, 2, scales, codes, spec("ue4m3")};
  std::vector<float> out(2);
  EXPECT_THROW(dequantize_tensor(t, FormatId::f32, out.data(), Context{}), std::invalid_argument);
}

// ---- against MPFR ----

const char* const kElements[] = {"e2m1", "e4m3", "e1m2", "int4", "e5m2", "e3m2"};
// The last three are wider than a byte (their codes 2 and 4 bytes each): bf16, f16 and f32.
const char* const kScales[] = {"ue4m3", "ue5m3", "e4m3", "ue3m3", "ue5m2", "ue4m3:subnormals=no", "bf16", "f16", "f32"};

// The positive quiet NaN code of a scale format, or -1 (BLOCKS.md 1.2), from the fields.
int positive_nan(const Format& f) {
  switch (f.specials) {
    case Specials::fn: return static_cast<int>(f.all_ones_magnitude());
    case Specials::ieee:
      return f.man_bits == 0 ? -1
                             : static_cast<int>((((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits) |
                                                (std::uint64_t{1} << (f.man_bits - 1)));
    case Specials::fnuz: return static_cast<int>(std::uint64_t{1} << (f.width - 1));
    case Specials::extended:  // P3109: the -0 code (signed) or the all-ones code (unsigned)
      return static_cast<int>(f.is_signed() ? std::uint64_t{1} << (f.width - 1) : f.all_ones_magnitude());
    case Specials::none: return -1;
  }
  return -1;
}

TEST(BlocksScaleFormat, DequantizeAgainstMpfr) {
  conformance::Tally t("mpfr: dequantize, 6 elements x 9 scale formats, every code x every scale code of the narrow "
                       "formats (a spread for elements wider than 4 bits, and for bf16, f16, f32: their boundary codes and "
                       "random ones) into f32, bf16, f16; element and Dequantizer");
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  for (const char* es : kElements) {
    const Format ef = spec(es);
    const oracle::Desc ed = conformance::to_oracle(ef);
    const std::size_t n = std::size_t{1} << ef.width;
    for (const char* ss : kScales) {
      const ScaleFormat sf = spec(ss);
      const oracle::Desc sd = conformance::to_oracle(sf.format());
      // Every scale code for the narrow element formats; a spread of 40 for the 8-bit ones.
      // Scale formats wider than a byte: the codes at both ends of each sign's range (zero,
      // subnormals, the smallest normals, the largest finite values, Inf and NaN) and 60 random ones.
      std::vector<std::uint32_t> scale_codes;
      const std::uint64_t ns = std::uint64_t{1} << sf.format().width;
      SplitMix64 rng(ns * 131 + n);
      if (sf.format().width <= 8) {
        for (std::uint64_t s = 0; s < ns; ++s)
          if (n <= 16 || s < 4 || s + 4 >= ns || rng.below(ns) < 40) scale_codes.push_back(static_cast<std::uint32_t>(s));
      } else {
        const std::uint64_t half = ns / 2, min_normal = std::uint64_t{1} << sf.format().man_bits,
                            inf = static_cast<std::uint64_t>(sf.format().all_ones_magnitude()) & ~(min_normal - 1);
        for (std::uint64_t sign : {std::uint64_t{0}, half})
          for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, min_normal - 1, min_normal,
                                  min_normal + 1, inf - 2, inf - 1, inf, inf + 1, half - 1})
            scale_codes.push_back(static_cast<std::uint32_t>(sign | m));
        for (int i = 0; i < 60; ++i) scale_codes.push_back(static_cast<std::uint32_t>(rng.below(ns)));
      }
      const std::size_t sb = sf.code_bytes();
      for (FormatId dst : {FormatId::f32, FormatId::bf16, FormatId::f16}) {
        const oracle::Desc dd = conformance::to_oracle(format(dst));
        const Context ctx;  // rne, by_destination: saturation none into f32, bf16, f16 (ocp)
        Dequantizer dq(ef, sf, dst, ctx);
        std::vector<std::uint8_t> codes(n), sc(n * sb);
        for (std::size_t c = 0; c < n; ++c) codes[c] = static_cast<std::uint8_t>(c);
        const Format& df = format(dst);
        const std::uint64_t exp_ones = ((std::uint64_t{1} << df.exp_bits) - 1) << df.man_bits;
        for (std::uint32_t s : scale_codes) {
          for (std::size_t i = 0; i < n; ++i) store_scale_code(sc.data(), i, sb, s);
          std::vector<std::uint32_t> out32(n);
          std::vector<std::uint16_t> out16(n);
          std::vector<Flags> fl(n);
          dq.run(sc.data(), codes.data(), n, n, dst == FormatId::f32 ? static_cast<void*>(out32.data()) : out16.data(),
                 fl.data());
          Mpfr sv(128);
          const bool snan = !oracle::decode(sd, s, sv.x);
          for (std::size_t c = 0; c < n; ++c) {
            Mpfr v(128);
            const bool enan = !oracle::decode(ed, c, v.x);
            // A signalling NaN operand raises invalid (an IEEE-style code whose fraction MSB is clear).
            auto signalling = [](const Format& f, std::uint64_t code) {
              if (f.specials != Specials::ieee || f.man_bits == 0) return false;
              const std::uint64_t mag = code & f.all_ones_magnitude();
              return (mag >> f.man_bits) == ((std::uint64_t{1} << f.exp_bits) - 1) && (mag & f.code_mask() & ((std::uint64_t{1} << f.man_bits) - 1)) &&
                     !((mag >> (f.man_bits - 1)) & 1);
            };
            bool nan = snan || enan, invalid = signalling(ef, c) || signalling(sf.format(), s);
            oracle::Outcome want;
            if (!nan) {
              if ((mpfr_inf_p(v.x) && mpfr_zero_p(sv.x)) || (mpfr_zero_p(v.x) && mpfr_inf_p(sv.x))) {
                nan = invalid = true;
              } else {
                mpfr_mul(v.x, v.x, sv.x, MPFR_RNDN);  // exact: at most 8 + 24 significant bits
                want = oracle::round_value_all(v.x, dd, pol).at(oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after);
              }
            }
            const Result got = dequantize_element(ef, sf, s, static_cast<std::uint8_t>(c), dst, ctx);
            const std::uint64_t batch = dst == FormatId::f32 ? out32[c] : out16[c];
            const bool got_nan = (got.code & exp_ones) == exp_ones && (got.code & ((std::uint64_t{1} << df.man_bits) - 1));
            const bool ok = nan ? got_nan && got.flags == (invalid ? flag::invalid : 0)
                                : got.code == want.code && got.flags == want.flags;
            t.check(ok && batch == got.code && fl[c] == got.flags, [&] {
              std::ostringstream o;
              o << std::hex << es << " x " << ss << " scale " << s << " code " << c << " -> " << df.name
                << ": softmx " << got.code << "/" << int(got.flags) << " batch " << batch << " oracle "
                << (nan ? std::string("NaN") : std::to_string(want.code) + "/" + std::to_string(want.flags));
              return o.str();
            });
          }
        }
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// One random f32 of the kinds a block meets: ordinary values around a center, zeros, the
// smallest subnormals, the largest finite values, and (when `specials`) NaN and Inf.
std::uint32_t draw(SplitMix64& rng, int center, bool specials) {
  const unsigned k = static_cast<unsigned>(rng.below(40));
  std::uint32_t b;
  if (k == 0) b = 0;
  else if (k == 1) b = static_cast<std::uint32_t>(1 + rng.below(0x7FFFFF));             // subnormal
  else if (k == 2) b = 0x7F7FFFFFu - static_cast<std::uint32_t>(rng.below(1u << 20));  // huge
  else if (k == 3 && specials) b = rng.below(2) ? 0x7F800000u : 0x7FC00000u;            // Inf, NaN
  else {
    const float m = 1.0f + static_cast<float>(rng.below(1u << 23)) * std::ldexp(1.0f, -23);
    b = f32_bits(std::ldexp(m, center + static_cast<int>(rng.below(10)) - 5));
  }
  return b | (rng.below(2) ? 0x80000000u : 0u);
}

TEST(BlocksScaleFormat, QuantizeAgainstMpfr) {
  conformance::Tally t("mpfr: quantize, 6 elements x 9 scale formats x 30 random f32 blocks of 16 (zeros, "
                       "subnormals, huge, tiny, NaN, Inf) x rne/rz/ru x finite/none");
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  SplitMix64 rng(0x5CA1E);
  const std::size_t k = 16;
  for (const char* es : kElements) {
    const Format ef = spec(es);
    const oracle::Desc ed = conformance::to_oracle(ef);
    Mpfr maxe;
    {
      Mpfr v;
      mpfr_set_zero(maxe.x, 1);
      for (std::uint64_t c = 0; c < (std::uint64_t{1} << ef.width); ++c)
        if (oracle::decode(ed, c, v.x) && mpfr_number_p(v.x) && mpfr_cmp(v.x, maxe.x) > 0) mpfr_set(maxe.x, v.x, MPFR_RNDN);
    }
    for (const char* ss : kScales) {
      const Format sf = spec(ss);
      const oracle::Desc sd = conformance::to_oracle(sf);
      int min_pos = -1;  // the smallest code with a positive finite value
      for (std::uint64_t c = 0; c < (std::uint64_t{1} << sf.width) && min_pos < 0; ++c) {
        Mpfr v;
        if (oracle::decode(sd, c, v.x) && mpfr_number_p(v.x) && mpfr_sgn(v.x) > 0) min_pos = static_cast<int>(c);
      }
      const int nan_code = positive_nan(sf);
      for (int blk = 0; blk < 30; ++blk) {
        const int center = blk % 6 == 5 ? -140 + static_cast<int>(rng.below(20)) : static_cast<int>(rng.below(80)) - 40;
        std::vector<std::uint32_t> in(k);
        const bool specials = blk % 5 == 4;
        for (auto& v : in) v = draw(rng, center, specials);
        bool has_special = false;
        double amax = 0;
        for (std::uint32_t v : in) {
          const float x = f32_of(v);
          if (!std::isfinite(x)) has_special = true;
          else amax = std::max(amax, std::fabs(static_cast<double>(x)));
        }
        // The oracle's scale.
        int S;
        const bool nan_scale = has_special && nan_code >= 0;
        Mpfr sv;
        if (nan_scale) {
          S = nan_code;
        } else if (amax == 0) {
          S = 0;
        } else {
          Mpfr q;
          mpfr_set_d(q.x, amax, MPFR_RNDN);
          mpfr_div(q.x, q.x, maxe.x, MPFR_RNDN);  // 512 bits: far from any tie unless exactly one
          S = static_cast<int>(
              oracle::round_value_all(q.x, sd, pol).at(oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after).code);
          Mpfr d;
          if (!oracle::decode(sd, S, d.x) || mpfr_sgn(d.x) <= 0) S = min_pos;
        }
        if (!nan_scale) oracle::decode(sd, S, sv.x);
        for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru})
          for (Saturation sat : {Saturation::finite, Saturation::none}) {
            BlockOptions o;
            o.element = ef;
            o.scale_format = sf;
            o.rounding = r;
            o.saturation = sat;
            const QuantizedBlock q = quantize_block(FormatId::f32, in.data(), k, o);
            std::ostringstream why;
            bool ok = static_cast<int>(q.scale) == S;
            if (!ok) why << "scale " << q.scale << " oracle " << S;
            Flags want_flags = 0;
            for (std::size_t i = 0; i < k; ++i) {
              oracle::Outcome w;
              const float xf = f32_of(in[i]);
              if (nan_scale) {
                w.code = 0;  // ocp: nan_scale_elements zero
                if (std::isinf(xf)) want_flags |= flag::invalid;
              } else {
                Mpfr x;
                mpfr_set_d(x.x, static_cast<double>(xf), MPFR_RNDN);
                if (std::isnan(xf)) {
                  mpfr_set_nan(x.x);
                  mpfr_setsign(x.x, x.x, std::signbit(xf), MPFR_RNDN);
                }
                else if (mpfr_number_p(x.x) && !mpfr_zero_p(x.x)) mpfr_div(x.x, x.x, sv.x, MPFR_RNDN);
                w = oracle::round_value_all(x.x, ed, pol)
                        .at(conformance::to_oracle(r), conformance::to_oracle(sat), oracle::Tiny::after);
                want_flags |= w.flags;
              }
              if (q.codes[i] != w.code) {
                ok = false;
                why << " element " << i << " (" << xf << ") code " << int(q.codes[i]) << " oracle " << w.code;
              }
            }
            if (q.flags != want_flags) {
              ok = false;
              why << " flags " << int(q.flags) << " oracle " << int(want_flags);
            }
            t.check(ok, [&] {
              return std::string(es) + " x " + ss + " " + std::string(name(r)) + " " + std::string(name(sat)) + ": " +
                     why.str();
            });
          }
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// Stochastic rounding (SEMANTICS 2: away from zero iff F + R carries out of r bits, F the first
// r bits of the discarded fraction) of x / S with a ue4m3 scale, against MPFR: N0 and the next
// magnitude from the oracle's rz and away-from-zero roundings, F = floor(2^r (|x/S| - N0) / gap).
TEST(BlocksScaleFormat, StochasticRoundingAgainstMpfr) {
  conformance::Tally t("mpfr: rs (r = 8) of x / S, e2m1/e4m3/e1m2 x ue4m3, 40 random f32 blocks of 16");
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  SplitMix64 rng(0x5705);
  for (const char* es : {"e2m1", "e4m3", "e1m2"}) {
    const Format ef = spec(es);
    const oracle::Desc ed = conformance::to_oracle(ef);
    const Format sf = spec("ue4m3");
    for (int blk = 0; blk < 40; ++blk) {
      std::vector<std::uint32_t> in(16);
      const int center = static_cast<int>(rng.below(30)) - 15;
      for (auto& v : in) v = (draw(rng, center, false) & 0x807FFFFFu) | (f32_bits(std::ldexp(1.0f, center + static_cast<int>(rng.below(6)) - 3)) & 0x7F800000u);
      std::vector<std::uint64_t> R(16);
      for (auto& r : R) r = rng.below(256);
      BlockOptions o;
      o.element = ef;
      o.scale_format = sf;
      o.rounding = Rounding::rs;
      o.rbits_width = 8;
      o.rbits = R;
      const QuantizedBlock q = quantize_block(FormatId::f32, in.data(), in.size(), o);
      BlockOptions rne = o;
      rne.rounding = Rounding::rne;
      rne.rbits = {};
      const std::uint8_t S = quantize_block(FormatId::f32, in.data(), in.size(), rne).scale;  // the scale does not depend on the element rounding
      bool ok = q.scale == S;
      std::ostringstream why;
      Mpfr sv;
      oracle::decode(conformance::to_oracle(sf), S, sv.x);
      for (std::size_t i = 0; i < in.size(); ++i) {
        Mpfr x, lo, hi, d;
        mpfr_set_d(x.x, static_cast<double>(f32_of(in[i])), MPFR_RNDN);
        if (mpfr_zero_p(x.x)) continue;
        mpfr_div(x.x, x.x, sv.x, MPFR_RNDN);
        const auto all = oracle::round_value_all(x.x, ed, pol);
        const oracle::Outcome z = all.at(oracle::Mode::rz, oracle::Sat::finite, oracle::Tiny::after);
        const oracle::Outcome a = all.at(mpfr_sgn(x.x) > 0 ? oracle::Mode::ru : oracle::Mode::rd, oracle::Sat::finite,
                                         oracle::Tiny::after);
        if (z.code == a.code) {  // exact (or saturated): nothing to decide
          ok &= q.codes[i] == z.code;
          continue;
        }
        oracle::decode(ed, z.code, lo.x);
        oracle::decode(ed, a.code, hi.x);
        mpfr_sub(d.x, x.x, lo.x, MPFR_RNDN);  // exact at 512 bits
        mpfr_sub(hi.x, hi.x, lo.x, MPFR_RNDN);
        mpfr_div(d.x, d.x, hi.x, MPFR_RNDN);
        mpfr_mul_2si(d.x, d.x, 8, MPFR_RNDN);
        mpfr_floor(d.x, d.x);
        const std::uint64_t F = mpfr_get_ui(d.x, MPFR_RNDN);
        const std::uint64_t want = F + R[i] >= 256 ? a.code : z.code;
        if (q.codes[i] != want) {
          ok = false;
          why << " element " << i << " code " << int(q.codes[i]) << " oracle " << want << " (F " << F << " R " << R[i] << ")";
        }
      }
      t.check(ok, [&] { return std::string(es) + " block " + std::to_string(blk) + why.str(); });
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// f64 sources (53-bit significands: the quotient needs every bit of the 128-by-64 division)
// against MPFR, and tensors along both axes equal to their blocks.
TEST(BlocksScaleFormat, F64BlocksAgainstMpfrAndTensors) {
  conformance::Tally t("mpfr: quantize f64 blocks of 8 with 53-bit significands, e2m1/e4m3/int4 x ue4m3/ue5m3 x "
                       "rne/rz/ru, 40 blocks each");
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  SplitMix64 rng(0xF64);
  for (const char* es : {"e2m1", "e4m3", "int4"}) {
    const Format ef = spec(es);
    const oracle::Desc ed = conformance::to_oracle(ef);
    Mpfr maxe;
    oracle::decode(ed, ef.max_finite_magnitude(), maxe.x);  // the largest positive code
    for (const char* ss : {"ue4m3", "ue5m3"}) {
      const Format sf = spec(ss);
      const oracle::Desc sd = conformance::to_oracle(sf);
      for (int blk = 0; blk < 40; ++blk) {
        std::vector<double> x(8);
        const int center = static_cast<int>(rng.below(40)) - 20;
        for (double& v : x) {
          v = std::ldexp(1.0 + static_cast<double>(rng.next() >> 12) * 0x1p-52, center + static_cast<int>(rng.below(6)) - 3);
          if (rng.below(2)) v = -v;
        }
        double amax = 0;
        for (double v : x) amax = std::max(amax, std::fabs(v));
        Mpfr q, sv;
        mpfr_set_d(q.x, amax, MPFR_RNDN);
        mpfr_div(q.x, q.x, maxe.x, MPFR_RNDN);
        auto S =
            oracle::round_value_all(q.x, sd, pol).at(oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after).code;
        oracle::decode(sd, S, sv.x);
        if (mpfr_zero_p(sv.x)) {  // rounded to 0: the smallest positive scale, code 1 (both have subnormals)
          S = 1;
          oracle::decode(sd, S, sv.x);
        }
        for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru}) {
          BlockOptions o;
          o.element = ef;
          o.scale_format = sf;
          o.rounding = r;
          const QuantizedBlock got = quantize_block(FormatId::f64, x.data(), x.size(), o);
          bool ok = got.scale == S;
          Flags wf = 0;
          for (std::size_t i = 0; i < x.size(); ++i) {
            Mpfr v;
            mpfr_set_d(v.x, x[i], MPFR_RNDN);
            mpfr_div(v.x, v.x, sv.x, MPFR_RNDN);
            const oracle::Outcome w =
                oracle::round_value_all(v.x, ed, pol).at(conformance::to_oracle(r), oracle::Sat::finite, oracle::Tiny::after);
            ok &= got.codes[i] == w.code;
            wf |= w.flags;
          }
          ok &= got.flags == wf;
          t.check(ok, [&] { return std::string(es) + " x " + ss + " " + std::string(name(r)) + " block " + std::to_string(blk); });
        }
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);

  // A 5 x 37 tensor quantized along either axis (partial last blocks) equals its blocks, and
  // dequantize_tensor equals dequantize_element, on 1 and 3 threads.
  std::vector<std::uint32_t> data(5 * 37);
  for (auto& v : data) v = f32_bits(std::ldexp(static_cast<float>(rng.below(2000)) - 1000.0f, static_cast<int>(rng.below(16)) - 8));
  BlockOptions o;
  o.element = FormatId::e2m1;
  o.scale_format = spec("ue4m3");
  const std::size_t shape[] = {5, 37};
  for (std::size_t axis : {0u, 1u}) {
    const MxTensor mt = quantize_tensor(FormatId::f32, data.data(), shape, axis, 16, o);
    EXPECT_TRUE(mt.scale_format == o.scale_format);
    const std::size_t lines = axis == 1 ? 5 : 37, len = axis == 1 ? 37 : 5;
    for (std::size_t l = 0; l < lines; ++l)
      for (std::size_t b0 = 0; b0 < len; b0 += 16) {
        std::vector<std::uint32_t> blk;
        std::vector<std::size_t> at;
        for (std::size_t i = b0; i < std::min(len, b0 + 16); ++i) {
          at.push_back(axis == 1 ? l * 37 + i : i * 37 + l);
          blk.push_back(data[at.back()]);
        }
        const QuantizedBlock q = quantize_block(FormatId::f32, blk.data(), blk.size(), o);
        const std::size_t si = axis == 1 ? l * 3 + b0 / 16 : (b0 / 16) * 37 + l;
        EXPECT_EQ(mt.scales[si], q.scale);
        for (std::size_t j = 0; j < at.size(); ++j) EXPECT_EQ(mt.codes[at[j]], q.codes[j]);
      }
    for (unsigned threads : {1u, 3u}) {
      std::vector<std::uint32_t> out(data.size());
      const MxTensorRef ref{mt.element, mt.shape, mt.axis, mt.block, mt.scales, mt.codes, mt.scale_format};
      (void)dequantize_tensor(ref, FormatId::f32, out.data(), Context{}, ocp_dialect(), threads);
      for (std::size_t i = 0; i < data.size(); ++i) {
        const std::size_t r = i / 37, c = i % 37;
        const std::size_t si = axis == 1 ? r * 3 + c / 16 : (r / 16) * 37 + c;
        EXPECT_EQ(out[i], dequantize_element(format(FormatId::e2m1), o.scale_format, mt.scales[si], mt.codes[i],
                                             FormatId::f32, Context{})
                              .code);
      }
    }
  }
}

}  // namespace
}  // namespace softmx
