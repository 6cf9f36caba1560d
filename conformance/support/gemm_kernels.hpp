// conformance/support/gemm_kernels.hpp: what the GEMM kernel tests (test_gemm, test_gemm_runtime,
// test_gemm_fast, test_gemm_scale_formats) share: the kernel tables under test on this CPU, the
// model-and-context case they run, the run of every kernel against the reference's outputs, and
// the hex form of an f32 result in their messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <string>
#include <vector>

#include "gemm/kernel_api.hpp"
#include "softmx/context.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "support/report.hpp"

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

/// Runs every kernel under test on A and B under `o` (gemm, or dot_pairs with `pairs`), with 1
/// and 3 threads (1 only with `one_thread`), and compares each run's codes and flags with the
/// reference's: rc and rf (one per output) and rany, the OR of its flags. A run that matches in
/// every output and in the OR counts its outputs as passed in `tally`; any other is one failure,
/// weighed by the outputs that differ (1 where only the OR does), with the message
/// describe(kernel, threads, bad, first, kc, kf, kany): bad outputs differ, the first at index
/// `first` (n when none does); kc, kf and kany the kernel's codes, flags and their OR.
template <class Describe>
void compare_kernels(bool pairs, const GemmOperand& A, const GemmOperand& B, GemmOptions o, bool one_thread,
                     const std::vector<std::uint32_t>& rc, const std::vector<Flags>& rf, Flags rany, Tally& tally,
                     Describe describe) {
  const std::size_t n = rc.size();
  std::vector<std::uint32_t> kc(n);
  std::vector<Flags> kf(n);
  for (const Kern& k : kernels_under_test())
    for (unsigned th : {1u, 3u}) {
      if (one_thread && th != 1) continue;
      o.threads = th;
      std::fill(kc.begin(), kc.end(), 0xDEADBEEF);
      const Flags kany = gemm_detail::gemm_on(k.k, pairs, A, B, o, kc, kf);
      std::size_t bad = 0, first = n;
      for (std::size_t x = 0; x < n; ++x)
        if (kc[x] != rc[x] || kf[x] != rf[x]) {
          if (!bad) first = x;
          ++bad;
        }
      if (bad == 0 && kany == rany) {
        tally.pass(n);
        continue;
      }
      tally.fail(describe(k, th, bad, first, kc, kf, kany), bad ? bad : 1);
    }
}

}  // namespace softmx::conformance
