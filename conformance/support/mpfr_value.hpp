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

}  // namespace softmx::conformance
