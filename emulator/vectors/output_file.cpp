// emulator/vectors/output_file.cpp: see output_file.hpp.
#include "softmx/vectors/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc 2.28 and later)
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

namespace softmx::vec {

OutputError::OutputError(std::string action, std::string path, int err, std::string reason)
    : std::runtime_error(action + (path.empty() ? "" : " " + path) + ": " + (reason.empty() ? std::strerror(err) : reason)),
      action_(std::move(action)),
      path_(std::move(path)),
      reason_(reason.empty() ? std::strerror(err) : std::move(reason)),
      err_(err) {}

namespace {

// ---- the temporaries a signal must remove -------------------------------------------------------
//
// The paths live in fixed storage that is never freed or moved, because the handler may run at
// any moment, in any thread, and may call only async-signal-safe functions: it reads the slots
// and calls unlink(2), rmdir(2), sigaction(2) and raise(3). This is the one piece of global
// state in the unit; a signal handler can see nothing else. A path too long for a slot is still
// removed on every error path, only not on a signal.
enum SlotState : int { kFree = 0, kClaimed = 1, kFile = 2, kDir = 3 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
constexpr int kSlots = 32;
Slot g_slots[kSlots];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_then_die(int sig) {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kFile) ::unlink(s.path);
  for (int i = kSlots - 1; i >= 0; --i)  // folders after their files, the newest first
    if (g_slots[i].state.load(std::memory_order_acquire) == kDir) ::rmdir(g_slots[i].path);
  // The default action, so that the exit status says "killed by signal". The signal stays
  // blocked until the handler returns, then the raised one is delivered.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;  // ignored stays ignored
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_then_die;
      sigemptyset(&sa.sa_mask);
      for (int other : kSignals) sigaddset(&sa.sa_mask, other);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

/// Records `path` (a file or a folder) for the handler; returns its slot, or -1 when the path
/// cannot be recorded.
int claim_slot(const std::string& path, SlotState kind) {
  if (path.size() >= PATH_MAX) return -1;
  install_handlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(kind, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void release_slot(int& i) {
  if (i >= 0) g_slots[i].state.store(kFree, std::memory_order_release);
  i = -1;
}

/// SIGINT, SIGTERM and SIGHUP held (in the calling thread) while a temporary is created and
/// recorded, and while a folder is swapped: a signal then arrives before or after, never between.
class HoldSignals {
 public:
  HoldSignals() {
    sigset_t s;
    sigemptyset(&s);
    for (int sig : kSignals) sigaddset(&s, sig);
    ::pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~HoldSignals() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;

 private:
  sigset_t old_;
};

// ---- paths ----------------------------------------------------------------------------------------

std::string dir_of(const std::string& p) {
  const auto s = p.find_last_of('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : p.substr(0, s);
}

std::string base_of(const std::string& p) {
  const auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

/// N when `p` names this process's descriptor N (/proc/self/fd/N, /proc/PID/fd/N,
/// /dev/fd/N: a folder whose real path is /proc/PID/.../fd).
std::optional<int> descriptor_alias(const std::string& p) {
  const std::string base = base_of(p);
  if (base.empty() || base.size() > 9 || base.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  char real[PATH_MAX];
  if (!::realpath(dir_of(p).c_str(), real)) return std::nullopt;
  const std::string d = real, proc = "/proc/" + std::to_string(::getpid()) + "/";
  if (d.compare(0, proc.size(), proc) != 0 || d.size() < proc.size() + 2 || d.compare(d.size() - 3, 3, "/fd") != 0)
    return std::nullopt;
  return std::atoi(base.c_str());
}

/// Where a symlink chain from `given` ends.
struct Resolved {
  std::string path;          // the chain's end
  bool exists = false;       // whether it exists (then `st` is its lstat)
  struct stat st {};
  std::optional<int> alias;  // the descriptor it names
};

Resolved resolve(const std::string& given, const std::string& action) {
  Resolved r;
  std::string p = given;
  for (int hop = 0; hop <= 40; ++hop) {
    if ((r.alias = descriptor_alias(p))) {
      r.path = p;
      return r;
    }
    if (::lstat(p.c_str(), &r.st) != 0) {
      if (errno != ENOENT) throw OutputError(action, given, errno);
      r.path = p;  // a new path (or a dangling link's target)
      return r;
    }
    if (!S_ISLNK(r.st.st_mode)) {
      r.path = p;
      r.exists = true;
      return r;
    }
    char link[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), link, sizeof link);
    if (n < 0) throw OutputError(action, given, errno);
    if (n == static_cast<ssize_t>(sizeof link)) throw OutputError(action, given, ENAMETOOLONG);
    const std::string t(link, static_cast<std::size_t>(n));
    p = !t.empty() && t[0] == '/' ? t : dir_of(p) + "/" + t;
  }
  throw OutputError(action, given, ELOOP);
}

/// Writes all of data[0..n) to `fd` (short writes continued, EINTR retried), counting the
/// bytes in `used`; past `space` bytes the write fails with ENOSPC. Returns 0 or the errno.
int write_all(int fd, const char* data, std::size_t n, std::uint64_t space, std::uint64_t& used) {
  while (n > 0) {
    std::size_t part = std::min<std::size_t>(n, std::size_t{1} << 30);
    if (space != UINT64_MAX) {
      if (used >= space) return ENOSPC;
      part = static_cast<std::size_t>(std::min<std::uint64_t>(part, space - used));
    }
    const ssize_t w = ::write(fd, data, part);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    data += w;
    n -= static_cast<std::size_t>(w);
    used += static_cast<std::uint64_t>(w);
  }
  return 0;
}

/// fsync(2), where the file system has it: 0 or the errno.
int sync_fd(int fd) {
  if (::fsync(fd) == 0 || errno == EINVAL || errno == EROFS) return 0;
  return errno;
}

void sync_folder(const std::string& dir) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) return;
  ::fsync(d);  // best effort: the rename is done either way
  ::close(d);
}

/// Refuses a regular file the caller may not write, or one marked read-only for everyone.
void check_writable(const std::string& given, const Resolved& r) {
  const bool no_write_bits = (r.st.st_mode & 0222) == 0;
  if (!no_write_bits && ::access(r.path.c_str(), W_OK) == 0) return;
  if (!no_write_bits && errno != EACCES && errno != EPERM) throw OutputError("cannot write", given, errno);
  char mode[16];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(r.st.st_mode & 07777));
  throw OutputError("refusing to replace", given, EACCES,
                    std::string("it is read-only (mode ") + mode + "); make it writable or remove it first");
}

}  // namespace

// ---- OutputFile ---------------------------------------------------------------------------------

OutputFile::OutputFile(std::string path, OutputLimits limits) : path_(std::move(path)), limits_(limits) {
  buf_.reserve(1 << 17);
  if (path_ == kStandardOutput) {
    fd_ = STDOUT_FILENO;
    return;
  }
  if (path_.empty()) throw OutputError("cannot write", "", EINVAL, "the file name is empty (give a path, or - for standard output)");
  const Resolved r = resolve(path_, "cannot write");
  if (r.alias) {  // /dev/stdout and the like: the descriptor itself, as "-"
    fd_ = ::fcntl(*r.alias, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) throw OutputError("cannot write", path_, errno);
    kind_ = Kind::in_place;
    return;
  }
  if (r.exists) {
    const mode_t m = r.st.st_mode;
    if (S_ISCHR(m) || S_ISFIFO(m)) {
      fd_ = ::open(r.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd_ < 0) throw OutputError("cannot write", path_, errno);
      kind_ = Kind::in_place;
      return;
    }
    if (S_ISDIR(m)) throw OutputError("cannot write", path_, EISDIR);
    if (!S_ISREG(m))
      throw OutputError("refusing to write", path_, EINVAL,
                        S_ISBLK(m) ? "it is a block device" : "it is not a regular file, a character device or a FIFO");
    check_writable(path_, r);
  }
  target_ = r.path;
  const std::string base = base_of(target_), dir = dir_of(target_);
  if (base.empty() || base == "." || base == "..") throw OutputError("cannot write", path_, EISDIR);
  kind_ = Kind::replace;
  HoldSignals hold;  // the temporary exists only once it is recorded
  for (int i = 0;; ++i) {
    tmp_ = dir + "/." + base.substr(0, 200) + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(i);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    if (errno != EEXIST || i >= 1000) {
      const int e = errno;
      tmp_.clear();
      throw OutputError("cannot write", path_, e);
    }
  }
  slot_ = claim_slot(tmp_, kFile);
  if (r.exists) {  // the replacement keeps the file's permissions (and owner, where allowed)
    ::fchmod(fd_, r.st.st_mode & 07777);
    if (::fchown(fd_, r.st.st_uid, r.st.st_gid) != 0) {
      // Only root may give a file away; a user's own file keeps its owner anyway.
    }
  }
}

OutputFile::~OutputFile() {
  if (done_) return;
  if (kind_ == Kind::replace) {
    discard();
    return;
  }
  // Standard output or in place: what was produced goes out, as far as it can.
  std::uint64_t used = 0;
  write_all(fd_, buf_.data(), buf_.size(), UINT64_MAX, used);
  if (kind_ == Kind::in_place) ::close(fd_);
}

void OutputFile::write_out(const char* data, std::size_t n) {
  const int e = write_all(fd_, data, n, limits_.space, written_);
  if (e == 0) return;
  buf_.clear();  // lost: not written again by the destructor
  if (kind_ == Kind::standard_output) throw OutputError("cannot write standard output", "", e);
  throw OutputError("cannot write", path_, e);
}

void OutputFile::flush() {
  if (buf_.empty()) return;
  write_out(buf_.data(), buf_.size());
  buf_.clear();
}

namespace {

/// "N bytes (X.Y GiB)": the exact count, and a size a reader takes in at a glance.
std::string bytes_text(std::uint64_t n) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::string s = std::to_string(n) + " bytes";
  if (n < 1024) return s;
  double v = static_cast<double>(n);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char b[32];
  std::snprintf(b, sizeof b, " (%.1f %s)", v, kUnits[u]);
  return s + b;
}

}  // namespace

void OutputFile::require_space(std::uint64_t bytes) {
  if (done_ || fd_ < 0 || bytes == 0) return;
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return;  // a device, FIFO, pipe or terminal
  // Where the bytes go: the offset, or the end for a descriptor opened with O_APPEND (">>").
  const int fl = ::fcntl(fd_, F_GETFL);
  const off_t at = fl >= 0 && (fl & O_APPEND) ? st.st_size : ::lseek(fd_, 0, SEEK_CUR);
  if (at < 0) return;
  const std::uint64_t from = static_cast<std::uint64_t>(at), size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t end = bytes > UINT64_MAX - from ? UINT64_MAX : from + bytes;
  const auto fail = [&](int err, const std::string& why) {
    const std::string reason = "the output needs at least " + bytes_text(bytes) + ", but " + why;
    if (kind_ == Kind::standard_output) throw OutputError("cannot write standard output", "", err, reason);
    throw OutputError("cannot write", path_, err, reason);
  };
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && end > lim.rlim_cur)
    fail(EFBIG, "the file size limit (ulimit -f) is " + bytes_text(lim.rlim_cur) +
                    (from ? " and it would start at byte " + std::to_string(from) : std::string()));
  // The bytes that take new space: those past the current end of the file (a rewrite in place,
  // "1<>FILE", reuses the blocks it overwrites).
  const std::uint64_t reused = from < size ? std::min(size, end) - from : 0;
  const std::uint64_t grows = bytes - reused;
  struct statvfs fs {};
  if (grows == 0 || ::fstatvfs(fd_, &fs) != 0 || fs.f_frsize == 0) return;
  const std::uint64_t avail = fs.f_bavail > UINT64_MAX / fs.f_frsize ? UINT64_MAX : fs.f_bavail * fs.f_frsize;
  if (grows > avail) fail(ENOSPC, "its file system has " + bytes_text(avail) + " free");
}

void OutputFile::commit() {
  if (done_) return;
  flush();
  done_ = true;
  if (kind_ == Kind::standard_output) return;
  if (kind_ == Kind::in_place) {
    const int e = ::close(fd_) == 0 ? 0 : errno;
    fd_ = -1;
    if (e && e != EINTR) throw OutputError("cannot write", path_, e);
    return;
  }
  int e = sync_fd(fd_);
  if (::close(fd_) != 0 && !e && errno != EINTR) e = errno;
  fd_ = -1;
  if (!e && ::rename(tmp_.c_str(), target_.c_str()) != 0) e = errno;
  if (e) {
    discard();
    throw OutputError("cannot write", path_, e);
  }
  release_slot(slot_);
  tmp_.clear();
  sync_folder(dir_of(target_));
}

void OutputFile::abort() noexcept {
  if (done_) return;
  done_ = true;
  buf_.clear();
  if (kind_ == Kind::replace) discard();
  if (kind_ == Kind::in_place) ::close(fd_);
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  release_slot(slot_);
  tmp_.clear();
}

// ---- OutputDirectory ------------------------------------------------------------------------------

OutputDirectory::OutputDirectory(std::string path, std::vector<std::string> names, OutputLimits limits)
    : path_(std::move(path)), names_(std::move(names)), limits_(limits) {
  if (path_.empty()) throw OutputError("cannot write", "", EINVAL, "the folder name is empty");
  std::string p = path_;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const Resolved r = resolve(p, "cannot write");
  target_ = r.path;
  const std::string base = base_of(target_), dir = dir_of(target_);
  if (base.empty() || base == "." || base == ".." || r.alias)
    throw OutputError("cannot replace", path_, EINVAL, "give the folder by its name");
  if (r.exists) {
    if (!S_ISDIR(r.st.st_mode)) throw OutputError("refusing to replace", path_, ENOTDIR, "it exists and is not a directory");
    DIR* d = ::opendir(target_.c_str());
    if (!d) throw OutputError("cannot read", path_, errno);
    std::string foreign;
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      struct stat st {};
      const bool ours = std::find(names_.begin(), names_.end(), n) != names_.end() &&
                        ::fstatat(::dirfd(d), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
      if (!ours) {
        foreign = n;
        break;
      }
    }
    ::closedir(d);
    if (!foreign.empty()) {
      std::string list;
      for (const std::string& n : names_) list += (list.empty() ? "" : ", ") + n;
      throw OutputError("refusing to replace", path_, EEXIST,
                        "it holds " + foreign + ", which is not one of the files written here (" + list +
                            "); give a new or an empty directory");
    }
    target_exists_ = true;
    mode_ = r.st.st_mode & 07777;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw OutputError("cannot create", dir, ec.value());
    const mode_t mask = ::umask(0);  // read the umask (single-threaded here)
    ::umask(mask);
    mode_ = 0777 & ~mask;
  }
  HoldSignals hold;
  std::string tmpl = dir + "/." + base.substr(0, 200) + ".tmp-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw OutputError("cannot write", path_, errno);
  tmp_ = tmpl;
  dir_slot_ = claim_slot(tmp_, kDir);
}

OutputDirectory::~OutputDirectory() { abort(); }

void OutputDirectory::write(const std::string& name, std::span<const std::uint8_t> bytes) {
  const std::string shown = path_ + "/" + name;
  if (done_) throw OutputError("cannot write", shown, EINVAL, "the directory was already committed");
  const std::string p = tmp_ + "/" + name;
  int fd;
  {
    HoldSignals hold;
    fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw OutputError("cannot write", shown, errno);
    written_.push_back(name);
    slots_.push_back(claim_slot(p, kFile));
  }
  int e = write_all(fd, reinterpret_cast<const char*>(bytes.data()), bytes.size(), limits_.space, used_);
  if (!e) e = sync_fd(fd);
  if (::close(fd) != 0 && !e && errno != EINTR) e = errno;
  if (e) throw OutputError("cannot write", shown, e);
}

void OutputDirectory::commit() {
  if (done_) return;
  HoldSignals hold;  // no signal between the steps
  ::chmod(tmp_.c_str(), mode_);
  sync_folder(tmp_);
  const std::string dir = dir_of(target_), base = base_of(target_);
  std::string old;  // where the old folder is once the new one is in place
  int e = 0;
  if (!target_exists_) {
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) e = errno;
  } else if (limits_.exchange && ::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    old = tmp_;
  } else if (!limits_.exchange || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
    // No atomic exchange here: old aside, new in, old removed.
    std::string aside = dir + "/." + base.substr(0, 200) + ".old-XXXXXX";
    if (!::mkdtemp(aside.data())) {
      e = errno;
    } else if (::rename(target_.c_str(), aside.c_str()) != 0) {  // onto the empty folder just made
      e = errno;
      ::rmdir(aside.c_str());
    } else if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
      e = errno;
      ::rename(aside.c_str(), target_.c_str());  // the old folder back
    } else {
      old = aside;
    }
  } else {
    e = errno;
  }
  if (e) {
    remove_new();
    done_ = true;
    throw OutputError("cannot replace", path_, e);
  }
  done_ = true;
  for (int& s : slots_) release_slot(s);
  release_slot(dir_slot_);
  sync_folder(dir);
  if (!old.empty()) {  // the previous run's files (only they were there); a folder that gained others stays
    for (const std::string& n : names_) ::unlink((old + "/" + n).c_str());
    ::rmdir(old.c_str());
  }
}

void OutputDirectory::abort() noexcept {
  if (done_) return;
  done_ = true;
  remove_new();
}

void OutputDirectory::remove_new() noexcept {
  for (const std::string& n : written_) ::unlink((tmp_ + "/" + n).c_str());
  ::rmdir(tmp_.c_str());
  for (int& s : slots_) release_slot(s);
  release_slot(dir_slot_);
}

}  // namespace softmx::vec
