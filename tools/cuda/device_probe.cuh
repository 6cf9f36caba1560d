// tools/cuda/device_probe.cuh: what both capture programs (softmx_capture_cuda and
// softmx_capture_mma) ask of the GPU before they capture: the device, its compute capability, the
// driver and runtime versions, and what a probe kernel reports from inside the SASS that runs.
// CUDA runtime only, no softmx header: nvcc compiles the two device files that include it.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <stdexcept>
#include <string>

namespace softmx::cuda_probe {

/// In a probe kernel: writes __CUDA_ARCH__, __CUDA_ARCH_FAMILY_SPECIFIC__ and
/// __CUDA_ARCH_SPECIFIC__ of the SASS that runs to out[0..2], leaving an undefined one's int as
/// it was (0: query_device zeroes them).
__device__ inline void write_arch(int* out) {
#if defined(__CUDA_ARCH__)
  out[0] = __CUDA_ARCH__;
#endif
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
  out[1] = __CUDA_ARCH_FAMILY_SPECIFIC__;
#endif
#if defined(__CUDA_ARCH_SPECIFIC__)
  out[2] = __CUDA_ARCH_SPECIFIC__;
#endif
  (void)out;
}

/// Selects device 0, fills `d`'s name (cudaDeviceProp::name), major and minor (the compute
/// capability), driver and runtime (cudaDriverGetVersion, cudaRuntimeGetVersion: 1000 * major +
/// 10 * minor), then runs `probe` on one thread over N ints of device memory that start at 0:
/// it writes __CUDA_ARCH__, __CUDA_ARCH_FAMILY_SPECIFIC__ and __CUDA_ARCH_SPECIFIC__ (0 where
/// undefined) to ints 0..2, which become d.cuda_arch, d.family_specific and d.arch_specific, and
/// what the program wants to ints 3..N-1. Returns all N. `Buffer` is the caller's device buffer
/// (Buffer<int>(N), its pointer `p`, freed on every exit); `check(cudaError_t, const char* call)`
/// throws for a failed call; with no device this throws std::runtime_error(no_device). A failed
/// launch is reported as a missing -gencode target, its likely cause.
template <int N, template <class> class Buffer, class Info, class Check>
std::array<int, N> query_device(Info& d, void (*probe)(int*), Check check, const char* no_device) {
  static_assert(N >= 3, "the probe writes at least the three architecture ints");
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw std::runtime_error(no_device);
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  d.name = prop.name;
  d.major = prop.major;
  d.minor = prop.minor;
  check(cudaDriverGetVersion(&d.driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&d.runtime), "cudaRuntimeGetVersion");
  Buffer<int> out(N);
  const std::array<int, N> zeros{};
  check(cudaMemcpy(out.p, zeros.data(), sizeof zeros, cudaMemcpyHostToDevice), "cudaMemcpy");
  probe<<<1, 1>>>(out.p);
  check(cudaGetLastError(), "probe kernel launch (is there a -gencode target for this GPU?)");
  check(cudaDeviceSynchronize(), "probe kernel");
  std::array<int, N> got{};
  check(cudaMemcpy(got.data(), out.p, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
  d.cuda_arch = got[0];
  d.family_specific = got[1];
  d.arch_specific = got[2];
  return got;
}

}  // namespace softmx::cuda_probe
