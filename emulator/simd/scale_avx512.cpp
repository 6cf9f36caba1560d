// emulator/simd/scale_avx512.cpp: the kernels of simd/scale_kernels.hpp compiled for avx512 (16
// f32 lanes), in namespaces simd::avx512 and simd::avx512_scale (simd/scale_entries.hpp).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside those namespaces is
// defined here but the entry point.
// GCC 12 warns inside its own AVX-512 intrinsic headers (an undefined pass-through operand of
// the unmasked forms, "may be used uninitialized"): not this code's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define SOFTMX_SIMD_NS avx512
#define SOFTMX_SIMD_LANES 16
#include "simd/scale_entries.hpp"
