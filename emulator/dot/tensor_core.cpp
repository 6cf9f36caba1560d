// emulator/dot/tensor_core.cpp: the tensor-core accumulation model (include/softmx/tensor_core.hpp,
// docs/TENSOR_CORES.md).
//
// Everything is exact integer arithmetic: every element and C is N * 2^q with N below 2^24,
// products are N_a * N_b (below 2^16 for the MX element formats), alignment is cutting the low
// bits of N, and the group sum is formed in the exact fixed-point accumulator of the dot
// models (wide_accumulator.hpp, bit 0 = 2^-320), so no width or carry limit exists anywhere
// except where the model's parameters put one.
#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dot/tensor_core_dot.hpp"
#include "dot/tensor_core_steps.hpp"
#include "dot/wide_accumulator.hpp"

namespace softmx {
namespace {

using namespace detail::tc;

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
  ///
  /// Specials follow the model's own structure (header, "Specials"): each group's rounded
  /// result is the next group's running value, NaN and Inf included, as MMA-Sim's chained
  /// T-FDPAs pass one FDPA's result as the next one's c (peichenxie/MMA-Sim 0a5ce40
  /// src/mmasim/mmasim/arithmetic/fdpa.py:114-117), where Inf and NaN come from the arithmetic
  /// of the terms (fdpa.py:78-79: +Inf + -Inf is NaN, Inf + finite is Inf) and any NaN becomes
  /// the NaN code (fdpa.py:61-69). So a group that overflows to +Inf followed by a group that
  /// holds a -Inf product gives NaN, where a rule on the operands alone would give -Inf.
  Result run(const std::vector<Product>& products, std::uint32_t c_code, bool has_c) {
    Flags flags = 0;
    const Operand c = decode(*g_.f, c_code, p_.flush_subnormal_inputs);
    // NaN operands decide at once: a NaN term makes its step NaN, and every step's result
    // reaches D (as the next step's running value or addend), so D is NaN wherever it sits.
    // Both signs of Inf among the operands meet the same way: each Inf is its step's result
    // (or NaN), carried to the end, so the two meet in some step: NaN.
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
    // At most one sign of Inf among the operands: D is that Inf, unless a step that the Inf
    // never entered overflowed to the other sign and the two meet (NaN). The steps below
    // decide it. A line with an Inf operand is traced as special (no groups), as before.
    const bool inf_operand = pos_inf || neg_inf;
    TensorCoreTrace* const trace = trace_;
    if (inf_operand) trace_ = nullptr;

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
    bool overflow = false, made_nan = false;
    const bool after = p_.addend_stage == AddendStage::after_products;
    // An Inf running value absorbs every later finite step when each later group takes it as
    // a term (addend_in_group, first_group): nothing after it can change D unless an Inf
    // product of the other sign is still to come. With after_products (an instruction's groups
    // start empty, the accumulator is added last) or without addend_in_group (each group is
    // rounded alone) a later step can overflow to the other sign by itself: every step runs.
    const bool inf_absorbs = p_.addend_in_group && !after;
    const auto settled = [&](const GridValue& v) {
      return made_nan || (v.cls == ValueClass::inf && inf_absorbs && (!inf_operand || v.sign == neg_inf));
    };
    bool done = false;
    const std::size_t n = p_.product_order.empty() ? products.size() : p_.product_order.size();
    const std::size_t gs = static_cast<std::size_t>(p_.group_size);
    for (std::size_t first = 0; first < products.size() && !done; first += n) {
      // One instruction (header steps 2-7): r starts as the accumulator or empty.
      Operand r = after ? Operand{} : acc;
      bool r_present = after ? false : acc_present;
      GridValue rv;
      const std::size_t positions = p_.product_order.empty() ? products.size() - first : n;
      for (std::size_t gfirst = 0; gfirst < positions && !done; gfirst += gs) {
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
        GridValue inf_term;  // an Inf product of the group (one sign at most), else cls zero
        for (int k : members_) {
          const Product& pr = products[static_cast<std::size_t>(k)];
          if (pr.cls == ValueClass::finite) terms_.push_back(Term{k, pr.neg, pr.n, pr.q, pr.ae});
          else if (pr.cls == ValueClass::inf) inf_term = GridValue{ValueClass::inf, pr.neg, 0, 0};
          else zs.see(pr.neg);
        }
        GridValue gv;
        if (p_.addend_in_group) {
          if (r.cls == ValueClass::inf || inf_term.cls == ValueClass::inf) {
            // An Inf term decides the fused sum (MMA-Sim: trunc(+-inf) summed with finite
            // terms): +Inf and -Inf give NaN, one Inf gives itself. The finite products are
            // still cut and summed for the trace only (their own overflow counts for nothing).
            if (tg) {
              bool unused = false;
              fused_sum(zs, unused, tg);
            }
            gv = sum_specials(r.cls == ValueClass::inf ? grid_inf(r.sign) : inf_term, inf_term, made_nan);
          } else {
            if (r.cls == ValueClass::finite) terms_.push_back(Term{-1, r.sign, r.n, r.q, addend_align(r)});
            else if (r_present) zs.see(r.sign);
            gv = fused_sum(zs, overflow, tg);
          }
        } else {
          gv = inf_term.cls == ValueClass::inf ? inf_term : fused_sum(zs, overflow, tg);
          if (r_present) gv = add_values(r, gv, g_.mode, overflow, made_nan);
        }
        rv = gv;
        r = operand_of(gv);
        r_present = true;
        if (tg) tg->result = made_nan ? static_cast<std::uint32_t>(g_.nan_code) : encode(gv, g_);
        done = settled(gv);
      }
      if (after && acc_present && !done) {
        // Step 7: D = the accumulator + r, rounded once under addend_mode.
        TensorCoreTraceGroup* tg = trace_group();
        rv = add_values(acc, rv, addend_mode_, overflow, made_nan);
        if (tg) {
          tg->addend_step = true;
          tg->count = 0;
          if (acc.cls == ValueClass::finite) tg->terms.push_back(TensorCoreTraceTerm{-1, acc.sign, acc.n, acc.q, 0, acc.n, acc.q, true});
          if (r.cls == ValueClass::finite) tg->terms.push_back(TensorCoreTraceTerm{-2, r.sign, r.n, r.q, 0, r.n, r.q, true});
          WideAccumulator s;
          if (acc.cls == ValueClass::finite) s.add(acc.sign, acc.n, acc.q);
          if (r.cls == ValueClass::finite) s.add(r.sign, r.n, r.q);
          tg->sum = s.to_unpacked();
          tg->result = made_nan ? static_cast<std::uint32_t>(g_.nan_code) : encode(rv, g_);
        }
        done = settled(rv);
      }
      accv = rv;
      acc = operand_of(rv);
      acc_present = true;
    }
    if (products.empty()) accv = grid_of(acc, overflow);

    Result res;
    if (made_nan) {
      // Inf - Inf between steps (an overflowed group and an Inf of the other sign): invalid,
      // and the overflow that made the Inf.
      res = Result{g_.nan_code, static_cast<Flags>(flags | flag::invalid | (overflow ? flag::overflow | flag::inexact : 0))};
    } else if (inf_operand) {
      // The Inf operand's sign (an overflow of the same sign changes nothing): D is the exact
      // result, Inf, as before this rule looked at the steps; no flags.
      res = Result{encode(accv, g_), flags};
    } else {
      const std::uint32_t code = encode(accv, g_);
      flags |= rounding_flags(accv, exact, g_);
      if (overflow) flags |= flag::overflow | flag::inexact;
      res = Result{code, flags};
    }
    trace_ = trace;
    if (inf_operand) return finish_special(res);
    if (trace_) trace_->result = res;
    return res;
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

  Operand operand_of(const GridValue& v) const { return softmx::detail::tc::operand_of(v, g_); }

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

  static GridValue grid_inf(bool sign) { return GridValue{ValueClass::inf, sign, 0, 0}; }

  /// The fused sum of a step that holds an Inf term (a or b; the other may be anything but
  /// NaN): Inf of the other sign as well gives NaN (made_nan set), else that Inf.
  static GridValue sum_specials(const GridValue& a, const GridValue& b, bool& made_nan) {
    if (a.cls == ValueClass::inf && b.cls == ValueClass::inf && a.sign != b.sign) {
      made_nan = true;
      return GridValue{};
    }
    return a.cls == ValueClass::inf ? a : b;
  }

  /// acc + gv as add_exactly, with Inf operands (a running value or result that is Inf):
  /// +Inf + -Inf is NaN (made_nan set), Inf + anything else that Inf (IEEE 754 6.1, 7.2).
  GridValue add_values(const Operand& acc, const GridValue& gv, Rounding mode, bool& overflow, bool& made_nan) const {
    if (acc.cls == ValueClass::inf || gv.cls == ValueClass::inf)
      return sum_specials(acc.cls == ValueClass::inf ? grid_inf(acc.sign) : gv, gv, made_nan);
    return add_exactly(acc, gv, mode, overflow);
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
  return detail::tensor_core_dot_general(*this, a, b, FormatId::e8m0, FormatId::f32, std::nullopt);
}

Result TensorCoreModel::dot_general_gst(std::span<const BlockRef> a, std::span<const BlockRef> b,
                                        FormatId scale_format) const {
  if (p_.scale_application != ScaleApplication::per_group)
    throw std::invalid_argument(bad(p_, "block scales per group (UE4M3 or UE8M0) need a GST model (per_group)"));
  return detail::tensor_core_dot_general(*this, a, b, scale_format, FormatId::f32, std::nullopt);
}

// dot_general and dot_general_gst, with the addend C (tensor_core_dot.hpp): C goes where mma()
// puts it, the accumulator before the first instruction (Evaluation::run and run_gst with
// has_c), so DotGeneral with C is the model's mma over the scaled products; without C
// (has_c false) every result is the one these functions gave before C existed.
Result detail::tensor_core_dot_general(const TensorCoreModel& model, std::span<const BlockRef> a,
                                       std::span<const BlockRef> b, FormatId scale_format, FormatId acc,
                                       std::optional<std::uint32_t> c) {
  const TensorCoreParams& p = model.params();
  if (acc != FormatId::f32 && acc != FormatId::f16)
    throw std::invalid_argument(bad(p, "DotGeneral into " + std::string(format(acc).name) +
                                           ": the model's accumulator is f32 or f16 (TensorCoreParams), it defines no " +
                                           std::string(format(acc).name) + " one"));
  if (c && *c > format(acc).code_mask())
    throw std::invalid_argument(bad(p, "DotGeneral: C = " + std::to_string(*c) + " is not a code of " +
                                           std::string(format(acc).name)));
  if (p.scale_application == ScaleApplication::per_group) {
    if (acc != FormatId::f32)
      throw std::invalid_argument(bad(p, "DotGeneral into f16: a per-group (GST) model accumulates in f32 only"));
    if (scale_format != FormatId::e8m0 && scale_format != FormatId::e4m3)
      throw std::invalid_argument(bad(p, "the scales are e8m0 (UE8M0) or e4m3 (UE4M3), not " +
                                         std::string(format(scale_format).name)));
    if (a.size() != b.size())
      throw std::invalid_argument(bad(p, "DotGeneral: A has " + std::to_string(a.size()) + " blocks and B " +
                                         std::to_string(b.size())));
    // GST over the blocks: E2M1 blocks of one size, a multiple of scale_group.
    std::vector<std::uint8_t> ca, cb, sa, sb;
    const std::size_t k = a.empty() ? 0 : a[0].codes.size();
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (a[j].format != FormatId::e2m1 || b[j].format != FormatId::e2m1 || a[j].codes.size() != k ||
          b[j].codes.size() != k || k % static_cast<std::size_t>(p.scale_group) != 0)
        throw std::invalid_argument(bad(p, "DotGeneral takes e2m1 blocks of one size, a multiple of " +
                                               std::to_string(p.scale_group)));
      ca.insert(ca.end(), a[j].codes.begin(), a[j].codes.end());
      cb.insert(cb.end(), b[j].codes.begin(), b[j].codes.end());
      if (a[j].scale > 0xFF || b[j].scale > 0xFF)
        throw std::invalid_argument(bad(p, "DotGeneral: block pair " + std::to_string(j) + " has a scale code above 0xFF"));
      sa.push_back(static_cast<std::uint8_t>(a[j].scale));
      sb.push_back(static_cast<std::uint8_t>(b[j].scale));
    }
    if (ca.empty()) return Result{0, 0};
    return run_gst(p, FormatId::e2m1, ca, FormatId::e2m1, cb, MmaScales{scale_format, k, sa, sb}, c.value_or(0),
                   c.has_value());
  }
  std::vector<Product> products;
  bool nan_scale = false;
  for (std::size_t j = 0; j < a.size(); ++j) {
    nan_scale |= a[j].scale == 0xFF || b[j].scale == 0xFF;  // OCP 6.2: every element NaN
    const int x = (static_cast<int>(a[j].scale) - 127) + (static_cast<int>(b[j].scale) - 127);
    const Format &fa = format(a[j].format), &fb = format(b[j].format);
    for (std::size_t i = 0; i < a[j].codes.size(); ++i)
      products.push_back(product(decode(fa, a[j].codes[i], p.flush_subnormal_inputs),
                                 decode(fb, b[j].codes[i], p.flush_subnormal_inputs), x, p.align_reference));
  }
  if (nan_scale) products.push_back(Product{ValueClass::nan, false, false, 0, 0, 0});
  Evaluation ev(p, acc, nullptr);
  return ev.run(products, c.value_or(0), c.has_value());
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

}  // namespace softmx
