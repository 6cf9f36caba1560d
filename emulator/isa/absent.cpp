// emulator/isa/absent.cpp: the AVX2 and AVX-512 entry points of a build without them
// (SOFTMX_ISA_KERNELS=OFF, or a processor other than x86-64: SOFTMX_NO_AVX2_KERNELS and
// SOFTMX_NO_AVX512_KERNELS), or without the AVX-512 ones only (SOFTMX_ISA_AVX512=OFF:
// SOFTMX_NO_AVX512_KERNELS).
//
// Why: the instruction-set translation units (simd/isa_*.cpp, gemm/isa_avx*.cpp) are the
// most expensive code in softmx to compile, above all under sanitizers and fuzzing
// instrumentation. A build that needs none of them (the fuzz targets, which exercise
// parsers) leaves them out, and the sanitizer build on a machine without AVX-512 leaves out the
// AVX-512 units it could not run. Then isa_supported() is false for the missing instruction
// sets (simd/plan.cpp), so every caller that honours the precondition "isa_supported(isa)" runs
// the scalar and portable kernels, and nothing reaches these definitions. One that does
// anyway gets a std::logic_error naming the missing kernels, never a silently wrong result.
#include <stdexcept>
#include <string>

#include "gemm/kernel_api.hpp"
#include "simd/plan.hpp"

namespace softmx {
namespace {
[[noreturn]] void absent(const char* what) {
  throw std::logic_error(std::string("softmx: ") + what +
                         " was called in a build without those kernels (SOFTMX_ISA_KERNELS=OFF, "
                         "SOFTMX_ISA_AVX512=OFF or not x86-64): isa_supported() said so, callers must check it");
}
}  // namespace

#ifdef SOFTMX_NO_AVX2_KERNELS
namespace simd {
BatchFn batch_kernel_avx2(const Plan&, bool, bool) { absent("batch_kernel_avx2"); }
std::uint32_t max_magnitude_bits_avx2(const void*, std::size_t, int) { absent("max_magnitude_bits_avx2"); }
BlocksFn blocks_kernel_avx2(const Plan&) { absent("blocks_kernel_avx2"); }
ConsecutiveFn consecutive_kernel_avx2(const Plan&, bool) { absent("consecutive_kernel_avx2"); }
SegmentsFn segments_kernel_avx2(const Plan&) { absent("segments_kernel_avx2"); }
DequantFn dequant_kernel_avx2() { absent("dequant_kernel_avx2"); }
}  // namespace simd
namespace gemm_detail {
const Kernels& kernels_avx2() { absent("gemm kernels_avx2"); }
}  // namespace gemm_detail
#endif

#ifdef SOFTMX_NO_AVX512_KERNELS
namespace simd {
BatchFn batch_kernel_avx512(const Plan&, bool, bool) { absent("batch_kernel_avx512"); }
std::uint32_t max_magnitude_bits_avx512(const void*, std::size_t, int) { absent("max_magnitude_bits_avx512"); }
BlocksFn blocks_kernel_avx512(const Plan&) { absent("blocks_kernel_avx512"); }
ConsecutiveFn consecutive_kernel_avx512(const Plan&, bool) { absent("consecutive_kernel_avx512"); }
SegmentsFn segments_kernel_avx512(const Plan&) { absent("segments_kernel_avx512"); }
DequantFn dequant_kernel_avx512() { absent("dequant_kernel_avx512"); }
}  // namespace simd
namespace gemm_detail {
const Kernels& kernels_avx512() { absent("gemm kernels_avx512"); }
}  // namespace gemm_detail
#endif
}  // namespace softmx
