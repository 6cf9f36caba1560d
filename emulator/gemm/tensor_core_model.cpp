// emulator/gemm/tensor_core_model.cpp: the tensor-core models' driver (docs/ARCHITECTURE.md,
// "GEMM"; TensorCoreModel's steps, tensor_core.hpp): products packed in the model's position
// order, the groups' integer lanes, C seeded into the accumulator; the exact sums give the flags.
#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "gemm/exact_block.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {
namespace {

/// mma_pairs: C (f32 bits) as the tensor-core kernel's accumulator, kept * 2^qe with its sign
/// and kTcAccPresent in `state`; or kTcReference when the kernel does not take it: NaN, Inf or
/// a subnormal (the kernel's accumulator values are normal). `any_bits`: the model adds C as a
/// term of its first group (addend_in_group, first_group), which the kernel cuts at 2^(E - F)
/// from kept's own leading bit, so C may keep all 24 bits; otherwise (grid additions) C must lie
/// on the grid of p fraction bits.
void seed_tc_accumulator(std::uint32_t c, int p, bool any_bits, std::int32_t& kept, std::int32_t& qe,
                         std::uint32_t& state) {
  const std::uint32_t bexp = (c >> 23) & 0xFF, frac = c & 0x7FFFFF;
  const std::uint32_t sign = (c >> 31) ? kTcAccSign : 0;
  kept = 0;
  qe = 0;
  if (bexp == 0 && frac == 0) {
    state = kTcAccPresent | sign;
    return;
  }
  const int drop = any_bits ? 0 : 23 - p;  // bits of C's significand below the grid
  const std::uint32_t sig = frac | 0x800000u;
  if (bexp == 0xFF || bexp == 0 || drop < 0 || (drop > 0 && (sig & ((1u << drop) - 1)) != 0)) {
    state = kTcReference;
    return;
  }
  kept = static_cast<std::int32_t>(sig >> drop);
  qe = static_cast<int>(bexp) - 150 + drop;
  state = kTcAccPresent | sign;
}

/// The lanes the tensor-core kernel needs for this model and these formats: 32 or 64 bits, or 0
/// (no kernel: the reference). A group's sum is below G * T + 2^(F + 1) + G + 1, T the largest
/// product term in units of the quantum 2^(E - F): |N_a N_b| 2^(F - m_a - m_b) for the
/// operand-exponent reference, 2^(F + 1) for the product's own; 2^(F + 1) bounds the running
/// value's term, and each cut may round up by one unit.
int tc_lanes(const TensorCoreParams& p, const Side& a, const Side& b) {
  if (p.alignment_bits > 90 || p.scale_application == ScaleApplication::per_group) return 0;  // GST: gst_kernel_fits
  auto maxn = [](const Side& s) {
    std::int64_t m = 0;
    for (std::int32_t n : s.tab.tc_n) m = std::max<std::int64_t>(m, n < 0 ? -std::int64_t{n} : n);
    return m;
  };
  const int F = p.alignment_bits, c = F - (a.tab.man_bits + b.tab.man_bits);
  const i128 prod = static_cast<i128>(maxn(a)) * maxn(b);
  const i128 t = p.align_reference == AlignReference::product_exponent ? i128{1} << (F + 1)
                 : c >= 0                                              ? prod << c
                                                                       : (prod >> -c) + 1;
  const i128 g = p.group_size;
  const i128 bound = g * t + (i128{1} << (F + 1)) + g + 1;
  if (bound < (i128{1} << 31)) return 32;
  if (bound < (i128{1} << 62)) return 64;
  return 0;
}

struct TcWork {
  TcWork(const Problem* p, const TensorCoreParams* t, Blocking b, int l) : P(p), tp(t), bl(b), lanes(l) {}
  const Problem* P;
  const TensorCoreParams* tp;
  Blocking bl;
  int lanes;
  TcParams prm{};
  RefScratch s;
  std::optional<ExactBlock> ex;
  std::size_t kc = 0, ins = 0;
  bool fpu_ok = true;
  std::vector<std::int32_t> an, ae, bn, be, acc_kept, acc_qe, r_kept, r_qe;
  std::vector<std::uint8_t> as, bs;
  std::vector<std::uint32_t> state;
  std::vector<TcGroup> groups;
  std::vector<std::int64_t> pos;  // the chunk's positions in packed order: product k, or -1 (none)

  void begin() {
    ex.emplace(*P);
    fpu_ok = fpu_default();
    const std::size_t g = static_cast<std::size_t>(tp->group_size);
    ins = tp->product_order.empty() ? g : tp->product_order.size();  // the chunk's unit
    kc = std::max<std::size_t>(1, 256 / ins) * ins;
  }

  /// The positions and groups of the chunk of instructions starting at t0 .. t1 - 1
  /// (tensor_core.hpp steps 2-3): products permuted by product_order within each instruction;
  /// groups without a product left out.
  void layout(std::size_t t0, std::size_t t1) {
    pos.clear();
    groups.clear();
    const std::size_t g = static_cast<std::size_t>(tp->group_size), K = P->K;
    if (tp->product_order.empty()) {  // one instruction over all K products: k order
      for (std::size_t t = t0; t < t1; t += g) {
        const std::size_t e = std::min(t1, t + g);
        for (std::size_t k = t; k < e; ++k) pos.push_back(static_cast<std::int64_t>(k));
        groups.push_back(TcGroup{static_cast<std::uint32_t>(e - t), t == 0, e == K});
      }
      return;
    }
    const std::vector<int>& order = tp->product_order;
    for (std::size_t first = t0; first < t1; first += ins) {
      const std::size_t g0 = groups.size();
      for (std::size_t p0 = 0; p0 < ins; p0 += g) {
        std::size_t present = 0;
        for (std::size_t q = p0; q < p0 + g; ++q) present += first + static_cast<std::size_t>(order[q]) < K;
        if (!present) continue;  // no product in this group: skipped (step 2)
        for (std::size_t q = p0; q < p0 + g; ++q) {
          const std::size_t k = first + static_cast<std::size_t>(order[q]);
          pos.push_back(k < K ? static_cast<std::int64_t>(k) : -1);
        }
        groups.push_back(TcGroup{static_cast<std::uint32_t>(g), false, false});
      }
      groups[g0].starts = true;
      groups.back().ends = true;
    }
  }

  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t w, int lshift, std::vector<std::int32_t>& n,
            std::vector<std::int32_t>& e, std::vector<std::uint8_t>& sg) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = pos.size();
    n.assign(panels * len * w, 0);
    e.assign(panels * len * w, kZeroExponent);
    sg.assign(panels * len * w, kTcAbsent);
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        const std::size_t base = p * len * w + l;
        for (std::size_t x = 0; x < len; ++x) {
          const std::size_t at = base + x * w;
          if (pos[x] < 0) continue;  // no product: n = 0, absent
          sg[at] = 0;
          if (r >= r1) continue;  // past the matrix: a +0 product
          const auto t = static_cast<std::size_t>(pos[x]);
          const std::uint8_t c = sd.code(r, t);
          n[at] = sd.tab.tc_n[c] * (std::int32_t{1} << lshift);
          sg[at] = sd.tab.sign[c];
          if (sd.tab.tc_n[c] != 0) e[at] = sd.tab.tc_e[c] + (sd.scale(r, t / P->block) - 127);
        }
      }
  }

  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, fpu_ok, s, any);
    if (!rg) return;  // the reference took every output
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    ex->run(i0, i1, j0, j1);  // the exact sums, for the flags
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.tc_mr, K.tc_nr, i1 - i0, j1 - j0);
    for (auto* v : {&acc_kept, &acc_qe, &r_kept, &r_qe}) v->assign(T.cells(), 0);
    state.assign(T.cells(), 0);
    if (P->addend || P->dot_c)  // mma_pairs, DotGeneral with C: C is the accumulator before the first instruction
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
        const std::size_t at = T.at(i - i0, j - j0);
        seed_tc_accumulator(P->addend ? P->addend[P->pairs ? i : i * P->N + j] : *P->c_of(i, j), prm.p,
                            prm.addend_in_group && !prm.after, acc_kept[at], acc_qe[at], state[at]);
      });
    const bool prodref = tp->align_reference == AlignReference::product_exponent;
    const TcFn fn = (P->pairs ? K.tc_pairs : K.tc)[prodref ? 1 : 0][tp->align_rounding == AlignRounding::nearest_even ? 1 : 0]
                                                   [lanes == 64 ? 1 : 0];
    const int lshift = prodref ? 0 : std::max(prm.c, 0);
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      layout(t0, std::min(P->K, t0 + kc));
      pack(P->a, i0, i1, T.mr, lshift, an, ae, as);
      pack(P->b, j0, j1, T.nr, 0, bn, be, bs);
      const std::size_t len = pos.size();
      T.each([&](std::size_t x, std::size_t y) {
        const std::size_t ao = x * len * T.mr, bo = y * len * T.nr, at = T.tile(x, y);
        fn(TcTile{an.data() + ao, ae.data() + ao, as.data() + ao, bn.data() + bo, be.data() + bo, bs.data() + bo,
                  groups.data(), groups.size(), acc_kept.data() + at, acc_qe.data() + at, r_kept.data() + at,
                  r_qe.data() + at, state.data() + at, T.ld, &prm});
      });
    }
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      if (P->a.special[i] || P->b.special[j] || (state[at] & kTcReference) || !ex->fits(i, j))
        put(*P, i, j, reference_output(*P, i, j, s), any);
      else
        put(*P, i, j, finish(i, j, at), any);
    });
  }

  /// The accumulator as the f32 code, with the flags against the exact sum (tensor_core.hpp).
  Result finish(std::size_t i, std::size_t j, std::size_t at) const {
    const bool neg = state[at] & kTcAccSign;
    const auto k = static_cast<std::uint32_t>(acc_kept[at]);
    const i128 v = ex->sum(i, j);
    if (P->dot_c) return finish_with_addend(i, j, at, neg, k, v);
    if (k == 0) {
      const std::uint32_t code = neg ? 0x80000000u : 0;
      return Result{code, static_cast<Flags>(v != 0 ? (flag::inexact | flag::underflow) : 0)};
    }
    const int msb = static_cast<int>(std::bit_width(k)) - 1;
    const int lead = acc_qe[at] + msb;
    const std::uint32_t mant = msb <= 23 ? k << (23 - msb) : k >> (msb - 23);  // kept = 2^24 at most: exact
    const std::uint32_t code = (neg ? 0x80000000u : 0) | static_cast<std::uint32_t>(lead + 127) << 23 | (mant & 0x7FFFFF);
    bool exact = false;
    if (v != 0) {
      const Unpacked u = unpacked_of(v, ex->unit(i, j));
      exact = !u.sticky && u.sign == neg && u.exp == lead && u.sig == (static_cast<std::uint64_t>(k) << (63 - msb));
    }
    return Result{code, static_cast<Flags>(exact ? 0 : flag::inexact)};
  }

  /// finish() with C (an f32 code the kernel took: zero or normal): the flags against the exact
  /// value of the products' sum v plus C, as the model's own (tensor_core.hpp): inexact when D
  /// differs from it, underflow too when D is zero (a subnormal D goes to the reference).
  Result finish_with_addend(std::size_t i, std::size_t j, std::size_t at, bool neg, std::uint32_t k, i128 v) const {
    detail::WideAccumulator w;
    if (v != 0) add_exact_sum(w, v, ex->unit(i, j));
    add_exact_value(w, addend_value(*P, i, j));
    if (k == 0) {
      const std::uint32_t code = neg ? 0x80000000u : 0;
      return Result{code, static_cast<Flags>(w.is_zero() ? 0 : (flag::inexact | flag::underflow))};
    }
    const int msb = static_cast<int>(std::bit_width(k)) - 1;
    const int lead = acc_qe[at] + msb;
    const std::uint32_t mant = msb <= 23 ? k << (23 - msb) : k >> (msb - 23);
    const std::uint32_t code = (neg ? 0x80000000u : 0) | static_cast<std::uint32_t>(lead + 127) << 23 | (mant & 0x7FFFFF);
    w.add(!neg, k, acc_qe[at]);  // the exact value minus D
    return Result{code, static_cast<Flags>(w.is_zero() ? 0 : flag::inexact)};
  }
};

}  // namespace

// Under an f16 destination (the model's f16 accumulator) the reference runs (dot_general_to).
bool tensor_core_takes(const Problem& P) {
  return P.tc && tc_lanes(P.tc->params(), P.a, P.b) != 0 && !(P.dest && P.to->id != FormatId::f32);
}

Flags tensor_core_run(const Problem& P, unsigned threads) {
  const TensorCoreParams& tp = P.tc->params();
  TcWork w(&P, &tp, blocking(P, P.kern->tc_mr, P.kern->tc_nr, 64, 128, threads), tc_lanes(tp, P.a, P.b));
  w.prm.F = tp.alignment_bits;
  w.prm.p = tp.f32.fraction_bits;
  w.prm.emin = -126;
  w.prm.emax = 127;
  w.prm.mode = tp.f32.mode;
  w.prm.addend_mode = tp.f32.addend_mode;
  w.prm.addend_in_group = tp.addend_in_group;
  w.prm.after = tp.addend_stage == AddendStage::after_products;
  const int mamb = P.a.op->format.format().man_bits + P.b.op->format.format().man_bits;
  w.prm.mamb = mamb;
  w.prm.c = tp.alignment_bits - mamb;
  w.prm.cr = std::max(-w.prm.c, 0);
  w.prm.zfloor = tp.zero_exponent ? *tp.zero_exponent : kZeroExponent;
  return parallel(threads, w.bl.items(), w);
}

}  // namespace softmx::gemm_detail
