// conformance/block_wide_kernels.cpp: the block kernels' source (simd/block_lanes.hpp,
// simd/dequant_lanes.hpp) with 16 lanes of 32 bits, the AVX-512 build's shape, compiled for
// AVX2 (CMake gives this file -mavx2 -mbmi2 -mfma), so that a machine without AVX-512 still
// runs the wide kernels' lane logic (k = 32 as two vectors, groups of 8 blocks, the
// dequantizer's 16-lane loop) against the reference. Only MXFP8's two elements from f32 under
// rne are instantiated: the lane logic is the same source for every element.
#define SOFTMX_SIMD_NS wide_on_avx2
#define SOFTMX_SIMD_LANES 16
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/dequant_lanes.hpp"

namespace softmx::simd {
BlocksFn blocks_kernel_wide_on_avx2(FormatId element) {
  using wide_on_avx2::quantize_blocks;
  using wide_on_avx2::Src;
  if (element == FormatId::e4m3) return &quantize_blocks<static_cast<int>(FormatId::e4m3), Rounding::rne, Src::f32>;
  if (element == FormatId::e5m2) return &quantize_blocks<static_cast<int>(FormatId::e5m2), Rounding::rne, Src::f32>;
  return nullptr;
}
DequantFn dequant_kernel_wide_on_avx2() { return wide_on_avx2::dequantize_f32_blocks; }
}  // namespace softmx::simd
