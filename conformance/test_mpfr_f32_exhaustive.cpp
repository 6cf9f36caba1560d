// conformance/test_mpfr_f32_exhaustive.cpp: every one of the 2^32 f32 inputs against the MPFR
// oracle, for one element format per test, under every deterministic mode, both saturations
// and both tininess rules (ocp policies). Label `long`: about 10-15 minutes per format on two
// cores; run with `ctest -L long`.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "support/mpfr_compare.hpp"

namespace softmx {
namespace {

class EveryF32Input : public ::testing::TestWithParam<FormatId> {};

TEST_P(EveryF32Input, MatchesMpfr) {
  const FormatId dst = GetParam();
  const conformance::MpfrComparison cmp(FormatId::f32, dst, ocp_dialect());
  constexpr std::uint64_t kChunk = 1u << 20, kChunks = (std::uint64_t{1} << 32) / kChunk;
  std::atomic<std::uint64_t> next{0}, done{0};
  std::mutex mu;
  conformance::Tally total("mpfr exhaustive f32 (all 2^32) -> " + std::string(format(dst).name) +
                           ", every mode, saturation, tininess");
  const bool tty = isatty(2);
  auto worker = [&] {
    conformance::Tally t(total.name());
    for (std::uint64_t k; (k = next.fetch_add(1)) < kChunks;) {
      for (std::uint64_t x = k * kChunk; x < (k + 1) * kChunk; ++x) cmp.check(x, t);
      const std::uint64_t n = ++done;
      if (tty) std::fprintf(stderr, "\r%s: %5.1f%%", std::string(format(dst).name).c_str(), 100.0 * n / kChunks);
    }
    std::lock_guard lock(mu);
    total.merge(t);
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) threads.emplace_back(worker);
  for (auto& th : threads) th.join();
  if (tty) std::fprintf(stderr, "\n");
  total.report();
}

INSTANTIATE_TEST_SUITE_P(Mpfr, EveryF32Input,
                         ::testing::Values(FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3,
                                           FormatId::e2m1, FormatId::int8, FormatId::e8m0),
                         [](const auto& i) { return std::string(format(i.param).name); });

}  // namespace
}  // namespace softmx
