// emulator/vectors/reader.cpp: see reader.hpp.
#include "softmx/vectors/reader.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "softmx/error.hpp"
#include "softmx/text.hpp"

namespace softmx::vec {
namespace {



bool blank_or_comment(const std::string& line) {
  for (char c : line) {
    if (c == ' ' || c == '\t') continue;
    return c == '#';
  }
  return true;
}

// Parses exactly `digits` hex digits; nullopt otherwise.
bool parse_hex_field(std::string_view s, int digits, std::uint64_t& v) {
  if (static_cast<int>(s.size()) != digits) return false;
  v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return true;
}

std::string field_expectation(const Field& f) {
  std::string s = std::to_string(f.digits) + " hex digit" + (f.digits == 1 ? "" : "s");
  if (f.format) {
    const Format& fm = format(*f.format);
    s += " (" + std::string(fm.name) + (fm.width % 4 ? " code, " + hex(0, f.digits) + ".." + hex(f.max, f.digits) + ")" : ")");
  } else {
    s += " (random bits below 2^" + std::to_string(std::bit_width(f.max)) + ")";
  }
  return s;
}

/// The longest data line of a file with layout `l` (twice the canonical line, at least the
/// default): see line_reader.hpp.
std::size_t layout_line_limit(const LineLayout& l) {
  std::size_t fields = l.operands.size() + l.results.size() + 1, digits = 2;
  for (const auto* side : {&l.operands, &l.results})
    for (const Field& f : *side) digits = std::max(digits, static_cast<std::size_t>(f.digits));
  return data_line_limit(fields, digits);
}

/// Once the header lines read so far make a whole header, the lines that follow (the first
/// data line among them) may be as long as its data lines: twice the canonical length, never
/// less than the default (line_reader.hpp). Until then (and for a header that does not parse)
/// the default limit holds. Re-checked after each header line: a header has a few dozen.
void raise_limit_once_complete(const HeaderParser& hp, LineReader& lines, const std::string& name) {
  try {
    lines.set_max_line(layout_line_limit(line_layout(hp.finish(name))));
  } catch (const InputError&) {
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

std::string read_vector_text(std::istream& in, const std::string& name) {
  LineReader lines(in, name);
  HeaderParser hp;
  bool in_header = true;
  std::string text, line;
  while (lines.next(line)) {
    if (in_header && !blank_or_comment(line)) {
      if (line.find('=') != std::string::npos) {
        try {
          hp.add(line, lines.where());
          raise_limit_once_complete(hp, lines, name);
        } catch (const InputError&) {
          in_header = false;  // a bad header: the reader will say so; the default limit stays
        }
      } else {
        in_header = false;
      }
    }
    text += line;
    if (lines.ended_with_newline()) text += '\n';
  }
  return text;
}

VectorReader::VectorReader(std::istream& in, std::string name) : in_(&in), name_(std::move(name)), lines_(in, name_) {
  HeaderParser hp;
  std::string line;
  while (read_line(line)) {
    if (blank_or_comment(line)) continue;
    if (line.find('=') == std::string::npos) {
      if (!hp.started())
        throw InputError(name_, lines_.line(), "expected 'softmx-vectors = 1' (a softmx vector file starts with its header)");
      pending_ = std::move(line);
      has_pending_ = true;
      break;
    }
    hp.add(line, lines_.where());
    raise_limit_once_complete(hp, lines_, name_);
  }
  if (!hp.started()) throw InputError(name_, 0, "empty file: expected a header starting with 'softmx-vectors = 1'");
  header_ = hp.finish(name_);
  layout_ = line_layout(header_);
  lines_.set_max_line(layout_line_limit(layout_));
}

std::unique_ptr<VectorReader> VectorReader::open(const std::string& path) {
  if (path == "-") return std::make_unique<VectorReader>(std::cin, "<stdin>");
  auto f = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*f) throw InputError("cannot open " + quote(path, '\'', 240) + ": " + std::strerror(errno));
  auto r = std::make_unique<VectorReader>(*f, path);
  r->owned_ = std::move(f);
  return r;
}

std::unique_ptr<VectorReader> VectorReader::from_string(std::string text, std::string name) {
  auto in = std::make_unique<std::istringstream>(std::move(text));
  auto r = std::make_unique<VectorReader>(*in, std::move(name));
  r->owned_ = std::move(in);
  return r;
}

bool VectorReader::read_line(std::string& line) {
  if (!lines_.next(line)) return false;
  ++line_no_;
  if (!lines_.ended_with_newline())
    throw InputError(name_, lines_.line(), "the last line has no newline at its end: the file may be cut short (every line "
                                      "of a vector file ends in LF; vectors/README.md 2)");
  return true;
}

bool VectorReader::next_data_line(std::string& line) {
  if (has_pending_) {
    line = std::move(pending_);
    has_pending_ = false;
    return true;
  }
  while (read_line(line)) {
    if (blank_or_comment(line)) continue;
    if (line.find('=') != std::string::npos)
      throw InputError(name_, lines_.line(), "a header line 'key = value' after the data lines began");
    return true;
  }
  return false;
}

void VectorReader::parse_record(const std::string& line, Record& r) {
  const auto fields = split_fields(line);
  const std::size_t no = layout_.operands.size(), nr = layout_.results.size();
  const std::size_t n = fields.size();
  if (n != no && n != no + nr && (n != no + nr + 1 || !layout_.flags))
    throw InputError(name_, lines_.line(), std::to_string(n) + " field" + (n == 1 ? "" : "s") + ", expected " +
                     layout_.expected());
  r.operands.resize(no);
  r.results.resize(n > no ? nr : 0);
  r.has_flags = n == no + nr + 1;
  // All or none (vectors/README.md 4): every data line has the columns of the first one, so
  // that a file cannot give results or flags on some lines only.
  const int shape = n == no ? 0 : n == no + nr ? 1 : 2;
  if (shape_ < 0) {
    shape_ = shape;
    shape_line_ = lines_.line();
  } else if (shape != shape_) {
    static constexpr const char* kShape[] = {"operands only", "operands and results, no flags", "operands, results and flags"};
    throw InputError(name_, lines_.line(), std::string(header_.layout == Layout::runs
                                                           ? "flags are given on some run lines and not on others: "
                                                           : "") +
                                               "this line has " + std::string(kShape[shape]) + ", but line " +
                                               std::to_string(shape_line_) + " (the first data line) has " + kShape[shape_] +
                                               ": every data line gives the same columns (all or none; vectors/README.md 4)");
  }
  r.flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Field* f = nullptr;
    std::uint64_t* dst = nullptr;
    static const Field kFlags{2, 0x1F, "FLAGS", std::nullopt};
    if (i < no) {
      f = &layout_.operands[i];
      dst = &r.operands[i];
    } else if (i < no + nr) {
      f = &layout_.results[i - no];
      dst = &r.results[i - no];
    } else {
      f = &kFlags;
    }
    std::uint64_t v = 0;
    if (!parse_hex_field(fields[i], f->digits, v) || v > f->max) {
      const std::string what = f == &kFlags ? "2 hex digits (flags 00..1F: 01 inexact, 02 underflow, 04 overflow, 08 infinite, 10 invalid)"
                                            : field_expectation(*f);
      throw InputError(name_, lines_.line(), "field " + std::to_string(i + 1) + " (" + f->label + "): expected " + what +
                       ", got " + quote(fields[i], '"', 40));
    }
    if (dst) *dst = v;
    else r.flags = static_cast<Flags>(v);
  }
}

bool VectorReader::next(Record& r) {
  std::string line;
  if (!next_data_line(line)) return false;
  parse_record(line, r);
  return true;
}

bool VectorReader::next_run(Run& run) {
  if (header_.layout != Layout::runs) throw InputError(name_, 0, "not a run table (the header has no 'layout = runs')");
  if (run_done_) return false;
  if (!run_started_) {
    if (!next(run_rec_)) throw InputError(name_, 0, "a run table without runs (expected 'FIRST OUT FLAGS' lines)");
    run_started_ = true;
    if (run_rec_.operands[0] != header_.first)
      throw InputError(name_, lines_.line(), "the first run starts at " + hex(run_rec_.operands[0], layout_.operands[0].digits) +
                       ", expected the header's first = " + hex(header_.first, layout_.operands[0].digits));
  }
  const Record cur = run_rec_;
  const std::string cur_where = where();
  if (cur.results.empty()) throw InputError(cur_where + ": a run line needs FIRST and OUT (and FLAGS)");
  const int mode = cur.has_flags ? 1 : 0;
  if (run_flags_mode_ == -1) run_flags_mode_ = mode;
  else if (run_flags_mode_ != mode)
    throw InputError(cur_where + ": flags are given on some run lines and not on others (all or none)");
  run.first = cur.operands[0];
  run.code = cur.results[0];
  run.has_flags = cur.has_flags;
  run.flags = cur.flags;
  if (next(run_rec_)) {
    if (run_rec_.operands[0] <= cur.operands[0])
      throw InputError(name_, lines_.line(), "run FIRST " + hex(run_rec_.operands[0], layout_.operands[0].digits) +
                       " does not increase (the previous run starts at " + hex(cur.operands[0], layout_.operands[0].digits) + ")");
    if (run_rec_.operands[0] > header_.last)
      throw InputError(name_, lines_.line(), "run FIRST " + hex(run_rec_.operands[0], layout_.operands[0].digits) +
                       " is beyond the header's last = " + hex(header_.last, layout_.operands[0].digits));
    run.last = run_rec_.operands[0] - 1;
  } else {
    run.last = header_.last;
    run_done_ = true;
  }
  return true;
}

}  // namespace softmx::vec
