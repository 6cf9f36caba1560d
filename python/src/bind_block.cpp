// python/src/bind_block.cpp: MX and NVFP4 tensors (quantize, dequantize) and packing.
#include <pybind11/stl.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "binding.hpp"
#include "out_array.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/pack.hpp"

namespace softmx::py_binding {
namespace {

void check_axis(const std::vector<std::size_t>& shape, long axis, const char* what) {
  if (shape.empty()) throw py::value_error(std::string(what) + " needs an array of at least one dimension, got a 0-d array");
  if (axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
    throw py::value_error(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for a " +
                          std::to_string(shape.size()) + "-d array");
}

py::array from_vector(const std::vector<std::uint8_t>& v, const std::vector<std::size_t>& shape) {
  py::array a = new_array(shape, 1);
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size());
  return a;
}

/// MX quantization of x (storage of src) along axis in blocks of `block`.
/// Returns (scales, codes, flags).
py::tuple quantize_array(const py::array& x, const std::string& src, const std::string& to, long axis,
                         std::size_t block, const std::optional<std::string>& scale,
                         const std::optional<std::string>& round, const std::optional<std::string>& sat,
                         const std::string& tininess, const std::string& dialect_name, std::optional<unsigned> rbits,
                         const std::optional<py::array>& random, long threads, const std::string& scale_format) {
  const FormatId s = host_format_arg("src", src);
  BlockOptions o;
  o.element = mx_element_arg("to", to);
  o.dialect = &dialect_arg(dialect_name);
  o.scale_format = scale_format_arg(scale_format);
  if (auto why = scale_format_unsupported_reason(o.scale_format, *o.dialect)) throw py::value_error(*why);
  if (scale && !o.scale_format.is_e8m0())
    throw py::value_error("scale='" + *scale + "' chooses an E8M0 exponent; with scale_format='" + scale_format +
                          "' the scale is amax / max_E rounded to nearest (docs/BLOCKS.md 1.2): leave scale=None");
  if (scale) o.rule = scale_rule_arg(*scale);
  if (round) o.rounding = rounding_arg("round", *round);
  if (sat) o.saturation = saturation_arg("sat", *sat);
  o.tininess = tininess_arg(tininess);
  const Rounding r = o.rounding.value_or(o.dialect->block.element_rounding);
  if (rbits) {
    if (r != Rounding::rs)
      throw py::value_error("rbits applies only with round='rs'; the rounding here is '" + std::string(name(r)) + "'");
    if (*rbits < 1 || *rbits > 64) throw py::value_error("rbits is the number of random bits, 1 to 64, got " + std::to_string(*rbits));
    o.rbits_width = static_cast<std::uint8_t>(*rbits);
  }
  if (r == Rounding::rs && !random)
    throw py::value_error("round='rs' needs random=...: one random value per element (unsigned integers below 2^rbits)");
  if (r != Rounding::rs && random)
    throw py::value_error("random gives the random bits of round='rs'; the rounding here is '" + std::string(name(r)) + "'");
  if (block == 0) throw py::value_error("block must be at least 1, got 0");
  require_storage(x, storage_bytes(s), "x");
  const std::vector<std::size_t> shape = shape_of(x);
  check_axis(shape, axis, "quantize");
  const std::size_t n = count_of(shape);
  const std::uint64_t* rptr = nullptr;
  if (random) {
    require_storage(*random, 8, "random");
    if (count_of(shape_of(*random)) != n)
      throw py::value_error("random: expected one value per element (" + std::to_string(n) + ")");
    rptr = static_cast<const std::uint64_t*>(random->data());
    o.rbits = std::span<const std::uint64_t>(rptr, n);
  }
  const auto ax = static_cast<std::size_t>(axis);
  // Scale codes in the scale format's storage type: uint8 up to 8 bits, uint16 (bf16, f16), uint32 (f32).
  const std::size_t sb = o.scale_format.code_bytes();
  py::array scales = new_array(scale_shape(shape, ax, block), sb);
  py::array codes = new_array(shape, 1);
  const std::size_t n_scales = static_cast<std::size_t>(scales.size()) * sb;  // bytes
  auto* sp = static_cast<std::uint8_t*>(scales.mutable_data());
  auto* cp = static_cast<std::uint8_t*>(codes.mutable_data());
  const void* in = x.data();
  const unsigned nthreads = threads_arg(threads);
  Flags flags = 0;
  {
    py::gil_scoped_release release;
    if (rptr) check_random(rptr, n, o.rbits_width);
    flags = quantize_tensor_into(s, in, shape, ax, block, o, std::span(sp, n_scales), std::span(cp, n), nthreads);
  }
  return py::make_tuple(scales, codes, static_cast<unsigned>(flags));
}

/// MX dequantization into `to` (storage codes). Returns (values, flags).
py::tuple dequantize_array(const py::array& scales, const py::array& codes, const std::string& element, long axis,
                           std::size_t block, const std::string& to, const std::optional<std::string>& round,
                           const std::optional<std::string>& sat, const std::string& tininess,
                           const std::string& dialect_name, long threads, const std::string& scale_format,
                           const std::optional<py::array>& out_arg) {
  const Format e = mx_element_arg("format", element);
  const ScaleFormat sf = scale_format_arg(scale_format);
  const FormatId d = host_format_arg("dtype", to);
  const Dialect& dialect = dialect_arg(dialect_name);
  const Context ctx = conversion_context(d, dialect, round, sat, tininess, std::nullopt);
  if (ctx.rounding == Rounding::rs) throw py::value_error("dequantize takes no round='rs' (there are no random bits)");
  const std::size_t sb = sf.code_bytes();
  require_storage(scales, sb, "scales");
  require_storage(codes, 1, "codes");
  const std::vector<std::size_t> shape = shape_of(codes);
  check_axis(shape, axis, "dequantize");
  py::array out = out_or_new(out_arg, shape, storage_bytes(d));  // out=: written in place
  const MxTensorRef t{e, shape, static_cast<std::size_t>(axis), block,
                      std::span(static_cast<const std::uint8_t*>(scales.data()), static_cast<std::size_t>(scales.size()) * sb),
                      std::span(static_cast<const std::uint8_t*>(codes.data()), static_cast<std::size_t>(codes.size())),
                      sf};
  void* optr = out.mutable_data();
  const unsigned nthreads = threads_arg(threads);
  Flags flags = 0;
  {
    py::gil_scoped_release release;
    flags = dequantize_tensor(t, d, optr, ctx, dialect, nthreads);
  }
  return py::make_tuple(out, static_cast<unsigned>(flags));
}

/// NVFP4 quantization. Returns (scales, codes, global_amax f32 bits, encode_scale f32 bits, flags).
py::tuple quantize_nvfp4_array(const py::array& x, const std::string& src, long axis, const std::optional<std::string>& round,
                               std::optional<unsigned> rbits, const std::optional<py::array>& random,
                               std::optional<double> global_amax, const std::string& multiplier,
                               const std::string& stochastic) {
  const FormatId s = host_format_arg("src", src);
  if (s == FormatId::f64) throw py::value_error("nvfp4 quantizes f32, bf16 or f16 data, not f64 (convert it to f32 first)");
  Nvfp4Options o;
  o.rounding = round ? rounding_arg("round", *round) : Rounding::rne;
  if (o.rounding != Rounding::rne && o.rounding != Rounding::rs)
    throw py::value_error("nvfp4 elements round with 'rne' or 'rs' (TransformerEngine), not '" + std::string(name(o.rounding)) + "'");
  if (multiplier == "division") o.multiplier = Nvfp4Multiplier::division;
  else if (multiplier == "reciprocal-product") o.multiplier = Nvfp4Multiplier::reciprocal_product;
  else throw py::value_error("nvfp4_multiplier must be 'reciprocal-product' or 'division', got '" + multiplier + "'");
  if (stochastic == "rs") o.stochastic_form = StochasticForm::rs;
  else if (stochastic == "software") o.stochastic_form = StochasticForm::software;
  else throw py::value_error("nvfp4_stochastic must be 'rs' or 'software', got '" + stochastic + "'");
  if (global_amax) {
    const float g = static_cast<float>(*global_amax);
    if (static_cast<double>(g) != *global_amax && !std::isnan(*global_amax))
      throw py::value_error("global_amax must be an f32 value (it is TransformerEngine's f32 amax); " +
                            std::to_string(*global_amax) + " is not one");
    o.global_amax = g;
  }
  if (rbits) {
    if (o.rounding != Rounding::rs) throw py::value_error("rbits applies only with round='rs'");
    if (*rbits < 1 || *rbits > 64) throw py::value_error("rbits is the number of random bits, 1 to 64, got " + std::to_string(*rbits));
    o.rbits_width = static_cast<std::uint8_t>(*rbits);
  }
  if (o.rounding == Rounding::rs && !random) throw py::value_error("round='rs' needs random=...: one random value per element");
  if (o.rounding != Rounding::rs && random) throw py::value_error("random gives the random bits of round='rs'");
  require_storage(x, storage_bytes(s), "x");
  const std::vector<std::size_t> shape = shape_of(x);
  check_axis(shape, axis, "quantize");
  const std::size_t n = count_of(shape);
  if (random) {
    require_storage(*random, 8, "random");
    if (count_of(shape_of(*random)) != n) throw py::value_error("random: expected one value per element");
    o.rbits = std::span(static_cast<const std::uint64_t*>(random->data()), n);
  }
  Nvfp4Tensor t;
  {
    py::gil_scoped_release release;
    if (random) check_random(o.rbits.data(), n, o.rbits_width);
    t = quantize_nvfp4(s, x.data(), shape, static_cast<std::size_t>(axis), o);
  }
  return py::make_tuple(from_vector(t.scales, t.scale_shape), from_vector(t.codes, t.shape), t.global_amax,
                        t.encode_scale, static_cast<unsigned>(t.flags));
}

}  // namespace

Nvfp4Tensor nvfp4_tensor(const py::array& scales, const py::array& codes, long axis, std::uint32_t encode_scale,
                         std::uint32_t global_amax, const std::function<void(const std::vector<std::size_t>&)>& check_shape) {
  require_storage(scales, 1, "scales");
  require_storage(codes, 1, "codes");
  Nvfp4Tensor t;
  t.shape = shape_of(codes);
  check_shape(t.shape);
  t.axis = static_cast<std::size_t>(axis);
  t.scale_shape = shape_of(scales);
  t.encode_scale = encode_scale;
  t.global_amax = global_amax;
  const auto* s = static_cast<const std::uint8_t*>(scales.data());
  const auto* c = static_cast<const std::uint8_t*>(codes.data());
  t.scales.assign(s, s + scales.size());
  t.codes.assign(c, c + codes.size());
  check_codes(t.codes.data(), t.codes.size(), FormatId::e2m1, "codes");
  return t;
}

namespace {

py::tuple dequantize_nvfp4_array(const py::array& scales, const py::array& codes, long axis, std::uint32_t encode_scale,
                                 std::uint32_t global_amax, const std::string& to, const std::optional<std::string>& round,
                                 const std::optional<std::string>& sat, const std::string& tininess,
                                 const std::string& form_name, const std::optional<py::array>& out_arg) {
  const FormatId d = host_format_arg("dtype", to);
  Nvfp4Dequantization form = Nvfp4Dequantization::exact;
  if (form_name == "te-kernel") form = Nvfp4Dequantization::te_kernel;
  else if (form_name != "exact")
    throw py::value_error("nvfp4_dequantization must be 'exact' or 'te-kernel', got '" + form_name + "'");
  if (form == Nvfp4Dequantization::te_kernel && d == FormatId::f64)
    throw py::value_error("nvfp4_dequantization='te-kernel' writes f32, bf16 or f16 (TransformerEngine's output types), not f64");
  const Context ctx = conversion_context(d, ocp_dialect(), round, sat, tininess, std::nullopt);
  if (ctx.rounding == Rounding::rs) throw py::value_error("dequantize takes no round='rs' (there are no random bits)");
  const Nvfp4Tensor t = nvfp4_tensor(scales, codes, axis, encode_scale, global_amax,
                                     [axis](const std::vector<std::size_t>& shape) { check_axis(shape, axis, "dequantize"); });
  py::array out = out_or_new(out_arg, t.shape, storage_bytes(d));  // out=: written in place
  void* optr = out.mutable_data();
  Flags flags = 0;
  {
    py::gil_scoped_release release;
    flags = dequantize_nvfp4(t, d, optr, ctx, form);
  }
  return py::make_tuple(out, static_cast<unsigned>(flags));
}

/// Packs codes (uint8, one per byte) row by row along the last axis (docs/BLOCKS.md 4).
py::array pack_rows(const py::array& codes, const std::string& fmt) {
  const Format f = format_spec_arg("format", fmt);  // named or runtime (any width up to 8)
  if (f.width > 8) throw py::value_error("pack: " + fmt + " codes are wider than 8 bits; nothing to pack");
  require_storage(codes, 1, "codes");
  std::vector<std::size_t> shape = shape_of(codes);
  if (shape.empty()) throw py::value_error("pack needs an array of at least one dimension");
  const std::size_t len = shape.back(), rows = len ? count_of(shape) / len : 0;
  check_codes(codes.data(), static_cast<std::size_t>(codes.size()), f, "codes");
  const std::size_t pb = packed_size(f, len);
  shape.back() = pb;
  py::array out = new_array(shape, 1);
  auto* o = static_cast<std::uint8_t*>(out.mutable_data());
  const auto* c = static_cast<const std::uint8_t*>(codes.data());
  {
    py::gil_scoped_release release;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::vector<std::uint8_t> p = pack(f, std::span(c + r * len, len));
      std::memcpy(o + r * pb, p.data(), pb);
    }
  }
  return out;
}

/// The inverse: rows of packed bytes along the last axis into `count` codes each.
py::array unpack_rows(const py::array& packed, const std::string& fmt, std::size_t count) {
  const Format f = format_spec_arg("format", fmt);
  if (f.width > 8) throw py::value_error("unpack: " + fmt + " codes are wider than 8 bits; nothing to unpack");
  require_storage(packed, 1, "packed");
  std::vector<std::size_t> shape = shape_of(packed);
  if (shape.empty()) throw py::value_error("unpack needs an array of at least one dimension");
  const std::size_t pb = packed_size(f, count);
  if (shape.back() != pb)
    throw py::value_error("unpack: " + std::to_string(count) + " " + std::string(f.name) + " codes take " +
                          std::to_string(pb) + " bytes per row, but the last axis holds " + std::to_string(shape.back()));
  const std::size_t rows = pb ? count_of(shape) / pb : count_of(shape_of(packed));
  shape.back() = count;
  py::array out = new_array(shape, 1);
  auto* o = static_cast<std::uint8_t*>(out.mutable_data());
  const auto* p = static_cast<const std::uint8_t*>(packed.data());
  {
    py::gil_scoped_release release;
    for (std::size_t r = 0; r < rows && count; ++r) {
      const std::vector<std::uint8_t> c = unpack_codes(f, std::span(p + r * pb, pb), count);
      std::memcpy(o + r * count, c.data(), count);
    }
  }
  return out;
}

}  // namespace

void bind_block(py::module_& m) {
  m.def("quantize", &quantize_array, py::arg("x"), py::arg("src"), py::arg("to"), py::arg("axis"), py::arg("block"),
        py::arg("scale"), py::arg("round"), py::arg("sat"), py::arg("tininess"), py::arg("dialect"), py::arg("rbits"),
        py::arg("random"), py::arg("threads"), py::arg("scale_format") = "e8m0");
  m.def("dequantize", &dequantize_array, py::arg("scales"), py::arg("codes"), py::arg("format"), py::arg("axis"),
        py::arg("block"), py::arg("to"), py::arg("round"), py::arg("sat"), py::arg("tininess"), py::arg("dialect"),
        py::arg("threads"), py::arg("scale_format") = "e8m0", py::arg("out") = py::none());
  m.def("quantize_nvfp4", &quantize_nvfp4_array, py::arg("x"), py::arg("src"), py::arg("axis"), py::arg("round"),
        py::arg("rbits"), py::arg("random"), py::arg("global_amax"), py::arg("multiplier"), py::arg("stochastic"));
  m.def("dequantize_nvfp4", &dequantize_nvfp4_array, py::arg("scales"), py::arg("codes"), py::arg("axis"),
        py::arg("encode_scale"), py::arg("global_amax"), py::arg("to"), py::arg("round"), py::arg("sat"),
        py::arg("tininess"), py::arg("form"), py::arg("out") = py::none());
  m.def("pack", &pack_rows, py::arg("codes"), py::arg("format"));
  m.def("unpack", &unpack_rows, py::arg("packed"), py::arg("format"), py::arg("count"));
  // The canonical name of a scale format (ValueError naming the field when it cannot be one).
  m.def("scale_format_name", [](const std::string& spec) { return std::string(scale_format_arg(spec).name()); },
        py::arg("spec"));
  m.def("scale_shape", [](const std::vector<std::size_t>& shape, std::size_t axis, std::size_t k) {
    return scale_shape(shape, axis, k);
  });
}

}  // namespace softmx::py_binding
