// softmx/vectors/reader.hpp: reads vector files and run tables (vectors/README.md),
// streaming, in constant memory. Every error is a InputError naming the file, the line
// and what was expected.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/vectors/line_reader.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"

namespace softmx::vec {

/// One data line of a `cases` file (or one raw line of a run table).
struct Record {
  std::vector<std::uint64_t> operands;
  std::vector<std::uint64_t> results;  ///< empty for an inputs-only line
  bool has_flags = false;
  Flags flags = 0;
};

/// One run of a run table: every input in [first, last] gives `code` with `flags`.
struct Run {
  std::uint64_t first = 0, last = 0;
  std::uint64_t code = 0;
  bool has_flags = false;
  Flags flags = 0;
};

/// The whole vector file on `in` (named `name` in messages) as text, read under the limits a
/// VectorReader applies (header and comment lines kMaxLineBytes; data lines the header's
/// data_line_limit), for a caller that must read it more than once (identify of standard
/// input): /dev/zero fails at the first limit instead of filling memory. The text is not
/// otherwise checked (a VectorReader over it does that); a last line without LF stays so.
/// Throws InputError as LineReader::next does.
std::string read_vector_text(std::istream& in, const std::string& name);

class VectorReader {
 public:
  /// Reads the header from `in` (its lines up to the first data line). `name` is the file's
  /// name for messages. Every line must end in LF (vectors/README.md 2): a last line without
  /// one is an error naming the file and line, wherever it is met.
  VectorReader(std::istream& in, std::string name);
  /// Opens `path` ("-" for standard input) and reads its header.
  static std::unique_ptr<VectorReader> open(const std::string& path);
  /// Reads from a copy of `text` (tests, fuzzers, and input read into memory).
  static std::unique_ptr<VectorReader> from_string(std::string text, std::string name);

  const Header& header() const { return header_; }
  const LineLayout& layout() const { return layout_; }
  const std::string& name() const { return name_; }

  /// The next data line, or false at the end. A line's field count must be that of the
  /// operands, operands + results, or operands + results + flags, the same for every data line
  /// of the file (all or none: the first line that differs from the first data line is an
  /// error naming both); each field its width and range. Data lines may be at most
  /// data_line_limit() of the layout long (line_reader.hpp), header lines kMaxLineBytes.
  bool next(Record& r);
  /// The next run of a `runs` file (checks that FIRST starts at `first` and increases, and
  /// that flags are given on every line or none), or false at the end.
  bool next_run(Run& r);
  /// "name line N" of the last line returned.
  std::string where() const { return lines_.where(); }
  /// The file's line number (1-based, header and comment lines counted) of the last line
  /// returned: the N of where().
  std::uint64_t file_line() const { return lines_.line(); }
  /// Lines read so far.
  std::uint64_t line() const { return line_no_; }

 private:
  /// The next line of the file (counted); false at the end. A line that the file's end cuts
  /// off before its LF is an error: a file cut short must not read as a shorter whole one.
  bool read_line(std::string& line);
  bool next_data_line(std::string& line);
  void parse_record(const std::string& line, Record& r);

  std::istream* in_;
  std::unique_ptr<std::istream> owned_;
  std::string name_;
  LineReader lines_;
  Header header_;
  LineLayout layout_;
  std::string pending_;       // the first data line, read while looking for the header's end
  bool has_pending_ = false;
  std::uint64_t line_no_ = 0;
  int shape_ = -1;               // the first data line's columns: 0 operands, 1 + results, 2 + flags
  std::uint64_t shape_line_ = 0; // and its line
  // runs
  bool run_started_ = false, run_done_ = false;
  Record run_rec_;
  int run_flags_mode_ = -1;   // -1 unknown, 0 none, 1 all
};

}  // namespace softmx::vec
