// tools/softmx/tokens.hpp: whitespace-separated tokens from a stream, with their line numbers,
// so errors can name where the input went wrong (lines: softmx/vectors/line_reader.hpp).
#pragma once

#include <cstdint>
#include <iostream>
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
  std::string buf_;      ///< the line being split into tokens
  std::size_t pos_ = 0;  ///< where in buf_ the next token's search starts
  std::istream& in_;
  std::string name_;
  std::uint64_t line_ = 0;        ///< lines read so far
  std::uint64_t token_line_ = 0;  ///< the line of the last token returned
};

/// Lines of standard input for the commands that read lines (the library's reader).
using vec::LineReader;

/// Standard input's lines with their places, for the line filters (convert, dequantize, dot):
/// each next() moves to the following line, false at the end of the input (errors as
/// LineReader::next), and leaves it in `line` and its "<stdin> line N" in `where`.
class StdinLines {
 public:
  bool next() {
    if (!reader_.next(line)) return false;
    where = reader_.where();
    return true;
  }
  std::string line;   ///< the current line, its LF (and a CR before it) removed
  std::string where;  ///< "<stdin> line N" for `line`, as messages name places

 private:
  LineReader reader_{std::cin};
};

}  // namespace softmx::cli
