// tools/softmx/cmd_pychop.cpp: `softmx pychop`, inEXASCALE/pychop's mx_quantize with its MXSpec
// and statistics() (include/softmx/pychop.hpp does the work; docs/DIALECTS.md "pychop" and
// docs/research/pychop.md are the specification). The same functions as Python's
// softmx.pychop_mx_quantize, pychop_spec and pychop_specs.
//
//   softmx pychop quantize --shape D0x..xDn [--from f64|f32] [--format KEY|E,S]
//                 [--spec E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]]] [--block K] [--scale-exp-bits B]
//                 [--scale-sig-bits B] [--backend numpy|torch|jax] [--numpy 2|1] [--binary]
//                 [-o OUT] [FILE|-]
//     reads f64 (16 hex digits) or f32 (8) codes and writes what mx_quantize returns ("values",
//     one row of the last dimension a line), the MX representation softmx derives ("scales", one
//     per block of the flattened array, "codes", one block a line, "uncoded"), and
//     MXTensor.statistics() ("statistics", one key a line).
//   softmx pychop specs
//     MX_FORMATS: key, name, exp_bits, sig_bits, block_size, scale_exp_bits, bits per block.
//
// --format is mx_quantize's `format` as a string key (case-insensitive) or an (exp_bits,
// sig_bits) tuple; --spec is an MXSpec made by create_mx_spec (its own block size wins).
// The command only translates: options into the library's arguments, its std::invalid_argument
// into a usage error.
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/pychop.hpp"
#include "softmx/vectors/output_file.hpp"
#include "tensor_io.hpp"

namespace softmx::cli {
namespace {

/// A decimal integer in [lo, hi] for `what`, or UsageError naming it.
int small_int(const std::string& v, int lo, int hi, const std::string& what) {
  int x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
    throw UsageError(what + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                     quote(v, '\''));
  return x;
}

/// Python's repr of a float (the shortest string that reads back; as pychop's statistics()
/// prints in a dict).
std::string repr(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

PychopFormat format_arg(const Args& a) {
  const auto f = a.get("format"), s = a.get("spec");
  if (f && s) throw UsageError("--format and --spec are two ways to give mx_quantize's format: give one");
  if (s) {
    // E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]]: create_mx_spec's arguments in order; NAME is the rest.
    std::vector<std::string> parts;
    std::size_t pos = 0;
    while (parts.size() < 4) {
      const std::size_t c = s->find(',', pos);
      parts.push_back(s->substr(pos, c == std::string::npos ? std::string::npos : c - pos));
      if (c == std::string::npos) {
        pos = std::string::npos;
        break;
      }
      pos = c + 1;
    }
    const std::string name = pos == std::string::npos ? std::string() : s->substr(pos);
    if (parts.size() < 2)
      throw UsageError("--spec expects E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]] (create_mx_spec's arguments), got " + quote(*s, '\''));
    const int e = small_int(parts[0], 0, 16, "--spec's exp_bits");
    const int m = small_int(parts[1], 0, 64, "--spec's sig_bits");
    const int block = parts.size() > 2 ? small_int(parts[2], 1, 65536, "--spec's block_size") : 32;
    const int sexp = parts.size() > 3 ? small_int(parts[3], 1, 8, "--spec's scale_exp_bits") : 8;
    return PychopFormat::of(library_call([&] { return pychop_custom_spec(e, m, static_cast<std::size_t>(block), sexp, name); }));
  }
  if (!f) return PychopFormat::named("mxfp8_e4m3");
  if (const std::size_t c = f->find(','); c != std::string::npos)
    return PychopFormat::tuple(small_int(f->substr(0, c), 0, 16, "--format's exp_bits"),
                               small_int(f->substr(c + 1), 0, 64, "--format's sig_bits"));
  if (!find_pychop_spec(*f)) {
    std::string keys;
    for (const PychopNamedSpec& n : pychop_named_specs()) keys += (keys.empty() ? "" : ", ") + std::string(n.key);
    throw UsageError("unknown --format " + quote(*f, '\'') + " (expected a key of MX_FORMATS, " + keys +
                     ", or E,S for an (exp_bits, sig_bits) tuple)");
  }
  return PychopFormat::named(*f);
}

PychopOptions options_arg(const Args& a) {
  PychopOptions o;
  o.block_size = static_cast<std::size_t>(parse_count(a, "block", 32, 65536));
  if (const auto v = a.get("scale-exp-bits")) o.scale_exp_bits = small_int(*v, 1, 8, "--scale-exp-bits");
  if (const auto v = a.get("scale-sig-bits")) o.scale_sig_bits = small_int(*v, 0, 64, "--scale-sig-bits");
  if (const auto v = a.get("backend")) {
    const auto b = parse_pychop_backend(*v);
    if (!b) throw UsageError("--backend expects numpy, torch or jax, got " + quote(*v, '\''));
    o.backend = *b;
  }
  if (const auto v = a.get("numpy")) {
    const auto n = parse_pychop_numpy(*v);
    if (!n) throw UsageError("--numpy expects 2 (NumPy >= 2, NEP 50 promotion) or 1, got " + quote(*v, '\''));
    o.numpy = *n;
  }
  return o;
}

int quantize(const Args& a) {
  const auto shape_text = a.get("shape");
  if (!shape_text) throw UsageError("missing --shape D0x..xDn (the array's shape, row-major)");
  const std::vector<std::size_t> shape = parse_dims(*shape_text);
  const FormatId src = a.get("from") ? parse_named_format_arg("from", *a.get("from")) : FormatId::f64;
  if (src != FormatId::f64 && src != FormatId::f32)
    throw UsageError("--from must be f64 or f32 (pychop takes float64 or float32 arrays), not " + *a.get("from"));
  const PychopFormat fmt = format_arg(a);
  const PychopOptions opt = options_arg(a);
  // Resolve first, so a spec without an element format is refused before the input is read.
  const PychopSpec spec = library_call([&] { return pychop_resolve_spec(fmt, opt); });
  library_call([&] { return pychop_element(spec); });
  if (a.positionals.size() > 2) throw UsageError("unexpected argument " + quote(a.positionals[2], '\'') + " (one FILE, or - for stdin)");
  const bool binary = a.has_switch("binary");
  InputStream in(a.positionals.size() > 1 ? std::optional<std::string>(a.positionals[1]) : std::nullopt, binary);
  const std::size_t n = element_count(shape);
  const std::vector<std::uint64_t> codes =
      read_tensor_codes(in, format(src), n, binary, std::string(format(src).name) + " codes, --shape " + dims_text(shape));
  std::vector<std::uint32_t> c32;
  if (src == FormatId::f32) c32.assign(codes.begin(), codes.end());
  const void* data = src == FormatId::f32 ? static_cast<const void*>(c32.data()) : codes.data();
  const PychopResult r = library_call([&] { return pychop_mx_quantize(src, data, shape, fmt, opt); });
  const PychopStatistics st = library_call([&] { return pychop_statistics(r.spec, r.shape); });

  vec::OutputFile out(a.get("out").value_or(std::string(vec::kStandardOutput)));
  std::string& t = out.text();
  t += "# pychop mx_quantize spec=" + r.spec.name + " exp_bits=" + std::to_string(r.spec.exp_bits) + " sig_bits=" +
       std::to_string(r.spec.sig_bits) + " block=" + std::to_string(r.spec.block_size) + " scale_exp_bits=" +
       std::to_string(r.spec.scale_exp_bits) + " scale_sig_bits=" + std::to_string(r.spec.scale_sig_bits) +
       " element=" + std::string(r.element.name()) + " source=" + std::string(format(src).name) +
       " value_format=" + std::string(format(r.value_format).name) + " backend=" + std::string(name(opt.backend)) +
       " numpy=" + std::string(name(opt.numpy)) + " shape=" + dims_text(shape) + " num_blocks=" +
       std::to_string(r.num_blocks) + " flags=" + hex(r.flags, 2) + "\n";
  write_rows(out, "values", r.shape, r.values, format(r.value_format).hex_digits());
  write_rows(out, "scales", {r.scales.size()}, r.scales, 2);
  write_rows(out, "codes", {r.num_blocks, r.spec.block_size}, r.codes, r.element.format().hex_digits());
  t += "uncoded " + std::to_string(r.uncoded.size()) + "\n";
  for (std::size_t i = 0; i < r.uncoded.size(); ++i) t += std::to_string(r.uncoded[i]) + (i + 1 == r.uncoded.size() ? "\n" : " ");
  t += "statistics\nformat " + st.format + "\nexp_bits " + std::to_string(st.exp_bits) + "\nsig_bits " +
       std::to_string(st.sig_bits) + "\nblock_size " + std::to_string(st.block_size) + "\nscale_exp_bits " +
       std::to_string(st.scale_exp_bits) + "\noriginal_shape " + dims_text(st.original_shape) + "\nnum_blocks " +
       std::to_string(st.num_blocks) + "\ntotal_elements " + std::to_string(st.total_elements) +
       "\ncompression_ratio_fp32 " + repr(st.compression_ratio_fp32) + "\ncompression_ratio_fp16 " +
       repr(st.compression_ratio_fp16) + "\nbits_per_element " + repr(st.bits_per_element) + "\n";
  out.commit();
  return 0;
}

int specs() {
  Output out;
  for (const PychopNamedSpec& n : pychop_named_specs())
    out.printf("%-11s %-11s exp_bits=%d sig_bits=%d block_size=%zu scale_exp_bits=%d total_bits_per_block=%zu\n",
               std::string(n.key).c_str(), n.spec.name.c_str(), n.spec.exp_bits, n.spec.sig_bits, n.spec.block_size,
               n.spec.scale_exp_bits, n.spec.total_bits_per_block());
  out.commit();
  return 0;
}

}  // namespace

int cmd_pychop(int argc, char** argv) {
  const Args a = parse_command("pychop", argc, argv, 2, {}, true);
  if (a.positionals.empty()) throw UsageError("missing the action: quantize or specs (softmx pychop --help)");
  const std::string& act = a.positionals[0];
  if (act == "specs") {
    if (a.positionals.size() > 1 || !a.options.empty() || !a.switches.empty())
      throw UsageError("pychop specs takes no other argument");
    return specs();
  }
  if (act == "quantize") return quantize(a);
  throw UsageError("unknown action " + quote(act, '\'') + " (expected quantize or specs)");
}

}  // namespace softmx::cli
