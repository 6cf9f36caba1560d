// An oracle for IEEE P3109 conversions, written from the interim report v4.0 (2026-06-26,
// github.com/P3109/Public 26df0d0) alone: 4.7.2 ωDecode, 4.7.3 ωProject, 4.7.4
// ωRoundToPrecision (with MPFR: exact scaling, floor, the fraction ν), 4.7.5 ωSaturate (its 25
// rules in order), 4.7.6 ωEncode. It shares no code with the emulator or with mpfr_oracle.
//
// The draft defines codes only. The flags are softmx's (docs/SEMANTICS.md 2-5, tininess after
// rounding), added here from the same quantities: inexact when the datum delivered differs from
// the finite input; overflow when the rounded value is beyond the finite range; underflow when
// inexact and |X| rounded to P bits with an unbounded exponent range is below 2^(1-B); invalid
// for a signalling NaN input, an infinite input delivered as a finite value or NaN, and a
// negative input that an unsigned format delivers as 0 (rounded to non-zero first) or NaN.
#pragma once
#include <cstdint>
#include <mpfr.h>

namespace softmx::p3109oracle {

struct Format {
  int K = 8, P = 3;
  bool is_signed = true, extended = true;
};
enum class Round : uint8_t {
  NearestTiesToEven, NearestTiesToAway, TowardZero, TowardPositive, TowardNegative, ToOdd,
  StochasticA, StochasticB, StochasticC,
};
enum class Sat : uint8_t { SatFinite, SatPropagate, SatNone };
struct Projection {
  Round round = Round::NearestTiesToEven;
  Sat sat = Sat::SatNone;
  unsigned N = 0;  // stochastic: number of random bits (1..63)
  uint64_t R = 0;  // stochastic: 0 <= R < 2^N
};
struct Outcome {
  uint64_t code = 0;
  uint8_t flags = 0;  // 0x01 inexact, 0x02 underflow, 0x04 overflow, 0x10 invalid
  bool operator==(const Outcome&) const = default;
};

/// ωProject_{f,ρ}(X) for an exact X: finite or ±Inf (mpfr), or NaN (mpfr NaN); `signalling`
/// marks a signalling NaN input (flags only).
Outcome project(mpfr_srcptr X, const Format& f, const Projection& rho, bool signalling = false);
/// ωDecode_f(code) into `out` (caller-initialised, >= 64 bits): NaN as an mpfr NaN.
void decode(const Format& f, uint64_t code, mpfr_ptr out);

}  // namespace softmx::p3109oracle
