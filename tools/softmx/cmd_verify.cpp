// tools/softmx/cmd_verify.cpp: `softmx verify`, TestFloat's testfloat_ver for vector files.
//
//   softmx verify [--max-errors N] [--threads N] [--json] [--accept-unproven] [--expect-cases N]
//                 [--model M] [--acc A] [--dialect D] [--round R] [--sat S] [--tininess T]
//                 [--scale RULE] RESULTS-FILE
//
// A shell around the library's verify_file() (softmx/vectors/verify.hpp), which reads the file,
// recomputes every line (every input of every run), explains each disagreement, judges the
// file's completeness and decides the verdict. This file translates the arguments, streams the
// reports to stdout (text) or collects them (--json), and prints the summary; the notes on
// completeness go to stderr. Exit status: the verdict's (0 pass, 1 fail, 3 unproven), 2 bad
// input (docs/VECTORS.md).
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_check.hpp"
#include "softmx/vectors/verify.hpp"

namespace softmx::cli {
namespace {

int verify(int argc, char** argv) {
  const Args a = parse_command("verify", argc, argv, 2);
  if (a.positionals.size() != 1) throw UsageError("expected one RESULTS-FILE (a vector file with the device's results; '-' for stdin)");
  vec::VerifyOptions o;
  o.max_errors = a.get("max-errors") ? parse_count(a, "max-errors", 20, 1ull << 62) : 20;
  o.threads = parse_threads(a, vec::default_threads());
  o.accept_unproven = a.has_switch("accept-unproven");
  if (a.get("expect-cases")) o.expect_cases = parse_count(a, "expect-cases", 0, ~0ull);
  o.overrides.model = a.get("model");
  o.overrides.accumulation = a.get("acc");
  o.overrides.dialect = a.get("dialect");
  o.overrides.rounding = a.get("round");
  o.overrides.saturation = a.get("sat");
  o.overrides.tininess = a.get("tininess");
  o.overrides.scale = a.get("scale");
  const bool json = a.has_switch("json");
  o.progress_to_stderr = !json;

  auto reader = vec::VectorReader::open(a.positionals[0]);
  Output out;
  vec::VerifyResult v;
  if (json) {
    v = vec::verify_file(*reader, o);
  } else {
    v = vec::verify_file(*reader, o, [&](const vec::VerifyMismatch& m) {
      out.text() += m.report;
      out.chunk();
    });
  }
  std::fputs(v.notes_text().c_str(), stderr);
  out.text() += json ? v.json() : v.summary_text();
  out.commit();
  return v.exit_status();
}

}  // namespace

int cmd_verify(int argc, char** argv) {
  // With --json, an error is reported as JSON on standard output too (the message still goes
  // to stderr and the exit status is still 2): {"status": "error", "error": MESSAGE}.
  bool json = false;
  for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i) json |= std::string_view(argv[i]) == "--json";
  auto report = [&](const std::string& message) {
    if (!json) return;
    try {
      Output out;
      out.text() = "{\n  \"status\": \"error\",\n  \"error\": " + json_string(safe_message(message)) + ",\n  \"exit_status\": 2\n}\n";
      out.commit();
    } catch (const vec::OutputError&) {  // standard output itself failed: stderr says so
    }
  };
  try {
    return verify(argc, argv);
  } catch (const vec::OutputError& e) {
    report(e.what());
    throw;
  } catch (const std::bad_alloc&) {
    report("out of memory");
    throw;
  } catch (const std::exception& e) {
    report(e.what());
    throw;
  }
}

}  // namespace softmx::cli
