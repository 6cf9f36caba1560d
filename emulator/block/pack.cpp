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

namespace {

void require_size(const char* what, const Format& f, std::size_t n, std::size_t bytes) {
  if (bytes != packed_size(f, n))
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) + " " + std::string(f.name) +
                                " codes take " + std::to_string(packed_size(f, n)) + " bytes, got " +
                                std::to_string(bytes));
}

// Throws for the first code with bits above the width (precondition: there is one).
[[noreturn]] void bad_code(const Format& f, std::span<const std::uint8_t> codes) {
  const std::uint64_t mask = f.code_mask();
  std::size_t i = 0;
  while (i + 1 < codes.size() && !(codes[i] & ~mask)) ++i;
  throw std::invalid_argument("pack: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                              " has bits above the " + std::to_string(f.width) + "-bit " + std::string(f.name) +
                              " width");
}

// The byte layouts, pack and unpack side by side. Each pack_* writes every byte of `o` (the
// packed size of n codes) in one pass over the codes and returns the OR of the codes, which
// the caller checks against the width (a bad code only makes wrong bytes, and then the call
// throws); each unpack_* writes the n codes from the packed bytes p (np of them).

// 8 bits: the codes are the bytes.
unsigned pack_bytes(const Format&, const std::uint8_t* c, std::size_t n, std::uint8_t* o, std::size_t) {
  std::copy(c, c + n, o);
  return 0;  // every 8-bit value is a code
}
void unpack_bytes(const Format&, const std::uint8_t* p, std::size_t np, std::uint8_t* o, std::size_t) {
  std::copy(p, p + np, o);
}

// FP4: two codes a byte, the first in the low nibble.
unsigned pack_nibbles(const Format&, const std::uint8_t* c, std::size_t n, std::uint8_t* o, std::size_t) {
  unsigned any = 0;
  const std::size_t pairs = n / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    const unsigned a = c[2 * i], b = c[2 * i + 1];
    any |= a | b;
    o[i] = static_cast<std::uint8_t>(a | b << 4);
  }
  if (n % 2) {
    any |= c[n - 1];
    o[pairs] = c[n - 1];
  }
  return any;
}
void unpack_nibbles(const Format&, const std::uint8_t* p, std::size_t, std::uint8_t* o, std::size_t n) {
  const std::size_t pairs = n / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    o[2 * i] = p[i] & 15;
    o[2 * i + 1] = p[i] >> 4;
  }
  if (n % 2) o[n - 1] = p[pairs] & 15;
}

// FP6: four codes in three bytes, the little-endian 24-bit group a | b << 6 | d << 12 | e << 18.
unsigned pack_sextets(const Format&, const std::uint8_t* c, std::size_t n, std::uint8_t* o, std::size_t no) {
  unsigned any = 0;
  const std::size_t groups = n / 4;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint32_t a = c[4 * g], b = c[4 * g + 1], d = c[4 * g + 2], e = c[4 * g + 3];
    any |= a | b | d | e;
    const std::uint32_t v = a | b << 6 | d << 12 | e << 18;
    o[3 * g] = static_cast<std::uint8_t>(v);
    o[3 * g + 1] = static_cast<std::uint8_t>(v >> 8);
    o[3 * g + 2] = static_cast<std::uint8_t>(v >> 16);
  }
  std::uint32_t v = 0;  // the last, partial group
  for (std::size_t i = 4 * groups; i < n; ++i) {
    any |= c[i];
    v |= static_cast<std::uint32_t>(c[i]) << (6 * (i - 4 * groups));
  }
  for (std::size_t j = 3 * groups; j < no; ++j, v >>= 8) o[j] = static_cast<std::uint8_t>(v);
  return any;
}
void unpack_sextets(const Format&, const std::uint8_t* p, std::size_t np, std::uint8_t* o, std::size_t n) {
  const std::size_t groups = n / 4;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint32_t v = p[3 * g] | static_cast<std::uint32_t>(p[3 * g + 1]) << 8 |
                            static_cast<std::uint32_t>(p[3 * g + 2]) << 16;
    o[4 * g] = v & 63;
    o[4 * g + 1] = v >> 6 & 63;
    o[4 * g + 2] = v >> 12 & 63;
    o[4 * g + 3] = static_cast<std::uint8_t>(v >> 18);
  }
  std::uint32_t v = 0;
  for (std::size_t j = 3 * groups; j < np; ++j) v |= static_cast<std::uint32_t>(p[j]) << (8 * (j - 3 * groups));
  for (std::size_t i = 4 * groups; i < n; ++i, v >>= 6) o[i] = v & 63;
}

// Any other width w: the LSB-first bit stream, element i at bits w*i .. w*i + w - 1.
unsigned pack_stream(const Format& f, const std::uint8_t* c, std::size_t n, std::uint8_t* o, std::size_t no) {
  unsigned any = 0;
  const unsigned w = f.width;
  std::fill(o, o + no, std::uint8_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    any |= c[i];
    const std::size_t bit = w * i;  // the element's first bit in the stream
    const unsigned v = static_cast<unsigned>(c[i] & f.code_mask()) << (bit % 8);  // at most 15 bits
    o[bit / 8] |= static_cast<std::uint8_t>(v);
    if (bit % 8 + w > 8) o[bit / 8 + 1] |= static_cast<std::uint8_t>(v >> 8);
  }
  return any;
}
void unpack_stream(const Format& f, const std::uint8_t* p, std::size_t, std::uint8_t* o, std::size_t n) {
  const unsigned w = f.width, mask = (1u << w) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = w * i;
    unsigned v = p[bit / 8];
    if (bit % 8 + w > 8) v |= static_cast<unsigned>(p[bit / 8 + 1]) << 8;
    o[i] = static_cast<std::uint8_t>((v >> (bit % 8)) & mask);
  }
}

struct Layout {
  unsigned (*pack)(const Format&, const std::uint8_t* codes, std::size_t n, std::uint8_t* out, std::size_t bytes);
  void (*unpack)(const Format&, const std::uint8_t* bytes, std::size_t nbytes, std::uint8_t* out, std::size_t n);
};

// The layout of f's packed codes, after the checks both directions make: f is at most 8 bits
// wide and `bytes` is the packed size of n codes (`what` names the call in the error).
Layout layout(const char* what, const Format& f, std::size_t n, std::size_t bytes) {
  require_narrow(f);
  require_size(what, f, n, bytes);
  switch (f.width) {
    case 8: return {pack_bytes, unpack_bytes};
    case 4: return {pack_nibbles, unpack_nibbles};
    case 6: return {pack_sextets, unpack_sextets};
    default: return {pack_stream, unpack_stream};
  }
}

}  // namespace

void pack_into(const Format& f, std::span<const std::uint8_t> codes, std::span<std::uint8_t> out) {
  const std::size_t n = codes.size();
  const unsigned any = layout("pack", f, n, out.size()).pack(f, codes.data(), n, out.data(), out.size());
  if (any & ~f.code_mask()) bad_code(f, codes);
}

std::vector<std::uint8_t> pack(const Format& f, std::span<const std::uint8_t> codes) {
  std::vector<std::uint8_t> out(packed_size(f, codes.size()));
  pack_into(f, codes, out);
  return out;
}

void unpack_into(const Format& f, std::span<const std::uint8_t> bytes, std::span<std::uint8_t> out) {
  layout("unpack", f, out.size(), bytes.size()).unpack(f, bytes.data(), bytes.size(), out.data(), out.size());
}

std::vector<std::uint8_t> unpack_codes(const Format& f, std::span<const std::uint8_t> bytes, std::size_t n) {
  require_narrow(f);
  require_size("unpack", f, n, bytes.size());
  std::vector<std::uint8_t> out(n);
  unpack_into(f, bytes, out);
  return out;
}

std::size_t packed_size(FormatId f, std::size_t n) { return packed_size(format(f), n); }
std::vector<std::uint8_t> pack(FormatId f, std::span<const std::uint8_t> codes) { return pack(format(f), codes); }
std::vector<std::uint8_t> unpack_codes(FormatId f, std::span<const std::uint8_t> bytes, std::size_t n) {
  return unpack_codes(format(f), bytes, n);
}

}  // namespace softmx
