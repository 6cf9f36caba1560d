// conformance/oracles/cuda_reference.hpp: NVIDIA's own host conversion functions, as an oracle.
//
// Wraps the software paths of cuda_fp8.hpp, cuda_fp6.hpp and cuda_fp4.hpp (compiled for the
// host with g++; no GPU involved) behind one signature, so the conformance suite can compare
// softmx's cuda dialect with them input by input. Built only when the CUDA headers are found
// (SOFTMX_HAVE_CUDA_HEADERS); otherwise available() is false and every call returns nullopt.
#pragma once

#include <cstdint>
#include <optional>

#include "softmx/context.hpp"
#include "softmx/format.hpp"

namespace softmx::cudaref {

/// True when this build includes NVIDIA's headers.
bool available();

/// NVIDIA's result for converting the code `bits` of `src` into `dst`, or nullopt when NVIDIA
/// has no host function for the combination: FP8 destinations take rne only; FP6/FP4 take rne
/// and rz (no saturation parameter: they always clamp, so both saturations are answered);
/// E8M0 takes rz and ru; decodes (element -> f16/f32/f64/bf16, through the __nv_fp8_* /
/// __nv_fp6_* / __nv_fp4_* operators) exist for rne with saturation none only, since their
/// only inexact case (e8m0 -> f16, __float2half_rn) overflows to Inf. No MXINT8.
std::optional<std::uint64_t> convert(FormatId src, FormatId dst, std::uint64_t bits, Rounding rounding,
                                     Saturation saturation);

/// True when convert() has an answer for this combination (any input).
bool supports(FormatId src, FormatId dst, Rounding rounding, Saturation saturation);

/// Batch form for the exhaustive f32 sweeps: out[i] = NVIDIA's code for the f32 input in[i].
/// Precondition: supports(f32, dst, rounding, saturation).
void convert_f32_batch(FormatId dst, Rounding rounding, Saturation saturation, const std::uint32_t* in,
                       std::uint8_t* out, std::size_t n);

}  // namespace softmx::cudaref
