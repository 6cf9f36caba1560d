// fuzz/fuzz_commands.cpp: fuzzes the stdin formats and arguments of `softmx convert`,
// `quantize`, `dequantize`, `dot`, `explain`, `recipe`, `recipes`, `layout`, `torchmx` and
// `pychop` by running the command functions themselves (tools/softmx/commands.hpp) the way
// main() does. The input is
//
//     ARGS NUL STDIN
//
// ARGS split on newlines is argv from the command name on ("convert\n--from\nf32\n--to\ne4m3");
// STDIN (everything after the first NUL byte) is what the command reads from std::cin, which is
// pointed at an std::istringstream for the call (std::cin.rdbuf). The commands' standard output
// goes to /dev/null. Skipped, to bound the work per input: inputs naming another command,
// --block / --blocks above 4096 (the parsing of larger counts is fuzz_cli_args' business),
// arguments with a written exponent from 1000 to 100000 (fuzz::slow_exponent in common.hpp:
// correct, but up to 0.3 s each in a Release build and over 10 s under the sanitizers), and for
// the tensor commands (recipe, layout, torchmx, pychop):
//   - a shape option (--shape, --shape-b, --data-shape, --scale-shape, --multiple) whose
//     product is above 4096, or all of them together above 65536: the commands accept up to
//     2^28 elements and reserve room for them before reading (a matmul's C is M x N);
//   - writing files (-o, --out) and reading any file but the harness's own: an argument (or an
//     --option=VALUE's value) with a '/' or naming anything that exists in the working
//     directory (libFuzzer's log, the corpus) is skipped. "@a", "@b", "@s" and "@z" stand for
//     files the harness writes at start-up (a temporary folder): 32 and 64 bf16 codes, two
//     E8M0 bytes, and an empty file, so matmul A B and --scales FILE can be fuzzed.
//
// Expected failures: softmx::cli::UsageError, softmx::InputError (bad input the library found)
// and softmx::vec::OutputError (what main() reports as a usage error or a failed write, exit
// status 2). Finding: a crash, a sanitizer report, or any other exception, std::invalid_argument
// from the library included: main() reports those as an internal error (exit status 70), so bad
// input must never reach the library unchecked.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
    {"explain", softmx::cli::cmd_explain},       {"recipe", softmx::cli::cmd_recipe},
    {"recipes", softmx::cli::cmd_recipes},       {"layout", softmx::cli::cmd_layout},
    {"torchmx", softmx::cli::cmd_torchmx},       {"pychop", softmx::cli::cmd_pychop},
};

/// The commands that read tensors and files (the bounds and file rules below apply to them).
bool tensor_command(std::string_view c) {
  return c == "recipe" || c == "layout" || c == "torchmx" || c == "pychop";
}

/// The folder of the harness's input files ("@a" ... stand for them).
std::string g_files;

/// The product of a shape value ("4x8x2"); anything that is not digits and x counts as 1 (the
/// command refuses it). Saturates above 2^40.
std::uint64_t shape_product(std::string_view v) {
  std::uint64_t p = 1, d = 0;
  bool any = false;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      d = std::min<std::uint64_t>(d * 10 + static_cast<std::uint64_t>(c - '0'), std::uint64_t{1} << 40);
      any = true;
    } else if (c == 'x') {
      p = std::min<std::uint64_t>(p * (any ? d : 1), std::uint64_t{1} << 40);
      d = 0;
      any = false;
    } else {
      return 1;
    }
  }
  return std::min<std::uint64_t>(p * (any ? d : 1), std::uint64_t{1} << 40);
}

/// For the tensor commands: false when the input must be skipped (too large a shape, a file
/// read or written); replaces "@a" ... by the harness's files.
bool bounded_tensor_args(std::vector<std::string>& args) {
  static const char* kShapes[] = {"shape", "shape-b", "data-shape", "scale-shape", "multiple"};
  std::uint64_t total = 1;
  for (std::size_t i = 2; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a == "-o" || a == "--out" || a.starts_with("--out=")) return false;
    std::string name, value;
    bool has_value = false;
    if (a.starts_with("--")) {
      const std::size_t eq = a.find('=');
      name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        has_value = true;
      } else if (i + 1 < args.size()) {
        value = args[i + 1];
        has_value = true;
      }
      for (const char* s : kShapes)
        if (name == s && has_value) {
          const std::uint64_t p = shape_product(value);
          if (p > 4096) return false;
          total *= p;
          if (total > 65536) return false;
        }
    }
    // The file rule, on the argument and on an --option=VALUE's value.
    for (std::string* t : {&a, static_cast<std::string*>(nullptr)}) {
      std::string tmp;
      if (!t) {
        const std::size_t eq = a.find('=');
        if (!a.starts_with("--") || eq == std::string::npos) continue;
        tmp = a.substr(eq + 1);
        t = &tmp;
      }
      if (*t == "@a" || *t == "@b" || *t == "@s" || *t == "@z") {
        const std::string path = g_files + "/" + t->substr(1);
        if (t == &tmp) a = a.substr(0, a.find('=') + 1) + path;
        else a = path;
        break;
      }
      if (t->find('/') != std::string::npos) return false;
      struct stat st;
      if (!t->empty() && *t != "-" && ::stat(t->c_str(), &st) == 0) return false;
    }
  }
  return true;
}

void write_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  const ssize_t n = ::write(fd, text.data(), text.size());
  (void)n;
  ::close(fd);
}

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
  // The input files "@a", "@b", "@s", "@z" stand for (bf16 codes, E8M0 bytes, nothing).
  char dir[] = "/tmp/softmx-fuzz-commands-XXXXXX";
  if (::mkdtemp(dir)) {
    g_files = dir;
    std::string a, b;
    for (int i = 0; i < 64; ++i) {
      static const char* kCodes[] = {"3F80", "BF00", "4040", "0000", "7F80", "7FC0", "3C00", "C2F0"};
      if (i < 32) a += std::string(kCodes[i % 8]) + " ";
      b += std::string(kCodes[(i * 3) % 8]) + (i % 8 == 7 ? "\n" : " ");
    }
    write_file(g_files + "/a", a);
    write_file(g_files + "/b", b);
    write_file(g_files + "/s", "7F 80\n");
    write_file(g_files + "/z", "");
    std::atexit([] {
      for (const char* f : {"/a", "/b", "/s", "/z"}) ::unlink((g_files + f).c_str());
      ::rmdir(g_files.c_str());
    });
  }
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
  if (tensor_command(args[1]) && (g_files.empty() || !bounded_tensor_args(args))) return 0;
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
