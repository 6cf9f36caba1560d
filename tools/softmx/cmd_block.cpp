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
//     "# nvfp4 global_amax=XXXXXXXX encode_scale=XXXXXXXX" (f32 bits). Streamed in bounded
//     memory: with --global-amax HEX in one pass; without it, stdin is read twice when it is a
//     regular file (first for the amax), and a pipe is held as packed codes (4 bytes a value).
//
//   softmx dequantize --from FMT [--to f32] [--block K] [--round] [--sat] [--dialect NAME] [--scale-format SPEC]
//     reads lines SCALE CODE ... (K codes) and writes one raw hex code of --to per element.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
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
  const Format f = parse_spec_option(option, value);
  if (auto why = mx_element_reason(f)) throw UsageError("--" + std::string(option) + " " + quote(value, '\'') + ": " + *why);
  note_spec(value);  // taken: now the note, if any
  return f;
}

std::size_t parse_block_size(const Args& a, std::size_t dflt) { return parse_count(a, "block", dflt, 1 << 20); }

std::uint64_t parse_hex_field(std::string_view text, int digits, const std::string& where, const std::string& what) {
  auto v = parse_hex_exact(text, digits);
  if (!v) throw UsageError(where + ": expected " + what + ", got " + quote(text));
  return *v;
}

void write_block_line(std::string& out, std::uint64_t scale, int scale_digits, std::span<const std::uint8_t> codes,
                      int code_digits) {
  out += hex(scale, scale_digits);
  for (std::uint8_t c : codes) {
    out += ' ';
    out += hex(c, code_digits);
  }
  out += '\n';
}

// ---- quantize --to nvfp4 -----------------------------------------------------------------------
//
// NVFP4's encode scale S_enc = 2688 / global_amax (BLOCKS.md 6) depends on every value of the
// tensor, while each block's scale and codes depend only on S_enc and the block's own values.
// So the tensor is quantized in chunks of whole blocks, each one call of quantize_nvfp4 with the
// global amax given, which gives the bytes one call over the whole tensor gives. The amax is
// --global-amax, or comes from a first pass over the input: stdin read twice when it is a
// regular file (the shell's `< FILE`), or (a pipe, which can be read once) held in memory as
// packed codes until the end. Memory: a few MB of chunk, plus, for a pipe without
// --global-amax, 4 bytes per value (and 4 or 8 more per value with --round rs).

constexpr std::size_t kNvfp4Block = 16;
/// Values per chunk: 4096 blocks, about 3 MB of working memory in quantize_nvfp4.
constexpr std::size_t kNvfp4Chunk = 4096 * kNvfp4Block;

/// Under --round rs, reads the token that follows a value, its random bits (`rdigits` hex
/// digits, checked by the caller), into `tok`. Throws UsageError when the input ends after the
/// value (both quantize paths: one message).
void next_random_bits(TokenReader& tr, std::string& tok, int rdigits) {
  if (!tr.next(tok))
    throw UsageError(tr.where() + ": the input ends after a value; with --round rs each value is followed by " +
                     std::to_string(rdigits) + " hex digits of random bits");
}

/// The values (and, for rs, each value's random bits) read from a stream, chunk by chunk, with
/// the checks and messages of every quantize path.
class Nvfp4Reader {
 public:
  Nvfp4Reader(std::istream& in, const Format& src, bool rs, unsigned rwidth)
      : tr_(in), src_(src), rs_(rs), rwidth_(rwidth), rdigits_(static_cast<int>((rwidth + 3) / 4)) {}

  /// Appends up to `max` values to `codes` (with rs, their random bits to `rbits`); returns how
  /// many (0 at the end of the input). Throws UsageError for a bad token.
  std::size_t read(std::size_t max, std::vector<std::uint64_t>& codes, std::vector<std::uint64_t>& rbits) {
    std::size_t n = 0;
    while (n < max && tr_.next(tok_)) {
      codes.push_back(parse_code(src_, tok_, tr_.where()));
      last_line_ = tr_.line();
      if (rs_) {
        next_random_bits(tr_, tok_, rdigits_);
        auto r = parse_hex_exact(tok_, rdigits_);
        if (!r || (rwidth_ < 64 && (*r >> rwidth_)))
          throw UsageError(tr_.where() + ": expected the random bits as " + std::to_string(rdigits_) +
                           " hex digits (below 2^" + std::to_string(rwidth_) + "), got " + quote(tok_));
        rbits.push_back(*r);
      }
      ++n;
    }
    count_ += n;
    return n;
  }

  /// Throws UsageError ("short block") unless the values read so far fill whole blocks of 16.
  void check_whole_blocks() const {
    if (count_ % kNvfp4Block)
      throw UsageError("<stdin>: short block: the input ends after " + std::to_string(count_ % kNvfp4Block) +
                       " of the " + std::to_string(kNvfp4Block) + " values of block " +
                       std::to_string(count_ / kNvfp4Block + 1) + " (line " + std::to_string(last_line_) + ")");
  }

  /// The number of values read so far.
  std::uint64_t count() const { return count_; }

 private:
  TokenReader tr_;
  const Format& src_;
  bool rs_;
  unsigned rwidth_;
  int rdigits_;
  std::string tok_;
  std::uint64_t count_ = 0, last_line_ = 0;
};

/// The largest magnitude among the non-NaN codes of an f32, f16 or bf16 input, as a code of that
/// format. The library's global amax is fmaxf over |x| with NaN ignored (BLOCKS.md 6); for IEEE
/// codes, clearing the sign bit gives |x|, and the magnitudes of non-NaN values are ordered as
/// those codes are, so the largest code is the amax, exactly.
class MaxMagnitude {
 public:
  explicit MaxMagnitude(FormatId src)
      : sign_(src == FormatId::f32 ? 0x80000000u : 0x8000u),
        inf_(src == FormatId::f32 ? 0x7F800000u : src == FormatId::f16 ? 0x7C00u : 0x7F80u) {}
  void add(std::uint64_t code) {
    const std::uint64_t m = code & ~sign_;
    if (m <= inf_ && m > max_) max_ = m;  // above Inf: a NaN, ignored
  }
  std::uint64_t code() const { return max_; }

 private:
  std::uint64_t sign_, inf_, max_ = 0;
};

/// Quantizes whole blocks, chunk by chunk, and writes them, after the header line the first
/// time. Precondition: o.global_amax is set, so that every chunk has the tensor's S_enc.
class Nvfp4Writer {
 public:
  Nvfp4Writer(FormatId src, const Nvfp4Options& o, Output& out) : src_(src), o_(o), out_(out) {}

  /// codes.size(): a multiple of 16; with rs, rbits holds one value per code.
  void write(std::span<const std::uint64_t> codes, std::span<const std::uint64_t> rbits) {
    if (codes.empty()) return;
    const void* data;
    if (src_ == FormatId::f32) {
      f32_.resize(codes.size());  // the library's storage type: the code's width
      for (std::size_t i = 0; i < codes.size(); ++i) f32_[i] = static_cast<std::uint32_t>(codes[i]);
      data = f32_.data();
    } else {
      f16_.resize(codes.size());
      for (std::size_t i = 0; i < codes.size(); ++i) f16_[i] = static_cast<std::uint16_t>(codes[i]);
      data = f16_.data();
    }
    Nvfp4Options o = o_;
    o.rbits = rbits;
    const std::size_t shape[1] = {codes.size()};
    const Nvfp4Tensor t = quantize_nvfp4(src_, data, shape, 0, o);
    std::string& text = out_.text();
    if (!header_) {
      text += "# nvfp4 global_amax=" + hex(t.global_amax, 8) + " encode_scale=" + hex(t.encode_scale, 8) + "\n";
      header_ = true;
    }
    for (std::size_t b = 0; b < t.scales.size(); ++b) {
      write_block_line(text, t.scales[b], 2, std::span(t.codes).subspan(kNvfp4Block * b, kNvfp4Block), 1);
      out_.chunk();
    }
  }

 private:
  FormatId src_;
  Nvfp4Options o_;
  Output& out_;
  bool header_ = false;
  std::vector<std::uint32_t> f32_;
  std::vector<std::uint16_t> f16_;
};

/// Reads `in` to its end, writing each chunk as it comes. As in the other block paths, the whole
/// blocks before a bad token or a short last block are written before its error. `seen`, when
/// given, gets every code.
void quantize_nvfp4_chunks(Nvfp4Reader& in, Nvfp4Writer& w, bool rs, MaxMagnitude* seen = nullptr) {
  std::vector<std::uint64_t> codes, rbits;
  codes.reserve(kNvfp4Chunk);
  if (rs) rbits.reserve(kNvfp4Chunk);
  auto write_whole_blocks = [&] {
    const std::size_t values = rs ? std::min(codes.size(), rbits.size()) : codes.size();
    const std::size_t whole = values / kNvfp4Block * kNvfp4Block;
    w.write(std::span(codes).first(whole), rs ? std::span(rbits).first(whole) : std::span<const std::uint64_t>());
  };
  for (;;) {
    codes.clear();
    rbits.clear();
    std::size_t n;
    try {
      n = in.read(kNvfp4Chunk, codes, rbits);
    } catch (const UsageError&) {
      write_whole_blocks();
      throw;
    }
    if (seen)
      for (std::uint64_t c : codes) seen->add(c);
    write_whole_blocks();
    if (n < kNvfp4Chunk) break;
  }
  in.check_whole_blocks();
}

/// Where stdin starts, when it is a regular file that can be read twice (seekable); nullopt for
/// a pipe, a terminal, a socket or a device.
std::optional<std::streampos> rereadable_stdin() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const std::streampos at = std::cin.tellg();
  if (at == std::streampos(-1)) {
    std::cin.clear();
    return std::nullopt;
  }
  return at;
}

/// A pipe's values held until its end: codes as 4 bytes each, random bits as 4 (--rbits 32 or
/// fewer) or 8, in chunks, so that growing never copies what is held.
class HeldValues {
 public:
  explicit HeldValues(bool wide_rbits) : wide_(wide_rbits) {}
  void add(std::span<const std::uint64_t> codes, std::span<const std::uint64_t> rbits) {
    codes_.emplace_back(codes.begin(), codes.end());
    if (rbits.empty()) return;
    if (wide_) rbits64_.emplace_back(rbits.begin(), rbits.end());
    else rbits32_.emplace_back(rbits.begin(), rbits.end());
  }
  std::size_t chunks() const { return codes_.size(); }
  /// Chunk i widened into `codes` and `rbits`, then released.
  void take(std::size_t i, std::vector<std::uint64_t>& codes, std::vector<std::uint64_t>& rbits) {
    codes.assign(codes_[i].begin(), codes_[i].end());
    std::vector<std::uint32_t>().swap(codes_[i]);
    if (wide_ && i < rbits64_.size()) {
      rbits.assign(rbits64_[i].begin(), rbits64_[i].end());
      std::vector<std::uint64_t>().swap(rbits64_[i]);
    } else if (!wide_ && i < rbits32_.size()) {
      rbits.assign(rbits32_[i].begin(), rbits32_[i].end());
      std::vector<std::uint32_t>().swap(rbits32_[i]);
    } else {
      rbits.clear();
    }
  }

 private:
  bool wide_;
  std::vector<std::vector<std::uint32_t>> codes_, rbits32_;
  std::vector<std::vector<std::uint64_t>> rbits64_;
};

int quantize_nvfp4_stream(const Args& a, FormatId src, const ConversionOptions& co) {
  if (parse_block_size(a, 16) != 16) throw UsageError("nvfp4 blocks hold 16 values; --block must be 16");
  if (src != FormatId::f32 && src != FormatId::bf16 && src != FormatId::f16)
    throw UsageError("nvfp4 quantizes f32, bf16 or f16 input, not " + std::string(format(src).name));
  if (co.ctx.rounding != Rounding::rne && co.ctx.rounding != Rounding::rs)
    throw UsageError("nvfp4 elements round with rne or rs, not " + std::string(name(co.ctx.rounding)));
  const bool rs = co.ctx.rounding == Rounding::rs;
  Nvfp4Options o;
  o.rounding = co.ctx.rounding;
  o.rbits_width = co.ctx.rbits_width;
  if (auto g = a.get("global-amax"))
    o.global_amax = std::bit_cast<float>(static_cast<std::uint32_t>(
        parse_hex_field(*g, 8, "--global-amax", "8 hex digits (the f32 bits of the tensor's amax)")));
  if (auto m = a.get("nvfp4-multiplier")) {
    if (*m == "division") o.multiplier = Nvfp4Multiplier::division;
    else if (*m == "reciprocal-product") o.multiplier = Nvfp4Multiplier::reciprocal_product;
    else throw UsageError("--nvfp4-multiplier expects division or reciprocal-product, got " + quote(*m, '\''));
  }
  const Format& sf = format(src);
  Output output;
  // An empty input gives an empty output (no header either), as every filter.
  if (o.global_amax) {  // one pass
    Nvfp4Reader in(std::cin, sf, rs, co.ctx.rbits_width);
    Nvfp4Writer writer(src, o, output);
    quantize_nvfp4_chunks(in, writer, rs);
    output.commit();
    return 0;
  }
  // The amax of every value first; nothing is written before the whole input was read and
  // checked, as when it was all held in memory.
  auto amax_of = [&](const MaxMagnitude& m) {
    const std::uint32_t f32 = static_cast<std::uint32_t>(m.code());
    const std::uint16_t f16 = static_cast<std::uint16_t>(m.code());
    const std::size_t one[1] = {1};
    // The library's own f32 of that magnitude (f16 and bf16 widen exactly).
    return std::bit_cast<float>(quantize_nvfp4(src, src == FormatId::f32 ? static_cast<const void*>(&f32) : &f16, one, 0).global_amax);
  };
  MaxMagnitude first(src);
  if (const auto start = rereadable_stdin()) {  // a regular file: read it twice
    std::uint64_t count = 0;
    {
      Nvfp4Reader in(std::cin, sf, rs, co.ctx.rbits_width);
      std::vector<std::uint64_t> codes, rbits;
      while (in.read(kNvfp4Chunk, codes, rbits)) {
        for (std::uint64_t c : codes) first.add(c);
        codes.clear();
        rbits.clear();
      }
      in.check_whole_blocks();
      count = in.count();
    }
    if (count == 0) return 0;
    o.global_amax = amax_of(first);
    std::cin.clear();
    if (!std::cin.seekg(*start))
      throw UsageError("<stdin>: cannot seek back to the start of the input for the second pass (give --global-amax)");
    Nvfp4Reader again(std::cin, sf, rs, co.ctx.rbits_width);
    Nvfp4Writer writer(src, o, output);
    MaxMagnitude second(src);
    quantize_nvfp4_chunks(again, writer, rs, &second);
    if (again.count() != count || second.code() != first.code()) {
      const int d = sf.hex_digits();
      throw UsageError("<stdin>: the input changed between the two passes (" + std::to_string(count) +
                       " values of amax " + hex(first.code(), d) + ", then " + std::to_string(again.count()) +
                       " of amax " + hex(second.code(), d) +
                       "): without --global-amax, quantize --to nvfp4 reads a regular file twice, first for the "
                       "tensor's amax; the output written is not valid");
    }
    output.commit();
    return 0;
  }
  // A pipe: held, packed, until its end.
  HeldValues held(co.ctx.rbits_width > 32);
  {
    Nvfp4Reader in(std::cin, sf, rs, co.ctx.rbits_width);
    std::vector<std::uint64_t> codes, rbits;
    while (in.read(kNvfp4Chunk, codes, rbits)) {
      for (std::uint64_t c : codes) first.add(c);
      held.add(codes, rbits);
      codes.clear();
      rbits.clear();
    }
    in.check_whole_blocks();
    if (in.count() == 0) return 0;
  }
  o.global_amax = amax_of(first);
  Nvfp4Writer writer(src, o, output);
  std::vector<std::uint64_t> codes, rbits;
  for (std::size_t i = 0; i < held.chunks(); ++i) {
    held.take(i, codes, rbits);
    writer.write(codes, rbits);
  }
  output.commit();
  return 0;
}

}  // namespace

int cmd_quantize(int argc, char** argv) {
  const Args a = parse_filter_command("quantize", argc, argv, "values");
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
        next_random_bits(tr, tok, rdigits);
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
  const Args a = parse_filter_command("dequantize", argc, argv, "blocks");
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

  Output output;
  std::string& out = output.text();
  for (StdinLines in; in.next();) {
    const std::string &line = in.line, &where = in.where;
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
    if (scale > scf.code_mask()) throw UsageError(where + ": scale " + quote(f[0], '"', 40) + " is out of range: expected " + scale_what);
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
