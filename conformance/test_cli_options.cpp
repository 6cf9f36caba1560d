// conformance/test_cli_options.cpp: every option a subcommand accepts is in its help, and every
// option its help lists is accepted (issue 32). Each command's options are one table
// (tools/softmx/options.cpp) that its parser and its help both read; this test checks the binary
// from outside, so an option accepted any other way (a parse_args list beside the table) fails
// here too:
// - accepted: the parser's own list, from the error for an unknown option ("this command
//   accepts --a, --b, ...");
// - listed: the "--name" words of the help's options block (`softmx CMD --help`, which
//   `softmx help CMD` and -h print the same; test_cli_help checks that);
// - each accepted option must be listed, each listed one accepted (run with it, it must not be
//   "unknown"), and the options every command takes (--quiet-spec, -h/--help) must be listed.
// The commands are those `softmx help --help` names, so a new command is walked without an edit.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace {

using softmx::testing::CliRun;

CliRun run(const std::string& args) { return softmx::testing::run_cli(args, ""); }

const char* const kUnknown = "--softmx-no-such-option";

/// The commands `softmx help` knows ("commands: convert, explain, ..., or help").
std::vector<std::string> commands() {
  const std::string h = run("help --help").out;
  const auto at = h.find("commands: ");
  std::vector<std::string> r;
  if (at == std::string::npos) return r;
  std::string line = h.substr(at + 10, h.find('\n', at) - at - 10);
  for (auto& c : line)
    if (c == ',') c = ' ';
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (w != "or") r.push_back(w);
  return r;
}

/// Each mode a command parses its own way: gemm-golden --layout lut-argmin takes other options.
std::vector<std::pair<std::string, std::string>> invocations() {
  std::vector<std::pair<std::string, std::string>> r;
  for (const std::string& c : commands()) r.emplace_back(c, c);
  r.emplace_back("gemm-golden", "gemm-golden --layout lut-argmin");
  return r;
}

/// The options the parser accepts, from its error for an unknown one.
std::set<std::string> accepted(const std::string& invocation) {
  const CliRun r = run(invocation + " " + kUnknown);
  std::set<std::string> s;
  EXPECT_EQ(r.status, 2) << invocation;
  const auto at = r.err.find("(this command accepts ");
  EXPECT_NE(at, std::string::npos) << invocation << ": " << r.err;
  if (at == std::string::npos) return s;
  const std::string list = r.err.substr(at, r.err.find(')', at) - at);
  static const std::regex option("--([a-z0-9][a-z0-9-]*)");
  for (std::sregex_iterator i(list.begin(), list.end(), option), e; i != e; ++i) s.insert((*i)[1]);
  return s;
}

/// The options the help's options block names (from "options:" to the first empty line).
std::set<std::string> listed(const std::string& help) {
  std::set<std::string> s;
  const auto at = help.find("\noptions:\n");
  EXPECT_NE(at, std::string::npos) << help;
  if (at == std::string::npos) return s;
  const std::string block = help.substr(at, help.find("\n\n", at + 1) - at);
  static const std::regex option("(^|[^a-z0-9-])--([a-z0-9][a-z0-9-]*)");
  for (std::sregex_iterator i(block.begin(), block.end(), option), e; i != e; ++i) s.insert((*i)[2]);
  return s;
}

bool names(const std::string& help, const std::string& name) {
  return std::regex_search(help, std::regex("(^|[^a-z0-9-])--" + name + "([^a-z0-9-]|$)"));
}

TEST(CliOptions, EveryAcceptedOptionIsInItsHelpAndTheReverse) {
  const auto inv = invocations();
  ASSERT_GE(inv.size(), 22u);
  std::size_t accepted_total = 0, listed_total = 0, commands_walked = 0;
  for (const std::string& command : commands()) {
    ++commands_walked;
    const std::string help = run(command + " --help").out;
    ASSERT_EQ(run("help " + command).out, help) << command;
    // Each mode of the command (gemm-golden: MX data, --layout lut-argmin) with what it accepts.
    std::vector<std::pair<std::string, std::set<std::string>>> modes;
    for (const auto& [c, invocation] : inv)
      if (c == command) modes.emplace_back(invocation, accepted(invocation));
    for (const auto& [invocation, acc] : modes)
      for (const std::string& o : acc) {
        ++accepted_total;
        EXPECT_TRUE(names(help, o)) << invocation << " accepts --" << o << " but its --help does not list it:\n" << help;
      }
    for (const char* global : {"quiet-spec", "help"})
      EXPECT_TRUE(names(help, global)) << command << " --help does not list --" << global;
    for (const std::string& o : listed(help)) {
      ++listed_total;
      if (o == "help") continue;  // answered before any parsing (test_cli_help)
      std::string invocation = modes.front().first;
      bool known = o == "quiet-spec";  // main() takes it out for every command
      for (const auto& [i, acc] : modes)
        if (acc.count(o)) {
          invocation = i;
          known = true;
          break;
        }
      if (!known) ADD_FAILURE() << command << " --help lists --" << o << ", the parser's list does not have it";
      // --o=x (a global flag: --o) then an unknown option: the parser stops at the first one it
      // does not know, so the error must name the second (or say --o takes no value: a flag);
      // nothing runs.
      const CliRun r = run(invocation + " --" + o + (o == "quiet-spec" ? " " : "=x ") + kUnknown);
      EXPECT_EQ(r.status, 2) << command << " --" << o;
      EXPECT_EQ(r.err.find("unknown option --" + o + " "), std::string::npos)
          << command << " --help lists --" << o << " but the command does not accept it: " << r.err;
    }
  }
  std::printf("[ options  ] %zu commands (%zu parsers), %zu accepted options found in their help, %zu listed options accepted\n",
              commands_walked, inv.size(), accepted_total, listed_total);
  EXPECT_GE(accepted_total, 150u);
}

// The table's per-mode options: gemm-golden's MX options are refused under --layout lut-argmin
// and the other way round, each with the parser's error.
TEST(CliOptions, GemmGoldenModes) {
  const CliRun lut = run("gemm-golden --layout lut-argmin --threads 2 -o x");
  EXPECT_EQ(lut.status, 2);
  EXPECT_NE(lut.err.find("unknown option --threads"), std::string::npos) << lut.err;
  const CliRun mx = run("gemm-golden --out x --trans-a 1");
  EXPECT_EQ(mx.status, 2);
  EXPECT_NE(mx.err.find("unknown option --trans-a"), std::string::npos) << mx.err;
}

}  // namespace
