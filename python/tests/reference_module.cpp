// python/tests/reference_module.cpp: _softmx_reference, the C++ library's reference paths for
// the Python tests (built in the build tree only, never installed).
//
// The tests compare the package (python/softmx over _softmx: vector kernels, threads, zero-copy
// views, option names) bit for bit with what these functions compute through other paths of
// the same library: convert() one value at a time on the scalar kernels, quantize_block() block
// by block on Isa::scalar (gathered here, not by tensor.cpp), dequantize_element() per element.
// Options arrive as the enums' numbers, which the tests take from their own table of the
// headers, so a name mapped to the wrong mode in the binding shows up as a mismatch.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/dot.hpp"
#include "softmx/nvfp4.hpp"

namespace py = pybind11;
using namespace softmx;

namespace {

using U64 = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;

const Dialect& dialect_at(int i) {
  const auto all = all_dialects();
  if (i < 0 || static_cast<std::size_t>(i) >= all.size()) throw py::value_error("dialect index out of range");
  return all[static_cast<std::size_t>(i)];
}

Context context(int rounding, int saturation, int tininess, int rbits_width) {
  Context c;
  c.rounding = static_cast<Rounding>(rounding);
  c.saturation = static_cast<Saturation>(saturation);
  c.tininess = static_cast<Tininess>(tininess);
  c.rbits_width = static_cast<std::uint8_t>(rbits_width);
  return c;
}

// convert() per element. Returns None when the dialect does not support the conversion, else
// (codes as uint64, flags as uint8).
py::object convert_scalar(int src, int dst, const U64& codes, int rounding, int saturation, int tininess,
                          int dialect, int rbits_width, std::optional<U64> random) {
  const Dialect& d = dialect_at(dialect);
  Context c = context(rounding, saturation, tininess, rbits_width);
  if (unsupported_reason(d, static_cast<FormatId>(dst), c)) return py::none();
  const std::size_t n = static_cast<std::size_t>(codes.size());
  py::array_t<std::uint64_t> out(codes.size());
  py::array_t<std::uint8_t> flags(codes.size());
  const std::uint64_t* in = codes.data();
  const std::uint64_t* r = random ? random->data() : nullptr;
  auto* o = out.mutable_data();
  auto* f = flags.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) {
      if (r) c.rbits = r[i];
      const Result x = convert(static_cast<FormatId>(src), static_cast<FormatId>(dst), in[i], c, d);
      o[i] = x.code;
      f[i] = x.flags;
    }
  }
  return py::make_tuple(out, flags);
}

// quantize_block per block, on Isa::scalar, with the blocks gathered here from the row-major
// tensor. rule/rounding/saturation < 0: unset (the dialect's). Returns (scales, codes, flags OR).
py::tuple quantize_scalar(int src, const U64& data, const std::vector<std::size_t>& shape, std::size_t axis,
                          std::size_t k, int element, int rule, int rounding, int saturation, int tininess,
                          int dialect, int rbits_width, std::optional<U64> random) {
  BlockOptions o;
  o.element = static_cast<FormatId>(element);
  o.dialect = &dialect_at(dialect);
  if (rule >= 0) o.rule = static_cast<ScaleRule>(rule);
  if (rounding >= 0) o.rounding = static_cast<Rounding>(rounding);
  if (saturation >= 0) o.saturation = static_cast<Saturation>(saturation);
  o.tininess = static_cast<Tininess>(tininess);
  o.rbits_width = static_cast<std::uint8_t>(rbits_width);
  o.isa = Isa::scalar;
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[axis], nb = (len + k - 1) / k, n = outer * len * inner;
  const int width = format(static_cast<FormatId>(src)).width;
  const std::size_t bytes = width / 8;
  std::vector<std::uint8_t> scales(outer * nb * inner), codes(n);
  Flags all = 0;
  std::vector<unsigned char> block(k * bytes);
  std::vector<std::uint64_t> rb(k);
  for (std::size_t oi = 0; oi < outer; ++oi)
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t ni = 0; ni < inner; ++ni) {
        const std::size_t cnt = std::min(k, len - b * k);
        for (std::size_t j = 0; j < cnt; ++j) {
          const std::size_t at = (oi * len + b * k + j) * inner + ni;
          const std::uint64_t v = data.data()[at];
          std::memcpy(&block[j * bytes], &v, bytes);  // little-endian: the low bytes
          if (random) rb[j] = random->data()[at];
        }
        BlockOptions bo = o;
        if (random) bo.rbits = std::span<const std::uint64_t>(rb.data(), cnt);
        const QuantizedBlock q = quantize_block(static_cast<FormatId>(src), block.data(), cnt, bo);
        scales[(oi * nb + b) * inner + ni] = q.scale;
        for (std::size_t j = 0; j < cnt; ++j) codes[(oi * len + b * k + j) * inner + ni] = q.codes[j];
        all |= q.flags;
      }
  return py::make_tuple(py::array_t<std::uint8_t>(scales.size(), scales.data()),
                        py::array_t<std::uint8_t>(codes.size(), codes.data()), static_cast<unsigned>(all));
}

// dequantize_element per element. Returns (codes as uint64, flags OR).
py::tuple dequantize_scalar(int element, const py::array_t<std::uint8_t>& scales, const py::array_t<std::uint8_t>& codes,
                            const std::vector<std::size_t>& shape, std::size_t axis, std::size_t k, int dst,
                            int rounding, int saturation, int tininess, int dialect) {
  const Dialect& d = dialect_at(dialect);
  const Context c = context(rounding, saturation, tininess, 32);
  std::size_t outer = 1, inner = 1;
  for (std::size_t x = 0; x < axis; ++x) outer *= shape[x];
  for (std::size_t x = axis + 1; x < shape.size(); ++x) inner *= shape[x];
  const std::size_t len = shape[axis], nb = (len + k - 1) / k;
  py::array_t<std::uint64_t> out(codes.size());
  Flags all = 0;
  for (std::size_t oi = 0; oi < outer; ++oi)
    for (std::size_t a = 0; a < len; ++a)
      for (std::size_t ni = 0; ni < inner; ++ni) {
        const std::size_t at = (oi * len + a) * inner + ni;
        const Result r = dequantize_element(static_cast<FormatId>(element), scales.data()[(oi * nb + a / k) * inner + ni],
                                            codes.data()[at], static_cast<FormatId>(dst), c, d);
        out.mutable_data()[at] = r.code;
        all |= r.flags;
      }
  return py::make_tuple(out, static_cast<unsigned>(all));
}

// dot_general for every pair (row i of A, row j of B): A is M x K codes (row-major) with
// M x nb scales, B is N x K codes with N x nb scales (B's columns as rows, made by the test).
// Returns (f32 codes M*N, flags M*N).
py::tuple dot_rows(int a_fmt, const py::array_t<std::uint8_t>& a_scales, const py::array_t<std::uint8_t>& a_codes,
                   int b_fmt, const py::array_t<std::uint8_t>& b_scales, const py::array_t<std::uint8_t>& b_codes,
                   std::size_t M, std::size_t N, std::size_t K, std::size_t k, const std::string& model, int rounding,
                   int saturation) {
  const AccumulationModel* m = find_accumulation_model(model);
  if (!m) throw py::value_error("unknown model");
  const Context c = context(rounding, saturation, 0, 32);
  const std::size_t nb = (K + k - 1) / k;
  py::array_t<std::uint32_t> out(M * N);
  py::array_t<std::uint8_t> flags(M * N);
  std::vector<BlockRef> ra(nb), rb(nb);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * k, cnt = std::min(k, K - first);
        ra[b] = BlockRef{static_cast<FormatId>(a_fmt), a_scales.data()[i * nb + b],
                         std::span(a_codes.data() + i * K + first, cnt)};
        rb[b] = BlockRef{static_cast<FormatId>(b_fmt), b_scales.data()[j * nb + b],
                         std::span(b_codes.data() + j * K + first, cnt)};
      }
      const Result r = dot_general(ra, rb, c, *m);
      out.mutable_data()[i * N + j] = static_cast<std::uint32_t>(r.code);
      flags.mutable_data()[i * N + j] = r.flags;
    }
  return py::make_tuple(out, flags);
}

// quantize_nvfp4 and dequantize_nvfp4 called directly with the enums' numbers (stochastic form:
// 0 software, 1 rs; dequantization: 0 exact, 1 te_kernel). Returns (scales, codes, dequantized f32).
py::tuple nvfp4_direct(const py::array_t<std::uint32_t>& x, const std::vector<std::size_t>& shape, std::size_t axis,
                       int rounding, int form, int rbits_width, std::optional<U64> random, int dequant) {
  Nvfp4Options o;
  o.rounding = static_cast<Rounding>(rounding);
  o.stochastic_form = form == 0 ? StochasticForm::software : StochasticForm::rs;
  o.rbits_width = static_cast<std::uint8_t>(rbits_width);
  if (random) o.rbits = std::span<const std::uint64_t>(random->data(), static_cast<std::size_t>(random->size()));
  const Nvfp4Tensor t = quantize_nvfp4(FormatId::f32, x.data(), shape, axis, o);
  py::array_t<std::uint32_t> deq(t.codes.size());
  Context c;
  dequantize_nvfp4(t, FormatId::f32, deq.mutable_data(), c,
                   dequant == 0 ? Nvfp4Dequantization::exact : Nvfp4Dequantization::te_kernel);
  return py::make_tuple(py::array_t<std::uint8_t>(t.scales.size(), t.scales.data()),
                        py::array_t<std::uint8_t>(t.codes.size(), t.codes.data()), deq);
}

// The C++ block quantizer's own time for `reps` calls of quantize_tensor on f32 data (the
// benchmark's peer, measured in the same process): seconds per call, the best of `reps`.
double time_quantize_tensor(const py::array_t<float, py::array::c_style>& x, std::size_t k, int element, int reps) {
  const std::vector<std::size_t> shape{static_cast<std::size_t>(x.size())};
  BlockOptions o;
  o.element = static_cast<FormatId>(element);
  double best = 1e30;
  py::gil_scoped_release release;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const MxTensor t = quantize_tensor(FormatId::f32, x.data(), shape, 0, k, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t.codes.empty() && x.size()) throw std::runtime_error("no codes");
    best = std::min(best, s);
  }
  return best;
}

}  // namespace

PYBIND11_MODULE(_softmx_reference, m) {
  m.doc() = "softmx's reference paths for the Python tests (build tree only)";
  m.def("convert_scalar", &convert_scalar);
  m.def("quantize_scalar", &quantize_scalar);
  m.def("dequantize_scalar", &dequantize_scalar);
  m.def("time_quantize_tensor", &time_quantize_tensor);
  m.def("dot_rows", &dot_rows);
  m.def("nvfp4_direct", &nvfp4_direct);
  m.def("dialect_names", [] {
    py::list l;
    for (const Dialect& d : all_dialects()) l.append(std::string(d.name));
    return l;
  });
}
