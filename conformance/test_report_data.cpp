// conformance/test_report_data.cpp: the certificate's numbers (softmx/vectors/report_data.hpp,
// issue 27). A hand-made file with faults planted in known classes gives exact per-class counts;
// the classes agree with explain's exact neighbours and with plain double arithmetic on every
// 16-bit input; a run table's counts (binade by binade) equal the code-by-code counts; verify with
// the report's observer gives the very verdict, JSON and errors it gives without; every operation's
// generated file with one planted fault shows that fault in its counts, its grid and its failures;
// `softmx report` exits as verify does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/error.hpp"
#include "softmx/explain.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report_data.hpp"
#include "softmx/vectors/verify.hpp"
#include "support/cli_run.hpp"
#include "support/sanitized.hpp"

namespace {

namespace vec = softmx::vec;
using softmx::Format;
using softmx::FormatId;
using namespace softmx::testing;  // run_cli, scratch_dir, slurp, write_file
using vec::InputClass;
using u64 = std::uint64_t;

std::size_t ci(InputClass c) { return static_cast<std::size_t>(c); }

vec::Header convert_header(FormatId from, FormatId to) {
  vec::Header h;
  h.operation = vec::Operation::convert;
  h.from = from;
  h.to = to;
  h.ctx.rounding = softmx::Rounding::rne;
  h.ctx.saturation = softmx::Saturation::finite;
  h.dialect = "ocp";
  h.validate("test");
  return h;
}

// ---- a hand-made file, faults planted in known classes ----

struct Case {
  u64 in;
  InputClass cls;
};

// f32 inputs into e4m3 (rne, satfinite, ocp), each with the class it must get.
const std::vector<Case>& hand_cases() {
  static const std::vector<Case> c = {
      {0x3F800000, InputClass::normal},     // 1
      {0x40000000, InputClass::normal},     // 2
      {0x3F900000, InputClass::normal},     // 1.125, exact
      {0x3F8C0000, InputClass::normal},     // 1.09375: between 1 and 1.125, not halfway
      {0x43E00000, InputClass::normal},     // 448, the largest finite
      {0x3B800000, InputClass::subnormal},  // 2^-8, exact subnormal
      {0x3B100000, InputClass::subnormal},  // 1.125 * 2^-9: between subnormals
      {0x3C7FFFFF, InputClass::subnormal},  // just below 2^-6, the smallest normal
      {0x3F880000, InputClass::tie},        // 1.0625: halfway between 1 and 1.125
      {0x3A800000, InputClass::tie},        // 2^-10: halfway between 0 and 2^-9
      {0x3B400000, InputClass::tie},        // 1.5 * 2^-9: halfway between two subnormals
      {0x43E80000, InputClass::overflow},   // 464: a tie, but beyond 448 (overflow first)
      {0x43E00001, InputClass::overflow},   // just above 448
      {0x7F7FFFFF, InputClass::overflow},   // f32's largest
      {0xC3F00000, InputClass::overflow},   // -480
      {0x00000000, InputClass::zero},
      {0x80000000, InputClass::zero},
      {0x7F800000, InputClass::inf},
      {0xFF800000, InputClass::inf},
      {0x7FC00000, InputClass::nan},
      {0xFFC00001, InputClass::nan},
      {0x7F800001, InputClass::nan},        // signalling
  };
  return c;
}

// The hand-made file: softmx's own results and flags, then the planted faults: a tie's result (its
// odd neighbour), an overflow's result (NaN instead of saturating), a NaN's flags (inexact raised)
// and a subnormal's flags (underflow dropped). No level: completeness unproven (exit 3 otherwise).
std::string hand_file() {
  const vec::Header h = convert_header(FormatId::f32, FormatId::e4m3);
  const softmx::Converter conv(FormatId::f32, FormatId::e4m3, h.ctx, h.dialect_ref());
  std::string s = vec::header_text(h) + "# IN OUT FLAGS\n";
  for (const Case& c : hand_cases()) {
    softmx::Result r = conv(c.in);
    if (c.in == 0x3F880000) r.code = 0x39;         // tie: result
    if (c.in == 0x43E80000) r.code = 0x7F;         // overflow: result
    if (c.in == 0x7FC00000) r.flags ^= softmx::flag::inexact;      // nan: flags
    if (c.in == 0x3B100000) r.flags &= ~softmx::flag::underflow;  // subnormal: flags
    s += softmx::hex(c.in, 8) + " " + softmx::hex(r.code, 2) + " " + softmx::hex(r.flags, 2) + "\n";
  }
  return s;
}

TEST(ReportData, HandMadeFileCountsEveryClassExactly) {
  const vec::Header h = convert_header(FormatId::f32, FormatId::e4m3);
  const vec::CaseClassifier cls(h);
  std::array<u64, vec::kInputClasses> checked{};
  for (const Case& c : hand_cases()) {
    EXPECT_EQ(cls.classify_code(c.in), c.cls) << softmx::hex(c.in, 8) << " is " << vec::name(cls.classify_code(c.in));
    ++checked[ci(c.cls)];
  }
  const std::string path = scratch_dir("report_data") + "/hand.vec";
  write_file(path, hand_file());
  vec::ReportInputs in;
  in.verify = {path};
  const vec::ReportData d = vec::make_report(in, vec::ReportOptions{});
  ASSERT_EQ(d.verified.size(), 1u);
  const vec::VerifyReport& r = d.verified[0];
  EXPECT_EQ(r.verify.result_mismatches, 2u);
  EXPECT_EQ(r.verify.flags_only_mismatches, 2u);
  EXPECT_EQ(r.verify.status, vec::VerdictStatus::fail);
  EXPECT_EQ(d.exit_status(), 1);
  for (std::size_t i = 0; i < vec::kInputClasses; ++i) {
    const auto c = static_cast<InputClass>(i);
    SCOPED_TRACE(vec::name(c));
    EXPECT_EQ(r.classes[i].checked, checked[i]);
    EXPECT_EQ(r.classes[i].flags_checked, checked[i]);
    EXPECT_EQ(r.classes[i].result_failed, c == InputClass::tie || c == InputClass::overflow ? 1u : 0u);
    EXPECT_EQ(r.classes[i].flags_failed, c == InputClass::nan || c == InputClass::subnormal ? 1u : 0u);
  }
  // Failures: each planted line, in file order, with its class and error.
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].operands, "3B100000");
  EXPECT_EQ(r.failures[0].cls, InputClass::subnormal);
  EXPECT_EQ(r.failures[0].ulps, "flags only");
  EXPECT_EQ(r.failures[1].operands, "3F880000");
  EXPECT_EQ(r.failures[1].cls, InputClass::tie);
  EXPECT_EQ(r.failures[1].ulps, "+1 ulp");
  EXPECT_NE(r.failures[1].producers.find("rna"), std::string::npos) << r.failures[1].producers;
  EXPECT_NE(r.failures[1].softmx_reason.find("tie"), std::string::npos) << r.failures[1].softmx_reason;
  EXPECT_EQ(r.failures[2].operands, "43E80000");
  EXPECT_EQ(r.failures[2].cls, InputClass::overflow);
  EXPECT_EQ(r.failures[2].ulps, "NaN");
  EXPECT_EQ(r.failures[3].cls, InputClass::nan);
  EXPECT_FALSE(r.failures[3].report.empty());
  // The ulp histogram: one +1 (the tie) and one NaN (the overflow).
  ASSERT_EQ(r.ulp.size(), 1u);
  EXPECT_EQ(r.ulp[0].nan, 1u);
  EXPECT_EQ(r.ulp[0].bins.at(1), 1u);
  EXPECT_EQ(r.ulp[0].total(), 2u);
  // The grid: every case in a cell, the four failing ones marked.
  u64 cells = 0, failing = 0;
  for (std::size_t i = 0; i < r.grid.checked.size(); ++i) cells += r.grid.checked[i], failing += r.grid.failed[i];
  EXPECT_EQ(cells, hand_cases().size());
  EXPECT_EQ(failing, 4u);
  // The file's provenance.
  EXPECT_EQ(r.file.bytes, hand_file().size());
  EXPECT_EQ(r.file.sha256.size(), 64u);
  const std::string json = d.json();
  EXPECT_NE(json.find("\"schema\": \"softmx-report/1\""), std::string::npos);
  EXPECT_NE(json.find("\"class\": \"tie\", \"checked\": 3, \"result_failed\": 1"), std::string::npos) << json.substr(0, 4000);
}

TEST(ReportData, SameFileWithoutFaultsIsUnprovenAndCountsNoFailure) {
  const vec::Header h = convert_header(FormatId::f32, FormatId::e4m3);
  const softmx::Converter conv(FormatId::f32, FormatId::e4m3, h.ctx, h.dialect_ref());
  std::string s = vec::header_text(h);
  for (const Case& c : hand_cases()) {
    const softmx::Result r = conv(c.in);
    s += softmx::hex(c.in, 8) + " " + softmx::hex(r.code, 2) + " " + softmx::hex(r.flags, 2) + "\n";
  }
  const std::string path = scratch_dir("report_data") + "/clean.vec";
  write_file(path, s);
  vec::ReportInputs in;
  in.verify = {path};
  const vec::ReportData d = vec::make_report(in, vec::ReportOptions{});
  EXPECT_EQ(d.status(), vec::VerdictStatus::unproven);
  EXPECT_EQ(d.exit_status(), 3);
  for (const auto& c : d.verified[0].classes) EXPECT_EQ(c.result_failed + c.flags_failed, 0u);
  vec::ReportOptions o;
  o.accept_unproven = true;
  EXPECT_EQ(vec::make_report(in, o).exit_status(), 0);
}

// ---- the classes against independent arithmetic ----

// Every input of a 16-bit source: the class from report_data against double arithmetic (the
// value's magnitude against the destination's largest finite and smallest normal) and explain's
// exact neighbours (the tie).
void check_all_codes(FormatId src, FormatId dst) {
  SCOPED_TRACE(std::string(softmx::format(src).name.view()) + " -> " + std::string(softmx::format(dst).name.view()));
  const vec::CaseClassifier cls(convert_header(src, dst));
  const Format& s = softmx::format(src);
  const Format& d = softmx::format(dst);
  const softmx::Unpacked mx = softmx::unpack(d, d.max_finite_magnitude());
  const double max = std::ldexp(static_cast<double>(mx.sig), mx.exp - 63);
  const double min_normal = std::ldexp(1.0, d.emin());
  for (u64 c = 0; c <= s.code_mask(); ++c) {
    const softmx::Unpacked u = softmx::unpack(s, c);
    InputClass want;
    if (u.cls == softmx::ValueClass::nan) want = InputClass::nan;
    else if (u.cls == softmx::ValueClass::inf) want = InputClass::inf;
    else if (u.cls == softmx::ValueClass::zero) want = InputClass::zero;
    else {
      const double v = std::ldexp(static_cast<double>(u.sig), u.exp - 63);
      const softmx::ExplainInput in = softmx::explain_input_code(s, c);
      if (v > max) want = InputClass::overflow;
      else if (softmx::find_neighbours(in, d).tie()) want = InputClass::tie;
      else if (v < min_normal && !d.fixed_point) want = InputClass::subnormal;
      else want = InputClass::normal;
    }
    ASSERT_EQ(cls.classify_code(c), want) << softmx::hex(c, 4) << ": " << vec::name(cls.classify_code(c)) << ", expected "
                                          << vec::name(want);
  }
}

TEST(ReportData, ClassesOfEverySixteenBitInput) {
  // Under AddressSanitizer (scripts/test-sanitized.sh) two pairs of formats instead of twelve:
  // explain's exact neighbours are slow there, and the release run checks them all.
  if (softmx::testing::kAddressSanitizer) {
    check_all_codes(FormatId::f16, FormatId::e4m3);
    check_all_codes(FormatId::bf16, FormatId::e2m1);
    return;
  }
  for (FormatId src : {FormatId::f16, FormatId::bf16})
    for (FormatId dst : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1})
      check_all_codes(src, dst);
  check_all_codes(FormatId::e4m3, FormatId::e2m1);
  check_all_codes(FormatId::f16, FormatId::bf16);
}

// count_codes_by_binades against code by code.
void check_counts(FormatId src, FormatId dst, u64 lo, u64 hi) {
  const vec::CaseClassifier cls(convert_header(src, dst));
  const auto fast = cls.count_codes_by_binades(lo, hi);
  ASSERT_TRUE(fast);
  vec::ClassArray slow{};
  for (u64 c = lo;; ++c) {
    ++slow[ci(cls.classify_code(c))];
    if (c == hi) break;
  }
  for (std::size_t i = 0; i < vec::kInputClasses; ++i)
    ASSERT_EQ((*fast)[i], slow[i]) << std::string(softmx::format(src).name.view()) << " -> "
                                   << std::string(softmx::format(dst).name.view()) << " " << softmx::hex(lo, 8) << ".."
                                   << softmx::hex(hi, 8) << ": " << vec::name(static_cast<InputClass>(i));
}

TEST(ReportData, CountsByBinadesEqualCountsCodeByCode) {
  const std::vector<FormatId> dsts = {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1, FormatId::int8, FormatId::e8m0,
                                      FormatId::bf16, FormatId::f16};
  for (FormatId src : {FormatId::f16, FormatId::bf16, FormatId::e5m2})
    for (FormatId dst : dsts)
      if (dst != src) check_counts(src, dst, 0, softmx::format(src).code_mask());
  // f32: ranges across every kind of boundary, and random ones.
  std::mt19937_64 rng(27);
  std::vector<std::pair<u64, u64>> ranges = {{0, 0xFFFF},           {0x007F0000, 0x00810000}, {0x3A7F0000, 0x3A810000},
                                             {0x3C7F8000, 0x3C808000}, {0x43DF0000, 0x43E1FFFF}, {0x7F7F0000, 0x7F80FFFF},
                                             {0x7FFF0000, 0x8000FFFF}, {0xFF7F8000, 0xFFFFFFFF}};
  for (int i = 0; i < 24; ++i) {
    const u64 a = rng() & 0xFFFFFFFF, n = rng() % 50000;
    ranges.emplace_back(a, std::min<u64>(0xFFFFFFFF, a + n));
  }
  for (FormatId dst : dsts)
    for (const auto& [lo, hi] : ranges) check_counts(FormatId::f32, dst, lo, hi);
  // Every f32 input: the counts add up to 2^32.
  const vec::CaseClassifier cls(convert_header(FormatId::f32, FormatId::e4m3));
  const vec::ClassArray all = cls.count_codes(0, 0xFFFFFFFF);
  u64 total = 0;
  for (u64 n : all) total += n;
  EXPECT_EQ(total, u64{1} << 32);
  EXPECT_EQ(all[ci(InputClass::zero)], 2u);
  EXPECT_EQ(all[ci(InputClass::inf)], 2u);
  EXPECT_EQ(all[ci(InputClass::nan)], 2 * ((u64{1} << 23) - 1));
}

TEST(ReportData, UlpDistances) {
  const Format& e4m3 = softmx::format(FormatId::e4m3);
  EXPECT_EQ(vec::ulp_distance(e4m3, 0x39, 0x38).text(), "+1 ulp");
  EXPECT_EQ(vec::ulp_distance(e4m3, 0xB9, 0xB8).text(), "-1 ulp");  // more negative
  EXPECT_EQ(vec::ulp_distance(e4m3, 0x01, 0x81).text(), "+2 ulps");  // across zero
  EXPECT_EQ(vec::ulp_distance(e4m3, 0x80, 0x00).text(), "+0 vs -0");
  EXPECT_EQ(vec::ulp_distance(e4m3, 0x7F, 0x7E).text(), "NaN");
  EXPECT_EQ(vec::ulp_distance(e4m3, 0x38, 0x38).kind, vec::UlpDistance::Kind::same);
  EXPECT_EQ(vec::ulp_distance(softmx::format(FormatId::int8), 0x80, 0x7F).text(), "-255 ulps");
  EXPECT_EQ(vec::ulp_distance(softmx::format(FormatId::e5m2), 0x7C, 0x7B).text(), "+1 ulp");  // Inf one past max
  const Format& f64 = softmx::format(FormatId::f64);
  EXPECT_EQ(vec::ulp_distance(f64, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF).magnitude, 0xFFDFFFFFFFFFFFFEull);
}

// ---- verify with the observer is verify ----

struct Counting final : vec::VerifyObserver {
  u64 cases = 0, ranges = 0;
  void on_case(std::span<const u64>, std::span<const u64>, bool, softmx::Flags, std::span<const u64>, softmx::Flags) override {
    ++cases;
  }
  void on_range(const vec::RangeMismatch&) override { ++ranges; }
};

/// verify_file's JSON of `text` under `o`, or "" and its error's message.
std::pair<std::string, std::string> verdict_or_error(const std::string& text, const vec::VerifyOptions& o) {
  try {
    auto r = vec::VectorReader::from_string(text, "t.vec");
    return {vec::verify_file(*r, o).json(), ""};
  } catch (const std::exception& e) {
    return {"", e.what()};
  }
}

void same_verdict(const std::string& text) {
  vec::VerifyOptions o;
  o.max_errors = 5;
  const auto plain = verdict_or_error(text, o);
  Counting obs;
  o.observer = &obs;
  const auto seen = verdict_or_error(text, o);
  EXPECT_EQ(seen.first, plain.first);
  EXPECT_EQ(seen.second, plain.second);
}

TEST(ReportData, VerifyWithAnObserverGivesTheSameVerdictAndErrors) {
  const std::string dir = scratch_dir("report_data");
  ASSERT_EQ(run_cli("gen convert --from f16 --to e5m2 -o '" + dir + "/g.vec'").status, 0);
  const std::string good = slurp(dir + "/g.vec");
  same_verdict(good);
  same_verdict(hand_file());
  // A wrong result, a dropped line, a line without results, a bad field, a file without data.
  std::string bad = good;
  const auto at = bad.find("\n3C00 ");
  ASSERT_NE(at, std::string::npos);
  bad[at + 6] = bad[at + 6] == '0' ? '1' : '0';
  same_verdict(bad);
  std::string cut = good;
  cut.erase(at + 1, cut.find('\n', at + 1) - at);
  same_verdict(cut);
  same_verdict(good.substr(0, at + 1) + "3C00\n");
  same_verdict(good.substr(0, at + 1) + "3C00 ZZ 00\n");
  same_verdict(vec::header_text(convert_header(FormatId::f16, FormatId::e5m2)));
  // The observer saw every line.
  Counting obs;
  vec::VerifyOptions o;
  o.observer = &obs;
  auto r = vec::VectorReader::from_string(good, "t.vec");
  const vec::VerifyResult v = vec::verify_file(*r, o);
  EXPECT_EQ(obs.cases, v.cases);
  EXPECT_EQ(obs.cases, 65536u);
}

// ---- run tables ----

TEST(ReportData, RunTableCountsEveryInputAndThePlantedRange) {
  const std::string dir = scratch_dir("report_data");
  ASSERT_EQ(run_cli("sweep --from f16 --to e4m3 -o '" + dir + "/t.vec'").status, 0);
  std::string t = slurp(dir + "/t.vec");
  // Plant: the run starting at 3C01 (just above 1.0) gives one code more.
  const auto at = t.find("\n3C01 ");
  ASSERT_NE(at, std::string::npos) << t.substr(0, 2000);
  const auto eol = t.find('\n', at + 1);
  std::istringstream line(t.substr(at + 1, eol - at - 1));
  std::string first, out, flags;
  line >> first >> out >> flags;
  const u64 code = std::stoull(out, nullptr, 16) + 1;
  t.replace(at + 1, eol - at - 1, first + " " + softmx::hex(code, 2) + " " + flags);
  write_file(dir + "/bad.vec", t);
  // The run's extent: up to the next run's first input.
  const auto next = t.find('\n', eol + 1);
  const u64 last = std::stoull(t.substr(eol + 1, next - eol - 1).substr(0, 4), nullptr, 16) - 1;

  vec::ReportInputs in;
  in.verify = {dir + "/bad.vec"};
  in.identify = {dir + "/bad.vec"};
  in.diff = {{dir + "/t.vec", dir + "/bad.vec"}};
  const vec::ReportData d = vec::make_report(in, vec::ReportOptions{});
  const vec::VerifyReport& r = d.verified.at(0);
  const vec::CaseClassifier cls(convert_header(FormatId::f16, FormatId::e4m3));
  const vec::ClassArray all = cls.count_codes(0, 0xFFFF), bad = cls.count_codes(0x3C01, last);
  u64 total = 0, failed = 0;
  for (std::size_t i = 0; i < vec::kInputClasses; ++i) {
    EXPECT_EQ(r.classes[i].checked, all[i]);
    EXPECT_EQ(r.classes[i].result_failed, bad[i]);
    total += r.classes[i].checked;
    failed += r.classes[i].result_failed;
  }
  EXPECT_EQ(total, 65536u);
  EXPECT_EQ(failed, last - 0x3C01 + 1);
  EXPECT_EQ(failed, r.verify.result_mismatches);
  ASSERT_TRUE(r.band);
  EXPECT_EQ(r.band->total(), failed);
  u64 gc = 0, gf = 0;
  for (std::size_t i = 0; i < r.grid.checked.size(); ++i) gc += r.grid.checked[i], gf += r.grid.failed[i];
  EXPECT_EQ(gc, 65536u);
  EXPECT_EQ(gf, failed);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(r.failures[0].range);
  EXPECT_EQ(r.failures[0].first, 0x3C01u);
  EXPECT_EQ(r.failures[0].ulps, "+1 ulp");
  // identify names rne as the best and says it disagrees; diff finds the same range.
  const vec::IdentifyReport& id = d.identified.at(0);
  EXPECT_EQ(id.status, vec::VerdictStatus::fail);
  EXPECT_EQ(id.failures.size(), 1u);
  const vec::DiffReport& df = d.diffs.at(0);
  EXPECT_EQ(df.ranges, 1u);
  EXPECT_EQ(df.differing, failed);
  EXPECT_EQ(df.band.total(), failed);
  EXPECT_EQ(d.exit_status(), 1);
}

// ---- every operation ----

TEST(ReportData, EveryOperationShowsItsPlantedFault) {
  const std::string dir = scratch_dir("report_data");
  const std::vector<std::string> gens = {
      "convert --from f32 --to e2m1",
      "convert --from bf16 --to e3m2 --round rs --rbits 8",
      "quantize --from f32 --to e4m3",
      "dequantize --from e2m1 --to bf16",
      "dot --a e4m3 --b e5m2",
      "mma --a e4m3 --b e4m3",
      "mma --a e2m1 --b e2m1 --model blackwell-mxf4",
  };
  int k = 0;
  for (const std::string& g : gens) {
    SCOPED_TRACE(g);
    const std::string path = dir + "/op" + std::to_string(k++) + ".vec";
    ASSERT_EQ(run_cli("gen " + g + " -o '" + path + "'").status, 0);
    const std::string text = slurp(path);
    auto reader = vec::VectorReader::from_string(text, "x");
    const std::size_t operands = reader->layout().operands.size();
    // The first data line is the line after the header's last key (a comment may sit between).
    std::string planted;
    {
      std::istringstream in(text);
      std::string line;
      bool done = false, in_header = true;
      while (std::getline(in, line)) {
        const bool data = !line.empty() && line[0] != '#' && line.find('=') == std::string::npos;
        if (in_header && !data) {
          planted += line + "\n";
          continue;
        }
        in_header = false;
        if (!done) {
          std::istringstream f(line);
          std::vector<std::string> fields;
          for (std::string x; f >> x;) fields.push_back(x);
          std::string& r = fields.at(operands);
          r.back() = r.back() == '0' ? '1' : '0';
          line.clear();
          for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? " " : "") + fields[i];
          done = true;
        }
        planted += line + "\n";
      }
    }
    write_file(path, planted);
    vec::ReportInputs in;
    in.verify = {path};
    const vec::ReportData d = vec::make_report(in, vec::ReportOptions{});
    const vec::VerifyReport& r = d.verified.at(0);
    EXPECT_EQ(r.verify.status, vec::VerdictStatus::fail);
    u64 checked = 0, failed = 0;
    for (const auto& c : r.classes) checked += c.checked, failed += c.result_failed;
    EXPECT_EQ(checked, r.verify.cases);
    EXPECT_EQ(failed, 1u);
    u64 gf = 0;
    for (u64 f : r.grid.failed) gf += f;
    EXPECT_GE(gf, 1u);
    u64 ulps = 0;
    for (const auto& h : r.ulp) ulps += h.total();
    EXPECT_EQ(ulps, 1u);
    ASSERT_EQ(r.failures.size(), 1u);
    EXPECT_FALSE(r.failures[0].report.empty());
    EXPECT_FALSE(r.failures[0].producers.empty());
    EXPECT_LT(d.json().size(), 2u << 20);
  }
}

// ---- the command ----

TEST(ReportData, CommandExitsAsVerifyAndNamesBadInput) {
  const std::string dir = scratch_dir("report_data");
  write_file(dir + "/hand.vec", hand_file());
  auto rep = run_cli("report --json -o '" + dir + "/r.json' '" + dir + "/hand.vec'");
  EXPECT_EQ(rep.status, 1) << rep.err;
  EXPECT_EQ(run_cli("verify '" + dir + "/hand.vec'").status, 1);
  EXPECT_NE(slurp(dir + "/r.json").find("\"exit_status\": 1"), std::string::npos);
  // Unproven: exit 3, and 0 with --accept-unproven.
  ASSERT_EQ(run_cli("gen convert --from f16 --to e4m3 -o '" + dir + "/g.vec'").status, 0);
  std::string g = slurp(dir + "/g.vec");
  const auto lv = g.find("level = 1\n");
  ASSERT_NE(lv, std::string::npos);
  g.erase(lv, 10);
  write_file(dir + "/u.vec", g);
  EXPECT_EQ(run_cli("report --json -o /dev/null '" + dir + "/u.vec'").status, 3);
  EXPECT_EQ(run_cli("report --json --accept-unproven -o /dev/null '" + dir + "/u.vec'").status, 0);
  EXPECT_EQ(run_cli("report --json -o /dev/null '" + dir + "/g.vec'").status, 0);
  // Bad input: exit 2, the file and line named; nothing written.
  const std::string hand = hand_file();
  write_file(dir + "/bad.vec", hand + "3F800000 GG 00\n");
  rep = run_cli("report --json -o '" + dir + "/never.json' '" + dir + "/bad.vec'");
  EXPECT_EQ(rep.status, 2);
  const auto bad_line = std::count(hand.begin(), hand.end(), '\n') + 1;
  EXPECT_NE(rep.err.find("bad.vec line " + std::to_string(bad_line)), std::string::npos) << rep.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/never.json"));
  rep = run_cli("report --json -");
  EXPECT_EQ(rep.status, 2);
  EXPECT_NE(rep.err.find("standard input"), std::string::npos) << rep.err;
  rep = run_cli("report --json");
  EXPECT_EQ(rep.status, 2);
  rep = run_cli("report --json --diff '" + dir + "/g.vec' '" + dir + "/u.vec'");
  EXPECT_EQ(rep.status, 2);
  EXPECT_NE(rep.err.find("not a run table"), std::string::npos) << rep.err;
}

}  // namespace
