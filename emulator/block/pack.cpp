// emulator/block/pack.cpp: see include/softmx/pack.hpp for the bit orders.
#include "softmx/pack.hpp"

#include <string>

namespace softmx {
namespace {

void require_narrow(FormatId f) {
  if (format(f).width > 8)
    throw std::invalid_argument("pack: " + std::string(format(f).name) + " codes do not fit in a byte");
}

}  // namespace

std::size_t packed_size(FormatId f, std::size_t n) {
  require_narrow(f);
  switch (format(f).width) {
    case 4: return (n + 1) / 2;
    case 6: return (3 * n + 3) / 4;
    default: return n;
  }
}

std::vector<std::uint8_t> pack(FormatId f, std::span<const std::uint8_t> codes) {
  const std::size_t n = codes.size();
  std::vector<std::uint8_t> out(packed_size(f, n), 0);
  const std::uint64_t mask = format(f).code_mask();
  for (std::size_t i = 0; i < n; ++i)
    if (codes[i] & ~mask)
      throw std::invalid_argument("pack: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                                  " has bits above the " + std::to_string(format(f).width) + "-bit " +
                                  std::string(format(f).name) + " width");
  switch (format(f).width) {
    case 4:
      for (std::size_t i = 0; i < n; ++i) out[i / 2] |= static_cast<std::uint8_t>(codes[i] << (4 * (i % 2)));
      break;
    case 6:
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t bit = 6 * i;  // LSB-first bit stream
        const std::uint32_t v = static_cast<std::uint32_t>(codes[i]) << (bit % 8);
        out[bit / 8] |= static_cast<std::uint8_t>(v);
        if ((bit % 8) + 6 > 8) out[bit / 8 + 1] |= static_cast<std::uint8_t>(v >> 8);
      }
      break;
    default:
      std::copy(codes.begin(), codes.end(), out.begin());
  }
  return out;
}

std::vector<std::uint8_t> unpack_codes(FormatId f, std::span<const std::uint8_t> bytes, std::size_t n) {
  if (bytes.size() != packed_size(f, n))
    throw std::invalid_argument("unpack: " + std::to_string(n) + " " + std::string(format(f).name) + " codes take " +
                                std::to_string(packed_size(f, n)) + " bytes, got " + std::to_string(bytes.size()));
  std::vector<std::uint8_t> out(n);
  switch (format(f).width) {
    case 4:
      for (std::size_t i = 0; i < n; ++i) out[i] = (bytes[i / 2] >> (4 * (i % 2))) & 0xF;
      break;
    case 6:
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t bit = 6 * i;
        std::uint32_t v = bytes[bit / 8];
        if ((bit % 8) + 6 > 8) v |= static_cast<std::uint32_t>(bytes[bit / 8 + 1]) << 8;
        out[i] = static_cast<std::uint8_t>((v >> (bit % 8)) & 0x3F);
      }
      break;
    default:
      std::copy(bytes.begin(), bytes.end(), out.begin());
  }
  return out;
}

}  // namespace softmx
