// python/src/binding.cpp: see binding.hpp.
#include "binding.hpp"

#include <cstring>

#include "softmx/format_catalog.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::py_binding {
namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s.substr(0, 80)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      q += b;
    } else {
      q += c;
    }
  }
  q += "'";
  if (s.size() > 80) q += "... (" + std::to_string(s.size()) + " characters)";
  return q;
}

std::string format_names(bool (*keep)(FormatId)) {
  std::string s;
  for (const Format& f : all_formats()) {
    if (keep && !keep(f.id)) continue;
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

}  // namespace

FormatId format_arg(const std::string& argument, const std::string& name) {
  if (auto f = parse_format(name)) return *f;
  // A runtime spec is named as such (as the CLI's options that take named formats only do).
  bool runtime = false;
  try {
    runtime = !parse_format_spec(name).is_named();
  } catch (const FormatError&) {
  }
  if (runtime)
    throw py::value_error("the runtime format " + quoted(name) + " is not supported for " + argument +
                          " (expected one of " + format_names(nullptr) + ")");
  throw py::value_error("unknown format " + quoted(name) + " for " + argument + " (expected one of " +
                        format_names(nullptr) + ", or an alias such as float8_e4m3fn, fp4 or bfloat16)");
}

namespace {

// softmx.RuntimeFormatWarning: a new reference kept for the life of the process (never released,
// so nothing touches it after the interpreter is finalized).
PyObject* g_runtime_format_warning = nullptr;

/// 1 + the number of innermost Python frames in the softmx package: the stacklevel that names
/// the user's line, wherever inside softmx the spec was read.
int user_stacklevel() {
  int level = 1;
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    PyObject* file = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
    Py_DECREF(code);
    std::string path;
    if (file && PyUnicode_Check(file)) path = PyUnicode_AsUTF8(file);
    Py_XDECREF(file);
    PyErr_Clear();
    const auto slash = path.find_last_of("/\\");
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
    const bool in_package = dir.size() >= 6 && dir.compare(dir.size() - 6, 6, "softmx") == 0 &&
                            (dir.size() == 6 || dir[dir.size() - 7] == '/' || dir[dir.size() - 7] == '\\');
    if (!in_package) {
      Py_DECREF(f);
      break;
    }
    ++level;
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  return level;
}

}  // namespace

void bind_runtime_format_warning(py::module_& m) {
  g_runtime_format_warning = PyErr_NewExceptionWithDoc(
      "softmx.RuntimeFormatWarning",
      "A format spec names no listed format (softmx.formats()) and was read as a runtime format, "
      "e.g. 'e4m4' for e4m3; the message names the format read and the nearest named one. Silence it "
      "with warnings.filterwarnings('ignore', category=softmx.RuntimeFormatWarning).",
      PyExc_UserWarning, nullptr);
  if (!g_runtime_format_warning) throw py::error_already_set();
  m.attr("RuntimeFormatWarning") = py::reinterpret_borrow<py::object>(g_runtime_format_warning);
}

Format format_spec_arg(const std::string& argument, const std::string& spec, bool warn) {
  if (auto f = parse_format(spec)) return format(*f);
  try {
    const Format f = parse_format_spec(spec);
    if (warn && g_runtime_format_warning)
      if (const auto note = unlisted_spec_note(spec))
        if (PyErr_WarnEx(g_runtime_format_warning, note->c_str(), user_stacklevel()) < 0) throw py::error_already_set();
    return f;
  } catch (const FormatError& e) {
    // The library's message quotes the spec and names the field; the argument is named here.
    const std::string what = e.what();
    const auto colon = what.find("': ");
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 3);
    const bool listed = detail.find("expected a format name") != std::string::npos;
    throw py::value_error("bad format spec " + quoted(spec) + " for " + argument + ": " + detail +
                          (listed ? std::string()
                                  : " (a named format: " + format_names(nullptr) +
                                        "; or eXmY[fn|fnuz], ueXmY, intN, with :key=value fields, docs/SEMANTICS.md 1.2)"));
  }
}

FormatId host_format_arg(const std::string& argument, const std::string& name) {
  const FormatId f = format_arg(argument, name);
  if (!is_ieee_host_format(f))
    throw py::value_error(argument + " must be f64, f32, f16 or bf16, not " + quoted(name));
  return f;
}

FormatId element_format_arg(const std::string& argument, const std::string& name) {
  const FormatId f = format_arg(argument, name);
  if (!is_mx_element(f))
    throw py::value_error(argument + " must be an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1 or int8), not " +
                          quoted(name));
  return f;
}

ScaleFormat scale_format_arg(const std::string& spec) {
  const Format f = format_spec_arg("scale_format", spec);
  if (auto why = mx_scale_reason(f)) throw py::value_error("scale_format '" + spec + "': " + *why);
  return f;
}

Format mx_element_arg(const std::string& argument, const std::string& spec) {
  const Format f = format_spec_arg(argument, spec);
  if (f.is_named() && !is_mx_element(f.id))
    throw py::value_error(argument + " must be an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime "
                          "spec of at most 8 bits such as 'e1m2'), not " + quoted(spec));
  if (auto why = mx_element_reason(f)) throw py::value_error(argument + " " + quoted(spec) + ": " + *why);
  return f;
}

Rounding rounding_arg(const std::string& argument, const std::string& name) {
  if (auto r = parse_rounding(name)) return *r;
  throw py::value_error("unknown rounding mode " + quoted(name) + " for " + argument +
                        " (expected rne, rna, rz, ru, rd, ro or rs)");
}

Saturation saturation_arg(const std::string& argument, const std::string& name) {
  if (auto s = parse_saturation(name)) return *s;
  throw py::value_error("unknown saturation " + quoted(name) + " for " + argument +
                        " (expected 'finite' or 'none', P3109's 'SatFinite', 'SatNone' or 'SatPropagate', or None "
                        "for the default of the destination)");
}

Tininess tininess_arg(const std::string& name) {
  if (auto t = parse_tininess(name)) return *t;
  throw py::value_error("unknown tininess " + quoted(name) + " for tininess (expected 'after', 'before' or 'after-bounded')");
}

const Dialect& dialect_arg(const std::string& name) {
  if (const Dialect* d = find_dialect(name)) return *d;
  std::string known;
  for (const Dialect& d : all_dialects()) {
    if (!known.empty()) known += ", ";
    known += d.name;
  }
  throw py::value_error("unknown dialect " + quoted(name) + " for dialect (expected one of " + known + ")");
}

ScaleRule scale_rule_arg(const std::string& name) {
  if (auto r = parse_scale_rule(name)) return *r;
  throw py::value_error("unknown scale rule " + quoted(name) +
                        " for scale (expected floor, ceil, even or rceil, or None for the dialect's)");
}

const AccumulationModel& accumulation_arg(const std::string& name) {
  if (const AccumulationModel* m = find_accumulation_model(name)) return *m;
  std::string known = "exact, fp32-sequential";
  for (const TensorCoreModel* t : tensor_core_models()) known += ", " + std::string(t->name());
  throw py::value_error("unknown accumulation model " + quoted(name) + " for acc (expected one of " + known + ")");
}

Context conversion_context(const Format& dst, const Dialect& dialect, const std::optional<std::string>& round,
                           const std::optional<std::string>& sat, const std::string& tininess,
                           std::optional<unsigned> rbits) {
  const DestinationSupport& s = support_for(dialect, dst);
  Context c;
  c.rounding = round ? rounding_arg("round", *round) : s.default_rounding;
  // Unset: Saturation::by_destination, which every library entry point resolves to the
  // dialect's default for the destination (SEMANTICS 4.1), as the CLI without --sat.
  c.saturation = sat ? saturation_arg("sat", *sat) : Saturation::by_destination;
  c.tininess = tininess_arg(tininess);
  if (rbits) {
    if (c.rounding != Rounding::rs)
      throw py::value_error("rbits applies only with round='rs'; the rounding here is '" + std::string(name(c.rounding)) + "'");
    if (*rbits < 1 || *rbits > 64)
      throw py::value_error("rbits is the number of random bits, 1 to 64, got " + std::to_string(*rbits));
    c.rbits_width = static_cast<std::uint8_t>(*rbits);
  }
  return c;
}

std::size_t storage_bytes(const Format& f) {
  const int w = f.width;
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

py::dtype storage_dtype(std::size_t bytes) {
  switch (bytes) {
    case 1: return py::dtype::of<std::uint8_t>();
    case 2: return py::dtype::of<std::uint16_t>();
    case 4: return py::dtype::of<std::uint32_t>();
    default: return py::dtype::of<std::uint64_t>();
  }
}

std::vector<std::size_t> shape_of(const py::array& a) {
  std::vector<std::size_t> s(static_cast<std::size_t>(a.ndim()));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::size_t>(a.shape(static_cast<py::ssize_t>(i)));
  return s;
}

std::size_t count_of(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

void require_storage(const py::array& a, std::size_t bytes, const char* what) {
  if (!(a.flags() & py::array::c_style) || a.dtype().kind() != 'u' || static_cast<std::size_t>(a.itemsize()) != bytes)
    throw py::type_error(std::string(what) + ": expected a C-contiguous array of uint" + std::to_string(8 * bytes) +
                         ", got dtype " + std::string(py::str(a.dtype())));
}

py::array new_array(const std::vector<std::size_t>& shape, std::size_t bytes) {
  std::vector<py::ssize_t> s(shape.begin(), shape.end());
  return py::array(storage_dtype(bytes), s);
}

void check_codes(const void* data, std::size_t n, const Format& f, const char* what) {
  const Format& fm = f;
  const std::size_t bytes = storage_bytes(f);
  if (fm.width == 8 * bytes) return;  // every value of the storage type is a code
  const std::uint64_t above = ~fm.code_mask();
  auto at = [&](std::size_t i) -> std::uint64_t {
    switch (bytes) {
      case 1: return static_cast<const std::uint8_t*>(data)[i];
      case 2: return static_cast<const std::uint16_t*>(data)[i];
      case 4: return static_cast<const std::uint32_t*>(data)[i];
      default: return static_cast<const std::uint64_t*>(data)[i];
    }
  };
  std::uint64_t any = 0;
  if (bytes == 1) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::uint8_t a = 0;
    for (std::size_t i = 0; i < n; ++i) a |= p[i];
    any = a & above;
  } else {
    for (std::size_t i = 0; i < n; ++i) any |= at(i) & above;
  }
  if (!any) return;
  for (std::size_t i = 0; i < n; ++i)
    if (at(i) & above) {
      throw py::value_error(std::string(what) + ": code " + std::to_string(at(i)) + " at flat index " +
                            std::to_string(i) + " is out of range for " + std::string(fm.name) + " (expected 0 to " +
                            std::to_string(fm.code_mask()) + ")");
    }
}

void check_random(const std::uint64_t* r, std::size_t n, unsigned width) {
  if (width >= 64) return;
  std::uint64_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= r[i] >> width;
  if (!any) return;
  for (std::size_t i = 0; i < n; ++i)
    if (r[i] >> width) {
      throw py::value_error("random: value " + std::to_string(r[i]) + " at flat index " + std::to_string(i) +
                            " does not fit in rbits = " + std::to_string(width) + " bits (expected 0 to 2^" +
                            std::to_string(width) + " - 1)");
    }
}

// The certificate's data (python/src/bind_report.cpp).
void bind_report(py::module_& m);

}  // namespace softmx::py_binding

PYBIND11_MODULE(_softmx, m) {
  using namespace softmx::py_binding;
  m.doc() = "softmx's C++ library (the Python package softmx is the interface; see its docstrings)";
  bind_runtime_format_warning(m);
  bind_info(m);
  bind_convert(m);
  bind_block(m);
  bind_dot(m);
  bind_stats(m);
  bind_vectors(m);
  bind_recipe(m);
  bind_layout(m);
  bind_golden(m);
  bind_peers(m);
  bind_report(m);
}
