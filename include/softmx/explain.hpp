// softmx/explain.hpp: the explanation of one conversion, shared by `softmx explain` and
// `softmx diff`.
//
// Where an input lies among the destination's values (its exact value, the two representable
// neighbours of its magnitude, the distance to each in ulps, whether it is a tie), and why a
// given result is the one a rounding mode, saturation and dialect deliver. Every function
// returns text ending in '\n' (or a phrase, where it says so); nothing prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/convert.hpp"
#include "softmx/exact.hpp"

namespace softmx {

/// One input to explain.
struct ExplainInput {
  std::string label;                   ///< how it was given: "f16 7C01", "464 (decimal, taken exactly)"
  Unpacked u;                          ///< exact (sticky only for a decimal that is not dyadic)
  ExactValue exact;                    ///< the exact value (class and sign only for NaN)
  std::optional<Format> from;          ///< the source format, when given as a code
  std::optional<std::uint64_t> code;   ///< the code of `from`
};

/// The input `code` of format `src`. Precondition: code <= format(src).code_mask().
ExplainInput explain_input_code(const Format& src, std::uint64_t code);
/// The input `text` (decimal or C99 hex float, taken exactly). InputError if it does not parse.
ExplainInput explain_input_text(const std::string& text);

/// Where an input's magnitude lies among a destination's values.
struct Neighbours {
  enum class Kind : std::uint8_t {
    special,    ///< zero, Inf or NaN: no neighbours
    below_min,  ///< below the smallest value of a format without zero (e8m0): only `hi` = code 0
    exact,      ///< representable: `lo` is its magnitude code
    between,    ///< strictly between `lo` and `hi`
  };
  Kind kind = Kind::special;
  std::uint64_t lo = 0, hi = 0;  ///< magnitude codes toward zero and away from zero
  /// hi <= the destination's largest finite magnitude (otherwise rounding away overflows).
  bool hi_finite = true;
  /// between: the input lies beyond even the value hi would have (so it overflows whenever it
  /// is not rounded toward zero); the distances below are then unset.
  bool beyond = false;
  /// between and not beyond: the distances to lo and hi in ulps (hi - lo); they sum to 1.
  std::optional<Rational> d_lo, d_hi;
  /// The discarded fraction in ulps, in [0, 1): 0 for exact, d_lo for between (not beyond);
  /// what stochastic rounding draws against.
  std::optional<Rational> frac_ulps;

  bool tie() const { return d_lo && d_hi && *d_lo == *d_hi; }
};

/// The neighbours of `in`'s magnitude in `dst`.
Neighbours find_neighbours(const ExplainInput& in, const Format& dst);

/// The magnitude code of `code` in `dst` (its sign removed; int8: the absolute value 0..128).
std::uint64_t magnitude_code(const Format& dst, std::uint64_t code);

/// One line describing a format: "e4m3: sign, 4-bit exponent (bias 7), 3-bit fraction; max
/// finite 448 (7E); ..." (no newline).
std::string describe_format(const Format& f);

/// The input block of `softmx explain`: the "input", "exact", "fields" (codes), "binary" and
/// "hex float" (finite values) lines; `dst` decides the binary digits shown.
std::string input_text(const ExplainInput& in, const Format& dst);

/// The "neighbours" block of `softmx explain`: the neighbours' codes and exact values, the
/// spacing and the distances, or why there are none.
std::string neighbours_text(const ExplainInput& in, const Neighbours& nb, const Format& dst);

/// One phrase (no newline) saying why `r` is the result of converting `in` into `dst` under
/// `ctx` and `dialect`: which neighbour it is and which rule chose it ("rounded away from zero
/// to 7E: a tie, and rne takes the even code"), or the special-value policy that gave it. A
/// result no plain rule explains is attributed to the dialect's own policies. `r` is usually
/// softmx's result, but may be any code (a device's).
std::string rounding_reason(const ExplainInput& in, const Neighbours& nb, const Format& dst, const Context& ctx,
                            const Dialect& dialect, const Result& r);

}  // namespace softmx
