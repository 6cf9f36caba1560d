// softmx/vectors/output_file.hpp: writing an output safely: standard output, a file or a
// directory, every write checked, a file or directory replaced as a unit, and nothing left
// behind by an error or by SIGINT, SIGTERM or SIGHUP.
//
// A self-contained unit (POSIX and the C++ standard library only): open the target, write,
// commit, or abort. Every failure is an OutputError carrying the errno text.
//
// Where a path leads (OutputFile):
//   "-"                            standard output (descriptor 1), written in place.
//   a new path or a regular file   a temporary file in the target's folder, renamed over the
//                                  target by commit(): a reader never sees a half-written file,
//                                  and an error, a signal or a crash leaves the target as it
//                                  was. A replaced file keeps its permission bits (and owner,
//                                  where allowed).
//   a character device or a FIFO   written in place (opened for writing, never replaced).
//   /dev/stdout, /dev/fd/N, /proc/self/fd/N
//                                  descriptor N itself (a duplicate), as "-": the shell's
//                                  redirection, ">>" included, is kept.
//   a symlink                      followed to its end, which is written as above; the link
//                                  stays. A dangling link's target is created.
//   refused                        "" (no file name), a directory, a block device, a socket, and
//                                  a regular file that is read-only: one the caller may not
//                                  write (access(2)), or whose mode has no write bit at all (so
//                                  root, whom access(2) always allows, is refused too).
//
// Signals: while a temporary file or folder exists its path is recorded, and a handler for
// SIGINT, SIGTERM and SIGHUP (installed on first use, except for a signal ignored at that time,
// which stays ignored) removes it with unlink(2) / rmdir(2) only (async-signal-safe), then
// re-raises the signal with its default action, so the exit status still says "killed by
// signal". SIGKILL and a power cut cannot be caught: they may leave a ".NAME.tmp..." file or
// folder beside the target (never a half-written target).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace softmx::vec {

/// An output that could not be written. what() is "ACTION PATH: REASON" (or "ACTION: REASON"
/// when there is no path) with the path as given; the parts are kept so that a caller can show
/// the path its own way (the command line escapes it).
class OutputError : public std::runtime_error {
 public:
  /// `err`: the errno value, whose text (strerror) is the reason unless `reason` is given.
  OutputError(std::string action, std::string path, int err, std::string reason = {});
  const std::string& action() const { return action_; }
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }
  int error_number() const { return err_; }

 private:
  std::string action_, path_, reason_;
  int err_;
};

/// The name that means standard output.
inline constexpr std::string_view kStandardOutput = "-";

/// For tests: a simulated device that holds `space` bytes of file data per output (the write
/// that would go past it fails with ENOSPC, as a full disk does); `exchange` false makes
/// OutputDirectory take the three-rename path of a file system without RENAME_EXCHANGE.
struct OutputLimits {
  std::uint64_t space = UINT64_MAX;
  bool exchange = true;
};

/// One output file (see the table at the top).
class OutputFile {
 public:
  /// Opens the target: `path` is a file name or "-". Throws OutputError (nothing is left
  /// behind) when the target is refused or the temporary file cannot be created.
  explicit OutputFile(std::string path, OutputLimits limits = {});
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Uncommitted: a temporary file is removed (the target stays as it was); standard output
  /// and in-place targets get what was appended, as far as they take it (errors ignored), so
  /// the results before a bad input line are not lost.
  ~OutputFile();

  /// Append here; call chunk() after each record.
  std::string& text() { return buf_; }
  void chunk() {
    if (buf_.size() >= (1u << 16)) flush();
  }
  /// Writes what was appended. Throws OutputError.
  void flush();
  /// Fails fast, before the work, when the target cannot take `bytes` more bytes (a lower
  /// bound of what is still to be written, text() included): throws OutputError (ENOSPC, or
  /// EFBIG for the file size limit) whose reason gives the bytes needed and the bytes free.
  /// Checked only where the output is a regular file (the temporary of a replaced target, or
  /// a descriptor such as a redirected standard output): the space its file system leaves to
  /// unprivileged users (fstatvfs: f_bavail x f_frsize, less what a rewrite in place reuses)
  /// and the file size limit (RLIMIT_FSIZE, `ulimit -f`) beyond the write offset. A device, a
  /// FIFO, a pipe or a terminal is not checked; nor are quotas, and a compressing file system
  /// may hold more than f_bavail says.
  void require_space(std::uint64_t bytes);
  /// Writes what is left and finishes: a temporary file is synced, closed and renamed over the
  /// target; an in-place target is closed. Throws OutputError (the temporary is then removed).
  /// Call once.
  void commit();
  /// Drops what was not written and removes the temporary file (no effect once committed).
  void abort() noexcept;

  bool to_stdout() const { return kind_ == Kind::standard_output; }
  /// The path given ("-" for standard output).
  const std::string& path() const { return path_; }

 private:
  enum class Kind { standard_output, in_place, replace };
  void write_out(const char* data, std::size_t n);
  void discard() noexcept;

  std::string path_;    // as given
  std::string target_;  // replace: the path renamed over (the end of the symlink chain)
  std::string tmp_;     // replace: the temporary file
  Kind kind_ = Kind::standard_output;
  int fd_ = -1;
  int slot_ = -1;  // the temporary's entry in the signal handler's list
  OutputLimits limits_;
  std::uint64_t written_ = 0;
  std::string buf_;
  bool done_ = false;
};

/// A folder of files written as a unit. The files go into a new folder beside the target
/// (".NAME.tmp-XXXXXX"); commit() puts it in the target's place:
///   - no target: one rename(2);
///   - an existing folder: exchanged atomically with renameat2(RENAME_EXCHANGE) where the file
///     system has it, else in three steps (the old folder renamed aside to ".NAME.old-XXXXXX",
///     the new one renamed in, the old one removed; if the second rename fails, the old folder is
///     renamed back). Signals are held during the steps. A crash between them (power cut,
///     SIGKILL) leaves the target missing, the old folder at ".NAME.old-XXXXXX" and the new one
///     at ".NAME.tmp-XXXXXX", beside it: rename either back by hand. After the swap the old
///     files are removed.
/// Any failure before commit() leaves the target untouched and removes the new folder.
/// An existing target is replaced only if it is a folder that is empty or holds nothing but
/// regular files named in `names` (a previous run's output): any other folder, or a target
/// that is not a folder, is refused, so a mistyped path cannot delete a user's files.
class OutputDirectory {
 public:
  /// Checks the target, creates the missing parent folders and the new folder. Throws
  /// OutputError.
  OutputDirectory(std::string path, std::vector<std::string> names, OutputLimits limits = {});
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  ~OutputDirectory();

  /// Writes one file (one of `names`) of the new folder, synced. Throws OutputError.
  void write(const std::string& name, std::span<const std::uint8_t> bytes);
  /// Puts the new folder in the target's place (see above). Throws OutputError.
  void commit();
  /// Removes the new folder (no effect once committed).
  void abort() noexcept;

  /// The folder as named by the caller, and the folder written (the end of its symlink chain).
  const std::string& path() const { return path_; }
  const std::string& target() const { return target_; }

 private:
  void remove_new() noexcept;
  std::string path_, target_, tmp_;
  std::vector<std::string> names_, written_;
  std::vector<int> slots_;
  int dir_slot_ = -1;
  bool target_exists_ = false;
  unsigned mode_ = 0777;
  OutputLimits limits_;
  std::uint64_t used_ = 0;
  bool done_ = false;
};

/// Appends `v` as exactly `digits` upper-case hex digits.
inline void append_hex(std::string& s, std::uint64_t v, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  const std::size_t at = s.size();
  s.resize(at + static_cast<std::size_t>(digits));
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[at + static_cast<std::size_t>(i)] = kDigits[v & 0xF];
}

}  // namespace softmx::vec
