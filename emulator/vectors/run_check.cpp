// emulator/vectors/run_check.cpp: see run_check.hpp.
//
// softmx's runs over the table's range come from sweep() (chunks converted on every core,
// handed on in order); each is walked against the table's runs, read one at a time, so only the
// current run of each side is held. A disagreement is the overlap of two runs with different
// results (or flags), joined with the previous one when it continues it with the same pair.
#include "softmx/vectors/run_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/run_table.hpp"

namespace softmx::vec {

unsigned default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

RunCheckStats check_runs(VectorReader& table, const Header& settings, unsigned threads,
                         const std::function<void(const RangeMismatch&)>& on_mismatch, bool progress) {
  std::function<void(std::uint64_t, std::uint64_t)> report;
  if (progress && ::isatty(2)) {
    auto last_report = std::chrono::steady_clock::now();
    report = [last_report](std::uint64_t done, std::uint64_t total) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report < std::chrono::milliseconds(250)) return;
      last_report = now;
      std::fprintf(stderr, "\rverify: %5.1f%% of %llu inputs", 100.0 * static_cast<double>(done) / static_cast<double>(total),
                   static_cast<unsigned long long>(total));
    };
  }
  const RunCheckStats st = check_runs(table, settings, threads, on_mismatch, report);
  if (report) std::fprintf(stderr, "\r%60s\r", "");
  return st;
}

RunCheckStats check_runs(VectorReader& table, const Header& settings, unsigned threads,
                         const std::function<void(const RangeMismatch&)>& on_mismatch,
                         const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  RunCheckStats st;
  Run dev;
  table.next_run(dev);  // a table has at least one run (the reader checks)
  ++st.runs;
  st.flags_compared = dev.has_flags;

  RangeMismatch pending;
  bool has_pending = false;
  auto emit = [&](const RangeMismatch& m) {
    if (has_pending && pending.last + 1 == m.first && pending.got == m.got && pending.want == m.want &&
        pending.got_flags == m.got_flags && pending.want_flags == m.want_flags) {
      pending.last = m.last;
      return;
    }
    if (has_pending) on_mismatch(pending);
    pending = m;
    has_pending = true;
  };
  // softmx's run `e` against the table's runs that overlap it.
  auto compare = [&](const Run& e) {
    for (std::uint64_t x = e.first;;) {
      while (dev.last < x) {
        if (!table.next_run(dev)) throw InputError(shown_name(table.name()) + ": the runs end before the header's last");
        ++st.runs;
      }
      const std::uint64_t end = std::min(dev.last, e.last);
      const bool code_bad = dev.code != e.code;
      const bool flags_bad = dev.has_flags && dev.flags != e.flags;
      if (code_bad || flags_bad) {
        (code_bad ? st.result_mismatches : st.flags_only_mismatches) += end - x + 1;
        emit(RangeMismatch{x, end, dev.code, e.code, dev.has_flags, dev.flags, e.flags});
      }
      st.inputs += end - x + 1;
      if (end == e.last) return;
      x = end + 1;
    }
  };

  SweepOptions o;
  o.threads = threads;
  o.progress = progress;
  sweep(settings, o, compare);
  while (table.next_run(dev)) ++st.runs;  // none left: the reader stops runs at the header's last
  if (has_pending) on_mismatch(pending);
  return st;
}

}  // namespace softmx::vec
