// bench/limit_loops_avx512.cpp: the limit loops (limit_loops_body.hpp) built for avx512 (CMake sets the flags).
#include "limit_loops_body.hpp"

softmx::bench::LimitLoops softmx::bench::limit_loops_avx512() { return {"avx512", f32_to_u8, u8_to_f32}; }
