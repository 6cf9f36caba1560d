// IEEE P3109 projection oracle: see p3109_oracle.hpp. Each function below is one of the
// interim report v4.0's auxiliary operations, in its notation (X a closed extended real,
// B the bias, Q the quantum exponent, S̃ the real significand, ν its fraction).
#include "oracles/p3109_oracle.hpp"

#include <algorithm>
#include <stdexcept>

namespace softmx::p3109oracle {
namespace {

constexpr uint8_t kX = 0x01, kU = 0x02, kO = 0x04, kV = 0x10;
constexpr mpfr_prec_t kPrec = 256;  // every value here is exact: f64 inputs, codes of <= 16 bits

struct Tmp {
  mpfr_t a, st, fl, nu, z, t, hi, lo;
  Tmp() {
    for (mpfr_ptr v : {a, st, fl, nu, z, t, hi, lo}) mpfr_init2(v, kPrec);
  }
  ~Tmp() {
    for (mpfr_ptr v : {a, st, fl, nu, z, t, hi, lo}) mpfr_clear(v);
  }
};
Tmp& tmp() {
  static thread_local Tmp t;
  return t;
}

// 3.1: B = 2^(K-P-1) for signed formats, 2^(K-P) for unsigned.
long bias(const Format& f) { return 1L << (f.K - f.P - (f.is_signed ? 1 : 0)); }
uint64_t nan_code(const Format& f) { return f.is_signed ? 1ull << (f.K - 1) : (1ull << f.K) - 1; }  // 4.7.6
uint64_t inf_code(const Format& f) { return f.is_signed ? (1ull << (f.K - 1)) - 1 : (1ull << f.K) - 2; }
// MaxFiniteOf(f): the code below the first special one.
uint64_t max_finite_code(const Format& f) {
  if (f.is_signed) return (1ull << (f.K - 1)) - (f.extended ? 2 : 1);
  return (1ull << f.K) - (f.extended ? 3 : 2);
}

// 4.7.2 ωDecodeAux for a code that is not NaN or an infinity.
void decode_finite(const Format& f, uint64_t x, mpfr_ptr out) {
  const long B = bias(f), P = f.P;
  const uint64_t T = x % (1ull << (P - 1));
  const uint64_t Eb = x / (1ull << (P - 1));
  if (Eb == 0)
    mpfr_set_ui_2exp(out, T, 1 - P + 1 - B, MPFR_RNDN);  // (0 + T 2^(1-P)) 2^(1-B)
  else
    mpfr_set_ui_2exp(out, (1ull << (P - 1)) + T, (long)Eb - B - (P - 1), MPFR_RNDN);  // (1 + T 2^(1-P)) 2^(Eb-B)
}

}  // namespace

void decode(const Format& f, uint64_t x, mpfr_ptr out) {
  const uint64_t half = 1ull << (f.K - 1);
  if (x == nan_code(f)) return mpfr_set_nan(out);
  if (f.extended && x == inf_code(f)) return mpfr_set_inf(out, 1);
  if (f.extended && f.is_signed && x == (1ull << f.K) - 1) return mpfr_set_inf(out, -1);
  if (f.is_signed && x > half) {
    decode_finite(f, x - half, out);
    mpfr_neg(out, out, MPFR_RNDN);
    return;
  }
  decode_finite(f, x, out);
}

namespace {

bool is_even_ui(mpfr_srcptr v) {  // v a non-negative integer
  Tmp& w = tmp();
  mpfr_div_2ui(w.t, v, 1, MPFR_RNDN);
  return mpfr_integer_p(w.t) != 0;
}

// floor(ν 2^n) as an integer (ν in [0, 1), n <= 64).
unsigned __int128 scaled_floor(mpfr_srcptr nu, unsigned n) {
  Tmp& w = tmp();
  mpfr_mul_2ui(w.t, nu, n, MPFR_RNDN);
  mpfr_floor(w.t, w.t);
  const uint64_t hi = mpfr_get_ui(w.t, MPFR_RNDZ);  // < 2^64 for n <= 64 (ν < 1)
  return hi;
}

// 4.7.4 ωRoundToPrecision_{P,B,µ}(X) for a finite non-zero X, into z. `unbounded`: with the
// exponent range unbounded below (Q = floor(log2|X|) - P + 1), for tininess only.
void round_to_precision(const Format& f, mpfr_srcptr X, const Projection& rho, bool unbounded, mpfr_ptr z) {
  Tmp& w = tmp();
  const long B = bias(f), P = f.P;
  mpfr_abs(w.a, X, MPFR_RNDN);
  const long e = (long)mpfr_get_exp(w.a) - 1;  // floor(log2 |X|)
  const long Q = (unbounded ? e : std::max(e, 1 - B)) - P + 1;
  mpfr_mul_2si(w.st, w.a, -Q, MPFR_RNDN);  // S̃ = |X| 2^-Q, exact
  mpfr_floor(w.fl, w.st);
  mpfr_sub(w.nu, w.st, w.fl, MPFR_RNDN);  // ν
  const bool neg = mpfr_signbit(X) != 0;
  const bool nu_pos = !mpfr_zero_p(w.nu);
  const int half = mpfr_cmp_ui_2exp(w.nu, 1, -1);
  const bool code_even = P > 1 ? is_even_ui(w.fl) : (mpfr_zero_p(w.fl) || ((Q + B) % 2 == 0));
  const unsigned N = rho.N;
  bool away = false;
  switch (rho.round) {
    case Round::TowardZero: away = false; break;
    case Round::TowardPositive: away = nu_pos && !neg; break;
    case Round::TowardNegative: away = nu_pos && neg; break;
    case Round::NearestTiesToAway: away = half >= 0; break;
    case Round::NearestTiesToEven: away = half > 0 || (half == 0 && !code_even); break;
    case Round::ToOdd: away = nu_pos && code_even; break;
    case Round::StochasticA: away = scaled_floor(w.nu, N) + rho.R >= ((unsigned __int128)1 << N); break;
    case Round::StochasticB:
      away = scaled_floor(w.nu, N + 1) + 2 * (unsigned __int128)rho.R + 1 >= ((unsigned __int128)1 << (N + 1));
      break;
    case Round::StochasticC: {
      // RNITE(ν 2^N): floor, +1 above the half or at the half with an odd floor.
      const unsigned __int128 F = scaled_floor(w.nu, N);
      mpfr_mul_2ui(w.t, w.nu, N, MPFR_RNDN);
      mpfr_sub_ui(w.t, w.t, (unsigned long)F, MPFR_RNDN);  // the fraction of ν 2^N
      const int c = mpfr_cmp_ui_2exp(w.t, 1, -1);
      const unsigned __int128 rn = F + ((c > 0 || (c == 0 && (F & 1))) ? 1 : 0);
      away = rn + rho.R >= ((unsigned __int128)1 << N);
      break;
    }
  }
  if (away) mpfr_add_ui(w.fl, w.fl, 1, MPFR_RNDN);
  mpfr_mul_2si(z, w.fl, Q, MPFR_RNDN);  // Z = sgn(X) S 2^Q
  if (neg) mpfr_neg(z, z, MPFR_RNDN);
}

// 4.7.6 ωEncode for a finite X >= 0 in the datum set.
uint64_t encode_nonneg(const Format& f, mpfr_srcptr X) {
  if (mpfr_zero_p(X)) return 0;
  Tmp& w = tmp();
  const long B = bias(f), P = f.P;
  const long E = std::max((long)mpfr_get_exp(X) - 1, 1 - B);
  mpfr_mul_2si(w.t, X, -E + (P - 1), MPFR_RNDN);  // S = X 2^-E 2^(P-1)
  if (!mpfr_integer_p(w.t)) throw std::logic_error("p3109oracle: encode of a value outside the datum set");
  const uint64_t S = mpfr_get_ui(w.t, MPFR_RNDN);
  const uint64_t T = S % (1ull << (P - 1));
  if (S < (1ull << (P - 1))) return T;
  return T + (uint64_t)(E + B) * (1ull << (P - 1));
}

enum class Kind { finite, pinf, ninf, nan };

}  // namespace

Outcome project(mpfr_srcptr X, const Format& f, const Projection& rho, bool signalling) {
  if (rho.round >= Round::StochasticA && (rho.N < 1 || rho.N > 63 || (rho.R >> rho.N) != 0))
    throw std::invalid_argument("p3109oracle: stochastic rounding needs 1 <= N <= 63 and R < 2^N");
  Tmp& w = tmp();
  if (mpfr_nan_p(X)) return {nan_code(f), signalling ? kV : (uint8_t)0};  // ωProject(NaN) -> NaN
  // Mhi, Mlo (4.7.3).
  mpfr_t Mhi;
  mpfr_init2(Mhi, kPrec);
  decode(f, max_finite_code(f), Mhi);
  // R = ωRoundToPrecision(X): X itself for 0 and ±∞.
  mpfr_t Z;
  mpfr_init2(Z, kPrec);
  const bool finite_nonzero = mpfr_number_p(X) && !mpfr_zero_p(X);
  if (finite_nonzero) round_to_precision(f, X, rho, false, Z);
  else if (mpfr_zero_p(X)) mpfr_set_zero(Z, 1);  // the closed extended reals have no -0
  else mpfr_set(Z, X, MPFR_RNDN);
  // S = ωSaturate(Sat, Round, Z, Σ, ∆) (4.7.5), rules in order. Mlo = -Mhi signed, 0 unsigned.
  const bool S_ = f.is_signed, E_ = f.extended;
  const bool pinf = mpfr_inf_p(Z) && mpfr_sgn(Z) > 0, ninf = mpfr_inf_p(Z) && mpfr_sgn(Z) < 0;
  const bool above = !mpfr_inf_p(Z) && mpfr_cmp(Z, Mhi) > 0;
  bool below;
  if (S_) {
    mpfr_neg(w.lo, Mhi, MPFR_RNDN);
    below = !mpfr_inf_p(Z) && mpfr_cmp(Z, w.lo) < 0;
  } else {
    below = !mpfr_inf_p(Z) && mpfr_sgn(Z) < 0;
  }
  const Round r = rho.round;
  Kind k = Kind::finite;
  enum class Val { z, mhi, mlo } val = Val::z;
  if (!pinf && !ninf && !above && !below) {
    val = Val::z;
  } else if (rho.sat == Sat::SatFinite) {
    val = (pinf || above) ? Val::mhi : Val::mlo;
  } else if (rho.sat == Sat::SatPropagate) {
    if (pinf) {
      if (E_) k = Kind::pinf; else val = Val::mhi;
    } else if (ninf) {
      if (S_ && E_) k = Kind::ninf; else val = Val::mlo;
    } else {
      val = below ? Val::mlo : Val::mhi;
    }
  } else {  // SatNone
    if (pinf) {
      if (E_) k = Kind::pinf; else val = Val::mhi;
    } else if (ninf) {
      if (S_ && E_) k = Kind::ninf;
      else if (!S_) k = Kind::nan;
      else val = Val::mlo;
    } else if (r == Round::ToOdd && above && !S_ && E_) {
      val = Val::mhi;
    } else if ((r == Round::TowardZero || r == Round::TowardNegative) && above) {
      val = Val::mhi;
    } else if ((r == Round::TowardZero || r == Round::TowardPositive) && below) {
      val = Val::mlo;
    } else if (below && S_ && E_) {
      k = Kind::ninf;
    } else if (below && !S_) {
      k = Kind::nan;
    } else if (below) {
      val = Val::mlo;
    } else if (above && E_) {
      k = Kind::pinf;
    } else {
      val = Val::mhi;
    }
  }
  // x = ωEncode(S).
  Outcome out;
  if (k == Kind::nan) out.code = nan_code(f);
  else if (k == Kind::pinf) out.code = inf_code(f);
  else if (k == Kind::ninf) out.code = inf_code(f) + (1ull << (f.K - 1));
  else {
    mpfr_srcptr v = val == Val::z ? Z : Mhi;
    bool neg = false;
    if (val == Val::mlo) {
      v = Mhi;
      neg = S_;
      if (!S_) mpfr_set_zero(w.hi, 1), v = w.hi;
    } else if (val == Val::z) {
      neg = mpfr_sgn(Z) < 0;
    }
    mpfr_abs(w.hi, v, MPFR_RNDN);
    out.code = encode_nonneg(f, w.hi) + (neg ? (1ull << (f.K - 1)) : 0);
  }
  // softmx's flags (header comment).
  if (mpfr_inf_p(X)) {
    const bool inf_out = k == Kind::pinf || k == Kind::ninf;
    out.flags = inf_out ? 0 : kV;
  } else if (finite_nonzero) {
    if (!S_ && mpfr_sgn(X) < 0 && !mpfr_zero_p(Z)) {
      out.flags = k == Kind::nan ? kV : (uint8_t)(kV | kX);
    } else if (above || below) {
      out.flags = kO | kX;
    } else {
      const bool inexact = mpfr_cmp(Z, X) != 0;
      bool tiny = false;
      if (inexact) {
        mpfr_t U;
        mpfr_init2(U, kPrec);
        round_to_precision(f, X, rho, true, U);
        mpfr_set_ui_2exp(w.t, 1, 1 - bias(f), MPFR_RNDN);
        tiny = mpfr_cmpabs(U, w.t) < 0;  // never zero: the unbounded rounding keeps P bits
        mpfr_clear(U);
      }
      out.flags = (inexact ? kX : 0) | (tiny ? kU : 0);
    }
  }
  mpfr_clear(Z);
  mpfr_clear(Mhi);
  return out;
}

}  // namespace softmx::p3109oracle
