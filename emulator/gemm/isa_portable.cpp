// emulator/gemm/isa_portable.cpp: the GEMM tile kernels for the baseline instruction set (16-byte
// vectors; SSE2 on x86-64, whatever the compiler targets elsewhere): any CPU runs them.
#define SOFTMX_GEMM_NS portable
#define SOFTMX_GEMM_BYTES 16
#include "gemm/kernel_table.hpp"

namespace softmx::gemm_detail {
// exact 4 x 4 doubles, fp32-sequential 4 x 4, tensor-core 4 x 4.
const Kernels& kernels_portable() { return portable::kernel_table<4, 2, 4, 1, 4, 1>(); }
}  // namespace softmx::gemm_detail
