// tools/softmx/main.cpp: the `softmx` command line.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "cli.hpp"
#include "commands.hpp"
#include "vectors/generate.hpp"

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
    "                                                         \"SCALE_A CODE_A... SCALE_B CODE_B...\" -> \"RESULT FLAGS\"\n"
    "  softmx gemm-golden --out DIR [--m M --n N --k K --a FMT --b FMT --seed S]  golden GEMM data\n"
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
    "  softmx formats                                         the format table\n"
    "  softmx dialects                                        the dialects and their policies\n"
    "\n"
    "options:\n"
    "  --round rne|rna|rz|ru|rd|ro|rs   rounding (default rne)\n"
    "  --sat finite|none                saturation (default: the destination's; none, IEEE overflow,\n"
    "                                   into f64 f32 f16 bf16; the dialect's into MX formats, ocp: finite)\n"
    "  --dialect NAME                   ocp (default), cuda, torchao, ml_dtypes, microxcaling,\n"
    "                                   transformer-engine, gfloat\n"
    "  --scale floor|ceil|even|rceil    block scale rule (default: the dialect's)\n"
    "  --rbits R                        random bits for rs, 1..64 (default 32); stdin lines carry\n"
    "                                   them as a second hex field, VALUE arguments take --random HEX\n"
    "  --tininess after|before          underflow detection (default after)\n"
    "\n"
    "formats: f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0\n"
    "flags (two hex digits, TestFloat's bits): 01 inexact, 02 underflow, 04 overflow, 08 infinite, 10 invalid\n"
    "exit status: 0 success, 2 bad usage or input; verify, identify and diff: 1 when results disagree\n";

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? softmx::cli::kExitUsage : 0;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "convert") return softmx::cli::cmd_convert(argc, argv);
    if (cmd == "explain") return softmx::cli::cmd_explain(argc, argv);
    if (cmd == "formats") return softmx::cli::cmd_formats(argc, argv);
    if (cmd == "dialects") return softmx::cli::cmd_dialects(argc, argv);
    if (cmd == "quantize") return softmx::cli::cmd_quantize(argc, argv);
    if (cmd == "dequantize") return softmx::cli::cmd_dequantize(argc, argv);
    if (cmd == "dot") return softmx::cli::cmd_dot(argc, argv);
    if (cmd == "gemm-golden") return softmx::cli::cmd_gemm_golden(argc, argv);
    if (cmd == "gen") return softmx::cli::cmd_gen(argc, argv);
    if (cmd == "verify") return softmx::cli::cmd_verify(argc, argv);
    if (cmd == "sweep") return softmx::cli::cmd_sweep(argc, argv);
    if (cmd == "merge") return softmx::cli::cmd_merge(argc, argv);
    if (cmd == "diff") return softmx::cli::cmd_diff(argc, argv);
    if (cmd == "identify") return softmx::cli::cmd_identify(argc, argv);
    if (cmd == "--version" || cmd == "version") {
      std::puts(std::string(softmx::vec::kGeneratorName).c_str());
      return 0;
    }
    std::fprintf(stderr,
                 "softmx: error: unknown command '%s' (expected convert, explain, quantize, dequantize, dot, "
                 "gemm-golden, gen, verify, sweep, merge, diff, identify, formats or dialects; see softmx --help)\n",
                 cmd.c_str());
    return softmx::cli::kExitUsage;
  } catch (const softmx::cli::UsageError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "softmx %s: error: %s\n", cmd.c_str(), e.what());
    return softmx::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "softmx %s: internal error: %s\n", cmd.c_str(), e.what());
    return 70;
  }
}
