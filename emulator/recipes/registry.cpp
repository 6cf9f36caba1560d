// emulator/recipes/registry.cpp: the table of TransformerEngine recipes and the names of the
// recipe options (include/softmx/recipe.hpp).
#include <array>
#include <string>

#include "core/ascii.hpp"
#include "core/enum_names.hpp"
#include "softmx/recipe.hpp"

namespace softmx {
namespace {

const std::array<Recipe, 4> kRecipes = {{
    {"te-fp8-current", "Float8CurrentScaling",
     "FP8 per-tensor current scaling: scale = max_fp8 / amax (TE's Inf/zero/NaN cases, FLT_MAX cap, optional "
     "power of 2), scale_inv = RN(1 / scale), q = fp8(RN(x * scale)); E4M3 forward, E5M2 gradients (HYBRID)",
     "NVIDIA/TransformerEngine d0067d0: common/recipe/__init__.py:285-333, recipe/recipe_common.cuh:14-49, "
     "recipe/current_scaling.cu:31-115,267-336, utils.cuh:944-952, util/vectorized_pointwise.h:198-226, "
     "transpose/cast_transpose.cu:163-246; tests/pytorch/references/{quantize_scale_calc,ref_per_tensor_cs}.py; "
     "pytorch/custom_recipes/reference_current_scaling.py",
     RecipeKind::fp8_current_scaling, Fp8Format::hybrid, false},
    {"te-fp8-block", "Float8BlockScaling",
     "FP8 block scaling: 1x128 blocks (inputs, gradients) or 128x128 tiles (weights), one f32 scale each from "
     "its amax, power-of-2 scales by default, the input dtype's max for an overflowing scale",
     "NVIDIA/TransformerEngine d0067d0: common/recipe/__init__.py:391-485, recipe/recipe_common.cuh:61-69, "
     "transpose/quantize_transpose_vector_blockwise.cu, transpose/quantize_transpose_square_blockwise.cu, "
     "pytorch/csrc/quantizer.cpp:1441-1490; tests/pytorch/references/blockwise_quantizer_reference.py",
     RecipeKind::fp8_block_scaling, Fp8Format::e4m3, true},
    {"te-mxfp8", "MXFP8BlockScaling",
     "MXFP8: E8M0 scales per 1x32 (rowwise) and 32x1 (columnwise) blocks from one call, the transformer-engine "
     "dialect's block rules; scale tensors padded to 128x4 / 4x128",
     "NVIDIA/TransformerEngine d0067d0: common/recipe/__init__.py:336-388, cast/mxfp8/quantize_mxfp8.cuh, "
     "dequantize_mxfp8.cuh, util/ptx.cuh:308-341, util/ptx_arch_spec.cuh:72-104, pytorch/tensor/mxfp8_tensor.py:139-180",
     RecipeKind::mxfp8, Fp8Format::e4m3, false},
    {"te-nvfp4", "NVFP4BlockScaling",
     "NVFP4: E2M1 in 1x16 blocks (16x16 tiles for weights), E4M3 block scales, the global scale 448*6/amax; the "
     "random Hadamard transform on the columnwise input of activations and gradients; stochastic rounding of "
     "gradients",
     "NVIDIA/TransformerEngine d0067d0: common/recipe/__init__.py:488-625, cast/nvfp4/core_nvfp4.cuh, "
     "quantize_transpose_nvfp4.cuh, dequantize_nvfp4.cuh, hadamard_transform/hadamard_transform_utils.cuh, "
     "util/ptx.cuh:526-549, util/ptx_arch_spec.cuh:120-262, pytorch/tensor/nvfp4_tensor.py:37-103, "
     "pytorch/csrc/quantizer.cpp:2580-2792; pytorch/custom_recipes/reference_nvfp4.py",
     RecipeKind::nvfp4, Fp8Format::e4m3, false},
}};

// The names of the recipe options (enum_names.hpp: the first row of a value is its name).
using detail::EnumName;
constexpr EnumName<RecipeImpl> kRecipeImpl[] = {
    {RecipeImpl::kernel, "kernel"}, {RecipeImpl::reference, "reference"}, {RecipeImpl::custom_reference, "custom-reference"}};
constexpr EnumName<TensorRole> kTensorRole[] = {
    {TensorRole::input, "input"}, {TensorRole::weight, "weight"}, {TensorRole::gradient, "gradient"}};
constexpr EnumName<Fp8Format> kFp8Format[] = {{Fp8Format::e4m3, "e4m3"}, {Fp8Format::hybrid, "hybrid"}};
constexpr EnumName<StochasticForm> kStochasticForm[] = {{StochasticForm::software, "software"},
                                                        {StochasticForm::rs, "rs"}};
constexpr EnumName<RecipeDirection> kRecipeDirection[] = {{RecipeDirection::rowwise, "rowwise"},
                                                          {RecipeDirection::columnwise, "columnwise"}};

}  // namespace

std::span<const Recipe> all_recipes() { return kRecipes; }

const Recipe* find_recipe(std::string_view n) {
  const std::string k = detail::ascii_lower(n);
  for (const Recipe& r : kRecipes)
    if (k == r.name || k == detail::ascii_lower(r.te_name)) return &r;
  return nullptr;
}

std::string_view name(RecipeImpl v) { return detail::enum_name(v, kRecipeImpl); }
std::string_view name(TensorRole v) { return detail::enum_name(v, kTensorRole); }
std::string_view name(Fp8Format v) { return detail::enum_name(v, kFp8Format); }
std::string_view name(StochasticForm v) { return detail::enum_name(v, kStochasticForm); }
std::string_view name(RecipeDirection v) { return detail::enum_name(v, kRecipeDirection); }

std::optional<RecipeImpl> parse_recipe_impl(std::string_view s) { return detail::enum_parse(s, kRecipeImpl); }
std::optional<TensorRole> parse_tensor_role(std::string_view s) { return detail::enum_parse(s, kTensorRole); }
std::optional<Fp8Format> parse_fp8_format(std::string_view s) { return detail::enum_parse(s, kFp8Format); }
std::optional<StochasticForm> parse_stochastic_form(std::string_view s) {
  return detail::enum_parse(s, kStochasticForm);
}

}  // namespace softmx
