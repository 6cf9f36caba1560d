// softmx/dialect.hpp: dialects, the named bundles of policies where implementations differ.
//
// A Dialect is data. The round-and-pack core reads its policies and never asks which dialect
// it is running; adding a dialect is a table entry in emulator/dialects.cpp plus tests that pin
// its distinguishing cases. docs/DIALECTS.md documents each dialect and cites its sources;
// docs/SEMANTICS.md section 5 defines each policy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "softmx/context.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// Sign of a NaN result (SEMANTICS 5.5).
enum class NanSign : std::uint8_t { preserve, positive };
/// Fraction of a NaN result in an ieee-encoded destination (SEMANTICS 5.5).
enum class NanPayload : std::uint8_t {
  canonical,  ///< only the quiet bit set
  preserve,   ///< the source fraction's leading bits, quiet bit forced on
  all_ones,   ///< every fraction bit set (CUDA's float-to-half/bfloat16 give 0x7FFF)
};
/// What a NaN becomes in a format without NaN (e3m2, e2m3, e2m1, int8). Always invalid.
enum class NanToFinite : std::uint8_t { positive_max, signed_max, positive_zero, negative_zero };
/// E8M0 for zero and for 0 < |x| < 2^-127 (SEMANTICS 5.4).
enum class E8m0Below : std::uint8_t { clamp_min, nan };
/// E8M0 for negative non-zero inputs (SEMANTICS 5.4).
enum class E8m0Negative : std::uint8_t { nan, magnitude };
/// E8M0 ties under rne (SEMANTICS 5.4).
enum class E8m0Ties : std::uint8_t { even, up };

/// A set of rounding modes, one bit per Rounding value (bit i = Rounding(i)).
using RoundingSet = std::uint8_t;
/// A set of saturation modes, one bit per Saturation value.
using SaturationSet = std::uint8_t;
inline constexpr RoundingSet kAllRoundings = (1u << kRoundingCount) - 1;
inline constexpr SaturationSet kAllSaturations = 0x3;
constexpr RoundingSet rounding_bit(Rounding r) { return RoundingSet(1u << static_cast<unsigned>(r)); }
constexpr SaturationSet saturation_bit(Saturation s) { return SaturationSet(1u << static_cast<unsigned>(s)); }

/// What a dialect accepts for one destination format.
struct DestinationSupport {
  RoundingSet roundings = kAllRoundings;      ///< 0: the dialect cannot produce this format
  SaturationSet saturations = kAllSaturations;
  std::string_view why;  ///< for error messages: where the restriction comes from
};

/// A dialect: element-conversion policies plus what it supports. See docs/SEMANTICS.md 5.
struct Dialect {
  std::string_view name;      ///< "ocp", "cuda"
  std::string_view summary;   ///< one line
  std::string_view sources;   ///< where the behaviour comes from (spec sections, headers)

  NanSign nan_sign = NanSign::preserve;
  /// Per destination format (indexed by FormatId; only ieee-encoded ones have a choice).
  std::array<NanPayload, kFormatCount> nan_payload{};
  /// Per source format (indexed by FormatId): 0 keeps a NaN input as it is; n > 0 first
  /// replaces it by the positive quiet NaN whose fraction starts with n ones, which is what an
  /// implementation that widens through another format produces (CUDA's float paths turn every
  /// NaN into 0x7FFFFFFF: 23 ones; its E8M0 decode goes through bf16 0x7FFF: 7 ones).
  std::array<std::uint8_t, kFormatCount> nan_canonical_ones{};
  NanToFinite nan_to_finite = NanToFinite::positive_max;
  E8m0Below e8m0_below = E8m0Below::clamp_min;
  E8m0Negative e8m0_negative = E8m0Negative::nan;
  E8m0Ties e8m0_ties = E8m0Ties::even;
  /// MXINT8: may negative results use 0x80 (-2)?
  bool int8_minus2 = false;

  /// Per destination format (indexed by FormatId).
  std::array<DestinationSupport, kFormatCount> support{};
};

/// The ocp dialect: the OCP MX v1.0 / OFP8 v1.0 specification, with its
/// implementation-defined points decided and documented (docs/DIALECTS.md).
const Dialect& ocp_dialect();

/// Every built-in dialect, ocp first.
std::span<const Dialect> all_dialects();

/// Looks a dialect up by name (case-insensitive). nullptr if unknown.
const Dialect* find_dialect(std::string_view name);

/// Why `dialect` cannot convert into `dst` under `ctx`, or nullopt when it can.
/// The message names the dialect, the destination and the modes it does accept.
std::optional<std::string> unsupported_reason(const Dialect& dialect, FormatId dst, const Context& ctx);

/// Canonical policy value names, for listings and explain ("preserve", "positive_max", ...).
std::string_view name(NanSign);
std::string_view name(NanPayload);
std::string_view name(NanToFinite);
std::string_view name(E8m0Below);
std::string_view name(E8m0Negative);
std::string_view name(E8m0Ties);

}  // namespace softmx
