// tools/softmx/cmd_recipe.cpp: `softmx recipe` and `softmx recipes`, TransformerEngine's
// quantization recipes (include/softmx/recipe.hpp does the work; docs/RECIPES.md is the
// specification).
//
//   softmx recipe NAME --shape MxK [--from f32|bf16|f16] [--binary] [options] [-o OUT] [FILE|-]
//     reads the tensor (row-major raw hex codes of --from, whitespace-separated; with --binary
//     little-endian codes of 2 or 4 bytes) from FILE or stdin and writes both outputs of one
//     quantize_recipe call as text: a "# recipe" header with the resolved settings, then for
//     each output a "# rowwise"/"# columnwise" line (shape, formats, block, amax, tensor scale and
//     its inverse, flags) and its sections "codes", "scales", "multipliers" (and "rht_input"),
//     one matrix row per line in raw hex; --layouts adds the scales as TE's compact tensor and
//     cuBLAS's swizzled layout, --dequantize DST each output's dequantization.
//     With --seed S the input is the library's recipe_test_input(--from, M*K, S) instead.
//   softmx recipes (or softmx recipe --list)
//     one line per recipe: name, TE class, summary.
//
// The command only translates: options into RecipeOptions, the library's std::invalid_argument
// into a usage error naming the option.
#include <bit>
#include <utility>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/recipe.hpp"
#include "softmx/vectors/output_file.hpp"
#include "tensor_io.hpp"
#include "tokens.hpp"

namespace softmx::cli {
namespace {

bool flag01(const Args& a, const char* opt, std::optional<bool>& out) {
  const auto v = a.get(opt);
  if (!v) return false;
  if (*v == "0") out = false;
  else if (*v == "1") out = true;
  else throw UsageError(std::string("--") + opt + " expects 0 or 1, got " + quote(*v, '\''));
  return true;
}

std::uint32_t f32_bits_arg(const std::string& v, const char* opt, const char* what) {
  const auto b = parse_hex_exact(v, 8);
  if (!b) throw UsageError(std::string("--") + opt + " expects 8 hex digits (the f32 bits of " + what + "), got " + quote(v, '\''));
  return static_cast<std::uint32_t>(*b);
}

/// `n` codes of `src` (2 or 4 bytes each) as hex text tokens or little-endian bytes.
std::vector<std::uint8_t> read_tensor(InputStream& s, FormatId src, std::size_t n, bool binary) {
  const Format& f = format(src);
  const std::size_t w = f.width / 8;
  std::vector<std::uint8_t> bytes(n * w);
  if (binary) {
    std::vector<char> buf(n * w + 1);
    s.in->read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(s.in->gcount());
    if (s.in->bad()) throw UsageError(s.name + ": read error");
    if (got != n * w)
      throw UsageError(s.name + ": expected " + std::to_string(n * w) + " bytes (" + std::to_string(n) + " " +
                       std::string(f.name) + " codes of " + std::to_string(w) + " bytes, little-endian, for --shape), got " +
                       (got > n * w ? "more" : std::to_string(got)));
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t v = 0;
      for (std::size_t b = 0; b < w; ++b) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(buf[i * w + b])) << (8 * b);
      std::memcpy(&bytes[i * w], &v, w);  // host order for the library
    }
    return bytes;
  }
  TokenReader tr(*s.in, s.name);
  std::string tok;
  std::size_t i = 0;
  while (tr.next(tok)) {
    if (i == n)
      throw UsageError(tr.where() + ": more values than --shape holds (" + std::to_string(n) + ")");
    const auto v = parse_code(f, tok, tr.where());
    const auto v32 = static_cast<std::uint32_t>(v);
    const auto v16 = static_cast<std::uint16_t>(v);
    std::memcpy(&bytes[i * w], w == 4 ? static_cast<const void*>(&v32) : &v16, w);
    ++i;
  }
  if (i != n)
    throw UsageError(s.name + ": expected " + std::to_string(n) + " values (--shape), got " + std::to_string(i));
  return bytes;
}

/// One random value per element of an output, raw hex of `digits` digits below 2^width.
std::vector<std::uint64_t> read_rbits(const std::string& path, const char* opt, std::size_t n, unsigned width) {
  InputStream s(path, false);
  TokenReader tr(*s.in, s.name);
  const int digits = static_cast<int>((width + 3) / 4);
  std::vector<std::uint64_t> r;
  std::string tok;
  while (tr.next(tok)) {
    const auto v = parse_hex_exact(tok, digits);
    if (!v || (width < 64 && (*v >> width)))
      throw UsageError(std::string("--") + opt + " " + tr.where() + ": expected random bits as " + std::to_string(digits) +
                       " hex digits (below 2^" + std::to_string(width) + "), got " + quote(tok));
    r.push_back(*v);
  }
  if (r.size() != n)
    throw UsageError(std::string("--") + opt + " " + s.name + ": expected one random value per element of the output (" +
                     std::to_string(n) + "), got " + std::to_string(r.size()));
  return r;
}

void write_matrix(std::string& out, const std::string& title, std::size_t rows, std::size_t cols,
                  const auto& values, int digits, const std::string& note = "") {
  out += title + " " + std::to_string(rows) + "x" + std::to_string(cols) + note + "\n";
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (c) out += ' ';
      out += hex(values[r * cols + c], digits);
    }
    out += '\n';
  }
}

/// One output; with `dst` its dequantization, with `layouts` its scales as TE's compact tensor and
/// (MXFP8, NVFP4) in the cuBLAS 128x4 swizzled layout.
void write_output(vec::OutputFile& output, const RecipeTensor& t, RecipeDirection direction, std::optional<FormatId> dst,
                  bool layouts) {
  const RecipeOutput& o = direction == RecipeDirection::rowwise ? *t.rowwise : *t.columnwise;
  const std::string dir(name(direction));
  std::string& out = output.text();
  const int cd = format(o.element).hex_digits();
  const int sd = format(o.scale_format).hex_digits();
  out += std::string("# ") + dir + " rows=" + std::to_string(o.rows) + " cols=" + std::to_string(o.cols) +
         " element=" + std::string(format(o.element).name) + " block=" + std::to_string(o.block_rows) + "x" +
         std::to_string(o.block_cols) + " scale_format=" + std::string(format(o.scale_format).name) +
         " scale_shape=" + std::to_string(o.scale_rows) + "x" + std::to_string(o.scale_cols) + " amax=" + hex(o.amax, 8) +
         " tensor_scale=" + hex(o.tensor_scale, 8) + " tensor_scale_inv=" + hex(o.tensor_scale_inv, 8) +
         " flags=" + hex(o.flags, 2) + "\n";
  write_matrix(out, std::string(dir) + " codes", o.rows, o.cols, o.codes, cd);
  output.chunk();
  write_matrix(out, std::string(dir) + " scales", o.scale_rows, o.scale_cols, o.scales, sd);
  write_matrix(out, std::string(dir) + " multipliers", o.scale_rows, o.scale_cols, o.multipliers, 8);
  if (!o.rht_input.empty()) write_matrix(out, std::string(dir) + " rht_input", o.rows, o.cols, o.rht_input, 4);
  output.chunk();
  if (layouts) {
    const PaddedScales te = te_compact_scales(t, direction);
    write_matrix(out, dir + " te_scales", te.rows, te.cols, te.codes, sd);
    if (o.scale_format != FormatId::f32) {
      const std::vector<std::uint8_t> sw = gemm_swizzled_scales(t, direction);
      write_matrix(out, dir + " swizzled_scales", 1, sw.size(), sw, 2);
    }
    output.chunk();
  }
  if (dst) {
    const Format& df = format(*dst);
    std::vector<std::uint32_t> v32(o.rows * o.cols);
    std::vector<std::uint16_t> v16(o.rows * o.cols);
    const Flags f = dequantize_recipe(t, direction, *dst, df.width == 32 ? static_cast<void*>(v32.data()) : v16.data());
    const std::string note = " to=" + std::string(df.name) + " flags=" + hex(f, 2);
    if (df.width == 32) write_matrix(out, dir + " dequantized", o.rows, o.cols, v32, 8, note);
    else write_matrix(out, dir + " dequantized", o.rows, o.cols, v16, 4, note);
    output.chunk();
  }
}

/// The library's message for a refused option, with the command-line option it concerns named
/// (the library speaks of RecipeOptions fields: "random_hadamard", "a given amax").
std::string with_option(const std::string& what) {
  static const std::pair<const char*, const char*> kOptions[] = {
      {"per rowwise element", "--rbits-rowwise FILE"},
      {"per columnwise element", "--rbits-columnwise FILE"},
      {"rht_amax", "--rht-amax"},
      {"Hadamard", "--random-hadamard"},
      {"stochastic rounding", "--stochastic-rounding"},
      {"rbits_width", "--rbits"},
      {"fp8_format", "--fp8-format"},
      {"power_2_scale", "--power-2-scale"},
      {"amax_epsilon", "--amax-epsilon"},
      {"given amax", "--amax"},
      {"2-d", "--tiles-2d"},
      {"dialect", "--dialect"},
      {"dimensions divisible", "--shape"},
      {"reference", "--impl"},
      {"neither the rowwise nor", "--outputs"},
      {"source must be", "--from"},
  };
  for (const auto& [phrase, option] : kOptions)
    if (what.find(phrase) != std::string::npos) return what + " (option " + option + ")";
  return what;
}

int list_recipes() {
  Output out;
  for (const Recipe& r : all_recipes())
    out.printf("%-15s %-22s %s\n", std::string(r.name).c_str(), std::string(r.te_name).c_str(),
               std::string(r.summary).c_str());
  out.commit();
  return 0;
}

}  // namespace

int cmd_recipes(int argc, char** argv) {
  const Args a = parse_command("recipes", argc, argv, 2);
  if (!a.positionals.empty()) throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (recipes takes none)");
  return list_recipes();
}

int cmd_recipe(int argc, char** argv) {
  // "-o FILE" (before a "--") as gen, sweep and merge take it, beside --out FILE.
  const Args a = parse_command("recipe", argc, argv, 2, {}, true);
  if (a.has_switch("list")) {
    if (!a.positionals.empty() || !a.options.empty())
      throw UsageError("--list takes no other argument");
    return list_recipes();
  }
  if (a.positionals.empty()) throw UsageError("missing the recipe NAME (" + joined_names(all_recipes(), ", ") + "; softmx recipes lists them)");
  if (a.positionals.size() > 2) throw UsageError("unexpected argument " + quote(a.positionals[2], '\'') + " (one NAME and one FILE)");
  const Recipe* recipe = find_recipe(a.positionals[0]);
  if (!recipe) throw UsageError("unknown recipe " + quote(a.positionals[0], '\'') + " (expected one of " + joined_names(all_recipes(), ", ") + ")");
  const auto shape_text = a.get("shape");
  if (!shape_text) throw UsageError("missing --shape MxK (the tensor's dimensions, row-major; for example 128x256)");
  const std::vector<std::size_t> shape = parse_dims(*shape_text);
  const FormatId src = a.get("from") ? parse_named_format_arg("from", *a.get("from")) : FormatId::f32;
  if (src != FormatId::f32 && src != FormatId::bf16 && src != FormatId::f16)
    throw UsageError("--from must be f32, bf16 or f16 (TE's input dtypes), not " + *a.get("from"));

  RecipeOptions o;
  if (auto v = a.get("role")) {
    const auto r = parse_tensor_role(*v);
    if (!r) throw UsageError("--role expects input, weight or gradient, got " + quote(*v, '\''));
    o.role = *r;
  }
  if (auto v = a.get("impl")) {
    const auto r = parse_recipe_impl(*v);
    if (!r) throw UsageError("--impl expects kernel, reference or custom-reference, got " + quote(*v, '\''));
    o.impl = *r;
  }
  if (auto v = a.get("outputs")) {
    if (*v == "rowwise") o.columnwise = false;
    else if (*v == "columnwise") o.rowwise = false;
    else if (*v != "both") throw UsageError("--outputs expects rowwise, columnwise or both, got " + quote(*v, '\''));
  }
  if (auto v = a.get("fp8-format")) {
    const auto f = parse_fp8_format(*v);
    if (!f) throw UsageError("--fp8-format expects e4m3 or hybrid, got " + quote(*v, '\''));
    o.fp8_format = *f;
  }
  flag01(a, "power-2-scale", o.power_2_scale);
  flag01(a, "tiles-2d", o.tiles_2d);
  flag01(a, "random-hadamard", o.random_hadamard);
  flag01(a, "stochastic-rounding", o.stochastic_rounding);
  if (auto v = a.get("amax-epsilon")) o.amax_epsilon = f32_bits_arg(*v, "amax-epsilon", "TE's amax_epsilon");
  if (auto v = a.get("amax")) o.amax = f32_bits_arg(*v, "amax", "the tensor's amax");
  if (auto v = a.get("rht-amax")) o.rht_amax = f32_bits_arg(*v, "rht-amax", "the columnwise RHT output's amax");
  if (auto v = a.get("rht-signs")) {
    const auto m = parse_hex_exact(*v, 4);
    if (!m) throw UsageError("--rht-signs expects 4 hex digits (a 16-bit mask, bit i set where sign i is -1; TE's is D7E8), got " +
                             quote(*v, '\''));
    o.rht_sign_mask = static_cast<std::uint16_t>(*m);
  }
  if (auto v = a.get("dialect")) {
    o.dialect = find_dialect(*v);
    if (!o.dialect) throw UsageError("unknown dialect " + quote(*v, '\'') + " for --dialect (te-mxfp8: transformer-engine or transformer-engine-2025)");
  }
  if (auto v = a.get("stochastic-form")) {
    const auto f = parse_stochastic_form(*v);
    if (!f) throw UsageError("--stochastic-form expects software or rs, got " + quote(*v, '\''));
    o.stochastic_form = *f;
  }
  o.rbits_width = static_cast<std::uint8_t>(parse_count(a, "rbits", 8, 64));
  if (a.get("rbits") && o.stochastic_form != StochasticForm::rs)
    throw UsageError("--rbits sets the random bits of --stochastic-form rs (the software form takes one byte per element)");

  std::optional<FormatId> dst;
  if (auto v = a.get("dequantize")) {
    const auto f = parse_format(*v);
    if (!f || (*f != FormatId::f32 && *f != FormatId::bf16 && *f != FormatId::f16))
      throw UsageError("--dequantize expects f32, bf16 or f16 (TE's output dtypes), got " + quote(*v, '\''));
    dst = *f;
  }

  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  const bool binary = a.has_switch("binary");
  std::vector<std::uint8_t> data;
  std::optional<std::uint64_t> seed;
  if (a.get("seed")) seed = parse_seed(a, 1);
  if (seed) {
    // The library's test tensor instead of an input (recipe_test_input), in host order.
    if (a.positionals.size() > 1)
      throw UsageError("--seed makes the input tensor: no FILE (" + quote(a.positionals[1], '\'') + ") with it");
    if (binary) throw UsageError("--binary describes an input FILE; --seed makes the input tensor");
    const std::vector<std::uint32_t> v = recipe_test_input(src, n, *seed);
    const std::size_t w = format(src).width / 8;
    data.resize(n * w);
    for (std::size_t i = 0; i < n; ++i) {
      const auto v16 = static_cast<std::uint16_t>(v[i]);
      std::memcpy(&data[i * w], w == 4 ? static_cast<const void*>(&v[i]) : &v16, w);
    }
  } else {
    InputStream in(a.positionals.size() > 1 ? std::optional<std::string>(a.positionals[1]) : std::nullopt, binary);
    data = read_tensor(in, src, n, binary);
  }

  const unsigned width = o.stochastic_form == StochasticForm::rs ? o.rbits_width : 8;
  std::vector<std::uint64_t> rrow, rcol;
  if (auto v = a.get("rbits-rowwise")) {
    rrow = read_rbits(*v, "rbits-rowwise", n, width);
    o.rbits_rowwise = rrow;
  }
  if (auto v = a.get("rbits-columnwise")) {
    rcol = read_rbits(*v, "rbits-columnwise", n, width);
    o.rbits_columnwise = rcol;
  }

  RecipeTensor t;
  try {
    t = quantize_recipe(*recipe, src, data.data(), shape, o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(with_option(e.what()));
  }

  // Options TE's recipe would not read under the settings resolved: refused, not ignored.
  if (!t.random_hadamard && a.get("rht-signs"))
    throw UsageError("--rht-signs applies with the random Hadamard transform (te-nvfp4, inputs and gradients, or --random-hadamard 1); it is off here");
  if (!t.stochastic_rounding)
    for (const char* opt : {"stochastic-form", "rbits", "rbits-rowwise", "rbits-columnwise"})
      if (a.get(opt))
        throw UsageError(std::string("--") + opt +
                         " applies with stochastic rounding (te-nvfp4 gradients, or --stochastic-rounding 1); it is off here");

  // The output file (atomically replaced; standard output for "-" or none), opened only now that
  // the input was good, so a refused run leaves an existing file as it was.
  vec::OutputFile output(a.get("out").value_or(std::string(vec::kStandardOutput)));
  auto b = [](bool v) { return std::string(v ? "1" : "0"); };
  output.text() += "# recipe " + std::string(recipe->name) + " (" + std::string(recipe->te_name) +
                   ") impl=" + std::string(name(t.impl)) + " role=" + std::string(name(t.role)) +
                   " source=" + std::string(format(src).name) + " shape=" + *shape_text +
                   " rows=" + std::to_string(t.rows) + " cols=" + std::to_string(t.cols) +
                   " element=" + std::string(format(t.element).name) + " power_2_scale=" + b(t.power_2_scale) +
                   " tiles_2d=" + b(t.tiles_2d) + " random_hadamard=" + b(t.random_hadamard) +
                   " stochastic_rounding=" + b(t.stochastic_rounding) +
                   " dialect=" + (t.dialect ? std::string(t.dialect->name) : std::string("-")) +
                   (seed ? " seed=" + std::to_string(*seed) : std::string()) + "\n";
  const bool layouts = a.has_switch("layouts");
  if (t.rowwise) write_output(output, t, RecipeDirection::rowwise, dst, layouts);
  if (t.columnwise) write_output(output, t, RecipeDirection::columnwise, dst, layouts);
  output.commit();
  return 0;
}

}  // namespace softmx::cli
