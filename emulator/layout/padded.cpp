// emulator/layout/padded.cpp: TransformerEngine's compact scale tensors, transposed or not and
// padded to its multiples, and their inverse (include/softmx/scale_layout.hpp).
#include <limits>
#include <stdexcept>
#include <string>

#include "softmx/scale_layout.hpp"

namespace softmx {
namespace {

/// n rounded up to a multiple of m (m >= 1); throws where that overflows size_t.
std::size_t round_up(std::size_t n, std::size_t m, const char* who) {
  const std::size_t q = n / m + (n % m != 0);
  if (q > std::numeric_limits<std::size_t>::max() / m)
    throw std::invalid_argument(std::string(who) + ": the padded scale tensor is too large");
  return q * m;
}

void check_size(const char* who, std::size_t rows, std::size_t cols, std::size_t got, const char* what) {
  if (rows != 0 && cols > std::numeric_limits<std::size_t>::max() / rows)
    throw std::invalid_argument(std::string(who) + ": the scale matrix is too large");
  if (got != rows * cols)
    throw std::invalid_argument(std::string(who) + ": expected " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " = " + std::to_string(rows * cols) + " " + what + ", got " + std::to_string(got));
}

}  // namespace

std::pair<std::size_t, std::size_t> padded_scales_shape(std::size_t rows, std::size_t cols, bool transpose,
                                                        std::size_t row_multiple, std::size_t col_multiple) {
  if (row_multiple == 0 || col_multiple == 0)
    throw std::invalid_argument("pad_scales: the padding multiples must be at least 1");
  const std::size_t r0 = transpose ? cols : rows, c0 = transpose ? rows : cols;
  const std::size_t pr = round_up(r0, row_multiple, "pad_scales"), pc = round_up(c0, col_multiple, "pad_scales");
  if (pr != 0 && pc > std::numeric_limits<std::size_t>::max() / pr)
    throw std::invalid_argument("pad_scales: the padded scale tensor is too large");
  return {pr, pc};
}

PaddedScales pad_scales(std::span<const std::uint32_t> s, std::size_t rows, std::size_t cols, bool transpose,
                        std::size_t row_multiple, std::size_t col_multiple, std::uint32_t pad) {
  const auto [pr, pc] = padded_scales_shape(rows, cols, transpose, row_multiple, col_multiple);
  check_size("pad_scales", rows, cols, s.size(), "scales");
  PaddedScales p;
  p.rows = pr;
  p.cols = pc;
  p.codes.assign(p.rows * p.cols, pad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t tr = transpose ? c : r, tc = transpose ? r : c;
      p.codes[tr * p.cols + tc] = s[r * cols + c];
    }
  return p;
}

std::vector<std::uint32_t> unpad_scales(std::span<const std::uint32_t> padded, std::size_t rows, std::size_t cols,
                                        bool transpose, std::size_t row_multiple, std::size_t col_multiple) {
  const auto [pr, pc] = padded_scales_shape(rows, cols, transpose, row_multiple, col_multiple);
  if (padded.size() != pr * pc)
    throw std::invalid_argument("unpad_scales: expected the padded " + std::to_string(pr) + " x " + std::to_string(pc) +
                                " = " + std::to_string(pr * pc) + " codes of a " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " scale matrix, got " + std::to_string(padded.size()));
  std::vector<std::uint32_t> s(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t tr = transpose ? c : r, tc = transpose ? r : c;
      s[r * cols + c] = padded[tr * pc + tc];
    }
  return s;
}

}  // namespace softmx
