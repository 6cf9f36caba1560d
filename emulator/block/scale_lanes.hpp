// emulator/block/scale_lanes.hpp: MX dequantization with a scale format other than E8M0 in
// vector lanes (internal; block/scale_lanes.cpp, docs/BLOCKS.md 1.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "softmx/block.hpp"

namespace softmx::detail {

/// Dequantizer::run's results for f32 destinations (out: n f32 codes; flags: n flag bytes, or
/// null) with a scale format other than E8M0: value(code) * value(scale) is exact in f64 and
/// converted to f32 once (round to nearest even); elements whose product is not zero and not
/// in [2^-126, FLT_MAX], NaN and Inf codes, bytes beyond the element's codes, and blocks whose
/// scale is NaN or Inf take dequantize_element, the reference. Returns the OR of the flags, or
/// nullopt (nothing written) when the lanes do not serve: Isa::scalar, a rounding other than
/// rne, a dialect whose nearest ties or zero signs are not IEEE's, the FPU not in its default
/// mode. `ctx` is the Dequantizer's (resolved for f32).
std::optional<Flags> dequantize_scale_lanes(const Format& element, const ScaleFormat& scale_format, const Context& ctx,
                                            const Dialect& dialect, Isa isa, const std::uint8_t* scales,
                                            const std::uint8_t* codes, std::size_t n, std::size_t k,
                                            std::uint32_t* out, Flags* flags);

}  // namespace softmx::detail
