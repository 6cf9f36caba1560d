// emulator/layout/swizzle_128x4.cpp: the cuBLAS/cuDNN 128x4 tiled scale layout and torchao's
// to_blocked / from_blocked (include/softmx/scale_layout.hpp).
#include <stdexcept>
#include <string>

#include "layout/check.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx {
namespace {

constexpr std::size_t kTileRows = 128, kTileCols = 4, kTileBytes = kTileRows * kTileCols;

std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

}  // namespace

std::size_t swizzled_128x4_size(std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0) return 0;
  return round_up(rows, kTileRows) * round_up(cols, kTileCols);
}

std::size_t swizzled_128x4_index(std::size_t r, std::size_t c, std::size_t cols) {
  // TE swizzle.cuh:30-41: tiles of 128 rows x 4 columns in row-major tile order; inside a tile
  // row r = g * 32 + b (g = (r % 128) / 32) and column c' sit at b * 16 + g * 4 + c'.
  const std::size_t tiles_x = (cols + kTileCols - 1) / kTileCols;
  const std::size_t tile = (r / kTileRows) * tiles_x + c / kTileCols;
  return tile * kTileBytes + (r % 32) * 16 + ((r % kTileRows) / 32) * 4 + c % kTileCols;
}

std::vector<std::uint8_t> encode_swizzled_128x4(std::span<const std::uint8_t> s, std::size_t rows, std::size_t cols,
                                                std::uint8_t pad) {
  detail::check_scale_matrix(s.size(), rows, cols, "swizzled 128x4 encode");
  std::vector<std::uint8_t> out(swizzled_128x4_size(rows, cols), pad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[swizzled_128x4_index(r, c, cols)] = s[r * cols + c];
  return out;
}

std::vector<std::uint8_t> decode_swizzled_128x4(std::span<const std::uint8_t> buf, std::size_t rows,
                                                std::size_t cols) {
  detail::check_scale_matrix(rows * cols, rows, cols, "swizzled 128x4 decode");
  if (buf.size() != swizzled_128x4_size(rows, cols))
    throw std::invalid_argument("swizzled 128x4 decode: a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " scale matrix takes " + std::to_string(swizzled_128x4_size(rows, cols)) +
                                " bytes swizzled, got " + std::to_string(buf.size()));
  std::vector<std::uint8_t> s(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) s[r * cols + c] = buf[swizzled_128x4_index(r, c, cols)];
  return s;
}

std::vector<std::uint8_t> torchao_to_blocked(std::span<const std::uint8_t> s, std::size_t rows, std::size_t cols) {
  return encode_swizzled_128x4(s, rows, cols, 0x00);
}

std::vector<std::uint8_t> torchao_from_blocked(std::span<const std::uint8_t> buf, std::size_t rows, std::size_t cols) {
  return decode_swizzled_128x4(buf, rows, cols);
}

}  // namespace softmx
