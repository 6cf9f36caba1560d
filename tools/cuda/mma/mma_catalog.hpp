// tools/cuda/mma/mma_catalog.hpp: every tensor-core form the mma capture knows, what it runs,
// which softmx model its vector file names, and why a GPU or a build cannot run it.
//
// The forms (tools/cuda/README.md has the table with what each proves):
//   - mma.sync m16n8k32 FP8 (e4m3/e5m2, f32 and f16, with and without C): sm_89 and later;
//     files mma-<a>-<b>-<acc>-<c|noc>.vec (the names of the first capture program);
//   - sm_120 family (RTX 50, RTX PRO, DGX Spark): mma.sync .kind::f8f6f4 (all 25 pairs of
//     e4m3 e5m2 e3m2 e2m3 e2m1, f32), .kind::mxf8f6f4 .block_scale .scale_vec::1X .ue8m0 (25
//     pairs), m16n8k64 .kind::mxf4 2X ue8m0, .kind::mxf4nvf4 2X ue8m0, 4X ue4m3 and (PTX ISA
//     9.1, CUDA 13.1 or later) 4X ue8m0; files mma-sync-<kind>-...;
//   - sm_100a/103a/110a (B200, B300, GB200, Thor): tcgen05.mma.cta_group::1 M = 128, N = 8:
//     .kind::f8f6f4 (25 pairs; the FP8 pairs also with f16 and without C), .kind::mxf8f6f4
//     1X ue8m0 (25 pairs; same-type pairs also without C), .kind::mxf4 2X ue8m0, .kind::mxf4nvf4
//     2X ue8m0, 4X ue4m3, 4X ue8m0 (each with and without C); files mma-tcgen05-<kind>-...
// Without C ("noc"): mma.sync runs C = +0; tcgen05 runs with enable-input-d false (D = A B, the
// accumulator not read), which the file records as addend = no (C = +0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mma_cases.hpp"
#include "mma_types.hpp"

namespace softmx::mma_capture {

/// Default level-2 random cases: the main forms (the FP8 mma.sync forms, same-type FP8 and FP4
/// pairs, the FP4 kinds) and the others (mixed and FP6 pairs).
inline constexpr std::uint64_t kMainCount = 10000, kOtherCount = 1000;

/// One capture form: one vector file.
struct CaptureForm {
  std::string file;         ///< "mma-tcgen05-mxf8f6f4-e4m3-e2m1-ue8m0x32-f32-c.vec"
  std::string instruction;  ///< the PTX instruction (x-instruction)
  DeviceForm dev;
  CaseShape shape;
  Feature needs = Feature::mma_fp8;
  std::uint64_t default_count = kMainCount;
  /// The softmx model the file names (model = ...); empty for the FP8 mma.sync forms, whose
  /// model depends on the GPU (model_for).
  std::string model;
};

/// Every form, in a fixed order (the order of the capture and of the files' listing).
const std::vector<CaptureForm>& capture_forms();

/// The model the vector file of `f` names on a GPU of compute capability major.minor: the
/// form's own model, or for the FP8 mma.sync forms ada-fp8-mma on 8.9, blackwell-f8f6f4 on
/// 12.x (MMA-Sim's "RTX Blackwell" FP8 mma) and hopper-fp8-mma elsewhere (9.x, 10.x, 11.x: the
/// HMMA emulation the Hopper and B200 mma.sync captures of Khattak and Mikaitis show).
std::string model_for(const CaptureForm& f, int major, int minor);

/// The GPU and build a capture runs on, as the device probe reports them.
struct DeviceStatus {
  int major = 0, minor = 0;       ///< compute capability
  std::uint32_t features = 0;     ///< feature_bit(Feature) of what the running SASS holds
  std::string target;             ///< the running SASS, "sm_100a (__CUDA_ARCH__ 1000, ...)"
  int nvcc_major = 0, nvcc_minor = 0;  ///< the CUDA toolkit that built the device code
};

/// Why `f` cannot run on `d` (nullopt: it can): a sentence naming what it needs and what this
/// GPU and build are.
std::optional<std::string> skip_reason(const CaptureForm& f, const DeviceStatus& d);

/// The softmx format of an element type.
FormatId format_of(Elem e);

}  // namespace softmx::mma_capture
