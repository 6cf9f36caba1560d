// emulator/simd/scale_lanes.hpp: ScaleKernels::products_f32, scaled_blocks_f32, scale_values_f32
// (dequantize), rows16_u32 and products16 (NVFP4) (simd/scale_kernels.hpp), N lanes at a time
// (internal; included once per instruction set by simd/scale_avx2.cpp and simd/scale_avx512.cpp,
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
#include <type_traits>

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

#if defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
/// The table entries of the 8 element codes at codes[0..8). A 4-bit element (ncodes 16, its
/// table's first 16 entries in t0 and t1) takes two in-register permutations and a blend
/// instead of a gather, which is slow here; an index beyond 15 reads NaN, as the table's entry
/// does. Other elements gather from tab.
inline __attribute__((always_inline)) __m256 table_values8(const float* tab, __m256 t0, __m256 t1, unsigned ncodes,
                                                           const std::uint8_t* codes) {
  const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes)));
  if (ncodes != 16) return _mm256_i32gather_ps(tab, idx, 4);
  const __m256 v0 = _mm256_permutevar8x32_ps(t0, idx), v1 = _mm256_permutevar8x32_ps(t1, idx);
  const __m256 v = _mm256_blendv_ps(v0, v1, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));  // bit 3 picks v1
  return _mm256_blendv_ps(v, _mm256_set1_ps(__builtin_nanf("")), _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(15))));
}
#endif

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
    const __m256 t0 = _mm256_loadu_ps(tab), t1 = _mm256_loadu_ps(tab + 8);
    for (; i + 8 <= n; i += 8) {
      const __m256 v = table_values8(tab, t0, t1, ncodes, codes + i);
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

/// ScaleKernels::scaled_blocks_f32: N table entries a step (a permutation of a register table
/// for 4-bit elements, a gather for 8-bit ones), one f32 multiply, one compare for NaN entries.
std::uint8_t scaled_blocks_f32(const float* tab, unsigned ncodes, const std::uint8_t* codes, std::size_t n,
                               std::size_t k, const float* s, bool wide, std::uint32_t* out, std::uint8_t* status,
                               std::uint8_t* bstatus) {
  std::uint8_t all = 0;
#if defined(__AVX512F__) && SOFTMX_SCALE_LANES == 16
  const __m512 t16 = _mm512_loadu_ps(tab);
  // 8-bit codes whose table is sign-magnitude (entry c | 0x80 is entry c with the sign bit
  // set, bit for bit, or both are NaN: a NaN entry only marks the block as not done, whatever
  // its sign): four two-register permutations over the 128 magnitudes and the sign from bit 7,
  // in place of a gather.
  bool signmag = ncodes == 256;
  for (unsigned c = 0; c < 128 && signmag; ++c) {
    std::uint32_t a, b;
    std::memcpy(&a, tab + c, 4);
    std::memcpy(&b, tab + c + 128, 4);
    signmag = b == (a ^ 0x80000000u) || (tab[c] != tab[c] && tab[c + 128] != tab[c + 128]);
  }
  __m512 tm[8];
  for (int j = 0; j < 8; ++j) tm[j] = _mm512_loadu_ps(tab + 16 * j);
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
  const __m256 t0 = _mm256_loadu_ps(tab), t1 = _mm256_loadu_ps(tab + 8);
#endif
  for (std::size_t b = 0, first = 0; first < n; ++b, first += k) {
    const std::size_t len = n - first < k ? n - first : k;
    const float sb = s[b];
    if (sb != sb) {
      bstatus[b] = 2;
      all |= 2;
      continue;
    }
    const std::uint8_t* c = codes + first;
    std::uint32_t* o = out + first;
    std::size_t i = 0;
    bool bad = false, inexact = false;
#if defined(__AVX512F__) && SOFTMX_SCALE_LANES == 16
    const __m512 vs = _mm512_set1_ps(sb);
    for (; i + 16 <= len; i += 16) {
      const __m512i idx = _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + i)));
      __m512 v;
      __mmask16 odd;
      if (ncodes == 16) {
        v = _mm512_permutexvar_ps(idx, t16);  // reads the low 4 bits: codes beyond 15 caught below
        odd = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(~15));
      } else if (signmag) {
        const __m512 r0 = _mm512_permutex2var_ps(tm[0], idx, tm[1]), r1 = _mm512_permutex2var_ps(tm[2], idx, tm[3]);
        const __m512 r2 = _mm512_permutex2var_ps(tm[4], idx, tm[5]), r3 = _mm512_permutex2var_ps(tm[6], idx, tm[7]);
        const __mmask16 b5 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(32));
        const __mmask16 b6 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(64));
        v = _mm512_mask_blend_ps(b6, _mm512_mask_blend_ps(b5, r0, r1), _mm512_mask_blend_ps(b5, r2, r3));
        const __m512i sign = _mm512_and_si512(_mm512_slli_epi32(idx, 24), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
        v = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), sign));
        odd = 0;
      } else {
        v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, idx, tab, 4);
        odd = 0;
      }
      const __m512 p = _mm512_mul_ps(v, vs);
      odd |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      if (odd) {
        bad = true;
        break;
      }
      _mm512_storeu_ps(reinterpret_cast<float*>(o + i), p);
      if (wide) {
        const __mmask16 in = _mm512_cmp_ps_mask(_mm512_fmsub_ps(v, vs, p), _mm512_setzero_ps(), _CMP_NEQ_OQ);
        inexact |= in != 0;
        if (status)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(status + first + i),
                           _mm512_cvtepi32_epi8(_mm512_maskz_mov_epi32(in, _mm512_set1_epi32(1))));
      }
    }
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
    const __m256 vs = _mm256_set1_ps(sb);
    for (; i + 8 <= len; i += 8) {
      const __m256 v = table_values8(tab, t0, t1, ncodes, c + i);
      const __m256 p = _mm256_mul_ps(v, vs);
      if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
        bad = true;
        break;
      }
      _mm256_storeu_ps(reinterpret_cast<float*>(o + i), p);
      if (wide) {
        const int in = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_fmsub_ps(v, vs, p), _mm256_setzero_ps(), _CMP_NEQ_OQ));
        inexact |= in != 0;
        if (status) {
          const std::uint64_t st = _pdep_u64(static_cast<unsigned>(in), 0x0101010101010101ull);
          std::memcpy(status + first + i, &st, 8);
        }
      }
    }
#endif
    for (; !bad && i < len; ++i) {
      const float v = c[i] < ncodes ? tab[c[i]] : __builtin_nanf("");
      if (v != v) {
        bad = true;
        break;
      }
      const float p = v * sb;
      std::memcpy(o + i, &p, 4);
      if (wide) {
        const bool in = std::fma(v, sb, -p) != 0;
        inexact |= in;
        if (status) status[first + i] = in;
      }
    }
    bstatus[b] = bad ? 2 : inexact ? 1 : 0;
    all |= bstatus[b];
  }
  return all;
}

/// ScaleKernels::scale_values_f32, N codes a step (the fields as ScaleFields says, selects for
/// the cases), the last n % N one by one.
void scale_values_f32(const ScaleFields& f, const std::uint8_t* scales, std::size_t n, unsigned bytes, float* out) {
  // The fields as locals (out may alias f as far as the compiler knows: it would reload them).
  const std::uint32_t code_mask = f.code_mask, mag_mask = f.mag_mask, mag_lo = f.mag_lo, mag_hi = f.mag_hi;
  const bool has_sign = f.sign_shift < 32;
  const std::uint32_t sign_shift = has_sign ? f.sign_shift : 0;
  const int m = f.m;
  const std::uint32_t fmask = (1u << m) - 1;
  const std::uint32_t rebias = static_cast<std::uint32_t>(127 - f.bias);  // modulo 2^32
  const float sub_step = f.sub_step;
  const f32v sub_step_v = broadcast<f32v>(sub_step);
  auto one = [&](auto code) {  // one code (std::uint32_t) or N codes (u32v), the same steps
    using V = decltype(code);
    const V mag = code & mag_mask;
    const V sign = has_sign ? ((code >> sign_shift) & 1u) << 31 : code & 0u;
    const V E = mag >> m, F = mag & fmask;
    const V norm = ((E + rebias) << 23) | (F << (23 - m));
    // F * sub_step only where some E is 0: it is an f32 subnormal for most F when sub_step is
    // (2^-149 for f32 scales), and every such result costs the FPU a slow assist.
    V val = norm;
    if constexpr (std::is_same_v<V, std::uint32_t>) {
      if (E == 0) {
        const float v = static_cast<float>(F) * sub_step;
        std::memcpy(&val, &v, 4);
      }
    } else {
      const auto e0 = E == 0;
      bool any_e0 = false;
      for (int j = 0; j < N; ++j) any_e0 |= e0[j] != 0;
      if (any_e0) [[unlikely]] {
        const u32v sub = reinterpret_cast<u32v>(__builtin_convertvector(reinterpret_cast<i32v>(F), f32v) * sub_step_v);
        val = e0 ? sub : norm;
      }
    }
    val |= sign;
    const auto bad = (code > code_mask) | ((mag != 0) & ((mag < mag_lo) | (mag > mag_hi)));
    return bad ? V{} + 0x7FC00000u : val;
  };
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v code;
    if (bytes == 2) {
      typedef std::uint16_t u16v __attribute__((vector_size(2 * N)));
      u16v c16;
      std::memcpy(&c16, scales + 2 * i, sizeof c16);
      code = __builtin_convertvector(c16, u32v);
    } else {
      std::memcpy(&code, scales + 4 * i, sizeof code);
    }
    const u32v v = one(code);
    std::memcpy(out + i, &v, sizeof v);
  }
  for (; i < n; ++i) {
    std::uint32_t code = 0;
    if (bytes == 2) {
      std::uint16_t c16;
      std::memcpy(&c16, scales + 2 * i, 2);
      code = c16;
    } else {
      std::memcpy(&code, scales + 4 * i, 4);
    }
    const std::uint32_t v = one(code);
    std::memcpy(out + i, &v, 4);
  }
}

/// ScaleKernels::rows16_u32: a block is one 16-entry permutation of its row (AVX-512) or two
/// 8-entry ones and a blend (AVX2).
std::size_t rows16_u32(const std::uint32_t* rows, const std::uint8_t* row_flags, const std::uint8_t* scales,
                       const std::uint8_t* codes, std::size_t b, std::size_t nblocks, std::uint32_t* out,
                       std::uint8_t* flags_or) {
  __m128i fl = _mm_setzero_si128();
  for (; b < nblocks; ++b) {
    const std::uint8_t sc = scales[b];
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + 16 * b));
    if (!_mm_testz_si128(c, _mm_set1_epi8(static_cast<char>(0xF0)))) break;  // a code beyond 15
    // The flags of the 16 codes: one byte shuffle of the row's 16 flag bytes.
    fl = _mm_or_si128(fl, _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row_flags + 16 * static_cast<std::size_t>(sc))), c));
    const std::uint32_t* row = rows + 16 * static_cast<std::size_t>(sc);
#if defined(__AVX512F__) && SOFTMX_SCALE_LANES == 16
    const __m512i idx = _mm512_maskz_cvtepu8_epi32(0xFFFF, c);
    _mm512_storeu_si512(out + 16 * b, _mm512_permutexvar_epi32(idx, _mm512_loadu_si512(row)));
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
    const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 8));
    for (int h = 0; h < 2; ++h) {
      const __m256i idx = _mm256_cvtepu8_epi32(h ? _mm_srli_si128(c, 8) : c);
      const __m256i v0 = _mm256_permutevar8x32_epi32(r0, idx), v1 = _mm256_permutevar8x32_epi32(r1, idx);
      const __m256i v = _mm256_blendv_epi8(v0, v1, _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16 * b + 8 * h), v);
    }
#else
    for (int i = 0; i < 16; ++i) out[16 * b + i] = row[codes[16 * b + i]];
#endif
  }
  alignas(16) std::uint8_t f[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(f), fl);
  for (int i = 0; i < 16; ++i) *flags_or |= f[i];
  return b;
}

/// ScaleKernels::products16.
void products16(const std::uint32_t* x, const float* m, std::size_t blocks, std::uint32_t* p, float* one) {
  for (std::size_t j = 0; j < blocks; ++j) {
    const f32v mb = broadcast<f32v>(m[j]);
    u32v big = u32v{};
    for (int i = 0; i < 16; i += N) {
      f32v v;
      std::memcpy(&v, x + 16 * j + i, sizeof v);
      const u32v pb = reinterpret_cast<u32v>(v * mb);
      std::memcpy(p + 16 * j + i, &pb, sizeof pb);
      const u32v a = pb & 0x7FFFFFFFu;
      big = a > big ? a : big;
    }
    // Any lane at or above Inf's bits (Inf or NaN): one compare and a mask test.
#if defined(__AVX512F__) && SOFTMX_SCALE_LANES == 16
    const bool inf = _mm512_cmpge_epu32_mask(reinterpret_cast<__m512i>(big), _mm512_set1_epi32(0x7F800000)) != 0;
#elif defined(__AVX2__) && SOFTMX_SCALE_LANES == 8
    // Both below 2^31: the signed compare is the unsigned one.
    const bool inf = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(reinterpret_cast<__m256i>(big),
                                                                                _mm256_set1_epi32(0x7F7FFFFF)))) != 0;
#else
    bool inf = false;
    for (int i = 0; i < N; ++i) inf |= big[i] >= 0x7F800000u;
#endif
    one[j] = inf ? 0.0f : 1.0f;
  }
}

}  // namespace

const ScaleKernels kScaleKernels = {SOFTMX_SCALE_PICK, SOFTMX_SCALE_BLOCK_SCALES, products_f32, scaled_blocks_f32, scale_values_f32, rows16_u32, SOFTMX_SCALE_RANGE16, products16, SOFTMX_SCALE_PICK_MUL};

}  // namespace softmx::simd::SOFTMX_SCALE_NS
