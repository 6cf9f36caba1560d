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

// One instruction set's stubs: every kernel entry point of emulator/simd and emulator/gemm, named
// with the set's suffix (avx2, avx512), each failing as absent() says.
#define SOFTMX_ABSENT_KERNELS(ISA)                                                                          \
  namespace simd {                                                                                       \
  BatchFn batch_kernel_##ISA(const Plan&, bool, bool) { absent("batch_kernel_" #ISA); }                  \
  std::uint32_t max_magnitude_bits_##ISA(const void*, std::size_t, int) { absent("max_magnitude_bits_" #ISA); } \
  BlocksFn blocks_kernel_##ISA(const Plan&) { absent("blocks_kernel_" #ISA); }                           \
  ConsecutiveFn consecutive_kernel_##ISA(const Plan&, bool) { absent("consecutive_kernel_" #ISA); }      \
  SegmentsFn segments_kernel_##ISA(const Plan&) { absent("segments_kernel_" #ISA); }                     \
  DequantFn dequant_kernel_##ISA() { absent("dequant_kernel_" #ISA); }                                   \
  }                                                                                                      \
  namespace gemm_detail {                                                                                \
  const Kernels& kernels_##ISA() { absent("gemm kernels_" #ISA); }                                       \
  }

#ifdef SOFTMX_NO_AVX2_KERNELS
SOFTMX_ABSENT_KERNELS(avx2)
#endif
#ifdef SOFTMX_NO_AVX512_KERNELS
SOFTMX_ABSENT_KERNELS(avx512)
#endif
#undef SOFTMX_ABSENT_KERNELS
}  // namespace softmx
