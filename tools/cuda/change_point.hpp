// tools/cuda/change_point.hpp: the record the capture kernels append, shared by the device code
// (nvcc) and the host reduction (g++). Plain C++, no other includes, so both compilers see the
// same 16-byte layout.
#pragma once

#include <cstdint>

namespace softmx::capture {

/// One change point: input `input` converts to `code`, and as far as the thread that wrote it
/// saw, input - 1 converted to another code (or `input` is the first input of the range).
struct ChangePoint {
  std::uint64_t input;
  std::uint64_t code;
};
static_assert(sizeof(ChangePoint) == 16, "the device and the host share this layout");

}  // namespace softmx::capture
