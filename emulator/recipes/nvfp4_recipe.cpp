// emulator/recipes/nvfp4_recipe.cpp: te-nvfp4, TransformerEngine's NVFP4BlockScaling: both
// directions, 16x16 weight tiles, the random Hadamard transform of the columnwise input, and
// stochastic rounding, on the NVFP4 steps of emulator/block/nvfp4_steps.hpp (docs/RECIPES.md
// section 5; docs/research/transformer-engine-recipes.md section 4).
#include "block/nvfp4_steps.hpp"
#include "recipes/recipe_internal.hpp"
#include "softmx/nvfp4.hpp"

namespace softmx::detail::recipes {
namespace {

namespace steps = detail::nvfp4;
constexpr std::size_t kBlock = 16;  // NVFP4_BLOCK_SIZE

// One E2M1 element from the f32 product x.
Result element(const Settings& s, const Unpacked& x, std::span<const std::uint64_t> rbits, std::size_t i) {
  const Format& e2m1 = format(FormatId::e2m1);
  Context sat;  // rne, satfinite
  sat.saturation = Saturation::finite;
  if (s.reference()) {
    // clamp(x, -6, 6) then cast_to_fp4x2 (reference_nvfp4.py:49-71, 773-775): RNE intervals,
    // except that -0.0 falls in no negative interval and gives 0, and NaN matches none: 0.
    if (x.cls == ValueClass::nan) return Result{0x0, flag::invalid};
    if (x.cls == ValueClass::zero) return Result{0x0, 0};
    return round_pack(e2m1, x, sat, ocp_dialect());
  }
  if (s.sr) {
    if (s.options->stochastic_form == StochasticForm::software)  // ptx_arch_spec.cuh:156-166
      return te_stochastic_round_e2m1(bits(x), rbits[i]);
    Context c = sat;
    c.rounding = Rounding::rs;
    c.rbits_width = s.options->rbits_width;
    c.rbits = rbits[i];
    return round_pack(e2m1, x, c, ocp_dialect());
  }
  // cvt.rn.satfinite.e2m1x2.f32: -0 keeps its sign; NaN gives +6 (0x7).
  return round_pack(e2m1, x, sat, ocp_dialect());
}

// One output: the matrix m (x, x^T or RHT(x^T)) in 1x16 blocks, or 16x16 tiles whose scale is
// stored in each of their 16 rows (reference_nvfp4.py:675-690; the kernel's 2-d path).
RecipeOutput quantize_direction(const Settings& s, const Matrix& m, std::optional<std::uint32_t> amax_given,
                                std::span<const std::uint64_t> rbits) {
  const bool ref = s.reference();
  RecipeOutput o;
  o.rows = m.rows;
  o.cols = m.cols;
  o.element = FormatId::e2m1;
  o.block_rows = 1;
  o.block_cols = kBlock;
  o.scale_format = FormatId::e4m3;
  o.scale_rows = m.rows;
  o.scale_cols = m.cols / kBlock;
  o.scales.resize(o.scale_rows * o.scale_cols);
  o.multipliers.resize(o.scales.size());
  o.codes.resize(m.v.size());
  // The global amax: nvte_compute_amax (NaN-ignoring) or, with RHT, of the bf16 RHT output
  // (nvte_hadamard_transform_amax, quantizer.cpp:2635-2643); torch.max in the reference
  // (reference_nvfp4.py:892-897).
  Unpacked gmax;
  if (amax_given) {
    gmax = from_bits(*amax_given);
  } else {
    std::vector<const Unpacked*> all;
    all.reserve(m.v.size());
    for (const Unpacked& v : m.v) all.push_back(&v);
    gmax = amax_of(all, ref);
  }
  const Unpacked s_enc = steps::encode_scale(gmax, ref);
  // S_dec = 1.0 / S_enc (quantize_transpose_nvfp4.cuh:430,434; reference :730): RN_f32.
  const Unpacked s_dec = div_f32(f32_value(1.0f), s_enc);
  const Unpacked enc_over_6 = mul_f32(s_enc, steps::sixth());
  o.amax = bits(gmax);
  o.tensor_scale = bits(s_enc);
  o.tensor_scale_inv = bits(s_dec);
  const std::size_t tile = s.tiles_2d ? kBlock : 1;
  std::vector<const Unpacked*> block;
  for (std::size_t r0 = 0; r0 < m.rows; r0 += tile)
    for (std::size_t b = 0; b < o.scale_cols; ++b) {
      block.clear();
      for (std::size_t r = r0; r < r0 + tile; ++r)
        for (std::size_t j = 0; j < kBlock; ++j) block.push_back(&m.v[r * m.cols + b * kBlock + j]);
      const Unpacked bmax = amax_of(block, ref);
      const Result sb = steps::block_scale(bmax, enc_over_6, ref);
      const Unpacked mult = steps::multiplier(unpack(format(FormatId::e4m3), sb.code), s_enc, s_dec,
                                              Nvfp4Multiplier::reciprocal_product, ref);
      for (std::size_t r = r0; r < r0 + tile; ++r) {
        o.scales[r * o.scale_cols + b] = static_cast<std::uint32_t>(sb.code);
        o.multipliers[r * o.scale_cols + b] = bits(mult);
        o.flags |= sb.flags;
        for (std::size_t j = 0; j < kBlock; ++j) {
          const std::size_t i = r * m.cols + b * kBlock + j;
          // float(x) * m rounded to f32, then the E2M1 conversion.
          const Result q = element(s, mul_f32(m.v[i], mult), rbits, i);
          o.codes[i] = static_cast<std::uint8_t>(q.code);
          o.flags |= q.flags;
        }
      }
    }
  return o;
}

// RHT(x^T): each 16 consecutive elements of a row of x^T (16 consecutive rows of x in one
// column) through te_hadamard16, in bf16.
Matrix hadamard_of_transpose(const Matrix& x, std::uint16_t mask, std::vector<std::uint16_t>& codes) {
  const Matrix xt = transpose(x);
  const Format& bf16 = format(FormatId::bf16);
  static const Dialect& gpu = *find_dialect("transformer-engine");
  Context exact;
  exact.saturation = Saturation::none;
  codes.resize(xt.v.size());
  Matrix out;
  out.rows = xt.rows;
  out.cols = xt.cols;
  out.v.resize(xt.v.size());
  for (std::size_t g = 0; g < xt.v.size(); g += 16) {
    std::array<std::uint16_t, 16> in;
    for (std::size_t k = 0; k < 16; ++k)  // the input is bf16, so this is exact
      in[k] = static_cast<std::uint16_t>(round_pack(bf16, xt.v[g + k], exact, gpu).code);
    const std::array<std::uint16_t, 16> h = te_hadamard16(in, mask);
    for (std::size_t k = 0; k < 16; ++k) {
      codes[g + k] = h[k];
      out.v[g + k] = unpack(bf16, h[k]);
    }
  }
  return out;
}

}  // namespace

void quantize_nvfp4_recipe(const Settings& s, const Matrix& x, RecipeTensor& t) {
  const RecipeOptions& o = *s.options;
  if (o.rowwise) t.rowwise = quantize_direction(s, x, o.amax, o.rbits_rowwise);
  if (o.columnwise) {
    // Columnwise: the transpose [K, M], or RHT(x^T) for inputs and gradients
    // (quantizer.cpp:2712-2731; reference_nvfp4.py:869-874), each with its own global amax.
    if (s.rht) {
      std::vector<std::uint16_t> codes;
      const Matrix h = hadamard_of_transpose(x, o.rht_sign_mask, codes);
      t.columnwise = quantize_direction(s, h, o.rht_amax, o.rbits_columnwise);
      t.columnwise->rht_input = std::move(codes);
    } else {
      t.columnwise = quantize_direction(s, transpose(x), o.amax, o.rbits_columnwise);
    }
  }
}

}  // namespace softmx::detail::recipes
