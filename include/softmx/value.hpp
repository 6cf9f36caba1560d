// softmx/value.hpp: an exact source value, unpacked, as the round-and-pack core consumes it.
//
// Every source format's values (an f64 has a 53-bit significand) fit exactly. Values that do
// not (a decimal such as 0.1, an exact dot-product sum) keep their leading 64 bits and fold
// everything below into `sticky`, which is enough to round correctly to any destination of at
// most 63 significant bits: the core only needs the discarded bits' leading 64 positions
// (for rs) and whether anything below them is non-zero.
#pragma once

#include <cstdint>

namespace softmx {

/// What kind of value an Unpacked holds.
enum class ValueClass : std::uint8_t {
  zero,    ///< +0 or -0 (sign significant)
  finite,  ///< non-zero finite: (-1)^sign * (sig / 2^63) * 2^exp, plus sticky
  inf,     ///< +Inf or -Inf
  nan,     ///< NaN; see nan_quiet and nan_payload
};

/// An unpacked value.
///
/// For `finite`: sig has its most significant bit (bit 63) set, and the value is
///   (-1)^sign * sig * 2^(exp - 63)   exactly when sticky is false, and strictly between
///   that and the same with sig + 1 when sticky is true.
/// So `exp` is floor(log2 |value|), the unbiased exponent of the leading bit.
///
/// For `nan`: nan_payload holds the source's fraction field left-aligned (its most
/// significant fraction bit at bit 63), and nan_quiet says whether the NaN is quiet. For
/// formats whose NaN is a single code (e4m3, e8m0) the NaN is quiet and the payload is the
/// code's fraction bits as stored (e4m3: 0b111 -> 0xE000...).
struct Unpacked {
  ValueClass cls = ValueClass::zero;
  bool sign = false;            ///< true for negative (also for -0, -Inf, a NaN's sign bit)
  bool sticky = false;          ///< finite only: non-zero bits exist below sig's bit 0
  bool nan_quiet = true;        ///< nan only
  std::int32_t exp = 0;         ///< finite only: floor(log2 |value|)
  std::uint64_t sig = 0;        ///< finite only: normalized, bit 63 set
  std::uint64_t nan_payload = 0;  ///< nan only: fraction field, left-aligned at bit 63
};

}  // namespace softmx
