// conformance/test_cuda_reference.cpp: the cuda dialect against NVIDIA's own host functions.
//
// Exhaustive over every f16 and bf16 input and every element code decoded; specials,
// boundaries and a large random sample for f64. The every-f32-input sweeps are in
// test_cuda_f32_sweep.cpp. Skipped, saying so, when the CUDA headers were not found at build
// time.
#include <gtest/gtest.h>

#include <sstream>

#include "oracles/cuda_reference.hpp"
#include "softmx/convert.hpp"
#include "support/inputs.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::Tally;

const Dialect& cuda() { return *find_dialect("cuda"); }

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
      const Converter conv(src, dst, c, cuda());
      for (std::uint64_t x : inputs) {
        const std::uint64_t want = *cudaref::convert(src, dst, x, r, s);
        const std::uint64_t got = conv(x).code;
        t.check(got == want, [&] { return describe(src, dst, r, s, x, got, want); });
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

}  // namespace
}  // namespace softmx
