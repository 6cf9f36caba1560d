// emulator/formats.cpp: format lookup by id and by name.
#include <string>
#include <utility>

#include "core/ascii.hpp"
#include "core/format_table.hpp"

namespace softmx {

const Format& format(FormatId id) { return detail::fmt(id); }

std::span<const Format> all_formats() { return detail::kFormats; }

std::optional<FormatId> parse_format(std::string_view name) {
  const std::string s = detail::ascii_lower(name);
  // Canonical names first, then the spellings other libraries use for the same encodings.
  static constexpr std::pair<std::string_view, FormatId> kNames[] = {
      {"f64", FormatId::f64},          {"fp64", FormatId::f64},         {"double", FormatId::f64},
      {"float64", FormatId::f64},      {"binary64", FormatId::f64},
      {"f32", FormatId::f32},          {"fp32", FormatId::f32},         {"float", FormatId::f32},
      {"float32", FormatId::f32},      {"binary32", FormatId::f32},
      {"f16", FormatId::f16},          {"fp16", FormatId::f16},         {"half", FormatId::f16},
      {"float16", FormatId::f16},      {"binary16", FormatId::f16},
      {"bf16", FormatId::bf16},        {"bfloat16", FormatId::bf16},
      {"e4m3", FormatId::e4m3},        {"fp8e4m3", FormatId::e4m3},     {"e4m3fn", FormatId::e4m3},
      {"float8_e4m3fn", FormatId::e4m3}, {"fp8_e4m3", FormatId::e4m3},
      {"e5m2", FormatId::e5m2},        {"fp8e5m2", FormatId::e5m2},     {"float8_e5m2", FormatId::e5m2},
      {"fp8_e5m2", FormatId::e5m2},
      {"e3m2", FormatId::e3m2},        {"fp6e3m2", FormatId::e3m2},     {"float6_e3m2fn", FormatId::e3m2},
      {"fp6_e3m2", FormatId::e3m2},
      {"e2m3", FormatId::e2m3},        {"fp6e2m3", FormatId::e2m3},     {"float6_e2m3fn", FormatId::e2m3},
      {"fp6_e2m3", FormatId::e2m3},
      {"e2m1", FormatId::e2m1},        {"fp4", FormatId::e2m1},         {"fp4e2m1", FormatId::e2m1},
      {"float4_e2m1fn", FormatId::e2m1}, {"fp4_e2m1", FormatId::e2m1},
      {"int8", FormatId::int8},        {"mxint8", FormatId::int8},
      {"e8m0", FormatId::e8m0},        {"ue8m0", FormatId::e8m0},       {"float8_e8m0fnu", FormatId::e8m0},
      {"e8m0fnu", FormatId::e8m0},
  };
  for (const auto& [n, id] : kNames)
    if (s == n) return id;
  return std::nullopt;
}

}  // namespace softmx
