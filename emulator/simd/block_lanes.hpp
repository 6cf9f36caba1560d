// emulator/simd/block_lanes.hpp: MX block quantization N lanes at a time (internal; included
// by simd/isa_*.cpp after simd/lanes.hpp, into the same per-instruction-set namespace).
//
// Per block: the largest magnitude, the scale exponent s (the floor rule computed here, other
// rules through BlockHooks), then every element V * 2^-s rounded once into the element format.
// The elements take one of two paths, with the same results (test_batch_simd*.cpp):
//
//  - The general path: VectorKernel, scaled (normalises the significand, decides zeros, Inf and
//    NaN by class, hands rare lanes to the scalar kernel, makes each element's flags).
//
//  - The direct path, for a block of zeros and normal numbers only (no source subnormal, no Inf
//    or NaN) whose scaled values stay below 2^128, into a sign-magnitude FP element whose
//    dialect codes zeros and overflow the plain way (checked once per call: Direct::ok). That
//    is every block of ordinary data. The scaled value is an f32 found by integer arithmetic:
//      y = the f32 bits of |V| with s subtracted from the exponent field,
//    and any y below 2^-126 is raised to 2^-126. That changes no result and no flag: every such
//    value, and 2^-126, lies below half the element's smallest subnormal (2^-17 for E5M2, the
//    smallest), where in every mode each non-zero value rounds alike (to zero, or to the
//    smallest subnormal when rounding away from zero) and is inexact and tiny. y is then
//    rounded as an f32 with no subnormals:
//      - rne, with the FPU in its default mode (fpu_is_default): one f32 addition of a power
//        of two chosen per lane, so that the FPU rounds y at the element's quantum in both the
//        subnormal and the normal range (direct_rne_fpu gives the argument);
//      - every other mode: round_pack_lanes on (sign, significand, exponent) read from y.
//    A runtime element (D = runtime_dst(...)) takes the same path with its fields read from the
//    plan, where they keep this arithmetic in the f32 range (Direct::ok).
//    Flags are not made per element: the call keeps the OR, across all its lanes, of
//      the bits of y below the element's quantum, or of y ^ RN(y) (non-zero: inexact),
//      the same from tiny lanes only                 (non-zero: underflow),
//      the largest magnitude code (rne; above the largest finite one: overflow and inexact),
//    and reduces them once at the end. A block needs only the OR of its flags (MxTensor::flags),
//    and these are a handful of ORs where per-element flags were a dozen operations a lane.
//    Tininess after rounding under rne is one compare: a value in [2^(emin-1), 2^emin) rounds,
//    at the element's precision with unbounded exponent, below 2^emin exactly when it is below
//    2^emin - 2^(emin-m-2) (the midpoint; the tie goes to 2^emin, the even neighbour).

#ifndef SOFTMX_SIMD_NS
#error "include simd/lanes.hpp before simd/block_lanes.hpp"
#endif

#ifndef SOFTMX_LANES_INLINE_LAMBDA
#define SOFTMX_LANES_INLINE_LAMBDA __attribute__((always_inline))
#endif

#include <utility>

namespace softmx::simd::SOFTMX_SIMD_NS {

/// The largest of the lanes.
SOFTMX_LANES_INLINE std::uint32_t reduce_max(u32v m) {
  // Halve the vector until one lane is left: lanes i and i + N/2, i + N/4, ... (in registers;
  // extracting lanes one by one costs more).
#if SOFTMX_SIMD_LANES == 16
  m = __builtin_shufflevector(m, m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7) > m
          ? __builtin_shufflevector(m, m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)
          : m;
  const u32v t4 = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
  m = t4 > m ? t4 : m;
  const u32v t2 = __builtin_shufflevector(m, m, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
  m = t2 > m ? t2 : m;
  const u32v t1 = __builtin_shufflevector(m, m, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
  m = t1 > m ? t1 : m;
#elif SOFTMX_SIMD_LANES == 8
  const u32v t4 = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
  m = t4 > m ? t4 : m;
  const u32v t2 = __builtin_shufflevector(m, m, 2, 3, 0, 1, 2, 3, 0, 1);
  m = t2 > m ? t2 : m;
  const u32v t1 = __builtin_shufflevector(m, m, 1, 0, 1, 0, 1, 0, 1, 0);
  m = t1 > m ? t1 : m;
#else
  for (int j = 1; j < N; ++j) m[0] = m[j] > m[0] ? m[j] : m[0];
#endif
  return m[0];
}

/// log2(N): the levels of the transposed reduction.
constexpr int kLog2N = N == 16 ? 4 : N == 8 ? 3 : N == 4 ? 2 : N == 2 ? 1 : 0;
static_assert(1 << kLog2N == N, "transposed_max needs N a power of two up to 16");

/// i with its kLog2N bits reversed: fold_level leaves vector i's largest lane in lane
/// bit_reverse(i) (a bit-reversal permutation is its own inverse).
constexpr int bit_reverse(int i) {
  int r = 0;
  for (int b = 0; b < kLog2N; ++b) r |= (i >> b & 1) << (kLog2N - 1 - b);
  return r;
}

/// One level of transposed_max: a and b each hold N / S segments of S lanes (each segment the
/// partial maxima of one vector); the result holds 2N / S segments of S / 2 lanes, segment j
/// the lane-wise larger of the two halves of segment j / 2 of a (j even) or of b (j odd). Lane
/// l of the two halves, as an index into a's lanes then b's.
template <int S>
constexpr int fold_index(int l, bool upper) {
  const int h = S / 2, seg = l / h;
  return (seg % 2 ? N : 0) + seg / 2 * S + l % h + (upper ? h : 0);
}
template <int S, int... L>
SOFTMX_LANES_INLINE u32v fold_max(u32v a, u32v b, std::integer_sequence<int, L...>) {
  // Segments are interleaved (not a's then b's) so that every shuffle stays inside 128-bit
  // lanes below S = 8: one unpack on AVX2.
  const u32v lo = __builtin_shufflevector(a, b, fold_index<S>(L, false)...);
  const u32v hi = __builtin_shufflevector(a, b, fold_index<S>(L, true)...);
  return lo > hi ? lo : hi;
}
template <int S>
SOFTMX_LANES_INLINE void fold_level(u32v* v, int count) {
  for (int i = 0; i < count / 2; ++i) v[i] = fold_max<S>(v[2 * i], v[2 * i + 1], std::make_integer_sequence<int, N>{});
  if constexpr (S > 2) fold_level<S / 2>(v, count / 2);
}

/// v's lanes in bit-reversed order: lane j is v's lane bit_reverse(j) (one permutation).
template <int... L>
SOFTMX_LANES_INLINE u32v bit_reversed(u32v v, std::integer_sequence<int, L...>) {
  return __builtin_shufflevector(v, v, bit_reverse(L)...);
}

/// The largest lane of each of N vectors, at once: lane i of the result is the largest lane of
/// v[i] (v is overwritten). N - 1 lane-wise maxima and 2(N - 1) shuffles, and one permutation
/// (the folds leave vector i's largest in lane bit_reverse(i)), where reduce_max on each takes
/// N log2(N) of each: the scan of a group of blocks (BlockRun::hot).
SOFTMX_LANES_INLINE u32v transposed_max(u32v* v) {
  if constexpr (N > 1) fold_level<N>(v, N);
  return bit_reversed(v[0], std::make_integer_sequence<int, N>{});
}

/// A block kernel's source storage: f32 (32-bit codes), bf16 (the top half of an f32) or f16.
enum class Src : int { f32, bf16, f16 };

/// The direct path's per-call constants for element D: a named format's fields are
/// compile-time constants; a runtime one's (D = runtime_dst(...)) are read from the plan once
/// per call, and the same code reads them through m(), emin(), bias() and width().
template <int D>
struct Direct {
  using T = DstTraits<D>;
  static constexpr bool runtime = T::runtime;
  static constexpr Format f = detail::kFormats[runtime ? static_cast<int>(FormatId::e4m3) : D];  ///< named only
  /// An FP element with subnormals and a sign bit (not MXINT8); for a runtime shape, a
  /// sign-magnitude one of at most 8 bits (the rest is checked at run time: ok).
  static constexpr bool possible =
      runtime ? (!T::unsigned_dst && !T::wide)
              : (f.subnormals && f.width <= 8 && (f.sign == SignEncoding::magnitude ? !f.fixed_point : f.fixed_point));
  /// A two's complement fixed-point element (MXINT8, runtime int4, ...): every value's quantum
  /// is 2^(emin - m), and a negative magnitude n is coded (-n) mod 2^width.
  static constexpr bool twos = T::twos;
  int rt_m = 0, rt_emin = 0, rt_bias = 0, rt_width = 8;  // a runtime element's fields
  /// fnuz (runtime): a result that is zero drops its sign (the -0 code is the NaN).
  bool fnuz = false;
  SOFTMX_LANES_INLINE int m() const {
    if constexpr (runtime) return rt_m; else return f.man_bits;
  }
  SOFTMX_LANES_INLINE int emin() const {
    if constexpr (runtime) return rt_emin; else return f.emin();
  }
  SOFTMX_LANES_INLINE int bias() const {
    if constexpr (runtime) return rt_bias; else return f.bias;
  }
  SOFTMX_LANES_INLINE int width() const {
    if constexpr (runtime) return rt_width; else return f.width;
  }
  /// f32 fraction bits below the element's quantum, normal range.
  SOFTMX_LANES_INLINE int k() const { return 23 - m(); }
  SOFTMX_LANES_INLINE std::uint32_t sign_bit() const { return std::uint32_t{1} << (width() - 1); }
  /// The sign bit of the lanes whose magnitude code is `mag` (fnuz: none on a zero).
  SOFTMX_LANES_INLINE u32v sign_of(u32v sign, u32v mag) const {
    if constexpr (twos) return splat(0);  // a zero is 0 (the sign is in the code: direct_rne_fpu)
    const u32v s = sign >> (32 - width());
    if constexpr (runtime) return fnuz ? (mag != 0 ? s : splat(0)) : s;
    return s;
  }
  /// Whether the plan's dialect codes allow the direct path (an FP element with subnormals,
  /// zeros coded sign | 0 without flags, overflow to one magnitude with the input's sign). A
  /// runtime element must also keep the direct path's arithmetic in the f32 range: every value
  /// up to 2^-126 below half its smallest subnormal (emin - m >= -124, the reason the direct
  /// path may raise such values to 2^-126), its smallest normal and subnormal quantum f32
  /// normals (emin - m + 23 <= 127), and at least one fraction bit (ties by the last fraction
  /// bit, which is the code's last bit).
  bool ok = false;
  u32v max_mag, ovf_mag, tiny_below;
  u32v max_mag1, ovf_mag1;  // twos: the negative side's largest magnitude and overflow code
  /// The overflow code is the largest finite magnitude code or the one above it (satfinite, or
  /// an Inf or NaN code next to the largest), for both signs: then the magnitude code, which
  /// every rounding past the largest makes larger, takes its overflow code by one unsigned
  /// minimum, min(mag, ovf_mag), where a compare and a select took three instructions
  /// (direct_rne_fpu's OvfMin). Read from the plan's codes, for every element alike.
  bool ovf_min = false;
  /// rne (direct_rne_fpu): the f32 bits of the smallest scaled value y that rounds above the
  /// largest finite magnitude (code max_mag), so a block overflows exactly when its largest y,
  /// that of its amax (rounding is monotone), is at least this. That is the midpoint of max_E
  /// and the value one quantum above it, (2 n + 1) 2^(e - 1) with max_E = n 2^e (n the
  /// significand of the code, e its quantum's exponent), when max_mag is odd (the tie rounds to
  /// the even code above), else the f32 after it. 0x7F800000 when that is beyond the f32 range
  /// (no y reaches it). BlockRun::hot checks the group's scaled amaxes against it, where every
  /// lane kept the largest code (FlagBits::largest).
  std::uint32_t ovf_from = 0x7F800000u;
  /// The largest f32 exponent of a scaled value the direct path takes (BlockRun::in_range):
  /// direct_rne_fpu adds 2^(e + 23 - m), or (twos) 2^(emin - m + 23), which must exceed it.
  int ymax = 0;

  explicit Direct(const Plan& p) {
    if constexpr (runtime) {
      rt_m = p.rt.man_bits;
      rt_emin = p.rt.emin;
      rt_bias = p.rt.bias;
      rt_width = p.rt.width;
      fnuz = p.rt.fnuz;
    }
    max_mag = splat(p.max_mag[0]);
    ovf_mag = splat(p.ovf_code[0]);
    max_mag1 = splat(p.max_mag[1]);
    ovf_mag1 = splat(p.ovf_code[1]);
    ovf_min = (p.ovf_code[0] == p.max_mag[0] || p.ovf_code[0] == p.max_mag[0] + 1) && p.max_mag[0] == p.max_mag[1];
    const int mm = m(), em = emin();
    ymax = twos ? em - mm + 22 : 104 + mm;
    if constexpr (!twos) {
      const std::uint32_t mx = p.max_mag[0], ef = mx >> mm, fr = mx & ((1u << mm) - 1);
      const std::uint32_t n = 2 * (ef > 0 ? (1u << mm) + fr : fr) + 1;  // odd, below 2^(m + 2)
      const int top = 31 - __builtin_clz(n);                                // n's leading bit
      const int field = top + (ef > 0 ? static_cast<int>(ef) : 1) - bias() - mm - 1 + 127;  // n 2^(e-1)'s f32 field
      if (field >= 255) {
        ovf_from = 0x7F800000u;
      } else if (field >= 1) {
        ovf_from = (static_cast<std::uint32_t>(field) << 23 | ((n << (23 - top)) & 0x7FFFFFu)) + (mx & 1 ? 0 : 1);
      } else {
        ovf_from = 0;  // not an f32 normal (no format the direct path takes): every group overflows
      }
    }
    const bool in_f32 = !runtime || (p.rt.subnormals && p.rt.fixed_point == twos && p.rt.width <= 8 &&
                                     (twos || mm >= 1) && em - mm >= -124 && em - mm + 23 <= 127);
    // In f32 bits: 2^emin (tininess before rounding) or the rne midpoint below it (after).
    tiny_below = splat(!in_f32 ? 0u
                       : p.tiny_after ? (static_cast<std::uint32_t>(em + 126) << 23) |
                                            (((std::uint32_t{1} << (mm + 1)) - 1) << (22 - mm))
                                      : static_cast<std::uint32_t>(em + 127) << 23);
    if constexpr (possible && twos) {
      // Zeros coded 0 without flags; overflow to the largest code of the value's sign (no
      // Inf or NaN to overflow to); no underflow flags (fixed point: underflow is never raised).
      ok = in_f32 && p.zero.code[0] == 0 && p.zero.code[1] == 0 && p.zero.flags[0] == 0 && p.zero.flags[1] == 0 &&
           p.ovf_is_max && (runtime ? !LanePlan(p).underflows : f.fixed_point);
    } else if constexpr (possible) {
      const std::uint32_t sb = sign_bit();
      ok = in_f32 && p.zero.code[0] == 0 && p.zero.code[1] == (fnuz ? 0 : sb) && p.zero.flags[0] == 0 &&
           p.zero.flags[1] == 0 && p.max_mag[0] == p.max_mag[1] && p.ovf_code[1] == (p.ovf_code[0] | sb) &&
           p.ovf_code[0] < sb;
    }
  }
};

/// The direct path's OR-accumulated flag bits (see the top of this file).
struct FlagBits {
  u32v inexact{}, tiny{}, flags{};  // flags: whole per-lane flags (integer path)
  u32v largest{};                   // the largest magnitude code (rne path): overflow when above max
  Flags slow = 0;                               // lanes the scalar kernel decided
};

/// One vector of source codes x (widened to 32 bits) of a direct block: the f32 bits y of
/// |x| * 2^-s, raised to 2^-126 when smaller (0 for a zero), the sign as an f32's sign bit,
/// and the zero lanes. `ss` is s << 23. Zeros: the block may hold zeros (false: it holds none,
/// and the zero lanes are not looked for).
template <Src S, bool Zeros>
SOFTMX_LANES_INLINE void scaled_f32(u32v x, i32v ss, u32v& y, u32v& sign, i32v& zero) {
  u32v a;
  if constexpr (S == Src::f16) {
    const u32v h = x & 0x7FFFu;
    if constexpr (Zeros) zero = h == 0;
    a = (h << 13) + (112u << 23);  // a normal f16 as an f32: rebias 15 -> 127
    sign = (x & 0x8000u) << 16;
  } else {
    if constexpr (S == Src::bf16) x <<= 16;
    a = x & 0x7FFFFFFFu;
    if constexpr (Zeros) zero = a == 0;
    sign = x & 0x80000000u;
  }
  const i32v scaled = maxi(reinterpret_cast<i32v>(a) - ss, splat_i(0x800000));
  if constexpr (Zeros) {
    y = zero ? splat(0) : reinterpret_cast<u32v>(scaled);
  } else {
    zero = splat_i(0);
    y = reinterpret_cast<u32v>(scaled);
  }
}

/// The direct path for one block of k codes (k a multiple of N), rne with the FPU's help; `ss`
/// is s << 23 in every lane. OvfMin: the overflow code by min(mag, ovf_mag) (Direct::ovf_min
/// must hold), else by a compare and a select.
/// Largest: keep FlagBits::largest (false: the caller decides overflow from the block's amax
/// and Direct::ovf_from).
template <int D, Src S, bool Zeros, std::size_t K = 0, bool OvfMin = false, bool Largest = true>
SOFTMX_LANES_INLINE void direct_rne_fpu(const Direct<D>& dp, const void* blk, std::size_t k, i32v ss,
                                        std::uint8_t* out, FlagBits& acc) {
  // y (an f32 below 2^(105 + m): in_range) is rounded at its quantum q = 2^(max(e, emin) - m),
  // e = floor(log2 y), by one f32 addition t = y + c with c = 2^(max(e, emin) - m + 23): c is
  // 2^23 quanta (even), y < 2^(e+1) <= c / 2^(22 - m), so t lies in [c, 2c) where the f32 quantum
  // is q, and the FPU's rne gives t = c + RN_q(y) exactly (ties to an even multiple of q, the
  // code's last bit, m >= 1). Then r = t - c = RN_q(y) exactly (Sterbenz), r != y iff inexact,
  // and the magnitude code is (t - c) / q in bits, the significand n (2^m + fraction, or the
  // subnormal fraction below 2^emin, or 2^(m+1) after a carry), plus the binade's offset
  // (max(e, emin) - emin) << m, which is (c - magic) >> (23 - m) with magic = c at emin.
  const int k_ = dp.k();
  const std::uint32_t magic = static_cast<std::uint32_t>(dp.emin() - dp.m() + 23 + 127) << 23;
  const u32v magic_v = splat(magic);
  const u32v up = splat(static_cast<std::uint32_t>(k_) << 23);  // 2^e -> 2^(e + 23 - m) in bits
  // The codes of the N values from i on.
  auto lanes = [&](std::size_t i) SOFTMX_LANES_INLINE_LAMBDA {
    u32v y, sign;
    i32v zero;
    scaled_f32<S, Zeros>(load_lanes(blk, i, S == Src::f32), ss, y, sign, zero);
    if constexpr (Direct<D>::twos) {
      // Fixed point: one quantum q = 2^(emin - m) for every value; y < 2^(ymax + 1) <= magic / 2^(m + 1)
      // rounds in t = magic + RN_q(y) (exact, as above with c = magic), n = RN_q(y) / q.
      const f32v t = reinterpret_cast<f32v>(y) + reinterpret_cast<f32v>(magic_v);
      const u32v n = reinterpret_cast<u32v>(t) - magic_v;
      const u32v below = reinterpret_cast<u32v>(t - reinterpret_cast<f32v>(magic_v)) ^ y;  // non-zero: inexact
      acc.inexact |= below;
      const i32v neg = sign != 0;
      const i32v ovf = n > (neg ? dp.max_mag1 : dp.max_mag);
      acc.flags |= ovf ? splat(flag::overflow | flag::inexact) : splat(0);
      const u32v code = neg ? (splat(0) - n) & splat((1u << dp.width()) - 1) : n;
      return ovf ? (neg ? dp.ovf_mag1 : dp.ovf_mag) : code;
    }
    const u32v cb = (y & 0x7F800000u) + up;
    const u32v c = cb > magic_v ? cb : magic_v;
    const f32v t = reinterpret_cast<f32v>(y) + reinterpret_cast<f32v>(c);
    const u32v mag = (reinterpret_cast<u32v>(t) - c) + ((c - magic_v) >> k_);
    const u32v below = reinterpret_cast<u32v>(t - reinterpret_cast<f32v>(c)) ^ y;  // non-zero: inexact
    acc.inexact |= below;
    // y and tiny_below are below 2^31: the signed compare is the unsigned one, in one
    // instruction on AVX2 (which has no unsigned compare).
    acc.tiny |= reinterpret_cast<i32v>(y) < reinterpret_cast<i32v>(dp.tiny_below) ? below : splat(0);
    if constexpr (Largest) acc.largest = mag > acc.largest ? mag : acc.largest;  // overflow: above the largest finite
    if constexpr (OvfMin) {
      return (mag < dp.ovf_mag ? mag : dp.ovf_mag) | dp.sign_of(sign, mag);
    } else {
      return (mag > dp.max_mag ? dp.ovf_mag : mag) | dp.sign_of(sign, mag);
    }
  };
  if constexpr (K == 4 * N) {
    // Four vectors share one narrowing and one 32-byte store (store_codes4).
    const u32v c0 = lanes(0), c1 = lanes(N), c2 = lanes(2 * N), c3 = lanes(3 * N);
    store_codes4(out, c0, c1, c2, c3);
  } else {
    for (std::size_t i = 0; i < k; i += N) store_codes(out + i, lanes(i));
  }
}

/// direct_rne_fpu with the scale exponent s as an int.
template <int D, Src S, bool Zeros, std::size_t K = 0>
SOFTMX_LANES_INLINE void direct_rne_fpu(const Direct<D>& dp, const void* blk, std::size_t k, int s, std::uint8_t* out,
                                        FlagBits& acc) {
  direct_rne_fpu<D, S, Zeros, K>(dp, blk, k, splat_i(s * (1 << 23)), out, acc);
}

/// The direct path for one block of k codes (k a multiple of N), any deterministic mode, by
/// integer rounding (round_pack_lanes). `kern` gives the scalar reference for the rare lanes.
template <int D, Rounding R, Src S, bool Zeros, class Kern>
SOFTMX_LANES_INLINE void direct_int(const Kern& kern, const Direct<D>& dp, const void* blk, std::size_t k, int s,
                                    std::uint8_t* out, FlagBits& acc) {
  const i32v ss = splat_i(s * (1 << 23));
  for (std::size_t i = 0; i < k; i += N) {
    u32v y, sign;
    i32v zero;
    scaled_f32<S, Zeros>(load_lanes(blk, i, S == Src::f32), ss, y, sign, zero);
    if constexpr (Zeros) y = zero ? splat(0x3F800000u) : y;  // 1.0 stands in for a zero (exact, normal); replaced below
    const i32v E = reinterpret_cast<i32v>(y >> 23) - 127;
    const u32v sig = (y & 0x7FFFFFu) | 0x800000u;
    u32v code, fl;
    i32v fallback = splat_i(0);
    round_pack_lanes<D, R, true>(kern.lp, sign >> 31, sig, E, splat(0), code, fl, fallback);
    if constexpr (Zeros) {
      code = zero ? dp.sign_of(sign, splat(0)) : code;
      fl = zero ? splat(0) : fl;
    }
    acc.flags |= fl;
    if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {  // tininess after rounding, at 2^emin
      for (; lanes; lanes &= lanes - 1) {
        const int j = __builtin_ctz(lanes);
        const Result r = kern.scalar(load_one(blk, i + static_cast<std::size_t>(j), S == Src::f32), s);
        code[j] = static_cast<std::uint32_t>(r.code);
        acc.slow |= r.flags;
      }
    }
    store_codes(out + i, code);
  }
}

/// The OR of a vector's lanes.
SOFTMX_LANES_INLINE std::uint32_t reduce_or(u32v v) {
  std::uint32_t r = 0;
  for (int j = 0; j < N; ++j) r |= v[j];
  return r;
}

/// What one call of quantize_blocks keeps for all its blocks.
template <int D, Rounding R, Src S>
struct BlockRun {
  static constexpr bool in32 = S == Src::f32;
  static constexpr std::size_t bytes = in32 ? 4 : 2;
  const Plan& plan;
  const BlockHooks& hooks;
  const VectorKernel<D, R, true, true, true> kern;  // the general path
  const Direct<D> direct;
  FlagBits direct_acc;  // the direct path's flag bits
  u32v fl_or{};  // the general path's flags
  Flags slow_flags = 0;

  BlockRun(const Plan& p, const BlockHooks& h) : plan(p), hooks(h), kern(p), direct(p) {}

  /// One block by the general path (VectorKernel, scalar kernel for the lanes it hands on).
  __attribute__((noinline)) void general(const void* blk, std::size_t k, int s, std::uint8_t* out) {
    for (std::size_t i = 0; i < k; i += N) {
      u32v code, fl;
      i32v fallback;
      kern(load_lanes(blk, i, in32), s, code, fl, fallback);
      if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
        for (; lanes; lanes &= lanes - 1) {
          const int j = __builtin_ctz(lanes);
          const Result r = kern.scalar(load_one(blk, i + static_cast<std::size_t>(j), in32), s);
          code[j] = static_cast<std::uint32_t>(r.code);
          fl[j] = r.flags;
        }
      }
      store_codes(out + i, code);
      fl_or |= fl;
    }
  }

  /// A block's first pass: per lane, the largest magnitude (m) and the smallest (mn).
  SOFTMX_LANES_INLINE static void scan(const void* blk, std::size_t k, u32v& m, u32v& mn) {
    const u32v mag_mask = splat(in32 ? 0x7FFFFFFFu : 0x7FFFu);
    m = splat(0);
    mn = splat(0xFFFFFFFFu);
    for (std::size_t i = 0; i < k; i += N) {
      const u32v x = load_lanes(blk, i, in32) & mag_mask;
      m = x > m ? x : m;
      mn = x < mn ? x : mn;
    }
  }

  /// Whether a block whose smallest magnitudes per lane are mn holds no zero and no subnormal.
  SOFTMX_LANES_INLINE bool all_normal(u32v mn) const {
    return !any_at_least(splat((std::uint32_t{1} << plan.src_m) - 1), mn);
  }

  /// Whether a block holds no source subnormal (zeros allowed): a second look, for the blocks
  /// that all_normal turned away.
  SOFTMX_LANES_INLINE static bool no_subnormal(const void* blk, std::size_t k, std::uint32_t min_normal) {
    const u32v mag_mask = splat(in32 ? 0x7FFFFFFFu : 0x7FFFu);
    u32v low = splat(0xFFFFFFFFu);
    for (std::size_t i = 0; i < k; i += N) {
      const u32v x = load_lanes(blk, i, in32) & mag_mask;
      low = x - 1 < low ? x - 1 : low;  // a zero wraps to the largest
    }
    return !any_at_least(splat(min_normal - 2), low);
  }

  /// The source's fields and the floor rule's emax, as locals (the plan is read through a
  /// reference, which every code store may alias: the grouped loop keeps these in registers).
  struct Src0 {
    int m, bias, emax;
    std::uint32_t min_normal, inf;  ///< sign-cleared bits: the smallest normal, Inf
    std::uint32_t round;            ///< BlockHooks::scale_round
  };
  Src0 src0() const {
    return {plan.src_m, plan.src_bias, hooks.floor_emax, std::uint32_t{1} << plan.src_m,
            static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m, hooks.scale_round};
  }

  /// Whether a normal amax is in range (finite) and the kernel's scale s for it (BlockHooks:
  /// floor(log2 amax) - emax_E for the floor rule of OCP MX 6.3, at least -127, at most 127).
  SOFTMX_LANES_INLINE bool floor_scale(std::uint32_t amax, int& s) const {
    const std::uint32_t min_normal = std::uint32_t{1} << plan.src_m;
    if (hooks.floor_emax < 0 || amax < min_normal || amax >= static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m)
      return false;
    // amax + scale_round stays below 2^32: amax is below the Inf code of a 32-bit source.
    const int f = static_cast<int>((amax + hooks.scale_round) >> plan.src_m) - plan.src_bias - hooks.floor_emax;
    if (f > 127) return false;
    s = f < -127 ? -127 : f;
    return true;
  }

  /// Whether the scaled amax is below 2^(ymax + 1) (the direct path's range, Direct::ymax:
  /// direct_rne_fpu's addend stays an f32 normal above it; the integer path needs 2^128 only).
  SOFTMX_LANES_INLINE bool in_range(std::uint32_t amax, int s) const {
    return static_cast<int>(amax >> plan.src_m) - plan.src_bias - s <= direct.ymax;
  }

  /// The direct path on one block; Zeros: the block may hold zeros.
  template <bool Fpu, bool Zeros, std::size_t K = 0, bool OvfMin = false>
  SOFTMX_LANES_INLINE void direct_block(const Direct<D>& dp, const void* blk, std::size_t k, int s, std::uint8_t* out,
                                        FlagBits& acc) const {
    if constexpr (Fpu && R == Rounding::rne) {
      direct_rne_fpu<D, S, Zeros, K, OvfMin>(dp, blk, k, splat_i(s * (1 << 23)), out, acc);
    } else {
      direct_int<D, R, S, Zeros>(kern, dp, blk, k, s, out, acc);
    }
  }

  /// The blocks from b on, for as long as each one's scale is the floor rule's on a normal amax
  /// and the direct path serves it; returns the first block that is not (nblocks if none). No
  /// call is made in the loop, so that the compiler can keep every constant and accumulator in
  /// registers (a call clobbers all vector registers). OvfMin: Direct::ovf_min holds.
  template <std::size_t K, bool Fpu, bool OvfMin>
  __attribute__((noinline)) std::size_t hot(const void* in, std::size_t b, std::size_t nblocks, std::size_t k_rt,
                                            std::uint8_t* scales, std::uint8_t* codes) {
    const std::size_t k = K ? K : k_rt;
    FlagBits acc = direct_acc;
    const Direct<D> dp = direct;
    const std::uint32_t min_normal = std::uint32_t{1} << plan.src_m;
    if constexpr (K != 0) {
      // Groups of G = N blocks, one block per lane, in two passes: first every block's amax
      // and scale (G independent reductions, which the CPU overlaps, where one block at a time
      // waits for each), then the elements. The G reductions end in one vector (transposed_max:
      // lane g holds block g's amax), so the scales, the checks and the scale bytes are lane
      // arithmetic on all G blocks at once, and each block's s << 23 is one broadcast from
      // memory. A group with any block the direct path does not serve (or whose scale is not the
      // floor rule's on a normal amax) goes block by block below, which stops there.
      constexpr std::size_t G = N;
      constexpr bool by_amax = Fpu && R == Rounding::rne && !Direct<D>::twos;  // overflow from ovf_from
      const Src0 c = src0();
      const std::uint32_t mag_mask = in32 ? 0x7FFFFFFFu : 0x7FFFu;
      const i32v bias_emax = splat_i(c.bias + c.emax), e_limit = splat_i(c.bias + dp.ymax);
      const i32v ovf_from = splat_i(static_cast<std::int32_t>(dp.ovf_from));
      i32v ovf = splat_i(0);  // by_amax: the lanes of blocks that overflowed
      while (b + G <= nblocks) {
        const unsigned char* grp = static_cast<const unsigned char*>(in) + b * K * bytes;
        // One chain of maxima per block over the magnitudes less the smallest normal, modulo
        // 2^32: a zero or subnormal wraps to 2^31 or more (every magnitude is below 2^31), so
        // the block's largest is amax - min_normal when it holds none, and at least 2^31
        // (negative as an int) when it holds one. One reduction serves amax and all_normal.
        u32v mx[G];
        for (std::size_t g = 0; g < G; ++g) {
          // Blocks in memory order: reading them in bit-reversed order (so that the folds left
          // lane g = block g without the last permutation) cost the L3 and DRAM rows a quarter
          // to a third on AVX-512 (bench_block, 2026-11-29), the prefetchers following a stream.
          const unsigned char* blk = grp + g * K * bytes;
          u32v m = splat(0);
          for (std::size_t i = 0; i < K; i += N) {
            const u32v x = (load_lanes(blk, i, in32) & mag_mask) - c.min_normal;
            m = x > m ? x : m;
          }
          mx[g] = m;
        }
        const u32v low = transposed_max(mx);
        const u32v amax = low + c.min_normal;
        // floor_scale and in_range per lane (amax + round stays below 2^32: amax is below the
        // Inf code of a 32-bit source; every magnitude is below 2^31, so signed compares).
        const i32v f = reinterpret_cast<i32v>((amax + c.round) >> c.m) - bias_emax;
        const i32v sv = maxi(f, splat_i(-127));
        const i32v e = reinterpret_cast<i32v>(amax >> c.m);  // floor(log2 amax) + bias
        const i32v bad = (reinterpret_cast<i32v>(low) < 0) |
                         (reinterpret_cast<i32v>(amax) >= static_cast<std::int32_t>(c.inf)) | (f > 127) |
                         (e - sv > e_limit);
        if (lane_bits(bad)) break;
        const i32v ssv = reinterpret_cast<i32v>(reinterpret_cast<u32v>(sv) << 23);  // s * 2^23
        if constexpr (by_amax) {
          // The block's largest scaled value, as scaled_f32 makes it (amax as f32 bits less
          // s << 23, raised to 2^-126).
          u32v a32 = amax;
          if constexpr (S == Src::bf16) a32 <<= 16;
          if constexpr (S == Src::f16) a32 = (a32 << 13) + (112u << 23);  // normal (all_normal)
          ovf |= maxi(reinterpret_cast<i32v>(a32) - ssv, splat_i(0x800000)) >= ovf_from;
        }
        alignas(64) std::int32_t ss[G], sg[G];
        std::memcpy(ss, &ssv, sizeof ssv);
        std::memcpy(sg, &sv, sizeof sv);
        store_codes(scales + b, reinterpret_cast<u32v>(sv + 127));
        for (std::size_t g = 0; g < G; ++g) {
          if constexpr (Fpu && R == Rounding::rne) {
            direct_rne_fpu<D, S, false, K, OvfMin, !by_amax>(dp, grp + g * K * bytes, K, splat_i(ss[g]),
                                                             codes + (b + g) * K, acc);
          } else {
            direct_int<D, R, S, false>(kern, dp, grp + g * K * bytes, K, sg[g], codes + (b + g) * K, acc);
          }
        }
        b += G;
      }
      if (lane_bits(ovf)) acc.slow |= flag::overflow | flag::inexact;
    }
    for (; b < nblocks; ++b) {
      const void* blk = static_cast<const unsigned char*>(in) + b * k * bytes;
      u32v m, mn;
      scan(blk, k, m, mn);
      const std::uint32_t amax = reduce_max(m);
      int s;
      if (!floor_scale(amax, s) || !in_range(amax, s)) break;
      if (all_normal(mn)) [[likely]] {
        direct_block<Fpu, false, 0, OvfMin>(dp, blk, k, s, codes + b * k, acc);
      } else if (no_subnormal(blk, k, min_normal)) {
        direct_block<Fpu, true, 0, OvfMin>(dp, blk, k, s, codes + b * k, acc);
      } else {
        break;
      }
      scales[b] = static_cast<std::uint8_t>(s + 127);
    }
    direct_acc = acc;
    return b;
  }

  /// Block b by whichever path serves it (the scale from the hooks where the kernel does not
  /// compute it).
  template <std::size_t K, bool Fpu, bool DirectOk>
  void one(const void* in, std::size_t b, std::size_t k_rt, std::uint8_t* scales, std::uint8_t* codes) {
    const std::size_t k = K ? K : k_rt;
    const void* blk = static_cast<const unsigned char*>(in) + b * k * bytes;
    std::uint8_t* out = codes + b * k;
    u32v m, mn;
    scan(blk, k, m, mn);
    const std::uint32_t amax = reduce_max(m);
    int s;
    if (!floor_scale(amax, s) && !hooks.scale(hooks.ctx, amax, s)) {
      scales[b] = hooks.slow(hooks.ctx, blk, k, out, slow_flags);
      return;
    }
    scales[b] = static_cast<std::uint8_t>(s + 127);
    if (DirectOk && in_range(amax, s) && no_subnormal(blk, k, std::uint32_t{1} << plan.src_m)) {
      direct_block<Fpu, true>(direct, blk, k, s, out, direct_acc);
      return;
    }
    general(blk, k, s, out);
  }

  /// The blocks, k values each (K: k known at compile time, else 0). Fpu: the direct path
  /// rounds rne with the FPU's help (direct_rne_fpu), else by integers (direct_int); DirectOk:
  /// the plan allows the direct path (Direct::ok).
  template <std::size_t K, bool Fpu, bool DirectOk>
  void blocks(const void* in, std::size_t nblocks, std::size_t k, std::uint8_t* scales, std::uint8_t* codes) {
    for (std::size_t b = 0; b < nblocks; ++b) {
      if constexpr (DirectOk) {
        if (hooks.floor_emax >= 0) {
          // OvfMin changes direct_rne_fpu only: the other paths have one instantiation.
          constexpr bool fpu_rne = Fpu && R == Rounding::rne;
          b = fpu_rne && direct.ovf_min ? hot<K, Fpu, fpu_rne>(in, b, nblocks, k, scales, codes)
                                        : hot<K, Fpu, false>(in, b, nblocks, k, scales, codes);
          if (b == nblocks) break;
        }
      }
      one<K, Fpu, DirectOk>(in, b, k, scales, codes);
    }
  }

  /// The OR of every flag raised.
  Flags flags() const {
    const FlagBits& acc = direct_acc;
    Flags all = slow_flags | acc.slow | static_cast<Flags>(reduce_or(fl_or | acc.flags));
    if (reduce_or(acc.inexact)) all |= flag::inexact;
    if (reduce_or(acc.tiny)) all |= flag::underflow;
    if (reduce_max(acc.largest) > direct.max_mag[0]) all |= flag::overflow | flag::inexact;
    return all;
  }
};

/// Quantizes `blocks` consecutive blocks of k values each (k a multiple of N) into MX element
/// D: per block the largest magnitude (sign-cleared bits), the scale exponent (hooks), then
/// every value times 2^-s rounded once, by the direct path where it serves, else the general
/// one. Writes k codes and one E8M0 scale per block and ORs every flag into `flags`.
template <int D, Rounding R, Src S>
void quantize_blocks(const Plan& plan, const void* in, std::size_t blocks, std::size_t k, const BlockHooks& hooks,
                     std::uint8_t* scales, std::uint8_t* codes, Flags& flags) {
  BlockRun<D, R, S> run(plan, hooks);
  // The loop is compiled for the usual block size, 32, and for any k; with the direct path's
  // choices fixed, so that nothing is decided per block that could be decided once.
  auto go = [&]<bool Fpu, bool DirectOk>() {
    if (k == 32) {
      run.template blocks<32, Fpu, DirectOk>(in, blocks, k, scales, codes);
    } else {
      run.template blocks<0, Fpu, DirectOk>(in, blocks, k, scales, codes);
    }
  };
  if constexpr (Direct<D>::possible) {
    if (run.direct.ok) {
      if (R == Rounding::rne && fpu_is_default()) {
        go.template operator()<true, true>();
      } else {
        go.template operator()<false, true>();
      }
      flags |= run.flags();
      return;
    }
  }
  go.template operator()<false, false>();
  flags |= run.flags();
}

template <int D, Rounding R>
BlocksFn pick_blocks_src(const Plan& p) {
  switch (p.src) {
    case FormatId::f32: return &quantize_blocks<D, R, Src::f32>;
    case FormatId::bf16: return &quantize_blocks<D, R, Src::bf16>;
    case FormatId::f16: return &quantize_blocks<D, R, Src::f16>;
    default: return nullptr;
  }
}

template <int D>
BlocksFn pick_blocks_mode(const Plan& p) {
  // The named MX elements, and a runtime element's shapes (signed, at most 8 bits:
  // mx_element_reason), whose fields the same kernel reads from the plan.
  using T = DstTraits<D>;
  if constexpr (T::runtime ? (!T::wide && !T::unsigned_dst) : is_mx_element(static_cast<FormatId>(D))) {
    return by_rounding<BlocksFn>(p.ctx.rounding,
                               [&](auto r) { return pick_blocks_src<D, decltype(r)::value>(p); });
  }
  return nullptr;
}

inline BlocksFn pick_blocks(const Plan& p) {
  // These lanes decide tininess from the scaled value (tiny_below); after_bounded's follows the
  // delivered code: the per-block kernel (round_pack_lanes) serves it.
  if (p.tiny_bounded) return nullptr;
  switch (p.dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_blocks_mode<static_cast<int>(FormatId::F)>(p);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1) SOFTMX_DST(int8)
#undef SOFTMX_DST
    case FormatId::runtime:
      if (p.rt.width > 8) return nullptr;
      return with_runtime_shape(p, [&]<int D>() { return pick_blocks_mode<D>(p); });
    default: break;
  }
  return nullptr;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
