// emulator/kernels/from_e8m0.cpp: the conversion kernels from e8m0 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e8m0)
