// conformance/test_pack.cpp: the packed layouts of docs/BLOCKS.md section 4, bit by bit.
#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace softmx
