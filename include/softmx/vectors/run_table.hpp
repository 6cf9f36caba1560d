// softmx/vectors/run_table.hpp: run tables (vectors/README.md section 5): the sweep
// engine that computes them, the writer that emits their canonical lines, and merge.
//
// A sweep converts every input of a range on every core, in chunks of consecutive inputs, with
// consecutive_segments (softmx/batch.hpp: the vector kernels report where the result changes);
// each chunk is reduced to its maximal runs, and the
// chunks are handed on in input order, so that the table comes out the same whatever the
// number of threads, in memory bounded by the chunks in flight (never one result per input).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/format.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::vec {

/// The widest source a sweep takes: 32 bits (2^32 inputs). f64's 2^64 inputs are out of reach.
inline constexpr int kMaxSweepWidth = 32;

/// An inclusive range of inputs.
struct InputRange {
  std::uint64_t first = 0, last = 0;
  std::uint64_t size() const { return last - first + 1; }
  friend bool operator==(const InputRange&, const InputRange&) = default;
};

/// Shard `index` of `count` over the 2^width inputs of a source: floor(I * 2^w / N) ..
/// floor((I + 1) * 2^w / N) - 1, so the N shards partition the inputs in order.
/// Preconditions: 1 <= width <= kMaxSweepWidth, index < count, 1 <= count <= 2^width (no shard
/// is empty).
InputRange shard_range(int width, std::uint64_t index, std::uint64_t count);

/// The header of the run table of `from` -> `to` under `ctx` and `dialect` over `range`:
/// layout runs, generator "softmx 0.1.0", level "exhaustive". Throws InputError when the
/// source is wider than kMaxSweepWidth, the rounding is rs (a run table records a function of
/// the input alone), the dialect is unknown or the range lies outside the source's codes.
Header sweep_header(const Format& from, const Format& to, const Context& ctx, std::string_view dialect, InputRange range);
inline Header sweep_header(FormatId from, FormatId to, const Context& ctx, std::string_view dialect, InputRange range) {
  return sweep_header(format(from), format(to), ctx, dialect, range);
}

/// Writes canonical run-table lines ("FIRST OUT FLAGS") from runs given in input order: equal
/// neighbours (same OUT and, with flags, the same FLAGS) are joined into one line, so runs split
/// anywhere (at chunk or file boundaries) give the same bytes.
class RunTableWriter {
 public:
  /// Appends header_text(h) and the column comment ("# FIRST OUT FLAGS", or "# FIRST OUT"
  /// without flags) to `text`. `with_flags`: whether the lines carry FLAGS. `drain` (may be
  /// empty) is called after each line, so the owner can write `text` out as it grows
  /// (OutputFile::chunk). Preconditions: h validated, h.layout == runs; `text` outlives the
  /// writer.
  RunTableWriter(const Header& h, bool with_flags, std::string& text, std::function<void()> drain = {});

  /// The inputs [r.first, r.last] give r.code (and r.flags, when the table has flags). The
  /// first run must start at the header's first and each next one where the previous stopped,
  /// within the header's range: std::logic_error otherwise (the callers check their inputs).
  void add(const Run& r);
  /// Writes the last line. Precondition: the runs reached the header's last (std::logic_error
  /// otherwise).
  void finish();
  /// Data lines written so far (the last run counts once finish() wrote it).
  std::uint64_t lines() const { return lines_; }

 private:
  void emit();

  Header header_;
  bool with_flags_;
  std::string& text_;
  std::function<void()> drain_;
  int in_digits_, out_digits_;
  std::uint64_t next_;  // the input the next run must start at
  bool pending_ = false, finished_ = false;
  Run run_;             // the run not yet written (it may still grow)
  std::uint64_t lines_ = 0;
};

/// How a sweep runs. Neither field changes the table's bytes.
struct SweepOptions {
  /// Worker threads; 0: std::thread::hardware_concurrency() (at least 1).
  unsigned threads = 0;
  /// Inputs per chunk, >= 1: one hand-over (converted in slices of 2^14 inputs).
  std::uint64_t chunk = std::uint64_t{1} << 20;
  /// Chunks computed ahead of the one being handed on, at most; 0: twice the threads. Memory
  /// is O((window + threads) * chunk) inputs' worth of runs in the worst case (every input its
  /// own run) and far less in practice.
  unsigned window = 0;
  /// Called on the calling thread after each chunk was handed on: the inputs done and the
  /// total. May be empty.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

/// Converts every input in [h.first, h.last] under h (from, to, rounding, saturation,
/// tininess, dialect) and passes the runs, in input order and covering the range exactly, to
/// `sink` on the calling thread. Each chunk's runs are maximal within the chunk; neighbours
/// across chunk boundaries may be equal (RunTableWriter joins them). Every run has flags.
/// Preconditions: h validated, h.operation == convert, h.layout == runs (InputError
/// otherwise), and a range of fewer than 2^64 inputs. Throws InputError when the
/// dialect does not support the conversion; when `sink` or `progress` throws, stops the
/// workers and rethrows.
void sweep(const Header& h, const SweepOptions& o, const std::function<void(const Run&)>& sink);

/// sweep() into a RunTableWriter over `text`: the canonical table of h, header included, with
/// flags. What `softmx sweep` runs. Returns the data lines written.
std::uint64_t sweep_table(const Header& h, const SweepOptions& o, std::string& text,
                          const std::function<void()>& drain = {});

/// Joins run tables of one function into the canonical table of their union (`softmx merge`).
/// `paths` name files (not standard input: each is read twice, first its header), in any
/// order. Every header must equal the others except for first, last and x- keys; flags must be
/// on every table or on none; sorted by first, the ranges must be adjacent: no gap, no
/// overlap. Each violation is a InputError naming the files and what mismatched, and so
/// is every malformed line (file and line). The merged header is the lowest table's with the
/// union's first and last, and only the x- keys every table has with the same value. Writes to
/// `text` as RunTableWriter does; returns the data lines written.
std::uint64_t merge_tables(const std::vector<std::string>& paths, std::string& text,
                           const std::function<void()>& drain = {});

}  // namespace softmx::vec
