// emulator/dialects.cpp: the table of named dialects.
//
// Each entry is data: policy values (docs/SEMANTICS.md section 5) and, per destination, the
// rounding modes and saturations the modelled implementation offers. docs/DIALECTS.md says
// where every value comes from.
#include <array>
#include <string>

#include "core/ascii.hpp"
#include "softmx/dialect.hpp"

namespace softmx {
namespace {

constexpr RoundingSet bits(std::initializer_list<Rounding> rs) {
  RoundingSet s = 0;
  for (Rounding r : rs) s |= rounding_bit(r);
  return s;
}

constexpr std::array<DestinationSupport, kFormatCount> all_supported() {
  std::array<DestinationSupport, kFormatCount> a{};
  for (auto& s : a) s = {kAllRoundings, kAllSaturations, ""};
  return a;
}

constexpr void set(std::array<DestinationSupport, kFormatCount>& a, FormatId id, DestinationSupport s) {
  a[static_cast<int>(id)] = s;
}

// The OCP MX v1.0 and OFP8 v1.0 specification. Every mode and saturation is available; the
// implementation-defined points are decided as documented in docs/DIALECTS.md.
constexpr Dialect make_ocp() {
  Dialect d;
  d.name = "ocp";
  d.summary = "OCP MX v1.0 / OFP8 v1.0 as written; implementation-defined points decided and documented";
  d.sources = "OCP Microscaling Formats (MX) v1.0 sections 5-6; OCP 8-bit Floating Point (OFP8) v1.0 "
              "section 5 and table 3; IEEE 754-2019 sections 4.3, 6.2, 7.4 for what they leave open";
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::canonical);
  d.nan_to_finite = NanToFinite::positive_max;
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_negative = E8m0Negative::nan;
  d.e8m0_ties = E8m0Ties::even;
  d.int8_minus2 = false;
  d.support = all_supported();
  return d;
}

// NVIDIA's host/software conversion functions in cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp
// (CUDA 13.0), float and double inputs alike.
constexpr Dialect make_cuda() {
  Dialect d;
  d.name = "cuda";
  d.summary = "what NVIDIA's cuda_fp8.hpp / cuda_fp6.hpp / cuda_fp4.hpp conversion functions compute (CUDA 13.0)";
  d.sources = "CUDA 13.0 headers: __nv_cvt_{float,double,halfraw,bfloat16raw}_to_{fp8,fp6,fp4}, "
              "__nv_cvt_{float,double,bfloat16raw}_to_e8m0, __nv_cvt_fp8_to_halfraw, __nv_cvt_e8m0_to_bf16raw "
              "and the __nv_fp8_e4m3/e5m2/e8m0 operators";
  // The float path replaces any NaN by 0x7FFFFFFF before converting, so FP8 from float/half/bf16
  // gives 0x7F; the double path keeps the sign and, for E5M2, the fraction's next bit.
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::preserve);
  // __float2half_rn and __float2bfloat16_rz return 0x7FFF for every NaN.
  d.nan_payload[static_cast<int>(FormatId::f16)] = NanPayload::all_ones;
  d.nan_payload[static_cast<int>(FormatId::bf16)] = NanPayload::all_ones;
  for (auto& n : d.nan_canonical_ones) n = 23;  // f32 0x7FFFFFFF (f16 widens to it too)
  d.nan_canonical_ones[static_cast<int>(FormatId::f64)] = 0;   // the double path keeps the NaN
  d.nan_canonical_ones[static_cast<int>(FormatId::e8m0)] = 7;  // decodes through bf16 0x7FFF
  // __nv_cvt_double_to_fp6/fp4: "NaN converts to positive MAXNORM".
  d.nan_to_finite = NanToFinite::positive_max;
  // __nv_cvt_bfloat16raw_to_e8m0 takes the exponent field and ignores the sign; zero and tiny
  // values give 0x00.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_negative = E8m0Negative::magnitude;
  d.e8m0_ties = E8m0Ties::even;  // unused: only rz and ru exist
  d.int8_minus2 = false;
  d.support = all_supported();
  const RoundingSet rn = bits({Rounding::rne});
  set(d.support, FormatId::e4m3, {rn, kAllSaturations, "__nv_cvt_*_to_fp8 rounds to nearest even only"});
  set(d.support, FormatId::e5m2, {rn, kAllSaturations, "__nv_cvt_*_to_fp8 rounds to nearest even only"});
  const RoundingSet rn_rz = bits({Rounding::rne, Rounding::rz});
  constexpr std::string_view fp6 = "__nv_cvt_*_to_fp6/fp4 accept cudaRoundNearest and cudaRoundZero only";
  set(d.support, FormatId::e3m2, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e2m3, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e2m1, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e8m0,
      {bits({Rounding::rz, Rounding::ru}), kAllSaturations,
       "__nv_cvt_*_to_e8m0 accept cudaRoundZero and cudaRoundPosInf only"});
  set(d.support, FormatId::int8, {0, 0, "CUDA has no MXINT8 conversion"});
  return d;
}

const std::array<Dialect, 2> kDialects = {make_ocp(), make_cuda()};

std::string rounding_list(RoundingSet set) {
  std::string s;
  for (int i = 0; i < kRoundingCount; ++i)
    if (set & (1u << i)) {
      if (!s.empty()) s += ", ";
      s += name(static_cast<Rounding>(i));
    }
  return s;
}

}  // namespace

const Dialect& ocp_dialect() { return kDialects[0]; }

std::span<const Dialect> all_dialects() { return kDialects; }

const Dialect* find_dialect(std::string_view n) {
  const std::string k = detail::ascii_lower(n);
  for (const Dialect& d : kDialects)
    if (k == d.name) return &d;
  return nullptr;
}

std::optional<std::string> unsupported_reason(const Dialect& d, FormatId dst, const Context& ctx) {
  const DestinationSupport& s = d.support[static_cast<int>(dst)];
  if ((s.roundings & rounding_bit(ctx.rounding)) && (s.saturations & saturation_bit(ctx.saturation)))
    return std::nullopt;
  const std::string where = "dialect " + std::string(d.name) + " cannot convert to " + std::string(format(dst).name);
  if (s.roundings == 0) return where + " (" + std::string(s.why) + ")";
  if (!(s.roundings & rounding_bit(ctx.rounding)))
    return where + " with rounding " + std::string(name(ctx.rounding)) + " (" + std::string(s.why) +
           "); it supports: " + rounding_list(s.roundings);
  if (!(s.saturations & saturation_bit(ctx.saturation)))
    return where + " with saturation " + std::string(name(ctx.saturation)) + " (" + std::string(s.why) + ")";
  return std::nullopt;
}

std::string_view name(NanSign v) { return v == NanSign::preserve ? "preserve" : "positive"; }
std::string_view name(NanPayload v) {
  switch (v) {
    case NanPayload::canonical: return "canonical";
    case NanPayload::preserve: return "preserve";
    case NanPayload::all_ones: return "all_ones";
  }
  return "?";
}
std::string_view name(NanToFinite v) {
  switch (v) {
    case NanToFinite::positive_max: return "positive_max";
    case NanToFinite::signed_max: return "signed_max";
    case NanToFinite::positive_zero: return "positive_zero";
    case NanToFinite::negative_zero: return "negative_zero";
  }
  return "?";
}
std::string_view name(E8m0Below v) { return v == E8m0Below::clamp_min ? "clamp_min" : "nan"; }
std::string_view name(E8m0Negative v) { return v == E8m0Negative::nan ? "nan" : "magnitude"; }
std::string_view name(E8m0Ties v) { return v == E8m0Ties::even ? "even" : "up"; }

}  // namespace softmx
