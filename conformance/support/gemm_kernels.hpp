// conformance/support/gemm_kernels.hpp: what the GEMM kernel tests (test_gemm, test_gemm_runtime)
// share: the kernel tables under test on this CPU, the model-and-context case they run, and the
// hex form of an f32 result in their messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gemm/kernel_api.hpp"
#include "softmx/context.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"

namespace softmx::gemm_detail {
/// The AVX-512 kernel source compiled for AVX2 (conformance/gemm_wide_kernels.cpp): its
/// 64-byte-lane code runs, and is tested, on a machine without AVX-512.
const Kernels& kernels_wide_on_avx2();
}  // namespace softmx::gemm_detail

namespace softmx::conformance {

struct Kern {
  std::string name;
  const gemm_detail::Kernels* k;
};

/// Every kernel table this CPU runs: portable always; with AVX2 the AVX2 kernels and the AVX-512
/// source built for AVX2; with AVX-512 the AVX-512 kernels.
inline std::vector<Kern> kernels_under_test() {
  std::vector<Kern> v{{"portable", &gemm_detail::kernels_portable()}};
  if (gemm_kernel_supported(GemmKernel::avx2)) {
    v.push_back({"avx2", &gemm_detail::kernels_avx2()});
    v.push_back({"avx512-source-on-avx2", &gemm_detail::kernels_wide_on_avx2()});
  }
  if (gemm_kernel_supported(GemmKernel::avx512)) v.push_back({"avx512", &gemm_detail::kernels_avx512()});
  return v;
}

/// One accumulation model with the Context of its f32 result, named for the messages.
struct ModelCase {
  const AccumulationModel* model;
  Context ctx;
  std::string label;
};

/// An f32 result's bits as 8 upper-case hex digits.
inline std::string hex8(std::uint64_t x) {
  char b[16];
  std::snprintf(b, sizeof b, "%08llX", static_cast<unsigned long long>(x));
  return b;
}

}  // namespace softmx::conformance
