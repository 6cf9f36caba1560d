// emulator/vectors/line_reader.cpp: see line_reader.hpp.
#include "softmx/vectors/line_reader.hpp"

#include <cerrno>
#include <cstring>

#include "softmx/error.hpp"

namespace softmx::vec {

bool LineReader::next(std::string& line) {
  errno = 0;
  if (!std::getline(in_, line)) {
    // errno as the failed read(2) left it (cleared before the read), e.g. "Is a directory" for
    // stdin from a folder, "Bad file descriptor" for a closed stdin.
    if (in_.bad()) {
      const int err = errno;
      throw InputError(name_ + ": read error" + (err ? std::string(": ") + std::strerror(err) : std::string()));
    }
    return false;
  }
  ++line_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace softmx::vec
