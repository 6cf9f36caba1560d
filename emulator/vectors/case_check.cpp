// emulator/vectors/case_check.cpp: see case_check.hpp.
#include "softmx/vectors/case_check.hpp"

#include <vector>

#include "softmx/error.hpp"
#include "softmx/text.hpp"

namespace softmx::vec {

CaseCheck check_cases(VectorReader& r, const Evaluator& ev, const std::function<void(const CaseMismatch&)>& on_mismatch,
                      const Evaluator* cases_ev, const CaseObserver& on_case) {
  const LineLayout& l = r.layout();
  CaseCheck st;
  CompletenessChecker completeness(cases_ev ? *cases_ev : ev);
  Record rec;
  std::vector<std::uint64_t> want(l.results.size());
  while (r.next(rec)) {
    if (rec.results.empty())
      throw InputError(r.where() + ": no results on this line (expected " + l.columns() +
                            ": the device's results after the operands; FLAGS may be left off)");
    ++st.cases;
    completeness.add(r.line(), rec.operands);
    const auto wf = ev.try_evaluate(rec.operands, want);
    if (!wf)
      throw InputError(r.where() + ": softmx has no result for these operands under " + describe(ev.header()) +
                            " (the dialect refuses them; see softmx dialects)");
    st.flags_compared += rec.has_flags;
    const bool res_bad = rec.results != want;
    const bool flags_bad = rec.has_flags && rec.flags != *wf;
    if (on_case) on_case(rec.operands, rec.results, rec.has_flags, rec.flags, want, *wf);
    if (!res_bad && !flags_bad) continue;
    ++(res_bad ? st.result_mismatches : st.flags_only_mismatches);
    on_mismatch(CaseMismatch{r.where(), r.line(), rec.operands, rec.results, want, rec.has_flags, rec.flags, *wf, res_bad});
  }
  if (st.cases == 0) throw InputError(shown_name(r.name()) + ": no data lines (expected " + l.columns() + " lines after the header)");
  st.completeness = completeness.finish();
  return st;
}

}  // namespace softmx::vec
