// Independent MPFR oracle for softmx conversions. See mpfr_oracle.hpp.
//
// Method (value level, written from docs/SEMANTICS.md):
//  * decode the source code exactly into an MPFR number;
//  * for a finite non-zero |x| find its two neighbours RD(|x|) <= |x| <= RU(|x|) in the
//    destination's value set, continued upward without bound (the binade pattern goes on
//    above max finite, so e4m3 has a virtual 480, 512, ...) and bounded below by the
//    format's real subnormal spacing: scale |x| by 2^-q (q = weight of the last place at |x|),
//    take mpfr_floor / mpfr_ceil, scale back;
//  * pick a neighbour per rounding mode by comparing the discarded fraction with 1/2 and by the
//    parity of each neighbour's (virtual) code, which is computed from the neighbour's value;
//  * an overflow is a chosen value above max finite; tininess compares |x| (before), |x|
//    rounded to p bits with an unbounded exponent range (after), or the chosen value itself,
//    the one delivered (after_bounded), with 2^emin;
//  * encode the chosen value into a code from its exponent and fraction fields.
#include "oracles/mpfr_oracle.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace softmx::oracle {
namespace {

constexpr uint8_t kX = 0x01;  // inexact
constexpr uint8_t kU = 0x02;  // underflow
constexpr uint8_t kO = 0x04;  // overflow
constexpr uint8_t kV = 0x10;  // invalid

using Sign = Desc::Sign;
using Sp = Desc::Specials;

// Format parameters, derived from a descriptor as SEMANTICS.md section 1 defines them.
struct FI {
  Desc d;
  int named;  // the named format's index (its per-format policies), or -1
  int w;      // width in bits
  int eb;     // exponent field bits
  int m;      // fraction bits
  int bias;
  bool sub;   // exponent field 0 holds zero and subnormals
  long emin;  // exponent of the smallest normal: 1 - bias (with subnormals), -bias (without)
  uint64_t mag_ones;            // the all-ones magnitude
  uint64_t max_mag;             // the largest finite magnitude code (SEMANTICS 4)
  unsigned long max_sig;        // its value: max_sig * 2^max_exp
  long max_exp;
  unsigned long minus2_sig;     // two's complement: the magnitude code max_mag + 1 (int8 -2)
  long minus2_exp;
  bool has_inf, has_nan, has_zero;
};

inline uint64_t width_mask(int w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
inline uint64_t sign_bit(const FI& D) { return 1ull << (D.w - 1); }
inline uint64_t exp_ones(const FI& D) { return (1ull << D.eb) - 1; }

// The value of a magnitude code: sig * 2^exp (SEMANTICS 1: exponent field E, fraction M).
void mag_value(const FI& D, uint64_t mag, unsigned long& sig, long& exp) {
  const uint64_t E = mag >> D.m, M = mag & ((1ull << D.m) - 1);
  if (D.sub && E == 0) {
    sig = M;
    exp = D.emin - D.m;
  } else {
    sig = (1ul << D.m) + M;
    exp = (long)E - D.bias - D.m;
  }
}

FI make_fi(const Desc& d, int named_index) {
  FI D{};
  D.d = d;
  D.named = named_index;
  D.w = d.width();
  D.eb = d.exp_bits;
  D.m = d.man_bits;
  D.bias = d.bias;
  D.sub = d.subnormals;
  D.emin = d.subnormals ? 1 - d.bias : -d.bias;
  const int mag_bits = d.sign == Sign::none ? D.w : D.w - 1;
  D.mag_ones = width_mask(mag_bits);
  switch (d.specials) {
    case Sp::ieee: D.max_mag = D.mag_ones - (1ull << D.m); break;  // the all-ones exponent is Inf/NaN
    case Sp::fn: D.max_mag = D.mag_ones - 1; break;                  // the all-ones magnitude is NaN
    case Sp::fnuz:                                                    // NaN is the -0 code
    case Sp::none: D.max_mag = D.mag_ones; break;
  }
  mag_value(D, D.max_mag, D.max_sig, D.max_exp);
  mag_value(D, D.max_mag + 1, D.minus2_sig, D.minus2_exp);
  D.has_inf = d.specials == Sp::ieee;
  D.has_nan = d.specials != Sp::none;
  D.has_zero = d.subnormals;
  return D;
}

// SEMANTICS.md section 1's table.
// clang-format off
const Desc kDesc[kFmtCount] = {
  {Sign::magnitude, 11, 52, 1023, Sp::ieee, true,  false},  // f64
  {Sign::magnitude,  8, 23,  127, Sp::ieee, true,  false},  // f32
  {Sign::magnitude,  5, 10,   15, Sp::ieee, true,  false},  // f16
  {Sign::magnitude,  8,  7,  127, Sp::ieee, true,  false},  // bf16
  {Sign::magnitude,  4,  3,    7, Sp::fn,   true,  false},  // e4m3: S.1111.111 is NaN
  {Sign::magnitude,  5,  2,   15, Sp::ieee, true,  false},  // e5m2
  {Sign::magnitude,  3,  2,    3, Sp::none, true,  false},  // e3m2
  {Sign::magnitude,  2,  3,    1, Sp::none, true,  false},  // e2m3
  {Sign::magnitude,  2,  1,    1, Sp::none, true,  false},  // e2m1
  {Sign::twos,       1,  6,    1, Sp::none, true,  true},   // int8: k/64, two's complement
  {Sign::none,       8,  0,  127, Sp::fn,   false, false},  // e8m0: 2^(c-127), 0xFF NaN
};
const char* const kNames[kFmtCount] = {"f64", "f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e8m0"};
// clang-format on

const FI& info(Fmt f) {
  static const std::array<FI, kFmtCount> table = [] {
    std::array<FI, kFmtCount> t;
    for (int i = 0; i < kFmtCount; ++i) t[i] = make_fi(kDesc[i], i);
    return t;
  }();
  return table[(int)f];
}

FI info(const Desc& d) {
  const std::optional<Fmt> n = named(d);
  return n ? info(*n) : make_fi(d, -1);
}

// ---------------------------------------------------------------- scratch state
constexpr mpfr_prec_t kMinPrec = 128;

struct Nb {  // the neighbours of |x| at one quantum
  mpfr_t t, lo, hi, f;
  bool exact = false;
  int cmp_half = 0;  // sign of (discarded fraction - 1/2)
  bool lo_odd = false, hi_odd = false;
};

struct Work {
  mpfr_prec_t prec = kMinPrec;
  mpfr_t x, a, tmp;
  Nb b, u;  // b: real (bounded) exponent range, u: unbounded (tininess after rounding)
  Work() {
    for (mpfr_ptr v : all()) mpfr_init2(v, prec);
  }
  ~Work() {
    for (mpfr_ptr v : all()) mpfr_clear(v);
  }
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;
  std::array<mpfr_ptr, 11> all() { return {x, a, tmp, b.t, b.lo, b.hi, b.f, u.t, u.lo, u.hi, u.f}; }
  // Enough precision that every operation below on a value of precision p is exact.
  void ensure(mpfr_prec_t p) {
    mpfr_prec_t need = std::max<mpfr_prec_t>(p, 64) + 64;
    if (need <= prec) return;
    prec = need;
    for (mpfr_ptr v : all()) mpfr_set_prec(v, prec);
  }
};

Work& work() {
  static thread_local Work w;
  return w;
}

// ---------------------------------------------------------------- value helpers
// floor(log2 v) for v != 0 (MPFR's exponent puts the significand in [1/2, 1)).
inline long ilog2(mpfr_srcptr v) { return (long)mpfr_get_exp(v) - 1; }

// Is v (a non-negative value of the destination's extended value set) encoded by an odd code?
// "unbounded": the value set of p-bit numbers with no lower exponent limit either.
bool code_odd(const FI& D, mpfr_srcptr v, bool unbounded, mpfr_ptr tmp) {
  if (mpfr_zero_p(v)) return false;  // the zero code
  long ev = ilog2(v);
  if (D.m == 0) return ((ev + D.bias) & 1) != 0;            // no fraction: code = biased exponent
  long qv = (unbounded ? ev : std::max(ev, D.emin)) - D.m;  // weight of v's last place
  mpfr_mul_2si(tmp, v, -(qv + 1), MPFR_RNDN);                  // v / 2^(qv+1): integer iff even
  return !mpfr_integer_p(tmp);
}

// Neighbours of a = |x| > 0 in the destination's value set.
void analyze(const FI& D, mpfr_srcptr a, bool unbounded, Nb& nb, Work& w) {
  long e = ilog2(a);
  long q = (unbounded || !D.sub) ? e - D.m : std::max(e, D.emin) - D.m;
  mpfr_mul_2si(nb.t, a, -q, MPFR_RNDN);  // exact
  if (mpfr_floor(nb.lo, nb.t) == 0) {    // a is a multiple of 2^q: representable
    nb.exact = true;
    mpfr_set(nb.lo, a, MPFR_RNDN);
    mpfr_set(nb.hi, a, MPFR_RNDN);
    mpfr_set_zero(nb.f, 1);
    nb.cmp_half = -1;
    nb.lo_odd = nb.hi_odd = code_odd(D, a, unbounded, w.tmp);
    return;
  }
  nb.exact = false;
  mpfr_sub(nb.f, nb.t, nb.lo, MPFR_RNDN);  // discarded fraction, exact
  mpfr_ceil(nb.hi, nb.t);
  mpfr_mul_2si(nb.lo, nb.lo, q, MPFR_RNDN);
  mpfr_mul_2si(nb.hi, nb.hi, q, MPFR_RNDN);
  nb.cmp_half = mpfr_cmp_ui_2exp(nb.f, 1, -1);
  nb.lo_odd = code_odd(D, nb.lo, unbounded, w.tmp);
  nb.hi_odd = code_odd(D, nb.hi, unbounded, w.tmp);
}

// Mode index 0..5 = Mode, 6 = stochastic.
constexpr int kRs = 6;
struct RsReq {
  unsigned r = 0;
  uint64_t R = 0;
};

// Does the mode pick the upper neighbour (larger magnitude)?
bool pick_up(int mi, bool neg, const Nb& nb, bool ties_up, const RsReq& rs, Work& w, bool ties_down = false) {
  if (nb.exact) return false;
  switch (mi) {
    case (int)Mode::rne:
      if (nb.cmp_half != 0) return nb.cmp_half > 0;
      if (ties_down) return false;        // 5.8 toward_zero: the smaller magnitude
      return ties_up ? true : nb.lo_odd;  // tie: the neighbour with the even code
    case (int)Mode::rna: return nb.cmp_half >= 0;
    case (int)Mode::rz: return false;
    case (int)Mode::ru: return !neg;
    case (int)Mode::rd: return neg;
    case (int)Mode::ro: return !nb.lo_odd;  // the neighbour with the odd code
    case kRs: {
      // F = floor(f * 2^r), f < 1, so F < 2^r <= 2^64.
      mpfr_mul_2si(w.tmp, nb.f, (long)rs.r, MPFR_RNDN);
      unsigned long F = mpfr_get_ui(w.tmp, MPFR_RNDZ);
      return (unsigned __int128)F + rs.R >= ((unsigned __int128)1 << rs.r);
    }
  }
  return false;
}

// A magnitude code with a sign, as SEMANTICS 3 packs it. fnuz has no -0: a zero is +0.
uint64_t apply_sign(const FI& D, uint64_t mag, bool neg) {
  switch (D.d.sign) {
    case Sign::magnitude:
      if (D.d.specials == Sp::fnuz && mag == 0) return 0;
      return (neg ? sign_bit(D) : 0) | mag;
    case Sign::twos: return neg ? ((1ull << D.w) - mag) & width_mask(D.w) : mag;
    case Sign::none: break;
  }
  return mag;
}

// Encodes a non-negative value v of the destination's value set, |v| <= max finite (or the
// two's complement -2), with sign.
uint64_t encode(const FI& D, mpfr_srcptr v, bool neg, mpfr_ptr tmp) {
  uint64_t mag = 0;
  if (!mpfr_zero_p(v)) {
    const long ev = ilog2(v);
    uint64_t E, M;
    if (!D.sub || ev >= D.emin) {  // normal: v = 2^ev (1 + M/2^m)
      E = (uint64_t)(ev + D.bias);
      mpfr_mul_2si(tmp, v, D.m - ev, MPFR_RNDN);
      M = mpfr_get_ui(tmp, MPFR_RNDN) - (1ull << D.m);
    } else {  // subnormal: v = M 2^(emin-m)
      E = 0;
      mpfr_mul_2si(tmp, v, D.m - D.emin, MPFR_RNDN);
      M = mpfr_get_ui(tmp, MPFR_RNDN);
    }
    mag = (E << D.m) + M;
  }
  return apply_sign(D, mag, neg);
}

uint64_t zero_code(const FI& D, bool neg) { return apply_sign(D, 0, neg); }

uint64_t max_code(const FI& D, bool neg, const Policies& pol) {
  if (D.d.sign == Sign::twos && neg && pol.int8_minus2) return apply_sign(D, D.max_mag + 1, true);
  return apply_sign(D, D.max_mag, neg);
}

// |max finite| for results of the given sign.
int cmp_max(const FI& D, mpfr_srcptr v, bool neg, const Policies& pol) {
  if (D.d.sign == Sign::twos && neg && pol.int8_minus2) return mpfr_cmp_ui_2exp(v, D.minus2_sig, D.minus2_exp);
  return mpfr_cmp_ui_2exp(v, D.max_sig, D.max_exp);
}

uint64_t inf_code(const FI& D, bool neg) { return apply_sign(D, exp_ones(D) << D.m, neg); }

Policies::Payload payload_rule(const FI& D, const Policies& pol) {
  return D.named >= 0 ? pol.nan_payload[D.named] : pol.runtime_nan_payload;
}

// A NaN of the destination (which has NaN), with payload `frac` of `fm` bits (0 = none), under
// the fraction rule `rule` (5.5).
uint64_t nan_code_rule(const FI& D, bool neg, uint64_t frac, int fm, Policies::Payload rule, const Policies& pol) {
  if (D.d.specials == Sp::fnuz) return sign_bit(D);  // the one NaN, whatever the sign
  using NS = Policies::NanSign;
  const bool s = pol.nan_sign == NS::negative || (neg && pol.nan_sign == NS::preserve);
  if (D.d.specials == Sp::fn) return apply_sign(D, D.mag_ones, s);  // the all-ones magnitude
  uint64_t quiet = 1ull << (D.m - 1);
  uint64_t payload = quiet;
  // The source fraction's leading bits at the destination's width (truncated or zero-extended).
  const uint64_t kept = fm == 0 ? 0 : ((D.m >= fm ? (frac << (D.m - fm)) : (frac >> (fm - D.m))) & ((1ull << D.m) - 1));
  switch (rule) {
    case Policies::Payload::canonical: break;
    case Policies::Payload::preserve: payload = kept | quiet; break;
    case Policies::Payload::all_ones: payload = (1ull << D.m) - 1; break;
    case Policies::Payload::exact: payload = kept != 0 ? kept : quiet; break;  // as they are
    case Policies::Payload::signalling_one: payload = 1; break;
  }
  return apply_sign(D, (exp_ones(D) << D.m) | payload, s);
}

uint64_t nan_code(const FI& D, bool neg, uint64_t frac, int fm, const Policies& pol) {
  return nan_code_rule(D, neg, frac, fm, payload_rule(D, pol), pol);
}

uint64_t signed_value_code(const FI& D, bool neg, const Policies& pol);
void decode_fi(const FI& D, uint64_t code, mpfr_ptr out);
bool is_nan(const FI& D, uint64_t code);

// A NaN input (sign, fraction of fm bits, signalling?) into D, with the fraction rule `rule`.
Outcome nan_into(const FI& D, bool neg, uint64_t frac, int fm, bool signalling, Policies::Payload rule,
                 const Policies& pol) {
  uint8_t fl = signalling ? kV : 0;
  if (D.has_nan) return {nan_code_rule(D, neg, frac, fm, rule, pol), fl};
  fl |= kV;
  switch (pol.nan_to_finite) {
    case Policies::NanToFinite::positive_max: return {max_code(D, false, pol), fl};
    case Policies::NanToFinite::signed_max: return {max_code(D, neg, pol), fl};
    case Policies::NanToFinite::positive_zero: return {zero_code(D, false), fl};
    case Policies::NanToFinite::negative_zero: return {zero_code(D, true), fl};
    case Policies::NanToFinite::flipped_zero: return {zero_code(D, !neg), fl};
    case Policies::NanToFinite::signed_value: return {signed_value_code(D, neg, pol), fl};
    case Policies::NanToFinite::error: return {0, fl};
  }
  return {0, fl};
}

Outcome nan_from_code(const FI& S, uint64_t bits, const FI& D, const Policies& pol) {
  bool signalling = S.d.specials == Sp::ieee && ((bits >> (S.m - 1)) & 1) == 0;
  // The sign bit, also fnuz's: its NaN is the -0 code, a NaN with the sign bit set.
  bool neg = S.d.sign == Sign::none ? false : ((bits >> (S.w - 1)) & 1) != 0;
  uint64_t frac = bits & ((1ull << S.m) - 1);
  int fm = S.m;
  const int ones = S.named >= 0 ? pol.nan_canonical_ones[S.named] : pol.runtime_nan_canonical_ones;
  if (ones > 0) {  // e.g. f32 0x7FFFFFFF
    neg = false;
    frac = (1ull << ones) - 1;
    fm = ones;
  }
  // nan_payload_paths: the (source, destination) pair's own rule, else the destination's.
  Policies::Payload rule = payload_rule(D, pol);
  for (int i = 0; S.named >= 0 && D.named >= 0 && i < pol.nan_payload_path_count && i < (int)pol.nan_payload_paths.size(); ++i)
    if (pol.nan_payload_paths[i].src == static_cast<Fmt>(S.named) && pol.nan_payload_paths[i].dst == static_cast<Fmt>(D.named)) {
      rule = pol.nan_payload_paths[i].payload;
      break;
    }
  return nan_into(D, neg, frac, fm, signalling, rule, pol);
}

// The overflow table of section 4 (rs behaves like rne). Saturation propagate saturates a finite
// overflow as finite does. Where none asks for Inf and the format has none: its NaN, or +-max
// under overflow_no_inf_max (P3109). ro under none: max, or under ro_overflow_odd_code the odd
// one of max and Inf (Inf only where the format's Inf code is odd).
Outcome overflow_outcome(const FI& D, bool neg, int mi, Sat sat, const Policies& pol) {
  const uint8_t fl = kO | kX;
  bool to_inf = false;
  if (sat == Sat::none) {
    switch (mi) {
      case (int)Mode::rne:
      case (int)Mode::rna:
      case kRs: to_inf = true; break;
      case (int)Mode::ru: to_inf = !neg; break;
      case (int)Mode::rd: to_inf = neg; break;
      case (int)Mode::ro: to_inf = pol.ro_overflow_odd_code && D.has_inf && (inf_code(D, neg) & 1) != 0; break;
      default: break;
    }
  }
  if (to_inf && D.has_inf) return {inf_code(D, neg), fl};
  if (to_inf && D.has_nan && !pol.overflow_no_inf_max) return {nan_code(D, neg, 0, 0, pol), fl};
  return {max_code(D, neg, pol), fl};
}

// Infinity input (section 5.6; e8m0 negatives already resolved by the caller). Under
// satfinite_inf = as_none, saturation finite treats an Inf as saturation none does; saturation
// propagate always does. Where none gives no Inf: NaN, or +-max under overflow_no_inf_max.
Outcome inf_outcome(const FI& D, bool neg, Sat sat, uint8_t extra, const Policies& pol) {
  const bool as_none = sat == Sat::none || sat == Sat::propagate || pol.satfinite_inf_as_none;
  if (as_none && D.has_inf) return {inf_code(D, neg), extra};
  if (as_none && D.has_nan && !pol.overflow_no_inf_max) return {nan_code(D, neg, 0, 0, pol), (uint8_t)(extra | kV)};
  return {max_code(D, neg, pol), (uint8_t)(extra | kV)};
}

// Results for mode indices [m0, m1) x sat x tiny.
using Table = Outcome[7][kSatCount][kTinyCount];

void fill(Table& T, int m0, int m1, Outcome o) {
  for (int mi = m0; mi < m1; ++mi)
    for (int s = 0; s < kSatCount; ++s)
      for (int t = 0; t < kTinyCount; ++t) T[mi][s][t] = o;
}

// Rounds the exact non-NaN value x into D.
void round_core(const FI& D, mpfr_srcptr x, const Policies& pol, int m0, int m1, const RsReq& rs, Table& T,
                Work& w) {
  bool neg = mpfr_signbit(x) != 0;
  // Powers of two only (no fraction, no subnormals: E8M0) are where the ties-up and
  // lowest-binade policies apply (SEMANTICS 5.4).
  const bool pow2 = D.m == 0 && !D.sub;
  const bool ties_up = pow2 && pol.e8m0_ties_up;
  // 5.8: the MX element destinations only (named e4m3 .. int8).
  const bool element = D.named >= static_cast<int>(Fmt::e4m3) && D.named <= static_cast<int>(Fmt::int8);
  const bool ties_down = element && pol.ties_toward_zero;
  const bool zeros_positive = element && pol.zeros_positive;
  // What a policy that "gives NaN" gives: the NaN, or in a format without NaN what a NaN input
  // gives, with invalid (SEMANTICS 5.4, 5.5).
  auto policy_nan = [&] { return nan_into(D, false, 0, 0, true, payload_rule(D, pol), pol); };

  // Fills [m0, m1) with `fin` under saturation finite and propagate and `non` under none (the
  // e8m0 policies decided by saturation: propagate treats finite values as finite does).
  auto fill_by_sat = [&](Outcome fin, Outcome non) {
    for (int mi = m0; mi < m1; ++mi)
      for (int t = 0; t < kTinyCount; ++t) {
        T[mi][(int)Sat::finite][t] = fin;
        T[mi][(int)Sat::none][t] = non;
        T[mi][(int)Sat::propagate][t] = fin;
      }
  };
  if (mpfr_zero_p(x)) {  // 5.2, 5.4
    if (D.has_zero) return fill(T, m0, m1, {zero_code(D, neg && !zeros_positive), 0});
    const Outcome min_scale{zero_code(D, false), (uint8_t)(kU | kX)};
    if (pol.e8m0_zero_min_if_satfinite) return fill_by_sat(min_scale, policy_nan());
    return fill(T, m0, m1, pol.e8m0_zero_nan ? policy_nan() : min_scale);
  }

  uint8_t extra = 0;
  if (D.d.sign == Sign::none && neg) {  // 5.4: negative non-zero (finite or -Inf) into an unsigned format
    if (pol.negative_saturate_zero) {  // P3109 4.7.3, 4.7.5: Mlo = 0
      if (mpfr_inf_p(x)) return fill_by_sat({zero_code(D, false), kV}, policy_nan());
      // Round -|x| first: as |x| with ru and rd exchanged (ru is toward zero for a negative).
      mpfr_t ax;
      mpfr_init2(ax, mpfr_get_prec(x));
      mpfr_abs(ax, x, MPFR_RNDN);
      Table T2;
      const int r0 = m0 == kRs ? kRs : 0, r1 = m0 == kRs ? kRs + 1 : kModeCount;
      round_core(D, ax, pol, r0, r1, rs, T2, w);
      mpfr_clear(ax);
      const uint64_t zero = zero_code(D, false);
      for (int mi = m0; mi < m1; ++mi) {
        const int mm = mi == (int)Mode::ru ? (int)Mode::rd : mi == (int)Mode::rd ? (int)Mode::ru : mi;
        for (int s = 0; s < kSatCount; ++s)
          for (int t = 0; t < kTinyCount; ++t) {
            const Outcome& o = T2[mm][s][t];
            if (D.has_zero && o.code == zero && !(o.flags & kO)) {
              T[mi][s][t] = o;  // rounds to 0: +0 with the usual flags
            } else if (D.has_nan && is_nan(D, o.code)) {
              T[mi][s][t] = o;  // a policy of 5.4 (e8m0_below = nan) already gave NaN
            } else if (s == (int)Sat::none && mi != (int)Mode::rz && mi != (int)Mode::ru) {
              T[mi][s][t] = policy_nan();
            } else {
              T[mi][s][t] = {zero, (uint8_t)(kV | kX)};
            }
          }
      }
      return;
    }
    if (pol.e8m0_negative_min_if_satfinite) {
      if (mpfr_inf_p(x)) return fill(T, m0, m1, policy_nan());
      return fill_by_sat({zero_code(D, false), (uint8_t)(kV | kX)}, policy_nan());
    }
    if (!pol.e8m0_negative_magnitude) return fill(T, m0, m1, policy_nan());
    extra = kV;
    neg = false;
  }

  if (mpfr_inf_p(x)) {  // 5.6
    for (int mi = m0; mi < m1; ++mi)
      for (int s = 0; s < kSatCount; ++s)
        for (int t = 0; t < kTinyCount; ++t) T[mi][s][t] = inf_outcome(D, neg, (Sat)s, extra, pol);
    return;
  }

  mpfr_abs(w.a, x, MPFR_RNDN);  // exact (w has enough precision)

  if (!D.sub && mpfr_cmp_ui_2exp(w.a, 1, D.emin) < 0) {  // 5.4: below the smallest value (e8m0: 2^-127)
    if (pol.e8m0_below_nan) {
      Outcome o = policy_nan();
      o.flags |= extra;
      return fill(T, m0, m1, o);
    }
    analyze(D, w.a, true, w.u, w);
    const uint64_t code = zero_code(D, neg);  // the smallest value, with the sign
    // after_bounded: the value this code delivers, compared with 2^emin.
    decode_fi(D, code, w.tmp);
    mpfr_abs(w.tmp, w.tmp, MPFR_RNDN);
    const bool tiny_bounded = mpfr_cmp_ui_2exp(w.tmp, 1, D.emin) < 0;
    for (int mi = m0; mi < m1; ++mi) {
      bool up = pick_up(mi, neg, w.u, ties_up, rs, w);
      mpfr_srcptr vu = up ? w.u.hi : w.u.lo;
      bool tiny_after = mpfr_cmp_ui_2exp(vu, 1, D.emin) < 0;
      for (int s = 0; s < kSatCount; ++s) {
        T[mi][s][(int)Tiny::after] = {code, (uint8_t)(kX | (tiny_after ? kU : 0) | extra)};
        T[mi][s][(int)Tiny::before] = {code, (uint8_t)(kX | kU | extra)};
        T[mi][s][(int)Tiny::after_bounded] = {code, (uint8_t)(kX | (tiny_bounded ? kU : 0) | extra)};
      }
    }
    return;
  }

  Nb& b = w.b;
  analyze(D, w.a, false, b, w);
  const bool can_underflow = !D.d.fixed;
  const bool tiny_before = can_underflow && !b.exact && mpfr_cmp_ui_2exp(w.a, 1, D.emin) < 0;
  if (tiny_before) analyze(D, w.a, true, w.u, w);

  const bool ovf_lo = cmp_max(D, b.lo, neg, pol) > 0;
  const bool ovf_hi = b.exact ? ovf_lo : cmp_max(D, b.hi, neg, pol) > 0;
  const uint64_t code_lo = ovf_lo ? 0 : encode(D, b.lo, neg, w.tmp);
  const uint64_t code_hi = b.exact ? code_lo : (ovf_hi ? 0 : encode(D, b.hi, neg, w.tmp));

  // PyTorch / ml_dtypes E8M0: under the nearest modes every value in (2^-127, 2^-126) rounds up.
  const bool lowest_up = pow2 && pol.e8m0_lowest_binade_rounds_up && !b.exact &&
                         mpfr_cmp_ui_2exp(w.a, 1, D.emin + 1) < 0;
  for (int mi = m0; mi < m1; ++mi) {
    bool up = pick_up(mi, neg, b, ties_up, rs, w, ties_down);
    if (lowest_up && (mi == (int)Mode::rne || mi == (int)Mode::rna)) up = true;
    if (up ? ovf_hi : ovf_lo) {
      for (int s = 0; s < kSatCount; ++s) {
        Outcome o = overflow_outcome(D, neg, mi, (Sat)s, pol);
        o.flags |= extra;
        for (int t = 0; t < kTinyCount; ++t) T[mi][s][t] = o;
      }
      continue;
    }
    uint64_t code = up ? code_hi : code_lo;
    if (zeros_positive && mpfr_zero_p(up ? b.hi : b.lo)) code = zero_code(D, false);  // 5.8
    uint8_t fa = extra, fb = extra, fc = extra;
    if (!b.exact) {
      fa |= kX;
      fb |= kX;
      fc |= kX;
      if (tiny_before) {
        fb |= kU;
        bool upu = pick_up(mi, neg, w.u, ties_up, rs, w, ties_down);
        mpfr_srcptr vu = w.u.exact ? w.a : (upu ? w.u.hi : w.u.lo);
        if (mpfr_cmp_ui_2exp(vu, 1, D.emin) < 0) fa |= kU;
      }
      // after_bounded: the chosen neighbour, the value delivered, below 2^emin.
      if (can_underflow && mpfr_cmp_ui_2exp(up ? b.hi : b.lo, 1, D.emin) < 0) fc |= kU;
    }
    for (int s = 0; s < kSatCount; ++s) {
      T[mi][s][(int)Tiny::after] = {code, fa};
      T[mi][s][(int)Tiny::before] = {code, fb};
      T[mi][s][(int)Tiny::after_bounded] = {code, fc};
    }
  }
}

// nan_finite_value with the sign, rounded into D (rne, saturating), for NaN -> signed_value.
uint64_t signed_value_code(const FI& D, bool neg, const Policies& pol) {
  mpfr_t v;
  mpfr_init2(v, 64);
  mpfr_set_d(v, neg ? -pol.nan_finite_value : pol.nan_finite_value, MPFR_RNDN);
  Table T;
  Work& w = work();
  round_core(D, v, pol, (int)Mode::rne, (int)Mode::rne + 1, RsReq{}, T, w);
  mpfr_clear(v);
  return T[(int)Mode::rne][(int)Sat::finite][(int)Tiny::after].code;
}

bool is_nan(const FI& D, uint64_t code);
void decode_fi(const FI& D, uint64_t code, mpfr_ptr out);

void from_code(const FI& S, const FI& D, uint64_t bits, const Policies& pol, int m0, int m1, const RsReq& rs,
               Table& T) {
  bits &= width_mask(S.w);
  if (is_nan(S, bits)) return fill(T, m0, m1, nan_from_code(S, bits, D, pol));
  Work& w = work();
  decode_fi(S, bits, w.x);
  round_core(D, w.x, pol, m0, m1, rs, T, w);
}

// The sign and magnitude of a code (SEMANTICS 3 read backwards).
void split(const FI& D, uint64_t code, bool& neg, uint64_t& mag) {
  code &= width_mask(D.w);
  switch (D.d.sign) {
    case Sign::magnitude:
      neg = (code & sign_bit(D)) != 0;
      mag = code & (sign_bit(D) - 1);
      return;
    case Sign::twos:  // the magnitude of 100...0 is 2^(w-1) (int8 0x80: -2)
      neg = (code & sign_bit(D)) != 0;
      mag = neg ? (1ull << D.w) - code : code;
      return;
    case Sign::none: break;
  }
  neg = false;
  mag = code;
}

bool is_nan(const FI& D, uint64_t code) {
  code &= width_mask(D.w);
  bool neg;
  uint64_t mag;
  split(D, code, neg, mag);
  switch (D.d.specials) {
    case Sp::fnuz: return code == sign_bit(D);
    case Sp::fn: return mag == D.mag_ones;
    case Sp::ieee: return (mag >> D.m) == exp_ones(D) && (mag & ((1ull << D.m) - 1)) != 0;
    case Sp::none: break;
  }
  return false;
}

void decode_fi(const FI& D, uint64_t code, mpfr_ptr out) {
  bool neg;
  uint64_t mag;
  split(D, code, neg, mag);
  if (D.d.specials == Sp::ieee && (mag >> D.m) == exp_ones(D)) {  // Inf (NaN excluded by the caller)
    mpfr_set_inf(out, neg ? -1 : 1);
    return;
  }
  unsigned long sig;
  long exp;
  mag_value(D, mag, sig, exp);
  mpfr_set_ui_2exp(out, sig, exp, MPFR_RNDN);
  if (neg) mpfr_neg(out, out, MPFR_RNDN);  // keeps -0
}

AllOutcomes to_all(const Table& T) {
  AllOutcomes r;
  for (int mi = 0; mi < kModeCount; ++mi)
    for (int s = 0; s < kSatCount; ++s)
      for (int t = 0; t < kTinyCount; ++t) r.r[mi][s][t] = T[mi][s][t];
  return r;
}

}  // namespace

std::optional<Fmt> fmt_from_name(std::string_view n) {
  for (int i = 0; i < kFmtCount; ++i)
    if (n == kNames[i]) return (Fmt)i;
  return std::nullopt;
}

std::string_view fmt_name(Fmt f) { return kNames[(int)f]; }

Desc desc(Fmt f) { return kDesc[(int)f]; }

std::optional<Fmt> named(const Desc& d) {
  for (int i = 0; i < kFmtCount; ++i)
    if (kDesc[i] == d) return (Fmt)i;
  return std::nullopt;
}

int width(Fmt f) { return info(f).w; }

bool is_nan_code(Fmt f, uint64_t code) { return is_nan(info(f), code); }
bool is_nan_code(const Desc& f, uint64_t code) { return is_nan(info(f), code); }

bool decode(Fmt f, uint64_t code, mpfr_ptr out) { return decode(desc(f), code, out); }
bool decode(const Desc& f, uint64_t code, mpfr_ptr out) {
  const FI D = info(f);
  if (is_nan(D, code)) return false;
  decode_fi(D, code, out);
  return true;
}

AllOutcomes convert_all(const Desc& src, const Desc& dst, uint64_t src_bits, const Policies& pol) {
  Table T;
  from_code(info(src), info(dst), src_bits, pol, 0, kModeCount, RsReq{}, T);
  return to_all(T);
}
AllOutcomes convert_all(Fmt src, Fmt dst, uint64_t src_bits, const Policies& pol) {
  Table T;
  from_code(info(src), info(dst), src_bits, pol, 0, kModeCount, RsReq{}, T);
  return to_all(T);
}

Outcome convert(const Desc& src, const Desc& dst, uint64_t src_bits, Mode m, Sat s, Tiny t, const Policies& pol) {
  Table T;
  from_code(info(src), info(dst), src_bits, pol, (int)m, (int)m + 1, RsReq{}, T);
  return T[(int)m][(int)s][(int)t];
}
Outcome convert(Fmt src, Fmt dst, uint64_t src_bits, Mode m, Sat s, Tiny t, const Policies& pol) {
  return convert(desc(src), desc(dst), src_bits, m, s, t, pol);
}

Outcome convert_rs(const Desc& src, const Desc& dst, uint64_t src_bits, unsigned r, uint64_t R, Sat s, Tiny t,
                   const Policies& pol) {
  if (r < 1 || r > 64) throw std::invalid_argument("softmx::oracle::convert_rs: r must be in 1..64");
  if (r < 64 && (R >> r) != 0) throw std::invalid_argument("softmx::oracle::convert_rs: R must be < 2^r");
  Table T;
  from_code(info(src), info(dst), src_bits, pol, kRs, kRs + 1, RsReq{r, R}, T);
  return T[kRs][(int)s][(int)t];
}
Outcome convert_rs(Fmt src, Fmt dst, uint64_t src_bits, unsigned r, uint64_t R, Sat s, Tiny t,
                   const Policies& pol) {
  return convert_rs(desc(src), desc(dst), src_bits, r, R, s, t, pol);
}

AllOutcomes round_value_all(mpfr_srcptr x, const Desc& dst, const Policies& pol) {
  const FI D = info(dst);
  Table T;
  if (mpfr_nan_p(x)) {  // not in the contract; treated as a quiet NaN without payload
    fill(T, 0, kModeCount, nan_into(D, mpfr_signbit(x) != 0, 0, 0, false, payload_rule(D, pol), pol));
    return to_all(T);
  }
  Work& w = work();
  w.ensure(mpfr_get_prec(x));
  round_core(D, x, pol, 0, kModeCount, RsReq{}, T, w);
  return to_all(T);
}
AllOutcomes round_value_all(mpfr_srcptr x, Fmt dst, const Policies& pol) { return round_value_all(x, desc(dst), pol); }

}  // namespace softmx::oracle
