// tools/cuda/mma/tcgen05_layout.hpp: how the capture lays out one tcgen05.mma.cta_group::1 with
// M = 128, N = 8 (the smallest shape every block-scaled kind allows: PTX ISA 9.2, 9.7.16.2.1
// "Matrix Shape", Table 39: M = 128, N = 8..256 in steps of 8) in shared and tensor memory, and
// the two descriptors that describe it. Host and device code (the conformance suite tests it
// on the host); plain C++, no CUDA header.
//
// Shared memory, A (128 x K) and B (K x 8), both K-major, no swizzling (9.7.16.3 "Major-ness
// supported by Strides", the canonical K-major layout without swizzle): the K extent of every
// kind is 32 bytes (32 FP8 codes, 32 FP6/FP4 codes in their 16-element padded groups, or 64
// packed FP4 codes), split into two "core matrices" of 8 rows x 16 bytes, each 128 contiguous
// bytes (row r of the core matrix at byte 16 r). Core matrix (row / 8, kbyte / 16) starts at
//   (row / 8) * SBO + (kbyte / 16) * LBO,   LBO = 128 (the next 16 bytes of K),
//                                           SBO = 256 (the next 8 rows of M or N),
// so A takes 16 x 256 = 4096 bytes and B 256 bytes. This is the layout of MMA-Sim's tcgen05
// capture kernels (microsoft/MMA-Sim 1727461, mmasim/kernels/impl/tcgen05mma.h,
// LOAD_A_M128K32_FP8, LOAD_B_N8K32_FP8, *_FP4: a_smem[i * 256 + k * 128 + tid]).
//
// The bytes of one row's K span (32 bytes) hold, by kind and element type:
//   - 8-bit codes (.kind::f8f6f4 / .kind::mxf8f6f4 with e4m3, e5m2): byte k = code k;
//   - 6-bit codes in those kinds: two groups of 16 codes, each packed into 12 bytes as a
//     little-endian bit string (code j at bits 6j .. 6j + 5) and padded with 4 zero bytes to
//     16 (the ".b6x16_p32" form: the PTX ISA's packing formats of mxf8f6f4 in shared memory,
//     anchor tcgen05-packing-formats-mxf8f6f4-smem; the form TMA's
//     CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B writes, CUDA 13.0 cuda.h);
//   - 4-bit codes in those kinds: two groups of 16 codes, each packed into 8 bytes (code j in
//     nibble j, low nibble first) and padded with 8 zero bytes (".b4x16_p64";
//     CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B);
//   - .kind::mxf4 / .kind::mxf4nvf4: 64 e2m1 codes packed two per byte, low nibble first.
// The bit order inside the packed groups (little-endian, element 0 lowest) is the assumption
// that the capture cannot check without a GPU: tools/cuda/README.md lists it as unverified.
//
// Tensor memory (9.7.16.2.3 "Data Movement Shape", .32x32b: warp w of the CTA reaches lanes
// 32w .. 32w + 31, one 32-bit column per register):
//   D: row m in lane m, column n in column n of D's allocation; f32 codes, or (f16 D) the f16
//      code in the low 16 bits of the 32-bit cell (MMA-Sim's f16 kernels read it so);
//   scale_A: one 32-bit column, lane m holds row m's scales (byte j = scale j % n, as in
//      fragment.hpp's scale_register, so that any byte selector reads the same data);
//   scale_B: one 32-bit column, lane l holds column (l % 8)'s scales (every lane: MMA-Sim's
//      LOAD_SFB_N8SFK*, which replicates the 8 columns over the 128 lanes).
#pragma once

#include <cstdint>

#include "fragment.hpp"
#include "mma_types.hpp"

namespace softmx::tc05 {

inline constexpr int kM = 128, kN = 8;
inline constexpr int kKBytes = 32;                 ///< bytes of K per row, every kind
inline constexpr int kLbo = 128, kSbo = 256;       ///< leading / stride dimension byte offsets
inline constexpr int kABytes = kM * kKBytes, kBBytes = kN * kKBytes;

/// The byte offset of byte `kbyte` (0..31) of row `row` (A: m; B: n) in the smem tile.
SOFTMX_HD constexpr int smem_offset(int row, int kbyte) {
  return (row / 8) * kSbo + (kbyte / 16) * kLbo + (row % 8) * 16 + kbyte % 16;
}

/// How one row's codes are stored in its 32-byte K span.
enum class Packing : std::uint8_t { b8, b6x16_p32, b4x16_p64, b4_packed };

/// The packing of an element type in a kind (the FP4 kinds pack; the f8f6f4 kinds pad).
SOFTMX_HD constexpr Packing packing_of(mma_capture::Kind kind, mma_capture::Elem e) {
  if (kind == mma_capture::Kind::mxf4 || kind == mma_capture::Kind::mxf4nvf4) return Packing::b4_packed;
  const int bits = mma_capture::elem_bits(e);
  return bits == 8 ? Packing::b8 : bits == 6 ? Packing::b6x16_p32 : Packing::b4x16_p64;
}
/// Codes per row for a packing: 64 for packed FP4, 32 otherwise.
SOFTMX_HD constexpr int codes_per_row(Packing p) { return p == Packing::b4_packed ? 64 : 32; }

/// Encodes one row's codes (codes_per_row(p) of them, each below 2^bits) into its 32 bytes.
SOFTMX_HD inline void encode_row(const std::uint8_t* codes, Packing p, std::uint8_t out[kKBytes]) {
  for (int i = 0; i < kKBytes; ++i) out[i] = 0;
  switch (p) {
    case Packing::b8:
      for (int k = 0; k < 32; ++k) out[k] = codes[k];
      break;
    case Packing::b6x16_p32:
      for (int k = 0; k < 32; ++k) {
        const int bit = (k % 16) * 6, base = (k / 16) * 16;
        const std::uint32_t v = std::uint32_t{codes[k] & 0x3Fu} << (bit % 8);
        out[base + bit / 8] = static_cast<std::uint8_t>(out[base + bit / 8] | (v & 0xFF));
        if (v >> 8) out[base + bit / 8 + 1] = static_cast<std::uint8_t>(out[base + bit / 8 + 1] | (v >> 8));
      }
      break;
    case Packing::b4x16_p64:
      for (int k = 0; k < 32; ++k) {
        const int at = (k / 16) * 16 + (k % 16) / 2;
        out[at] = static_cast<std::uint8_t>(out[at] | ((codes[k] & 0xFu) << (4 * (k % 2))));
      }
      break;
    case Packing::b4_packed:
      for (int k = 0; k < 64; ++k)
        out[k / 2] = static_cast<std::uint8_t>(out[k / 2] | ((codes[k] & 0xFu) << (4 * (k % 2))));
      break;
  }
}
/// Decodes a row's 32 bytes back into its codes (the inverse of encode_row).
SOFTMX_HD inline void decode_row(const std::uint8_t in[kKBytes], Packing p, std::uint8_t* codes) {
  switch (p) {
    case Packing::b8:
      for (int k = 0; k < 32; ++k) codes[k] = in[k];
      break;
    case Packing::b6x16_p32:
      for (int k = 0; k < 32; ++k) {
        const int bit = (k % 16) * 6, base = (k / 16) * 16;
        const std::uint32_t w = in[base + bit / 8] | (bit / 8 + 1 < 12 ? std::uint32_t{in[base + bit / 8 + 1]} << 8 : 0u);
        codes[k] = static_cast<std::uint8_t>((w >> (bit % 8)) & 0x3F);
      }
      break;
    case Packing::b4x16_p64:
      for (int k = 0; k < 32; ++k) codes[k] = static_cast<std::uint8_t>((in[(k / 16) * 16 + (k % 16) / 2] >> (4 * (k % 2))) & 0xF);
      break;
    case Packing::b4_packed:
      for (int k = 0; k < 64; ++k) codes[k] = static_cast<std::uint8_t>((in[k / 2] >> (4 * (k % 2))) & 0xF);
      break;
  }
}

/// The shared memory descriptor of a tile at shared address `addr` (9.7.16.4.1, Table 40):
/// bits 0-13 start address >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 46-48 the fixed 0b001, 49-51
/// base offset 0, 52 LBO mode 0 (relative), 61-63 swizzle 0 (none). Each field is
/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4. Precondition: addr 16-byte aligned.
SOFTMX_HD constexpr std::uint64_t smem_descriptor(std::uint32_t addr) {
  auto enc = [](std::uint64_t x) { return (x & 0x3FFFF) >> 4; };
  return enc(addr) | enc(kLbo) << 16 | enc(kSbo) << 32 | std::uint64_t{1} << 46;
}

/// The A/B type code of the instruction descriptor: .kind::f8f6f4 and .kind::mxf8f6f4 (Table
/// 42 and the block-scaled table after it): E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5;
/// .kind::mxf4 and .kind::mxf4nvf4: E2M1 1 (the block-scaled table; NVIDIA/cutlass
/// include/cute/arch/mma_sm100_desc.hpp, MXF8F6F4Format and MXF4Format, agree).
SOFTMX_HD constexpr std::uint32_t type_code(mma_capture::Kind kind, mma_capture::Elem e) {
  if (kind == mma_capture::Kind::mxf4 || kind == mma_capture::Kind::mxf4nvf4) return 1;
  switch (e) {
    case mma_capture::Elem::e4m3: return 0;
    case mma_capture::Elem::e5m2: return 1;
    case mma_capture::Elem::e2m3: return 3;
    case mma_capture::Elem::e3m2: return 4;
    case mma_capture::Elem::e2m1: return 5;
  }
  return 7;
}

/// The instruction descriptor (9.7.16.4.2). .kind::f8f6f4 (Table 42): bits 4-5 D type (F16 0,
/// F32 1), 7-9 A type, 10-12 B type, 13/14 negate A/B (0), 15/16 transpose A/B (0: K-major),
/// 17-22 N >> 3, 24-28 M >> 4, dense, no saturation, no shift. Block-scaled kinds (the table
/// after it; cutlass's InstrDescriptorBlockScaled has the same fields, and MMA-Sim's capture
/// kernels set bit 23 for UE8M0 and M >> 7 << 27, which is M >> 4 << 24 for M = 128):
/// bits 4-5 the byte of scale_B's TMEM word (0), 7-9 / 10-12 the types, 17-22 N >> 3, 23 the
/// scale type (UE4M3 0, UE8M0 1), 24-28 M >> 4, 29-30 the byte of scale_A's word (0), 31 the K
/// size (0: K = 32 or 64). The scale layout replicates every scale across the four bytes of
/// its word (1X; 2X: twice), so byte selector 0 reads the same as any other.
SOFTMX_HD constexpr std::uint32_t instruction_descriptor(const mma_capture::DeviceForm& f) {
  const std::uint32_t n = std::uint32_t{kN >> 3} << 17, m = std::uint32_t{kM >> 4} << 24;
  const std::uint32_t ab = type_code(f.kind, f.a) << 7 | type_code(f.kind, f.b) << 10;
  if (f.kind == mma_capture::Kind::f8f6f4) return (f.f16 ? 0u : 1u) << 4 | ab | n | m;
  return ab | n | (f.scale == mma_capture::ScaleType::ue8m0 ? 1u : 0u) << 23 | m;
}

/// A tensor memory address: lane in bits 31-16, column in bits 15-0.
SOFTMX_HD constexpr std::uint32_t tmem_address(std::uint32_t base, int lane, int column) {
  return base + (static_cast<std::uint32_t>(lane) << 16) + static_cast<std::uint32_t>(column);
}
/// The scale_B column whose scales TMEM lane `lane` holds.
SOFTMX_HD constexpr int scale_b_col_of_lane(int lane) { return lane % kN; }

}  // namespace softmx::tc05
