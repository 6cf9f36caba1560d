// emulator/formats.cpp: format lookup by id and by name, and the rules a runtime descriptor
// must follow (docs/SEMANTICS.md 1.1). The textual specs are emulator/format_spec.cpp.
#include <ostream>
#include <string>
#include <utility>

#include "core/ascii.hpp"
#include "core/format_table.hpp"
#include "format_catalog_tables.hpp"

namespace softmx {

const Format& format(FormatId id) {
  if (static_cast<int>(id) >= kFormatCount)
    throw std::invalid_argument("softmx::format: FormatId::runtime has no table entry (a runtime format is its Format "
                                "value: keep it, e.g. Converter::source_format())");
  return detail::fmt(id);
}

std::span<const Format> all_formats() { return detail::kFormats; }

std::ostream& operator<<(std::ostream& os, const FormatName& n) { return os << n.view(); }

namespace detail {

// Canonical names first, then the spellings other libraries use for the same encodings.
// ml_dtypes' and LLVM's FP6/FP4 names end in "fn" although those formats have no NaN at all
// (LLVM: "no infinity or NaN values"): they are the OCP formats here too.
inline constexpr std::pair<std::string_view, FormatId> kNamedAliases[] = {
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
    {"fp6_e3m2", FormatId::e3m2},    {"e3m2fn", FormatId::e3m2},
    {"e2m3", FormatId::e2m3},        {"fp6e2m3", FormatId::e2m3},     {"float6_e2m3fn", FormatId::e2m3},
    {"fp6_e2m3", FormatId::e2m3},    {"e2m3fn", FormatId::e2m3},
    {"e2m1", FormatId::e2m1},        {"fp4", FormatId::e2m1},         {"fp4e2m1", FormatId::e2m1},
    {"float4_e2m1fn", FormatId::e2m1}, {"fp4_e2m1", FormatId::e2m1},  {"e2m1fn", FormatId::e2m1},
    {"int8", FormatId::int8},        {"mxint8", FormatId::int8},
    {"e8m0", FormatId::e8m0},        {"ue8m0", FormatId::e8m0},       {"float8_e8m0fnu", FormatId::e8m0},
    {"e8m0fnu", FormatId::e8m0},
};

std::span<const std::pair<std::string_view, FormatId>> named_aliases() { return kNamedAliases; }

std::optional<FormatId> named_alias(std::string_view lower) {
  for (const auto& [n, id] : kNamedAliases)
    if (lower == n) return id;
  return std::nullopt;
}

}  // namespace detail

std::optional<FormatId> parse_format(std::string_view name) { return detail::named_alias(detail::ascii_lower(name)); }

namespace {

std::string fields_text(int e, int m, SignEncoding sign) {
  return std::string(sign == SignEncoding::none ? "u" : "") + "e" + std::to_string(e) + "m" + std::to_string(m);
}

[[noreturn]] void bad(const char* field, const std::string& what) {
  throw FormatError(field, std::string("format: ") + field + ": " + what);
}

}  // namespace

Format make_format(const FormatFields& in) {
  const int e = in.exp_bits, m = in.man_bits;
  if (e < 0 || e > 8) bad("exp", "expected 0 to 8 exponent bits, got " + std::to_string(e));
  if (m < 0 || m > 23) bad("man", "expected 0 to 23 fraction bits, got " + std::to_string(m));
  const std::string shape = fields_text(e, m, in.sign);
  const int width = (in.sign != SignEncoding::none ? 1 : 0) + e + m;
  if (width == 0) bad("width", "zero width: " + shape + " has no bits (give it exponent or fraction bits, or a sign)");
  if (width > 32) bad("width", "expected at most 32 bits, " + shape + " has " + std::to_string(width));
  // Every value, and half the smallest positive one, is an f64 normal number: the largest
  // exponent field (2^e - 1) - bias <= 1023 and the smallest quantum's half 2^(-bias - m) (with
  // subnormals; 2^(-bias - 1) without) >= 2^-1022.
  const int bias = in.bias.value_or(default_bias(e));
  const int lo = (1 << e) - 1024, hi = 1021 - m;
  if (bias < lo || bias > hi)
    bad("bias", "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] for " +
                    std::to_string(e) + " exponent and " + std::to_string(m) +
                    " fraction bits (every value must be an f64 normal number), got " + std::to_string(bias));
  if (in.sign == SignEncoding::twos_complement) {
    if (in.specials != Specials::none)
      bad("specials", "a two's complement format has no special codes: expected specials=none");
    if (!in.subnormals)
      bad("subnormals", "a two's complement format needs subnormals=yes (its zero is the all-zeros code)");
  }
  switch (in.specials) {
    case Specials::ieee:
      if (e < 1 || m < 1)
        bad("specials", "ieee needs at least one exponent and one fraction bit (Inf is the all-ones exponent with "
                        "fraction 0, NaN the all-ones exponent with a non-zero fraction); " +
                            shape + " has " + std::to_string(e) + " and " + std::to_string(m) +
                            " (expected specials=fn or none)");
      break;
    case Specials::fnuz:
      if (in.sign != SignEncoding::magnitude)
        bad("specials", "fnuz needs a sign bit (its NaN is the negative-zero code): expected sign=magnitude, or "
                        "specials=fn or none");
      if (!in.subnormals)
        bad("specials", "fnuz needs subnormals=yes (its NaN takes the code of -0, which exists only when exponent "
                        "field 0 holds zero)");
      break;
    case Specials::extended:
      if (in.sign == SignEncoding::twos_complement)
        bad("specials", "extended (P3109) needs sign=magnitude or sign=none");
      if (!in.subnormals)
        bad("specials", "extended (P3109) needs subnormals=yes (exponent field 0 holds its zero; signed, its NaN "
                        "takes the code of -0)");
      break;
    case Specials::fn:
    case Specials::none: break;
  }
  if (in.fixed_point && !(e <= 1 && in.subnormals))
    bad("fixed", "fixed=yes needs uniformly spaced values: at most 1 exponent bit and subnormals=yes (" + shape +
                     " has " + std::to_string(e) + " exponent bits)");
  Format f;
  f.id = FormatId::runtime;
  f.width = static_cast<std::uint8_t>(width);
  f.exp_bits = static_cast<std::uint8_t>(e);
  f.man_bits = static_cast<std::uint8_t>(m);
  f.bias = static_cast<std::int16_t>(bias);
  f.sign = in.sign;
  f.specials = in.specials;
  f.subnormals = in.subnormals;
  f.fixed_point = in.fixed_point;
  // At least one finite non-zero value (code 0 is one when exponent field 0 holds no zero).
  if (f.subnormals && f.max_finite_magnitude() == 0)
    bad("specials", "the format " + shape + " with these specials has no finite non-zero value");
  for (const Format& n : detail::kFormats)
    if (n == f) return n;
  f.name = FormatName(format_spec(f));
  return f;
}

FormatFields fields_of(const Format& f) {
  return {.sign = f.sign, .exp_bits = f.exp_bits, .man_bits = f.man_bits, .bias = f.bias, .specials = f.specials,
          .subnormals = f.subnormals, .fixed_point = f.fixed_point};
}

Format canonical_format(const Format& f) {
  for (const Format& n : detail::kFormats)
    if (n == f) return n;
  const int width = (f.sign != SignEncoding::none ? 1 : 0) + f.exp_bits + f.man_bits;
  if (f.width != width)
    bad("width", "expected sign + exponent + fraction bits = " + std::to_string(width) + " bits, the descriptor says " +
                     std::to_string(f.width));
  return make_format(fields_of(f));
}

}  // namespace softmx
