// emulator/simd/isa_avx2.cpp: the vector conversion kernels compiled for avx2 (8 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::avx2 is defined here, so no code for this instruction set leaks into other callers.
#define SOFTMX_SIMD_NS avx2
#define SOFTMX_SIMD_LANES 8
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/dequant_lanes.hpp"

namespace softmx::simd {
BatchFn batch_kernel_avx2(const Plan& p, bool with_flags, bool scaled) {
  return avx2::pick(p, p.dst, with_flags, scaled);
}
std::uint32_t max_magnitude_bits_avx2(const void* in, std::size_t n, int width) {
  return avx2::max_magnitude_bits(in, n, width);
}
BlocksFn blocks_kernel_avx2(const Plan& p) { return avx2::pick_blocks(p); }
ConsecutiveFn consecutive_kernel_avx2(const Plan& p, bool with_flags) { return avx2::pick_consecutive(p, with_flags); }
SegmentsFn segments_kernel_avx2(const Plan& p) { return avx2::pick_segments(p); }
DequantFn dequant_kernel_avx2() { return avx2::dequantize_f32_blocks; }
}  // namespace softmx::simd
