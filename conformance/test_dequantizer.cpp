// conformance/test_dequantizer.cpp: Dequantizer (the batch form of dequantize_element) gives
// dequantize_element's codes and flags for every element code under every scale code, in
// every dialect, element format and destination, through run() and operator(), before and
// after it tabulates a scale; and its edges (partial blocks, codes outside a narrow format,
// no flags array, bad arguments).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

constexpr FormatId kElements[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2,
                                  FormatId::e2m3, FormatId::e2m1, FormatId::int8};
constexpr FormatId kDestinations[] = {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16, FormatId::e4m3};

std::uint64_t load(FormatId f, const std::vector<std::uint64_t>& out, std::size_t i) {
  const int w = format(f).width;
  const std::uint64_t v = out[i];
  return w <= 8 ? v & 0xFF : w <= 16 ? v & 0xFFFF : w <= 32 ? v & 0xFFFFFFFF : v;
}

// Every scale code x every element code, laid out as 256 blocks of 2^width codes (block b has
// scale b), run three times: in small pieces (rows not yet made: the per-element path), whole
// (rows made), whole again without a flags array; and operator() on each pair.
TEST(Dequantizer, EqualsDequantizeElementForEveryScaleAndCode) {
  conformance::Tally t("Dequantizer == dequantize_element: every scale x code, every dialect x element x "
                       "destination, a drawn mode, saturation and tininess");
  SplitMix64 rng(0xDE0);
  for (const Dialect& d : all_dialects())
    for (FormatId el : kElements)
      for (FormatId dst : kDestinations) {
        Context c;
        c.rounding = kDeterministicRoundings[rng.below(std::size(kDeterministicRoundings))];
        c.saturation = rng.below(2) ? Saturation::finite : Saturation::none;
        c.tininess = rng.below(2) ? Tininess::after_rounding : Tininess::before_rounding;
        if (unsupported_reason(d, dst, c)) continue;
        const std::size_t codes = std::size_t{1} << format(el).width, n = 256 * codes;
        std::vector<std::uint8_t> scales(256), in(n);
        for (std::size_t b = 0; b < 256; ++b) {
          scales[b] = static_cast<std::uint8_t>(b);
          for (std::size_t j = 0; j < codes; ++j) in[b * codes + j] = static_cast<std::uint8_t>(j);
        }
        std::vector<Result> want(n);
        Flags want_all = 0;
        for (std::size_t i = 0; i < n; ++i) {
          want[i] = dequantize_element(el, scales[i / codes], in[i], dst, c, d);
          want_all |= want[i].flags;
        }
        const std::string what = std::string(d.name) + " " + std::string(format(el).name) + "->" +
                                 std::string(format(dst).name) + " " + std::string(name(c.rounding));
        Dequantizer dq(el, dst, c, d);
        std::vector<std::uint64_t> out(n, 0xDEADBEEF);
        std::vector<Flags> fl(n, 0xEE);
        auto compare = [&](const char* how, bool flags) {
          std::size_t bad = 0, first = 0;
          for (std::size_t i = 0; i < n; ++i)
            if (load(dst, out, i) != want[i].code || (flags && fl[i] != want[i].flags)) {
              if (!bad) first = i;
              ++bad;
            }
          t.pass(n - bad);
          if (bad)
            t.fail(what + " " + how + ": scale " + std::to_string(first / codes) + " code " +
                       std::to_string(first % codes) + " gives " + std::to_string(load(dst, out, first)) + "/" +
                       std::to_string(fl[first]) + ", want " + std::to_string(want[first].code) + "/" +
                       std::to_string(want[first].flags),
                   bad);
        };
        // Blocks of 2 from a view of the same data: 2 uses per scale per block, far below the
        // tabulation threshold for the first blocks of each scale.
        std::vector<std::uint8_t> scales2(n / 2);
        for (std::size_t i = 0; i < n / 2; ++i) scales2[i] = scales[(2 * i) / codes];
        Flags all = 0;
        for (std::size_t first = 0; first < n; first += codes)  // one scale's codes per call
          all |= dq.run(&scales2[first / 2], &in[first], codes, 2,
                        reinterpret_cast<unsigned char*>(out.data()) + first * 8, fl.data() + first);
        // run() wrote dst's storage type at the start of each piece; spread it into out[].
        {
          std::vector<std::uint64_t> packed(out);
          const std::size_t bytes = format(dst).width <= 8 ? 1 : format(dst).width / 8;
          for (std::size_t first = 0; first < n; first += codes)
            for (std::size_t j = 0; j < codes; ++j) {
              std::uint64_t v = 0;
              std::memcpy(&v, reinterpret_cast<const unsigned char*>(packed.data()) + first * 8 + j * bytes, bytes);
              out[first + j] = v;
            }
        }
        compare("run, blocks of 2 (per element, then tabulated)", true);
        t.check(all == want_all, [&] { return what + ": run's OR of flags differs (blocks of 2)"; });

        Dequantizer fresh(el, dst, c, d);
        std::vector<unsigned char> raw(n * 8);
        for (bool with_flags : {true, false}) {
          std::fill(fl.begin(), fl.end(), Flags{0xEE});
          all = fresh.run(scales.data(), in.data(), n, codes, raw.data(), with_flags ? fl.data() : nullptr);
          const std::size_t bytes = format(dst).width <= 8 ? 1 : format(dst).width / 8;
          for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t v = 0;
            std::memcpy(&v, raw.data() + i * bytes, bytes);
            out[i] = v;
          }
          compare(with_flags ? "run, whole blocks" : "run, whole blocks, no flags array", with_flags);
          t.check(all == want_all, [&] { return what + ": run's OR of flags differs"; });
        }
        for (std::size_t i = 0; i < n; ++i) {
          const Result r = fresh(scales[i / codes], in[i]);
          out[i] = r.code;
          fl[i] = r.flags;
        }
        compare("operator()", true);
      }
  t.report();
}

// A last partial block, blocks that straddle the tabulation threshold, and codes outside a
// narrow element format (bytes above 2^width: dequantize_element's reading of them, not the
// table's).
TEST(Dequantizer, PartialBlocksAndOutOfRangeCodesFollowTheReference) {
  conformance::Tally t("Dequantizer edges == dequantize_element");
  SplitMix64 rng(0xDE1);
  for (FormatId el : kElements)
    for (std::size_t k : {1u, 3u, 16u, 32u, 33u}) {
      const std::size_t n = 1000;
      std::vector<std::uint8_t> scales((n + k - 1) / k), in(n);
      for (auto& s : scales) s = static_cast<std::uint8_t>(120 + rng.below(6));  // few scales: rows get made
      for (auto& x : in) x = static_cast<std::uint8_t>(rng.below(16) == 0 ? rng.below(256) : rng.below(std::size_t{1} << format(el).width));
      Context c;
      Dequantizer dq(el, FormatId::f32, c);
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::uint32_t> out(n);
        std::vector<Flags> fl(n);
        const Flags all = dq.run(scales.data(), in.data(), n, k, out.data(), fl.data());
        Flags want_all = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const Result r = dequantize_element(el, scales[i / k], in[i], FormatId::f32, c);
          want_all |= r.flags;
          t.check(out[i] == r.code && fl[i] == r.flags, [&] {
            return std::string(format(el).name) + " k " + std::to_string(k) + " element " + std::to_string(i) +
                   " (code " + std::to_string(in[i]) + ") differs on pass " + std::to_string(pass);
          });
        }
        t.check(all == want_all, [&] { return std::string(format(el).name) + ": OR of flags differs"; });
      }
    }
  t.report();
}

// run()'s f32 lanes (simd/dequant_lanes.hpp) on every instruction set this CPU has: the OCP
// and TransformerEngine dialects x every element format, every scale x code (blocks of the format's code count, then of 32
// and 7 in a shuffled order), and random codes with NaN/Inf and bytes beyond a narrow format
// at lengths that leave partial vectors, against dequantize_element.
TEST(Dequantizer, VectorLanesEqualTheReferenceOnEveryIsa) {
  conformance::Tally t("Dequantizer f32 lanes == dequantize_element: every ISA x dialect x element, every scale x "
                       "code, random blocks");
  SplitMix64 rng(0xDE2);
  for (Isa isa : supported_isas())
    for (const Dialect& d : all_dialects())
      for (FormatId el : kElements) {
        // The OCP dialect, and those whose dequantization rounds through f32 (no lanes): the
        // other dialects' dequantization is OCP's (the lanes check their rows all the same).
        if (&d != &ocp_dialect() && d.block.dequant_scaling == DequantScaling::exact) continue;
        const Context c;
        const std::size_t codes = std::size_t{1} << format(el).width;
        std::vector<std::uint8_t> scales, in;
        for (std::size_t b = 0; b < 256; ++b)
          for (std::size_t j = 0; j < codes; ++j) {
            scales.push_back(static_cast<std::uint8_t>(b));
            in.push_back(static_cast<std::uint8_t>(j));
          }
        for (std::size_t i = in.size() - 1; i > 0; --i) std::swap(in[i], in[rng.below(i + 1)]);
        std::vector<std::uint8_t> random(9973);
        for (auto& x : random)
          x = static_cast<std::uint8_t>(rng.below(64) == 0 ? rng.below(256) : rng.below(codes));
        const std::string what = std::string(name(isa)) + " " + std::string(d.name) + " " + std::string(format(el).name);
        Dequantizer dq(el, FormatId::f32, c, d);
        dq.set_isa(isa);
        auto check = [&](const std::vector<std::uint8_t>& data, std::size_t k, const std::vector<std::uint8_t>& sc,
                         const char* how) {
          std::vector<std::uint32_t> out(data.size(), 0xDEADBEEF);
          dq.run(sc.data(), data.data(), data.size(), k, out.data());
          std::size_t bad = 0, first = 0;
          for (std::size_t i = 0; i < data.size(); ++i)
            if (out[i] != dequantize_element(el, sc[i / k], data[i], FormatId::f32, c, d).code) {
              if (!bad) first = i;
              ++bad;
            }
          t.pass(data.size() - bad);
          if (bad)
            t.fail(what + " " + how + ": element " + std::to_string(first) + " (scale " +
                       std::to_string(sc[first / k]) + ", code " + std::to_string(data[first]) + ")",
                   bad);
        };
        std::vector<std::uint8_t> ordered(256 * codes);
        for (std::size_t i = 0; i < ordered.size(); ++i) ordered[i] = static_cast<std::uint8_t>(i % codes);
        std::vector<std::uint8_t> per_block(256);
        for (std::size_t b = 0; b < 256; ++b) per_block[b] = static_cast<std::uint8_t>(b);
        check(ordered, codes, per_block, "every scale x code");
        check(ordered, codes, per_block, "every scale x code, rows made");
        for (std::size_t k : {32u, 7u}) {
          std::vector<std::uint8_t> sc((in.size() + k - 1) / k);
          for (auto& s : sc) s = static_cast<std::uint8_t>(rng.below(256));
          check(in, k, sc, k == 32 ? "shuffled codes, k = 32" : "shuffled codes, k = 7");
          std::vector<std::uint8_t> rs((random.size() + k - 1) / k);
          for (auto& s : rs) s = static_cast<std::uint8_t>(rng.below(8) == 0 ? rng.below(256) : 100 + rng.below(50));
          check(random, k, rs, "random codes and bytes beyond the format");
        }
        // The lanes must be in use where they apply (else this test checks the tables only).
        const Format& f = format(el);
        // Sign-magnitude elements with subnormals, and two's complement fixed point (MXINT8).
        const bool shape = (f.sign == SignEncoding::magnitude && f.subnormals) ||
                           (f.sign == SignEncoding::twos_complement && f.fixed_point);
        const bool want_lanes = isa != Isa::scalar && shape && d.block.dequant_scaling == DequantScaling::exact;
        t.check(dq.lanes_active() == want_lanes, [&] {
          return what + ": lanes " + (dq.lanes_active() ? "in use" : "not in use") + ", expected otherwise";
        });
      }
  t.report();
}

TEST(Dequantizer, RejectsBadArguments) {
  Context c;
  EXPECT_THROW(Dequantizer(FormatId::f16, FormatId::f32, c), std::invalid_argument);
  Dequantizer dq(FormatId::e4m3, FormatId::f32, c);
  std::uint8_t s = 127, x = 0x38;
  std::uint32_t out = 0;
  try {
    dq.run(&s, &x, 1, 0, &out);
    ADD_FAILURE() << "k = 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block size"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dq.run(&s, &x, 1, 32, &out), 0);
  EXPECT_EQ(out, 0x3F800000u);  // e4m3 0x38 = 1.0, scale 2^0
  EXPECT_EQ(dq.run(&s, &x, 0, 32, &out), 0);  // nothing to do
}

}  // namespace
}  // namespace softmx
