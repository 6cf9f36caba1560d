// emulator/vectors/verify.cpp: see verify.hpp.
#include "softmx/vectors/verify.hpp"

#include "core/enum_names.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/error.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/case_check.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::vec {
namespace {

using u64 = std::uint64_t;

[[noreturn]] void bad_option(const char* option, const std::string& value, const std::string& why) {
  throw InputError("--" + std::string(option) + " " + quote(value, '\'', 40) + ": " + why);
}

/// Applies one override that names a setting of an operation that has it; `applies` false
/// refuses it naming the operation.
void needs(bool applies, const char* option, const std::string& value, const Header& h, const char* which) {
  if (!applies)
    bad_option(option, value, std::string("does not apply to operation ") + std::string(name(h.operation)) + " (" + which + ")");
}

}  // namespace

Header apply_overrides(const Header& h, const HeaderOverrides& o) {
  Header c = h;
  const bool mma = h.operation == Operation::mma;
  if (o.model) {
    needs(mma || h.operation == Operation::dot, "model", *o.model, h, "it names the tensor-core model of mma and dot files");
    const TensorCoreModel* m = find_tensor_core_model(*o.model);
    if (!m) {
      std::string known;
      for (const TensorCoreModel* x : tensor_core_models()) known += (known.empty() ? "" : ", ") + std::string(x->name());
      bad_option("model", *o.model, "not a tensor-core model (expected " + known + ")");
    }
    if (mma) {
      // A block-scaled file needs a block-scaled model (and UE4M3 scales a per-group one); an
      // unscaled file takes any model (the block-scaled ones run with unit scales).
      const ScaleApplication app = m->params().scale_application;
      if (h.scale_format != MmaScaleFormat::none && app == ScaleApplication::none)
        bad_option("model", *o.model, "the file's lines carry block scales (scale-format " + std::string(name(h.scale_format)) +
                                          "), and this model has no block-scaled form");
      if (h.scale_format == MmaScaleFormat::ue4m3 && app != ScaleApplication::per_group)
        bad_option("model", *o.model, "the file's scales are UE4M3, which only the per-group (kind::mxf4nvf4) models read");
      c.model = std::string(m->name());  // an instruction's alias checks its model
    } else {
      c.accumulation = std::string(m->name());  // dot: the accumulation model
    }
  }
  if (o.accumulation) {
    needs(h.operation == Operation::dot, "acc", *o.accumulation, h, "it names a dot file's accumulation");
    if (o.model && *o.model != *o.accumulation)
      bad_option("acc", *o.accumulation, "contradicts --model " + quote(*o.model, '\'', 40) + " (give one)");
    const AccumulationModel* am = find_accumulation_model(*o.accumulation);
    if (!am) bad_option("acc", *o.accumulation, "expected exact, fp32-sequential or a tensor-core model (softmx models)");
    c.accumulation = std::string(am->name());
  }
  if (o.dialect) {
    needs(!mma && h.operation != Operation::dot, "dialect", *o.dialect, h, "convert, quantize and dequantize files have a dialect");
    const Dialect* d = find_dialect(*o.dialect);
    if (!d || d->name != *o.dialect) {
      std::string known;
      for (const Dialect& x : all_dialects()) known += (known.empty() ? "" : ", ") + std::string(x.name);
      bad_option("dialect", *o.dialect, "expected one of " + known);
    }
    c.dialect = *o.dialect;
  }
  if (o.rounding) {
    needs(!mma, "round", *o.rounding, h, "an mma's model fixes its rounding: use --model");
    const auto r = parse_rounding(*o.rounding);
    if (!r || *o.rounding != name(*r)) bad_option("round", *o.rounding, "expected rne, rna, rz, ru, rd, ro or rs");
    if ((*r == Rounding::rs) != (h.ctx.rounding == Rounding::rs))
      bad_option("round", *o.rounding,
                 "lines of rs files carry random bits and others do not: rounding can change to or from rs only by a new file");
    c.ctx.rounding = *r;
  }
  if (o.saturation) {
    needs(!mma, "sat", *o.saturation, h, "an mma's model fixes its saturation: use --model");
    const auto s = parse_saturation(*o.saturation);
    if (!s) bad_option("sat", *o.saturation, "expected finite, none or propagate");
    c.ctx.saturation = *s;
  }
  if (o.tininess) {
    needs(!mma, "tininess", *o.tininess, h, "tensor cores raise no flags");
    const auto t = parse_tininess(*o.tininess);
    if (!t) bad_option("tininess", *o.tininess, "expected after, before or after-bounded");
    c.ctx.tininess = *t;
  }
  if (o.scale) {
    needs(h.operation == Operation::quantize, "scale", *o.scale, h, "the scale rule is a quantize file's");
    const auto r = parse_scale_rule(*o.scale);
    if (!r || *o.scale != name(*r)) bad_option("scale", *o.scale, "expected floor, ceil, even or rceil");
    c.scale = *r;
  }
  c.validate("the settings given on the command line");
  return c;
}

std::string overrides_text(const Header& file, const Header& checked) {
  std::string s;
  auto add = [&](const char* what, const std::string& now, const std::string& was) {
    if (now == was) return;
    if (!s.empty()) s += "; ";
    s += std::string(what) + " " + now + " (the file's header: " + was + ")";
  };
  add("model", checked.model, file.model);
  add("accumulation", checked.accumulation, file.accumulation);
  add("dialect", checked.dialect, file.dialect);
  add("rounding", std::string(name(checked.ctx.rounding)), std::string(name(file.ctx.rounding)));
  add("saturation", std::string(name(checked.ctx.saturation)), std::string(name(file.ctx.saturation)));
  add("tininess", std::string(name(checked.ctx.tininess)), std::string(name(file.ctx.tininess)));
  if (file.operation == Operation::quantize) add("scale", std::string(name(checked.scale)), std::string(name(file.scale)));
  return s;
}

namespace {
constexpr softmx::detail::EnumName<VerdictStatus> kVerdictStatus[] = {
    {VerdictStatus::pass, "pass"}, {VerdictStatus::fail, "fail"}, {VerdictStatus::unproven, "unproven"}};
}  // namespace

// The table's spellings are string literals, so data() is NUL-terminated.
const char* name(VerdictStatus s) { return softmx::detail::enum_name(s, kVerdictStatus).data(); }

int exit_status(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::pass: return 0;
    case VerdictStatus::fail: return 1;
    case VerdictStatus::unproven: return 3;
  }
  return 70;
}

VerifyMismatch range_mismatch(const RangeMismatch& m) {
  return {.range = true, .first = m.first, .last = m.last, .got = {m.got}, .want = {m.want}, .has_flags = m.has_flags,
          .got_flags = m.got_flags, .want_flags = m.want_flags, .result_differs = m.got != m.want};
}

namespace {

std::string flags_json(bool known, Flags f) { return known ? "\"" + hex(f, 2) + "\"" : std::string("null"); }

std::string plural(u64 n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

}  // namespace

std::string VerifyResult::summary_text() const {
  const std::string who = "verify: " + shown_name(file) + ": ";
  const char* unit = runs ? "inputs" : "cases";
  std::string s;
  if (!overrides.empty()) s += who + "checked under settings other than the file's header: " + overrides + "\n";
  std::string line = who + description + ": " + std::to_string(cases) + " " + unit;
  if (runs) line += " in " + std::to_string(run_count) + " runs";
  const u64 bad = mismatched();
  if (!bad) {
    line += status == VerdictStatus::pass && !accepted_unproven ? ", all match" : ", none mismatched";
  } else {
    line += ", " + plural(bad, "mismatch", "mismatches") + " (" + std::to_string(result_mismatches) + " in results, " +
            std::to_string(flags_only_mismatches) + " in flags only)";
    if (runs) line += " in " + plural(ranges, "range", "ranges");
    const u64 found = runs ? ranges : bad;
    if (reported < found) line += "; the first " + std::to_string(reported) + " shown (--max-errors)";
  }
  line += flags_compared == cases ? "; flags compared on all"
          : flags_compared == 0  ? "; flags not given, not compared"
                                 : "; flags compared on " + std::to_string(flags_compared);
  s += line + "\n";
  s += who + completeness_text(completeness, line_layout(header));
  switch (status) {
    case VerdictStatus::pass:
      s += who + (accepted_unproven ? "PASS, completeness UNPROVEN (accepted by --accept-unproven): every line agrees, but "
                                      "nothing independent of the file shows that every case is there\n"
                                    : "PASS: every expected case is present, once, in order, and agrees with softmx\n");
      break;
    case VerdictStatus::fail:
      s += who + "FAIL: " +
           (bad && completeness.differs() ? std::string("results disagree and the file is incomplete")
            : bad                         ? std::string("results disagree")
                                          : std::string("the file is incomplete")) +
           "\n";
      break;
    case VerdictStatus::unproven:
      s += who + "UNPROVEN (exit status 3): no line disagrees, but completeness is not proven, so this is not a pass "
                 "(docs/VECTORS.md; --accept-unproven takes such a file for a legacy set)\n";
      break;
  }
  return s;
}

std::string VerifyResult::notes_text() const {
  std::string s;
  for (const std::string& n : completeness.notes) s += "verify: " + shown_name(file) + ": " + n + "\n";
  return s;
}

std::string VerifyResult::json() const {
  const LineLayout l = line_layout(header);
  std::string s = "{\n  \"file\": " + json_string(file) + ",\n  \"operation\": " + json_string(description) +
                  ",\n  \"layout\": \"" + (runs ? "runs" : "cases") + "\",\n";
  s += std::string("  \"") + (runs ? "inputs" : "cases") + "\": " + std::to_string(cases) + ",\n";
  if (runs) s += "  \"runs\": " + std::to_string(run_count) + ",\n";
  s += "  \"matched\": " + std::to_string(cases - mismatched()) + ",\n  \"mismatched\": " + std::to_string(mismatched()) +
       ",\n  \"result_mismatches\": " + std::to_string(result_mismatches) +
       ",\n  \"flags_only_mismatches\": " + std::to_string(flags_only_mismatches) +
       ",\n  \"flags_compared\": " + std::to_string(flags_compared) + ",\n";
  if (runs) s += "  \"ranges\": " + std::to_string(ranges) + ",\n";
  s += "  \"overrides\": " + (overrides.empty() ? std::string("null") : json_string(overrides)) + ",\n";
  s += "  \"completeness\": " + completeness_json(completeness, l) + ",\n";
  s += std::string("  \"status\": \"") + name(status) + "\",\n  \"accepted_unproven\": " +
       (accepted_unproven ? "true" : "false") + ",\n  \"exit_status\": " + std::to_string(exit_status()) + ",\n";
  s += "  \"mismatches\": [";
  for (std::size_t i = 0; i < mismatches.size(); ++i) s += (i ? ",\n    " : "\n    ") + mismatches[i].json;
  s += mismatches.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

VerifyResult verify_file(VectorReader& r, const VerifyOptions& o, const std::function<void(const VerifyMismatch&)>& on_mismatch) {
  VerifyResult v;
  v.file = r.name();
  v.header = r.header();
  v.checked = o.overrides.empty() ? v.header : apply_overrides(v.header, o.overrides);
  v.description = describe(v.checked);
  v.overrides = overrides_text(v.header, v.checked);
  v.runs = v.header.layout == Layout::runs;
  const LineLayout& l = r.layout();
  const Header& h = v.checked;

  // The settings softmx can imitate, to say where a device's result comes from: built when the
  // first mismatch needs them.
  std::vector<Candidate> cands;
  bool cands_built = false;
  auto candidates = [&](bool flags) -> const std::vector<Candidate>* {
    if (!cands_built) {
      cands = make_candidates(h, flags);
      cands_built = true;
    }
    return &cands;
  };
  auto report = [&](VerifyMismatch&& m) {
    ++v.reported;
    if (on_mismatch) on_mismatch(m);
    else v.mismatches.push_back(std::move(m));
  };

  if (v.runs) {
    v.completeness = runs_completeness(v.header);
    const int d = l.operands[0].digits, rd = l.results[0].digits;
    auto on_range = [&](const RangeMismatch& m) {
      if (o.observer) o.observer->on_range(m);
      ++v.ranges;
      if (v.reported >= o.max_errors) return;
      VerifyMismatch x = range_mismatch(m);
      x.report = range_report(l, m, candidates(m.has_flags));
      x.json = "{\"first\": \"" + hex(m.first, d) + "\", \"last\": \"" + hex(m.last, d) + "\", \"count\": " +
               std::to_string(m.count()) + ", \"device\": \"" + hex(m.got, rd) + "\", \"expected\": \"" + hex(m.want, rd) +
               "\", \"device_flags\": " + flags_json(m.has_flags, m.got_flags) + ", \"expected_flags\": \"" +
               hex(m.want_flags, 2) + "\"}";
      report(std::move(x));
    };
    const RunCheckStats st = o.progress ? check_runs(r, h, o.threads, on_range, o.progress)
                                        : check_runs(r, h, o.threads, on_range, o.progress_to_stderr);
    v.cases = st.inputs;
    v.run_count = st.runs;
    v.result_mismatches = st.result_mismatches;
    v.flags_only_mismatches = st.flags_only_mismatches;
    v.flags_compared = st.flags_compared ? st.inputs : 0;
  } else {
    const Evaluator ev(h);
    // The cases were chosen under the file's own header: regenerate them under it, whatever
    // settings the results are checked against (a dialect decides which quantize blocks exist).
    std::optional<Evaluator> file_ev;
    if (!o.overrides.empty()) file_ev.emplace(v.header);
    const std::function<void(const CaseMismatch&)> on_case_mismatch = [&](const CaseMismatch& m) {
      if (v.reported >= o.max_errors) return;
      VerifyMismatch x;
      x.where = m.where;
      x.line = m.line;
      x.operands.assign(m.operands.begin(), m.operands.end());
      x.got.assign(m.got.begin(), m.got.end());
      x.want.assign(m.want.begin(), m.want.end());
      x.has_flags = m.has_flags;
      x.got_flags = m.got_flags;
      x.want_flags = m.want_flags;
      x.result_differs = m.result_differs;
      x.report = case_report(m.where, l, m.operands, m.got, m.has_flags, m.got_flags, m.want, m.want_flags,
                             candidates(m.has_flags));
      if (h.operation == Operation::mma) x.report += mma_trace_report(h, m.operands);
      x.json = "{\"line\": " + std::to_string(m.line) + ", \"operands\": \"" + fields_hex(l.operands, m.operands) +
               "\", \"device\": \"" + fields_hex(l.results, m.got) + "\", \"expected\": \"" +
               fields_hex(l.results, m.want) + "\", \"device_flags\": " + flags_json(m.has_flags, m.got_flags) +
               ", \"expected_flags\": \"" + hex(m.want_flags, 2) + "\"}";
      report(std::move(x));
    };
    const Evaluator* cases_ev = file_ev ? &*file_ev : nullptr;
    CaseObserver on_case;
    if (o.observer)
      on_case = [&](std::span<const u64> ops, std::span<const u64> got, bool has_flags, Flags got_flags,
                    std::span<const u64> want, Flags want_flags) {
        o.observer->on_case(ops, got, has_flags, got_flags, want, want_flags);
      };
    const CaseCheck st = check_cases(r, ev, on_case_mismatch, cases_ev, on_case);
    v.cases = st.cases;
    v.result_mismatches = st.result_mismatches;
    v.flags_only_mismatches = st.flags_only_mismatches;
    v.flags_compared = st.flags_compared;
    v.completeness = st.completeness;
  }
  if (o.expect_cases) v.completeness.pin_cases(*o.expect_cases);

  if (v.mismatched() || v.completeness.differs()) {
    v.status = VerdictStatus::fail;
  } else if (v.completeness.proven()) {
    v.status = VerdictStatus::pass;
  } else if (o.accept_unproven) {
    v.status = VerdictStatus::pass;
    v.accepted_unproven = true;
  } else {
    v.status = VerdictStatus::unproven;
  }
  return v;
}

}  // namespace softmx::vec
