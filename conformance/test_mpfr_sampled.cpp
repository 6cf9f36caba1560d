// conformance/test_mpfr_sampled.cpp: f32 and f64 sources against the MPFR oracle.
//
// For each destination: every rounding boundary (each representable value and each midpoint,
// the virtual ones above max finite included, both signs) with its nearest source bit patterns
// on either side, the source's specials, and a large seeded random sample; under every
// deterministic mode, both saturations, both tininess rules, and the policy sets.
#include <gtest/gtest.h>

#include <tuple>

#include "support/inputs.hpp"
#include "support/mpfr_compare.hpp"

namespace softmx {
namespace {

using Pair = std::tuple<FormatId, FormatId>;
class SampledSource : public ::testing::TestWithParam<Pair> {};

constexpr std::size_t kRandomPerPair = 500000;

TEST_P(SampledSource, MatchesMpfr) {
  const auto [src, dst] = GetParam();
  // f16 and bf16 destinations have tens of thousands of boundaries: one neighbour each side.
  const int k = format(dst).width == 16 ? 1 : 3;
  auto inputs = conformance::boundary_inputs(src, dst, k);
  const std::size_t boundaries = inputs.size();
  const auto rnd = conformance::random_inputs(src, dst, kRandomPerPair, 0x5A3D1E + 977 * static_cast<unsigned>(dst) +
                                                                             31 * static_cast<unsigned>(src));
  inputs.insert(inputs.end(), rnd.begin(), rnd.end());
  conformance::Tally t("mpfr sampled " + std::string(format(src).name) + " -> " + std::string(format(dst).name) + " (" +
                       std::to_string(boundaries) + " boundary + " + std::to_string(kRandomPerPair) + " random inputs)");
  const auto sets = conformance::policy_sets();
  for (std::size_t p = 0; p < sets.size(); ++p) {
    // Random inputs under ocp and cuda's policies; boundaries under every policy set.
    const std::size_t n = p < 2 ? inputs.size() : boundaries;
    const conformance::MpfrComparison cmp(src, dst, sets[p].dialect, sets[p].name);
    for (std::size_t i = 0; i < n; ++i) cmp.check(inputs[i], t);
  }
  t.report();
}

std::vector<Pair> pairs() { return conformance::pairs_into_every_format({FormatId::f32, FormatId::f64}); }

INSTANTIATE_TEST_SUITE_P(Mpfr, SampledSource, ::testing::ValuesIn(pairs()), [](const auto& i) {
  return std::string(format(std::get<0>(i.param)).name) + "_to_" + std::string(format(std::get<1>(i.param)).name);
});

}  // namespace
}  // namespace softmx
