// emulator/vectors/completeness.cpp: see completeness.hpp.
#include "softmx/vectors/completeness.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "core/enum_names.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/report.hpp"

namespace softmx::vec {
namespace {

using u64 = std::uint64_t;

/// Thrown by a case sink to stop the generator once enough cases were seen.
struct StopGeneration {};

/// Thrown when the generator's cases do not have the header's operand columns (a header gen
/// cannot write): the list cannot be regenerated.
struct NotRegenerable {};

/// How the expected cases are regenerated from a header.
struct Plan {
  GenOptions options;
  std::optional<u64> limit;  // stop after this many cases (level 2: the random part is unbounded)
  bool open = false;         // level 2 without `cases`: as many as the file holds
  std::string source;
};

std::string level_source(const Header& h, const GenOptions& o) {
  std::string s = "level " + std::to_string(o.level);
  if (exhaustive(h)) s += " (every case)";
  if (h.seed) s += ", seed " + std::to_string(*h.seed);
  return s + ", regenerated";
}

/// The regeneration plan for a file of `lines` cases, or nullopt (with a note saying why) when
/// the header does not say how its cases were chosen.
std::optional<Plan> regeneration_plan(const Header& h, u64 lines, std::vector<std::string>& notes) {
  if (h.level.empty()) return std::nullopt;
  // Every operation regenerates, block-scaled mma included: gen writes its scale probes and
  // scale draws (vectors/README.md 6), and the tensor-core capture program writes the same cases.
  const bool level2 = h.level == "2" && !exhaustive(h);
  const bool seed_matters = level2 || (h.operation == Operation::quantize && h.ctx.rounding == Rounding::rs);
  if (!h.seed && seed_matters) {
    notes.push_back("the header has level = " + h.level + " but no seed, which these cases depend on: they cannot be regenerated");
    return std::nullopt;
  }
  Plan p;
  p.options.level = level2 ? 2 : 1;
  p.options.seed = h.seed.value_or(1);  // level 1 does not depend on it (seed_matters is false)
  if (level2) {
    p.options.count = ~u64{0};  // unbounded: stopped at the limit
    if (h.cases) {
      // A header that claims far more cases than the file holds: the count alone decides, and
      // regenerating them all could take forever.
      if (*h.cases > lines + kMaxLocatedCases) {
        notes.push_back("the header's cases = " + std::to_string(*h.cases) + " is far beyond the file's " + std::to_string(lines) +
                        " cases: the expected cases were not regenerated");
        return std::nullopt;
      }
      p.limit = *h.cases;
    } else {
      p.limit = lines;
      p.open = true;
    }
  }
  p.source = level_source(h, p.options);
  return p;
}

/// Calls `f(case_number, operands)` for the expected cases of `p`, numbered from 1.
void expected_cases(const Evaluator& ev, const Plan& p, const std::function<void(u64, std::span<const u64>)>& f) {
  u64 i = 0;
  const std::size_t columns = ev.layout().operands.size();
  try {
    for_each_written_case(ev, p.options, [&](std::span<const u64> ops) {
      if (p.limit && i >= *p.limit) throw StopGeneration{};
      if (ops.size() != columns) throw NotRegenerable{};
      f(++i, ops);
    });
  } catch (const StopGeneration&) {
  }
}

/// The operands of the expected cases `wanted` (numbers from 1; 0 entries ignored).
std::vector<std::vector<u64>> fetch_cases(const Evaluator& ev, Plan p, const std::vector<u64>& wanted) {
  std::vector<std::vector<u64>> out(wanted.size());
  const u64 last = wanted.empty() ? 0 : *std::max_element(wanted.begin(), wanted.end());
  if (last == 0) return out;
  p.limit = p.limit ? std::min(*p.limit, last) : last;
  expected_cases(ev, p, [&](u64 i, std::span<const u64> ops) {
    for (std::size_t k = 0; k < wanted.size(); ++k)
      if (wanted[k] == i) out[k].assign(ops.begin(), ops.end());
  });
  return out;
}

/// The length of the longest strictly increasing subsequence of `s` (patience sorting).
u64 longest_increasing(const std::vector<u64>& s) {
  std::vector<u64> tails;
  for (u64 x : s) {
    auto it = std::lower_bound(tails.begin(), tails.end(), x);
    if (it == tails.end()) tails.push_back(x);
    else *it = x;
  }
  return tails.size();
}

std::string plural(u64 n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string json_count(bool known, u64 v) { return known ? std::to_string(v) : "null"; }

std::string json_finding(const std::optional<CaseFinding>& f, const LineLayout& l, const char* other_line_key) {
  if (!f) return "null";
  std::string s = "{";
  auto field = [&](const std::string& k, const std::string& v) {
    if (s.size() > 1) s += ", ";
    s += "\"" + k + "\": " + v;
  };
  if (f->line) field("line", std::to_string(f->line));
  if (f->case_number) field("case", std::to_string(f->case_number));
  if (!f->operands.empty()) field("operands", "\"" + fields_hex(l.operands, f->operands) + "\"");
  if (f->other_case) field("after_case", std::to_string(f->other_case));
  if (other_line_key) field(other_line_key, f->other_line ? std::to_string(f->other_line) : "null");
  return s + "}";
}

}  // namespace

namespace {
constexpr softmx::detail::EnumName<CompletenessBasis> kCompletenessBasis[] = {
    {CompletenessBasis::regenerated, "regenerated"}, {CompletenessBasis::regenerated_open, "regenerated-open"},
    {CompletenessBasis::header, "header"},           {CompletenessBasis::runs, "runs"},
    {CompletenessBasis::none, "none"}};
constexpr softmx::detail::EnumName<CompletenessStatus> kCompletenessStatus[] = {
    {CompletenessStatus::complete, "complete"},
    {CompletenessStatus::incomplete, "incomplete"},
    {CompletenessStatus::unproven, "unproven"}};
}  // namespace

// The tables' spellings are string literals, so data() is NUL-terminated.
const char* name(CompletenessBasis b) { return softmx::detail::enum_name(b, kCompletenessBasis).data(); }
const char* name(CompletenessStatus s) { return softmx::detail::enum_name(s, kCompletenessStatus).data(); }

bool Completeness::differs() const {
  if (expected && present != *expected) return true;
  if (!expected_sha256.empty() && sha256 != expected_sha256) return true;
  if (header_differs) return true;
  if (pinned_cases && present != *pinned_cases) return true;
  return missing != 0 || extra != 0 || duplicated != 0 || out_of_order != 0;
}

void Completeness::pin_cases(std::uint64_t n) {
  pinned_cases = n;
  if (present != n)
    notes.push_back("the file holds " + plural(present, "case", "cases") + ", not the " + std::to_string(n) +
                    " that --expect-cases requires");
}

CompletenessChecker::CompletenessChecker(const Evaluator& ev) : ev_(ev), digest_(ev.layout()) {}

void CompletenessChecker::add(std::uint64_t line, std::span<const std::uint64_t> operands) {
  digest_.add(operands);
  ++count_;
  if (!located_) return;
  if (count_ > kMaxLocatedCases) {
    located_ = false;
    fingerprint_ = {};
    line_ = {};
    return;
  }
  fingerprint_.push_back(operand_fingerprint(operands));
  line_.push_back(line);
}

Completeness CompletenessChecker::finish() {
  const Header& h = ev_.header();
  Completeness c;
  c.present = count_;
  c.sha256 = digest_.hex();

  const std::optional<Plan> plan = regeneration_plan(h, count_, c.notes);
  if (plan) {
    const u64 m = count_;
    // Pairing. While the file follows the list, expected case i pairs with line i (lockstep, no
    // index: the common case costs nothing). At the first difference an index is built: lines
    // sorted by (fingerprint, line), so that the lines of one operand list form a group in file
    // order, and the k-th expected case with those operands pairs with the group's k-th line.
    // The lockstep pairs are each group's first lines, so the two rules agree.
    std::vector<u64> order, paired, used;  // used: per group start, lines paired so far
    std::vector<std::uint8_t> expected_group;
    std::vector<u64> sorted_fp;            // fingerprint_[order[k]], contiguous for the search
    bool indexed = false;
    u64 lockstep = 0;                      // lines paired in lockstep (lines 0 .. lockstep-1)
    if (located_) paired.assign(m, 0);
    auto build_index = [&] {
      order.resize(m);
      std::iota(order.begin(), order.end(), u64{0});
      std::sort(order.begin(), order.end(),
                [&](u64 a, u64 b) { return fingerprint_[a] != fingerprint_[b] ? fingerprint_[a] < fingerprint_[b] : a < b; });
      sorted_fp.resize(m);
      for (u64 k = 0; k < m; ++k) sorted_fp[k] = fingerprint_[order[k]];
      used.assign(m, 0);
      expected_group.assign(m, 0);
      for (u64 k = 0; k < m;) {  // each group: its lines paired in lockstep come first
        u64 e = k;
        while (e < m && sorted_fp[e] == sorted_fp[k]) ++e;
        while (k + used[k] < e && order[k + used[k]] < lockstep) ++used[k];
        expected_group[k] = used[k] > 0;
        k = e;
      }
      indexed = true;
    };
    auto group_of = [&](u64 fp) -> u64 {
      return static_cast<u64>(std::lower_bound(sorted_fp.begin(), sorted_fp.end(), fp) - sorted_fp.begin());
    };
    InputDigest expected(ev_.layout());
    u64 last_present_line = 0, max_paired = 0, missing_confirmed = 0, missing_pending = 0;
    std::optional<CaseFinding> first_missing;
    auto pair = [&](u64 pos, u64 i) {
      paired[pos] = i;
      last_present_line = line_[pos];
      max_paired = i;
      missing_confirmed += missing_pending;
      missing_pending = 0;
    };
    bool regenerable = true;
    try {
      expected_cases(ev_, *plan, [&](u64 i, std::span<const u64> ops) {
        expected.add(ops);
        if (!located_) return;
        const u64 fp = operand_fingerprint(ops);
        if (!indexed) {
          if (lockstep < m && fingerprint_[lockstep] == fp) {
            pair(lockstep++, i);
            return;
          }
          build_index();
        }
        const u64 g = group_of(fp);
        if (g < m && sorted_fp[g] == fp) {
          expected_group[g] = 1;
          const u64 k = g + used[g];
          if (k < m && sorted_fp[k] == fp) {
            ++used[g];
            pair(order[k], i);
            return;
          }
        }
        ++missing_pending;
        if (!first_missing) first_missing = CaseFinding{0, i, last_present_line, 0, std::vector<u64>(ops.begin(), ops.end())};
      });
    } catch (const NotRegenerable&) {
      regenerable = false;
      c.notes.push_back("softmx gen's cases for this header do not have its operand columns: level and seed cannot be "
                        "regenerated");
    }
    const u64 n = expected.count();
    const std::string expected_sha = expected.hex();
    // The regenerated list is the truth. The header's own record must be that list's: if not,
    // the header was edited (to match a cut or reordered file, say) or another generator wrote
    // the file, and the file fails, whatever its lines hold.
    const bool count_disagrees = h.cases && *h.cases != n;
    const bool digest_disagrees = !h.inputs_sha256.empty() && h.inputs_sha256 != expected_sha;
    if (!regenerable) {
      // The header's record alone, below.
    } else {
      if (count_disagrees || digest_disagrees) {
        c.header_differs = true;
        c.notes.push_back("the header's " +
                          std::string(count_disagrees && digest_disagrees ? "cases and inputs-sha256 are"
                                      : count_disagrees                   ? "cases is"
                                                                          : "inputs-sha256 is") +
                          " not the regenerated list's (" + plan->source.substr(0, plan->source.find(", regenerated")) +
                          " gives " + plural(n, "case", "cases") + " with inputs-sha256 " + expected_sha + "; the header says " +
                          (h.cases ? std::to_string(*h.cases) : std::string("(no cases)")) + " and " +
                          (h.inputs_sha256.empty() ? std::string("(no inputs-sha256)") : h.inputs_sha256) +
                          "): the header was edited or another generator wrote the file; the file fails (the "
                          "regenerated list decides)");
      }
      c.basis = plan->open ? CompletenessBasis::regenerated_open : CompletenessBasis::regenerated;
      c.source = plan->source;
      if (!plan->open) c.expected = n;
      c.expected_sha256 = expected_sha;
      if (plan->open)
        c.notes.push_back("completeness unproven: the header has no 'cases' key (a file written before softmx recorded "
                          "it), so cases missing after the last line cannot be detected; the " +
                          plural(m, "case", "cases") + " present were checked against " + plan->source);
      if (located_) {
        c.located = true;
        c.missing = missing_confirmed + (plan->open ? 0 : missing_pending);
        if (first_missing && (!plan->open || first_missing->case_number < max_paired)) c.first_missing = first_missing;
        std::vector<u64> sequence;  // the paired lines' case numbers, in file order
        u64 running_max = 0, running_max_line = 0;
        if (!indexed && lockstep < m) build_index();  // lines left over after the whole list
        for (u64 pos = 0; pos < m; ++pos) {
          if (paired[pos] == 0) {
            const u64 g = group_of(fingerprint_[pos]);
            if (expected_group[g]) {
              ++c.duplicated;
              if (!c.first_duplicated)
                c.first_duplicated = CaseFinding{line_[pos], paired[order[g]], line_[order[g]], 0, {}};
            } else {
              ++c.extra;
              if (!c.first_extra) c.first_extra = CaseFinding{line_[pos], 0, 0, 0, {}};
            }
            continue;
          }
          sequence.push_back(paired[pos]);
          if (paired[pos] < running_max) {
            if (!c.first_out_of_order)
              c.first_out_of_order = CaseFinding{line_[pos], paired[pos], running_max_line, running_max, {}};
          } else {
            running_max = paired[pos];
            running_max_line = line_[pos];
          }
        }
        c.out_of_order = sequence.size() - longest_increasing(sequence);
        // Operands of the findings named by case number, from a second (partial) regeneration.
        if (c.first_duplicated || c.first_out_of_order) {
          const auto ops = fetch_cases(ev_, *plan, {c.first_duplicated ? c.first_duplicated->case_number : 0,
                                                    c.first_out_of_order ? c.first_out_of_order->case_number : 0});
          if (c.first_duplicated) c.first_duplicated->operands = ops[0];
          if (c.first_out_of_order) c.first_out_of_order->operands = ops[1];
        }
      } else {
        c.notes.push_back("the file has more than " + std::to_string(kMaxLocatedCases) +
                          " cases: completeness is checked by their count and SHA-256, and a difference is not located");
      }
      return c;
    }
  }

  // The header's record alone.
  if (h.cases || !h.inputs_sha256.empty()) {
    c.basis = CompletenessBasis::header;
    c.expected = h.cases;
    c.expected_sha256 = h.inputs_sha256;
    c.source = h.cases && !h.inputs_sha256.empty() ? "the header's cases and inputs-sha256"
               : h.cases                            ? "the header's cases"
                                                    : "the header's inputs-sha256";
    c.notes.push_back("completeness unproven: softmx cannot regenerate these cases (" +
                      std::string(h.level.empty() ? "the header has no level and seed" : "the note above says why") +
                      "), so only the header's own record was checked, and a header edited to match a cut file would "
                      "pass that check");
    if (!h.cases) c.notes.push_back("the header has no 'cases' key: the file was checked by the inputs' SHA-256 alone");
    else if (h.inputs_sha256.empty())
      c.notes.push_back("the header has no 'inputs-sha256' key: the file was checked by the number of cases alone, not "
                        "which cases they are");
    return c;
  }
  c.notes.push_back("completeness unproven: the header records neither how the cases were chosen (level and seed) nor "
                    "their number and digest (cases, inputs-sha256), so a file that lost cases would look the same; files "
                    "written by softmx gen carry these keys (vectors/README.md 8)");
  return c;
}

Completeness runs_completeness(const Header& h) {
  Completeness c;
  c.basis = CompletenessBasis::runs;
  c.expected = h.last - h.first + 1;  // 2^64 inputs would wrap: sweep and verify take at most 2^32
  c.present = *c.expected;
  const int d = format(h.from).hex_digits();
  c.source = "the runs cover every input " + hex(h.first, d) + ".." + hex(h.last, d);
  return c;
}

std::string completeness_text(const Completeness& c, const LineLayout& l) {
  const CompletenessStatus st = c.status();
  if (st == CompletenessStatus::complete) {
    if (c.basis == CompletenessBasis::runs) return "complete: " + c.source + "\n";
    if (!c.expected)  // a level-2 list without `cases`, its length pinned by --expect-cases
      return "complete: every one of the " + plural(c.present, "expected case", "expected cases") +
             ", once each, in order (" + c.source + "; the count pinned by --expect-cases)\n";
    return "complete: every one of the " + plural(*c.expected, "expected case", "expected cases") + ", once each, in order (" +
           c.source + ")\n";
  }
  if (st == CompletenessStatus::unproven) {
    switch (c.basis) {
      case CompletenessBasis::regenerated_open:
        return "UNPROVEN: the " + plural(c.present, "case is", "cases are") + " the first " + std::to_string(c.present) +
               " of the list, once each, in order (" + c.source +
               "), but the header has no 'cases' key, so a cut after the last line cannot be seen\n";
      case CompletenessBasis::header:
        return "UNPROVEN: the " + plural(c.present, "case matches ", "cases match ") + c.source +
               ", but softmx cannot regenerate the cases, so the header vouches for its own file\n";
      default:
        return "UNPROVEN: completeness not checked: the header has neither level and seed nor cases and inputs-sha256\n";
    }
  }
  std::string s = "INCOMPLETE: ";
  if (c.expected) s += std::to_string(c.present) + " cases where " + std::to_string(*c.expected) + " are expected";
  else s += plural(c.present, "case", "cases");
  s += " (" + (c.source.empty() ? std::string("nothing regenerated") : c.source) + ")";
  std::string more;
  if (c.header_differs)
    more += "  the header's cases and inputs-sha256 are not the regenerated list's: the header was edited or another "
            "generator wrote the file\n";
  if (c.pinned_cases && c.present != *c.pinned_cases)
    more += "  --expect-cases requires " + std::to_string(*c.pinned_cases) + " cases\n";
  if (c.located) {
    s += ": " + std::to_string(c.missing) + " missing, " + std::to_string(c.extra) + " extra, " + std::to_string(c.duplicated) +
         " duplicated, " + std::to_string(c.out_of_order) + " out of order\n";
    if (c.first_missing)
      s += "  first missing: case " + std::to_string(c.first_missing->case_number) + " (" +
           fields_hex(l.operands, c.first_missing->operands) + "), expected " +
           (c.first_missing->other_line ? "after line " + std::to_string(c.first_missing->other_line) : std::string("first")) +
           "\n";
    if (c.first_extra)
      s += "  first extra: line " + std::to_string(c.first_extra->line) + " (its operands are not an expected case)\n";
    if (c.first_duplicated)
      s += "  first duplicated: line " + std::to_string(c.first_duplicated->line) + " repeats case " +
           std::to_string(c.first_duplicated->case_number) + " (" + fields_hex(l.operands, c.first_duplicated->operands) +
           ") of line " + std::to_string(c.first_duplicated->other_line) + "\n";
    if (c.first_out_of_order)
      s += "  first out of order: line " + std::to_string(c.first_out_of_order->line) + " holds case " +
           std::to_string(c.first_out_of_order->case_number) + " (" + fields_hex(l.operands, c.first_out_of_order->operands) +
           "), after case " + std::to_string(c.first_out_of_order->other_case) + " at line " +
           std::to_string(c.first_out_of_order->other_line) + "\n";
    if (c.missing + c.extra + c.duplicated + c.out_of_order == 0 && !c.expected_sha256.empty() && c.sha256 != c.expected_sha256)
      s += "  the operands differ from the expected cases (inputs-sha256 " + c.sha256 + ", expected " + c.expected_sha256 + ")\n";
    return s + more;
  }
  s += ":";
  if (c.expected && c.present != *c.expected) s += " the count differs;";
  if (!c.expected_sha256.empty())
    s += c.sha256 == c.expected_sha256 ? " the inputs' SHA-256 matches"
                                       : " the inputs' SHA-256 is " + c.sha256 + ", expected " + c.expected_sha256;
  if (s.back() == ';' || s.back() == ':') s.pop_back();
  return s + "\n" + more;
}

std::string completeness_json(const Completeness& c, const LineLayout& l) {
  std::string s = std::string("{\"status\": \"") + name(c.status()) + "\", \"basis\": \"" + name(c.basis) +
                  "\", \"proven\": " + (c.proven() ? "true" : "false") + ", \"source\": ";
  s += c.source.empty() ? "null" : json_string(c.source);
  s += ", \"expected\": " + (c.expected ? std::to_string(*c.expected) : std::string("null"));
  s += ", \"present\": " + std::to_string(c.present);
  s += ", \"missing\": " + json_count(c.located, c.missing) + ", \"extra\": " + json_count(c.located, c.extra) +
       ", \"duplicated\": " + json_count(c.located, c.duplicated) + ", \"out_of_order\": " + json_count(c.located, c.out_of_order);
  s += ", \"first_missing\": " + json_finding(c.first_missing, l, "after_line");
  s += ", \"first_extra\": " + json_finding(c.first_extra, l, nullptr);
  s += ", \"first_duplicated\": " + json_finding(c.first_duplicated, l, "first_line");
  s += ", \"first_out_of_order\": " + json_finding(c.first_out_of_order, l, "after_line");
  s += ", \"inputs_sha256\": " + (c.sha256.empty() ? std::string("null") : "\"" + c.sha256 + "\"");
  s += ", \"expected_inputs_sha256\": " + (c.expected_sha256.empty() ? std::string("null") : "\"" + c.expected_sha256 + "\"");
  s += std::string(", \"header_differs\": ") + (c.header_differs ? "true" : "false");
  s += ", \"expect_cases\": " + (c.pinned_cases ? std::to_string(*c.pinned_cases) : std::string("null"));
  s += ", \"notes\": [";
  for (std::size_t i = 0; i < c.notes.size(); ++i) s += (i ? ", " : "") + json_string(c.notes[i]);
  return s + "]}";
}

}  // namespace softmx::vec
