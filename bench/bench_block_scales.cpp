// bench/bench_block_scales.cpp: MX block quantization and dequantization with scale formats
// other than E8M0, and NVFP4, against the E8M0 path of the same element on the same
// instruction set in the same run (docs/BLOCKS.md 1.3). 1 Mi f32 values, blocks of 32 (16 for
// NVFP4), one thread; elements e2m1 and e4m3 x scales e8m0, ue4m3, ue5m3, bf16, f32, and NVFP4
// (E2M1, UE4M3 scales, TransformerEngine's steps), per instruction set (scalar: the reference
// path, which every non-E8M0 scale took before the vector lanes).
//
// GB/s counts the bytes moved: quantize reads 4 bytes a value and writes a code byte and a
// scale per block; dequantize reads them and writes 4 bytes a value. Both figures are printed
// with the ratio to E8M0's.
#include <benchmark/benchmark.h>

#include "rate_reporter.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/prng.hpp"

namespace {

using softmx::FormatId;

constexpr std::size_t kValues = 1 << 20;
constexpr std::size_t kBlock = 32;

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

const char* const kScales[] = {"e8m0", "ue4m3", "ue5m3", "bf16", "f32"};
const FormatId kElements[] = {FormatId::e2m1, FormatId::e4m3};

softmx::BlockOptions options(FormatId e, const char* scale, softmx::Isa isa) {
  softmx::BlockOptions o;
  o.element = e;
  o.scale_format = softmx::ScaleFormat(softmx::parse_format_spec(scale));
  o.isa = isa;
  return o;
}

double quantize_bytes_per_value(const char* scale) {
  return 4.0 + 1.0 + static_cast<double>(softmx::scale_code_bytes(softmx::parse_format_spec(scale))) / kBlock;
}

void mx_quantize(benchmark::State& st, FormatId e, const char* scale, softmx::Isa isa) {
  const auto& in = data();
  const softmx::BlockOptions o = options(e, scale, isa);
  const std::size_t shape[1] = {kValues};
  for (auto _ : st) {
    const softmx::MxTensor t = softmx::quantize_tensor(FormatId::f32, in.data(), shape, 0, kBlock, o);
    benchmark::DoNotOptimize(t.codes.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * quantize_bytes_per_value(scale)));
}

void mx_dequantize(benchmark::State& st, FormatId e, const char* scale, softmx::Isa isa) {
  const std::size_t shape[1] = {kValues};
  const softmx::MxTensor t = softmx::quantize_tensor(FormatId::f32, data().data(), shape, 0, kBlock,
                                                     options(e, scale, softmx::Isa::scalar));
  std::vector<std::uint32_t> out(kValues);
  for (auto _ : st) {
    softmx::Dequantizer d(softmx::format(e), t.scale_format, FormatId::f32, softmx::Context{});
    d.set_isa(isa);
    benchmark::DoNotOptimize(d.run(t.scales.data(), t.codes.data(), kValues, kBlock, out.data()));
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * quantize_bytes_per_value(scale)));
}

constexpr double kNvfp4Bytes = 4.0 + 1.0 + 1.0 / 16;

void nvfp4_quantize(benchmark::State& st, softmx::Isa isa) {
  const auto& in = data();
  softmx::Nvfp4Options o;
  o.isa = isa;
  const std::size_t shape[1] = {kValues};
  for (auto _ : st) {
    const softmx::Nvfp4Tensor t = softmx::quantize_nvfp4(FormatId::f32, in.data(), shape, 0, o);
    benchmark::DoNotOptimize(t.codes.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * kNvfp4Bytes));
}

void nvfp4_dequantize(benchmark::State& st, softmx::Isa isa) {
  const std::size_t shape[1] = {kValues};
  softmx::Nvfp4Options o;
  o.isa = softmx::Isa::scalar;
  const softmx::Nvfp4Tensor t = softmx::quantize_nvfp4(FormatId::f32, data().data(), shape, 0, o);
  std::vector<std::uint32_t> out(kValues);
  for (auto _ : st) {
    benchmark::DoNotOptimize(softmx::dequantize_nvfp4(t, FormatId::f32, out.data(), softmx::Context{},
                                                      softmx::Nvfp4Dequantization::exact, isa));
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * kNvfp4Bytes));
}

std::string qname(const char* op, FormatId e, const char* scale, softmx::Isa isa) {
  return std::string(op) + "_" + softmx::name(isa) + "/" + std::string(softmx::format(e).name) + "_" + scale;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  for (const char* op : {"quantize", "dequantize"})
    for (softmx::Isa isa : softmx::supported_isas()) {
      for (FormatId e : kElements)
        for (const char* s : kScales) {
          names.push_back(qname(op, e, s, isa));
          benchmark::RegisterBenchmark(names.back().c_str(), op[0] == 'q' ? mx_quantize : mx_dequantize, e, s, isa)
              ->Unit(benchmark::kMillisecond);
        }
      names.push_back(std::string(op) + "_" + softmx::name(isa) + "/nvfp4");
      benchmark::RegisterBenchmark(names.back().c_str(), op[0] == 'q' ? nvfp4_quantize : nvfp4_dequantize, isa)
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("bytes_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  // With --benchmark_repetitions the aggregates carry a suffix: take the median.
  auto rate = [&](const std::string& n) {
    auto it = rep.rate.find(n + "_median");
    if (it != rep.rate.end()) return it->second;
    it = rep.rate.find(n);
    return it == rep.rate.end() ? 0.0 : it->second;
  };
  std::printf("\n1 Mi f32 values, blocks of 32 (NVFP4: 16), one core. GB/s of bytes moved (in + out); ratio to the\n"
              "E8M0 path of the same element on the same instruction set in this run (NVFP4: to e2m1_e8m0).\n");
  for (const char* op : {"quantize", "dequantize"})
    for (softmx::Isa isa : softmx::supported_isas()) {
      for (FormatId e : kElements)
        for (const char* s : kScales) {
          const double r = rate(qname(op, e, s, isa)), base = rate(qname(op, e, "e8m0", isa));
          std::printf("  %-32s %7.3f GB/s  %5.2f bytes/value  %6.3fx e8m0\n", qname(op, e, s, isa).c_str(), r / 1e9,
                      quantize_bytes_per_value(s), base > 0 ? r / base : 0.0);
        }
      const std::string n = std::string(op) + "_" + softmx::name(isa) + "/nvfp4";
      const double r = rate(n), base = rate(qname(op, FormatId::e2m1, "e8m0", isa));
      std::printf("  %-32s %7.3f GB/s  %5.2f bytes/value  %6.3fx e2m1_e8m0\n", n.c_str(), r / 1e9, kNvfp4Bytes,
                  base > 0 ? r / base : 0.0);
    }
  return 0;
}
