// conformance/test_tensor_core_instructions.cpp: a user who knows only "B200, mma.sync m16n8k32
// e4m3, f32" or "H100, wgmma" finds the model (issue 25): the instruction table
// (softmx/tensor_core_instructions.hpp) against the library's model list, its aliases wherever a
// model is taken, `softmx models`, `softmx help dot`, and docs/TENSOR_CORES.md section 3, which
// must hold the table exactly.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "softmx/dot.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"
#include "support/cli_run.hpp"

namespace {

using softmx::TensorCoreInstruction;
using softmx::testing::run_cli;
using softmx::testing::scratch_dir;
using softmx::testing::slurp;

bool contains(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

TEST(TensorCoreInstructions, EveryRowNamesAModelAndEveryModelHasARow) {
  std::set<std::string> models, aliases;
  for (const softmx::TensorCoreModel* m : softmx::tensor_core_models()) models.insert(std::string(m->name()));
  std::set<std::string> with_row;
  for (const TensorCoreInstruction& r : softmx::tensor_core_instructions()) {
    SCOPED_TRACE(std::string(r.alias));
    EXPECT_TRUE(models.count(std::string(r.model))) << r.model << " is not a model";
    with_row.insert(std::string(r.model));
    // The alias is new, not a model's name, and names the row's model.
    EXPECT_TRUE(aliases.insert(std::string(r.alias)).second) << "alias given twice";
    EXPECT_FALSE(models.count(std::string(r.alias)));
    const softmx::TensorCoreModel* m = softmx::find_tensor_core_model(r.alias);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->name(), r.model);
    const softmx::AccumulationModel* a = softmx::find_accumulation_model(r.alias);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->name(), r.model);
    // A row can only be confirmed where its model is (the model's own flag: captures checked).
    if (r.confirmed) {
      EXPECT_TRUE(m->params().confirmed) << r.model;
    }
    EXPECT_FALSE(r.arch.empty() || r.gpus.empty() || r.instruction.empty() || r.elements.empty() || r.accumulator.empty() ||
                 r.evidence.empty());
  }
  EXPECT_EQ(with_row, models) << "a model without an instruction row";
  EXPECT_EQ(softmx::find_tensor_core_model("sm99-nope"), nullptr);
}

TEST(TensorCoreInstructions, TheIssuesQuestionsFindOneModel) {
  struct Q {
    const char* query;
    const char* model;
  };
  for (const Q& q : {Q{"B200 mma.sync e4m3 f32", "hopper-fp8-mma"}, Q{"H100 wgmma", "hopper-fp8-wgmma"},
                     Q{"h200 MMA-SYNC f16", "hopper-fp8-mma"}, Q{"sm90 wgmma", "hopper-fp8-wgmma"},
                     Q{"L40S mma.sync", "ada-fp8-mma"}, Q{"B200 kind::mxf8f6f4", "blackwell-mxf8f6f4"},
                     Q{"B200 tcgen05 f8f6f4 e2m1", "blackwell-f8f6f4"}, Q{"sm_100 UE4M3", "blackwell-nvf4"},
                     Q{"RTX 5090 mma.sync m16n8k32 e4m3", "blackwell-f8f6f4"}}) {
    SCOPED_TRACE(q.query);
    const auto rows = softmx::find_tensor_core_instructions(q.query);
    // Every row found names the same model (a query may hit a block-scaled form too).
    ASSERT_FALSE(rows.empty());
    bool found = false;
    for (const TensorCoreInstruction* r : rows) found |= r->model == q.model;
    EXPECT_TRUE(found) << softmx::tensor_core_instruction_table(rows);
    if (std::string(q.query) == "B200 mma.sync e4m3 f32" || std::string(q.query) == "H100 wgmma") {
      EXPECT_EQ(rows.size(), 1u) << softmx::tensor_core_instruction_table(rows);
    }
  }
  EXPECT_TRUE(softmx::find_tensor_core_instructions("A100 hmma bf16").empty());
  EXPECT_EQ(softmx::find_tensor_core_instructions("").size(), softmx::tensor_core_instructions().size());
}

TEST(TensorCoreInstructions, TheDocsHoldTheTable) {
  const std::string doc = slurp(std::string(SOFTMX_SOURCE_DIR) + "/docs/TENSOR_CORES.md");
  const std::string begin = "<!-- instruction table (tensor_core_instruction_markdown()): begin -->\n";
  const std::string end = "<!-- instruction table: end -->";
  const std::size_t a = doc.find(begin), b = doc.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()), softmx::tensor_core_instruction_markdown())
      << "docs/TENSOR_CORES.md section 3 must hold exactly:\n"
      << softmx::tensor_core_instruction_markdown();
}

TEST(TensorCoreInstructions, TheCliFindsAndTakesThem) {
  auto r = run_cli("models B200 mma.sync f32");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "hopper-fp8-mma")) << r.out;
  EXPECT_TRUE(contains(r.out, "sm100-mma-sync-fp8")) << r.out;
  EXPECT_FALSE(contains(r.out, "wgmma")) << r.out;
  r = run_cli("models");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind(softmx::tensor_core_instruction_table(softmx::find_tensor_core_instructions("")), 0), 0u) << r.out;
  r = run_cli("models A100 hmma");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(contains(r.out, "no instruction matches")) << r.out;
  r = run_cli("help dot");
  EXPECT_TRUE(contains(r.out, "sm90-wgmma")) << r.out;
  EXPECT_TRUE(contains(r.out, "softmx models QUERY")) << r.out;
  // An alias wherever a model is taken; files spell the model's name.
  const std::string dir = scratch_dir("tci");
  r = run_cli("gen mma --a e4m3 --b e4m3 --model sm90-wgmma -o " + dir + "/a.vec");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir + "/a.vec"), "\nmodel = hopper-fp8-wgmma\n"));
  EXPECT_EQ(run_cli("verify --model sm90-wgmma " + dir + "/a.vec").status, 0);
  r = run_cli("gen dot --a e4m3 --b e4m3 --acc sm90-mma-sync-fp8 -o " + dir + "/d.vec");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir + "/d.vec"), "\naccumulation = hopper-fp8-mma\n"));
  r = run_cli("dot --a e4m3 --b e4m3 --block 1 --acc sm90-wgmma", "7F 38 7F 38\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3F800000 00\n");
  r = run_cli("gen mma --a e4m3 --b e4m3 --model sm99-nope -o " + dir + "/x.vec");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "softmx models")) << r.err;
}

}  // namespace
