// emulator/gemm/kernels.hpp: the GEMM tile kernels, many outputs per vector (internal;
// included by one translation unit per instruction set, gemm/isa_*.cpp, which defines
// SOFTMX_GEMM_NS, a namespace private to it, and SOFTMX_GEMM_BYTES, the vector width in bytes,
// and is compiled with the matching -m flags). GNU vector extensions: one source, which GCC and
// Clang lower to the instruction set in force (as simd/lanes.hpp does for the conversions).
//
// No std:: template is used here: its instantiation, compiled with this file's -m flags, could be
// the copy the linker keeps for code that runs on every CPU.
//
// Vectors run across the NR outputs of a tile row (B's vectors); each of the MR rows of A is
// broadcast. kernel_api.hpp states what each kernel receives and keeps.
//
// exact (exact_tile): a segment's products N_a * N_b (integers of the format parts, below
//   2^20 each) summed in double lanes: integers below 2^53, so every addition is exact, fused
//   or not; then each output's sum, converted to int64 exactly, is shifted by its block's scale
//   offset into the output's 128-bit accumulator.
// fp32-sequential (seq_tile): the block's running sum s = round_f32(s + a*b) is the FPU's f32
//   addition (round to nearest even; the product of two MX elements is exact in f32, so a fused
//   multiply-add rounds the same). TwoSum gives each addition's exact error e (exact = r + e,
//   exact in binary floating point without overflow, subnormals included): e != 0 is the
//   inexact flag, and its sign and size turn the nearest-even result into the other modes' (one
//   step of the code toward or away from zero). The block's end scales s by 2^X in the exponent
//   field and adds it to the accumulator the same way. Anything that leaves f32's normal range
//   (the scaled sum, an overflow) marks the output for the reference.
// tensor-core (tc_tile): per group, pass 1 finds E, the largest alignment exponent (the
//   accumulator's, then every non-zero product's: zeros carry kZeroExponent), pass 2 adds every
//   product cut to 2^(E - F) in 32-bit integer lanes (|sum| < (group + 1) * 2^(F + 2), which the
//   driver checks fits), then the accumulator's cut term is added and the sum is normalised and
//   rounded onto the grid (f32 exponent range; leaving it marks the output for the reference).
//   A group whose every term is zero takes its sign from a scalar look at its zero products.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gemm/kernel_api.hpp"
#include "gemm/tables.hpp"

#ifndef SOFTMX_GEMM_NS
#error "define SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES before including gemm/kernels.hpp"
#endif

#define SOFTMX_GEMM_INLINE inline __attribute__((always_inline))

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

constexpr int kBytes = SOFTMX_GEMM_BYTES;
constexpr int kD = kBytes / 8;  // double lanes
constexpr int kF = kBytes / 4;  // 32-bit lanes
typedef double vd __attribute__((vector_size(kBytes)));
typedef float vf __attribute__((vector_size(kBytes)));
typedef std::int32_t vi __attribute__((vector_size(kBytes)));
typedef std::uint32_t vu __attribute__((vector_size(kBytes)));
typedef std::int64_t vl __attribute__((vector_size(kBytes)));

template <class V, class T>
SOFTMX_GEMM_INLINE V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V, class T>
SOFTMX_GEMM_INLINE void store(T* p, V v) {
  std::memcpy(p, &v, sizeof v);
}
SOFTMX_GEMM_INLINE vi splat(std::int32_t x) { return vi{} + x; }
// Broadcasts through the bits: vf{} + x would turn -0 into +0.
SOFTMX_GEMM_INLINE vf splat(float x) {
  std::int32_t b;
  std::memcpy(&b, &x, sizeof b);
  return reinterpret_cast<vf>(vi{} + b);
}
SOFTMX_GEMM_INLINE vd splat(double x) {
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return reinterpret_cast<vd>(vl{} + b);
}
SOFTMX_GEMM_INLINE vi vmax(vi a, vi b) { return a > b ? a : b; }
SOFTMX_GEMM_INLINE vi vmin(vi a, vi b) { return a < b ? a : b; }
SOFTMX_GEMM_INLINE vi vabs(vi x) {
  const vi m = x >> 31;
  return (x ^ m) - m;
}
/// x >> s for 0 <= s <= 31 per lane, logical.
SOFTMX_GEMM_INLINE vi shr(vi x, vi s) { return reinterpret_cast<vi>(reinterpret_cast<vu>(x) >> reinterpret_cast<vu>(s)); }
SOFTMX_GEMM_INLINE vi shl(vi x, vi s) { return reinterpret_cast<vi>(reinterpret_cast<vu>(x) << reinterpret_cast<vu>(s)); }
/// floor(log2 x) for 1 <= x < 2^31 (any value for x = 0): the exponent of x converted to f32;
/// a conversion that rounded up to the next power of two is caught by x >> L == 0.
SOFTMX_GEMM_INLINE vi floor_log2(vi x) {
  const vf f = __builtin_convertvector(x, vf);
  vi l = ((reinterpret_cast<vi>(f) >> 23) & 255) - 127;
  l = vmax(l, splat(0));
  return l - ((shr(x, l) == 0) & 1);
}

// ---- exact ----------------------------------------------------------------------------------

template <int MR, int NV>
void exact_tile(const ExactTile& g) {
  constexpr int NR = NV * kD;
  const double* a = g.a;
  const double* b = g.b;
  for (std::size_t s = 0; s < g.segments; ++s) {
    const ExactSegment& sg = g.seg[s];
    vd c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) c[r][v] = vd{};
    for (std::uint32_t t = 0; t < sg.len; ++t, a += MR, b += NR) {
      vd bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = load<vd>(b + v * kD);
      for (int r = 0; r < MR; ++r) {
        const vd av = splat(a[r]);
        for (int v = 0; v < NV; ++v) c[r][v] += av * bv[v];
      }
    }
    double tmp[MR][NR];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) store(&tmp[r][v * kD], c[r][v]);
    for (int r = 0; r < MR; ++r) {
      i128* acc = g.acc + static_cast<std::size_t>(r) * g.stride;
      for (int col = 0; col < NR; ++col) {
        const auto x = static_cast<std::int64_t>(tmp[r][col]);
        const int sum = sg.ra[r] + sg.rb[col];
        const int sh = sum < 127 ? sum : 127;
        acc[col] += static_cast<i128>(static_cast<u128>(static_cast<i128>(x)) << sh);
      }
    }
  }
}

// ---- fp32-sequential ------------------------------------------------------------------------

/// r = round(x + y) under mode M (no overflow: the caller checks r), ORing e != 0 into inexact.
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
      rb += ne & ((rb ^ eb) < 0);  // + (-1)
      if constexpr (M == Rounding::ro) rb |= ne & 1;
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

template <int MR, int NV, Rounding M>
void seq_tile(const SeqTile& g) {
  constexpr int NR = NV * kF;
  const float* a = g.a;
  const float* b = g.b;
  vf s[MR][NV];
  vi inx[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
      s[r][v] = load<vf>(g.s + at);
      inx[r][v] = vi{};
    }
  for (std::size_t sgi = 0; sgi < g.segments; ++sgi) {
    const SeqSegment& sg = g.seg[sgi];
    for (std::uint32_t t = 0; t < sg.len; ++t, a += MR, b += NR) {
      vf bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
      for (int r = 0; r < MR; ++r) {
        const vf av = splat(a[r]);
        for (int v = 0; v < NV; ++v) s[r][v] = add_round<M>(s[r][v], av * bv[v], inx[r][v]);
      }
    }
    if (!sg.ends_block) continue;
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        const vi x = load<vi>(sg.xb + v * kF) + sg.xa[r];
        const vi sb = reinterpret_cast<vi>(s[r][v]);
        // d = s * 2^X: exact while the exponent field stays in 1..254 (s is never subnormal: it
        // is a sum of products, multiples of 2^-32); zeros keep their sign.
        const vi nz = (sb & 0x7FFFFFFF) != 0;
        const vi ef = ((sb >> 23) & 255) + x;
        vi bad = nz & ((ef < 1) | (ef > 254));
        const vf d = reinterpret_cast<vf>(sb + (nz & (x << 23)));
        vi ix = vi{};
        const vf acc = add_round<M>(load<vf>(g.acc + at), d, ix);
        bad |= (reinterpret_cast<vi>(acc) & 0x7F800000) == 0x7F800000;
        store(g.acc + at, acc);
        vi st = load<vi>(g.state + at);
        st |= (ix & static_cast<std::int32_t>(kSeqInexact)) | (bad & static_cast<std::int32_t>(kSeqReference));
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

// ---- tensor-core ----------------------------------------------------------------------------

/// mag >> sh cut per the alignment rounding (sh in 0..31; mag < 2^30).
template <bool Near>
SOFTMX_GEMM_INLINE vi cut(vi mag, vi sh) {
  const vi kept = shr(mag, sh);
  if constexpr (!Near) {
    return kept;
  } else {
    const vi rem = mag - shl(kept, sh);
    const vi half = shr(shl(splat(1), sh), splat(1));  // 0 when sh = 0: no rounding
    const vi up = (sh > 0) & ((rem > half) | ((rem == half) & ((kept & 1) != 0)));
    return kept - up;
  }
}

/// Rounds mag >> d (d >= 1; mag < 2^31) under the accumulator mode; neg: the value's sign.
SOFTMX_GEMM_INLINE vi round_grid(vi mag, vi d, vi neg, Rounding mode) {
  vi kept = shr(mag, d);
  const vi rem = mag - shl(kept, d);
  const vi half = shl(splat(1), d - 1);
  const vi inexact = rem != 0;
  switch (mode) {
    case Rounding::rne: kept -= (rem > half) | ((rem == half) & ((kept & 1) != 0)); break;
    case Rounding::rna: kept -= rem >= half; break;
    case Rounding::ru: kept -= inexact & ~neg; break;
    case Rounding::rd: kept -= inexact & neg; break;
    case Rounding::ro: kept |= inexact & 1; break;
    default: break;  // rz (rs is refused by TensorCoreModel)
  }
  return kept;
}

template <int MR, int NV, bool ProdRef, bool Near>
void tc_tile(const TcTile& g) {
  constexpr int NR = NV * kF;
  const TcParams& P = *g.prm;
  const std::int32_t* an = g.an;
  const std::int32_t* ae = g.ae;
  const std::uint8_t* as = g.as;
  const std::int32_t* bn = g.bn;
  const std::int32_t* be = g.be;
  const std::uint8_t* bs = g.bs;
  constexpr std::int32_t kNone = kZeroExponent;
  for (std::size_t gi = 0; gi < g.groups; ++gi) {
    const std::uint32_t len = g.glen[gi];
    vi E[MR][NV];
    // The accumulator's exponent (its leading bit; it is never below emin here).
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        const vi kept = load<vi>(g.kept + at);
        const vi st = load<vi>(g.state + at);
        const vi term = ((st & static_cast<std::int32_t>(kTcPresent)) != 0) & (kept != 0);
        E[r][v] = term ? load<vi>(g.qe + at) + floor_log2(kept) : splat(kNone);
      }
    // Pass 1: the largest alignment exponent of the group's products.
    for (std::uint32_t t = 0; t < len; ++t) {
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(be + t * NR + v * kF);
        if constexpr (ProdRef) {
          const vi bnv = load<vi>(bn + t * NR + v * kF);
          for (int r = 0; r < MR; ++r) {
            const vi prod = vabs(bnv * an[t * MR + r]);
            const vi x = bev + ae[t * MR + r] - P.mamb + floor_log2(prod);
            E[r][v] = vmax(E[r][v], x);
          }
        } else {
          for (int r = 0; r < MR; ++r) E[r][v] = vmax(E[r][v], bev + ae[t * MR + r]);
        }
      }
    }
    // Pass 2: the cut terms, summed exactly.
    vi S[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) S[r][v] = vi{};
    for (std::uint32_t t = 0; t < len; ++t) {
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(be + t * NR + v * kF);
        const vi bnv = load<vi>(bn + t * NR + v * kF);
        for (int r = 0; r < MR; ++r) {
          const vi prod = bnv * an[t * MR + r];
          const vi mag = vabs(prod);
          const vi d = E[r][v] - (bev + ae[t * MR + r]);
          vi term;
          if constexpr (ProdRef) {
            const vi dd = d - P.c;
            term = cut<Near>(shl(mag, vmin(vmax(-dd, splat(0)), splat(31))), vmin(vmax(dd, splat(0)), splat(31)));
          } else {
            term = cut<Near>(mag, vmin(d + P.cr, splat(31)));
          }
          const vi m = prod >> 31;
          S[r][v] += (term ^ m) - m;
        }
      }
    }
    // The accumulator's term, then normalise and round onto the grid.
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        const vi kept = load<vi>(g.kept + at);
        const vi qe = load<vi>(g.qe + at);
        vi st = load<vi>(g.state + at);
        const vi present = (st & static_cast<std::int32_t>(kTcPresent)) != 0;
        const vi accneg = (st & static_cast<std::int32_t>(kTcSign)) != 0;
        const vi e = E[r][v];
        const vi sh = (e - P.F) - qe;  // the accumulator's bits below the quantum 2^(E - F)
        vi aterm = sh >= 0 ? cut<Near>(kept, vmin(sh, splat(31))) : shl(kept, vmin(-sh, splat(31)));
        aterm = present ? (accneg ? -aterm : aterm) : vi{};
        const vi sum = S[r][v] + aterm;
        const vi anyterm = e > kNone / 2;
        const vi zero = sum == 0;
        const vi neg = sum < 0;
        const vi mag = vabs(sum);
        const vi L = floor_log2(mag);
        const vi lead = e - P.F + L;
        const vi d = L - P.p;
        const vi knew = d > 0 ? round_grid(mag, vmin(d, splat(31)), neg, P.mode) : shl(mag, vmin(-d, splat(31)));
        const vi qnew = lead - P.p;
        const vi after = qnew + floor_log2(knew);
        const vi bad = ~zero & ((lead < P.emin) | (after > P.emax));
        vi sign = zero ? (anyterm & (P.mode == Rounding::rd ? -1 : 0)) : neg;
        const vi lonely = zero & ~anyterm;  // every term zero: the zero products decide the sign
        bool anylonely = false;
        for (int l = 0; l < kF; ++l) anylonely |= lonely[l] != 0;
        if (anylonely) {
          for (int l = 0; l < kF; ++l) {
            if (!lonely[l]) continue;
            const int col = v * kF + l;
            bool allneg = true, allpos = true;
            if (present[l]) (accneg[l] ? allpos : allneg) = false;
            for (std::uint32_t t = 0; t < len; ++t) ((as[t * MR + r] ^ bs[t * NR + col]) ? allpos : allneg) = false;
            sign[l] = allneg ? -1 : allpos ? 0 : (P.mode == Rounding::rd ? -1 : 0);
          }
        }
        st = (st & static_cast<std::int32_t>(kTcReference)) | static_cast<std::int32_t>(kTcPresent) |
             (sign & static_cast<std::int32_t>(kTcSign)) | (bad & static_cast<std::int32_t>(kTcReference));
        store(g.state + at, st);
        store(g.kept + at, zero ? vi{} : knew);
        store(g.qe + at, qnew);
      }
    an += static_cast<std::size_t>(len) * MR;
    ae += static_cast<std::size_t>(len) * MR;
    as += static_cast<std::size_t>(len) * MR;
    bn += static_cast<std::size_t>(len) * NR;
    be += static_cast<std::size_t>(len) * NR;
    bs += static_cast<std::size_t>(len) * NR;
  }
}

// ---- the table ------------------------------------------------------------------------------

template <int EMR, int ENV, int SMR, int SNV, int TMR, int TNV>
Kernels make_kernels() {
  Kernels k{};
  k.exact_mr = EMR;
  k.exact_nr = ENV * kD;
  k.exact = exact_tile<EMR, ENV>;
  k.seq_mr = SMR;
  k.seq_nr = SNV * kF;
  k.seq[static_cast<int>(Rounding::rne)] = seq_tile<SMR, SNV, Rounding::rne>;
  k.seq[static_cast<int>(Rounding::rna)] = seq_tile<SMR, SNV, Rounding::rna>;
  k.seq[static_cast<int>(Rounding::rz)] = seq_tile<SMR, SNV, Rounding::rz>;
  k.seq[static_cast<int>(Rounding::ru)] = seq_tile<SMR, SNV, Rounding::ru>;
  k.seq[static_cast<int>(Rounding::rd)] = seq_tile<SMR, SNV, Rounding::rd>;
  k.seq[static_cast<int>(Rounding::ro)] = seq_tile<SMR, SNV, Rounding::ro>;
  k.tc_mr = TMR;
  k.tc_nr = TNV * kF;
  k.tc[0][0] = tc_tile<TMR, TNV, false, false>;
  k.tc[0][1] = tc_tile<TMR, TNV, false, true>;
  k.tc[1][0] = tc_tile<TMR, TNV, true, false>;
  k.tc[1][1] = tc_tile<TMR, TNV, true, true>;
  return k;
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
