// tools/cuda/mma/mma_device_api.hpp: the device half of the mma capture, seen from the host.
//
// mma_device.cu (nvcc) implements these with the kernels; mma_main.cpp (g++) does everything
// else. Plain C++: no CUDA and no softmx header, so neither compiler parses the other's world
// and the nvcc translation unit stays small.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mma_types.hpp"

namespace softmx::mma_capture {

/// The GPU and the binary that runs on it.
struct MmaDeviceInfo {
  std::string name;             ///< cudaDeviceProp::name
  int major = 0, minor = 0;     ///< compute capability
  int driver = 0, runtime = 0;  ///< cudaDriverGetVersion / cudaRuntimeGetVersion (1000 major + 10 minor)
  int cuda_arch = 0;            ///< __CUDA_ARCH__ of the SASS that runs
  int family_specific = 0;      ///< __CUDA_ARCH_FAMILY_SPECIFIC__, 0 when undefined
  int arch_specific = 0;        ///< __CUDA_ARCH_SPECIFIC__, 0 when undefined
  std::uint32_t features = 0;   ///< feature_bit(Feature) of each family compiled into that SASS
  int nvcc_major = 0, nvcc_minor = 0;  ///< __CUDACC_VER_MAJOR__ / __MINOR__ of the build
};

/// Picks device 0 and runs a probe kernel. Throws std::runtime_error with CUDA's message when
/// there is no GPU or no kernel image for it.
MmaDeviceInfo query_mma_device();

/// Runs `tiles` instructions of form `f` (one per warp for mma.sync, one per 128-thread CTA for
/// tcgen05) on the tile inputs of mma_file.hpp's TileBatch (passed here as plain arrays so that
/// this header needs nothing of the host half): a and b hold tiles * 8 * k codes, sa and sb
/// tiles * 8 * scales codes (empty when unscaled), c tiles * 8 accumulator codes (f16 in the
/// low 16 bits). Returns D[j][j] of every tile, tiles * 8 codes. Throws std::runtime_error on a
/// CUDA error, std::logic_error when the form is not compiled into this binary (the caller
/// checks the features first).
std::vector<std::uint32_t> run_tiles(const DeviceForm& f, int tiles, int k, int scales, const std::vector<std::uint8_t>& a,
                                     const std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& sa,
                                     const std::vector<std::uint8_t>& sb, const std::vector<std::uint32_t>& c);

}  // namespace softmx::mma_capture
