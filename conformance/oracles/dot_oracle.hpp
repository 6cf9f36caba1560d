// conformance/oracles/dot_oracle.hpp: MX Dot / DotGeneral computed independently with MPFR.
//
// Built only on the MPFR oracle (its own format table, decoder and rounding): the exact sum of
// all terms is formed in MPFR at a precision wide enough to hold every term exactly, then
// rounded once into f32 (or f16, bf16 with an addend C: OAddend) by round_value_all().
// fp32-sequential replays docs/BLOCKS.md 5 step by step with MPFR additions, each rounded into
// f32 the same way. Shares no code with the emulator's accumulator.
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

/// The destination of a DotGeneral and its addend C (docs/BLOCKS.md 5, "Addend and
/// destination"): `to` f32, f16 or bf16; C a code of it when `present`.
struct OAddend {
  Fmt to = Fmt::f32;
  bool present = false;
  uint64_t c = 0;
};

/// The exact model, every mode x saturation x tininess at once.
AllOutcomes dot_exact(const std::vector<OBlock>& a, const std::vector<OBlock>& b);
/// The exact model into d.to with C: the exact sum of every product and C, rounded once into
/// d.to; NaN and Inf C join the specials; an exact zero is signed over every term, C included.
AllOutcomes dot_exact(const std::vector<OBlock>& a, const std::vector<OBlock>& b, const OAddend& d);

/// The fp32-sequential model under one mode, saturation and tininess.
Outcome dot_fp32_sequential(const std::vector<OBlock>& a, const std::vector<OBlock>& b, Mode mode, Sat sat,
                            Tiny tiny);
/// The fp32-sequential model with C as the accumulator's initial value, then (d.to not f32)
/// the f32 accumulator rounded once more into d.to; the flags of every step ORed.
Outcome dot_fp32_sequential(const std::vector<OBlock>& a, const std::vector<OBlock>& b, const OAddend& d, Mode mode,
                            Sat sat, Tiny tiny);

}  // namespace softmx::oracle
