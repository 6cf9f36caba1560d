// tools/cuda/capture_host.hpp: the host half of the GPU conversion captures (tools/cuda/README.md).
//
// The device reduces 2^32 (or 2^16, 2^8) conversions to change points: (input, code) pairs, one
// wherever an output differs from the previous input's, appended in whatever order the threads
// finish. This part turns them into the canonical run table of vectors/README.md section 5
// (through the library's one RunTableWriter, softmx/vectors/run_table.hpp), builds the table's header with the
// capture's provenance (x- keys), and writes the per-capture MANIFEST. It is plain C++ (g++): the
// conformance suite tests it without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "change_point.hpp"
#include "softmx/context.hpp"
#include "softmx/format.hpp"
#include "softmx/vectors/header.hpp"

namespace softmx::capture {

/// The version the capture programs write into x-capture.
inline constexpr std::string_view kCaptureVersion = "0.1.0";

/// Where a capture ran, once per capture; every table's header and the MANIFEST carry it.
struct Provenance {
  std::string gpu;                 ///< cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  ///< "9.0"
  std::string driver;              ///< cudaDriverGetVersion as "13.0"
  std::string cuda_runtime;        ///< cudaRuntimeGetVersion as "13.0"
  std::string build_target;        ///< the SASS that ran: "sm_90a (__CUDA_ARCH__ 900, ...)"
  std::string date;                ///< UTC, ISO 8601 "2025-06-01T12:00:00Z"
  std::string capture;             ///< program and version: "softmx_capture_cuda 0.1.0"
};

/// The provenance of a capture made now: `gpu` (cudaDeviceProp::name), compute capability
/// "MAJOR.MINOR", the driver and runtime versions (cudaDriverGetVersion, cudaRuntimeGetVersion:
/// 1000 * major + 10 * minor) written "13.0", `build_target`, the current UTC time and `capture`.
Provenance provenance_now(const std::string& gpu, int major, int minor, int driver, int runtime,
                          const std::string& build_target, const std::string& capture);

/// The header of a capture's run table: operation convert, layout runs, `from` -> `to` under
/// (`rounding`, `saturation`, tininess after), `dialect`, inputs `first`..`last` (in `from`'s
/// width), generator = p.capture, level "exhaustive", then the x- keys x-gpu,
/// x-compute-capability, x-driver, x-cuda-runtime, x-build-target, `what` (x-instruction or
/// x-function, with its text), x-date, x-capture, then `more` in order (each key must start
/// with "x-"). Throws softmx::InputError (via Header::validate) for an impossible header, e.g. an
/// unknown dialect, rs (a run table is a function of the input alone), or a range outside the
/// source's codes.
vec::Header capture_header(FormatId from, FormatId to, Rounding rounding, Saturation saturation,
                           std::string_view dialect, std::uint64_t first, std::uint64_t last, const Provenance& p,
                           std::pair<std::string, std::string> what,
                           std::vector<std::pair<std::string, std::string>> more = {});

/// Appends to `text` the canonical run table (header, column comment "# FIRST OUT", data lines
/// without FLAGS: GPUs have none) of the function described by `points` over h.first..h.last.
///
/// `points` may come in any order, may repeat a point, and may hold points where the code does
/// not change (a device that splits its range into strips records each strip's first input);
/// what matters is that every input where the code changes is there. Sorted by input, each
/// point's code holds up to the next point. Throws std::runtime_error, naming the input, when a
/// point lies outside h.first..h.last, when two points for one input disagree on the code, when
/// no point is at h.first, or when a code does not fit `h.to`'s width. Returns the data lines
/// written. Precondition: h.layout == runs.
std::uint64_t reduce_to_run_table(const vec::Header& h, std::vector<ChangePoint> points, std::string& text);

/// The build-target text of the provenance: the SASS that ran, from the device's macros
/// (`family_specific`, `arch_specific`: 0 when undefined), e.g. "sm_90a (__CUDA_ARCH__ 900,
/// __CUDA_ARCH_FAMILY_SPECIFIC__ 900, __CUDA_ARCH_SPECIFIC__ 900)" or "sm_120f (...)".
std::string build_target_text(int cuda_arch, int family_specific, int arch_specific);

/// A file name part for a GPU: lower case, "nvidia" dropped, every run of other characters than
/// [a-z0-9] one '-', no '-' at either end ("NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3"). Empty
/// input or a name with no letter or digit gives "unknown-gpu".
std::string gpu_slug(std::string_view gpu_name);

/// One line of a MANIFEST.
struct ManifestEntry {
  std::string path;    ///< relative to the MANIFEST's folder, '/'-separated
  std::string sha256;  ///< 64 lower-case hex digits of the file's bytes
  std::string what;    ///< "instruction cvt.rn.satfinite.e4m3x2.f32" or "function __nv_cvt_..."
};

/// The stand-in model with which a capture file whose tensor-core model this softmx does not
/// know yet is read (mma files name the model their capture is to be verified against, and
/// the Blackwell models may land after the captures).
inline constexpr std::string_view kStandInModel = "hopper-fp8-wgmma";

/// `text` (a vector file) as softmx can read it: when its header names a tensor-core model that
/// softmx does not know, that one line is rewritten to name kStandInModel, and the unknown
/// name goes to `unknown_model` (else it is cleared). Every other key and every data line is
/// left as it is, so that a reader still checks them all.
std::string with_known_model(const std::string& text, std::string& unknown_model);

/// Why `softmx verify` cannot check the vector file at `path` yet, or nullopt when it can: the
/// file names a tensor-core model this softmx does not know ("softmx does not know the
/// tensor-core model 'blackwell-mxf4' yet (it knows: ...); the file verifies once the model
/// lands"), or carries block scales that no model of this softmx takes. Throws
/// softmx::InputError for a file that cannot be read or whose header is wrong in any other way.
std::optional<std::string> verify_blocker(const std::string& path);

/// Reads every "*.vec" file directly in `dir` (the capture program's tables and the mma
/// program's mma-*.vec), in name order: hashes it, and takes from its header the x-instruction
/// or x-function (the entry's `what`) and the provenance keys. Throws softmx::InputError naming the
/// file when one cannot be read or parsed, lacks x-instruction/x-function or a provenance key
/// (x-gpu, x-compute-capability, x-driver, x-cuda-runtime, x-build-target, x-date, x-capture),
/// or names another GPU, compute capability, driver or CUDA runtime than the first file; and
/// when `dir` holds no table. A file whose tensor-core model softmx does not know yet is read
/// with kStandInModel (with_known_model): everything else in it is checked. `provenance`
/// receives the first file's values, except x-date (the earliest of all files, dates being ISO
/// 8601 text) and x-build-target (each program builds for its own targets: every distinct
/// value, with its x-capture, in the order first met, joined by "; " when there are several).
std::vector<ManifestEntry> scan_tables(const std::string& dir, Provenance& provenance);

/// The MANIFEST text: comment lines with the provenance (GPU, compute capability, driver, CUDA
/// runtime, build target, date, capture program), then one "SHA256<TAB>PATH<TAB>WHAT" line per
/// entry in the given order, each ending in '\n'.
std::string manifest_text(const Provenance& p, const std::vector<ManifestEntry>& entries);

/// The main() of a capture program (softmx_capture_cuda, softmx_capture_mma): run(argc, argv)'s
/// exit status; a softmx::InputError is printed to stderr as "PROGRAM: MESSAGE" and any other
/// exception as "PROGRAM: internal error: MESSAGE", both with exit status 2.
int capture_main(const char* program, int (*run)(int, char**), int argc, char** argv);

}  // namespace softmx::capture
