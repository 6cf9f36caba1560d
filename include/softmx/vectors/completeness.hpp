// softmx/vectors/completeness.hpp: does a results file hold every case it must, each
// once, in order? (vectors/README.md 8, "Completeness".)
//
// A verdict of "all match" certifies hardware, so it must mean that every expected case was
// checked. The expected cases are known, best first, from:
//
//   1. the header's level and seed: the cases are regenerated with the generator that wrote
//      the file (generate.hpp) and compared with the file case by case; when the header also
//      has `cases` and `inputs-sha256`, the regenerated list must reproduce them;
//   2. the header's `cases` and `inputs-sha256` alone (no level, or a list this softmx does
//      not regenerate): the file's count and the SHA-256 of its operands must equal them;
//   3. nothing (a hand-written header): completeness is not checked, and the result says so.
//
// With a regenerated list, each line of the file is paired with the expected case of the same
// operands (the k-th line with given operands with the k-th such case), and the differences
// are classified: a **missing** case has no line; an **extra** line holds operands that are not
// expected at all; a **duplicated** line repeats operands more often than the list has them;
// and lines **out of order** are the fewest paired lines that would have to move to restore
// the expected order (the paired lines minus the longest subsequence of them in increasing case
// order).
// Memory: 24 bytes per line while the file follows the list, 49 once a difference needs the
// index (at most about 200 MB), for files of up to kMaxLocatedCases lines; longer files are
// checked by count and SHA-256 only (the verdict is as exact; the first difference is not
// named).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "softmx/vectors/header.hpp"
#include "softmx/vectors/input_digest.hpp"
#include "softmx/vectors/operation.hpp"

namespace softmx::vec {

/// Files of up to this many cases get each difference located and classified.
inline constexpr std::uint64_t kMaxLocatedCases = std::uint64_t{1} << 22;

/// What the expected cases were taken from.
enum class CompletenessBasis : std::uint8_t {
  regenerated,       ///< level and seed, regenerated (and equal to cases / inputs-sha256 when given)
  regenerated_open,  ///< level 2 without `cases` (a file from before the key): regenerated as far
                     ///< as the file goes, so a cut after the last line cannot be seen
  header,            ///< the header's cases and inputs-sha256 (or one of them) alone
  runs,              ///< a run table: first and last say the inputs, the reader checks the runs cover them
  none,              ///< nothing says which cases the file must hold: not checked
};

/// "regenerated", "regenerated-open", "header", "runs", "none" (for --json).
const char* name(CompletenessBasis b);

/// One difference between a file and its expected cases. Line numbers count every line of the
/// file from 1; case numbers count the expected list from 1.
struct CaseFinding {
  std::uint64_t line = 0;          ///< the line that holds it (0 for a missing case)
  std::uint64_t case_number = 0;   ///< its place in the expected list (0 for an extra line)
  /// missing: the line holding the nearest earlier expected case that is present (0: none);
  /// duplicated: the line that holds the same operands first; out of order: the line of the
  /// later case it follows.
  std::uint64_t other_line = 0;
  std::uint64_t other_case = 0;    ///< out of order: the later case it follows
  std::vector<std::uint64_t> operands;  ///< the case's operands (empty for an extra line)
};

/// Whether a file holds its expected cases, with the evidence.
struct Completeness {
  CompletenessBasis basis = CompletenessBasis::none;
  std::string source;                     ///< "level 1, seed 1, regenerated", for messages
  std::optional<std::uint64_t> expected;  ///< the number of cases the file must hold, where known
  std::uint64_t present = 0;              ///< data lines (cases) in the file; runs: inputs covered
  /// The counts below are known (a regenerated list, and at most kMaxLocatedCases lines).
  bool located = false;
  std::uint64_t missing = 0, extra = 0, duplicated = 0, out_of_order = 0;
  std::optional<CaseFinding> first_missing, first_extra, first_duplicated, first_out_of_order;
  std::string sha256;           ///< the file's inputs-sha256 (empty for runs)
  std::string expected_sha256;  ///< what it must be (empty where unknown)
  /// Why completeness was not fully checked, or why the header's keys were not used: one
  /// sentence each, for standard error.
  std::vector<std::string> notes;

  /// True when the evidence shows no missing, extra, duplicated or reordered case and the count
  /// and digest are as expected; also true when nothing could be checked (basis none: see
  /// checked()).
  bool complete() const;
  /// False for basis none (completeness unknown).
  bool checked() const { return basis != CompletenessBasis::none; }
};

/// Collects a cases file's operands line by line and decides, at the end, whether the file is
/// complete. One instance per file; add() every data line in file order, then finish() once.
class CompletenessChecker {
 public:
  /// `ev`: softmx's evaluator for the file's header (regenerating quantize cases needs it to
  /// leave out the blocks the dialect refuses, as gen does). Must outlive the checker.
  explicit CompletenessChecker(const Evaluator& ev);
  /// One data line: its number in the file and its operands.
  void add(std::uint64_t line, std::span<const std::uint64_t> operands);
  /// Regenerates or compares, and classifies. Call once, after the last add().
  Completeness finish();

 private:
  const Evaluator& ev_;
  InputDigest digest_;
  std::uint64_t count_ = 0;
  bool located_ = true;
  std::vector<std::uint64_t> fingerprint_, line_;  // per line, while located_
};

/// The completeness of a run table whose runs were all read: its header's first..last.
Completeness runs_completeness(const Header& h);

/// The verdict as text lines for a report ("complete: ..." or "INCOMPLETE: ..." with the first
/// finding of each kind), each ending in '\n'. `l`: the file's layout, for the operands.
std::string completeness_text(const Completeness& c, const LineLayout& l);

/// The verdict as one JSON object (no newline), for verify --json: status ("complete",
/// "incomplete", "unchecked"), basis, counts (null where unknown), the first finding of each
/// kind, and the digests. Every string in it is ASCII written here (no user text).
std::string completeness_json(const Completeness& c, const LineLayout& l);

}  // namespace softmx::vec
