// softmx/vectors/identify.hpp: which implementation does a device match? (`softmx identify`)
//
// Every setting softmx models for a file's operation (make_candidates(): each dialect x
// rounding x saturation, x scale rule for quantize, x accumulation model for dot, x tininess
// when flags are given) is scored by how many cases (inputs) of the device's file it agrees on,
// and the settings are ranked. A cases file is scored exactly for every setting in one
// streaming pass. A run table is scored first on samples (the first, middle and last input of
// every run, all settings), then the best groups are checked on every input (every candidate
// when the table covers at most 2^20 inputs). A cases file's completeness is judged under its
// header (vectors/README.md 8): a file with a case missing, extra, duplicated or out of order
// is not identified, whatever it agrees with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::vec {

struct IdentifyOptions {
  /// Run tables over more than 2^20 inputs: how many of the best distinct sampled scores are
  /// then checked on every input (one candidate each), >= 1.
  std::size_t exact_groups = 3;
  /// Disagreements kept per candidate for the report (cases or ranges), >= 0.
  std::size_t max_errors = 10;
  /// Threads for the exact checks of a run table, >= 1.
  unsigned threads = 1;
  /// Progress on stderr (when it is a terminal) during the exact checks of a run table.
  bool progress = true;
  /// When set, replaces `progress`: called during each exact check of a run table, on the
  /// calling thread, with the inputs checked so far and the total (check_runs' progress: the
  /// counts start again for each candidate checked). Whatever it throws stops identify.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_progress;
};

/// A case a candidate disagrees on: the line, its operands and the device's results (rec) and
/// the candidate's (want, want_flags).
struct Disagreement {
  std::string where;  ///< "file line N"
  std::uint64_t line = 0;  ///< N of `where`: the 1-based line of the file that disagrees
  Record rec;
  std::vector<std::uint64_t> want;
  Flags want_flags = 0;
};

/// One candidate's score. agree <= total. For a run table scored on samples only (exact
/// false), agree and total count sample points, not inputs.
struct CandidateScore {
  std::uint64_t agree = 0;
  std::uint64_t total = 0;
  bool exact = true;                  ///< runs: false while only sampled
  std::uint64_t exact_disagree = 0;   ///< runs, checked on every input: inputs that differ
  std::uint64_t ranges = 0;           ///< runs, checked: mismatching ranges
  std::vector<Disagreement> cases;    ///< cases: the first max_errors disagreements
  std::vector<RangeMismatch> runs;    ///< runs: the first max_errors mismatching ranges
};

struct Identification {
  Header header;      ///< the file's header
  LineLayout layout;  ///< its lines' columns
  bool runs = false;  ///< a run table (else a cases file)
  std::vector<Candidate> candidates;
  std::vector<CandidateScore> scores;  ///< one per candidate, same order
  /// Candidate indices, best first: exactly checked scores before sampled ones, then by the
  /// fraction agreeing, ties broken by the fewest settings changed from the header.
  std::vector<std::size_t> ranking;
  std::uint64_t lines = 0;       ///< cases: data lines; runs: sample points
  std::uint64_t with_flags = 0;  ///< lines (runs) that gave flags
  Completeness completeness;     ///< judged under the header (runs: runs_completeness)

  /// The best candidate's index (ranking[0]).
  std::size_t best() const { return ranking.front(); }
  /// The best candidate agrees with every case (input), checked exactly.
  bool agrees() const;
  /// agrees() and the file is complete: the device is identified.
  bool identified() const { return agrees() && completeness.complete(); }
  /// Every candidate was checked on every input (always true for a cases file).
  bool all_exact() const;
};

/// Scores and ranks every candidate for the device's file. `open` returns a new reader of the
/// file at its start each time it is called (a run table is read once more per exact check;
/// a cases file once). Throws InputError for a malformed file (file and line named), a cases
/// line without results, and a file without data lines.
Identification identify(const std::function<std::unique_ptr<VectorReader>()>& open, const IdentifyOptions& o);

/// The number of header settings `c` changes from `h` (dialect, rounding, saturation,
/// tininess, scale rule, accumulation).
int setting_distance(const Header& h, const Header& c);

/// 100 a / n percent, rounded down, with as many decimals (at least 2, trailing zeros
/// dropped) as it takes to show that a < n is below 100% and a > 0 above 0%: 65535/65536 is
/// "99.99%", never "100%"; only a == n is. n == 0 gives "0%".
std::string percent(std::uint64_t a, std::uint64_t n);

}  // namespace softmx::vec
