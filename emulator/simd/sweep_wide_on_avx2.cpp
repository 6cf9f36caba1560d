// emulator/simd/sweep_wide_on_avx2.cpp: the sweep's fused kernel (simd/sweep_lanes.hpp) in its AVX-512
// variant's source (16 lanes) compiled for AVX2: GCC lowers each 16-lane vector to two AVX2 registers. The library never runs it; the test
// (conformance/test_sweep_fused.cpp) does, so that a machine without AVX-512 checks the
// 16-lane logic (as test_gemm's avx512-source-on-avx2).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::sweep_wide_on_avx2 is defined here, so no code for this instruction set leaks into other callers.
#define SOFTMX_SIMD_NS sweep_wide_on_avx2
#define SOFTMX_SIMD_LANES 16
#define SOFTMX_SWEEP_GENERAL_ISA Isa::avx2
#include "simd/sweep_lanes.hpp"

softmx::simd::SegmentsFn softmx::simd::sweep_fused_kernel_wide_on_avx2(const Plan& p) { return sweep_wide_on_avx2::pick_sweep(p); }
