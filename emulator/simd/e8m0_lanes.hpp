// emulator/simd/e8m0_lanes.hpp: E8M0 without flags from f32 and bf16, read off the exponent field
// (internal; included through simd/lanes.hpp, which says what SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES
// mean).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// E8M0 without flags from f32 (or bf16, widened by a shift): a normal source's code is its
/// exponent field, plus one when the mode rounds its significand 1.f up to 2 (SEMANTICS 5.4 on
/// the magnitude: the sign is dropped, or the negative class decides). Zeros, subnormals, Inf
/// and NaN go to the scalar kernel. Same results as the general kernel (test_batch_simd*.cpp),
/// at about a third of its operations.
template <Rounding R>
void convert_e8m0(const Plan& p, const void* in, void* out_v, Flags*, std::size_t n, int) {
  std::uint8_t* out = static_cast<std::uint8_t*>(out_v);
  const bool in32 = p.src_width == 32;
  const u32v ovf = splat(p.ovf_code[0]), neg_code = splat(p.neg.code[1]);
  const bool neg_const = p.neg_const, ties_up = p.ties_up;
  auto scalar = [&](std::size_t j) { out[j] = static_cast<std::uint8_t>(p.call(load_one(in, j, in32)).code); };
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v x = load_lanes(in, i, in32);
    if (!in32) x <<= 16;  // bf16 is the top half of an f32
    const u32v a = x & 0x7FFFFFFFu;
    const u32v e = a >> 23;
    const u32v frac = a & 0x7FFFFFu;
    u32v code;
    if constexpr (R == Rounding::rz || R == Rounding::rd) {  // the magnitude rounds down
      code = e;
    } else if constexpr (R == Rounding::ru) {
      code = frac != 0 ? e + 1 : e;
    } else if constexpr (R == Rounding::rna) {
      code = frac >= 0x400000u ? e + 1 : e;
    } else if constexpr (R == Rounding::rne) {
      const i32v tie_up = ties_up ? splat_i(-1) : (e & 1u) != 0;
      code = ((frac > 0x400000u) | ((frac == 0x400000u) & tie_up)) ? e + 1 : e;
    } else {  // ro: an inexact value takes the odd neighbour
      code = ((frac != 0) & ((e & 1u) == 0)) ? e + 1 : e;
    }
    code = code > 0xFEu ? ovf : code;
    if (neg_const) code = reinterpret_cast<i32v>(x) < 0 ? neg_code : code;
    store_codes(out + i, code);
    if (any_at_least(e - 1, splat(0xFE))) [[unlikely]] {  // e = 0 (wraps) or 0xFF
      for (unsigned lanes = lane_bits((e - 1) >= 0xFEu); lanes; lanes &= lanes - 1)
        scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
    }
  }
  for (; i < n; ++i) scalar(i);
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
