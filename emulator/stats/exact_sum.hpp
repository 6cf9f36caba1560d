// emulator/stats/exact_sum.hpp: an exact sum of doubles and of products of two doubles
// (internal; error_stats uses it).
//
// A fixed-point number of kLimbs 64-bit limbs in two's complement whose bit 0 weighs
// 2^kLsbExp. The product of two doubles is m * 2^e with m < 2^106 and e >= -2148 (two
// subnormals), and at most 2^2048 in magnitude, so every term is an integer multiple of
// 2^-2148; the top limb leaves more than 2^64 terms of headroom above 2^2048. Adding is
// exact, so the sum does not depend on the order of the terms, and two partial sums add
// exactly.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "softmx/value.hpp"

namespace softmx::detail {

__extension__ using u128_t = unsigned __int128;

class ExactSum {
 public:
  static constexpr int kLsbExp = -2176;
  // Bits 2^-2176 .. 2^(64 * 71 - 2177): the largest term (below 2^2049, 106 bits) starts at
  // most in limb 67, so the three words of any term fit without a bounds check, and more than
  // 2^190 terms fit below the sign bit.
  static constexpr int kLimbs = 71;

  /// Adds (-1)^neg * m * 2^e. Preconditions: m < 2^106, e >= kLsbExp, m * 2^e < 2^2049.
  void add(bool neg, u128_t m, int e) {
    if (m == 0) return;
    const unsigned pos = static_cast<unsigned>(e - kLsbExp);
    const unsigned li = pos >> 6, sh = pos & 63;
    const std::uint64_t lo = static_cast<std::uint64_t>(m), hi = static_cast<std::uint64_t>(m >> 64);
    const std::uint64_t w0 = lo << sh;
    const std::uint64_t w1 = sh ? (lo >> (64 - sh)) | (hi << sh) : hi;
    const std::uint64_t w2 = sh ? hi >> (64 - sh) : 0;
    std::uint64_t* l = &limb_[li];
    if (!neg) {
      const u128_t s0 = static_cast<u128_t>(l[0]) + w0;
      const u128_t s1 = static_cast<u128_t>(l[1]) + w1 + static_cast<std::uint64_t>(s0 >> 64);
      const u128_t s2 = static_cast<u128_t>(l[2]) + w2 + static_cast<std::uint64_t>(s1 >> 64);
      l[0] = static_cast<std::uint64_t>(s0), l[1] = static_cast<std::uint64_t>(s1), l[2] = static_cast<std::uint64_t>(s2);
      if (s2 >> 64)
        for (unsigned i = li + 3; i < kLimbs && ++limb_[i] == 0; ++i) {
        }
    } else {
      const std::uint64_t w[3] = {w0, w1, w2};
      bool borrow = false;
      for (int j = 0; j < 3; ++j) {
        const std::uint64_t a = l[j];
        l[j] = a - w[j] - (borrow ? 1 : 0);
        borrow = a < w[j] || (borrow && a == w[j]);
      }
      if (borrow)
        for (unsigned i = li + 3; i < kLimbs && limb_[i]-- == 0; ++i) {
        }
    }
  }

  /// Subtracts another sum, exactly.
  void sub(const ExactSum& o) {
    bool borrow = false;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t a = limb_[i], b = o.limb_[i];
      limb_[i] = a - b - (borrow ? 1 : 0);
      borrow = a < b || (borrow && a == b);
    }
  }

  /// Adds another sum, exactly.
  void add(const ExactSum& o) {
    u128_t carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const u128_t s = static_cast<u128_t>(limb_[i]) + o.limb_[i] + carry;
      limb_[i] = static_cast<std::uint64_t>(s);
      carry = s >> 64;
    }
  }

  /// The exact value divided by d (>= 1), as an Unpacked: 64 leading bits and a sticky bit
  /// for everything below them (the remainder included); exp is relative to 2^0. Zero gives a
  /// +0 Unpacked.
  Unpacked quotient(std::uint64_t d) const {
    Unpacked u;
    std::array<std::uint64_t, kLimbs> m = limb_;
    const bool neg = m[kLimbs - 1] >> 63;
    if (neg) {
      bool carry = true;
      for (auto& l : m) {
        l = ~l + (carry ? 1 : 0);
        carry = carry && l == 0;
      }
    }
    u128_t rem = 0;
    for (int i = kLimbs - 1; i >= 0; --i) {
      const u128_t cur = (rem << 64) | m[i];
      m[i] = static_cast<std::uint64_t>(cur / d);
      rem = cur % d;
    }
    int top = kLimbs - 1;
    while (top >= 0 && m[top] == 0) --top;
    if (top < 0) {
      if (rem == 0) return u;  // exactly zero
      // 0 < |quotient| < 2^kLsbExp: far below any double; only its sign and non-zero-ness
      // matter to the rounding.
      u.cls = ValueClass::finite;
      u.sign = neg;
      u.sig = std::uint64_t{1} << 63;
      u.exp = kLsbExp - 1;
      u.sticky = true;
      return u;
    }
    const int lz = std::countl_zero(m[top]);
    std::uint64_t sig = m[top] << lz;
    if (lz && top > 0) sig |= m[top - 1] >> (64 - lz);
    bool sticky = rem != 0;
    if (top > 0 && (lz ? (m[top - 1] << lz) != 0 : m[top - 1] != 0)) sticky = true;
    for (int i = top - 2; i >= 0 && !sticky; --i) sticky = m[i] != 0;
    u.cls = ValueClass::finite;
    u.sign = neg;
    u.sig = sig;
    u.exp = top * 64 + (63 - lz) + kLsbExp;
    u.sticky = sticky;
    return u;
  }

  bool is_zero() const {
    for (std::uint64_t l : limb_)
      if (l) return false;
    return true;
  }

 private:
  std::array<std::uint64_t, kLimbs> limb_{};
};

/// A finite double as m * 2^e with m < 2^53 (sign apart).
struct Split {
  bool neg;
  std::uint64_t m;
  int e;
};
inline Split split(double v) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(v);
  const int be = static_cast<int>((b >> 52) & 0x7FF);
  const std::uint64_t f = b & ((std::uint64_t{1} << 52) - 1);
  if (be == 0) return {bool(b >> 63), f, -1074};
  return {bool(b >> 63), f | (std::uint64_t{1} << 52), be - 1075};
}

/// Adds a * b exactly (finite doubles).
inline void add_product(ExactSum& s, double a, double b) {
  const Split x = split(a), y = split(b);
  s.add(x.neg != y.neg, static_cast<u128_t>(x.m) * y.m, x.e + y.e);
}

/// Adds a exactly (a finite double).
inline void add_value(ExactSum& s, double a) {
  const Split x = split(a);
  s.add(x.neg, x.m, x.e);
}

}  // namespace softmx::detail
