// emulator/core/round_pack.hpp: the one generic unpack and round-and-pack algorithm (internal).
//
// Everything here is inline so that each kernel in convert.cpp, which passes constexpr
// descriptors, is the same algorithm with the format's constants folded in. The
// specification is docs/SEMANTICS.md; section numbers below refer to it.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format.hpp"
#include "softmx/value.hpp"

#if defined(__GNUC__)
#define SOFTMX_INLINE inline __attribute__((always_inline))
#else
#define SOFTMX_INLINE inline
#endif

namespace softmx::detail {

/// 128-bit unsigned arithmetic for StochasticB and C's carry tests (GCC and Clang; __extension__
/// keeps -Wpedantic quiet about the non-ISO type).
__extension__ using u128 = unsigned __int128;

constexpr std::uint64_t low_mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// ---------------------------------------------------------------------------------------------
// Unpacking a code into an exact value.

SOFTMX_INLINE Unpacked unpack_inline(const Format& f, std::uint64_t code) {
  Unpacked u;
  const int m = f.man_bits;
  std::uint64_t mag = code;
  switch (f.sign) {
    case SignEncoding::magnitude:
      u.sign = (code >> (f.width - 1)) & 1;
      mag = code & f.all_ones_magnitude();
      break;
    case SignEncoding::twos_complement:
      u.sign = (code >> (f.width - 1)) & 1;
      // 0x80 gives magnitude 0x80, which reads as 2.0 in the E1M6 view (SEMANTICS 1).
      mag = u.sign ? (~code + 1) & f.code_mask() : code;
      break;
    case SignEncoding::none:
      break;
  }
  if (f.nan_is_negative_zero() && u.sign && mag == 0) {  // fnuz, P3109 signed: the -0 code is the NaN
    u.cls = ValueClass::nan;
    u.nan_quiet = true;
    return u;
  }
  if (f.specials == Specials::extended) {  // P3109 extended: Inf and (unsigned) NaN at the top codes
    if (mag == f.inf_magnitude()) {
      u.cls = ValueClass::inf;
      return u;
    }
    if (mag == f.all_ones_magnitude()) {  // unsigned: the all-ones code is the NaN
      u.cls = ValueClass::nan;
      u.nan_quiet = true;
      return u;
    }
  }
  const std::uint64_t frac = mag & low_mask(m);
  const std::uint64_t expf = mag >> m;
  const std::uint64_t payload = m == 0 ? 0 : frac << (64 - m);
  if (f.specials == Specials::ieee && expf == low_mask(f.exp_bits)) {
    if (frac == 0) {
      u.cls = ValueClass::inf;
    } else {
      u.cls = ValueClass::nan;
      u.nan_quiet = (frac >> (m - 1)) & 1;
      u.nan_payload = payload;
    }
    return u;
  }
  if (f.specials == Specials::fn && mag == f.all_ones_magnitude()) {
    u.cls = ValueClass::nan;
    u.nan_quiet = true;
    u.nan_payload = payload;
    return u;
  }
  if (f.subnormals && expf == 0) {
    if (frac == 0) {
      u.cls = ValueClass::zero;
      return u;
    }
    const int lz = std::countl_zero(frac);
    u.cls = ValueClass::finite;
    u.sig = frac << lz;
    u.exp = f.emin() - m + (63 - lz);
    return u;
  }
  u.cls = ValueClass::finite;
  u.sig = ((std::uint64_t{1} << m) | frac) << (63 - m);
  u.exp = static_cast<std::int32_t>(expf) - f.bias;
  return u;
}

// ---------------------------------------------------------------------------------------------
// Packing.

/// Packs a sign and a magnitude code into a code (SEMANTICS 3). fnuz and P3109 signed formats
/// have no -0 (that code is their NaN): a zero of either sign packs as +0.
SOFTMX_INLINE std::uint64_t pack(const Format& f, bool sign, std::uint64_t mag) {
  switch (f.sign) {
    case SignEncoding::magnitude: {
      const bool s = f.nan_is_negative_zero() ? sign && mag != 0 : sign;
      return (std::uint64_t{s} << (f.width - 1)) | mag;
    }
    case SignEncoding::twos_complement: return sign ? (~mag + 1) & f.code_mask() : mag;
    case SignEncoding::none: break;
  }
  return mag;
}

/// Largest finite magnitude code for a result of this sign (int8 -2 policy, SEMANTICS 5.7).
SOFTMX_INLINE std::uint64_t max_magnitude(const Format& f, bool sign, const Dialect& d) {
  const bool minus2 = sign && f.sign == SignEncoding::twos_complement && d.int8_minus2;
  return f.max_finite_magnitude() + (minus2 ? 1 : 0);
}

/// A NaN of `f` (which has NaN) for a NaN or NaN-producing input of this sign and payload (the
/// source fraction, left-aligned), with the fraction rule `rule` (SEMANTICS 5.5). An fnuz format
/// has one NaN, the negative-zero code, whatever the rule.
SOFTMX_INLINE std::uint64_t nan_code_with(const Format& f, bool sign, std::uint64_t payload, NanPayload rule,
                                          const Dialect& d) {
  if (f.nan_is_negative_zero()) return std::uint64_t{1} << (f.width - 1);  // the one NaN: the -0 code
  const bool s = d.nan_sign == NanSign::negative || (d.nan_sign == NanSign::preserve && sign);
  std::uint64_t mag = f.all_ones_magnitude();  // fn and unsigned extended formats: their single NaN
  if (f.specials == Specials::ieee) {
    const int m = f.man_bits;
    const std::uint64_t quiet = std::uint64_t{1} << (m - 1);
    std::uint64_t frac = quiet;
    switch (rule) {
      case NanPayload::canonical: break;
      case NanPayload::preserve: frac |= payload >> (64 - m); break;
      case NanPayload::all_ones: frac = low_mask(m); break;
      case NanPayload::exact:  // the bits as they are; all zero would read as Inf
        if (const std::uint64_t kept = payload >> (64 - m); kept != 0) frac = kept;
        break;
      case NanPayload::signalling_one: frac = 1; break;
    }
    mag = (low_mask(f.exp_bits) << m) | frac;
  }
  return pack(f, s, mag);
}

/// nan_code_with the destination's own rule (nan_payload_for: nan_payload[f] for a named format,
/// the dialect's runtime rule otherwise).
SOFTMX_INLINE std::uint64_t nan_code(const Format& f, bool sign, std::uint64_t payload, const Dialect& d) {
  return nan_code_with(f, sign, payload, nan_payload_for(d, f), d);
}

/// What a NaN input of this sign and payload gives in f (SEMANTICS 5.5), with `flags` (invalid
/// for a signalling NaN): f's NaN, or in a format without NaN the dialect's nan_to_finite value,
/// always with invalid. The dialect's NaN-producing policies for unsigned and zero-less formats
/// (e8m0_negative, e8m0_zero, e8m0_below = nan) give the same (SEMANTICS 5.4).
SOFTMX_INLINE Result nan_result(const Format& f, bool sign, std::uint64_t payload, Flags flags, const Dialect& d) {
  if (f.has_nan()) return {nan_code(f, sign, payload, d), flags};
  switch (d.nan_to_finite) {
    case NanToFinite::positive_max: return {pack(f, false, max_magnitude(f, false, d)), flag::invalid};
    case NanToFinite::signed_max: return {pack(f, sign, max_magnitude(f, sign, d)), flag::invalid};
    case NanToFinite::positive_zero: return {pack(f, false, 0), flag::invalid};
    case NanToFinite::negative_zero: return {pack(f, true, 0), flag::invalid};
    case NanToFinite::flipped_zero: return {pack(f, !sign, 0), flag::invalid};
    case NanToFinite::signed_value: {
      // The dialect's value (finite, non-negative), rounded into f (rne, saturating) by the
      // out-of-line round_pack: a rare path.
      if (!(d.nan_finite_value > 0)) return {pack(f, sign, 0), flag::invalid};
      Unpacked v;
      v.cls = ValueClass::finite;
      v.sign = sign;
      v.exp = std::ilogb(d.nan_finite_value);
      v.sig = static_cast<std::uint64_t>(std::ldexp(d.nan_finite_value, 63 - v.exp));
      return {round_pack(f, v, Context{}, d).code, flag::invalid};
    }
    case NanToFinite::error: return {0, flag::invalid};
  }
  return {0, flag::invalid};
}

SOFTMX_INLINE std::uint64_t inf_code(const Format& f, bool sign) { return pack(f, sign, f.inf_magnitude()); }

/// What an overflow or an Inf gives where the rules ask for Inf and f has none: its NaN
/// (OFP8's e4m3, e8m0, fnuz), or with OverflowNoInf::max_finite (P3109's finite domain,
/// v4.0 4.7.5: SatNone sends X > Mhi and +Inf to Mhi) no NaN at all.
SOFTMX_INLINE bool no_inf_gives_nan(const Format& f, const Dialect& d) {
  return f.has_nan() && d.overflow_no_inf == OverflowNoInf::nan;
}

// ---------------------------------------------------------------------------------------------
// Rounding.

/// The rounding increment (0 or 1) for a truncated significand given the discarded fraction:
/// `frac` holds its leading 64 bits (bit 63 has weight 1/2 ulp) and `sticky` says whether any
/// bit below those is set (SEMANTICS 2). `code_odd` is the last bit of the truncated result's
/// code, which decides ties under rne and jamming under ro: for m > 0 it is the significand's
/// last bit, for e8m0 (m = 0) the exponent's. `ties_up` (e8m0_ties up) and `ties_down`
/// (nearest_ties toward_zero, SEMANTICS 5.8) replace the parity at an exact rne tie.
SOFTMX_INLINE std::uint64_t round_increment(Rounding mode, bool sign, bool code_odd, std::uint64_t frac,
                                            bool sticky, bool ties_up, bool ties_down, const Context& c) {
  // Written with & and | on bools, not && and ||: random data makes the half bit unpredictable,
  // and this way the compiler emits flag arithmetic instead of branches.
  constexpr std::uint64_t kHalf = std::uint64_t{1} << 63;
  const bool inexact = (frac != 0) | sticky;
  switch (mode) {
    case Rounding::rne: return (frac > kHalf) | ((frac == kHalf) & (sticky | ((code_odd | ties_up) & !ties_down)));
    case Rounding::rna: return frac >> 63;
    case Rounding::rz: return 0;
    case Rounding::ru: return inexact && !sign;
    case Rounding::rd: return inexact && sign;
    case Rounding::ro: return inexact && !code_odd;  // jam: make the code odd
    case Rounding::rs: {
      const unsigned r = std::clamp<unsigned>(c.rbits_width, 1, 64);
      const std::uint64_t R = c.rbits & low_mask(static_cast<int>(r));
      switch (c.stochastic) {
        case StochasticRule::a: break;
        case StochasticRule::b: {
          // P3109 StochasticB (v4.0 4.7.4): floor(v 2^(r+1)) + (2R + 1) >= 2^(r+1): r + 1 bits of
          // the fraction, R with an implicit half bit below it (r <= 63: Context::rbits_width).
          const unsigned rb = std::min(r, 63u);
          const u128 F = frac >> (63 - rb);
          return static_cast<std::uint64_t>((F + 2 * static_cast<u128>(R) + 1) >> (rb + 1));
        }
        case StochasticRule::c: {
          // P3109 StochasticC: RNITE(v 2^r) + R >= 2^r: the fraction rounded to r bits to nearest,
          // ties to even (the bits below r and the sticky decide), then the carry test (r <= 63).
          const unsigned rc = std::min(r, 63u);
          const std::uint64_t F0 = frac >> (64 - rc);
          const std::uint64_t rest = frac << rc;  // the bits below the first r, left-aligned
          const bool up = rest > kHalf || (rest == kHalf && (sticky || (F0 & 1)));
          return static_cast<std::uint64_t>((static_cast<u128>(F0) + (up ? 1 : 0) + R) >> rc);
        }
      }
      const std::uint64_t F = frac >> (64 - r);  // the first r discarded bits; the rest ignored
      if (r == 64) return F + R < F;             // carry out of 64 bits
      return (F + R) >> r;
    }
  }
  return 0;
}

/// Rounds the finite non-zero v (|v| = sig * 2^(exp-63), plus sticky) at quantum 2^q into
/// format f: returns the rounded integer significand N and whether the result is inexact.
struct Rounded {
  std::uint64_t n;
  bool inexact;
};
SOFTMX_INLINE Rounded round_at(const Format& f, const Unpacked& v, int q, bool ties_up, bool ties_down,
                               const Context& c) {
  // Bits of sig to discard: sig's bit 0 has weight 2^(exp-63), the kept LSB 2^q.
  const int dsh = q - (v.exp - 63);  // >= 64 - p >= 11 for every destination (p <= 53)
  std::uint64_t n0, frac;
  bool sticky = v.sticky;
  if (dsh == 63 - f.man_bits) {
    // The common case, a normal result (q = exp - m): constant shifts once inlined.
    n0 = v.sig >> (63 - f.man_bits);
    frac = v.sig << (f.man_bits + 1);
  } else if (dsh < 64) {
    n0 = v.sig >> dsh;
    frac = v.sig << (64 - dsh);
  } else if (dsh < 128) {
    n0 = 0;
    frac = v.sig >> (dsh - 64);
    if (dsh > 64) sticky |= (v.sig << (128 - dsh)) != 0;
  } else {
    n0 = 0;
    frac = 0;
    sticky = true;  // sig is non-zero
  }
  const bool inexact = frac != 0 || sticky;
  // The code's last bit: the packed code is (q + m + bias - 1) * 2^m + N (SEMANTICS 3), whose
  // first term is even unless m = 0.
  const bool code_odd = ((n0 + (f.man_bits == 0 ? static_cast<std::uint64_t>(q + f.bias - 1) : 0)) & 1) != 0;
  return {n0 + round_increment(c.rounding, v.sign, code_odd, frac, sticky, ties_up, ties_down, c), inexact};
}

/// Tininess (SEMANTICS 5.3) of the finite non-zero v for a floating destination, under the
/// rules that look at v alone: before_rounding, after_rounding. (after_bounded looks at the
/// delivered code, which round_pack_inline has; it never calls this for that rule.)
SOFTMX_INLINE bool is_tiny(const Format& f, const Unpacked& v, bool ties_up, bool ties_down, const Context& c) {
  const int emin = f.emin();
  if (v.exp == emin - 1 && c.tininess == Tininess::after_rounding) [[unlikely]] {
    // Tiny unless rounding to p bits with unbounded exponent range carries the value up to
    // 2^emin.
    const Rounded r = round_at(f, v, v.exp - f.man_bits, ties_up, ties_down, c);
    return (r.n >> (f.man_bits + 1)) == 0;
  }
  return v.exp < emin;
}

// ---------------------------------------------------------------------------------------------
// Round and pack.

SOFTMX_INLINE Result round_pack_inline(const Format& f, const Unpacked& in, const Context& c, const Dialect& d) {
  bool sign = in.sign;
  Flags extra = 0;

  // Unsigned destination (e8m0, ue4m3): negative non-zero values (SEMANTICS 5.4). P3109's rule
  // (saturate_zero) rounds a finite one first, below; its -Inf is decided here.
  bool negative_unsigned = false;
  if (!f.is_signed() && sign && (in.cls == ValueClass::finite || in.cls == ValueClass::inf)) {
    switch (d.e8m0_negative) {
      case E8m0Negative::saturate_zero:
        if (in.cls == ValueClass::inf) {
          if (c.saturation == Saturation::none) return nan_result(f, false, 0, flag::invalid, d);
          return {pack(f, false, 0), flag::invalid};
        }
        negative_unsigned = true;
        break;
      case E8m0Negative::nan: return nan_result(f, false, 0, flag::invalid, d);
      case E8m0Negative::min_if_satfinite:
        // ml_dtypes: kSaturate ? lowest() : quiet_NaN(), tested after its Inf test (-Inf: NaN).
        if (in.cls == ValueClass::inf || c.saturation == Saturation::none)
          return nan_result(f, false, 0, flag::invalid, d);
        return {pack(f, false, 0), Flags(flag::invalid | flag::inexact)};
      case E8m0Negative::magnitude: break;
    }
    if (!negative_unsigned) {
      sign = false;
      extra = flag::invalid;
    }
  }

  if (in.cls != ValueClass::finite) [[unlikely]] switch (in.cls) {
    case ValueClass::nan:
      return nan_result(f, in.sign, in.nan_payload, in.nan_quiet ? Flags{0} : flag::invalid, d);
    case ValueClass::inf: {  // SEMANTICS 5.6
      // satfinite_inf as_none, and propagate: saturation clamps finite overflow only, an Inf
      // converts as under none.
      if (c.saturation == Saturation::none || c.saturation == Saturation::propagate ||
          d.satfinite_inf == SatfiniteInf::as_none) {
        if (f.has_inf()) return {inf_code(f, sign), extra};
        if (no_inf_gives_nan(f, d)) return {nan_code(f, sign, 0, d), flag::invalid};
      }
      return {pack(f, sign, max_magnitude(f, sign, d)), flag::invalid};
    }
    case ValueClass::zero: {
      if (f.has_zero()) return {pack(f, sign && (d.zero_sign == ZeroSign::keep || !is_mx_element(f.id)), 0), 0};
      // No zero (e8m0): SEMANTICS 5.4.
      if (d.e8m0_zero == E8m0Zero::nan ||
          (d.e8m0_zero == E8m0Zero::min_if_satfinite && c.saturation == Saturation::none))
        return nan_result(f, false, 0, flag::invalid, d);
      return {pack(f, false, 0), flag::underflow | flag::inexact};
    }
    case ValueClass::finite: break;
  }

  const int m = f.man_bits;
  const int emin = f.emin();
  Unpacked v = in;
  v.sign = sign;
  // Powers of two only (e8m0: no fraction bits, no subnormals): the ties-up policy (SEMANTICS 5.4).
  const bool ties_up = m == 0 && !f.subnormals && d.e8m0_ties == E8m0Ties::up;
  // The MX element formats: the nearest_ties and zero_sign policies (SEMANTICS 5.8).
  const bool mx_element = is_mx_element(f.id);
  const bool ties_down = mx_element && d.nearest_ties == NearestTies::toward_zero;
  const bool zero_plus = mx_element && d.zero_sign == ZeroSign::positive;

  // P3109 (saturate_zero): a negative result other than zero is below Mlo = 0. SatNone gives NaN
  // except under TowardZero and TowardPositive (4.7.5 rules 42, 44); the others clamp to code 0.
  const auto negative_below_mlo = [&]() -> Result {
    if (c.saturation == Saturation::none && c.rounding != Rounding::rz && c.rounding != Rounding::ru)
      return nan_result(f, false, 0, flag::invalid, d);
    return {pack(f, false, 0), Flags(flag::invalid | flag::inexact)};
  };

  if (!f.subnormals && v.exp < emin) {
    // Below the smallest value of a format without zero or subnormals (e8m0): SEMANTICS 5.4.
    if (d.e8m0_below == E8m0Below::nan) return nan_result(f, false, 0, flag::invalid, d);
    // saturate_zero (P3109): clamp_min would deliver -2^emin, a non-zero negative (there is no
    // zero to round to), which is below Mlo.
    if (negative_unsigned) [[unlikely]] return negative_below_mlo();
    // after_bounded: the delivered code is the smallest value, 2^emin itself, which is not
    // below 2^emin (SEMANTICS 5.3).
    const bool tiny = c.tininess != Tininess::after_bounded && is_tiny(f, v, ties_up, ties_down, c);
    const Flags u = tiny ? flag::underflow : Flags{0};
    return {pack(f, sign, 0), Flags(u | flag::inexact | extra)};
  }

  // PyTorch's and ml_dtypes' E8M0 casts: every value in (2^-127, 2^-126) rounds up.
  Context cq = c;
  if (m == 0 && !f.subnormals && d.e8m0_lowest_binade_rounds_up && v.exp == emin &&
      (c.rounding == Rounding::rne || c.rounding == Rounding::rna))
    cq.rounding = Rounding::ru;

  const std::uint64_t max_mag = max_magnitude(f, sign, d);
  // An exponent above emax + 1 overflows whatever the rounding (even int8's -2 has exponent
  // emax + 1). Clamping it to emax + 2 keeps that verdict, since the packed code is then above
  // every finite code, and keeps the packing arithmetic below from overflowing.
  const int emax = static_cast<int>(f.max_finite_magnitude() >> m) - f.bias;
  v.exp = std::min(v.exp, emax + 2);
  const int q = (f.subnormals ? std::max(v.exp, emin) : v.exp) - m;
  const Rounded r = round_at(f, v, q, ties_up, ties_down, cq);
  const bool inexact = r.inexact;
  // SEMANTICS 3: the exponent field and the hidden bit add, so carries need no fix-up.
  const std::int64_t base = static_cast<std::int64_t>(q + m + f.bias - 1) * (std::int64_t{1} << m);
  const std::uint64_t mag = static_cast<std::uint64_t>(base + static_cast<std::int64_t>(r.n));

  // Only a rounded zero escapes: magnitude code 0 is zero where the format has a zero, and its
  // smallest value 2^emin (non-zero) where it has none (e8m0).
  if (negative_unsigned && (mag != 0 || !f.has_zero())) [[unlikely]] return negative_below_mlo();

  if (mag > max_mag) {  // SEMANTICS 4
    const Rounding mode = c.rounding;
    const bool toward_inf = mode == Rounding::rne || mode == Rounding::rna || mode == Rounding::rs ||
                            (mode == Rounding::ru && !sign) || (mode == Rounding::rd && sign) ||
                            (mode == Rounding::ro && d.ro_overflow == RoOverflow::odd_code && f.has_inf() &&
                             (f.inf_magnitude() & 1) != 0);
    const Flags fl = flag::overflow | flag::inexact | extra;
    if (c.saturation == Saturation::none && toward_inf) {
      if (f.has_inf()) return {inf_code(f, sign), fl};
      if (no_inf_gives_nan(f, d)) return {nan_code(f, sign, 0, d), fl};
    }
    return {pack(f, sign, max_mag), fl};
  }

  // Flags as arithmetic on bools (branch-free for the common case). after_bounded (SEMANTICS
  // 5.3): the delivered magnitude is below 2^emin, i.e. its exponent field is 0 (a zero or a
  // subnormal; without subnormals field 0 holds normal numbers, never below 2^emin).
  const bool underflow = !f.fixed_point && inexact &&
                         (c.tininess == Tininess::after_bounded ? f.subnormals && mag < (std::uint64_t{1} << m)
                                                                : is_tiny(f, v, ties_up, ties_down, c));
  const Flags fl = Flags(extra | (inexact ? flag::inexact : 0) | (underflow ? flag::underflow : 0));
  // A result of magnitude zero takes the zero_sign policy (SEMANTICS 5.8).
  return {pack(f, sign && (mag != 0 || !zero_plus), mag), fl};
}

/// convert = unpack, the source-side NaN policy, round_pack.
SOFTMX_INLINE Result convert_inline(const Format& src, const Format& dst, std::uint64_t bits, const Context& c,
                                    const Dialect& d) {
  Unpacked u = unpack_inline(src, bits);
  if (u.cls == ValueClass::nan) {
    // Source-side NaN policy (SEMANTICS 5.5): the NaN an implementation's widening path makes.
    if (const int ones = nan_canonical_ones_for(d, src); ones > 0) {
      u.sign = false;
      u.nan_payload = low_mask(ones) << (64 - ones);
    }
    // A conversion path with its own NaN fraction rule (nan_payload_paths): the destination has
    // NaN, so this is what round_pack's NaN case gives, with the path's rule.
    if (d.nan_payload_path_count > 0 && dst.specials == Specials::ieee && src.is_named() && dst.is_named())
      return {nan_code_with(dst, u.sign, u.nan_payload, nan_payload_for_path(d, src.id, dst.id), d),
              u.nan_quiet ? Flags{0} : flag::invalid};
  }
  return round_pack_inline(dst, u, c, d);
}

}  // namespace softmx::detail
