// emulator/block/scaled_product.hpp: the product of an element and a block scale of any scale
// format, rounded once (internal; docs/BLOCKS.md 2).
#pragma once

#include "softmx/convert.hpp"

namespace softmx::detail {

/// value(x) * value(s) rounded once into `dst` under `ctx` (already resolved for dst), the
/// scale-format branch of dequantize_element after its checks: a NaN operand gives NaN (the
/// element's NaN, else a quiet NaN; invalid for a signalling NaN scale, and round_pack raises
/// it for a signalling element), 0 * Inf gives NaN with invalid, Inf and zero take the XOR of
/// the signs, and finite values their exact product.
Result scaled_product(const Unpacked& x, const Unpacked& s, const Format& dst, const Context& ctx,
                      const Dialect& dialect);

}  // namespace softmx::detail
