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
//      - rne, with the FPU in its default mode (fpu_is_default): the FPU trick of
//        convert_rne_float (lanes.hpp) for the element's subnormal range, integer rounding of
//        the f32 bits above it;
//      - every other mode: round_pack_lanes on (sign, significand, exponent) read from y.
//    Flags are not made per element: the call keeps the OR, across all its lanes, of
//      the bits of y below the element's quantum     (non-zero: inexact),
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

/// A block kernel's source storage: f32 (32-bit codes), bf16 (the top half of an f32) or f16.
enum class Src : int { f32, bf16, f16 };

/// The direct path's per-call constants for element D (see the top of this file).
template <int D>
struct Direct {
  static constexpr Format f = detail::kFormats[D];
  static constexpr int m = f.man_bits;
  static constexpr int emin = f.emin();
  static constexpr int k = 23 - m;  ///< f32 fraction bits below the element's quantum, normal range
  static constexpr std::uint32_t sign_bit = std::uint32_t{1} << (f.width - 1);
  /// An FP element with subnormals and a sign bit (not MXINT8).
  static constexpr bool possible =
      f.subnormals && f.sign == SignEncoding::magnitude && f.width <= 8 && !f.fixed_point;
  /// Whether the plan's dialect codes allow the direct path (an FP element with subnormals,
  /// zeros coded sign | 0 without flags, overflow to one magnitude with the input's sign).
  bool ok = false;
  u32v max_mag, ovf_mag, tiny_below;

  explicit Direct(const Plan& p)
      : max_mag(splat(p.max_mag[0])),
        ovf_mag(splat(p.ovf_code[0])),
        // In f32 bits: 2^emin (tininess before rounding) or the rne midpoint below it (after).
        tiny_below(splat(p.tiny_after ? (static_cast<std::uint32_t>(emin + 126) << 23) |
                                            (((std::uint32_t{1} << (m + 1)) - 1) << (22 - m))
                                      : static_cast<std::uint32_t>(emin + 127) << 23)) {
    if constexpr (possible) {
      ok = p.zero.code[0] == 0 && p.zero.code[1] == sign_bit && p.zero.flags[0] == 0 && p.zero.flags[1] == 0 &&
           p.max_mag[0] == p.max_mag[1] && p.ovf_code[1] == (p.ovf_code[0] | sign_bit) && p.ovf_code[0] < sign_bit;
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

/// The direct path for one block of k codes (k a multiple of N), rne with the FPU's help.
template <int D, Src S, bool Zeros, std::size_t K = 0>
SOFTMX_LANES_INLINE void direct_rne_fpu(const Direct<D>& dp, const void* blk, std::size_t k, int s, std::uint8_t* out,
                                        FlagBits& acc) {
  using Dd = Direct<D>;
  constexpr int k_ = Dd::k;
  constexpr std::uint32_t magic = static_cast<std::uint32_t>(Dd::emin - Dd::m + 23 + 127) << 23;
  constexpr std::uint32_t min_normal = static_cast<std::uint32_t>(Dd::emin + 127) << 23;
  constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - Dd::f.bias) << Dd::m;
  constexpr std::uint32_t low = (std::uint32_t{1} << k_) - 1;
  const i32v ss = splat_i(s * (1 << 23));
  const f32v magic_f = reinterpret_cast<f32v>(splat(magic));
  // The codes of the N values from i on.
  auto lanes = [&](std::size_t i) SOFTMX_LANES_INLINE_LAMBDA {
    u32v y, sign;
    i32v zero;
    scaled_f32<S, Zeros>(load_lanes(blk, i, S == Src::f32), ss, y, sign, zero);
    const i32v sub = y < min_normal;
    const f32v t = reinterpret_cast<f32v>(y) + magic_f;  // rounds to a multiple of the subnormal quantum
    const u32v sub_mag = reinterpret_cast<u32v>(t) - magic;
    const u32v nor_mag = ((y + ((low >> 1) + ((y >> k_) & 1u))) >> k_) - rebias;
    const u32v mag = sub ? sub_mag : nor_mag;
    const u32v below = sub ? reinterpret_cast<u32v>(t - magic_f) ^ y : y & low;  // non-zero: inexact
    acc.inexact |= below;
    acc.tiny |= y < dp.tiny_below ? below : splat(0);
    acc.largest = mag > acc.largest ? mag : acc.largest;  // overflow: above the largest finite
    return (mag > dp.max_mag ? dp.ovf_mag : mag) | (sign >> (32 - Dd::f.width));
  };
  if constexpr (K == 4 * N) {
    // Four vectors share one narrowing and one 32-byte store (store_codes4).
    const u32v c0 = lanes(0), c1 = lanes(N), c2 = lanes(2 * N), c3 = lanes(3 * N);
    store_codes4(out, c0, c1, c2, c3);
  } else {
    for (std::size_t i = 0; i < k; i += N) store_codes(out + i, lanes(i));
  }
}

/// The direct path for one block of k codes (k a multiple of N), any deterministic mode, by
/// integer rounding (round_pack_lanes). `kern` gives the scalar reference for the rare lanes.
template <int D, Rounding R, Src S, bool Zeros, class Kern>
SOFTMX_LANES_INLINE void direct_int(const Kern& kern, const void* blk, std::size_t k, int s, std::uint8_t* out,
                                    FlagBits& acc) {
  constexpr int w = detail::kFormats[D].width;
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
      code = zero ? sign >> (32 - w) : code;
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
  };
  Src0 src0() const {
    return {plan.src_m, plan.src_bias, hooks.floor_emax, std::uint32_t{1} << plan.src_m,
            static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m};
  }

  /// Whether a normal amax is in range (finite) and its floor-rule scale s (OCP MX 6.3:
  /// floor(log2 amax) - emax_E, at least -127).
  SOFTMX_LANES_INLINE bool floor_scale(std::uint32_t amax, int& s) const {
    const std::uint32_t min_normal = std::uint32_t{1} << plan.src_m;
    if (hooks.floor_emax < 0 || amax < min_normal || amax >= static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m)
      return false;
    const int f = static_cast<int>(amax >> plan.src_m) - plan.src_bias - hooks.floor_emax;
    s = f < -127 ? -127 : f;
    return true;
  }

  /// Whether the scaled amax's f32 exponent field is at most 254 (the direct path's range).
  SOFTMX_LANES_INLINE bool in_range(std::uint32_t amax, int s) const {
    return static_cast<int>(amax >> plan.src_m) - plan.src_bias - s <= 127;
  }

  /// The direct path on one block; Zeros: the block may hold zeros.
  template <bool Fpu, bool Zeros, std::size_t K = 0>
  SOFTMX_LANES_INLINE void direct_block(const Direct<D>& dp, const void* blk, std::size_t k, int s, std::uint8_t* out,
                                        FlagBits& acc) const {
    if constexpr (Fpu && R == Rounding::rne) {
      direct_rne_fpu<D, S, Zeros, K>(dp, blk, k, s, out, acc);
    } else {
      direct_int<D, R, S, Zeros>(kern, blk, k, s, out, acc);
    }
  }

  /// The blocks from b on, for as long as each one's scale is the floor rule's on a normal amax
  /// and the direct path serves it; returns the first block that is not (nblocks if none). No
  /// call is made in the loop, so that the compiler can keep every constant and accumulator in
  /// registers (a call clobbers all vector registers).
  template <std::size_t K, bool Fpu>
  __attribute__((noinline)) std::size_t hot(const void* in, std::size_t b, std::size_t nblocks, std::size_t k_rt,
                                            std::uint8_t* scales, std::uint8_t* codes) {
    const std::size_t k = K ? K : k_rt;
    FlagBits acc = direct_acc;
    const Direct<D> dp = direct;
    const std::uint32_t min_normal = std::uint32_t{1} << plan.src_m;
    if constexpr (K != 0) {
      // Groups of G blocks in two passes: first every block's amax and scale (G independent
      // reductions, which the CPU overlaps, where one block at a time waits for each), then
      // the elements. A group with any block the direct path does not serve (or whose scale
      // is not the floor rule's on a normal amax) goes block by block below, which stops there.
      constexpr std::size_t G = 8;
      const Src0 c = src0();
      while (b + G <= nblocks) {
        const unsigned char* grp = static_cast<const unsigned char*>(in) + b * K * bytes;
        int sg[G];
        bool ok = true;
        for (std::size_t g = 0; g < G; ++g) {
          u32v m, mn;
          scan(grp + g * K * bytes, K, m, mn);
          const std::uint32_t amax = reduce_max(m);
          // floor_scale, in_range and all_normal with the source's constants in registers.
          const int f = static_cast<int>(amax >> c.m) - c.bias - c.emax;
          sg[g] = f < -127 ? -127 : f;
          ok &= (amax >= c.min_normal) & (amax < c.inf) & (static_cast<int>(amax >> c.m) - c.bias - sg[g] <= 127) &
                !any_at_least(splat(c.min_normal - 1), mn);
        }
        if (!ok) break;
        for (std::size_t g = 0; g < G; ++g) {
          direct_block<Fpu, false, K>(dp, grp + g * K * bytes, K, sg[g], codes + (b + g) * K, acc);
          scales[b + g] = static_cast<std::uint8_t>(sg[g] + 127);
        }
        b += G;
      }
    }
    for (; b < nblocks; ++b) {
      const void* blk = static_cast<const unsigned char*>(in) + b * k * bytes;
      u32v m, mn;
      scan(blk, k, m, mn);
      const std::uint32_t amax = reduce_max(m);
      int s;
      if (!floor_scale(amax, s) || !in_range(amax, s)) break;
      if (all_normal(mn)) [[likely]] {
        direct_block<Fpu, false>(dp, blk, k, s, codes + b * k, acc);
      } else if (no_subnormal(blk, k, min_normal)) {
        direct_block<Fpu, true>(dp, blk, k, s, codes + b * k, acc);
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
          b = hot<K, Fpu>(in, b, nblocks, k, scales, codes);
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
  if constexpr (is_mx_element(static_cast<FormatId>(D))) {
    switch (p.ctx.rounding) {
      case Rounding::rne: return pick_blocks_src<D, Rounding::rne>(p);
      case Rounding::rna: return pick_blocks_src<D, Rounding::rna>(p);
      case Rounding::rz: return pick_blocks_src<D, Rounding::rz>(p);
      case Rounding::ru: return pick_blocks_src<D, Rounding::ru>(p);
      case Rounding::rd: return pick_blocks_src<D, Rounding::rd>(p);
      case Rounding::ro: return pick_blocks_src<D, Rounding::ro>(p);
      case Rounding::rs: break;
    }
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
    default: break;
  }
  return nullptr;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
