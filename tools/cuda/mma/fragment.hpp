// tools/cuda/mma/fragment.hpp: the register layouts of the warp-level mma.sync forms the capture
// program runs, as the PTX ISA specifies them (section names and numbers of PTX ISA 9.2, "9.7.14
// Warp Level Matrix Multiply-Accumulate Instructions"). Usable from host code (the conformance
// suite tests every mapping: conformance/test_tensor_core_fragments.cpp) and device code (the
// capture kernels pack with it). Plain C++: no CUDA or softmx header.
//
// With groupID g = laneid >> 2 and t = laneid % 4 (threadID_in_group):
//
// m16n8k32, 8-bit containers ("Matrix Fragments for mma.m16n8k32", the .e4m3/.e5m2 and
// .kind::f8f6f4 / .kind::mxf8f6f4 layouts; the same as .s8/.u8):
//   A (16 x 32, row-major), 4 .b32 registers a0..a3 per lane, 16 elements a_i, element i in
//   byte i % 4 of register i / 4 (lowest byte first):
//     row = g for i % 8 < 4, g + 8 otherwise;  col = t * 4 + (i & 3) (+ 16 for i >= 8)
//   B (32 x 8, column-major), 2 .b32 registers b0, b1, 8 elements b_i:
//     row (k) = t * 4 + (i & 3) (+ 16 for i >= 4);  col (n) = g
//   C/D (16 x 8), 4 elements c_i (f32: one register each; f16: two .f16x2 registers, c0 and
//   c2 in the low halves):  row = g for i < 2, g + 8 otherwise;  col = t * 2 + (i & 1)
//   With .kind::f8f6f4 and .kind::mxf8f6f4 the 6- and 4-bit elements sit in 8-bit containers
//   (the Description of the `mma` instruction): .e3m2/.e2m3 in bits 5..0, .e2m1 in the central
//   bits 5..2; the padding bits are zero (container_byte below).
//
// m16n8k64, packed .e2m1 (.kind::mxf4 and .kind::mxf4nvf4; "Matrix Fragments for
// mma.m16n8k64", the layout of .s4/.u4 with K = 64): 8 elements per register, element i in
// bits 4 (i % 8) .. 4 (i % 8) + 3 of register i / 8 (lowest nibble first):
//   A (16 x 64), a0..a3, 32 elements:  row = g for (i / 8) even, g + 8 for (i / 8) odd;
//                                      col = t * 8 + (i % 8) (+ 32 for i >= 16)
//   B (64 x 8), b0, b1, 16 elements:   row (k) = t * 8 + (i % 8) (+ 32 for i >= 8);  col = g
//   C/D as for m16n8k32.
//
// Block scales ("9.7.14.3 Block Scaling for mma.sync"): scale_A is M x n and scale_B is n x N
// for .scale_vec::nX (n = 1, 2, 4); each lane passes one .b32 register per matrix, and the
// selectors {byte-id, thread-id} say which lanes and bytes the instruction reads. The capture
// passes byte-id = thread-id = 0 and fills *every* lane and byte that any selector value could
// name with the same data, so that the result cannot depend on how the selectors are read:
//   scale_A register of lane: the scales of row (lane % 2) * 8 + g;  scale_B: of column g;
//   byte j of the register: scale j % n (1X: the scale in all four bytes; 2X: s0 s1 s0 s1;
//   4X: s0 s1 s2 s3).
// The same placement is what MMA-Sim's sm_120a capture kernels load (microsoft/MMA-Sim
// 1727461, mmasim/kernels/impl/mma.h, LOAD_SFA_M16SFK{1,2,4} and LOAD_SFB_N8SFK{1,2,4}).
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

// ---------------------------------------------------------------------------------------------
// 6- and 4-bit elements in 8-bit containers (.kind::f8f6f4, .kind::mxf8f6f4).

/// The container byte of an element code of `bits` (8, 6 or 4) bits: e2m1 in bits 5..2, FP6 in
/// bits 5..0, FP8 as it is. Precondition: code < 2^bits.
SOFTMX_HD constexpr std::uint8_t container_byte(int bits, std::uint32_t code) {
  return static_cast<std::uint8_t>(bits == 4 ? (code & 0xF) << 2 : bits == 6 ? code & 0x3F : code & 0xFF);
}
/// The element code in a container byte (the inverse of container_byte; padding ignored).
SOFTMX_HD constexpr std::uint32_t container_code(int bits, std::uint8_t byte) {
  return bits == 4 ? (byte >> 2) & 0xF : bits == 6 ? byte & 0x3F : byte;
}

// ---------------------------------------------------------------------------------------------
// m16n8k64 with packed e2m1 (.kind::mxf4, .kind::mxf4nvf4).

inline constexpr int kK64 = 64;

/// A element i (0..31) of lane: its (row, k) in the 16 x 64 tile.
SOFTMX_HD constexpr RowCol a_element_k64(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  return {(i / 8) % 2 ? g + 8 : g, t * 8 + (i % 8) + (i < 16 ? 0 : 32)};
}
/// B element i (0..15) of lane: its (k, n) in the 64 x 8 tile.
SOFTMX_HD constexpr RowCol b_element_k64(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  return {t * 8 + (i % 8) + (i < 8 ? 0 : 32), g};
}
/// Packs lane's A registers from a row-major 16 x 64 tile of e2m1 codes (one code per byte,
/// a[row * 64 + k]).
SOFTMX_HD inline void pack_a_k64(const std::uint8_t* a, int lane, std::uint32_t r[4]) {
  for (int j = 0; j < 4; ++j) r[j] = 0;
  for (int i = 0; i < 32; ++i) {
    const RowCol p = a_element_k64(lane, i);
    r[i / 8] |= std::uint32_t{a[p.row * kK64 + p.col] & 0xFu} << (4 * (i % 8));
  }
}
/// Packs lane's B registers from a column-major 64 x 8 tile of e2m1 codes (b[n * 64 + k]).
SOFTMX_HD inline void pack_b_k64(const std::uint8_t* b, int lane, std::uint32_t r[2]) {
  r[0] = r[1] = 0;
  for (int i = 0; i < 16; ++i) {
    const RowCol p = b_element_k64(lane, i);
    r[i / 8] |= std::uint32_t{b[p.col * kK64 + p.row] & 0xFu} << (4 * (i % 8));
  }
}
SOFTMX_HD inline void unpack_a_k64(const std::uint32_t r[4], int lane, std::uint8_t* a) {
  for (int i = 0; i < 32; ++i) {
    const RowCol p = a_element_k64(lane, i);
    a[p.row * kK64 + p.col] = static_cast<std::uint8_t>((r[i / 8] >> (4 * (i % 8))) & 0xF);
  }
}
SOFTMX_HD inline void unpack_b_k64(const std::uint32_t r[2], int lane, std::uint8_t* b) {
  for (int i = 0; i < 16; ++i) {
    const RowCol p = b_element_k64(lane, i);
    b[p.col * kK64 + p.row] = static_cast<std::uint8_t>((r[i / 8] >> (4 * (i % 8))) & 0xF);
  }
}

// ---------------------------------------------------------------------------------------------
// Block-scale registers (selectors byte-id = thread-id = 0; see the top of this file).

/// The row of scale_A whose scales lane passes (every lane holds one: lanes 4g, 4g + 2 hold row
/// g and lanes 4g + 1, 4g + 3 row g + 8).
SOFTMX_HD constexpr int scale_a_row(int lane) { return (lane % 2) * 8 + (lane >> 2); }
/// The column of scale_B whose scales lane passes (all four lanes of group g: column g).
SOFTMX_HD constexpr int scale_b_col(int lane) { return lane >> 2; }
/// The scale register holding one row's (or column's) n scales s[0..n-1] (n = 1, 2 or 4): byte
/// j is s[j % n].
SOFTMX_HD inline std::uint32_t scale_register(const std::uint8_t* s, int n) {
  std::uint32_t r = 0;
  for (int j = 0; j < 4; ++j) r |= std::uint32_t{s[j % n]} << (8 * j);
  return r;
}

}  // namespace softmx::mma_frag
