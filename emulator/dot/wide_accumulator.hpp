// emulator/dot/wide_accumulator.hpp: an exact fixed-point accumulator for dot products
// (internal).
//
// 12 64-bit limbs in two's complement; bit 0 weighs 2^kLsbExp = 2^-320 and the top bit
// 2^447. Every term of an MX dot product lies inside that range: element products weigh at
// least 2^-32 (e5m2 times e5m2 subnormals) and scale products at least 2^-254, so the least
// significant bit of any term is 2^-286 or above; the largest term is below 2^(254 + 32),
// leaving more than 2^100 terms of headroom. f32 values (2^-149 .. 2^128) fit too.
// BasicWideAccumulator<limbs, lsb> is the same with another range: DotGeneral uses a wider one
// for terms whose scales are not E8M0 (f32 scales reach 2^-149 each).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "softmx/value.hpp"

namespace softmx::detail {

template <int Limbs, int LsbExp>
class BasicWideAccumulator {
 public:
  static constexpr int kLimbs = Limbs;
  static constexpr int kLsbExp = LsbExp;

  void clear() { limb_.fill(0); }

  /// Adds (-1)^neg * mag * 2^exp. Preconditions: exp >= kLsbExp, and mag * 2^exp < 2^440.
  void add(bool neg, std::uint64_t mag, int exp) {
    if (mag == 0) return;
    const int pos = exp - kLsbExp;
    const int li = pos / 64, sh = pos % 64;
    // The term spans limbs li and li+1 (mag < 2^64 shifted by sh < 64).
    std::uint64_t lo = mag << sh;
    std::uint64_t hi = sh ? mag >> (64 - sh) : 0;
    if (!neg) {
      add_at(li, lo, hi);
    } else {
      // Subtract: add the two's complement of the term (all limbs above get all ones).
      sub_at(li, lo, hi);
    }
  }

  bool is_zero() const {
    for (std::uint64_t l : limb_)
      if (l) return false;
    return true;
  }

  /// The exact value as an Unpacked (64 leading bits plus sticky). Zero gives a +0 Unpacked;
  /// the caller decides the sign of an exact zero.
  Unpacked to_unpacked() const {
    Unpacked u;
    std::array<std::uint64_t, kLimbs> m = limb_;
    const bool neg = m[kLimbs - 1] >> 63;
    if (neg) {  // magnitude = -m
      bool carry = true;
      for (auto& l : m) {
        l = ~l + (carry ? 1 : 0);
        carry = carry && l == 0;
      }
    }
    int top = kLimbs - 1;
    while (top >= 0 && m[top] == 0) --top;
    if (top < 0) return u;  // zero
    const int lz = std::countl_zero(m[top]);
    const int msb = top * 64 + (63 - lz);  // bit index of the leading one
    // Gather the 64 bits from msb down.
    std::uint64_t sig = m[top] << lz;
    if (lz && top > 0) sig |= m[top - 1] >> (64 - lz);
    bool sticky = top > 0 && (lz ? (m[top - 1] << lz) != 0 : m[top - 1] != 0);
    for (int i = top - 2; i >= 0 && !sticky; --i) sticky = m[i] != 0;
    u.cls = ValueClass::finite;
    u.sign = neg;
    u.sig = sig;
    u.exp = msb + kLsbExp;
    u.sticky = sticky;
    return u;
  }

 private:
  void add_at(int li, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t before = limb_[li];
    limb_[li] += lo;
    std::uint64_t carry = limb_[li] < before;
    int i = li + 1;
    if (i < kLimbs) {
      before = limb_[i];
      limb_[i] += hi + carry;
      carry = (limb_[i] < before) || (carry && limb_[i] == before);
      for (++i; carry && i < kLimbs; ++i) carry = ++limb_[i] == 0;
    }
  }
  void sub_at(int li, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t before = limb_[li];
    limb_[li] -= lo;
    std::uint64_t borrow = limb_[li] > before;
    int i = li + 1;
    if (i < kLimbs) {
      before = limb_[i];
      limb_[i] -= hi + borrow;
      borrow = (limb_[i] > before) || (borrow && limb_[i] == before);
      for (++i; borrow && i < kLimbs; ++i) borrow = limb_[i]-- == 0;
    }
  }

  std::array<std::uint64_t, kLimbs> limb_{};
};

/// Bit 0 weighs 2^-320, the top bit 2^447.
using WideAccumulator = BasicWideAccumulator<12, -320>;
/// Bit 0 weighs 2^-1280, the top bit 2^1279: any product of two elements of at most 8 bits and
/// two scales of at most 32 bits (exponent fields of at most 8 bits) with bounded biases.
using WiderAccumulator = BasicWideAccumulator<40, -1280>;

}  // namespace softmx::detail
