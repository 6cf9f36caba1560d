// emulator/kernels/from_bf16.cpp: the conversion kernels from bf16 (see core/kernels.hpp).
#include "core/kernels.hpp"

SOFTMX_DEFINE_KERNEL_ROW(bf16)
