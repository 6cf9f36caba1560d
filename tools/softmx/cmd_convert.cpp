// tools/softmx/cmd_convert.cpp: `softmx convert`.
//
//   softmx convert --from SRC --to DST [options] < codes    one "INPUT RESULT FLAGS" line each
//   softmx convert --to DST [options] VALUE...              decimal values, for people
//   softmx convert --from SRC --to DST [options] HEX...     raw codes given as arguments
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "tokens.hpp"
#include "softmx/describe.hpp"
#include "softmx/convert.hpp"
#include "softmx/exact.hpp"

namespace softmx::cli {
namespace {

Converter make_converter(const Format& src, const ConversionOptions& o) {
  try {
    return Converter(src, o.to, o.ctx, *o.dialect);
  } catch (const Unsupported& e) {
    throw UsageError(e.what());
  }
}

std::uint64_t parse_random(std::string_view text, unsigned r, std::string_view where) {
  const int digits = static_cast<int>((r + 3) / 4);
  auto v = parse_hex_exact(text, digits);
  if (!v || (r < 64 && (*v >> r) != 0))
    throw UsageError(std::string(where) + ": expected the random bits as " + std::to_string(digits) +
                     " hex digits (an integer below 2^" + std::to_string(r) + ", set by --rbits), got " + quote(text));
  return *v;
}

// The stdin stream: the contract scripts depend on.
int convert_stream(const ConversionOptions& o) {
  const Format& src = format(*o.from);
  const Format& dst = format(o.to);
  const Converter conv = make_converter(*o.from, o);
  const bool rs = o.ctx.rounding == Rounding::rs;
  const int rdigits = (o.ctx.rbits_width + 3) / 4;
  Output output;
  std::string& out = output.text();
  for (StdinLines in; in.next();) {
    const std::string &line = in.line, &where = in.where;
    const auto f = split_fields(line);
    const std::size_t want = rs ? 2 : 1;
    if (f.size() != want) {
      if (f.empty())
        throw UsageError(where + ": empty line; expected " + expected_code(src) + (rs ? " and the random bits" : ""));
      if (rs)
        throw UsageError(where + ": expected two fields, " + expected_code(src) + " and the random bits in hex, got " +
                         std::to_string(f.size()));
      throw UsageError(where + ": expected one field, " + expected_code(src) + ", got " + std::to_string(f.size()) +
                       " (random bits are read only with --round rs)");
    }
    const std::uint64_t code = parse_code(src, f[0], where);
    const std::uint64_t r = rs ? parse_random(f[1], o.ctx.rbits_width, where) : 0;
    const Result res = rs ? conv(code, r) : conv(code);
    out += hex(code, src.hex_digits());
    out += ' ';
    if (rs) {
      out += hex(r, rdigits);
      out += ' ';
    }
    out += hex(res.code, dst.hex_digits());
    out += ' ';
    out += hex(res.flags, 2);
    out += '\n';
    output.chunk();
  }
  output.commit();
  return 0;
}

std::string flags_phrase(Flags f) { return "flags " + hex(f, 2) + " (" + flags_words(f) + ")"; }

// Values given as arguments, for people.
int convert_values(const ConversionOptions& o, const std::vector<std::string>& values, const Args& a) {
  const Format& dst = format(o.to);
  if (auto why = unsupported_reason(*o.dialect, o.to, o.ctx)) throw UsageError(*why);
  Context ctx = o.ctx;
  if (ctx.rounding == Rounding::rs) {
    auto v = a.get("random");
    if (!v) throw UsageError("--round rs with values on the command line needs --random HEX (the random bits)");
    ctx.rbits = parse_random(*v, ctx.rbits_width, "--random");
  }
  Output out;
  for (const std::string& text : values) {
    std::string label;
    Result res;
    if (o.from) {
      const Format& src = format(*o.from);
      const std::uint64_t code = parse_code(src, text, "argument " + quote(text));
      res = make_converter(*o.from, o)(code, ctx.rbits);
      label = hex(code, src.hex_digits()) + " (" + std::string(src.name) + " " + value_text(src, code) + ")";
    } else {
      std::string err;
      auto v = parse_exact(text, &err);
      if (!v) throw UsageError("argument " + quote(text) + ": " + err);
      res = round_pack(dst, to_unpacked(*v), ctx, *o.dialect);
      label = text;
    }
    out.printf("%s -> %s %s = %s  %s\n", label.c_str(), std::string(dst.name).c_str(),
               hex(res.code, dst.hex_digits()).c_str(), value_text(dst, res.code).c_str(), flags_phrase(res.flags).c_str());
  }
  out.commit();
  return 0;
}

}  // namespace

int cmd_convert(int argc, char** argv) {
  const Args a = parse_command("convert", argc, argv, 2);
  const ConversionOptions o = conversion_options(a, true);
  // Random bits mean something only to stochastic rounding: given without it, they would be
  // silently ignored.
  if (o.ctx.rounding != Rounding::rs) {
    const std::string mode(name(o.ctx.rounding));
    if (a.get("random"))
      throw UsageError("--random gives the random bits of --round rs; the rounding here is " + mode);
    if (a.get("rbits")) throw UsageError("--rbits applies only with --round rs; the rounding here is " + mode);
  }
  if (!a.positionals.empty()) return convert_values(o, a.positionals, a);
  if (!o.from)
    throw UsageError("give --from SRC to read raw codes from stdin, or decimal VALUEs as arguments");
  if (a.get("random")) throw UsageError("--random applies to VALUE arguments; on stdin each line carries its random bits");
  return convert_stream(o);
}

}  // namespace softmx::cli
