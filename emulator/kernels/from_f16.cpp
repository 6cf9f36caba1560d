// emulator/kernels/from_f16.cpp: the conversion kernels from f16 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(f16)
