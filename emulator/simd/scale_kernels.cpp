// emulator/simd/scale_kernels.cpp: choosing simd/scale_kernels.hpp's kernels by instruction set.
#include "simd/scale_kernels.hpp"

#if defined(__SSE__)
#include <immintrin.h>
#endif

namespace softmx::simd {

const ScaleKernels* scale_kernels(Isa isa) {
  switch (isa) {
    case Isa::avx512:
#ifndef SOFTMX_NO_AVX512_KERNELS
      return &scale_kernels_avx512();
#else
      return nullptr;
#endif
    case Isa::avx2:
#ifndef SOFTMX_NO_AVX2_KERNELS
      return &scale_kernels_avx2();
#else
      return nullptr;
#endif
    case Isa::scalar: break;
  }
  return nullptr;
}

bool scale_fpu_default() {
#if defined(__SSE__)
  return (_mm_getcsr() & 0xE040u) == 0;  // rounding control 00, FTZ (bit 15) and DAZ (bit 6) off
#else
  return false;
#endif
}

}  // namespace softmx::simd
