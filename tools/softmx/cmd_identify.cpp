// tools/softmx/cmd_identify.cpp: `softmx identify`, which implementation does a device match?
//
//   softmx identify [--top N] [--exact N] [--max-errors N] [--threads N] RESULTS
//
// RESULTS is a vector file with a device's results (cases) or a run table. Every setting
// softmx models for the file's operation (each dialect x rounding x saturation, x scale rule
// for quantize, x accumulation model for dot, x tininess when flags are given) is scored by
// how many cases (inputs) it agrees on; the best --top N scores are listed with the settings
// that reach them, then the best setting (the one nearest the file's header among those with
// the top score) is named with how it differs from the header (and, for another dialect,
// which of its policies differ), and what it still disagrees on is printed as verify does.
//
// The scoring and ranking are the library's (softmx/vectors/identify.hpp); this file prints them.
// Cases are scored exactly for every setting in one streaming pass. A run table is scored
// first on samples (the first, middle and last input of every run, all settings), then the
// --exact N best groups are checked on every input (N = 3; every candidate when the table
// covers at most 2^20 inputs). A cases file must also be complete, as for verify
// (vectors/README.md 8): a file with a case missing, extra, duplicated or out of order is not
// identified. Exit status: 0 when the best setting agrees everywhere and the file is
// proven complete (or unproven and --accept-unproven), 1 when the best disagrees or the file is
// incomplete, 3 when the best agrees but completeness is unproven, 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/error.hpp"
#include "softmx/block.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::cli {

int cmd_identify(int argc, char** argv) {
  const Args a = parse_command("identify", argc, argv, 2);
  if (a.positionals.size() != 1) throw UsageError("expected one RESULTS file (device results or a run table; '-' for stdin)");
  const std::size_t top = parse_count(a, "top", 5, 1000);
  vec::IdentifyOptions o;
  o.exact_groups = a.get("exact") ? parse_count(a, "exact", 3, 100000) : 3;
  o.max_errors = parse_count(a, "max-errors", 10, 100000);
  o.threads = parse_threads(a, vec::default_threads());

  // A run table is read more than once: keep standard input in memory.
  const std::string path = a.positionals[0];
  std::string stdin_copy;
  if (path == "-") {
    // Under the reader's line limits, so that a line without end (/dev/zero) fails at once
    // instead of filling memory.
    stdin_copy = vec::read_vector_text(std::cin, "<stdin>");
  }
  const vec::Identification id = vec::identify(
      [&]() { return path == "-" ? vec::VectorReader::from_string(stdin_copy, "<stdin>") : vec::VectorReader::open(path); },
      o);
  const vec::Header& h = id.header;
  const vec::LineLayout& l = id.layout;
  const bool runs = id.runs;
  const auto& cands = id.candidates;
  const auto& score = id.scores;
  const auto& order = id.ranking;
  const std::string name = path == "-" ? std::string("<stdin>") : path;

  Output out;
  std::string& t = out.text();
  t += "identify: " + shown_name(name) + ": " + vec::describe(h) + " (the header's settings)\n";
  if (runs && id.all_exact())
    t += "  " + std::to_string(score[order[0]].total) + " inputs; " + std::to_string(cands.size()) +
         " settings checked on every input";
  else if (runs)
    t += "  " + std::to_string(score[order[0]].total) + " inputs; " + std::to_string(cands.size()) +
         " settings sampled at the first, middle and last input of every run, the best checked on every input";
  else
    t += "  " + std::to_string(id.lines) + " cases; " + std::to_string(cands.size()) + " settings scored on every case";
  t += id.with_flags ? "; flags compared\n" : "; no flags given: results compared\n";
  t += "  " + vec::completeness_text(id.completeness, l);
  for (const std::string& note : id.completeness.notes)
    std::fprintf(stderr, "identify: %s: %s\n", shown_name(name).c_str(), safe_message(note).c_str());
  t += "\n  rank  agreement                        settings\n";
  std::size_t rank = 0;
  for (std::size_t i = 0; i < order.size() && rank < top;) {
    const std::size_t j0 = i;
    std::vector<std::size_t> same;
    while (i < order.size() && score[order[i]].exact == score[order[j0]].exact && score[order[i]].agree == score[order[j0]].agree &&
           score[order[i]].total == score[order[j0]].total)
      same.push_back(order[i++]);
    ++rank;
    const vec::CandidateScore& s = score[order[j0]];
    std::string agreement = std::to_string(s.agree) + "/" + std::to_string(s.total) + " (" + vec::percent(s.agree, s.total) + ")";
    if (runs && !s.exact) agreement += " sampled";
    char head[64];
    std::snprintf(head, sizeof head, "  %-5zu %-32s ", rank, agreement.c_str());
    t += head + vec::group_text(cands, same) + "\n";
  }

  const vec::CandidateScore& bs = score[id.best()];
  const vec::Header& bh = cands[id.best()].header;
  const bool agrees = id.agrees();
  const bool unproven = agrees && id.completeness.status() == vec::CompletenessStatus::unproven;
  const bool accepted = unproven && a.has_switch("accept-unproven");
  const bool perfect = id.identified() || accepted;
  t += "\nbest: " + std::string(softmx::name(bh.ctx.rounding)) + " " + std::string(softmx::name(bh.ctx.saturation));
  if (h.operation != vec::Operation::dot) t += ", dialect " + bh.dialect;
  if (h.operation == vec::Operation::quantize) t += ", scale " + std::string(softmx::name(bh.scale));
  if (h.operation == vec::Operation::dot) t += ", accumulation " + bh.accumulation;
  t += id.identified() ? ": agrees on every " + std::string(runs ? "input" : "case")
       : accepted ? ": agrees on every case; completeness UNPROVEN (above), accepted by --accept-unproven"
       : unproven ? ": agrees on every case present, but completeness is UNPROVEN (above): not identified (exit status 3; "
                    "--accept-unproven takes it)"
       : agrees ? ": agrees on the " + std::to_string(bs.total) + " cases present, but the file is INCOMPLETE (above): not identified"
                : ": disagrees on " + std::to_string(bs.total - bs.agree) + " of " + std::to_string(bs.total) +
                      (runs ? " inputs" : " cases");
  t += "\n";
  const std::string diff = vec::differences(h, bh);
  t += diff.empty() ? "  the header's own settings\n" : "  differs from the header: " + diff + "\n";
  if (bh.dialect != h.dialect) {
    const auto pol = vec::policy_differences(h.dialect_ref(), bh.dialect_ref(), h);
    if (!pol.empty()) {
      t += "  " + bh.dialect + "'s policies that differ from " + h.dialect + "'s here:";
      for (const auto& p : pol) t += "\n    " + p;
      t += "\n";
    }
  }
  if (!agrees) {
    t += "\nwhat the best setting still disagrees on:\n";
    if (runs) {
      for (const auto& m : bs.runs) t += vec::range_report(l, m, &cands);
      if (bs.ranges > bs.runs.size()) t += "(" + std::to_string(bs.ranges - bs.runs.size()) + " more ranges not shown; --max-errors)\n";
    } else {
      for (const auto& d : bs.cases)
        t += vec::case_report(d.where, l, d.rec.operands, d.rec.results, d.rec.has_flags, d.rec.flags, d.want, d.want_flags, &cands);
      const std::uint64_t n = bs.total - bs.agree;
      if (n > bs.cases.size()) t += "(" + std::to_string(n - bs.cases.size()) + " more not shown; --max-errors)\n";
    }
  }
  out.commit();
  return perfect ? 0 : unproven ? 3 : 1;
}

}  // namespace softmx::cli
