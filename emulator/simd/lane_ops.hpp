// emulator/simd/lane_ops.hpp: the lane vocabulary of the vector conversion kernels (internal;
// included through simd/lanes.hpp, which says what SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES mean): the
// vector types of N lanes, lane-wise selection, minimum and maximum, masks as bits, the loads that
// widen source codes to 32-bit lanes, the stores that narrow codes and flags, the check that the
// FPU is in its default mode, and a batch's largest magnitude.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef SOFTMX_SIMD_NS
#error "define SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES before including simd/lanes.hpp"
#endif

#define SOFTMX_LANES_INLINE inline __attribute__((always_inline))

namespace softmx::simd::SOFTMX_SIMD_NS {

constexpr int N = SOFTMX_SIMD_LANES;
typedef std::uint32_t u32v __attribute__((vector_size(4 * N)));
typedef std::int32_t i32v __attribute__((vector_size(4 * N)));
typedef float f32v __attribute__((vector_size(4 * N)));
typedef std::uint16_t u16v __attribute__((vector_size(2 * N)));
typedef std::uint8_t u8v __attribute__((vector_size(N)));

SOFTMX_LANES_INLINE u32v splat(std::uint32_t x) { return u32v{} + x; }
SOFTMX_LANES_INLINE i32v splat_i(std::int32_t x) { return i32v{} + x; }
// The vector ?: (GCC and Clang, C++) lets the compiler use blends, masked operations and
// min/max instructions; the bitwise form (m & a) | (~m & b) defeats that.
/// mask ? a : b, lane by lane (mask lanes all ones or all zeros).
SOFTMX_LANES_INLINE u32v sel(i32v mask, u32v a, u32v b) { return mask ? a : b; }
SOFTMX_LANES_INLINE i32v maxi(i32v a, i32v b) { return a > b ? a : b; }
SOFTMX_LANES_INLINE i32v mini(i32v a, i32v b) { return a < b ? a : b; }
/// 1 where the mask is set, else 0.
SOFTMX_LANES_INLINE u32v bit(i32v mask) { return mask ? splat(1) : splat(0); }

/// The lanes whose mask is set, as bits (lane i = bit i).
SOFTMX_LANES_INLINE unsigned lane_bits(i32v mask) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_movepi32_mask(reinterpret_cast<__m512i>(mask));
#elif defined(__AVX__) && SOFTMX_SIMD_LANES == 8
  return static_cast<unsigned>(_mm256_movemask_ps(reinterpret_cast<__m256>(mask)));
#else
  unsigned b = 0;
  for (int i = 0; i < N; ++i) b |= (mask[i] != 0 ? 1u : 0u) << i;
  return b;
#endif
}

/// True when some lane has a >= b (unsigned), without making a mask vector first.
SOFTMX_LANES_INLINE bool any_at_least(u32v a, u32v b) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_cmpge_epu32_mask(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b)) != 0;
#else
  return lane_bits(a >= b) != 0;
#endif
}

/// The lanes where a and b differ, as bits (lane i = bit i), without making a mask vector first.
SOFTMX_LANES_INLINE unsigned lanes_differ(u32v a, u32v b) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_cmpneq_epu32_mask(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b));
#else
  return lane_bits(a != b);
#endif
}

/// The result of a class (ClassResult) for each lane's sign.
SOFTMX_LANES_INLINE u32v by_sign(i32v neg, std::uint32_t plus, std::uint32_t minus) {
  return sel(neg, splat(minus), splat(plus));
}

/// Stores N lanes narrowed to the element type of `out` (codes: std::uint8_t or std::uint16_t;
/// flags: Flags).
template <class T>
SOFTMX_LANES_INLINE void store_codes(T* out, u32v v) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  // GCC lowers the generic narrowing below to one extract per lane on AVX2; pack instead (every
  // code and flags value is below 2^16, so the saturating packs are exact).
  const __m256i w = _mm256_packus_epi32(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(v));
  if constexpr (sizeof(T) == 1) {
    const __m256i b = _mm256_packus_epi16(w, w);  // bytes 0-3 (lanes 0-3) and 16-19 (lanes 4-7)
    const __m128i lo = _mm256_castsi256_si128(b), hi = _mm256_extracti128_si256(b, 1);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi32(lo, hi));
  } else {
    static_assert(sizeof(T) == 2);
    const __m256i q = _mm256_permute4x64_epi64(w, 0x08);  // 64-bit words 0 and 2: lanes 0-3, 4-7
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(q));
  }
  return;
#endif
  if constexpr (sizeof(T) == 1) {
    const u8v b = __builtin_convertvector(v, u8v);
    std::memcpy(out, &b, sizeof b);
  } else {
    static_assert(sizeof(T) == 2);
    const u16v h = __builtin_convertvector(v, u16v);
    std::memcpy(out, &h, sizeof h);
  }
}

/// n source codes (In: std::uint32_t for a 32-bit source, std::uint16_t for 16) from `in`,
/// widened to 32 bits, N at a time.
SOFTMX_LANES_INLINE u32v load_lanes(const void* in, std::size_t i, bool in32) {
  u32v x;
  if (in32) {
    std::memcpy(&x, static_cast<const std::uint32_t*>(in) + i, sizeof x);
  } else {
    u16v h;
    std::memcpy(&h, static_cast<const std::uint16_t*>(in) + i, sizeof h);
    x = __builtin_convertvector(h, u32v);
  }
  return x;
}

SOFTMX_LANES_INLINE std::uint64_t load_one(const void* in, std::size_t i, bool in32) {
  return in32 ? static_cast<const std::uint32_t*>(in)[i] : static_cast<const std::uint16_t*>(in)[i];
}

/// True when the floating-point unit rounds to nearest-even with gradual underflow (MXCSR's
/// defaults), which convert_rne_float relies on. Read, never changed.
inline bool fpu_is_default() {
#if defined(__SSE__)
  return (_mm_getcsr() & 0xE040u) == 0;  // rounding control 00, FTZ (bit 15) and DAZ (bit 6) off
#else
  return false;
#endif
}

/// N lanes, four times, stored as 4N codes (T: std::uint8_t or std::uint16_t, every value below
/// 2^(8 sizeof(T))). On AVX2 the four vectors share their narrowing: two saturating packs and
/// one permutation give 32 bytes (one store) where store_codes takes five instructions a vector.
template <class T>
SOFTMX_LANES_INLINE void store_codes4(T* out, u32v c0, u32v c1, u32v c2, u32v c3) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  // packus_epi32 interleaves the 128-bit halves: [c0 lanes 0-3, c1 0-3, c0 4-7, c1 4-7].
  const __m256i w01 = _mm256_packus_epi32(reinterpret_cast<__m256i>(c0), reinterpret_cast<__m256i>(c1));
  const __m256i w23 = _mm256_packus_epi32(reinterpret_cast<__m256i>(c2), reinterpret_cast<__m256i>(c3));
  if constexpr (sizeof(T) == 1) {
    // Bytes in 32-bit groups: c0 0-3, c1 0-3, c2 0-3, c3 0-3, c0 4-7, c1 4-7, c2 4-7, c3 4-7.
    const __m256i b = _mm256_packus_epi16(w01, w23);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(b, order));
  } else {
    static_assert(sizeof(T) == 2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute4x64_epi64(w01, 0xD8));  // 64-bit words 0 2 1 3
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * N), _mm256_permute4x64_epi64(w23, 0xD8));
  }
  return;
#endif
  store_codes(out, c0);
  store_codes(out + N, c1);
  store_codes(out + 2 * N, c2);
  store_codes(out + 3 * N, c3);
}

/// N codes (std::uint8_t or std::uint16_t) or flags from memory, widened to lanes.
template <class T>
SOFTMX_LANES_INLINE u32v load_narrow(const T* p) {
  if constexpr (sizeof(T) == 1) {
    u8v b;
    std::memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, u32v);
  } else {
    u16v h;
    std::memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, u32v);
  }
}

/// The largest magnitude bit pattern (sign cleared) among n source codes of `width` bits
/// (32 or 16): for IEEE-style codes that is the largest magnitude, and at least the Inf code
/// when there is an Inf or NaN.
inline std::uint32_t max_magnitude_bits(const void* in_v, std::size_t n, int width) {
  const u32v mask = splat(width == 32 ? 0x7FFFFFFFu : 0x7FFFu);
  u32v m = splat(0);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v x;
    if (width == 32) {
      std::memcpy(&x, static_cast<const std::uint32_t*>(in_v) + i, sizeof x);
    } else {
      u16v h;
      std::memcpy(&h, static_cast<const std::uint16_t*>(in_v) + i, sizeof h);
      x = __builtin_convertvector(h, u32v);
    }
    x &= mask;
    m = x > m ? x : m;
  }
  std::uint32_t r = 0;
  for (int j = 0; j < N; ++j) r = m[j] > r ? m[j] : r;
  for (; i < n; ++i) {
    const std::uint32_t x = (width == 32 ? static_cast<const std::uint32_t*>(in_v)[i]
                                         : static_cast<const std::uint16_t*>(in_v)[i]) & mask[0];
    r = x > r ? x : r;
  }
  return r;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
