// tools/softmx/cmd_sweep.cpp: `softmx sweep` and `softmx merge`, run tables (vectors/README.md 5).
//
//   softmx sweep --from SRC --to DST [--round --sat --tininess --dialect] [--threads N]
//                [--shard I/N] [-o FILE]      every input of SRC (or of shard I of N), on every core
//   softmx merge [-o FILE] TABLE...           shards of one function joined into one table
//
// Both write the canonical table (equal neighbours joined), to FILE atomically or to standard
// output ("-", or no -o), every write checked (softmx/vectors/output_file.hpp: how -o treats devices,
// FIFOs, symlinks and read-only files, and signals). The work itself is in
// softmx/vectors/run_table.hpp, which the tests and bench_sweep call too.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/run_table.hpp"

namespace softmx::cli {
namespace {

/// argv with "-o FILE" taken out (parse_args knows only "--name" options), and FILE.
struct OutArg {
  std::vector<char*> argv;
  std::optional<std::string> path;
};

/// Takes "-o FILE" out of argv[0..argc) (before a "--"). UsageError when "-o" lacks its value or
/// is given twice.
OutArg take_short_out(int argc, char** argv) {
  OutArg r;
  bool options_done = false;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") options_done = true;
    if (options_done || arg != "-o") {
      r.argv.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) throw UsageError("option -o needs a value (the output file)");
    if (r.path) throw UsageError("option -o given twice");
    r.path = argv[++i];
  }
  return r;
}

/// The output path from -o or --out ("-", standard output, when neither is given; "" is refused
/// by OutputFile). UsageError when both are given.
std::string output_path(const OutArg& o, const Args& a) {
  if (o.path && a.get("out")) throw UsageError("give the output file once, with -o or --out");
  if (o.path) return *o.path;
  return a.get("out").value_or(std::string(vec::kStandardOutput));
}

/// Parses "I/N" (decimal, I < N, 1 <= N <= 2^width).
vec::InputRange parse_shard(const std::string& text, int width) {
  const std::string expected = "--shard expects I/N, shard I (from 0) of N, with 1 <= N <= 2^" + std::to_string(width) +
                               " and I < N, got " + quote(text, '\'');
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw UsageError(expected);
  auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    if (s.empty() || s.size() > 10) throw UsageError(expected);
    for (char c : s) {
      if (c < '0' || c > '9') throw UsageError(expected);
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return v;
  };
  const std::uint64_t i = number(std::string_view(text).substr(0, slash));
  const std::uint64_t n = number(std::string_view(text).substr(slash + 1));
  if (n == 0 || i >= n || n > (std::uint64_t{1} << width)) throw UsageError(expected);
  return vec::shard_range(width, i, n);
}

/// Progress on standard error while a sweep runs: percent and rate, a few times a second, on one
/// line that is cleared at the end. Silent unless standard error is a terminal, so logs and
/// pipes get nothing.
class Progress {
 public:
  explicit Progress(std::string what) : what_(std::move(what)), active_(::isatty(STDERR_FILENO) == 1) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() {
    if (active_ && shown_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  }

  /// `done` of `total` inputs converted.
  void update(std::uint64_t done, std::uint64_t total) {
    if (!active_) return;
    const auto now = Clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    shown_ = true;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = secs > 0 ? static_cast<double>(done) / secs / 1e6 : 0;
    char line[160];
    const int n = std::snprintf(line, sizeof line, "\r%s: %5.1f%%  %.0f M inputs/s", what_.c_str(),
                                100.0 * static_cast<double>(done) / static_cast<double>(total), rate);
    width_ = std::max<std::size_t>(width_, n > 1 ? static_cast<std::size_t>(n - 1) : 0);
    std::fputs(line, stderr);
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  bool active_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now(), last_;
  std::size_t width_ = 0;
};

}  // namespace

int cmd_sweep(int argc, char** argv) {
  OutArg out = take_short_out(argc, argv);
  const Args a = parse_command("sweep", static_cast<int>(out.argv.size()), out.argv.data(), 2);
  if (!a.positionals.empty())
    throw UsageError("unexpected argument " + quote(a.positionals.front(), '\'') + " (sweep takes options only)");
  const ConversionOptions o = conversion_options(a, true);
  if (!o.from) throw UsageError("missing --from FORMAT (the source format, whose every input is converted)");
  const Format& src = format(*o.from);
  if (src.width > vec::kMaxSweepWidth)
    throw UsageError("cannot sweep " + std::string(src.name) + ": it has 2^" + std::to_string(src.width) +
                     " inputs (sweep takes sources of up to 32 bits: f32, f16, bf16 and the element formats)");
  const vec::InputRange range = a.get("shard") ? parse_shard(*a.get("shard"), src.width)
                                                : vec::InputRange{0, src.code_mask()};
  const vec::Header h = vec::sweep_header(*o.from, o.to, o.ctx, o.dialect->name, range);
  vec::SweepOptions so;
  so.threads = parse_threads(a, std::max(1u, std::thread::hardware_concurrency()));
  Progress progress("sweep " + vec::describe(h));
  so.progress = [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };

  vec::OutputFile file(output_path(out, a));
  vec::sweep_table(h, so, file.text(), [&] { file.chunk(); });
  file.commit();
  return 0;
}

int cmd_merge(int argc, char** argv) {
  OutArg out = take_short_out(argc, argv);
  const Args a = parse_command("merge", static_cast<int>(out.argv.size()), out.argv.data(), 2);
  if (a.positionals.empty()) throw UsageError("expected run tables to merge: softmx merge [-o FILE] TABLE...");
  vec::OutputFile file(output_path(out, a));
  vec::merge_tables(a.positionals, file.text(), [&] { file.chunk(); });
  file.commit();
  return 0;
}

}  // namespace softmx::cli
