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
/// rounding, saturation, tininess). Blocks with s[b] == 0 are left alone. Returns the OR of the
/// flags (docs/BLOCKS.md 1.3).
using QuotientFn = Flags (*)(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                             const int* shift, std::uint8_t* codes);

struct ScaleKernels {
  /// The fused block kernel for a plan from f32 into a named MX float element (simd/scale_fused.hpp),
  /// or null when none serves the plan's destination and rounding.
  QuotientFn (*pick_quotient)(const Plan& p);
  /// out[i] = f32 bits of RN_f32(tab[codes[i]] * s) (tab: 256 f32 values; NaN marks a code the
  /// lanes do not take). status[i]: 0 exact, 1 inexact (the only flag), 2 not done here (a NaN
  /// table entry, a non-zero product below 2^-126 in magnitude or above FLT_MAX, or a NaN/Inf
  /// s): the caller computes that element by the scalar reference. Returns the OR of the statuses.
  /// ncodes: 16 when tab[16..255] are all NaN (a 4-bit element), else 256.
  std::uint8_t (*products_f32)(const float* tab, unsigned ncodes, const std::uint8_t* codes, std::size_t n, double s, std::uint32_t* out,
                       std::uint8_t* status);
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
