// softmx/flags.hpp: the exception flags returned with every result.
//
// The bit layout is TestFloat's, so a flags byte can be written to vector files as two hex
// digits unchanged. docs/SEMANTICS.md section 5.1 says when conversions raise each flag.
#pragma once

#include <cstdint>
#include <string>

namespace softmx {

/// A set of exception flags (bit0 inexact, bit1 underflow, bit2 overflow, bit3 infinite,
/// bit4 invalid).
using Flags = std::uint8_t;

namespace flag {
inline constexpr Flags inexact = 0x01;    ///< x: the delivered value differs from the exact one
inline constexpr Flags underflow = 0x02;  ///< u: tiny and inexact
inline constexpr Flags overflow = 0x04;   ///< o: too large for the destination after rounding
inline constexpr Flags infinite = 0x08;   ///< i: divide by zero (never raised by conversions)
inline constexpr Flags invalid = 0x10;    ///< v: no meaningful result (see SEMANTICS 5.1)
inline constexpr Flags all = 0x1F;
}  // namespace flag

/// TestFloat's spelling: the letters "vioux" for the raised flags, in that order, with '.'
/// for each flag that is clear ("....x" is inexact only).
std::string flags_letters(Flags f);

/// The raised flags as words separated by '|' ("overflow|inexact"), or "none".
std::string flags_words(Flags f);

}  // namespace softmx
