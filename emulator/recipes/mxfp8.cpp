// emulator/recipes/mxfp8.cpp: te-mxfp8, TransformerEngine's MXFP8BlockScaling: the
// transformer-engine dialect's blocks in both directions (docs/RECIPES.md section 4;
// docs/research/transformer-engine-recipes.md section 3).
#include "recipes/recipe_internal.hpp"
#include "softmx/block.hpp"

namespace softmx::detail::recipes {
namespace {

constexpr std::size_t kBlock = 32;  // MXFP8_BLOCK_SIZE

// The f32 bits of the element multiplier exp2f_rcp<float>(S) of the dialect.
std::uint32_t multiplier_bits(std::uint8_t S, const Dialect& d) {
  if (d.block.element_scaling == ElementScaling::te_int_reciprocal)  // TE before PR 2647
    return S == 0 ? 0x3F800000u : static_cast<std::uint32_t>(254 - S) << 23;  // 0xFE: +0.0, 0xFF: -Inf
  // ptx.cuh:308-317 (PR 2647): NaN for 0xFF, the subnormal 2^-127 for 0xFE, 2^(127 - S) else.
  if (S == 0xFF) return 0x7FFFFFFFu;
  if (S == 0xFE) return 0x00400000u;
  return static_cast<std::uint32_t>(254 - S) << 23;
}

}  // namespace

void quantize_mxfp8(const Settings& s, const void* data, RecipeTensor& t) {
  const Dialect& d = *t.dialect;
  BlockOptions bo;
  bo.element = s.element;
  bo.dialect = &d;
  const std::size_t shape[2] = {t.rows, t.cols};
  // One kernel computes both directions (mxfp8::quantize, ScalingType::BIDIMENSIONAL,
  // quantize_mxfp8.cuh:599-780), each from the input: rowwise 1x32 blocks, columnwise 32x1 with
  // the data in its [M, K] layout and scales [M/32, K] (mxfp8_tensor.py:164-180).
  auto make = [&](std::size_t axis) {
    const MxTensor q = quantize_tensor(s.source, data, shape, axis, kBlock, bo);
    RecipeOutput o;
    o.rows = t.rows;
    o.cols = t.cols;
    o.element = s.element;
    o.block_rows = axis == 0 ? kBlock : 1;
    o.block_cols = axis == 0 ? 1 : kBlock;
    o.scale_format = FormatId::e8m0;
    o.scale_rows = q.scale_shape[0];
    o.scale_cols = q.scale_shape[1];
    o.scales.assign(q.scales.begin(), q.scales.end());
    o.multipliers.resize(q.scales.size());
    for (std::size_t i = 0; i < q.scales.size(); ++i) o.multipliers[i] = multiplier_bits(q.scales[i], d);
    o.codes = q.codes;
    o.flags = q.flags;
    return o;
  };
  if (s.options->rowwise) t.rowwise = make(1);
  if (s.options->columnwise) t.columnwise = make(0);
}

}  // namespace softmx::detail::recipes
