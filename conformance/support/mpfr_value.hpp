// conformance/support/mpfr_value.hpp: an MPFR number that owns its storage, for the oracle side
// of the suites (the MPFR computations of a definition, never the emulator's).
#pragma once

#include <mpfr.h>

namespace softmx::conformance {

/// mpfr_init2 on construction and mpfr_clear on destruction; `x` is the number. `Default` is
/// the precision in bits when the constructor is given none: each suite picks one wide enough
/// for its exact intermediate values (a file writes `using Mpfr = MpfrValue<512>;`).
template <mpfr_prec_t Default>
struct MpfrValue {
  mpfr_t x;
  explicit MpfrValue(mpfr_prec_t prec = Default) { mpfr_init2(x, prec); }
  ~MpfrValue() { mpfr_clear(x); }
  MpfrValue(const MpfrValue&) = delete;
  MpfrValue& operator=(const MpfrValue&) = delete;
};

/// floor(RN_p(log2 x)) by MPFR: the base-2 logarithm of x (a positive finite double, read
/// exactly) correctly rounded to p bits, to nearest even, then floored. lut-argmin's and
/// pychop's scale rules (log2 in f32, p = 24, or in the input dtype, 24 or 53).
inline int mpfr_floor_log2(double x, int p) {
  MpfrValue<64> v;  // any double exactly
  MpfrValue<64> l(p);
  mpfr_set_d(v.x, x, MPFR_RNDN);
  mpfr_log2(l.x, v.x, MPFR_RNDN);
  mpfr_floor(l.x, l.x);
  return static_cast<int>(mpfr_get_si(l.x, MPFR_RNDN));
}

}  // namespace softmx::conformance
