// tools/softmx/cli.cpp: see cli.hpp.
#include "cli.hpp"

#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/format_catalog.hpp"
#include "softmx/gemm.hpp"

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

std::string option_list(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::string s;
  for (const auto* l : {&a, &b})
    for (std::string_view o : *l) {
      if (!s.empty()) s += ", ";
      s += "--";
      s += o;
    }
  return s.empty() ? "none" : s;
}

bool contains(const std::vector<std::string_view>& l, std::string_view v) {
  return std::find(l.begin(), l.end(), v) != l.end();
}

}  // namespace

Args parse_args(std::string command, int argc, char** argv, int first,
                const std::vector<std::string_view>& value_options,
                const std::vector<std::string_view>& switch_options) {
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

Args parse_args_short_out(std::string command, int argc, char** argv, int first,
                          const std::vector<std::string_view>& value_options,
                          const std::vector<std::string_view>& switch_options) {
  std::vector<std::string> args(argv, argv + argc);
  bool short_out = false;
  for (auto& s : args) {
    if (s == "--") break;
    if (s == "-o") {
      if (short_out) throw UsageError("option -o given twice");
      s = "--out";
      short_out = true;
    }
  }
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());
  return parse_args(std::move(command), static_cast<int>(av.size()), av.data(), first, value_options, switch_options);
}

namespace {
std::string named_format_list() {
  std::string known;
  for (const Format& f : all_formats()) {
    if (!known.empty()) known += ", ";
    known += f.name;
  }
  return known;
}
}  // namespace

Format parse_spec_option(std::string_view option, std::string_view value) {
  try {
    return parse_format_spec(value);
  } catch (const FormatError& e) {
    // FormatError's message quotes the spec and names the field; it may hold any bytes of the
    // argument, so the spec part is re-quoted here.
    const std::string what = e.what();
    const auto colon = what.find("': ");
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 3);
    // An unknown name's detail already lists the accepted forms; the others get the list here.
    const bool listed = detail.find("expected a format name") != std::string::npos;
    throw UsageError("--" + std::string(option) + ": bad format spec " + quote(value, '\'') + ": " + detail +
                     (listed ? std::string()
                             : " (a named format: " + named_format_list() +
                                   "; or eXmY[fn|fnuz], ueXmY, intN, with :key=value fields, docs/SEMANTICS.md 1.2)"));
  }
}

void note_spec(std::string_view value) {
  static std::vector<std::string> noted;
  if (!spec_notes || std::find(noted.begin(), noted.end(), value) != noted.end()) return;
  noted.emplace_back(value);
  if (const auto note = unlisted_spec_note(value)) spec_notes_pending().push_back(*note);
}

std::vector<std::string>& spec_notes_pending() {
  static std::vector<std::string> notes;
  return notes;
}

Format parse_format_arg(std::string_view option, std::string_view value) {
  const Format f = parse_spec_option(option, value);
  note_spec(value);
  return f;
}

FormatId parse_named_format_arg(std::string_view option, std::string_view value) {
  if (auto f = parse_format(value)) return *f;
  const Format f = parse_spec_option(option, value);
  if (f.is_named()) return f.id;
  throw UsageError("--" + std::string(option) + ": the runtime format " + quote(value, '\'') +
                   " is not supported here (expected one of " + named_format_list() + ")");
}

ScaleFormat scale_format_option(const Args& a, const Dialect& d) {
  const auto v = a.get("scale-format");
  if (!v) return FormatId::e8m0;
  Format f;
  try {
    f = parse_format_spec(*v);
  } catch (const FormatError& e) {
    throw UsageError("--scale-format " + quote(*v, '\'') + ": " + e.what());
  }
  if (auto why = mx_scale_reason(f)) throw UsageError("--scale-format " + quote(*v, '\'') + ": " + *why);
  if (auto why = scale_format_unsupported_reason(f, d)) throw UsageError("--scale-format " + quote(*v, '\'') + ": " + *why);
  return f;
}

Format mx_element_option(std::string_view option, std::string_view value) {
  const Format f = parse_spec_option(option, value);
  if (f.is_named() && !is_mx_element(f.id))
    throw UsageError("--" + std::string(option) + " must be an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, " +
                     "or a runtime spec of at most 8 bits such as e1m2, e2m2, e4m3fnuz, int4), not " + quote(value, '\''));
  if (auto why = mx_element_reason(f)) throw UsageError("--" + std::string(option) + " " + quote(value, '\'') + ": " + *why);
  note_spec(value);
  return f;
}

void check_gemm_operands(const Format& a, const Format& b, std::size_t k, std::size_t block,
                         const AccumulationModel& model, std::string_view acc) {
  const std::vector<std::uint8_t> codes(k, 0);  // code 0 is +0 in every MX element format
  const std::vector<std::uint8_t> scales((k + block - 1) / block, 127);
  std::uint32_t c = 0;
  GemmOptions o;
  o.model = &model;
  o.threads = 1;
  o.kernel = GemmKernel::reference;
  try {
    gemm(gemm_rows(a, 1, k, block, codes, scales), gemm_rows(b, 1, k, block, codes, scales), o, std::span(&c, 1));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--a " + quote(std::string(a.name), '\'') + ", --b " + quote(std::string(b.name), '\'') + " and --acc " + quote(acc, '\'') +
                     ": " + e.what());
  }
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
    // parse_p3109_rounding reads every rounding name and P3109's (NearestTiesToEven, ...,
    // StochasticB, StochasticC: rs with Context::stochastic).
    auto r = parse_p3109_rounding(*v);
    if (!r)
      throw UsageError("unknown rounding mode " + quote(*v, '\'') +
                       " for --round (expected rne, rna, rz, ru, rd, ro or rs, or P3109's NearestTiesToEven, "
                       "NearestTiesToAway, TowardZero, TowardPositive, TowardNegative, ToOdd, StochasticA, "
                       "StochasticB, StochasticC)");
    o.ctx.rounding = r->first;
    o.ctx.stochastic = r->second;
    o.rounding_given = true;
  }
  if (auto v = a.get("sat")) {
    auto s = parse_saturation(*v);
    if (!s)
      throw UsageError("unknown saturation " + quote(*v, '\'') +
                       " for --sat (expected finite or none, or P3109's SatFinite, SatNone, SatPropagate)");
    o.ctx.saturation = *s;
  }
  if (auto v = a.get("tininess")) {
    auto t = parse_tininess(*v);
    if (!t) throw UsageError("unknown tininess " + quote(*v, '\'') + " for --tininess (expected after, before or after-bounded)");
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
    const DestinationSupport& s = support_for(*o.dialect, o.to);
    if (!o.rounding_given) o.ctx.rounding = s.default_rounding;
    if (!sat_given) o.ctx.saturation = s.default_saturation;
  }
  return o;
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

std::uint64_t parse_code(const Format& f, std::string_view text, std::string_view where) {
  auto v = parse_hex_exact(text, f.hex_digits());
  if (!v || *v > f.code_mask())
    throw UsageError(std::string(where) + ": expected " + expected_code(f) + ", got " + quote(text));
  return *v;
}

}  // namespace softmx::cli
