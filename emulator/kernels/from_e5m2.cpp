// emulator/kernels/from_e5m2.cpp: the conversion kernels from e5m2 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(e5m2)
