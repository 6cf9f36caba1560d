// emulator/gemm/tile_lanes.hpp: the lane vocabulary of the GEMM tile kernels (internal; included
// through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES mean):
// the vector types of the instruction set's width (double, float, 32- and 64-bit integer lanes,
// and half-width 32-bit and float lanes), loads and stores, broadcasts, and the integer helpers
// the kernels share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "gemm/kernel_api.hpp"
#include "gemm/tables.hpp"

#ifndef SOFTMX_GEMM_NS
#error "define SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES before including gemm/kernels.hpp"
#endif

#define SOFTMX_GEMM_INLINE inline __attribute__((always_inline))

// The 64-bit lanes of the tensor-core kernel are twice the file's vector width; GCC warns that
// such values would be passed differently across calls, which never happens (all inline).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

constexpr int kBytes = SOFTMX_GEMM_BYTES;
constexpr int kD = kBytes / 8;  // double lanes
constexpr int kF = kBytes / 4;  // 32-bit lanes
typedef double vd __attribute__((vector_size(kBytes)));
typedef float vf __attribute__((vector_size(kBytes)));
typedef std::int32_t vi __attribute__((vector_size(kBytes)));
typedef std::uint32_t vu __attribute__((vector_size(kBytes)));
typedef std::int64_t vl __attribute__((vector_size(kBytes)));

template <class V, class T>
SOFTMX_GEMM_INLINE V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V, class T>
SOFTMX_GEMM_INLINE void store(T* p, V v) {
  std::memcpy(p, &v, sizeof v);
}
SOFTMX_GEMM_INLINE vi splat(std::int32_t x) { return vi{} + x; }
// Broadcasts through the bits: vf{} + x would turn -0 into +0.
SOFTMX_GEMM_INLINE vf splat(float x) {
  std::int32_t b;
  std::memcpy(&b, &x, sizeof b);
  return reinterpret_cast<vf>(vi{} + b);
}
SOFTMX_GEMM_INLINE vd splat(double x) {
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return reinterpret_cast<vd>(vl{} + b);
}
SOFTMX_GEMM_INLINE vi vmax(vi a, vi b) { return a > b ? a : b; }
SOFTMX_GEMM_INLINE vi vmin(vi a, vi b) { return a < b ? a : b; }
SOFTMX_GEMM_INLINE vi vabs(vi x) {
  const vi m = x >> 31;
  return (x ^ m) - m;
}
/// x >> s for 0 <= s <= 31 per lane, logical.
SOFTMX_GEMM_INLINE vi shr(vi x, vi s) { return reinterpret_cast<vi>(reinterpret_cast<vu>(x) >> reinterpret_cast<vu>(s)); }
SOFTMX_GEMM_INLINE vi shl(vi x, vi s) { return reinterpret_cast<vi>(reinterpret_cast<vu>(x) << reinterpret_cast<vu>(s)); }
/// floor(log2 x) for 1 <= x < 2^31 (any value for x = 0): the exponent of x converted to f32;
/// a conversion that rounded up to the next power of two is caught by x >> L == 0.
SOFTMX_GEMM_INLINE vi floor_log2(vi x) {
  const vf f = __builtin_convertvector(x, vf);
  vi l = ((reinterpret_cast<vi>(f) >> 23) & 255) - 127;
  l = vmax(l, splat(0));
  return l - ((shr(x, l) == 0) & 1);
}

/// Whether any lane of the mask m (each lane all ones or zero, as a comparison gives) is set:
/// one instruction where the instruction set has it (GCC lowers a lane-by-lane loop to one
/// extract per lane), else the mask's 64-bit words ORed.
SOFTMX_GEMM_INLINE bool any_set(vi m) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512DQ__)
  return _mm512_movepi32_mask(reinterpret_cast<__m512i>(m)) != 0;  // the lanes' sign bits
#elif SOFTMX_GEMM_BYTES == 32 && defined(__AVX__)
  return !_mm256_testz_si256(reinterpret_cast<__m256i>(m), reinterpret_cast<__m256i>(m));
#else
  std::uint64_t words[kBytes / 8];
  std::memcpy(words, &m, sizeof words);
  std::uint64_t any = 0;
  for (const std::uint64_t x : words) any |= x;
  return any != 0;
#endif
}

typedef std::int32_t vh __attribute__((vector_size(kBytes / 2)));  // kD lanes of 32 bits
typedef float vfh __attribute__((vector_size(kBytes / 2)));  // kD float lanes

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
