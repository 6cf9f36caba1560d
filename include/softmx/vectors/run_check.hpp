// softmx/vectors/run_check.hpp: checks a run table (a device's record of a conversion
// over a range of inputs) against softmx, input by input, streaming and on every core: softmx's
// own runs come from the sweep engine (run_table.hpp) and are walked against the table's.
#pragma once

#include <cstdint>
#include <functional>

#include "softmx/vectors/header.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::vec {

/// A maximal range of consecutive inputs on which the table says `got` and softmx computes
/// `want` (the same pair throughout).
struct RangeMismatch {
  std::uint64_t first = 0, last = 0;
  std::uint64_t got = 0, want = 0;
  bool has_flags = false;  ///< whether the table gives flags (then got_flags is meaningful)
  Flags got_flags = 0, want_flags = 0;
  std::uint64_t count() const { return last - first + 1; }
};

struct RunCheckStats {
  std::uint64_t runs = 0;
  std::uint64_t inputs = 0;
  std::uint64_t result_mismatches = 0;      ///< inputs whose OUT differs
  std::uint64_t flags_only_mismatches = 0;  ///< inputs whose OUT agrees and FLAGS differ
  bool flags_compared = false;
};

/// Reads every run of `table` (a `layout = runs` file) and compares each input of each run with
/// softmx's conversion under `settings` (the table's header, or a copy with other rounding,
/// saturation, tininess or dialect; precondition: the same source format, layout runs, and the
/// table's first and last). Calls `on_mismatch` for each maximal mismatching range, in input
/// order, from the calling thread. `threads` >= 1. Memory stays bounded whatever the table's
/// size. Progress goes to stderr when it is a terminal and `progress` is set.
RunCheckStats check_runs(VectorReader& table, const Header& settings, unsigned threads,
                         const std::function<void(const RangeMismatch&)>& on_mismatch, bool progress = true);
/// The same, reporting progress to `progress` (may be empty) instead of stderr: called on the
/// calling thread after each chunk of softmx's conversions was compared, with the inputs done
/// (increasing, the last call's equal to the total) and the total (the header's inputs). Whatever
/// it throws stops the check and is rethrown (the Python module's Ctrl-C). The results do not
/// depend on it.
RunCheckStats check_runs(VectorReader& table, const Header& settings, unsigned threads,
                         const std::function<void(const RangeMismatch&)>& on_mismatch,
                         const std::function<void(std::uint64_t done, std::uint64_t total)>& progress);

/// The number of threads to use by default: every core.
unsigned default_threads();

}  // namespace softmx::vec
