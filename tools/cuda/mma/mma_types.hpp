// tools/cuda/mma/mma_types.hpp: the names the host and device halves of the mma capture share:
// element types, kinds of instruction, scale types, and one capture form as the device sees it.
// Plain C++17, no CUDA or softmx header (nvcc compiles the device half without softmx).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SOFTMX_MMA_HD __host__ __device__
#else
#define SOFTMX_MMA_HD
#endif

namespace softmx::mma_capture {

/// The element types of the FP8/FP6/FP4 tensor-core forms, in the order of the PTX names.
enum class Elem : std::uint8_t { e4m3, e5m2, e3m2, e2m3, e2m1 };
inline constexpr int kElemCount = 5;

/// Bits of an element code: 8, 6 or 4.
SOFTMX_MMA_HD constexpr int elem_bits(Elem e) {
  return e == Elem::e4m3 || e == Elem::e5m2 ? 8 : e == Elem::e2m1 ? 4 : 6;
}
/// The PTX type name without the dot: "e4m3".
SOFTMX_MMA_HD constexpr const char* elem_ptx(Elem e) {
  switch (e) {
    case Elem::e4m3: return "e4m3";
    case Elem::e5m2: return "e5m2";
    case Elem::e3m2: return "e3m2";
    case Elem::e2m3: return "e2m3";
    case Elem::e2m1: return "e2m1";
  }
  return "?";
}

/// Which instruction family runs a form.
enum class Engine : std::uint8_t {
  mma_sync,  ///< warp-level mma.sync.aligned (sm_89 and later; the block-scaled kinds on sm_120)
  tcgen05,   ///< tcgen05.mma.cta_group::1 (sm_100a, sm_103a, sm_110a)
};

/// The `.kind` of the instruction (fp8: the mma.sync FP8 form without a .kind qualifier).
enum class Kind : std::uint8_t { fp8, f8f6f4, mxf8f6f4, mxf4, mxf4nvf4 };

/// The scale type of a block-scaled kind.
enum class ScaleType : std::uint8_t { none, ue8m0, ue4m3 };

/// What the compiled SASS that runs holds (bit i: feature i is compiled in). Reported by the
/// device's probe kernel; the host skips a form whose feature is missing, saying why.
enum class Feature : std::uint8_t {
  mma_fp8 = 0,         ///< mma.sync m16n8k32 FP8 (sm_89 and later)
  mma_sm120 = 1,       ///< mma.sync .kind::f8f6f4 and the block-scaled kinds (sm_120f/a, sm_121a)
  mma_sm120_4x_ue8m0 = 2,  ///< mma.sync .kind::mxf4nvf4 .scale_vec::4X .ue8m0 (PTX ISA 9.1: CUDA 13.1+)
  tcgen05 = 3,         ///< tcgen05.mma, all kinds (sm_100a, sm_103a, sm_110a: the a-targets)
};
SOFTMX_MMA_HD constexpr std::uint32_t feature_bit(Feature f) { return 1u << static_cast<int>(f); }

/// One capture form as the device runs it.
struct DeviceForm {
  Engine engine = Engine::mma_sync;
  Kind kind = Kind::fp8;
  Elem a = Elem::e4m3, b = Elem::e4m3;
  bool f16 = false;                    ///< the accumulator (C and D) is f16, else f32
  ScaleType scale = ScaleType::none;   ///< block-scaled kinds: the scale type
  int scale_vec = 0;                   ///< block-scaled kinds: scales per row of A (1, 2 or 4)
  bool enable_c = true;                ///< tcgen05: enable-input-d (false: D = A B, C not read)
};

/// K of a kind: 64 for the packed FP4 kinds, 32 otherwise.
SOFTMX_MMA_HD constexpr int kind_k(Kind k) { return k == Kind::mxf4 || k == Kind::mxf4nvf4 ? 64 : 32; }

}  // namespace softmx::mma_capture
