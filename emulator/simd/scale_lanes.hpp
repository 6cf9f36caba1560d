// emulator/simd/scale_lanes.hpp: ScaleKernels::products_f32 (simd/scale_kernels.hpp), N lanes at
// a time (internal; included once per instruction set by simd/scale_avx2.cpp and simd/scale_avx512.cpp,
// which define SOFTMX_SCALE_NS and SOFTMX_SCALE_LANES and compile with that set's flags).
//
// GNU vector extensions, as simd/lanes.hpp: f32 lanes, and f64 lanes of the same count (two
// registers each), so that every f32 value is also held exactly in f64.
// The f64 arithmetic below must not be reassociated (no -ffast-math); contracting a*b - c into
// one fused multiply-add changes nothing, since the products formed here are exact.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd/scale_kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef SOFTMX_SCALE_NS
#error "define SOFTMX_SCALE_NS and SOFTMX_SCALE_LANES before including simd/scale_lanes.hpp"
#endif

namespace softmx::simd::SOFTMX_SCALE_NS {
namespace {

constexpr int N = SOFTMX_SCALE_LANES;
typedef std::uint32_t u32v __attribute__((vector_size(4 * N)));
typedef std::int32_t i32v __attribute__((vector_size(4 * N)));
typedef float f32v __attribute__((vector_size(4 * N)));
typedef double f64v __attribute__((vector_size(8 * N)));
typedef std::int64_t i64v __attribute__((vector_size(8 * N)));
typedef std::uint8_t u8v __attribute__((vector_size(N)));

inline __attribute__((always_inline)) u32v splat(std::uint32_t x) { return u32v{} + x; }
/// x in every lane. Not f64v{} + x: +0 + -0 is +0, which would lose a negative zero's sign.
template <class V, class T>
inline __attribute__((always_inline)) V broadcast(T x) {
  V v;
  for (int j = 0; j < N; ++j) v[j] = x;
  return v;
}

/// N f32 table entries at the byte indices codes[0..N).
inline __attribute__((always_inline)) f32v gather(const float* tab, const std::uint8_t* codes) {
  u8v raw;
  std::memcpy(&raw, codes, sizeof raw);
  const i32v idx = __builtin_convertvector(raw, i32v);
#if defined(__AVX512F__) && SOFTMX_SCALE_LANES == 16
  return reinterpret_cast<f32v>(_mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, reinterpret_cast<__m512i>(idx), tab, 4));
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
  return reinterpret_cast<f32v>(_mm256_mask_i32gather_ps(_mm256_setzero_ps(), tab, reinterpret_cast<__m256i>(idx), _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4));
#else
  f32v v;
  for (int j = 0; j < N; ++j) v[j] = tab[idx[j]];
  return v;
#endif
}

/// ScaleKernels::products_f32. value * s is exact in f64 (an element value has at most 8
/// significant bits, s at most 24), so converting it to f32 (round to nearest even) is the one
/// rounding of the exact product; the result is inexact iff it differs from the product. Lanes
/// whose product is not zero and not in [2^-126, FLT_MAX] (where tininess, underflow and
/// overflow enter) and NaN table entries are status 2.
std::uint8_t products_f32(const float* tab, unsigned ncodes, const std::uint8_t* codes, std::size_t n, double s,
                          std::uint32_t* out, std::uint8_t* status) {
  const f64v sd = broadcast<f64v>(s);
  const f64v lo = broadcast<f64v>(0x1p-126), hi = broadcast<f64v>(static_cast<double>(3.40282346638528859812e+38F));
  (void)ncodes;  // read by the AVX2 form only
  std::size_t i = 0;
  std::uint8_t any = 0;
#if defined(__AVX512F__) && defined(__AVX512DQ__) && SOFTMX_SCALE_LANES == 16
  {
    const __m512d vsd = _mm512_set1_pd(s), vlo = _mm512_set1_pd(0x1p-126),
                  vhi = _mm512_set1_pd(static_cast<double>(3.40282346638528859812e+38F)), z = _mm512_setzero_pd();
    __mmask16 inexact_any = 0, bad_any = 0;
    for (; i + 16 <= n; i += 16) {
      const __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i)));
      const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, idx, tab, 4);
      const __m512d pl = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), vsd);
      const __m512d ph =
          _mm512_mul_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), vsd);
      const __m256 fl = _mm512_cvtpd_ps(pl), fh = _mm512_cvtpd_ps(ph);
      const __mmask16 inexact =
          static_cast<__mmask16>(_mm512_cmp_pd_mask(_mm512_cvtps_pd(fl), pl, _CMP_NEQ_UQ) |
                                 (_mm512_cmp_pd_mask(_mm512_cvtps_pd(fh), ph, _CMP_NEQ_UQ) << 8));
      const __m512d al = _mm512_abs_pd(pl), ah = _mm512_abs_pd(ph);
      const __mmask8 okl = static_cast<__mmask8>((_mm512_cmp_pd_mask(al, vlo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(al, vhi, _CMP_LE_OQ)) |
                                                 _mm512_cmp_pd_mask(al, z, _CMP_EQ_OQ));
      const __mmask8 okh = static_cast<__mmask8>((_mm512_cmp_pd_mask(ah, vlo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(ah, vhi, _CMP_LE_OQ)) |
                                                 _mm512_cmp_pd_mask(ah, z, _CMP_EQ_OQ));
      const __mmask16 bad = static_cast<__mmask16>(~(okl | (okh << 8)));
      _mm512_storeu_ps(out + i, _mm512_insertf32x8(_mm512_castps256_ps512(fl), fh, 1));
      __m512i st = _mm512_maskz_mov_epi32(inexact, _mm512_set1_epi32(1));
      st = _mm512_mask_mov_epi32(st, bad, _mm512_set1_epi32(2));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(status + i), _mm512_cvtepi32_epi8(st));
      inexact_any |= inexact;
      bad_any |= bad;
    }
    any |= (inexact_any ? 1 : 0) | (bad_any ? 2 : 0);
  }
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
  {
    const __m256d vsd = _mm256_set1_pd(s), vlo = _mm256_set1_pd(0x1p-126),
                  vhi = _mm256_set1_pd(static_cast<double>(3.40282346638528859812e+38F)), z = _mm256_setzero_pd(),
                  absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    int inexact_any = 0, bad_any = 0;
    // A 4-bit element (ncodes 16): two in-register permutations instead of a gather (slow
    // here); an index beyond 15 reads NaN, as the table's entry does.
    const __m256 t0 = _mm256_loadu_ps(tab), t1 = _mm256_loadu_ps(tab + 8);
    const __m256i fifteen = _mm256_set1_epi32(15);
    const __m256 nan = _mm256_set1_ps(__builtin_nanf(""));
    for (; i + 8 <= n; i += 8) {
      const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + i)));
      __m256 v;
      if (ncodes == 16) {
        const __m256 v0 = _mm256_permutevar8x32_ps(t0, idx), v1 = _mm256_permutevar8x32_ps(t1, idx);
        v = _mm256_blendv_ps(v0, v1, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));  // bit 3 picks v1
        v = _mm256_blendv_ps(v, nan, _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, fifteen)));
      } else {
        v = _mm256_i32gather_ps(tab, idx, 4);
      }
      const __m256d pl = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vsd);
      const __m256d ph = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), vsd);
      const __m128 fl = _mm256_cvtpd_ps(pl), fh = _mm256_cvtpd_ps(ph);
      const int inexact = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_cvtps_pd(fl), pl, _CMP_NEQ_UQ)) |
                          (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_cvtps_pd(fh), ph, _CMP_NEQ_UQ)) << 4);
      const __m256d al = _mm256_and_pd(pl, absmask), ah = _mm256_and_pd(ph, absmask);
      const __m256d okl = _mm256_or_pd(_mm256_and_pd(_mm256_cmp_pd(al, vlo, _CMP_GE_OQ), _mm256_cmp_pd(al, vhi, _CMP_LE_OQ)),
                                       _mm256_cmp_pd(al, z, _CMP_EQ_OQ));
      const __m256d okh = _mm256_or_pd(_mm256_and_pd(_mm256_cmp_pd(ah, vlo, _CMP_GE_OQ), _mm256_cmp_pd(ah, vhi, _CMP_LE_OQ)),
                                       _mm256_cmp_pd(ah, z, _CMP_EQ_OQ));
      const int bad = ~(_mm256_movemask_pd(okl) | (_mm256_movemask_pd(okh) << 4)) & 0xFF;
      _mm256_storeu_ps(reinterpret_cast<float*>(out + i), _mm256_set_m128(fh, fl));
      // Status bytes: 1 where inexact and not bad, 2 where bad (one bit per lane spread to bytes).
      const std::uint64_t st = _pdep_u64(static_cast<unsigned>(inexact & ~bad), 0x0101010101010101ull) |
                               (_pdep_u64(static_cast<unsigned>(bad), 0x0101010101010101ull) << 1);
      std::memcpy(status + i, &st, 8);
      inexact_any |= inexact;
      bad_any |= bad;
    }
    any |= (inexact_any ? 1 : 0) | (bad_any ? 2 : 0);
  }
#endif
  for (; i + N <= n; i += N) {
    const f32v v = gather(tab, codes + i);
    const f64v p = __builtin_convertvector(v, f64v) * sd;
    const f32v f = __builtin_convertvector(p, f32v);
    const f64v ap = p < 0 ? -p : p;
    const i32v ok = __builtin_convertvector((ap >= lo && ap <= hi) || ap == 0, i32v);
    const i32v inexact = __builtin_convertvector(__builtin_convertvector(f, f64v) != p, i32v);
    const i32v st = ok ? (inexact ? i32v{} + 1 : i32v{}) : i32v{} + 2;
    std::memcpy(out + i, &f, sizeof f);
    const u8v sb = __builtin_convertvector(st, u8v);
    std::memcpy(status + i, &sb, sizeof sb);
    for (int j = 0; j < N; ++j) any |= sb[j];
  }
  for (; i < n; ++i) {
    const double p = static_cast<double>(tab[codes[i]]) * s;
    const float f = static_cast<float>(p);
    const double ap = std::fabs(p);
    std::memcpy(out + i, &f, 4);
    const bool ok = (ap >= 0x1p-126 && ap <= 3.40282346638528859812e+38) || ap == 0;
    status[i] = !ok ? 2 : static_cast<double>(f) != p ? 1 : 0;
    any |= status[i];
  }
  return any;
}

}  // namespace

const ScaleKernels kScaleKernels = {SOFTMX_SCALE_PICK, products_f32};

}  // namespace softmx::simd::SOFTMX_SCALE_NS
