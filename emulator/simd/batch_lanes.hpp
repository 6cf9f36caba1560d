// emulator/simd/batch_lanes.hpp: the general vector conversion kernel (internal; included through
// simd/lanes.hpp, which says what SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES mean): VectorKernel takes
// one vector of source codes (f32, f16, bf16) through round_pack_lanes, the classes (zeros,
// infinities, NaNs, negatives into E8M0) from the Plan; convert_batch runs it over n codes and
// hands the lanes it cannot decide to the scalar kernel. Every mode, flags or none, named and
// runtime destinations, and block quantization's scaled values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"
#include "simd/round_pack_lanes.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// One vector of source codes through the conversion into destination D: the per-batch
/// constants, made once (the loops below keep them in registers), and the per-vector step.
/// Norm: Plan::normalize. Scaled: each finite value is first multiplied by 2^-shift exactly
/// (block quantization's V / X), which needs Norm.
template <int D, Rounding R, bool F, bool Norm, bool Scaled>
struct VectorKernel {
  static_assert(Norm || !Scaled, "a scaled value's quantum follows its leading bit: normalise");
  using T = DstTraits<D>;
  static_assert(Norm || !T::runtime, "runtime destinations always normalise");
  static constexpr bool e8m0 = T::no_subnormals;
  static constexpr bool unsigned_dst = T::unsigned_dst;
  const Plan& p;
  const LanePlan lp;
  const u32v src_m, src_sign_shift, src_mag_mask, src_frac_mask, src_implicit, src_align, src_quiet, src_inf_minus_1;
  const i32v src_bias, src_exp_max;
  const bool nan_by_class, neg_const;
  const u32v neg_extra;

  explicit VectorKernel(const Plan& plan)
      : p(plan),
        lp(plan),
        src_m(splat(static_cast<std::uint32_t>(plan.src_m))),
        src_sign_shift(splat(static_cast<std::uint32_t>(plan.src_width - 1))),
        src_mag_mask(splat((std::uint32_t{1} << (plan.src_width - 1)) - 1)),
        src_frac_mask(splat((std::uint32_t{1} << plan.src_m) - 1)),
        src_implicit(splat(std::uint32_t{1} << plan.src_m)),
        src_align(splat(static_cast<std::uint32_t>(23 - plan.src_m))),
        src_quiet(splat(std::uint32_t{1} << (plan.src_m - 1))),
        src_inf_minus_1(splat((static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m) - 1)),
        src_bias(splat_i(plan.src_bias)),
        src_exp_max(splat_i(plan.src_exp_max)),
        nan_by_class(plan.nan_by_class),
        neg_const(plan.neg_const),
        neg_extra(splat(plan.neg_extra)) {}

  /// Source codes x (widened to 32 bits) -> codes, flags (when F), and the lanes the scalar
  /// kernel must decide.
  SOFTMX_LANES_INLINE void operator()(u32v x, int shift, u32v& code, u32v& fl, i32v& fallback) const {
    u32v sgn = x >> src_sign_shift;
    const u32v a = x & src_mag_mask;
    const i32v e = reinterpret_cast<i32v>(a >> src_m);
    const u32v frac = a & src_frac_mask;
    u32v sig;
    i32v E = maxi(e, splat_i(1)) - src_bias;
    if constexpr (!Norm) {
      // The implicit bit is set for source subnormals too: make_plan skips normalising only
      // when every source subnormal, and that bogus value below 2^(emin_src + 1), lies below
      // half the destination's smallest subnormal, where both round and flag alike (inexact,
      // tiny, the same result in every mode). Zeros are decided by their class below.
      sig = (frac << src_align) | 0x800000;
    } else {
      sig = (frac | (reinterpret_cast<u32v>(e != 0) & src_implicit)) << src_align;
      // An exact int -> float conversion finds the leading one (sig < 2^24 is exact in f32).
      const u32v fb = reinterpret_cast<u32v>(__builtin_convertvector(reinterpret_cast<i32v>(sig), f32v));
      E += reinterpret_cast<i32v>(fb >> 23) - 150;
      sig = (fb & 0x7FFFFF) | 0x800000;
    }
    if constexpr (Scaled) E -= shift;
    u32v extra = splat(0);
    if constexpr (unsigned_dst) {
      extra = (splat(0) - sgn) & neg_extra;  // invalid for a negative under E8m0Negative::magnitude
      sgn = splat(0);                        // the magnitude is rounded (or the neg class decides)
    }
    fallback = splat_i(0);
    round_pack_lanes<D, R, F>(lp, sgn, sig, E, extra, code, fl, fallback);
    // E8M0 (no subnormals: the quantum follows the leading bit) reads source normals as they
    // are and hands source subnormals to the scalar kernel.
    if constexpr (e8m0 && !Norm) fallback |= e == 0;

    // Zeros, infinities and NaNs take their class's result (indexed by the input's sign).
    // One unsigned compare finds zeros (a - 1 wraps) and Inf/NaN (a >= the Inf code).
    i32v decided = splat_i(0);
    i32v nan_lanes = splat_i(0);  // NaNs whose payload reaches the result
    if (any_at_least(a - 1, src_inf_minus_1)) [[unlikely]] {
      decided = (a - 1) >= src_inf_minus_1;
      const i32v special = e == src_exp_max;
      const i32v is_zero = a == 0;
      const i32v neg_in = reinterpret_cast<i32v>(x >> src_sign_shift) != 0;
      const i32v is_nan = special & (reinterpret_cast<i32v>(frac) != 0);
      const i32v quiet = reinterpret_cast<i32v>(frac & src_quiet) != 0;
      const u32v nan_code = sel(quiet, by_sign(neg_in, p.qnan.code[0], p.qnan.code[1]),
                                by_sign(neg_in, p.snan.code[0], p.snan.code[1]));
      const u32v special_code = sel(is_nan, nan_code, by_sign(neg_in, p.inf.code[0], p.inf.code[1]));
      code = sel(special, special_code, sel(is_zero, by_sign(neg_in, p.zero.code[0], p.zero.code[1]), code));
      if constexpr (F) {
        const u32v nan_fl = sel(quiet, by_sign(neg_in, p.qnan.flags[0], p.qnan.flags[1]),
                                by_sign(neg_in, p.snan.flags[0], p.snan.flags[1]));
        const u32v special_fl = sel(is_nan, nan_fl, by_sign(neg_in, p.inf.flags[0], p.inf.flags[1]));
        fl = sel(special, special_fl, sel(is_zero, by_sign(neg_in, p.zero.flags[0], p.zero.flags[1]), fl));
      }
      if (!nan_by_class) nan_lanes = is_nan;
    }
    if constexpr (unsigned_dst) {
      if (neg_const) {
        const i32v neg_lane = (reinterpret_cast<i32v>(x >> src_sign_shift) != 0) & ~decided;
        code = sel(neg_lane, splat(p.neg.code[1]), code);
        if constexpr (F) fl = sel(neg_lane, splat(p.neg.flags[1]), fl);
        decided |= neg_lane;
      }
    }
    fallback = (fallback & ~decided) | nan_lanes;
  }

  /// The scalar reference for one lane.
  Result scalar(std::uint64_t bits, int shift) const { return Scaled ? scaled_scalar(p, bits, shift) : p.call(bits); }
};

/// Converts n source codes (std::uint32_t for f32, std::uint16_t for f16 and bf16) into
/// destination D's codes (std::uint8_t, std::uint16_t for f16 and bf16), with flags when F;
/// scaled kernels divide by 2^shift first (see VectorKernel).
template <int D, Rounding R, bool F, bool Norm, bool Scaled = false>
void convert_batch(const Plan& plan, const void* in, void* out_v, Flags* flags_out, std::size_t n, int shift) {
  using Out = OutOf<D>;
  Out* out = static_cast<Out*>(out_v);
  const VectorKernel<D, R, F, Norm, Scaled> k(plan);
  const bool in32 = plan.src_width == 32;
  auto scalar = [&](std::size_t j) {
    const Result r = k.scalar(load_one(in, j, in32), shift);
    out[j] = static_cast<Out>(r.code);
    if constexpr (F) flags_out[j] = r.flags;
  };
  // Without flags, only E8M0's low end (or a runtime format's without subnormals) and
  // payload-carrying NaNs ever need the scalar kernel.
  const bool may_fall_back = F || VectorKernel<D, R, F, Norm, Scaled>::e8m0 || !plan.nan_by_class ||
                             (DstTraits<D>::runtime && !plan.rt.subnormals);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v code, fl{};
    i32v fallback;
    k(load_lanes(in, i, in32), shift, code, fl, fallback);
    store_codes(out + i, code);
    if constexpr (F) store_codes(flags_out + i, fl);
    if (!may_fall_back) continue;
    if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
      for (; lanes; lanes &= lanes - 1) scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
    }
  }
  for (; i < n; ++i) scalar(i);
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
