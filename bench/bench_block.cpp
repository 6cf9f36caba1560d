// bench/bench_block.cpp: MX block quantization throughput, f32 in, MXFP8 (E4M3, k = 32,
// floor scale) out, single thread, against a scalar loop of single-value conversions of the
// same data in the same run. Reports MB/s of f32 input per core and the ratio.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"

namespace {

using softmx::FormatId;

constexpr std::size_t kValues = 1 << 20;  // 4 MiB of f32

const std::vector<std::uint32_t>& data() {
  static const std::vector<std::uint32_t> v = [] {
    std::vector<std::uint32_t> r(kValues);
    softmx::SplitMix64 rng(0xB10C);
    for (auto& x : r) {
      const int e = -8 + static_cast<int>(rng.below(16));
      const float m = 1.0f + static_cast<float>(rng.next() >> 41) * 0x1p-23f;
      x = std::bit_cast<std::uint32_t>(std::ldexp(rng.below(2) ? -m : m, e));
    }
    return r;
  }();
  return v;
}

// The MX quantizer: blocks of 32 along a 1-d tensor (scale + 32 codes per block).
void mx_quantize(benchmark::State& st) {
  const auto& in = data();
  softmx::BlockOptions o;
  o.element = FormatId::e4m3;
  const std::size_t shape[1] = {kValues};
  for (auto _ : st) {
    const softmx::MxTensor t = softmx::quantize_tensor(FormatId::f32, in.data(), shape, 0, 32, o);
    benchmark::DoNotOptimize(t.codes.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

// The same data through the single-value API, one convert() per value (no scales).
void scalar_loop(benchmark::State& st) {
  const auto& in = data();
  std::vector<std::uint8_t> out(kValues);
  softmx::Context c;
  for (auto _ : st) {
    for (std::size_t i = 0; i < kValues; ++i)
      out[i] = static_cast<std::uint8_t>(softmx::convert(FormatId::f32, FormatId::e4m3, in[i], c).code);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

class RateReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> rate;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find("bytes_per_second");
      if (it != r.counters.end()) rate[r.benchmark_name()] = it->second;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("mx_quantize/f32_to_mxfp8_e4m3_k32_floor", mx_quantize)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("scalar_loop/convert_f32_to_e4m3", scalar_loop)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  RateReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  const double q = rep.rate["mx_quantize/f32_to_mxfp8_e4m3_k32_floor"], s = rep.rate["scalar_loop/convert_f32_to_e4m3"];
  if (q > 0 && s > 0)
    std::printf("\nMX block quantize (f32 -> MXFP8 E4M3, k = 32, floor), one core: %.1f MB/s of f32 input; "
                "scalar loop of convert(): %.1f MB/s; ratio %.2fx\n",
                q / 1e6, s / 1e6, q / s);
  return 0;
}
