// emulator/vectors/generate_cases.hpp: what the case generators of `gen` share (internal):
// exact dyadic values and the codes nearest them, the random stream's helpers, and one entry
// point per operation, each in its own file (generate_convert.cpp, generate_quantize.cpp,
// generate_dequantize.cpp, generate_dot.cpp, generate_mma.cpp); generate.cpp is the driver
// (for_each_case, write_vectors).
//
// vectors/README.md section 6 describes every set built here, draw by draw: a change to what
// these files generate is a change to that section (and to the committed vectors' hashes).
#pragma once


#include <algorithm>
#include <array>
#include <bit>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "softmx/vectors/generate.hpp"

namespace softmx::vec::gen_detail {

using u64 = std::uint64_t;
using Operands = std::vector<u64>;

// ---------------------------------------------------------------------------------------------
// Exact values, and the codes nearest to them.

/// The exact non-negative value m * 2^e (m = 0: zero). Every point the generator aims at is
/// one: a format's values, midpoints between neighbours, scale-rule thresholds.
struct Dyadic {
  u64 m = 0;
  int e = 0;
};

inline Dyadic times_pow2(Dyadic d, int by) { return {d.m, d.e + by}; }

/// `d` with sign `negative`, as the rounding core reads values.
inline Unpacked unpacked(Dyadic d, bool negative) {
  Unpacked u;
  u.sign = negative;
  if (d.m == 0) return u;  // a zero of that sign
  const int w = static_cast<int>(std::bit_width(d.m));
  u.cls = ValueClass::finite;
  u.exp = d.e + w - 1;
  u.sig = d.m << (64 - w);
  return u;
}

/// The value of magnitude code `mag` of `f`, continuing the binade pattern past the largest
/// finite code (e4m3 0x7F is 480, the virtual neighbour above 448; f16 0x7C00 is 2^16), so that
/// the midpoint above max finite and the overflow thresholds are points like any other.
/// Precondition: mag < 2^(f.width) (the exponent field may exceed the format's).
inline Dyadic magnitude_value(const Format& f, u64 mag) {
  const int m = f.man_bits;
  const u64 field = mag >> m, frac = mag & ((u64{1} << m) - 1);
  if (f.subnormals && field == 0) return {frac, f.emin() - m};
  return {(u64{1} << m) | frac, static_cast<int>(field) - f.bias - m};
}

/// (a + b) / 2, exactly. Precondition: the exponents differ by at most a few (neighbours).
inline Dyadic midpoint(Dyadic a, Dyadic b) {
  const int e = std::min(a.e, b.e);
  return {(a.m << (a.e - e)) + (b.m << (b.e - e)), e - 1};
}

/// u * t * 2^-shift for a finite u and t >= 1: the leading 64 bits kept, the rest folded into
/// sticky (all the rounding core needs).
inline Unpacked times(const Unpacked& u, u64 t, int shift, bool negate) {
  __extension__ using u128 = unsigned __int128;
  const u128 p = static_cast<u128>(u.sig) * t;
  const u64 hi = static_cast<u64>(p >> 64);
  const int w = hi ? 64 + static_cast<int>(std::bit_width(hi)) : 64;  // u.sig has bit 63 set
  Unpacked r = u;
  r.sign = u.sign != negate;
  r.sig = static_cast<u64>(p >> (w - 64));
  r.sticky = u.sticky || (w > 64 && (p & ((u128{1} << (w - 64)) - 1)) != 0);
  r.exp = u.exp - shift + (w - 64);
  return r;
}

/// The code of `f` nearest to `u` (rne) under saturation `sat`. Used to find the operands at
/// or next to a point, never to compute a result.
inline u64 nearest_code(const Format& f, const Unpacked& u, Saturation sat) {
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = sat;
  return round_pack(f, u, c, ocp_dialect()).code;
}

// Codes of the IEEE host formats (f64 f32 f16 bf16): sign-magnitude with Inf and NaN.
inline u64 sign_bit(const Format& f) { return u64{1} << (f.width - 1); }
inline u64 inf_magnitude(const Format& f) { return ((u64{1} << f.exp_bits) - 1) << f.man_bits; }
inline u64 quiet_nan(const Format& f) { return inf_magnitude(f) | (u64{1} << (f.man_bits - 1)); }

/// The special and extreme codes of an IEEE host format: +0, +Inf, NaNs (quiet canonical, all
/// ones, signalling with payload 1, signalling with the high payload bit, quiet with payload 1,
/// quiet with the next bit), max finite, min normal, min subnormal, max subnormal; then the
/// same twelve negated.
inline std::vector<u64> special_codes(const Format& f) {
  const u64 inf = inf_magnitude(f), quiet = u64{1} << (f.man_bits - 1), frac = (u64{1} << f.man_bits) - 1;
  std::vector<u64> v = {0,         inf,   inf | quiet,          inf | frac, inf | 1,   inf | (quiet >> 1),
                        inf | quiet | 1, inf | quiet | (quiet >> 1), inf - 1, u64{1} << f.man_bits, 1, frac};
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(v[i] | sign_bit(f));
  return v;
}

// ---------------------------------------------------------------------------------------------
// The random stream.

/// The top `w` bits of the next draw (1 <= w <= 64): a uniform w-bit value. For w < 64 this is
/// exactly below(2^w).
inline u64 draw_bits(SplitMix64& rng, int w) {
  const u64 x = rng.next();
  return w >= 64 ? x : x >> (64 - w);
}

/// c + d - bias clamped to [0, hi]: a code moved by a drawn offset d in [0, 2 * bias].
inline u64 offset_code(u64 c, u64 d, u64 bias, u64 hi) {
  if (d < bias) return c < bias - d ? 0 : c - (bias - d);
  return std::min(c + (d - bias), hi);
}

/// An integer uniform in [lo, hi] (lo <= hi): lo + below(hi - lo + 1).
inline int draw_between(SplitMix64& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.below(static_cast<u64>(hi - lo) + 1));
}

/// The fixed random values each level-1 rs input is paired with: 0 (truncates), 1, 2^(r-1) - 1
/// (rounds away above the half), 2^(r-1) (rounds away from the half up), 2^r - 1 (rounds
/// away whenever inexact); ascending, duplicates dropped (r = 1: 0 and 1).
inline std::vector<u64> fixed_rbits(int r) {
  const u64 max = r == 64 ? ~u64{0} : (u64{1} << r) - 1, half = u64{1} << (r - 1);
  std::vector<u64> v = {0, 1, half - 1, half, max};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// Exponent of the largest finite value of `f` (e4m3 8, f32 127, int8 0, e8m0 127).
inline int max_exponent(const Format& f) { return static_cast<int>(f.max_finite_magnitude() >> f.man_bits) - f.bias; }

/// Exponent of the smallest non-zero value of `f` (f32 -149, e4m3 -9, e8m0 -127).
inline int min_exponent(const Format& f) { return f.subnormals ? f.emin() - f.man_bits : f.emin(); }

/// Level 1's cases, then `random` draws from the stream of `seed` (dot and mma: section 6).
template <class Cases>
inline void level1_then_random(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  Cases cases(h);
  for (const Operands& c : cases.level1()) emit(c);
  SplitMix64 rng(seed);
  for (u64 i = 0; i < random; ++i) emit(cases.random(rng));
}

/// The codes of one element format that dot cases use, read from its descriptor (a named MX
/// element or a runtime one: e1m2, e4m3fnuz, int4, e3m4, ...).
struct ElementCodes {
  explicit ElementCodes(const Format& fm) : f(fm) {}
  const Format& f;
  u64 one() const { return nearest_code(f, unpacked({1, 0}, false), Saturation::finite); }
  u64 max() const { return f.max_finite_magnitude(); }
  u64 neg(u64 c) const {
    return f.sign == SignEncoding::twos_complement ? (f.code_mask() + 1 - c) & f.code_mask() : c ^ (u64{1} << (f.width - 1));
  }
  /// -0, or +0 where the format has no -0 (two's complement, fnuz: its -0 code is the NaN).
  u64 neg_zero() const { return f.has_negative_zero() ? neg(0) : 0; }
  bool has_nan() const { return f.has_nan(); }
  bool has_inf() const { return f.has_inf(); }
  /// The quiet NaN (e4m3 0x7F, e5m2 0x7E, e4m3fnuz 0x80: the sign bit alone); precondition
  /// has_nan().
  u64 nan() const {
    if (f.specials == Specials::fnuz) return u64{1} << (f.width - 1);
    return has_inf() ? max() + 1 + (f.man_bits ? u64{1} << (f.man_bits - 1) : 0) : f.all_ones_magnitude();
  }
  /// e5m2's Inf 0x7C and signalling NaN 0x7D; precondition has_inf().
  u64 inf() const { return max() + 1; }
  u64 snan() const { return max() + 2; }
};

// ---------------------------------------------------------------------------------------------
// One entry point per operation: level 1's cases, then `random` cases from the stream of `seed`
// (README 6).

void convert_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit);
void dequantize_cases(const Header& h, const CaseSink& emit);
void quantize_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit);
void dot_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit);
void mma_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit);

}  // namespace softmx::vec::gen_detail
