// conformance/test_mpfr_exhaustive.cpp: softmx against the MPFR oracle, exhaustively.
//
// Every f16 and every bf16 input into every destination, and every code of every element
// format (and E8M0) into every destination; each under every deterministic rounding mode,
// both saturations, both tininess rules, and five policy sets (ocp, cuda's policies, and
// variants that flip every knob). Codes and flags must match exactly.
#include <gtest/gtest.h>

#include <tuple>

#include "support/mpfr_compare.hpp"

namespace softmx {
namespace {

using conformance::Tally;

// Checks `n` consecutive codes from 0 of src into dst under every mode, saturation, tininess
// and policy set.
void check_range(FormatId src, FormatId dst, std::uint64_t n, Tally& t) {
  for (const auto& ps : conformance::policy_sets()) {
    const conformance::MpfrComparison cmp(src, dst, ps.dialect, ps.name);
    for (std::uint64_t x = 0; x < n; ++x) cmp.check(x, t);
  }
}

using Pair = std::tuple<FormatId, FormatId>;
class Every16BitInput : public ::testing::TestWithParam<Pair> {};

TEST_P(Every16BitInput, MatchesMpfr) {
  const auto [src, dst] = GetParam();
  Tally t("mpfr exhaustive " + std::string(format(src).name) + " (all 65536) -> " + std::string(format(dst).name));
  check_range(src, dst, 65536, t);
  t.report();
}

std::vector<Pair> sixteen_bit_pairs() { return conformance::pairs_into_every_format({FormatId::f16, FormatId::bf16}); }

std::string pair_name(const ::testing::TestParamInfo<Pair>& i) {
  return std::string(format(std::get<0>(i.param)).name) + "_to_" + std::string(format(std::get<1>(i.param)).name);
}

INSTANTIATE_TEST_SUITE_P(Mpfr, Every16BitInput, ::testing::ValuesIn(sixteen_bit_pairs()), pair_name);

TEST(EveryElementCode, IntoEveryFormatMatchesMpfr) {
  for (FormatId src : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8,
                       FormatId::e8m0}) {
    Tally t("mpfr exhaustive every " + std::string(format(src).name) + " code -> every format");
    for (const Format& d : all_formats()) check_range(src, d.id, format(src).code_mask() + 1, t);
    t.report();
  }
}

}  // namespace
}  // namespace softmx
