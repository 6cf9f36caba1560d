// softmx/sha256.hpp: SHA-256 (FIPS 180-4), for manifests of generated files and the
// inputs-sha256 key of vector files (vectors/README.md 3).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace softmx {

/// SHA-256 over data given in pieces: update() any number of times, then hex() once. The
/// digest equals sha256_hex() of the concatenated pieces.
class Sha256 {
 public:
  void update(std::span<const std::uint8_t> data);
  void update(std::string_view text) { update({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}); }
  /// The digest as 64 lower-case hex digits. Finishes the hash: call once, after the last update.
  std::string hex();
  /// Bytes hashed so far.
  std::uint64_t size() const { return length_; }

 private:
  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t fill_ = 0;        // bytes waiting in block_
  std::uint64_t length_ = 0;    // bytes hashed
};

/// The SHA-256 digest of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::span<const std::uint8_t> data);

}  // namespace softmx
