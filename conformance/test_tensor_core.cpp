// conformance/test_tensor_core.cpp: the tensor-core accumulation model (softmx/tensor_core.hpp).
//
// 1. An independent oracle written from the published description (MMA-Sim's t_fdpa and
//    sig_exp_to_fp, docs/TENSOR_CORES.md) with Boost.Multiprecision cpp_int: its own bit-level
//    decoders and encoders of the element, f16 and f32 formats, exact big-integer terms,
//    division for the alignment cut, and an explicit rounding onto the accumulator grid. It
//    shares nothing with the emulator but the parameter struct. Compared on 100k+ random and
//    structured cases per named model (mma entry point and DotGeneral over MX blocks).
// 2. Hand-derived probes: expected codes worked out by hand from the papers' reasoning.
// 3. The limiting case: a huge alignment width, round-to-nearest alignment and one group is
//    the `exact` model rounded once.
// 4. Chained-group specials (docs/TENSOR_CORES.md 5 item 6): a group's result is the next
//    group's C, NaN and Inf included; hand cases per model (TensorCoreProbes.Chained*) and the
//    oracle on cases built to overflow (TensorCoreOracle.ChainedSpecials).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdlib>
#include <sstream>
#include <tuple>
#include <vector>

#include "softmx/dot.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

const bool kSeeded = [] { return setenv("RC_PARAMS", "seed=20261207 max_success=2000", 0) == 0; }();

using boost::multiprecision::cpp_int;
using conformance::Tally;

// ---------------------------------------------------------------------------------------------
// The oracle.

/// A format's bit layout as the OCP MX and IEEE 754 specifications define it.
struct OFormat {
  int ebits, mbits;
  enum { ieee, fn, none } specials;
};
OFormat oformat(FormatId f) {
  switch (f) {
    case FormatId::e4m3: return {4, 3, OFormat::fn};
    case FormatId::e5m2: return {5, 2, OFormat::ieee};
    case FormatId::e3m2: return {3, 2, OFormat::none};
    case FormatId::e2m3: return {2, 3, OFormat::none};
    case FormatId::e2m1: return {2, 1, OFormat::none};
    case FormatId::f16: return {5, 10, OFormat::ieee};
    case FormatId::f32: return {8, 23, OFormat::ieee};
    default: break;
  }
  ADD_FAILURE() << "oracle: no layout for format " << int(f);
  return {8, 23, OFormat::ieee};
}

/// A decoded value: kind 0 zero, 1 finite, 2 inf, 3 nan. finite: (-1)^neg * sig * 2^exp with
/// e = the exponent clamped to emin (MMA-Sim's fp_to_sig_exp: significand in [0, 2)).
struct OVal {
  int kind = 0;
  bool neg = false, snan = false;
  std::uint64_t sig = 0;
  int exp = 0, e = 0;
};

OVal odecode(FormatId f, std::uint64_t code) {
  const OFormat o = oformat(f);
  const int bias = (1 << (o.ebits - 1)) - 1;
  const std::uint64_t mmask = (std::uint64_t{1} << o.mbits) - 1, emask = (std::uint64_t{1} << o.ebits) - 1;
  OVal v;
  v.neg = (code >> (o.ebits + o.mbits)) & 1;
  const std::uint64_t E = (code >> o.mbits) & emask, M = code & mmask;
  if (o.specials == OFormat::ieee && E == emask) {
    v.kind = M == 0 ? 2 : 3;
    v.snan = M != 0 && !((M >> (o.mbits - 1)) & 1);
    return v;
  }
  if (o.specials == OFormat::fn && E == emask && M == mmask) {
    v.kind = 3;
    return v;
  }
  if (E == 0) {
    if (M == 0) return v;
    v.kind = 1;
    v.sig = M;
    v.exp = 1 - bias - o.mbits;
    v.e = 1 - bias;
    return v;
  }
  v.kind = 1;
  v.sig = M | (std::uint64_t{1} << o.mbits);
  v.exp = static_cast<int>(E) - bias - o.mbits;
  v.e = static_cast<int>(E) - bias;
  return v;
}

int msb(const cpp_int& x) { return static_cast<int>(boost::multiprecision::msb(x)); }

/// Encodes (-1)^neg * kept * 2^qe (exactly representable) or Inf into f32/f16 bits.
std::uint32_t oencode(FormatId f, bool neg, const cpp_int& kept, int qe, bool inf) {
  const OFormat o = oformat(f);
  const int bias = (1 << (o.ebits - 1)) - 1, emin = 1 - bias;
  const std::uint32_t sign = neg ? std::uint32_t{1} << (o.ebits + o.mbits) : 0;
  if (inf) return sign | (((std::uint32_t{1} << o.ebits) - 1) << o.mbits);
  if (kept == 0) return sign;
  const int lead = msb(kept) + qe;
  if (lead >= emin) {
    // kept has at most mbits + 2 bits (a rounding carry); the shift places its leading bit at
    // the hidden bit.
    const int shift = o.mbits - msb(kept);
    const cpp_int frac = (shift >= 0 ? cpp_int(kept << shift) : cpp_int(kept >> -shift)) - (cpp_int(1) << o.mbits);
    return sign | (static_cast<std::uint32_t>(lead + bias) << o.mbits) | frac.convert_to<std::uint32_t>();
  }
  const cpp_int field = kept << (qe - (emin - o.mbits));
  return sign | field.convert_to<std::uint32_t>();
}

/// MMA-Sim's model, step by step (docs/TENSOR_CORES.md): the terms of a group, the cut to
/// 2^(E - F), the exact sum, then sig_exp_to_fp onto the accumulator grid.
struct Oracle {
  const TensorCoreParams& p;
  FormatId acc;

  struct OTerm {
    bool neg;
    cpp_int sig;  // value = sig * 2^exp
    int exp, e;
  };

  std::uint32_t nan_code() const { return acc == FormatId::f16 ? p.nan_f16 : p.nan_f32; }

  /// D for products (a_k, b_k, x_k scale exponent) and C. has_c false (DotGeneral): there is
  /// no addend; C = +0 takes no part in the sign of a zero result. The accumulator and every
  /// running value are kept as codes of the accumulator format (each is exactly one), NaN and
  /// Inf included: a step whose terms hold an Inf gives that Inf, or NaN when the other sign
  /// (or a NaN) is there too, as IEEE addition and MMA-Sim's arithmetic on +-inf do
  /// (fdpa.py:78-79, 114-117); a NaN operand anywhere gives NaN.
  std::uint32_t run(const std::vector<OVal>& a, const std::vector<OVal>& b, const std::vector<int>& x, bool nan_scale,
                    std::uint32_t c_code, bool has_c = true) const {
    const OVal c = odecode(acc, c_code);
    bool nan = nan_scale || c.kind == 3;
    for (std::size_t k = 0; k < a.size(); ++k)
      nan |= a[k].kind == 3 || b[k].kind == 3 || (a[k].kind == 2 && b[k].kind == 0) || (a[k].kind == 0 && b[k].kind == 2);
    if (nan) return nan_code();
    const AccumulatorRounding r = acc == FormatId::f16 ? p.f16 : p.f32;
    const bool after = p.addend_stage == AddendStage::after_products;
    // One instruction: n products; position i holds product first + order[i] (identity when
    // the order is empty, and then one instruction spans every product).
    const std::size_t K = a.size(), n = p.product_order.empty() ? K : p.product_order.size();
    const std::size_t L = static_cast<std::size_t>(p.group_size);
    std::uint32_t d = c_code;  // the accumulator
    bool d_present = has_c;
    for (std::size_t first = 0; first < K; first += n) {
      std::uint32_t run = d;  // the running value r of the instruction
      bool run_present = after ? false : d_present;
      const std::size_t positions = p.product_order.empty() ? K - first : n;
      for (std::size_t g = 0; g < positions; g += L) {
        std::vector<std::size_t> ks;
        for (std::size_t pos = g; pos < std::min(positions, g + L); ++pos) {
          const std::size_t k = first + (p.product_order.empty() ? pos : static_cast<std::size_t>(p.product_order[pos]));
          if (k < K) ks.push_back(k);
        }
        if (ks.empty()) continue;
        std::vector<OTerm> t;
        bool all_neg_zero = true, all_pos_zero = true;
        std::vector<std::uint32_t> infs;  // the group's Inf products, as accumulator codes
        for (std::size_t k : ks) {
          const bool neg = a[k].neg != b[k].neg;
          if (a[k].kind == 2 || b[k].kind == 2) {
            infs.push_back(oencode(acc, neg, 0, 0, true));
            continue;
          }
          if (a[k].kind == 0 || b[k].kind == 0) {
            (neg ? all_pos_zero : all_neg_zero) = false;
            continue;
          }
          const cpp_int s = cpp_int(a[k].sig) * b[k].sig;
          const int exp = a[k].exp + b[k].exp + x[k];
          const int e = p.align_reference == AlignReference::operand_exponents ? a[k].e + b[k].e + x[k] : msb(s) + exp;
          t.push_back({neg, s, exp, e});
        }
        std::uint32_t res;
        if (p.addend_in_group) {
          if (run_present && odecode(acc, run).kind == 2) infs.push_back(run);
          if (!infs.empty()) {
            res = infs[0];
            for (std::uint32_t i : infs)
              if (i != res) return nan_code();  // +Inf and -Inf in one fused sum
          } else {
            if (run_present) add_term(t, run, all_neg_zero, all_pos_zero);
            res = group(t, all_neg_zero, all_pos_zero, p.alignment_bits, r.mode);
          }
        } else {
          res = infs.empty() ? group(t, all_neg_zero, all_pos_zero, p.alignment_bits, r.mode) : infs[0];
          if (run_present) res = add_codes(run, res, r.mode);
        }
        if (odecode(acc, res).kind == 3) return nan_code();
        run = res;
        run_present = true;
      }
      if (after && d_present) run = add_codes(d, run, r.addend_mode);
      if (odecode(acc, run).kind == 3) return nan_code();
      d = run;
      d_present = true;
    }
    return d;
  }

  /// A code of the accumulator as one more term (or, zero, as one more zero sign).
  void add_term(std::vector<OTerm>& t, std::uint32_t code, bool& all_neg_zero, bool& all_pos_zero) const {
    const OVal v = odecode(acc, code);
    if (v.kind == 1) {
      const int e = p.align_reference == AlignReference::operand_exponents ? v.e : msb(cpp_int(v.sig)) + v.exp;
      t.push_back({v.neg, cpp_int(v.sig), v.exp, e});
    } else {
      (v.neg ? all_pos_zero : all_neg_zero) = false;
    }
  }

  /// x + y, exact, rounded once under `mode` (no alignment cut); an Inf operand gives itself,
  /// +Inf + -Inf NaN.
  std::uint32_t add_codes(std::uint32_t x, std::uint32_t y, Rounding mode) const {
    const OVal vx = odecode(acc, x), vy = odecode(acc, y);
    if (vx.kind == 2 && vy.kind == 2 && vx.neg != vy.neg) return nan_code();
    if (vx.kind == 2) return x;
    if (vy.kind == 2) return y;
    std::vector<OTerm> t;
    bool all_neg_zero = true, all_pos_zero = true;
    add_term(t, x, all_neg_zero, all_pos_zero);
    add_term(t, y, all_neg_zero, all_pos_zero);
    return group(t, all_neg_zero, all_pos_zero, 100000, mode);
  }

  /// Cuts the terms to 2^(E - F), sums them exactly and rounds onto the grid under `mode`.
  std::uint32_t group(const std::vector<OTerm>& t, bool all_neg_zero, bool all_pos_zero, int F, Rounding mode) const {
    const AccumulatorRounding r = acc == FormatId::f16 ? p.f16 : p.f32;
    const bool rd = mode == Rounding::rd;
    if (t.empty()) return oencode(acc, all_neg_zero || (!all_pos_zero && rd), 0, 0, false);
    int E = t[0].e;
    for (const OTerm& x : t) E = std::max(E, x.e);
    int lowest = t[0].exp;
    for (const OTerm& x : t) lowest = std::min(lowest, x.exp);
    const int base = F >= 100000 ? lowest : E - F;  // the sum is S * 2^base
    cpp_int S = 0;
    for (const OTerm& x : t) {
      cpp_int m;
      if (x.exp >= base) {
        m = x.sig << (x.exp - base);
      } else {
        const cpp_int div = cpp_int(1) << (base - x.exp);
        m = x.sig / div;  // truncation toward zero of the magnitude
        if (p.align_rounding == AlignRounding::nearest_even) {
          const cpp_int rem = x.sig - m * div, half = div / 2;
          if (rem > half || (rem == half && (m & 1) != 0)) m += 1;
        }
      }
      S += x.neg ? cpp_int(-m) : m;
    }
    if (S == 0) return oencode(acc, rd, 0, 0, false);
    const bool neg = S < 0;
    const cpp_int mag = neg ? cpp_int(-S) : S;
    const OFormat o = oformat(acc);
    const int bias = (1 << (o.ebits - 1)) - 1, emin = 1 - bias, emax = bias;
    const int lead = msb(mag) + base;
    const int qe = std::max(lead, emin) - r.fraction_bits;
    cpp_int kept;
    if (qe <= base) {
      kept = mag << (base - qe);
    } else {
      const cpp_int div = cpp_int(1) << (qe - base);
      kept = mag / div;
      const cpp_int rem = mag - kept * div;
      const bool inexact = rem != 0;
      switch (mode) {
        case Rounding::rz: break;
        case Rounding::rne:
          if (rem * 2 > div || (rem * 2 == div && (kept & 1) != 0)) kept += 1;
          break;
        case Rounding::rna:
          if (rem * 2 >= div) kept += 1;
          break;
        case Rounding::ru:
          if (inexact && !neg) kept += 1;
          break;
        case Rounding::rd:
          if (inexact && neg) kept += 1;
          break;
        default: ADD_FAILURE() << "oracle: mode";
      }
    }
    if (kept != 0 && msb(kept) + qe > emax) return oencode(acc, neg, 0, 0, true);
    return oencode(acc, neg, kept, qe, false);
  }
};

// ---------------------------------------------------------------------------------------------
// Drawing cases.

/// A random f32 (or f16) C near the products' magnitudes, with zeros, subnormals, extremes and
/// (rarely) specials.
std::uint32_t random_c(SplitMix64& rng, FormatId acc, bool specials) {
  const bool f16 = acc == FormatId::f16;
  const std::uint32_t sign = static_cast<std::uint32_t>(rng.below(2)) << (f16 ? 15 : 31);
  const int m = f16 ? 10 : 23, bias = f16 ? 15 : 127;
  switch (rng.below(specials ? 10 : 9)) {
    case 0: return sign;                                                          // +-0
    case 1: return sign | static_cast<std::uint32_t>(1 + rng.below((1u << m) - 1));  // subnormal
    case 2: return static_cast<std::uint32_t>(rng.below(f16 ? 0x7C00 : 0x7F800000)) | sign;  // any finite
    case 9: return sign | (f16 ? 0x7C00u : 0x7F800000u) | static_cast<std::uint32_t>(rng.below(2));  // Inf or sNaN
    default: {
      const int lo = f16 ? -14 : -40, hi = f16 ? 15 : 24;
      const int e = lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
      const std::uint32_t frac = static_cast<std::uint32_t>(rng.next() >> (64 - m));
      return sign | (static_cast<std::uint32_t>(e + bias) << m) | frac;
    }
  }
}

/// Random element codes: uniform, or mostly of one binade band (alignment stress), or with
/// pairs that cancel.
std::vector<std::uint8_t> random_codes(SplitMix64& rng, FormatId f, std::size_t k, int kind) {
  const Format& fm = format(f);
  std::vector<std::uint8_t> v(k);
  for (std::size_t i = 0; i < k; ++i) {
    std::uint64_t c = rng.below(fm.code_mask() + 1);
    if (kind == 1 && (fm.specials != Specials::none)) {
      // Avoid specials: keep the magnitude below max finite.
      const std::uint64_t mag = rng.below(fm.max_finite_magnitude() + 1);
      c = mag | (rng.below(2) << (fm.width - 1));
    }
    v[i] = static_cast<std::uint8_t>(c);
  }
  if (kind == 2)
    for (std::size_t i = 1; i < k; i += 2) v[i] = static_cast<std::uint8_t>(v[i - 1] ^ (1u << (fm.width - 1)));
  return v;
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << std::hex << std::uppercase << v;
  return o.str();
}

std::string case_text(FormatId fa, const std::vector<std::uint8_t>& a, FormatId fb, const std::vector<std::uint8_t>& b,
                      FormatId acc, std::uint32_t c) {
  std::ostringstream o;
  o << format(fa).name << "x" << format(fb).name << " acc " << format(acc).name << " A";
  for (auto x : a) o << ' ' << hex(x);
  o << " B";
  for (auto x : b) o << ' ' << hex(x);
  o << " C " << hex(c);
  return o.str();
}

std::vector<OVal> odecode_all(FormatId f, const std::vector<std::uint8_t>& v) {
  std::vector<OVal> r;
  for (auto c : v) r.push_back(odecode(f, c));
  return r;
}

/// The parameters, for messages.
std::string params_text(const TensorCoreParams& p) {
  std::ostringstream o;
  o << "[group " << p.group_size << " F " << p.alignment_bits << (p.align_rounding == AlignRounding::truncate ? " trunc" : " rne")
    << (p.align_reference == AlignReference::operand_exponents ? " opexp" : " prodexp") << (p.addend_in_group ? " in-group" : " added")
    << (p.addend_stage == AddendStage::first_group ? " first" : " after") << " f32 " << p.f32.fraction_bits << "/"
    << name(p.f32.mode) << "/" << name(p.f32.addend_mode) << " f16 " << p.f16.fraction_bits << "/" << name(p.f16.mode) << "/"
    << name(p.f16.addend_mode) << " order";
  for (int k : p.product_order) o << ' ' << k;
  o << "]";
  return o.str();
}

/// One mma case against the oracle.
void check_mma(Tally& t, const TensorCoreModel& m, FormatId fa, const std::vector<std::uint8_t>& a, FormatId fb,
               const std::vector<std::uint8_t>& b, FormatId acc, std::uint32_t c) {
  const Oracle o{m.params(), acc};
  const std::uint32_t want = o.run(odecode_all(fa, a), odecode_all(fb, b), std::vector<int>(a.size(), 0), false, c);
  const Result got = m.mma(fa, a, fb, b, acc, c);
  t.check(got.code == want, [&] {
    return std::string(m.name()) + " " + params_text(m.params()) + " " + case_text(fa, a, fb, b, acc, c) + ": softmx " +
           hex(got.code) + " oracle " + hex(want);
  });
}

constexpr FormatId kFp8[] = {FormatId::e4m3, FormatId::e5m2};

TEST(TensorCoreOracle, RandomMmaPerNamedModel) {
  for (const TensorCoreModel* m : tensor_core_models()) {
    // The GST models (blackwell-mxf4, blackwell-nvf4) take e2m1 x e2m1 only: test_blackwell_mma.
    if (m->params().scale_application == ScaleApplication::per_group) continue;
    Tally t(std::string("tensor-core oracle mma ") + std::string(m->name()));
    SplitMix64 rng(0x7C0DE + t.name().size());
    for (int i = 0; i < 100000; ++i) {
      const FormatId fa = kFp8[rng.below(2)], fb = kFp8[rng.below(2)];
      const FormatId acc = rng.below(4) == 0 ? FormatId::f16 : FormatId::f32;
      const int kind = static_cast<int>(rng.below(3));
      const bool with_specials = rng.below(50) == 0;
      auto a = random_codes(rng, fa, 32, with_specials ? 0 : kind == 0 ? 1 : kind);
      auto b = random_codes(rng, fb, 32, with_specials ? 0 : 1);
      if (kind == 2)  // cancelling pairs need equal B codes
        for (std::size_t k = 1; k < 32; k += 2) b[k] = b[k - 1];
      check_mma(t, *m, fa, a, fb, b, acc, random_c(rng, acc, with_specials));
    }
    t.report();
  }
}

// Group chaining (K > group size), instructions with a product order, the addend's stage and
// the other parameters, on models that are not named.
TEST(TensorCoreOracle, RandomMmaParameterVariants) {
  Tally t("tensor-core oracle mma parameter variants");
  SplitMix64 rng(42);
  constexpr Rounding kModes[] = {Rounding::rz, Rounding::rne, Rounding::rna, Rounding::ru, Rounding::rd};
  for (int i = 0; i < 40000; ++i) {
    TensorCoreParams p;
    p.name = "variant";
    p.group_size = 1 + static_cast<int>(rng.below(40));
    if (rng.below(2)) {
      // An instruction of 1..3 groups, its positions a random permutation (Fisher-Yates).
      const std::size_t n = static_cast<std::size_t>(p.group_size) * (1 + rng.below(3));
      p.product_order.resize(n);
      for (std::size_t j = 0; j < n; ++j) p.product_order[j] = static_cast<int>(j);
      for (std::size_t j = n; j > 1; --j) std::swap(p.product_order[j - 1], p.product_order[rng.below(j)]);
    }
    p.addend_stage = rng.below(2) ? AddendStage::first_group : AddendStage::after_products;
    p.addend_in_group = rng.below(4) != 0;
    p.alignment_bits = static_cast<int>(rng.below(40));
    p.align_rounding = rng.below(2) ? AlignRounding::truncate : AlignRounding::nearest_even;
    p.align_reference = rng.below(2) ? AlignReference::operand_exponents : AlignReference::product_exponent;
    p.f32 = {1 + static_cast<int>(rng.below(23)), kModes[rng.below(5)], kModes[rng.below(5)]};
    p.f16 = {1 + static_cast<int>(rng.below(10)), kModes[rng.below(5)], kModes[rng.below(5)]};
    const TensorCoreModel m(p);
    const FormatId fa = kFp8[rng.below(2)], fb = kFp8[rng.below(2)];
    const FormatId acc = rng.below(3) == 0 ? FormatId::f16 : FormatId::f32;
    const std::size_t k = 1 + rng.below(64);
    auto a = random_codes(rng, fa, k, 1), b = random_codes(rng, fb, k, 1);
    check_mma(t, m, fa, a, fb, b, acc, random_c(rng, acc, false));
  }
  t.report();
}

// DotGeneral over MX blocks: products scaled exactly by the E8M0 scales, C = +0, f32.
TEST(TensorCoreOracle, RandomDotGeneralPerNamedModel) {
  constexpr FormatId kElems[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1};
  for (const TensorCoreModel* m : tensor_core_models()) {
    // The GST models (blackwell-mxf4, blackwell-nvf4) take e2m1 x e2m1 only: test_blackwell_mma.
    if (m->params().scale_application == ScaleApplication::per_group) continue;
    Tally t(std::string("tensor-core oracle dot_general ") + std::string(m->name()));
    SplitMix64 rng(99);
    for (int i = 0; i < 20000; ++i) {
      const FormatId fa = kElems[rng.below(5)], fb = kElems[rng.below(5)];
      const std::size_t k = 1 + rng.below(32), n = 1 + rng.below(3);
      std::vector<std::vector<std::uint8_t>> ca, cb;
      std::vector<BlockRef> ra, rb;
      std::vector<OVal> oa, ob;
      std::vector<int> x;
      bool nan_scale = false;
      for (std::size_t j = 0; j < n; ++j) {
        ca.push_back(random_codes(rng, fa, k, 1));
        cb.push_back(random_codes(rng, fb, k, 1));
      }
      for (std::size_t j = 0; j < n; ++j) {
        const auto sa = static_cast<std::uint8_t>(rng.below(64) == 0 ? rng.below(256) : 0x7F - 20 + rng.below(41));
        const auto sb = static_cast<std::uint8_t>(rng.below(64) == 0 ? rng.below(256) : 0x7F - 20 + rng.below(41));
        nan_scale |= sa == 0xFF || sb == 0xFF;
        ra.push_back({fa, sa, ca[j]});
        rb.push_back({fb, sb, cb[j]});
        for (std::size_t i2 = 0; i2 < k; ++i2) {
          oa.push_back(odecode(fa, ca[j][i2]));
          ob.push_back(odecode(fb, cb[j][i2]));
          x.push_back((sa - 127) + (sb - 127));
        }
      }
      const Oracle o{m->params(), FormatId::f32};
      const std::uint32_t want = o.run(oa, ob, x, nan_scale, 0, false);
      const Result got = dot_general(ra, rb, Context{}, *m);
      t.check(got.code == want, [&] { return std::string(m->name()) + " dot_general case " + std::to_string(i) + ": softmx " +
                                             hex(got.code) + " oracle " + hex(want); });
    }
    t.report();
  }
}

// RapidCheck: any FP8 inputs and any C, both named models, both accumulators.
RC_GTEST_PROP(TensorCoreOracle, AnyInputsMatch, (std::vector<std::uint8_t> a, std::vector<std::uint8_t> b, std::uint32_t c,
                                                 bool e5a, bool e5b, bool f16, bool wg)) {
  a.resize(32);
  b.resize(32);
  const FormatId fa = e5a ? FormatId::e5m2 : FormatId::e4m3, fb = e5b ? FormatId::e5m2 : FormatId::e4m3;
  const FormatId acc = f16 ? FormatId::f16 : FormatId::f32;
  if (f16) c &= 0xFFFF;
  const TensorCoreModel& m = wg ? hopper_fp8_wgmma_model() : hopper_fp8_mma_model();
  const Oracle o{m.params(), acc};
  RC_ASSERT(m.mma(fa, a, fb, b, acc, c).code == o.run(odecode_all(fa, a), odecode_all(fb, b), std::vector<int>(32, 0), false, c));
}

// Chained-group specials against the oracle: operands near the top of e5m2 (so that a group
// overflows an f16 accumulator), an Inf of either sign at a random place, C sometimes +-Inf;
// K from 16 to 64 (one to four groups, one or two instructions). `chained` counts the cases
// whose NaN no rule on the operands alone gives (no NaN operand, one sign of Inf at most): the
// test sees the rule of tensor_core.hpp, "Specials", at work.
TEST(TensorCoreOracle, ChainedSpecials) {
  auto draw_case = [](SplitMix64& rng, std::size_t k, std::vector<std::uint8_t>& a, std::vector<std::uint8_t>& b,
                      std::uint32_t& c, FormatId acc) {
    a.assign(k, 0);
    b.assign(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
      if (rng.below(3) == 0) continue;  // zero products too
      a[i] = static_cast<std::uint8_t>((rng.below(2) << 7) | (0x70 + rng.below(12)));  // 2^12 .. 57344
      b[i] = static_cast<std::uint8_t>((rng.below(2) << 7) | (0x38 + rng.below(0x44)));
    }
    if (rng.below(2)) {  // one Inf, or two of one sign
      const std::uint8_t inf = static_cast<std::uint8_t>(rng.below(2) ? 0x7C : 0xFC);
      for (int n = 1 + static_cast<int>(rng.below(2)); n > 0; --n) {
        const std::size_t i = rng.below(k);
        a[i] = inf, b[i] = 0x3C;  // +-Inf * 1
      }
    }
    const bool f16 = acc == FormatId::f16;
    switch (rng.below(6)) {
      case 0: c = f16 ? 0x7C00 : 0x7F800000; break;
      case 1: c = f16 ? 0xFC00 : 0xFF800000; break;
      case 2: c = f16 ? 0x7BFF : 0x7F7FFFFF; break;
      default: c = 0;
    }
  };
  auto inf_signs = [](const std::vector<std::uint8_t>& a, std::uint32_t c, FormatId acc) {
    int signs = 0;  // bit 0: +Inf seen, bit 1: -Inf seen
    for (std::uint8_t x : a)
      if ((x & 0x7F) == 0x7C) signs |= x & 0x80 ? 2 : 1;
    const std::uint32_t mag = acc == FormatId::f16 ? (c & 0x7FFF) : (c & 0x7FFFFFFF);
    if (mag == (acc == FormatId::f16 ? 0x7C00u : 0x7F800000u)) signs |= (c >> (acc == FormatId::f16 ? 15 : 31)) ? 2 : 1;
    return signs;
  };
  std::vector<const TensorCoreModel*> models;
  for (const TensorCoreModel* m : tensor_core_models())
    if (m->params().scale_application != ScaleApplication::per_group) models.push_back(m);
  std::vector<TensorCoreModel> variants;
  SplitMix64 vrng(2525);
  for (int i = 0; i < 40; ++i) {  // the structures the parameters allow
    TensorCoreParams p = models[vrng.below(models.size())]->params();
    p.name = "chain-variant";
    p.group_size = 1 << (2 + vrng.below(4));  // 4 .. 32
    p.product_order.clear();
    p.addend_stage = vrng.below(2) ? AddendStage::first_group : AddendStage::after_products;
    p.addend_in_group = vrng.below(3) != 0;
    p.zero_exponent.reset();
    variants.emplace_back(p);
  }
  for (const TensorCoreModel& v : variants) models.push_back(&v);
  Tally t("tensor-core oracle chained specials");
  std::size_t chained = 0;
  SplitMix64 rng(0xC4A1);
  for (const TensorCoreModel* m : models)
    for (int i = 0; i < 3000; ++i) {
      const FormatId acc = rng.below(4) ? FormatId::f16 : FormatId::f32;
      const std::size_t k = 16 * (1 + rng.below(4));
      std::vector<std::uint8_t> a, b;
      std::uint32_t c = 0;
      draw_case(rng, k, a, b, c, acc);
      check_mma(t, *m, FormatId::e5m2, a, FormatId::e5m2, b, acc, c);
      const std::uint32_t nan = acc == FormatId::f16 ? m->params().nan_f16 : m->params().nan_f32;
      chained += inf_signs(a, c, acc) != 3 && m->mma(FormatId::e5m2, a, FormatId::e5m2, b, acc, c).code == nan;
    }
  std::printf("[ counts   ] chained specials: %zu of %zu cases NaN with at most one sign of Inf among the operands\n",
              chained, 3000 * models.size());
  EXPECT_GT(chained, 1000u);
  t.report();
}

// ---------------------------------------------------------------------------------------------
// Hand-derived probes (expected codes worked out by hand; docs/TENSOR_CORES.md section 4).

constexpr std::uint8_t kE4One = 0x38, kE5One = 0x3C;

Result mma1(const TensorCoreModel& m, FormatId f, std::vector<std::uint8_t> a, std::vector<std::uint8_t> b, std::uint32_t c,
            FormatId acc = FormatId::f32) {
  a.resize(32, 0);
  b.resize(32, 0);
  return m.mma(f, a, f, b, acc, c);
}

TEST(TensorCoreProbes, ThirteenBitsSurviveAlignment) {
  // wgmma: C = 1.0 and 32 products 2^-7 * 2^-7 = 2^-14 (e5m2 0x20 = 2^-7): E = 0, the quantum
  // is 2^-13, each product truncates to 0: D = 1.0 although the exact sum is 1 + 2^-9.
  // mma (two HMMA k16 steps, then C): the first HMMA sums 16 products exactly (E = -14) to
  // 2^-10, the second adds 16 more to 2^-9, and C is added last: 1 + 2^-9 = 0x3F804000.
  const std::vector<std::uint8_t> tiny(32, 0x20), tiny2(32, 0x24);
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e5m2, tiny, tiny, 0x3F800000).code, 0x3F800000u);
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e5m2, tiny, tiny, 0x3F800000).code, 0x3F804000u);
  for (const TensorCoreModel* m : tensor_core_models()) {
    // Probes of what the Hopper captures confirmed; the unconfirmed models: test_blackwell_mma.
    if (!m->params().confirmed) continue;
    // Products 2^-13 (0x20 x 0x24 = 2^-7 * 2^-6) sit on wgmma's quantum: all survive, D = 1 + 2^-8.
    EXPECT_EQ(mma1(*m, FormatId::e5m2, tiny, tiny2, 0x3F800000).code, 0x3F808000u) << m->name();
  }
}

TEST(TensorCoreProbes, HmmaStepsOfMmaSync) {
  // hopper-fp8-mma groups k mod 4 in {0, 1} (first HMMA) and {2, 3} (second), rounds each into
  // the accumulator and adds C last. f16, C = +0: 1 * 1 at k = 0 and 2^-3 * 2^-8 = 2^-11 (e4m3
  // 0x20 x 0x02) at k = 1 and k = 2. First HMMA: 1 + 2^-11, a tie, RNE: 1.0. Second: 1.0 +
  // 2^-11, again 1.0: D = 0x3C00. wgmma's one group: 1 + 2^-10 exactly, 0x3C01.
  const Result split = mma1(hopper_fp8_mma_model(), FormatId::e4m3, {kE4One, 0x20, 0x20}, {kE4One, 0x02, 0x02}, 0, FormatId::f16);
  EXPECT_EQ(split.code, 0x3C00u);
  EXPECT_TRUE(split.flags & flag::inexact);
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e4m3, {kE4One, 0x20, 0x20}, {kE4One, 0x02, 0x02}, 0, FormatId::f16).code,
            0x3C01u);
  // The second 2^-11 at k = 4 instead (k mod 4 = 0: the first HMMA): 1 + 2^-10 there, 0x3C01.
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e4m3, {kE4One, 0x20, 0, 0, 0x20}, {kE4One, 0x02, 0, 0, 0x02}, 0,
                 FormatId::f16).code,
            0x3C01u);
  // C = 1.0 (f16 0x3C00) with 2^-11 at k = 0 and k = 2: the HMMAs give 2^-11, then 2^-10;
  // 1 + 2^-10 = 0x3C01. Were C the first HMMA's accumulator, each step would be a tie: 0x3C00.
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e4m3, {0x20, 0, 0x20}, {0x02, 0, 0x02}, 0x3C00, FormatId::f16).code, 0x3C01u);
  TensorCoreParams first = hopper_fp8_mma_model().params();
  first.name = "c-first";
  first.addend_stage = AddendStage::first_group;
  EXPECT_EQ(mma1(TensorCoreModel(first), FormatId::e4m3, {0x20, 0, 0x20}, {0x02, 0, 0x02}, 0x3C00, FormatId::f16).code, 0x3C00u);
  // An HMMA keeps 25 bits below its reference: 1.0 * 1.0 + 2^-16 * 2^-4 (e5m2 0x3C, 0x01, 0x2C)
  // in one step, E = 0: 1 + 2^-20 = 0x3F800008 in f32. wgmma's 13 bits cut 2^-20: 1.0.
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e5m2, {kE5One, 0x01}, {kE5One, 0x2C}, 0).code, 0x3F800008u);
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e5m2, {kE5One, 0x01}, {kE5One, 0x2C}, 0).code, 0x3F800000u);
}

TEST(TensorCoreProbes, CarryOutOfTheGroupSeparatesTheModels) {
  // 32 x (1.0 * 1.0) + C = 2^-13. wgmma: E = 0, C sits on the quantum and is kept; the sum
  // 32 + 2^-13 needs 18 fraction bits and e8m13 keeps 13 (RZ): 32.0. mma: the HMMAs give 16,
  // then 32, and C is added last in f32: 32 + 2^-13 exactly, 0x42000020.
  const std::vector<std::uint8_t> ones(32, kE4One);
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e4m3, ones, ones, 0x39000000).code, 0x42000020u);
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e4m3, ones, ones, 0x39000000).code, 0x42000000u);
}

TEST(TensorCoreProbes, LargeAndTinyProduct) {
  for (const TensorCoreModel* m : tensor_core_models()) {
    // Probes of what the Hopper captures confirmed; the unconfirmed models: test_blackwell_mma.
    if (!m->params().confirmed) continue;
    // 448 * 448 = 200704 (0x48440000) and 2^-9 * 2^-9: the tiny product is cut away, inexact.
    const Result r = mma1(*m, FormatId::e4m3, {0x7E, 0x01}, {0x7E, 0x01}, 0);
    EXPECT_EQ(r.code, 0x48440000u) << m->name();
    EXPECT_TRUE(r.flags & flag::inexact) << m->name();
    // Alone, the tiny product is exact: 2^-18 = 0x36800000, no flags.
    const Result t = mma1(*m, FormatId::e4m3, {0x01}, {0x01}, 0);
    EXPECT_EQ(t.code, 0x36800000u) << m->name();
    EXPECT_EQ(t.flags, 0) << m->name();
  }
}

TEST(TensorCoreProbes, NegativeTermsTruncateTowardZero) {
  // wgmma: C = 1.0, product -(1.5 * 2^-14) (e5m2 0xA2 = -1.5 * 2^-7, times 0x20 = 2^-7): below
  // the quantum 2^-13, it truncates toward zero to 0: D = 1.0, not 1 - 1.5 * 2^-14 (0x3F7FFA00,
  // exact in f32 and on e8m13) that truncating the sum would give. mma: the product alone is
  // exact, and C is added last: 1 - 1.5 * 2^-14 exactly, 0x3F7FFA00.
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e5m2, {0xA2}, {0x20}, 0x3F800000).code, 0x3F800000u);
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e5m2, {0xA2}, {0x20}, 0x3F800000).code, 0x3F7FFA00u);
  // Cancellation: 1.0 * 1.0 - 1.0 * 1.0 + C = 2^-20. wgmma: C is below 2^-13 and lost: +0.
  // mma: the first HMMA cancels to +0, C is added last: 2^-20.
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e4m3, {kE4One, 0xB8}, {kE4One, kE4One}, 0x35800000).code, 0x00000000u);
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e4m3, {kE4One, 0xB8}, {kE4One, kE4One}, 0x35800000).code, 0x35800000u);
  for (const TensorCoreModel* m : tensor_core_models()) {
    // Probes of what the Hopper captures confirmed; the unconfirmed models: test_blackwell_mma.
    if (!m->params().confirmed) continue;
    // Every product -0 and C = -0: -0. C = +0: +0.
    EXPECT_EQ(mma1(*m, FormatId::e4m3, std::vector<std::uint8_t>(32, 0x80), {}, 0x80000000).code, 0x80000000u) << m->name();
    EXPECT_EQ(mma1(*m, FormatId::e4m3, std::vector<std::uint8_t>(32, 0x80), {}, 0x00000000).code, 0x00000000u) << m->name();
  }
}

TEST(TensorCoreProbes, SubnormalE4m3ProductsAndTheAlignmentReference) {
  // 0x07 x 0x07 = 49 * 2^-18 (operand exponents -6 + -6 = -12; leading bit 2^-13) and
  // C = 2^-26 (0x32800000). operand_exponents: E = -12, quantum 2^-25, C truncated:
  // D = 49 * 2^-18 = 0x39440000. product_exponent: E = -13, quantum 2^-26, C kept:
  // D = 49 * 2^-18 + 2^-26 = 0x39440400 (in f32 and on e8m13 alike: 2^-26 is 13 bits below 2^-13).
  // mma adds C after the products, exactly: 0x39440400 too.
  EXPECT_EQ(mma1(hopper_fp8_mma_model(), FormatId::e4m3, {0x07}, {0x07}, 0x32800000).code, 0x39440400u);
  EXPECT_EQ(mma1(hopper_fp8_wgmma_model(), FormatId::e4m3, {0x07}, {0x07}, 0x32800000).code, 0x39440000u);
  TensorCoreParams p = hopper_fp8_wgmma_model().params();
  p.name = "product-reference";
  p.align_reference = AlignReference::product_exponent;
  EXPECT_EQ(mma1(TensorCoreModel(p), FormatId::e4m3, {0x07}, {0x07}, 0x32800000).code, 0x39440400u);
  // Flushing subnormal inputs removes the product: D = C.
  p.flush_subnormal_inputs = true;
  EXPECT_EQ(mma1(TensorCoreModel(p), FormatId::e4m3, {0x07}, {0x07}, 0x32800000).code, 0x32800000u);
}

TEST(TensorCoreProbes, F16Accumulate) {
  for (const TensorCoreModel* m : tensor_core_models()) {
    // Probes of what the Hopper captures confirmed; the unconfirmed models: test_blackwell_mma.
    if (!m->params().confirmed) continue;
    // 65504 + 448 * 448: beyond f16, Inf (0x7C00), overflow flagged.
    const Result o = mma1(*m, FormatId::e4m3, {0x7E}, {0x7E}, 0x7BFF, FormatId::f16);
    EXPECT_EQ(o.code, 0x7C00u) << m->name();
    EXPECT_TRUE(o.flags & flag::overflow) << m->name();
    // 1.0 + 2^-11 (0x20 x 0x02 = 2^-3 * 2^-8): a tie at half an f16 ulp, RNE keeps 1.0; with
    // three such products 1 + 1.5 ulp rounds to 1 + 2 ulp (0x3C02).
    EXPECT_EQ(mma1(*m, FormatId::e4m3, {0x20}, {0x02}, 0x3C00, FormatId::f16).code, 0x3C00u) << m->name();
    EXPECT_EQ(mma1(*m, FormatId::e4m3, {0x20, 0x20, 0x20}, {0x02, 0x02, 0x02}, 0x3C00, FormatId::f16).code, 0x3C02u)
        << m->name();
  }
}

TEST(TensorCoreProbes, Specials) {
  for (const TensorCoreModel* m : tensor_core_models()) {
    // Probes of what the Hopper captures confirmed; the unconfirmed models: test_blackwell_mma.
    if (!m->params().confirmed) continue;
    EXPECT_EQ(mma1(*m, FormatId::e4m3, {0x7F}, {kE4One}, 0).code, 0x7FFFFFFFu) << m->name();        // NaN element
    EXPECT_EQ(mma1(*m, FormatId::e5m2, {0x7C}, {kE5One}, 0).code, 0x7F800000u) << m->name();        // Inf
    const Result z = mma1(*m, FormatId::e5m2, {0x7C}, {0x00}, 0);                                   // Inf x 0
    EXPECT_EQ(z.code, 0x7FFFFFFFu) << m->name();
    EXPECT_TRUE(z.flags & flag::invalid) << m->name();
    EXPECT_EQ(mma1(*m, FormatId::e5m2, {0x7C}, {kE5One}, 0xFF800000).code, 0x7FFFFFFFu) << m->name();  // Inf - Inf
    EXPECT_EQ(mma1(*m, FormatId::e4m3, {kE4One}, {kE4One}, 0x7F800000).code, 0x7F800000u) << m->name();  // C = Inf
    EXPECT_EQ(mma1(*m, FormatId::e4m3, {kE4One}, {kE4One}, 0x7E00, FormatId::f16).code, 0x7FFFu) << m->name();  // C NaN
  }
}

TEST(TensorCoreProbes, AddendAfterTheGroup) {
  // With addend_in_group = false the group sum is rounded alone and then added: C = 1.0 and a
  // product 2^-14 keep the product (the group's own reference is -14): 1 + 2^-14 rounded onto
  // e8m13 with RZ is 1.0 again; on f32 (23 bits) it is kept, 0x3F800200.
  TensorCoreParams p = hopper_fp8_wgmma_model().params();
  p.name = "addend-after";
  p.addend_in_group = false;
  p.f32 = {23, Rounding::rz, Rounding::rne};
  EXPECT_EQ(mma1(TensorCoreModel(p), FormatId::e5m2, {0x20}, {0x20}, 0x3F800000).code, 0x3F800200u);
  p.addend_in_group = true;  // C aligned with the product: 2^-14 is 14 bits below E = 0, cut
  EXPECT_EQ(mma1(TensorCoreModel(p), FormatId::e5m2, {0x20}, {0x20}, 0x3F800000).code, 0x3F800000u);
}

// ---------------------------------------------------------------------------------------------
// Chained-group specials (issue 25 item 3). A group's rounded result is the next group's C,
// specials included (tensor_core.hpp, "Specials"; MMA-Sim passes one T-FDPA's result as the
// next one's c, peichenxie/MMA-Sim 0a5ce40 src/mmasim/mmasim/arithmetic/fdpa.py:114-117, and
// Inf/NaN come from the terms' arithmetic, fdpa.py:78-79). e5m2 codes: 0x7B = 1.75 * 2^15 =
// 57344 (max), 0xFB = -57344, 0x7C = +Inf, 0xFC = -Inf, 0x3C = 1.0; f16 0x7C00 +Inf, 0xFC00
// -Inf, 0x7FFF the models' NaN.

constexpr std::uint8_t kE5Max = 0x7B, kE5NegMax = 0xFB, kE5NegInf = 0xFC;

/// K products, all +0 but those given as (1-based k, A code, B code).
Result mma_k(const TensorCoreModel& m, std::size_t k, std::vector<std::tuple<std::size_t, std::uint8_t, std::uint8_t>> at,
             std::uint32_t c, FormatId acc, FormatId f = FormatId::e5m2) {
  std::vector<std::uint8_t> a(k, 0), b(k, 0);
  for (const auto& [i, x, y] : at) a.at(i - 1) = x, b.at(i - 1) = y;
  return m.mma(f, a, f, b, acc, c);
}

constexpr Flags kChainedNanFlags = flag::invalid | flag::overflow | flag::inexact;

TEST(TensorCoreProbes, ChainedGroupOverflowMeetsInfOfTheOtherSign) {
  // ada-fp8-mma, f16, K = 32: groups k 1..16 and 17..32, C in the first (MMA-Sim nv_ptx/sim.py,
  // microsoft/MMA-Sim 414f04e, :13-18 and :35-41: F = 13, L_max = 16 for Ada FP8).
  // Group 1: A_1 * B_1 = 57344^2 = 49 * 2^26 = 3288334336 (N = 7 * 7, q = 13 + 13); E = 15 + 15
  // = 30, quantum 2^17: kept whole; C = +0 adds nothing. RNE onto f16: 2^31.6 >= 2^16: +Inf,
  // overflow. Group 2: C = +Inf (group 1's result) and A_17 * B_17 = -Inf * 1 = -Inf:
  // +Inf + -Inf = NaN (0x7FFF), invalid. The operands alone hold one Inf, -Inf: the rule that
  // looked only at them gave 0xFC00.
  const TensorCoreModel& ada = ada_fp8_mma_model();
  const Result r = mma_k(ada, 32, {{1, kE5Max, kE5Max}, {17, kE5NegInf, kE5One}}, 0, FormatId::f16);
  EXPECT_EQ(r.code, 0x7FFFu);
  EXPECT_EQ(r.flags, kChainedNanFlags);
  // The -Inf in group 1 (k = 2) instead: one fused sum holds 49 * 2^26 and -Inf: -Inf, and
  // group 2 keeps it: 0xFC00, no flags (the exact sum is -Inf too).
  const Result same = mma_k(ada, 32, {{1, kE5Max, kE5Max}, {2, kE5NegInf, kE5One}}, 0, FormatId::f16);
  EXPECT_EQ(same.code, 0xFC00u);
  EXPECT_EQ(same.flags, 0);
  // f32: 49 * 2^26 = 1.53125 * 2^31 lies on e8m13 (0x4F440000), no overflow; group 2: -Inf.
  EXPECT_EQ(mma_k(ada, 32, {{1, kE5Max, kE5Max}, {17, kE5NegInf, kE5One}}, 0, FormatId::f32).code, 0xFF800000u);
  // A +Inf at k = 17 meets +Inf: +Inf (0x7C00); no flags (the exact sum is +Inf).
  const Result plus = mma_k(ada, 32, {{1, kE5Max, kE5Max}, {17, 0x7C, kE5One}}, 0, FormatId::f16);
  EXPECT_EQ(plus.code, 0x7C00u);
  EXPECT_EQ(plus.flags, 0);
  // Group 1 +Inf by overflow, group 2 finite (-57344^2 at k = 17): +Inf + finite = +Inf.
  const Result fin = mma_k(ada, 32, {{1, kE5Max, kE5Max}, {17, kE5NegMax, kE5Max}}, 0, FormatId::f16);
  EXPECT_EQ(fin.code, 0x7C00u);
  EXPECT_EQ(fin.flags, flag::overflow | flag::inexact);
}

TEST(TensorCoreProbes, ChainedSpecialsInTheHmmaStepsOfMmaSync) {
  // hopper-fp8-mma, f16: step 1 = products k mod 4 in {0, 1} (0-based), step 2 = {2, 3}, each
  // rounded to f16, the second taking the first's result as its C, then C added (RNE).
  const TensorCoreModel& mma = hopper_fp8_mma_model();
  // A_1 * B_1 = 57344^2 in step 1: 49 * 2^26 -> f16 +Inf. k = 3 (0-based 2) is in step 2, whose
  // C is that +Inf: with -Inf * 1 there, NaN; C = +0 added last: NaN.
  const Result r = mma_k(mma, 32, {{1, kE5Max, kE5Max}, {3, kE5NegInf, kE5One}}, 0, FormatId::f16);
  EXPECT_EQ(r.code, 0x7FFFu);
  EXPECT_EQ(r.flags, kChainedNanFlags);
  // k = 17 (0-based 16, 16 mod 4 = 0) is in step 1 with the big product: one fused sum, -Inf;
  // step 2 and C keep it: 0xFC00.
  EXPECT_EQ(mma_k(mma, 32, {{1, kE5Max, kE5Max}, {17, kE5NegInf, kE5One}}, 0, FormatId::f16).code, 0xFC00u);
  // No Inf element, C = -Inf (0xFC00): the steps give +Inf (overflow), then C is added last:
  // +Inf + -Inf = NaN. Where C joins the first fused sum (wgmma, Ada) it decides: -Inf.
  const Result c = mma_k(mma, 32, {{1, kE5Max, kE5Max}}, 0xFC00, FormatId::f16);
  EXPECT_EQ(c.code, 0x7FFFu);
  EXPECT_EQ(c.flags, kChainedNanFlags);
  EXPECT_EQ(mma_k(hopper_fp8_wgmma_model(), 32, {{1, kE5Max, kE5Max}}, 0xFC00, FormatId::f16).code, 0xFC00u);
  EXPECT_EQ(mma_k(ada_fp8_mma_model(), 32, {{1, kE5Max, kE5Max}}, 0xFC00, FormatId::f16).code, 0xFC00u);
  // e4m3 too (no Inf code): 448^2 = 200704 > 65504 overflows f16 in step 1 (0x7E = 448).
  EXPECT_EQ(mma_k(mma, 32, {{1, 0x7E, 0x7E}}, 0xFC00, FormatId::f16, FormatId::e4m3).code, 0x7FFFu);
}

TEST(TensorCoreProbes, ChainedSpecialsAcrossInstructions) {
  // K = 64: two instructions, the first one's D the second one's C, for every model that
  // chains (the GST models: below). A_1 * B_1 = 57344^2 makes instruction 1 (products 1..32)
  // +Inf in f16 (every model: 49 * 2^26 >= 2^16); A_33 = -Inf, B_33 = 1 is in instruction 2.
  //   first_group models (wgmma, tcgen05 f8f6f4, Ada): +Inf is a term of instruction 2's
  //   first fused sum, which holds -Inf: NaN.
  //   hopper-fp8-mma: instruction 2's steps start empty; k = 33 (position 0) is in step 1:
  //   -Inf; then D1 = +Inf is added: NaN.
  for (const TensorCoreModel* m : tensor_core_models()) {
    if (m->params().scale_application == ScaleApplication::per_group) continue;
    const Result r = mma_k(*m, 64, {{1, kE5Max, kE5Max}, {33, kE5NegInf, kE5One}}, 0, FormatId::f16);
    EXPECT_EQ(r.code, 0x7FFFu) << m->name();
    EXPECT_EQ(r.flags, kChainedNanFlags) << m->name();
  }
  // No Inf operand: instruction 1 overflows to +Inf, instruction 2's products (-57344^2 at k =
  // 33) to -Inf on their own. hopper-fp8-mma: D1 = +Inf; instruction 2: step 1 -Inf (it starts
  // empty), step 2 -Inf, + D1: NaN (the old rule stopped at the first Inf: +Inf). wgmma:
  // instruction 2's fused sum holds +Inf as its C: +Inf + finite = +Inf.
  const std::vector<std::tuple<std::size_t, std::uint8_t, std::uint8_t>> opp{{1, kE5Max, kE5Max}, {33, kE5NegMax, kE5Max}};
  const Result h = mma_k(hopper_fp8_mma_model(), 64, opp, 0, FormatId::f16);
  EXPECT_EQ(h.code, 0x7FFFu);
  EXPECT_EQ(h.flags, kChainedNanFlags);
  const Result w = mma_k(hopper_fp8_wgmma_model(), 64, opp, 0, FormatId::f16);
  EXPECT_EQ(w.code, 0x7C00u);
  EXPECT_EQ(w.flags, flag::overflow | flag::inexact);
  // K = 32 with the -Inf at k = 17: one fused sum for wgmma and tcgen05: -Inf.
  for (const TensorCoreModel* m : {&hopper_fp8_wgmma_model(), &blackwell_f8f6f4_model()})
    EXPECT_EQ(mma_k(*m, 32, {{1, kE5Max, kE5Max}, {17, kE5NegInf, kE5One}}, 0, FormatId::f16).code, 0xFC00u) << m->name();
}

TEST(TensorCoreProbes, ChainedSpecialsInDotGeneral) {
  // DotGeneral runs the same steps over its blocks (f32, no C). Two e4m3 blocks of 32 with
  // scales 2^127 * 2^127 (E8M0 0xFE): block 1's 448 * 448 * 2^254 = 1.53125 * 2^271 and block
  // 2's -448 * 448 * 2^254 (0xFE = -448) each overflow f32 on their own.
  //   hopper-fp8-mma: instruction 1 = +Inf; instruction 2 starts empty: -Inf; + D1: NaN.
  //   hopper-fp8-wgmma: instruction 2's fused sum takes +Inf as its C: +Inf.
  std::vector<std::uint8_t> a1(32, 0), b1(32, 0), a2(32, 0), b2(32, 0);
  a1[0] = b1[0] = 0x7E;
  a2[0] = 0xFE, b2[0] = 0x7E;
  const std::vector<BlockRef> ra{{FormatId::e4m3, 0xFE, a1}, {FormatId::e4m3, 0xFE, a2}};
  const std::vector<BlockRef> rb{{FormatId::e4m3, 0xFE, b1}, {FormatId::e4m3, 0xFE, b2}};
  const Result h = dot_general(ra, rb, Context{}, hopper_fp8_mma_model());
  EXPECT_EQ(h.code, 0x7FFFFFFFu);
  EXPECT_TRUE(h.flags & flag::invalid);
  EXPECT_EQ(dot_general(ra, rb, Context{}, hopper_fp8_wgmma_model()).code, 0x7F800000u);
}

TEST(TensorCoreProbes, GstRunsKeepAnOverflowedInf) {
  // blackwell-mxf4 (GST-FDPA, runs of 64, C one more term of each run's fused sum, MMA-Sim
  // fdpa.py:199-227): K = 128, UE8M0 0xFE (2^127) on every block of 32. Run 1: e2m1 6 * 6 = 36
  // at k = 1, times 2^254: 1.125 * 2^259 -> f32 +Inf (>= 2^128). Run 2 takes +Inf as its C;
  // its group -36 * 2^254 (0xF = -6 at k = 65) is a finite term of that fused sum: +Inf. E2M1
  // has no Inf, so no later run can hold the other sign: a GST run's Inf is final (run_gst stops
  // there), and no NaN can come from a chain.
  std::vector<std::uint8_t> a(128, 0), b(128, 0), s(4, 0xFE);
  a[0] = b[0] = 0x7, a[64] = 0xF, b[64] = 0x7;
  const Result r = blackwell_mxf4_model().mma_scaled(FormatId::e2m1, a, FormatId::e2m1, b, FormatId::e8m0, 32, s, s,
                                                     FormatId::f32, 0);
  EXPECT_EQ(r.code, 0x7F800000u);
  EXPECT_TRUE(r.flags & flag::overflow);
}

TEST(TensorCoreProbes, AllNegativeZeroSumIsOpen) {
  // A all -0, B +0 (products -0), C = -0: IEEE 754 6.3 gives -0 (every term -0), which softmx
  // follows; MMA-Sim sums with torch's sum from +0 (fdpa.py:79) and would give +0. No hardware
  // result settles it (docs/TENSOR_CORES.md 5, item 5; gen mma level 1 item 1 holds the probe).
  for (const TensorCoreModel* m : tensor_core_models()) {
    if (m->params().scale_application == ScaleApplication::per_group) continue;
    for (FormatId acc : {FormatId::f32, FormatId::f16}) {
      const std::uint32_t neg0 = acc == FormatId::f16 ? 0x8000 : 0x80000000;
      EXPECT_EQ(m->mma(FormatId::e4m3, std::vector<std::uint8_t>(32, 0x80), FormatId::e4m3, std::vector<std::uint8_t>(32, 0),
                       acc, neg0).code,
                neg0)
          << m->name();
    }
  }
}

TEST(TensorCoreModel, RejectsBadParametersAndOperands) {
  TensorCoreParams p;
  p.name = "bad";
  p.group_size = 0;
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  p.group_size = 32;
  p.f32.fraction_bits = 24;
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  p.f32.fraction_bits = 13;
  p.f16.mode = Rounding::rs;
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  p.f16.mode = Rounding::rne;
  p.f32.addend_mode = Rounding::rs;
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  p.f32.addend_mode = Rounding::rne;
  p.group_size = 16;
  p.product_order = {0, 1, 2};  // not a multiple of the group size
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  p.product_order.assign(16, 0);  // not a permutation
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  for (int i = 0; i < 16; ++i) p.product_order[static_cast<std::size_t>(i)] = 15 - i;
  EXPECT_NO_THROW(TensorCoreModel{p});
  p.product_order[3] = 16;  // out of range
  EXPECT_THROW(TensorCoreModel{p}, std::invalid_argument);
  const TensorCoreModel& m = hopper_fp8_mma_model();
  const std::vector<std::uint8_t> a(32, 0), b(31, 0), big(32, 0x40);
  EXPECT_THROW(m.mma(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0), std::invalid_argument);
  EXPECT_THROW(m.mma(FormatId::f16, a, FormatId::e4m3, a, FormatId::f32, 0), std::invalid_argument);
  EXPECT_THROW(m.mma(FormatId::e4m3, a, FormatId::e4m3, a, FormatId::bf16, 0), std::invalid_argument);
  EXPECT_THROW(m.mma(FormatId::e4m3, a, FormatId::e4m3, a, FormatId::f16, 0x10000), std::invalid_argument);
  EXPECT_THROW(m.mma(FormatId::e2m1, big, FormatId::e4m3, a, FormatId::f32, 0), std::invalid_argument);
}

TEST(TensorCoreModel, NamedModelsAreFoundByName) {
  EXPECT_EQ(find_accumulation_model("hopper-fp8-mma"), &hopper_fp8_mma_model());
  EXPECT_EQ(find_accumulation_model("hopper-fp8-wgmma"), &hopper_fp8_wgmma_model());
  EXPECT_EQ(find_tensor_core_model("exact"), nullptr);
  EXPECT_EQ(find_accumulation_model("hopper-fp8"), nullptr);
}

TEST(TensorCoreModel, TraceAgreesWithTheResult) {
  const std::vector<std::uint8_t> a{0x7E, 0x01, 0xB8}, b{0x7E, 0x01, 0x38};
  const TensorCoreTrace t = hopper_fp8_wgmma_model().trace(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0x3F800000);
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].reference, 16);  // 448 = 1.75 * 2^8: e = 8 per operand
  EXPECT_EQ(t.groups[0].quantum, 16 - 13);
  ASSERT_EQ(t.groups[0].terms.size(), 4u);  // three products and C
  EXPECT_FALSE(t.groups[0].terms[1].kept_exact);  // 2^-18 is cut
  EXPECT_EQ(t.groups[0].result, t.result.code);
  EXPECT_EQ(t.result.code, hopper_fp8_wgmma_model().mma(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0x3F800000).code);
}

TEST(TensorCoreModel, TraceShowsTheHmmaStepsAndTheAddend) {
  std::vector<std::uint8_t> a(32, kE4One), b(32, kE4One);
  const TensorCoreTrace t = hopper_fp8_mma_model().trace(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0x3F800000);
  ASSERT_EQ(t.groups.size(), 3u);  // two HMMA steps, then C
  const std::vector<int> first{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29};
  EXPECT_EQ(t.groups[0].products, first);
  EXPECT_EQ(t.groups[0].first, -1);  // not consecutive
  EXPECT_EQ(t.groups[0].count, 16);
  EXPECT_EQ(t.groups[0].result, 0x41800000u);  // 16
  EXPECT_EQ(t.groups[1].products.front(), 2);
  EXPECT_EQ(t.groups[1].terms.size(), 17u);  // 16 products and the first step's result
  EXPECT_EQ(t.groups[1].result, 0x42000000u);  // 32
  EXPECT_TRUE(t.groups[2].addend_step);
  ASSERT_EQ(t.groups[2].terms.size(), 2u);
  EXPECT_EQ(t.groups[2].terms[0].index, -1);  // C
  EXPECT_EQ(t.groups[2].terms[1].index, -2);  // the HMMAs' result
  EXPECT_EQ(t.groups[2].result, 0x42040000u);  // 33
  EXPECT_EQ(t.result.code, 0x42040000u);
  // wgmma: one group of consecutive products 1..32.
  const TensorCoreTrace w = hopper_fp8_wgmma_model().trace(FormatId::e4m3, a, FormatId::e4m3, b, FormatId::f32, 0x3F800000);
  ASSERT_EQ(w.groups.size(), 1u);
  EXPECT_EQ(w.groups[0].first, 0);
  EXPECT_EQ(w.groups[0].count, 32);
}

// ---------------------------------------------------------------------------------------------
// The limiting case: alignment wider than any term's span, rounding to nearest, one group,
// f32 RNE: the model is the exact sum rounded once.

TEST(TensorCoreLimit, HugeAlignmentIsExactRoundedOnce) {
  TensorCoreParams p;
  p.name = "limit";
  p.group_size = 4096;
  p.alignment_bits = 1000;
  p.align_rounding = AlignRounding::nearest_even;
  p.f32 = {23, Rounding::rne};
  p.nan_f32 = 0x7FC00000;  // the exact model's canonical NaN
  const TensorCoreModel m(p);
  constexpr FormatId kElems[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8};
  Tally t("tensor-core limit = exact rounded once");
  SplitMix64 rng(7);
  Context ctx;
  ctx.rounding = Rounding::rne;
  ctx.saturation = Saturation::none;
  for (int i = 0; i < 20000; ++i) {
    const FormatId fa = kElems[rng.below(6)], fb = kElems[rng.below(6)];
    const std::size_t k = 1 + rng.below(32), n = 1 + rng.below(4);
    std::vector<std::vector<std::uint8_t>> ca(n), cb(n);
    std::vector<BlockRef> ra, rb;
    for (std::size_t j = 0; j < n; ++j) {
      ca[j] = random_codes(rng, fa, k, i % 3 == 2 ? 2 : 0);
      cb[j] = random_codes(rng, fb, k, 0);
      if (i % 3 == 2) cb[j] = std::vector<std::uint8_t>(k, cb[j][0]);
      const int spread = i % 5 == 0 ? 255 : 41;
      auto draw = [&] { return static_cast<std::uint8_t>(spread == 255 ? rng.below(256) : 0x7F - 20 + rng.below(41)); };
      ra.push_back({fa, draw(), ca[j]});
      rb.push_back({fb, draw(), cb[j]});
    }
    const Result got = dot_general(ra, rb, ctx, m), want = dot_general(ra, rb, ctx, exact_accumulation());
    t.check(got.code == want.code, [&] { return "case " + std::to_string(i) + ": model " + hex(got.code) + " exact " + hex(want.code); });
  }
  t.report();
}

}  // namespace
}  // namespace softmx
