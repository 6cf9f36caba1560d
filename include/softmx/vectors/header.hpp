// softmx/vectors/header.hpp: the header of a softmx vector file (vectors/README.md 2-3).
//
// A Header says completely what every data line of a file means: the operation, formats,
// rounding context, dialect and block shape. It is parsed from and written as "key = value"
// lines; parsing is strict (unknown or inapplicable keys, missing required keys, bad values
// are errors naming the file and line), because a typo that silently fell back to a default
// would make a conformance file lie.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format.hpp"

namespace softmx::vec {

/// The first line of every vector file.
inline constexpr std::string_view kMagicKey = "softmx-vectors";
inline constexpr int kFormatVersion = 1;

enum class Operation : std::uint8_t { convert, quantize, dequantize, dot, mma };
enum class Layout : std::uint8_t { cases, runs };
/// mma only: the format of the block scales of a block-scaled mma (header key `scale-format`,
/// vectors/README.md 3). none: an unscaled mma (no scale columns, no scale keys).
enum class MmaScaleFormat : std::uint8_t { none, ue8m0, ue4m3 };

std::string_view name(Operation op);
std::optional<Operation> parse_operation(std::string_view s);
/// The options `softmx gen OP` and Python's gen(OP) take besides the common ones (level, seed,
/// count, export, out, inputs-only), in the CLI's spelling (Python's keyword: '-' as '_', and
/// "from" as src): the one list both check a given option against (issue 32).
const std::vector<std::string_view>& gen_operation_options(Operation op);
std::string_view name(MmaScaleFormat f);  ///< "none", "ue8m0", "ue4m3"

/// A header's format: a descriptor (any spec of docs/SEMANTICS.md 1.2) that also reads as its
/// FormatId where only the named formats apply (FormatId::runtime for a runtime descriptor).
/// The parser admits any spec; validate() then checks what the operation takes: convert any,
/// quantize, dequantize and dot an MX element (mx_element_reason: a named one or a runtime one
/// a block can hold), mma the named elements only.
struct HeaderFormat : Format {
  HeaderFormat() = default;
  HeaderFormat(const Format& f) : Format(f) {}
  explicit HeaderFormat(FormatId f) : Format(format(f)) {}
  HeaderFormat& operator=(FormatId f) { return *this = HeaderFormat(f); }
  operator FormatId() const { return id; }
};

struct Header {
  Operation operation = Operation::convert;
  Layout layout = Layout::cases;
  /// convert: source and destination; quantize: source (f64/f32/f16/bf16) and element format;
  /// dequantize: element format and destination (f64/f32/f16/bf16); dot and mma: the A and B
  /// element formats (keys `a` and `b`; the dot result is f32). A format may be a runtime
  /// descriptor (docs/SEMANTICS.md 1.2, written as its canonical spec): convert takes any, the
  /// element of quantize, dequantize and dot any MX element (vectors/README.md 3), mma's the
  /// named ones only.
  HeaderFormat from{FormatId::f32}, to{FormatId::e4m3};
  /// rounding, saturation, tininess, rbits_width (rs). ctx.rbits is unused (lines carry R).
  /// mma has none of these keys: its model fixes the rounding.
  Context ctx;
  /// The dialect's name as written (convert, quantize, dequantize).
  std::string dialect = "ocp";
  std::uint32_t block = 0;    ///< quantize, dot: k; mma: K, the products per output element
  std::uint32_t blocks = 0;   ///< dot: n
  ScaleRule scale = ScaleRule::floor;  ///< quantize
  std::string accumulation = "exact";  ///< dot
  FormatId accumulator = FormatId::f32;  ///< mma: the format of C and D (f32 or f16)
  bool addend = true;                    ///< mma: lines carry C (false: C = +0, no C column)
  /// dot: the format of OUT and of C (key `to`; absent: f32): f32, f16 or bf16. (For dot the
  /// members from and to above are the A and B element formats.)
  FormatId dot_to = FormatId::f32;
  /// dot: lines carry C, a code of dot_to, after the block pairs (key `addend`; absent: no).
  bool dot_addend = false;
  std::string model;                     ///< mma: the tensor-core model (softmx/tensor_core.hpp)
  /// mma, block-scaled (keys scale-format and scale-block, both or neither): every line carries
  /// block / scale_block scales of A's row, then as many of B's column, after B's codes; scale
  /// j covers products j * scale_block .. (j + 1) * scale_block - 1. ue8m0 codes are E8M0 (0xFF
  /// NaN); ue4m3 codes are 8-bit E4M3 patterns as the instruction reads them (00..FF).
  MmaScaleFormat scale_format = MmaScaleFormat::none;
  std::uint32_t scale_block = 0;  ///< mma with scales: products per scale, divides `block`; else 0
  std::uint64_t first = 0, last = 0;   ///< runs: the inclusive input range

  // Provenance: how the cases were chosen and what they are. Never used to compute a result;
  // verify and identify use them to check that a file holds every case (vectors/README.md 8,
  // "Completeness").
  /// "1" or "2" (gen's levels, README 6), "exhaustive" (a run table, or a cases file of an
  /// exhaustive set: level 1's every case), or empty (not given). Parsing rejects other values.
  std::string level;
  std::optional<std::uint64_t> seed;
  /// cases layout only: the number of data lines (cases) the file holds.
  std::optional<std::uint64_t> cases;
  /// cases layout only: SHA-256 of the canonical operand text of the cases in file order (64
  /// lower-case hex digits; empty: not given). See input_digest.hpp.
  std::string inputs_sha256;
  std::string generator;
  /// x- keys in file order (kept so tools that copy a header keep them).
  std::vector<std::pair<std::string, std::string>> extra;

  /// The Dialect named by `dialect` (ocp when the operation has none). Precondition: the
  /// header was validated (parse or validate()).
  const Dialect& dialect_ref() const;
  /// Checks the header as a whole: required keys present and consistent (formats allowed for
  /// the operation, rbits with rs, runs only for deterministic convert, first <= last within
  /// the source's width). Throws InputError with `where` in the message.
  void validate(std::string_view where) const;
};

/// Sets the header's conversion settings from a context and its dialect: ctx's rounding,
/// saturation, tininess and rbits_width (the random bits themselves are each case's), and the
/// dialect's name. The command line and Python both build headers so.
void set_conversion(Header& h, const Context& ctx, const Dialect& dialect);

/// True when level 1 already holds every possible case, so that level 2 adds nothing: convert
/// from a source of at most 16 bits with a deterministic rounding, and dequantize (README 6).
/// Such sets are checked for full coverage of their input space. Precondition: h validated.
bool exhaustive(const Header& h);

/// Collects header lines one at a time (the reader feeds them; tests and fuzzers too).
class HeaderParser {
 public:
  /// One "key = value" line (comments and blank lines must not be passed). `where` names the
  /// line for errors ("results.txt line 3"). The first line must be the magic line.
  void add(std::string_view line, const std::string& where);
  /// True once the magic line has been seen.
  bool started() const { return started_; }
  /// Finishes: applies the keys, checks completeness and consistency. `where` names the
  /// place for errors about missing keys (the file).
  Header finish(const std::string& where) const;

 private:
  bool started_ = false;
  std::vector<std::pair<std::string, std::string>> keys_;  // in order, after the magic line
  std::vector<std::string> wheres_;
};

/// The header as text: the magic line and every applicable key, one per line, in a fixed
/// order (so the same header gives the same bytes), ending in '\n'.
std::string header_text(const Header& h);

/// The header lines as comments with the given prefix ("// " for $readmemh).
std::string header_text_commented(const Header& h, std::string_view prefix);

/// A one-line description of the operation for messages: "convert f32 -> e4m3 rne satfinite
/// (ocp)".
std::string describe(const Header& h);

}  // namespace softmx::vec
