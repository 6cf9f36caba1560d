// bench/bench_sweep.cpp: one long measurement, over all 2^32 f32 inputs converted to E4M3 (rne,
// satfinite):
//
//   (a) softmx's sweep engine, vec::sweep_table (what `softmx sweep` runs), dialect cuda, on
//       every core, writing the canonical run table (with flags) to memory;
//   (b) a single-threaded loop of NVIDIA's host function __nv_cvt_float_to_fp8(x,
//       __NV_SATFINITE, __NV_E4M3) from cuda_fp8.h, reducing its results to runs (and a
//       checksum), so that the compiler cannot drop the calls.
//
// Prints both wall times, their ratio and the thread count, then checks (a) against (b) on every
// input by walking the two run lists side by side. (a) runs the cuda dialect, the one that
// models NVIDIA's functions: the ocp dialect gives the same results except on the 2^23 - 1
// negative NaNs, whose sign it keeps (FF) where NVIDIA returns 7F. Exit status 0 when no input
// differs, 1 otherwise.
//
//   bench_sweep [THREADS]       THREADS for (a); default std::thread::hardware_concurrency()
#include <cuda_fp8.h>
#include <time.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_table.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// CPU time of the whole process (every thread), in seconds.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// A run of outputs without flags: inputs from `first` up to the next run's first give `code`.
struct CodeRun {
  std::uint32_t first;
  std::uint8_t code;
};

/// (b): NVIDIA's function on every f32 input, one thread, reduced to runs and a checksum.
struct NvidiaSweep {
  std::vector<CodeRun> runs;
  std::uint64_t checksum = 0;  ///< sum over inputs of code * (input | 1), modulo 2^64
};

NvidiaSweep nvidia_sweep() {
  NvidiaSweep s;
  unsigned prev = 0x100;  // no code
  for (std::uint64_t x = 0; x <= 0xFFFFFFFFu; ++x) {
    const std::uint32_t bits = static_cast<std::uint32_t>(x);
    const unsigned code = __nv_cvt_float_to_fp8(std::bit_cast<float>(bits), __NV_SATFINITE, __NV_E4M3);
    s.checksum += code * (x | 1);
    if (code != prev) {
      s.runs.push_back(CodeRun{bits, static_cast<std::uint8_t>(code)});
      prev = code;
    }
  }
  return s;
}

/// (a)'s runs, read back from the table text (the reader checks the table as it goes).
std::vector<softmx::vec::Run> read_runs(const std::string& table) {
  auto r = softmx::vec::VectorReader::from_string(table, "(a) run table");
  std::vector<softmx::vec::Run> runs;
  softmx::vec::Run run;
  while (r->next_run(run)) runs.push_back(run);
  return runs;
}

/// The inputs where (a) and (b) give different codes (flags are (a)'s alone), and the first.
struct Mismatches {
  std::uint64_t count = 0;
  std::uint64_t first = 0;
};

Mismatches compare(const std::vector<softmx::vec::Run>& ours, const std::vector<CodeRun>& theirs) {
  Mismatches m;
  std::size_t j = 0;
  for (const softmx::vec::Run& r : ours) {
    std::uint64_t at = r.first;
    while (at <= r.last) {
      while (j + 1 < theirs.size() && theirs[j + 1].first <= at) ++j;
      const std::uint64_t their_last = j + 1 < theirs.size() ? theirs[j + 1].first - 1 : 0xFFFFFFFFu;
      const std::uint64_t seg_last = std::min<std::uint64_t>(r.last, their_last);
      if (r.code != theirs[j].code) {
        if (m.count == 0) m.first = at;
        m.count += seg_last - at + 1;
      }
      at = seg_last + 1;
    }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace softmx;
  const unsigned threads =
      argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : std::max(1u, std::thread::hardware_concurrency());
  const double n = 4294967296.0;
  std::printf("bench_sweep: f32 -> e4m3, rne, satfinite, every one of the 2^32 inputs\n");

  // (a) the sweep engine.
  const vec::Header h = vec::sweep_header(FormatId::f32, FormatId::e4m3, Context{}, "cuda", vec::InputRange{0, 0xFFFFFFFFu});
  vec::SweepOptions o;
  o.threads = threads;
  std::string table;
  const double cpu0 = process_cpu_seconds();
  const auto t0 = Clock::now();
  const std::uint64_t lines = vec::sweep_table(h, o, table);
  const double ta = seconds_since(t0), cpu_a = process_cpu_seconds() - cpu0;
  std::printf("  (a) softmx sweep engine (vec::sweep_table, dialect cuda, chunks of 2^20, %u threads)\n", threads);
  std::printf("      wall %.2f s = %.0f M inputs/s; CPU %.2f s = %.2f ns per input per thread\n", ta, n / ta / 1e6, cpu_a,
              cpu_a / n * 1e9);
  std::printf("      run table in memory: %llu lines, %zu bytes (header included)\n",
              static_cast<unsigned long long>(lines), table.size());

  // (b) NVIDIA's host function, one thread.
  const auto t1 = Clock::now();
  const NvidiaSweep nv = nvidia_sweep();
  const double tb = seconds_since(t1);
  std::printf("  (b) NVIDIA __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3), host code, 1 thread\n");
  std::printf("      wall %.2f s = %.0f M inputs/s = %.2f ns per input; %zu runs of codes, checksum %016llX\n", tb,
              n / tb / 1e6, tb / n * 1e9, nv.runs.size(), static_cast<unsigned long long>(nv.checksum));

  std::printf("  ratio (b) / (a) wall time: %.2f (the sweep, %u threads, against one NVIDIA thread)\n", tb / ta, threads);
  std::printf("  ratio per thread (b) / (a) CPU time: %.2f\n", tb / cpu_a);

  // Every input: (a)'s codes against (b)'s.
  const Mismatches m = compare(read_runs(table), nv.runs);
  if (m.count == 0)
    std::printf("  check: (a) and (b) agree on all 4294967296 inputs (0 mismatches)\n");
  else
    std::printf("  check: %llu mismatching inputs, the first %08llX\n", static_cast<unsigned long long>(m.count),
                static_cast<unsigned long long>(m.first));
  return m.count == 0 ? 0 : 1;
}
