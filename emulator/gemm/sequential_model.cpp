// emulator/gemm/sequential_model.cpp: the fp32-sequential model's driver (docs/ARCHITECTURE.md,
// "GEMM"): the FPU's f32 additions in BLOCKS.md's order, TwoSum for the flags and the other
// rounding modes; outputs into f16 or bf16 rounded once more from the f32 accumulator.
#include <algorithm>
#include <optional>
#include <vector>

#include "gemm/driver.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {
namespace {

/// Whether the fp32-sequential kernel computes this problem (otherwise the reference). The
/// kernel needs (kernels.hpp) every element value exact in f32, every product of two exact and
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

struct SeqWork {
  SeqWork(const Problem* p, Blocking b) : P(p), bl(b) {}
  const Problem* P;
  Blocking bl;
  RefScratch s;
  std::size_t kc = 256;
  std::vector<float> apack, bpack;
  std::vector<std::int32_t> xa, xb;
  std::vector<std::uint32_t> sum, acc, state;
  std::vector<SeqSegment> segs;
  struct Seg {
    std::size_t begin, end, blk;
  };
  std::vector<Seg> seg;
  bool fpu_ok = true;
  void begin() { fpu_ok = fpu_default(); }

  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t t0, std::size_t t1, std::size_t w,
            std::vector<float>& out, std::vector<std::int32_t>& x) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ns = seg.size();
    out.assign(panels * len * w, 0.0f);
    x.assign(panels * ns * w, 0);
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        if (r >= r1) continue;
        float* o = out.data() + p * len * w + l;
        for (std::size_t t = t0; t < t1; ++t) o[(t - t0) * w] = sd.tab.value[sd.code(r, t)];
        for (std::size_t q = 0; q < ns; ++q) x[(p * ns + q) * w + l] = sd.scale(r, seg[q].blk) - 127;
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
      pack(P->a, i0, i1, t0, t1, T.mr, apack, xa);
      pack(P->b, j0, j1, t0, t1, T.nr, bpack, xb);
      const std::size_t len = t1 - t0, ns = seg.size();
      segs.resize(ns);
      T.each([&](std::size_t x, std::size_t y) {
        for (std::size_t q = 0; q < ns; ++q) {
          const bool ends = seg[q].end == std::min(P->K, (seg[q].blk + 1) * P->block);
          segs[q] = SeqSegment{static_cast<std::uint32_t>(seg[q].end - seg[q].begin), ends,
                               xa.data() + (x * ns + q) * T.mr, xb.data() + (y * ns + q) * T.nr};
        }
        const std::size_t at = T.tile(x, y);
        fn(SeqTile{apack.data() + x * len * T.mr, bpack.data() + y * len * T.nr, segs.data(), ns, sum.data() + at,
                   acc.data() + at, state.data() + at, T.ld});
      });
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
};

}  // namespace

// fp32-sequential has kernels for every deterministic mode (rs: the reference, with ctx.rbits).
bool sequential_takes(const Problem& P) {
  return P.model == &fp32_sequential_accumulation() && P.ctx.rounding != Rounding::rs && seq_kernel_fits(P);
}

Flags sequential_run(const Problem& P, unsigned threads) {
  const Blocking bl = blocking(P, P.kern->seq_mr, P.kern->seq_nr, 64, 128, threads);
  return parallel(threads, bl.items(), SeqWork(&P, bl));
}

}  // namespace softmx::gemm_detail
