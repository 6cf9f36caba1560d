// tools/softmx/sha256.hpp: SHA-256 (FIPS 180-4), for manifests of generated files.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace softmx::cli {

/// The SHA-256 digest of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::span<const std::uint8_t> data);

}  // namespace softmx::cli
