// conformance/test_batch_simd.cpp: the vector batch kernels equal the scalar reference.
//
// The scalar kernel (Converter::operator(), Isa::scalar) is the reference; every vector
// kernel (every instruction set this CPU runs, with and without flags) must give the same codes
// and flags for:
//   - every f16 and bf16 input, under every dialect, destination, mode, saturation and
//     tininess rule the vector kernels serve;
//   - a structured f32 sample (every sign and exponent, every leading fraction pattern, ties
//     and near-ties at every bit position, random tails) under the same settings;
//   - every one of the 2^32 f32 inputs (test_batch_simd_f32.cpp);
//   - the same f16/bf16 inputs and f32 sample into runtime destinations of every packing shape
//     (the same lanes reading the destination's fields from the Plan), under every dialect
//     that takes runtime formats, and every code of runtime sources through the code tables.
#include <gtest/gtest.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

constexpr FormatId kVectorDestinations[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3,
                                            FormatId::e2m1, FormatId::int8, FormatId::e8m0, FormatId::f16,
                                            FormatId::bf16};

std::string setting(const Converter& c, Isa isa, bool flags) {
  return std::string(c.source_format().name) + "->" + std::string(c.destination_format().name) + " " +
         std::string(name(c.context().rounding)) + " " + std::string(name(c.context().saturation)) + " tininess " +
         std::string(name(c.context().tininess)) + " dialect " + std::string(c.dialect().name) + " on " + name(isa) +
         (flags ? " with flags" : " without flags");
}

/// Compares every vector instruction set against the scalar loop on `in` (source storage In).
template <class In>
void compare_all_isas(const Converter& conv, const std::vector<In>& in, conformance::Tally& t) {
  const bool wide = conv.destination_format().width > 8;
  const std::size_t n = in.size();
  std::vector<std::uint16_t> want(n), got(n);
  std::vector<Flags> want_f(n), got_f(n);
  auto run = [&](Isa isa, std::vector<std::uint16_t>& out, Flags* flags) {
    if (wide) {
      run_on(conv, isa, in.data(), out.data(), flags, n);
    } else {
      std::vector<std::uint8_t> o8(n);
      run_on(conv, isa, in.data(), o8.data(), flags, n);
      for (std::size_t i = 0; i < n; ++i) out[i] = o8[i];
    }
  };
  run(Isa::scalar, want, want_f.data());
  for (Isa isa : supported_isas()) {
    if (isa == Isa::scalar) continue;
    for (bool with_flags : {true, false}) {
      std::fill(got_f.begin(), got_f.end(), Flags{0xEE});
      run(isa, got, with_flags ? got_f.data() : nullptr);
      std::size_t bad = 0, first = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (got[i] != want[i] || (with_flags && got_f[i] != want_f[i])) {
          if (!bad) first = i;
          ++bad;
        }
      t.pass(n - bad);
      if (bad) {
        t.fail(setting(conv, isa, with_flags) + ": input " + std::to_string(in[first]) + " gives " +
               std::to_string(got[first]) + "/" + std::to_string(got_f[first]) + ", scalar " +
               std::to_string(want[first]) + "/" + std::to_string(want_f[first]) + " (" + std::to_string(bad) +
               " lanes differ)",
               bad);
      }
    }
  }
}

/// Why the vector kernels do not serve `d` at all, or nullptr: the policies only the p3109
/// dialect sets (overflow_no_inf, ro_overflow, e8m0_negative saturate_zero) run the scalar
/// kernels, the reference (emulator/simd/plan.cpp). Such settings are checked to be scalar and
/// counted as skipped, by name, in the test's output.
const char* scalar_only_reason(const Dialect& d) {
  if (d.overflow_no_inf != OverflowNoInf::nan || d.ro_overflow != RoOverflow::max_finite ||
      d.e8m0_negative == E8m0Negative::saturate_zero)
    return "its overflow_no_inf / ro_overflow / e8m0_negative saturate_zero policies run the scalar kernels "
           "(the reference), so there is no vector path to compare";
  return nullptr;
}

/// Counts the settings skipped for scalar_only_reason, per dialect, and prints them.
struct ScalarOnlySkips {
  std::string what;
  std::vector<std::pair<std::string, std::uint64_t>> n;
  void add(const Dialect& d, const Converter& conv) {
    EXPECT_FALSE(vectorized(conv)) << setting(conv, Isa::scalar, true);
    for (auto& [name, k] : n)
      if (name == d.name) return void(++k);
    n.push_back({std::string(d.name), 1});
  }
  ~ScalarOnlySkips() {
    for (const auto& [name, k] : n)
      std::printf("[ skipped  ] %s: %llu settings of dialect %s: %s\n", what.c_str(), (unsigned long long)k,
                  name.c_str(), scalar_only_reason(*find_dialect(name)));
  }
};

/// Every (dialect, destination, mode, saturation, tininess) the vector kernels serve from src.
template <class F>
void for_each_setting(FormatId src, F&& f) {
  ScalarOnlySkips skips{"from " + std::string(format(src).name), {}};
  for (const Dialect& d : all_dialects())
    for (FormatId dst : kVectorDestinations)
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none})
          for (Tininess tn : {Tininess::after_rounding, Tininess::before_rounding}) {
            if (dst == src) continue;
            Context c;
            c.rounding = r;
            c.saturation = s;
            c.tininess = tn;
            if (unsupported_reason(d, dst, c)) continue;
            // lut-argmin's ties toward zero and +0 zeros run the scalar kernels (plan.cpp).
            if (is_mx_element(dst) && (d.nearest_ties != NearestTies::even || d.zero_sign != ZeroSign::keep)) continue;
            const Converter conv(src, dst, c, d);
            if (scalar_only_reason(d)) {
              skips.add(d, conv);
              continue;
            }
            ASSERT_TRUE(vectorized(conv)) << setting(conv, Isa::scalar, true);
            f(conv);
          }
}

TEST(BatchSimd, ReportsTheInstructionSets) {
  // The list starts with the reference.
  ASSERT_GE(supported_isas().size(), 1u);
  EXPECT_EQ(supported_isas()[0], Isa::scalar);
  EXPECT_EQ(default_isa(), supported_isas().back());
  std::string list;
  for (Isa i : supported_isas()) list += std::string(" ") + name(i);
  std::printf("instruction sets on this CPU:%s\n", list.c_str());
  // rs, f64 sources and narrow sources have no vector kernel.
  Context rs;
  rs.rounding = Rounding::rs;
  EXPECT_FALSE(vectorized(Converter(FormatId::f32, FormatId::e4m3, rs)));
  EXPECT_FALSE(vectorized(Converter(FormatId::f64, FormatId::e4m3, Context{})));
  EXPECT_FALSE(vectorized(Converter(FormatId::e4m3, FormatId::f32, Context{})));
  EXPECT_TRUE(vectorized(Converter(FormatId::f32, FormatId::e4m3, Context{})));
}

TEST(BatchSimd, EqualsScalarForEvery16BitInputEverySetting) {
  conformance::Tally t("vector batch == scalar, every f16/bf16 input, every dialect x format x mode x sat x "
                       "tininess x instruction set, with and without flags");
  std::vector<std::uint16_t> in(65536 + 13);  // plus a tail shorter than a vector
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i * 0x9E37u);
  for (std::size_t i = 0; i < 65536; ++i) in[i] = static_cast<std::uint16_t>(i);
  for (FormatId src : {FormatId::f16, FormatId::bf16})
    for_each_setting(src, [&](const Converter& conv) { compare_all_isas(conv, in, t); });
  t.report();
}

/// Every sign and exponent; for each, fractions with every 7-bit leading pattern and, below it,
/// ties, near-ties and sticky patterns placed at every bit position, plus random tails.
std::vector<std::uint32_t> f32_sample() {
  std::vector<std::uint32_t> v;
  SplitMix64 rng(0x51D);
  for (std::uint32_t se = 0; se < 512; ++se) {
    const std::uint32_t top = se << 23;
    for (std::uint32_t lead = 0; lead < 128; ++lead) v.push_back(top | lead << 16 | static_cast<std::uint32_t>(rng.next() & 0xFFFF));
    for (int b = 0; b < 23; ++b) {
      const std::uint32_t half = 1u << b;
      for (std::uint32_t low : {half, half - 1, half + 1, 2 * half - 1})
        for (std::uint32_t hi : {0u, 1u << (b + 1 < 23 ? b + 1 : 22), 0x7FFFFFu & ~(2 * half - 1)})
          v.push_back(top | ((hi | low) & 0x7FFFFF));
    }
    for (int k = 0; k < 32; ++k) v.push_back(top | static_cast<std::uint32_t>(rng.next() & 0x7FFFFF));
  }
  return v;
}

TEST(BatchSimd, EqualsScalarOnStructuredF32SampleEverySetting) {
  const std::vector<std::uint32_t> in = f32_sample();
  conformance::Tally t("vector batch == scalar, " + std::to_string(in.size()) +
                       " structured f32 inputs, every dialect x format x mode x sat x tininess x instruction set");
  for_each_setting(FormatId::f32, [&](const Converter& conv) { compare_all_isas(conv, in, t); });
  t.report();
}

/// Calls check(conv, first, n) for consecutive input windows under every setting: all 2^16
/// f16 and bf16 inputs, and for f32, in binades picked by a SplitMix64 stream from `seed`, a
/// window at the binade's start (odd alignment), one at a random place inside, and one across
/// the boundary into the next binade (up to the last input for the last binade).
template <class F>
void for_each_consecutive_window(std::uint64_t seed, F&& check) {
  for (FormatId src : {FormatId::f16, FormatId::bf16})
    for_each_setting(src, [&](const Converter& conv) { check(conv, 0, 65536); });
  SplitMix64 rng(seed);
  for_each_setting(FormatId::f32, [&](const Converter& conv) {
    for (std::uint64_t binade = 0; binade < 512; binade += 1 + rng.below(4)) {
      const std::uint64_t start = binade << 23;
      check(conv, start + rng.below(3), 61);
      check(conv, start + rng.below(1u << 22), 77);
      if (binade < 511) check(conv, start + (1u << 23) - 40, 80);
      else check(conv, start + (1u << 23) - 40, 40);
    }
  });
}

// run_consecutive (the sweep's form: no input array, binade by binade) equals the scalar loop:
// every f16 and bf16 input, and f32 windows at both ends of every binade and at random places
// inside, starting at every alignment, under every setting.
TEST(BatchSimd, ConsecutiveEqualsScalarEverySetting) {
  conformance::Tally t("run_consecutive == scalar: every f16/bf16 input, f32 windows at every binade edge, every "
                       "dialect x format x mode x sat x tininess x instruction set");
  auto check = [&](const Converter& conv, std::uint64_t first, std::size_t n) {
    std::vector<std::uint16_t> want(n), got(n);
    std::vector<Flags> want_f(n), got_f(n);
    const bool wide = conv.destination_format().width > 8;
    auto run = [&](Isa isa, std::vector<std::uint16_t>& out, std::vector<Flags>& fl) {
      if (wide) {
        run_consecutive(conv, isa, first, out.data(), fl.data(), n);
      } else {
        std::vector<std::uint8_t> o8(n);
        run_consecutive(conv, isa, first, o8.data(), fl.data(), n);
        for (std::size_t i = 0; i < n; ++i) out[i] = o8[i];
      }
    };
    run(Isa::scalar, want, want_f);
    for (Isa isa : supported_isas()) {
      if (isa == Isa::scalar) continue;
      run(isa, got, got_f);
      std::size_t bad = 0, at = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (got[i] != want[i] || got_f[i] != want_f[i]) {
          if (!bad) at = i;
          ++bad;
        }
      t.pass(n - bad);
      if (bad)
        t.fail(setting(conv, isa, true) + ": consecutive from " + std::to_string(first) + ", input " +
                   std::to_string(first + at) + " differs (" + std::to_string(bad) + " in all)",
               bad);
    }
  };
  for_each_consecutive_window(0xC0453, check);
  t.report();
}

// Sources of at most 8 bits go through a table of the scalar kernel's results (made by the
// first batch): every code of every such source, under every dialect, destination, mode,
// saturation and tininess the dialect supports, through run_on on every instruction set (the
// table) against operator(), with flags and without.
TEST(BatchSimd, EightBitSourcesThroughTheTableEqualScalar) {
  conformance::Tally t("8-bit sources: table == scalar loop, every code, every dialect x destination x mode x "
                       "saturation x tininess x instruction set");
  constexpr FormatId kSources[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3,
                                   FormatId::e2m1, FormatId::int8, FormatId::e8m0};
  constexpr FormatId kDsts[] = {FormatId::f64, FormatId::f32, FormatId::f16,  FormatId::bf16, FormatId::e4m3,
                                FormatId::e5m2, FormatId::e2m1, FormatId::int8, FormatId::e8m0};
  for (const Dialect& d : all_dialects())
    for (FormatId src : kSources)
      for (FormatId dst : kDsts)
        for (Rounding r : kDeterministicRoundings)
          for (Saturation sat : {Saturation::finite, Saturation::none})
            for (Tininess tn : {Tininess::after_rounding, Tininess::before_rounding}) {
              if (src == dst) continue;
              Context c;
              c.rounding = r;
              c.saturation = sat;
              c.tininess = tn;
              if (unsupported_reason(d, dst, c)) continue;
              const Converter conv(src, dst, c, d);
              const std::size_t codes = std::size_t{1} << format(src).width;
              const std::size_t n = 256;  // every code, repeated for the narrow formats
              std::vector<std::uint8_t> in(n);
              for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint8_t>(i % codes);
              std::vector<std::uint64_t> want(n), got(n);
              std::vector<Flags> want_f(n), got_f(n);
              for (std::size_t i = 0; i < n; ++i) {
                const Result x = conv(in[i]);
                want[i] = x.code;
                want_f[i] = x.flags;
              }
              const std::size_t bytes = format(dst).width <= 8 ? 1 : format(dst).width / 8;
              for (Isa isa : supported_isas())
                for (bool with_flags : {true, false}) {
                  std::vector<unsigned char> raw(n * 8, 0xEE);
                  std::fill(got_f.begin(), got_f.end(), Flags{0xEE});
                  run_on(conv, isa, in.data(), raw.data(), with_flags ? got_f.data() : nullptr, n);
                  std::size_t bad = 0, first = 0;
                  for (std::size_t i = 0; i < n; ++i) {
                    std::uint64_t v = 0;
                    std::memcpy(&v, raw.data() + i * bytes, bytes);
                    if (v != want[i] || (with_flags && got_f[i] != want_f[i])) {
                      if (!bad) first = i;
                      ++bad;
                    }
                    got[i] = v;
                  }
                  t.pass(n - bad);
                  if (bad)
                    t.fail(setting(conv, isa, with_flags) + ": code " + std::to_string(in[first]) + " gives " +
                               std::to_string(got[first]) + "/" + std::to_string(got_f[first]) + ", operator() " +
                               std::to_string(want[first]) + "/" + std::to_string(want_f[first]),
                           bad);
                }
            }
  t.report();
}

/// Runtime destinations of every shape the vector kernels distinguish: sign-magnitude (fnuz,
/// ieee, fn, none; 8 and 16 bits), unsigned (with and without subnormals), two's complement,
/// fixed point, large and negative biases, no exponent field.
const char* const kRuntimeVectorDestinations[] = {
    "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e3m4",         "float8_e4m3", "e2m2",          "e1m2",
    "e3m2:bias=4", "ue4m3", "ue5m3",       "ue5m0:subnormals=no", "e3m2:subnormals=no", "int4", "int6",
    "int12",    "e5m10:bias=14", "e6m9",   "e8m7:specials=fnuz",  "e4m11:bias=100", "e5m3:bias=-10",
    "e1m5:fixed=yes", "e0m6", "ue7m1",     "e2m1:bias=3:specials=fn"};

/// Every (dialect that takes runtime formats, runtime destination, mode, saturation, tininess).
template <class F>
void for_each_runtime_setting(FormatId src, F&& f) {
  ScalarOnlySkips skips{"runtime destinations from " + std::string(format(src).name), {}};
  for (const Dialect& d : all_dialects())
    for (const char* spec : kRuntimeVectorDestinations)
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none})
          for (Tininess tn : {Tininess::after_rounding, Tininess::before_rounding}) {
            const Format dst = parse_format_spec(spec);
            Context c;
            c.rounding = r;
            c.saturation = s;
            c.tininess = tn;
            if (unsupported_reason(d, dst, c)) continue;
            const Converter conv(format(src), dst, c, d);
            if (scalar_only_reason(d)) {
              skips.add(d, conv);
              continue;
            }
            ASSERT_TRUE(vectorized(conv)) << setting(conv, Isa::scalar, true);
            f(conv);
          }
}

TEST(BatchSimd, RuntimeDestinationsEqualScalarForEvery16BitInput) {
  conformance::Tally t("vector batch == scalar, runtime destinations, every f16/bf16 input, every dialect x format x "
                       "mode x sat x tininess x instruction set, with and without flags");
  std::vector<std::uint16_t> in(65536 + 13);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i * 0x9E37u);
  for (std::size_t i = 0; i < 65536; ++i) in[i] = static_cast<std::uint16_t>(i);
  for (FormatId src : {FormatId::f16, FormatId::bf16})
    for_each_runtime_setting(src, [&](const Converter& conv) { compare_all_isas(conv, in, t); });
  t.report();
}

TEST(BatchSimd, RuntimeDestinationsEqualScalarOnStructuredF32Sample) {
  const std::vector<std::uint32_t> in = f32_sample();
  conformance::Tally t("vector batch == scalar, runtime destinations, " + std::to_string(in.size()) +
                       " structured f32 inputs, every dialect x format x mode x sat x tininess x instruction set");
  for_each_runtime_setting(FormatId::f32, [&](const Converter& conv) { compare_all_isas(conv, in, t); });
  t.report();
}

// run_consecutive and consecutive_segments (the sweep's forms) into runtime destinations: every
// f16 input and f32 windows around binade edges, under ocp.
TEST(BatchSimd, RuntimeDestinationsConsecutiveEqualScalar) {
  conformance::Tally t("run_consecutive/segments == scalar, runtime destinations, every f16 input and f32 binade-edge "
                       "windows, ocp x mode x sat x tininess x instruction set");
  auto check = [&](const Converter& conv, std::uint64_t first, std::size_t n) {
    std::vector<std::uint16_t> want(n), got(n);
    std::vector<Flags> want_f(n), got_f(n);
    const bool wide = conv.destination_format().width > 8;
    auto run = [&](Isa isa, std::vector<std::uint16_t>& out, std::vector<Flags>& fl) {
      if (wide) {
        run_consecutive(conv, isa, first, out.data(), fl.data(), n);
      } else {
        std::vector<std::uint8_t> o8(n);
        run_consecutive(conv, isa, first, o8.data(), fl.data(), n);
        for (std::size_t i = 0; i < n; ++i) out[i] = o8[i];
      }
    };
    run(Isa::scalar, want, want_f);
    for (Isa isa : supported_isas()) {
      if (isa == Isa::scalar) continue;
      run(isa, got, got_f);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i] || got_f[i] != want_f[i];
      // The segments of the same range: each starts where the result changes.
      std::vector<Segment> seg(n);
      const std::size_t k = consecutive_segments(conv, isa, first, n, seg.data());
      std::size_t s = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (s + 1 < k && seg[s + 1].first == first + i) ++s;
        bad += seg[s].code != want[i] || seg[s].flags != want_f[i];
      }
      t.pass(2 * n - bad);
      if (bad) t.fail(setting(conv, isa, true) + ": consecutive from " + std::to_string(first) + " differs", bad);
    }
  };
  SplitMix64 rng(0xC0453F);
  for (const char* spec : kRuntimeVectorDestinations)
    for (Rounding r : kDeterministicRoundings)
      for (Saturation s : {Saturation::finite, Saturation::none})
        for (Tininess tn : {Tininess::after_rounding, Tininess::before_rounding}) {
          const Context c{.rounding = r, .saturation = s, .tininess = tn};
          check(Converter(format(FormatId::f16), parse_format_spec(spec), c), 0, 65536);
          const Converter f32(format(FormatId::f32), parse_format_spec(spec), c);
          for (std::uint64_t binade = 0; binade < 512; binade += 1 + rng.below(16)) {
            check(f32, (binade << 23) + rng.below(3), 61);
            if (binade < 511) check(f32, (binade << 23) + (1u << 23) - 40, 80);
          }
        }
  t.report();
}

// Runtime sources through the code tables (at most 8 bits: 256 entries; 9 to 16 bits: 2^width
// entries, made once the batches have spent as many conversions): every code, into named and
// runtime destinations, against operator().
TEST(BatchSimd, RuntimeSourcesThroughTheTableEqualScalar) {
  conformance::Tally t("runtime sources: table == scalar loop, every code, ocp and gfloat x destination x mode x "
                       "saturation x instruction set");
  const char* const sources[] = {"e4m3fnuz", "e3m4", "ue4m3", "int4", "e2m2", "e5m10:bias=14", "ue5m7", "int12"};
  const char* const dsts[] = {"f32", "f16", "bf16", "e4m3", "e4m3fnuz", "e8m0", "int4", "e8m23:bias=100"};
  for (const char* dn : {"ocp", "gfloat"})
    for (const char* sn : sources)
      for (const char* dsn : dsts)
        for (Rounding r : kDeterministicRoundings)
          for (Saturation sat : {Saturation::finite, Saturation::none}) {
            const Dialect& d = *find_dialect(dn);
            const Format src = parse_format_spec(sn), dst = parse_format_spec(dsn);
            if (src == dst) continue;
            Context c;
            c.rounding = r;
            c.saturation = sat;
            if (unsupported_reason(d, dst, c)) continue;
            const Converter conv(src, dst, c, d);
            const std::size_t codes = std::size_t{1} << src.width;
            const std::size_t n = codes + 77;  // every code, then some again
            std::vector<std::uint16_t> in16(n);
            std::vector<std::uint8_t> in8(n);
            for (std::size_t i = 0; i < n; ++i) {
              in16[i] = static_cast<std::uint16_t>(i % codes);
              in8[i] = static_cast<std::uint8_t>(in16[i]);
            }
            const void* in = src.width <= 8 ? static_cast<const void*>(in8.data()) : in16.data();
            std::vector<std::uint64_t> want(n);
            std::vector<Flags> want_f(n), got_f(n);
            for (std::size_t i = 0; i < n; ++i) {
              const Result x = conv(in16[i]);
              want[i] = x.code;
              want_f[i] = x.flags;
            }
            const std::size_t bytes = dst.width <= 8 ? 1 : dst.width <= 16 ? 2 : 4;
            for (Isa isa : supported_isas())
              for (int pass = 0; pass < 2; ++pass) {  // the second pass reads a 16-bit source's table
                std::vector<unsigned char> raw(n * 4, 0xEE);
                std::fill(got_f.begin(), got_f.end(), Flags{0xEE});
                run_on(conv, isa, in, raw.data(), got_f.data(), n);
                std::size_t bad = 0, first = 0;
                for (std::size_t i = 0; i < n; ++i) {
                  std::uint64_t v = 0;
                  std::memcpy(&v, raw.data() + i * bytes, bytes);
                  if (v != want[i] || got_f[i] != want_f[i]) {
                    if (!bad) first = i;
                    ++bad;
                  }
                }
                t.pass(n - bad);
                if (bad)
                  t.fail(setting(conv, isa, true) + ": code " + std::to_string(in16[first]) + " differs (" +
                             std::to_string(bad) + ")",
                         bad);
              }
          }
  t.report();
}

TEST(BatchSimd, SpanOverloadChecksTypesAndSizes) {
  const Converter conv(FormatId::f32, FormatId::e4m3, Context{});
  const std::vector<std::uint32_t> in = {0x43E80000u, 0x3F800000u, 0x7FC00000u};
  std::vector<std::uint8_t> out(3);
  std::vector<Flags> fl(3);
  conv.run(std::span<const std::uint32_t>(in), std::span<std::uint8_t>(out), std::span<Flags>(fl));
  EXPECT_EQ(out[0], 0x7E);
  EXPECT_EQ(fl[0], flag::inexact);  // 464: the tie between 448 and 480 goes to even 448
  EXPECT_EQ(out[1], 0x38);
  EXPECT_EQ(out[2], 0x7F);
  std::vector<std::uint16_t> wrong(3);
  EXPECT_THROW(conv.run(std::span<const std::uint32_t>(in), std::span<std::uint16_t>(wrong)), std::invalid_argument);
  std::vector<std::uint8_t> short_out(2);
  EXPECT_THROW(conv.run(std::span<const std::uint32_t>(in), std::span<std::uint8_t>(short_out)), std::invalid_argument);
}

}  // namespace
}  // namespace softmx

namespace softmx {
namespace {

/// The setting of a block-quantization check, described for a mismatch report.
std::string block_setting(const BlockOptions& o, FormatId src) {
  return std::string(o.dialect->name) + " " + std::string(format(src).name) + "->" +
         std::string(format(o.element).name) + " " + std::string(name(*o.rounding)) + " " +
         std::string(name(*o.saturation)) + " " + std::string(name(*o.rule));
}

/// Calls f(src, options) for every dialect that quantizes blocks x source f32, f16, bf16 x MX
/// element x deterministic mode x saturation x scale rule the dialect supports, with the
/// tininess rule drawn from `rng`.
template <class F>
void for_each_block_setting(SplitMix64& rng, F&& f) {
  for (const Dialect& d : all_dialects()) {
    if (!d.block.unsupported.empty()) continue;
    for (FormatId src : {FormatId::f32, FormatId::f16, FormatId::bf16})
      for (FormatId el : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
        for (Rounding r : kDeterministicRoundings)
          if (d.block.sources & format_bit(src))  // torchmx: bf16 only; pychop: f32 (and f64)
          for (Saturation s : {Saturation::finite, Saturation::none})
            for (ScaleRule rule : {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil}) {
              if (unsupported_reason(d, el, Context{.rounding = r, .saturation = s})) continue;
              const Tininess tn = rng.below(2) ? Tininess::after_rounding : Tininess::before_rounding;
              f(src, BlockOptions{.element = el, .dialect = &d, .rule = rule, .rounding = r, .saturation = s,
                                  .tininess = tn});
            }
  }
}

/// A block of k source codes (src's bits, in 32-bit words) drawn to reach the edges of
/// quantizing into `element`:
///   kind 0: any finite value; 1: four binades (a narrow block); 2: source subnormals and
///   the smallest normals; 3: a 32-binade spread, sometimes with a NaN or Inf;
///   4: one largest value 2^(emax_E + s0) (fraction random or all ones: overflow after
///   rounding) setting the floor scale 2^s0, every other value an edge of the element scaled by
///   2^s0: the tininess-after-rounding midpoint 2^emin - 2^(emin-m-2), 2^emin, half the smallest
///   subnormal, values with m + 2 significant bits (exact, ties) from below the subnormals to
///   the top binade, far below 2^-126 after scaling; each sometimes one source ulp off;
///   5: as 4, but one edge value among zeros and exact element values (the block's flags are
///   that value's), and an exact largest value.
/// Zeros of both signs turn up in every kind.
std::vector<std::uint32_t> draw_block(SplitMix64& rng, FormatId src, FormatId element, std::size_t k, int kind) {
  std::vector<std::uint32_t> v(k);
  const Format& f = format(src);
  const int m = f.man_bits, eb = f.exp_bits;
  const std::uint32_t emax_field = (1u << eb) - 1;
  if (kind >= 4) {
    const Format& el = format(element);
    const int em = el.man_bits, e0 = el.emin(), emax_el = element_emax(element);
    const int src_emin = 1 - f.bias, src_emax = static_cast<int>(emax_field) - 1 - f.bias;
    const int ea = rng.below(8) == 0 ? src_emin + static_cast<int>(rng.below(3))
                                     : src_emin + emax_el + static_cast<int>(rng.below(static_cast<std::uint64_t>(src_emax - src_emin - emax_el + 1)));
    const int s0 = ea - emax_el;
    // sign, unbiased exponent, fraction (m bits), ulps to add: the source code, or a zero when
    // the exponent is outside the source's normal range.
    auto code = [&](std::uint32_t sign, int e, std::uint32_t frac, int ulps) {
      std::uint32_t x;
      if (e + f.bias < 1) {
        x = 0;
      } else {
        const int be = std::min(e + f.bias, static_cast<int>(emax_field) - 1);
        x = (static_cast<std::uint32_t>(be) << m) | frac;
        x = static_cast<std::uint32_t>(static_cast<std::int64_t>(x) + ulps);
        if (x == 0 || x >= (emax_field << m)) x = static_cast<std::uint32_t>(be) << m;
      }
      return sign | x;
    };
    // An edge of the element, scaled by 2^s0.
    auto edge = [&](std::uint32_t sign) {
      const int ulps = static_cast<int>(rng.below(3)) - 1;
      const std::uint32_t top = static_cast<std::uint32_t>(rng.next());
      switch (rng.below(5)) {
        case 0: return code(sign, e0 - 1 + s0, ((1u << (em + 1)) - 1) << (m - em - 1), ulps);  // the midpoint
        case 1: return code(sign, e0 + s0, 0, ulps);                                            // 2^emin
        case 2: return code(sign, e0 - em - 1 + s0, 0, ulps);  // half the smallest subnormal
        case 3: return code(sign, s0 - 140 - static_cast<int>(rng.below(20)), top & ((1u << m) - 1), 0);
        default: {  // m + 2 significant bits, from two binades below the subnormals to emax
          const int e = e0 - em - 2 + static_cast<int>(rng.below(static_cast<std::uint64_t>(emax_el - e0 + em + 3)));
          return code(sign, e + s0, (top & ((1u << (em + 1)) - 1)) << (m - em - 1), rng.below(2) ? ulps : 0);
        }
      }
    };
    // Kind 5 isolates one edge: the other values are zeros and exact normal element values, so
    // the block's flags are that value's.
    for (auto& x : v) {
      const std::uint32_t sign = static_cast<std::uint32_t>(rng.below(2)) << (f.width - 1);
      if (rng.below(6) == 0) {
        x = sign;  // a zero
      } else if (kind == 4) {
        x = edge(sign);
      } else {
        const int e = e0 + static_cast<int>(rng.below(static_cast<std::uint64_t>(emax_el - e0 + 1)));
        x = code(sign, e + s0, (static_cast<std::uint32_t>(rng.next()) & ((1u << em) - 1)) << (m - em), 0);
      }
    }
    if (kind == 5) v[0] = edge(static_cast<std::uint32_t>(rng.below(2)) << (f.width - 1));
    const std::uint32_t amax_frac = kind == 5       ? 0
                                    : rng.below(2) ? (1u << m) - 1
                                                   : static_cast<std::uint32_t>(rng.next()) & ((1u << m) - 1);
    v[kind == 5 ? (k > 1 ? 1 + rng.below(k - 1) : 0) : rng.below(k)] =
        code(static_cast<std::uint32_t>(rng.below(2)) << (f.width - 1), ea, amax_frac, 0);
    return v;
  }
  for (auto& x : v) {
    const std::uint32_t sign = static_cast<std::uint32_t>(rng.below(2)) << (f.width - 1);
    std::uint32_t e;
    switch (kind) {
      case 0: e = static_cast<std::uint32_t>(rng.below(emax_field)); break;            // anything finite
      case 1: e = static_cast<std::uint32_t>(emax_field / 2 + rng.below(4)); break;    // narrow range
      case 2: e = static_cast<std::uint32_t>(rng.below(3)); break;                     // source subnormals
      default: e = static_cast<std::uint32_t>(emax_field / 2 - 30 + rng.below(32)); break;  // wide spread
    }
    std::uint32_t frac = static_cast<std::uint32_t>(rng.next()) & ((1u << m) - 1);
    if (rng.below(4) == 0) frac &= ~((1u << (m > 4 ? m - 4 : 0)) - 1);  // short fractions: exact and ties
    if (rng.below(4) == 0) frac |= (1u << (m > 5 ? m - 5 : 0));
    x = sign | (e << m) | frac;
    if (rng.below(16) == 0) x = sign;  // zeros
  }
  if (kind == 3 && rng.below(4) == 0) v[rng.below(k)] = (emax_field << m) | (rng.below(2) ? 1u : 0u);  // NaN/Inf
  return v;
}

// Block quantization's vector path (V * 2^-s rounded by the vector kernel) equals its scalar
// path, on blocks built to reach every edge: elements that land in the element format's
// subnormals, just below 2^emin (tininess after rounding), below half the smallest subnormal,
// at ties, f32 subnormals, zeros of both signs, blocks of one tiny value, blocks with NaN or
// Inf (which take the scalar path on both), for every dialect, element, mode, saturation,
// tininess and scale rule, from f32, f16 and bf16.
TEST(BatchSimd, BlockQuantizeEqualsTheScalarPath) {
  conformance::Tally t("block quantize, vector path == scalar path: adversarial and random blocks, every dialect x "
                       "element x mode x saturation x tininess x scale rule x source x instruction set");
  SplitMix64 rng(0xB10C5);
  for_each_block_setting(rng, [&](FormatId src, BlockOptions o) {
              for (int rep = 0; rep < 48; ++rep) {
                const std::size_t k = rep == 0 ? 1 : rep < 40 ? 32 : 37;
                const auto v32 = draw_block(rng, src, o.element.id(), k, rep % 5);
                std::vector<std::uint16_t> v16(v32.begin(), v32.end());
                const void* data = format(src).width == 32 ? static_cast<const void*>(v32.data()) : v16.data();
                o.isa = Isa::scalar;
                QuantizedBlock want;
                bool threw = false;
                try {
                  want = quantize_block(src, data, k, o);
                } catch (const std::invalid_argument&) {
                  threw = true;  // e.g. gfloat's NaN into a format without NaN
                }
                for (Isa isa : supported_isas()) {
                  if (isa == Isa::scalar) continue;
                  o.isa = isa;
                  if (threw) {
                    bool also = false;
                    try {
                      quantize_block(src, data, k, o);
                    } catch (const std::invalid_argument&) {
                      also = true;
                    }
                    t.check(also, [&] { return block_setting(o, src) + ": the scalar path raised, the vector path did not"; });
                    continue;
                  }
                  const QuantizedBlock got = quantize_block(src, data, k, o);
                  t.check(got.scale == want.scale && got.codes == want.codes && got.flags == want.flags, [&] {
                    return block_setting(o, src) + " on " + name(isa) + ": block of " + std::to_string(k) + " (kind " +
                           std::to_string(rep % 5) + ") differs";
                  });
                }
              }
  });
  t.report();
}

}  // namespace
}  // namespace softmx

namespace softmx {
namespace {

/// While alive (x86), the SSE unit flushes subnormal results to zero, reads subnormal
/// operands as zero and rounds toward zero: a caller's odd floating-point mode, under which the
/// kernels must not lean on the FPU's rounding (fpu_is_default in simd/lane_ops.hpp).
class OddFpuMode {
 public:
  explicit OddFpuMode(bool on) {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    if (on) _mm_setcsr((saved_ & ~0x6000u) | 0x6000u | 0x8040u);  // RC = 11, FTZ, DAZ
#else
    (void)on;
#endif
  }
  ~OddFpuMode() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#endif
  }
  OddFpuMode(const OddFpuMode&) = delete;
  OddFpuMode& operator=(const OddFpuMode&) = delete;

 private:
  unsigned saved_ = 0;
};

/// quantize_tensor(src, data, shape, axis 1, k, o) on the scalar path, then on every vector
/// instruction set with the FPU in its default and in an odd mode (OddFpuMode), each vector result
/// handed to check(want, got, o with its isa, isa, odd). Checks nothing when the scalar path
/// raises (the dialect raises on NaN: gfloat; BlockQuantizeEqualsTheScalarPath checks both raise).
template <class F>
void each_vector_quantize(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t k,
                          BlockOptions o, F check) {
  o.isa = Isa::scalar;
  MxTensor want;
  try {
    want = quantize_tensor(src, data, shape, 1, k, o);
  } catch (const std::invalid_argument&) {
    return;
  }
  for (Isa isa : supported_isas()) {
    if (isa == Isa::scalar) continue;
    o.isa = isa;
    for (bool odd : {false, true}) {
      MxTensor got;
      {
        const OddFpuMode mode(odd);
        got = quantize_tensor(src, data, shape, 1, k, o);
      }
      check(want, got, o, isa, odd);
    }
  }
}

// The block kernel block by block: one-block tensors (a tensor's rows of full blocks go to the
// block kernel, and a one-block tensor's flags are that block's alone), k = 16, 32 and 64,
// every kind of draw_block (kind 4 aims at the direct path's edges: the 2^-126 floor, the
// tininess midpoint, overflow after rounding), every setting; and again with the FPU in an odd
// mode (OddFpuMode), where rne takes the integer route.
TEST(BatchSimd, BlockKernelEqualsTheScalarPathBlockByBlock) {
  conformance::Tally t("block kernel == scalar path, one block at a time: every dialect x element x mode x "
                       "saturation x tininess x scale rule x source x instruction set x FPU mode");
  SplitMix64 rng(0xB10CB10C);
  for_each_block_setting(rng, [&](FormatId src, BlockOptions o) {
    for (int rep = 0; rep < 36; ++rep) {
      const std::size_t k = rep % 3 == 0 ? 16 : rep % 3 == 1 ? 32 : 64;
      const auto v32 = draw_block(rng, src, o.element.id(), k, rep % 6);
      std::vector<std::uint16_t> v16(v32.begin(), v32.end());
      const void* data = format(src).width == 32 ? static_cast<const void*>(v32.data()) : v16.data();
      const std::size_t shape[2] = {1, k};
      each_vector_quantize(src, data, shape, k, o, [&](const MxTensor& want, const MxTensor& got, const BlockOptions& ov,
                                                       Isa isa, bool odd) {
        t.check(got.scales == want.scales && got.codes == want.codes && got.flags == want.flags, [&] {
          std::string d = block_setting(ov, src) + " k " + std::to_string(k) + " kind " + std::to_string(rep % 6) +
                          " on " + name(isa) + (odd ? " (odd FPU mode)" : "") + ": scale " +
                          std::to_string(got.scales[0]) + " flags " + std::to_string(got.flags) + ", scalar " +
                          std::to_string(want.scales[0]) + " flags " + std::to_string(want.flags);
          for (std::size_t i = 0; i < k; ++i)
            if (got.codes[i] != want.codes[i]) {
              d += "; value " + std::to_string(v32[i]) + " -> " + std::to_string(got.codes[i]) + ", scalar " +
                   std::to_string(want.codes[i]);
              break;
            }
          return d;
        });
      });
    }
  });
  t.report();
}

// Long rows, where the block kernel's direct path takes groups of 8 blocks (every scale of the
// group first, then the elements; simd/block_lanes.hpp, BlockRun::hot): mostly ordinary blocks
// (normal values, no zero, over a spread of binades; the largest sometimes with an all-ones
// fraction, which overflows after rounding, or an exact power of two, the scale's boundary),
// with blocks that no group may take put at random places: draw_block's adversarial kinds
// (source subnormals, zeros, the element's edges, the 2^-126 floor, amax at the source's
// smallest normals), an all-zero block, a block with one NaN or Inf, one with one source
// subnormal. Every setting, k = 32 (and 16, 64), with the FPU in its default and an odd mode.
TEST(BatchSimd, BlockKernelGroupsEqualTheScalarPath) {
  conformance::Tally t("block kernel, groups of blocks == scalar path: rows of 8 to 40 blocks, ordinary blocks with "
                       "adversarial ones among them, every dialect x element x mode x saturation x scale rule x "
                       "source x instruction set x FPU mode");
  SplitMix64 rng(0x6B0C5);
  for_each_block_setting(rng, [&](FormatId src, BlockOptions o) {
    const Format& f = format(src);
    const int m = f.man_bits;
    const std::uint32_t emax_field = (1u << f.exp_bits) - 1, sign_bit = 1u << (f.width - 1);
    const std::size_t k = rng.below(4) == 0 ? (rng.below(2) ? 16 : 64) : 32;
    const std::size_t nb = 8 + rng.below(33), rows = 2, cols = nb * k + (rng.below(2) ? k / 2 : 0);
    std::vector<std::uint32_t> v(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t b = 0; b * k < cols; ++b) {
        std::uint32_t* blk = &v[r * cols + b * k];
        const std::size_t len = std::min(k, cols - b * k);
        const std::uint64_t pick = rng.below(16);
        if (pick < 3) {  // an adversarial block
          const auto w = draw_block(rng, src, o.element.id(), len, static_cast<int>(rng.below(6)));
          std::copy(w.begin(), w.end(), blk);
          continue;
        }
        // An ordinary block: top exponent field, then a spread of binades below it.
        const std::uint32_t top = 1 + static_cast<std::uint32_t>(rng.below(emax_field - 1));
        const std::uint32_t spread = static_cast<std::uint32_t>(rng.below(24));
        for (std::size_t i = 0; i < len; ++i) {
          const std::uint32_t e = top > spread ? top - static_cast<std::uint32_t>(rng.below(spread + 1)) : 1 + static_cast<std::uint32_t>(rng.below(top));
          blk[i] = static_cast<std::uint32_t>(rng.below(2)) * sign_bit | e << m |
                   (static_cast<std::uint32_t>(rng.next()) & ((1u << m) - 1));
        }
        const std::size_t at = rng.below(len);
        const std::uint64_t how = rng.below(4);
        if (how == 0) blk[at] = (blk[at] & sign_bit) | top << m | ((1u << m) - 1);  // all-ones fraction
        if (how == 1) blk[at] = (blk[at] & sign_bit) | top << m;                    // a power of two
        if (pick == 3) {  // one value made special: a zero block, NaN or Inf, a subnormal, a zero
          switch (rng.below(4)) {
            case 0: for (std::size_t i = 0; i < len; ++i) blk[i] &= sign_bit; break;
            case 1: blk[rng.below(len)] = emax_field << m | static_cast<std::uint32_t>(rng.below(2)) << (m - 1) | 1u; break;
            case 2: blk[rng.below(len)] = static_cast<std::uint32_t>(rng.below(2)) * sign_bit | (1u + static_cast<std::uint32_t>(rng.below((1u << m) - 1))); break;
            default: blk[rng.below(len)] = emax_field << m; break;  // +Inf
          }
        }
      }
    std::vector<std::uint16_t> v16(v.begin(), v.end());
    const void* data = f.width == 32 ? static_cast<const void*>(v.data()) : v16.data();
    const std::size_t shape[2] = {rows, cols};
    each_vector_quantize(src, data, shape, k, o, [&](const MxTensor& want, const MxTensor& got, const BlockOptions& ov,
                                                     Isa isa, bool odd) {
      std::size_t bad = 0;
      for (std::size_t i = 0; i < got.codes.size(); ++i) bad += got.codes[i] != want.codes[i];
      for (std::size_t i = 0; i < got.scales.size(); ++i) bad += got.scales[i] != want.scales[i];
      bad += got.flags != want.flags;
      t.pass(got.codes.size() + got.scales.size() + 1 - bad);
      if (bad)
        t.fail(block_setting(ov, src) + " k " + std::to_string(k) + " blocks " + std::to_string(nb) + " on " +
                   name(isa) + (odd ? " (odd FPU mode)" : "") + ": codes, scales and flags differ",
               bad);
    });
  });
  t.report();
}

// Whole tensors: rows of full blocks go through the vector block kernel (the scale computed in
// the kernel for floor, by the quantizer for the other rules, blocks with NaN or Inf handed to
// the scalar path); they must equal the scalar path: scales, codes and the ORed flags.
TEST(BatchSimd, TensorQuantizeEqualsTheScalarPath) {
  conformance::Tally t("tensor quantize, vector block kernel == scalar path: 2-d tensors with adversarial rows, "
                       "every dialect x element x mode x saturation x scale rule x source x instruction set");
  SplitMix64 rng(0x7E45);
  for_each_block_setting(rng, [&](FormatId src, BlockOptions o) {
            const std::size_t k = rng.below(2) ? 32 : 64, rows = 3, cols = 4 * k + 5;  // a partial block too
            const Format& f = format(src);
            std::vector<std::uint32_t> v(rows * cols);
            const int spread = static_cast<int>(rng.below(3));
            for (auto& x : v) {
              const std::uint32_t emax = (1u << f.exp_bits) - 1;
              const std::uint32_t e = spread == 0 ? static_cast<std::uint32_t>(rng.below(emax))
                                      : spread == 1 ? emax / 2 + static_cast<std::uint32_t>(rng.below(3))
                                                    : static_cast<std::uint32_t>(rng.below(4));
              x = static_cast<std::uint32_t>(rng.below(2)) << (f.width - 1) | e << f.man_bits |
                  (static_cast<std::uint32_t>(rng.next()) & ((1u << f.man_bits) - 1));
              if (rng.below(32) == 0) x &= 1u << (f.width - 1);  // a zero
            }
            if (rng.below(3) == 0)  // a NaN or Inf somewhere
              v[rng.below(v.size())] = ((1u << f.exp_bits) - 1) << f.man_bits | static_cast<std::uint32_t>(rng.below(2));
            std::vector<std::uint16_t> v16(v.begin(), v.end());
            const void* data = f.width == 32 ? static_cast<const void*>(v.data()) : v16.data();
            const std::size_t shape[2] = {rows, cols};
            o.isa = Isa::scalar;
            MxTensor want;
            try {
              want = quantize_tensor(src, data, shape, 1, k, o);
            } catch (const std::invalid_argument&) {
              return;  // the dialect raises on NaN (gfloat); the single-block test checks both paths raise
            }
            for (Isa isa : supported_isas()) {
              if (isa == Isa::scalar) continue;
              o.isa = isa;
              const MxTensor got = quantize_tensor(src, data, shape, 1, k, o);
              t.check(got.scales == want.scales && got.codes == want.codes && got.flags == want.flags, [&] {
                return block_setting(o, src) + " k " + std::to_string(k) + " on " + name(isa) + " differs";
              });
            }
  });
  t.report();
}

}  // namespace
}  // namespace softmx

namespace softmx {
namespace {

// consecutive_segments (the sweep's form: the change points only) equals the segments of the
// scalar loop's results: every f16/bf16 input and f32 windows at every binade edge, under every
// setting, including a window that starts inside a run.
TEST(BatchSimd, SegmentsEqualTheScalarResultsEverySetting) {
  conformance::Tally t("consecutive_segments == segments of the scalar results: every f16/bf16 input, f32 binade "
                       "edges, every dialect x format x mode x sat x tininess x instruction set");
  auto check = [&](const Converter& conv, std::uint64_t first, std::size_t n) {
    std::vector<Segment> want(n), got(n);
    const std::size_t nw = consecutive_segments(conv, Isa::scalar, first, n, want.data());
    // The reference segments straight from single conversions, to check the scalar form too.
    std::size_t ns = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Result r = conv(first + i);
      if (i == 0 || r.code != want[ns - 1].code || r.flags != want[ns - 1].flags) ++ns;
    }
    t.check(ns == nw, [&] { return std::string("scalar segments miscounted"); });
    for (Isa isa : supported_isas()) {
      if (isa == Isa::scalar) continue;
      const std::size_t ng = consecutive_segments(conv, isa, first, n, got.data());
      bool same = ng == nw;
      for (std::size_t k = 0; same && k < ng; ++k)
        same = got[k].first == want[k].first && got[k].code == want[k].code && got[k].flags == want[k].flags;
      t.check(same, [&] {
        return setting(conv, isa, true) + ": segments of " + std::to_string(n) + " inputs from " +
               std::to_string(first) + " differ (" + std::to_string(ng) + " vs " + std::to_string(nw) + ")";
      });
    }
  };
  for_each_consecutive_window(0x5E6, check);
  t.report();
}

}  // namespace
}  // namespace softmx
