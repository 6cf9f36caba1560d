// conformance/test_rtl_mxdotp.cpp: MXDOTP, an MX dot-product unit (github gamzeisl/cvfpu,
// fpnew_mxdotp_multi), as its RTL computes it, reproduced by softmx's mxdotp accumulation model
// with no RTL and no simulator (issue 26, item 3; docs/research/mxdotp.md).
//
// vectors/rtl/mxdotp/ holds what examples/mxdotp/certify.sh wrote when it ran the unit in
// Verilator (MANIFEST: the sources, their commits and SHA-256, the glue patch, the simulator,
// the command): for every element the unit takes (e4m3, e5m2, e3m2, e2m3, e2m1, and MXDOTPI's
// INT8 as int8:bias=-5), both destinations (f32, bf16) and every rounding mode it has (RNE RTZ
// RDN RUP RMM ROD), an L2 file (softmx gen dot --acc mxdotp --addend yes --level 2) and an ADV
// file (examples/mxdotp/adversarial.py). Checked here:
//   1. the folder is what MANIFEST lists (SHA-256 of every file, nothing unlisted);
//   2. every result and all five flags are softmx's under the file's own header (accumulation
//      mxdotp, tininess after-bounded): 0 mismatches, and every L2 file complete;
//   3. under exact (the IEEE sum rounded once) the files disagree only where the RTL departs,
//      each disagreement in one of the documented classes: C returned by the bypass with the
//      products far below (shift > 70), C returned with every product zero or cancelled and C
//      far below (shift < -24), an exact zero delivered as +0; and under exact with IEEE's
//      tininess (after) also the underflow window (underflow missing where the delivered result
//      is the smallest normal). Anything else fails;
//   4. the model by hand: the bypass threshold, the signed zeros, the refusals, the chain.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/dot.hpp"
#include "softmx/format.hpp"
#include "softmx/sha256.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/verify.hpp"
#include "support/report.hpp"
#include "support/files.hpp"

namespace {

using softmx::testing::slurp;  // a file's bytes (fs::path converts)

namespace fs = std::filesystem;
using softmx::Flags;
using softmx::conformance::Tally;

const fs::path kDir = fs::path(SOFTMX_SOURCE_DIR) / "vectors" / "rtl" / "mxdotp";

struct Manifest {
  std::map<std::string, std::string> keys;
  std::vector<std::pair<std::string, std::string>> files;  // (file, sha256)
};

std::string trim(const std::string& s) {
  auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

Manifest manifest() {
  Manifest m;
  std::ifstream in(kDir / "MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find(" = ");
    if (eq != std::string::npos) {
      m.keys[trim(line.substr(0, eq))] = trim(line.substr(eq + 3));  // repeated keys: the last
      continue;
    }
    std::istringstream ls(line);
    std::string sha, file;
    if (ls >> sha >> file && sha.size() == 64) m.files.emplace_back(file, sha);
  }
  return m;
}

bool adversarial(const std::string& file) { return file.find("-ADV.") != std::string::npos; }

TEST(RtlMxdotp, ManifestListsEveryFile) {
  ASSERT_TRUE(fs::exists(kDir / "MANIFEST")) << kDir;
  const Manifest m = manifest();
  for (const char* k : {"unit", "snapshot", "source", "patch", "simulator", "command", "accumulation", "tininess"})
    EXPECT_TRUE(m.keys.count(k)) << "MANIFEST has no " << k;
  EXPECT_EQ(m.keys.count("accumulation") ? m.keys.at("accumulation") : "", "mxdotp");
  EXPECT_EQ(m.keys.count("tininess") ? m.keys.at("tininess") : "", "after-bounded");
  ASSERT_FALSE(m.files.empty());
  Tally t("rtl-mxdotp manifest");
  std::set<std::string> listed;
  for (const auto& entry : m.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
    listed.insert(file);
    const std::string bytes = slurp(kDir / file);
    const std::string got = softmx::sha256_hex(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    t.check(got == sha, [&] { return file + ": SHA-256 " + got + ", MANIFEST " + sha; });
  }
  for (const auto& e : fs::directory_iterator(kDir))
    if (e.path().extension() == ".vec")
      t.check(listed.count(e.path().filename().string()) == 1,
              [&] { return e.path().filename().string() + " is not in MANIFEST"; });
  t.report();
}

// 2. Every committed result and flag reproduced by the mxdotp model under the file's header.
TEST(RtlMxdotp, EveryResultReproduced) {
  const Manifest m = manifest();
  ASSERT_FALSE(m.files.empty());
  Tally t("rtl-mxdotp every committed result (cases)");
  std::set<std::string> elements, modes, destinations;
  for (const auto& entry : m.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
    auto r = softmx::vec::VectorReader::open((kDir / file).string());
    const auto& h = r->header();
    EXPECT_EQ(h.accumulation, "mxdotp") << file;
    EXPECT_EQ(softmx::name(h.ctx.tininess), std::string("after-bounded")) << file;
    EXPECT_TRUE(h.dot_addend) << file;
    elements.insert(file.substr(0, file.find("-f32-") != std::string::npos ? file.find("-f32-") : file.find("-bf16-")));
    modes.insert(std::string(softmx::name(h.ctx.rounding)));
    destinations.insert(std::string(softmx::format(h.dot_to).name));
    softmx::vec::VerifyOptions o;
    o.accept_unproven = adversarial(file);  // adversarial.py's files have no level and seed
    auto v = softmx::vec::verify_file(*r, o);
    EXPECT_EQ(v.status, softmx::vec::VerdictStatus::pass) << file << "\n" << v.summary_text();
    if (!adversarial(file)) {
      EXPECT_TRUE(v.completeness.complete()) << file << ": completeness not proven";
    }
    EXPECT_EQ(v.flags_compared, v.cases) << file << ": flags not compared on every case";
    t.pass(v.cases - v.mismatched());
    if (v.mismatched() > 0) t.fail(file + ": " + std::to_string(v.mismatched()) + " mismatches", v.mismatched());
  }
  EXPECT_EQ(elements.size(), 6u) << "e4m3 e5m2 e3m2 e2m3 e2m1 int8:bias=-5";
  EXPECT_EQ(modes.size(), 6u) << "rne rz rd ru rna ro";
  EXPECT_EQ(destinations.size(), 2u) << "f32 bf16";
  t.report();
}

// 3. The departures from exact, classified case by case from the operands.
struct Classify : softmx::vec::VerifyObserver {
  std::uint32_t k = 0;
  int to_man = 23, to_width = 32;
  bool ieee_tininess = false;  // checking under tininess after: the underflow window counts too
  std::map<std::string, std::uint64_t> classes;
  std::vector<std::string> unexplained;

  void on_case(std::span<const std::uint64_t> ops, std::span<const std::uint64_t> got, bool has_flags, Flags gf,
               std::span<const std::uint64_t> want, Flags wf) override {
    if (got[0] == want[0] && (!has_flags || gf == wf)) return;
    const int scale = static_cast<int>(ops[0]) + static_cast<int>(ops[k + 1]) - 254;
    const std::uint64_t c = ops[2 * k + 2];
    const std::uint64_t mag = c & ((std::uint64_t{1} << (to_width - 1)) - 1);
    const int field = static_cast<int>(mag >> to_man);
    const int sub = field == 0 && mag != 0;
    const int shift = 34 - 23 - scale + field + sub - 127;  // mod 680-682
    const std::uint64_t sign = std::uint64_t{1} << (to_width - 1);
    if (shift > 70 && got[0] == c && (gf & ~softmx::flag::inexact) == 0) {
      ++classes["bypass: C returned, products far below (shift > 70)"];
    } else if (shift < -24 && got[0] == c && gf == 0) {
      ++classes["bypass: C returned, every product zero or cancelled (shift < -24)"];
    } else if (got[0] == 0 && want[0] == sign && gf == wf) {
      ++classes["exact zero delivered as +0"];
    } else if (ieee_tininess && got[0] == want[0] && (gf ^ wf) == softmx::flag::underflow &&
               (wf & softmx::flag::underflow) && (got[0] & ~sign) == (std::uint64_t{1} << to_man)) {
      ++classes["underflow window: the smallest normal delivered, no underflow (after-bounded)"];
    } else if (unexplained.size() < 10) {
      std::ostringstream s;
      s << std::hex << std::uppercase;
      for (auto x : ops) s << x << ' ';
      s << "=> " << got[0] << ' ' << int(gf) << ", exact " << want[0] << ' ' << int(wf);
      unexplained.push_back(s.str());
    } else {
      unexplained.emplace_back();
    }
  }
  void on_range(const softmx::vec::RangeMismatch&) override { unexplained.emplace_back("a run table?"); }
};

void departures(const char* tininess) {
  const Manifest m = manifest();
  ASSERT_FALSE(m.files.empty());
  std::map<std::string, std::uint64_t> total;
  std::uint64_t cases = 0, mismatched = 0, unexplained = 0;
  for (const auto& entry : m.files) {
    // No structured binding: lambdas capture these (clang before 16 cannot).
    const auto& file = entry.first;
    [[maybe_unused]] const auto& sha = entry.second;
    auto r = softmx::vec::VectorReader::open((kDir / file).string());
    Classify cl;
    cl.k = r->header().block;
    const softmx::Format& to = softmx::format(r->header().dot_to);
    cl.to_man = to.man_bits;
    cl.to_width = to.width;
    cl.ieee_tininess = std::string(tininess) == "after";
    softmx::vec::VerifyOptions o;
    o.accept_unproven = true;
    o.max_errors = 0;
    o.overrides.accumulation = "exact";
    o.overrides.tininess = tininess;
    o.observer = &cl;
    auto v = softmx::vec::verify_file(*r, o, [](const softmx::vec::VerifyMismatch&) {});
    cases += v.cases;
    mismatched += v.mismatched();
    unexplained += cl.unexplained.size();
    for (const auto& u : cl.unexplained)
      if (!u.empty()) ADD_FAILURE() << file << ": a disagreement with exact that no documented departure explains: " << u;
    for (const auto& [what, n] : cl.classes) total[what] += n;
  }
  std::cout << "under exact, tininess " << tininess << ": " << cases << " cases, " << mismatched
            << " disagreements, " << unexplained << " unexplained\n";
  for (const auto& [what, n] : total) std::cout << "  " << n << "  " << what << "\n";
  EXPECT_EQ(unexplained, 0u);
  // Every class of section 5 and 8 of docs/research/mxdotp.md is exercised by the committed files.
  EXPECT_EQ(total.size(), std::string(tininess) == "after" ? 4u : 3u);
  Tally t(std::string("rtl-mxdotp departures from exact (tininess ") + tininess + ") explained");
  t.pass(cases - unexplained);
  if (unexplained) t.fail("unexplained disagreements", unexplained);
  t.report();
}

TEST(RtlMxdotp, DeparturesFromExactAreTheDocumentedOnes) { departures("after-bounded"); }
TEST(RtlMxdotp, DeparturesFromIeeeTininessAddTheUnderflowWindow) { departures("after"); }

// 4. The model by hand.
softmx::Result mx(std::uint8_t sa, std::array<std::uint8_t, 8> a, std::uint8_t sb, std::array<std::uint8_t, 8> b,
                  std::uint32_t c, softmx::Rounding rnd, const softmx::AccumulationModel& m,
                  softmx::FormatId to = softmx::FormatId::f32) {
  softmx::BlockRef x{softmx::FormatId::e4m3, sa, a}, y{softmx::FormatId::e4m3, sb, b};
  softmx::Context ctx;
  ctx.rounding = rnd;
  ctx.tininess = softmx::Tininess::after_bounded;
  return softmx::dot(x, y, softmx::DotDestination{to, c}, ctx, m);
}

TEST(RtlMxdotp, ModelByHand) {
  const softmx::AccumulationModel* mp = softmx::find_accumulation_model("mxdotp");
  ASSERT_NE(mp, nullptr);
  const auto& m = *mp;
  const auto& exact = softmx::exact_accumulation();
  using softmx::Rounding;
  const std::array<std::uint8_t, 8> one{0x38}, zero{}, negzero{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
  // 1 x 1 at scale 0 with C = 2^60 (field 187): shift 71, the bypass: C, inexact, even under ru.
  EXPECT_EQ(mx(127, one, 127, one, 0x5D800000, Rounding::ru, m).code, 0x5D800000u);
  EXPECT_EQ(mx(127, one, 127, one, 0x5D800000, Rounding::ru, m).flags, softmx::flag::inexact);
  EXPECT_EQ(mx(127, one, 127, one, 0x5D800000, Rounding::ru, exact).code, 0x5D800001u);
  // C = 2^59: shift 70, added and rounded: ru moves it.
  EXPECT_EQ(mx(127, one, 127, one, 0x5D000000, Rounding::ru, m).code, 0x5D000001u);
  // Zero products, C = -0 at scale 0 (right shift 116 > 24): C itself.
  EXPECT_EQ(mx(127, zero, 127, zero, 0x80000000, Rounding::rne, m).code, 0x80000000u);
  EXPECT_EQ(mx(127, zero, 127, zero, 0x80000000, Rounding::rne, exact).code, 0x00000000u);
  // -0 products, C = -0, scale -150 (shift 34: the datapath): +0; exact gives -0.
  EXPECT_EQ(mx(52, negzero, 52, one, 0x80000000, Rounding::rne, m).code, 0x00000000u);
  // Cancellation under rd: +0 (exact: -0).
  EXPECT_EQ(mx(127, one, 127, one, 0xBF800000, Rounding::rd, m).code, 0x00000000u);
  EXPECT_EQ(mx(127, one, 127, one, 0xBF800000, Rounding::rd, exact).code, 0x80000000u);
  // bf16: the bypass returns C's bf16 code.
  EXPECT_EQ(mx(127, one, 127, one, 0x5D80, Rounding::ru, m, softmx::FormatId::bf16).code, 0x5D80u);
  // Refusals: f16, plain int8 (OCP's k/64; MXDOTPI reads integers: int8:bias=-5).
  EXPECT_THROW(mx(127, one, 127, one, 0, Rounding::rne, m, softmx::FormatId::f16), std::invalid_argument);
  {
    std::array<std::uint8_t, 8> i8{1};
    softmx::BlockRef x{softmx::FormatId::int8, 127, i8}, y{softmx::FormatId::int8, 127, i8};
    EXPECT_THROW(softmx::dot(x, y, softmx::Context{}, m), std::invalid_argument);
    const softmx::Format f = softmx::parse_format_spec("int8:bias=-5");
    softmx::BlockRef rx{softmx::FormatId::runtime, 127, i8, &f}, ry{softmx::FormatId::runtime, 127, i8, &f};
    EXPECT_EQ(softmx::dot(rx, ry, softmx::Context{}, m).code, 0x3F800000u);  // 1 x 1
  }
  // The chain: two pairs (or one pair of 16) are two instructions, the first's D the second's C.
  {
    std::array<std::uint8_t, 16> a16{0x38}, b16{0x38};
    a16[8] = 0x38;
    b16[8] = 0x38;
    softmx::BlockRef x{softmx::FormatId::e4m3, 127, a16}, y{softmx::FormatId::e4m3, 127, b16};
    softmx::Context ctx;
    EXPECT_EQ(softmx::dot(x, y, softmx::DotDestination{softmx::FormatId::f32, 0x3F800000}, ctx, m).code,
              0x40400000u);  // 1 + 1 + 1
    // C = 2^60 far above each instruction's products: both bypass under ru, C unchanged.
    ctx.rounding = Rounding::ru;
    EXPECT_EQ(softmx::dot(x, y, softmx::DotDestination{softmx::FormatId::f32, 0x5D800000}, ctx, m).code,
              0x5D800000u);
  }
}

}  // namespace
