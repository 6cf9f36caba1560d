// softmx/vectors/verify.hpp: `softmx verify` as one library call. The CLI (tools/softmx/
// cmd_verify.cpp) and the Python module (softmx.verify) are shells around verify_file(): they
// translate arguments and print or return what it gives, and hold no logic of their own.
//
// The verdict (docs/VECTORS.md "What a pass proves"):
//   pass      every line agrees with softmx AND the file is proven complete (its cases were
//             regenerated from the header's level and seed and found, each once, in order; or a
//             run table covers first..last): exit status 0;
//   fail      a line disagrees, or a case is missing, extra, duplicated or out of order, or a
//             count or digest differs, or the header's record is not the regenerated list's:
//             exit status 1;
//   unproven  no line disagrees and no difference was found, but nothing independent of the
//             file proves that every case is there (no level and seed, a list softmx cannot
//             regenerate, a level-2 file without `cases`): exit status 3. With
//             accept_unproven (verify --accept-unproven, for legacy sets) it is a pass, and the
//             verdict says that it was accepted unproven.
// Bad input is an InputError (exit status 2), never a verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/flags.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::vec {

/// Settings that replace the file's header's for the check, so that a file can be checked
/// against another model or dialect without editing it (verify --model NAME, ...). Each is a
/// name as the header spells it; none changes which columns a line has (so rounding cannot
/// become or stop being rs, and accumulator, formats and block shapes are not among them).
struct HeaderOverrides {
  std::optional<std::string> model;         ///< mma: the tensor-core model (header key `model`)
  std::optional<std::string> accumulation;  ///< dot: exact, fp32-sequential or a tensor-core model
  std::optional<std::string> dialect;       ///< convert, quantize, dequantize
  std::optional<std::string> rounding;      ///< all but mma: rne rna rz ru rd ro (rs only where the file has rs)
  std::optional<std::string> saturation;    ///< all but mma: finite, none
  std::optional<std::string> tininess;      ///< all but mma: after, before
  std::optional<std::string> scale;         ///< quantize: the scale rule
  bool empty() const {
    return !model && !accumulation && !dialect && !rounding && !saturation && !tininess && !scale;
  }
};

/// `h` with `o` applied, validated as a header is. Throws InputError naming the option
/// ("--model: ...") for a value that is unknown, that the operation does not take (--model on a
/// convert file), or that would change the file's columns (rounding to or from rs).
Header apply_overrides(const Header& h, const HeaderOverrides& o);

/// "model hopper-fp8-wgmma (the file's header: hopper-fp8-mma)", one clause per changed setting,
/// joined by "; " (empty when nothing changed).
std::string overrides_text(const Header& file, const Header& checked);

enum class VerdictStatus : std::uint8_t { pass, fail, unproven };

/// "pass", "fail", "unproven" (JSON and Python).
const char* name(VerdictStatus s);

/// The exit status of a verdict: pass 0, fail 1, unproven 3 (2 is bad input; 70 an internal
/// error).
int exit_status(VerdictStatus s);

/// Sees what verify checks, in the same pass, for statistics beyond the verdict's counts (the
/// report's per-class counts, failure locations and ulp errors: softmx/vectors/report_data.hpp).
/// Nothing it does changes the verdict; verify without an observer runs exactly as before.
class VerifyObserver {
 public:
  virtual ~VerifyObserver() = default;
  /// A cases file: every data line, in file order, after it was compared: its operands, the
  /// device's results (and flags, when `has_flags`), softmx's results and flags.
  virtual void on_case(std::span<const std::uint64_t> operands, std::span<const std::uint64_t> got, bool has_flags,
                       Flags got_flags, std::span<const std::uint64_t> want, Flags want_flags) = 0;
  /// A run table: every maximal mismatching range, in input order (all of them, not only the
  /// first max_errors). The inputs that agree are first..last less these ranges.
  virtual void on_range(const RangeMismatch& m) = 0;
};

struct VerifyOptions {
  std::uint64_t max_errors = 20;  ///< mismatches reported (the counts are always complete)
  unsigned threads = 1;           ///< run tables: threads, >= 1
  HeaderOverrides overrides;
  /// Take an unproven completeness as a pass (legacy sets); the verdict still says it.
  bool accept_unproven = false;
  /// The number of cases the file must hold, from outside the file (--expect-cases); a file
  /// holding another number fails whatever its header says.
  std::optional<std::uint64_t> expect_cases;
  /// Progress of a run table's check (check_runs); empty: none here (see progress_to_stderr).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  /// With no `progress`: a progress line on stderr while it is a terminal (the CLI's).
  bool progress_to_stderr = false;
  /// Sees every case (every mismatching range) as it is checked; null: none. Not owned.
  VerifyObserver* observer = nullptr;
};

/// One reported disagreement: a line of a cases file, or a range of a run table.
struct VerifyMismatch {
  bool range = false;
  std::string where{};     ///< cases: "file line N"
  std::uint64_t line = 0;  ///< cases: N
  std::uint64_t first = 0, last = 0;  ///< runs: the inputs of the range
  std::vector<std::uint64_t> operands{}, got{}, want{};  ///< runs: got and want one code each
  bool has_flags = false;  ///< the device gave flags (got_flags meaningful)
  Flags got_flags = 0, want_flags = 0;
  bool result_differs = true;  ///< false: only the flags differ
  /// The explanation: values decomposed, flags spelled out, the settings that give the
  /// device's result, and for mma the model's steps (report.hpp).
  std::string report{};
  /// The same as one JSON object (no newline): line, operands (hex, the file's columns) or
  /// first, last, count; device, expected; device_flags (null when not given), expected_flags.
  std::string json{};
};

/// A run table's range mismatch as a VerifyMismatch: range, first, last, got, want, flags and
/// result_differs; report and json are left empty for the caller (verify and identify word them
/// with their own candidates).
VerifyMismatch range_mismatch(const RangeMismatch& m);

struct VerifyResult {
  std::string file;         ///< the name as given ("<stdin>" for standard input)
  Header header;            ///< the file's header
  Header checked;           ///< the settings checked (header with the overrides)
  std::string description;  ///< describe(checked)
  std::string overrides;    ///< overrides_text(header, checked)
  bool runs = false;        ///< a run table
  std::uint64_t cases = 0;  ///< cases: data lines; runs: inputs
  std::uint64_t run_count = 0;  ///< runs: the table's runs
  std::uint64_t result_mismatches = 0, flags_only_mismatches = 0;
  std::uint64_t flags_compared = 0;  ///< cases (inputs) whose flags were compared
  std::uint64_t ranges = 0;          ///< runs: mismatching ranges
  Completeness completeness;
  bool accepted_unproven = false;  ///< an unproven file passed because accept_unproven was set
  VerdictStatus status = VerdictStatus::fail;
  /// The reported mismatches (at most max_errors), unless verify_file's on_mismatch took them.
  std::vector<VerifyMismatch> mismatches;
  std::uint64_t reported = 0;  ///< mismatches reported (kept or streamed)

  std::uint64_t mismatched() const { return result_mismatches + flags_only_mismatches; }
  int exit_status() const { return vec::exit_status(status); }
  /// The summary lines verify prints after the mismatches: the counts, the completeness
  /// (complete / INCOMPLETE / UNPROVEN with the first difference of each kind), and the
  /// verdict line "verify: FILE: PASS|FAIL|UNPROVEN ...". Names escaped; each line ends in '\n'.
  std::string summary_text() const;
  /// The notes on completeness (why it is unproven, what the header got wrong), one line each
  /// "verify: FILE: NOTE\n", for standard error.
  std::string notes_text() const;
  /// The whole verdict as one JSON object (with a final newline): file, operation, layout,
  /// counts, completeness (completeness_json), status ("pass", "fail", "unproven"),
  /// accepted_unproven, exit_status, overrides, mismatches. Its status and the text's verdict
  /// line are computed from the same fields, so they always agree.
  std::string json() const;
};

/// Checks a file of device results (cases or a run table) read from `r` (precondition: no data
/// line read yet) under its header with `o.overrides` applied, and decides the verdict.
/// `on_mismatch`, when set, receives each reported mismatch as it is found (the CLI streams
/// them) and the result's `mismatches` stays empty; otherwise they are kept there. Throws
/// InputError for bad input (the file and line named) and for overrides that do not apply.
VerifyResult verify_file(VectorReader& r, const VerifyOptions& o,
                         const std::function<void(const VerifyMismatch&)>& on_mismatch = {});

}  // namespace softmx::vec
