// emulator/simd/dequant_lanes.hpp: MX dequantization into f32, N lanes at a time (internal;
// included after simd/lanes.hpp by each simd/isa_*.cpp, in its namespace).
//
// For a two's complement fixed-point element (DequantLanes::twos: MXINT8, int4) the value is
// the sign-extended code i times 2^(1 - bias - m + X): bits(float(i)) + (1 - bias - m + X) << 23
// (float(i) exact), +0 for i = 0.
// For a sign-magnitude element format with subnormals (the descriptor's width w, fraction bits
// m and bias; specials as Specials says) a code splits into sign s, exponent field e and
// fraction f, and its value times 2^X is, when the result is a normal f32 (the caller's range
// check per scale):
//   e > 0:          s | (e - bias + 127 + X) << 23 | f << (23 - m)
//   e = 0, f > 0:   s | bits(float(f)) + (1 - bias - m + X) << 23      (float(f) exact)
//   e = 0, f = 0:   s (a zero of its sign)
// The first is (mag << (23 - m)) + (127 - bias + X) << 23 (mag = e << m | f). Where the 2^m
// codes with e = 0 fit in the N lanes (m <= 3 on AVX2, m <= 4 on AVX-512: every named FP
// element), the last two are a table of N lanes built once per block (lane f: bits(float(f))
// + (1 - bias - m + X) << 23, lane 0: 0) and read by one permutation indexed by mag, where the
// conversion, a compare and a select made them per vector.
// Codes that are NaN or Inf (ieee: an all-ones exponent field; fn: all-ones magnitude; fnuz:
// the -0 code) take the Dequantizer's table row (their result does not depend on the scale):
// those lanes are rewritten from the table, their flags ORed into *flags_or when the table has
// some (special_flags). A block holding a byte beyond the format's codes (the reference reads
// those its own way) stops the kernel there. Every other code, a partial block's last ones
// included, is the formula's. The Dequantizer checks once that
// this formula gives its reference row of scale 127 for every other code (dequantize.cpp), so
// the lanes are the reference by construction.

#ifndef SOFTMX_LANES_INLINE_LAMBDA
#define SOFTMX_LANES_INLINE_LAMBDA __attribute__((always_inline))
#endif

#include <bit>

namespace softmx::simd::SOFTMX_SIMD_NS {

/// N bytes zero-extended to 32-bit lanes (one vpmovzxbd: GCC converts a generic vector of
/// bytes element by element).
SOFTMX_LANES_INLINE u32v load_bytes(const std::uint8_t* p) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  return reinterpret_cast<u32v>(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#elif defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  // GCC 12 converts the generic 16-byte vector below byte by byte (16 extracts and inserts).
  // The zero-masked form: the unmasked one reads an undefined register (GCC's
  // -Wmaybe-uninitialized false positive); both are one vpmovzxbd.
  return reinterpret_cast<u32v>(
      _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#else
  u8v raw;
  std::memcpy(&raw, p, sizeof raw);
  return __builtin_convertvector(raw, u32v);
#endif
}

/// Lane j of the result is lane (i[j] mod N) of t (one vpermd).
SOFTMX_LANES_INLINE u32v permute_lanes(u32v t, u32v i) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  // The zero-masked form, as load_bytes: the unmasked one reads an undefined register (GCC's
  // -Wmaybe-uninitialized false positive); both are one vpermd.
  return reinterpret_cast<u32v>(
      _mm512_maskz_permutexvar_epi32(0xFFFF, reinterpret_cast<__m512i>(i), reinterpret_cast<__m512i>(t)));
#elif defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  return reinterpret_cast<u32v>(_mm256_permutevar8x32_epi32(reinterpret_cast<__m256i>(t), reinterpret_cast<__m256i>(i)));
#else
  u32v r;
  for (int j = 0; j < N; ++j) r[j] = t[i[j] & (N - 1)];
  return r;
#endif
}

/// DequantFn (plan.hpp) for this instruction set, with the format's width W, fraction bits M
/// and specials Sp known at compile time (W = 0: read from d). A compile-time format keeps every
/// mask and shift an immediate, and an 8-bit one needs no test for bytes beyond the format.
template <int W, int M, Specials Sp>
std::size_t dequantize_f32_blocks_t(const DequantLanes& d, const std::uint8_t* scales, const std::uint8_t* codes,
                                    std::size_t n, std::size_t k, std::size_t b, std::uint32_t* out) {
  const int width = W ? W : d.width, man = W ? M : d.man;
  const Specials specials = W ? Sp : d.specials;
  const u32v mag_mask = splat((1u << (width - 1)) - 1), fmask = splat((1u << man) - 1);
  const u32v zero = splat(0);
  const u32v emask = splat((1u << (width - 1 - man)) - 1);  // an all-ones exponent field
  const u32v fnuz_nan = splat(1u << (width - 1));           // fnuz: the -0 code is the NaN
  const int sign_shift = width - 1;
  // Where the 2^m subnormal codes (the zero included) fit in one vector, their results are a
  // table of N lanes read by one permutation: lane f holds bits(float(f)) + sub_add (zero: 0),
  // what the formula above gives, built per block by one addition to bits(float(f)).
  const bool sub_table = (1 << man) <= N;
  u32v lane_f32{}, lane_nonzero{};
  for (int j = 0; j < N; ++j) {
    lane_f32[j] = std::bit_cast<std::uint32_t>(static_cast<float>(j));
    lane_nonzero[j] = j ? 0xFFFFFFFFu : 0u;
  }
  for (std::size_t first = b * k; first < n; ++b, first += k) {
    const std::uint8_t sc = scales[b];
    const std::uint64_t* tab = d.tabs[sc];
    const int x = sc - 127;
    if (sc == 0xFF || !tab || x < d.x_lo || x > d.x_hi) return b;
    const std::size_t end = n - first < k ? n : first + k;
    const u32v normal_add = splat(static_cast<std::uint32_t>(127 - d.bias + x) << 23);
    const u32v sub_add = splat(static_cast<std::uint32_t>(1 - d.bias - man + x) << 23);
    const u32v subs = lane_f32 + (lane_nonzero & sub_add);  // sub_table: lane f, code f's result
    // N codes from p: their f32 results by the formula into v; returns the lanes holding a
    // NaN/Inf code (their results come from the table), or ~0u for a byte beyond the format
    // (the reference reads those its own way: the kernel stops).
    auto lanes = [&](const std::uint8_t* p, u32v& v) SOFTMX_LANES_INLINE_LAMBDA {
      const u32v c = load_bytes(p);
      const u32v mag = c & mag_mask;
      const u32v e = mag >> man, f = mag & fmask;
      const i32v special = specials == Specials::ieee ? (e == emask)
                           : specials == Specials::fn ? (mag == mag_mask)
                           : specials == Specials::fnuz ? (c == fnuz_nan)
                                                        : reinterpret_cast<i32v>(zero);
      const i32v beyond = W == 8 ? reinterpret_cast<i32v>(zero) : reinterpret_cast<i32v>(c >> width) != 0;
      unsigned odd = 0;
      if (lane_bits(special | beyond)) [[unlikely]] {
        if (W != 8 && lane_bits(beyond)) return ~0u;
        odd = lane_bits(special);
      }
      if (W == 0 && d.twos) {
        // The sign-extended integer as an f32 (exact: |c| <= 2^7), its exponent moved by
        // 1 - bias - man + X; zero stays +0.
        const i32v si = reinterpret_cast<i32v>(c << (32 - width)) >> (32 - width);
        const u32v ib = reinterpret_cast<u32v>(__builtin_convertvector(si, f32v));
        v = si == 0 ? zero : ib + sub_add;
        return odd;
      }
      const u32v s = (c >> sign_shift) << 31;
      // (e << 23) + (f << (23 - m)) is mag << (23 - m): two instructions fewer.
      const u32v nrm = (mag << (23 - man)) + normal_add;
      if (sub_table) {
        // A subnormal code's mag is f, below 2^m <= N: its lane of the table (mag < 2^m is
        // e = 0; mag is below 2^31, so the compare is a signed one).
        v = s | (reinterpret_cast<i32v>(mag) < reinterpret_cast<i32v>(fmask + 1) ? permute_lanes(subs, mag) : nrm);
        return odd;
      }
      const u32v fbits = reinterpret_cast<u32v>(__builtin_convertvector(reinterpret_cast<i32v>(f), f32v));
      const u32v sub = f == 0 ? zero : fbits + sub_add;
      v = s | (e == 0 ? sub : nrm);
      return odd;
    };
    // The NaN/Inf lanes of the N results at out[i...] from the table (and their flags).
    auto specials_from_table = [&](std::size_t i, unsigned odd) {
      for (; odd; odd &= odd - 1) {
        const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(odd));
        out[j] = static_cast<std::uint32_t>(tab[codes[j]]);
        if (d.special_flags) *d.flags_or |= d.special_flags[codes[j]];
      }
    };
    std::size_t i = first;
    for (; i + N <= end; i += N) {
      u32v v;
      const unsigned odd = lanes(codes + i, v);
      if (odd == ~0u) return b;
      std::memcpy(out + i, &v, sizeof v);
      if (odd) [[unlikely]] specials_from_table(i, odd);
    }
    if (i < end) {  // fewer than N codes left in the block: the same lanes on a padded copy
      std::uint8_t buf[N] = {};
      std::memcpy(buf, codes + i, end - i);
      u32v v;
      const unsigned odd = lanes(buf, v);
      if (odd == ~0u) return b;
      std::memcpy(out + i, &v, (end - i) * sizeof(std::uint32_t));
      if (odd) specials_from_table(i, odd & ((1u << (end - i)) - 1));
    }
  }
  return b;
}

/// DequantFn (plan.hpp) for this instruction set: the 8-bit element shapes of MXFP8 and of the
/// FNUZ family compiled for their fields (chosen by the descriptor's width, fraction bits and
/// specials, whatever the bias: e4m3fnuz, e4m3b11fnuz and any runtime 8-bit fnuz format with 3
/// fraction bits share one), any other through the general form. The FNUZ pair is here because
/// the general form, with every mask and shift read at run time, ran the runtime FNUZ formats
/// at 0.55-0.61x of e4m3/e5m2 at L2 and L3 (bench_block, 2026-11-29), under issue 30's 0.6x.
inline std::size_t dequantize_f32_blocks(const DequantLanes& d, const std::uint8_t* scales, const std::uint8_t* codes,
                                         std::size_t n, std::size_t k, std::size_t b, std::uint32_t* out) {
  if (d.width == 8 && !d.twos) {
    if (d.man == 3 && d.specials == Specials::fn)  // e4m3
      return dequantize_f32_blocks_t<8, 3, Specials::fn>(d, scales, codes, n, k, b, out);
    if (d.man == 2 && d.specials == Specials::ieee)  // e5m2
      return dequantize_f32_blocks_t<8, 2, Specials::ieee>(d, scales, codes, n, k, b, out);
    if (d.man == 3 && d.specials == Specials::fnuz)  // e4m3fnuz, e4m3b11fnuz
      return dequantize_f32_blocks_t<8, 3, Specials::fnuz>(d, scales, codes, n, k, b, out);
    if (d.man == 2 && d.specials == Specials::fnuz)  // e5m2fnuz
      return dequantize_f32_blocks_t<8, 2, Specials::fnuz>(d, scales, codes, n, k, b, out);
  }
  return dequantize_f32_blocks_t<0, 0, Specials::ieee>(d, scales, codes, n, k, b, out);
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
