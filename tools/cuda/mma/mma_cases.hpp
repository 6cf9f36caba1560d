// tools/cuda/mma/mma_cases.hpp: the cases the mma capture runs through the tensor cores.
//
// A case is one output element: K codes of A's row, K codes of B's column, for a block-scaled
// form K / s scales of each (s: the scale block), and C. The cases are a pure function of the
// form's shape and the options (level, count, seed): the same arguments give the same bytes on
// every machine (softmx's SplitMix64, softmx/prng.hpp).
//
// Unscaled forms: exactly the cases of `softmx gen mma` (vectors/README.md 6, "mma"), so that
// `softmx gen mma --a A --b B --block K ... --level L --seed S` lists the same operands.
//
// Block-scaled forms: exactly the cases of `softmx gen mma ... --scale-format F --scale-block S`
// (vectors/README.md 6, "Block-scaled mma"; the library builds them, emulator/vectors/
// mma_scale_cases.hpp), in file order:
//   1. gen mma's level-1 element cases, each with every scale 1 (UE8M0 0x7F, UE4M3 0x38);
//   2. the scale probes (level 1; each aimed at one feature of the published models,
//      docs/research/blackwell-mma.md section 9): NaN scales (with zero elements too), zero and
//      tiny scales against the zero-term exponent floor, the alignment ladder through the
//      scales, overflow through the scales, which scale covers which product at every block
//      boundary, cancellation inside and across groups of 16, all-zero groups, UE4M3 sign bits
//      and subnormal scales, and signed zeros;
//   3. level 2: gen mma's random element cases (the same stream of `seed`), each with scales
//      from a second stream, SplitMix64(seed ^ kScaleStreamSalt) (four kinds: any bits,
//      near 1, one per side, anywhere finite; emulator/vectors/mma_scale_cases.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "softmx/format.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"

namespace softmx::mma_capture {

/// XORed into the seed for the stream of the level-2 scales (so that element and scale draws
/// never share a stream).
inline constexpr std::uint64_t kScaleStreamSalt = vec::kMmaScaleStreamSalt;

/// The shape of a form's cases.
struct CaseShape {
  FormatId a = FormatId::e4m3, b = FormatId::e4m3;  ///< element formats
  FormatId acc = FormatId::f32;                      ///< C and D: f32 or f16
  int k = 32;                                        ///< products per output element
  vec::MmaScaleFormat scale_format = vec::MmaScaleFormat::none;
  int scale_block = 0;                               ///< products per scale (scaled forms)
  bool addend = true;                                ///< lines carry C (else C = +0)

  int scales() const { return scale_format == vec::MmaScaleFormat::none ? 0 : k / scale_block; }
};

/// One case.
struct MmaCase {
  std::vector<std::uint8_t> a, b;    ///< k codes each
  std::vector<std::uint8_t> sa, sb;  ///< shape.scales() codes each (empty when unscaled)
  std::uint32_t c = 0;               ///< a code of shape.acc (+0 when !addend)

  bool operator==(const MmaCase&) const = default;
};

/// The mma vector-file header of the shape (operation mma, a, b, block, accumulator, addend,
/// scale keys; model as given, not checked here).
vec::Header shape_header(const CaseShape& s, const std::string& model);

/// Every case of the shape for the options, in file order (see the top of this file). Throws
/// std::invalid_argument for a shape the capture has no form of (k not 32 or 64, a scale block
/// that does not divide k, a scale format without scales, an element format that is not an
/// MX element format).
std::vector<MmaCase> make_cases(const CaseShape& s, const vec::GenOptions& o);

/// The operand fields of a case in vector-file order: A_1..A_K B_1..B_K SA.. SB.. C (C only
/// when the shape has an addend).
std::vector<std::uint64_t> operands(const CaseShape& s, const MmaCase& c);

}  // namespace softmx::mma_capture
