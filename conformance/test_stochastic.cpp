// conformance/test_stochastic.cpp: stochastic rounding (rs) against the MPFR oracle, and its
// frequency.
//
// Every f16 input into every destination with seeded random (r, R) pairs; f32 and f64 random
// inputs with r from 1 to 64; and a statistical check that with R uniform the frequency of
// rounding away matches F / 2^r.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/inputs.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

void check(FormatId src, FormatId dst, std::uint64_t x, unsigned r, std::uint64_t R, Saturation s, Tininess tn,
           const conformance::PolicySet& ps, conformance::Tally& t) {
  Context c;
  c.rounding = Rounding::rs;
  c.saturation = s;
  c.tininess = tn;
  c.rbits_width = static_cast<std::uint8_t>(r);
  c.rbits = R;
  const Result got = convert(src, dst, x, c, ps.dialect);
  const oracle::Outcome want =
      oracle::convert_rs(conformance::to_oracle(src), conformance::to_oracle(dst), x, r, R, conformance::to_oracle(s),
                         conformance::to_oracle(tn), conformance::to_oracle(ps.dialect));
  t.check(got.code == want.code && got.flags == want.flags, [&] {
    std::ostringstream o;
    o << std::hex << std::uppercase << ps.name << " " << format(src).name << "->" << format(dst).name << " r=" << std::dec
      << r << std::hex << " R=" << R << " " << name(s) << " input " << x << " softmx " << got.code << "/"
      << int(got.flags) << " oracle " << want.code << "/" << int(want.flags);
    return o.str();
  });
}

std::uint64_t random_r_bits(SplitMix64& rng, unsigned r) {
  return r == 64 ? rng.next() : rng.next() & ((std::uint64_t{1} << r) - 1);
}

TEST(Stochastic, Every16BitInputMatchesMpfr) {
  const auto sets = conformance::policy_sets();
  for (FormatId src : {FormatId::f16, FormatId::bf16}) {
    conformance::Tally t("mpfr rs every " + std::string(format(src).name) + " input x 2 random (r, R) -> every format");
    SplitMix64 rng(0x5700 + static_cast<unsigned>(src));
    for (const Format& d : all_formats())
      for (std::uint64_t x = 0; x < 65536; ++x)
        for (int k = 0; k < 2; ++k) {
          const unsigned r = 1 + static_cast<unsigned>(rng.below(k ? 64 : 12));
          const Saturation s = rng.below(2) ? Saturation::finite : Saturation::none;
          const Tininess tn = rng.below(2) ? Tininess::after_rounding : Tininess::before_rounding;
          check(src, d.id, x, r, random_r_bits(rng, r), s, tn, sets[rng.below(sets.size())], t);
        }
    t.report();
  }
}

TEST(Stochastic, WideSourcesMatchMpfr) {
  const auto sets = conformance::policy_sets();
  conformance::Tally t("mpfr rs f32/f64 boundaries and random inputs, r in 1..64 -> every format");
  SplitMix64 rng(0x57F64);
  for (FormatId src : {FormatId::f32, FormatId::f64})
    for (const Format& d : all_formats()) {
      auto in = conformance::boundary_inputs(src, d.id, 1);
      if (in.size() > 40000) in.resize(40000);
      const auto rnd = conformance::random_inputs(src, d.id, 40000, rng.next());
      in.insert(in.end(), rnd.begin(), rnd.end());
      for (std::uint64_t x : in) {
        const unsigned r = 1 + static_cast<unsigned>(rng.below(64));
        check(src, d.id, x, r, random_r_bits(rng, r), rng.below(2) ? Saturation::finite : Saturation::none,
              Tininess::after_rounding, sets[rng.below(2)], t);
      }
    }
  t.report();
}

// With R uniform over 2^32, the fraction of inputs rounded away from zero approaches F / 2^32.
TEST(Stochastic, FrequencyMatchesTheDiscardedFraction) {
  conformance::Tally t("rs frequency within 5 sigma, 2^16 draws each, r = 32");
  SplitMix64 rng(0xF4E9);
  for (FormatId dst : {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1, FormatId::int8, FormatId::e8m0}) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::uint32_t x = 0x3F800000u + static_cast<std::uint32_t>(rng.below(1u << 23));  // [1, 2)
      Context c;
      c.rounding = Rounding::rs;
      c.rbits_width = 32;
      Context rz = c;
      rz.rounding = Rounding::rz;
      const std::uint64_t down = convert(FormatId::f32, dst, x, rz).code;
      std::uint64_t away = 0;
      constexpr int kDraws = 1 << 16;
      for (int i = 0; i < kDraws; ++i) {
        c.rbits = rng.next() & 0xFFFFFFFFu;
        away += convert(FormatId::f32, dst, x, c).code != down;
      }
      // The exact probability from the oracle's point of view: the discarded fraction.
      const double xv = std::ldexp(static_cast<double>(x & 0x7FFFFF) + 0x800000, -23);
      const Result lo = convert(FormatId::f32, FormatId::f64, convert(dst, FormatId::f32, down, Context{}).code, Context{});
      double lov;
      std::memcpy(&lov, &lo.code, 8);
      Context ru = rz;
      ru.rounding = Rounding::ru;
      const std::uint64_t up = convert(FormatId::f32, dst, x, ru).code;
      const Result hi = convert(FormatId::f32, FormatId::f64, convert(dst, FormatId::f32, up, Context{}).code, Context{});
      double hiv;
      std::memcpy(&hiv, &hi.code, 8);
      const double p = hiv == lov ? 0 : (xv - lov) / (hiv - lov);
      const double sigma = std::sqrt(p * (1 - p) / kDraws) + 1e-9;
      const double freq = static_cast<double>(away) / kDraws;
      t.check(std::fabs(freq - p) <= 5 * sigma + 1.0 / kDraws, [&] {
        return std::string(format(dst).name) + " x=" + std::to_string(xv) + " p=" + std::to_string(p) +
               " freq=" + std::to_string(freq);
      });
    }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
