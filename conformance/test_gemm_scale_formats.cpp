// conformance/test_gemm_scale_formats.cpp: the GEMM with block scales other than E8M0 against
// the reference, dot_general() per output, bit for bit (codes, flags per output and their OR),
// on every kernel this CPU runs, gemm() with 1 and 3 threads and dot_pairs().
//
// Under the exact model the exact kernel takes these scales where exact_scales_fit allows
// (driver.hpp: each scale's significand folded into the packed element integers, its exponent
// where E8M0's goes); the rest, and fp32-sequential, stay with the reference per output. The
// scales: UE4M3 as the GEMM reads it (scale_format e4m3: code & 0x7F) and as a descriptor
// (block_scale_format ue4m3), ue5m3, e4m3 (signed), bf16, f16, f32; the elements: e4m3, e5m2
// (two parts), e2m1 x e3m2, int8; every rounding mode; narrow scales (a few binades: the one-word
// accumulators), spread scales (every finite code: the 128-bit ones and the reference beyond),
// and scales with zeros of both signs, NaN and Inf (and NaN/Inf elements); odd shapes, A and B
// as rows and as columns. Routes pins which pairs the kernel takes.
//
// Planted bugs ExactKernel catches (2026-11-29, each a one-line change to emulator/gemm/,
// rebuilt; mismatching outputs of about 16 million), 6 of 6: the scale significand not folded
// in (its sign only): 10,786,852;  the scale's sign dropped: 3,051,832;  NaN/Inf scales not
// sent to the reference: 234,688;  the scale exponent without the significand's trailing zeros:
// 10,890,968;  the segment and narrow bounds without the scale bits (pair_bits = p): 736;
// UE4M3's top bit not masked: 1,800,200.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
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

enum class Kind { narrow, spread, specials };
const char* kind_name(Kind k) { return k == Kind::narrow ? "narrow" : k == Kind::spread ? "spread" : "specials"; }

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

/// `rows` vectors of k elements (as rows, or as columns) with scales of `sc` by `kind`.
void fill(Operand& o, Kind kind, const Format& ef, const ScaleCase& sc, std::size_t rows, std::size_t K,
          std::size_t block, bool columns, SplitMix64& rng) {
  const std::size_t nb = (K + block - 1) / block, sb = scale_code_bytes(sc.f);
  o.codes.assign(rows * K, 0);
  o.scales.assign(rows * nb * sb, 0);
  const std::uint32_t emask = static_cast<std::uint32_t>(ef.code_mask());
  const std::vector<std::uint32_t> zeros = codes_of(sc.f, ValueClass::zero), nans = codes_of(sc.f, ValueClass::nan),
                                   infs = codes_of(sc.f, ValueClass::inf);
  for (std::size_t r = 0; r < rows; ++r) {
    const bool special_row = kind == Kind::specials && rng.next() % 4 == 0;
    for (std::size_t t = 0; t < K; ++t) {
      std::uint32_t c;
      do c = static_cast<std::uint32_t>(rng.next()) & emask;
      while (unpack(ef, c).cls != ValueClass::finite && unpack(ef, c).cls != ValueClass::zero &&
             !(special_row && rng.next() % 64 == 0));
      if (rng.next() % 10 == 0) c = rng.next() & 1 ? 0 : c & ~emask;  // more zeros
      o.codes[columns ? t * rows + r : r * K + t] = static_cast<std::uint8_t>(c);
    }
    for (std::size_t b = 0; b < nb; ++b) {
      std::uint32_t c = scale_code(sc, kind == Kind::spread ? -1 : 3, rng);
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

const std::pair<FormatId, FormatId> kElements[] = {{FormatId::e4m3, FormatId::e4m3}, {FormatId::e4m3, FormatId::e5m2},
                                                   {FormatId::e2m1, FormatId::e3m2}, {FormatId::int8, FormatId::int8}};

void run_model(const AccumulationModel* model, const std::vector<Kind>& kinds, std::size_t shapes, const char* title) {
  Tally tally(title);
  std::uint64_t seed = 0x5CA1E030;
  for (const ScaleCase& sc : scale_cases())
    for (Kind kind : kinds)
      for (const auto& [fa, fb] : kElements)
        for (std::size_t s = 0; s < shapes; ++s)
          for (int layout = 0; layout < 2; ++layout) {
            const Shape& sh = kShapes[s];
            SplitMix64 rng(++seed);
            Operand a, b;
            fill(a, kind, format(fa), sc, sh.M, sh.K, sh.block, layout == 1, rng);
            fill(b, kind, format(fb), sc, sh.N, sh.K, sh.block, layout == 0, rng);
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
  run_model(&exact_accumulation(), {Kind::narrow, Kind::spread, Kind::specials},
            testing::kAddressSanitizer ? 3 : std::size(kShapes),
            "exact: non-E8M0 scales folded into the exact kernel (or the reference where they do not fit)");
}

TEST(GemmScaleFormats, SequentialReference) {
  run_model(&fp32_sequential_accumulation(), {Kind::specials}, 3, "fp32-sequential: non-E8M0 scales (the reference)");
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
}

}  // namespace
}  // namespace softmx::conformance
