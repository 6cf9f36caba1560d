// softmx/scale_layout.hpp: the memory layouts block-scale consumers expect, encode and decode
// (docs/RECIPES.md section 6; docs/research/scale-layouts.md is the evidence).
//
// A scale matrix S has `rows` x `cols` one-byte scales (E8M0 or E4M3 codes), row-major: S[r][c]
// at r * cols + c. A row is one row of the operand in its non-blocked dimension (M for A, N for
// B); a column is one block along K. Columnwise scales (B operand, or scales of x^T) are passed
// already transposed to that orientation.
//
//   std::vector<std::uint8_t> buf = encode_swizzled_128x4(S, rows, cols);   // what cuBLAS reads
//   std::vector<std::uint8_t> back = decode_swizzled_128x4(buf, rows, cols);  // == S
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace softmx {

// ---- cuBLAS / cuDNN 128x4 tiles ("swizzled", "GEMM-ready") -----------------------------------
//
// S is padded to Rp = 128 * ceil(rows / 128) rows and Cp = 4 * ceil(cols / 4) columns; with
// nTilesX = Cp / 4, S[r][c] lives at
//
//   ((r / 128) * nTilesX + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + c % 4
//
// (TransformerEngine common/cast/mxfp8/swizzle.cuh:30-41 gemm_swizzled_scale_idx; nvmath-python
// get_block_scale_offset; torchao to_blocked). Padding bytes are 0x00, as TE's swizzle kernel
// and torchao write them (E8M0 0x00 = 2^-127, E4M3 0x00 = 0).

/// Bytes of the swizzled buffer: 128 * ceil(rows / 128) * 4 * ceil(cols / 4) (0 for an empty
/// matrix).
std::size_t swizzled_128x4_size(std::size_t rows, std::size_t cols);

/// The offset of S[r][c] in the swizzled buffer of a matrix with `cols` columns. r and c may
/// lie in the padding (r < 128 * ceil(rows / 128), c < 4 * ceil(cols / 4)).
std::size_t swizzled_128x4_index(std::size_t r, std::size_t c, std::size_t cols);

/// Encodes S (rows x cols bytes, row-major) into the swizzled layout; padding is `pad`
/// (default 0x00). Throws std::invalid_argument if scales.size() != rows * cols.
std::vector<std::uint8_t> encode_swizzled_128x4(std::span<const std::uint8_t> scales, std::size_t rows,
                                                std::size_t cols, std::uint8_t pad = 0x00);

/// Decodes a swizzled buffer back into S (rows x cols, row-major); the padding is dropped.
/// Throws std::invalid_argument if buffer.size() != swizzled_128x4_size(rows, cols).
std::vector<std::uint8_t> decode_swizzled_128x4(std::span<const std::uint8_t> buffer, std::size_t rows,
                                                std::size_t cols);

/// torchao's to_blocked(S) (torchao/prototype/mx_formats/utils.py:31-70): zero padding to
/// (128, 4) multiples, view(n_row_blocks, 128, n_col_blocks, 4).permute(0, 2, 1, 3), then
/// reshape(-1, 4, 32, 4).transpose(1, 2).reshape(-1, 32, 16).flatten(). It is the same layout
/// as encode_swizzled_128x4 with pad 0 (docs/research/scale-layouts.md section 3), and this is
/// that function; conformance/test_scale_layout.cpp checks the identity against a literal
/// transcription of the view/permute chain.
std::vector<std::uint8_t> torchao_to_blocked(std::span<const std::uint8_t> scales, std::size_t rows,
                                             std::size_t cols);
/// torchao's from_blocked(buffer, rows, cols) (utils.py:73-102): the inverse, cropped.
std::vector<std::uint8_t> torchao_from_blocked(std::span<const std::uint8_t> buffer, std::size_t rows,
                                               std::size_t cols);

// ---- the seed generator's paired layout (lut-argmin GEMM golden, seed 003) ---------------------
//
// docs/research/lut-argmin-golden.md sections 5.1-5.2. The number of K-blocks nb is padded to
// even (nb_even) with the scale 1.0 (E8M0 0x7F), and pairs of consecutive K-blocks stay
// together (t = 0, 1 innermost):
//
//   operand A: S is (m, nb): row i, block 2j + t. Shape (m, nb_even/2, 2) (L142);
//              trans_a = 0: order [i][j][t] (row-major (m, nb_even));
//              trans_a = 1: permute(1, 0, 2) (L145): order [j][i][t].
//   operand B: S is (nb, n): block 2j + t, column c. Shape (nb_even/2, 2, n) (L143);
//              trans_b = 0: permute(0, 2, 1) (L149): order [j][c][t];
//              trans_b = 1: permute(2, 0, 1) (L147): order [c][j][t] (row-major (n, nb_even)).

enum class PairedOperand : std::uint8_t { a, b };

/// The E8M0 code the generator pads with: f32 1.0 cast to float8_e8m0fnu.
inline constexpr std::uint8_t kPairedPad = 0x7F;

/// Bytes of the paired buffer: (A: rows = m, cols = nb; B: rows = nb, cols = n) the non-block
/// extent times nb rounded up to even.
std::size_t paired_size(PairedOperand op, std::size_t rows, std::size_t cols);

/// The offset of S[r][c] (r, c in the operand's orientation above; the K-block may be the
/// padding block nb when nb is odd) in the paired buffer.
std::size_t paired_index(PairedOperand op, bool transposed, std::size_t r, std::size_t c, std::size_t rows,
                         std::size_t cols);

/// Encodes S (rows x cols, row-major; A: (m, nb), B: (nb, n)) into the paired layout with the
/// flag `transposed` (trans_a or trans_b = 1); an odd nb gets one padding block of kPairedPad.
/// Throws std::invalid_argument if scales.size() != rows * cols.
std::vector<std::uint8_t> encode_paired(std::span<const std::uint8_t> scales, std::size_t rows, std::size_t cols,
                                        PairedOperand op, bool transposed);

/// Decodes a paired buffer back into S (rows x cols), dropping the padding block. Throws
/// std::invalid_argument if buffer.size() != paired_size(op, rows, cols).
std::vector<std::uint8_t> decode_paired(std::span<const std::uint8_t> buffer, std::size_t rows, std::size_t cols,
                                        PairedOperand op, bool transposed);

// ---- TransformerEngine's compact (row-major, padded) scale tensors ------------------------------

/// A row-major matrix of scale codes with its own padding: TE allocates scale tensors padded to
/// multiples (128x4 rowwise and 4x128 columnwise for MXFP8/NVFP4; 4 along one side for FP8 block
/// scaling), sometimes transposed (docs/research/scale-layouts.md section 2).
struct PaddedScales {
  std::size_t rows = 0, cols = 0;      ///< the padded shape
  std::vector<std::uint32_t> codes;    ///< rows x cols, row-major
};

/// S (rows x cols, row-major) optionally transposed, then padded with `pad` to multiples of
/// row_multiple x col_multiple (each >= 1). TE leaves the padding of a compact tensor
/// uninitialized (at::empty); softmx writes `pad` there and callers must not read it as data.
/// Throws std::invalid_argument if scales.size() != rows * cols or a multiple is 0.
PaddedScales pad_scales(std::span<const std::uint32_t> scales, std::size_t rows, std::size_t cols, bool transpose,
                        std::size_t row_multiple, std::size_t col_multiple, std::uint32_t pad = 0);

/// The padded shape pad_scales gives S (rows x cols) with these arguments: {rows', cols'} =
/// (transpose ? cols x rows : rows x cols) rounded up to row_multiple x col_multiple. Throws
/// std::invalid_argument if a multiple is 0 or the padded tensor has more than SIZE_MAX codes.
std::pair<std::size_t, std::size_t> padded_scales_shape(std::size_t rows, std::size_t cols, bool transpose,
                                                        std::size_t row_multiple, std::size_t col_multiple);

/// The inverse of pad_scales: from TE's compact tensor (padded_scales_shape(rows, cols, ...)
/// codes, row-major) the rows x cols matrix S, row-major. The padding is dropped and never read
/// (TE leaves it uninitialized), and where `transpose` the tensor is transposed back. This is
/// how TE's own readers take a compact tensor apart: crop the leading extent, then transpose
/// (pytorch/tensor/storage/float8_blockwise_tensor_storage.py:292-295, `scale_inv[:, :q_M]`
/// then `.transpose(-2, -1)`; tests/pytorch/test_mxfp8_2d_quantize.py:36-43 for the plain crop;
/// docs/research/scale-layouts.md section 2). decode(encode(S)) == S for every shape and pad.
/// Throws std::invalid_argument if padded.size() is not the padded shape's size or a multiple
/// is 0.
std::vector<std::uint32_t> unpad_scales(std::span<const std::uint32_t> padded, std::size_t rows, std::size_t cols,
                                        bool transpose, std::size_t row_multiple, std::size_t col_multiple);

}  // namespace softmx
