// conformance/support/cli_run.hpp: runs the real `softmx` binary (SOFTMX_CLI) for end-to-end
// tests, with a given stdin, capturing stdout, stderr and the exit status.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace softmx::testing {

struct CliRun {
  int status = 0;  ///< exit status, or 128 + signal
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A fresh directory for one test binary's files (removed by the OS's temp cleaning, kept
/// after a failure for inspection).
inline std::string scratch_dir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("softmx_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

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

}  // namespace softmx::testing
