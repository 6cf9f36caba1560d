// emulator/gemm/sequential_model.cpp: the fp32-sequential model's driver (docs/ARCHITECTURE.md,
// "GEMM"): the FPU's f32 additions in BLOCKS.md's order, TwoSum for the flags and the other
// rounding modes; block sums scaled by E8M0 exponents, or rounded once times two scale values
// of another format (Problem::seq_scales); outputs into f16 or bf16 rounded once more from the
// f32 accumulator.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "gemm/driver.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {
namespace {

/// Whether the fp32-sequential kernel computes this problem (otherwise the reference). The
/// kernel needs (seq_tile.hpp) every element value exact in f32, every product of two exact and
/// normal (then every running block sum, a multiple of the products' quantum 2^(q_a + q_b), is
/// zero or normal: q_a + q_b >= -126), and no block sum reaching Inf or NaN (a NaN's exponent
/// field, moved by the block's scale, could look finite): block * max|a| * max|b| < 2^127.
/// Every named MX element format meets these (products 2^-32 .. 2^32); a runtime format of at
/// most 8 bits with a far bias, or e7m0, may not.
bool seq_kernel_fits(const Problem& P) {
  const ElementTables &ta = P.a.tab, &tb = P.b.tab;
  if (!ta.value_exact || !tb.value_exact) return false;
  if (P.a.qmin + P.b.qmin < -126) return false;
  return ta.max_abs * tb.max_abs * static_cast<double>(std::min(P.block, P.K)) < 0x1p127;
}

/// The exact-block exponents of one operand (kernel_api.hpp, SeqSegment): sx[r * nb + b] and
/// mx[r * nb + b] for vector r, block b. The magnitudes (exact f32 values, at most 8 significant
/// bits) are summed in double: n non-negative terms sum with a relative error below n 2^-53, so
/// S (1 + n 2^-52), rounded, still exceeds the exact sum, and e_S = ilogb of it + 1.
struct SeqExact {
  std::vector<std::int32_t> sx, mx;
};

SeqExact seq_exact(const Side& sd, std::size_t K, std::size_t block) {
  SeqExact e;
  const std::size_t rows = sd.op->rows, nb = sd.nb;
  e.sx.assign(rows * nb, kSeqAlwaysExact);
  e.mx.assign(rows * nb, kSeqAlwaysExact);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < nb; ++b) {
      double sum = 0, mx = 0, n = 0;
      std::int32_t q = kNoQuantum;
      for (std::size_t t = b * block, t1 = std::min(K, t + block); t < t1; ++t) {
        const std::uint8_t c = sd.code(r, t);
        if (sd.tab.quantum[c] == kNoQuantum) continue;
        const double v = std::fabs(static_cast<double>(sd.tab.value[c]));
        sum += v;
        n += 1;
        mx = std::max(mx, v);
        q = std::min(q, sd.tab.quantum[c]);
      }
      if (q == kNoQuantum) continue;
      // The least e with x < 2^e, for x > 0: ilogb(x) + 1.
      e.sx[r * nb + b] = std::ilogb(sum * (1 + n * 0x1p-52)) + 1 - q;
      e.mx[r * nb + b] = std::ilogb(mx) + 1 - q;
    }
  return e;
}

struct SeqWork {
  SeqWork(const Problem* p, Blocking b, const SeqExact* ea_, const SeqExact* eb_) : P(p), bl(b), ea(ea_), eb(eb_) {}
  const Problem* P;
  Blocking bl;
  const SeqExact* ea;
  const SeqExact* eb;
  RefScratch s;
  std::size_t kc = 256;
  std::vector<float> apack, bpack;
  std::vector<std::int32_t> xa, xb, ya, yb;  // y: sx then mx, [panel][segment][2][w]
  std::vector<double> va, vb;                 // scale values (Problem::seq_scales), [panel][segment][w]
  std::vector<std::uint32_t> sum, acc, state;
  std::vector<SeqSegment> segs;
  struct Seg {
    std::size_t begin, end, blk;
  };
  std::vector<Seg> seg;
  bool fpu_ok = true;
  void begin() { fpu_ok = fpu_default(); }

  /// Packs rows r0..r1 (panels of w, pack_panel), elements t0..t1, as [panel][t][w] (lanes past
  /// r1 zero), each segment's scale exponents (E8M0) or scale values (Problem::seq_scales: sval;
  /// lanes past r1 zero) as [panel][segment][w] and its block's exact-block exponents as
  /// [panel][segment][sx, mx][w] (lanes past r1: kSeqAlwaysExact).
  void pack(const Side& sd, const SeqExact& ex, std::size_t r0, std::size_t r1, std::size_t t0, std::size_t t1,
            std::size_t w, std::vector<float>& out, std::vector<std::int32_t>& x, std::vector<double>& v,
            std::vector<std::int32_t>& y) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ns = seg.size();
    const bool values = !sd.sval.empty();
    out.resize(panels * len * w);
    x.assign(panels * ns * w, 0);
    v.assign(values ? panels * ns * w : 0, 0.0);
    y.assign(panels * ns * 2 * w, kSeqAlwaysExact);
    for (std::size_t p = 0; p < panels; ++p) {
      const std::size_t lanes = std::min(w, r1 - (r0 + p * w));
      pack_panel(*sd.op, sd.tab.value, r0 + p * w, lanes, t0, len, w, out.data() + p * len * w);
      for (std::size_t l = 0; l < lanes; ++l) {
        const std::size_t r = r0 + p * w + l;
        for (std::size_t q = 0; q < ns; ++q) {
          if (values) v[(p * ns + q) * w + l] = sd.sval[r * sd.nb + seg[q].blk];
          else x[(p * ns + q) * w + l] = sd.scale(r, seg[q].blk) - 127;
          y[((p * ns + q) * 2) * w + l] = ex.sx[r * sd.nb + seg[q].blk];
          y[((p * ns + q) * 2 + 1) * w + l] = ex.mx[r * sd.nb + seg[q].blk];
        }
      }
    }
  }

  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, fpu_ok, s, any);
    if (!rg) return;  // the reference took every output
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.seq_mr, K.seq_nr, i1 - i0, j1 - j0);
    sum.assign(T.cells(), 0);
    acc.assign(T.cells(), 0);
    state.assign(T.cells(), 0);
    if (P->dot_c)  // C is the accumulator's initial value (dot.hpp), widened exactly into f32
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
        const std::size_t at = T.at(i - i0, j - j0);
        const Unpacked c = addend_value(*P, i, j);
        if (c.cls == ValueClass::nan || c.cls == ValueClass::inf) state[at] = kSeqReference;  // specials decide first
        else acc[at] = static_cast<std::uint32_t>(round_pack(format(FormatId::f32), c, P->ctx, ocp_dialect()).code);
      });
    const SeqFn fn = (P->pairs ? K.seq_pairs : K.seq)[static_cast<int>(P->ctx.rounding)];
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      const std::size_t t1 = std::min(P->K, t0 + kc);
      seg.clear();
      for (std::size_t t = t0; t < t1;) {
        const std::size_t blk = t / P->block;
        const std::size_t end = std::min(t1, (blk + 1) * P->block);
        seg.push_back({t, end, blk});
        t = end;
      }
      pack(P->a, *ea, i0, i1, t0, t1, T.mr, apack, xa, va, ya);
      pack(P->b, *eb, j0, j1, t0, t1, T.nr, bpack, xb, vb, yb);
      const bool values = P->seq_scales;
      const std::size_t len = t1 - t0, ns = seg.size();
      segs.resize(ns);
      T.each([&](std::size_t x, std::size_t y) {
        for (std::size_t q = 0; q < ns; ++q) {
          const bool ends = seg[q].end == std::min(P->K, (seg[q].blk + 1) * P->block);
          const std::int32_t* yaq = ya.data() + (x * ns + q) * 2 * T.mr;
          const std::int32_t* ybq = yb.data() + (y * ns + q) * 2 * T.nr;
          segs[q] = SeqSegment{static_cast<std::uint32_t>(seg[q].end - seg[q].begin), ends,
                               xa.data() + (x * ns + q) * T.mr, xb.data() + (y * ns + q) * T.nr,
                               yaq, yaq + T.mr, ybq, ybq + T.nr,
                               values ? va.data() + (x * ns + q) * T.mr : nullptr,
                               values ? vb.data() + (y * ns + q) * T.nr : nullptr};
        }
        const std::size_t at = T.tile(x, y);
        fn(SeqTile{apack.data() + x * len * T.mr, bpack.data() + y * len * T.nr, segs.data(), ns, sum.data() + at,
                   acc.data() + at, state.data() + at, T.ld});
      });
    }
    if (!P->pairs && (!P->dest || P->to->id == FormatId::f32)) {
      finish_f32(T, i0, i1, j0, j1, any);
      return;
    }
    const Format& f32 = format(FormatId::f32);
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      const Flags inexact = (state[at] & kSeqInexact) ? flag::inexact : 0;
      if (P->a.special[i] || P->b.special[j] || (state[at] & kSeqReference)) {
        put(*P, i, j, reference_output(*P, i, j, s), any);
      } else if (!P->dest || P->to->id == FormatId::f32) {
        put(*P, i, j, Result{acc[at], inexact}, any);
      } else {  // the last rounding, of the f32 accumulator into f16 or bf16
        const Result r = round_pack(*P->to, unpack(f32, acc[at]), P->ctx, ocp_dialect());
        put(*P, i, j, Result{r.code, static_cast<Flags>(r.flags | inexact)}, any);
      }
    });
  }

  /// The block's outputs into f32 (not pairs): the general loop's first two cases, per row,
  /// with raw pointers in locals (the flags' byte stores could alias any member, which would
  /// make the compiler reload every one per output).
  void finish_f32(const Tiles& T, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1, Flags& any) {
    const std::uint8_t* const bsp = P->b.special.data() + j0;
    Flags seen = 0;
    for (std::size_t i = i0; i < i1; ++i) {
      const std::uint32_t* const st = state.data() + T.at(i - i0, 0);
      const std::uint32_t* const ac = acc.data() + T.at(i - i0, 0);
      std::uint32_t* const c = P->c + i * P->N + j0;
      Flags* const fl = P->flags ? P->flags + i * P->N + j0 : nullptr;
      const bool sa = P->a.special[i] != 0;
      for (std::size_t j = 0; j < j1 - j0; ++j) {
        const Result r = sa || bsp[j] || (st[j] & kSeqReference)
                             ? reference_output(*P, i, j0 + j, s)
                             : Result{ac[j], (st[j] & kSeqInexact) ? flag::inexact : Flags{0}};
        c[j] = static_cast<std::uint32_t>(r.code);
        if (fl) fl[j] = r.flags;
        seen |= r.flags;
      }
    }
    any |= seen;
  }
};

}  // namespace

// fp32-sequential has kernels for every deterministic mode (rs: the reference, with ctx.rbits).
bool sequential_takes(const Problem& P) {
  return P.model == &fp32_sequential_accumulation() && P.ctx.rounding != Rounding::rs && seq_kernel_fits(P);
}

Flags sequential_run(const Problem& P, unsigned threads) {
  // 512 x 256 outputs per item: B's panels packed once per 512 rows of A (as exact_run).
  const Blocking bl = blocking(P, P.kern->seq_mr, P.kern->seq_nr, 512, 256, threads);
  const SeqExact ea = seq_exact(P.a, P.K, P.block), eb = seq_exact(P.b, P.K, P.block);
  return parallel(threads, bl.items(), SeqWork(&P, bl, &ea, &eb));
}

}  // namespace softmx::gemm_detail
