// emulator/vectors/run_table.cpp: see run_table.hpp.
#include "softmx/vectors/run_table.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::vec {
namespace {



// ---- one chunk ---------------------------------------------------------------------------------

/// Converts inputs [first, first + n) with `conv` and appends their maximal runs to `runs`:
/// consecutive_segments gives each slice's change points (the inputs are consecutive, so it
/// needs no input array and stores no per-input results); a run that goes on across a slice
/// boundary is joined.
class ChunkConverter {
 public:
  explicit ChunkConverter(const Converter& conv) : conv_(conv), segments_(kSlice) {}

  /// Appends the maximal runs of inputs [first, first + n) to `runs`.
  void convert(std::uint64_t first, std::size_t n, std::vector<Run>& runs) {
    const std::size_t chunk_runs = runs.size();
    for (std::size_t done = 0; done < n;) {
      const std::size_t k = std::min(kSlice, n - done);
      const std::uint64_t base = first + done;
      const std::size_t count = consecutive_segments(conv_, default_isa(), base, k, segments_.data());
      for (std::size_t j = 0; j < count; ++j) {
        const Segment& g = segments_[j];
        const std::uint64_t last = j + 1 < count ? segments_[j + 1].first - 1 : base + k - 1;
        if (j == 0 && runs.size() > chunk_runs && runs.back().code == g.code && runs.back().flags == g.flags)
          runs.back().last = last;  // the run goes on across the slice boundary
        else
          runs.push_back(Run{g.first, last, g.code, true, g.flags});
      }
      done += k;
    }
  }

 private:
  static constexpr std::size_t kSlice = std::size_t{1} << 14;
  const Converter& conv_;
  std::vector<Segment> segments_;  // room for a slice's worst case
};

// ---- the pipeline ------------------------------------------------------------------------------

/// Chunks of a range converted by worker threads and handed on in order by the calling thread.
/// Chunk k (inputs first + k * chunk ...) goes to slot k % window; a worker claims chunks in
/// order and only while k < handed + window, so a claimed chunk's slot is always free and at
/// most `window` chunks wait to be handed on.
class ChunkPipeline {
 public:
  ChunkPipeline(const Converter& conv, InputRange range, std::uint64_t chunk, unsigned window)
      : conv_(conv), range_(range), chunk_(chunk), chunks_((range.size() + chunk - 1) / chunk), slots_(window) {}

  /// Runs `threads` workers and hands every chunk's runs, in order, to `sink`, then calls
  /// `progress` (may be empty). Whatever throws stops the workers and is rethrown once they
  /// have ended.
  void run(unsigned threads, const std::function<void(const Run&)>& sink,
           const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
    std::vector<std::thread> workers;
    struct Stopper {  // on every exit: stop and join the workers
      ChunkPipeline& p;
      std::vector<std::thread>& w;
      ~Stopper() {
        p.stop();
        for (std::thread& t : w) t.join();
      }
    } stopper{*this, workers};
    for (unsigned i = 0; i < threads; ++i) workers.emplace_back([this] { work(); });
    std::vector<Run> batch;
    for (std::uint64_t k = 0; k < chunks_; ++k) {
      take(k, batch);
      for (const Run& r : batch) sink(r);
      if (progress) progress(std::min(range_.size(), (k + 1) * chunk_), range_.size());
    }
  }

 private:
  struct Slot {
    std::vector<Run> runs;
    bool ready = false;
  };

  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    space_.notify_all();
    ready_.notify_all();
  }

  // Waits for chunk k and swaps its runs into `batch`; rethrows a worker's error.
  void take(std::uint64_t k, std::vector<Run>& batch) {
    {
      std::unique_lock lock(mu_);
      Slot& s = slots_[k % slots_.size()];
      ready_.wait(lock, [&] { return s.ready || error_; });
      if (error_) std::rethrow_exception(error_);
      batch.swap(s.runs);
      s.runs.clear();
      s.ready = false;
      handed_ = k + 1;
    }
    space_.notify_all();
  }

  void work() {
    try {
      ChunkConverter cc(conv_);
      std::vector<Run> runs;
      for (;;) {
        std::uint64_t k;
        {
          std::unique_lock lock(mu_);
          space_.wait(lock, [&] { return stop_ || next_ >= chunks_ || next_ < handed_ + slots_.size(); });
          if (stop_ || next_ >= chunks_) return;
          k = next_++;
        }
        const std::uint64_t first = range_.first + k * chunk_;
        runs.clear();
        cc.convert(first, static_cast<std::size_t>(std::min(chunk_, range_.last - first + 1)), runs);
        {
          std::lock_guard lock(mu_);
          Slot& s = slots_[k % slots_.size()];
          s.runs.swap(runs);
          s.ready = true;
        }
        ready_.notify_all();
      }
    } catch (...) {
      {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::current_exception();
        stop_ = true;
      }
      ready_.notify_all();
      space_.notify_all();
    }
  }

  const Converter& conv_;
  const InputRange range_;
  const std::uint64_t chunk_, chunks_;
  std::mutex mu_;
  std::condition_variable ready_, space_;  // a slot became ready; a slot became free
  std::vector<Slot> slots_;
  std::uint64_t next_ = 0;    // the next chunk to claim
  std::uint64_t handed_ = 0;  // chunks handed on
  bool stop_ = false;
  std::exception_ptr error_;
};

// ---- merge -------------------------------------------------------------------------------------

/// A table's header and flags mode, as merge reads them in its first pass.
struct TableInfo {
  std::string path;
  Header header;
  bool has_flags = false;
};

TableInfo read_table_info(const std::string& path) {
  if (path == "-") throw InputError("merge reads named files, not standard input ('-'): each is read twice");
  auto r = VectorReader::open(path);
  if (r->header().layout != Layout::runs) throw InputError(shown_name(path) + ": not a run table (the header has no 'layout = runs')");
  Run first;
  r->next_run(first);  // throws for a table without runs
  return TableInfo{path, r->header(), first.has_flags};
}

/// The header text merge compares: everything but first, last and x- keys.
std::string comparable_text(Header h) {
  h.first = h.last = 0;
  h.extra.clear();
  return header_text(h);
}

/// The first line where two header texts differ, as "a" vs "b" ("key = value", or "(none)").
std::pair<std::string, std::string> first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  for (;;) {
    const std::size_t ea = a.find('\n', i), eb = b.find('\n', j);
    const std::string la = i < a.size() ? a.substr(i, ea - i) : "(none)";
    const std::string lb = j < b.size() ? b.substr(j, eb - j) : "(none)";
    if (la != lb || (i >= a.size() && j >= b.size())) return {la, lb};
    i = ea + 1;
    j = eb + 1;
  }
}

void check_same_function(const TableInfo& t, const TableInfo& ref) {
  const std::string a = comparable_text(t.header), b = comparable_text(ref.header);
  if (a != b) {
    const auto [la, lb] = first_difference(a, b);
    throw InputError(shown_name(t.path) + ": header differs from " + shown_name(ref.path) + "'s: " + quote(la, '\'', 72) + " where " + shown_name(ref.path) + " has " + quote(lb, '\'', 72) +
                     " (merge joins tables of one function; only first, last and x- keys may differ)");
  }
  if (t.has_flags != ref.has_flags)
    throw InputError(shown_name(t.path) + ": run lines " + (t.has_flags ? "have" : "lack") + " FLAGS, those of " + shown_name(ref.path) + " " +
                     (ref.has_flags ? "have them" : "do not") + " (flags on every table or on none)");
}

std::string range_text(const Header& h) {
  const int d = format(h.from).hex_digits();
  return hex(h.first, d) + ".." + hex(h.last, d);
}

/// Checks that the tables, sorted by first, cover one range without gap or overlap.
void check_adjacent(const std::vector<TableInfo>& sorted) {
  const int d = format(sorted.front().header.from).hex_digits();
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const TableInfo &p = sorted[i - 1], &c = sorted[i];
    if (c.header.first <= p.header.last)
      throw InputError(shown_name(c.path) + ": its inputs " + range_text(c.header) + " overlap those of " + shown_name(p.path) + " (" +
                       range_text(p.header) + ")");
    if (c.header.first != p.header.last + 1)
      throw InputError(shown_name(c.path) + ": a gap before its inputs " + range_text(c.header) + ": inputs " +
                       hex(p.header.last + 1, d) + ".." + hex(c.header.first - 1, d) + " are in no table (" +
                       shown_name(p.path) + " ends at " + hex(p.header.last, d) + ")");
  }
}

/// The x- keys every table has, with the same value, in the first table's order.
std::vector<std::pair<std::string, std::string>> common_extra(const std::vector<TableInfo>& tables) {
  std::vector<std::pair<std::string, std::string>> keep;
  for (const auto& kv : tables.front().header.extra) {
    const bool everywhere = std::all_of(tables.begin(), tables.end(), [&](const TableInfo& t) {
      return std::find(t.header.extra.begin(), t.header.extra.end(), kv) != t.header.extra.end();
    });
    if (everywhere) keep.push_back(kv);
  }
  return keep;
}

}  // namespace

// ---- public ------------------------------------------------------------------------------------

InputRange shard_range(int width, std::uint64_t index, std::uint64_t count) {
  // index, count <= 2^32 and index * 2^w < count * 2^32 <= 2^64: no overflow.
  const std::uint64_t first = index == 0 ? 0 : (index << width) / count;
  const std::uint64_t end = ((index + 1) == count) ? (std::uint64_t{1} << width) : ((index + 1) << width) / count;
  return InputRange{first, end - 1};
}

Header sweep_header(const Format& from, const Format& to, const Context& ctx, std::string_view dialect, InputRange range) {
  const Format& src = format(from);
  if (src.width > kMaxSweepWidth)
    throw InputError("cannot sweep " + std::string(src.name) + ": it has 2^" + std::to_string(src.width) +
                     " inputs (sweep takes sources of up to " + std::to_string(kMaxSweepWidth) + " bits)");
  if (ctx.rounding == Rounding::rs)
    throw InputError("cannot sweep with rounding rs: a run table records a function of the input alone (use rne, rna, "
                     "rz, ru, rd or ro)");
  const Dialect* d = find_dialect(dialect);
  if (!d) throw InputError("unknown dialect " + quote(dialect, '\'', 40));
  Header h;
  h.operation = Operation::convert;
  h.layout = Layout::runs;
  h.from = from;
  h.to = to;
  h.ctx = resolve(*d, to, ctx);  // a header records finite or none, never by_destination
  h.ctx.rbits = 0;
  h.dialect = std::string(d->name);
  h.first = range.first;
  h.last = range.last;
  h.generator = std::string(kGeneratorName);
  h.level = "exhaustive";
  h.validate("sweep");
  return h;
}

RunTableWriter::RunTableWriter(const Header& h, bool with_flags, std::string& text, std::function<void()> drain)
    : header_(h),
      with_flags_(with_flags),
      text_(text),
      drain_(std::move(drain)),
      in_digits_(format(h.from).hex_digits()),
      out_digits_(format(h.to).hex_digits()),
      next_(h.first) {
  if (h.layout != Layout::runs) throw std::logic_error("RunTableWriter: the header is not a run table's");
  text_ += header_text(h);
  text_ += with_flags ? "# FIRST OUT FLAGS\n" : "# FIRST OUT\n";
  if (drain_) drain_();
}

void RunTableWriter::add(const Run& r) {
  if (finished_ || r.first != next_ || r.last < r.first || r.last > header_.last)
    throw std::logic_error("RunTableWriter: run " + hex(r.first, in_digits_) + ".." + hex(r.last, in_digits_) +
                           " does not continue at " + hex(next_, in_digits_) + " within the table's range");
  next_ = r.last + 1;
  const Flags f = with_flags_ ? r.flags : 0;
  if (pending_ && r.code == run_.code && f == run_.flags) {
    run_.last = r.last;
    return;
  }
  if (pending_) emit();
  run_ = Run{r.first, r.last, r.code, with_flags_, f};
  pending_ = true;
}

void RunTableWriter::emit() {
  append_hex(text_, run_.first, in_digits_);
  text_ += ' ';
  append_hex(text_, run_.code, out_digits_);
  if (with_flags_) {
    text_ += ' ';
    append_hex(text_, run_.flags, 2);
  }
  text_ += '\n';
  ++lines_;
  if (drain_) drain_();
}

void RunTableWriter::finish() {
  if (finished_ || !pending_ || next_ != header_.last + 1)
    throw std::logic_error("RunTableWriter: the runs end before the table's last input " +
                           hex(header_.last, in_digits_));
  emit();
  finished_ = true;
}

void sweep(const Header& h, const SweepOptions& o, const std::function<void(const Run&)>& sink) {
  if (h.operation != Operation::convert || h.layout != Layout::runs)
    throw InputError("sweep: " + describe(h) + " is not a run table's conversion");
  // Any source width: `softmx sweep` keeps to whole ranges of at most 2^32 inputs
  // (sweep_header), and verify checks f64 tables over the sub-range they cover.
  const Evaluator ev(h);  // checks that the dialect supports the conversion
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const unsigned window = o.window ? o.window : 2 * threads;
  ChunkPipeline pipeline(*ev.converter(), InputRange{h.first, h.last}, std::max<std::uint64_t>(o.chunk, 1), window);
  pipeline.run(threads, sink, o.progress);
}

std::uint64_t sweep_table(const Header& h, const SweepOptions& o, std::string& text, const std::function<void()>& drain) {
  RunTableWriter w(h, true, text, drain);
  sweep(h, o, [&](const Run& r) { w.add(r); });
  w.finish();
  return w.lines();
}

std::uint64_t merge_tables(const std::vector<std::string>& paths, std::string& text, const std::function<void()>& drain) {
  if (paths.empty()) throw InputError("merge needs at least one TABLE");
  std::vector<TableInfo> tables;
  tables.reserve(paths.size());
  for (const std::string& p : paths) tables.push_back(read_table_info(p));
  for (const TableInfo& t : tables) check_same_function(t, tables.front());
  std::stable_sort(tables.begin(), tables.end(),
                   [](const TableInfo& a, const TableInfo& b) { return a.header.first < b.header.first; });
  check_adjacent(tables);

  Header merged = tables.front().header;
  merged.last = tables.back().header.last;
  merged.extra = common_extra(tables);
  RunTableWriter w(merged, tables.front().has_flags, text, drain);
  for (const TableInfo& t : tables) {
    auto r = VectorReader::open(t.path);
    if (comparable_text(r->header()) != comparable_text(t.header) || r->header().first != t.header.first ||
        r->header().last != t.header.last)
      throw InputError(shown_name(t.path) + ": changed while merge was reading it");
    Run run;
    while (r->next_run(run)) {
      if (run.has_flags != t.has_flags) throw InputError(r->where() + ": flags on some run lines and not on others");
      w.add(run);
    }
  }
  w.finish();
  return w.lines();
}

}  // namespace softmx::vec
