// emulator/kernels/from_int8.cpp: the conversion kernels from int8 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(int8)
