// tools/softmx/cmd_explain.cpp: `softmx explain`, the anatomy of one conversion.
//
//   softmx explain --to DST [options] VALUE           VALUE decimal or hex float, taken exactly
//   softmx explain --from SRC --to DST [options] HEX  HEX a raw code of SRC
//
// Prints the input's exact value and bit fields, the destination's two representable
// neighbours (codes and exact values), the distance to each in units of the last place, whether
// it is a tie, and the result under every rounding mode, both saturations and every dialect,
// each with its flags; and, for stochastic rounding, the exact probability of rounding away.
// Every line fits 100 columns (the table in parts), or with --wide the table is one.
#include <string>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/explain.hpp"
#include "softmx/explain_report.hpp"

namespace softmx::cli {

int cmd_explain(int argc, char** argv) {
  const Args a = parse_command("explain", argc, argv, 2);
  const ConversionOptions o = conversion_options(a, true);
  if (a.positionals.size() != 1)
    throw UsageError("expected exactly one VALUE (a decimal, or a raw code with --from), got " +
                     std::to_string(a.positionals.size()));
  const Format& dst = format(o.to);
  const ExplainInput in = o.from ? explain_input_code(*o.from, parse_code(format(*o.from), a.positionals[0], "VALUE"))
                                 : explain_input_text(a.positionals[0]);
  // The report and its text are the library's (softmx/explain_report.hpp), shared with Python.
  Output out;
  // --wide: one table, a column per dialect; by default every line fits 100 columns.
  out.text() += explain_report_text(explain_conversion(in, dst, o.ctx, *o.dialect),
                                    a.has_switch("wide") ? 0 : kExplainTextWidth);
  out.commit();
  return 0;
}

}  // namespace softmx::cli
