// softmx/vectors/report_data.hpp: what the certificate (`softmx report`, softmx.report) shows,
// computed by the library: the verdict of every input, its provenance, its completeness, the
// per-class counts, where the failures lie over the input domain, the ulp errors, identify's
// scores, and the first failures with their explanations, as one bounded JSON document.
//
// The CLI and the Python package only translate: they call make_report() and hand its json()
// to the renderer (python/softmx/_report_render.py: HTML, inline SVG plots), which computes
// nothing. docs/REPORT.md describes the document and every number in it.
//
// Everything here is aggregated: the size of the data does not grow with the number of cases or
// inputs (a 2^32-input run table and a file of 10^6 cases give the same few hundred KB); only the
// first max_failures failures of each input are kept whole.
//
// Input classes (one per case, the first that applies, in this order: nan, inf, overflow, tie,
// subnormal, normal, zero; docs/REPORT.md 3):
//   convert      the input's exact value against the destination's grid: NaN, +-Inf, +-0; overflow:
//                beyond the destination's largest finite magnitude; tie: exactly halfway between
//                two neighbouring destination values; subnormal: below the destination's smallest
//                normal value (its subnormal range, or below it); normal: the rest.
//   dequantize   the same for the element's value times 2^(SCALE - 127) against the destination
//                (a NaN scale is nan).
//   quantize     each element divided by softmx's scale, against the element format; the block takes
//                the first class any element has (a block of zeros is zero).
//   dot, mma     nan / inf: an operand (element, scale, C) is NaN / Inf; otherwise by softmx's result:
//                overflow (Inf, or the overflow flag), zero, subnormal (or the underflow flag),
//                normal. A dot's or mma's ties are not told apart (none is counted).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/format.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/verify.hpp"

namespace softmx::vec {

/// The class of a case (see the top of this file). The order is the table's.
enum class InputClass : std::uint8_t { normal, subnormal, overflow, zero, nan, inf, tie };
inline constexpr std::size_t kInputClasses = 7;
/// "normal", "subnormal", "overflow", "zero", "nan", "inf", "tie".
const char* name(InputClass c);
using ClassArray = std::array<std::uint64_t, kInputClasses>;

/// The counts of one class in one file: cases (inputs, for a run table) checked, those whose
/// results differ, those that gave flags, and those whose flags differ (the results may differ
/// too). result_failed + the cases failing in flags only is verify's mismatch count.
struct ClassCounts {
  std::uint64_t checked = 0, result_failed = 0, flags_checked = 0, flags_failed = 0;
};

/// Assigns cases of one header's operation to their InputClass.
class CaseClassifier {
 public:
  /// `h`: the settings the file is checked under (validated).
  explicit CaseClassifier(const Header& h);
  /// The class of one case: its operands and softmx's results and flags for them.
  InputClass classify(std::span<const std::uint64_t> operands, std::span<const std::uint64_t> want,
                      Flags want_flags) const;
  /// convert only: the class of one source code.
  InputClass classify_code(std::uint64_t code) const;
  /// convert only: how many source codes of [lo, hi] fall in each class. Binade by binade for
  /// sources of more than 16 bits that are sign-magnitude floats (f32: a few thousand steps for
  /// all 2^32 codes), code by code otherwise.
  ClassArray count_codes(std::uint64_t lo, std::uint64_t hi) const;
  /// count_codes binade by binade; nullopt for a source it does not serve (not sign-magnitude,
  /// no exponent field). Public for the tests, which hold it to the code-by-code count.
  std::optional<ClassArray> count_codes_by_binades(std::uint64_t lo, std::uint64_t hi) const;
  /// One sentence: how this operation's cases are classed (for the report).
  const std::string& basis() const { return basis_; }

 private:
  Header h_;
  LineLayout layout_;
  std::string basis_;
  Format src_, dst_;  // convert and dequantize: the value's format and the one it goes to
};

/// The distance between a device's result code and softmx's in one format, in ulps: the
/// difference of their places among the format's values in increasing order (Inf one step past
/// the largest finite value).
struct UlpDistance {
  enum class Kind : std::uint8_t {
    same,       ///< the same code
    ulps,       ///< `magnitude` places apart, device below softmx when `negative`
    nan,        ///< one of them is NaN (or both, with other codes)
    zero_sign,  ///< +0 against -0
  };
  Kind kind = Kind::same;
  bool negative = false;
  std::uint64_t magnitude = 0;
  /// "+1 ulp", "-3 ulps", "NaN", "+0 vs -0", "same".
  std::string text() const;
};
UlpDistance ulp_distance(const Format& f, std::uint64_t device, std::uint64_t softmx);

/// The ulp errors of one result column (all of a quantize file's OUT_i together).
struct UlpHistogram {
  std::string field;   ///< "OUT", "SCALE", "D"
  std::string format;  ///< its format's name
  std::uint64_t nan = 0, zero_sign = 0;
  /// Key +-b (b = 1..64): distances d with 2^(b-1) <= |d| < 2^b, device above (+) or below (-).
  std::map<int, std::uint64_t> bins;
  void add(const UlpDistance& d, std::uint64_t weight);
  std::uint64_t total() const;
};

/// A 2-d histogram over the input domain: cases checked and cases failing per cell.
struct DomainGrid {
  std::string title, x_label, y_label, note;
  std::uint32_t nx = 0, ny = 0;
  std::vector<std::pair<std::uint32_t, std::string>> x_ticks, y_ticks;  ///< (index, label)
  /// Every column's label (empty: only x_ticks), so that a drawing may leave empty columns out.
  std::vector<std::string> x_names;
  std::vector<std::uint64_t> checked, failed;  ///< ny * nx, cell (x, y) at y * nx + x
  void resize(std::uint32_t x, std::uint32_t y);
  void add(std::uint32_t x, std::uint32_t y, std::uint64_t checked, std::uint64_t failed);
};

/// Failing inputs of a run table (or a diff) in `bins` equal bins over first..last.
struct InputBand {
  std::uint64_t first = 0, last = 0, width = 1;  ///< inputs per bin (the last may hold fewer)
  int digits = 8;                                 ///< hex digits of an input
  std::vector<std::uint64_t> failed;
  InputBand() = default;
  InputBand(std::uint64_t first, std::uint64_t last, int digits, std::uint32_t bins = 1024);
  void add(std::uint64_t a, std::uint64_t b);  ///< inputs a..b fail (within first..last)
  std::uint64_t total() const;
};

/// One failure as the report shows it.
struct ReportFailure {
  bool range = false;
  std::string where;                       ///< cases: "FILE line N"; runs: "FIRST..LAST"
  std::uint64_t line = 0, first = 0, last = 0;
  std::string operands, device, expected;  ///< hex, the file's columns
  std::optional<Flags> device_flags;
  Flags expected_flags = 0;
  bool result_differs = true;
  InputClass cls = InputClass::normal;
  std::string ulps;       ///< the first differing result's UlpDistance::text()
  std::string producers;  ///< the settings softmx models that give the device's result
  /// convert: why the device's result and softmx's are what they are (explain.hpp's
  /// rounding_reason); empty for other operations.
  std::string device_reason, softmx_reason;
  std::string report;  ///< verify's (identify's) explanation text
};

/// Where a file came from.
struct FileInfo {
  std::string path;     ///< as given
  std::string sha256;   ///< of its bytes
  std::uint64_t bytes = 0;
  std::string modified;  ///< its mtime, UTC, ISO 8601
};
/// Reads `path` whole for its SHA-256. Throws InputError naming it when it cannot be read.
FileInfo file_info(const std::string& path);

/// One results file or run table, verified.
struct VerifyReport {
  FileInfo file;
  VerifyResult verify;
  std::string header_text;
  std::string class_basis;
  std::array<ClassCounts, kInputClasses> classes{};
  DomainGrid grid;
  std::optional<InputBand> band;  ///< run tables
  std::vector<UlpHistogram> ulp;
  std::vector<ReportFailure> failures;
  std::string json() const;
};

/// One file identified (what `softmx identify FILE` computes).
struct IdentifyReport {
  FileInfo file;
  Identification id;
  std::string header_text;
  VerdictStatus status = VerdictStatus::fail;
  bool accepted_unproven = false;
  std::vector<ReportFailure> failures;  ///< what the best setting disagrees on
  int exit_status() const { return vec::exit_status(status); }
  std::string json() const;
};

/// A difference of two run tables as the report shows it.
struct DiffRange {
  std::uint64_t first = 0, last = 0;
  std::uint64_t a_code = 0, b_code = 0;
  Flags a_flags = 0, b_flags = 0;
  std::string input_text, a_text, b_text;  ///< the first input and both results decomposed
  std::string a_reason, b_reason;          ///< what softmx computes under each header, and why
};

/// Two run tables compared (what `softmx diff A B` computes).
struct DiffReport {
  FileInfo a, b;
  Header ha, hb;
  std::uint64_t inputs = 0, ranges = 0, differing = 0;
  bool flags_compared = false, a_has_flags = false, b_has_flags = false;
  std::string class_basis;
  std::array<ClassCounts, kInputClasses> classes{};  ///< result_failed: inputs whose outputs (flags) differ
  InputBand band;
  std::vector<DiffRange> differences;
  VerdictStatus status() const { return ranges ? VerdictStatus::fail : VerdictStatus::pass; }
  std::string json() const;
};

/// What a report covers.
struct ReportInputs {
  std::vector<std::string> verify;    ///< results files and run tables, each verified
  std::vector<std::string> identify;  ///< files identified
  std::vector<std::pair<std::string, std::string>> diff;  ///< pairs of run tables
};

struct ReportOptions {
  std::uint64_t max_failures = 20;  ///< failures kept whole per input
  unsigned threads = 1;             ///< run tables and identify, >= 1
  bool accept_unproven = false;     ///< as verify --accept-unproven (and identify's)
  std::optional<std::uint64_t> expect_cases;  ///< as verify --expect-cases, for every results file
  std::string command;  ///< the command line that made the report (provenance)
  std::string title;    ///< empty: "softmx certificate"
  std::string date;     ///< empty: now (report_date())
  /// Progress of the run tables' checks (verify's); empty: progress_to_stderr decides.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  bool progress_to_stderr = false;
};

struct ReportData {
  std::string title, command, date, build;
  std::uint64_t max_failures = 20;
  std::vector<VerifyReport> verified;
  std::vector<IdentifyReport> identified;
  std::vector<DiffReport> diffs;
  /// fail when any input fails, else unproven when any is unproven, else pass.
  VerdictStatus status() const;
  int exit_status() const { return vec::exit_status(status()); }
  /// The whole document (schema "softmx-report/1", docs/REPORT.md), ending in '\n'.
  std::string json() const;
};

/// Verifies, identifies and compares what `in` names, collecting the report's statistics in the
/// same pass as each check. Throws InputError for bad input (the file and line named) and for an
/// empty `in`; standard input ("-") is refused (each file is read for its SHA-256 too).
ReportData make_report(const ReportInputs& in, const ReportOptions& o);

/// "softmx 0.1.0; g++ 12.2.0; release (NDEBUG); vector kernels avx512": the version and build.
std::string build_text();
/// The date and time now in UTC ("2026-11-29T02:30:00Z"), or that of $SOURCE_DATE_EPOCH when set
/// (reproducible reports).
std::string report_date();
/// `s` quoted for a POSIX shell (left bare when it is only safe characters).
std::string shell_quote(std::string_view s);

}  // namespace softmx::vec
