// conformance/test_p3109_tables.cpp: the IEEE P3109 working group's published value tables
// (conformance/data/p3109/README.md: github.com/P3109/Public 26df0d0, Value Tables/Hexadecimal)
// against softmx's decoding of every code: value, NaN, infinities and the subnormal mark.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <unistd.h>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format.hpp"
#include "softmx/sha256.hpp"

namespace softmx {
namespace {

namespace fs = std::filesystem;

struct Tally {
  int files = 0, not_held = 0;
  std::uint64_t codes = 0, differences = 0;
};

/// Checks one table file; returns false when softmx cannot hold the format (more than 8
/// exponent bits), after checking that this is the only reason.
bool check_table(const fs::path& path, Tally& t) {
  std::string stem = path.stem().string();
  for (char& c : stem) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Format f;
  try {
    f = parse_format_spec(stem);
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("softmx holds at most 8"), std::string::npos) << path << ": " << e.what();
    ++t.not_held;
    return false;
  }
  const Dialect* d = find_dialect("p3109");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "codepoint,value,subnormal") << path;
  std::uint64_t expect_code = 0;
  while (std::getline(in, line)) {
    const auto c1 = line.find(','), c2 = line.find(',', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) {
      ADD_FAILURE() << path << ": bad line " << line;
      ++t.differences;
      continue;
    }
    const std::uint64_t code = std::strtoull(line.substr(0, c1).c_str(), nullptr, 16);
    const std::string value = line.substr(c1 + 1, c2 - c1 - 1), sub = line.substr(c2 + 1);
    EXPECT_EQ(code, expect_code++) << path << ": codes in order, none missing";
    const Result r = convert(f, format(FormatId::f64), code, Context{}, *d);
    double got;
    std::memcpy(&got, &r.code, 8);
    bool same;
    if (value == "NaN") same = std::isnan(got);
    else if (value == "Inf") same = got == INFINITY;
    else if (value == "-Inf") same = got == -INFINITY;
    else same = !std::isnan(got) && got == std::strtod(value.c_str(), nullptr) && !(got == 0 && std::signbit(got));
    // The subnormal mark: exponent field 0 and a non-zero fraction (P3109 3.1: 0 < S < 2^(P-1)).
    const std::uint64_t mag = f.sign == SignEncoding::none ? code : code & f.all_ones_magnitude();
    const bool is_sub = !std::isnan(got) && !std::isinf(got) && (mag >> f.man_bits) == 0 && mag != 0;
    same = same && (sub == "*") == is_sub;
    ++t.codes;
    if (!same) {
      ++t.differences;
      ADD_FAILURE() << path.filename() << " code " << code << ": table " << value << " " << sub << ", softmx "
                    << got;
    }
  }
  EXPECT_EQ(expect_code, std::uint64_t{1} << f.width) << path << ": every code";
  ++t.files;
  return true;
}

Tally check_dir(const fs::path& dir) {
  Tally t;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) check_table(p, t);
  return t;
}

TEST(P3109Tables, CommittedK3ToK8) {
  const fs::path dir = fs::path(SOFTMX_SOURCE_DIR) / "conformance/data/p3109/tables";
  const Tally t = check_dir(dir);
  std::printf("p3109 value tables K=3..8: %d files, %llu codes, %llu differences\n", t.files,
              static_cast<unsigned long long>(t.codes), static_cast<unsigned long long>(t.differences));
  EXPECT_EQ(t.files, 120);
  EXPECT_EQ(t.not_held, 0);
  EXPECT_EQ(t.differences, 0u);
}

TEST(P3109Tables, PublicCheckoutK9ToK16) {
  const char* dir = std::getenv("SOFTMX_P3109_PUBLIC");
  if (!dir) GTEST_SKIP() << "SOFTMX_P3109_PUBLIC is not set (a checkout's 'Value Tables/Hexadecimal' directory)";
  Tally t;
  for (int k = 9; k <= 16; ++k) {
    const fs::path d = fs::path(dir) / ("K" + std::to_string(k));
    if (!fs::exists(d)) continue;
    const Tally u = check_dir(d);
    t.files += u.files;
    t.not_held += u.not_held;
    t.codes += u.codes;
    t.differences += u.differences;
  }
  std::printf("p3109 value tables K=9..16: %d files checked, %d not held (more than 8 exponent bits), %llu codes, "
              "%llu differences\n",
              t.files, t.not_held, static_cast<unsigned long long>(t.codes), static_cast<unsigned long long>(t.differences));
  EXPECT_EQ(t.differences, 0u);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// vectors/p3109/: every file listed in its MANIFEST with its SHA-256, and the script remakes
/// the MANIFEST and every file byte for byte (scripts/make-p3109-vectors.sh).
TEST(P3109Vectors, ManifestAndRegeneration) {
  const fs::path dir = fs::path(SOFTMX_SOURCE_DIR) / "vectors/p3109";
  const std::string manifest = slurp(dir / "MANIFEST");
  ASSERT_FALSE(manifest.empty());
  std::set<std::string> listed;
  std::istringstream lines(manifest);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    ASSERT_NE(t2, std::string::npos) << line;
    const std::string sha = line.substr(0, t1), path = line.substr(t1 + 1, t2 - t1 - 1);
    listed.insert(path);
    const std::string bytes = slurp(dir / path);
    EXPECT_EQ(sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}), sha) << path;
  }
  EXPECT_EQ(listed.size(), 120u);
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    const std::string rel = fs::relative(f.path(), dir).string();
    if (rel == "MANIFEST" || rel == "README.md") continue;
    EXPECT_TRUE(listed.count(rel)) << rel << " is in vectors/p3109 but not in its MANIFEST";
  }
  const fs::path out = fs::temp_directory_path() / ("softmx-p3109-vectors-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string cmd = "SOFTMX='" + std::string(SOFTMX_CLI) + "' '" + SOFTMX_SOURCE_DIR +
                          "/scripts/make-p3109-vectors.sh' '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_EQ(slurp(out / "MANIFEST"), manifest) << "the regenerated MANIFEST differs";
  for (const std::string& p : listed) EXPECT_EQ(slurp(out / p), slurp(dir / p)) << p << " differs when regenerated";
  fs::remove_all(out);
}

}  // namespace
}  // namespace softmx
