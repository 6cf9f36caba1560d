// emulator/kernels/from_f64.cpp: the conversion kernels from f64 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(f64)
