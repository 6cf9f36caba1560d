// conformance/test_engine_api.cpp: the vector engine as a C++ program uses it (issue 13):
// only the public headers under include/softmx/vectors/, no command line. gen then verify in
// one process: write_vectors() gives the bytes of the committed file `softmx gen` made,
// check_cases() passes it and names a planted wrong result, a dropped line and a duplicated
// one; sweep_table() gives a committed run table's bytes and check_runs() catches a wrong run.
// This pins the library API the CLI and the Python module are built on.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/error.hpp"
#include "softmx/vectors/case_check.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_check.hpp"
#include "softmx/vectors/run_table.hpp"
#include "softmx/vectors/table_diff.hpp"

namespace {

namespace fs = std::filesystem;
namespace vec = softmx::vec;
using softmx::FormatId;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path committed(const std::string& rel) { return fs::path(SOFTMX_SOURCE_DIR) / "vectors" / rel; }

// What `softmx gen quantize --from f32 --to e2m1 --block 32 --scale floor --round rne --sat
// finite --dialect ocp` resolves to (vectors/MANIFEST).
vec::Header quantize_e2m1() {
  vec::Header h;
  h.operation = vec::Operation::quantize;
  h.from = FormatId::f32;
  h.to = FormatId::e2m1;
  h.block = 32;
  h.scale = softmx::ScaleRule::floor;
  h.ctx.rounding = softmx::Rounding::rne;
  h.ctx.saturation = softmx::Saturation::finite;
  h.dialect = "ocp";
  h.validate("test");
  return h;
}

// gen in-process: the whole file as the library writes it.
std::string generate(const vec::Header& h, const vec::GenOptions& o) {
  const fs::path p = fs::temp_directory_path() / ("softmx_engine_api_" + std::to_string(::getpid()) + ".vec");
  const vec::Evaluator ev(h);
  vec::OutputFile out(p.string());
  const std::uint64_t n = vec::write_vectors(ev, o, vec::WriteOptions{}, out);
  out.commit();
  std::string text = slurp(p);
  fs::remove(p);
  EXPECT_GT(n, 0u);
  return text;
}

struct Verdict {
  vec::CaseCheck check;
  std::vector<std::uint64_t> mismatch_lines;
};

// verify in-process.
Verdict verify(const std::string& text) {
  auto r = vec::VectorReader::from_string(text, "results.vec");
  const vec::Evaluator ev(r->header());
  Verdict v;
  v.check = vec::check_cases(*r, ev, [&](const vec::CaseMismatch& m) { v.mismatch_lines.push_back(m.line); });
  return v;
}

// The text with line `n` (from 1) replaced by `with` (empty: removed).
std::string replace_line(const std::string& text, std::uint64_t n, const std::string& with, bool remove = false) {
  std::istringstream in(text);
  std::string line, out;
  for (std::uint64_t i = 1; std::getline(in, line); ++i) {
    if (i == n && remove) continue;
    out += (i == n ? with : line) + "\n";
  }
  return out;
}

// The number (from 1) of the first data line: after the header and comments.
std::uint64_t first_data_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::uint64_t i = 0;
  bool in_header = true;
  while (std::getline(in, line)) {
    ++i;
    if (line.empty() || line[0] == '#' || line.find(" = ") != std::string::npos || line.rfind("softmx-vectors", 0) == 0)
      continue;
    if (in_header) return i;
  }
  return 0;
}

TEST(EngineApi, GenWritesTheCommittedBytesAndVerifyPassesThem) {
  const vec::Header h = quantize_e2m1();
  const std::string text = generate(h, vec::GenOptions{});
  EXPECT_EQ(text, slurp(committed("blocks/quantize-f32-e2m1-k32-floor-L1.vec")));

  const Verdict v = verify(text);
  EXPECT_TRUE(v.check.pass());
  EXPECT_EQ(v.check.result_mismatches, 0u);
  EXPECT_TRUE(v.check.completeness.checked());
  EXPECT_TRUE(v.check.completeness.complete());
  // The header records the count and digest that summarize_cases() computes.
  const vec::Evaluator ev(h);
  const vec::CaseSummary s = vec::summarize_cases(ev, vec::GenOptions{});
  EXPECT_EQ(v.check.cases, s.cases);
  auto r = vec::VectorReader::from_string(text, "x");
  ASSERT_TRUE(r->header().cases.has_value());
  EXPECT_EQ(*r->header().cases, s.cases);
  EXPECT_EQ(r->header().inputs_sha256, s.sha256);
  EXPECT_EQ(r->header().generator, std::string(vec::kGeneratorName));
}

TEST(EngineApi, VerifyNamesAWrongResultAMissingAndADuplicatedLine) {
  const std::string text = generate(quantize_e2m1(), vec::GenOptions{});
  const std::uint64_t first = first_data_line(text);
  ASSERT_GT(first, 1u);
  const std::uint64_t target = first + 3;
  std::istringstream in(text);
  std::string line;
  for (std::uint64_t i = 0; i < target; ++i) std::getline(in, line);
  // The first element code (one hex digit for e2m1), after the operands and the scale.
  std::vector<std::string> fields;
  std::istringstream split(line);
  for (std::string f; split >> f;) fields.push_back(f);
  const std::size_t code = vec::VectorReader::from_string(text, "x")->layout().operands.size() + 1;
  ASSERT_LT(code, fields.size());
  ASSERT_EQ(fields[code].size(), 1u) << line;
  fields[code] = fields[code] == "0" ? "1" : "0";
  std::string bad;
  for (const std::string& f : fields) bad += (bad.empty() ? "" : " ") + f;
  const Verdict wrong = verify(replace_line(text, target, bad));
  EXPECT_FALSE(wrong.check.pass());
  EXPECT_EQ(wrong.check.result_mismatches, 1u);
  EXPECT_EQ(wrong.mismatch_lines, std::vector<std::uint64_t>{target});
  EXPECT_TRUE(wrong.check.completeness.complete());  // every case is there, one is wrong

  const Verdict dropped = verify(replace_line(text, target, "", true));
  EXPECT_EQ(dropped.check.result_mismatches, 0u);
  EXPECT_FALSE(dropped.check.completeness.complete());
  EXPECT_EQ(dropped.check.completeness.missing, 1u);
  EXPECT_FALSE(dropped.check.pass());

  const Verdict doubled = verify(replace_line(text, target, line + "\n" + line));
  EXPECT_FALSE(doubled.check.completeness.complete());
  EXPECT_EQ(doubled.check.completeness.duplicated, 1u);
}

TEST(EngineApi, BadInputIsAnInputErrorNamingFileAndLine) {
  const std::string text = generate(quantize_e2m1(), vec::GenOptions{});
  const std::uint64_t first = first_data_line(text);
  try {
    verify(replace_line(text, first, "ZZ"));
    FAIL() << "a malformed line verified";
  } catch (const softmx::InputError& e) {
    EXPECT_EQ(e.file(), "results.vec");
    EXPECT_EQ(e.line(), first);
    EXPECT_NE(std::string(e.what()).find("results.vec line " + std::to_string(first)), std::string::npos) << e.what();
  }
  vec::Header h = quantize_e2m1();
  h.from = FormatId::e4m3;  // quantize reads f64, f32, f16 or bf16
  EXPECT_THROW(h.validate("here"), softmx::InputError);
}

TEST(EngineApi, SweepWritesTheCommittedRunTableAndCheckRunsCatchesAWrongRun) {
  softmx::Context ctx;
  ctx.rounding = softmx::Rounding::rd;
  ctx.saturation = softmx::Saturation::finite;
  const vec::Header h = vec::sweep_header(FormatId::bf16, FormatId::e2m1, ctx, "ocp", vec::InputRange{0, 0xFFFF});
  std::string table;
  vec::SweepOptions o;
  o.threads = 2;
  o.chunk = 4096;  // many chunks: the table must not depend on them
  vec::sweep_table(h, o, table);
  EXPECT_EQ(table, slurp(committed("runs/ocp/bf16/e2m1-rd-finite.runs")));

  std::uint64_t ranges = 0;
  auto check = [&](const std::string& t) {
    ranges = 0;
    auto r = vec::VectorReader::from_string(t, "table.runs");
    return vec::check_runs(*r, r->header(), 2, [&](const vec::RangeMismatch&) { ++ranges; }, false);
  };
  const vec::RunCheckStats ok = check(table);
  EXPECT_EQ(ok.inputs, 65536u);
  EXPECT_EQ(ok.result_mismatches, 0u);
  EXPECT_EQ(ranges, 0u);
  // The same inputs checked under rne (another header) disagree somewhere.
  auto r = vec::VectorReader::from_string(table, "table.runs");
  vec::Header rne = r->header();
  rne.ctx.rounding = softmx::Rounding::rne;
  std::uint64_t rne_ranges = 0;
  const vec::RunCheckStats other = vec::check_runs(*r, rne, 2, [&](const vec::RangeMismatch&) { ++rne_ranges; }, false);
  EXPECT_GT(other.result_mismatches, 0u);
  EXPECT_GT(rne_ranges, 0u);
}

TEST(EngineApi, IdentifyNamesTheRoundingADeviceUsed) {
  // A "device" that rounds toward zero, in a file whose header claims rne.
  vec::Header h;
  h.operation = vec::Operation::convert;
  h.from = FormatId::e5m2;
  h.to = FormatId::e2m1;
  h.ctx.rounding = softmx::Rounding::rz;
  h.ctx.saturation = softmx::Saturation::finite;
  h.dialect = "ocp";
  h.validate("test");
  std::string text = generate(h, vec::GenOptions{});
  const std::size_t at = text.find("rounding = rz\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "rounding = rne\n");
  ASSERT_FALSE(verify(text).check.pass());

  vec::IdentifyOptions o;
  const vec::Identification id = vec::identify([&] { return vec::VectorReader::from_string(text, "device.vec"); }, o);
  EXPECT_FALSE(id.runs);
  EXPECT_EQ(id.lines, 256u);
  EXPECT_EQ(id.header.ctx.rounding, softmx::Rounding::rne);
  EXPECT_TRUE(id.identified());
  const vec::Header& best = id.candidates[id.best()].header;
  EXPECT_EQ(best.ctx.rounding, softmx::Rounding::rz);
  EXPECT_EQ(best.dialect, "ocp");  // the nearest to the header among those that agree
  EXPECT_EQ(vec::setting_distance(id.header, best), 1);
  // The header's own setting disagrees somewhere, and keeps the cases for the report.
  const vec::CandidateScore& own = id.scores[0];
  EXPECT_LT(own.agree, own.total);
  EXPECT_FALSE(own.cases.empty());
  EXPECT_LE(own.cases.size(), o.max_errors);
  // Each disagreement's line is the file's own line number (header lines counted), the N of
  // its "device.vec line N", and that line of the text holds the disagreeing operands.
  for (const vec::Disagreement& d : own.cases) {
    EXPECT_EQ(d.where, "device.vec line " + std::to_string(d.line));
    std::size_t pos = 0;
    for (std::uint64_t n = 1; n < d.line; ++n) pos = text.find('\n', pos) + 1;
    const std::string line = text.substr(pos, text.find('\n', pos) - pos);
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02X ", static_cast<unsigned>(d.rec.operands.at(0)));
    EXPECT_EQ(line.rfind(hex, 0), 0u) << d.where << ": " << line;
  }

  EXPECT_EQ(vec::percent(65535, 65536), "99.99%");
  EXPECT_EQ(vec::percent(1, 1000000), "0.0001%");
  EXPECT_EQ(vec::percent(3, 3), "100%");
}

// Every input's OUT and FLAGS, expanded from a committed run table.
std::vector<std::pair<std::uint64_t, softmx::Flags>> expand(const std::string& rel) {
  auto r = vec::VectorReader::open(committed(rel).string());
  std::vector<std::pair<std::uint64_t, softmx::Flags>> v;
  vec::Run run;
  while (r->next_run(run))
    for (std::uint64_t x = run.first; x <= run.last; ++x) v.emplace_back(run.code, run.flags);
  return v;
}

TEST(EngineApi, TableDiffFindsEveryMaximalRangeOfDifferentResults) {
  const std::string a = "runs/ocp/bf16/e2m1-rd-finite.runs", b = "runs/ocp/bf16/e2m1-rna-finite.runs";
  auto ra = vec::VectorReader::open(committed(a).string());
  auto rb = vec::VectorReader::open(committed(b).string());
  vec::require_run_table(*ra);
  vec::require_same_inputs(*ra, *rb);
  vec::RunLockstep walk(*ra, *rb);
  ASSERT_TRUE(walk.flags_compared());
  std::vector<vec::TableDifference> got;
  walk.for_each_difference([&](const vec::TableDifference& d) { got.push_back(d); });
  // The same, input by input, from the expanded tables.
  const auto ea = expand(a), eb = expand(b);
  ASSERT_EQ(ea.size(), 65536u);
  std::vector<vec::TableDifference> want;
  for (std::uint64_t x = 0; x < ea.size(); ++x) {
    if (ea[x] == eb[x]) continue;
    const vec::Outcome oa{ea[x].first, ea[x].second}, ob{eb[x].first, eb[x].second};
    if (!want.empty() && want.back().last + 1 == x && want.back().a == oa && want.back().b == ob) want.back().last = x;
    else want.push_back(vec::TableDifference{x, x, oa, ob});
  }
  ASSERT_FALSE(want.empty());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << i;
    EXPECT_EQ(got[i].last, want[i].last) << i;
    EXPECT_EQ(got[i].a, want[i].a) << i;
    EXPECT_EQ(got[i].b, want[i].b) << i;
  }
  // A table against itself: no difference. Tables over other inputs are refused.
  auto r1 = vec::VectorReader::open(committed(a).string()), r2 = vec::VectorReader::open(committed(a).string());
  vec::RunLockstep self(*r1, *r2);
  std::size_t n = 0;
  self.for_each_difference([&](const vec::TableDifference&) { ++n; });
  EXPECT_EQ(n, 0u);
  auto other = vec::VectorReader::from_string(
      vec::header_text(vec::sweep_header(FormatId::e2m1, FormatId::f32, softmx::Context{}, "ocp", vec::InputRange{0, 15})) +
          "0 00000000 00\n",
      "e2m1.runs");
  EXPECT_THROW(vec::require_same_inputs(*ra, *other), softmx::InputError);
  auto cases = vec::VectorReader::from_string(generate(quantize_e2m1(), vec::GenOptions{}), "q.vec");
  EXPECT_THROW(vec::require_run_table(*cases), softmx::InputError);
}

}  // namespace
