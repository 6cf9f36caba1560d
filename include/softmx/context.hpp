// softmx/context.hpp: the rounding context that goes into every conversion.
//
// A Context is a plain value passed by the caller; softmx keeps no global mode or flags.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

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
  /// IEEE P3109's SatPropagate (interim report v4.0 4.7.5): finite values beyond the range give
  /// +-max finite, as finite does, while an infinite input converts as under none (Inf stays
  /// Inf where the destination has it). Only dialects that list it accept it (p3109).
  propagate,
};

/// Which bits of the discarded fraction rs compares with the random bits (IEEE P3109 interim
/// report v4.0 4.7.4, with N = Context::rbits_width and v the discarded fraction in [0, 1)).
enum class StochasticRule : std::uint8_t {
  a,  ///< StochasticA: floor(v 2^N) + R >= 2^N rounds away (softmx's rs, SEMANTICS 2)
  b,  ///< StochasticB: floor(v 2^(N+1)) + 2R + 1 >= 2^(N+1) (N <= 63)
  c,  ///< StochasticC: RNITE(v 2^N) + R >= 2^N, v 2^N rounded to nearest, ties to even (N <= 63)
};

/// When a value is tiny for the underflow flag (docs/SEMANTICS.md section 5.3). Underflow is
/// raised for a result that is tiny and inexact; fixed-point formats never raise it.
enum class Tininess : std::uint8_t {
  /// IEEE 754-2019 7.5 "after rounding": the non-zero |x| rounded to the destination's
  /// precision p with an UNBOUNDED exponent range (same mode) is below 2^emin. The default, as
  /// SoftFloat's default specialization; what RISC-V mandates (and FPnew's cast unit after
  /// openhwgroup/cvfpu PR 168).
  after_rounding,
  /// IEEE 754-2019 7.5 "before rounding": |x| < 2^emin.
  before_rounding,
  /// Not an IEEE 754 rule: the result actually delivered, |x| rounded in the destination's own
  /// (bounded) exponent range, is below 2^emin: a zero or subnormal code. A value just below
  /// 2^emin that rounds up to the smallest normal is then not tiny, where after_rounding may
  /// call it tiny. A format without subnormals (e8m0) delivers nothing below 2^emin, so it
  /// never underflows by this rule (its zero input is the e8m0_zero policy, SEMANTICS 5.4).
  /// What FPnew's fpnew_cast_multi.sv computed before PR 168 (issue 165: uf_after_round tests
  /// the rounded exponent field for zero); name "after-bounded".
  after_bounded,
};
/// Every tininess rule, in enum order.
inline constexpr Tininess kTininessRules[] = {Tininess::after_rounding, Tininess::before_rounding,
                                              Tininess::after_bounded};

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
  /// rs only: which fraction bits meet R (P3109's StochasticA, B, C). Widths above 63 count as
  /// 63 under b and c.
  StochasticRule stochastic = StochasticRule::a;
};

/// Canonical names: "rne" "rna" "rz" "ru" "rd" "ro" "rs".
std::string_view name(Rounding r);
/// "finite" "none" "by-destination" "propagate".
std::string_view name(Saturation s);
/// "after" "before" "after-bounded".
std::string_view name(Tininess t);

/// "a" "b" "c".
std::string_view name(StochasticRule s);
/// Parses a P3109 rounding name (v4.0 4.2, case-insensitive): NearestTiesToEven,
/// NearestTiesToAway, TowardZero, TowardPositive, TowardNegative, ToOdd, and StochasticA,
/// StochasticB, StochasticC (rs with that rule; the plain "rs" names are parse_rounding's).
std::optional<std::pair<Rounding, StochasticRule>> parse_p3109_rounding(std::string_view s);

/// Parses a rounding mode name. Accepts the canonical names and the aliases "nearest-even",
/// "rn", "nearest-away", "zero", "up", "down", "odd", "stochastic" (case-insensitive).
std::optional<Rounding> parse_rounding(std::string_view s);
/// Parses "finite" (alias "satfinite", "sat"), "none" (alias "nosat", "nonsat", P3109's
/// "SatNone" and "OvfInf") or "propagate" (P3109's "SatPropagate"), case-insensitively; nothing
/// else (by_destination is the absence of a choice, never a name to parse).
std::optional<Saturation> parse_saturation(std::string_view s);
/// Parses "after", "before" or "after-bounded" (case-insensitive).
std::optional<Tininess> parse_tininess(std::string_view s);

}  // namespace softmx
