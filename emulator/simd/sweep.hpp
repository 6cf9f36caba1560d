// emulator/simd/sweep.hpp: the sweep's fused segments kernel (simd/sweep_lanes.hpp), chosen at
// run time by instruction set as the other conversion kernels are (internal).
#pragma once

#include "simd/plan.hpp"

namespace softmx::simd {

/// Whether the fused kernel takes the plan: an f32 source, a named sign-magnitude destination
/// with subnormals (E4M3, E5M2, E3M2, E2M3, E2M1; any dialect, either saturation) and rounding
/// rne, rna, rz, ru or rd, tininess before or after rounding (its flags follow the input's
/// binade; after_bounded's follow the delivered code). Everything else keeps
/// simd::segments_kernel.
inline bool sweep_fused_serves(const Plan& p) {
  const bool f32 = p.src == FormatId::f32 && p.src_width == 32 && p.src_m == 23 && p.src_bias == 127 &&
                   p.src_exp_max == 255;
  const bool dst = p.dst == FormatId::e4m3 || p.dst == FormatId::e5m2 || p.dst == FormatId::e3m2 ||
                   p.dst == FormatId::e2m3 || p.dst == FormatId::e2m1;
  const Rounding r = p.ctx.rounding;
  const bool mode = r == Rounding::rne || r == Rounding::rna || r == Rounding::rz || r == Rounding::ru || r == Rounding::rd;
  return f32 && dst && mode && !p.tiny_bounded;
}

/// The fused kernel for the plan on `isa`, or null when it does not serve the plan (or isa is
/// Isa::scalar). Same signature and results as segments_kernel(p, isa). Precondition:
/// isa_supported(isa).
SegmentsFn sweep_fused_kernel(const Plan& p, Isa isa);
SegmentsFn sweep_fused_kernel_avx2(const Plan& p);
SegmentsFn sweep_fused_kernel_avx512(const Plan& p);
/// The AVX-512 variant's source (16 lanes) compiled for AVX2, so that a machine without AVX-512
/// tests its logic (conformance/test_sweep_fused.cpp). Not used by the library.
SegmentsFn sweep_fused_kernel_wide_on_avx2(const Plan& p);

/// What a sweep runs: the fused kernel where it serves, else segments_kernel(p, isa).
SegmentsFn sweep_segments_kernel(const Plan& p, Isa isa);

}  // namespace softmx::simd
