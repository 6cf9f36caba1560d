// emulator/gemm/exact_tile.hpp: the exact model's tile kernel (internal; included
// through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES mean).
//
// exact (exact_tile): a segment's products N_a * N_b (integers of the format parts, below
//   2^20 each) summed in double lanes that start at 1.5 * 2^52: every partial sum is an integer
//   below 2^51 in magnitude (the driver bounds the segment), so every addition is exact, fused
//   or not, and the lane's bits minus those of 1.5 * 2^52 are the sum as an int64; each sum is
//   then shifted by its block's scale offset into the output's 128-bit accumulator, held as two
//   64-bit lanes (low word, high word with the carry), all in vector lanes.
#pragma once

#include <cstdint>

#include "gemm/kernel_api.hpp"
#include "gemm/tile_lanes.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

typedef std::uint64_t vlu __attribute__((vector_size(kBytes)));

/// 1.5 * 2^52: a double lane holding kMagic + x for an integer |x| < 2^51 holds it exactly (the
/// sum lies in [2^52, 2^53), where doubles are the integers), and its bits are kMagicBits + x.
constexpr double kMagic = 0x1.8p52;
constexpr std::int64_t kMagicBits = 0x4338000000000000;

/// (hi, lo), a 128-bit two's complement integer per lane (hi * 2^64 + lo), += x * 2^sh, for
/// 0 <= sh <= 127 (wrapping modulo 2^128: the driver never keeps an output whose sum could
/// leave 128 bits, ExactBlock::fits). Every shift count stays within 0..63.
SOFTMX_GEMM_INLINE void add_shifted(vlu& lo, vl& hi, vl x, vl sh) {
  const vl s1 = sh < 63 ? sh : vl{} + 63;
  const vl low = sh < 64;                                            // lanes whose shift leaves x in both words
  const vlu ux = reinterpret_cast<vlu>(x);
  const vlu lpart = reinterpret_cast<vlu>(low) & (ux << reinterpret_cast<vlu>(s1));
  const vl hlow = (x >> 1) >> (63 - s1);                             // x >> (64 - sh), arithmetic
  const vl s2 = sh > 64 ? sh - 64 : vl{};                            // 0..63 for sh 64..127
  const vl hhigh = reinterpret_cast<vl>(ux << reinterpret_cast<vlu>(s2));
  const vl hpart = low ? hlow : hhigh;
  const vlu nlo = lo + lpart;
  const vl carry = reinterpret_cast<vl>(nlo < lpart);               // -1 where the low word wrapped
  hi = reinterpret_cast<vl>(reinterpret_cast<vlu>(hi) + reinterpret_cast<vlu>(hpart) - reinterpret_cast<vlu>(carry));
  lo = nlo;
}

/// Narrow: every output's whole sum is below 2^62 in magnitude (ExactBlock::narrow): lo holds
/// it as an int64 and hi is not touched; otherwise (lo, hi) is the 128-bit accumulator.
template <int MR, int NV, bool Diag, bool Narrow>
void exact_tile(const ExactTile& g) {
  constexpr int NR = NV * kD;
  constexpr int AW = Diag ? NR : MR;  // A's panel width
  const double* a = g.a;
  const double* b = g.b;
  for (std::size_t s = 0; s < g.segments; ++s) {
    const ExactSegment& sg = g.seg[s];
    // Every lane starts at kMagic: the products are integers and every partial sum of the
    // segment is below 2^51 in magnitude (the driver's bound), so each fused or unfused step is
    // exact and the lane's bits minus kMagicBits are the segment's sum.
    vd c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) c[r][v] = splat(kMagic);
    for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
      vd bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = load<vd>(b + v * kD);
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) c[r][v] += (Diag ? load<vd>(a + v * kD) : splat(a[r])) * bv[v];
    }
    // Each sum into its output's 128-bit accumulator, shifted by its block's scale offsets
    // (clamped to 127: an output whose shift was clamped is sent to the reference anyway).
    for (int r = 0; r < MR; ++r) {
      std::uint64_t* lo = g.lo + static_cast<std::size_t>(r) * g.stride;
      std::int64_t* hi = g.hi + static_cast<std::size_t>(r) * g.stride;
      for (int v = 0; v < NV; ++v) {
        const vl x = reinterpret_cast<vl>(c[r][v]) - kMagicBits;
        const vl rb = __builtin_convertvector(load<vh>(sg.rb + v * kD), vl);
        const vl ra = Diag ? __builtin_convertvector(load<vh>(sg.ra + v * kD), vl) : vl{} + sg.ra[r];
        vl sh = ra + rb;
        if constexpr (Narrow) {  // sh + the sum's bits <= 62 here (the driver's bound)
          store(lo + v * kD, load<vlu>(lo + v * kD) + (reinterpret_cast<vlu>(x) << reinterpret_cast<vlu>(sh)));
          continue;
        }
        sh = sh < 127 ? sh : vl{} + 127;
        vlu l = load<vlu>(lo + v * kD);
        vl h = load<vl>(hi + v * kD);
        add_shifted(l, h, x, sh);
        store(lo + v * kD, l);
        store(hi + v * kD, h);
      }
    }
  }
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
