// conformance/test_parallel_stats.cpp: the library functions the Python package is built on.
//
// - parallel_ranges covers [0, n) exactly once for any thread count, alignment and minimum,
//   and rethrows the lowest range's exception.
// - run_parallel, quantize_tensor_into and dequantize_tensor(MxTensorRef) give the same bytes
//   and flags for 1 to 7 threads as the one-thread library calls (Converter::run,
//   quantize_tensor, quantize_block per block gathered here), on every layout: 1-d, the last
//   axis, a middle axis, partial blocks, stochastic rounding.
// - error_stats: every statistic against MPFR (exact sums at 4600 bits, one rounding into
//   double), for doubles spread over 2^-530 .. 2^480 (the Python tests take subnormals and
//   2^1000 against exact fractions), any thread count; the counts against a
//   plain loop; the MX form against dequantize_element.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/parallel.hpp"
#include "softmx/prng.hpp"
#include "softmx/stats.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

TEST(ParallelRanges, CoverEveryItemOnceAndRethrowTheFirstError) {
  conformance::Tally t("parallel_ranges: every item once, for n x threads x align x minimum");
  for (std::size_t n : {0u, 1u, 7u, 64u, 65u, 1000u, 4097u})
    for (unsigned threads : {1u, 2u, 3u, 8u, 0u})
      for (std::size_t align : {1u, 8u, 64u})
        for (std::size_t min_items : {1u, 10u, 5000u}) {
          std::vector<std::atomic<int>> seen(n);
          parallel_ranges(n, threads, min_items, align, [&](std::size_t a, std::size_t b) {
            for (std::size_t i = a; i < b; ++i) seen[i]++;
          });
          bool ok = true;
          for (auto& s : seen) ok = ok && s.load() == 1;
          t.check(ok, [&] { return "n " + std::to_string(n) + " threads " + std::to_string(threads); });
        }
  // The exception of the lowest range that threw, whatever the others did.
  for (unsigned threads : {1u, 4u}) {
    try {
      parallel_ranges(1000, threads, 1, 1, [](std::size_t a, std::size_t b) {
        for (std::size_t i = a; i < b; ++i)
          if (i == 700 || i == 300) throw std::invalid_argument("item " + std::to_string(i));
      });
      t.fail("no exception");
    } catch (const std::invalid_argument& e) {
      t.check(std::string(e.what()) == "item 300", [&] { return std::string("got ") + e.what(); });
    }
  }
  t.report();
}

TEST(RunParallel, EqualsConverterRunForAnyThreadCount) {
  conformance::Tally t("run_parallel == Converter::run, 1..7 threads, with and without flags, rs");
  SplitMix64 rng(0x9A7);
  const std::size_t n = 300001;
  std::vector<std::uint32_t> in(n);
  std::vector<std::uint64_t> rb(n);
  for (auto& v : in) v = static_cast<std::uint32_t>(rng.next());
  for (auto& r : rb) r = rng.next() >> 32;
  for (FormatId dst : {FormatId::e4m3, FormatId::e2m1, FormatId::bf16, FormatId::e8m0})
    for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::rs}) {
      Context c;
      c.rounding = r;
      const Converter conv(FormatId::f32, dst, c);
      std::vector<std::uint16_t> want(n), got(n);
      std::vector<Flags> wf(n), gf(n);
      const std::uint64_t* rbits = r == Rounding::rs ? rb.data() : nullptr;
      conv.run(in.data(), want.data(), wf.data(), n, rbits);
      for (unsigned threads = 1; threads <= 7; ++threads) {
        std::fill(got.begin(), got.end(), 0);
        std::fill(gf.begin(), gf.end(), 0xFF);
        // bf16 is 2 bytes, the others 1: compare the bytes written.
        run_parallel(conv, in.data(), got.data(), threads % 2 ? gf.data() : nullptr, n, rbits, threads);
        const std::size_t bytes = n * (format(dst).width <= 8 ? 1 : 2);
        t.check(std::memcmp(want.data(), got.data(), bytes) == 0 && (threads % 2 == 0 || wf == gf),
                [&] { return std::string(format(dst).name) + " threads " + std::to_string(threads); });
      }
    }
  t.report();
}

// quantize_block per block, gathered here (the reference for any layout).
void reference_quantize(FormatId src, const std::vector<std::uint32_t>& data, const std::vector<std::size_t>& shape,
                        std::size_t axis, std::size_t k, const BlockOptions& o, std::vector<std::uint8_t>& scales,
                        std::vector<std::uint8_t>& codes, Flags& flags) {
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[axis], nb = (len + k - 1) / k;
  scales.assign(outer * nb * inner, 0);
  codes.assign(data.size(), 0);
  flags = 0;
  std::vector<std::uint32_t> blk(k);
  std::vector<std::uint64_t> rb(k);
  for (std::size_t oi = 0; oi < outer; ++oi)
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t ni = 0; ni < inner; ++ni) {
        const std::size_t cnt = std::min(k, len - b * k);
        for (std::size_t j = 0; j < cnt; ++j) {
          const std::size_t at = (oi * len + b * k + j) * inner + ni;
          blk[j] = data[at];
          if (!o.rbits.empty()) rb[j] = o.rbits[at];
        }
        BlockOptions bo = o;
        if (!o.rbits.empty()) bo.rbits = std::span<const std::uint64_t>(rb.data(), cnt);
        const QuantizedBlock q = quantize_block(src, blk.data(), cnt, bo);
        scales[(oi * nb + b) * inner + ni] = q.scale;
        for (std::size_t j = 0; j < cnt; ++j) codes[(oi * len + b * k + j) * inner + ni] = q.codes[j];
        flags |= q.flags;
      }
}

TEST(QuantizeTensorInto, EqualsBlockByBlockForAnyThreadCountAndLayout) {
  conformance::Tally t("quantize_tensor_into (1..7 threads) and dequantize_tensor(MxTensorRef) == block by block");
  struct Layout {
    std::vector<std::size_t> shape;
    std::size_t axis, k;
  };
  const Layout layouts[] = {{{70001}, 0, 32},       {{300, 257}, 1, 32}, {{257, 300}, 0, 32},
                            {{9, 130, 70}, 1, 16},  {{3000, 40}, 1, 7},  {{2, 3, 4099}, 2, 32}};
  SplitMix64 rng(0x7E5);
  for (const Layout& l : layouts) {
    std::size_t n = 1;
    for (std::size_t d : l.shape) n *= d;
    std::vector<std::uint32_t> data(n);
    for (auto& v : data) {
      const double x = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng.next() >> 11) - (1ll << 52)),
                                  static_cast<int>(rng.below(40)) - 60);
      v = std::bit_cast<std::uint32_t>(static_cast<float>(x));
      if (rng.below(200) == 0) v = 0x7FC00000;  // NaN
      if (rng.below(300) == 0) v = 0x7F800000;  // Inf
    }
    std::vector<std::uint64_t> rb(n);
    for (auto& r : rb) r = rng.next() >> 32;
    for (FormatId el : {FormatId::e4m3, FormatId::e2m1, FormatId::int8})
      for (bool rs : {false, true}) {
        BlockOptions o;
        o.element = el;
        if (rs) {
          o.rounding = Rounding::rs;
          o.rbits = rb;
        }
        std::vector<std::uint8_t> ws, wc;
        Flags wf = 0;
        reference_quantize(FormatId::f32, data, l.shape, l.axis, l.k, o, ws, wc, wf);
        const MxTensor one = quantize_tensor(FormatId::f32, data.data(), l.shape, l.axis, l.k, o);
        t.check(one.scales == ws && one.codes == wc && one.flags == wf, [&] { return "quantize_tensor"; });
        std::vector<std::uint32_t> want_deq(n);
        dequantize_tensor(one, FormatId::f32, want_deq.data(), Context{});
        for (unsigned threads : {1u, 2u, 3u, 7u}) {
          std::vector<std::uint8_t> s(ws.size(), 0xAA), c(n, 0xAA);
          const Flags f = quantize_tensor_into(FormatId::f32, data.data(), l.shape, l.axis, l.k, o, s, c, threads);
          t.check(s == ws && c == wc && f == wf, [&] {
            return std::string(format(el).name) + " axis " + std::to_string(l.axis) + " threads " +
                   std::to_string(threads) + (rs ? " rs" : "");
          });
          std::vector<std::uint32_t> deq(n, 0xDEADBEEF);
          dequantize_tensor(MxTensorRef{el, l.shape, l.axis, l.k, s, c}, FormatId::f32, deq.data(), Context{},
                            ocp_dialect(), threads);
          t.check(deq == want_deq, [&] { return "dequantize threads " + std::to_string(threads); });
        }
      }
  }
  // Bad arguments: outputs too short, codes out of range.
  std::vector<std::uint32_t> d(64, 0x3F800000);
  std::vector<std::uint8_t> s(1), c(64);
  const std::size_t shape[] = {64};
  EXPECT_THROW(quantize_tensor_into(FormatId::f32, d.data(), shape, 0, 32, BlockOptions{}, s, c, 2),
               std::invalid_argument);
  std::vector<std::uint8_t> s2(2, 127), c2(64, 0x10);
  std::vector<std::uint32_t> out(64);
  EXPECT_THROW(dequantize_tensor(MxTensorRef{FormatId::e2m1, shape, 0, 32, s2, c2}, FormatId::f32, out.data(), Context{}),
               std::invalid_argument);
  t.report();
}

// MPFR at a precision that holds any sum of squares of doubles exactly.
struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t p = 4600) {
    mpfr_init2(v, p);
    mpfr_set_zero(v, 1);
  }
  ~Mp() { mpfr_clear(v); }
};

double mpfr_mean(const Mp& sum, std::size_t n) {
  mpfr_t r;
  mpfr_init2(r, 53);
  mpfr_div_ui(r, sum.v, n, MPFR_RNDN);  // one rounding to 53 bits (results here are normal doubles)
  const double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return d;
}

TEST(ErrorStats, EverySumAgainstMpfr) {
  conformance::Tally t("error_stats vs MPFR: mean error, MSE and signal power (one rounding), maxima, counts; "
                       "1..5 threads");
  SplitMix64 rng(0x57A7);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + rng.below(trial < 20 ? 200 : 100000);
    const int spread = trial % 4 == 0 ? 480 : trial % 4 == 1 ? 60 : 8;  // results stay normal doubles
    std::vector<double> x(n), q(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng.next() >> 11) - (1ll << 52)),
                        static_cast<int>(rng.below(2 * spread + 1)) - spread - 52);
      // q: x perturbed relatively, or far away, or a special value now and then.
      const std::uint64_t kind = rng.below(50);
      q[i] = kind == 0   ? std::nan("")
             : kind == 1 ? INFINITY
             : kind == 2 ? 0.0
             : kind == 3 ? std::ldexp(x[i], 30)
                         : x[i] * (1 + std::ldexp(static_cast<double>(rng.below(1 << 20)) - (1 << 19), -25));
      if (rng.below(60) == 0) x[i] = std::nan("");
    }
    Mp se, se2, sx2;
    Mp tmp, tmp2;
    double max_abs = 0, max_rel = 0;
    std::uint64_t compared = 0, flushed = 0, nan = 0, xnan = 0, inf = 0;
    for (std::size_t i = 0; i < n; ++i) {
      xnan += std::isnan(x[i]);
      nan += std::isnan(q[i]);
      inf += std::isinf(q[i]);
      if (!std::isfinite(x[i]) || !std::isfinite(q[i])) continue;
      ++compared;
      flushed += x[i] != 0 && q[i] == 0;
      mpfr_set_d(tmp.v, x[i], MPFR_RNDN);
      mpfr_sub_d(tmp.v, tmp.v, q[i], MPFR_RNDN);  // exact at 4600 bits
      mpfr_add(se.v, se.v, tmp.v, MPFR_RNDN);
      mpfr_sqr(tmp2.v, tmp.v, MPFR_RNDN);
      mpfr_add(se2.v, se2.v, tmp2.v, MPFR_RNDN);
      mpfr_set_d(tmp.v, x[i], MPFR_RNDN);
      mpfr_sqr(tmp2.v, tmp.v, MPFR_RNDN);
      mpfr_add(sx2.v, sx2.v, tmp2.v, MPFR_RNDN);
      const double a = std::fabs(x[i] - q[i]);
      max_abs = std::max(max_abs, a);
      max_rel = std::max(max_rel, x[i] == 0 ? (q[i] == 0 ? 0.0 : INFINITY) : a / std::fabs(x[i]));
    }
    if (compared == 0) continue;
    const double mse = mpfr_mean(se2, compared), mean = mpfr_mean(se, compared), sig = mpfr_mean(sx2, compared);
    for (unsigned threads : {1u, 2u, 5u}) {
      const ErrorStats s = error_stats(FormatId::f64, x.data(), FormatId::f64, q.data(), n, std::nullopt, threads);
      auto same = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); };
      t.check(same(s.mse, mse) && same(s.mean_error, mean) && same(s.signal_power, sig) && same(s.max_abs_error, max_abs) &&
                  same(s.max_rel_error, max_rel) && s.compared == compared && s.flushed_to_zero == flushed &&
                  s.nan == nan && s.input_nan == xnan && s.inf == inf && s.count == n &&
                  same(s.sqnr_db, 10 * std::log10(sig / mse)),
              [&] {
                char b[200];
                std::snprintf(b, sizeof b, "trial %d n %zu: mse %a vs %a, mean %a vs %a, sig %a vs %a", trial, n, s.mse,
                              mse, s.mean_error, mean, s.signal_power, sig);
                return std::string(b);
              });
    }
  }
  t.report();
}

TEST(ErrorStats, MxTensorUsesTheDequantizedValuesAndBlockLimits) {
  conformance::Tally t("error_stats(MxTensorRef) == error_stats of the dequantized values with the block limits");
  SplitMix64 rng(0xB10C);
  const std::vector<std::size_t> shape{37, 100};
  std::vector<std::uint32_t> x(37 * 100);
  for (auto& v : x)
    v = std::bit_cast<std::uint32_t>(static_cast<float>(std::ldexp(static_cast<double>(rng.below(1 << 20)) - (1 << 19),
                                                                   static_cast<int>(rng.below(12)) - 20)));
  for (const Dialect& d : all_dialects()) {
    if (!d.block.unsupported.empty()) continue;
    for (FormatId el : {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1, FormatId::int8}) {
      BlockOptions o;
      o.element = el;
      o.dialect = &d;
      o.saturation = Saturation::finite;
      MxTensor q;
      try {
        q = quantize_tensor(FormatId::f32, x.data(), shape, 1, 32, o);
      } catch (const std::invalid_argument&) {
        continue;  // the dialect has no such element
      }
      const ErrorStats s = error_stats(FormatId::f32, x.data(), MxTensorRef{el, q.shape, 1, 32, q.scales, q.codes}, d, 3);
      // The same from the parts: the values dequantized element by element, and saturated by
      // comparison with the largest code's value under each block's scale.
      std::vector<double> deq(x.size());
      Context c;
      c.saturation = Saturation::none;
      std::uint64_t sat = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint8_t sc = q.scales[(i / 100) * 4 + (i % 100) / 32];
        deq[i] = std::bit_cast<double>(dequantize_element(el, sc, q.codes[i], FormatId::f64, c, d).code);
        const double L = std::fabs(std::bit_cast<double>(
            dequantize_element(el, sc, static_cast<std::uint8_t>(format(el).max_finite_magnitude()), FormatId::f64, c, d).code));
        sat += !std::isnan(L) && std::fabs(static_cast<double>(std::bit_cast<float>(x[i]))) > L;
      }
      const ErrorStats p = error_stats(FormatId::f32, x.data(), FormatId::f64, deq.data(), x.size(), std::nullopt, 1);
      std::uint64_t hist = 0;
      for (std::uint64_t h : s.scale_histogram) hist += h;
      t.check(s.mse == p.mse && s.mean_error == p.mean_error && s.max_abs_error == p.max_abs_error &&
                  s.saturated == sat && hist == q.scales.size() && s.scale_histogram[q.scales[0]] > 0,
              [&] { return std::string(d.name) + " " + std::string(format(el).name); });
    }
  }
  t.report();
}

}  // namespace
}  // namespace softmx
