// tools/softmx/tokens.cpp: see tokens.hpp.
#include "tokens.hpp"

#include <cerrno>
#include <cstring>

#include "cli.hpp"

namespace softmx::cli {
namespace {

/// "NAME: read error: REASON": errno as the failed read(2) left it (cleared before the read),
/// e.g. "Is a directory" for stdin from a folder, "Bad file descriptor" for a closed stdin.
[[noreturn]] void read_error(const std::string& name, int err) {
  throw UsageError(name + ": read error" + (err ? std::string(": ") + std::strerror(err) : std::string()));
}

}  // namespace

bool TokenReader::next(std::string& token) {
  for (;;) {
    while (pos_ < buf_.size() && (buf_[pos_] == ' ' || buf_[pos_] == '\t' || buf_[pos_] == '\r')) ++pos_;
    if (pos_ < buf_.size()) {
      const std::size_t start = pos_;
      while (pos_ < buf_.size() && buf_[pos_] != ' ' && buf_[pos_] != '\t' && buf_[pos_] != '\r') ++pos_;
      token.assign(buf_, start, pos_ - start);
      token_line_ = line_;
      return true;
    }
    errno = 0;
    if (!std::getline(in_, buf_)) {
      if (in_.bad()) read_error(name_, errno);
      return false;
    }
    ++line_;
    pos_ = 0;
  }
}

}  // namespace softmx::cli
