// conformance/test_pack.cpp: the packed layouts of docs/BLOCKS.md section 4, bit by bit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

TEST(Pack, Fp4EveryPairOfCodes) {
  conformance::Tally t("pack FP4: every pair of codes, element 2i in the low nibble");
  for (std::uint8_t lo = 0; lo < 16; ++lo)
    for (std::uint8_t hi = 0; hi < 16; ++hi) {
      const std::vector<std::uint8_t> codes{lo, hi};
      const auto p = pack(FormatId::e2m1, codes);
      t.check(p.size() == 1 && p[0] == (hi << 4 | lo) && unpack_codes(FormatId::e2m1, p, 2) == codes,
              [&] { return "pair " + std::to_string(lo) + "," + std::to_string(hi); });
    }
  t.report();
  // An odd count leaves the last high nibble 0.
  EXPECT_EQ(pack(FormatId::e2m1, std::vector<std::uint8_t>{0x7, 0x8, 0xF}), (std::vector<std::uint8_t>{0x87, 0x0F}));
}

TEST(Pack, Fp6FourCodesInThreeBytesLsbFirst) {
  conformance::Tally t("pack FP6: every pair of codes in every slot of a group of four, and random groups");
  auto check_group = [&](std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    const std::vector<std::uint8_t> codes{a, b, c, d};
    const std::uint32_t want = a | b << 6 | c << 12 | static_cast<std::uint32_t>(d) << 18;
    for (FormatId f : {FormatId::e3m2, FormatId::e2m3}) {
      const auto p = pack(f, codes);
      const std::uint32_t got = p.size() == 3 ? p[0] | p[1] << 8 | static_cast<std::uint32_t>(p[2]) << 16 : 0xFFFFFFFF;
      t.check(got == want && unpack_codes(f, p, 4) == codes, [&] {
        return "group " + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "," + std::to_string(d);
      });
    }
  };
  for (std::uint8_t x = 0; x < 64; ++x)
    for (std::uint8_t y = 0; y < 64; ++y) {
      check_group(x, y, 0, 0);
      check_group(0, x, y, 0);
      check_group(0, 0, x, y);
      check_group(y, 0, 0, x);
    }
  SplitMix64 rng(0xF6);
  for (int i = 0; i < 10000; ++i)
    check_group(rng.below(64) & 0xFF, rng.below(64) & 0xFF, rng.below(64) & 0xFF, rng.below(64) & 0xFF);
  t.report();
}

TEST(Pack, RoundTripsEveryLength) {
  SplitMix64 rng(0x9ACC);
  for (FormatId f : {FormatId::e2m1, FormatId::e3m2, FormatId::e2m3, FormatId::e4m3, FormatId::int8, FormatId::e8m0})
    for (std::size_t n = 0; n <= 40; ++n) {
      std::vector<std::uint8_t> codes(n);
      for (auto& c : codes) c = static_cast<std::uint8_t>(rng.next() & format(f).code_mask());
      const auto p = pack(f, codes);
      EXPECT_EQ(p.size(), packed_size(f, n));
      EXPECT_EQ(unpack_codes(f, p, n), codes) << format(f).name << " n=" << n;
    }
  EXPECT_EQ(packed_size(FormatId::e2m1, 33), 17u);
  EXPECT_EQ(packed_size(FormatId::e3m2, 32), 24u);
  EXPECT_EQ(packed_size(FormatId::e3m2, 5), 4u);
}

TEST(Pack, BadInputIsRefused) {
  EXPECT_THROW(pack(FormatId::e2m1, std::vector<std::uint8_t>{0x10}), std::invalid_argument);
  EXPECT_THROW(pack(FormatId::e3m2, std::vector<std::uint8_t>{0x40}), std::invalid_argument);
  EXPECT_THROW(pack(FormatId::f16, std::vector<std::uint8_t>{0}), std::invalid_argument);
  EXPECT_THROW(unpack_codes(FormatId::e2m1, std::vector<std::uint8_t>{0, 0}, 5), std::invalid_argument);
}

// ---- widths that do not divide 8 (runtime formats): one LSB-first bit stream ----

// The bit order written out by hand. e1m1 (3 bits: sign, one exponent bit, one fraction bit),
// codes 1 2 3 4 5 6 7 0: code i sits at stream bits 3i..3i+2, so byte 0 = code2's low two bits
// 11, code1 010, code0 001 = 11010001 = 0xD1; byte 1 = code5's low bit 0, code4 101, code3 100,
// code2's high bit 0 = 01011000 = 0x58; byte 2 = code7 000, code6 111, code5's high bits 11 =
// 00011111 = 0x1F.
TEST(Pack, ThreeBitsByHand) {
  const Format f = parse_format_spec("e1m1");
  ASSERT_EQ(f.width, 3);
  const std::vector<std::uint8_t> codes{1, 2, 3, 4, 5, 6, 7, 0};
  const std::vector<std::uint8_t> bytes{0xD1, 0x58, 0x1F};
  EXPECT_EQ(pack(f, codes), bytes);
  EXPECT_EQ(unpack_codes(f, bytes, 8), codes);
  // Three codes take ceil(9/8) = 2 bytes: 001 | 010 << 3 | 011 << 6 = 0xD1, then bit 8 = 0.
  EXPECT_EQ(pack(f, std::vector<std::uint8_t>{1, 2, 3}), (std::vector<std::uint8_t>{0xD1, 0x00}));
  EXPECT_EQ(pack(f, std::vector<std::uint8_t>{7, 7, 7}), (std::vector<std::uint8_t>{0xFF, 0x01}));
}

// The seed's E1M2 is 4 bits (sign, one exponent bit, two fraction bits): it packs as FP4 does,
// element 2i in the low nibble (the seed's _pack_fp4_nibbles: low | high << 4). Codes 0x7 0x9
// 0xF -> 0x97, then 0x0F (an odd count leaves the high nibble 0).
TEST(Pack, E1m2AsNibbles) {
  const Format f = parse_format_spec("e1m2");
  ASSERT_EQ(f.width, 4);
  EXPECT_EQ(pack(f, std::vector<std::uint8_t>{0x7, 0x9, 0xF}), (std::vector<std::uint8_t>{0x97, 0x0F}));
  EXPECT_EQ(unpack_codes(f, std::vector<std::uint8_t>{0x97, 0x0F}, 3), (std::vector<std::uint8_t>{0x7, 0x9, 0xF}));
}

// e2m2 (5 bits), codes 0x1F 0x01 0x10 0x0A: stream = 0x1F | 0x01 << 5 | 0x10 << 10 | 0x0A << 15
// = 0x5403F: byte 0 = code1's low bits 001, code0 11111 = 0x3F; byte 1 = code3's bit 0 (0),
// code2 10000, code1's high bits 00 = 01000000 = 0x40; byte 2 = code3's bits 1-4 0101 and four
// zero pad bits = 0x05.
TEST(Pack, FiveBitsByHand) {
  const Format f = parse_format_spec("e2m2");
  ASSERT_EQ(f.width, 5);
  const std::vector<std::uint8_t> codes{0x1F, 0x01, 0x10, 0x0A};
  const std::vector<std::uint8_t> bytes{0x3F, 0x40, 0x05};
  EXPECT_EQ(pack(f, codes), bytes);
  EXPECT_EQ(unpack_codes(f, bytes, 4), codes);
  EXPECT_EQ(packed_size(f, 8), 5u);
  EXPECT_EQ(packed_size(f, 9), 6u);
}

// Every width 1..8 (runtime formats beside the named ones): every pair of
// codes at every offset of the stream (n = 1..9 elements, the others zero) packs to the bits
// the stream definition gives (computed here with a 128-bit integer) and unpacks back.
TEST(Pack, EveryWidthRoundTripsExhaustively) {
  conformance::Tally t("pack: widths 1-8, every code pair in every slot of 1..9 elements, LSB-first stream");
  const char* specs[] = {"ue1m0", "e1m0", "e1m1", "e1m2", "e2m2", "e3m2", "e3m3", "e4m3"};  // widths 1..8
  for (const char* spec : specs) {
    const Format f = parse_format_spec(spec);
    const unsigned w = f.width;
    const unsigned top = 1u << w;
    for (std::size_t n = 1; n <= 9; ++n)  // 9: every residue of the offset w*i mod 8
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = (i + 1) % n;
        for (unsigned a = 0; a < top; ++a)
          for (unsigned b = 0; b < top; b += (w >= 6 ? 3 : 1)) {
            std::vector<std::uint8_t> codes(n, 0);
            codes[i] = static_cast<std::uint8_t>(a);
            codes[j] = static_cast<std::uint8_t>(j == i ? a : b);
            __extension__ unsigned __int128 stream = 0;
            for (std::size_t q = 0; q < n; ++q) stream |= static_cast<unsigned __int128>(codes[q]) << (w * q);
            std::vector<std::uint8_t> want((w * n + 7) / 8);
            for (std::size_t q = 0; q < want.size(); ++q) want[q] = static_cast<std::uint8_t>(stream >> (8 * q));
            const auto p = pack(f, codes);
            t.check(p == want && packed_size(f, n) == want.size() && unpack_codes(f, p, n) == codes, [&] {
              return std::string(f.name) + " n=" + std::to_string(n) + " slot " + std::to_string(i) + " codes " +
                     std::to_string(a) + "," + std::to_string(b);
            });
          }
      }
  }
  t.report();
  EXPECT_THROW(pack(parse_format_spec("e1m1"), std::vector<std::uint8_t>{0x8}), std::invalid_argument);
  EXPECT_THROW(pack(parse_format_spec("e5m3"), std::vector<std::uint8_t>{0}), std::invalid_argument);
  EXPECT_THROW(unpack_codes(parse_format_spec("e2m2"), std::vector<std::uint8_t>{0, 0}, 4), std::invalid_argument);
}

// quantize_tensor_packed_into against quantize_tensor_into then pack_into: the same packed
// bytes, scales and flags, for widths 4 to 8, 1-d rows of every kind of length (short of a
// block, across the 128-block chunks, a partial last block), 2-d tensors along the last axis
// whose rows start on a byte and whose rows do not (the whole-tensor fallback), along axis 0,
// block sizes 32, 16, 7 and 1000, 1 and 3 threads, and rs (the fallback), with random f32 data
// holding zeros, subnormals, NaN and Inf now and then.
TEST(Pack, QuantizedPackedEqualsQuantizeThenPack) {
  conformance::Tally t("quantize_tensor_packed_into == quantize_tensor_into + pack_into: bytes, scales, flags");
  SplitMix64 rng(0x9AC4);
  struct Shape {
    std::vector<std::size_t> dims;
    std::size_t axis;
  };
  const Shape shapes[] = {{{1}, 0},        {{31}, 0},       {{32}, 0},       {{33}, 0},   {{4096}, 0},
                          {{4096 + 40}, 0}, {{20000 + 7}, 0}, {{3, 64}, 1},    {{5, 33}, 1}, {{7, 4112}, 1},
                          {{6, 40}, 0},     {{2, 3, 96}, 2}, {{9, 1001}, 1}};
  for (const char* spec : {"e2m1", "e2m2", "e2m3", "e3m3", "e4m3", "int4"}) {
    const Format el = parse_format_spec(spec);
    for (const Shape& sh : shapes)
      for (std::size_t k : {32, 16, 7, 1000})
        for (unsigned threads : {1u, 3u})
          for (bool rs : {false, true}) {
            if (rs && (threads > 1 || k != 32)) continue;
            std::size_t n = 1;
            for (std::size_t d : sh.dims) n *= d;
            std::vector<std::uint32_t> v(n);
            for (auto& x : v) {
              const std::uint64_t z = rng.next();
              x = static_cast<std::uint32_t>(z >> 59 & 1) << 31 | static_cast<std::uint32_t>(110 + (z >> 54 & 31)) << 23 |
                  (static_cast<std::uint32_t>(z) & 0x7FFFFF);
              switch (z >> 40 & 255) {
                case 0: x &= 0x80000000u; break;
                case 1: x &= 0x807FFFFFu; break;
                case 2: x = 0x7FC00000u; break;
                case 3: x = 0xFF800000u; break;
                default: break;
              }
            }
            std::vector<std::uint64_t> rbits(rs ? n : 0);
            for (auto& r : rbits) r = rng.next();
            BlockOptions o;
            o.element = el;
            if (rs) {
              o.rounding = Rounding::rs;
              o.rbits = rbits;
            }
            std::size_t ns = 1;
            for (std::size_t d : scale_shape(sh.dims, sh.axis, k)) ns *= d;
            std::vector<std::uint8_t> codes(n), scales(ns, 0xAA), want(packed_size(el, n));
            const Flags wf = quantize_tensor_into(FormatId::f32, v.data(), sh.dims, sh.axis, k, o, scales, codes, 1);
            pack_into(el, codes, want);
            std::vector<std::uint8_t> got(want.size(), 0xAA), got_scales(ns, 0x55);
            const Flags gf =
                quantize_tensor_packed_into(FormatId::f32, v.data(), sh.dims, sh.axis, k, o, got_scales, got, threads);
            std::size_t bad = got != want;
            bad += got_scales != scales;
            bad += gf != wf;
            t.pass(3 - bad);
            if (bad)
              t.fail(std::string(spec) + " n " + std::to_string(n) + " axis " + std::to_string(sh.axis) + " k " +
                         std::to_string(k) + " threads " + std::to_string(threads) + (rs ? " rs" : ""),
                     bad);
          }
  }
  t.report();
  // The packed array's size is checked.
  const std::uint32_t one = 0x3F800000u;
  const std::size_t shape[1] = {1};
  std::vector<std::uint8_t> sc(1), wrong(2);
  BlockOptions o;
  o.element = FormatId::e2m1;
  EXPECT_THROW(quantize_tensor_packed_into(FormatId::f32, &one, shape, 0, 32, o, sc, wrong), std::invalid_argument);
}

}  // namespace
}  // namespace softmx
