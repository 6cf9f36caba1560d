// emulator/simd/isa_entries.hpp: the one body of simd/isa_avx2.cpp and simd/isa_avx512.cpp. It
// pulls in the vector conversion kernels (simd/lanes.hpp, simd/block_lanes.hpp,
// simd/dequant_lanes.hpp) and defines this instruction set's entry points, the functions that
// simd/plan.hpp declares with the suffix _avx2 or _avx512, each of which only hands out a kernel
// of namespace simd::SOFTMX_SIMD_NS. Include it only from those two sources, after defining
// SOFTMX_SIMD_NS (avx2 or avx512: both the private namespace and the entry points' suffix) and
// SOFTMX_SIMD_LANES (simd/lanes.hpp says what they mean). No include guard: one inclusion per
// translation unit, each under its own namespace.
#include "simd/lanes.hpp"
#include "simd/block_lanes.hpp"
#include "simd/dequant_lanes.hpp"

// SOFTMX_SIMD_ENTRY(batch_kernel) is batch_kernel_avx2 when SOFTMX_SIMD_NS is avx2: the second
// level makes the preprocessor expand SOFTMX_SIMD_NS before it pastes the tokens.
#define SOFTMX_SIMD_PASTE_(name, ns) name##_##ns
#define SOFTMX_SIMD_PASTE(name, ns) SOFTMX_SIMD_PASTE_(name, ns)
#define SOFTMX_SIMD_ENTRY(name) SOFTMX_SIMD_PASTE(name, SOFTMX_SIMD_NS)

namespace softmx::simd {
BatchFn SOFTMX_SIMD_ENTRY(batch_kernel)(const Plan& p, bool with_flags, bool scaled) {
  return SOFTMX_SIMD_NS::pick(p, p.dst, with_flags, scaled);
}
std::uint32_t SOFTMX_SIMD_ENTRY(max_magnitude_bits)(const void* in, std::size_t n, int width) {
  return SOFTMX_SIMD_NS::max_magnitude_bits(in, n, width);
}
BlocksFn SOFTMX_SIMD_ENTRY(blocks_kernel)(const Plan& p) { return SOFTMX_SIMD_NS::pick_blocks(p); }
ConsecutiveFn SOFTMX_SIMD_ENTRY(consecutive_kernel)(const Plan& p, bool with_flags) {
  return SOFTMX_SIMD_NS::pick_consecutive(p, with_flags);
}
SegmentsFn SOFTMX_SIMD_ENTRY(segments_kernel)(const Plan& p) { return SOFTMX_SIMD_NS::pick_segments(p); }
DequantFn SOFTMX_SIMD_ENTRY(dequant_kernel)() { return SOFTMX_SIMD_NS::dequantize_f32_blocks; }
}  // namespace softmx::simd

#undef SOFTMX_SIMD_ENTRY
#undef SOFTMX_SIMD_PASTE
#undef SOFTMX_SIMD_PASTE_
