// softmx/format.hpp: formats as data.
//
// One Format descriptor per format, in the spirit of LLVM APFloat's fltSemantics: the
// round-and-pack core reads these fields and never asks which format it is serving. The 11
// named formats (FormatId) are a constant table (emulator/core/format_table.hpp); any other
// format is a descriptor made at run time (make_format, parse_format_spec), a plain value that
// the same core serves. A runtime descriptor whose fields equal a named format's is that named
// format (canonical_format gives it the FormatId), so it behaves byte for byte as the named one.
// docs/SEMANTICS.md section 1 defines the fields and section 1.2 the textual specs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace softmx {

/// How a format encodes non-finite values.
enum class Specials : std::uint8_t {
  ieee,  ///< exponent all ones: fraction 0 is Inf, otherwise NaN (fraction MSB set = quiet)
  fn,    ///< "finite + NaN": the all-ones magnitude code is the only NaN; no Inf (e4m3, e8m0)
  none,  ///< every code is a finite number (e3m2, e2m3, e2m1, int8)
  fnuz,  ///< "finite, NaN, unsigned zero": the negative-zero code (sign bit alone) is the only
         ///< NaN; no Inf and no -0; the all-ones magnitude is finite (e4m3fnuz: NaN 0x80, max 0x7F)
  /// IEEE P3109's extended domain (interim report v4.0 4.7.2, 4.7.6): one NaN, +-Inf, no -0.
  /// Sign-magnitude: NaN is the negative-zero code (sign bit alone, 0x80), +Inf the all-ones
  /// magnitude (0x7F) and -Inf that with the sign (0xFF); the largest finite magnitude is the
  /// all-ones one less 1 (0x7E). Unsigned: NaN is the all-ones code (0xFF) and +Inf the one
  /// below it (0xFE); the largest finite is 0xFD. Needs subnormals=yes (a zero). P3109's finite
  /// domain is fnuz (signed) and fn (unsigned), with P3109's bias.
  extended,
};

/// How the sign of a value is encoded in a code.
enum class SignEncoding : std::uint8_t {
  magnitude,       ///< sign bit at the top, then the magnitude (IEEE style; has -0)
  twos_complement, ///< the code is the two's complement of the magnitude code (int8; no -0)
  none,            ///< unsigned: every code is non-negative (e8m0)
};

/// Identifies the formats softmx knows by name. The order is stable: it indexes tables.
enum class FormatId : std::uint8_t {
  f64, f32, f16, bf16,            // IEEE-style sources and destinations
  e4m3, e5m2, e3m2, e2m3, e2m1,   // OCP MX element formats (FP8, FP6, FP4)
  int8,                           // the MXINT8 element
  e8m0,                           // the MX shared scale
  runtime,                        // not a named format: a descriptor made at run time (no table
                                  // entry; never an index, never an argument of format())
};
/// The number of named formats (FormatId values below FormatId::runtime).
inline constexpr int kFormatCount = 11;

/// A format's name, held inside its descriptor (a fixed array, no pointer elsewhere), so that a
/// descriptor made at run time is a self-contained value with its canonical spec as its name.
/// Reads as a std::string_view.
class FormatName {
 public:
  static constexpr std::size_t kCapacity = 62;
  constexpr FormatName() = default;
  /// Implicit, for the constant table. Precondition: at most kCapacity characters.
  constexpr FormatName(const char* s) { assign(std::string_view(s)); }
  /// Throws std::length_error beyond kCapacity characters.
  constexpr explicit FormatName(std::string_view s) { assign(s); }
  constexpr operator std::string_view() const { return {buf_, size_}; }
  constexpr std::string_view view() const { return {buf_, size_}; }
  constexpr const char* data() const { return buf_; }  ///< NUL-terminated
  constexpr const char* c_str() const { return buf_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr char operator[](std::size_t i) const { return buf_[i]; }
  friend constexpr bool operator==(const FormatName& a, std::string_view b) { return a.view() == b; }

 private:
  constexpr void assign(std::string_view s) {
    if (s.size() > kCapacity) throw std::length_error("softmx::FormatName: longer than 62 characters");
    for (std::size_t i = 0; i < s.size(); ++i) buf_[i] = s[i];
    size_ = static_cast<std::uint8_t>(s.size());
  }
  char buf_[kCapacity + 1] = {};
  std::uint8_t size_ = 0;
};
std::ostream& operator<<(std::ostream& os, const FormatName& n);

/// A format descriptor. All fields are data; see docs/SEMANTICS.md section 1.
///
/// A magnitude code is (exponent field << man_bits) | fraction. For int8 the magnitude
/// code is |two's complement value| in 0..128, read as an E1M6 float with bias 1 (so
/// magnitude 128, i.e. code 0x80, decodes as 2.0 with a negative sign). The width is always
/// (sign != none) + exp_bits + man_bits.
///
/// A value type: copy it, compare it (== compares the encoding fields, not id or name). Made by
/// hand it must go through canonical_format (or make_format) before use, which checks the
/// fields and sets id and name; Converter does that itself.
struct Format {
  FormatId id = FormatId::runtime;  ///< the named format it is, or FormatId::runtime
  FormatName name;            ///< canonical lower-case name ("e4m3"), or the canonical spec of a
                              ///< runtime format ("e4m3fnuz", "e4m3:bias=11:specials=none")
  std::uint8_t width = 0;     ///< bits in a code (4, 6, 8, 16, 32, 64; runtime formats 1..32)
  std::uint8_t exp_bits = 0;  ///< exponent field bits (int8: 1, see above)
  std::uint8_t man_bits = 0;  ///< stored fraction bits m; precision p = m + 1
  std::int16_t bias = 0;      ///< exponent bias
  SignEncoding sign = SignEncoding::magnitude;
  Specials specials = Specials::none;
  bool subnormals = true;     ///< exponent field 0 holds subnormals and zero (false: e8m0)
  bool fixed_point = false;   ///< uniform spacing (int8): underflow is never raised

  /// Exponent of the smallest normal: 1 - bias with subnormals, -bias without (e8m0).
  constexpr int emin() const { return subnormals ? 1 - bias : -bias; }
  /// Number of hex digits of a code, as TestFloat writes them (e2m1: 1, e3m2: 2, f32: 8).
  constexpr int hex_digits() const { return (width + 3) / 4; }
  /// Mask of the bits a code may use.
  constexpr std::uint64_t code_mask() const {
    return width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  }
  /// Bits of the magnitude (everything but a sign-magnitude sign bit).
  constexpr int magnitude_bits() const {
    return sign == SignEncoding::none ? width : width - 1;
  }
  /// The all-ones magnitude code.
  constexpr std::uint64_t all_ones_magnitude() const {
    return (std::uint64_t{1} << magnitude_bits()) - 1;
  }
  /// Largest finite magnitude code (f16 0x7BFF, e4m3 0x7E, e8m0 0xFE, int8 0x7F, e4m3fnuz 0x7F).
  constexpr std::uint64_t max_finite_magnitude() const {
    switch (specials) {
      case Specials::ieee: return all_ones_magnitude() - (std::uint64_t{1} << man_bits);
      case Specials::fn: return all_ones_magnitude() - 1;
      case Specials::extended: return all_ones_magnitude() - (sign == SignEncoding::none ? 2 : 1);
      case Specials::none:
      case Specials::fnuz: break;
    }
    return all_ones_magnitude();
  }
  /// The magnitude code of +Inf (meaningful when has_inf()): ieee the all-ones exponent with
  /// fraction 0; extended the all-ones magnitude (signed) or the one below it (unsigned).
  constexpr std::uint64_t inf_magnitude() const {
    if (specials == Specials::extended) return all_ones_magnitude() - (sign == SignEncoding::none ? 1 : 0);
    return ((std::uint64_t{1} << exp_bits) - 1) << man_bits;
  }
  /// The single NaN is the negative-zero code (sign bit alone), and there is no -0: fnuz, and a
  /// sign-magnitude extended (P3109) format.
  constexpr bool nan_is_negative_zero() const {
    return specials == Specials::fnuz || (specials == Specials::extended && sign == SignEncoding::magnitude);
  }
  constexpr bool has_inf() const { return specials == Specials::ieee || specials == Specials::extended; }
  constexpr bool has_nan() const { return specials != Specials::none; }
  constexpr bool has_zero() const { return subnormals; }
  constexpr bool is_signed() const { return sign != SignEncoding::none; }
  /// A code for -0 exists (sign-magnitude, with a zero, not fnuz).
  constexpr bool has_negative_zero() const {
    return sign == SignEncoding::magnitude && subnormals && !nan_is_negative_zero();
  }
  /// True for the 11 named formats, false for a runtime descriptor.
  constexpr bool is_named() const { return id != FormatId::runtime; }

  /// Same encoding: every field but id and name.
  friend constexpr bool operator==(const Format& a, const Format& b) {
    return a.width == b.width && a.exp_bits == b.exp_bits && a.man_bits == b.man_bits && a.bias == b.bias &&
           a.sign == b.sign && a.specials == b.specials && a.subnormals == b.subnormals &&
           a.fixed_point == b.fixed_point;
  }
};

/// A bad format descriptor or spec. what() names the field and what was expected, e.g.
/// "format spec 'e4m3:bias=2000': bias: expected an integer in [-1008, 1018] ..."; field() is
/// that field's key ("name", "sign", "exp", "man", "bias", "specials", "subnormals", "fixed",
/// "width", "key").
class FormatError : public std::invalid_argument {
 public:
  FormatError(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

/// The fields a runtime format is made from (docs/SEMANTICS.md 1.1).
struct FormatFields {
  SignEncoding sign = SignEncoding::magnitude;
  int exp_bits = 0;           ///< 0..8
  int man_bits = 0;           ///< 0..23; sign + exp_bits + man_bits <= 32
  std::optional<int> bias;    ///< empty: default_bias(exp_bits)
  Specials specials = Specials::none;
  bool subnormals = true;     ///< exponent field 0 holds zero and subnormals
  bool fixed_point = false;   ///< intN: uniform spacing, underflow never raised
};

/// The default bias: 2^(e-1) - 1 (IEEE's) for e >= 2; 1 for e = 1 and 0 for e = 0, which put
/// the largest value just below 2 (MXINT8's E1M6, the OCP-convention E1M2 with max 1.75).
constexpr int default_bias(int exp_bits) { return exp_bits >= 2 ? (1 << (exp_bits - 1)) - 1 : exp_bits; }

/// Checks the fields (docs/SEMANTICS.md 1.1: exponent bits 0..8, fraction bits 0..23, width
/// 1..32, bias so that every value is an f64 normal number, specials the width can hold) and
/// returns the descriptor: the named one when the fields equal a named format's, otherwise a
/// runtime descriptor named by its canonical spec. Throws FormatError naming the bad field.
Format make_format(const FormatFields& fields);

/// The fields of a descriptor (bias always set).
FormatFields fields_of(const Format& f);

/// make_format(fields_of(f)): checks a descriptor made or edited by hand and gives it its id
/// and name. Named descriptors come back unchanged; throws FormatError.
Format canonical_format(const Format& f);

/// Parses a textual format spec (docs/SEMANTICS.md 1.2), case-insensitively: a named format or
/// alias (f32, e4m3, float8_e4m3fn, mxint8, ...), an ml_dtypes name (float8_e4m3fnuz,
/// float8_e3m4, float8_e4m3, ...), `[u]eXmY[bB][fn|fnuz|fnu]`, `intN`, each optionally followed
/// by `:key=value` fields (sign, exp, man, bias, specials, subnormals, fixed). Throws
/// FormatError whose message names the field and what was expected.
Format parse_format_spec(std::string_view spec);

/// An IEEE P3109 format (interim report v4.0 section 3): bitwidth K, precision P, signedness,
/// domain. Its name is binary{K}p{P}{s|u}{e|f} (section 3.2, lower case here: binary8p3se).
struct P3109Params {
  int k = 8;             ///< bitwidth K, 2..16 (the draft: K > 2; K = 2 is its informative Annex C)
  int p = 3;             ///< precision P: 1..K-1 signed, 1..K unsigned
  bool is_signed = true;
  bool extended = true;  ///< domain: extended (+-Inf) or finite
};
/// The descriptor of a P3109 format: exponent bits K - P (signed) or K - P + 1 (unsigned),
/// P - 1 fraction bits, bias 2^(K-P-1) (signed) or 2^(K-P) (unsigned), subnormals, specials
/// extended or (finite domain) fnuz (signed) / fn (unsigned). Throws FormatError (field "name")
/// when K or P is out of range, or the exponent field would exceed softmx's 8 bits (values
/// beyond f64), or the format has no finite non-zero value (binary2p1se).
Format p3109_format(const P3109Params& params);
/// The P3109 parameters of a descriptor, when it is exactly a P3109 format (any name).
std::optional<P3109Params> p3109_params(const Format& f);
/// "binary8p3se" for {8, 3, signed, extended}.
std::string p3109_name(const P3109Params& params);

/// The canonical spec of a format: a named format's name, else the shortest form the parser
/// reads back to the same descriptor (parse_format_spec(format_spec(f)) == f).
std::string format_spec(const Format& f);


/// The descriptor of a named format. Throws std::invalid_argument for FormatId::runtime (a
/// runtime format has no table entry: keep its Format).
const Format& format(FormatId id);
/// The descriptor itself: code that holds either a FormatId or a Format (a command-line option,
/// a vector header's format, any spec of SEMANTICS 1.2) reads both as format(x).
constexpr const Format& format(const Format& f) { return f; }

/// All formats in FormatId order.
std::span<const Format> all_formats();

/// Looks a format up by name. Accepts the canonical names (f64 f32 f16 bf16 e4m3 e5m2 e3m2
/// e2m3 e2m1 int8 e8m0) and common aliases (fp32, float, half, bfloat16, fp8e4m3,
/// float8_e4m3fn, e4m3fn, fp8e5m2, fp6e3m2, fp6e2m3, fp4, fp4e2m1, mxint8, ue8m0, ...),
/// case-insensitively. Returns nullopt for anything else (parse_format_spec reads runtime specs).
std::optional<FormatId> parse_format(std::string_view name);

/// True for the MX element formats: e4m3, e5m2, e3m2, e2m3, e2m1, int8.
constexpr bool is_mx_element(FormatId id) {
  return id == FormatId::e4m3 || id == FormatId::e5m2 || id == FormatId::e3m2 || id == FormatId::e2m3 ||
         id == FormatId::e2m1 || id == FormatId::int8;
}

/// True for f64, f32, f16 and bf16 (the IEEE-style host formats).
constexpr bool is_ieee_host_format(FormatId id) {
  return id == FormatId::f64 || id == FormatId::f32 || id == FormatId::f16 || id == FormatId::bf16;
}

}  // namespace softmx
