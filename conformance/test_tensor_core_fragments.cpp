// conformance/test_tensor_core_fragments.cpp: the layouts of the mma capture program
// (tools/cuda/mma/fragment.hpp, tcgen05_layout.hpp), on the host:
//   - mma.sync m16n8k32 (8-bit containers) and m16n8k64 (packed e2m1): every tile element is
//     held by exactly one (lane, element), packing then unpacking gives the tile back, and the
//     mapping is the PTX ISA's (its formulas restated here in their own words: which half of
//     the rows, which column group);
//   - the 6- and 4-bit containers of .kind::f8f6f4 / .kind::mxf8f6f4;
//   - the block-scale registers: every row of scale_A and column of scale_B is held where any
//     selector value could read it, with the same bytes;
//   - tcgen05 M = 128, N = 8: the shared-memory core-matrix layout, the packed and padded
//     row encodings, the shared-memory and instruction descriptors, bit by bit.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>

#include "../tools/cuda/mma/fragment.hpp"
#include "../tools/cuda/mma/tcgen05_layout.hpp"
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

TEST(MmaFragmentsK64, EveryElementHeldOnceAndThePtxIsaFormulas) {
  std::array<int, kM * kK64> a{};
  std::array<int, kK64 * kN> b{};
  for (int lane = 0; lane < kLanes; ++lane) {
    const int group = lane / 4, tig = lane - 4 * group;
    for (int reg = 0; reg < 4; ++reg)
      for (int nib = 0; nib < 8; ++nib) {
        const RowCol p = a_element_k64(lane, reg * 8 + nib);
        ++a[p.row * kK64 + p.col];
        // a0/a2 rows 0..7, a1/a3 rows 8..15; a0/a1 columns 0..31, a2/a3 columns 32..63; eight
        // consecutive columns per register, from threadID_in_group * 8.
        EXPECT_EQ(p.row, group + (reg % 2 ? 8 : 0));
        EXPECT_EQ(p.col, (reg >= 2 ? 32 : 0) + tig * 8 + nib);
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int nib = 0; nib < 8; ++nib) {
        const RowCol p = b_element_k64(lane, reg * 8 + nib);
        ++b[p.col * kK64 + p.row];
        EXPECT_EQ(p.row, reg * 32 + tig * 8 + nib);
        EXPECT_EQ(p.col, group);
      }
  }
  for (int x : a) EXPECT_EQ(x, 1);
  for (int x : b) EXPECT_EQ(x, 1);
}

TEST(MmaFragmentsK64, PackUnpackRoundTripLowNibbleFirst) {
  SplitMix64 rng(11);
  std::array<std::uint8_t, kM * kK64> a{}, a2{};
  std::array<std::uint8_t, kK64 * kN> b{}, b2{};
  for (auto& x : a) x = static_cast<std::uint8_t>(rng.below(16));
  for (auto& x : b) x = static_cast<std::uint8_t>(rng.below(16));
  for (int lane = 0; lane < kLanes; ++lane) {
    std::uint32_t ra[4], rb[2];
    pack_a_k64(a.data(), lane, ra);
    pack_b_k64(b.data(), lane, rb);
    unpack_a_k64(ra, lane, a2.data());
    unpack_b_k64(rb, lane, b2.data());
    // Element i is nibble i % 8 of register i / 8, lowest first: A's first register holds row
    // g's columns 8t .. 8t + 7 in order.
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 8; ++j) EXPECT_EQ((ra[0] >> (4 * j)) & 0xF, a[g * kK64 + 8 * t + j]) << lane;
    for (int j = 0; j < 8; ++j) EXPECT_EQ((rb[1] >> (4 * j)) & 0xF, b[g * kK64 + 32 + 8 * t + j]) << lane;
  }
  EXPECT_EQ(a, a2);
  EXPECT_EQ(b, b2);
}

TEST(MmaContainers, Fp4CentralFp6LowFp8Whole) {
  for (std::uint32_t c = 0; c < 16; ++c) {
    EXPECT_EQ(container_byte(4, c), c << 2);  // bits 5..2, padding zero
    EXPECT_EQ(container_byte(4, c) & 0xC3, 0);
    EXPECT_EQ(container_code(4, container_byte(4, c)), c);
  }
  for (std::uint32_t c = 0; c < 64; ++c) {
    EXPECT_EQ(container_byte(6, c), c);  // bits 5..0
    EXPECT_EQ(container_code(6, container_byte(6, c)), c);
  }
  for (std::uint32_t c = 0; c < 256; ++c) EXPECT_EQ(container_byte(8, c), c);
  EXPECT_EQ(container_byte(4, 0x7), 0x1C);  // e2m1 6.0
  EXPECT_EQ(container_byte(4, 0xF), 0x3C);  // e2m1 -6.0
}

TEST(MmaScaleRegisters, EveryRowAndColumnWhereAnySelectorReadsIt) {
  // scale_A: rows g and g + 8 in the lane pairs {4g, 4g + 1} and {4g + 2, 4g + 3} alike (any
  // thread-id-a); scale_B: column g in all four lanes of group g (any thread-id-b).
  std::array<std::set<int>, kM> a_lanes;
  std::array<std::set<int>, kN> b_lanes;
  for (int lane = 0; lane < kLanes; ++lane) {
    a_lanes[scale_a_row(lane)].insert(lane);
    b_lanes[scale_b_col(lane)].insert(lane);
  }
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(a_lanes[g], (std::set<int>{4 * g, 4 * g + 2}));
    EXPECT_EQ(a_lanes[g + 8], (std::set<int>{4 * g + 1, 4 * g + 3}));
    EXPECT_EQ(b_lanes[g], (std::set<int>{4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3}));
  }
  const std::uint8_t s[4] = {0x11, 0x22, 0x33, 0x44};
  EXPECT_EQ(scale_register(s, 1), 0x11111111u);  // 1X: any byte-id reads s0
  EXPECT_EQ(scale_register(s, 2), 0x22112211u);  // 2X: byte-id 0 or 2 reads (s0, s1)
  EXPECT_EQ(scale_register(s, 4), 0x44332211u);  // 4X: byte j is scale j
}

}  // namespace
}  // namespace softmx::mma_frag

namespace softmx::tc05 {
namespace {

using mma_capture::DeviceForm;
using mma_capture::Elem;
using mma_capture::Engine;
using mma_capture::Kind;
using mma_capture::ScaleType;

TEST(Tcgen05Layout, CoreMatricesOf8RowsBy16Bytes) {
  std::set<int> seen;
  for (int row = 0; row < kM; ++row)
    for (int kb = 0; kb < kKBytes; ++kb) {
      const int o = smem_offset(row, kb);
      EXPECT_TRUE(seen.insert(o).second) << row << " " << kb;
      // Within a core matrix: 16 contiguous bytes per row, 8 rows contiguous (128 bytes).
      EXPECT_EQ(o % 128, (row % 8) * 16 + kb % 16);
      // The K-adjacent core matrix is LBO = 128 further, the next 8 rows SBO = 256 further.
      EXPECT_EQ(o / 128, (row / 8) * 2 + kb / 16);
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kABytes));
  EXPECT_EQ(*seen.rbegin(), kABytes - 1);
  EXPECT_EQ(smem_offset(0, 16) - smem_offset(0, 0), kLbo);
  EXPECT_EQ(smem_offset(8, 0) - smem_offset(0, 0), kSbo);
  // B (8 columns) fits in 256 bytes.
  for (int n = 0; n < kN; ++n)
    for (int kb = 0; kb < kKBytes; ++kb) EXPECT_LT(smem_offset(n, kb), kBBytes);
}

TEST(Tcgen05Layout, RowEncodingsRoundTripAndPad) {
  SplitMix64 rng(3);
  for (Packing p : {Packing::b8, Packing::b6x16_p32, Packing::b4x16_p64, Packing::b4_packed}) {
    const int n = codes_per_row(p);
    const unsigned mask = p == Packing::b8 ? 0xFF : p == Packing::b6x16_p32 ? 0x3F : 0xF;
    for (int trial = 0; trial < 200; ++trial) {
      std::uint8_t codes[64] = {}, back[64] = {}, bytes[kKBytes];
      for (int k = 0; k < n; ++k) codes[k] = static_cast<std::uint8_t>(rng.next() & mask);
      encode_row(codes, p, bytes);
      decode_row(bytes, p, back);
      for (int k = 0; k < n; ++k) ASSERT_EQ(back[k], codes[k]) << static_cast<int>(p) << " k " << k;
      // Padding: bytes 12..15 of each 16 for FP6, 8..15 for padded FP4.
      for (int g = 0; g < 2; ++g) {
        const int data = p == Packing::b6x16_p32 ? 12 : p == Packing::b4x16_p64 ? 8 : 16;
        for (int i = data; i < 16; ++i) EXPECT_EQ(bytes[g * 16 + i], 0) << "padding byte " << g * 16 + i;
      }
    }
  }
  // By hand: 16 padded e2m1 codes 0..15 pack low nibble first into 10 32 54 76 98 BA DC FE.
  std::uint8_t codes[64] = {}, bytes[kKBytes];
  for (int k = 0; k < 32; ++k) codes[k] = static_cast<std::uint8_t>(k % 16);
  encode_row(codes, Packing::b4x16_p64, bytes);
  const std::uint8_t want[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[i], want[i]);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[16 + i], want[i]);
  // FP6: codes 0x3F, 0x01, 0x00 ... make the little-endian bit string 111111 100000 ...:
  // byte 0 = 0x7F (bits 0..5 of code 0, bit 0 of code 1 at bit 6), byte 1 = 0x00.
  std::uint8_t six[64] = {0x3F, 0x01};
  encode_row(six, Packing::b6x16_p32, bytes);
  EXPECT_EQ(bytes[0], 0x7F);
  EXPECT_EQ(bytes[1], 0x00);
  six[1] = 0x3F;
  encode_row(six, Packing::b6x16_p32, bytes);
  EXPECT_EQ(bytes[0], 0xFF);
  EXPECT_EQ(bytes[1], 0x0F);
}

TEST(Tcgen05Layout, SharedMemoryDescriptorFields) {
  // PTX ISA 9.2 Table 40: start >> 4 in 0..13, LBO >> 4 in 16..29, SBO >> 4 in 32..45, 0b001 in
  // 46..48, swizzle 0 in 61..63.
  const std::uint64_t d = smem_descriptor(0x0400);
  EXPECT_EQ(d & 0x3FFF, 0x40u);
  EXPECT_EQ((d >> 16) & 0x3FFF, 128u >> 4);
  EXPECT_EQ((d >> 32) & 0x3FFF, 256u >> 4);
  EXPECT_EQ((d >> 46) & 0x7, 1u);
  EXPECT_EQ((d >> 49) & 0x7, 0u);
  EXPECT_EQ(d >> 61, 0u);
  EXPECT_EQ(d, 0x0000401000080040ull);
  EXPECT_EQ(smem_descriptor(0x2FFF0) & 0x3FFF, 0x2FFFu);  // (x & 0x3FFFF) >> 4
}

TEST(Tcgen05Layout, InstructionDescriptorsByHand) {
  // .kind::f8f6f4, e4m3 x e4m3, D f32, M = 128, N = 8: bit 4 (F32), N >> 3 = 1 at 17, M >> 4 =
  // 8 at 24.
  DeviceForm f{Engine::tcgen05, Kind::f8f6f4, Elem::e4m3, Elem::e4m3, false, ScaleType::none, 0, true};
  EXPECT_EQ(instruction_descriptor(f), 0x08020010u);
  f.f16 = true;  // D f16: bits 4-5 zero
  EXPECT_EQ(instruction_descriptor(f), 0x08020000u);
  f.f16 = false, f.a = Elem::e3m2, f.b = Elem::e2m1;  // E3M2 4 at 7, E2M1 5 at 10
  EXPECT_EQ(instruction_descriptor(f), 0x08020000u | 0x10u | (4u << 7) | (5u << 10));
  // MMA-Sim's block-scaled e5m2 x e5m2 UE8M0 descriptor: (N >> 3 << 17) | (M >> 7 << 27) |
  // (1 << 7) | (1 << 10) | (1 << 23) (mmasim/kernels/impl/tcgen05mma_sm100a.cu at 1727461).
  DeviceForm s{Engine::tcgen05, Kind::mxf8f6f4, Elem::e5m2, Elem::e5m2, false, ScaleType::ue8m0, 1, true};
  EXPECT_EQ(instruction_descriptor(s), (1u << 17) | (1u << 27) | (1u << 7) | (1u << 10) | (1u << 23));
  // .kind::mxf4 / mxf4nvf4: E2M1 is 1; UE4M3 clears bit 23.
  DeviceForm m{Engine::tcgen05, Kind::mxf4nvf4, Elem::e2m1, Elem::e2m1, false, ScaleType::ue4m3, 4, true};
  EXPECT_EQ(instruction_descriptor(m), (1u << 17) | (1u << 27) | (1u << 7) | (1u << 10));
  m.scale = ScaleType::ue8m0;
  EXPECT_EQ(instruction_descriptor(m), (1u << 17) | (1u << 27) | (1u << 7) | (1u << 10) | (1u << 23));
  // The packing of each element type in each kind.
  EXPECT_EQ(packing_of(Kind::mxf8f6f4, Elem::e4m3), Packing::b8);
  EXPECT_EQ(packing_of(Kind::f8f6f4, Elem::e2m3), Packing::b6x16_p32);
  EXPECT_EQ(packing_of(Kind::f8f6f4, Elem::e2m1), Packing::b4x16_p64);
  EXPECT_EQ(packing_of(Kind::mxf4, Elem::e2m1), Packing::b4_packed);
  EXPECT_EQ(tmem_address(0x00000040u, 32, 8), 0x00200048u);
  for (int lane = 0; lane < 128; ++lane) EXPECT_EQ(scale_b_col_of_lane(lane), lane % 8);
}

}  // namespace
}  // namespace softmx::tc05
