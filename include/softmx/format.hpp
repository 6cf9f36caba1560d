// softmx/format.hpp: formats as data.
//
// One Format descriptor per format, in the spirit of LLVM APFloat's fltSemantics: the
// round-and-pack core reads these fields and never asks which format it is serving. Adding a
// format is a new table entry (emulator/formats.cpp) plus its tests.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace softmx {

/// How a format encodes non-finite values.
enum class Specials : std::uint8_t {
  ieee,  ///< exponent all ones: fraction 0 is Inf, otherwise NaN (fraction MSB set = quiet)
  fn,    ///< "finite + NaN": the all-ones magnitude code is the only NaN; no Inf (e4m3, e8m0)
  none,  ///< every code is a finite number (e3m2, e2m3, e2m1, int8)
};

/// How the sign of a value is encoded in a code.
enum class SignEncoding : std::uint8_t {
  magnitude,       ///< sign bit at the top, then the magnitude (IEEE style; has -0)
  twos_complement, ///< the code is the two's complement of the magnitude code (int8; no -0)
  none,            ///< unsigned: every code is non-negative (e8m0)
};

/// Identifies the formats softmx knows. The order is stable: it indexes tables.
enum class FormatId : std::uint8_t {
  f64, f32, f16, bf16,            // IEEE-style sources and destinations
  e4m3, e5m2, e3m2, e2m3, e2m1,   // OCP MX element formats (FP8, FP6, FP4)
  int8,                           // the MXINT8 element
  e8m0,                           // the MX shared scale
};
inline constexpr int kFormatCount = 11;

/// A format descriptor. All fields are data; see docs/SEMANTICS.md section 1.
///
/// A magnitude code is (exponent field << man_bits) | fraction. For int8 the magnitude
/// code is |two's complement value| in 0..128, read as an E1M6 float with bias 1 (so
/// magnitude 128, i.e. code 0x80, decodes as 2.0 with a negative sign).
struct Format {
  FormatId id;
  std::string_view name;      ///< canonical lower-case name ("e4m3")
  std::uint8_t width;         ///< bits in a code (4, 6, 8, 16, 32, 64)
  std::uint8_t exp_bits;      ///< exponent field bits (int8: 1, see above)
  std::uint8_t man_bits;      ///< stored fraction bits m; precision p = m + 1
  std::int16_t bias;          ///< exponent bias
  SignEncoding sign;
  Specials specials;
  bool subnormals;            ///< exponent field 0 holds subnormals and zero (false: e8m0)
  bool fixed_point;           ///< uniform spacing (int8): underflow is never raised

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
  /// Largest finite magnitude code (f16 0x7BFF, e4m3 0x7E, e8m0 0xFE, int8 0x7F).
  constexpr std::uint64_t max_finite_magnitude() const {
    switch (specials) {
      case Specials::ieee: return all_ones_magnitude() - (std::uint64_t{1} << man_bits);
      case Specials::fn: return all_ones_magnitude() - 1;
      case Specials::none: break;
    }
    return all_ones_magnitude();
  }
  constexpr bool has_inf() const { return specials == Specials::ieee; }
  constexpr bool has_nan() const { return specials != Specials::none; }
  constexpr bool has_zero() const { return subnormals; }
  constexpr bool is_signed() const { return sign != SignEncoding::none; }
};

/// The descriptor of a format. Always valid for a FormatId.
const Format& format(FormatId id);

/// All formats in FormatId order.
std::span<const Format> all_formats();

/// Looks a format up by name. Accepts the canonical names (f64 f32 f16 bf16 e4m3 e5m2 e3m2
/// e2m3 e2m1 int8 e8m0) and common aliases (fp32, float, half, bfloat16, fp8e4m3,
/// float8_e4m3fn, e4m3fn, fp8e5m2, fp6e3m2, fp6e2m3, fp4, fp4e2m1, mxint8, ue8m0, ...),
/// case-insensitively. Returns nullopt for anything else.
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
