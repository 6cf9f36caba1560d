// emulator/simd/isa_avx2.cpp: the vector conversion kernels compiled for avx2 (8 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::avx2 is defined here but the entry points (simd/isa_entries.hpp), so no code for this
// instruction set leaks into other callers.
#define SOFTMX_SIMD_NS avx2
#define SOFTMX_SIMD_LANES 8
#include "simd/isa_entries.hpp"
