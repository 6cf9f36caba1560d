// conformance/support/files.hpp: a test's files: read one whole, write one, a scratch folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace softmx::testing {

/// The file's bytes ("" when it cannot be read). A std::filesystem::path converts.
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A fresh directory for one test binary's files (removed by the OS's temp cleaning, kept
/// after a failure for inspection).
inline std::string scratch_dir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("softmx_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace softmx::testing
