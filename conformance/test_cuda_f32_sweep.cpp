// conformance/test_cuda_f32_sweep.cpp: every one of the 2^32 f32 inputs, softmx's cuda dialect
// against NVIDIA's __nv_cvt_float_to_{fp8,fp6,fp4,e8m0}, for every rounding and saturation
// NVIDIA offers.
//
// Each test sweeps one combination on every core (ctest runs these serially), in chunks of
// 2^20 inputs: softmx through its batch entry point, NVIDIA through a plain loop.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

#include "oracles/cuda_reference.hpp"
#include "softmx/convert.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

using Combo = std::tuple<FormatId, Rounding, Saturation>;

class CudaF32Sweep : public ::testing::TestWithParam<Combo> {};

TEST_P(CudaF32Sweep, EveryInput) {
  if (!cudaref::available())
    GTEST_SKIP() << "NVIDIA's CUDA headers (cuda_fp8.h) were not found when this was built: the f32 sweep "
                    "against NVIDIA's functions is skipped (install the CUDA toolkit or set CUDA_HOME)";
  // Not a structured binding: the worker lambda captures these, which clang 14 cannot do.
  const FormatId dst = std::get<0>(GetParam());
  const Rounding r = std::get<1>(GetParam());
  const Saturation s = std::get<2>(GetParam());
  Context c;
  c.rounding = r;
  c.saturation = s;
  const Converter conv(FormatId::f32, dst, c, *find_dialect("cuda"));
  constexpr std::uint64_t kChunk = 1u << 20;
  constexpr std::uint64_t kChunks = (std::uint64_t{1} << 32) / kChunk;
  std::atomic<std::uint64_t> next{0};
  std::mutex mu;
  conformance::Tally total("cuda f32 (all 2^32) -> " + std::string(format(dst).name) + " " + std::string(name(r)) +
                           " " + std::string(name(s)));
  auto worker = [&] {
    std::vector<std::uint32_t> in(kChunk);
    std::vector<std::uint8_t> ours(kChunk), theirs(kChunk);
    conformance::Tally t(total.name());
    for (std::uint64_t k; (k = next.fetch_add(1)) < kChunks;) {
      const std::uint32_t base = static_cast<std::uint32_t>(k * kChunk);
      for (std::uint32_t i = 0; i < kChunk; ++i) in[i] = base + i;
      conv.run(in.data(), ours.data(), nullptr, kChunk);
      cudaref::convert_f32_batch(dst, r, s, in.data(), theirs.data(), kChunk);
      std::uint64_t bad = 0;
      for (std::uint32_t i = 0; i < kChunk; ++i) {
        if (ours[i] == theirs[i]) continue;
        ++bad;
        std::ostringstream o;
        o << std::hex << std::uppercase << "input " << in[i] << " softmx " << int(ours[i]) << " NVIDIA " << int(theirs[i]);
        t.fail(o.str());
      }
      t.pass(kChunk - bad);
    }
    std::lock_guard lock(mu);
    total.merge(t);
  };
  std::vector<std::thread> threads;
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < n; ++i) threads.emplace_back(worker);
  for (auto& th : threads) th.join();
  total.report();
}

// Every destination and NVIDIA mode, two to a line: FP8 rne under both saturations, FP6 and FP4
// rne and rz (satfinite only), E8M0 rz and ru under both.
constexpr Combo kCombos[] = {
    {FormatId::e4m3, Rounding::rne, Saturation::finite}, {FormatId::e4m3, Rounding::rne, Saturation::none},
    {FormatId::e5m2, Rounding::rne, Saturation::finite}, {FormatId::e5m2, Rounding::rne, Saturation::none},
    {FormatId::e3m2, Rounding::rne, Saturation::finite}, {FormatId::e3m2, Rounding::rz, Saturation::finite},
    {FormatId::e2m3, Rounding::rne, Saturation::finite}, {FormatId::e2m3, Rounding::rz, Saturation::finite},
    {FormatId::e2m1, Rounding::rne, Saturation::finite}, {FormatId::e2m1, Rounding::rz, Saturation::finite},
    {FormatId::e8m0, Rounding::rz, Saturation::finite},  {FormatId::e8m0, Rounding::rz, Saturation::none},
    {FormatId::e8m0, Rounding::ru, Saturation::finite},  {FormatId::e8m0, Rounding::ru, Saturation::none},
};

INSTANTIATE_TEST_SUITE_P(
    Nvidia, CudaF32Sweep,
    ::testing::ValuesIn(kCombos),
    [](const ::testing::TestParamInfo<Combo>& i) {
      return std::string(format(std::get<0>(i.param)).name) + "_" + std::string(name(std::get<1>(i.param))) + "_" +
             std::string(name(std::get<2>(i.param)));
    });

}  // namespace
}  // namespace softmx
