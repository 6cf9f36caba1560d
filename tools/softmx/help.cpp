// tools/softmx/help.cpp: see help.hpp. One table, kCommands: an entry per subcommand with its
// usage and what it reads and writes; its options block is options_help(), written from the table
// its parser reads (options.cpp), so the help lists exactly the options the command accepts; the
// lists of formats, dialects and models come from the library's tables.
#include "help.hpp"
#include "commands.hpp"
#include "options.hpp"

#include <cstdint>
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

// What follows a command's text before its options block.
enum class Then : std::uint8_t {
  none,
  dialect_list,  ///< "dialects: ocp, cuda, ..." (all_dialects())
  command_list,  ///< "commands: ..." (command_list())
  model_table,   ///< a blank line, then the tensor-core instruction table
};
// What follows the options block before the exit statuses.
enum class After : std::uint8_t {
  none,
  formats,             ///< the formats line (all_formats())
  formats_and_models,  ///< the formats line, then the tensor-core models by instruction
};

constexpr std::string_view kStatus02 =
    "exit status: 0 success; 2 bad usage or input, or an output that cannot be written\n";

// One entry per subcommand, in the order `softmx --help` lists them: its usage and what it reads
// and writes (`text`, printed as written, ending in '\n'), then `then`, a blank line, the options
// block options_help(name) writes from the parser's table (options.cpp), a blank line, `after_options`
// and the exit statuses. Adding a subcommand: an entry here, its option table in options.cpp,
// and its tests (test_cli_options proves help and parser agree).
struct CommandText {
  std::string_view name;
  CommandFn* run = nullptr;  ///< its entry point; none for help, which main() answers itself
  std::string_view text;
  Then then = Then::none;
  After after_options = After::none;
  std::string_view status = kStatus02;
};

// clang-format off
const CommandText kCommands[] = {
    {.name = "convert",
     .run = cmd_convert,
     .text = R"(usage: softmx convert --from SRC --to DST [options] < CODES
       softmx convert --from SRC --to DST [options] HEX...
       softmx convert --to DST [options] VALUE...

Converts raw codes of SRC (one per line on stdin, or HEX arguments), or decimal and hex-float
VALUEs (inf, nan, -0 too; rounded exactly once), into DST. Writes one "INPUT RESULT FLAGS"
line each: raw hex, and the flags as two hex digits (01 inexact, 02 underflow, 04 overflow,
08 infinite, 10 invalid). With --round rs a stdin line carries the random bits as a second
hex field.
)",
     .after_options = After::formats},
    {.name = "explain",
     .run = cmd_explain,
     .text = R"(usage: softmx explain --to DST [options] VALUE
       softmx explain --from SRC --to DST [options] HEX

The anatomy of one conversion: the input's exact value and bit fields, DST's two neighbours
(codes and exact values), the distance to each in ulps, whether it is a tie, and the result
under every rounding mode, both saturations and every dialect, with flags; for --round rs
the exact probability of rounding away.
)",
     .after_options = After::formats},
    {.name = "quantize",
     .run = cmd_quantize,
     .text = R"(usage: softmx quantize --to FMT [--from f32] [--block K] [--scale RULE] [options] < CODES

Quantizes MX blocks (OCP MX section 6.3): reads raw hex codes of --from, K per block
(whitespace-separated; with --round rs each followed by its random bits), and writes one
"SCALE CODE ... CODE" line per block in raw hex. --to nvfp4: blocks of 16 with E4M3 scales,
after a first line "# nvfp4 global_amax=XXXXXXXX encode_scale=XXXXXXXX" (f32 bits). Its
encode scale needs the amax of the whole input: without --global-amax a regular file on
stdin (< FILE) is read twice, and a pipe is held until its end (4 bytes a value); with
--global-amax, or from a file, memory does not grow with the input (BLOCKS.md 7).
)",
     .after_options = After::formats},
    {.name = "dequantize",
     .run = cmd_dequantize,
     .text = R"(usage: softmx dequantize --from FMT [--to f32] [--block K] [options] < BLOCKS

The inverse of quantize: reads "SCALE CODE ... CODE" lines (K codes each) and writes one raw
hex code of --to per element.
)",
     .after_options = After::formats},
    {.name = "dot",
     .run = cmd_dot,
     .text = R"(usage: softmx dot --a FMT --b FMT [--block K] [--blocks N] [--acc MODEL] [--to f32|f16|bf16]
                  [--addend] [options] < LINES

DotGeneral (OCP MX section 6) of N block pairs per line, "SA_1 A_1,1..A_1,K SB_1 B_1,1..B_1,K
... SA_N ... SB_N ..." (the operand order of a dot vector file), with --addend then C, into
--to: writes "RESULT FLAGS" per line (RESULT a code of --to).
)",
     .after_options = After::formats_and_models},
    {.name = "gemm-golden",
     .run = cmd_gemm_golden,
     .text = R"(usage: softmx gemm-golden --out DIR [--m M] [--n N] [--k K] [--a FMT] [--b FMT] [options]

Golden data for an MX GEMM: A (M x K) and B (K x N) f32 drawn from SplitMix64(seed),
quantized along K, and C = their DotGeneral per element (f32); the files, little-endian,
with their layouts and SHA-256s in DIR/manifest.txt. DIR is replaced as a unit.
)",
     .after_options = After::formats},
    {.name = "gen",
     .run = cmd_gen,
     .text = R"(usage: softmx gen convert --from SRC --to DST [conversion options]
       softmx gen quantize --to ELEM [--from f32] [--block K] [--scale RULE] [conversion options]
       softmx gen dequantize --from ELEM [--to f32] [conversion options]
       softmx gen dot --a ELEM --b ELEM [--block K] [--blocks N] [--acc MODEL]
                      [--to f32|f16|bf16] [--addend yes|no] [--round M] [--sat S] [--tininess T]
       softmx gen mma --a ELEM --b ELEM [--block K] [--accumulator f32|f16] [--addend yes|no]
                      [--model NAME] [--scale-format F] [--scale-block S]
   and for each: [--level 1|2] [--seed S] [--count N] [--inputs-only] [--export readmemh]
                 [-o FILE]

Test vectors with softmx's results (vectors/README.md): a header that states every setting,
the case count and the SHA-256 of the inputs, then one line per case. The same arguments
give the same bytes on every machine.
An output file (-o, or standard output redirected to one) whose file system or ulimit -f
cannot hold the random cases is refused before any work (exit 2).
)",
     .after_options = After::formats},
    {.name = "sweep",
     .run = cmd_sweep,
     .text = R"(usage: softmx sweep --from SRC --to DST [options] [--threads N] [--shard I/N] [-o FILE]

Converts every input of SRC (up to 32 bits) on every core and writes the run table
(vectors/README.md 5): one "FIRST OUT FLAGS" line per run of inputs with equal results.
)",
     .after_options = After::formats},
    {.name = "merge",
     .run = cmd_merge,
     .text = R"(usage: softmx merge [-o FILE] TABLE...

Joins the run tables of shards of one sweep (same header, adjacent ranges, in any order)
into one canonical table.
)"},
    {.name = "diff",
     .run = cmd_diff,
     .text = R"(usage: softmx diff [--max-ranges N] TABLE-A TABLE-B

Where two run tables over the same inputs disagree: each maximal range of inputs with one
pair of different results, both decomposed, and for its first input what softmx computes
under each table's header and why.
)",
     .status = R"(exit status: 0 the tables agree; 1 they differ; 2 bad usage or input
)"},
    {.name = "verify",
     .run = cmd_verify,
     .text = R"(usage: softmx verify [--max-errors N] [--json] [--threads N] [--accept-unproven] [--expect-cases N]
                     [--model M] [--acc A] [--dialect D] [--round R] [--sat S] [--tininess T]
                     [--scale RULE] RESULTS

Checks a device's results (a vector file with results, or a run table; '-' for stdin)
against softmx under the file's header, line by line: each disagreement decomposed, with
the settings that would give the device's result; then the summary, the file's
completeness (every case present, once, in order) and the verdict. A pass needs every
line to agree and completeness PROVEN: the cases regenerated from the header's level and
seed (the header's own cases and inputs-sha256 cannot vouch for the file), or a run
table's first..last (docs/VECTORS.md).
)",
     .status = R"(exit status: 0 pass; 1 fail (a disagreement, or a case missing, extra, duplicated or out of
order, or a header whose cases or inputs-sha256 are not the regenerated list's); 2 bad usage
or input; 3 unproven (no disagreement, completeness not proven; see --accept-unproven)
)"},
    {.name = "identify",
     .run = cmd_identify,
     .text = R"(usage: softmx identify [--top N] [--exact N] [--max-errors N] [--threads N] RESULTS

Which implementation a device matches: every setting softmx models for the file's operation
(dialect x rounding x saturation, x scale rule, x accumulation model, x tininess) scored by
the cases (inputs) it agrees on; the best named, with how it differs from the header and
what it still disagrees on.
)",
     .status = R"(exit status: 0 the best setting agrees everywhere and the file is proven complete; 1 the
best disagrees somewhere, or the file is incomplete; 2 bad usage or input; 3 the best agrees
everywhere but completeness is unproven (see --accept-unproven)
)"},
    {.name = "report",
     .run = cmd_report,
     .text = R"(usage: softmx report [-o REPORT.html] [--identify FILE]... [--diff TABLE-A TABLE-B]...
                     [--max-failures N] [--threads N] [--accept-unproven] [--expect-cases N]
                     [--title TEXT] [--json] FILE...

The certificate: one self-contained HTML page (inline SVG plots, no script, no fetch) for
the people who sign off a unit. Each FILE (a results file of any operation, or a run table)
is verified as `softmx verify FILE` verifies it, each --identify FILE identified as `softmx
identify FILE` does, each --diff pair compared as `softmx diff` does. The page holds the
verdict, the provenance (softmx's version and build, this command, each file's SHA-256 and
header, the date), how completeness was established, the checked and failed counts per class
of input (normal, subnormal, overflow, zero, NaN, Inf, ties), plots of where the failures lie
over the input domain, of the ulp errors and of identify's scores, the first failures with
their explanations, and the commands that reproduce it (docs/REPORT.md). The library computes
every number; the page is drawn by python/softmx/_report_render.py (Debian's python3 with
python3-matplotlib and python3-jinja2), found beside the build tree or the source tree, or
named by $SOFTMX_REPORT_RENDERER ($SOFTMX_PYTHON: the interpreter).
)",
     .status = R"(exit status: the verdict's, as verify's: 0 every input passes; 1 any fails (a verify or identify
failure, or a diff that differs); 3 none fails but one is unproven; 2 bad usage or input (the
file and line named), or a page that cannot be drawn (no renderer: its message says what to
install) or written
)"},
    {.name = "recipe",
     .run = cmd_recipe,
     .text = R"(usage: softmx recipe NAME --shape D0xD1[x...] [--from f32|bf16|f16] [--binary] [options] [-o OUT] [FILE|-]
       softmx recipe NAME --shape D0xD1[x...] [--from f32|bf16|f16] --seed S [options] [-o OUT]
       softmx recipe --list

Quantizes a tensor with one of TransformerEngine's recipes (docs/RECIPES.md): te-fp8-current,
te-fp8-block, te-mxfp8, te-nvfp4 (TE's class names work too). Reads the tensor, row-major,
from FILE (or stdin): raw hex codes of --from, whitespace-separated, or with --binary
little-endian codes of 4 (f32) or 2 (bf16, f16) bytes. An N-d shape is flattened to M x K as
TE does. Writes a "# recipe" line with the resolved settings, then for each output a
"# rowwise" or "# columnwise" line (rows, cols, element, block, scale_format, scale_shape,
amax, tensor_scale, tensor_scale_inv as f32 bits; flags) and its matrices, each a title line
"DIRECTION codes|scales|multipliers|rht_input RxC" then one row per line in raw hex: element
codes, scales (f32 scale_inv, E8M0 or E4M3), the f32 multiplier of each block, and the bf16
RHT input of a columnwise NVFP4 output with the random Hadamard transform.
)"},
    {.name = "recipes",
     .run = cmd_recipes,
     .text = R"(usage: softmx recipes

TransformerEngine's quantization recipes softmx models: name, TE class, summary
(softmx recipe NAME runs one; docs/RECIPES.md).
)"},
    {.name = "layout",
     .run = cmd_layout,
     .text = R"(usage: softmx layout encode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]
       softmx layout decode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]
       softmx layout size --layout L --shape RxC [--operand a|b]
       softmx layout index --layout L --shape RxC [--operand a|b] [--transposed 0|1] R C

The memory layouts GEMM consumers read block scales in (docs/RECIPES.md 6; Python:
softmx.swizzle_scales, unswizzle_scales, scale_layout_size, scale_layout_index, pad_scales,
unpad_scales).
S is the scale matrix, R x C one-byte codes (E8M0 or E4M3), row-major: a row per row of the
operand along M (A) or N (B), a column per block along K. encode reads S from FILE (or stdin)
as hex codes (2 digits, whitespace-separated) or with --binary raw bytes, and writes the
layout's buffer, padding included: hex, 16 bytes a line, or with --binary-out the bytes.
decode reads the buffer (exactly size bytes) and writes S, one row a line. size prints the
buffer's bytes; index the offset of S[R][C] (R, C may lie in the padding).

layouts:
  cublas-128x4           cuBLAS/cuDNN 128x4 tiles (aliases swizzled-128x4, 128x4): S padded
                         to 128*ceil(R/128) x 4*ceil(C/4) with --pad (default 00); S[r][c] at
                         ((r/128)*ceil(C/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4
  torchao                torchao's to_blocked / from_blocked (alias to_blocked): the same
                         bytes, padding 00
  paired                 the seed-003 generator's a_scale.bin / b_scale.bin: --operand a (S is
                         m x nb) or b (S is nb x n), --transposed trans_a / trans_b; nb padded
                         to even with 7F (E8M0 1.0)
  te-padded              TransformerEngine's compact scale tensor: S, transposed first with
                         --transposed 1, padded with --pad to multiples of --multiple, one
                         padded row a line; decode crops the padding (never read) and
                         transposes back; size gives the padded tensor's codes
)"},
    {.name = "torchmx",
     .run = cmd_torchmx,
     .text = R"(usage: softmx torchmx quantize-mx --elem NAME --shape D0x..xDn [--block K] [--path P] [--to-dtype T]
                         [--binary] [-o OUT] [FILE|-]
       softmx torchmx to-mx (options as quantize-mx)
       softmx torchmx dequantize-mx --elem NAME --data-shape SHAPE --scale-shape SHAPE --scales FILE
                         [--block K] [--target T] [--block-dim D] [--binary] [-o OUT] [FILE|-]
       softmx torchmx matmul --elem NAME [--elem-b NAME] --shape MxK --shape-b KxN [--block K]
                         [--path P] [--acc A] [--binary] [-o OUT] A B
       softmx torchmx linear (as matmul, --shape-b NxK: C = A W^T) [--bias FILE] A W

rain-neuromorphics/torchmx's own entry points, bit for bit (docs/DIALECTS.md "torchmx";
Python: softmx.torchmx_quantize_mx, torchmx_to_mx, torchmx_dequantize_mx, TorchmxTensor.to_dtype,
torchmx_matmul, torchmx_linear). Tensors are read as bf16 codes (4 hex digits, whitespace-
separated; with --binary 2 little-endian bytes), row-major; blocks run along the last dimension.
  quantize-mx    torchmx.quantize_mx(data_hp, elem_dtype_name, block_size): the last dimension
                 a multiple of K. Writes a "# torchmx" header, then "scale SHAPE" (E8M0) and
                 "data SHAPE" (data_lp bytes: FP4 two codes a byte, element 2i in the high
                 nibble; int8 two's complement), one row of the last dimension a line in hex
  to-mx          MXTensor.to_mx: each row padded with +0.0 to a multiple of K first
  dequantize-mx  torchmx.dequantize_mx on arbitrary bytes: data_lp from FILE (hex bytes),
                 the scale from --scales FILE; writes "dequantized SHAPE to=T flags=FF"
  matmul         torch.matmul of two MXTensors (A [M,K] and B [K,N], each to_mx along its
                 last dimension): "c MxN", bf16 codes
  linear         F.linear(A, W, bias): A [M,K], W [N,K], an optional bf16 bias of N values
)"},
    {.name = "pychop",
     .run = cmd_pychop,
     .text = R"(usage: softmx pychop quantize --shape D0x..xDn [--from f64|f32] [--format KEY|E,S | --spec SPEC]
                      [--block K] [--scale-exp-bits B] [--scale-sig-bits B] [--backend B]
                      [--numpy 2|1] [--binary] [-o OUT] [FILE|-]
       softmx pychop specs

inEXASCALE/pychop's mx_quantize, bit for bit (docs/DIALECTS.md "pychop"; Python:
softmx.pychop_mx_quantize, pychop_spec, pychop_specs). quantize reads f64 (16 hex digits) or f32
(8) codes, row-major (--binary: little-endian bytes); pychop flattens the array into blocks,
padded with +0.0. Writes a "# pychop" header (the resolved spec), "values SHAPE" (what
mx_quantize returns, in the dtype NumPy's promotion gives), "scales N" (E8M0, one per block),
"codes BxK" (the element codes, one block a line), "uncoded N" (flat indices whose value no
element code carries: NaN into a format without NaN, MXINT8 -0), and "statistics"
(MXTensor.statistics(), one key a line; floats as Python prints them). specs lists MX_FORMATS.
)"},
    {.name = "formats",
     .run = cmd_formats,
     .text = R"(usage: softmx formats
       softmx formats SPEC

Without SPEC: the formats a user can name: the 11 named formats and the runtime formats with
a name (width, exponent and mantissa bits, bias, sign, special values, largest finite,
smallest normal and subnormal), every alias and the spec it reads as, and the spec grammar
with examples (docs/SEMANTICS.md 1.2, docs/FORMATS.md). With SPEC (any spec convert takes):
that format: what it is an alias of, its canonical spec and aliases, fields, specials and
their codes, max finite, min normal and subnormal, whether it is an MX element, and what
overflow gives by default.

Default saturation (without --sat; SEMANTICS 4.1): none (overflow to Inf) into f64 f32 f16
bf16 and runtime formats with Inf (e3m4, e4m3ieee, ue5m3); the dialect's into the MX formats,
e8m0 and runtime formats without Inf (fn, fnuz, none; ocp: finite).

IEEE P3109 formats (interim report v4.0; docs/FORMATS.md 5): binary{K}p{P}{s|u}{e|f}, such
as binary8p3se, binary8p4uf: K the bitwidth (2..16), P the precision (1..K-1 signed, 1..K
unsigned), s|u signed or unsigned, e|f extended (+-Inf) or finite domain; case-insensitive
(the draft's Binary8p3se). One NaN, no -0. Refused: binary2p1se (no finite non-zero value)
and formats of more than 8 exponent bits (K - P > 8 signed, K - P + 1 > 8 unsigned: values
beyond softmx's exponent range). Convert into them with --dialect p3109 (its defaults:
NearestTiesToEven, SatNone; --sat propagate is SatPropagate).
)"},
    {.name = "dialects",
     .run = cmd_dialects,
     .text = R"(usage: softmx dialects

The dialects with their policies: NaN handling, default rounding and saturation per
destination, scale rule, and their sources.
)",
     .then = Then::dialect_list},
    {.name = "models",
     .run = cmd_models,
     .text = R"(usage: softmx models [QUERY...]

Which tensor-core model computes the instruction you run: architecture x instruction x
elements x accumulator -> model, with an alias naming the model by its instruction and the
evidence behind each row (captures that confirm it, or the simulator it rests on). QUERY
words keep the rows that hold all of them (case-insensitive; sm90 finds sm_90, mma-sync
finds mma.sync): softmx models B200 mma.sync; softmx models H100 wgmma. Every name and
alias is taken wherever a model is (gen mma --model, dot --acc, verify --model, a
vector file's model key); files spell the model's name.
)",
     .then = Then::model_table},
    {.name = "help",
     .text = R"(usage: softmx help [CMD]

The help of command CMD (the same as softmx CMD --help), or without CMD the overview.
)",
     .then = Then::command_list, .status = R"(exit status: 0 success; 2 an unknown CMD
)"},
};
// clang-format on

}  // namespace

const std::vector<std::string_view>& command_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const CommandText& c : kCommands) v.push_back(c.name);
    return v;
  }();
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

CommandFn* command_function(std::string_view cmd) {
  for (const CommandText& c : kCommands)
    if (c.name == cmd) return c.run;
  return nullptr;
}

std::optional<std::string> command_help(std::string_view cmd) {
  const std::string models = tensor_core_instruction_table(find_tensor_core_instructions(""));
  for (const CommandText& c : kCommands) {
    if (c.name != cmd) continue;
    std::string s(c.text);
    if (c.then == Then::dialect_list) s += "dialects: " + joined_names(all_dialects(), ", ") + "\n";
    if (c.then == Then::command_list) s += "commands: " + command_list() + "\n";
    if (c.then == Then::model_table) s += "\n" + models;
    s += "\n" + options_help(c.name) + "\n";
    if (c.after_options != After::none)
      s += "formats: " + joined_names(all_formats(), " ") + ", or a spec (softmx formats lists every name)\n";
    if (c.after_options == After::formats_and_models)
      s += "tensor-core models by instruction (softmx models QUERY filters; docs/TENSOR_CORES.md 3):\n" + models + "\n";
    return s + std::string(c.status);
  }
  return std::nullopt;
}

}  // namespace softmx::cli
