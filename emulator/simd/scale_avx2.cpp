// emulator/simd/scale_avx2.cpp: the kernels of simd/scale_kernels.hpp compiled for avx2 (8 f32
// lanes): simd/scale_fused.hpp on simd/lanes.hpp's VectorKernel (namespace simd::avx2) and
// simd/scale_lanes.hpp (namespace simd::avx2_scale). CMakeLists.txt gives this file its
// instruction-set flags; nothing outside those namespaces is defined here but the entry point.
#define SOFTMX_SIMD_NS avx2
#define SOFTMX_SIMD_LANES 8
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/scale_kernels.hpp"
#include "simd/scale_fused.hpp"
#define SOFTMX_SCALE_NS avx2_scale
#define SOFTMX_SCALE_LANES 8
#define SOFTMX_SCALE_PICK softmx::simd::avx2::pick_quotient
#include "simd/scale_lanes.hpp"

namespace softmx::simd {
const ScaleKernels& scale_kernels_avx2() { return avx2_scale::kScaleKernels; }
}  // namespace softmx::simd
