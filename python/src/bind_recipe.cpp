// python/src/bind_recipe.cpp: TransformerEngine's recipes (softmx/recipe.hpp), one
// quantize_recipe call per softmx.recipe(); python/softmx/_recipe.py is the interface.
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>

#include "binding.hpp"
#include "softmx/recipe.hpp"

namespace softmx::py_binding {
namespace {

template <typename T>
py::array matrix(const std::vector<T>& v, std::size_t rows, std::size_t cols) {
  py::array a = new_array({rows, cols}, sizeof(T));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

/// One output as a dict; `dst` (f32, bf16, f16) adds its dequantization (dequantize_recipe), and
/// the scales come also in TE's compact padded tensor and, for MXFP8 and NVFP4, cuBLAS's 128x4
/// swizzled layout.
py::dict output_dict(const RecipeTensor& t, RecipeDirection dir, std::optional<FormatId> dst) {
  const RecipeOutput& o = dir == RecipeDirection::rowwise ? *t.rowwise : *t.columnwise;
  py::dict d;
  d["rows"] = o.rows;
  d["cols"] = o.cols;
  d["element"] = std::string(format(o.element).name);
  d["codes"] = matrix(o.codes, o.rows, o.cols);
  d["block"] = py::make_tuple(o.block_rows, o.block_cols);
  d["scale_format"] = std::string(format(o.scale_format).name);
  if (o.scale_format == FormatId::f32) {
    d["scales"] = matrix(o.scales, o.scale_rows, o.scale_cols);
  } else {
    std::vector<std::uint8_t> s(o.scales.begin(), o.scales.end());
    d["scales"] = matrix(s, o.scale_rows, o.scale_cols);
  }
  d["multipliers"] = matrix(o.multipliers, o.scale_rows, o.scale_cols);
  d["amax"] = o.amax;
  d["tensor_scale"] = o.tensor_scale;
  d["tensor_scale_inv"] = o.tensor_scale_inv;
  if (!o.rht_input.empty()) d["rht_input"] = matrix(o.rht_input, o.rows, o.cols);
  d["flags"] = static_cast<unsigned>(o.flags);
  const PaddedScales te = te_compact_scales(t, dir);
  if (o.scale_format == FormatId::f32) {
    d["te_scales"] = matrix(te.codes, te.rows, te.cols);
  } else {
    std::vector<std::uint8_t> b(te.codes.begin(), te.codes.end());
    d["te_scales"] = matrix(b, te.rows, te.cols);
    const std::vector<std::uint8_t> sw = gemm_swizzled_scales(t, dir);
    d["swizzled_scales"] = matrix(sw, 1, sw.size());
  }
  if (dst) {
    const std::size_t w = storage_bytes(*dst);
    py::array a = new_array({o.rows, o.cols}, w);
    void* p = a.mutable_data();
    Flags f = 0;
    {
      py::gil_scoped_release release;
      f = dequantize_recipe(t, dir, *dst, p);
    }
    d["dequantized"] = a;
    d["dequantize_flags"] = static_cast<unsigned>(f);
  }
  return d;
}

template <typename E>
E enum_arg(const char* what, const std::string& v, std::optional<E> (*parse)(std::string_view), const char* expected) {
  if (auto e = parse(v)) return *e;
  throw py::value_error(std::string(what) + ": expected " + expected + ", got '" + v + "'");
}

const std::uint64_t* rbits_arg(const std::optional<py::array>& r, std::size_t n, const char* what) {
  if (!r) return nullptr;
  require_storage(*r, 8, what);
  if (static_cast<std::size_t>(r->size()) != n)
    throw py::value_error(std::string(what) + ": expected one random value per element of the output (" + std::to_string(n) +
                          "), got " + std::to_string(r->size()));
  return static_cast<const std::uint64_t*>(r->data());
}

py::dict recipe_quantize(const std::string& recipe_name, const py::array& x, const std::string& src,
                         const std::string& role, const std::string& impl, bool rowwise, bool columnwise,
                         const std::optional<std::string>& fp8_format, std::optional<bool> power_2_scale,
                         std::uint32_t amax_epsilon, std::optional<std::uint32_t> amax,
                         std::optional<std::uint32_t> rht_amax, std::optional<bool> tiles_2d,
                         const std::optional<std::string>& dialect, std::optional<bool> random_hadamard,
                         std::optional<unsigned> rht_signs, std::optional<bool> stochastic_rounding,
                         const std::optional<std::string>& stochastic_form, std::optional<unsigned> rbits,
                         const std::optional<py::array>& rbits_rowwise,
                         const std::optional<py::array>& rbits_columnwise, const std::optional<std::string>& dequantize) {
  const Recipe* recipe = find_recipe(recipe_name);
  if (!recipe) {
    std::string known;
    for (const Recipe& r : all_recipes()) known += (known.empty() ? "" : ", ") + std::string(r.name);
    throw py::value_error("unknown recipe '" + recipe_name + "' (expected one of " + known + ")");
  }
  const FormatId s = host_format_arg("src", src);
  require_storage(x, storage_bytes(s), "x");
  const std::vector<std::size_t> shape = shape_of(x);
  if (shape.empty()) throw py::value_error("recipe needs an array of at least one dimension, got a 0-d array");
  const std::size_t n = count_of(shape);
  RecipeOptions o;
  o.role = enum_arg<TensorRole>("role", role, parse_tensor_role, "'input', 'weight' or 'gradient'");
  o.impl = enum_arg<RecipeImpl>("impl", impl, parse_recipe_impl, "'kernel', 'reference' or 'custom-reference'");
  o.rowwise = rowwise;
  o.columnwise = columnwise;
  if (fp8_format) o.fp8_format = enum_arg<Fp8Format>("fp8_format", *fp8_format, parse_fp8_format, "'e4m3' or 'hybrid'");
  o.power_2_scale = power_2_scale;
  o.amax_epsilon = amax_epsilon;
  o.amax = amax;
  o.rht_amax = rht_amax;
  o.tiles_2d = tiles_2d;
  if (dialect) o.dialect = &dialect_arg(*dialect);
  o.random_hadamard = random_hadamard;
  if (rht_signs) {
    if (*rht_signs > 0xFFFF) throw py::value_error("rht_signs is a 16-bit mask (0 to 0xFFFF), got " + std::to_string(*rht_signs));
    o.rht_sign_mask = static_cast<std::uint16_t>(*rht_signs);
  }
  o.stochastic_rounding = stochastic_rounding;
  if (stochastic_form)
    o.stochastic_form = enum_arg<StochasticForm>("stochastic_form", *stochastic_form, parse_stochastic_form, "'software' or 'rs'");
  if (rbits) {
    if (*rbits < 1 || *rbits > 64) throw py::value_error("rbits is the number of random bits, 1 to 64, got " + std::to_string(*rbits));
    if (o.stochastic_form != StochasticForm::rs)
      throw py::value_error("rbits is the width of stochastic_form='rs' (the software form takes one byte per element)");
    o.rbits_width = static_cast<std::uint8_t>(*rbits);
  }
  const std::uint64_t* rr = rbits_arg(rbits_rowwise, n, "random_rowwise");
  const std::uint64_t* rc = rbits_arg(rbits_columnwise, n, "random_columnwise");
  if (rr) o.rbits_rowwise = std::span<const std::uint64_t>(rr, n);
  if (rc) o.rbits_columnwise = std::span<const std::uint64_t>(rc, n);
  std::optional<FormatId> dst;
  if (dequantize) {
    dst = host_format_arg("dequantize", *dequantize);
    if (*dst == FormatId::f64) throw py::value_error("dequantize: TE dequantizes into f32, bf16 or f16, not f64");
  }
  const unsigned width = o.stochastic_form == StochasticForm::rs ? o.rbits_width : 8;
  const void* data = x.data();
  RecipeTensor t;
  {
    py::gil_scoped_release release;
    if (rr) check_random(rr, n, width);
    if (rc) check_random(rc, n, width);
    try {
      t = quantize_recipe(*recipe, s, data, shape, o);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());  // translated by pybind11 after the GIL is back
    }
  }
  // Options TE's recipe would not read under the settings resolved: refused, not ignored.
  if (!t.random_hadamard && rht_signs)
    throw py::value_error("rht_signs applies with the random Hadamard transform (te-nvfp4 inputs and gradients, or "
                          "random_hadamard=True); it is off here");
  if (!t.stochastic_rounding && (stochastic_form || rbits || rr || rc))
    throw py::value_error(std::string(stochastic_form ? "stochastic_form" : rbits ? "rbits" : rr ? "random_rowwise" : "random_columnwise") +
                          " applies with stochastic rounding (te-nvfp4 gradients, or stochastic_rounding=True); it is off here");
  py::dict d;
  d["recipe"] = std::string(recipe->name);
  d["impl"] = std::string(name(t.impl));
  d["role"] = std::string(name(t.role));
  d["source"] = std::string(format(t.source).name);
  d["rows"] = t.rows;
  d["cols"] = t.cols;
  d["element"] = std::string(format(t.element).name);
  d["power_2_scale"] = t.power_2_scale;
  d["tiles_2d"] = t.tiles_2d;
  d["random_hadamard"] = t.random_hadamard;
  d["stochastic_rounding"] = t.stochastic_rounding;
  d["dialect"] = t.dialect ? py::object(py::str(std::string(t.dialect->name))) : py::object(py::none());
  d["rowwise"] = t.rowwise ? py::object(output_dict(t, RecipeDirection::rowwise, dst)) : py::object(py::none());
  d["columnwise"] = t.columnwise ? py::object(output_dict(t, RecipeDirection::columnwise, dst)) : py::object(py::none());
  return d;
}

}  // namespace

void bind_recipe(py::module_& m) {
  m.def("recipe_test_input", [](const std::string& src, std::size_t count, std::uint64_t seed) {
    const FormatId s = host_format_arg("src", src);
    std::vector<std::uint32_t> v;
    try {
      v = recipe_test_input(s, count, seed);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
    if (s == FormatId::f32) return matrix(v, 1, count);
    std::vector<std::uint16_t> h(v.begin(), v.end());
    return matrix(h, 1, count);
  }, py::arg("src"), py::arg("count"), py::arg("seed"));
  m.def("recipes", [] {
    py::list l;
    for (const Recipe& r : all_recipes())
      l.append(py::make_tuple(std::string(r.name), std::string(r.te_name), std::string(r.summary), std::string(r.sources)));
    return l;
  });
  m.def("recipe_quantize", &recipe_quantize, py::arg("recipe"), py::arg("x"), py::arg("src"), py::arg("role"),
        py::arg("impl"), py::arg("rowwise"), py::arg("columnwise"), py::arg("fp8_format"), py::arg("power_2_scale"),
        py::arg("amax_epsilon"), py::arg("amax"), py::arg("rht_amax"), py::arg("tiles_2d"), py::arg("dialect"),
        py::arg("random_hadamard"), py::arg("rht_signs"), py::arg("stochastic_rounding"), py::arg("stochastic_form"),
        py::arg("rbits"), py::arg("random_rowwise"), py::arg("random_columnwise"), py::arg("dequantize"));
}

}  // namespace softmx::py_binding
