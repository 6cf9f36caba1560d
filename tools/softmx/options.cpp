// tools/softmx/options.cpp: see options.hpp. The tables, one per subcommand, in the order the
// help shows their rows.
#include "options.hpp"

#include <algorithm>
#include <map>

#include "softmx/dialect.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::cli {
namespace {

// The tensor-core model names from the library (tensor_core_model_names), after `text` (whose
// last line ends at column `col` of the help) and wrapped at the help's 95 columns, so a new
// model shows up in --acc's and --model's help without an edit. Continuation lines are given
// without the 25 columns of indentation (options_help adds them).
std::string with_model_names(std::string out, std::size_t col) {
  const std::string names = softmx::tensor_core_model_names() + ",";
  for (std::size_t at = 0; at < names.size();) {
    const std::size_t comma = names.find(',', at);
    std::string word = names.substr(at, comma - at);
    if (!word.empty() && word.front() == ' ') word.erase(0, 1);
    if (comma + 1 < names.size()) word += ",";
    if (col + 1 + word.size() > 95) {
      out += "\n";
      col = 24;
      out += word;
    } else {
      out += " " + word;
    }
    col += 1 + word.size();
    at = comma + 1;
  }
  return out + "\n";
}

Option acc_row() {
  return {"acc", Arg::value, "MODEL",
          with_model_names("accumulation: exact (default), fp32-sequential, mxdotp (the MXDOTP\n"
                           "unit: docs/BLOCKS.md 5.2), or a tensor-core model (it fixes its\n"
                           "own rounding):",
                           58) +
              "or an instruction's alias; which model your GPU's instruction is:\n"
              "softmx models QUERY (softmx models B200 mma.sync f32)"};
}

Option out_row(std::string help = "write FILE (atomically, by rename; '-' or none: standard output)") {
  return {"out", Arg::value, "", std::move(help), "-o FILE, --out FILE"};
}

/// The conversion options convert, explain, quantize, dequantize, sweep and gen share.
std::vector<Option> conversion_rows(bool rbits) {
  std::vector<Option> r = {
      {"round", Arg::value, "MODE",
       "rounding: rne (default), rna, rz, ru, rd, ro, rs (stochastic); the\n"
       "dialect may default otherwise (softmx dialects); IEEE P3109's names\n"
       "too: NearestTiesToEven, NearestTiesToAway, TowardZero, TowardPositive,\n"
       "TowardNegative, ToOdd, StochasticA|B|C (rs, P3109 4.7.4)"},
      {"sat", Arg::value, "finite|none|propagate",
       "saturation (default: the destination's: none, overflow to Inf,\n"
       "into f64 f32 f16 bf16 and runtime formats with Inf (e3m4, e4m3ieee);\n"
       "the dialect's into the MX formats, e8m0 and other runtime formats\n"
       "(ocp: finite; softmx dialects); blocks: the dialect's element\n"
       "saturation). propagate (P3109's SatPropagate, dialect p3109 only):\n"
       "finite overflow gives max finite, Inf stays Inf; P3109's names\n"
       "SatFinite, SatNone, SatPropagate are read too"},
      {"dialect", Arg::value, "NAME", joined_names(all_dialects(), ", ") + "\n(default ocp; softmx dialects lists their policies)"},
      {"tininess", Arg::value, "after|before|after-bounded", "underflow detection (default after; SEMANTICS 5.3)"},
  };
  if (rbits) r.push_back({"rbits", Arg::value, "R", "random bits per value for --round rs, 1..64 (default 32)"});
  return r;
}

std::vector<Option> operator+(std::vector<Option> a, const std::vector<Option>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

using Table = std::map<std::string, std::vector<Option>, std::less<>>;

Table make_tables() {
  Table t;
  t["convert"] = std::vector<Option>{
                     {"from", Arg::value, "SRC", "the source format (raw codes); without it the inputs are VALUEs"},
                     {"to", Arg::value, "DST", "the destination format (required)"},
                 } +
                 conversion_rows(true) +
                 std::vector<Option>{{"random", Arg::value, "HEX", "the random bits for VALUE arguments under --round rs"}};
  t["explain"] = std::vector<Option>{
                     {"from", Arg::value, "SRC", "VALUE is a raw code (HEX) of SRC; without it a decimal or hex float"},
                     {"to", Arg::value, "DST", "the destination format (required)"},
                 } +
                 conversion_rows(true) +
                 std::vector<Option>{{"wide", Arg::flag, "",
                                      "the results table as one table, a column for every dialect (by\n"
                                      "default every line fits 100 columns: the table comes in parts, and\n"
                                      "the dialects that give no result are named on one line)"}};
  t["quantize"] =
      std::vector<Option>{
          {"to", Arg::value, "FMT",
           "the element format (required): a named MX element, a runtime spec of\n"
           "at most 8 bits (e1m2, e2m2, e4m3fnuz, int4, ...), or nvfp4"},
          {"from", Arg::value, "SRC", "the source format of the codes (default f32)"},
          {"block", Arg::value, "K", "elements per block (default 32; nvfp4: 16)"},
          {"scale", Arg::value, "RULE", "block scale rule: floor, ceil, even, rceil (default: the dialect's)"},
          {"scale-format", Arg::value, "SPEC",
           "the scale format: e8m0 (default), or a float spec of at most 32 bits\n"
           "(ue4m3, ue5m3, e4m3, bf16, f16, f32, ...): scale = amax / max_E rounded\n"
           "to nearest (saturating), each element x / scale rounded once\n"
           "(BLOCKS.md 1.2); the SCALE field has its hex digits (f32: 8)"},
      } +
      conversion_rows(true) +
      std::vector<Option>{
          {"global-amax", Arg::value, "HEX", "nvfp4: the tensor's amax (f32 bits); one pass over any input, a pipe too"},
          {"nvfp4-multiplier", Arg::value, "M", "nvfp4: division or reciprocal-product (how the scale is applied)"},
      };
  t["dequantize"] = std::vector<Option>{
                        {"from", Arg::value, "FMT", "the element format (required): as quantize's --to, or nvfp4"},
                        {"to", Arg::value, "DST", "the output format (default f32)"},
                        {"block", Arg::value, "K", "elements per block (default 32; nvfp4: 16)"},
                        {"scale-format", Arg::value, "SPEC",
                         "the format of the SCALE fields: e8m0 (default), ue4m3, ue5m3, bf16,\n"
                         "f16, f32, ... (its hex digits: f32 8)"},
                    } +
                    conversion_rows(false) +
                    std::vector<Option>{{"encode-scale", Arg::value, "HEX",
                                         "nvfp4: the per-tensor encode scale (f32 bits) when the input has no\n"
                                         "\"# nvfp4\" line"}};
  t["dot"] = {
      {"a", Arg::value, "",
       "the element formats of A and B (required): a named MX element\n"
       "format or a runtime spec of at most 8 bits (e1m2, e2m2,\n"
       "e4m3fnuz, int4; runtime elements take --acc exact or\n"
       "fp32-sequential)",
       "--a FMT, --b FMT"},
      {"b", Arg::value, "", ""},
      {"block", Arg::value, "K", "elements per block (default 32)"},
      {"blocks", Arg::value, "N", "block pairs per line (default 1)"},
      acc_row(),
      {"to", Arg::value, "f32|f16|bf16",
       "the format of the result and of C (default f32); a tensor-core\n"
       "model's f16 is its f16 accumulator, bf16 it refuses"},
      {"addend", Arg::flag, "",
       "each line ends in C, a code of --to (f32: 8 hex digits, f16 and\n"
       "bf16: 4) after the pairs: D = the sum of the products + C, rounded\n"
       "once (exact), C the initial accumulator (fp32-sequential), the\n"
       "model's C (tensor-core models); docs/BLOCKS.md 5"},
      {"round", Arg::value, "MODE", "rounding of the result (default rne; not rs)"},
      {"sat", Arg::value, "finite|none",
       "saturation of the result (default none: overflow to Inf, as into\n"
       "every f32, f16 and bf16 destination)"},
      {"tininess", Arg::value, "after|before|after-bounded", "underflow detection (default after; SEMANTICS 5.3)"},
      {"scale-format", Arg::value, "SPEC",
       "the format of the SCALE fields: e8m0 (default), ue4m3, ue5m3, e4m3,\n"
       "bf16, f16, f32, ... (its hex digits; docs/BLOCKS.md 1.2 and 5); other\n"
       "than e8m0: --acc exact or fp32-sequential, and ue4m3 also\n"
       "blackwell-mxf4 and blackwell-nvf4"},
  };
  // gemm-golden has two modes: MX golden data ("mx") and --layout lut-argmin, the seed-003
  // generator's files (cmd_gemm_lut.cpp); each takes the rows whose `only` is empty or names it.
  Option gemm_acc = acc_row();
  gemm_acc.only = "mx";
  t["gemm-golden"] = {
      {"out", Arg::value, "DIR", "the folder to write (required; lut-argmin: also -o DIR)"},
      {"m", Arg::value, "", "the shape (defaults 64, 64, 256)", "--m M, --n N, --k K"},
      {"n", Arg::value, "", ""},
      {"k", Arg::value, "", ""},
      {"a", Arg::value, "",
       "the element formats (default e2m1): a named MX element format\n"
       "or a runtime spec of at most 8 bits (e1m2, e2m2, e4m3fnuz,\n"
       "int4; runtime elements take --acc exact or fp32-sequential);\n"
       "lut-argmin: e2m1 or e1m2 (the generator's FP4 tables)",
       "--a FMT, --b FMT"},
      {"b", Arg::value, "", ""},
      {"block", Arg::value, "K", "elements per block (default 32)", "", "mx"},
      {"seed", Arg::value, "S", "the PRNG seed, 0..2^64-1 (default 1)"},
      {"scale", Arg::value, "RULE", "block scale rule: floor, ceil, even, rceil (default: the dialect's)", "", "mx"},
      {"dialect", Arg::value, "NAME", joined_names(all_dialects(), ", ") + " (default ocp)", "", "mx"},
      gemm_acc,
      {"round", Arg::value, "MODE", "rounding of the quantization (default: the dialect's)", "", "mx"},
      {"sat", Arg::value, "finite|none",
       "saturation of the quantization (default: the dialect's element\n"
       "saturation, ocp: finite); C is f32 (overflow to Inf)",
       "", "mx"},
      {"scale-format", Arg::value, "SPEC",
       "e8m0 (default); ue4m3: UE4M3 block scales (docs/BLOCKS.md 1.2), for\n"
       "--acc blackwell-mxf4 and blackwell-nvf4 (the models that read them),\n"
       "exact and fp32-sequential (BLOCKS.md 5); any other scale format\n"
       "(ue5m3, bf16, f16, f32, ...) for exact and fp32-sequential, its\n"
       "scale files holding codes of 1, 2 or 4 bytes (little-endian)",
       "", "mx"},
      {"threads", Arg::value, "N", "threads for C, 1..1024 (default: every core; the same bytes)", "",
       "mx"},
      {"", Arg::none, "", "--layout lut-argmin (the seed-003 MX-FP4 generator's data/input and data/golden):"},
      {"layout", Arg::value, "lut-argmin", "write the generator's files instead (with --m, --n, --k, --a, --b,\n--seed, --out and these)",
       "", "lut-argmin"},
      {"trans-a", Arg::value, "0|1", "lut-argmin: whether A is stored transposed (default 0)", "", "lut-argmin"},
      {"trans-b", Arg::value, "0|1", "lut-argmin: whether B is stored transposed (default 0)", "", "lut-argmin"},
      {"log2", Arg::value, "rounded|exact", "lut-argmin: the scales' log2: rounded (default; f32) or exact", "",
       "lut-argmin"},
  };
  t["gen"] = std::vector<Option>{
                 {"level", Arg::value, "1|2", "1 (default): exhaustive or structured cases; 2 adds random ones"},
                 {"seed", Arg::value, "S", "the PRNG seed of level 2, 0..2^64-1 (default 1)"},
                 {"count", Arg::value, "N", "level 2: the number of random cases"},
                 {"inputs-only", Arg::flag, "", "operands only (what a device under test reads)"},
                 {"export", Arg::value, "readmemh", "$readmemh words, the header as // comments"},
                 out_row(),
                 {"from", Arg::value, "",
                  "\nas for convert, quantize, dequantize and dot (softmx help CMD); an\n"
                  "option its OPERATION does not take is an error",
                  "--from, --to, --a, --b, --block, --blocks, --scale, --acc:"},
                 {"a", Arg::value, "", ""},
                 {"b", Arg::value, "", ""},
                 {"block", Arg::value, "", ""},
                 {"blocks", Arg::value, "", ""},
                 {"scale", Arg::value, "", ""},
                 {"acc", Arg::value, "", ""},
                 {"", Arg::none, "",
                  "an MX element: e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime\n"
                  "spec of at most 8 bits (e1m2, e2m2, e4m3fnuz, int4,\n"
                  "e4m3:bias=11:specials=fnuz; the header names its canonical spec);\n"
                  "mma takes the named elements only",
                  "ELEM"},
                 {"accumulator", Arg::value, "f32|f16", "mma: the accumulator format (default f32)"},
                 {"addend", Arg::value, "yes|no",
                  "mma: whether C is added (default yes); dot: whether each line\n"
                  "carries C after its pairs (default no)"},
                 {"to", Arg::value, "f32|f16|bf16", "dot: the format of OUT and C (default f32)"},
                 {"model", Arg::value, "NAME",
                  with_model_names("mma: the tensor-core model (default hopper-fp8-mma):", 77) +
                      "or an instruction's alias (softmx models: H100 wgmma is sm90-wgmma)"},
                 {"scale-format", Arg::value, "none|ue8m0|ue4m3",
                  "\nmma: the block scales (default: the model's instruction:\n"
                  "blackwell-mxf8f6f4 and blackwell-mxf4 ue8m0, blackwell-nvf4\n"
                  "ue4m3, the others none)"},
                 {"scale-block", Arg::value, "S",
                  "mma: products per scale, dividing K (default 32; blackwell-nvf4\n"
                  "16); --block defaults to 64 for blackwell-mxf4 and -nvf4"},
                 {"", Arg::none, "", "conversion options:"},
             } +
             conversion_rows(true);
  t["sweep"] = std::vector<Option>{
                   {"from", Arg::value, "", "the formats (required)", "--from SRC, --to DST"},
                   {"to", Arg::value, "", ""},
               } +
               conversion_rows(false) +
               std::vector<Option>{
                   {"threads", Arg::value, "N", "threads, 1..1024 (default: every core)"},
                   {"shard", Arg::value, "I/N", "only shard I (from 0) of N equal input ranges"},
                   out_row(),
               };
  t["merge"] = {out_row()};
  t["diff"] = {{"max-ranges", Arg::value, "N", "ranges shown (default 50)"}};
  t["verify"] = {
      {"max-errors", Arg::value, "N", "disagreements shown (default 20)"},
      {"json", Arg::flag, "", "the report as JSON on standard output"},
      {"threads", Arg::value, "N", "threads for a run table, 1..1024 (default: every core)"},
      {"accept-unproven", Arg::flag, "",
       "take a file whose completeness cannot be proven (no level and seed;\n"
       "a legacy level-2 file without cases) as a pass, saying so"},
      {"expect-cases", Arg::value, "N",
       "the file must hold N cases, whatever its header says (level 2: the\n"
       "count of the set that was sent to the device)"},
      {"", Arg::none, "",
       "settings that replace the header's for the check (the file is not changed; the report\n"
       "names each one):"},
      {"model", Arg::value, "M", "mma: the tensor-core model; dot: the accumulation model"},
      {"acc", Arg::value, "A", "dot: exact, fp32-sequential, mxdotp or a tensor-core model"},
      {"dialect", Arg::value, "D", "convert, quantize, dequantize: the dialect"},
      {"round", Arg::value, "R", "the rounding (rne rna rz ru rd ro; rs only for an rs file)"},
      {"sat", Arg::value, "S", "finite or none (without it: the header's, which a file always records)"},
      {"tininess", Arg::value, "T", "after, before or after-bounded"},
      {"scale", Arg::value, "RULE", "quantize: the scale rule (floor ceil even rceil)"},
  };
  t["identify"] = {
      {"top", Arg::value, "N", "scores listed (default 5)"},
      {"exact", Arg::value, "N", "run tables: groups checked on every input after sampling (default 3)"},
      {"max-errors", Arg::value, "N", "disagreements of the best setting shown (default 20)"},
      {"threads", Arg::value, "N", "threads, 1..1024 (default: every core)"},
      {"accept-unproven", Arg::flag, "", "identify a file whose completeness cannot be proven (exit 0, saying so)"},
  };
  // report: --identify and --diff may repeat, so cmd_report takes them out before parsing.
  t["report"] = {
      out_row("write the page to FILE (atomically, by rename; '-' or none: standard output)"),
      {"identify", Arg::value, "FILE", "identify FILE too (repeatable)"},
      {"diff", Arg::value, "", "compare run tables A and B too (repeatable)", "--diff A B"},
      {"max-failures", Arg::value, "N", "failures shown whole per input (default 20; every count is complete)"},
      {"threads", Arg::value, "N", "threads for run tables and identify, 1..1024 (default: every core)"},
      {"accept-unproven", Arg::flag, "", "as verify's and identify's: an unproven file passes, saying so"},
      {"expect-cases", Arg::value, "N", "as verify's, for every results file"},
      {"title", Arg::value, "TEXT", "the page's title (default \"softmx certificate\")"},
      {"json", Arg::flag, "",
       "write the report's data (the library's JSON, docs/REPORT.md) instead\n"
       "of the page: needs no Python"},
  };
  t["recipe"] = {
      {"shape", Arg::value, "D0xD1...", "the tensor's dimensions (required)"},
      {"from", Arg::value, "SRC", "f32 (default), bf16 or f16"},
      {"binary", Arg::flag, "", "FILE holds little-endian codes, not hex text"},
      {"role", Arg::value, "R", "input (default), weight or gradient: TE's per-tensor settings"},
      {"impl", Arg::value, "I",
       "kernel (default, TE's CUDA kernels), reference or custom-reference\n"
       "(TE's Python references)"},
      {"outputs", Arg::value, "O", "both (default), rowwise or columnwise"},
      {"fp8-format", Arg::value, "F", "e4m3 or hybrid (E5M2 for gradients; default: the recipe's)"},
      {"power-2-scale", Arg::value, "0|1", "FP8 recipes: round scales down to powers of two"},
      {"amax-epsilon", Arg::value, "HEX", "FP8 recipes: TE's amax_epsilon (f32 bits; default 00000000)"},
      {"amax", Arg::value, "HEX",
       "te-fp8-current, te-nvfp4: the tensor's amax (f32 bits), as after an\n"
       "all-reduce"},
      {"rht-amax", Arg::value, "HEX", "te-nvfp4 with RHT: the columnwise amax (f32 bits)"},
      {"tiles-2d", Arg::value, "0|1", "te-fp8-block 128x128, te-nvfp4 16x16 tiles (default: for weights)"},
      {"dialect", Arg::value, "NAME", "te-mxfp8: transformer-engine (default) or transformer-engine-2025"},
      {"random-hadamard", Arg::value, "0|1", "te-nvfp4: RHT of the columnwise input (default: inputs, gradients)"},
      {"rht-signs", Arg::value, "HEX", "te-nvfp4: the RHT sign mask, 4 hex digits (default D7E8, TE's)"},
      {"stochastic-rounding", Arg::value, "0|1", "te-nvfp4: stochastic rounding (default: gradients)"},
      {"stochastic-form", Arg::value, "F", "software (default, TE's fallback: one byte per element) or rs"},
      {"rbits", Arg::value, "R", "--stochastic-form rs: random bits per element, 1..64 (default 8)"},
      {"rbits-rowwise", Arg::value, "",
       "\nstochastic rounding: one random value per element of that output,\n"
       "row-major in its shape, hex (2 digits; rs: ceil(R/4))",
       "--rbits-rowwise FILE, --rbits-columnwise FILE"},
      {"rbits-columnwise", Arg::value, "", ""},
      {"layouts", Arg::flag, "",
       "also each output's \"te_scales\" (TE's compact scale tensor, padded\n"
       "with 0) and, te-mxfp8 and te-nvfp4, \"swizzled_scales\" (cuBLAS 128x4)"},
      {"dequantize", Arg::value, "DST",
       "also each output dequantized as TE does, into f32, bf16 or f16\n"
       "(title \"DIRECTION dequantized RxC to=DST flags=FF\")"},
      {"seed", Arg::value, "S",
       "make the input instead of reading FILE: the library's deterministic\n"
       "test tensor (recipe_test_input: finite, a new binade every 16 values,\n"
       "some zeros) from SplitMix64 seed S, 0..2^64-1; the header says seed=S"},
      {"list", Arg::flag, "", "list the recipes (as softmx recipes)"},
      out_row(),
  };
  t["layout"] = {
      {"layout", Arg::value, "L", "cublas-128x4, torchao, paired or te-padded (required)"},
      {"shape", Arg::value, "RxC", "S's rows and columns (required; size also takes 0)"},
      {"operand", Arg::value, "a|b", "paired: which operand's scales (required there)"},
      {"transposed", Arg::value, "0|1", "paired: trans_a / trans_b; te-padded: transpose S first (default 0)"},
      {"pad", Arg::value, "HEX",
       "encode, cublas-128x4 and te-padded: the padding code (2 hex digits;\n"
       "te-padded --scale-format f32: 8)"},
      {"multiple", Arg::value, "RMxCM",
       "te-padded: the padding multiples (required; TE MXFP8 rowwise 128x4,\n"
       "columnwise 4x128)"},
      {"scale-format", Arg::value, "F",
       "te-padded: e8m0 or e4m3 (default; 1-byte codes) or f32 (FP8 block\n"
       "scaling's scale_inv, 4-byte codes: 8 hex digits, --binary little-endian)"},
      {"binary", Arg::flag, "", "FILE holds raw bytes, not hex text"},
      {"binary-out", Arg::flag, "", "write raw bytes, not hex text"},
      out_row(),
  };
  t["torchmx"] = {
      {"elem", Arg::value, "NAME",
       "element dtype: float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1,\n"
       "int8 (torchmx has no e5m2); matmul/linear: A's"},
      {"elem-b", Arg::value, "NAME", "matmul/linear: B's (W's) element dtype (default --elem)"},
      {"shape", Arg::value, "D0x..xDn", "the input tensor's shape (matmul/linear: A's, MxK)"},
      {"shape-b", Arg::value, "SHAPE", "matmul: B's, KxN; linear: W's, NxK"},
      {"block", Arg::value, "K", "block_size, 1..65536 (default 32)"},
      {"path", Arg::value, "P", "simulated (default) or hardware-exact (MX_HARDWARE_EXACT_QUANTIZATION)"},
      {"to-dtype", Arg::value, "T", "quantize-mx/to-mx: also MXTensor.to_dtype(T), bf16 or f32"},
      {"target", Arg::value, "T", "dequantize-mx: target_dtype, bf16 (default) or f32"},
      {"block-dim", Arg::value, "D", "dequantize-mx: block_dim, -rank..rank-1 (default -1)"},
      {"data-shape", Arg::value, "SHAPE", "dequantize-mx: data_lp's shape (FP4: packed)"},
      {"scale-shape", Arg::value, "SHAPE", "dequantize-mx: the scale tensor's shape"},
      {"scales", Arg::value, "FILE", "dequantize-mx: the E8M0 scale bytes (hex, or --binary raw)"},
      {"acc", Arg::value, "A",
       "matmul/linear: exact-f32 (default; the exact sum rounded to f32, then\n"
       "bf16) or fp32-sequential (an f32 FMA per term in k order)"},
      {"bias", Arg::value, "FILE", "linear: the bias, N bf16 codes"},
      {"binary", Arg::flag, "", "the input files hold raw little-endian codes, not hex text"},
      out_row(),
  };
  t["pychop"] = {
      {"shape", Arg::value, "D0x..xDn", "the array's shape (required)"},
      {"from", Arg::value, "f64|f32", "the input dtype (default f64)"},
      {"format", Arg::value, "KEY|E,S",
       "mx_quantize's format: a key of MX_FORMATS (mxfp8_e4m3 (default),\n"
       "mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1, mxint8; any case) or\n"
       "an (exp_bits, sig_bits) tuple; a custom one is a runtime format\n"
       "without specials (e4m3:specials=none for 4,3; int4 for 0,3) of at\n"
       "most 8 bits (docs/DIALECTS.md pychop)"},
      {"spec", Arg::value, "E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]]",
       "\nan MXSpec from create_mx_spec (its block size wins over --block)"},
      {"block", Arg::value, "K",
       "mx_quantize's block_size, 1..65536 (default 32; the torch and jax\n"
       "backends keep a named format's 32)"},
      {"scale-exp-bits", Arg::value, "B", "the scale's exponent bits, 1..8 (default: the spec's, 8)"},
      {"scale-sig-bits", Arg::value, "B", "counted in the statistics only (default: the spec's, 0)"},
      {"backend", Arg::value, "B", "numpy (default), torch or jax"},
      {"numpy", Arg::value, "2|1", "NumPy's promotion rules: 2 (default, NEP 50) or 1 (float32 values)"},
      {"binary", Arg::flag, "", "FILE holds raw little-endian codes, not hex text"},
      out_row(),
  };
  for (const char* none : {"recipes", "formats", "dialects", "models", "help"}) t[none] = {};
  return t;
}

const Table& tables() {
  static const Table t = make_tables();
  return t;
}

bool takes(const Option& o, std::string_view mode) {
  if (o.only.empty()) return true;
  std::string_view rest = o.only;
  while (!rest.empty()) {
    const auto sp = rest.find(' ');
    if (rest.substr(0, sp) == mode) return true;
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  return false;
}

/// One row as the help shows it: the head in columns 3..24, the help from column 26, its
/// further lines indented to column 26 (a head wider than 22 columns: the help after two
/// spaces, or below it when the help starts with '\n').
std::string render(const Option& o) {
  if (o.name.empty() && o.head.empty()) return o.help + "\n";  // a heading
  if (o.help.empty()) return "";                                 // named in another row's head
  std::string head = "  " + (o.head.empty() ? "--" + o.name + (o.metavar.empty() ? "" : " " + o.metavar) : o.head);
  std::string s = head;
  std::string_view text = o.help;
  const std::string indent(25, ' ');
  if (text.front() == '\n') {
    text.remove_prefix(1);
    s += "\n" + indent;
  } else {
    s += head.size() < 25 ? std::string(25 - head.size(), ' ') : std::string(2, ' ');
  }
  for (std::size_t at = 0;;) {
    const auto nl = text.find('\n', at);
    s += text.substr(at, nl - at);
    s += "\n";
    if (nl == std::string_view::npos || nl + 1 == text.size()) break;
    s += indent;
    at = nl + 1;
  }
  return s;
}

}  // namespace

const std::vector<Option>& global_options() {
  static const std::vector<Option> g = {
      {"quiet-spec", Arg::flag, "",
       "no note on stderr for a spec that is not a named format or alias\n"
       "(\"softmx: note: 'e4m4' is not a named format; ...\"; softmx formats)"},
      {"help", Arg::flag, "", "this help", "-h, --help"},
  };
  return g;
}

const std::vector<Option>* command_options(std::string_view command) {
  const auto it = tables().find(command);
  return it == tables().end() ? nullptr : &it->second;
}

std::string options_help(std::string_view command) {
  std::string s = "options:\n";
  if (const auto* t = command_options(command))
    for (const Option& o : *t) s += render(o);
  for (const Option& o : global_options()) s += render(o);
  return s;
}

Args parse_command(const std::string& command, int argc, char** argv, int first, std::string_view mode, bool short_out) {
  std::vector<std::string_view> values, flags;
  if (const auto* t = command_options(command))
    for (const Option& o : *t)
      if (o.arg != Arg::none && takes(o, mode)) (o.arg == Arg::value ? values : flags).push_back(o.name);
  return short_out ? parse_args_short_out(command, argc, argv, first, values, flags)
                   : parse_args(command, argc, argv, first, values, flags);
}

Args parse_filter_command(const std::string& command, int argc, char** argv, std::string_view what) {
  Args a = parse_command(command, argc, argv, 2);
  if (!a.positionals.empty())
    throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (" + std::string(what) +
                     " are read from stdin)");
  return a;
}

}  // namespace softmx::cli
