// emulator/simd/round_pack_lanes.hpp: round_pack_inline (core/round_pack.hpp) written for N lanes:
// round_pack_lanes, the destination it packs into (DstTraits) and the Plan's values as lanes
// (LanePlan) (internal; included through simd/lanes.hpp, which says what SOFTMX_SIMD_NS and
// SOFTMX_SIMD_LANES mean).
//
// The lane algorithm (SEMANTICS 2-5; read round_pack_inline beside it). A source code
// sign | exponent e | fraction (f32, f16, bf16; descriptor fields from the Plan) becomes
//   sig = (fraction | implicit bit) << (23 - m_src)     a 24-bit significand, bit 23 = 2^E
//   E   = max(e, 1) - bias_src
// so |x| = sig * 2^(E - 23). With Plan::normalize the significand is shifted so that bit 23 is
// its leading one (through an exact int -> float conversion) and E adjusted; without it, a
// source subnormal keeps E = emin_src, which make_plan allows only when emin_src <= emin - 2 so
// that quantum and tininess come out the same. The result's quantum is 2^(max(E, emin) - m):
//   sh   = min(23 - m + max(emin - E, 0), 25)           bits of sig below the quantum
//   n    = (sig + r) >> sh,  r the mode's addend below the quantum (round_pack_lanes)
// (sh = 25 puts all of sig, < 2^24, below half a quantum: the same verdict as any larger sh for
// every deterministic mode). The packed magnitude is base + n with
//   base = (max(E, emin) + bias - 1) << m
// (the exponent field and the hidden bit add, as in round_pack_inline).
//
// The destination is a template argument D: a named format (D = its FormatId), whose descriptor
// fields are compile-time constants (DstTraits<D>), or a runtime format (D = runtime_dst(...),
// which fixes only its sign encoding and storage type), whose fields the same code reads from
// the LanePlan at run time. One algorithm serves both; `if constexpr` only drops operations a
// named format's constants make unnecessary.
//
// Lanes decided by a class (zeros, infinities, NaNs, E8M0 negatives under the nan policy) take
// the Plan's precomputed result. Lanes handed to the scalar kernel: a NaN whose payload
// reaches the result (!nan_by_class); under tininess after rounding, a value in the binade
// just below 2^emin that rounds up to the smallest normal (only rounding to full precision can
// tell whether it is tiny); an E8M0 value at or below 2^-127 (its own rules, SEMANTICS 5.4).
// All are rare; a batch of them costs the scalar time.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/format_table.hpp"
#include "simd/lane_ops.hpp"
#include "simd/plan.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// A runtime destination's template argument: its sign encoding and whether codes are stored
/// in 16 bits (else 8); everything else is read from the LanePlan.
inline constexpr int kRuntimeDst = 64;
constexpr int runtime_dst(SignEncoding sign, bool wide) { return kRuntimeDst + 2 * static_cast<int>(sign) + (wide ? 1 : 0); }

/// What the lane code knows about destination D at compile time, and its fields: constants for
/// a named format, the LanePlan's values for a runtime one (D >= kRuntimeDst).
template <int D, bool Runtime = (D >= kRuntimeDst)>
struct DstTraits {
  static constexpr Format f = detail::kFormats[D];
  static constexpr bool runtime = false;
  static constexpr bool no_subnormals = !f.subnormals;  ///< E8M0: no zero, no subnormals
  static constexpr bool unsigned_dst = f.sign == SignEncoding::none;
  static constexpr bool twos = f.sign == SignEncoding::twos_complement;
  static constexpr bool wide = f.width > 8;
  static constexpr bool fixed_point = f.fixed_point;
  template <class Pl> static constexpr int m(const Pl&) { return f.man_bits; }
  template <class Pl> static constexpr int emin(const Pl&) { return f.emin(); }
  template <class Pl> static constexpr int bias(const Pl&) { return f.bias; }
  template <class Pl> static constexpr int width(const Pl&) { return f.width; }
  /// Underflow may be raised (not fixed point).
  template <class Pl> static constexpr bool underflows(const Pl&) { return true; }
};
template <int D>
struct DstTraits<D, true> {
  static constexpr int shape = D - kRuntimeDst;
  static constexpr SignEncoding sign = static_cast<SignEncoding>(shape / 2);
  static constexpr bool runtime = true;
  static constexpr bool no_subnormals = false;  // read at run time: LanePlan::emin_q, emin_fallback
  static constexpr bool unsigned_dst = sign == SignEncoding::none;
  static constexpr bool twos = sign == SignEncoding::twos_complement;
  static constexpr bool wide = (shape & 1) != 0;
  static constexpr bool fixed_point = false;  // read at run time: LanePlan::underflows
  template <class Pl> static int m(const Pl& p) { return p.m; }
  template <class Pl> static int emin(const Pl& p) { return p.emin; }
  template <class Pl> static int bias(const Pl& p) { return p.bias; }
  template <class Pl> static int width(const Pl& p) { return p.width; }
  template <class Pl> static bool underflows(const Pl& p) { return p.underflows; }
};
template <int D>
using OutOf = std::conditional_t<DstTraits<D>::wide, std::uint16_t, std::uint8_t>;

/// Finite non-zero values sign * sig * 2^(E - 23) rounded and packed into destination D (a
/// FormatId as int, whose descriptor fields are constants, or runtime_dst(...), whose fields
/// come from `p`). `sgn` is 0 or 1 per lane; `extra` is ORed into the flags. Sets `code`,
/// `flags` (when F) and ORs into `fallback` the lanes the scalar kernel must decide (when F:
/// only flags can need it). `Pl` holds the dialect's values (LanePlan below), read into
/// registers once per batch. NoEdge: the caller knows no lane has E == emin - 1 (the only
/// binade where tininess after rounding needs the full-precision rounding), which drops that test.
template <int D, Rounding R, bool F, class Pl, bool NoEdge = false>
SOFTMX_LANES_INLINE void round_pack_lanes(const Pl& p, u32v sgn, u32v sig, i32v E, u32v extra, u32v& code,
                                          u32v& flags, i32v& fallback) {
  using T = DstTraits<D>;
  const int m = T::m(p);
  const int emin = T::emin(p);
  // The exponent below which the quantum stops following E: emin, or (no subnormals) none.
  const int emin_q = T::runtime ? p.emin_q : emin;
  constexpr bool e8m0 = T::no_subnormals;
  const u32v one = splat(1);
  const i32v ex = e8m0 ? E : maxi(E, splat_i(emin_q));
  const i32v sh = e8m0 ? splat_i(23 - m) : mini(maxi(splat_i(emin_q + 23 - m) - E, splat_i(23 - m)), splat_i(25));
  const u32v shu = reinterpret_cast<u32v>(sh);
  const u32v n0 = sig >> shu;  // the significand truncated to the quantum
  const u32v unit = one << shu;
  const u32v half = unit >> 1;
  const u32v base = reinterpret_cast<u32v>((ex + (T::bias(p) - 1)) << m);
  // Rounding adds a mode-dependent amount below the quantum before truncating: half - 1 plus
  // the last bit (rne), half (rna), unit - 1 toward the sign's infinity (ru, rd). A carry out of
  // the significand reaches the exponent field through base + n, as in round_pack_inline.
  u32v n;
  if constexpr (R == Rounding::rne) {
    // The code's last bit decides ties; base is even unless m = 0 (E8M0), when ties may go up.
    const u32v odd = (m == 0 ? base + n0 : n0) & one;
    const u32v tie = (e8m0 || T::runtime) ? (odd | (reinterpret_cast<u32v>(p.ties_up) & one)) : odd;
    n = (sig + (half - one) + tie) >> shu;
  } else if constexpr (R == Rounding::rna) {
    n = (sig + half) >> shu;
  } else if constexpr (R == Rounding::rz) {
    n = n0;
  } else if constexpr (R == Rounding::ru) {
    n = sgn == 0 ? (sig + (unit - one)) >> shu : n0;
  } else if constexpr (R == Rounding::rd) {
    n = sgn != 0 ? (sig + (unit - one)) >> shu : n0;
  } else {  // ro: jam a one into an even truncated code when inexact
    const i32v inexact = (sig & (unit - one)) != 0;
    const u32v even = ((m == 0 ? base + n0 : n0) & one) ^ one;
    n = inexact ? n0 + even : n0;
  }
  const u32v mag = base + n;
  const i32v neg = reinterpret_cast<i32v>(sgn) != 0;
  // The two's complement -2 (0x80) is the only sign-dependent largest magnitude.
  const i32v ovf = T::twos ? mag > sel(neg, p.max_mag1, p.max_mag0) : mag > p.max_mag0;

  u32v packed;
  if constexpr (T::twos) {
    packed = sel(neg, (-mag) & splat((1u << T::width(p)) - 1), mag);
  } else if constexpr (T::unsigned_dst) {
    packed = mag;
  } else if constexpr (T::runtime) {
    // fnuz has no -0 (that code is its NaN): a zero result is +0 (not_fnuz: all ones otherwise).
    packed = ((sgn & reinterpret_cast<u32v>((mag != 0) | p.not_fnuz)) << (T::width(p) - 1)) | mag;
  } else {
    packed = (sgn << (T::width(p) - 1)) | mag;
  }
  code = sel(ovf, sel(neg, p.ovf1, p.ovf0), packed);

  if constexpr (e8m0) {
    fallback |= E <= splat_i(emin);  // SEMANTICS 5.4's rules at and below 2^-127
  } else if constexpr (T::runtime) {
    // The same for a runtime format without subnormals. (Scalar tests of LanePlan fields are
    // loop-invariant: the compiler unswitches the loop or predicts them.)
    if (p.emin_fallback != p.kFarBelow) fallback |= E <= splat_i(p.emin_fallback);
  }
  if constexpr (F) {
    const i32v inexact = (sig & (unit - one)) != 0;
    u32v fl = extra | bit(inexact);  // flag::inexact is bit 0
    if constexpr (!e8m0 && !T::fixed_point) {
      if (T::underflows(p)) {  // false only for a runtime fixed-point format
        if (p.tiny_bounded) {
          // Tininess::after_bounded: the delivered magnitude is a zero or a subnormal (field 0);
          // tiny_mag is 2^m, or 0 for a runtime format without subnormals (field 0 is normal).
          // Overflowing lanes take the overflow flags below.
          const u32v tiny_mag = T::runtime ? splat(p.tiny_mag) : splat(1u << m);
          fl |= bit((mag < tiny_mag) & inexact) << 1;  // flag::underflow is bit 1
        } else if constexpr (NoEdge) {
          // Tininess is the same for every lane here: inexact lanes get x, or x and u.
          const i32v tiny = E < splat_i(p.tiny_after ? emin - 1 : emin);
          const u32v inexact_flags = sel(tiny, splat(flag::inexact | flag::underflow), splat(flag::inexact));
          fl = extra | sel(inexact, inexact_flags, splat(0));
        } else {
          const i32v below = E == splat_i(emin - 1);
          const i32v tiny = p.tiny_after ? (E < splat_i(emin - 1)) | (below & (mag < splat(1u << m)))
                                         : E < splat_i(emin);
          fl |= bit(tiny & inexact) << 1;  // flag::underflow is bit 1
          // Just below 2^emin and rounded up to it: tiny or not depends on rounding to full
          // precision, which the scalar kernel does.
          if (p.tiny_after) fallback |= below & (mag >= splat(1u << m)) & inexact;
        }
      }
    }
    flags = sel(ovf, extra | splat(flag::overflow | flag::inexact), fl);
  }
}

/// The Plan's per-dialect values as lane vectors and plain locals, made once per batch so that
/// the loop keeps them in registers.
struct LanePlan {
  u32v max_mag0, max_mag1, ovf0, ovf1;
  i32v ties_up;
  bool tiny_after, tiny_bounded;
  std::uint32_t tiny_mag;  ///< after_bounded: magnitude codes below it are tiny (runtime destinations)
  // A runtime destination's fields (DstTraits<runtime_dst(...)> reads them; named kernels do not).
  int m, emin, bias, width;
  int emin_q;         ///< emin, or far below every E without subnormals (the quantum follows E)
  int emin_fallback;  ///< without subnormals emin (SEMANTICS 5.4: lanes at or below it go scalar), else far below
  bool underflows;    ///< false for fixed point (underflow never raised)
  i32v not_fnuz;      ///< all ones unless fnuz (zero results drop their sign)
  explicit LanePlan(const Plan& p)
      : max_mag0(splat(p.max_mag[0])),
        max_mag1(splat(p.max_mag[1])),
        ovf0(splat(p.ovf_code[0])),
        ovf1(splat(p.ovf_code[1])),
        ties_up(splat_i(p.ties_up ? -1 : 0)),
        tiny_after(p.tiny_after),
        tiny_bounded(p.tiny_bounded),
        tiny_mag(p.rt.subnormals ? std::uint32_t{1} << p.rt.man_bits : 0),
        m(p.rt.man_bits),
        emin(p.rt.emin),
        bias(p.rt.bias),
        width(p.rt.width),
        emin_q(p.rt.subnormals ? p.rt.emin : kFarBelow),
        emin_fallback(p.rt.subnormals ? kFarBelow : p.rt.emin),
        underflows(!p.rt.fixed_point),
        not_fnuz(splat_i(p.rt.fnuz ? 0 : -1)) {}
  static constexpr int kFarBelow = -(1 << 20);
};

}  // namespace softmx::simd::SOFTMX_SIMD_NS
