// softmx/vectors/line_reader.hpp: lines from a stream, counted so errors can name the line, and
// bounded so that no input can make a reader grow without limit.
//
// Every reader of lines in softmx (vector files, run tables, the CLI's stdin commands) goes
// through LineReader. A line longer than its limit is an error the moment the limit is passed:
// `verify` on /dev/zero or on a 2 GB file without a newline fails after reading the limit, in
// memory of about the limit, instead of reading until memory runs out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace softmx::vec {

/// The longest line any reader takes by default, in bytes (its LF and a CR before it not
/// counted): 1 MiB. Vector data lines may be longer when their columns need it
/// (data_line_limit(), vectors/README.md 2).
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

/// The longest data line a reader takes for lines of `fields` hex fields of at most `digits`
/// digits each: twice their canonical length (one blank between fields), and never less than
/// kMaxLineBytes. So a dot line of 1024 pairs of 4096-element blocks (25 MB canonical) is
/// taken, and blanks cannot pad a line without bound.
std::size_t data_line_limit(std::size_t fields, std::size_t digits);

/// Lines from a stream (a trailing '\r' removed), counted from 1.
class LineReader {
 public:
  /// `name` is the stream's name for messages ("<stdin>", a file's path). `in` must outlive
  /// the reader. `max_line`: the longest line taken, in bytes (>= 1).
  explicit LineReader(std::istream& in, std::string name = "<stdin>", std::size_t max_line = kMaxLineBytes)
      : in_(in), name_(std::move(name)), max_line_(max_line) {}

  /// The next line, or false at the end of the input. Throws softmx::InputError
  /// "NAME line N: line N is longer than MAX bytes (...)" as soon as a line passes the limit,
  /// having read at most MAX + 64 KiB of it; and "NAME: read error: REASON" for a read error
  /// (the stream's badbit) with the errno text of the failed read.
  bool next(std::string& line);
  /// Whether the last line returned ended in LF (false: the input ended inside it).
  bool ended_with_newline() const { return newline_; }
  /// Changes the limit for the lines that follow (a vector file's data lines, once its header
  /// says their columns).
  void set_max_line(std::size_t max_line) { max_line_ = max_line; }
  std::size_t max_line() const { return max_line_; }
  /// "<stdin> line N" for the last line returned (the name shown as messages show names).
  std::string where() const;
  /// The number of the last line returned (0 before the first).
  std::uint64_t line() const { return line_; }
  const std::string& name() const { return name_; }

 private:
  std::istream& in_;
  std::string name_;
  std::size_t max_line_;
  std::uint64_t line_ = 0;
  bool newline_ = true;
};

}  // namespace softmx::vec
