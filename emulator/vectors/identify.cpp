// emulator/vectors/identify.cpp: see identify.hpp.
#include "softmx/vectors/identify.hpp"

#include <algorithm>
#include <optional>

#include "softmx/error.hpp"

namespace softmx::vec {

bool Identification::agrees() const {
  const CandidateScore& s = scores[best()];
  return s.exact && s.agree == s.total;
}

bool Identification::all_exact() const {
  return std::all_of(scores.begin(), scores.end(), [](const CandidateScore& x) { return x.exact; });
}

int setting_distance(const Header& h, const Header& c) {
  return (h.dialect != c.dialect) + (h.ctx.rounding != c.ctx.rounding) + (h.ctx.saturation != c.ctx.saturation) +
         (h.ctx.tininess != c.ctx.tininess) + (h.scale != c.scale) + (h.accumulation != c.accumulation);
}

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
  std::string s = digits.substr(0, digits.size() - static_cast<std::size_t>(d)) + "." +
                  digits.substr(digits.size() - static_cast<std::size_t>(d));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "%";
}

namespace {

/// Every candidate on every line of a cases file, in one pass.
void score_cases(VectorReader& reader, const IdentifyOptions& o, Identification& id) {
  const Header& h = id.header;
  const LineLayout& l = id.layout;
  std::optional<Evaluator> header_eval;
  std::optional<CompletenessChecker> checker;
  try {
    header_eval.emplace(h);
    checker.emplace(*header_eval);
  } catch (const InputError& e) {
    // The header's own settings are not computable (a dialect without the operation): no
    // generator wrote this file, and other settings can still be scored.
    id.completeness.notes.push_back(std::string("completeness not checked: ") + e.what());
  }
  Record r;
  std::vector<std::uint64_t> got;
  bool first = true;
  while (reader.next(r)) {
    if (r.results.empty())
      throw InputError(reader.name(), reader.line(), "no results on this line (identify needs " + l.columns() + ")");
    if (checker) checker->add(reader.line(), r.operands);
    if (first) {
      id.candidates = make_candidates(h, r.has_flags);
      id.scores.resize(id.candidates.size());
      got.resize(l.results.size());
      first = false;
    }
    ++id.lines;
    id.with_flags += r.has_flags;
    for (std::size_t i = 0; i < id.candidates.size(); ++i) {
      CandidateScore& s = id.scores[i];
      // A setting with no result for these operands (gfloat: NaN into FP4) disagrees.
      const auto f = id.candidates[i].eval->try_evaluate(r.operands, got);
      if (f && got == r.results && (!r.has_flags || *f == r.flags)) {
        ++s.agree;
      } else if (f && s.cases.size() < o.max_errors) {
        s.cases.push_back(Disagreement{reader.where(), reader.file_line(), r, got, *f});
      }
    }
  }
  if (id.lines == 0) throw InputError(reader.name(), 0, "no data lines");
  for (auto& s : id.scores) s.total = id.lines;
  if (checker) id.completeness = checker->finish();
}

/// Samples of every run for every candidate, then the best on every input.
void score_runs(VectorReader& reader, const std::function<std::unique_ptr<VectorReader>()>& open,
                const IdentifyOptions& o, Identification& id) {
  id.completeness = runs_completeness(id.header);
  Run run;
  std::vector<std::uint64_t> got(1);
  bool first = true;
  std::uint64_t inputs = 0;
  while (reader.next_run(run)) {
    if (first) {
      id.candidates = make_candidates(id.header, run.has_flags);
      id.scores.resize(id.candidates.size());
      first = false;
    }
    inputs += run.last - run.first + 1;
    id.with_flags += run.has_flags;
    const std::uint64_t pts[3] = {run.first, run.first + (run.last - run.first) / 2, run.last};
    const std::size_t npts = run.last == run.first ? 1 : run.last - run.first == 1 ? 2 : 3;
    for (std::size_t p = 0; p < npts; ++p) {
      const std::uint64_t x = p == 1 && npts == 2 ? run.last : pts[p];
      ++id.lines;
      const std::uint64_t op[1] = {x};
      for (std::size_t i = 0; i < id.candidates.size(); ++i) {
        const Flags f = id.candidates[i].eval->evaluate(op, got);
        if (got[0] == run.code && (!run.has_flags || f == run.flags)) ++id.scores[i].agree;
      }
    }
  }
  for (auto& s : id.scores) s.total = id.lines, s.exact = false;
  // The best groups (or every candidate for a small table) on every input.
  std::vector<std::size_t> order(id.candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return id.scores[x].agree > id.scores[y].agree; });
  const bool small = inputs <= (std::uint64_t{1} << 20);
  std::vector<std::uint64_t> checked_scores;
  for (std::size_t idx : order) {
    if (!small) {
      // One representative per distinct sampled score, for the best exact_groups scores.
      if (std::find(checked_scores.begin(), checked_scores.end(), id.scores[idx].agree) != checked_scores.end()) continue;
      if (checked_scores.size() >= o.exact_groups) break;
      checked_scores.push_back(id.scores[idx].agree);
    }
    auto rd = open();
    CandidateScore& s = id.scores[idx];
    const std::function<void(const RangeMismatch&)> keep = [&](const RangeMismatch& m) {
      ++s.ranges;
      if (s.runs.size() < o.max_errors) s.runs.push_back(m);
    };
    const RunCheckStats st = o.on_progress ? check_runs(*rd, id.candidates[idx].header, o.threads, keep, o.on_progress)
                                           : check_runs(*rd, id.candidates[idx].header, o.threads, keep, o.progress);
    s.exact = true;
    s.exact_disagree = st.result_mismatches + st.flags_only_mismatches;
    s.agree = st.inputs - s.exact_disagree;
    s.total = st.inputs;
  }
  // Unchecked candidates keep sampled scores; they rank after every checked one.
}

}  // namespace

Identification identify(const std::function<std::unique_ptr<VectorReader>()>& open, const IdentifyOptions& o) {
  auto reader = open();
  Identification id;
  id.header = reader->header();
  id.layout = reader->layout();
  id.runs = id.header.layout == Layout::runs;
  if (id.runs) score_runs(*reader, open, o, id);
  else score_cases(*reader, o, id);

  // Rank: exact scores first, by agreement; ties broken by nearness to the header.
  id.ranking.resize(id.candidates.size());
  for (std::size_t i = 0; i < id.ranking.size(); ++i) id.ranking[i] = i;
  const auto frac = [&](std::size_t i) {
    return static_cast<long double>(id.scores[i].agree) / static_cast<long double>(id.scores[i].total);
  };
  std::stable_sort(id.ranking.begin(), id.ranking.end(), [&](std::size_t x, std::size_t y) {
    if (id.scores[x].exact != id.scores[y].exact) return id.scores[x].exact;
    if (frac(x) != frac(y)) return frac(x) > frac(y);
    return setting_distance(id.header, id.candidates[x].header) < setting_distance(id.header, id.candidates[y].header);
  });
  return id;
}

}  // namespace softmx::vec
