// conformance/test_peer_gfloat_p3109.cpp: an independent public implementation of IEEE P3109,
// gfloat (github graphcore-research/gfloat b142762), reproduced by softmx's p3109 dialect
// (issue 28, item 4).
//
// vectors/peers/gfloat-p3109/ holds what gfloat computed, run outside the project, for every
// bf16 input into binary8p3se, binary8p4se and binary8p5se under its five rounding modes with
// sat False and True (SatNone, SatFinite): 30 run tables without flags
// (scripts/import-gfloat-p3109.py; the folder's README names the commit, the call and the
// driver). Checked here:
//   1. the folder is exactly what its MANIFEST lists (SHA-256 of every table, nothing unlisted);
//   2. each header is the conversion its file name says, under the p3109 dialect;
//   3. softmx reproduces every result of every table, every input present (softmx verify's
//      engine), and, independently of the verify engine, each table expanded input by input
//      equals softmx::convert: 30 tables x 65,536 inputs, 0 differences.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/sha256.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/verify.hpp"
#include "support/report.hpp"

namespace {

namespace fs = std::filesystem;
using softmx::conformance::Tally;

const fs::path kRoot = fs::path(SOFTMX_SOURCE_DIR) / "vectors" / "peers" / "gfloat-p3109";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Listed {
  std::string path, sha;
};

/// MANIFEST's data lines: "SHA256  PATH  SOURCE-SHA256  SOURCE" (two blanks between fields).
std::vector<Listed> manifest() {
  std::vector<Listed> v;
  std::istringstream in(slurp(kRoot / "MANIFEST"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.find(" = ") != std::string::npos) continue;
    std::istringstream f(line);
    Listed l;
    f >> l.sha >> l.path;
    v.push_back(l);
  }
  return v;
}

constexpr const char* kFormats[] = {"binary8p3se", "binary8p4se", "binary8p5se"};
constexpr const char* kModes[] = {"rne", "rna", "rz", "ru", "rd"};
constexpr const char* kSats[] = {"none", "finite"};

TEST(PeerGfloatP3109, FolderIsItsManifest) {
  const auto files = manifest();
  ASSERT_EQ(files.size(), 30u) << "vectors/peers/gfloat-p3109/MANIFEST";
  std::set<std::string> listed;
  for (const auto& f : files) {
    listed.insert(f.path);
    const std::string bytes = slurp(kRoot / f.path);
    ASSERT_FALSE(bytes.empty()) << f.path;
    EXPECT_EQ(softmx::sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}), f.sha) << f.path;
  }
  for (const char* fmt : kFormats)
    for (const char* mode : kModes)
      for (const char* sat : kSats) {
        const std::string rel = std::string(fmt) + "/bf16-" + mode + "-" + sat + ".runs";
        EXPECT_TRUE(listed.count(rel)) << rel << " is not in MANIFEST";
      }
  for (const auto& e : fs::recursive_directory_iterator(kRoot)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), kRoot).string();
    if (rel == "README.md" || rel == "MANIFEST") continue;
    EXPECT_TRUE(listed.count(rel)) << rel << " is in vectors/peers/gfloat-p3109 but not in its MANIFEST";
  }
}

TEST(PeerGfloatP3109, EveryResultReproduced) {
  const auto files = manifest();
  ASSERT_EQ(files.size(), 30u);
  Tally t("peer gfloat b142762 P3109: every bf16 input into binary8p{3,4,5}se, 5 roundings x sat none/finite");
  std::uint64_t inputs = 0;
  for (const auto& f : files) {
    // 2. The header is the conversion the name says.
    const std::string fmt = f.path.substr(0, f.path.find('/'));
    const std::string stem = fs::path(f.path).stem().string();  // bf16-MODE-SAT
    const auto d1 = stem.find('-'), d2 = stem.rfind('-');
    const std::string mode = stem.substr(d1 + 1, d2 - d1 - 1), sat = stem.substr(d2 + 1);
    {
      auto r = softmx::vec::VectorReader::open((kRoot / f.path).string());
      const auto& h = r->header();
      EXPECT_EQ(h.dialect, "p3109") << f.path;
      EXPECT_EQ(softmx::format_spec(static_cast<const softmx::Format&>(h.to)), fmt) << f.path;
      EXPECT_EQ(softmx::name(h.ctx.rounding), mode) << f.path;
      EXPECT_EQ(softmx::name(h.ctx.saturation), sat) << f.path;
      // 3a. softmx verify's engine: a pass, complete, every input.
      softmx::vec::VerifyOptions o;
      o.threads = 2;
      const auto v = softmx::vec::verify_file(*r, o);
      EXPECT_EQ(v.status, softmx::vec::VerdictStatus::pass) << f.path << "\n" << v.summary_text();
      EXPECT_TRUE(v.completeness.complete()) << f.path;
      EXPECT_EQ(v.cases, 65536u) << f.path;
      EXPECT_EQ(v.mismatched(), 0u) << f.path;
    }
    // 3b. Independently: each run expanded and every input converted with softmx::convert.
    const softmx::Format src = softmx::format(softmx::FormatId::bf16), dst = softmx::parse_format_spec(fmt);
    softmx::Context c;
    c.rounding = *softmx::parse_rounding(mode);
    c.saturation = *softmx::parse_saturation(sat);
    const softmx::Dialect& d = *softmx::find_dialect("p3109");
    std::map<std::uint32_t, std::uint32_t> runs;  // first input -> gfloat's code
    std::istringstream in(slurp(kRoot / f.path));
    std::string line;
    bool data = false;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (!data && line.find('=') != std::string::npos) continue;
      data = true;
      std::istringstream fl(line);
      std::string a, b;
      fl >> a >> b;
      runs[static_cast<std::uint32_t>(std::stoul(a, nullptr, 16))] = static_cast<std::uint32_t>(std::stoul(b, nullptr, 16));
    }
    ASSERT_FALSE(runs.empty()) << f.path;
    ASSERT_EQ(runs.begin()->first, 0u) << f.path;
    std::uint32_t gf = 0;
    for (std::uint32_t x = 0; x < 65536; ++x) {
      if (auto it = runs.find(x); it != runs.end()) gf = it->second;
      const softmx::Result r = softmx::convert(src, dst, x, c, d);
      ++inputs;
      t.check(r.code == gf, [&] {
        std::ostringstream e;
        e << f.path << ": bf16 " << std::hex << std::uppercase << x << ": gfloat " << gf << ", softmx " << r.code;
        return e.str();
      });
    }
  }
  std::printf("[ counts   ] gfloat: %zu tables, %llu inputs compared\n", files.size(),
              static_cast<unsigned long long>(inputs));
  EXPECT_EQ(inputs, 30u * 65536u);
  t.report();
}

}  // namespace
