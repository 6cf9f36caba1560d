// emulator/simd/scale_fused.hpp: one MX block with a scale S that is not a power of two, N
// lanes at a time: every element x becomes RO_f32(x / S') (S = S' 2^k, S' in [1, 2)) in
// registers, then goes through simd/block_lanes.hpp's direct path (scaled by 2^-k, flags ORed)
// or simd/batch_lanes.hpp's VectorKernel (with flags per element), the kernels E8M0 blocks use;
// the blocks' scales in f64 lanes (block_scales), and NVFP4's first pass (block_range16) and
// fused multiply-and-round pass (mul_round_direct). One body for both lane widths (GNU vector
// operations; fmadd_lanes names the instruction set). Internal; included after simd/lanes.hpp by
// simd/scale_avx2.cpp and simd/scale_avx512.cpp, in namespace SOFTMX_SIMD_NS. docs/BLOCKS.md 1.3
// gives the argument.

#include <utility>

namespace softmx::simd::SOFTMX_SIMD_NS {

/// The constants of ro_vec for one divisor s in [1, 2): s and r = RN_f32(1 / s) in every lane.
struct RoConst {
  f32v s, r;
  explicit RoConst(float v) {
    const float rv = 1.0f / v;
    for (int j = 0; j < N; ++j) s[j] = v, r[j] = rv;
  }
};

#if !(defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16) && !(defined(__AVX2__) && SOFTMX_SIMD_LANES == 8)
#error "simd/scale_fused.hpp serves AVX-512 (16 lanes) and AVX2 (8 lanes)"
#endif

/// f64 lanes for block_scales: one register's worth (8 on AVX-512, 4 on AVX2), and their f32 and
/// u32 halves.
constexpr int kL = SOFTMX_SIMD_LANES / 2;
typedef double f64h __attribute__((vector_size(8 * kL)));
typedef std::int64_t i64h __attribute__((vector_size(8 * kL)));
typedef std::uint64_t u64h __attribute__((vector_size(8 * kL)));
typedef float f32h __attribute__((vector_size(4 * kL)));
typedef std::uint32_t u32h __attribute__((vector_size(4 * kL)));

/// a b + c lane by lane, rounded once (one fused multiply-add), on one register of f32 lanes
/// (ro_vec) or f64 lanes (block_scales): the only steps here that name the instruction set.
/// c - a b is fmadd_lanes(-a, b, c): negation is exact, and the compiler folds it into the
/// negated form of the instruction.
#if SOFTMX_SIMD_LANES == 16
using RegF32 = __m512;
using RegF64 = __m512d;
SOFTMX_LANES_INLINE RegF32 fma_reg(RegF32 a, RegF32 b, RegF32 c) { return _mm512_fmadd_ps(a, b, c); }
SOFTMX_LANES_INLINE RegF64 fma_reg(RegF64 a, RegF64 b, RegF64 c) { return _mm512_fmadd_pd(a, b, c); }
#else
using RegF32 = __m256;
using RegF64 = __m256d;
SOFTMX_LANES_INLINE RegF32 fma_reg(RegF32 a, RegF32 b, RegF32 c) { return _mm256_fmadd_ps(a, b, c); }
SOFTMX_LANES_INLINE RegF64 fma_reg(RegF64 a, RegF64 b, RegF64 c) { return _mm256_fmadd_pd(a, b, c); }
#endif
template <class R, class V>
SOFTMX_LANES_INLINE V fma_as(V a, V b, V c) {
  return reinterpret_cast<V>(fma_reg(reinterpret_cast<R>(a), reinterpret_cast<R>(b), reinterpret_cast<R>(c)));
}
SOFTMX_LANES_INLINE f32v fmadd_lanes(f32v a, f32v b, f32v c) { return fma_as<RegF32>(a, b, c); }
SOFTMX_LANES_INLINE f64h fmadd_lanes(f64h a, f64h b, f64h c) { return fma_as<RegF64>(a, b, c); }

/// RO_f32(x / s) for one f32 x (bits) and s in [1, 2), as ro_vec computes it lane by lane.
inline std::uint32_t ro_one(std::uint32_t xb, float s) {
  const std::uint32_t ax = xb & 0x7FFFFFFFu;
  if (ax == 0) return xb;
  if (ax < 0x0D800000u) return (xb & 0x80000000u) | 0x0D000001u;
  float xf;
  std::memcpy(&xf, &xb, 4);
  const float q = xf / s;
  const double r = static_cast<double>(xf) - static_cast<double>(q) * static_cast<double>(s);
  std::uint32_t qb;
  std::memcpy(&qb, &q, 4);
  if (r != 0) qb = (r > 0) == (xf > 0) ? (qb | 1u) : ((qb - 1u) | 1u);
  return qb;
}

/// The bits of 2^-100, the smallest |x| that ro_vec divides (below it: the stand-in).
inline constexpr std::uint32_t kRoLow = 0x0D800000u;

/// N f32 codes x -> RO_f32(x / s), the quotient rounded to odd at f32's 24 bits, without a
/// division (docs/BLOCKS.md 1.3 gives the bounds). Per lane, for |x| >= 2^-100 (a normal f32),
/// with r = RN_f32(1 / s) and every step one f32 operation rounded to nearest even:
///   q0 = RN(x r)                   |q0 - x/s| < 2 ulp: an estimate
///   e0 = RN(x - q0 s)              one fused multiply-add
///   q1 = RN(q0 + e0 r)             one fused multiply-add: |q0 + e0 r - x/s| < 2^-21 ulp, so q1
///                                  is x/s when that is an f32 and otherwise one of the two f32
///                                  around it (a faithful quotient)
///   e1 = RN(x - q1 s)              one fused multiply-add: its sign is the sign of x - q1 s and
///                                  it is zero iff x = q1 s (the exact value is zero or at least
///                                  2^-147 in magnitude, and rounding is monotone)
/// e1 = 0: x / s = q1. Otherwise the true quotient lies strictly between q1 and its f32
/// neighbour on e1's side (|x / s| > |q1| iff e1 has x's sign, as s > 0), and RO picks the one
/// of those two whose last bit is 1: q1 | 1 on the far side, (q1 - 1) | 1 on the near side (bit
/// patterns of the magnitude; the sign bit is untouched since |q1| >= 2^-101).
/// Tiny (the block may hold zeros or 0 < |x| < 2^-100; false: the caller knows it holds
/// neither, and the lanes are not looked at): zeros stay as they are, and 0 < |x| < 2^-100
/// gives sign(x) (2^-101 + 2^-124): a stand-in for "non-zero, inexact, and far below every
/// element's smallest subnormal" once divided by 2^k with k >= -36 (the caller's condition; the
/// true |x / S| is then below 2^-64 too).
template <bool Tiny = true>
SOFTMX_LANES_INLINE u32v ro_vec(u32v xb, const RoConst& c) {
  const f32v xf = reinterpret_cast<f32v>(xb);
  const f32v q0 = xf * c.r;
  const f32v e0 = fmadd_lanes(-q0, c.s, xf);  // x - q0 s, rounded once
  const f32v q1 = fmadd_lanes(e0, c.r, q0);   // faithful
  const f32v e1 = fmadd_lanes(-q1, c.s, xf);  // x - q1 s: its sign, and zero iff exact
  const i32v nz = e1 != 0.0f;
  // |x / s| < |q1|: e1's sign differs from x's (-1 in those lanes; e1 = +0 where nz is 0).
  const i32v near = nz & (reinterpret_cast<i32v>(reinterpret_cast<u32v>(e1) ^ xb) < 0);
  u32v r = (reinterpret_cast<u32v>(q1) + reinterpret_cast<u32v>(near)) | (reinterpret_cast<u32v>(nz) & 1u);
  if constexpr (Tiny) {
    // Zeros and |x| < 2^-100 (one compare: zero is below too), rare: the fix-ups only when present.
    const u32v ax = xb & 0x7FFFFFFFu;
    if (any_at_least(splat(kRoLow - 1), ax)) [[unlikely]] {
      r = ax < kRoLow ? (xb & 0x80000000u) | 0x0D000001u : r;
      r = ax == 0 ? xb : r;
    }
  }
  return r;
}

/// ScaleKernels::QuotientFn for destination D and rounding R, the general form: for every block
/// b with s[b] != 0, codes[b k + i] = the element code of RO_f32(x[b k + i] / s[b]) 2^-shift[b]
/// (VectorKernel, scaled, with flags per element; lanes it hands on take scaled_scalar, the
/// scalar round_pack); returns the OR of the flags. Serves any k.
template <int D, Rounding R>
Flags quotient_blocks_general(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                              const int* shift, std::uint8_t* codes) {
  const VectorKernel<D, R, true, true, true> kern(p);
  u32v acc = splat(0);
  Flags slow = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    if (s[b] == 0) continue;
    const RoConst c(s[b]);
    const int sh = shift[b];
    const std::uint32_t* xb = x + b * k;
    std::uint8_t* cb = codes + b * k;
    std::size_t i = 0;
    for (; i + N <= k; i += N) {
      u32v xv;
      std::memcpy(&xv, xb + i, sizeof xv);
      const u32v y = ro_vec(xv, c);
      u32v code, fl;
      i32v fallback;
      kern(y, sh, code, fl, fallback);
      if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
        fl = fallback ? splat(0) : fl;
        for (; lanes; lanes &= lanes - 1) {
          const int j = __builtin_ctz(lanes);
          const Result r = scaled_scalar(p, y[j], sh);
          code[j] = static_cast<std::uint32_t>(r.code);
          slow |= r.flags;
        }
      }
      store_codes(cb + i, code);
      acc |= fl;
    }
    for (; i < k; ++i) {
      const Result r = scaled_scalar(p, ro_one(xb[i], s[b]), sh);
      cb[i] = static_cast<std::uint8_t>(r.code);
      slow |= r.flags;
    }
  }
  std::uint32_t f = 0;
  for (int j = 0; j < N; ++j) f |= acc[j];
  return static_cast<Flags>(f | slow);
}

/// The largest k the direct form takes (its quotients live in a buffer on the stack).
inline constexpr std::size_t kDirectMaxK = 256;

/// The largest and smallest magnitudes (sign-cleared bits) of the k f32 codes at x (k a
/// multiple of N).
SOFTMX_LANES_INLINE void magnitude_range(const std::uint32_t* x, std::size_t k, std::uint32_t& hi, std::uint32_t& lo) {
  u32v m = splat(0), mn = splat(0xFFFFFFFFu);
  for (std::size_t i = 0; i < k; i += N) {
    u32v xv;
    std::memcpy(&xv, x + i, sizeof xv);
    xv &= 0x7FFFFFFFu;
    m = xv > m ? xv : m;
    mn = xv < mn ? xv : mn;
  }
  hi = reduce_max(m);
  lo = ~reduce_max(~mn);
}

/// y[i] = RO_f32(x[i] / s) for i < k (a multiple of N) by ro_vec (Tiny: with its fix-ups for
/// zeros and 0 < |x| < 2^-100). With s = 1 (Tiny only), RO_f32(x / 1) is x: only the stand-in.
template <bool Tiny>
SOFTMX_LANES_INLINE void quotients(const std::uint32_t* x, std::size_t k, float s, std::uint32_t* y) {
  const RoConst c(s);
  const bool unit = Tiny && s == 1.0f;
  for (std::size_t i = 0; i < k; i += N) {
    u32v xv;
    std::memcpy(&xv, x + i, sizeof xv);
    const u32v ax = xv & 0x7FFFFFFFu;
    const u32v yv = !unit ? ro_vec<Tiny>(xv, c) : ax < kRoLow && ax != 0 ? (xv & 0x80000000u) | 0x0D000001u : xv;
    std::memcpy(y + i, &yv, sizeof yv);
  }
}

/// Whether some block b < blocks with s[b] != 0 overflows under rne (direct_rne_fpu): its
/// largest scaled quotient, maxi(RO_f32(amax[b] / s[b]) - shift[b] 2^23, 2^-126) in f32 bits
/// (what scaled_f32 makes of the quotient of the block's largest magnitude), is at least
/// Direct::ovf_from. Exact because every step is monotone in |x|: the division by s[b] > 0,
/// rounding to odd, the exponent shift and raise to 2^-126 (on f32 bits of non-negative values,
/// integer order is value order), and the element's rne rounding; so the block's largest
/// rounded magnitude is its amax's, and the block overflows iff that one does (the direct path
/// with Largest kept found the same: a largest code above max_mag). Blocks that then take the
/// general path (out of range) overflow in it as well: it rounds the same quotient. N blocks
/// at a time in lanes, with each lane's own s (r = RN_f32(1 / s), as RoConst), the rest one by
/// one (ro_one, which ro_vec equals lane by lane). Lanes with s = 0 are left out.
template <int D>
SOFTMX_LANES_INLINE bool quotients_overflow(const Direct<D>& dp, std::size_t blocks, const float* s, const int* shift,
                                            const std::uint32_t* amax) {
  const i32v from = splat_i(static_cast<std::int32_t>(dp.ovf_from));
  i32v ovf = splat_i(0);
  std::size_t b = 0;
  for (; b + N <= blocks; b += N) {
    RoConst c(1.0f);
    u32v a;
    i32v sh;
    std::memcpy(&c.s, s + b, sizeof c.s);
    std::memcpy(&a, amax + b, sizeof a);
    std::memcpy(&sh, shift + b, sizeof sh);
    const i32v live = c.s != 0.0f;
    c.s = live ? c.s : c.r;  // 1.0 in the lanes left out (no Inf or NaN from 1 / 0)
    c.r = c.r / c.s;
    const u32v q = ro_vec<true>(a, c);
    const i32v top = maxi(reinterpret_cast<i32v>(q) - (sh << 23), splat_i(0x800000));
    ovf |= live & (top >= from);
  }
  bool any = lane_bits(ovf) != 0;
  for (; b < blocks; ++b) {
    if (s[b] == 0) continue;
    const std::int32_t top = static_cast<std::int32_t>(ro_one(amax[b], s[b])) - shift[b] * (1 << 23);
    any |= std::max(top, std::int32_t{0x800000}) >= static_cast<std::int32_t>(dp.ovf_from);
  }
  return any;
}

/// ScaleKernels::QuotientFn, the direct form: the same codes and flags as
/// quotient_blocks_general, by simd/block_lanes.hpp's direct path (BlockRun::direct_block) on
/// the quotients y = RO_f32(x / s[b]) (ro_vec) stored in a buffer as f32 codes, scaled by
/// 2^-shift[b] there. That path ORs flag bits instead of forming each element's flags, and
/// rounds rne with one f32 addition. It serves the y of a block because every y is zero or a
/// normal f32 (ro_vec: |y| >= 2^-101 or y = +-0; no source subnormal), and the block is in its
/// range (BlockRun::in_range) when the largest |x| of the block is: |y| <= the largest |x|
/// (s[b] >= 1, and rounding to odd never passes the f32 neighbour |x| itself above it), so the
/// exponent of every |y| is at most the largest |x|'s. A block out of range takes the general
/// path on the same buffer (VectorKernel: what quotient_blocks_general does).
/// The usual block (smallest |x| >= 2^-100: no zero, no stand-in) takes ro_vec without its
/// fix-ups and the direct path without its zero lanes; with s[b] = 1 (RO_f32(x / 1) = x) the
/// direct path reads x itself. amax, amin: the blocks' largest and smallest magnitudes as
/// BlockScalesFn gives them, or null (found here). K: k when it is known at compile time, else
/// 0. Preconditions: Direct<D>::possible and the plan's Direct::ok, k a multiple of N and at
/// most kDirectMaxK.
template <int D, Rounding R, bool Fpu, std::size_t K, bool ByAmax = false, bool OvfMin = false>
Flags quotient_blocks_direct(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k_rt, const float* s,
                             const int* shift, const std::uint32_t* amax, const std::uint32_t* amin,
                             std::uint8_t* codes) {
  static constexpr BlockHooks kNoHooks{nullptr, -1, 0, nullptr, nullptr};  // scales come from the caller
  const std::size_t k = K ? K : k_rt;
  BlockRun<D, R, Src::f32> run(p, kNoHooks);
  // The flag bits and constants as locals, whose address no call sees: the code stores (bytes,
  // which may alias anything whose address escaped) then leave them in registers.
  FlagBits acc = run.direct_acc;
  const Direct<D> dp = run.direct;
  alignas(64) std::uint32_t y[kDirectMaxK];
  // ByAmax: overflow decided per block from its largest quotient (quotients_overflow), so the
  // direct path keeps no largest code per element and takes the overflow code by a minimum
  // where OvfMin (Direct::ovf_min) holds.
  constexpr bool by_amax = ByAmax && Fpu && R == Rounding::rne && !Direct<D>::twos;
  if constexpr (by_amax) {
    if (quotients_overflow(dp, blocks, s, shift, amax)) acc.slow |= flag::overflow | flag::inexact;
  }
  auto direct = [&]<bool Zeros>(const std::uint32_t* src, int sh, std::uint8_t* cb) SOFTMX_LANES_INLINE_LAMBDA {
    if constexpr (by_amax) {
      direct_rne_fpu<D, Src::f32, Zeros, K, OvfMin, false>(dp, src, k, splat_i(sh * (1 << 23)), cb, acc);
    } else {
      run.template direct_block<Fpu, Zeros, K>(dp, src, k, sh, cb, acc);
    }
  };
  for (std::size_t b = 0; b < blocks; ++b) {
    if (s[b] == 0) continue;
    const std::uint32_t* xb = x + b * k;
    std::uint8_t* cb = codes + b * k;
    const int sh = shift[b];
    std::uint32_t hi, lo;
    if (amax) {
      hi = amax[b];
      lo = amin[b];
    } else {
      magnitude_range(xb, k, hi, lo);
    }
    const bool in_range = run.in_range(hi, sh);
    if (lo >= kRoLow && in_range) [[likely]] {
      if (s[b] == 1.0f) {
        direct.template operator()<false>(xb, sh, cb);
        continue;
      }
      quotients<false>(xb, k, s[b], y);
      direct.template operator()<false>(y, sh, cb);
      continue;
    }
    // Zeros, values below 2^-100 (NVFP4's products, tiny data) or a block out of range.
    quotients<true>(xb, k, s[b], y);
    if (in_range) {
      direct.template operator()<true>(y, sh, cb);
    } else {
      run.general(y, k, sh, cb);
    }
  }
  run.direct_acc = acc;
  return run.flags();
}

/// ScaleKernels::QuotientFn for destination D and rounding R: for every block b with s[b] != 0,
/// codes[b k + i] = the element code of RO_f32(x[b k + i] / s[b]) 2^-shift[b]; returns the OR
/// of the flags. The direct form where the plan and k allow it (compiled for k = 32 and for
/// any k), else the general one.
template <int D, Rounding R>
Flags quotient_blocks(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                      const int* shift, const std::uint32_t* amax, const std::uint32_t* amin, std::uint8_t* codes) {
  if constexpr (Direct<D>::possible) {
    if (k % N == 0 && k <= kDirectMaxK && Direct<D>(p).ok) {
      auto go = [&]<bool Fpu>() {
        return k == 32 ? quotient_blocks_direct<D, R, Fpu, 32>(p, x, blocks, k, s, shift, amax, amin, codes)
                       : quotient_blocks_direct<D, R, Fpu, 0>(p, x, blocks, k, s, shift, amax, amin, codes);
      };
      if (R == Rounding::rne && fpu_is_default()) {
        // The usual call (k = 32, the ranges from BlockScalesFn): overflow per block.
        if constexpr (!Direct<D>::twos) {
          if (k == 32 && amax) {
            return Direct<D>(p).ovf_min
                       ? quotient_blocks_direct<D, R, true, 32, true, true>(p, x, blocks, k, s, shift, amax, amin, codes)
                       : quotient_blocks_direct<D, R, true, 32, true, false>(p, x, blocks, k, s, shift, amax, amin,
                                                                             codes);
          }
        }
        return go.template operator()<true>();
      }
      return go.template operator()<false>();
    }
  }
  return quotient_blocks_general<D, R>(p, x, blocks, k, s, shift, codes);
}

/// x in every lane (exact copies, signs included).
SOFTMX_LANES_INLINE f64h splat_f64h(double x) {
  f64h v;
  for (int j = 0; j < kL; ++j) v[j] = x;
  return v;
}

/// The lane (of a then b, 0 .. 2N - 1) that lane i of a transpose_reduce shuffle reads. Kind 0
/// and 1: within each 128-bit chunk of 4 lanes, the low (or, Hi, the high) 32-bit lanes of a
/// and b interleaved (x86's unpack of 32-bit lanes: one instruction on AVX2 and AVX-512), or
/// their low (high) 64-bit halves side by side (unpack of 64-bit lanes). Kind 2: the low (high)
/// halves of consecutive groups of 2H lanes, a's groups then b's.
template <int Kind, int H, bool Hi>
constexpr int source_lane(int i) {
  const int chunk = i / 4 * 4, r = i % 4, up = Hi ? 2 : 0;
  if constexpr (Kind == 0) return chunk + up + r / 2 + (r % 2) * N;
  if constexpr (Kind == 1) return chunk + up + r % 2 + (r / 2) * N;
  return (i / H) * 2 * H + i % H + (Hi ? H : 0);
}

template <int Kind, int H, bool Hi, std::size_t... I>
SOFTMX_LANES_INLINE u32v shuffle_lanes(u32v a, u32v b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, source_lane<Kind, H, Hi>(static_cast<int>(I))...);
}

/// The larger (Max) or smaller of the low and high shuffles of a and b, lane by lane.
template <int Kind, int H, bool Max>
SOFTMX_LANES_INLINE u32v fold(u32v a, u32v b) {
  const u32v lo = shuffle_lanes<Kind, H, false>(a, b, std::make_index_sequence<N>{});
  const u32v hi = shuffle_lanes<Kind, H, true>(a, b, std::make_index_sequence<N>{});
  if constexpr (Max) {
    return lo > hi ? lo : hi;
  } else {
    return lo < hi ? lo : hi;
  }
}

/// transpose_reduce's last levels: H / 4 vectors whose 128-bit chunks each hold one lane of 4
/// consecutive blocks; pairs of vectors folded by groups of H lanes until one is left, then that
/// one with itself (groups of 4 lanes): lane j is block j's.
template <int H, bool Max>
SOFTMX_LANES_INLINE u32v fold_chunks(u32v* v) {
  if constexpr (H == 4) {
    return fold<2, 4, Max>(v[0], v[0]);
  } else {
    for (int j = 0; j < H / 8; ++j) v[j] = fold<2, H, Max>(v[2 * j], v[2 * j + 1]);
    return fold_chunks<H / 2, Max>(v);
  }
}

/// N / 2 vectors v[j] (block j's partial results, N lanes each; overwritten) -> lane j of the
/// result is the largest (Max) or smallest of v[j]'s lanes, for j < N / 2: pairs of vectors
/// folded into one at each level (two shuffles and a max each: 7 levels' worth of folds on
/// AVX-512, 3 on AVX2, instead of N / 2 horizontal reductions of log2(N) steps each). After
/// the two unpack levels each 128-bit chunk holds one lane of each of 4 blocks (blocks
/// 4q .. 4q + 3 in vector q), and every lane of a block has been folded into those lanes.
template <bool Max>
SOFTMX_LANES_INLINE u32v transpose_reduce(u32v* v) {
  for (int j = 0; j < N / 4; ++j) v[j] = fold<0, 0, Max>(v[2 * j], v[2 * j + 1]);
  for (int j = 0; j < N / 8; ++j) v[j] = fold<1, 0, Max>(v[2 * j], v[2 * j + 1]);
  return fold_chunks<N / 2, Max>(v);
}

/// ScaleKernels::block_scales (BlockScalesFn; block_scales below picks K): each block's largest
/// and smallest magnitudes in N lanes, kL blocks reduced at once by transpose_reduce (kept in
/// bmax and bmin for QuotientFn), then the scales of those kL blocks in f64 lanes by
/// block/scale_lanes.cpp's scale_code_f64, step for step (the same IEEE operations, each rounded
/// once: the division, the fused multiply-add of its remainder, the round-to-odd bit, the
/// addition and subtraction of C). K: k when it is known at compile time (32), else 0.
template <std::size_t K>
void block_scales_k(const ScaleF64& c, const std::uint32_t* x, std::size_t blocks, std::size_t k_rt,
                    std::uint32_t* S, float* s, int* shift, std::uint32_t* bmax, std::uint32_t* bmin) {
  const std::size_t k = K ? K : k_rt;
  const f64h maxe = splat_f64h(c.max_e), max_value = splat_f64h(c.max_value), min_value = splat_f64h(c.min_value);
  const f64h up = splat_f64h(__builtin_ldexp(1.0, c.m - c.emin)), two52 = splat_f64h(0x1p52);
  const u64h fmask = u64h{} + ((std::uint64_t{1} << c.m) - 1);
  for (std::size_t b0 = 0; b0 < blocks; b0 += kL) {
    u32h amax{}, amin{};
    const std::size_t nb = blocks - b0 < kL ? blocks - b0 : kL;
    if (nb == kL && k % N == 0) {
      // kL blocks' largest and smallest magnitudes at once: each block's N lanes, then one
      // transposing reduction (transpose_reduce) in place of kL horizontal ones.
      u32v m[kL], mn[kL];
      for (std::size_t j = 0; j < kL; ++j) {
        const std::uint32_t* v = x + (b0 + j) * k;
        m[j] = splat(0);
        mn[j] = splat(0xFFFFFFFFu);
        for (std::size_t i = 0; i < k; i += N) {
          u32v xv;
          std::memcpy(&xv, v + i, sizeof xv);
          xv &= 0x7FFFFFFFu;
          m[j] = xv > m[j] ? xv : m[j];
          mn[j] = xv < mn[j] ? xv : mn[j];
        }
      }
      const u32v hi = transpose_reduce<true>(m), lo = transpose_reduce<false>(mn);
      std::memcpy(&amax, &hi, sizeof amax);  // lanes 0 .. kL - 1
      std::memcpy(&amin, &lo, sizeof amin);
    } else
    for (std::size_t j = 0; j < nb; ++j) {
      const std::uint32_t* v = x + (b0 + j) * k;
      std::size_t i = 0;
      std::uint32_t r = 0, rl = 0xFFFFFFFFu;
      if (k >= static_cast<std::size_t>(N)) {
        const std::size_t kv = k - k % N;
        magnitude_range(v, kv, r, rl);
        i = kv;
      }
      for (; i < k; ++i) {
        r = std::max(r, v[i] & 0x7FFFFFFFu);
        rl = std::min(rl, v[i] & 0x7FFFFFFFu);
      }
      amax[j] = r;
      amin[j] = rl;
    }
    // Lanes without a finite positive amax (and the unused ones) compute on 1.0 and are
    // marked s = 0 below.
    const u32h bad = (amax >= 0x7F800000u) | (amax == 0u);
    const u32h am = bad ? 0x3F800000u : amax;
    const f64h a = __builtin_convertvector(reinterpret_cast<f32h>(am), f64h);
    f64h q = a / maxe;
    const f64h r = fmadd_lanes(-q, maxe, a);  // a - q max_E, exact
    // (q - [r < 0]) | [r != 0]: q, q | 1 or (q - 1) | 1 (r < 0 lanes are -1 as integers).
    const u64h qb = (reinterpret_cast<u64h>(q) + reinterpret_cast<u64h>(r < 0)) | (reinterpret_cast<u64h>(r != 0) & 1u);
    q = reinterpret_cast<f64h>(qb);
    i64h e = reinterpret_cast<i64h>(qb >> 52) - 1023;
    e = e < c.emin ? i64h{} + c.emin : e;
    const f64h C = reinterpret_cast<f64h>((e - c.m + 52 + 1023) << 52);
    f64h v = (q + C) - C;  // RN_p(q) at the scale format's quantum, exact
    // The scale's value: min_value for a quotient that rounds to zero, max_value above it.
    const i64h zero = v == 0, sat = v > max_value;
    v = zero ? min_value : sat ? max_value : v;
    const u64h vb = reinterpret_cast<u64h>(v);
    const i64h ev = reinterpret_cast<i64h>(vb >> 52) - 1023;
    // A subnormal code: v / 2^(emin - m), an integer below 2^m, read from the low bits of
    // v 2^(m - emin) + 2^52 (exact: an integer below 2^53).
    const u64h subc = reinterpret_cast<u64h>(v * up + two52) & fmask;
    const u64h normc = (reinterpret_cast<u64h>(ev + c.bias) << c.m) | ((vb >> (52 - c.m)) & fmask);
    const u64h code = zero ? u64h{} + std::uint64_t{c.min_code} : sat ? u64h{} + std::uint64_t{c.max_code} : ev < c.emin ? subc : normc;
    // s: v's significand in [1, 2) (exact in f32: at most 24 bits); shift: v's exponent.
    const f64h sig = reinterpret_cast<f64h>((vb & std::uint64_t{0x000FFFFFFFFFFFFF}) | std::uint64_t{0x3FF0000000000000});
    const i64h skip = reinterpret_cast<i64h>(__builtin_convertvector(bad, u64h)) | (ev < -36) | (ev > 127);
    const f32h sf = __builtin_convertvector(skip ? splat_f64h(0) : sig, f32h);
    typedef std::int32_t i32h __attribute__((vector_size(4 * kL)));
    const u32h code32 = __builtin_convertvector(code, u32h);
    const i32h ev32 = __builtin_convertvector(ev, i32h);
    if (nb == kL) {
      std::memcpy(S + b0, &code32, sizeof code32);
      std::memcpy(shift + b0, &ev32, sizeof ev32);
      std::memcpy(s + b0, &sf, sizeof sf);
      std::memcpy(bmax + b0, &amax, sizeof amax);
      std::memcpy(bmin + b0, &amin, sizeof amin);
    } else {
      for (std::size_t j = 0; j < nb; ++j) {
        S[b0 + j] = code32[j];
        shift[b0 + j] = ev32[j];
        s[b0 + j] = sf[j];
        bmax[b0 + j] = amax[j];
        bmin[b0 + j] = amin[j];
      }
    }
  }
}

inline void block_scales(const ScaleF64& c, const std::uint32_t* x, std::size_t blocks, std::size_t k,
                         std::uint32_t* S, float* s, int* shift, std::uint32_t* bmax, std::uint32_t* bmin) {
  if (k == 32) return block_scales_k<32>(c, x, blocks, k, S, s, shift, bmax, bmin);
  block_scales_k<0>(c, x, blocks, k, S, s, shift, bmax, bmin);
}

/// ScaleKernels::block_range16: N / 2 blocks at a time (one vector a block after folding its
/// 16 / N vectors lane by lane), reduced by transpose_reduce; the blocks past the last such
/// group one by one.
inline std::uint32_t block_range16(const std::uint32_t* x, std::size_t blocks, std::uint32_t* bmax, std::uint32_t* bmin) {
  constexpr std::size_t G = N / 2;
  u32v all = splat(0);
  auto range = [&](std::size_t j, u32v& m, u32v& mn) {
    m = splat(0);
    mn = splat(0xFFFFFFFFu);
    for (int i = 0; i < 16; i += N) {
      u32v v;
      std::memcpy(&v, x + 16 * j + i, sizeof v);
      v &= 0x7FFFFFFFu;
      m = v > m ? v : m;
      mn = v < mn ? v : mn;
    }
    all = m > all ? m : all;
  };
  std::size_t j = 0;
  for (; j + G <= blocks; j += G) {
    u32v m[G], mn[G];
    for (std::size_t g = 0; g < G; ++g) range(j + g, m[g], mn[g]);
    const u32v hi = transpose_reduce<true>(m), lo = transpose_reduce<false>(mn);
    std::memcpy(bmax + j, &hi, G * 4);  // lanes 0 .. G - 1
    std::memcpy(bmin + j, &lo, G * 4);
  }
  for (; j < blocks; ++j) {
    u32v m, mn;
    range(j, m, mn);
    bmax[j] = reduce_max(m);
    bmin[j] = ~reduce_max(~mn);
  }
  return reduce_max(all);
}

/// ScaleKernels::MulRoundFn for destination D under rne: per group, y = RN_f32(x m) lane by
/// lane (one f32 multiply) stored in a buffer, then BlockRun's direct path on the 256 values
/// with shift 0 (general path out of range): with shift 0 no step depends on the block, so the
/// 16 NVFP4 blocks of a group go as one. The group's largest and smallest |y| come from the
/// blocks' bmax and bmin (pass 1's), not from the products: |RN(x m)| = RN(|x| |m|) and
/// rounding is monotone, so block j's largest |y| is RN(bmax_j |m_j|) and its smallest
/// RN(bmin_j |m_j|); the largest decides Inf (skip) and BlockRun::in_range, the smallest
/// whether a product is zero (the direct path's zero lanes). A product below 2^-126 (an f32
/// subnormal, which ro_vec's stand-in used to replace) goes in as it is: with shift 0 the
/// direct path raises every non-zero value below 2^-126 to 2^-126 (scaled_f32), which rounds
/// as the product does (to zero or the element's smallest subnormal per the mode; inexact and
/// tiny), since Direct::ok keeps 2^-126 below half of the element's smallest subnormal.
/// Preconditions: Direct<D>::possible and the plan's Direct::ok, rounding rne, x finite, every
/// m finite.
template <int D, bool Fpu, bool OvfMin = false>
Flags mul_round_direct(const Plan& p, const std::uint32_t* x, std::size_t groups, const float* m,
                       const std::uint32_t* bmax, const std::uint32_t* bmin, std::uint8_t* codes,
                       std::uint8_t* skip) {
  static constexpr BlockHooks kNoHooks{nullptr, -1, 0, nullptr, nullptr};
  BlockRun<D, Rounding::rne, Src::f32> run(p, kNoHooks);
  FlagBits acc = run.direct_acc;  // a local, kept in registers (quotient_blocks_direct)
  const Direct<D> dp = run.direct;
  constexpr std::size_t kG = 256, kSub = 4 * N;  // kSub: the direct path's four-vector store
  alignas(64) std::uint32_t y[kG];
  // Fpu: overflow decided per group from pmax (direct_rne_fpu then keeps no largest code per
  // element; OvfMin: the overflow code by a minimum), as quotients_overflow does per block.
  bool ovf = false;
  auto direct = [&]<bool Zeros>(std::size_t i, std::uint8_t* cg) SOFTMX_LANES_INLINE_LAMBDA {
    if constexpr (Fpu) {
      direct_rne_fpu<D, Src::f32, Zeros, kSub, OvfMin, false>(dp, y + i, kSub, splat_i(0), cg + i, acc);
    } else {
      run.template direct_block<Fpu, Zeros, kSub>(dp, y + i, kSub, 0, cg + i, acc);
    }
  };
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint32_t* xg = x + g * kG;
    u32v hv = splat(0), lv = splat(0xFFFFFFFFu);
    for (std::size_t j = 0; j < 16; j += N) {
      u32v mb, hi, lo;
      std::memcpy(&mb, m + g * 16 + j, sizeof mb);
      std::memcpy(&hi, bmax + g * 16 + j, sizeof hi);
      std::memcpy(&lo, bmin + g * 16 + j, sizeof lo);
      const f32v am = reinterpret_cast<f32v>(mb & 0x7FFFFFFFu);
      const u32v ph = reinterpret_cast<u32v>(reinterpret_cast<f32v>(hi) * am);
      const u32v pl = reinterpret_cast<u32v>(reinterpret_cast<f32v>(lo) * am);
      hv = ph > hv ? ph : hv;
      lv = pl < lv ? pl : lv;
    }
    const std::uint32_t pmax = reduce_max(hv), pmin = ~reduce_max(~lv);
    skip[g] = pmax >= 0x7F800000u;
    if (skip[g]) continue;
    for (std::size_t j = 0; j < 16; ++j) {
      // m_j in every lane, bit for bit (an integer splat: a float one, 0 + m, would lose -0's sign).
      std::uint32_t mb;
      std::memcpy(&mb, m + g * 16 + j, 4);
      const f32v mv = reinterpret_cast<f32v>(splat(mb));
      for (std::size_t i = 16 * j; i < 16 * j + 16; i += N) {
        f32v xv;
        std::memcpy(&xv, xg + i, sizeof xv);
        const f32v pv = xv * mv;
        std::memcpy(y + i, &pv, sizeof pv);
      }
    }
    std::uint8_t* cg = codes + g * kG;
    if (!run.in_range(pmax, 0)) {
      run.general(y, kG, 0, cg);
    } else {
      // The group's largest y as scaled_f32 makes it with shift 0 (raised to 2^-126).
      ovf |= std::max(pmax, std::uint32_t{0x800000}) >= dp.ovf_from;
      if (pmin != 0) [[likely]] {
        for (std::size_t i = 0; i < kG; i += kSub) direct.template operator()<false>(i, cg);
      } else {
        for (std::size_t i = 0; i < kG; i += kSub) direct.template operator()<true>(i, cg);
      }
    }
  }
  if (Fpu && ovf) acc.slow |= flag::overflow | flag::inexact;
  run.direct_acc = acc;
  return run.flags();
}

/// ScaleKernels::pick_mul_round.
inline MulRoundFn pick_mul_round(const Plan& p) {
  if (p.ctx.rounding != Rounding::rne) return nullptr;
  auto direct = [&]<int D>() -> MulRoundFn {
    if constexpr (Direct<D>::possible) {
      const Direct<D> dp(p);
      if (dp.ok) {
        if (!fpu_is_default()) return &mul_round_direct<D, false>;
        return dp.ovf_min ? &mul_round_direct<D, true, true> : &mul_round_direct<D, true, false>;
      }
    }
    return nullptr;
  };
  switch (p.dst) {
    case FormatId::e2m1: return direct.template operator()<static_cast<int>(FormatId::e2m1)>();
    case FormatId::e4m3: return direct.template operator()<static_cast<int>(FormatId::e4m3)>();
    default: break;
  }
  return nullptr;
}

/// quotient_blocks for the plan's destination (a named MX float element) and rounding; null
/// for any other.
inline QuotientFn pick_quotient(const Plan& p) {
  auto by_mode = [&]<int D>() -> QuotientFn {
    switch (p.ctx.rounding) {
      case Rounding::rne: return &quotient_blocks<D, Rounding::rne>;
      case Rounding::rna: return &quotient_blocks<D, Rounding::rna>;
      case Rounding::rz: return &quotient_blocks<D, Rounding::rz>;
      case Rounding::ru: return &quotient_blocks<D, Rounding::ru>;
      case Rounding::rd: return &quotient_blocks<D, Rounding::rd>;
      case Rounding::ro: return &quotient_blocks<D, Rounding::ro>;
      case Rounding::rs: break;
    }
    return nullptr;
  };
  switch (p.dst) {
    case FormatId::e4m3: return by_mode.template operator()<static_cast<int>(FormatId::e4m3)>();
    case FormatId::e5m2: return by_mode.template operator()<static_cast<int>(FormatId::e5m2)>();
    case FormatId::e3m2: return by_mode.template operator()<static_cast<int>(FormatId::e3m2)>();
    case FormatId::e2m3: return by_mode.template operator()<static_cast<int>(FormatId::e2m3)>();
    case FormatId::e2m1: return by_mode.template operator()<static_cast<int>(FormatId::e2m1)>();
    default: break;
  }
  return nullptr;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
