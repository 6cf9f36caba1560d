// tools/softmx/cmd_torchmx.cpp: `softmx torchmx`, rain-neuromorphics/torchmx's own entry points
// (include/softmx/torchmx.hpp does the work; docs/DIALECTS.md "torchmx" and
// docs/research/torchmx.md are the specification). The same functions as Python's
// softmx.torchmx_quantize_mx, torchmx_to_mx, torchmx_dequantize_mx, TorchmxTensor.to_dtype,
// torchmx_matmul and torchmx_linear.
//
//   softmx torchmx quantize-mx|to-mx --elem NAME --shape D0x..xDn [--block K] [--path P]
//                  [--to-dtype bf16|f32] [--binary] [-o OUT] [FILE|-]
//     reads bf16 codes (4 hex digits each, or --binary 2 little-endian bytes) and writes
//     torchmx's (scale, data_lp): a "# torchmx" header, then "scale SHAPE" and "data SHAPE", one
//     row of the last dimension a line in hex; --to-dtype adds MXTensor.to_dtype's values.
//   softmx torchmx dequantize-mx --elem NAME --data-shape SHAPE --scale-shape SHAPE --scales FILE
//                  [--block K] [--target bf16|f32] [--block-dim D] [--binary] [-o OUT] [FILE|-]
//     dequantize_mx on arbitrary bytes: data_lp from FILE, the E8M0 scale bytes from --scales.
//   softmx torchmx matmul|linear --elem NAME [--elem-b NAME] --shape MxK --shape-b KxN|NxK
//                  [--block K] [--path P] [--acc exact-f32|fp32-sequential] [--bias FILE]
//                  [--binary] [-o OUT] A B
//     torch.matmul / F.linear of two MXTensors (each to_mx along its last dimension): bf16 out.
//
// The command only translates: options into the library's arguments, its std::invalid_argument
// into a usage error.
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/torchmx.hpp"
#include "softmx/vectors/output_file.hpp"
#include "tensor_io.hpp"

namespace softmx::cli {
namespace {

constexpr const char* kActions = "quantize-mx, to-mx, dequantize-mx, matmul or linear";

std::string elem_arg(const Args& a, const char* opt, bool required) {
  const auto v = a.get(opt);
  if (!v) {
    if (required)
      throw UsageError(std::string("missing --") + opt +
                       " NAME (torchmx's element dtype: float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1 or int8)");
    return {};
  }
  try {
    (void)torchmx_element(*v);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--") + opt + ": " + e.what());
  }
  return *v;
}

TorchmxPath path_arg(const Args& a) {
  const auto v = a.get("path");
  if (!v) return TorchmxPath::simulated;
  if (auto p = parse_torchmx_path(*v)) return *p;
  throw UsageError("--path expects simulated or hardware-exact (MX_HARDWARE_EXACT_QUANTIZATION=True), got " + quote(*v, '\''));
}

FormatId target_arg(const Args& a, const char* opt) {
  const auto v = a.get(opt);
  if (!v) return FormatId::bf16;
  if (*v == "bf16" || *v == "bfloat16") return FormatId::bf16;
  if (*v == "f32" || *v == "float32") return FormatId::f32;
  throw UsageError(std::string("--") + opt + " expects bf16 or f32 (torchmx dequantizes to those), got " + quote(*v, '\''));
}

std::vector<std::size_t> dims_arg(const Args& a, const char* opt, const char* what) {
  const auto v = a.get(opt);
  if (!v) throw UsageError(std::string("missing --") + opt + " " + what);
  return parse_dims(*v, opt);
}

/// Refuses the options `action` does not read (named, not ignored).
void refuse(const Args& a, const std::string& action, std::initializer_list<const char*> opts) {
  for (const char* o : opts)
    if (a.get(o)) throw UsageError(std::string("--") + o + " does not apply to torchmx " + action);
}

std::vector<std::uint16_t> read_bf16(InputStream& in, const std::vector<std::size_t>& shape, bool binary, const std::string& opt) {
  const auto v = read_tensor_codes(in, format(FormatId::bf16), element_count(shape), binary,
                                   "bf16 codes, " + opt + " " + dims_text(shape));
  return std::vector<std::uint16_t>(v.begin(), v.end());
}

/// to_dtype's values of `t` into `target`, written as a section.
void write_to_dtype(vec::OutputFile& out, const TorchmxTensor& t, FormatId target, const char* title) {
  const bool f32 = target == FormatId::f32;
  const std::size_t n = element_count(t.shape);
  std::vector<std::uint32_t> v32(f32 ? n : 0);
  std::vector<std::uint16_t> v16(f32 ? 0 : n);
  const Flags f = library_call([&] { return torchmx_to_dtype(t, target, f32 ? static_cast<void*>(v32.data()) : v16.data()); });
  const std::string note = " to=" + std::string(format(target).name) + " flags=" + hex(f, 2);
  if (f32) write_rows(out, title, t.shape, v32, 8, note);
  else write_rows(out, title, t.shape, v16, 4, note);
}

std::string header(const std::string& what, const TorchmxTensor& t, TorchmxPath p) {
  return "# torchmx " + what + " elem=" + std::string(torchmx_element_name(t.element)) + " block=" +
         std::to_string(t.block_size) + " path=" + std::string(name(p)) + " shape=" + dims_text(t.shape) +
         " padding=" + std::to_string(t.padding) + " flags=" + hex(t.flags, 2) + "\n";
}

int quantize(const Args& a, bool to_mx) {
  const std::string action = to_mx ? "to-mx" : "quantize-mx";
  refuse(a, action, {"elem-b", "shape-b", "target", "block-dim", "data-shape", "scale-shape", "scales", "acc", "bias"});
  const std::string elem = elem_arg(a, "elem", true);
  const std::vector<std::size_t> shape = dims_arg(a, "shape", "D0x..xDn (the bf16 tensor's shape; blocks along the last)");
  const std::size_t block = static_cast<std::size_t>(parse_count(a, "block", 32, 65536));
  const TorchmxPath path = path_arg(a);
  const bool dtype = a.get("to-dtype").has_value();
  const FormatId target = target_arg(a, "to-dtype");
  if (a.positionals.size() > 2) throw UsageError("unexpected argument " + quote(a.positionals[2], '\'') + " (one FILE, or - for stdin)");
  const bool binary = a.has_switch("binary");
  InputStream in(a.positionals.size() > 1 ? std::optional<std::string>(a.positionals[1]) : std::nullopt, binary);
  const std::vector<std::uint16_t> x = read_bf16(in, shape, binary, "--shape");
  const TorchmxTensor t = library_call([&] {
    return to_mx ? torchmx_to_mx(x.data(), shape, elem, block, path) : torchmx_quantize_mx(x.data(), shape, elem, block, path);
  });
  vec::OutputFile out(a.get("out").value_or(std::string(vec::kStandardOutput)));
  out.text() += header(to_mx ? "to_mx" : "quantize_mx", t, path);
  write_rows(out, "scale", t.scale_shape, t.scale, 2);
  write_rows(out, "data", t.data_shape, t.data, 2);
  if (dtype) write_to_dtype(out, t, target, "to_dtype");
  out.commit();
  return 0;
}

int dequantize(const Args& a) {
  refuse(a, "dequantize-mx", {"elem-b", "shape", "shape-b", "path", "to-dtype", "acc", "bias"});
  const std::string elem = elem_arg(a, "elem", true);
  const std::vector<std::size_t> dshape = dims_arg(a, "data-shape", "D0x..xDn (data_lp's shape, FP4 packed)");
  const std::vector<std::size_t> sshape = dims_arg(a, "scale-shape", "S0x..xSn (the E8M0 scale tensor's shape)");
  const std::size_t block = static_cast<std::size_t>(parse_count(a, "block", 32, 65536));
  const FormatId target = target_arg(a, "target");
  const long rank = static_cast<long>(dshape.size());
  long block_dim = -1;
  if (const auto v = a.get("block-dim")) {
    const std::string digits = !v->empty() && (*v)[0] == '-' ? v->substr(1) : *v;
    if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError("--block-dim expects an integer dimension of data_lp, -" + std::to_string(rank) + " to " +
                       std::to_string(rank - 1) + ", got " + quote(*v, '\''));
    block_dim = std::stol(*v);
  }
  if (block_dim < -rank || block_dim >= rank)
    throw UsageError("--block-dim " + std::to_string(block_dim) + " is out of range for --data-shape " + dims_text(dshape) +
                     " (expected -" + std::to_string(rank) + " to " + std::to_string(rank - 1) + ")");
  if (block_dim < 0) block_dim += rank;
  if (sshape.size() != dshape.size())
    throw UsageError("--scale-shape " + dims_text(sshape) + " must have --data-shape's rank " + std::to_string(rank));
  // The unpacked shape: the scale's with block_dim times block_size (as Python's binding sizes it;
  // the library checks it against the data).
  std::vector<std::size_t> oshape = sshape;
  oshape[static_cast<std::size_t>(block_dim)] *= block;
  if (element_count(sshape) * std::uint64_t{block} > 2 * kMaxTensorElements)
    throw UsageError("--scale-shape " + dims_text(sshape) + " in blocks of " + std::to_string(block) +
                     " is more than 2^29 values (the command's limit)");
  const auto scales_path = a.get("scales");
  if (!scales_path) throw UsageError("missing --scales FILE (the E8M0 scale bytes, --scale-shape of them)");
  if (a.positionals.size() > 2) throw UsageError("unexpected argument " + quote(a.positionals[2], '\'') + " (one FILE, or - for stdin)");
  const bool binary = a.has_switch("binary");
  InputStream in(a.positionals.size() > 1 ? std::optional<std::string>(a.positionals[1]) : std::nullopt, binary);
  const std::vector<std::uint8_t> data =
      read_tensor_bytes(in, element_count(dshape), binary, "data_lp bytes, --data-shape " + dims_text(dshape));
  InputStream sin(*scales_path, binary);
  if (sin.in == in.in) throw UsageError("--scales must name a file (FILE or stdin holds data_lp)");
  const std::vector<std::uint8_t> scale =
      read_tensor_bytes(sin, element_count(sshape), binary, "E8M0 scale bytes, --scale-shape " + dims_text(sshape));
  const bool f32 = target == FormatId::f32;
  const std::size_t n = element_count(oshape);
  std::vector<std::uint32_t> v32(f32 ? n : 0);
  std::vector<std::uint16_t> v16(f32 ? 0 : n);
  const Flags f = library_call([&] {
    return torchmx_dequantize_mx(data, dshape, scale, sshape, elem, block, target, static_cast<std::size_t>(block_dim),
                                 f32 ? static_cast<void*>(v32.data()) : v16.data());
  });
  vec::OutputFile out(a.get("out").value_or(std::string(vec::kStandardOutput)));
  out.text() += "# torchmx dequantize_mx elem=" + elem + " block=" + std::to_string(block) + " block_dim=" +
                std::to_string(block_dim) + " data_shape=" + dims_text(dshape) + " scale_shape=" + dims_text(sshape) + "\n";
  const std::string note = " to=" + std::string(format(target).name) + " flags=" + hex(f, 2);
  if (f32) write_rows(out, "dequantized", oshape, v32, 8, note);
  else write_rows(out, "dequantized", oshape, v16, 4, note);
  out.commit();
  return 0;
}

int matmul(const Args& a, bool linear) {
  const std::string action = linear ? "linear" : "matmul";
  refuse(a, action, {"target", "to-dtype", "block-dim", "data-shape", "scale-shape", "scales"});
  if (!linear && a.get("bias")) throw UsageError("--bias applies to torchmx linear only (F.linear's bias)");
  const std::string ea = elem_arg(a, "elem", true);
  const std::string eb_given = elem_arg(a, "elem-b", false);
  const std::string eb = eb_given.empty() ? ea : eb_given;
  const std::vector<std::size_t> sa = dims_arg(a, "shape", "MxK (A's shape)");
  const std::vector<std::size_t> sb =
      dims_arg(a, "shape-b", linear ? "NxK (the weight's shape; C = A W^T)" : "KxN (B's shape; blocked along N)");
  if (sa.size() != 2) throw UsageError("--shape " + dims_text(sa) + ": A must be 2-d (MxK)");
  if (sb.size() != 2) throw UsageError("--shape-b " + dims_text(sb) + ": must be 2-d (" + (linear ? "NxK)" : "KxN)"));
  const std::size_t block = static_cast<std::size_t>(parse_count(a, "block", 32, 65536));
  const TorchmxPath path = path_arg(a);
  TorchmxAccumulation acc = TorchmxAccumulation::exact_f32;
  if (const auto v = a.get("acc")) {
    const auto p = parse_torchmx_accumulation(*v);
    if (!p) throw UsageError("--acc expects exact-f32 or fp32-sequential, got " + quote(*v, '\''));
    acc = *p;
  }
  // C's size is bounded: M*N at most 2^28.
  if (std::uint64_t{sa[0]} * (linear ? sb[0] : sb[1]) > kMaxTensorElements)
    throw UsageError("the product has more than 2^28 elements (the command's limit)");
  if (a.positionals.size() != 3)
    throw UsageError(std::string("torchmx ") + action + " needs two files, A and " + (linear ? "W" : "B") + " (bf16 codes; - for stdin once)");
  if (a.positionals[1] == "-" && a.positionals[2] == "-") throw UsageError("only one of A and B can be - (stdin)");
  const bool binary = a.has_switch("binary");
  std::vector<std::uint16_t> xa, xb, bias;
  {
    InputStream in(a.positionals[1], binary);
    xa = read_bf16(in, sa, binary, "--shape");
  }
  {
    InputStream in(a.positionals[2], binary);
    xb = read_bf16(in, sb, binary, "--shape-b");
  }
  if (const auto v = a.get("bias")) {
    if (*v == "-" && (a.positionals[1] == "-" || a.positionals[2] == "-"))
      throw UsageError("only one of A, W and --bias can be - (stdin)");
    InputStream in(*v, binary);
    const auto b = read_tensor_codes(in, format(FormatId::bf16), sb[0], binary, "bf16 codes, the bias: N = " + std::to_string(sb[0]));
    bias.assign(b.begin(), b.end());
  }
  const TorchmxTensor ta = library_call([&] { return torchmx_to_mx(xa.data(), sa, ea, block, path); });
  const TorchmxTensor tb = library_call([&] { return torchmx_to_mx(xb.data(), sb, eb, block, path); });
  const TorchmxMatmul c = library_call([&] {
    if (!linear) return torchmx_matmul(ta, tb, acc);
    return a.get("bias") ? torchmx_linear(ta, tb, std::span<const std::uint16_t>(bias), acc) : torchmx_linear(ta, tb, std::nullopt, acc);
  });
  vec::OutputFile out(a.get("out").value_or(std::string(vec::kStandardOutput)));
  out.text() += "# torchmx " + std::string(linear ? "linear" : "matmul") + " elem_a=" + ea + " elem_b=" + eb + " block=" +
                std::to_string(block) + " path=" + std::string(name(path)) + " acc=" + std::string(name(acc)) + " a=" +
                dims_text(sa) + " " + (linear ? "w=" : "b=") + dims_text(sb) + (a.get("bias") ? " bias=1" : "") +
                " flags=" + hex(c.flags, 2) + "\n";
  write_rows(out, "c", {c.rows, c.cols}, c.c, 4);
  out.commit();
  return 0;
}

}  // namespace

int cmd_torchmx(int argc, char** argv) {
  const Args a = parse_command("torchmx", argc, argv, 2, {}, true);
  if (a.positionals.empty()) throw UsageError(std::string("missing the action: ") + kActions + " (softmx torchmx --help)");
  const std::string& act = a.positionals[0];
  if (act == "quantize-mx") return quantize(a, false);
  if (act == "to-mx") return quantize(a, true);
  if (act == "dequantize-mx") return dequantize(a);
  if (act == "matmul") return matmul(a, false);
  if (act == "linear") return matmul(a, true);
  throw UsageError("unknown action " + quote(act, '\'') + " (expected " + kActions + ")");
}

}  // namespace softmx::cli
