// conformance/support/cli_run.hpp: runs the real `softmx` binary (SOFTMX_CLI) for end-to-end
// tests, with a given stdin, capturing stdout, stderr and the exit status (a test that includes
// it defines SOFTMX_CLI: softmx_cli_test in CMakeLists.txt; files alone: support/files.hpp).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "support/files.hpp"
#include "support/sanitized.hpp"  // kAddressSanitizer, for the tests that run under a ulimit

namespace softmx::testing {

struct CliRun {
  int status = 0;  ///< exit status, or 128 + signal
  std::string out, err;
};

/// Runs `command` (a shell command line) with `input` on stdin.
inline CliRun run_shell(const std::string& command, const std::string& input = "") {
  static int counter = 0;
  const std::string base = scratch_dir("run") + "/" + std::to_string(counter++);
  write_file(base + ".in", input);
  const std::string cmd = command + " < '" + base + ".in' > '" + base + ".out' 2> '" + base + ".err'";
  const int rc = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

/// Runs `softmx ARGS` with `input` on stdin.
inline CliRun run_cli(const std::string& args, const std::string& input = "") {
  return run_shell(std::string("'") + SOFTMX_CLI + "' " + args, input);
}

/// Checks that "-o PATH" writes what standard output gets: runs `softmx ARGS` on `input` (it
/// must exit 0), then `softmx ARGS -o PATH` (it must exit 0 and print nothing), and compares
/// PATH with the first run's output. `plain` receives the first run. A first run that fails is
/// a fatal failure: call it under ASSERT_NO_FATAL_FAILURE.
inline void expect_out_file_matches_stdout(const std::string& args, const std::string& input, const std::string& path,
                                           CliRun& plain) {
  plain = run_cli(args, input);
  ASSERT_EQ(plain.status, 0) << plain.err;
  const CliRun o = run_cli(args + " -o " + path, input);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(slurp(path), plain.out);
}

}  // namespace softmx::testing
