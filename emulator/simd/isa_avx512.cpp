// emulator/simd/isa_avx512.cpp: the vector conversion kernels compiled for avx512 (16 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::avx512 is defined here, so no code for this instruction set leaks into other callers.
#define SOFTMX_SIMD_NS avx512
#define SOFTMX_SIMD_LANES 16
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/dequant_lanes.hpp"

namespace softmx::simd {
BatchFn batch_kernel_avx512(const Plan& p, bool with_flags, bool scaled) {
  return avx512::pick(p, p.dst, with_flags, scaled);
}
std::uint32_t max_magnitude_bits_avx512(const void* in, std::size_t n, int width) {
  return avx512::max_magnitude_bits(in, n, width);
}
BlocksFn blocks_kernel_avx512(const Plan& p) { return avx512::pick_blocks(p); }
ConsecutiveFn consecutive_kernel_avx512(const Plan& p, bool with_flags) { return avx512::pick_consecutive(p, with_flags); }
SegmentsFn segments_kernel_avx512(const Plan& p) { return avx512::pick_segments(p); }
DequantFn dequant_kernel_avx512() { return avx512::dequantize_f32_blocks; }
}  // namespace softmx::simd
