// conformance/test_cuda_reference.cpp: the cuda dialects against NVIDIA's own host functions.
//
// Exhaustive over every f16 and bf16 input and every element code decoded; specials,
// boundaries and a large random sample for f64. The every-f32-input sweeps are in
// test_cuda_f32_sweep.cpp. Every check runs in cuda, cuda-sm90 and cuda-sm100: wherever the
// GPU runs NVIDIA's software path the three agree with it (docs/DIALECTS.md). The header
// functions the capture program runs (tools/cuda/capture_calls.hpp) are checked once more
// through its own per-input code, exactly as the kernels call them. Skipped, saying so, when
// the CUDA headers were not found at build time.
#include <gtest/gtest.h>

#include <sstream>

#include "capture_catalog.hpp"
#include "oracles/cuda_reference.hpp"
#include "softmx/convert.hpp"
#include "support/inputs.hpp"
#include "support/report.hpp"

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#include "capture_functions.hpp"
#endif

namespace softmx {
namespace {

using conformance::Tally;

// The dialects that model NVIDIA's functions: the host headers, and the GPUs that run them.
constexpr const char* kCudaDialects[] = {"cuda", "cuda-sm90", "cuda-sm100"};

#define SKIP_WITHOUT_CUDA_HEADERS()                                                                      \
  if (!cudaref::available())                                                                            \
  GTEST_SKIP() << "NVIDIA's CUDA headers (cuda_fp8.h) were not found when this was built: the cuda "  \
                  "dialect is not checked against NVIDIA's functions (install the CUDA toolkit or set " \
                  "CUDA_HOME, then rebuild)"

std::string describe(FormatId src, FormatId dst, Rounding r, Saturation s, std::uint64_t in, std::uint64_t got,
                     std::uint64_t want) {
  std::ostringstream o;
  o << std::hex << std::uppercase << format(src).name << "->" << format(dst).name << " " << name(r) << " " << name(s)
    << ": input " << in << " softmx " << got << " NVIDIA " << want;
  return o.str();
}

constexpr FormatId kElements[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1,
                                  FormatId::e8m0};
constexpr FormatId kHostFormats[] = {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16};

// Checks every input in `inputs` for every combination NVIDIA offers from src to dst.
void check_all(FormatId src, FormatId dst, const std::vector<std::uint64_t>& inputs, Tally& t) {
  for (Rounding r : kDeterministicRoundings)
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      if (!cudaref::supports(src, dst, r, s)) continue;
      Context c;
      c.rounding = r;
      c.saturation = s;
      for (const char* dialect : kCudaDialects) {
        const Converter conv(src, dst, c, *find_dialect(dialect));
        for (std::uint64_t x : inputs) {
          const std::uint64_t want = *cudaref::convert(src, dst, x, r, s);
          const std::uint64_t got = conv(x).code;
          t.check(got == want, [&] { return std::string(dialect) + " " + describe(src, dst, r, s, x, got, want); });
        }
      }
    }
}

TEST(CudaReference, Every16BitInputIntoEveryElement) {
  SKIP_WITHOUT_CUDA_HEADERS();
  std::vector<std::uint64_t> all(65536);
  for (std::uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  for (FormatId src : {FormatId::f16, FormatId::bf16}) {
    Tally t("cuda " + std::string(format(src).name) + " (all 65536) -> every element format, every NVIDIA mode");
    for (FormatId dst : kElements) check_all(src, dst, all, t);
    t.report();
  }
}

TEST(CudaReference, EveryElementCodeDecoded) {
  SKIP_WITHOUT_CUDA_HEADERS();
  Tally t("cuda every element code -> f64, f32, f16, bf16");
  for (FormatId src : kElements) {
    std::vector<std::uint64_t> codes(format(src).code_mask() + 1);
    for (std::uint64_t i = 0; i < codes.size(); ++i) codes[i] = i;
    for (FormatId dst : kHostFormats) check_all(src, dst, codes, t);
  }
  t.report();
}

TEST(CudaReference, F64SpecialsBoundariesAndRandom) {
  SKIP_WITHOUT_CUDA_HEADERS();
  Tally t("cuda f64 specials, boundaries and 400000 random per element format");
  for (FormatId dst : kElements) {
    auto in = conformance::boundary_inputs(FormatId::f64, dst, 3);
    auto rnd = conformance::random_inputs(FormatId::f64, dst, 400000, 0xC0DA + static_cast<unsigned>(dst));
    in.insert(in.end(), rnd.begin(), rnd.end());
    check_all(FormatId::f64, dst, in, t);
  }
  t.report();
}

TEST(CudaReference, F32SpecialsAndBoundariesBothSaturations) {
  // The f32 sweeps cover every input under the saturation NVIDIA's FP6/FP4 functions ignore;
  // here both saturations are checked around every boundary.
  SKIP_WITHOUT_CUDA_HEADERS();
  Tally t("cuda f32 specials and boundaries, both saturations");
  for (FormatId dst : kElements) check_all(FormatId::f32, dst, conformance::boundary_inputs(FormatId::f32, dst, 4), t);
  t.report();
}

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
// Catalogue entry I (a header function) through capture::evaluate, against each cuda dialect:
// every input of a 16-bit or narrower source, and f32's specials and boundaries.
template <std::size_t I>
void check_capture(Tally& t, int& checked) {
  constexpr capture::Call C = capture::kCaptures[I];
  if constexpr (capture::needs(C) == capture::Needs::any) {
    const FormatId src = capture::format_of(C.from), dst = capture::format_of(C.to);
    std::vector<std::uint64_t> inputs;
    if (src == FormatId::f32) {
      inputs = conformance::boundary_inputs(FormatId::f32, dst, 4);
    } else {
      for (std::uint64_t x = 0; x <= format(src).code_mask(); ++x) inputs.push_back(x);
    }
    Context c;
    c.rounding = capture::rounding_of(C.mode);
    c.saturation = capture::saturation_of(C);
    for (const char* dialect : kCudaDialects) {
      const Converter conv(src, dst, c, *find_dialect(dialect));
      for (std::uint64_t x : inputs) {
        const std::uint64_t want = capture::evaluate<I>(static_cast<std::uint32_t>(x)).code;
        const std::uint64_t got = conv(x).code;
        t.check(got == want, [&] {
          return std::string(dialect) + " " + capture::call_text(C).second + " " +
                 describe(src, dst, c.rounding, c.saturation, x, got, want);
        });
      }
    }
    ++checked;
  }
}

template <std::size_t... I>
int check_captures(Tally& t, std::index_sequence<I...>) {
  int checked = 0;
  (check_capture<I>(t, checked), ...);
  return checked;
}
#endif

TEST(CudaReference, EveryCapturedHeaderFunctionInEveryCudaDialect) {
  SKIP_WITHOUT_CUDA_HEADERS();
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
  Tally t("cuda, cuda-sm90, cuda-sm100: the header functions of tools/cuda, through the capture's per-input code");
  // 12 FP8, 12 FP6, 6 FP4, 8 E8M0 encodes and 6 decodes.
  EXPECT_EQ(check_captures(t, std::make_index_sequence<capture::kCaptureCount>{}), 44);
  t.report();
#endif
}

}  // namespace
}  // namespace softmx
