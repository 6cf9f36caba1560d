// emulator/simd/scale_avx2.cpp: the kernels of simd/scale_kernels.hpp compiled for avx2 (8 f32
// lanes), in namespaces simd::avx2 and simd::avx2_scale (simd/scale_entries.hpp). CMakeLists.txt
// gives this file its instruction-set flags; nothing outside those namespaces is defined here but
// the entry point.
#define SOFTMX_SIMD_NS avx2
#define SOFTMX_SIMD_LANES 8
#include "simd/scale_entries.hpp"
