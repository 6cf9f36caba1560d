// conformance/gemm_wide_kernels.cpp: the GEMM tile kernels' source with 64-byte vectors (the
// AVX-512 build's shapes: 16 lanes of 32 bits, 8 doubles, 8 x 24 and 4 x 32 tiles) compiled for
// AVX2 (CMake gives this file -mavx2 -mfma), so that a machine without AVX-512 still runs the
// wide kernels' lane logic against the reference. The compiler splits each vector in two; the
// arithmetic per lane is the same source.
#define SOFTMX_GEMM_NS wide_on_avx2
#define SOFTMX_GEMM_BYTES 64
#include "gemm/kernel_table.hpp"

namespace softmx::gemm_detail {
const Kernels& kernels_wide_on_avx2() { return wide_on_avx2::kernel_table<8, 3, 4, 2, 4, 2>(); }
}  // namespace softmx::gemm_detail
