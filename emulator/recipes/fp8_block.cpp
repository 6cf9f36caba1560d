// emulator/recipes/fp8_block.cpp: te-fp8-block, TransformerEngine's Float8BlockScaling
// (docs/RECIPES.md section 3; docs/research/transformer-engine-recipes.md section 2).
#include "recipes/recipe_internal.hpp"

namespace softmx::detail::recipes {
namespace {

constexpr std::size_t kBlock = 128;  // Float8BlockQuantizer.block_len (float8_blockwise_tensor.py:55)

// Quantizes the matrix m in blocks of br x bc (1x128 or 128x128); a partial block is its valid
// elements, the kernels' zero fill changing no amax (vector_blockwise.cu:216-224,
// square_blockwise.cu:335-350; the reference pads with zeros).
RecipeOutput quantize_blocks(const Settings& s, const Matrix& m, std::size_t br, std::size_t bc) {
  const bool ref = s.reference();
  const std::size_t scale_rows = (m.rows + br - 1) / br, scale_cols = (m.cols + bc - 1) / bc;
  RecipeOutput o{.rows = m.rows, .cols = m.cols, .element = s.element, .codes = std::vector<std::uint8_t>(m.v.size()),
                 .block_rows = br, .block_cols = bc, .scale_format = FormatId::f32, .scale_rows = scale_rows,
                 .scale_cols = scale_cols, .scales = std::vector<std::uint32_t>(scale_rows * scale_cols),
                 .multipliers = std::vector<std::uint32_t>(scale_rows * scale_cols)};
  // value_for_inf: the input dtype's max in the kernels (compute_scale_from_types,
  // recipe_common.cuh:61-69) and the reference (x_dtype = x.dtype).
  const Unpacked vinf = dtype_max(s.source);
  std::vector<const Unpacked*> block;
  for (std::size_t bi = 0; bi < o.scale_rows; ++bi)
    for (std::size_t bj = 0; bj < o.scale_cols; ++bj) {
      const std::size_t r1 = std::min(m.rows, (bi + 1) * br), c1 = std::min(m.cols, (bj + 1) * bc);
      block.clear();
      for (std::size_t r = bi * br; r < r1; ++r)
        for (std::size_t c = bj * bc; c < c1; ++c) block.push_back(&m.v[r * m.cols + c]);
      // amax: fmaxf per thread then warp shuffles (vector_blockwise.cu:274-292,
      // square_blockwise.cu:123-155); the reference's amax propagates NaN.
      const Unpacked amax = amax_of(block, ref);
      const Unpacked scale = ref ? scale_reference(amax, s.element, s.pow2, s.epsilon, vinf)
                                 : scale_kernel(amax, s.element, s.pow2, s.epsilon, vinf);
      // scale_inv = 1.0 / scale: a double division rounded to float in the 1-d kernel
      // (vector_blockwise.cu:302), an f32 division in the 2-d one (square_blockwise.cu:162);
      // both RN_f32(1/scale) (53 >= 2 * 24 + 2).
      o.scales[bi * o.scale_cols + bj] = bits(div_f32(f32_value(1.0f), scale));
      o.multipliers[bi * o.scale_cols + bj] = bits(scale);
      // static_cast<OType>(float(x) * scale) (vector_blockwise.cu:313-314); the reference
      // clamps to +-max_fp8 before its cast (blockwise_quantizer_reference.py:128-130), which
      // gives satfinite's codes.
      for (std::size_t r = bi * br; r < r1; ++r)
        for (std::size_t c = bj * bc; c < c1; ++c) {
          const Result q = fp8_element(mul_f32(m.v[r * m.cols + c], scale), s.element, ref, true);
          o.codes[r * m.cols + c] = static_cast<std::uint8_t>(q.code);
          o.flags |= q.flags;
        }
    }
  return o;
}

}  // namespace

void quantize_fp8_block(const Settings& s, const Matrix& x, RecipeTensor& t) {
  const std::size_t br = s.tiles_2d ? kBlock : 1;
  if (s.options->rowwise) t.rowwise = quantize_blocks(s, x, br, kBlock);
  // Columnwise: the transpose [K, M]. 1-d: each of its rows (a column of x) in 1x128 blocks with
  // its own amax, quantized from the input, not from the rowwise bytes
  // (COLUMNWISE_GEMM_READY, vector_blockwise.cu:334-418). 2-d: the tile (j, i) of x^T is the
  // transpose of tile (i, j), so the same amax, scale and bytes, transposed
  // (square_blockwise.cu:170-174,186-192).
  if (s.options->columnwise) t.columnwise = quantize_blocks(s, transpose(x), br, kBlock);
}

}  // namespace softmx::detail::recipes
