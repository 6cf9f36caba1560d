// softmx/pack.hpp: packing element codes into bytes, and back (docs/BLOCKS.md section 4).
//
// Codes are passed one per byte (the low `width` bits). The packed layout of a format of w bits
// (1 <= w <= 8) is one bit stream, least significant bit first: element i occupies bits
// w*i .. w*i + w - 1 of the stream, whose bit j is bit (j mod 8) of byte floor(j / 8); an
// element's own bits keep their order (its bit 0 at stream bit w*i). n codes take ceil(w*n / 8)
// bytes, and the bits after the last element (a final partial byte) are zero. So:
//   FP4 (e2m1): two codes per byte, element 2i in the low nibble, 2i+1 in the high nibble.
//   FP6 (e3m2, e2m3): four codes per three bytes: element 4i in bits 0-5 of the little-endian
//     24-bit group, 4i+1 in bits 6-11, 4i+2 in 12-17, 4i+3 in 18-23.
//   8-bit formats (e4m3, e5m2, int8, e8m0): one code per byte, unchanged.
//   Runtime formats (parse_format_spec): 3 bits (e1m2): eight codes per three bytes, element 8i
//     in bits 0-2 of the 24-bit group, 8i+1 in bits 3-5, 8i+2 in bits 6-8 (straddling bytes 0 and
//     1), ...; 5 bits (e2m2, e3m1): eight codes per five bytes; 7 bits: eight per seven bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/format.hpp"

namespace softmx {

struct BlockOptions;  // softmx/block.hpp

/// Bytes that `n` codes of `f` occupy packed: ceil(width * n / 8) (FP4: ceil(n/2); FP6:
/// ceil(3n/4); 8-bit: n). Throws std::invalid_argument for formats wider than 8 bits.
std::size_t packed_size(const Format& f, std::size_t n);
std::size_t packed_size(FormatId f, std::size_t n);

/// Packs n = codes.size() codes of f. Throws std::invalid_argument if a code has bits above
/// the format's width set (naming its index), or for formats wider than 8 bits.
std::vector<std::uint8_t> pack(const Format& f, std::span<const std::uint8_t> codes);
std::vector<std::uint8_t> pack(FormatId f, std::span<const std::uint8_t> codes);

/// Unpacks n codes of f from `bytes` (bits after the last code are ignored). Throws
/// std::invalid_argument if bytes.size() is not packed_size(f, n).
std::vector<std::uint8_t> unpack_codes(const Format& f, std::span<const std::uint8_t> bytes, std::size_t n);
std::vector<std::uint8_t> unpack_codes(FormatId f, std::span<const std::uint8_t> bytes, std::size_t n);

/// pack() into the caller's array: `out` must hold exactly packed_size(f, codes.size()) bytes
/// (std::invalid_argument otherwise, and for a code with bits above the width, naming its
/// index; `out` is then unspecified). One pass over the codes: for streaming (a quantized
/// tensor's codes packed in place of a copy) the bytes moved are the codes once and the packed
/// bytes once.
void pack_into(const Format& f, std::span<const std::uint8_t> codes, std::span<std::uint8_t> out);
/// unpack_codes() into the caller's array: out.size() codes from `bytes`, which must hold
/// exactly packed_size(f, out.size()) bytes (std::invalid_argument otherwise).
void unpack_into(const Format& f, std::span<const std::uint8_t> bytes, std::span<std::uint8_t> out);

/// softmx::quantize_tensor_into (softmx/block.hpp) with the element codes packed: `packed` holds
/// exactly packed_size(options.element, number of values) bytes. The same scales, flags and
/// exceptions, and the bytes pack_into makes of quantize_tensor_into's codes, in one pass in
/// which the codes never reach memory one per byte: along the last axis (each row's packed codes
/// starting on a byte: a row's values times the width a multiple of 8, or one row; not rs) the
/// blocks are quantized a few thousand codes at a time into a buffer that stays in the L1 cache
/// and packed from there; otherwise the codes are made whole, then packed. Throws what
/// quantize_tensor_into throws, and std::invalid_argument when `packed` is not that size.
Flags quantize_tensor_packed_into(FormatId src, const void* data, std::span<const std::size_t> shape,
                                  std::size_t axis, std::size_t k, const BlockOptions& options,
                                  std::span<std::uint8_t> scales, std::span<std::uint8_t> packed,
                                  unsigned threads = 1);

}  // namespace softmx
