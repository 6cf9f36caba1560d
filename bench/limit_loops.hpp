// bench/limit_loops.hpp: the memory loops bench_block compares the block kernels with (the
// limits), compiled once per instruction set (limit_loops_*.cpp, CMake gives each the same -m
// flags as the kernels it is compared with), so that the limit is what that instruction set
// moves, not what a baseline x86-64 build of the loop does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softmx::bench {

/// out[i] = in[i] >> 24: read an f32 (as bits), write a byte.
using ReadF32WriteU8 = void (*)(const std::uint32_t* in, std::uint8_t* out, std::size_t n);
/// out[i] = in[i] << 20: read a byte, write an f32 (as bits).
using ReadU8WriteF32 = void (*)(const std::uint8_t* in, std::uint32_t* out, std::size_t n);

struct LimitLoops {
  const char* isa;  ///< "baseline", "avx2", "avx512"
  ReadF32WriteU8 f32_to_u8;
  ReadU8WriteF32 u8_to_f32;
};

LimitLoops limit_loops_baseline();
LimitLoops limit_loops_avx2();
LimitLoops limit_loops_avx512();

}  // namespace softmx::bench
