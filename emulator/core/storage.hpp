// emulator/core/storage.hpp: how batches hold codes in memory (internal): a code of format f
// sits in the low bits of an unsigned integer of storage_bytes(f) bytes (std::uint8_t for
// widths up to 8, then std::uint16_t, std::uint32_t, std::uint64_t), as Converter::run,
// Dequantizer::run and the tensor functions document.
#pragma once

#include <cstddef>
#include <cstdint>

#include "softmx/format.hpp"

namespace softmx::detail {

/// Bytes of the storage type that holds a code of `f` in batches.
inline std::size_t storage_bytes(const Format& f) {
  const int w = f.width;
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}
inline std::size_t storage_bytes(FormatId f) { return storage_bytes(format(f)); }

/// Writes `code` as element i of an array of `bytes`-byte codes.
inline void store_code(std::size_t bytes, void* out, std::size_t i, std::uint64_t code) {
  switch (bytes) {
    case 1: static_cast<std::uint8_t*>(out)[i] = static_cast<std::uint8_t>(code); break;
    case 2: static_cast<std::uint16_t*>(out)[i] = static_cast<std::uint16_t>(code); break;
    case 4: static_cast<std::uint32_t*>(out)[i] = static_cast<std::uint32_t>(code); break;
    default: static_cast<std::uint64_t*>(out)[i] = code; break;
  }
}
/// Writes `code` as element i of an array of f's storage type.
inline void store_code(const Format& f, void* out, std::size_t i, std::uint64_t code) {
  store_code(storage_bytes(f), out, i, code);
}
inline void store_code(FormatId f, void* out, std::size_t i, std::uint64_t code) {
  store_code(storage_bytes(f), out, i, code);
}

/// Element i of an array of `bytes`-byte codes.
inline std::uint64_t load_code(std::size_t bytes, const void* in, std::size_t i) {
  switch (bytes) {
    case 1: return static_cast<const std::uint8_t*>(in)[i];
    case 2: return static_cast<const std::uint16_t*>(in)[i];
    case 4: return static_cast<const std::uint32_t*>(in)[i];
    default: return static_cast<const std::uint64_t*>(in)[i];
  }
}

}  // namespace softmx::detail
