// fuzz/fuzz_cli_args.cpp: fuzzes the command-line parsing of tools/softmx/cli.hpp. The input is
// split on NUL and newline bytes into argv strings; argv[0] names the command whose option set
// parse_args gets (convert, explain, quantize, dequantize, dot, gemm-golden; anything else gets
// all of their options). Then, on what parsed:
//
//   - conversion_options (with and without a required --to);
//   - parse_count for --block, --blocks and --m with the limits the commands use, parse_seed
//     (0..2^64-1) and parse_threads (1..kMaxThreads), checked against a reference (the decimal
//     value of the text, in 128 bits);
//   - on every positional argument: parse_format / parse_format_arg, parse_rounding,
//     parse_saturation, parse_tininess, parse_scale_rule, find_dialect,
//     find_accumulation_model, vec::parse_operation (each accepted name must print as a
//     canonical name that parses back to the same thing); parse_hex_exact for every width
//     (against a reference); parse_code for every format (the code must print back to the same
//     digits); split_fields (fields must be the non-blank runs of the text); quote (bounded, no
//     raw control byte, and the text itself when short and plain) and json_string (ASCII, and
//     decoding it gives the bytes back).
//
// Expected failures are softmx::cli::UsageError (bad usage). Finding: a crash, a sanitizer
// report, any other exception, or a failed check (reported by abort()).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/vectors/header.hpp"

namespace {

using namespace softmx;
using cli::UsageError;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_cli_args: %s\n", what.c_str());
  std::abort();
}

// The option sets of the commands (tools/softmx/cmd_*.cpp).
struct Profile {
  std::string_view command;
  std::initializer_list<std::string_view> values;
  std::initializer_list<std::string_view> switches;
};
const Profile kProfiles[] = {
    {"convert", {"from", "to", "round", "sat", "dialect", "rbits", "tininess", "random"}, {}},
    {"explain", {"from", "to", "round", "sat", "dialect", "rbits", "tininess"}, {}},
    {"quantize",
     {"to", "from", "block", "scale", "round", "sat", "dialect", "rbits", "tininess", "global-amax", "nvfp4-multiplier"},
     {}},
    {"dequantize", {"from", "to", "block", "round", "sat", "dialect", "tininess", "encode-scale"}, {}},
    {"dot", {"a", "b", "block", "blocks", "acc", "round", "sat", "tininess"}, {}},
    {"gemm-golden", {"out", "m", "n", "k", "a", "b", "block", "seed", "scale", "dialect", "acc", "round", "sat"}, {}},
    {"any",  // every option above, and two switches
     {"from", "to", "round", "sat", "dialect", "rbits", "tininess", "random", "block", "blocks", "scale", "a", "b", "acc",
      "out", "m", "n", "k", "seed", "global-amax", "nvfp4-multiplier", "encode-scale", "threads"},
     {"inputs-only", "force"}},
};

// Reference for parse_count: the value of a decimal digit string, or nullopt if it is not one
// or does not fit in 64 bits.
std::optional<std::uint64_t> reference_count(std::string_view s) {
  if (s.empty()) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > ~std::uint64_t{0}) return std::nullopt;
  }
  return static_cast<std::uint64_t>(v);
}

void check_count(const cli::Args& a, const char* opt, std::uint64_t max) {
  const auto text = a.get(opt);
  const auto ref = text ? reference_count(*text) : std::optional<std::uint64_t>(7);
  const bool ok = ref && *ref >= 1 && *ref <= max;
  try {
    const std::uint64_t k = cli::parse_count(a, opt, 7, max);
    if (!ok || k != *ref)
      fail(std::string("parse_count(--") + opt + " '" + text.value_or("") + "', max " + std::to_string(max) + ") gave " +
           std::to_string(k) + (ok ? ", expected " + std::to_string(*ref) : ", expected a UsageError"));
  } catch (const UsageError&) {
    if (ok) fail(std::string("parse_count(--") + opt + " '" + text.value_or("") + "') rejected a valid count");
  }
}

// parse_seed: every decimal from 0 to 2^64-1, nothing else.
void check_seed(const cli::Args& a) {
  const auto text = a.get("seed");
  const auto ref = text ? reference_count(*text) : std::optional<std::uint64_t>(7);
  try {
    const std::uint64_t s = cli::parse_seed(a, 7);
    if (!ref || s != *ref) fail("parse_seed('" + text.value_or("") + "') gave " + std::to_string(s));
  } catch (const UsageError&) {
    if (ref) fail("parse_seed rejected the valid seed '" + text.value_or("") + "'");
  }
}

// parse_threads: 1..kMaxThreads; an absent option gives the default, clamped.
void check_threads(const cli::Args& a) {
  const auto text = a.get("threads");
  const auto ref = text ? reference_count(*text) : std::optional<std::uint64_t>(cli::kMaxThreads);
  const bool ok = ref && *ref >= 1 && *ref <= cli::kMaxThreads;
  try {
    const unsigned t = cli::parse_threads(a, 100000);
    if (!ok || t != *ref) fail("parse_threads('" + text.value_or("") + "') gave " + std::to_string(t));
  } catch (const UsageError&) {
    if (ok) fail("parse_threads rejected the valid count '" + text.value_or("") + "'");
  }
}

// quote: at most max characters shown plus the quotes and the cut marker; no raw control byte;
// a short printable text unchanged. json_string: printable ASCII only, and decoding the escapes
// gives the text back byte for byte.
void check_quote_and_json(const std::string& p) {
  for (char q : {'"', '\'', '\0'}) {
    const std::string s = cli::quote(p, q);
    if (s.size() > 72 + 2 + 40) fail("quote gave " + std::to_string(s.size()) + " bytes");
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) fail("quote left a raw control byte");
    const bool plain = p.size() <= 72 && std::all_of(p.begin(), p.end(), [&](char c) {
      return c >= 0x20 && c < 0x7F && c != '\\' && (q == 0 || c != q);
    });
    if (plain && s != (q ? std::string(1, q) + p + q : p)) fail("quote changed a short plain text");
  }
  const std::string j = cli::json_string(p);
  if (j.size() < 2 || j.front() != '"' || j.back() != '"') fail("json_string is not quoted");
  std::string back;
  for (std::size_t i = 1; i + 1 < j.size(); ++i) {
    const char c = j[i];
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) fail("json_string is not ASCII");
    if (c == '"') fail("json_string has an unescaped quote");
    if (c != '\\') {
      back += c;
      continue;
    }
    const char e = j.at(++i);
    if (e == '"' || e == '\\') back += e;
    else if (e == 'n') back += '\n';
    else if (e == 't') back += '\t';
    else if (e == 'r') back += '\r';
    else if (e == 'u' && j.compare(i + 1, 2, "00") == 0) {
      back += static_cast<char>(std::stoi(j.substr(i + 3, 2), nullptr, 16));
      i += 4;
    } else {
      fail("json_string wrote an escape JSON does not have, or a code point above U+00FF");
    }
  }
  if (back != p) fail("json_string does not decode to the text");
}

// Reference for parse_hex_exact.
std::optional<std::uint64_t> reference_hex(std::string_view s, int digits) {
  if (digits < 1 || digits > 16 || static_cast<int>(s.size()) != digits) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  return v;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

template <class T, class Parse>
void check_name(std::string_view p, Parse parse, const char* what) {
  const std::optional<T> v = parse(p);
  if (!v) return;
  const std::string_view canonical = name(*v);
  const std::optional<T> back = parse(canonical);
  if (!back || *back != *v) fail(std::string(what) + " '" + std::string(p) + "' has a canonical name that does not parse back");
}

// Exceptions are what costs most here (tens of microseconds each under ASan), so the error paths
// that only build a message are taken once per input: `error_paths_done` says they were.
void check_positional(const std::string& p, bool& error_paths_done) {
  const bool error_paths = !error_paths_done;
  error_paths_done = true;
  if (auto f = parse_format(p)) {
    const auto back = parse_format(format(*f).name);
    if (!back || *back != *f) fail("format '" + p + "': its canonical name does not parse back");
  }
  if (parse_format(p) || error_paths) {
    try {
      const FormatId f = cli::parse_named_format_arg("to", p);
      if (const auto n = parse_format(p)) {
        if (*n != f) fail("parse_named_format_arg and parse_format disagree on '" + p + "'");
      } else {
        // Not a name, but a spec that denotes a named format (e04m3, e4m3:bias=7): it must be
        // the format the spec parser gives, never another.
        Format g;
        try {
          g = parse_format_spec(p);
        } catch (const FormatError&) {
          fail("parse_named_format_arg accepted '" + p + "', which is neither a name nor a spec");
        }
        if (!g.is_named() || g.id != f)
          fail("parse_named_format_arg and parse_format_spec disagree on '" + p + "'");
      }
    } catch (const UsageError&) {
      if (parse_format(p)) fail("parse_named_format_arg rejected the format '" + p + "'");
    }
    // Any spec: a named format's name gives that format's descriptor.
    try {
      const Format g = cli::parse_format_arg("to", p);
      if (const auto n = parse_format(p); n && !(g.is_named() && g.id == *n))
        fail("parse_format_arg gives a runtime descriptor for the named format '" + p + "'");
    } catch (const UsageError&) {
      if (parse_format(p)) fail("parse_format_arg rejected the format '" + p + "'");
    }
  }
  check_name<Rounding>(p, parse_rounding, "rounding");
  check_name<Saturation>(p, parse_saturation, "saturation");
  check_name<Tininess>(p, parse_tininess, "tininess");
  check_name<ScaleRule>(p, parse_scale_rule, "scale rule");
  check_name<vec::Operation>(p, vec::parse_operation, "operation");
  if (const Dialect* d = find_dialect(p)) {
    if (find_dialect(d->name) != d) fail("dialect '" + p + "': its name does not find it again");
  }
  if (const AccumulationModel* m = find_accumulation_model(p)) {
    if (find_accumulation_model(m->name()) != m) fail("accumulation '" + p + "': its name does not find it again");
  }
  for (int d = 0; d <= 17; ++d) {
    if (cli::parse_hex_exact(p, d) != reference_hex(p, d))
      fail("parse_hex_exact('" + p + "', " + std::to_string(d) + ") disagrees with the reference");
  }
  // parse_code for the formats whose width the text has (the others fail on the length alone),
  // and once for a wrong width.
  bool wrong_width_tried = !error_paths;
  for (const Format& f : all_formats()) {
    if (static_cast<int>(p.size()) != f.hex_digits()) {
      if (wrong_width_tried) continue;
      wrong_width_tried = true;
    }
    try {
      const std::uint64_t c = cli::parse_code(f, p, "arg");
      if (c > f.code_mask() || cli::hex(c, f.hex_digits()) != upper(p))
        fail("parse_code(" + std::string(f.name) + ", '" + p + "') gave " + std::to_string(c));
    } catch (const UsageError&) {
      const auto ref = reference_hex(p, f.hex_digits());
      if (ref && *ref <= f.code_mask()) fail("parse_code(" + std::string(f.name) + ") rejected the valid code '" + p + "'");
    }
  }
  const auto fields = cli::split_fields(p);
  std::string joined, expect;
  for (std::string_view f : fields) {
    if (f.empty() || f.find_first_of(" \t") != std::string_view::npos) fail("split_fields gave a blank field of '" + p + "'");
    joined += f;
  }
  for (char c : p)
    if (c != ' ' && c != '\t') expect += c;
  if (joined != expect) fail("split_fields lost characters of '" + p + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') args.emplace_back();
    else args.back() += c;
  }
  if (args.size() > 64) return 0;  // a bound on the work per input
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(args.size());

  const Profile* profile = &kProfiles[std::size(kProfiles) - 1];
  for (const Profile& p : kProfiles)
    if (args[0] == p.command) profile = &p;

  cli::Args a;
  try {
    a = cli::parse_args(std::string(profile->command), argc, argv.data(), 1, profile->values, profile->switches);
  } catch (const UsageError&) {
    return 0;
  }
  // What parsed must come from argv and be an allowed option.
  for (const auto& [k, v] : a.options) {
    bool known = false;
    for (std::string_view o : profile->values) known |= o == k;
    if (!known) fail("parse_args accepted the unknown option --" + k);
  }
  if (a.positionals.size() + a.options.size() + a.switches.size() > static_cast<std::size_t>(argc))
    fail("parse_args produced more arguments than it was given");

  for (bool need_to : {false, true}) {
    try {
      const cli::ConversionOptions o = cli::conversion_options(a, need_to);
      if (!o.dialect) fail("conversion_options left the dialect unset");
      if (o.ctx.rbits_width < 1 || o.ctx.rbits_width > 64) fail("conversion_options accepted rbits outside 1..64");
      if (need_to && !a.get("to")) fail("conversion_options accepted a missing --to");
    } catch (const UsageError&) {
    }
  }
  check_count(a, "block", 1 << 20);
  check_count(a, "blocks", 1 << 20);
  check_count(a, "m", 1 << 14);
  check_seed(a);
  check_threads(a);
  bool error_paths_done = false;
  for (const std::string& p : a.positionals) {
    check_positional(p, error_paths_done);
    check_quote_and_json(p);
  }
  return 0;
}
