// conformance/support/mpfr_compare.hpp: one input against the MPFR oracle under every
// deterministic mode, both saturations and both tininess rules.
#pragma once

#include <initializer_list>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support/bridge.hpp"
#include "support/report.hpp"

namespace softmx::conformance {

/// (source, destination) for each of `sources` and every named destination format, in
/// all_formats() order: the parameters of the suites that compare whole sources with MPFR.
inline std::vector<std::tuple<FormatId, FormatId>> pairs_into_every_format(std::initializer_list<FormatId> sources) {
  std::vector<std::tuple<FormatId, FormatId>> v;
  for (FormatId src : sources)
    for (const Format& d : all_formats()) v.emplace_back(src, d.id);
  return v;
}

/// Converters for every (mode, saturation, tininess) of one (source, destination, dialect),
/// checked against one oracle::convert_all() call per input.
class MpfrComparison {
 public:
  MpfrComparison(FormatId src, FormatId dst, const Dialect& dialect, std::string label = "")
      : MpfrComparison(format(src), format(dst), dialect, std::move(label)) {}
  /// Any formats, named or runtime: the oracle gets their fields as its own Desc.
  MpfrComparison(const Format& src, const Format& dst, const Dialect& dialect, std::string label = "")
      : src_(src), dst_(dst), osrc_(to_oracle(src)), odst_(to_oracle(dst)), policies_(to_oracle(dialect)),
        label_(std::move(label)) {
    for (const Context& c : all_contexts()) convs_.emplace_back(src, dst, c, dialect);
  }

  /// Counts one case per context of all_contexts() (36) for the source code `x` in `t`, each a mismatch when code or flags differ.
  void check(std::uint64_t x, Tally& t) const {
    const auto all = oracle::convert_all(osrc_, odst_, x, policies_);
    for (const Converter& conv : convs_) {
      const Context& c = conv.context();
      const oracle::Outcome& want = all.at(to_oracle(c.rounding), to_oracle(c.saturation), to_oracle(c.tininess));
      const Result got = conv(x);
      t.check(got.code == want.code && got.flags == want.flags, [&] {
        std::ostringstream o;
        o << std::hex << std::uppercase << label_ << (label_.empty() ? "" : " ") << src_.name << "->"
          << dst_.name << " " << name(c.rounding) << " " << name(c.saturation) << " tiny-" << name(c.tininess)
          << ": input " << x << " softmx " << got.code << "/" << int(got.flags) << " oracle " << want.code << "/"
          << int(want.flags);
        return o.str();
      });
    }
  }

 private:
  Format src_, dst_;
  oracle::Desc osrc_, odst_;
  oracle::Policies policies_;
  std::string label_;
  std::vector<Converter> convs_;
};

}  // namespace softmx::conformance
