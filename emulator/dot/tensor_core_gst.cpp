// emulator/dot/tensor_core_gst.cpp: GST-FDPA, the tensor-core models with per-group scales
// (ScaleApplication::per_group: blackwell-mxf4, blackwell-nvf4): each group's exact sum times its
// scales, the run's E, every term cut at 2^(E - F), RZ onto the f32 grid, each run's result the
// next run's C (docs/TENSOR_CORES.md; tensor_core_steps.hpp holds the shared steps).
#include <algorithm>
#include <limits>
#include <vector>

#include "dot/tensor_core_steps.hpp"

namespace softmx::detail::tc {
namespace {

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

}  // namespace

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
               TensorCoreTrace* trace) {
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
    c = operand_of(acc, g);
    c_present = true;
  }
  const Result r{encode(acc, g), rounding_flags(acc, exact, g)};
  if (trace) trace->result = r;
  return r;
}

}  // namespace softmx::detail::tc
