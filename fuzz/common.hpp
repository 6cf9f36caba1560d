// fuzz/common.hpp: what the fuzz targets share.
#pragma once

#include <string_view>

#include "softmx/exact.hpp"

namespace softmx::fuzz {

/// True for text whose written exponent ('e' of a decimal, 'p' of a hex float) is from 1000 up
/// to parse_exact's limit (kMaxParsedExponent) in magnitude. Such values are correct but slow,
/// quadratically in the exponent: parse_exact("1e-99999") takes about 0.3 s in a Release build
/// and over 10 s under ASan, UBSan and coverage, "3.14e-9317" about 0.4 s there (Boost 1.74
/// normalizes the rational m/10^k with a binary GCD, quadratic when one operand is short). The
/// targets skip them so that a run is spent on parsing, not on Boost's GCD; exponents beyond the
/// limit still go in (parse_exact rejects them at once).
inline bool slow_exponent(std::string_view text) {
  std::size_t i = text.find_first_not_of("+-");
  const bool hex = i != std::string_view::npos && i + 1 < text.size() && text[i] == '0' &&
                   (text[i + 1] == 'x' || text[i + 1] == 'X');
  i = text.find_first_of(hex ? "pP" : "eE");
  if (i == std::string_view::npos) return false;
  ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  long v = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    v = v * 10 + (text[i] - '0');
    if (v > kMaxParsedExponent) return false;
  }
  return v >= 1000;
}

}  // namespace softmx::fuzz
