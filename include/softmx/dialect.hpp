// softmx/dialect.hpp: dialects, the named bundles of policies where implementations differ.
//
// A Dialect is data. The round-and-pack core reads its policies and never asks which dialect
// it is running; adding a dialect is a table entry in emulator/dialects.cpp plus tests that pin
// its distinguishing cases. docs/DIALECTS.md documents each dialect and cites its sources;
// docs/SEMANTICS.md section 5 defines each policy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "softmx/context.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// Sign of a NaN result (SEMANTICS 5.5).
enum class NanSign : std::uint8_t {
  preserve,  ///< the input's sign
  positive,
  negative,  ///< the all-ones code (gfloat's code_of_nan: e4m3 and e5m2 0xFF)
};
/// Fraction of a NaN result in an ieee-encoded destination (SEMANTICS 5.5).
enum class NanPayload : std::uint8_t {
  canonical,  ///< only the quiet bit set
  preserve,   ///< the source fraction's leading bits, quiet bit forced on
  all_ones,   ///< every fraction bit set (CUDA's float-to-half/bfloat16 give 0x7FFF)
};
/// What a NaN becomes in a format without NaN (e3m2, e2m3, e2m1, int8). Always invalid.
enum class NanToFinite : std::uint8_t {
  positive_max,
  signed_max,     ///< max with the NaN's sign
  positive_zero,
  negative_zero,
  flipped_zero,   ///< zero with the opposite of the NaN's sign (ml_dtypes: quiet_NaN() is the -0 code)
  signed_value,   ///< Dialect::nan_finite_value with the NaN's sign (torchao's FP4/FP6 cast on x86: 1.5)
  error,          ///< the implementation raises an error (gfloat); softmx gives code 0 and invalid,
                  ///< and the block and command layers report it as an error
};
/// E8M0 for 0 < |x| < 2^-127 (SEMANTICS 5.4).
enum class E8m0Below : std::uint8_t { clamp_min, nan };
/// E8M0 for zero (SEMANTICS 5.4).
enum class E8m0Zero : std::uint8_t { min_scale, nan };
/// E8M0 for negative non-zero inputs (SEMANTICS 5.4).
enum class E8m0Negative : std::uint8_t { nan, magnitude };
/// E8M0 ties under rne (SEMANTICS 5.4).
enum class E8m0Ties : std::uint8_t { even, up };
/// Which neighbour rne takes at an exact tie in the MX element formats (SEMANTICS 5.8); other
/// destinations keep ties to even (E8M0 follows E8m0Ties).
enum class NearestTies : std::uint8_t {
  even,         ///< IEEE 754 roundTiesToEven: the neighbour with the even code
  toward_zero,  ///< the smaller magnitude: an argmin over a value table that keeps the first
                ///< (lowest-index) minimum, the table ordered by magnitude (lut-argmin)
};
/// The sign of a zero result in an MX element format (SEMANTICS 5.8); other destinations keep
/// the input's sign.
enum class ZeroSign : std::uint8_t {
  preserve,  ///< the input's sign: -0 stays -0, a negative value that rounds to zero gives -0
  positive,  ///< always +0 (lut-argmin: index 0, +0.0, wins every tie with index 8, -0.0)
};

/// How a block's shared scale exponent is chosen (docs/BLOCKS.md 1 step 2).
enum class ScaleRule : std::uint8_t {
  floor,  ///< OCP MX 6.3: floor(log2 amax) - emax_E
  ceil,   ///< ceil(log2 amax) - emax_E (torchao CEIL)
  even,   ///< floor(log2 R(amax)) - emax_E, amax rounded to m_E + 1 bits ties away (torchao EVEN)
  rceil,  ///< smallest s with max_E * 2^s >= amax (NVIDIA cuBLAS / TransformerEngine)
};
/// The scale of a block whose values are all zero (docs/BLOCKS.md 1 step 4).
enum class ZeroBlockScale : std::uint8_t {
  min_scale,   ///< 0x00 = 2^-127
  unit_scale,  ///< 0x7F = 1.0
};
/// A block with a NaN in it.
enum class NanBlock : std::uint8_t {
  nan_scale,  ///< scale 0xFF
  propagate,  ///< scale from the finite values; the NaN element follows the element rules
};
/// A block with an Inf (and no NaN) in it.
enum class InfBlock : std::uint8_t {
  nan_scale,  ///< scale 0xFF
  max_scale,  ///< scale 0xFE (2^127); elements converted with it
  ignore,     ///< scale from the finite values; the Inf element follows the element rules
};
/// The element codes of a block whose scale is NaN.
enum class NanScaleElements : std::uint8_t {
  convert,  ///< each element converted as usual (with the scale 2^0 for finite ones)
  zero,     ///< every element code 0
  nan,      ///< every element converted from NaN: a NaN element's own NaN, the others +NaN
            ///< (what V * NaN gives on x86, which propagates the first NaN operand)
};
/// A scale exponent above 127 (only wide inputs reach it).
enum class ScaleOverflow : std::uint8_t { clamp, nan };
/// How V / X is formed before the element rounding (docs/BLOCKS.md 1 step 5).
enum class ElementScaling : std::uint8_t {
  exact,              ///< exponent arithmetic: no rounding before the element's
  f32_reciprocal,     ///< V * 2^-s rounded to f32 first: torchao (exact 1/X, f32 product), and
                      ///< TransformerEngine since PR 2647 (2026-02-05), whose exp2f_rcp gives the
                      ///< exact 2^(127 - S) for every S <= 0xFE (0x00: 2^127, 0xFE: 2^-127)
  te_int_reciprocal,  ///< TransformerEngine before PR 2647 (ptx.cuh until 2026-02-05): multiplier 1.0
                      ///< for scale 0x00, +0.0 for 0xFE, else 2^(127 - S); the f32 product rounded first
};
/// How a block's scale is applied when dequantizing (docs/BLOCKS.md 2).
enum class DequantScaling : std::uint8_t {
  exact,     ///< value * 2^(S - 127), rounded once; 0xFF gives NaN
  te_exp2f,  ///< TransformerEngine since PR 3262 (2026-08-05), ptx::exp2f: the scale is the f32
             ///< 2^(S - 127) (0x00 -> 2^-127, the subnormal 0x00400000; 0xFF -> NaN 0x7FFFFFFF), the
             ///< product rounded to f32, then converted to the destination
  te_bits,   ///< TransformerEngine before PR 3262: scale = the f32 with bits S << 23 (0x00 -> 0.0,
             ///< 0xFF -> +Inf), product rounded to f32, then converted to the destination
};

/// The block-level policies of a dialect (docs/BLOCKS.md 1).
struct BlockPolicies {
  /// Empty when the dialect quantizes blocks; otherwise why not ("ml_dtypes has no block
  /// quantization").
  std::string_view unsupported;
  ScaleRule scale_rule = ScaleRule::floor;
  ZeroBlockScale zero_block_scale = ZeroBlockScale::min_scale;
  NanBlock nan_block = NanBlock::nan_scale;
  InfBlock inf_block = InfBlock::nan_scale;
  NanScaleElements nan_scale_elements = NanScaleElements::zero;
  ScaleOverflow scale_overflow = ScaleOverflow::clamp;
  /// rceil: the quotient amax / max_E formed as amax * RN_f32(1 / max_E), rounded to f32, and
  /// then rounded up to a power of two (torchao, TransformerEngine), instead of exactly.
  bool rceil_f32_reciprocal = false;
  /// even: the rounded amax is an f32, so a carry past 2^128 makes it Inf and the scale NaN
  /// (torchao).
  bool even_f32_overflow_nan = false;
  ElementScaling element_scaling = ElementScaling::exact;
  DequantScaling dequant_scaling = DequantScaling::exact;
  /// The element rounding and saturation a quantizer uses unless told otherwise.
  Rounding element_rounding = Rounding::rne;
  Saturation element_saturation = Saturation::finite;
};

/// A set of rounding modes, one bit per Rounding value (bit i = Rounding(i)).
using RoundingSet = std::uint8_t;
/// A set of saturation modes, one bit per Saturation value.
using SaturationSet = std::uint8_t;
inline constexpr RoundingSet kAllRoundings = (1u << kRoundingCount) - 1;
inline constexpr SaturationSet kAllSaturations = 0x3;
constexpr RoundingSet rounding_bit(Rounding r) { return RoundingSet(1u << static_cast<unsigned>(r)); }
constexpr SaturationSet saturation_bit(Saturation s) { return SaturationSet(1u << static_cast<unsigned>(s)); }

/// What a dialect accepts for one destination format, and what it uses when not told.
struct DestinationSupport {
  RoundingSet roundings = kAllRoundings;      ///< 0: the dialect cannot produce this format
  /// finite and/or none (by_destination is never in a set: it is resolved first).
  SaturationSet saturations = kAllSaturations;
  std::string_view why;  ///< for error messages: where the restriction comes from
  Rounding default_rounding = Rounding::rne;
  /// What Saturation::by_destination (Context's default) and the CLI without --sat mean for
  /// this destination: finite or none, never by_destination (SEMANTICS 4.1). The built-in
  /// dialects give none for f64, f32, f16 and bf16 (each documents why in docs/DIALECTS.md).
  Saturation default_saturation = Saturation::finite;
};

/// A dialect: element-conversion policies plus what it supports. See docs/SEMANTICS.md 5.
struct Dialect {
  std::string_view name;      ///< "ocp", "cuda"
  std::string_view summary;   ///< one line
  std::string_view sources;   ///< where the behaviour comes from (spec sections, headers)

  NanSign nan_sign = NanSign::preserve;
  /// Per destination format (indexed by FormatId; only ieee-encoded ones have a choice).
  std::array<NanPayload, kFormatCount> nan_payload{};
  /// Per source format (indexed by FormatId): 0 keeps a NaN input as it is; n > 0 first
  /// replaces it by the positive quiet NaN whose fraction starts with n ones, which is what an
  /// implementation that widens through another format produces (CUDA's float paths turn every
  /// NaN into 0x7FFFFFFF: 23 ones; its E8M0 decode goes through bf16 0x7FFF: 7 ones).
  std::array<std::uint8_t, kFormatCount> nan_canonical_ones{};
  NanToFinite nan_to_finite = NanToFinite::positive_max;
  double nan_finite_value = 0;  ///< for NanToFinite::signed_value
  E8m0Below e8m0_below = E8m0Below::clamp_min;
  E8m0Zero e8m0_zero = E8m0Zero::min_scale;
  E8m0Negative e8m0_negative = E8m0Negative::nan;
  E8m0Ties e8m0_ties = E8m0Ties::even;
  NearestTies nearest_ties = NearestTies::even;
  ZeroSign zero_sign = ZeroSign::preserve;
  /// E8M0 under rne/rna: every value in (2^-127, 2^-126) rounds up to 2^-126, as PyTorch's and
  /// ml_dtypes' casts do (they round on the bits of an f32 subnormal, whose implicit bit is 0).
  bool e8m0_lowest_binade_rounds_up = false;
  /// MXINT8: may negative results use 0x80 (-2)?
  bool int8_minus2 = false;

  /// Block-level policies.
  BlockPolicies block{};

  /// Per destination format (indexed by FormatId).
  std::array<DestinationSupport, kFormatCount> support{};
};

/// The ocp dialect: the OCP MX v1.0 / OFP8 v1.0 specification, with its
/// implementation-defined points decided and documented (docs/DIALECTS.md).
const Dialect& ocp_dialect();

/// Every built-in dialect, ocp first.
std::span<const Dialect> all_dialects();

/// Looks a dialect up by name (case-insensitive). nullptr if unknown.
const Dialect* find_dialect(std::string_view name);

/// The saturation `s` means for a conversion into `dst` under `dialect`: `s` itself when it is
/// finite or none; for Saturation::by_destination the dialect's default_saturation for `dst`.
constexpr Saturation resolve(const Dialect& dialect, FormatId dst, Saturation s) {
  return s == Saturation::by_destination ? dialect.support[static_cast<int>(dst)].default_saturation : s;
}

/// `ctx` with its saturation resolved for `dst` under `dialect` (the other fields as they are).
/// Every entry point that converts calls this before checking support or choosing a kernel.
constexpr Context resolve(const Dialect& dialect, FormatId dst, Context ctx) {
  ctx.saturation = resolve(dialect, dst, ctx.saturation);
  return ctx;
}

/// Why `dialect` cannot convert into `dst` under `ctx` (its saturation resolved first), or
/// nullopt when it can.
/// The message names the dialect, the destination and the modes it does accept.
std::optional<std::string> unsupported_reason(const Dialect& dialect, FormatId dst, const Context& ctx);

/// Canonical policy value names, for listings and explain ("preserve", "positive_max", ...).
std::string_view name(NanSign);
std::string_view name(NanPayload);
std::string_view name(NanToFinite);
std::string_view name(E8m0Below);
std::string_view name(E8m0Zero);
std::string_view name(E8m0Negative);
std::string_view name(E8m0Ties);
std::string_view name(NearestTies);
std::string_view name(ZeroSign);
std::string_view name(ZeroBlockScale);
std::string_view name(NanBlock);
std::string_view name(InfBlock);
std::string_view name(NanScaleElements);
std::string_view name(ScaleOverflow);
std::string_view name(ElementScaling);
std::string_view name(DequantScaling);

}  // namespace softmx
