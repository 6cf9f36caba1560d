// emulator/kernels/from_e2m3.cpp: the conversion kernels from e2m3 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e2m3)
