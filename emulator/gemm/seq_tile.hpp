// emulator/gemm/seq_tile.hpp: the fp32-sequential model's tile kernel (internal; included
// through gemm/kernels.hpp, which says what SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES mean).
//
// fp32-sequential (seq_tile): the block's running sum s = round_f32(s + a*b) is the FPU's f32
//   addition (round to nearest even; the product of two MX elements is exact in f32, so a fused
//   multiply-add rounds the same). TwoSum gives each addition's exact error e (exact = r + e,
//   exact in binary floating point without overflow, subnormals included): e != 0 is the
//   inexact flag, and its sign and size turn the nearest-even result into the other modes' (one
//   step of the code toward or away from zero). The block's end scales s by 2^X in the exponent
//   field (E8M0 scales) or rounds s times the two scale values, exact in double lanes, once into
//   f32 (other scale formats: scale_round), and adds it to the accumulator the same way.
//   Anything that leaves f32's normal range (the scaled sum, an overflow) marks the output for
//   the reference.
#pragma once

#include <cstdint>

#include "gemm/kernel_api.hpp"
#include "gemm/tile_lanes.hpp"

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
#define SOFTMX_GEMM_DIRECTED 1
/// a * b + c rounded down (up), by the instruction's own rounding (AVX-512 embedded rounding:
/// the MXCSR is neither read nor changed; exceptions suppressed).
SOFTMX_GEMM_INLINE vf fma_down(vf a, vf b, vf c) {
  return reinterpret_cast<vf>(_mm512_fmadd_round_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b),
                                                    reinterpret_cast<__m512>(c), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
}
SOFTMX_GEMM_INLINE vf fma_up(vf a, vf b, vf c) {
  return reinterpret_cast<vf>(_mm512_fmadd_round_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b),
                                                    reinterpret_cast<__m512>(c), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
}
/// The up chain is held as itself; the rounding needs no mode (below).
SOFTMX_GEMM_INLINE vf up_in(vf x) { return x; }
SOFTMX_GEMM_INLINE vf up_out(vf x) { return x; }
SOFTMX_GEMM_INLINE unsigned round_down_begin() { return 0; }
SOFTMX_GEMM_INLINE void round_down_end(unsigned) {}
SOFTMX_GEMM_INLINE void pin(vf&) {}
#elif SOFTMX_GEMM_BYTES == 32 && defined(__AVX__)
#define SOFTMX_GEMM_DIRECTED 2
/// AVX2 has no rounding per instruction: the chains run with the MXCSR's rounding control set to
/// round down (round_down_begin, which returns the MXCSR to restore; round_down_end restores
/// it), and the up chain is held negated: RU(z) = -RD(-z) for every real z (the two directed
/// roundings mirror each other, and so do an exact zero's signs: x + (-x) is -0 rounding down,
/// +0 rounding up; -0 + -0 is -0 under both), so nh = -hi steps as nh = RD(nh - a b). The products
/// are exact, so fused or not, each step is one rounding of the exact sum.
SOFTMX_GEMM_INLINE vf fma_down(vf a, vf b, vf c) { return c + a * b; }
SOFTMX_GEMM_INLINE vf fma_up(vf a, vf b, vf nc) { return nc - a * b; }
SOFTMX_GEMM_INLINE vf up_in(vf x) {
  return reinterpret_cast<vf>(reinterpret_cast<vi>(x) ^ static_cast<std::int32_t>(0x80000000u));
}
SOFTMX_GEMM_INLINE vf up_out(vf x) { return up_in(x); }
SOFTMX_GEMM_INLINE unsigned round_down_begin() {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr((csr & ~0x6000u) | 0x2000u);  // RC (bits 13-14) = 01: toward -Inf
  return csr;
}
SOFTMX_GEMM_INLINE void round_down_end(unsigned csr) { _mm_setcsr(csr); }
/// Keeps x in a register at this point of the program: a volatile asm, which the compiler
/// keeps in order with the MXCSR writes, so that no arithmetic on the chains moves across them.
SOFTMX_GEMM_INLINE void pin(vf& x) { asm volatile("" : "+x"(x)); }
#else
#define SOFTMX_GEMM_DIRECTED 0
#endif
#if SOFTMX_GEMM_DIRECTED
template <int MR, int NV>
SOFTMX_GEMM_INLINE void pin_all(vf (&lo)[MR][NV], vf (&hi)[MR][NV]) {
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      pin(lo[r][v]);
      pin(hi[r][v]);
    }
}
#endif

/// r = round(x + y) under mode M, ORing e != 0 into inexact. An overflow gives +-Inf under
/// every mode (the caller checks r and hands the output to the reference).
template <Rounding M>
SOFTMX_GEMM_INLINE vf add_round(vf x, vf y, vi& inexact) {
  const vf r = x + y;
  const vf yp = r - x;
  const vf xp = r - yp;
  const vf e = (x - xp) + (y - yp);  // TwoSum: x + y = r + e exactly
  const vi ne = e != 0;
  inexact |= ne;
  if constexpr (M == Rounding::rne) {
    return r;
  } else {
    vi rb = reinterpret_cast<vi>(r);
    const vi eb = reinterpret_cast<vi>(e);
    if constexpr (M == Rounding::rz || M == Rounding::ro) {
      // r lies beyond the exact value when e points back toward zero: one code toward zero.
      // Not when r overflowed: then e is Inf - Inf, a NaN of either sign, and r must stay Inf
      // for the caller's check (stepped to 0x7F7FFFFF, the overflow flag was lost).
      const vi step = ne & ((rb & 0x7F800000) != 0x7F800000);
      rb += step & ((rb ^ eb) < 0);  // + (-1)
      if constexpr (M == Rounding::ro) rb |= step & 1;
    } else if constexpr (M == Rounding::ru) {
      rb += (e > 0) & ((rb >> 31) | 1);  // next up: +1 code if r > 0, -1 if r < 0
    } else if constexpr (M == Rounding::rd) {
      rb -= (e < 0) & ((rb >> 31) | 1);
      // An exact zero sum is -0 under rd unless both operands are +0 (IEEE 754 6.3).
      const vi zero = (rb & 0x7FFFFFFF) == 0;
      const vi any = (reinterpret_cast<vi>(x) | reinterpret_cast<vi>(y)) != 0;
      rb = zero ? (any & static_cast<std::int32_t>(0x80000000u)) : rb;
    } else if constexpr (M == Rounding::rna) {
      // A tie rounded toward zero (e has r's sign and is half the gap above |r|): one code away.
      const vi ef = (rb >> 23) & 255;
      const vi half = ef > 24 ? (ef - 24) << 23 : shl(splat(1), vmax(ef - 2, splat(0)));
      rb -= ne & ((rb ^ eb) >= 0) & ((eb & 0x7FFFFFFF) == half);
    }
    return reinterpret_cast<vf>(rb);
  }
}


/// d = round(s * a * b) under mode M, one rounding of the exact product into f32: the model's
/// d_j for a block sum s and scale values a and b (dot.cpp: times_scales, then round_pack), on
/// kD lanes (half a vector). Preconditions: s, a and b (given in double lanes) are f32 values
/// (zeros included) with at most 24, 14 and 14
/// significant bits, s finite with |s| in [2^-126, 2^128) or zero, |a|, |b| in [2^-149, 2^128)
/// or zero. Then the products in double lanes are exact (at most 52 significant bits, within
/// 2^-424 .. 2^384, far inside double's normal range; the signs are IEEE's XOR, zeros
/// included), and so is x's one conversion to f32 followed by e = x - r (r within one f32 step
/// of x: e is a multiple of x's lowest bit below r's step, at most 29 bits). r is the
/// nearest-even rounding (the FPU's default mode, the kernels' precondition); e's sign and,
/// for rna, |e| equal to half r's step turn it into the other modes by one code step, as in
/// add_round. Lanes where x is non-zero and below 2^-126 (tiny: underflow under either tininess
/// rule, or a subnormal result) or above f32's largest finite value (overflow, or rz's and
/// rd's saturation with its flag) are ORed into bad (their d is any value); the others are
/// normal or zero and ORed into inexact where e != 0.
template <Rounding M>
SOFTMX_GEMM_INLINE vh scale_round_half(vfh s, vd a, vd b, vh& inexact, vh& bad) {
  const vd x = __builtin_convertvector(s, vd) * a * b;
  const vfh r = __builtin_convertvector(x, vfh);
  const vd xr = __builtin_convertvector(r, vd);
  const vd ax = reinterpret_cast<vd>(reinterpret_cast<vl>(x) & 0x7FFFFFFFFFFFFFFF);
  bad |= __builtin_convertvector((ax != 0) & ((ax < 0x1p-126) | (ax > 0x1.fffffep127)), vh);
  vh rb = reinterpret_cast<vh>(r);
  if constexpr (M == Rounding::rne) {
    inexact |= __builtin_convertvector(x != xr, vh);
  } else {
    const vd e = x - xr;
    const vh up = __builtin_convertvector(e > 0, vh), down = __builtin_convertvector(e < 0, vh);
    inexact |= up | down;
    const vh rneg = rb >> 31;  // all ones where r < 0 (r is not a zero where e != 0)
    if constexpr (M == Rounding::rz || M == Rounding::ro) {
      rb += (rneg & up) | (~rneg & down);  // r beyond x: one code toward zero (+ -1)
      if constexpr (M == Rounding::ro) rb |= (up | down) & 1;
    } else if constexpr (M == Rounding::ru) {
      rb += up & (rneg | 1);
    } else if constexpr (M == Rounding::rd) {
      rb -= down & (rneg | 1);
    } else if constexpr (M == Rounding::rna) {
      // A tie rounded toward zero (e has r's sign and is half r's step, 2^(field - 151)).
      const vl field = __builtin_convertvector((rb >> 23) & 255, vl);
      const vd half = reinterpret_cast<vd>((field + (1023 - 151)) << 52);
      const vd ae = reinterpret_cast<vd>(reinterpret_cast<vl>(e) & 0x7FFFFFFFFFFFFFFF);
      rb -= ((rneg & down) | (~rneg & up)) & __builtin_convertvector(ae == half, vh);
    }
  }
  return rb;
}

/// The low and high halves of a vector of kF 32-bit lanes, and two halves joined.
template <class H, class V>
SOFTMX_GEMM_INLINE H half_lo(V v) {
  if constexpr (kF == 4) return __builtin_shufflevector(v, v, 0, 1);
  else if constexpr (kF == 8) return __builtin_shufflevector(v, v, 0, 1, 2, 3);
  else return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
}
template <class H, class V>
SOFTMX_GEMM_INLINE H half_hi(V v) {
  if constexpr (kF == 4) return __builtin_shufflevector(v, v, 2, 3);
  else if constexpr (kF == 8) return __builtin_shufflevector(v, v, 4, 5, 6, 7);
  else return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
}
template <class H>
SOFTMX_GEMM_INLINE vi join(H lo, H hi) {
  if constexpr (kF == 4) return __builtin_shufflevector(lo, hi, 0, 1, 2, 3);
  else if constexpr (kF == 8) return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
  else return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/// The same on a full vector of block sums s, the scale values a and b given as double lanes,
/// the low halves (lanes 0 .. kD - 1) and the high ones: native double vectors (a vector of kF
/// doubles would be wider than the instruction set's, which the compiler may lower lane by lane).
template <Rounding M>
SOFTMX_GEMM_INLINE vf scale_round(vf s, vd a0, vd a1, vd b0, vd b1, vi& inexact, vi& bad) {
  vh ix0 = vh{}, ix1 = vh{}, bd0 = vh{}, bd1 = vh{};
  const vh r0 = scale_round_half<M>(half_lo<vfh>(s), a0, b0, ix0, bd0);
  const vh r1 = scale_round_half<M>(half_hi<vfh>(s), a1, b1, ix1, bd1);
  inexact |= join(ix0, ix1);
  bad |= join(bd0, bd1);
  return reinterpret_cast<vf>(join(r0, r1));
}

template <int MR, int NV, Rounding M, bool Diag>
void seq_tile(const SeqTile& g) {
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  const float* a = g.a;
  const float* b = g.b;
  vf s[MR][NV];
  vi inx[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
      s[r][v] = load<vf>(g.s + at);
      inx[r][v] = (load<vi>(g.state + at) & static_cast<std::int32_t>(kSeqInexact)) != 0;
    }
  for (std::size_t sgi = 0; sgi < g.segments; ++sgi) {
    const SeqSegment& sg = g.seg[sgi];
    // The plain loop, without error terms, when it gives every output of the tile what the
    // model gives (decided per tile and segment):
    // - exact blocks (kernel_api.hpp): every partial sum of the block exact in f32, so every
    //   addition is exact under every mode and the hardware's (rne) is the model's; but an
    //   exact zero sum is +0 unless both operands are -0 under every mode except rd (-0 unless
    //   both are +0), so rd always takes the general loop;
    // - under rne, an output already flagged inexact: the hardware's addition is the model's
    //   (add_round<rne> returns it) and the error term only sets a flag that is already set.
    bool plain = M != Rounding::rd;
    if (plain) {
      vi fail = vi{};
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) {
          const vi sa = Diag ? load<vi>(sg.sa + v * kF) : splat(sg.sa[r]);
          const vi ma = Diag ? load<vi>(sg.ma + v * kF) : splat(sg.ma[r]);
          vi f = vmin(sa + load<vi>(sg.mb + v * kF), ma + load<vi>(sg.sb + v * kF)) > 24;
          if constexpr (M == Rounding::rne) f &= ~inx[r][v];
          fail |= f;
        }
      plain = !any_set(fail);
    }
    if (plain) {
      for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
        vf bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) s[r][v] += (Diag ? load<vf>(a + v * kF) : splat(a[r])) * bv[v];
      }
    }
    bool done = plain;
    bool need[MR][NV];  // the vectors the general loop computes
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) need[r][v] = true;
    const float* a0 = a;
    const float* b0 = b;
#if SOFTMX_GEMM_DIRECTED
    // Two bracketing chains (AVX-512: rounding per instruction; AVX2: the MXCSR's, above): lo_t
    // rounds each step down, hi_t up. By induction lo_t <= E_t <= hi_t (E_t the exact partial sums from the
    // segment's starting s), and once a step of lo is inexact, lo_t < E_t for every later t (a
    // value below E_t rounds down to one below it); the same for hi. So lo = hi at the
    // segment's end iff every step of both was exact, iff every E_t is an f32 (both chains are
    // then E itself), iff the model's every step is exact (its chain is E too). Then hi is the
    // model's sum under every mode but rd, zeros included: an exact zero sum x + y is +0 unless
    // both are -0 under rne, rna, rz, ru and ro, as under ru. A vector with a lane where they
    // differ runs the segment again in the general loop, from the segment's starting s.
    if constexpr (M != Rounding::rd) {
      if (!done) {
        vf lo[MR][NV], hi[MR][NV];
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) {
            lo[r][v] = s[r][v];
            hi[r][v] = up_in(s[r][v]);
          }
        // Every chain value passes a pin before and after each MXCSR write (AVX2), so that the
        // steps fall between the writes and nothing else does.
        pin_all(lo, hi);
        const unsigned csr = round_down_begin();
        pin_all(lo, hi);
        for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
          vf bv[NV];
          for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
          for (int r = 0; r < MR; ++r) {
            const vf as = splat(a[r]);
            for (int v = 0; v < NV; ++v) {
              const vf av = Diag ? load<vf>(a + v * kF) : as;
              lo[r][v] = fma_down(av, bv[v], lo[r][v]);
              hi[r][v] = fma_up(av, bv[v], hi[r][v]);
            }
          }
        }
        pin_all(lo, hi);
        round_down_end(csr);
        pin_all(lo, hi);
        done = true;
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) {
            hi[r][v] = up_out(hi[r][v]);
            const vi differ = lo[r][v] != hi[r][v];
            const bool same = !any_set(differ);
            // Under rne a lane where they differ had an inexact step in the model's chain (the
            // iff above): its flag is known here, and the rerun is the plain hardware chain.
            if constexpr (M == Rounding::rne) inx[r][v] |= differ;
            need[r][v] = !same;
            done &= same;
            if (same) s[r][v] = hi[r][v];
          }
      }
    }
#endif
    // The general loop: TwoSum per step; or, under rne after the bracketing chains, which
    // set the flags of every lane that needs it, the hardware's rne additions, which are the
    // model's (its sum is add_round<rne>'s x + y; the product is exact, fused or not).
    constexpr bool kFlagged = SOFTMX_GEMM_DIRECTED && M == Rounding::rne;
    if (!done) {
      a = a0;
      b = b0;
      for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
        vf bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v)
            if (need[r][v]) {
              const vf p = (Diag ? load<vf>(a + v * kF) : splat(a[r])) * bv[v];
              s[r][v] = kFlagged ? s[r][v] + p : add_round<M>(s[r][v], p, inx[r][v]);
            }
      }
    }
    if (!sg.ends_block) continue;
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        vi bad = vi{}, ix = vi{};
        vf d;
        if (sg.va) {  // other scale formats: d rounded once from the exact s * X_A * X_B
          const double* vb = sg.vb + v * kF;
          const vd sa0 = Diag ? load<vd>(sg.va + v * kF) : splat(sg.va[r]);
          const vd sa1 = Diag ? load<vd>(sg.va + v * kF + kD) : sa0;
          d = scale_round<M>(s[r][v], sa0, sa1, load<vd>(vb), load<vd>(vb + kD), ix, bad);
        } else {
          const vi x = load<vi>(sg.xb + v * kF) + (Diag ? load<vi>(sg.xa + v * kF) : splat(sg.xa[r]));
          const vi sb = reinterpret_cast<vi>(s[r][v]);
          // d = s * 2^X: exact while the exponent field stays in 1..254 (s is never subnormal: it
          // is a sum of products, multiples of 2^-32); zeros keep their sign.
          const vi nz = (sb & 0x7FFFFFFF) != 0;
          const vi ef = ((sb >> 23) & 255) + x;
          bad = nz & ((ef < 1) | (ef > 254));
          // In unsigned lanes: where the exponent leaves 1..254 the sum wraps (its lane is marked
          // bad and goes to the reference), which signed lanes would make undefined.
          d = reinterpret_cast<vf>(reinterpret_cast<vu>(sb) + reinterpret_cast<vu>(nz & shl(x, splat(23))));
        }
        const vf acc = add_round<M>(load<vf>(g.acc + at), d, ix);
        bad |= (reinterpret_cast<vi>(acc) & 0x7F800000) == 0x7F800000;
        store(g.acc + at, acc);
        inx[r][v] |= ix;
        vi st = load<vi>(g.state + at);
        st |= bad & static_cast<std::int32_t>(kSeqReference);
        store(g.state + at, st);
        s[r][v] = vf{};
      }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
      store(g.s + at, s[r][v]);
      vi st = load<vi>(g.state + at);
      st |= inx[r][v] & static_cast<std::int32_t>(kSeqInexact);
      store(g.state + at, st);
    }
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
