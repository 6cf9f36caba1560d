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
//  * an overflow is a chosen value above max finite; tininess compares |x| (before) or |x|
//    rounded to p bits with an unbounded exponent range (after) with 2^emin;
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

enum class Kind : uint8_t { ieee, fn, none, int8, e8m0 };

// Format parameters, from SEMANTICS.md section 1 (and the max finite codes of section 4).
struct FI {
  Fmt f;
  const char* name;
  int w;      // width in bits
  int eb;     // exponent field bits (int8: 1 for the E1M6 model; unused)
  int m;      // fraction bits
  int bias;
  Kind kind;
  long emin;              // exponent of the smallest normal (e8m0: smallest value)
  unsigned long max_sig;  // max finite magnitude = max_sig * 2^max_exp
  long max_exp;
  uint64_t max_code;  // largest finite magnitude code (positive)
  bool has_inf, has_nan;
};

// clang-format off
const FI kFI[kFmtCount] = {
  {Fmt::f64,  "f64",  64, 11, 52, 1023, Kind::ieee, -1022, (1ul << 53) - 1, 1023 - 52, 0x7FEFFFFFFFFFFFFFull, true,  true},
  {Fmt::f32,  "f32",  32,  8, 23,  127, Kind::ieee,  -126, (1ul << 24) - 1,  127 - 23, 0x7F7FFFFFull,         true,  true},
  {Fmt::f16,  "f16",  16,  5, 10,   15, Kind::ieee,   -14, 2047,             15 - 10, 0x7BFF,                true,  true},
  {Fmt::bf16, "bf16", 16,  8,  7,  127, Kind::ieee,  -126, 255,              127 - 7, 0x7F7F,                true,  true},
  {Fmt::e4m3, "e4m3",  8,  4,  3,    7, Kind::fn,      -6, 7,                  8 - 2, 0x7E,                  false, true},   // 448 = 7*2^6
  {Fmt::e5m2, "e5m2",  8,  5,  2,   15, Kind::ieee,   -14, 7,                 15 - 2, 0x7B,                  true,  true},   // 57344 = 7*2^13
  {Fmt::e3m2, "e3m2",  6,  3,  2,    3, Kind::none,    -2, 7,                  4 - 2, 0x1F,                  false, false},  // 28 = 7*2^2
  {Fmt::e2m3, "e2m3",  6,  2,  3,    1, Kind::none,     0, 15,                 2 - 3, 0x1F,                  false, false},  // 7.5 = 15*2^-1
  {Fmt::e2m1, "e2m1",  4,  2,  1,    1, Kind::none,     0, 3,                  2 - 1, 0x7,                   false, false},  // 6 = 3*2^1
  {Fmt::int8, "int8",  8,  1,  6,    1, Kind::int8,     0, 127,                 -6,   0x7F,                  false, false},  // 127/64
  {Fmt::e8m0, "e8m0",  8,  8,  0,  127, Kind::e8m0,  -127, 1,                  127,   0xFE,                  false, true},   // 2^127
};
// clang-format on

inline const FI& info(Fmt f) { return kFI[(int)f]; }
inline uint64_t width_mask(int w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
inline uint64_t sign_bit(const FI& D) { return 1ull << (D.w - 1); }
inline uint64_t exp_ones(const FI& D) { return (1ull << D.eb) - 1; }

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
  if (D.kind == Kind::e8m0) return ((ev + D.bias) & 1) != 0;  // code = biased exponent
  long qv = (unbounded ? ev : std::max(ev, D.emin)) - D.m;    // weight of v's last place
  mpfr_mul_2si(tmp, v, -(qv + 1), MPFR_RNDN);                  // v / 2^(qv+1): integer iff even
  return !mpfr_integer_p(tmp);
}

// Neighbours of a = |x| > 0 in the destination's value set.
void analyze(const FI& D, mpfr_srcptr a, bool unbounded, Nb& nb, Work& w) {
  long e = ilog2(a);
  long q = (unbounded || D.kind == Kind::e8m0) ? e - D.m : std::max(e, D.emin) - D.m;
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

// Encodes a non-negative value v of the destination's value set, |v| <= max finite, with sign.
uint64_t encode(const FI& D, mpfr_srcptr v, bool neg, mpfr_ptr tmp) {
  switch (D.kind) {
    case Kind::e8m0: return (uint64_t)(ilog2(v) + D.bias);
    case Kind::int8: {
      mpfr_mul_2si(tmp, v, D.m, MPFR_RNDN);  // k = 64 v
      uint64_t k = mpfr_get_ui(tmp, MPFR_RNDN);
      return neg ? ((256 - k) & 0xFF) : k;
    }
    default: break;
  }
  uint64_t sign = neg ? sign_bit(D) : 0;
  if (mpfr_zero_p(v)) return sign;
  long ev = ilog2(v);
  uint64_t E, M;
  if (ev >= D.emin) {  // normal: v = 2^ev (1 + M/2^m)
    E = (uint64_t)(ev + D.bias);
    mpfr_mul_2si(tmp, v, D.m - ev, MPFR_RNDN);
    M = mpfr_get_ui(tmp, MPFR_RNDN) - (1ull << D.m);
  } else {  // subnormal: v = M 2^(emin-m)
    E = 0;
    mpfr_mul_2si(tmp, v, D.m - D.emin, MPFR_RNDN);
    M = mpfr_get_ui(tmp, MPFR_RNDN);
  }
  return sign | (E << D.m) | M;
}

uint64_t zero_code(const FI& D, bool neg) {
  if (D.kind == Kind::int8 || D.kind == Kind::e8m0) return 0;
  return neg ? sign_bit(D) : 0;
}

uint64_t max_code(const FI& D, bool neg, const Policies& pol) {
  if (D.kind == Kind::int8) return neg ? (pol.int8_minus2 ? 0x80 : 0x81) : 0x7F;
  if (D.kind == Kind::e8m0) return D.max_code;
  return (neg ? sign_bit(D) : 0) | D.max_code;
}

// |max finite| for results of the given sign.
int cmp_max(const FI& D, mpfr_srcptr v, bool neg, const Policies& pol) {
  if (D.kind == Kind::int8 && neg && pol.int8_minus2) return mpfr_cmp_ui_2exp(v, 1, 1);  // 2
  return mpfr_cmp_ui_2exp(v, D.max_sig, D.max_exp);
}

uint64_t inf_code(const FI& D, bool neg) { return (neg ? sign_bit(D) : 0) | (exp_ones(D) << D.m); }

// A NaN of the destination (which has NaN), with payload `frac` of `fm` bits (0 = none).
uint64_t nan_code(const FI& D, bool neg, uint64_t frac, int fm, const Policies& pol) {
  if (D.kind == Kind::e8m0) return 0xFF;
  using NS = Policies::NanSign;
  uint64_t sign = (pol.nan_sign == NS::negative || (neg && pol.nan_sign == NS::preserve)) ? sign_bit(D) : 0;
  if (D.kind == Kind::fn) return sign | (sign_bit(D) - 1);  // the all-ones magnitude
  uint64_t quiet = 1ull << (D.m - 1);
  uint64_t payload = quiet;
  const Policies::Payload rule = pol.nan_payload[static_cast<int>(D.f)];
  if (rule == Policies::Payload::preserve && fm > 0) {
    uint64_t p = D.m >= fm ? (frac << (D.m - fm)) : (frac >> (fm - D.m));
    payload = (p & ((1ull << D.m) - 1)) | quiet;
  } else if (rule == Policies::Payload::all_ones) {
    payload = (1ull << D.m) - 1;
  }
  return sign | (exp_ones(D) << D.m) | payload;
}

uint64_t signed_value_code(const FI& D, bool neg, const Policies& pol);

// A NaN input (sign, fraction of fm bits, signalling?) into D.
Outcome nan_into(const FI& D, bool neg, uint64_t frac, int fm, bool signalling, const Policies& pol) {
  uint8_t fl = signalling ? kV : 0;
  if (D.has_nan) return {nan_code(D, neg, frac, fm, pol), fl};
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
  bool signalling = S.kind == Kind::ieee && ((bits >> (S.m - 1)) & 1) == 0;
  bool neg = S.kind == Kind::e8m0 ? false : ((bits >> (S.w - 1)) & 1) != 0;
  uint64_t frac = bits & ((1ull << S.m) - 1);
  int fm = S.m;
  if (const int ones = pol.nan_canonical_ones[static_cast<int>(S.f)]; ones > 0) {  // e.g. f32 0x7FFFFFFF
    neg = false;
    frac = (1ull << ones) - 1;
    fm = ones;
  }
  return nan_into(D, neg, frac, fm, signalling, pol);
}

// The overflow table of section 4 (rs behaves like rne).
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
      default: break;
    }
  }
  if (to_inf && D.has_inf) return {inf_code(D, neg), fl};
  if (to_inf && D.has_nan) return {nan_code(D, neg, 0, 0, pol), fl};
  return {max_code(D, neg, pol), fl};
}

// Infinity input (section 5.6; e8m0 negatives already resolved by the caller).
Outcome inf_outcome(const FI& D, bool neg, Sat sat, uint8_t extra, const Policies& pol) {
  if (sat == Sat::none && D.has_inf) return {inf_code(D, neg), extra};
  if (sat == Sat::none && D.has_nan) return {nan_code(D, neg, 0, 0, pol), (uint8_t)(extra | kV)};
  return {max_code(D, neg, pol), (uint8_t)(extra | kV)};
}

// Results for mode indices [m0, m1) x sat x tiny.
using Table = Outcome[7][2][2];

void fill(Table& T, int m0, int m1, Outcome o) {
  for (int mi = m0; mi < m1; ++mi)
    for (int s = 0; s < 2; ++s)
      for (int t = 0; t < 2; ++t) T[mi][s][t] = o;
}

// Rounds the exact non-NaN value x into D.
void round_core(const FI& D, mpfr_srcptr x, const Policies& pol, int m0, int m1, const RsReq& rs, Table& T,
                Work& w) {
  bool neg = mpfr_signbit(x) != 0;
  const bool e8 = D.kind == Kind::e8m0;
  const bool ties_up = e8 && pol.e8m0_ties_up;
  // 5.8: the MX element destinations only.
  const bool element = D.f >= Fmt::e4m3 && D.f <= Fmt::int8;
  const bool ties_down = element && pol.ties_toward_zero;
  const bool zeros_positive = element && pol.zeros_positive;

  if (mpfr_zero_p(x)) {  // 5.2, 5.4
    if (!e8) return fill(T, m0, m1, {zero_code(D, neg && !zeros_positive), 0});
    return fill(T, m0, m1, pol.e8m0_zero_nan ? Outcome{0xFF, kV} : Outcome{0x00, (uint8_t)(kU | kX)});
  }

  uint8_t extra = 0;
  if (e8 && neg) {  // 5.4: negative non-zero (finite or -Inf)
    if (!pol.e8m0_negative_magnitude) return fill(T, m0, m1, {0xFF, kV});
    extra = kV;
    neg = false;
  }

  if (mpfr_inf_p(x)) {  // 5.6
    for (int mi = m0; mi < m1; ++mi)
      for (int s = 0; s < 2; ++s) T[mi][s][0] = T[mi][s][1] = inf_outcome(D, neg, (Sat)s, extra, pol);
    return;
  }

  mpfr_abs(w.a, x, MPFR_RNDN);  // exact (w has enough precision)

  if (e8 && mpfr_cmp_ui_2exp(w.a, 1, D.emin) < 0) {  // 5.4: below 2^-127
    if (pol.e8m0_below_nan) return fill(T, m0, m1, {0xFF, (uint8_t)(kV | extra)});
    analyze(D, w.a, true, w.u, w);
    for (int mi = m0; mi < m1; ++mi) {
      bool up = pick_up(mi, neg, w.u, ties_up, rs, w);
      mpfr_srcptr vu = up ? w.u.hi : w.u.lo;
      bool tiny_after = mpfr_cmp_ui_2exp(vu, 1, D.emin) < 0;
      for (int s = 0; s < 2; ++s) {
        T[mi][s][(int)Tiny::after] = {0x00, (uint8_t)(kX | (tiny_after ? kU : 0) | extra)};
        T[mi][s][(int)Tiny::before] = {0x00, (uint8_t)(kX | kU | extra)};
      }
    }
    return;
  }

  Nb& b = w.b;
  analyze(D, w.a, false, b, w);
  const bool can_underflow = D.kind != Kind::int8;
  const bool tiny_before = can_underflow && !b.exact && mpfr_cmp_ui_2exp(w.a, 1, D.emin) < 0;
  if (tiny_before) analyze(D, w.a, true, w.u, w);

  const bool ovf_lo = cmp_max(D, b.lo, neg, pol) > 0;
  const bool ovf_hi = b.exact ? ovf_lo : cmp_max(D, b.hi, neg, pol) > 0;
  const uint64_t code_lo = ovf_lo ? 0 : encode(D, b.lo, neg, w.tmp);
  const uint64_t code_hi = b.exact ? code_lo : (ovf_hi ? 0 : encode(D, b.hi, neg, w.tmp));

  // PyTorch / ml_dtypes E8M0: under the nearest modes every value in (2^-127, 2^-126) rounds up.
  const bool lowest_up = e8 && pol.e8m0_lowest_binade_rounds_up && !b.exact &&
                         mpfr_cmp_ui_2exp(w.a, 1, D.emin + 1) < 0;
  for (int mi = m0; mi < m1; ++mi) {
    bool up = pick_up(mi, neg, b, ties_up, rs, w, ties_down);
    if (lowest_up && (mi == (int)Mode::rne || mi == (int)Mode::rna)) up = true;
    if (up ? ovf_hi : ovf_lo) {
      for (int s = 0; s < 2; ++s) {
        Outcome o = overflow_outcome(D, neg, mi, (Sat)s, pol);
        o.flags |= extra;
        T[mi][s][0] = T[mi][s][1] = o;
      }
      continue;
    }
    uint64_t code = up ? code_hi : code_lo;
    if (zeros_positive && mpfr_zero_p(up ? b.hi : b.lo)) code = zero_code(D, false);  // 5.8
    uint8_t fa = extra, fb = extra;
    if (!b.exact) {
      fa |= kX;
      fb |= kX;
      if (tiny_before) {
        fb |= kU;
        bool upu = pick_up(mi, neg, w.u, ties_up, rs, w, ties_down);
        mpfr_srcptr vu = w.u.exact ? w.a : (upu ? w.u.hi : w.u.lo);
        if (mpfr_cmp_ui_2exp(vu, 1, D.emin) < 0) fa |= kU;
      }
    }
    for (int s = 0; s < 2; ++s) {
      T[mi][s][(int)Tiny::after] = {code, fa};
      T[mi][s][(int)Tiny::before] = {code, fb};
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

void from_code(Fmt src, Fmt dst, uint64_t bits, const Policies& pol, int m0, int m1, const RsReq& rs, Table& T) {
  const FI& S = info(src);
  const FI& D = info(dst);
  bits &= width_mask(S.w);
  if (is_nan_code(src, bits)) return fill(T, m0, m1, nan_from_code(S, bits, D, pol));
  Work& w = work();
  decode(src, bits, w.x);
  round_core(D, w.x, pol, m0, m1, rs, T, w);
}

AllOutcomes to_all(const Table& T) {
  AllOutcomes r;
  for (int mi = 0; mi < kModeCount; ++mi)
    for (int s = 0; s < 2; ++s)
      for (int t = 0; t < 2; ++t) r.r[mi][s][t] = T[mi][s][t];
  return r;
}

}  // namespace

std::optional<Fmt> fmt_from_name(std::string_view n) {
  for (const FI& d : kFI)
    if (n == d.name) return d.f;
  return std::nullopt;
}

std::string_view fmt_name(Fmt f) { return info(f).name; }

int width(Fmt f) { return info(f).w; }

bool is_nan_code(Fmt f, uint64_t code) {
  const FI& D = info(f);
  code &= width_mask(D.w);
  switch (D.kind) {
    case Kind::e8m0: return code == 0xFF;
    case Kind::fn: return (code & (sign_bit(D) - 1)) == sign_bit(D) - 1;
    case Kind::ieee: {
      uint64_t E = (code >> D.m) & exp_ones(D);
      uint64_t M = code & ((1ull << D.m) - 1);
      return E == exp_ones(D) && M != 0;
    }
    default: return false;
  }
}

bool decode(Fmt f, uint64_t code, mpfr_ptr out) {
  const FI& D = info(f);
  code &= width_mask(D.w);
  if (is_nan_code(f, code)) return false;
  switch (D.kind) {
    case Kind::e8m0:  // 2^(c-127)
      mpfr_set_ui_2exp(out, 1, (long)code - D.bias, MPFR_RNDN);
      return true;
    case Kind::int8:  // two's complement k/64; 0x80 = -2
      mpfr_set_si_2exp(out, (long)(int8_t)(uint8_t)code, -D.m, MPFR_RNDN);
      return true;
    default: break;
  }
  const bool neg = (code & sign_bit(D)) != 0;
  const uint64_t E = (code >> D.m) & exp_ones(D);
  const uint64_t M = code & ((1ull << D.m) - 1);
  if (D.kind == Kind::ieee && E == exp_ones(D)) {  // Inf (NaN excluded above)
    mpfr_set_inf(out, neg ? -1 : 1);
    return true;
  }
  if (E == 0)  // zero or subnormal: M 2^(emin-m)
    mpfr_set_ui_2exp(out, M, D.emin - D.m, MPFR_RNDN);
  else  // (2^m + M) 2^(E-bias-m)
    mpfr_set_ui_2exp(out, (1ul << D.m) + M, (long)E - D.bias - D.m, MPFR_RNDN);
  if (neg) mpfr_neg(out, out, MPFR_RNDN);  // keeps -0
  return true;
}

AllOutcomes convert_all(Fmt src, Fmt dst, uint64_t src_bits, const Policies& pol) {
  Table T;
  from_code(src, dst, src_bits, pol, 0, kModeCount, RsReq{}, T);
  return to_all(T);
}

Outcome convert(Fmt src, Fmt dst, uint64_t src_bits, Mode m, Sat s, Tiny t, const Policies& pol) {
  Table T;
  from_code(src, dst, src_bits, pol, (int)m, (int)m + 1, RsReq{}, T);
  return T[(int)m][(int)s][(int)t];
}

Outcome convert_rs(Fmt src, Fmt dst, uint64_t src_bits, unsigned r, uint64_t R, Sat s, Tiny t,
                   const Policies& pol) {
  if (r < 1 || r > 64) throw std::invalid_argument("softmx::oracle::convert_rs: r must be in 1..64");
  if (r < 64 && (R >> r) != 0) throw std::invalid_argument("softmx::oracle::convert_rs: R must be < 2^r");
  Table T;
  from_code(src, dst, src_bits, pol, kRs, kRs + 1, RsReq{r, R}, T);
  return T[kRs][(int)s][(int)t];
}

AllOutcomes round_value_all(mpfr_srcptr x, Fmt dst, const Policies& pol) {
  const FI& D = info(dst);
  Table T;
  if (mpfr_nan_p(x)) {  // not in the contract; treated as a quiet NaN without payload
    fill(T, 0, kModeCount, nan_into(D, mpfr_signbit(x) != 0, 0, 0, false, pol));
    return to_all(T);
  }
  Work& w = work();
  w.ensure(mpfr_get_prec(x));
  round_core(D, x, pol, 0, kModeCount, RsReq{}, T, w);
  return to_all(T);
}

}  // namespace softmx::oracle
