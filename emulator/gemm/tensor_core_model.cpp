// emulator/gemm/tensor_core_model.cpp: the tensor-core models' driver (docs/ARCHITECTURE.md,
// "GEMM"; TensorCoreModel's steps, tensor_core.hpp): products packed in the model's position
// order, the groups' integer lanes, C seeded into the accumulator; the exact sums give the flags.
#include <algorithm>
#include <climits>
#include <cstdint>
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

/// A bound on a group's sum in units of the quantum 2^(E - F) (alignment_bits <= 90,
/// per-product scales): G * T + 2^(F + 1) + G + 1, T the largest product term in those units: |N_a N_b| 2^(F - m_a - m_b) for the
/// operand-exponent reference, 2^(F + 1) for the product's own; 2^(F + 1) bounds the running
/// value's term, and each cut may round up by one unit.
i128 tc_group_bound(const TensorCoreParams& p, const Side& a, const Side& b) {
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
  return g * t + (i128{1} << (F + 1)) + g + 1;
}

/// The lanes the tensor-core kernel needs for this model and these formats (tc_group_bound):
/// 32 or 64 bits, or 0 (no kernel: the reference).
int tc_lanes(const TensorCoreParams& p, const Side& a, const Side& b) {
  if (p.alignment_bits > 90 || p.scale_application == ScaleApplication::per_group) return 0;  // GST: gst_kernel_fits
  const i128 bound = tc_group_bound(p, a, b);
  if (bound < (i128{1} << 31)) return 32;
  if (bound < (i128{1} << 62)) return 64;
  return 0;
}

/// TcParams::fl: the float route (TcTile::af) takes the operand-exponent reference with
/// truncation when every term fits 32-bit lanes: fl terms per 32-bit partial sum, fl T < 2^31
/// with T tc_lanes' largest term; 0 (the integer route) otherwise.
std::uint32_t tc_float_run(const TensorCoreParams& p, const Side& a, const Side& b) {
  if (p.alignment_bits > 90 || p.scale_application == ScaleApplication::per_group) return 0;
  if (p.align_reference != AlignReference::operand_exponents || p.align_rounding != AlignRounding::truncate) return 0;
  auto maxn = [](const Side& s) {
    std::int64_t m = 0;
    for (std::int32_t n : s.tab.tc_n) m = std::max<std::int64_t>(m, n < 0 ? -std::int64_t{n} : n);
    return m;
  };
  const int c = p.alignment_bits - (a.tab.man_bits + b.tab.man_bits);
  const i128 prod = static_cast<i128>(maxn(a)) * maxn(b);
  if (c >= 31) return 0;
  const i128 t = c >= 0 ? prod << c : (prod >> -c) + 1;
  const i128 lim = (i128{1} << 31) - 1;
  if (t > lim) return 0;
  return static_cast<std::uint32_t>(std::min<i128>(std::max(p.group_size, 1), lim / std::max<i128>(t, 1)));
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
  std::vector<float> af, bf;       // the float route's operands (float_operands)
  std::vector<std::int32_t> ra, rb;
  std::vector<std::uint32_t> state;
  std::vector<TcGroup> groups;
  std::vector<std::int64_t> pos;  // the chunk's positions in packed order: product k, or -1 (none)
  std::vector<std::uint32_t> blk;  // pos[x]'s block (pos[x] / block; 0 where pos[x] < 0)

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

  /// Packs rows r0 .. r1 - 1 of a side for the chunk's positions (pos) into panels of w: n (the
  /// significand, times 2^lshift), e (the exponent plus the block's scale exponent) and the sign
  /// byte per position, [panel][position][lane]. The tables and the operand are read through
  /// local pointers, and each position's block index is taken once per chunk (blk), not divided
  /// out per element.
  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t w, int lshift, std::vector<std::int32_t>& n,
            std::vector<std::int32_t>& e, std::vector<std::uint8_t>& sg) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = pos.size();
    n.assign(panels * len * w, 0);
    e.assign(panels * len * w, kZeroExponent);
    sg.assign(panels * len * w, kTcAbsent);
    const std::int32_t* tn = sd.tab.tc_n.data();
    const std::int32_t* te = sd.tab.tc_e.data();
    const std::uint8_t* ts = sd.tab.sign.data();
    const std::uint8_t* codes = sd.op->codes.data();
    const std::uint8_t* scales = sd.op->scales.data();
    const std::size_t rs = sd.op->row_stride, ks = sd.op->k_stride, srs = sd.op->scale_row_stride,
                      sbs = sd.op->scale_block_stride;
    const std::int64_t* ps = pos.data();
    const std::uint32_t* bk = blk.data();
    std::int32_t* np = n.data();
    std::int32_t* ep = e.data();
    std::uint8_t* sp = sg.data();
    // Position-major, lanes inside: B's codes (K x N, one column per lane) are then read along
    // their rows, and A's MR rows advance together.
    for (std::size_t p = 0; p < panels; ++p) {
      const std::size_t q0 = r0 + p * w, q1 = std::min(r1, q0 + w);
      for (std::size_t x = 0; x < len; ++x) {
        if (ps[x] < 0) continue;  // no product: n = 0, absent
        const std::size_t at = p * len * w + x * w;
        const std::uint8_t* col = codes + static_cast<std::size_t>(ps[x]) * ks;
        const std::uint8_t* scol = scales + bk[x] * sbs;
        for (std::size_t r = q0; r < q1; ++r) {
          const std::uint8_t c = col[r * rs];
          const std::int32_t v = tn[c];
          np[at + (r - q0)] = v * (std::int32_t{1} << lshift);
          sp[at + (r - q0)] = ts[c];
          if (v != 0) ep[at + (r - q0)] = te[c] + (static_cast<std::int32_t>(scol[r * srs]) - 127);
        }
        for (std::size_t l = q1 - q0; l < w; ++l) sp[at + l] = 0;  // past the matrix: a +0 product
      }
    }
  }

  /// The float route's operands (TcTile::af) for one side's packed panels of width w (n, e as
  /// pack made them): per panel, group and lane the reference R (the largest exponent of a
  /// non-zero element) and per position f = n * 2^(e - R) as an f32 (exact: n has at most 8
  /// significant bits, e - R in -kTcSpread .. 0). False (the chunk takes the integer route) when
  /// a non-zero element lies more than kTcSpread below its group's R.
  bool float_operands(const std::vector<std::int32_t>& n, const std::vector<std::int32_t>& e, std::size_t w,
                      std::vector<float>& f, std::vector<std::int32_t>& ref) const {
    const std::size_t len = pos.size(), panels = n.size() / (len * w), G = groups.size();
    f.resize(n.size());
    ref.resize(panels * G * w);
    std::int32_t lo[64], hi[64];  // w <= 64: the tile widths of every instruction set
    if (w > 64) return false;
    for (std::size_t p = 0; p < panels; ++p) {
      std::size_t x0 = 0;
      for (std::size_t gi = 0; gi < G; ++gi) {
        const std::size_t x1 = x0 + groups[gi].len;
        for (std::size_t l = 0; l < w; ++l) {
          lo[l] = INT32_MAX;
          hi[l] = INT32_MIN;
        }
        for (std::size_t x = x0; x < x1; ++x) {
          const std::size_t at = (p * len + x) * w;
          for (std::size_t l = 0; l < w; ++l)
            if (n[at + l] != 0) {
              lo[l] = std::min(lo[l], e[at + l]);
              hi[l] = std::max(hi[l], e[at + l]);
            }
        }
        std::int32_t* rp = ref.data() + (p * G + gi) * w;
        for (std::size_t l = 0; l < w; ++l) {
          if (hi[l] == INT32_MIN) hi[l] = 0;  // no non-zero element: every f is 0
          else if (hi[l] - lo[l] > kTcSpread) return false;
          rp[l] = hi[l];
        }
        for (std::size_t x = x0; x < x1; ++x) {
          const std::size_t at = (p * len + x) * w;
          for (std::size_t l = 0; l < w; ++l) {
            const std::int32_t v = n[at + l];
            // 2^(e - R) through its bits: e - R in -kTcSpread .. 0 where v != 0.
            const float sc = std::bit_cast<float>(static_cast<std::uint32_t>(v != 0 ? 127 + e[at + l] - rp[l] : 0) << 23);
            f[at + l] = static_cast<float>(v) * sc;
          }
        }
        x0 = x1;
      }
    }
    return true;
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
    const TcFn rz_fn = (P->pairs ? K.tc_rz_pairs : K.tc_rz)[lanes == 64 ? 1 : 0];
    bool rz_form = false;  // r_kept holds tc_tile_rz's form of r (its f32 bits)
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      layout(t0, std::min(P->K, t0 + kc));
      blk.resize(pos.size());
      for (std::size_t x = 0; x < pos.size(); ++x)
        blk[x] = pos[x] < 0 ? 0 : static_cast<std::uint32_t>(static_cast<std::size_t>(pos[x]) / P->block);
      pack(P->a, i0, i1, T.mr, lshift, an, ae, as);
      pack(P->b, j0, j1, T.nr, 0, bn, be, bs);
      const std::size_t len = pos.size(), G = groups.size();
      const bool fl = prm.fl != 0 && float_operands(an, ae, T.mr, af, ra) && float_operands(bn, be, T.nr, bf, rb);
      const bool rz = fl && prm.rz_kernel;
      // A model without product_order chains r through all of K, so r is live here unless the
      // chunk starts an instruction; the two kernels hold it in different forms.
      if (rz != rz_form && !groups.front().starts) convert_r(rz);
      rz_form = rz;
      T.each([&](std::size_t x, std::size_t y) {
        const std::size_t ao = x * len * T.mr, bo = y * len * T.nr, at = T.tile(x, y);
        (rz ? rz_fn : fn)(TcTile{an.data() + ao, ae.data() + ao, as.data() + ao, bn.data() + bo, be.data() + bo, bs.data() + bo,
                  groups.data(), groups.size(), acc_kept.data() + at, acc_qe.data() + at, r_kept.data() + at,
                  r_qe.data() + at, state.data() + at, T.ld, &prm, fl ? af.data() + ao : nullptr,
                  fl ? bf.data() + bo : nullptr, fl ? ra.data() + x * G * T.mr : nullptr,
                  fl ? rb.data() + y * G * T.nr : nullptr});
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

  /// The running value r of every output from tc_tile's form (kept 2^qe in r_kept and r_qe,
  /// its sign kTcRSign) into tc_tile_rz's (its f32's bits in r_kept: exact, kept having at
  /// most p + 1 <= 24 bits and, where the output is not marked, lead in -126 .. 127), or
  /// back (kept the significand cut to p + 1 bits, which tc_tile_rz's values have). A marked
  /// output's r may be anything: the reference computes it.
  void convert_r(bool to_rz) {
    const int p = prm.p;
    for (std::size_t c = 0; c < state.size(); ++c) {
      const bool neg = state[c] & kTcRSign;
      if (to_rz) {
        const auto k = static_cast<std::uint32_t>(r_kept[c]);
        std::uint32_t bits = neg ? 0x80000000u : 0;
        if (k != 0 && k < (1u << 25)) {
          const int msb = static_cast<int>(std::bit_width(k)) - 1;
          const int field = r_qe[c] + msb + 127;
          if (field >= 1 && field <= 254)
            bits |= static_cast<std::uint32_t>(field) << 23 | ((msb <= 23 ? k << (23 - msb) : k >> (msb - 23)) & 0x7FFFFF);
        }
        r_kept[c] = static_cast<std::int32_t>(bits);
      } else {
        const auto bits = static_cast<std::uint32_t>(r_kept[c]);
        const std::uint32_t field = (bits >> 23) & 0xFF;
        state[c] = (state[c] & ~kTcRSign) | ((bits >> 31) ? kTcRSign : 0);
        r_kept[c] = field == 0 ? 0 : static_cast<std::int32_t>(((bits & 0x7FFFFF) | 0x800000) >> (23 - p));
        r_qe[c] = static_cast<std::int32_t>(field) - 127 - p;
      }
    }
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
  TcWork w(&P, &tp, blocking(P, P.kern->tc_mr, P.kern->tc_nr, 512, 512, threads), tc_lanes(tp, P.a, P.b));
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
  w.prm.fl = tc_float_run(tp, P.a, P.b);
  w.prm.sums53 = tc_group_bound(tp, P.a, P.b) < (i128{1} << 53);
  w.prm.rz_kernel = w.prm.fl != 0 && w.prm.mode == Rounding::rz && w.prm.p <= 23 && w.prm.addend_in_group &&
                    w.prm.F <= 29 && (w.lanes == 32 || w.prm.sums53) &&
                    (!w.prm.after || (w.prm.addend_mode == Rounding::rne && w.prm.p == 23)) && w.prm.emin == -126 &&
                    w.prm.emax == 127;
  return parallel(threads, w.bl.items(), w);
}

}  // namespace softmx::gemm_detail
