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
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdlib>
#include <sstream>
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
  /// running value are kept as codes of the accumulator format (each is exactly one).
  std::uint32_t run(const std::vector<OVal>& a, const std::vector<OVal>& b, const std::vector<int>& x, bool nan_scale,
                    std::uint32_t c_code, bool has_c = true) const {
    const OVal c = odecode(acc, c_code);
    bool nan = nan_scale || c.kind == 3, pinf = c.kind == 2 && !c.neg, ninf = c.kind == 2 && c.neg;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k].kind == 3 || b[k].kind == 3) nan = true;
      else if (a[k].kind == 2 || b[k].kind == 2) {
        if (a[k].kind == 0 || b[k].kind == 0) nan = true;
        else ((a[k].neg != b[k].neg) ? ninf : pinf) = true;
      }
    }
    if (nan || (pinf && ninf)) return nan_code();
    if (pinf || ninf) return oencode(acc, ninf, 0, 0, true);
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
        for (std::size_t k : ks) {
          const bool neg = a[k].neg != b[k].neg;
          if (a[k].kind == 0 || b[k].kind == 0) {
            (neg ? all_pos_zero : all_neg_zero) = false;
            continue;
          }
          const cpp_int s = cpp_int(a[k].sig) * b[k].sig;
          const int exp = a[k].exp + b[k].exp + x[k];
          const int e = p.align_reference == AlignReference::operand_exponents ? a[k].e + b[k].e + x[k] : msb(s) + exp;
          t.push_back({neg, s, exp, e});
        }
        if (p.addend_in_group && run_present) add_term(t, run, all_neg_zero, all_pos_zero);
        std::uint32_t res = group(t, all_neg_zero, all_pos_zero, p.alignment_bits, r.mode);
        if (odecode(acc, res).kind == 2) return res;  // Inf + any finite value is Inf
        if (!p.addend_in_group && run_present) res = add_codes(run, res, r.mode);
        run = res;
        run_present = true;
        if (odecode(acc, run).kind == 2) return run;  // Inf + any finite value is Inf
      }
      if (after && d_present) run = add_codes(d, run, r.addend_mode);
      d = run;
      d_present = true;
      if (odecode(acc, d).kind == 2) return d;
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

  /// x + y, exact, rounded once under `mode` (no alignment cut).
  std::uint32_t add_codes(std::uint32_t x, std::uint32_t y, Rounding mode) const {
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
