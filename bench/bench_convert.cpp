// bench/bench_convert.cpp: single-value conversion time, softmx against NVIDIA's host functions,
// in one process over the same inputs. Prints the ratios at the end.
//
// Inputs: 4096 f32 values, a fixed SplitMix64 stream: magnitudes 2^-12 .. 2^10 (mostly inside
// E4M3's range, some saturating, some subnormal), random signs and fractions, so branches are
// not predictable. Each benchmark converts one value per iteration.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/prng.hpp"

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

namespace {

using softmx::FormatId;

const std::vector<float>& inputs() {
  static const std::vector<float> v = [] {
    std::vector<float> r(4096);
    softmx::SplitMix64 rng(0xBE7C4);
    for (float& x : r) {
      const int e = -12 + static_cast<int>(rng.below(23));
      const float m = 1.0f + static_cast<float>(rng.next() >> 41) * 0x1p-23f;
      x = std::ldexp(rng.below(2) ? -m : m, e);
    }
    return r;
  }();
  return v;
}

softmx::Context ctx(softmx::Rounding r = softmx::Rounding::rne, softmx::Saturation s = softmx::Saturation::finite) {
  softmx::Context c;
  c.rounding = r;
  c.saturation = s;
  return c;
}

// softmx::convert(): the free function (checks dialect support on every call).
void softmx_convert(benchmark::State& st, FormatId dst, softmx::Context c) {
  const auto& in = inputs();
  std::size_t i = 0;
  for (auto _ : st) {
    const auto r = softmx::convert(FormatId::f32, dst, std::bit_cast<std::uint32_t>(in[i++ & 4095]), c);
    benchmark::DoNotOptimize(r);
  }
  st.SetItemsProcessed(st.iterations());
}

// softmx::Converter: formats, context and dialect fixed once; one call per value.
void softmx_converter(benchmark::State& st, FormatId dst, softmx::Context c) {
  const auto& in = inputs();
  const softmx::Converter conv(FormatId::f32, dst, c);
  std::size_t i = 0;
  for (auto _ : st) {
    const auto r = conv(std::bit_cast<std::uint32_t>(in[i++ & 4095]));
    benchmark::DoNotOptimize(r);
  }
  st.SetItemsProcessed(st.iterations());
}

// softmx::Converter::run over the 4096 values (per-value time = iteration time / 4096).
void softmx_batch(benchmark::State& st, FormatId dst, softmx::Context c) {
  const auto& in = inputs();
  std::vector<std::uint8_t> out(in.size());
  std::vector<softmx::Flags> flags(in.size());
  const softmx::Converter conv(FormatId::f32, dst, c);
  for (auto _ : st) {
    conv.run(in.data(), out.data(), flags.data(), in.size());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(in.size()));
}

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
unsigned char nv_e4m3_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
unsigned char nv_e5m2_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }
unsigned char nv_e4m3_nosat(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); }
unsigned char nv_e2m3(float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest); }
unsigned char nv_e2m1(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); }
unsigned char nv_e8m0_ru(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf); }

// NVIDIA's host function, inlined into the loop as it is in user code (it is defined in the
// header): the baseline every ratio is taken against.
template <unsigned char (*fn)(float)>
void nvidia(benchmark::State& st) {
  const auto& in = inputs();
  std::size_t i = 0;
  for (auto _ : st) {
    const auto r = fn(in[i++ & 4095]);
    benchmark::DoNotOptimize(r);
  }
  st.SetItemsProcessed(st.iterations());
}
#endif

// Records items/second of every run, to print ratios after the console report.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> rate;  // items per second
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find("items_per_second");
      if (it != r.counters.end()) rate[r.benchmark_name()] = it->second;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  using R = softmx::Rounding;
  using S = softmx::Saturation;
  struct Case {
    std::string name;
    FormatId dst;
    softmx::Context c;
  };
  const std::vector<Case> cases = {
      {"f32_to_e4m3_rne_satfinite", FormatId::e4m3, ctx()},
      {"f32_to_e5m2_rne_satfinite", FormatId::e5m2, ctx()},
      {"f32_to_e4m3_rne_nosat", FormatId::e4m3, ctx(R::rne, S::none)},
      {"f32_to_e2m3_rne", FormatId::e2m3, ctx()},
      {"f32_to_e2m1_rne", FormatId::e2m1, ctx()},
      {"f32_to_e8m0_ru_satfinite", FormatId::e8m0, ctx(R::ru)},
  };
  for (const Case& k : cases) {
    benchmark::RegisterBenchmark(("softmx_convert/" + k.name).c_str(), softmx_convert, k.dst, k.c);
    benchmark::RegisterBenchmark(("softmx_converter/" + k.name).c_str(), softmx_converter, k.dst, k.c);
    benchmark::RegisterBenchmark(("softmx_batch/" + k.name).c_str(), softmx_batch, k.dst, k.c);
  }
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
  benchmark::RegisterBenchmark("nvidia/f32_to_e4m3_rne_satfinite", nvidia<nv_e4m3_sat>);
  benchmark::RegisterBenchmark("nvidia/f32_to_e5m2_rne_satfinite", nvidia<nv_e5m2_sat>);
  benchmark::RegisterBenchmark("nvidia/f32_to_e4m3_rne_nosat", nvidia<nv_e4m3_nosat>);
  benchmark::RegisterBenchmark("nvidia/f32_to_e2m3_rne", nvidia<nv_e2m3>);
  benchmark::RegisterBenchmark("nvidia/f32_to_e2m1_rne", nvidia<nv_e2m1>);
  benchmark::RegisterBenchmark("nvidia/f32_to_e8m0_ru_satfinite", nvidia<nv_e8m0_ru>);
#endif
  benchmark::Initialize(&argc, argv);
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();

  std::printf("\nper-value throughput relative to NVIDIA's host function (higher is faster; same run, same inputs)\n");
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
  for (const Case& k : cases) {
    const auto nv = rep.rate.find("nvidia/" + k.name);
    if (nv == rep.rate.end() || nv->second <= 0) continue;
    std::printf("  %-28s", k.name.c_str());
    for (const char* kind : {"softmx_convert", "softmx_converter", "softmx_batch"}) {
      const auto s = rep.rate.find(std::string(kind) + "/" + k.name);
      if (s != rep.rate.end()) std::printf("  %s %.2fx", kind + 7, s->second / nv->second);
    }
    std::printf("   (NVIDIA %.2f ns/value)\n", 1e9 / nv->second);
  }
#else
  std::printf("  NVIDIA's CUDA headers were not found at build time: no baseline to compare with\n");
#endif
  return 0;
}
