// emulator/names.cpp: names of rounding modes, saturations, tininess and flags.
#include <string>
#include <utility>

#include "core/enum_names.hpp"
#include "softmx/context.hpp"
#include "softmx/flags.hpp"

namespace softmx {
namespace {

using detail::EnumName;
using detail::enum_name;
using detail::enum_parse;

// One table per enum (core/enum_names.hpp): the first row of a value is its name, the others
// the spellings also accepted.
constexpr EnumName<Rounding> kRounding[] = {
    {Rounding::rne, "rne"}, {Rounding::rne, "rn"},          {Rounding::rne, "nearest-even"},
    {Rounding::rna, "rna"}, {Rounding::rna, "nearest-away"},
    {Rounding::rz, "rz"},   {Rounding::rz, "zero"},          {Rounding::rz, "toward-zero"},
    {Rounding::ru, "ru"},   {Rounding::ru, "up"},            {Rounding::ru, "rp"},
    {Rounding::rd, "rd"},   {Rounding::rd, "down"},          {Rounding::rd, "rm"},
    {Rounding::ro, "ro"},   {Rounding::ro, "odd"},
    {Rounding::rs, "rs"},   {Rounding::rs, "stochastic"},
    // IEEE P3109 interim report v4.0 4.2's names (StochasticB and C: parse_p3109_rounding).
    {Rounding::rne, "nearesttiestoeven"}, {Rounding::rna, "nearesttiestoaway"},
    {Rounding::rz, "towardzero"},         {Rounding::ru, "towardpositive"},
    {Rounding::rd, "towardnegative"},     {Rounding::ro, "toodd"},
    {Rounding::rs, "stochastica"},
};

constexpr EnumName<Saturation> kSaturation[] = {
    {Saturation::finite, "finite"}, {Saturation::finite, "satfinite"}, {Saturation::finite, "sat"},
    {Saturation::none, "none"},     {Saturation::none, "nosat"},       {Saturation::none, "nonsat"},
    // IEEE P3109 interim report v4.0 4.2 (and OvfInf, its exemplars' older name for SatNone).
    {Saturation::none, "satnone"},  {Saturation::none, "ovfinf"},
    {Saturation::propagate, "propagate"}, {Saturation::propagate, "satpropagate"},
    {Saturation::by_destination, "by-destination", false},  // printed, never parsed: it is the unset value
};

constexpr EnumName<Tininess> kTininess[] = {
    {Tininess::after_rounding, "after"},
    {Tininess::before_rounding, "before"},
    {Tininess::after_bounded, "after-bounded"}};

// StochasticRule's names, and P3109's spellings of rs with each rule (parse_p3109_rounding).
constexpr EnumName<StochasticRule> kStochasticRule[] = {
    {StochasticRule::a, "a", false}, {StochasticRule::b, "b", false}, {StochasticRule::c, "c", false},
    {StochasticRule::a, "stochastica"}, {StochasticRule::b, "stochasticb"}, {StochasticRule::c, "stochasticc"}};

}  // namespace

std::string_view name(Rounding r) { return enum_name(r, kRounding); }

std::string_view name(Saturation s) { return enum_name(s, kSaturation); }
std::string_view name(Tininess t) { return enum_name(t, kTininess); }

std::optional<Rounding> parse_rounding(std::string_view s) { return enum_parse(s, kRounding); }

std::string_view name(StochasticRule s) { return enum_name(s, kStochasticRule); }

std::optional<std::pair<Rounding, StochasticRule>> parse_p3109_rounding(std::string_view s) {
  if (const auto r = enum_parse(s, kStochasticRule)) return std::pair{Rounding::rs, *r};
  if (const auto r = parse_rounding(s)) return std::pair{*r, StochasticRule::a};
  return std::nullopt;
}

std::optional<Saturation> parse_saturation(std::string_view s) { return enum_parse(s, kSaturation); }

std::optional<Tininess> parse_tininess(std::string_view s) { return enum_parse(s, kTininess); }

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
