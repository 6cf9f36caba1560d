// softmx/error.hpp: the exception every library entry point throws for bad input.
//
// Bad input is anything a caller (a person, a file, another program) got wrong: a malformed
// vector file, an unknown format or dialect name, options that do not go together, a value that
// does not parse. The message is one line that says what was wrong, where and what was
// expected ("results.txt line 12: field 3 (OUT): expected 2 hex digits (e4m3), got \"G1\"");
// where the input is a file, file() and line() say where as data too, so a caller can point at
// it its own way. The command line prints what() and exits with status 2; the Python module
// raises ValueError (pybind11 translates std::invalid_argument so); the C API returns an error
// code with what() as its message.
//
// Failures that are not the caller's input keep their own types: an output that cannot be
// written is a vec::OutputError (softmx/vectors/output_file.hpp), and a broken precondition a
// std::logic_error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace softmx {

namespace detail {
/// A file name as messages show it (softmx/text.hpp shown_name(): control bytes and invalid
/// UTF-8 escaped, at most 240 characters). Defined in emulator/text.cpp.
std::string shown_file_name(const std::string& name);
}  // namespace detail

class InputError : public std::invalid_argument {
 public:
  /// A message that names the input itself (an argument, an option, a value).
  explicit InputError(const std::string& message) : std::invalid_argument(message) {}
  /// An error at `line` (counted from 1; 0: the file as a whole) of `file` (the name as the
  /// caller gave it; "<stdin>" for standard input). what() is "FILE line N: MESSAGE", or
  /// "FILE: MESSAGE" for line 0. FILE is shown escaped (a name holding ESC cannot reach a
  /// terminal raw); file() keeps it as given.
  InputError(std::string file, std::uint64_t line, const std::string& message)
      : std::invalid_argument(detail::shown_file_name(file) + (line ? " line " + std::to_string(line) : std::string()) + ": " + message),
        file_(std::move(file)),
        line_(line) {}

  /// The file the error is in ("" when the input was not a file).
  const std::string& file() const { return file_; }
  /// The line of file() (from 1), or 0 when no single line is at fault.
  std::uint64_t line() const { return line_; }

 private:
  std::string file_;
  std::uint64_t line_ = 0;
};

}  // namespace softmx
