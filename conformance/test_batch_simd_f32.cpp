// conformance/test_batch_simd_f32.cpp: the vector batch kernels equal the scalar reference on
// every one of the 2^32 f32 inputs.
//
// For each setting below, every f32 bit pattern is converted by the scalar kernel (Isa::scalar,
// the reference) and by every vector instruction set this CPU runs, with flags and without, and
// as consecutive inputs (run_consecutive, the sweep's form), and codes and flags must be equal. The settings cover every kernel family: each destination
// (narrow sign-magnitude, int8's two's complement, E8M0, the 16-bit ones, normalising or not),
// every rounding mode, both saturations and tininess rules, and dialects whose NaN, E8M0 and
// int8 policies differ. Every other setting is covered on all f16/bf16 inputs and a structured
// f32 sample (test_batch_simd.cpp), and through the committed f32 run tables, which the vector
// sweep regenerates byte for byte (test_committed_vectors_all).
//
// About 10 to 15 s a setting on 2 cores (the scalar side dominates). The same for block
// quantization (BatchSimdF32Blocks below): every f32 input as an element of a block, about 36 s a
// setting.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "softmx/convert.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

struct Setting {
  const char* dialect;
  FormatId dst;
  Rounding rounding;
  Saturation saturation = Saturation::finite;
  Tininess tininess = Tininess::after_rounding;
};

std::string describe(const Setting& s) {
  return "f32->" + std::string(format(s.dst).name) + " " + std::string(name(s.rounding)) + " " +
         std::string(name(s.saturation)) + " tininess " + std::string(name(s.tininess)) + " dialect " + s.dialect;
}

template <class Out>
void sweep(const Converter& conv, conformance::Tally& t) {
  constexpr std::uint64_t kSlice = std::uint64_t{1} << 16;
  constexpr std::uint64_t kSlices = (std::uint64_t{1} << 32) / kSlice;
  std::atomic<std::uint64_t> next{0}, bad{0};
  std::atomic<std::uint64_t> first_bad{~std::uint64_t{0}};
  auto work = [&] {
    std::vector<std::uint32_t> in(kSlice);
    std::vector<Out> want(kSlice), got(kSlice);
    std::vector<Flags> want_f(kSlice), got_f(kSlice);
    for (std::uint64_t s; (s = next++) < kSlices;) {
      const std::uint64_t base = s * kSlice;
      for (std::uint64_t i = 0; i < kSlice; ++i) in[i] = static_cast<std::uint32_t>(base + i);
      run_on(conv, Isa::scalar, in.data(), want.data(), want_f.data(), kSlice);
      for (Isa isa : supported_isas()) {
        if (isa == Isa::scalar) continue;
        run_on(conv, isa, in.data(), got.data(), got_f.data(), kSlice);
        std::uint64_t b = 0;
        for (std::uint64_t i = 0; i < kSlice; ++i)
          if (got[i] != want[i] || got_f[i] != want_f[i]) {
            ++b;
            std::uint64_t cur = first_bad.load();
            while (base + i < cur && !first_bad.compare_exchange_weak(cur, base + i)) {
            }
          }
        run_on(conv, isa, in.data(), got.data(), nullptr, kSlice);
        for (std::uint64_t i = 0; i < kSlice; ++i)
          if (got[i] != want[i]) ++b;
        // The sweep's form: consecutive inputs, binade by binade.
        run_consecutive(conv, isa, base, got.data(), got_f.data(), kSlice);
        for (std::uint64_t i = 0; i < kSlice; ++i)
          if (got[i] != want[i] || got_f[i] != want_f[i]) ++b;
        bad += b;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) pool.emplace_back(work);
  for (std::thread& th : pool) th.join();
  const std::uint64_t vector_isas = supported_isas().size() - 1;
  const std::uint64_t cases = (std::uint64_t{1} << 32) * 3 * vector_isas;
  t.pass(cases - bad);
  if (bad)
    t.fail("first differing input " + std::to_string(first_bad.load()) + " (" + std::to_string(bad.load()) +
               " differences)",
           bad);
}

class BatchSimdF32 : public ::testing::TestWithParam<Setting> {};

TEST_P(BatchSimdF32, EqualsScalarOnEveryInput) {
  const Setting& s = GetParam();
  if (supported_isas().size() < 2) GTEST_SKIP() << "this CPU runs no vector kernels (no AVX2): nothing to compare";
  const Context c{.rounding = s.rounding, .saturation = s.saturation, .tininess = s.tininess};
  const Converter conv(FormatId::f32, s.dst, c, *find_dialect(s.dialect));
  ASSERT_TRUE(vectorized(conv));
  conformance::Tally t("vector batch == scalar, every f32 input, " + describe(s) +
                       ", every instruction set, with and without flags, and consecutive");
  if (format(s.dst).width > 8) sweep<std::uint16_t>(conv, t);
  else sweep<std::uint8_t>(conv, t);
  t.report();
}

using R = Rounding;
using S = Saturation;
using T = Tininess;
// One setting per kernel family in the default run (label `sweep`, about 2 minutes on 2
// cores); the rest under `long` (test_batch_simd_f32_long, the same file).
// A parameterised case's name: describe(param) with every character but letters and digits
// replaced by '_' (gtest takes only those).
template <class P>
std::string param_name(const ::testing::TestParamInfo<P>& i) {
  std::string n = describe(i.param);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

#if !defined(SOFTMX_F32_LONG)
#define SOFTMX_F32_SETTINGS                                                                                        \
  Setting{"ocp", FormatId::e4m3, R::rne}, Setting{"ocp", FormatId::e4m3, R::ro},                                  \
      Setting{"ocp", FormatId::e5m2, R::rne, S::none}, Setting{"ml_dtypes", FormatId::e2m1, R::rne},             \
      Setting{"gfloat", FormatId::int8, R::rd}, Setting{"ml_dtypes", FormatId::e8m0, R::rne, S::none},         \
      Setting{"ocp", FormatId::f16, R::rne}, Setting{"ocp", FormatId::bf16, R::rz, S::finite, T::before_rounding}
#else
#define SOFTMX_F32_SETTINGS                                                                                        \
  Setting{"ocp", FormatId::e4m3, R::rna}, Setting{"ocp", FormatId::e4m3, R::rz},                                  \
      Setting{"ocp", FormatId::e4m3, R::ru, S::none}, Setting{"ocp", FormatId::e4m3, R::rd, S::none, T::before_rounding}, \
      Setting{"cuda", FormatId::e5m2, R::rne}, Setting{"ocp", FormatId::e3m2, R::ru},                             \
      Setting{"ocp", FormatId::e2m3, R::rd, S::none}, Setting{"ocp", FormatId::int8, R::rne},                   \
      Setting{"ocp", FormatId::e8m0, R::rne, S::none}, Setting{"cuda", FormatId::e8m0, R::ru},                  \
      Setting{"ocp", FormatId::f16, R::rz, S::none}, Setting{"ocp", FormatId::bf16, R::rne}
#endif
INSTANTIATE_TEST_SUITE_P(Settings, BatchSimdF32, ::testing::Values(SOFTMX_F32_SETTINGS),
                         param_name<Setting>);

// Block quantization, every f32 input: each one is an element of a 32-value block whose other
// lanes are its neighbours and one anchor (a power of two between 2^-126 and 2^127 of either
// sign, drawn per block, or a zero), so that over the sweep every input meets scales from far
// above it to its own. The whole tensor (about 2^27 blocks, in slices) is quantized by the
// scalar path and by the block kernel on every instruction set: scales and codes must be equal
// element for element, and the flags' OR per slice (block-by-block flags:
// test_batch_simd.cpp's BlockKernelEqualsTheScalarPathBlockByBlock). Labels as above.
struct BlockSetting {
  const char* dialect;
  FormatId element;
  Rounding rounding;
  Tininess tininess = Tininess::after_rounding;
};

std::string describe(const BlockSetting& s) {
  return "f32->mx" + std::string(format(s.element).name) + " k32 floor " + std::string(name(s.rounding)) +
         " tininess " + std::string(name(s.tininess)) + " dialect " + s.dialect;
}

class BatchSimdF32Blocks : public ::testing::TestWithParam<BlockSetting> {};

TEST_P(BatchSimdF32Blocks, BlockKernelEqualsScalarOnEveryInput) {
  const BlockSetting& s = GetParam();
  if (supported_isas().size() < 2) GTEST_SKIP() << "this CPU runs no vector kernels (no AVX2): nothing to compare";
  BlockOptions o;
  o.element = s.element;
  o.dialect = find_dialect(s.dialect);
  o.rounding = s.rounding;
  o.tininess = s.tininess;
  o.rule = ScaleRule::floor;
  conformance::Tally t("block kernel == scalar path, every f32 input in a block with a drawn anchor, " + describe(s) +
                       ", every instruction set");
  constexpr std::uint64_t kSlice = std::uint64_t{1} << 16, kSlices = (std::uint64_t{1} << 32) / kSlice;
  constexpr std::size_t kPerBlock = 31, kBlocks = (kSlice + kPerBlock - 1) / kPerBlock;
  std::atomic<std::uint64_t> next{0}, bad{0}, cases{0};
  std::atomic<std::uint64_t> first_bad{~std::uint64_t{0}};
  auto work = [&] {
    std::vector<std::uint32_t> in(kBlocks * 32);
    const std::size_t shape[1] = {kBlocks * 32};
    for (std::uint64_t sl; (sl = next++) < kSlices;) {
      SplitMix64 rng(0xB10C0000 + sl);
      std::uint64_t x = sl * kSlice;
      for (std::size_t b = 0; b < kBlocks; ++b) {
        const std::uint32_t sign = static_cast<std::uint32_t>(rng.below(2)) << 31;
        in[b * 32] = rng.below(4) == 0 ? sign : sign | static_cast<std::uint32_t>(1 + rng.below(254)) << 23;
        for (std::size_t i = 1; i < 32; ++i) in[b * 32 + i] = x < (sl + 1) * kSlice ? static_cast<std::uint32_t>(x++) : 0;
      }
      BlockOptions os = o;
      os.isa = Isa::scalar;
      MxTensor want;
      try {
        want = quantize_tensor(FormatId::f32, in.data(), shape, 0, 32, os);
      } catch (const std::invalid_argument&) {
        continue;  // a dialect that raises on NaN: not one of the settings below
      }
      for (Isa isa : supported_isas()) {
        if (isa == Isa::scalar) continue;
        os.isa = isa;
        const MxTensor got = quantize_tensor(FormatId::f32, in.data(), shape, 0, 32, os);
        std::uint64_t diff = got.flags != want.flags ? 1 : 0;
        for (std::size_t b = 0; b < kBlocks; ++b) diff += got.scales[b] != want.scales[b];
        for (std::size_t i = 0; i < in.size(); ++i) {
          if (got.codes[i] == want.codes[i]) continue;
          ++diff;
          std::uint64_t f = first_bad.load();
          while (in[i] < f && !first_bad.compare_exchange_weak(f, in[i])) {
          }
        }
        bad += diff;
        cases += kBlocks + in.size() + 1;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) pool.emplace_back(work);
  for (std::thread& th : pool) th.join();
  t.pass(cases - bad);
  if (bad)
    t.fail(describe(s) + ": " + std::to_string(bad.load()) + " scales, codes or slice flags differ (first input " +
               std::to_string(first_bad.load()) + ")",
           bad);
  t.report();
}

#if !defined(SOFTMX_F32_LONG)
#define SOFTMX_F32_BLOCK_SETTINGS BlockSetting{"ocp", FormatId::e4m3, R::rne}
#else
#define SOFTMX_F32_BLOCK_SETTINGS                                                                                  \
  BlockSetting{"ocp", FormatId::e2m1, R::rz}, BlockSetting{"ocp", FormatId::e5m2, R::rne, T::before_rounding},    \
      BlockSetting{"ocp", FormatId::e3m2, R::ru}, BlockSetting{"ocp", FormatId::int8, R::rne}
#endif
INSTANTIATE_TEST_SUITE_P(Settings, BatchSimdF32Blocks, ::testing::Values(SOFTMX_F32_BLOCK_SETTINGS),
                         param_name<BlockSetting>);

}  // namespace
}  // namespace softmx
