// emulator/explain.cpp: see explain.hpp.
#include "softmx/explain.hpp"

#include <cstdio>

#include "softmx/describe.hpp"

namespace softmx {
namespace {

std::string pow2_text(long e) { return "2^" + std::to_string(e); }

/// The value a magnitude code would have if the format's binade pattern continued past its
/// largest finite code (e4m3 0x7F -> 480, e5m2 0x7C -> 65536, e8m0 0xFF -> 2^128).
Rational virtual_value(const Format& f, std::uint64_t mag) {
  const std::uint64_t e = mag >> f.man_bits;
  const std::uint64_t frac = mag & ((std::uint64_t{1} << f.man_bits) - 1);
  if (f.subnormals && e == 0) return dyadic(BigInt(frac), f.emin() - f.man_bits);
  return dyadic(BigInt((std::uint64_t{1} << f.man_bits) | frac), static_cast<long>(e) - f.bias - f.man_bits);
}

std::uint64_t inf_code(const Format& f) { return f.inf_magnitude(); }

/// "7E = 448  [+F.6]": a code with its value and TestFloat's decomposition.
std::string code_text(const Format& f, std::uint64_t code) {
  return hex(code, f.hex_digits()) + " = " + value_text(f, code) + "  [" + testfloat_text(f, code) + "]";
}

/// A distance in ulps for a phrase: exact when short ("0.25"), else about six digits ("~5.87747e-39").
std::string ulps_text(const Rational& r) {
  std::string s = to_decimal(r);
  if (s.size() <= 12) return s;
  char buf[32];
  std::snprintf(buf, sizeof buf, "~%.6g", r.convert_to<double>());
  return buf;
}

enum class Direction : std::uint8_t { none, toward_zero, away };

/// What a rounding mode alone does with an inexact magnitude between nb.lo and nb.hi, and the
/// phrase saying why. `negative`: the input is negative (in a signed destination).
struct Expectation {
  Direction dir = Direction::none;
  std::string why;
};

Expectation expected_direction(const Neighbours& nb, const Format& dst, Rounding mode, bool negative, const Dialect& d) {
  const std::string lo_hex = hex(nb.lo, dst.hex_digits()), hi_hex = hex(nb.hi, dst.hex_digits());
  // The E8M0 policies that change where rne and rna go (SEMANTICS 5.4).
  if (dst.id == FormatId::e8m0 && (mode == Rounding::rne || mode == Rounding::rna)) {
    if (d.e8m0_lowest_binade_rounds_up && nb.lo == 0)
      return {Direction::away, "dialect " + std::string(d.name) +
                                   " rounds every value between 2^-127 and 2^-126 up (e8m0_lowest_binade_rounds_up)"};
    if (mode == Rounding::rne && d.e8m0_ties == E8m0Ties::up && nb.tie())
      return {Direction::away, "a tie (exactly halfway), and dialect " + std::string(d.name) +
                                   " rounds E8M0 ties up (e8m0_ties = up)"};
  }
  auto nearest = [&](Direction tie_dir, const std::string& tie_why) -> Expectation {
    if (nb.beyond) return {Direction::away, "the input lies beyond " + hi_hex + ", so it is nearer to it"};
    if (nb.tie()) return {tie_dir, "a tie (exactly halfway), and " + tie_why};
    const bool lo_nearer = *nb.d_lo < *nb.d_hi;
    return {lo_nearer ? Direction::toward_zero : Direction::away,
            "the nearer neighbour, at " + ulps_text(lo_nearer ? *nb.d_lo : *nb.d_hi) + " ulp against " +
                ulps_text(lo_nearer ? *nb.d_hi : *nb.d_lo)};
  };
  const Direction even = (nb.lo & 1) == 0 ? Direction::toward_zero : Direction::away;
  const Direction odd = even == Direction::toward_zero ? Direction::away : Direction::toward_zero;
  switch (mode) {
    case Rounding::rne:
      if (is_mx_element(dst.id) && d.nearest_ties == NearestTies::toward_zero)  // SEMANTICS 5.8
        return nearest(Direction::toward_zero, "dialect " + std::string(d.name) +
                                                   " takes the smaller magnitude (nearest_ties = toward_zero)");
      return nearest(even, "rne takes the even code of " + lo_hex + " and " + hi_hex);
    case Rounding::rna: return nearest(Direction::away, "rna rounds ties away from zero");
    case Rounding::rz: return {Direction::toward_zero, "rz rounds toward zero"};
    case Rounding::ru:
      return {negative ? Direction::toward_zero : Direction::away,
              std::string("ru rounds toward +inf, ") + (negative ? "toward" : "away from") + " zero for a " +
                  (negative ? "negative" : "positive") + " input"};
    case Rounding::rd:
      return {negative ? Direction::away : Direction::toward_zero,
              std::string("rd rounds toward -inf, ") + (negative ? "away from" : "toward") + " zero for a " +
                  (negative ? "negative" : "positive") + " input"};
    case Rounding::ro: return {odd, "ro takes the neighbour whose last bit is odd, of " + lo_hex + " and " + hi_hex};
    case Rounding::rs: break;
  }
  return {Direction::none, "stochastic rounding, decided by the random bits"};
}

std::string dialect_phrase(const Dialect& d) { return "dialect " + std::string(d.name); }

// Why a NaN input gives r.
std::string nan_reason(const ExplainInput& in, const Format& dst, const Dialect& d, const Unpacked& out) {
  std::string s = "the input is NaN";
  if (in.from && nan_canonical_ones_for(d, *in.from) > 0)
    s += "; " + dialect_phrase(d) + " first replaces every NaN input by the positive quiet NaN (as its widening path does)";
  if (out.cls == ValueClass::nan)
    return s + "; it stays NaN (" + dialect_phrase(d) + ": NaN sign " + std::string(name(d.nan_sign)) + ")";
  if (!dst.has_nan())
    return s + " and " + std::string(dst.name) + " has no NaN: " + dialect_phrase(d) + " gives nan_to_finite = " +
           std::string(name(d.nan_to_finite));
  return s + ": " + dialect_phrase(d) + "'s own NaN policy gives a number (softmx dialects lists its policies)";
}

// Why an Inf input gives r.
std::string inf_reason(const Format& dst, const Context& ctx, const Dialect& d, const Unpacked& out, std::uint64_t mag) {
  const std::string dn(dst.name);
  if (out.cls == ValueClass::inf) return "the input is Inf and " + dn + " has Inf";
  if (out.cls == ValueClass::nan) return "the input is Inf and " + dn + " has no Inf: saturation none gives NaN";
  if (mag == dst.max_finite_magnitude()) {
    if (ctx.saturation == Saturation::finite) return "the input is Inf: saturation finite gives the largest finite value";
    if (!dst.has_nan()) return "the input is Inf and " + dn + " has neither Inf nor NaN: the largest finite value";
  }
  return "the input is Inf: " + dialect_phrase(d) + "'s own policy (softmx dialects lists its policies)";
}

// Why a zero input gives r.
std::string zero_reason(const Format& dst, const Dialect& d, const Unpacked& out) {
  if (out.cls == ValueClass::zero) return "zero stays zero";
  if (dst.id == FormatId::e8m0)
    return "the input is zero and e8m0 has no zero: " + dialect_phrase(d) + " gives e8m0_zero = " +
           std::string(name(d.e8m0_zero));
  return "the input is zero: " + dialect_phrase(d) + "'s own policy (softmx dialects lists its policies)";
}

// Why a finite non-zero input gives r.
std::string finite_reason(const ExplainInput& in, const Neighbours& nb, const Format& dst, const Context& ctx,
                          const Dialect& d, const Result& r, const Unpacked& out) {
  std::string prefix;
  const std::string code = hex(r.code, dst.hex_digits());
  if (in.u.sign && !dst.is_signed()) {
    if (out.cls == ValueClass::nan)
      return "the input is negative and " + std::string(dst.name) + " has no sign: " + dialect_phrase(d) +
             " gives NaN (e8m0_negative = " + std::string(name(d.e8m0_negative)) + ")";
    if (d.e8m0_negative == E8m0Negative::min_if_satfinite)  // ml_dtypes' kSaturate ? lowest() : NaN
      return "the input is negative and " + std::string(dst.name) + " has no sign: " + dialect_phrase(d) +
             " gives its lowest value " + code + " under saturation finite (e8m0_negative = min_if_satfinite)";
    prefix = "the input is negative and " + std::string(dst.name) + " has no sign: " + dialect_phrase(d) +
             " takes its magnitude (e8m0_negative = " + std::string(name(d.e8m0_negative)) + "); ";
  }
  const std::string own = dialect_phrase(d) + "'s own policy (softmx dialects lists its policies)";
  const bool finite_out = out.cls == ValueClass::finite || out.cls == ValueClass::zero;
  const std::uint64_t mag = finite_out ? magnitude_code(dst, r.code) : 0;
  switch (nb.kind) {
    case Neighbours::Kind::special: break;
    case Neighbours::Kind::below_min:
      return prefix + "below " + std::string(dst.name) + "'s smallest value " + value_text(dst, 0) + ": " +
             dialect_phrase(d) + " gives e8m0_below = " + std::string(name(d.e8m0_below));
    case Neighbours::Kind::exact:
      if (finite_out && mag == nb.lo) return prefix + "exact: the input is representable";
      return prefix + "the input is representable, yet the result is " + code + ": " + own;
    case Neighbours::Kind::between: {
      const bool negative = in.u.sign && dst.is_signed();
      const Expectation want = expected_direction(nb, dst, ctx.rounding, negative, d);
      const Direction got = !finite_out         ? Direction::none
                            : mag == nb.lo      ? Direction::toward_zero
                            : mag == nb.hi      ? Direction::away
                                                : Direction::none;
      if (got != Direction::none && got == want.dir)
        return prefix + "rounded " + (got == Direction::away ? "away from" : "toward") + " zero to " + code + ": " +
               want.why;
      const bool overflows = want.dir == Direction::away && (!nb.hi_finite || nb.beyond);
      if (overflows && got == Direction::toward_zero && mag == dst.max_finite_magnitude() &&
          ctx.saturation == Saturation::finite)
        return prefix + "rounding away from zero (" + want.why + ") overflows: saturation finite gives the largest finite value";
      if (overflows && !finite_out)
        return prefix + "rounding away from zero (" + want.why + ") overflows: saturation none gives " +
               (out.cls == ValueClass::inf ? "Inf" : "NaN");
      if (want.dir == Direction::none)
        return prefix + "rounded " + (got == Direction::away ? "away from zero" : "toward zero") + " to " + code + ": " +
               want.why;
      return prefix + "gives " + code + " where " + std::string(name(ctx.rounding)) + " alone rounds " +
             (want.dir == Direction::away ? "away from" : "toward") + " zero (" + want.why + "): " + own;
    }
  }
  return prefix + own;
}

}  // namespace

ExplainInput explain_input_code(const Format& src, std::uint64_t code) {
  ExplainInput in;
  in.from = src;
  in.code = code;
  in.u = unpack(src, code);
  in.exact = in.u.cls == ValueClass::nan ? ExactValue{ValueClass::nan, in.u.sign, in.u.nan_quiet, {}} : from_unpacked(in.u);
  in.label = std::string(src.name) + " " + hex(code, src.hex_digits());
  return in;
}

ExplainInput explain_input_text(const std::string& text) {
  std::string err;
  auto v = parse_exact(text, &err);
  if (!v) throw InputError("VALUE " + quote(text) + ": " + err);
  ExplainInput in;
  in.exact = *v;
  in.u = to_unpacked(*v);
  in.label = text + " (decimal, taken exactly)";
  return in;
}

std::uint64_t magnitude_code(const Format& dst, std::uint64_t code) {
  switch (dst.sign) {
    case SignEncoding::magnitude: return code & dst.all_ones_magnitude();
    case SignEncoding::twos_complement: {
      const bool neg = (code >> (dst.width - 1)) & 1;
      return neg ? ((~code + 1) & dst.code_mask()) : code;
    }
    case SignEncoding::none: break;
  }
  return code;
}

Neighbours find_neighbours(const ExplainInput& in, const Format& dst) {
  Neighbours nb;
  if (in.u.cls != ValueClass::finite) return nb;
  const Rational x = in.exact.magnitude;
  if (!dst.has_zero() && x < virtual_value(dst, 0)) {
    nb.kind = Neighbours::Kind::below_min;
    return nb;
  }
  Unpacked mag = in.u;
  mag.sign = false;
  Context rz;
  rz.rounding = Rounding::rz;
  rz.saturation = Saturation::finite;
  nb.lo = round_pack(dst, mag, rz, ocp_dialect()).code;
  const Rational lo_v = virtual_value(dst, nb.lo);
  if (lo_v == x) {
    nb.kind = Neighbours::Kind::exact;
    nb.frac_ulps = Rational(0);
    return nb;
  }
  nb.kind = Neighbours::Kind::between;
  nb.hi = nb.lo + 1;
  nb.hi_finite = nb.hi <= dst.max_finite_magnitude();
  const Rational hi_v = virtual_value(dst, nb.hi);
  if (x > hi_v) {
    nb.beyond = true;
    return nb;
  }
  const Rational gap = hi_v - lo_v;
  nb.d_lo = (x - lo_v) / gap;
  nb.d_hi = (hi_v - x) / gap;
  nb.frac_ulps = nb.d_lo;
  return nb;
}

std::string describe_format(const Format& f) {
  std::string s = std::string(f.name) + ": ";
  if (f.sign == SignEncoding::twos_complement) {
    s += "8-bit two's complement with an implicit 2^-" + std::to_string(f.man_bits) + " (MXINT8)";
  } else {
    s += f.sign == SignEncoding::magnitude ? "sign, " : "no sign, ";
    s += std::to_string(f.exp_bits) + "-bit exponent (bias " + std::to_string(f.bias) + "), " +
         std::to_string(f.man_bits) + "-bit fraction";
  }
  const std::uint64_t maxc = f.max_finite_magnitude();
  s += "; max finite " + value_text(f, maxc) + " (" + hex(maxc, f.hex_digits()) + ")";
  if (f.fixed_point) {
    s += "; step " + pow2_text(-f.man_bits) + "; 80 decodes as -2";
  } else {
    s += "; min normal " + pow2_text(f.emin());
    if (f.subnormals) s += ", min subnormal " + pow2_text(f.emin() - f.man_bits);
  }
  if (!f.has_zero()) s += "; no zero";
  if (f.has_inf()) s += "; Inf " + hex(inf_code(f), f.hex_digits());
  else if (f.sign != SignEncoding::none || f.has_nan()) s += "; no Inf";
  if (f.specials == Specials::fn || (f.specials == Specials::extended && f.sign == SignEncoding::none))
    s += "; NaN " + hex(f.all_ones_magnitude(), f.hex_digits());
  if (f.nan_is_negative_zero()) s += "; NaN " + hex(std::uint64_t{1} << (f.width - 1), f.hex_digits()) + " (the -0 code)";
  if (f.specials == Specials::ieee) s += "; NaN exponent all ones, fraction non-zero";
  if (!f.has_nan()) s += "; no NaN";
  return s;
}

std::string input_text(const ExplainInput& in, const Format& dst) {
  std::string s = "input        " + in.label + "\n";
  s += "  exact      " + to_string(in.exact, 60) + "\n";
  if (in.code) {
    const Format& src = format(*in.from);
    s += "  fields     " + fields_text(src, *in.code) + "   [" + testfloat_text(src, *in.code) + "]\n";
  }
  if (in.u.cls == ValueClass::finite) {
    s += "  binary     " + binary_text(in.u, dst.man_bits) + "\n";
    s += "  hex float  " + hexfloat_text(in.u) + "\n";
  }
  return s;
}

std::string neighbours_text(const ExplainInput& in, const Neighbours& nb, const Format& dst) {
  if (nb.kind == Neighbours::Kind::special) return "neighbours   none: the input is " + to_string(in.exact) + "\n";
  const std::string dn(dst.name);
  const int digits = dst.hex_digits();
  std::string s;
  if (in.u.sign && !dst.is_signed())
    s = "neighbours   (the input is negative and " + dn + " has no sign; the magnitude's neighbours follow)\n";
  else if (in.u.sign)
    s = "neighbours   (of the magnitude; the input is negative)\n";
  else
    s = "neighbours\n";
  switch (nb.kind) {
    case Neighbours::Kind::special: break;
    case Neighbours::Kind::below_min:
      s += "  toward 0   none: " + dn + " has no zero and nothing below " + value_text(dst, 0) + "\n";
      s += "  away       " + hex(0, digits) + " = " + value_text(dst, 0) + "\n";
      break;
    case Neighbours::Kind::exact:
      s += "  exact      " + code_text(dst, nb.lo) + ": representable, every mode gives it\n";
      break;
    case Neighbours::Kind::between: {
      s += "  toward 0   " + code_text(dst, nb.lo) + "\n";
      const Rational lo_v = virtual_value(dst, nb.lo), hi_v = virtual_value(dst, nb.hi);
      if (nb.hi_finite)
        s += "  away       " + code_text(dst, nb.hi) + "\n";
      else
        s += "  away       none: " + hex(nb.hi, digits) + " would be " + to_decimal(hi_v) + ", beyond max finite " +
             value_text(dst, dst.max_finite_magnitude()) + " (overflow)\n";
      const Rational gap = hi_v - lo_v;
      if (nb.beyond) {
        s += "  spacing    " + to_decimal(gap) + "; the input lies beyond even that: it overflows in every mode that rounds up\n";
      } else {
        s += "  spacing    1 ulp = " + to_decimal(gap) + "\n";
        s += "  distance   " + to_decimal(*nb.d_lo) + " ulp from " + hex(nb.lo, digits) + ", " + to_decimal(*nb.d_hi) +
             " ulp from " + hex(nb.hi, digits) + ": " +
             (nb.tie() ? "a TIE (exactly halfway)" : (*nb.d_lo < *nb.d_hi ? "nearer toward zero" : "nearer away from zero")) +
             "\n";
      }
      break;
    }
  }
  return s;
}

std::string rounding_reason(const ExplainInput& in, const Neighbours& nb, const Format& dst, const Context& ctx,
                            const Dialect& dialect, const Result& r) {
  const Unpacked out = unpack(dst, r.code);
  switch (in.u.cls) {
    case ValueClass::nan: return nan_reason(in, dst, dialect, out);
    case ValueClass::inf:
      return inf_reason(dst, ctx, dialect, out, out.cls == ValueClass::finite ? magnitude_code(dst, r.code) : 0);
    case ValueClass::zero: return zero_reason(dst, dialect, out);
    case ValueClass::finite: break;
  }
  return finite_reason(in, nb, dst, ctx, dialect, r, out);
}

}  // namespace softmx
