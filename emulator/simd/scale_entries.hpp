// emulator/simd/scale_entries.hpp: the one body of simd/scale_avx2.cpp and simd/scale_avx512.cpp.
// It pulls in the kernels of simd/scale_kernels.hpp for one instruction set (simd/scale_fused.hpp
// on simd/batch_lanes.hpp's VectorKernel, in namespace simd::SOFTMX_SIMD_NS, and
// simd/scale_lanes.hpp in namespace simd::SOFTMX_SIMD_NS_scale) and defines that set's entry point,
// scale_kernels_avx2 or scale_kernels_avx512. Include it only from those two sources, after
// defining SOFTMX_SIMD_NS (avx2 or avx512) and SOFTMX_SIMD_LANES (8 or 16 f32 lanes;
// simd/lanes.hpp). No include guard: one inclusion per translation unit, each under its own
// namespace.
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/scale_kernels.hpp"
#include "simd/scale_fused.hpp"

// The second level makes the preprocessor expand SOFTMX_SIMD_NS before it pastes the tokens.
#define SOFTMX_SCALE_PASTE_(a, b) a##_##b
#define SOFTMX_SCALE_PASTE(a, b) SOFTMX_SCALE_PASTE_(a, b)
#define SOFTMX_SCALE_NS SOFTMX_SCALE_PASTE(SOFTMX_SIMD_NS, scale)
#define SOFTMX_SCALE_LANES SOFTMX_SIMD_LANES
#define SOFTMX_SCALE_PICK softmx::simd::SOFTMX_SIMD_NS::pick_quotient
#define SOFTMX_SCALE_BLOCK_SCALES softmx::simd::SOFTMX_SIMD_NS::block_scales
#define SOFTMX_SCALE_PICK_MUL softmx::simd::SOFTMX_SIMD_NS::pick_mul_round
#define SOFTMX_SCALE_RANGE16 softmx::simd::SOFTMX_SIMD_NS::block_range16
#include "simd/scale_lanes.hpp"

namespace softmx::simd {
const ScaleKernels& SOFTMX_SCALE_PASTE(scale_kernels, SOFTMX_SIMD_NS)() { return SOFTMX_SCALE_NS::kScaleKernels; }
}  // namespace softmx::simd
