// emulator/recipes/common.cpp: the pieces the TransformerEngine recipes share.
#include <limits>

#include "block/nvfp4_steps.hpp"
#include "recipes/recipe_internal.hpp"

namespace softmx::detail::recipes {

Matrix load(FormatId src, const void* data, std::size_t rows, std::size_t cols) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.v.resize(rows * cols);
  const Format& f = format(src);
  for (std::size_t i = 0; i < m.v.size(); ++i) {
    const std::uint64_t code = f.width == 16 ? static_cast<const std::uint16_t*>(data)[i]
                                             : static_cast<const std::uint32_t*>(data)[i];
    m.v[i] = unpack(f, code);
    if (m.v[i].cls == ValueClass::finite) m.v[i] = round_f32(m.v[i]);  // exact: f32, bf16, f16 fit f32
  }
  return m;
}

Matrix transpose(const Matrix& m) {
  Matrix t;
  t.rows = m.cols;
  t.cols = m.rows;
  t.v.resize(m.v.size());
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) t.v[c * t.cols + r] = m.v[r * m.cols + c];
  return t;
}

Unpacked amax_of(const std::vector<const Unpacked*>& values, bool reference) {
  Unpacked a;  // +0, as TE's zero_amax_kernel and torch.amax over |x| >= 0
  for (const Unpacked* x : values)
    a = reference ? nvfp4::max_propagating(a, nvfp4::abs(*x)) : nvfp4::fmax(a, nvfp4::abs(*x));
  return a;
}

Unpacked dtype_max(FormatId source) {
  const Format& f = format(source);
  return round_f32(unpack(f, f.max_finite_magnitude()));
}

Result fp8_element(const Unpacked& x, FormatId element, bool reference, bool saturate) {
  Context c;  // rne
  c.saturation = saturate ? Saturation::finite : Saturation::none;
  // The GPU's NaN is positive (0x7F): the transformer-engine dialect's NaN policy; PyTorch's
  // cast keeps the sign of the (positive, canonical) NaN its CUDA arithmetic made.
  static const Dialect& gpu = *find_dialect("transformer-engine");
  static const Dialect& torch = *find_dialect("torchao");
  if (x.cls == ValueClass::nan) return round_pack(format(element), nan_value(), c, gpu);
  return round_pack(format(element), x, c, reference ? torch : gpu);
}

Unpacked scale_kernel(Unpacked amax, FormatId element, bool pow2, const Unpacked& eps, const Unpacked& value_for_inf) {
  // :18-20: if (amax < epsilon) amax = epsilon (false for NaN).
  if (amax.cls != ValueClass::nan && eps.cls != ValueClass::nan && to_float(amax) < to_float(eps)) amax = eps;
  // :22-26: Inf, zero or NaN amax: scale 1.
  if (amax.cls != ValueClass::finite) return f32_value(1.0f);
  // :31: __fdiv_rn(max_fp8, amax).
  const Format& e = format(element);
  Unpacked scale = div_f32(round_f32(unpack(e, e.max_finite_magnitude())), amax);
  if (scale.cls == ValueClass::inf) scale = value_for_inf;  // :35-38
  if (pow2) {  // :39-46: keep sign and exponent
    const std::uint32_t b = bits(scale) & 0xFF800000u;
    scale = from_bits(b);
  }
  return scale;
}

Unpacked scale_reference(Unpacked amax, FormatId element, bool pow2, const Unpacked& eps, const Unpacked& value_for_inf) {
  // quantize_scale_calc.py:29: amax = torch.max(amax, eps): NaN propagates.
  amax = nvfp4::max_propagating(amax, eps);
  const Format& e = format(element);
  // :32: fp8_max / amax in f32; :35: Inf -> the dtype's max.
  Unpacked scale = div_f32(round_f32(unpack(e, e.max_finite_magnitude())), amax);
  if (scale.cls == ValueClass::inf && !scale.sign) scale = value_for_inf;
  if (pow2) {
    // :38-48: exp = frexp(scale).exponent - 1; scale = ldexp(1, exp). frexp of a finite non-zero
    // v gives the exponent e with v = m 2^e, 0.5 <= |m| < 1, so 2^(e-1) = 2^floor(log2 |v|); of
    // 0 and NaN the exponent 0 (C; CUDA leaves NaN's unspecified), so 0.5.
    Unpacked p = f32_value(0.5f);
    if (scale.cls == ValueClass::finite) {
      p = Unpacked{};
      p.cls = ValueClass::finite;
      p.sig = std::uint64_t{1} << 63;
      p.exp = scale.exp;
      p = round_f32(p);
    }
    scale = p;
    if (amax.cls == ValueClass::inf && !amax.sign) scale = Unpacked{};  // :52: 0 where amax == Inf
  }
  if (amax.cls == ValueClass::zero) scale = f32_value(1.0f);  // :55
  return scale;
}

}  // namespace softmx::detail::recipes
