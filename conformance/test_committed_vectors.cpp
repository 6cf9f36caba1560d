// conformance/test_committed_vectors.cpp: the canonical vector sets under vectors/ are what
// softmx computes today, byte for byte.
//
// vectors/MANIFEST lists every committed file with its SHA-256 and the command that makes it.
// This test checks each file's SHA-256, that no file is unlisted, and then regenerates the set
// with scripts/make-vectors.sh into a temporary folder and requires identical bytes: every file,
// and MANIFEST. The 104 run tables of all 2^32 f32 inputs (about a minute on 2 cores with the
// vector kernels, many minutes of scalar sweeps without them) are regenerated under
// SOFTMX_VECTORS_ALL=1 only: ctest -L long (test_committed_vectors_all), which .ci/run runs; the
// default run leaves them out (--small; their SHA-256s are still checked) and says so. A change in
// any result of the emulator, the generator or the file format fails here until the vectors
// are regenerated and the change reviewed.
#include <gtest/gtest.h>

#include <iostream>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "softmx/batch.hpp"
#include <sstream>
#include <string>

#include "softmx/sha256.hpp"
#include "support/cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using softmx::testing::run_shell;
using softmx::testing::scratch_dir;
using softmx::testing::slurp;

const fs::path kVectors = fs::path(SOFTMX_SOURCE_DIR) / "vectors";

struct Entry {
  std::string sha, path, command;
};

std::vector<Entry> manifest(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Entry> v;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    EXPECT_NE(t2, std::string::npos) << "MANIFEST line without three tab-separated fields: " << line;
    if (t2 == std::string::npos) continue;
    v.push_back(Entry{line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)});
  }
  return v;
}

TEST(CommittedVectors, EveryFileIsListedWithItsSha256) {
  const auto entries = manifest(kVectors / "MANIFEST");
  ASSERT_GT(entries.size(), 100u);
  std::set<std::string> listed;
  for (const auto& e : entries) {
    listed.insert(e.path);
    const std::string bytes = slurp((kVectors / e.path).string());
    ASSERT_FALSE(bytes.empty()) << e.path << " is missing or empty";
    EXPECT_EQ(softmx::sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}), e.sha) << e.path;
    EXPECT_EQ(e.command.rfind("softmx ", 0), 0u) << e.path << ": " << e.command;
  }
  for (const auto& f : fs::recursive_directory_iterator(kVectors)) {
    if (!f.is_regular_file()) continue;
    const std::string rel = fs::relative(f.path(), kVectors).string();
    if (rel == "README.md" || rel == "MANIFEST") continue;
    // Hardware captures (vectors/cuda/<gpu>/) have their own MANIFESTs, checked by
    // test_cuda_capture_committed: they are what a GPU computed, not what softmx regenerates.
    if (rel.rfind("cuda/", 0) == 0) continue;
    // Published captures (vectors/published/<source>/) have their own MANIFESTs and licences,
    // checked by test_published_captures: other people's hardware data, not softmx's output.
    if (rel.rfind("published/", 0) == 0) continue;
    // RTL results (vectors/rtl/<unit>/): other people's units simulated, with their own
    // MANIFESTs, checked by test_rtl_fpnew and test_rtl_mxdotp.
    if (rel.rfind("rtl/", 0) == 0) continue;
    // IEEE P3109 sets (vectors/p3109/): their own MANIFEST, checked by test_p3109_tables.
    if (rel.rfind("p3109/", 0) == 0) continue;
    // Other implementations' results (vectors/peers/<peer>/): their own MANIFESTs, checked by
    // test_peer_gfloat_p3109 (gfloat's P3109 conversions).
    if (rel.rfind("peers/", 0) == 0) continue;
    EXPECT_TRUE(listed.count(rel)) << rel << " is in vectors/ but not in its MANIFEST";
  }
}

TEST(CommittedVectors, RegenerateToIdenticalBytes) {
  const char* all_env = std::getenv("SOFTMX_VECTORS_ALL");
  const bool all = all_env && std::string(all_env) == "1";
  if (!all)
    std::cout << "the 104 f32 run tables are not regenerated (their SHA-256s are still checked): "
                 "test_committed_vectors_all (ctest -L long) or SOFTMX_VECTORS_ALL=1 does\n";
  const std::string dir = scratch_dir("vectors") + "/regen";
  fs::remove_all(dir);
  const auto r = run_shell("SOFTMX='" + std::string(SOFTMX_CLI) + "' '" + SOFTMX_SOURCE_DIR + "/scripts/make-vectors.sh' " +
                           (all ? "" : "--small ") + "'" + dir + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::cout << r.out;
  if (all) {
    EXPECT_EQ(slurp(dir + "/MANIFEST"), slurp((kVectors / "MANIFEST").string())) << "MANIFEST differs";
  }
  // Every regenerated file is listed in the committed MANIFEST with the same line.
  const std::string committed = slurp((kVectors / "MANIFEST").string());
  for (const auto& e : manifest(fs::path(dir) / "MANIFEST"))
    EXPECT_NE(committed.find(e.sha + "\t" + e.path + "\t" + e.command + "\n"), std::string::npos) << e.path;
  std::size_t files = 0;
  for (const auto& e : manifest(fs::path(dir) / "MANIFEST")) {
    ++files;
    EXPECT_EQ(slurp(dir + "/" + e.path), slurp((kVectors / e.path).string())) << e.path << " differs from the committed file";
  }
  EXPECT_GT(files, 100u);
  fs::remove_all(dir);
}

}  // namespace
