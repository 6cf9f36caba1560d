// conformance/support/gemm_kernels.hpp: what the GEMM kernel tests (test_gemm, test_gemm_runtime,
// test_gemm_fast, test_gemm_scale_formats) share: the kernel tables under test on this CPU, the
// model-and-context case they run (and the sweep of the six deterministic roundings), its
// GemmOptions, the run of the reference and of every kernel against its outputs, and the hex
// form of an f32 result in their messages. The tests include it inside namespace
// softmx::conformance, where these names are theirs without using-declarations.
#pragma once

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <sstream>
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

/// The GemmOptions of a model case: its model and its result's Context, on `threads` threads
/// (0: as many as the machine has; the results do not depend on it), the rest the defaults.
inline GemmOptions options_for(const ModelCase& mc, unsigned threads) {
  GemmOptions o;
  o.model = mc.model;
  o.out = mc.ctx;
  o.threads = threads;
  return o;
}

/// `model` under each deterministic rounding (rne, rna, rz, ru, rd, ro): saturation finite under
/// rz and none under the others, tininess before rounding under rd and after under the others,
/// so that each mode, both saturations and both tininess rules are met. Labels: "<model> <mode>".
inline std::vector<ModelCase> rounding_cases(const AccumulationModel* model) {
  std::vector<ModelCase> v;
  for (Rounding r : {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro}) {
    Context c;
    c.rounding = r;
    c.saturation = r == Rounding::rz ? Saturation::finite : Saturation::none;
    c.tininess = r == Rounding::rd ? Tininess::before_rounding : Tininess::after_rounding;
    v.push_back({model, c, std::string(model->name()) + " " + std::string(name(r))});
  }
  return v;
}

/// No more to say about an output that differs (compare_with_reference's default `detail`).
struct NoDetail {
  std::string operator()(std::size_t) const { return {}; }
};

/// Runs the reference (gemm_on with no kernel table: dot_general per output) on A and B under
/// `o` (gemm, or dot_pairs with `pairs`), then every kernel under test with 1 and 3 threads (1
/// only with `one_thread`), and compares each kernel run's codes and flags with the reference's,
/// output by output, and the OR of its flags with the reference's. A run that matches counts its
/// outputs as passed in `tally`; any other is one failure, weighed by the outputs that differ (1
/// where only the OR does), whose message is `what`, the kernel, the threads and how many
/// outputs differ, then the first output that differs (its index, each side's code in hex and
/// flags, and detail(index)) or the two ORs. Returns the reference's codes.
template <class Detail = NoDetail>
std::vector<std::uint32_t> compare_with_reference(bool pairs, const GemmOperand& A, const GemmOperand& B,
                                                  GemmOptions o, bool one_thread, const std::string& what,
                                                  Tally& tally, Detail detail = {}) {
  const std::size_t n = pairs ? A.rows : A.rows * B.rows;
  std::vector<std::uint32_t> rc(n), kc(n);
  std::vector<Flags> rf(n), kf(n);
  const Flags rany = gemm_detail::gemm_on(nullptr, pairs, A, B, o, rc, rf);
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
      std::ostringstream s;
      s << what << " kernel " << k.name << " threads " << th << ": " << bad << " of " << n << " outputs differ";
      if (bad)
        s << "; first " << first << ": kernel " << hex8(kc[first]) << "/" << int(kf[first]) << ", reference "
          << hex8(rc[first]) << "/" << int(rf[first]) << detail(first);
      else
        s << "; the OR of the flags differs: " << int(kany) << " vs " << int(rany);
      tally.fail(s.str(), bad ? bad : 1);
    }
  return rc;
}

}  // namespace softmx::conformance
