// tools/softmx/cmd_layout.cpp: `softmx layout`, the scale layouts GEMM consumers read
// (include/softmx/scale_layout.hpp does the work; docs/RECIPES.md section 6).
//
//   softmx layout encode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]
//     reads S, R x C scale codes row-major (hex, whitespace-separated, or with --binary raw
//     bytes), and writes the layout's buffer: hex, 16 bytes a line, or with --binary-out the bytes.
//   softmx layout decode --layout L --shape RxC [layout options] [--binary] [--binary-out] [-o OUT] [FILE|-]
//     the inverse: reads the buffer, writes S (hex: one row a line).
//   softmx layout size --layout L --shape RxC [--operand a|b]
//   softmx layout index --layout L --shape RxC [--operand a|b] [--transposed 0|1] R C
//
// The names are the Python module's (python/src/bind_layout.cpp): cublas-128x4 (aliases
// swizzled-128x4, 128x4), torchao (to_blocked), paired with --operand a|b and --transposed 0|1
// (trans_a / trans_b), --pad for cublas-128x4; te-padded is softmx.pad_scales / unpad_scales
// (TE's compact tensor: --multiple RMxCM, --transposed, --pad for encode; decode crops the
// padding and transposes back, as TE's readers do).
//
// The command only translates: options into the library's arguments, its std::invalid_argument
// into a usage error. Sizes are checked here first so the error can name the file and --shape.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/scale_layout.hpp"
#include "softmx/vectors/output_file.hpp"
#include "tensor_io.hpp"
#include "tokens.hpp"

namespace softmx::cli {
namespace {

enum class Layout { swizzled_128x4, torchao, paired, te_padded };

constexpr const char* kLayoutNames = "cublas-128x4 (or swizzled-128x4, 128x4), torchao (or to_blocked), paired or te-padded";

/// The command's limit on any buffer it reads or writes.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 28;

Layout layout_arg(const Args& a) {
  const auto v = a.get("layout");
  if (!v) throw UsageError(std::string("missing --layout L (") + kLayoutNames + ")");
  if (*v == "cublas-128x4" || *v == "swizzled-128x4" || *v == "128x4") return Layout::swizzled_128x4;
  if (*v == "torchao" || *v == "to_blocked") return Layout::torchao;
  if (*v == "paired") return Layout::paired;
  if (*v == "te-padded") return Layout::te_padded;
  throw UsageError("unknown scale layout " + quote(*v, '\'') + " for --layout (expected " + kLayoutNames + ")");
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::swizzled_128x4: return "cublas-128x4";
    case Layout::torchao: return "torchao";
    case Layout::paired: return "paired";
    default: return "te-padded";
  }
}

/// "RxC" for `option`: two integers (0..999999999 each; the shape may be empty only where
/// `allow_zero`).
std::pair<std::size_t, std::size_t> parse_pair(const Args& a, const char* option, const char* what, bool allow_zero) {
  const auto v = a.get(option);
  if (!v) throw UsageError(std::string("missing --") + option + " " + what);
  const std::string bad = std::string("--") + option + " expects " + what + ", two " +
                          (allow_zero ? "integers" : "positive integers") + " joined by x (for example 100x2), got " +
                          quote(*v, '\'');
  const std::size_t x = v->find('x');
  if (x == std::string::npos) throw UsageError(bad);
  std::size_t d[2];
  const std::string parts[2] = {v->substr(0, x), v->substr(x + 1)};
  for (int i = 0; i < 2; ++i) {
    if (parts[i].empty() || parts[i].size() > 9 || parts[i].find_first_not_of("0123456789") != std::string::npos)
      throw UsageError(bad);
    d[i] = static_cast<std::size_t>(std::stoull(parts[i]));
    if (d[i] == 0 && !allow_zero) throw UsageError(bad);
  }
  return {d[0], d[1]};
}

/// The layout options: --operand and --transposed (paired; --transposed also te-padded), --pad
/// (cublas-128x4, te-padded), --multiple (te-padded). An option the layout does not read is an
/// error, not ignored, as in Python.
struct LayoutOptions {
  Layout layout = Layout::swizzled_128x4;
  PairedOperand operand = PairedOperand::a;
  bool transposed = false;
  std::optional<std::uint32_t> pad;
  std::size_t row_multiple = 0, col_multiple = 0;
  bool f32 = false;  ///< te-padded: 4-byte codes (--scale-format f32)
};

LayoutOptions layout_options(const Args& a, bool decode) {
  LayoutOptions o;
  o.layout = layout_arg(a);
  const std::string where = std::string(" applies to --layout ");
  if (o.layout == Layout::paired) {
    const auto op = a.get("operand");
    if (!op) throw UsageError("--layout paired needs --operand a (scales of A, shape m x nb) or b (scales of B, shape nb x n)");
    if (*op == "a" || *op == "A") o.operand = PairedOperand::a;
    else if (*op == "b" || *op == "B") o.operand = PairedOperand::b;
    else throw UsageError("--operand expects a or b, got " + quote(*op, '\''));
  } else if (a.get("operand")) {
    throw UsageError("--operand" + where + "paired only (the seed-003 generator's operand A or B)");
  }
  if (const auto t = a.get("transposed")) {
    if (o.layout != Layout::paired && o.layout != Layout::te_padded)
      throw UsageError("--transposed" + where + "paired (trans_a / trans_b) and te-padded only");
    if (*t == "1") o.transposed = true;
    else if (*t != "0") throw UsageError("--transposed expects 0 or 1, got " + quote(*t, '\''));
  }
  if (o.layout == Layout::te_padded) {
    const auto m = parse_pair(a, "multiple", "RMxCM (the padding multiples, for example 128x4)", false);
    o.row_multiple = m.first;
    o.col_multiple = m.second;
    if (const auto f = a.get("scale-format")) {
      if (*f == "f32") o.f32 = true;
      else if (*f != "e8m0" && *f != "e4m3" && *f != "ue4m3")
        throw UsageError("--scale-format expects e8m0, e4m3 (1-byte codes) or f32 (4-byte codes), got " + quote(*f, '\''));
    }
  } else {
    if (a.get("multiple")) throw UsageError("--multiple" + where + "te-padded only");
    if (a.get("scale-format")) throw UsageError("--scale-format" + where + "te-padded only (the other layouts hold bytes)");
  }
  if (const auto p = a.get("pad")) {
    if (o.layout == Layout::torchao) throw UsageError("--pad applies to --layout cublas-128x4 and te-padded only (torchao's to_blocked pads with 00)");
    if (o.layout == Layout::paired) throw UsageError("--pad applies to --layout cublas-128x4 and te-padded only (the paired layout pads with 7F, E8M0 1.0)");
    if (decode) throw UsageError("--pad applies to encode only (decode drops the padding)");
    const int digits = o.f32 ? 8 : 2;
    const auto v = parse_hex_exact(*p, digits);
    if (!v) throw UsageError("--pad expects the padding code as " + std::to_string(digits) + " hex digits, got " + quote(*p, '\''));
    o.pad = static_cast<std::uint32_t>(*v);
  }
  return o;
}

/// The bytes of the layout's buffer for an R x C matrix (te-padded: codes, not bytes).
std::uint64_t buffer_size(const LayoutOptions& o, std::size_t rows, std::size_t cols) {
  switch (o.layout) {
    case Layout::paired: return paired_size(o.operand, rows, cols);
    case Layout::te_padded: {
      const auto [r, c] = padded_scales_shape(rows, cols, o.transposed, o.row_multiple, o.col_multiple);
      return std::uint64_t{r} * c;  // both under 2^30 (parse_pair), so no overflow
    }
    default: return swizzled_128x4_size(rows, cols);
  }
}

/// Exactly `n` codes of `width` bytes: hex tokens of 2 * width digits, or with `binary` raw
/// little-endian bytes. `what` says what they are, for the errors.
std::vector<std::uint32_t> read_codes(InputStream& s, std::uint64_t n, int width, bool binary, const std::string& what) {
  std::vector<std::uint32_t> v;
  v.reserve(static_cast<std::size_t>(n));
  if (binary) {
    const std::uint64_t want = n * static_cast<std::uint64_t>(width);
    std::vector<char> buf(static_cast<std::size_t>(want) + 1);
    s.in->read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::uint64_t>(s.in->gcount());
    if (s.in->bad()) throw UsageError(s.name + ": read error");
    if (got != want)
      throw UsageError(s.name + ": expected " + std::to_string(want) + " bytes (" + what + "), got " +
                       (got > want ? "more" : std::to_string(got)));
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint32_t c = 0;
      for (int b = 0; b < width; ++b) c |= static_cast<std::uint32_t>(static_cast<unsigned char>(buf[i * width + b])) << (8 * b);
      v.push_back(c);
    }
    return v;
  }
  TokenReader tr(*s.in, s.name);
  std::string tok;
  const int digits = 2 * width;
  while (tr.next(tok)) {
    if (v.size() == n) throw UsageError(tr.where() + ": more values than expected (" + std::to_string(n) + ": " + what + ")");
    const auto c = parse_hex_exact(tok, digits);
    if (!c) throw UsageError(tr.where() + ": expected a code as " + std::to_string(digits) + " hex digits, got " + quote(tok, '\''));
    v.push_back(static_cast<std::uint32_t>(*c));
  }
  if (v.size() != n) throw UsageError(s.name + ": expected " + std::to_string(n) + " values (" + what + "), got " + std::to_string(v.size()));
  return v;
}

/// Writes `v` (codes of `width` bytes): raw little-endian bytes, or hex, `per_line` a line.
void write_codes(vec::OutputFile& out, const auto& v, int width, bool binary, std::size_t per_line) {
  std::string& t = out.text();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<std::uint32_t>(v[i]);
    if (binary) {
      for (int b = 0; b < width; ++b) t += static_cast<char>((c >> (8 * b)) & 0xFF);
    } else {
      t += hex(c, 2 * width);
      t += (i + 1) % per_line == 0 || i + 1 == v.size() ? '\n' : ' ';
    }
    out.chunk();
  }
}

std::string shape_text(std::size_t rows, std::size_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// -o FILE as --out FILE (before a "--"), as recipe, gen, sweep and merge take it.
Args parse_layout_args(int argc, char** argv) {
  return parse_command("layout", argc, argv, 2, {}, true);
}

int layout_encode_decode(const Args& a, bool decode) {
  const LayoutOptions o = layout_options(a, decode);
  const auto [rows, cols] = parse_pair(a, "shape", "RxC (the scale matrix's rows and columns)", false);
  if (static_cast<std::uint64_t>(rows) * cols > kMaxBytes)
    throw UsageError("--shape " + shape_text(rows, cols) + " has more than 2^28 scales (the command's limit)");
  const std::uint64_t size = buffer_size(o, rows, cols);
  if (size > kMaxBytes)
    throw UsageError("--shape " + shape_text(rows, cols) + " gives a " + layout_name(o.layout) + " buffer of " +
                     std::to_string(size) + " codes, more than 2^28 (the command's limit)");
  if (a.positionals.size() > 2)
    throw UsageError("unexpected argument " + quote(a.positionals[2], '\'') + " (one FILE, or - for stdin)");
  const bool binary = a.has_switch("binary"), binary_out = a.has_switch("binary-out");
  InputStream in(a.positionals.size() > 1 ? std::optional<std::string>(a.positionals[1]) : std::nullopt, binary);
  const std::string layout = layout_name(o.layout);
  const std::string desc = decode ? "the " + layout + " buffer of a " + shape_text(rows, cols) + " scale matrix, --shape"
                                  : "a " + shape_text(rows, cols) + " scale matrix, row-major, --shape";
  const int width = o.f32 ? 4 : 1;
  const std::vector<std::uint32_t> codes = read_codes(in, decode ? size : std::uint64_t{rows} * cols, width, binary, desc);
  std::vector<std::uint8_t> bytes(codes.begin(), codes.end());  // 1-byte codes: exact

  std::vector<std::uint8_t> result;
  PaddedScales padded;
  std::vector<std::uint32_t> unpadded;
  try {
    switch (o.layout) {
      case Layout::swizzled_128x4:
        result = decode ? decode_swizzled_128x4(bytes, rows, cols)
                        : encode_swizzled_128x4(bytes, rows, cols, static_cast<std::uint8_t>(o.pad.value_or(0)));
        break;
      case Layout::torchao:
        result = decode ? torchao_from_blocked(bytes, rows, cols) : torchao_to_blocked(bytes, rows, cols);
        break;
      case Layout::paired:
        result = decode ? decode_paired(bytes, rows, cols, o.operand, o.transposed)
                        : encode_paired(bytes, rows, cols, o.operand, o.transposed);
        break;
      case Layout::te_padded:
        if (decode) unpadded = unpad_scales(codes, rows, cols, o.transposed, o.row_multiple, o.col_multiple);
        else padded = pad_scales(codes, rows, cols, o.transposed, o.row_multiple, o.col_multiple, o.pad.value_or(0));
        break;
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--layout ") + layout + ": " + e.what());
  }

  // The output (atomically replaced; standard output for "-" or none), opened only now that the
  // input was good, so a refused run leaves an existing file as it was.
  vec::OutputFile out(a.get("out").value_or(std::string(vec::kStandardOutput)));
  if (o.layout == Layout::te_padded && decode) write_codes(out, unpadded, width, binary_out, cols);
  else if (o.layout == Layout::te_padded) write_codes(out, padded.codes, width, binary_out, padded.cols);
  else write_codes(out, result, 1, binary_out, decode ? cols : 16);
  out.commit();
  return 0;
}

int layout_size_index(const Args& a, bool index) {
  const LayoutOptions o = layout_options(a, false);
  if (o.layout == Layout::te_padded && index) throw UsageError("--layout te-padded: index applies to cublas-128x4, torchao and paired");
  if (!index && a.get("transposed") && o.layout == Layout::paired)
    throw UsageError("--transposed does not change the size; it applies to encode, decode and index");
  if (a.get("pad")) throw UsageError("--pad applies to encode only");
  if (a.get("out") || a.has_switch("binary") || a.has_switch("binary-out"))
    throw UsageError(std::string(index ? "index" : "size") + " writes one number on standard output: -o, --binary and --binary-out apply to encode and decode");
  const auto [rows, cols] = parse_pair(a, "shape", "RxC (the scale matrix's rows and columns)", !index);
  Output out;
  if (!index) {
    if (a.positionals.size() > 1) throw UsageError("unexpected argument " + quote(a.positionals[1], '\'') + " (size takes none)");
    out.printf("%llu\n", static_cast<unsigned long long>(buffer_size(o, rows, cols)));
    out.commit();
    return 0;
  }
  if (a.positionals.size() != 3) throw UsageError("index needs R C: the row and column of S whose offset is wanted");
  std::size_t rc[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& t = a.positionals[1 + i];
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError(std::string(i ? "C" : "R") + " expects a non-negative integer, got " + quote(t, '\''));
    rc[i] = static_cast<std::size_t>(std::stoull(t));
  }
  // The padded extent, exclusive: the library's *_index take (r, c) inside it as a precondition.
  std::size_t rmax, cmax;
  if (o.layout == Layout::paired) {
    const std::size_t nb = o.operand == PairedOperand::a ? cols : rows;  // the padding K-block is addressable
    const std::size_t nb_even = nb + (nb & 1);
    rmax = o.operand == PairedOperand::a ? rows : nb_even;
    cmax = o.operand == PairedOperand::a ? nb_even : cols;
  } else {
    rmax = (rows + 127) / 128 * 128;
    cmax = (cols + 3) / 4 * 4;
  }
  if (rc[0] >= rmax || rc[1] >= cmax)
    throw UsageError("R C = " + std::to_string(rc[0]) + " " + std::to_string(rc[1]) + " is outside the padded " +
                     shape_text(rmax, cmax) + " scale matrix of --layout " + layout_name(o.layout) + " --shape " +
                     shape_text(rows, cols));
  const std::size_t at = o.layout == Layout::paired ? paired_index(o.operand, o.transposed, rc[0], rc[1], rows, cols)
                                                    : swizzled_128x4_index(rc[0], rc[1], cols);
  out.printf("%llu\n", static_cast<unsigned long long>(at));
  out.commit();
  return 0;
}

}  // namespace

int cmd_layout(int argc, char** argv) {
  const Args a = parse_layout_args(argc, argv);
  if (a.positionals.empty()) throw UsageError("missing the action: encode, decode, size or index (softmx layout --help)");
  const std::string& act = a.positionals[0];
  if (act == "encode") return layout_encode_decode(a, false);
  if (act == "decode") return layout_encode_decode(a, true);
  if (act == "size") return layout_size_index(a, false);
  if (act == "index") return layout_size_index(a, true);
  throw UsageError("unknown action " + quote(act, '\'') + " (expected encode, decode, size or index)");
}

}  // namespace softmx::cli
