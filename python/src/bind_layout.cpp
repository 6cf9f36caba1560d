// python/src/bind_layout.cpp: the scale layouts of softmx/scale_layout.hpp (docs/RECIPES.md 6):
// the cuBLAS/cuDNN 128x4 swizzled tiles, torchao's to_blocked / from_blocked, the seed-003
// generator's paired layout, and TransformerEngine's compact padded tensors.
//
// Argument translation only: a layout name (and, for the paired layout, the operand and its
// trans flag) picks the library function; the library does the work and its invalid_argument
// becomes ValueError. Index arguments are checked against the padded extent here, because the
// library's *_index functions take them as preconditions.
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/stl.h>

#include "binding.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx::py_binding {
namespace {

enum class Layout { swizzled_128x4, torchao, paired };

Layout layout_arg(const std::string& name) {
  if (name == "cublas-128x4" || name == "swizzled-128x4" || name == "128x4") return Layout::swizzled_128x4;
  if (name == "torchao" || name == "to_blocked") return Layout::torchao;
  if (name == "paired") return Layout::paired;
  throw py::value_error("unknown scale layout '" + name.substr(0, 80) +
                        "' for layout (expected cublas-128x4, torchao or paired)");
}

/// The paired layout needs its operand; the others refuse one (so a misplaced option is not
/// silently ignored).
PairedOperand operand_arg(Layout l, const std::optional<std::string>& operand, bool transposed) {
  if (l != Layout::paired) {
    if (operand) throw py::value_error("operand applies to layout='paired' only, got operand='" + operand->substr(0, 80) + "'");
    if (transposed) throw py::value_error("transposed applies to layout='paired' only (the trans_a / trans_b flag)");
    return PairedOperand::a;
  }
  if (!operand)
    throw py::value_error("layout='paired' needs operand='a' (scales of A, shape (m, nb)) or 'b' (scales of B, shape (nb, n))");
  if (*operand == "a" || *operand == "A") return PairedOperand::a;
  if (*operand == "b" || *operand == "B") return PairedOperand::b;
  throw py::value_error("operand must be 'a' or 'b', got '" + operand->substr(0, 80) + "'");
}

py::array bytes_array(const std::vector<std::uint8_t>& v, std::vector<std::size_t> shape) {
  py::array a = new_array(shape, 1);
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size());
  return a;
}

std::size_t layout_size(std::size_t rows, std::size_t cols, const std::string& layout,
                        const std::optional<std::string>& operand) {
  const Layout l = layout_arg(layout);
  const PairedOperand op = operand_arg(l, operand, false);
  if (l == Layout::paired) return paired_size(op, rows, cols);
  return swizzled_128x4_size(rows, cols);
}

std::size_t layout_index(std::size_t r, std::size_t c, std::size_t rows, std::size_t cols, const std::string& layout,
                         const std::optional<std::string>& operand, bool transposed) {
  const Layout l = layout_arg(layout);
  const PairedOperand op = operand_arg(l, operand, transposed);
  std::size_t rmax = 0, cmax = 0;  // the padded extent, exclusive
  if (l == Layout::paired) {
    // The padding K-block (index nb when nb is odd) is addressable.
    const std::size_t nb = op == PairedOperand::a ? cols : rows;
    const std::size_t nb_even = nb + (nb & 1);
    rmax = op == PairedOperand::a ? rows : nb_even;
    cmax = op == PairedOperand::a ? nb_even : cols;
  } else {
    rmax = (rows + 127) / 128 * 128;
    cmax = (cols + 3) / 4 * 4;
  }
  if (rows == 0 || cols == 0) throw py::value_error("shape must have rows >= 1 and cols >= 1 for an index");
  if (r >= rmax || c >= cmax)
    throw py::value_error("index (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the padded " +
                          std::to_string(rmax) + " x " + std::to_string(cmax) + " scale matrix of layout '" + layout + "'");
  if (l == Layout::paired) return paired_index(op, transposed, r, c, rows, cols);
  return swizzled_128x4_index(r, c, cols);
}

py::array encode_layout(const py::array& scales, const std::string& layout, const std::optional<std::string>& operand,
                        bool transposed, std::optional<unsigned> pad) {
  require_storage(scales, 1, "scales");
  const Layout l = layout_arg(layout);
  const PairedOperand op = operand_arg(l, operand, transposed);
  if (scales.ndim() != 2) throw py::value_error("scales must be a 2-d (rows, cols) matrix, got " + std::to_string(scales.ndim()) + " dimensions");
  const auto shape = shape_of(scales);
  const std::span<const std::uint8_t> s(static_cast<const std::uint8_t*>(scales.data()), static_cast<std::size_t>(scales.size()));
  if (pad && l != Layout::swizzled_128x4)
    throw py::value_error(std::string("pad applies to layout='cublas-128x4' only (") +
                          (l == Layout::torchao ? "torchao's to_blocked pads with 0x00" : "the paired layout pads with 0x7F, E8M0 1.0") + ")");
  if (pad && *pad > 0xFF) throw py::value_error("pad must be a byte, 0 to 255, got " + std::to_string(*pad));
  std::vector<std::uint8_t> out;
  {
    py::gil_scoped_release nogil;
    out = library([&] {
      switch (l) {
        case Layout::swizzled_128x4: return encode_swizzled_128x4(s, shape[0], shape[1], static_cast<std::uint8_t>(pad.value_or(0)));
        case Layout::torchao: return torchao_to_blocked(s, shape[0], shape[1]);
        default: return encode_paired(s, shape[0], shape[1], op, transposed);
      }
    });
  }
  return bytes_array(out, {out.size()});
}

py::array decode_layout(const py::array& buffer, std::size_t rows, std::size_t cols, const std::string& layout,
                        const std::optional<std::string>& operand, bool transposed) {
  require_storage(buffer, 1, "buffer");
  const Layout l = layout_arg(layout);
  const PairedOperand op = operand_arg(l, operand, transposed);
  if (buffer.ndim() != 1) throw py::value_error("buffer must be 1-d (the layout's bytes), got " + std::to_string(buffer.ndim()) + " dimensions");
  const std::span<const std::uint8_t> b(static_cast<const std::uint8_t*>(buffer.data()), static_cast<std::size_t>(buffer.size()));
  std::vector<std::uint8_t> out;
  {
    py::gil_scoped_release nogil;
    out = library([&] {
      switch (l) {
        case Layout::swizzled_128x4: return decode_swizzled_128x4(b, rows, cols);
        case Layout::torchao: return torchao_from_blocked(b, rows, cols);
        default: return decode_paired(b, rows, cols, op, transposed);
      }
    });
  }
  return bytes_array(out, {rows, cols});
}

py::array pad_scale_matrix(const py::array& scales, bool transpose, std::size_t row_multiple, std::size_t col_multiple,
                           std::uint32_t pad) {
  require_storage(scales, 4, "scales");
  if (scales.ndim() != 2) throw py::value_error("scales must be a 2-d (rows, cols) matrix, got " + std::to_string(scales.ndim()) + " dimensions");
  const auto shape = shape_of(scales);
  const std::span<const std::uint32_t> s(static_cast<const std::uint32_t*>(scales.data()), static_cast<std::size_t>(scales.size()));
  PaddedScales p = library([&] { return pad_scales(s, shape[0], shape[1], transpose, row_multiple, col_multiple, pad); });
  py::array a = new_array({p.rows, p.cols}, 4);
  if (!p.codes.empty()) std::memcpy(a.mutable_data(), p.codes.data(), p.codes.size() * 4);
  return a;
}

py::array unpad_scale_matrix(const py::array& padded, std::size_t rows, std::size_t cols, bool transpose,
                             std::size_t row_multiple, std::size_t col_multiple) {
  require_storage(padded, 4, "padded");
  if (padded.ndim() != 2)
    throw py::value_error("padded must be a 2-d (rows, cols) tensor, got " + std::to_string(padded.ndim()) + " dimensions");
  const auto shape = shape_of(padded);
  const auto want = library([&] { return padded_scales_shape(rows, cols, transpose, row_multiple, col_multiple); });
  if (shape[0] != want.first || shape[1] != want.second)
    throw py::value_error("padded has shape (" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) +
                          "), but a (" + std::to_string(rows) + ", " + std::to_string(cols) + ") scale matrix" +
                          (transpose ? " transposed" : "") + " padded to multiples of (" + std::to_string(row_multiple) +
                          ", " + std::to_string(col_multiple) + ") has (" + std::to_string(want.first) + ", " +
                          std::to_string(want.second) + ")");
  const std::span<const std::uint32_t> p(static_cast<const std::uint32_t*>(padded.data()), static_cast<std::size_t>(padded.size()));
  const std::vector<std::uint32_t> s = library([&] { return unpad_scales(p, rows, cols, transpose, row_multiple, col_multiple); });
  py::array a = new_array({rows, cols}, 4);
  if (!s.empty()) std::memcpy(a.mutable_data(), s.data(), s.size() * 4);
  return a;
}

}  // namespace

void bind_layout(py::module_& m) {
  m.def("layout_size", &layout_size, py::arg("rows"), py::arg("cols"), py::arg("layout"), py::arg("operand"));
  m.def("layout_index", &layout_index, py::arg("r"), py::arg("c"), py::arg("rows"), py::arg("cols"), py::arg("layout"),
        py::arg("operand"), py::arg("transposed"));
  m.def("layout_encode", &encode_layout, py::arg("scales"), py::arg("layout"), py::arg("operand"), py::arg("transposed"),
        py::arg("pad"));
  m.def("layout_decode", &decode_layout, py::arg("buffer"), py::arg("rows"), py::arg("cols"), py::arg("layout"),
        py::arg("operand"), py::arg("transposed"));
  m.def("pad_scales", &pad_scale_matrix, py::arg("scales"), py::arg("transpose"), py::arg("row_multiple"),
        py::arg("col_multiple"), py::arg("pad"));
  m.def("unpad_scales", &unpad_scale_matrix, py::arg("padded"), py::arg("rows"), py::arg("cols"), py::arg("transpose"),
        py::arg("row_multiple"), py::arg("col_multiple"));
}

}  // namespace softmx::py_binding
