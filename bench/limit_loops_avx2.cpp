// bench/limit_loops_avx2.cpp: the limit loops (limit_loops.hpp) built for avx2 (CMake sets the flags).
#include "limit_loops.hpp"

namespace softmx::bench {
namespace {
namespace avx2 {
void f32_to_u8(const std::uint32_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i] >> 24);
}
void u8_to_f32(const std::uint8_t* in, std::uint32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>(in[i]) << 20;
}
}  // namespace avx2
}  // namespace

LimitLoops limit_loops_avx2() { return {"avx2", avx2::f32_to_u8, avx2::u8_to_f32}; }
}  // namespace softmx::bench
