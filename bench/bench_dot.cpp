// bench/bench_dot.cpp: MX DotGeneral throughput, one thread: softmx's exact model (block sums as
// exact integers) and fp32-sequential model against the MPFR oracle of the conformance suite
// (the exact sum in MPFR, then rounded; it rounds into every mode at once, as the suite needs)
// on the same blocks in the same run. Prints nanoseconds per element product and the ratios.
#include <benchmark/benchmark.h>

#include "rate_reporter.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "softmx/dot.hpp"
#include "softmx/prng.hpp"

#ifdef SOFTMX_HAVE_MPFR_ORACLE
#include "oracles/dot_oracle.hpp"
#endif

namespace {

using softmx::FormatId;

constexpr std::size_t kBlocks = 64, kK = 32;  // DotGeneral over 2048 element products

struct Data {
  std::vector<std::vector<std::uint8_t>> a, b;
  std::vector<softmx::BlockRef> ra, rb;
};

// Ordinary finite codes (no NaN or Inf), scales near 1.
const Data& data(FormatId f) {
  static std::map<FormatId, Data> all;
  auto it = all.find(f);
  if (it != all.end()) return it->second;
  Data& d = all[f];
  softmx::SplitMix64 rng(0xD07 + static_cast<int>(f));
  d.a.resize(kBlocks);
  d.b.resize(kBlocks);
  const std::uint8_t top = f == FormatId::e5m2 ? 0x7B : 0x7E;  // the largest finite magnitude
  for (std::size_t j = 0; j < kBlocks; ++j) {
    for (std::size_t i = 0; i < kK; ++i) {
      d.a[j].push_back(static_cast<std::uint8_t>((rng.below(top + 1)) | (rng.below(2) << 7)));
      d.b[j].push_back(static_cast<std::uint8_t>((rng.below(top + 1)) | (rng.below(2) << 7)));
    }
  }
  for (std::size_t j = 0; j < kBlocks; ++j) {
    d.ra.push_back({f, static_cast<std::uint8_t>(120 + j % 16), d.a[j]});
    d.rb.push_back({f, static_cast<std::uint8_t>(127 + j % 5), d.b[j]});
  }
  return d;
}

void softmx_dot(benchmark::State& st, FormatId f, const softmx::AccumulationModel* model) {
  const Data& d = data(f);
  const softmx::Context c;
  for (auto _ : st) benchmark::DoNotOptimize(softmx::dot_general(d.ra, d.rb, c, *model));
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kBlocks * kK));
}

#ifdef SOFTMX_HAVE_MPFR_ORACLE
void oracle_dot(benchmark::State& st, FormatId f) {
  const Data& d = data(f);
  const softmx::oracle::Fmt of = f == FormatId::e5m2 ? softmx::oracle::Fmt::e5m2 : softmx::oracle::Fmt::e4m3;
  std::vector<softmx::oracle::OBlock> oa, ob;
  for (std::size_t j = 0; j < kBlocks; ++j) {
    oa.push_back({of, static_cast<std::uint8_t>(d.ra[j].scale), d.a[j]});
    ob.push_back({of, static_cast<std::uint8_t>(d.rb[j].scale), d.b[j]});
  }
  for (auto _ : st) benchmark::DoNotOptimize(softmx::oracle::dot_exact(oa, ob));
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kBlocks * kK));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const FormatId formats[] = {FormatId::e4m3, FormatId::e5m2};
  for (FormatId f : formats) {
    const std::string n(softmx::format(f).name);
    benchmark::RegisterBenchmark(("softmx_exact/" + n).c_str(), softmx_dot, f, &softmx::exact_accumulation());
    benchmark::RegisterBenchmark(("softmx_fp32_sequential/" + n).c_str(), softmx_dot, f,
                                 &softmx::fp32_sequential_accumulation());
#ifdef SOFTMX_HAVE_MPFR_ORACLE
    benchmark::RegisterBenchmark(("mpfr_exact/" + n).c_str(), oracle_dot, f);
#endif
  }
  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("items_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  std::printf("\nMX DotGeneral, %zu blocks of %zu, one core (ns per element product; ratios in this run):\n", kBlocks, kK);
  for (FormatId f : formats) {
    const std::string n(softmx::format(f).name);
    const double ex = rep.rate["softmx_exact/" + n], sq = rep.rate["softmx_fp32_sequential/" + n],
                 mp = rep.rate["mpfr_exact/" + n];
    if (ex <= 0) continue;
    std::printf("  %-5s exact %7.2f ns", n.c_str(), 1e9 / ex);
    if (sq > 0) std::printf(" | fp32-sequential %7.2f ns", 1e9 / sq);
    if (mp > 0) std::printf(" | MPFR exact %8.2f ns: exact is %6.1fx MPFR", 1e9 / mp, ex / mp);
    std::printf("\n");
  }
  return 0;
}
