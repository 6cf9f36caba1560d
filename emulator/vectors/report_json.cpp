// emulator/vectors/report_json.cpp: see report_data.hpp (and docs/REPORT.md): the reports as one
// bounded JSON document each (VerifyReport, IdentifyReport, DiffReport, ReportData::json) and
// file_info.
#include "softmx/vectors/report_data.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>

#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/error.hpp"
#include "softmx/explain.hpp"
#include "softmx/sha256.hpp"
#include "softmx/text.hpp"
#include "softmx/version.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/table_diff.hpp"

namespace softmx::vec {
namespace {

using u64 = std::uint64_t;

// ---- JSON ----

std::string jstr(std::string_view s) { return json_string(s); }
std::string jnum(u64 v) { return std::to_string(v); }
std::string jbool(bool b) { return b ? "true" : "false"; }

/// verify's JSON (or completeness_json) without its final newline.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// The last line of `text`, without its "PREFIX" (verify's "verify: FILE: ").
std::string last_line(const std::string& text, const std::string& prefix = "") {
  std::string t = trimmed(text);
  const auto p = t.rfind('\n');
  if (p != std::string::npos) t = t.substr(p + 1);
  if (!prefix.empty() && t.rfind(prefix, 0) == 0) t = t.substr(prefix.size());
  return t;
}

std::string file_json(const FileInfo& f) {
  return "{\"path\": " + jstr(f.path) + ", \"sha256\": " + jstr(f.sha256) + ", \"bytes\": " + jnum(f.bytes) +
         ", \"modified\": " + jstr(f.modified) + "}";
}

std::string classes_json(const std::string& basis, const std::array<ClassCounts, kInputClasses>& c) {
  std::string s = "{\"basis\": " + jstr(basis) + ", \"rows\": [";
  for (std::size_t i = 0; i < kInputClasses; ++i) {
    s += i ? ", " : "";
    s += "{\"class\": \"" + std::string(name(static_cast<InputClass>(i))) + "\", \"checked\": " + jnum(c[i].checked) +
         ", \"result_failed\": " + jnum(c[i].result_failed) + ", \"flags_checked\": " + jnum(c[i].flags_checked) +
         ", \"flags_failed\": " + jnum(c[i].flags_failed) + "}";
  }
  return s + "]}";
}

std::string ticks_json(const std::vector<std::pair<std::uint32_t, std::string>>& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", [" : "[") + jnum(t[i].first) + ", " + jstr(t[i].second) + "]";
  return s + "]";
}

std::string names_json(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + jstr(v[i]);
  return s + "]";
}

std::string array_json(const std::vector<u64>& v) {
  std::string s = "[";
  s.reserve(v.size() * 2 + 2);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

std::string grid_json(const DomainGrid& g) {
  return "{\"title\": " + jstr(g.title) + ", \"x_label\": " + jstr(g.x_label) + ", \"y_label\": " + jstr(g.y_label) +
         ", \"note\": " + jstr(g.note) + ", \"nx\": " + jnum(g.nx) + ", \"ny\": " + jnum(g.ny) +
         ", \"x_ticks\": " + ticks_json(g.x_ticks) + ", \"y_ticks\": " + ticks_json(g.y_ticks) +
         ",\n      \"x_names\": " + names_json(g.x_names) +
         ",\n      \"checked\": " + array_json(g.checked) + ",\n      \"failed\": " + array_json(g.failed) + "}";
}

std::string band_json(const InputBand& b) {
  return "{\"first\": " + jstr(hex(b.first, b.digits)) + ", \"last\": " + jstr(hex(b.last, b.digits)) +
         ", \"first_value\": " + jnum(b.first) + ", \"last_value\": " + jnum(b.last) + ", \"width\": " + jnum(b.width) +
         ", \"bins\": " + jnum(b.failed.size()) + ", \"failed_total\": " + jnum(b.total()) + ",\n      \"failed\": " +
         array_json(b.failed) + "}";
}

std::string ulp_json(const std::vector<UlpHistogram>& hs) {
  std::string s = "[";
  for (std::size_t i = 0; i < hs.size(); ++i) {
    const UlpHistogram& h = hs[i];
    s += i ? ", " : "";
    s += "{\"field\": " + jstr(h.field) + ", \"format\": " + jstr(h.format) + ", \"total\": " + jnum(h.total()) +
         ", \"nan\": " + jnum(h.nan) + ", \"zero_sign\": " + jnum(h.zero_sign) + ", \"bins\": [";
    bool first = true;
    for (const auto& [k, v] : h.bins) {
      s += first ? "" : ", ";
      first = false;
      s += "{\"sign\": " + std::string(k < 0 ? "-1" : "1") + ", \"bits\": " + std::to_string(k < 0 ? -k : k) +
           ", \"count\": " + jnum(v) + "}";
    }
    s += "]}";
  }
  return s + "]";
}

std::string failure_json(const ReportFailure& f) {
  std::string s = "{\"range\": " + jbool(f.range) + ", \"where\": " + jstr(f.where);
  if (f.range) s += ", \"first\": " + jnum(f.first) + ", \"last\": " + jnum(f.last) + ", \"count\": " + jnum(f.last - f.first + 1);
  else s += ", \"line\": " + jnum(f.line);
  s += ", \"operands\": " + jstr(f.operands) + ", \"device\": " + jstr(f.device) + ", \"expected\": " + jstr(f.expected) +
       ", \"device_flags\": " + (f.device_flags ? jstr(hex(*f.device_flags, 2)) : std::string("null")) +
       ", \"expected_flags\": " + jstr(hex(f.expected_flags, 2)) + ", \"result_differs\": " + jbool(f.result_differs) +
       ", \"class\": \"" + name(f.cls) + "\", \"ulps\": " + jstr(f.ulps) + ", \"producers\": " + jstr(f.producers) +
       ", \"device_reason\": " + jstr(f.device_reason) + ", \"softmx_reason\": " + jstr(f.softmx_reason) +
       ",\n        \"report\": " + jstr(f.report) + "}";
  return s;
}

std::string failures_json(const std::vector<ReportFailure>& fs) {
  std::string s = "[";
  for (std::size_t i = 0; i < fs.size(); ++i) s += (i ? ",\n      " : "\n      ") + failure_json(fs[i]);
  return s + "]";
}

std::string commands_json(const std::vector<std::pair<std::string, std::string>>& c) {
  std::string s = "[";
  for (std::size_t i = 0; i < c.size(); ++i)
    s += std::string(i ? ", " : "") + "{\"command\": " + jstr(c[i].first) + ", \"expect\": " + jstr(c[i].second) + "}";
  return s + "]";
}

std::string status_expect(VerdictStatus s) {
  return "exit status " + std::to_string(exit_status(s)) + " (" +
         (s == VerdictStatus::pass ? "PASS" : s == VerdictStatus::fail ? "FAIL" : "UNPROVEN") + ")";
}

std::string stat_time(const struct stat& st) {
  const std::time_t t = st.st_mtime;
  std::tm tm{};
  if (!::gmtime_r(&t, &tm)) return "";
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

}  // namespace

FileInfo file_info(const std::string& path) {
  if (path == "-")
    throw InputError("-: the report reads each file twice (its SHA-256, then its check): give a path, not standard input");
  FileInfo f;
  f.path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  Sha256 h;
  std::vector<char> buf(std::size_t{1} << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n) h.update(std::string_view(buf.data(), n));
  }
  if (in.bad()) throw InputError(path, 0, "cannot read it whole");
  f.bytes = h.size();
  f.sha256 = h.hex();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) f.modified = stat_time(st);
  return f;
}

namespace {

std::string candidate_json(const Identification& id, std::size_t i) {
  const Candidate& c = id.candidates[i];
  const CandidateScore& s = id.scores[i];
  return "{\"key\": " + jstr(c.key) + ", \"dialect\": " + jstr(c.header.dialect) + ", \"description\": " +
         jstr(describe(c.header)) + ", \"agree\": " + jnum(s.agree) + ", \"total\": " + jnum(s.total) +
         ", \"exact\": " + jbool(s.exact) + ", \"percent\": " + jstr(percent(s.agree, s.total)) +
         ", \"exact_disagree\": " + jnum(s.exact_disagree) + ", \"ranges\": " + jnum(s.ranges) +
         ", \"differences\": " + jstr(differences(id.header, c.header)) +
         ", \"distance\": " + std::to_string(setting_distance(id.header, c.header)) + "}";
}

}  // namespace

std::string VerifyReport::json() const {
  const Header& h = verify.header;
  std::vector<std::pair<std::string, std::string>> rep;
  rep.emplace_back("sha256sum " + shell_quote(file.path), file.sha256);
  std::string cmd = "softmx verify";
  if (verify.accepted_unproven) cmd += " --accept-unproven";
  if (verify.completeness.pinned_cases) cmd += " --expect-cases " + std::to_string(*verify.completeness.pinned_cases);
  rep.emplace_back(cmd + " " + shell_quote(file.path), status_expect(verify.status));
  std::string s = "{\"kind\": \"verify\", \"file\": " + file_json(file) + ",\n    \"header\": " + jstr(header_text) +
                  ",\n    \"description\": " + jstr(verify.description) + ", \"operation\": \"" +
                  std::string(name(h.operation)) + "\", \"layout\": \"" + (verify.runs ? "runs" : "cases") + "\"" +
                  ", \"status\": \"" + vec::name(verify.status) + "\", \"exit_status\": " +
                  std::to_string(verify.exit_status()) + ",\n    \"verdict\": " + jstr(last_line(verify.summary_text(), "verify: " + shown_name(verify.file) + ": ")) +
                  ",\n    \"summary\": " + jstr(verify.summary_text()) + ", \"notes\": " + jstr(verify.notes_text()) +
                  ",\n    \"verify\": " + trimmed(verify.json()) +
                  ",\n    \"completeness_text\": " + jstr(completeness_text(verify.completeness, line_layout(h))) +
                  ",\n    \"classes\": " + classes_json(class_basis, classes) + ",\n    \"grid\": " + grid_json(grid) +
                  ",\n    \"band\": " + (band ? band_json(*band) : std::string("null")) + ",\n    \"ulp\": " + ulp_json(ulp) +
                  ",\n    \"failures\": " + failures_json(failures) + ",\n    \"reproduce\": " + commands_json(rep) + "}";
  return s;
}

std::string IdentifyReport::json() const {
  const Header& h = id.header;
  const std::size_t best = id.best();
  const Header& bh = id.candidates[best].header;
  const CandidateScore& bs = id.scores[best];
  std::string verdict = "best: " + describe(bh) + ": ";
  if (id.identified()) verdict += std::string("agrees on every ") + (id.runs ? "input" : "case") + ": identified";
  else if (accepted_unproven) verdict += "agrees on every case; completeness UNPROVEN, accepted";
  else if (status == VerdictStatus::unproven) verdict += "agrees on every case present, but completeness is UNPROVEN: not identified";
  else if (id.agrees()) verdict += "agrees on the cases present, but the file is INCOMPLETE: not identified";
  else verdict += "disagrees on " + std::to_string(bs.total - bs.agree) + " of " + std::to_string(bs.total) + (id.runs ? " inputs" : " cases");
  // One bar per setting (the dialects that share its score listed), in rank order.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::size_t>> by_key;
  for (std::size_t r : id.ranking) {
    const std::string& k = id.candidates[r].key;
    if (!by_key.count(k)) keys.push_back(k);
    by_key[k].push_back(r);
  }
  std::string bars = "[";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& members = by_key[keys[i]];
    const CandidateScore& top = id.scores[members.front()];
    std::string dialects = "[";
    for (std::size_t m : members) {
      const CandidateScore& s = id.scores[m];
      if (s.agree != top.agree || s.total != top.total || s.exact != top.exact) continue;
      dialects += (dialects.size() > 1 ? ", " : "") + jstr(id.candidates[m].header.dialect);
    }
    dialects += "]";
    bars += std::string(i ? ",\n      " : "\n      ") + "{\"key\": " + jstr(keys[i]) + ", \"agree\": " + jnum(top.agree) +
            ", \"total\": " + jnum(top.total) + ", \"exact\": " + jbool(top.exact) +
            ", \"percent\": " + jstr(percent(top.agree, top.total)) + ", \"best\": " + jbool(members.front() == best) +
            ", \"dialects\": " + dialects + "}";
  }
  bars += "]";
  std::string ranking = "[";
  for (std::size_t i = 0; i < id.ranking.size(); ++i) ranking += (i ? ",\n      " : "\n      ") + candidate_json(id, id.ranking[i]);
  ranking += "]";
  std::string pol = "[";
  if (bh.dialect != h.dialect)
    for (const std::string& p : policy_differences(h.dialect_ref(), bh.dialect_ref(), h)) pol += (pol.size() > 1 ? ", " : "") + jstr(p);
  pol += "]";
  std::vector<std::pair<std::string, std::string>> rep;
  rep.emplace_back("sha256sum " + shell_quote(file.path), file.sha256);
  rep.emplace_back(std::string("softmx identify") + (accepted_unproven ? " --accept-unproven" : "") + " " + shell_quote(file.path),
                   status_expect(status));
  return "{\"kind\": \"identify\", \"file\": " + file_json(file) + ",\n    \"header\": " + jstr(header_text) +
         ",\n    \"description\": " + jstr(describe(h)) + ", \"operation\": \"" + std::string(name(h.operation)) +
         "\", \"layout\": \"" + (id.runs ? "runs" : "cases") + "\", \"status\": \"" + vec::name(status) +
         "\", \"exit_status\": " + std::to_string(exit_status()) + ", \"accepted_unproven\": " + jbool(accepted_unproven) +
         ", \"agrees\": " + jbool(id.agrees()) + ", \"identified\": " + jbool(id.identified()) +
         ", \"all_exact\": " + jbool(id.all_exact()) + ", \"lines\": " + jnum(id.lines) +
         ", \"with_flags\": " + jnum(id.with_flags) + ", \"settings\": " + jnum(id.candidates.size()) +
         ",\n    \"verdict\": " + jstr(verdict) + ",\n    \"completeness\": " + completeness_json(id.completeness, id.layout) +
         ",\n    \"completeness_text\": " + jstr(completeness_text(id.completeness, id.layout)) +
         ",\n    \"best\": " + candidate_json(id, best) + ",\n    \"policy_differences\": " + pol +
         ",\n    \"bars\": " + bars + ",\n    \"ranking\": " + ranking + ",\n    \"failures\": " + failures_json(failures) +
         ",\n    \"reproduce\": " + commands_json(rep) + "}";
}

std::string DiffReport::json() const {
  auto side = [&](const FileInfo& f, const Header& h, bool flags) {
    return "{\"file\": " + file_json(f) + ", \"header\": " + jstr(header_text(h)) + ", \"description\": " + jstr(describe(h)) +
           ", \"has_flags\": " + jbool(flags) + "}";
  };
  std::string diffs = "[";
  for (std::size_t i = 0; i < differences.size(); ++i) {
    const DiffRange& r = differences[i];
    const int dg = ha.from.hex_digits();
    diffs += std::string(i ? ",\n      " : "\n      ") + "{\"first\": " + jstr(hex(r.first, dg)) + ", \"last\": " +
             jstr(hex(r.last, dg)) + ", \"count\": " + jnum(r.last - r.first + 1) + ", \"a\": " +
             jstr(hex(r.a_code, ha.to.hex_digits())) + ", \"b\": " + jstr(hex(r.b_code, hb.to.hex_digits())) +
             ", \"a_flags\": " + (flags_compared ? jstr(hex(r.a_flags, 2)) : std::string("null")) +
             ", \"b_flags\": " + (flags_compared ? jstr(hex(r.b_flags, 2)) : std::string("null")) +
             ", \"input_text\": " + jstr(r.input_text) + ", \"a_text\": " + jstr(r.a_text) + ", \"b_text\": " + jstr(r.b_text) +
             ", \"a_reason\": " + jstr(r.a_reason) + ", \"b_reason\": " + jstr(r.b_reason) + "}";
  }
  diffs += "]";
  const std::string verdict =
      ranges == 0 ? "identical: all " + std::to_string(inputs) + " inputs give the same " + (flags_compared ? "OUT and FLAGS" : "OUT") +
                        " in A and B"
                  : "differ: " + std::to_string(ranges) + (ranges == 1 ? " range, " : " ranges, ") + std::to_string(differing) +
                        " of " + std::to_string(inputs) + " inputs";
  std::vector<std::pair<std::string, std::string>> rep;
  rep.emplace_back("sha256sum " + shell_quote(a.path) + " " + shell_quote(b.path), a.sha256 + "  " + b.sha256);
  rep.emplace_back("softmx diff " + shell_quote(a.path) + " " + shell_quote(b.path),
                   std::string("exit status ") + (ranges ? "1 (the tables differ)" : "0 (the tables agree)"));
  return "{\"kind\": \"diff\", \"a\": " + side(a, ha, a_has_flags) + ",\n    \"b\": " + side(b, hb, b_has_flags) +
         ",\n    \"inputs\": " + jnum(inputs) + ", \"ranges\": " + jnum(ranges) + ", \"differing_inputs\": " + jnum(differing) +
         ", \"flags_compared\": " + jbool(flags_compared) + ", \"status\": \"" + vec::name(status()) +
         "\", \"exit_status\": " + std::to_string(vec::exit_status(status())) + ",\n    \"verdict\": " + jstr(verdict) +
         ",\n    \"classes\": " + classes_json(class_basis, classes) + ",\n    \"band\": " + band_json(band) +
         ",\n    \"differences\": " + diffs + ",\n    \"reproduce\": " + commands_json(rep) + "}";
}

VerdictStatus ReportData::status() const {
  bool fail = false, unproven = false;
  auto see = [&](VerdictStatus s) {
    fail |= s == VerdictStatus::fail;
    unproven |= s == VerdictStatus::unproven;
  };
  for (const auto& v : verified) see(v.verify.status);
  for (const auto& i : identified) see(i.status);
  for (const auto& d : diffs) see(d.status());
  return fail ? VerdictStatus::fail : unproven ? VerdictStatus::unproven : VerdictStatus::pass;
}

std::string ReportData::json() const {
  std::uint64_t n[3] = {0, 0, 0};
  auto see = [&](VerdictStatus s) { ++n[static_cast<int>(s)]; };
  for (const auto& v : verified) see(v.verify.status);
  for (const auto& i : identified) see(i.status);
  for (const auto& d : diffs) see(d.status());
  const VerdictStatus st = status();
  const u64 inputs = n[0] + n[1] + n[2];
  std::string verdict = st == VerdictStatus::pass ? "PASS" : st == VerdictStatus::fail ? "FAIL" : "UNPROVEN";
  verdict += ": " + std::to_string(inputs) + (inputs == 1 ? " check" : " checks") + ", " + std::to_string(n[0]) + " pass, " +
             std::to_string(n[1]) + " fail, " + std::to_string(n[2]) + " unproven";
  std::string s = "{\n  \"schema\": \"softmx-report/1\",\n  \"title\": " + jstr(title) + ",\n  \"softmx\": {\"version\": " +
                  jstr(kVersion) + ", \"build\": " + jstr(build) + "},\n  \"command\": " + jstr(command) +
                  ",\n  \"date\": " + jstr(date) + ",\n  \"status\": \"" + vec::name(st) + "\",\n  \"exit_status\": " +
                  std::to_string(exit_status()) + ",\n  \"verdict\": " + jstr(verdict) + ",\n  \"counts\": {\"pass\": " +
                  jnum(n[0]) + ", \"fail\": " + jnum(n[1]) + ", \"unproven\": " + jnum(n[2]) + "},\n  \"max_failures\": " +
                  jnum(max_failures) + ",\n  \"verified\": [";
  for (std::size_t i = 0; i < verified.size(); ++i) s += (i ? ",\n  " : "\n  ") + verified[i].json();
  s += "],\n  \"identified\": [";
  for (std::size_t i = 0; i < identified.size(); ++i) s += (i ? ",\n  " : "\n  ") + identified[i].json();
  s += "],\n  \"diffs\": [";
  for (std::size_t i = 0; i < diffs.size(); ++i) s += (i ? ",\n  " : "\n  ") + diffs[i].json();
  s += "],\n  \"reproduce\": " +
       commands_json({{"softmx --version", "softmx " + std::string(kVersion)}, {command, status_expect(st)}}) + "\n}\n";
  return s;
}

}  // namespace softmx::vec
