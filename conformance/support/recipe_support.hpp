// conformance/support/recipe_support.hpp: running softmx's TransformerEngine recipes in the
// tests, and the host-f32 pieces of the independent transcriptions of TE's code they are
// checked against (host IEEE binary32 on x86-64 SSE: round to nearest even, subnormals kept;
// FP8/FP4 conversions by the MPFR oracle).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "oracles/mpfr_oracle.hpp"
#include "softmx/recipe.hpp"

namespace softmx::conformance {

inline std::uint32_t fbits(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float fval(std::uint32_t b) { return std::bit_cast<float>(b); }

/// Runs `recipe` on an f32 tensor of rows x cols values.
inline RecipeTensor run_f32(const char* recipe, std::size_t rows, std::size_t cols, const std::vector<float>& x,
                            const RecipeOptions& o = {}) {
  std::vector<std::uint32_t> b(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) b[i] = fbits(x[i]);
  const std::size_t shape[2] = {rows, cols};
  return quantize_recipe(*find_recipe(recipe), FormatId::f32, b.data(), shape, o);
}

/// Runs `recipe` on a bf16 tensor (codes).
inline RecipeTensor run_bf16(const char* recipe, std::size_t rows, std::size_t cols, const std::vector<std::uint16_t>& x,
                             const RecipeOptions& o = {}) {
  const std::size_t shape[2] = {rows, cols};
  return quantize_recipe(*find_recipe(recipe), FormatId::bf16, x.data(), shape, o);
}

/// A rows x cols f32 tensor of zeros with `first` at the start of row 0.
inline std::vector<float> row0(std::size_t rows, std::size_t cols, std::initializer_list<float> first) {
  std::vector<float> x(rows * cols, 0.0f);
  std::size_t i = 0;
  for (float v : first) x[i++] = v;
  return x;
}

inline float bf16_value(std::uint16_t c) { return fval(static_cast<std::uint32_t>(c) << 16); }

/// cvt.rn.satfinite into an FP8/FP4 format by the MPFR oracle (NaN: the oracle's +NaN code for
/// E4M3/E5M2 0x7F, +max for E2M1, with the transformer-engine positive NaN).
inline std::uint8_t oracle_satfinite(oracle::Fmt to, float x) {
  oracle::Policies p;
  p.nan_sign = oracle::Policies::NanSign::positive;
  p.nan_payload.fill(oracle::Policies::Payload::all_ones);
  return static_cast<std::uint8_t>(
      oracle::convert(oracle::Fmt::f32, to, fbits(x), oracle::Mode::rne, oracle::Sat::finite, oracle::Tiny::after, p).code);
}

/// The exact value of an FP8/FP4 code as a float (all such values are f32-exact).
inline float oracle_value(oracle::Fmt f, std::uint8_t c) {
  mpfr_t v;
  mpfr_init2(v, 64);
  float r = std::nanf("");
  if (oracle::decode(f, c, v)) r = mpfr_get_flt(v, MPFR_RNDN);
  mpfr_clear(v);
  return r;
}

/// TE's compute_scale_from_amax (recipe_common.cuh:14-49) in host f32, transcribed.
inline float te_scale(float amax, float max_fp8, bool pow2, float eps, float value_for_inf) {
  if (amax < eps) amax = eps;
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax)) return 1.0f;
  float scale = max_fp8 / amax;
  if (std::isinf(scale)) scale = value_for_inf;
  if (pow2) scale = fval(fbits(scale) & 0xFF800000u);
  return scale;
}

}  // namespace softmx::conformance
