// conformance/test_tensor_core_fragments.cpp: the m16n8k32 fragment layout of the mma capture
// program (tools/cuda/mma/fragment.hpp), on the host: every tile element is held by exactly one
// (lane, element), packing then unpacking gives the tile back, and the mapping is the PTX ISA's
// (its formulas restated here in their own words: which half of the rows, which 4-byte column
// group).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "../tools/cuda/mma/fragment.hpp"
#include "softmx/prng.hpp"

namespace softmx::mma_frag {
namespace {

TEST(MmaFragments, EveryElementHeldOnce) {
  std::array<int, kM * kK> a{};
  std::array<int, kK * kN> b{};
  std::array<int, kM * kN> c{};
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int i = 0; i < 16; ++i) ++a[a_element(lane, i).row * kK + a_element(lane, i).col];
    for (int i = 0; i < 8; ++i) ++b[b_element(lane, i).col * kK + b_element(lane, i).row];
    for (int i = 0; i < 4; ++i) ++c[c_element(lane, i).row * kN + c_element(lane, i).col];
  }
  for (int x : a) EXPECT_EQ(x, 1);
  for (int x : b) EXPECT_EQ(x, 1);
  for (int x : c) EXPECT_EQ(x, 1);
}

TEST(MmaFragments, MatchesThePtxIsaFormulas) {
  for (int lane = 0; lane < kLanes; ++lane) {
    const int group = lane / 4, tig = lane - 4 * group;
    for (int reg = 0; reg < 4; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        const int i = reg * 4 + byte;
        // a0/a2 hold rows 0..7, a1/a3 rows 8..15; a0/a1 columns 0..15, a2/a3 columns 16..31.
        EXPECT_EQ(a_element(lane, i).row, group + (reg % 2 ? 8 : 0));
        EXPECT_EQ(a_element(lane, i).col, (reg >= 2 ? 16 : 0) + tig * 4 + byte);
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        EXPECT_EQ(b_element(lane, reg * 4 + byte).row, reg * 16 + tig * 4 + byte);
        EXPECT_EQ(b_element(lane, reg * 4 + byte).col, group);
      }
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(c_element(lane, i).row, group + (i >= 2 ? 8 : 0));
      EXPECT_EQ(c_element(lane, i).col, tig * 2 + i % 2);
    }
  }
}

TEST(MmaFragments, PackUnpackRoundTrip) {
  SplitMix64 rng(5);
  std::array<std::uint8_t, kM * kK> a{}, a2{};
  std::array<std::uint8_t, kK * kN> b{}, b2{};
  std::array<std::uint32_t, kM * kN> c{}, d{};
  for (auto& x : a) x = static_cast<std::uint8_t>(rng.next());
  for (auto& x : b) x = static_cast<std::uint8_t>(rng.next());
  for (auto& x : c) x = static_cast<std::uint32_t>(rng.next());
  for (int lane = 0; lane < kLanes; ++lane) {
    std::uint32_t ra[4], rb[2], rc[4];
    pack_a(a.data(), lane, ra);
    pack_b(b.data(), lane, rb);
    gather_c(c.data(), lane, rc);
    unpack_a(ra, lane, a2.data());
    unpack_b(rb, lane, b2.data());
    scatter_d(d.data(), lane, rc);
    // Element i sits in byte i % 4 of register i / 4, lowest byte first.
    EXPECT_EQ(ra[0] & 0xFF, a[a_element(lane, 0).row * kK + a_element(lane, 0).col]);
    EXPECT_EQ(ra[3] >> 24, a[a_element(lane, 15).row * kK + a_element(lane, 15).col]);
  }
  EXPECT_EQ(a, a2);
  EXPECT_EQ(b, b2);
  EXPECT_EQ(c, d);
  EXPECT_EQ(pack_f16x2(0x3C00, 0xBC00), 0xBC003C00u);
  EXPECT_EQ(f16x2_lo(0xBC003C00u), 0x3C00u);
  EXPECT_EQ(f16x2_hi(0xBC003C00u), 0xBC00u);
}

}  // namespace
}  // namespace softmx::mma_frag
