// softmx/exact.hpp: exact values typed by a person, and exact decimal printing.
//
//   std::string err;
//   auto v = softmx::parse_exact("464.0000000000000000001", &err);  // no double in between
//   softmx::Unpacked u = softmx::to_unpacked(*v);  // exp 8, sig 0xE800..., sticky true
//   softmx::to_string(softmx::from_unpacked(u0));  // "448", "0.001953125", "4.94...e-324"
//
// The parser reads a decimal or C99 hex-float string into an exact rational, so that the one
// rounding happens in round_pack() and nowhere else. to_unpacked() keeps the leading 64 bits
// and folds the rest into sticky, which is all the rounding core needs.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "softmx/value.hpp"

namespace softmx {

using BigInt = boost::multiprecision::cpp_int;
using Rational = boost::multiprecision::cpp_rational;

/// An exact real value, or +-0, +-Inf, NaN.
struct ExactValue {
  ValueClass cls = ValueClass::zero;
  bool sign = false;       ///< true for negative (also -0, -inf, -nan)
  bool nan_quiet = true;   ///< nan only: false for "snan"
  Rational magnitude;      ///< finite only: > 0 (0 for the other classes)
};

/// Largest accepted magnitude of a written decimal ('e') or binary ('p') exponent.
inline constexpr long kMaxParsedExponent = 100000;

/// Parses: decimal ("1.5", "-0", "+2", ".5", "5.", "1e-40", "1.5E+3", "00012"), C99 hex floats
/// ("0x1.8p3", "-0X.1P-2", "0x10p0"; the binary exponent 'p' is required), "inf", "infinity",
/// "nan", "snan", each with an optional sign, case-insensitive. Leading or trailing whitespace
/// is an error (the caller trims). On failure returns nullopt and sets *error (if non-null) to a
/// short phrase saying what was expected. Written exponents whose magnitude exceeds
/// kMaxParsedExponent are rejected ("exponent out of range (limit 100000)").
std::optional<ExactValue> parse_exact(std::string_view text, std::string* error = nullptr);

/// Rounds nothing: the Unpacked with the leading 64 bits of the magnitude in sig (bit 63 set),
/// exp = floor(log2 |x|), sticky = whether any bit below is non-zero. Zero/Inf/NaN map to the
/// matching classes (NaN: nan_quiet as given, nan_payload 0).
/// Throws std::invalid_argument for a finite value whose magnitude is not > 0, and
/// std::out_of_range if floor(log2 |x|) does not fit in int32 (impossible for parsed input of
/// any realistic length).
Unpacked to_unpacked(const ExactValue& v);

/// The exact value of an Unpacked: sig * 2^(exp - 63) for finite (sig need not be normalized).
/// Throws std::invalid_argument for a finite value with sticky set or sig == 0.
/// A NaN keeps its sign and nan_quiet; its payload is dropped (ExactValue has none).
ExactValue from_unpacked(const Unpacked& u);

/// Exact value of sig * 2^exp2 (sig may be any size and sign).
Rational dyadic(const BigInt& sig, long exp2);

/// The ExactValue of a rational: zero (sign false) for 0, else finite with sign and |r|.
ExactValue from_rational(const Rational& r);

/// The signed rational value of a zero or finite ExactValue (0 for -0).
/// Throws std::invalid_argument for inf or nan.
Rational to_rational(const ExactValue& v);

/// Decimal text of a rational. A terminating expansion is printed exactly, every digit: in
/// plain positional notation ("448", "0.001953125", "-1.5") unless that would need more than
/// 24 zeros between the point and the first significant digit, or more than 24 trailing zeros
/// in an integer, in which case scientific notation is used ("4.94...e-324", "1e+25", still
/// every digit). A non-terminating expansion (1/3) is printed as its first `max_digits`
/// significant digits, truncated (not rounded), followed by "..."
/// ("0.3333333333333333333333333333333333333333..."); it uses scientific notation
/// ("3.33...e-30", "3.33...e+49") under the same leading-zero rule or when its integer part has
/// max_digits or more digits. max_digits below 1 counts as 1. Negative values get "-".
std::string to_decimal(const Rational& r, int max_digits = 40);

/// The decimal text of an ExactValue: "0", "-0", "inf", "-inf", "nan", "-nan" ("snan",
/// "-snan" for a signalling NaN, so that the text parses back to the same value), else
/// to_decimal of the signed magnitude.
std::string to_string(const ExactValue& v, int max_digits = 40);

}  // namespace softmx
