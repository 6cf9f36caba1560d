// emulator/recipes/recipe_internal.hpp: what the TransformerEngine recipes share (internal).
//
// Values travel as exact Unpacked f32 values (the inputs widen exactly from bf16 and f16), and
// every f32 operation is block/f32_arith.hpp's: formed exactly, rounded once with rne, subnormals
// kept. Line numbers are TE d0067d0's (docs/research/transformer-engine-recipes.md).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "block/f32_arith.hpp"
#include "softmx/recipe.hpp"

namespace softmx::detail::recipes {

/// A row-major rows x cols matrix of f32 values.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<Unpacked> v;
  const Unpacked& at(std::size_t r, std::size_t c) const { return v[r * cols + c]; }
};

/// The input as f32 values (f32 as is, bf16 and f16 widened exactly).
Matrix load(FormatId src, const void* data, std::size_t rows, std::size_t cols);
Matrix transpose(const Matrix& m);

/// The f32 bits of x; a NaN is the GPU's canonical 0x7FFFFFFF (TE's kernels and its CUDA-tensor
/// references compute on the GPU).
inline std::uint32_t bits(const Unpacked& x) {
  return x.cls == ValueClass::nan ? 0x7FFFFFFFu : std::bit_cast<std::uint32_t>(to_float(x));
}
inline Unpacked from_bits(std::uint32_t b) { return unpack(format(FormatId::f32), b); }

/// What quantize_recipe resolved from the recipe, the role and the options.
struct Settings {
  const Recipe* recipe = nullptr;
  RecipeImpl impl = RecipeImpl::kernel;
  FormatId source = FormatId::f32;
  FormatId element = FormatId::e4m3;
  bool pow2 = false;
  bool tiles_2d = false;
  bool rht = false;
  bool sr = false;
  Unpacked epsilon;
  const RecipeOptions* options = nullptr;
  bool reference() const { return impl != RecipeImpl::kernel; }
};

/// amax = max |x| over the values: NaN-ignoring from +0 (the kernels' fmaxf), or NaN-propagating
/// (torch.amax) for the Python references.
Unpacked amax_of(const std::vector<const Unpacked*>& values, bool reference);

/// The largest finite value of TE's input dtype (TypeInfo<IType>::max_finite_value,
/// common.h:708-723; torch.finfo(x.dtype).max): FLT_MAX, bf16 0x7F7F0000, f16 65504.
Unpacked dtype_max(FormatId source);

/// An FP8 (E4M3/E5M2) element from the f32 product x: static_cast<fp8>(float), i.e.
/// cvt.rn.satfinite (NaN 0x7F). reference: PyTorch's .to(float8) on the GPU: rne, unsaturated
/// (saturate false), NaN from GPU arithmetic is the positive canonical NaN (0x7F).
Result fp8_element(const Unpacked& x, FormatId element, bool reference, bool saturate);

// The four recipes: each fills t.rowwise / t.columnwise as requested.
void quantize_fp8_current(const Settings& s, const Matrix& x, RecipeTensor& t);
void quantize_fp8_block(const Settings& s, const Matrix& x, RecipeTensor& t);
void quantize_mxfp8(const Settings& s, const void* data, RecipeTensor& t);
void quantize_nvfp4_recipe(const Settings& s, const Matrix& x, RecipeTensor& t);

/// compute_scale_from_amax (recipe/recipe_common.cuh:14-49), exactly:
///   amax < eps: amax = eps; Inf, 0 or NaN amax: 1; scale = RN(max_fp8 / amax);
///   Inf scale: value_for_inf; pow2: bits & 0xFF800000.
Unpacked scale_kernel(Unpacked amax, FormatId element, bool pow2, const Unpacked& eps, const Unpacked& value_for_inf);
/// scale_from_amax_tensor (tests/pytorch/references/quantize_scale_calc.py:9-60), exactly:
///   amax = max(amax, eps) (NaN stays); scale = RN(max_fp8 / amax); scale == Inf: value_for_inf;
///   pow2: 2^(frexp exponent - 1) (a NaN scale: exponent 0 as C's frexp; CUDA's is unspecified),
///   then 0 where amax == Inf; 1 where amax == 0 (amax after the eps step).
Unpacked scale_reference(Unpacked amax, FormatId element, bool pow2, const Unpacked& eps, const Unpacked& value_for_inf);

}  // namespace softmx::detail::recipes
