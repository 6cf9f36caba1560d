// conformance/test_cli_saturation.cpp: without --sat every command uses the destination's
// default saturation (docs/SEMANTICS.md 4.1): IEEE overflow into f64, f32, f16 and bf16 (Inf,
// and Inf stays Inf), the dialect's default into the MX formats and e8m0 (ocp: finite). An
// explicit --sat finite still saturates. Through the real binary.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "softmx/dialect.hpp"
#include "support/cli_run.hpp"

namespace {

using softmx::testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return softmx::testing::run_cli(args, input); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// For each {ARGS, PART}: the output of `softmx ARGS` (stdin empty) contains PART.
void expect_outputs_have(std::initializer_list<std::pair<const char*, const char*>> cases) {
  for (const auto& [args, part] : cases) {
    const CliRun r = run(args);
    EXPECT_TRUE(has(r.out, part)) << r.out;
  }
}

TEST(CliSaturation, ConvertValuesIntoIeeeOverflowToInf) {
  CliRun r = run("convert --to f16 1e6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1e6 -> f16 7C00 = inf  flags 05 (overflow|inexact)\n");
  r = run("convert --to f32 1e39 -1e39");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1e39 -> f32 7F800000 = inf  flags 05 (overflow|inexact)")) << r.out;
  EXPECT_TRUE(has(r.out, "-1e39 -> f32 FF800000 = -inf  flags 05 (overflow|inexact)")) << r.out;
  expect_outputs_have({{"convert --to bf16 1e39", "1e39 -> bf16 7F80 = inf  flags 05"},
                       {"convert --to f16 inf", "inf -> f16 7C00 = inf  flags 00"}});
  // An explicit --sat finite still saturates.
  r = run("convert --to f16 --sat finite 1e6");
  EXPECT_EQ(r.out, "1e6 -> f16 7BFF = 65504  flags 05 (overflow|inexact)\n");
  r = run("convert --to f32 --sat finite 1e39");
  EXPECT_TRUE(has(r.out, "1e39 -> f32 7F7FFFFF = ")) << r.out;
  // Into the MX formats the default stays finite under ocp.
  r = run("convert --to e4m3 465");
  EXPECT_TRUE(has(r.out, "465 -> e4m3 7E = 448  flags 05")) << r.out;
}

TEST(CliSaturation, ConvertStreamDecodesInfAsInf) {
  CliRun r = run("convert --from e5m2 --to f32", "7C\nFC\n7B\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "7C 7F800000 00\nFC FF800000 00\n7B 47600000 00\n");
  r = run("convert --from f64 --to f16", "412E848000000000\n");  // 1e6
  EXPECT_EQ(r.out, "412E848000000000 7C00 05\n");
  r = run("convert --from e5m2 --to f32 --sat finite", "7C\n");
  EXPECT_EQ(r.out, "7C 7F7FFFFF 10\n");
  r = run("convert --from f64 --to f16 --sat finite", "412E848000000000\n");
  EXPECT_EQ(r.out, "412E848000000000 7BFF 05\n");
}

// Every dialect: IEEE overflow into the IEEE formats (docs/DIALECTS.md cites each).
TEST(CliSaturation, EveryDialectDefaultsToIeeeOverflow) {
  for (const softmx::Dialect& d : softmx::all_dialects()) {
    const std::string dn(d.name);
    EXPECT_EQ(run("convert --from e5m2 --to f32 --dialect " + dn, "7C\n").out, "7C 7F800000 00\n") << dn;
    EXPECT_EQ(run("convert --from e5m2 --to f16 --dialect " + dn, "FC\n").out, "FC FC00 00\n") << dn;
    EXPECT_EQ(run("convert --from f32 --to f16 --dialect " + dn, "49742400\n").out, "49742400 7C00 05\n") << dn;
    EXPECT_EQ(run("convert --from f32 --to bf16 --dialect " + dn, "7F7FFFFF\n").out, "7F7FFFFF 7F80 05\n") << dn;
    EXPECT_EQ(run("convert --from f32 --to f16 --sat finite --dialect " + dn, "49742400\n").out, "49742400 7BFF 05\n")
        << dn;
  }
}

TEST(CliSaturation, ExplainMarksTheDefault) {
  CliRun r = run("explain --to f16 1e6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "* rne  none    7C00 inf")) << r.out;
  r = run("explain --to f16 --sat finite 1e6");
  EXPECT_TRUE(has(r.out, "* rne  finite  7BFF 65504")) << r.out;
  r = run("explain --to e4m3 465");
  EXPECT_TRUE(has(r.out, "* rne  finite  7E")) << r.out;
}

TEST(CliSaturation, DequantizeIntoIeeeOverflowsToInf) {
  // An E5M2 Inf stays Inf; 57344 * 2^127 is beyond f32.
  const std::string in = "7F 7C FC 3C 7B\nFE 7B 7B 7B 7B\n";
  CliRun r = run("dequantize --from e5m2 --block 4", in);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "7F800000\nFF800000\n3F800000\n47600000\n7F800000\n7F800000\n7F800000\n7F800000\n");
  r = run("dequantize --from e5m2 --block 4 --sat finite", in);
  EXPECT_EQ(r.out, "7F7FFFFF\nFF7FFFFF\n3F800000\n47600000\n7F7FFFFF\n7F7FFFFF\n7F7FFFFF\n7F7FFFFF\n");
  r = run("dequantize --from e4m3 --to f16 --block 1", "90 7E\n");  // 448 * 2^17
  EXPECT_EQ(r.out, "7C00\n");
}

TEST(CliSaturation, DotResultOverflowsToInf) {
  const CliRun r = run("dot --a e5m2 --b e5m2 --block 1", "FE 7B FE 7B\n7F 7C 7F 3C\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "7F800000 05\n7F800000 00\n");
}

// Generated files record the saturation that was used, explicitly.
TEST(CliSaturation, GeneratedHeadersRecordTheResolvedSaturation) {
  CliRun r = run("gen convert --from bf16 --to f16 --level 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\nsaturation = none\n")) << r.out.substr(0, 300);
  r = run("gen convert --from e5m2 --to f32 --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = none\n"));
  EXPECT_TRUE(has(r.out, "\n7C 7F800000 00\n"));
  r = run("gen convert --from e5m2 --to f32 --sat finite --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = finite\n"));
  EXPECT_TRUE(has(r.out, "\n7C 7F7FFFFF 10\n"));
  r = run("gen dequantize --from e5m2 --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = none\n"));
  r = run("gen convert --from f32 --to e4m3 --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = finite\n"));
  r = run("gen convert --from f32 --to e4m3 --dialect ml_dtypes --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = none\n"));
  r = run("gen quantize --from f32 --to e4m3 --level 1");
  EXPECT_TRUE(has(r.out, "\nsaturation = finite\n"));
  const std::string runs = softmx::testing::scratch_dir("cli_saturation") + "/bf16-f16.runs";
  r = run("sweep --from bf16 --to f16 -o '" + runs + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(softmx::testing::slurp(runs), "\nsaturation = none\n"));
  r = run("verify '" + runs + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// gemm-golden: --sat is the element conversions' saturation (it was accepted and ignored), and
// the manifest says which was used. E4M3 blocks under the floor rule overflow when amax's
// significand rounds above 1.75 (464 / 256 = 1.8125): finite gives 448 (0x7E), none NaN (0x7F).
TEST(CliSaturation, GemmGoldenHonoursSat) {
  const std::string base = softmx::testing::scratch_dir("cli_saturation");
  const std::string args = " --m 16 --n 8 --k 64 --a e4m3 --b e4m3 --seed 5";
  ASSERT_EQ(run("gemm-golden --out '" + base + "/dflt'" + args).status, 0);
  ASSERT_EQ(run("gemm-golden --out '" + base + "/fin'" + args + " --sat finite").status, 0);
  const CliRun r = run("gemm-golden --out '" + base + "/none'" + args + " --sat none");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string dflt = softmx::testing::slurp(base + "/dflt/a.bin");
  EXPECT_FALSE(dflt.empty());
  EXPECT_EQ(dflt, softmx::testing::slurp(base + "/fin/a.bin"));  // ocp's element default: finite
  const std::string none = softmx::testing::slurp(base + "/none/a.bin");
  ASSERT_EQ(none.size(), dflt.size());
  int nan = 0;
  for (std::size_t i = 0; i < none.size(); ++i)
    if (none[i] != dflt[i]) {
      EXPECT_EQ(static_cast<unsigned char>(dflt[i]) & 0x7F, 0x7E) << i;
      EXPECT_EQ(static_cast<unsigned char>(none[i]) & 0x7F, 0x7F) << i;
      ++nan;
    }
  EXPECT_GT(nan, 0) << "--sat none changed no element code";
  EXPECT_TRUE(has(softmx::testing::slurp(base + "/dflt/manifest.txt"), "\nelement_saturation = finite\n"));
  EXPECT_TRUE(has(softmx::testing::slurp(base + "/none/manifest.txt"), "\nelement_saturation = none\n"));
  const CliRun bad = run("gemm-golden --out '" + base + "/bad'" + args + " --sat maybe");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.err, "unknown saturation 'maybe'")) << bad.err;
}

TEST(CliSaturation, DialectsListTheDefaults) {
  const CliRun r = run("dialects");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "saturation default  none: f64 f32 f16 bf16; finite: e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "saturation default  none: f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 e8m0; finite: int8\n"))
      << r.out;  // ml_dtypes
}

}  // namespace

// Issue 29: a runtime destination with Inf (e3m4, e4m3:specials=ieee, ue5m3) overflows to Inf by
// default, as f16, under every dialect that takes it; fnuz, fn and none keep the dialect's default.
namespace {

TEST(CliSaturation, RuntimeDestinationsWithInfOverflowToInf) {
  CliRun r = run("convert --to e3m4 1e6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1e6 -> e3m4 70 = inf  flags 05 (overflow|inexact)\n");
  r = run("convert --to e3m4 --sat finite 1e6");
  EXPECT_EQ(r.out, "1e6 -> e3m4 6F = 15.5  flags 05 (overflow|inexact)\n");
  r = run("convert --from f32 --to e3m4", "49742400\nC9742400\n7F800000\n");  // 1e6, -1e6, +Inf
  EXPECT_EQ(r.out, "49742400 70 05\nC9742400 F0 05\n7F800000 70 00\n");
  expect_outputs_have({{"convert --to float8_e4m3 1e6", "1e6 -> e4m3:specials=ieee 78 = inf  flags 05"},
                       {"convert --to ue5m3 1e6", "1e6 -> ue5m3 F8 = inf  flags 05"},
                       // Without Inf the default stays finite under ocp.
                       {"convert --to e4m3fnuz 1e6", "1e6 -> e4m3fnuz 7F = 240  flags 05"},
                       {"convert --to ue4m3 1e6", "1e6 -> ue4m3 7E = 448  flags 05"}});
  // Every dialect that takes e3m4: Inf (ml_dtypes, gfloat, ocp; the others refuse it).
  for (const softmx::Dialect& d : softmx::all_dialects()) {
    const CliRun c = run("convert --from f32 --to e3m4 --dialect " + std::string(d.name), "49742400\n");
    if (c.status != 0) {
      EXPECT_TRUE(has(c.err, "runtime format") || has(c.err, "e3m4")) << d.name << ": " << c.err;
      continue;
    }
    EXPECT_EQ(c.out, "49742400 70 05\n") << d.name;
  }
  // gen records the saturation it used: none.
  r = run("gen convert --from f32 --to e3m4 --level 2 --count 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\nsaturation = none\n")) << r.out;
}

TEST(CliSaturation, HelpStatesTheDefaultPerDestinationKind) {
  for (const char* c : {"convert", "explain", "quantize", "dequantize", "gen", "sweep"}) {
    const std::string h = run(std::string(c) + " --help").out;
    EXPECT_TRUE(has(h, "f64 f32 f16 bf16 and runtime formats with Inf (e3m4, e4m3ieee)")) << c << ":\n" << h;
    EXPECT_TRUE(has(h, "dialect's into the MX formats, e8m0 and other runtime formats")) << c << ":\n" << h;
  }
  EXPECT_TRUE(has(run("dot --help").out, "(default none: overflow to Inf"));
  EXPECT_TRUE(has(run("gemm-golden --help").out, "(default: the dialect's element\n"));
  EXPECT_TRUE(has(run("--help").out, "into f64 f32 f16 bf16 and runtime formats with Inf (e3m4)"));
  EXPECT_TRUE(has(run("formats --help").out, "Default saturation (without --sat; SEMANTICS 4.1)"));
  const std::string d = run("dialects").out;
  EXPECT_TRUE(has(d, "  runtime formats saturation default  with Inf (e3m4): none; other: finite\n")) << d;  // ocp
}

}  // namespace
