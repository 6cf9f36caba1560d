// conformance/support/report.hpp: counting cases and mismatches, and reporting them.
//
// Every conformance test reports how many cases it checked and how many disagreed. The counts
// go to stdout and, when SOFTMX_SUMMARY_DIR is set (ctest sets it), to one file per check
// there, which scripts/test.sh prints as the summary table after the run.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace softmx::conformance {

/// Tallies one check; keeps the first few mismatch descriptions.
class Tally {
 public:
  explicit Tally(std::string name, std::size_t keep = 10) : name_(std::move(name)), keep_(keep) {}

  void pass(std::uint64_t n = 1) { cases_ += n; }
  /// Records one mismatch with a description (kept if among the first `keep`).
  void fail(const std::string& what) {
    ++cases_;
    ++mismatches_;
    if (examples_.size() < keep_) examples_.push_back(what);
  }
  /// Records `count` mismatches described together.
  void fail(const std::string& what, std::uint64_t count) {
    cases_ += count;
    mismatches_ += count;
    if (examples_.size() < keep_) examples_.push_back(what);
  }
  /// Counts one case: a pass if ok, otherwise a mismatch described by `describe()`.
  template <class F>
  void check(bool ok, F&& describe) {
    if (ok) pass();
    else fail(describe());
  }
  void merge(const Tally& o) {
    cases_ += o.cases_;
    mismatches_ += o.mismatches_;
    for (const auto& e : o.examples_)
      if (examples_.size() < keep_) examples_.push_back(e);
  }

  std::uint64_t cases() const { return cases_; }
  std::uint64_t mismatches() const { return mismatches_; }
  const std::string& name() const { return name_; }

  /// Prints the counts and examples, writes the summary file, and fails the current test on
  /// any mismatch or when nothing was checked.
  void report() const {
    std::ostringstream line;
    line << name_ << ": " << cases_ << " cases, " << mismatches_ << " mismatches";
    std::printf("[ counts   ] %s\n", line.str().c_str());
    for (const auto& e : examples_) std::printf("[ mismatch ] %s\n", e.c_str());
    if (const char* dir = std::getenv("SOFTMX_SUMMARY_DIR")) {
      std::string file = name_;
      for (char& c : file)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
      std::ofstream(std::string(dir) + "/" + file + ".txt") << line.str() << "\n";
    }
    EXPECT_GT(cases_, 0u) << name_ << " checked nothing";
    EXPECT_EQ(mismatches_, 0u) << name_ << ": " << mismatches_ << " mismatches, first: "
                               << (examples_.empty() ? "" : examples_.front());
  }

 private:
  std::string name_;
  std::size_t keep_;
  std::uint64_t cases_ = 0;
  std::uint64_t mismatches_ = 0;
  std::vector<std::string> examples_;
};

}  // namespace softmx::conformance
