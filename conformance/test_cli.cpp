// conformance/test_cli.cpp: the `softmx` command line, end to end, through the real binary.
//
// The stdin/stdout contract that scripts depend on, the human forms, and bad input of every
// kind: each must give one clear error line naming where and what was expected, exit status 2,
// and never a crash.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "softmx/dot.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"
#include "support/cli_run.hpp"

namespace {

using softmx::testing::CliRun;
using softmx::testing::slurp;

// Runs `softmx ARGS` with `input` on stdin.
CliRun run(const std::string& args, const std::string& input = "") { return softmx::testing::run_cli(args, input); }

void expect_usage_error(const CliRun& r, const std::string& fragment) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr was: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

TEST(Cli, ConvertStreamContract) {
  const CliRun r = run("convert --from f32 --to e4m3", "43E80000\n43E80001\n7FC00000\nFF800000\n00000000\n3f800000\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "43E80000 7E 01\n"   // 464: tie, even 448
            "43E80001 7E 05\n"   // above the tie: overflow, saturated
            "7FC00000 7F 00\n"   // NaN
            "FF800000 FE 10\n"   // -Inf -> -448, invalid
            "00000000 00 00\n"
            "3F800000 38 00\n");  // lower-case input echoed in TestFloat's upper case
  EXPECT_EQ(r.err, "");
}

TEST(Cli, ConvertOptions) {
  EXPECT_EQ(run("convert --from f32 --to e4m3 --sat none", "43E80001\n").out, "43E80001 7F 05\n");
  EXPECT_EQ(run("convert --from f32 --to e2m1 --round rna", "40A00000\n").out, "40A00000 7 01\n");
  EXPECT_EQ(run("convert --from=f32 --to=e8m0 --round=rz --dialect=cuda", "C0400000\n").out, "C0400000 80 11\n");
  EXPECT_EQ(run("convert --from e8m0 --to f32", "00\nFF\n").out, "00 00400000 00\nFF 7FC00000 00\n");
  EXPECT_EQ(run("convert --from e8m0 --to f32 --dialect cuda", "FF\n").out, "FF 7FFF0000 00\n");
  EXPECT_EQ(run("convert --from int8 --to f32", "80\n").out, "80 C0000000 00\n");
  EXPECT_EQ(run("convert --from e3m2 --to f16", "1F\n").out, "1F 4F00 00\n");
  // Without --round/--sat a dialect uses its own defaults: CUDA's E8M0 rounds up, ml_dtypes
  // does not saturate.
  EXPECT_EQ(run("convert --from f32 --to e8m0 --dialect cuda", "40400000\n").out, "40400000 81 01\n");
  EXPECT_EQ(run("convert --from f32 --to e4m3 --dialect ml_dtypes", "43E88000\n").out, "43E88000 7F 05\n");
  EXPECT_EQ(run("convert --from f32 --to e4m3", "43E88000\n").out, "43E88000 7E 05\n");
  // CRLF line ends are accepted.
  EXPECT_EQ(run("convert --from f16 --to e5m2", "3C00\r\n").out, "3C00 3C 00\n");
}

TEST(Cli, StochasticRounding) {
  // 1.0625 into e2m1: halfway between 1.0 and 1.5 is 1.25; f = 1/8 of an ulp... use 1.25:
  // f = 1/2, r = 4: F = 8; R = 7 gives 15 (no carry), R = 8 gives 16 (carry: round away).
  const CliRun r = run("convert --from f32 --to e2m1 --round rs --rbits 4", "3FA00000 7\n3FA00000 8\nBFA00000 8\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3FA00000 7 2 01\n3FA00000 8 3 01\nBFA00000 8 B 01\n");
  expect_usage_error(run("convert --from f32 --to e2m1 --round rs --rbits 4", "3FA00000\n"), "line 1");
  expect_usage_error(run("convert --from f32 --to e2m1 --round rs --rbits 4", "3FA00000 10\n"), "below 2^4");
  expect_usage_error(run("convert --from f32 --to e2m1 --round rs --rbits 4", "3FA00000 G\n"), "random bits");
}

TEST(Cli, ConvertValues) {
  CliRun r = run("convert --to e4m3 464 465 -0 inf nan 1.3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("464 -> e4m3 7E = 448  flags 01 (inexact)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("465 -> e4m3 7E = 448  flags 05 (overflow|inexact)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-0 -> e4m3 80 = -0  flags 00 (none)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inf -> e4m3 7E = 448  flags 10 (invalid)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.3 -> e4m3 3A = 1.25"), std::string::npos) << r.out;
  // The typed value is rounded once, exactly: just above the tie is not the tie.
  r = run("convert --to e4m3 --sat none 464.0000000000000000000001");
  EXPECT_NE(r.out.find("-> e4m3 7F = NaN  flags 05"), std::string::npos) << r.out;
  r = run("convert --from f32 --to e8m0 40400000");
  EXPECT_NE(r.out.find("40400000 (f32 3) -> e8m0 80 = 2  flags 01"), std::string::npos) << r.out;
  r = run("convert --to e2m1 --round rs --rbits 2 --random 2 1.25");
  EXPECT_NE(r.out.find("1.25 -> e2m1 3 = 1.5"), std::string::npos) << r.out;
}

// issue 29: by default every line of explain fits 100 columns (the table in parts, the dialects
// without any result named on one line, long sentences wrapped); --wide gives one table with a
// column for every dialect. The results are the same: each cell of the narrow tables is in the
// wide table's row.
TEST(Cli, ExplainFitsOneHundredColumnsAndWideIsOneTable) {
  for (const char* args : {"--to e8m0 3", "--to e4m3 464", "--to e3m4 1.3", "--from f32 --to e8m0 40400000",
                           "--to e5m2 --round rs 1.1", "--to e2m1 1.3"}) {
    const CliRun r = run(std::string("explain ") + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << args << ": " << line;
    const CliRun w = run(std::string("explain --wide ") + args);
    ASSERT_EQ(w.status, 0) << args << ": " << w.err;
    std::istringstream wl(w.out);
    std::size_t headers = 0;
    for (std::string line; std::getline(wl, line);)
      if (line.rfind("  mode sat ", 0) == 0) {
        ++headers;
        for (const char* d : {"ocp", "cuda", "torchao", "ml_dtypes", "microxcaling", "gfloat", "pychop"})
          EXPECT_NE(line.find(std::string(" ") + d + " "), std::string::npos) << args << ": no column " << d;
      }
    EXPECT_EQ(headers, 1u) << args << ": --wide prints one table\n" << w.out;
  }
  const CliRun r = run("explain --to e8m0 3");
  EXPECT_NE(r.out.find("  n/a in every mode: microxcaling"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--wide: one table"), std::string::npos) << r.out;
}

TEST(Cli, Explain) {
  CliRun r = run("explain --to e4m3 464");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("a TIE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7E = 448"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("beyond max finite 448"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n/a: dialect cuda to e4m3: rounding rne only"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hex float  0x1.dp+8"), std::string::npos) << r.out;
  {
    // A runtime format a dialect refuses in every mode: the note gives the refusal's reason, not
    // a list of modes (it read "rounding rne rna rz ru rd ro only ()").
    const CliRun rt = run("explain --to e3m4 1.3");
    ASSERT_EQ(rt.status, 0) << rt.err;
    EXPECT_NE(rt.out.find("n/a: dialect cuda cannot convert to the runtime format e3m4 (NVIDIA's"), std::string::npos)
        << rt.out;
    EXPECT_EQ(rt.out.find(" only ()"), std::string::npos) << rt.out;
  }
  EXPECT_NE(r.out.find("probability F/2^32 = 0.5"), std::string::npos) << r.out;
  r = run("explain --from f32 --to e8m0 40400000");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("exponent 10000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.5 ulp from 80, 0.5 ulp from 81: a TIE"), std::string::npos) << r.out;
  r = run("explain --to e2m1 1.3");
  EXPECT_NE(r.out.find("0.6 ulp from 2, 0.4 ulp from 3: nearer away from zero"), std::string::npos) << r.out;
  r = run("explain --to e8m0 1e-50");
  EXPECT_NE(r.out.find("has no zero"), std::string::npos) << r.out;
  for (const char* v : {"nan", "-inf", "0", "-1e300", "1e-320", "0x1.8p3"}) {
    r = run(std::string("explain --to e5m2 ") + v);
    EXPECT_EQ(r.status, 0) << v << ": " << r.err;
  }
}

TEST(Cli, Listings) {
  CliRun r = run("formats");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("e4m3"), std::string::npos);
  EXPECT_NE(r.out.find("448"), std::string::npos);
  EXPECT_NE(r.out.find("0x1.fffffep+127"), std::string::npos) << r.out;  // f32 max
  EXPECT_NE(r.out.find("0x1p+127"), std::string::npos) << r.out;         // e8m0 max
  r = run("dialects");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("cuda"), std::string::npos);
  EXPECT_EQ(run("--help").status, 0);
  EXPECT_EQ(run("").status, 2);
}

TEST(Cli, BadInputIsAClearErrorWithStatus2) {
  expect_usage_error(run("convert --from f32 --to e4m3", "3F80000\n"), "<stdin> line 1: expected 8 hex digits (an f32 bit pattern), got \"3F80000\"");
  expect_usage_error(run("convert --from f32 --to e4m3", "3F800000\n3F80000G\n"), "<stdin> line 2");
  expect_usage_error(run("convert --from f32 --to e4m3", "3F800000\n\n"), "line 2: empty line");
  expect_usage_error(run("convert --from f32 --to e4m3", "3F800000 1\n"), "expected one field");
  expect_usage_error(run("convert --from e3m2 --to f32", "40\n"), "an e3m2 code, 00..3F");
  expect_usage_error(run("convert --from e2m1 --to f32", "10\n"), "1 hex digit");
  expect_usage_error(run("convert --from f33 --to e4m3"), "--from: bad format spec 'f33': name: unknown format 'f33'");
  expect_usage_error(run("convert --from f32 --to e4m3 --round nearest"), "unknown rounding mode 'nearest'");
  expect_usage_error(run("convert --from f32 --to e4m3 --sat maybe"), "unknown saturation");
  expect_usage_error(run("convert --from f32 --to e4m3 --dialect torch"), "unknown dialect 'torch'");
  expect_usage_error(run("convert --from f32 --to e4m3 --dialect cuda --round rz"), "supports: rne");
  expect_usage_error(run("convert --from f32 --to int8 --dialect cuda"), "no MXINT8");
  expect_usage_error(run("convert --from f32 --to e4m3 --rbits 65"), "--rbits");
  expect_usage_error(run("convert --from f32 --to e4m3 --bogus 1"), "unknown option --bogus");
  expect_usage_error(run("convert --to e4m3 1.2.3"), "argument \"1.2.3\"");
  expect_usage_error(run("convert --to e4m3 --to e5m2 1"), "given twice");
  expect_usage_error(run("convert --from f32 --to e4m3 43E8"), "argument \"43E8\"");
  expect_usage_error(run("convert --to e4m3"), "give --from SRC");
  expect_usage_error(run("convert --from f32"), "missing --to");
  expect_usage_error(run("explain --to e4m3"), "exactly one VALUE");
  expect_usage_error(run("explain --to e4m3 1e999999"), "exponent out of range");
  expect_usage_error(run("frobnicate"), "unknown command 'frobnicate'");
  // Lines already converted before the bad one are still written.
  EXPECT_EQ(run("convert --from f16 --to e5m2", "3C00\nzz\n").out, "3C00 3C 00\n");
}

TEST(Cli, QuantizeAndDequantize) {
  // [1914, 1, 2, 0] in E4M3 blocks of 4: floor saturates 478.5; rceil keeps 240 * 8.
  CliRun r = run("quantize --to e4m3 --block 4", "44EF4000 3F800000\n40000000 00000000\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "81 7E 28 30 00\n");
  EXPECT_EQ(run("quantize --to e4m3 --block 4 --scale rceil", "44EF4000 3F800000 40000000 00000000\n").out,
            "82 77 20 28 00\n");
  EXPECT_EQ(run("quantize --to e4m3 --block 4 --dialect transformer-engine", "44EF4000 3F800000 40000000 00000000\n").out,
            "82 77 20 28 00\n");
  EXPECT_EQ(run("quantize --to e2m1 --block 2 --dialect microxcaling", "40800000 40200000\n").out, "7F 6 5\n");
  EXPECT_EQ(run("quantize --to e2m1 --block 2", "40800000 40200000\n").out, "7F 6 4\n");
  // Round trip through dequantize.
  r = run("dequantize --from e4m3 --block 4", "82 77 20 28 00\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "44F00000\n3F800000\n40000000\n00000000\n");
  EXPECT_EQ(run("dequantize --from e2m1 --block 2 --to bf16", "FF 1 2\n").out, "7FC0\n7FC0\n");  // NaN scale
  // NVFP4: header, then blocks of 16 with E4M3 scales; dequantize reads the header back.
  std::string in;
  for (int i = 1; i <= 16; ++i) in += "40C00000\n";  // 6.0
  r = run("quantize --to nvfp4", in);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "# nvfp4 global_amax=40C00000 encode_scale=43E00000\n7E 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7\n");
  EXPECT_EQ(run("dequantize --from nvfp4", r.out).out.substr(0, 9), "40C00000\n");
  // Errors.
  expect_usage_error(run("quantize --to e4m3 --block 4", "3F800000 3F800000 3F800000\n"), "short block");
  // Blocks finished before a bad line are still written.
  EXPECT_EQ(run("quantize --to e2m1 --block 2", "3F800000 40000000\n3F80000\n").out, "7E 4 6\n");
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 2", "7F 38 38 7F 38 38\nxx\n").out, "40000000 00\n");
  expect_usage_error(run("quantize --to e4m3 --block 2", "3F800000 3F80000\n"), "<stdin> line 1: expected 8 hex digits");
  expect_usage_error(run("quantize --to f16"), "MX element format");
  expect_usage_error(run("quantize --to e4m3 --scale round"), "unknown scale rule 'round'");
  expect_usage_error(run("quantize --to e4m3 --dialect ml_dtypes", "3F800000\n"), "no block quantization");
  expect_usage_error(run("quantize --to int8 --dialect torchao", "3F800000\n"), "no MXINT8");
  expect_usage_error(run("quantize --to e2m1 --block 1 --dialect gfloat", "7FC00000\n"), "cannot encode NaN");
  expect_usage_error(run("quantize --to nvfp4 --block 32", ""), "--block must be 16");
  // Empty input is empty output, as for every filter (test_cli_io: EmptyInputIsEmptyOutputForEveryFilter).
  EXPECT_EQ(run("quantize --to e4m3", "").status, 0);
  expect_usage_error(run("dequantize --from e2m1 --block 2", "7F 1\n"), "expected a scale and 2 codes (3 fields), got 2");
  expect_usage_error(run("dequantize --from e2m1 --block 2", "7F 1 10\n"), "1 hex digit");
  expect_usage_error(run("dequantize --from e2m1 --block 2", "7G 1 1\n"), "E8M0 scale");
  expect_usage_error(run("dequantize --from nvfp4", "7E 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n"), "encode scale");
}

// Runtime element formats (issue 14; docs/BLOCKS.md 1.1), each block worked out by hand.
TEST(Cli, QuantizeAndDequantizeRuntimeElements) {
  // The seed's E1M2 (bias 1, max 1.75, emax 0): [3.5, 1, -0.5, 0.75] has amax 3.5, s = 1, S =
  // 0x80; halved: 1.75 -> 7, 0.5 -> 2, -0.25 -> 9, 0.375 (a tie of 0.25 and 0.5) -> 2 (rne).
  CliRun r = run("quantize --to e1m2 --block 4", "40600000 3F800000 BF000000 3F400000\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "80 7 2 9 2\n");
  // Decoded: 3.5, 1, -0.5 and 1 (the tie went up).
  EXPECT_EQ(run("dequantize --from e1m2 --block 4", r.out).out, "40600000\n3F800000\nBF000000\n3F800000\n");
  // e2m2 (5 bits, bias 1, max 7 = 1.75 * 2^2, emax 2): [7, 1] has s = 0: 7 = field 3 fraction 3
  // -> 0F, 1 = field 1 -> 04; codes of 5 bits are written as 2 hex digits.
  EXPECT_EQ(run("quantize --to e2m2 --block 2", "40E00000 3F800000\n").out, "7F 0F 04\n");
  // e4m3fnuz (bias 8, max 240 = 1.875 * 2^7, emax 7): the first block has s = 1 - 7 = -6, S =
  // 0x79; times 64: 224 -> 7E, 64 -> 70, -32 -> E8, 48 -> 6C. OCP e4m3 (emax 8) gives S = 0x78
  // and the same element bytes.
  EXPECT_EQ(run("quantize --to e4m3fnuz --block 4", "40600000 3F800000 BF000000 3F400000\n").out, "79 7E 70 E8 6C\n");
  // 0x80, the only NaN, has the sign bit: ocp keeps a NaN's sign (as convert does), so -qNaN.
  EXPECT_EQ(run("dequantize --from e4m3fnuz --block 1", "79 80\n").out, "FFC00000\n");
  // int4 (two's complement E1M2 fixed point, -2..1.75): as e1m2, with -0.25 = F.
  EXPECT_EQ(run("quantize --to int4 --block 4", "40600000 3F800000 BF000000 3F400000\n").out, "80 7 2 F 2\n");
  // Formats that cannot be elements: the error names the field, exit 2.
  expect_usage_error(run("quantize --to e5m3", "3F800000\n"), "width: 9 bits");
  expect_usage_error(run("quantize --to ue4m3", "3F800000\n"), "sign: it is unsigned");
  expect_usage_error(run("dequantize --from e3m2:subnormals=no", "7F 1\n"), "subnormals:");
  expect_usage_error(run("quantize --to e4m3:bias=2000", "3F800000\n"), "bias");
  // A code above the runtime width is refused by the line reader.
  expect_usage_error(run("dequantize --from e1m2 --block 1", "7F 10\n"), "1 hex digit");
}

// gen quantize, dequantize and dot take runtime element specs (issue 14): the header names the
// canonical spec and the results are `softmx quantize` / `dequantize`'s; what a block cannot
// hold, a tensor-core model under a runtime element, and mma's runtime operands exit 2 naming
// the option.
TEST(Cli, GenRuntimeElements) {
  CliRun r = run("gen quantize --to e1m2 --block 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nto = e1m2\n"), std::string::npos) << r.out;
  // Every data line's results are what `softmx quantize` gives for its inputs.
  std::istringstream lines(r.out);
  std::string in, want;
  for (std::string l; std::getline(lines, l);) {
    if (l.empty() || l[0] == '#' || l.find(" = ") != std::string::npos) continue;
    std::istringstream f(l);
    std::string a, b, sc, o1, o2;
    f >> a >> b >> sc >> o1 >> o2;
    in += a + " " + b + "\n";
    want += sc + " " + o1 + " " + o2 + "\n";
  }
  EXPECT_GT(std::count(want.begin(), want.end(), '\n'), 100);
  EXPECT_EQ(run("quantize --to e1m2 --block 2", in).out, want);
  r = run("gen dequantize --from e4m3:bias=11:specials=fnuz --to bf16");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nfrom = e4m3b11fnuz\nto = bf16\n"), std::string::npos);
  EXPECT_NE(r.out.find("\ncases = 65536\n"), std::string::npos);
  // e4m3b11fnuz's 0x80 is its NaN: with scale 7F it dequantizes to bf16's negative NaN (ocp keeps the sign).
  EXPECT_NE(r.out.find("\n7F 80 FFC0 "), std::string::npos);
  r = run("gen dot --a int4 --b e2m2 --block 2 --level 2 --count 5");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\na = int4\nb = e2m2\n"), std::string::npos);
  expect_usage_error(run("gen quantize --to e5m3"), "--to 'e5m3': the runtime format e5m3 cannot be an MX element: width: 9 bits");
  expect_usage_error(run("gen dequantize --from ue4m3"), "--from 'ue4m3': the runtime format ue4m3 cannot be an MX element: sign:");
  expect_usage_error(run("gen dot --a e1m2 --b e4m3:bias=2000"), "--b: bad format spec 'e4m3:bias=2000': bias:");
  expect_usage_error(run("gen dot --a e3m2:subnormals=no --b e1m2"), "--a 'e3m2:subnormals=no'");
  expect_usage_error(run("gen quantize --from e1m2 --to e4m3"), "--from: the runtime format 'e1m2' is not supported here");
  expect_usage_error(run("gen mma --a e1m2 --b e4m3"), "--a 'e1m2': no tensor-core model takes a runtime element format");
  expect_usage_error(run("gen mma --a e4m3 --b int4 --model blackwell-mxf8f6f4"), "--b 'int4': no tensor-core model");
  // The dot model is checked before any output: a runtime element under a tensor-core model.
  r = run("gen dot --a e1m2 --b e2m2 --acc hopper-fp8-mma");
  expect_usage_error(r, "hopper-fp8-mma");
  EXPECT_NE(r.err.find("runtime element (e1m2) takes exact or fp32-sequential"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// Scale formats other than E8M0 (issue 14; docs/BLOCKS.md 1.2), worked out by hand there.
TEST(Cli, QuantizeAndDequantizeScaleFormat) {
  // [10, 5, -1, 0.8125] into e2m1 with a ue4m3 scale: 10 / 6 rounds to 1.625 (0x3D); the elements
  // 10/1.625 -> 6 (7), 5/1.625 -> 3 (5), -1/1.625 -> -0.5 (9), 0.8125/1.625 = 0.5 (1).
  CliRun r = run("quantize --to e2m1 --block 4 --scale-format ue4m3", "41200000 40A00000 BF800000 3F500000\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3D 7 5 9 1\n");
  // Decoded: 9.75, 4.875, -0.8125, 0.8125.
  EXPECT_EQ(run("dequantize --from e2m1 --block 4 --scale-format ue4m3", r.out).out,
            "411C0000\n409C0000\nBF500000\n3F500000\n");
  // ue5m3 with int4: 7 / 1.75 = 4 exactly (0x88); 7/4 -> 7, -1/4 -> F.
  EXPECT_EQ(run("quantize --to int4 --block 2 --scale-format ue5m3", "40E00000 BF800000\n").out, "88 7 F\n");
  // e8m0 spelled out is the default.
  EXPECT_EQ(run("quantize --to e2m1 --block 2 --scale-format e8m0", "40800000 40200000\n").out, "7F 6 4\n");
  // Refusals name the option and the field; exit 2.
  expect_usage_error(run("quantize --to e2m1 --scale-format f64", "3F800000\n"), "--scale-format 'f64': scale_format f64: width");
  expect_usage_error(run("quantize --to e2m1 --scale-format int8", "3F800000\n"), "fixed");
  expect_usage_error(run("quantize --to e2m1 --scale-format ue4m3x", "3F800000\n"), "--scale-format 'ue4m3x'");
  expect_usage_error(run("quantize --to e2m1 --scale-format ue4m3 --scale ceil", "3F800000\n"), "drop --scale");
  expect_usage_error(run("quantize --to e2m1 --scale-format ue4m3 --dialect torchao", "3F800000\n"),
                     "dialect torchao");
  expect_usage_error(run("quantize --to nvfp4 --scale-format ue4m3", "3F800000\n"), "does not apply");
  expect_usage_error(run("dequantize --from e2m1 --block 1 --scale-format ue4m3", "80 1\n"), "out of range");
  expect_usage_error(run("dequantize --from e2m1 --block 1 --scale-format f64", "38 1\n"), "width");
  // A 9-bit scale format takes 3 hex digits.
  expect_usage_error(run("dequantize --from e2m1 --block 1 --scale-format e5m3", "38 1\n"), "3 hex digits");
}

TEST(Cli, Dot) {
  CliRun r = run("dot --a e4m3 --b e4m3 --block 2", "7F 38 38 7F 38 38\n80 38 B8 7F 40 38\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "40000000 00\n40000000 00\n");  // 1*1 + 1*1 = 2; 2 * (1*2 + (-1)*1) = 2
  // DotGeneral over two block pairs, pair by pair as in a dot vector file: (1 x 1) + (3 x 2) = 7.
  // (Read as all A blocks then all B blocks it would be (1 x 3) + (1 x 2) = 5.)
  EXPECT_EQ(run("dot --a e2m1 --b e2m1 --block 1 --blocks 2", "7F 2 7F 2 7F 5 7F 4\n").out, "40E00000 00\n");
  // Overflow: IEEE Inf by default, max finite with --sat finite.
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1", "FE 7E FE 7E\n").out, "7F800000 05\n");
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1 --sat finite", "FE 7E FE 7E\n").out, "7F7FFFFF 05\n");
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1", "FF 38 7F 38\n").out, "7FC00000 00\n");  // NaN scale
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 2", "7F 38 7F 38\n"), "expected 1 block");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1", "7F 38 7F 3G\n"), "field 4");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --acc fast"), "unknown accumulation 'fast'");
  expect_usage_error(run("dot --a f32 --b e4m3"), "MX element format");
}

TEST(Cli, GemmGolden) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("softmx_gemm_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  CliRun r = run("gemm-golden --out '" + dir + "' --m 8 --n 4 --k 40 --a e2m1 --b e3m2 --seed 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string manifest = slurp(dir + "/manifest.txt");
  EXPECT_NE(manifest.find("m = 8"), std::string::npos);
  EXPECT_NE(manifest.find("k = 40"), std::string::npos);
  // Every listed file exists with the stated size and SHA-256 (checked with coreutils).
  for (const char* f : {"a_f32.bin", "b_f32.bin", "a.bin", "a_scale.bin", "b.bin", "b_scale.bin", "c_golden.bin"}) {
    const std::string path = dir + "/" + f;
    ASSERT_TRUE(std::filesystem::exists(path)) << f;
    const std::string cmd = "sha256sum '" + path + "' > '" + dir + ".sum'";  // beside DIR: it holds only its files
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const std::string digest = slurp(dir + ".sum").substr(0, 64);
    EXPECT_NE(manifest.find(std::string("file = ") + f + " bytes=" + std::to_string(std::filesystem::file_size(path)) +
                            " sha256=" + digest),
              std::string::npos)
        << f;
  }
  EXPECT_EQ(std::filesystem::file_size(dir + "/a.bin"), 8u * 20);   // 40 FP4 codes per row: 20 bytes
  EXPECT_EQ(std::filesystem::file_size(dir + "/b.bin"), 4u * 30);   // 40 FP6 codes: 30 bytes
  EXPECT_EQ(std::filesystem::file_size(dir + "/a_scale.bin"), 8u * 2);
  EXPECT_EQ(std::filesystem::file_size(dir + "/c_golden.bin"), 8u * 4 * 4);
  // Deterministic: the same command writes the same bytes.
  const std::string first = slurp(dir + "/c_golden.bin");
  ASSERT_EQ(run("gemm-golden --out '" + dir + "' --m 8 --n 4 --k 40 --a e2m1 --b e3m2 --seed 3").status, 0);
  EXPECT_EQ(slurp(dir + "/c_golden.bin"), first);
  expect_usage_error(run("gemm-golden --m 4"), "missing --out");
  expect_usage_error(run("gemm-golden --out '" + dir + "' --m 0"), "--m expects");
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir + ".sum");
}

// Scale formats wider than a byte (bf16, f16, f32; docs/BLOCKS.md 1.2): their SCALE fields have
// 4 or 8 hex digits. Cases by hand; gemm-golden's wide scale files are little-endian codes and
// every C equals dot_general over them.
TEST(Cli, WideScaleFormats) {
  // Block (1, 3, -5, 0.125) into e2m1 (max 6): S = RN(5 / 6).
  //   f32: 5/6 = 0.83333331 (3F555555); 1/S = 1.2 -> 1 (2), 3/S = 3.6 -> 4 (6), -5/S = -6.0000002
  //   -> -6 (F), 0.125/S = 0.15 -> 0 (0).
  //   bf16: 5/6 = 1.1010101|0101...b x 2^-1, the dropped bits below half: 0.83203125 (3F55);
  //   1/S = 1.2019 -> 1, 3/S = 3.6056 -> 4, -5/S = -6.0094 -> -6, 0.125/S = 0.1502 -> 0.
  const std::string in = "3F800000\n40400000\nC0A00000\n3E000000\n";
  EXPECT_EQ(run("quantize --to e2m1 --block 4 --scale-format f32", in).out, "3F555555 2 6 F 0\n");
  EXPECT_EQ(run("quantize --to e2m1 --block 4 --scale-format bf16", in).out, "3F55 2 6 F 0\n");
  // f16: 5/6 = 1.1010101010|1010...b x 2^-1, the dropped bits above half: 0.83349609375 (3AAB).
  EXPECT_EQ(run("quantize --to e2m1 --block 4 --scale-format f16", in).out, "3AAB 2 6 F 0\n");
  // Back: 1 * S = 0.83333331 (3F555555); 4 * S = 3.3333333 (40555555); -6 * S = -4.99999986,
  // rounded to f32: -5 (C0A00000); 0.
  EXPECT_EQ(run("dequantize --from e2m1 --block 4 --scale-format f32", "3F555555 2 6 F 0\n").out,
            "3F555555\n40555555\nC0A00000\n00000000\n");
  // bf16 3F55 = 0.83203125: 0.83203125, 3.328125 (40550000), -4.9921875 (C09FC000), 0.
  EXPECT_EQ(run("dequantize --from e2m1 --block 4 --scale-format bf16", "3F55 2 6 F 0\n").out,
            "3F550000\n40550000\nC09FC000\n00000000\n");
  expect_usage_error(run("dequantize --from e2m1 --block 1 --scale-format f32", "3F 2\n"),
                     "expected a f32 scale (8 hex digits");
  // dot: 0.5 (f32 3F000000) * 1 * 2 (40000000) * 1 = 1; bf16 Inf (7F80) * 0 = NaN, invalid;
  // f32 scales 2^-149 * 2^-149 * e5m2 2^-16 * 2^-16 = 2^-330, beyond E8M0's reach, rounds to
  // +0 in f32 with underflow and inexact (ru: the smallest subnormal 00000001).
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1 --scale-format f32", "3F000000 38 40000000 38\n").out,
            "3F800000 00\n");
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1 --scale-format bf16", "7F80 38 0000 38\n").out, "7FC00000 10\n");
  EXPECT_EQ(run("dot --a e5m2 --b e5m2 --block 1 --scale-format f32 --round ru", "00000001 01 00000001 01\n").out,
            "00000001 03\n");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format f32", "38 38 38 38\n"),
                     "expected a f32 scale code (8 hex digits");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format f32 --acc hopper-fp8-mma", ""),
                     "scale format f32 takes exact or fp32-sequential");

  // gemm-golden with f32 and bf16 scales under exact and fp32-sequential.
  const std::string dir = (std::filesystem::temp_directory_path() / ("softmx_gemm_wide_" + std::to_string(::getpid()))).string();
  const std::string common = "gemm-golden --out '" + dir + "' --m 3 --n 2 --k 40 --a e4m3 --b e2m1 --block 16";
  for (const char* sfs : {"f32", "bf16"})
    for (const char* acc : {"exact", "fp32-sequential"}) {
      std::filesystem::remove_all(dir);
      const CliRun r = run(common + " --scale-format " + sfs + " --acc " + acc);
      ASSERT_EQ(r.status, 0) << sfs << " " << acc << ": " << r.err;
      const softmx::Format sf = softmx::parse_format_spec(sfs);
      const std::size_t sb = sf.width / 8, nb = 3;
      const std::string manifest = slurp(dir + "/manifest.txt");
      EXPECT_NE(manifest.find("scale_format = " + std::string(sfs)), std::string::npos) << manifest;
      EXPECT_NE(manifest.find("codes of " + std::to_string(sb) + " bytes (little-endian)"), std::string::npos) << manifest;
      const std::string ab = slurp(dir + "/a.bin"), bb = slurp(dir + "/b.bin"), as = slurp(dir + "/a_scale.bin"),
                        bs = slurp(dir + "/b_scale.bin"), cg = slurp(dir + "/c_golden.bin");
      ASSERT_EQ(as.size(), 3 * nb * sb);
      ASSERT_EQ(bs.size(), 2 * nb * sb);
      ASSERT_EQ(cg.size(), 3u * 2 * 4);
      auto code_at = [&](const std::string& f, std::size_t i) {
        std::uint32_t c = 0;
        for (std::size_t y = 0; y < sb; ++y) c |= static_cast<std::uint32_t>(static_cast<unsigned char>(f[i * sb + y])) << (8 * y);
        return c;
      };
      int nonzero = 0;
      for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 2; ++j) {
          const std::vector<std::uint8_t> ca = softmx::unpack_codes(
              softmx::FormatId::e4m3, std::span(reinterpret_cast<const std::uint8_t*>(ab.data()) + 40 * i, 40), 40);
          const std::vector<std::uint8_t> cb = softmx::unpack_codes(
              softmx::FormatId::e2m1, std::span(reinterpret_cast<const std::uint8_t*>(bb.data()) + 20 * j, 20), 40);
          std::vector<softmx::BlockRef> ra, rb;
          for (std::size_t blk = 0; blk < nb; ++blk) {
            const std::size_t n = std::min<std::size_t>(16, 40 - 16 * blk);
            ra.push_back(softmx::BlockRef{softmx::FormatId::e4m3, code_at(as, i * nb + blk), std::span(ca.data() + 16 * blk, n), nullptr, &sf});
            rb.push_back(softmx::BlockRef{softmx::FormatId::e2m1, code_at(bs, j * nb + blk), std::span(cb.data() + 16 * blk, n), nullptr, &sf});
          }
          std::uint32_t c;
          std::memcpy(&c, cg.data() + 4 * (2 * i + j), 4);  // little-endian host
          nonzero += c != 0;
          EXPECT_EQ(c, softmx::dot_general(ra, rb, softmx::Context{}, *softmx::find_accumulation_model(acc)).code)
              << sfs << " " << acc << " C(" << i << "," << j << ")";
        }
      EXPECT_GT(nonzero, 3);
    }
  std::filesystem::remove_all(dir);
}

// dot --scale-format (docs/BLOCKS.md 5): SCALE fields in another scale format, cases by hand;
// ue4m3 goes through dot_pairs (also under blackwell-nvf4), the others through dot_general.
TEST(Cli, DotScaleFormats) {
  // e2m1 (1.5, 2) . (4, -0.5) with ue4m3 scales 1.25 (3A) and 0.75 (34): 5 * 0.9375 = 4.6875.
  for (const char* acc : {"exact", "fp32-sequential"})
    EXPECT_EQ(run(std::string("dot --a e2m1 --b e2m1 --block 2 --scale-format ue4m3 --acc ") + acc, "3A 3 4 34 6 9\n").out,
              "40960000 00\n")
        << acc;
  // ue5m3 (dot_general per line): Inf (F8) * 1 * 1 = +Inf; Inf * 0 = NaN, invalid; 1 * 1 = 1.
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1 --scale-format ue5m3", "F8 38 78 38\nF8 00 78 38\n78 38 78 38\n").out,
            "7F800000 00\n7FC00000 10\n3F800000 00\n");
  // A sign-magnitude e4m3 scale reads its sign: B8 is -1.
  EXPECT_EQ(run("dot --a e4m3 --b e4m3 --block 1 --scale-format e4m3", "B8 38 38 38\n").out, "BF800000 00\n");
  // ue4m3 under blackwell-nvf4 (UE4M3 per 16, K = 64): ones quantized to e2m1 code 7 with scale
  // 0x23 (0.171875): 4 * 16 * 36 * 0.171875^2 = 68.0625 = 0x42882000 (test_quantize_scale_format.py).
  std::string line;
  for (int j = 0; j < 4; ++j) {
    std::string half = "23";
    for (int i = 0; i < 16; ++i) half += " 7";
    line += (j ? " " : "") + half + " " + half;
  }
  EXPECT_EQ(run("dot --a e2m1 --b e2m1 --block 16 --blocks 4 --acc blackwell-nvf4 --scale-format ue4m3", line + "\n").out,
            "42882000 00\n");
  // Errors: a scale code beyond the format (line and field named), formats that cannot be a
  // scale, and models that do not read the scale format, refused before any input.
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format ue4m3", "80 38 38 38\n"),
                     "line 1: field 1: expected a ue4m3 scale code (2 hex digits, at most 7F), got \"80\"");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format int4", ""), "fixed");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format ue5m3 --acc hopper-fp8-mma", ""),
                     "scale format ue5m3 takes exact or fp32-sequential");
  expect_usage_error(run("dot --a e4m3 --b e4m3 --block 1 --scale-format ue4m3 --acc hopper-fp8-mma", ""),
                     "per-group scales");
}

// gemm-golden with UE4M3 block scales (--scale-format ue4m3; docs/BLOCKS.md 1.2) for the
// Blackwell GST models, exact and fp32-sequential: the scale files are what `quantize
// --scale-format ue4m3` writes for the same rows; other models and scale formats exit 2.
TEST(Cli, GemmGoldenUe4m3Scales) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("softmx_gemm_ue4m3_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  const std::string common = "gemm-golden --out '" + dir + "' --m 3 --n 2 --k 32 --a e2m1 --b e2m1 --block 16";
  CliRun r = run(common + " --acc blackwell-nvf4 --scale-format ue4m3");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string manifest = slurp(dir + "/manifest.txt");
  EXPECT_NE(manifest.find("scale_format = ue4m3"), std::string::npos);
  EXPECT_NE(manifest.find("A UE4M3 scales"), std::string::npos);
  // Row i of A (f32, 32 values) through the CLI's quantize: its 2 scales are a_scale.bin's.
  const std::string a32 = slurp(dir + "/a_f32.bin"), asc = slurp(dir + "/a_scale.bin");
  ASSERT_EQ(a32.size(), 3u * 32 * 4);
  ASSERT_EQ(asc.size(), 3u * 2);
  std::string in;
  for (std::size_t i = 0; i < 3 * 32; ++i) {
    std::uint32_t v;
    std::memcpy(&v, a32.data() + 4 * i, 4);  // little-endian host
    char b[12];
    std::snprintf(b, sizeof b, "%08X%c", v, i % 16 == 15 ? '\n' : ' ');
    in += b;
  }
  const CliRun q = run("quantize --to e2m1 --block 16 --scale-format ue4m3", in);
  ASSERT_EQ(q.status, 0) << q.err;
  std::string want;
  for (unsigned char c : asc) {
    char b[4];
    std::snprintf(b, sizeof b, "%02X", c);
    want += b;
  }
  std::string got;
  for (std::size_t at = 0; at < q.out.size(); at = q.out.find('\n', at) + 1) got += q.out.substr(at, 2);
  EXPECT_EQ(got, want);
  for (unsigned char c : asc) EXPECT_LT(c, 0x7F);  // finite positive UE4M3 codes
  // Under exact and fp32-sequential (the reference per output, BLOCKS.md 5): every C equals the
  // library's dot_general over the files' codes and ue4m3 scales.
  const softmx::Format ue4m3 = softmx::parse_format_spec("ue4m3");
  for (const char* acc : {"exact", "fp32-sequential"}) {
    r = run(common + " --scale-format ue4m3 --acc " + acc);
    ASSERT_EQ(r.status, 0) << acc << ": " << r.err;
    const std::string ab = slurp(dir + "/a.bin"), bb = slurp(dir + "/b.bin"), as = slurp(dir + "/a_scale.bin"),
                      bs = slurp(dir + "/b_scale.bin"), cg = slurp(dir + "/c_golden.bin");
    ASSERT_EQ(ab.size(), 3u * 16);
    ASSERT_EQ(bb.size(), 2u * 16);
    ASSERT_EQ(cg.size(), 3u * 2 * 4);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        const std::vector<std::uint8_t> ca = softmx::unpack_codes(
            softmx::FormatId::e2m1, std::span(reinterpret_cast<const std::uint8_t*>(ab.data()) + 16 * i, 16), 32);
        const std::vector<std::uint8_t> cb = softmx::unpack_codes(
            softmx::FormatId::e2m1, std::span(reinterpret_cast<const std::uint8_t*>(bb.data()) + 16 * j, 16), 32);
        std::vector<softmx::BlockRef> ra, rb;
        for (std::size_t blk = 0; blk < 2; ++blk) {
          ra.push_back(softmx::BlockRef{softmx::FormatId::e2m1, static_cast<std::uint8_t>(as[2 * i + blk] & 0x7F),
                                std::span(ca.data() + 16 * blk, 16), nullptr, &ue4m3});
          rb.push_back(softmx::BlockRef{softmx::FormatId::e2m1, static_cast<std::uint8_t>(bs[2 * j + blk] & 0x7F),
                                std::span(cb.data() + 16 * blk, 16), nullptr, &ue4m3});
        }
        std::uint32_t c;
        std::memcpy(&c, cg.data() + 4 * (2 * i + j), 4);  // little-endian host
        EXPECT_EQ(c, softmx::dot_general(ra, rb, softmx::Context{}, *softmx::find_accumulation_model(acc)).code) << acc << " C(" << i << "," << j << ")";
      }
  }
  expect_usage_error(run(common + " --scale-format ue4m3 --acc hopper-fp8-mma"), "per-group scales");
  expect_usage_error(run(common + " --acc blackwell-nvf4 --scale-format ue5m3"),
                     "scale format ue5m3 takes exact or fp32-sequential");
  expect_usage_error(run(common + " --acc blackwell-nvf4 --scale-format ue4m3 --scale ceil"), "drop --scale");
  std::filesystem::remove_all(dir);
}

// dot and gemm-golden on runtime element formats (issue 14; docs/BLOCKS.md 1.1 and 5), each dot
// worked out by hand; a runtime element under a tensor-core model and bad specs exit 2 naming
// the option.
TEST(Cli, DotAndGemmGoldenRuntimeElements) {
  // e1m2 (s e m m, bias 1): A = [1.75 (7), -0.25 (9)] at 2^0, B = [1 (4), 0.5 (2)] at 2^1:
  // (1.75 - 0.125) * 2 = 3.25.
  for (const char* acc : {"exact", "fp32-sequential"}) {
    CliRun r = run(std::string("dot --a e1m2 --b e1m2 --block 2 --acc ") + acc, "7F 7 9 80 4 2\n");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "40500000 00\n") << acc;
  }
  // int4 (two's complement, -2..1.75) x e2m2 (max 7): 1.75 * 7 + (-2) * 1 = 10.25.
  EXPECT_EQ(run("dot --a int4 --b e2m2 --block 2", "7F 7 8 7F 0F 04\n").out, "41240000 00\n");
  // e1m1 (3 bits, 1.5 = 3): 2.25 under fp32-sequential.
  EXPECT_EQ(run("dot --a e1m1 --b e1m1 --block 1 --acc fp32-sequential", "7F 3 7F 3\n").out, "40100000 00\n");
  // e4m3fnuz's only NaN 0x80; e3m4 (IEEE-like) Inf 0x70 times 1 (0x30) and times 0 (invalid).
  EXPECT_EQ(run("dot --a e4m3fnuz --b e4m3fnuz --block 1", "7F 80 7F 38\n").out, "7FC00000 00\n");
  EXPECT_EQ(run("dot --a e3m4 --b e3m4 --block 1", "7F 70 7F 30\n").out, "7F800000 00\n");
  EXPECT_EQ(run("dot --a e3m4 --b e3m4 --block 1", "7F 70 7F 00\n").out, "7FC00000 10\n");
  // Refused, exit 2, naming the option.
  expect_usage_error(run("dot --a e1m2 --b e4m3 --acc hopper-fp8-mma"), "a runtime element (e1m2) takes exact");
  expect_usage_error(run("dot --a e9m2 --b e1m2"), "--a: bad format spec 'e9m2': exp");
  expect_usage_error(run("dot --a e1m2 --b ue4m3"), "--b 'ue4m3': the runtime format ue4m3 cannot be an MX element: sign");
  expect_usage_error(run("dot --a e1m2 --b e5m3"), "--b 'e5m3'");
  expect_usage_error(run("dot --a e4m3:bias=200 --b e1m2"), "bias");
  expect_usage_error(run("dot --a e1m2 --b f16"), "--b must be an MX element format");
  expect_usage_error(run("dot --a e1m2 --b e1m2 --block 1", "7F 7 7F 10\n"), "field 4");

  const std::string dir = (std::filesystem::temp_directory_path() / ("softmx_gemm_rt_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  CliRun r = run("gemm-golden --out '" + dir + "' --m 8 --n 4 --k 40 --a e1m2 --b e2m2 --seed 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string manifest = slurp(dir + "/manifest.txt");
  EXPECT_NE(manifest.find("a_format = e1m2\nb_format = e2m2\n"), std::string::npos) << manifest;
  EXPECT_EQ(std::filesystem::file_size(dir + "/a.bin"), 8u * 20);  // 40 4-bit codes per row: 20 bytes
  EXPECT_EQ(std::filesystem::file_size(dir + "/b.bin"), 4u * 25);  // 40 5-bit codes: 25 bytes
  EXPECT_EQ(std::filesystem::file_size(dir + "/c_golden.bin"), 8u * 4 * 4);
  const std::string first = slurp(dir + "/c_golden.bin");
  ASSERT_EQ(run("gemm-golden --out '" + dir + "' --m 8 --n 4 --k 40 --a e1m2 --b e2m2 --seed 3").status, 0);
  EXPECT_EQ(slurp(dir + "/c_golden.bin"), first);
  // The golden C's first output as `softmx dot` computes it from the same codes and scales:
  // row 0 of A (a.bin's first 20 bytes, two codes a byte, low nibble first, BLOCKS.md 4).
  {
    const std::string a = slurp(dir + "/a.bin"), as = slurp(dir + "/a_scale.bin");
    const std::string b = slurp(dir + "/b.bin"), bs = slurp(dir + "/b_scale.bin");
    auto bits = [](const std::string& bytes, std::size_t row_bytes, std::size_t row, std::size_t t, int w) {
      unsigned v = 0;
      for (int q = 0; q < w; ++q) {
        const std::size_t bit = t * w + q;
        v |= ((static_cast<unsigned char>(bytes[row * row_bytes + bit / 8]) >> (bit % 8)) & 1u) << q;
      }
      return v;
    };
    std::string line;
    char h[8];
    for (std::size_t blk = 0; blk < 2; ++blk) {
      std::snprintf(h, sizeof h, "%02X", static_cast<unsigned char>(as[blk]));
      line += h;
      for (std::size_t t = blk * 32; t < blk * 32 + 32; ++t) {  // the last block padded with zeros
        std::snprintf(h, sizeof h, " %X", t < 40 ? bits(a, 20, 0, t, 4) : 0u);
        line += h;
      }
      std::snprintf(h, sizeof h, " %02X", static_cast<unsigned char>(bs[blk]));
      line += h;
      for (std::size_t t = blk * 32; t < blk * 32 + 32; ++t) {
        std::snprintf(h, sizeof h, " %02X", t < 40 ? bits(b, 25, 0, t, 5) : 0u);
        line += h;
      }
      line += ' ';
    }
    line.back() = '\n';
    const CliRun d = run("dot --a e1m2 --b e2m2 --block 32 --blocks 2", line);
    ASSERT_EQ(d.status, 0) << d.err << line;
    ASSERT_GE(first.size(), 4u);
    char want[16];
    std::snprintf(want, sizeof want, "%02X%02X%02X%02X", static_cast<unsigned char>(first[3]),
                  static_cast<unsigned char>(first[2]), static_cast<unsigned char>(first[1]),
                  static_cast<unsigned char>(first[0]));
    EXPECT_EQ(d.out.substr(0, 8), want) << line;
  }
  EXPECT_EQ(run("gemm-golden --out '" + dir + "' --m 4 --n 4 --k 40 --a int4 --b e4m3fnuz --acc fp32-sequential").status, 0);
  expect_usage_error(run("gemm-golden --out '" + dir + "' --a e1m2 --b e2m2 --acc blackwell-mxf4"),
                     "a runtime element (e1m2) takes exact");
  expect_usage_error(run("gemm-golden --out '" + dir + "' --a e1m2 --b e2m2:specials=zz"), "--b: bad format spec");
  expect_usage_error(run("gemm-golden --out '" + dir + "' --a e5m3 --b e1m2"), "--a 'e5m3'");
  std::filesystem::remove_all(dir);
}

// Garbage never crashes the parser: every outcome is a clean exit 0 or 2.
TEST(Cli, GarbageNeverCrashes) {
  softmx::SplitMix64 rng(0x6A5BA6E);
  const std::string alphabet = "0123456789abcdefABCDEFxp.+-eE \t\r\n\x01\xff";
  for (int i = 0; i < 60; ++i) {
    std::string in;
    const std::size_t n = rng.below(200);
    for (std::size_t k = 0; k < n; ++k) in += alphabet[rng.below(alphabet.size())];
    const CliRun r = run(i % 2 ? "convert --from f16 --to e4m3" : "convert --from e2m1 --to f32 --round rs --rbits 3", in);
    EXPECT_TRUE(r.status == 0 || r.status == 2) << "status " << r.status << " for input of " << n << " bytes";
  }
}

// NVFP4 dequantize with an encode scale that is zero, Inf or NaN: one error line, exit 2 (it
// divided by zero before; found by fuzzing); a negative encode scale flips the sign.
TEST(Cli, Nvfp4EncodeScaleChecked) {
  const std::string line = "38 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  for (const char* s : {"00000000", "7F800000", "7FC00000"})
    expect_usage_error(run(std::string("dequantize --from nvfp4 --encode-scale ") + s, line),
                       "<stdin> line 1: nvfp4: the encode scale must be a finite non-zero f32");
  const CliRun pos = run("dequantize --from nvfp4 --encode-scale 41800000", line);
  const CliRun neg = run("dequantize --from nvfp4 --encode-scale C1800000", line);
  ASSERT_EQ(pos.status, 0) << pos.err;
  ASSERT_EQ(neg.status, 0) << neg.err;
  EXPECT_EQ(pos.out.substr(0, 9), "3D800000\n");
  EXPECT_EQ(neg.out.substr(0, 18), "BD800000\n80000000\n");
}

}  // namespace
