// bench/limit_loops_baseline.cpp: the limit loops (limit_loops_body.hpp) built for baseline (CMake sets the flags).
#include "limit_loops_body.hpp"

softmx::bench::LimitLoops softmx::bench::limit_loops_baseline() { return {"baseline", f32_to_u8, u8_to_f32}; }
