// tools/softmx/tokens.hpp: whitespace-separated tokens from a stream, with their line numbers,
// so errors can name where the input went wrong (lines: softmx/vectors/line_reader.hpp).
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "softmx/vectors/line_reader.hpp"

namespace softmx::cli {

class TokenReader {
 public:
  explicit TokenReader(std::istream& in, std::string name = "<stdin>") : in_(in), name_(std::move(name)) {}

  /// The next token, or false at the end of the input (read errors throw UsageError).
  bool next(std::string& token);
  /// The line of the last token returned (1-based).
  std::uint64_t line() const { return token_line_; }
  /// "<stdin> line N" for the last token.
  std::string where() const { return name_ + " line " + std::to_string(token_line_); }
  const std::string& name() const { return name_; }

 private:
  std::istream& in_;
  std::string name_;
  std::string buf_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 0, token_line_ = 0;
};

/// Lines of standard input for the commands that read lines (the library's reader).
using vec::LineReader;

}  // namespace softmx::cli
