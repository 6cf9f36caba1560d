// emulator/kernels/from_e2m1.cpp: the conversion kernels from e2m1 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e2m1)
