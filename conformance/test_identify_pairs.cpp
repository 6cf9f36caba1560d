// conformance/test_identify_pairs.cpp: `identify` tells every pair of dialects apart (issue 15).
//
// For every dialect D of all_dialects() (a dialect added to the table is covered without a
// change here), the battery below is generated as D computes it (write_vectors, what `softmx
// gen` writes) and identified (vec::identify, what `softmx identify` runs). Two things are
// checked on every file:
//   - D is ranked first, at 100%, with its own settings (the header's), and the file is
//     complete: identify names the system that made the file;
//   - for every other dialect E, whether some setting of E (any rounding, saturation,
//     tininess, scale rule identify tries) also agrees on every case.
// E "covers" D when it does on every file of D's battery: then no file D makes can tell D from
// E. The set of covering pairs is computed and compared with kCovering, a list in which every
// pair says why the two agree; a change to a dialect, to the battery or to identify's
// candidates that makes a pair newly indistinguishable (or distinguishable) fails the test.
// A planted check per dialect alters one result of one of D's files to what another dialect
// gives: D's own setting must then fall below 100% (identify may still name another setting at
// 100%: E itself, where E differs from D on that line only); a planted file that no setting
// matches, and a clean one, also go through the real binary (exit status 1 and 0).
//
// The battery: the operations where dialects differ, each file as `softmx gen` writes it at
// level 1 (boundary inputs and specials for f32/f64 sources; every code for decodes; the
// structured blocks of quantize):
//   - convert f32 -> e4m3, e5m2, e3m2, e2m3, e2m1, int8, e8m0, e4m3fnuz, e5m2fnuz under every
//     rounding (rs included) and saturation D accepts;
//   - convert f64 -> e4m3, e5m2, e8m0 (the double paths), D's default rounding, both
//     saturations;
//   - decode e8m0 -> f32, e5m2 -> f16, e4m3 -> f32, e2m1 -> f32, e4m3fnuz -> f32,
//     e5m2fnuz -> f32, D's defaults (the e5m2 -> f16 decode is what separates ml_dtypes-cpp);
//   - quantize f32 -> e4m3, e5m2, e2m1, int8 and bf16 -> e4m3, int8 (torchmx reads bf16
//     only), k = 32, D's default scale rule, rounding and saturation; bf16 -> e4m3 at level 2
//     with 256 random blocks (seed 1), the only ones that put NaN or Inf beside values near
//     2^120, where torchmx-hw-exact differs from torchmx.
// Measured (release build): 585 files, 1,443,778 cases, about 11 s of CPU. Left out because
// they separate no further pair at their cost: every f16 -> e5m2 input (1.8 s), dequantize
// e2m1 -> f32 (1.4 s).
// An operation D refuses is not in D's battery; a dialect E that refuses an operation in D's
// battery has no candidate for it there, so that file tells them apart.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/dialect.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/reader.hpp"
#include "support/cli_run.hpp"

namespace {

using softmx::testing::slurp;  // a file's bytes (fs::path converts)

namespace fs = std::filesystem;
namespace vec = softmx::vec;
using softmx::FormatId;
using softmx::Rounding;
using softmx::Saturation;
using softmx::ScaleRule;

// Ordered pairs (D, E): E covers D, i.e. for every file of D's battery some setting of E agrees
// on every case. Computed by this test and checked to be exactly this list.
struct Covering {
  const char* d;
  const char* e;
  const char* why;
};
const std::vector<Covering> kCovering = {
    // cuda-sm90 has every policy of cuda (both tables of docs/DIALECTS.md) and the same modes:
    // it differs in which paths run as hardware instructions, which by NVIDIA's design give the
    // software path's results. Only a capture (tools/cuda/) could separate them.
    {"cuda", "cuda-sm90", "same policies and modes; only the instruction that runs differs"},
    {"cuda-sm90", "cuda", "same policies and modes; only the instruction that runs differs"},
    // cuda-sm100 has cuda's policies and also offers rs (cvt.rs.satfinite.*x4.f32) into e4m3,
    // e5m2, e3m2, e2m3, e2m1: its rs files tell it from cuda and cuda-sm90, not the reverse.
    {"cuda", "cuda-sm100", "cuda-sm100 = cuda's policies plus rs"},
    {"cuda-sm90", "cuda-sm100", "cuda-sm100 = cuda-sm90's policies plus rs"},
    // torchao-pre-178817 is torchao with saturation none also accepted into e4m3 (PyTorch's
    // non-saturating cast before PR 178817); under finite, the default of both (to_mx clamps to
    // +-448 before the cast), they agree. Its e4m3 files under none tell it from torchao.
    {"torchao", "torchao-pre-178817", "torchao-pre-178817 = torchao plus saturation none into e4m3"},
};

struct Op {
  vec::Operation op;
  softmx::Format from, to;
  bool every_mode;  // every rounding and saturation D accepts (else D's default rounding)
  bool both_sats;   // both saturations (else D's default)
  int level = 1;    // gen's level; 2 adds `count` random cases (seed 1)
  std::uint64_t count = 0;
};

std::vector<Op> battery_ops() {
  using O = vec::Operation;
  std::vector<Op> v;
  const auto F = [](FormatId f) { return softmx::format(f); };
  for (FormatId to : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8,
                      FormatId::e8m0})
    v.push_back({O::convert, F(FormatId::f32), F(to), true, true});
  // The FNUZ encodings (runtime formats): amd-gfx942 converts into nothing else.
  for (const char* spec : {"e4m3fnuz", "e5m2fnuz"})
    v.push_back({O::convert, F(FormatId::f32), softmx::parse_format_spec(spec), true, true});
  for (FormatId to : {FormatId::e4m3, FormatId::e5m2, FormatId::e8m0})
    v.push_back({O::convert, F(FormatId::f64), F(to), false, true});
  v.push_back({O::convert, F(FormatId::e8m0), F(FormatId::f32), false, false});
  v.push_back({O::convert, F(FormatId::e5m2), F(FormatId::f16), false, false});
  v.push_back({O::convert, F(FormatId::e4m3), F(FormatId::f32), false, false});
  v.push_back({O::convert, F(FormatId::e2m1), F(FormatId::f32), false, false});
  for (const char* spec : {"e4m3fnuz", "e5m2fnuz"})
    v.push_back({O::convert, softmx::parse_format_spec(spec), F(FormatId::f32), false, false});
  for (FormatId to : {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1, FormatId::int8})
    v.push_back({O::quantize, F(FormatId::f32), F(to), false, false});
  // bf16 blocks with 256 random ones (level 2): random bit patterns put NaN or Inf beside values
  // near 2^120 in some blocks, where torchmx-hw-exact keeps subnormal codes (level 1's special
  // blocks sit at scale 2^0 only).
  v.push_back({O::quantize, F(FormatId::bf16), F(FormatId::e4m3), false, false, 2, 256});
  v.push_back({O::quantize, F(FormatId::bf16), F(FormatId::int8), false, false});
  return v;
}

// The headers of D's battery for one operation: every setting D accepts among those asked.
std::vector<vec::Header> headers_for(const softmx::Dialect& d, const Op& op) {
  vec::Header base;
  base.operation = op.op;
  base.from = op.from;
  base.to = op.to;
  base.dialect = std::string(d.name);
  Rounding def_r;
  Saturation def_s;
  if (op.op == vec::Operation::quantize) {
    base.block = 32;
    base.scale = d.block.scale_rule;
    def_r = d.block.element_rounding;
    def_s = d.block.element_saturation;
  } else {
    const softmx::DestinationSupport& s = softmx::support_for(d, op.to);
    def_r = s.default_rounding;
    def_s = s.default_saturation;
  }
  std::vector<Rounding> rs{def_r};
  if (op.every_mode) {
    for (Rounding r : softmx::kDeterministicRoundings)
      if (r != def_r) rs.push_back(r);
    if (def_r != Rounding::rs) rs.push_back(Rounding::rs);
  }
  std::vector<Saturation> ss{def_s};
  if (op.both_sats) ss.push_back(def_s == Saturation::finite ? Saturation::none : Saturation::finite);
  std::vector<vec::Header> out;
  for (Rounding r : rs)
    for (Saturation s : ss) {
      vec::Header h = base;
      h.ctx.rounding = r;
      h.ctx.saturation = s;
      try {
        h.validate("battery");
        vec::Evaluator ev(h);  // throws where D refuses the setting
      } catch (const softmx::InputError&) {
        continue;
      } catch (const std::invalid_argument&) {
        continue;
      }
      out.push_back(h);
    }
  return out;
}

fs::path scratch() {
  static const fs::path dir = [] {
    const fs::path shm = "/dev/shm";  // no disk sync for the temporary files where there is tmpfs
    fs::path base = fs::is_directory(shm) ? shm : fs::temp_directory_path();
    fs::path d = base / ("softmx_identify_pairs_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// The file as `softmx gen` writes it for this header (level 1).
std::string generate(const vec::Header& h, const Op& op) {
  const fs::path p = scratch() / "gen.vec";
  const vec::Evaluator ev(h);
  vec::OutputFile out(p.string());
  vec::GenOptions g;
  g.level = op.level;
  if (op.level == 2) g.count = op.count;
  vec::write_vectors(ev, g, vec::WriteOptions{}, out);
  out.commit();
  return slurp(p);
}

vec::Identification identify_text(const std::string& text) {
  vec::IdentifyOptions o;
  o.progress = false;
  o.max_errors = 1;
  return vec::identify([&] { return vec::VectorReader::from_string(text, "device.vec"); }, o);
}

// The dialects with a setting that agrees on every case.
std::set<std::string> full_agreement(const vec::Identification& id) {
  std::set<std::string> s;
  for (std::size_t i = 0; i < id.candidates.size(); ++i)
    if (id.scores[i].exact && id.scores[i].agree == id.scores[i].total) s.insert(id.candidates[i].header.dialect);
  return s;
}

struct Battery {
  std::vector<vec::Header> headers;
  std::vector<std::string> texts;
  std::uint64_t cases = 0;
};

// Everything the pair test measured, computed once for the tests below.
struct Matrix {
  std::vector<std::string> names;
  std::map<std::string, Battery> battery;
  // covered[D] = the dialects that agree fully on every file of D's battery.
  std::map<std::string, std::set<std::string>> covered;
  std::uint64_t files = 0, cases = 0, settings_scored = 0;
  std::vector<std::string> failures;  // D's own setting not first, or not 100%, or incomplete
};

const Matrix& matrix() {
  static const Matrix m = [] {
    Matrix m;
    const std::vector<Op> ops = battery_ops();
    for (const softmx::Dialect& d : softmx::all_dialects()) {
      const std::string dn(d.name);
      m.names.push_back(dn);
      std::set<std::string> cover;
      for (const softmx::Dialect& e : softmx::all_dialects())
        if (e.name != d.name) cover.insert(std::string(e.name));
      Battery& b = m.battery[dn];
      for (const Op& op : ops)
        for (const vec::Header& h : headers_for(d, op)) {
          const std::string text = generate(h, op);
          const vec::Identification id = identify_text(text);
          ++m.files;
          m.cases += id.lines;
          m.settings_scored += id.candidates.size() * id.lines;
          const vec::Header& best = id.candidates[id.best()].header;
          if (!id.identified() || best.dialect != dn || best.ctx.rounding != h.ctx.rounding ||
              best.ctx.saturation != h.ctx.saturation || best.scale != h.scale)
            m.failures.push_back(vec::describe(h) + ": best " + vec::describe(best) + (id.identified() ? "" : " (not identified)"));
          // identify must try every dialect that can compute this file's settings.
          std::set<std::string> tried;
          for (const vec::Candidate& c : id.candidates) tried.insert(c.header.dialect);
          for (const softmx::Dialect& e : softmx::all_dialects()) {
            vec::Header he = h;
            he.dialect = std::string(e.name);
            try {
              vec::Evaluator probe(he);
            } catch (const std::exception&) {
              continue;
            }
            if (!tried.count(he.dialect))
              m.failures.push_back(vec::describe(h) + ": identify has no candidate of dialect " + he.dialect);
          }
          const std::set<std::string> full = full_agreement(id);
          std::set<std::string> keep;
          std::set_intersection(cover.begin(), cover.end(), full.begin(), full.end(), std::inserter(keep, keep.end()));
          cover = std::move(keep);
          b.cases += id.lines;
          b.headers.push_back(h);
          b.texts.push_back(text);
        }
      m.covered[dn] = cover;
    }
    fs::remove_all(scratch());
    return m;
  }();
  return m;
}

// The three checks share one matrix, which takes most of the test's time: they are one TEST, so
// that ctest (one process per TEST) computes it once.
void every_dialect_is_named_first(const Matrix& m) {
  EXPECT_EQ(m.names.size(), softmx::all_dialects().size());
  for (const std::string& f : m.failures) ADD_FAILURE() << f;
  for (const std::string& n : m.names) {
    const Battery& b = m.battery.at(n);
    EXPECT_FALSE(b.headers.empty()) << n << " has no operation at all";
    std::printf("[ identify pairs ] %s: %zu files, %llu cases, first at 100%% on each\n", n.c_str(), b.headers.size(),
                static_cast<unsigned long long>(b.cases));
  }
  std::printf("[ identify pairs ] %zu dialects, %llu files, %llu cases, %llu (setting, case) scores\n", m.names.size(),
              static_cast<unsigned long long>(m.files), static_cast<unsigned long long>(m.cases),
              static_cast<unsigned long long>(m.settings_scored));
}

void only_the_listed_pairs_cannot_be_told_apart(const Matrix& m) {
  std::set<std::pair<std::string, std::string>> got, want;
  for (const auto& [d, es] : m.covered)
    for (const std::string& e : es) got.insert({d, e});
  for (const Covering& c : kCovering) {
    EXPECT_TRUE(softmx::find_dialect(c.d) && softmx::find_dialect(c.e)) << c.d << " " << c.e;
    EXPECT_TRUE(want.insert({c.d, c.e}).second) << "listed twice: " << c.d << " " << c.e;
  }
  std::string listing;
  for (const auto& [d, e] : got) listing += std::string("    {\"") + d + "\", \"" + e + "\", \"\"},\n";
  for (const auto& p : got)
    EXPECT_TRUE(want.count(p)) << "identify cannot tell " << p.first << " from " << p.second
                               << " (every file of " << p.first << "'s battery is also made by a setting of " << p.second
                               << "), but the pair is not in kCovering. Computed:\n"
                               << listing;
  for (const auto& p : want)
    EXPECT_TRUE(got.count(p)) << "listed as indistinguishable, but a file of " << p.first << "'s battery tells it from "
                              << p.second;
  std::size_t symmetric = 0;
  for (const auto& [d, e] : got) symmetric += got.count({e, d});
  std::printf("[ identify pairs ] %zu ordered pairs of %zu told apart; %zu covered (%zu of them both ways)\n",
              m.names.size() * (m.names.size() - 1) - got.size(), m.names.size() * (m.names.size() - 1), got.size(),
              symmetric);
}

// The text with the results of the first data line where `other` differs from the file's own
// results replaced by `other`'s (the operands kept); empty if they agree everywhere.
std::string plant(const std::string& text, const vec::Header& other) {
  auto rd = vec::VectorReader::from_string(text, "planted.vec");
  const vec::Evaluator ev(other);
  const std::size_t nres = rd->layout().results.size();
  std::vector<std::uint64_t> got(nres);
  vec::Record r;
  while (rd->next(r)) {
    const auto f = ev.try_evaluate(r.operands, got);
    if (!f || (got == r.results && *f == r.flags)) continue;
    // Rebuild the line: operands as they were, then other's results and flags.
    std::istringstream in(text);
    std::string line, out;
    for (std::uint64_t i = 1; std::getline(in, line); ++i) {
      if (i == rd->line()) {
        std::istringstream fields(line);
        std::vector<std::string> cols;
        for (std::string c; fields >> c;) cols.push_back(c);
        const std::size_t nops = cols.size() - nres - 1;
        std::string nl;
        for (std::size_t k = 0; k < nops; ++k) nl += cols[k] + " ";
        for (std::size_t k = 0; k < nres; ++k) nl += softmx::hex(got[k], cols[nops + k].size()) + " ";
        nl += softmx::hex(*f, 2);
        line = nl;
      }
      out += line + "\n";
    }
    return out;
  }
  return "";
}

void one_altered_line_drops_the_maker_below_100(const Matrix& m) {
  int planted = 0, unmatched = 0;
  std::string cli_file;
  for (const std::string& dn : m.names) {
    const Battery& b = m.battery.at(dn);
    bool done = false;
    for (std::size_t i = 0; i < b.headers.size() && !done; ++i)
      for (const softmx::Dialect& e : softmx::all_dialects()) {
        if (e.name == dn) continue;
        vec::Header other = b.headers[i];
        other.dialect = std::string(e.name);
        try {
          vec::Evaluator probe(other);
        } catch (const std::exception&) {
          continue;
        }
        const std::string bad = plant(b.texts[i], other);
        if (bad.empty()) continue;
        const vec::Identification id = identify_text(bad);
        const vec::CandidateScore& own = id.scores[0];  // the header's settings: D's
        EXPECT_EQ(id.candidates[0].header.dialect, dn);
        EXPECT_EQ(own.agree + 1, own.total) << dn << " planted with " << e.name;
        EXPECT_FALSE(full_agreement(id).count(dn)) << dn << " still agrees fully after planting " << e.name << "'s result";
        // (Another setting may still agree everywhere: E itself, where E differs from D on this
        // line only. Then identify names E, not D.)
        if (!id.agrees()) ++unmatched;
        if (cli_file.empty() && !id.agrees()) cli_file = bad;
        ++planted, done = true;
        break;
      }
    EXPECT_TRUE(done) << "no other dialect differs from " << dn << " on any file of its battery";
  }
  EXPECT_EQ(planted, static_cast<int>(m.names.size()));
  std::printf("[ identify pairs ] %d planted files: the maker below 100%% in each; no setting at 100%% in %d\n", planted,
              unmatched);
  ASSERT_FALSE(cli_file.empty()) << "no planted file left every setting below 100%";
  // End to end: the first planted file through the real binary.
  const std::string path = softmx::testing::scratch_dir("identify_pairs") + "/planted.vec";
  softmx::testing::write_file(path, cli_file);
  const auto r = softmx::testing::run_cli("identify --threads 1 " + path);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("(the header's settings)"), std::string::npos) << r.out;
  const auto good = [&] {
    const std::string p = softmx::testing::scratch_dir("identify_pairs") + "/good.vec";
    softmx::testing::write_file(p, m.battery.at(m.names[0]).texts[0]);
    return softmx::testing::run_cli("identify --threads 1 " + p);
  }();
  EXPECT_EQ(good.status, 0) << good.out << good.err;
}

TEST(IdentifyPairs, EveryPairOfDialectsIsToldApartExceptTheListedOnes) {
  const Matrix& m = matrix();
  {
    SCOPED_TRACE("every dialect is named first, at 100%, on every file it makes");
    every_dialect_is_named_first(m);
  }
  {
    SCOPED_TRACE("only the pairs of kCovering cannot be told apart");
    only_the_listed_pairs_cannot_be_told_apart(m);
  }
  {
    SCOPED_TRACE("one altered line drops the maker below 100%");
    one_altered_line_drops_the_maker_below_100(m);
  }
}

// docs/DIALECTS.md's summary table has a row for every dialect ("| `NAME` |"), so that a new
// dialect cannot be added without its sources, policies, distinguishing case and tests.
TEST(IdentifyPairs, TheSummaryTableHasARowForEveryDialect) {
  const std::string doc = slurp(fs::path(SOFTMX_SOURCE_DIR) / "docs" / "DIALECTS.md");
  ASSERT_FALSE(doc.empty());
  const std::size_t table = doc.find("## Summary: every system");
  ASSERT_NE(table, std::string::npos);
  const std::size_t end = doc.find("\n## ", table + 1);
  const std::string summary = doc.substr(table, end - table);
  for (const softmx::Dialect& d : softmx::all_dialects())
    EXPECT_NE(summary.find("\n| `" + std::string(d.name) + "` |"), std::string::npos)
        << d.name << " has no row in docs/DIALECTS.md's summary table";
}

}  // namespace
