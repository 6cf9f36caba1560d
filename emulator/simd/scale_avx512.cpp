// emulator/simd/scale_avx512.cpp: the kernels of simd/scale_kernels.hpp compiled for avx512 (16 f32
// lanes): simd/scale_fused.hpp on simd/lanes.hpp's VectorKernel (namespace simd::avx512) and
// simd/scale_lanes.hpp (namespace simd::avx512_scale). CMakeLists.txt gives this file its
// instruction-set flags; nothing outside those namespaces is defined here but the entry point.
// GCC 12 warns inside its own AVX-512 intrinsic headers (an undefined pass-through operand of
// the unmasked forms, "may be used uninitialized"): not this code's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define SOFTMX_SIMD_NS avx512
#define SOFTMX_SIMD_LANES 16
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/scale_kernels.hpp"
#include "simd/scale_fused.hpp"
#define SOFTMX_SCALE_NS avx512_scale
#define SOFTMX_SCALE_LANES 16
#define SOFTMX_SCALE_PICK softmx::simd::avx512::pick_quotient
#include "simd/scale_lanes.hpp"

namespace softmx::simd {
const ScaleKernels& scale_kernels_avx512() { return avx512_scale::kScaleKernels; }
}  // namespace softmx::simd
