// emulator/simd/lanes.hpp: the round-and-pack of core/round_pack.hpp, N lanes at a time
// (internal; included by one translation unit per instruction set, simd/isa_*.cpp).
//
// Each isa_*.cpp defines SOFTMX_SIMD_NS (a namespace private to it, so that nothing compiled
// for AVX-512 can be merged by the linker into code that runs on a CPU without it) and
// SOFTMX_SIMD_LANES (N: 16 for AVX-512, 8 for AVX2), and is compiled
// with the matching -m flags. The code is GNU vector extensions, which GCC and Clang lower to
// the instruction set in force: one source for every ISA, as one round_pack serves every format.
//
// The lane algorithm (SEMANTICS 2-5; read round_pack_inline beside it). A source code
// sign | exponent e | fraction (f32, f16, bf16; descriptor fields from the Plan) becomes
//   sig = (fraction | implicit bit) << (23 - m_src)     a 24-bit significand, bit 23 = 2^E
//   E   = max(e, 1) - bias_src
// so |x| = sig * 2^(E - 23). With Plan::normalize the significand is shifted so that bit 23 is
// its leading one (through an exact int -> float conversion) and E adjusted; without it, a
// source subnormal keeps E = emin_src, which make_plan allows only when emin_src <= emin - 2 so
// that quantum and tininess come out the same. The result's quantum is 2^(max(E, emin) - m):
//   sh   = min(23 - m + max(emin - E, 0), 25)           bits of sig below the quantum
//   n    = (sig + r) >> sh,  r the mode's addend below the quantum (round_pack_lanes)
// (sh = 25 puts all of sig, < 2^24, below half a quantum: the same verdict as any larger sh for
// every deterministic mode). The packed magnitude is base + n with
//   base = (max(E, emin) + bias - 1) << m
// (the exponent field and the hidden bit add, as in round_pack_inline).
//
// The destination is a template argument D: a named format (D = its FormatId), whose descriptor
// fields are compile-time constants (DstTraits<D>), or a runtime format (D = runtime_dst(...),
// which fixes only its sign encoding and storage type), whose fields the same code reads from
// the LanePlan at run time. One algorithm serves both; `if constexpr` only drops operations a
// named format's constants make unnecessary.
//
// Lanes decided by a class (zeros, infinities, NaNs, E8M0 negatives under the nan policy) take
// the Plan's precomputed result. Lanes handed to the scalar kernel: a NaN whose payload
// reaches the result (!nan_by_class); under tininess after rounding, a value in the binade
// just below 2^emin that rounds up to the smallest normal (only rounding to full precision can
// tell whether it is tiny); an E8M0 value at or below 2^-127 (its own rules, SEMANTICS 5.4).
// All are rare; a batch of them costs the scalar time.
//
// Why one long file (over 800 lines): it is one template family, compiled once per instruction
// set under the namespace SOFTMX_SIMD_NS that its includer defines. Every kernel here (the
// general VectorKernel, the FPU-rounded RneFloatKernel, E8M0, the consecutive sweeps and the
// pickers at the end) instantiates the same lane helpers and DstTraits with the same macros;
// cut into headers, each piece would need the same include guard dance around SOFTMX_SIMD_NS
// and would still be read together. The fused sweep (sweep_lanes.hpp) and the block kernel
// (block_lanes.hpp) are already their own headers because they stand apart.

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/format_table.hpp"
#include "simd/plan.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef SOFTMX_SIMD_NS
#error "define SOFTMX_SIMD_NS and SOFTMX_SIMD_LANES before including simd/lanes.hpp"
#endif

#define SOFTMX_LANES_INLINE inline __attribute__((always_inline))

namespace softmx::simd::SOFTMX_SIMD_NS {

constexpr int N = SOFTMX_SIMD_LANES;
typedef std::uint32_t u32v __attribute__((vector_size(4 * N)));
typedef std::int32_t i32v __attribute__((vector_size(4 * N)));
typedef float f32v __attribute__((vector_size(4 * N)));
typedef std::uint16_t u16v __attribute__((vector_size(2 * N)));
typedef std::uint8_t u8v __attribute__((vector_size(N)));

SOFTMX_LANES_INLINE u32v splat(std::uint32_t x) { return u32v{} + x; }
SOFTMX_LANES_INLINE i32v splat_i(std::int32_t x) { return i32v{} + x; }
// The vector ?: (GCC and Clang, C++) lets the compiler use blends, masked operations and
// min/max instructions; the bitwise form (m & a) | (~m & b) defeats that.
/// mask ? a : b, lane by lane (mask lanes all ones or all zeros).
SOFTMX_LANES_INLINE u32v sel(i32v mask, u32v a, u32v b) { return mask ? a : b; }
SOFTMX_LANES_INLINE i32v maxi(i32v a, i32v b) { return a > b ? a : b; }
SOFTMX_LANES_INLINE i32v mini(i32v a, i32v b) { return a < b ? a : b; }
/// 1 where the mask is set, else 0.
SOFTMX_LANES_INLINE u32v bit(i32v mask) { return mask ? splat(1) : splat(0); }

/// The lanes whose mask is set, as bits (lane i = bit i).
SOFTMX_LANES_INLINE unsigned lane_bits(i32v mask) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_movepi32_mask(reinterpret_cast<__m512i>(mask));
#elif defined(__AVX__) && SOFTMX_SIMD_LANES == 8
  return static_cast<unsigned>(_mm256_movemask_ps(reinterpret_cast<__m256>(mask)));
#else
  unsigned b = 0;
  for (int i = 0; i < N; ++i) b |= (mask[i] != 0 ? 1u : 0u) << i;
  return b;
#endif
}

/// A runtime destination's template argument: its sign encoding and whether codes are stored
/// in 16 bits (else 8); everything else is read from the LanePlan.
inline constexpr int kRuntimeDst = 64;
constexpr int runtime_dst(SignEncoding sign, bool wide) { return kRuntimeDst + 2 * static_cast<int>(sign) + (wide ? 1 : 0); }

/// What the lane code knows about destination D at compile time, and its fields: constants for
/// a named format, the LanePlan's values for a runtime one (D >= kRuntimeDst).
template <int D, bool Runtime = (D >= kRuntimeDst)>
struct DstTraits {
  static constexpr Format f = detail::kFormats[D];
  static constexpr bool runtime = false;
  static constexpr bool no_subnormals = !f.subnormals;  ///< E8M0: no zero, no subnormals
  static constexpr bool unsigned_dst = f.sign == SignEncoding::none;
  static constexpr bool twos = f.sign == SignEncoding::twos_complement;
  static constexpr bool wide = f.width > 8;
  static constexpr bool fixed_point = f.fixed_point;
  template <class Pl> static constexpr int m(const Pl&) { return f.man_bits; }
  template <class Pl> static constexpr int emin(const Pl&) { return f.emin(); }
  template <class Pl> static constexpr int bias(const Pl&) { return f.bias; }
  template <class Pl> static constexpr int width(const Pl&) { return f.width; }
  /// Underflow may be raised (not fixed point).
  template <class Pl> static constexpr bool underflows(const Pl&) { return true; }
};
template <int D>
struct DstTraits<D, true> {
  static constexpr int shape = D - kRuntimeDst;
  static constexpr SignEncoding sign = static_cast<SignEncoding>(shape / 2);
  static constexpr bool runtime = true;
  static constexpr bool no_subnormals = false;  // read at run time: LanePlan::emin_q, emin_fallback
  static constexpr bool unsigned_dst = sign == SignEncoding::none;
  static constexpr bool twos = sign == SignEncoding::twos_complement;
  static constexpr bool wide = (shape & 1) != 0;
  static constexpr bool fixed_point = false;  // read at run time: LanePlan::underflows
  template <class Pl> static int m(const Pl& p) { return p.m; }
  template <class Pl> static int emin(const Pl& p) { return p.emin; }
  template <class Pl> static int bias(const Pl& p) { return p.bias; }
  template <class Pl> static int width(const Pl& p) { return p.width; }
  template <class Pl> static bool underflows(const Pl& p) { return p.underflows; }
};
template <int D>
using OutOf = std::conditional_t<DstTraits<D>::wide, std::uint16_t, std::uint8_t>;

/// Finite non-zero values sign * sig * 2^(E - 23) rounded and packed into destination D (a
/// FormatId as int, whose descriptor fields are constants, or runtime_dst(...), whose fields
/// come from `p`). `sgn` is 0 or 1 per lane; `extra` is ORed into the flags. Sets `code`,
/// `flags` (when F) and ORs into `fallback` the lanes the scalar kernel must decide (when F:
/// only flags can need it). `Pl` holds the dialect's values (LanePlan below), read into
/// registers once per batch. NoEdge: the caller knows no lane has E == emin - 1 (the only
/// binade where tininess after rounding needs the full-precision rounding), which drops that test.
template <int D, Rounding R, bool F, class Pl, bool NoEdge = false>
SOFTMX_LANES_INLINE void round_pack_lanes(const Pl& p, u32v sgn, u32v sig, i32v E, u32v extra, u32v& code,
                                          u32v& flags, i32v& fallback) {
  using T = DstTraits<D>;
  const int m = T::m(p);
  const int emin = T::emin(p);
  // The exponent below which the quantum stops following E: emin, or (no subnormals) none.
  const int emin_q = T::runtime ? p.emin_q : emin;
  constexpr bool e8m0 = T::no_subnormals;
  const u32v one = splat(1);
  const i32v ex = e8m0 ? E : maxi(E, splat_i(emin_q));
  const i32v sh = e8m0 ? splat_i(23 - m) : mini(maxi(splat_i(emin_q + 23 - m) - E, splat_i(23 - m)), splat_i(25));
  const u32v shu = reinterpret_cast<u32v>(sh);
  const u32v n0 = sig >> shu;  // the significand truncated to the quantum
  const u32v unit = one << shu;
  const u32v half = unit >> 1;
  const u32v base = reinterpret_cast<u32v>((ex + (T::bias(p) - 1)) << m);
  // Rounding adds a mode-dependent amount below the quantum before truncating: half - 1 plus
  // the last bit (rne), half (rna), unit - 1 toward the sign's infinity (ru, rd). A carry out of
  // the significand reaches the exponent field through base + n, as in round_pack_inline.
  u32v n;
  if constexpr (R == Rounding::rne) {
    // The code's last bit decides ties; base is even unless m = 0 (E8M0), when ties may go up.
    const u32v odd = (m == 0 ? base + n0 : n0) & one;
    const u32v tie = (e8m0 || T::runtime) ? (odd | (reinterpret_cast<u32v>(p.ties_up) & one)) : odd;
    n = (sig + (half - one) + tie) >> shu;
  } else if constexpr (R == Rounding::rna) {
    n = (sig + half) >> shu;
  } else if constexpr (R == Rounding::rz) {
    n = n0;
  } else if constexpr (R == Rounding::ru) {
    n = sgn == 0 ? (sig + (unit - one)) >> shu : n0;
  } else if constexpr (R == Rounding::rd) {
    n = sgn != 0 ? (sig + (unit - one)) >> shu : n0;
  } else {  // ro: jam a one into an even truncated code when inexact
    const i32v inexact = (sig & (unit - one)) != 0;
    const u32v even = ((m == 0 ? base + n0 : n0) & one) ^ one;
    n = inexact ? n0 + even : n0;
  }
  const u32v mag = base + n;
  const i32v neg = reinterpret_cast<i32v>(sgn) != 0;
  // The two's complement -2 (0x80) is the only sign-dependent largest magnitude.
  const i32v ovf = T::twos ? mag > sel(neg, p.max_mag1, p.max_mag0) : mag > p.max_mag0;

  u32v packed;
  if constexpr (T::twos) {
    packed = sel(neg, (-mag) & splat((1u << T::width(p)) - 1), mag);
  } else if constexpr (T::unsigned_dst) {
    packed = mag;
  } else if constexpr (T::runtime) {
    // fnuz has no -0 (that code is its NaN): a zero result is +0 (not_fnuz: all ones otherwise).
    packed = ((sgn & reinterpret_cast<u32v>((mag != 0) | p.not_fnuz)) << (T::width(p) - 1)) | mag;
  } else {
    packed = (sgn << (T::width(p) - 1)) | mag;
  }
  code = sel(ovf, sel(neg, p.ovf1, p.ovf0), packed);

  if constexpr (e8m0) {
    fallback |= E <= splat_i(emin);  // SEMANTICS 5.4's rules at and below 2^-127
  } else if constexpr (T::runtime) {
    // The same for a runtime format without subnormals. (Scalar tests of LanePlan fields are
    // loop-invariant: the compiler unswitches the loop or predicts them.)
    if (p.emin_fallback != p.kFarBelow) fallback |= E <= splat_i(p.emin_fallback);
  }
  if constexpr (F) {
    const i32v inexact = (sig & (unit - one)) != 0;
    u32v fl = extra | bit(inexact);  // flag::inexact is bit 0
    if constexpr (!e8m0 && !T::fixed_point) {
      if (T::underflows(p)) {  // false only for a runtime fixed-point format
        if (p.tiny_bounded) {
          // Tininess::after_bounded: the delivered magnitude is a zero or a subnormal (field 0);
          // tiny_mag is 2^m, or 0 for a runtime format without subnormals (field 0 is normal).
          // Overflowing lanes take the overflow flags below.
          const u32v tiny_mag = T::runtime ? splat(p.tiny_mag) : splat(1u << m);
          fl |= bit((mag < tiny_mag) & inexact) << 1;  // flag::underflow is bit 1
        } else if constexpr (NoEdge) {
          // Tininess is the same for every lane here: inexact lanes get x, or x and u.
          const i32v tiny = E < splat_i(p.tiny_after ? emin - 1 : emin);
          const u32v inexact_flags = sel(tiny, splat(flag::inexact | flag::underflow), splat(flag::inexact));
          fl = extra | sel(inexact, inexact_flags, splat(0));
        } else {
          const i32v below = E == splat_i(emin - 1);
          const i32v tiny = p.tiny_after ? (E < splat_i(emin - 1)) | (below & (mag < splat(1u << m)))
                                         : E < splat_i(emin);
          fl |= bit(tiny & inexact) << 1;  // flag::underflow is bit 1
          // Just below 2^emin and rounded up to it: tiny or not depends on rounding to full
          // precision, which the scalar kernel does.
          if (p.tiny_after) fallback |= below & (mag >= splat(1u << m)) & inexact;
        }
      }
    }
    flags = sel(ovf, extra | splat(flag::overflow | flag::inexact), fl);
  }
}

/// True when some lane has a >= b (unsigned), without making a mask vector first.
SOFTMX_LANES_INLINE bool any_at_least(u32v a, u32v b) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_cmpge_epu32_mask(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b)) != 0;
#else
  return lane_bits(a >= b) != 0;
#endif
}

/// The lanes where a and b differ, as bits (lane i = bit i), without making a mask vector first.
SOFTMX_LANES_INLINE unsigned lanes_differ(u32v a, u32v b) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_cmpneq_epu32_mask(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b));
#else
  return lane_bits(a != b);
#endif
}

/// The Plan's per-dialect values as lane vectors and plain locals, made once per batch so that
/// the loop keeps them in registers.
struct LanePlan {
  u32v max_mag0, max_mag1, ovf0, ovf1;
  i32v ties_up;
  bool tiny_after, tiny_bounded;
  std::uint32_t tiny_mag;  ///< after_bounded: magnitude codes below it are tiny (runtime destinations)
  // A runtime destination's fields (DstTraits<runtime_dst(...)> reads them; named kernels do not).
  int m, emin, bias, width;
  int emin_q;         ///< emin, or far below every E without subnormals (the quantum follows E)
  int emin_fallback;  ///< without subnormals emin (SEMANTICS 5.4: lanes at or below it go scalar), else far below
  bool underflows;    ///< false for fixed point (underflow never raised)
  i32v not_fnuz;      ///< all ones unless fnuz (zero results drop their sign)
  explicit LanePlan(const Plan& p)
      : max_mag0(splat(p.max_mag[0])),
        max_mag1(splat(p.max_mag[1])),
        ovf0(splat(p.ovf_code[0])),
        ovf1(splat(p.ovf_code[1])),
        ties_up(splat_i(p.ties_up ? -1 : 0)),
        tiny_after(p.tiny_after),
        tiny_bounded(p.tiny_bounded),
        tiny_mag(p.rt.subnormals ? std::uint32_t{1} << p.rt.man_bits : 0),
        m(p.rt.man_bits),
        emin(p.rt.emin),
        bias(p.rt.bias),
        width(p.rt.width),
        emin_q(p.rt.subnormals ? p.rt.emin : kFarBelow),
        emin_fallback(p.rt.subnormals ? kFarBelow : p.rt.emin),
        underflows(!p.rt.fixed_point),
        not_fnuz(splat_i(p.rt.fnuz ? 0 : -1)) {}
  static constexpr int kFarBelow = -(1 << 20);
};

/// The result of a class (ClassResult) for each lane's sign.
SOFTMX_LANES_INLINE u32v by_sign(i32v neg, std::uint32_t plus, std::uint32_t minus) {
  return sel(neg, splat(minus), splat(plus));
}

/// Stores N lanes narrowed to the element type of `out` (codes: std::uint8_t or std::uint16_t;
/// flags: Flags).
template <class T>
SOFTMX_LANES_INLINE void store_codes(T* out, u32v v) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  // GCC lowers the generic narrowing below to one extract per lane on AVX2; pack instead (every
  // code and flags value is below 2^16, so the saturating packs are exact).
  const __m256i w = _mm256_packus_epi32(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(v));
  if constexpr (sizeof(T) == 1) {
    const __m256i b = _mm256_packus_epi16(w, w);  // bytes 0-3 (lanes 0-3) and 16-19 (lanes 4-7)
    const __m128i lo = _mm256_castsi256_si128(b), hi = _mm256_extracti128_si256(b, 1);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi32(lo, hi));
  } else {
    static_assert(sizeof(T) == 2);
    const __m256i q = _mm256_permute4x64_epi64(w, 0x08);  // 64-bit words 0 and 2: lanes 0-3, 4-7
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(q));
  }
  return;
#endif
  if constexpr (sizeof(T) == 1) {
    const u8v b = __builtin_convertvector(v, u8v);
    std::memcpy(out, &b, sizeof b);
  } else {
    static_assert(sizeof(T) == 2);
    const u16v h = __builtin_convertvector(v, u16v);
    std::memcpy(out, &h, sizeof h);
  }
}

/// One vector of source codes through the conversion into destination D: the per-batch
/// constants, made once (the loops below keep them in registers), and the per-vector step.
/// Norm: Plan::normalize. Scaled: each finite value is first multiplied by 2^-shift exactly
/// (block quantization's V / X), which needs Norm.
template <int D, Rounding R, bool F, bool Norm, bool Scaled>
struct VectorKernel {
  static_assert(Norm || !Scaled, "a scaled value's quantum follows its leading bit: normalise");
  using T = DstTraits<D>;
  static_assert(Norm || !T::runtime, "runtime destinations always normalise");
  static constexpr bool e8m0 = T::no_subnormals;
  static constexpr bool unsigned_dst = T::unsigned_dst;
  const Plan& p;
  const LanePlan lp;
  const u32v src_m, src_sign_shift, src_mag_mask, src_frac_mask, src_implicit, src_align, src_quiet, src_inf_minus_1;
  const i32v src_bias, src_exp_max;
  const bool nan_by_class, neg_const;
  const u32v neg_extra;

  explicit VectorKernel(const Plan& plan)
      : p(plan),
        lp(plan),
        src_m(splat(static_cast<std::uint32_t>(plan.src_m))),
        src_sign_shift(splat(static_cast<std::uint32_t>(plan.src_width - 1))),
        src_mag_mask(splat((std::uint32_t{1} << (plan.src_width - 1)) - 1)),
        src_frac_mask(splat((std::uint32_t{1} << plan.src_m) - 1)),
        src_implicit(splat(std::uint32_t{1} << plan.src_m)),
        src_align(splat(static_cast<std::uint32_t>(23 - plan.src_m))),
        src_quiet(splat(std::uint32_t{1} << (plan.src_m - 1))),
        src_inf_minus_1(splat((static_cast<std::uint32_t>(plan.src_exp_max) << plan.src_m) - 1)),
        src_bias(splat_i(plan.src_bias)),
        src_exp_max(splat_i(plan.src_exp_max)),
        nan_by_class(plan.nan_by_class),
        neg_const(plan.neg_const),
        neg_extra(splat(plan.neg_extra)) {}

  /// Source codes x (widened to 32 bits) -> codes, flags (when F), and the lanes the scalar
  /// kernel must decide.
  SOFTMX_LANES_INLINE void operator()(u32v x, int shift, u32v& code, u32v& fl, i32v& fallback) const {
    u32v sgn = x >> src_sign_shift;
    const u32v a = x & src_mag_mask;
    const i32v e = reinterpret_cast<i32v>(a >> src_m);
    const u32v frac = a & src_frac_mask;
    u32v sig;
    i32v E = maxi(e, splat_i(1)) - src_bias;
    if constexpr (!Norm) {
      // The implicit bit is set for source subnormals too: make_plan skips normalising only
      // when every source subnormal, and that bogus value below 2^(emin_src + 1), lies below
      // half the destination's smallest subnormal, where both round and flag alike (inexact,
      // tiny, the same result in every mode). Zeros are decided by their class below.
      sig = (frac << src_align) | 0x800000;
    } else {
      sig = (frac | (reinterpret_cast<u32v>(e != 0) & src_implicit)) << src_align;
      // An exact int -> float conversion finds the leading one (sig < 2^24 is exact in f32).
      const u32v fb = reinterpret_cast<u32v>(__builtin_convertvector(reinterpret_cast<i32v>(sig), f32v));
      E += reinterpret_cast<i32v>(fb >> 23) - 150;
      sig = (fb & 0x7FFFFF) | 0x800000;
    }
    if constexpr (Scaled) E -= shift;
    u32v extra = splat(0);
    if constexpr (unsigned_dst) {
      extra = (splat(0) - sgn) & neg_extra;  // invalid for a negative under E8m0Negative::magnitude
      sgn = splat(0);                        // the magnitude is rounded (or the neg class decides)
    }
    fallback = splat_i(0);
    round_pack_lanes<D, R, F>(lp, sgn, sig, E, extra, code, fl, fallback);
    // E8M0 (no subnormals: the quantum follows the leading bit) reads source normals as they
    // are and hands source subnormals to the scalar kernel.
    if constexpr (e8m0 && !Norm) fallback |= e == 0;

    // Zeros, infinities and NaNs take their class's result (indexed by the input's sign).
    // One unsigned compare finds zeros (a - 1 wraps) and Inf/NaN (a >= the Inf code).
    i32v decided = splat_i(0);
    i32v nan_lanes = splat_i(0);  // NaNs whose payload reaches the result
    if (any_at_least(a - 1, src_inf_minus_1)) [[unlikely]] {
      decided = (a - 1) >= src_inf_minus_1;
      const i32v special = e == src_exp_max;
      const i32v is_zero = a == 0;
      const i32v neg_in = reinterpret_cast<i32v>(x >> src_sign_shift) != 0;
      const i32v is_nan = special & (reinterpret_cast<i32v>(frac) != 0);
      const i32v quiet = reinterpret_cast<i32v>(frac & src_quiet) != 0;
      const u32v nan_code = sel(quiet, by_sign(neg_in, p.qnan.code[0], p.qnan.code[1]),
                                by_sign(neg_in, p.snan.code[0], p.snan.code[1]));
      const u32v special_code = sel(is_nan, nan_code, by_sign(neg_in, p.inf.code[0], p.inf.code[1]));
      code = sel(special, special_code, sel(is_zero, by_sign(neg_in, p.zero.code[0], p.zero.code[1]), code));
      if constexpr (F) {
        const u32v nan_fl = sel(quiet, by_sign(neg_in, p.qnan.flags[0], p.qnan.flags[1]),
                                by_sign(neg_in, p.snan.flags[0], p.snan.flags[1]));
        const u32v special_fl = sel(is_nan, nan_fl, by_sign(neg_in, p.inf.flags[0], p.inf.flags[1]));
        fl = sel(special, special_fl, sel(is_zero, by_sign(neg_in, p.zero.flags[0], p.zero.flags[1]), fl));
      }
      if (!nan_by_class) nan_lanes = is_nan;
    }
    if constexpr (unsigned_dst) {
      if (neg_const) {
        const i32v neg_lane = (reinterpret_cast<i32v>(x >> src_sign_shift) != 0) & ~decided;
        code = sel(neg_lane, splat(p.neg.code[1]), code);
        if constexpr (F) fl = sel(neg_lane, splat(p.neg.flags[1]), fl);
        decided |= neg_lane;
      }
    }
    fallback = (fallback & ~decided) | nan_lanes;
  }

  /// The scalar reference for one lane.
  Result scalar(std::uint64_t bits, int shift) const { return Scaled ? scaled_scalar(p, bits, shift) : p.call(bits); }
};

/// n source codes (In: std::uint32_t for a 32-bit source, std::uint16_t for 16) from `in`,
/// widened to 32 bits, N at a time.
SOFTMX_LANES_INLINE u32v load_lanes(const void* in, std::size_t i, bool in32) {
  u32v x;
  if (in32) {
    std::memcpy(&x, static_cast<const std::uint32_t*>(in) + i, sizeof x);
  } else {
    u16v h;
    std::memcpy(&h, static_cast<const std::uint16_t*>(in) + i, sizeof h);
    x = __builtin_convertvector(h, u32v);
  }
  return x;
}

SOFTMX_LANES_INLINE std::uint64_t load_one(const void* in, std::size_t i, bool in32) {
  return in32 ? static_cast<const std::uint32_t*>(in)[i] : static_cast<const std::uint16_t*>(in)[i];
}

/// Converts n source codes (std::uint32_t for f32, std::uint16_t for f16 and bf16) into
/// destination D's codes (std::uint8_t, std::uint16_t for f16 and bf16), with flags when F;
/// scaled kernels divide by 2^shift first (see VectorKernel).
template <int D, Rounding R, bool F, bool Norm, bool Scaled = false>
void convert_batch(const Plan& plan, const void* in, void* out_v, Flags* flags_out, std::size_t n, int shift) {
  using Out = OutOf<D>;
  Out* out = static_cast<Out*>(out_v);
  const VectorKernel<D, R, F, Norm, Scaled> k(plan);
  const bool in32 = plan.src_width == 32;
  auto scalar = [&](std::size_t j) {
    const Result r = k.scalar(load_one(in, j, in32), shift);
    out[j] = static_cast<Out>(r.code);
    if constexpr (F) flags_out[j] = r.flags;
  };
  // Without flags, only E8M0's low end (or a runtime format's without subnormals) and
  // payload-carrying NaNs ever need the scalar kernel.
  const bool may_fall_back = F || VectorKernel<D, R, F, Norm, Scaled>::e8m0 || !plan.nan_by_class ||
                             (DstTraits<D>::runtime && !plan.rt.subnormals);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v code, fl{};
    i32v fallback;
    k(load_lanes(in, i, in32), shift, code, fl, fallback);
    store_codes(out + i, code);
    if constexpr (F) store_codes(flags_out + i, fl);
    if (!may_fall_back) continue;
    if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
      for (; lanes; lanes &= lanes - 1) scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
    }
  }
  for (; i < n; ++i) scalar(i);
}

/// True when the floating-point unit rounds to nearest-even with gradual underflow (MXCSR's
/// defaults), which convert_rne_float relies on. Read, never changed.
inline bool fpu_is_default() {
#if defined(__SSE__)
  return (_mm_getcsr() & 0xE040u) == 0;  // rounding control 00, FTZ (bit 15) and DAZ (bit 6) off
#else
  return false;
#endif
}

/// N lanes, four times, stored as 4N codes (T: std::uint8_t or std::uint16_t, every value below
/// 2^(8 sizeof(T))). On AVX2 the four vectors share their narrowing: two saturating packs and
/// one permutation give 32 bytes (one store) where store_codes takes five instructions a vector.
template <class T>
SOFTMX_LANES_INLINE void store_codes4(T* out, u32v c0, u32v c1, u32v c2, u32v c3) {
#if defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  // packus_epi32 interleaves the 128-bit halves: [c0 lanes 0-3, c1 0-3, c0 4-7, c1 4-7].
  const __m256i w01 = _mm256_packus_epi32(reinterpret_cast<__m256i>(c0), reinterpret_cast<__m256i>(c1));
  const __m256i w23 = _mm256_packus_epi32(reinterpret_cast<__m256i>(c2), reinterpret_cast<__m256i>(c3));
  if constexpr (sizeof(T) == 1) {
    // Bytes in 32-bit groups: c0 0-3, c1 0-3, c2 0-3, c3 0-3, c0 4-7, c1 4-7, c2 4-7, c3 4-7.
    const __m256i b = _mm256_packus_epi16(w01, w23);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(b, order));
  } else {
    static_assert(sizeof(T) == 2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute4x64_epi64(w01, 0xD8));  // 64-bit words 0 2 1 3
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * N), _mm256_permute4x64_epi64(w23, 0xD8));
  }
  return;
#endif
  store_codes(out, c0);
  store_codes(out + N, c1);
  store_codes(out + 2 * N, c2);
  store_codes(out + 3 * N, c3);
}

/// rne without flags from f32 (or bf16, widened by a shift) into a destination with
/// subnormals, using the FPU's own round-to-nearest-even for the destination's subnormal range
/// and the classic integer rounding of the f32 bit pattern for its normal range:
///   |x| <  2^emin: code = bits(|x| + 2^(emin - m + 23)) - bits(2^(emin - m + 23))
///                  (the f32 sum's last bit is worth one destination subnormal quantum);
///   |x| >= 2^emin: code = (bits + 2^(22 - m) - 1 + last kept bit) >> (23 - m), rebiased
///                  (a carry runs into the exponent field, as round_pack's base + n).
/// Zeros, infinities and NaNs take the Plan's class results (as VectorKernel); only a NaN whose
/// payload reaches the result (!nan_by_class) needs the scalar kernel. About half the operations
/// of the general kernel; same results (test_batch_simd*.cpp), and only used while the FPU is in
/// its default mode (fpu_is_default).
template <int D>
struct RneFloatKernel {
  using T = DstTraits<D>;
  static_assert(!T::no_subnormals);
  using Out = OutOf<D>;
  const Plan& p;
  const LanePlan lp;  // a runtime destination's fields (rne_float_serves checked them)
  const std::uint32_t magic, min_normal, rebias;
  const u32v max0, max1, ovf0, ovf1, neg_code;
  const bool ovf_is_max, neg_const;
  /// special(): lanes with (|x| - zero_off) >= special_min go to classes(). zero_off = 1 makes
  /// zeros wrap into them; 0 leaves zeros to operator(), when it gives the zero class's codes
  /// (checked in the constructor: +0 and -0 through operator()), which spares data with many
  /// zeros (activations after a ReLU) the classes() step.
  u32v zero_off = splat(1), special_min = splat(0x7F7FFFFFu);

  explicit RneFloatKernel(const Plan& plan)
      : p(plan),
        lp(plan),
        magic(static_cast<std::uint32_t>(T::emin(lp) - T::m(lp) + 23 + 127) << 23),
        min_normal(static_cast<std::uint32_t>(T::emin(lp) + 127) << 23),
        rebias(static_cast<std::uint32_t>(127 - T::bias(lp)) << T::m(lp)),
        max0(splat(plan.max_mag[0])),
        max1(splat(plan.max_mag[1])),
        ovf0(splat(plan.ovf_code[0])),
        ovf1(splat(plan.ovf_code[1])),
        neg_code(splat(plan.neg.code[1])),
        ovf_is_max(plan.ovf_is_max),
        neg_const(plan.neg_const) {
    u32v signed_zeros;  // +0 in even lanes, -0 in odd ones
    for (int j = 0; j < N; ++j) signed_zeros[j] = (j & 1) ? 0x80000000u : 0u;
    const u32v zeros = (*this)(signed_zeros);
    bool same = true;
    for (int j = 0; j < N; ++j) same = same && zeros[j] == p.zero.code[j & 1];
    if (same) zero_off = splat(0), special_min = splat(0x7F800000u);
  }

  /// Source codes as f32 bit patterns (bf16 already shifted up): the codes of finite lanes
  /// (non-zero ones; zeros too where the constructor found them right), the rest settled by
  /// classes().
  SOFTMX_LANES_INLINE u32v operator()(u32v x) const {
    const int m = T::m(lp);
    const u32v a = x & 0x7FFFFFFFu;
    const u32v sub = reinterpret_cast<u32v>(reinterpret_cast<f32v>(a) + reinterpret_cast<f32v>(splat(magic))) - magic;
    const u32v nor = ((a + ((1u << (22 - m)) - 1) + ((a >> (23 - m)) & 1u)) >> (23 - m)) - rebias;
    const u32v mag = a < min_normal ? sub : nor;
    const i32v neg = reinterpret_cast<i32v>(x) < 0;
    u32v code;
    if constexpr (T::twos) {
      const u32v lim = neg ? max1 : max0;
      const u32v c = mag > lim ? lim : mag;
      code = neg ? (-c) & ((1u << T::width(lp)) - 1) : c;
    } else if constexpr (T::unsigned_dst) {
      code = mag > max0 ? max0 : mag;  // the magnitude (or the negative class, below)
    } else if constexpr (T::runtime) {
      const u32v c = mag > max0 ? max0 : mag;
      code = c | (((x >> 31) & reinterpret_cast<u32v>((c != 0) | lp.not_fnuz)) << (T::width(lp) - 1));
    } else {
      code = (mag > max0 ? max0 : mag) | ((x >> 31) << (T::width(lp) - 1));
    }
    if (!ovf_is_max) code = mag > (neg ? max1 : max0) ? (neg ? ovf1 : ovf0) : code;
    if constexpr (T::unsigned_dst) {
      if (neg_const) code = neg ? neg_code : code;
    }
    return code;
  }

  /// Lanes that are infinities or NaNs, and zeros unless operator() gives their class's codes
  /// (one unsigned compare: |x| - 1 wraps for zeros).
  SOFTMX_LANES_INLINE i32v special(u32v x) const { return ((x & 0x7FFFFFFFu) - zero_off) >= special_min; }

  /// `code` with the special lanes of x given their class's result (zeros, infinities, NaNs by
  /// quiet bit and sign), as VectorKernel does; the classes decide before the negative class.
  /// Sets `payload` to the NaN lanes whose result depends on the payload (!nan_by_class).
  SOFTMX_LANES_INLINE u32v classes(u32v x, u32v code, i32v& payload) const {
    const u32v a = x & 0x7FFFFFFFu;
    const i32v neg = reinterpret_cast<i32v>(x) < 0;
    const i32v special = a >= 0x7F800000u;
    const i32v is_nan = a > 0x7F800000u;
    const i32v quiet = (x & 0x400000u) != 0;
    const u32v nan_code =
        sel(quiet, by_sign(neg, p.qnan.code[0], p.qnan.code[1]), by_sign(neg, p.snan.code[0], p.snan.code[1]));
    const u32v special_code = sel(is_nan, nan_code, by_sign(neg, p.inf.code[0], p.inf.code[1]));
    payload = p.nan_by_class ? splat_i(0) : is_nan;
    return sel(special, special_code, sel(a == 0, by_sign(neg, p.zero.code[0], p.zero.code[1]), code));
  }
};

/// convert_rne_float's loop over 4N codes at a time from position i; stops before the first
/// group with a lane for the scalar kernel (a payload NaN) and returns its position (or the
/// position after the last whole group). No call in the loop, so the constants stay in registers.
template <int D, bool In32>
std::size_t convert_rne_float_groups(const RneFloatKernel<D>& k, const void* in, OutOf<D>* out, std::size_t i,
                                     std::size_t n) {
  auto load = [&](std::size_t j) {
    u32v x = load_lanes(in, j, In32);
    if constexpr (!In32) x <<= 16;  // bf16 is the top half of an f32
    return x;
  };
  for (; i + 4 * N <= n; i += 4 * N) {
    const u32v x0 = load(i), x1 = load(i + N), x2 = load(i + 2 * N), x3 = load(i + 3 * N);
    u32v c0 = k(x0), c1 = k(x1), c2 = k(x2), c3 = k(x3);
    const i32v s0 = k.special(x0), s1 = k.special(x1), s2 = k.special(x2), s3 = k.special(x3);
    if (lane_bits(s0 | s1 | s2 | s3)) [[unlikely]] {
      i32v p0, p1, p2, p3;
      c0 = k.classes(x0, c0, p0);
      c1 = k.classes(x1, c1, p1);
      c2 = k.classes(x2, c2, p2);
      c3 = k.classes(x3, c3, p3);
      if (lane_bits(p0 | p1 | p2 | p3)) return i;
    }
    store_codes4(out + i, c0, c1, c2, c3);
  }
  return i;
}

template <int D, bool In32>
void convert_rne_float_from(const Plan& p, const void* in, void* out_v, std::size_t n) {
  using Out = OutOf<D>;
  Out* out = static_cast<Out*>(out_v);
  const RneFloatKernel<D> k(p);
  auto scalar = [&](std::size_t j) { out[j] = static_cast<Out>(p.call(load_one(in, j, In32)).code); };
  std::size_t i = 0;
  for (;;) {
    i = convert_rne_float_groups<D, In32>(k, in, out, i, n);
    if (i + 4 * N > n) break;
    for (const std::size_t end = i + 4 * N; i < end; ++i) scalar(i);  // a group with a payload NaN
  }
  for (; i + N <= n; i += N) {  // fewer than 4N left: a vector at a time, then the scalar kernel
    u32v x = load_lanes(in, i, In32);
    if constexpr (!In32) x <<= 16;
    u32v code = k(x);
    i32v payload = splat_i(0);
    if (lane_bits(k.special(x))) code = k.classes(x, code, payload);
    store_codes(out + i, code);
    for (unsigned lanes = lane_bits(payload); lanes; lanes &= lanes - 1)
      scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
  }
  for (; i < n; ++i) scalar(i);
}

template <int D>
void convert_rne_float(const Plan& p, const void* in, void* out, std::size_t n) {
  if (p.src_width == 32) return convert_rne_float_from<D, true>(p, in, out, n);
  convert_rne_float_from<D, false>(p, in, out, n);
}

/// E8M0 without flags from f32 (or bf16, widened by a shift): a normal source's code is its
/// exponent field, plus one when the mode rounds its significand 1.f up to 2 (SEMANTICS 5.4 on
/// the magnitude: the sign is dropped, or the negative class decides). Zeros, subnormals, Inf
/// and NaN go to the scalar kernel. Same results as the general kernel (test_batch_simd*.cpp),
/// at about a third of its operations.
template <Rounding R>
void convert_e8m0(const Plan& p, const void* in, void* out_v, Flags*, std::size_t n, int) {
  std::uint8_t* out = static_cast<std::uint8_t*>(out_v);
  const bool in32 = p.src_width == 32;
  const u32v ovf = splat(p.ovf_code[0]), neg_code = splat(p.neg.code[1]);
  const bool neg_const = p.neg_const, ties_up = p.ties_up;
  auto scalar = [&](std::size_t j) { out[j] = static_cast<std::uint8_t>(p.call(load_one(in, j, in32)).code); };
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v x = load_lanes(in, i, in32);
    if (!in32) x <<= 16;  // bf16 is the top half of an f32
    const u32v a = x & 0x7FFFFFFFu;
    const u32v e = a >> 23;
    const u32v frac = a & 0x7FFFFFu;
    u32v code;
    if constexpr (R == Rounding::rz || R == Rounding::rd) {  // the magnitude rounds down
      code = e;
    } else if constexpr (R == Rounding::ru) {
      code = frac != 0 ? e + 1 : e;
    } else if constexpr (R == Rounding::rna) {
      code = frac >= 0x400000u ? e + 1 : e;
    } else if constexpr (R == Rounding::rne) {
      const i32v tie_up = ties_up ? splat_i(-1) : (e & 1u) != 0;
      code = ((frac > 0x400000u) | ((frac == 0x400000u) & tie_up)) ? e + 1 : e;
    } else {  // ro: an inexact value takes the odd neighbour
      code = ((frac != 0) & ((e & 1u) == 0)) ? e + 1 : e;
    }
    code = code > 0xFEu ? ovf : code;
    if (neg_const) code = reinterpret_cast<i32v>(x) < 0 ? neg_code : code;
    store_codes(out + i, code);
    if (any_at_least(e - 1, splat(0xFE))) [[unlikely]] {  // e = 0 (wraps) or 0xFF
      for (unsigned lanes = lane_bits((e - 1) >= 0xFEu); lanes; lanes &= lanes - 1)
        scalar(i + static_cast<std::size_t>(__builtin_ctz(lanes)));
    }
  }
  for (; i < n; ++i) scalar(i);
}

/// Whether destination D has a kernel without normalisation (Plan::normalize can be false).
template <int D>
constexpr bool can_skip_normalize() {
  if constexpr (DstTraits<D>::runtime) {
    return false;  // runtime destinations always normalise (one kernel fewer per shape)
  } else {
    constexpr Format f = detail::kFormats[D];
    return !f.subnormals || detail::kFormats[static_cast<int>(FormatId::f32)].emin() <= f.emin() - f.man_bits - 2;
  }
}

/// Where convert_consecutive puts results: codes and flags arrays (StoreSink), or the segments
/// of equal results (SegmentSink). `vec` takes N lanes starting at position pos, `one` a single
/// result; positions arrive in increasing order.
template <class Out, bool F>
struct StoreSink {
  Out* out;
  Flags* flags;
  SOFTMX_LANES_INLINE void vec(std::size_t pos, u32v code, u32v fl) {
    store_codes(out + pos, code);
    if constexpr (F) store_codes(flags + pos, fl);
  }
  void one(std::size_t pos, std::uint32_t code, Flags fl) {
    out[pos] = static_cast<Out>(code);
    if constexpr (F) flags[pos] = fl;
  }
  /// len results all equal to (code, fl).
  void fill(std::size_t pos, std::size_t len, std::uint32_t code, Flags fl) {
    std::size_t j = 0;
    for (; j + N <= len; j += N) vec(pos + j, splat(code), splat(fl));
    for (; j < len; ++j) one(pos + j, code, fl);
  }
};

struct SegmentSink {
  std::uint64_t first;
  Segment* out;
  std::size_t count = 0;
  // The previous input's key (code | flags << 16): in lane N - 1 of prev_vec after a vector, in
  // prev after a single result. ~0 at the start: no result has that key.
  u32v prev_vec = splat(~std::uint32_t{0});
  std::uint32_t prev = ~std::uint32_t{0};
  bool in_vec = true;

  void emit(std::size_t pos, std::uint32_t k) {
    out[count++] = Segment{first + pos, k & 0xFFFFu, static_cast<Flags>(k >> 16)};
  }
  SOFTMX_LANES_INLINE void vec(std::size_t pos, u32v code, u32v fl) {
    const u32v k = code | (fl << 16);
    if (!in_vec) prev_vec = splat(prev);
    // Each lane against its predecessor: [previous key, k[0], ..., k[N-2]]. Keeping the previous
    // key in a vector leaves one permute, not a lane extraction, on the loop-carried path.
#if SOFTMX_SIMD_LANES == 16
    const u32v before = __builtin_shufflevector(prev_vec, k, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
#elif SOFTMX_SIMD_LANES == 8
    const u32v before = __builtin_shufflevector(prev_vec, k, 7, 8, 9, 10, 11, 12, 13, 14);
#else
    u32v before = k;
    for (int j = N - 1; j > 0; --j) before[j] = k[j - 1];
    before[0] = prev_vec[N - 1];
#endif
    if (unsigned lanes = lanes_differ(k, before)) [[unlikely]] {
      for (; lanes; lanes &= lanes - 1) {
        const int j = __builtin_ctz(lanes);
        emit(pos + static_cast<std::size_t>(j), k[j]);
      }
    }
    prev_vec = k;
    in_vec = true;
  }
  void one(std::size_t pos, std::uint32_t code, Flags fl) {
    if (in_vec) prev = prev_vec[N - 1];
    in_vec = false;
    const std::uint32_t k = code | static_cast<std::uint32_t>(fl) << 16;
    if (k != prev) emit(pos, k);
    prev = k;
  }
  /// len results all equal to (code, fl): at most the first starts a segment.
  void fill(std::size_t pos, std::size_t len, std::uint32_t code, Flags fl) {
    if (len) one(pos, code, fl);
  }
};

/// N codes (std::uint8_t or std::uint16_t) or flags from memory, widened to lanes.
template <class T>
SOFTMX_LANES_INLINE u32v load_narrow(const T* p) {
  if constexpr (sizeof(T) == 1) {
    u8v b;
    std::memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, u32v);
  } else {
    u16v h;
    std::memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, u32v);
  }
}

/// Converts the n consecutive source codes first, first + 1, ... (a sweep's inputs) into
/// destination D's codes and flags, as convert_batch does, but binade by binade: within the
/// codes of one sign and one exponent field every lane has the same sign and exponent, so
/// round_pack_lanes gets them as loop-invariant vectors and the compiler hoists everything that
/// depends on them out of the loop. The same algorithm on the same values; binades of zeros and
/// subnormals, and of Inf and NaN, go through convert_batch. Results go to `sink`.
template <int D, Rounding R, bool F, bool Norm, class Sink>
void convert_consecutive_to(const Plan& plan, std::uint64_t first, std::size_t n, Sink& sink) {
  using Out = OutOf<D>;
  using T = DstTraits<D>;
  constexpr bool e8m0 = T::unsigned_dst;  // the sign dropped, or the negative class
  const Plan& p = plan;
  const bool in32 = p.src_width == 32;
  const LanePlan lp(p);
  const std::uint32_t frac_mask = (std::uint32_t{1} << p.src_m) - 1;
  u32v iota;
  for (int j = 0; j < N; ++j) iota[j] = static_cast<std::uint32_t>(j);
  constexpr std::size_t kBuf = 256;
  alignas(64) std::uint32_t buf32[kBuf];
  alignas(64) std::uint16_t buf16[kBuf];
  alignas(64) Out codes[kBuf];
  alignas(64) Flags fls[kBuf];
  std::size_t i = 0;
  while (i < n) {
    const std::uint64_t x0 = first + i;
    const std::uint64_t binade = x0 >> p.src_m;
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(n - i, ((binade + 1) << p.src_m) - x0));
    const std::uint32_t sign = static_cast<std::uint32_t>(binade >> (p.src_width - 1 - p.src_m));
    const int e = static_cast<int>(binade & static_cast<std::uint64_t>(p.src_exp_max));
    if (e8m0 && sign && p.neg_const && e != 0 && e != p.src_exp_max) {
      // Finite non-zero negatives into E8M0 under E8m0Negative::nan or min_if_satfinite: all the
      // negative class.
      sink.fill(i, len, p.neg.code[1], p.neg.flags[1]);
      i += len;
      continue;
    }
    if (e == 0 || e == p.src_exp_max) {
      // Zeros and subnormals, Inf and NaN: the general kernel.
      for (std::size_t k = 0; k < len; k += kBuf) {
        const std::size_t m = std::min(kBuf, len - k);
        for (std::size_t j = 0; j < m; ++j) {
          if (in32) buf32[j] = static_cast<std::uint32_t>(x0 + k + j);
          else buf16[j] = static_cast<std::uint16_t>(x0 + k + j);
        }
        convert_batch<D, R, F, Norm>(p, in32 ? static_cast<const void*>(buf32) : buf16, codes, F ? fls : nullptr, m, 0);
        std::size_t j = 0;
        for (; j + N <= m; j += N) sink.vec(i + k + j, load_narrow(codes + j), F ? load_narrow(fls + j) : splat(0));
        for (; j < m; ++j) sink.one(i + k + j, codes[j], F ? fls[j] : Flags{0});
      }
      i += len;
      continue;
    }
    // A binade of normal source values: sig = (fraction | implicit) << align, E uniform.
    const u32v sgn = splat(e8m0 ? 0 : sign);
    const u32v extra = splat(e8m0 && sign ? p.neg_extra : 0);
    const i32v E = splat_i(e - p.src_bias);
    const std::uint32_t frac0 = static_cast<std::uint32_t>(x0) & frac_mask;
    const std::uint32_t implicit = std::uint32_t{1} << p.src_m;
    const int align = 23 - p.src_m;
    std::size_t j = 0;
    // Every binade but the one just below 2^emin has uniform tininess: a loop without the
    // edge test (and, with no lane to hand on outside E8M0, without the fallback test).
    auto lanes_loop = [&](auto no_edge) {
      constexpr bool kNoEdge = decltype(no_edge)::value;
      // A local copy of the sink: its state (the previous key) can stay in registers, which
      // the caller's object, reachable through pointers, could not.
      Sink local = sink;
      // The significands of consecutive inputs in one binade step by N << align per vector (the
      // fraction never carries into the implicit bit before the binade ends).
      u32v sig = ((iota + (frac0 + static_cast<std::uint32_t>(j))) | implicit) << align;
      const u32v step = splat(static_cast<std::uint32_t>(N) << align);
      for (; j + N <= len; j += N, sig += step) {
        u32v code, fl{};
        i32v fallback = splat_i(0);
        round_pack_lanes<D, R, F, LanePlan, kNoEdge>(lp, sgn, sig, E, extra, code, fl, fallback);
        if constexpr (!kNoEdge || T::no_subnormals || T::runtime) {
          if (unsigned lanes = lane_bits(fallback)) [[unlikely]] {
            for (; lanes; lanes &= lanes - 1) {
              const int l = __builtin_ctz(lanes);
              const Result r = p.call(x0 + j + static_cast<std::size_t>(l));
              code[l] = static_cast<std::uint32_t>(r.code);
              fl[l] = r.flags;
            }
          }
        }
        local.vec(i + j, code, fl);
      }
      sink = local;
    };
    if (e - p.src_bias == T::emin(lp) - 1) lanes_loop(std::false_type{});
    else lanes_loop(std::true_type{});
    for (; j < len; ++j) {
      const Result r = p.call(x0 + j);
      sink.one(i + j, static_cast<std::uint32_t>(r.code), r.flags);
    }
    i += len;
  }
}

template <int D, Rounding R, bool F, bool Norm>
void convert_consecutive(const Plan& plan, std::uint64_t first, void* out, Flags* flags, std::size_t n) {
  using Out = OutOf<D>;
  StoreSink<Out, F> sink{static_cast<Out*>(out), flags};
  convert_consecutive_to<D, R, F, Norm>(plan, first, n, sink);
}

template <int D, Rounding R, bool Norm>
std::size_t consecutive_segments(const Plan& plan, std::uint64_t first, std::size_t n, Segment* out) {
  SegmentSink sink{first, out};
  convert_consecutive_to<D, R, true, Norm>(plan, first, n, sink);
  return sink.count;
}

template <int D, Rounding R>
SegmentsFn pick_segments_norm(const Plan& p) {
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return &consecutive_segments<D, R, false>;
  }
  return &consecutive_segments<D, R, true>;
}

template <int D, Rounding R>
ConsecutiveFn pick_consecutive_norm(const Plan& p, bool with_flags) {
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return with_flags ? &convert_consecutive<D, R, true, false> : &convert_consecutive<D, R, false, false>;
  }
  return with_flags ? &convert_consecutive<D, R, true, true> : &convert_consecutive<D, R, false, true>;
}

/// Whether convert_rne_float serves the plan's destination: always for the named ones; for a
/// runtime one when its subnormal quantum and smallest normal are f32 normal numbers and
/// it has subnormals (the FPU rounds at the quantum 2^(emin - m) by adding 2^(emin - m + 23)).
inline bool rne_float_serves(const Plan& p) {
  if (p.dst != FormatId::runtime) return true;
  const int q = p.rt.emin - p.rt.man_bits + 23;
  return p.rt.subnormals && p.rt.emin >= -126 && q >= -126 && q <= 127 && p.rt.emin <= 127;
}

/// rne without flags: the FPU-assisted kernel while the FPU is in its default mode, otherwise
/// the general one.
template <int D>
void convert_rne(const Plan& p, const void* in, void* out, Flags* flags, std::size_t n, int shift) {
  if (fpu_is_default()) return convert_rne_float<D>(p, in, out, n);
  if (p.normalize) return convert_batch<D, Rounding::rne, false, true>(p, in, out, flags, n, shift);
  if constexpr (can_skip_normalize<D>()) return convert_batch<D, Rounding::rne, false, false>(p, in, out, flags, n, shift);
  return convert_batch<D, Rounding::rne, false, true>(p, in, out, flags, n, shift);
}

template <int D, Rounding R>
BatchFn pick_norm(const Plan& p, bool with_flags, bool scaled) {
  using T = DstTraits<D>;
  if (scaled) {
    // Block quantization: the named MX elements, and a runtime element (signed, at most 8
    // bits: mx_element_reason), whose fields the same kernel reads from the plan.
    if constexpr ((!T::runtime && is_mx_element(static_cast<FormatId>(D))) ||
                  (T::runtime && !T::wide && !T::unsigned_dst))
      return with_flags ? &convert_batch<D, R, true, true, true> : &convert_batch<D, R, false, true, true>;
    return nullptr;
  }
  if constexpr (R == Rounding::rne && !T::no_subnormals) {
    if (!with_flags && (p.src == FormatId::f32 || p.src == FormatId::bf16) && rne_float_serves(p)) return &convert_rne<D>;
  }
  if constexpr (T::no_subnormals) {
    if (!with_flags && (p.src == FormatId::f32 || p.src == FormatId::bf16)) return &convert_e8m0<R>;
  }
  if constexpr (can_skip_normalize<D>()) {
    if (!p.normalize) return with_flags ? &convert_batch<D, R, true, false> : &convert_batch<D, R, false, false>;
  }
  return with_flags ? &convert_batch<D, R, true, true> : &convert_batch<D, R, false, true>;
}

/// The kernel for rounding mode `r`: pick(std::integral_constant<Rounding, R>{}) with R = r, so
/// that each mode's kernel is its own instantiation; a null kernel for Rounding::rs (stochastic
/// rounding has no vector kernel: it stays on the scalar path).
template <class Fn, class Pick>
Fn by_rounding(Rounding r, const Pick& pick) {
  switch (r) {
    case Rounding::rne: return pick(std::integral_constant<Rounding, Rounding::rne>{});
    case Rounding::rna: return pick(std::integral_constant<Rounding, Rounding::rna>{});
    case Rounding::rz: return pick(std::integral_constant<Rounding, Rounding::rz>{});
    case Rounding::ru: return pick(std::integral_constant<Rounding, Rounding::ru>{});
    case Rounding::rd: return pick(std::integral_constant<Rounding, Rounding::rd>{});
    case Rounding::ro: return pick(std::integral_constant<Rounding, Rounding::ro>{});
    case Rounding::rs: break;
  }
  return nullptr;
}

template <int D>
BatchFn pick_mode(const Plan& p, bool with_flags, bool scaled) {
  return by_rounding<BatchFn>(p.ctx.rounding,
                            [&](auto r) { return pick_norm<D, decltype(r)::value>(p, with_flags, scaled); });
}

template <int D>
ConsecutiveFn pick_consecutive_mode(const Plan& p, bool with_flags) {
  return by_rounding<ConsecutiveFn>(p.ctx.rounding,
                                  [&](auto r) { return pick_consecutive_norm<D, decltype(r)::value>(p, with_flags); });
}

template <int D>
SegmentsFn pick_segments_mode(const Plan& p) {
  return by_rounding<SegmentsFn>(p.ctx.rounding,
                               [&](auto r) { return pick_segments_norm<D, decltype(r)::value>(p); });
}

/// Calls f.template operator()<D>() for the runtime shape of the plan's destination.
template <class Fn>
auto with_runtime_shape(const Plan& p, Fn&& f) {
  const bool wide = p.rt.width > 8;
  switch (p.rt.sign) {
    case SignEncoding::magnitude:
      return wide ? f.template operator()<runtime_dst(SignEncoding::magnitude, true)>()
                  : f.template operator()<runtime_dst(SignEncoding::magnitude, false)>();
    case SignEncoding::twos_complement:
      return wide ? f.template operator()<runtime_dst(SignEncoding::twos_complement, true)>()
                  : f.template operator()<runtime_dst(SignEncoding::twos_complement, false)>();
    case SignEncoding::none: break;
  }
  return wide ? f.template operator()<runtime_dst(SignEncoding::none, true)>()
              : f.template operator()<runtime_dst(SignEncoding::none, false)>();
}

inline SegmentsFn pick_segments(const Plan& p) {
  switch (p.dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_segments_mode<static_cast<int>(FormatId::F)>(p);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime: return with_runtime_shape(p, [&]<int D>() { return pick_segments_mode<D>(p); });
    default: break;
  }
  return nullptr;
}

inline ConsecutiveFn pick_consecutive(const Plan& p, bool with_flags) {
  switch (p.dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_consecutive_mode<static_cast<int>(FormatId::F)>(p, with_flags);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime:
      return with_runtime_shape(p, [&]<int D>() { return pick_consecutive_mode<D>(p, with_flags); });
    default: break;
  }
  return nullptr;
}

inline BatchFn pick(const Plan& p, FormatId dst, bool with_flags, bool scaled) {
  switch (dst) {
#define SOFTMX_DST(F) \
  case FormatId::F: return pick_mode<static_cast<int>(FormatId::F)>(p, with_flags, scaled);
    SOFTMX_DST(e4m3) SOFTMX_DST(e5m2) SOFTMX_DST(e3m2) SOFTMX_DST(e2m3) SOFTMX_DST(e2m1)
    SOFTMX_DST(int8) SOFTMX_DST(e8m0) SOFTMX_DST(f16) SOFTMX_DST(bf16)
#undef SOFTMX_DST
    case FormatId::runtime:
      return with_runtime_shape(p, [&]<int D>() { return pick_mode<D>(p, with_flags, scaled); });
    default: break;
  }
  return nullptr;
}

/// The largest magnitude bit pattern (sign cleared) among n source codes of `width` bits
/// (32 or 16): for IEEE-style codes that is the largest magnitude, and at least the Inf code
/// when there is an Inf or NaN.
inline std::uint32_t max_magnitude_bits(const void* in_v, std::size_t n, int width) {
  const u32v mask = splat(width == 32 ? 0x7FFFFFFFu : 0x7FFFu);
  u32v m = splat(0);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    u32v x;
    if (width == 32) {
      std::memcpy(&x, static_cast<const std::uint32_t*>(in_v) + i, sizeof x);
    } else {
      u16v h;
      std::memcpy(&h, static_cast<const std::uint16_t*>(in_v) + i, sizeof h);
      x = __builtin_convertvector(h, u32v);
    }
    x &= mask;
    m = x > m ? x : m;
  }
  std::uint32_t r = 0;
  for (int j = 0; j < N; ++j) r = m[j] > r ? m[j] : r;
  for (; i < n; ++i) {
    const std::uint32_t x = (width == 32 ? static_cast<const std::uint32_t*>(in_v)[i]
                                         : static_cast<const std::uint16_t*>(in_v)[i]) & mask[0];
    r = x > r ? x : r;
  }
  return r;
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
