// tools/softmx/main.cpp: the `softmx` command line.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "cli.hpp"
#include "commands.hpp"
#include "help.hpp"
#include "options.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"

namespace {

constexpr const char* kUsage =
    "softmx: a bit-exact model of the OCP Microscaling (MX) formats\n"
    "\n"
    "usage:\n"
    "  softmx convert --from SRC --to DST [options] < codes   raw hex in, \"INPUT RESULT FLAGS\" out\n"
    "  softmx convert --to DST [options] VALUE...             decimal values (inf, nan, -0 too)\n"
    "  softmx explain --to DST [options] VALUE                the anatomy of one conversion\n"
    "  softmx explain --from SRC --to DST [options] HEX\n"
    "  softmx quantize --to FMT [--from f32] [--block K] [--scale RULE] [options] < codes\n"
    "                                                         MX blocks: one \"SCALE CODE...\" line per block\n"
    "  softmx dequantize --from FMT [--to f32] [--block K]   the inverse, one code per line\n"
    "  softmx dot --a FMT --b FMT [--block K] [--blocks N] [--acc exact|fp32-sequential]\n"
    "                                                         per line, pair by pair: \"SA_1 A_1... SB_1 B_1... SA_2 ...\"\n"
    "                                                         (as in a dot vector file) -> \"RESULT FLAGS\"\n"
    "  softmx gemm-golden --out DIR [--m M --n N --k K --a FMT --b FMT --seed S]  golden GEMM data\n"
    "  softmx gemm-golden --layout lut-argmin --m M --n N --k K --trans-a 0|1 --trans-b 0|1\n"
    "             [--a e2m1|e1m2] [--b e2m1|e1m2] [--seed S] [--log2 rounded|exact] -o DIR\n"
    "                                                         the seed-003 MX-FP4 generator's data/input and data/golden\n"
    "  softmx gen OPERATION [options] [--level 1|2] [--seed S] [--count N] [--inputs-only]\n"
    "             [--export readmemh] [-o FILE]               test vectors with softmx's results (vectors/README.md):\n"
    "                                                         convert, quantize, dequantize or dot, options as above\n"
    "  softmx sweep --from SRC --to DST [options] [--threads N] [--shard I/N] [-o FILE]\n"
    "                                                         every input of SRC (up to 32 bits) as a run table\n"
    "  softmx merge [-o FILE] TABLE...                        run tables of shards joined into one\n"
    "  softmx diff [--max-ranges N] TABLE-A TABLE-B           where two run tables disagree, and why\n"
    "  softmx verify [--max-errors N] [--json] [--threads N] RESULTS\n"
    "                                                         check a device's results (or run table) line by line\n"
    "  softmx identify [--top N] [--exact N] [--max-errors N] RESULTS\n"
    "                                                         which dialect, rounding and saturation a device implements\n"
    "  softmx report [-o REPORT.html] [--identify FILE]... [--diff A B]... FILE...\n"
    "                                                         the certificate: one self-contained HTML page with plots\n"
    "  softmx recipe NAME --shape MxK [--from f32|bf16|f16] [--role R] [options] [FILE]\n"
    "                                                         a TransformerEngine recipe: rowwise and columnwise\n"
    "                                                         codes, scales, amax (docs/RECIPES.md)\n"
    "  softmx recipes                                         the recipes: te-fp8-current, te-fp8-block, te-mxfp8, te-nvfp4\n"
    "  softmx layout encode|decode --layout L --shape RxC [--operand a|b] [--transposed 0|1] [--pad HEX]\n"
    "             [--binary] [--binary-out] [-o OUT] [FILE|-]   scales in a GEMM's layout: cublas-128x4, torchao,\n"
    "                                                         paired (seed 003), te-padded; and back\n"
    "  softmx layout size|index --layout L --shape RxC [R C]  a layout's bytes, the offset of S[R][C]\n"
    "  softmx torchmx quantize-mx|to-mx|dequantize-mx|matmul|linear [options] [FILE...]\n"
    "                                                         torchmx's own entry points, bit for bit\n"
    "  softmx pychop quantize|specs [--format KEY|E,S] [options] [FILE]\n"
    "                                                         pychop's mx_quantize and statistics()\n"
    "  softmx formats [SPEC]                                  the formats, aliases and spec grammar; or one format\n"
    "  softmx dialects                                        the dialects and their policies\n"
    "  softmx models [QUERY]                                  which tensor-core model computes an instruction\n"
    "                                                         (softmx models B200 mma.sync f32)\n"
    "  softmx help CMD                                        CMD's usage and options (also softmx CMD --help, -h)\n"
    "  softmx --version                                       the version\n"
    "\n"
    "options:\n"
    "  --round rne|rna|rz|ru|rd|ro|rs   rounding (default rne)\n"
    "  --sat finite|none                saturation (default: the destination's: none, overflow to Inf,\n"
    "                                   into f64 f32 f16 bf16 and runtime formats with Inf (e3m4); the\n"
    "                                   dialect's into the MX formats, e8m0 and other runtime formats\n"
    "                                   (ocp: finite))\n"
    "  --dialect NAME                   ocp (default), cuda, cuda-sm90, cuda-sm100, torchao,\n"
    "                                   torchao-pre-178817, ml_dtypes, ml_dtypes-cpp, microxcaling,\n"
    "                                   transformer-engine, transformer-engine-2025, gfloat,\n"
    "                                   amd-gfx942, torchmx, torchmx-hw-exact, pychop, lut-argmin\n"
    "  --scale floor|ceil|even|rceil|floor-log2-rn\n"
    "                                   block scale rule (default: the dialect's)\n"
    "  --rbits R                        random bits for rs, 1..64 (default 32); stdin lines carry\n"
    "                                   them as a second hex field, VALUE arguments take --random HEX\n"
    "  --tininess after|before|after-bounded  underflow detection (default after)\n"
    "  --quiet-spec                     no note on stderr for a format spec that is not a named format\n"
    "                                   or alias (softmx: note: 'e4m4' is not a named format; ...)\n"
    "\n"
    "formats: f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0, or any spec (convert, explain, sweep,\n"
    "         gen convert): e4m3fnuz e5m2fnuz e1m2 e3m4 ue4m3 int4 e4m3:bias=11:specials=fnuz (docs/SEMANTICS.md 1.2);\n"
    "         softmx formats lists every name, alias and form, softmx formats SPEC shows one\n"
    "flags (two hex digits, TestFloat's bits): 01 inexact, 02 underflow, 04 overflow, 08 infinite, 10 invalid\n"
    "exit status: 0 success; 2 bad usage or input, or an output that cannot be written (the errno text\n"
    "  on stderr) or not enough memory; verify, identify and diff: 1 when results disagree; verify and identify:\n"
    "  3 when no result disagrees but the file's completeness is not proven (docs/VECTORS.md); 70 internal error\n";

/// Keeps descriptors 0, 1 and 2 taken: one that was closed (">&-") gets /dev/null opened the
/// wrong way round (stdin write-only, stdout and stderr read-only), so a read or write on it fails
/// with EBADF as on the closed descriptor, and no file the command opens can land on it (a
/// results file opened as descriptor 1 would otherwise receive the standard output).
void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int n = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (n >= 0 && n != fd) {
      ::dup2(n, fd);
      ::close(n);
    }
  }
}

/// The error line for a failed output, the path escaped.
std::string output_error_text(const softmx::vec::OutputError& e) {
  std::string s = e.action();
  if (!e.path().empty()) s += " " + softmx::cli::quote(e.path(), 0, 240);
  return s + ": " + e.reason();
}

/// "softmx CMD: KIND: MESSAGE" on stderr. Every message passes through safe_message(): an
/// escape sequence or invalid UTF-8 that a file put into it reaches the terminal escaped, and a
/// message cannot run to megabytes (softmx/text.hpp).
void print_error(const std::string& cmd, const char* kind, const std::string& message) {
  std::fprintf(stderr, "softmx %s: %s: %s\n", softmx::safe_message(cmd, 80).c_str(), kind, softmx::safe_message(message).c_str());
}

int run(const std::string& cmd, int argc, char** argv) {
  using namespace softmx::cli;
  // `softmx CMD --help` (or -h, anywhere before "--"): the command's own help, whatever else
  // is on the line.
  if (const auto help = command_help(cmd); help && asks_for_help(argc, argv, 2)) {
    Output out;
    out.text() = *help;
    out.commit();
    return 0;
  }
  if (CommandFn* f = command_function(cmd)) return f(argc, argv);  // the table in help.cpp
  if (cmd == "help") {
    // softmx help [CMD]: CMD's help, or the overview (help --help and -h were answered above).
    const Args a = parse_command(cmd, argc, argv, 2);
    if (a.positionals.size() > 1)
      throw UsageError("unexpected argument " + quote(a.positionals[1], '\'') + " (help takes one CMD)");
    std::string text = kUsage;
    if (!a.positionals.empty()) {
      const auto h = command_help(a.positionals[0]);
      if (!h) throw UsageError("unknown command " + quote(a.positionals[0], '\'') + " (expected " + command_list() + ")");
      text = *h;
    }
    Output out;
    out.text() = text;
    out.commit();
    return 0;
  }
  if (cmd == "--version" || cmd == "version" || cmd == "--help" || cmd == "-h") {
    const bool help = cmd == "--help" || cmd == "-h";
    if (!help) {
      const Args a = parse_args(cmd, argc, argv, 2, {});
      if (!a.positionals.empty()) throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (" + cmd + " takes none)");
    }
    Output out;
    out.text() = help ? std::string(kUsage) : version_text();
    out.commit();
    return 0;
  }
  std::fprintf(stderr, "softmx: error: unknown command %s (expected %s; see softmx --help)\n", quote(cmd, '\'').c_str(),
               command_list().c_str());
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  reserve_standard_descriptors();
  std::ios::sync_with_stdio(false);
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return softmx::cli::kExitUsage;
  }
  const std::string cmd = argv[1];
  // --quiet-spec (before a "--"), for every command: no note for a spec that names no listed
  // format (cli::parse_format_arg). Taken out here so that each command's parser never sees it.
  int kept = 2;
  for (int i = 2, done = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") done = 1;
    if (!done && arg == "--quiet-spec") {
      softmx::cli::spec_notes = false;
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  int status;
  try {
    status = run(cmd, argc, argv);
    for (const std::string& note : softmx::cli::spec_notes_pending())
      std::fprintf(stderr, "softmx: note: %s (--quiet-spec hides this line)\n", softmx::safe_message(note).c_str());
  } catch (const softmx::cli::UsageError& e) {
    print_error(cmd, "error", e.what());
    status = softmx::cli::kExitUsage;
  } catch (const softmx::InputError& e) {  // bad input the library found (a file, a value)
    print_error(cmd, "error", e.what());
    status = softmx::cli::kExitUsage;
  } catch (const softmx::vec::OutputError& e) {
    print_error(cmd, "error", output_error_text(e));
    status = softmx::cli::kExitUsage;
  } catch (const std::bad_alloc&) {
    // The input asked for more memory than this machine (or its ulimit) grants: a limit of the
    // run, not a fault of softmx, so it is reported as the input errors are (exit status 2).
    print_error(cmd, "error",
                "out of memory: the input or the options need more memory than the process may use (ulimit -v, the "
                "machine's memory); smaller inputs, fewer threads or a shard of the work need less");
    status = softmx::cli::kExitUsage;
  } catch (const std::exception& e) {
    print_error(cmd, "internal error", e.what());
    status = 70;
  }
  // Standard output is written with write(2) (cli::Output) and checked there; closing it is the
  // last check (a file system may report a failed write only now). stdio's stdout is unused.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || (::close(STDOUT_FILENO) != 0 && errno != EBADF && errno != EINTR)) {
    print_error(cmd, "error", std::string("cannot write standard output: ") + std::strerror(errno));
    if (status == 0 || status == 1) status = softmx::cli::kExitUsage;
  }
  return status;
}
