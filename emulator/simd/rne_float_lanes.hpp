// emulator/simd/rne_float_lanes.hpp: rne without flags from f32 and bf16 through the FPU's own
// round to nearest even (internal; included through simd/lanes.hpp, which says what SOFTMX_SIMD_NS
// and SOFTMX_SIMD_LANES mean): RneFloatKernel, convert_rne_float, and rne_float_serves, which says
// for which destinations it gives the general kernel's results.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"
#include "simd/round_pack_lanes.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// rne without flags from f32 (or bf16, widened by a shift) into a destination with
/// subnormals, using the FPU's own round-to-nearest-even for the destination's subnormal range
/// and the classic integer rounding of the f32 bit pattern for its normal range:
///   |x| <  2^emin: code = bits(|x| + 2^(emin - m + 23)) - bits(2^(emin - m + 23))
///                  (the f32 sum's last bit is worth one destination subnormal quantum);
///   |x| >= 2^emin: code = (bits + 2^(22 - m) - 1 + last kept bit) >> (23 - m), rebiased
///                  (a carry runs into the exponent field, as round_pack's base + n).
/// Zeros, infinities and NaNs take the Plan's class results (as VectorKernel); only a NaN whose
/// payload reaches the result (!nan_by_class) needs the scalar kernel. About half the operations
/// of the general kernel; same results (test_batch_simd*.cpp), and only used while the FPU is in
/// its default mode (fpu_is_default).
template <int D>
struct RneFloatKernel {
  using T = DstTraits<D>;
  static_assert(!T::no_subnormals);
  using Out = OutOf<D>;
  const Plan& p;
  const LanePlan lp;  // a runtime destination's fields (rne_float_serves checked them)
  const std::uint32_t magic, min_normal, rebias;
  const u32v max0, max1, ovf0, ovf1, neg_code;
  const bool ovf_is_max, neg_const;
  /// special(): lanes with (|x| - zero_off) >= special_min go to classes(). zero_off = 1 makes
  /// zeros wrap into them; 0 leaves zeros to operator(), when it gives the zero class's codes
  /// (checked in the constructor: +0 and -0 through operator()), which spares data with many
  /// zeros (activations after a ReLU) the classes() step.
  u32v zero_off = splat(1), special_min = splat(0x7F7FFFFFu);

  explicit RneFloatKernel(const Plan& plan)
      : p(plan),
        lp(plan),
        magic(static_cast<std::uint32_t>(T::emin(lp) - T::m(lp) + 23 + 127) << 23),
        min_normal(static_cast<std::uint32_t>(T::emin(lp) + 127) << 23),
        rebias(static_cast<std::uint32_t>(127 - T::bias(lp)) << T::m(lp)),
        max0(splat(plan.max_mag[0])),
        max1(splat(plan.max_mag[1])),
        ovf0(splat(plan.ovf_code[0])),
        ovf1(splat(plan.ovf_code[1])),
        neg_code(splat(plan.neg.code[1])),
        ovf_is_max(plan.ovf_is_max),
        neg_const(plan.neg_const) {
    u32v signed_zeros;  // +0 in even lanes, -0 in odd ones
    for (int j = 0; j < N; ++j) signed_zeros[j] = (j & 1) ? 0x80000000u : 0u;
    const u32v zeros = (*this)(signed_zeros);
    bool same = true;
    for (int j = 0; j < N; ++j) same = same && zeros[j] == p.zero.code[j & 1];
    if (same) zero_off = splat(0), special_min = splat(0x7F800000u);
  }

  /// Source codes as f32 bit patterns (bf16 already shifted up): the codes of finite lanes
  /// (non-zero ones; zeros too where the constructor found them right), the rest settled by
  /// classes().
  SOFTMX_LANES_INLINE u32v operator()(u32v x) const {
    const int m = T::m(lp);
    const u32v a = x & 0x7FFFFFFFu;
    const u32v sub = reinterpret_cast<u32v>(reinterpret_cast<f32v>(a) + reinterpret_cast<f32v>(splat(magic))) - magic;
    const u32v nor = ((a + ((1u << (22 - m)) - 1) + ((a >> (23 - m)) & 1u)) >> (23 - m)) - rebias;
    const u32v mag = a < min_normal ? sub : nor;
    const i32v neg = reinterpret_cast<i32v>(x) < 0;
    u32v code;
    if constexpr (T::twos) {
      const u32v lim = neg ? max1 : max0;
      const u32v c = mag > lim ? lim : mag;
      code = neg ? (-c) & ((1u << T::width(lp)) - 1) : c;
    } else if constexpr (T::unsigned_dst) {
      code = mag > max0 ? max0 : mag;  // the magnitude (or the negative class, below)
    } else if constexpr (T::runtime) {
      const u32v c = mag > max0 ? max0 : mag;
      code = c | (((x >> 31) & reinterpret_cast<u32v>((c != 0) | lp.not_fnuz)) << (T::width(lp) - 1));
    } else {
      code = (mag > max0 ? max0 : mag) | ((x >> 31) << (T::width(lp) - 1));
    }
    if (!ovf_is_max) code = mag > (neg ? max1 : max0) ? (neg ? ovf1 : ovf0) : code;
    if constexpr (T::unsigned_dst) {
      if (neg_const) code = neg ? neg_code : code;
    }
    return code;
  }

  /// Lanes that are infinities or NaNs, and zeros unless operator() gives their class's codes
  /// (one unsigned compare: |x| - 1 wraps for zeros).
  SOFTMX_LANES_INLINE i32v special(u32v x) const { return ((x & 0x7FFFFFFFu) - zero_off) >= special_min; }

  /// `code` with the special lanes of x given their class's result (zeros, infinities, NaNs by
  /// quiet bit and sign), as VectorKernel does; the classes decide before the negative class.
  /// Sets `payload` to the NaN lanes whose result depends on the payload (!nan_by_class).
  SOFTMX_LANES_INLINE u32v classes(u32v x, u32v code, i32v& payload) const {
    const u32v a = x & 0x7FFFFFFFu;
    const i32v neg = reinterpret_cast<i32v>(x) < 0;
    const i32v special = a >= 0x7F800000u;
    const i32v is_nan = a > 0x7F800000u;
    const i32v quiet = (x & 0x400000u) != 0;
    const u32v nan_code =
        sel(quiet, by_sign(neg, p.qnan.code[0], p.qnan.code[1]), by_sign(neg, p.snan.code[0], p.snan.code[1]));
    const u32v special_code = sel(is_nan, nan_code, by_sign(neg, p.inf.code[0], p.inf.code[1]));
    payload = p.nan_by_class ? splat_i(0) : is_nan;
    return sel(special, special_code, sel(a == 0, by_sign(neg, p.zero.code[0], p.zero.code[1]), code));
  }
};

/// convert_rne_float's loop over 4N codes at a time from position i; stops before the first
/// group with a lane for the scalar kernel (a payload NaN) and returns its position (or the
/// position after the last whole group). No call in the loop, so the constants stay in registers.
template <int D, bool In32>
std::size_t convert_rne_float_groups(const RneFloatKernel<D>& k, const void* in, OutOf<D>* out, std::size_t i,
                                     std::size_t n) {
  auto load = [&](std::size_t j) {
    u32v x = load_lanes(in, j, In32);
    if constexpr (!In32) x <<= 16;  // bf16 is the top half of an f32
    return x;
  };
  for (; i + 4 * N <= n; i += 4 * N) {
    const u32v x0 = load(i), x1 = load(i + N), x2 = load(i + 2 * N), x3 = load(i + 3 * N);
    u32v c0 = k(x0), c1 = k(x1), c2 = k(x2), c3 = k(x3);
    const i32v s0 = k.special(x0), s1 = k.special(x1), s2 = k.special(x2), s3 = k.special(x3);
    if (lane_bits(s0 | s1 | s2 | s3)) [[unlikely]] {
      i32v p0, p1, p2, p3;
      c0 = k.classes(x0, c0, p0);
      c1 = k.classes(x1, c1, p1);
      c2 = k.classes(x2, c2, p2);
      c3 = k.classes(x3, c3, p3);
      if (lane_bits(p0 | p1 | p2 | p3)) return i;
    }
    store_codes4(out + i, c0, c1, c2, c3);
  }
  return i;
}

template <int D, bool In32>
void convert_rne_float_from(const Plan& p, const void* in, void* out_v, std::size_t n) {
  using Out = OutOf<D>;
  Out* out = static_cast<Out*>(out_v);
  const RneFloatKernel<D> k(p);
  auto scalar = [&](std::size_t j) { out[j] = static_cast<Out>(p.call(load_one(in, j, In32)).code); };
  std::size_t i = 0;
  for (;;) {
    i = convert_rne_float_groups<D, In32>(k, in, out, i, n);
    if (i + 4 * N > n) break;
    for (const std::size_t end = i + 4 * N; i < end; ++i) scalar(i);  // a group with a payload NaN
  }
  for (; i + N <= n; i += N) {  // fewer than 4N left: a vector at a time, then the scalar kernel
    u32v x = load_lanes(in, i, In32);
    if constexpr (!In32) x <<= 16;
    u32v code = k(x);
    i32v payload = splat_i(0);
    if (lane_bits(k.special(x))) code = k.classes(x, code, payload);
    store_codes(out + i, code);
    for (unsigned lanes = lane_bits(payload); lanes; lanes &= lanes - 1)
      scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
  }
  for (; i < n; ++i) scalar(i);
}

template <int D>
void convert_rne_float(const Plan& p, const void* in, void* out, std::size_t n) {
  if (p.src_width == 32) return convert_rne_float_from<D, true>(p, in, out, n);
  convert_rne_float_from<D, false>(p, in, out, n);
}

/// Whether convert_rne_float serves the plan's destination: always for the named ones; for a
/// runtime one when its subnormal quantum and smallest normal are f32 normal numbers and
/// it has subnormals (the FPU rounds at the quantum 2^(emin - m) by adding 2^(emin - m + 23)).
inline bool rne_float_serves(const Plan& p) {
  if (p.dst != FormatId::runtime) return true;
  const int q = p.rt.emin - p.rt.man_bits + 23;
  return p.rt.subnormals && p.rt.emin >= -126 && q >= -126 && q <= 127 && p.rt.emin <= 127;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
