// tools/softmx/cmd_block.cpp: `softmx quantize` and `softmx dequantize`.
//
//   softmx quantize --to FMT [--from f32] [--block K] [--scale RULE] [--round MODE]
//                   [--sat finite|none] [--dialect NAME] [--rbits R] [--scale-format SPEC] < codes
//     --scale-format: e8m0 (default), or ue4m3, ue5m3, e4m3, bf16, f16, f32, ... (BLOCKS.md 1.2;
//     no --scale then); the SCALE field has the scale format's hex digits (8 for f32).
//     FMT: a named MX element format or a runtime spec of at most 8 bits (e1m2, e4m3fnuz, int4).
//     reads raw hex codes of --from (whitespace-separated, K per block; with --round rs each
//     code is followed by its random bits) and writes one line per block: SCALE CODE ... in
//     raw hex. --to nvfp4: blocks of 16, E4M3 scales, and a first line
//     "# nvfp4 global_amax=XXXXXXXX encode_scale=XXXXXXXX" (f32 bits); --global-amax HEX sets the
//     tensor's amax instead of reading all the input first.
//
//   softmx dequantize --from FMT [--to f32] [--block K] [--round] [--sat] [--dialect NAME] [--scale-format SPEC]
//     reads lines SCALE CODE ... (K codes) and writes one raw hex code of --to per element.
#include <bit>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "softmx/block.hpp"
#include "softmx/nvfp4.hpp"
#include "tokens.hpp"

namespace softmx::cli {
namespace {


std::string element_list() {
  return "e4m3, e5m2, e3m2, e2m3, e2m1, int8, nvfp4, or a runtime spec of at most 8 bits such as e1m2, e2m2, "
         "e4m3fnuz or int4";
}

// The element format named by --OPTION: a named MX element or a runtime spec (SEMANTICS 1.2)
// that can be one (mx_element_reason names the field that cannot).
Format element_arg(const char* option, const std::string& value) {
  const Format f = parse_format_arg(option, value);
  if (auto why = mx_element_reason(f)) throw UsageError("--" + std::string(option) + " " + quote(value, '\'') + ": " + *why);
  return f;
}

std::size_t parse_block_size(const Args& a, std::size_t dflt) { return parse_count(a, "block", dflt, 1 << 20); }

std::uint64_t parse_hex_field(std::string_view text, int digits, const std::string& where, const std::string& what) {
  auto v = parse_hex_exact(text, digits);
  if (!v) throw UsageError(where + ": expected " + what + ", got " + quote(text));
  return *v;
}

void write_block_line(std::string& out, std::uint64_t scale, int scale_digits, const std::vector<std::uint8_t>& codes,
                      int code_digits) {
  out += hex(scale, scale_digits);
  for (std::uint8_t c : codes) {
    out += ' ';
    out += hex(c, code_digits);
  }
  out += '\n';
}

// Reads every value (and, for rs, its random bits) from stdin.
struct Inputs {
  std::vector<std::uint64_t> codes, rbits;
  std::vector<std::uint64_t> lines;
};

Inputs read_values(const Format& src, bool rs, unsigned rwidth, std::size_t k) {
  TokenReader tr(std::cin);
  Inputs in;
  std::string tok;
  const int rdigits = static_cast<int>((rwidth + 3) / 4);
  while (tr.next(tok)) {
    in.codes.push_back(parse_code(src, tok, tr.where()));
    in.lines.push_back(tr.line());
    if (rs) {
      if (!tr.next(tok))
        throw UsageError(tr.where() + ": the input ends after a value; with --round rs each value is followed by " +
                         std::to_string(rdigits) + " hex digits of random bits");
      auto r = parse_hex_exact(tok, rdigits);
      if (!r || (rwidth < 64 && (*r >> rwidth)))
        throw UsageError(tr.where() + ": expected the random bits as " + std::to_string(rdigits) +
                         " hex digits (below 2^" + std::to_string(rwidth) + "), got " + quote(tok));
      in.rbits.push_back(*r);
    }
  }
  if (in.codes.size() % k)
    throw UsageError("<stdin>: short block: the input ends after " + std::to_string(in.codes.size() % k) + " of the " +
                     std::to_string(k) + " values of block " + std::to_string(in.codes.size() / k + 1) +
                     (in.lines.empty() ? "" : " (line " + std::to_string(in.lines.back()) + ")"));
  return in;
}

int quantize_nvfp4_stream(const Args& a, FormatId src, const ConversionOptions& co) {
  if (parse_block_size(a, 16) != 16) throw UsageError("nvfp4 blocks hold 16 values; --block must be 16");
  if (src != FormatId::f32 && src != FormatId::bf16 && src != FormatId::f16)
    throw UsageError("nvfp4 quantizes f32, bf16 or f16 input, not " + std::string(format(src).name));
  if (co.ctx.rounding != Rounding::rne && co.ctx.rounding != Rounding::rs)
    throw UsageError("nvfp4 elements round with rne or rs, not " + std::string(name(co.ctx.rounding)));
  const bool rs = co.ctx.rounding == Rounding::rs;
  const Inputs in = read_values(format(src), rs, co.ctx.rbits_width, 16);
  if (in.codes.empty()) return 0;  // empty input, empty output (no header either), as every filter
  Nvfp4Options o;
  o.rounding = co.ctx.rounding;
  o.rbits_width = co.ctx.rbits_width;
  o.rbits = in.rbits;
  if (auto g = a.get("global-amax"))
    o.global_amax = std::bit_cast<float>(static_cast<std::uint32_t>(
        parse_hex_field(*g, 8, "--global-amax", "8 hex digits (the f32 bits of the tensor's amax)")));
  if (auto m = a.get("nvfp4-multiplier")) {
    if (*m == "division") o.multiplier = Nvfp4Multiplier::division;
    else if (*m == "reciprocal-product") o.multiplier = Nvfp4Multiplier::reciprocal_product;
    else throw UsageError("--nvfp4-multiplier expects division or reciprocal-product, got " + quote(*m, '\''));
  }
  std::vector<std::uint32_t> f32(in.codes.size());
  std::vector<std::uint16_t> f16(in.codes.size());
  for (std::size_t i = 0; i < in.codes.size(); ++i) {
    f32[i] = static_cast<std::uint32_t>(in.codes[i]);
    f16[i] = static_cast<std::uint16_t>(in.codes[i]);
  }
  const std::size_t shape[1] = {in.codes.size()};
  const Nvfp4Tensor t = quantize_nvfp4(src, src == FormatId::f32 ? static_cast<const void*>(f32.data()) : f16.data(),
                                       shape, 0, o);
  Output output;
  std::string& out = output.text();
  out = "# nvfp4 global_amax=" + hex(t.global_amax, 8) + " encode_scale=" + hex(t.encode_scale, 8) + "\n";
  for (std::size_t b = 0; b < t.scales.size(); ++b)
    write_block_line(out, t.scales[b], 2,
                     std::vector<std::uint8_t>(t.codes.begin() + static_cast<long>(16 * b),
                                               t.codes.begin() + static_cast<long>(16 * b + 16)),
                     1);
  output.commit();
  return 0;
}

}  // namespace

int cmd_quantize(int argc, char** argv) {
  const Args a = parse_args("quantize", argc, argv, 2,
                            {"to", "from", "block", "scale", "round", "sat", "dialect", "rbits", "tininess",
                             "global-amax", "nvfp4-multiplier", "scale-format"});
  if (!a.positionals.empty())
    throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (values are read from stdin)");
  const auto to = a.get("to");
  if (!to) throw UsageError("missing --to FORMAT (" + element_list() + ")");
  const FormatId src = a.get("from") ? parse_named_format_arg("from", *a.get("from")) : FormatId::f32;
  if (!is_ieee_host_format(src)) throw UsageError("--from must be f64, f32, f16 or bf16, not " + *a.get("from"));
  // Parse the common options with a stand-in destination; the element format is checked next.
  Args common = a;
  common.options.erase("to");
  ConversionOptions co = conversion_options(common, false);
  if (*to == "nvfp4") {
    if (a.get("scale-format")) throw UsageError("--scale-format does not apply to --to nvfp4 (its scales are E4M3 by its recipe)");
    return quantize_nvfp4_stream(a, src, co);
  }
  const Format elem = element_arg("to", *to);
  const ScaleFormat sfmt = scale_format_option(a, *co.dialect);
  if (!sfmt.is_e8m0() && a.get("scale"))
    throw UsageError("--scale " + *a.get("scale") + " chooses an E8M0 exponent; with --scale-format " +
                     std::string(sfmt.name()) + " the scale is amax / max_E rounded to nearest (BLOCKS.md 1.2): drop --scale");
  const std::size_t k = parse_block_size(a, 32);
  BlockOptions o;
  o.element = elem;
  o.dialect = co.dialect;
  o.rule = scale_rule_option(a);
  o.scale_format = sfmt;
  if (co.rounding_given) o.rounding = co.ctx.rounding;
  if (a.get("sat")) o.saturation = co.ctx.saturation;
  o.tininess = co.ctx.tininess;
  o.rbits_width = co.ctx.rbits_width;
  Context ec;
  ec.rounding = o.rounding.value_or(co.dialect->block.element_rounding);
  ec.saturation = o.saturation.value_or(co.dialect->block.element_saturation);
  if (!co.dialect->block.unsupported.empty())
    throw UsageError("dialect " + std::string(co.dialect->name) + ": " + std::string(co.dialect->block.unsupported));
  if (auto why = unsupported_reason(*co.dialect, elem, ec)) throw UsageError(*why);
  const bool rs = ec.rounding == Rounding::rs;

  // Stream: read k values, quantize, write; constant memory whatever the input size.
  TokenReader tr(std::cin);
  const Format& sf = format(src);
  const int rdigits = (o.rbits_width + 3) / 4;
  std::vector<std::uint64_t> block, rbits;
  std::vector<unsigned char> storage(k * (sf.width / 8));
  Output output;
  std::string& out = output.text();
  std::string tok;
  std::uint64_t blocks = 0;
  for (;;) {
    block.clear();
    rbits.clear();
    std::uint64_t last_line = 0;
    while (block.size() < k && tr.next(tok)) {
      block.push_back(parse_code(sf, tok, tr.where()));
      last_line = tr.line();
      if (rs) {
        if (!tr.next(tok))
          throw UsageError(tr.where() + ": the input ends after a value; with --round rs each value is followed by " +
                           std::to_string(rdigits) + " hex digits of random bits");
        rbits.push_back(parse_hex_field(tok, rdigits, tr.where(), std::to_string(rdigits) + " hex digits of random bits"));
      }
    }
    if (block.empty()) break;
    if (block.size() < k) {
      throw UsageError("<stdin>: short block: the input ends after " + std::to_string(block.size()) + " of the " +
                       std::to_string(k) + " values of block " + std::to_string(blocks + 1) + " (line " +
                       std::to_string(last_line) + ")");
    }
    for (std::size_t i = 0; i < k; ++i) std::memcpy(&storage[i * (sf.width / 8)], &block[i], sf.width / 8);
    BlockOptions bo = o;
    if (rs) bo.rbits = rbits;
    QuantizedBlock q;
    try {
      q = quantize_block(src, storage.data(), k, bo);
    } catch (const std::invalid_argument& e) {
      throw UsageError("block " + std::to_string(blocks + 1) + " (ending at line " + std::to_string(last_line) +
                       "): " + e.what());
    }
    write_block_line(out, q.scale, sfmt.format().hex_digits(), q.codes, elem.hex_digits());
    ++blocks;
    output.chunk();
  }
  output.commit();  // empty input: empty output, as every filter
  return 0;
}

int cmd_dequantize(int argc, char** argv) {
  const Args a = parse_args("dequantize", argc, argv, 2,
                            {"from", "to", "block", "round", "sat", "dialect", "tininess", "encode-scale", "scale-format"});
  if (!a.positionals.empty())
    throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (blocks are read from stdin)");
  const auto from = a.get("from");
  if (!from) throw UsageError("missing --from FORMAT (the element format: " + element_list() + ")");
  Args common = a;
  common.options.erase("from");
  if (!a.get("to")) common.options.emplace("to", "f32");
  const ConversionOptions co = conversion_options(common, true);
  if (!is_ieee_host_format(co.to.id)) throw UsageError("--to must be f64, f32, f16 or bf16");
  const bool nvfp4 = *from == "nvfp4";
  const Format elem = nvfp4 ? format(FormatId::e2m1) : element_arg("from", *from);
  if (nvfp4 && a.get("scale-format"))
    throw UsageError("--scale-format does not apply to --from nvfp4 (its scales are E4M3 by its recipe)");
  const ScaleFormat sfmt = scale_format_option(a, *co.dialect);
  const Format& scf = sfmt;
  const std::string scale_what = sfmt.is_e8m0() ? std::string("an E8M0 scale (2 hex digits)") : "a " + std::string(scf.name) + " scale (" + std::to_string(scf.hex_digits()) + " hex digits, 0.." +
                                 hex(scf.code_mask(), scf.hex_digits()) + ")";
  const std::size_t k = parse_block_size(a, nvfp4 ? 16 : 32);
  if (nvfp4 && k != 16) throw UsageError("nvfp4 blocks hold 16 values; --block must be 16");
  const Format& ef = elem;
  const Format& df = format(co.to);
  std::optional<std::uint32_t> encode_scale;
  if (auto e = a.get("encode-scale"))
    encode_scale = static_cast<std::uint32_t>(parse_hex_field(*e, 8, "--encode-scale", "8 hex digits (f32 bits)"));

  std::string line;
  Output output;
  std::string& out = output.text();
  LineReader lines(std::cin);
  while (lines.next(line)) {
    const std::string where = lines.where();
    if (nvfp4 && line.rfind("# nvfp4", 0) == 0) {  // the header quantize writes
      const auto pos = line.find("encode_scale=");
      if (pos == std::string::npos) throw UsageError(where + ": the nvfp4 header has no encode_scale=XXXXXXXX");
      encode_scale = static_cast<std::uint32_t>(
          parse_hex_field(line.substr(pos + 13, 8), 8, where, "encode_scale as 8 hex digits"));
      continue;
    }
    const auto f = split_fields(line);
    if (f.size() != k + 1)
      throw UsageError(where + ": expected a scale and " + std::to_string(k) + " codes (" + std::to_string(k + 1) +
                       " fields), got " + std::to_string(f.size()));
    const std::uint64_t scale = nvfp4 ? parse_hex_field(f[0], 2, where, "an E4M3 scale (2 hex digits)")
                                      : parse_hex_field(f[0], scf.hex_digits(), where, scale_what);
    if (scale > scf.code_mask()) throw UsageError(where + ": scale " + std::string(f[0]) + " is out of range: expected " + scale_what);
    std::vector<std::uint8_t> codes;
    for (std::size_t i = 1; i <= k; ++i) codes.push_back(static_cast<std::uint8_t>(parse_code(ef, f[i], where)));
    if (nvfp4) {
      if (!encode_scale) throw UsageError(where + ": nvfp4 needs the encode scale: the \"# nvfp4\" header line or --encode-scale");
      Nvfp4Tensor t;
      t.shape = {k};
      t.encode_scale = *encode_scale;
      t.scales = {static_cast<std::uint8_t>(scale)};
      t.codes = codes;
      std::vector<unsigned char> buf(k * 8);
      try {
        dequantize_nvfp4(t, co.to.id, buf.data(), co.ctx);
      } catch (const std::invalid_argument& e) {  // an encode scale that is zero, Inf or NaN
        throw UsageError(where + ": " + e.what());
      }
      for (std::size_t i = 0; i < k; ++i) {
        std::uint64_t v = 0;
        std::memcpy(&v, &buf[i * (df.width / 8)], df.width / 8);
        out += hex(v, df.hex_digits());
        out += '\n';
      }
    } else {
      for (std::uint8_t c : codes) {
        const Result r = dequantize_element(elem, sfmt, static_cast<std::uint32_t>(scale), c, co.to.id, co.ctx, *co.dialect);
        out += hex(r.code, df.hex_digits());
        out += '\n';
      }
    }
    output.chunk();
  }
  output.commit();
  return 0;
}

}  // namespace softmx::cli
