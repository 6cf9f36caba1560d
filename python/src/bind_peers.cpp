// python/src/bind_peers.cpp: the seeds' own workflows as the library models them: torchmx's
// quantize_mx / MXTensor.to_mx / dequantize_mx / to_dtype / matmul / linear (softmx/torchmx.hpp)
// and pychop's mx_quantize with its MXSpec and statistics() (softmx/pychop.hpp).
//
// Argument translation only: names through the library's parsers, numpy arrays to spans, the
// library's std::invalid_argument to ValueError. The Python layer (python/softmx/_peers.py) gives
// the arrays in the storage types these functions read (bf16 as uint16, f32 as uint32, f64 as
// uint64, C-contiguous).
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "binding.hpp"
#include "softmx/pychop.hpp"
#include "softmx/torchmx.hpp"

namespace softmx::py_binding {
namespace {

template <class T>
py::array to_array(const std::vector<T>& v, const std::vector<std::size_t>& shape) {
  py::array a = new_array(shape, sizeof(T));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

TorchmxPath path_arg(const std::string& name) {
  if (auto p = parse_torchmx_path(name)) return *p;
  throw py::value_error("path expects 'simulated' or 'hardware-exact' (MX_HARDWARE_EXACT_QUANTIZATION=True), got '" +
                        name.substr(0, 80) + "'");
}

TorchmxAccumulation acc_arg(const std::string& name) {
  if (auto a = parse_torchmx_accumulation(name)) return *a;
  throw py::value_error("acc expects 'exact-f32' or 'fp32-sequential', got '" + name.substr(0, 80) + "'");
}

FormatId bf16_or_f32(const std::string& target) {
  const FormatId t = format_arg("target_dtype", target);
  if (t != FormatId::bf16 && t != FormatId::f32)
    throw py::value_error("target_dtype must be bf16 or f32 (torchmx dequantizes to those), not '" + target + "'");
  return t;
}

TorchmxTensor quantize(const py::array& x, const std::string& elem, std::size_t block, const std::string& path, bool to_mx) {
  require_storage(x, 2, "data_hp");
  const auto shape = shape_of(x);
  const TorchmxPath p = path_arg(path);
  const auto* d = static_cast<const std::uint16_t*>(x.data());
  py::gil_scoped_release nogil;
  return library([&] {
    return to_mx ? torchmx_to_mx(d, shape, elem, block, p) : torchmx_quantize_mx(d, shape, elem, block, p);
  });
}

py::tuple dequantize_mx(const py::array& data, const py::array& scale, const std::string& elem, std::size_t block,
                        const std::string& target, long block_dim) {
  require_storage(data, 1, "data_lp");
  require_storage(scale, 1, "shared_exp_e8m0");
  const FormatId t = bf16_or_f32(target);
  const auto dshape = shape_of(data), sshape = shape_of(scale);
  if (block_dim < 0) block_dim += static_cast<long>(dshape.size());
  if (block_dim < 0 || block_dim >= static_cast<long>(dshape.size()))
    throw py::value_error("block_dim " + std::to_string(block_dim) + " is out of range for data_lp of rank " +
                          std::to_string(dshape.size()));
  // The unpacked shape is the scale's with block_dim times block_size.
  std::vector<std::size_t> out_shape = sshape;
  if (out_shape.size() != dshape.size())
    throw py::value_error("shared_exp_e8m0 must have data_lp's rank " + std::to_string(dshape.size()) + ", got " +
                          std::to_string(out_shape.size()));
  out_shape[static_cast<std::size_t>(block_dim)] *= block;
  py::array out = new_array(out_shape, t == FormatId::bf16 ? 2 : 4);
  const std::span<const std::uint8_t> ds(static_cast<const std::uint8_t*>(data.data()), static_cast<std::size_t>(data.size()));
  const std::span<const std::uint8_t> ss(static_cast<const std::uint8_t*>(scale.data()), static_cast<std::size_t>(scale.size()));
  void* o = out.mutable_data();
  Flags f = 0;
  {
    py::gil_scoped_release nogil;
    f = library([&] {
      return torchmx_dequantize_mx(ds, dshape, ss, sshape, elem, block, t, static_cast<std::size_t>(block_dim), o);
    });
  }
  return py::make_tuple(out, static_cast<unsigned>(f));
}

py::tuple to_dtype(const TorchmxTensor& t, const std::string& target) {
  const FormatId f = bf16_or_f32(target);
  py::array out = new_array(t.shape, f == FormatId::bf16 ? 2 : 4);
  void* o = out.mutable_data();
  Flags fl = 0;
  {
    py::gil_scoped_release nogil;
    fl = library([&] { return torchmx_to_dtype(t, f, o); });
  }
  return py::make_tuple(out, static_cast<unsigned>(fl));
}

py::tuple matmul_result(const TorchmxMatmul& m) {
  return py::make_tuple(to_array(m.c, {m.rows, m.cols}), static_cast<unsigned>(m.flags));
}

PychopFormat pychop_format_arg(const py::object& format) {
  if (py::isinstance<py::str>(format)) return PychopFormat::named(format.cast<std::string>());
  if (py::isinstance<PychopSpec>(format)) return PychopFormat::of(format.cast<PychopSpec>());
  if (py::isinstance<py::tuple>(format) && py::len(format) == 2) {
    const auto t = format.cast<py::tuple>();
    return PychopFormat::tuple(t[0].cast<int>(), t[1].cast<int>());
  }
  throw py::type_error("format must be a name ('mxfp8_e4m3', ...), an MXSpec (softmx.pychop_spec) or an "
                       "(exp_bits, sig_bits) tuple, got " + std::string(py::str(py::type::of(format).attr("__name__"))));
}

PychopOptions pychop_options(std::size_t block, std::optional<int> sexp, std::optional<int> ssig, const std::string& backend,
                             const std::string& numpy) {
  PychopOptions o;
  o.block_size = block;
  o.scale_exp_bits = sexp;
  o.scale_sig_bits = ssig;
  if (auto b = parse_pychop_backend(backend)) o.backend = *b;
  else throw py::value_error("backend expects 'numpy', 'torch' or 'jax', got '" + backend.substr(0, 80) + "'");
  if (auto n = parse_pychop_numpy(numpy)) o.numpy = *n;
  else throw py::value_error("numpy expects '2' (NumPy >= 2, NEP 50) or '1', got '" + numpy.substr(0, 80) + "'");
  return o;
}

/// pychop's get_statistics() dictionary: one keyword a field, in pychop's order.
py::dict statistics_dict(const PychopStatistics& s) {
  using namespace pybind11::literals;
  return py::dict("format"_a = s.format, "exp_bits"_a = s.exp_bits, "sig_bits"_a = s.sig_bits,
                  "block_size"_a = s.block_size, "scale_exp_bits"_a = s.scale_exp_bits,
                  "original_shape"_a = py::tuple(py::cast(s.original_shape)), "num_blocks"_a = s.num_blocks,
                  "total_elements"_a = s.total_elements, "compression_ratio_fp32"_a = s.compression_ratio_fp32,
                  "compression_ratio_fp16"_a = s.compression_ratio_fp16, "bits_per_element"_a = s.bits_per_element);
}

}  // namespace

void bind_peers(py::module_& m) {
  py::class_<TorchmxTensor>(m, "TorchmxTensorCore")
      .def_property_readonly("element", [](const TorchmxTensor& t) { return std::string(torchmx_element_name(t.element)); })
      .def_property_readonly("block_size", [](const TorchmxTensor& t) { return t.block_size; })
      .def_property_readonly("shape", [](const TorchmxTensor& t) { return py::tuple(py::cast(t.shape)); })
      .def_property_readonly("scale", [](const TorchmxTensor& t) { return to_array(t.scale, t.scale_shape); })
      .def_property_readonly("data", [](const TorchmxTensor& t) { return to_array(t.data, t.data_shape); })
      .def_property_readonly("padding", [](const TorchmxTensor& t) { return t.padding; })
      .def_property_readonly("flags", [](const TorchmxTensor& t) { return static_cast<unsigned>(t.flags); });
  m.def("torchmx_quantize", &quantize, py::arg("x"), py::arg("elem"), py::arg("block"), py::arg("path"), py::arg("to_mx"));
  m.def("torchmx_dequantize_mx", &dequantize_mx, py::arg("data"), py::arg("scale"), py::arg("elem"), py::arg("block"),
        py::arg("target"), py::arg("block_dim"));
  m.def("torchmx_to_dtype", &to_dtype, py::arg("t"), py::arg("target"));
  m.def("torchmx_matmul", [](const TorchmxTensor& a, const TorchmxTensor& b, const std::string& acc) {
    const TorchmxAccumulation ac = acc_arg(acc);
    return matmul_result(library([&] { return torchmx_matmul(a, b, ac); }));
  }, py::arg("a"), py::arg("b"), py::arg("acc"));
  m.def("torchmx_linear", [](const TorchmxTensor& a, const TorchmxTensor& w, const std::optional<py::array>& bias,
                             const std::string& acc) {
    const TorchmxAccumulation ac = acc_arg(acc);
    std::optional<std::span<const std::uint16_t>> b;
    if (bias) {
      require_storage(*bias, 2, "bias");
      b = std::span(static_cast<const std::uint16_t*>(bias->data()), static_cast<std::size_t>(bias->size()));
    }
    return matmul_result(library([&] { return torchmx_linear(a, w, b, ac); }));
  }, py::arg("a"), py::arg("w"), py::arg("bias"), py::arg("acc"));

  py::class_<PychopSpec>(m, "MXSpec")
      .def_readonly("name", &PychopSpec::name)
      .def_readonly("exp_bits", &PychopSpec::exp_bits)
      .def_readonly("sig_bits", &PychopSpec::sig_bits)
      .def_readonly("block_size", &PychopSpec::block_size)
      .def_readonly("scale_exp_bits", &PychopSpec::scale_exp_bits)
      .def_readonly("scale_sig_bits", &PychopSpec::scale_sig_bits)
      .def_property_readonly("element_bits", &PychopSpec::element_bits)
      .def_property_readonly("total_bits_per_block", &PychopSpec::total_bits_per_block)
      .def_property_readonly("compression_vs_fp32", &PychopSpec::compression_vs_fp32)
      .def_property_readonly("compression_vs_fp16", &PychopSpec::compression_vs_fp16)
      .def("__repr__", [](const PychopSpec& s) {
        return "MXSpec(name='" + s.name + "', exp_bits=" + std::to_string(s.exp_bits) + ", sig_bits=" +
               std::to_string(s.sig_bits) + ", block_size=" + std::to_string(s.block_size) + ", scale_exp_bits=" +
               std::to_string(s.scale_exp_bits) + ")";
      });
  m.def("pychop_named_specs", [] {
    py::dict d;
    for (const PychopNamedSpec& s : pychop_named_specs()) d[py::str(std::string(s.key))] = s.spec;
    return d;
  });
  m.def("pychop_custom_spec", [](int e, int s, std::size_t block, int sexp, const std::string& name) {
    return library([&] { return pychop_custom_spec(e, s, block, sexp, name); });
  }, py::arg("exp_bits"), py::arg("sig_bits"), py::arg("block_size"), py::arg("scale_exp_bits"), py::arg("name"));
  m.def("pychop_mx_quantize", [](const py::array& x, const std::string& src, const py::object& fmt, std::size_t block,
                                 std::optional<int> sexp, std::optional<int> ssig, const std::string& backend,
                                 const std::string& numpy) {
    const FormatId s = format_arg("data", src);
    require_storage(x, s == FormatId::f64 ? 8 : 4, "data");
    const PychopFormat f = pychop_format_arg(fmt);
    const PychopOptions o = pychop_options(block, sexp, ssig, backend, numpy);
    const auto shape = shape_of(x);
    const void* d = x.data();
    PychopResult r;
    {
      py::gil_scoped_release nogil;
      r = library([&] { return pychop_mx_quantize(s, d, shape, f, o); });
    }
    const PychopStatistics st = library([&] { return pychop_statistics(r.spec, r.shape); });
    py::dict out;
    out["spec"] = r.spec;
    out["value_format"] = std::string(format(r.value_format).name);
    if (r.value_format == FormatId::f64) {
      out["values"] = to_array(r.values, r.shape);
    } else {
      std::vector<std::uint32_t> v(r.values.begin(), r.values.end());
      out["values"] = to_array(v, r.shape);
    }
    out["element"] = std::string(r.element.name());
    out["num_blocks"] = r.num_blocks;
    out["scales"] = to_array(r.scales, {r.scales.size()});
    out["codes"] = to_array(r.codes, {r.codes.size()});
    out["uncoded"] = to_array(std::vector<std::uint64_t>(r.uncoded.begin(), r.uncoded.end()), {r.uncoded.size()});
    out["flags"] = static_cast<unsigned>(r.flags);
    out["statistics"] = statistics_dict(st);
    return out;
  }, py::arg("x"), py::arg("src"), py::arg("format"), py::arg("block_size"), py::arg("scale_exp_bits"),
        py::arg("scale_sig_bits"), py::arg("backend"), py::arg("numpy"));
}

}  // namespace softmx::py_binding
