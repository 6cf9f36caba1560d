// softmx/context.hpp: the rounding context that goes into every conversion.
//
// A Context is a plain value passed by the caller; softmx keeps no global mode or flags.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace softmx {

/// Rounding modes (docs/SEMANTICS.md section 2).
enum class Rounding : std::uint8_t {
  rne,  ///< to nearest, ties to even (code parity)
  rna,  ///< to nearest, ties away from zero
  rz,   ///< toward zero
  ru,   ///< toward +infinity
  rd,   ///< toward -infinity
  ro,   ///< to odd (von Neumann jamming): truncate, then set the last bit if inexact
  rs,   ///< stochastic with caller-supplied random bits (Context::rbits, rbits_width)
};
inline constexpr int kRoundingCount = 7;
/// The deterministic modes, in enum order (every mode but rs).
inline constexpr Rounding kDeterministicRoundings[] = {Rounding::rne, Rounding::rna, Rounding::rz,
                                                       Rounding::ru,  Rounding::rd,  Rounding::ro};

/// What happens to values beyond the largest finite number (docs/SEMANTICS.md section 4).
enum class Saturation : std::uint8_t {
  finite,  ///< overflow and Inf give +-max finite (OFP8 SAT, PTX .satfinite); what an Inf gives
           ///< is the dialect's satfinite_inf (SEMANTICS 5.6: ml_dtypes keeps Inf)
  none,    ///< OFP8 NONSAT, and IEEE 754 7.4: overflow gives Inf, or NaN where there is no Inf
           ///< (e4m3, e8m0); Inf stays Inf
  /// The dialect's default for the destination, DestinationSupport::default_saturation
  /// (SEMANTICS 4.1): under every built-in dialect none into f64, f32, f16 and bf16 (IEEE
  /// overflow), and into the MX formats and e8m0 what the dialect's implementation does (ocp:
  /// finite). Every entry point (convert, Converter, round_pack, the block, NVFP4 and dot
  /// functions) replaces it by finite or none before anything is rounded (resolve(), in
  /// dialect.hpp), so a kernel, a support check or a vector header never sees it. Not a mode a
  /// dialect supports or a vector header records; parse_saturation does not accept it.
  by_destination,
};

/// When a value is tiny for the underflow flag (docs/SEMANTICS.md section 5.3).
enum class Tininess : std::uint8_t {
  after_rounding,   ///< the default, as SoftFloat's default specialization
  before_rounding,
};

/// Everything the caller chooses for one conversion.
struct Context {
  Rounding rounding = Rounding::rne;
  /// Saturation by destination unless set: Context{} converts 1e6 into f16 as +Inf (overflow,
  /// inexact) and 1e6 into e4m3 as 448 (ocp: finite).
  Saturation saturation = Saturation::by_destination;
  Tininess tininess = Tininess::after_rounding;
  /// rs only: the number r of random bits, 1..64. The most significant of them has the
  /// weight of half a unit in the destination's last place (SEMANTICS section 2).
  std::uint8_t rbits_width = 32;
  /// rs only: the random value R, 0 <= R < 2^rbits_width (higher bits must be zero).
  std::uint64_t rbits = 0;
};

/// Canonical names: "rne" "rna" "rz" "ru" "rd" "ro" "rs".
std::string_view name(Rounding r);
/// "finite" "none" "by-destination".
std::string_view name(Saturation s);
/// "after" "before".
std::string_view name(Tininess t);

/// Parses a rounding mode name. Accepts the canonical names and the aliases "nearest-even",
/// "rn", "nearest-away", "zero", "up", "down", "odd", "stochastic" (case-insensitive).
std::optional<Rounding> parse_rounding(std::string_view s);
/// Parses "finite" (alias "satfinite", "sat") or "none" (alias "nosat", "nonsat"); nothing else
/// (by_destination is the absence of a choice, never a name to parse).
std::optional<Saturation> parse_saturation(std::string_view s);
/// Parses "after" or "before".
std::optional<Tininess> parse_tininess(std::string_view s);

}  // namespace softmx
