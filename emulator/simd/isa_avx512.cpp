// emulator/simd/isa_avx512.cpp: the vector conversion kernels compiled for avx512 (16 lanes of 32 bits).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// simd::avx512 is defined here but the entry points (simd/isa_entries.hpp), so no code for this
// instruction set leaks into other callers.
#define SOFTMX_SIMD_NS avx512
#define SOFTMX_SIMD_LANES 16
#include "simd/isa_entries.hpp"
