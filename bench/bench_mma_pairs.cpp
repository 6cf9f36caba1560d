// bench/bench_mma_pairs.cpp: the lines of `softmx gen mma` computed two ways in one process, for
// every tensor-core model: TensorCoreModel::mma / mma_scaled once per line (the definition, what
// gen ran before), and mma_pairs (gemm.hpp: the GEMM kernels, one pair per lane, C seeded as the
// accumulator), on the same 65,536 random lines (SplitMix64 seed 1: codes of the model's element
// format without NaN/Inf, C a normal f32 near the products, E8M0 scales 2^-7 .. 2^6 for the
// block-scaled models). Each benchmark reports lines/s; the ratio of the two rows of one model
// is the speed-up. Before timing, the two are compared on every line (a mismatch aborts).
//
//   build/bench/bench_mma_pairs [--benchmark_filter=MODEL]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"

namespace {

using namespace softmx;

constexpr std::size_t kLines = 65536;

/// Random lines for `m` at its gen defaults (vec::mma_shape_defaults): K, scaled or not.
struct Lines {
  FormatId f = FormatId::e4m3, sf = FormatId::e8m0;
  bool scaled = false;
  std::size_t k = 0, block = 0, nb = 0;
  std::vector<std::uint8_t> a, b, sa, sb;
  std::vector<std::uint32_t> c;

  explicit Lines(const TensorCoreModel& m) {
    const vec::MmaShapeDefaults d = vec::mma_shape_defaults(m);
    k = d.block;
    scaled = d.scale_format != vec::MmaScaleFormat::none;
    sf = d.scale_format == vec::MmaScaleFormat::ue4m3 ? FormatId::e4m3 : FormatId::e8m0;
    block = scaled ? d.scale_block : k;
    nb = k / block;
    // The GST models take E2M1; the others E4M3.
    f = m.params().scale_application == ScaleApplication::per_group ? FormatId::e2m1 : FormatId::e4m3;
    const unsigned w = format(f).width;
    SplitMix64 rng(1);
    auto code = [&] {
      for (;;) {
        const auto x = static_cast<std::uint8_t>(rng.below(std::uint64_t{1} << w));
        if (w == 4 || (x & 0x7F) != 0x7F) return x;  // no NaN
      }
    };
    a.resize(kLines * k);
    b.resize(kLines * k);
    for (auto& x : a) x = code();
    for (auto& x : b) x = code();
    sa.resize(kLines * nb, 127);
    sb.resize(kLines * nb, 127);
    if (scaled)
      for (std::size_t i = 0; i < sa.size(); ++i) {
        sa[i] = static_cast<std::uint8_t>(sf == FormatId::e4m3 ? 0x30 + rng.below(16) : 120 + rng.below(14));
        sb[i] = static_cast<std::uint8_t>(sf == FormatId::e4m3 ? 0x30 + rng.below(16) : 120 + rng.below(14));
      }
    c.resize(kLines);
    for (auto& x : c)
      x = static_cast<std::uint32_t>((115 + rng.below(25)) << 23) | static_cast<std::uint32_t>(rng.below(1u << 23)) |
          (rng.below(2) ? 0x80000000u : 0);
  }

  std::uint32_t one(const TensorCoreModel& m, std::size_t l) const {
    const std::span<const std::uint8_t> A(a.data() + l * k, k), B(b.data() + l * k, k);
    if (!scaled) return static_cast<std::uint32_t>(m.mma(f, A, f, B, FormatId::f32, c[l]).code);
    return static_cast<std::uint32_t>(m.mma_scaled(f, A, f, B, sf, block, std::span(sa.data() + l * nb, nb),
                                                   std::span(sb.data() + l * nb, nb), FormatId::f32, c[l])
                                          .code);
  }

  void pairs(const TensorCoreModel& m, std::vector<std::uint32_t>& d) const {
    GemmOperand A = gemm_rows(f, kLines, k, block, a, sa), B = gemm_rows(f, kLines, k, block, b, sb);
    A.scale_format = B.scale_format = sf;
    mma_pairs(A, B, m, scaled, c, d, 1);
  }
};

void per_line(benchmark::State& st, const TensorCoreModel* m) {
  const Lines L(*m);
  std::uint64_t sum = 0;
  for (auto _ : st)
    for (std::size_t l = 0; l < kLines; ++l) sum += L.one(*m, l);
  benchmark::DoNotOptimize(sum);
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kLines));
}

void batched(benchmark::State& st, const TensorCoreModel* m) {
  const Lines L(*m);
  std::vector<std::uint32_t> d(kLines);
  L.pairs(*m, d);
  for (std::size_t l = 0; l < kLines; ++l)
    if (d[l] != L.one(*m, l)) {
      std::fprintf(stderr, "bench_mma_pairs: %s line %zu: mma_pairs %08X, mma %08X\n", std::string(m->name()).c_str(), l,
                   static_cast<unsigned>(d[l]), static_cast<unsigned>(L.one(*m, l)));
      std::abort();
    }
  for (auto _ : st) {
    L.pairs(*m, d);
    benchmark::DoNotOptimize(d.data());
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kLines));
}

}  // namespace

// Registered in main, not during static initialisation: the models are the library's static
// objects, constructed in its own translation unit's order.
int main(int argc, char** argv) {
  for (const TensorCoreModel* m : tensor_core_models()) {
    const std::string n(m->name());
    benchmark::RegisterBenchmark(("mma_per_line/" + n).c_str(), per_line, m)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("mma_pairs_1thread/" + n).c_str(), batched, m)->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
