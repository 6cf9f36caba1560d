// emulator/layout/paired.cpp: the paired scale layout of the MX-FP4 GEMM golden generator
// (seed 003; include/softmx/scale_layout.hpp, docs/research/lut-argmin-golden.md 5.1-5.2).
#include <stdexcept>
#include <string>

#include "layout/check.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx {
namespace {

// The operand's K-block count and its non-block extent.
std::size_t blocks_of(PairedOperand op, std::size_t rows, std::size_t cols) { return op == PairedOperand::a ? cols : rows; }
std::size_t extent_of(PairedOperand op, std::size_t rows, std::size_t cols) { return op == PairedOperand::a ? rows : cols; }

}  // namespace

std::size_t paired_size(PairedOperand op, std::size_t rows, std::size_t cols) {
  const std::size_t nb = blocks_of(op, rows, cols);
  return extent_of(op, rows, cols) * (nb + (nb & 1));
}

std::size_t paired_index(PairedOperand op, bool transposed, std::size_t r, std::size_t c, std::size_t rows,
                         std::size_t cols) {
  const std::size_t nb = blocks_of(op, rows, cols), nb_even = nb + (nb & 1);
  const std::size_t extent = extent_of(op, rows, cols);
  // i: the row of A or the column of B; blk = 2j + t: the K-block.
  const std::size_t i = op == PairedOperand::a ? r : c, blk = op == PairedOperand::a ? c : r;
  const std::size_t j = blk / 2, t = blk % 2;
  const bool row_major = (op == PairedOperand::a) != transposed;  // A flag 0, B flag 1: [i][j][t]
  return row_major ? i * nb_even + blk : (j * extent + i) * 2 + t;  // else [j][i][t]
}

std::vector<std::uint8_t> encode_paired(std::span<const std::uint8_t> s, std::size_t rows, std::size_t cols,
                                        PairedOperand op, bool transposed) {
  detail::check_scale_matrix(s.size(), rows, cols, "paired encode", 2);
  std::vector<std::uint8_t> out(paired_size(op, rows, cols), kPairedPad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[paired_index(op, transposed, r, c, rows, cols)] = s[r * cols + c];
  return out;
}

std::vector<std::uint8_t> decode_paired(std::span<const std::uint8_t> buf, std::size_t rows, std::size_t cols,
                                        PairedOperand op, bool transposed) {
  detail::check_scale_matrix(rows * cols, rows, cols, "paired decode", 2);
  if (buf.size() != paired_size(op, rows, cols))
    throw std::invalid_argument("paired decode: a " + std::to_string(rows) + " x " + std::to_string(cols) + " " +
                                (op == PairedOperand::a ? "A" : "B") + " scale matrix takes " +
                                std::to_string(paired_size(op, rows, cols)) + " bytes, got " +
                                std::to_string(buf.size()));
  std::vector<std::uint8_t> s(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) s[r * cols + c] = buf[paired_index(op, transposed, r, c, rows, cols)];
  return s;
}

}  // namespace softmx
