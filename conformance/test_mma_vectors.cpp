// conformance/test_mma_vectors.cpp: the `mma` vector operation (vectors/README.md sections 3, 4
// and 6): gen writes it, verify checks it and explains a mismatch with the model's terms,
// the header and line rules reject bad files, and `softmx dot --acc` runs the tensor-core
// models. Runs the real binary.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace {

using softmx::testing::run_cli;
using softmx::testing::scratch_dir;
using softmx::testing::slurp;
using softmx::testing::write_file;

std::vector<std::string> data_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header && line.find('=') != std::string::npos) continue;
    header = false;
    out.push_back(line);
  }
  return out;
}

std::size_t fields(const std::string& line) {
  std::istringstream in(line);
  std::string f;
  std::size_t n = 0;
  while (in >> f) ++n;
  return n;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

TEST(MmaVectors, GenThenVerifyAgreesForEveryModelAccumulatorAndAddend) {
  const std::string dir = scratch_dir("mma-gen");
  for (const char* model : {"hopper-fp8-mma", "hopper-fp8-wgmma"})
    for (const char* acc : {"f32", "f16"})
      for (const char* addend : {"yes", "no"})
        for (const char* ab : {"--a e4m3 --b e4m3", "--a e5m2 --b e4m3"}) {
          const std::string f = dir + "/" + model + acc + addend + (ab[5] == '5' ? "x" : "") + ".vec";
          const auto g = run_cli(std::string("gen mma ") + ab + " --accumulator " + acc + " --addend " + addend + " --model " +
                                 model + " --level 2 --count 300 -o " + f);
          ASSERT_EQ(g.status, 0) << g.err;
          const std::string text = slurp(f);
          EXPECT_NE(text.find(std::string("model = ") + model), std::string::npos);
          EXPECT_EQ(text.find("rounding"), std::string::npos) << "mma headers have no rounding keys";
          const auto lines = data_lines(text);
          ASSERT_GT(lines.size(), 300u);
          // Operands, then D, never flags: 2K (+1 with C) + 1 fields.
          const std::size_t want = 64 + (std::string(addend) == "yes" ? 1 : 0) + 1;
          for (const auto& l : lines) ASSERT_EQ(fields(l), want) << l;
          const auto v = run_cli("verify " + f);
          EXPECT_EQ(v.status, 0) << v.out << v.err;
          EXPECT_NE(v.out.find("all match"), std::string::npos) << v.out;
        }
}

TEST(MmaVectors, DeterministicAndLevelTwoExtendsLevelOne) {
  const std::string dir = scratch_dir("mma-det");
  auto gen = [&](const std::string& extra, const std::string& name) {
    const auto g = run_cli("gen mma --a e4m3 --b e5m2 " + extra + " -o " + dir + "/" + name);
    EXPECT_EQ(g.status, 0) << g.err;
    return data_lines(slurp(dir + "/" + name));
  };
  const auto l1 = gen("", "l1"), a = gen("--level 2 --count 50 --seed 7", "a"), b = gen("--level 2 --count 50 --seed 7", "b"),
             c = gen("--level 2 --count 50 --seed 8", "c");
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), l1.size() + 50);
  EXPECT_TRUE(std::equal(l1.begin(), l1.end(), a.begin()));
  EXPECT_NE(a, c);
  EXPECT_TRUE(std::equal(l1.begin(), l1.end(), c.begin()));
}

TEST(MmaVectors, Level1HoldsTheCarryProbeWithTheModelsAnswer) {
  // 32 x (1 * 1) + C = 2^-13 (the carry ladder, j = 13): 0x42000020 under hopper-fp8-mma,
  // 0x42000000 under hopper-fp8-wgmma (docs/TENSOR_CORES.md section 4).
  const std::string dir = scratch_dir("mma-probe");
  std::string ones;
  for (int i = 0; i < 64; ++i) ones += "38 ";
  for (const auto& [model, d] : {std::pair<std::string, std::string>{"hopper-fp8-mma", "42000020"}, {"hopper-fp8-wgmma", "42000000"}}) {
    ASSERT_EQ(run_cli("gen mma --a e4m3 --b e4m3 --model " + model + " -o " + dir + "/" + model).status, 0);
    const std::string text = slurp(dir + "/" + model);
    EXPECT_NE(text.find(ones + "39000000 " + d + "\n"), std::string::npos) << model;
  }
}

TEST(MmaVectors, VerifyNamesTheModelAndDecomposesTheTerms) {
  // A "device" that is the wgmma model, checked against the mma model's header.
  const std::string dir = scratch_dir("mma-verify");
  ASSERT_EQ(run_cli("gen mma --a e4m3 --b e4m3 --model hopper-fp8-wgmma -o " + dir + "/dev.vec").status, 0);
  write_file(dir + "/claimed.vec", replace_all(slurp(dir + "/dev.vec"), "model = hopper-fp8-wgmma", "model = hopper-fp8-mma"));
  const auto v = run_cli("verify --max-errors 3 " + dir + "/claimed.vec");
  EXPECT_EQ(v.status, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("mismatch"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("the device's result comes from: model=hopper-fp8-wgmma"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("reference E = "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("rounded into the accumulator"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("A_1*B_1"), std::string::npos) << v.out;
}

TEST(MmaVectors, BadFilesAreRejectedWithLineAndExpectation) {
  const std::string dir = scratch_dir("mma-bad");
  ASSERT_EQ(run_cli("gen mma --a e4m3 --b e4m3 --block 2 -o " + dir + "/ok.vec").status, 0);
  const std::string ok = slurp(dir + "/ok.vec");
  struct Bad {
    std::string text, expect;
  };
  const std::vector<Bad> bad{
      {replace_all(ok, "model = hopper-fp8-mma\n", ""), "lacks the required key 'model'"},
      {replace_all(ok, "model = hopper-fp8-mma", "model = volta"), "bad value 'volta' for 'model'"},
      {replace_all(ok, "accumulator = f32", "accumulator = bf16"), "expected f32 or f16"},
      {replace_all(ok, "addend = yes", "addend = maybe"), "bad value 'maybe' for 'addend'"},
      {replace_all(ok, "addend = yes\n", "addend = yes\nrounding = rne\n"), "'rounding' does not apply to operation mma"},
      {"softmx-vectors = 1\noperation = mma\na = e4m3\nb = e4m3\nblock = 2\naccumulator = f32\naddend = yes\n"
       "model = hopper-fp8-mma\n38 38 38 38 00000000 40000000 00\n",
       "line 9: 7 fields, expected 5 or 6 fields (A_1 A_2 B_1 B_2 C D; no flags)"},
      {"softmx-vectors = 1\noperation = mma\na = e4m3\nb = e4m3\nblock = 2\naccumulator = f16\naddend = no\n"
       "model = hopper-fp8-mma\n38 38 38 38 00000000\n",
       "field 5 (D): expected"},
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    write_file(dir + "/bad" + std::to_string(i), bad[i].text);
    const auto v = run_cli("verify " + dir + "/bad" + std::to_string(i));
    EXPECT_EQ(v.status, 2) << i << ": " << v.out;
    EXPECT_NE(v.err.find(bad[i].expect), std::string::npos) << i << ": " << v.err;
  }
  // gen's own options.
  const auto g = run_cli("gen mma --a e4m3 --b e4m3 --round rz");
  EXPECT_EQ(g.status, 2);
  EXPECT_NE(g.err.find("--round does not apply to gen mma"), std::string::npos) << g.err;
  const auto m = run_cli("gen mma --a e4m3 --b e4m3 --model nope");
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find("unknown tensor-core model 'nope'"), std::string::npos) << m.err;
}

TEST(MmaVectors, InputsOnlyFilesHaveOperandsAndVerifyRefusesThem) {
  const std::string dir = scratch_dir("mma-inputs");
  ASSERT_EQ(run_cli("gen mma --a e4m3 --b e4m3 --addend no --inputs-only -o " + dir + "/in.vec").status, 0);
  const auto lines = data_lines(slurp(dir + "/in.vec"));
  ASSERT_FALSE(lines.empty());
  for (const auto& l : lines) EXPECT_EQ(fields(l), 64u) << l;
  const auto v = run_cli("verify " + dir + "/in.vec");
  EXPECT_EQ(v.status, 2);
  EXPECT_NE(v.err.find("no results on this line"), std::string::npos) << v.err;
}

TEST(MmaVectors, DotRunsTheTensorCoreModels) {
  // One block pair of 32 ones: 32 under both models.
  std::string line = "7F";
  for (int i = 0; i < 32; ++i) line += " 38";
  line += " 7F";
  for (int i = 0; i < 32; ++i) line += " 38";
  for (const char* acc : {"hopper-fp8-mma", "hopper-fp8-wgmma"}) {
    const auto r = run_cli(std::string("dot --a e4m3 --b e4m3 --acc ") + acc, line + "\n");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "42000000 00\n") << acc;
  }
  // 1 * 1 and 31 products 2^-6 * 2^-9 = 2^-15 (e4m3 0x08 and 0x01): wgmma's reference is E = 0
  // (the first product), its quantum 2^-13, every small product truncates to 0: 1.0 where
  // exact accumulation gives 1 + 31 * 2^-15 (0x3F801F00). mma's HMMA steps keep 25 bits below
  // E: exact.
  std::string probe = "7F 38";
  for (int i = 1; i < 32; ++i) probe += " 08";
  probe += " 7F 38";
  for (int i = 1; i < 32; ++i) probe += " 01";
  const auto e = run_cli("dot --a e4m3 --b e4m3 --acc exact", probe + "\n");
  const auto t = run_cli("dot --a e4m3 --b e4m3 --acc hopper-fp8-wgmma", probe + "\n");
  const auto h = run_cli("dot --a e4m3 --b e4m3 --acc hopper-fp8-mma", probe + "\n");
  EXPECT_EQ(e.out, "3F801F00 00\n");
  EXPECT_EQ(t.out.substr(0, 8), "3F800000");
  EXPECT_EQ(h.out.substr(0, 8), "3F801F00");
  const auto bad = run_cli("dot --a e4m3 --b e4m3 --acc hopper", line + "\n");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("hopper-fp8-wgmma"), std::string::npos) << bad.err;
}

}  // namespace
