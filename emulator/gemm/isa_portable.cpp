// emulator/gemm/isa_portable.cpp: the GEMM tile kernels for the baseline instruction set (16-byte
// vectors; SSE2 on x86-64, whatever the compiler targets elsewhere): any CPU runs them.
#define SOFTMX_GEMM_NS portable
#define SOFTMX_GEMM_BYTES 16
#include "gemm/kernels.hpp"

namespace softmx::gemm_detail {
const Kernels& kernels_portable() {
  // exact 4 x 4 doubles, fp32-sequential 4 x 4, tensor-core 4 x 4.
  static const Kernels k = portable::make_kernels<4, 2, 4, 1, 4, 1>();
  return k;
}
}  // namespace softmx::gemm_detail
