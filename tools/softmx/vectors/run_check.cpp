// tools/softmx/vectors/run_check.cpp: see run_check.hpp.
//
// The inputs are cut into chunks of 2^20; a window of chunks (four per thread) is converted in
// parallel with Converter::run, each chunk compared with the runs that cover it, and the
// chunks' mismatch ranges are joined in order. Only the runs of the current window are held.
#include "vectors/run_check.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>
#include <vector>

namespace softmx::vec {
namespace {

constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;

struct ChunkJob {
  std::uint64_t first = 0, last = 0;  // inclusive
  std::vector<RangeMismatch> found;
  std::uint64_t result_mismatches = 0, flags_only = 0;
};

template <class In, class Out>
void convert_range(const Converter& conv, std::uint64_t first, std::size_t n, std::vector<std::uint64_t>& codes,
                   std::vector<Flags>& flags) {
  std::vector<In> in(n);
  std::vector<Out> out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<In>(first + i);
  conv.run(in.data(), out.data(), flags.data(), n);
  for (std::size_t i = 0; i < n; ++i) codes[i] = out[i];
}

template <class In>
void convert_range_in(const Converter& conv, std::uint64_t first, std::size_t n, std::vector<std::uint64_t>& codes,
                      std::vector<Flags>& flags) {
  switch (format(conv.destination()).width) {
    case 16: convert_range<In, std::uint16_t>(conv, first, n, codes, flags); break;
    case 32: convert_range<In, std::uint32_t>(conv, first, n, codes, flags); break;
    case 64: convert_range<In, std::uint64_t>(conv, first, n, codes, flags); break;
    default: convert_range<In, std::uint8_t>(conv, first, n, codes, flags); break;
  }
}

void convert_any(const Converter& conv, std::uint64_t first, std::size_t n, std::vector<std::uint64_t>& codes,
                 std::vector<Flags>& flags) {
  switch (format(conv.source()).width) {
    case 16: convert_range_in<std::uint16_t>(conv, first, n, codes, flags); break;
    case 32: convert_range_in<std::uint32_t>(conv, first, n, codes, flags); break;
    case 64: convert_range_in<std::uint64_t>(conv, first, n, codes, flags); break;
    default: convert_range_in<std::uint8_t>(conv, first, n, codes, flags); break;
  }
}

// Compares one chunk with the runs (sorted, covering the chunk).
void check_chunk(const Converter& conv, const std::vector<Run>& runs, ChunkJob& job) {
  const std::size_t n = static_cast<std::size_t>(job.last - job.first + 1);
  std::vector<std::uint64_t> codes(n);
  std::vector<Flags> flags(n);
  convert_any(conv, job.first, n, codes, flags);
  auto it = std::upper_bound(runs.begin(), runs.end(), job.first, [](std::uint64_t x, const Run& r) { return x < r.first; });
  --it;  // the run containing job.first
  RangeMismatch cur;
  bool open = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = job.first + i;
    while (x > it->last) ++it;
    const bool code_bad = codes[i] != it->code;
    const bool flags_bad = it->has_flags && flags[i] != it->flags;
    if (!code_bad && !flags_bad) {
      if (open) job.found.push_back(cur), open = false;
      continue;
    }
    if (code_bad) ++job.result_mismatches;
    else ++job.flags_only;
    if (open && cur.last + 1 == x && cur.got == it->code && cur.got_flags == it->flags && cur.want == codes[i] &&
        cur.want_flags == flags[i]) {
      cur.last = x;
      continue;
    }
    if (open) job.found.push_back(cur);
    cur = RangeMismatch{x, x, it->code, codes[i], it->has_flags, it->flags, flags[i]};
    open = true;
  }
  if (open) job.found.push_back(cur);
}

}  // namespace

unsigned default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

RunCheckStats check_runs(VectorReader& table, const Converter& conv, unsigned threads,
                         const std::function<void(const RangeMismatch&)>& on_mismatch, bool progress) {
  RunCheckStats st;
  const Header& h = table.header();
  const std::uint64_t total = h.last - h.first + 1;  // 0 means 2^64 (only f64 tables could)
  const bool tty = progress && ::isatty(2);
  auto last_report = std::chrono::steady_clock::now();

  std::vector<Run> window;          // runs covering [next, window_end]
  Run run;
  bool more = table.next_run(run);  // a table has at least one run (the reader checks)
  window.push_back(run);
  ++st.runs;
  st.flags_compared = run.has_flags;
  std::uint64_t next = h.first;
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

  for (;;) {
    // The window: up to 4 chunks per thread, from `next`.
    const std::uint64_t span = kChunk * 4 * threads;
    const std::uint64_t end = (h.last - next < span - 1) ? h.last : next + span - 1;
    while (more && (window.empty() || window.back().last < end)) {
      more = table.next_run(run);
      if (!more) break;
      window.push_back(run);
      ++st.runs;
    }
    std::vector<ChunkJob> jobs;
    for (std::uint64_t a = next;; a += kChunk) {
      const std::uint64_t b = (end - a < kChunk - 1) ? end : a + kChunk - 1;
      jobs.push_back(ChunkJob{a, b, {}, 0, 0});
      if (b == end) break;
    }
    std::vector<std::thread> pool;
    std::atomic_size_t next_job{0};
    auto worker = [&] {
      for (std::size_t j; (j = next_job.fetch_add(1)) < jobs.size();) check_chunk(conv, window, jobs[j]);
    };
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (auto& j : jobs) {
      for (const auto& m : j.found) emit(m);
      st.result_mismatches += j.result_mismatches;
      st.flags_only_mismatches += j.flags_only;
    }
    st.inputs += end - next + 1;
    if (tty) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report > std::chrono::milliseconds(250)) {
        std::fprintf(stderr, "\rverify: %5.1f%% of %llu inputs", total ? 100.0 * static_cast<double>(st.inputs) / static_cast<double>(total) : 0.0,
                     static_cast<unsigned long long>(total));
        last_report = now;
      }
    }
    if (end == h.last) break;
    next = end + 1;
    // Keep only the runs that reach the rest.
    window.erase(window.begin(), std::find_if(window.begin(), window.end(), [&](const Run& r) { return r.last >= next; }));
  }
  if (has_pending) on_mismatch(pending);
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  return st;
}

}  // namespace softmx::vec
