// emulator/simd/scale_kernels.hpp: the vector steps of MX blocks whose scale is not E8M0 and of
// NVFP4 (internal; simd/scale_fused.hpp and simd/scale_lanes.hpp hold them, compiled once per
// instruction set by simd/scale_avx2.cpp and simd/scale_avx512.cpp; block/scale_lanes.cpp and block/nvfp4_lanes.cpp
// use them). docs/BLOCKS.md 1.3 gives the argument that makes them exact.
//
// Every kernel relies on the floating-point unit's defaults (round to nearest even, no
// flush-to-zero, no denormals-are-zero): callers check simd::scale_fpu_default() first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/plan.hpp"
#include "softmx/batch.hpp"

namespace softmx::simd {

/// `blocks` consecutive blocks of k f32 codes x; block b with s[b] != 0 has a finite positive
/// scale S = s[b] 2^shift[b] (s[b] in [1, 2), shift[b] >= -36) and no Inf or NaN:
/// codes[b k + i] = the plan's element code of x[b k + i] / S, rounded once (the plan's
/// rounding, saturation, tininess). Blocks with s[b] == 0 are left alone. amax and amin: null,
/// or block b's largest and smallest magnitudes (sign-cleared bits) in amax[b] and amin[b] (as
/// BlockScalesFn gives them), which the kernel then does not look for. Returns the OR of the
/// flags (docs/BLOCKS.md 1.3).
using QuotientFn = Flags (*)(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                             const int* shift, const std::uint32_t* amax, const std::uint32_t* amin,
                             std::uint8_t* codes);

/// The constants of the f64 route to a block's scale code for one scale format and max_E
/// (block/scale_lanes.hpp's make_scale_f64 fills them; scale_code_f64 and block_scales read them).
struct ScaleF64 {
  double max_e = 0;            ///< value(max_E) (at most 53 significant bits); 0: the route does not serve
  int m = 0;                   ///< the scale format's fraction bits
  int emin = 0;                ///< its smallest normal exponent (subnormals below)
  int bias = 0;                ///< its exponent bias
  std::uint32_t max_code = 0;  ///< its largest finite code
  double max_value = 0;        ///< that code's value
  std::uint32_t min_code = 0;  ///< the smallest positive scale code (a quotient that rounds to zero)
  double min_value = 0;        ///< that code's value
};

/// For `blocks` consecutive blocks of k f32 codes x (k >= 1): the largest magnitude amax of
/// block b; where amax is finite and non-zero, S[b] = scale_code_f64(c, amax) (block/scale_lanes.hpp,
/// the same steps in f64 lanes across blocks) and value(S[b]) = s[b] 2^shift[b] with s[b] in
/// [1, 2); s[b] = 0 where amax is zero, Inf or NaN or shift[b] is outside [-36, 127] (the
/// blocks QuotientFn leaves alone; S[b] and shift[b] are then unspecified); amax[b] and amin[b]:
/// block b's largest and smallest magnitudes (sign-cleared bits; QuotientFn's amax and amin).
/// Precondition: c.max_e != 0, the FPU in its default mode.
using BlockScalesFn = void (*)(const ScaleF64& c, const std::uint32_t* x, std::size_t blocks, std::size_t k,
                               std::uint32_t* S, float* s, int* shift, std::uint32_t* amax, std::uint32_t* amin);

/// NVFP4's elements, fused: `groups` groups of 256 f32 codes x (16 NVFP4 blocks of 16 each, one
/// after another) with the blocks' multipliers m[16 g + j]: codes[256 g + i] = the plan's
/// element code of RN_f32(x[256 g + i] * m[16 g + i / 16]) (one f32 multiply, then rounded once
/// as QuotientFn rounds with s = 1 and shift 0). bmax[16 g + j] and bmin[16 g + j]: the largest
/// and smallest magnitudes (sign-cleared bits) of block 16 g + j, as block_range16 gives them.
/// A group with a product at Inf is left alone and marked skip[g] = 1 (else 0). Returns the OR
/// of the flags of the groups done. Precondition: every x and m finite.
using MulRoundFn = Flags (*)(const Plan& p, const std::uint32_t* x, std::size_t groups, const float* m,
                             const std::uint32_t* bmax, const std::uint32_t* bmin, std::uint8_t* codes,
                             std::uint8_t* skip);

/// A wide scale format's codes (2 or 4 bytes) read by their fields, for
/// ScaleKernels::scale_values_f32: codes (E << m) | F below the largest finite magnitude, a sign
/// bit on top for sign-magnitude formats (block/scale_lanes.cpp's fields_of, which fills it).
struct ScaleFields {
  std::uint32_t code_mask = 0;  ///< the format's codes: a larger one is no code (NaN)
  std::uint32_t mag_mask = 0;   ///< the magnitude bits
  std::uint32_t mag_lo = 1, mag_hi = 0;  ///< the non-zero magnitudes taken; others give NaN
  std::uint32_t sign_shift = 32;  ///< the sign bit's position; 32: no sign bit
  int m = 0, bias = 0;            ///< fraction bits and exponent bias
  float sub_step = 0;             ///< value of the fraction's unit below the normal range (E = 0)
};

struct ScaleKernels {
  /// The fused block kernel for a plan from f32 into a named MX float element (simd/scale_fused.hpp),
  /// or null when none serves the plan's destination and rounding.
  QuotientFn (*pick_quotient)(const Plan& p);
  /// The scales of a run of blocks (BlockScalesFn, simd/scale_fused.hpp).
  BlockScalesFn block_scales;
  /// out[i] = f32 bits of RN_f32(tab[codes[i]] * s) (tab: 256 f32 values; NaN marks a code the
  /// lanes do not take). status[i]: 0 exact, 1 inexact (the only flag), 2 not done here (a NaN
  /// table entry, a non-zero product below 2^-126 in magnitude or above FLT_MAX, or a NaN/Inf
  /// s): the caller computes that element by the scalar reference. Returns the OR of the statuses.
  /// ncodes: 16 when tab[16..255] are all NaN (a 4-bit element), else 256.
  std::uint8_t (*products_f32)(const float* tab, unsigned ncodes, const std::uint8_t* codes, std::size_t n, double s, std::uint32_t* out,
                       std::uint8_t* status);
  /// Blocks of k codes (n codes in all; the last block may be shorter): for block b with s[b]
  /// not NaN, out[i] = f32 bits of tab[codes[i]] * s[b], one f32 multiply (rounded to nearest
  /// even), and bstatus[b] = 0 (no product rounded), 1 (some product rounded; with `wide`
  /// only: without it every product is taken as exact) or 2 (not done: a code >= ncodes or a
  /// NaN table entry met; out of that block partly written). Blocks with s[b] NaN: bstatus[b] =
  /// 2, nothing written. With `wide` and status non-null, status[i] = 1 where the product was
  /// rounded, else 0, for the blocks of bstatus 0 and 1. Precondition (the caller's, per block):
  /// every product of a non-zero non-NaN table entry and s[b] is zero or its exact value lies
  /// in [2^-126, FLT_MAX] (wide: [2^-100, FLT_MAX], so that the rounding error of the multiply,
  /// a multiple of 2^-131 or more, is an f32 and one fused multiply-add finds it); without
  /// `wide` every such product is exact in f32. tab: 256 f32 values; ncodes 16 when
  /// tab[16..255] are all NaN (a 4-bit element), else 256.
  /// Returns the OR of the bstatus values written.
  std::uint8_t (*scaled_blocks_f32)(const float* tab, unsigned ncodes, const std::uint8_t* codes, std::size_t n,
                                    std::size_t k, const float* s, bool wide, std::uint32_t* out, std::uint8_t* status,
                                    std::uint8_t* bstatus);
  /// out[j] = f32 value of scale code j < n of `scales` (codes of `bytes` = 2 or 4 bytes each,
  /// host order) read by its fields: NaN when the code exceeds code_mask or its magnitude mag is
  /// non-zero and outside [mag_lo, mag_hi]; else the value (E = mag >> m, F its low m bits)
  /// 2^(E - bias) (1 + F / 2^m) built in an f32's fields for E != 0, F * sub_step (one f32
  /// multiply) for E = 0, with the code's sign. The per-block scales of scaled_blocks_f32.
  void (*scale_values_f32)(const ScaleFields& f, const std::uint8_t* scales, std::size_t n, unsigned bytes, float* out);
  /// Blocks b, b + 1, ... < nblocks of 16 codes each, stored one after another: out[16 j + i] =
  /// rows[16 scales[j] + codes[16 j + i]], and row_flags[16 scales[j] + codes[16 j + i]] ORed
  /// into *flags_or, while every code of block j is below 16; returns the first block not done
  /// (nblocks when all are).
  std::size_t (*rows16_u32)(const std::uint32_t* rows, const std::uint8_t* row_flags, const std::uint8_t* scales,
                            const std::uint8_t* codes, std::size_t b, std::size_t nblocks, std::uint32_t* out,
                            std::uint8_t* flags_or);
  /// NVFP4 blocks of 16 f32 codes x, one after another: bmax[j] and bmin[j] = the largest and
  /// smallest magnitudes' bits of block j (sign cleared), for j < blocks; returns the largest
  /// bmax[j] (0 when blocks = 0).
  std::uint32_t (*block_range16)(const std::uint32_t* x, std::size_t blocks, std::uint32_t* bmax, std::uint32_t* bmin);
  /// NVFP4 blocks of 16 f32 codes x: p[16 j + i] = f32 bits of RN_f32(x[16 j + i] * m[j]) (one
  /// f32 multiply), and one[j] = 1, or 0 where one of the block's products is Inf or NaN.
  void (*products16)(const std::uint32_t* x, const float* m, std::size_t blocks, std::uint32_t* p, float* one);
  /// MulRoundFn for a plan from f32 into a named MX float element under rne with the direct
  /// path (simd/scale_fused.hpp), or null.
  MulRoundFn (*pick_mul_round)(const Plan& p);
};

/// The kernels for `isa`, or null for Isa::scalar or a build without that instruction set's
/// kernels. Precondition: isa_supported(isa).
const ScaleKernels* scale_kernels(Isa isa);
const ScaleKernels& scale_kernels_avx2();
const ScaleKernels& scale_kernels_avx512();

/// True when the floating-point unit rounds to nearest even with gradual underflow (MXCSR's
/// defaults). Read, never changed.
bool scale_fpu_default();

}  // namespace softmx::simd
