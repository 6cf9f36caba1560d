// tools/softmx/cli.hpp: what the subcommands share: argument parsing, errors, hex I/O.
//
// The command line is a thin layer: parsing and formatting around library calls that the
// conformance suite also makes. Bad input of any kind becomes a UsageError carrying one clear
// line (what was wrong, where, what was expected); main() prints it and exits with status 2.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/context.hpp"
#include "softmx/dialect.hpp"
#include "softmx/dot.hpp"
#include "softmx/format.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {

/// The `name` of every row of a table (all_formats(), all_dialects(), all_recipes(), ...) in
/// order, joined by `sep`: "e4m3 e5m2 ..." or "ocp, cuda, ...", for help texts and messages.
template <class Table>
std::string joined_names(const Table& table, std::string_view sep) {
  std::string s;
  for (const auto& row : table) {
    if (!s.empty()) s += sep;
    s += row.name;
  }
  return s;
}

// The library's text conventions (softmx/text.hpp), used throughout the command line.
using softmx::expected_code;
using softmx::hex;
using softmx::json_string;
using softmx::parse_hex_exact;
using softmx::quote;
using softmx::safe_message;
using softmx::shown_name;
using softmx::split_fields;

/// Exit status for bad usage, bad input, or an output that cannot be written.
inline constexpr int kExitUsage = 2;

/// A user error: printed as "softmx CMD: error: MESSAGE", exit status 2. Input echoed in the
/// message goes through quote().
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Calls `f` and turns the library's std::invalid_argument into a UsageError with its message
/// (the peer entry points' messages already name the argument in the peer's terms: block_size,
/// elem_dtype_name, exp_bits), so the command exits 2 with it.
template <class F>
auto library_call(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// Parsed arguments: "--name value" / "--name=value" options, "--flag" switches, positionals.
/// Only arguments starting with "--" are options, so "-0" and "-inf" are values; "--" ends
/// the options.
struct Args {
  std::string command;
  std::map<std::string, std::string, std::less<>> options;
  std::vector<std::string> switches;
  std::vector<std::string> positionals;

  std::optional<std::string> get(std::string_view name) const;
  bool has_switch(std::string_view name) const;
};

/// Parses argv[first..argc). `value_options` take a value, `switch_options` do not; anything
/// else starting with "--" is an error naming the command's options. A repeated option is an
/// error.
Args parse_args(std::string command, int argc, char** argv, int first,
                const std::vector<std::string_view>& value_options,
                const std::vector<std::string_view>& switch_options = {});
/// parse_args with "-o FILE" (before a "--") taken as "--out FILE", as recipe and layout accept
/// it beside --out (value_options must hold "out"). UsageError when "-o" is given twice.
Args parse_args_short_out(std::string command, int argc, char** argv, int first,
                          const std::vector<std::string_view>& value_options,
                          const std::vector<std::string_view>& switch_options = {});

/// The options every conversion command shares.
struct ConversionOptions {
  std::optional<Format> from;    ///< any spec: a named format or a runtime descriptor
  Format to = format(FormatId::f32);
  Context ctx;
  const Dialect* dialect = nullptr;
  bool rounding_given = false;
};

/// Reads --from, --to (required if `need_to`), --round, --sat, --dialect, --rbits, --tininess.
/// With --to given, an unset --round or --sat takes the dialect's default for that destination
/// (DestinationSupport; ocp: rne and satfinite).
ConversionOptions conversion_options(const Args& a, bool need_to);

/// The format `value` names for --`option`: any spec parse_format_spec reads (a named format,
/// `e4m3fnuz`, `e4m3:bias=11:specials=fnuz`, docs/SEMANTICS.md 1.2). A bad spec is a UsageError
/// naming the option, the spec and the field ("--to: format spec 'e4m3:bias=99': bias: ...").
Format parse_format_arg(std::string_view option, std::string_view value);

/// parse_format_arg without the note: for an option whose spec is checked further before it is
/// taken (an MX element), which then calls note_spec.
Format parse_spec_option(std::string_view option, std::string_view value);
/// Queues the note for a spec that names no listed format (a typo such as e4m4 is a valid
/// runtime format), once per spec, unless spec_notes is false. main() writes the queue to stderr
/// when the command ends without an error (an error is then its one line, naming the spec).
void note_spec(std::string_view value);
/// The notes note_spec queued, each without "softmx: note: " and the newline.
std::vector<std::string>& spec_notes_pending();

/// Whether parse_format_arg writes its note for a spec that names no listed format (issue 29;
/// unlisted_spec_note in softmx/format_catalog.hpp) to stderr: "softmx: note: 'e4m4' is not a
/// named format; ...". main() clears it for --quiet-spec, which every command takes.
inline bool spec_notes = true;

/// As parse_format_arg, for the options that take only the 11 named formats (the source formats
/// of quantize, gen, pychop and recipe; gen's element operands): a runtime spec is a UsageError
/// naming the option and the names. (Block, dot and gemm-golden elements: mx_element_option.)
FormatId parse_named_format_arg(std::string_view option, std::string_view value);

/// The element format of an MX block or GEMM operand named by --`option`: a named MX element
/// format or a runtime spec of at most 8 bits (e1m2, e2m2, e4m3fnuz, int4; docs/BLOCKS.md 1.1).
/// A bad spec, a named format that is no MX element or a runtime one that cannot be
/// (mx_element_reason's field) is a UsageError naming the option.
Format mx_element_option(std::string_view option, std::string_view value);
/// --scale-format SPEC (quantize, dequantize, gemm-golden): e8m0 when absent, or a float spec
/// of at most 8 bits that mx_scale_reason accepts and `dialect` can use (docs/BLOCKS.md 1.2).
/// UsageError naming --scale-format and the field.
ScaleFormat scale_format_option(const Args& a, const Dialect& dialect);

/// The library's refusal of these GEMM operands (element formats, k codes per vector in blocks of
/// `block`) under `model` as a UsageError naming the options (a runtime element under a
/// tensor-core model; a bias whose products leave the exact accumulator's range): gemm() is run
/// once on one vector of zeros a side, so that the CLI repeats none of its checks.
void check_gemm_operands(const Format& a, const Format& b, std::size_t k, std::size_t block,
                         const AccumulationModel& model, std::string_view acc);

/// The block scale rule given with --scale, or nullopt when absent (the dialect's then);
/// UsageError for an unknown name.
std::optional<ScaleRule> scale_rule_option(const Args& a);

/// The integer value of option `opt` (1..max), or `dflt` when it is absent; UsageError for
/// anything else ("--block expects an integer from 1 to 65536, got 'x'").
std::uint64_t parse_count(const Args& a, const char* opt, std::uint64_t dflt, std::uint64_t max);

/// Standard output, buffered and checked: append to text() (or printf()), call chunk() after
/// each record, and commit() at the end, which writes the rest and throws vec::OutputError
/// (exit status 2, with the errno text) if standard output failed (a full disk, /dev/full, a
/// closed descriptor). Uncommitted (an error unwinding), whatever was appended is still written,
/// as far as it can be, so the results before a bad input line are never lost.
class Output : public vec::OutputFile {
 public:
  Output() : vec::OutputFile(std::string(vec::kStandardOutput)) {}
  /// Appends printf-formatted text.
  void printf(const char* format, ...) __attribute__((format(printf, 2, 3)));
};

/// The largest --threads any command accepts (sweep, verify, identify): one bound for all.
inline constexpr unsigned kMaxThreads = 1024;

/// --threads N (1..kMaxThreads), or `dflt` (at most kMaxThreads) when absent.
unsigned parse_threads(const Args& a, unsigned dflt);

/// --seed S: any 64-bit value, 0..2^64-1 in decimal (gen and gemm-golden alike), or `dflt`.
std::uint64_t parse_seed(const Args& a, std::uint64_t dflt);

/// Parses a raw code of `f` (exact width, in range) or throws UsageError with `where` and
/// expected_code(f).
std::uint64_t parse_code(const Format& f, std::string_view text, std::string_view where);

}  // namespace softmx::cli
