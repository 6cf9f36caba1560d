// conformance/oracles/dot_oracle.cpp: see dot_oracle.hpp.
#include "oracles/dot_oracle.hpp"

#include "support/mpfr_value.hpp"

namespace softmx::oracle {
namespace {

constexpr mpfr_prec_t kWide = 2048;  // every term of an MX dot lies within 2^-300 .. 2^400

using Mp = conformance::MpfrValue<kWide>;  // .x is the number

constexpr uint8_t kInvalid = 0x10;

bool signalling_e5m2(Fmt f, uint8_t code) {
  // e5m2 is the only ieee-encoded element format: NaN with the fraction's top bit clear.
  return f == Fmt::e5m2 && is_nan_code(f, code) && !((code >> 1) & 1);
}

// Specials of the whole DotGeneral, decided before any arithmetic: NaN (and whether invalid),
// +Inf, -Inf.
struct Specials {
  bool nan = false, pos = false, neg = false, invalid = false;
};

// The canonical quiet NaN of each destination (positive, only the quiet bit).
uint64_t quiet_nan_code(Fmt to) {
  switch (to) {
    case Fmt::f16: return 0x7E00;
    case Fmt::bf16: return 0x7FC0;
    default: return 0x7FC00000;
  }
}

// Whether code c of the IEEE destination (f32, f16, bf16) is a NaN, and a signalling one
// (quiet bit, the fraction's top bit, clear), from the field widths alone.
void ieee_nan(Fmt to, uint64_t c, bool& nan, bool& signalling) {
  const int m = to == Fmt::f32 ? 23 : to == Fmt::f16 ? 10 : 7, e = to == Fmt::f16 ? 5 : 8;
  const uint64_t ef = (c >> m) & ((uint64_t{1} << e) - 1), frac = c & ((uint64_t{1} << m) - 1);
  nan = ef == (uint64_t{1} << e) - 1 && frac != 0;
  signalling = nan && !((frac >> (m - 1)) & 1);
}

Specials scan(const std::vector<OBlock>& a, const std::vector<OBlock>& b, const OAddend* d = nullptr) {
  Specials s;
  if (d && d->present) {  // C: a NaN (signalling: invalid) or an Inf of its sign
    bool nan, sig;
    ieee_nan(d->to, d->c, nan, sig);
    if (nan) {
      s.nan = true;
      s.invalid |= sig;
    } else {
      Mp c(64);
      decode(d->to, d->c, c.x);
      if (mpfr_inf_p(c.x)) (mpfr_signbit(c.x) ? s.neg : s.pos) = true;
    }
  }
  Mp x(64), y(64);
  for (size_t j = 0; j < a.size(); ++j) {
    if (a[j].scale == 0xFF || b[j].scale == 0xFF) s.nan = true;
    for (size_t i = 0; i < a[j].codes.size(); ++i) {
      const bool xn = !decode(a[j].fmt, a[j].codes[i], x.x), yn = !decode(b[j].fmt, b[j].codes[i], y.x);
      if (xn || yn) {
        s.nan = true;
        if ((xn && signalling_e5m2(a[j].fmt, a[j].codes[i])) || (yn && signalling_e5m2(b[j].fmt, b[j].codes[i])))
          s.invalid = true;
        continue;
      }
      if (!mpfr_inf_p(x.x) && !mpfr_inf_p(y.x)) continue;
      if (mpfr_zero_p(x.x) || mpfr_zero_p(y.x)) {
        s.nan = s.invalid = true;
        continue;
      }
      ((mpfr_signbit(x.x) != 0) != (mpfr_signbit(y.x) != 0) ? s.neg : s.pos) = true;
    }
  }
  if (s.pos && s.neg && !s.nan) s.nan = s.invalid = true;  // Inf - Inf
  return s;
}

AllOutcomes special_outcomes(const Specials& s, Fmt to = Fmt::f32) {
  Mp r(24);
  if (s.nan) mpfr_set_zero(r.x, 1);  // (replaced below: round_value_all takes no NaN)
  else mpfr_set_inf(r.x, s.neg ? -1 : 1);
  AllOutcomes all = round_value_all(r.x, to);
  if (s.nan) {
    for (auto& m : all.r)
      for (auto& sat : m)
        for (auto& t : sat) {
          t.code = quiet_nan_code(to);  // the canonical quiet NaN, positive
          t.flags = s.invalid ? kInvalid : 0;
        }
  }
  return all;
}

// The exact value of one product times its scales (finite operands only), into `out`.
void term(const OBlock& a, const OBlock& b, size_t i, mpfr_ptr out) {
  Mp x(64), y(64);
  decode(a.fmt, a.codes[i], x.x);
  decode(b.fmt, b.codes[i], y.x);
  mpfr_mul(out, x.x, y.x, MPFR_RNDN);  // exact at kWide
  mpfr_mul_2si(out, out, (long)a.scale - 127 + (long)b.scale - 127, MPFR_RNDN);
}

}  // namespace

AllOutcomes dot_exact(const std::vector<OBlock>& a, const std::vector<OBlock>& b) { return dot_exact(a, b, OAddend{}); }

AllOutcomes dot_exact(const std::vector<OBlock>& a, const std::vector<OBlock>& b, const OAddend& d) {
  const Specials s = scan(a, b, &d);
  if (s.nan || s.pos || s.neg) return special_outcomes(s, d.to);
  Mp sum, t;
  mpfr_set_zero(sum.x, 1);
  bool all_neg_zero = true, all_pos_zero = true;
  if (d.present) {  // C, one more term (a zero C counts for the sign of a zero sum)
    decode(d.to, d.c, t.x);
    if (mpfr_zero_p(t.x)) (mpfr_signbit(t.x) ? all_pos_zero : all_neg_zero) = false;
    else all_neg_zero = all_pos_zero = false;
    mpfr_add(sum.x, sum.x, t.x, MPFR_RNDN);  // exact
  }
  for (size_t j = 0; j < a.size(); ++j)
    for (size_t i = 0; i < a[j].codes.size(); ++i) {
      term(a[j], b[j], i, t.x);
      if (mpfr_zero_p(t.x)) {
        (mpfr_signbit(t.x) ? all_pos_zero : all_neg_zero) = false;
      } else {
        all_neg_zero = all_pos_zero = false;
      }
      mpfr_add(sum.x, sum.x, t.x, MPFR_RNDN);  // exact
    }
  if (!mpfr_zero_p(sum.x)) return round_value_all(sum.x, d.to);
  // An exact zero: -0 if every term is -0; +0 if every term is +0; otherwise +0, but -0 under
  // rd (IEEE 754 6.3).
  Mp pz(24), nz(24);
  mpfr_set_zero(pz.x, 1);
  mpfr_set_zero(nz.x, -1);
  AllOutcomes all = round_value_all(all_neg_zero ? nz.x : pz.x, d.to);
  if (!all_neg_zero && !all_pos_zero) {
    const AllOutcomes neg = round_value_all(nz.x, d.to);
    for (int s2 = 0; s2 < kSatCount; ++s2)
      for (int t2 = 0; t2 < kTinyCount; ++t2) all.r[(int)Mode::rd][s2][t2] = neg.r[(int)Mode::rd][s2][t2];
  }
  return all;
}

namespace {

// round_f32(x + y) under one mode, IEEE 754 6.3 zero signs; returns the f32 outcome and
// leaves the rounded value in `out`.
Outcome add_round(mpfr_srcptr x, mpfr_srcptr y, Mode mode, Sat sat, Tiny tiny, mpfr_ptr out) {
  Mp s;
  mpfr_add(s.x, x, y, MPFR_RNDN);  // exact at kWide
  if (mpfr_zero_p(s.x)) {
    const bool xz = mpfr_zero_p(x), yz = mpfr_zero_p(y);
    bool neg;
    if (xz && yz && (mpfr_signbit(x) != 0) == (mpfr_signbit(y) != 0)) neg = mpfr_signbit(x) != 0;
    else neg = mode == Mode::rd;
    mpfr_set_zero(s.x, neg ? -1 : 1);
  }
  const Outcome o = round_value_all(s.x, Fmt::f32).at(mode, sat, tiny);
  decode(Fmt::f32, o.code, out);
  return o;
}

}  // namespace

Outcome dot_fp32_sequential(const std::vector<OBlock>& a, const std::vector<OBlock>& b, Mode mode, Sat sat,
                            Tiny tiny) {
  return dot_fp32_sequential(a, b, OAddend{}, mode, sat, tiny);
}

Outcome dot_fp32_sequential(const std::vector<OBlock>& a, const std::vector<OBlock>& b, const OAddend& dst, Mode mode,
                            Sat sat, Tiny tiny) {
  const Specials sp = scan(a, b, &dst);
  if (sp.nan || sp.pos || sp.neg) return special_outcomes(sp, dst.to).at(mode, sat, tiny);
  uint8_t flags = 0;
  Mp acc, sum, p, x(64), y(64), d;
  mpfr_set_zero(acc.x, 1);
  if (dst.present) decode(dst.to, dst.c, acc.x);  // C, exact in f32, the accumulator's start
  for (size_t j = 0; j < a.size(); ++j) {
    mpfr_set_zero(sum.x, 1);
    for (size_t i = 0; i < a[j].codes.size(); ++i) {
      decode(a[j].fmt, a[j].codes[i], x.x);
      decode(b[j].fmt, b[j].codes[i], y.x);
      mpfr_mul(p.x, x.x, y.x, MPFR_RNDN);  // exact
      flags |= add_round(sum.x, p.x, mode, sat, tiny, sum.x).flags;
    }
    // d_j = round_f32(s_j * 2^(sa + sb))
    mpfr_mul_2si(d.x, sum.x, (long)a[j].scale - 127 + (long)b[j].scale - 127, MPFR_RNDN);
    const Outcome od = round_value_all(d.x, Fmt::f32).at(mode, sat, tiny);
    flags |= od.flags;
    decode(Fmt::f32, od.code, d.x);
    if (mpfr_inf_p(d.x) && mpfr_inf_p(acc.x) && mpfr_signbit(d.x) != mpfr_signbit(acc.x))
      return {quiet_nan_code(dst.to), uint8_t(flags | kInvalid)};  // +Inf + -Inf
    if (mpfr_inf_p(d.x) || mpfr_inf_p(acc.x)) {
      if (!mpfr_inf_p(acc.x)) mpfr_set(acc.x, d.x, MPFR_RNDN);
      continue;
    }
    flags |= add_round(acc.x, d.x, mode, sat, tiny, acc.x).flags;
  }
  const Outcome last = round_value_all(acc.x, dst.to).at(mode, sat, tiny);  // f32: exact
  return {last.code, uint8_t(flags | last.flags)};
}

}  // namespace softmx::oracle
