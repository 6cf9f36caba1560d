// emulator/simd/sweep.cpp: see sweep.hpp. Compiled for baseline x86-64 (or any processor): it
// only picks among the kernels the instruction-set units provide.
#include "simd/sweep.hpp"

namespace softmx::simd {

SegmentsFn sweep_fused_kernel([[maybe_unused]] const Plan& p, Isa isa) {
  switch (isa) {
#ifndef SOFTMX_NO_AVX512_KERNELS
    case Isa::avx512: return sweep_fused_kernel_avx512(p);
#endif
#ifndef SOFTMX_NO_AVX2_KERNELS
    case Isa::avx2: return sweep_fused_kernel_avx2(p);
#endif
    default: break;
  }
  return nullptr;
}

#ifdef SOFTMX_NO_AVX2_KERNELS
SegmentsFn sweep_fused_kernel_wide_on_avx2(const Plan&) { return nullptr; }
#endif

SegmentsFn sweep_segments_kernel(const Plan& p, Isa isa) {
  if (const SegmentsFn fused = sweep_fused_kernel(p, isa)) return fused;
  return segments_kernel(p, isa);
}

}  // namespace softmx::simd
