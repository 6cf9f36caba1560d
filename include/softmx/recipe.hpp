// softmx/recipe.hpp: NVIDIA TransformerEngine's quantization recipes, quantize and dequantize,
// bit for bit as TE at d0067d0 computes them (docs/RECIPES.md is the specification;
// docs/research/transformer-engine-recipes.md holds every source line).
//
//   const Recipe& r = *find_recipe("te-nvfp4");
//   RecipeOptions o;                          // role input: RHT on the columnwise output
//   const std::size_t shape[2] = {M, K};
//   RecipeTensor q = quantize_recipe(r, FormatId::bf16, data, shape, o);
//   q.rowwise->codes, q.rowwise->scales, q.columnwise->codes, ...
//   dequantize_recipe(q, RecipeDirection::rowwise, FormatId::f32, out);
//
// One call gives the rowwise and the columnwise outputs, as TE's quantizers do. Each is a 2-d
// matrix of element codes (one per byte) with its block scales, in the orientation TE stores it.
// The tensor is 2-d [M, K]: an N-d shape is flattened as TE does (M = the product of all but the
// last dimension, K = the last). Every f32 operation is formed exactly and rounded once with
// round-to-nearest-even and subnormals kept (TE's cast kernels are not built with fast math),
// never with the host's floating-point unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/dialect.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx {

/// The four recipes of TE's common/recipe/__init__.py.
enum class RecipeKind : std::uint8_t {
  fp8_current_scaling,  ///< Float8CurrentScaling: one f32 scale per tensor from its amax
  fp8_block_scaling,    ///< Float8BlockScaling: f32 scales per 1x128 block or 128x128 tile
  mxfp8,                ///< MXFP8BlockScaling: E8M0 scales per 32 elements, both directions
  nvfp4,                ///< NVFP4BlockScaling: E2M1, E4M3 scales per 16, an f32 tensor scale
};

/// A tensor's role, which picks the recipe's per-role settings (the FP8 format under HYBRID;
/// FP8 block 1x128 or 128x128; NVFP4 RHT, stochastic rounding, 16x16 tiles).
enum class TensorRole : std::uint8_t {
  input,     ///< a forward activation (TE fp8_quant_fwd_inp)
  weight,    ///< a weight (fp8_quant_fwd_weight)
  gradient,  ///< a backward gradient (fp8_quant_bwd_grad)
};

/// Whose computation: TE's CUDA kernels (what training runs), or the Python references TE
/// tests them against, which differ on special values (docs/RECIPES.md lists every difference).
enum class RecipeImpl : std::uint8_t {
  kernel,            ///< the CUDA kernels tex.quantize runs
  reference,         ///< tests/pytorch/references/*.py (FP8); custom_recipes/reference_nvfp4.py (NVFP4)
  custom_reference,  ///< pytorch/custom_recipes/reference_current_scaling.py: as `reference`, but the
                     ///< current-scaling overflow value is the input dtype's max, not FLT_MAX
};

/// TE's fp8_format (recipe/__init__.py): E4M3 everywhere, or HYBRID (E4M3 forward, E5M2 for
/// gradients). Format.E5M2 alone is rejected by TE.
enum class Fp8Format : std::uint8_t { e4m3, hybrid };

/// Which output of a recipe.
enum class RecipeDirection : std::uint8_t { rowwise, columnwise };

/// A named recipe. Data, like a Dialect.
struct Recipe {
  std::string_view name;      ///< "te-fp8-current", "te-fp8-block", "te-mxfp8", "te-nvfp4"
  std::string_view te_name;   ///< TE's class: "Float8CurrentScaling", ...
  std::string_view summary;   ///< one line
  std::string_view sources;   ///< TE files and lines
  RecipeKind kind;
  Fp8Format default_format;   ///< the recipe's default fp8_format
  bool default_power_2_scale; ///< FP8 current: false; FP8 block: true (NVTE_FP8_BLOCK_SCALING_FP32_SCALES unset)
};

/// Every recipe, in RecipeKind order.
std::span<const Recipe> all_recipes();
/// Looks a recipe up by name (case-insensitive; TE's class names are accepted too). nullptr if
/// unknown.
const Recipe* find_recipe(std::string_view name);

/// Options of a recipe quantization. Unset fields take the recipe's and the role's defaults,
/// which are TE's (docs/RECIPES.md gives each).
struct RecipeOptions {
  TensorRole role = TensorRole::input;
  RecipeImpl impl = RecipeImpl::kernel;
  bool rowwise = true;     ///< make the rowwise output
  bool columnwise = true;  ///< make the columnwise output
  /// FP8 recipes and MXFP8: the format choice (default: the recipe's; HYBRID gives gradients E5M2).
  std::optional<Fp8Format> fp8_format;
  /// FP8 current and block scaling: round scales down to powers of two (default: the recipe's).
  std::optional<bool> power_2_scale;
  /// FP8 current and block scaling: TE's amax_epsilon (f32 bits; default 0): amax below it is
  /// raised to it.
  std::uint32_t amax_epsilon = 0;
  /// FP8 current scaling and NVFP4: the tensor amax (f32 bits) to use instead of the data's, as
  /// after TE's amax all-reduce; for NVFP4 it serves the rowwise output, and the columnwise one
  /// unless RHT is on.
  std::optional<std::uint32_t> amax;
  /// NVFP4 with RHT: the columnwise amax (of RHT(x^T)) to use instead of the computed one.
  std::optional<std::uint32_t> rht_amax;
  /// FP8 block scaling and NVFP4: 2-d tiles (128x128, 16x16) instead of 1-d blocks (default: for
  /// weights).
  std::optional<bool> tiles_2d;
  /// MXFP8: the block dialect (default transformer-engine; transformer-engine-2025 for TE before
  /// PR 2647 / PR 3262).
  const Dialect* dialect = nullptr;
  /// NVFP4: the random Hadamard transform of the columnwise input (default: input and gradient).
  std::optional<bool> random_hadamard;
  /// NVFP4: the RHT's random sign vector as a 16-bit mask, bit i set where sign i is -1 (TE's
  /// fixed vector, pytorch/tensor/nvfp4_tensor.py:49-59, is 0xD7E8).
  std::uint16_t rht_sign_mask = 0xD7E8;
  /// NVFP4: stochastic rounding of the elements (default: gradients).
  std::optional<bool> stochastic_rounding;
  /// NVFP4: TE's software fallback (default: fully determined) or softmx's rs (nvfp4.hpp).
  StochasticForm stochastic_form = StochasticForm::software;
  std::uint8_t rbits_width = 8;  ///< StochasticForm::rs: random bits per element, 1..64
  /// Stochastic rounding: one random value per element of each output, row-major in that
  /// output's shape (TE draws them from Philox; the caller supplies them).
  std::span<const std::uint64_t> rbits_rowwise;
  std::span<const std::uint64_t> rbits_columnwise;
};

/// One output (rowwise or columnwise) of a recipe quantization.
struct RecipeOutput {
  /// The data matrix as TE stores it: rowwise [M, K]; columnwise [K, M] (the transpose) for FP8
  /// current, FP8 block and NVFP4, [M, K] for MXFP8 (TE keeps its layout).
  std::size_t rows = 0, cols = 0;
  FormatId element = FormatId::e4m3;   ///< e4m3, e5m2 or e2m1
  std::vector<std::uint8_t> codes;     ///< rows x cols element codes, one per byte, row-major
  /// The extent one stored scale covers in this matrix: FP8 current rows x cols; FP8 block 1x128
  /// or 128x128; MXFP8 1x32 (rowwise) or 32x1 (columnwise); NVFP4 1x16 (2-d tiles store the
  /// tile's scale in each of its 16 rows, as TE does).
  std::size_t block_rows = 1, block_cols = 1;
  FormatId scale_format = FormatId::f32;  ///< f32 (scale_inv), e8m0 or e4m3
  /// ceil(rows / block_rows) x ceil(cols / block_cols) scale codes of scale_format, row-major:
  /// what TE stores (FP8: scale_inv = 1 / scale; MXFP8: E8M0; NVFP4: the E4M3 block decode scale).
  std::size_t scale_rows = 0, scale_cols = 0;
  std::vector<std::uint32_t> scales;
  /// The f32 (bits) each block's elements were multiplied by before rounding: FP8 TE's `scale`;
  /// MXFP8 exp2f_rcp(S); NVFP4 the element multiplier m_b. One per scale.
  std::vector<std::uint32_t> multipliers;
  /// f32 bits: the amax the scales came from (FP8 current: the tensor's, NaN-ignoring in the
  /// kernel; NVFP4: the global amax of this output's input; else 0), and the tensor-level scale
  /// and its inverse (FP8 current: scale, scale_inv; NVFP4: S_enc and S_dec = 1 / S_enc; else 0).
  std::uint32_t amax = 0;
  std::uint32_t tensor_scale = 0;
  std::uint32_t tensor_scale_inv = 0;
  /// NVFP4 with RHT: the output quantizes RHT(x^T), whose bf16 values are kept here (row-major
  /// rows x cols) for explanation and dequantization checks; empty otherwise.
  std::vector<std::uint16_t> rht_input{};
  Flags flags = 0;  ///< OR of the element conversions' flags
};

/// A recipe quantization: the settings it resolved and its outputs.
struct RecipeTensor {
  const Recipe* recipe = nullptr;
  RecipeImpl impl = RecipeImpl::kernel;
  TensorRole role = TensorRole::input;
  FormatId source = FormatId::f32;
  std::size_t rows = 0, cols = 0;  ///< M, K
  // The resolved settings.
  FormatId element = FormatId::e4m3;
  bool power_2_scale = false;
  bool tiles_2d = false;
  bool random_hadamard = false;
  bool stochastic_rounding = false;
  const Dialect* dialect = nullptr;  ///< MXFP8's block dialect
  std::optional<RecipeOutput> rowwise, columnwise;
};

/// Quantizes a row-major tensor of `source` codes (f32: std::uint32_t, bf16 and f16:
/// std::uint16_t; TE's input dtypes) with `shape` (rank >= 1; flattened to [M, K]) under
/// `recipe`. The input is not modified. Throws std::invalid_argument naming the option for: an
/// unsupported source, an empty tensor, a shape TE refuses (MXFP8: M and K multiples of 32;
/// NVFP4: of 16), RHT without bf16 input, stochastic rounding without one random value per
/// element of each output made, an option that does not apply to the recipe (amax for FP8 block
/// scaling or MXFP8), no output requested, or an implementation TE does not have (no Python
/// reference for MXFP8).
RecipeTensor quantize_recipe(const Recipe& recipe, FormatId source, const void* data,
                             std::span<const std::size_t> shape, const RecipeOptions& options = {});

/// Dequantizes one output as TE does: dst(RN_f32(value(code) * scale)) with the f32 scale
/// FP8: scale_inv; MXFP8: ptx::exp2f(S) (the dialect's dequant_scaling); NVFP4:
/// RN(RN(float(S_dec_b) * amax) * RN(1/2688)) (dequantize_nvfp4.cuh:65-77), then cast to `dst`
/// (f32, bf16, f16: rne, overflow to Inf, as static_cast<OType> on the GPU). Writes rows x cols
/// codes of dst (std::uint32_t or std::uint16_t) row-major in that output's shape (a columnwise
/// NVFP4 output with RHT dequantizes to RHT(x^T)). Returns the OR of the flags. Throws
/// std::invalid_argument if the output was not made or dst is not f32, bf16 or f16.
Flags dequantize_recipe(const RecipeTensor& t, RecipeDirection direction, FormatId dst, void* out);

/// The output's scales as TE allocates its compact tensor: transposed where TE transposes it and
/// padded to TE's multiples (MXFP8: 128x4 rowwise, 4x128 columnwise; NVFP4: 128x4 both, its
/// columnwise data being transposed; FP8 block: the second dimension to a multiple of 4, 1x128
/// scales transposed; FP8 current: 1x1), padding `pad` (TE leaves it uninitialized).
/// docs/RECIPES.md section 6 has the shapes.
PaddedScales te_compact_scales(const RecipeTensor& t, RecipeDirection direction, std::uint32_t pad = 0);

/// MXFP8 and NVFP4: the output's scales in the cuBLAS 128x4 swizzled layout (what TE's
/// swizzle kernel or optimize_for_gemm writes), padding 0x00; the columnwise matrix is first put
/// in (data column, block) orientation, as TE does. Throws std::invalid_argument for the FP8
/// recipes (f32 scales).
std::vector<std::uint8_t> gemm_swizzled_scales(const RecipeTensor& t, RecipeDirection direction);

/// A deterministic, finite test tensor for the recipes (`softmx recipe --seed S`, Python
/// softmx.recipe_test_input, the committed sets under vectors/recipes/): `count` codes of `source`
/// (f32, bf16 or f16; returned as std::uint32_t each) drawn from SplitMix64(seed). Every 16
/// values share a base binade 2^b, b uniform in -7..12; each value is a random sign times a
/// random mantissa (all of the source's bits) times 2^(b - d), d uniform in 0..7, so every value
/// is a normal number of all three sources (2^-14 .. < 2^13); one value in 41 on average is ±0. No
/// Inf or NaN: one of them would make a per-tensor recipe's output degenerate. Throws
/// std::invalid_argument for another source.
std::vector<std::uint32_t> recipe_test_input(FormatId source, std::size_t count, std::uint64_t seed);

/// Canonical names: "kernel" "reference" "custom-reference"; "input" "weight" "gradient";
/// "e4m3" "hybrid"; "software" "rs"; "rowwise" "columnwise".
std::string_view name(RecipeImpl);
std::string_view name(TensorRole);
std::string_view name(Fp8Format);
std::string_view name(StochasticForm);
std::string_view name(RecipeDirection);
std::optional<RecipeImpl> parse_recipe_impl(std::string_view);
std::optional<TensorRole> parse_tensor_role(std::string_view);
std::optional<Fp8Format> parse_fp8_format(std::string_view);
std::optional<StochasticForm> parse_stochastic_form(std::string_view);

}  // namespace softmx
