// emulator/simd/lanes.hpp: the round-and-pack of core/round_pack.hpp, N lanes at a time
// (internal; included by one translation unit per instruction set, simd/isa_*.cpp).
//
// Each isa_*.cpp defines SOFTMX_SIMD_NS (a namespace private to it, so that nothing compiled
// for AVX-512 can be merged by the linker into code that runs on a CPU without it) and
// SOFTMX_SIMD_LANES (N: 16 for AVX-512, 8 for AVX2), and is compiled
// with the matching -m flags. The code is GNU vector extensions, which GCC and Clang lower to
// the instruction set in force: one source for every ISA, as one round_pack serves every format.
//
// The kernels, each in its own header, included here in the order they build on each other:
//   simd/lane_ops.hpp           the vector types and lane operations, loads and stores;
//   simd/round_pack_lanes.hpp   the lane algorithm (round_pack_lanes, DstTraits, LanePlan);
//   simd/batch_lanes.hpp        the general kernel (VectorKernel, convert_batch);
//   simd/rne_float_lanes.hpp    rne without flags through the FPU's rounding (RneFloatKernel);
//   simd/e8m0_lanes.hpp         E8M0 without flags from the exponent field;
//   simd/consecutive_lanes.hpp  consecutive inputs (sweeps), binade by binade;
// and below them the pickers: the kernel for a Plan's destination, mode and options (pick,
// pick_consecutive, pick_segments), which the instruction set's entry points return
// (simd/isa_entries.hpp). No include guard: one inclusion per translation unit.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/format_table.hpp"
#include "simd/batch_lanes.hpp"
#include "simd/consecutive_lanes.hpp"
#include "simd/e8m0_lanes.hpp"
#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"
#include "simd/rne_float_lanes.hpp"
#include "simd/round_pack_lanes.hpp"

#ifndef SOFTMX_SIMD_NS
#error "define SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES before including simd/lanes.hpp"
#endif

namespace softmx::simd::SOFTMX_SIMD_NS {

/// Whether destination D has a kernel without normalisation (Plan::normalize can be false).
template <int D>
constexpr bool can_skip_normalize() {
  if constexpr (DstTraits<D>::runtime) {
    return false;  // runtime destinations always normalise (one kernel fewer per shape)
  } else {
    constexpr Format f = detail::kFormats[D];
    return !f.subnormals || detail::kFormats[static_cast<int>(FormatId::f32)].emin() <= f.emin() - f.man_bits - 2;
  }
}

template <int D, Rounding R>
SegmentsFn pick_segments_norm(const Plan& p) {
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return &consecutive_segments<D, R, false>;
  }
  return &consecutive_segments<D, R, true>;
}

template <int D, Rounding R>
ConsecutiveFn pick_consecutive_norm(const Plan& p, bool with_flags) {
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return with_flags ? &convert_consecutive<D, R, true, false> : &convert_consecutive<D, R, false, false>;
  }
  return with_flags ? &convert_consecutive<D, R, true, true> : &convert_consecutive<D, R, false, true>;
}

/// rne without flags: the FPU-assisted kernel while the FPU is in its default mode, otherwise
/// the general one.
template <int D>
void convert_rne(const Plan& p, const void* in, void* out, Flags* flags, std::size_t n, int shift) {
  if (fpu_is_default()) return convert_rne_float<D>(p, in, out, n);
  if (p.normalize) return convert_batch<D, Rounding::rne, false, true>(p, in, out, flags, n, shift);
  if constexpr (can_skip_normalize<D>()) return convert_batch<D, Rounding::rne, false, false>(p, in, out, flags, n, shift);
  return convert_batch<D, Rounding::rne, false, true>(p, in, out, flags, n, shift);
}

template <int D, Rounding R>
BatchFn pick_norm(const Plan& p, bool with_flags, bool scaled) {
  using T = DstTraits<D>;
  if (scaled) {
    // Block quantization: the named MX elements, and a runtime element (signed, at most 8
    // bits: mx_element_reason), whose fields the same kernel reads from the plan.
    if constexpr ((!T::runtime && is_mx_element(static_cast<FormatId>(D))) ||
                  (T::runtime && !T::wide && !T::unsigned_dst))
      return with_flags ? &convert_batch<D, R, true, true, true> : &convert_batch<D, R, false, true, true>;
    return nullptr;
  }
  if constexpr (R == Rounding::rne && !T::no_subnormals) {
    if (!with_flags && (p.src == FormatId::f32 || p.src == FormatId::bf16) && rne_float_serves(p)) return &convert_rne<D>;
  }
  if constexpr (T::no_subnormals) {
    if (!with_flags && (p.src == FormatId::f32 || p.src == FormatId::bf16)) return &convert_e8m0<R>;
  }
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return with_flags ? &convert_batch<D, R, true, false> : &convert_batch<D, R, false, false>;
  }
  return with_flags ? &convert_batch<D, R, true, true> : &convert_batch<D, R, false, true>;
}

/// The kernel for rounding mode `r`: pick(std::integral_constant<Rounding, R>{}) with R = r, so
/// that each mode's kernel is its own instantiation; a null kernel for Rounding::rs (stochastic
/// rounding has no vector kernel: it stays on the scalar path).
template <class Fn, class Pick>
Fn by_rounding(Rounding r, const Pick& pick) {
  switch (r) {
    case Rounding::rne: return pick(std::integral_constant<Rounding, Rounding::rne>{});
    case Rounding::rna: return pick(std::integral_constant<Rounding, Rounding::rna>{});
    case Rounding::rz: return pick(std::integral_constant<Rounding, Rounding::rz>{});
    case Rounding::ru: return pick(std::integral_constant<Rounding, Rounding::ru>{});
    case Rounding::rd: return pick(std::integral_constant<Rounding, Rounding::rd>{});
    case Rounding::ro: return pick(std::integral_constant<Rounding, Rounding::ro>{});
    case Rounding::rs: break;
  }
  return nullptr;
}

template <int D>
BatchFn pick_mode(const Plan& p, bool with_flags, bool scaled) {
  return by_rounding<BatchFn>(p.ctx.rounding,
                            [&](auto r) { return pick_norm<D, decltype(r)::value>(p, with_flags, scaled); });
}

template <int D>
ConsecutiveFn pick_consecutive_mode(const Plan& p, bool with_flags) {
  return by_rounding<ConsecutiveFn>(p.ctx.rounding,
                                  [&](auto r) { return pick_consecutive_norm<D, decltype(r)::value>(p, with_flags); });
}

template <int D>
SegmentsFn pick_segments_mode(const Plan& p) {
  return by_rounding<SegmentsFn>(p.ctx.rounding,
                               [&](auto r) { return pick_segments_norm<D, decltype(r)::value>(p); });
}

/// Calls f.template operator()<D>() for the runtime shape of the plan's destination.
template <class Fn>
auto with_runtime_shape(const Plan& p, Fn&& f) {
  const bool wide = p.rt.width > 8;
  switch (p.rt.sign) {
    case SignEncoding::magnitude:
      return wide ? f.template operator()<runtime_dst(SignEncoding::magnitude, true)>()
                  : f.template operator()<runtime_dst(SignEncoding::magnitude, false)>();
    case SignEncoding::twos_complement:
      return wide ? f.template operator()<runtime_dst(SignEncoding::twos_complement, true)>()
                  : f.template operator()<runtime_dst(SignEncoding::twos_complement, false)>();
    case SignEncoding::none: break;
  }
  return wide ? f.template operator()<runtime_dst(SignEncoding::none, true)>()
              : f.template operator()<runtime_dst(SignEncoding::none, false)>();
}

inline SegmentsFn pick_segments(const Plan& p) {
  switch (p.dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_segments_mode<static_cast<int>(FormatId::F)>(p);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime: return with_runtime_shape(p, [&]<int D>() { return pick_segments_mode<D>(p); });
    default: break;
  }
  return nullptr;
}

inline ConsecutiveFn pick_consecutive(const Plan& p, bool with_flags) {
  switch (p.dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_consecutive_mode<static_cast<int>(FormatId::F)>(p, with_flags);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime:
      return with_runtime_shape(p, [&]<int D>() { return pick_consecutive_mode<D>(p, with_flags); });
    default: break;
  }
  return nullptr;
}

inline BatchFn pick(const Plan& p, FormatId dst, bool with_flags, bool scaled) {
  switch (dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_mode<static_cast<int>(FormatId::F)>(p, with_flags, scaled);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime:
      return with_runtime_shape(p, [&]<int D>() { return pick_mode<D>(p, with_flags, scaled); });
    default: break;
  }
  return nullptr;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
