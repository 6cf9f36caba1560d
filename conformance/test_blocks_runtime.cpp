// conformance/test_blocks_runtime.cpp: MX blocks whose element format is a runtime descriptor
// (docs/BLOCKS.md 1.1): the seed's E1M2 blocks pinned by hand, and a family of formats against
// the MPFR oracle.
//
// The oracle side never asks softmx for a value: emax_E is read from the oracle's own decoding
// of every code (the largest finite value), amax is the exact double of the f32 inputs, the
// element is the oracle's rounding of V * 2^-s (an exact MPFR value), and a dequantized element
// is the oracle's decoding of the code times 2^(S - 127), rounded by the oracle into f32.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mpfr.h>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"
#include "support/runtime_elements.hpp"

namespace softmx {
namespace {

std::uint32_t f32_bits(float x) { return std::bit_cast<std::uint32_t>(x); }
float f32_of(std::uint32_t b) { return std::bit_cast<float>(b); }

const Format& e1m2() {
  static const Format f = parse_format_spec("e1m2");
  return f;
}

// ---- the seed's E1M2 (shared/seeds 003: exp_bits 1, mantissa_bits 2, bias 1, emax 0, max 1.75) ----
//
// E1M2 codes: bit 3 the sign, bit 2 the exponent field, bits 1-0 the fraction, bias 1. Field 0
// is subnormal: f/4 * 2^(1-1) = f/4; field 1 is normal: (1 + f/4) * 2^0. So the magnitudes of
// codes 0..7 are 0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, and code 8 + c is -(value of c).
// emax_E = floor(log2 1.75) = 0. Under ocp (floor rule, rne, saturation finite), s =
// floor(log2 amax) - 0 and the scale code is S = s + 127.

struct HandBlock {
  const char* why;
  std::vector<float> x;
  std::uint8_t scale;
  std::vector<std::uint8_t> codes;
  Flags flags;
};

std::vector<HandBlock> hand_blocks() {
  return {
      // amax 3.5 = 1.75 * 2^1: s = 1, S = 0x80, X = 2. 3.5/2 = 1.75 -> code 7; 1/2 = 0.5 -> 2;
      // -0.5/2 = -0.25 -> 0x8|1 = 9; 0.75/2 = 0.375, halfway between 0.25 (code 1, odd) and 0.5
      // (code 2, even): rne gives 2, inexact, and underflow: 0.375 lies below E1M2's smallest
      // normal 1.0 (exponent field 1), and a tiny inexact result underflows.
      {"amax 3.5", {3.5f, 1.0f, -0.5f, 0.75f}, 0x80, {0x7, 0x2, 0x9, 0x2}, flag::inexact | flag::underflow},
      // amax 1.75 (exactly max_E): s = 0, S = 0x7F, X = 1. 1.25 -> 5; -1.75 -> 0xF; 0.25 -> 1;
      // -0 keeps its sign: 0x8. Exact.
      {"amax 1.75", {1.25f, -1.75f, 0.25f, -0.0f}, 0x7F, {0x5, 0xF, 0x1, 0x8}, 0},
      // amax 7.5: floor(log2 7.5) = 2, s = 2, S = 0x81, X = 4. 7.5/4 = 1.875 lies above max 1.75
      // and rounds (rne, to 3 significant bits) to 2.0: overflow, saturated to 1.75 (code 7),
      // flags overflow and inexact. 6/4 = 1.5 -> 6; -3/4 = -0.75 -> 0xB; 0.5/4 = 0.125, halfway
      // between 0 (code 0, even) and 0.25 (code 1): rne gives +0 with underflow (tiny after
      // rounding, inexact).
      {"amax 7.5", {7.5f, 6.0f, -3.0f, 0.5f}, 0x81, {0x7, 0x6, 0xB, 0x0},
       flag::overflow | flag::inexact | flag::underflow},
      // amax 0.1875 = 1.5 * 2^-3: s = -3, S = 0x7C, X = 1/8. 0.1875*8 = 1.5 -> 6; -0.125*8 = -1
      // -> 0xC; 0.03125*8 = 0.25 -> 1; 0.0625*8 = 0.5 -> 2. Exact.
      {"amax 0.1875", {0.1875f, -0.125f, 0.03125f, 0.0625f}, 0x7C, {0x6, 0xC, 0x1, 0x2}, 0},
      // All zeros: ocp's zero_block_scale min_scale gives S = 0x00; +0 -> 0, -0 -> 8.
      {"zero block", {0.0f, -0.0f, 0.0f, 0.0f}, 0x00, {0x0, 0x8, 0x0, 0x0}, 0},
      // amax 2^-129: s = -129 clamps to -127, S = 0x00, X = 2^-127. 2^-129 * 2^127 = 0.25 -> 1;
      // 2^-130 -> 0.125, the tie between 0 and 0.25: rne gives 0 (underflow, inexact);
      // -2^-128 -> -0.5 -> 0xA.
      {"below the scale range", {std::ldexp(1.0f, -129), std::ldexp(1.0f, -130), -std::ldexp(1.0f, -128), 0.0f},
       0x00, {0x1, 0x0, 0xA, 0x0}, flag::underflow | flag::inexact},
      // A NaN anywhere: ocp's nan_block nan_scale gives S = 0xFF and every code 0 (E1M2 has no
      // NaN code; the scale carries it). A quiet NaN raises nothing.
      {"NaN in the block", {1.0f, std::nanf(""), 0.5f, 0.25f}, 0xFF, {0x0, 0x0, 0x0, 0x0}, 0},
  };
}

TEST(BlocksRuntime, SeedE1m2BlocksByHand) {
  for (const HandBlock& h : hand_blocks()) {
    std::vector<std::uint32_t> in;
    for (float v : h.x) in.push_back(f32_bits(v));
    BlockOptions o;
    o.element = e1m2();
    const QuantizedBlock q = quantize_block(FormatId::f32, in.data(), in.size(), o);
    EXPECT_EQ(q.scale, h.scale) << h.why;
    EXPECT_EQ(q.codes, h.codes) << h.why;
    EXPECT_EQ(q.flags, h.flags) << h.why;
  }
}

// Decoding: value(code) * 2^(S - 127) into f32, each worked out from the table above.
TEST(BlocksRuntime, SeedE1m2DequantizeByHand) {
  Context rne;
  struct Case {
    std::uint8_t scale, code;
    float want;
  } cases[] = {
      {0x80, 0x7, 3.5f},    // 1.75 * 2
      {0x80, 0x9, -0.5f},   // -0.25 * 2
      {0x7F, 0x5, 1.25f},   // 1.25 * 1
      {0x7C, 0x6, 0.1875f}, // 1.5 / 8
      {0x81, 0xB, -3.0f},   // -0.75 * 4
      {0x00, 0x1, std::ldexp(1.0f, -129)},  // 0.25 * 2^-127
      {0xFE, 0x7, 1.75f * std::ldexp(1.0f, 127)},  // 1.75 * 2^127: finite in f32
  };
  for (const Case& c : cases) {
    const Result r = dequantize_element(e1m2(), c.scale, c.code, FormatId::f32, rne);
    EXPECT_EQ(r.code, f32_bits(c.want)) << int(c.scale) << " " << int(c.code);
    EXPECT_EQ(r.flags, 0);
  }
  // -0 stays -0; a NaN scale gives NaN.
  EXPECT_EQ(dequantize_element(e1m2(), 0x7F, 0x8, FormatId::f32, rne).code, 0x80000000u);
  EXPECT_TRUE(std::isnan(f32_of(static_cast<std::uint32_t>(dequantize_element(e1m2(), 0xFF, 0x1, FormatId::f32, rne).code))));
}

// The seed's generator quantizes a matrix along an axis and decodes it back: a 2 x 8 tensor of
// f32 in blocks of 4 along axis 1, every block one of the hand blocks above (the NaN one
// aside), then dequantized with dequantize_tensor and compared with the hand values.
TEST(BlocksRuntime, SeedE1m2TensorRoundTrip) {
  const std::vector<float> x = {3.5f, 1.0f, -0.5f, 0.75f,    1.25f, -1.75f, 0.25f, -0.0f,
                                7.5f, 6.0f, -3.0f, 0.5f,     0.1875f, -0.125f, 0.03125f, 0.0625f};
  std::vector<std::uint32_t> in;
  for (float v : x) in.push_back(f32_bits(v));
  const std::size_t shape[2] = {2, 8};
  BlockOptions o;
  o.element = e1m2();
  const MxTensor t = quantize_tensor(FormatId::f32, in.data(), shape, 1, 4, o);
  EXPECT_EQ(t.element.id(), FormatId::runtime);
  EXPECT_EQ(t.element.name(), "e1m2");
  EXPECT_EQ(t.scales, (std::vector<std::uint8_t>{0x80, 0x7F, 0x81, 0x7C}));
  EXPECT_EQ(t.codes, (std::vector<std::uint8_t>{0x7, 0x2, 0x9, 0x2, 0x5, 0xF, 0x1, 0x8,  //
                                                 0x7, 0x6, 0xB, 0x0, 0x6, 0xC, 0x1, 0x2}));
  // Decoded: 0.75 came back as 1.0 (the tie), 7.5 as 7.0 (saturated), 0.5 as 0 (underflow).
  const std::vector<float> back = {3.5f, 1.0f, -0.5f, 1.0f,   1.25f, -1.75f, 0.25f, -0.0f,
                                   7.0f, 6.0f, -3.0f, 0.0f,   0.1875f, -0.125f, 0.03125f, 0.0625f};
  std::vector<std::uint32_t> out(16);
  dequantize_tensor(t, FormatId::f32, out.data(), Context{});
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(out[i], f32_bits(back[i])) << i;
  // The same along axis 0 of the transposed data: the same scales and codes, transposed.
  std::vector<std::uint32_t> tr(16);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < 8; ++c) tr[c * 2 + r] = in[r * 8 + c];
  const std::size_t tshape[2] = {8, 2};
  const MxTensor u = quantize_tensor(FormatId::f32, tr.data(), tshape, 0, 4, o);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < 8; ++c) EXPECT_EQ(u.codes[c * 2 + r], t.codes[r * 8 + c]);
}

// A runtime descriptor equal to a named format is that format (ElementFormat makes it
// canonical), so it keeps the named results and fast paths.
TEST(BlocksRuntime, SpecOfANamedFormatIsTheNamedFormat) {
  const ElementFormat e = parse_format_spec("e2m1:bias=1");
  EXPECT_EQ(e.id(), FormatId::e2m1);
  SplitMix64 rng(0xE2);
  std::vector<std::uint32_t> in(64);
  for (auto& v : in) v = f32_bits(std::ldexp(static_cast<float>(rng.below(1000)) - 500.0f, -static_cast<int>(rng.below(12))));
  BlockOptions a, b;
  a.element = FormatId::e2m1;
  b.element = e;
  const QuantizedBlock qa = quantize_block(FormatId::f32, in.data(), 32, a);
  const QuantizedBlock qb = quantize_block(FormatId::f32, in.data(), 32, b);
  EXPECT_EQ(qa.scale, qb.scale);
  EXPECT_EQ(qa.codes, qb.codes);
}

// emax_E and max_E of BLOCKS.md 1.1's table, from the fields by hand: emax = (largest finite
// exponent field) - bias, max = (1 + largest fraction / 2^m) * 2^emax.
TEST(BlocksRuntime, EmaxOfTheDocumentedSpecs) {
  struct Row {
    const char* spec;
    int emax;
    double max;
  } rows[] = {
      {"e1m2", 0, 1.75},          // field 1 - bias 1, fraction 3/4
      {"e2m2", 2, 7.0},           // field 3 - 1, 1.75 * 4
      {"e3m3", 4, 30.0},          // field 7 - 3, 1.875 * 16
      {"e3m4", 3, 15.5},          // ieee: field 6 (7 is Inf/NaN) - 3, 1.9375 * 8
      {"e4m3fnuz", 7, 240.0},     // field 15 - 8, 1.875 * 128
      {"e5m2fnuz", 15, 57344.0},  // field 31 - 16, 1.75 * 32768
      {"e4m3b11fnuz", 4, 30.0},   // field 15 - 11, 1.875 * 16
      {"int4", 0, 1.75},          // E1M2 fixed point, bias 1: 7/4
  };
  for (const Row& r : rows) {
    const Format f = parse_format_spec(r.spec);
    EXPECT_EQ(element_emax(f), r.emax) << r.spec;
    const Unpacked m = unpack(f, f.max_finite_magnitude());
    EXPECT_EQ(std::ldexp(static_cast<double>(m.sig), m.exp - 63), r.max) << r.spec;
  }
  // Named formats: BLOCKS.md 1's table.
  EXPECT_EQ(element_emax(FormatId::e4m3), 8);
  EXPECT_EQ(element_emax(FormatId::e5m2), 15);
  EXPECT_EQ(element_emax(FormatId::e2m1), 2);
  EXPECT_EQ(element_emax(FormatId::int8), 0);
  // Formats without normals: e0m3 (bias 0, emin 1) has only subnormals f/8 * 2^1, the largest
  // 7/4 = 1.75: emax 0; e0m3:bias=3 has 7/8 * 2^-2 = 0.21875 in [2^-3, 2^-2): emax -3.
  EXPECT_EQ(element_emax(parse_format_spec("e0m3")), 0);
  EXPECT_EQ(element_emax(parse_format_spec("e0m3:bias=3")), -3);
}

// ---- errors ----

TEST(BlocksRuntime, FormatsThatCannotBeElementsNameTheField) {
  struct Bad {
    const char* spec;
    const char* field;
  } bad[] = {{"e5m3", "width"}, {"e4m4", "width"}, {"ue4m3", "sign"}, {"e3m2:subnormals=no", "subnormals"}};
  for (const Bad& b : bad) {
    const Format f = parse_format_spec(b.spec);
    const auto why = mx_element_reason(f);
    ASSERT_TRUE(why) << b.spec;
    EXPECT_NE(why->find(std::string(b.field) + ":"), std::string::npos) << *why;
    EXPECT_NE(why->find(f.name.view()), std::string::npos) << *why;
    BlockOptions o;
    o.element = f;
    const std::uint32_t one = f32_bits(1.0f);
    try {
      quantize_block(FormatId::f32, &one, 1, o);
      ADD_FAILURE() << b.spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(b.field) + ":"), std::string::npos) << e.what();
    }
    const std::size_t shape[1] = {1};
    const std::uint8_t s = 0x7F, c = 0;
    EXPECT_THROW(dequantize_tensor(MxTensorRef{f, shape, 0, 1, {&s, 1}, {&c, 1}}, FormatId::f32, nullptr, Context{}),
                 std::invalid_argument);
  }
  EXPECT_FALSE(mx_element_reason(parse_format_spec("e1m2")));
  EXPECT_FALSE(mx_element_reason(parse_format_spec("int4")));
  EXPECT_FALSE(mx_element_reason(format(FormatId::e4m3)));
  ASSERT_TRUE(mx_element_reason(format(FormatId::f16)));
  EXPECT_NE(mx_element_reason(format(FormatId::f16))->find("is not an MX element format"), std::string::npos);
  // A runtime code above the element's width is refused by dequantize_tensor, naming the index.
  const std::size_t shape[1] = {2};
  const std::uint8_t s = 0x7F, codes[2] = {0x1, 0x9 | 0x10};
  std::uint32_t out[2];
  try {
    dequantize_tensor(MxTensorRef{e1m2(), shape, 0, 2, {&s, 1}, {codes, 2}}, FormatId::f32, out, Context{});
    ADD_FAILURE() << "code 0x19 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("index 1"), std::string::npos) << e.what();
  }
}

// ---- the MPFR oracle over a family ----

// Every signed-magnitude ExMy of 4 to 8 bits with every specials kind its width allows, and
// the intN and named runtime specs of at most 8 bits.
// The options of the rounding and saturation sweeps below (the rest of BlockOptions' defaults).
BlockOptions options(const Format& element, Rounding r, Saturation sat) {
  BlockOptions o;
  o.element = element;
  o.rounding = r;
  o.saturation = sat;
  return o;
}

std::vector<Format> family() {
  return conformance::runtime_element_family({"e1m2", "e2m2", "e3m4", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz",
                                              "float8_e4m3", "int3", "int4", "int5", "int6", "int7", "e2m1:bias=3",
                                              "e3m3:bias=-5"});
}

using Mpfr = conformance::MpfrValue<128>;

// floor(log2 of the largest finite value), by the oracle's decoding of every code.
int oracle_emax(const oracle::Desc& d) {
  Mpfr best, v;
  mpfr_set_zero(best.x, 1);
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << d.width()); ++c)
    if (oracle::decode(d, c, v.x) && mpfr_number_p(v.x) && mpfr_cmp(v.x, best.x) > 0) mpfr_set(best.x, v.x, MPFR_RNDN);
  return static_cast<int>(mpfr_get_exp(best.x)) - 1;  // mpfr: best = m * 2^exp, 0.5 <= m < 1
}

TEST(BlocksRuntime, DequantizeEveryCodeAgainstMpfr) {
  const std::vector<Format> fam = family();
  conformance::Tally t("mpfr: runtime element dequantize, " + std::to_string(fam.size()) +
                       " formats, every code x 8 scales into f32 and f64, element and Dequantizer");
  const std::uint8_t scales[] = {0x00, 0x01, 0x3A, 0x7F, 0x80, 0xC5, 0xFE, 0xFF};
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  int lanes_formats = 0;  // runtime formats whose f32 results came from the vector lanes
  for (const Format& f : fam) {
    const oracle::Desc od = conformance::to_oracle(f);
    const std::size_t n = std::size_t{1} << f.width;
    for (FormatId dst : {FormatId::f32, FormatId::f64}) {
      const oracle::Desc dd = conformance::to_oracle(format(dst));
      const Context ctx;  // rne; by_destination: no saturation into f32 and f64 (ocp)
      Dequantizer dq(f, dst, ctx), fast(f, dst, ctx);
      std::vector<std::uint8_t> sc(n), codes(n);
      for (std::uint8_t s : scales) {
        std::vector<std::uint64_t> out64(n);
        std::vector<std::uint32_t> out32(n);
        for (std::size_t c = 0; c < n; ++c) {
          sc[c] = s;
          codes[c] = static_cast<std::uint8_t>(c);
        }
        std::vector<Flags> fl(n);
        dq.run(sc.data(), codes.data(), n, n, dst == FormatId::f32 ? static_cast<void*>(out32.data()) : out64.data(),
               fl.data());
        // Without flags (the table reads and, into f32, the vector lanes where the format
        // qualifies): the same codes, twice over so that the second run reads the made rows.
        for (int pass = 0; pass < 2; ++pass) {
          std::vector<std::uint64_t> o64(n);
          std::vector<std::uint32_t> o32(n);
          fast.run(sc.data(), codes.data(), n, n > 4 ? n / 4 : 1,
                   dst == FormatId::f32 ? static_cast<void*>(o32.data()) : o64.data());
          t.check(dst == FormatId::f32 ? o32 == out32 : o64 == out64, [&] {
            return std::string(f.name) + " scale " + std::to_string(s) + ": Dequantizer::run without flags differs";
          });
        }
        lanes_formats += fast.lanes_active() && s == scales[std::size(scales) - 1];
        for (std::size_t c = 0; c < n; ++c) {
          Mpfr v;
          oracle::Outcome want;
          const bool nan = s == 0xFF || !oracle::decode(od, c, v.x);
          if (!nan) {
            mpfr_mul_2si(v.x, v.x, static_cast<long>(s) - 127, MPFR_RNDN);  // exact at 128 bits
            want = oracle::round_value_all(v.x, dd, pol).at(oracle::Mode::rne, oracle::Sat::none, oracle::Tiny::after);
          }
          const Result got = dequantize_element(f, s, static_cast<std::uint8_t>(c), dst, ctx);
          const std::uint64_t batch = dst == FormatId::f32 ? out32[c] : out64[c];
          const Format& df = format(dst);
          const std::uint64_t exp_ones = ((std::uint64_t{1} << df.exp_bits) - 1) << df.man_bits;
          const bool got_nan = (got.code & exp_ones) == exp_ones && (got.code & ((std::uint64_t{1} << df.man_bits) - 1));
          const bool ok = nan ? got_nan : got.code == want.code && got.flags == want.flags;
          t.check(ok && batch == got.code && fl[c] == got.flags, [&] {
            std::ostringstream o;
            o << std::hex << f.name << " scale " << int(s) << " code " << c << " -> " << df.name << ": softmx "
              << got.code << "/" << int(got.flags) << " batch " << batch << " oracle "
              << (nan ? std::string("NaN") : std::to_string(want.code));
            return o.str();
          });
        }
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  std::printf("[ lanes    ] %d runtime formats dequantized into f32 through the vector lanes\n", lanes_formats);
  if (default_isa() != Isa::scalar) {
    EXPECT_GT(lanes_formats, 0);
  }
}

TEST(BlocksRuntime, QuantizeRandomBlocksAgainstMpfr) {
  const std::vector<Format> fam = family();
  conformance::Tally t("mpfr: runtime element quantize, " + std::to_string(fam.size()) +
                       " formats x 6 random f32 blocks of 16 x floor/rceil x rne/rz/ru x finite/none x every "
                       "instruction set of this CPU (scalar steps and the vector lanes)");
  SplitMix64 rng(0xB10C5);
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  const std::size_t k = 16;
  for (const Format& f : fam) {
    const oracle::Desc od = conformance::to_oracle(f);
    const int emax = oracle_emax(od);
    Mpfr maxv;  // the largest finite value, for rceil
    {
      Mpfr v;
      mpfr_set_zero(maxv.x, 1);
      for (std::uint64_t c = 0; c < (std::uint64_t{1} << f.width); ++c)
        if (oracle::decode(od, c, v.x) && mpfr_number_p(v.x) && mpfr_cmp(v.x, maxv.x) > 0) mpfr_set(maxv.x, v.x, MPFR_RNDN);
    }
    for (int blk = 0; blk < 6; ++blk) {
      // Magnitudes over a few binades around a random center, some signed, some zero; one
      // block in six spans the whole f32 range (the scale clamps).
      std::vector<std::uint32_t> in(k);
      const int center = blk == 5 ? 0 : static_cast<int>(rng.below(60)) - 30;
      for (auto& v : in) {
        const float m = 1.0f + static_cast<float>(rng.below(1u << 23)) * std::ldexp(1.0f, -23);
        const int e = blk == 5 ? static_cast<int>(rng.below(250)) - 140 : center + static_cast<int>(rng.below(8)) - 4;
        float x = std::ldexp(m, e);
        if (rng.below(2)) x = -x;
        if (rng.below(16) == 0) x = 0.0f;
        v = f32_bits(x);
      }
      double amax = 0;
      for (std::uint32_t v : in) amax = std::max(amax, std::fabs(static_cast<double>(f32_of(v))));
      for (ScaleRule rule : {ScaleRule::floor, ScaleRule::rceil}) {
        int s;
        if (amax == 0) {
          s = -127;  // ocp: min_scale
        } else if (rule == ScaleRule::floor) {
          s = std::ilogb(amax) - emax;
        } else {  // smallest s with max * 2^s >= amax
          Mpfr a;
          mpfr_set_d(a.x, amax, MPFR_RNDN);
          s = static_cast<int>(mpfr_get_exp(a.x)) - static_cast<int>(mpfr_get_exp(maxv.x)) - 1;
          for (;; ++s) {
            Mpfr m;
            mpfr_mul_2si(m.x, maxv.x, s, MPFR_RNDN);
            if (mpfr_cmp(m.x, a.x) >= 0) break;
          }
        }
        s = std::clamp(s, -127, 127);
        for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru})
          for (Saturation sat : {Saturation::finite, Saturation::none})
            for (Isa isa : supported_isas()) {
              BlockOptions o = options(f, r, sat);
              o.rule = rule;
              o.isa = isa;
              const QuantizedBlock q = quantize_block(FormatId::f32, in.data(), k, o);
              std::ostringstream why;
              bool ok = static_cast<int>(q.scale) == s + 127;
              if (!ok) why << "scale " << int(q.scale) << " oracle " << s + 127;
              Flags want_flags = 0;
              for (std::size_t i = 0; i < k; ++i) {
                Mpfr x;
                mpfr_set_d(x.x, static_cast<double>(f32_of(in[i])), MPFR_RNDN);
                mpfr_mul_2si(x.x, x.x, -s, MPFR_RNDN);  // exact
                if (f32_of(in[i]) == 0.0f && std::signbit(f32_of(in[i]))) mpfr_set_zero(x.x, -1);
                const oracle::Outcome w = oracle::round_value_all(x.x, od, pol)
                                              .at(conformance::to_oracle(r), conformance::to_oracle(sat), oracle::Tiny::after);
                want_flags |= w.flags;
                if (q.codes[i] != w.code) {
                  ok = false;
                  why << " element " << i << " (" << f32_of(in[i]) << ") code " << int(q.codes[i]) << " oracle " << w.code;
                }
              }
              if (q.flags != want_flags) {
                ok = false;
                why << " flags " << int(q.flags) << " oracle " << int(want_flags);
              }
              t.check(ok, [&] {
                return std::string(f.name) + " " + std::string(name(rule)) + " " + std::string(name(r)) + " " +
                       std::string(name(sat)) + " " + std::string(name(isa)) + ": " + why.str();
              });
            }
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// The vector lanes against the scalar steps for runtime elements (the lanes read the element's
// fields from the plan, simd/lanes.hpp): every family format, f32, f16 and bf16 sources, all
// six deterministic roundings, both saturations and tininess rules, ocp and ml_dtypes; a tensor
// of 48 blocks of 32 mixing ordinary blocks, blocks with source subnormals and tiny amax (the
// elements underflow), huge amax (the scale clamps at 2^127), zero blocks, and now and then a
// NaN or Inf (the scalar steps decide those blocks). Scales, codes and flags must be equal.
TEST(BlocksRuntime, VectorLanesEqualTheScalarSteps) {
  std::vector<Isa> vec;
  for (Isa isa : supported_isas())
    if (isa != Isa::scalar) vec.push_back(isa);
  if (vec.empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  const std::vector<Format> fam = family();
  conformance::Tally t("runtime element quantize, vector lanes == scalar steps: " + std::to_string(fam.size()) +
                       " formats x f32/f16/bf16 x 6 roundings x finite/none x after/before x ocp/ml_dtypes, "
                       "tensors of 48 blocks of 32 (one case per block)");
  SplitMix64 rng(0x1A7E5);
  const std::size_t k = 32, nb = 48, n = k * nb;
  const Dialect* dialects[] = {&ocp_dialect(), find_dialect("ml_dtypes")};
  ASSERT_NE(dialects[1], nullptr);
  for (const Format& f : fam)
    for (FormatId src : {FormatId::f32, FormatId::f16, FormatId::bf16}) {
      const Format& sf = format(src);
      // The tensor: block b's kind by b % 6.
      std::vector<std::uint32_t> in32(n);
      std::vector<std::uint16_t> in16(n);
      for (std::size_t b = 0; b < nb; ++b) {
        const int kind = static_cast<int>(b % 6);
        const int center = kind == 1 ? sf.emin() - 2 : kind == 2 ? sf.bias - 1 : static_cast<int>(rng.below(20)) - 10;
        for (std::size_t i = 0; i < k; ++i) {
          std::uint64_t bits;
          if (kind == 3) {
            bits = 0;  // a zero block
          } else if (kind == 4 && i == 7 && rng.below(2)) {
            bits = rng.below(2) ? sf.all_ones_magnitude() & ~((std::uint64_t{1} << sf.man_bits) - 1)  // Inf
                                : sf.all_ones_magnitude();                                              // NaN
          } else {
            const int e = std::clamp(center + static_cast<int>(rng.below(6)) - 3, sf.emin() - sf.man_bits, static_cast<int>(sf.bias));
            Unpacked u;
            u.cls = ValueClass::finite;
            u.sig = (std::uint64_t{1} << 63) | (rng.next() >> 1);
            u.exp = e;
            Context c;
            c.rounding = Rounding::rz;
            c.saturation = Saturation::finite;
            bits = round_pack(sf, u, c, ocp_dialect()).code;
            if (rng.below(12) == 0) bits = 0;
          }
          if (rng.below(2)) bits |= std::uint64_t{1} << (sf.width - 1);
          if (src == FormatId::f32) in32[b * k + i] = static_cast<std::uint32_t>(bits);
          else in16[b * k + i] = static_cast<std::uint16_t>(bits);
        }
      }
      const void* data = src == FormatId::f32 ? static_cast<const void*>(in32.data()) : in16.data();
      const std::size_t shape[] = {nb, k};
      for (Rounding r : {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro})
        for (Saturation sat : {Saturation::finite, Saturation::none})
          for (Tininess tin : {Tininess::after_rounding, Tininess::before_rounding})
            for (const Dialect* d : dialects) {
              BlockOptions o = options(f, r, sat);
              o.tininess = tin;
              o.dialect = d;
              if (quantize_unsupported_reason(src, o)) continue;  // this dialect cannot hold f's NaN, ...
              o.isa = Isa::scalar;
              MxTensor want;
              try {
                want = quantize_tensor(src, data, shape, 1, k, o);
              } catch (const std::invalid_argument&) {
                continue;  // a NaN the dialect cannot encode: refused alike (checked elsewhere)
              }
              for (Isa isa : vec) {
                o.isa = isa;
                const MxTensor got = quantize_tensor(src, data, shape, 1, k, o);
                for (std::size_t b = 0; b < nb; ++b) {
                  t.check(conformance::same_block(got, want, b, k), [&] {
                    return std::string(f.name) + " from " + std::string(sf.name) + " " + std::string(name(r)) + " " +
                           std::string(name(sat)) + " " + std::string(d->name) + " " + std::string(name(isa)) +
                           " block " + std::to_string(b);
                  });
                }
                t.check(got.flags == want.flags, [&] {
                  return std::string(f.name) + " from " + std::string(sf.name) + " " + std::string(name(r)) +
                         " flags " + std::to_string(got.flags) + " scalar " + std::to_string(want.flags);
                });
              }
            }
    }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// ---- Dot and DotGeneral with runtime elements ----

// One random finite code of f (NaN and Inf codes drawn again).
std::uint8_t finite_code(const Format& f, SplitMix64& rng) {
  for (;;) {
    const auto c = static_cast<std::uint8_t>(rng.below(std::uint64_t{1} << f.width));
    const ValueClass k = unpack(f, c).cls;
    if (k == ValueClass::finite || k == ValueClass::zero) return c;
  }
}

// DotGeneral over n random block pairs of runtime (and mixed named/runtime) element formats
// against MPFR: the exact model is the exact sum (MPFR at 2048 bits) rounded once into f32; the
// fp32-sequential model is BLOCKS.md 5's steps with every f32 rounding done by the oracle
// (s = RN(s + a_i b_i) per element, d_j = RN(s * 2^(sa + sb)), acc = RN(acc + d_j)).
TEST(BlocksRuntime, DotGeneralAgainstMpfr) {
  conformance::Tally t("mpfr: DotGeneral of runtime element blocks, exact and fp32-sequential, rne/rz x finite/none");
  const char* pairs[][2] = {{"e1m2", "e1m2"},         {"e1m2", "e4m3fnuz"}, {"e2m2", "int4"},  {"e3m4", "e5m2fnuz"},
                            {"e4m3", "e1m2"},         {"e2m1", "e3m3"},     {"int5", "e2m2"},  {"e4m3b11fnuz", "e0m3"},
                            {"float8_e4m3", "e4m3fnuz"}};
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  const oracle::Desc f32d = conformance::to_oracle(format(FormatId::f32));
  SplitMix64 rng(0xD07);
  for (const auto& pr : pairs) {
    const ElementFormat fa = parse_format_spec(pr[0]), fb = parse_format_spec(pr[1]);
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t n = 1 + rng.below(3), k = 1 + rng.below(12);
      std::vector<std::vector<std::uint8_t>> ca(n), cb(n);
      std::vector<BlockRef> a, b;
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < k; ++i) {
          ca[j].push_back(finite_code(fa, rng));
          cb[j].push_back(finite_code(fb, rng));
        }
        // Scales near 1, and now and then far out (products near f32's range ends).
        const auto sc = [&] { return static_cast<std::uint8_t>(rng.below(8) == 0 ? rng.below(255) : 117 + rng.below(20)); };
        a.push_back(BlockRef{fa.id(), sc(), ca[j], fa.is_named() ? nullptr : &fa.format()});
        b.push_back(BlockRef{fb.id(), sc(), cb[j], fb.is_named() ? nullptr : &fb.format()});
      }
      const oracle::Desc da = conformance::to_oracle(fa.format()), db = conformance::to_oracle(fb.format());
      // The exact sum.
      Mpfr sum_(2048), x_(2048), y_(2048);
      mpfr_ptr sum = sum_.x, x = x_.x, y = y_.x;
      mpfr_set_zero(sum, 1);
      bool all_zero = true;
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < k; ++i) {
          oracle::decode(da, ca[j][i], x);
          oracle::decode(db, cb[j][i], y);
          mpfr_mul(x, x, y, MPFR_RNDN);
          all_zero &= mpfr_zero_p(x) != 0;
          mpfr_mul_2si(x, x, static_cast<long>(a[j].scale) + b[j].scale - 254, MPFR_RNDN);
          mpfr_add(sum, sum, x, MPFR_RNDN);
        }
      for (Rounding r : {Rounding::rne, Rounding::rz})
        for (Saturation sat : {Saturation::finite, Saturation::none}) {
          Context c;
          c.rounding = r;
          c.saturation = sat;
          const oracle::Mode om = conformance::to_oracle(r);
          const oracle::Sat os = conformance::to_oracle(sat);
          // exact (a zero sum's sign is the products' rule, BLOCKS.md 5: not checked here)
          if (!mpfr_zero_p(sum)) {
            const oracle::Outcome w = oracle::round_value_all(sum, f32d, pol).at(om, os, oracle::Tiny::after);
            const Result got = dot_general(a, b, c, exact_accumulation());
            t.check(got.code == w.code && got.flags == w.flags, [&] {
              std::ostringstream o;
              o << std::hex << "exact " << pr[0] << " x " << pr[1] << " " << name(r) << " " << name(sat) << ": softmx "
                << got.code << "/" << int(got.flags) << " oracle " << w.code << "/" << int(w.flags);
              return o.str();
            });
          }
          // fp32-sequential, step by step through the oracle.
          Mpfr acc_(2048), s_(2048), d_(2048);
          mpfr_ptr acc = acc_.x, s = s_.x, d = d_.x;
          mpfr_set_zero(acc, 1);
          Flags flags = 0;
          auto round_f32 = [&](mpfr_ptr v) {  // v = RN_f32(v) under (r, sat), flags ORed
            const oracle::Outcome o = oracle::round_value_all(v, f32d, pol).at(om, os, oracle::Tiny::after);
            flags |= o.flags;
            oracle::decode(f32d, o.code, v);
          };
          for (std::size_t j = 0; j < n; ++j) {
            mpfr_set_zero(s, 1);
            for (std::size_t i = 0; i < k; ++i) {
              oracle::decode(da, ca[j][i], x);
              oracle::decode(db, cb[j][i], y);
              mpfr_mul(x, x, y, MPFR_RNDN);
              mpfr_add(s, s, x, r == Rounding::rd ? MPFR_RNDD : MPFR_RNDN);  // exact; the zero sign as IEEE's
              round_f32(s);
            }
            mpfr_mul_2si(d, s, static_cast<long>(a[j].scale) + b[j].scale - 254, MPFR_RNDN);
            round_f32(d);
            mpfr_add(acc, acc, d, MPFR_RNDN);
            round_f32(acc);
          }
          const oracle::Outcome w = oracle::round_value_all(acc, f32d, pol).at(om, os, oracle::Tiny::after);
          const Result got = dot_general(a, b, c, fp32_sequential_accumulation());
          t.check(mpfr_inf_p(acc) || (got.code == w.code && got.flags == (flags | w.flags)), [&] {
            std::ostringstream o;
            o << std::hex << "fp32-sequential " << pr[0] << " x " << pr[1] << " " << name(r) << " " << name(sat)
              << ": softmx " << got.code << "/" << int(got.flags) << " oracle " << w.code << "/" << int(flags | w.flags);
            return o.str();
          });
        }
      (void)all_zero;
    }
  }
  t.report();
}

TEST(BlocksRuntime, DotRefusesWhatItCannotSum) {
  const Format e1m2f = parse_format_spec("e1m2");
  const std::uint8_t c[1] = {1};
  const BlockRef good{FormatId::runtime, 127, c, &e1m2f};
  // No descriptor.
  EXPECT_THROW(dot(BlockRef{FormatId::runtime, 127, c}, good, Context{}), std::invalid_argument);
  // A tensor-core model is the named formats' hardware.
  EXPECT_THROW(dot(good, good, Context{}, *find_accumulation_model("hopper-fp8-mma")), std::invalid_argument);
  // A bias that puts products below the accumulator's range names the field.
  // (e4m3:bias=700: products down to 2^-1658, beyond even the wider accumulator's 2^-1280.)
  const Format far = parse_format_spec("e4m3:bias=700");
  const BlockRef bad{FormatId::runtime, 127, c, &far};
  try {
    dot(bad, bad, Context{});
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bias"), std::string::npos) << e.what();
  }
  // Unsigned: mx_element_reason's field.
  const Format u = parse_format_spec("ue4m3");
  EXPECT_THROW(dot(BlockRef{FormatId::runtime, 127, c, &u}, good, Context{}), std::invalid_argument);
  // e1m2 0.25 * 0.25 = 0.0625 at scales 1.
  EXPECT_EQ(dot(good, good, Context{}).code, 0x3D800000u);
}

}  // namespace
}  // namespace softmx
