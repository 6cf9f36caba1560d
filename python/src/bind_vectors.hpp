// python/src/bind_vectors.hpp: what the vector engine's bindings share (internal):
// bind_vectors.cpp (gen, verify, identify) and bind_sweep.cpp (sweep, merge, diff, read_runs,
// explain): output files that keep the interpreter's signal handlers, progress callbacks,
// counts, and the conversion options as the CLI reads them.
#pragma once

#include <pybind11/stl.h>
#include <signal.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "binding.hpp"
#include "softmx/explain.hpp"
#include "softmx/describe.hpp"
#include "softmx/explain_report.hpp"
#include "softmx/flags.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/case_check.hpp"
#include "softmx/vectors/completeness.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/identify.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/run_check.hpp"
#include "softmx/vectors/run_table.hpp"
#include "softmx/vectors/table_diff.hpp"
#include "softmx/vectors/verify.hpp"

namespace softmx::py_binding {

using vec::Header;
using vec::Operation;
using Opt = std::optional<std::string>;

/// Keeps the interpreter's handlers of SIGINT, SIGTERM and SIGHUP across the construction of a
/// vec::OutputFile. The library installs, on its first output file, handlers that remove the
/// temporary and then kill the process with the signal (right for a command); in Python, Ctrl-C
/// must stay a KeyboardInterrupt (a REPL or notebook survives it). Python's handler only sets a
/// flag: the write finishes (the GIL is released), the file is committed, and the interrupt is
/// raised when the call returns; an exception on the way removes the temporary as usual.
class KeepInterpreterSignals {
 public:
  KeepInterpreterSignals() {
    for (std::size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], nullptr, &saved_[i]);
  }
  ~KeepInterpreterSignals() {
    for (std::size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &saved_[i], nullptr);
  }
  KeepInterpreterSignals(const KeepInterpreterSignals&) = delete;
  KeepInterpreterSignals& operator=(const KeepInterpreterSignals&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction saved_[3] {};
};

/// Opens `path` as the CLI does (vec::OutputFile), with the interpreter's signal handlers kept.
inline void open_output(std::optional<vec::OutputFile>& out, const std::string& path) {
  KeepInterpreterSignals keep;
  out.emplace(path);
}

/// The library's progress callback for a long call (sweep; verify and identify of run tables),
/// called on the calling thread after each chunk, which runs with the GIL released. It takes the
/// GIL, raises a pending signal's exception (Ctrl-C: the library stops its workers and rethrows,
/// an output file's temporary is removed), then calls `callback(done, total)` unless it is None
/// (the Python layer gives None when progress is off, or a callable: its own stderr line or the
/// user's). `callback` is a reference: it outlives the call, and copies of the function made
/// inside the library hold no Python reference.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;
inline ProgressFn progress_fn(const py::object& callback) {
  return [&callback](std::uint64_t done, std::uint64_t total) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!callback.is_none()) callback(done, total);
  };
}

/// The largest count gen accepts (cmd_gen.cpp kMaxCount).
constexpr std::uint64_t kMaxCount = 1'000'000'000;

inline std::string quoted_arg(const std::string& s) { return quote(s, '\''); }

/// An integer option in 1..max (cli::parse_count's range), naming the argument.
inline std::uint64_t count_arg(const char* argument, std::optional<std::uint64_t> v, std::uint64_t dflt, std::uint64_t max) {
  if (!v) return dflt;
  if (*v < 1 || *v > max)
    throw py::value_error(std::string(argument) + " must be an integer from 1 to " + std::to_string(max) + ", got " +
                          std::to_string(*v));
  return *v;
}

/// Rounding, saturation, tininess, rbits and dialect as cli::conversion_options reads them: with a
/// destination `to`, an unset rounding or saturation is the dialect's default for it.
struct Conversion {
  Context ctx;
  const Dialect* dialect = nullptr;
  bool rounding_given = false;
};

inline Conversion conversion(const std::optional<Format>& to, const Opt& round, const Opt& sat, const Opt& tininess,
                      const Opt& dialect, std::optional<unsigned> rbits) {
  Conversion o;
  if (round) {
    o.ctx.rounding = rounding_arg("round", *round);
    o.rounding_given = true;
  }
  if (sat) o.ctx.saturation = saturation_arg("sat", *sat);
  if (tininess) o.ctx.tininess = tininess_arg(*tininess);
  if (rbits) {
    if (*rbits < 1 || *rbits > 64)
      throw py::value_error("rbits is the number of random bits, an integer from 1 to 64, got " + std::to_string(*rbits));
    o.ctx.rbits_width = static_cast<std::uint8_t>(*rbits);
  }
  o.dialect = dialect ? &dialect_arg(*dialect) : &ocp_dialect();
  if (to) {
    const DestinationSupport& s = support_for(*o.dialect, *to);
    if (!round) o.ctx.rounding = s.default_rounding;
    if (!sat) o.ctx.saturation = s.default_saturation;
  }
  return o;
}

/// Opens a vector file ("-" is not taken here: Python passes paths, or text via verify_text).
inline std::unique_ptr<vec::VectorReader> open_reader(const std::string& path, const std::optional<std::string>& text) {
  return text ? vec::VectorReader::from_string(*text, path) : vec::VectorReader::open(path);
}

/// sweep, read_runs, merge, diff and explain (bind_sweep.cpp); called by bind_vectors.
void bind_sweep(py::module_& m);

}  // namespace softmx::py_binding
