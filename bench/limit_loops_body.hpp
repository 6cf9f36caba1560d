// bench/limit_loops_body.hpp: the one source of the limit loops (limit_loops.hpp), included by
// each limit_loops_*.cpp, which CMake compiles with its instruction set's -m flags. The loops
// have internal linkage (an unnamed namespace), so every one of those translation units keeps
// its own copy built with its own flags: an inline function instead could be merged by the
// linker into one copy, built for whichever instruction set it picked.
#pragma once

#include "limit_loops.hpp"

namespace softmx::bench {
namespace {
/// out[i] = in[i] >> 24 for i in [0, n): read an f32 (as bits), write a byte (ReadF32WriteU8).
void f32_to_u8(const std::uint32_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i] >> 24);
}
/// out[i] = in[i] << 20 for i in [0, n): read a byte, write an f32 (as bits) (ReadU8WriteF32).
void u8_to_f32(const std::uint8_t* in, std::uint32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>(in[i]) << 20;
}
}  // namespace
}  // namespace softmx::bench
