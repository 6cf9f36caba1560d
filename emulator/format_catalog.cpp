// emulator/format_catalog.cpp: see format_catalog.hpp. The tables are the parser's own
// (format_catalog_tables.hpp); this file only collects and prints them.
#include "softmx/format_catalog.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "core/ascii.hpp"
#include "format_catalog_tables.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/dialect.hpp"
#include "softmx/text.hpp"

namespace softmx {
namespace {

// The named runtime specs of docs/FORMATS.md section 2 that no alias names (the aliases' own
// formats are listed too, after these).
constexpr std::string_view kListedRuntimeSpecs[] = {"e1m2",     "e2m2",        "e3m4",  "e4m3:specials=ieee",
                                                   "e4m3fnuz", "e5m2fnuz",    "e4m3b11fnuz", "ue4m3",
                                                   "ue5m3",    "int4"};

std::string sign_text(const Format& f) {
  return f.sign == SignEncoding::magnitude ? "sign-magnitude"
         : f.sign == SignEncoding::twos_complement ? "two's complement" : "unsigned";
}

std::string specials_short(const Format& f) {
  switch (f.specials) {
    case Specials::ieee: return "Inf,NaN";
    case Specials::fn: return "NaN only";
    case Specials::fnuz: return "fnuz";
    case Specials::extended: return "P3109 ext";
    case Specials::none: break;
  }
  return "none";
}

std::string specials_words(const Format& f) {
  switch (f.specials) {
    case Specials::ieee: return "Inf and NaN";
    case Specials::fn: return "NaN only";
    case Specials::fnuz: return "fnuz: NaN is the -0 code, no Inf or -0";
    case Specials::extended:
      return f.sign == SignEncoding::none ? "P3109 extended: NaN the all-ones code, Inf the one below it"
                                          : "P3109 extended: NaN is the -0 code, +-Inf the all-ones magnitude, no -0";
    case Specials::none: break;
  }
  return "no Inf or NaN";
}

std::string max_text(const Format& f) {
  std::string v = value_text(f, f.max_finite_magnitude());
  if (v.size() > 24) v = hexfloat_text(unpack(f, f.max_finite_magnitude()));
  return v;
}
std::string min_normal_text(const Format& f) { return f.fixed_point ? "-" : "2^" + std::to_string(f.emin()); }
std::string min_subnormal_text(const Format& f) {
  return !f.subnormals ? "none" : "2^" + std::to_string(f.emin() - f.man_bits);
}

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

/// `text` after `lead`, its words wrapped at 96 columns under the lead's indent.
std::string wrapped(const std::string& lead, const std::string& text) {
  std::string out = lead, indent(lead.size(), ' ');
  std::size_t col = lead.size();
  bool first = true;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!first && col + 1 + word.size() > 96) {
      out += "\n" + indent;
      col = indent.size();
    } else if (!first) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first = false;
  }
  return out + "\n";
}

std::string code_text(const Format& f, std::uint64_t code) { return "0x" + hex(code, f.hex_digits()); }

}  // namespace

std::vector<FormatAlias> format_aliases() {
  std::vector<FormatAlias> r;
  auto seen = [&](std::string_view n) {
    return std::any_of(r.begin(), r.end(), [&](const FormatAlias& a) { return a.name == n; });
  };
  for (const auto& [n, id] : detail::named_aliases())
    if (n != format(id).name.view() && !seen(n)) r.push_back({n, format(id).name.view()});
  for (const auto& [n, spec] : detail::runtime_aliases())
    if (!seen(n)) r.push_back({n, spec});
  return r;
}

std::vector<FormatSpecForm> format_spec_forms() {
  std::vector<FormatSpecForm> r;
  for (const detail::SpecFormRow& row : detail::spec_forms()) r.push_back({row.form, row.meaning, row.examples});
  return r;
}

std::vector<Format> listed_formats() {
  std::vector<Format> r(all_formats().begin(), all_formats().end());
  auto add = [&](std::string_view spec) {
    const Format f = parse_format_spec(spec);
    if (std::none_of(r.begin(), r.end(), [&](const Format& g) { return g == f; })) r.push_back(f);
  };
  for (std::string_view s : kListedRuntimeSpecs) add(s);
  for (const auto& [n, spec] : detail::runtime_aliases()) add(spec);
  return r;
}

bool is_listed_format(const Format& f) {
  const std::vector<Format> l = listed_formats();
  return std::any_of(l.begin(), l.end(), [&](const Format& g) { return g == f; });
}

std::vector<std::string> aliases_of(const Format& f) {
  const std::string canonical = format_spec(f);
  std::vector<std::string> r;
  for (const FormatAlias& a : format_aliases())
    if (a.name != canonical && parse_format_spec(a.spec) == f) r.emplace_back(a.name);
  return r;
}

Format nearest_listed_format(const Format& f) {
  const std::vector<Format> l = listed_formats();
  auto key = [&](const Format& g, std::size_t order) {
    return std::make_tuple((g.sign == f.sign) ? 0 : 1,
                           2 * std::abs(int(g.exp_bits) - int(f.exp_bits)) + std::abs(int(g.man_bits) - int(f.man_bits)),
                           g.is_named() ? 0 : 1, g.specials == f.specials ? 0 : 1, std::abs(int(g.bias) - int(f.bias)),
                           order);
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < l.size(); ++i)
    if (key(l[i], i) < key(l[best], best)) best = i;
  return l[best];
}

std::optional<std::string> unlisted_spec_note(std::string_view spec) {
  const Format f = parse_format_spec(spec);
  // A P3109 format is named by its standard (binary8p3se), whatever spec reached it.
  if (is_listed_format(f) || p3109_params(f)) return std::nullopt;
  std::string kind = f.sign == SignEncoding::none ? "an unsigned runtime format"
                     : f.sign == SignEncoding::twos_complement ? "a two's complement runtime format"
                                                               : "a runtime format";
  return quote(spec, '\'') + " is not a named format; read as " + kind + " with " +
         std::to_string(f.exp_bits) + " exponent and " + std::to_string(f.man_bits) + " mantissa bits (" +
         std::to_string(f.width) + "-bit codes, bias " + std::to_string(f.bias) + ", " + specials_words(f) +
         "; spec " + format_spec(f) + "); nearest named format: " + format_spec(nearest_listed_format(f));
}

std::string format_listing_text() {
  const std::vector<Format> l = listed_formats();
  std::size_t w = 4;
  for (const Format& f : l) w = std::max(w, format_spec(f).size());
  std::string s;
  char buf[256];
  auto row = [&](const std::string& name, const std::string& width, const std::string& e, const std::string& m,
                 const std::string& bias, const std::string& sign, const std::string& sp, const std::string& mx,
                 const std::string& mn, const std::string& ms) {
    // 100 columns with the longest name (e4m3:specials=ieee) and max (f64's hex float).
    std::snprintf(buf, sizeof buf, "%5s %3s %3s %4s %-9s %-9s %-23s %-10s %s\n", width.c_str(), e.c_str(), m.c_str(),
                  bias.c_str(), sign.c_str(), sp.c_str(), mx.c_str(), mn.c_str(), ms.c_str());
    s += pad(name, w) + " " + buf;
  };
  row("name", "width", "exp", "man", "bias", "sign", "specials", "max-finite", "min-normal", "min-sub");
  std::size_t i = 0;
  for (const Format& f : l) {
    if (i++ == static_cast<std::size_t>(kFormatCount))
      s += "-- runtime formats with a name (docs/FORMATS.md 2); any spec below is a runtime format too --\n";
    row(format_spec(f), std::to_string(f.width), std::to_string(f.exp_bits), std::to_string(f.man_bits),
        std::to_string(f.bias), std::string(f.sign == SignEncoding::magnitude ? "magnitude"
                                            : f.sign == SignEncoding::none   ? "unsigned"
                                                                             : "twos"),
        specials_short(f), max_text(f), min_normal_text(f), min_subnormal_text(f));
  }
  // The aliases grouped by the spec they read as, in table order: one line per spec.
  s += "\naliases (case-insensitive), after the spec each reads as:\n";
  std::vector<std::pair<std::string, std::string>> groups;
  for (const FormatAlias& a : format_aliases()) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == a.spec; });
    if (it == groups.end()) groups.emplace_back(std::string(a.spec), std::string(a.name));
    else it->second += " " + std::string(a.name);
  }
  for (const auto& [spec, names] : groups) s += wrapped("  " + pad(spec, w) + " ", names);
  s += "\nspec grammar (docs/SEMANTICS.md 1.2; case-insensitive; softmx formats SPEC shows one format):\n";
  for (const FormatSpecForm& g : format_spec_forms())
    s += "  " + std::string(g.form) + "\n" + wrapped("      ", std::string(g.meaning)) +
         wrapped("      e.g. ", std::string(g.examples));
  return s;
}

std::string format_description_text(std::string_view spec) {
  const Format f = parse_format_spec(spec);
  const std::string canonical = format_spec(f);
  const std::string lower = detail::ascii_lower(spec);
  std::string s;
  const auto p3109 = p3109_params(f);
  const std::string what = f.is_named()           ? "a named format"
                           : is_listed_format(f) ? "a runtime format with a name (docs/FORMATS.md 2)"
                           : p3109               ? "an IEEE P3109 format, " + p3109_name(*p3109)
                                                 : "a runtime format (not a named format)";
  s += canonical + ": " + what + "\n";
  if (lower != canonical) s += "  read from      " + quote(spec, '\'') + " (alias of " + canonical + ")\n";
  const std::vector<std::string> al = aliases_of(f);
  std::string alias_list;
  for (const std::string& a : al) alias_list += (alias_list.empty() ? "" : " ") + a;
  s += "  aliases        " + (alias_list.empty() ? std::string("none") : alias_list) + "\n";
  if (!is_listed_format(f) && !p3109) s += "  nearest named  " + format_spec(nearest_listed_format(f)) + "\n";
  s += "  fields         " + sign_text(f) + ", " + std::to_string(f.exp_bits) + " exponent bits, " +
       std::to_string(f.man_bits) + " fraction bits, bias " + std::to_string(f.bias) + ", " + std::to_string(f.width) +
       "-bit codes" + (f.subnormals ? "" : ", no subnormals (exponent field 0 is a normal binade; no zero)") +
       (f.fixed_point ? ", fixed point (uniform steps)" : "") + "\n";
  // The codes of the specials, positive (a sign-magnitude format has them with the sign bit too).
  const std::uint64_t inf = f.all_ones_magnitude() - ((std::uint64_t{1} << f.man_bits) - 1);
  const std::uint64_t sign_bit = std::uint64_t{1} << (f.width - 1);
  std::string sp;
  switch (f.specials) {
    case Specials::ieee:
      sp = "Inf " + code_text(f, inf) + ", NaN " + code_text(f, inf + 1) + "-" + code_text(f, f.all_ones_magnitude()) +
           (f.sign == SignEncoding::magnitude ? " (and with the sign bit)" : "");
      break;
    case Specials::fn:
      sp = "NaN " + code_text(f, f.all_ones_magnitude()) + (f.sign == SignEncoding::magnitude ? " and " + code_text(f, f.all_ones_magnitude() | sign_bit) : "") +
           " only; no Inf";
      break;
    case Specials::fnuz: sp = "NaN " + code_text(f, sign_bit) + " only (the -0 code); no Inf, no -0"; break;
    case Specials::extended:
      sp = "Inf " + code_text(f, f.inf_magnitude()) +
           (f.sign == SignEncoding::magnitude ? " and " + code_text(f, f.inf_magnitude() | sign_bit) + ", NaN " +
                                                    code_text(f, sign_bit) + " only (the -0 code); no -0"
                                              : ", NaN " + code_text(f, f.all_ones_magnitude()) + " only");
      break;
    case Specials::none: sp = "every code is a number"; break;
  }
  s += "  specials       " + specials_short(f) + ": " + sp + "\n";
  const std::uint64_t maxc = f.max_finite_magnitude();
  s += "  max finite     " + max_text(f) + " (" + code_text(f, maxc) + ")\n";
  if (f.fixed_point) {
    s += "  min normal     - (fixed point)\n";
  } else {
    const std::uint64_t c = f.subnormals ? (std::uint64_t{1} << f.man_bits) : 0;
    const std::string v = value_text(f, c);
    s += "  min normal     2^" + std::to_string(f.emin()) + (v.size() > 24 ? "" : " = " + v) + " (" + code_text(f, c) + ")\n";
  }
  if (!f.subnormals)
    s += "  min subnormal  none (no zero; code 0 is the min normal)\n";
  else if (f.man_bits == 0)
    s += "  min subnormal  none (no fraction bits)\n";
  else
    s += "  min subnormal  2^" + std::to_string(f.emin() - f.man_bits) +
         (value_text(f, 1).size() > 24 ? "" : " = " + value_text(f, 1)) + " (" + code_text(f, 1) + ")\n";
  const auto elem = mx_element_reason(f);
  s += "  MX element     " + (elem ? "no: " + *elem : std::string("yes")) + "\n";
  const Context ctx = resolve(ocp_dialect(), f, Context{});
  s += "  overflow       by default (ocp) saturation " + std::string(name(ctx.saturation)) + ": " +
       (ctx.saturation == Saturation::finite ? "+-max finite"
        : f.has_inf()                        ? "+-Inf"
        : f.has_nan()                        ? "NaN"
                                             : "+-max finite") +
       "; --sat finite|none chooses (docs/SEMANTICS.md 4.1)\n";
  return s;
}

}  // namespace softmx
