// emulator/recipes/quantize.cpp: quantize_recipe: the options checked and resolved into TE's
// settings for the recipe and the role, then the recipe's own file.
#include <stdexcept>
#include <string>

#include "recipes/recipe_internal.hpp"

namespace softmx {
namespace {

using detail::recipes::Settings;

[[noreturn]] void fail(const Recipe& r, const std::string& why) {
  throw std::invalid_argument("recipe " + std::string(r.name) + ": " + why);
}

std::string f32_text(std::uint32_t b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08X", static_cast<unsigned>(b));
  return buf;
}

}  // namespace

RecipeTensor quantize_recipe(const Recipe& r, FormatId src, const void* data, std::span<const std::size_t> shape,
                             const RecipeOptions& o) {
  const RecipeKind kind = r.kind;
  if (src != FormatId::f32 && src != FormatId::bf16 && src != FormatId::f16)
    fail(r, "the source must be f32, bf16 or f16 (TransformerEngine's input dtypes), not " +
                std::string(format(src).name));
  if (shape.empty()) fail(r, "the tensor needs at least one dimension");
  // TE's flattening (get_2d_dims): M = the product of all dimensions but the last.
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
    if (shape[d] != 0 && rows > static_cast<std::size_t>(-1) / shape[d]) fail(r, "the tensor is too large");
    rows *= shape[d];
  }
  const std::size_t cols = shape.back();
  if (rows == 0 || cols == 0) fail(r, "the tensor is empty");
  if (rows > static_cast<std::size_t>(-1) / 8 / cols) fail(r, "the tensor is too large");
  if (!data) fail(r, "no input data");
  if (!o.rowwise && !o.columnwise) fail(r, "neither the rowwise nor the columnwise output is requested");

  const bool fp8 = kind == RecipeKind::fp8_current_scaling || kind == RecipeKind::fp8_block_scaling;
  const bool nvfp4 = kind == RecipeKind::nvfp4;
  // Implementations: TE has no Python reference for MXFP8 (its tests compare with the C++ one in
  // tests/cpp), and one reference each for FP8 block scaling (tests) and NVFP4 (custom_recipes).
  if (kind == RecipeKind::mxfp8 && o.impl != RecipeImpl::kernel)
    fail(r, "TransformerEngine has no Python reference for MXFP8; only impl kernel");
  if (kind == RecipeKind::fp8_block_scaling && o.impl == RecipeImpl::custom_reference)
    fail(r, "TransformerEngine has no custom_recipes reference for FP8 block scaling; use impl reference");

  RecipeTensor t;
  t.recipe = &r;
  t.impl = o.impl;
  t.role = o.role;
  t.source = src;
  t.rows = rows;
  t.cols = cols;

  Settings s;
  s.recipe = &r;
  s.impl = o.impl;
  s.source = src;
  s.options = &o;

  // The FP8 format: E4M3, or E5M2 for gradients under HYBRID (quantization.py:290-296).
  if (nvfp4) {
    if (o.fp8_format) fail(r, "fp8_format does not apply (NVFP4 elements are E2M1)");
    s.element = FormatId::e2m1;
  } else {
    const Fp8Format f = o.fp8_format.value_or(r.default_format);
    s.element = f == Fp8Format::hybrid && o.role == TensorRole::gradient ? FormatId::e5m2 : FormatId::e4m3;
  }
  if (fp8) {
    s.pow2 = o.power_2_scale.value_or(r.default_power_2_scale);
    s.epsilon = detail::recipes::from_bits(o.amax_epsilon);
  } else {
    if (o.power_2_scale) fail(r, "power_2_scale applies to the FP8 current and block scaling recipes only");
    if (o.amax_epsilon != 0) fail(r, "amax_epsilon applies to the FP8 current and block scaling recipes only");
  }
  if (o.amax && kind != RecipeKind::fp8_current_scaling && !nvfp4)
    fail(r, "a given amax applies to per-tensor scales (te-fp8-current, te-nvfp4) only");
  if (kind == RecipeKind::fp8_block_scaling || nvfp4) {
    s.tiles_2d = o.tiles_2d.value_or(o.role == TensorRole::weight);  // recipe/__init__.py:437, 605-609
  } else if (o.tiles_2d) {
    fail(r, kind == RecipeKind::mxfp8 ? "MXFP8's 2-d 32x32 weight option is not modelled"
                                      : "2-d tiles apply to te-fp8-block and te-nvfp4 only");
  }
  if (kind == RecipeKind::mxfp8) {
    const Dialect* d = o.dialect ? o.dialect : find_dialect("transformer-engine");
    if (d->name != std::string_view("transformer-engine") && d->name != std::string_view("transformer-engine-2025"))
      fail(r, "the MXFP8 dialect must be transformer-engine or transformer-engine-2025, not " + std::string(d->name));
    t.dialect = d;
    if (rows % 32 || cols % 32)
      fail(r, "MXFP8 needs both dimensions divisible by 32 (quantizer.cpp:1514-1516), got " + std::to_string(rows) +
                  " x " + std::to_string(cols));
  } else if (o.dialect) {
    fail(r, "a block dialect applies to te-mxfp8 only");
  }
  if (nvfp4) {
    if (rows % 16 || cols % 16)
      fail(r, "NVFP4 needs both dimensions divisible by 16 (quantizer.cpp:2770-2775), got " + std::to_string(rows) +
                  " x " + std::to_string(cols));
    // recipe/__init__.py:595-609: RHT for inputs and gradients, stochastic rounding for gradients.
    s.rht = o.random_hadamard.value_or(o.role != TensorRole::weight);
    s.sr = o.stochastic_rounding.value_or(o.role == TensorRole::gradient);
    if (s.rht && src != FormatId::bf16)
      fail(r, "the random Hadamard transform needs bf16 input (quantizer.cpp:2632-2634), got " +
                  std::string(format(src).name) + "; give bf16 data or turn random_hadamard off");
    if (s.sr && s.reference())
      fail(r, "TransformerEngine's Python reference has no stochastic rounding (reference_nvfp4.py)");
    if (s.sr) {
      if (o.stochastic_form == StochasticForm::rs && (o.rbits_width < 1 || o.rbits_width > 64))
        fail(r, "rbits_width must be 1..64, got " + std::to_string(o.rbits_width));
      const std::size_t n = rows * cols;
      if (o.rowwise && o.rbits_rowwise.size() != n)
        fail(r, "stochastic rounding needs one random value per rowwise element (" + std::to_string(n) + "), got " +
                    std::to_string(o.rbits_rowwise.size()));
      if (o.columnwise && o.rbits_columnwise.size() != n)
        fail(r, "stochastic rounding needs one random value per columnwise element (" + std::to_string(n) +
                    "), got " + std::to_string(o.rbits_columnwise.size()));
    }
    if (o.rht_amax && !s.rht) fail(r, "rht_amax applies with the random Hadamard transform only");
  } else {
    if (o.random_hadamard) fail(r, "the random Hadamard transform applies to te-nvfp4 only");
    if (o.stochastic_rounding) fail(r, "stochastic rounding applies to te-nvfp4 only");
    if (o.rht_amax) fail(r, "rht_amax applies to te-nvfp4 only");
  }
  if (o.amax) {
    const Unpacked a = detail::recipes::from_bits(*o.amax);
    if (a.sign && a.cls != ValueClass::nan && a.cls != ValueClass::zero)
      fail(r, "the given amax " + f32_text(*o.amax) + " is negative");
  }
  t.element = s.element;
  t.power_2_scale = s.pow2;
  t.tiles_2d = s.tiles_2d;
  t.random_hadamard = s.rht;
  t.stochastic_rounding = s.sr;

  if (kind == RecipeKind::mxfp8) {
    detail::recipes::quantize_mxfp8(s, data, t);
    return t;
  }
  const detail::recipes::Matrix x = detail::recipes::load(src, data, rows, cols);
  switch (kind) {
    case RecipeKind::fp8_current_scaling: detail::recipes::quantize_fp8_current(s, x, t); break;
    case RecipeKind::fp8_block_scaling: detail::recipes::quantize_fp8_block(s, x, t); break;
    case RecipeKind::nvfp4: detail::recipes::quantize_nvfp4_recipe(s, x, t); break;
    case RecipeKind::mxfp8: break;
  }
  return t;
}

}  // namespace softmx
