// python/src/binding.hpp: what the binding's files share: option names to library values
// (every name goes through the library's own lookups: parse_format, parse_rounding,
// find_dialect, ...), and numpy arrays to pointers.
//
// The Python layer (python/softmx/) hands this module C-contiguous arrays of the storage
// type of their format (uint8, uint16, uint32, uint64), zero-copy views where the caller's
// array allows. Everything here reads them in place, allocates the results as new numpy
// arrays, and computes with the GIL released.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/context.hpp"
#include "softmx/dialect.hpp"
#include "softmx/dot.hpp"
#include "softmx/format.hpp"
#include "softmx/nvfp4.hpp"

namespace softmx::py_binding {

namespace py = pybind11;

/// A format by name (canonical names and aliases, through parse_format); ValueError naming
/// the argument and the formats known.
FormatId format_arg(const std::string& argument, const std::string& name);
/// Any format spec the CLI takes (parse_format_spec: a named format, an alias, or a runtime
/// descriptor such as "e4m3fnuz" or "e5m2:bias=16", docs/SEMANTICS.md 1.2); ValueError naming the
/// argument, the spec and the field at fault. With `warn`, a spec that names no listed format
/// (unlisted_spec_note, softmx/format_catalog.hpp: a typo such as "e4m4") gives a
/// softmx.RuntimeFormatWarning (a UserWarning) attributed to the caller's frame outside the
/// softmx package; the GIL must be held.
Format format_spec_arg(const std::string& argument, const std::string& spec, bool warn = true);
/// Creates softmx._softmx.RuntimeFormatWarning (binding.cpp), before any format_spec_arg call.
void bind_runtime_format_warning(py::module_& m);
/// The same, restricted to f64, f32, f16 and bf16.
FormatId host_format_arg(const std::string& argument, const std::string& name);
/// The same, restricted to the MX element formats.
FormatId element_format_arg(const std::string& argument, const std::string& name);
/// The element format of an MX block named by a spec: a named MX element or any runtime spec
/// that can be one (docs/BLOCKS.md 1.1). ValueError naming the argument and the failing field.
Format mx_element_arg(const std::string& argument, const std::string& spec);
/// The block scale format named by `scale_format=` (BLOCKS.md 1.2): e8m0, ue4m3, ue5m3, e4m3,
/// bf16, f16, f32, ...; ValueError naming the descriptor field it cannot have (mx_scale_reason).
ScaleFormat scale_format_arg(const std::string& spec);
Rounding rounding_arg(const std::string& argument, const std::string& name);
Saturation saturation_arg(const std::string& argument, const std::string& name);
Tininess tininess_arg(const std::string& name);
const Dialect& dialect_arg(const std::string& name);
ScaleRule scale_rule_arg(const std::string& name);
const AccumulationModel& accumulation_arg(const std::string& name);

/// The context of a conversion into `dst` under `dialect`, as the CLI makes it: an unset
/// rounding is the dialect's default for the destination (DestinationSupport), an unset
/// saturation Saturation::by_destination (the library resolves it to that default).
Context conversion_context(const Format& dst, const Dialect& dialect, const std::optional<std::string>& round,
                           const std::optional<std::string>& sat, const std::string& tininess,
                           std::optional<unsigned> rbits);
inline Context conversion_context(FormatId dst, const Dialect& dialect, const std::optional<std::string>& round,
                                  const std::optional<std::string>& sat, const std::string& tininess,
                                  std::optional<unsigned> rbits) {
  return conversion_context(format(dst), dialect, round, sat, tininess, rbits);
}

/// The bytes of the storage type of `f` (1, 2, 4, 8).
std::size_t storage_bytes(const Format& f);
inline std::size_t storage_bytes(FormatId f) { return storage_bytes(format(f)); }
/// A numpy dtype for unsigned integers of `bytes` bytes.
py::dtype storage_dtype(std::size_t bytes);

/// The array's shape.
std::vector<std::size_t> shape_of(const py::array& a);
/// Number of elements of a shape.
std::size_t count_of(const std::vector<std::size_t>& shape);
/// `a` must be C-contiguous with unsigned items of `bytes` bytes (TypeError otherwise, naming
/// `what`: the Python layer makes sure of it, so this guards against misuse of the module).
void require_storage(const py::array& a, std::size_t bytes, const char* what);
/// A new C-contiguous array of unsigned integers of `bytes` bytes with `shape`.
py::array new_array(const std::vector<std::size_t>& shape, std::size_t bytes);

/// ValueError when a code in `a` (storage of `f`, n items) has bits above the format's width.
/// Safe without the GIL (it touches no Python object).
void check_codes(const void* data, std::size_t n, const Format& f, const char* what);
inline void check_codes(const void* data, std::size_t n, FormatId f, const char* what) { check_codes(data, n, format(f), what); }

/// The NVFP4 tensor of uint8 `scales` and E2M1 `codes` (1-byte storage each, checked in that
/// order), shaped as `codes`, blocks along `axis`, with the tensor-level encode scale and amax
/// (f32 bits). check_shape(the codes' shape) runs after the storage checks and before anything
/// else: the caller's axis (and count) checks, which throw py::value_error with its own words.
/// Then the codes are checked to be E2M1 codes. The arrays are copied.
Nvfp4Tensor nvfp4_tensor(const py::array& scales, const py::array& codes, long axis, std::uint32_t encode_scale,
                         std::uint32_t global_amax, const std::function<void(const std::vector<std::size_t>&)>& check_shape);
/// ValueError when a random value is at or above 2^width.
void check_random(const std::uint64_t* r, std::size_t n, unsigned width);

/// f() with the library's std::invalid_argument (a bad argument it names) as Python's ValueError.
template <class F>
auto library(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

/// Threads: 0 means every core.
inline unsigned threads_arg(long threads) {
  if (threads < 0) throw py::value_error("threads must be 0 (every core) or a positive number, got " + std::to_string(threads));
  return static_cast<unsigned>(threads);
}

void bind_info(py::module_& m);
void bind_convert(py::module_& m);
void bind_block(py::module_& m);
void bind_dot(py::module_& m);
void bind_stats(py::module_& m);
void bind_vectors(py::module_& m);
void bind_recipe(py::module_& m);
void bind_layout(py::module_& m);
void bind_golden(py::module_& m);
void bind_peers(py::module_& m);

}  // namespace softmx::py_binding
