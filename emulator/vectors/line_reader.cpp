// emulator/vectors/line_reader.cpp: see line_reader.hpp.
#include "softmx/vectors/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "softmx/error.hpp"
#include "softmx/text.hpp"

namespace softmx::vec {

std::size_t data_line_limit(std::size_t fields, std::size_t digits) {
  // 2 * fields * (digits + 1), saturating: the header's bounds keep it far from overflow, but
  // the limit must never wrap to something small.
  const std::size_t cap = std::numeric_limits<std::size_t>::max() / 4;
  const std::size_t per = digits + 1;
  const std::size_t canonical = fields > cap / std::max<std::size_t>(per, 1) ? cap : fields * per;
  return std::max(kMaxLineBytes, std::min(cap, canonical) * 2);
}

std::string LineReader::where() const { return shown_name(name_) + " line " + std::to_string(line_); }

bool LineReader::next(std::string& line) {
  line.clear();
  newline_ = false;
  // istream::getline into a bounded buffer: it stops at LF (extracted, not stored), at the end
  // of the input, or with the buffer full (failbit, neither LF nor end seen). Bytes are never
  // interpreted, so a NUL inside a line is kept.
  char buf[1 << 16];
  bool any = false;
  for (;;) {
    errno = 0;
    in_.getline(buf, sizeof buf);
    const auto n = static_cast<std::size_t>(in_.gcount());
    if (in_.bad()) {
      const int err = errno;
      throw InputError(shown_name(name_) + ": read error" + (err ? std::string(": ") + std::strerror(err) : std::string()));
    }
    if (!in_.fail()) {
      if (in_.eof()) {  // the input ended inside the line: n bytes, no LF
        line.append(buf, n);
        any = true;
      } else {  // LF found: n counts it
        line.append(buf, n - 1);
        any = newline_ = true;
      }
      break;
    }
    if (in_.eof()) {  // nothing more (n == 0)
      line.append(buf, n);
      any = any || n > 0;
      break;
    }
    // The buffer filled before a LF: more of the same line follows.
    line.append(buf, n);
    any = true;
    in_.clear();
    if (line.size() > max_line_ + 1) {  // + 1: a CR before the LF is not counted
      const std::uint64_t no = line_ + 1;
      throw InputError(name_, no, "line " + std::to_string(no) + " is longer than " + std::to_string(max_line_) +
                                      " bytes, the most a line may hold here (vectors/README.md 2); the rest was not read: " +
                                      "is this a text file of the expected kind? It begins " +
                                      quote(std::string_view(line).substr(0, 40), '"', 40) + "...");
    }
  }
  if (!any) return false;
  ++line_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > max_line_)
    throw InputError(name_, line_, "line " + std::to_string(line_) + " is longer than " + std::to_string(max_line_) +
                                       " bytes, the most a line may hold here (vectors/README.md 2); it begins " +
                                       quote(std::string_view(line).substr(0, 40), '"', 40) + "...");
  return true;
}

}  // namespace softmx::vec
