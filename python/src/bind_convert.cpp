// python/src/bind_convert.cpp: conversions of whole arrays (Converter::run on every core).
#include <pybind11/stl.h>

#include "binding.hpp"
#include "out_array.hpp"
#include "softmx/convert.hpp"
#include "softmx/parallel.hpp"

namespace softmx::py_binding {
namespace {

/// Converts the codes of `in` (storage of src) into dst. Returns (codes, flags or None).
py::tuple convert_array(const py::array& in, const std::string& src, const std::string& dst,
                        const std::optional<std::string>& round, const std::optional<std::string>& sat,
                        const std::string& tininess, const std::string& dialect_name, std::optional<unsigned> rbits,
                        const std::optional<py::array>& random, bool want_flags, long threads,
                        const std::optional<py::array>& out_arg) {
  // Any format spec the CLI takes: named formats and runtime descriptors (one core serves both).
  const Format s = format_spec_arg("src", src), d = format_spec_arg("to", dst);
  const Dialect& dialect = dialect_arg(dialect_name);
  const Context ctx = conversion_context(d, dialect, round, sat, tininess, rbits);
  const bool rs = ctx.rounding == Rounding::rs;
  if (rs && !random)
    throw py::value_error("round='rs' needs random=...: one random value per element (an array of unsigned "
                          "integers below 2^rbits, rbits = " + std::to_string(ctx.rbits_width) + ")");
  if (!rs && random)
    throw py::value_error("random gives the random bits of round='rs'; the rounding here is '" +
                          std::string(name(ctx.rounding)) + "'");
  require_storage(in, storage_bytes(s), "x");
  const std::vector<std::size_t> shape = shape_of(in);
  const std::size_t n = count_of(shape);
  const std::uint64_t* rptr = nullptr;
  if (random) {
    require_storage(*random, 8, "random");
    if (count_of(shape_of(*random)) != n)
      throw py::value_error("random: expected one value per element (" + std::to_string(n) + "), got " +
                            std::to_string(count_of(shape_of(*random))));
    rptr = static_cast<const std::uint64_t*>(random->data());
  }
  const Converter conv(s, d, ctx, dialect);  // Unsupported (a ValueError) names what the dialect accepts
  py::array out = out_or_new(out_arg, shape, storage_bytes(d));  // out=: written in place
  py::object flags = py::none();
  Flags* fptr = nullptr;
  if (want_flags) {
    py::array f = new_array(shape, 1);
    fptr = static_cast<Flags*>(f.mutable_data());
    flags = f;
  }
  const void* iptr = in.data();
  void* optr = out.mutable_data();
  const unsigned nthreads = threads_arg(threads);
  {
    py::gil_scoped_release release;
    check_codes(iptr, n, s, "x");
    if (rptr) check_random(rptr, n, ctx.rbits_width);
    run_parallel(conv, iptr, optr, fptr, n, rptr, nthreads);
  }
  return py::make_tuple(out, flags);
}

}  // namespace

void bind_convert(py::module_& m) {
  m.def("convert", &convert_array, py::arg("x"), py::arg("src"), py::arg("to"), py::arg("round"), py::arg("sat"),
        py::arg("tininess"), py::arg("dialect"), py::arg("rbits"), py::arg("random"), py::arg("flags"),
        py::arg("threads"), py::arg("out") = py::none());
  m.def(
      "check_codes",
      [](const py::array& a, const std::string& fmt, const std::string& what) {
        const Format f = format_spec_arg("format", fmt, false);  // an internal check: the caller warned
        require_storage(a, storage_bytes(f), what.c_str());
        const void* p = a.data();
        const std::size_t n = static_cast<std::size_t>(a.size());
        py::gil_scoped_release release;
        check_codes(p, n, f, what.c_str());
      },
      py::arg("codes"), py::arg("format"), py::arg("what"));
}

}  // namespace softmx::py_binding
