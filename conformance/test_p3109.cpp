// conformance/test_p3109.cpp: IEEE P3109 formats (interim report v4.0, 2026-06-26,
// github.com/P3109/Public 26df0d0) against an oracle written from the draft's text
// (oracles/p3109_oracle.hpp: MPFR for the exact rounding), under the p3109 dialect.
//
//  - names and refusals of binaryKpP{s|u}{e|f} (3.1, 3.2; Annex C for K = 2);
//  - every code of every format with K <= 8 decoded (4.7.2) into f64, exact;
//  - every f16 and every bf16 input projected (4.7.3) into every format with K <= 8 under every
//    rounding direction of 4.2 (StochasticA, B, C with several N and R) x SatFinite,
//    SatPropagate, SatNone: code and flags. The default run (label mpfr, test_p3109) takes every
//    13th input into the K = 8 formats and every 61st into K = 2..7; test_p3109_long (label
//    long) takes every input of every format.
// Each case prints one count line per format (SOFTMX_SUMMARY_DIR).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "oracles/p3109_oracle.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format.hpp"

namespace softmx {
namespace {

namespace po = p3109oracle;

#if defined(SOFTMX_P3109_LONG)
constexpr bool kLong = true;
#else
constexpr bool kLong = false;
#endif

/// The value of an f16 or bf16 code (not NaN) as a double, decoded here from IEEE 754's layout.
double host_value(FormatId src, std::uint16_t b) {
  if (src == FormatId::bf16) {
    const std::uint32_t w = std::uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  const int e = (b >> 10) & 0x1F, m = b & 0x3FF;
  const double mag = e == 31 ? std::numeric_limits<double>::infinity()
                     : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (b & 0x8000) ? -mag : mag;
}

double f64_value(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

const Dialect& p3109() {
  const Dialect* d = find_dialect("p3109");
  if (!d) throw std::logic_error("no p3109 dialect");
  return *d;
}

/// Every P3109 format with K <= kmax that softmx holds (binary2p1se has no finite non-zero value).
std::vector<P3109Params> family(int kmin, int kmax) {
  std::vector<P3109Params> v;
  for (int k = kmin; k <= kmax; ++k)
    for (bool s : {true, false})
      for (int p = 1; p <= (s ? k - 1 : k); ++p)
        for (bool e : {true, false}) {
          if (k == 2 && s && e && p == 1) continue;
          v.push_back({k, p, s, e});
        }
  return v;
}

struct Mode {
  Rounding r;
  StochasticRule rule;
  unsigned n;
  std::uint64_t R;
  po::Round oracle;
};

std::vector<Mode> modes() {
  std::vector<Mode> v = {
      {Rounding::rne, StochasticRule::a, 0, 0, po::Round::NearestTiesToEven},
      {Rounding::rna, StochasticRule::a, 0, 0, po::Round::NearestTiesToAway},
      {Rounding::rz, StochasticRule::a, 0, 0, po::Round::TowardZero},
      {Rounding::ru, StochasticRule::a, 0, 0, po::Round::TowardPositive},
      {Rounding::rd, StochasticRule::a, 0, 0, po::Round::TowardNegative},
      {Rounding::ro, StochasticRule::a, 0, 0, po::Round::ToOdd},
  };
  // Stochastic: N = 1 (R = 0, 1), N = 3 (R = 0, 3, 7), N = 8 (R = 0x80, 0xFF), N = 32.
  const std::pair<unsigned, std::uint64_t> nr[] = {{1, 0}, {1, 1}, {3, 0}, {3, 3}, {3, 7}, {8, 0x80}, {8, 0xFF},
                                                    {32, 0x9E3779B9}};
  for (auto [n, R] : nr) {
    v.push_back({Rounding::rs, StochasticRule::a, n, R, po::Round::StochasticA});
    v.push_back({Rounding::rs, StochasticRule::b, n, R, po::Round::StochasticB});
    v.push_back({Rounding::rs, StochasticRule::c, n, R, po::Round::StochasticC});
  }
  return v;
}

constexpr std::pair<Saturation, po::Sat> kSats[] = {{Saturation::finite, po::Sat::SatFinite},
                                                     {Saturation::propagate, po::Sat::SatPropagate},
                                                     {Saturation::none, po::Sat::SatNone}};

void summary(const std::string& line) {
  std::printf("%s\n", line.c_str());
  if (const char* dir = std::getenv("SOFTMX_SUMMARY_DIR")) {
    if (FILE* f = std::fopen((std::string(dir) + "/test_p3109.txt").c_str(), "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
  }
}

struct Count {
  std::uint64_t cases = 0, mismatches = 0;
  std::string first;
};

/// Every input of `src` (stride `step`) into `f` under every mode x saturation.
Count check_format(const P3109Params& a, FormatId src, unsigned step) {
  const Format dst = p3109_format(a);
  const po::Format of{a.k, a.p, a.is_signed, a.extended};
  const Format& s = format(src);
  Count c;
  mpfr_t x;
  mpfr_init2(x, 64);
  std::vector<std::uint16_t> in;
  for (std::uint32_t b = 0; b < 65536; b += step) in.push_back(static_cast<std::uint16_t>(b));
  std::vector<std::uint8_t> out(in.size());
  std::vector<Flags> fl(in.size());
  for (const Mode& m : modes())
    for (auto [sat, osat] : kSats) {
      Context ctx;
      ctx.rounding = m.r;
      ctx.saturation = sat;
      ctx.stochastic = m.rule;
      ctx.rbits_width = static_cast<std::uint8_t>(m.n ? m.n : 32);
      ctx.rbits = m.R;
      const Converter conv(s, dst, ctx, p3109());
      if (m.r != Rounding::rs) {
        conv.run(std::span<const std::uint16_t>(in), std::span<std::uint8_t>(out), std::span<Flags>(fl));
      } else {
        for (std::size_t i = 0; i < in.size(); ++i) {
          const Result r = conv(in[i], m.R);
          out[i] = static_cast<std::uint8_t>(r.code);
          fl[i] = r.flags;
        }
      }
      const po::Projection rho{m.oracle, osat, m.n, m.R};
      for (std::size_t i = 0; i < in.size(); ++i) {
        // NaN: exponent all ones, fraction non-zero; quiet when the fraction's top bit is set.
        const int fb = src == FormatId::bf16 ? 7 : 10;
        const bool is_nan = ((in[i] >> fb) & (src == FormatId::bf16 ? 0xFF : 0x1F)) == (src == FormatId::bf16 ? 0xFF : 0x1F) &&
                            (in[i] & ((1u << fb) - 1)) != 0;
        bool signalling = false;
        if (is_nan) {
          mpfr_set_nan(x);
          signalling = ((in[i] >> (fb - 1)) & 1) == 0;
        } else {
          mpfr_set_d(x, host_value(src, in[i]), MPFR_RNDN);  // f16 and bf16 values are f64 values
        }
        const po::Outcome want = po::project(x, of, rho, signalling);
        ++c.cases;
        if (want.code != out[i] || want.flags != fl[i]) {
          if (++c.mismatches <= 1) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "%s %s 0x%04X round %s%s N=%u R=%llu sat %s: softmx %02llX/%02X, draft %02llX/%02X",
                          std::string(dst.name).c_str(), std::string(s.name).c_str(), in[i],
                          std::string(name(m.r)).c_str(),
                          m.r == Rounding::rs ? std::string(name(m.rule)).c_str() : "", m.n,
                          static_cast<unsigned long long>(m.R), std::string(name(sat)).c_str(),
                          static_cast<unsigned long long>(out[i]), fl[i],
                          static_cast<unsigned long long>(want.code), want.flags);
            c.first = buf;
          }
        }
      }
    }
  mpfr_clear(x);
  return c;
}

void run_family(const std::vector<P3109Params>& fs, unsigned step, const char* label) {
  std::vector<Count> counts(fs.size() * 2);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t j; (j = next++) < counts.size();)
      counts[j] = check_format(fs[j / 2], j % 2 ? FormatId::bf16 : FormatId::f16, step);
  };
  std::vector<std::thread> ts;
  const unsigned nt = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  for (unsigned t = 0; t < nt; ++t) ts.emplace_back(worker);
  for (auto& t : ts) t.join();
  std::uint64_t total = 0, bad = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    const Count& c = counts[j];
    total += c.cases;
    bad += c.mismatches;
    summary(std::string(label) + " " + p3109_name(fs[j / 2]) + " from " + (j % 2 ? "bf16" : "f16") + ": " +
            std::to_string(c.cases) + " cases, " + std::to_string(c.mismatches) + " mismatches");
    EXPECT_EQ(c.mismatches, 0u) << c.first;
  }
  summary(std::string(label) + " total: " + std::to_string(total) + " cases, " + std::to_string(bad) + " mismatches");
}

// Strides are odd, so every sign, exponent and fraction pattern is met over the 2^16 codes.
TEST(P3109Oracle, Binary8Inputs) { run_family(family(8, 8), kLong ? 1 : 13, kLong ? "p3109 K=8" : "p3109 K=8 (every 13th input)"); }

TEST(P3109Oracle, K2ToK7Inputs) { run_family(family(2, 7), kLong ? 1 : 61, kLong ? "p3109 K=2..7" : "p3109 K=2..7 (every 61st input)"); }

TEST(P3109Oracle, EveryCodeDecodesExactly) {
  std::uint64_t cases = 0;
  mpfr_t want;
  mpfr_init2(want, 128);
  for (const P3109Params& a : family(2, 8)) {
    const Format f = p3109_format(a);
    const po::Format of{a.k, a.p, a.is_signed, a.extended};
    for (std::uint64_t code = 0; code < (1u << a.k); ++code) {
      po::decode(of, code, want);
      const Result r = convert(f, format(FormatId::f64), code, Context{}, p3109());
      const double got = f64_value(r.code);
      ++cases;
      if (mpfr_nan_p(want)) {
        EXPECT_TRUE(std::isnan(got)) << p3109_name(a) << " code " << code;
        continue;
      }
      EXPECT_EQ(r.flags, 0) << p3109_name(a) << " code " << code;
      EXPECT_EQ(mpfr_cmp_d(want, got), 0) << p3109_name(a) << " code " << code << ": " << got;
      EXPECT_FALSE(got == 0 && std::signbit(got)) << "P3109 has no -0: " << p3109_name(a) << " code " << code;
    }
  }
  mpfr_clear(want);
  summary("p3109 decode: " + std::to_string(cases) + " codes into f64, every format K=2..8");
}

TEST(P3109Names, ParseAndPrint) {
  const Format f = parse_format_spec("binary8p3se");
  EXPECT_EQ(f.width, 8);
  EXPECT_EQ(f.exp_bits, 5);
  EXPECT_EQ(f.man_bits, 2);
  EXPECT_EQ(f.bias, 16);
  EXPECT_EQ(f.specials, Specials::extended);
  EXPECT_EQ(std::string(f.name), "binary8p3se");
  EXPECT_EQ(parse_format_spec("Binary8p4SE").name, "binary8p4se");
  // Finite signed formats are fnuz with P3109's bias: binary8p4sf is e4m3fnuz (bias 8).
  EXPECT_EQ(parse_format_spec("binary8p4sf"), parse_format_spec("e4m3fnuz"));
  EXPECT_EQ(parse_format_spec("binary8p3sf"), parse_format_spec("e5m2fnuz"));
  const Format u = parse_format_spec("binary8p4uf");
  EXPECT_EQ(u.sign, SignEncoding::none);
  EXPECT_EQ(u.exp_bits, 5);
  EXPECT_EQ(u.bias, 16);
  EXPECT_EQ(u.specials, Specials::fn);
  EXPECT_EQ(parse_format_spec(format_spec(u)), u);
  EXPECT_EQ(parse_format_spec("e5m2:bias=16:specials=extended"), f);
  for (const P3109Params& a : family(2, 16)) {
    Format g;
    try {
      g = p3109_format(a);
    } catch (const FormatError&) {
      EXPECT_GT(a.k - a.p + (a.is_signed ? 0 : 1), 8) << p3109_name(a);  // only beyond 8 exponent bits
      continue;
    }
    EXPECT_EQ(parse_format_spec(p3109_name(a)), g);
    EXPECT_EQ(parse_format_spec(format_spec(g)), g) << format_spec(g);
    const auto back = p3109_params(g);
    ASSERT_TRUE(back) << p3109_name(a);
    EXPECT_EQ(p3109_name(*back), p3109_name(a));
  }
}

TEST(P3109Names, Refusals) {
  auto message = [](const char* spec) {
    try {
      parse_format_spec(spec);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("binary8p9se").find("P = 9: expected a precision 1 <= P < K (signed), K = 8"), std::string::npos)
      << message("binary8p9se");
  EXPECT_NE(message("binary8p8se").find("1 <= P < K (signed)"), std::string::npos);
  EXPECT_NE(message("binary8p9ue").find("1 <= P <= K (unsigned)"), std::string::npos);
  EXPECT_NE(message("binary8p0ue").find("expected a precision"), std::string::npos);
  EXPECT_NE(message("binary17p8se").find("expected a bitwidth K from 2 to 16"), std::string::npos);
  EXPECT_NE(message("binary1p1ue").find("expected a bitwidth K from 2 to 16"), std::string::npos);
  EXPECT_NE(message("binary16p1se").find("15 exponent bits: softmx holds at most 8"), std::string::npos);
  EXPECT_NE(message("binary2p1se").find("no finite non-zero value"), std::string::npos);
  EXPECT_NE(message("binary8p3sx").find("unknown format"), std::string::npos);
  EXPECT_EQ(message("binary8p8ue"), "accepted");
  EXPECT_EQ(message("binary16p8se"), "accepted");
}

/// Annex C (informative), Table 8: the K = 2 value sets.
TEST(P3109Names, AnnexCTable8) {
  struct Row {
    const char* name;
    const char* values[4];
  };
  const Row rows[] = {
      {"binary2p1sf", {"0", "1", "NaN", "-1"}},
      {"binary2p1ue", {"0", "0.5", "inf", "NaN"}},
      {"binary2p2ue", {"0", "0.5", "inf", "NaN"}},
      {"binary2p1uf", {"0", "0.5", "1", "NaN"}},
      {"binary2p2uf", {"0", "0.5", "1", "NaN"}},
  };
  for (const Row& r : rows) {
    const Format f = parse_format_spec(r.name);
    for (int c = 0; c < 4; ++c) {
      const double v = f64_value(convert(f, format(FormatId::f64), static_cast<std::uint64_t>(c), Context{}, p3109()).code);
      char b[32];
      std::snprintf(b, sizeof b, "%g", v);
      std::string got = std::isnan(v) ? "NaN" : b;
      EXPECT_EQ(got, r.values[c]) << r.name << " code " << c;
    }
  }
}

/// The rules of 4.7.5 that the dialect's policies carry, pinned one by one (binary8p3se: max
/// 0x7E = 49152, Inf 0x7F; binary8p3ue: max 0xFD, Inf 0xFE, NaN 0xFF).
TEST(P3109Dialect, SaturationRules) {
  const Format se = parse_format_spec("binary8p3se"), sf = parse_format_spec("binary8p3sf"),
               ue = parse_format_spec("binary8p3ue");
  auto conv = [](const Format& f, double x, Rounding r, Saturation s) {
    Context c;
    c.rounding = r;
    c.saturation = s;
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return convert(format(FormatId::f64), f, bits, c, p3109()).code;
  };
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(conv(se, 1e9, Rounding::ro, Saturation::none), 0x7Fu);   // rule 46: ToOdd signed extended -> Inf
  EXPECT_EQ(conv(se, -1e9, Rounding::ro, Saturation::none), 0xFFu);  // rule 43
  EXPECT_EQ(conv(ue, 1e30, Rounding::ro, Saturation::none), 0xFDu);  // rule 40: unsigned extended -> Mhi
  EXPECT_EQ(conv(se, 1e9, Rounding::rz, Saturation::none), 0x7Eu);   // rule 41
  EXPECT_EQ(conv(sf, 1e9, Rounding::rne, Saturation::none), 0x7Fu);  // rule 47: finite -> Mhi, not NaN
  EXPECT_EQ(conv(sf, inf, Rounding::rne, Saturation::none), 0x7Fu);  // rule 36
  EXPECT_EQ(conv(se, inf, Rounding::rne, Saturation::propagate), 0x7Fu);  // rule 28: Inf
  EXPECT_EQ(conv(se, 1e9, Rounding::rne, Saturation::propagate), 0x7Eu);  // rule 33: Mhi
  EXPECT_EQ(conv(se, inf, Rounding::rne, Saturation::finite), 0x7Eu);     // rule 23
  EXPECT_EQ(conv(ue, -inf, Rounding::rne, Saturation::none), 0xFFu);      // rule 38: NaN
  EXPECT_EQ(conv(ue, -inf, Rounding::rne, Saturation::propagate), 0x00u); // rule 31: Mlo = 0
  EXPECT_EQ(conv(ue, -1.0, Rounding::rne, Saturation::none), 0xFFu);      // rule 44: NaN
  EXPECT_EQ(conv(ue, -1.0, Rounding::rz, Saturation::none), 0x00u);       // rule 42: Mlo
  EXPECT_EQ(conv(ue, -1.0, Rounding::ru, Saturation::none), 0x00u);       // rule 42
  EXPECT_EQ(conv(ue, -1.0, Rounding::rne, Saturation::finite), 0x00u);    // rule 25
  EXPECT_EQ(conv(ue, -1e-30, Rounding::rne, Saturation::none), 0x00u);    // rounds to 0 first
  EXPECT_EQ(conv(se, -0.0, Rounding::rne, Saturation::none), 0x00u);      // no -0
  EXPECT_EQ(conv(se, -1e-30, Rounding::rne, Saturation::none), 0x00u);    // a negative rounding to 0 is 0
}

TEST(P3109Dialect, ModeNames) {
  EXPECT_EQ(parse_rounding("NearestTiesToEven"), Rounding::rne);
  EXPECT_EQ(parse_rounding("NearestTiesToAway"), Rounding::rna);
  EXPECT_EQ(parse_rounding("TowardZero"), Rounding::rz);
  EXPECT_EQ(parse_rounding("TowardPositive"), Rounding::ru);
  EXPECT_EQ(parse_rounding("TowardNegative"), Rounding::rd);
  EXPECT_EQ(parse_rounding("ToOdd"), Rounding::ro);
  EXPECT_EQ(parse_rounding("StochasticA"), Rounding::rs);
  EXPECT_FALSE(parse_rounding("StochasticB"));  // needs the rule: parse_p3109_rounding
  EXPECT_EQ(parse_p3109_rounding("StochasticB"), std::pair(Rounding::rs, StochasticRule::b));
  EXPECT_EQ(parse_p3109_rounding("stochasticc"), std::pair(Rounding::rs, StochasticRule::c));
  EXPECT_EQ(parse_p3109_rounding("rne"), std::pair(Rounding::rne, StochasticRule::a));
  EXPECT_EQ(parse_saturation("SatFinite"), Saturation::finite);
  EXPECT_EQ(parse_saturation("SatNone"), Saturation::none);
  EXPECT_EQ(parse_saturation("OvfInf"), Saturation::none);
  EXPECT_EQ(parse_saturation("SatPropagate"), Saturation::propagate);
  EXPECT_EQ(name(Saturation::propagate), "propagate");
  // Only the p3109 dialect takes SatPropagate.
  Context c;
  c.saturation = Saturation::propagate;
  EXPECT_FALSE(unsupported_reason(p3109(), parse_format_spec("binary8p3se"), c));
  EXPECT_TRUE(unsupported_reason(ocp_dialect(), parse_format_spec("binary8p3se"), c));
}

}  // namespace
}  // namespace softmx
