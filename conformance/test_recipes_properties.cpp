// conformance/test_recipes_properties.cpp: RapidCheck properties of the TransformerEngine recipes
// and the scale layouts: how the rowwise and columnwise outputs of one call relate (TE's kernels
// compute them from the same input; docs/RECIPES.md sections 2-5), and layout round trips over
// arbitrary shapes and bytes. Inputs are arbitrary bit patterns: NaN, Inf, subnormals included.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "softmx/recipe.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx {
namespace {

struct Data {
  FormatId src;
  std::size_t rows, cols;
  std::vector<std::uint32_t> f32;
  std::vector<std::uint16_t> b16;
  const void* ptr() const { return src == FormatId::f32 ? static_cast<const void*>(f32.data()) : b16.data(); }
  Data transposed() const {
    Data t = *this;
    std::swap(t.rows, t.cols);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        if (src == FormatId::f32) t.f32[j * rows + i] = f32[i * cols + j];
        else t.b16[j * rows + i] = b16[i * cols + j];
      }
    return t;
  }
};

// rows and cols in multiples of `unit` up to `max_units`, f32 or bf16 bits, mostly ordinary
// values of one magnitude with some arbitrary patterns.
Data gen_data(std::size_t unit, std::size_t max_units, bool bf16_only = false) {
  Data d;
  d.src = bf16_only || *rc::gen::arbitrary<bool>() ? FormatId::bf16 : FormatId::f32;
  d.rows = unit * *rc::gen::inRange<std::size_t>(1, max_units + 1);
  d.cols = unit * *rc::gen::inRange<std::size_t>(1, max_units + 1);
  const int e = *rc::gen::inRange(-40, 40);
  const std::size_t n = d.rows * d.cols;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    if (*rc::gen::inRange(0, 20) == 0) b = *rc::gen::arbitrary<std::uint32_t>();
    else b = std::bit_cast<std::uint32_t>(std::ldexp(static_cast<float>(*rc::gen::inRange(-1000, 1001)), e));
    d.f32.push_back(b);
    d.b16.push_back(static_cast<std::uint16_t>(b >> 16));
  }
  return d;
}

RecipeTensor run(const char* recipe, const Data& d, const RecipeOptions& o) {
  const std::size_t shape[2] = {d.rows, d.cols};
  return quantize_recipe(*find_recipe(recipe), d.src, d.ptr(), shape, o);
}

// b is a (rows x cols, row-major) transposed: b[j][i] == a[i][j] (codes or scales).
template <class T>
bool is_transpose(const std::vector<T>& a, const std::vector<T>& b, std::size_t rows, std::size_t cols) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      if (b[j * rows + i] != a[i * cols + j]) return false;
  return true;
}

// Current scaling: one scale, and the columnwise bytes are the transpose (cast_transpose.cu:163).
RC_GTEST_PROP(RecipeProperties, Fp8CurrentColumnwiseIsTheTranspose, ()) {
  const Data d = gen_data(1, 24);
  RecipeOptions o;
  o.power_2_scale = *rc::gen::arbitrary<bool>();
  o.role = *rc::gen::element(TensorRole::input, TensorRole::weight, TensorRole::gradient);
  o.impl = *rc::gen::element(RecipeImpl::kernel, RecipeImpl::reference, RecipeImpl::custom_reference);
  const RecipeTensor t = run("te-fp8-current", d, o);
  RC_ASSERT(is_transpose(t.rowwise->codes, t.columnwise->codes, d.rows, d.cols));
  RC_ASSERT(t.rowwise->scales == t.columnwise->scales);
}

// Block scaling: 1x128 columnwise output of x = rowwise output of x^T; 128x128: the transpose.
RC_GTEST_PROP(RecipeProperties, Fp8BlockColumnwiseIsRowwiseOfTheTranspose, ()) {
  const Data d = gen_data(1, 140);
  RecipeOptions o;
  o.power_2_scale = *rc::gen::arbitrary<bool>();
  o.tiles_2d = *rc::gen::arbitrary<bool>();
  o.impl = *rc::gen::element(RecipeImpl::kernel, RecipeImpl::reference);
  const RecipeTensor t = run("te-fp8-block", d, o);
  if (*o.tiles_2d) {
    RC_ASSERT(is_transpose(t.rowwise->codes, t.columnwise->codes, d.rows, d.cols));
    RC_ASSERT(is_transpose(t.rowwise->scales, t.columnwise->scales, t.rowwise->scale_rows, t.rowwise->scale_cols));
  } else {
    o.columnwise = false;
    const RecipeTensor u = run("te-fp8-block", d.transposed(), o);
    RC_ASSERT(t.columnwise->codes == u.rowwise->codes);
    RC_ASSERT(t.columnwise->scales == u.rowwise->scales);
  }
}

// MXFP8: the 32x1 blocks of x are the 1x32 blocks of x^T (one kernel, both directions).
RC_GTEST_PROP(RecipeProperties, Mxfp8ColumnwiseIsRowwiseOfTheTranspose, ()) {
  const Data d = gen_data(32, 3);
  RecipeOptions o;
  o.role = *rc::gen::element(TensorRole::input, TensorRole::gradient);
  o.fp8_format = *rc::gen::element(Fp8Format::e4m3, Fp8Format::hybrid);
  o.dialect = find_dialect(*rc::gen::element<std::string>("transformer-engine", "transformer-engine-2025"));
  const RecipeTensor t = run("te-mxfp8", d, o);
  o.columnwise = false;
  const RecipeTensor u = run("te-mxfp8", d.transposed(), o);
  RC_ASSERT(is_transpose(u.rowwise->codes, t.columnwise->codes, d.cols, d.rows));
  RC_ASSERT(is_transpose(u.rowwise->scales, t.columnwise->scales, u.rowwise->scale_rows, u.rowwise->scale_cols));
}

// NVFP4 without RHT: the columnwise output of x is the rowwise output of x^T (same global amax).
// With RHT: it is the rowwise output of the bf16 RHT output it keeps, quantized afresh.
RC_GTEST_PROP(RecipeProperties, Nvfp4ColumnwiseIsRowwiseOfItsInput, ()) {
  const bool rht = *rc::gen::arbitrary<bool>();
  const Data d = gen_data(16, 3, rht);
  RecipeOptions o;
  o.random_hadamard = rht;
  o.tiles_2d = *rc::gen::arbitrary<bool>();
  if (!rht) o.impl = *rc::gen::element(RecipeImpl::kernel, RecipeImpl::reference);
  const RecipeTensor t = run("te-nvfp4", d, o);
  RecipeOptions r = o;
  r.columnwise = false;
  r.random_hadamard = false;
  Data in = d.transposed();
  if (rht) {
    RC_ASSERT(t.columnwise->rht_input.size() == d.rows * d.cols);
    in.src = FormatId::bf16;
    in.b16 = t.columnwise->rht_input;
  }
  const RecipeTensor u = run("te-nvfp4", in, r);
  RC_ASSERT(t.columnwise->codes == u.rowwise->codes);
  RC_ASSERT(t.columnwise->scales == u.rowwise->scales);
  RC_ASSERT(t.columnwise->tensor_scale == u.rowwise->tensor_scale);
}

RC_GTEST_PROP(RecipeProperties, SwizzleRoundTrips, ()) {
  const std::size_t rows = *rc::gen::inRange<std::size_t>(1, 400), cols = *rc::gen::inRange<std::size_t>(1, 40);
  const auto s = *rc::gen::container<std::vector<std::uint8_t>>(rows * cols, rc::gen::arbitrary<std::uint8_t>());
  const auto buf = encode_swizzled_128x4(s, rows, cols);
  RC_ASSERT(buf.size() == swizzled_128x4_size(rows, cols));
  RC_ASSERT(decode_swizzled_128x4(buf, rows, cols) == s);
  RC_ASSERT(encode_swizzled_128x4(decode_swizzled_128x4(buf, rows, cols), rows, cols) == buf);
}

RC_GTEST_PROP(RecipeProperties, PairedRoundTrips, ()) {
  const auto op = *rc::gen::element(PairedOperand::a, PairedOperand::b);
  const bool tr = *rc::gen::arbitrary<bool>();
  const std::size_t rows = *rc::gen::inRange<std::size_t>(1, 50), cols = *rc::gen::inRange<std::size_t>(1, 50);
  const auto s = *rc::gen::container<std::vector<std::uint8_t>>(rows * cols, rc::gen::arbitrary<std::uint8_t>());
  const auto buf = encode_paired(s, rows, cols, op, tr);
  RC_ASSERT(buf.size() == paired_size(op, rows, cols));
  RC_ASSERT(decode_paired(buf, rows, cols, op, tr) == s);
  // Every padding byte is 0x7F, and there are exactly as many as the padding block holds.
  const std::size_t nb = op == PairedOperand::a ? cols : rows;
  std::size_t data = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) data += paired_index(op, tr, r, c, rows, cols) < buf.size();
  RC_ASSERT(data == rows * cols);
  RC_ASSERT(buf.size() - rows * cols == (nb % 2) * (op == PairedOperand::a ? rows : cols));
}

}  // namespace
}  // namespace softmx
