// conformance/test_sweep_fused.cpp: the sweep's fused segments kernel (emulator/simd/sweep_lanes.hpp)
// against the engine it replaces for the sweep (simd::segments_kernel, consecutive_lanes.hpp's
// convert_consecutive_to) and against the scalar model (consecutive_segments on Isa::scalar).
//
// For every (dialect, destination, rounding, saturation, tininess) whose plan the fused kernel
// serves (f32 into E4M3, E5M2, E3M2, E2M3, E2M1; rne, rna, rz, ru, rd), on every form of it this
// machine runs (AVX2; the AVX-512 source built for AVX2; AVX-512 where the CPU has it), the
// segments of windows of consecutive f32 inputs, both signs, around:
//   every binade start (all 256 exponents: zeros and subnormals, the tininess edge, Inf/NaN),
//   the destination's smallest subnormal and half of it, its smallest normal, its largest finite
//   value (the saturation boundary lies within 2^21 codes above it), +-0, Inf, the quiet-NaN
//   boundary and the last NaN, and random windows (a fixed SplitMix64 seed).
// A segment list equal to the existing kernel's gives a byte-identical run table (RunTableWriter
// writes one line per segment change). SOFTMX_SWEEP_FULL (ctest label sweep): all 2^32 inputs
// for f32 -> e4m3 and e5m2 under rne and rz, cuda and ocp, both saturations.
#include <gtest/gtest.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <cstdio>
#include <string>
#include <vector>

#include "core/kernels.hpp"
#include "simd/plan.hpp"
#include "simd/sweep.hpp"
#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using conformance::Tally;

// Window sizes shrink under the sanitizers (the sanitizer suite runs this test too).
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kShrink = 16;
#else
constexpr std::size_t kShrink = 1;
#endif

struct Setting {
  std::string name;
  Context ctx;  // resolved
  const Dialect* dialect;
  FormatId dst;
  simd::Plan plan;
};

/// Every setting the fused kernel serves (its plan exists and sweep_fused_serves says so).
std::vector<Setting> fused_settings() {
  std::vector<Setting> out;
  constexpr FormatId kDsts[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1};
  constexpr Rounding kModes[] = {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd};
  for (const Dialect& d : all_dialects())
    for (FormatId dst : kDsts)
      for (Rounding r : kModes)
        for (Saturation s : {Saturation::finite, Saturation::none})
          for (Tininess tn : {Tininess::after_rounding, Tininess::before_rounding}) {
            const Context c{.rounding = r, .saturation = s, .tininess = tn};
            if (unsupported_reason(d, dst, c)) continue;
            const Context rc = resolve(d, dst, c);
            auto plan = simd::make_plan(format(FormatId::f32), format(dst), rc, d,
                                        detail::kernels_for(format(FormatId::f32), format(dst), rc.rounding).one);
            if (!plan || !simd::sweep_fused_serves(*plan)) continue;
            out.push_back(Setting{"f32->" + std::string(format(dst).name) + " " + std::string(name(r)) + " " +
                                      std::string(name(rc.saturation)) + " tininess " + std::string(name(tn)) +
                                      " dialect " + std::string(d.name),
                                  rc, &d, dst, *plan});
          }
  return out;
}

/// The fused kernel's forms this machine runs, by name.
[[maybe_unused]] std::vector<std::pair<std::string, simd::SegmentsFn>> fused_forms(const simd::Plan& p) {
  std::vector<std::pair<std::string, simd::SegmentsFn>> v;
  if (isa_supported(Isa::avx2)) {
    v.push_back({"avx2", simd::sweep_fused_kernel(p, Isa::avx2)});
    v.push_back({"avx512-source-on-avx2", simd::sweep_fused_kernel_wide_on_avx2(p)});
  }
  if (isa_supported(Isa::avx512)) v.push_back({"avx512", simd::sweep_fused_kernel(p, Isa::avx512)});
  return v;
}

/// Windows [first, first + n) of f32 inputs, clipped to 2^32: around `points` (both signs),
/// every binade start, and random ones.
struct Window {
  std::uint64_t first;
  std::size_t n;
};

std::uint32_t f32_bits_of(FormatId dst, std::uint64_t code) {
  return static_cast<std::uint32_t>(convert(dst, FormatId::f32, code, Context{}).code);
}

[[maybe_unused]] std::vector<Window> windows_for(FormatId dst, std::size_t half_point, std::size_t half_binade, int randoms,
                                std::size_t random_len) {
  const Format& f = format(dst);
  std::vector<std::uint64_t> points = {
      0,           0x00800000u,                       // zeros and f32 subnormals, the first normal
      0x7F800000u, 0x7FC00000u, 0x7FFFFFFFu,          // Inf, the quiet NaNs, the last NaN
      f32_bits_of(dst, 1),                           // the smallest subnormal
      f32_bits_of(dst, 1) - (1u << 23),              // half of it
      f32_bits_of(dst, std::uint64_t{1} << f.man_bits),  // the smallest normal (the edge binade below)
      // In the edge binade below it: where rounding at the subnormal quantum starts to give
      // 2^emin, and where rounding at full precision does (tininess after rounding changes).
      f32_bits_of(dst, std::uint64_t{1} << f.man_bits) - (std::uint64_t{1} << (23 - f.man_bits)),
      f32_bits_of(dst, std::uint64_t{1} << f.man_bits) - (std::uint64_t{1} << (22 - f.man_bits)),
      f32_bits_of(dst, f.max_finite_magnitude()),        // the largest finite: saturation above
      f32_bits_of(dst, f.max_finite_magnitude()) + (std::uint64_t{1} << 21)};
  std::vector<Window> w;
  auto add = [&](std::uint64_t centre, std::size_t half) {
    const std::uint64_t lo = centre > half ? centre - half : 0;
    const std::uint64_t hi = std::min<std::uint64_t>(centre + half, 0xFFFFFFFFu);
    w.push_back(Window{lo, static_cast<std::size_t>(hi - lo + 1)});
  };
  for (std::uint64_t sign : {std::uint64_t{0}, std::uint64_t{0x80000000u}}) {
    for (std::uint64_t p : points) add(p | sign, half_point);
    for (std::uint64_t e = 0; e < 256; ++e) add(sign | e << 23, half_binade);
  }
  SplitMix64 rng(0x5EE9F05EDull ^ static_cast<std::uint64_t>(dst));
  for (int i = 0; i < randoms; ++i) w.push_back(Window{rng.below((std::uint64_t{1} << 32) - random_len), random_len});
  return w;
}

std::string seg_text(const Segment& s) {
  char b[64];
  std::snprintf(b, sizeof b, "%08llX %02llX %02X", static_cast<unsigned long long>(s.first),
                static_cast<unsigned long long>(s.code), static_cast<unsigned>(s.flags));
  return b;
}

/// Compares the segments of `got` with `want` over one window; one case per input.
void compare_window(Tally& t, const std::string& what, simd::SegmentsFn got, simd::SegmentsFn want,
                    const simd::Plan& p, const Window& w, std::vector<Segment>& a, std::vector<Segment>& b) {
  a.resize(w.n);
  b.resize(w.n);
  const std::size_t na = got(p, w.first, w.n, a.data());
  const std::size_t nb = want(p, w.first, w.n, b.data());
  std::size_t bad = 0, at = 0;
  for (std::size_t i = 0; i < std::max(na, nb); ++i) {
    const bool same = i < na && i < nb && a[i].first == b[i].first && a[i].code == b[i].code && a[i].flags == b[i].flags;
    if (!same && bad++ == 0) at = i;
  }
  if (bad == 0) {
    t.pass(w.n);
    return;
  }
  t.fail(what + ": " + std::to_string(na) + " segments vs " + std::to_string(nb) + ", first difference at segment " +
             std::to_string(at) + ": fused " + (at < na ? seg_text(a[at]) : "(none)") + ", existing " +
             (at < nb ? seg_text(b[at]) : "(none)"),
         1);
}

#ifndef SOFTMX_SWEEP_FULL  // the full-range binary runs only the test below
TEST(SweepFused, ServesTheMxElementSettings) {
  const auto settings = fused_settings();
  std::printf("[ settings ] %zu settings served by the fused kernel\n", settings.size());
  // At least the benchmark's: f32 -> e4m3, rne, satfinite, cuda.
  bool bench = false;
  for (const Setting& s : settings)
    bench |= s.dst == FormatId::e4m3 && s.ctx.rounding == Rounding::rne && s.ctx.saturation == Saturation::finite &&
             s.dialect->name == "cuda";
  EXPECT_TRUE(bench);
  EXPECT_GE(settings.size(), 5u * 5u * 2u);
  // And not what it does not serve: ro, f16 sources, e8m0.
  for (const Setting& s : settings) {
    simd::Plan p = s.plan;
    p.ctx.rounding = Rounding::ro;
    EXPECT_FALSE(simd::sweep_fused_serves(p));
    p = s.plan;
    p.src = FormatId::f16;
    EXPECT_FALSE(simd::sweep_fused_serves(p));
    p = s.plan;
    p.dst = FormatId::e8m0;
    EXPECT_FALSE(simd::sweep_fused_serves(p));
  }
  // The sweep's dispatch picks it on the best instruction set.
  if (!settings.empty() && default_isa() != Isa::scalar) {
    EXPECT_EQ(simd::sweep_segments_kernel(settings.front().plan, default_isa()),
              simd::sweep_fused_kernel(settings.front().plan, default_isa()));
  }
}

TEST(SweepFused, EqualsTheExistingKernelAroundEveryBoundary) {
  if (!isa_supported(Isa::avx2)) GTEST_SKIP() << "no AVX2: the fused kernel is not built or not run here";
  Tally t("fused sweep segments == simd::segments_kernel's: every served setting, windows around every binade "
          "start, the destination's subnormal/normal/saturation boundaries, zeros, Inf, NaN, both signs, random");
  std::vector<Segment> a, b;
  for (const Setting& s : fused_settings()) {
    // The benchmark's setting gets wide windows (2^20 inputs each side of every point), the others 2^13.
    const bool wide = s.dst == FormatId::e4m3 && s.ctx.rounding == Rounding::rne && s.dialect->name == "cuda";
    const auto windows = windows_for(s.dst, (wide ? std::size_t{1} << 20 : std::size_t{1} << 13) / kShrink,
                                     (1u << 7) / kShrink, wide ? 64 : 4, (std::size_t{1} << 14) / kShrink);
    const simd::SegmentsFn existing = simd::segments_kernel(s.plan, Isa::avx2);
    for (const auto& [form, fn] : fused_forms(s.plan)) {
      ASSERT_NE(fn, nullptr) << s.name << " on " << form;
      for (const Window& w : windows) compare_window(t, s.name + " on " + form, fn, existing, s.plan, w, a, b);
    }
  }
  t.report();
}

#if defined(__SSE__)
TEST(SweepFused, IntegerRoundingWhenTheFpuIsNotInItsDefaultMode) {
  // rne goes to the FPU (FpuKeys) only while MXCSR is the default; otherwise the integer form
  // (IntKeys<rne>) runs. Round-down MXCSR for this thread, then every rne setting into e4m3 and e2m1.
  if (!isa_supported(Isa::avx2)) GTEST_SKIP() << "no AVX2";
  Tally t("fused sweep segments == simd::segments_kernel's with MXCSR rounding down (the integer rne form): "
          "rne into e4m3 and e2m1, every dialect, windows around every boundary");
  std::vector<Segment> a, b;
  const unsigned csr = _mm_getcsr();
  _mm_setcsr((csr & ~0x6000u) | 0x2000u);  // RC = 01: toward -infinity
  for (const Setting& s : fused_settings()) {
    if (s.ctx.rounding != Rounding::rne || (s.dst != FormatId::e4m3 && s.dst != FormatId::e2m1)) continue;
    const auto windows = windows_for(s.dst, (std::size_t{1} << 14) / kShrink, (1u << 7) / kShrink, 4,
                                     (std::size_t{1} << 14) / kShrink);
    const simd::SegmentsFn existing = simd::segments_kernel(s.plan, Isa::avx2);
    for (const auto& [form, fn] : fused_forms(s.plan))
      for (const Window& w : windows) compare_window(t, s.name + " on " + form + " (MXCSR RC=01)", fn, existing, s.plan, w, a, b);
  }
  _mm_setcsr(csr);
  t.report();
}
#endif

TEST(SweepFused, ConverterSweepEqualsTheScalarModel) {
  // Through the public API (what the sweep engine calls): consecutive_segments on the best
  // instruction set, now the fused kernel, against the scalar kernel's results.
  Tally t("consecutive_segments (fused, best ISA) == consecutive_segments on Isa::scalar: every served setting, "
          "windows around the destination's boundaries, both signs");
  if (default_isa() == Isa::scalar) GTEST_SKIP() << "no vector instruction set";
  std::vector<Segment> a, b;
  for (const Setting& s : fused_settings()) {
    const Converter conv(FormatId::f32, s.dst, s.ctx, *s.dialect);
    const auto windows = windows_for(s.dst, (1u << 11) / kShrink, 0, 0, 0);
    for (const Window& w : windows) {
      if (w.n < 2) continue;  // the per-binade windows (half 0): one input each
      a.resize(w.n);
      b.resize(w.n);
      const std::size_t na = consecutive_segments(conv, default_isa(), w.first, w.n, a.data());
      const std::size_t nb = consecutive_segments(conv, Isa::scalar, w.first, w.n, b.data());
      bool same = na == nb;
      for (std::size_t i = 0; same && i < na; ++i)
        same = a[i].first == b[i].first && a[i].code == b[i].code && a[i].flags == b[i].flags;
      if (same) t.pass(w.n);
      else t.fail(s.name + ": window at " + seg_text(Segment{w.first, 0, 0}), 1);
    }
  }
  t.report();
}

#else  // SOFTMX_SWEEP_FULL

TEST(SweepFused, EqualsTheExistingKernelOnAllInputs) {
  if (!isa_supported(Isa::avx2)) GTEST_SKIP() << "no AVX2";
  Tally t("fused sweep segments == simd::segments_kernel's on all 2^32 inputs: f32 -> e4m3, e5m2; rne, rz; "
          "finite, none; cuda, ocp (AVX2)");
  std::vector<Segment> a, b;
  for (const Setting& s : fused_settings()) {
    if ((s.dst != FormatId::e4m3 && s.dst != FormatId::e5m2) ||
        (s.ctx.rounding != Rounding::rne && s.ctx.rounding != Rounding::rz) ||
        s.ctx.tininess != Tininess::after_rounding || (s.dialect->name != "cuda" && s.dialect->name != "ocp"))
      continue;
    const simd::SegmentsFn fused = simd::sweep_fused_kernel(s.plan, Isa::avx2);
    const simd::SegmentsFn existing = simd::segments_kernel(s.plan, Isa::avx2);
    for (std::uint64_t first = 0; first < (std::uint64_t{1} << 32); first += std::uint64_t{1} << 24)
      compare_window(t, s.name, fused, existing, s.plan, Window{first, std::size_t{1} << 24}, a, b);
  }
  t.report();
}
#endif

}  // namespace
}  // namespace softmx
