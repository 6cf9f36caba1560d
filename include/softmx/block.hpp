// softmx/block.hpp: MX blocks: shared scales, quantize, dequantize, whole tensors
// (OCP MX v1.0 sections 5-6; docs/BLOCKS.md is the specification).
//
//   BlockOptions opt;                     // element e4m3, the dialect's scale rule and rounding
//   QuantizedBlock q = quantize_block(FormatId::f32, inputs, 32, opt);
//   // q.scale: the E8M0 code; q.codes: 32 element codes; q.flags: OR of the element flags
//   opt.element = parse_format_spec("e1m2");   // any runtime element of at most 8 bits
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"
#include "softmx/value.hpp"

namespace softmx {

/// A scale rule chosen by a user: given the block's amax (finite, > 0) and the element
/// format, the scale exponent s (X = 2^s) before clamping into E8M0's range.
using CustomScaleRule = std::function<int(const Unpacked& amax, const Format& element)>;

/// emax_E of BLOCKS.md 1 (e4m3 8, e5m2 15, e3m2 4, e2m3 2, e2m1 2, int8 0; runtime e1m2 0,
/// e2m2 2, e3m4 3, e4m3fnuz 7, e5m2fnuz 15): the exponent of the element format's largest
/// binade, floor(log2 max_E), read from the descriptor.
int element_emax(FormatId element);
int element_emax(const Format& element);

/// Why `f` cannot be the element format of an MX block, or nullopt when it can (BLOCKS.md 1.1):
/// a named one must be e4m3, e5m2, e3m2, e2m3, e2m1 or int8 ("f16 is not an MX element
/// format"); a runtime one must have at most 8 bits ("width"), a sign ("sign": unsigned formats
/// cannot hold a block's negative values), a zero ("subnormals": exponent field 0 must hold
/// zero and the subnormals) and a finite non-zero maximum ("specials"). The message names the
/// descriptor field that fails.
std::optional<std::string> mx_element_reason(const Format& f);

namespace detail {
/// What ElementFormat and ScaleFormat share: one Format held by value, canonical
/// (canonical_format: a runtime descriptor equal to a named format is that format), read as a
/// `const Format&`. Only those two derive from it; they add their defaults and their checks.
class HeldFormat {
 public:
  const Format& format() const { return f_; }
  operator const Format&() const { return f_; }  // NOLINT: implicit by design
  std::string_view name() const { return f_.name; }

 protected:
  explicit HeldFormat(FormatId id) : f_(softmx::format(id)) {}
  /// Throws FormatError for a bad descriptor (canonical_format).
  explicit HeldFormat(const Format& f) : f_(canonical_format(f)) {}
  Format f_;
};
}  // namespace detail

/// The element format of an MX block: a named MX element format or a runtime descriptor of at
/// most 8 bits (parse_format_spec, docs/SEMANTICS.md 1.2), held canonical (a runtime descriptor
/// equal to a named format is that format, with its fast paths). Converts implicitly from a
/// FormatId and from a Format, so `options.element = FormatId::e2m1` and
/// `options.element = parse_format_spec("e1m2")` both work; reads as a `const Format&`. Whether
/// it is a valid element is checked where it is used (mx_element_reason).
class ElementFormat : public detail::HeldFormat {
 public:
  ElementFormat(FormatId id = FormatId::e4m3) : HeldFormat(id) {}  // NOLINT: implicit by design
  /// Throws FormatError for a bad descriptor (canonical_format).
  ElementFormat(const Format& f) : HeldFormat(f) {}  // NOLINT: implicit by design
  /// The FormatId (FormatId::runtime for a runtime descriptor).
  FormatId id() const { return f_.id; }
  bool is_named() const { return f_.is_named(); }
  friend bool operator==(const ElementFormat& a, FormatId b) { return a.f_.id == b; }
  friend bool operator==(const ElementFormat& a, const ElementFormat& b) { return a.f_ == b.f_; }
};

/// The format of an MX block's shared scale (BLOCKS.md 1.2). E8M0 (the default) is OCP's
/// power-of-two scale and follows the scale rules of BLOCKS.md 1. Any other scale format is a
/// floating-point format of at most 32 bits: unsigned (ue4m3, NVFP4's scale; ue5m3; any
/// `ueXmY` spec), or sign-magnitude (e4m3, as NVIDIA stores UE4M3 in an FP8 byte; bf16, f16 and
/// f32, TransformerEngine's scale types: quantize writes only their positive codes), whose
/// block scale is amax / max_E rounded once (RNE, saturating) into it (BLOCKS.md 1.2). Its
/// codes are stored scale_code_bytes() bytes each (1, 2 or 4). Converts implicitly from a
/// FormatId and from a Format; reads as a `const Format&`. Whether it can be a scale is checked
/// where it is used (mx_scale_reason).
class ScaleFormat : public detail::HeldFormat {
 public:
  ScaleFormat(FormatId id = FormatId::e8m0) : HeldFormat(id) {}  // NOLINT: implicit by design
  /// Throws FormatError for a bad descriptor (canonical_format).
  ScaleFormat(const Format& f) : HeldFormat(f) {}  // NOLINT: implicit by design
  /// True for E8M0 (named, or a runtime spec equal to it): BLOCKS.md 1's power-of-two scales.
  bool is_e8m0() const { return f_.id == FormatId::e8m0; }
  /// Bytes per stored scale code: scale_code_bytes(format()).
  std::size_t code_bytes() const;
  friend bool operator==(const ScaleFormat& a, const ScaleFormat& b) { return a.f_ == b.f_; }
};

/// Why `f` cannot be the scale format of an MX block, or nullopt when it can (BLOCKS.md 1.2):
/// e8m0, or a floating-point format ("fixed": not an integer format; "sign": unsigned or
/// sign-magnitude, not two's complement) of at most 32 bits ("width") with a finite positive
/// maximum ("specials"). The message starts with "scale_format" and names the descriptor field.
std::optional<std::string> mx_scale_reason(const Format& f);

/// UE4M3, NVFP4's and the GST tensor cores' scale format (parse_format_spec("ue4m3"): 7 bits,
/// unsigned, bias 7, 0x7F NaN, max 448), made once and never changed.
const Format& ue4m3_format();

/// Bytes per stored scale code of scale format `f`: 1 for at most 8 bits (E8M0, ue4m3, e4m3,
/// ...), 2 for 9 to 16 (bf16, f16), 4 for 17 to 32 (f32). Scale arrays (MxTensor::scales,
/// MxTensorRef::scales, quantize_tensor_into's `scales`, Dequantizer::run's `scales`) hold
/// each code in that many bytes in the host's byte order: viewed as std::uint8_t,
/// std::uint16_t or std::uint32_t elements, scale i is element i.
std::size_t scale_code_bytes(const Format& f);
/// Scale code i of a scale array whose codes take `bytes` (1, 2 or 4) bytes each.
std::uint32_t load_scale_code(const std::uint8_t* scales, std::size_t i, std::size_t bytes);
/// Stores `code` as scale code i of a scale array whose codes take `bytes` (1, 2 or 4) bytes each.
void store_scale_code(std::uint8_t* scales, std::size_t i, std::size_t bytes, std::uint32_t code);

/// Options of a block quantization. Unset fields take the dialect's defaults.
struct BlockOptions {
  // Every member has an initializer, so that designated initializers (BlockOptions{.element =
  // ..., .rule = ...}) leave the rest at these defaults without -Wmissing-field-initializers.
  /// The element format: a named MX element format or a runtime descriptor (ElementFormat).
  ElementFormat element = FormatId::e4m3;
  const Dialect* dialect = nullptr;              ///< nullptr: ocp
  std::optional<ScaleRule> rule{};               ///< default: the dialect's
  CustomScaleRule custom_rule{};                 ///< overrides `rule` when set
  std::optional<Rounding> rounding{};            ///< element rounding; default: the dialect's
  /// Element saturation; unset or Saturation::by_destination: the dialect's
  /// block.element_saturation.
  std::optional<Saturation> saturation{};
  Tininess tininess = Tininess::after_rounding;
  std::uint8_t rbits_width = 32;                 ///< rs: random bits per element
  std::span<const std::uint64_t> rbits{};        ///< rs: one value per element (required for rs)
  /// The instruction set of the element conversions (batch.hpp); default: default_isa().
  /// Isa::scalar runs the reference path. Results are the same on every one.
  std::optional<Isa> isa{};
  /// The shared exponent's range, a sub-range of E8M0's [-127, 127] (pychop's scale_exp_bits =
  /// b gives [-(2^(b-1) - 1), 2^(b-1) - 1]). Every clamp of BLOCKS.md 1 step 3 uses it, and so
  /// do the zero block's min_scale and an Inf block's max_scale; an exponent above scale_max is
  /// the dialect's scale_overflow (clamp to scale_max, or NaN).
  int scale_min = -127;
  int scale_max = 127;
  /// The scale format (ScaleFormat; default E8M0: every rule above). Another format takes the
  /// scale S = RN(amax / max_E) in it and rounds each element x / S once (BLOCKS.md 1.2); then
  /// `rule`, `custom_rule`, scale_min and scale_max must be left unset (they shape E8M0
  /// exponents), and the dialect must scale exactly (element_scaling and dequant_scaling
  /// exact, OCP's MXINT8): quantize refuses otherwise, naming scale_format.
  ScaleFormat scale_format = FormatId::e8m0;
};

/// One quantized block.
struct QuantizedBlock {
  std::uint32_t scale = 0;             ///< the scale code (E8M0 unless options.scale_format)
  std::vector<std::uint8_t> codes;     ///< element codes, one per byte
  Flags flags = 0;                     ///< OR of the element flags (+ invalid for a NaN scale)
};

/// The scale exponent s of a block whose finite values have maximum magnitude `amax` (finite,
/// non-zero) under `rule`, before clamping (BLOCKS.md 1 step 2). `precision` is the precision p
/// (significant bits, 2..64) in which ScaleRule::floor_log2_rn rounds log2 amax: the source
/// format's (24 for f32, 53 for f64, 11 for f16, 8 for bf16); the other rules ignore it. Throws
/// std::invalid_argument for floor_log2_rn with p outside 2..64.
int scale_exponent(ScaleRule rule, const Unpacked& amax, FormatId element, int precision = 64);
/// The same for any element format (named or runtime); its emax and max_E come from the descriptor.
int scale_exponent(ScaleRule rule, const Unpacked& amax, const Format& element, int precision = 64);

/// floor(RN_p(log2 x)) for a finite x > 0 (x.sticky false: an exact value), with RN_p round to
/// nearest at precision p (2..64) and an unbounded exponent range: floor(log2 x), or that plus
/// one when log2 x is within half an ulp (at precision p) below the next integer. Exact (no
/// floating-point log2; integer arithmetic with directed bounds). Throws std::logic_error if
/// the bounds cannot decide, which no input of up to 64 significant bits reaches.
int floor_log2_rounded(const Unpacked& x, int precision);

/// Why quantize_block / quantize_tensor would refuse quantizing `src` under `options` (the
/// source, the element format, the dialect's block support, sources and element modes, the
/// scale range), or nullopt when they accept it. The message is the one they throw.
std::optional<std::string> quantize_unsupported_reason(FormatId src, const BlockOptions& options);

/// Quantizes k = count values of `src` (codes in the source's storage type: std::uint16_t for
/// f16/bf16, std::uint32_t for f32, std::uint64_t for f64) into one block. Throws
/// std::invalid_argument for k = 0, a source that is not f64/f32/f16/bf16, an element format
/// that is not an MX element format, or rs without one random value per element; throws
/// Unsupported (an std::invalid_argument) when the dialect refuses: no block quantization,
/// the element format under the options, a NaN it cannot encode; or the CPU cannot run
/// options.isa.
QuantizedBlock quantize_block(FormatId src, const void* values, std::size_t count, const BlockOptions& options);

/// Dequantizes one element: value(code) * 2^(scale - 127), rounded once into `dst`
/// (BLOCKS.md 2). A NaN scale (0xFF) gives NaN.
Result dequantize_element(FormatId element, std::uint8_t scale, std::uint8_t code, FormatId dst, const Context& ctx,
                          const Dialect& dialect = ocp_dialect());
/// The same for any element format of at most 8 bits (named or runtime; canonical, as
/// ElementFormat holds it). Precondition: code <= element.code_mask().
Result dequantize_element(const Format& element, std::uint8_t scale, std::uint8_t code, FormatId dst,
                          const Context& ctx, const Dialect& dialect = ocp_dialect());

/// Dequantizes one element under a block scale of any scale format (BLOCKS.md 2): for E8M0
/// the function above; otherwise value(code) * value(scale) (the scale code read as
/// `scale_format` reads it, its sign included) computed exactly and rounded once into `dst`.
/// A NaN scale or element gives NaN (invalid when either is signalling); 0 * Inf gives NaN with
/// invalid. Throws
/// std::invalid_argument when mx_scale_reason(scale_format) refuses it, Unsupported when the
/// dialect does not scale exactly (dequant_scaling, int8_integer_elements).
Result dequantize_element(const Format& element, const ScaleFormat& scale_format, std::uint32_t scale, std::uint8_t code,
                          FormatId dst, const Context& ctx, const Dialect& dialect = ocp_dialect());

/// Why `dialect` cannot quantize or dequantize blocks with `scale_format` (E8M0 always can), or
/// nullopt (BLOCKS.md 1.2). The message starts with "scale_format".
std::optional<std::string> scale_format_unsupported_reason(const ScaleFormat& scale_format, const Dialect& dialect);

/// Dequantizes element codes with their blocks' scales many at a time: the batch form of
/// dequantize_element, with the same results and flags bit for bit.
///
/// How: once a scale code has served enough elements (a quarter of the element format's code
/// count; before that each element is one dequantize_element call), the instance tabulates
/// dequantize_element(element, scale, c, dst, ctx, dialect) for every code c of the element
/// format, and every later element with that scale is one table read. The table is made by
/// the reference function itself, so it is exact under every dialect's rules by construction,
/// and it costs 2^width calls per scale code in use (at most 256 scales x 256 codes).
///
/// The table is filled as run() meets new scales: an instance must not be used by two threads
/// at once (make one per thread; they share nothing).
class Dequantizer {
 public:
  /// Throws std::invalid_argument when `element` is wider than 8 bits (not an MX element or
  /// E8M0-sized format) or `dst` is wider than 64 bits.
  Dequantizer(FormatId element, FormatId dst, const Context& ctx, const Dialect& dialect = ocp_dialect());
  /// Any element format of at most 8 bits, named or runtime (made canonical first: a runtime
  /// descriptor equal to a named format runs as that format). Throws as above, and FormatError
  /// for a bad descriptor.
  Dequantizer(const Format& element, FormatId dst, const Context& ctx, const Dialect& dialect = ocp_dialect());
  /// Scale codes in `scale_format` (E8M0: the constructor above). Throws as
  /// dequantize_element(element, scale_format, ...) does.
  Dequantizer(const Format& element, const ScaleFormat& scale_format, FormatId dst, const Context& ctx,
              const Dialect& dialect = ocp_dialect());

  /// One element: dequantize_element(element, scale_format, scale, code, dst, ctx, dialect).
  Result operator()(std::uint32_t scale, std::uint8_t code);

  /// Element i < n (codes[i], one code per byte) with scale code i / k of `scales` (codes of
  /// scale_code_bytes(scale format) bytes each) into element i
  /// of `out` (dst's storage type: std::uint8_t for widths <= 8, std::uint16_t, std::uint32_t,
  /// std::uint64_t), and its flags into flags[i] when `flags` is not null. Returns the OR of
  /// all the flags. Throws std::invalid_argument for k = 0.
  Flags run(const std::uint8_t* scales, const std::uint8_t* codes, std::size_t n, std::size_t k, void* out,
            Flags* flags = nullptr);

  /// The element's FormatId (FormatId::runtime for a runtime format: see element_format()).
  FormatId element() const { return ef_.id; }
  const Format& element_format() const { return ef_; }
  FormatId destination() const { return dst_; }

  /// The instruction set of run()'s f32 lanes (simd/dequant_lanes.hpp; default: default_isa()).
  /// Isa::scalar reads the tables only. Results are the same on every one. Throws
  /// std::invalid_argument when this CPU cannot run `isa`.
  void set_isa(Isa isa);
  /// True once run() has found that its f32 results can come from vector lanes (a
  /// sign-magnitude element format with subnormals, f32 destination, a vector instruction set,
  /// the lanes' formula equal to the reference row of scale 127 for every code).
  bool lanes_active() const { return lanes_ == 1; }

 private:
  /// The results for every code under one scale: codes[c], flags[c], and the flags' OR.
  struct Row {
    std::vector<std::uint64_t> codes;
    std::vector<Flags> flags;
    Flags any = 0;
  };
  const Row* row(std::uint8_t scale, std::size_t uses);
  const Row* shifted_row(std::uint8_t scale);
  Result one(std::uint32_t scale, std::uint8_t code) const;  // the reference call, by scale format
  Flags run_wide(const std::uint8_t* scales, const std::uint8_t* codes, std::size_t n, std::size_t k, void* out,
                 Flags* flags) const;  // run() for scale codes wider than a byte

  Format ef_;  // the element format (canonical)
  ScaleFormat sf_;  // the scale format (E8M0: BLOCKS.md 2's 2^(S-127))
  std::size_t sbytes_ = 1;  // bytes per scale code (scale_code_bytes)
  FormatId dst_;
  Context ctx_;
  const Dialect* dialect_;
  std::size_t codes_;                                  // 2^width of the element format
  std::vector<std::unique_ptr<Row>> rows_;             // per scale code, made when first needed
  std::vector<std::size_t> uses_;                      // elements served per scale before its row
  // Into an IEEE-style destination, the row of a scale is the row of scale 127 with the exponent
  // field of every finite non-zero result moved by scale - 127, while they stay normal: made
  // from that row (unit_) by additions, not by reference calls (shifted_row()).
  bool shiftable_ = false;
  std::unique_ptr<Row> unit_;
  std::vector<std::uint8_t> moves_;  // per code: 1 when its result's exponent field moves
  int unit_lo_ = 0, unit_hi_ = 0;    // the moving results' smallest and largest exponent fields
  Isa isa_;
  int lanes_ = -1;  // f32 results computed in vector lanes (simd/dequant_lanes.hpp): -1 unchecked, 0 no, 1 yes
  bool lanes_ok();
};

/// An N-d row-major tensor quantized along one axis (BLOCKS.md 3).
struct MxTensor {
  ElementFormat element = FormatId::e4m3;
  std::vector<std::size_t> shape;          ///< the data's shape
  std::size_t axis = 0;                    ///< the blocked axis
  std::size_t block = 32;                  ///< k
  std::vector<std::size_t> scale_shape;    ///< shape with shape[axis] -> ceil(shape[axis] / k)
  /// scale codes (scale_format; scale_code_bytes(scale_format) bytes each), row-major in scale_shape
  std::vector<std::uint8_t> scales;
  std::vector<std::uint8_t> codes;         ///< element codes, one per byte, row-major in shape
  Flags flags = 0;
  ScaleFormat scale_format = FormatId::e8m0;  ///< the format of `scales`
};

/// Quantizes a row-major tensor of `src` codes (storage type as for quantize_block) along
/// `axis` in blocks of k; a last partial block along the axis is quantized as if padded with
/// zeros. For rs, options.rbits holds one value per element in the tensor's row-major order.
/// Throws std::invalid_argument for an empty shape, axis >= rank, k = 0, and quantize_block's
/// reasons.
MxTensor quantize_tensor(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                         std::size_t k, const BlockOptions& options);

/// The shape of the scale tensor: `shape` with shape[axis] replaced by ceil(shape[axis] / k).
/// Throws std::invalid_argument for an empty shape, axis >= rank or k = 0.
std::vector<std::size_t> scale_shape(std::span<const std::size_t> shape, std::size_t axis, std::size_t k);

/// quantize_tensor into the caller's arrays, on worker_count(threads) threads (parallel.hpp;
/// 0: every core): `scales` receives the scale codes (options.scale_format, scale_code_bytes() bytes
/// each) row-major in scale_shape(shape, axis, k),
/// `codes` the element codes (one per byte) row-major in `shape`; returns the OR of the
/// flags. The bytes and the flags are the same as quantize_tensor's for any thread count:
/// blocks are independent, each thread runs its own quantizer over a contiguous range of
/// them. Throws what quantize_tensor throws, and std::invalid_argument when `scales` or
/// `codes` is too short; if a block throws (a dialect that refuses NaN), the exception is the
/// one of the first such block in row-major order, and the outputs are unspecified.
Flags quantize_tensor_into(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                           std::size_t k, const BlockOptions& options, std::span<std::uint8_t> scales,
                           std::span<std::uint8_t> codes, unsigned threads = 1);

/// A quantized tensor held by someone else (an MxTensor's fields, or arrays of a Python
/// program): the element format, the data's shape, the blocked axis, k, the scales row-major
/// in scale_shape(shape, axis, block) and the codes (one per byte) row-major in shape.
struct MxTensorRef {
  ElementFormat element = FormatId::e4m3;
  std::span<const std::size_t> shape;
  std::size_t axis = 0;
  std::size_t block = 32;
  std::span<const std::uint8_t> scales;  ///< scale_code_bytes(scale_format) bytes per code
  std::span<const std::uint8_t> codes;
  ScaleFormat scale_format = FormatId::e8m0;  ///< the format of `scales`
};

/// Dequantizes a tensor into `dst` codes (storage type of dst), row-major in t.shape, on
/// worker_count(threads) threads (the same bytes for any count); returns the OR of the flags.
/// Throws std::invalid_argument for a bad shape or axis, block = 0, an element format that is
/// not an MX element format, scales or codes whose sizes do not match the shape, or a code out
/// of the element format's range (naming its index).
Flags dequantize_tensor(const MxTensorRef& t, FormatId dst, void* out, const Context& ctx,
                        const Dialect& dialect = ocp_dialect(), unsigned threads = 1);

/// Dequantizes a tensor into `dst` codes (storage type of dst), row-major in t.shape; returns
/// the OR of the flags. The MxTensorRef form on one thread.
Flags dequantize_tensor(const MxTensor& t, FormatId dst, void* out, const Context& ctx,
                        const Dialect& dialect = ocp_dialect());

/// Every scale rule, in ScaleRule order.
inline constexpr ScaleRule kScaleRules[] = {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil,
                                            ScaleRule::floor_log2_rn};

/// Canonical names: "floor" "ceil" "even" "rceil" "floor-log2-rn".
std::string_view name(ScaleRule r);
/// Parses a scale rule name (case-insensitive).
std::optional<ScaleRule> parse_scale_rule(std::string_view s);

}  // namespace softmx
