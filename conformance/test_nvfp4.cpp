// conformance/test_nvfp4.cpp: NVFP4 against a reference in host IEEE f32 arithmetic.
//
// The reference computes TransformerEngine's formulas with the host's float operations
// (IEEE 754 binary32, round to nearest even, no flush-to-zero on x86-64 SSE) and converts to
// E4M3 and E2M1 with the MPFR oracle: independent of softmx's f32 helpers.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>

#include "oracles/mpfr_oracle.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

std::uint8_t to_e4m3(float x) {
  return static_cast<std::uint8_t>(oracle::convert(oracle::Fmt::f32, oracle::Fmt::e4m3, std::bit_cast<std::uint32_t>(x),
                                                   oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after)
                                       .code);
}
std::uint8_t to_e2m1(float x) {
  return static_cast<std::uint8_t>(oracle::convert(oracle::Fmt::f32, oracle::Fmt::e2m1, std::bit_cast<std::uint32_t>(x),
                                                   oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after)
                                       .code);
}
float value_of_e4m3(std::uint8_t c) {
  mpfr_t v;
  mpfr_init2(v, 64);
  oracle::decode(oracle::Fmt::e4m3, c, v);
  const float f = mpfr_get_flt(v, MPFR_RNDN);
  mpfr_clear(v);
  return f;
}

TEST(Nvfp4, MatchesHostFloatReference) {
  conformance::Tally t("nvfp4 vs host-f32 reference: 300 random tensors, both multiplier forms");
  SplitMix64 rng(0x4F4);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rows = 1 + rng.below(5), cols = 1 + rng.below(70);
    std::vector<float> x(rows * cols);
    const int scale = static_cast<int>(rng.below(60)) - 30;
    for (float& v : x)
      v = rng.below(10) == 0 ? 0.0f : std::ldexp(static_cast<float>(static_cast<int>(rng.below(20001)) - 10000), scale - 13);
    if (trial % 17 == 0) std::fill(x.begin(), x.end(), 0.0f);  // the zero tensor
    std::vector<std::uint32_t> bits(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) bits[i] = std::bit_cast<std::uint32_t>(x[i]);
    for (Nvfp4Multiplier mult : {Nvfp4Multiplier::reciprocal_product, Nvfp4Multiplier::division}) {
      if (mult == Nvfp4Multiplier::division && trial % 17 == 0) continue;  // its zero blocks: NaN, undetermined
      Nvfp4Options o;
      o.multiplier = mult;
      const std::size_t shape[2] = {rows, cols};
      const Nvfp4Tensor q = quantize_nvfp4(FormatId::f32, bits.data(), shape, 1, o);
      // Reference.
      float amax = 0;
      for (float v : x) amax = std::fmax(amax, std::fabs(v));
      float s_enc = std::fmin(448.0f * 6.0f / amax, FLT_MAX);
      if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
      bool ok = q.encode_scale == std::bit_cast<std::uint32_t>(s_enc);
      const std::size_t nb = (cols + 15) / 16;
      for (std::size_t r = 0; ok && r < rows; ++r)
        for (std::size_t b = 0; ok && b < nb; ++b) {
          float bmax = 0;
          for (std::size_t j = b * 16; j < std::min(cols, b * 16 + 16); ++j) bmax = std::fmax(bmax, std::fabs(x[r * cols + j]));
          const std::uint8_t sc = to_e4m3(bmax * (s_enc * (1.0f / 6.0f)));
          ok = q.scales[r * nb + b] == sc;
          const float sdec = value_of_e4m3(sc);
          if (mult == Nvfp4Multiplier::division && sdec == 0) continue;
          const float m = mult == Nvfp4Multiplier::division ? s_enc / sdec : std::fmin(1.0f / (sdec * (1.0f / s_enc)), FLT_MAX);
          for (std::size_t j = b * 16; ok && j < std::min(cols, b * 16 + 16); ++j)
            ok = q.codes[r * cols + j] == to_e2m1(x[r * cols + j] * m);
        }
      t.check(ok, [&] { return "trial " + std::to_string(trial); });
    }
  }
  t.report();
}

TEST(Nvfp4, DequantizeIsExactThenRoundedOnce) {
  // One block: 6.0 at amax 6: S_enc = 448, S_dec = e4m3(6 * 448/6) = 448, m = 1: code 0x7 (6).
  const std::uint32_t in[2] = {std::bit_cast<std::uint32_t>(6.0f), std::bit_cast<std::uint32_t>(-1.5f)};
  const std::size_t shape[1] = {2};
  const Nvfp4Tensor q = quantize_nvfp4(FormatId::f32, in, shape, 0);
  EXPECT_EQ(q.encode_scale, std::bit_cast<std::uint32_t>(448.0f));
  EXPECT_EQ(q.scales[0], 0x7E);
  EXPECT_EQ(q.codes[0], 0x7);
  EXPECT_EQ(q.codes[1], 0xB);
  std::uint32_t out[2];
  Context c;
  dequantize_nvfp4(q, FormatId::f32, out, c);
  EXPECT_EQ(out[0], std::bit_cast<std::uint32_t>(6.0f));
  EXPECT_EQ(out[1], std::bit_cast<std::uint32_t>(-1.5f));
  EXPECT_THROW(quantize_nvfp4(FormatId::f64, in, shape, 0), std::invalid_argument);
  EXPECT_THROW(quantize_nvfp4(FormatId::f32, in, shape, 1), std::invalid_argument);
}

// TE's dequantize kernel (dequantize_nvfp4.cuh:65-77): f = float(S_dec_b) * amax * (1.0f / 2688)
// and out = code * f, each rounded to f32 (host f32 here), then the destination; and TE's
// software stochastic rounding (ptx.cuh:526-549) as quantize_nvfp4's StochasticForm::software,
// whose element is te_stochastic_round_e2m1 of the f32 product x * m_b, by the low random byte.
TEST(Nvfp4, TeKernelDequantizationAndSoftwareStochasticRounding) {
  conformance::Tally t("nvfp4 te_kernel dequantization vs host f32, software SR vs te_stochastic_round_e2m1: "
                       "100 random tensors");
  SplitMix64 rng(0x7E4);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t n = 16 * (1 + rng.below(4));
    std::vector<std::uint32_t> x(n);
    const int scale = static_cast<int>(rng.below(60)) - 30;
    for (auto& b : x)
      b = std::bit_cast<std::uint32_t>(std::ldexp(static_cast<float>(static_cast<int>(rng.below(20001)) - 10000), scale - 13));
    std::vector<std::uint64_t> rb(n);
    for (auto& r : rb) r = rng.next();
    Nvfp4Options o;
    o.rounding = Rounding::rs;
    o.stochastic_form = StochasticForm::software;
    o.rbits = rb;
    const std::size_t shape[1] = {n};
    const Nvfp4Tensor q = quantize_nvfp4(FormatId::f32, x.data(), shape, 0, o);
    const float g = std::bit_cast<float>(q.global_amax), s_enc = std::bit_cast<float>(q.encode_scale);
    std::vector<std::uint32_t> out(n);
    dequantize_nvfp4(q, FormatId::f32, out.data(), Context{}, Nvfp4Dequantization::te_kernel);
    bool ok = true;
    for (std::size_t i = 0; ok && i < n; ++i) {
      const float sdec = value_of_e4m3(q.scales[i / 16]);
      const float m = std::fmin(1.0f / (sdec * (1.0f / s_enc)), FLT_MAX);
      const float y = std::bit_cast<float>(x[i]) * m;
      ok = q.codes[i] == te_stochastic_round_e2m1(std::bit_cast<std::uint32_t>(y), rb[i]).code;
      mpfr_t v;
      mpfr_init2(v, 64);
      oracle::decode(oracle::Fmt::e2m1, q.codes[i], v);
      const float e = mpfr_get_flt(v, MPFR_RNDN);
      mpfr_clear(v);
      ok = ok && out[i] == std::bit_cast<std::uint32_t>(e * (sdec * g * (1.0f / 2688.0f)));
    }
    t.check(ok, [&] { return "trial " + std::to_string(trial); });
  }
  t.report();
  const Nvfp4Tensor z{};
  std::uint32_t o1;
  EXPECT_THROW(dequantize_nvfp4(z, FormatId::f32, &o1, Context{}, Nvfp4Dequantization::te_kernel), std::invalid_argument);
}

}  // namespace
}  // namespace softmx
