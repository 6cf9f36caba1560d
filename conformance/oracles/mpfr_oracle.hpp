// Independent correctly-rounded reference ("oracle") for softmx conversions.
//
// Written from docs/SEMANTICS.md only: its own format descriptors (a table for the named
// formats, and the same fields for any runtime format), its own decoder and encoder, and
// value-level rounding with MPFR (the two neighbours RD(x), RU(x) of an exact value in the
// destination's value set, extended upward without bound). It shares no code or types with the
// emulator (emulator/, include/) on purpose: where they disagree, one of them is wrong.
//
// Thread safety: all scratch state is thread_local; the MPFR exponent range is never
// changed.
#pragma once
#include <array>
#include <cstdint>
#include <mpfr.h>
#include <optional>
#include <string>
#include <string_view>

namespace softmx::oracle {

enum class Fmt : uint8_t { f64, f32, f16, bf16, e4m3, e5m2, e3m2, e2m3, e2m1, int8, e8m0 };
inline constexpr int kFmtCount = 11;
std::optional<Fmt> fmt_from_name(std::string_view);  // exactly the names above
std::string_view fmt_name(Fmt);

/// A format as SEMANTICS.md section 1.1 describes it: sign encoding, exponent and fraction
/// bits, bias, specials, whether exponent field 0 holds subnormals, fixed point. The oracle's
/// own type: the named formats are entries of its own table (desc(Fmt)), runtime formats are
/// any other valid field set (the caller checks validity: the suites take it from the
/// emulator's accepted descriptors and compare the emulator's results with these).
struct Desc {
  enum class Sign : uint8_t { magnitude, twos, none } sign = Sign::magnitude;
  int exp_bits = 0;
  int man_bits = 0;
  int bias = 0;
  enum class Specials : uint8_t { ieee, fn, fnuz, none } specials = Specials::none;
  bool subnormals = true;
  bool fixed = false;
  bool operator==(const Desc&) const = default;
  int width() const { return (sign == Sign::none ? 0 : 1) + exp_bits + man_bits; }
};
/// The descriptor of a named format, from SEMANTICS.md section 1's table.
Desc desc(Fmt f);
/// The named format with these fields, if any (its dialect policies are per named format).
std::optional<Fmt> named(const Desc& d);

enum class Mode : uint8_t { rne, rna, rz, ru, rd, ro };  // deterministic modes
inline constexpr int kModeCount = 6;
// SEMANTICS 4: finite (OFP8 SAT), none (IEEE 754 7.4 / OFP8 NONSAT), and propagate (IEEE P3109
// SatPropagate, interim report v4.0 4.7.5: finite overflow saturates to +-max as under finite,
// an infinite input converts as under none).
enum class Sat : uint8_t { finite, none, propagate };
inline constexpr int kSatCount = 3;
// Tininess (SEMANTICS 5.3): after = |x| rounded to p bits with an unbounded exponent range is
// below 2^emin; before = |x| < 2^emin; after_bounded = the value delivered (rounded in the
// destination's own exponent range) is below 2^emin.
enum class Tiny : uint8_t { after, before, after_bounded };
inline constexpr int kTinyCount = 3;

// The dialect policies of SEMANTICS.md section 5 (defaults = the "ocp" dialect)
struct Policies {
  enum class NanSign : uint8_t { preserve, positive, negative } nan_sign = NanSign::preserve;
  // NanPayload, per destination format (indexed by Fmt): SEMANTICS 5.5.
  enum class Payload : uint8_t { canonical, preserve, all_ones, exact, signalling_one };
  std::array<Payload, kFmtCount> nan_payload{};
  // nan_payload_paths (SEMANTICS 5.5): a NaN input read from src into the ieee dst takes `payload`
  // instead of nan_payload[dst]. The first nan_payload_path_count entries count.
  struct Path {
    Fmt src = Fmt::f64, dst = Fmt::f64;
    Payload payload = Payload::canonical;
    bool operator==(const Path&) const = default;
  };
  std::array<Path, 4> nan_payload_paths{};
  int nan_payload_path_count = 0;
  // nan_canonical_ones, per source format (indexed by Fmt): 0 keeps a NaN input as it is; n > 0
  // replaces it by +NaN whose fraction is n ones (SEMANTICS 5.5).
  std::array<uint8_t, kFmtCount> nan_canonical_ones{};
  // The same two for formats that are not named (a dialect's runtime-format values).
  Payload runtime_nan_payload = Payload::canonical;
  uint8_t runtime_nan_canonical_ones = 0;
  enum class NanToFinite : uint8_t {
    positive_max, signed_max, positive_zero, negative_zero,
    flipped_zero,  // zero with the opposite of the NaN's sign
    signed_value,  // nan_finite_value with the NaN's sign, rounded rne saturating
    error,         // code 0 (the caller reports the error)
  } nan_to_finite = NanToFinite::positive_max;
  double nan_finite_value = 0;
  bool e8m0_below_nan = false;          // 0 < |x| < 2^emin without subnormals: false = clamp_min
  bool e8m0_zero_nan = false;           // zero without a zero code: false = code 0
  bool e8m0_zero_min_if_satfinite = false;      // zero: code 0 under finite, NaN under none (overrides)
  bool e8m0_negative_min_if_satfinite = false;  // finite negative: code 0 under finite, else NaN; -Inf NaN
  bool satfinite_inf_as_none = false;   // 5.6: saturation finite treats an Inf as saturation none does
  bool e8m0_lowest_binade_rounds_up = false;  // rne/rna: (2^emin, 2^(emin+1)) -> next code
  bool e8m0_negative_magnitude = false;  // negative into an unsigned format; false = nan
  bool e8m0_ties_up = false;            // powers of two only; false = even
  bool ties_toward_zero = false;        // 5.8, MX elements under rne: a tie takes the smaller magnitude
  bool zeros_positive = false;          // 5.8, MX elements: every zero result is +0 (false: the input's sign)
  bool int8_minus2 = false;             // two's complement: negatives may use 100...0
  // SEMANTICS 4 / 5.6, overflow_no_inf: where saturation none (or an Inf under propagate, or
  // under finite with satfinite_inf_as_none) asks for Inf and the destination has none, false
  // gives its NaN when it has one (OFP8 table 3), true gives +-max finite (IEEE P3109 v4.0 4.7.5:
  // SatNone sends X > Mhi and +-Inf to +-Mhi in a finite-domain format; an Inf input adds invalid).
  bool overflow_no_inf_max = false;
  // SEMANTICS 4, ro_overflow: an overflowing ro result under saturation none is +-max finite
  // (false), or (true, P3109) the odd one of max finite and Inf: Inf when the destination has an
  // Inf whose code is odd, else max (ieee Inf codes have fraction 0, so are even when m > 0).
  bool ro_overflow_odd_code = false;
  // e8m0_negative = saturate_zero (IEEE P3109 v4.0 4.7.3, 4.7.5: an unsigned format's Mlo is 0).
  // A finite negative is rounded first with its sign (ru toward zero, rd away); a result of zero
  // gives +0 with the usual flags; any other result gives code 0 with invalid | inexact under
  // finite and propagate, and under none NaN with invalid, except code 0 with invalid | inexact
  // under rz and ru. -Inf: NaN under none, code 0 with invalid under finite and propagate.
  bool negative_saturate_zero = false;
  bool operator==(const Policies&) const = default;
};

struct Outcome {
  uint64_t code = 0;
  uint8_t flags = 0;
  bool operator==(const Outcome&) const = default;
};
// Flags bits: 0x01 inexact, 0x02 underflow, 0x04 overflow, 0x08 infinite (never), 0x10 invalid.

// Every deterministic mode x every saturation x every tininess rule at once, for one input.
struct AllOutcomes {
  Outcome r[kModeCount][kSatCount][kTinyCount];
  const Outcome& at(Mode m, Sat s, Tiny t) const { return r[(int)m][(int)s][(int)t]; }
};

AllOutcomes convert_all(Fmt src, Fmt dst, uint64_t src_bits, const Policies& = {});
AllOutcomes convert_all(const Desc& src, const Desc& dst, uint64_t src_bits, const Policies& = {});
Outcome convert(Fmt src, Fmt dst, uint64_t src_bits, Mode, Sat, Tiny, const Policies& = {});
Outcome convert(const Desc& src, const Desc& dst, uint64_t src_bits, Mode, Sat, Tiny, const Policies& = {});
// Stochastic rounding (SEMANTICS section 2, "rs"): r in 1..64 random bits, R < 2^r.
Outcome convert_rs(Fmt src, Fmt dst, uint64_t src_bits, unsigned r, uint64_t R, Sat, Tiny,
                   const Policies& = {});
Outcome convert_rs(const Desc& src, const Desc& dst, uint64_t src_bits, unsigned r, uint64_t R, Sat, Tiny,
                   const Policies& = {});
// An exact finite/zero/inf value (no NaN) given as an mpfr number of any precision.
AllOutcomes round_value_all(mpfr_srcptr x, Fmt dst, const Policies& = {});
AllOutcomes round_value_all(mpfr_srcptr x, const Desc& dst, const Policies& = {});
// Decodes a code into an exact mpfr value (caller inits `out` with enough precision, e.g. 64
// bits). Returns false for NaN codes (out untouched). Signed zeros keep their sign.
bool decode(Fmt f, uint64_t code, mpfr_ptr out);
bool decode(const Desc& f, uint64_t code, mpfr_ptr out);
bool is_nan_code(Fmt f, uint64_t code);
bool is_nan_code(const Desc& f, uint64_t code);
int width(Fmt f);  // 4, 6, 8, 16, 32, 64

}  // namespace softmx::oracle
