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

#include "simd/plan.hpp"
#include "core/kernels.hpp"
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
    simd::BlockHooks hooks;
    hooks.ctx = &o;
    hooks.floor_emax = element_emax(el);
    // The scale of a block from its amax: a one-value block of that magnitude has the same
    // amax, so the same scale (quantize_block on the reference path).
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
    for (int rep = 0; rep < 60; ++rep) {
      const std::size_t nb = 1 + rng.below(64);
      const auto v = draw_row(rng, nb);
      const std::size_t shape[1] = {v.size()};
      const MxTensor want = quantize_tensor(FormatId::f32, v.data(), shape, 0, 32, o);
      for (const Form& f : fs) {
        const simd::BlocksFn fn = f.blocks(*plan, el);
        ASSERT_NE(fn, nullptr) << f.name;
        std::vector<std::uint8_t> scales(nb, 0xAA), codes(v.size(), 0xAA);
        Flags flags = 0;
        fn(*plan, v.data(), nb, 32, hooks, scales.data(), codes.data(), flags);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < codes.size(); ++i) bad += codes[i] != want.codes[i];
        for (std::size_t b = 0; b < nb; ++b) bad += scales[b] != want.scales[b];
        bad += flags != want.flags;
        t.pass(codes.size() + nb + 1 - bad);
        if (bad) t.fail(f.name + " " + std::string(format(el).name) + " row " + std::to_string(rep) + " differs", bad);
      }
    }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
