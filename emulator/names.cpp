// emulator/names.cpp: names of rounding modes, saturations, tininess and flags.
#include <string>
#include <utility>

#include "core/ascii.hpp"
#include "softmx/context.hpp"
#include "softmx/flags.hpp"

namespace softmx {
namespace {

template <class T, std::size_t N>
std::optional<T> lookup(std::string_view s, const std::pair<std::string_view, T> (&table)[N]) {
  const std::string k = detail::ascii_lower(s);
  for (const auto& [n, v] : table)
    if (k == n) return v;
  return std::nullopt;
}

}  // namespace

std::string_view name(Rounding r) {
  switch (r) {
    case Rounding::rne: return "rne";
    case Rounding::rna: return "rna";
    case Rounding::rz: return "rz";
    case Rounding::ru: return "ru";
    case Rounding::rd: return "rd";
    case Rounding::ro: return "ro";
    case Rounding::rs: return "rs";
  }
  return "?";
}

std::string_view name(Saturation s) {
  switch (s) {
    case Saturation::finite: return "finite";
    case Saturation::none: return "none";
    case Saturation::by_destination: return "by-destination";
  }
  return "?";
}
std::string_view name(Tininess t) { return t == Tininess::after_rounding ? "after" : "before"; }

std::optional<Rounding> parse_rounding(std::string_view s) {
  static constexpr std::pair<std::string_view, Rounding> kNames[] = {
      {"rne", Rounding::rne}, {"rn", Rounding::rne},          {"nearest-even", Rounding::rne},
      {"rna", Rounding::rna}, {"nearest-away", Rounding::rna},
      {"rz", Rounding::rz},   {"zero", Rounding::rz},          {"toward-zero", Rounding::rz},
      {"ru", Rounding::ru},   {"up", Rounding::ru},            {"rp", Rounding::ru},
      {"rd", Rounding::rd},   {"down", Rounding::rd},          {"rm", Rounding::rd},
      {"ro", Rounding::ro},   {"odd", Rounding::ro},
      {"rs", Rounding::rs},   {"stochastic", Rounding::rs},
  };
  return lookup(s, kNames);
}

std::optional<Saturation> parse_saturation(std::string_view s) {
  static constexpr std::pair<std::string_view, Saturation> kNames[] = {
      {"finite", Saturation::finite}, {"satfinite", Saturation::finite}, {"sat", Saturation::finite},
      {"none", Saturation::none},     {"nosat", Saturation::none},       {"nonsat", Saturation::none},
  };
  return lookup(s, kNames);
}

std::optional<Tininess> parse_tininess(std::string_view s) {
  static constexpr std::pair<std::string_view, Tininess> kNames[] = {
      {"after", Tininess::after_rounding}, {"before", Tininess::before_rounding}};
  return lookup(s, kNames);
}

std::string flags_letters(Flags f) {
  // TestFloat's order: invalid, infinite, overflow, underflow, inexact.
  std::string s = ".....";
  if (f & flag::invalid) s[0] = 'v';
  if (f & flag::infinite) s[1] = 'i';
  if (f & flag::overflow) s[2] = 'o';
  if (f & flag::underflow) s[3] = 'u';
  if (f & flag::inexact) s[4] = 'x';
  return s;
}

std::string flags_words(Flags f) {
  static constexpr std::pair<Flags, std::string_view> kWords[] = {
      {flag::invalid, "invalid"}, {flag::infinite, "infinite"}, {flag::overflow, "overflow"},
      {flag::underflow, "underflow"}, {flag::inexact, "inexact"}};
  std::string s;
  for (const auto& [bit, word] : kWords)
    if (f & bit) {
      if (!s.empty()) s += '|';
      s += word;
    }
  return s.empty() ? "none" : s;
}

}  // namespace softmx
