// bench/rate_reporter.hpp: a Google Benchmark console reporter that also keeps each run's rate
// (a counter, items_per_second or bytes_per_second), so that main() can print ratios between
// benchmarks of the same run after the console report.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace softmx::bench {

class RateReporter : public benchmark::ConsoleReporter {
 public:
  /// `counter`: "items_per_second" or "bytes_per_second" (what the benchmarks set).
  explicit RateReporter(std::string counter) : counter_(std::move(counter)) {}
  std::map<std::string, double> rate;  ///< by benchmark name; absent when the run had none
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find(counter_);
      if (it != r.counters.end()) rate[r.benchmark_name()] = it->second;
    }
    ConsoleReporter::ReportRuns(runs);
  }

 private:
  std::string counter_;
};

}  // namespace softmx::bench
