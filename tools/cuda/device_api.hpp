// tools/cuda/device_api.hpp: the device half of the capture program, seen from the host.
//
// capture_device.cu (nvcc) implements these with the kernels; capture_main.cpp (g++) calls
// them and does everything else (headers, files, the reduction). Plain C++: no CUDA and no
// softmx header, so neither compiler parses the other's world.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "change_point.hpp"

namespace softmx::capture {

/// The GPU and the binary that runs on it.
struct DeviceInfo {
  std::string name;           ///< cudaDeviceProp::name
  int major = 0, minor = 0;   ///< compute capability
  int driver = 0;             ///< cudaDriverGetVersion: 1000 * major + 10 * minor
  int runtime = 0;            ///< cudaRuntimeGetVersion, same encoding
  int cuda_arch = 0;          ///< __CUDA_ARCH__ of the SASS that ran (900, 1000, ...)
  int family_specific = 0;    ///< __CUDA_ARCH_FAMILY_SPECIFIC__, 0 when undefined
  int arch_specific = 0;      ///< __CUDA_ARCH_SPECIFIC__, 0 when undefined
  std::uint32_t compiled_needs = 0;  ///< bit i: Needs(i) is compiled in (capture_functions.hpp)
};

/// Picks device 0 and runs a probe kernel. Throws std::runtime_error with CUDA's message when
/// there is no GPU or no kernel image for it (a GPU none of the -gencode targets fits).
DeviceInfo query_device();

/// What one exhaustive sweep found.
struct SweepResult {
  std::vector<ChangePoint> points;  ///< unsorted; every input where the code changes, and more
  bool missing = false;             ///< the call is not compiled in: `points` means nothing
  bool lanes_disagree = false;      ///< an x2 form gave different codes in its two lanes
  std::uint64_t first_disagreeing = 0;  ///< the lowest such input, when lanes_disagree
  double seconds = 0;               ///< kernel time, including any rerun with a larger buffer
};

/// Runs kCaptures[index] on every input first..last on the GPU and reduces the outputs to change
/// points there: each thread converts a contiguous strip (and the input before it) and appends
/// (input, code) wherever the code differs from the previous input's, with an atomic counter.
/// Preconditions: index < kCaptureCount, the call is not ptx_rs_x4, first <= last < 2^32.
/// Throws std::runtime_error on a CUDA error.
SweepResult sweep_change_points(std::size_t index, std::uint64_t first, std::uint64_t last);

/// What one case list gave.
struct CasesResult {
  std::vector<std::uint32_t> codes;  ///< codes[i] for inputs[i], rbits[i]
  bool missing = false;
  bool lanes_disagree = false;
  std::uint64_t first_disagreeing = 0;  ///< the lowest case index whose lanes differ
};

/// Runs kCaptures[index] (a ptx_rs_x4 call) on each (inputs[i], rbits[i]). Preconditions: the
/// vectors have equal sizes. Throws std::runtime_error on a CUDA error.
CasesResult run_cases(std::size_t index, const std::vector<std::uint32_t>& inputs,
                      const std::vector<std::uint32_t>& rbits);

}  // namespace softmx::capture
