// emulator/block/scale_lanes.hpp: MX dequantization with a scale format other than E8M0 in
// vector lanes (internal; block/scale_lanes.cpp, docs/BLOCKS.md 1.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "simd/scale_kernels.hpp"
#include "softmx/block.hpp"

namespace softmx::detail {

/// The constants of scale_code_f64 and of ScaleKernels::block_scales (simd/scale_kernels.hpp).
using simd::ScaleF64;

/// The constants for scale format sf and the element's largest finite value max_element; the
/// route serves (max_e != 0) an unsigned or sign-magnitude binary float format with subnormals,
/// codes (E << m) | F (biased exponent E, E = 0 subnormal), at most 24 significant bits, and a
/// positive normal max_element of at most 53 significant bits. min_code: the scale chosen for a
/// quotient that rounds to zero (BlockQuantizer's scale_min_code_).
ScaleF64 make_scale_f64(const Format& sf, const Unpacked& max_element, std::uint32_t min_code);

/// The scale code round_pack(sf, amax / max_E) gives under rne with finite saturation
/// (run_scale_format's scale), with min_code in place of a zero: for a positive finite f32
/// amax (bits). Precondition: c.max_e != 0 and the FPU in its default mode (round to nearest
/// even, no FTZ/DAZ). Exact (docs/BLOCKS.md 1.3): q = RN_f64(amax / max_E), whose remainder
/// amax - q max_E is an f64 (the remainder of a correctly rounded division, no underflow: q >=
/// 2^-149 / 2^17), formed exactly by one fused multiply-add; q made odd when the remainder is
/// non-zero (q | 1 above, (q - 1) | 1 below) is RO_53(amax / max_E); then one f64 addition of
/// C = 2^(max(e, emin) - m + 52) (e = floor(log2 q)) rounds it at the scale format's quantum
/// (t = C + RN(q) in [C, 2C], exact), and RN_53-then-RN_p with RO first equals RN_p once since
/// 53 >= p + 2.
std::uint32_t scale_code_f64(const ScaleF64& c, std::uint32_t amax_bits);

/// Dequantizer::run's results for f32 destinations (out: n f32 codes; flags: n flag bytes, or
/// null) with a scale format other than E8M0: per block, when its scale is an f32 that keeps
/// every product of a non-zero element value in [2^-126 (2^-100 for f32 scales), FLT_MAX], one
/// f32 multiply per element (ScaleKernels::scaled_blocks_f32; docs/BLOCKS.md 1.3); otherwise
/// value(code) * value(scale) is exact in f64 and
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
