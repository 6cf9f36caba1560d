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
  canonical,       ///< only the quiet bit set
  preserve,        ///< the source fraction's leading bits, quiet bit forced on
  all_ones,        ///< every fraction bit set (CUDA's float-to-half/bfloat16 give 0x7FFF)
  exact,           ///< the source fraction's leading bits as they are, quiet bit not forced (a
                   ///< signalling NaN stays signalling); the quiet bit only when they are all zero
                   ///< (ml_dtypes' direct float8_e5m2 -> Eigen::half: the code shifted left 8)
  signalling_one,  ///< quiet bit clear, only the last fraction bit set: f32 0x7F800001 (PyTorch's
                   ///< Float8_e8m0fnu -> float for 0xFF)
};
/// A NaN input read from `src` and written to `dst` takes `payload` instead of the destination's
/// nan_payload (SEMANTICS 5.5): a conversion path with its own NaN rule.
struct NanPayloadPath {
  FormatId src = FormatId::f64;
  FormatId dst = FormatId::f64;
  NanPayload payload = NanPayload::canonical;
};
inline constexpr int kMaxNanPayloadPaths = 4;
/// What saturation finite does to an infinite input (SEMANTICS 5.6).
enum class SatfiniteInf : std::uint8_t {
  max_finite,  ///< +-max finite with invalid (OFP8 SAT, PTX .satfinite)
  as_none,     ///< as under saturation none: saturation clamps finite overflow only (ml_dtypes'
               ///< ConvertFrom<kSaturate = true>: Inf stays Inf, e4m3 and e8m0 give NaN)
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
enum class E8m0Zero : std::uint8_t {
  min_scale,
  nan,
  min_if_satfinite,  ///< min_scale under saturation finite, nan under none (ml_dtypes'
                     ///< kSaturate ? denorm_min() : quiet_NaN())
};
/// E8M0 for negative non-zero inputs (SEMANTICS 5.4).
enum class E8m0Negative : std::uint8_t {
  nan,
  magnitude,
  min_if_satfinite,  ///< a finite negative gives 0x00 (2^-127) under saturation finite, NaN under
                     ///< none; -Inf gives NaN under both (ml_dtypes' kSaturate ? lowest() :
                     ///< quiet_NaN(), after its Inf test)
  /// IEEE P3109 (interim report v4.0 4.7.3, 4.7.5): the negative value is rounded first (with its
  /// sign, so ru rounds toward zero and rd away); one that rounds to 0 gives +0 with the usual
  /// flags; any other result below Mlo = 0 gives code 0 with invalid and inexact under finite and
  /// propagate, and under none NaN (invalid), except 0 (invalid, inexact) under rz and ru. -Inf:
  /// NaN under none, code 0 (invalid) under finite and propagate.
  saturate_zero,
};
/// What overflow and an infinite input give, where the saturation rules ask for Inf, in a
/// destination without Inf (SEMANTICS 4, 5.6).
enum class OverflowNoInf : std::uint8_t {
  nan,         ///< its NaN when it has one (OFP8 table 3: e4m3 NONSAT; e8m0; fnuz), else +-max finite
  max_finite,  ///< +-max finite (IEEE P3109 v4.0 4.7.5: SatNone sends X > Mhi and +Inf to Mhi in a
               ///< finite-domain format); an Inf input also gets invalid
};
/// What an overflowing ro result gives under saturation none (SEMANTICS 4).
enum class RoOverflow : std::uint8_t {
  max_finite,  ///< +-max finite, as rz (IEEE 754 7.4 names no ro; every built-in dialect but p3109)
  odd_code,    ///< the odd one of max finite and Inf, as ro picks between two codes: Inf when the
               ///< destination's Inf code is odd (P3109 signed extended: Inf 0x7F after max 0x7E,
               ///< v4.0 4.7.5's SatNone rules 40, 43, 46), else max (ieee Inf codes are even)
};
/// E8M0 ties under rne (SEMANTICS 5.4).
enum class E8m0Ties : std::uint8_t { even, up };
/// Which neighbour rne takes at an exact tie in the MX element formats (SEMANTICS 5.8); other
/// destinations keep ties to even (E8M0 follows E8m0Ties).
enum class NearestTies : std::uint8_t {
  even,         ///< IEEE 754 roundTiesToEven: the neighbour with the even code
  toward_zero,  ///< the smaller magnitude: an argmin over a value table that keeps the first
                ///< (lowest-index) minimum, the table ordered by magnitude (lut-argmin)
};

/// How a block's shared scale exponent is chosen (docs/BLOCKS.md 1 step 2).
enum class ScaleRule : std::uint8_t {
  floor,  ///< OCP MX 6.3: floor(log2 amax) - emax_E
  ceil,   ///< ceil(log2 amax) - emax_E (torchao CEIL)
  even,   ///< floor(log2 R(amax)) - emax_E, amax rounded to m_E + 1 bits ties away (torchao EVEN)
  rceil,  ///< smallest s with max_E * 2^s >= amax (NVIDIA cuBLAS / TransformerEngine)
  /// floor(RN_p(log2 amax)) - emax_E, with log2 rounded to nearest (even) at the source
  /// format's precision p (24 for f32, 53 for f64): NumPy's np.log2 in the input dtype, which
  /// pychop floors. Equals `floor` except for amax just below a power of two 2^k (k != 0, 1),
  /// where log2 rounds up to k: docs/BLOCKS.md 1 step 2.
  floor_log2_rn,
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
  /// NumPy's nanmax (pychop): as propagate, except that a block whose only non-NaN values are
  /// zeros is the all-zero block (every element +0, the NaN lost, flag invalid), and a block of
  /// NaN only has the NaN scale.
  nanmax,
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
  /// torchmx's hardware-exact path (MX_HARDWARE_EXACT_QUANTIZATION=True): every code 0, except
  /// a finite element whose |V| / 2^128 rounds (rne) to a subnormal of the element format: that
  /// positive subnormal code (its subnormal codes are written after its underflow mask). FP
  /// elements only; MXINT8 codes are 0.
  hw_exact_subnormals,
};
/// A scale exponent above 127 (only wide inputs reach it).
enum class ScaleOverflow : std::uint8_t { clamp, nan };
/// The sign of an element code that is zero: in a block (BlockPolicies::zero_sign, docs/BLOCKS.md
/// 1 step 5) and of a zero result converted into an MX element format (Dialect::zero_sign,
/// SEMANTICS 5.8; other destinations keep the input's sign).
enum class ZeroSign : std::uint8_t {
  keep,      ///< -0 where the element format has it: a -0 input, or a negative V / X rounding to 0
  positive,  ///< every zero element is +0 (pychop: `if value == 0: return 0.0`, `if rounded == 0`)
};
/// A set of formats, one bit per FormatId (bit i = FormatId(i)).
using FormatSet = std::uint32_t;
constexpr FormatSet format_bit(FormatId f) { return FormatSet(1u) << static_cast<unsigned>(f); }
/// f64, f32, f16 and bf16: the sources a block quantizer accepts.
inline constexpr FormatSet kHostFormats =
    format_bit(FormatId::f64) | format_bit(FormatId::f32) | format_bit(FormatId::f16) | format_bit(FormatId::bf16);

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
  std::string_view unsupported{};
  /// How the shared exponent is chosen from amax (BLOCKS.md 1 step 2); OCP MX 6.3's is floor.
  ScaleRule scale_rule = ScaleRule::floor;
  /// The scale of a block whose values are all zero (step 4): OCP gives none; 2^-127 here.
  ZeroBlockScale zero_block_scale = ZeroBlockScale::min_scale;
  /// A block holding a NaN (step 1): OCP MX 6.3 makes its scale NaN.
  NanBlock nan_block = NanBlock::nan_scale;
  /// A block holding an Inf and no NaN (step 1): OCP MX 6.3 makes its scale NaN.
  InfBlock inf_block = InfBlock::nan_scale;
  /// The element codes under a NaN scale (step 5): OCP leaves them unspecified; 0 here.
  NanScaleElements nan_scale_elements = NanScaleElements::zero;
  /// A scale exponent above 127, which only f64 sources reach (step 3).
  ScaleOverflow scale_overflow = ScaleOverflow::clamp;
  /// rceil: the quotient amax / max_E formed as amax * RN_f32(1 / max_E), rounded to f32, and
  /// then rounded up to a power of two (torchao, TransformerEngine), instead of exactly.
  bool rceil_f32_reciprocal = false;
  /// even: the rounded amax is an f32, so a carry past 2^128 makes it Inf and the scale NaN
  /// (torchao).
  bool even_f32_overflow_nan = false;
  /// How V / X is formed before the element rounding (step 5).
  ElementScaling element_scaling = ElementScaling::exact;
  /// How the scale is applied when dequantizing (BLOCKS.md 2).
  DequantScaling dequant_scaling = DequantScaling::exact;
  /// The element rounding and saturation a quantizer uses unless told otherwise.
  Rounding element_rounding = Rounding::rne;
  Saturation element_saturation = Saturation::finite;
  /// The sign of zero element codes (FP elements; MXINT8 has no -0).
  ZeroSign zero_sign = ZeroSign::keep;
  /// MXINT8 elements are the integers -127..127 (torchmx), not OCP's 1.6 fixed point: the scale
  /// code means 2^(S - 127) per integer step, so it is OCP's code minus 6 (the rule sees emax 6
  /// instead of 0), still clamped at 0x00; element bytes are OCP's under the scale 2^(s + 6), and
  /// dequantization multiplies by 2^(S - 127 + 6).
  bool int8_integer_elements = false;
  /// The source formats the dialect quantizes (a subset of kHostFormats), and why not the others.
  FormatSet sources = kHostFormats;
  std::string_view sources_why{};
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

/// The set of specials kinds (bit i = Specials(i)).
using SpecialsSet = std::uint8_t;
constexpr SpecialsSet specials_bit(Specials s) { return SpecialsSet(1u << static_cast<unsigned>(s)); }
inline constexpr SpecialsSet kAllSpecials = 0x1F;

/// How a dialect treats formats that have no FormatId (runtime descriptors, format.hpp). The
/// per-format arrays of Dialect are indexed by FormatId; a runtime format takes these values
/// instead (a runtime descriptor equal to a named format is that format and takes the named
/// entries). docs/DIALECTS.md, "Runtime formats", gives every dialect's values and why.
struct RuntimeFormatPolicy {
  /// Empty when the dialect converts runtime formats; otherwise why it does not, and then it
  /// refuses them as sources and destinations.
  std::string_view refused;
  /// The specials kinds a runtime format may have, as a destination and as a source (others are
  /// refused with support.why).
  SpecialsSet specials = kAllSpecials;
  /// The rounding modes and saturations into a runtime destination, and their defaults
  /// (support.default_saturation for a destination without Inf).
  DestinationSupport support{};
  /// The default saturation into a runtime destination that has Inf (specials ieee: e3m4,
  /// e4m3:specials=ieee, ue5m3): none, IEEE 754 7.4's overflow to Inf, as f64, f32, f16 and bf16
  /// under every built-in dialect (SEMANTICS 4.1; issue 29). A dialect whose implementation
  /// saturates into such formats states finite here. Used only when support.saturations holds it.
  Saturation default_saturation_with_inf = Saturation::none;
  /// nan_payload for an ieee-encoded runtime destination.
  NanPayload nan_payload = NanPayload::canonical;
  /// nan_canonical_ones for a runtime source.
  std::uint8_t nan_canonical_ones = 0;
};

/// A dialect: element-conversion policies plus what it supports. See docs/SEMANTICS.md 5.
struct Dialect {
  std::string_view name;      ///< "ocp", "cuda"
  std::string_view summary;   ///< one line
  std::string_view sources;   ///< where the behaviour comes from (spec sections, headers)

  NanSign nan_sign = NanSign::preserve;
  /// Per destination format (indexed by FormatId; only ieee-encoded ones have a choice).
  std::array<NanPayload, kFormatCount> nan_payload{};
  /// Conversion paths whose NaN fraction rule differs from nan_payload[dst] (the first
  /// nan_payload_path_count entries; see nan_payload_for_path).
  std::array<NanPayloadPath, kMaxNanPayloadPaths> nan_payload_paths{};
  std::uint8_t nan_payload_path_count = 0;
  /// Per source format (indexed by FormatId): 0 keeps a NaN input as it is; n > 0 first
  /// replaces it by the positive quiet NaN whose fraction starts with n ones, which is what an
  /// implementation that widens through another format produces (CUDA's float paths turn every
  /// NaN into 0x7FFFFFFF: 23 ones; its E8M0 decode goes through bf16 0x7FFF: 7 ones).
  std::array<std::uint8_t, kFormatCount> nan_canonical_ones{};
  /// A NaN into a format without NaN (e3m2, e2m3, e2m1, int8; SEMANTICS 5.7).
  NanToFinite nan_to_finite = NanToFinite::positive_max;
  double nan_finite_value = 0;  ///< for NanToFinite::signed_value
  /// E8M0's non-finite and out-of-range inputs (SEMANTICS 5.4): below 2^-127, zero, negative.
  E8m0Below e8m0_below = E8m0Below::clamp_min;
  E8m0Zero e8m0_zero = E8m0Zero::min_scale;
  E8m0Negative e8m0_negative = E8m0Negative::nan;
  /// E8M0's ties under rne and rna (SEMANTICS 5.4): a tie between 2^k and 2^(k+1) is the
  /// value 1.5 * 2^k, which even and up round differently.
  E8m0Ties e8m0_ties = E8m0Ties::even;
  /// Saturation's corner cases (SEMANTICS 4, 5.6): an Inf under finite, overflow where there
  /// is no Inf, ro's overflow under none.
  SatfiniteInf satfinite_inf = SatfiniteInf::max_finite;
  OverflowNoInf overflow_no_inf = OverflowNoInf::nan;
  RoOverflow ro_overflow = RoOverflow::max_finite;
  /// The MX element formats' ties and zero signs (SEMANTICS 5.8).
  NearestTies nearest_ties = NearestTies::even;
  ZeroSign zero_sign = ZeroSign::keep;
  /// E8M0 under rne/rna: every value in (2^-127, 2^-126) rounds up to 2^-126, as PyTorch's and
  /// ml_dtypes' casts do (they round on the bits of an f32 subnormal, whose implicit bit is 0).
  bool e8m0_lowest_binade_rounds_up = false;
  /// MXINT8: may negative results use 0x80 (-2)?
  bool int8_minus2 = false;

  /// Block-level policies.
  BlockPolicies block{};

  /// Per destination format (indexed by FormatId).
  std::array<DestinationSupport, kFormatCount> support{};

  /// Formats without a FormatId.
  RuntimeFormatPolicy runtime{};
};

/// The dialect's nan_payload for a destination, named or runtime (SEMANTICS 5.5).
constexpr NanPayload nan_payload_for(const Dialect& d, const Format& dst) {
  return dst.is_named() ? d.nan_payload[static_cast<int>(dst.id)] : d.runtime.nan_payload;
}
/// The dialect's nan_canonical_ones for a source, named or runtime (SEMANTICS 5.5).
constexpr int nan_canonical_ones_for(const Dialect& d, const Format& src) {
  return src.is_named() ? d.nan_canonical_ones[static_cast<int>(src.id)] : d.runtime.nan_canonical_ones;
}
/// What the dialect accepts for a destination, named or runtime: a named one's entry of
/// Dialect::support; for a runtime one Dialect::runtime.support, whose default saturation is
/// runtime.default_saturation_with_inf when the destination has Inf (and the dialect allows it).
/// A value, not a reference: the runtime default depends on the destination.
constexpr DestinationSupport support_for(const Dialect& d, const Format& dst) {
  if (dst.is_named()) return d.support[static_cast<int>(dst.id)];
  DestinationSupport s = d.runtime.support;
  if (dst.has_inf() && (s.saturations & saturation_bit(d.runtime.default_saturation_with_inf)))
    s.default_saturation = d.runtime.default_saturation_with_inf;
  return s;
}

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
/// The same for any destination, named or runtime (a runtime one: support_for's default, i.e.
/// RuntimeFormatPolicy::default_saturation_with_inf when it has Inf, else
/// RuntimeFormatPolicy::support.default_saturation).
constexpr Context resolve(const Dialect& dialect, const Format& dst, Context ctx) {
  if (ctx.saturation == Saturation::by_destination) ctx.saturation = support_for(dialect, dst).default_saturation;
  return ctx;
}

/// The NaN fraction rule for a NaN input read from `src` and written to `dst`: the matching entry
/// of the dialect's nan_payload_paths, else nan_payload[dst] (SEMANTICS 5.5).
constexpr NanPayload nan_payload_for_path(const Dialect& dialect, FormatId src, FormatId dst) {
  for (int i = 0; i < dialect.nan_payload_path_count && i < kMaxNanPayloadPaths; ++i)
    if (dialect.nan_payload_paths[i].src == src && dialect.nan_payload_paths[i].dst == dst)
      return dialect.nan_payload_paths[i].payload;
  return dialect.nan_payload[static_cast<int>(dst)];
}

/// Why `dialect` cannot convert into `dst` under `ctx` (its saturation resolved first), or
/// nullopt when it can.
/// The message names the dialect, the destination and the modes it does accept.
std::optional<std::string> unsupported_reason(const Dialect& dialect, FormatId dst, const Context& ctx);
/// The same for any destination: a named one as above; a runtime one by Dialect::runtime (the
/// dialect refuses runtime formats, or this one's specials, or the mode or saturation).
std::optional<std::string> unsupported_reason(const Dialect& dialect, const Format& dst, const Context& ctx);
/// Why `dialect` cannot read the source `src`, or nullopt: a runtime format the dialect refuses,
/// or one it would refuse as a destination for its specials or its spec (RuntimeFormatPolicy:
/// a dialect reads the runtime formats it writes). Named sources are always read.
std::optional<std::string> unsupported_source_reason(const Dialect& dialect, const Format& src);

/// Canonical policy value names, for listings and explain ("preserve", "positive_max", ...).
std::string_view name(NanSign);
std::string_view name(NanPayload);
std::string_view name(NanToFinite);
std::string_view name(E8m0Below);
std::string_view name(E8m0Zero);
std::string_view name(E8m0Negative);
std::string_view name(E8m0Ties);
std::string_view name(SatfiniteInf);
std::string_view name(OverflowNoInf);
std::string_view name(RoOverflow);
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
