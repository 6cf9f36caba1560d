// conformance/test_cli_catalog.cpp: the formats a user can find through the real binary (issue
// 29): `softmx formats` lists the named formats, the runtime formats with a name, every alias
// with the spec it reads as and the spec grammar (the library's text, format_catalog.hpp);
// `softmx formats SPEC` shows one; a spec that names no listed format is accepted with one note
// on stderr, which --quiet-spec silences, in every command that takes a format.
#include <gtest/gtest.h>

#include <string>

#include "softmx/format_catalog.hpp"
#include "support/cli_run.hpp"

namespace {

using softmx::testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return softmx::testing::run_cli(args, input); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(CliCatalog, FormatsListsNamesAliasesAndGrammar) {
  const CliRun r = run("formats");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, softmx::format_listing_text());
  // Every alias appears with the spec it reads as (one line per spec).
  for (const softmx::FormatAlias& a : softmx::format_aliases()) EXPECT_TRUE(has(r.out, std::string(a.name))) << a.name;
  EXPECT_TRUE(has(r.out, "\n  e4m3:specials=ieee float8_e4m3 e4m3ieee\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\n  e4m3b11fnuz        float8_e4m3b11fnuz float8_e4m3b11\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\ne3m4                   8   3   4    3 magnitude Inf,NaN   15.5 ")) << r.out;
  EXPECT_TRUE(has(r.out, "spec grammar")) << r.out;
  EXPECT_TRUE(has(r.out, "e.g. e4m3:specials=ieee e2m1:bias=3")) << r.out;
  // 100 columns at most (the demo's width).
  std::size_t line = 0;
  for (std::size_t at = 0; at < r.out.size(); at = line + 1) {
    line = r.out.find('\n', at);
    EXPECT_LE(line - at, 100u) << r.out.substr(at, line - at);
  }
}

TEST(CliCatalog, FormatsSpecShowsOneFormat) {
  CliRun r = run("formats float8_e3m4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, softmx::format_description_text("float8_e3m4"));
  EXPECT_TRUE(has(r.out, "e3m4: a runtime format with a name")) << r.out;
  EXPECT_TRUE(has(r.out, "read from      'float8_e3m4' (alias of e3m4)")) << r.out;
  EXPECT_TRUE(has(r.out, "bias 3, 8-bit codes")) << r.out;
  EXPECT_TRUE(has(r.out, "Inf 0x70, NaN 0x71-0x7F")) << r.out;
  EXPECT_TRUE(has(r.out, "max finite     15.5 (0x6F)")) << r.out;
  EXPECT_TRUE(has(r.out, "min normal     2^-2 = 0.25 (0x10)")) << r.out;
  r = run("formats e4m3");
  EXPECT_TRUE(has(r.out, "e4m3: a named format")) << r.out;
  EXPECT_TRUE(has(r.out, "aliases        fp8e4m3 e4m3fn float8_e4m3fn fp8_e4m3")) << r.out;
  EXPECT_TRUE(has(r.out, "NaN 0x7F and 0xFF only; no Inf")) << r.out;
  r = run("formats e4m4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");  // the listing says what it is; no note
  EXPECT_TRUE(has(r.out, "nearest named  e4m3")) << r.out;
  r = run("formats E4M3IEEE");
  EXPECT_TRUE(has(r.out, "(alias of e4m3:specials=ieee)")) << r.out;
  // Errors: exit 2 with the library's message; one SPEC at most.
  r = run("formats junk");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "format spec 'junk': name: unknown format 'junk'")) << r.err;
  r = run("formats e4m3 e5m2");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "unexpected argument 'e5m2' (formats takes at most one SPEC)")) << r.err;
}

TEST(CliCatalog, E4m3b11AndE4m3ieee) {
  CliRun r = run("convert --to e4m3b11 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--to: bad format spec 'e4m3b11': name: 'e4m3b11' is ambiguous")) << r.err;
  EXPECT_TRUE(has(r.err, "write e4m3b11fnuz (or float8_e4m3b11fnuz) or e4m3b11fn")) << r.err;
  r = run("convert --to float8_e4m3b11 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1 -> e4m3b11fnuz 58 = 1  flags 00 (none)\n");
  r = run("convert --to e4m3ieee 1e6 240");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "1e6 -> e4m3:specials=ieee 78 = inf  flags 05 (overflow|inexact)\n"
                   "240 -> e4m3:specials=ieee 77 = 240  flags 00 (none)\n");
}

TEST(CliCatalog, UnlistedSpecGetsOneNote) {
  const std::string note =
      "softmx: note: 'e4m4' is not a named format; read as a runtime format with 4 exponent and 4 mantissa bits "
      "(9-bit codes, bias 7, Inf and NaN; spec e4m4); nearest named format: e4m3 (--quiet-spec hides this line)\n";
  CliRun r = run("convert --to e4m4 0.3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0.3 -> e4m4 053 = 0.296875  flags 01 (inexact)\n");
  EXPECT_EQ(r.err, note);
  r = run("convert --to e4m4 --quiet-spec 0.3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0.3 -> e4m4 053 = 0.296875  flags 01 (inexact)\n");
  EXPECT_EQ(r.err, "");
  // Once per spec, even when a command reads the option twice (gen reads --to for the header too).
  r = run("gen convert --from e4m4 --to e5m3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(r.err, "softmx: note: "), 2) << r.err;
  EXPECT_EQ(count(r.err, "'e4m4' is not a named format"), 1) << r.err;
  EXPECT_EQ(count(r.err, "'e5m3' is not a named format"), 1) << r.err;
  // Every command that takes a format: the note, and none with --quiet-spec.
  for (const std::string& c : {std::string("convert --from e3m3 --to f32"), std::string("explain --to e3m3 1"),
                               std::string("quantize --to e3m3 --block 2"), std::string("dequantize --from e3m3 --block 2"),
                               std::string("sweep --from e3m3 --to f32"), std::string("gen convert --from e3m3 --to f32")}) {
    const std::string input = c.rfind("dequantize", 0) == 0 ? "7F 01 02\n" : c.rfind("quantize", 0) == 0 ? "3F800000 40000000\n" : "01\n";
    r = run(c, input);
    EXPECT_EQ(r.status, 0) << c << ": " << r.err;
    EXPECT_EQ(count(r.err, "softmx: note: 'e3m3' is not a named format"), 1) << c << ": " << r.err;
    EXPECT_TRUE(has(r.err, "nearest named format: e3m2")) << c << ": " << r.err;
    r = run(c + " --quiet-spec", input);
    EXPECT_EQ(r.status, 0) << c << ": " << r.err;
    EXPECT_EQ(r.err, "") << c;
  }
  CliRun d = run("dot --a e3m3 --b e3m3 --block 1", "7F 01 7F 01\n");
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(count(d.err, "softmx: note: 'e3m3'"), 1) << d.err;  // --a and --b: one spec, one note
  // Named formats, aliases and named runtime specs give none.
  for (const char* s : {"e4m3", "float8_e4m3fn", "e3m4", "float8_e4m3", "e4m3fnuz", "e4m3:bias=11:specials=fnuz", "int4"})
    EXPECT_EQ(run(std::string("convert --to ") + s + " 1").err, "") << s;
  // After "--", --quiet-spec is an operand like any other.
  r = run("convert --to e4m4 -- --quiet-spec");
  EXPECT_EQ(r.status, 2);
}

TEST(CliCatalog, HelpNamesQuietSpecAndFormatsSpec) {
  for (const char* c : {"convert", "explain", "quantize", "dequantize", "dot", "gemm-golden", "gen", "sweep"})
    EXPECT_TRUE(has(run(std::string(c) + " --help").out, "--quiet-spec")) << c;
  EXPECT_TRUE(has(run("--help").out, "--quiet-spec"));
  const std::string f = run("formats --help").out;
  EXPECT_TRUE(has(f, "usage: softmx formats\n       softmx formats SPEC\n")) << f;
}

}  // namespace
