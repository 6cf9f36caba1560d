// conformance/test_format_catalog.cpp: the formats a user can name (issue 29;
// include/softmx/format_catalog.hpp): the listing holds every name the parser reads and each
// expands to what the parser gives; e4m3ieee is accepted and the ambiguous e4m3b11 refused with
// both meanings; an unlisted spec gets a note naming what it was read as and the nearest listed
// format; runtime destinations with Inf overflow to Inf by default (SEMANTICS 4.1), the others
// keep their dialect's default.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format_catalog.hpp"

namespace {

using namespace softmx;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FormatCatalog, EveryAliasReadsAsItsSpec) {
  const auto aliases = format_aliases();
  // The named formats' other names and ml_dtypes' runtime names, each once.
  for (const char* n : {"fp32", "bfloat16", "float8_e4m3fn", "fp4", "mxint8", "ue8m0", "float8_e4m3fnuz",
                        "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e4m3b11", "float8_e3m4", "float8_e4m3",
                        "e4m3ieee"})
    EXPECT_EQ(std::count_if(aliases.begin(), aliases.end(), [&](const FormatAlias& a) { return a.name == n; }), 1) << n;
  for (const FormatAlias& a : aliases) {
    EXPECT_EQ(parse_format_spec(a.name), parse_format_spec(a.spec)) << a.name << " -> " << a.spec;
    EXPECT_NE(std::string(a.name), format_spec(parse_format_spec(a.spec))) << a.name << " is canonical, not an alias";
  }
  // Canonical names are not aliases.
  EXPECT_TRUE(std::none_of(aliases.begin(), aliases.end(), [](const FormatAlias& a) { return a.name == "e4m3"; }));
}

TEST(FormatCatalog, ListedFormatsAreTheNamedThenTheNamedRuntimeSpecs) {
  const auto l = listed_formats();
  ASSERT_GE(l.size(), static_cast<std::size_t>(kFormatCount) + 10);
  for (int i = 0; i < kFormatCount; ++i) EXPECT_EQ(l[i].id, static_cast<FormatId>(i));
  for (const char* s : {"e1m2", "e2m2", "e3m4", "e4m3:specials=ieee", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "ue4m3",
                        "ue5m3", "int4"})
    EXPECT_TRUE(is_listed_format(parse_format_spec(s))) << s;
  for (std::size_t i = 0; i < l.size(); ++i)
    for (std::size_t j = i + 1; j < l.size(); ++j) EXPECT_FALSE(l[i] == l[j]) << l[i].name << " twice";
  // Every runtime alias's format is listed.
  for (const FormatAlias& a : format_aliases()) EXPECT_TRUE(is_listed_format(parse_format_spec(a.spec))) << a.name;
  EXPECT_FALSE(is_listed_format(parse_format_spec("e4m4")));
  EXPECT_EQ(aliases_of(parse_format_spec("e3m4")), std::vector<std::string>{"float8_e3m4"});
  EXPECT_EQ(aliases_of(parse_format_spec("e4m3:specials=ieee")), (std::vector<std::string>{"float8_e4m3", "e4m3ieee"}));
}

TEST(FormatCatalog, E4m3ieeeIsE4m3WithIeeeSpecials) {
  const Format f = parse_format_spec("e4m3ieee");
  EXPECT_EQ(f, parse_format_spec("e4m3:specials=ieee"));
  EXPECT_EQ(parse_format_spec("E4M3IEEE"), f);
  EXPECT_EQ(format_spec(f), "e4m3:specials=ieee");
  EXPECT_TRUE(f.has_inf());
  EXPECT_EQ(f.max_finite_magnitude(), 0x77u);  // 240
}

TEST(FormatCatalog, E4m3b11IsRefusedNamingBothMeanings) {
  for (const char* s : {"e4m3b11", "E4M3B11", "e4m3b11:subnormals=yes"}) {
    try {
      (void)parse_format_spec(s);
      ADD_FAILURE() << s << " was accepted";
    } catch (const FormatError& e) {
      const std::string m = e.what();
      EXPECT_EQ(e.field(), "name");
      EXPECT_TRUE(has(m, "ambiguous")) << m;
      EXPECT_TRUE(has(m, "float8_e4m3b11fnuz") && has(m, "e4m3b11fnuz") && has(m, "e4m3b11fn")) << m;
      EXPECT_TRUE(has(m, "max 30") && has(m, "max 28")) << m;
    }
  }
  // ml_dtypes' names keep ml_dtypes' meaning; the suffixed spellings are unambiguous.
  EXPECT_EQ(parse_format_spec("float8_e4m3b11"), parse_format_spec("e4m3b11fnuz"));
  EXPECT_EQ(parse_format_spec("float8_e4m3b11fnuz").specials, Specials::fnuz);
  const Format fn = parse_format_spec("e4m3b11fn");
  EXPECT_EQ(fn.specials, Specials::fn);
  EXPECT_EQ(fn.bias, 11);
}

TEST(FormatCatalog, UnlistedSpecNoteNamesTheFormatAndTheNearest) {
  EXPECT_EQ(unlisted_spec_note("e4m4"),
            "'e4m4' is not a named format; read as a runtime format with 4 exponent and 4 mantissa bits (9-bit "
            "codes, bias 7, Inf and NaN; spec e4m4); nearest named format: e4m3");
  for (const char* s : {"e4m3", "E4M3", "float8_e4m3fn", "e3m4", "float8_e3m4", "e4m3ieee", "e4m3:specials=ieee",
                        "e4m3:bias=11:specials=fnuz", "int4", "ue4m3", "fp4"})
    EXPECT_EQ(unlisted_spec_note(s), std::nullopt) << s;
  EXPECT_EQ(format_spec(nearest_listed_format(parse_format_spec("e3m3"))), "e3m2");
  EXPECT_EQ(format_spec(nearest_listed_format(parse_format_spec("e4m3:bias=12"))), "e4m3");
  EXPECT_EQ(format_spec(nearest_listed_format(parse_format_spec("ue4m4"))), "ue4m3");
  EXPECT_EQ(format_spec(nearest_listed_format(parse_format_spec("int5"))), "int4");
  const auto n = unlisted_spec_note("ue6m2");
  ASSERT_TRUE(n.has_value());
  EXPECT_TRUE(has(*n, "an unsigned runtime format with 6 exponent and 2 mantissa bits (8-bit codes")) << *n;
  EXPECT_THROW((void)unlisted_spec_note("e9m2"), FormatError);
}

TEST(FormatCatalog, ListingAndDescriptionText) {
  const std::string t = format_listing_text();
  for (const FormatAlias& a : format_aliases()) EXPECT_TRUE(has(t, std::string(a.name))) << a.name;
  for (const FormatSpecForm& g : format_spec_forms()) {
    EXPECT_TRUE(has(t, std::string(g.form))) << g.form;
    // Every example is a spec the parser reads.
    std::string ex(g.examples);
    for (std::size_t at = 0; at < ex.size();) {
      const std::size_t sp = std::min(ex.find(' ', at), ex.size());
      EXPECT_NO_THROW((void)parse_format_spec(ex.substr(at, sp - at))) << ex.substr(at, sp - at);
      at = sp + 1;
    }
  }
  EXPECT_TRUE(has(t, "e4m3:specials=ieee float8_e4m3 e4m3ieee")) << t;
  const std::string d = format_description_text("float8_e3m4");
  EXPECT_TRUE(has(d, "e3m4: a runtime format with a name")) << d;
  EXPECT_TRUE(has(d, "(alias of e3m4)")) << d;
  EXPECT_TRUE(has(d, "Inf 0x70, NaN 0x71-0x7F")) << d;
  EXPECT_TRUE(has(d, "max finite     15.5 (0x6F)")) << d;
  EXPECT_TRUE(has(d, "min subnormal  2^-6 = 0.015625 (0x01)")) << d;
  EXPECT_TRUE(has(d, "saturation none: +-Inf")) << d;
  EXPECT_TRUE(has(format_description_text("e4m4"), "nearest named  e4m3"));
  EXPECT_TRUE(has(format_description_text("e4m3fnuz"), "NaN 0x80 only"));
  EXPECT_THROW((void)format_description_text("e4m3b11"), FormatError);
}

// Issue 29: a runtime destination with Inf overflows to Inf by default under every built-in
// dialect that takes it, as f16 does; without Inf (fn, fnuz, none) the dialect's runtime default
// stays (ocp: finite).
TEST(FormatCatalog, RuntimeDestinationsWithInfOverflowToInfByDefault) {
  const Format e3m4 = parse_format_spec("e3m4"), ieee8 = parse_format_spec("e4m3ieee"), ue5m3 = parse_format_spec("ue5m3");
  for (const Dialect& d : all_dialects()) {
    for (const Format& f : {e3m4, ieee8, ue5m3}) {
      if (unsupported_reason(d, f, resolve(d, f, Context{}))) continue;  // the dialect refuses it
      EXPECT_EQ(support_for(d, f).default_saturation, Saturation::none) << d.name << " " << f.name;
    }
  }
  EXPECT_EQ(support_for(ocp_dialect(), parse_format_spec("e4m3fnuz")).default_saturation, Saturation::finite);
  EXPECT_EQ(support_for(ocp_dialect(), parse_format_spec("e1m2")).default_saturation, Saturation::finite);
  EXPECT_EQ(support_for(ocp_dialect(), parse_format_spec("ue4m3")).default_saturation, Saturation::finite);
  // Named formats keep their entries (e5m2 has Inf, and ocp's MX default is finite).
  EXPECT_EQ(support_for(ocp_dialect(), format(FormatId::e5m2)).default_saturation, Saturation::finite);
  // The conversion itself: 1e6 (f64) into e3m4 is +Inf 0x70 with overflow and inexact.
  const std::uint64_t one_e6 = 0x412E848000000000ull;
  const Result r = convert(format(FormatId::f64), e3m4, one_e6, Context{});
  EXPECT_EQ(r.code, 0x70u);
  EXPECT_EQ(r.flags, flag::overflow | flag::inexact);
  Context fin;
  fin.saturation = Saturation::finite;
  EXPECT_EQ(convert(format(FormatId::f64), e3m4, one_e6, fin).code, 0x6Fu);
  EXPECT_EQ(convert(format(FormatId::f64), parse_format_spec("e4m3fnuz"), one_e6, Context{}).code, 0x7Fu);
  // A custom dialect states otherwise.
  Dialect custom;
  custom.runtime.default_saturation_with_inf = Saturation::finite;
  EXPECT_EQ(support_for(custom, e3m4).default_saturation, Saturation::finite);
}

}  // namespace
