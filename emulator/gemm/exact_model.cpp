// emulator/gemm/exact_model.cpp: the exact model's driver (docs/ARCHITECTURE.md, "GEMM"): the
// block's exact sums (exact_block.hpp), each rounded once into the destination, C added exactly.
#include <cstdint>
#include <cstring>
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
  bool fast = false;  // f32 outputs in rne with the FPU in its default state: f32_rne() may finish
  void begin() {
    ex.emplace(*P);
    fast = !P->dest && P->ctx.rounding == Rounding::rne && fpu_default();
  }
  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, true, s, any);  // (integer lanes: any FPU state)
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    ex->run(i0, i1, j0, j1);
    const Format& f32 = format(FormatId::f32);
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const i128 v = ex->sum(i, j);
      // Specials, huge spreads and the sign of a zero go to the reference.
      const bool ref = P->a.special[i] || P->b.special[j] || !ex->fits(i, j) || v == 0;
      std::optional<Result> r;
      if (!ref) {
        const int unit = ex->unit(i, j);
        if (fast) r = f32_rne(v, unit);
        if (!r) r = !P->dest ? std::optional<Result>(round_pack(f32, unpacked_of(v, unit), P->ctx, ocp_dialect()))
                             : with_addend(v, unit, addend_value(*P, i, j));
      }
      put(*P, i, j, r ? *r : reference_output(*P, i, j, s), any);
    });
  }

  /// The exact sum v * 2^unit (v != 0) rounded to nearest-even into f32, where that is the FPU's
  /// one conversion: |v| < 2^62 (an int64 the FPU converts to f32 with one rounding, rne in the
  /// default state, and whose rounded value converts back exactly: inexact iff it differs), and
  /// the rounded value times 2^unit a normal f32 with an exponent in -125..126, so that scaling
  /// is exact (the exponent field moves) and the exact value, at least 2^-125 (1 - 2^-24) >
  /// 2^-126, is not tiny under any tininess rule nor near overflow: then round_pack's result is
  /// this code with the inexact flag alone (saturation does not arise). Otherwise nullopt.
  static std::optional<Result> f32_rne(i128 v, int unit) {
    constexpr i128 kLim = i128{1} << 62;
    if (v >= kLim || v <= -kLim) return std::nullopt;
    const auto x = static_cast<std::int64_t>(v);
    const float f = static_cast<float>(x);
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const int e = static_cast<int>((bits >> 23) & 0xFF) - 127 + unit;  // f != 0: |x| >= 1
    if (e < -125 || e > 126) return std::nullopt;
    bits += static_cast<std::uint32_t>(unit) << 23;  // (two's complement: moves the field by unit)
    return Result{bits, static_cast<std::int64_t>(f) != x ? flag::inexact : Flags{0}};
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
  // 128 x 192 outputs per item: a chunk's panels (kc = 256 doubles per row: 256 + 384 KiB) and
  // the accumulators (384 KiB with the high words) stay within a 2 MiB L2, and each B panel is
  // packed once per 128 rows of A (packing is table reads, per element, not per product).
  const Blocking bl = blocking(P, P.kern->exact_mr, P.kern->exact_nr, 128, 192, threads);
  return parallel(threads, bl.items(), ExactWork(&P, bl));
}

}  // namespace softmx::gemm_detail
