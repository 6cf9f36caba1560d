// emulator/simd/scale_fused.hpp: one MX block with a scale S that is not a power of two, N
// lanes at a time: every element x becomes RO_f32(x / S') (S = S' 2^k, S' in [1, 2)) in
// registers, then goes through simd/block_lanes.hpp's direct path (scaled by 2^-k, flags ORed)
// or simd/batch_lanes.hpp's VectorKernel (with flags per element), the kernels E8M0 blocks use (internal; included after simd/lanes.hpp by simd/scale_avx2.cpp and
// simd/scale_avx512.cpp, in namespace SOFTMX_SIMD_NS). docs/BLOCKS.md 1.3 gives the argument.

namespace softmx::simd::SOFTMX_SIMD_NS {

/// The constants of ro_vec for one divisor s in [1, 2).
struct RoConst {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  __m512 s;
  __m512d sd;
  explicit RoConst(float v) : s(_mm512_set1_ps(v)), sd(_mm512_set1_pd(static_cast<double>(v))) {}
#elif defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  __m256 s;
  __m256d sd;
  explicit RoConst(float v) : s(_mm256_set1_ps(v)), sd(_mm256_set1_pd(static_cast<double>(v))) {}
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

/// N f32 codes x -> RO_f32(x / s), the quotient rounded to odd at f32's 24 bits. Per lane, for
/// |x| >= 2^-100 (a normal f32, so no operand or result below is subnormal, and the unit's
/// FTZ/DAZ modes could not matter even if set):
///   q~ = RN_f32(x / s)             one correctly rounded division (|q~| in [2^-101, |x|])
///   r  = x - q~ s  in f64           exact (BLOCKS.md 1.3: q~ s has at most 48 bits, and r is an
///                                   integer multiple of ulp(q~) ulp(s) of magnitude below
///                                   2^24 of them), one fused multiply-add, rounded once: exact
/// r = 0: x / s = q~. Otherwise the true quotient lies strictly between q~ and its f32
/// neighbour on r's side (|x / s| > |q~| iff r has x's sign, as s > 0), and RO picks the one of
/// those two whose last bit is 1: q~ | 1 on the far side, (q~ - 1) | 1 on the near side (bit
/// patterns of the magnitude; the sign bit is untouched since |q~| >= 2^-101).
/// Zeros stay as they are. 0 < |x| < 2^-100 gives sign(x) (2^-101 + 2^-124): a stand-in for
/// "non-zero, inexact, and far below every element's smallest subnormal" once divided by 2^k
/// with k >= -36 (the caller's condition; the true |x / S| is then below 2^-64 too).
SOFTMX_LANES_INLINE u32v ro_vec(u32v xv, const RoConst& c) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  const __m512i xb = reinterpret_cast<__m512i>(xv);
  const __m512 xf = _mm512_castsi512_ps(xb);
  const __m512 q = _mm512_div_ps(xf, c.s);
  const __m512d z = _mm512_setzero_pd();
  const __m512d xl = _mm512_cvtps_pd(_mm512_castps512_ps256(xf));
  const __m512d xh = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xf), 1)));
  const __m512d ql = _mm512_cvtps_pd(_mm512_castps512_ps256(q));
  const __m512d qh = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(q), 1)));
  const __m512d rl = _mm512_fnmadd_pd(ql, c.sd, xl), rh = _mm512_fnmadd_pd(qh, c.sd, xh);  // x - q s, exact
  const __mmask16 nz = static_cast<__mmask16>(_mm512_cmp_pd_mask(rl, z, _CMP_NEQ_OQ) |
                                              (_mm512_cmp_pd_mask(rh, z, _CMP_NEQ_OQ) << 8));
  const __mmask16 rpos = static_cast<__mmask16>(_mm512_cmp_pd_mask(rl, z, _CMP_GT_OQ) |
                                                (_mm512_cmp_pd_mask(rh, z, _CMP_GT_OQ) << 8));
  const __mmask16 xneg = _mm512_movepi32_mask(xb);
  const __mmask16 near = nz & static_cast<__mmask16>(~(rpos ^ xneg));  // |x / s| < |q~|
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i qb = _mm512_castps_si512(q);
  __m512i r = _mm512_mask_sub_epi32(qb, near, qb, one);
  r = _mm512_mask_or_epi32(r, nz, r, one);
  const __m512i ax = _mm512_and_si512(xb, _mm512_set1_epi32(0x7FFFFFFF));
  r = _mm512_mask_or_epi32(r, _mm512_cmplt_epu32_mask(ax, _mm512_set1_epi32(0x0D800000)),
                           _mm512_and_si512(xb, _mm512_set1_epi32(static_cast<int>(0x80000000u))),
                           _mm512_set1_epi32(0x0D000001));
  r = _mm512_mask_mov_epi32(r, _mm512_cmpeq_epi32_mask(ax, _mm512_setzero_si512()), xb);
  return reinterpret_cast<u32v>(r);
#else
  const __m256i xb = reinterpret_cast<__m256i>(xv);
  const __m256 xf = _mm256_castsi256_ps(xb);
  const __m256 q = _mm256_div_ps(xf, c.s);
  const __m256d z = _mm256_setzero_pd();
  const __m256d xl = _mm256_cvtps_pd(_mm256_castps256_ps128(xf)), xh = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
  const __m256d ql = _mm256_cvtps_pd(_mm256_castps256_ps128(q)), qh = _mm256_cvtps_pd(_mm256_extractf128_ps(q, 1));
  const __m256d rl = _mm256_fnmadd_pd(ql, c.sd, xl), rh = _mm256_fnmadd_pd(qh, c.sd, xh);  // x - q s, exact
  // The 64-bit lane masks narrowed to 32-bit lanes: the low dword of each 64-bit lane.
  const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  auto narrow = [&](__m256d lo, __m256d hi) {
    const __m256i a = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(lo), pick);
    const __m256i b = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(hi), pick);
    return _mm256_permute2x128_si256(a, b, 0x20);
  };
  const __m256i nz = narrow(_mm256_cmp_pd(rl, z, _CMP_NEQ_OQ), _mm256_cmp_pd(rh, z, _CMP_NEQ_OQ));
  const __m256i rpos = narrow(_mm256_cmp_pd(rl, z, _CMP_GT_OQ), _mm256_cmp_pd(rh, z, _CMP_GT_OQ));
  const __m256i xneg = _mm256_srai_epi32(xb, 31);
  const __m256i near = _mm256_andnot_si256(_mm256_xor_si256(rpos, xneg), nz);  // |x / s| < |q~|
  const __m256i qb = _mm256_castps_si256(q);
  __m256i r = _mm256_add_epi32(qb, near);  // q~ - 1 where near (those lanes are -1)
  r = _mm256_or_si256(r, _mm256_srli_epi32(nz, 31));
  const __m256i ax = _mm256_and_si256(xb, _mm256_set1_epi32(0x7FFFFFFF));
  // ax < 2^-100's bits (both below 2^31: the signed compare is the unsigned one).
  const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x0D800000), ax);
  r = _mm256_blendv_epi8(r,
                         _mm256_or_si256(_mm256_and_si256(xb, _mm256_set1_epi32(static_cast<int>(0x80000000u))),
                                         _mm256_set1_epi32(0x0D000001)),
                         tiny);
  r = _mm256_blendv_epi8(r, xb, _mm256_cmpeq_epi32(ax, _mm256_setzero_si256()));
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
    for (std::size_t i = 0; i < k; i += N) {
      u32v xv;
      std::memcpy(&xv, xb + i, sizeof xv);
      const u32v ax = xv & 0x7FFFFFFFu;
      m = ax > m ? ax : m;
      const u32v yv = ro_vec(xv, c);
      std::memcpy(y + i, &yv, sizeof yv);
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
