// tools/softmx/help.cpp: see help.hpp. One text per subcommand: its usage, what it reads and
// writes, then its options block, which options_help() writes from the table its parser reads
// (options.cpp), so the help lists exactly the options the command accepts.
#include "help.hpp"
#include "options.hpp"

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

}  // namespace

const std::vector<std::string_view>& command_names() {
  static const std::vector<std::string_view> names = {
      "convert", "explain", "quantize", "dequantize", "dot", "gemm-golden", "gen",
      "sweep", "merge", "diff", "verify", "identify", "report", "recipe", "recipes", "layout", "torchmx", "pychop", "formats", "dialects", "models", "help"};
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
  const std::string formats = "formats: " + format_names() + ", or a spec (softmx formats lists every name)\n";
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
           + options_help("convert") + "\n" + formats +
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
           + options_help("explain") + "\n" + formats + status02;
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
           + options_help("quantize") + "\n" + formats + status02;
  if (cmd == "dequantize")
    return "usage: softmx dequantize --from FMT [--to f32] [--block K] [options] < BLOCKS\n"
           "\n"
           "The inverse of quantize: reads \"SCALE CODE ... CODE\" lines (K codes each) and writes one raw\n"
           "hex code of --to per element.\n"
           "\n"
           + options_help("dequantize") + "\n" + formats + status02;
  if (cmd == "dot")
    return "usage: softmx dot --a FMT --b FMT [--block K] [--blocks N] [--acc MODEL] [--to f32|f16|bf16]\n"
           "                  [--addend] [options] < LINES\n"
           "\n"
           "DotGeneral (OCP MX section 6) of N block pairs per line, \"SA_1 A_1,1..A_1,K SB_1 B_1,1..B_1,K\n"
           "... SA_N ... SB_N ...\" (the operand order of a dot vector file), with --addend then C, into\n"
           "--to: writes \"RESULT FLAGS\" per line (RESULT a code of --to).\n"
           "\n"
           + options_help("dot") + "\n" + formats +
           "tensor-core models by instruction (softmx models QUERY filters; docs/TENSOR_CORES.md 3):\n" +
           tensor_core_instruction_table(find_tensor_core_instructions("")) + "\n" + status02;
  if (cmd == "gemm-golden")
    return "usage: softmx gemm-golden --out DIR [--m M] [--n N] [--k K] [--a FMT] [--b FMT] [options]\n"
           "\n"
           "Golden data for an MX GEMM: A (M x K) and B (K x N) f32 drawn from SplitMix64(seed),\n"
           "quantized along K, and C = their DotGeneral per element (f32); the files, little-endian,\n"
           "with their layouts and SHA-256s in DIR/manifest.txt. DIR is replaced as a unit.\n"
           "\n"
           + options_help("gemm-golden") + "\n" + formats + status02;
  if (cmd == "gen")
    return "usage: softmx gen convert --from SRC --to DST [conversion options]\n"
           "       softmx gen quantize --to ELEM [--from f32] [--block K] [--scale RULE] [conversion options]\n"
           "       softmx gen dequantize --from ELEM [--to f32] [conversion options]\n"
           "       softmx gen dot --a ELEM --b ELEM [--block K] [--blocks N] [--acc MODEL]\n"
           "                      [--to f32|f16|bf16] [--addend yes|no] [--round M] [--sat S] [--tininess T]\n"
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
           + options_help("gen") + "\n" + formats + status02;
  if (cmd == "sweep")
    return "usage: softmx sweep --from SRC --to DST [options] [--threads N] [--shard I/N] [-o FILE]\n"
           "\n"
           "Converts every input of SRC (up to 32 bits) on every core and writes the run table\n"
           "(vectors/README.md 5): one \"FIRST OUT FLAGS\" line per run of inputs with equal results.\n"
           "\n"
           + options_help("sweep") + "\n" + formats + status02;
  if (cmd == "merge")
    return "usage: softmx merge [-o FILE] TABLE...\n"
           "\n"
           "Joins the run tables of shards of one sweep (same header, adjacent ranges, in any order)\n"
           "into one canonical table.\n"
           "\n"
           + options_help("merge") + "\n" + status02;
  if (cmd == "diff")
    return "usage: softmx diff [--max-ranges N] TABLE-A TABLE-B\n"
           "\n"
           "Where two run tables over the same inputs disagree: each maximal range of inputs with one\n"
           "pair of different results, both decomposed, and for its first input what softmx computes\n"
           "under each table's header and why.\n"
           "\n"
           + options_help("diff") + "\n" +
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
           + options_help("verify") + "\n" +
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
           + options_help("identify") + "\n" +
           "exit status: 0 the best setting agrees everywhere and the file is proven complete; 1 the\n"
           "best disagrees somewhere, or the file is incomplete; 2 bad usage or input; 3 the best agrees\n"
           "everywhere but completeness is unproven (see --accept-unproven)\n";
  if (cmd == "report")
    return "usage: softmx report [-o REPORT.html] [--identify FILE]... [--diff TABLE-A TABLE-B]...\n"
           "                     [--max-failures N] [--threads N] [--accept-unproven] [--expect-cases N]\n"
           "                     [--title TEXT] [--json] FILE...\n"
           "\n"
           "The certificate: one self-contained HTML page (inline SVG plots, no script, no fetch) for\n"
           "the people who sign off a unit. Each FILE (a results file of any operation, or a run table)\n"
           "is verified as `softmx verify FILE` verifies it, each --identify FILE identified as `softmx\n"
           "identify FILE` does, each --diff pair compared as `softmx diff` does. The page holds the\n"
           "verdict, the provenance (softmx's version and build, this command, each file's SHA-256 and\n"
           "header, the date), how completeness was established, the checked and failed counts per class\n"
           "of input (normal, subnormal, overflow, zero, NaN, Inf, ties), plots of where the failures lie\n"
           "over the input domain, of the ulp errors and of identify's scores, the first failures with\n"
           "their explanations, and the commands that reproduce it (docs/REPORT.md). The library computes\n"
           "every number; the page is drawn by python/softmx/_report_render.py (Debian's python3 with\n"
           "python3-matplotlib and python3-jinja2), found beside the build tree or the source tree, or\n"
           "named by $SOFTMX_REPORT_RENDERER ($SOFTMX_PYTHON: the interpreter).\n"
           "\n"
           + options_help("report") + "\n" +
           "exit status: the verdict's, as verify's: 0 every input passes; 1 any fails (a verify or identify\n"
           "failure, or a diff that differs); 3 none fails but one is unproven; 2 bad usage or input (the\n"
           "file and line named), or a page that cannot be drawn (no renderer: its message says what to\n"
           "install) or written\n";
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
           + options_help("recipe") + "\n" + status02;
  if (cmd == "recipes")
    return "usage: softmx recipes\n"
           "\n"
           "TransformerEngine's quantization recipes softmx models: name, TE class, summary\n"
           "(softmx recipe NAME runs one; docs/RECIPES.md).\n"
           "\n"
           + options_help("recipes") + "\n" + status02;
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
           + options_help("layout") + "\n" + status02;
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
           + options_help("torchmx") + "\n" + status02;
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
           + options_help("pychop") + "\n" + status02;
  if (cmd == "formats")
    return "usage: softmx formats\n"
           "       softmx formats SPEC\n"
           "\n"
           "Without SPEC: the formats a user can name: the 11 named formats and the runtime formats with\n"
           "a name (width, exponent and mantissa bits, bias, sign, special values, largest finite,\n"
           "smallest normal and subnormal), every alias and the spec it reads as, and the spec grammar\n"
           "with examples (docs/SEMANTICS.md 1.2, docs/FORMATS.md). With SPEC (any spec convert takes):\n"
           "that format: what it is an alias of, its canonical spec and aliases, fields, specials and\n"
           "their codes, max finite, min normal and subnormal, whether it is an MX element, and what\n"
           "overflow gives by default.\n"
           "\n"
           "Default saturation (without --sat; SEMANTICS 4.1): none (overflow to Inf) into f64 f32 f16\n"
           "bf16 and runtime formats with Inf (e3m4, e4m3ieee, ue5m3); the dialect's into the MX formats,\n"
           "e8m0 and runtime formats without Inf (fn, fnuz, none; ocp: finite).\n"
           "\n"
           "IEEE P3109 formats (interim report v4.0; docs/FORMATS.md 5): binary{K}p{P}{s|u}{e|f}, such\n"
           "as binary8p3se, binary8p4uf: K the bitwidth (2..16), P the precision (1..K-1 signed, 1..K\n"
           "unsigned), s|u signed or unsigned, e|f extended (+-Inf) or finite domain; case-insensitive\n"
           "(the draft's Binary8p3se). One NaN, no -0. Refused: binary2p1se (no finite non-zero value)\n"
           "and formats of more than 8 exponent bits (K - P > 8 signed, K - P + 1 > 8 unsigned: values\n"
           "beyond softmx's exponent range). Convert into them with --dialect p3109 (its defaults:\n"
           "NearestTiesToEven, SatNone; --sat propagate is SatPropagate).\n"
           "\n"
           + options_help("formats") + "\n" + status02;
  if (cmd == "dialects")
    return "usage: softmx dialects\n"
           "\n"
           "The dialects with their policies: NaN handling, default rounding and saturation per\n"
           "destination, scale rule, and their sources.\n"
           "dialects: " + dialect_names() + "\n"
           "\n"
           + options_help("dialects") + "\n" + status02;
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
           "\n" + options_help("models") + "\n" + status02;
  if (cmd == "help")
    return "usage: softmx help [CMD]\n"
           "\n"
           "The help of command CMD (the same as softmx CMD --help), or without CMD the overview.\n"
           "commands: " + command_list() + "\n"
           "\n"
           + options_help("help") + "\n" + "exit status: 0 success; 2 an unknown CMD\n";
  return std::nullopt;
}

}  // namespace softmx::cli
