// emulator/block/log2_rounded.cpp: floor(RN_p(log2 x)), exactly (block.hpp).
//
// NumPy's np.log2 returns log2 x rounded to the input dtype's precision, and pychop floors it to
// choose a block's scale (ScaleRule::floor_log2_rn). Rounding can carry log2 x up to the next
// integer k when x lies just below 2^k, so floor(RN_p(log2 x)) is floor(log2 x) + 1 there. That
// happens iff log2 x > k - h, with h half the gap between k and the p-bit number next to it on
// the side of log2 x (below k): a comparison of an irrational log2 x with a dyadic k - h, which
// is never a tie. It is decided here without any floating-point log2:
//
//   log2 x > k - h  <=>  m > 2^-h  <=>  m^(2^H) > 1/2,   m = x / 2^k in [1/2, 1), h = 2^-H,
//
// by H repeated squarings of m in 127-bit fixed point with a lower and an upper bound (floor
// and ceiling of each square). The bounds stay within 2^(H - 120) of each other relatively, and
// m^(2^H) is never that close to 1/2 for an input of at most 64 significant bits (it would need
// 2^H * (1 - m) within 2^-100 of ln 2, while 1 - m is a multiple of 2^-64 and 2^H * (1 - m) a
// rational with a denominator below 2^64); if it were, the function throws rather than guess.
#include <bit>
#include <stdexcept>
#include <string>

#include "softmx/block.hpp"

namespace softmx {
namespace {

__extension__ using u128 = unsigned __int128;

// a * a / 2^127 for a < 2^127, rounded down (up = false) or up: the square of a 127-bit
// fraction, kept as a 127-bit fraction.
u128 square_127(u128 a, bool up) {
  const std::uint64_t a1 = static_cast<std::uint64_t>(a >> 64), a0 = static_cast<std::uint64_t>(a);
  // a^2 = a1^2 2^128 + 2 a1 a0 2^64 + a0^2, as four 64-bit limbs w3 w2 w1 w0.
  const u128 hh = static_cast<u128>(a1) * a1, hl = static_cast<u128>(a1) * a0, ll = static_cast<u128>(a0) * a0;
  std::uint64_t w0 = static_cast<std::uint64_t>(ll);
  u128 mid = (ll >> 64) + (static_cast<u128>(static_cast<std::uint64_t>(hl)) << 1);  // < 2^66
  std::uint64_t w1 = static_cast<std::uint64_t>(mid);
  u128 top = (mid >> 64) + ((hl >> 64) << 1) + hh;  // a^2 >> 128, < 2^126
  // a^2 >> 127 = (top << 1) | (w1 >> 63); the remainder is w1's low 63 bits and w0.
  const u128 q = (top << 1) | (w1 >> 63);
  const bool rem = (w1 << 1) != 0 || w0 != 0;
  return q + (up && rem ? 1 : 0);
}

}  // namespace

int floor_log2_rounded(const Unpacked& x, int p) {
  if (x.cls != ValueClass::finite || x.sign || x.sticky)
    throw std::invalid_argument("floor_log2_rounded: x must be an exact finite positive value");
  if (p < 2 || p > 64) throw std::invalid_argument("floor_log2_rounded: the precision must be 2..64, not " + std::to_string(p));
  const int e = x.exp;
  if (x.sig == std::uint64_t{1} << 63) return e;  // a power of two: log2 x = e exactly
  const int k = e + 1;                            // log2 x in (e, k)
  if (k == 0) return e;                           // log2 x in (-1, 0): never rounds to 0
  const unsigned K = static_cast<unsigned>(k > 0 ? k : -k);
  // The integers k and k - 1 must be p-bit numbers (true for every source: |k| <= 1075).
  if (std::bit_width(K + 1) > static_cast<unsigned>(p))
    throw std::invalid_argument("floor_log2_rounded: log2 of this value near " + std::to_string(k) +
                                " is not separable from its neighbours at precision " + std::to_string(p));
  const int a = std::bit_width(K) - 1;  // floor(log2 |k|)
  // G: log2 of the gap between k and the nearest p-bit number below it. For k >= 1 that number
  // is in k's binade, or the binade below when k is a power of two; for k <= -1 it is -(|k| +
  // ulp(|k|)).
  const int G = k > 0 && std::has_single_bit(K) ? a - p : a - p + 1;
  const int H = 1 - G;  // h = 2^-H, H >= 1 since |k| < 2^(p-1)
  // 1 - m = d 2^-64 with m = sig / 2^64. If 1 - m >= h, then -log2 m > 1 - m >= h: no carry.
  const std::uint64_t d = 0 - x.sig;  // 2^64 - sig, non-zero
  if (H >= 64 || d >= (std::uint64_t{1} << (64 - H))) return e;
  u128 lo = static_cast<u128>(x.sig) << 63, hi = lo;  // m * 2^127
  for (int i = 0; i < H; ++i) {
    lo = square_127(lo, false);
    hi = square_127(hi, true);
  }
  const u128 half = static_cast<u128>(1) << 126;
  if (lo > half) return k;
  if (hi <= half) return e;
  throw std::logic_error("floor_log2_rounded: the bounds do not decide log2 x against " + std::to_string(k) +
                         " - 2^-" + std::to_string(H));
}

}  // namespace softmx
