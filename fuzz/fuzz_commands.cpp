// fuzz/fuzz_commands.cpp: fuzzes the stdin line formats (and arguments) of `softmx convert`,
// `quantize`, `dequantize`, `dot` and `explain` by running the command functions themselves
// (tools/softmx/commands.hpp) the way main() does. The input is
//
//     ARGS NUL STDIN
//
// ARGS split on newlines is argv from the command name on ("convert\n--from\nf32\n--to\ne4m3");
// STDIN (everything after the first NUL byte) is what the command reads from std::cin, which is
// pointed at an std::istringstream for the call (std::cin.rdbuf). The commands' standard output
// goes to /dev/null. Skipped, to bound the work per input: inputs naming another command,
// --block / --blocks above 4096 (the parsing of larger counts is fuzz_cli_args' business), and
// arguments with a written exponent from 1000 to 100000 (fuzz::slow_exponent in common.hpp:
// correct, but up to 0.3 s each in a Release build and over 10 s under the sanitizers).
//
// Expected failures: softmx::cli::UsageError, softmx::InputError (bad input the library found)
// and softmx::vec::OutputError (what main() reports as a usage error or a failed write, exit
// status 2). Finding: a crash, a sanitizer report, or any other exception, std::invalid_argument
// from the library included: main() reports those as an internal error (exit status 70), so bad
// input must never reach the library unchecked.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "softmx/error.hpp"

namespace {

using Command = int (*)(int, char**);

struct Entry {
  std::string_view name;
  Command run;
};
const Entry kCommands[] = {
    {"convert", softmx::cli::cmd_convert},       {"quantize", softmx::cli::cmd_quantize},
    {"dequantize", softmx::cli::cmd_dequantize}, {"dot", softmx::cli::cmd_dot},
    {"explain", softmx::cli::cmd_explain},
};

// True when a --block or --blocks value is a number above 4096, or an argument has a slow
// exponent.
bool too_big(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view a = args[i], v;
    if (a == "--block" || a == "--blocks") {
      if (i + 1 < args.size()) v = args[i + 1];
    } else if (a.starts_with("--block=")) {
      v = a.substr(8);
    } else if (a.starts_with("--blocks=")) {
      v = a.substr(9);
    }
    const auto nz = v.find_first_not_of('0');
    if (nz == std::string_view::npos) continue;
    v.remove_prefix(nz);
    if (v.size() > 4 || (v.size() == 4 && v > "4096")) return true;
  }
  for (const std::string& a : args)
    if (softmx::fuzz::slow_exponent(a)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The commands write their results to stdout; libFuzzer reports on stderr.
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    std::fflush(stdout);
    dup2(devnull, STDOUT_FILENO);
    close(devnull);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos) return 0;
  // argv as main() sees it: "softmx", the command, its arguments.
  std::vector<std::string> args{"softmx", ""};
  for (char c : input.substr(0, nul)) {
    if (c == '\n') args.emplace_back();
    else args.back() += c;
  }
  if (args.size() > 64 || too_big(args)) return 0;
  Command run = nullptr;
  for (const Entry& e : kCommands)
    if (args[1] == e.name) run = e.run;
  if (!run) return 0;
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::istringstream in{std::string(input.substr(nul + 1))};
  std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
  try {
    run(static_cast<int>(args.size()), argv.data());
  } catch (const softmx::cli::UsageError&) {
  } catch (const softmx::InputError&) {
  } catch (const softmx::vec::OutputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_commands: softmx %s threw an unexpected exception (an internal error): %s\n",
                 args[1].c_str(), e.what());
    std::abort();
  }
  std::cin.rdbuf(saved);
  std::fflush(stdout);
  return 0;
}
