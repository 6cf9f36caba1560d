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
//   2^20 each) summed in double lanes that start at 1.5 * 2^52: every partial sum is an integer
//   below 2^51 in magnitude (the driver bounds the segment), so every addition is exact, fused
//   or not, and the lane's bits minus those of 1.5 * 2^52 are the sum as an int64; each sum is
//   then shifted by its block's scale offset into the output's 128-bit accumulator, held as two
//   64-bit lanes (low word, high word with the carry), all in vector lanes.
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
//   (docs/ARCHITECTURE.md, GEMM, "Exact routes and their proofs" 8).
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "gemm/kernel_api.hpp"
#include "gemm/tables.hpp"

#ifndef SOFTMX_GEMM_NS
#error "define SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES before including gemm/kernels.hpp"
#endif

#define SOFTMX_GEMM_INLINE inline __attribute__((always_inline))

// The 64-bit lanes of the tensor-core kernel are twice the file's vector width; GCC warns that
// such values would be passed differently across calls, which never happens (all inline).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

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

typedef std::int32_t vh __attribute__((vector_size(kBytes / 2)));  // kD lanes of 32 bits
typedef std::uint64_t vlu __attribute__((vector_size(kBytes)));

/// 1.5 * 2^52: a double lane holding kMagic + x for an integer |x| < 2^51 holds it exactly (the
/// sum lies in [2^52, 2^53), where doubles are the integers), and its bits are kMagicBits + x.
constexpr double kMagic = 0x1.8p52;
constexpr std::int64_t kMagicBits = 0x4338000000000000;

/// (hi, lo), a 128-bit two's complement integer per lane (hi * 2^64 + lo), += x * 2^sh, for
/// 0 <= sh <= 127 (wrapping modulo 2^128: the driver never keeps an output whose sum could
/// leave 128 bits, ExactBlock::fits). Every shift count stays within 0..63.
SOFTMX_GEMM_INLINE void add_shifted(vlu& lo, vl& hi, vl x, vl sh) {
  const vl s1 = sh < 63 ? sh : vl{} + 63;
  const vl low = sh < 64;                                            // lanes whose shift leaves x in both words
  const vlu ux = reinterpret_cast<vlu>(x);
  const vlu lpart = reinterpret_cast<vlu>(low) & (ux << reinterpret_cast<vlu>(s1));
  const vl hlow = (x >> 1) >> (63 - s1);                             // x >> (64 - sh), arithmetic
  const vl s2 = sh > 64 ? sh - 64 : vl{};                            // 0..63 for sh 64..127
  const vl hhigh = reinterpret_cast<vl>(ux << reinterpret_cast<vlu>(s2));
  const vl hpart = low ? hlow : hhigh;
  const vlu nlo = lo + lpart;
  const vl carry = reinterpret_cast<vl>(nlo < lpart);               // -1 where the low word wrapped
  hi = reinterpret_cast<vl>(reinterpret_cast<vlu>(hi) + reinterpret_cast<vlu>(hpart) - reinterpret_cast<vlu>(carry));
  lo = nlo;
}

/// Narrow: every output's whole sum is below 2^62 in magnitude (ExactBlock::narrow): lo holds
/// it as an int64 and hi is not touched; otherwise (lo, hi) is the 128-bit accumulator.
template <int MR, int NV, bool Diag, bool Narrow>
void exact_tile(const ExactTile& g) {
  constexpr int NR = NV * kD;
  constexpr int AW = Diag ? NR : MR;  // A's panel width
  const double* a = g.a;
  const double* b = g.b;
  for (std::size_t s = 0; s < g.segments; ++s) {
    const ExactSegment& sg = g.seg[s];
    // Every lane starts at kMagic: the products are integers and every partial sum of the
    // segment is below 2^51 in magnitude (the driver's bound), so each fused or unfused step is
    // exact and the lane's bits minus kMagicBits are the segment's sum.
    vd c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) c[r][v] = splat(kMagic);
    for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
      vd bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = load<vd>(b + v * kD);
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) c[r][v] += (Diag ? load<vd>(a + v * kD) : splat(a[r])) * bv[v];
    }
    // Each sum into its output's 128-bit accumulator, shifted by its block's scale offsets
    // (clamped to 127: an output whose shift was clamped is sent to the reference anyway).
    for (int r = 0; r < MR; ++r) {
      std::uint64_t* lo = g.lo + static_cast<std::size_t>(r) * g.stride;
      std::int64_t* hi = g.hi + static_cast<std::size_t>(r) * g.stride;
      for (int v = 0; v < NV; ++v) {
        const vl x = reinterpret_cast<vl>(c[r][v]) - kMagicBits;
        const vl rb = __builtin_convertvector(load<vh>(sg.rb + v * kD), vl);
        const vl ra = Diag ? __builtin_convertvector(load<vh>(sg.ra + v * kD), vl) : vl{} + sg.ra[r];
        vl sh = ra + rb;
        if constexpr (Narrow) {  // sh + the sum's bits <= 62 here (the driver's bound)
          store(lo + v * kD, load<vlu>(lo + v * kD) + (reinterpret_cast<vlu>(x) << reinterpret_cast<vlu>(sh)));
          continue;
        }
        sh = sh < 127 ? sh : vl{} + 127;
        vlu l = load<vlu>(lo + v * kD);
        vl h = load<vl>(hi + v * kD);
        add_shifted(l, h, x, sh);
        store(lo + v * kD, l);
        store(hi + v * kD, h);
      }
    }
  }
}

// ---- fp32-sequential ------------------------------------------------------------------------

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
#else
#define SOFTMX_GEMM_DIRECTED 0
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

typedef float vfh __attribute__((vector_size(kBytes / 2)));  // kD float lanes

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
      for (int l = 0; l < kF; ++l) plain &= fail[l] == 0;
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
    // Two bracketing chains (the AVX-512 kernels: rounding per instruction): lo_t rounds each
    // step down, hi_t up. By induction lo_t <= E_t <= hi_t (E_t the exact partial sums from the
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
          for (int v = 0; v < NV; ++v) lo[r][v] = hi[r][v] = s[r][v];
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
        done = true;
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) {
            const vi differ = lo[r][v] != hi[r][v];
            bool same = true;
            for (int l = 0; l < kF; ++l) same &= differ[l] == 0;
            need[r][v] = !same;
            done &= same;
            if (same) s[r][v] = hi[r][v];
          }
      }
    }
#endif
    if (!done) {
      a = a0;
      b = b0;
      for (std::uint32_t t = 0; t < sg.len; ++t, a += AW, b += NR) {
        vf bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = load<vf>(b + v * kF);
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v)
            if (need[r][v])
              s[r][v] = add_round<M>(s[r][v], (Diag ? load<vf>(a + v * kF) : splat(a[r])) * bv[v], inx[r][v]);
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

// ---- tensor-core ----------------------------------------------------------------------------

typedef std::int64_t vw __attribute__((vector_size(2 * kBytes)));  // kF lanes of 64 bits
typedef std::uint64_t vwu __attribute__((vector_size(2 * kBytes)));
template <class V>
struct Unsigned;
template <>
struct Unsigned<vi> {
  typedef vu type;
};
template <>
struct Unsigned<vw> {
  typedef vwu type;
};
template <bool Wide>
struct SumLanes {
  typedef vi type;
};
template <>
struct SumLanes<true> {
  typedef vw type;
};

template <class V>
SOFTMX_GEMM_INLINE V from32(vi x) {
  if constexpr (sizeof(V) == sizeof(vi)) return x;
  else return __builtin_convertvector(x, V);
}
template <class V>
SOFTMX_GEMM_INLINE vi to32(V x) {
  if constexpr (sizeof(V) == sizeof(vi)) return x;
  else return __builtin_convertvector(x, vi);
}
template <class V>
SOFTMX_GEMM_INLINE V labs(V x) {
  const V m = x >> (static_cast<int>(sizeof(x[0])) * 8 - 1);
  return (x ^ m) - m;
}
template <class V>
SOFTMX_GEMM_INLINE V lshr(V x, V s) {
  typedef typename Unsigned<V>::type U;
  return reinterpret_cast<V>(reinterpret_cast<U>(x) >> reinterpret_cast<U>(s));
}
template <class V>
SOFTMX_GEMM_INLINE V lshl(V x, V s) {
  typedef typename Unsigned<V>::type U;
  return reinterpret_cast<V>(reinterpret_cast<U>(x) << reinterpret_cast<U>(s));
}
/// m ? a : b per lane, m's lanes all ones or all zeros. Bitwise: GCC lowers `?:` on the 64-bit
/// lanes twice the vector width (vw) lane by lane through scalar registers.
template <class V>
SOFTMX_GEMM_INLINE V select(V m, V a, V b) {
  return (m & a) | (~m & b);
}
// Lane masks (all ones where true) for the 32-bit lanes (vi: the vector's own comparisons) and
// the 64-bit lanes twice the vector width (vw: arithmetic only, since GCC lowers a comparison
// of vw lane by lane through scalar registers). The vw forms hold for |a|, |b| < 2^62, where
// the differences cannot wrap; every caller's values are below that (sums bounded by tc_lanes,
// GST's 2^62).
template <class V>
SOFTMX_GEMM_INLINE V lanes_neg(V x) {  // x < 0
  return x >> (static_cast<int>(sizeof(x[0])) * 8 - 1);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_nonzero(V x) {  // x != 0
  if constexpr (sizeof(V) == sizeof(vi)) {
    return x != 0;
  } else {
    typedef typename Unsigned<V>::type U;
    const U u = reinterpret_cast<U>(x);
    return lanes_neg(reinterpret_cast<V>(u | (U{} - u)));
  }
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_zero(V x) {  // x == 0
  return ~lanes_nonzero(x);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_gt(V a, V b) {  // a > b
  if constexpr (sizeof(V) == sizeof(vi)) return a > b;
  else return lanes_neg(b - a);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_ge(V a, V b) {  // a >= b
  if constexpr (sizeof(V) == sizeof(vi)) return a >= b;
  else return ~lanes_neg(a - b);
}
template <class V>
SOFTMX_GEMM_INLINE V lanes_eq(V a, V b) {  // a == b
  if constexpr (sizeof(V) == sizeof(vi)) return a == b;
  else return lanes_zero(a - b);
}
/// floor(log2 x) for 1 <= x < 2^62 (any value for x = 0).
SOFTMX_GEMM_INLINE vi flog2(vi x) { return floor_log2(x); }
SOFTMX_GEMM_INLINE vi flog2(vw x) {
  const vi hi = to32(x >> 31), lo = to32(x & 0x7FFFFFFF);
  return hi != 0 ? floor_log2(hi) + 31 : floor_log2(lo);
}

/// mag >> sh cut per the alignment rounding (sh from 0 to the lane width - 1; mag below half
/// the lane range).
template <bool Near, class V>
SOFTMX_GEMM_INLINE V cut(V mag, V sh) {
  const V kept = lshr(mag, sh);
  if constexpr (!Near) {
    return kept;
  } else {
    const V one = V{} + 1;
    const V rem = mag - lshl(kept, sh);
    const V half = lshr(lshl(one, sh), one);  // 0 when sh = 0: no rounding
    const V up = lanes_gt(sh, V{}) & (lanes_gt(rem, half) | (lanes_eq(rem, half) & lanes_nonzero(kept & 1)));
    return kept - up;
  }
}

/// Rounds mag >> d (d >= 1) under `mode`; neg: the value's sign (lanes all ones or zero).
template <class V>
SOFTMX_GEMM_INLINE V round_grid(V mag, V d, V neg, Rounding mode) {
  const V one = V{} + 1;
  V kept = lshr(mag, d);
  const V rem = mag - lshl(kept, d);
  const V half = lshl(one, d - 1);
  const V inexact = lanes_nonzero(rem);
  switch (mode) {
    case Rounding::rne: kept -= lanes_gt(rem, half) | (lanes_eq(rem, half) & lanes_nonzero(kept & 1)); break;
    case Rounding::rna: kept -= lanes_ge(rem, half); break;
    case Rounding::ru: kept -= inexact & ~neg; break;
    case Rounding::rd: kept -= inexact & neg; break;
    case Rounding::ro: kept |= inexact & 1; break;
    default: break;  // rz (rs is refused by TensorCoreModel)
  }
  return kept;
}

/// A value on the accumulator grid, per lane: (-1)^neg * kept * 2^qe; kept = 0 a zero of that sign.
struct GridLanes {
  vi kept, qe, neg;
};

/// A non-zero exact value mag * 2^unit (sign neg) rounded onto the grid under `mode`; marks in
/// bad the lanes that leave the normal range (the subnormal grid, Inf).
template <class V>
SOFTMX_GEMM_INLINE GridLanes to_grid(V mag, vi unit, vi neg, Rounding mode, const TcParams& P, vi& bad) {
  constexpr int kMax = static_cast<int>(sizeof(mag[0])) * 8 - 1;
  const vi L = flog2(mag);
  const vi lead = unit + L;
  const vi d = L - P.p;
  const V k = select(from32<V>(d > 0), round_grid(mag, from32<V>(vmin(d, splat(kMax))), from32<V>(neg), mode),
                     lshl(mag, from32<V>(vmin(vmax(-d, splat(0)), splat(kMax)))));
  GridLanes g;
  g.kept = to32(k);  // at most 2^(p + 1)
  g.qe = lead - P.p;
  g.neg = neg;
  bad |= (lead < P.emin) | (g.qe + floor_log2(g.kept) > P.emax);
  return g;
}

/// a + b exactly, rounded onto the grid under `mode` (tensor_core.cpp's add_exactly): IEEE 754
/// 6.3 signs for a zero sum. Two values further apart than 36 bits: the smaller, below 2^-11 of
/// the larger's quantum, is replaced by one unit 36 bits below it, which no mode tells apart.
SOFTMX_GEMM_INLINE GridLanes grid_add(GridLanes a, GridLanes b, Rounding mode, const TcParams& P, vi& bad) {
  const vi az = a.kept == 0, bz = b.kept == 0;
  const vi qa = az ? b.qe : a.qe;
  const vi qb = bz ? qa : b.qe;
  const vi ahi = qa >= qb;
  const vi qhi = ahi ? qa : qb;
  const vi d = vabs(qa - qb);
  const vi deff = vmin(d, splat(36));
  const vi khi = ahi ? a.kept : b.kept, klo0 = ahi ? b.kept : a.kept;
  const vi nhi = ahi ? a.neg : b.neg, nlo = ahi ? b.neg : a.neg;
  const vi klo = d > 36 ? ((klo0 != 0) & 1) : klo0;
  const vw wh = lshl(from32<vw>(khi), from32<vw>(deff)), wl = from32<vw>(klo);
  const vw mh = from32<vw>(nhi), ml = from32<vw>(nlo);
  const vw sum = ((wh ^ mh) - mh) + ((wl ^ ml) - ml);
  const vi zero = to32(lanes_zero(sum));
  const vi neg = to32(lanes_neg(sum));
  vi rbad = vi{};
  GridLanes g = to_grid(labs(sum), qhi - deff, neg, mode, P, rbad);
  bad |= rbad & ~zero;
  const vi rd = splat(mode == Rounding::rd ? -1 : 0);
  g.neg = (az & bz) ? ((a.neg & b.neg) | ((a.neg ^ b.neg) & rd)) : (zero ? rd : neg);
  g.kept = zero ? vi{} : g.kept;
  return g;
}

/// Whether any lane of the mask m (lanes all ones or zero) is set.
SOFTMX_GEMM_INLINE bool any_lane(vi m) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return _mm512_test_epi32_mask(reinterpret_cast<__m512i>(m), reinterpret_cast<__m512i>(m)) != 0;
#else
  std::uint64_t w[kF / 2];
  std::memcpy(w, &m, sizeof w);
  std::uint64_t o = 0;
  for (int l = 0; l < kF / 2; ++l) o |= w[l];
  return o != 0;
#endif
}

/// RZ(a) to 24 significant bits as an f32, for 0 <= a < 2^31 (a = 0: +0). AVX-512: the
/// conversion's own rounding (embedded, the MXCSR untouched); otherwise the FPU's conversion
/// (round to nearest: the driver checks the MXCSR, fpu_default) stepped one code toward zero
/// where it rounded up, seen as its truncation back exceeding a (or, at 2^31, converting to the
/// integer indefinite value, negative).
SOFTMX_GEMM_INLINE vf f32_rz(vi a) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return reinterpret_cast<vf>(
      _mm512_maskz_cvt_roundepi32_ps(0xFFFF, reinterpret_cast<__m512i>(a), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  const vf f = __builtin_convertvector(a, vf);
  vi t;
#if SOFTMX_GEMM_BYTES == 32 && defined(__AVX__)
  t = reinterpret_cast<vi>(_mm256_cvttps_epi32(reinterpret_cast<__m256>(f)));
#elif SOFTMX_GEMM_BYTES == 16 && defined(__SSE2__)
  t = reinterpret_cast<vi>(_mm_cvttps_epi32(reinterpret_cast<__m128>(f)));
#else
  // No instruction named: the conversion of the lanes below 2^31 only (the rest are 2^31).
  const vi big = reinterpret_cast<vi>(f) >= 0x4F000000;
  t = big | __builtin_convertvector(reinterpret_cast<vf>(~big & reinterpret_cast<vi>(f)), vi);
#endif
  const vi up = (t > a) | (t < 0);
  return reinterpret_cast<vf>(reinterpret_cast<vi>(f) + up);
#endif
}

typedef float vfh __attribute__((vector_size(kBytes / 2)));  // kD floats

/// RZ(d) to 24 significant bits, for doubles 0 <= d < 2^53 that are integers: AVX-512's
/// conversion with its own rounding; otherwise the FPU's (round to nearest) stepped one code
/// toward zero where its value exceeds d (an f32 converts to double exactly).
SOFTMX_GEMM_INLINE vfh f32_rz(vd d) {
#if SOFTMX_GEMM_BYTES == 64 && defined(__AVX512F__)
  return reinterpret_cast<vfh>(_mm512_maskz_cvt_roundpd_ps(0xFF, reinterpret_cast<__m512d>(d), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  const vfh f = __builtin_convertvector(d, vfh);
  const vh up = __builtin_convertvector(__builtin_convertvector(f, vd) > d, vh);
  return reinterpret_cast<vfh>(reinterpret_cast<vh>(f) + up);
#endif
}

/// RZ(m) to 24 significant bits as an f32, for 64-bit lanes 0 <= m < 2^53: m = h 2^31 + l as
/// doubles (exact), each half of the lanes converted by f32_rz(vd).
SOFTMX_GEMM_INLINE vf f32_rz(vw m) {
  const vi h = to32(m >> 31), l = to32(m & 0x7FFFFFFF);
  vh hh[2], lh[2];
  std::memcpy(hh, &h, sizeof hh);
  std::memcpy(lh, &l, sizeof lh);
  vfh f[2];
  for (int x = 0; x < 2; ++x)
    f[x] = f32_rz(__builtin_convertvector(hh[x], vd) * 0x1p31 + __builtin_convertvector(lh[x], vd));
  vf r;
  std::memcpy(&r, f, sizeof r);
  return r;
}

/// to_grid under rz for a sum below 2^31 (vi) or 2^53 (vw) in magnitude and p <= 23 (the
/// float route's group end): RZ to 24 bits (f32_rz) cut to p + 1 bits is the RZ to p + 1 bits
/// (truncations compose), and the f32's exponent is floor(log2 |sum|) (a truncation never
/// reaches the next power of two). Lanes whose sum is zero hold no meaningful value (the
/// caller overrides them).
template <class V>
SOFTMX_GEMM_INLINE GridLanes to_grid_rz(V sum, vi unit, const TcParams& P, vi& bad) {
  const vi neg = to32(lanes_neg(sum));
  const vi fb = reinterpret_cast<vi>(f32_rz(labs(sum)));
  const int drop = 23 - P.p;
  const vi L = ((fb >> 23) & 255) - 127;
  GridLanes g;
  g.kept = shr((fb & 0x7FFFFF) | 0x800000, splat(drop));
  const vi lead = unit + L;
  g.qe = lead - P.p;
  g.neg = neg;
  bad |= (lead < P.emin) | (lead > P.emax);
  return g;
}

/// A grid value (kept <= 2^24, on a grid of p = 23 inside f32's normal range) as its f32: the
/// conversion of kept (exact) with qe added to its exponent field, the sign set. Lanes outside
/// the normal range give some f32 (their outputs are marked for the reference already).
SOFTMX_GEMM_INLINE vf grid_f32(GridLanes x) {
  const vu k = reinterpret_cast<vu>(__builtin_convertvector(x.kept, vf));
  const vu e = reinterpret_cast<vu>(x.kept != 0) & (reinterpret_cast<vu>(x.qe) << 23);
  return reinterpret_cast<vf>((k + e) | (reinterpret_cast<vu>(x.neg) & 0x80000000u));
}

/// grid_add for f32's grid (p = 23, exponents -126 .. 127) under rne: the FPU's f32 addition
/// (round to nearest even, the MXCSR checked by the driver) of two normal f32s or zeros is the
/// exact sum rounded onto that grid; a sum below 2^-126 is a subnormal (the exact sum of two
/// multiples of 2^-149 is one, exact: exponent field 0) and one that rounds past the largest
/// is Inf (field 255): both marked bad, as to_grid does. A zero sum's sign is IEEE 754 6.3's
/// under rne: -0 only from two negative zeros, as grid_add's.
SOFTMX_GEMM_INLINE GridLanes grid_add_f32_rne(GridLanes a, GridLanes b, vi& bad) {
  const vi s = reinterpret_cast<vi>(grid_f32(a) + grid_f32(b));
  const vi ef = (s >> 23) & 255;
  const vi zero = (s & 0x7FFFFFFF) == 0;
  GridLanes g;
  g.kept = zero ? vi{} : ((s & 0x7FFFFF) | 0x800000);
  g.qe = ef - 150;
  g.neg = s >> 31;
  bad |= ~zero & ((ef == 0) | (ef == 255));
  return g;
}

template <int MR, int NV, bool ProdRef, bool Near, bool Wide, bool Diag>
void tc_tile(const TcTile& g) {
  typedef typename SumLanes<Wide>::type V;
  constexpr int kMax = Wide ? 63 : 31;
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  // A's element for output row r, column group v: broadcast, or (Diag) a vector of its own.
  auto A = [](const std::int32_t* p, std::uint32_t t, int r, int v) {
    return Diag ? load<vi>(p + t * NR + v * kF) : splat(p[t * AW + r]);
  };
  const TcParams& P = *g.prm;
  const std::int32_t* an = g.an;
  const std::int32_t* ae = g.ae;
  const std::uint8_t* as = g.as;
  const std::int32_t* bn = g.bn;
  const std::int32_t* be = g.be;
  const std::uint8_t* bs = g.bs;
  const float* afp = g.af;
  const float* bfp = g.bf;
  constexpr std::int32_t kNone = kZeroExponent;
  const vi rdm = splat(P.mode == Rounding::rd ? -1 : 0);
  // The group's rounding rz onto a grid of p <= 23 bits: to_grid_rz (32-bit sums). The
  // addition of r to the accumulator under rne on f32's own grid: the FPU's (grid_add_f32_rne).
  const bool rz32 = P.mode == Rounding::rz && P.p <= 23;
  const bool f32_grid = P.p == 23 && P.emin == -126 && P.emax == 127;
  const bool f32_rne_add = f32_grid && P.addend_mode == Rounding::rne;
  auto bit = [](vi mask, std::uint32_t b) { return mask & static_cast<std::int32_t>(b); };
  auto has = [](vi st, std::uint32_t b) { return (st & static_cast<std::int32_t>(b)) != 0; };
  for (std::size_t gi = 0; gi < g.groups; ++gi) {
    const TcGroup& gd = g.grp[gi];
    const std::uint32_t len = gd.len;
    vi E[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        vi st = load<vi>(g.state + at);
        if (gd.starts) {  // r starts as the accumulator (first_group) or empty (after_products)
          const vi keep = ~(splat(static_cast<std::int32_t>(kTcRSign | kTcRPresent)));
          st &= keep;
          if (!P.after) {
            st |= (has(st, kTcAccSign) & static_cast<std::int32_t>(kTcRSign)) |
                  (has(st, kTcAccPresent) & static_cast<std::int32_t>(kTcRPresent));
            store(g.r_kept + at, load<vi>(g.acc_kept + at));
            store(g.r_qe + at, load<vi>(g.acc_qe + at));
          } else {
            store(g.r_kept + at, vi{});
          }
          store(g.state + at, st);
        }
        // r's exponent (its leading bit; never below emin here) when it is a term.
        const vi rk = load<vi>(g.r_kept + at);
        const vi term = (P.addend_in_group ? has(st, kTcRPresent) : vi{}) & (rk != 0);
        E[r][v] = term ? load<vi>(g.r_qe + at) + floor_log2(rk) : splat(kNone);
      }
    // Pass 1: the largest alignment exponent of the group's products.
    for (std::uint32_t t = 0; t < len; ++t) {
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(be + t * NR + v * kF);
        if constexpr (ProdRef) {
          const vi bnv = load<vi>(bn + t * NR + v * kF);
          for (int r = 0; r < MR; ++r) {
            const vi prod = vabs(bnv * A(an, t, r, v));
            E[r][v] = vmax(E[r][v], bev + A(ae, t, r, v) - P.mamb + floor_log2(prod));
          }
        } else {
          for (int r = 0; r < MR; ++r) E[r][v] = vmax(E[r][v], bev + A(ae, t, r, v));
        }
      }
    }
    // The zero exponent: a floor on E (tensor_core.hpp step 4), after noting which outputs
    // have a non-zero term at all.
    vi Any[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        Any[r][v] = E[r][v] > kNone / 2;
        E[r][v] = vmax(E[r][v], splat(P.zfloor));
      }
    // Pass 2: the cut products, summed exactly.
    V S[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) S[r][v] = V{};
    bool fast = false;
    if constexpr (!ProdRef && !Near) {
      if (afp) {
        // The float route (kernel_api.hpp, TcTile::af; docs/ARCHITECTURE.md, "Exact routes and
        // their proofs"): each product's term trunc(n_a n_b 2^(e_a + e_b - E - cr)) is
        // trunc(af * bf * 2^k), k = RA + RB - E - cr, every step exact in f32 (or the value
        // below 1), and the conversion truncates toward zero with the product's sign.
        vf sc[MR][NV];
        for (int r = 0; r < MR; ++r)
          for (int v = 0; v < NV; ++v) {
            const vi ra = Diag ? load<vi>(g.ra + gi * NR + v * kF) : splat(g.ra[gi * AW + r]);
            const vi k = ra + load<vi>(g.rb + gi * NR + v * kF) - E[r][v] - P.cr;
            sc[r][v] = reinterpret_cast<vf>(vmin(vmax(k + 127, splat(0)), splat(254)) << 23);
          }
        const float* af = afp;
        const float* bf = bfp;
        for (std::uint32_t t0 = 0; t0 < len; t0 += P.fl) {
          const std::uint32_t t1 = t0 + P.fl < len ? t0 + P.fl : len;
          vi part[MR][NV];
          for (int r = 0; r < MR; ++r)
            for (int v = 0; v < NV; ++v) part[r][v] = vi{};
          for (std::uint32_t t = t0; t < t1; ++t) {
            for (int v = 0; v < NV; ++v) {
              const vf bv = load<vf>(bf + t * NR + v * kF);
              for (int r = 0; r < MR; ++r) {
                const vf av = Diag ? load<vf>(af + t * NR + v * kF) : splat(af[t * AW + r]);
                part[r][v] += __builtin_convertvector((av * bv) * sc[r][v], vi);
              }
            }
          }
          for (int r = 0; r < MR; ++r)
            for (int v = 0; v < NV; ++v) S[r][v] += from32<V>(part[r][v]);
        }
        fast = true;
      }
    }
    for (std::uint32_t t = 0; t < (fast ? 0 : len); ++t) {
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(be + t * NR + v * kF);
        const vi bnv = load<vi>(bn + t * NR + v * kF);
        for (int r = 0; r < MR; ++r) {
          const vi prod = bnv * A(an, t, r, v);
          const vi d = E[r][v] - (bev + A(ae, t, r, v));
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
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        vi st = load<vi>(g.state + at);
        const GridLanes rv{load<vi>(g.r_kept + at), load<vi>(g.r_qe + at), has(st, kTcRSign)};
        const vi rpres = has(st, kTcRPresent);
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
        if (any_lane(lonely)) {
          for (int l = 0; l < kF; ++l) {
            if (!lonely[l]) continue;
            const int col = v * kF + l;
            bool allneg = true, allpos = true;
            if (P.addend_in_group && rpres[l]) (rv.neg[l] ? allpos : allneg) = false;
            for (std::uint32_t t = 0; t < len; ++t) {
              const std::uint8_t sa = Diag ? as[t * NR + col] : as[t * MR + r];
              if (sa == kTcAbsent) continue;
              ((sa ^ bs[t * NR + col]) & 1 ? allpos : allneg) = false;
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
        st = (st & ~splat(static_cast<std::int32_t>(kTcRSign))) | bit(gv.neg, kTcRSign) |
             static_cast<std::int32_t>(kTcRPresent) | bit(bad, kTcReference);
        store(g.r_kept + at, gv.kept);
        store(g.r_qe + at, gv.qe);
        if (gd.ends) {
          GridLanes acc = gv;
          if (P.after) {
            const GridLanes av{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), has(st, kTcAccSign)};
            const vi apres = has(st, kTcAccPresent);
            vi abad = vi{};
            const GridLanes added = f32_rne_add ? grid_add_f32_rne(av, gv, abad) : grid_add(av, gv, P.addend_mode, P, abad);
            acc.kept = apres ? added.kept : gv.kept;
            acc.qe = apres ? added.qe : gv.qe;
            acc.neg = apres ? added.neg : gv.neg;
            st |= bit(abad & apres, kTcReference);
          }
          st = (st & ~splat(static_cast<std::int32_t>(kTcAccSign))) | bit(acc.neg, kTcAccSign) |
               static_cast<std::int32_t>(kTcAccPresent);
          store(g.acc_kept + at, acc.kept);
          store(g.acc_qe + at, acc.qe);
        }
        store(g.state + at, st);
      }
    if (afp) {
      afp += static_cast<std::size_t>(len) * AW;
      bfp += static_cast<std::size_t>(len) * NR;
    }
    an += static_cast<std::size_t>(len) * AW;
    ae += static_cast<std::size_t>(len) * AW;
    as += static_cast<std::size_t>(len) * AW;
    bn += static_cast<std::size_t>(len) * NR;
    be += static_cast<std::size_t>(len) * NR;
    bs += static_cast<std::size_t>(len) * NR;
  }
}

/// tc_tile for the configuration of every published FP8 model (TcParams: the float route,
/// rz onto a grid of p <= 23 bits, C as a term of the group, F <= 29, sums within to_grid_rz's
/// range, and C after the products only by grid_add_f32_rne): the same steps as tc_tile, with
/// the instruction's running value r held as its f32 (r_kept's lanes hold its bits; r_qe is
/// not used). r is never live across chunks (each chunk is whole instructions) and the
/// accumulator keeps tc_tile's form, so a chunk may take either kernel. Per group: r's
/// exponent is its f32's; r's term is the truncating conversion of r 2^(F - E), formed by
/// moving r's exponent field (below 2^(F + 1) <= 2^30, as r takes part in E; where the field
/// would drop below 1 the value is below 2^-126 and its term 0); the group's sum is rounded by
/// f32_rz, and the result r' = RZ(S) 2^(E - F) is that f32 with E - F added to its exponent
/// field (exact where lead lies in emin .. emax; elsewhere the output is marked). Under rz a
/// zero sum is +0 unless no term is non-zero and every zero product (and r) is negative.
template <int MR, int NV, bool Wide, bool Diag>
void tc_tile_rz(const TcTile& g) {
  typedef typename SumLanes<Wide>::type V;
  constexpr int NR = NV * kF;
  constexpr int AW = Diag ? NR : MR;
  auto A = [](const std::int32_t* p, std::uint32_t t, int r, int v) {
    return Diag ? load<vi>(p + t * NR + v * kF) : splat(p[t * AW + r]);
  };
  const TcParams& P = *g.prm;
  const std::int32_t* ae = g.ae;
  const std::uint8_t* as = g.as;
  const std::int32_t* be = g.be;
  const std::uint8_t* bs = g.bs;
  const float* af = g.af;
  const float* bf = g.bf;
  constexpr std::int32_t kNone = kZeroExponent;
  const vi fmask = splat(~((std::int32_t{1} << (23 - P.p)) - 1));  // the fraction bits of p
  auto bit = [](vi mask, std::uint32_t b) { return mask & static_cast<std::int32_t>(b); };
  auto has = [](vi st, std::uint32_t b) { return (st & static_cast<std::int32_t>(b)) != 0; };
  auto exp_add = [](vi bits, vi d) {  // bits with d added to the exponent field (unsigned lanes)
    return reinterpret_cast<vi>(reinterpret_cast<vu>(bits) + (reinterpret_cast<vu>(d) << 23));
  };
  for (std::size_t gi = 0; gi < g.groups; ++gi) {
    const TcGroup& gd = g.grp[gi];
    const std::uint32_t len = gd.len;
    vi E[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        vi st = load<vi>(g.state + at);
        if (gd.starts) {  // r starts as the accumulator (first_group) or empty (after_products)
          st &= ~(splat(static_cast<std::int32_t>(kTcRSign | kTcRPresent)));
          vi rb = vi{};
          if (!P.after) {
            st |= has(st, kTcAccPresent) & static_cast<std::int32_t>(kTcRPresent);
            rb = reinterpret_cast<vi>(
                grid_f32(GridLanes{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), has(st, kTcAccSign)}));
          }
          store(g.r_kept + at, rb);
          store(g.state + at, st);
        }
        const vi mag = load<vi>(g.r_kept + at) & 0x7FFFFFFF;
        E[r][v] = (has(st, kTcRPresent) & (mag != 0)) ? (mag >> 23) - 127 : splat(kNone);
      }
    for (std::uint32_t t = 0; t < len; ++t)
      for (int v = 0; v < NV; ++v) {
        const vi bev = load<vi>(be + t * NR + v * kF);
        for (int r = 0; r < MR; ++r) E[r][v] = vmax(E[r][v], bev + A(ae, t, r, v));
      }
    vi Any[MR][NV];
    vf sc[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        Any[r][v] = E[r][v] > kNone / 2;
        E[r][v] = vmax(E[r][v], splat(P.zfloor));
        const vi ra = Diag ? load<vi>(g.ra + gi * NR + v * kF) : splat(g.ra[gi * AW + r]);
        const vi k = ra + load<vi>(g.rb + gi * NR + v * kF) - E[r][v] - P.cr;
        sc[r][v] = reinterpret_cast<vf>(vmin(vmax(k + 127, splat(0)), splat(254)) << 23);
      }
    V S[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) S[r][v] = V{};
    for (std::uint32_t t0 = 0; t0 < len; t0 += P.fl) {
      const std::uint32_t t1 = t0 + P.fl < len ? t0 + P.fl : len;
      vi part[MR][NV];
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) part[r][v] = vi{};
      for (std::uint32_t t = t0; t < t1; ++t)
        for (int v = 0; v < NV; ++v) {
          const vf bv = load<vf>(bf + t * NR + v * kF);
          for (int r = 0; r < MR; ++r) {
            const vf av = Diag ? load<vf>(af + t * NR + v * kF) : splat(af[t * AW + r]);
            part[r][v] += __builtin_convertvector((av * bv) * sc[r][v], vi);
          }
        }
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) S[r][v] += from32<V>(part[r][v]);
    }
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
        vi st = load<vi>(g.state + at);
        const vi rb = load<vi>(g.r_kept + at);
        const vi rpres = has(st, kTcRPresent);
        const vi e = E[r][v];
        // r's term: trunc(r 2^(F - E)) with r's sign.
        const vi mag = rb & 0x7FFFFFFF;
        const vi ok = rpres & (mag != 0) & (((mag >> 23) + (P.F - e)) >= 1);
        const vi aterm = __builtin_convertvector(reinterpret_cast<vf>(ok & exp_add(rb, P.F - e)), vi);
        const V sum = S[r][v] + from32<V>(aterm);
        const vi zero = to32(lanes_zero(sum));
        const vi fb = reinterpret_cast<vi>(f32_rz(labs(sum))) & fmask;
        const vi lead = ((fb >> 23) & 255) - 127 + (e - P.F);
        const vi bad = ~zero & ((lead < P.emin) | (lead > P.emax));
        vi nb = ~zero & (exp_add(fb, e - P.F) | (to32(lanes_neg(sum)) & static_cast<std::int32_t>(0x80000000u)));
        const vi lonely = zero & ~Any[r][v];  // every term zero: the zero products (and r) decide the sign
        if (any_lane(lonely)) {
          for (int l = 0; l < kF; ++l) {
            if (!lonely[l]) continue;
            const int col = v * kF + l;
            bool allneg = !(rpres[l] && rb[l] >= 0);
            for (std::uint32_t t = 0; t < len && allneg; ++t) {
              const std::uint8_t sa = Diag ? as[t * NR + col] : as[t * MR + r];
              if (sa == kTcAbsent) continue;
              allneg = ((sa ^ bs[t * NR + col]) & 1) != 0;
            }
            nb[l] = allneg ? static_cast<std::int32_t>(0x80000000u) : 0;
          }
        }
        st |= static_cast<std::int32_t>(kTcRPresent) | bit(bad, kTcReference);
        store(g.r_kept + at, nb);
        if (gd.ends) {
          vi res = nb;
          if (P.after) {  // acc + r under rne on f32's grid (grid_add_f32_rne)
            const vi apres = has(st, kTcAccPresent);
            const vf acc = grid_f32(GridLanes{load<vi>(g.acc_kept + at), load<vi>(g.acc_qe + at), has(st, kTcAccSign)});
            const vi s = reinterpret_cast<vi>(acc + reinterpret_cast<vf>(nb));
            const vi ef = (s >> 23) & 255;
            st |= bit(apres & ((s & 0x7FFFFFFF) != 0) & ((ef == 0) | (ef == 255)), kTcReference);
            res = apres ? s : nb;
          }
          const vi rz = (res & 0x7FFFFFFF) == 0;
          const vi ef = (res >> 23) & 255;
          store(g.acc_kept + at, ~rz & shr((res & 0x7FFFFF) | 0x800000, splat(23 - P.p)));
          store(g.acc_qe + at, ef - 127 - P.p);
          st = (st & ~splat(static_cast<std::int32_t>(kTcAccSign))) | bit(res >> 31, kTcAccSign) |
               static_cast<std::int32_t>(kTcAccPresent);
        }
        store(g.state + at, st);
      }
    ae += static_cast<std::size_t>(len) * AW;
    as += static_cast<std::size_t>(len) * AW;
    be += static_cast<std::size_t>(len) * NR;
    bs += static_cast<std::size_t>(len) * NR;
    af += static_cast<std::size_t>(len) * AW;
    bf += static_cast<std::size_t>(len) * NR;
  }
}

// ---- GST-FDPA -------------------------------------------------------------------------------

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
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
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
        const std::size_t at = static_cast<std::size_t>(r) * g.stride + static_cast<std::size_t>(v) * kF;
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

// ---- the table ------------------------------------------------------------------------------

template <int MR, int NV, bool Diag>
void fill_seq(SeqFn* out) {
  out[static_cast<int>(Rounding::rne)] = seq_tile<MR, NV, Rounding::rne, Diag>;
  out[static_cast<int>(Rounding::rna)] = seq_tile<MR, NV, Rounding::rna, Diag>;
  out[static_cast<int>(Rounding::rz)] = seq_tile<MR, NV, Rounding::rz, Diag>;
  out[static_cast<int>(Rounding::ru)] = seq_tile<MR, NV, Rounding::ru, Diag>;
  out[static_cast<int>(Rounding::rd)] = seq_tile<MR, NV, Rounding::rd, Diag>;
  out[static_cast<int>(Rounding::ro)] = seq_tile<MR, NV, Rounding::ro, Diag>;
}

template <int MR, int NV, bool Diag>
void fill_tc(TcFn (*out)[2][2]) {
  out[0][0][0] = tc_tile<MR, NV, false, false, false, Diag>;
  out[0][1][0] = tc_tile<MR, NV, false, true, false, Diag>;
  out[1][0][0] = tc_tile<MR, NV, true, false, false, Diag>;
  out[1][1][0] = tc_tile<MR, NV, true, true, false, Diag>;
  out[0][0][1] = tc_tile<MR, NV, false, false, true, Diag>;
  out[0][1][1] = tc_tile<MR, NV, false, true, true, Diag>;
  out[1][0][1] = tc_tile<MR, NV, true, false, true, Diag>;
  out[1][1][1] = tc_tile<MR, NV, true, true, true, Diag>;
}

/// The table: MR x NV-vector tiles for the GEMM, 1 x NV-vector tiles of pairs (Diag: output
/// lane l is the dot of A's and B's vector l) for dot_pairs.
template <int EMR, int ENV, int SMR, int SNV, int TMR, int TNV, int GMR = TMR, int GNV = TNV>
Kernels make_kernels() {
  Kernels k{};
  k.exact_mr = EMR;
  k.exact_nr = ENV * kD;
  k.exact = exact_tile<EMR, ENV, false, false>;
  k.exact_narrow = exact_tile<EMR, ENV, false, true>;
  k.seq_mr = SMR;
  k.seq_nr = SNV * kF;
  fill_seq<SMR, SNV, false>(k.seq);
  k.tc_mr = TMR;
  k.tc_nr = TNV * kF;
  fill_tc<TMR, TNV, false>(k.tc);
  k.tc_rz[0] = tc_tile_rz<TMR, TNV, false, false>;
  k.tc_rz[1] = tc_tile_rz<TMR, TNV, true, false>;
  k.gst_mr = GMR;
  k.gst_nr = GNV * kF;
  k.gst = gst_tile<GMR, GNV, false>;
  k.exact_pairs = exact_tile<1, ENV, true, false>;
  k.exact_pairs_narrow = exact_tile<1, ENV, true, true>;
  fill_seq<1, SNV, true>(k.seq_pairs);
  fill_tc<1, TNV, true>(k.tc_pairs);
  k.tc_rz_pairs[0] = tc_tile_rz<1, TNV, false, true>;
  k.tc_rz_pairs[1] = tc_tile_rz<1, TNV, true, true>;
  k.gst_pairs = gst_tile<1, GNV, true>;
  return k;
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
