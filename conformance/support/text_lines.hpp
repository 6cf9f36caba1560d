// conformance/support/text_lines.hpp: a text file as lines, for tests that edit vector files
// and run tables line by line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace softmx::testing {

/// The text's lines, each with its '\n' (the last one without, when the text does not end in one).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    v.push_back(text.substr(at, end - at));
    at = end;
  }
  return v;
}

/// The lines put back together: join(lines_of(t)) == t.
inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += l;
  return s;
}

/// The index (from 0) of the first data line of a vector file's lines: the first that is neither
/// a comment nor a "key = value" header line (v.size() when there is none).
inline std::size_t first_data(const std::vector<std::string>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i][0] != '#' && v[i].find('=') == std::string::npos) return i;
  return v.size();
}

}  // namespace softmx::testing
