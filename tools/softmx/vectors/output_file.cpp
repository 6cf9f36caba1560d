// tools/softmx/vectors/output_file.cpp: see output_file.hpp.
#include "vectors/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "cli.hpp"

namespace softmx::vec {

OutputFile::OutputFile(std::string path) {
  buf_.reserve(1 << 17);
  if (path.empty() || path == "-") {
    f_ = stdout;
    return;
  }
  path_ = std::move(path);
  const std::filesystem::path p(path_);
  std::string tmp_name = ".";
  tmp_name.append(p.filename().string()).append(".tmp").append(std::to_string(::getpid()));
  tmp_ = (p.parent_path() / tmp_name).string();
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw cli::UsageError("cannot write " + path_ + " (temporary " + tmp_ + "): " + std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (path_.empty()) {
    flush();
    std::fflush(stdout);
    return;
  }
  std::fclose(f_);
  std::remove(tmp_.c_str());
}

void OutputFile::flush() {
  if (buf_.empty()) return;
  const std::size_t n = std::fwrite(buf_.data(), 1, buf_.size(), f_);
  buf_.clear();
  if (n == 0 && !path_.empty()) throw cli::UsageError("cannot write " + tmp_ + ": " + std::strerror(errno));
}

void OutputFile::commit() {
  flush();
  committed_ = true;
  if (path_.empty()) {
    std::fflush(stdout);
    return;
  }
  const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  const int err = errno;
  std::fclose(f_);
  if (!ok) {
    std::remove(tmp_.c_str());
    throw cli::UsageError("cannot write " + path_ + ": " + std::strerror(err));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_.c_str());
    throw cli::UsageError("cannot rename " + tmp_ + " to " + path_ + ": " + std::strerror(e));
  }
}

}  // namespace softmx::vec
