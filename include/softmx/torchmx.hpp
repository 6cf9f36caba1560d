// softmx/torchmx.hpp: rain-neuromorphics/torchmx's MX quantization, bit for bit (torchmx 7648b97
// with the torchao v0.6.1 it pins; docs/research/torchmx.md holds every source line, and
// docs/DIALECTS.md, "torchmx", the summary).
//
//   const std::size_t shape[2] = {M, K};
//   TorchmxTensor x = torchmx_to_mx(bf16_data, shape, "float8_e4m3", 32);   // MXTensor.to_mx
//   x.scale, x.data: torchmx's (scale, data_lp) bytes; x.padding
//   std::vector<std::uint16_t> back(M * K);
//   torchmx_to_dtype(x, FormatId::bf16, back.data());                       // MXTensor.to_dtype
//   TorchmxMatmul c = torchmx_matmul(x, y);                                  // torch.matmul(x_mx, y_mx)
//
// The block policies are the `torchmx` dialect's (or `torchmx-hw-exact`'s); what is not a
// policy is here: bf16 input only, blocks along the last dimension, the +0.0 padding of to_mx,
// FP4 packing with element 2i in the HIGH nibble (torchao v0.6.1's pack_uint4, the opposite of
// softmx's pack()), FP6 one code per byte, int8 as two's complement bytes, and the bf16 output of
// the MXTensor matmul under a documented accumulation model. Every function validates its
// arguments and throws std::invalid_argument naming the argument; inputs are never modified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// torchmx's element dtype names (dtypes.py:34-92, 143-161): "float8_e4m3" (e4m3), "float6_e3m2"
/// (e3m2), "float6_e2m3" (e2m3), "float4_e2m1" (e2m1), "int8" (MXINT8 as the integers
/// -127..127). Throws std::invalid_argument for any other name, and a specific message for e5m2
/// ("torchmx has no e5m2: ..."), which torchmx does not support.
FormatId torchmx_element(std::string_view elem_dtype_name);
/// The name of an element format in torchmx's terms (the inverse of torchmx_element).
std::string_view torchmx_element_name(FormatId element);

/// Which quantization path: the default ("simulated", MX_HARDWARE_EXACT_QUANTIZATION unset or not
/// "True") or the bit-level one (MX_HARDWARE_EXACT_QUANTIZATION=True), which differs only in the
/// codes of a NaN-scale block (dialect torchmx-hw-exact). int8 always takes the default path.
enum class TorchmxPath : std::uint8_t { simulated, hardware_exact };

/// A tensor quantized by torchmx: the (scale, data_lp) pair of torchmx::quantize_mx, or an
/// MXTensor (to_mx, with its padding).
struct TorchmxTensor {
  FormatId element = FormatId::e4m3;
  std::size_t block_size = 32;
  /// The logical (high-precision) shape; blocks run along the last dimension.
  std::vector<std::size_t> shape;
  /// The scale tensor: shape[:-1] + (ceil(shape[-1] / block_size),), E8M0 codes row-major.
  std::vector<std::size_t> scale_shape;
  std::vector<std::uint8_t> scale;
  /// data_lp as torchmx stores it, row-major in data_shape: e4m3 and FP6 one code per byte (FP6
  /// in bits 0-5), int8 one two's complement byte per element, FP4 two codes per byte along the
  /// last dimension with element 2i in bits 4-7 and 2i+1 in bits 0-3 (data_shape's last
  /// dimension ceil(n / 2)).
  std::vector<std::size_t> data_shape;
  std::vector<std::uint8_t> data;
  /// to_mx's padding: (block_size - n % block_size) % block_size +0.0 values appended to each row
  /// before quantizing (their codes are not stored); 0 for quantize_mx.
  std::size_t padding = 0;
  Flags flags = 0;  ///< OR of the element conversions' flags (softmx's; torchmx has none)
};

/// torchmx::quantize_mx(data_hp, elem_dtype_name, block_size) (mx_tensor.py:36-96): bf16 data
/// (std::uint16_t bits, row-major in `shape`, rank >= 1) in blocks along the last dimension.
/// Throws std::invalid_argument for an empty shape or tensor, block_size 0, a last dimension that
/// is not a multiple of block_size (torchmx asserts it; use torchmx_to_mx to pad), FP4 with an
/// odd last dimension (pack_uint4 asserts it), and the names torchmx_element refuses.
TorchmxTensor torchmx_quantize_mx(const std::uint16_t* data_hp, std::span<const std::size_t> shape,
                                  std::string_view elem_dtype_name, std::size_t block_size,
                                  TorchmxPath path = TorchmxPath::simulated);

/// MXTensor.to_mx(data_hp, elem_dtype, block_size) (mx_tensor.py:202-248, 474-493): as
/// quantize_mx after padding each row with +0.0 to a multiple of block_size, the stored data cut
/// back to the row's length (FP4: ceil(n / 2) bytes, an odd row's last byte holding the pad's 0
/// code in its low nibble). Throws as torchmx_quantize_mx, and for padding with an odd
/// block_size (torchmx asserts an even one, mx_tensor.py:228-230).
TorchmxTensor torchmx_to_mx(const std::uint16_t* data_hp, std::span<const std::size_t> shape,
                            std::string_view elem_dtype_name, std::size_t block_size,
                            TorchmxPath path = TorchmxPath::simulated);

/// torchmx::dequantize_mx(data_lp, shared_exp_e8m0, elem_dtype_name, block_size, target_dtype,
/// block_dim) (mx_tensor.py:123-164) on arbitrary bytes: element i of the unpacked data times
/// 2^(S - 127) of its block (an integer times 2^(S - 127) for int8), computed exactly and rounded
/// once into `target` (bf16: std::uint16_t, or f32: std::uint32_t), row-major in the unpacked
/// shape. data_shape: data_lp's shape (FP4 packed along block_dim, element 2i in the high
/// nibble); scale_shape: the unpacked shape with dimension block_dim divided by block_size
/// (block_dim < rank; torchmx's repeat_interleave needs it exact). Scale 0xFF gives NaN: bf16
/// 0x7FC0, f32 0x7FC00000 (PyTorch's bits depend on its kernel: docs/DIALECTS.md). Returns the OR
/// of the flags. Throws std::invalid_argument for mismatched shapes or sizes, a target other than
/// bf16 or f32, FP6 bytes with bits 6-7 set, and names torchmx_element refuses.
Flags torchmx_dequantize_mx(std::span<const std::uint8_t> data_lp, std::span<const std::size_t> data_shape,
                            std::span<const std::uint8_t> scale, std::span<const std::size_t> scale_shape,
                            std::string_view elem_dtype_name, std::size_t block_size, FormatId target,
                            std::size_t block_dim, void* out);

/// MXTensor.to_dtype(target) (mx_tensor.py:261-323, 456-472): re-pads the data with zero codes,
/// dequantizes, and cuts each row back to t.shape's: rows x shape[-1] values of `target` (bf16 or
/// f32) into `out`. Returns the OR of the flags. Throws std::invalid_argument for a malformed t or
/// another target.
Flags torchmx_to_dtype(const TorchmxTensor& t, FormatId target, void* out);

/// How the bf16 GEMM of an MXTensor matmul sums (docs/DIALECTS.md, "torchmx"). torchmx dequantizes
/// both operands to bf16 (exactly, docs/research/torchmx.md section 5) and calls PyTorch's bf16
/// GEMM, which multiplies exactly, accumulates in f32 (torchmx sets
/// allow_bf16_reduced_precision_reduction = False, ops.py:18-19) and rounds once to bf16.
enum class TorchmxAccumulation : std::uint8_t {
  /// C = RN_bf16(RN_f32(sum_k A_ik B_kj [+ bias_j])): the exact sum rounded to f32, then to bf16.
  /// Every f32 accumulation order gives this whenever the partial sums stay exact in f32 (the
  /// research's case T16 shows the f32 step is real); order-independent.
  exact_f32,
  /// C = RN_bf16(s_K [+ bias]), s_0 = +0, s_k = RN_f32(s_{k-1} + A_ik B_kj) in k order (an f32
  /// fused multiply-add per term, then the bias as one more f32 addition).
  fp32_sequential,
};

/// The result of an MXTensor matmul: rows x cols bf16 bits, row-major.
struct TorchmxMatmul {
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint16_t> c;
  Flags flags = 0;  ///< OR of the final bf16 roundings' flags (and invalid for a NaN produced)
};

/// torch.matmul(a, b) (aten.mm, ops.py:60-68) on two MXTensors: a is [M, K], b is [K, N] (each
/// quantized along its own last dimension), both dequantized to bf16 and multiplied with bf16
/// output under `acc`. NaN in either operand (a NaN-scale block) or Inf * 0 gives 0x7FC0.
/// Throws std::invalid_argument unless both are 2-d with matching K.
TorchmxMatmul torchmx_matmul(const TorchmxTensor& a, const TorchmxTensor& b,
                             TorchmxAccumulation acc = TorchmxAccumulation::exact_f32);

/// torch.nn.functional.linear(a, w, bias) (aten.linear, ops.py:29-41): a [M, K] times w^T for w
/// [N, K], plus an optional bf16 bias of N values added as one more f32 term before the bf16
/// rounding (cuBLAS adds it in its f32 epilogue).
TorchmxMatmul torchmx_linear(const TorchmxTensor& a, const TorchmxTensor& w,
                             std::optional<std::span<const std::uint16_t>> bias = std::nullopt,
                             TorchmxAccumulation acc = TorchmxAccumulation::exact_f32);

/// Canonical names: "exact-f32", "fp32-sequential"; "simulated", "hardware-exact".
std::string_view name(TorchmxAccumulation);
std::string_view name(TorchmxPath);
std::optional<TorchmxAccumulation> parse_torchmx_accumulation(std::string_view);
std::optional<TorchmxPath> parse_torchmx_path(std::string_view);

}  // namespace softmx
