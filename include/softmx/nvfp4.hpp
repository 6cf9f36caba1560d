// softmx/nvfp4.hpp: NVFP4, NVIDIA's 4-bit block format, as TransformerEngine computes it.
//
// E2M1 elements in blocks of 16 along one axis, one E4M3 scale per block, and one FP32
// per-tensor scale (docs/BLOCKS.md section 6). Every step is TransformerEngine's f32
// arithmetic (core_nvfp4.cuh, quantize_nvfp4.cuh), each operation rounded to f32 with rne:
//
//   S_enc    = min(448 * 6 / global_amax, FLT_MAX); 1.0 if global_amax or S_enc is 0
//   S_dec_b  = e4m3_rn_satfinite(block_amax * (S_enc * RN(1/6)))          (the block scale)
//   m_b      = min(1 / (float(S_dec_b) * (1 / S_enc)), FLT_MAX)   (or S_enc / float(S_dec_b))
//   element  = e2m1_rn_satfinite(x * m_b)            (or stochastic rounding with rbits)
//
// Dequantization: element * float(S_dec_b) / S_enc, computed exactly and rounded once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// How the element multiplier m_b is formed; TransformerEngine's kernels differ.
enum class Nvfp4Multiplier : std::uint8_t {
  division,            ///< __fdiv_rn(S_enc, float(S_dec_b)) (quantize_nvfp4.cuh)
  reciprocal_product,  ///< min(1 / (float(S_dec_b) * (1 / S_enc)), FLT_MAX) (core_nvfp4.cuh)
};

struct Nvfp4Options {
  std::size_t axis = 0;                        ///< set by quantize_nvfp4 callers; blocks of 16 along it
  Nvfp4Multiplier multiplier = Nvfp4Multiplier::reciprocal_product;
  /// The tensor's amax as an f32, when known (TransformerEngine takes it from a previous
  /// pass); otherwise computed from the data.
  std::optional<float> global_amax;
  Rounding rounding = Rounding::rne;           ///< rne or rs
  std::uint8_t rbits_width = 32;               ///< rs: random bits per element
  std::span<const std::uint64_t> rbits;        ///< rs: one value per element, row-major
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
/// a rounding other than rne or rs, or rs without one random value per element.
Nvfp4Tensor quantize_nvfp4(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                           const Nvfp4Options& options = {});

/// Dequantizes into `dst` codes (storage type of dst), row-major; returns the OR of the flags.
/// Throws std::invalid_argument for a bad shape, or an encode scale that is zero, Inf or NaN
/// (quantize_nvfp4 never makes one).
Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx);

}  // namespace softmx
