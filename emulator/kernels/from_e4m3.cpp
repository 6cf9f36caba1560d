// emulator/kernels/from_e4m3.cpp: the conversion kernels from e4m3 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e4m3)
