// conformance/test_saturation_defaults.cpp: the saturation a caller gets without choosing one
// is the destination's (docs/SEMANTICS.md 4.1).
//
// Into f64, f32, f16 and bf16 every built-in dialect's default is IEEE 754 overflow: a value
// beyond the largest finite number gives Inf (overflow, inexact) and Inf stays Inf with no
// flag, because every modelled implementation converts into those formats that way
// (docs/DIALECTS.md, "Saturation into f64, f32, f16 and bf16"). OFP8's saturation concerns the
// MX formats, whose default stays the dialect's (ocp: finite). An explicit finite still
// saturates everywhere. The results are compared with the MPFR oracle (conformance/oracles),
// which knows nothing of defaults: it is asked for saturation none (IEEE destinations) or
// finite (MX under ocp) explicitly.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/report.hpp"

namespace softmx {

// gtest prints a Result as its code and flags in hex (found by ADL in softmx).
void PrintTo(const Result& r, std::ostream* o) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "{code %llX, flags %02X}", static_cast<unsigned long long>(r.code), r.flags);
  *o << buf;
}

namespace {

using conformance::Tally;
using conformance::to_oracle;

constexpr FormatId kIeee[] = {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16};
constexpr Flags kOvf = flag::overflow | flag::inexact;

std::uint64_t f64_bits(double x) { return std::bit_cast<std::uint64_t>(x); }
std::uint64_t f32_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// ---------------------------------------------------------------------------------------------
// The default of every dialect for every destination, pinned. One letter per format in FormatId
// order (f64 f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0): N none, F finite. Each comes
// from docs/DIALECTS.md (the table and the section on IEEE destinations); a new dialect must
// add its row here.
struct DefaultRow {
  std::string_view dialect;
  std::string_view sats;
};
constexpr DefaultRow kDefaults[] = {
    {"ocp", "NNNN" "FFFFFFF"},
    {"cuda", "NNNN" "FFFFFFF"},
    {"cuda-sm90", "NNNN" "FFFFFFF"},
    {"cuda-sm100", "NNNN" "FFFFFFF"},
    {"torchao", "NNNN" "FFFFFFN"},        // e8m0: PyTorch's float8_e8m0fnu cast overflows to NaN
    {"ml_dtypes", "NNNN" "NNNNNFN"},      // kSaturate = false (int8: no such type)
    {"microxcaling", "NNNN" "FFFFFFF"},   // e8m0: no cast
    {"transformer-engine", "NNNN" "FFFFFFF"},
    {"transformer-engine-2025", "NNNN" "FFFFFFF"},
    {"gfloat", "NNNN" "FFFFFFF"},
    // e4m3: to_mx clamps before the cast (finite); --sat none is the plain pre-PR cast. e8m0 as torchao.
    {"torchao-pre-178817", "NNNN" "FFFFFFN"},
    {"ml_dtypes-cpp", "NNNN" "NNNNNFN"},  // as ml_dtypes: kSaturate = false
    {"amd-gfx942", "NNNN" "FFFFFFF"},     // the MX formats are refused (unsupported()); e4m3fnuz, e5m2fnuz: none
    {"torchmx", "NNNN" "FFFFFFF"},           // e5m2, e8m0: not torchmx's (refused)
    {"torchmx-hw-exact", "NNNN" "FFFFFFF"},
    {"pychop", "NNNN" "FFFFFFF"},            // e8m0: no cast (refused)
    {"lut-argmin", "NNNN" "FFFFFFN"},     // e8m0: PyTorch's float8_e8m0fnu cast (seed 003 L118)
    {"fpnew", "NNNN" "FNFFFFF"},          // e5m2 (FP8): IEEE overflow only; the others are not FPnew's (refused)
    {"p3109", "NNNN" "FFFFFFF"},          // IEEE P3109 states no default: SatNone into f64..bf16, ocp's finite into MX
};

TEST(SaturationDefaults, EveryDialectAndDestinationPinned) {
  Tally t("saturation defaults: dialect x destination table");
  ASSERT_EQ(std::size(kDefaults), all_dialects().size()) << "a dialect without a row in kDefaults";
  for (const DefaultRow& row : kDefaults) {
    const Dialect* d = find_dialect(row.dialect);
    ASSERT_NE(d, nullptr) << row.dialect;
    for (const Format& f : all_formats()) {
      const DestinationSupport& s = d->support[static_cast<int>(f.id)];
      const Saturation want = row.sats[static_cast<int>(f.id)] == 'N' ? Saturation::none : Saturation::finite;
      t.check(s.default_saturation == want, [&] {
        return std::string(row.dialect) + " into " + std::string(f.name) + ": default " +
               std::string(name(s.default_saturation)) + ", expected " + std::string(name(want));
      });
    }
    // Into the IEEE formats both saturations stay available: an explicit finite works (p3109
    // lists propagate besides).
    for (FormatId f : kIeee)
      t.check((d->support[static_cast<int>(f)].saturations & kAllSaturations) == kAllSaturations,
              [&] { return std::string(row.dialect) + " into " + std::string(format(f).name) + " restricts saturation"; });
  }
  t.report();
}

// ---------------------------------------------------------------------------------------------
// The cases, with the library's default Context (no saturation chosen).
TEST(SaturationDefaults, DefaultContextOverflowsIntoIeee) {
  const Context dflt;
  EXPECT_EQ(convert(FormatId::f64, FormatId::f16, f64_bits(1e6), dflt), (Result{0x7C00, kOvf}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::f16, f32_bits(1e6f), dflt), (Result{0x7C00, kOvf}));
  EXPECT_EQ(convert(FormatId::f64, FormatId::f16, f64_bits(-1e6), dflt), (Result{0xFC00, kOvf}));
  EXPECT_EQ(convert(FormatId::f64, FormatId::f32, f64_bits(1e39), dflt), (Result{0x7F800000, kOvf}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::bf16, 0x7F7FFFFF, dflt), (Result{0x7F80, kOvf}));  // FLT_MAX
  EXPECT_EQ(convert(FormatId::f64, FormatId::bf16, f64_bits(1e39), dflt), (Result{0x7F80, kOvf}));
  // Inf stays Inf, with no flag.
  EXPECT_EQ(convert(FormatId::e5m2, FormatId::f32, 0x7C, dflt), (Result{0x7F800000, 0}));
  EXPECT_EQ(convert(FormatId::e5m2, FormatId::f32, 0xFC, dflt), (Result{0xFF800000, 0}));
  EXPECT_EQ(convert(FormatId::e5m2, FormatId::f16, 0x7C, dflt), (Result{0x7C00, 0}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::f16, 0x7F800000, dflt), (Result{0x7C00, 0}));
  EXPECT_EQ(convert(FormatId::f64, FormatId::f64, 0xFFF0000000000000, dflt), (Result{0xFFF0000000000000, 0}));
  // The same through a Converter (its scalar call and its batch), under every dialect.
  for (const Dialect& d : all_dialects()) {
    const Converter c(FormatId::e5m2, FormatId::f32, dflt, d);
    EXPECT_EQ(c.context().saturation, Saturation::none) << d.name;
    EXPECT_EQ(c(0x7C), (Result{0x7F800000, 0})) << d.name;
    std::vector<std::uint8_t> in(256);
    for (int i = 0; i < 256; ++i) in[i] = static_cast<std::uint8_t>(i);
    std::vector<std::uint32_t> out(256);
    std::vector<Flags> fl(256);
    c.run(std::span<const std::uint8_t>(in), std::span<std::uint32_t>(out), std::span<Flags>(fl));
    EXPECT_EQ(out[0x7C], 0x7F800000u) << d.name;
    EXPECT_EQ(fl[0x7C], 0) << d.name;
    EXPECT_EQ(out[0xFC], 0xFF800000u) << d.name;
    const Converter h(FormatId::f64, FormatId::f16, dflt, d);
    EXPECT_EQ(h(f64_bits(1e6)), (Result{0x7C00, kOvf})) << d.name;
  }
}

TEST(SaturationDefaults, ExplicitFiniteStillSaturates) {
  Context fin;
  fin.saturation = Saturation::finite;
  EXPECT_EQ(convert(FormatId::f64, FormatId::f16, f64_bits(1e6), fin), (Result{0x7BFF, kOvf}));
  EXPECT_EQ(convert(FormatId::f64, FormatId::f32, f64_bits(1e39), fin), (Result{0x7F7FFFFF, kOvf}));
  EXPECT_EQ(convert(FormatId::e5m2, FormatId::f32, 0x7C, fin), (Result{0x7F7FFFFF, flag::invalid}));
  for (const Dialect& d : all_dialects()) {
    const Converter c(FormatId::e5m2, FormatId::f32, fin, d);
    EXPECT_EQ(c.context().saturation, Saturation::finite) << d.name;
    // ml_dtypes' ConvertFrom<kSaturate = true> returns +-infinity() for an Inf before it looks at
    // kSaturate (float8.h:1371-1374 at b793a6e): satfinite_inf = as_none keeps the Inf.
    if (d.satfinite_inf == SatfiniteInf::as_none)
      EXPECT_EQ(c(0x7C), (Result{0x7F800000, 0})) << d.name;
    else
      EXPECT_EQ(c(0x7C), (Result{0x7F7FFFFF, flag::invalid})) << d.name;
  }
}

TEST(SaturationDefaults, MxDestinationsKeepTheDialectsDefault) {
  const Context dflt;
  // ocp: finite (OFP8 SAT); 465 is above the E4M3 overflow threshold 464.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, f32_bits(465.0f), dflt), (Result{0x7E, kOvf}));
  EXPECT_EQ(convert(FormatId::f32, FormatId::e5m2, 0x7F800000, dflt), (Result{0x7B, flag::invalid}));
  EXPECT_EQ(Converter(FormatId::f32, FormatId::e4m3, dflt).context().saturation, Saturation::finite);
  // ml_dtypes: none (kSaturate = false), E4M3 has no Inf: NaN.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, f32_bits(465.0f), dflt, *find_dialect("ml_dtypes")),
            (Result{0x7F, kOvf}));
  // A dialect that only saturates accepts the default (it resolves to finite before the check).
  EXPECT_FALSE(unsupported_reason(*find_dialect("torchao"), FormatId::e3m2, dflt));
  EXPECT_FALSE(unsupported_reason(*find_dialect("microxcaling"), FormatId::e4m3, Context{.rounding = Rounding::rna}));
  Context none;
  none.saturation = Saturation::none;
  EXPECT_TRUE(unsupported_reason(*find_dialect("torchao"), FormatId::e3m2, none));
}

// ---------------------------------------------------------------------------------------------
// Against MPFR: every dialect, default Context, into each IEEE destination; each result must be
// the oracle's under saturation none (and, with an explicit finite, the oracle's under finite).

/// Source codes that exercise the destination's overflow: around the source code of the
/// destination's largest finite value and of the rne overflow threshold (max + half an ulp),
/// both signs, plus the source's Inf, and a random sample of the whole range.
std::vector<std::uint64_t> overflow_inputs(FormatId src, FormatId dst) {
  const Format& s = format(src);
  const Format& d = format(dst);
  std::vector<std::uint64_t> v;
  Context exact;
  exact.saturation = Saturation::none;
  const std::uint64_t max_src = convert(dst, src, d.max_finite_magnitude(), exact).code;  // widening: exact
  const std::uint64_t threshold = max_src | (std::uint64_t{1} << (s.man_bits - d.man_bits - 1));
  const std::uint64_t inf = ((std::uint64_t{1} << s.exp_bits) - 1) << s.man_bits;
  const std::uint64_t sign = std::uint64_t{1} << (s.width - 1);
  for (std::uint64_t centre : {max_src, threshold})
    for (std::uint64_t k = 0; k < 4096; ++k) v.push_back(centre - 2048 + k);
  v.push_back(inf);
  SplitMix64 rng(0x5A7D5A7D);
  for (int i = 0; i < 20000; ++i) v.push_back(rng.next() & s.code_mask() & ~sign);
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(v[i] | sign);
  return v;
}

/// Runs `conv` over `codes` one by one and in one batch, comparing both with the oracle under
/// `want_sat`.
void check_against_mpfr(const Converter& conv, const std::vector<std::uint64_t>& codes, oracle::Sat want_sat,
                        Tally& t) {
  const Format& s = format(conv.source());
  const Format& d = format(conv.destination());
  const oracle::Policies pol = to_oracle(conv.dialect());
  const std::size_t sb = s.width <= 8 ? 1 : s.width / 8, db = d.width <= 8 ? 1 : d.width / 8;
  std::vector<unsigned char> in(codes.size() * sb), out(codes.size() * db);
  for (std::size_t i = 0; i < codes.size(); ++i) std::memcpy(&in[i * sb], &codes[i], sb);  // little-endian
  std::vector<Flags> fl(codes.size());
  conv.run(in.data(), out.data(), fl.data(), codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const oracle::Outcome want = oracle::convert(to_oracle(s.id), to_oracle(d.id), codes[i], oracle::Mode::rne,
                                                 want_sat, oracle::Tiny::after, pol);
    const Result one = conv(codes[i]);
    std::uint64_t batch = 0;
    std::memcpy(&batch, &out[i * db], db);
    t.check(one.code == want.code && one.flags == want.flags && batch == want.code && fl[i] == want.flags, [&] {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s %s->%s input %llX: softmx %llX/%02X batch %llX/%02X oracle %llX/%02X",
                    std::string(conv.dialect().name).c_str(), std::string(s.name).c_str(), std::string(d.name).c_str(),
                    static_cast<unsigned long long>(codes[i]), static_cast<unsigned long long>(one.code), one.flags,
                    static_cast<unsigned long long>(batch), fl[i], static_cast<unsigned long long>(want.code),
                    want.flags);
      return std::string(buf);
    });
  }
}

struct Pair {
  FormatId src, dst;
};
// Narrowing pairs into each IEEE destination (the only ones that can overflow), and decodes of
// E5M2 (Inf) into each.
constexpr Pair kNarrowing[] = {{FormatId::f64, FormatId::f32}, {FormatId::f64, FormatId::f16},
                               {FormatId::f64, FormatId::bf16}, {FormatId::f32, FormatId::f16},
                               {FormatId::f32, FormatId::bf16}};

TEST(SaturationDefaults, EveryDialectIntoIeeeMatchesMpfr) {
  Tally dflt("saturation defaults: default Context into f64/f32/f16/bf16 vs MPFR (none)");
  Tally fin("saturation defaults: explicit finite into f64/f32/f16/bf16 vs MPFR (finite)");
  Context finite;
  finite.saturation = Saturation::finite;
  std::vector<std::uint64_t> all16(65536), all8(256);
  for (std::uint64_t i = 0; i < 65536; ++i) all16[i] = i;
  for (std::uint64_t i = 0; i < 256; ++i) all8[i] = i;
  for (const Dialect& d : all_dialects()) {
    for (const Pair& p : kNarrowing) {
      const auto codes = overflow_inputs(p.src, p.dst);
      check_against_mpfr(Converter(p.src, p.dst, Context{}, d), codes, oracle::Sat::none, dflt);
      check_against_mpfr(Converter(p.src, p.dst, finite, d), codes, oracle::Sat::finite, fin);
    }
    // bf16 -> f16, every input: bf16's range is f32's, so most of it overflows f16.
    check_against_mpfr(Converter(FormatId::bf16, FormatId::f16, Context{}, d), all16, oracle::Sat::none, dflt);
    check_against_mpfr(Converter(FormatId::bf16, FormatId::f16, finite, d), all16, oracle::Sat::finite, fin);
    // Every 8-bit code into every IEEE destination (E5M2 Inf stays Inf).
    for (FormatId src : {FormatId::e5m2, FormatId::e4m3, FormatId::e8m0})
      for (FormatId dst : kIeee) {
        check_against_mpfr(Converter(src, dst, Context{}, d), all8, oracle::Sat::none, dflt);
        check_against_mpfr(Converter(src, dst, finite, d), all8, oracle::Sat::finite, fin);
      }
  }
  dflt.report();
  fin.report();
}

// Under ocp the default into the MX formats is finite: the oracle's finite, every f16 input.
TEST(SaturationDefaults, OcpIntoMxMatchesMpfrFinite) {
  Tally t("saturation defaults: ocp default Context f16 -> MX formats vs MPFR (finite)");
  std::vector<std::uint64_t> all16(65536);
  for (std::uint64_t i = 0; i < 65536; ++i) all16[i] = i;
  for (FormatId dst : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8,
                       FormatId::e8m0})
    check_against_mpfr(Converter(FormatId::f16, dst, Context{}), all16, oracle::Sat::finite, t);
  t.report();
}

// ---------------------------------------------------------------------------------------------
// Blocks: dequantization into an IEEE destination overflows to Inf by default.

/// The oracle's rne result for element code `c` of `e` times 2^(scale - 127) into `dst`, or
/// nullopt for a NaN code.
std::optional<oracle::Outcome> oracle_dequantize(FormatId e, std::uint8_t scale, std::uint8_t c, FormatId dst,
                                                 oracle::Sat sat) {
  mpfr_t x;
  mpfr_init2(x, 64);
  std::optional<oracle::Outcome> r;
  if (oracle::decode(to_oracle(e), c, x)) {
    if (mpfr_regular_p(x)) mpfr_mul_2si(x, x, scale - 127, MPFR_RNDN);  // exact
    r = oracle::round_value_all(x, to_oracle(dst), {}).at(oracle::Mode::rne, sat, oracle::Tiny::after);
  }
  mpfr_clear(x);
  return r;
}

TEST(SaturationDefaults, DequantizeIntoIeeeOverflowsByDefault) {
  const Context dflt;
  // The case: an E5M2 Inf decodes to Inf.
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 127, 0x7C, FormatId::f32, dflt), (Result{0x7F800000, 0}));
  // A product beyond f32: 57344 * 2^127.
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 0xFE, 0x7B, FormatId::f32, dflt), (Result{0x7F800000, kOvf}));
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x90, 0x7E, FormatId::f16, dflt), (Result{0x7C00, kOvf}));
  Context fin;
  fin.saturation = Saturation::finite;
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 127, 0x7C, FormatId::f32, fin), (Result{0x7F7FFFFF, flag::invalid}));
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 0xFE, 0x7B, FormatId::f32, fin), (Result{0x7F7FFFFF, kOvf}));
  // TransformerEngine multiplies in f32 (scale bits << 23): Inf too.
  const Dialect& te = *find_dialect("transformer-engine");
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 127, 0x7C, FormatId::f32, dflt, te).code, 0x7F800000u);
  EXPECT_EQ(dequantize_element(FormatId::e5m2, 0xFE, 0x7B, FormatId::bf16, dflt, te).code, 0x7F80u);

  // Every element code under scales that reach the top of each destination, every dialect
  // with exact dequantization, one by one and through a Dequantizer (its table path included).
  Tally t("saturation defaults: dequantize with the default Context vs MPFR (none)");
  const std::uint8_t scales[] = {0x00, 0x7F, 0x8E, 0x90, 0xF0, 0xFE};
  for (const Dialect& d : all_dialects()) {
    if (d.block.dequant_scaling != DequantScaling::exact) continue;
    for (FormatId e : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
      for (FormatId dst : kIeee) {
        const std::size_t n = std::size_t{1} << format(e).width;
        Dequantizer dq(e, dst, dflt, d);
        for (std::uint8_t s : scales) {
          std::vector<std::uint8_t> sc(1, s), codes(n);
          for (std::size_t c = 0; c < n; ++c) codes[c] = static_cast<std::uint8_t>(c);
          std::vector<Flags> fl(n);
          // Storage of dst: write through a byte buffer of the right width.
          const std::size_t db = format(dst).width / 8;
          std::vector<unsigned char> buf(n * db);
          dq.run(sc.data(), codes.data(), n, n, buf.data(), fl.data());
          // MXINT8 as integers (torchmx): code * 2^(S - 127) is OCP's value under the scale S + 6.
          const int shift = e == FormatId::int8 && d.block.int8_integer_elements ? 6 : 0;
          if (s + shift > 0xFE) continue;
          for (std::size_t c = 0; c < n; ++c) {
            const auto want =
                oracle_dequantize(e, static_cast<std::uint8_t>(s + shift), static_cast<std::uint8_t>(c), dst, oracle::Sat::none);
            if (!want) continue;  // NaN codes: not a saturation question
            const Result one = dequantize_element(e, s, static_cast<std::uint8_t>(c), dst, dflt, d);
            std::uint64_t batch = 0;
            std::memcpy(&batch, &buf[c * db], db);
            t.check(one.code == want->code && one.flags == want->flags && batch == want->code && fl[c] == want->flags,
                    [&] {
                      return std::string(d.name) + " " + std::string(format(e).name) + " scale " + std::to_string(s) +
                             " code " + std::to_string(c) + " -> " + std::string(format(dst).name) + ": softmx " +
                             std::to_string(one.code) + "/" + std::to_string(one.flags) + " batch " +
                             std::to_string(batch) + " oracle " + std::to_string(want->code) + "/" +
                             std::to_string(want->flags);
                    });
          }
        }
      }
  }
  t.report();

  // A tensor: the default Context reaches dequantize_tensor's Dequantizer.
  MxTensor m;
  m.element = FormatId::e5m2;
  m.shape = {4};
  m.block = 4;
  m.scale_shape = {1};
  m.scales = {0x7F};
  m.codes = {0x7C, 0xFC, 0x3C, 0x7B};
  std::uint32_t out[4];
  dequantize_tensor(m, FormatId::f32, out, dflt);
  EXPECT_EQ(out[0], 0x7F800000u);
  EXPECT_EQ(out[1], 0xFF800000u);
  EXPECT_EQ(out[2], 0x3F800000u);
}

// Dot results are f32: an overflowing sum gives Inf, an Inf element gives Inf without a flag.
TEST(SaturationDefaults, DotResultOverflowsByDefault) {
  const std::uint8_t big[] = {0x7B}, inf[] = {0x7C}, one[] = {0x3C};
  const BlockRef a{FormatId::e5m2, 0xFE, big}, b{FormatId::e5m2, 0xFE, big};
  // 57344^2 * 2^254 in MPFR, rounded into f32 under none.
  mpfr_t x;
  mpfr_init2(x, 64);
  mpfr_set_ui(x, 57344u * 57344u, MPFR_RNDN);
  mpfr_mul_2si(x, x, 254, MPFR_RNDN);
  const oracle::Outcome want = oracle::round_value_all(x, oracle::Fmt::f32, {}).at(oracle::Mode::rne, oracle::Sat::none,
                                                                                   oracle::Tiny::after);
  mpfr_clear(x);
  ASSERT_EQ(want.code, 0x7F800000u);
  for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()}) {
    EXPECT_EQ(dot(a, b, Context{}, *m), (Result{want.code, want.flags})) << m->name();
    EXPECT_EQ(dot(BlockRef{FormatId::e5m2, 0x7F, inf}, BlockRef{FormatId::e5m2, 0x7F, one}, Context{}, *m),
              (Result{0x7F800000, 0}))
        << m->name();
    Context fin;
    fin.saturation = Saturation::finite;
    EXPECT_EQ(dot(a, b, fin, *m), (Result{0x7F7FFFFF, kOvf})) << m->name();
  }
}

// NVFP4 dequantization into f16: 6 * 448 * 2^20 is beyond f16's range.
TEST(SaturationDefaults, Nvfp4DequantizeOverflowsByDefault) {
  Nvfp4Tensor t;
  t.shape = {16};
  t.encode_scale = 0x35800000;  // 2^-20
  t.scales = {0x7E};            // E4M3 448
  t.codes.assign(16, 0x7);      // E2M1 6.0
  t.codes[1] = 0x1;             // 0.5: 0.5 * 448 * 2^20 = 2^27.8, still beyond f16
  std::uint16_t out[16];
  EXPECT_EQ(dequantize_nvfp4(t, FormatId::f16, out, Context{}), kOvf);
  EXPECT_EQ(out[0], 0x7C00);
  Context fin;
  fin.saturation = Saturation::finite;
  dequantize_nvfp4(t, FormatId::f16, out, fin);
  EXPECT_EQ(out[0], 0x7BFF);
}

// ---------------------------------------------------------------------------------------------
// The value that means "the destination's default".
TEST(SaturationDefaults, ByDestinationValue) {
  EXPECT_EQ(Context{}.saturation, Saturation::by_destination);
  EXPECT_EQ(name(Saturation::by_destination), "by-destination");
  // Never parsed: a vector header or --sat must name finite or none.
  EXPECT_FALSE(parse_saturation("by-destination"));
  EXPECT_FALSE(parse_saturation("default"));
  for (const Dialect& d : all_dialects())
    for (const Format& f : all_formats()) {
      const Saturation r = resolve(d, f.id, Saturation::by_destination);
      EXPECT_EQ(r, d.support[static_cast<int>(f.id)].default_saturation) << d.name << " " << f.name;
      EXPECT_EQ(resolve(d, f.id, Saturation::finite), Saturation::finite);
      EXPECT_EQ(resolve(d, f.id, Saturation::none), Saturation::none);
    }
  // BlockOptions: by_destination is the dialect's element saturation, as when unset.
  std::vector<std::uint32_t> vals(32, f32_bits(1.0f));
  vals[0] = f32_bits(1e6f);
  vals[1] = 0x7F800000;
  for (const Dialect& d : all_dialects()) {
    if (!d.block.unsupported.empty() || !(d.block.sources & format_bit(FormatId::f32))) continue;  // torchmx: bf16 only
    BlockOptions o;
    o.element = FormatId::e4m3;
    o.dialect = &d;
    o.rounding = d.support[static_cast<int>(FormatId::e4m3)].default_rounding;
    const QuantizedBlock unset = quantize_block(FormatId::f32, vals.data(), 32, o);
    o.saturation = Saturation::by_destination;
    const QuantizedBlock bydest = quantize_block(FormatId::f32, vals.data(), 32, o);
    EXPECT_EQ(unset.scale, bydest.scale) << d.name;
    EXPECT_EQ(unset.codes, bydest.codes) << d.name;
    EXPECT_EQ(unset.flags, bydest.flags) << d.name;
  }
}

}  // namespace
}  // namespace softmx
