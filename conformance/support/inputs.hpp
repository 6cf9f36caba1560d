// conformance/support/inputs.hpp: the inputs the sampled checks feed to a conversion.
//
// boundary_inputs(): for a destination, every value where its result may change (each
// representable value, each midpoint between neighbours including the virtual one above max
// finite, the binade pattern up to two binades above max), both signs, each with its k nearest
// source bit patterns on either side, plus the specials of the source.
// random_inputs(): a SplitMix64 stream mixing uniform bit patterns, values in and near the
// destination's range, and values within a few source ulps of the destination's midpoints.
#pragma once

#include <cstdint>
#include <vector>

#include "softmx/format.hpp"

namespace softmx::conformance {

/// Source codes (of `src`, f32 or f64; f16/bf16 are exhaustive instead) around every
/// rounding boundary of `dst`.
std::vector<std::uint64_t> boundary_inputs(FormatId src, FormatId dst, int k = 2);
/// The same for any destination, named or runtime.
std::vector<std::uint64_t> boundary_inputs(FormatId src, const Format& dst, int k = 2);

/// `n` source codes drawn from the seeded stream (deterministic for a seed).
std::vector<std::uint64_t> random_inputs(FormatId src, FormatId dst, std::size_t n, std::uint64_t seed);
std::vector<std::uint64_t> random_inputs(FormatId src, const Format& dst, std::size_t n, std::uint64_t seed);

/// The source's special and extreme codes: zeros, infinities, quiet and signalling NaNs with
/// several payloads and both signs, max finite, min normal, min subnormal.
std::vector<std::uint64_t> special_inputs(FormatId src);

}  // namespace softmx::conformance
