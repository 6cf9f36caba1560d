// emulator/gemm/exact_model.cpp: the exact model's driver (docs/ARCHITECTURE.md, "GEMM"): the
// block's exact sums (exact_block.hpp), each rounded once into the destination, C added exactly.
#include <optional>

#include "gemm/exact_block.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {
namespace {

struct ExactWork {
  ExactWork(const Problem* p, Blocking b) : P(p), bl(b) {}
  const Problem* P;
  Blocking bl;
  RefScratch s;
  std::optional<ExactBlock> ex;
  void begin() { ex.emplace(*P); }
  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, true, s, any);  // (integer lanes: any FPU state)
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    ex->run(i0, i1, j0, j1);
    const Format& f32 = format(FormatId::f32);
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const i128 v = ex->sum(i, j);
      std::optional<Result> r;
      if (P->a.special[i] || P->b.special[j] || !ex->fits(i, j) || v == 0)
        r = std::nullopt;  // specials, huge spreads, the sign of a zero: the reference
      else if (!P->dest)
        r = round_pack(f32, unpacked_of(v, ex->unit(i, j)), P->ctx, ocp_dialect());
      else
        r = with_addend(v, ex->unit(i, j), addend_value(*P, i, j));
      put(*P, i, j, r ? *r : reference_output(*P, i, j, s), any);
    });
  }

  /// The exact sum v * 2^unit plus C, rounded once into the destination (dot_general's exact
  /// model, dot.hpp); nullopt for the reference: C NaN or Inf (the specials' rule), or a sum
  /// that C cancels to zero (its sign).
  std::optional<Result> with_addend(i128 v, int unit, const Unpacked& c) const {
    if (c.cls == ValueClass::nan || c.cls == ValueClass::inf) return std::nullopt;
    detail::WideAccumulator w;
    add_exact_sum(w, v, unit);
    add_exact_value(w, c);
    if (w.is_zero()) return std::nullopt;
    return round_pack(*P->to, w.to_unpacked(), P->ctx, ocp_dialect());
  }
};

}  // namespace

bool exact_takes(const Problem& P) { return P.model == &exact_accumulation(); }

Flags exact_run(const Problem& P, unsigned threads) {
  const Blocking bl = blocking(P, P.kern->exact_mr, P.kern->exact_nr, 64, 96, threads);
  return parallel(threads, bl.items(), ExactWork(&P, bl));
}

}  // namespace softmx::gemm_detail
