// tools/softmx/cmd_report.cpp: `softmx report`, the certificate: one self-contained HTML page.
//
//   softmx report [-o REPORT.html] [--identify FILE]... [--diff A B]... [--max-failures N]
//                 [--threads N] [--accept-unproven] [--expect-cases N] [--title TEXT] [--json] FILE...
//
// Each FILE (a results file of any operation, or a run table) is verified, each --identify FILE
// identified, each --diff pair compared, by the library's make_report()
// (softmx/vectors/report_data.hpp), which also computes every number the page shows: per-class
// counts, failure locations, ulp errors, identify's scores. This file translates the arguments,
// and hands the library's JSON to the renderer, python/softmx/_report_render.py (matplotlib and
// jinja2: HTML with inline SVG plots), run by Debian's python3 as a separate process; with --json
// it writes that JSON instead and needs no Python. docs/REPORT.md says where the renderer is
// looked for. The exit status is the verdict's, as verify's (0 pass, 1 fail, 3 unproven), 2 for
// bad input or when the page cannot be made or written.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/vectors/output_file.hpp"
#include "softmx/vectors/report_data.hpp"
#include "softmx/vectors/run_check.hpp"

extern char** environ;

namespace softmx::cli {
namespace {

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_executable(const std::string& p) { return ::access(p.c_str(), X_OK) == 0 && is_file(p); }

/// The folder of the running executable ("" when unknown).
std::string exe_dir() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  buf.resize(static_cast<std::size_t>(n));
  const auto slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash);
}

/// The renderer's command: the interpreter, then the script (or "-m softmx._report_render").
std::vector<std::string> renderer_command() {
  std::string python;
  if (const char* p = std::getenv("SOFTMX_PYTHON"); p && *p) python = p;
  else python = is_executable("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> cmd{python};
  std::vector<std::string> scripts;
  if (const char* s = std::getenv("SOFTMX_REPORT_RENDERER"); s && *s) scripts.emplace_back(s);
  if (const std::string d = exe_dir(); !d.empty()) {
    scripts.push_back(d + "/../../python/softmx/_report_render.py");  // the build tree (build/tools/softmx/softmx)
    scripts.push_back(d + "/../share/softmx/_report_render.py");      // an installed tree
  }
#ifdef SOFTMX_REPORT_RENDERER_SOURCE
  scripts.emplace_back(SOFTMX_REPORT_RENDERER_SOURCE);  // the source tree this softmx was built from
#endif
  for (const std::string& s : scripts)
    if (is_file(s)) {
      cmd.push_back(s);
      return cmd;
    }
  cmd.insert(cmd.end(), {"-m", "softmx._report_render"});  // an installed Python package
  return cmd;
}

/// Runs the renderer on the report's data and returns the page; UsageError (exit 2) when it
/// cannot, naming what to install.
std::string render(const std::string& json, const std::string& verdict) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/softmx-report-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw UsageError("cannot make a temporary file in " + quote(tmpl, 0, 240) + ": " + std::strerror(errno));
  struct Unlink {
    std::string path;
    ~Unlink() { ::unlink(path.c_str()); }
  } cleanup{tmpl};
  for (std::size_t at = 0; at < json.size();) {
    const ssize_t n = ::write(fd, json.data() + at, json.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw UsageError("cannot write the temporary file " + quote(tmpl, 0, 240) + ": " + std::strerror(errno));
    }
    at += static_cast<std::size_t>(n);
  }
  ::close(fd);

  std::vector<std::string> cmd = renderer_command();
  cmd.insert(cmd.end(), {"--data", tmpl});
  std::vector<char*> argv;
  for (std::string& s : cmd) argv.push_back(s.data());
  argv.push_back(nullptr);
  int pipefd[2];
  if (::pipe(pipefd) != 0) throw UsageError(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawn_file_actions_addclose(&fa, pipefd[1]);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  const std::string why = "the verdict is " + verdict +
                          "; `softmx report --json` writes the report's data without Python; docs/REPORT.md";
  if (rc != 0) {
    ::close(pipefd[0]);
    throw UsageError("cannot run the renderer " + quote(cmd[0], 0, 240) + ": " + std::strerror(rc) +
                     " (it needs Python 3 with python3-matplotlib and python3-jinja2; " + why + ")");
  }
  std::string html;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    html.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || html.empty()) {
    std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status));
    std::string which;
    for (std::size_t i = 0; i < cmd.size() - 2; ++i) which += (i ? " " : "") + cmd[i];
    throw UsageError("the renderer (" + quote(which, 0, 240) + ") failed with " + how +
                     (WIFEXITED(status) && WEXITSTATUS(status) == 4
                          ? std::string(": it needs python3-matplotlib and python3-jinja2 (its message above; ") + why + ")"
                          : " (its message above; " + why + ")"));
  }
  return html;
}

}  // namespace

int cmd_report(int argc, char** argv) {
  // --identify FILE and --diff A B may be given more than once: taken out here, the rest parsed
  // as every command's arguments are.
  vec::ReportInputs in;
  std::vector<std::string> rest(argv, argv + argc);
  std::vector<std::string> kept(rest.begin(), rest.begin() + 2);
  for (std::size_t i = 2; i < rest.size(); ++i) {
    const std::string& s = rest[i];
    if (s == "--") {
      kept.insert(kept.end(), rest.begin() + static_cast<std::ptrdiff_t>(i), rest.end());
      break;
    }
    if (s.rfind("--identify=", 0) == 0) {
      in.identify.push_back(s.substr(11));
    } else if (s == "--identify") {
      if (i + 1 >= rest.size()) throw UsageError("option --identify expects a FILE (a results file or run table)");
      in.identify.push_back(rest[++i]);
    } else if (s == "--diff") {
      if (i + 2 >= rest.size()) throw UsageError("option --diff expects two run tables, TABLE-A TABLE-B");
      in.diff.emplace_back(rest[i + 1], rest[i + 2]);
      i += 2;
    } else {
      kept.push_back(s);
    }
  }
  std::vector<char*> av;
  for (std::string& s : kept) av.push_back(s.data());
  const Args a = parse_command("report", static_cast<int>(av.size()), av.data(), 2, {}, true);
  in.verify = a.positionals;
  if (in.verify.empty() && in.identify.empty() && in.diff.empty())
    throw UsageError("expected results files or run tables (FILE...), --identify FILE or --diff TABLE-A TABLE-B");

  vec::ReportOptions o;
  o.max_failures = parse_count(a, "max-failures", 20, 100000);
  o.threads = parse_threads(a, vec::default_threads());
  o.accept_unproven = a.has_switch("accept-unproven");
  if (a.get("expect-cases")) o.expect_cases = parse_count(a, "expect-cases", 0, ~0ull);
  o.title = a.get("title").value_or("");
  o.progress_to_stderr = true;
  o.command = "softmx";
  for (int i = 1; i < argc; ++i) o.command += " " + vec::shell_quote(argv[i]);
  const std::string out_path = a.get("out").value_or("-");

  const vec::ReportData data = vec::make_report(in, o);
  const std::string json = data.json();
  const vec::VerdictStatus st = data.status();
  const std::string verdict = std::string(st == vec::VerdictStatus::pass ? "PASS" : st == vec::VerdictStatus::fail ? "FAIL" : "UNPROVEN") +
                              " (exit status " + std::to_string(data.exit_status()) + ")";
  vec::OutputFile out(out_path);
  out.text() = a.has_switch("json") ? json : render(json, verdict);
  out.commit();
  if (out_path != "-")
    std::fprintf(stderr, "report: %s: %s\n", shown_name(out_path).c_str(), verdict.c_str());
  return data.exit_status();
}

}  // namespace softmx::cli
