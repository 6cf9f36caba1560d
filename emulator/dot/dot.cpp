// emulator/dot/dot.cpp: Dot and DotGeneral with the exact and fp32-sequential models
// (docs/BLOCKS.md section 5).
#include "softmx/dot.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <stdexcept>
#include <string>

#include "dot/tensor_core_dot.hpp"
#include "dot/wide_accumulator.hpp"
#include "softmx/block.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx {
namespace {

using detail::WideAccumulator;
using detail::WiderAccumulator;

const Format& f32_format() { return format(FormatId::f32); }

/// The destination of one DotGeneral (dot.hpp DotDestination, checked): its format, and C as
/// an exact value (cls zero when there is no C; `present` tells the two apart, as the sign of
/// an exact zero sum needs).
struct Dest {
  const Format* to = nullptr;
  bool present = false;
  Unpacked c;               // zero, finite, Inf or NaN
  bool c_signalling = false;
};

/// DotGeneral's own destination: f32, no C.
Dest f32_dest() {
  Dest r;
  r.to = &f32_format();
  return r;
}

Dest dest_of(const DotDestination& d) {
  Dest r;
  r.to = &format(d.to);
  if (d.c) {
    r.present = true;
    r.c = unpack(*r.to, *d.c);
    r.c_signalling = r.c.cls == ValueClass::nan && !r.c.nan_quiet;
  }
  return r;
}

/// Adds the finite value u exactly to an accumulator (f32, f16 and bf16 values lie within
/// every accumulator's range: 2^-149 .. 2^128).
template <class Accumulator>
void add_value(Accumulator& acc, const Unpacked& u) {
  if (u.cls != ValueClass::finite) return;
  const int tz = std::countr_zero(u.sig);
  acc.add(u.sign, u.sig >> tz, u.exp - 63 + tz);
}


/// An element value as an exact small integer times a power of two (or a special).
struct Term {
  ValueClass cls = ValueClass::zero;
  bool sign = false;
  bool signalling = false;
  std::uint64_t mag = 0;  // odd (or 1): at most 8 bits for an element, 24 for an f32 scale
  int exp = 0;            // value = (-1)^sign * mag * 2^exp
};

/// The element format of a block: the named one, or the runtime descriptor it points at
/// (validate() checked that it is there).
const Format& element_of(const BlockRef& b) { return b.format == FormatId::runtime ? *b.element : format(b.format); }

Term element_term(const Format& f, std::uint64_t code) {
  const Unpacked u = unpack(f, code);
  Term t;
  t.cls = u.cls;
  t.sign = u.sign;
  t.signalling = u.cls == ValueClass::nan && !u.nan_quiet;
  if (u.cls == ValueClass::finite) {
    const int tz = std::countr_zero(u.sig);
    t.mag = u.sig >> tz;
    t.exp = u.exp - 63 + tz;
  }
  return t;
}

/// Whether a block's scale is E8M0 (no scale format, or E8M0's descriptor).
bool e8m0_scale(const BlockRef& b) { return !b.scale_format || b.scale_format->id == FormatId::e8m0; }

/// The block's scale as a Term: E8M0's 2^(code - 127) (code 0xFF: a NaN that raises nothing,
/// OCP MX 6.2), or the value of the code in the block's scale format (docs/BLOCKS.md 1.2; a
/// signalling NaN of an ieee scale format raises invalid as a signalling element does).
Term scale_term(const BlockRef& b) {
  if (e8m0_scale(b)) {
    Term t;
    if (b.scale == 0xFF) {
      t.cls = ValueClass::nan;
    } else {
      t.cls = ValueClass::finite;
      t.mag = 1;
      t.exp = static_cast<int>(b.scale) - 127;
    }
    return t;
  }
  return element_term(*b.scale_format, b.scale);
}

/// One term X_A * X_B * P^A_i * P^B_i as IEEE multiplications in the order
/// ((P^A_i * P^B_i) * X_A) * X_B: NaN (with `invalid` when a step made it from non-NaN operands,
/// Inf * 0, or an operand was a signalling NaN), Inf or zero with the XOR of the signs, or a
/// finite mag * 2^exp (mag below 2^64: two element significands of at most 8 bits and two scale
/// significands of at most 24, f32's). With E8M0 scales
/// (finite, positive, mag 1) this is the element product scaled by 2^(sa + sb).
struct Product {
  ValueClass cls = ValueClass::zero;
  bool sign = false, invalid = false;
  std::uint64_t mag = 0;
  int exp = 0;
};

Product times(const Product& p, const Term& y) {
  Product r;
  r.sign = p.sign != y.sign;
  r.invalid = p.invalid || (y.cls == ValueClass::nan && y.signalling);
  if (p.cls == ValueClass::nan || y.cls == ValueClass::nan) {
    r.cls = ValueClass::nan;
  } else if ((p.cls == ValueClass::inf && y.cls == ValueClass::zero) ||
             (p.cls == ValueClass::zero && y.cls == ValueClass::inf)) {
    r.cls = ValueClass::nan;
    r.invalid = true;
  } else if (p.cls == ValueClass::inf || y.cls == ValueClass::inf) {
    r.cls = ValueClass::inf;
  } else if (p.cls == ValueClass::zero || y.cls == ValueClass::zero) {
    r.cls = ValueClass::zero;
  } else {
    r.cls = ValueClass::finite;
    r.mag = p.mag * y.mag;
    r.exp = p.exp + y.exp;
  }
  return r;
}

Product term_product(const Term& x, const Term& y, const Term& sa, const Term& sb) {
  Product p;
  p.cls = x.cls;
  p.sign = x.sign;
  p.invalid = x.cls == ValueClass::nan && x.signalling;
  p.mag = x.mag;
  p.exp = x.exp;
  return times(times(times(p, y), sa), sb);
}

/// What the special inputs of a DotGeneral decide, if anything: NaN, +Inf or -Inf.
struct SpecialOutcome {
  bool nan = false, pos_inf = false, neg_inf = false;
  Flags flags = 0;
};

// Result of an infinite or NaN sum in the destination `to`, through round_pack so saturation
// applies as for any IEEE destination (SEMANTICS 5.5, 5.6).
Result special_result(const SpecialOutcome& s, const Context& out, const Format& to = f32_format()) {
  Unpacked u;
  if (s.nan || (s.pos_inf && s.neg_inf)) {
    u.cls = ValueClass::nan;
    u.nan_payload = std::uint64_t{1} << 63;  // the canonical quiet NaN
    Result r = round_pack(to, u, out, ocp_dialect());
    r.flags |= s.flags;
    if (s.pos_inf && s.neg_inf && !s.nan) r.flags |= flag::invalid;  // Inf - Inf
    return r;
  }
  u.cls = ValueClass::inf;
  u.sign = s.neg_inf;
  Result r = round_pack(to, u, out, ocp_dialect());
  r.flags |= s.flags;
  return r;
}

/// The special inputs of a DotGeneral with its addend: the products' (scan_specials), then C,
/// one more term: a NaN C makes NaN (invalid when signalling), an Inf C an Inf of its sign.
SpecialOutcome with_addend(SpecialOutcome s, const Dest& d) {
  if (d.c.cls == ValueClass::nan) {
    s.nan = true;
    if (d.c_signalling) s.flags |= flag::invalid;
  } else if (d.c.cls == ValueClass::inf) {
    (d.c.sign ? s.neg_inf : s.pos_inf) = true;
  }
  return s;
}

/// The weights of a block pair's products and their sum: the least significant bit of any
/// product is at least 2^lo, and a sum of `terms` products is below 2^hi.
std::pair<int, int> product_range(const BlockRef& a, const BlockRef& b, std::size_t terms) {
  const Format &fa = element_of(a), &fb = element_of(b);
  int lo = fa.emin() - fa.man_bits + fb.emin() - fb.man_bits, hi = element_emax(fa) + element_emax(fb) + 2;
  for (const BlockRef* blk : {&a, &b}) {
    if (e8m0_scale(*blk)) {
      lo -= 127;
      hi += 127;
    } else {
      lo += blk->scale_format->emin() - blk->scale_format->man_bits;
      hi += element_emax(*blk->scale_format) + 1;
    }
  }
  hi += static_cast<int>(std::bit_width(terms));
  return {lo, hi};
}

void validate(std::span<const BlockRef> a, std::span<const BlockRef> b) {
  if (a.empty() || a.size() != b.size())
    throw std::invalid_argument("dot: A has " + std::to_string(a.size()) + " blocks and B " + std::to_string(b.size()) +
                                "; they need the same number, at least one");
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (a[j].codes.empty() || a[j].codes.size() != b[j].codes.size())
      throw std::invalid_argument("dot: block pair " + std::to_string(j) + " has " + std::to_string(a[j].codes.size()) +
                                  " and " + std::to_string(b[j].codes.size()) + " elements; they need the same number");
    for (const BlockRef* blk : {&a[j], &b[j]}) {
      if (blk->format == FormatId::runtime) {
        if (!blk->element)
          throw std::invalid_argument("dot: block pair " + std::to_string(j) +
                                      ": a runtime element format needs its descriptor (BlockRef::element)");
        if (auto why = mx_element_reason(*blk->element)) throw std::invalid_argument("dot: " + *why);
      } else if (!is_mx_element(blk->format)) {
        throw std::invalid_argument("dot: " + std::string(format(blk->format).name) + " is not an MX element format");
      }
      const std::uint64_t mask = element_of(*blk).code_mask();
      std::uint8_t all = 0;  // the OR of the codes: above the mask when some code is
      for (std::uint8_t c : blk->codes) all |= c;
      if (all > mask)
        for (std::uint8_t c : blk->codes)
          if (c > mask)
            throw std::invalid_argument("dot: code " + std::to_string(c) + " is out of range for " +
                                        std::string(element_of(*blk).name));
    }
    for (const BlockRef* blk : {&a[j], &b[j]}) {
      if (e8m0_scale(*blk)) {
        if (blk->scale > 0xFF)
          throw std::invalid_argument("dot: block pair " + std::to_string(j) + ": scale code " +
                                      std::to_string(blk->scale) + " is out of range for e8m0 (0..255)");
        continue;
      }
      if (auto why = mx_scale_reason(*blk->scale_format)) throw std::invalid_argument("dot: " + *why);
      if (blk->scale > blk->scale_format->code_mask())
        throw std::invalid_argument("dot: block pair " + std::to_string(j) + ": scale code " +
                                    std::to_string(blk->scale) + " is out of range for " +
                                    std::string(blk->scale_format->name));
    }
    if (a[j].format == FormatId::runtime || b[j].format == FormatId::runtime || !e8m0_scale(a[j]) ||
        !e8m0_scale(b[j])) {
      // Every product (element values times the scales: E8M0's 2^-127..2^127, or the scale
      // format's range) must lie in the wider accumulator's range (wide_accumulator.hpp): the
      // named formats and every scale format with its default bias do, a runtime format with
      // a bias far from its default may not.
      const auto [lo, hi] = product_range(a[j], b[j], a.size() * a[j].codes.size());
      if (lo < WiderAccumulator::kLsbExp || hi > -WiderAccumulator::kLsbExp - 10)
        throw std::invalid_argument("dot: the products of " + std::string(element_of(a[j]).name) + " and " +
                                    std::string(element_of(b[j]).name) + " with their scales span 2^" +
                                    std::to_string(lo) + " to 2^" + std::to_string(hi) +
                                    ", beyond the exact accumulator's 2^" + std::to_string(WiderAccumulator::kLsbExp) +
                                    " to 2^" + std::to_string(-WiderAccumulator::kLsbExp - 10) +
                                    " (bias: choose one nearer the default)");
    }
  }
}

/// Whether every product of the block pairs fits the standard accumulator (2^-320 .. 2^430);
/// otherwise exact sums them in the wider one.
bool fits_wide_accumulator(std::span<const BlockRef> a, std::span<const BlockRef> b) {
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (a[j].format != FormatId::runtime && b[j].format != FormatId::runtime && e8m0_scale(a[j]) && e8m0_scale(b[j]))
      continue;
    const auto [lo, hi] = product_range(a[j], b[j], a.size() * a[j].codes.size());
    if (lo < WideAccumulator::kLsbExp || hi > 430) return false;
  }
  return true;
}

/// Scans the specials of all pairs: NaN scale or element, Inf elements, Inf * 0.
/// Scans the specials of all pairs: every term as term_product forms it (OCP 6.2: a NaN scale
/// makes every element of its block NaN; Inf * 0 is NaN; Inf terms of both signs make NaN in
/// special_result).
SpecialOutcome scan_specials(std::span<const BlockRef> a, std::span<const BlockRef> b) {
  SpecialOutcome s;
  for (std::size_t j = 0; j < a.size(); ++j) {
    const Term sa = scale_term(a[j]), sb = scale_term(b[j]);
    for (std::size_t i = 0; i < a[j].codes.size(); ++i) {
      const Term x = element_term(element_of(a[j]), a[j].codes[i]);
      const Term y = element_term(element_of(b[j]), b[j].codes[i]);
      const Product p = term_product(x, y, sa, sb);
      if (p.invalid) s.flags |= flag::invalid;
      if (p.cls == ValueClass::nan) s.nan = true;
      if (p.cls == ValueClass::inf) (p.sign ? s.neg_inf : s.pos_inf) = true;
    }
  }
  return s;
}

// Sign of an exact zero sum (BLOCKS.md 5), as IEEE 754 6.3 gives it for additions in any
// order: every term -0: -0; every term +0: +0; otherwise (mixed zeros, or non-zero terms that
// cancel) +0, or -0 under rd. The terms are the products and C when there is one.
Result zero_result(bool all_negative_zero, bool all_positive_zero, const Context& out,
                   const Format& to = f32_format()) {
  Unpacked z;
  z.sign = all_negative_zero || (!all_positive_zero && out.rounding == Rounding::rd);
  return round_pack(to, z, out, ocp_dialect());
}

/// Every code of an MX element format as an integer multiple of the format's quantum 2^q (q:
/// the exponent of its smallest non-zero magnitude): value(c) = fixed[c] * 2^q exactly, for
/// zeros and finite codes; special[c] marks NaN and Inf. |fixed[c]| < 2^bits.
struct FixedTable {
  int q = 0;
  int bits = 0;
  std::array<std::int64_t, 256> fixed{};
  std::array<bool, 256> special{};
};

FixedTable make_fixed_table(FormatId f) {
  FixedTable t;
  const std::uint64_t n = format(f).code_mask() + 1;
  t.q = 1 << 20;
  for (std::uint64_t c = 0; c < n; ++c) {
    const Term x = element_term(format(f), static_cast<std::uint8_t>(c));
    if (x.cls == ValueClass::finite) t.q = std::min(t.q, x.exp);
  }
  std::uint64_t largest = 0;
  for (std::uint64_t c = 0; c < n; ++c) {
    const Term x = element_term(format(f), static_cast<std::uint8_t>(c));
    t.special[c] = x.cls == ValueClass::nan || x.cls == ValueClass::inf;
    if (x.cls != ValueClass::finite) continue;
    const std::uint64_t m = x.mag << (x.exp - t.q);  // below 2^33 for every MX element format
    largest = std::max(largest, m);
    t.fixed[c] = x.sign ? -static_cast<std::int64_t>(m) : static_cast<std::int64_t>(m);
  }
  t.bits = static_cast<int>(std::bit_width(largest));
  return t;
}

/// The table of an MX element format, made once (immutable afterwards; C++ makes the first
/// use thread-safe).
const FixedTable& fixed_table(FormatId f) {
  static const std::array<FixedTable, kFormatCount> tables = [] {
    std::array<FixedTable, kFormatCount> r{};
    for (int i = 0; i < kFormatCount; ++i)
      if (is_mx_element(static_cast<FormatId>(i))) r[i] = make_fixed_table(static_cast<FormatId>(i));
    return r;
  }();
  return tables[static_cast<int>(f)];
}

__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

/// The sum of products of one block pair as an exact integer (in units of 2^(qa + qb)), or
/// false when a code is NaN or Inf. int64 arithmetic when no partial sum can reach 2^62 (every
/// pair of MX formats but the E5M2 ones at ordinary k), else 128-bit.
bool block_sum(const FixedTable& ta, const FixedTable& tb, std::span<const std::uint8_t> ca,
               std::span<const std::uint8_t> cb, i128& sum) {
  const std::size_t k = ca.size();
  bool special = false;
  if (ta.bits + tb.bits + static_cast<int>(std::bit_width(k)) <= 62) {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < k; ++i) {
      s += ta.fixed[ca[i]] * tb.fixed[cb[i]];
      special |= ta.special[ca[i]] | tb.special[cb[i]];
    }
    sum = s;
  } else {
    i128 s = 0;
    for (std::size_t i = 0; i < k; ++i) {
      s += static_cast<i128>(ta.fixed[ca[i]]) * tb.fixed[cb[i]];
      special |= ta.special[ca[i]] | tb.special[cb[i]];
    }
    sum = s;
  }
  return !special;
}

/// The exact model's fast form: each block pair's sum of products formed as one exact integer
/// (a table read and an integer multiply-add per element) and added to the wide accumulator
/// once per block. The same exact sum as the term-by-term form, so the same rounding and flags.
/// C (d.c, when finite) is one more term of the exact sum, rounded with it once into d.to.
/// nullopt where the term-by-term form decides: a NaN scale, a NaN or Inf code or C, or a sum
/// that is exactly zero (its sign follows the zero terms' signs).
std::optional<Result> exact_by_blocks(std::span<const BlockRef> a, std::span<const BlockRef> b, const Dest& d,
                                      const Context& out) {
  if (d.c.cls == ValueClass::nan || d.c.cls == ValueClass::inf) return std::nullopt;
  WideAccumulator acc;
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (a[j].scale == 0xFF || b[j].scale == 0xFF) return std::nullopt;
    // Other scale formats (values other than powers of two) take the term-by-term form.
    if (!e8m0_scale(a[j]) || !e8m0_scale(b[j])) return std::nullopt;
    // Runtime formats have no table (their integers may exceed 2^33): the term-by-term form.
    if (a[j].format == FormatId::runtime || b[j].format == FormatId::runtime) return std::nullopt;
    const FixedTable& ta = fixed_table(a[j].format);
    const FixedTable& tb = fixed_table(b[j].format);
    i128 sum;
    if (!block_sum(ta, tb, a[j].codes, b[j].codes, sum)) return std::nullopt;
    if (sum == 0) continue;
    const bool neg = sum < 0;
    const u128 m = neg ? -static_cast<u128>(sum) : static_cast<u128>(sum);
    const int exp = ta.q + tb.q + (static_cast<int>(a[j].scale) - 127) + (static_cast<int>(b[j].scale) - 127);
    acc.add(neg, static_cast<std::uint64_t>(m), exp);
    acc.add(neg, static_cast<std::uint64_t>(m >> 64), exp + 64);
  }
  add_value(acc, d.c);
  if (acc.is_zero()) return std::nullopt;
  return round_pack(*d.to, acc.to_unpacked(), out, ocp_dialect());
}

/// A model whose one computation, the static M::sum(a, b, dest, out), serves both entry points:
/// DotGeneral into f32 (f32_dest()) and into a DotDestination (dest_of()).
template <class M>
class SumModel : public AccumulationModel {
 public:
  Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context& out) const override {
    return M::sum(a, b, f32_dest(), out);
  }
  Result dot_general_to(std::span<const BlockRef> a, std::span<const BlockRef> b, const DotDestination& dst,
                        const Context& out) const override {
    return M::sum(a, b, dest_of(dst), out);
  }
};

class ExactModel final : public SumModel<ExactModel> {
 public:
  std::string_view name() const override { return "exact"; }

  static Result sum(std::span<const BlockRef> a, std::span<const BlockRef> b, const Dest& d, const Context& out) {
    if (const std::optional<Result> r = exact_by_blocks(a, b, d, out)) return *r;
    if (fits_wide_accumulator(a, b)) return term_by_term<WideAccumulator>(a, b, d, out);
    return term_by_term<WiderAccumulator>(a, b, d, out);
  }

  /// The exact sum formed term by term (every product added to the accumulator on its own,
  /// then C), with the special cases and the sign of an exact zero.
  template <class Accumulator>
  static Result term_by_term(std::span<const BlockRef> a, std::span<const BlockRef> b, const Dest& d,
                             const Context& out) {
    const SpecialOutcome s = with_addend(scan_specials(a, b), d);
    if (s.nan || s.pos_inf || s.neg_inf) return special_result(s, out, *d.to);
    Accumulator acc;
    // C is a term like the products, for the sign of an exact zero too (IEEE 754 6.3).
    bool all_negative_zero = true, all_positive_zero = true;
    if (d.present) {
      all_negative_zero = d.c.cls == ValueClass::zero && d.c.sign;
      all_positive_zero = d.c.cls == ValueClass::zero && !d.c.sign;
      add_value(acc, d.c);
    }
    for (std::size_t j = 0; j < a.size(); ++j) {
      const Term sa = scale_term(a[j]), sb = scale_term(b[j]);
      for (std::size_t i = 0; i < a[j].codes.size(); ++i) {
        const Term x = element_term(element_of(a[j]), a[j].codes[i]);
        const Term y = element_term(element_of(b[j]), b[j].codes[i]);
        const Product p = term_product(x, y, sa, sb);  // zero or finite: scan_specials found no other
        if (p.cls == ValueClass::zero) {
          all_negative_zero &= p.sign;
          all_positive_zero &= !p.sign;
          continue;
        }
        all_negative_zero = all_positive_zero = false;
        acc.add(p.sign, p.mag, p.exp);
      }
    }
    if (acc.is_zero()) return zero_result(all_negative_zero, all_positive_zero, out, *d.to);
    return round_pack(*d.to, acc.to_unpacked(), out, ocp_dialect());
  }
};

/// round_f32(x + y) for exact values x, y (zero, finite or Inf; no NaN), IEEE 754: zero
/// signs per 6.3, Inf - Inf is NaN with invalid.
Result add_f32(const Unpacked& x, const Unpacked& y, const Context& out) {
  if (x.cls == ValueClass::inf || y.cls == ValueClass::inf) {
    SpecialOutcome s;
    for (const Unpacked* v : {&x, &y})
      if (v->cls == ValueClass::inf) (v->sign ? s.neg_inf : s.pos_inf) = true;
    return special_result(s, out);
  }
  if (x.cls == ValueClass::zero && y.cls == ValueClass::zero) {
    Unpacked z;
    z.sign = (x.sign && y.sign) || (x.sign != y.sign && out.rounding == Rounding::rd);
    return round_pack(f32_format(), z, out, ocp_dialect());
  }
  WideAccumulator acc;
  for (const Unpacked* v : {&x, &y})
    if (v->cls == ValueClass::finite) {
      const int tz = std::countr_zero(v->sig);
      acc.add(v->sign, v->sig >> tz, v->exp - 63 + tz);
    }
  if (acc.is_zero()) return zero_result(false, false, out);  // non-zero operands that cancel
  return round_pack(f32_format(), acc.to_unpacked(), out, ocp_dialect());
}

/// s * X_A * X_B exactly for an f32 value s (zero, finite or Inf) and finite or zero scales:
/// the 128-bit product of the significands, cut to 64 bits with a sticky bit (the scales'
/// significands have at most 8 bits each, so the product has at most 80 significant bits).
Unpacked times_scales(Unpacked s, const Term& sa, const Term& sb) {
  s.sign = s.sign != (sa.sign != sb.sign);
  if (s.cls != ValueClass::finite) return s;
  if (sa.cls == ValueClass::zero || sb.cls == ValueClass::zero) {
    s.cls = ValueClass::zero;
    s.sig = 0;
    s.sticky = false;
    return s;
  }
  const u128 p = static_cast<u128>(s.sig) * (sa.mag * sb.mag);  // s.sig has bit 63 set
  const auto hi = static_cast<std::uint64_t>(p >> 64);
  const int shift = hi ? static_cast<int>(std::bit_width(hi)) : 0;  // bits above the low word
  s.sig = static_cast<std::uint64_t>(p >> shift);
  s.sticky = s.sticky || (shift && (static_cast<std::uint64_t>(p) << (64 - shift)) != 0);
  s.exp += sa.exp + sb.exp + shift;
  return s;
}

class Fp32SequentialModel final : public SumModel<Fp32SequentialModel> {
 public:
  std::string_view name() const override { return "fp32-sequential"; }

  /// BLOCKS.md 5's steps with the accumulator starting at C (+0 without one: the same result
  /// as C = +0), every step an f32 rounding under `out`; then, for an f16 or bf16 destination,
  /// acc rounded once more into it. C's NaN and Inf decide first, as the products' do.
  static Result sum(std::span<const BlockRef> a, std::span<const BlockRef> b, const Dest& d, const Context& out) {
    const SpecialOutcome s = with_addend(scan_specials(a, b), d);
    if (s.nan || s.pos_inf || s.neg_inf) return special_result(s, out, *d.to);
    const Format& f32 = f32_format();
    Flags flags = 0;
    // The accumulator's initial value: C (zero or finite here; an f16 or bf16 value is exact in
    // f32, so this is C itself), or +0.
    Unpacked acc = d.present ? d.c : Unpacked{};
    for (std::size_t j = 0; j < a.size(); ++j) {
      Unpacked sum;  // +0
      for (std::size_t i = 0; i < a[j].codes.size(); ++i) {
        const Term x = element_term(element_of(a[j]), a[j].codes[i]);
        const Term y = element_term(element_of(b[j]), b[j].codes[i]);
        Unpacked p;  // the product, exact in f32
        p.sign = x.sign != y.sign;
        if (x.cls == ValueClass::finite && y.cls == ValueClass::finite) {
          const std::uint64_t m = x.mag * y.mag;
          const int lz = std::countl_zero(m);
          p.cls = ValueClass::finite;
          p.sig = m << lz;
          p.exp = x.exp + y.exp + (63 - lz);
        }
        const Result r = add_f32(sum, p, out);
        flags |= r.flags;
        sum = unpack(f32, r.code);
      }
      // d_j = round_f32(s_j * X_A * X_B): the scale product applied exactly, one rounding (with
      // E8M0 scales, s_j * 2^(sa + sb)).
      const Term sa = scale_term(a[j]), sb = scale_term(b[j]);  // finite or zero: scan_specials saw to it
      if (sum.cls == ValueClass::inf && (sa.cls == ValueClass::zero || sb.cls == ValueClass::zero))
        return {special_result(SpecialOutcome{true, false, false, 0}, out, *d.to).code,
                static_cast<Flags>(flags | flag::invalid)};  // Inf * 0
      sum = times_scales(sum, sa, sb);
      const Result dj = round_pack(f32, sum, out, ocp_dialect());
      flags |= dj.flags;
      const Result r = add_f32(acc, unpack(f32, dj.code), out);
      flags |= r.flags;
      acc = unpack(f32, r.code);
      if (acc.cls == ValueClass::nan)  // +Inf + -Inf: nothing can change it
        return {special_result(SpecialOutcome{true, false, false, 0}, out, *d.to).code, flags};
    }
    // acc is an f32 value: into f32 this encodes it (no flags of its own, as before C and
    // f16 existed); into f16 or bf16 it is the last rounding, whose flags join the steps'.
    const Result r = round_pack(*d.to, acc, out, ocp_dialect());
    if (d.to->id == FormatId::f32) return {r.code, flags};
    return {r.code, static_cast<Flags>(flags | r.flags)};
  }
};

/// MXDOTP, an MX dot-product unit (github gamzeisl/cvfpu, fpnew_mxdotp_multi; docs/research/
/// mxdotp.md has its datapath with the RTL lines): one instruction sums W products exactly (W = 8
/// for 8-bit elements, 11 for e3m2 and e2m3, 16 for e2m1), scales the sum by 2^(sa + sb - 254),
/// adds C and rounds once into f32 or bf16 (the context's rounding; its flags are after-bounded,
/// give tininess after-bounded). As exact, specials included, except where the RTL returns C:
/// when C's alignment shift against the sum's anchor (2^-34 of the scaled sum) exceeds 70 (C
/// unchanged, inexact alone when some product is non-zero), or is below -24 with every product
/// zero or cancelled (C unchanged, no flags); and an exact zero is +0. A DotGeneral is the chain
/// a kernel issues: each pair in order, its elements W at a time, each instruction's D the next
/// one's C (the first's C: C, or +0). Elements: e4m3, e5m2, e3m2, e2m3, e2m1, and int8:bias=-5
/// (MXDOTPI reads INT8 codes as integers, not OCP's k/64). docs/BLOCKS.md 5.2.
class MxdotpModel final : public AccumulationModel {
 public:
  std::string_view name() const override { return "mxdotp"; }
  Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context& out) const override {
    return dot_general_to(a, b, DotDestination{}, out);
  }
  Result dot_general_to(std::span<const BlockRef> a, std::span<const BlockRef> b, const DotDestination& dst,
                        const Context& out) const override {
    if (dst.to != FormatId::f32 && dst.to != FormatId::bf16)
      throw std::invalid_argument("dot: mxdotp rounds into f32 or bf16 (FP32, FP16ALT), not " +
                                  std::string(format(dst.to).name));
    std::uint32_t acc = dst.c.value_or(0);
    Flags flags = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const std::size_t w = width(element_of(a[j])), k = a[j].codes.size();
      if (element_of(a[j]).name.view() != element_of(b[j]).name.view())
        throw std::invalid_argument("dot: mxdotp takes one element format for A and B");
      for (std::size_t i = 0; i < k; i += w) {
        BlockRef ga = a[j], gb = b[j];
        ga.codes = a[j].codes.subspan(i, std::min(w, k - i));
        gb.codes = b[j].codes.subspan(i, std::min(w, k - i));
        const Result r = instruction(ga, gb, format(dst.to), acc, out);
        acc = static_cast<std::uint32_t>(r.code);
        flags |= r.flags;
      }
    }
    return {acc, flags};
  }

 private:
  /// The products per instruction (fpnew_mxdotp_multi.sv: 64-bit lanes, FP6 with 2 more bits).
  static std::size_t width(const Format& f) {
    const std::string_view n = f.name;
    if (n == "e4m3" || n == "e5m2" || n == "int8:bias=-5") return 8;
    if (n == "e3m2" || n == "e2m3") return 11;
    if (n == "e2m1") return 16;
    throw std::invalid_argument("dot: mxdotp takes e4m3, e5m2, e3m2, e2m3, e2m1 and int8:bias=-5 (MXDOTPI's INT8, "
                                "codes read as integers), not " + std::string(n));
  }
  /// One instruction: D = C + the products of a and b (at most W), as the RTL rounds it.
  static Result instruction(const BlockRef& a, const BlockRef& b, const Format& to, std::uint32_t c,
                            const Context& out) {
    Dest d;
    d.to = &to;
    d.present = true;
    d.c = unpack(to, c);
    d.c_signalling = d.c.cls == ValueClass::nan && !d.c.nan_quiet;
    const SpecialOutcome s = with_addend(scan_specials(std::span(&a, 1), std::span(&b, 1)), d);
    if (s.nan || s.pos_inf || s.neg_inf) return special_result(s, out, to);  // special_cases
    WideAccumulator sum;
    const Term sa = scale_term(a), sb = scale_term(b);
    for (std::size_t i = 0; i < a.codes.size(); ++i) {
      const Product p = term_product(element_term(element_of(a), a.codes[i]), element_term(element_of(b), b.codes[i]), sa, sb);
      if (p.cls == ValueClass::finite) sum.add(p.sign, p.mag, p.exp);
    }
    const bool sop = !sum.is_zero();
    // accumulator_shift: ANCHOR - 23 - scale + C's exponent field (+1 when subnormal) - 127.
    const int scale = static_cast<int>(a.scale) + static_cast<int>(b.scale) - 254;
    const int field = d.c.cls == ValueClass::zero ? 0 : std::max(d.c.exp + 127, 1);
    const int shift = 34 - 23 - scale + field - 127;
    if (shift > 70) return {c, sop ? flag::inexact : Flags{0}};  // MAX_ACC_SHIFT_AMOUNT: the bypass
    if (shift < -24 && !sop) return {c, 0};                        // right shift past 24, SoP zero
    add_value(sum, d.c);
    return round_pack(to, sum.is_zero() ? Unpacked{} : sum.to_unpacked(), out, ocp_dialect());  // zero: +0
  }
};

const ExactModel kExact;
const Fp32SequentialModel kFp32Sequential;
const MxdotpModel kMxdotp;

}  // namespace

const AccumulationModel& exact_accumulation() { return kExact; }
const AccumulationModel& fp32_sequential_accumulation() { return kFp32Sequential; }

std::span<const AccumulationModel* const> accumulation_models() {
  static const std::vector<const AccumulationModel*> models = [] {
    std::vector<const AccumulationModel*> m{&kExact, &kFp32Sequential, &kMxdotp};
    for (const TensorCoreModel* t : tensor_core_models()) m.push_back(t);
    return m;
  }();
  return models;
}

const AccumulationModel* find_accumulation_model(std::string_view name) {
  if (name == kExact.name()) return &kExact;
  if (name == kFp32Sequential.name() || name == "fp32_sequential") return &kFp32Sequential;
  if (name == kMxdotp.name()) return &kMxdotp;
  return find_tensor_core_model(name);  // hopper-fp8-mma, hopper-fp8-wgmma (tensor_core.hpp)
}

Result AccumulationModel::dot_general_to(std::span<const BlockRef> a, std::span<const BlockRef> b,
                                        const DotDestination& dst, const Context& out) const {
  // The tensor-core models: their class (tensor_core.hpp) overrides dot_general() only; their
  // C and accumulators are reached here (tensor_core_dot.hpp).
  if (const auto* tc = dynamic_cast<const TensorCoreModel*>(this))
    return detail::tensor_core_dot_general(*tc, a, b, FormatId::e8m0, dst.to, dst.c);
  if (dst.to == FormatId::f32 && !dst.c) return dot_general(a, b, out);
  throw std::invalid_argument("dot: the accumulation model " + std::string(name()) + " defines no " +
                              (dst.c ? std::string("addend C") : std::string(format(dst.to).name) + " destination") +
                              " (exact and fp32-sequential define every destination with C)");
}

namespace {

/// The checks of dot_general() shared by both forms: the blocks (validate), and the models
/// other than exact and fp32-sequential reading named elements and E8M0 scales.
void check_blocks(std::span<const BlockRef> a, std::span<const BlockRef> b, const AccumulationModel& model) {
  validate(a, b);
  if (&model != &kExact && &model != &kFp32Sequential)
    for (std::size_t j = 0; j < a.size(); ++j) {
      if ((a[j].format == FormatId::runtime || b[j].format == FormatId::runtime) && &model != &kMxdotp)
        throw std::invalid_argument("dot: the accumulation model " + std::string(model.name()) +
                                    " models hardware for the named element formats; a runtime element (" +
                                    std::string(element_of(a[j].format == FormatId::runtime ? a[j] : b[j]).name) +
                                    ") takes exact or fp32-sequential");
      if (!e8m0_scale(a[j]) || !e8m0_scale(b[j]))
        throw std::invalid_argument("dot: the accumulation model " + std::string(model.name()) +
                                    " reads E8M0 block scales here; scale format " +
                                    std::string((e8m0_scale(a[j]) ? b[j] : a[j]).scale_format->name) +
                                    " takes exact or fp32-sequential (UE4M3 under blackwell-mxf4 and -nvf4: gemm, "
                                    "dot_pairs)");
    }
}

}  // namespace

Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context& out,
                   const AccumulationModel& model) {
  check_blocks(a, b, model);
  // The result is an f32: by_destination resolves to none there (IEEE overflow, SEMANTICS 4.1),
  // once, so every model sees finite or none.
  return model.dot_general(a, b, resolve(ocp_dialect(), FormatId::f32, out));
}

Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const DotDestination& dst,
                   const Context& out, const AccumulationModel& model) {
  check_blocks(a, b, model);
  if (dst.to != FormatId::f32 && dst.to != FormatId::f16 && dst.to != FormatId::bf16)
    throw std::invalid_argument("dot: the destination is f32, f16 or bf16, not " + std::string(format(dst.to).name));
  if (dst.c && *dst.c > format(dst.to).code_mask())
    throw std::invalid_argument("dot: C = " + std::to_string(*dst.c) + " is not a code of " +
                                std::string(format(dst.to).name) + " (0.." + std::to_string(format(dst.to).code_mask()) +
                                ")");
  // by_destination resolves to none into f32, f16 and bf16 alike (SEMANTICS 4.1).
  const Context ctx = resolve(ocp_dialect(), dst.to, out);
  // No addend into f32 is DotGeneral itself: the model's own dot_general(), so that a model
  // that defines nothing more is served, and every result is as before.
  if (dst.to == FormatId::f32 && !dst.c) return model.dot_general(a, b, ctx);
  return model.dot_general_to(a, b, dst, ctx);
}

Result dot(const BlockRef& a, const BlockRef& b, const Context& out, const AccumulationModel& model) {
  return dot_general(std::span(&a, 1), std::span(&b, 1), out, model);
}

Result dot(const BlockRef& a, const BlockRef& b, const DotDestination& dst, const Context& out,
           const AccumulationModel& model) {
  return dot_general(std::span(&a, 1), std::span(&b, 1), dst, out, model);
}

}  // namespace softmx
