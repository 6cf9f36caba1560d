// conformance/test_dot_addend.cpp: DotGeneral with an addend C and an f16 or bf16 destination
// (dot.hpp DotDestination; docs/BLOCKS.md 5, "Addend and destination"), as an MX dot-product
// unit computes it (MXDOTP: the products summed exactly, scaled, C added, one rounding).
//
//  - the exact and fp32-sequential models against the independent MPFR dot oracle
//    (oracles/dot_oracle.hpp, OAddend): random blocks of every pair of named element formats
//    with adversarial C (cancelling the sum, beside it, ties, far above and below it,
//    subnormal, NaN, Inf), scales aimed at each destination's range, every rounding,
//    saturation and tininess, into f32, f16 and bf16; and the level-1 probes of `gen dot
//    --addend yes --to ...` (vectors/README.md 6) the same way;
//  - hand cases with the values worked out;
//  - the tensor-core models: C is the model's own (dot_general with C equals mma() /
//    mma_scaled() over the same products), f16 is its f16 accumulator, bf16 is refused, and
//    without C every result is as before;
//  - the GEMM (gemm, dot_pairs) with a C matrix and f16/bf16 outputs on every kernel this CPU
//    runs, against dot_general per output;
//  - the C API's softmx_dot_general_flat_to (the DPI's softmx_dpi_dot_to calls it), against
//    dot_general, and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "oracles/dot_oracle.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "softmx/softmx.h"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"
#include "support/bridge.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::Tally;
constexpr FormatId kElements[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2,
                                  FormatId::e2m3, FormatId::e2m1, FormatId::int8};
constexpr FormatId kDests[] = {FormatId::f32, FormatId::f16, FormatId::bf16};

/// n block pairs in both views (the library's BlockRef, the oracle's OBlock).
struct Case {
  FormatId fa = FormatId::e4m3, fb = FormatId::e4m3;
  std::vector<std::uint8_t> sa, sb;
  std::vector<std::vector<std::uint8_t>> ca, cb;

  std::vector<BlockRef> a() const {
    std::vector<BlockRef> r;
    for (std::size_t j = 0; j < sa.size(); ++j) r.push_back({fa, sa[j], ca[j]});
    return r;
  }
  std::vector<BlockRef> b() const {
    std::vector<BlockRef> r;
    for (std::size_t j = 0; j < sb.size(); ++j) r.push_back({fb, sb[j], cb[j]});
    return r;
  }
  std::vector<oracle::OBlock> oa() const {
    std::vector<oracle::OBlock> r;
    for (std::size_t j = 0; j < sa.size(); ++j) r.push_back({conformance::to_oracle(fa), sa[j], ca[j]});
    return r;
  }
  std::vector<oracle::OBlock> ob() const {
    std::vector<oracle::OBlock> r;
    for (std::size_t j = 0; j < sb.size(); ++j) r.push_back({conformance::to_oracle(fb), sb[j], cb[j]});
    return r;
  }
};

std::string describe(const Case& c, FormatId to, std::optional<std::uint32_t> cc, const char* model, const Context& ctx,
                     const Result& got, const oracle::Outcome& want) {
  std::ostringstream o;
  o << std::hex << std::uppercase << model << " " << format(c.fa).name << "x" << format(c.fb).name << " -> "
    << format(to).name << " " << name(ctx.rounding) << " " << name(ctx.saturation) << " tiny-" << name(ctx.tininess);
  for (std::size_t j = 0; j < c.sa.size(); ++j) {
    o << " [" << int(c.sa[j]) << ":";
    for (auto x : c.ca[j]) o << " " << int(x);
    o << " | " << int(c.sb[j]) << ":";
    for (auto x : c.cb[j]) o << " " << int(x);
    o << "]";
  }
  o << " C=" << (cc ? std::to_string(*cc) : std::string("none")) << " softmx " << got.code << "/" << int(got.flags)
    << " oracle " << want.code << "/" << int(want.flags);
  return o.str();
}

/// Both models of one case with destination `to` and addend `c`, every context, against the
/// oracle: one count per (model, context).
void check(const Case& c, FormatId to, std::optional<std::uint32_t> cc, Tally& t) {
  const auto a = c.a(), b = c.b();
  const auto oa = c.oa(), ob = c.ob();
  const DotDestination dst{to, cc};
  const oracle::OAddend od{conformance::to_oracle(to), cc.has_value(), cc.value_or(0)};
  const oracle::AllOutcomes exact = oracle::dot_exact(oa, ob, od);
  for (const Context& ctx : conformance::all_contexts()) {
    const auto mo = conformance::to_oracle(ctx.rounding);
    const auto so = conformance::to_oracle(ctx.saturation);
    const auto tn = conformance::to_oracle(ctx.tininess);
    const Result got = dot_general(a, b, dst, ctx, exact_accumulation());
    const oracle::Outcome& want = exact.at(mo, so, tn);
    t.check(got.code == want.code && got.flags == want.flags,
            [&] { return describe(c, to, cc, "exact", ctx, got, want); });
    const Result gs = dot_general(a, b, dst, ctx, fp32_sequential_accumulation());
    const oracle::Outcome ws = oracle::dot_fp32_sequential(oa, ob, od, mo, so, tn);
    t.check(gs.code == ws.code && gs.flags == ws.flags,
            [&] { return describe(c, to, cc, "fp32-sequential", ctx, gs, ws); });
  }
}

std::uint8_t random_code(SplitMix64& rng, FormatId f) {
  const std::uint64_t mask = format(f).code_mask();
  if (rng.below(40) == 0) {  // specials and extremes now and then
    const std::uint8_t specials[] = {0x00, 0x80, 0x7F, 0xFF, 0x7C, 0xFC, 0x7E, 0x7B, 0x01, 0x7D};
    return static_cast<std::uint8_t>(specials[rng.below(10)] & mask);
  }
  return static_cast<std::uint8_t>(rng.next() & mask);
}

/// A code of `to` nearest to u (rne, saturating): for aiming C.
std::uint32_t nearest(FormatId to, const Unpacked& u) {
  Context c;
  c.saturation = Saturation::finite;
  return static_cast<std::uint32_t>(round_pack(format(to), u, c, ocp_dialect()).code);
}

/// An adversarial C for a case: kinds aimed at the sum S (the exact sum rounded into `to`):
/// -S, its neighbours, a tie against S, far above and far below S; and the extremes of `to`:
/// zeros, subnormals, max, Inf, NaNs (quiet, signalling), any bits.
/// A random finite value of either sign, a random 64-bit significand, exponent in [-e, 2e - e).
Unpacked random_finite(SplitMix64& rng, int e) {
  Unpacked u;
  u.cls = ValueClass::finite;
  u.sign = rng.below(2);
  u.sig = rng.next() | (std::uint64_t{1} << 63);
  u.exp = static_cast<int>(rng.below(static_cast<std::uint64_t>(2 * e))) - e;
  return u;
}

std::uint32_t adversarial_c(const Case& c, FormatId to, SplitMix64& rng) {
  const Format& f = format(to);
  const std::uint32_t sign = static_cast<std::uint32_t>(1) << (f.width - 1);
  const std::uint32_t inf = static_cast<std::uint32_t>(f.max_finite_magnitude() + 1);
  const std::uint32_t quiet = static_cast<std::uint32_t>(1) << (f.man_bits - 1);
  Context probe;
  probe.saturation = Saturation::finite;
  const Result s = dot_general(c.a(), c.b(), DotDestination{to, std::nullopt}, probe);
  Unpacked su = unpack(f, s.code);
  const bool finite = su.cls == ValueClass::finite;
  switch (rng.below(12)) {
    case 0: return static_cast<std::uint32_t>(rng.next() & f.code_mask());
    case 1: return static_cast<std::uint32_t>(s.code ^ sign);  // -S: cancels when S is exact
    case 2: {  // -S's neighbours
      const std::uint32_t m = static_cast<std::uint32_t>(s.code) & ~sign;
      const std::uint32_t n = rng.below(2) ? m + 1 : (m ? m - 1 : 1);
      return (static_cast<std::uint32_t>(s.code) & sign) ^ sign ^ (n > f.max_finite_magnitude() ? m : n);
    }
    case 3:  // half an ulp of S: a tie when S is exact
      if (!finite) return 0;
      su.exp -= f.man_bits + 1;
      su.sig = std::uint64_t{1} << 63;
      su.sign = rng.below(2);
      return nearest(to, su);
    case 4:  // far above S (the sum below a quarter of an ulp of C)
      if (!finite) return static_cast<std::uint32_t>(f.max_finite_magnitude());
      su.exp += f.man_bits + 2 + static_cast<int>(rng.below(4));
      su.sign = rng.below(2);
      return nearest(to, su);
    case 5:  // far below S
      if (!finite) return 1;
      su.exp -= f.man_bits + 2 + static_cast<int>(rng.below(20));
      su.sign = rng.below(2);
      return nearest(to, su);
    case 6: return rng.below(2) ? 0 : sign;                                   // +-0
    case 7: return static_cast<std::uint32_t>((rng.below(2) ? sign : 0) | (1 + rng.below(quiet * 2 - 1)));  // subnormal
    case 8: return (rng.below(2) ? sign : 0) | inf;                           // +-Inf
    case 9: {                                                                 // NaNs
      const std::uint32_t nans[] = {inf | quiet, inf | 1, inf | (quiet * 2 - 1), inf | quiet | 1};
      return (rng.below(2) ? sign : 0) | nans[rng.below(4)];
    }
    case 10: return (rng.below(2) ? sign : 0) | static_cast<std::uint32_t>(f.max_finite_magnitude());
    default: {  // anywhere in to's finite range
      Unpacked u;
      u.cls = ValueClass::finite;
      u.sign = rng.below(2);
      u.sig = rng.next() | (std::uint64_t{1} << 63);
      u.exp = f.emin() - f.man_bits + static_cast<int>(rng.below(static_cast<std::uint64_t>(f.bias - f.emin() + f.man_bits + 1)));
      return nearest(to, u);
    }
  }
}

/// A random case: n pairs of k codes with scales near 1, aimed at `to`'s range (the scale
/// product near its overflow threshold or its subnormals), or anywhere (NaN scales now and then).
Case random_case(SplitMix64& rng, FormatId fa, FormatId fb, FormatId to) {
  Case c;
  c.fa = fa, c.fb = fb;
  const std::size_t n = 1 + rng.below(3), k = 1 + rng.below(rng.below(2) ? 16 : 4);
  const Format& f = format(to);
  int centre = 0;  // the scale product's exponent
  switch (rng.below(4)) {
    case 0: centre = 0; break;
    case 1: centre = static_cast<int>(f.bias) - 2 + static_cast<int>(rng.below(6)); break;        // overflow
    case 2: centre = f.emin() - f.man_bits - 8 + static_cast<int>(rng.below(20)); break;        // subnormals
    default: centre = static_cast<int>(rng.below(509)) - 254; break;                              // anywhere
  }
  for (std::size_t j = 0; j < n; ++j) {
    const int e = centre + static_cast<int>(rng.below(5)) - 2;
    const int ea = std::clamp(e / 2, -127, 127);
    c.sa.push_back(static_cast<std::uint8_t>(127 + ea));
    c.sb.push_back(static_cast<std::uint8_t>(std::clamp(127 + e - ea, 0, 254)));
    if (rng.below(150) == 0) c.sa.back() = 0xFF;
    c.ca.emplace_back();
    c.cb.emplace_back();
    for (std::size_t i = 0; i < k; ++i) {
      c.ca.back().push_back(random_code(rng, fa));
      c.cb.back().push_back(random_code(rng, fb));
    }
  }
  return c;
}

TEST(DotAddend, RandomBlocksEveryFormatPairEveryDestinationAgainstMpfr) {
  Tally t("dot addend random: 36 element pairs x f32/f16/bf16 x 40 cases with adversarial C and 4 without, "
          "exact and fp32-sequential, every context, vs MPFR");
  SplitMix64 rng(0xADD0C);
  for (FormatId fa : kElements)
    for (FormatId fb : kElements)
      for (FormatId to : kDests)
        for (int i = 0; i < 44; ++i) {
          const Case c = random_case(rng, fa, fb, to);
          check(c, to, i < 40 ? std::optional<std::uint32_t>(adversarial_c(c, to, rng)) : std::nullopt, t);
        }
  t.report();
}

/// The level-1 cases of `gen dot --addend yes --to TO` (vectors/README.md 6: the C probes and
/// the destination's boundaries) against the oracle.
TEST(DotAddend, GenLevel1ProbesAgainstMpfr) {
  Tally t("dot addend gen level-1 probes: 6 element pairs x shapes x f32/f16/bf16, with and without C, "
          "exact and fp32-sequential, every context, vs MPFR");
  const std::pair<FormatId, FormatId> pairs[] = {{FormatId::e4m3, FormatId::e4m3}, {FormatId::e5m2, FormatId::e5m2},
                                                 {FormatId::e2m1, FormatId::e2m1}, {FormatId::int8, FormatId::e3m2},
                                                 {FormatId::e2m3, FormatId::e5m2}, {FormatId::e4m3, FormatId::int8}};
  const std::pair<std::uint32_t, std::uint32_t> shapes[] = {{4, 1}, {32, 1}, {3, 3}};
  // Plain variables, not structured bindings: lambdas below capture them (clang before 16
  // refuses to capture a structured binding, and CI's sanitizer build is clang).
  for (const auto& pair : pairs)
    for (const auto& shape : shapes) {
      const FormatId fa = pair.first, fb = pair.second;
      const std::size_t k = shape.first, n = shape.second;
      for (FormatId to : kDests)
        for (bool addend : {false, true}) {
          if (!addend && to == FormatId::f32) continue;  // test_dot's own level
          vec::Header h;
          h.operation = vec::Operation::dot;
          h.from = fa;
          h.to = fb;
          h.block = k;
          h.blocks = n;
          h.ctx.saturation = Saturation::none;
          h.dot_to = to;
          h.dot_addend = addend;
          h.validate("test");
          vec::for_each_case(h, vec::GenOptions{}, [&](std::span<const std::uint64_t> ops) {
            Case c;
            c.fa = fa, c.fb = fb;
            for (std::size_t j = 0; j < n; ++j) {
              const std::size_t base = j * (2 * k + 2);
              c.sa.push_back(static_cast<std::uint8_t>(ops[base]));
              c.sb.push_back(static_cast<std::uint8_t>(ops[base + 1 + k]));
              c.ca.emplace_back();
              c.cb.emplace_back();
              for (std::size_t i = 0; i < k; ++i) {
                c.ca.back().push_back(static_cast<std::uint8_t>(ops[base + 1 + i]));
                c.cb.back().push_back(static_cast<std::uint8_t>(ops[base + 2 + k + i]));
              }
            }
            check(c, to, addend ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(ops.back())) : std::nullopt, t);
          });
        }
    }
  t.report();
}

// ---- hand cases -------------------------------------------------------------------------------

Result one_pair(std::vector<std::uint8_t> a, std::vector<std::uint8_t> b, DotDestination d, Context ctx = {},
                const AccumulationModel& m = exact_accumulation(), std::uint8_t sa = 127, std::uint8_t sb = 127) {
  const BlockRef ra{FormatId::e4m3, sa, a}, rb{FormatId::e4m3, sb, b};
  return dot(ra, rb, d, ctx, m);
}

TEST(DotAddend, HandCases) {
  const std::uint8_t one = 0x38, m0 = 0x80;  // e4m3 1.0, -0
  Context rd;
  rd.rounding = Rounding::rd;
  Context ru;
  ru.rounding = Rounding::ru;
  const AccumulationModel &ex = exact_accumulation(), &seq = fp32_sequential_accumulation();
  // 1 * 1 + 1 = 2, into f32, f16, bf16.
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f32, 0x3F800000u}).code, 0x40000000u);
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f16, 0x3C00u}).code, 0x4000u);
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::bf16, 0x3F80u}).code, 0x4000u);
  // No destination given: DotGeneral itself.
  EXPECT_EQ(one_pair({one}, {one}, {}), dot(BlockRef{FormatId::e4m3, 127, std::vector<std::uint8_t>{one}},
                                             BlockRef{FormatId::e4m3, 127, std::vector<std::uint8_t>{one}}, Context{}));
  // Signed zeros (IEEE 754 6.3 over every term): all products -0 (-0 * 1... A -0, B +0).
  const Result nz = one_pair({m0, m0}, {0, 0}, {FormatId::f32, 0x80000000u});
  EXPECT_EQ(nz.code, 0x80000000u);  // -0 + -0 = -0
  EXPECT_EQ(one_pair({m0, m0}, {0, 0}, {FormatId::f32, 0u}).code, 0u);              // -0 + +0 = +0
  EXPECT_EQ(one_pair({m0, m0}, {0, 0}, {FormatId::f32, 0u}, rd).code, 0x80000000u);  // ... -0 under rd
  EXPECT_EQ(one_pair({m0, m0}, {0, 0}, {FormatId::f32, std::nullopt}).code, 0x80000000u);  // no C: the products' -0
  // fp32-sequential starts its accumulator at C, but each block sum starts at +0: +0 + -0 = +0.
  EXPECT_EQ(one_pair({m0, m0}, {0, 0}, {FormatId::f32, 0x80000000u}, {}, seq).code, 0u);
  // C cancels the sum exactly: +0, -0 under rd.
  EXPECT_EQ(one_pair({one, one}, {one, one}, {FormatId::f16, 0xC000u}).code, 0u);
  EXPECT_EQ(one_pair({one, one}, {one, one}, {FormatId::f16, 0xC000u}, rd).code, 0x8000u);
  // bf16 ties: 1 + 2^-8 (e4m3 2^-4 * 2^-4) is half an ulp of 1: rne 1.0, ru the next code.
  const Result tie = one_pair({one, 0x18}, {one, 0x18}, {FormatId::bf16, 0u});
  EXPECT_EQ(tie.code, 0x3F80u);
  EXPECT_EQ(tie.flags, flag::inexact);
  EXPECT_EQ(one_pair({one, 0x18}, {one, 0x18}, {FormatId::bf16, 0u}, ru).code, 0x3F81u);
  // The same tie made by C: 1 * 1 + 2^-8.
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::bf16, 0x3B80u}).code, 0x3F80u);
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::bf16, 0x3B80u}, ru).code, 0x3F81u);
  // x + tiny - x: C = -(448 * 448) with the products 448 * 448 and 2^-9 * 2^-9: exact keeps 2^-18;
  // fp32-sequential's block sum rounds 2^-18 away first.
  const std::uint32_t minus_big = 0xC8440000u;  // -200704
  EXPECT_EQ(one_pair({0x7E, 0x01}, {0x7E, 0x01}, {FormatId::f32, minus_big}).code, 0x36800000u);  // 2^-18
  EXPECT_EQ(one_pair({0x7E, 0x01}, {0x7E, 0x01}, {FormatId::f32, minus_big}, {}, seq).code, 0u);
  // Accumulator bypass: C = 2^12 in f16 (ulp 4) and the sum 1: rne keeps C, ru adds an ulp.
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f16, 0x6C00u}).code, 0x6C00u);
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f16, 0x6C00u}, ru).code, 0x6C01u);
  // Overflow of the destination only: 2^15 * 3 into f16 is Inf (overflow, inexact); into bf16
  // exact.
  const Result big = one_pair({0x40}, {one}, {FormatId::f16, 0x7800u}, {}, ex, 127 + 15);  // 2 * 2^15 + 2^15
  EXPECT_EQ(big.code, 0x7C00u);
  EXPECT_EQ(big.flags, flag::overflow | flag::inexact);
  EXPECT_EQ(one_pair({0x40}, {one}, {FormatId::bf16, 0x4700u}, {}, ex, 127 + 15).code, 0x47C0u);
  Context fin;
  fin.saturation = Saturation::finite;
  EXPECT_EQ(one_pair({0x40}, {one}, {FormatId::f16, 0x7800u}, fin, ex, 127 + 15).code, 0x7BFFu);
  // NaN and Inf C: a quiet NaN gives the canonical NaN, a signalling one raises invalid;
  // +Inf + finite = +Inf; +Inf C against a -Inf product (e5m2) is NaN, invalid.
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f16, 0x7E55u}), (Result{0x7E00u, 0}));
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f16, 0x7C01u}), (Result{0x7E00u, flag::invalid}));
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::bf16, 0xFF81u}, {}, seq), (Result{0x7FC0u, flag::invalid}));
  EXPECT_EQ(one_pair({one}, {one}, {FormatId::f32, 0x7F800000u}), (Result{0x7F800000u, 0}));
  {
    const std::vector<std::uint8_t> ninf{0xFC}, o{0x3C};  // e5m2 -Inf, 1
    const BlockRef ra{FormatId::e5m2, 127, ninf}, rb{FormatId::e5m2, 127, o};
    for (const AccumulationModel* m : {&ex, &seq}) {
      EXPECT_EQ(dot(ra, rb, DotDestination{FormatId::f32, 0x7F800000u}, Context{}, *m), (Result{0x7FC00000u, flag::invalid}));
      EXPECT_EQ(dot(ra, rb, DotDestination{FormatId::f16, 0xFC00u}, Context{}, *m), (Result{0xFC00u, 0}));
    }
  }
  // Subnormal C with tiny products: 2^-24 (f16's smallest) + 2^-18 * 2^-254 rounds to C, inexact
  // and underflow (the result is subnormal).
  EXPECT_EQ(one_pair({0x01}, {0x01}, {FormatId::f16, 0x0001u}, {}, ex, 0, 0), (Result{0x0001u, flag::inexact | flag::underflow}));
  // fp32-sequential into f16: the f32 accumulator 1 + 2^-11 (exact), then one rounding into
  // f16, a tie to even, its flags ORed.
  EXPECT_EQ(one_pair({one, 0x10}, {one, 0x08}, {FormatId::f16, std::nullopt}, {}, seq), (Result{0x3C00u, flag::inexact}));
}

TEST(DotAddend, BadDestinationsAreRefused) {
  const std::vector<std::uint8_t> one{0x38};
  const BlockRef a{FormatId::e4m3, 127, one};
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::e4m3, std::nullopt}, Context{}), std::invalid_argument);
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::f64, std::nullopt}, Context{}), std::invalid_argument);
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::f16, 0x10000u}, Context{}), std::invalid_argument);
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::bf16, 0x10000u}, Context{}), std::invalid_argument);
  for (const TensorCoreModel* m : tensor_core_models()) {
    try {
      (void)dot(a, a, DotDestination{FormatId::bf16, std::nullopt}, Context{}, *m);
      ADD_FAILURE() << m->name() << " took a bf16 destination";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::f16, std::nullopt}, Context{}, blackwell_mxf4_model()),
               std::invalid_argument);
  // A model that defines no destination (one that implements dot_general only) refuses.
  struct Plain final : AccumulationModel {
    std::string_view name() const override { return "plain"; }
    Result dot_general(std::span<const BlockRef> x, std::span<const BlockRef> y, const Context& c) const override {
      return exact_accumulation().dot_general(x, y, c);
    }
  } plain;
  EXPECT_EQ(dot(a, a, DotDestination{}, Context{}, plain).code, 0x3F800000u);
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::f32, 0u}, Context{}, plain), std::invalid_argument);
  EXPECT_THROW(dot(a, a, DotDestination{FormatId::f16, std::nullopt}, Context{}, plain), std::invalid_argument);
}

// ---- tensor-core models ----------------------------------------------------------------------

TEST(DotAddend, TensorCoreCIsTheModelsOwnC) {
  Tally t("dot addend tensor-core: dot_general with C == mma()/mma_scaled() over the same products, f32 and f16, "
          "every model; without C as before");
  SplitMix64 rng(0x7C0DE);
  for (const TensorCoreModel* m : tensor_core_models()) {
    const bool gst = m->params().scale_application == ScaleApplication::per_group;
    const bool scaled = m->params().scale_application != ScaleApplication::none;
    for (FormatId acc : {FormatId::f32, FormatId::f16}) {
      if (gst && acc == FormatId::f16) continue;
      const Format& fc = format(acc);
      for (int i = 0; i < 300; ++i) {
        const FormatId fe = gst ? FormatId::e2m1 : (rng.below(2) ? FormatId::e4m3 : FormatId::e5m2);
        const std::size_t k = gst ? 16 * (1 + rng.below(4)) : 1 + rng.below(40);
        const std::size_t n = 1 + rng.below(3);
        std::vector<std::uint8_t> all_a, all_b, sa(n), sb(n);
        for (std::size_t x = 0; x < n * k; ++x) {
          all_a.push_back(random_code(rng, fe));
          all_b.push_back(random_code(rng, fe));
        }
        for (std::size_t j = 0; j < n; ++j) {
          sa[j] = scaled ? static_cast<std::uint8_t>(117 + rng.below(21)) : 127;
          sb[j] = scaled ? static_cast<std::uint8_t>(117 + rng.below(21)) : 127;
        }
        std::vector<BlockRef> ra, rb;
        for (std::size_t j = 0; j < n; ++j) {
          ra.push_back({fe, sa[j], std::span(all_a).subspan(j * k, k)});
          rb.push_back({fe, sb[j], std::span(all_b).subspan(j * k, k)});
        }
        std::uint32_t c = static_cast<std::uint32_t>(rng.next() & fc.code_mask());
        if (rng.below(2)) c = nearest(acc, random_finite(rng, 10));  // a finite C near the products
        const Result got = dot_general(ra, rb, DotDestination{acc, c}, Context{}, *m);
        const Result want = scaled ? m->mma_scaled(fe, all_a, fe, all_b, FormatId::e8m0, k, sa, sb, acc, c)
                                   : m->mma(fe, all_a, fe, all_b, acc, c);
        t.check(got == want, [&] {
          std::ostringstream o;
          o << std::hex << m->name() << " " << format(acc).name << " k=" << std::dec << k << " n=" << n << std::hex
            << " C=" << c << ": dot_general " << got.code << "/" << int(got.flags) << " mma " << want.code << "/"
            << int(want.flags);
          return o.str();
        });
        if (acc == FormatId::f32) {  // without C: the result of DotGeneral before C existed
          const Result plain = dot_general(ra, rb, Context{}, *m);
          t.check(dot_general(ra, rb, DotDestination{}, Context{}, *m) == plain && m->dot_general(ra, rb, Context{}) == plain,
                  [&] { return std::string(m->name()) + ": DotDestination{} differs from dot_general"; });
        }
      }
    }
  }
  t.report();
}

// ---- the GEMM ------------------------------------------------------------------------------------

TEST(DotAddend, GemmAndDotPairsWithCOnEveryKernelEqualDotGeneral) {
  Tally t("dot addend GEMM: gemm and dot_pairs with a C matrix into f32/f16/bf16, every kernel x exact, "
          "fp32-sequential and every tensor-core model, == dot_general per output");
  SplitMix64 rng(0x6E33);
  std::vector<const AccumulationModel*> models{&exact_accumulation(), &fp32_sequential_accumulation()};
  for (const TensorCoreModel* m : tensor_core_models()) models.push_back(m);
  for (GemmKernel kern : supported_gemm_kernels())
    for (const AccumulationModel* model : models)
      for (FormatId to : kDests) {
        const auto* tc = dynamic_cast<const TensorCoreModel*>(model);
        const bool gst = tc && tc->params().scale_application == ScaleApplication::per_group;
        if (tc && (to == FormatId::bf16 || (gst && to == FormatId::f16))) continue;  // refused (BadDestinations)
        for (int rep = 0; rep < 3; ++rep) {
          const FormatId fe = gst ? FormatId::e2m1 : tc ? FormatId::e4m3 : kElements[rng.below(6)];
          const std::size_t block = gst ? 32 : 8 + rng.below(25);
          const std::size_t K = gst ? 64 : block * (1 + rng.below(3)) - rng.below(3);
          const std::size_t M = 1 + rng.below(9), N = 1 + rng.below(19), nb = (K + block - 1) / block;
          std::vector<std::uint8_t> ac(M * K), bc(K * N), as(M * nb), bs(nb * N);
          for (auto& x : ac) x = rng.below(3) ? static_cast<std::uint8_t>(rng.next() & format(fe).code_mask()) : 0;
          for (auto& x : bc) x = random_code(rng, fe);
          for (auto& x : as) x = static_cast<std::uint8_t>(120 + rng.below(15));
          for (auto& x : bs) x = static_cast<std::uint8_t>(120 + rng.below(15));
          const Format& f = format(to);
          std::vector<std::uint32_t> cm(M * N);
          for (auto& x : cm) {
            switch (rng.below(6)) {
              case 0: x = static_cast<std::uint32_t>(rng.next() & f.code_mask()); break;  // any: NaN, Inf, subnormal
              case 1: x = 0; break;
              default: x = nearest(to, random_finite(rng, 15));
            }
          }
          GemmOptions o;
          o.model = model;
          o.kernel = kern;
          o.threads = 1 + static_cast<unsigned>(rng.below(3));
          o.out.rounding = kDeterministicRoundings[rng.below(6)];
          o.to = to;
          o.addend = cm;
          const GemmOperand a = gemm_rows(fe, M, K, block, ac, as), b = gemm_columns(fe, K, N, block, bc, bs);
          std::vector<std::uint32_t> c(M * N);
          std::vector<Flags> fl(M * N);
          gemm(a, b, o, c, fl);
          // dot_pairs: the pairs (row i of A, column i mod N of B), C the same as output (i, i mod N).
          std::vector<std::uint8_t> pb(M * K), pbs(M * nb);
          std::vector<std::uint32_t> pc(M);
          for (std::size_t i = 0; i < M; ++i) {
            for (std::size_t x = 0; x < K; ++x) pb[i * K + x] = bc[x * N + i % N];
            for (std::size_t x = 0; x < nb; ++x) pbs[i * nb + x] = bs[x * N + i % N];
            pc[i] = cm[i * N + i % N];
          }
          GemmOptions po = o;
          po.addend = pc;
          std::vector<std::uint32_t> d(M);
          std::vector<Flags> dfl(M);
          dot_pairs(a, gemm_rows(fe, M, K, block, pb, pbs), po, d, dfl);
          std::vector<std::uint8_t> ra_codes(K), rb_codes(K);
          for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
              for (std::size_t x = 0; x < K; ++x) ra_codes[x] = ac[i * K + x], rb_codes[x] = bc[x * N + j];
              std::vector<BlockRef> ra, rb;
              for (std::size_t x = 0; x < nb; ++x) {
                const std::size_t first = x * block, len = std::min(block, K - first);
                ra.push_back({fe, as[i * nb + x], std::span(ra_codes).subspan(first, len)});
                rb.push_back({fe, bs[x * N + j], std::span(rb_codes).subspan(first, len)});
              }
              const Result want = dot_general(ra, rb, DotDestination{to, cm[i * N + j]}, o.out, *model);
              const auto what = [&](const char* who, std::uint32_t code, Flags fg) {
                std::ostringstream s;
                s << std::hex << who << " " << name(kern) << " " << model->name() << " -> " << format(to).name << " "
                  << format(fe).name << " (" << std::dec << i << "," << j << ") C=" << std::hex << cm[i * N + j] << ": "
                  << code << "/" << int(fg) << " dot_general " << want.code << "/" << int(want.flags);
                return s.str();
              };
              t.check(c[i * N + j] == want.code && fl[i * N + j] == want.flags,
                      [&] { return what("gemm", c[i * N + j], fl[i * N + j]); });
              if (j == i % N)
                t.check(d[i] == want.code && dfl[i] == want.flags, [&] { return what("dot_pairs", d[i], dfl[i]); });
            }
        }
      }
  t.report();
}

TEST(DotAddend, GemmRefusesWhatDotGeneralRefuses) {
  const std::vector<std::uint8_t> codes(32, 0x38), sc(1, 127);
  const GemmOperand a = gemm_rows(FormatId::e4m3, 1, 32, 32, codes, sc);
  std::vector<std::uint32_t> c(1);
  GemmOptions o;
  o.to = FormatId::e4m3;
  EXPECT_THROW(dot_pairs(a, a, o, c), std::invalid_argument);
  o.to = FormatId::bf16;
  o.model = &hopper_fp8_wgmma_model();
  EXPECT_THROW(dot_pairs(a, a, o, c), std::invalid_argument);
  o.model = nullptr;
  const std::vector<std::uint32_t> bad{0x10000u};
  o.addend = bad;
  EXPECT_THROW(dot_pairs(a, a, o, c), std::invalid_argument);
  o.addend = std::span<const std::uint32_t>(bad.data(), 0);  // empty: no C
  o.to = FormatId::f16;
  dot_pairs(a, a, o, c);
  EXPECT_EQ(c[0], 0x5000u);  // 32 in f16
}

// ---- the C API ------------------------------------------------------------------------------------

TEST(DotAddend, CApiEqualsDotGeneral) {
  Tally t("dot addend C API: softmx_dot_general_flat_to == dot_general with DotDestination, every model x "
          "f32/f16/bf16, with and without C");
  SplitMix64 rng(0xCA91);
  softmx_format fe{}, f32{}, f16{}, bf16{}, e5m2{};
  ASSERT_EQ(softmx_format_lookup("e4m3", &fe, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_format_lookup("e5m2", &e5m2, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_format_lookup("f32", &f32, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_format_lookup("f16", &f16, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_format_lookup("bf16", &bf16, nullptr), SOFTMX_OK);
  const std::pair<FormatId, const softmx_format*> dests[] = {{FormatId::f32, &f32}, {FormatId::f16, &f16}, {FormatId::bf16, &bf16}};
  for (std::size_t mi = 0; mi < softmx_accumulation_count(); ++mi) {
    const softmx_accumulation* cm = softmx_accumulation_at(mi);
    const AccumulationModel& m = *find_accumulation_model(softmx_accumulation_name(cm));
    const auto* tc = dynamic_cast<const TensorCoreModel*>(&m);
    const bool gst = tc && tc->params().scale_application == ScaleApplication::per_group;
    for (const auto& dest : dests) {
      const FormatId to = dest.first;  // captured below: no structured binding (clang < 16)
      const softmx_format* const cto = dest.second;
      if (tc && (to == FormatId::bf16 || (gst && to == FormatId::f16))) continue;
      // MXDOTP rounds into FP32 or FP16ALT (bf16) only (docs/research/mxdotp.md).
      if (m.name() == "mxdotp" && to == FormatId::f16) continue;
      for (int i = 0; i < 40; ++i) {
        const FormatId f = gst ? FormatId::e2m1 : FormatId::e4m3;
        softmx_format cf{};
        ASSERT_EQ(softmx_format_named(static_cast<std::int32_t>(f), &cf, nullptr), SOFTMX_OK);
        const std::size_t k = gst ? 32 : 1 + rng.below(32), n = 1 + rng.below(3);
        std::vector<std::uint8_t> ac(n * k), bc(n * k), as(n), bs(n);
        for (auto& x : ac) x = random_code(rng, f);
        for (auto& x : bc) x = random_code(rng, f);
        for (std::size_t j = 0; j < n; ++j) as[j] = static_cast<std::uint8_t>(120 + rng.below(15)), bs[j] = static_cast<std::uint8_t>(120 + rng.below(15));
        const bool with_c = i % 4 != 0;
        const std::uint32_t c = static_cast<std::uint32_t>(rng.next() & format(to).code_mask());
        softmx_context ctx = SOFTMX_CONTEXT_INIT;
        ctx.rounding = static_cast<std::int32_t>(rng.below(6));
        std::uint32_t got = 0;
        std::uint8_t fl = 0;
        softmx_error err{};
        const int st = softmx_dot_general_flat_to(&cf, nullptr, as.data(), ac.data(), &cf, nullptr, bs.data(), bc.data(), k, n,
                                                  cto, with_c ? &c : nullptr, &ctx, cm, &got, &fl, &err);
        std::vector<BlockRef> ra, rb;
        for (std::size_t j = 0; j < n; ++j) {
          ra.push_back({f, as[j], std::span(ac).subspan(j * k, k)});
          rb.push_back({f, bs[j], std::span(bc).subspan(j * k, k)});
        }
        Context cx;
        cx.rounding = static_cast<Rounding>(ctx.rounding);
        const Result want = dot_general(ra, rb, DotDestination{to, with_c ? std::optional<std::uint32_t>(c) : std::nullopt}, cx, m);
        t.check(st == SOFTMX_OK && got == want.code && fl == want.flags, [&] {
          return std::string(m.name()) + " -> " + std::string(format(to).name) + ": status " + std::to_string(st) + " " +
                 err.message + ", got " + std::to_string(got) + " want " + std::to_string(want.code);
        });
      }
    }
  }
  t.report();
  // Refusals, with their statuses.
  const std::uint8_t one = 0x38, s = 127;
  std::uint32_t r = 0;
  softmx_error err{};
  const std::uint32_t big = 0x10000;
  EXPECT_EQ(softmx_dot_general_flat_to(&fe, nullptr, &s, &one, &fe, nullptr, &s, &one, 1, 1, &f16, &big, nullptr, nullptr,
                                       &r, nullptr, &err),
            SOFTMX_ERR_BAD_CODE);
  EXPECT_EQ(softmx_dot_general_flat_to(&fe, nullptr, &s, &one, &fe, nullptr, &s, &one, 1, 1, &e5m2, nullptr, nullptr,
                                       nullptr, &r, nullptr, &err),
            SOFTMX_ERR_UNSUPPORTED);
  const softmx_accumulation* wg = nullptr;
  ASSERT_EQ(softmx_accumulation_lookup("hopper-fp8-wgmma", &wg, nullptr), SOFTMX_OK);
  EXPECT_EQ(softmx_dot_general_flat_to(&fe, nullptr, &s, &one, &fe, nullptr, &s, &one, 1, 1, &bf16, nullptr, nullptr, wg,
                                       &r, nullptr, &err),
            SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("bf16"), std::string::npos) << err.message;
  // NULL destination and no C: softmx_dot_general_flat's result; 1 * 1 + 1 into f16: 2.
  std::uint32_t plain = 0;
  ASSERT_EQ(softmx_dot_general_flat(&fe, &s, &one, &fe, &s, &one, 1, 1, nullptr, nullptr, &plain, nullptr, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_dot_general_flat_to(&fe, nullptr, &s, &one, &fe, nullptr, &s, &one, 1, 1, nullptr, nullptr, nullptr,
                                       nullptr, &r, nullptr, nullptr),
            SOFTMX_OK);
  EXPECT_EQ(r, plain);
  const std::uint32_t c1 = 0x3C00;
  ASSERT_EQ(softmx_dot_general_flat_to(&fe, nullptr, &s, &one, &fe, nullptr, &s, &one, 1, 1, &f16, &c1, nullptr, nullptr,
                                       &r, nullptr, nullptr),
            SOFTMX_OK);
  EXPECT_EQ(r, 0x4000u);
}

}  // namespace
}  // namespace softmx
