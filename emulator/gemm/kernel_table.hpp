// emulator/gemm/kernel_table.hpp: the one preamble of the per-instruction-set GEMM sources
// (gemm/isa_portable.cpp, gemm/isa_avx2.cpp, gemm/isa_avx512.cpp and the test's
// conformance/gemm_wide_kernels.cpp). It pulls in gemm/kernels.hpp and gives that source's
// namespace the function that builds its kernel table once, so each source only names its
// tile shapes. Include it only from those sources, after defining SOFTMX_GEMM_NS and
// SOFTMX_GEMM_BYTES (gemm/kernels.hpp says what they mean). Like gemm/kernels.hpp it has no
// include guard: every translation unit instantiates it once, under its own namespace.
#include "gemm/kernels.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

/// The kernel table for the tile shapes that make_kernels<Shape...> takes (see there), built on
/// the first call (a function-local static, so C++ makes its initialisation thread-safe) and
/// alive until the program exits. Callers keep the reference; the table never changes.
template <int... Shape>
const Kernels& kernel_table() {
  static const Kernels k = make_kernels<Shape...>();
  return k;
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
