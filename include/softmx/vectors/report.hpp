// softmx/vectors/report.hpp: how verify and identify print a disagreement, TestFloat
// style: the line's hex, then each differing field decomposed (sign, exponent field, fraction
// field, and the exact value), the flags spelled out, and which settings softmx knows would
// have produced the device's result.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::vec {

/// "+7F.080000  1.0625" for a code field; the hex value for random bits.
std::string decompose(const Field& f, std::uint64_t v);

/// The fields as one line of hex, separated by spaces.
std::string fields_hex(const std::vector<Field>& layout, std::span<const std::uint64_t> v);

/// Which candidates give `results` (and `flags`, when `has_flags`) for `operands`; their
/// group_text(), or "none of the N settings softmx models" when none.
std::string producers(const std::vector<Candidate>& cands, std::span<const std::uint64_t> operands,
                      std::span<const std::uint64_t> results, bool has_flags, Flags flags);

/// The report of one case that disagrees. `where` names the line ("results.txt line 12").
std::string case_report(const std::string& where, const LineLayout& l, std::span<const std::uint64_t> operands,
                        std::span<const std::uint64_t> got, bool has_flags, Flags got_flags,
                        std::span<const std::uint64_t> want, Flags want_flags, const std::vector<Candidate>* cands);

/// For mma: the steps of the header's tensor-core model on one line's operands (its groups,
/// each term exactly as N*2^Q, the reference exponent, what the alignment cut kept, the group
/// sum and result), indented for case_report. Precondition: h.operation == mma.
std::string mma_trace_report(const Header& h, std::span<const std::uint64_t> operands);

/// The report of a mismatching range of a run table (decomposed at its first input).
std::string range_report(const LineLayout& l, const RangeMismatch& m, const std::vector<Candidate>* cands);

}  // namespace softmx::vec
