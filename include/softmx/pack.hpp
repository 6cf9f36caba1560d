// softmx/pack.hpp: packing element codes into bytes, and back (docs/BLOCKS.md section 4).
//
// Codes are passed one per byte (the low `width` bits). Packed layouts:
//   FP4 (e2m1): two codes per byte, element 2i in the low nibble, 2i+1 in the high nibble.
//   FP6 (e3m2, e2m3): four codes per three bytes, least significant bit first: element 4i in
//     bits 0-5 of the little-endian 24-bit group, 4i+1 in bits 6-11, 4i+2 in 12-17, 4i+3 in 18-23.
//   8-bit formats (e4m3, e5m2, int8, e8m0): one code per byte, unchanged.
// A final partial group is padded with zero bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "softmx/format.hpp"

namespace softmx {

/// Bytes that `n` codes of `f` occupy packed (FP4: ceil(n/2); FP6: ceil(3n/4); 8-bit: n).
/// Throws std::invalid_argument for formats wider than 8 bits.
std::size_t packed_size(FormatId f, std::size_t n);

/// Packs n = codes.size() codes of f. Throws std::invalid_argument if a code has bits above
/// the format's width set, or for formats wider than 8 bits.
std::vector<std::uint8_t> pack(FormatId f, std::span<const std::uint8_t> codes);

/// Unpacks n codes of f from `bytes`. Throws std::invalid_argument if bytes.size() is not
/// packed_size(f, n).
std::vector<std::uint8_t> unpack_codes(FormatId f, std::span<const std::uint8_t> bytes, std::size_t n);

}  // namespace softmx
