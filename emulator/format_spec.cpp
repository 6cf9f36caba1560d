// emulator/format_spec.cpp: textual format specs, parsed and printed (docs/SEMANTICS.md 1.2).
//
//   spec  := base (':' key '=' value)*
//   base  := a named format or alias | an ml_dtypes name | ['u'] 'e' X 'm' Y ['b' B] [fn|fnuz|fnu]
//            | ['mx'] 'int' N
//   key   := sign | exp | man | bias | specials | subnormals | fixed
//
// The base gives every field (its name rule below); keys then set fields literally. The printer
// is the parser run backwards: it tries the bases a format could be written with and keeps the
// shortest text whose keys make up the difference, so parsing what it prints gives the same
// descriptor by construction (and conformance/test_format_spec.cpp checks it on random
// descriptors).
#include <charconv>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ascii.hpp"
#include "core/format_table.hpp"
#include "format_catalog_tables.hpp"

namespace softmx {
namespace detail {
std::optional<FormatId> named_alias(std::string_view lower);  // formats.cpp
}

namespace {

/// How the bias follows the exponent bits when no key or `b` sets it.
enum class BiasRule : std::uint8_t {
  standard,  ///< default_bias(e)
  plus_one,  ///< default_bias(e) + 1: the `fnuz` suffix (LLVM's and ml_dtypes' E4M3FNUZ bias 8, E5M2FNUZ 16)
  given,     ///< FormatFields::bias as written (a `b` suffix or the bias key)
};

struct Base {
  FormatFields f;
  BiasRule rule = BiasRule::standard;
};

/// Names other libraries give runtime formats, as specs here (ml_dtypes' and PyTorch's dtypes;
/// LLVM's APFloat semantics of the same names).
constexpr std::pair<std::string_view, std::string_view> kRuntimeAliases[] = {
    {"float8_e4m3fnuz", "e4m3fnuz"},
    {"float8_e5m2fnuz", "e5m2fnuz"},
    {"float8_e4m3b11fnuz", "e4m3b11fnuz"},
    {"float8_e4m3b11", "e4m3b11fnuz"},  // ml_dtypes' legacy name (XLA)
    {"float8_e3m4", "e3m4"},
    {"float8_e4m3", "e4m3:specials=ieee"},  // IEEE-like: Inf 0x78, NaN above, max 240
    {"e4m3ieee", "e4m3:specials=ieee"},     // the short name FPnew's FP8ALT files and users write
};

/// The bare name ml_dtypes' legacy float8_e4m3b11 suggests, refused: by the eXmYbB rule it would be
/// bias 11 with OCP E4M3's specials (fn), while ml_dtypes' float8_e4m3b11 is the fnuz format.
constexpr std::string_view kAmbiguousB11 = "e4m3b11";
constexpr std::string_view kAmbiguousB11Why =
    "'e4m3b11' is ambiguous: ml_dtypes' float8_e4m3b11 (= float8_e4m3b11fnuz) is e4m3b11fnuz (bias 11, NaN 0x80 "
    "only, no Inf or -0, max 30), while the eXmYbB rule reads e4m3 with bias 11 and E4M3's fn specials (NaN "
    "0x7F, max 28); write e4m3b11fnuz (or float8_e4m3b11fnuz) or e4m3b11fn";

/// A piece of the caller's spec as a message shows it: bytes outside printable ASCII as \xHH,
/// and at most 40 of them, then "..." and the piece's length. A spec may be any argument a user
/// typed (100 MB, a NUL), and the message must stay one short line.
std::string clip(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  for (; i < s.size() && out.size() < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", c);
      out += b;
    }
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

struct Failer {
  std::string spec;
  [[noreturn]] void operator()(const char* field, const std::string& what) const {
    throw FormatError(field, "format spec '" + clip(spec) + "': " + field + ": " + what);
  }
};

constexpr std::string_view kExpected =
    "expected a format name (f32, bf16, e4m3, e2m1, e8m0, ...), [u]eXmY[fn|fnuz|bB] (e3m4, e4m3fnuz, "
    "e4m3b11fnuz, ue4m3), intN, binaryKpP{s|u}{e|f} (P3109: binary8p3se), or one of these with :key=value fields";

/// A run of decimal digits at s[pos..] (at most 4), or nullopt.
std::optional<int> digits(std::string_view s, std::size_t& pos) {
  const std::size_t start = pos;
  int v = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 4) v = v * 10 + (s[pos++] - '0');
  if (pos == start || (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')) return std::nullopt;
  return v;
}

/// The specials an unsuffixed [u]eXmY names (docs/SEMANTICS.md 1.2), by its signed width 1+X+Y:
/// OCP E4M3 (fn); narrower than 8 bits: none (the OCP MX convention); 8 bits or more:
/// IEEE-like, or fn without a fraction bit (as E8M0), or none without an exponent field.
Specials implied_specials(int e, int m) {
  if (e == 4 && m == 3) return Specials::fn;
  if (1 + e + m < 8) return Specials::none;
  if (m == 0) return Specials::fn;
  if (e == 0) return Specials::none;
  return Specials::ieee;
}

std::optional<Base> parse_spec(std::string_view s, const Failer& fail);

/// The fields of a P3109 format (interim report v4.0 3.1; format.hpp p3109_format), or the
/// reason it is not one softmx can hold.
FormatFields p3109_fields(const P3109Params& a, const std::function<void(const std::string&)>& fail) {
  const std::string name = p3109_name(a);
  if (a.k < 2 || a.k > 16)
    fail(name + ": K = " + std::to_string(a.k) + ": expected a bitwidth K from 2 to 16 (P3109 v4.0 3.1 defines K > 2; "
                "K = 2 is its informative Annex C)");
  if (a.p < 1 || a.p > (a.is_signed ? a.k - 1 : a.k))
    fail(name + ": P = " + std::to_string(a.p) + ": expected a precision " +
         (a.is_signed ? "1 <= P < K (signed)" : "1 <= P <= K (unsigned)") + ", K = " + std::to_string(a.k));
  FormatFields f;
  f.sign = a.is_signed ? SignEncoding::magnitude : SignEncoding::none;
  f.exp_bits = a.k - a.p + (a.is_signed ? 0 : 1);
  f.man_bits = a.p - 1;
  if (f.exp_bits > 8)
    fail(name + ": " + std::to_string(f.exp_bits) + " exponent bits: softmx holds at most 8 (every value an f64 normal "
         "number); expected P >= K - " + (a.is_signed ? "8" : "7"));
  f.bias = 1 << (a.k - a.p - (a.is_signed ? 1 : 0));  // B = 2^(K-P-1) signed, 2^(K-P) unsigned
  f.specials = a.extended ? Specials::extended : a.is_signed ? Specials::fnuz : Specials::fn;
  f.subnormals = true;
  if (a.is_signed && a.extended && a.k == 2)
    fail(name + ": has no finite non-zero value (Annex C: 0, Inf, NaN, -Inf); softmx needs one");
  return f;
}

/// binary{K}p{P}{s|u}{e|f}, or nullopt when b is not of that shape.
std::optional<P3109Params> p3109_shape(std::string_view b) {
  if (!b.starts_with("binary")) return std::nullopt;
  std::size_t pos = 6;
  const auto k = digits(b, pos);
  if (!k || pos >= b.size() || b[pos] != 'p') return std::nullopt;
  ++pos;
  const auto p = digits(b, pos);
  if (!p || pos + 2 != b.size()) return std::nullopt;
  const char sg = b[pos], dm = b[pos + 1];
  if ((sg != 's' && sg != 'u') || (dm != 'e' && dm != 'f')) return std::nullopt;
  return P3109Params{*k, *p, sg == 's', dm == 'e'};
}

/// The base of a spec (lower case), or nullopt when it is not one of the forms.
std::optional<Base> resolve_base(std::string_view b, const Failer& fail) {
  if (const auto id = detail::named_alias(b)) return Base{fields_of(format(*id)), BiasRule::standard};
  if (const auto p3109 = p3109_shape(b))
    return Base{p3109_fields(*p3109, [&](const std::string& what) { fail("name", what); }), BiasRule::given};
  if (b == kAmbiguousB11) fail("name", std::string(kAmbiguousB11Why));
  for (const auto& [n, spec] : kRuntimeAliases)
    if (b == n) return parse_spec(spec, fail);
  std::size_t pos = 0;
  if (b.starts_with("int") || b.starts_with("mxint")) {
    pos = b[0] == 'm' ? 5 : 3;
    const auto n = digits(b, pos);
    if (!n || pos != b.size()) return std::nullopt;
    if (*n < 2 || *n > 25) fail("name", "intN needs N from 2 to 25 (a sign, one integer bit, N - 2 fraction bits), got " +
                                            std::to_string(*n));
    Base r;
    r.f.sign = SignEncoding::twos_complement;
    r.f.exp_bits = 1;
    r.f.man_bits = *n - 2;
    r.f.specials = Specials::none;
    r.f.fixed_point = true;
    return r;
  }
  Base r;
  if (pos < b.size() && b[pos] == 'u') {
    r.f.sign = SignEncoding::none;
    ++pos;
  }
  if (pos >= b.size() || b[pos] != 'e') return std::nullopt;
  ++pos;
  const auto e = digits(b, pos);
  if (!e || pos >= b.size() || b[pos] != 'm') return std::nullopt;
  ++pos;
  const auto m = digits(b, pos);
  if (!m) return std::nullopt;
  if (*e > 8) fail("exp", "expected 0 to 8 exponent bits, got " + std::to_string(*e));
  if (*m > 23) fail("man", "expected 0 to 23 fraction bits, got " + std::to_string(*m));
  r.f.exp_bits = *e;
  r.f.man_bits = *m;
  r.f.specials = implied_specials(*e, *m);
  if (pos < b.size() && b[pos] == 'b') {
    ++pos;
    const auto bias = digits(b, pos);
    if (!bias) return std::nullopt;
    r.f.bias = *bias;
    r.rule = BiasRule::given;
  }
  const std::string_view suffix = b.substr(pos);
  if (suffix == "fnuz") {
    r.f.specials = Specials::fnuz;
    if (r.rule != BiasRule::given) r.rule = BiasRule::plus_one;
  } else if (suffix == "fn") {
    r.f.specials = Specials::fn;
  } else if (suffix == "fnu") {
    r.f.specials = Specials::fn;
    r.f.sign = SignEncoding::none;
  } else if (!suffix.empty()) {
    return std::nullopt;
  }
  return r;
}

std::optional<int> integer(std::string_view v) {
  int x = 0;
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || p != v.data() + v.size() || v.empty()) return std::nullopt;
  return x;
}

std::optional<bool> yes_no(std::string_view v) {
  if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
  if (v == "no" || v == "false" || v == "0" || v == "off") return false;
  return std::nullopt;
}

/// Base and keys of a (lower-case) spec; the bias not yet settled (Base::rule).
std::optional<Base> parse_spec(std::string_view s, const Failer& fail) {
  const std::size_t colon = s.find(':');
  const std::string_view base_text = s.substr(0, colon);
  if (base_text.empty()) fail("name", "the spec starts with ':' or is empty; " + std::string(kExpected));
  std::optional<Base> base = resolve_base(base_text, fail);
  if (!base) fail("name", "unknown format '" + clip(base_text) + "': " + std::string(kExpected));
  Base r = *base;
  std::vector<std::string_view> seen;
  for (std::size_t pos = colon; pos != std::string_view::npos;) {
    const std::size_t next = s.find(':', pos + 1);
    const std::string_view item = s.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
    pos = next;
    const std::size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos || eq == 0)
      fail("key", "expected key=value after ':', got '" + clip(item) + "'");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    for (std::string_view k : seen)
      if (k == key) fail("key", std::string(1, '\'').append(clip(key)).append("' is given twice"));  // not "'" + ...: GCC 12's false -Wrestrict (bug 105651)
    seen.push_back(key);
    const std::string k(key);
    auto bad_value = [&](const std::string& expected) {
      fail(k.c_str(), "expected " + expected + ", got '" + clip(value) + "'");
    };
    if (key == "sign") {
      if (value == "magnitude" || value == "sm" || value == "signed") r.f.sign = SignEncoding::magnitude;
      else if (value == "none" || value == "unsigned") r.f.sign = SignEncoding::none;
      else if (value == "twos" || value == "twos_complement" || value == "2c") r.f.sign = SignEncoding::twos_complement;
      else bad_value("magnitude, none or twos");
    } else if (key == "exp" || key == "man") {
      const auto v = integer(value);
      if (!v) bad_value("an integer");
      if (key == "exp" && (*v < 0 || *v > 8)) bad_value("0 to 8 exponent bits");
      if (key == "man" && (*v < 0 || *v > 23)) bad_value("0 to 23 fraction bits");
      (key == "exp" ? r.f.exp_bits : r.f.man_bits) = *v;
    } else if (key == "bias") {
      const auto v = integer(value);
      if (!v || *v < -100000 || *v > 100000) bad_value("an integer");
      r.f.bias = *v;
      r.rule = BiasRule::given;
    } else if (key == "specials") {
      if (value == "ieee") r.f.specials = Specials::ieee;
      else if (value == "fn") r.f.specials = Specials::fn;
      else if (value == "fnuz") r.f.specials = Specials::fnuz;
      else if (value == "none") r.f.specials = Specials::none;
      else if (value == "extended") r.f.specials = Specials::extended;
      else bad_value("ieee, fn, fnuz or none, or extended (P3109)");
    } else if (key == "subnormals" || key == "fixed") {
      const auto v = yes_no(value);
      if (!v) bad_value("yes or no");
      (key == "fixed" ? r.f.fixed_point : r.f.subnormals) = *v;
    } else {
      fail("key", "unknown key '" + clip(k) + "': expected sign, exp, man, bias, specials, subnormals or fixed");
    }
  }
  return r;
}

FormatFields settle(Base b) {
  if (b.rule != BiasRule::given) b.f.bias = default_bias(b.f.exp_bits) + (b.rule == BiasRule::plus_one ? 1 : 0);
  return b.f;
}

/// The forms of a spec, for listings (softmx formats, softmx.formats()): one row per form
/// resolve_base and parse_spec read, with examples. A new form of the parser gets a row here.
constexpr detail::SpecFormRow kSpecForms[] = {
    {"f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0", "the named formats, and the aliases listed",
     "fp32 bfloat16 float8_e4m3fn fp4"},
    {"eXmY", "sign-magnitude, X exponent bits (0-8), Y fraction bits (0-23); by width 1+X+Y: below 8 no "
             "specials (OCP MX), 8 or more IEEE-like (Inf, NaN), e4m3 is OCP's (NaN 0x7F only)",
     "e1m2 e2m2 e3m4 e5m6"},
    {"ueXmY", "unsigned: the positive half of eXmY (its specials and bias)", "ue4m3 ue5m3 ue8m0"},
    {"eXmYfn eXmYfnuz eXmYfnu", "fn: the all-ones magnitude is the only NaN; fnuz: the -0 code is the only "
                                "NaN, no Inf or -0, default bias + 1; fnu: fn and unsigned",
     "e4m3fnuz e5m2fnuz e8m0fnu"},
    {"eXmYbB{fn|fnuz}", "bias B (the bare e4m3b11 is refused: ambiguous)", "e4m3b11fnuz e5m2b12fn"},
    {"intN mxintN", "two's complement fixed point 1.(N-2), N 2-25 (int8 is MXINT8)", "int4 mxint6"},
    {"binaryKpP{s|u}{e|f}", "IEEE P3109 (interim report v4.0): bitwidth K 2-16, precision P (1..K-1 signed, "
                            "1..K unsigned), s/u signed/unsigned, e/f extended (Inf) or finite domain",
     "binary8p3se binary8p4se binary8p4uf"},
    {"BASE:key=value...", "keys sign=magnitude|none|twos exp=E man=M bias=B specials=ieee|fn|fnuz|none "
                          "subnormals=yes|no fixed=yes|no set one field each, after the base",
     "e4m3:specials=ieee e2m1:bias=3 e4m3:bias=11:specials=fnuz"},
};

}  // namespace

namespace detail {
std::span<const std::pair<std::string_view, std::string_view>> runtime_aliases() { return kRuntimeAliases; }
std::span<const SpecFormRow> spec_forms() { return kSpecForms; }
}  // namespace detail

Format parse_format_spec(std::string_view spec) {
  const std::string s = detail::ascii_lower(spec);
  const Failer fail{std::string(spec)};
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ':' || c == '=' || c == '_' || c == '-' ||
          c == '+'))
      fail("name", "unexpected character '" + clip(std::string_view(&c, 1)) + "' (" + std::string(kExpected) + ")");
  const FormatFields f = settle(*parse_spec(s, fail));
  // A named format (f64 among them, beyond the runtime limits) is itself.
  for (const Format& n : detail::kFormats)
    if (n.sign == f.sign && n.exp_bits == f.exp_bits && n.man_bits == f.man_bits && n.bias == *f.bias &&
        n.specials == f.specials && n.subnormals == f.subnormals && n.fixed_point == f.fixed_point)
      return n;
  try {
    return make_format(f);
  } catch (const FormatError& e) {
    // make_format's message reads "format: FIELD: ..."; name the spec instead.
    std::string what = e.what();
    if (what.starts_with("format: ")) what.erase(0, 8);
    fail(e.field().c_str(), what.substr(what.find(": ") + 2));
  }
}

std::string p3109_name(const P3109Params& a) {
  return "binary" + std::to_string(a.k) + "p" + std::to_string(a.p) + (a.is_signed ? "s" : "u") + (a.extended ? "e" : "f");
}

Format p3109_format(const P3109Params& a) {
  return make_format(p3109_fields(a, [](const std::string& what) { throw FormatError("name", "format: name: " + what); }));
}

std::optional<P3109Params> p3109_params(const Format& f) {
  if (f.fixed_point || !f.subnormals || f.sign == SignEncoding::twos_complement) return std::nullopt;
  const bool is_signed = f.sign == SignEncoding::magnitude;
  const bool extended = f.specials == Specials::extended;
  if (!extended && f.specials != (is_signed ? Specials::fnuz : Specials::fn)) return std::nullopt;
  P3109Params a{f.width, f.man_bits + 1, is_signed, extended};
  if (a.k < 2 || a.k > 16) return std::nullopt;
  const int shift = a.k - a.p - (is_signed ? 1 : 0);
  if (shift < 0 || f.bias != (1 << shift)) return std::nullopt;
  return a;
}

std::string format_spec(const Format& f) {
  for (const Format& n : detail::kFormats)
    if (n == f) return std::string(n.name);
  const Failer quiet{""};
  const int e = f.exp_bits, m = f.man_bits;
  std::vector<std::string> bases;
  if (f.sign == SignEncoding::twos_complement && e == 1) bases.push_back("int" + std::to_string(f.width));
  const std::string shape = std::string(f.sign == SignEncoding::none ? "u" : "") + "e" + std::to_string(e) + "m" +
                            std::to_string(m);
  bases.push_back(shape);
  bases.push_back(shape + "fn");
  if (f.sign == SignEncoding::magnitude) bases.push_back(shape + "fnuz");
  if (f.bias >= 0) {
    bases.push_back(shape + "b" + std::to_string(f.bias) + "fn");
    if (f.sign == SignEncoding::magnitude) bases.push_back(shape + "b" + std::to_string(f.bias) + "fnuz");
  }
  // A P3109 format also prints as its P3109 name (kept when shortest: binary8p3se, while
  // binary8p4sf is the same descriptor as e4m3fnuz and prints so).
  if (const auto p3109 = p3109_params(f)) bases.push_back(p3109_name(*p3109));
  std::string best;
  for (const std::string& b : bases) {
    std::optional<Base> base;
    try {
      base = resolve_base(b, quiet);
    } catch (const FormatError&) {
      continue;
    }
    if (!base) continue;
    const FormatFields have = settle(*base);
    if (have.exp_bits != e || have.man_bits != m) continue;
    std::string text = b;
    if (have.sign != f.sign)
      text += f.sign == SignEncoding::magnitude ? ":sign=magnitude" : f.sign == SignEncoding::none ? ":sign=none" : ":sign=twos";
    if (*have.bias != f.bias) text += ":bias=" + std::to_string(f.bias);
    if (have.specials != f.specials) {
      static constexpr const char* kNames[] = {"ieee", "fn", "none", "fnuz", "extended"};
      text += std::string(":specials=") + kNames[static_cast<int>(f.specials)];
    }
    if (have.subnormals != f.subnormals) text += f.subnormals ? ":subnormals=yes" : ":subnormals=no";
    if (have.fixed_point != f.fixed_point) text += f.fixed_point ? ":fixed=yes" : ":fixed=no";
    if (best.empty() || text.size() < best.size() || (text.size() == best.size() && b.starts_with("binary")))
      best = text;
  }
  return best;
}

}  // namespace softmx
