// emulator/block/pack.cpp: see include/softmx/pack.hpp for the bit order (one LSB-first bit
// stream for every width 1..8; FP4 and FP6 are its 4- and 6-bit cases).
#include "softmx/pack.hpp"

#include <algorithm>
#include <string>

namespace softmx {
namespace {

void require_narrow(const Format& f) {
  if (f.width > 8 || f.width == 0)
    throw std::invalid_argument("pack: " + std::string(f.name) + " codes do not fit in a byte");
}

}  // namespace

std::size_t packed_size(const Format& f, std::size_t n) {
  require_narrow(f);
  // ceil(w * n / 8) without overflowing w * n: n = 8q + r.
  return f.width * (n / 8) + (f.width * (n % 8) + 7) / 8;
}

std::vector<std::uint8_t> pack(const Format& f, std::span<const std::uint8_t> codes) {
  const std::size_t n = codes.size();
  std::vector<std::uint8_t> out(packed_size(f, n), 0);
  const std::uint64_t mask = f.code_mask();
  for (std::size_t i = 0; i < n; ++i)
    if (codes[i] & ~mask)
      throw std::invalid_argument("pack: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                                  " has bits above the " + std::to_string(f.width) + "-bit " + std::string(f.name) +
                                  " width");
  const unsigned w = f.width;
  if (w == 8) {
    std::copy(codes.begin(), codes.end(), out.begin());
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = w * i;  // the element's first bit in the LSB-first stream
    const unsigned v = static_cast<unsigned>(codes[i]) << (bit % 8);  // at most 15 bits
    out[bit / 8] |= static_cast<std::uint8_t>(v);
    if (bit % 8 + w > 8) out[bit / 8 + 1] |= static_cast<std::uint8_t>(v >> 8);
  }
  return out;
}

std::vector<std::uint8_t> unpack_codes(const Format& f, std::span<const std::uint8_t> bytes, std::size_t n) {
  if (bytes.size() != packed_size(f, n))
    throw std::invalid_argument("unpack: " + std::to_string(n) + " " + std::string(f.name) + " codes take " +
                                std::to_string(packed_size(f, n)) + " bytes, got " + std::to_string(bytes.size()));
  std::vector<std::uint8_t> out(n);
  const unsigned w = f.width;
  if (w == 8) {
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return out;
  }
  const unsigned mask = (1u << w) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = w * i;
    unsigned v = bytes[bit / 8];
    if (bit % 8 + w > 8) v |= static_cast<unsigned>(bytes[bit / 8 + 1]) << 8;
    out[i] = static_cast<std::uint8_t>((v >> (bit % 8)) & mask);
  }
  return out;
}

std::size_t packed_size(FormatId f, std::size_t n) { return packed_size(format(f), n); }
std::vector<std::uint8_t> pack(FormatId f, std::span<const std::uint8_t> codes) { return pack(format(f), codes); }
std::vector<std::uint8_t> unpack_codes(FormatId f, std::span<const std::uint8_t> bytes, std::size_t n) {
  return unpack_codes(format(f), bytes, n);
}

}  // namespace softmx
