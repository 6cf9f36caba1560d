// bench/bench_gemm.cpp: MX GEMM throughput per accumulation model (softmx::gemm, softmx/gemm.hpp),
// E4M3 x E4M3 with k = 32 blocks (E2M1 x E2M1 for the GST models blackwell-mxf4 and
// blackwell-nvf4, which take nothing else), against two peers in the same process (and runtime
// element formats against the named ones of their width, issue 14):
//   - the scalar path it replaces: dot_general() per output (GemmKernel::reference), one thread;
//   - OpenBLAS sgemm (Debian's libopenblas-dev) on the same operands dequantized to f32, one
//     thread: the fast, inexact product users reach for today.
// And UE4M3 block scales against E8M0 on the same e4m3 blocks (scales_512: the exact kernel with
// the scale significands folded in; fp32-sequential's kernel with each block sum times the two
// scale values rounded once), on the AVX2 and the best kernel.
// Reported per core (one thread) as element products per second, with the ratios; then the wall
// time of a 2048^3 product per model on every core of this machine.
//
// The sgemm peer runs as OpenBLAS picks it for this CPU: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
// (which force a kernel or a blocking) are unset before OpenBLAS loads (it reads them in its
// load-time constructor, so the program unsets them and executes itself again, saying so), and
// the run prints the core and configuration sgemm ran (openblas_get_corename(),
// openblas_get_config()).
//
// The operands are what `softmx gemm-golden` draws: bell-shaped values in [-6, 6] (the sum of 12
// SplitMix64 draws), quantized along k with the floor scale rule.
#include <benchmark/benchmark.h>

#include "rate_reporter.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"

#ifdef SOFTMX_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

using softmx::FormatId;

/// A (M x K, blocked along rows) and B (K x N, blocked along columns), quantized, with their
/// f32 dequantizations.
struct Operands {
  std::size_t M, N, K;
  softmx::ElementFormat fmt;
  softmx::MxTensor qa, qb;
  std::vector<float> fa, fb;
  softmx::GemmOperand A() const { return softmx::gemm_rows(fmt, M, K, 32, qa.codes, qa.scales); }
  softmx::GemmOperand B() const { return softmx::gemm_columns(fmt, K, N, 32, qb.codes, qb.scales); }
};

const Operands& operands(std::size_t M, std::size_t N, std::size_t K,
                         const softmx::ElementFormat& fmt = FormatId::e4m3) {
  static std::map<std::pair<std::size_t, std::string>, Operands> all;
  const std::size_t key = (M << 40) ^ (N << 20) ^ K;
  const std::pair<std::size_t, std::string> id{key, std::string(fmt.name())};
  auto it = all.find(id);
  if (it != all.end()) return it->second;
  Operands& o = all[id];
  o.fmt = fmt;
  o.M = M;
  o.N = N;
  o.K = K;
  softmx::SplitMix64 rng(0x6E33 + key);
  auto draw = [&] {
    std::int64_t s = 0;
    for (int i = 0; i < 12; ++i) s += static_cast<std::int64_t>(rng.next() >> 40);
    return std::bit_cast<std::uint32_t>(
        static_cast<float>(std::ldexp(static_cast<double>(s - 6 * (std::int64_t{1} << 24)), -24)));
  };
  std::vector<std::uint32_t> a(M * K), b(K * N);
  for (auto& x : a) x = draw();
  for (auto& x : b) x = draw();
  softmx::BlockOptions bo;
  bo.element = fmt;
  const std::size_t as[2] = {M, K}, bs[2] = {K, N};
  o.qa = softmx::quantize_tensor(FormatId::f32, a.data(), as, 1, 32, bo);
  o.qb = softmx::quantize_tensor(FormatId::f32, b.data(), bs, 0, 32, bo);
  o.fa.resize(M * K);
  o.fb.resize(K * N);
  softmx::dequantize_tensor(o.qa, FormatId::f32, o.fa.data(), softmx::Context{});
  softmx::dequantize_tensor(o.qb, FormatId::f32, o.fb.data(), softmx::Context{});
  return o;
}

softmx::Context out_context() {
  softmx::Context c;
  c.saturation = softmx::Saturation::none;
  return c;
}

void run_gemm(benchmark::State& st, const softmx::AccumulationModel* model, softmx::ElementFormat fmt,
              softmx::GemmKernel kernel,
              std::size_t M, std::size_t N, std::size_t K, unsigned threads) {
  const Operands& o = operands(M, N, K, fmt);
  std::vector<std::uint32_t> c(M * N);
  std::vector<softmx::Flags> f(M * N);
  softmx::GemmOptions opt;
  opt.model = model;
  opt.out = out_context();
  opt.kernel = kernel;
  opt.threads = threads;
  for (auto _ : st) {
    benchmark::DoNotOptimize(softmx::gemm(o.A(), o.B(), opt, c, f));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(M * N * K));
}

/// The operands' E8M0 scale codes as UE4M3 codes (the GEMM's scale_format e4m3): 2^(e - 127)
/// times a random significand 1 + m/8, the exponent clamped into UE4M3's normal range (field
/// 1..15, bias 7; never the NaN code 0x7F).
std::vector<std::uint8_t> ue4m3_scales(std::span<const std::uint8_t> e8m0, std::uint64_t seed) {
  softmx::SplitMix64 rng(seed);
  std::vector<std::uint8_t> v(e8m0.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const int field = std::clamp(static_cast<int>(e8m0[i]) - 127 + 7, 1, 15);
    const int m = static_cast<int>(rng.next() % (field == 15 ? 7 : 8));
    v[i] = static_cast<std::uint8_t>((field << 3) | m);
  }
  return v;
}

/// run_gemm's operands with E8M0 scales (ue4m3 false) or the same blocks with UE4M3 scales
/// (ue4m3_scales), e4m3 elements, one thread, on `kernel`: the UE4M3 route against the E8M0 one.
void run_gemm_scales(benchmark::State& st, const softmx::AccumulationModel* model, bool ue4m3, std::size_t n,
                     softmx::GemmKernel kernel) {
  const Operands& o = operands(n, n, n);
  const std::vector<std::uint8_t> sa = ue4m3_scales(o.qa.scales, 1), sb = ue4m3_scales(o.qb.scales, 2);
  softmx::GemmOperand A = o.A(), B = o.B();
  if (ue4m3) {
    A.scales = sa;
    B.scales = sb;
    A.scale_format = B.scale_format = FormatId::e4m3;
  }
  std::vector<std::uint32_t> c(n * n);
  std::vector<softmx::Flags> f(n * n);
  softmx::GemmOptions opt;
  opt.model = model;
  opt.out = out_context();
  opt.threads = 1;
  opt.kernel = kernel;
  for (auto _ : st) {
    benchmark::DoNotOptimize(softmx::gemm(A, B, opt, c, f));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(n * n * n));
}

#ifdef SOFTMX_HAVE_OPENBLAS
void openblas_sgemm(benchmark::State& st, std::size_t n) {
  const Operands& o = operands(n, n, n);
  std::vector<float> c(n * n);
  openblas_set_num_threads(1);
  const int d = static_cast<int>(n);
  for (auto _ : st) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0f, o.fa.data(), d, o.fb.data(), d, 0.0f,
                c.data(), d);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(n * n * n));
}
#endif

struct Model {
  std::string name;
  const softmx::AccumulationModel* model;
  FormatId fmt = FormatId::e4m3;  // the GST models take E2M1 only
};

std::vector<Model> models() {
  return {{"exact", &softmx::exact_accumulation()},
          {"fp32-sequential", &softmx::fp32_sequential_accumulation()},
          {"hopper-fp8-mma", &softmx::hopper_fp8_mma_model()},
          {"hopper-fp8-wgmma", &softmx::hopper_fp8_wgmma_model()},
          {"blackwell-mxf8f6f4", &softmx::blackwell_mxf8f6f4_model()},
          {"ada-fp8-mma", &softmx::ada_fp8_mma_model()},
          {"blackwell-mxf4", &softmx::blackwell_mxf4_model(), FormatId::e2m1},
          {"blackwell-nvf4", &softmx::blackwell_nvf4_model(), FormatId::e2m1}};
}

}  // namespace

/// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE force OpenBLAS's kernel choice and blocking, read once
/// when the library loads (before main): when either is set, unsets both, says so, and runs this
/// program again (execv of /proc/self/exe) so that sgemm runs as this CPU gets it. Returns only
/// when neither is set (or the restart failed: then refuses, exit status 2).
void openblas_environment(char** argv) {
  bool any = false;
  for (const char* v : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"})
    if (const char* x = std::getenv(v)) {
      std::fprintf(stderr, "bench_gemm: unsetting %s=%s for the sgemm peer (OpenBLAS's own choice is the baseline)\n", v, x);
      unsetenv(v);
      any = true;
    }
  if (!any) return;
  std::fflush(stderr);
  execv("/proc/self/exe", argv);
  std::perror("bench_gemm: cannot restart without them; refusing to run");
  std::exit(2);
}

int main(int argc, char** argv) {
  openblas_environment(argv);
#ifdef SOFTMX_HAVE_OPENBLAS
  std::printf("OpenBLAS sgemm peer: core %s; config %s\n", openblas_get_corename(), openblas_get_config());
#endif
  constexpr std::size_t n = 1024, rn = 48;  // the reference runs on a 48 x 48 x 1024 corner
  const softmx::GemmKernel best = softmx::default_gemm_kernel();
  // The best kernel (the targets' ratio) runs for a second; the narrower ones once each, to keep
  // the whole run within a few minutes.
  for (const Model& m : models()) {
    for (softmx::GemmKernel k : softmx::supported_gemm_kernels()) {
      if (k == softmx::GemmKernel::reference) continue;
      auto* b = benchmark::RegisterBenchmark(("gemm_1024/" + m.name + "/" + softmx::name(k)).c_str(), run_gemm, m.model,
                                             m.fmt, k, n, n, n, 1u)
                    ->Unit(benchmark::kMillisecond);
      if (k == best) b->MinTime(1.0);
      else b->Iterations(1);
    }
    benchmark::RegisterBenchmark(("dot_general_per_output/" + m.name).c_str(), run_gemm, m.model, m.fmt,
                                 softmx::GemmKernel::reference, rn, rn, n, 1u)
        ->Unit(benchmark::kMillisecond);
  }
  // Issue 17's baseline shape, m = n = 256, k = 2048, one thread: the per-output path it measured
  // (exact 0.44 s, hopper-fp8-mma 6.5 s, fp32-sequential 12.0 s) against the best kernel, one
  // run each (select with --benchmark_filter=issue17).
  for (const Model& m : models())
    for (softmx::GemmKernel k : {softmx::GemmKernel::reference, best})
      benchmark::RegisterBenchmark(("issue17_256x256x2048/" + m.name + "/" + softmx::name(k)).c_str(), run_gemm, m.model,
                                   m.fmt, k, 256, 256, 2048, 1u)
          ->Unit(benchmark::kSecond)
          ->Iterations(1)
          ->UseRealTime();
  // Runtime element formats (issue 14) in the same kernels as the named ones of the same width:
  // e1m2 against e2m1 (4 bits), e4m3fnuz against e4m3 (8 bits), m = n = k = 512, one thread.
  for (const char* model : {"exact", "fp32-sequential"})
    for (const char* spec : {"e2m1", "e1m2", "e4m3", "e4m3fnuz"})
      benchmark::RegisterBenchmark((std::string("runtime_vs_named_512/") + model + "/" + spec).c_str(), run_gemm,
                                   softmx::find_accumulation_model(model), softmx::parse_format_spec(spec), best, 512,
                                   512, 512, 1u)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.5);
  // UE4M3 block scales against E8M0 on the same e4m3 blocks, m = n = k = 512, one thread, on
  // the AVX2 kernel and the default one: exact folds the scale significands into its integers;
  // fp32-sequential rounds each block sum times the two scale values once (kernels.hpp,
  // scale_round).
  std::vector<softmx::GemmKernel> scale_kernels;
  if (softmx::gemm_kernel_supported(softmx::GemmKernel::avx2) && best != softmx::GemmKernel::avx2)
    scale_kernels.push_back(softmx::GemmKernel::avx2);
  scale_kernels.push_back(best);
  for (softmx::GemmKernel k : scale_kernels)
    for (const char* model : {"exact", "fp32-sequential"})
      for (bool ue4m3 : {false, true})
        benchmark::RegisterBenchmark(
            (std::string("scales_512/") + model + (ue4m3 ? "/ue4m3/" : "/e8m0/") + softmx::name(k)).c_str(),
            run_gemm_scales, softmx::find_accumulation_model(model), ue4m3, std::size_t{512}, k)
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.5);
#ifdef SOFTMX_HAVE_OPENBLAS
  benchmark::RegisterBenchmark("openblas_sgemm_1024/f32", openblas_sgemm, n)->Unit(benchmark::kMillisecond)->MinTime(1.0);
#endif
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (const Model& m : models())
    benchmark::RegisterBenchmark(("gemm_2048_all_cores/" + m.name).c_str(), run_gemm, m.model, m.fmt, best, 2048, 2048, 2048,
                                 cores)
        ->Unit(benchmark::kSecond)
        ->Iterations(1)
        ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("items_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();

  // Names as registered; Google Benchmark appends "/min_time:...", "/iterations:1", "/real_time",
  // and with --benchmark_repetitions=N the aggregates "_mean", "_median", ...: the median when
  // there is one, else the run itself (the first match in name order, before its aggregates).
  auto rate = [&](const std::string& name) {
    double run = 0.0;
    for (const auto& [k, v] : rep.rate)
      if (k == name || k.rfind(name + "/", 0) == 0) {
        if (k.size() > 7 && k.compare(k.size() - 7, 7, "_median") == 0) return v;
        if (run == 0.0) run = v;
      }
    return run;
  };
  const double sg = rate("openblas_sgemm_1024/f32");
  std::printf("\nMX GEMM, E4M3 x E4M3, k = 32 blocks, m = n = k = 1024, one thread (G element products/s; ratios in "
              "this run):\n");
  if (sg > 0) std::printf("  %-20s %8.3f G/s  (dequantized f32 operands; inexact)\n", "OpenBLAS sgemm", sg / 1e9);
  else std::printf("  OpenBLAS sgemm: not built (libopenblas-dev not found at configure time)\n");
  std::printf("  %-20s %-8s %10s %12s %16s\n", "model", "kernel", "G/s", "vs sgemm", "vs dot_general");
  for (const Model& m : models()) {
    const double ref = rate("dot_general_per_output/" + m.name);
    for (softmx::GemmKernel k : softmx::supported_gemm_kernels()) {
      const double r = rate("gemm_1024/" + m.name + "/" + softmx::name(k));
      if (r <= 0) continue;
      std::printf("  %-20s %-8s %10.3f", (m.name + (m.fmt == FormatId::e2m1 ? " (e2m1)" : "")).c_str(),
                  softmx::name(k), r / 1e9);
      if (sg > 0) std::printf(" %11.4fx", r / sg);
      else std::printf(" %12s", "-");
      if (ref > 0) std::printf(" %15.1fx", r / ref);
      std::printf("\n");
    }
    if (ref > 0) std::printf("  %-20s %-8s %10.4f  (%.1f ns per product)\n", m.name.c_str(), "per-output", ref / 1e9,
                             1e9 / ref);
  }
  std::printf("\nm = n = 256, k = 2048, one thread (issue 17's baseline shape), seconds; ratio in this run:\n");
  for (const Model& m : models()) {
    const double ref = rate("issue17_256x256x2048/" + m.name + "/" + softmx::name(softmx::GemmKernel::reference));
    const double fast = rate("issue17_256x256x2048/" + m.name + "/" + softmx::name(best));
    const double prods = 256.0 * 256.0 * 2048.0;
    if (ref > 0 && fast > 0)
      std::printf("  %-20s per-output %7.3f s   %s kernel %7.4f s   %6.1fx\n", m.name.c_str(), prods / ref,
                  softmx::name(best), prods / fast, fast / ref);
  }
  std::printf("\nruntime element formats against the named ones of the same width, m = n = k = 512, one thread, %s "
              "kernel (G element products/s; ratio in this run):\n", softmx::name(best));
  for (const char* model : {"exact", "fp32-sequential"})
    for (const auto& [rt, named] : {std::pair{"e1m2", "e2m1"}, std::pair{"e4m3fnuz", "e4m3"}}) {
      const std::string base = std::string("runtime_vs_named_512/") + model + "/";
      const double r = rate(base + rt), q = rate(base + named);
      if (r > 0 && q > 0)
        std::printf("  %-16s %-9s %8.3f   %-5s %8.3f   %.2fx\n", model, rt, r / 1e9, named, q / 1e9, r / q);
    }
  std::printf("\nUE4M3 block scales against E8M0, e4m3 x e4m3, m = n = k = 512, one thread (G element products/s; "
              "ratios in this run; sgemm's at 1024):\n");
  for (softmx::GemmKernel k : scale_kernels)
    for (const char* model : {"exact", "fp32-sequential"}) {
      const std::string base = std::string("scales_512/") + model + "/";
      const std::string kn = std::string("/") + softmx::name(k);
      const double u = rate(base + "ue4m3" + kn), e = rate(base + "e8m0" + kn);
      if (u <= 0 || e <= 0) continue;
      std::printf("  %-16s %-7s ue4m3 %8.3f   e8m0 %8.3f   %.3fx", model, softmx::name(k), u / 1e9, e / 1e9, u / e);
      if (sg > 0) std::printf("   ue4m3 vs sgemm %.4fx", u / sg);
      std::printf("\n");
    }
  std::printf("\ngemm 2048^3 on %u threads (%s kernel), wall time:\n", cores, softmx::name(best));
  for (const Model& m : models()) {
    const double r = rate("gemm_2048_all_cores/" + m.name);
    if (r > 0) std::printf("  %-20s %7.2f s\n", m.name.c_str(), 2048.0 * 2048.0 * 2048.0 / r);
  }
  return 0;
}
