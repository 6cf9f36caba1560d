// python/src/bind_report.cpp: the certificate's data (softmx/vectors/report_data.hpp) for
// Python: softmx.report() (python/softmx/_report.py) gets the library's JSON, the very document
// `softmx report --json` writes, and draws it with the renderer `softmx report` runs.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "softmx/vectors/report_data.hpp"
#include "softmx/vectors/run_check.hpp"

namespace softmx::py_binding {

void bind_report(py::module_& m) {
  m.def(
      "report_data",
      [](const std::vector<std::string>& verify, const std::vector<std::string>& identify,
         const std::vector<std::pair<std::string, std::string>>& diff, std::uint64_t max_failures, long threads,
         bool accept_unproven, std::optional<std::uint64_t> expect_cases, const std::string& command,
         const std::string& title, const py::object& progress) {
        vec::ReportInputs in{verify, identify, diff};
        vec::ReportOptions o;
        o.max_failures = max_failures;
        o.threads = threads > 0 ? static_cast<unsigned>(threads) : vec::default_threads();
        o.accept_unproven = accept_unproven;
        o.expect_cases = expect_cases;
        o.command = command;
        o.title = title;
        // Progress of the run tables' checks, on this thread with the GIL taken back; Ctrl-C
        // (a pending signal) stops the report there with KeyboardInterrupt.
        o.progress = [&progress](std::uint64_t done, std::uint64_t total) {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
          if (!progress.is_none()) progress(done, total);
        };
        std::string json;
        {
          py::gil_scoped_release release;
          json = vec::make_report(in, o).json();
        }
        return py::bytes(json);
      },
      py::arg("verify"), py::arg("identify"), py::arg("diff"), py::arg("max_failures"), py::arg("threads"),
      py::arg("accept_unproven"), py::arg("expect_cases"), py::arg("command"), py::arg("title"), py::arg("progress"));
  m.def("report_build", &vec::build_text, "softmx's version and build, as the report records them");
}

}  // namespace softmx::py_binding
