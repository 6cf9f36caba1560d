// emulator/simd/sweep_avx2.cpp: the sweep's fused kernel (simd/sweep_lanes.hpp) compiled for AVX2 (8 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::sweep_avx2 is defined here, so no code for this instruction set leaks into other callers.
#define SOFTMX_SIMD_NS sweep_avx2
#define SOFTMX_SIMD_LANES 8
#define SOFTMX_SWEEP_GENERAL_ISA Isa::avx2
#include "simd/sweep_lanes.hpp"

softmx::simd::SegmentsFn softmx::simd::sweep_fused_kernel_avx2(const Plan& p) { return sweep_avx2::pick_sweep(p); }
