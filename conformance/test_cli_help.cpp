// conformance/test_cli_help.cpp: the command line as people expect it (issue 16): every
// subcommand answers --help and -h with its own usage and options (exit 0, on stdout),
// `softmx help CMD` prints the same, an unknown CMD is a clear error (exit 2), and --version
// prints the CMake project version. Runs the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace {

using softmx::testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return softmx::testing::run_cli(args, input); }

struct Command {
  std::string name;
  std::vector<std::string> options;  // every option its parse_args() accepts
};

// Each command with the options the code accepts (tools/softmx/cmd_*.cpp), so a help that
// forgets one fails here.
const std::vector<Command>& commands() {
  static const std::vector<Command> c = {
      {"convert", {"--from", "--to", "--round", "--sat", "--dialect", "--rbits", "--tininess", "--random", "--quiet-spec"}},
      {"explain", {"--from", "--to", "--round", "--sat", "--dialect", "--rbits", "--tininess", "--quiet-spec"}},
      {"quantize", {"--to", "--from", "--block", "--scale", "--round", "--sat", "--dialect", "--rbits", "--tininess",
                    "--global-amax", "--nvfp4-multiplier", "--scale-format", "--quiet-spec"}},
      {"dequantize", {"--from", "--to", "--block", "--round", "--sat", "--dialect", "--tininess", "--encode-scale",
                      "--scale-format", "--quiet-spec"}},
      {"dot", {"--a", "--b", "--block", "--blocks", "--acc", "--round", "--sat", "--tininess", "--scale-format", "--to", "--addend", "--quiet-spec"}},
      {"gemm-golden", {"--out", "--m", "--n", "--k", "--a", "--b", "--block", "--seed", "--scale", "--dialect", "--acc",
                       "--round", "--sat", "--scale-format", "--quiet-spec"}},
      {"gen", {"--from", "--to", "--a", "--b", "--block", "--blocks", "--acc", "--scale", "--round", "--sat", "--tininess",
               "--dialect", "--rbits", "--level", "--seed", "--count", "--export", "--out", "-o", "--accumulator",
               "--addend", "--model", "--scale-format", "--scale-block", "--inputs-only", "--quiet-spec"}},
      {"sweep", {"--from", "--to", "--round", "--sat", "--tininess", "--dialect", "--threads", "--shard", "--out", "-o", "--quiet-spec"}},
      {"merge", {"--out", "-o"}},
      {"diff", {"--max-ranges"}},
      {"verify", {"--max-errors", "--threads", "--json", "--accept-unproven", "--expect-cases", "--model", "--acc", "--dialect",
                  "--round", "--sat", "--tininess", "--scale"}},
      {"identify", {"--top", "--exact", "--max-errors", "--threads", "--accept-unproven"}},
      {"recipe", {"--shape", "--from", "--role", "--impl", "--outputs", "--fp8-format", "--power-2-scale", "--amax-epsilon",
                  "--amax", "--rht-amax", "--tiles-2d", "--dialect", "--random-hadamard", "--rht-signs",
                  "--stochastic-rounding", "--stochastic-form", "--rbits", "--rbits-rowwise", "--rbits-columnwise",
                  "--list", "--binary", "--layouts", "--dequantize", "--seed", "--out", "-o"}},
      {"recipes", {}},
      {"layout", {"--layout", "--shape", "--operand", "--transposed", "--pad", "--multiple", "--scale-format", "--binary",
                  "--binary-out", "--out", "-o"}},
      {"torchmx", {"--elem", "--elem-b", "--shape", "--shape-b", "--block", "--path", "--to-dtype", "--target",
                   "--block-dim", "--data-shape", "--scale-shape", "--scales", "--acc", "--bias", "--binary", "--out", "-o"}},
      {"pychop", {"--shape", "--from", "--format", "--spec", "--block", "--scale-exp-bits", "--scale-sig-bits", "--backend",
                  "--numpy", "--binary", "--out", "-o"}},
      {"formats", {}},
      {"dialects", {}},
      {"help", {}},
  };
  return c;
}

TEST(CliHelp, EveryCommandAnswersHelpAndH) {
  for (const Command& c : commands()) {
    const CliRun h = run(c.name + " --help");
    EXPECT_EQ(h.status, 0) << c.name << ": " << h.err;
    EXPECT_EQ(h.err, "") << c.name;
    EXPECT_EQ(h.out.rfind("usage: softmx " + c.name, 0), 0u) << c.name << ": " << h.out;
    for (const std::string& o : c.options)
      EXPECT_NE(h.out.find(o), std::string::npos) << c.name << " --help does not name " << o << ":\n" << h.out;
    EXPECT_NE(h.out.find("-h, --help"), std::string::npos) << c.name;
    EXPECT_NE(h.out.find("exit status"), std::string::npos) << c.name;
    // -h, and help CMD, print the very same text.
    const CliRun short_h = run(c.name + " -h");
    EXPECT_EQ(short_h.status, 0) << c.name << " -h: " << short_h.err;
    EXPECT_EQ(short_h.out, h.out) << c.name;
    const CliRun help_cmd = run("help " + c.name);
    EXPECT_EQ(help_cmd.status, 0) << "help " << c.name << ": " << help_cmd.err;
    EXPECT_EQ(help_cmd.out, h.out) << c.name;
  }
}

TEST(CliHelp, HelpWinsOverOtherArguments) {
  // Wherever it stands, and whatever else is wrong on the line, --help answers.
  const std::string convert = run("convert --help").out;
  EXPECT_EQ(run("convert --to nosuchformat --help").out, convert);
  EXPECT_EQ(run("convert --from f32 -h --to e4m3").out, convert);
  EXPECT_EQ(run("gen convert --help").out, run("gen --help").out);
  EXPECT_EQ(run("verify -h missing-file").status, 0);
  // After "--" it is an operand: a file named -h.
  const CliRun r = run("verify -- -h");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-h"), std::string::npos) << r.err;
  // Each command's help is its own.
  std::vector<std::string> texts;
  for (const Command& c : commands()) texts.push_back(run(c.name + " -h").out);
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(std::unique(texts.begin(), texts.end()), texts.end());
}

TEST(CliHelp, HelpCmd) {
  const CliRun overview = run("help");
  EXPECT_EQ(overview.status, 0);
  EXPECT_EQ(overview.out, run("--help").out);
  EXPECT_EQ(overview.out, run("-h").out);
  EXPECT_NE(overview.out.find("softmx help CMD"), std::string::npos);
  const CliRun unknown = run("help frobnicate");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate' (expected convert, explain"), std::string::npos) << unknown.err;
  const CliRun two = run("help convert gen");
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("unexpected argument 'gen'"), std::string::npos) << two.err;
}

TEST(CliHelp, Version) {
  const CliRun v = run("--version");
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_EQ(v.err, "");
  // The first line is CMake's project version, as every generated vector file records it.
  EXPECT_EQ(v.out.substr(0, v.out.find('\n') + 1), std::string("softmx ") + SOFTMX_PROJECT_VERSION + "\n") << v.out;
  EXPECT_NE(v.out.find(std::string("\nC ABI ") + SOFTMX_CLI_ABI_VERSION + "\n"), std::string::npos) << v.out;
  EXPECT_EQ(run("version").out, v.out);
  const CliRun gen = run("gen convert --from e2m1 --to f32");
  EXPECT_NE(gen.out.find(std::string("generator = softmx ") + SOFTMX_PROJECT_VERSION + "\n"), std::string::npos) << gen.out;
}

// IEEE P3109 (issue 28): `help formats` gives the name grammar and what is refused; the
// conversion options name propagate and the draft's names; explain shows propagate's rows into a
// P3109 format (p3109's cells filled, the dialects that do not list it n/a with a note) and no
// such rows into a named format.
TEST(CliHelp, P3109GrammarAndPropagate) {
  const CliRun f = run("help formats");
  ASSERT_EQ(f.status, 0) << f.err;
  for (const char* part : {"binary{K}p{P}{s|u}{e|f}", "binary8p3se", "binary2p1se", "more than 8 exponent bits",
                           "--dialect p3109", "SatPropagate"})
    EXPECT_NE(f.out.find(part), std::string::npos) << "help formats does not say " << part << ":\n" << f.out;
  const CliRun c = run("convert --help");
  for (const char* part : {"--sat finite|none|propagate", "SatPropagate", "NearestTiesToEven", "StochasticA|B|C"})
    EXPECT_NE(c.out.find(part), std::string::npos) << "convert --help does not say " << part;
  const CliRun e = run("explain --wide --from f32 --to binary8p3se --dialect p3109 --sat propagate 7F800000");
  ASSERT_EQ(e.status, 0) << e.err;
  std::size_t rows = 0;
  std::istringstream lines(e.out);
  for (std::string line; std::getline(lines, line);)
    if (line.find(" propagate ") != std::string::npos && line.rfind("  n/a", 0) != 0) ++rows;
  EXPECT_EQ(rows, 6u) << e.out;  // rne rna rz ru rd ro
  EXPECT_NE(e.out.find("* rne  propagate "), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("dialect ocp to binary8p3se: saturation finite none only"), std::string::npos) << e.out;
  const CliRun named = run("explain --to e4m3 464");
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(named.out.find("propagate"), std::string::npos) << named.out;
}

}  // namespace
