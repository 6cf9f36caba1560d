// emulator/simd/sweep_avx512.cpp: the sweep's fused kernel (simd/sweep_lanes.hpp) compiled for AVX-512 (16 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::sweep_avx512 is defined here, so no code for this instruction set leaks into other callers.
#define SOFTMX_SIMD_NS sweep_avx512
#define SOFTMX_SIMD_LANES 16
#define SOFTMX_SWEEP_GENERAL_ISA Isa::avx512
#include "simd/sweep_lanes.hpp"

softmx::simd::SegmentsFn softmx::simd::sweep_fused_kernel_avx512(const Plan& p) { return sweep_avx512::pick_sweep(p); }
