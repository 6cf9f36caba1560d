// python/src/bind_stats.cpp: error statistics (softmx/stats.hpp), computed by the library.
#include <pybind11/stl.h>

#include "binding.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/stats.hpp"

namespace softmx::py_binding {
namespace {

/// The ErrorStats dictionary: one key a field, in the struct's order, then scale_histogram
/// (a uint64 array of 256 counts, or None without `histogram`).
py::dict stats_dict(const ErrorStats& s, bool histogram) {
  using namespace pybind11::literals;
  py::dict d("count"_a = s.count, "compared"_a = s.compared, "input_nan"_a = s.input_nan, "input_inf"_a = s.input_inf,
             "nan"_a = s.nan, "inf"_a = s.inf, "saturated"_a = s.saturated, "flushed_to_zero"_a = s.flushed_to_zero,
             "max_abs_error"_a = s.max_abs_error, "max_rel_error"_a = s.max_rel_error, "mean_error"_a = s.mean_error,
             "mse"_a = s.mse, "signal_power"_a = s.signal_power, "sqnr_db"_a = s.sqnr_db);
  if (histogram) {
    py::array h = new_array({256}, 8);
    std::copy(s.scale_histogram.begin(), s.scale_histogram.end(), static_cast<std::uint64_t*>(h.mutable_data()));
    d["scale_histogram"] = h;
  } else {
    d["scale_histogram"] = py::none();
  }
  return d;
}

void same_count(const py::array& x, std::size_t n, const char* what) {
  if (static_cast<std::size_t>(x.size()) != n)
    throw py::value_error(std::string("error_stats: x has ") + std::to_string(x.size()) + " elements and " + what +
                          " has " + std::to_string(n));
}

py::dict stats_arrays(const py::array& x, const std::string& x_src, const py::array& q, const std::string& q_src,
                      const std::optional<std::string>& element, long threads) {
  const FormatId xf = host_format_arg("x's format", x_src), qf = host_format_arg("q's format", q_src);
  std::optional<FormatId> e;
  if (element) e = format_arg("format", *element);
  require_storage(x, storage_bytes(xf), "x");
  require_storage(q, storage_bytes(qf), "q");
  same_count(x, static_cast<std::size_t>(q.size()), "q");
  const unsigned nthreads = threads_arg(threads);
  ErrorStats s;
  {
    py::gil_scoped_release release;
    s = error_stats(xf, x.data(), qf, q.data(), static_cast<std::size_t>(x.size()), e, nthreads);
  }
  return stats_dict(s, false);
}

py::dict stats_mx(const py::array& x, const std::string& x_src, const py::array& scales, const py::array& codes,
                  const std::string& element, long axis, std::size_t block, const std::string& dialect_name,
                  long threads, const std::string& scale_format) {
  const FormatId xf = host_format_arg("x's format", x_src);
  const Format e = mx_element_arg("format", element);
  const ScaleFormat sf = scale_format_arg(scale_format);
  const Dialect& dialect = dialect_arg(dialect_name);
  require_storage(x, storage_bytes(xf), "x");
  require_storage(scales, sf.code_bytes(), "scales");
  require_storage(codes, 1, "codes");
  const std::vector<std::size_t> shape = shape_of(codes);
  same_count(x, count_of(shape), "q");
  if (shape.empty() || axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
    throw py::value_error("error_stats: axis out of range");
  const MxTensorRef t{e, shape, static_cast<std::size_t>(axis), block,
                      std::span(static_cast<const std::uint8_t*>(scales.data()),
                                static_cast<std::size_t>(scales.size()) * sf.code_bytes()),
                      std::span(static_cast<const std::uint8_t*>(codes.data()), static_cast<std::size_t>(codes.size())),
                      sf};
  const unsigned nthreads = threads_arg(threads);
  ErrorStats s;
  {
    py::gil_scoped_release release;
    s = error_stats(xf, x.data(), t, dialect, nthreads);
  }
  return stats_dict(s, true);
}

py::dict stats_nvfp4(const py::array& x, const std::string& x_src, const py::array& scales, const py::array& codes,
                     long axis, std::uint32_t encode_scale, std::uint32_t global_amax, long threads) {
  const FormatId xf = host_format_arg("x's format", x_src);
  require_storage(x, storage_bytes(xf), "x");
  const Nvfp4Tensor t =
      nvfp4_tensor(scales, codes, axis, encode_scale, global_amax, [&](const std::vector<std::size_t>& shape) {
        same_count(x, static_cast<std::size_t>(codes.size()), "q");
        if (shape.empty() || axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
          throw py::value_error("error_stats: axis out of range");
      });
  const unsigned nthreads = threads_arg(threads);
  ErrorStats s;
  {
    py::gil_scoped_release release;
    s = error_stats(xf, x.data(), t, nthreads);
  }
  return stats_dict(s, true);
}

}  // namespace

void bind_stats(py::module_& m) {
  m.def("error_stats_arrays", &stats_arrays, py::arg("x"), py::arg("x_src"), py::arg("q"), py::arg("q_src"),
        py::arg("format"), py::arg("threads"));
  m.def("error_stats_mx", &stats_mx, py::arg("x"), py::arg("x_src"), py::arg("scales"), py::arg("codes"),
        py::arg("format"), py::arg("axis"), py::arg("block"), py::arg("dialect"), py::arg("threads"),
        py::arg("scale_format") = "e8m0");
  m.def("error_stats_nvfp4", &stats_nvfp4, py::arg("x"), py::arg("x_src"), py::arg("scales"), py::arg("codes"),
        py::arg("axis"), py::arg("encode_scale"), py::arg("global_amax"), py::arg("threads"));
}

}  // namespace softmx::py_binding
