// conformance/test_block_kernels.cpp: the block kernels called directly, on every form this CPU
// runs: the avx2 build, the avx512 build where the CPU has AVX-512, and the avx512 source (16
// lanes) compiled for AVX2 (block_wide_kernels.cpp), against the scalar reference.
//  - Dequantize: every E4M3 code x every E8M0 scale (65,536 pairs; the kernel stops at
//    blocks it does not serve, which take the reference), then random codes in blocks of 32.
//  - Quantize f32 -> MXFP8 (OCP defaults: floor, rne): rows of blocks of 32, ordinary blocks
//    (normal values over a spread of binades; amax with an all-ones fraction, which overflows
//    to the largest after rounding, or a power of two, the scale's boundary) with zero blocks,
//    source subnormals, NaN, Inf, blocks far down (scale clamped at 2^-127, elements below
//    2^-126 after scaling) among them, against quantize_tensor on Isa::scalar: every code,
//    scale and the flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "block/block_quantizer.hpp"
#include "simd/plan.hpp"
#include "core/kernels.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx::simd {
BlocksFn blocks_kernel_wide_on_avx2(FormatId element);
DequantFn dequant_kernel_wide_on_avx2();
}  // namespace softmx::simd

namespace softmx {
namespace {

struct Form {
  std::string name;
  simd::DequantFn dequant;
  simd::BlocksFn (*blocks)(const simd::Plan&, FormatId);
};

std::vector<Form> forms() {
  std::vector<Form> v;
  if (isa_supported(Isa::avx2)) {
    v.push_back({"avx2", simd::dequant_kernel_avx2(), [](const simd::Plan& p, FormatId) { return simd::blocks_kernel_avx2(p); }});
    v.push_back({"avx512-source-on-avx2", simd::dequant_kernel_wide_on_avx2(),
                 [](const simd::Plan&, FormatId e) { return simd::blocks_kernel_wide_on_avx2(e); }});
  }
  if (isa_supported(Isa::avx512))
    v.push_back({"avx512", simd::dequant_kernel_avx512(), [](const simd::Plan& p, FormatId) { return simd::blocks_kernel_avx512(p); }});
  return v;
}

// Every test here compares the kernel forms (fs) this CPU runs; with none, it has nothing to do.
class BlockKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (fs.empty()) GTEST_SKIP() << "no vector kernel on this CPU";
  }
  const std::vector<Form> fs = forms();
};

constexpr FormatId kMxfp8[] = {FormatId::e4m3, FormatId::e5m2};

TEST_F(BlockKernels, DequantizeEveryCodeTimesEveryScale) {
  conformance::Tally t("dequantize kernel == dequantize_element: every E4M3 code x every E8M0 scale, random "
                       "blocks of 32, every kernel form");
  SplitMix64 rng(0xDE9);
  // E4M3 only: E5M2's signaling NaNs raise invalid into f32, so no row of it is flag-free and
  // the kernel (which reads NaN and Inf results from flag-free rows) never serves it.
  for (FormatId el : {FormatId::e4m3}) {
    const Format& e = format(el);
    // The tables the kernel reads for NaN/Inf codes, per scale: flag-free rows only.
    std::vector<std::vector<std::uint64_t>> rows(256, std::vector<std::uint64_t>(256));
    std::vector<const std::uint64_t*> tabs(256, nullptr);
    int lo = 255, hi = 0;
    for (int sc = 0; sc < 256; ++sc) {
      bool clean = true;
      for (int c = 0; c < 256; ++c) {
        const Result r = dequantize_element(el, static_cast<std::uint8_t>(sc), static_cast<std::uint8_t>(c), FormatId::f32, Context{});
        rows[sc][c] = r.code;
        clean &= r.flags == 0;
        if (sc == 127 && unpack(e, static_cast<std::uint64_t>(c)).cls == ValueClass::finite && (c & 0x7F)) {
          const int field = static_cast<int>((r.code >> 23) & 0xFF);
          lo = std::min(lo, field);
          hi = std::max(hi, field);
        }
      }
      if (clean) tabs[sc] = rows[sc].data();
    }
    const simd::DequantLanes d{e.width, e.man_bits, e.bias, e.specials, 1 - lo, 254 - hi, tabs.data()};
    for (const Form& f : fs) {
      auto check = [&](const std::vector<std::uint8_t>& sc, const std::vector<std::uint8_t>& codes, std::size_t k,
                       const char* how) {
        std::vector<std::uint32_t> out(codes.size(), 0xDEADBEEF);
        const std::size_t nb = (codes.size() + k - 1) / k;
        std::size_t served = 0;
        for (std::size_t b = 0; b < nb;) {
          const std::size_t next = f.dequant(d, sc.data(), codes.data(), codes.size(), k, b, out.data());
          served += next - b;
          b = next;
          if (b < nb) {  // not served: the reference
            for (std::size_t i = b * k; i < std::min(codes.size(), (b + 1) * k); ++i)
              out[i] = static_cast<std::uint32_t>(rows[sc[b]][codes[i]]);
            ++b;
          }
        }
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < codes.size(); ++i)
          if (out[i] != dequantize_element(el, sc[i / k], codes[i], FormatId::f32, Context{}).code) {
            if (!bad) first = i;
            ++bad;
          }
        t.pass(codes.size() - bad);
        if (bad)
          t.fail(f.name + " " + std::string(e.name) + " " + how + ": first element " + std::to_string(first) + " (scale " +
                     std::to_string(sc[first / k]) + ", code " + std::to_string(codes[first]) + ")",
                 bad);
        // The kernel must serve the scales whose results are normal (else this checks the reference).
        t.check(served * 2 > nb, [&] { return f.name + " " + how + ": the kernel served only " + std::to_string(served) + " blocks of " + std::to_string(nb) + " (x " + std::to_string(d.x_lo) + ".." + std::to_string(d.x_hi) + ")"; });
      };
      std::vector<std::uint8_t> sc(256), codes(65536);
      for (int s = 0; s < 256; ++s) sc[s] = static_cast<std::uint8_t>(s);
      for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
      check(sc, codes, 256, "every scale x code");
      std::vector<std::uint8_t> rc(32 * 997 + 13), rs(998);
      for (auto& c : rc) c = static_cast<std::uint8_t>(rng.next());
      for (auto& s : rs) s = static_cast<std::uint8_t>(rng.below(8) == 0 ? rng.below(256) : 100 + rng.below(50));
      check(rs, rc, 32, "random codes, k = 32");
    }
  }
  t.report();
}

// An f32 row of `nb` blocks of 32 (see the top of this file).
std::vector<std::uint32_t> draw_row(SplitMix64& rng, std::size_t nb) {
  std::vector<std::uint32_t> v(nb * 32);
  for (std::size_t b = 0; b < nb; ++b) {
    std::uint32_t* blk = &v[b * 32];
    const std::uint32_t top = 1 + static_cast<std::uint32_t>(rng.below(254));
    const std::uint32_t spread = static_cast<std::uint32_t>(rng.below(24));
    for (int i = 0; i < 32; ++i) {
      const std::uint32_t e = top > spread ? top - static_cast<std::uint32_t>(rng.below(spread + 1))
                                           : 1 + static_cast<std::uint32_t>(rng.below(top));
      blk[i] = static_cast<std::uint32_t>(rng.below(2)) << 31 | e << 23 | (static_cast<std::uint32_t>(rng.next()) & 0x7FFFFF);
    }
    const std::size_t at = rng.below(32);
    switch (rng.below(6)) {
      case 0: blk[at] = (blk[at] & 0x80000000u) | top << 23 | 0x7FFFFF; break;  // amax: all-ones fraction
      case 1: blk[at] = (blk[at] & 0x80000000u) | top << 23; break;             // amax: a power of two
      case 2: blk[at] = (blk[at] & 0x80000000u) | top << 23 | 0x700000; break;  // amax: 1.875, rounds up
      default: break;
    }
    switch (rng.below(12)) {
      case 0: for (int i = 0; i < 32; ++i) blk[i] &= 0x80000000u; break;                      // a zero block
      case 1: blk[rng.below(32)] = 0x7FC00000u | static_cast<std::uint32_t>(rng.below(2)) << 31; break;  // NaN
      case 2: blk[rng.below(32)] = 0x7F800000u | static_cast<std::uint32_t>(rng.below(2)) << 31; break;  // Inf
      case 3: blk[rng.below(32)] = 1 + static_cast<std::uint32_t>(rng.below(0x7FFFFF)); break;             // a subnormal
      case 4: blk[rng.below(32)] &= 0x80000000u; break;                                                   // one zero
      case 5:  // far down: values near 2^-126, the scale clamped at 2^-127
        for (int i = 0; i < 32; ++i) blk[i] = (blk[i] & 0x807FFFFFu) | (1u + static_cast<std::uint32_t>(rng.below(3))) << 23;
        break;
      default: break;
    }
  }
  return v;
}

// Hooks that make the kernel's scales and slow blocks the reference's (quantize_block on
// options o, whose isa is Isa::scalar; o must outlive them). The scale of a block from its amax:
// a one-value block of that magnitude has the same amax, so the same scale.
simd::BlockHooks reference_hooks(BlockOptions& o) {
  simd::BlockHooks hooks;
  hooks.ctx = &o;
  hooks.scale = [](void* c, std::uint32_t amax, int& s) {
    if (amax >= 0x7F800000u) return false;
    const QuantizedBlock q = quantize_block(FormatId::f32, &amax, 1, *static_cast<BlockOptions*>(c));
    s = q.scale - 127;
    return q.scale != 0xFF;
  };
  hooks.slow = [](void* c, const void* blk, std::size_t k, std::uint8_t* codes, Flags& flags) {
    const QuantizedBlock q = quantize_block(FormatId::f32, blk, k, *static_cast<BlockOptions*>(c));
    std::copy(q.codes.begin(), q.codes.end(), codes);
    flags |= q.flags;
    return static_cast<std::uint8_t>(q.scale);  // E8M0
  };
  return hooks;
}

// One row's codes, scales and flags against the reference's, counted in t.
void count_row(conformance::Tally& t, const std::string& what, const MxTensor& want,
               const std::vector<std::uint8_t>& scales, const std::vector<std::uint8_t>& codes, Flags flags) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) bad += codes[i] != want.codes[i];
  for (std::size_t b = 0; b < scales.size(); ++b) bad += scales[b] != want.scales[b];
  bad += flags != want.flags;
  t.pass(codes.size() + scales.size() + 1 - bad);
  if (bad) t.fail(what, bad);
}

// Row v (blocks of 32 f32 values) through every form's kernel for element el, against
// quantize_tensor on options o (Isa::scalar).
void check_row_on_forms(conformance::Tally& t, const std::vector<Form>& fs, const simd::Plan& plan, FormatId el,
                        const simd::BlockHooks& hooks, const BlockOptions& o, const std::vector<std::uint32_t>& v,
                        const std::string& what) {
  const std::size_t nb = v.size() / 32, shape[1] = {v.size()};
  const MxTensor want = quantize_tensor(FormatId::f32, v.data(), shape, 0, 32, o);
  for (const Form& f : fs) {
    const simd::BlocksFn fn = f.blocks(plan, el);
    ASSERT_NE(fn, nullptr) << f.name;
    std::vector<std::uint8_t> scales(nb, 0xAA), codes(v.size(), 0xAA);
    Flags flags = 0;
    fn(plan, v.data(), nb, 32, hooks, scales.data(), codes.data(), flags);
    count_row(t, f.name + " " + std::string(format(el).name) + " " + what, want, scales, codes, flags);
  }
}

TEST_F(BlockKernels, QuantizeRowsEqualTheScalarPath) {
  conformance::Tally t("block quantize kernel == quantize_tensor on Isa::scalar: f32 -> MXFP8, OCP defaults, rows of "
                       "blocks of 32 with adversarial blocks, every kernel form");
  SplitMix64 rng(0xB1C5);
  for (FormatId el : kMxfp8) {
    BlockOptions o;
    o.element = el;
    o.isa = Isa::scalar;
    const Dialect& d = ocp_dialect();
    Context ctx;
    ctx.rounding = d.block.element_rounding;
    ctx.saturation = d.block.element_saturation;
    const auto plan = simd::make_plan(format(FormatId::f32), format(el), ctx, d,
                                      detail::kernels_from(FormatId::f32)[static_cast<int>(el)][static_cast<int>(ctx.rounding)].one);
    ASSERT_TRUE(plan.has_value());
    simd::BlockHooks hooks = reference_hooks(o);
    hooks.floor_emax = element_emax(el);
    for (int rep = 0; rep < 60; ++rep) {
      const std::size_t nb = 1 + rng.below(64);
      check_row_on_forms(t, fs, *plan, el, hooks, o, draw_row(rng, nb), "row " + std::to_string(rep) + " differs");
    }
  }
  t.report();
}

// The f32 bits of element code `code` at scale 2^0 (a finite code).
std::uint32_t element_f32(const Format& el, std::uint64_t code) {
  return static_cast<std::uint32_t>(
      dequantize_element(el, 127, static_cast<std::uint8_t>(code), FormatId::f32, Context{}).code);
}

// A row of nb blocks of 32 for the grouped pass of the quantize kernel (BlockRun::hot: groups of
// N blocks, one per lane): every block of normal values, so that whole groups take it. A
// block's amax is now and then on the overflow threshold of element `el` (Direct::ovf_from) at
// a random power of two 2^t: max_E, one f32 ulp above it, the midpoint between max_E and the
// value one quantum above it and 1 or 2 ulps either side; another value of the block now and
// then on the tininess edge below 2^emin (after rounding: the midpoint under it) at the floor
// rule's scale, +-2 ulps; one block in 64 holds a zero or a source subnormal (its group takes
// the block-by-block path). Mode 1: the other values have no fraction bits beyond the
// element's (so the inexact and underflow flags of a row come from its edges); mode 2: one
// block of the row on the overflow edge, the others' amax at most max_E 2^t (so the row's
// overflow flag is that block's).
std::vector<std::uint32_t> draw_group_row(SplitMix64& rng, std::size_t nb, const Format& el, int mode) {
  const bool exact = mode == 1;
  // mode 2: one block of the row on an edge, every other amax at most max_E 2^t (no overflow
  // elsewhere: the row's overflow flag is that block's).
  const std::size_t edge_block = mode == 2 ? rng.below(nb) : nb;
  const std::uint32_t max_e = element_f32(el, el.max_finite_magnitude());
  const int m = el.man_bits, emax = static_cast<int>(max_e >> 23) - 127;
  const std::uint32_t mid = max_e + (1u << (22 - m));  // max_E's fraction fits m bits
  const std::uint32_t tiny = static_cast<std::uint32_t>(el.emin() + 126) << 23 | ((2u << m) - 1) << (22 - m);
  const std::uint32_t frac_mask = exact ? (0x7FFFFFu >> (23 - m)) << (23 - m) : 0x7FFFFFu;
  std::vector<std::uint32_t> v(nb * 32);
  for (std::size_t b = 0; b < nb; ++b) {
    std::uint32_t* blk = &v[b * 32];
    const int t = static_cast<int>(rng.below(61)) - 30;
    std::uint32_t amax;
    const int edge = mode != 2 ? static_cast<int>(rng.below(10)) : b == edge_block ? static_cast<int>(rng.below(7)) : 9;
    switch (edge) {
      case 0: amax = max_e; break;
      case 1: amax = max_e + 1; break;
      case 2: case 3: case 4: case 5: case 6: amax = mid + static_cast<std::uint32_t>(edge - 4); break;
      default:
        amax = static_cast<std::uint32_t>(emax + 127) << 23 | (static_cast<std::uint32_t>(rng.next()) & frac_mask);
        if (mode == 2) amax = std::min(amax, max_e);
    }
    amax = static_cast<std::uint32_t>(static_cast<int>(amax) + t * (1 << 23));
    const int top = static_cast<int>(amax >> 23), spread = 1 + static_cast<int>(rng.below(12));
    for (int i = 0; i < 32; ++i) {
      const int e = std::max(1, top - 1 - static_cast<int>(rng.below(spread)));
      blk[i] = static_cast<std::uint32_t>(e) << 23 | (static_cast<std::uint32_t>(rng.next()) & frac_mask);
    }
    blk[rng.below(32)] = amax;
    if (rng.below(3) == 0) {  // the tininess edge at the floor rule's scale s = floor(log2 amax) - emax_E
      const int s = top - 127 - element_emax(el);
      const int y = static_cast<int>(tiny) + s * (1 << 23) + static_cast<int>(rng.below(5)) - 2;
      if (y > 0x800000 && y < static_cast<int>(amax)) blk[rng.below(32)] = static_cast<std::uint32_t>(y);
    }
    // Now and then a zero or a source subnormal: its group is not all normal.
    if (rng.below(64) == 0) blk[rng.below(32)] = rng.below(2) ? 0 : 1 + static_cast<std::uint32_t>(rng.below(0x7FFFFF));
    for (int i = 0; i < 32; ++i) blk[i] |= static_cast<std::uint32_t>(rng.below(2)) << 31;
  }
  return v;
}

// The grouped pass (groups of N blocks: the amaxes by one transposed reduction, overflow from the
// scaled amax against Direct::ovf_from, the overflow code by one minimum where the plan allows)
// on rows of ordinary blocks with edges (draw_group_row), called directly on every form (the
// 16-lane source compiled for AVX2 included) for MXFP8 under the four rules the kernel computes,
// both saturations and OCP and ml_dtypes codes; then through quantize_tensor_into on each vector
// instruction set for every named MX element, runtime ones of each shape, f32, bf16 and f16
// sources, rne (the FPU-assisted path) and rz (the integer path). Each row is one call, so its
// flags are those of its own blocks.
TEST_F(BlockKernels, GroupsEqualTheScalarPath) {
  conformance::Tally t("block quantize kernel, grouped pass == quantize_tensor on Isa::scalar: rows of normal "
                       "blocks with amaxes on the overflow threshold and values on the tininess edge");
  SplitMix64 rng(0x6A0B5);
  const ScaleRule rules[] = {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil};
  int settings = 0;  // (element, dialect, rule, saturation) the direct calls cover
  // Directly on every form: MXFP8 (the forms the 16-lane source is built for).
  for (FormatId el : kMxfp8)
    for (const Dialect& dd : all_dialects())
      for (ScaleRule rule : rules)
        for (Saturation sat : {Saturation::finite, Saturation::none}) {
          const Dialect* d = &dd;
          BlockOptions o{.element = el, .dialect = d, .rule = rule, .rounding = Rounding::rne, .saturation = sat,
                         .isa = Isa::scalar};
          Context ctx;
          ctx.rounding = Rounding::rne;
          ctx.saturation = sat;
          const auto plan = simd::make_plan(format(FormatId::f32), format(el), ctx, *d,
                                            detail::kernels_from(FormatId::f32)[static_cast<int>(el)][0].one);
          if (!plan) continue;  // a dialect the vector kernels do not serve
          simd::BlockHooks hooks = reference_hooks(o);
          // Dialects without E8M0 blocks of f32 (ml_dtypes), or whose scale the kernel does not
          // compute (f32 reciprocals), are not this test's.
          try {
            detail::BlockQuantizer(FormatId::f32, o).kernel_scale(hooks);
          } catch (const std::exception&) {
            continue;
          }
          if (hooks.floor_emax < 0 || d->block.element_scaling != ElementScaling::exact ||
              d->block.zero_sign != ZeroSign::keep)
            continue;
          ++settings;
          for (int rep = 0; rep < 40; ++rep) {
            const std::size_t nb = 8 + rng.below(41);
            check_row_on_forms(t, fs, *plan, el, hooks, o, draw_group_row(rng, nb, format(el), rep % 3),
                               std::string(name(rule)) + " " + std::string(d->name) +
                                   (sat == Saturation::none ? " satnone" : " satfinite") + " row " + std::to_string(rep));
          }
        }
  EXPECT_GE(settings, 2 * 4 * 2 * 2);  // at least two dialects (OCP among them)
  // Through the block quantizer on each vector instruction set.
  std::vector<Isa> isas;
  for (Isa isa : supported_isas())
    if (isa != Isa::scalar) isas.push_back(isa);
  for (const char* spec : {"e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "e4m3fnuz", "e5m2fnuz", "e2m2", "int4"}) {
    const Format el = parse_format_spec(spec);
    for (FormatId src : {FormatId::f32, FormatId::bf16, FormatId::f16})
      for (ScaleRule rule : rules)
        for (Rounding r : {Rounding::rne, Rounding::rz})
          for (Saturation sat : {Saturation::finite, Saturation::none}) {
            BlockOptions o{.element = el, .rule = rule, .rounding = r, .saturation = sat};
            for (int rep = 0; rep < 6; ++rep) {  // modes 0, 1, 2 twice each
              const std::size_t nb = 8 + rng.below(41);
              // f16 holds 2^-24 .. 65504: t within a few binades of max_E there.
              auto v = draw_group_row(rng, nb, el, rep % 3);
              std::vector<std::uint16_t> h(v.size());
              for (std::size_t i = 0; i < v.size(); ++i) {
                if (src == FormatId::f16) {
                  std::uint32_t x = v[i];
                  const int e = static_cast<int>(x >> 23 & 0xFF) - 127;
                  if (e > 12 || e < -12) x = (x & 0x807FFFFFu) | static_cast<std::uint32_t>(127 + e % 12) << 23;
                  h[i] = static_cast<std::uint16_t>(convert(FormatId::f32, FormatId::f16, x, Context{}).code);
                } else {
                  h[i] = static_cast<std::uint16_t>(v[i] >> 16);
                }
              }
              const void* data = src == FormatId::f32 ? static_cast<const void*>(v.data()) : h.data();
              const std::size_t shape[1] = {v.size()};
              o.isa = Isa::scalar;
              const MxTensor want = quantize_tensor(src, data, shape, 0, 32, o);
              for (Isa isa : isas) {
                o.isa = isa;
                std::vector<std::uint8_t> scales(nb, 0xAA), codes(v.size(), 0xAA);
                const Flags flags = quantize_tensor_into(src, data, shape, 0, 32, o, scales, codes, 1);
                count_row(t, std::string(name(isa)) + " " + spec + " from " + std::string(format(src).name) + " " +
                            std::string(name(rule)) + " " + std::string(name(r)) +
                            (sat == Saturation::none ? " satnone" : " satfinite") + " row " + std::to_string(rep),
                        want, scales, codes, flags);
              }
            }
          }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
