// tools/softmx/tokens.cpp: see tokens.hpp.
#include "tokens.hpp"

#include "cli.hpp"

namespace softmx::cli {

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
    if (!std::getline(in_, buf_)) {
      if (in_.bad()) throw UsageError(name_ + ": read error");
      return false;
    }
    ++line_;
    pos_ = 0;
  }
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) {
    if (in_.bad()) throw UsageError(name_ + ": read error");
    return false;
  }
  ++line_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace softmx::cli
