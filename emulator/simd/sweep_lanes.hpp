// emulator/simd/sweep_lanes.hpp: the sweep's fused kernel (internal; included by one translation
// unit per instruction set, simd/sweep_*.cpp, after SOFTMX_SIMD_NS, SOFTMX_SIMD_LANES and
// SOFTMX_SWEEP_GENERAL_ISA, the Isa whose existing segments kernel takes the binades not served).
//
// What it computes: the segments of n consecutive f32 inputs (consecutive_segments, batch.hpp)
// converted into a named sign-magnitude destination with subnormals (the MX elements E4M3,
// E5M2, E3M2, E2M3, E2M1) under rne, rna, rz, ru or rd, with flags: exactly what
// simd::segments_kernel computes (simd/consecutive_lanes.hpp, convert_consecutive_to with its SegmentSink),
// and every input is still rounded by the model, lane by lane. Only the loop is different:
//
//  - The inputs are made in registers (sig = iota + the binade's first fraction, stepped by N),
//    never loaded.
//  - Within a binade of f32 inputs every lane has one sign and one exponent, so round_pack's
//    quantum sh, its base code (exponent field and sign folded together), the rounding addend,
//    the overflow result and the flags of an inexact lane are loop-invariant scalars; per lane
//    remain the round (add, shift; or one FPU addition for rne), the inexact test and, in
//    binades that can reach it, the overflow compare.
//  - Each lane's result is a key one XOR away from its packed code (see kOvfKey), which decode
//    turns into code | flags << 16. Runs are long (2^20 inputs per E4M3 code in the normal
//    range), so the loop compares eight vectors of keys with the current run's key (a register
//    that changes only at a run boundary) and leaves the loop only when one lane differs; there
//    it writes the keys out and records the changes one lane at a time. No call, no store and
//    no loop-carried permute in the hot loop.
//
// The same loop runs the zeros and f32 subnormals (read as lanes.hpp reads them when
// Plan::normalize is false: E = -126 with the implicit bit set; the zero by its class through
// the scalar kernel), Inf and the NaNs whose result is their class's (quiet or signalling per
// lane; Inf through the scalar kernel), and the binade just below 2^emin under tininess after
// rounding (EdgeKeys). What is left, NaNs whose payload reaches the result and plans that
// normalise, goes to the existing kernel (`general`, simd::segments_kernel for the same
// instruction set), binade by binade, and its segments are joined to ours.
// sweep_fused_serves() says which plans the kernel takes; others never reach it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "simd/lanes.hpp"
#include "simd/sweep.hpp"

namespace softmx::simd::SOFTMX_SIMD_NS {

/// True when some lane of v is non-zero.
SOFTMX_LANES_INLINE bool any_nonzero(u32v v) {
#if defined(__AVX512F__) && SOFTMX_SIMD_LANES == 16
  return _mm512_test_epi32_mask(reinterpret_cast<__m512i>(v), reinterpret_cast<__m512i>(v)) != 0;
#elif defined(__AVX2__) && SOFTMX_SIMD_LANES == 8
  return !_mm256_testz_si256(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(v));
#else
  return lane_bits(reinterpret_cast<i32v>(v) != 0) != 0;
#endif
}

// A lane's key inside one binade: its packed code (sign | magnitude), XORed with all ones when
// the lane is exact, or kOvfKey when it overflows. Within a binade an inexact lane's flags are
// uniform (BinadeRound::inexact_key) and an exact lane's are none, so the key says the result
// (decode) while costing one XOR, not a select and an OR. kNotTiny marks a lane of the edge
// binade that is not tiny (EdgeKeys). kNoKey is no lane's key.
constexpr std::uint32_t kOvfKey = 0x40000000u, kNoKey = 0x20000000u, kNotTiny = 0x10000000u;

/// The loop-invariant values of one binade of finite non-zero f32 inputs (sign s, unbiased
/// exponent E; -126 for the f32 subnormals, read without normalising as lanes.hpp does when
/// Plan::normalize is false) for destination D under rounding R: round_pack_lanes's quantities,
/// per binade.
///
/// The edge binade, just below 2^emin under tininess after rounding (`edge`): a lane is tiny
/// unless rounding it to full precision with unbounded exponent range (quantum 2^(sh - 1), the
/// same mode) carries it up to 2^emin, as the scalar is_tiny (core/round_pack.hpp) decides; the
/// vector kernels hand such lanes to the scalar kernel, EdgeKeys rounds them twice instead.
template <int D, Rounding R>
struct BinadeRound {
  static constexpr Format f = detail::kFormats[D];
  static constexpr int m = f.man_bits, emin = f.emin();
  int sh;                 ///< bits of the 24-bit significand below the quantum (min(.., 25))
  std::uint32_t add;      ///< the mode's addend below the quantum (rne: half - 1, plus the odd bit)
  std::uint32_t low;      ///< unit - 1: the bits whose being non-zero makes the result inexact
  std::uint32_t base;     ///< (max(E, emin) + bias - 1) << m, plus the sign bit
  std::uint32_t max_key;  ///< the largest finite magnitude code, plus the sign bit
  std::uint32_t ovf_key;  ///< the overflow result's key: its code | (overflow | inexact) << 16
  std::uint32_t inexact_key;  ///< the flags of an inexact lane << 16: x, or x and u when tiny
  std::uint32_t above_key;    ///< the key of a lane above max_key: kOvfKey
  bool edge;                  ///< the edge binade (EdgeKeys)
  int fine_sh;                ///< edge: sh - 1, the quantum of rounding to full precision
  std::uint32_t fine_add;     ///< edge: the mode's addend below that quantum (rne: plus the odd bit)
  /// Some lane of the binade can exceed max_key: base + the largest n any mode gives (the
  /// significand 2^24 - 1 plus an addend below one unit) is above it. When false the key
  /// functors leave out the compare, as round_pack_lanes's NoEdge leaves out a test that
  /// cannot fire; every lane is still rounded.
  bool above_possible;

  BinadeRound(const Plan& p, unsigned sign, int E) {
    const int ex = E > emin ? E : emin;
    const int s0 = emin + 23 - m - E;
    sh = s0 > 23 - m ? s0 : 23 - m;
    if (sh > 25) sh = 25;
    const std::uint32_t unit = std::uint32_t{1} << sh, half = unit >> 1;
    low = unit - 1;
    if constexpr (R == Rounding::rne) add = half - 1;
    else if constexpr (R == Rounding::rna) add = half;
    else if constexpr (R == Rounding::rz) add = 0;
    else if constexpr (R == Rounding::ru) add = sign ? 0 : unit - 1;
    else add = sign ? unit - 1 : 0;  // rd
    const std::uint32_t sign_bit = static_cast<std::uint32_t>(sign) << (f.width - 1);
    base = (static_cast<std::uint32_t>(ex + f.bias - 1) << m) + sign_bit;
    max_key = p.max_mag[0] + sign_bit;  // round_pack_lanes: one largest magnitude for both signs
    ovf_key = p.ovf_code[sign] | static_cast<std::uint32_t>(flag::overflow | flag::inexact) << 16;
    above_key = kOvfKey;
    // Tininess is uniform in every binade but the edge one (the flags' `tiny` of round_pack_lanes).
    edge = p.tiny_after && E == emin - 1;
    const bool tiny = edge || E < (p.tiny_after ? emin - 1 : emin);
    inexact_key = static_cast<std::uint32_t>(tiny ? flag::inexact | flag::underflow : flag::inexact) << 16;
    fine_sh = sh - 1;
    const std::uint32_t fine_unit = std::uint32_t{1} << fine_sh, fine_half = fine_unit >> 1;
    if constexpr (R == Rounding::rne) fine_add = fine_half - 1;
    else if constexpr (R == Rounding::rna) fine_add = fine_half;
    else if constexpr (R == Rounding::rz) fine_add = 0;
    else if constexpr (R == Rounding::ru) fine_add = sign ? 0 : fine_unit - 1;
    else fine_add = sign ? fine_unit - 1 : 0;  // rd
    const std::uint32_t n_max = ((std::uint32_t{1} << 24) + unit - 1) >> sh;
    above_possible = base + n_max > max_key;
  }
};


/// The in-binade keys of N lanes with 24-bit significands `sig` (integers, any rounding R but
/// rne on the FPU): round_pack_lanes's operations on the same values, with the sign folded into
/// base and max_key (a finite magnitude is below the sign bit, so base + n > max_key exactly
/// when the magnitude exceeds the largest finite one).
template <Rounding R, bool Above>
struct IntKeys {
  int sh;
  u32v add, low, base, max_key, above;
  template <int D>
  explicit IntKeys(const BinadeRound<D, R>& b)
      : sh(b.sh),
        add(splat(b.add)),
        low(splat(b.low)),
        base(splat(b.base)),
        max_key(splat(b.max_key)),
        above(splat(b.above_key)),
        ovf_key(b.ovf_key),
        inexact_key(b.inexact_key) {}
  std::uint32_t ovf_key, inexact_key;
  /// A lane's key as its result's key, code | flags << 16.
  std::uint32_t decode(std::uint32_t k) const {
    if (k == kOvfKey) return ovf_key;
    if (k & 0x80000000u) return ~k;  // exact: no flags
    return k | inexact_key;
  }
  static SOFTMX_LANES_INLINE u32v start(u32v sig) { return sig; }
  static SOFTMX_LANES_INLINE u32v step(int lanes) { return splat(static_cast<std::uint32_t>(lanes)); }
  SOFTMX_LANES_INLINE u32v operator()(u32v sig) const {
    u32v n;
    if constexpr (R == Rounding::rne) n = (sig + add + ((sig >> sh) & 1u)) >> sh;  // ties to the even code
    else if constexpr (R == Rounding::rz) n = sig >> sh;
    else n = (sig + add) >> sh;
    const u32v packed = base + n;
    const u32v exact = reinterpret_cast<u32v>(reinterpret_cast<i32v>(sig & low) == 0);
    if constexpr (!Above) return packed ^ exact;
    const i32v ovf = reinterpret_cast<i32v>(packed) > reinterpret_cast<i32v>(max_key);
    return ovf ? above : packed ^ exact;
  }
};

/// The same keys for rne with the FPU in its default mode (fpu_is_default: round to nearest
/// even, no FTZ/DAZ), as convert_rne_float does: the significand is an exact f32 integer
/// (< 2^24), and adding magic = 1.5 * 2^(23 + sh), whose ulp is the quantum 2^sh, rounds it to a
/// multiple of 2^sh, ties to an even multiple (magic / 2^sh = 1.5 * 2^23 is even). The sum's
/// bits are magic's plus n (n < 2^22 keeps the exponent), and (sum - magic) == sig exactly when
/// the lane is exact. The significands step as exact f32 integers: no conversion per lane.
/// Here the key is the sum's bits (magic's plus n), not the packed code: the packed code is
/// those bits plus a per-binade constant (base - bits(magic)), so equal keys are equal codes and
/// decode adds the constant back, one addition per lane fewer in the loop. The sum's bits lie
/// in [0x55000000, 0x7F800000): no collision with kOvfKey, bit 31 clear.
template <bool Above>
struct FpuKeys {
  f32v magic;
  u32v max_sum, above;
  std::uint32_t to_packed;  ///< BinadeRound::base - bits(magic), modulo 2^32
  std::uint32_t ovf_key, inexact_key;
  template <int D>
  explicit FpuKeys(const BinadeRound<D, Rounding::rne>& b)
      : magic(reinterpret_cast<f32v>(splat(magic_bits(b.sh)))),
        max_sum(splat(b.max_key - (b.base - magic_bits(b.sh)))),
        above(splat(b.above_key)),
        to_packed(b.base - magic_bits(b.sh)),
        ovf_key(b.ovf_key),
        inexact_key(b.inexact_key) {}
  static std::uint32_t magic_bits(int sh) { return static_cast<std::uint32_t>(127 + 23 + sh) << 23 | 0x400000u; }
  static SOFTMX_LANES_INLINE f32v start(u32v sig) { return __builtin_convertvector(reinterpret_cast<i32v>(sig), f32v); }
  static SOFTMX_LANES_INLINE f32v step(int lanes) { return f32v{} + static_cast<float>(lanes); }
  SOFTMX_LANES_INLINE u32v operator()(f32v sig) const {
    const f32v t = sig + magic;
    const u32v sum = reinterpret_cast<u32v>(t);
    const u32v exact = reinterpret_cast<u32v>(t - magic == sig);
    if constexpr (!Above) return sum ^ exact;
    // sum > max_sum exactly when the packed code (sum + to_packed, no wrap) exceeds max_key.
    const i32v ovf = reinterpret_cast<i32v>(sum) > reinterpret_cast<i32v>(max_sum);
    return ovf ? above : sum ^ exact;
  }
  /// A lane's key as its result's key, code | flags << 16.
  std::uint32_t decode(std::uint32_t k) const {
    if (k == kOvfKey) return ovf_key;
    if (k & 0x80000000u) return ~k + to_packed;  // exact: no flags
    return (k + to_packed) | inexact_key;
  }
};

/// The edge binade's keys (BinadeRound::edge; any rounding): IntKeys's, plus kNotTiny where
/// rounding at the quantum 2^(sh - 1) carries the significand to 2^24 (the value to 2^emin):
/// is_tiny's round_at(f, v, v.exp - m) on the same values. No lane overflows there (the largest
/// finite value is at least 2^emin), and only a lane that rounds up to 2^emin can carry at the
/// finer quantum too, so every other lane is tiny.
template <Rounding R>
struct EdgeKeys {
  IntKeys<R, false> coarse;
  int fine_sh;
  u32v fine_add;
  std::uint32_t not_tiny_key;  // flags of an inexact lane that is not tiny, << 16
  template <int D>
  explicit EdgeKeys(const BinadeRound<D, R>& b)
      : coarse(b),
        fine_sh(b.fine_sh),
        fine_add(splat(b.fine_add)),
        not_tiny_key(static_cast<std::uint32_t>(flag::inexact) << 16) {}
  static SOFTMX_LANES_INLINE u32v start(u32v sig) { return sig; }
  static SOFTMX_LANES_INLINE u32v step(int lanes) { return splat(static_cast<std::uint32_t>(lanes)); }
  SOFTMX_LANES_INLINE u32v operator()(u32v sig) const {
    u32v fine = sig + fine_add;
    if constexpr (R == Rounding::rne) fine += (sig >> fine_sh) & 1u;
    const i32v not_tiny = reinterpret_cast<i32v>(fine) > splat_i((1 << 24) - 1);
    return coarse(sig) | (reinterpret_cast<u32v>(not_tiny) & kNotTiny);
  }
  std::uint32_t decode(std::uint32_t k) const {
    if (k & 0x80000000u) return coarse.decode(k);  // exact: never not tiny
    if (k & kNotTiny) return (k & ~kNotTiny) | not_tiny_key;
    return coarse.decode(k);
  }
};

/// The keys (code | flags << 16) of NaN inputs whose result is their class's (Plan::nan_by_class):
/// quiet or signalling by the fraction's top bit, as VectorKernel decides them. `sig` is the
/// fraction with the implicit bit, as in the other binades.
struct NanKeys {
  u32v quiet_key, signalling_key;
  NanKeys(const Plan& p, unsigned sign)
      : quiet_key(splat(p.qnan.code[sign] | static_cast<std::uint32_t>(p.qnan.flags[sign]) << 16)),
        signalling_key(splat(p.snan.code[sign] | static_cast<std::uint32_t>(p.snan.flags[sign]) << 16)) {}
  static SOFTMX_LANES_INLINE u32v start(u32v sig) { return sig; }
  static SOFTMX_LANES_INLINE u32v step(int lanes) { return splat(static_cast<std::uint32_t>(lanes)); }
  SOFTMX_LANES_INLINE u32v operator()(u32v sig) const {
    return reinterpret_cast<i32v>(sig & 0x400000u) != 0 ? quiet_key : signalling_key;
  }
  static std::uint32_t decode(std::uint32_t k) { return k; }
};

/// The fused segments kernel (see the top of this file). Precondition: sweep_fused_serves(p),
/// p.dst == D, p.ctx.rounding == R; first + n <= 2^32; `out` has room for n segments.
template <int D, Rounding R>
std::size_t sweep_segments(const Plan& p, std::uint64_t first, std::size_t n, Segment* out) {
  SegmentsFn general = nullptr;  // the existing kernel, fetched when a binade needs it
  constexpr int kFracBits = 23;
  constexpr std::size_t kStep = 8 * N;  // inputs per iteration of the hot loop
  std::size_t count = 0;
  std::uint32_t cur = ~std::uint32_t{0};  // the last segment's key; none has all ones
  auto emit = [&](std::uint64_t x, std::uint32_t key) {
    out[count++] = Segment{x, key & 0xFFFFu, static_cast<Flags>(key >> 16)};
    cur = key;
  };
  auto scalar_key = [&](std::uint64_t x) {
    const Result r = p.call(x);
    return static_cast<std::uint32_t>(r.code) | static_cast<std::uint32_t>(r.flags) << 16;
  };
  u32v iota;
  for (int l = 0; l < N; ++l) iota[l] = static_cast<std::uint32_t>(l);
  alignas(64) std::uint32_t keys[kStep];

  std::size_t i = 0;
  while (i < n) {
    const std::uint64_t x0 = first + i;
    const std::uint64_t binade = x0 >> kFracBits;
    const std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(n - i, ((binade + 1) << kFracBits) - x0));
    const unsigned sign = static_cast<unsigned>(binade >> 8);
    const int e = static_cast<int>(binade & 0xFF);
    const int E = e - 127;
    // Zeros and f32 subnormals: read as lanes.hpp reads them without normalising (E = -126, the
    // implicit bit set), the zero by its class (the scalar kernel here); with Plan::normalize,
    // and for NaNs whose payload reaches the result, the existing kernel.
    if ((e == 0 && p.normalize) || (e == 0xFF && !p.nan_by_class)) {
      // The existing kernel, its first segment dropped when it continues ours.
      if (!general) general = segments_kernel(p, SOFTMX_SWEEP_GENERAL_ISA);
      const std::size_t k = general(p, x0, len, out + count);
      if (count > 0 && out[count].code == (cur & 0xFFFFu) && out[count].flags == (cur >> 16)) {
        std::memmove(out + count, out + count + 1, (k - 1) * sizeof(Segment));
        count += k - 1;
      } else {
        count += k;
      }
      cur = static_cast<std::uint32_t>(out[count - 1].code) | static_cast<std::uint32_t>(out[count - 1].flags) << 16;
      i += len;
      continue;
    }
    std::size_t j = 0;
    if ((e == 0 || e == 0xFF) && (x0 & 0x7FFFFFu) == 0) {  // +-0 or +-Inf: its class
      const std::uint32_t k = scalar_key(x0);
      if (k != cur) emit(x0, k);
      j = 1;
    }
    // The hot loop: eight vectors of keys against the run's in-binade key (curv), which changes
    // only at a run boundary. There (and once at the start of the binade, curv = kNoKey) the
    // lanes are decoded and compared with the last segment one by one.
    auto lanes_loop = [&](const auto& key) {
      using K = std::decay_t<decltype(key)>;
      auto v = K::start(iota + ((static_cast<std::uint32_t>(x0 + j) & 0x7FFFFFu) | 0x800000u));
      const auto step = K::step(N);
      u32v curv = splat(kNoKey);
      for (; j + kStep <= len; j += kStep) {
        const u32v k0 = key(v), k1 = key(v + step), k2 = key(v + 2 * step), k3 = key(v + 3 * step);
        const u32v k4 = key(v + 4 * step), k5 = key(v + 5 * step), k6 = key(v + 6 * step), k7 = key(v + 7 * step);
        v += 8 * step;
        if (any_nonzero(((k0 ^ curv) | (k1 ^ curv) | (k2 ^ curv) | (k3 ^ curv)) |
                        ((k4 ^ curv) | (k5 ^ curv) | (k6 ^ curv) | (k7 ^ curv)))) [[unlikely]] {
          std::memcpy(keys, &k0, sizeof k0);
          std::memcpy(keys + N, &k1, sizeof k1);
          std::memcpy(keys + 2 * N, &k2, sizeof k2);
          std::memcpy(keys + 3 * N, &k3, sizeof k3);
          std::memcpy(keys + 4 * N, &k4, sizeof k4);
          std::memcpy(keys + 5 * N, &k5, sizeof k5);
          std::memcpy(keys + 6 * N, &k6, sizeof k6);
          std::memcpy(keys + 7 * N, &k7, sizeof k7);
          for (std::size_t l = 0; l < kStep; ++l) {
            const std::uint64_t x = x0 + j + l;
            const std::uint32_t k = key.decode(keys[l]);
            if (k != cur) emit(x, k);
          }
          curv = splat(keys[kStep - 1]);
        }
      }
    };
    if (e == 0xFF) {
      lanes_loop(NanKeys(p, sign));
    } else {
      const BinadeRound<D, R> b(p, sign, e == 0 ? 1 - 127 : E);
      auto run = [&](auto above) {
        constexpr bool kAbove = decltype(above)::value;
        if constexpr (R == Rounding::rne) {
          if (fpu_is_default()) lanes_loop(FpuKeys<kAbove>(b));
          else lanes_loop(IntKeys<R, kAbove>(b));
        } else {
          lanes_loop(IntKeys<R, kAbove>(b));
        }
      };
      if (b.edge) lanes_loop(EdgeKeys<R>(b));
      else if (b.above_possible) run(std::true_type{});
      else run(std::false_type{});
    }
    for (; j < len; ++j) {  // a range that ends inside a group of 8N: the scalar kernel
      const std::uint32_t k = scalar_key(x0 + j);
      if (k != cur) emit(x0 + j, k);
    }
    i += len;
  }
  return count;
}

/// The fused kernel for the plan (its destination and rounding as template arguments), or null
/// when sweep_fused_serves(p) is false.
template <Rounding R>
SegmentsFn pick_sweep_dst(const Plan& p) {
  switch (p.dst) {
    case FormatId::e4m3: return &sweep_segments<static_cast<int>(FormatId::e4m3), R>;
    case FormatId::e5m2: return &sweep_segments<static_cast<int>(FormatId::e5m2), R>;
    case FormatId::e3m2: return &sweep_segments<static_cast<int>(FormatId::e3m2), R>;
    case FormatId::e2m3: return &sweep_segments<static_cast<int>(FormatId::e2m3), R>;
    case FormatId::e2m1: return &sweep_segments<static_cast<int>(FormatId::e2m1), R>;
    default: return nullptr;
  }
}

inline SegmentsFn pick_sweep(const Plan& p) {
  if (!sweep_fused_serves(p)) return nullptr;
  switch (p.ctx.rounding) {
    case Rounding::rne: return pick_sweep_dst<Rounding::rne>(p);
    case Rounding::rna: return pick_sweep_dst<Rounding::rna>(p);
    case Rounding::rz: return pick_sweep_dst<Rounding::rz>(p);
    case Rounding::ru: return pick_sweep_dst<Rounding::ru>(p);
    case Rounding::rd: return pick_sweep_dst<Rounding::rd>(p);
    default: return nullptr;
  }
}

}  // namespace softmx::simd::SOFTMX_SIMD_NS
