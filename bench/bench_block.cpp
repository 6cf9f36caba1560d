// bench/bench_block.cpp: MX block quantization throughput, f32 in, MXFP8 (E4M3, k = 32,
// floor scale) out, single thread, against a scalar loop of single-value conversions of the
// same data in the same run; and dequantization back to f32 against a loop of
// dequantize_element. Reports GB/s per core, the ratios, and the share of the memory loops (the
// limits: read f32 and write a byte; read a byte and write f32), each built for the baseline
// instruction set and for every instruction set this CPU has (limit_loops_*.cpp, compiled with
// the kernels' -m flags), so that a kernel is measured against what its own instruction set
// moves.
#include <benchmark/benchmark.h>

#include "limit_loops.hpp"
#include "rate_reporter.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "softmx/batch.hpp"
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

// The MX quantizer: blocks of 32 along a 1-d tensor (scale + 32 codes per block), on one
// instruction set (softmx::Isa::scalar: the reference path).
void mx_quantize(benchmark::State& st, softmx::Isa isa) {
  const auto& in = data();
  softmx::BlockOptions o;
  o.element = FormatId::e4m3;
  o.isa = isa;
  const std::size_t shape[1] = {kValues};
  for (auto _ : st) {
    const softmx::MxTensor t = softmx::quantize_tensor(FormatId::f32, in.data(), shape, 0, 32, o);
    benchmark::DoNotOptimize(t.codes.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

// The same with a runtime element format (softmx::parse_format_spec; docs/BLOCKS.md 1.1) on one
// instruction set: the scalar steps on the descriptor, or per block the vector lanes reading
// the descriptor from the plan (no many-block kernel). e4m3fnuz against e4m3 compares the same
// width and shape.
void mx_quantize_runtime(benchmark::State& st, const char* spec, softmx::Isa isa) {
  const auto& in = data();
  softmx::BlockOptions o;
  o.element = softmx::parse_format_spec(spec);
  o.isa = isa;
  const std::size_t shape[1] = {kValues};
  for (auto _ : st) {
    const softmx::MxTensor t = softmx::quantize_tensor(FormatId::f32, in.data(), shape, 0, 32, o);
    benchmark::DoNotOptimize(t.codes.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

// The same data through the single-value API, one Converter call per value (no scales).
void scalar_loop(benchmark::State& st) {
  const auto& in = data();
  std::vector<std::uint8_t> out(kValues);
  const softmx::Converter conv(FormatId::f32, FormatId::e4m3, softmx::Context{});
  for (auto _ : st) {
    for (std::size_t i = 0; i < kValues; ++i) out[i] = static_cast<std::uint8_t>(conv(in[i]).code);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

// The limit: read the f32 values and write one byte each, no arithmetic beyond a shift, built
// for one instruction set (the compiler vectorises it as that set allows).
void memory_loop(benchmark::State& st, softmx::bench::LimitLoops loops) {
  const auto& in = data();
  std::vector<std::uint8_t> out(kValues + kValues / 32);
  for (auto _ : st) {
    loops.f32_to_u8(in.data(), out.data(), kValues);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

// Dequantization, MXFP8 E4M3 (k = 32) back to f32: the tensor quantized once (outside the
// timing), then dequantize_tensor (a Dequantizer: tables per scale code, made inside the timed
// call) against a loop of dequantize_element, one call per element, and a memory loop that
// reads a byte and writes an f32. Bytes counted: the f32 output.
const softmx::MxTensor& quantized() {
  static const softmx::MxTensor t = [] {
    softmx::BlockOptions o;
    o.element = FormatId::e4m3;
    const std::size_t shape[1] = {kValues};
    return softmx::quantize_tensor(FormatId::f32, data().data(), shape, 0, 32, o);
  }();
  return t;
}

void mx_dequantize(benchmark::State& st) {
  const softmx::MxTensor& t = quantized();
  std::vector<std::uint32_t> out(kValues);
  for (auto _ : st) {
    benchmark::DoNotOptimize(softmx::dequantize_tensor(t, FormatId::f32, out.data(), softmx::Context{}));
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

void dequantize_loop(benchmark::State& st) {
  const softmx::MxTensor& t = quantized();
  std::vector<std::uint32_t> out(kValues);
  const softmx::Context c;
  for (auto _ : st) {
    softmx::Flags all = 0;
    for (std::size_t i = 0; i < kValues; ++i) {
      const softmx::Result r = softmx::dequantize_element(FormatId::e4m3, t.scales[i / 32], t.codes[i], FormatId::f32, c);
      out[i] = static_cast<std::uint32_t>(r.code);
      all |= r.flags;
    }
    benchmark::DoNotOptimize(all);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

void dequantize_memory_loop(benchmark::State& st, softmx::bench::LimitLoops loops) {
  const softmx::MxTensor& t = quantized();
  std::vector<std::uint32_t> out(kValues);
  for (auto _ : st) {
    loops.u8_to_f32(t.codes.data(), out.data(), kValues);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(kValues * 4));
}

/// The limit loops this CPU runs: the baseline build, then avx2 and avx512 where supported.
std::vector<softmx::bench::LimitLoops> limit_loops() {
  std::vector<softmx::bench::LimitLoops> v{softmx::bench::limit_loops_baseline()};
  if (softmx::isa_supported(softmx::Isa::avx2)) v.push_back(softmx::bench::limit_loops_avx2());
  if (softmx::isa_supported(softmx::Isa::avx512)) v.push_back(softmx::bench::limit_loops_avx512());
  return v;
}

/// The limit loops' instruction set for a kernel's: scalar kernels against the baseline build.
std::string loop_isa(softmx::Isa isa) { return isa == softmx::Isa::scalar ? "baseline" : softmx::name(isa); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  for (softmx::Isa isa : softmx::supported_isas()) {
    names.push_back(std::string("mx_quantize_") + softmx::name(isa) + "/f32_to_mxfp8_e4m3_k32_floor");
    benchmark::RegisterBenchmark(names.back().c_str(), mx_quantize, isa)->Unit(benchmark::kMillisecond);
  }
  for (softmx::Isa isa : softmx::supported_isas()) {
    names.push_back(std::string("mx_quantize_runtime_") + softmx::name(isa) + "/f32_to_e4m3fnuz_k32_floor");
    benchmark::RegisterBenchmark(names.back().c_str(), mx_quantize_runtime, "e4m3fnuz", isa)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("scalar_loop/convert_f32_to_e4m3", scalar_loop)->Unit(benchmark::kMillisecond);
  for (const auto& l : limit_loops())
    benchmark::RegisterBenchmark((std::string("memory_loop_") + l.isa + "/read_f32_write_u8").c_str(), memory_loop, l)
        ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("mx_dequantize/mxfp8_e4m3_k32_to_f32", mx_dequantize)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("scalar_loop/dequantize_element", dequantize_loop)->Unit(benchmark::kMillisecond);
  for (const auto& l : limit_loops())
    benchmark::RegisterBenchmark((std::string("memory_loop_") + l.isa + "/read_u8_write_f32").c_str(),
                                 dequantize_memory_loop, l)
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("bytes_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  const double s = rep.rate["scalar_loop/convert_f32_to_e4m3"];
  std::printf("\nMX block quantize, f32 -> MXFP8 E4M3, k = 32, floor scale, 4 MiB of f32, one core (GB/s of f32 "
              "input; ratios in this run):\n");
  for (const auto& l : limit_loops())
    std::printf("  %-52s %7.2f GB/s\n", (std::string("memory loop, ") + l.isa + " build (read f32, write a byte)").c_str(),
                rep.rate[std::string("memory_loop_") + l.isa + "/read_f32_write_u8"] / 1e9);
  std::printf("  %-52s %7.2f GB/s\n", "scalar loop of single conversions (no scales)", s / 1e9);
  const double base = rep.rate["memory_loop_baseline/read_f32_write_u8"];
  for (softmx::Isa isa : softmx::supported_isas()) {
    const std::string n = std::string("mx_quantize_") + softmx::name(isa) + "/f32_to_mxfp8_e4m3_k32_floor";
    const double q = rep.rate[n], mem = rep.rate["memory_loop_" + loop_isa(isa) + "/read_f32_write_u8"];
    if (q > 0 && s > 0 && mem > 0 && base > 0)
      std::printf("  %-52s %7.2f GB/s  %6.2fx the scalar loop, %5.1f%% of the %s memory loop (%5.1f%% of baseline's)\n",
                  n.c_str(), q / 1e9, q / s, 100 * q / mem, loop_isa(isa).c_str(), 100 * q / base);
  }
  for (softmx::Isa isa : softmx::supported_isas()) {
    const std::string n = std::string("mx_quantize_runtime_") + softmx::name(isa) + "/f32_to_e4m3fnuz_k32_floor";
    const double rt = rep.rate[n];
    const double named = rep.rate[std::string("mx_quantize_") + softmx::name(isa) + "/f32_to_mxfp8_e4m3_k32_floor"];
    if (rt > 0 && named > 0)
      std::printf("  %-52s %7.2f GB/s  %5.2fx named e4m3 on the same instruction set\n", n.c_str(), rt / 1e9,
                  rt / named);
  }
  const double dq = rep.rate["mx_dequantize/mxfp8_e4m3_k32_to_f32"], dl = rep.rate["scalar_loop/dequantize_element"];
  std::printf("\nMX dequantize, MXFP8 E4M3 (k = 32) -> f32, 4 MiB of f32 output, one core (GB/s of f32 output):\n");
  for (const auto& l : limit_loops())
    std::printf("  %-52s %7.2f GB/s\n", (std::string("memory loop, ") + l.isa + " build (read a byte, write f32)").c_str(),
                rep.rate[std::string("memory_loop_") + l.isa + "/read_u8_write_f32"] / 1e9);
  std::printf("  %-52s %7.2f GB/s\n", "scalar loop of dequantize_element", dl / 1e9);
  if (dq > 0 && dl > 0) {
    std::printf("  %-52s %7.2f GB/s  %6.2fx the scalar loop;", "dequantize_tensor (Dequantizer)", dq / 1e9, dq / dl);
    for (const auto& l : limit_loops())
      std::printf(" %5.1f%% of the %s loop", 100 * dq / rep.rate[std::string("memory_loop_") + l.isa + "/read_u8_write_f32"],
                  l.isa);
    std::printf("\n");
  }
  return 0;
}
