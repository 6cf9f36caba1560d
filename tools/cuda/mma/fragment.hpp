// tools/cuda/mma/fragment.hpp: the register layout of mma.sync.aligned.m16n8k32.row.col with
// 8-bit A/B elements (.e4m3/.e5m2, as .s8/.u8) and f32 or f16 C/D, as the PTX ISA specifies it
// ("Matrix Fragments for mma.m16n8k32", PTX ISA 8.4+). Usable from host code (the conformance
// suite tests it) and device code (the capture program packs with it).
//
// With groupID = laneid >> 2 and t = laneid % 4 (threadID_in_group):
//   A (16 x 32, row-major), 4 .b32 registers a0..a3 per lane, 16 elements a_i, element i in
//   byte i % 4 of register i / 4 (lowest byte first):
//     row = groupID for i % 8 < 4, groupID + 8 otherwise
//     col = t * 4 + (i & 3) for i < 8, t * 4 + (i & 3) + 16 otherwise
//   B (32 x 8, column-major), 2 .b32 registers b0, b1, 8 elements b_i:
//     row (k) = t * 4 + (i & 3) for i < 4, t * 4 + (i & 3) + 16 otherwise;  col (n) = groupID
//   C/D (16 x 8), 4 elements c_i (f32: one register each; f16: two .f16x2 registers, c0 and
//   c2 in the low halves):
//     row = groupID for i < 2, groupID + 8 otherwise;  col = t * 2 + (i & 1)
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SOFTMX_HD __host__ __device__
#else
#define SOFTMX_HD
#endif

namespace softmx::mma_frag {

inline constexpr int kM = 16, kN = 8, kK = 32, kLanes = 32;

struct RowCol {
  int row, col;
};

/// A element i (0..15) of lane (0..31): its (row, k) in the 16 x 32 tile.
SOFTMX_HD constexpr RowCol a_element(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  return {(i % 8) < 4 ? g : g + 8, t * 4 + (i & 3) + (i < 8 ? 0 : 16)};
}
/// B element i (0..7) of lane: its (k, n) in the 32 x 8 tile.
SOFTMX_HD constexpr RowCol b_element(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  return {t * 4 + (i & 3) + (i < 4 ? 0 : 16), g};
}
/// C/D element i (0..3) of lane: its (m, n) in the 16 x 8 tile.
SOFTMX_HD constexpr RowCol c_element(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}

/// Packs lane's A registers from a row-major 16 x 32 byte tile.
SOFTMX_HD inline void pack_a(const std::uint8_t* a, int lane, std::uint32_t r[4]) {
  for (int j = 0; j < 4; ++j) r[j] = 0;
  for (int i = 0; i < 16; ++i) {
    const RowCol p = a_element(lane, i);
    r[i / 4] |= std::uint32_t{a[p.row * kK + p.col]} << (8 * (i % 4));
  }
}
/// Packs lane's B registers from a column-major 32 x 8 tile (b[n * 32 + k]).
SOFTMX_HD inline void pack_b(const std::uint8_t* b, int lane, std::uint32_t r[2]) {
  r[0] = r[1] = 0;
  for (int i = 0; i < 8; ++i) {
    const RowCol p = b_element(lane, i);
    r[i / 4] |= std::uint32_t{b[p.col * kK + p.row]} << (8 * (i % 4));
  }
}
/// C/D as raw bits, row-major 16 x 8 (f32 codes, or f16 codes in the low 16 bits): lane's four
/// elements c0..c3.
SOFTMX_HD inline void gather_c(const std::uint32_t* c, int lane, std::uint32_t r[4]) {
  for (int i = 0; i < 4; ++i) {
    const RowCol p = c_element(lane, i);
    r[i] = c[p.row * kN + p.col];
  }
}
SOFTMX_HD inline void scatter_d(std::uint32_t* d, int lane, const std::uint32_t r[4]) {
  for (int i = 0; i < 4; ++i) {
    const RowCol p = c_element(lane, i);
    d[p.row * kN + p.col] = r[i];
  }
}
/// f16 C/D: elements (c0, c1) in register 0 and (c2, c3) in register 1, low half first.
SOFTMX_HD constexpr std::uint32_t pack_f16x2(std::uint32_t lo, std::uint32_t hi) { return (lo & 0xFFFF) | (hi << 16); }
SOFTMX_HD constexpr std::uint32_t f16x2_lo(std::uint32_t r) { return r & 0xFFFF; }
SOFTMX_HD constexpr std::uint32_t f16x2_hi(std::uint32_t r) { return r >> 16; }

/// Unpacks A registers back into a tile (the inverse of pack_a).
SOFTMX_HD inline void unpack_a(const std::uint32_t r[4], int lane, std::uint8_t* a) {
  for (int i = 0; i < 16; ++i) {
    const RowCol p = a_element(lane, i);
    a[p.row * kK + p.col] = static_cast<std::uint8_t>(r[i / 4] >> (8 * (i % 4)));
  }
}
SOFTMX_HD inline void unpack_b(const std::uint32_t r[2], int lane, std::uint8_t* b) {
  for (int i = 0; i < 8; ++i) {
    const RowCol p = b_element(lane, i);
    b[p.col * kK + p.row] = static_cast<std::uint8_t>(r[i / 4] >> (8 * (i % 4)));
  }
}

}  // namespace softmx::mma_frag
