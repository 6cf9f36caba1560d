// emulator/gemm/exact_model.cpp: the exact model's driver (docs/ARCHITECTURE.md, "GEMM"): the
// block's exact sums (exact_block.hpp), each rounded once into the destination, C added exactly.
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

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
  std::vector<int> ub;  // finish_narrow: the columns' parts of the units
  bool fast = false;  // f32 outputs in rne with the FPU in its default state: f32_rne() may finish
  void begin() {
    ex.emplace(*P);
    fast = !P->dest && P->ctx.rounding == Rounding::rne && fpu_default();
  }
  void operator()(std::size_t w, Flags& any) {
    const std::optional<Blocking::Range> rg = begin_item(*P, bl, w, true, s, any);  // (integer lanes: any FPU state)
    const std::size_t i0 = rg->i0, i1 = rg->i1, j0 = rg->j0, j1 = rg->j1;  // (lambdas capture these)
    ex->run(i0, i1, j0, j1);
    if (fast && !P->pairs && ex->is_narrow()) {
      finish_narrow(i0, i1, j0, j1, any);
      return;
    }
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
    return f32_rne64(static_cast<std::int64_t>(v), unit);
  }
  /// f32_rne for |x| < 2^62, x != 0.
  static std::optional<Result> f32_rne64(std::int64_t x, int unit) {
    const float f = static_cast<float>(x);
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const int e = static_cast<int>((bits >> 23) & 0xFF) - 127 + unit;  // f != 0: |x| >= 1
    if (e < -125 || e > 126) return std::nullopt;
    bits += static_cast<std::uint32_t>(unit) << 23;  // (two's complement: moves the field by unit)
    return Result{bits, static_cast<std::int64_t>(f) != x ? flag::inexact : Flags{0}};
  }

  /// The block's outputs when every one is an f32 under rne (fast) and the block is narrow
  /// (ExactBlock::narrow: each sum an int64, and fits() holds for every output, since narrow's
  /// bound p + S + bit_width(K) <= 62 uses a shift S at least each output's own): the same
  /// decisions as the general loop, per row, with the units split into a row and a column part
  /// (unit(i, j) = ua[i] + ub[j]) and the sums read along the row.
  void finish_narrow(std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1, Flags& any) {
    const Side &A = P->a, &B = P->b;
    ub.resize(j1 - j0);
    for (std::size_t j = j0; j < j1; ++j) ub[j - j0] = (B.smin[j] - 127) + B.qmin;
    // Raw pointers in locals: the stores of the flags (bytes) could alias any member, which
    // would make the compiler reload every one per output.
    const int* const ubp = ub.data();
    const std::uint8_t* const bsp = B.special.data() + j0;
    Flags seen = 0;
    for (std::size_t i = i0; i < i1; ++i) {
      const std::uint64_t* const row = ex->narrow_row(i);
      std::uint32_t* const c = P->c + i * P->N + j0;
      Flags* const fl = P->flags ? P->flags + i * P->N + j0 : nullptr;
      const int ua = (A.smin[i] - 127) + A.qmin;
      const bool sa = A.special[i] != 0;
      for (std::size_t j = 0; j < j1 - j0; ++j) {
        const auto x = static_cast<std::int64_t>(row[j]);
        const bool kernel = !sa && !bsp[j] && x != 0;
        std::optional<Result> r;
        if (kernel) r = f32_rne64(x, ua + ubp[j]);
        if (!r) r = kernel ? round_pack(format(FormatId::f32), unpacked_of(x, ua + ubp[j]), P->ctx, ocp_dialect())
                           : reference_output(*P, i, j0 + j, s);
        c[j] = static_cast<std::uint32_t>(r->code);
        if (fl) fl[j] = r->flags;
        seen |= r->flags;
      }
    }
    any |= seen;
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
  // 512 x 192 outputs per item: the kernel walks one A panel (8 rows) over the chunk's B panels
  // (kc = 256 doubles per row: 384 KiB), so what stays hot in L2 is that chunk and the panel's
  // accumulators; each B panel is packed once per 512 rows of A, and A's panels once per row
  // range (kept over the range's column blocks, ExactBlock::run). At 1024^3 on one core, 512
  // rows instead of 128 took 16.5 to 17.6 G products/s (one run on a shared machine).
  const Blocking bl = blocking(P, P.kern->exact_mr, P.kern->exact_nr, 512, 192, threads);
  return parallel(threads, bl.items(), ExactWork(&P, bl));
}

}  // namespace softmx::gemm_detail
