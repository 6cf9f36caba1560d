// softmx/pychop.hpp: inEXASCALE/pychop's mx_quantize, bit for bit (pychop 0.6.0, 242e079, the
// MX backend since 682f803; the legacy backend of v0.5.6-0.5.8, docs/research/pychop.md section
// 10, is not modelled). Every line
// followed is cited in docs/research/pychop.md; docs/DIALECTS.md, "pychop", is the summary.
//
//   const std::size_t shape[2] = {1024, 768};
//   PychopResult r = pychop_mx_quantize(FormatId::f64, data, shape, PychopFormat::named("mxfp8_e4m3"));
//   r.values: what pychop.mx_quantize returns (value_format bits, row-major in shape)
//   r.scales, r.codes: the MX representation softmx derives (pychop keeps only floats)
//   PychopStatistics s = pychop_statistics(r.spec, shape);   // MXTensor.statistics()
//
// pychop flattens the whole array in row-major order and pads it with +0.0 at the end, so blocks
// cross rows whenever the last dimension is not a multiple of the block size. Its block policies
// are the `pychop` dialect's (scale floor(RN_p(log2 amax)) - emax, NaN ignored by amax, Inf
// giving the scale 2^127, +0 for every zero FP element, MXINT8 with -2); what is not a policy is
// here: the flat layout, which block size a backend uses, and the output dtype NumPy's promotion
// gives. Every function validates its arguments and throws
// std::invalid_argument naming the one at fault; inputs are never modified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// pychop's MXSpec (pychop/mx_formats.py:68-121).
struct PychopSpec {
  std::string name = "MXFP8_E4M3";  ///< spec.name ("MXFP8_E4M3", "CUSTOM_MX8_E4M3")
  int exp_bits = 4;                 ///< element exponent bits (0: MXINT)
  int sig_bits = 3;                 ///< element significand bits, without the implicit bit
  std::size_t block_size = 32;
  int scale_exp_bits = 8;
  int scale_sig_bits = 0;  ///< counted in the statistics only; never used in quantization

  int element_bits() const { return 1 + exp_bits + sig_bits; }
  /// element_bits * block_size + scale_exp_bits + scale_sig_bits (mx_formats.py:100-105).
  std::size_t total_bits_per_block() const;
  /// 32 * block_size / total_bits_per_block, and 16 * ... (mx_formats.py:107-117), as Python's
  /// true division gives them (the correctly rounded double).
  double compression_vs_fp32() const;
  double compression_vs_fp16() const;
};

/// The six predefined MX_FORMATS (mx_formats.py:125-139), keyed "mxfp8_e5m2", "mxfp8_e4m3",
/// "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", with block_size 32.
struct PychopNamedSpec {
  std::string_view key;
  PychopSpec spec;
};
std::span<const PychopNamedSpec> pychop_named_specs();
/// MX_FORMATS[key.lower()], or nullopt.
std::optional<PychopSpec> find_pychop_spec(std::string_view key);
/// create_mx_spec(exp_bits, sig_bits, block_size, scale_exp_bits, name) (mx_formats.py:142-179):
/// the default name is "CUSTOM_MX{1+e+s}_E{e}M{s}".
PychopSpec pychop_custom_spec(int exp_bits, int sig_bits, std::size_t block_size = 32, int scale_exp_bits = 8,
                              std::string name = {});

/// The `format` argument of mx_quantize: a string key, an MXSpec, or an (exp_bits, sig_bits) tuple.
struct PychopFormat {
  enum class Kind : std::uint8_t { name, spec, tuple };
  Kind kind = Kind::name;
  std::string key = "mxfp8_e4m3";  ///< Kind::name (case-insensitive)
  PychopSpec spec;                 ///< Kind::spec
  int exp_bits = 0, sig_bits = 0;  ///< Kind::tuple
  static PychopFormat named(std::string_view key);
  static PychopFormat of(const PychopSpec& spec);
  static PychopFormat tuple(int exp_bits, int sig_bits);
};

/// Which backend pychop dispatches to. All run the NumPy implementation; they differ in the
/// block size a string format gets (numpy: the argument; torch and jax: always 32, because they
/// resolve the string to MX_FORMATS' spec themselves, tch/mx_formats.py:79-82,
/// jx/mx_formats.py:60-63) and the output dtype (torch: the input's; jax: float32, jax's default
/// without jax_enable_x64).
enum class PychopBackend : std::uint8_t { numpy, torch, jax };
/// NumPy's promotion rules, which decide the output dtype (docs/research/pychop.md section 6):
/// NumPy >= 2 (NEP 50) keeps float64 products for float64 input; NumPy 1.x gives float32.
enum class PychopNumpy : std::uint8_t { v2, v1 };
/// Options of mx_quantize.
struct PychopOptions {
  std::size_t block_size = 32;         ///< mx_quantize's block_size argument
  std::optional<int> scale_exp_bits;   ///< overrides the spec's (current backend); 1..8
  std::optional<int> scale_sig_bits;   ///< overrides the spec's (statistics only)
  PychopBackend backend = PychopBackend::numpy;
  PychopNumpy numpy = PychopNumpy::v2;
};

/// The spec mx_quantize uses (_resolve_spec, np/mx_formats.py:107-137, with the options'
/// scale_exp_bits and scale_sig_bits written into it; and section 7's backend rule). Throws std::invalid_argument for an unknown key, block_size 0, or a
/// scale_exp_bits outside 1..8.
PychopSpec pychop_resolve_spec(const PychopFormat& format, const PychopOptions& options = {});

/// The element format a resolved spec quantizes to: e4m3 for (4, 3) named "MXFP8_E4M3"
/// (case-insensitive; pychop applies the OCP reductions by name), e5m2 for (5, 2) named
/// "MXFP8_E5M2", e3m2, e2m3 and e2m1 for (3, 2), (2, 3), (2, 1) whatever the name, int8 for (0, 7).
/// Any other spec is a custom format as _mx_float_params builds it (mx_formats.py:29-59), a
/// runtime descriptor (docs/SEMANTICS.md 1.2):
///   - (e, s) with e >= 1: `eEmS:bias=B:specials=none`, B = 2^(e-1) - 1, subnormals, every
///     exponent field a binade (pychop's (4, 3) under another name has max 480; (1, 2) is
///     e1m2:bias=0, max 3.5);
///   - (0, s): `int(s+1)`, the (s+1)-bit two's complement fixed point with s - 1 fraction bits.
/// Throws std::invalid_argument when that format cannot be an MX block element (wider than 8
/// bits: mx_element_reason, docs/BLOCKS.md 1.1), naming the spec and the field.
ElementFormat pychop_element(const PychopSpec& spec);

/// What mx_quantize returns, with the MX representation softmx derives from it.
struct PychopResult {
  PychopSpec spec;  ///< the resolved spec
  FormatId source = FormatId::f64;
  std::vector<std::size_t> shape;
  /// The flattened array padded with +0.0 to num_blocks * block_size elements.
  std::size_t num_blocks = 0;
  /// The returned array (MXTensor_.dequantize): prod(shape) codes of value_format (f32 or f64,
  /// as std::uint64_t), row-major in shape. NaN is the positive quiet NaN (np.nan).
  FormatId value_format = FormatId::f64;
  std::vector<std::uint64_t> values;
  /// The element format, one E8M0 code per block
  /// (scale_exp + 127; 0xFF for a NaN scale; within [127 - bias, 127 + bias] for scale_exp_bits
  /// = b, bias = 2^(b-1) - 1) and one element code per padded element. A NaN element in a format
  /// without NaN (FP6, FP4, MXINT8) has no code: it is +0 with flag invalid, and `uncoded` lists
  /// it; so is an MXINT -0.0 value (code 0).
  ElementFormat element = FormatId::e4m3;
  std::vector<std::uint8_t> scales;
  std::vector<std::uint8_t> codes;
  /// Flattened indices (< prod(shape)) whose returned value the element code does not carry.
  std::vector<std::size_t> uncoded;
  Flags flags = 0;  ///< OR of the element conversions' flags (softmx's; pychop has none)
};

/// pychop.mx_quantize(data, format, block_size, scale_exp_bits, scale_sig_bits, backend)
/// (mx_formats.py:265-316) on a row-major array of `source` codes (f64: std::uint64_t, f32:
/// std::uint32_t; pychop takes no bf16, and float16 input is not modelled), rank >= 0 (a 0-d
/// array is one value). Throws std::invalid_argument for another source, an empty array (NumPy's
/// concatenate raises), and pychop_resolve_spec's and pychop_element's reasons.
PychopResult pychop_mx_quantize(FormatId source, const void* data, std::span<const std::size_t> shape,
                                const PychopFormat& format = {}, const PychopOptions& options = {});

/// MXTensor.statistics() (np/mx_formats.py:309-332). N = prod(shape),
/// B = ceil(N / block_size), T = spec.total_bits_per_block().
struct PychopStatistics {
  std::string format;  ///< spec.name
  int exp_bits = 0, sig_bits = 0;
  std::size_t block_size = 0;
  int scale_exp_bits = 0;
  std::vector<std::size_t> original_shape;
  std::size_t num_blocks = 0;          ///< B
  std::size_t total_elements = 0;      ///< N
  double compression_ratio_fp32 = 0;   ///< 32 N / (B T)
  double compression_ratio_fp16 = 0;   ///< 16 N / (B T)
  double bits_per_element = 0;         ///< B T / N
};
/// The statistics of an array of `shape` quantized under the resolved `spec` (whose
/// scale_exp_bits and scale_sig_bits already hold mx_quantize's overrides, as _resolve_spec
/// writes them). Throws std::invalid_argument for an empty array or block_size 0.
PychopStatistics pychop_statistics(const PychopSpec& spec, std::span<const std::size_t> shape);

/// Canonical names: "numpy" "torch" "jax"; "2" "1".
std::string_view name(PychopBackend);
std::string_view name(PychopNumpy);
std::optional<PychopBackend> parse_pychop_backend(std::string_view);
std::optional<PychopNumpy> parse_pychop_numpy(std::string_view);

}  // namespace softmx
