// softmx/describe.hpp: human descriptions of codes and values, for convert and explain.
#pragma once

#include <cstdint>
#include <string>

#include "softmx/exact.hpp"
#include "softmx/format.hpp"
#include "softmx/value.hpp"

namespace softmx {

/// The exact value of a code as decimal text: "448", "-0", "0.001953125", "inf", "NaN",
/// "-NaN" (a NaN's sign bit), "sNaN".
std::string value_text(const Format& f, std::uint64_t code);

/// TestFloat's decomposition: sign, exponent field in hex, '.', fraction field in hex
/// ("+7F.7FFFFF" for f32 max, "+F.6" for e4m3 448, "FE." for e8m0 2^127, and the two's
/// complement integer for int8: "-128/64").
std::string testfloat_text(const Format& f, std::uint64_t code);

/// The bit fields spelled out: "sign 0  exponent 1111 (15: 2^8)  fraction 110".
std::string fields_text(const Format& f, std::uint64_t code);

/// A value as a C99 hex float ("0x1.fffffep+127", "-0x1p-9", "0", "inf", "NaN"); a sticky
/// value (a decimal that is not dyadic) gets "..." before the exponent.
std::string hexfloat_text(const Unpacked& u);

/// A finite non-sticky value in binary scientific notation with `frac_bits` fraction digits
/// ("+1.110 x 2^8"); zero, Inf and NaN spelled out.
std::string binary_text(const Unpacked& u, int frac_bits);

}  // namespace softmx
