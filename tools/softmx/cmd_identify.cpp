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
// Cases are scored exactly for every setting in one streaming pass. A run table is scored
// first on samples (the first, middle and last input of every run, all settings), then the
// --exact N best groups are checked on every input (N = 3; every candidate when the table
// covers at most 2^20 inputs). A cases file must also be complete, as for verify
// (vectors/README.md 8): a file with a case missing, extra, duplicated or out of order is not
// identified. Exit status: 0 when the best setting agrees everywhere and the file is
// complete, 1 otherwise, 2 on bad input.
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
#include "commands.hpp"
#include "softmx/error.hpp"
#include "softmx/block.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::cli {
namespace {

// A case a candidate disagrees on, kept for the report.
struct Disagreement {
  std::string where;
  vec::Record rec;
  std::vector<std::uint64_t> want;
  Flags want_flags = 0;
};

struct Score {
  std::uint64_t agree = 0;
  std::uint64_t total = 0;
  bool exact = true;                      // runs: false while only sampled
  std::uint64_t exact_disagree = 0;       // runs, once checked exactly: inputs that differ
  std::uint64_t ranges = 0;               // runs: mismatching ranges
  std::vector<Disagreement> cases;        // the first few disagreements (cases)
  std::vector<vec::RangeMismatch> runs;   // the first few (runs)
};

// The number of header settings a candidate changes (to prefer the nearest among equals).
int distance(const vec::Header& h, const vec::Header& c) {
  return (h.dialect != c.dialect) + (h.ctx.rounding != c.ctx.rounding) + (h.ctx.saturation != c.ctx.saturation) +
         (h.ctx.tininess != c.ctx.tininess) + (h.scale != c.scale) + (h.accumulation != c.accumulation);
}

/// 100 a / n percent, rounded down, with as many decimals (at least 2, trailing zeros dropped)
/// as it takes to show that a < n is below 100% and a > 0 above 0%: 65535/65536 is "99.99%",
/// never "100%"; only a == n is.
std::string percent(std::uint64_t a, std::uint64_t n) {
  if (n == 0) return "0%";
  if (a >= n) return "100%";
  __extension__ using u128 = unsigned __int128;
  u128 scale = 100;  // 10^d
  int d = 2;
  u128 q = static_cast<u128>(a) * 100 * scale / n;  // floor(100 a / n * 10^d)
  while (q == 0 && a > 0 && d < 22) {
    ++d;
    scale *= 10;
    q = static_cast<u128>(a) * 100 * scale / n;
  }
  std::string digits;
  for (u128 x = q; x; x /= 10) digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  if (digits.size() <= static_cast<std::size_t>(d)) digits.insert(0, static_cast<std::size_t>(d) + 1 - digits.size(), '0');
  std::string s = digits.substr(0, digits.size() - static_cast<std::size_t>(d)) + "." + digits.substr(digits.size() - static_cast<std::size_t>(d));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "%";
}

}  // namespace

int cmd_identify(int argc, char** argv) {
  const Args a = parse_args("identify", argc, argv, 2, {"top", "exact", "max-errors", "threads"});
  if (a.positionals.size() != 1) throw UsageError("expected one RESULTS file (device results or a run table; '-' for stdin)");
  const std::size_t top = parse_count(a, "top", 5, 1000);
  const std::size_t exact_n = a.get("exact") ? parse_count(a, "exact", 3, 100000) : 3;
  const std::size_t max_errors = parse_count(a, "max-errors", 10, 100000);
  const unsigned threads = parse_threads(a, vec::default_threads());

  // A run table is read more than once: keep standard input in memory.
  std::string path = a.positionals[0];
  std::string stdin_copy;
  auto open = [&]() {
    return path == "-" ? vec::VectorReader::from_string(stdin_copy, "<stdin>") : vec::VectorReader::open(path);
  };
  if (path == "-") {
    std::ostringstream o;
    o << std::cin.rdbuf();
    stdin_copy = o.str();
  }

  auto reader = open();
  const vec::Header h = reader->header();
  const vec::LineLayout l = reader->layout();
  const bool runs = h.layout == vec::Layout::runs;

  // Candidates: flags given decides whether tininess is varied; peek at the first line.
  std::vector<vec::Candidate> cands;
  std::vector<Score> score;
  std::uint64_t total = 0, with_flags = 0;
  // Completeness is a property of the file, not of a setting: judged under the header.
  vec::Completeness completeness;

  if (!runs) {
    std::optional<vec::Evaluator> header_eval;
    std::optional<vec::CompletenessChecker> checker;
    try {
      header_eval.emplace(h);
      checker.emplace(*header_eval);
    } catch (const InputError& e) {
      // The header's own settings are not computable (a dialect without the operation): no
      // generator wrote this file, and other settings can still be scored.
      completeness.notes.push_back(std::string("completeness not checked: ") + e.what());
    }
    vec::Record r;
    std::vector<std::uint64_t> got;
    bool first = true;
    while (reader->next(r)) {
      if (r.results.empty())
        throw UsageError(reader->where() + ": no results on this line (identify needs " + l.columns() + ")");
      if (checker) checker->add(reader->line(), r.operands);
      if (first) {
        cands = vec::make_candidates(h, r.has_flags);
        score.resize(cands.size());
        got.resize(l.results.size());
        first = false;
      }
      ++total;
      with_flags += r.has_flags;
      for (std::size_t i = 0; i < cands.size(); ++i) {
        // A setting with no result for these operands (gfloat: NaN into FP4) disagrees.
        const auto f = cands[i].eval->try_evaluate(r.operands, got);
        if (f && got == r.results && (!r.has_flags || *f == r.flags)) {
          ++score[i].agree;
        } else if (f && score[i].cases.size() < max_errors) {
          score[i].cases.push_back(Disagreement{reader->where(), r, got, *f});
        }
      }
    }
    if (total == 0) throw UsageError(reader->name() + ": no data lines");
    for (auto& s : score) s.total = total;
    if (checker) completeness = checker->finish();
  } else {
    completeness = vec::runs_completeness(h);
    // Stage 1: samples of every run.
    vec::Run run;
    std::vector<std::uint64_t> got(1);
    bool first = true;
    std::uint64_t inputs = 0;
    while (reader->next_run(run)) {
      if (first) {
        cands = vec::make_candidates(h, run.has_flags);
        score.resize(cands.size());
        first = false;
      }
      inputs += run.last - run.first + 1;
      with_flags += run.has_flags;
      const std::uint64_t pts[3] = {run.first, run.first + (run.last - run.first) / 2, run.last};
      const std::size_t npts = run.last == run.first ? 1 : run.last - run.first == 1 ? 2 : 3;
      for (std::size_t p = 0; p < npts; ++p) {
        const std::uint64_t x = p == 1 && npts == 2 ? run.last : pts[p];
        ++total;
        const std::uint64_t op[1] = {x};
        for (std::size_t i = 0; i < cands.size(); ++i) {
          const Flags f = cands[i].eval->evaluate(op, got);
          if (got[0] == run.code && (!run.has_flags || f == run.flags)) ++score[i].agree;
        }
      }
    }
    for (auto& s : score) s.total = total, s.exact = false;
    // Stage 2: the best groups (or every candidate for a small table) on every input.
    std::vector<std::size_t> order(cands.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return score[x].agree > score[y].agree; });
    const bool small = inputs <= (std::uint64_t{1} << 20);
    std::vector<std::uint64_t> checked_scores;
    for (std::size_t idx : order) {
      if (!small) {
        // One representative per distinct sampled score, for the best exact_n scores.
        if (std::find(checked_scores.begin(), checked_scores.end(), score[idx].agree) != checked_scores.end()) continue;
        if (checked_scores.size() >= exact_n) break;
        checked_scores.push_back(score[idx].agree);
      }
      auto rd = open();
      Score& s = score[idx];
      const vec::RunCheckStats st = vec::check_runs(
          *rd, cands[idx].header, threads,
          [&](const vec::RangeMismatch& m) {
            ++s.ranges;
            if (s.runs.size() < max_errors) s.runs.push_back(m);
          },
          true);
      s.exact = true;
      s.exact_disagree = st.result_mismatches + st.flags_only_mismatches;
      s.agree = st.inputs - s.exact_disagree;
      s.total = st.inputs;
    }
    // Unchecked candidates keep sampled scores; they rank after every checked one.
  }

  // Rank: exact scores first, by agreement; ties broken by nearness to the header.
  std::vector<std::size_t> order(cands.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto frac = [&](std::size_t i) { return static_cast<long double>(score[i].agree) / static_cast<long double>(score[i].total); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    if (score[x].exact != score[y].exact) return score[x].exact;
    if (frac(x) != frac(y)) return frac(x) > frac(y);
    return distance(h, cands[x].header) < distance(h, cands[y].header);
  });

  Output out;
  std::string& t = out.text();
  t += "identify: " + reader->name() + ": " + vec::describe(h) + " (the header's settings)\n";
  const bool all_exact = std::all_of(score.begin(), score.end(), [](const Score& x) { return x.exact; });
  if (runs && all_exact)
    t += "  " + std::to_string(score[order[0]].total) + " inputs; " + std::to_string(cands.size()) +
         " settings checked on every input";
  else if (runs)
    t += "  " + std::to_string(score[order[0]].total) + " inputs; " + std::to_string(cands.size()) +
         " settings sampled at the first, middle and last input of every run, the best checked on every input";
  else
    t += "  " + std::to_string(total) + " cases; " + std::to_string(cands.size()) + " settings scored on every case";
  t += with_flags ? "; flags compared\n" : "; no flags given: results compared\n";
  t += "  " + vec::completeness_text(completeness, l);
  for (const std::string& note : completeness.notes) std::fprintf(stderr, "identify: %s: %s\n", reader->name().c_str(), note.c_str());
  const bool complete = completeness.complete();
  t += "\n  rank  agreement                        settings\n";
  std::size_t rank = 0;
  for (std::size_t i = 0; i < order.size() && rank < top;) {
    const std::size_t j0 = i;
    std::vector<std::size_t> same;
    while (i < order.size() && score[order[i]].exact == score[order[j0]].exact && score[order[i]].agree == score[order[j0]].agree &&
           score[order[i]].total == score[order[j0]].total)
      same.push_back(order[i++]);
    ++rank;
    const Score& s = score[order[j0]];
    std::string agreement = std::to_string(s.agree) + "/" + std::to_string(s.total) + " (" + percent(s.agree, s.total) + ")";
    if (runs && !s.exact) agreement += " sampled";
    char head[64];
    std::snprintf(head, sizeof head, "  %-5zu %-32s ", rank, agreement.c_str());
    t += head + vec::group_text(cands, same) + "\n";
  }

  const std::size_t best = order[0];
  const Score& bs = score[best];
  const vec::Header& bh = cands[best].header;
  const bool agrees = bs.exact && bs.agree == bs.total;
  const bool perfect = agrees && complete;
  t += "\nbest: " + std::string(name(bh.ctx.rounding)) + " " + std::string(name(bh.ctx.saturation));
  if (h.operation != vec::Operation::dot) t += ", dialect " + bh.dialect;
  if (h.operation == vec::Operation::quantize) t += ", scale " + std::string(softmx::name(bh.scale));
  if (h.operation == vec::Operation::dot) t += ", accumulation " + bh.accumulation;
  t += perfect  ? ": agrees on every " + std::string(runs ? "input" : "case")
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
  return perfect ? 0 : 1;
}

}  // namespace softmx::cli
