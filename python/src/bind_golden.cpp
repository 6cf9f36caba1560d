// python/src/bind_golden.cpp: the seed-003 MX-FP4 GEMM golden generator, `softmx gemm-golden
// --layout lut-argmin` (softmx/lut_argmin_files.hpp: the same function the CLI calls, so the
// same bytes), and the generator's per-matrix quantization (softmx/lut_argmin.hpp).
//
// Argument translation only. The CLI's limits are the library's: sizes of at least 1; the CLI's
// upper bounds (2^26 values per matrix) are the Python layer's, with the same message.
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/stl.h>

#include "binding.hpp"
#include "softmx/lut_argmin.hpp"
#include "softmx/lut_argmin_files.hpp"

namespace softmx::py_binding {
namespace {

LutFormat lut_format_arg(const char* argument, const std::string& name) {
  if (auto f = parse_lut_format(name)) return *f;
  throw py::value_error(std::string(argument) + " expects e2m1 or e1m2 (the generator's FP4 tables), got '" +
                        name.substr(0, 80) + "'");
}

Log2Model log2_arg(const std::string& name) {
  if (name == "rounded") return Log2Model::correctly_rounded_f32;
  if (name == "exact") return Log2Model::exact;
  throw py::value_error("log2 expects 'rounded' or 'exact', got '" + name.substr(0, 80) + "'");
}

std::span<const std::uint32_t> f32_span(const py::array& x, const char* what, std::size_t rows, std::size_t cols) {
  require_storage(x, 4, what);
  if (x.ndim() != 2 || static_cast<std::size_t>(x.shape(0)) != rows || static_cast<std::size_t>(x.shape(1)) != cols)
    throw py::value_error(std::string(what) + " must have shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                          "), got " + std::string(py::str(py::tuple(py::cast(shape_of(x))))));
  return {static_cast<const std::uint32_t*>(x.data()), rows * cols};
}

/// Returns ([(path, layout, bytes), ...], expected_flags); writes them under `out` when given.
py::tuple golden(std::size_t m, std::size_t n, std::size_t k, bool trans_a, bool trans_b, const std::string& a_format,
                 const std::string& b_format, std::uint64_t seed, const std::string& log2,
                 const std::optional<py::array>& a_in, const std::optional<py::array>& b_in, const std::string& command,
                 const std::optional<std::string>& out) {
  const LutGemmOptions o{.m = m, .n = n, .k = k, .trans_a = trans_a, .trans_b = trans_b,
                         .a = lut_format_arg("a", a_format), .b = lut_format_arg("b", b_format),
                         .log2 = log2_arg(log2)};
  if (a_in.has_value() != b_in.has_value()) throw py::value_error("inputs needs both matrices, (A, B)");
  std::span<const std::uint32_t> A, B;
  if (a_in) {
    A = f32_span(*a_in, "inputs[0] (A)", m, k);
    B = f32_span(*b_in, "inputs[1] (B)", k, n);
  }
  LutGoldenOutput g;
  {
    py::gil_scoped_release nogil;
    try {
      g = a_in ? lut_argmin_golden_output(A, B, o, command) : lut_argmin_golden_output(o, seed, command);
    } catch (const std::invalid_argument& e) {
      py::gil_scoped_acquire gil;
      throw py::value_error(e.what());
    }
    if (out) write_lut_argmin_golden(*out, g);  // vec::OutputError: OSError (bind_vectors' translator)
  }
  py::list files;
  for (const LutGoldenFile& f : g.files)
    files.append(py::make_tuple(f.path, f.layout,
                                py::bytes(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size())));
  return py::make_tuple(files, static_cast<unsigned>(g.expected_flags));
}

/// _quantize(matrix, fmt, axis) of the script: (index, dequantized f32 bits, scales) arrays.
py::tuple quantize(const py::array& x, const std::string& fmt, int axis, const std::string& log2) {
  require_storage(x, 4, "x");
  if (x.ndim() != 2) throw py::value_error("x must be a 2-d matrix, got " + std::to_string(x.ndim()) + " dimensions");
  if (axis != 0 && axis != 1) throw py::value_error("axis must be 0 (blocks down each column) or 1 (along each row), got " + std::to_string(axis));
  const LutFormat f = lut_format_arg("fmt", fmt);
  const Log2Model l = log2_arg(log2);
  const auto shape = shape_of(x);
  const std::span<const std::uint32_t> in(static_cast<const std::uint32_t*>(x.data()), shape[0] * shape[1]);
  LutQuantized q;
  {
    py::gil_scoped_release nogil;
    try {
      q = lut_argmin_quantize(f, in, shape[0], shape[1], axis, l);
    } catch (const std::invalid_argument& e) {
      py::gil_scoped_acquire gil;
      throw py::value_error(e.what());
    }
  }
  py::array index = new_array(shape, 1), deq = new_array(shape, 4);
  const std::size_t nb_even = q.nb + (q.nb & 1);
  py::array scales = new_array(axis == 1 ? std::vector<std::size_t>{shape[0], nb_even} : std::vector<std::size_t>{nb_even, shape[1]}, 1);
  if (!q.index.empty()) std::memcpy(index.mutable_data(), q.index.data(), q.index.size());
  if (!q.dequantized.empty()) std::memcpy(deq.mutable_data(), q.dequantized.data(), q.dequantized.size() * 4);
  if (!q.scales.empty()) std::memcpy(scales.mutable_data(), q.scales.data(), q.scales.size());
  return py::make_tuple(index, deq, scales);
}

}  // namespace

void bind_golden(py::module_& m) {
  m.def("lut_argmin_golden", &golden, py::arg("m"), py::arg("n"), py::arg("k"), py::arg("trans_a"), py::arg("trans_b"),
        py::arg("a"), py::arg("b"), py::arg("seed"), py::arg("log2"), py::arg("a_in"), py::arg("b_in"),
        py::arg("command"), py::arg("out"));
  m.def("gemm_golden_inputs", [](std::uint64_t seed, std::size_t count) {
    std::vector<std::uint32_t> v;
    {
      py::gil_scoped_release nogil;
      v = gemm_golden_inputs(seed, count);
    }
    py::array a = new_array({count}, 4);
    if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * 4);
    return a;
  }, py::arg("seed"), py::arg("count"));
  m.def("lut_argmin_quantize", &quantize, py::arg("x"), py::arg("fmt"), py::arg("axis"), py::arg("log2"));
}

}  // namespace softmx::py_binding
