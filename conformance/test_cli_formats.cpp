// conformance/test_cli_formats.cpp: runtime format specs (docs/SEMANTICS.md 1.2) through the
// real `softmx` binary, checked against the MPFR oracle (conformance/oracles/), whose descriptors
// here are written by hand from SEMANTICS 1.2's rules, not taken from the emulator's parser.
//
//   - convert: every code of each spec (up to 12 bits) decoded into f32; every f16 input into the
//     spec (65536) under one of four settings (rne/finite, rz/none, ru/finite, rna/none, in turn);
//     f32 inputs at every boundary of the
//     spec (each value, its f32 neighbours, each midpoint and its neighbours) plus 1000 random
//     ones (SplitMix64, seed fixed) into the spec. Code and flags compared.
//   - sweep, gen, verify, identify and diff: a vector header names the spec canonically and the
//     readers take it back (verify exits 0 on the file gen wrote, 1 on a planted wrong result).
//   - explain names the spec; convert VALUE prints it.
//   - bad specs exit 2 with a message naming the option and the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oracles/mpfr_oracle.hpp"
#include "support/cli_run.hpp"

namespace {

namespace o = softmx::oracle;
using softmx::testing::CliRun;
using D = o::Desc;

CliRun run(const std::string& args, const std::string& input = "") { return softmx::testing::run_cli(args, input); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

D make(D::Sign s, int e, int m, int bias, D::Specials sp, bool fixed = false) {
  return {.sign = s, .exp_bits = e, .man_bits = m, .bias = bias, .specials = sp, .fixed = fixed};
}

struct Spec {
  const char* text;   // as given on the command line
  const char* name;   // the canonical spec the CLI prints
  D desc;             // by hand, from docs/SEMANTICS.md 1.2
};

// One of each kind the rules of SEMANTICS 1.2 give: fnuz with its bias moved up (AMD gfx942's and
// ml_dtypes' FNUZ types), the b suffix, the general form, the OCP convention below 8 bits,
// IEEE-like from 8 bits, unsigned with fn and ieee, two's complement fixed point, 12 bits.
const std::vector<Spec>& specs() {
  using S = D::Sign;
  using X = D::Specials;
  static const std::vector<Spec> v = {
      {"e4m3fnuz", "e4m3fnuz", make(S::magnitude, 4, 3, 8, X::fnuz)},
      {"e5m2fnuz", "e5m2fnuz", make(S::magnitude, 5, 2, 16, X::fnuz)},
      {"e4m3:bias=11:specials=fnuz", "e4m3b11fnuz", make(S::magnitude, 4, 3, 11, X::fnuz)},
      {"e1m2", "e1m2", make(S::magnitude, 1, 2, 1, X::none)},
      {"e2m2", "e2m2", make(S::magnitude, 2, 2, 1, X::none)},
      {"e3m4", "e3m4", make(S::magnitude, 3, 4, 3, X::ieee)},
      {"ue4m3", "ue4m3", make(S::none, 4, 3, 7, X::fn)},
      {"ue5m3", "ue5m3", make(S::none, 5, 3, 15, X::ieee)},
      {"int4", "int4", make(S::twos, 1, 2, 1, X::none, true)},
      {"e5m6", "e5m6", make(S::magnitude, 5, 6, 15, X::ieee)},
  };
  return v;
}

const D kF16 = o::desc(o::Fmt::f16), kF32 = o::desc(o::Fmt::f32);

// The oracle's mode and saturation for a CLI option pair.
struct Setting {
  const char* round;
  o::Mode mode;
  const char* sat;
  o::Sat s;
};
const Setting kSettings[] = {
    {"rne", o::Mode::rne, "finite", o::Sat::finite},
    {"rz", o::Mode::rz, "none", o::Sat::none},
    {"ru", o::Mode::ru, "finite", o::Sat::finite},
    {"rna", o::Mode::rna, "none", o::Sat::none},
};

// Runs `convert --from SRC --to DST` on `inputs` and compares each output line with the oracle.
// Returns the number of mismatches (the first few are reported).
std::uint64_t check_convert(const std::string& src_spec, const D& src, const std::string& dst_spec, const D& dst,
                            const std::vector<std::uint64_t>& inputs, const Setting& st) {
  const int sd = (src.width() + 3) / 4, dd = (dst.width() + 3) / 4;
  std::string in;
  in.reserve(inputs.size() * (sd + 1));
  for (std::uint64_t x : inputs) in += hex(x, sd) + "\n";
  const std::string args = "convert --from '" + src_spec + "' --to '" + dst_spec + "' --round " + st.round + " --sat " + st.sat;
  const CliRun r = run(args, in);
  EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  if (r.status != 0) return inputs.size();
  std::istringstream lines(r.out);
  std::uint64_t bad = 0, n = 0;
  std::string line;
  for (std::uint64_t x : inputs) {
    if (!std::getline(lines, line)) {
      ADD_FAILURE() << args << ": output ends after " << n << " lines";
      return bad + inputs.size() - n;
    }
    ++n;
    const o::Outcome want = o::convert(src, dst, x, st.mode, st.s, o::Tiny::after);
    const std::string expect = hex(x, sd) + " " + hex(want.code, dd) + " " + hex(want.flags, 2);
    if (line != expect && ++bad <= 5) ADD_FAILURE() << args << ": got '" << line << "', the oracle gives '" << expect << "'";
  }
  return bad;
}

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// f32 inputs around every value of `d`: the value, its f32 neighbours, the midpoint to the next
// value and the midpoint's neighbours, both signs; then 1000 random f32 patterns.
std::vector<std::uint64_t> f32_boundaries(const D& d) {
  std::set<std::uint64_t> s;
  std::vector<double> values;
  mpfr_t v;
  mpfr_init2(v, 64);
  for (std::uint64_t c = 0; c < (std::uint64_t{1} << d.width()); ++c)
    if (o::decode(d, c, v) && mpfr_number_p(v)) values.push_back(std::fabs(mpfr_get_d(v, MPFR_RNDN)));
  mpfr_clear(v);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto around = [&](double x) {
    const std::uint32_t b = f32_bits(static_cast<float>(x));
    for (std::uint32_t sign : {0u, 0x80000000u})
      for (int k = -1; k <= 1; ++k) {
        const std::uint32_t u = b + static_cast<std::uint32_t>(k);
        if ((u & 0x7F800000u) != 0x7F800000u) s.insert(u | sign);
      }
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    around(values[i]);
    if (i + 1 < values.size()) around((values[i] + values[i + 1]) / 2);  // exact in double
  }
  around(values.back() * 2);
  for (std::uint32_t special : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F7FFFFFu, 0x00000001u})
    s.insert(special);
  std::uint64_t seed = 20261124;
  for (int i = 0; i < 1000; ++i) s.insert(splitmix64(seed) & 0xFFFFFFFFu);
  return {s.begin(), s.end()};
}

TEST(CliFormats, ConvertEveryCodeIntoF32MatchesTheOracle) {
  std::uint64_t cases = 0, bad = 0;
  for (const Spec& sp : specs()) {
    std::vector<std::uint64_t> codes;
    for (std::uint64_t c = 0; c < (std::uint64_t{1} << sp.desc.width()); ++c) codes.push_back(c);
    bad += check_convert(sp.text, sp.desc, "f32", kF32, codes, kSettings[0]);
    cases += codes.size();
  }
  EXPECT_EQ(bad, 0u) << "of " << cases;
}

TEST(CliFormats, ConvertEveryF16IntoEachSpecMatchesTheOracle) {
  std::vector<std::uint64_t> all(65536);
  for (std::uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  std::uint64_t cases = 0, bad = 0;
  for (const Spec& sp : specs()) {
    // One setting per spec, rotating through the four (the library's own test, test_mpfr_runtime,
    // runs every mode and saturation; this one checks what the command line passes through).
    const std::size_t k = static_cast<std::size_t>(&sp - specs().data());
    bad += check_convert("f16", kF16, sp.text, sp.desc, all, kSettings[k % 4]);
    cases += all.size();
  }
  EXPECT_EQ(bad, 0u) << "of " << cases;
}

TEST(CliFormats, ConvertF32BoundariesIntoEachSpecMatchTheOracle) {
  std::uint64_t cases = 0, bad = 0;
  for (const Spec& sp : specs()) {
    const std::vector<std::uint64_t> in = f32_boundaries(sp.desc);
    for (const Setting& st : kSettings) {
      bad += check_convert("f32", kF32, sp.text, sp.desc, in, st);
      cases += in.size();
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << cases;
}

TEST(CliFormats, ConvertValueAndExplainNameTheSpec) {
  // The example. e1m2 (bias 1, no specials): codes 0..3 are the subnormals k/4, 4..7
  // are 1.m, so 0.875 is the tie between 0.75 (code 3) and 1.0 (code 4); rne takes the even 4.
  // Underflow too: 0.875 = 1.11b * 2^-1 needs no rounding at 3 bits of precision with an
  // unbounded exponent, so it is tiny after rounding (below 2^emin = 1), and inexact.
  CliRun r = run("convert --to e1m2 0.875");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0.875 -> e1m2 4 = 1  flags 03 (underflow|inexact)\n");
  // e4m3fnuz: max 0x7F = 1.875 * 2^7 = 240; -0 gives +0; NaN is 80.
  r = run("convert --to e4m3fnuz 240 -0 nan 1e9");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "240 -> e4m3fnuz 7F = 240  flags 00")) << r.out;
  EXPECT_TRUE(has(r.out, "-0 -> e4m3fnuz 00 = 0  flags 00")) << r.out;
  EXPECT_TRUE(has(r.out, "nan -> e4m3fnuz 80 = NaN  flags 00")) << r.out;
  EXPECT_TRUE(has(r.out, "1e9 -> e4m3fnuz 7F = 240  flags 05")) << r.out;
  r = run("convert --to float8_e4m3b11fnuz 1");  // ml_dtypes' name; 1.0 = 2^0: exponent field 11
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1 -> e4m3b11fnuz 58 = 1  flags 00 (none)\n");
  r = run("explain --to e4m3fnuz 241");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "e4m3fnuz")) << r.out;
  EXPECT_TRUE(has(r.out, "* rne  finite  7F 240")) << r.out;
  r = run("explain --from e4m3fnuz --to f32 80");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "e4m3fnuz 80")) << r.out;
}

TEST(CliFormats, SweepHeaderNamesTheSpecAndVerifyReadsItBack) {
  const std::string dir = softmx::testing::scratch_dir("cli_formats");
  const std::string t = dir + "/fnuz.runs";
  CliRun r = run("sweep --from f16 --to e4m3fnuz --threads 1 -o '" + t + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string table = softmx::testing::slurp(t);
  EXPECT_TRUE(has(table, "\nto = e4m3fnuz\n")) << table.substr(0, 400);
  r = run("verify '" + t + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // The general form is written canonically, and diff compares it with the other spelling.
  const std::string t2 = dir + "/b11.runs", t3 = dir + "/b11b.runs";
  ASSERT_EQ(run("sweep --from f16 --to e4m3:bias=11:specials=fnuz --threads 1 -o '" + t2 + "'").status, 0);
  ASSERT_EQ(run("sweep --from f16 --to float8_e4m3b11fnuz --threads 1 -o '" + t3 + "'").status, 0);
  EXPECT_TRUE(has(softmx::testing::slurp(t2), "\nto = e4m3b11fnuz\n"));
  r = run("diff '" + t2 + "' '" + t3 + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // Different formats: diff says so.
  r = run("diff '" + t + "' '" + t2 + "'");
  EXPECT_NE(r.status, 0) << r.out << r.err;
}

TEST(CliFormats, GenVerifyIdentifyTakeTheSpec) {
  const std::string dir = softmx::testing::scratch_dir("cli_formats");
  const std::string v = dir + "/e3m4.vec";
  CliRun r = run("gen convert --from f32 --to e3m4 --round rne --sat none --seed 7 -o '" + v + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = softmx::testing::slurp(v);
  EXPECT_TRUE(has(text, "\nto = e3m4\n")) << text.substr(0, 400);
  r = run("verify '" + v + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = run("identify '" + v + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "ocp")) << r.out;
  // A planted wrong result: the last case line "INPUT RESULT FLAGS" with the result's low bit
  // flipped is a mismatch (exit 1).
  std::string planted = text;
  ASSERT_FALSE(planted.empty());
  const std::size_t start = planted.rfind('\n', planted.size() - 2) + 1;
  const std::size_t res_end = planted.rfind(' ', planted.size() - 2);  // the space before FLAGS
  ASSERT_GT(res_end, start);
  char& c = planted[res_end - 1];
  c = c == '0' ? '1' : '0';
  const std::string w = dir + "/e3m4_bad.vec";
  softmx::testing::write_file(w, planted);
  r = run("verify '" + w + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
}

TEST(CliFormats, BadSpecsExit2NamingTheOptionAndField) {
  struct Bad {
    const char* args;
    const char* field;  // the key the message names
  };
  const Bad bad[] = {
      {"convert --to ue0m0 1", "width"},
      {"convert --to e4m3:bias=2000 1", "bias"},
      {"convert --to ue4m3fnuz 1", "specials"},
      {"convert --to e4m3:colour=red 1", "key"},
      {"convert --to e9m3 1", "exp"},
      {"convert --from e4m3:specials=maybe --to f32", "specials"},
      {"explain --to e4m3:sign=both 1", "sign"},
      {"sweep --from f16 --to e4m3:subnormals=perhaps", "subnormals"},
      {"gen convert --from f32 --to ue4m3fnuz", "specials"},
  };
  for (const Bad& b : bad) {
    const CliRun r = run(b.args);
    EXPECT_EQ(r.status, 2) << b.args << ": " << r.err;
    const std::string opt = has(b.args, "--from e4m3") ? "--from" : "--to";
    EXPECT_TRUE(has(r.err, opt + ": bad format spec '")) << b.args << ": " << r.err;
    EXPECT_TRUE(has(r.err, std::string(": ") + b.field + ":")) << b.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << b.args;
  }
  // Options that take only the named formats say so (quantize's source; the element formats of
  // quantize, dequantize, dot and gemm-golden take runtime specs since issue 14: test_cli
  // QuantizeAndDequantizeRuntimeElements and DotAndGemmGoldenRuntimeElements).
  CliRun r = run("quantize --from e1m2 --to e4m3", "1\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--from: the runtime format 'e1m2' is not supported here")) << r.err;
  // A dialect that refuses runtime formats names itself and the format.
  r = run("convert --to e4m3fnuz --dialect cuda 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "cuda") && has(r.err, "e4m3fnuz")) << r.err;
  r = run("convert --from e4m3fnuz --to f32 --dialect cuda", "01\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "cuda") && has(r.err, "e4m3fnuz")) << r.err;
}

}  // namespace
