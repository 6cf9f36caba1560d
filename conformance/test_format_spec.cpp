// conformance/test_format_spec.cpp: runtime format descriptors and their textual specs
// (docs/SEMANTICS.md 1.1, 1.2): every name the spec rules define, pinned by its fields and by
// values computed by hand from the rule; the printer against the parser on random descriptors
// (RapidCheck); every kind of bad spec by the field its message names; a descriptor equal to a
// named format being that format; and the dialects' runtime-format rule (docs/DIALECTS.md).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "softmx/convert.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

/// The exact value of a code, through the conversion to f64 (exact for every runtime format:
/// their values are f64 normal numbers, SEMANTICS 1.1).
double value(const Format& f, std::uint64_t code) {
  Context c;
  c.saturation = Saturation::none;
  return std::bit_cast<double>(convert(f, format(FormatId::f64), code, c).code);
}

struct Expect {
  const char* spec;
  SignEncoding sign;
  int e, m, bias;
  Specials specials;
  bool subnormals, fixed;
  double max;          // the largest finite value
  const char* canonical;
};

// Hand-computed from the rules: bias 2^(e-1) - 1 (e >= 2), 1 for e = 1; an unsuffixed name
// narrower than 8 bits has no specials, 8 bits or more is IEEE-like (OCP e4m3 and e5m2 are the
// named ones); fnuz moves the bias up by one; ueXmY is the positive half of eXmY.
const Expect kNames[] = {
    // e1m2 (the MX-FP4 golden generator's E1M2, seed 003: bias 1, max 1.75): 1.11b * 2^0
    {"e1m2", SignEncoding::magnitude, 1, 2, 1, Specials::none, true, false, 1.75, "e1m2"},
    // e2m2: 1.11b * 2^(3 - 1)
    {"e2m2", SignEncoding::magnitude, 2, 2, 1, Specials::none, true, false, 7.0, "e2m2"},
    // e3m4 (ml_dtypes float8_e3m4: max 0b0'110'1111 = 15.5, float8.h:616)
    {"e3m4", SignEncoding::magnitude, 3, 4, 3, Specials::ieee, true, false, 15.5, "e3m4"},
    {"float8_e3m4", SignEncoding::magnitude, 3, 4, 3, Specials::ieee, true, false, 15.5, "e3m4"},
    // e4m3fnuz (ml_dtypes: bias 8, max 0x7F = 240, float8.h:862)
    {"e4m3fnuz", SignEncoding::magnitude, 4, 3, 8, Specials::fnuz, true, false, 240.0, "e4m3fnuz"},
    {"float8_e4m3fnuz", SignEncoding::magnitude, 4, 3, 8, Specials::fnuz, true, false, 240.0, "e4m3fnuz"},
    // e5m2fnuz (bias 16, max 0x7F = 1.11b * 2^15 = 57344)
    {"e5m2fnuz", SignEncoding::magnitude, 5, 2, 16, Specials::fnuz, true, false, 57344.0, "e5m2fnuz"},
    {"FLOAT8_E5M2FNUZ", SignEncoding::magnitude, 5, 2, 16, Specials::fnuz, true, false, 57344.0, "e5m2fnuz"},
    // e4m3b11fnuz (bias 11, max 1.111b * 2^4 = 30)
    {"e4m3b11fnuz", SignEncoding::magnitude, 4, 3, 11, Specials::fnuz, true, false, 30.0, "e4m3b11fnuz"},
    {"float8_e4m3b11fnuz", SignEncoding::magnitude, 4, 3, 11, Specials::fnuz, true, false, 30.0, "e4m3b11fnuz"},
    {"float8_e4m3b11", SignEncoding::magnitude, 4, 3, 11, Specials::fnuz, true, false, 30.0, "e4m3b11fnuz"},
    {"e4m3:bias=11:specials=fnuz", SignEncoding::magnitude, 4, 3, 11, Specials::fnuz, true, false, 30.0, "e4m3b11fnuz"},
    // ml_dtypes float8_e4m3: IEEE-like, Inf 0x78, max 0x77 = 1.111b * 2^7 = 240 (float8.h:680, 692)
    {"float8_e4m3", SignEncoding::magnitude, 4, 3, 7, Specials::ieee, true, false, 240.0, "e4m3:specials=ieee"},
    // ue4m3: the positive half of OCP e4m3 (NVFP4's scale; 0x7F NaN, max 448), 7 bits
    {"ue4m3", SignEncoding::none, 4, 3, 7, Specials::fn, true, false, 448.0, "ue4m3"},
    // ue5m3: the positive half of e5m3 (9 bits: IEEE-like): max 1.111b * 2^15 = 61440
    {"ue5m3", SignEncoding::none, 5, 3, 15, Specials::ieee, true, false, 61440.0, "ue5m3"},
    // int4: two's complement 1.2 fixed point (MXINT8's 1.6 at 4 bits): k/4, max 7/4
    {"int4", SignEncoding::twos_complement, 1, 2, 1, Specials::none, true, true, 1.75, "int4"},
    {"mxint4", SignEncoding::twos_complement, 1, 2, 1, Specials::none, true, true, 1.75, "int4"},
    // int2: -2, -1, 0, 1
    {"int2", SignEncoding::twos_complement, 1, 0, 1, Specials::none, true, true, 1.0, "int2"},
    // e5m2 with a fn NaN at 0x7F: max 0x7E = 1.10b * 2^(31 - 15) = 98304
    {"e5m2fn", SignEncoding::magnitude, 5, 2, 15, Specials::fn, true, false, 98304.0, "e5m2fn"},
    // a signed no-fraction 8-bit name: fn (as E8M0): max code 0x7E = 2^(126 - 63)
    {"e7m0", SignEncoding::magnitude, 7, 0, 63, Specials::fn, true, false, 0x1p63, "e7m0"},
    // keys on a named base: e8m0 without its NaN, every code a value (max 2^(255 - 127))
    {"e8m0:specials=none", SignEncoding::none, 8, 0, 127, Specials::none, false, false, 0x1p128, "ue8m0:specials=none"},
    {"e4m3:subnormals=no", SignEncoding::magnitude, 4, 3, 7, Specials::fn, false, false, 448.0, "e4m3:subnormals=no"},
    {"e2m1:bias=2", SignEncoding::magnitude, 2, 1, 2, Specials::none, true, false, 3.0, "e2m1:bias=2"},
    {"E3M2:Bias=-2", SignEncoding::magnitude, 3, 2, -2, Specials::none, true, false, 1.75 * 512, "e3m2:bias=-2"},
    {"e4m3:exp=5", SignEncoding::magnitude, 5, 3, 15, Specials::fn, true, false, 1.75 * 65536, "e5m3fn"},
};

TEST(FormatSpec, NamesGiveTheirFieldsAndValues) {
  conformance::Tally t("format specs: fields, max value and canonical name of every spec rule");
  for (const Expect& x : kNames) {
    SCOPED_TRACE(x.spec);
    const Format f = parse_format_spec(x.spec);
    const bool fields = f.sign == x.sign && f.exp_bits == x.e && f.man_bits == x.m && f.bias == x.bias &&
                        f.specials == x.specials && f.subnormals == x.subnormals && f.fixed_point == x.fixed;
    t.check(fields, [&] { return std::string(x.spec) + ": fields differ"; });
    EXPECT_TRUE(fields);
    EXPECT_EQ(f.id, FormatId::runtime);
    EXPECT_EQ(f.name, x.canonical);
    EXPECT_EQ(format_spec(f), x.canonical);
    const double max = value(f, f.max_finite_magnitude());
    t.check(max == x.max, [&] { return std::string(x.spec) + ": max " + std::to_string(max); });
    EXPECT_EQ(max, x.max);
    EXPECT_EQ(parse_format_spec(x.canonical), f);
    t.check(parse_format_spec(f.name) == f, [&] { return std::string(x.spec) + ": name does not parse back"; });
  }
  t.report();
}

TEST(FormatSpec, NamedFormatsAndTheirAliasesAreTheNamedDescriptors) {
  const std::pair<const char*, FormatId> named[] = {
      {"e4m3", FormatId::e4m3},          {"float8_e4m3fn", FormatId::e4m3},  {"e4m3fn", FormatId::e4m3},
      {"e4m3:specials=fn", FormatId::e4m3}, {"e4m3:bias=7", FormatId::e4m3},  {"e5m2", FormatId::e5m2},
      {"float8_e5m2", FormatId::e5m2},   {"e5m2:specials=ieee", FormatId::e5m2},
      {"float6_e3m2fn", FormatId::e3m2}, {"e3m2fn", FormatId::e3m2},          {"float6_e2m3fn", FormatId::e2m3},
      {"float4_e2m1fn", FormatId::e2m1}, {"e2m1fn", FormatId::e2m1},          {"e8m0", FormatId::e8m0},
      {"ue8m0", FormatId::e8m0},         {"float8_e8m0fnu", FormatId::e8m0},  {"int8", FormatId::int8},
      {"mxint8", FormatId::int8},        {"e1m6:sign=twos:fixed=yes:specials=none", FormatId::int8},
      {"e5m10", FormatId::f16},          {"e8m23", FormatId::f32},            {"e8m7", FormatId::bf16},
      {"f32", FormatId::f32},            {"bfloat16", FormatId::bf16},        {"f64", FormatId::f64},
      {"e2m1:specials=none", FormatId::e2m1},
  };
  for (const auto& [spec, id] : named) {
    SCOPED_TRACE(spec);
    const Format f = parse_format_spec(spec);
    EXPECT_EQ(f.id, id);
    EXPECT_EQ(f.name, format(id).name);
    EXPECT_EQ(f, format(id));
    EXPECT_EQ(format_spec(f), format(id).name);
  }
  for (const Format& f : all_formats()) EXPECT_EQ(parse_format_spec(f.name).id, f.id) << f.name;
}

TEST(FormatSpec, HandMadeDescriptorsAreMadeCanonical) {
  // A named descriptor edited by hand is no longer that format: canonical_format gives it the
  // runtime id and its spec as name (a stale id would otherwise pick e4m3's kernels).
  Format f = format(FormatId::e4m3);
  f.specials = Specials::fnuz;
  f.bias = 8;
  const Format c = canonical_format(f);
  EXPECT_EQ(c.id, FormatId::runtime);
  EXPECT_EQ(c.name, "e4m3fnuz");
  const Converter conv(format(FormatId::f32), f, Context{});
  EXPECT_EQ(conv.destination(), FormatId::runtime);
  EXPECT_EQ(conv(0x43700000).code, 0x7Fu);  // 240 = e4m3fnuz max (e4m3 would give 0x77)
  // Edited back to e4m3's fields: the named format again.
  f.specials = Specials::fn;
  f.bias = 7;
  EXPECT_EQ(canonical_format(f).id, FormatId::e4m3);
  // An inconsistent width is refused by name.
  f.width = 9;
  try {
    (void)canonical_format(f);
    ADD_FAILURE() << "width 9 for e4m3 accepted";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.field(), "width");
  }
  EXPECT_THROW((void)format(FormatId::runtime), std::invalid_argument);
  // make_format with the default bias.
  FormatFields ff;
  ff.exp_bits = 3;
  ff.man_bits = 4;
  ff.specials = Specials::ieee;
  EXPECT_EQ(make_format(ff), parse_format_spec("e3m4"));
  EXPECT_EQ(default_bias(0), 0);
  EXPECT_EQ(default_bias(1), 1);
  EXPECT_EQ(default_bias(2), 1);
  EXPECT_EQ(default_bias(5), 15);
  EXPECT_EQ(default_bias(8), 127);
}

struct Bad {
  const char* spec;
  const char* field;
  const char* says;  // a part of the message
};

const Bad kBad[] = {
    {"", "name", "empty"},
    {"xyz", "name", "unknown format 'xyz'"},
    {"e4m3 ", "name", "unexpected character ' '"},
    {"ue0m0", "width", "zero width"},
    {"f64:bias=1000", "exp", "expected 0 to 8 exponent bits, got 11"},
    {"e9m2", "exp", "expected 0 to 8 exponent bits, got 9"},
    {"e4m24", "man", "expected 0 to 23 fraction bits, got 24"},
    {"e4m3:exp=12", "exp", "expected 0 to 8 exponent bits"},
    {"e4m3:bias=2000", "bias", "expected an integer in [-1008, 1018]"},
    {"e8m23:bias=-900", "bias", "expected an integer in [-768, 998]"},
    {"e4m3:bias=x", "bias", "expected an integer, got 'x'"},
    {"e7m0:specials=ieee", "specials", "ieee needs at least one exponent and one fraction bit"},
    {"ue4m3fnuz", "specials", "fnuz needs a sign bit"},
    {"e4m3fnuz:subnormals=no", "specials", "fnuz needs subnormals=yes"},
    {"int4:specials=fn", "specials", "two's complement format has no special codes"},
    {"int4:subnormals=no", "subnormals", "two's complement format needs subnormals=yes"},
    {"e1m0fn", "specials", "no finite non-zero value"},
    {"e4m3:fixed=yes", "fixed", "uniformly spaced"},
    {"e4m3:foo=1", "key", "unknown key 'foo'"},
    {"e4m3:bias=1:bias=2", "key", "'bias' is given twice"},
    {"e4m3:bias", "key", "expected key=value"},
    {"e4m3:", "key", "expected key=value"},
    {":bias=3", "name", "starts with ':'"},
    {"e4m3:subnormals=maybe", "subnormals", "expected yes or no"},
    {"e4m3:specials=inf", "specials", "expected ieee, fn, fnuz or none"},
    {"e4m3:sign=negative", "sign", "expected magnitude, none or twos"},
    {"int1", "name", "intN needs N from 2 to 25"},
    {"int26", "name", "intN needs N from 2 to 25"},
    {"e4m3fnx", "name", "unknown format"},
    {"e99999m1", "name", "unknown format"},
};

TEST(FormatSpec, BadSpecsNameTheField) {
  conformance::Tally t("bad format specs: each refused with a message naming its field");
  for (const Bad& b : kBad) {
    SCOPED_TRACE(b.spec);
    try {
      const Format f = parse_format_spec(b.spec);
      t.fail(std::string("'") + b.spec + "' accepted as " + std::string(f.name));
    } catch (const FormatError& e) {
      const std::string what = e.what();
      const bool ok = e.field() == b.field && what.find(b.says) != std::string::npos &&
                      what.find(std::string(b.field) + ":") != std::string::npos &&
                      what.find(std::string("'") + b.spec + "'") != std::string::npos;
      t.check(ok, [&] { return std::string("'") + b.spec + "': field " + e.field() + ", message: " + what; });
    }
  }
  t.report();
}

// Any valid descriptor: the printer's text parses back to it, and make_format names it so.
TEST(FormatSpec, PrinterAndParserAgreeOnRandomDescriptors) {
  std::size_t made = 0;
  const bool ok = rc::check("format_spec(f) parses back to f", [&] {
    FormatFields ff;
    ff.sign = *rc::gen::element(SignEncoding::magnitude, SignEncoding::none, SignEncoding::twos_complement);
    ff.exp_bits = *rc::gen::inRange(0, 9);
    ff.man_bits = *rc::gen::inRange(0, 24);
    if (*rc::gen::arbitrary<bool>()) ff.bias = *rc::gen::inRange(-300, 300);
    ff.specials = *rc::gen::element(Specials::ieee, Specials::fn, Specials::none, Specials::fnuz);
    ff.subnormals = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
    ff.fixed_point = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
    Format f;
    try {
      f = make_format(ff);
    } catch (const FormatError&) {
      RC_DISCARD("not a valid descriptor");
    }
    ++made;
    const std::string text = format_spec(f);
    RC_ASSERT(std::string(f.name) == text);
    RC_ASSERT(text.size() <= FormatName::kCapacity);
    const Format back = parse_format_spec(text);
    RC_ASSERT(back == f);
    RC_ASSERT(back.id == f.id);
    std::string upper = text;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    RC_ASSERT(parse_format_spec(upper) == f);
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(made, 50u);
}

TEST(FormatSpec, DialectsAcceptOrRefuseRuntimeFormats) {
  const Format fnuz = parse_format_spec("e4m3fnuz"), e2m2 = parse_format_spec("e2m2"), f32 = format(FormatId::f32);
  Context rne;
  // ocp, ml_dtypes and gfloat take any runtime format.
  for (const char* d : {"ocp", "ml_dtypes", "gfloat"}) EXPECT_NO_THROW(Converter(f32, fnuz, rne, *find_dialect(d))) << d;
  // cuda and transformer-engine refuse runtime formats as destinations and as sources.
  for (const char* d : {"cuda", "cuda-sm90", "cuda-sm100", "transformer-engine"}) {
    SCOPED_TRACE(d);
    try {
      Converter(f32, fnuz, rne, *find_dialect(d));
      ADD_FAILURE() << "accepted";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("cannot convert to the runtime format e4m3fnuz"), std::string::npos) << e.what();
    }
    try {
      Converter(fnuz, f32, rne, *find_dialect(d));
      ADD_FAILURE() << "accepted as a source";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("cannot read the runtime format e4m3fnuz"), std::string::npos) << e.what();
    }
    // A runtime spec equal to a named format is that format, and is accepted.
    EXPECT_NO_THROW(Converter(f32, parse_format_spec("float8_e4m3fn"), rne, *find_dialect(d)));
  }
  // torchao and microxcaling: runtime formats without specials only (their generic paths).
  for (const char* d : {"torchao", "microxcaling"}) {
    SCOPED_TRACE(d);
    EXPECT_NO_THROW(Converter(f32, e2m2, rne, *find_dialect(d)));
    EXPECT_THROW(Converter(f32, fnuz, rne, *find_dialect(d)), Unsupported);
  }
  // Modes: ml_dtypes rounds to nearest even only.
  Context rz;
  rz.rounding = Rounding::rz;
  try {
    Converter(f32, fnuz, rz, *find_dialect("ml_dtypes"));
    ADD_FAILURE() << "ml_dtypes rz accepted";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("with rounding rz"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(unsupported_reason(ocp_dialect(), fnuz, rz));
  EXPECT_FALSE(unsupported_source_reason(ocp_dialect(), fnuz));
}

}  // namespace
}  // namespace softmx
