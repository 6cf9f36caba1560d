// emulator/layout/padded.cpp: TransformerEngine's compact scale tensors, transposed or not and
// padded to its multiples (include/softmx/scale_layout.hpp).
#include <stdexcept>
#include <string>

#include "softmx/scale_layout.hpp"

namespace softmx {

PaddedScales pad_scales(std::span<const std::uint32_t> s, std::size_t rows, std::size_t cols, bool transpose,
                        std::size_t row_multiple, std::size_t col_multiple, std::uint32_t pad) {
  if (row_multiple == 0 || col_multiple == 0)
    throw std::invalid_argument("pad_scales: the padding multiples must be at least 1");
  if (rows != 0 && cols > static_cast<std::size_t>(-1) / rows)
    throw std::invalid_argument("pad_scales: the scale matrix is too large");
  if (s.size() != rows * cols)
    throw std::invalid_argument("pad_scales: expected " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
                                std::to_string(rows * cols) + " scales, got " + std::to_string(s.size()));
  const std::size_t r0 = transpose ? cols : rows, c0 = transpose ? rows : cols;
  PaddedScales p;
  p.rows = (r0 + row_multiple - 1) / row_multiple * row_multiple;
  p.cols = (c0 + col_multiple - 1) / col_multiple * col_multiple;
  p.codes.assign(p.rows * p.cols, pad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t pr = transpose ? c : r, pc = transpose ? r : c;
      p.codes[pr * p.cols + pc] = s[r * cols + c];
    }
  return p;
}

}  // namespace softmx
