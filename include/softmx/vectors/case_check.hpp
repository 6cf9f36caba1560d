// softmx/vectors/case_check.hpp: checks a `cases` file (a device's results, one case per
// line) against softmx: every line's results recomputed from its operands under the file's
// header, and the file's completeness (completeness.hpp). What `softmx verify` runs on a cases
// file, streaming: memory is the completeness checker's (at most 49 bytes per line, bounded).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "softmx/flags.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::vec {

/// One line whose results (or flags) differ from softmx's. The spans are valid during the call.
struct CaseMismatch {
  std::string where;       ///< "file line N"
  std::uint64_t line = 0;  ///< N
  std::span<const std::uint64_t> operands, got, want;
  bool has_flags = false;  ///< whether the line gives flags (then got_flags is meaningful)
  Flags got_flags = 0, want_flags = 0;
  bool result_differs = false;  ///< false: the results agree and only the flags differ
};

struct CaseCheck {
  std::uint64_t cases = 0;                  ///< data lines read
  std::uint64_t result_mismatches = 0;      ///< lines whose results differ
  std::uint64_t flags_only_mismatches = 0;  ///< lines whose results agree and flags differ
  std::uint64_t flags_compared = 0;         ///< lines that gave flags
  Completeness completeness;
  /// Every line agrees and the file is proven complete (completeness.proven()). A file whose
  /// completeness is unproven does not pass (verify.hpp: the unproven verdict).
  bool pass() const { return result_mismatches == 0 && flags_only_mismatches == 0 && completeness.proven(); }
};

/// Reads every data line of `r` (a `cases` file; precondition: the reader has returned no line
/// yet), computes its results with `ev` (built from r.header()) and compares, calling
/// `on_mismatch` for each line that differs, in file order. Then decides completeness. Throws
/// InputError for a line without results, operands softmx has no result for (the dialect
/// refuses them), a file without data lines, and every malformed line (file and line named).
/// `cases_ev`: the evaluator of the file's own header, under which its cases were chosen, when
/// `ev` checks other settings (verify --model, ...); null: `ev` (built from r.header()).
/// `on_case`, when set, sees every data line after it was compared (agreeing or not), in file
/// order: its operands, the device's results and flags (`has_flags` says whether given), and
/// softmx's results and flags; the spans are valid during the call (the report's statistics,
/// verify.hpp VerifyObserver). It does not change the check.
using CaseObserver = std::function<void(std::span<const std::uint64_t> operands, std::span<const std::uint64_t> got,
                                        bool has_flags, Flags got_flags, std::span<const std::uint64_t> want,
                                        Flags want_flags)>;
CaseCheck check_cases(VectorReader& r, const Evaluator& ev, const std::function<void(const CaseMismatch&)>& on_mismatch,
                      const Evaluator* cases_ev = nullptr, const CaseObserver& on_case = {});

}  // namespace softmx::vec
