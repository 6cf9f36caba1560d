// conformance/test_rtl_fpnew.cpp: FPnew's FP-to-FP conversions as its RTL computes them,
// reproduced by softmx's fpnew dialect with no RTL and no simulator (issue 26, item 2).
//
// vectors/rtl/fpnew/SNAPSHOT/ holds what examples/fpnew/certify.sh wrote when it ran
// openhwgroup/cvfpu's fpnew_cast_multi in Verilator (MANIFEST: the cvfpu commit and patches,
// common_cells, Verilator, the command): run tables over every f16, bf16, e5m2 and FP8ALT
// input into every other FPnew format, and f32 inputs (run tables over all 2^32, and softmx gen
// level-2 vector files), in each rounding mode FPnew has (RNE RTZ RDN RUP RMM ROD). Each
// header names the dialect fpnew and the tininess rule its snapshot implements (MANIFEST
// `tininess`): after-bounded for the snapshots before PR #168 (issues #165/#166), after for
// those with it. Checked here:
//   1. each folder is what its MANIFEST lists (SHA-256 of every file, nothing unlisted);
//   2. every file is reproduced by softmx under its own header: every input's result and all
//      five flags, 0 mismatches, every input present (softmx verify);
//   3. under the OTHER tininess rule the same files fail exactly in the underflow window: the
//      inputs below the destination's smallest normal whose bounded rounding delivers it while
//      the unbounded one does not (the only inputs where the two rules differ, enumerated here
//      independently), and there only in the underflow flag. So a certificate of a snapshot with
//      PR #168 and one without differ in exactly these inputs;
//   4. identify, scoring every setting softmx models, names fpnew, and where the window is not
//      empty the snapshot's tininess rule, no setting of another rule agreeing (every run table
//      of a 16- or 8-bit source into e5m2 and FP8ALT).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/sha256.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/verify.hpp"
#include "support/report.hpp"
#include "support/files.hpp"

namespace {

using softmx::testing::slurp;  // a file's bytes (fs::path converts)

namespace fs = std::filesystem;
using softmx::Context;
using softmx::Flags;
using softmx::Tininess;
using softmx::conformance::Tally;

const fs::path kRoot = fs::path(SOFTMX_SOURCE_DIR) / "vectors" / "rtl" / "fpnew";

unsigned threads() { return std::max(1u, std::min(2u, std::thread::hardware_concurrency())); }

struct Snapshot {
  std::string name;
  fs::path dir;
  std::map<std::string, std::string> keys;                 // "key = value" lines
  std::vector<std::pair<std::string, std::string>> files;  // (file, sha256), in MANIFEST order
  std::string tininess() const { return keys.count("tininess") ? keys.at("tininess") : ""; }
};

std::string trim(const std::string& s) {
  auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

std::vector<Snapshot> snapshots() {
  std::vector<Snapshot> out;
  if (!fs::is_directory(kRoot)) return out;
  for (const auto& e : fs::directory_iterator(kRoot)) {
    if (!e.is_directory() || !fs::exists(e.path() / "MANIFEST")) continue;
    Snapshot s;
    s.name = e.path().filename().string();
    s.dir = e.path();
    std::ifstream in(e.path() / "MANIFEST");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto eq = line.find(" = ");
      if (eq != std::string::npos) {
        s.keys[trim(line.substr(0, eq))] = trim(line.substr(eq + 3));
        continue;
      }
      std::istringstream ls(line);
      std::string sha, file;
      if (ls >> sha >> file && sha.size() == 64) s.files.emplace_back(file, sha);
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const Snapshot& a, const Snapshot& b) { return a.name < b.name; });
  return out;
}

std::string other_rule(const std::string& t) { return t == "after" ? "after-bounded" : "after"; }

std::unique_ptr<softmx::vec::VectorReader> open(const fs::path& p) {
  return softmx::vec::VectorReader::open(p.string());
}

// Every mismatch verify reports, input by input: runs expanded, cases as they come.
struct Collect : softmx::vec::VerifyObserver {
  struct Miss {
    std::uint64_t in, got, want;
    Flags got_flags, want_flags;
  };
  std::vector<Miss> misses;
  bool capped = false;  // more than kCap inputs mismatched: the rest are not kept
  static constexpr std::size_t kCap = std::size_t(1) << 22;
  void keep(const Miss& m) {
    if (misses.size() < kCap) misses.push_back(m);
    else capped = true;
  }
  void on_case(std::span<const std::uint64_t> operands, std::span<const std::uint64_t> got, bool has_flags,
               Flags got_flags, std::span<const std::uint64_t> want, Flags want_flags) override {
    if (got[0] != want[0] || (has_flags && got_flags != want_flags))
      keep({operands[0], got[0], want[0], got_flags, want_flags});
  }
  void on_range(const softmx::vec::RangeMismatch& m) override {
    for (std::uint64_t x = m.first; !capped; ++x) {
      keep({x, m.got, m.want, m.got_flags, m.want_flags});
      if (x == m.last) break;
    }
  }
};

TEST(RtlFpnew, ManifestsListEveryFile) {
  auto snaps = snapshots();
  ASSERT_FALSE(snaps.empty()) << "no snapshot folder with a MANIFEST under " << kRoot;
  Tally t("rtl-fpnew manifests");
  for (const auto& s : snaps) {
    EXPECT_TRUE(s.tininess() == "after" || s.tininess() == "after-bounded")
        << s.name << ": MANIFEST has no tininess = after|after-bounded";
    for (const char* k : {"cvfpu", "common-cells", "simulator", "command"})
      EXPECT_TRUE(s.keys.count(k)) << s.name << ": MANIFEST has no " << k;
    std::set<std::string> listed;
    for (const auto& entry : s.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
      listed.insert(file);
      std::string bytes = slurp(s.dir / file);
      std::string got = softmx::sha256_hex(
          std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
      t.check(got == sha, [&] { return s.name + "/" + file + ": SHA-256 " + got + ", MANIFEST " + sha; });
    }
    for (const auto& e : fs::directory_iterator(s.dir)) {
      auto ext = e.path().extension();
      if (ext == ".runs" || ext == ".vec")
        t.check(listed.count(e.path().filename().string()) == 1,
                [&] { return s.name + "/" + e.path().filename().string() + " is not in MANIFEST"; });
    }
  }
  t.report();
}

// 2. Every committed result reproduced under the file's own header.
TEST(RtlFpnew, EveryResultReproduced) {
  auto snaps = snapshots();
  ASSERT_FALSE(snaps.empty());
  Tally t("rtl-fpnew every committed result (inputs)");
  for (const auto& s : snaps) {
    for (const auto& entry : s.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
      auto r = open(s.dir / file);
      EXPECT_EQ(r->header().dialect, "fpnew") << file;
      EXPECT_EQ(softmx::name(r->header().ctx.tininess), s.tininess()) << s.name << "/" << file;
      softmx::vec::VerifyOptions o;
      o.threads = threads();
      auto v = softmx::vec::verify_file(*r, o);
      EXPECT_EQ(v.status, softmx::vec::VerdictStatus::pass) << s.name << "/" << file << "\n" << v.summary_text();
      EXPECT_TRUE(v.completeness.complete()) << s.name << "/" << file;
      EXPECT_EQ(v.flags_compared, v.cases) << s.name << "/" << file << ": flags not compared on every input";
      t.pass(v.cases - v.mismatched());
      if (v.mismatched() > 0)
        t.fail(s.name + "/" + file + ": " + std::to_string(v.mismatched()) + " mismatches", v.mismatched());
    }
  }
  t.report();
}

// The inputs of `file` where softmx's two tininess rules give different flags, enumerated
// without reading the device's results: a run table's inputs whose magnitude lies in
// [2^(emin-1), 2^emin) of the destination (below it no input rounds up to 2^emin: every
// destination here has a fraction bit), or every case of a cases file.
struct Window {
  std::map<std::uint64_t, std::pair<softmx::Result, softmx::Result>> diff;  // input -> (header's rule, other rule)
};

Window window(const fs::path& path, const std::string& other) {
  auto r = open(path);
  const auto& h = r->header();
  const softmx::Dialect& d = *softmx::find_dialect(h.dialect);
  Context a = h.ctx, b = h.ctx;
  b.tininess = *softmx::parse_tininess(other);
  Window w;
  auto add = [&](std::uint64_t x) {
    auto ra = softmx::convert(h.from, h.to, x, a, d);
    auto rb = softmx::convert(h.from, h.to, x, b, d);
    if (!(ra == rb)) w.diff.emplace(x, std::make_pair(ra, rb));
  };
  if (h.layout == softmx::vec::Layout::runs) {
    const int w_src = h.from.width;
    if (w_src <= 16) {
      for (std::uint64_t x = h.first;; ++x) {
        add(x);
        if (x == h.last) break;
      }
    } else {
      // f32: the codes of [2^(emin-1), 2^emin) of either sign (emin >= -126 here: normal f32s
      // or, for bf16's emin = -126, f32 subnormals from 2^-127), up to 2^23 consecutive codes,
      // converted by the batch kernels under both rules (equal to convert() bit for bit).
      const int e = h.to.emin();
      auto code = [](int k) -> std::uint64_t {
        return k >= -126 ? std::uint64_t(k + 127) << 23 : std::uint64_t(1) << (k + 149);
      };
      const softmx::Converter ca(h.from, h.to, a, d), cb(h.from, h.to, b, d);
      const std::size_t bytes = h.to.width <= 8 ? 1 : h.to.width <= 16 ? 2 : 4;
      auto load = [&](const std::vector<unsigned char>& v, std::size_t i) {
        std::uint64_t x = 0;
        std::memcpy(&x, v.data() + i * bytes, bytes);  // little-endian host
        return x;
      };
      for (std::uint64_t sign : {std::uint64_t(0), std::uint64_t(0x80000000)}) {
        const std::uint64_t lo = std::max(code(e - 1) | sign, h.first), hi = std::min((code(e) - 1) | sign, h.last);
        if (lo > hi) continue;
        const std::size_t n = hi - lo + 1;
        std::vector<unsigned char> oa(n * bytes), ob(n * bytes);
        std::vector<Flags> fa(n), fb(n);
        softmx::run_consecutive(ca, softmx::default_isa(), lo, oa.data(), fa.data(), n);
        softmx::run_consecutive(cb, softmx::default_isa(), lo, ob.data(), fb.data(), n);
        for (std::size_t i = 0; i < n; ++i)
          if (load(oa, i) != load(ob, i) || fa[i] != fb[i])
            w.diff.emplace(lo + i, std::make_pair(softmx::Result{load(oa, i), fa[i]}, softmx::Result{load(ob, i), fb[i]}));
      }
    }
  } else {
    softmx::vec::Record rec;
    while (r->next(rec)) add(rec.operands[0]);
  }
  return w;
}

// 3. Under the other tininess rule every file fails exactly in the underflow window, and there
// only in the underflow flag.
TEST(RtlFpnew, OtherTininessRuleFailsExactlyInTheUnderflowWindow) {
  auto snaps = snapshots();
  ASSERT_FALSE(snaps.empty());
  Tally t("rtl-fpnew underflow window under the other tininess rule (inputs)");
  std::uint64_t windows = 0;
  for (const auto& s : snaps) {
    const std::string other = other_rule(s.tininess());
    for (const auto& entry : s.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
      Window w = window(s.dir / file, other);
      auto r = open(s.dir / file);
      softmx::vec::VerifyOptions o;
      o.threads = threads();
      o.overrides.tininess = other;
      Collect c;
      o.observer = &c;
      auto v = softmx::vec::verify_file(*r, o);
      const std::string where = s.name + "/" + file + " under --tininess " + other;
      EXPECT_EQ(v.status, w.diff.empty() ? softmx::vec::VerdictStatus::pass : softmx::vec::VerdictStatus::fail)
          << where;
      EXPECT_EQ(v.result_mismatches, 0u) << where << ": results differ, not only flags";
      EXPECT_FALSE(c.capped) << where << ": more than " << Collect::kCap << " inputs mismatched";
      windows += w.diff.size();
      std::set<std::uint64_t> seen;
      for (const auto& m : c.misses) {
        seen.insert(m.in);
        auto it = w.diff.find(m.in);
        bool ok = it != w.diff.end() && m.got == m.want && m.got == it->second.first.code &&
                  m.got_flags == it->second.first.flags && m.want_flags == it->second.second.flags &&
                  ((m.got_flags ^ m.want_flags) == softmx::flag::underflow);
        t.check(ok, [&] {
          std::ostringstream e;
          e << where << ": input " << std::hex << m.in << " device " << m.got << "/" << int(m.got_flags) << " softmx "
            << m.want << "/" << int(m.want_flags) << (it == w.diff.end() ? " (outside the window)" : "");
          return e.str();
        });
      }
      for (const auto& [x, rr] : w.diff)
        if (!seen.count(x)) {
          std::ostringstream e;
          e << where << ": window input " << std::hex << x << " not reported by verify";
          t.fail(e.str());
        }
    }
  }
  std::printf("[ counts   ] %llu inputs (distinct per file) in underflow windows, where the two tininess rules differ\n",
              static_cast<unsigned long long>(windows));
  EXPECT_GT(windows, 0u) << "no file has an input in an underflow window";
  t.report();
}

// 4. identify names fpnew, and the snapshot's tininess rule where the rules differ (the run tables
// of 16- and 8-bit sources into e5m2 and FP8ALT, which identify checks exactly under every
// setting).
TEST(RtlFpnew, IdentifyNamesFpnewAndTheTininessRule) {
  auto snaps = snapshots();
  ASSERT_FALSE(snaps.empty());
  Tally t("rtl-fpnew identify (files)");
  for (const auto& s : snaps) {
    for (const auto& entry : s.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
      fs::path p = s.dir / file;
      {
        // identify scores every setting softmx models on every input: into e5m2 and FP8ALT that is
        // 144 settings (a fraction of a second per table); into f32, f16 and bf16, where most
        // dialects apply, 648 (about 10 s per table), left out.
        auto r = open(p);
        const auto& h = r->header();
        if (h.layout != softmx::vec::Layout::runs || h.from.width > 16 || h.to.width != 8) continue;
      }
      const bool has_window = !window(p, other_rule(s.tininess())).diff.empty();
      softmx::vec::IdentifyOptions o;
      o.threads = threads();
      o.progress = false;
      auto id = softmx::vec::identify([&] { return open(p); }, o);
      const auto& best = id.candidates[id.best()].header;
      bool ok = id.identified() && best.dialect == "fpnew" &&
                (!has_window || softmx::name(best.ctx.tininess) == s.tininess());
      // Where the rules differ, no setting with another tininess rule agrees everywhere.
      if (ok && has_window)
        for (std::size_t i = 0; i < id.candidates.size(); ++i)
          if (softmx::name(id.candidates[i].header.ctx.tininess) != s.tininess() && id.scores[i].exact &&
              id.scores[i].agree == id.scores[i].total)
            ok = false;
      t.check(ok, [&] {
        return s.name + "/" + file + ": identify's best is " + best.dialect + " tininess " +
               std::string(softmx::name(best.ctx.tininess)) + (id.identified() ? "" : " (not identified)");
      });
    }
  }
  t.report();
}

}  // namespace
