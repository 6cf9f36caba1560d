// emulator/kernels/from_f32.cpp: the conversion kernels from f32 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(f32)
