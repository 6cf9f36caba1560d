// emulator/gemm/isa_avx2.cpp: the GEMM tile kernels for AVX2 + FMA (32-byte vectors).
// CMakeLists.txt gives this file its instruction-set flags; nothing outside namespace
// gemm_detail::avx2 is defined here but the entry point, which only returns a table.
#define SOFTMX_GEMM_NS avx2
#define SOFTMX_GEMM_BYTES 32
#include "gemm/kernel_table.hpp"

namespace softmx::gemm_detail {
// exact 4 x 12 doubles (12 accumulators of 16 registers), fp32-sequential 4 x 8, tensor-core 4 x 8.
const Kernels& kernels_avx2() { return avx2::kernel_table<4, 3, 4, 1, 4, 1>(); }
}  // namespace softmx::gemm_detail
