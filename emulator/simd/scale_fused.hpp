// emulator/simd/scale_fused.hpp: one MX block with a scale S that is not a power of two, N
// lanes at a time: every element x becomes RO_f32(x / S') (S = S' 2^k, S' in [1, 2)) in
// registers, then goes through simd/block_lanes.hpp's direct path (scaled by 2^-k, flags ORed)
// or simd/batch_lanes.hpp's VectorKernel (with flags per element), the kernels E8M0 blocks use (internal; included after simd/lanes.hpp by simd/scale_avx2.cpp and
// simd/scale_avx512.cpp, in namespace SOFTMX_SIMD_NS). docs/BLOCKS.md 1.3 gives the argument.

namespace softmx::simd::SOFTMX_SIMD_NS {

/// The constants of ro_vec for one divisor s in [1, 2): s and r = RN_f32(1 / s) in every lane.
struct RoConst {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  __m512 s, r;
  explicit RoConst(float v) : s(_mm512_set1_ps(v)), r(_mm512_set1_ps(1.0f / v)) {}
#elif defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  __m256 s, r;
  explicit RoConst(float v) : s(_mm256_set1_ps(v)), r(_mm256_set1_ps(1.0f / v)) {}
#else
#error "simd/scale_fused.hpp serves AVX-512 (16 lanes) and AVX2 (8 lanes)"
#endif
};

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
/// Zeros stay as they are. 0 < |x| < 2^-100 gives sign(x) (2^-101 + 2^-124): a stand-in for
/// "non-zero, inexact, and far below every element's smallest subnormal" once divided by 2^k
/// with k >= -36 (the caller's condition; the true |x / S| is then below 2^-64 too).
SOFTMX_LANES_INLINE u32v ro_vec(u32v xv, const RoConst& c) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  const __m512i xb = reinterpret_cast<__m512i>(xv);
  const __m512 xf = _mm512_castsi512_ps(xb);
  const __m512 q0 = _mm512_mul_ps(xf, c.r);
  const __m512 e0 = _mm512_fnmadd_ps(q0, c.s, xf);  // x - q0 s, rounded once
  const __m512 q1 = _mm512_fmadd_ps(e0, c.r, q0);   // faithful
  const __m512 e1 = _mm512_fnmadd_ps(q1, c.s, xf);  // x - q1 s: its sign, and zero iff exact
  const __mmask16 nz = _mm512_cmp_ps_mask(e1, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  // |x / s| < |q1|: e1's sign differs from x's.
  const __mmask16 near = nz & _mm512_movepi32_mask(_mm512_xor_si512(_mm512_castps_si512(e1), xb));
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i qb = _mm512_castps_si512(q1);
  __m512i r = _mm512_mask_sub_epi32(qb, near, qb, one);
  r = _mm512_mask_or_epi32(r, nz, r, one);
  // Zeros and |x| < 2^-100 (one compare: zero is below too), rare: the fix-ups only when present.
  const __m512i ax = _mm512_and_si512(xb, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 tiny = _mm512_cmplt_epu32_mask(ax, _mm512_set1_epi32(0x0D800000));
  if (tiny) [[unlikely]] {
    r = _mm512_mask_or_epi32(r, tiny, _mm512_and_si512(xb, _mm512_set1_epi32(static_cast<int>(0x80000000u))),
                             _mm512_set1_epi32(0x0D000001));
    r = _mm512_mask_mov_epi32(r, _mm512_cmpeq_epi32_mask(ax, _mm512_setzero_si512()), xb);
  }
  return reinterpret_cast<u32v>(r);
#else
  const __m256i xb = reinterpret_cast<__m256i>(xv);
  const __m256 xf = _mm256_castsi256_ps(xb);
  const __m256 q0 = _mm256_mul_ps(xf, c.r);
  const __m256 e0 = _mm256_fnmadd_ps(q0, c.s, xf);  // x - q0 s, rounded once
  const __m256 q1 = _mm256_fmadd_ps(e0, c.r, q0);   // faithful
  const __m256 e1 = _mm256_fnmadd_ps(q1, c.s, xf);  // x - q1 s: its sign, and zero iff exact
  const __m256i nz = _mm256_castps_si256(_mm256_cmp_ps(e1, _mm256_setzero_ps(), _CMP_NEQ_OQ));
  // |x / s| < |q1|: e1's sign differs from x's (-1 in those lanes).
  const __m256i near = _mm256_and_si256(_mm256_srai_epi32(_mm256_xor_si256(_mm256_castps_si256(e1), xb), 31), nz);
  const __m256i qb = _mm256_castps_si256(q1);
  __m256i r = _mm256_add_epi32(qb, near);  // q1 - 1 where near (those lanes are -1)
  r = _mm256_or_si256(r, _mm256_srli_epi32(nz, 31));
  const __m256i ax = _mm256_and_si256(xb, _mm256_set1_epi32(0x7FFFFFFF));
  // ax < 2^-100's bits (both below 2^31: the signed compare is the unsigned one); zero is below
  // too. Rare: the fix-ups only when present.
  const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x0D800000), ax);
  if (!_mm256_testz_si256(tiny, tiny)) [[unlikely]] {
    r = _mm256_blendv_epi8(r,
                           _mm256_or_si256(_mm256_and_si256(xb, _mm256_set1_epi32(static_cast<int>(0x80000000u))),
                                           _mm256_set1_epi32(0x0D000001)),
                           tiny);
    r = _mm256_blendv_epi8(r, xb, _mm256_cmpeq_epi32(ax, _mm256_setzero_si256()));
  }
  return reinterpret_cast<u32v>(r);
#endif
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

/// ScaleKernels::QuotientFn, the direct form: the same codes and flags as
/// quotient_blocks_general, by simd/block_lanes.hpp's direct path (BlockRun::direct_block) on
/// the quotients y = RO_f32(x / s[b]) (ro_vec) stored in a buffer as f32 codes, scaled by
/// 2^-shift[b] there. That path ORs flag bits instead of forming each element's flags, and
/// rounds rne with one f32 addition. It serves the y of a block because every y is zero or a
/// normal f32 (ro_vec: |y| >= 2^-101 or y = +-0; no source subnormal), and the block is in its
/// range (BlockRun::in_range) when the largest |x| of the block is: |y| <= the largest |x|
/// (s[b] >= 1, and rounding to odd never passes the f32 neighbour |x| itself above it), so the
/// exponent of every |y| is at most the largest |x|'s. A block out of range takes the general
/// path on the same buffer (VectorKernel: what quotient_blocks_general does). Preconditions:
/// Direct<D>::possible and the plan's Direct::ok, k a multiple of N and at most kDirectMaxK.
template <int D, Rounding R, bool Fpu>
Flags quotient_blocks_direct(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                             const int* shift, std::uint8_t* codes) {
  static constexpr BlockHooks kNoHooks{nullptr, -1, 0, nullptr, nullptr};  // scales come from the caller
  BlockRun<D, R, Src::f32> run(p, kNoHooks);
  alignas(64) std::uint32_t y[kDirectMaxK];
  for (std::size_t b = 0; b < blocks; ++b) {
    if (s[b] == 0) continue;
    const RoConst c(s[b]);
    const std::uint32_t* xb = x + b * k;
    u32v m = splat(0);
    if (s[b] == 1.0f) {
      // RO_f32(x / 1) is x: only ro_vec's stand-in for 0 < |x| < 2^-100 (NVFP4's products).
      for (std::size_t i = 0; i < k; i += N) {
        u32v xv;
        std::memcpy(&xv, xb + i, sizeof xv);
        const u32v ax = xv & 0x7FFFFFFFu;
        m = ax > m ? ax : m;
        const u32v yv = ax < 0x0D800000u && ax != 0 ? (xv & 0x80000000u) | 0x0D000001u : xv;
        std::memcpy(y + i, &yv, sizeof yv);
      }
    } else {
      for (std::size_t i = 0; i < k; i += N) {
        u32v xv;
        std::memcpy(&xv, xb + i, sizeof xv);
        const u32v ax = xv & 0x7FFFFFFFu;
        m = ax > m ? ax : m;
        const u32v yv = ro_vec(xv, c);
        std::memcpy(y + i, &yv, sizeof yv);
      }
    }
    if (run.in_range(reduce_max(m), shift[b])) {
      run.template direct_block<Fpu, true>(run.direct, y, k, shift[b], codes + b * k, run.direct_acc);
    } else {
      run.general(y, k, shift[b], codes + b * k);
    }
  }
  return run.flags();
}

/// ScaleKernels::QuotientFn for destination D and rounding R: for every block b with s[b] != 0,
/// codes[b k + i] = the element code of RO_f32(x[b k + i] / s[b]) 2^-shift[b]; returns the OR
/// of the flags. The direct form where the plan and k allow it, else the general one.
template <int D, Rounding R>
Flags quotient_blocks(const Plan& p, const std::uint32_t* x, std::size_t blocks, std::size_t k, const float* s,
                      const int* shift, std::uint8_t* codes) {
  if constexpr (Direct<D>::possible) {
    if (k % N == 0 && k <= kDirectMaxK && Direct<D>(p).ok) {
      if (R == Rounding::rne && fpu_is_default())
        return quotient_blocks_direct<D, R, true>(p, x, blocks, k, s, shift, codes);
      return quotient_blocks_direct<D, R, false>(p, x, blocks, k, s, shift, codes);
    }
  }
  return quotient_blocks_general<D, R>(p, x, blocks, k, s, shift, codes);
}

/// f64 lanes for block_scales: one register's worth (8 on AVX-512, 4 on AVX2), and their f32 and
/// u32 halves.
constexpr int kL = SOFTMX_SIMD_LANES / 2;
typedef double f64h __attribute__((vector_size(8 * kL)));
typedef std::int64_t i64h __attribute__((vector_size(8 * kL)));
typedef std::uint64_t u64h __attribute__((vector_size(8 * kL)));
typedef float f32h __attribute__((vector_size(4 * kL)));
typedef std::uint32_t u32h __attribute__((vector_size(4 * kL)));

/// c - a b rounded once (a fused multiply-add), lane by lane.
SOFTMX_LANES_INLINE f64h fnmadd_f64h(f64h a, f64h b, f64h c) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return reinterpret_cast<f64h>(
      _mm512_fnmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
#else
  return reinterpret_cast<f64h>(
      _mm256_fnmadd_pd(reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b), reinterpret_cast<__m256d>(c)));
#endif
}

/// x in every lane (exact copies, signs included).
SOFTMX_LANES_INLINE f64h splat_f64h(double x) {
  f64h v;
  for (int j = 0; j < kL; ++j) v[j] = x;
  return v;
}

/// ScaleKernels::block_scales (BlockScalesFn): each block's largest magnitude in N lanes, then
/// the scales of kL blocks at a time in f64 lanes by block/scale_lanes.cpp's scale_code_f64,
/// step for step (the same IEEE operations, each rounded once: the division, the fused
/// multiply-add of its remainder, the round-to-odd bit, the addition and subtraction of C).
inline void block_scales(const ScaleF64& c, const std::uint32_t* x, std::size_t blocks, std::size_t k,
                         std::uint32_t* S, float* s, int* shift) {
  const f64h maxe = splat_f64h(c.max_e), max_value = splat_f64h(c.max_value), min_value = splat_f64h(c.min_value);
  const f64h up = splat_f64h(__builtin_ldexp(1.0, c.m - c.emin)), two52 = splat_f64h(0x1p52);
  const u64h fmask = u64h{} + ((std::uint64_t{1} << c.m) - 1);
  for (std::size_t b0 = 0; b0 < blocks; b0 += kL) {
    u32h amax{};
    const std::size_t nb = blocks - b0 < kL ? blocks - b0 : kL;
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
    if (nb == kL && k % N == 0) {
      // Four blocks' largest magnitudes at once: each block's 8 lanes, then one transposing
      // reduction (pairs of lanes, then pairs of pairs, then the two 128-bit halves) in place of
      // four horizontal ones.
      __m256i m[4];
      for (int j = 0; j < 4; ++j) {
        const std::uint32_t* v = x + (b0 + j) * k;
        __m256i mm = _mm256_setzero_si256();
        for (std::size_t i = 0; i < k; i += N)
          mm = _mm256_max_epu32(mm, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i)),
                                                     _mm256_set1_epi32(0x7FFFFFFF)));
        m[j] = mm;
      }
      const __m256i a = _mm256_max_epu32(_mm256_unpacklo_epi32(m[0], m[1]), _mm256_unpackhi_epi32(m[0], m[1]));
      const __m256i bb = _mm256_max_epu32(_mm256_unpacklo_epi32(m[2], m[3]), _mm256_unpackhi_epi32(m[2], m[3]));
      const __m256i c2 = _mm256_max_epu32(_mm256_unpacklo_epi64(a, bb), _mm256_unpackhi_epi64(a, bb));
      amax = reinterpret_cast<u32h>(_mm_max_epu32(_mm256_castsi256_si128(c2), _mm256_extracti128_si256(c2, 1)));
    } else
#endif
    for (std::size_t j = 0; j < nb; ++j) {
      const std::uint32_t* v = x + (b0 + j) * k;
      std::size_t i = 0;
      std::uint32_t r = 0;
      if (k >= static_cast<std::size_t>(N)) {
        u32v m = splat(0);
        for (; i + N <= k; i += N) {
          u32v xv;
          std::memcpy(&xv, v + i, sizeof xv);
          xv &= 0x7FFFFFFFu;
          m = xv > m ? xv : m;
        }
        r = reduce_max(m);
      }
      for (; i < k; ++i) r = std::max(r, v[i] & 0x7FFFFFFFu);
      amax[j] = r;
    }
    // Lanes without a finite positive amax (and the unused ones) compute on 1.0 and are
    // marked s = 0 below.
    const u32h bad = (amax >= 0x7F800000u) | (amax == 0u);
    const u32h am = bad ? 0x3F800000u : amax;
    const f64h a = __builtin_convertvector(reinterpret_cast<f32h>(am), f64h);
    f64h q = a / maxe;
    const f64h r = fnmadd_f64h(q, maxe, a);  // a - q max_E, exact
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
    } else {
      for (std::size_t j = 0; j < nb; ++j) {
        S[b0 + j] = code32[j];
        shift[b0 + j] = ev32[j];
        s[b0 + j] = sf[j];
      }
    }
  }
}

/// ScaleKernels::MulRoundFn for destination D under rne: per group, y = RN_f32(x m) lane by
/// lane (one f32 multiply; ro_vec's stand-in for 0 < |y| < 2^-100, as with s = 1), stored in a
/// buffer, then BlockRun's direct path on the 256 values with shift 0 (general path out of
/// range), as quotient_blocks_direct does for s = 1: with shift 0 and s = 1 no step depends on
/// the block, so the 16 NVFP4 blocks of a group go as one. Preconditions: Direct<D>::possible
/// and the plan's Direct::ok, rounding rne.
template <int D, bool Fpu>
Flags mul_round_direct(const Plan& p, const std::uint32_t* x, std::size_t groups, const float* m,
                       std::uint8_t* codes, std::uint8_t* skip) {
  static constexpr BlockHooks kNoHooks{nullptr, -1, 0, nullptr, nullptr};
  BlockRun<D, Rounding::rne, Src::f32> run(p, kNoHooks);
  constexpr std::size_t kG = 256;
  alignas(64) std::uint32_t y[kG];
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint32_t* xg = x + g * kG;
    u32v mx = splat(0);
    for (std::size_t i = 0; i < kG; i += N) {
      f32v xv, mv;
      std::memcpy(&xv, xg + i, sizeof xv);
      const float mb = m[g * 16 + i / 16];
      for (int j = 0; j < N; ++j) mv[j] = mb;
      const u32v pv = reinterpret_cast<u32v>(xv * mv);
      const u32v ax = pv & 0x7FFFFFFFu;
      mx = ax > mx ? ax : mx;
      const u32v yv = ax < 0x0D800000u && ax != 0 ? (pv & 0x80000000u) | 0x0D000001u : pv;
      std::memcpy(y + i, &yv, sizeof yv);
    }
    const std::uint32_t amax = reduce_max(mx);
    skip[g] = amax >= 0x7F800000u;
    if (skip[g]) continue;
    if (run.in_range(amax, 0)) {
      run.template direct_block<Fpu, true>(run.direct, y, kG, 0, codes + g * kG, run.direct_acc);
    } else {
      run.general(y, kG, 0, codes + g * kG);
    }
  }
  return run.flags();
}

/// ScaleKernels::pick_mul_round.
inline MulRoundFn pick_mul_round(const Plan& p) {
  if (p.ctx.rounding != Rounding::rne) return nullptr;
  auto direct = [&]<int D>() -> MulRoundFn {
    if constexpr (Direct<D>::possible) {
      if (Direct<D>(p).ok) return fpu_is_default() ? &mul_round_direct<D, true> : &mul_round_direct<D, false>;
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
