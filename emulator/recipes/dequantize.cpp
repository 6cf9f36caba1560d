// emulator/recipes/dequantize.cpp: dequantize_recipe, each recipe's output back to f32, bf16 or
// f16 as TransformerEngine's dequantize paths compute it (docs/RECIPES.md section 7).
#include <stdexcept>
#include <string>

#include "block/nvfp4_steps.hpp"
#include "core/storage.hpp"
#include "recipes/recipe_internal.hpp"
#include "softmx/block.hpp"

namespace softmx {

Flags dequantize_recipe(const RecipeTensor& t, RecipeDirection direction, FormatId dst, void* out) {
  const std::optional<RecipeOutput>& po = direction == RecipeDirection::rowwise ? t.rowwise : t.columnwise;
  const std::string who = "dequantize: recipe " + std::string(t.recipe ? t.recipe->name : "?");
  if (!t.recipe) throw std::invalid_argument(who + ": the tensor has no recipe");
  if (!po) throw std::invalid_argument(who + ": the " + std::string(name(direction)) + " output was not made");
  if (dst != FormatId::f32 && dst != FormatId::bf16 && dst != FormatId::f16)
    throw std::invalid_argument(who + ": the destination must be f32, bf16 or f16 (TransformerEngine's output "
                                      "dtypes), not " + std::string(format(dst).name));
  const RecipeOutput& o = *po;
  if (o.codes.size() != o.rows * o.cols || o.scales.size() != o.scale_rows * o.scale_cols ||
      o.scale_rows != (o.rows + o.block_rows - 1) / o.block_rows || o.scale_cols != (o.cols + o.block_cols - 1) / o.block_cols)
    throw std::invalid_argument(who + ": the output's codes or scales do not match its shape");
  // static_cast<OType>(float) on the GPU: rne, overflow to Inf, the canonical NaN.
  Context rn;
  rn.saturation = Saturation::none;
  static const Dialect& gpu = *find_dialect("transformer-engine");
  Flags flags = 0;
  for (std::size_t r = 0; r < o.rows; ++r)
    for (std::size_t c = 0; c < o.cols; ++c) {
      const std::size_t i = r * o.cols + c;
      const std::uint32_t scale = o.scales[(r / o.block_rows) * o.scale_cols + c / o.block_cols];
      Result res;
      switch (t.recipe->kind) {
        case RecipeKind::fp8_current_scaling:
        case RecipeKind::fp8_block_scaling: {
          // float(q) * scale_inv in f32, then OType (dequantize_fp8.cuh:30-32;
          // float8_blockwise_tensor_storage.py _dequantize_vectorwise: q.to(float32) * scale_inv).
          const Unpacked x = detail::mul_f32(unpack(format(o.element), o.codes[i]), detail::recipes::from_bits(scale));
          res = round_pack(format(dst), x, rn, gpu);
          break;
        }
        case RecipeKind::mxfp8:
          // static_cast<OType>(ptx::exp2f(S) * float(q)) (dequantize_mxfp8.cuh:176,188): the
          // dialect's dequant_scaling.
          res = dequantize_element(o.element, static_cast<std::uint8_t>(scale), o.codes[i], dst, rn,
                                   t.dialect ? *t.dialect : gpu);
          break;
        case RecipeKind::nvfp4:
          res = detail::nvfp4::te_dequantize(o.codes[i], static_cast<std::uint8_t>(scale), o.amax, dst);
          break;
      }
      detail::store_code(dst, out, i, res.code);
      flags |= res.flags;
    }
  return flags;
}

}  // namespace softmx
