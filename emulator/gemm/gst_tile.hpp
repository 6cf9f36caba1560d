// emulator/gemm/gst_tile.hpp: the GST-FDPA instructions' tile kernel, gst_tile (internal;
// included through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES mean).
// It shares tc_tile's cut and 64-bit lanes (gemm/tc_tile.hpp); its own steps are stated below.
#pragma once

#include <cstdint>

#include "gemm/kernel_api.hpp"
#include "gemm/tc_tile.hpp"
#include "gemm/tile_lanes.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

/// One instruction's worth of groups per output lane (kernel_api.hpp, GstTile): pass 1 takes E,
/// the largest of C's exponent (zexp for a zero C) and each group's offer (x_a + x_b when the
/// group holds a non-zero product, else zexp), and notes whether every product is a negative
/// zero; pass 2 sums each group's products exactly in float lanes (integers below 2^24), cuts
/// the group's term |S| 2^(q + x) to the quantum 2^(E - F) toward zero in 64-bit lanes and adds
/// it with its sign; C's term is cut the same way; the exact sum (below 2^62: the driver's
/// bound) is truncated (RZ) onto the f32 grid, subnormals included. A result of 2^128 or more
/// marks the output for the reference.
template <int MR, int NV, bool Diag>
void gst_tile(const GstTile& g) {
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  const GstParams& P = *g.prm;
  auto Ai = [](const std::int32_t* p, std::size_t at, int r, int v) {
    return Diag ? load<vi>(p + at * NR + v * kF) : splat(p[at * AW + r]);
  };
  const vi lo16 = splat(0xFFFF), hi16 = splat(static_cast<std::int32_t>(0xFFFF0000u));
  const vw pl = vw{} + P.pl, cl = vw{} + P.cl;
  const float* a = g.a;
  const float* b = g.b;
  for (std::size_t g0 = 0; g0 < g.groups; g0 += static_cast<std::size_t>(P.gpi)) {
    const std::size_t g1 = g0 + static_cast<std::size_t>(P.gpi) < g.groups ? g0 + static_cast<std::size_t>(P.gpi) : g.groups;
    vi E[MR][NV], anz[MR][NV];
    vw T[MR][NV], X[MR][NV];
    // C: its term, and pass 1.
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        const vi c = load<vi>(g.acc + at);
        const vi bexp = (c >> 23) & 255;
        const vi czero = (c & 0x7FFFFFFF) == 0;
        const vi ce = vmax(bexp, splat(1)) - 127;
        vi e = czero ? splat(P.zexp) : ce;
        vi all = splat(-1);
        for (std::size_t gi = g0; gi < g1; ++gi) {
          const vi mb = load<vi>(g.mb + gi * NR + v * kF), ma = Ai(g.ma, gi, r, v);
          const vi any = (((ma & mb) & lo16) != 0) & ((Ai(g.na, gi, r, v) * load<vi>(g.nb + gi * NR + v * kF)) != 0);
          const vi x = Ai(g.xa, gi, r, v) + load<vi>(g.xb + gi * NR + v * kF);
          e = vmax(e, any ? x : splat(P.zexp));
          all &= (((ma & mb) & lo16) == 0) & (((ma ^ mb) & hi16) == hi16);
        }
        E[r][v] = e;
        anz[r][v] = all;
        X[r][v] = P.exact ? load<vw>(g.exact + at) : vw{};
        const vi cn = (c & 0x7FFFFF) | ((bexp != 0) & 0x800000);
        const vw mag = lshr(lshl(from32<vw>(cn), cl), from32<vw>(vmin(vmax(e - ce, splat(0)) + P.cr, splat(63))));
        const vw m = from32<vw>(c >> 31);
        T[r][v] = (mag ^ m) - m;
      }
    // Pass 2: each group's exact sum, cut and added.
    for (std::size_t gi = g0; gi < g1; ++gi) {
      vf s[MR][NV];
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) s[r][v] = vf{};
      for (int t = 0; t < 16; ++t, a += AW, b += NR) {
        vf bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) s[r][v] += (Diag ? load<vf>(a + v * kF) : splat(a[r])) * bv[v];
      }
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) {
          const vi S = __builtin_convertvector(s[r][v], vi) * Ai(g.na, gi, r, v) * load<vi>(g.nb + gi * NR + v * kF);
          const vi x = Ai(g.xa, gi, r, v) + load<vi>(g.xb + gi * NR + v * kF);
          // E - x >= 0 for a group that offers x; S = 0 for the others.
          const vi d = vmin(vmax(E[r][v] - x, splat(0)) - P.qoff + P.pr, splat(63));
          const vw mag = lshr(lshl(from32<vw>(vabs(S)), pl), from32<vw>(d));
          const vw m = from32<vw>(S >> 31);
          T[r][v] += (mag ^ m) - m;
          if (P.exact) X[r][v] += lshl(from32<vw>(S), from32<vw>(vmin(vmax(x + P.qoff + P.xo, splat(0)), splat(63))));
        }
    }
    // RZ onto the f32 grid: quantum 2^max(lead - 23, -149).
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        const vw sum = T[r][v];
        const vw mag = labs(sum);
        const vi zero = to32(lanes_zero(sum));
        const vi unit = E[r][v] - P.F;
        const vi lead = unit + flog2(mag);
        const vi qe = vmax(lead - 23, splat(-149));
        const vi sh = qe - unit;  // >= -23
        const vw kept = select(from32<vw>(sh >= 0), lshr(mag, from32<vw>(vmin(sh, splat(63)))),
                               lshl(mag, from32<vw>(vmin(vmax(-sh, splat(0)), splat(63)))));
        const vu sign = reinterpret_cast<vu>(to32(lanes_neg(sum))) & 0x80000000u;
        const vu bits = ((reinterpret_cast<vu>(qe + 149) << 23) + reinterpret_cast<vu>(to32(kept))) | sign;
        const vu prev = load<vu>(g.acc + at);
        const vu zbits = reinterpret_cast<vu>((prev == 0x80000000u) & anz[r][v]) & 0x80000000u;
        store(g.acc + at, zero ? zbits : bits);
        if (P.exact) store(g.exact + at, X[r][v]);
        vu st = load<vu>(g.state + at);
        st |= reinterpret_cast<vu>(~zero & (lead > 127)) & kGstReference;
        store(g.state + at, st);
      }
  }
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
