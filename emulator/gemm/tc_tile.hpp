// emulator/gemm/tc_tile.hpp: the tensor-core models' tile kernels, tc_tile and tc_tile_rz (gst_tile.hpp
// builds GST-FDPA's on their cut and 64-bit lanes) (internal; included
// through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES mean).
//
// tensor-core (tc_tile): per group, pass 1 finds E, the largest alignment exponent (the
//   accumulator's, then every non-zero product's: zeros carry kZeroExponent), pass 2 adds every
//   product cut to 2^(E - F) in 32-bit integer lanes (|sum| < (group + 1) * 2^(F + 2), which the
//   driver checks fits), then the accumulator's cut term is added and the sum is normalised and
//   rounded onto the grid (f32 exponent range; leaving it marks the output for the reference).
//   A group whose every term is zero takes its sign from a scalar look at its zero products.
//   With the operands' exponents and truncation (every published FP8 model), pass 2 may take
//   the float route (TcTile::af: each term the truncating conversion of an exact f32 product),
//   the group's rz its rounding from the f32 conversion (to_grid_rz), C's rne addition the
//   FPU's (grid_add_f32_rne), and tc_tile_rz the whole configuration with r as an f32
//   (docs/ARCHITECTURE.md, GEMM, "Exact routes and their proofs" 8). The lane arithmetic these
//   kernels share with gst_tile.hpp (the cut, the grid, the f32 short cuts) is tc_lanes.hpp.
#pragma once

#include <cstdint>

#include "gemm/kernel_api.hpp"
#include "gemm/seq_tile.hpp"  // half_lo, half_hi, join
#include "gemm/tables.hpp"
#include "gemm/tc_lanes.hpp"
#include "gemm/tile_lanes.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

/// The state bits b (kTcRSign, kTcReference, ...) where mask is set, and where st holds them.
SOFTMX_GEMM_INLINE vi state_bit(vi mask, std::uint32_t b) { return mask & static_cast<std::int32_t>(b); }
SOFTMX_GEMM_INLINE vi state_has(vi st, std::uint32_t b) { return (st & static_cast<std::int32_t>(b)) != 0; }

/// A's packed element t for output row r and column vector v: broadcast from A's MR rows, or
/// (Diag, dot_pairs) a vector of its own, laid out as B's.
template <int NV, int MR, bool Diag>
SOFTMX_GEMM_INLINE vi a_lanes(const std::int32_t* p, std::uint32_t t, int r, int v) {
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  return Diag ? load<vi>(p + t * NR + v * kF) : splat(p[t * AW + r]);
}

/// After pass 1: Any[r][v], whether the output has a non-zero term at all (E above the zero
/// exponent), then the zero exponent as a floor on E (tensor_core.hpp step 4).
template <int MR, int NV>
SOFTMX_GEMM_INLINE void floor_at_zero_exponent(vi (&E)[MR][NV], vi (&Any)[MR][NV], std::int32_t zfloor) {
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      Any[r][v] = E[r][v] > kZeroExponent / 2;
      E[r][v] = vmax(E[r][v], splat(zfloor));
    }
}

/// A group's exact sum per lane: 32-bit lanes (vi), 64-bit lanes (vw), or, for tc_tile_rz's wide
/// sums, two halves of double lanes (SumD: integers below 2^53, tc_tile_rz's precondition, so
/// every addition is exact). add_run adds one run's 32-bit partial sum.
struct SumD {
  vd h[2];  // lanes 0 .. kD - 1, then kD .. kF - 1
};
SOFTMX_GEMM_INLINE void add_run(vi& s, vi part) { s += part; }
SOFTMX_GEMM_INLINE void add_run(vw& s, vi part) { s += from32<vw>(part); }
SOFTMX_GEMM_INLINE void add_run(SumD& s, vi part) {
  s.h[0] += __builtin_convertvector(half_lo<vh>(part), vd);
  s.h[1] += __builtin_convertvector(half_hi<vh>(part), vd);
}

/// Pass 2 by the float route (kernel_api.hpp, TcTile::af; docs/ARCHITECTURE.md, "Exact routes
/// and their proofs" 8a), for tc_tile and tc_tile_rz: sets S[r][v] to the sum of every product's
/// term trunc(n_a n_b 2^(e_a + e_b - E - cr)) of group gi (len products from af and bf, packed as
/// the integer route's an and bn are), formed as trunc(af * bf * 2^k), k = R_a + R_b - E - cr,
/// every step exact in f32 (or the value below 1), the conversion truncating toward zero with
/// the product's sign; runs of P.fl terms (each below 2^31 / P.fl) are summed in 32-bit lanes.
/// The operands are walked by pointers (constant offsets per row and vector, no index arithmetic
/// per product: on AVX2 that arithmetic shares the vector ALU ports).
template <int MR, int NV, bool Diag, class S>
SOFTMX_GEMM_INLINE void float_route_sums(const TcTile& g, std::size_t gi, std::uint32_t len, const float* af,
                                         const float* bf, const vi (&E)[MR][NV], S (&sum)[MR][NV]) {
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  const TcParams& P = *g.prm;
  vf sc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      const vi ra = Diag ? load<vi>(g.ra + gi * NR + v * kF) : splat(g.ra[gi * AW + r]);
      const vi k = ra + load<vi>(g.rb + gi * NR + v * kF) - E[r][v] - P.cr;
      sc[r][v] = reinterpret_cast<vf>(vmin(vmax(k + 127, splat(0)), splat(254)) << 23);
      sum[r][v] = S{};
    }
  for (std::uint32_t t0 = 0; t0 < len; t0 += P.fl) {
    const std::uint32_t n = (t0 + P.fl < len ? t0 + P.fl : len) - t0;
    const float* ap = af + static_cast<std::size_t>(t0) * AW;
    const float* bp = bf + static_cast<std::size_t>(t0) * NR;
    vi part[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) part[r][v] = vi{};
#pragma GCC unroll 2
    for (std::uint32_t t = 0; t < n; ++t, ap += AW, bp += NR)
      for (int v = 0; v < NV; ++v) {
        const vf bv = load<vf>(bp + v * kF);
        for (int r = 0; r < MR; ++r) {
          const vf av = Diag ? load<vf>(ap + v * kF) : splat(ap[r]);
          part[r][v] += __builtin_convertvector((av * bv) * sc[r][v], vi);
        }
      }
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) add_run(sum[r][v], part[r][v]);
  }
}

/// The packed operands of a tile's groups, walked group by group: A's (an, ae, as, and af on the
/// float route: AW values per product) and B's (bn, be, bs, bf: NR per product). A pointer the
/// kernel was not given (null) stays null.
struct TcPanels {
  const std::int32_t* an;
  const std::int32_t* ae;
  const std::uint8_t* as;
  const float* af;
  const std::int32_t* bn;
  const std::int32_t* be;
  const std::uint8_t* bs;
  const float* bf;
  explicit TcPanels(const TcTile& g) : an(g.an), ae(g.ae), as(g.as), af(g.af), bn(g.bn), be(g.be), bs(g.bs), bf(g.bf) {}
  /// Past one group of len products.
  SOFTMX_GEMM_INLINE void advance(std::uint32_t len, int aw, int nr) {
    const std::size_t a = static_cast<std::size_t>(len) * aw, b = static_cast<std::size_t>(len) * nr;
    step(an, a), step(ae, a), step(as, a), step(af, a), step(bn, b), step(be, b), step(bs, b), step(bf, b);
  }

 private:
  template <class T>
  static SOFTMX_GEMM_INLINE void step(const T*& q, std::size_t n) {
    if (q) q += n;
  }
};

/// Pass 1 with the operands' exponents (ProdRef off): E[r][v] raised to the largest e_a + e_b
/// over the group's len products (a zero element carries kZeroExponent, so it never wins).
template <int MR, int NV, bool Diag>
SOFTMX_GEMM_INLINE void max_operand_exponents(const TcPanels& pk, std::uint32_t len, vi (&E)[MR][NV]) {
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  const std::int32_t* ap = pk.ae;
  const std::int32_t* bp = pk.be;
#pragma GCC unroll 2
  for (std::uint32_t t = 0; t < len; ++t, ap += AW, bp += NR)
    for (int v = 0; v < NV; ++v) {
      const vi bev = load<vi>(bp + v * kF);
      for (int r = 0; r < MR; ++r) E[r][v] = vmax(E[r][v], bev + (Diag ? load<vi>(ap + v * kF) : splat(ap[r])));
    }
}

/// The offset of output row r, column vector v in a tile's state arrays (row stride g.stride).
template <class G>
SOFTMX_GEMM_INLINE std::size_t tile_at(const G& g, int r, int v) {
  return static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
}

template <int MR, int NV, bool ProdRef, bool Near, bool Wide, bool Diag>
void tc_tile(const TcTile& g) {
  typedef typename SumLanes<Wide>::type V;
  constexpr int kMax = Wide ? 63 : 31;
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  auto A = [](const std::int32_t* p, std::uint32_t t, int r, int v) { return a_lanes<NV, MR, Diag>(p, t, r, v); };
  const TcParams& P = *g.prm;
  TcPanels pk(g);
  constexpr std::int32_t kNone = kZeroExponent;
  const vi rdm = splat(P.mode == Rounding::rd ? -1 : 0);
  // The group's rounding rz onto a grid of p <= 23 bits: to_grid_rz (32-bit sums). The
  // addition of r to the accumulator under rne on f32's own grid: the FPU's (grid_add_f32_rne).
  const bool rz32 = P.mode == Rounding::rz && P.p <= 23;
  const bool f32_grid = P.p == 23 && P.emin == -126 && P.emax == 127;
  const bool f32_rne_add = f32_grid && P.addend_mode == Rounding::rne;
  for (std::size_t gi = 0; gi < g.groups; ++gi) {
    const TcGroup& gd = g.grp[gi];
    const std::uint32_t len = gd.len;
    vi E[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        vi st = load<vi>(g.state + at);
        if (gd.starts) {  // r starts as the accumulator (first_group) or empty (after_products)
          const vi keep = ~(splat(static_cast<std::int32_t>(kTcRSign | kTcRPresent)));
          st &= keep;
          if (!P.after) {
            st |= (state_has(st, kTcAccSign) & static_cast<std::int32_t>(kTcRSign)) |
                  (state_has(st, kTcAccPresent) & static_cast<std::int32_t>(kTcRPresent));
            store(g.r_kept + at, load<vi>(g.acc_kept + at));
            store(g.r_qe + at, load<vi>(g.acc_qe + at));
          } else {
            store(g.r_kept + at, vi{});
          }
          store(g.state + at, st);
        }
        // r's exponent (its leading bit; never below emin here) when it is a term.
        const vi rk = load<vi>(g.r_kept + at);
        const vi term = (P.addend_in_group ? state_has(st, kTcRPresent) : vi{}) & (rk != 0);
        E[r][v] = term ? load<vi>(g.r_qe + at) + floor_log2(rk) : splat(kNone);
      }
    // Pass 1: the largest alignment exponent of the group's products.
    if constexpr (ProdRef) {
      for (std::uint32_t t = 0; t < len; ++t)
        for (int v = 0; v < NV; ++v) {
          const vi bev = load<vi>(pk.be + t * NR + v * kF);
          const vi bnv = load<vi>(pk.bn + t * NR + v * kF);
          for (int r = 0; r < MR; ++r) {
            const vi prod = vabs(bnv * A(pk.an, t, r, v));
            E[r][v] = vmax(E[r][v], bev + A(pk.ae, t, r, v) - P.mamb + floor_log2(prod));
          }
        }
    } else {
      max_operand_exponents<MR, NV, Diag>(pk, len, E);
    }
    // The zero exponent: a floor on E (tensor_core.hpp step 4), after noting which outputs
    // have a non-zero term at all.
    vi Any[MR][NV];
    floor_at_zero_exponent(E, Any, P.zfloor);
    // Pass 2: the cut products, summed exactly.
    V S[MR][NV] = {};
    bool fast = false;
    if constexpr (!ProdRef && !Near) {
      if (pk.af) {
        float_route_sums<MR, NV, Diag>(g, gi, len, pk.af, pk.bf, E, S);
        fast = true;
      }
    }
    for (std::uint32_t t = 0; t < (fast ? 0 : len); ++t) {
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(pk.be + t * NR + v * kF);
        const vi bnv = load<vi>(pk.bn + t * NR + v * kF);
        for (int r = 0; r < MR; ++r) {
          const vi prod = bnv * A(pk.an, t, r, v);
          const vi d = E[r][v] - (bev + A(pk.ae, t, r, v));
          V term;
          if constexpr (ProdRef) {
            const vi dd = d - P.c;
            term = cut<Near>(lshl(from32<V>(vabs(prod)), from32<V>(vmin(vmax(-dd, splat(0)), splat(kMax)))),
                             from32<V>(vmin(vmax(dd, splat(0)), splat(kMax))));
          } else {
            term = cut<Near>(from32<V>(vabs(prod)), from32<V>(vmin(d + P.cr, splat(kMax))));
          }
          const V m = from32<V>(prod >> 31);
          S[r][v] += (term ^ m) - m;
        }
      }
    }
    // The group's end: r's term, the grid, r's addition (without addend_in_group), and the
    // instruction's end.
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        vi st = load<vi>(g.state + at);
        const GridLanes rv{load<vi>(g.r_kept + at), load<vi>(g.r_qe + at), state_has(st, kTcRSign)};
        const vi rpres = state_has(st, kTcRPresent);
        const vi e = E[r][v];
        V sum = S[r][v];
        if (P.addend_in_group && P.F <= 29) {
          // r's term in 32-bit lanes: r is a term only where its leading bit is at most E
          // (pass 1 took it), so its cut value is below 2^(F + 1) <= 2^30; elsewhere it is
          // masked off.
          const vi sh = (e - P.F) - rv.qe;
          const vi k = rv.kept;
          const vi aterm = select(sh >= 0, cut<Near>(k, vmin(sh, splat(31))), shl(k, vmin(-sh, splat(31))));
          const vi m = rv.neg & rpres;
          sum += from32<V>(rpres & ((aterm ^ m) - m));
        } else if (P.addend_in_group) {
          const vi sh = (e - P.F) - rv.qe;  // r's bits below the quantum 2^(E - F)
          const V k = from32<V>(rv.kept);
          V aterm = select(from32<V>(sh >= 0), cut<Near>(k, from32<V>(vmin(sh, splat(kMax)))),
                           lshl(k, from32<V>(vmin(-sh, splat(kMax)))));
          const V m = from32<V>(rv.neg & rpres);
          sum += from32<V>(rpres) & ((aterm ^ m) - m);
        }
        const vi anyterm = Any[r][v];
        const vi zero = to32(lanes_zero(sum));
        vi bad = vi{};
        GridLanes gv;
        if (rz32 && (!Wide || P.sums53)) gv = to_grid_rz(sum, e - P.F, P, bad);
        else gv = to_grid(labs(sum), e - P.F, to32(lanes_neg(sum)), P.mode, P, bad);
        bad &= ~zero;
        gv.kept = zero ? vi{} : gv.kept;
        gv.neg = zero ? (anyterm & rdm) : gv.neg;
        const vi lonely = zero & ~anyterm;  // every term zero: the zero products (and r) decide the sign
        if (any_set(lonely)) {
          for (int l = 0; l < kF; ++l) {
            if (!lonely[l]) continue;
            const int col = v * kF + l;
            bool allneg = true, allpos = true;
            if (P.addend_in_group && rpres[l]) (rv.neg[l] ? allpos : allneg) = false;
            for (std::uint32_t t = 0; t < len; ++t) {
              const std::uint8_t sa = Diag ? pk.as[t * NR + col] : pk.as[t * MR + r];
              if (sa == kTcAbsent) continue;
              ((sa ^ pk.bs[t * NR + col]) & 1 ? allpos : allneg) = false;
            }
            gv.neg[l] = allneg ? -1 : allpos ? 0 : rdm[l];
          }
        }
        if (!P.addend_in_group) {
          vi rbad = vi{};
          const GridLanes added = grid_add(rv, gv, P.mode, P, rbad);
          bad |= rbad & rpres;
          gv.kept = rpres ? added.kept : gv.kept;
          gv.qe = rpres ? added.qe : gv.qe;
          gv.neg = rpres ? added.neg : gv.neg;
        }
        st = (st & ~splat(static_cast<std::int32_t>(kTcRSign))) | state_bit(gv.neg, kTcRSign) |
             static_cast<std::int32_t>(kTcRPresent) | state_bit(bad, kTcReference);
        store(g.r_kept + at, gv.kept);
        store(g.r_qe + at, gv.qe);
        if (gd.ends) {
          GridLanes acc = gv;
          if (P.after) {
            const GridLanes av{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), state_has(st, kTcAccSign)};
            const vi apres = state_has(st, kTcAccPresent);
            vi abad = vi{};
            const GridLanes added = f32_rne_add ? grid_add_f32_rne(av, gv, abad) : grid_add(av, gv, P.addend_mode, P, abad);
            acc.kept = apres ? added.kept : gv.kept;
            acc.qe = apres ? added.qe : gv.qe;
            acc.neg = apres ? added.neg : gv.neg;
            st |= state_bit(abad & apres, kTcReference);
          }
          st = (st & ~splat(static_cast<std::int32_t>(kTcAccSign))) | state_bit(acc.neg, kTcAccSign) |
               static_cast<std::int32_t>(kTcAccPresent);
          store(g.acc_kept + at, acc.kept);
          store(g.acc_qe + at, acc.qe);
        }
        store(g.state + at, st);
      }
    pk.advance(len, AW, NR);
  }
}

/// RZ(d) to 24 significant bits as an f32 with d's sign, for doubles |d| < 2^53 that are
/// integers: AVX-512's conversion with its own rounding; otherwise the FPU's (round to nearest)
/// stepped one code toward zero (the bits minus one: sign and magnitude) where its magnitude
/// exceeds |d| (an f32 converts to double exactly; d = 0 gives +0 or -0, never stepped).
SOFTMX_GEMM_INLINE vfh f32_rz_signed(vd d) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return reinterpret_cast<vfh>(_mm512_maskz_cvt_roundpd_ps(0xFF, reinterpret_cast<__m512d>(d), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  const vfh f = __builtin_convertvector(d, vfh);
  const vl m = vl{} + 0x7FFFFFFFFFFFFFFF;
  const vd back = reinterpret_cast<vd>(reinterpret_cast<vl>(__builtin_convertvector(f, vd)) & m);
  const vh up = __builtin_convertvector(back > reinterpret_cast<vd>(reinterpret_cast<vl>(d) & m), vh);
  return reinterpret_cast<vfh>(reinterpret_cast<vh>(f) + up);
#endif
}

/// Whether any lane is set in zero but not in any (masks: lanes all ones or zero).
SOFTMX_GEMM_INLINE bool any_lane_without(vi zero, vi any) {
#if SOFTMX_GEMM_BYTES == 32 && defined(__AVX__)
  return !_mm256_testc_si256(reinterpret_cast<__m256i>(any), reinterpret_cast<__m256i>(zero));
#else
  return any_set(zero & ~any);
#endif
}

/// Stores the f32 res (a normal number or a zero on f32's grid of p bits; any other lane is
/// marked already) as the accumulator in tc_tile's form, kept 2^qe with its sign, present.
SOFTMX_GEMM_INLINE void store_acc_f32(const TcTile& g, std::size_t at, vi res, vi& st) {
  const int p = g.prm->p;
  const vi rz = (res & 0x7FFFFFFF) == 0;
  const vi ef = (res >> 23) & 255;
  store(g.acc_kept + at, ~rz & shr((res & 0x7FFFFF) | 0x800000, splat(23 - p)));
  store(g.acc_qe + at, ef - 127 - p);
  st = (st & ~splat(static_cast<std::int32_t>(kTcAccSign))) | state_bit(res >> 31, kTcAccSign) |
       static_cast<std::int32_t>(kTcAccPresent);
}

/// tc_tile_rz's group sum: 32-bit lanes, or (Wide: 64-bit group bounds, below 2^53) doubles.
template <bool Wide>
struct RzSum {
  typedef vi type;
};
template <>
struct RzSum<true> {
  typedef SumD type;
};

/// tc_tile for the configuration of every published FP8 model (TcParams: the float route,
/// rz onto a grid of p <= 23 bits, C as a term of the group, F <= 29, sums within to_grid_rz's
/// range, and C after the products only by grid_add_f32_rne): the same steps as tc_tile, with
/// the instruction's running value r held as its f32 (r_kept's lanes hold its bits; r_qe is
/// not used). The accumulator keeps tc_tile's form between calls; where r is live across
/// chunks (models without product_order) and the next chunk takes the other kernel, the driver
/// converts r (TcWork::convert_r), so a chunk may take either kernel. Per group: r's
/// exponent is its f32's; r's term is the truncating conversion of r 2^(F - E), formed by
/// moving r's exponent field (below 2^(F + 1) <= 2^30, as r takes part in E; where the field
/// would drop below 1 the value is below 2^-126 and its term 0); the group's sum is rounded by
/// f32_rz, and the result r' = RZ(S) 2^(E - F) is that f32 with E - F added to its exponent
/// field (exact where lead lies in emin .. emax; elsewhere the output is marked). Under rz a
/// zero sum is +0 unless no term is non-zero and every zero product (and r) is negative.
/// Where r is absent (before an instruction's first group under after_products, or with no
/// accumulator) its lanes hold +0 or -0, so r is a term exactly where its bits are not a zero
/// (docs/ARCHITECTURE.md, Exact routes 8e); the state word is read only at an instruction's
/// start and end, for the marks, and where a zero sum's sign needs r's presence.
template <int MR, int NV, bool Wide, bool Diag>
void tc_tile_rz(const TcTile& g) {
  typedef typename RzSum<Wide>::type Sum;
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  const TcParams& P = *g.prm;
  TcPanels pk(g);
  constexpr std::int32_t kNone = kZeroExponent;
  constexpr std::int32_t kSign = static_cast<std::int32_t>(0x80000000u);
  const vi fmask = splat(~((std::int32_t{1} << (23 - P.p)) - 1) & 0x7FFFFFFF);  // the fraction bits of p, no sign
  const vi F = splat(P.F);
  const vi lo0 = splat(-127 - P.emin);  // a result's exponent field plus this, minus F - E: lead - emin
  const vu span = reinterpret_cast<vu>(splat(P.emax - P.emin));
  // Under after_products the accumulator is held, for this call, as its f32 in r_qe's lanes
  // (unused by this kernel otherwise), an absent one as -0 (x + -0 = x under rne, zeros
  // included): read here, written back at the call's end in tc_tile's form. Between an
  // instruction's end and the next one's the form round-trips exactly (p = 23: kept is the
  // f32's significand), so the sums are those of storing it at every end.
  bool ended = false;
  if (P.after)
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        const vi st = load<vi>(g.state + at);
        const vi accf = reinterpret_cast<vi>(
            grid_f32(GridLanes{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), state_has(st, kTcAccSign)}));
        store(g.r_qe + at, state_has(st, kTcAccPresent) ? accf : splat(kSign));
      }
  for (std::size_t gi = 0; gi < g.groups; ++gi) {
    const TcGroup& gd = g.grp[gi];
    const std::uint32_t len = gd.len;
    if (gd.starts)  // r starts as the accumulator (first_group) or empty (after_products)
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) {
          const std::size_t at = tile_at(g, r, v);
          vi st = load<vi>(g.state + at) & ~(splat(static_cast<std::int32_t>(kTcRSign | kTcRPresent)));
          vi rb = vi{};
          if (!P.after) {
            st |= state_has(st, kTcAccPresent) & static_cast<std::int32_t>(kTcRPresent);
            rb = reinterpret_cast<vi>(
                grid_f32(GridLanes{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), state_has(st, kTcAccSign)}));
          }
          store(g.r_kept + at, rb);
          store(g.state + at, st);
        }
    // r's exponent where r is a term (its bits not a zero).
    vi E[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const vi mag = load<vi>(g.r_kept + tile_at(g, r, v)) & 0x7FFFFFFF;
        E[r][v] = mag != 0 ? shr(mag, splat(23)) - 127 : splat(kNone);
      }
    max_operand_exponents<MR, NV, Diag>(pk, len, E);
    vi Any[MR][NV];
    floor_at_zero_exponent(E, Any, P.zfloor);
    Sum S[MR][NV];
    float_route_sums<MR, NV, Diag>(g, gi, len, pk.af, pk.bf, E, S);
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        const vi rb = load<vi>(g.r_kept + at);
        const vi d = F - E[r][v];  // F - E
        const vi d23 = shl(d, splat(23));
        // r's term: trunc(r 2^(F - E)) with r's sign, where r is a term (exponent field >= 1)
        // and the moved field stays >= 1.
        const vi rexp = shr(rb & 0x7FFFFFFF, splat(23));
        const vi ok = vmin(rexp, rexp + d) > 0;
        const vi aterm = __builtin_convertvector(reinterpret_cast<vf>(ok & (rb + d23)), vi);
        // fa: RZ(|sum|) to 24 bits cut to p + 1 (an f32's bits, no sign); sign: the sum's.
        vi fa, sign, zero;
        if constexpr (!Wide) {
          const vi sum = S[r][v] + aterm;
          zero = sum == 0;
          fa = reinterpret_cast<vi>(f32_rz(vabs(sum))) & fmask;
          sign = sum & kSign;
        } else {
          SumD sum = S[r][v];
          add_run(sum, aterm);
          // Joined in registers (through memory, two half stores and one whole load, the
          // load would wait for both stores).
          const vi fs = join<vh>(reinterpret_cast<vh>(f32_rz_signed(sum.h[0])), reinterpret_cast<vh>(f32_rz_signed(sum.h[1])));
          fa = fs & fmask;
          sign = fs & kSign;
          zero = (fs & 0x7FFFFFFF) == 0;  // RZ of a non-zero integer is at least 1
        }
        // lead = field - 127 + E - F in emin .. emax, as an unsigned range test.
        const vu lo = reinterpret_cast<vu>(shr(fa, splat(23)) + (lo0 - d));
        const vi inr = reinterpret_cast<vi>((lo < span ? lo : span) == lo);
        const vi st0 = load<vi>(g.state + at);
        vi st = st0 | (~(inr | zero) & static_cast<std::int32_t>(kTcReference)) | static_cast<std::int32_t>(kTcRPresent);
        vi nb = ~zero & ((fa - d23) | sign);
        if (any_lane_without(zero, Any[r][v])) {  // every term zero: the zero products (and r) decide the sign
          const vi lonely = zero & ~Any[r][v];
          const vi rpres = state_has(st0, kTcRPresent);
          for (int l = 0; l < kF; ++l) {
            if (!lonely[l]) continue;
            const int col = v * kF + l;
            bool allneg = !(rpres[l] && rb[l] >= 0);
            for (std::uint32_t t = 0; t < len && allneg; ++t) {
              const std::uint8_t sa = Diag ? pk.as[t * NR + col] : pk.as[t * MR + r];
              if (sa == kTcAbsent) continue;
              allneg = ((sa ^ pk.bs[t * NR + col]) & 1) != 0;
            }
            nb[l] = allneg ? kSign : 0;
          }
        }
        store(g.r_kept + at, nb);
        if (gd.ends) {
          if (P.after) {  // acc + r under rne on f32's grid (grid_add_f32_rne); acc in r_qe
            const vi s = reinterpret_cast<vi>(load<vf>(g.r_qe + at) + reinterpret_cast<vf>(nb));
            // Marked: a non-zero sum outside the normal range (exponent field 0 or 255).
            const vu m = reinterpret_cast<vu>(s & 0x7FFFFFFF);
            const vu x = m - 0x00800000u;
            const vu top = vu{} + 0x7EFFFFFFu;
            st |= ~((reinterpret_cast<vi>((x < top ? x : top) == x)) | reinterpret_cast<vi>(m == 0)) &
                  static_cast<std::int32_t>(kTcReference);
            store(g.r_qe + at, s);
          } else {
            store_acc_f32(g, at, nb, st);
          }
        }
        store(g.state + at, st);
      }
    ended |= gd.ends;
    pk.advance(len, AW, NR);
  }
  if (P.after && ended)
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = tile_at(g, r, v);
        vi st = load<vi>(g.state + at);
        store_acc_f32(g, at, load<vi>(g.r_qe + at), st);
        store(g.state + at, st);
      }
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
