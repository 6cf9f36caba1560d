// tools/softmx/vectors/output_file.hpp: where a command writes a file.
//
// To a named file, through a temporary file in the same folder renamed over the target by
// commit(): a reader never sees a half-written file, and an error (or a crash) leaves the
// target as it was. To standard output ("-" or no path): buffered, and whatever was produced
// is written even when an error unwinds, so results before a bad input are never lost.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace softmx::vec {

class OutputFile {
 public:
  /// `path` empty or "-": standard output. Throws cli::UsageError when the temporary file
  /// cannot be created.
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Uncommitted: a file target's temporary is removed; standard output is flushed.
  ~OutputFile();

  /// Append here; call chunk() after each record.
  std::string& text() { return buf_; }
  void chunk() {
    if (buf_.size() >= (1u << 16)) flush();
  }
  /// Writes what is left and, for a file, renames the temporary over the target.
  void commit();
  bool to_stdout() const { return path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  void flush();
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  std::string buf_;
  bool committed_ = false;
};

/// Appends `v` as exactly `digits` upper-case hex digits.
inline void append_hex(std::string& s, std::uint64_t v, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  const std::size_t at = s.size();
  s.resize(at + static_cast<std::size_t>(digits));
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[at + static_cast<std::size_t>(i)] = kDigits[v & 0xF];
}

}  // namespace softmx::vec
