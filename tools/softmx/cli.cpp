// tools/softmx/cli.cpp: see cli.hpp.
#include "cli.hpp"

#include "softmx/block.hpp"

#include <algorithm>
#include <cstdarg>
#include <charconv>

namespace softmx::cli {

std::optional<std::string> Args::get(std::string_view name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

bool Args::has_switch(std::string_view name) const {
  return std::find(switches.begin(), switches.end(), name) != switches.end();
}

namespace {

std::string option_list(std::initializer_list<std::string_view> a, std::initializer_list<std::string_view> b) {
  std::string s;
  for (auto l : {a, b})
    for (std::string_view o : l) {
      if (!s.empty()) s += ", ";
      s += "--";
      s += o;
    }
  return s.empty() ? "none" : s;
}

bool contains(std::initializer_list<std::string_view> l, std::string_view v) {
  return std::find(l.begin(), l.end(), v) != l.end();
}

}  // namespace

Args parse_args(std::string command, int argc, char** argv, int first,
                std::initializer_list<std::string_view> value_options,
                std::initializer_list<std::string_view> switch_options) {
  Args a;
  a.command = std::move(command);
  bool options_done = false;
  for (int i = first; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (options_done || arg.size() < 2 || arg.substr(0, 2) != "--") {
      a.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string_view name = arg.substr(2);
    std::optional<std::string_view> value;
    if (auto eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (contains(switch_options, name)) {
      if (value) throw UsageError("option --" + std::string(name) + " takes no value");
      a.switches.emplace_back(name);
      continue;
    }
    if (!contains(value_options, name))
      throw UsageError("unknown option --" + quote(name, 0) + " (this command accepts " +
                       option_list(value_options, switch_options) + ")");
    if (!value) {
      if (i + 1 >= argc) throw UsageError("option --" + std::string(name) + " needs a value");
      value = argv[++i];
    }
    if (a.options.count(name)) throw UsageError("option --" + std::string(name) + " given twice");
    a.options.emplace(std::string(name), std::string(*value));
  }
  return a;
}

FormatId parse_format_arg(std::string_view option, std::string_view value) {
  if (auto f = parse_format(value)) return *f;
  std::string known;
  for (const Format& f : all_formats()) {
    if (!known.empty()) known += ", ";
    known += f.name;
  }
  throw UsageError("unknown format " + quote(value, '\'') + " for --" + std::string(option) + " (expected one of " +
                   known + ")");
}

std::optional<ScaleRule> scale_rule_option(const Args& a) {
  const auto r = a.get("scale");
  if (!r) return std::nullopt;
  const auto rule = parse_scale_rule(*r);
  if (!rule) throw UsageError("unknown scale rule " + quote(*r, '\'') + " for --scale (expected floor, ceil, even, rceil or floor-log2-rn)");
  return rule;
}

ConversionOptions conversion_options(const Args& a, bool need_to) {
  ConversionOptions o;
  if (auto v = a.get("from")) o.from = parse_format_arg("from", *v);
  if (auto v = a.get("to")) {
    o.to = parse_format_arg("to", *v);
  } else if (need_to) {
    throw UsageError("missing --to FORMAT (the destination format)");
  }
  if (auto v = a.get("round")) {
    auto r = parse_rounding(*v);
    if (!r)
      throw UsageError("unknown rounding mode " + quote(*v, '\'') + " for --round (expected rne, rna, rz, ru, rd, ro or rs)");
    o.ctx.rounding = *r;
    o.rounding_given = true;
  }
  if (auto v = a.get("sat")) {
    auto s = parse_saturation(*v);
    if (!s) throw UsageError("unknown saturation " + quote(*v, '\'') + " for --sat (expected finite or none)");
    o.ctx.saturation = *s;
  }
  if (auto v = a.get("tininess")) {
    auto t = parse_tininess(*v);
    if (!t) throw UsageError("unknown tininess " + quote(*v, '\'') + " for --tininess (expected after or before)");
    o.ctx.tininess = *t;
  }
  if (auto v = a.get("rbits")) {
    unsigned r = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), r);
    if (ec != std::errc() || p != v->data() + v->size() || r < 1 || r > 64)
      throw UsageError("--rbits expects the number of random bits, an integer from 1 to 64, got " + quote(*v, '\''));
    o.ctx.rbits_width = static_cast<std::uint8_t>(r);
  }
  const bool sat_given = a.get("sat").has_value();
  o.dialect = &ocp_dialect();
  if (auto v = a.get("dialect")) {
    o.dialect = find_dialect(*v);
    if (!o.dialect) {
      std::string known;
      for (const Dialect& d : all_dialects()) {
        if (!known.empty()) known += ", ";
        known += d.name;
      }
      throw UsageError("unknown dialect " + quote(*v, '\'') + " for --dialect (expected one of " + known + ")");
    }
  }
  // What the dialect uses for this destination unless told otherwise (ocp: rne, satfinite).
  if (a.get("to")) {
    const DestinationSupport& s = o.dialect->support[static_cast<int>(o.to)];
    if (!o.rounding_given) o.ctx.rounding = s.default_rounding;
    if (!sat_given) o.ctx.saturation = s.default_saturation;
  }
  return o;
}

std::optional<std::uint64_t> parse_hex_exact(std::string_view s, int digits) {
  if (static_cast<int>(s.size()) != digits || digits == 0 || digits > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  return v;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) f.push_back(line.substr(i, j - i));
    i = j;
  }
  return f;
}

std::uint64_t parse_count(const Args& a, const char* opt, std::uint64_t dflt, std::uint64_t max) {
  auto v = a.get(opt);
  if (!v) return dflt;
  std::uint64_t k = 0;
  bool ok = !v->empty();
  for (char c : *v) {
    // Stop before k * 10 + d exceeds max (so it cannot wrap around 2^64 either).
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (c < '0' || c > '9' || d > max || k > (max - d) / 10) {
      ok = false;
      break;
    }
    k = k * 10 + d;
  }
  if (!ok || k == 0 || k > max)
    throw UsageError(std::string("--") + opt + " expects an integer from 1 to " + std::to_string(max) + ", got " +
                     quote(*v, '\''));
  return k;
}

unsigned parse_threads(const Args& a, unsigned dflt) {
  return static_cast<unsigned>(parse_count(a, "threads", std::clamp(dflt, 1u, kMaxThreads), kMaxThreads));
}

std::uint64_t parse_seed(const Args& a, std::uint64_t dflt) {
  const auto v = a.get("seed");
  if (!v) return dflt;
  std::uint64_t s = 0;
  bool ok = !v->empty();
  for (char c : *v) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (c < '0' || c > '9' || s > (~std::uint64_t{0} - d) / 10) {
      ok = false;
      break;
    }
    s = s * 10 + d;
  }
  if (!ok) throw UsageError("--seed expects a decimal integer from 0 to 18446744073709551615, got " + quote(*v, '\''));
  return s;
}

namespace {

/// The length of the valid UTF-8 character at s[i] (2..4 bytes; C1 controls excluded), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
  const unsigned c = b(0);
  if (c == 0xC2) return cont(1, 0xA0) ? 2 : 0;  // C2 80..9F: the C1 controls
  if (c >= 0xC3 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

}  // namespace

std::string quote(std::string_view text, char q, std::size_t max) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string shown;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 1;
    std::string piece;
    if (c == '\\' || (q && c == static_cast<unsigned char>(q))) {
      piece = {'\\', static_cast<char>(c)};
    } else if (c >= 0x20 && c < 0x7F) {
      piece = static_cast<char>(c);
    } else if (c >= 0x80 && (n = utf8_length(text, i)) > 0) {
      piece = text.substr(i, n);
    } else {
      n = 1;
      piece = {'\\', 'x', kDigits[c >> 4], kDigits[c & 15]};
    }
    if (shown.size() + piece.size() > max) break;
    shown += piece;
    i += n;
  }
  std::string r;
  if (q) r += q;
  r += shown;
  if (q) r += q;
  if (i < text.size()) r += "... (" + std::to_string(text.size()) + " bytes)";
  return r;
}

std::string json_string(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string r = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      case '\r': r += "\\r"; break;
      default:
        if (c >= 0x20 && c < 0x7F) {
          r += static_cast<char>(c);
        } else {
          r += "\\u00";
          r += kDigits[c >> 4];
          r += kDigits[c & 15];
        }
    }
  }
  return r + "\"";
}

void Output::printf(const char* format, ...) {
  char small[512];
  va_list ap;
  va_start(ap, format);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(small, sizeof small, format, ap);
  va_end(ap);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<std::size_t>(n) < sizeof small) {
    text().append(small, static_cast<std::size_t>(n));
  } else {
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), format, again);
    big.pop_back();
    text() += big;
  }
  va_end(again);
  chunk();
}

std::string hex(std::uint64_t v, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 0xF];
  return s;
}

std::string expected_code(const Format& f) {
  const int d = f.hex_digits();
  std::string s = std::to_string(d) + " hex digit" + (d == 1 ? "" : "s") + " (a" +
                  (f.name[0] == 'e' || f.name[0] == 'f' || f.name[0] == 'i' ? "n " : " ") + std::string(f.name) +
                  (f.width % 4 ? " code, " + hex(0, d) + ".." + hex(f.code_mask(), d) + ")" : " bit pattern)");
  return s;
}

std::uint64_t parse_code(const Format& f, std::string_view text, std::string_view where) {
  auto v = parse_hex_exact(text, f.hex_digits());
  if (!v || *v > f.code_mask())
    throw UsageError(std::string(where) + ": expected " + expected_code(f) + ", got " + quote(text));
  return *v;
}

}  // namespace softmx::cli
