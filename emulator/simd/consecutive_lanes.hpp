// emulator/simd/consecutive_lanes.hpp: conversions of consecutive source codes (a sweep's inputs)
// binade by binade (internal; included through simd/lanes.hpp, which says what SOFTMX_SIMD_NS and
// SOFTMX_SIMD_LANES mean): convert_consecutive_to and its sinks, which store the results
// (convert_consecutive) or keep only where they change (consecutive_segments).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "simd/batch_lanes.hpp"
#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"
#include "simd/round_pack_lanes.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// Where convert_consecutive puts results: codes and flags arrays (StoreSink), or the segments
/// of equal results (SegmentSink). `vec` takes N lanes starting at position pos, `one` a single
/// result; positions arrive in increasing order.
template <class Out, bool F>
struct StoreSink {
  Out* out;
  Flags* flags;
  SOFTMX_LANES_INLINE void vec(std::size_t pos, u32v code, u32v fl) {
    store_codes(out + pos, code);
    if constexpr (F) store_codes(flags + pos, fl);
  }
  void one(std::size_t pos, std::uint32_t code, Flags fl) {
    out[pos] = static_cast<Out>(code);
    if constexpr (F) flags[pos] = fl;
  }
  /// len results all equal to (code, fl).
  void fill(std::size_t pos, std::size_t len, std::uint32_t code, Flags fl) {
    std::size_t j = 0;
    for (; j + N <= len; j += N) vec(pos + j, splat(code), splat(fl));
    for (; j < len; ++j) one(pos + j, code, fl);
  }
};

struct SegmentSink {
  std::uint64_t first;
  Segment* out;
  std::size_t count = 0;
  // The previous input's key (code | flags << 16): in lane N - 1 of prev_vec after a vector, in
  // prev after a single result. ~0 at the start: no result has that key.
  u32v prev_vec = splat(~std::uint32_t{0});
  std::uint32_t prev = ~std::uint32_t{0};
  bool in_vec = true;

  void emit(std::size_t pos, std::uint32_t k) {
    out[count++] = Segment{first + pos, k & 0xFFFFu, static_cast<Flags>(k >> 16)};
  }
  SOFTMX_LANES_INLINE void vec(std::size_t pos, u32v code, u32v fl) {
    const u32v k = code | (fl << 16);
    if (!in_vec) prev_vec = splat(prev);
    // Each lane against its predecessor: [previous key, k[0], ..., k[N-2]]. Keeping the previous
    // key in a vector leaves one permute, not a lane extraction, on the loop-carried path.
#if SOFTMX_SIMD_LANES == 16
    const u32v before = __builtin_shufflevector(prev_vec, k, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
#elif SOFTMX_SIMD_LANES == 8
    const u32v before = __builtin_shufflevector(prev_vec, k, 7, 8, 9, 10, 11, 12, 13, 14);
#else
    u32v before = k;
    for (int j = N - 1; j > 0; --j) before[j] = k[j - 1];
    before[0] = prev_vec[N - 1];
#endif
    if (unsigned lanes = lanes_differ(k, before)) [[unlikely]] {
      for (; lanes; lanes &= lanes - 1) {
        const int j = __builtin_ctz(lanes);
        emit(pos + static_cast<std::size_t>(j), k[j]);
      }
    }
    prev_vec = k;
    in_vec = true;
  }
  void one(std::size_t pos, std::uint32_t code, Flags fl) {
    if (in_vec) prev = prev_vec[N - 1];
    in_vec = false;
    const std::uint32_t k = code | static_cast<std::uint32_t>(fl) << 16;
    if (k != prev) emit(pos, k);
    prev = k;
  }
  /// len results all equal to (code, fl): at most the first starts a segment.
  void fill(std::size_t pos, std::size_t len, std::uint32_t code, Flags fl) {
    if (len) one(pos, code, fl);
  }
};

/// Converts the n consecutive source codes first, first + 1, ... (a sweep's inputs) into
/// destination D's codes and flags, as convert_batch does, but binade by binade: within the
/// codes of one sign and one exponent field every lane has the same sign and exponent, so
/// round_pack_lanes gets them as loop-invariant vectors and the compiler hoists everything that
/// depends on them out of the loop. The same algorithm on the same values; binades of zeros and
/// subnormals, and of Inf and NaN, go through convert_batch. Results go to `sink`.
template <int D, Rounding R, bool F, bool Norm, class Sink>
void convert_consecutive_to(const Plan& plan, std::uint64_t first, std::size_t n, Sink& sink) {
  using Out = OutOf<D>;
  using T = DstTraits<D>;
  constexpr bool e8m0 = T::unsigned_dst;  // the sign dropped, or the negative class
  const Plan& p = plan;
  const bool in32 = p.src_width == 32;
  const LanePlan lp(p);
  const std::uint32_t frac_mask = (std::uint32_t{1} << p.src_m) - 1;
  u32v iota;
  for (int j = 0; j < N; ++j) iota[j] = static_cast<std::uint32_t>(j);
  constexpr std::size_t kBuf = 256;
  alignas(64) std::uint32_t buf32[kBuf];
  alignas(64) std::uint16_t buf16[kBuf];
  alignas(64) Out codes[kBuf];
  alignas(64) Flags fls[kBuf];
  std::size_t i = 0;
  while (i < n) {
    const std::uint64_t x0 = first + i;
    const std::uint64_t binade = x0 >> p.src_m;
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(n - i, ((binade + 1) << p.src_m) - x0));
    const std::uint32_t sign = static_cast<std::uint32_t>(binade >> (p.src_width - 1 - p.src_m));
    const int e = static_cast<int>(binade & static_cast<std::uint64_t>(p.src_exp_max));
    if (e8m0 && sign && p.neg_const && e != 0 && e != p.src_exp_max) {
      // Finite non-zero negatives into E8M0 under E8m0Negative::nan or min_if_satfinite: all the
      // negative class.
      sink.fill(i, len, p.neg.code[1], p.neg.flags[1]);
      i += len;
      continue;
    }
    if (e == 0 || e == p.src_exp_max) {
      // Zeros and subnormals, Inf and NaN: the general kernel.
      for (std::size_t k = 0; k < len; k += kBuf) {
        const std::size_t m = std::min(kBuf, len - k);
        for (std::size_t j = 0; j < m; ++j) {
          if (in32) buf32[j] = static_cast<std::uint32_t>(x0 + k + j);
          else buf16[j] = static_cast<std::uint16_t>(x0 + k + j);
        }
        convert_batch<D, R, F, Norm>(p, in32 ? static_cast<const void*>(buf32) : buf16, codes, F ? fls : nullptr, m, 0);
        std::size_t j = 0;
        for (; j + N <= m; j += N) sink.vec(i + k + j, load_narrow(codes + j), F ? load_narrow(fls + j) : splat(0));
        for (; j < m; ++j) sink.one(i + k + j, codes[j], F ? fls[j] : Flags{0});
      }
      i += len;
      continue;
    }
    // A binade of normal source values: sig = (fraction | implicit) << align, E uniform.
    const u32v sgn = splat(e8m0 ? 0 : sign);
    const u32v extra = splat(e8m0 && sign ? p.neg_extra : 0);
    const i32v E = splat_i(e - p.src_bias);
    const std::uint32_t frac0 = static_cast<std::uint32_t>(x0) & frac_mask;
    const std::uint32_t implicit = std::uint32_t{1} << p.src_m;
    const int align = 23 - p.src_m;
    std::size_t j = 0;
    // Every binade but the one just below 2^emin has uniform tininess: a loop without the
    // edge test (and, with no lane to hand on outside E8M0, without the fallback test).
    auto lanes_loop = [&](auto no_edge) {
      constexpr bool kNoEdge = decltype(no_edge)::value;
      // A local copy of the sink: its state (the previous key) can stay in registers, which
      // the caller's object, reachable through pointers, could not.
      Sink local = sink;
      // The significands of consecutive inputs in one binade step by N << align per vector (the
      // fraction never carries into the implicit bit before the binade ends).
      u32v sig = ((iota + (frac0 + static_cast<std::uint32_t>(j))) | implicit) << align;
      const u32v step = splat(static_cast<std::uint32_t>(N) << align);
      for (; j + N <= len; j += N, sig += step) {
        u32v code, fl{};
        i32v fallback = splat_i(0);
        round_pack_lanes<D, R, F, LanePlan, kNoEdge>(lp, sgn, sig, E, extra, code, fl, fallback);
        if constexpr (!kNoEdge || T::no_subnormals || T::runtime) {
          if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
            for (; lanes; lanes &= lanes - 1) {
              const int l = __builtin_ctz(lanes);
              const Result r = p.call(x0 + j + static_cast<std::size_t>(l));
              code[l] = static_cast<std::uint32_t>(r.code);
              fl[l] = r.flags;
            }
          }
        }
        local.vec(i + j, code, fl);
      }
      sink = local;
    };
    if (e - p.src_bias == T::emin(lp) - 1) lanes_loop(std::false_type{});
    else lanes_loop(std::true_type{});
    for (; j < len; ++j) {
      const Result r = p.call(x0 + j);
      sink.one(i + j, static_cast<std::uint32_t>(r.code), r.flags);
    }
    i += len;
  }
}

template <int D, Rounding R, bool F, bool Norm>
void convert_consecutive(const Plan& plan, std::uint64_t first, void* out, Flags* flags, std::size_t n) {
  using Out = OutOf<D>;
  StoreSink<Out, F> sink{static_cast<Out*>(out), flags};
  convert_consecutive_to<D, R, F, Norm>(plan, first, n, sink);
}

template <int D, Rounding R, bool Norm>
std::size_t consecutive_segments(const Plan& plan, std::uint64_t first, std::size_t n, Segment* out) {
  SegmentSink sink{first, out};
  convert_consecutive_to<D, R, true, Norm>(plan, first, n, sink);
  return sink.count;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
