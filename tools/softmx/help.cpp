// tools/softmx/help.cpp: see help.hpp. One text per subcommand: its usage, what it reads and
// writes, and every option its parse_args() call accepts (test_cli_help checks each option of
// each command appears in its help).
#include "help.hpp"

#include <string>

#include "softmx/dialect.hpp"
#include "softmx/format.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"
#include "softmx/version.hpp"

// The C API's ABI version (SOFTMX_ABI_VERSION) is part of --version.
#include "softmx/softmx.h"

namespace softmx::cli {
namespace {

std::string format_names() {
  std::string s;
  for (const Format& f : all_formats()) s += (s.empty() ? "" : " ") + std::string(f.name);
  return s;
}

std::string dialect_names() {
  std::string s;
  for (const Dialect& d : all_dialects()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

/// The conversion options convert, explain, quantize, sweep and gen share.
std::string conversion_options_text(bool rbits) {
  std::string s =
      "  --round MODE           rounding: rne (default), rna, rz, ru, rd, ro, rs (stochastic); the\n"
      "                         dialect may default otherwise (softmx dialects)\n"
      "  --sat finite|none      saturation (default: the destination's: none, IEEE overflow, into f64\n"
      "                         f32 f16 bf16; the dialect's into the MX formats and e8m0, ocp: finite)\n"
      "  --dialect NAME         " + dialect_names() + "\n"
      "                         (default ocp; softmx dialects lists their policies)\n"
      "  --tininess after|before  underflow detection (default after)\n";
  if (rbits)
    s += "  --rbits R              random bits per value for --round rs, 1..64 (default 32)\n";
  return s;
}

// The tensor-core model names from the library (tensor_core_model_names), appended to `out`
// (whose last line ends at column `col`) and wrapped at the help's 95 columns, so a new model
// shows up in --acc's and --model's lines without an edit.
std::string with_model_names(std::string out, std::size_t col) {
  const std::string names = softmx::tensor_core_model_names() + ",";
  for (std::size_t at = 0; at < names.size();) {
    const std::size_t comma = names.find(',', at);
    std::string word = names.substr(at, comma - at);
    if (!word.empty() && word.front() == ' ') word.erase(0, 1);
    if (comma + 1 < names.size()) word += ",";
    if (col + 1 + word.size() > 95) {
      out += "\n                        ";
      col = 24;
    }
    out += " " + word;
    col += 1 + word.size();
    at = comma + 1;
  }
  return out + "\n";
}

std::string acc_help() {
  return with_model_names("  --acc MODEL            accumulation: exact (default), fp32-sequential, or a tensor-core\n"
                          "                         model (it fixes its own rounding):",
                          58) +
         "                         or an instruction's alias; which model your GPU's instruction is:\n"
         "                         softmx models QUERY (softmx models B200 mma.sync f32)\n";
}

std::string model_help() {
  return with_model_names("  --model NAME           mma: the tensor-core model (default hopper-fp8-mma):", 77) +
         "                         or an instruction's alias (softmx models: H100 wgmma is sm90-wgmma)\n" +
         "  --scale-format none|ue8m0|ue4m3\n"
         "                         mma: the block scales (default: the model's instruction:\n"
         "                         blackwell-mxf8f6f4 and blackwell-mxf4 ue8m0, blackwell-nvf4\n"
         "                         ue4m3, the others none)\n"
         "  --scale-block S        mma: products per scale, dividing K (default 32; blackwell-nvf4\n"
         "                         16); --block defaults to 64 for blackwell-mxf4 and -nvf4\n";
}

constexpr const char* kOut =
    "  -o FILE, --out FILE    write FILE (atomically, by rename; '-' or none: standard output)\n";

constexpr const char* kHelp = "  -h, --help             this help\n";

}  // namespace

const std::vector<std::string_view>& command_names() {
  static const std::vector<std::string_view> names = {
      "convert", "explain", "quantize", "dequantize", "dot", "gemm-golden", "gen",
      "sweep", "merge", "diff", "verify", "identify", "recipe", "recipes", "layout", "torchmx", "pychop", "formats", "dialects", "models", "help"};
  return names;
}

std::string command_list() {
  const auto& n = command_names();
  std::string s;
  for (std::size_t i = 0; i < n.size(); ++i) s += (i == 0 ? "" : i + 1 == n.size() ? " or " : ", ") + std::string(n[i]);
  return s;
}

bool asks_for_help(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

std::string version_text() {
  std::string s = std::string(kVersionName) + "\n";
#ifdef SOFTMX_ABI_VERSION
  s += "C ABI " + std::to_string(SOFTMX_ABI_VERSION) + "\n";
#endif
  return s;
}

std::optional<std::string> command_help(std::string_view cmd) {
  const std::string formats = "formats: " + format_names() + "\n";
  const std::string status12 =
      "exit status: 0 all agree; 1 any disagreement; 2 bad usage or input, or an output that cannot\n"
      "be written\n";
  const std::string status02 = "exit status: 0 success; 2 bad usage or input, or an output that cannot be written\n";
  if (cmd == "convert")
    return "usage: softmx convert --from SRC --to DST [options] < CODES\n"
           "       softmx convert --from SRC --to DST [options] HEX...\n"
           "       softmx convert --to DST [options] VALUE...\n"
           "\n"
           "Converts raw codes of SRC (one per line on stdin, or HEX arguments), or decimal and hex-float\n"
           "VALUEs (inf, nan, -0 too; rounded exactly once), into DST. Writes one \"INPUT RESULT FLAGS\"\n"
           "line each: raw hex, and the flags as two hex digits (01 inexact, 02 underflow, 04 overflow,\n"
           "08 infinite, 10 invalid). With --round rs a stdin line carries the random bits as a second\n"
           "hex field.\n"
           "\n"
           "options:\n"
           "  --from SRC             the source format (raw codes); without it the inputs are VALUEs\n"
           "  --to DST               the destination format (required)\n" +
           conversion_options_text(true) +
           "  --random HEX           the random bits for VALUE arguments under --round rs\n" + kHelp + "\n" + formats +
           status02;
  if (cmd == "explain")
    return "usage: softmx explain --to DST [options] VALUE\n"
           "       softmx explain --from SRC --to DST [options] HEX\n"
           "\n"
           "The anatomy of one conversion: the input's exact value and bit fields, DST's two neighbours\n"
           "(codes and exact values), the distance to each in ulps, whether it is a tie, and the result\n"
           "under every rounding mode, both saturations and every dialect, with flags; for --round rs\n"
           "the exact probability of rounding away.\n"
           "\n"
           "options:\n"
           "  --from SRC             VALUE is a raw code (HEX) of SRC; without it a decimal or hex float\n"
           "  --to DST               the destination format (required)\n" +
           conversion_options_text(true) + kHelp + "\n" + formats + status02;
  if (cmd == "quantize")
    return "usage: softmx quantize --to FMT [--from f32] [--block K] [--scale RULE] [options] < CODES\n"
           "\n"
           "Quantizes MX blocks (OCP MX section 6.3): reads raw hex codes of --from, K per block\n"
           "(whitespace-separated; with --round rs each followed by its random bits), and writes one\n"
           "\"SCALE CODE ... CODE\" line per block in raw hex. --to nvfp4: blocks of 16 with E4M3 scales,\n"
           "after a first line \"# nvfp4 global_amax=XXXXXXXX encode_scale=XXXXXXXX\" (f32 bits). Its\n"
           "encode scale needs the amax of the whole input: without --global-amax a regular file on\n"
           "stdin (< FILE) is read twice, and a pipe is held until its end (4 bytes a value); with\n"
           "--global-amax, or from a file, memory does not grow with the input (BLOCKS.md 7).\n"
           "\n"
           "options:\n"
           "  --to FMT               the element format (required): a named MX element, a runtime spec of\n"
           "                         at most 8 bits (e1m2, e2m2, e4m3fnuz, int4, ...), or nvfp4\n"
           "  --from SRC             the source format of the codes (default f32)\n"
           "  --block K              elements per block (default 32; nvfp4: 16)\n"
           "  --scale RULE           block scale rule: floor, ceil, even, rceil (default: the dialect's)\n"
           "  --scale-format SPEC    the scale format: e8m0 (default), or a float spec of at most 32 bits\n"
           "                         (ue4m3, ue5m3, e4m3, bf16, f16, f32, ...): scale = amax / max_E rounded\n"
           "                         to nearest (saturating), each element x / scale rounded once\n"
           "                         (BLOCKS.md 1.2); the SCALE field has its hex digits (f32: 8)\n" +
           conversion_options_text(true) +
           "  --global-amax HEX      nvfp4: the tensor's amax (f32 bits); one pass over any input, a pipe too\n"
           "  --nvfp4-multiplier M   nvfp4: division or reciprocal-product (how the scale is applied)\n" +
           kHelp + "\n" + formats + status02;
  if (cmd == "dequantize")
    return "usage: softmx dequantize --from FMT [--to f32] [--block K] [options] < BLOCKS\n"
           "\n"
           "The inverse of quantize: reads \"SCALE CODE ... CODE\" lines (K codes each) and writes one raw\n"
           "hex code of --to per element.\n"
           "\n"
           "options:\n"
           "  --from FMT             the element format (required): as quantize's --to, or nvfp4\n"
           "  --to DST               the output format (default f32)\n"
           "  --block K              elements per block (default 32; nvfp4: 16)\n"
           "  --scale-format SPEC    the format of the SCALE fields: e8m0 (default), ue4m3, ue5m3, bf16,\n"
           "                         f16, f32, ... (its hex digits: f32 8)\n" +
           conversion_options_text(false) +
           "  --encode-scale HEX     nvfp4: the per-tensor encode scale (f32 bits) when the input has no\n"
           "                         \"# nvfp4\" line\n" +
           kHelp + "\n" + formats + status02;
  if (cmd == "dot")
    return "usage: softmx dot --a FMT --b FMT [--block K] [--blocks N] [--acc MODEL] [options] < LINES\n"
           "\n"
           "DotGeneral (OCP MX section 6) of N block pairs per line, \"SA_1 A_1,1..A_1,K SB_1 B_1,1..B_1,K\n"
           "... SA_N ... SB_N ...\" (the operand order of a dot vector file), into f32: writes \"RESULT\n"
           "FLAGS\" per line.\n"
           "\n"
           "options:\n"
           "  --a FMT, --b FMT       the element formats of A and B (required): a named MX element\n"
           "                         format or a runtime spec of at most 8 bits (e1m2, e2m2,\n"
           "                         e4m3fnuz, int4; runtime elements take --acc exact or\n"
           "                         fp32-sequential)\n"
           "  --block K              elements per block (default 32)\n"
           "  --blocks N             block pairs per line (default 1)\n" +
           acc_help() +
           "  --round MODE           rounding of the f32 result (default rne; not rs)\n"
           "  --sat finite|none      saturation of the f32 result (default none)\n"
           "  --tininess after|before  underflow detection (default after)\n"
           "  --scale-format SPEC    the format of the SCALE fields: e8m0 (default), ue4m3, ue5m3, e4m3,\n"
           "                         bf16, f16, f32, ... (its hex digits; docs/BLOCKS.md 1.2 and 5); other\n"
           "                         than e8m0: --acc exact or fp32-sequential, and ue4m3 also\n"
           "                         blackwell-mxf4 and blackwell-nvf4\n" +
           kHelp + "\n" + formats +
           "tensor-core models by instruction (softmx models QUERY filters; docs/TENSOR_CORES.md 3):\n" +
           tensor_core_instruction_table(find_tensor_core_instructions("")) + "\n" + status02;
  if (cmd == "gemm-golden")
    return "usage: softmx gemm-golden --out DIR [--m M] [--n N] [--k K] [--a FMT] [--b FMT] [options]\n"
           "\n"
           "Golden data for an MX GEMM: A (M x K) and B (K x N) f32 drawn from SplitMix64(seed),\n"
           "quantized along K, and C = their DotGeneral per element (f32); the files, little-endian,\n"
           "with their layouts and SHA-256s in DIR/manifest.txt. DIR is replaced as a unit.\n"
           "\n"
           "options:\n"
           "  --out DIR              the folder to write (required)\n"
           "  --m M, --n N, --k K    the shape (defaults 64, 64, 256)\n"
           "  --a FMT, --b FMT       the element formats (default e2m1): a named MX element format\n"
           "                         or a runtime spec of at most 8 bits (e1m2, e2m2, e4m3fnuz,\n"
           "                         int4; runtime elements take --acc exact or fp32-sequential)\n"
           "  --block K              elements per block (default 32)\n"
           "  --seed S               the PRNG seed, 0..2^64-1 (default 1)\n"
           "  --scale RULE           block scale rule: floor, ceil, even, rceil (default: the dialect's)\n"
           "  --dialect NAME         " + dialect_names() + " (default ocp)\n" + acc_help() +
           "  --round MODE           rounding of the quantization (default: the dialect's)\n"
           "  --sat finite|none      saturation of the quantization (default: the dialect's)\n"
           "  --scale-format SPEC    e8m0 (default); ue4m3: UE4M3 block scales (docs/BLOCKS.md 1.2), for\n"
           "                         --acc blackwell-mxf4 and blackwell-nvf4 (the models that read them),\n"
           "                         exact and fp32-sequential (BLOCKS.md 5); any other scale format\n"
           "                         (ue5m3, bf16, f16, f32, ...) for exact and fp32-sequential, its\n"
           "                         scale files holding codes of 1, 2 or 4 bytes (little-endian)\n" +
           kHelp + "\n" + formats + status02;
  if (cmd == "gen")
    return "usage: softmx gen convert --from SRC --to DST [conversion options]\n"
           "       softmx gen quantize --to ELEM [--from f32] [--block K] [--scale RULE] [conversion options]\n"
           "       softmx gen dequantize --from ELEM [--to f32] [conversion options]\n"
           "       softmx gen dot --a ELEM --b ELEM [--block K] [--blocks N] [--acc MODEL] [--round M]\n"
           "                      [--sat S] [--tininess T]\n"
           "       softmx gen mma --a ELEM --b ELEM [--block K] [--accumulator f32|f16] [--addend yes|no]\n"
           "                      [--model NAME] [--scale-format F] [--scale-block S]\n"
           "   and for each: [--level 1|2] [--seed S] [--count N] [--inputs-only] [--export readmemh]\n"
           "                 [-o FILE]\n"
           "\n"
           "Test vectors with softmx's results (vectors/README.md): a header that states every setting,\n"
           "the case count and the SHA-256 of the inputs, then one line per case. The same arguments\n"
           "give the same bytes on every machine.\n"
           "An output file (-o, or standard output redirected to one) whose file system or ulimit -f\n"
           "cannot hold the random cases is refused before any work (exit 2).\n"
           "\n"
           "options:\n"
           "  --level 1|2            1 (default): exhaustive or structured cases; 2 adds random ones\n"
           "  --seed S               the PRNG seed of level 2, 0..2^64-1 (default 1)\n"
           "  --count N              level 2: the number of random cases\n"
           "  --inputs-only          operands only (what a device under test reads)\n"
           "  --export readmemh      $readmemh words, the header as // comments\n" +
           std::string(kOut) +
           "  --from, --to, --a, --b, --block, --blocks, --scale, --acc: as for convert, quantize,\n"
           "                         dequantize and dot (softmx help CMD)\n"
           "  ELEM                   an MX element: e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime\n"
           "                         spec of at most 8 bits (e1m2, e2m2, e4m3fnuz, int4,\n"
           "                         e4m3:bias=11:specials=fnuz; the header names its canonical spec);\n"
           "                         mma takes the named elements only\n"
           "  --accumulator f32|f16  mma: the accumulator format (default f32)\n"
           "  --addend yes|no        mma: whether C is added (default yes)\n" +
           model_help() +
           "conversion options:\n" +
           conversion_options_text(true) + kHelp + "\n" + formats + status02;
  if (cmd == "sweep")
    return "usage: softmx sweep --from SRC --to DST [options] [--threads N] [--shard I/N] [-o FILE]\n"
           "\n"
           "Converts every input of SRC (up to 32 bits) on every core and writes the run table\n"
           "(vectors/README.md 5): one \"FIRST OUT FLAGS\" line per run of inputs with equal results.\n"
           "\n"
           "options:\n"
           "  --from SRC, --to DST   the formats (required)\n" +
           conversion_options_text(false) +
           "  --threads N            threads, 1..1024 (default: every core)\n"
           "  --shard I/N            only shard I (from 0) of N equal input ranges\n" +
           kOut + kHelp + "\n" + formats + status02;
  if (cmd == "merge")
    return "usage: softmx merge [-o FILE] TABLE...\n"
           "\n"
           "Joins the run tables of shards of one sweep (same header, adjacent ranges, in any order)\n"
           "into one canonical table.\n"
           "\n"
           "options:\n" +
           std::string(kOut) + kHelp + "\n" + status02;
  if (cmd == "diff")
    return "usage: softmx diff [--max-ranges N] TABLE-A TABLE-B\n"
           "\n"
           "Where two run tables over the same inputs disagree: each maximal range of inputs with one\n"
           "pair of different results, both decomposed, and for its first input what softmx computes\n"
           "under each table's header and why.\n"
           "\n"
           "options:\n"
           "  --max-ranges N         ranges shown (default 50)\n" +
           std::string(kHelp) + "\n" +
           "exit status: 0 the tables agree; 1 they differ; 2 bad usage or input\n";
  if (cmd == "verify")
    return "usage: softmx verify [--max-errors N] [--json] [--threads N] [--accept-unproven] [--expect-cases N]\n"
           "                     [--model M] [--acc A] [--dialect D] [--round R] [--sat S] [--tininess T]\n"
           "                     [--scale RULE] RESULTS\n"
           "\n"
           "Checks a device's results (a vector file with results, or a run table; '-' for stdin)\n"
           "against softmx under the file's header, line by line: each disagreement decomposed, with\n"
           "the settings that would give the device's result; then the summary, the file's\n"
           "completeness (every case present, once, in order) and the verdict. A pass needs every\n"
           "line to agree and completeness PROVEN: the cases regenerated from the header's level and\n"
           "seed (the header's own cases and inputs-sha256 cannot vouch for the file), or a run\n"
           "table's first..last (docs/VECTORS.md).\n"
           "\n"
           "options:\n"
           "  --max-errors N         disagreements shown (default 20)\n"
           "  --json                 the report as JSON on standard output\n"
           "  --threads N            threads for a run table, 1..1024 (default: every core)\n"
           "  --accept-unproven      take a file whose completeness cannot be proven (no level and seed;\n"
           "                         a legacy level-2 file without cases) as a pass, saying so\n"
           "  --expect-cases N       the file must hold N cases, whatever its header says (level 2: the\n"
           "                         count of the set that was sent to the device)\n"
           "settings that replace the header's for the check (the file is not changed; the report\n"
           "names each one):\n"
           "  --model M              mma: the tensor-core model; dot: the accumulation model\n"
           "  --acc A                dot: exact, fp32-sequential or a tensor-core model\n"
           "  --dialect D            convert, quantize, dequantize: the dialect\n"
           "  --round R              the rounding (rne rna rz ru rd ro; rs only for an rs file)\n"
           "  --sat S                finite or none\n"
           "  --tininess T           after or before\n"
           "  --scale RULE           quantize: the scale rule (floor ceil even rceil)\n" +
           std::string(kHelp) + "\n" +
           "exit status: 0 pass; 1 fail (a disagreement, or a case missing, extra, duplicated or out of\n"
           "order, or a header whose cases or inputs-sha256 are not the regenerated list's); 2 bad usage\n"
           "or input; 3 unproven (no disagreement, completeness not proven; see --accept-unproven)\n";
  if (cmd == "identify")
    return "usage: softmx identify [--top N] [--exact N] [--max-errors N] [--threads N] RESULTS\n"
           "\n"
           "Which implementation a device matches: every setting softmx models for the file's operation\n"
           "(dialect x rounding x saturation, x scale rule, x accumulation model, x tininess) scored by\n"
           "the cases (inputs) it agrees on; the best named, with how it differs from the header and\n"
           "what it still disagrees on.\n"
           "\n"
           "options:\n"
           "  --top N                scores listed (default 5)\n"
           "  --exact N              run tables: groups checked on every input after sampling (default 3)\n"
           "  --max-errors N         disagreements of the best setting shown (default 20)\n"
           "  --threads N            threads, 1..1024 (default: every core)\n"
           "  --accept-unproven      identify a file whose completeness cannot be proven (exit 0, saying so)\n" +
           std::string(kHelp) + "\n" +
           "exit status: 0 the best setting agrees everywhere and the file is proven complete; 1 the\n"
           "best disagrees somewhere, or the file is incomplete; 2 bad usage or input; 3 the best agrees\n"
           "everywhere but completeness is unproven (see --accept-unproven)\n";
  if (cmd == "recipe")
    return "usage: softmx recipe NAME --shape D0xD1[x...] [--from f32|bf16|f16] [--binary] [options] [-o OUT] [FILE|-]\n"
           "       softmx recipe NAME --shape D0xD1[x...] [--from f32|bf16|f16] --seed S [options] [-o OUT]\n"
           "       softmx recipe --list\n"
           "\n"
           "Quantizes a tensor with one of TransformerEngine's recipes (docs/RECIPES.md): te-fp8-current,\n"
           "te-fp8-block, te-mxfp8, te-nvfp4 (TE's class names work too). Reads the tensor, row-major,\n"
           "from FILE (or stdin): raw hex codes of --from, whitespace-separated, or with --binary\n"
           "little-endian codes of 4 (f32) or 2 (bf16, f16) bytes. An N-d shape is flattened to M x K as\n"
           "TE does. Writes a \"# recipe\" line with the resolved settings, then for each output a\n"
           "\"# rowwise\" or \"# columnwise\" line (rows, cols, element, block, scale_format, scale_shape,\n"
           "amax, tensor_scale, tensor_scale_inv as f32 bits; flags) and its matrices, each a title line\n"
           "\"DIRECTION codes|scales|multipliers|rht_input RxC\" then one row per line in raw hex: element\n"
           "codes, scales (f32 scale_inv, E8M0 or E4M3), the f32 multiplier of each block, and the bf16\n"
           "RHT input of a columnwise NVFP4 output with the random Hadamard transform.\n"
           "\n"
           "options:\n"
           "  --shape D0xD1...       the tensor's dimensions (required)\n"
           "  --from SRC             f32 (default), bf16 or f16\n"
           "  --binary               FILE holds little-endian codes, not hex text\n"
           "  --role R               input (default), weight or gradient: TE's per-tensor settings\n"
           "  --impl I               kernel (default, TE's CUDA kernels), reference or custom-reference\n"
           "                         (TE's Python references)\n"
           "  --outputs O            both (default), rowwise or columnwise\n"
           "  --fp8-format F         e4m3 or hybrid (E5M2 for gradients; default: the recipe's)\n"
           "  --power-2-scale 0|1    FP8 recipes: round scales down to powers of two\n"
           "  --amax-epsilon HEX     FP8 recipes: TE's amax_epsilon (f32 bits; default 00000000)\n"
           "  --amax HEX             te-fp8-current, te-nvfp4: the tensor's amax (f32 bits), as after an\n"
           "                         all-reduce\n"
           "  --rht-amax HEX         te-nvfp4 with RHT: the columnwise amax (f32 bits)\n"
           "  --tiles-2d 0|1         te-fp8-block 128x128, te-nvfp4 16x16 tiles (default: for weights)\n"
           "  --dialect NAME         te-mxfp8: transformer-engine (default) or transformer-engine-2025\n"
           "  --random-hadamard 0|1  te-nvfp4: RHT of the columnwise input (default: inputs, gradients)\n"
           "  --rht-signs HEX        te-nvfp4: the RHT sign mask, 4 hex digits (default D7E8, TE's)\n"
           "  --stochastic-rounding 0|1  te-nvfp4: stochastic rounding (default: gradients)\n"
           "  --stochastic-form F    software (default, TE's fallback: one byte per element) or rs\n"
           "  --rbits R              --stochastic-form rs: random bits per element, 1..64 (default 8)\n"
           "  --rbits-rowwise FILE, --rbits-columnwise FILE\n"
           "                         stochastic rounding: one random value per element of that output,\n"
           "                         row-major in its shape, hex (2 digits; rs: ceil(R/4))\n"
           "  --layouts              also each output's \"te_scales\" (TE's compact scale tensor, padded\n"
           "                         with 0) and, te-mxfp8 and te-nvfp4, \"swizzled_scales\" (cuBLAS 128x4)\n"
           "  --dequantize DST       also each output dequantized as TE does, into f32, bf16 or f16\n"
           "                         (title \"DIRECTION dequantized RxC to=DST flags=FF\")\n"
           "  --seed S               make the input instead of reading FILE: the library's deterministic\n"
           "                         test tensor (recipe_test_input: finite, a new binade every 16 values,\n"
           "                         some zeros) from SplitMix64 seed S, 0..2^64-1; the header says seed=S\n"
           "  --list                 list the recipes (as softmx recipes)\n" +
           std::string(kOut) + kHelp + "\n" + status02;
  if (cmd == "recipes")
    return "usage: softmx recipes\n"
           "\n"
           "TransformerEngine's quantization recipes softmx models: name, TE class, summary\n"
           "(softmx recipe NAME runs one; docs/RECIPES.md).\n"
           "\n"
           "options:\n" +
           std::string(kHelp) + "\n" + status02;
  if (cmd == "layout")
    return "usage: softmx layout encode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]\n"
           "       softmx layout decode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]\n"
           "       softmx layout size --layout L --shape RxC [--operand a|b]\n"
           "       softmx layout index --layout L --shape RxC [--operand a|b] [--transposed 0|1] R C\n"
           "\n"
           "The memory layouts GEMM consumers read block scales in (docs/RECIPES.md 6; Python:\n"
           "softmx.swizzle_scales, unswizzle_scales, scale_layout_size, scale_layout_index, pad_scales,\n"
           "unpad_scales).\n"
           "S is the scale matrix, R x C one-byte codes (E8M0 or E4M3), row-major: a row per row of the\n"
           "operand along M (A) or N (B), a column per block along K. encode reads S from FILE (or stdin)\n"
           "as hex codes (2 digits, whitespace-separated) or with --binary raw bytes, and writes the\n"
           "layout's buffer, padding included: hex, 16 bytes a line, or with --binary-out the bytes.\n"
           "decode reads the buffer (exactly size bytes) and writes S, one row a line. size prints the\n"
           "buffer's bytes; index the offset of S[R][C] (R, C may lie in the padding).\n"
           "\n"
           "layouts:\n"
           "  cublas-128x4           cuBLAS/cuDNN 128x4 tiles (aliases swizzled-128x4, 128x4): S padded\n"
           "                         to 128*ceil(R/128) x 4*ceil(C/4) with --pad (default 00); S[r][c] at\n"
           "                         ((r/128)*ceil(C/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4\n"
           "  torchao                torchao's to_blocked / from_blocked (alias to_blocked): the same\n"
           "                         bytes, padding 00\n"
           "  paired                 the seed-003 generator's a_scale.bin / b_scale.bin: --operand a (S is\n"
           "                         m x nb) or b (S is nb x n), --transposed trans_a / trans_b; nb padded\n"
           "                         to even with 7F (E8M0 1.0)\n"
           "  te-padded              TransformerEngine's compact scale tensor: S, transposed first with\n"
           "                         --transposed 1, padded with --pad to multiples of --multiple, one\n"
           "                         padded row a line; decode crops the padding (never read) and\n"
           "                         transposes back; size gives the padded tensor's codes\n"
           "\n"
           "options:\n"
           "  --layout L             cublas-128x4, torchao, paired or te-padded (required)\n"
           "  --shape RxC            S's rows and columns (required; size also takes 0)\n"
           "  --operand a|b          paired: which operand's scales (required there)\n"
           "  --transposed 0|1       paired: trans_a / trans_b; te-padded: transpose S first (default 0)\n"
           "  --pad HEX              encode, cublas-128x4 and te-padded: the padding code (2 hex digits;\n"
           "                         te-padded --scale-format f32: 8)\n"
           "  --multiple RMxCM       te-padded: the padding multiples (required; TE MXFP8 rowwise 128x4,\n"
           "                         columnwise 4x128)\n"
           "  --scale-format F       te-padded: e8m0 or e4m3 (default; 1-byte codes) or f32 (FP8 block\n"
           "                         scaling's scale_inv, 4-byte codes: 8 hex digits, --binary little-endian)\n"
           "  --binary               FILE holds raw bytes, not hex text\n"
           "  --binary-out           write raw bytes, not hex text\n" +
           std::string(kOut) + kHelp + "\n" + status02;
  if (cmd == "torchmx")
    return "usage: softmx torchmx quantize-mx --elem NAME --shape D0x..xDn [--block K] [--path P] [--to-dtype T]\n"
           "                         [--binary] [-o OUT] [FILE|-]\n"
           "       softmx torchmx to-mx (options as quantize-mx)\n"
           "       softmx torchmx dequantize-mx --elem NAME --data-shape SHAPE --scale-shape SHAPE --scales FILE\n"
           "                         [--block K] [--target T] [--block-dim D] [--binary] [-o OUT] [FILE|-]\n"
           "       softmx torchmx matmul --elem NAME [--elem-b NAME] --shape MxK --shape-b KxN [--block K]\n"
           "                         [--path P] [--acc A] [--binary] [-o OUT] A B\n"
           "       softmx torchmx linear (as matmul, --shape-b NxK: C = A W^T) [--bias FILE] A W\n"
           "\n"
           "rain-neuromorphics/torchmx's own entry points, bit for bit (docs/DIALECTS.md \"torchmx\";\n"
           "Python: softmx.torchmx_quantize_mx, torchmx_to_mx, torchmx_dequantize_mx, TorchmxTensor.to_dtype,\n"
           "torchmx_matmul, torchmx_linear). Tensors are read as bf16 codes (4 hex digits, whitespace-\n"
           "separated; with --binary 2 little-endian bytes), row-major; blocks run along the last dimension.\n"
           "  quantize-mx    torchmx.quantize_mx(data_hp, elem_dtype_name, block_size): the last dimension\n"
           "                 a multiple of K. Writes a \"# torchmx\" header, then \"scale SHAPE\" (E8M0) and\n"
           "                 \"data SHAPE\" (data_lp bytes: FP4 two codes a byte, element 2i in the high\n"
           "                 nibble; int8 two's complement), one row of the last dimension a line in hex\n"
           "  to-mx          MXTensor.to_mx: each row padded with +0.0 to a multiple of K first\n"
           "  dequantize-mx  torchmx.dequantize_mx on arbitrary bytes: data_lp from FILE (hex bytes),\n"
           "                 the scale from --scales FILE; writes \"dequantized SHAPE to=T flags=FF\"\n"
           "  matmul         torch.matmul of two MXTensors (A [M,K] and B [K,N], each to_mx along its\n"
           "                 last dimension): \"c MxN\", bf16 codes\n"
           "  linear         F.linear(A, W, bias): A [M,K], W [N,K], an optional bf16 bias of N values\n"
           "\n"
           "options:\n"
           "  --elem NAME            element dtype: float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1,\n"
           "                         int8 (torchmx has no e5m2); matmul/linear: A's\n"
           "  --elem-b NAME          matmul/linear: B's (W's) element dtype (default --elem)\n"
           "  --shape D0x..xDn       the input tensor's shape (matmul/linear: A's, MxK)\n"
           "  --shape-b SHAPE        matmul: B's, KxN; linear: W's, NxK\n"
           "  --block K              block_size, 1..65536 (default 32)\n"
           "  --path P               simulated (default) or hardware-exact (MX_HARDWARE_EXACT_QUANTIZATION)\n"
           "  --to-dtype T           quantize-mx/to-mx: also MXTensor.to_dtype(T), bf16 or f32\n"
           "  --target T             dequantize-mx: target_dtype, bf16 (default) or f32\n"
           "  --block-dim D          dequantize-mx: block_dim, -rank..rank-1 (default -1)\n"
           "  --data-shape SHAPE     dequantize-mx: data_lp's shape (FP4: packed)\n"
           "  --scale-shape SHAPE    dequantize-mx: the scale tensor's shape\n"
           "  --scales FILE          dequantize-mx: the E8M0 scale bytes (hex, or --binary raw)\n"
           "  --acc A                matmul/linear: exact-f32 (default; the exact sum rounded to f32, then\n"
           "                         bf16) or fp32-sequential (an f32 FMA per term in k order)\n"
           "  --bias FILE            linear: the bias, N bf16 codes\n"
           "  --binary               the input files hold raw little-endian codes, not hex text\n" +
           std::string(kOut) + kHelp + "\n" + status02;
  if (cmd == "pychop")
    return "usage: softmx pychop quantize --shape D0x..xDn [--from f64|f32] [--format KEY|E,S | --spec SPEC]\n"
           "                      [--block K] [--scale-exp-bits B] [--scale-sig-bits B] [--backend B]\n"
           "                      [--numpy 2|1] [--binary] [-o OUT] [FILE|-]\n"
           "       softmx pychop specs\n"
           "\n"
           "inEXASCALE/pychop's mx_quantize, bit for bit (docs/DIALECTS.md \"pychop\"; Python:\n"
           "softmx.pychop_mx_quantize, pychop_spec, pychop_specs). quantize reads f64 (16 hex digits) or f32\n"
           "(8) codes, row-major (--binary: little-endian bytes); pychop flattens the array into blocks,\n"
           "padded with +0.0. Writes a \"# pychop\" header (the resolved spec), \"values SHAPE\" (what\n"
           "mx_quantize returns, in the dtype NumPy's promotion gives), \"scales N\" (E8M0, one per block),\n"
           "\"codes BxK\" (the element codes, one block a line), \"uncoded N\" (flat indices whose value no\n"
           "element code carries: NaN into a format without NaN, MXINT8 -0), and \"statistics\"\n"
           "(MXTensor.statistics(), one key a line; floats as Python prints them). specs lists MX_FORMATS.\n"
           "\n"
           "options:\n"
           "  --shape D0x..xDn       the array's shape (required)\n"
           "  --from f64|f32         the input dtype (default f64)\n"
           "  --format KEY|E,S       mx_quantize's format: a key of MX_FORMATS (mxfp8_e4m3 (default),\n"
           "                         mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1, mxint8; any case) or\n"
           "                         an (exp_bits, sig_bits) tuple; a custom one is a runtime format\n"
           "                         without specials (e4m3:specials=none for 4,3; int4 for 0,3) of at\n"
           "                         most 8 bits (docs/DIALECTS.md pychop)\n"
           "  --spec E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]]\n"
           "                         an MXSpec from create_mx_spec (its block size wins over --block)\n"
           "  --block K              mx_quantize's block_size, 1..65536 (default 32; the torch and jax\n"
           "                         backends keep a named format's 32)\n"
           "  --scale-exp-bits B     the scale's exponent bits, 1..8 (default: the spec's, 8)\n"
           "  --scale-sig-bits B     counted in the statistics only (default: the spec's, 0)\n"
           "  --backend B            numpy (default), torch or jax\n"
           "  --numpy 2|1            NumPy's promotion rules: 2 (default, NEP 50) or 1 (float32 values)\n"
           "  --binary               FILE holds raw little-endian codes, not hex text\n" +
           std::string(kOut) + kHelp + "\n" + status02;
  if (cmd == "formats")
    return "usage: softmx formats\n"
           "\n"
           "The format table: width, exponent and mantissa bits, bias, sign, special values, largest\n"
           "finite, smallest normal and subnormal (exact hex floats).\n"
           "\n"
           "options:\n" +
           std::string(kHelp) + "\n" + status02;
  if (cmd == "dialects")
    return "usage: softmx dialects\n"
           "\n"
           "The dialects with their policies: NaN handling, default rounding and saturation per\n"
           "destination, scale rule, and their sources.\n"
           "dialects: " + dialect_names() + "\n"
           "\n"
           "options:\n" +
           std::string(kHelp) + "\n" + status02;
  if (cmd == "models")
    return "usage: softmx models [QUERY...]\n"
           "\n"
           "Which tensor-core model computes the instruction you run: architecture x instruction x\n"
           "elements x accumulator -> model, with an alias naming the model by its instruction and the\n"
           "evidence behind each row (captures that confirm it, or the simulator it rests on). QUERY\n"
           "words keep the rows that hold all of them (case-insensitive; sm90 finds sm_90, mma-sync\n"
           "finds mma.sync): softmx models B200 mma.sync; softmx models H100 wgmma. Every name and\n"
           "alias is taken wherever a model is (gen mma --model, dot --acc, verify --model, a\n"
           "vector file's model key); files spell the model's name.\n"
           "\n" + tensor_core_instruction_table(find_tensor_core_instructions("")) +
           "\noptions:\n" + std::string(kHelp) + "\n" + status02;
  if (cmd == "help")
    return "usage: softmx help [CMD]\n"
           "\n"
           "The help of command CMD (the same as softmx CMD --help), or without CMD the overview.\n"
           "commands: " + command_list() + "\n"
           "\n"
           "options:\n" +
           std::string(kHelp) + "\n" + "exit status: 0 success; 2 an unknown CMD\n";
  return std::nullopt;
}

}  // namespace softmx::cli
