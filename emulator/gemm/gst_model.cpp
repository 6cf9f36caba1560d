// emulator/gemm/gst_model.cpp: the GST-FDPA driver (docs/ARCHITECTURE.md, "GEMM"; the
// per_group tensor-core models blackwell-mxf4 and blackwell-nvf4, E2M1 only): groups of 16
// summed exactly in float lanes, the instruction's E, the terms cut in 64-bit lanes, RZ to f32.
#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <vector>

#include "gemm/exact_block.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {
namespace {

/// Whether the GST kernel computes this problem (ScaleApplication::per_group; otherwise the
/// reference, which refuses what DotGeneral refuses). It needs E2M1-like operands of one part
/// each, whole groups (k a multiple of the block, the block a multiple of scale_group), the f32
/// grid with RZ (23 bits), and these bounds, with q_a + q_b the products' quantum (E2M1: -2):
///  - a group's sum S = sum N_a N_b over scale_group products, |S| <= G max|N_a| max|N_b| (E2M1:
///    16 * 12 * 12 = 2304 < 2^12), below 2^24, so that float multiply-adds are exact;
///  - in units of the quantum 2^(E - F) with E >= x_a + x_b, a group's cut term is at most
///    |S| 2^(F + q_a + q_b) (its offer is E's floor), C's at most 2^24 2^(F - 23) (C's exponent
///    is E's floor), so the instruction's sum is below
///    (group_size / G) * max|S| * 2^max(F + q_a + q_b, 0) + 2^(24 + max(F - 23, 0)); with the
///    named models' F = 35, 4 groups: 4 * 2304 * 2^33 + 2^36 < 2^47, far below the 2^62 that
///    64-bit lanes and flog2 take (UE4M3 scales: |S| times 15 * 15 and 2^-6, below 2^55).
bool gst_kernel_fits(const TensorCoreParams& p, const Problem& P) {
  if (p.scale_application != ScaleApplication::per_group || p.f32.fraction_bits != 23 || p.f32.mode != Rounding::rz ||
      !p.product_order.empty() || !p.addend_in_group || p.addend_stage != AddendStage::first_group)
    return false;
  const std::size_t G = static_cast<std::size_t>(p.scale_group), L = static_cast<std::size_t>(p.group_size);
  if (P.a.op->format != FormatId::e2m1 || P.b.op->format != FormatId::e2m1 || P.K % P.block != 0 ||
      P.block % G != 0 || G != 16 || L % G != 0 || L / G > 64 || p.alignment_bits > 200)
    return false;
  if (P.a.tab.parts.size() != 1 || P.b.tab.parts.size() != 1) return false;
  auto maxn = [](const Side& s) {
    double m = 0;
    for (double n : s.tab.parts[0].n) m = std::max(m, n < 0 ? -n : n);
    return static_cast<i128>(m);
  };
  const i128 smax = static_cast<i128>(G) * maxn(P.a) * maxn(P.b);
  if (smax >= (i128{1} << 24)) return false;
  // UE4M3: S n_a n_b with 4-bit significands (E2M1: 2304 * 225 < 2^19); the exact sum in 64-bit
  // lanes, each group's S n_a n_b shifted by x_a + x_b - 6 + 18 in 0 .. 28 (x = the e4m3
  // exponents, -6 .. 8), stays below 2^62 for k / 16 groups.
  const bool ue4m3 = P.a.op->scale_format == FormatId::e4m3;
  const i128 sn = ue4m3 ? smax * 15 * 15 : smax;
  if (ue4m3 && static_cast<i128>(P.K / G) * (sn << 28) >= (i128{1} << 62)) return false;
  const int pl = std::max(p.alignment_bits + P.a.tab.parts[0].q + P.b.tab.parts[0].q, 0);
  const int cl = std::max(p.alignment_bits - 23, 0);
  if (pl > 62 || cl > 36) return false;
  const i128 bound = static_cast<i128>(L / G) * (sn << pl) + (i128{1} << (24 + cl));
  return bound < (i128{1} << 62);
}

struct GstWork {
  GstWork(const Problem* p, const TensorCoreParams* t, Blocking b) : P(p), tp(t), bl(b) {}
  const Problem* P;
  const TensorCoreParams* tp;
  Blocking bl;
  GstParams prm{};
  RefScratch s;
  std::optional<ExactBlock> ex;
  std::size_t kc = 0;
  bool fpu_ok = true;
  std::vector<float> av, bv;
  std::vector<std::int32_t> am, ax, an, bm, bx, bn;
  std::vector<std::uint32_t> acc, state;
  std::vector<std::int64_t> exact;  // UE4M3: the exact sums, in units of 2^(q_a + q_b - xo)
  std::array<std::int32_t, 256> sn{}, sx{};  // per scale code: significand n and exponent x

  void begin() {
    if (!prm.exact) ex.emplace(*P);
    for (int c = 0; c < 256; ++c) {
      if (!P->ue4m3) {  // UE8M0: 2^(c - 127)
        sn[c] = 1;
        sx[c] = c - 127;
        continue;
      }
      // UE4M3: the e4m3 value of c & 0x7F = n * 2^(x - 3), x clamped at -6 (run_gst's
      // group_scale); NaN codes never reach the kernel (the row is special).
      const Unpacked u = unpack(format(FormatId::e4m3), static_cast<std::uint64_t>(c & 0x7F));
      if (u.cls != ValueClass::finite) continue;  // zero (n = 0) or NaN
      sx[c] = std::max(u.exp, -6);
      sn[c] = static_cast<std::int32_t>(u.sig >> (63 - 3 - (u.exp - sx[c])));
    }
    fpu_ok = fpu_default();
    const std::size_t L = static_cast<std::size_t>(tp->group_size);
    kc = std::max<std::size_t>(1, 256 / L) * L;  // whole instructions
  }

  /// Rows r0 .. r1 - 1 (panels of w, zeros past r1), elements t0 .. t1 - 1: the values as
  /// [panel][t][w], the group masks, scale exponents and significands as [panel][group][w].
  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t w, std::size_t t0, std::size_t t1,
            std::vector<float>& v, std::vector<std::int32_t>& m, std::vector<std::int32_t>& x,
            std::vector<std::int32_t>& ns) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ng = len / 16;
    v.assign(panels * len * w, 0.0f);
    m.assign(panels * ng * w, 0);
    x.assign(panels * ng * w, 0);
    ns.assign(panels * ng * w, 0);
    const Component& part = sd.tab.parts[0];
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        if (r >= r1) continue;
        for (std::size_t gi = 0; gi < ng; ++gi) {
          std::uint32_t mask = 0;
          for (std::size_t q = 0; q < 16; ++q) {
            const std::size_t t = t0 + gi * 16 + q;
            const std::uint8_t c = sd.code(r, t);
            const double n = part.n[c];
            v[(p * len + gi * 16 + q) * w + l] = static_cast<float>(n);
            mask |= (n != 0 ? 1u : 0u) << q | static_cast<std::uint32_t>(sd.tab.sign[c]) << (16 + q);
          }
          m[(p * ng + gi) * w + l] = static_cast<std::int32_t>(mask);
          const std::uint8_t sc = sd.scale(r, (t0 + gi * 16) / P->block);
          x[(p * ng + gi) * w + l] = sx[sc];
          ns[(p * ng + gi) * w + l] = sn[sc];
        }
      }
  }

  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, fpu_ok, s, any);
    if (!rg) return;  // the reference took every output
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    if (ex) ex->run(i0, i1, j0, j1);  // the exact sums, for the flags (UE8M0; UE4M3: the kernel's)
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.gst_mr, K.gst_nr, i1 - i0, j1 - j0);
    if (prm.exact) exact.assign(T.cells(), 0);
    acc.assign(T.cells(), 0);  // +0: no C (kernel_api.hpp)
    state.assign(T.cells(), 0);
    if (P->addend)  // mma_pairs: C is the first instruction's C (NaN and Inf: the reference)
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
        const std::size_t at = T.at(i - i0, j - j0);
        const std::uint32_t c = P->addend[P->pairs ? i : i * P->N + j];
        acc[at] = c;
        if (((c >> 23) & 0xFF) == 0xFF) state[at] = kGstReference;
      });
    const GstFn fn = P->pairs ? K.gst_pairs : K.gst;
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      const std::size_t t1 = std::min(P->K, t0 + kc), len = t1 - t0, ng = len / 16;
      pack(P->a, i0, i1, T.mr, t0, t1, av, am, ax, an);
      pack(P->b, j0, j1, T.nr, t0, t1, bv, bm, bx, bn);
      T.each([&](std::size_t x, std::size_t y) {
        const std::size_t ao = x * len * T.mr, bo = y * len * T.nr, ag = x * ng * T.mr, bg = y * ng * T.nr;
        const std::size_t at = T.tile(x, y);
        fn(GstTile{av.data() + ao, bv.data() + bo, am.data() + ag, ax.data() + ag, bm.data() + bg, bx.data() + bg,
                   an.data() + ag, bn.data() + bg, ng, acc.data() + at, state.data() + at,
                   prm.exact ? exact.data() + at : nullptr, T.ld, &prm});
      });
    }
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      if (P->a.special[i] || P->b.special[j] || (state[at] & kGstReference) || (ex && !ex->fits(i, j)))
        put(*P, i, j, reference_output(*P, i, j, s), any);
      else
        put(*P, i, j, finish(i, j, at), any);
    });
  }

  /// The f32 code with the flags against the exact sum (as run_gst: inexact when they differ,
  /// underflow too when the result is zero or subnormal).
  Result finish(std::size_t i, std::size_t j, std::size_t at) const {
    const std::uint32_t code = acc[at];
    const i128 v = ex ? ex->sum(i, j) : i128{exact[at]};
    const int unit = ex ? ex->unit(i, j) : P->a.tab.parts[0].q + P->b.tab.parts[0].q - prm.xo;
    const std::uint32_t mag = code & 0x7FFFFFFF;
    if (mag == 0) return Result{code, static_cast<Flags>(v != 0 ? (flag::inexact | flag::underflow) : 0)};
    const std::uint32_t bexp = mag >> 23;
    const std::uint32_t k = (mag & 0x7FFFFF) | (bexp ? 0x800000u : 0);
    const int msb = static_cast<int>(std::bit_width(k)) - 1;
    const int lead = static_cast<int>(std::max<std::uint32_t>(bexp, 1)) - 150 + msb;
    bool same = false;
    if (v != 0) {
      const Unpacked u = unpacked_of(v, unit);
      same = !u.sticky && u.sign == ((code >> 31) != 0) && u.exp == lead &&
              u.sig == (static_cast<std::uint64_t>(k) << (63 - msb));
    }
    if (same) return Result{code, 0};
    return Result{code, static_cast<Flags>(flag::inexact | (bexp == 0 ? flag::underflow : 0))};
  }
};

}  // namespace

// With C or an f16/bf16 destination the reference runs (dot_general_to per output).
bool gst_takes(const Problem& P) { return P.tc && gst_kernel_fits(P.tc->params(), P) && !P.dest; }

Flags gst_run(const Problem& P, unsigned threads) {
  const TensorCoreParams& tp = P.tc->params();
  GstWork w(&P, &tp, blocking(P, P.kern->gst_mr, P.kern->gst_nr, 64, 128, threads));
  w.prm.F = tp.alignment_bits;
  w.prm.gpi = tp.group_size / tp.scale_group;
  const int pq = tp.alignment_bits + P.a.tab.parts[0].q + P.b.tab.parts[0].q;  // F + q_a + q_b
  w.prm.pl = std::max(pq, 0);
  w.prm.pr = std::max(-pq, 0);
  w.prm.cl = std::max(tp.alignment_bits - 23, 0);
  w.prm.cr = std::max(23 - tp.alignment_bits, 0);
  w.prm.zexp = tp.zero_exponent ? *tp.zero_exponent : kZeroExponent;
  w.prm.exact = P.ue4m3 != nullptr;  // UE4M3: the kernel keeps the exact sums (ExactBlock reads E8M0)
  w.prm.qoff = P.ue4m3 ? -6 : 0;
  w.prm.xo = 18;
  return parallel(threads, w.bl.items(), w);
}

}  // namespace softmx::gemm_detail
