// emulator/recipes/layouts.cpp: a recipe output's scales in TransformerEngine's compact tensor
// and in the cuBLAS swizzled layout (docs/research/scale-layouts.md sections 1-2).
#include <stdexcept>
#include <string>

#include "softmx/recipe.hpp"

namespace softmx {
namespace {

const RecipeOutput& output_of(const RecipeTensor& t, RecipeDirection d, const char* what) {
  const std::optional<RecipeOutput>& o = d == RecipeDirection::rowwise ? t.rowwise : t.columnwise;
  if (!t.recipe || !o)
    throw std::invalid_argument(std::string(what) + ": the " + std::string(name(d)) + " output was not made");
  return *o;
}

}  // namespace

PaddedScales te_compact_scales(const RecipeTensor& t, RecipeDirection d, std::uint32_t pad) {
  const RecipeOutput& o = output_of(t, d, "te_compact_scales");
  switch (t.recipe->kind) {
    case RecipeKind::fp8_current_scaling:  // one f32 scale_inv
      return pad_scales(o.scales, o.scale_rows, o.scale_cols, false, 1, 1, pad);
    case RecipeKind::fp8_block_scaling:
      // quantizer.cpp:1441-1490: 1-d [ceil(K/128), roundup(M, 4)] (the scales transposed, one
      // column per row of the data); 2-d [ceil(M/128), roundup(ceil(K/128), 4)].
      return o.block_rows == 1 ? pad_scales(o.scales, o.scale_rows, o.scale_cols, true, 1, 4, pad)
                               : pad_scales(o.scales, o.scale_rows, o.scale_cols, false, 1, 4, pad);
    case RecipeKind::mxfp8:
      // mxfp8_tensor.py:164-176: rowwise [roundup(M, 128), roundup(K/32, 4)], columnwise
      // [roundup(M/32, 4), roundup(K, 128)].
      return d == RecipeDirection::rowwise ? pad_scales(o.scales, o.scale_rows, o.scale_cols, false, 128, 4, pad)
                                           : pad_scales(o.scales, o.scale_rows, o.scale_cols, false, 4, 128, pad);
    case RecipeKind::nvfp4:
      // quantizer.cpp:2767-2792: rowwise [roundup(M, 128), roundup(K/16, 4)], columnwise (data
      // transposed) [roundup(K, 128), roundup(M/16, 4)].
      return pad_scales(o.scales, o.scale_rows, o.scale_cols, false, 128, 4, pad);
  }
  return {};
}

std::vector<std::uint8_t> gemm_swizzled_scales(const RecipeTensor& t, RecipeDirection d) {
  const RecipeOutput& o = output_of(t, d, "gemm_swizzled_scales");
  if (t.recipe->kind != RecipeKind::mxfp8 && t.recipe->kind != RecipeKind::nvfp4)
    throw std::invalid_argument("gemm_swizzled_scales: recipe " + std::string(t.recipe->name) +
                                " has f32 scales; the 128x4 layout holds MXFP8 and NVFP4 byte scales");
  std::vector<std::uint8_t> s(o.scales.size());
  std::size_t rows = o.scale_rows, cols = o.scale_cols;
  if (o.block_rows > 1) {
    // MXFP8 columnwise scales are [M/32, K]: the swizzled matrix is their transpose [K, M/32]
    // (quantize_mxfp8.cuh:276-277 gemm_swizzled_scale_idx(column, block, DIVUP(rows, 128))).
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) s[c * rows + r] = static_cast<std::uint8_t>(o.scales[r * cols + c]);
    std::swap(rows, cols);
  } else {
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(o.scales[i]);
  }
  return encode_swizzled_128x4(s, rows, cols, 0x00);
}

}  // namespace softmx
