// python/src/out_array.hpp: the destination of a call with `out=` (issue 29, numpy's out=).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "binding.hpp"

namespace softmx::py_binding {

/// The caller's `out` when given (the Python layer has checked its dtype, shape, contiguity
/// and writeability with messages naming numpy's dtypes; these checks guard the module against
/// misuse), else a new array of `shape` and `bytes`-byte unsigned items.
inline py::array out_or_new(const std::optional<py::array>& out, const std::vector<std::size_t>& shape,
                            std::size_t bytes) {
  if (!out) return new_array(shape, bytes);
  require_storage(*out, bytes, "out");
  if (shape_of(*out) != shape) throw py::value_error("out: expected an array of the result's shape");
  if (!out->writeable()) throw py::value_error("out: expected a writeable array");
  return *out;
}

}  // namespace softmx::py_binding
