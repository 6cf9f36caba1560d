// emulator/block/f32_arith.hpp: IEEE f32 multiply and divide on exact values (internal).
//
// For reproducing implementations that compute in f32 (TransformerEngine's NVFP4 scales,
// torchao's RCEIL): each operation is formed exactly and rounded once with rne, without the
// host's floating-point unit (so no dependence on its rounding mode or flush-to-zero).
#pragma once

#include <bit>
#include <cstdint>

#include "softmx/convert.hpp"

namespace softmx::detail {

__extension__ using u128 = unsigned __int128;

inline Context f32_rne() {
  Context c;
  c.saturation = Saturation::none;
  return c;
}

/// round_f32(x) of an exact value, read back exactly.
inline Unpacked round_f32(const Unpacked& x) {
  const Format& f = format(FormatId::f32);
  return unpack(f, round_pack(f, x, f32_rne(), ocp_dialect()).code);
}

inline Unpacked f32_value(float x) { return unpack(format(FormatId::f32), std::bit_cast<std::uint32_t>(x)); }
inline float to_float(const Unpacked& x) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(round_pack(format(FormatId::f32), x, f32_rne(), ocp_dialect()).code));
}

inline Unpacked nan_value() {
  Unpacked n;
  n.cls = ValueClass::nan;
  n.nan_payload = std::uint64_t{1} << 63;
  return n;
}

/// a * b exactly, for finite non-zero a and b: the 128-bit product of the significands, its top
/// 64 bits and a sticky bit for the rest (and for either operand's own sticky), so that one
/// rounding of the result into any format of at most 63 significant bits is the correct one.
inline Unpacked exact_product(const Unpacked& a, const Unpacked& b) {
  const u128 p = static_cast<u128>(a.sig) * b.sig;  // in [2^126, 2^128)
  const bool carry = static_cast<std::uint64_t>(p >> 127) != 0;
  Unpacked r;
  r.cls = ValueClass::finite;
  r.sign = a.sign != b.sign;
  r.sig = static_cast<std::uint64_t>(p >> (carry ? 64 : 63));
  // The bits below the 64 kept: all of the low word, or its low 63 bits.
  const std::uint64_t low = static_cast<std::uint64_t>(p);
  r.sticky = (carry ? low != 0 : (low << 1) != 0) || a.sticky || b.sticky;
  r.exp = a.exp + b.exp + (carry ? 1 : 0);
  return r;
}

/// a / b for finite non-zero a and b: 64 significant bits of the quotient and a sticky bit for
/// every bit below them (and for either operand's sticky), so that one rounding of the result
/// into any format of at most 63 significant bits is the correct rounding of the exact quotient.
inline Unpacked exact_quotient(const Unpacked& a, const Unpacked& b) {
  // (a.sig << 64) / b.sig in [2^63, 2^65): a.sig and b.sig in [2^63, 2^64).
  const u128 num = static_cast<u128>(a.sig) << 64;
  const u128 q = num / b.sig;
  const bool rem = num % b.sig != 0 || a.sticky || b.sticky;
  const bool big = static_cast<std::uint64_t>(q >> 64) != 0;  // quotient >= 2^64
  Unpacked r;
  r.cls = ValueClass::finite;
  r.sign = a.sign != b.sign;
  r.sig = static_cast<std::uint64_t>(q >> (big ? 1 : 0));
  r.sticky = rem || (big && (q & 1));
  r.exp = a.exp - b.exp - (big ? 0 : 1);
  return r;
}

/// round_f32(a * b), IEEE special cases included.
inline Unpacked mul_f32(const Unpacked& a, const Unpacked& b) {
  const bool sign = a.sign != b.sign;
  if (a.cls == ValueClass::nan || b.cls == ValueClass::nan) return nan_value();
  if (a.cls == ValueClass::inf || b.cls == ValueClass::inf) {
    if (a.cls == ValueClass::zero || b.cls == ValueClass::zero) return nan_value();
    Unpacked r;
    r.cls = ValueClass::inf;
    r.sign = sign;
    return r;
  }
  if (a.cls == ValueClass::zero || b.cls == ValueClass::zero) {
    Unpacked z;
    z.sign = sign;
    return z;
  }
  return round_f32(exact_product(a, b));
}

/// round_f32(a / b), IEEE special cases included (x / 0 is +-Inf, 0 / 0 NaN).
inline Unpacked div_f32(const Unpacked& a, const Unpacked& b) {
  const bool sign = a.sign != b.sign;
  if (a.cls == ValueClass::nan || b.cls == ValueClass::nan) return nan_value();
  if (a.cls == ValueClass::inf) {
    if (b.cls == ValueClass::inf) return nan_value();
    Unpacked r;
    r.cls = ValueClass::inf;
    r.sign = sign;
    return r;
  }
  if (b.cls == ValueClass::inf || a.cls == ValueClass::zero) {
    if (b.cls == ValueClass::zero) return nan_value();  // 0 / 0
    Unpacked z;
    z.sign = sign;
    return z;
  }
  if (b.cls == ValueClass::zero) {
    Unpacked r;
    r.cls = ValueClass::inf;
    r.sign = sign;
    return r;
  }
  return round_f32(exact_quotient(a, b));
}

}  // namespace softmx::detail
