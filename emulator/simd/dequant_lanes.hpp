// emulator/simd/dequant_lanes.hpp: MX dequantization into f32, N lanes at a time (internal;
// included after simd/lanes.hpp by each simd/isa_*.cpp, in its namespace).
//
// For a sign-magnitude element format with subnormals (the descriptor's width w, fraction bits
// m and bias; specials as Specials says) a code splits into sign s, exponent field e and
// fraction f, and its value times 2^X is, when the result is a normal f32 (the caller's range
// check per scale):
//   e > 0:          s | (e - bias + 127 + X) << 23 | f << (23 - m)
//   e = 0, f > 0:   s | bits(float(f)) + (1 - bias - m + X) << 23      (float(f) exact)
//   e = 0, f = 0:   s (a zero of its sign)
// Codes that are NaN or Inf take the Dequantizer's table row (their result does not depend on
// the scale): a vector holding one is written from the table. A block holding a byte beyond
// the format's codes (the reference reads those its own way) stops the kernel there. The Dequantizer checks once that
// this formula gives its reference row of scale 127 for every other code (dequantize.cpp), so
// the lanes are the reference by construction.

namespace softmx::simd::SOFTMX_SIMD_NS {

/// N bytes zero-extended to 32-bit lanes (one vpmovzxbd: GCC converts a generic 8-byte vector
/// element by element; a 16-byte one, AVX-512's, it converts whole).
SOFTMX_LANES_INLINE u32v load_bytes(const std::uint8_t* p) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  return reinterpret_cast<u32v>(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#else
  u8v raw;
  std::memcpy(&raw, p, sizeof raw);
  return __builtin_convertvector(raw, u32v);
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
  const int sign_shift = width - 1;
  for (std::size_t first = b * k; first < n; ++b, first += k) {
    const std::uint8_t sc = scales[b];
    const std::uint64_t* tab = d.tabs[sc];
    const int x = sc - 127;
    if (sc == 0xFF || !tab || x < d.x_lo || x > d.x_hi) return b;
    const std::size_t end = n - first < k ? n : first + k;
    const u32v normal_add = splat(static_cast<std::uint32_t>(127 - d.bias + x) << 23);
    const u32v sub_add = splat(static_cast<std::uint32_t>(1 - d.bias - man + x) << 23);
    std::size_t i = first;
    for (; i + N <= end; i += N) {
      const u32v c = load_bytes(codes + i);
      const u32v mag = c & mag_mask;
      const u32v e = mag >> man, f = mag & fmask;
      // One test for the rare lanes: a byte beyond the format (the reference reads those its own
      // way: the kernel stops) or a NaN/Inf code (its result from the table).
      const i32v special = specials == Specials::ieee ? (e == emask)
                           : specials == Specials::fn ? (mag == mag_mask)
                                                      : reinterpret_cast<i32v>(zero);
      const i32v beyond = W == 8 ? reinterpret_cast<i32v>(zero) : reinterpret_cast<i32v>(c >> width) != 0;
      if (lane_bits(special | beyond)) [[unlikely]] {
        if (W != 8 && lane_bits(beyond)) return b;
        for (std::size_t j = i; j < i + N; ++j) out[j] = static_cast<std::uint32_t>(tab[codes[j]]);
        continue;
      }
      const u32v s = (c >> sign_shift) << 31;
      const u32v nrm = (e << 23) + normal_add + (f << (23 - man));
      const u32v fbits = reinterpret_cast<u32v>(__builtin_convertvector(reinterpret_cast<i32v>(f), f32v));
      const u32v sub = f == 0 ? zero : fbits + sub_add;
      const u32v v = s | (e == 0 ? sub : nrm);
      std::memcpy(out + i, &v, sizeof v);
    }
    for (std::size_t j = i; j < end; ++j)
      if (codes[j] >> width) return b;
    for (; i < end; ++i) out[i] = static_cast<std::uint32_t>(tab[codes[i]]);
  }
  return b;
}

/// DequantFn (plan.hpp) for this instruction set: MXFP8's two element formats compiled for
/// their fields, any other through the general form.
inline std::size_t dequantize_f32_blocks(const DequantLanes& d, const std::uint8_t* scales, const std::uint8_t* codes,
                                         std::size_t n, std::size_t k, std::size_t b, std::uint32_t* out) {
  if (d.width == 8 && d.man == 3 && d.specials == Specials::fn)  // e4m3
    return dequantize_f32_blocks_t<8, 3, Specials::fn>(d, scales, codes, n, k, b, out);
  if (d.width == 8 && d.man == 2 && d.specials == Specials::ieee)  // e5m2
    return dequantize_f32_blocks_t<8, 2, Specials::ieee>(d, scales, codes, n, k, b, out);
  return dequantize_f32_blocks_t<0, 0, Specials::ieee>(d, scales, codes, n, k, b, out);
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
