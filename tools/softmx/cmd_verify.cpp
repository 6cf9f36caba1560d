// tools/softmx/cmd_verify.cpp: `softmx verify`, TestFloat's testfloat_ver for vector files.
//
//   softmx verify [--max-errors N] [--threads N] [--json] RESULTS-FILE
//
// Reads a file of device results in the vector format (vectors/README.md), recomputes every
// line (every input of every run, for a run table) with softmx under the file's header, and
// prints each disagreement with the values decomposed, the flags spelled out and the settings
// (rounding, saturation, dialect, ...) that would have produced the device's result (for mma:
// which tensor-core model, and the model's steps with every term decomposed). Ends with
// a summary line and the file's completeness (vectors/README.md 8: every expected case
// present, once, in order; what could not be checked is said on stderr). Exit status 0: all
// agree and the file is complete; 1: any disagreement, or a case missing, extra, duplicated
// or out of order; 2: bad input.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/case_check.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::cli {
namespace {

/// The inside of cli::json_string(s): every byte escaped, valid JSON for any bytes (README.md).
std::string json_escape(const std::string& s) {
  const std::string q = json_string(s);
  return q.substr(1, q.size() - 2);
}

struct Summary {
  std::string file, operation, layout;
  std::uint64_t cases = 0;         // lines (cases) or inputs (runs)
  std::uint64_t runs = 0;
  std::uint64_t result_mismatches = 0, flags_only_mismatches = 0;
  std::uint64_t flags_compared = 0;
  std::uint64_t reported = 0;
  std::uint64_t ranges = 0;        // runs: mismatching ranges found
};

int verify(int argc, char** argv) {
  const Args a = parse_args("verify", argc, argv, 2, {"max-errors", "threads"}, {"json"});
  if (a.positionals.size() != 1) throw UsageError("expected one RESULTS-FILE (a vector file with the device's results; '-' for stdin)");
  const std::uint64_t max_errors = a.get("max-errors") ? parse_count(a, "max-errors", 20, 1ull << 62) : 20;
  const unsigned threads = parse_threads(a, vec::default_threads());
  const bool json = a.has_switch("json");

  auto reader = vec::VectorReader::open(a.positionals[0]);
  const vec::Header& h = reader->header();
  const vec::Evaluator eval(h);
  const vec::LineLayout& l = reader->layout();
  // The settings softmx can imitate, to say where a device's result comes from. Built lazily:
  // only a mismatch needs them.
  std::vector<vec::Candidate> cands;
  bool cands_built = false;
  auto candidates = [&](bool flags) -> const std::vector<vec::Candidate>* {
    if (!cands_built) {
      cands = vec::make_candidates(h, flags);
      cands_built = true;
    }
    return &cands;
  };

  Summary s;
  s.file = reader->name();
  s.operation = vec::describe(h);
  s.layout = h.layout == vec::Layout::runs ? "runs" : "cases";
  std::string text;      // mismatch reports (text mode: streamed to stdout)
  std::string json_items;
  Output out;
  auto report = [&](const std::string& r, const std::string& json_item) {
    ++s.reported;
    if (json) {
      if (!json_items.empty()) json_items += ",\n    ";
      json_items += json_item;
    } else {
      out.text() += r;
      out.chunk();
    }
  };

  vec::Completeness completeness;
  if (h.layout == vec::Layout::runs) {
    completeness = vec::runs_completeness(h);
    const vec::RunCheckStats st = vec::check_runs(
        *reader, h, threads,
        [&](const vec::RangeMismatch& m) {
          ++s.ranges;
          if (s.reported >= max_errors) return;
          const int d = l.operands[0].digits, rd = l.results[0].digits;
          report(vec::range_report(l, m, candidates(m.has_flags)),
                 "{\"first\": \"" + hex(m.first, d) + "\", \"last\": \"" + hex(m.last, d) + "\", \"count\": " +
                     std::to_string(m.count()) + ", \"device\": \"" + hex(m.got, rd) + "\", \"expected\": \"" + hex(m.want, rd) +
                     "\", \"device_flags\": " + (m.has_flags ? "\"" + hex(m.got_flags, 2) + "\"" : std::string("null")) +
                     ", \"expected_flags\": \"" + hex(m.want_flags, 2) + "\"}");
        },
        !json);
    s.cases = st.inputs;
    s.runs = st.runs;
    s.result_mismatches = st.result_mismatches;
    s.flags_only_mismatches = st.flags_only_mismatches;
    s.flags_compared = st.flags_compared ? st.inputs : 0;
  } else {
    const vec::CaseCheck st = vec::check_cases(*reader, eval, [&](const vec::CaseMismatch& m) {
      if (s.reported >= max_errors) return;
      std::string item = "{\"line\": " + std::to_string(m.line) + ", \"operands\": \"" +
                         vec::fields_hex(l.operands, m.operands) + "\", \"device\": \"" + vec::fields_hex(l.results, m.got) +
                         "\", \"expected\": \"" + vec::fields_hex(l.results, m.want) + "\", \"device_flags\": " +
                         (m.has_flags ? "\"" + hex(m.got_flags, 2) + "\"" : std::string("null")) + ", \"expected_flags\": \"" +
                         hex(m.want_flags, 2) + "\"}";
      std::string text_report = vec::case_report(m.where, l, m.operands, m.got, m.has_flags, m.got_flags, m.want, m.want_flags,
                                                 candidates(m.has_flags));
      if (h.operation == vec::Operation::mma) text_report += vec::mma_trace_report(h, m.operands);  // the terms decomposed
      report(text_report, item);
    });
    s.cases = st.cases;
    s.result_mismatches = st.result_mismatches;
    s.flags_only_mismatches = st.flags_only_mismatches;
    s.flags_compared = st.flags_compared;
    completeness = st.completeness;
  }
  for (const std::string& note : completeness.notes) std::fprintf(stderr, "verify: %s: %s\n", s.file.c_str(), note.c_str());

  const std::uint64_t bad = s.result_mismatches + s.flags_only_mismatches;
  const bool complete = completeness.complete();
  const char* unit = h.layout == vec::Layout::runs ? "inputs" : "cases";
  if (json) {
    out.printf(
        "{\n  \"file\": \"%s\",\n  \"operation\": \"%s\",\n  \"layout\": \"%s\",\n  \"%s\": %llu,\n%s"
        "  \"matched\": %llu,\n  \"mismatched\": %llu,\n  \"result_mismatches\": %llu,\n  \"flags_only_mismatches\": %llu,\n"
        "  \"flags_compared\": %llu,\n  \"completeness\": %s,\n  \"status\": \"%s\",\n  \"mismatches\": [%s%s%s]\n}\n",
        json_escape(s.file).c_str(), json_escape(s.operation).c_str(), s.layout.c_str(), unit,
        static_cast<unsigned long long>(s.cases),
        h.layout == vec::Layout::runs ? ("  \"runs\": " + std::to_string(s.runs) + ",\n").c_str() : "",
        static_cast<unsigned long long>(s.cases - bad), static_cast<unsigned long long>(bad),
        static_cast<unsigned long long>(s.result_mismatches), static_cast<unsigned long long>(s.flags_only_mismatches),
        static_cast<unsigned long long>(s.flags_compared), vec::completeness_json(completeness, l).c_str(),
        bad || !complete ? "fail" : "pass", json_items.empty() ? "" : "\n    ", json_items.c_str(), json_items.empty() ? "" : "\n  ");
    out.commit();
    return bad || !complete ? 1 : 0;
  }
  std::string line = "verify: " + s.file + ": " + s.operation + ": " + std::to_string(s.cases) + " " + unit;
  if (h.layout == vec::Layout::runs) line += " in " + std::to_string(s.runs) + " runs";
  if (!bad) {
    line += complete ? ", all match" : ", none mismatched";
  } else {
    line += ", " + std::to_string(bad) + " mismatch" + (bad == 1 ? "" : "es") + " (" + std::to_string(s.result_mismatches) +
            " in results, " + std::to_string(s.flags_only_mismatches) + " in flags only)";
    if (h.layout == vec::Layout::runs)
      line += " in " + std::to_string(s.ranges) + " range" + (s.ranges == 1 ? "" : "s");
    const std::uint64_t found = h.layout == vec::Layout::runs ? s.ranges : bad;
    if (s.reported < found) line += "; the first " + std::to_string(s.reported) + " shown (--max-errors)";
  }
  line += s.flags_compared == s.cases ? "; flags compared on all"
          : s.flags_compared == 0    ? "; flags not given, not compared"
                                     : "; flags compared on " + std::to_string(s.flags_compared);
  out.text() += line + "\n";
  out.text() += "verify: " + s.file + ": " + vec::completeness_text(completeness, l);
  out.commit();
  return bad || !complete ? 1 : 0;
}

}  // namespace

int cmd_verify(int argc, char** argv) {
  // With --json, an error is reported as JSON on standard output too (the message still goes
  // to stderr and the exit status is still 2): {"status": "error", "error": MESSAGE}.
  bool json = false;
  for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i) json |= std::string_view(argv[i]) == "--json";
  auto report = [&](const std::string& message) {
    if (!json) return;
    try {
      Output out;
      out.text() = "{\n  \"status\": \"error\",\n  \"error\": " + json_string(message) + "\n}\n";
      out.commit();
    } catch (const vec::OutputError&) {  // standard output itself failed: stderr says so
    }
  };
  try {
    return verify(argc, argv);
  } catch (const vec::OutputError& e) {
    report(e.what());
    throw;
  } catch (const std::exception& e) {
    report(e.what());
    throw;
  }
}

}  // namespace softmx::cli
