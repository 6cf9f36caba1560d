// conformance/test_gemm_scale_formats.cpp: the GEMM with block scales other than E8M0 against
// the reference, dot_general() per output, bit for bit (codes, flags per output and their OR),
// on every kernel this CPU runs, gemm() with 1 and 3 threads and dot_pairs().
//
// Under the exact model the exact kernel takes these scales where exact_scales_fit allows
// (driver.hpp: each scale's significand folded into the packed element integers, its exponent
// where E8M0's goes); under fp32-sequential its kernel takes them where seq_scales_fit allows
// (each block sum times both scale values, exact in double lanes, rounded once: seq_tile.hpp,
// scale_round); the rest stay with the reference per output. The
// scales: UE4M3 as the GEMM reads it (scale_format e4m3: code & 0x7F) and as a descriptor
// (block_scale_format ue4m3), ue5m3, e4m3 (signed), bf16, f16, f32; the elements: e4m3, e5m2
// (two parts), e2m1 x e3m2, int8; every rounding mode; narrow scales (a few binades: the one-word
// accumulators), spread scales (every finite code: the 128-bit ones and the reference beyond),
// and scales with zeros of both signs, NaN and Inf (and NaN/Inf elements); for fp32-sequential
// also range-edge scales (block sums times two scales across f32's smallest normal and largest
// finite values) and cancelling blocks; odd shapes, A and B as rows and as columns. Routes pins
// which pairs and scale formats the kernels take.
//
// Planted bugs ExactKernel catches (2026-11-29, each a one-line change to emulator/gemm/,
// rebuilt; mismatching outputs of about 16 million), 6 of 6: the scale significand not folded
// in (its sign only): 10,786,852;  the scale's sign dropped: 3,051,832;  NaN/Inf scales not
// sent to the reference: 234,688;  the scale exponent without the significand's trailing zeros:
// 10,890,968;  the segment and narrow bounds without the scale bits (pair_bits = p): 736;
// UE4M3's top bit not masked: 1,800,200.
//
// Planted bugs SequentialKernel and Routes catch (2026-11-29, each a one-line change to
// emulator/gemm/, rebuilt; mismatching outputs of about 16.9 million), 14 of 14: rna's ties
// not stepped away: 30,348;  rz/ro's step toward zero on the wrong side: 1,408,032;  the tiny
// bound at 2^-127: 3,072;  no overflow bound: 55,928;  rne's inexact of the scaled sum
// dropped: 160,952;  zero scales without their sign: 17,092;  UE4M3's top bit not masked:
// 1,861,052;  pairs with lane 0's A scale in every lane: 64,038;  s * a rounded to f32
// before times b: 1,109,020;  ro without its odd bit: 409,824;  ru stepping negative sums away
// from zero: 265,420;  NaN/Inf scales not special: 105,344;  each segment with the chunk's
// first block's scale: 4,785,704;  seq_scales_fit admitting f32 scales (24 + 48 bits: double
// rounding, rare on random data): Routes alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "gemm/driver.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "support/gemm_kernels.hpp"
#include "support/report.hpp"
#include "support/sanitized.hpp"

namespace softmx::conformance {
namespace {

/// A scale format under test: its descriptor, and whether it goes as scale_format e4m3 (the
/// GEMM's UE4M3 reading, codes & 0x7F) instead of block_scale_format.
struct ScaleCase {
  Format f;
  bool as_e4m3 = false;
  std::string label;
};

std::vector<ScaleCase> scale_cases() {
  return {{parse_format_spec("ue4m3"), true, "ue4m3 (scale_format e4m3)"},
          {parse_format_spec("ue4m3"), false, "ue4m3"},
          {parse_format_spec("ue5m3"), false, "ue5m3"},
          {format(FormatId::e4m3), false, "e4m3"},
          {format(FormatId::bf16), false, "bf16"},
          {format(FormatId::f16), false, "f16"},
          {format(FormatId::f32), false, "f32"}};
}

// narrow: scales within 3 binades of 1; spread: any finite scale; specials: zeros of both
// signs, NaN and Inf scales (and NaN/Inf elements); edge: per vector, scales near 2^-63 or 2^63
// (clamped to the format's range: its largest and smallest, subnormal, values), so that a block
// sum times two scales of bf16 crosses f32's smallest normal and its largest finite value;
// cancel: blocks whose second half is the first half negated (A) and repeated (B), and whose
// odd blocks repeat the even ones negated with the same scale (sums and accumulators that
// cancel, zeros of every sign).
enum class Kind { narrow, spread, specials, edge, cancel };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::narrow: return "narrow";
    case Kind::spread: return "spread";
    case Kind::specials: return "specials";
    case Kind::edge: return "edge";
    case Kind::cancel: return "cancel";
  }
  return "?";
}

/// A random finite code of sf (either sign where it has one) with an exponent near 2^target:
/// the exponent field within 8 of target's, clamped to the format's fields; one in eight the
/// largest finite or the smallest subnormal magnitude.
std::uint32_t edge_code(const ScaleCase& sc, int target, SplitMix64& rng) {
  const Format& f = sc.f;
  const std::int64_t emax_field = (std::int64_t{1} << f.exp_bits) - 1;
  const std::uint32_t mmask = (1u << f.man_bits) - 1;
  for (;;) {
    std::uint32_t c;
    if (rng.next() % 8 == 0) {
      c = target < 0 ? 1u : static_cast<std::uint32_t>(f.max_finite_magnitude());
    } else {
      const std::int64_t e = std::clamp<std::int64_t>(f.bias + target + static_cast<std::int64_t>(rng.next() % 17) - 8, 0, emax_field);
      c = (static_cast<std::uint32_t>(e) << f.man_bits) | static_cast<std::uint32_t>(rng.next() & mmask);
    }
    if (f.sign == SignEncoding::magnitude && (rng.next() & 1)) c |= 1u << (f.width - 1);
    if (sc.as_e4m3 && (rng.next() & 1)) c |= 0x80;
    if (unpack(f, c & (sc.as_e4m3 ? 0x7Fu : 0xFFFFFFFFu)).cls == ValueClass::finite) return c;
  }
}

/// A random non-zero finite code of sf whose exponent field lies within `binades` of the bias
/// (binades < 0: any), either sign where sf has one. UE4M3 as e4m3: the top bit set at random
/// (the GEMM ignores it).
std::uint32_t scale_code(const ScaleCase& sc, int binades, SplitMix64& rng) {
  const Format& f = sc.f;
  const std::uint32_t emax_field = (1u << f.exp_bits) - 1;
  for (;;) {
    std::uint32_t e;
    if (binades < 0) e = static_cast<std::uint32_t>(rng.next() % (emax_field + 1));
    else e = static_cast<std::uint32_t>(std::clamp<std::int64_t>(f.bias + static_cast<std::int64_t>(rng.next() % (2 * binades + 1)) - binades, 0, emax_field));
    std::uint32_t c = (e << f.man_bits) | static_cast<std::uint32_t>(rng.next() & ((1u << f.man_bits) - 1));
    if (f.sign == SignEncoding::magnitude && (rng.next() & 1)) c |= 1u << (f.width - 1);
    if (sc.as_e4m3 && (rng.next() & 1)) c |= 0x80;
    if (unpack(f, c & (sc.as_e4m3 ? 0x7Fu : 0xFFFFFFFFu)).cls == ValueClass::finite) return c;
  }
}

/// The codes of sf of one class.
std::vector<std::uint32_t> codes_of(const Format& f, ValueClass cls) {
  std::vector<std::uint32_t> v;
  const std::uint64_t n = f.code_mask() + 1;
  const std::uint64_t step = n > 0x10000 ? 0x10001 : 1;  // f32: a sample of its codes
  for (std::uint64_t c = 0; c < n; c += step)
    if (unpack(f, c).cls == cls) v.push_back(static_cast<std::uint32_t>(c));
  if (cls != ValueClass::finite && f.width == 32) {  // f32's zeros, Infs and a NaN of each kind
    v.clear();
    if (cls == ValueClass::zero) v = {0u, 0x80000000u};
    if (cls == ValueClass::inf) v = {0x7F800000u, 0xFF800000u};
    if (cls == ValueClass::nan) v = {0x7FC00000u, 0x7F800001u, 0xFFC00000u};
  }
  return v;
}

struct Operand {
  std::vector<std::uint8_t> codes, scales;
  GemmOperand op;
};

/// `rows` vectors of k elements (as rows, or as columns) with scales of `sc` by `kind`; with
/// `negate` (A), cancel's copies are negated, else (B) repeated.
void fill(Operand& o, Kind kind, const Format& ef, const ScaleCase& sc, std::size_t rows, std::size_t K,
          std::size_t block, bool columns, bool negate, SplitMix64& rng) {
  const std::size_t nb = (K + block - 1) / block, sb = scale_code_bytes(sc.f);
  o.codes.assign(rows * K, 0);
  o.scales.assign(rows * nb * sb, 0);
  const std::uint32_t emask = static_cast<std::uint32_t>(ef.code_mask());
  const std::vector<std::uint32_t> zeros = codes_of(sc.f, ValueClass::zero), nans = codes_of(sc.f, ValueClass::nan),
                                   infs = codes_of(sc.f, ValueClass::inf);
  // cancel: the sign bit of the element format (every MX element is sign-magnitude but int8,
  // two's complement, whose negation is -c).
  const bool twos = ef.sign == SignEncoding::twos_complement;
  const std::uint32_t sbit = 1u << (ef.width - 1);
  auto negated = [&](std::uint32_t c) { return twos ? (0u - c) & emask : c ^ sbit; };
  for (std::size_t r = 0; r < rows; ++r) {
    const bool special_row = kind == Kind::specials && rng.next() % 4 == 0;
    const int target = rng.next() & 1 ? 63 : -63;  // edge
    std::vector<std::uint32_t> row(K);
    for (std::size_t t = 0; t < K; ++t) {
      std::uint32_t c;
      do c = static_cast<std::uint32_t>(rng.next()) & emask;
      while (unpack(ef, c).cls != ValueClass::finite && unpack(ef, c).cls != ValueClass::zero &&
             !(special_row && rng.next() % 64 == 0));
      if (rng.next() % 10 == 0) c = rng.next() & 1 ? 0 : c & ~emask;  // more zeros
      if (kind == Kind::cancel) {
        const std::size_t b = t / block, first = b * block, n = std::min(block, K - first), h = n / 2;
        if (b % 2 == 1 && rng.next() % 4 != 0) c = negate ? negated(row[t - block]) : row[t - block];
        else if (t - first >= n - h && h > 0) c = negate ? negated(row[t - h]) : row[t - h];
      }
      row[t] = c;
      o.codes[columns ? t * rows + r : r * K + t] = static_cast<std::uint8_t>(c);
    }
    for (std::size_t b = 0; b < nb; ++b) {
      std::uint32_t c = kind == Kind::edge ? edge_code(sc, target, rng) : scale_code(sc, kind == Kind::spread ? -1 : 3, rng);
      if (kind == Kind::cancel && b % 2 == 1) {  // the even block's scale: its d cancels
        const std::size_t prev = columns ? (b - 1) * rows + r : r * nb + b - 1;
        std::memcpy(&c, o.scales.data() + prev * sb, sb);
      }
      if (kind == Kind::specials) {
        const std::uint64_t x = rng.next() % 40;
        if (x < 6 && !zeros.empty()) c = zeros[rng.next() % zeros.size()];
        else if (x == 6 && !nans.empty() && special_row) c = nans[rng.next() % nans.size()];
        else if (x == 7 && !infs.empty() && special_row) c = infs[rng.next() % infs.size()];
        else if (x == 8 && sc.as_e4m3 && special_row) c = 0xFF;  // UE4M3's NaN with the top bit set
      }
      const std::size_t at = columns ? b * rows + r : r * nb + b;
      std::memcpy(o.scales.data() + at * sb, &c, sb);  // little-endian, as load_scale_code reads
    }
  }
  o.op = columns ? gemm_columns(ef, K, rows, block, o.codes, {}) : gemm_rows(ef, rows, K, block, o.codes, {});
  o.op.scales = o.scales;
  if (sc.as_e4m3) o.op.scale_format = FormatId::e4m3;
  else o.op.block_scale_format = &sc.f;
}

/// The reference, then every kernel (gemm with 1 and 3 threads; dot_pairs when M = N); with
/// dest, into f16 with an f16 C per output (random finite codes: the exact sum plus C, rounded
/// once).
void compare(const GemmOperand& A, const GemmOperand& B, const ModelCase& mc, const std::string& what, Tally& tally,
             bool dest = false) {
  for (bool pairs : {false, true}) {
    if (pairs && A.rows != B.rows) continue;
    GemmOptions o = options_for(mc, 1);
    const std::size_t n = pairs ? A.rows : A.rows * B.rows;
    std::vector<std::uint32_t> addend;
    if (dest) {
      SplitMix64 rng(n * 7919 + A.k);
      for (std::size_t x = 0; x < n; ++x) addend.push_back(static_cast<std::uint32_t>(rng.next() % 0x7C00) | (rng.next() & 1 ? 0x8000u : 0u));
      o.to = FormatId::f16;
      o.addend = addend;
    }
    compare_with_reference(pairs, A, B, o, pairs, what + (pairs ? " dot_pairs " : " ") + mc.label, tally);
  }
}

struct Shape {
  std::size_t M, N, K, block;
};
// No multiple of any tile (exact 8 x 24, 4 x 4), k beyond a chunk (256) and not a multiple of the
// block, a block longer than a chunk and than a segment (e5m2 x ue4m3: segments of 8), k below
// the block.
const Shape kShapes[] = {{1, 1, 1, 32}, {7, 25, 33, 32}, {9, 23, 64, 16}, {17, 33, 300, 32}, {5, 9, 600, 300}, {24, 24, 20, 32}};
// fp32-sequential's reference costs about ten times the exact one's per product: the same
// edges with fewer outputs past the chunk (k = 300 on 3 x 17; fp32-sequential's tiles are 4 x 4,
// 4 x 8 and 4 x 32).
const Shape kSeqShapes[] = {{1, 1, 1, 32}, {7, 25, 33, 32}, {9, 23, 64, 16}, {3, 17, 300, 32}, {5, 9, 600, 300}, {24, 24, 20, 32}};

const std::pair<FormatId, FormatId> kElements[] = {{FormatId::e4m3, FormatId::e4m3}, {FormatId::e4m3, FormatId::e5m2},
                                                   {FormatId::e2m1, FormatId::e3m2}, {FormatId::int8, FormatId::int8}};

/// Every scale case, kind, element pair, shape (the first `shapes` of `shape_list`) and layout
/// under every mode of `model`; a scale case that `reference_only` names (its every output the
/// reference's) runs the specials kind alone.
void run_model(const AccumulationModel* model, const std::vector<Kind>& kinds, std::span<const Shape> shape_list,
               std::size_t shapes, const char* title, const char* reference_only = nullptr) {
  Tally tally(title);
  std::uint64_t seed = 0x5CA1E030;
  for (const ScaleCase& sc : scale_cases())
    for (Kind kind : kinds)
      for (const auto& [fa, fb] : kElements)
        for (std::size_t s = 0; s < shapes; ++s)
          for (int layout = 0; layout < 2; ++layout) {
            if (reference_only && sc.label == reference_only && kind != Kind::specials) continue;
            const Shape& sh = shape_list[s];
            SplitMix64 rng(++seed);
            Operand a, b;
            fill(a, kind, format(fa), sc, sh.M, sh.K, sh.block, layout == 1, true, rng);
            fill(b, kind, format(fb), sc, sh.N, sh.K, sh.block, layout == 0, false, rng);
            std::ostringstream what;
            what << sc.label << " " << kind_name(kind) << " " << format(fa).name << " x " << format(fb).name << " M "
                 << sh.M << " N " << sh.N << " K " << sh.K << " block " << sh.block << (layout ? " (A columns)" : "");
            for (const ModelCase& mc : rounding_cases(model)) {
              compare(a.op, b.op, mc, what.str(), tally);
              if (mc.ctx.rounding == Rounding::rne || mc.ctx.rounding == Rounding::rd)
                compare(a.op, b.op, mc, what.str() + ", f16 with C", tally, true);
            }
          }
  tally.report();
}

TEST(GemmScaleFormats, ExactKernel) {
  run_model(&exact_accumulation(), {Kind::narrow, Kind::spread, Kind::specials}, kShapes,
            testing::kAddressSanitizer ? 3 : std::size(kShapes),
            "exact: non-E8M0 scales folded into the exact kernel (or the reference where they do not fit)");
}

TEST(GemmScaleFormats, SequentialKernel) {
  run_model(&fp32_sequential_accumulation(), {Kind::narrow, Kind::spread, Kind::specials, Kind::edge, Kind::cancel},
            kSeqShapes, testing::kAddressSanitizer ? 3 : std::size(kSeqShapes),
            "fp32-sequential: block sums times non-E8M0 scales rounded once in the kernel (f32 scales: the reference)",
            "f32");
}

/// Which element pairs and scale formats the exact kernel takes (exact_scales_fit): the widths
/// of docs/ARCHITECTURE.md's proof, pinned.
TEST(GemmScaleFormats, Routes) {
  const std::vector<std::uint8_t> codes(64, 0), scales(2, 0);
  auto fits = [&](FormatId fa, FormatId fb, const Format& sf) {
    const GemmOperand a = gemm_rows(format(fa), 1, 64, 32, codes, scales);
    const GemmOperand b = gemm_rows(format(fb), 1, 64, 32, codes, scales);
    const gemm_detail::Side sa = gemm_detail::make_side(a, false, false), sb = gemm_detail::make_side(b, true, false);
    return gemm_detail::exact_scales_fit(sa, sb, sf, 64);
  };
  const Format ue4m3 = parse_format_spec("ue4m3"), ue5m3 = parse_format_spec("ue5m3");
  EXPECT_TRUE(fits(FormatId::e4m3, FormatId::e4m3, ue4m3));  // 2 (18 + 4) = 44 bits
  EXPECT_TRUE(fits(FormatId::e4m3, FormatId::e4m3, ue5m3));
  EXPECT_TRUE(fits(FormatId::e4m3, FormatId::e4m3, format(FormatId::e4m3)));
  EXPECT_TRUE(fits(FormatId::e5m2, FormatId::e5m2, ue4m3));  // parts of 20: 48
  EXPECT_FALSE(fits(FormatId::e4m3, FormatId::e4m3, format(FormatId::bf16)));  // 36 + 16 = 52
  EXPECT_FALSE(fits(FormatId::e4m3, FormatId::e4m3, format(FormatId::f16)));   // 36 + 22
  EXPECT_TRUE(fits(FormatId::e2m1, FormatId::e2m1, format(FormatId::bf16)));   // 8 + 16
  EXPECT_TRUE(fits(FormatId::e2m1, FormatId::e2m1, format(FormatId::f16)));    // 8 + 22
  EXPECT_FALSE(fits(FormatId::e2m1, FormatId::e2m1, format(FormatId::f32)));   // 8 + 48
  EXPECT_TRUE(fits(FormatId::int8, FormatId::int8, format(FormatId::bf16)));   // 16 + 16
  // fp32-sequential (seq_scales_fit): the block sum (24 bits) times two scale significands
  // exact in a double (53), every scale value exact in f32; any element pair.
  EXPECT_TRUE(gemm_detail::seq_scales_fit(ue4m3));                    // 24 + 2 * 4
  EXPECT_TRUE(gemm_detail::seq_scales_fit(ue5m3));
  EXPECT_TRUE(gemm_detail::seq_scales_fit(format(FormatId::e4m3)));
  EXPECT_TRUE(gemm_detail::seq_scales_fit(format(FormatId::bf16)));   // 24 + 2 * 8
  EXPECT_TRUE(gemm_detail::seq_scales_fit(format(FormatId::f16)));    // 24 + 2 * 11
  EXPECT_FALSE(gemm_detail::seq_scales_fit(format(FormatId::f32)));   // 24 + 2 * 24
  EXPECT_FALSE(gemm_detail::seq_scales_fit(parse_format_spec("e5m14")));  // 24 + 2 * 15
  EXPECT_FALSE(gemm_detail::seq_scales_fit(parse_format_spec("e8m3:bias=100")));  // beyond f32's range
}

}  // namespace
}  // namespace softmx::conformance
