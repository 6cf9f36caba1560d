// emulator/core/ascii.hpp: ASCII lower-casing for case-insensitive name lookups (internal).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace softmx::detail {

inline std::string ascii_lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

}  // namespace softmx::detail
