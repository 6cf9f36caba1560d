// conformance/oracles/dot_oracle.hpp: MX Dot / DotGeneral computed independently with MPFR.
//
// Built only on the MPFR oracle (its own format table, decoder and rounding): the exact sum of
// all terms is formed in MPFR at a precision wide enough to hold every term exactly, then
// rounded once into f32 by round_value_all(). fp32-sequential replays docs/BLOCKS.md 5 step by
// step with MPFR additions, each rounded into f32 the same way. Shares no code with the
// emulator's accumulator.
#pragma once

#include <cstdint>
#include <vector>

#include "oracles/mpfr_oracle.hpp"

namespace softmx::oracle {

struct OBlock {
  Fmt fmt;
  uint8_t scale;
  std::vector<uint8_t> codes;
};

/// The exact model, every mode x saturation x tininess at once.
AllOutcomes dot_exact(const std::vector<OBlock>& a, const std::vector<OBlock>& b);

/// The fp32-sequential model under one mode, saturation and tininess.
Outcome dot_fp32_sequential(const std::vector<OBlock>& a, const std::vector<OBlock>& b, Mode mode, Sat sat,
                            Tiny tiny);

}  // namespace softmx::oracle
