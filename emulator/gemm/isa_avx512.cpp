// emulator/gemm/isa_avx512.cpp: the GEMM tile kernels for AVX-512 F/BW/VL/DQ (64-byte vectors).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// gemm_detail::avx512 is defined here but the entry point, which only returns a table.
#define SOFTMX_GEMM_NS avx512
#define SOFTMX_GEMM_BYTES 64
#include "gemm/kernel_table.hpp"

namespace softmx::gemm_detail {
// exact 8 x 24 doubles (24 accumulators of 32 registers), fp32-sequential 4 x 32, tensor-core 4 x 32.
const Kernels& kernels_avx512() { return avx512::kernel_table<8, 3, 4, 2, 4, 2>(); }
}  // namespace softmx::gemm_detail
