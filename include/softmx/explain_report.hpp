// softmx/explain_report.hpp: the whole explanation of one conversion, as data and as the text
// `softmx explain` prints (the CLI and the Python module's softmx.explain both call this, so
// their text is the same bytes).
//
// The report holds the input block and the neighbours (softmx/explain.hpp), the result under the
// options given, and the table of results under every deterministic rounding mode x both
// saturations x every dialect (a cell is n/a where the dialect does not take the combination or
// cannot read the source), and, when the input is inexact in the destination, what stochastic
// rounding with the given number of random bits does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/exact.hpp"
#include "softmx/explain.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// One cell of the results table: a dialect's result, or none (n/a).
struct ExplainCell {
  const Dialect* dialect = nullptr;
  std::optional<Result> result;  ///< nullopt: the dialect does not take this conversion (n/a)
};

/// One row of the results table: a rounding mode and a saturation, every dialect.
struct ExplainRow {
  Rounding rounding = Rounding::rne;
  Saturation saturation = Saturation::finite;
  bool given = false;  ///< the rounding and saturation of the options given (`*` in the text)
  std::vector<ExplainCell> cells;  ///< one per dialect, in all_dialects() order
};

/// What stochastic rounding with `rbits` random bits does with an inexact input: F is the first
/// rbits discarded bits of the magnitude (floor(f * 2^rbits), f the discarded fraction in ulps);
/// it rounds away from zero iff R >= 2^rbits - F, with probability F / 2^rbits.
struct ExplainStochastic {
  unsigned rbits = 0;
  BigInt first_bits;     ///< F
  Rational probability;  ///< F / 2^rbits, exact
};

struct ExplainReport {
  ExplainInput input;
  Format to;
  Context ctx;              ///< the options given (rounding and saturation resolved)
  const Dialect* dialect = nullptr;  ///< the dialect given
  Neighbours neighbours;
  /// The result under ctx and dialect; nullopt where the dialect does not take it (then
  /// `unsupported` says why).
  std::optional<Result> result;
  std::string unsupported;
  /// Why `result` is what it is (rounding_reason), empty when there is no result.
  std::string reason;
  std::vector<ExplainRow> rows;     ///< kDeterministicRoundings x {finite, none}
  std::vector<std::string> notes;   ///< why cells are n/a, one sentence each, no duplicates
  std::optional<ExplainStochastic> stochastic;  ///< when the input is inexact (frac_ulps set)
};

/// Explains converting `in` into `dst` under `ctx` (its rounding and saturation already
/// resolved: not Saturation::by_destination) and `dialect`. Never throws for a dialect that does
/// not take the conversion (its cells are n/a).
ExplainReport explain_conversion(const ExplainInput& in, const Format& dst, const Context& ctx, const Dialect& dialect);

/// The width the text of explain_report_text fits by default (`softmx explain`; --wide: 0).
inline constexpr unsigned kExplainTextWidth = 100;

/// The text `softmx explain` prints for `r`, ending in '\n'. With `width` 0 (`softmx explain
/// --wide`) the results table is one table, a column per dialect, and every sentence one line.
/// Otherwise every line fits `width` columns (but a number longer than the width, which is never
/// cut): the dialects whose every cell is n/a are named on one line instead of given columns,
/// the others are split into tables of as many columns as fit, each under its own header, and
/// longer sentences wrap under their label. The results are the same either way.
std::string explain_report_text(const ExplainReport& r, unsigned width = kExplainTextWidth);

}  // namespace softmx
