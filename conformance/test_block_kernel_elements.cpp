// conformance/test_block_kernel_elements.cpp: the many-block quantize kernel
// (simd/block_lanes.hpp through BlockQuantizer::run_blocks) for runtime element formats
// (docs/BLOCKS.md 1.1) and for the scale rules the kernel computes itself (floor, ceil, rceil,
// even: BlockHooks::scale_round), on every vector instruction set this CPU runs, against the
// scalar steps (BlockOptions::isa = Isa::scalar): every scale code, every element code and the
// flags must be equal.
//  - Exhaustive over f16 and over bf16: all 65,536 codes in blocks of 32, in code order and in
//    two seeded shuffles (so each value meets other block maxima, hence other scales), for a
//    list of named and runtime elements x the five scale rules, rne (the FPU-assisted direct
//    path) and rz (the integer direct path).
//  - Seeded random f32 rows: blocks of normal values over a spread of binades whose amax sits
//    on a rule's boundary now and then (an all-ones fraction, a power of two, max_E's fraction
//    and one ulp either side, m_E + 1 leading ones), among zero blocks, source subnormals, NaN,
//    Inf and blocks far down; every signed ExMy of 4 to 8 bits with every specials kind its
//    width allows, and the specs of BLOCKS.md 1.1 and a few with extreme biases, x the five
//    rules x the six deterministic roundings x (finite, after rounding) and (none, before
//    rounding), ocp, and ml_dtypes under rne; k = 32 (the kernel's compiled block size) and 64.
//  - That the kernel is the one serving: BlockQuantizer::many_block_kernel() for every runtime
//    element under a vector instruction set, and kernel_scale() for the rules above.
//  - Dequantizer::run into f32 (the vector lanes for sign-magnitude elements, fnuz ones
//    included, NaN and Inf codes from the row of scale 127) against dequantize_element.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "block/block_quantizer.hpp"
#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"
#include "support/runtime_elements.hpp"

namespace softmx {
namespace {

std::vector<Isa> vector_isas() {
  std::vector<Isa> v;
  for (Isa isa : supported_isas())
    if (isa != Isa::scalar) v.push_back(isa);
  return v;
}

/// Every signed ExMy of 4 to 8 bits that can be an element, every specials kind its width
/// allows, the specs of BLOCKS.md 1.1, and biases at the direct path's limits (emin - m = -124
/// and below it; emin far above 0; emax_E < 0).
std::vector<Format> runtime_family() {
  return conformance::runtime_element_family({"e1m2", "e2m2", "e3m4", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "int3",
                                              "int4", "int7", "e2m1:bias=3", "e3m3:bias=-5", "e2m1:bias=125",
                                              "e2m1:bias=126", "e3m2:bias=140", "e4m3:bias=-100", "e3m0:bias=2"});
}

/// The elements of the exhaustive test: the named ones and the runtime specs of BLOCKS.md 1.1.
std::vector<ElementFormat> exhaustive_elements() {
  std::vector<ElementFormat> v = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2,
                                  FormatId::e2m3, FormatId::e2m1, FormatId::int8};
  for (const char* s : {"e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e2m2", "e1m2", "e3m3", "e3m4", "int4", "e2m1:bias=3",
                        "e2m1:bias=126", "e3m2:bias=140"})
    v.push_back(parse_format_spec(s));
  return v;
}

/// quantize_tensor of nb blocks of k values on each vector instruction set against Isa::scalar,
/// one case per block (scale and codes) and one for the flags. Options refused on the scalar
/// path (a NaN the dialect cannot encode) must be refused alike.
void compare(conformance::Tally& t, FormatId src, const void* data, std::size_t nb, std::size_t k, BlockOptions o,
             const std::string& what) {
  const std::size_t shape[] = {nb, k};
  o.isa = Isa::scalar;
  MxTensor want;
  bool refused = false;
  try {
    want = quantize_tensor(src, data, shape, 1, k, o);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  for (Isa isa : vector_isas()) {
    o.isa = isa;
    if (refused) {
      bool also = false;
      try {
        (void)quantize_tensor(src, data, shape, 1, k, o);
      } catch (const std::invalid_argument&) {
        also = true;
      }
      t.check(also, [&] { return what + " " + name(isa) + ": the scalar path refused, the vector one did not"; });
      continue;
    }
    const MxTensor got = quantize_tensor(src, data, shape, 1, k, o);
    for (std::size_t b = 0; b < nb; ++b) {
      t.check(conformance::same_block(got, want, b, k), [&] {
        return what + " " + name(isa) + " block " + std::to_string(b) + ": scale " + std::to_string(got.scales[b]) +
               " (scalar " + std::to_string(want.scales[b]) + ")";
      });
    }
    t.check(got.flags == want.flags, [&] {
      return what + " " + name(isa) + ": flags " + std::to_string(got.flags) + " (scalar " + std::to_string(want.flags) +
             ")";
    });
  }
}

std::string label(const Format& f, ScaleRule r, Rounding rd) {
  return std::string(f.name) + " " + std::string(name(r)) + " " + std::string(name(rd));
}

TEST(BlockKernelElements, EveryF16AndBf16CodeEqualsTheScalarSteps) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  const auto els = exhaustive_elements();
  conformance::Tally t("many-block kernel == scalar steps: every f16 and bf16 code, blocks of 32 in code order and "
                       "two shuffles, " + std::to_string(els.size()) + " elements x 5 scale rules x rne/rz (one "
                       "case per block and per tensor's flags)");
  constexpr std::size_t n = 65536, k = 32, nb = n / k;
  std::vector<std::vector<std::uint16_t>> orders;
  {
    std::vector<std::uint16_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint16_t>(i);
    orders.push_back(v);
    SplitMix64 rng(0xF16);
    for (int s = 0; s < 2; ++s) {
      for (std::size_t i = n - 1; i > 0; --i) std::swap(v[i], v[rng.below(i + 1)]);
      orders.push_back(v);
    }
  }
  for (const ElementFormat& el : els)
    for (ScaleRule rule : kScaleRules)
      for (Rounding rd : {Rounding::rne, Rounding::rz})
        for (FormatId src : {FormatId::f16, FormatId::bf16})
          for (std::size_t o = 0; o < orders.size(); ++o) {
            BlockOptions opt;
            opt.element = el;
            opt.rule = rule;
            opt.rounding = rd;
            if (quantize_unsupported_reason(src, opt)) continue;
            compare(t, src, orders[o].data(), nb, k, opt,
                    label(el, rule, rd) + " from " + std::string(format(src).name) + " order " + std::to_string(o));
          }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  EXPECT_GT(t.cases(), 1000000u);
}

/// The f32 bits of a finite non-zero value of `f` (its largest magnitude), or 0 when not an f32 normal.
std::uint32_t f32_bits_of_max(const Format& f) {
  const Unpacked u = unpack(f, f.max_finite_magnitude());
  if (u.cls != ValueClass::finite || u.exp < -126 || u.exp > 127) return 0;
  return static_cast<std::uint32_t>(u.exp + 127) << 23 | static_cast<std::uint32_t>(u.sig << 1 >> 41);
}

/// A row of nb blocks of 32 f32 values (see the top of this file) for element f.
std::vector<std::uint32_t> draw_row(SplitMix64& rng, std::size_t nb, std::size_t k, const Format& f) {
  std::vector<std::uint32_t> v(nb * k);
  const std::uint32_t max_frac = f32_bits_of_max(f) & 0x7FFFFF;
  const int m = std::min<int>(f.man_bits, 21);
  for (std::size_t b = 0; b < nb; ++b) {
    std::uint32_t* blk = &v[b * k];
    const std::uint32_t top = 1 + static_cast<std::uint32_t>(rng.below(254));
    const std::uint32_t spread = static_cast<std::uint32_t>(rng.below(24));
    for (std::size_t i = 0; i < k; ++i) {
      const std::uint32_t e = top > spread ? top - static_cast<std::uint32_t>(rng.below(spread + 1))
                                           : 1 + static_cast<std::uint32_t>(rng.below(top));
      blk[i] = static_cast<std::uint32_t>(rng.below(2)) << 31 | e << 23 | (static_cast<std::uint32_t>(rng.next()) & 0x7FFFFF);
    }
    const std::size_t at = rng.below(k);
    const std::uint32_t keep = (blk[at] & 0x80000000u) | top << 23;
    const std::uint32_t even_ones = ((1u << (m + 1)) - 1) << (22 - m);  // m_E + 1 leading ones
    switch (rng.below(10)) {
      case 0: blk[at] = keep | 0x7FFFFF; break;                          // an all-ones fraction
      case 1: blk[at] = keep; break;                                     // a power of two
      case 2: blk[at] = keep | max_frac; break;                          // max_E's fraction (rceil)
      case 3: blk[at] = keep | ((max_frac + 1) & 0x7FFFFF); break;       // one ulp above it
      case 4: blk[at] = keep | ((max_frac - 1) & 0x7FFFFF); break;       // one ulp below it
      case 5: blk[at] = keep | even_ones; break;                         // even's carry
      case 6: blk[at] = keep | (even_ones - 1); break;                   // just below it
      default: break;
    }
    switch (rng.below(12)) {
      case 0: for (std::size_t i = 0; i < k; ++i) blk[i] &= 0x80000000u; break;                         // zeros
      case 1: blk[rng.below(k)] = 0x7FC00000u | static_cast<std::uint32_t>(rng.below(2)) << 31; break;  // NaN
      case 2: blk[rng.below(k)] = 0x7F800000u | static_cast<std::uint32_t>(rng.below(2)) << 31; break;  // Inf
      case 3: blk[rng.below(k)] = 1 + static_cast<std::uint32_t>(rng.below(0x7FFFFF)); break;           // subnormal
      case 4: blk[rng.below(k)] &= 0x80000000u; break;                                                  // one zero
      case 5:  // far down: values near 2^-126, the scale clamped at 2^-127
        for (std::size_t i = 0; i < k; ++i) blk[i] = (blk[i] & 0x807FFFFFu) | (1u + static_cast<std::uint32_t>(rng.below(3))) << 23;
        break;
      default: break;
    }
  }
  return v;
}

TEST(BlockKernelElements, RandomF32RowsEqualTheScalarSteps) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  std::vector<Format> fam;
  for (FormatId id : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
    fam.push_back(format(id));
  for (const Format& f : runtime_family()) fam.push_back(f);
  conformance::Tally t("many-block kernel == scalar steps: random f32 rows of 32 blocks, " + std::to_string(fam.size()) +
                       " elements x 5 scale rules x 6 roundings x (finite, after) / (none, before), ocp and "
                       "ml_dtypes (rne), k = 32 and 64 (one case per block and per row's flags)");
  SplitMix64 rng(0xB10C5);
  const Dialect* ml = find_dialect("ml_dtypes");
  ASSERT_NE(ml, nullptr);
  for (const Format& f : fam)
    for (ScaleRule rule : kScaleRules)
      for (Rounding rd : {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro})
        for (int variant = 0; variant < 3; ++variant) {
          if (variant == 2 && rd != Rounding::rne) continue;
          BlockOptions o;
          o.element = f;
          o.rule = rule;
          o.rounding = rd;
          if (variant == 1) {
            o.saturation = Saturation::none;
            o.tininess = Tininess::before_rounding;
          }
          if (variant == 2) o.dialect = ml;
          if (quantize_unsupported_reason(FormatId::f32, o)) continue;
          const std::size_t k = rng.below(4) == 0 ? 64 : 32, nb = 32;
          const auto v = draw_row(rng, nb, k, f);
          compare(t, FormatId::f32, v.data(), nb, k, o,
                  label(f, rule, rd) + " variant " + std::to_string(variant) + " k " + std::to_string(k));
        }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  EXPECT_GT(t.cases(), 100000u);
}

TEST(BlockKernelElements, TheKernelServes) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  conformance::Tally t("the many-block kernel serves every runtime element, and computes the floor, ceil, rceil and "
                       "even scales itself for every element with emax_E >= 0 under ocp");
  std::vector<Format> fam = runtime_family();
  for (FormatId id : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
    fam.push_back(format(id));
  for (const Format& f : fam)
    for (Isa isa : vector_isas())
      for (ScaleRule rule : kScaleRules) {
        BlockOptions o;
        o.element = f;
        o.rule = rule;
        o.isa = isa;
        const detail::BlockQuantizer bq(FormatId::f32, o);
        t.check(bq.many_block_kernel(), [&] { return std::string(f.name) + " " + name(isa) + ": no many-block kernel"; });
        simd::BlockHooks h{};
        h.floor_emax = -1;
        bq.kernel_scale(h);
        const bool want = rule != ScaleRule::floor_log2_rn && element_emax(f) >= 0;
        t.check((h.floor_emax >= 0) == want, [&] {
          return std::string(f.name) + " " + std::string(name(rule)) + ": kernel scale " +
                 std::to_string(h.floor_emax >= 0) + ", expected " + std::to_string(want);
        });
      }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// Dequantizer::run into f32 without per-element flags (the path of dequantize_tensor, where the
// vector lanes serve sign-magnitude elements, fnuz ones included, and read NaN and Inf codes'
// results and flags from the row of scale 127 for every scale) against dequantize_element:
// every code x every scale in one call (blocks of 2^width codes), then random codes with
// random scales in blocks of 32 and of 20 (a block of 20 ends inside a vector) with a partial
// last block; the results bit for bit and the returned OR of the flags.
TEST(BlockKernelElements, DequantizerEqualsTheReference) {
  std::vector<Format> fam;
  for (FormatId id : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
    fam.push_back(format(id));
  for (const Format& f : runtime_family()) fam.push_back(f);
  conformance::Tally t("Dequantizer::run (f32, no per-element flags) == dequantize_element: " +
                       std::to_string(fam.size()) + " elements x every code x every scale, random blocks of 32 and "
                       "20, every instruction set (one case per element and per call's flags)");
  SplitMix64 rng(0xDE0);
  std::size_t lanes_served = 0;
  for (const Format& f : fam) {
    const std::size_t codes = std::size_t{1} << f.width;
    std::vector<std::uint64_t> ref(256 * codes);
    std::vector<Flags> ref_fl(256 * codes);
    for (std::size_t sc = 0; sc < 256; ++sc)
      for (std::size_t c = 0; c < codes; ++c) {
        const Result r = dequantize_element(f, static_cast<std::uint8_t>(sc), static_cast<std::uint8_t>(c), FormatId::f32,
                                            Context{});
        ref[sc * codes + c] = r.code;
        ref_fl[sc * codes + c] = r.flags;
      }
    for (Isa isa : supported_isas()) {
      auto run = [&](const std::vector<std::uint8_t>& sc, const std::vector<std::uint8_t>& cd, std::size_t k,
                     const std::string& how) {
        Dequantizer dq(f, FormatId::f32, Context{});
        dq.set_isa(isa);
        std::vector<std::uint32_t> out(cd.size(), 0xDEADBEEF);
        const Flags got = dq.run(sc.data(), cd.data(), cd.size(), k, out.data());
        Flags want = 0;
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < cd.size(); ++i) {
          const std::size_t at = sc[i / k] * codes + cd[i];
          want |= ref_fl[at];
          if (out[i] != ref[at]) {
            if (!bad) first = i;
            ++bad;
          }
        }
        t.pass(cd.size() - bad);
        if (bad)
          t.fail(std::string(f.name) + " " + name(isa) + " " + how + ": first element " + std::to_string(first) +
                     " (scale " + std::to_string(sc[first / k]) + ", code " + std::to_string(cd[first]) + ")",
                 bad);
        t.check(got == want, [&] {
          return std::string(f.name) + " " + name(isa) + " " + how + ": flags " + std::to_string(got) + ", reference " +
                 std::to_string(want);
        });
        if (dq.lanes_active()) ++lanes_served;
      };
      std::vector<std::uint8_t> sc(256), cd(256 * codes);
      for (std::size_t s = 0; s < 256; ++s) sc[s] = static_cast<std::uint8_t>(s);
      for (std::size_t i = 0; i < cd.size(); ++i) cd[i] = static_cast<std::uint8_t>(i % codes);
      run(sc, cd, codes, "every scale x code");
      for (std::size_t k : {32, 20}) {
        std::vector<std::uint8_t> rc(k * 97 + 7), rs(98);
        for (auto& c : rc) c = static_cast<std::uint8_t>(rng.below(codes));
        for (auto& s : rs) s = static_cast<std::uint8_t>(rng.below(8) == 0 ? rng.below(256) : 100 + rng.below(50));
        run(rs, rc, k, "random codes, k = " + std::to_string(k));
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  // The lanes must serve (else this checks the tables): every sign-magnitude element with
  // subnormals under every vector instruction set, fnuz ones included.
  EXPECT_GT(lanes_served, fam.size());
}

}  // namespace
}  // namespace softmx
