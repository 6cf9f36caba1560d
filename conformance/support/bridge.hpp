// conformance/support/bridge.hpp: from softmx's types to the oracle's own.
//
// The MPFR oracle shares no code or types with the emulator; this maps names and policy values
// across, and builds the dialect variants the suites run against it.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracles/mpfr_oracle.hpp"
#include "softmx/convert.hpp"

namespace softmx::conformance {

inline oracle::Fmt to_oracle(FormatId f) { return *oracle::fmt_from_name(format(f).name); }

/// A descriptor's fields in the oracle's own type (field by field; the oracle derives everything
/// else from SEMANTICS.md itself).
inline oracle::Desc to_oracle(const Format& f) {
  oracle::Desc d;
  d.sign = f.sign == SignEncoding::magnitude ? oracle::Desc::Sign::magnitude
           : f.sign == SignEncoding::twos_complement ? oracle::Desc::Sign::twos
                                                     : oracle::Desc::Sign::none;
  d.exp_bits = f.exp_bits;
  d.man_bits = f.man_bits;
  d.bias = f.bias;
  switch (f.specials) {
    case Specials::ieee: d.specials = oracle::Desc::Specials::ieee; break;
    case Specials::fn: d.specials = oracle::Desc::Specials::fn; break;
    case Specials::fnuz: d.specials = oracle::Desc::Specials::fnuz; break;
    case Specials::none: d.specials = oracle::Desc::Specials::none; break;
    case Specials::extended:  // IEEE P3109: conformance/oracles/p3109_oracle.* is its oracle
      throw std::logic_error("to_oracle: " + std::string(f.name) + " is a P3109 extended format, which this oracle "
                             "does not model (use conformance/oracles/p3109_oracle.hpp)");
  }
  d.subnormals = f.subnormals;
  d.fixed = f.fixed_point;
  return d;
}
inline oracle::Mode to_oracle(Rounding r) { return static_cast<oracle::Mode>(static_cast<int>(r)); }
/// finite, none or propagate; by_destination is a default the emulator resolves, not a rule the
/// oracle knows: a test that passes it on has a bug, and this says so.
inline oracle::Sat to_oracle(Saturation s) {
  switch (s) {
    case Saturation::finite: return oracle::Sat::finite;
    case Saturation::none: return oracle::Sat::none;
    case Saturation::propagate: return oracle::Sat::propagate;
    case Saturation::by_destination: break;
  }
  throw std::logic_error("to_oracle: Saturation::by_destination must be resolved (softmx::resolve) first");
}
inline oracle::Tiny to_oracle(Tininess t) {
  switch (t) {
    case Tininess::after_rounding: return oracle::Tiny::after;
    case Tininess::before_rounding: return oracle::Tiny::before;
    case Tininess::after_bounded: return oracle::Tiny::after_bounded;
  }
  throw std::logic_error("to_oracle: unknown Tininess");
}

inline oracle::Policies to_oracle(const Dialect& d) {
  oracle::Policies p;
  p.nan_sign = static_cast<oracle::Policies::NanSign>(static_cast<int>(d.nan_sign));
  for (const Format& f : all_formats()) {
    const int i = static_cast<int>(f.id);
    const int o = static_cast<int>(to_oracle(f.id));
    p.nan_payload[o] = static_cast<oracle::Policies::Payload>(static_cast<int>(d.nan_payload[i]));
    p.nan_canonical_ones[o] = d.nan_canonical_ones[i];
  }
  p.nan_payload_path_count = d.nan_payload_path_count;
  for (int i = 0; i < d.nan_payload_path_count && i < kMaxNanPayloadPaths; ++i)
    p.nan_payload_paths[i] = {to_oracle(d.nan_payload_paths[i].src), to_oracle(d.nan_payload_paths[i].dst),
                              static_cast<oracle::Policies::Payload>(static_cast<int>(d.nan_payload_paths[i].payload))};
  p.runtime_nan_payload = static_cast<oracle::Policies::Payload>(static_cast<int>(d.runtime.nan_payload));
  p.runtime_nan_canonical_ones = d.runtime.nan_canonical_ones;
  p.nan_to_finite = static_cast<oracle::Policies::NanToFinite>(static_cast<int>(d.nan_to_finite));
  p.nan_finite_value = d.nan_finite_value;
  p.e8m0_below_nan = d.e8m0_below == E8m0Below::nan;
  p.e8m0_zero_nan = d.e8m0_zero == E8m0Zero::nan;
  p.e8m0_zero_min_if_satfinite = d.e8m0_zero == E8m0Zero::min_if_satfinite;
  p.e8m0_lowest_binade_rounds_up = d.e8m0_lowest_binade_rounds_up;
  p.e8m0_negative_magnitude = d.e8m0_negative == E8m0Negative::magnitude;
  p.e8m0_negative_min_if_satfinite = d.e8m0_negative == E8m0Negative::min_if_satfinite;
  p.satfinite_inf_as_none = d.satfinite_inf == SatfiniteInf::as_none;
  p.e8m0_ties_up = d.e8m0_ties == E8m0Ties::up;
  p.int8_minus2 = d.int8_minus2;
  p.ties_toward_zero = d.nearest_ties == NearestTies::toward_zero;
  p.zeros_positive = d.zero_sign == ZeroSign::positive;
  p.overflow_no_inf_max = d.overflow_no_inf == OverflowNoInf::max_finite;
  p.ro_overflow_odd_code = d.ro_overflow == RoOverflow::odd_code;
  p.negative_saturate_zero = d.e8m0_negative == E8m0Negative::saturate_zero;
  return p;
}

/// Every deterministic rounding mode x both saturations x every tininess rule (after, before,
/// after-bounded: 36 contexts), in that nesting order.
inline std::vector<Context> all_contexts() {
  std::vector<Context> v;
  for (Rounding r : kDeterministicRoundings)
    for (Saturation s : {Saturation::finite, Saturation::none})
      for (Tininess tn : kTininessRules) {
        Context c;
        c.rounding = r;
        c.saturation = s;
        c.tininess = tn;
        v.push_back(c);
      }
  return v;
}

/// A dialect's policies with every destination, mode and saturation allowed: the suites check
/// the policy logic against the oracle beyond what the modelled implementation offers.
inline Dialect policies_only(const Dialect& d) {
  Dialect p = d;
  // The runtime formats a dialect reads and writes are listed by its name (amd-gfx942: the
  // FNUZ ones, emulator/dialects.cpp kRuntimeOnly); a name of its own lifts that list too.
  p.name = "policies-only";
  // propagate (IEEE P3109's SatPropagate) stays where the dialect lists it (p3109): it is no
  // mode of the others, and all_contexts() does not iterate it.
  const SaturationSet propagate = saturation_bit(Saturation::propagate);
  for (auto& s : p.support) s = {kAllRoundings, SaturationSet(kAllSaturations | (s.saturations & propagate)), ""};
  p.runtime.refused = {};
  p.runtime.specials = kAllSpecials;
  p.runtime.support = {kAllRoundings, SaturationSet(kAllSaturations | (p.runtime.support.saturations & propagate)), ""};
  return p;
}

struct PolicySet {
  std::string name;
  Dialect dialect;
};

/// Every built-in dialect's policies (once per distinct set: cuda-sm90 and cuda-sm100 convert
/// as cuda, transformer-engine-2025 as transformer-engine and torchao-pre-178817 as torchao
/// once every mode and saturation is allowed), and variants that flip the remaining knobs, so
/// each policy value is checked against the oracle on every input.
inline std::vector<PolicySet> policy_sets() {
  std::vector<PolicySet> v;
  std::vector<oracle::Policies> seen;
  for (const Dialect& d : all_dialects()) {
    const oracle::Policies p = to_oracle(d);
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    v.push_back({std::string(d.name), policies_only(d)});
  }
  Dialect a = policies_only(ocp_dialect());
  a.nan_sign = NanSign::positive;
  a.nan_payload.fill(NanPayload::preserve);
  a.runtime.nan_payload = NanPayload::preserve;
  a.nan_to_finite = NanToFinite::signed_max;
  a.e8m0_below = E8m0Below::nan;
  a.e8m0_negative = E8m0Negative::magnitude;
  a.e8m0_ties = E8m0Ties::up;
  a.int8_minus2 = true;
  v.push_back({"variant-a", a});
  Dialect b = policies_only(ocp_dialect());
  b.nan_payload.fill(NanPayload::all_ones);
  b.runtime.nan_payload = NanPayload::all_ones;
  for (auto& n : b.nan_canonical_ones) n = 5;
  b.runtime.nan_canonical_ones = 3;
  b.nan_to_finite = NanToFinite::negative_zero;
  b.int8_minus2 = true;
  v.push_back({"variant-b", b});
  Dialect c = policies_only(ocp_dialect());
  c.nan_to_finite = NanToFinite::positive_zero;
  c.e8m0_below = E8m0Below::nan;
  c.e8m0_lowest_binade_rounds_up = true;
  v.push_back({"variant-c", c});
  // The values issue 15 added, in combinations no built-in dialect has: Inf kept under saturation
  // finite with e8m0 negatives by magnitude; exact and signalling_one as destination rules and as
  // paths from 16-bit sources and element codes.
  Dialect e = policies_only(ocp_dialect());
  e.satfinite_inf = SatfiniteInf::as_none;
  e.e8m0_negative = E8m0Negative::magnitude;
  e.e8m0_zero = E8m0Zero::min_if_satfinite;
  e.nan_payload.fill(NanPayload::exact);
  e.nan_payload[static_cast<int>(FormatId::f16)] = NanPayload::signalling_one;
  e.nan_payload_paths[0] = {FormatId::f16, FormatId::f32, NanPayload::signalling_one};
  e.nan_payload_paths[1] = {FormatId::bf16, FormatId::e5m2, NanPayload::preserve};
  e.nan_payload_paths[2] = {FormatId::e5m2, FormatId::bf16, NanPayload::all_ones};
  e.nan_payload_paths[3] = {FormatId::e8m0, FormatId::f64, NanPayload::exact};
  e.nan_payload_path_count = 4;
  v.push_back({"variant-e", e});
  // The values the p3109 dialect added, with other dialects' neighbours: overflow and Inf into
  // e4m3, e8m0 and fnuz give +-max under none (also an Inf under finite, by satfinite_inf
  // as_none), ro's odd code, and e8m0 negatives rounded then saturated to code 0, with e8m0
  // zeros given by saturation.
  Dialect f = policies_only(ocp_dialect());
  f.overflow_no_inf = OverflowNoInf::max_finite;
  f.ro_overflow = RoOverflow::odd_code;
  f.e8m0_negative = E8m0Negative::saturate_zero;
  f.satfinite_inf = SatfiniteInf::as_none;
  f.e8m0_zero = E8m0Zero::min_if_satfinite;
  // e8m0_below stays clamp_min, as in p3109: with below = nan, a format without a NaN (ue4m0:
  // subnormals=no) gets nan_to_finite's value, whose order against saturate_zero no dialect and
  // no document settles.
  f.nan_to_finite = NanToFinite::signed_max;
  v.push_back({"variant-f", f});
  return v;
}

}  // namespace softmx::conformance
