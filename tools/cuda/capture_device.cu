// tools/cuda/capture_device.cu: the kernels of the capture program (see device_api.hpp).
#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "capture_functions.hpp"
#include "device_probe.cuh"
#include "device_api.hpp"

namespace softmx::capture {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// What every kernel reports besides its output. `first_disagreeing` starts at ~0.
struct Counters {
  unsigned long long count;
  unsigned long long first_disagreeing;
  unsigned int missing;
};

__global__ void probe_kernel(int* out) {
  cuda_probe::write_arch(out);
  out[3] = static_cast<int>(compiled_needs());
}

// Thread t converts inputs first + t * strip .. (that + strip - 1, at most last), comparing each
// code with the previous input's (for the strip's first input, the input before it, computed
// again here, so that the strips need not talk to each other).
// Kernels take the catalogue index, not the Call: nvcc's host stubs cannot spell a class-type
// template argument.
template <std::size_t I>
__global__ void change_points_kernel(std::uint64_t first, std::uint64_t last, std::uint64_t strip, ChangePoint* out,
                                     unsigned long long capacity, Counters* k) {
  const std::uint64_t t = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (t * strip > last - first) return;
  const std::uint64_t begin = first + t * strip;
  const std::uint64_t end = (last - begin < strip - 1) ? last : begin + strip - 1;
  std::uint32_t prev = 0;
  bool have_prev = false;
  if (begin > first) {
    const Lanes p = evaluate<I>(static_cast<std::uint32_t>(begin - 1));
    prev = p.code;
    have_prev = true;
  }
  for (std::uint64_t i = begin;; ++i) {
    const Lanes v = evaluate<I>(static_cast<std::uint32_t>(i));
    if (v.missing) {
      atomicOr(&k->missing, 1u);
      return;
    }
    if (!v.agree) atomicMin(&k->first_disagreeing, static_cast<unsigned long long>(i));
    if (!have_prev || v.code != prev) {
      const unsigned long long slot = atomicAdd(&k->count, 1ull);
      if (slot < capacity) out[slot] = ChangePoint{i, v.code};
    }
    prev = v.code;
    have_prev = true;
    if (i == end) break;
  }
}

template <std::size_t I>
__global__ void cases_kernel(const std::uint32_t* in, const std::uint32_t* rbits, std::uint32_t* out, std::size_t n,
                             Counters* k) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const Lanes v = evaluate<I>(in[i], rbits[i]);
  if (v.missing) {
    atomicOr(&k->missing, 1u);
    return;
  }
  if (!v.agree) atomicMin(&k->first_disagreeing, static_cast<unsigned long long>(i));
  out[i] = v.code;
}

/// Device memory freed on every exit.
template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { check(cudaMalloc(&p, n * sizeof(T) + 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

Counters fresh_counters() { return Counters{0, ~0ull, 0}; }

/// Sets the device Counters to fresh_counters() before a launch.
void reset_counters(const DeviceBuffer<Counters>& k) {
  const Counters init = fresh_counters();
  check(cudaMemcpy(k.p, &init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy");
}

/// Waits for the kernel just launched (reporting a launch or run error) and reads its Counters.
Counters finished_counters(const DeviceBuffer<Counters>& k) {
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  Counters got;
  check(cudaMemcpy(&got, k.p, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return got;
}

template <std::size_t I>
SweepResult sweep_one(std::uint64_t first, std::uint64_t last) {
  constexpr Call C = kCaptures[I];
  if constexpr (C.api == Api::ptx_rs_x4) {
    throw std::logic_error("sweep_change_points: a stochastic-rounding capture has no run table");
  } else {
    const std::uint64_t n = last - first + 1;
    // About 2^20 threads for a 2^32 sweep (strips of 4096); one input per thread for small ones.
    const std::uint64_t strip = n > (1ull << 20) ? (n >> 20) : 1;
    const std::uint64_t threads = (n + strip - 1) / strip;
    const unsigned block = 256;
    const unsigned grid = static_cast<unsigned>((threads + block - 1) / block);
    unsigned long long capacity = 1ull << 20;
    SweepResult r;
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      DeviceBuffer<ChangePoint> points(capacity);
      const DeviceBuffer<Counters> k(1);
      reset_counters(k);
      change_points_kernel<I><<<grid, block>>>(first, last, strip, points.p, capacity, k.p);
      const Counters got = finished_counters(k);
      if (got.missing) {
        r.missing = true;
        return r;
      }
      if (got.count > capacity) {  // the buffer was too small: again, with room for all
        capacity = got.count;
        continue;
      }
      r.points.resize(got.count);
      check(cudaMemcpy(r.points.data(), points.p, got.count * sizeof(ChangePoint), cudaMemcpyDeviceToHost), "cudaMemcpy");
      r.lanes_disagree = got.first_disagreeing != ~0ull;
      r.first_disagreeing = got.first_disagreeing;
      break;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
}

template <std::size_t I>
CasesResult cases_one(const std::vector<std::uint32_t>& in, const std::vector<std::uint32_t>& rb) {
  constexpr Call C = kCaptures[I];
  if constexpr (C.api != Api::ptx_rs_x4) {
    throw std::logic_error("run_cases: only the stochastic-rounding captures run on case lists");
  } else {
    const std::size_t n = in.size();
    CasesResult r;
    if (n == 0) return r;
    DeviceBuffer<std::uint32_t> din(n), drb(n), dout(n);
    const DeviceBuffer<Counters> k(1);
    reset_counters(k);
    check(cudaMemcpy(din.p, in.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(drb.p, rb.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    const unsigned block = 256;
    cases_kernel<I><<<static_cast<unsigned>((n + block - 1) / block), block>>>(din.p, drb.p, dout.p, n, k.p);
    const Counters got = finished_counters(k);
    if (got.missing) {
      r.missing = true;
      return r;
    }
    r.codes.resize(n);
    check(cudaMemcpy(r.codes.data(), dout.p, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    r.lanes_disagree = got.first_disagreeing != ~0ull;
    r.first_disagreeing = got.first_disagreeing;
    return r;
  }
}

using SweepFn = SweepResult (*)(std::uint64_t, std::uint64_t);
using CasesFn = CasesResult (*)(const std::vector<std::uint32_t>&, const std::vector<std::uint32_t>&);

template <std::size_t... I>
constexpr std::array<SweepFn, sizeof...(I)> sweep_table(std::index_sequence<I...>) {
  return {&sweep_one<I>...};
}
template <std::size_t... I>
constexpr std::array<CasesFn, sizeof...(I)> cases_table(std::index_sequence<I...>) {
  return {&cases_one<I>...};
}

const auto kSweeps = sweep_table(std::make_index_sequence<kCaptureCount>{});
const auto kCases = cases_table(std::make_index_sequence<kCaptureCount>{});

}  // namespace

DeviceInfo query_device() {
  DeviceInfo d;
  const auto got = cuda_probe::query_device<4, DeviceBuffer>(d, probe_kernel, check, "no CUDA device");
  d.compiled_needs = static_cast<std::uint32_t>(got[3]);
  return d;
}

SweepResult sweep_change_points(std::size_t index, std::uint64_t first, std::uint64_t last) {
  if (index >= kCaptureCount) throw std::logic_error("sweep_change_points: no such capture");
  return kSweeps[index](first, last);
}

CasesResult run_cases(std::size_t index, const std::vector<std::uint32_t>& inputs,
                      const std::vector<std::uint32_t>& rbits) {
  if (index >= kCaptureCount || inputs.size() != rbits.size()) throw std::logic_error("run_cases: bad arguments");
  return kCases[index](inputs, rbits);
}

}  // namespace softmx::capture
