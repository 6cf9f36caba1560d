// emulator/dot/tensor_core_dot.hpp: DotGeneral under a tensor-core model with an addend and an
// accumulator format (internal).
//
// AccumulationModel::dot_general_to (dot.hpp) serves the TensorCoreModel, whose class
// (tensor_core.hpp) overrides only dot_general(a, b, out): this entry point, defined in
// tensor_core.cpp beside TensorCoreModel::dot_general, reaches the model's own evaluation with
// C. The GEMM's reference (gemm.cpp) calls it for UE4M3 scales with C.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "softmx/dot.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::detail {

/// DotGeneral of the block pairs under `model` with the addend c (nullopt: none, exactly
/// TensorCoreModel::dot_general / dot_general_gst) into the accumulator format acc: f32, or f16
/// (the model's f16 grid; not for per-group models). Per-group (GST) models read the block
/// scales as scale_format (e8m0, or e4m3 for UE4M3, as dot_general_gst); other models read
/// E8M0 (scale_format must be e8m0). C is a code of acc: the accumulator before the first
/// instruction, as mma() takes it. Throws std::invalid_argument for bf16 (no model defines a
/// bf16 accumulator), f16 under a per-group model, a code above acc's mask, and what
/// dot_general / dot_general_gst throw for these blocks. Preconditions: the blocks passed
/// dot_general()'s checks (named formats, E8M0 scales but under GST), or there are none: then
/// the destination and C alone are checked (the GEMM's check before any work).
Result tensor_core_dot_general(const TensorCoreModel& model, std::span<const BlockRef> a, std::span<const BlockRef> b,
                               FormatId scale_format, FormatId acc, std::optional<std::uint32_t> c);

}  // namespace softmx::detail
