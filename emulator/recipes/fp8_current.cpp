// emulator/recipes/fp8_current.cpp: te-fp8-current, TransformerEngine's Float8CurrentScaling
// (docs/RECIPES.md section 2; docs/research/transformer-engine-recipes.md section 1).
#include <limits>

#include "recipes/recipe_internal.hpp"

namespace softmx::detail::recipes {

void quantize_fp8_current(const Settings& s, const Matrix& x, RecipeTensor& t) {
  const bool ref = s.reference();
  // amax: nvte_compute_amax_with_config (current_scaling.cu:31-115), fmaxf from 0, NaN skipped;
  // the references' torch.amax propagates NaN (ref_per_tensor_cs.py:14-15). An all-reduced amax
  // replaces it when given.
  Unpacked amax;
  if (s.options->amax) {
    amax = from_bits(*s.options->amax);
  } else {
    std::vector<const Unpacked*> all;
    all.reserve(x.v.size());
    for (const Unpacked& v : x.v) all.push_back(&v);
    amax = amax_of(all, ref);
  }
  // value_for_inf: FLT_MAX in the kernel (current_scaling.cu:274-275) and in the tests'
  // reference (ref_per_tensor_cs.py:17 passes float32); the input dtype's max in
  // custom_recipes/reference_current_scaling.py:256.
  const Unpacked vinf = s.impl == RecipeImpl::custom_reference ? dtype_max(s.source)
                                                                : f32_value(std::numeric_limits<float>::max());
  const Unpacked scale = ref ? scale_reference(amax, s.element, s.pow2, s.epsilon, vinf)
                             : scale_kernel(amax, s.element, s.pow2, s.epsilon, vinf);
  // scale_inv: __frcp_rn(scale) (utils.cuh:944-952); torch.reciprocal: the same RN(1/scale).
  const Unpacked scale_inv = div_f32(f32_value(1.0f), scale);

  auto make = [&](const Matrix& m) {
    // One block, the whole matrix, with one f32 scale.
    RecipeOutput o{.rows = m.rows, .cols = m.cols, .element = s.element, .codes = std::vector<std::uint8_t>(m.v.size()),
                   .block_rows = m.rows, .block_cols = m.cols, .scale_format = FormatId::f32,
                   .scale_rows = 1, .scale_cols = 1, .scales = {bits(scale_inv)}, .multipliers = {bits(scale)},
                   .amax = bits(amax), .tensor_scale = bits(scale), .tensor_scale_inv = bits(scale_inv)};
    // q = fp8(RN(float(x) * scale)) (vectorized_pointwise.h:198-207; cast_transpose.cu:163): the
    // kernel's cvt.rn.satfinite; the reference's unclamped PyTorch cast (ref_per_tensor_cs.py:57),
    // which never sees a product above max_fp8 (1 + 2^-23) anyway.
    for (std::size_t i = 0; i < m.v.size(); ++i) {
      const Result r = fp8_element(mul_f32(m.v[i], scale), s.element, ref, !ref);
      o.codes[i] = static_cast<std::uint8_t>(r.code);
      o.flags |= r.flags;
    }
    return o;
  };
  if (s.options->rowwise) t.rowwise = make(x);
  // The columnwise output is the transpose with the same bytes and the same scale_inv
  // (cast_transpose.cu:163,246; the reference's _multi_dim_transpose).
  if (s.options->columnwise) t.columnwise = make(transpose(x));
}

}  // namespace softmx::detail::recipes
