// softmx/vectors/line_reader.hpp: lines from a stream, counted, so errors can name the line.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

namespace softmx::vec {

/// Lines from a stream (a trailing '\r' removed), counted from 1.
class LineReader {
 public:
  /// `name` is the stream's name for messages ("<stdin>", a file's path). `in` must outlive
  /// the reader.
  explicit LineReader(std::istream& in, std::string name = "<stdin>") : in_(in), name_(std::move(name)) {}

  /// The next line, or false at the end of the input. A read error (the stream's badbit) throws
  /// InputError "NAME: read error: REASON" with the errno text of the failed read.
  bool next(std::string& line);
  /// "<stdin> line N" for the last line returned.
  std::string where() const { return name_ + " line " + std::to_string(line_); }
  /// The number of the last line returned (0 before the first).
  std::uint64_t line() const { return line_; }
  const std::string& name() const { return name_; }

 private:
  std::istream& in_;
  std::string name_;
  std::uint64_t line_ = 0;
};

}  // namespace softmx::vec
