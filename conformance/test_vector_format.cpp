// conformance/test_vector_format.cpp: the vector file format (vectors/README.md) as the
// library reads and writes it: headers round-trip, every rule of the syntax is enforced with
// an error naming the file and line, and line layouts have the documented columns.
#include <gtest/gtest.h>

#include <string>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/reader.hpp"

namespace {

using softmx::InputError;
using namespace softmx::vec;

const std::string kConvert =
    "softmx-vectors = 1\noperation = convert\nfrom = f32\nto = e4m3\nrounding = rne\nsaturation = finite\n"
    "tininess = after\ndialect = ocp\n";

// The header of an f16 -> e4m3 file in the runs layout (9 lines; FIRST and LAST still to come).
const std::string kRunsF16 =
    "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = f16\nto = e4m3\nrounding = rne\n"
    "saturation = finite\ntininess = after\ndialect = ocp\n";

std::string error_of(const std::string& text) {
  try {
    auto r = VectorReader::from_string(text, "t.vec");
    Record rec;
    while (r->next(rec)) {
    }
    if (r->header().layout == Layout::runs) {
      auto r2 = VectorReader::from_string(text, "t.vec");
      softmx::vec::Run run;
      while (r2->next_run(run)) {
      }
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(VectorFormat, HeaderRoundTripsForEveryOperation) {
  const std::string texts[] = {
      kConvert + "level = 2\nseed = 7\ngenerator = softmx 0.1.0\nx-device = my gpu\n",
      "softmx-vectors = 1\noperation = convert\nfrom = f16\nto = e2m1\nrounding = rs\nrbits = 13\nsaturation = none\n"
      "tininess = before\ndialect = cuda\n",
      "softmx-vectors = 1\noperation = quantize\nfrom = bf16\nto = e3m2\nrounding = rne\nsaturation = finite\n"
      "tininess = after\ndialect = torchao\nblock = 32\nscale = rceil\n",
      "softmx-vectors = 1\noperation = dequantize\nfrom = e2m3\nto = f16\nrounding = rz\nsaturation = none\n"
      "tininess = after\ndialect = ocp\n",
      "softmx-vectors = 1\noperation = dot\na = e4m3\nb = int8\nrounding = rne\nsaturation = finite\ntininess = after\n"
      "block = 4\nblocks = 3\naccumulation = fp32-sequential\n",
      "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = f32\nto = e8m0\nrounding = ru\nsaturation = finite\n"
      "tininess = after\ndialect = ocp\nfirst = 00000000\nlast = FFFFFFFF\n",
  };
  for (const auto& t : texts) {
    auto r = VectorReader::from_string(t, "t.vec");
    EXPECT_EQ(header_text(r->header()), t);
  }
}

TEST(VectorFormat, LayoutsHaveTheDocumentedColumns) {
  auto cols = [](const std::string& t) { return line_layout(VectorReader::from_string(t, "t")->header()).columns(); };
  EXPECT_EQ(cols(kConvert), "IN OUT FLAGS");
  EXPECT_EQ(cols("softmx-vectors = 1\noperation = convert\nfrom = f32\nto = e4m3\nrounding = rs\nrbits = 9\n"
                 "saturation = finite\ntininess = after\ndialect = ocp\n"),
            "IN R OUT FLAGS");
  EXPECT_EQ(cols("softmx-vectors = 1\noperation = quantize\nfrom = f32\nto = e4m3\nrounding = rne\nsaturation = finite\n"
                 "tininess = after\ndialect = ocp\nblock = 2\nscale = floor\n"),
            "IN_1 IN_2 SCALE OUT_1 OUT_2 FLAGS");
  EXPECT_EQ(cols("softmx-vectors = 1\noperation = dequantize\nfrom = e2m1\nto = f32\nrounding = rne\nsaturation = finite\n"
                 "tininess = after\ndialect = ocp\n"),
            "SCALE CODE OUT FLAGS");
  EXPECT_EQ(cols("softmx-vectors = 1\noperation = dot\na = e4m3\nb = e5m2\nrounding = rne\nsaturation = finite\n"
                 "tininess = after\nblock = 2\nblocks = 2\naccumulation = exact\n"),
            "SA_1 A_1.1 A_1.2 SB_1 B_1.1 B_1.2 SA_2 A_2.1 A_2.2 SB_2 B_2.1 B_2.2 OUT FLAGS");
  // Widths: e2m1 one digit, e3m2 two, f16 four, R ceil(rbits/4).
  auto l = line_layout(VectorReader::from_string("softmx-vectors = 1\noperation = convert\nfrom = e2m1\nto = f16\n"
                                                 "rounding = rs\nrbits = 9\nsaturation = finite\ntininess = after\n"
                                                 "dialect = ocp\n", "t")->header());
  EXPECT_EQ(l.operands[0].digits, 1);
  EXPECT_EQ(l.operands[1].digits, 3);
  EXPECT_EQ(l.operands[1].max, 511u);
  EXPECT_EQ(l.results[0].digits, 4);
}

TEST(VectorFormat, ReadsCommentsBlankLinesCrLfAndOptionalFields) {
  auto r = VectorReader::from_string("# a comment\n\n" + kConvert + "  # columns\r\n3F800000 38 00\r\n\n3f880000 39 01\n",
                                     "t.vec");
  Record rec;
  ASSERT_TRUE(r->next(rec));
  EXPECT_EQ(rec.operands[0], 0x3F800000u);
  EXPECT_EQ(rec.results[0], 0x38u);
  EXPECT_TRUE(rec.has_flags);
  ASSERT_TRUE(r->next(rec));
  EXPECT_EQ(rec.operands[0], 0x3F880000u);  // lower-case hex accepted
  EXPECT_TRUE(rec.has_flags);
  EXPECT_FALSE(r->next(rec));
  // Flags, and results, are optional for a whole file: all lines or none (issue 24).
  r = VectorReader::from_string(kConvert + "3f880000 39\n3F900000 3A\n", "t.vec");
  ASSERT_TRUE(r->next(rec));
  EXPECT_FALSE(rec.has_flags);
  EXPECT_EQ(rec.results[0], 0x39u);
  ASSERT_TRUE(r->next(rec));
  EXPECT_FALSE(rec.has_flags);
  r = VectorReader::from_string(kConvert + "3F900000\n3F800000\n", "t.vec");
  ASSERT_TRUE(r->next(rec));
  EXPECT_TRUE(rec.results.empty());  // inputs only
  ASSERT_TRUE(r->next(rec));
  EXPECT_TRUE(rec.results.empty());
  EXPECT_FALSE(r->next(rec));
}

TEST(VectorFormat, EveryDataLineHasTheFirstOnesColumns) {
  struct Case {
    std::string data;
    std::string message;
  };
  for (const Case& c :
       {Case{"3F800000 38 00\n3F880000 39\n", "t.vec line 10: this line has operands and results, no flags, but line 9 (the "
                                               "first data line) has operands, results and flags"},
        Case{"3F800000 38\n3F880000 39 01\n", "t.vec line 10: this line has operands, results and flags, but line 9"},
        Case{"3F800000 38 00\n# c\n\n3F880000\n", "t.vec line 12: this line has operands only, but line 9"},
        Case{"3F800000\n3F880000 39 00\n", "t.vec line 10: this line has operands, results and flags, but line 9 (the "
                                            "first data line) has operands only"}}) {
    auto r = VectorReader::from_string(kConvert + c.data, "t.vec");
    Record rec;
    try {
      while (r->next(rec)) {
      }
      ADD_FAILURE() << "accepted:\n" << c.data;
    } catch (const softmx::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("all or none"), std::string::npos) << e.what();
    }
  }
}

TEST(VectorFormat, EveryErrorNamesFileLineAndExpectation) {
  struct Case {
    std::string text, fragment;
  };
  const Case cases[] = {
      {"", "t.vec: empty file"},
      {"operation = convert\n", "t.vec line 1: expected 'softmx-vectors = 1'"},
      {"softmx-vectors = 2\n", "t.vec line 1: expected 'softmx-vectors = 1'"},
      {"3F800000 38 00\n", "t.vec line 1: expected 'softmx-vectors = 1'"},
      {kConvert + "rouding = rz\n", "t.vec line 9: unknown header key 'rouding'"},
      {kConvert + "rounding = rz\n", "t.vec line 9: header key 'rounding' given twice"},
      {kConvert + "block = 32\n", "header key 'block' does not apply to operation convert"},
      {kConvert + "rbits = 8\n", "header key 'rbits' does not apply to rounding rne"},
      {kConvert + "first = 00000000\n", "does not apply to layout = cases"},
      {"softmx-vectors = 1\noperation = convert\nfrom = f32\nto = e4m3\nrounding = rne\nsaturation = finite\n"
       "tininess = after\n",
       "t.vec: header lacks the required key 'dialect'"},
      {"softmx-vectors = 1\noperation = convert\nfrom = f33\nto = e4m3\nrounding = rne\nsaturation = finite\n"
       "tininess = after\ndialect = ocp\n",
       "t.vec line 3: bad value 'f33' for 'from'"},
      {"softmx-vectors = 1\noperation = convert\nfrom = f32\nto = e4m3\nrounding = nearest\nsaturation = finite\n"
       "tininess = after\ndialect = ocp\n",
       "bad value 'nearest' for 'rounding'"},
      {"softmx-vectors = 1\noperation = quantize\nfrom = e4m3\nto = e4m3\nrounding = rne\nsaturation = finite\n"
       "tininess = after\ndialect = ocp\nblock = 32\nscale = floor\n",
       "quantize reads f64, f32, f16 or bf16"},
      {"softmx-vectors = 1\noperation = quantize\nfrom = f32\nto = e4m3\nrounding = rne\nsaturation = finite\n"
       "tininess = after\ndialect = ocp\nblock = 0\nscale = floor\n",
       "bad value '0' for 'block'"},
      {kConvert + "3F800000 38 00 00\n", "t.vec line 9: 4 fields, expected 1, 2 or 3 fields (IN OUT FLAGS)"},
      {kConvert + "3F80000 38 00\n", "t.vec line 9: field 1 (IN): expected 8 hex digits (f32), got \"3F80000\""},
      {kConvert + "3F800000 3G 00\n", "field 2 (OUT): expected 2 hex digits (e4m3)"},
      {kConvert + "3F800000 38 20\n", "field 3 (FLAGS): expected 2 hex digits (flags 00..1F"},
      {kConvert + "3F800000 38 00\nx-late = 1\n", "t.vec line 10: a header line 'key = value' after the data lines began"},
      {"softmx-vectors = 1\noperation = convert\nfrom = f16\nto = e3m2\nrounding = rne\nsaturation = finite\n"
       "tininess = after\ndialect = ocp\n0000 40 00\n",
       "field 2 (OUT): expected 2 hex digits (e3m2 code, 00..3F)"},
      {kRunsF16 + "first = 0000\nlast = FFFF\n0001 00 00\n",
       "t.vec line 12: the first run starts at 0001, expected the header's first = 0000"},
      {kRunsF16 + "first = 0000\nlast = FFFF\n0000 00 00\n0100 01 01\n0100 02 01\n",
       "t.vec line 14: run FIRST 0100 does not increase"},
      {kRunsF16 + "first = 0000\nlast = 00FF\n0000 00 00\n0100 01 01\n",
       "beyond the header's last = 00FF"},
      {kRunsF16 + "first = 0000\nlast = FFFF\n0000 00 00\n0100 01\n",
       "flags are given on some run lines and not on others"},
      {"softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = f16\nto = e4m3\nrounding = rs\nrbits = 8\n"
       "saturation = finite\ntininess = after\ndialect = ocp\nfirst = 0000\nlast = FFFF\n",
       "layout = runs needs a deterministic rounding"},
      {"softmx-vectors = 1\noperation = dequantize\nfrom = e4m3\nto = f32\nrounding = rs\nrbits = 8\n"
       "saturation = finite\ntininess = after\ndialect = ocp\n",
       "rounding = rs needs random bits on each line, which dequantize lines do not carry"},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.fragment), std::string::npos) << "input:\n" << c.text << "\nerror: " << e;
  }
}

TEST(VectorFormat, RunsCoverTheRangeExactly) {
  auto r = VectorReader::from_string(
      "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = f16\nto = e4m3\nrounding = rne\nsaturation = finite\n"
      "tininess = after\ndialect = ocp\nfirst = 0010\nlast = 0FFF\n0010 00 00\n0100 01 01\n0800 02 00\n",
      "t");
  softmx::vec::Run run;
  std::vector<softmx::vec::Run> runs;
  while (r->next_run(run)) runs.push_back(run);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].first, 0x10u);
  EXPECT_EQ(runs[0].last, 0xFFu);
  EXPECT_EQ(runs[1].last, 0x7FFu);
  EXPECT_EQ(runs[2].first, 0x800u);
  EXPECT_EQ(runs[2].last, 0xFFFu);
  EXPECT_EQ(runs[1].flags, 1);
}

TEST(VectorFormat, EvaluatorRejectsWhatTheDialectCannotDo) {
  auto r = VectorReader::from_string(
      "softmx-vectors = 1\noperation = convert\nfrom = f32\nto = e4m3\nrounding = rz\nsaturation = finite\n"
      "tininess = after\ndialect = cuda\n",
      "t");
  try {
    Evaluator e(r->header());
    FAIL() << "cuda has no rz into e4m3";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot compute convert f32 -> e4m3 rz satfinite (cuda)"), std::string::npos) << e.what();
  }
}

}  // namespace
