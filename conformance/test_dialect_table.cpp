// conformance/test_dialect_table.cpp: every field of every built-in dialect, against a dump
// checked in as conformance/data/dialect_table.txt.
//
// The dialect table (emulator/dialects.cpp) is written as a base plus the fields each dialect
// changes; this test pins the values the table produces, so that rewriting how the table is
// written cannot change a value. The expected file was recorded from the table before it was
// made declarative (issue 32). A deliberate change of a dialect regenerates it:
//   SOFTMX_WRITE_DIALECT_TABLE=1 build/conformance/test_dialect_table
// and the diff of the data file is the change, one line per field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/dialect.hpp"
#include "softmx/format.hpp"
#include "support/text_lines.hpp"

namespace softmx {
namespace {

const char* kExpected = SOFTMX_SOURCE_DIR "/conformance/data/dialect_table.txt";

// One line per field: "dialect.field = value". Enums print as their integer value (the dump
// pins values, not names); strings print between brackets so that empty ones show.
struct Dump {
  std::ostringstream out;
  std::string prefix;
  template <class T>
  Dump& num(std::string_view field, T v) {
    out << prefix << field << " = " << static_cast<long long>(v) << "\n";
    return *this;
  }
  Dump& real(std::string_view field, double v) {
    out << prefix << field << " = " << v << "\n";
    return *this;
  }
  Dump& text(std::string_view field, std::string_view v) {
    out << prefix << field << " = [" << v << "]\n";
    return *this;
  }
  void support(const std::string& field, const DestinationSupport& s) {
    num(field + ".roundings", s.roundings);
    num(field + ".saturations", s.saturations);
    text(field + ".why", s.why);
    num(field + ".default_rounding", s.default_rounding);
    num(field + ".default_saturation", s.default_saturation);
  }
};

std::string dump(const Dialect& d) {
  Dump o;
  o.prefix = std::string(d.name) + ".";
  o.text("name", d.name);
  o.text("summary", d.summary);
  o.text("sources", d.sources);
  o.num("nan_sign", d.nan_sign);
  for (int i = 0; i < kFormatCount; ++i)
    o.num("nan_payload[" + std::string(format(static_cast<FormatId>(i)).name) + "]", d.nan_payload[i]);
  o.num("nan_payload_path_count", d.nan_payload_path_count);
  for (int i = 0; i < kMaxNanPayloadPaths; ++i) {
    const std::string p = "nan_payload_paths[" + std::to_string(i) + "]";
    const NanPayloadPath& path = d.nan_payload_paths[i];
    o.num(p + ".src", path.src).num(p + ".dst", path.dst).num(p + ".payload", path.payload);
  }
  for (int i = 0; i < kFormatCount; ++i)
    o.num("nan_canonical_ones[" + std::string(format(static_cast<FormatId>(i)).name) + "]",
          d.nan_canonical_ones[i]);
  o.num("nan_to_finite", d.nan_to_finite).real("nan_finite_value", d.nan_finite_value);
  o.num("e8m0_below", d.e8m0_below).num("e8m0_zero", d.e8m0_zero).num("e8m0_negative", d.e8m0_negative);
  o.num("e8m0_ties", d.e8m0_ties).num("satfinite_inf", d.satfinite_inf);
  o.num("overflow_no_inf", d.overflow_no_inf).num("ro_overflow", d.ro_overflow);
  o.num("nearest_ties", d.nearest_ties).num("zero_sign", d.zero_sign);
  o.num("e8m0_lowest_binade_rounds_up", d.e8m0_lowest_binade_rounds_up).num("int8_minus2", d.int8_minus2);
  const BlockPolicies& b = d.block;
  o.text("block.unsupported", b.unsupported);
  o.num("block.scale_rule", b.scale_rule).num("block.zero_block_scale", b.zero_block_scale);
  o.num("block.nan_block", b.nan_block).num("block.inf_block", b.inf_block);
  o.num("block.nan_scale_elements", b.nan_scale_elements).num("block.scale_overflow", b.scale_overflow);
  o.num("block.rceil_f32_reciprocal", b.rceil_f32_reciprocal);
  o.num("block.even_f32_overflow_nan", b.even_f32_overflow_nan);
  o.num("block.element_scaling", b.element_scaling).num("block.dequant_scaling", b.dequant_scaling);
  o.num("block.element_rounding", b.element_rounding).num("block.element_saturation", b.element_saturation);
  o.num("block.zero_sign", b.zero_sign).num("block.int8_integer_elements", b.int8_integer_elements);
  o.num("block.sources", b.sources).text("block.sources_why", b.sources_why);
  for (int i = 0; i < kFormatCount; ++i)
    o.support("support[" + std::string(format(static_cast<FormatId>(i)).name) + "]", d.support[i]);
  const RuntimeFormatPolicy& r = d.runtime;
  o.text("runtime.refused", r.refused).num("runtime.specials", r.specials);
  o.support("runtime.support", r.support);
  o.num("runtime.default_saturation_with_inf", r.default_saturation_with_inf);
  o.num("runtime.nan_payload", r.nan_payload).num("runtime.nan_canonical_ones", r.nan_canonical_ones);
  return o.out.str();
}

TEST(DialectTable, EveryFieldOfEveryDialectAsRecorded) {
  std::string got;
  for (const Dialect& d : all_dialects()) got += dump(d);
  if (std::getenv("SOFTMX_WRITE_DIALECT_TABLE")) {
    std::ofstream(kExpected) << got;
    GTEST_SKIP() << "wrote " << kExpected;
  }
  std::ifstream f(kExpected);
  ASSERT_TRUE(f) << "cannot read " << kExpected;
  std::stringstream want;
  want << f.rdbuf();
  const std::vector<std::string> g = testing::lines_of(got), w = testing::lines_of(want.str());
  int differ = 0;
  for (std::size_t i = 0; i < std::max(g.size(), w.size()); ++i) {
    const std::string gl = i < g.size() ? g[i] : "(none)", wl = i < w.size() ? w[i] : "(none)";
    if (gl != wl && ++differ <= 20) ADD_FAILURE() << "line " << i + 1 << ": got " << gl << "\n  want " << wl;
  }
  EXPECT_EQ(differ, 0) << "lines that differ from " << kExpected;
  EXPECT_EQ(g.size(), w.size());
}

// The dump sees every dialect: 19 built-ins, ocp first, names unique.
TEST(DialectTable, NamesUniqueOcpFirst) {
  const auto all = all_dialects();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].name, "ocp");
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i].name, all[j].name);
  EXPECT_EQ(&all[0], &ocp_dialect());
  for (const Dialect& d : all) EXPECT_EQ(find_dialect(d.name), &d);
}

}  // namespace
}  // namespace softmx
