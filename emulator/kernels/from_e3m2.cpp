// emulator/kernels/from_e3m2.cpp: the conversion kernels from e3m2 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e3m2)
