// emulator/dot/tensor_core.cpp: the tensor-core accumulation model (include/softmx/tensor_core.hpp,
// docs/TENSOR_CORES.md).
//
// Everything is exact integer arithmetic: every element and C is N * 2^q with N below 2^24,
// products are N_a * N_b (below 2^16 for the MX element formats), alignment is cutting the low
// bits of N, and the group sum is formed in the exact fixed-point accumulator of the dot
// models (wide_accumulator.hpp, bit 0 = 2^-320), so no width or carry limit exists anywhere
// except where the model's parameters put one.
#include "softmx/tensor_core.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dot/wide_accumulator.hpp"

namespace softmx {
namespace {

using detail::WideAccumulator;

/// A decoded element or accumulator value. finite: (-1)^sign * n * 2^q with e = q + m the
/// exponent clamped to the format's emin (the operand-exponent convention of the header).
struct Operand {
  ValueClass cls = ValueClass::zero;
  bool sign = false;
  bool signalling = false;
  std::uint64_t n = 0;
  int q = 0;
  int e = 0;
};

Operand decode(const Format& f, std::uint64_t code, bool flush_subnormals) {
  const Unpacked u = unpack(f, code);
  Operand o;
  o.cls = u.cls;
  o.sign = u.sign;
  o.signalling = u.cls == ValueClass::nan && !u.nan_quiet;
  if (u.cls != ValueClass::finite) return o;
  const int emin = f.emin();
  if (u.exp < emin && flush_subnormals) {
    o.cls = ValueClass::zero;
    return o;
  }
  const int e = std::max<int>(u.exp, emin);
  // sig holds the value's bits from bit 63 down; the significand integer N has its unit bit
  // at position 63 - m for a normal value and (e - u.exp) places further left of the leading
  // bit for a subnormal one. The shift is at most 63 for every format softmx has (the
  // smallest subnormal's leading bit is m places below emin).
  const int shift = 63 - f.man_bits + (e - u.exp);
  o.n = u.sig >> shift;
  o.q = e - f.man_bits;
  o.e = e;
  return o;
}

/// One product A_k * B_k (scaled), classified.
struct Product {
  ValueClass cls = ValueClass::zero;  // zero, finite, inf, nan
  bool neg = false;
  bool signalling = false;
  std::uint64_t n = 0;
  int q = 0;
  int ae = 0;  // alignment exponent
};

/// The accumulator grid: fraction bits, exponent range and mode of f32/f16 accumulation.
struct Grid {
  const Format* f = nullptr;
  int p = 23;
  Rounding mode = Rounding::rz;
  int emin = -126, emax = 127;
  bool flush = false;
  std::uint64_t nan_code = 0;
};

/// A value on the grid: zero, finite kept * 2^qe, or Inf.
struct GridValue {
  ValueClass cls = ValueClass::zero;
  bool sign = false;
  std::uint64_t kept = 0;
  int qe = 0;
};

int lead_exp(std::uint64_t kept, int qe) { return static_cast<int>(std::bit_width(kept)) - 1 + qe; }

/// Rounds the exact non-zero value u onto the grid (header step 5). Sets overflow when Inf
/// was reached.
GridValue round_to_grid(const Unpacked& u, const Grid& g, bool& overflow) {
  GridValue r;
  r.sign = u.sign;
  const int qe = std::max<int>(u.exp, g.emin) - g.p;
  const int d = 63 - (u.exp - qe);  // bits of sig below the quantum: >= 63 - p >= 40
  std::uint64_t kept = 0;
  bool half = false, rest = false;
  if (d >= 65) {
    rest = true;  // the whole value lies below half a quantum
  } else if (d == 64) {
    half = true;  // sig's bit 63 is the half-quantum bit
    rest = (u.sig << 1) != 0 || u.sticky;
  } else {
    kept = u.sig >> d;
    const std::uint64_t rem = u.sig & ((std::uint64_t{1} << d) - 1);
    half = (rem >> (d - 1)) & 1;
    rest = (rem & ((std::uint64_t{1} << (d - 1)) - 1)) != 0 || u.sticky;
  }
  const bool inexact = half || rest;
  bool up = false;
  switch (g.mode) {
    case Rounding::rz: break;
    case Rounding::rne: up = half && (rest || (kept & 1)); break;
    case Rounding::rna: up = half; break;
    case Rounding::ru: up = !u.sign && inexact; break;
    case Rounding::rd: up = u.sign && inexact; break;
    case Rounding::ro:
      if (inexact) kept |= 1;
      break;
    case Rounding::rs: break;  // rejected by the constructor
  }
  kept += up;
  r.qe = qe;
  r.kept = kept;
  if (kept == 0) return r;  // rounded to zero, sign kept
  if (lead_exp(kept, qe) > g.emax) {
    overflow = true;
    r.cls = ValueClass::inf;
    return r;
  }
  if (g.flush && lead_exp(kept, qe) < g.emin) {
    r.kept = 0;
    return r;
  }
  r.cls = ValueClass::finite;
  return r;
}

/// The accumulator code of a grid value (exact: every grid value is a value of the format).
std::uint32_t encode(const GridValue& v, const Grid& g) {
  Unpacked u;
  u.sign = v.sign;
  if (v.cls == ValueClass::inf) u.cls = ValueClass::inf;
  else if (v.cls == ValueClass::finite) {
    const int w = static_cast<int>(std::bit_width(v.kept));
    u.cls = ValueClass::finite;
    u.exp = lead_exp(v.kept, v.qe);
    u.sig = v.kept << (64 - w);
  }
  Context exact;  // nothing is rounded; saturation none so that Inf stays Inf
  exact.saturation = Saturation::none;
  return static_cast<std::uint32_t>(round_pack(*g.f, u, exact, ocp_dialect()).code);
}

void add_exact(WideAccumulator& acc, bool neg, std::uint64_t n, int q) {
  if (n) acc.add(neg, n, q);
}

/// Which zeros a group's zero terms are, for the sign of an exact zero sum.
struct ZeroSigns {
  bool all_negative = true, all_positive = true;
  void see(bool negative) { (negative ? all_positive : all_negative) = false; }
};

class Evaluation {
 public:
  Evaluation(const TensorCoreParams& p, FormatId acc_format, TensorCoreTrace* trace) : p_(p), trace_(trace) {
    const AccumulatorRounding& r = acc_format == FormatId::f16 ? p.f16 : p.f32;
    g_.f = &format(acc_format);
    g_.p = r.fraction_bits;
    g_.mode = r.mode;
    g_.emin = g_.f->emin();
    g_.emax = (1 << g_.f->exp_bits) - 2 - g_.f->bias;
    g_.flush = p.flush_subnormal_outputs;
    g_.nan_code = acc_format == FormatId::f16 ? p.nan_f16 : p.nan_f32;
    addend_mode_ = r.addend_mode;
  }

  /// products: in k order; c: the accumulator code. has_c false (DotGeneral): C is +0 but
  /// takes no part in the sign of a zero result (there is no addend, as in BLOCKS.md 5).
  Result run(const std::vector<Product>& products, std::uint32_t c_code, bool has_c) {
    Flags flags = 0;
    const Operand c = decode(*g_.f, c_code, p_.flush_subnormal_inputs);
    // Specials first (header): NaN, then Inf.
    bool nan = c.cls == ValueClass::nan, pos_inf = false, neg_inf = false;
    if (c.signalling) flags |= flag::invalid;
    if (c.cls == ValueClass::inf) (c.sign ? neg_inf : pos_inf) = true;
    for (const Product& pr : products) {
      if (pr.cls == ValueClass::nan) {
        nan = true;
        if (pr.signalling) flags |= flag::invalid;
      } else if (pr.cls == ValueClass::inf) {
        (pr.neg ? neg_inf : pos_inf) = true;
      }
    }
    if (nan || (pos_inf && neg_inf)) {
      if (!nan) flags |= flag::invalid;  // Inf - Inf
      return finish_special({g_.nan_code, flags});
    }
    if (pos_inf || neg_inf) {
      GridValue v;
      v.cls = ValueClass::inf;
      v.sign = neg_inf;
      return finish_special({encode(v, g_), flags});
    }

    // The exact result, for the flags.
    WideAccumulator exact;
    if (c.cls == ValueClass::finite) add_exact(exact, c.sign, c.n, c.q);
    for (const Product& pr : products)
      if (pr.cls == ValueClass::finite) add_exact(exact, pr.neg, pr.n, pr.q);

    // The accumulator, as an exact value (C is used exactly as given): absent only before the
    // first instruction of a DotGeneral (no C).
    Operand acc = c;
    bool acc_present = has_c;
    GridValue accv;  // acc on the grid, once an instruction has produced it
    bool overflow = false, inf = false;
    const bool after = p_.addend_stage == AddendStage::after_products;
    const std::size_t n = p_.product_order.empty() ? products.size() : p_.product_order.size();
    const std::size_t gs = static_cast<std::size_t>(p_.group_size);
    for (std::size_t first = 0; first < products.size() && !inf; first += n) {
      // One instruction (header steps 2-7): r starts as the accumulator or empty.
      Operand r = after ? Operand{} : acc;
      bool r_present = after ? false : acc_present;
      GridValue rv;
      const std::size_t positions = p_.product_order.empty() ? products.size() - first : n;
      for (std::size_t gfirst = 0; gfirst < positions && !inf; gfirst += gs) {
        // The group's products, in position order.
        members_.clear();
        for (std::size_t pos = gfirst; pos < std::min(positions, gfirst + gs); ++pos) {
          const std::size_t k = first + (p_.product_order.empty() ? pos : static_cast<std::size_t>(p_.product_order[pos]));
          if (k < products.size()) members_.push_back(static_cast<int>(k));
        }
        if (members_.empty()) continue;  // no product in this group: skipped (step 2)
        TensorCoreTraceGroup* tg = trace_group();
        if (tg) {
          tg->products = members_;
          const bool consecutive = members_.back() - members_.front() + 1 == static_cast<int>(members_.size()) &&
                                   std::is_sorted(members_.begin(), members_.end());
          tg->first = consecutive ? members_.front() : -1;
          tg->count = static_cast<int>(members_.size());
        }
        terms_.clear();
        ZeroSigns zs;
        for (int k : members_) {
          const Product& pr = products[static_cast<std::size_t>(k)];
          if (pr.cls == ValueClass::finite) terms_.push_back(Term{k, pr.neg, pr.n, pr.q, pr.ae});
          else zs.see(pr.neg);
        }
        if (p_.addend_in_group) {
          if (r.cls == ValueClass::finite) terms_.push_back(Term{-1, r.sign, r.n, r.q, addend_align(r)});
          else if (r_present) zs.see(r.sign);
        }
        GridValue gv = fused_sum(zs, overflow, tg);
        if (!p_.addend_in_group && r_present) gv = add_exactly(r, gv, g_.mode, overflow);
        rv = gv;
        r = operand_of(gv);
        r_present = true;
        if (tg) tg->result = encode(gv, g_);
        inf = gv.cls == ValueClass::inf;  // Inf + any finite value is Inf
      }
      if (after && acc_present && !inf) {
        // Step 7: D = the accumulator + r, rounded once under addend_mode.
        TensorCoreTraceGroup* tg = trace_group();
        rv = add_exactly(acc, rv, addend_mode_, overflow);
        if (tg) {
          tg->addend_step = true;
          tg->count = 0;
          if (acc.cls == ValueClass::finite) tg->terms.push_back(TensorCoreTraceTerm{-1, acc.sign, acc.n, acc.q, 0, acc.n, acc.q, true});
          if (r.cls == ValueClass::finite) tg->terms.push_back(TensorCoreTraceTerm{-2, r.sign, r.n, r.q, 0, r.n, r.q, true});
          WideAccumulator s;
          if (acc.cls == ValueClass::finite) s.add(acc.sign, acc.n, acc.q);
          if (r.cls == ValueClass::finite) s.add(r.sign, r.n, r.q);
          tg->sum = s.to_unpacked();
          tg->result = encode(rv, g_);
        }
        inf = rv.cls == ValueClass::inf;
      }
      accv = rv;
      acc = operand_of(rv);
      acc_present = true;
    }
    if (products.empty()) accv = grid_of(acc, overflow);

    const std::uint32_t code = encode(accv, g_);
    if (accv.cls == ValueClass::inf) {
      flags |= flag::overflow | flag::inexact;
    } else {
      WideAccumulator diff = exact;
      if (accv.kept) diff.add(!accv.sign, accv.kept, accv.qe);
      if (!diff.is_zero()) {
        flags |= flag::inexact;
        if (accv.kept == 0 || lead_exp(accv.kept, accv.qe) < g_.emin) flags |= flag::underflow;
      }
    }
    if (overflow) flags |= flag::overflow | flag::inexact;
    Result r{code, flags};
    if (trace_) trace_->result = r;
    return r;
  }

 private:
  struct Term {
    int index;
    bool neg;
    std::uint64_t n;
    int q;
    int ae;
  };

  Result finish_special(Result r) {
    if (trace_) {
      trace_->special = true;
      trace_->result = r;
    }
    return r;
  }

  // C offers its own clamped exponent (operand convention) or its leading bit's exponent.
  int addend_align(const Operand& o) const {
    return p_.align_reference == AlignReference::operand_exponents ? o.e : lead_exp(o.n, o.q);
  }

  /// The accumulator after a group, as the next group's addend term: its exponent e is
  /// clamped to the format's emin, as it would be were it read back as C.
  Operand operand_of(const GridValue& v) const {
    Operand o;
    o.cls = v.cls;
    o.sign = v.sign;
    if (v.cls == ValueClass::finite) {
      o.n = v.kept;
      o.q = v.qe;
      o.e = std::max(lead_exp(o.n, o.q), g_.emin);
    }
    return o;
  }

  GridValue grid_of(const Operand& o, bool& overflow) const {
    GridValue v;
    v.sign = o.sign;
    v.cls = o.cls;
    if (o.cls != ValueClass::finite) return v;
    WideAccumulator a;
    a.add(o.sign, o.n, o.q);
    return round_to_grid(a.to_unpacked(), g_, overflow);
  }

  // IEEE 754 6.3 signs for an exact zero sum: every term -0: -0; every term +0: +0; mixed
  // zeros, or non-zero terms whose cut values cancel: +0, or -0 under rd.
  GridValue zero(const ZeroSigns& zs, bool any_term) const {
    GridValue v;
    if (!any_term && zs.all_negative) v.sign = true;
    else if (!any_term && zs.all_positive) v.sign = false;
    else v.sign = g_.mode == Rounding::rd;
    return v;
  }

  /// Steps 3-5 of the header for the terms in terms_.
  GridValue fused_sum(const ZeroSigns& zs, bool& overflow, TensorCoreTraceGroup* tg) {
    if (terms_.empty()) return zero(zs, false);
    int ref = terms_.front().ae;
    for (const Term& t : terms_) ref = std::max(ref, t.ae);
    if (p_.zero_exponent) ref = std::max(ref, *p_.zero_exponent);  // the e_zero floor (header step 4)
    const int quantum = ref - p_.alignment_bits;
    WideAccumulator sum;
    for (const Term& t : terms_) {
      std::uint64_t kept = t.n;
      int kept_q = t.q;
      if (t.q < quantum) {
        const int s = quantum - t.q;
        kept_q = quantum;
        if (s >= 64) {
          kept = 0;  // n < 2^24: below half a quantum, both truncation and rounding give 0
        } else {
          kept = t.n >> s;
          const std::uint64_t rem = t.n & ((std::uint64_t{1} << s) - 1);
          if (p_.align_rounding == AlignRounding::nearest_even) {
            const std::uint64_t half = std::uint64_t{1} << (s - 1);
            if (rem > half || (rem == half && (kept & 1))) ++kept;
          }
        }
      }
      if (kept) sum.add(t.neg, kept, kept_q);
      if (tg) {
        // kept <= (n >> s) + 1 and n < 2^24, so kept << s cannot overflow for s < 64.
        const int s = kept_q - t.q;
        const bool exact_cut = s == 0 || (s < 64 && (kept << s) == t.n);
        tg->terms.push_back(TensorCoreTraceTerm{t.index, t.neg, t.n, t.q, t.ae, kept, kept_q, exact_cut});
      }
    }
    if (tg) {
      tg->reference = ref;
      tg->quantum = quantum;
      tg->sum = sum.to_unpacked();
    }
    if (sum.is_zero()) return zero(zs, true);
    return round_to_grid(sum.to_unpacked(), g_, overflow);
  }

  /// acc + a grid value, exact, rounded onto the grid under `mode` (step 3 without
  /// addend_in_group, and step 7). IEEE 754 6.3 signs for a zero sum.
  GridValue add_exactly(const Operand& acc, const GridValue& gv, Rounding mode, bool& overflow) const {
    if (gv.cls == ValueClass::inf) return gv;
    WideAccumulator s;
    if (acc.cls == ValueClass::finite) s.add(acc.sign, acc.n, acc.q);
    if (gv.cls == ValueClass::finite) s.add(gv.sign, gv.kept, gv.qe);
    Grid g = g_;
    g.mode = mode;
    if (!s.is_zero()) return round_to_grid(s.to_unpacked(), g, overflow);
    const bool acc_zero = acc.cls == ValueClass::zero, g_zero = gv.cls == ValueClass::zero;
    GridValue z;
    if (acc_zero && g_zero) z.sign = (acc.sign && gv.sign) || (acc.sign != gv.sign && mode == Rounding::rd);
    else z.sign = mode == Rounding::rd;  // non-zero values that cancel
    return z;
  }

  TensorCoreTraceGroup* trace_group() {
    if (!trace_) return nullptr;
    trace_->groups.emplace_back();
    return &trace_->groups.back();
  }

  const TensorCoreParams& p_;
  TensorCoreTrace* trace_;
  Grid g_;
  Rounding addend_mode_ = Rounding::rne;
  std::vector<Term> terms_;
  std::vector<int> members_;
};

/// The product of two decoded operands, scaled by 2^x; NaN/Inf/zero classified (header).
Product product(const Operand& a, const Operand& b, int x, AlignReference ref) {
  Product pr;
  pr.neg = a.sign != b.sign;
  pr.signalling = a.signalling || b.signalling;
  if (a.cls == ValueClass::nan || b.cls == ValueClass::nan) {
    pr.cls = ValueClass::nan;
  } else if (a.cls == ValueClass::inf || b.cls == ValueClass::inf) {
    pr.cls = (a.cls == ValueClass::zero || b.cls == ValueClass::zero) ? ValueClass::nan : ValueClass::inf;
    if (pr.cls == ValueClass::nan) pr.signalling = true;  // Inf * 0: invalid, as a signalling NaN is
  } else if (a.cls == ValueClass::zero || b.cls == ValueClass::zero) {
    pr.cls = ValueClass::zero;
  } else {
    pr.cls = ValueClass::finite;
    pr.n = a.n * b.n;
    pr.q = a.q + b.q + x;
    pr.ae = ref == AlignReference::operand_exponents ? a.e + b.e + x : lead_exp(pr.n, pr.q);
  }
  return pr;
}

void check_codes(FormatId f, std::span<const std::uint8_t> codes, const char* side) {
  if (!is_mx_element(f))
    throw std::invalid_argument(std::string("mma: ") + side + " format " + std::string(format(f).name) +
                                " is not an MX element format (e4m3 e5m2 e3m2 e2m3 e2m1 int8)");
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > format(f).code_mask())
      throw std::invalid_argument(std::string("mma: ") + side + "[" + std::to_string(i) + "] = " + std::to_string(codes[i]) +
                                  " is out of range for " + std::string(format(f).name));
}

/// The scales of a block-scaled mma, or none (scale_block 0).
struct MmaScales {
  FormatId format = FormatId::e8m0;
  std::size_t block = 0;
  std::span<const std::uint8_t> a, b;
};

Result run_mma(const TensorCoreParams& p, FormatId fa, std::span<const std::uint8_t> a, FormatId fb,
               std::span<const std::uint8_t> b, FormatId acc, std::uint32_t c, TensorCoreTrace* trace,
               const MmaScales& sc = {}) {
  if (a.size() != b.size() || a.empty())
    throw std::invalid_argument("mma: A has " + std::to_string(a.size()) + " elements and B " + std::to_string(b.size()) +
                                "; they need the same number, at least one");
  check_codes(fa, a, "A");
  check_codes(fb, b, "B");
  if (acc != FormatId::f32 && acc != FormatId::f16)
    throw std::invalid_argument("mma: the accumulator is f32 or f16, not " + std::string(format(acc).name));
  if (c > format(acc).code_mask())
    throw std::invalid_argument("mma: C = " + std::to_string(c) + " is not a code of " + std::string(format(acc).name));
  std::vector<Product> products(a.size());
  const Format &ffa = format(fa), &ffb = format(fb);
  bool nan_scale = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    int x = 0;
    if (sc.block) {  // per_product: UE8M0 exponents added to the product's (ST-FDPA)
      const std::uint8_t s_a = sc.a[i / sc.block], s_b = sc.b[i / sc.block];
      nan_scale |= s_a == 0xFF || s_b == 0xFF;
      x = (s_a - 127) + (s_b - 127);
    }
    products[i] = product(decode(ffa, a[i], p.flush_subnormal_inputs), decode(ffb, b[i], p.flush_subnormal_inputs), x,
                          p.align_reference);
  }
  if (nan_scale) products.push_back(Product{ValueClass::nan, false, false, 0, 0, 0});  // poisons even zero products
  Evaluation ev(p, acc, trace);
  return ev.run(products, c, true);
}


/// A GST-FDPA scale (ScaleApplication::per_group): value n * 2^q, alignment exponent eps.
struct GroupScale {
  bool nan = false, zero = false;
  std::uint64_t n = 0;
  int q = 0, eps = 0;
};

GroupScale group_scale(FormatId f, std::uint8_t code) {
  GroupScale s;
  if (f == FormatId::e8m0) {  // UE8M0: 2^(code - 127), 0xFF NaN
    s.nan = code == 0xFF;
    s.n = 1;
    s.q = s.eps = code - 127;
    return s;
  }
  // UE4M3: the e4m3 value of code & 0x7F (MMA-Sim truncate_e4m3_to_ue4m3 drops the sign bit).
  const Operand o = decode(format(FormatId::e4m3), code & 0x7F, false);
  s.nan = o.cls == ValueClass::nan;
  s.zero = o.cls == ValueClass::zero;
  s.n = o.n;
  s.q = o.q;
  s.eps = o.e;  // clamped at emin -6 (frexp_and_normalize)
  return s;
}

/// GST-FDPA (docs/research/blackwell-mma.md 4; MMA-Sim fdpa.py:199-227) over a.size() products
/// in runs of group_size, C first, each run's RZ result the next run's C. Products of group g
/// (scale_group each) use scales sa/sb[(g * scale_group) / block]. has_c false (DotGeneral): C
/// is +0 and takes no part in the sign of a zero result.
///
/// trace, when not null, receives one TensorCoreTraceGroup per run (header of tensor_core.hpp):
/// C (or the previous run's result) as the term of index -1, then each scale group with a
/// non-zero scaled sum as one term of index = its first product and count = its products, in k
/// order; the run's E and quantum E - F, each term's cut, the exact sum of the cut terms and the
/// run's result code. Specials (a NaN scale, a NaN or Inf C) set trace->special and record no
/// run. Recording only reads what the computation produced: the result is the same either way,
/// and nothing is allocated for it when trace is null.
Result run_gst(const TensorCoreParams& p, FormatId fa, std::span<const std::uint8_t> a, FormatId fb,
               std::span<const std::uint8_t> b, const MmaScales& sc, std::uint32_t c_code, bool has_c,
               TensorCoreTrace* trace = nullptr) {
  const Format &ffa = format(fa), &ffb = format(fb), &f32 = format(FormatId::f32);
  const std::size_t G = static_cast<std::size_t>(p.scale_group), L = static_cast<std::size_t>(p.group_size);
  const int zexp = p.zero_exponent.value_or(std::numeric_limits<int>::min() / 4);
  Grid g;
  g.f = &f32;
  g.p = p.f32.fraction_bits;
  g.mode = p.f32.mode;
  g.nan_code = p.nan_f32;
  const auto special = [trace](Result r) {
    if (trace) {
      trace->special = true;
      trace->result = r;
    }
    return r;
  };
  // Specials: a NaN scale anywhere (the group sum times a NaN scale is NaN even for an all-zero
  // group, fdpa.py:144-145) or a NaN C: NaN; C = Inf: Inf of its sign (E2M1 has no specials).
  Operand c = decode(f32, c_code, false);
  bool nan = c.cls == ValueClass::nan;
  for (std::size_t j = 0; j < sc.a.size(); ++j)
    nan |= group_scale(sc.format, sc.a[j]).nan || group_scale(sc.format, sc.b[j]).nan;
  if (nan) return special({p.nan_f32, static_cast<Flags>(c.signalling ? flag::invalid : 0)});
  if (c.cls == ValueClass::inf) return special({c.sign ? 0xFF800000u : 0x7F800000u, 0});
  const int qmin = (ffa.emin() - ffa.man_bits) + (ffb.emin() - ffb.man_bits);  // E2M1 products: multiples of 2^-2
  WideAccumulator exact;  // sum A_k B_k sigma sigma + C, for the flags
  if (c.cls == ValueClass::finite) add_exact(exact, c.sign, c.n, c.q);
  bool overflow = false;
  bool c_present = has_c;
  GridValue acc;
  acc.sign = c.sign && has_c;
  if (c.cls == ValueClass::finite) {
    WideAccumulator w;
    w.add(c.sign, c.n, c.q);
    acc = round_to_grid(w.to_unpacked(), g, overflow);  // C is an f32: exact on the 23-bit grid
  }
  // One scale group's scaled sum: (-1)^neg * n * 2^q, products first .. first + count - 1,
  // alignment exponent ae (first, count and ae are kept for the trace only).
  struct T {
    bool neg;
    std::uint64_t n;
    int q;
    int first, count, ae;
  };
  std::vector<T> terms;  // reused by every run: at most group_size / scale_group entries
  terms.reserve(L / G);
  for (std::size_t first = 0; first < a.size(); first += L) {
    const std::size_t run_end = std::min(a.size(), first + L);
    terms.clear();
    bool all_neg_zero = c_present ? c.cls == ValueClass::zero && c.sign : true;
    int E = c.cls == ValueClass::finite ? c.e : zexp;  // C = 0 offers e_zero (fdpa.py:222-223)
    for (std::size_t g0 = first; g0 < run_end; g0 += G) {
      std::int64_t sum = 0;  // the group's exact sum in units of 2^qmin (|sum| <= 16 * 36 * 4)
      bool any = false;
      const std::size_t j = g0 / sc.block;
      const GroupScale s_a = group_scale(sc.format, sc.a[j]), s_b = group_scale(sc.format, sc.b[j]);
      const std::size_t g_end = std::min(a.size(), g0 + G);
      for (std::size_t k = g0; k < g_end; ++k) {
        const Operand oa = decode(ffa, a[k], false), ob = decode(ffb, b[k], false);
        const bool neg = oa.sign != ob.sign;
        if (oa.cls != ValueClass::finite || ob.cls != ValueClass::finite) {
          all_neg_zero &= neg;
          continue;
        }
        all_neg_zero = false;
        any = true;
        if (!s_a.zero && !s_b.zero) add_exact(exact, neg, oa.n * ob.n * s_a.n * s_b.n, oa.q + ob.q + s_a.q + s_b.q);
        const std::int64_t v = static_cast<std::int64_t>((oa.n * ob.n) << (oa.q + ob.q - qmin));
        sum += neg ? -v : v;
      }
      // An all-zero group or a zero scale offers e_zero (fdpa.py:212, 220-221); a group whose
      // products cancel keeps eps_a + eps_b (fdpa.py:213).
      const bool zero_group = !any || s_a.zero || s_b.zero;
      E = std::max(E, zero_group ? zexp : s_a.eps + s_b.eps);
      if (!zero_group && sum != 0) {
        const std::uint64_t mag = static_cast<std::uint64_t>(sum < 0 ? -sum : sum);
        terms.push_back(T{sum < 0, mag * s_a.n * s_b.n, qmin + s_a.q + s_b.q, static_cast<int>(g0),
                          static_cast<int>(g_end - g0), s_a.eps + s_b.eps});
      }
    }
    // Every term and C truncated toward zero to a multiple of 2^(E - F), summed exactly.
    const int Q = E - p.alignment_bits;
    TensorCoreTraceGroup* tg = nullptr;
    if (trace) {
      tg = &trace->groups.emplace_back();
      for (std::size_t k = first; k < run_end; ++k) tg->products.push_back(static_cast<int>(k));
      tg->first = static_cast<int>(first);
      tg->count = static_cast<int>(run_end - first);
      tg->reference = E;
      tg->quantum = Q;
    }
    WideAccumulator s;
    auto cut = [&](int index, int count, bool neg, std::uint64_t n, int q, int ae) {
      std::uint64_t kept = n;
      int kept_q = q;
      if (q < Q) {
        const int sh = Q - q;
        kept = sh >= 64 ? 0 : n >> sh;
        kept_q = Q;
      }
      if (kept) s.add(neg, kept, kept_q);
      if (tg) {
        const int sh = kept_q - q;
        const bool exact_cut = sh == 0 || (sh < 64 && (kept << sh) == n);
        tg->terms.push_back(TensorCoreTraceTerm{index, neg, n, q, ae, kept, kept_q, exact_cut, count});
      }
    };
    if (c.cls == ValueClass::finite) cut(-1, 1, c.sign, c.n, c.q, c.e);
    for (const T& t : terms) cut(t.first, t.count, t.neg, t.n, t.q, t.ae);
    if (s.is_zero()) {
      acc = GridValue{};
      acc.sign = all_neg_zero && c_present;  // IEEE 754 6.3: -0 only when every term is -0
    } else {
      acc = round_to_grid(s.to_unpacked(), g, overflow);
    }
    if (tg) {
      tg->sum = s.to_unpacked();
      tg->result = encode(acc, g);
    }
    if (acc.cls == ValueClass::inf) break;
    c = Operand{};
    c.cls = acc.cls;
    c.sign = acc.sign;
    if (acc.cls == ValueClass::finite) {
      c.n = acc.kept;
      c.q = acc.qe;
      c.e = std::max(lead_exp(acc.kept, acc.qe), g.emin);
    }
    c_present = true;
  }
  Flags flags = 0;
  if (acc.cls == ValueClass::inf) {
    flags |= flag::overflow | flag::inexact;
  } else {
    WideAccumulator diff = exact;
    if (acc.kept) diff.add(!acc.sign, acc.kept, acc.qe);
    if (!diff.is_zero()) {
      flags |= flag::inexact;
      if (acc.kept == 0 || lead_exp(acc.kept, acc.qe) < g.emin) flags |= flag::underflow;
    }
  }
  const Result r{encode(acc, g), flags};
  if (trace) trace->result = r;
  return r;
}

std::string bad(const TensorCoreParams& p, const std::string& what) {
  return "tensor-core model '" + p.name + "': " + what;
}

}  // namespace

TensorCoreModel::TensorCoreModel(TensorCoreParams p) : p_(std::move(p)) {
  if (p_.name.empty()) throw std::invalid_argument("tensor-core model: the name is empty");
  if (p_.group_size < 1 || p_.group_size > 4096)
    throw std::invalid_argument(bad(p_, "group_size " + std::to_string(p_.group_size) + " is not in 1..4096"));
  if (p_.alignment_bits < 0 || p_.alignment_bits > 1000)
    throw std::invalid_argument(bad(p_, "alignment_bits " + std::to_string(p_.alignment_bits) + " is not in 0..1000"));
  if (p_.f32.fraction_bits < 1 || p_.f32.fraction_bits > 23)
    throw std::invalid_argument(bad(p_, "f32 fraction_bits " + std::to_string(p_.f32.fraction_bits) + " is not in 1..23"));
  if (p_.f16.fraction_bits < 1 || p_.f16.fraction_bits > 10)
    throw std::invalid_argument(bad(p_, "f16 fraction_bits " + std::to_string(p_.f16.fraction_bits) + " is not in 1..10"));
  if (p_.f32.mode == Rounding::rs || p_.f16.mode == Rounding::rs || p_.f32.addend_mode == Rounding::rs ||
      p_.f16.addend_mode == Rounding::rs)
    throw std::invalid_argument(bad(p_, "the accumulator rounding must be deterministic (not rs)"));
  if (!p_.product_order.empty()) {
    const std::size_t n = p_.product_order.size();
    if (n > 4096 || n % static_cast<std::size_t>(p_.group_size) != 0)
      throw std::invalid_argument(bad(p_, "product_order has " + std::to_string(n) +
                                              " positions; it needs a multiple of group_size " +
                                              std::to_string(p_.group_size) + ", at most 4096"));
    std::vector<bool> seen(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      const int k = p_.product_order[i];
      if (k < 0 || static_cast<std::size_t>(k) >= n || seen[static_cast<std::size_t>(k)])
        throw std::invalid_argument(bad(p_, "product_order[" + std::to_string(i) + "] = " + std::to_string(k) +
                                                " : the order must be a permutation of 0.." + std::to_string(n - 1)));
      seen[static_cast<std::size_t>(k)] = true;
    }
  }
  if (p_.scale_application == ScaleApplication::per_group &&
      (p_.scale_group < 1 || p_.group_size % p_.scale_group != 0 || !p_.product_order.empty() || !p_.addend_in_group ||
       p_.addend_stage != AddendStage::first_group))
    throw std::invalid_argument(bad(p_, "per_group scales need scale_group >= 1 dividing group_size, k order and C in "
                                        "the first group"));
  const Unpacked n32 = unpack(format(FormatId::f32), p_.nan_f32), n16 = unpack(format(FormatId::f16), p_.nan_f16);
  if (n32.cls != ValueClass::nan || n16.cls != ValueClass::nan)
    throw std::invalid_argument(bad(p_, "nan_f32 / nan_f16 must be NaN codes"));
}

Result TensorCoreModel::dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context&) const {
  if (p_.scale_application == ScaleApplication::per_group) return dot_general_gst(a, b, FormatId::e8m0);
  std::vector<Product> products;
  bool nan_scale = false;
  for (std::size_t j = 0; j < a.size(); ++j) {
    nan_scale |= a[j].scale == 0xFF || b[j].scale == 0xFF;  // OCP 6.2: every element NaN
    const int x = (static_cast<int>(a[j].scale) - 127) + (static_cast<int>(b[j].scale) - 127);
    const Format &fa = format(a[j].format), &fb = format(b[j].format);
    for (std::size_t i = 0; i < a[j].codes.size(); ++i)
      products.push_back(product(decode(fa, a[j].codes[i], p_.flush_subnormal_inputs),
                                 decode(fb, b[j].codes[i], p_.flush_subnormal_inputs), x, p_.align_reference));
  }
  if (nan_scale) products.push_back(Product{ValueClass::nan, false, false, 0, 0, 0});
  Evaluation ev(p_, FormatId::f32, nullptr);
  return ev.run(products, 0, false);
}

Result TensorCoreModel::dot_general_gst(std::span<const BlockRef> a, std::span<const BlockRef> b,
                                        FormatId scale_format) const {
  if (p_.scale_application != ScaleApplication::per_group)
    throw std::invalid_argument(bad(p_, "block scales per group (UE4M3 or UE8M0) need a GST model (per_group)"));
  if (scale_format != FormatId::e8m0 && scale_format != FormatId::e4m3)
    throw std::invalid_argument(bad(p_, "the scales are e8m0 (UE8M0) or e4m3 (UE4M3), not " +
                                        std::string(format(scale_format).name)));
  if (a.size() != b.size())
    throw std::invalid_argument(bad(p_, "DotGeneral: A has " + std::to_string(a.size()) + " blocks and B " +
                                        std::to_string(b.size())));
  // GST over the blocks: E2M1 blocks of one size, a multiple of scale_group.
  std::vector<std::uint8_t> ca, cb, sa, sb;
  const std::size_t k = a.empty() ? 0 : a[0].codes.size();
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (a[j].format != FormatId::e2m1 || b[j].format != FormatId::e2m1 || a[j].codes.size() != k ||
        b[j].codes.size() != k || k % static_cast<std::size_t>(p_.scale_group) != 0)
      throw std::invalid_argument(bad(p_, "DotGeneral takes e2m1 blocks of one size, a multiple of " +
                                              std::to_string(p_.scale_group)));
    ca.insert(ca.end(), a[j].codes.begin(), a[j].codes.end());
    cb.insert(cb.end(), b[j].codes.begin(), b[j].codes.end());
    if (a[j].scale > 0xFF || b[j].scale > 0xFF)
      throw std::invalid_argument(bad(p_, "DotGeneral: block pair " + std::to_string(j) + " has a scale code above 0xFF"));
    sa.push_back(static_cast<std::uint8_t>(a[j].scale));
    sb.push_back(static_cast<std::uint8_t>(b[j].scale));
  }
  if (ca.empty()) return Result{0, 0};
  return run_gst(p_, FormatId::e2m1, ca, FormatId::e2m1, cb, MmaScales{scale_format, k, sa, sb}, 0, false);
}

Result TensorCoreModel::mma(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                            std::span<const std::uint8_t> b, FormatId acc, std::uint32_t c) const {
  if (p_.scale_application == ScaleApplication::per_group) {  // unscaled: every scale 1
    const std::vector<std::uint8_t> ones(a.size() / static_cast<std::size_t>(p_.scale_group) + 1, 127);
    if (a.size() % static_cast<std::size_t>(p_.scale_group) != 0)
      throw std::invalid_argument("mma (" + p_.name + "): K = " + std::to_string(a.size()) +
                                  " is not a multiple of the group " + std::to_string(p_.scale_group));
    const std::size_t n = a.size() / static_cast<std::size_t>(p_.scale_group);
    return mma_scaled(a_format, a, b_format, b, FormatId::e8m0, static_cast<std::size_t>(p_.scale_group),
                      std::span(ones).first(n), std::span(ones).first(n), acc, c);
  }
  return run_mma(p_, a_format, a, b_format, b, acc, c, nullptr);
}

namespace {

/// mma_scaled() and trace_scaled(): the preconditions of mma_scaled() checked, then the
/// model's block-scaled evaluation (run_mma with the scales for per_product models, run_gst for
/// per_group ones), its steps recorded into trace when that is not null.
Result run_scaled(const TensorCoreParams& p, FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                  std::span<const std::uint8_t> b, FormatId scale_format, std::size_t scale_block,
                  std::span<const std::uint8_t> sa, std::span<const std::uint8_t> sb, FormatId acc, std::uint32_t c,
                  TensorCoreTrace* trace) {
  const std::string who = "mma (" + p.name + ")";
  if (p.scale_application == ScaleApplication::none)
    throw std::invalid_argument(who + ": the model takes no block scales (it has no block-scaled form)");
  if (scale_format != FormatId::e8m0 && scale_format != FormatId::e4m3)
    throw std::invalid_argument(who + ": the scales are e8m0 (UE8M0) or e4m3 (UE4M3), not " +
                                std::string(format(scale_format).name));
  if (scale_block == 0 || a.size() % scale_block != 0)
    throw std::invalid_argument(who + ": the scale block " + std::to_string(scale_block) + " does not divide K = " +
                                std::to_string(a.size()));
  const std::size_t nsc = a.size() / scale_block;
  if (sa.size() != nsc || sb.size() != nsc)
    throw std::invalid_argument(who + ": K = " + std::to_string(a.size()) + " with blocks of " +
                                std::to_string(scale_block) + " needs " + std::to_string(nsc) + " scales per side, not " +
                                std::to_string(sa.size()) + " and " + std::to_string(sb.size()));
  const MmaScales sc{scale_format, scale_block, sa, sb};
  if (p.scale_application == ScaleApplication::per_product) {
    if (scale_format != FormatId::e8m0)
      throw std::invalid_argument(who + ": per-product scales are UE8M0 (kind::mxf8f6f4 takes no UE4M3 scale)");
    return run_mma(p, a_format, a, b_format, b, acc, c, trace, sc);
  }
  if (a.size() != b.size() || a.empty())
    throw std::invalid_argument(who + ": A has " + std::to_string(a.size()) + " elements and B " + std::to_string(b.size()) +
                                "; they need the same number, at least one");
  if (a_format != FormatId::e2m1 || b_format != FormatId::e2m1)
    throw std::invalid_argument(who + ": the elements are e2m1 (kind::mxf4, kind::mxf4nvf4)");
  check_codes(a_format, a, "A");
  check_codes(b_format, b, "B");
  if (acc != FormatId::f32) throw std::invalid_argument(who + ": the accumulator is f32 only");
  if (scale_block % static_cast<std::size_t>(p.scale_group) != 0)
    throw std::invalid_argument(who + ": the scale block " + std::to_string(scale_block) + " is not a multiple of the group " +
                                std::to_string(p.scale_group));
  return run_gst(p, a_format, a, b_format, b, sc, c, true, trace);
}

}  // namespace

Result TensorCoreModel::mma_scaled(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                                   std::span<const std::uint8_t> b, FormatId scale_format, std::size_t scale_block,
                                   std::span<const std::uint8_t> sa, std::span<const std::uint8_t> sb, FormatId acc,
                                   std::uint32_t c) const {
  return run_scaled(p_, a_format, a, b_format, b, scale_format, scale_block, sa, sb, acc, c, nullptr);
}

TensorCoreTrace TensorCoreModel::trace(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                                       std::span<const std::uint8_t> b, FormatId acc, std::uint32_t c) const {
  if (p_.scale_application == ScaleApplication::per_group) {
    // As mma(): every scale 1 (UE8M0 0x7F), one per scale group, so that the steps are GST's
    // and the result mma()'s. Those scales are not the caller's: the trace says unscaled.
    if (a.size() % static_cast<std::size_t>(p_.scale_group) != 0)
      throw std::invalid_argument("mma (" + p_.name + "): K = " + std::to_string(a.size()) +
                                  " is not a multiple of the group " + std::to_string(p_.scale_group));
    const std::vector<std::uint8_t> ones(a.size() / static_cast<std::size_t>(p_.scale_group), 127);
    TensorCoreTrace t = trace_scaled(a_format, a, b_format, b, FormatId::e8m0, static_cast<std::size_t>(p_.scale_group),
                                     ones, ones, acc, c);
    t.scale_block = 0;
    t.sa.clear();
    t.sb.clear();
    return t;
  }
  TensorCoreTrace t;
  run_mma(p_, a_format, a, b_format, b, acc, c, &t);
  return t;
}

TensorCoreTrace TensorCoreModel::trace_scaled(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                                              std::span<const std::uint8_t> b, FormatId scale_format,
                                              std::size_t scale_block, std::span<const std::uint8_t> sa,
                                              std::span<const std::uint8_t> sb, FormatId acc, std::uint32_t c) const {
  TensorCoreTrace t;
  run_scaled(p_, a_format, a, b_format, b, scale_format, scale_block, sa, sb, acc, c, &t);
  t.scale_format = scale_format;
  t.scale_block = scale_block;
  t.sa.assign(sa.begin(), sa.end());
  t.sb.assign(sb.begin(), sb.end());
  return t;
}

namespace {

// The published models (docs/TENSOR_CORES.md has the citations and the open points).
/// mma.sync m16n8k32 FP8 on sm_90 has no FP8 tensor-core instruction behind it: the compiler
/// converts the FP8 operands to FP16 and issues two HMMA k16 steps (NVIDIA, cutlass issue
/// 1986). Each 32-bit register of four FP8 codes becomes two f16x2 registers; the first HMMA
/// takes the low pair of each (k mod 4 in {0, 1}), the second the high pair. Khattak &
/// Mikaitis' H100/H200 f16 captures (vectors/published/khattak-mikaitis) fit exactly this, C
/// added last; docs/TENSOR_CORES.md 6 lists what they confirm and what is assumed.
std::vector<int> hmma_pair_order() {
  std::vector<int> order;
  for (int half = 0; half < 2; ++half)
    for (int k = 0; k < 32; ++k)
      if ((k % 4) / 2 == half) order.push_back(k);
  return order;
}

TensorCoreParams hopper_mma_params() {
  TensorCoreParams p;
  p.name = "hopper-fp8-mma";
  p.group_size = 16;                     // one HMMA m16n8k16 step (the data: 16, not 32)
  p.product_order = hmma_pair_order();   // 0 1 4 5 .. 28 29, then 2 3 6 7 .. 30 31 (the data)
  p.alignment_bits = 25;                 // Khattak & Mikaitis' H100 FP16 HMMA: 2 bits beyond 23 (the data: >= 18)
  p.align_rounding = AlignRounding::truncate;            // their model; the data cannot tell at F = 25
  p.align_reference = AlignReference::operand_exponents; // their model; the data cannot tell at F = 25
  p.addend_in_group = true;              // the second HMMA takes the first one's D as its C (the data)
  p.addend_stage = AddendStage::after_products;  // C is added after both HMMAs (the data, f16)
  p.f32 = {23, Rounding::rz, Rounding::rne};     // HMMA f32 output RZ (their model); the C add: assumed RN
  p.f16 = {10, Rounding::rne, Rounding::rne};    // HMMA f16 output RNE, C added with RNE (the data)
  return p;
}

TensorCoreParams hopper_wgmma_params() {
  TensorCoreParams p;
  p.name = "hopper-fp8-wgmma";
  p.group_size = 32;             // MMA-Sim: L_max = 32 bytes / 1-byte FP8 = 32 products (the data: 32)
  p.alignment_bits = 13;         // F = 13 (the data: exactly 13)
  p.align_rounding = AlignRounding::truncate;             // torch.trunc (the data: not nearest)
  p.align_reference = AlignReference::operand_exponents;  // fp_to_sig_exp (the data: not the product's)
  p.addend_in_group = true;      // t_fdpa: C joins the fused sum (the data has C = 0: untested)
  p.f32 = {13, Rounding::rz, Rounding::rne};   // RZ-E8M13 (the data: 13 bits, RZ)
  p.f16 = {10, Rounding::rne, Rounding::rne};  // RNE-FP16 (no data)
  return p;
}

// The Blackwell and Ada models of docs/research/blackwell-mma.md 8 (MMA-Sim, peichenxie/MMA-Sim
// 0a5ce40 src/mmasim/mmasim/arithmetic/fdpa.py, with the e_zero values bksaiki/fpy 0f09612 passes
// to its classes). None is confirmed by a capture of ours: `confirmed` is false.
TensorCoreParams fdpa_params(const char* name, int group, int F, int output_bits, int zero_exp) {
  TensorCoreParams p;
  p.name = name;
  p.group_size = group;
  p.alignment_bits = F;
  p.align_rounding = AlignRounding::truncate;             // torch.trunc (fdpa.py:78)
  p.align_reference = AlignReference::operand_exponents;  // frexp_and_normalize (fdpa.py:25-42)
  p.addend_in_group = true;                               // C is one more term of the fused sum (fdpa.py:76)
  p.addend_stage = AddendStage::first_group;              // K > L: the result is the next C (fdpa.py:108-118)
  p.f32 = {output_bits, Rounding::rz, Rounding::rne};     // RZ-FP32 / RZ-E8M13 (fdpa.py:55-60)
  p.f16 = {10, Rounding::rne, Rounding::rne};             // RNE-FP16 (fdpa.py:49-51)
  p.zero_exponent = zero_exp;
  p.confirmed = false;
  return p;
}

TensorCoreParams blackwell_mxf8f6f4_params() {
  TensorCoreParams p = fdpa_params("blackwell-mxf8f6f4", 32, 25, 23, -133);  // MMA_ST_FDPA(25, RZ-FP32, 32, -133)
  p.scale_application = ScaleApplication::per_product;
  return p;
}

TensorCoreParams gst_params(const char* name) {
  TensorCoreParams p = fdpa_params(name, 64, 35, 23, -139);  // MMA_GST_FDPA(16, 35, RZ-FP32, 64, -139)
  p.scale_application = ScaleApplication::per_group;
  p.scale_group = 16;
  return p;
}

const TensorCoreModel kHopperMma(hopper_mma_params());
const TensorCoreModel kHopperWgmma(hopper_wgmma_params());
const TensorCoreModel kBlackwellF8f6f4(fdpa_params("blackwell-f8f6f4", 32, 25, 23, -133));
const TensorCoreModel kBlackwellMxf8f6f4(blackwell_mxf8f6f4_params());
const TensorCoreModel kBlackwellMxf4(gst_params("blackwell-mxf4"));
const TensorCoreModel kBlackwellNvf4(gst_params("blackwell-nvf4"));
const TensorCoreModel kAdaMma(fdpa_params("ada-fp8-mma", 16, 13, 13, -132));  // two T-FDPAs of 16 (nv_ptx.py:28-49)
constexpr std::array<const TensorCoreModel*, 7> kModels{&kHopperMma,         &kHopperWgmma,   &kBlackwellF8f6f4,
                                                        &kBlackwellMxf8f6f4, &kBlackwellMxf4, &kBlackwellNvf4,
                                                        &kAdaMma};

}  // namespace

const TensorCoreModel& hopper_fp8_mma_model() { return kHopperMma; }
const TensorCoreModel& hopper_fp8_wgmma_model() { return kHopperWgmma; }
const TensorCoreModel& blackwell_f8f6f4_model() { return kBlackwellF8f6f4; }
const TensorCoreModel& blackwell_mxf8f6f4_model() { return kBlackwellMxf8f6f4; }
const TensorCoreModel& blackwell_mxf4_model() { return kBlackwellMxf4; }
const TensorCoreModel& blackwell_nvf4_model() { return kBlackwellNvf4; }
const TensorCoreModel& ada_fp8_mma_model() { return kAdaMma; }
std::span<const TensorCoreModel* const> tensor_core_models() { return kModels; }

std::string tensor_core_model_names() {
  std::string s;
  for (const TensorCoreModel* m : kModels) s += (s.empty() ? "" : ", ") + std::string(m->name());
  return s;
}

const TensorCoreModel* find_tensor_core_model(std::string_view name) {
  for (const TensorCoreModel* m : kModels)
    if (m->name() == name) return m;
  return nullptr;
}

}  // namespace softmx
