// softmx/vectors/completeness.hpp: does a results file hold every case it must, each
// once, in order? (vectors/README.md 8, "Completeness"; docs/VECTORS.md, what a pass proves.)
//
// A verdict of "all match" certifies hardware, so it must mean that every expected case was
// checked, and the evidence for that must not come from the file alone: a header can be
// edited to match a cut file. The expected cases are known, best first, from:
//
//   1. the header's level and seed: the cases are regenerated with the generator that wrote
//      the file (generate.hpp) and compared with the file case by case. The regenerated list
//      is the truth: where the header also has `cases` and `inputs-sha256` and they are not
//      the list's, the file fails (header_differs) whatever else it holds. Completeness is
//      then PROVEN (or refuted). At level 2 the list is level 1 followed by as many random
//      cases as the header's `cases` says (the count is the generator's parameter; a caller
//      who knows it pins it with expect_cases);
//   2. the header's `cases` and `inputs-sha256` alone (no level, or a list this softmx cannot
//      regenerate): the file's count and the SHA-256 of its operands must equal them. This can
//      refute completeness but not prove it (the header vouches for its own file): UNPROVEN;
//   3. nothing (a hand-written header): UNPROVEN.
//
// A run table covers first..last by construction (the reader checks the runs): PROVEN.
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

/// What the evidence says about a file's completeness (docs/VECTORS.md).
enum class CompletenessStatus : std::uint8_t {
  complete,    ///< proven: every expected case of a regenerated list (or every input of a run table), once, in order
  incomplete,  ///< a difference was found: a case missing, extra, duplicated or out of order, a count or
               ///< digest that differs, or a header whose record is not the regenerated list's
  unproven,    ///< no difference found, but nothing independent of the file proves that none exists
};

/// "complete", "incomplete", "unproven" (for --json and Python).
const char* name(CompletenessStatus s);

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
  /// basis regenerated: the header's `cases` or `inputs-sha256` is not the regenerated list's
  /// (the header was edited, or another generator wrote the file). A difference: the file fails.
  bool header_differs = false;
  /// The number of cases the caller says the file must hold (verify --expect-cases), if any;
  /// a file with another number fails whatever its header says.
  std::optional<std::uint64_t> pinned_cases;
  /// Why completeness was not fully checked, or why the header's keys were not used: one
  /// sentence each, for standard error.
  std::vector<std::string> notes;

  /// True when the evidence shows a difference: a missing, extra, duplicated or reordered case,
  /// a count or digest other than expected, header_differs, or a count other than pinned_cases.
  bool differs() const;
  /// True when no difference was found and the basis proves it (regenerated, or runs): the
  /// file holds every expected case once, in order.
  bool proven() const {
    // A level-2 list without `cases` runs as far as the file: its length is known only when
    // the caller pins it (pin_cases), and then a file holding that many is the whole list.
    const bool open_pinned = basis == CompletenessBasis::regenerated_open && pinned_cases && present == *pinned_cases;
    return !differs() && (basis == CompletenessBasis::regenerated || basis == CompletenessBasis::runs || open_pinned);
  }
  /// Proven complete (the only state in which a verdict may pass by default).
  bool complete() const { return proven(); }
  CompletenessStatus status() const {
    return differs() ? CompletenessStatus::incomplete : proven() ? CompletenessStatus::complete : CompletenessStatus::unproven;
  }
  /// False for basis none (nothing at all was checked).
  bool checked() const { return basis != CompletenessBasis::none; }
  /// Pins the number of cases (verify --expect-cases): sets pinned_cases, and adds a note when
  /// the file holds another number.
  void pin_cases(std::uint64_t n);
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
/// "incomplete", "unproven"), basis, counts (null where unknown), the first finding of each
/// kind, the digests and the notes. Every string in it is escaped (json_string).
std::string completeness_json(const Completeness& c, const LineLayout& l);

}  // namespace softmx::vec
