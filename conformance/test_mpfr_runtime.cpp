// conformance/test_mpfr_runtime.cpp: runtime formats against the MPFR oracle, which reads the
// descriptors' fields as its own type (oracles/mpfr_oracle.hpp: the encoding written from
// docs/SEMANTICS.md 1.1, fnuz included).
//
// The family: every ExMy of 4 to 8 bits, signed and unsigned, with every specials kind its
// width allows (none, fn, fnuz, ieee), the intN formats, formats without subnormals, and the
// named specs e3m4, e1m2, e2m2, ue4m3, ue5m3, e4m3fnuz, e5m2fnuz, e4m3b11fnuz, float8_e4m3
// and e8m0. For each, under every deterministic mode, both saturations and both tininess rules:
//   - every code into f64, f32 and f16, and into three runtime formats;
//   - every f16 input (default run) and every bf16 input (label long; the default run takes
//     every bf16 input for the named specs);
//   - f32 and f64 inputs at every rounding boundary of the format and a seeded random sample;
//   - the sources' special inputs and every code under every policy set (each dialect's
//     policies and the variants that flip the rest), so each policy meets each format kind.
// Codes and flags must match exactly. Each test prints one count line per format;
// docs/FORMATS.md's table is taken from them.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/inputs.hpp"
#include "support/mpfr_compare.hpp"

namespace softmx {
namespace {

using conformance::MpfrComparison;
using conformance::Tally;

#if defined(SOFTMX_RUNTIME_LONG)
constexpr bool kLong = true;
#else
constexpr bool kLong = false;
#endif

/// The named specs (docs/SEMANTICS.md 1.2) the issue lists, beside the family.
const char* const kNamedSpecs[] = {"e3m4",        "e1m2",  "e2m2",        "ue4m3", "ue5m3", "e4m3fnuz",
                                   "e5m2fnuz",    "e4m3b11fnuz", "float8_e4m3", "int4",  "e8m0"};

struct Group {
  std::string name;
  std::vector<Format> formats;
};

void add(std::vector<Format>& v, const Format& f) {
  for (const Format& g : v)
    if (g == f) return;
  v.push_back(f);
}

/// The family, in groups of similar cost (one gtest case, hence one ctest test, each).
std::vector<Group> groups() {
  std::vector<Group> gs;
  for (SignEncoding sign : {SignEncoding::magnitude, SignEncoding::none})
    for (int w = 4; w <= 8; ++w) {
      Group g{std::string(sign == SignEncoding::none ? "unsigned" : "signed") + std::to_string(w), {}};
      for (int e = 0; e <= 8; ++e) {
        const int m = w - e - (sign == SignEncoding::none ? 0 : 1);
        if (m < 0) continue;
        for (Specials sp : {Specials::none, Specials::fn, Specials::fnuz, Specials::ieee}) {
          FormatFields ff;
          ff.sign = sign;
          ff.exp_bits = e;
          ff.man_bits = m;
          ff.specials = sp;
          try {
            add(g.formats, make_format(ff));
          } catch (const FormatError&) {  // specials this width cannot hold
          }
        }
      }
      gs.push_back(std::move(g));
    }
  Group x{"special_shapes", {}};
  for (const char* s : {"int4", "int5", "int6", "int7", "int2", "int3", "ue4m0:subnormals=no", "ue5m0:subnormals=no",
                        "ue6m2:subnormals=no", "e3m2:subnormals=no", "e4m3:subnormals=no:specials=none",
                        "ue4m3:subnormals=no", "e2m1:bias=3", "e3m3:bias=-5", "ue3m5:bias=6:specials=fn"})
    add(x.formats, parse_format_spec(s));
  gs.push_back(std::move(x));
  Group n{"named_specs", {}};
  for (const char* s : kNamedSpecs) add(n.formats, parse_format_spec(s));
  gs.push_back(std::move(n));
  return gs;
}

bool is_named_spec(const Format& f) {
  for (const char* s : kNamedSpecs)
    if (parse_format_spec(s) == f) return true;
  return false;
}

void check_format(const Format& f, std::size_t index, bool all_bf16) {
  const auto sets = conformance::policy_sets();
  const conformance::PolicySet& ocp = sets[0];
  const conformance::PolicySet& rotated = sets[index % sets.size()];
  Tally t("mpfr runtime " + std::string(f.name));
  const std::uint64_t codes = std::uint64_t{1} << f.width;
  // Every code into the IEEE formats and three runtime formats, under every policy set.
  const Format others[] = {parse_format_spec("e4m3fnuz"), parse_format_spec("ue4m3"), parse_format_spec("int4")};
  for (const auto& ps : sets) {
    for (FormatId d : {FormatId::f64, FormatId::f32, FormatId::f16}) {
      const MpfrComparison cmp(f, format(d), ps.dialect, ps.name);
      for (std::uint64_t c = 0; c < codes; ++c) cmp.check(c, t);
    }
    for (const Format& o : others) {
      const MpfrComparison cmp(f, o, ps.dialect, ps.name);
      for (std::uint64_t c = 0; c < codes; ++c) cmp.check(c, t);
    }
    // The sources' specials (NaNs with payloads, infinities, zeros, extremes) into f.
    for (FormatId s : {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16}) {
      const MpfrComparison cmp(format(s), f, ps.dialect, ps.name);
      for (std::uint64_t x : conformance::special_inputs(s)) cmp.check(x, t);
    }
  }
  // Every f16 input (and bf16: long, or the named specs) under ocp's and a rotated set's
  // policies.
  for (FormatId s : {FormatId::f16, FormatId::bf16}) {
    if (s == FormatId::bf16 && !all_bf16) continue;
    for (int which = 0; which < 2; ++which) {
      const conformance::PolicySet* ps = which == 0 ? &ocp : &rotated;
      if (which == 1 && &rotated == &ocp) continue;
      const MpfrComparison cmp(format(s), f, ps->dialect, ps->name);
      for (std::uint64_t x = 0; x < 65536; ++x) cmp.check(x, t);
      if (!kLong) break;  // the rotated set on every 16-bit input: long only
    }
  }
  // f32 and f64: every boundary with its neighbours, and a random sample.
  const std::size_t random = kLong ? 200000 : 3000;
  for (FormatId s : {FormatId::f32, FormatId::f64}) {
    auto in = conformance::boundary_inputs(s, f, kLong ? 3 : 1);
    const auto rnd = conformance::random_inputs(s, f, random, 0xF0F0 + 131 * index + static_cast<unsigned>(s));
    in.insert(in.end(), rnd.begin(), rnd.end());
    const MpfrComparison cmp(format(s), f, ocp.dialect, ocp.name);
    for (std::uint64_t x : in) cmp.check(x, t);
    if (index % sets.size() != 0) {
      const MpfrComparison rot(format(s), f, rotated.dialect, rotated.name);
      for (std::uint64_t x : in) rot.check(x, t);
    }
  }
  t.report();
}

class RuntimeFamily : public ::testing::TestWithParam<int> {};

TEST_P(RuntimeFamily, MatchesMpfr) {
  const auto gs = groups();
  const Group& g = gs[static_cast<std::size_t>(GetParam())];
  std::printf("group %s: %zu formats\n", g.name.c_str(), g.formats.size());
  std::size_t index = static_cast<std::size_t>(GetParam()) * 7;
  for (const Format& f : g.formats) check_format(f, index++, kLong || is_named_spec(f));
}

std::string group_name(const ::testing::TestParamInfo<int>& i) { return groups()[static_cast<std::size_t>(i.param)].name; }

INSTANTIATE_TEST_SUITE_P(Mpfr, RuntimeFamily, ::testing::Range(0, static_cast<int>(groups().size())), group_name);

TEST(RuntimeFamily, CoversEveryKind) {
  // The family holds every (sign, specials) kind and widths 4 to 8.
  std::map<std::pair<int, int>, int> kinds;
  std::size_t n = 0;
  for (const Group& g : groups())
    for (const Format& f : g.formats) {
      ++kinds[{static_cast<int>(f.sign), static_cast<int>(f.specials)}];
      ++n;
    }
  std::printf("runtime family: %zu formats\n", n);
  for (auto sp : {Specials::none, Specials::fn, Specials::fnuz, Specials::ieee})
    EXPECT_GT((kinds[{static_cast<int>(SignEncoding::magnitude), static_cast<int>(sp)}]), 3);
  for (auto sp : {Specials::none, Specials::fn, Specials::ieee})
    EXPECT_GT((kinds[{static_cast<int>(SignEncoding::none), static_cast<int>(sp)}]), 3);
  EXPECT_GT((kinds[{static_cast<int>(SignEncoding::twos_complement), static_cast<int>(Specials::none)}]), 3);
  EXPECT_GT(n, 200u);
}

}  // namespace
}  // namespace softmx
