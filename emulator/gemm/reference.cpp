// emulator/gemm/reference.cpp: the reference for every output no kernel computes
// (dot_general's model, or the tensor-core mma, per output), and the output blocks the
// threads take (blocking).
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "dot/tensor_core_dot.hpp"
#include "gemm/driver.hpp"
#include "gemm/models.hpp"

namespace softmx::gemm_detail {

Result reference_output(const Problem& P, std::size_t i, std::size_t j, RefScratch& s) {
  s.a.resize(P.K);
  s.b.resize(P.K);
  for (std::size_t t = 0; t < P.K; ++t) {
    s.a[t] = P.a.code(i, t);
    s.b[t] = P.b.code(j, t);
  }
  s.ra.resize(P.nb);
  s.rb.resize(P.nb);
  for (std::size_t blk = 0; blk < P.nb; ++blk) {
    const std::size_t first = blk * P.block, n = std::min(P.block, P.K - first);
    s.ra[blk] = BlockRef{P.a.op->format.id(), P.a.scale(i, blk), std::span(s.a.data() + first, n), &P.a.op->format.format()};
    s.rb[blk] = BlockRef{P.b.op->format.id(), P.b.scale(j, blk), std::span(s.b.data() + first, n), &P.b.op->format.format()};
    if (P.ue4m3_ref) {
      s.ra[blk].scale &= 0x7F;
      s.rb[blk].scale &= 0x7F;
      s.ra[blk].scale_format = s.rb[blk].scale_format = P.ue4m3_ref;
    } else if (P.any_ref) {
      s.ra[blk].scale = P.a.scale_code(i, blk);
      s.rb[blk].scale = P.b.scale_code(j, blk);
      s.ra[blk].scale_format = s.rb[blk].scale_format = P.any_ref;
    }
  }
  if (P.addend) {  // mma_pairs: one mma per pair, C its addend (the flags are not used)
    const auto& tc = static_cast<const TensorCoreModel&>(*P.model);
    const std::uint32_t c = P.addend[P.pairs ? i : i * P.N + j];
    const FormatId fa = P.a.op->format.id(), fb = P.b.op->format.id();
    if (!P.scaled) return tc.mma(fa, s.a, fb, s.b, FormatId::f32, c);
    std::vector<std::uint8_t> sa(P.nb), sb(P.nb);
    for (std::size_t blk = 0; blk < P.nb; ++blk) {
      sa[blk] = P.a.scale(i, blk);
      sb[blk] = P.b.scale(j, blk);
    }
    return tc.mma_scaled(fa, s.a, fb, s.b, P.a.op->scale_format, P.block, sa, sb, FormatId::f32, c);
  }
  if (P.ue4m3) {
    if (P.dest) return detail::tensor_core_dot_general(*P.ue4m3, s.ra, s.rb, FormatId::e4m3, P.to->id, P.c_of(i, j));
    return P.ue4m3->dot_general_gst(s.ra, s.rb, FormatId::e4m3);
  }
  if (P.dest) return P.model->dot_general_to(s.ra, s.rb, DotDestination{P.to->id, P.c_of(i, j)}, P.ctx);
  return P.model->dot_general(s.ra, s.rb, P.ctx);
}

Blocking blocking(const Problem& P, std::size_t mr, std::size_t nr, std::size_t mc, std::size_t nc, unsigned threads) {
  if (P.pairs) {  // blocks of pairs, several tiles each
    std::size_t pc = 16 * nr;
    while (pc > nr && (P.M + pc - 1) / pc < 2 * static_cast<std::size_t>(threads)) pc = (pc / 2 + nr - 1) / nr * nr;
    return Blocking{pc, pc, (P.M + pc - 1) / pc, 1};
  }
  mc = (mc + mr - 1) / mr * mr;
  nc = (nc + nr - 1) / nr * nr;
  // Smaller blocks when there are too few for the threads (never below one tile).
  auto count = [&] { return ((P.M + mc - 1) / mc) * ((P.N + nc - 1) / nc); };
  while (count() < 2 * static_cast<std::size_t>(threads)) {
    if (nc > nr && nc >= mc) nc = (nc / 2 + nr - 1) / nr * nr;
    else if (mc > mr) mc = (mc / 2 + mr - 1) / mr * mr;
    else if (nc > nr) nc = (nc / 2 + nr - 1) / nr * nr;
    else break;
  }
  return Blocking{mc, nc, (P.M + mc - 1) / mc, (P.N + nc - 1) / nc};
}

Flags reference_run(const Problem& P, unsigned threads) { return parallel(threads, P.M, ReferenceWork(&P)); }

}  // namespace softmx::gemm_detail
