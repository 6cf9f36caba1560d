// emulator/gemm/tc_lanes.hpp: the lane arithmetic of the tensor-core tile kernels (tc_tile.hpp,
// gst_tile.hpp) (internal; included through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and
// SOFTMX_GEMM_BYTES mean): the 64-bit double-width lanes and their masks, the cut of a product
// onto 2^(E - F), the rounding of a normalised sum onto the f32 grid (to_grid, grid_add) and its
// rz and rne short cuts through the f32 conversion (f32_rz, to_grid_rz, grid_add_f32_rne). Each
// function's comment says for which inputs it is exact; docs/ARCHITECTURE.md, GEMM, "Exact routes
// and their proofs" 8 gives the arguments.
#pragma once

#include <cstdint>

#include "gemm/kernel_api.hpp"
#include "gemm/seq_tile.hpp"  // half_lo, half_hi, join
#include "gemm/tables.hpp"
#include "gemm/tile_lanes.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {
typedef std::int64_t vw __attribute__((vector_size(2 * kBytes)));  // kF lanes of 64 bits
typedef std::uint64_t vwu __attribute__((vector_size(2 * kBytes)));
template <class V>
struct Unsigned;
template <>
struct Unsigned<vi> {
  typedef vu type;
};
template <>
struct Unsigned<vw> {
  typedef vwu type;
};
template <bool Wide>
struct SumLanes {
  typedef vi type;
};
template <>
struct SumLanes<true> {
  typedef vw type;
};

template <class V>
SOFTMX_GEMM_INLINE V from32(vi x) {
  if constexpr (sizeof(V) == sizeof(vi)) return x;
  else return __builtin_convertvector(x, V);
}
template <class V>
SOFTMX_GEMM_INLINE vi to32(V x) {
  if constexpr (sizeof(V) == sizeof(vi)) return x;
  else return __builtin_convertvector(x, vi);
}
template <class V>
SOFTMX_GEMM_INLINE V labs(V x) {
  const V m = x >> (static_cast<int>(sizeof(x[0])) * 8 - 1);
  return (x ^ m) - m;
}
template <class V>
SOFTMX_GEMM_INLINE V lshr(V x, V s) {
  typedef typename Unsigned<V>::type U;
  return reinterpret_cast<V>(reinterpret_cast<U>(x) >> reinterpret_cast<U>(s));
}
template <class V>
SOFTMX_GEMM_INLINE V lshl(V x, V s) {
  typedef typename Unsigned<V>::type U;
  return reinterpret_cast<V>(reinterpret_cast<U>(x) << reinterpret_cast<U>(s));
}
/// m ? a : b per lane, m's lanes all ones or all zeros. Bitwise: GCC lowers `?:` on the 64-bit
/// lanes twice the vector width (vw) lane by lane through scalar registers.
template <class V>
SOFTMX_GEMM_INLINE V select(V m, V a, V b) {
  return (m & a) | (~m & b);
}
// Lane masks (all ones where true) for the 32-bit lanes (vi: the vector's own comparisons) and
// the 64-bit lanes twice the vector width (vw: arithmetic only, since GCC lowers a comparison
// of vw lane by lane through scalar registers). The vw forms hold for |a|, |b| < 2^62, where
// the differences cannot wrap; every caller's values are below that (sums bounded by tc_lanes,
// GST's 2^62).
template <class V>
SOFTMX_GEMM_INLINE V lanes_neg(V x) {  // x < 0
  return x >> (static_cast<int>(sizeof(x[0])) * 8 - 1);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_nonzero(V x) {  // x != 0
  if constexpr (sizeof(V) == sizeof(vi)) {
    return x != 0;
  } else {
    typedef typename Unsigned<V>::type U;
    const U u = reinterpret_cast<U>(x);
    return lanes_neg(reinterpret_cast<V>(u | (U{} - u)));
  }
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_zero(V x) {  // x == 0
  return ~lanes_nonzero(x);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_gt(V a, V b) {  // a > b
  if constexpr (sizeof(V) == sizeof(vi)) return a > b;
  else return lanes_neg(b - a);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_ge(V a, V b) {  // a >= b
  if constexpr (sizeof(V) == sizeof(vi)) return a >= b;
  else return ~lanes_neg(a - b);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_eq(V a, V b) {  // a == b
  if constexpr (sizeof(V) == sizeof(vi)) return a == b;
  else return lanes_zero(a - b);
}
/// floor(log2 x) for 1 <= x < 2^62 (any value for x = 0).
SOFTMX_GEMM_INLINE vi flog2(vi x) { return floor_log2(x); }
SOFTMX_GEMM_INLINE vi flog2(vw x) {
  const vi hi = to32(x >> 31), lo = to32(x & 0x7FFFFFFF);
  return hi != 0 ? floor_log2(hi) + 31 : floor_log2(lo);
}

/// mag >> sh cut per the alignment rounding (sh from 0 to the lane width - 1; mag below half
/// the lane range).
template <bool Near, class V>
SOFTMX_GEMM_INLINE V cut(V mag, V sh) {
  const V kept = lshr(mag, sh);
  if constexpr (!Near) {
    return kept;
  } else {
    const V one = V{} + 1;
    const V rem = mag - lshl(kept, sh);
    const V half = lshr(lshl(one, sh), one);  // 0 when sh = 0: no rounding
    const V up = lanes_gt(sh, V{}) & (lanes_gt(rem, half) | (lanes_eq(rem, half) & lanes_nonzero(kept & 1)));
    return kept - up;
  }
}

/// Rounds mag >> d (d >= 1) under `mode`; neg: the value's sign (lanes all ones or zero).
template <class V>
SOFTMX_GEMM_INLINE V round_grid(V mag, V d, V neg, Rounding mode) {
  const V one = V{} + 1;
  V kept = lshr(mag, d);
  const V rem = mag - lshl(kept, d);
  const V half = lshl(one, d - 1);
  const V inexact = lanes_nonzero(rem);
  switch (mode) {
    case Rounding::rne: kept -= lanes_gt(rem, half) | (lanes_eq(rem, half) & lanes_nonzero(kept & 1)); break;
    case Rounding::rna: kept -= lanes_ge(rem, half); break;
    case Rounding::ru: kept -= inexact & ~neg; break;
    case Rounding::rd: kept -= inexact & neg; break;
    case Rounding::ro: kept |= inexact & 1; break;
    default: break;  // rz (rs is refused by TensorCoreModel)
  }
  return kept;
}

/// A value on the accumulator grid, per lane: (-1)^neg * kept * 2^qe; kept = 0 a zero of that sign.
struct GridLanes {
  vi kept, qe, neg;
};

/// A non-zero exact value mag * 2^unit (sign neg) rounded onto the grid under `mode`; marks in
/// bad the lanes that leave the normal range (the subnormal grid, Inf).
template <class V>
SOFTMX_GEMM_INLINE GridLanes to_grid(V mag, vi unit, vi neg, Rounding mode, const TcParams& P, vi& bad) {
  constexpr int kMax = static_cast<int>(sizeof(mag[0])) * 8 - 1;
  const vi L = flog2(mag);
  const vi lead = unit + L;
  const vi d = L - P.p;
  const V k = select(from32<V>(d > 0), round_grid(mag, from32<V>(vmin(d, splat(kMax))), from32<V>(neg), mode),
                     lshl(mag, from32<V>(vmin(vmax(-d, splat(0)), splat(kMax)))));
  GridLanes g;
  g.kept = to32(k);  // at most 2^(p + 1)
  g.qe = lead - P.p;
  g.neg = neg;
  bad |= (lead < P.emin) | (g.qe + floor_log2(g.kept) > P.emax);
  return g;
}

/// a + b exactly, rounded onto the grid under `mode` (tensor_core.cpp's add_exactly): IEEE 754
/// 6.3 signs for a zero sum. Two values further apart than 36 bits: the smaller, below 2^-11 of
/// the larger's quantum, is replaced by one unit 36 bits below it, which no mode tells apart.
SOFTMX_GEMM_INLINE GridLanes grid_add(GridLanes a, GridLanes b, Rounding mode, const TcParams& P, vi& bad) {
  const vi az = a.kept == 0, bz = b.kept == 0;
  const vi qa = az ? b.qe : a.qe;
  const vi qb = bz ? qa : b.qe;
  const vi ahi = qa >= qb;
  const vi qhi = ahi ? qa : qb;
  const vi d = vabs(qa - qb);
  const vi deff = vmin(d, splat(36));
  const vi khi = ahi ? a.kept : b.kept, klo0 = ahi ? b.kept : a.kept;
  const vi nhi = ahi ? a.neg : b.neg, nlo = ahi ? b.neg : a.neg;
  const vi klo = d > 36 ? ((klo0 != 0) & 1) : klo0;
  const vw wh = lshl(from32<vw>(khi), from32<vw>(deff)), wl = from32<vw>(klo);
  const vw mh = from32<vw>(nhi), ml = from32<vw>(nlo);
  const vw sum = ((wh ^ mh) - mh) + ((wl ^ ml) - ml);
  const vi zero = to32(lanes_zero(sum));
  const vi neg = to32(lanes_neg(sum));
  vi rbad = vi{};
  GridLanes g = to_grid(labs(sum), qhi - deff, neg, mode, P, rbad);
  bad |= rbad & ~zero;
  const vi rd = splat(mode == Rounding::rd ? -1 : 0);
  g.neg = (az & bz) ? ((a.neg & b.neg) | ((a.neg ^ b.neg) & rd)) : (zero ? rd : neg);
  g.kept = zero ? vi{} : g.kept;
  return g;
}

/// RZ(a) to 24 significant bits as an f32, for 0 <= a < 2^31 (a = 0: +0). AVX-512: the
/// conversion's own rounding (embedded, the MXCSR untouched); otherwise the FPU's conversion
/// (round to nearest: the driver checks the MXCSR, fpu_default) stepped one code toward zero
/// where it rounded up, seen as its truncation back exceeding a (or, at 2^31, converting to the
/// integer indefinite value, negative).
SOFTMX_GEMM_INLINE vf f32_rz(vi a) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return reinterpret_cast<vf>(
      _mm512_maskz_cvt_roundepi32_ps(0xFFFF, reinterpret_cast<__m512i>(a), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  const vf f = __builtin_convertvector(a, vf);
  vi t;
#if SOFTMX_GEMM_BYTES == 32 && defined(__AVX__)
  t = reinterpret_cast<vi>(_mm256_cvttps_epi32(reinterpret_cast<__m256>(f)));
#elif SOFTMX_GEMM_BYTES == 16 && defined(__SSE2__)
  t = reinterpret_cast<vi>(_mm_cvttps_epi32(reinterpret_cast<__m128>(f)));
#else
  // No instruction named: the conversion of the lanes below 2^31 only (the rest, f = 2^31,
  // read as the indefinite value -2^31, as the instructions give).
  const vi big = reinterpret_cast<vi>(f) >= 0x4F000000;
  t = (big & splat(static_cast<std::int32_t>(0x80000000u))) |
      __builtin_convertvector(reinterpret_cast<vf>(~big & reinterpret_cast<vi>(f)), vi);
#endif
  // Rounded up: t > a, or t the indefinite value -2^31 (f = 2^31); in both cases a - t wraps
  // or falls below zero (a < 2^31), and otherwise t = f <= a: the sign of a - t.
  const vi up = (a - t) >> 31;
  return reinterpret_cast<vf>(reinterpret_cast<vi>(f) + up);
#endif
}

typedef float vfh __attribute__((vector_size(kBytes / 2)));  // kD floats

/// RZ(d) to 24 significant bits, for doubles 0 <= d < 2^53 that are integers: AVX-512's
/// conversion with its own rounding; otherwise the FPU's (round to nearest) stepped one code
/// toward zero where its value exceeds d (an f32 converts to double exactly).
SOFTMX_GEMM_INLINE vfh f32_rz(vd d) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return reinterpret_cast<vfh>(_mm512_maskz_cvt_roundpd_ps(0xFF, reinterpret_cast<__m512d>(d), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  const vfh f = __builtin_convertvector(d, vfh);
  const vh up = __builtin_convertvector(__builtin_convertvector(f, vd) > d, vh);
  return reinterpret_cast<vfh>(reinterpret_cast<vh>(f) + up);
#endif
}

/// RZ(m) to 24 significant bits as an f32, for 64-bit lanes 0 <= m < 2^53: m = h 2^31 + l as
/// doubles (exact), each half of the lanes converted by f32_rz(vd).
SOFTMX_GEMM_INLINE vf f32_rz(vw m) {
  const vi h = to32(m >> 31), l = to32(m & 0x7FFFFFFF);
  vh hh[2], lh[2];
  std::memcpy(hh, &h, sizeof hh);
  std::memcpy(lh, &l, sizeof lh);
  vfh f[2];
  for (int x = 0; x < 2; ++x)
    f[x] = f32_rz(__builtin_convertvector(hh[x], vd) * 0x1p31 + __builtin_convertvector(lh[x], vd));
  vf r;
  std::memcpy(&r, f, sizeof r);
  return r;
}

/// to_grid under rz for a sum below 2^31 (vi) or 2^53 (vw) in magnitude and p <= 23 (the
/// float route's group end): RZ to 24 bits (f32_rz) cut to p + 1 bits is the RZ to p + 1 bits
/// (truncations compose), and the f32's exponent is floor(log2 |sum|) (a truncation never
/// reaches the next power of two). Lanes whose sum is zero hold no meaningful value (the
/// caller overrides them).
template <class V>
SOFTMX_GEMM_INLINE GridLanes to_grid_rz(V sum, vi unit, const TcParams& P, vi& bad) {
  const vi neg = to32(lanes_neg(sum));
  const vi fb = reinterpret_cast<vi>(f32_rz(labs(sum)));
  const int drop = 23 - P.p;
  const vi L = ((fb >> 23) & 255) - 127;
  GridLanes g;
  g.kept = shr((fb & 0x7FFFFF) | 0x800000, splat(drop));
  const vi lead = unit + L;
  g.qe = lead - P.p;
  g.neg = neg;
  bad |= (lead < P.emin) | (lead > P.emax);
  return g;
}

/// A grid value (kept <= 2^24, on a grid of p = 23 inside f32's normal range) as its f32: the
/// conversion of kept (exact) with qe added to its exponent field, the sign set. Lanes outside
/// the normal range give some f32 (their outputs are marked for the reference already).
SOFTMX_GEMM_INLINE vf grid_f32(GridLanes x) {
  const vu k = reinterpret_cast<vu>(__builtin_convertvector(x.kept, vf));
  const vu e = reinterpret_cast<vu>(x.kept != 0) & (reinterpret_cast<vu>(x.qe) << 23);
  return reinterpret_cast<vf>((k + e) | (reinterpret_cast<vu>(x.neg) & 0x80000000u));
}

/// grid_add for f32's grid (p = 23, exponents -126 .. 127) under rne: the FPU's f32 addition
/// (round to nearest even, the MXCSR checked by the driver) of two normal f32s or zeros is the
/// exact sum rounded onto that grid; a sum below 2^-126 is a subnormal (the exact sum of two
/// multiples of 2^-149 is one, exact: exponent field 0) and one that rounds past the largest
/// is Inf (field 255): both marked bad, as to_grid does. A zero sum's sign is IEEE 754 6.3's
/// under rne: -0 only from two negative zeros, as grid_add's.
SOFTMX_GEMM_INLINE GridLanes grid_add_f32_rne(GridLanes a, GridLanes b, vi& bad) {
  const vi s = reinterpret_cast<vi>(grid_f32(a) + grid_f32(b));
  const vi ef = (s >> 23) & 255;
  const vi zero = (s & 0x7FFFFFFF) == 0;
  GridLanes g;
  g.kept = zero ? vi{} : ((s & 0x7FFFFF) | 0x800000);
  g.qe = ef - 150;
  g.neg = s >> 31;
  bad |= ~zero & ((ef == 0) | (ef == 255));
  return g;
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
