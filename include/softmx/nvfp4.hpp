// softmx/nvfp4.hpp: NVFP4, NVIDIA's 4-bit block format, as TransformerEngine computes it.
//
// E2M1 elements in blocks of 16 along one axis, one E4M3 scale per block, and one FP32
// per-tensor scale (docs/BLOCKS.md section 6). Every step is TransformerEngine's f32
// arithmetic (core_nvfp4.cuh, quantize_nvfp4.cuh), each operation rounded to f32 with rne:
//
//   S_enc    = min(448 * 6 / global_amax, FLT_MAX); 1.0 if global_amax or S_enc is 0
//   S_dec_b  = e4m3_rn_satfinite(min(block_amax * (S_enc * RN(1/6)), FLT_MAX))  (the block scale)
//   m_b      = min(1 / (float(S_dec_b) * (1 / S_enc)), FLT_MAX)   (or S_enc / float(S_dec_b))
//   element  = e2m1_rn_satfinite(x * m_b)            (or stochastic rounding with rbits)
//
// Dequantization: element * float(S_dec_b) / S_enc, computed exactly and rounded once; or as
// TE's dequantize kernel computes it (Nvfp4Dequantization::te_kernel).
// TransformerEngine's whole NVFP4 recipe (both directions, RHT, 16x16 tiles, its Python
// reference) is softmx/recipe.hpp's te-nvfp4, built on these steps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// How the element multiplier m_b is formed.
enum class Nvfp4Multiplier : std::uint8_t {
  /// __fdiv_rn(S_enc, float(S_dec_b)): TE's cast/nvfp4/quantize_nvfp4.cuh, deleted on
  /// 2026-05-01 by TE PR 2946 (commit 7e8bc98b2, "Remove unused NVFP4 quantize kernel"):
  /// historical.
  division,
  /// min(1 / (float(S_dec_b) * (1 / S_enc)), FLT_MAX): every current TE kernel
  /// (quantize_transpose_nvfp4.cuh:549-550, tuned_1D.cuh:171-177, vector_blockwise_fp4.cu:179-184).
  reciprocal_product,
};

/// How stochastic rounding (Rounding::rs) forms an element.
enum class StochasticForm : std::uint8_t {
  /// TE's software fallback (util/ptx.cuh:526-549, TE PR 3281), on every GPU without cvt.rs:
  /// te_stochastic_round_e2m1 with the low 8 bits of the element's random value. Fully
  /// determined.
  software,
  /// softmx's rs (SEMANTICS 2) with rbits_width bits, a model of cvt.rs.satfinite.e2m1x4.f32
  /// (sm_100a/103a/107a), whose assignment of its 32 random bits to the 4 elements is not
  /// documented: unverified until a capture.
  rs,
};

/// How dequantize_nvfp4 computes.
enum class Nvfp4Dequantization : std::uint8_t {
  exact,      ///< element * float(S_dec_b) / S_enc, exactly, rounded once into dst
  te_kernel,  ///< TE's dequantize_nvfp4.cuh:65-77: f = RN(RN(float(S_dec_b) * global_amax) *
              ///< RN(1/2688)), then dst(RN_f32(element * f)) (rne, overflow to Inf)
};

struct Nvfp4Options {
  std::size_t axis = 0;                        ///< set by quantize_nvfp4 callers; blocks of 16 along it
  Nvfp4Multiplier multiplier = Nvfp4Multiplier::reciprocal_product;
  /// The tensor's amax as an f32, when known (TransformerEngine takes it from a previous
  /// pass); otherwise computed from the data.
  std::optional<float> global_amax;
  Rounding rounding = Rounding::rne;           ///< rne or rs
  StochasticForm stochastic_form = StochasticForm::rs;  ///< rs: which form
  std::uint8_t rbits_width = 32;               ///< rs (StochasticForm::rs): random bits per element
  std::span<const std::uint64_t> rbits;        ///< rs: one value per element, row-major
  /// The instruction set of the element steps (batch.hpp); default: default_isa(). Isa::scalar
  /// runs the reference path. Results are the same on every one.
  std::optional<Isa> isa;
};

struct Nvfp4Tensor {
  std::vector<std::size_t> shape;
  std::size_t axis = 0;
  std::uint32_t global_amax = 0;       ///< f32 bits
  std::uint32_t encode_scale = 0;      ///< S_enc, f32 bits
  std::vector<std::size_t> scale_shape;
  std::vector<std::uint8_t> scales;    ///< E4M3 codes
  std::vector<std::uint8_t> codes;     ///< E2M1 codes, one per byte, row-major in shape
  Flags flags = 0;
};

/// Quantizes a row-major tensor of f32, bf16 or f16 codes (storage type as for
/// quantize_block) into NVFP4 along `axis` (a last partial block is quantized as if padded
/// with zeros). Throws std::invalid_argument for other sources, a bad axis, an empty shape,
/// or rs without one random value per element, and Unsupported (an std::invalid_argument) for
/// a rounding other than rne or rs.
Nvfp4Tensor quantize_nvfp4(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                           const Nvfp4Options& options = {});

/// Dequantizes into `dst` codes (storage type of dst), row-major; returns the OR of the flags.
/// exact: throws std::invalid_argument for a bad shape, or an encode scale that is zero, Inf or
/// NaN (quantize_nvfp4 never makes one). te_kernel: dst must be f32, bf16 or f16 (TE's OType),
/// and ctx is not used (TE rounds to nearest even and overflows to Inf).
Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx,
                       Nvfp4Dequantization form = Nvfp4Dequantization::exact);
/// The same on instruction set `isa` (the overload above: default_isa()); Isa::scalar runs the
/// reference path. Results are the same on every one. Throws std::invalid_argument as above,
/// and when this CPU cannot run `isa`.
Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx, Nvfp4Dequantization form,
                       Isa isa);

/// TE's software stochastic rounding onto E2M1 (util/ptx.cuh:526-549), exactly: with r the
/// byte rbits & 0xFF, a = |x| and step(v) = 2 for v >= 4, 1 for v >= 2, else 0.5:
///   t = RN_f32(a + (r / 256) * step(a))     (fmaf: one rounding)
///   q = min(floor(t / step(t)) * step(t), 6), with x's sign; NaN gives +6.
/// x is f32 bits; returns the E2M1 code and the flags (inexact when q != |x|, underflow when
/// also |x| < 1, overflow for finite |x| > 6, invalid for Inf and NaN).
Result te_stochastic_round_e2m1(std::uint32_t x, std::uint64_t rbits);

/// TE's random Hadamard transform of 16 bf16 values v (codes), the columnwise NVFP4 input of
/// activations and gradients (hadamard_transform_utils.cuh:89-186; nvfp4_tensor.py:37-103):
///   out_j = RN_bf16( sum_k v_k * s_k * H[k][j] / 4 ),  H[k][j] = (-1)^popcount(k & j),
/// with s_k = -1 where bit k of sign_mask is set (TE's fixed signs give 0xD7E8). The products
/// are exact; the sum is formed exactly and rounded once to bf16 with rne (an exact zero is +0).
/// TE's tensor core sums in f32 and rounds that to bf16: the same unless an f32 rounding of the
/// sum lands on a bf16 midpoint the exact sum is not on, which needs inputs spanning more than
/// 2^15 in magnitude; how the tensor core rounds such sums is not determined.
std::array<std::uint16_t, 16> te_hadamard16(std::span<const std::uint16_t, 16> v, std::uint16_t sign_mask = 0xD7E8);

}  // namespace softmx
