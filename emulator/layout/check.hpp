// emulator/layout/check.hpp: the shape check every scale layout makes of the matrix it is given
// (internal).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace softmx::detail {

/// Throws std::invalid_argument, its message starting with `what`, unless `size` (the scales
/// given) is rows * cols and rows * cols * headroom cannot overflow std::size_t (a layout that
/// pads or pairs the matrix asks for the headroom its buffer needs).
inline void check_scale_matrix(std::size_t size, std::size_t rows, std::size_t cols, const char* what,
                               std::size_t headroom = 1) {
  if (rows != 0 && cols > static_cast<std::size_t>(-1) / rows / headroom)
    throw std::invalid_argument(std::string(what) + ": a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " scale matrix is too large");
  if (size != rows * cols)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " = " + std::to_string(rows * cols) + " scales, got " + std::to_string(size));
}

}  // namespace softmx::detail
