// conformance/test_capi.cpp: the C API (include/softmx/softmx.h) against the C++ API.
//
// The C API is a shell over the C++ library, so every C function is checked against the C++
// function it translates, result for result and flag for flag: on every input of 8-bit and
// narrower sources under every dialect and setting, every f16 and bf16 input under a set of
// settings, and boundary and random f32/f64 inputs; blocks, tensors, NVFP4, packing and dots on
// structured and random data. Then every error path: each call below makes one error happen
// and must return its status with a message that names the argument, and nothing may throw.
//
// This test links the shared library libsoftmx.so only (softmx::c): the C++ functions it
// compares with are the ones the library exports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../capi/shell.hpp"  // the guard, for the statuses no argument provokes
#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/explain.hpp"
#include "softmx/dot.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"
#include "softmx/softmx.h"
#include "softmx/tensor_core.hpp"
#include "support/inputs.hpp"
#include "support/report.hpp"

using namespace softmx;

namespace {

softmx_format cfmt(FormatId id) {
  softmx_format f;
  EXPECT_EQ(softmx_format_named(static_cast<int32_t>(id), &f, nullptr), SOFTMX_OK);
  return f;
}

const softmx_dialect* cdialect(const Dialect& d) {
  const softmx_dialect* h = nullptr;
  EXPECT_EQ(softmx_dialect_lookup(std::string(d.name).c_str(), &h, nullptr), SOFTMX_OK);
  return h;
}

softmx_context cctx(const Dialect& d, Rounding r, Saturation s, Tininess t, std::uint8_t rbits_width = 32,
                    std::uint64_t rbits = 0) {
  softmx_context c;
  softmx_context_init(&c);
  c.rounding = static_cast<int32_t>(r);
  c.saturation = s == Saturation::finite    ? SOFTMX_SAT_FINITE
                 : s == Saturation::propagate ? SOFTMX_SAT_PROPAGATE
                                              : SOFTMX_SAT_NONE;
  c.tininess = t == Tininess::after_rounding    ? SOFTMX_TININESS_AFTER
               : t == Tininess::before_rounding ? SOFTMX_TININESS_BEFORE
                                                : SOFTMX_TININESS_AFTER_BOUNDED;
  c.rbits_width = rbits_width;
  c.rbits = rbits;
  c.dialect = cdialect(d);
  return c;
}

Context context(Rounding r, Saturation s, Tininess t, std::uint8_t rbits_width = 32, std::uint64_t rbits = 0) {
  return {.rounding = r, .saturation = s, .tininess = t, .rbits_width = rbits_width, .rbits = rbits};
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%llX", static_cast<unsigned long long>(v));
  return b;
}

// Every (rounding, saturation) the dialect accepts into dst, deterministic modes only.
std::vector<std::pair<Rounding, Saturation>> settings(const Dialect& d, FormatId dst) {
  std::vector<std::pair<Rounding, Saturation>> v;
  for (Rounding r : kDeterministicRoundings)
    for (Saturation s : {Saturation::finite, Saturation::none})
      if (!unsupported_reason(d, dst, context(r, s, Tininess::after_rounding))) v.emplace_back(r, s);
  return v;
}

std::vector<std::uint64_t> all_codes(FormatId f) {
  std::vector<std::uint64_t> v(std::size_t{1} << format(f).width);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

// Codes of `src` in its storage type, as bytes.
std::vector<unsigned char> stored(FormatId f, const std::vector<std::uint64_t>& codes) {
  const int w = format(f).width;
  const std::size_t b = w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
  std::vector<unsigned char> out(codes.size() * b);
  for (std::size_t i = 0; i < codes.size(); ++i) std::memcpy(out.data() + i * b, &codes[i], b);  // little-endian
  return out;
}

std::uint64_t load(const std::vector<unsigned char>& bytes, std::size_t b, std::size_t i) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes.data() + i * b, b);
  return v;
}

std::size_t storage(FormatId f) {
  const int w = format(f).width;
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

// Counts the cases each test compares (reported at its end, and in the conformance summary).
std::size_t g_cases = 0;

void report(const char* check, std::size_t cases) {
  conformance::Tally t(std::string("capi: ") + check);
  t.pass(cases);
  t.report();
}

// Checks softmx_convert against softmx::convert on every code of `inputs`, and the batch and
// converter forms against softmx::Converter.
void check_conversion(FormatId src, FormatId dst, const Dialect& d, Rounding r, Saturation s, Tininess t,
                      const std::vector<std::uint64_t>& inputs, bool scalar = true) {
  const softmx_format cs = cfmt(src), cd = cfmt(dst);
  const softmx_context cc = cctx(d, r, s, t);
  const Context ctx = context(r, s, t);
  const Converter conv(src, dst, ctx, d);
  softmx_error err;
  if (scalar)
    for (std::uint64_t x : inputs) {
      std::uint64_t code = ~0ull;
      std::uint8_t flags = 0xFF;
      ASSERT_EQ(softmx_convert(&cs, &cd, x, &cc, &code, &flags, &err), SOFTMX_OK) << err.message;
      const Result want = convert(src, dst, x, ctx, d);
      ASSERT_EQ(code, want.code) << format(src).name << " " << hex(x) << " -> " << format(dst).name << " "
                                 << d.name << " " << name(r) << " " << name(s);
      ASSERT_EQ(flags, want.flags) << format(src).name << " " << hex(x) << " -> " << format(dst).name;
    }
  // The batch, through a converter and without one, with and without flags.
  const auto in = stored(src, inputs);
  const std::size_t ob = storage(dst), n = inputs.size();
  std::vector<unsigned char> out(n * ob), want(n * ob), out2(n * ob);
  std::vector<std::uint8_t> flags(n), want_flags(n);
  conv.run(in.data(), want.data(), want_flags.data(), n);
  ASSERT_EQ(softmx_convert_batch(&cs, &cd, &cc, in.data(), out.data(), flags.data(), n, nullptr, &err), SOFTMX_OK)
      << err.message;
  ASSERT_EQ(out, want);
  ASSERT_EQ(flags, want_flags);
  softmx_converter* h = nullptr;
  ASSERT_EQ(softmx_converter_new(&cs, &cd, &cc, &h, &err), SOFTMX_OK) << err.message;
  ASSERT_EQ(softmx_converter_run(h, in.data(), out2.data(), nullptr, n, nullptr, &err), SOFTMX_OK) << err.message;
  ASSERT_EQ(out2, want);
  for (std::size_t i = 0; i < n; i += 7) {  // the single-value converter, on a sample
    std::uint64_t code;
    std::uint8_t f;
    ASSERT_EQ(softmx_converter_convert(h, inputs[i], &code, &f, &err), SOFTMX_OK);
    ASSERT_EQ(code, load(want, ob, i));
    ASSERT_EQ(f, want_flags[i]);
  }
  softmx_converter_free(h);
  g_cases += n * (scalar ? 3 : 2);
}

constexpr FormatId kAll[] = {FormatId::f64,  FormatId::f32,  FormatId::f16,  FormatId::bf16,
                             FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3,
                             FormatId::e2m1, FormatId::int8, FormatId::e8m0};
constexpr FormatId kElements[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2,
                                  FormatId::e2m3, FormatId::e2m1, FormatId::int8};

/// A C descriptor's fields and name against the C++ descriptor they were filled from.
void expect_fields(const softmx_format& c, const Format& f) {
  EXPECT_EQ(c.width, f.width) << f.name;
  EXPECT_EQ(c.exp_bits, f.exp_bits) << f.name;
  EXPECT_EQ(c.man_bits, f.man_bits) << f.name;
  EXPECT_EQ(c.bias, f.bias) << f.name;
  EXPECT_EQ(c.sign, static_cast<int32_t>(f.sign)) << f.name;
  EXPECT_EQ(c.specials, static_cast<int32_t>(f.specials)) << f.name;
  EXPECT_EQ(c.subnormals, f.subnormals ? 1 : 0) << f.name;
  EXPECT_EQ(c.fixed_point, f.fixed_point ? 1 : 0) << f.name;
  EXPECT_EQ(std::string(c.name), std::string(f.name));
}

}  // namespace

// ---- versions, names, lookups ---------------------------------------------------------------

TEST(CApi, Versions) {
  EXPECT_EQ(softmx_abi_version(), SOFTMX_ABI_VERSION);
  const std::string v = std::to_string(SOFTMX_VERSION_MAJOR) + "." + std::to_string(SOFTMX_VERSION_MINOR) + "." +
                        std::to_string(SOFTMX_VERSION_PATCH);
  EXPECT_EQ(std::string(softmx_version()), v);
}

TEST(CApi, StatusNames) {
  const char* names[] = {"SOFTMX_OK",
                         "SOFTMX_ERR_NULL_POINTER",
                         "SOFTMX_ERR_UNKNOWN_NAME",
                         "SOFTMX_ERR_INVALID_ARGUMENT",
                         "SOFTMX_ERR_BAD_CODE",
                         "SOFTMX_ERR_UNSUPPORTED",
                         "SOFTMX_ERR_SHAPE",
                         "SOFTMX_ERR_BUFFER_TOO_SMALL",
                         "SOFTMX_ERR_OUT_OF_MEMORY",
                         "SOFTMX_ERR_INTERNAL"};
  for (int i = 0; i < 10; ++i) EXPECT_STREQ(softmx_status_name(i), names[i]);
  EXPECT_STREQ(softmx_status_name(10), "SOFTMX_ERR_?");
  EXPECT_STREQ(softmx_status_name(-1), "SOFTMX_ERR_?");
}

TEST(CApi, EnumerationNames) {
  for (int i = 0; i < kRoundingCount; ++i) {
    const std::string_view want = name(static_cast<Rounding>(i));
    ASSERT_NE(softmx_rounding_name(i), nullptr);
    EXPECT_EQ(std::strlen(softmx_rounding_name(i)), want.size());
    EXPECT_EQ(softmx_rounding_name(i), want);
    int32_t back = -5;
    EXPECT_EQ(softmx_rounding_from_name(std::string(want).c_str(), &back, nullptr), SOFTMX_OK);
    EXPECT_EQ(back, i);
  }
  EXPECT_EQ(softmx_rounding_name(7), nullptr);
  EXPECT_EQ(softmx_rounding_name(-1), nullptr);
  int32_t v = -5;
  EXPECT_EQ(softmx_rounding_from_name("Nearest-Away", &v, nullptr), SOFTMX_OK);  // an alias, any case
  EXPECT_EQ(v, SOFTMX_ROUND_RNA);
  // Saturation and tininess: each value's name, no name for 3, and two names read back.
  struct EnumNames {
    const char* (*name)(int32_t);
    int (*from_name)(const char*, int32_t*, softmx_error*);
    std::vector<std::pair<int32_t, const char*>> named;
    std::vector<std::pair<const char*, int32_t>> parsed;
  };
  const EnumNames enums[] = {
      {softmx_saturation_name, softmx_saturation_from_name,
       {{SOFTMX_SAT_FINITE, "finite"}, {SOFTMX_SAT_NONE, "none"}, {SOFTMX_SAT_PROPAGATE, "propagate"}},
       {{"satfinite", SOFTMX_SAT_FINITE}, {"nonsat", SOFTMX_SAT_NONE}}},
      {softmx_tininess_name, softmx_tininess_from_name,
       {{SOFTMX_TININESS_AFTER, "after"}, {SOFTMX_TININESS_BEFORE, "before"}, {SOFTMX_TININESS_AFTER_BOUNDED, "after-bounded"}},
       {{"before", SOFTMX_TININESS_BEFORE}, {"after-bounded", SOFTMX_TININESS_AFTER_BOUNDED}}},
  };
  for (const EnumNames& e : enums) {
    for (const auto& [code, want] : e.named) EXPECT_STREQ(e.name(code), want);
    EXPECT_EQ(e.name(3), nullptr);
    for (const auto& [text, want] : e.parsed) {
      EXPECT_EQ(e.from_name(text, &v, nullptr), SOFTMX_OK);
      EXPECT_EQ(v, want);
    }
  }
  // The rule through a conversion: f32 38600000 rounds up to e5m2's min normal 04: underflow
  // after rounding (unbounded range), not after rounding in e5m2's bounded range (FPnew).
  {
    softmx_context c = cctx(ocp_dialect(), Rounding::rne, Saturation::finite, Tininess::after_rounding);
    std::uint64_t code = 0;
    std::uint8_t fl = 0;
    softmx_format f32f, e5m2f;
    ASSERT_EQ(softmx_format_lookup("f32", &f32f, nullptr), SOFTMX_OK);
    ASSERT_EQ(softmx_format_lookup("e5m2", &e5m2f, nullptr), SOFTMX_OK);
    ASSERT_EQ(softmx_convert(&f32f, &e5m2f, 0x38600000u, &c, &code, &fl, nullptr), SOFTMX_OK);
    EXPECT_EQ(code, 0x04u);
    EXPECT_EQ(fl, 0x03u);
    c.tininess = SOFTMX_TININESS_AFTER_BOUNDED;
    ASSERT_EQ(softmx_convert(&f32f, &e5m2f, 0x38600000u, &c, &code, &fl, nullptr), SOFTMX_OK);
    EXPECT_EQ(code, 0x04u);
    EXPECT_EQ(fl, 0x01u);
    c.tininess = 7;
    EXPECT_NE(softmx_convert(&f32f, &e5m2f, 0x38600000u, &c, &code, &fl, nullptr), SOFTMX_OK);
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(softmx_scale_rule_name(i), name(static_cast<ScaleRule>(i)));
    EXPECT_EQ(softmx_scale_rule_from_name(softmx_scale_rule_name(i), &v, nullptr), SOFTMX_OK);
    EXPECT_EQ(v, i);
  }
  EXPECT_EQ(softmx_scale_rule_name(4), nullptr);
  for (int i = 0; i < 3; ++i) {
    EXPECT_STREQ(softmx_isa_name(i), name(static_cast<Isa>(i)));
    EXPECT_EQ(softmx_isa_supported(i), isa_supported(static_cast<Isa>(i)) ? 1 : 0);
  }
  EXPECT_EQ(softmx_isa_name(3), nullptr);
  EXPECT_EQ(softmx_isa_supported(3), 0);
}

TEST(CApi, Formats) {
  EXPECT_EQ(softmx_format_count(), kFormatCount);
  for (const Format& f : all_formats()) {
    softmx_format c;
    ASSERT_EQ(softmx_format_named(static_cast<int32_t>(f.id), &c, nullptr), SOFTMX_OK);
    EXPECT_EQ(c.id, static_cast<int32_t>(f.id));
    expect_fields(c, f);
    EXPECT_EQ(softmx_storage_bytes(&c), storage(f.id));
    softmx_format l;
    ASSERT_EQ(softmx_format_lookup(std::string(f.name).c_str(), &l, nullptr), SOFTMX_OK);
    EXPECT_EQ(std::memcmp(&l, &c, sizeof c), 0);
  }
  // Aliases resolve as the C++ parser resolves them.
  for (const char* alias : {"fp32", "HALF", "bfloat16", "float8_e4m3fn", "fp8e5m2", "fp6e3m2", "fp6e2m3", "fp4",
                            "mxint8", "ue8m0", "float8_e8m0fnu", "double"}) {
    softmx_format l;
    ASSERT_EQ(softmx_format_lookup(alias, &l, nullptr), SOFTMX_OK) << alias;
    EXPECT_EQ(l.id, static_cast<int32_t>(*parse_format(alias))) << alias;
  }
  // The constants are FormatId's order.
  EXPECT_EQ(SOFTMX_FORMAT_F32, static_cast<int>(FormatId::f32));
  EXPECT_EQ(SOFTMX_FORMAT_E2M1, static_cast<int>(FormatId::e2m1));
  EXPECT_EQ(SOFTMX_FORMAT_E8M0, static_cast<int>(FormatId::e8m0));
  EXPECT_EQ(SOFTMX_SPECIALS_NONE, static_cast<int>(Specials::none));
  EXPECT_EQ(SOFTMX_SIGN_TWOS_COMPLEMENT, static_cast<int>(SignEncoding::twos_complement));
}

TEST(CApi, Dialects) {
  ASSERT_EQ(softmx_dialect_count(), all_dialects().size());
  EXPECT_EQ(softmx_dialect_at(all_dialects().size()), nullptr);
  EXPECT_STREQ(softmx_dialect_name(nullptr), "ocp");
  for (std::size_t i = 0; i < all_dialects().size(); ++i) {
    const Dialect& d = all_dialects()[i];
    const softmx_dialect* h = softmx_dialect_at(i);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(std::strlen(softmx_dialect_name(h)), d.name.size());
    EXPECT_EQ(softmx_dialect_name(h), d.name);
    EXPECT_EQ(softmx_dialect_summary(h), d.summary);
    EXPECT_EQ(cdialect(d), h);
    for (FormatId f : kAll) {
      const softmx_format cf = cfmt(f);
      uint32_t rm = 0, sm = 0;
      int32_t dr = -5, ds = -5;
      ASSERT_EQ(softmx_dialect_support(h, &cf, &rm, &sm, &dr, &ds, nullptr), SOFTMX_OK);
      const DestinationSupport& s = d.support[static_cast<int>(f)];
      EXPECT_EQ(rm, s.roundings);
      EXPECT_EQ((sm >> SOFTMX_SAT_FINITE) & 1u, (s.saturations & saturation_bit(Saturation::finite)) ? 1u : 0u);
      EXPECT_EQ((sm >> SOFTMX_SAT_NONE) & 1u, (s.saturations & saturation_bit(Saturation::none)) ? 1u : 0u);
      EXPECT_EQ(dr, static_cast<int32_t>(s.default_rounding));
      EXPECT_EQ(ds, s.default_saturation == Saturation::finite ? SOFTMX_SAT_FINITE : SOFTMX_SAT_NONE);
      // check_support agrees with unsupported_reason, message included.
      for (Rounding r : kDeterministicRoundings)
        for (Saturation sat : {Saturation::finite, Saturation::none}) {
          const softmx_context c = cctx(d, r, sat, Tininess::after_rounding);
          softmx_error err;
          const auto why = unsupported_reason(d, f, context(r, sat, Tininess::after_rounding));
          const int st = softmx_check_support(&cf, &c, &err);
          if (why) {
            EXPECT_EQ(st, SOFTMX_ERR_UNSUPPORTED);
            EXPECT_EQ(err.code, SOFTMX_ERR_UNSUPPORTED);
            EXPECT_EQ(std::string(err.message), "softmx_check_support: " + *why);
          } else {
            EXPECT_EQ(st, SOFTMX_OK) << err.message;
            EXPECT_EQ(err.code, SOFTMX_OK);
            EXPECT_STREQ(err.message, "");
          }
        }
    }
  }
}

// ---- conversion -----------------------------------------------------------------------------------

// Every code of every source of at most 8 bits, into every format, under every dialect and every
// setting it accepts, both tininess rules.
TEST(CApiConvert, EveryNarrowSourceEveryDialectEverySetting) {
  const std::size_t before = g_cases;
  for (const Dialect& d : all_dialects())
    for (FormatId src : kAll) {
      if (format(src).width > 8) continue;
      const auto inputs = all_codes(src);
      for (FormatId dst : kAll)
        for (auto [r, s] : settings(d, dst))
          for (Tininess t : {Tininess::after_rounding, Tininess::before_rounding})
            check_conversion(src, dst, d, r, s, t, inputs);
    }
  report("C vs C++ conversion, every code of every source of at most 8 bits, every dialect x setting", g_cases - before);
}

// Every f16 and bf16 input into every format: scalar and batch under ocp, every setting; batch
// under every other dialect with its default rounding and every saturation it accepts.
TEST(CApiConvert, EverySixteenBitInput) {
  const std::size_t before = g_cases;
  for (FormatId src : {FormatId::f16, FormatId::bf16}) {
    const auto inputs = all_codes(src);
    for (const Dialect& d : all_dialects()) {
      const bool scalar = d.name == "ocp";
      for (FormatId dst : kAll)
        for (auto [r, s] : settings(d, dst)) {
          if (!scalar && r != d.support[static_cast<int>(dst)].default_rounding) continue;
          check_conversion(src, dst, d, r, s, Tininess::after_rounding, inputs, scalar);
        }
    }
    check_conversion(src, FormatId::e4m3, ocp_dialect(), Rounding::rne, Saturation::finite,
                     Tininess::before_rounding, inputs);
  }
  report("C vs C++ conversion, every f16 and bf16 input", g_cases - before);
}

// f32 and f64: every rounding boundary and specials of each destination, and random inputs.
TEST(CApiConvert, WideSourcesBoundaryAndRandom) {
  const std::size_t before = g_cases;
  for (FormatId src : {FormatId::f32, FormatId::f64})
    for (FormatId dst : kAll) {
      if (dst == src) continue;
      // The boundary inputs (a sample of at most 20000 where they are more: f16, bf16), random
      // inputs and the specials.
      const auto bound = conformance::boundary_inputs(src, dst, 1);
      std::vector<std::uint64_t> inputs;
      const std::size_t step = bound.size() / 20000 + 1;
      for (std::size_t i = 0; i < bound.size(); i += step) inputs.push_back(bound[i]);
      const auto rnd = conformance::random_inputs(src, dst, 20000, 16 + static_cast<int>(dst));
      const auto sp = conformance::special_inputs(src);
      inputs.insert(inputs.end(), rnd.begin(), rnd.end());
      inputs.insert(inputs.end(), sp.begin(), sp.end());
      for (const Dialect& d : all_dialects())
        for (auto [r, s] : settings(d, dst)) {
          const bool all = d.name == "ocp";
          if (!all && r != d.support[static_cast<int>(dst)].default_rounding) continue;
          check_conversion(src, dst, d, r, s, Tininess::after_rounding, inputs, all || src == FormatId::f32);
        }
    }
  report("C vs C++ conversion, f32 and f64 boundary and random inputs", g_cases - before);
}

// Stochastic rounding: the context's rbits for one value, each element's own in a batch, and the
// converter's per-call form, at several widths.
TEST(CApiConvert, StochasticRounding) {
  SplitMix64 rng(7);
  for (FormatId src : {FormatId::f32, FormatId::f16, FormatId::e5m2})
    for (FormatId dst : {FormatId::e4m3, FormatId::e2m1, FormatId::bf16, FormatId::int8, FormatId::e8m0})
      for (std::uint8_t w : {1, 3, 8, 23, 32, 64}) {
        const softmx_format cs = cfmt(src), cd = cfmt(dst);
        const std::size_t n = 3000;
        std::vector<std::uint64_t> in(n), rb(n);
        for (std::size_t i = 0; i < n; ++i) {
          in[i] = rng.next() & format(src).code_mask();
          rb[i] = w == 64 ? rng.next() : rng.next() >> (64 - w);
        }
        softmx_error err;
        for (std::size_t i = 0; i < n; i += 11) {
          const softmx_context c = cctx(ocp_dialect(), Rounding::rs, Saturation::finite, Tininess::after_rounding, w, rb[i]);
          std::uint64_t code;
          std::uint8_t f;
          ASSERT_EQ(softmx_convert(&cs, &cd, in[i], &c, &code, &f, &err), SOFTMX_OK) << err.message;
          const Result want = convert(src, dst, in[i], context(Rounding::rs, Saturation::finite, Tininess::after_rounding, w, rb[i]));
          ASSERT_EQ(code, want.code);
          ASSERT_EQ(f, want.flags);
        }
        const softmx_context c = cctx(ocp_dialect(), Rounding::rs, Saturation::finite, Tininess::after_rounding, w);
        const Converter conv(src, dst, context(Rounding::rs, Saturation::finite, Tininess::after_rounding, w));
        const auto bytes = stored(src, in);
        std::vector<unsigned char> out(n * storage(dst)), want(n * storage(dst));
        std::vector<std::uint8_t> fl(n), wfl(n);
        conv.run(bytes.data(), want.data(), wfl.data(), n, rb.data());
        ASSERT_EQ(softmx_convert_batch(&cs, &cd, &c, bytes.data(), out.data(), fl.data(), n, rb.data(), &err), SOFTMX_OK)
            << err.message;
        ASSERT_EQ(out, want);
        ASSERT_EQ(fl, wfl);
        softmx_converter* h;
        ASSERT_EQ(softmx_converter_new(&cs, &cd, &c, &h, &err), SOFTMX_OK);
        for (std::size_t i = 0; i < n; i += 13) {
          std::uint64_t code;
          std::uint8_t f;
          ASSERT_EQ(softmx_converter_convert_rs(h, in[i], rb[i], &code, &f, &err), SOFTMX_OK) << err.message;
          const Result x = conv(in[i], rb[i]);
          ASSERT_EQ(code, x.code);
          ASSERT_EQ(f, x.flags);
        }
        softmx_converter_free(h);
        g_cases += n + n / 11 + n / 13;
      }
}

// SOFTMX_DEFAULT is what the dialect uses for the destination (as the command line without
// --round and --sat); the converter reports what it resolved.
TEST(CApiConvert, DefaultsFollowTheDialect) {
  for (const Dialect& d : all_dialects())
    for (FormatId dst : kAll) {
      const DestinationSupport& s = d.support[static_cast<int>(dst)];
      if (s.roundings == 0) continue;
      softmx_context c;
      softmx_context_init(&c);
      c.dialect = cdialect(d);
      const softmx_format cs = cfmt(FormatId::f32), cd = cfmt(dst);
      softmx_converter* h = nullptr;
      softmx_error err;
      ASSERT_EQ(softmx_converter_new(&cs, &cd, &c, &h, &err), SOFTMX_OK) << d.name << " " << err.message;
      softmx_context got;
      softmx_format gs, gd;
      ASSERT_EQ(softmx_converter_info(h, &gs, &gd, &got, &err), SOFTMX_OK);
      EXPECT_EQ(got.rounding, static_cast<int32_t>(s.default_rounding)) << d.name << " " << format(dst).name;
      EXPECT_EQ(got.saturation, s.default_saturation == Saturation::finite ? SOFTMX_SAT_FINITE : SOFTMX_SAT_NONE);
      EXPECT_EQ(got.dialect, c.dialect);
      EXPECT_EQ(gs.id, SOFTMX_FORMAT_F32);
      EXPECT_EQ(gd.id, static_cast<int32_t>(dst));
      softmx_converter_free(h);
      // And the results are those of the C++ API with the dialect's defaults.
      Context want_ctx;
      want_ctx.rounding = s.default_rounding;
      want_ctx.saturation = s.default_saturation;
      for (std::uint64_t x : {0x43E80000ull, 0x3F880000ull, 0x7F800000ull, 0x00000001ull, 0xC7000000ull}) {
        std::uint64_t code;
        std::uint8_t f;
        ASSERT_EQ(softmx_convert(&cs, &cd, x, &c, &code, &f, &err), SOFTMX_OK);
        const Result want = convert(FormatId::f32, dst, x, want_ctx, d);
        EXPECT_EQ(code, want.code);
        EXPECT_EQ(f, want.flags);
      }
    }
  // A null context is SOFTMX_CONTEXT_INIT: just above 464 into e4m3 under ocp overflows and
  // saturates to 448.
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3);
  std::uint64_t code;
  std::uint8_t f;
  ASSERT_EQ(softmx_convert(&f32, &e4m3, 0x43E80001, nullptr, &code, &f, nullptr), SOFTMX_OK);
  EXPECT_EQ(code, 0x7Eu);
  EXPECT_EQ(f, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT);
}

TEST(CApiConvert, EveryInstructionSet) {
  const softmx_format cs = cfmt(FormatId::f32), cd = cfmt(FormatId::e5m2);
  softmx_converter* h;
  ASSERT_EQ(softmx_converter_new(&cs, &cd, nullptr, &h, nullptr), SOFTMX_OK);
  const Converter conv(FormatId::f32, FormatId::e5m2, Context{});
  const auto inputs = conformance::random_inputs(FormatId::f32, FormatId::e5m2, 50000, 3);
  const auto in = stored(FormatId::f32, inputs);
  std::vector<unsigned char> want(inputs.size()), out(inputs.size());
  std::vector<std::uint8_t> wf(inputs.size()), f(inputs.size());
  run_on(conv, Isa::scalar, in.data(), want.data(), wf.data(), inputs.size());
  for (int isa = 0; isa < 3; ++isa) {
    softmx_error err;
    const int st = softmx_converter_run_on(h, isa, in.data(), out.data(), f.data(), inputs.size(), nullptr, &err);
    if (!isa_supported(static_cast<Isa>(isa))) {
      EXPECT_EQ(st, SOFTMX_ERR_UNSUPPORTED);
      EXPECT_NE(std::string(err.message).find("this CPU cannot run"), std::string::npos);
      continue;
    }
    ASSERT_EQ(st, SOFTMX_OK) << err.message;
    EXPECT_EQ(out, want) << softmx_isa_name(isa);
    EXPECT_EQ(f, wf);
  }
  softmx_converter_free(h);
}

// One converter shared by threads (its functions only read it).
TEST(CApiConvert, ConverterSharedByThreads) {
  const softmx_format cs = cfmt(FormatId::f16), cd = cfmt(FormatId::e2m1);
  softmx_converter* h;
  ASSERT_EQ(softmx_converter_new(&cs, &cd, nullptr, &h, nullptr), SOFTMX_OK);
  const Converter conv(FormatId::f16, FormatId::e2m1, Context{});
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::uint64_t x = static_cast<std::uint64_t>(t); x < 65536; x += 4) {
        std::uint64_t code;
        std::uint8_t f;
        softmx_error err;
        if (softmx_converter_convert(h, x, &code, &f, &err) != SOFTMX_OK || code != conv(x).code || f != conv(x).flags)
          ++bad[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
  softmx_converter_free(h);
}

// ---- blocks ----------------------------------------------------------------------------------------

namespace {

// A block of values of `src` that exercises a quantizer: mixed binades, one special now and then.
std::vector<std::uint64_t> random_block(FormatId src, std::size_t k, SplitMix64& rng) {
  const auto pool = conformance::random_inputs(src, FormatId::e4m3, k, rng.next());
  std::vector<std::uint64_t> v(pool.begin(), pool.end());
  if (rng.below(4) == 0) v[rng.below(k)] = conformance::special_inputs(src)[rng.below(conformance::special_inputs(src).size())];
  return v;
}

int32_t nearest_even_rule(void* user, int32_t exp, uint64_t, int32_t, const softmx_format* element) {
  ++*static_cast<int*>(user);
  return exp - (element->width > 6 ? 8 : 2);
}

}  // namespace

TEST(CApiBlocks, QuantizeBlockEveryDialectRuleAndElement) {
  SplitMix64 rng(11);
  std::size_t cases = 0;
  for (const Dialect& d : all_dialects()) {
    if (!d.block.unsupported.empty()) continue;
    for (FormatId src : {FormatId::f32, FormatId::f16, FormatId::bf16, FormatId::f64})
      for (FormatId el : kElements)
        for (int rule = -1; rule < 4; ++rule)
          for (std::size_t k : {1u, 7u, 32u}) {
            const softmx_format cs = cfmt(src), ce = cfmt(el);
            softmx_block_options o;
            softmx_block_options_init(&o);
            o.element = &ce;
            o.dialect = cdialect(d);
            o.scale_rule = rule;
            BlockOptions b;
            b.element = el;
            b.dialect = &d;
            if (rule >= 0) b.rule = static_cast<ScaleRule>(rule);
            for (int rep = 0; rep < 4; ++rep) {
              const auto vals = random_block(src, k, rng);
              const auto bytes = stored(src, vals);
              std::uint8_t scale = 0, flags = 0;
              std::vector<std::uint8_t> codes(k);
              softmx_error err;
              int st = softmx_quantize_block(&cs, bytes.data(), k, &o, &scale, codes.data(), &flags, &err);
              QuantizedBlock want;
              try {
                want = quantize_block(src, bytes.data(), k, b);
              } catch (const Unsupported& e) {
                EXPECT_EQ(st, SOFTMX_ERR_UNSUPPORTED) << e.what();
                EXPECT_EQ(std::string(err.message), std::string("softmx_quantize_block: ") + e.what());
                continue;
              }
              ASSERT_EQ(st, SOFTMX_OK) << err.message;
              ASSERT_EQ(scale, want.scale) << d.name << " " << format(el).name;
              ASSERT_EQ(codes, want.codes);
              ASSERT_EQ(flags, want.flags);
              ++cases;
            }
          }
  }
  report("C vs C++ quantize_block, every dialect x rule x element x source", cases);
}

TEST(CApiBlocks, QuantizeOptionsRoundingSaturationTininessRsIsaCustomRule) {
  SplitMix64 rng(12);
  const softmx_format cs = cfmt(FormatId::f32);
  for (FormatId el : kElements)
    for (Rounding r : {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro, Rounding::rs})
      for (Saturation s : {Saturation::finite, Saturation::none})
        for (Tininess t : {Tininess::after_rounding, Tininess::before_rounding}) {
          const softmx_format ce = cfmt(el);
          const std::size_t k = 32;
          std::vector<std::uint64_t> rb(k);
          for (auto& x : rb) x = rng.next() >> 40;
          softmx_block_options o;
          softmx_block_options_init(&o);
          o.element = &ce;
          o.rounding = static_cast<int32_t>(r);
          o.saturation = s == Saturation::finite ? SOFTMX_SAT_FINITE : SOFTMX_SAT_NONE;
          o.tininess = t == Tininess::after_rounding ? SOFTMX_TININESS_AFTER : SOFTMX_TININESS_BEFORE;
          o.rbits_width = 24;
          o.rbits = rb.data();
          o.rbits_count = k;
          o.isa = SOFTMX_ISA_SCALAR;
          BlockOptions b;
          b.element = el;
          b.rounding = r;
          b.saturation = s;
          b.tininess = t;
          b.rbits_width = 24;
          b.rbits = rb;
          b.isa = Isa::scalar;
          for (int rep = 0; rep < 6; ++rep) {
            const auto vals = random_block(FormatId::f32, k, rng);
            const auto bytes = stored(FormatId::f32, vals);
            std::uint8_t scale, flags;
            std::vector<std::uint8_t> codes(k);
            softmx_error err;
            ASSERT_EQ(softmx_quantize_block(&cs, bytes.data(), k, &o, &scale, codes.data(), &flags, &err), SOFTMX_OK)
                << err.message;
            const QuantizedBlock want = quantize_block(FormatId::f32, bytes.data(), k, b);
            ASSERT_EQ(scale, want.scale);
            ASSERT_EQ(codes, want.codes);
            ASSERT_EQ(flags, want.flags);
          }
        }
  // A custom scale rule: the C callback sees amax and the element format, as the C++ rule does.
  int calls = 0;
  const softmx_format ce = cfmt(FormatId::e4m3);
  softmx_block_options o;
  softmx_block_options_init(&o);
  o.element = &ce;
  o.custom_rule = nearest_even_rule;
  o.custom_rule_user = &calls;
  BlockOptions b;
  b.custom_rule = [](const Unpacked& amax, const Format& f) { return amax.exp - (f.width > 6 ? 8 : 2); };
  for (int rep = 0; rep < 50; ++rep) {
    const auto vals = random_block(FormatId::f32, 32, rng);
    const auto bytes = stored(FormatId::f32, vals);
    std::uint8_t scale, flags;
    std::vector<std::uint8_t> codes(32);
    ASSERT_EQ(softmx_quantize_block(&cs, bytes.data(), 32, &o, &scale, codes.data(), &flags, nullptr), SOFTMX_OK);
    const QuantizedBlock want = quantize_block(FormatId::f32, bytes.data(), 32, b);
    ASSERT_EQ(scale, want.scale);
    ASSERT_EQ(codes, want.codes);
    ASSERT_EQ(flags, want.flags);
  }
  EXPECT_GT(calls, 0);
}

// Scale formats other than E8M0 (docs/BLOCKS.md 1.2): options.scale_format took reserved[0]'s
// place without changing the struct's size; a runtime ue4m3 descriptor (filled by hand) and the
// named e4m3 give the C++ bytes; the *_scaled dequantize entry points equal the C++ calls.
static_assert(sizeof(void*) != 8 || sizeof(softmx_block_options) == 88, "softmx_block_options changed size");

// Scale formats wider than a byte (bf16, f16, f32, and a runtime e5m10: 2 or 4 bytes per code in
// every scale buffer): the C entry points equal the C++ library, and buffers are sized in bytes.
TEST(CApiBlocks, WideScaleFormats) {
  softmx_format e5m10{};
  softmx_error lerr{};
  ASSERT_EQ(softmx_format_lookup("e5m10", &e5m10, &lerr), SOFTMX_OK) << lerr.message;
  const softmx_format cs = cfmt(FormatId::f32), ce = cfmt(FormatId::e4m3), cd = cfmt(FormatId::f32),
                      cbf = cfmt(FormatId::bf16), cf16 = cfmt(FormatId::f16), cf32 = cfmt(FormatId::f32);
  SplitMix64 rng(0x3E);
  for (const softmx_format* sf : {&cbf, &cf16, &cf32, static_cast<const softmx_format*>(&e5m10)}) {
    const Format sfc = sf == &cbf ? format(FormatId::bf16) : sf == &cf32 ? format(FormatId::f32) : format(FormatId::f16);
    std::size_t sb = 0;
    softmx_error err{};
    ASSERT_EQ(softmx_scale_code_bytes(sf, &sb, &err), SOFTMX_OK) << err.message;
    ASSERT_EQ(sb, sf == &cf32 ? 4u : 2u);
    softmx_block_options o;
    softmx_block_options_init(&o);
    o.element = &ce;
    o.scale_format = sf;
    BlockOptions b;
    b.element = FormatId::e4m3;
    b.scale_format = sfc;  // e5m10 is f16's layout: the same descriptor once canonical
    // One block.
    const auto vals = random_block(FormatId::f32, 16, rng);
    const auto bytes = stored(FormatId::f32, vals);
    std::uint8_t sbuf[4] = {0xEE, 0xEE, 0xEE, 0xEE}, flags = 0;
    std::vector<std::uint8_t> codes(16);
    ASSERT_EQ(softmx_quantize_block(&cs, bytes.data(), 16, &o, sbuf, codes.data(), &flags, &err), SOFTMX_OK)
        << err.message;
    const QuantizedBlock want = quantize_block(FormatId::f32, bytes.data(), 16, b);
    EXPECT_EQ(load_scale_code(sbuf, 0, sb), want.scale);
    if (sb == 2) {
      EXPECT_EQ(sbuf[2], 0xEE);  // no byte beyond the code is written
    }
    EXPECT_EQ(codes, want.codes);
    // A tensor of 3 x 40 along axis 1 in blocks of 16: 3 x 3 scales of sb bytes.
    std::vector<std::uint64_t> tv;
    for (int r = 0; r < 3; ++r)
      for (auto v : random_block(FormatId::f32, 40, rng)) tv.push_back(v);
    const auto tb = stored(FormatId::f32, tv);
    const std::size_t shape[] = {3, 40};
    std::vector<std::uint8_t> sc(9 * sb), tc(120);
    EXPECT_EQ(softmx_quantize_tensor(&cs, tb.data(), shape, 2, 1, 16, &o, sc.data(), 9 * sb - 1, tc.data(), 120,
                                     nullptr, &err),
              SOFTMX_ERR_BUFFER_TOO_SMALL);
    ASSERT_EQ(softmx_quantize_tensor(&cs, tb.data(), shape, 2, 1, 16, &o, sc.data(), 9 * sb, tc.data(), 120, nullptr,
                                     &err),
              SOFTMX_OK)
        << err.message;
    const MxTensor t = quantize_tensor(FormatId::f32, tb.data(), shape, 1, 16, b);
    EXPECT_EQ(sc, t.scales);
    EXPECT_EQ(tc, t.codes);
    // Back, three ways, against the C++ element call.
    std::vector<std::uint32_t> o1(120), o2(120);
    ASSERT_EQ(softmx_dequantize_scaled(&ce, sf, &cd, nullptr, sc.data(), tc.data(), 120, 40, o1.data(), nullptr, nullptr,
                                       &err),
              SOFTMX_OK)
        << err.message;  // read as 120 codes in blocks of 40: scales 0, 1, 2 of the buffer
    ASSERT_EQ(softmx_dequantize_tensor_scaled(&ce, sf, shape, 2, 1, 16, sc.data(), 9, tc.data(), 120, &cd, nullptr,
                                              o2.data(), 120, nullptr, &err),
              SOFTMX_OK)
        << err.message;
    const Context ctx = resolve(ocp_dialect(), FormatId::f32, Context{});
    for (std::size_t i = 0; i < 120; ++i) {
      const std::uint32_t s2 = load_scale_code(sc.data(), (i / 40) * 3 + (i % 40) / 16, sb);
      std::uint64_t r = 0;
      ASSERT_EQ(softmx_dequantize_element_scaled(&ce, sf, s2, tc[i], &cd, nullptr, &r, nullptr, &err), SOFTMX_OK);
      const Result w = dequantize_element(format(FormatId::e4m3), b.scale_format, s2, tc[i], FormatId::f32, ctx);
      EXPECT_EQ(r, w.code) << i;
      EXPECT_EQ(o2[i], w.code) << i;
      const Result w1 = dequantize_element(format(FormatId::e4m3), b.scale_format, load_scale_code(sc.data(), i / 40, sb),
                                           tc[i], FormatId::f32, ctx);
      EXPECT_EQ(o1[i], w1.code) << i;
    }
    // A code beyond a 16-bit format's width.
    if (sb == 2) {
      std::uint64_t r = 0;
      EXPECT_EQ(softmx_dequantize_element_scaled(&ce, sf, 0x10000, 0x38, &cd, nullptr, &r, nullptr, &err),
                SOFTMX_ERR_BAD_CODE);
      EXPECT_NE(std::string(err.message).find("0x10000"), std::string::npos) << err.message;
    }
  }
  // DotGeneral with f32 scales 0.5 (3F000000) and 2 (40000000) over e4m3 ones (0x38): 1.0; with
  // bf16 on B (0x4000 = 2): the same.
  const std::uint8_t one[] = {0x38};
  std::uint8_t sa[4], sb4[4], sb2[2];
  store_scale_code(sa, 0, 4, 0x3F000000u);
  store_scale_code(sb4, 0, 4, 0x40000000u);
  store_scale_code(sb2, 0, 2, 0x4000u);
  std::uint32_t r = 0;
  softmx_error err{};
  ASSERT_EQ(softmx_dot_general_flat_scaled(&ce, &cf32, sa, one, &ce, &cf32, sb4, one, 1, 1, nullptr, nullptr, &r,
                                           nullptr, &err),
            SOFTMX_OK)
      << err.message;
  EXPECT_EQ(r, 0x3F800000u);
  ASSERT_EQ(softmx_dot_general_flat_scaled(&ce, &cf32, sa, one, &ce, &cbf, sb2, one, 1, 1, nullptr, nullptr, &r,
                                           nullptr, &err),
            SOFTMX_OK)
      << err.message;
  EXPECT_EQ(r, 0x3F800000u);
  const softmx_format cf64 = cfmt(FormatId::f64);
  std::size_t n = 0;
  EXPECT_EQ(softmx_scale_code_bytes(&cf64, &n, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("width"), std::string::npos) << err.message;
}

TEST(CApiBlocks, ScaleFormats) {
  softmx_format ue4m3{};
  ue4m3.id = SOFTMX_FORMAT_RUNTIME;
  ue4m3.width = 7;
  ue4m3.exp_bits = 4;
  ue4m3.man_bits = 3;
  ue4m3.bias = 7;
  ue4m3.sign = SOFTMX_SIGN_NONE;
  ue4m3.specials = SOFTMX_SPECIALS_FN;
  ue4m3.subnormals = 1;
  // softmx_format_lookup gives the same descriptor's fields (and its canonical name).
  softmx_format looked{};
  softmx_error lerr{};
  ASSERT_EQ(softmx_format_lookup("ue4m3", &looked, &lerr), SOFTMX_OK) << lerr.message;
  EXPECT_EQ(looked.id, SOFTMX_FORMAT_RUNTIME);
  EXPECT_EQ(looked.width, 7);
  EXPECT_EQ(looked.bias, 7);
  EXPECT_EQ(looked.sign, SOFTMX_SIGN_NONE);
  EXPECT_EQ(looked.specials, SOFTMX_SPECIALS_FN);
  const softmx_format cs = cfmt(FormatId::f32), ce = cfmt(FormatId::e2m1), ce4 = cfmt(FormatId::e4m3),
                      cd = cfmt(FormatId::f32);
  SplitMix64 rng(21);
  for (const softmx_format* sf : {static_cast<const softmx_format*>(&ue4m3), &ce4, static_cast<const softmx_format*>(&looked)}) {
    softmx_block_options o;
    softmx_block_options_init(&o);
    o.element = &ce;
    o.scale_format = sf;
    BlockOptions b;
    b.element = FormatId::e2m1;
    b.scale_format = sf == &ce4 ? Format(format(FormatId::e4m3)) : parse_format_spec("ue4m3");
    for (int rep = 0; rep < 40; ++rep) {
      const auto vals = random_block(FormatId::f32, 16, rng);
      const auto bytes = stored(FormatId::f32, vals);
      std::uint8_t scale = 0, flags = 0;
      std::vector<std::uint8_t> codes(16);
      softmx_error err{};
      ASSERT_EQ(softmx_quantize_block(&cs, bytes.data(), 16, &o, &scale, codes.data(), &flags, &err), SOFTMX_OK)
          << err.message;
      const QuantizedBlock want = quantize_block(FormatId::f32, bytes.data(), 16, b);
      ASSERT_EQ(scale, want.scale);
      ASSERT_EQ(codes, want.codes);
      ASSERT_EQ(flags, want.flags);
      // Back: the element, n-element and tensor entry points against the C++ element call.
      std::vector<std::uint32_t> o1(16), o2(16);
      const std::size_t shape[] = {16};
      ASSERT_EQ(softmx_dequantize_scaled(&ce, sf, &cd, nullptr, &scale, codes.data(), 16, 16, o1.data(), nullptr,
                                         nullptr, &err), SOFTMX_OK) << err.message;
      ASSERT_EQ(softmx_dequantize_tensor_scaled(&ce, sf, shape, 1, 0, 16, &scale, 1, codes.data(), 16, &cd, nullptr,
                                                o2.data(), 16, nullptr, &err), SOFTMX_OK) << err.message;
      for (int i = 0; i < 16; ++i) {
        std::uint64_t r = 0;
        std::uint8_t fl = 0;
        ASSERT_EQ(softmx_dequantize_element_scaled(&ce, sf, scale, codes[i], &cd, nullptr, &r, &fl, &err), SOFTMX_OK);
        const Result w = dequantize_element(format(FormatId::e2m1), b.scale_format, scale, codes[i], FormatId::f32,
                                            resolve(ocp_dialect(), FormatId::f32, Context{}));
        EXPECT_EQ(r, w.code);
        EXPECT_EQ(fl, w.flags);
        EXPECT_EQ(o1[i], w.code);
        EXPECT_EQ(o2[i], w.code);
      }
    }
  }
  // Refusals name the field.
  softmx_block_options o;
  softmx_block_options_init(&o);
  const softmx_format cf64 = cfmt(FormatId::f64);
  o.scale_format = &cf64;
  const std::uint32_t one = 0x3F800000u;
  std::uint8_t scale, code;
  softmx_error err{};
  EXPECT_EQ(softmx_quantize_block(&cs, &one, 1, &o, &scale, &code, nullptr, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("options->scale_format: scale_format f64: width"), std::string::npos)
      << err.message;
  softmx_format bad = ue4m3;
  bad.width = 8;
  o.scale_format = &bad;
  EXPECT_EQ(softmx_quantize_block(&cs, &one, 1, &o, &scale, &code, nullptr, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("options->scale_format: a runtime format's field width = 8 differs"), std::string::npos) << err.message;
  o.scale_format = nullptr;
  o.reserved[0] = 1;
  EXPECT_EQ(softmx_quantize_block(&cs, &one, 1, &o, &scale, &code, nullptr, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  std::uint64_t r;
  EXPECT_EQ(softmx_dequantize_element_scaled(&ce, &ue4m3, 0x80, 1, &cd, nullptr, &r, nullptr, &err), SOFTMX_ERR_BAD_CODE);
  EXPECT_NE(std::string(err.message).find("not a code of ue4m3"), std::string::npos) << err.message;
}

TEST(CApiBlocks, TensorsEveryAxisAndDequantize) {
  SplitMix64 rng(13);
  const std::vector<std::vector<std::size_t>> shapes = {{70}, {3, 40}, {5, 3, 33}, {2, 0, 4}};
  for (const auto& shape : shapes)
    for (std::size_t axis = 0; axis < shape.size(); ++axis)
      for (std::size_t k : {1u, 16u, 32u})
        for (FormatId el : {FormatId::e4m3, FormatId::e2m1, FormatId::int8}) {
          std::size_t n = 1;
          for (std::size_t s : shape) n *= s;
          std::vector<std::uint64_t> vals = conformance::random_inputs(FormatId::bf16, el, n, rng.next());
          const auto bytes = stored(FormatId::bf16, vals);
          const softmx_format cs = cfmt(FormatId::bf16), ce = cfmt(el);
          softmx_block_options o;
          softmx_block_options_init(&o);
          o.element = &ce;
          BlockOptions b;
          b.element = el;
          const MxTensor want = quantize_tensor(FormatId::bf16, bytes.data(), shape, axis, k, b);
          std::size_t ns = 0;
          ASSERT_EQ(softmx_scale_count(shape.data(), shape.size(), axis, k, &ns, nullptr), SOFTMX_OK);
          ASSERT_EQ(ns, want.scales.size());
          std::vector<std::uint8_t> scales(ns), codes(n);
          std::uint8_t flags;
          softmx_error err;
          ASSERT_EQ(softmx_quantize_tensor(&cs, bytes.data(), shape.data(), shape.size(), axis, k, &o, scales.data(),
                                           ns, codes.data(), n, &flags, &err),
                    SOFTMX_OK)
              << err.message;
          ASSERT_EQ(scales, want.scales);
          ASSERT_EQ(codes, want.codes);
          ASSERT_EQ(flags, want.flags);
          for (FormatId dst : {FormatId::f32, FormatId::f16, FormatId::bf16, FormatId::f64}) {
            const softmx_format cd = cfmt(dst);
            std::vector<unsigned char> out(n * storage(dst) + 1), wout(n * storage(dst) + 1);
            std::uint8_t fo = 0;
            ASSERT_EQ(softmx_dequantize_tensor(&ce, shape.data(), shape.size(), axis, k, scales.data(), ns,
                                               codes.data(), n, &cd, nullptr, out.data(), n, &fo, &err),
                      SOFTMX_OK)
                << err.message;
            Context c;
            c.saturation = ocp_dialect().support[static_cast<int>(dst)].default_saturation;
            const Flags wf = dequantize_tensor(want, dst, wout.data(), c);
            ASSERT_EQ(out, wout);
            ASSERT_EQ(fo, wf);
          }
        }
}

// dequantize_element on every scale x code of every element format into every host format,
// and the batch form against a Dequantizer, under two dialects.
TEST(CApiBlocks, DequantizeEveryScaleAndCode) {
  std::size_t cases = 0;
  for (const char* dn : {"ocp", "transformer-engine"})
    for (FormatId el : kElements)
      for (FormatId dst : {FormatId::f32, FormatId::bf16, FormatId::f16}) {
        const Dialect& d = *find_dialect(dn);
        const softmx_format ce = cfmt(el), cd = cfmt(dst);
        const softmx_context c = cctx(d, Rounding::rne, d.support[static_cast<int>(dst)].default_saturation,
                                      Tininess::after_rounding);
        const Context ctx = context(Rounding::rne, d.support[static_cast<int>(dst)].default_saturation,
                                    Tininess::after_rounding);
        const std::size_t codes_n = std::size_t{1} << format(el).width;
        std::vector<std::uint8_t> scales(256), codes(256 * codes_n);
        for (std::size_t s = 0; s < 256; ++s) {
          scales[s] = static_cast<std::uint8_t>(s);
          for (std::size_t x = 0; x < codes_n; ++x) {
            codes[s * codes_n + x] = static_cast<std::uint8_t>(x);
            std::uint64_t r;
            std::uint8_t f;
            softmx_error err;
            ASSERT_EQ(softmx_dequantize_element(&ce, static_cast<std::uint8_t>(s), static_cast<std::uint8_t>(x), &cd,
                                                &c, &r, &f, &err),
                      SOFTMX_OK)
                << err.message;
            const Result want =
                dequantize_element(el, static_cast<std::uint8_t>(s), static_cast<std::uint8_t>(x), dst, ctx, d);
            ASSERT_EQ(r, want.code);
            ASSERT_EQ(f, want.flags);
            ++cases;
          }
        }
        const std::size_t n = codes.size();
        std::vector<unsigned char> out(n * storage(dst)), wout(n * storage(dst));
        std::vector<std::uint8_t> fl(n), wfl(n);
        std::uint8_t any = 0;
        ASSERT_EQ(softmx_dequantize(&ce, &cd, &c, scales.data(), codes.data(), n, codes_n, out.data(), fl.data(), &any,
                                    nullptr),
                  SOFTMX_OK);
        Dequantizer dq(el, dst, ctx, d);
        const Flags wany = dq.run(scales.data(), codes.data(), n, codes_n, wout.data(), wfl.data());
        ASSERT_EQ(out, wout);
        ASSERT_EQ(fl, wfl);
        ASSERT_EQ(any, wany);
        cases += n;
      }
  report("C vs C++ dequantize, every scale x code", cases);
}

TEST(CApiBlocks, PackAndUnpack) {
  SplitMix64 rng(14);
  for (FormatId f : {FormatId::e2m1, FormatId::e3m2, FormatId::e2m3, FormatId::e4m3, FormatId::int8, FormatId::e8m0})
    for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 32u, 101u}) {
      const softmx_format cf = cfmt(f);
      std::vector<std::uint8_t> codes(n);
      for (auto& c : codes) c = static_cast<std::uint8_t>(rng.next() & format(f).code_mask());
      std::size_t bytes = 99;
      ASSERT_EQ(softmx_packed_size(&cf, n, &bytes, nullptr), SOFTMX_OK);
      ASSERT_EQ(bytes, packed_size(f, n));
      std::vector<std::uint8_t> packed(bytes + 1);
      ASSERT_EQ(softmx_pack(&cf, codes.data(), n, packed.data(), bytes, nullptr), SOFTMX_OK);
      packed.resize(bytes);
      ASSERT_EQ(packed, pack(f, codes));
      std::vector<std::uint8_t> back(n + 1);
      ASSERT_EQ(softmx_unpack_codes(&cf, packed.data(), bytes, n, back.data(), nullptr), SOFTMX_OK);
      back.resize(n);
      ASSERT_EQ(back, codes);
    }
}

TEST(CApiBlocks, Nvfp4) {
  SplitMix64 rng(15);
  for (FormatId src : {FormatId::f32, FormatId::bf16, FormatId::f16})
    for (int mult : {SOFTMX_NVFP4_DIVISION, SOFTMX_NVFP4_RECIPROCAL_PRODUCT})
      for (bool given : {false, true})
        for (Rounding r : {Rounding::rne, Rounding::rs}) {
          const std::vector<std::size_t> shape = {3, 37};
          for (std::size_t axis : {0u, 1u}) {
            const std::size_t n = 3 * 37;
            const auto vals = conformance::random_inputs(src, FormatId::e2m1, n, rng.next());
            const auto bytes = stored(src, vals);
            std::vector<std::uint64_t> rb(n);
            for (auto& x : rb) x = rng.next() >> 32;
            softmx_nvfp4_options o;
            softmx_nvfp4_options_init(&o);
            o.multiplier = mult;
            o.has_global_amax = given ? 1 : 0;
            o.global_amax = 0x43E00000;  // 448
            o.rounding = static_cast<int32_t>(r);
            o.rbits = rb.data();
            o.rbits_count = n;
            Nvfp4Options w;
            w.axis = axis;
            w.multiplier = mult == SOFTMX_NVFP4_DIVISION ? Nvfp4Multiplier::division : Nvfp4Multiplier::reciprocal_product;
            if (given) w.global_amax = 448.0f;
            w.rounding = r;
            w.rbits = rb;
            const Nvfp4Tensor want = quantize_nvfp4(src, bytes.data(), shape, axis, w);
            const softmx_format cs = cfmt(src);
            std::vector<std::uint8_t> scales(want.scales.size()), codes(n);
            std::uint32_t gamax = 0, enc = 0;
            std::uint8_t flags = 0;
            softmx_error err;
            ASSERT_EQ(softmx_quantize_nvfp4(&cs, bytes.data(), shape.data(), 2, axis, &o, scales.data(), scales.size(),
                                            codes.data(), n, &gamax, &enc, &flags, &err),
                      SOFTMX_OK)
                << err.message;
            ASSERT_EQ(scales, want.scales);
            ASSERT_EQ(codes, want.codes);
            ASSERT_EQ(gamax, want.global_amax);
            ASSERT_EQ(enc, want.encode_scale);
            ASSERT_EQ(flags, want.flags);
            for (FormatId dst : {FormatId::f32, FormatId::bf16}) {
              const softmx_format cd = cfmt(dst);
              std::vector<unsigned char> out(n * storage(dst)), wout(n * storage(dst));
              std::uint8_t fo;
              ASSERT_EQ(softmx_dequantize_nvfp4(shape.data(), 2, axis, gamax, enc, scales.data(), scales.size(),
                                                codes.data(), n, &cd, nullptr, out.data(), n, &fo, &err),
                        SOFTMX_OK)
                  << err.message;
              const Flags wf = dequantize_nvfp4(want, dst, wout.data(), Context{});
              ASSERT_EQ(out, wout);
              ASSERT_EQ(fo, wf);
            }
          }
        }
}

// ---- dot --------------------------------------------------------------------------------------------

TEST(CApiDot, ModelsByName) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < softmx_accumulation_count(); ++i) names.push_back(softmx_accumulation_name(softmx_accumulation_at(i)));
  EXPECT_EQ(softmx_accumulation_at(softmx_accumulation_count()), nullptr);
  // The C API lists the library's registry, in its order (exact, fp32-sequential, mxdotp, then the
  // tensor-core models).
  std::vector<std::string> want;
  for (const AccumulationModel* m : accumulation_models()) want.emplace_back(m->name());
  EXPECT_EQ(names, want);
  EXPECT_EQ(want.size(), 3 + tensor_core_models().size());
  for (const std::string& n : names) {
    const softmx_accumulation* m = nullptr;
    ASSERT_EQ(softmx_accumulation_lookup(n.c_str(), &m, nullptr), SOFTMX_OK);
    EXPECT_EQ(softmx_accumulation_name(m), n);
  }
  EXPECT_STREQ(softmx_accumulation_name(nullptr), "exact");
}

TEST(CApiDot, DotGeneralEveryModel) {
  SplitMix64 rng(16);
  std::size_t cases = 0;
  for (std::size_t mi = 0; mi < softmx_accumulation_count(); ++mi) {
    const softmx_accumulation* cm = softmx_accumulation_at(mi);
    const AccumulationModel& m = *find_accumulation_model(softmx_accumulation_name(cm));
    // The GST models (blackwell-mxf4, blackwell-nvf4) take e2m1 blocks of a multiple of 16 only.
    const auto* tcm = dynamic_cast<const TensorCoreModel*>(&m);
    const bool gst = tcm && tcm->params().scale_application == ScaleApplication::per_group;
    // MXDOTP's instruction takes one element format for both operands (docs/research/mxdotp.md).
    const bool one_format = m.name() == "mxdotp";
    for (FormatId fa : kElements)
      for (FormatId fb : {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1})
        for (std::size_t k : {1u, 32u})
          for (std::size_t n : {1u, 3u})
            for (int rep = 0; rep < 8; ++rep) {
              if (gst && (fa != FormatId::e2m1 || fb != FormatId::e2m1 || k % 16 != 0)) continue;
              if (one_format && fa != fb) continue;
              std::vector<std::uint8_t> as(n), bs(n), ac(n * k), bc(n * k);
              for (std::size_t j = 0; j < n; ++j) {
                as[j] = static_cast<std::uint8_t>(rep == 7 ? rng.next() : 0x70 + rng.below(20));
                bs[j] = static_cast<std::uint8_t>(0x70 + rng.below(20));
              }
              for (auto& c : ac) c = static_cast<std::uint8_t>(rng.next() & format(fa).code_mask());
              for (auto& c : bc) c = static_cast<std::uint8_t>(rng.next() & format(fb).code_mask());
              const softmx_format ca = cfmt(fa), cb = cfmt(fb);
              std::vector<softmx_block> xa(n), xb(n);
              std::vector<BlockRef> ra, rb;
              for (std::size_t j = 0; j < n; ++j) {
                xa[j] = softmx_block{&ca, as[j], ac.data() + j * k, k};
                xb[j] = softmx_block{&cb, bs[j], bc.data() + j * k, k};
                ra.push_back(BlockRef{fa, as[j], std::span<const std::uint8_t>(ac.data() + j * k, k)});
                rb.push_back(BlockRef{fb, bs[j], std::span<const std::uint8_t>(bc.data() + j * k, k)});
              }
              for (Rounding r : {Rounding::rne, Rounding::rz}) {
                softmx_context c;
                softmx_context_init(&c);
                c.rounding = static_cast<int32_t>(r);
                Context ctx;
                ctx.rounding = r;
                const Result want = dot_general(ra, rb, ctx, m);
                std::uint32_t got = 0, got2 = 0;
                std::uint8_t f = 0, f2 = 0;
                softmx_error err;
                ASSERT_EQ(softmx_dot_general(xa.data(), xb.data(), n, &c, cm, &got, &f, &err), SOFTMX_OK) << err.message;
                ASSERT_EQ(got, want.code) << m.name();
                ASSERT_EQ(f, want.flags);
                ASSERT_EQ(softmx_dot_general_flat(&ca, as.data(), ac.data(), &cb, bs.data(), bc.data(), k, n, &c, cm,
                                                  &got2, &f2, &err),
                          SOFTMX_OK)
                    << err.message;
                ASSERT_EQ(got2, want.code);
                ASSERT_EQ(f2, want.flags);
                cases += 2;
              }
            }
  }
  report("C vs C++ dot_general, every model", cases);
}

TEST(CApiDot, MmaUnderTensorCoreModels) {
  SplitMix64 rng(17);
  for (const TensorCoreModel* tm : tensor_core_models()) {
    // The GST models (blackwell-mxf4, blackwell-nvf4) take e2m1 x e2m1 into f32 only.
    if (tm->params().scale_application == ScaleApplication::per_group) continue;
    const softmx_accumulation* cm = nullptr;
    ASSERT_EQ(softmx_accumulation_lookup(std::string(tm->name()).c_str(), &cm, nullptr), SOFTMX_OK);
    for (FormatId acc : {FormatId::f32, FormatId::f16})
      for (int rep = 0; rep < 200; ++rep) {
        const std::size_t k = 32;
        std::vector<std::uint8_t> a(k), b(k);
        for (auto& x : a) x = static_cast<std::uint8_t>(rng.next());
        for (auto& x : b) x = static_cast<std::uint8_t>(rng.next() & 0x7F);
        const std::uint32_t c = static_cast<std::uint32_t>(rng.next() & format(acc).code_mask());
        const softmx_format ca = cfmt(FormatId::e4m3), cb = cfmt(FormatId::e5m2), cc = cfmt(acc);
        std::uint32_t d;
        std::uint8_t f;
        softmx_error err;
        ASSERT_EQ(softmx_mma(cm, &ca, a.data(), &cb, b.data(), k, &cc, c, &d, &f, &err), SOFTMX_OK) << err.message;
        const Result want = tm->mma(FormatId::e4m3, a, FormatId::e5m2, b, acc, c);
        ASSERT_EQ(d, want.code);
        ASSERT_EQ(f, want.flags);
      }
  }
}

// ---- every error path ---------------------------------------------------------------------------------

namespace {

struct ErrorCase {
  const char* what;
  int status;
  std::string message_part;  // must appear in the message
  std::function<int(softmx_error*)> call;
};

/// The accumulation model `name` through the C API's lookup (nullptr when there is none).
const softmx_accumulation* accumulation(const char* name) {
  const softmx_accumulation* m = nullptr;
  softmx_accumulation_lookup(name, &m, nullptr);
  return m;
}

}  // namespace

TEST(CApiErrors, EveryErrorReturnsItsStatusAndMessage) {
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3), e2m1 = cfmt(FormatId::e2m1),
                      f16 = cfmt(FormatId::f16), e5m2 = cfmt(FormatId::e5m2);
  softmx_format edited = e4m3;
  edited.width = 9;
  softmx_format runtime = e4m3;  // a runtime descriptor whose width its fields do not give
  runtime.id = SOFTMX_FORMAT_RUNTIME;
  runtime.width = 9;
  softmx_format bad_id = e4m3;
  bad_id.id = 42;
  softmx_format dirty = e4m3;
  dirty.reserved[2] = 1;
  const softmx_dialect* cuda = nullptr;
  const softmx_dialect* mldt = nullptr;
  const softmx_dialect* gfloat = nullptr;
  softmx_dialect_lookup("cuda", &cuda, nullptr);
  softmx_dialect_lookup("ml_dtypes", &mldt, nullptr);
  softmx_dialect_lookup("gfloat", &gfloat, nullptr);
  softmx_context rz_cuda;
  softmx_context_init(&rz_cuda);
  rz_cuda.rounding = SOFTMX_ROUND_RZ;
  rz_cuda.dialect = cuda;
  softmx_context bad_round;
  softmx_context_init(&bad_round);
  bad_round.rounding = 9;
  softmx_context bad_sat;
  softmx_context_init(&bad_sat);
  bad_sat.saturation = 3;  // 0, 1, 2: SOFTMX_SAT_FINITE, _NONE, _PROPAGATE
  softmx_context bad_tin;
  softmx_context_init(&bad_tin);
  bad_tin.tininess = 7;
  softmx_context bad_w;
  softmx_context_init(&bad_w);
  bad_w.rbits_width = 65;
  softmx_context big_r;
  softmx_context_init(&big_r);
  big_r.rounding = SOFTMX_ROUND_RS;
  big_r.rbits_width = 4;
  big_r.rbits = 16;
  softmx_context dirty_ctx;
  softmx_context_init(&dirty_ctx);
  dirty_ctx.reserved[0] = 3;
  std::uint64_t r64;
  std::uint32_t r32;
  std::uint8_t fl, sc;
  int32_t v;
  const softmx_dialect* dh;
  const softmx_accumulation* mh;
  const softmx_accumulation* exact = nullptr;
  softmx_accumulation_lookup("exact", &exact, nullptr);
  softmx_converter* conv = nullptr;
  softmx_converter_new(&f32, &e4m3, nullptr, &conv, nullptr);
  softmx_converter* rs_conv = nullptr;
  softmx_converter_new(&f32, &e4m3, &big_r, &rs_conv, nullptr);  // fails: rbits too big (below)
  softmx_context rs4;
  softmx_context_init(&rs4);
  rs4.rounding = SOFTMX_ROUND_RS;
  rs4.rbits_width = 4;
  softmx_converter_new(&f32, &e4m3, &rs4, &rs_conv, nullptr);
  const std::uint32_t vals[4] = {0x3F800000, 0x40000000, 0x7FC00000, 0};
  const std::uint8_t bad_e2m1[3] = {1, 2, 0x1F};
  const std::uint64_t big_rbits[2] = {3, 99};
  const std::uint8_t codes8[64] = {};
  std::uint8_t out8[64];
  std::uint32_t out32[64];
  const std::size_t shape2[2] = {4, 64};
  const std::size_t shape0[1] = {0};
  const std::size_t huge[3] = {SIZE_MAX / 2, 4, 2};
  softmx_block_options bo;
  softmx_block_options_init(&bo);
  softmx_block_options bo_bad_rule = bo;
  bo_bad_rule.scale_rule = 4;
  softmx_block_options bo_bad_isa = bo;
  bo_bad_isa.isa = 5;
  softmx_block_options bo_ml = bo;
  bo_ml.dialect = mldt;
  softmx_block_options bo_rs = bo;
  bo_rs.rounding = SOFTMX_ROUND_RS;
  softmx_block_options bo_rs_big = bo;
  bo_rs_big.rounding = SOFTMX_ROUND_RS;
  bo_rs_big.rbits_width = 4;
  bo_rs_big.rbits = big_rbits;
  bo_rs_big.rbits_count = 2;
  softmx_block_options bo_f32el = bo;
  bo_f32el.element = &f32;
  softmx_block_options bo_gf = bo;
  bo_gf.dialect = gfloat;
  bo_gf.element = &e2m1;
  softmx_block_options bo_dirty = bo;
  bo_dirty.reserved[0] = 5;  // the old reserved[0] is scale_format now (issue 14), the old reserved[1] is reserved[0]
  softmx_nvfp4_options no;
  softmx_nvfp4_options_init(&no);
  softmx_nvfp4_options no_rz = no;
  no_rz.rounding = SOFTMX_ROUND_RZ;
  softmx_nvfp4_options no_mult = no;
  no_mult.multiplier = 7;
  softmx_nvfp4_options no_rs = no;
  no_rs.rounding = SOFTMX_ROUND_RS;
  const softmx_block one_a = {&e4m3, 0x7F, codes8, 32};
  const softmx_block one_b = {&e4m3, 0x7F, codes8, 31};
  const softmx_block blk_f32 = {&f32, 0x7F, codes8, 32};
  const softmx_block blk_bad = {&e2m1, 0x7F, bad_e2m1, 3};
  const softmx_block blk_ok3 = {&e2m1, 0x7F, codes8, 3};
  const std::uint8_t sc64[64] = {};

  const std::size_t s4[1] = {4};  // a one-dimensional shape of 4 values (the nvfp4 cases)
  const std::vector<ErrorCase> cases = {
      // null pointers
      {"convert, src NULL", SOFTMX_ERR_NULL_POINTER, "src is NULL",
       [&](softmx_error* e) { return softmx_convert(nullptr, &e4m3, 0, nullptr, &r64, &fl, e); }},
      {"convert, result NULL", SOFTMX_ERR_NULL_POINTER, "result is NULL",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, nullptr, nullptr, &fl, e); }},
      {"batch, in NULL", SOFTMX_ERR_NULL_POINTER, "in is NULL",
       [&](softmx_error* e) { return softmx_convert_batch(&f32, &e4m3, nullptr, nullptr, out8, nullptr, 4, nullptr, e); }},
      {"batch, out NULL", SOFTMX_ERR_NULL_POINTER, "out is NULL",
       [&](softmx_error* e) { return softmx_convert_batch(&f32, &e4m3, nullptr, vals, nullptr, nullptr, 4, nullptr, e); }},
      {"converter_new, out NULL", SOFTMX_ERR_NULL_POINTER, "converter is NULL",
       [&](softmx_error* e) { return softmx_converter_new(&f32, &e4m3, nullptr, nullptr, e); }},
      {"converter_convert, NULL converter", SOFTMX_ERR_NULL_POINTER, "converter is NULL",
       [&](softmx_error* e) { return softmx_converter_convert(nullptr, 0, &r64, &fl, e); }},
      {"converter_run, NULL converter", SOFTMX_ERR_NULL_POINTER, "converter is NULL",
       [&](softmx_error* e) { return softmx_converter_run(nullptr, vals, out8, nullptr, 4, nullptr, e); }},
      {"converter_info, NULL converter", SOFTMX_ERR_NULL_POINTER, "converter is NULL",
       [&](softmx_error* e) { return softmx_converter_info(nullptr, nullptr, nullptr, nullptr, e); }},
      {"format_lookup, NULL spec", SOFTMX_ERR_NULL_POINTER, "spec is NULL",
       [&](softmx_error* e) {
         softmx_format x;
         return softmx_format_lookup(nullptr, &x, e);
       }},
      {"format_lookup, NULL out", SOFTMX_ERR_NULL_POINTER, "format is NULL",
       [&](softmx_error* e) { return softmx_format_lookup("e4m3", nullptr, e); }},
      {"dialect_lookup, NULL name", SOFTMX_ERR_NULL_POINTER, "name is NULL",
       [&](softmx_error* e) { return softmx_dialect_lookup(nullptr, &dh, e); }},
      {"rounding_from_name, NULL out", SOFTMX_ERR_NULL_POINTER, "rounding is NULL",
       [&](softmx_error* e) { return softmx_rounding_from_name("rne", nullptr, e); }},
      {"quantize_block, NULL values", SOFTMX_ERR_NULL_POINTER, "values is NULL",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, nullptr, 4, nullptr, &sc, out8, &fl, e); }},
      {"quantize_block, NULL codes", SOFTMX_ERR_NULL_POINTER, "codes is NULL",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, nullptr, &sc, nullptr, &fl, e); }},
      {"quantize_tensor, NULL shape", SOFTMX_ERR_NULL_POINTER, "shape is NULL",
       [&](softmx_error* e) { return softmx_quantize_tensor(&f32, vals, nullptr, 1, 0, 32, nullptr, out8, 64, out8, 64, &fl, e); }},
      {"dequantize_element, NULL result", SOFTMX_ERR_NULL_POINTER, "result is NULL",
       [&](softmx_error* e) { return softmx_dequantize_element(&e4m3, 127, 0x38, &f32, nullptr, nullptr, &fl, e); }},
      {"dequantize, NULL scales", SOFTMX_ERR_NULL_POINTER, "scales is NULL",
       [&](softmx_error* e) { return softmx_dequantize(&e4m3, &f32, nullptr, nullptr, codes8, 4, 2, out32, nullptr, &fl, e); }},
      {"dot, NULL a", SOFTMX_ERR_NULL_POINTER, "a is NULL",
       [&](softmx_error* e) { return softmx_dot_general(nullptr, &one_a, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"dot, NULL block codes", SOFTMX_ERR_NULL_POINTER, "a[j].codes is NULL",
       [&](softmx_error* e) {
         const softmx_block x = {&e4m3, 0x7F, nullptr, 32};
         return softmx_dot_general(&x, &one_a, 1, nullptr, nullptr, &r32, &fl, e);
       }},
      {"dot, NULL block format", SOFTMX_ERR_NULL_POINTER, "a[j].format is NULL",
       [&](softmx_error* e) {
         const softmx_block x = {nullptr, 0x7F, codes8, 32};
         return softmx_dot_general(&x, &one_a, 1, nullptr, nullptr, &r32, &fl, e);
       }},
      {"dot_flat, NULL b_codes", SOFTMX_ERR_NULL_POINTER, "b_codes is NULL",
       [&](softmx_error* e) { return softmx_dot_general_flat(&e4m3, sc64, codes8, &e4m3, sc64, nullptr, 32, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"mma, NULL d", SOFTMX_ERR_NULL_POINTER, "d is NULL",
       [&](softmx_error* e) { return softmx_mma(accumulation("hopper-fp8-mma"), &e4m3, codes8, &e4m3, codes8, 32, &f32, 0, nullptr, &fl, e); }},
      {"pack, NULL out", SOFTMX_ERR_NULL_POINTER, "out is NULL",
       [&](softmx_error* e) { return softmx_pack(&e2m1, codes8, 4, nullptr, 2, e); }},
      {"scale_count, NULL count", SOFTMX_ERR_NULL_POINTER, "count is NULL",
       [&](softmx_error* e) { return softmx_scale_count(shape2, 2, 1, 32, nullptr, e); }},
      {"nvfp4, NULL data", SOFTMX_ERR_NULL_POINTER, "data is NULL",
       [&](softmx_error* e) { return softmx_quantize_nvfp4(&f32, nullptr, shape2, 2, 1, nullptr, out8, 64, out8, 64, nullptr, nullptr, nullptr, e); }},
      // unknown names
      {"unknown format", SOFTMX_ERR_UNKNOWN_NAME, "unknown format 'e4m3x'",
       [&](softmx_error* e) {
         softmx_format x;
         return softmx_format_lookup("e4m3x", &x, e);
       }},
      {"bad format spec", SOFTMX_ERR_INVALID_ARGUMENT, "exp: expected 0 to 8 exponent bits, got 9",
       [&](softmx_error* e) {
         softmx_format x;
         return softmx_format_lookup("e9m2", &x, e);
       }},
      {"unknown dialect", SOFTMX_ERR_UNKNOWN_NAME, "unknown dialect 'nvidia' (expected one of ocp, cuda",
       [&](softmx_error* e) { return softmx_dialect_lookup("nvidia", &dh, e); }},
      {"unknown rounding", SOFTMX_ERR_UNKNOWN_NAME, "unknown rounding mode 'rnd' (expected one of rne, rna",
       [&](softmx_error* e) { return softmx_rounding_from_name("rnd", &v, e); }},
      {"unknown saturation", SOFTMX_ERR_UNKNOWN_NAME, "unknown saturation 'clip'",
       [&](softmx_error* e) { return softmx_saturation_from_name("clip", &v, e); }},
      {"unknown tininess", SOFTMX_ERR_UNKNOWN_NAME, "unknown tininess 'early'",
       [&](softmx_error* e) { return softmx_tininess_from_name("early", &v, e); }},
      {"unknown scale rule", SOFTMX_ERR_UNKNOWN_NAME, "unknown scale rule 'round'",
       [&](softmx_error* e) { return softmx_scale_rule_from_name("round", &v, e); }},
      {"unknown model", SOFTMX_ERR_UNKNOWN_NAME, "unknown accumulation model 'fp16' (expected one of exact",
       [&](softmx_error* e) { return softmx_accumulation_lookup("fp16", &mh, e); }},
      // invalid arguments
      {"format_named, bad id", SOFTMX_ERR_INVALID_ARGUMENT, "id 11 is not a named format",
       [&](softmx_error* e) {
         softmx_format x;
         return softmx_format_named(11, &x, e);
       }},
      {"edited descriptor", SOFTMX_ERR_INVALID_ARGUMENT, "src: the fields differ from those of e4m3",
       [&](softmx_error* e) { return softmx_convert(&edited, &f32, 0, nullptr, &r64, &fl, e); }},
      {"descriptor with a bad id", SOFTMX_ERR_INVALID_ARGUMENT, "dst: id 42 is not a format id",
       [&](softmx_error* e) { return softmx_convert(&f32, &bad_id, 0, nullptr, &r64, &fl, e); }},
      {"descriptor with reserved set", SOFTMX_ERR_INVALID_ARGUMENT, "dst: reserved[2] is not zero",
       [&](softmx_error* e) { return softmx_convert(&f32, &dirty, 0, nullptr, &r64, &fl, e); }},
      {"context with reserved set", SOFTMX_ERR_INVALID_ARGUMENT, "ctx: reserved[0] is not zero",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &dirty_ctx, &r64, &fl, e); }},
      {"bad rounding value", SOFTMX_ERR_INVALID_ARGUMENT, "ctx->rounding = 9 is not a rounding mode",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &bad_round, &r64, &fl, e); }},
      {"bad saturation value", SOFTMX_ERR_INVALID_ARGUMENT, "ctx->saturation = 3 is not SOFTMX_SAT_FINITE",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &bad_sat, &r64, &fl, e); }},
      {"bad tininess value", SOFTMX_ERR_INVALID_ARGUMENT, "ctx->tininess = 7",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &bad_tin, &r64, &fl, e); }},
      {"rbits_width 65", SOFTMX_ERR_INVALID_ARGUMENT, "ctx->rbits_width = 65 is not in 1..64",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &bad_w, &r64, &fl, e); }},
      {"rbits above the width", SOFTMX_ERR_INVALID_ARGUMENT, "ctx->rbits = 0x10 is not below 2^4",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &big_r, &r64, &fl, e); }},
      {"batch rbits above the width", SOFTMX_ERR_INVALID_ARGUMENT, "rbits[i] = 0x63 is not below 2^4",
       [&](softmx_error* e) { return softmx_converter_run(rs_conv, vals, out8, nullptr, 2, big_rbits, e); }},
      {"converter_convert_rs, rbits above the width", SOFTMX_ERR_INVALID_ARGUMENT, "rbits = 0x63",
       [&](softmx_error* e) { return softmx_converter_convert_rs(rs_conv, 0, 99, &r64, &fl, e); }},
      {"bad isa value", SOFTMX_ERR_INVALID_ARGUMENT, "isa = 3 is not an instruction set",
       [&](softmx_error* e) { return softmx_converter_run_on(conv, 3, vals, out8, nullptr, 4, nullptr, e); }},
      {"bad scale rule value", SOFTMX_ERR_INVALID_ARGUMENT, "options->scale_rule = 4",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_bad_rule, &sc, out8, &fl, e); }},
      {"bad block isa value", SOFTMX_ERR_INVALID_ARGUMENT, "options->isa = 5",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_bad_isa, &sc, out8, &fl, e); }},
      {"block options with reserved set", SOFTMX_ERR_INVALID_ARGUMENT, "options: reserved[0] is not zero",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_dirty, &sc, out8, &fl, e); }},
      {"block rbits above the width", SOFTMX_ERR_INVALID_ARGUMENT, "options->rbits[i] = 0x63 is not below 2^4",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 2, &bo_rs_big, &sc, out8, &fl, e); }},
      {"rs block without random bits", SOFTMX_ERR_INVALID_ARGUMENT, "stochastic rounding needs one random value per element",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_rs, &sc, out8, &fl, e); }},
      {"quantize into f32", SOFTMX_ERR_INVALID_ARGUMENT, "f32 is not an MX element format",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_f32el, &sc, out8, &fl, e); }},
      {"quantize from e4m3", SOFTMX_ERR_INVALID_ARGUMENT, "the source must be f64, f32, f16 or bf16",
       [&](softmx_error* e) { return softmx_quantize_block(&e4m3, codes8, 4, nullptr, &sc, out8, &fl, e); }},
      {"nvfp4 bad multiplier", SOFTMX_ERR_INVALID_ARGUMENT, "options->multiplier = 7",
       [&](softmx_error* e) { return softmx_quantize_nvfp4(&f32, vals, shape0, 1, 0, &no_mult, out8, 64, out8, 64, nullptr, nullptr, nullptr, e); }},
      {"nvfp4 rs without random bits", SOFTMX_ERR_INVALID_ARGUMENT, "stochastic rounding needs one random value per element",
       [&](softmx_error* e) { return softmx_quantize_nvfp4(&f32, vals, s4, 1, 0, &no_rs, out8, 64, out8, 64, nullptr, nullptr, nullptr, e); }},
      {"nvfp4 from e4m3", SOFTMX_ERR_INVALID_ARGUMENT, "nvfp4: the source must be f32, bf16 or f16",
       [&](softmx_error* e) { return softmx_quantize_nvfp4(&e4m3, codes8, s4, 1, 0, nullptr, out8, 64, out8, 64, nullptr, nullptr, nullptr, e); }},
      {"nvfp4 dequantize, zero encode scale", SOFTMX_ERR_INVALID_ARGUMENT, "the encode scale must be a finite non-zero f32",
       [&](softmx_error* e) { return softmx_dequantize_nvfp4(s4, 1, 0, 0, 0, codes8, 1, codes8, 4, &f32, nullptr, out32, 64, &fl, e); }},
      {"dot element format f32", SOFTMX_ERR_INVALID_ARGUMENT, "f32 codes do not fit in a byte",
       [&](softmx_error* e) { return softmx_dot_general(&blk_f32, &one_a, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"dot of e8m0 elements", SOFTMX_ERR_INVALID_ARGUMENT, "e8m0 is not an MX element format",
       [&](softmx_error* e) {
         const softmx_format e8m0 = cfmt(FormatId::e8m0);
         const softmx_block x = {&e8m0, 0x7F, codes8, 32};
         return softmx_dot_general(&x, &one_a, 1, nullptr, nullptr, &r32, &fl, e);
       }},
      {"mma, accumulator e4m3", SOFTMX_ERR_INVALID_ARGUMENT, "the accumulator is f32 or f16",
       [&](softmx_error* e) { return softmx_mma(accumulation("hopper-fp8-wgmma"), &e4m3, codes8, &e4m3, codes8, 32, &e4m3, 0, &r32, &fl, e); }},
      // bad codes
      {"code above the width", SOFTMX_ERR_BAD_CODE, "code 0x100 is not a code of e4m3 (8 bits: at most 0xFF)",
       [&](softmx_error* e) { return softmx_convert(&e4m3, &f32, 0x100, nullptr, &r64, &fl, e); }},
      {"converter code above the width", SOFTMX_ERR_BAD_CODE, "code 0x10000 is not a code of f16",
       [&](softmx_error* e) {
         softmx_converter* h = nullptr;
         softmx_converter_new(&f16, &e4m3, nullptr, &h, nullptr);
         const int s = softmx_converter_convert(h, 0x10000, &r64, &fl, e);
         softmx_converter_free(h);
         return s;
       }},
      {"batch code above the width", SOFTMX_ERR_BAD_CODE, "in[2] = 0x1F is not a code of e2m1",
       [&](softmx_error* e) { return softmx_convert_batch(&e2m1, &f32, nullptr, bad_e2m1, out32, nullptr, 3, nullptr, e); }},
      {"dequantize code above the width", SOFTMX_ERR_BAD_CODE, "code[0] = 0x1F is not a code of e2m1",
       [&](softmx_error* e) { return softmx_dequantize_element(&e2m1, 127, 0x1F, &f32, nullptr, &r64, &fl, e); }},
      {"dequantize batch code above the width", SOFTMX_ERR_BAD_CODE, "codes[2] = 0x1F",
       [&](softmx_error* e) { return softmx_dequantize(&e2m1, &f32, nullptr, sc64, bad_e2m1, 3, 32, out32, nullptr, &fl, e); }},
      {"dot code above the width", SOFTMX_ERR_BAD_CODE, "a[j].codes[2] = 0x1F is not a code of e2m1",
       [&](softmx_error* e) { return softmx_dot_general(&blk_bad, &blk_ok3, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"pack code above the width", SOFTMX_ERR_BAD_CODE, "codes[2] = 0x1F",
       [&](softmx_error* e) { return softmx_pack(&e2m1, bad_e2m1, 3, out8, 64, e); }},
      {"mma C above the accumulator", SOFTMX_ERR_BAD_CODE, "c 0x10000 is not a code of f16",
       [&](softmx_error* e) { return softmx_mma(accumulation("hopper-fp8-mma"), &e4m3, codes8, &e4m3, codes8, 32, &f16, 0x10000, &r32, &fl, e); }},
      // unsupported
      {"dialect refuses the mode", SOFTMX_ERR_UNSUPPORTED, "cuda",
       [&](softmx_error* e) { return softmx_convert(&f32, &e4m3, 0, &rz_cuda, &r64, &fl, e); }},
      {"converter: dialect refuses the mode", SOFTMX_ERR_UNSUPPORTED, "cuda",
       [&](softmx_error* e) {
         softmx_converter* h = nullptr;
         return softmx_converter_new(&f32, &e4m3, &rz_cuda, &h, e);
       }},
      {"runtime format, width not its fields'", SOFTMX_ERR_INVALID_ARGUMENT,
       "dst: a runtime format's field width = 9 differs from the 8 bits",
       [&](softmx_error* e) { return softmx_convert(&f32, &runtime, 0, nullptr, &r64, &fl, e); }},
      {"runtime dequantize destination", SOFTMX_ERR_UNSUPPORTED, "dst: e4m3fnuz is a runtime format",
       [&](softmx_error* e) {
         softmx_format fnuz;
         softmx_format_lookup("e4m3fnuz", &fnuz, nullptr);
         return softmx_dequantize_element(&e4m3, 127, 0x38, &fnuz, nullptr, &r64, &fl, e);
       }},
      {"no block quantization in the dialect", SOFTMX_ERR_UNSUPPORTED, "ml_dtypes",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_ml, &sc, out8, &fl, e); }},
      {"NaN the dialect cannot encode", SOFTMX_ERR_UNSUPPORTED, "cannot encode NaN in e2m1",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 4, &bo_gf, &sc, out8, &fl, e); }},
      {"nvfp4 with rz", SOFTMX_ERR_UNSUPPORTED, "rounds elements with rne or rs, not rz",
       [&](softmx_error* e) { return softmx_quantize_nvfp4(&f32, vals, s4, 1, 0, &no_rz, out8, 64, out8, 64, nullptr, nullptr, nullptr, e); }},
      {"mma under exact", SOFTMX_ERR_UNSUPPORTED, "exact is not a tensor-core model",
       [&](softmx_error* e) { return softmx_mma(exact, &e4m3, codes8, &e4m3, codes8, 32, &f32, 0, &r32, &fl, e); }},
      {"check_support", SOFTMX_ERR_UNSUPPORTED, "cuda",
       [&](softmx_error* e) { return softmx_check_support(&e4m3, &rz_cuda, e); }},
      // shapes
      {"quantize_block of no values", SOFTMX_ERR_SHAPE, "a block needs at least one value",
       [&](softmx_error* e) { return softmx_quantize_block(&f32, vals, 0, nullptr, &sc, out8, &fl, e); }},
      {"tensor of rank 0", SOFTMX_ERR_SHAPE, "rank is 0",
       [&](softmx_error* e) { return softmx_quantize_tensor(&f32, vals, shape2, 0, 0, 32, nullptr, out8, 64, out8, 64, &fl, e); }},
      {"axis beyond the rank", SOFTMX_ERR_SHAPE, "axis 2 does not exist in a 2-d tensor",
       [&](softmx_error* e) { return softmx_quantize_tensor(&f32, vals, shape2, 2, 2, 32, nullptr, out8, 64, out8, 64, &fl, e); }},
      {"block size 0", SOFTMX_ERR_SHAPE, "the block size must be at least 1",
       [&](softmx_error* e) { return softmx_quantize_tensor(&f32, vals, shape2, 2, 1, 0, nullptr, out8, 64, out8, 64, &fl, e); }},
      {"shape overflows", SOFTMX_ERR_SHAPE, "overflows size_t",
       [&](softmx_error* e) {
         std::size_t n;
         return softmx_scale_count(huge, 3, 0, 1, &n, e);
       }},
      {"dequantize_tensor, wrong scale count", SOFTMX_ERR_SHAPE, "scale_count is 3 but the shape has 8 blocks",
       [&](softmx_error* e) { return softmx_dequantize_tensor(&e4m3, shape2, 2, 1, 32, sc64, 3, codes8, 256, &f32, nullptr, out32, 256, &fl, e); }},
      {"dequantize_tensor, wrong code count", SOFTMX_ERR_SHAPE, "code_count is 64 but the shape has 256 elements",
       [&](softmx_error* e) { return softmx_dequantize_tensor(&e4m3, shape2, 2, 1, 32, sc64, 8, codes8, 64, &f32, nullptr, out32, 256, &fl, e); }},
      {"dequantize, block 0", SOFTMX_ERR_SHAPE, "the block size must be at least 1",
       [&](softmx_error* e) { return softmx_dequantize(&e4m3, &f32, nullptr, sc64, codes8, 4, 0, out32, nullptr, &fl, e); }},
      {"nvfp4 dequantize, wrong scale count", SOFTMX_ERR_SHAPE, "scale_count is 2 but the shape has 1 blocks of 16",
       [&](softmx_error* e) { return softmx_dequantize_nvfp4(s4, 1, 0, 0, 0x3F800000, codes8, 2, codes8, 4, &f32, nullptr, out32, 64, &fl, e); }},
      {"dot of no pairs", SOFTMX_ERR_SHAPE, "at least one block pair (n is 0)",
       [&](softmx_error* e) { return softmx_dot_general(&one_a, &one_a, 0, nullptr, nullptr, &r32, &fl, e); }},
      {"dot pair of unequal lengths", SOFTMX_ERR_SHAPE, "block pair 0 has 32 and 31 elements",
       [&](softmx_error* e) { return softmx_dot_general(&one_a, &one_b, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"dot_flat block 0", SOFTMX_ERR_SHAPE, "the block size must be at least 1",
       [&](softmx_error* e) { return softmx_dot_general_flat(&e4m3, sc64, codes8, &e5m2, sc64, codes8, 0, 1, nullptr, nullptr, &r32, &fl, e); }},
      {"mma k 0", SOFTMX_ERR_SHAPE, "k must be at least 1",
       [&](softmx_error* e) { return softmx_mma(accumulation("hopper-fp8-mma"), &e4m3, codes8, &e4m3, codes8, 0, &f32, 0, &r32, &fl, e); }},
      {"unpack, wrong byte count", SOFTMX_ERR_SHAPE, "5 e2m1 codes take 3 bytes packed, n_bytes is 2",
       [&](softmx_error* e) { return softmx_unpack_codes(&e2m1, codes8, 2, 5, out8, e); }},
      {"packed_size of f32", SOFTMX_ERR_INVALID_ARGUMENT, "f32 codes do not fit in a byte",
       [&](softmx_error* e) {
         std::size_t n;
         return softmx_packed_size(&f32, 4, &n, e);
       }},
      // short buffers
      {"quantize_tensor, short scales", SOFTMX_ERR_BUFFER_TOO_SMALL, "scales holds 7 but 8 are needed",
       [&](softmx_error* e) {
         std::vector<std::uint32_t> data(256, 0x3F800000);
         std::vector<std::uint8_t> s(8), c(256);
         return softmx_quantize_tensor(&f32, data.data(), shape2, 2, 1, 32, nullptr, s.data(), 7, c.data(), 256, &fl, e);
       }},
      {"quantize_tensor, short codes", SOFTMX_ERR_BUFFER_TOO_SMALL, "codes holds 255 but 256 are needed",
       [&](softmx_error* e) {
         std::vector<std::uint32_t> data(256, 0x3F800000);
         std::vector<std::uint8_t> s(8), c(256);
         return softmx_quantize_tensor(&f32, data.data(), shape2, 2, 1, 32, nullptr, s.data(), 8, c.data(), 255, &fl, e);
       }},
      {"dequantize_tensor, short out", SOFTMX_ERR_BUFFER_TOO_SMALL, "out holds 100 but 256 are needed",
       [&](softmx_error* e) {
         std::vector<std::uint8_t> c(256);
         std::vector<std::uint32_t> o(256);
         return softmx_dequantize_tensor(&e4m3, shape2, 2, 1, 32, sc64, 8, c.data(), 256, &f32, nullptr, o.data(), 100, &fl, e);
       }},
      {"nvfp4, short scales", SOFTMX_ERR_BUFFER_TOO_SMALL, "scales holds 3 but 16 are needed",
       [&](softmx_error* e) {
         std::vector<std::uint32_t> data(256, 0x3F800000);
         std::vector<std::uint8_t> s(16), c(256);
         return softmx_quantize_nvfp4(&f32, data.data(), shape2, 2, 1, nullptr, s.data(), 3, c.data(), 256, nullptr, nullptr, nullptr, e);
       }},
      {"pack, short out", SOFTMX_ERR_BUFFER_TOO_SMALL, "out holds 1 but 2 are needed",
       [&](softmx_error* e) { return softmx_pack(&e2m1, codes8, 4, out8, 1, e); }},
      {"dialect_support, NULL dst", SOFTMX_ERR_NULL_POINTER, "dst is NULL",
       [&](softmx_error* e) { return softmx_dialect_support(cuda, nullptr, nullptr, nullptr, nullptr, nullptr, e); }},
      {"dialect_support, edited descriptor", SOFTMX_ERR_INVALID_ARGUMENT, "dst",
       [&](softmx_error* e) { return softmx_dialect_support(cuda, &edited, nullptr, nullptr, nullptr, nullptr, e); }},
  };

  std::size_t checked = 0;
  for (const ErrorCase& c : cases) {
    softmx_error err;
    std::memset(&err, 0x5A, sizeof err);
    int st = -1;
    EXPECT_NO_THROW(st = c.call(&err)) << c.what;
    EXPECT_EQ(st, c.status) << c.what << ": " << softmx_status_name(st) << " " << err.message;
    EXPECT_EQ(err.code, c.status) << c.what;
    ASSERT_LT(std::strlen(err.message), sizeof err.message) << c.what;
    EXPECT_NE(std::string(err.message).find(c.message_part), std::string::npos)
        << c.what << ": the message is \"" << err.message << "\", expected it to contain \"" << c.message_part << "\"";
    // The message starts with the function's name.
    EXPECT_EQ(std::string(err.message).rfind("softmx_", 0), 0u) << c.what << ": " << err.message;
    // And the same call without an error struct returns the same status.
    int st2 = -1;
    EXPECT_NO_THROW(st2 = c.call(nullptr)) << c.what;
    EXPECT_EQ(st2, c.status) << c.what;
    ++checked;
  }
  report("error paths, each with its status and message", checked);
  softmx_converter_free(conv);
  softmx_converter_free(rs_conv);
  softmx_converter_free(nullptr);  // ignored
}

// The guard every entry point runs its body in (capi/shell.hpp) maps each kind of exception the
// C++ library can throw to its status: the statuses no argument can provoke (out of memory, an
// internal error) are made to happen here, through the same guard.
TEST(CApiErrors, TheGuardMapsEveryExceptionToItsStatus) {
  struct Case {
    int status;
    const char* message;
    std::function<void()> body;
  };
  const std::vector<Case> cases = {
      {SOFTMX_OK, "", [] {}},
      {SOFTMX_ERR_SHAPE, "softmx_probe: a shell failure", [] { softmx::capi::fail(SOFTMX_ERR_SHAPE, "a shell failure"); }},
      {SOFTMX_ERR_OUT_OF_MEMORY, "softmx_probe: out of memory", [] { throw std::bad_alloc(); }},
      {SOFTMX_ERR_OUT_OF_MEMORY, "softmx_probe: vector too long", [] { throw std::length_error("vector too long"); }},
      {SOFTMX_ERR_INVALID_ARGUMENT, "softmx_probe: bad value", [] { throw std::invalid_argument("bad value"); }},
      {SOFTMX_ERR_INTERNAL, "softmx_probe: broken invariant", [] { throw std::logic_error("broken invariant"); }},
      {SOFTMX_ERR_INTERNAL, "softmx_probe: an exception that is not a std::exception", [] { throw 42; }},
  };
  for (const Case& c : cases) {
    softmx_error err;
    std::memset(&err, 0x5A, sizeof err);
    int st = -1;
    EXPECT_NO_THROW(st = softmx::capi::guard(&err, "softmx_probe", c.body));
    EXPECT_EQ(st, c.status) << c.message;
    EXPECT_EQ(err.code, c.status) << c.message;
    EXPECT_STREQ(err.message, c.message);
    EXPECT_EQ(softmx::capi::guard(nullptr, "softmx_probe", c.body), c.status) << c.message;
  }
  // The library's own Unsupported, from a real call.
  softmx_error err;
  const softmx_format e2m1 = cfmt(FormatId::e2m1), f32 = cfmt(FormatId::f32);
  const softmx_dialect* cuda = nullptr;
  ASSERT_EQ(softmx_dialect_lookup("cuda", &cuda, nullptr), SOFTMX_OK);
  softmx_context ctx;
  softmx_context_init(&ctx);
  ctx.dialect = cuda;
  ctx.rounding = SOFTMX_ROUND_RU;
  std::uint64_t r;
  EXPECT_EQ(softmx_convert(&f32, &e2m1, 0, &ctx, &r, nullptr, &err), SOFTMX_ERR_UNSUPPORTED) << err.message;
  report("exception kinds through the guard", cases.size() + 1);
}

// A message longer than the struct holds is truncated and terminated.
TEST(CApiErrors, LongMessagesAreTruncated) {
  const std::string name(2000, 'x');
  softmx_format f;
  softmx_error err;
  ASSERT_EQ(softmx_format_lookup(name.c_str(), &f, &err), SOFTMX_ERR_UNKNOWN_NAME);
  EXPECT_EQ(std::strlen(err.message), sizeof err.message - 1);
  // Success clears a used error struct.
  ASSERT_EQ(softmx_format_lookup("e4m3", &f, &err), SOFTMX_OK);
  EXPECT_EQ(err.code, SOFTMX_OK);
  EXPECT_STREQ(err.message, "");
}

// Inputs are never modified.
TEST(CApiErrors, InputsAreNotModified) {
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3);
  std::vector<std::uint32_t> in = {0x3F800000, 0x43E80001, 0x7FC00000, 0x80000001};
  const auto copy = in;
  const softmx_format fcopy = f32;
  std::vector<std::uint8_t> out(4);
  ASSERT_EQ(softmx_convert_batch(&f32, &e4m3, nullptr, in.data(), out.data(), nullptr, 4, nullptr, nullptr), SOFTMX_OK);
  std::uint8_t sc, fl;
  ASSERT_EQ(softmx_quantize_block(&f32, in.data(), 4, nullptr, &sc, out.data(), &fl, nullptr), SOFTMX_OK);
  EXPECT_EQ(in, copy);
  EXPECT_EQ(std::memcmp(&fcopy, &f32, sizeof f32), 0);
}

// ---- explain -------------------------------------------------------------------------------

namespace {

// The text softmx_explain promises, composed from the C++ functions of softmx/explain.hpp.
std::string explain_expected(const ExplainInput& in, FormatId d, const Context& c, const Dialect& dialect,
                             Result* result) {
  const Format& dst = format(d);
  const Neighbours nb = find_neighbours(in, dst);
  const Result r = in.code ? convert(in.from->id, d, *in.code, c, dialect) : round_pack(dst, in.u, c, dialect);
  if (result) *result = r;
  char head[64];
  std::snprintf(head, sizeof head, "result %0*llX flags %02X: ", dst.hex_digits(), static_cast<unsigned long long>(r.code),
                static_cast<unsigned>(r.flags));
  return input_text(in, dst) + "destination " + describe_format(dst) + "\n" + neighbours_text(in, nb, dst) + head +
         rounding_reason(in, nb, dst, c, dialect, r) + "\n";
}

std::string c_explain(FormatId s, FormatId d, std::uint64_t code, const softmx_context& ctx) {
  const softmx_format cs = cfmt(s), cd = cfmt(d);
  std::size_t n = 0;
  EXPECT_EQ(softmx_explain(&cs, &cd, code, &ctx, nullptr, 0, &n, nullptr), SOFTMX_ERR_BUFFER_TOO_SMALL);
  std::string t(n + 1, '\x55');
  std::size_t n2 = 0;
  softmx_error e{};
  EXPECT_EQ(softmx_explain(&cs, &cd, code, &ctx, t.data(), t.size(), &n2, &e), SOFTMX_OK) << e.message;
  EXPECT_EQ(n2, n);
  EXPECT_EQ(t[n], '\0');
  t.resize(n);
  return t;
}

}  // namespace

// Every e4m3, e5m2 and e2m1 code into every MX element format and f16, and every 61st f16 input
// into e4m3 and e2m1, under every dialect x deterministic mode x saturation the dialect accepts:
// softmx_explain's text is the C++ functions' text and its result line is softmx_convert's.
TEST(CApiExplain, EqualsTheCppExplanation) {
  conformance::Tally t("C API softmx_explain == softmx/explain.hpp composition");
  struct Pair {
    FormatId s, d;
    std::uint64_t step;
  };
  const Pair pairs[] = {{FormatId::e4m3, FormatId::e2m1, 1}, {FormatId::e5m2, FormatId::e4m3, 1},
                        {FormatId::e2m1, FormatId::f16, 1},  {FormatId::e4m3, FormatId::e8m0, 1},
                        {FormatId::f16, FormatId::e4m3, 61}, {FormatId::f16, FormatId::e2m1, 61}};
  for (const Pair& p : pairs)
    for (const Dialect& d : all_dialects())
      for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru})
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          const Context c = context(r, s, Tininess::after_rounding);
          if (unsupported_reason(d, p.d, c)) continue;
          const softmx_context cc = cctx(d, r, s, Tininess::after_rounding);
          const std::uint64_t end = format(p.s).code_mask() + 1;
          for (std::uint64_t code = 0; code < end; code += p.step) {
            Result want{};
            const std::string exp = explain_expected(explain_input_code(format(p.s), code), p.d, c, d, &want);
            const std::string got = c_explain(p.s, p.d, code, cc);
            t.check(got == exp, [&] { return std::string(d.name) + " " + hex(code) + ": " + got + " vs " + exp; });
            std::uint64_t res = 0;
            std::uint8_t fl = 0;
            const softmx_format cs = cfmt(p.s), cd = cfmt(p.d);
            EXPECT_EQ(softmx_convert(&cs, &cd, code, &cc, &res, &fl, nullptr), SOFTMX_OK);
            t.check(res == want.code && fl == want.flags, [&] { return "result line of " + hex(code); });
          }
        }
  t.report();
}

// Hand cases: 8.5 into e4m3 lies halfway between 8 (0x50) and 9 (0x51); rne takes the even code
// 0x50 and says it is a tie, rna takes 0x51. As a code (f32 41080000) and as text ("8.5").
TEST(CApiExplain, TheTieOfEightAndAHalf) {
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3);
  char buf[4096];
  std::size_t n = 0;
  softmx_context ctx;
  softmx_context_init(&ctx);
  ASSERT_EQ(softmx_explain(&f32, &e4m3, 0x41080000u, &ctx, buf, sizeof buf, &n, nullptr), SOFTMX_OK);
  std::string a(buf, n);
  EXPECT_NE(a.find("result 50 flags 01: "), std::string::npos) << a;
  EXPECT_NE(a.find("a tie (exactly halfway)"), std::string::npos) << a;
  ASSERT_EQ(softmx_explain_value("8.5", &e4m3, &ctx, buf, sizeof buf, &n, nullptr), SOFTMX_OK);
  const std::string b(buf, n);
  EXPECT_NE(b.find("result 50 flags 01: "), std::string::npos) << b;
  ctx.rounding = SOFTMX_ROUND_RNA;
  ASSERT_EQ(softmx_explain_value("8.5", &e4m3, &ctx, buf, sizeof buf, &n, nullptr), SOFTMX_OK);
  EXPECT_NE(std::string(buf, n).find("result 51 flags 01: "), std::string::npos) << buf;
}

// Every failure of the two functions, each with its status and a message naming the argument.
TEST(CApiExplain, Errors) {
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3), e5m2 = cfmt(FormatId::e5m2);
  char buf[8];
  std::size_t n = 0;
  softmx_error e{};
  EXPECT_EQ(softmx_explain(&f32, &e4m3, 0x41080000u, nullptr, buf, sizeof buf, &n, &e), SOFTMX_ERR_BUFFER_TOO_SMALL);
  EXPECT_GT(n, sizeof buf);
  EXPECT_NE(std::string(e.message).find("softmx_explain: capacity"), std::string::npos) << e.message;
  EXPECT_EQ(softmx_explain(&f32, &e4m3, 0x41080000u, nullptr, nullptr, 1 << 20, &n, &e), SOFTMX_ERR_NULL_POINTER);
  EXPECT_NE(std::string(e.message).find("text is NULL"), std::string::npos) << e.message;
  EXPECT_EQ(softmx_explain(&e4m3, &f32, 0x100u, nullptr, nullptr, 0, &n, &e), SOFTMX_ERR_BAD_CODE);
  EXPECT_NE(std::string(e.message).find("code"), std::string::npos) << e.message;
  EXPECT_EQ(softmx_explain(nullptr, &f32, 0, nullptr, nullptr, 0, &n, &e), SOFTMX_ERR_NULL_POINTER);
  EXPECT_EQ(softmx_explain_value(nullptr, &e4m3, nullptr, nullptr, 0, &n, &e), SOFTMX_ERR_NULL_POINTER);
  EXPECT_NE(std::string(e.message).find("value is NULL"), std::string::npos) << e.message;
  EXPECT_EQ(softmx_explain_value("eight", &e4m3, nullptr, nullptr, 0, &n, &e), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(e.message).find("softmx_explain_value: value: "), std::string::npos) << e.message;
  softmx_context ctx;
  softmx_context_init(&ctx);
  ASSERT_EQ(softmx_dialect_lookup("torchmx", &ctx.dialect, nullptr), SOFTMX_OK);
  EXPECT_EQ(softmx_explain(&f32, &e5m2, 0x41080000u, &ctx, nullptr, 0, &n, &e), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(e.message).find("torchmx"), std::string::npos) << e.message;
}

// ---- runtime element formats (issue 14): the block functions, packing and DotGeneral -----------
//
// softmx_format_lookup gives a runtime descriptor for any spec of SEMANTICS 1.2; the block
// functions, packing and DotGeneral take one of at most 8 bits and give the C++ library's
// results (the C++ functions called with the same descriptor); a spec a block cannot hold fails
// with INVALID_ARGUMENT naming the field.
namespace {

constexpr const char* kRuntimeElements[] = {"e1m2", "e2m2", "e4m3fnuz", "int4", "e3m4", "e4m3:bias=11:specials=fnuz",
                                            "e1m1", "e5m2fnuz"};

softmx_format clookup(const char* spec) {
  softmx_format f;
  softmx_error err;
  EXPECT_EQ(softmx_format_lookup(spec, &f, &err), SOFTMX_OK) << spec << ": " << err.message;
  return f;
}

TEST(CApiRuntime, LookupGivesTheCanonicalRuntimeDescriptor) {
  for (const char* spec : kRuntimeElements) {
    const softmx_format c = clookup(spec);
    const Format want = parse_format_spec(spec);
    EXPECT_EQ(c.id, SOFTMX_FORMAT_RUNTIME) << spec;
    expect_fields(c, want);
  }
  EXPECT_EQ(std::string(clookup("e4m3:bias=11:specials=fnuz").name), "e4m3b11fnuz");
  // A spec whose fields are a named format's is that format.
  EXPECT_EQ(clookup("e4m3:specials=fn").id, SOFTMX_FORMAT_E4M3);
  softmx_format f;
  softmx_error err;
  EXPECT_EQ(softmx_format_lookup("e4m3:bias=2000", &f, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("bias"), std::string::npos) << err.message;
  EXPECT_EQ(softmx_format_lookup("e9m2", &f, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("exp"), std::string::npos) << err.message;
}

TEST(CApiRuntime, QuantizeBlockAndTensorEqualTheCppLibrary) {
  SplitMix64 rng(41);
  std::size_t cases = 0;
  for (const char* spec : kRuntimeElements) {
    const softmx_format ce = clookup(spec);
    const Format el = parse_format_spec(spec);
    const softmx_format cs = cfmt(FormatId::f32);
    for (int rule = -1; rule < 4; ++rule)
      for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru})
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          softmx_block_options o;
          softmx_block_options_init(&o);
          o.element = &ce;
          o.scale_rule = rule;
          o.rounding = static_cast<int32_t>(r);
          o.saturation = s == Saturation::finite ? SOFTMX_SAT_FINITE : SOFTMX_SAT_NONE;
          BlockOptions b;
          b.element = el;
          if (rule >= 0) b.rule = static_cast<ScaleRule>(rule);
          b.rounding = r;
          b.saturation = s;
          for (std::size_t k : {1u, 7u, 32u}) {
            const auto bytes = stored(FormatId::f32, random_block(FormatId::f32, k, rng));
            std::uint8_t scale = 0, flags = 0;
            std::vector<std::uint8_t> codes(k);
            softmx_error err;
            ASSERT_EQ(softmx_quantize_block(&cs, bytes.data(), k, &o, &scale, codes.data(), &flags, &err), SOFTMX_OK)
                << spec << ": " << err.message;
            const QuantizedBlock want = quantize_block(FormatId::f32, bytes.data(), k, b);
            ASSERT_EQ(scale, want.scale) << spec;
            ASSERT_EQ(codes, want.codes) << spec;
            ASSERT_EQ(flags, want.flags) << spec;
            ++cases;
          }
        }
    // A 3 x 40 tensor along each axis, and back through dequantize_tensor into f32 and bf16.
    const std::vector<std::size_t> shape = {3, 40};
    const auto bytes = stored(FormatId::f32, random_block(FormatId::f32, 120, rng));
    for (std::size_t axis = 0; axis < 2; ++axis) {
      softmx_block_options o;
      softmx_block_options_init(&o);
      o.element = &ce;
      BlockOptions b;
      b.element = el;
      const MxTensor want = quantize_tensor(FormatId::f32, bytes.data(), shape, axis, 32, b);
      std::vector<std::uint8_t> scales(want.scales.size()), codes(120);
      std::uint8_t flags = 0;
      softmx_error err;
      ASSERT_EQ(softmx_quantize_tensor(&cs, bytes.data(), shape.data(), 2, axis, 32, &o, scales.data(), scales.size(),
                                       codes.data(), codes.size(), &flags, &err),
                SOFTMX_OK)
          << spec << ": " << err.message;
      ASSERT_EQ(scales, want.scales);
      ASSERT_EQ(codes, want.codes);
      ASSERT_EQ(flags, want.flags);
      for (FormatId dst : {FormatId::f32, FormatId::bf16}) {
        const softmx_format cd = cfmt(dst);
        std::vector<unsigned char> out(120 * storage(dst)), wout(120 * storage(dst));
        std::uint8_t fo = 0;
        ASSERT_EQ(softmx_dequantize_tensor(&ce, shape.data(), 2, axis, 32, scales.data(), scales.size(), codes.data(),
                                           codes.size(), &cd, nullptr, out.data(), 120, &fo, &err),
                  SOFTMX_OK)
            << spec << ": " << err.message;
        Context c;
        c.saturation = ocp_dialect().support[static_cast<int>(dst)].default_saturation;
        const Flags wf = dequantize_tensor(want, dst, wout.data(), c);
        ASSERT_EQ(out, wout) << spec;
        ASSERT_EQ(fo, wf);
        cases += 120;
      }
    }
  }
  report("C vs C++ quantize_block / quantize_tensor / dequantize_tensor, runtime elements", cases);
}

// Every code under every scale for elements of at most 5 bits; 8-bit ones under 25 scales (the
// ends, around 2^0, and every 17th), which keeps the sanitizer build's run short.
TEST(CApiRuntime, DequantizeEveryCode) {
  std::size_t cases = 0;
  for (const char* spec : kRuntimeElements) {
    const softmx_format ce = clookup(spec);
    const Format el = parse_format_spec(spec);
    const softmx_format cd = cfmt(FormatId::f32);
    const Context ctx;  // f32's default saturation is none, as SOFTMX_CONTEXT_INIT's for f32
    const std::size_t n_codes = std::size_t{1} << el.width;
    std::vector<std::uint8_t> scale_set;
    for (unsigned s = 0; s < 256; ++s)
      if (el.width <= 5 || s % 17 == 0 || s < 3 || s > 252 || (s >= 125 && s <= 129)) scale_set.push_back(static_cast<std::uint8_t>(s));
    const std::size_t n_scales = scale_set.size();
    std::vector<std::uint8_t> scales(n_scales), codes(n_scales * n_codes);
    for (std::size_t s = 0; s < n_scales; ++s) {
      scales[s] = scale_set[s];
      for (std::size_t x = 0; x < n_codes; ++x) {
        codes[s * n_codes + x] = static_cast<std::uint8_t>(x);
        std::uint64_t r = 0;
        std::uint8_t f = 0;
        softmx_error err;
        ASSERT_EQ(softmx_dequantize_element(&ce, scales[s], codes[s * n_codes + x], &cd, nullptr, &r, &f, &err), SOFTMX_OK)
            << spec << ": " << err.message;
        const Result want = dequantize_element(el, scales[s], codes[s * n_codes + x], FormatId::f32, ctx);
        ASSERT_EQ(r, want.code) << spec << " scale " << s << " code " << x;
        ASSERT_EQ(f, want.flags);
        ++cases;
      }
    }
    const std::size_t n = codes.size();
    std::vector<unsigned char> out(n * 4), wout(n * 4);
    std::vector<std::uint8_t> fl(n), wfl(n);
    std::uint8_t any = 0;
    ASSERT_EQ(softmx_dequantize(&ce, &cd, nullptr, scales.data(), codes.data(), n, n_codes, out.data(), fl.data(), &any,
                                nullptr),
              SOFTMX_OK);
    Dequantizer dq(el, FormatId::f32, ctx);
    const Flags wany = dq.run(scales.data(), codes.data(), n, n_codes, wout.data(), wfl.data());
    ASSERT_EQ(out, wout) << spec;
    ASSERT_EQ(fl, wfl);
    ASSERT_EQ(any, wany);
    cases += n;
  }
  report("C vs C++ dequantize, runtime elements, every code (x every scale up to 5 bits, 25 scales for 8 bits)", cases);
}

TEST(CApiRuntime, PackAndUnpack) {
  SplitMix64 rng(42);
  for (const char* spec : kRuntimeElements)
    for (std::size_t n : {0u, 1u, 3u, 5u, 32u, 101u}) {
      const softmx_format cf = clookup(spec);
      const Format f = parse_format_spec(spec);
      std::vector<std::uint8_t> codes(n);
      for (auto& c : codes) c = static_cast<std::uint8_t>(rng.next() & f.code_mask());
      std::size_t bytes = 99;
      ASSERT_EQ(softmx_packed_size(&cf, n, &bytes, nullptr), SOFTMX_OK);
      ASSERT_EQ(bytes, packed_size(f, n));
      std::vector<std::uint8_t> packed(bytes + 1);
      ASSERT_EQ(softmx_pack(&cf, codes.data(), n, packed.data(), bytes, nullptr), SOFTMX_OK);
      packed.resize(bytes);
      ASSERT_EQ(packed, pack(f, codes)) << spec;
      std::vector<std::uint8_t> back(n + 1);
      ASSERT_EQ(softmx_unpack_codes(&cf, packed.data(), bytes, n, back.data(), nullptr), SOFTMX_OK);
      back.resize(n);
      ASSERT_EQ(back, codes);
    }
  // e1m1 (3 bits) codes 1..7, 0 pack to D1 58 1F (BLOCKS.md 4, by hand).
  const softmx_format e1m1 = clookup("e1m1");
  const std::uint8_t codes[] = {1, 2, 3, 4, 5, 6, 7, 0};
  std::uint8_t out[3];
  ASSERT_EQ(softmx_pack(&e1m1, codes, 8, out, 3, nullptr), SOFTMX_OK);
  EXPECT_EQ(out[0], 0xD1);
  EXPECT_EQ(out[1], 0x58);
  EXPECT_EQ(out[2], 0x1F);
}

TEST(CApiRuntime, DotGeneralEqualsTheCppLibrary) {
  SplitMix64 rng(43);
  std::size_t cases = 0;
  const char* pairs[][2] = {{"e1m2", "e2m2"}, {"e4m3fnuz", "e3m4"}, {"int4", "e4m3:bias=11:specials=fnuz"},
                            {"e1m1", "e5m2fnuz"}, {"e2m2", "e4m3"}};
  for (const auto& [sa, sb] : pairs)
    for (const char* mn : {"exact", "fp32-sequential"})
      for (std::size_t k : {1u, 32u})
        for (std::size_t n : {1u, 3u})
          for (int rep = 0; rep < 8; ++rep) {
            const softmx_format ca = clookup(sa), cb = clookup(sb);
            const Format fa = parse_format_spec(sa), fb = parse_format_spec(sb);
            const softmx_accumulation* cm = nullptr;
            ASSERT_EQ(softmx_accumulation_lookup(mn, &cm, nullptr), SOFTMX_OK);
            std::vector<std::uint8_t> as(n), bs(n), ac(n * k), bc(n * k);
            for (std::size_t j = 0; j < n; ++j) {
              as[j] = static_cast<std::uint8_t>(rep == 7 ? rng.next() : 0x70 + rng.below(20));
              bs[j] = static_cast<std::uint8_t>(0x70 + rng.below(20));
            }
            for (auto& c : ac) c = static_cast<std::uint8_t>(rng.next() & fa.code_mask());
            for (auto& c : bc) c = static_cast<std::uint8_t>(rng.next() & fb.code_mask());
            std::vector<softmx_block> xa(n), xb(n);
            std::vector<BlockRef> ra, rb;
            for (std::size_t j = 0; j < n; ++j) {
              xa[j] = softmx_block{&ca, as[j], ac.data() + j * k, k};
              xb[j] = softmx_block{&cb, bs[j], bc.data() + j * k, k};
              ra.push_back(BlockRef{fa.id, as[j], std::span<const std::uint8_t>(ac.data() + j * k, k), &fa});
              rb.push_back(BlockRef{fb.id, bs[j], std::span<const std::uint8_t>(bc.data() + j * k, k), &fb});
            }
            const Result want = dot_general(ra, rb, Context{}, *find_accumulation_model(mn));
            std::uint32_t got = 0, got2 = 0;
            std::uint8_t f = 0, f2 = 0;
            softmx_error err;
            ASSERT_EQ(softmx_dot_general(xa.data(), xb.data(), n, nullptr, cm, &got, &f, &err), SOFTMX_OK)
                << sa << " x " << sb << ": " << err.message;
            ASSERT_EQ(got, want.code) << sa << " x " << sb << " " << mn;
            ASSERT_EQ(f, want.flags);
            ASSERT_EQ(softmx_dot_general_flat(&ca, as.data(), ac.data(), &cb, bs.data(), bc.data(), k, n, nullptr, cm,
                                              &got2, &f2, &err),
                      SOFTMX_OK)
                << err.message;
            ASSERT_EQ(got2, want.code);
            ASSERT_EQ(f2, want.flags);
            cases += 2;
          }
  // By hand: e1m2 1.75 (0x7) x e2m2 7 (0x0F... 0xF) under scales 2^0: 12.25 = 0x41440000.
  const softmx_format e1m2 = clookup("e1m2"), e2m2 = clookup("e2m2");
  const std::uint8_t a = 0x7, b = 0xF, one = 127;
  std::uint32_t r = 0;
  ASSERT_EQ(softmx_dot_general_flat(&e1m2, &one, &a, &e2m2, &one, &b, 1, 1, nullptr, nullptr, &r, nullptr, nullptr),
            SOFTMX_OK);
  EXPECT_EQ(r, 0x41440000u);
  report("C vs C++ dot_general, runtime element pairs, exact and fp32-sequential", cases);
}

// softmx_dot_general_flat_scaled: each side's scale format (NULL: E8M0) equals the C++
// dot_general with BlockRef::scale_format, under exact and fp32-sequential; bad scale codes,
// formats and models fail with their statuses.
TEST(CApiRuntime, DotGeneralWithScaleFormatsEqualsTheCppLibrary) {
  SplitMix64 rng(47);
  std::size_t cases = 0;
  const char* scales[] = {"ue4m3", "ue5m3", "e4m3", "e8m0", nullptr};
  for (const char* ea : {"e2m1", "e1m2", "e4m3"})
    for (const char* sa : scales)
      for (const char* sb : scales)
        for (const char* mn : {"exact", "fp32-sequential"})
          for (int rep = 0; rep < 3; ++rep) {
            const std::size_t k = 1 + rng.below(20), n = 1 + rng.below(3);
            const softmx_format ce = clookup(ea);
            const Format fe = parse_format_spec(ea);
            softmx_format csa{}, csb{};
            if (sa) csa = clookup(sa);
            if (sb) csb = clookup(sb);
            const Format fsa = parse_format_spec(sa ? sa : "e8m0"), fsb = parse_format_spec(sb ? sb : "e8m0");
            const softmx_accumulation* cm = nullptr;
            ASSERT_EQ(softmx_accumulation_lookup(mn, &cm, nullptr), SOFTMX_OK);
            std::vector<std::uint8_t> as(n), bs(n), ac(n * k), bc(n * k);
            for (std::size_t j = 0; j < n; ++j) {
              as[j] = static_cast<std::uint8_t>(rng.next() & fsa.code_mask());
              bs[j] = static_cast<std::uint8_t>(rng.next() & fsb.code_mask());
            }
            for (auto& c : ac) c = static_cast<std::uint8_t>(rng.next() & fe.code_mask());
            for (auto& c : bc) c = static_cast<std::uint8_t>(rng.next() & fe.code_mask());
            std::vector<BlockRef> ra, rb;
            for (std::size_t j = 0; j < n; ++j) {
              ra.push_back(BlockRef{fe.id, as[j], std::span<const std::uint8_t>(ac.data() + j * k, k), &fe, &fsa});
              rb.push_back(BlockRef{fe.id, bs[j], std::span<const std::uint8_t>(bc.data() + j * k, k), &fe, &fsb});
            }
            const Result want = dot_general(ra, rb, Context{}, *find_accumulation_model(mn));
            std::uint32_t got = 0;
            std::uint8_t f = 0;
            softmx_error err;
            ASSERT_EQ(softmx_dot_general_flat_scaled(&ce, sa ? &csa : nullptr, as.data(), ac.data(), &ce,
                                                     sb ? &csb : nullptr, bs.data(), bc.data(), k, n, nullptr, cm, &got,
                                                     &f, &err),
                      SOFTMX_OK)
                << err.message;
            ASSERT_EQ(got, want.code) << ea << " scales " << (sa ? sa : "NULL") << "/" << (sb ? sb : "NULL") << " " << mn;
            ASSERT_EQ(f, want.flags);
            ++cases;
          }
  // By hand: e2m1 (1.5, 2) . (4, -0.5) with ue4m3 scales 1.25 (0x3A) and 0.75 (0x34): 5 * 0.9375
  // = 4.6875 = 0x40960000 (docs/BLOCKS.md 5; test_dot_scale_format).
  const softmx_format e2m1 = cfmt(FormatId::e2m1), ue4m3 = clookup("ue4m3");
  const std::uint8_t a[2] = {0x3, 0x4}, b[2] = {0x6, 0x9}, sa = 0x3A, sb = 0x34;
  std::uint32_t r = 0;
  ASSERT_EQ(softmx_dot_general_flat_scaled(&e2m1, &ue4m3, &sa, a, &e2m1, &ue4m3, &sb, b, 2, 1, nullptr, nullptr, &r,
                                           nullptr, nullptr),
            SOFTMX_OK);
  EXPECT_EQ(r, 0x40960000u);
  // A scale code beyond ue4m3's 7 bits; a format that cannot be a scale; a tensor-core model.
  softmx_error err;
  const std::uint8_t big = 0x80;
  EXPECT_EQ(softmx_dot_general_flat_scaled(&e2m1, &ue4m3, &big, a, &e2m1, &ue4m3, &sb, b, 2, 1, nullptr, nullptr, &r,
                                           nullptr, &err),
            SOFTMX_ERR_BAD_CODE);
  EXPECT_NE(std::string(err.message).find("a_scales[0] = 0x80 is not a code of ue4m3"), std::string::npos)
      << err.message;
  const softmx_format int4 = clookup("int4");
  EXPECT_EQ(softmx_dot_general_flat_scaled(&e2m1, &int4, &sa, a, &e2m1, &ue4m3, &sb, b, 2, 1, nullptr, nullptr, &r,
                                           nullptr, &err),
            SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("a_scale_format: scale_format int4: fixed"), std::string::npos)
      << err.message;
  const softmx_accumulation* hopper = nullptr;
  ASSERT_EQ(softmx_accumulation_lookup("hopper-fp8-mma", &hopper, nullptr), SOFTMX_OK);
  const softmx_format e4m3 = cfmt(FormatId::e4m3);
  const std::uint8_t c1 = 0x38;
  EXPECT_EQ(softmx_dot_general_flat_scaled(&e4m3, &ue4m3, &c1, &c1, &e4m3, &ue4m3, &c1, &c1, 1, 1, nullptr, hopper,
                                           &r, nullptr, &err),
            SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("reads E8M0 block scales"), std::string::npos) << err.message;
  report("C vs C++ dot_general with scale formats, exact and fp32-sequential", cases);
}

// What the blocks cannot take fails with INVALID_ARGUMENT naming the field; a runtime format
// where only named ones are served (conversion, a tensor-core model) says so.
TEST(CApiRuntime, RefusalsNameTheField) {
  const softmx_format f32 = cfmt(FormatId::f32);
  const float vals[4] = {1, 2, 3, 4};
  std::uint8_t sc = 0, codes[4], fl = 0;
  struct Case {
    const char* spec;
    const char* field;
  };
  for (const Case& c : {Case{"e5m3", "width"}, Case{"ue4m3", "sign"}, Case{"e4m3:subnormals=no", "subnormals"}}) {
    const softmx_format el = clookup(c.spec);
    softmx_block_options o;
    softmx_block_options_init(&o);
    o.element = &el;
    softmx_error err;
    EXPECT_EQ(softmx_quantize_block(&f32, vals, 4, &o, &sc, codes, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT) << c.spec;
    EXPECT_NE(std::string(err.message).find(std::string(c.field) + ":"), std::string::npos) << err.message;
    EXPECT_NE(std::string(err.message).find("options->element"), std::string::npos) << err.message;
    std::uint64_t r = 0;
    EXPECT_EQ(softmx_dequantize_element(&el, 127, 0, &f32, nullptr, &r, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find(std::string(c.field) + ":"), std::string::npos) << err.message;
    const std::uint8_t one = 127, zero = 0;
    std::uint32_t d = 0;
    EXPECT_EQ(softmx_dot_general_flat(&el, &one, &zero, &el, &one, &zero, 1, 1, nullptr, nullptr, &d, &fl, &err),
              SOFTMX_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find(std::string(c.field) + ":"), std::string::npos) << err.message;
  }
  // A hand-made runtime descriptor: a bad bias, a width that its fields do not give.
  softmx_format bad = clookup("e2m2");
  bad.bias = 5000;
  softmx_error err;
  std::uint64_t r = 0;
  EXPECT_EQ(softmx_dequantize_element(&bad, 127, 0, &f32, nullptr, &r, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("bias"), std::string::npos) << err.message;
  bad = clookup("e2m2");
  bad.width = 8;
  EXPECT_EQ(softmx_dequantize_element(&bad, 127, 0, &f32, nullptr, &r, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("width"), std::string::npos) << err.message;
  // A code beyond the runtime element's width.
  const softmx_format e1m2 = clookup("e1m2");
  EXPECT_EQ(softmx_dequantize_element(&e1m2, 127, 0x10, &f32, nullptr, &r, &fl, &err), SOFTMX_ERR_BAD_CODE);
  // A tensor-core model takes the named formats only.
  const softmx_accumulation* tc = nullptr;
  ASSERT_EQ(softmx_accumulation_lookup("hopper-fp8-mma", &tc, nullptr), SOFTMX_OK);
  const std::uint8_t one = 127, zero = 0;
  std::uint32_t d = 0;
  EXPECT_EQ(softmx_dot_general_flat(&e1m2, &one, &zero, &e1m2, &one, &zero, 1, 1, nullptr, tc, &d, &fl, &err),
            SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("hopper-fp8-mma"), std::string::npos) << err.message;
  // Conversion serves runtime formats (issue 26: CApiRuntimeConvert below); a dequantize
  // destination must be named.
  EXPECT_EQ(softmx_convert(&f32, &e1m2, 0, nullptr, &r, &fl, &err), SOFTMX_OK) << err.message;
  EXPECT_EQ(softmx_dequantize_element(&e1m2, 127, 0, &e1m2, nullptr, &r, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("dst: e1m2 is a runtime format"), std::string::npos) << err.message;
}

}  // namespace

// ---- runtime formats in conversions (issue 26): every conversion entry point ------------------
//
// Each format below is named by its spec through softmx_format_lookup (the path a C user or the
// DPI package takes) and compared with the C++ library given parse_format_spec's descriptor:
// softmx_convert, softmx_convert_batch (with and without flags), a converter's run, run_on and
// single-value calls, the stochastic forms, explain, check_support and dialect_support. Every
// code of each spec as a source, every f16 and bf16 input into each; codes and flags, and where
// the C++ library refuses, the status and its message. The tallies count every comparison.
namespace {

constexpr const char* kConvertSpecs[] = {"e4m3:specials=ieee", "e4m3fnuz", "e5m2fnuz", "e3m4", "e2m2",
                                         "int4",               "ue4m3",    "e8m0:sign=none:subnormals=no:specials=fn"};

std::size_t bytes_of(const Format& f) { return f.width <= 8 ? 1 : f.width <= 16 ? 2 : f.width <= 32 ? 4 : 8; }

std::vector<unsigned char> stored_as(const Format& f, const std::vector<std::uint64_t>& codes) {
  const std::size_t b = bytes_of(f);
  std::vector<unsigned char> out(codes.size() * b);
  for (std::size_t i = 0; i < codes.size(); ++i) std::memcpy(out.data() + i * b, &codes[i], b);  // little-endian
  return out;
}

std::vector<std::uint64_t> every_code(const Format& f) {
  std::vector<std::uint64_t> v(std::size_t{1} << f.width);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

// A C context and the C++ one it stands for: explicit modes, or SOFTMX_DEFAULT (rounding and
// saturation) against the dialect's defaults for dst.
struct Setting {
  softmx_context c;
  Context cpp;
  std::string text;
};

Setting explicit_setting(const Dialect& d, Rounding r, Saturation s, Tininess t = Tininess::after_rounding,
                         std::uint8_t rbits_width = 32, std::uint64_t rbits = 0) {
  return {cctx(d, r, s, t, rbits_width, rbits), context(r, s, t, rbits_width, rbits),
          std::string(d.name) + " " + std::string(name(r)) + "/" + std::string(name(s)) +
              (t == Tininess::before_rounding ? "/before" : "")};
}

Setting default_setting(const Dialect& d, const Format& dst) {
  Setting s;
  softmx_context_init(&s.c);
  s.c.dialect = cdialect(d);
  s.cpp.rounding = support_for(d, dst).default_rounding;
  s.cpp.saturation = Saturation::by_destination;  // the library resolves it, as SOFTMX_DEFAULT
  s.text = std::string(d.name) + " defaults";
  return s;
}

// One conversion through every C form against the C++ library, on `inputs` (codes of src).
// `scalar`: softmx_convert and softmx_converter_convert on every input (otherwise on every 61st).
// Returns false when the C++ library refuses the conversion (after checking that every C form
// refuses it with the same status and message).
bool check_runtime_conversion(conformance::Tally& t, const std::string& src_spec, const std::string& dst_spec,
                              const Dialect& d, const Setting& set, const std::vector<std::uint64_t>& inputs,
                              bool scalar) {
  softmx_format cs, cd;
  softmx_error err;
  if (softmx_format_lookup(src_spec.c_str(), &cs, &err) != SOFTMX_OK ||
      softmx_format_lookup(dst_spec.c_str(), &cd, &err) != SOFTMX_OK) {
    t.fail("lookup: " + std::string(err.message));
    return false;
  }
  const Format fs = parse_format_spec(src_spec), fd = parse_format_spec(dst_spec);
  const std::string what = src_spec + " -> " + dst_spec + " " + set.text;
  std::optional<Converter> conv;
  std::string refused;
  try {
    conv.emplace(fs, fd, set.cpp, d);
  } catch (const Unsupported& e) {
    refused = e.what();
  }
  const std::size_t n = inputs.size(), ob = bytes_of(fd);
  const auto in = stored_as(fs, inputs);
  std::vector<unsigned char> out(n * ob + 1), out2(n * ob + 1), want(n * ob + 1);
  std::vector<std::uint8_t> fl(n + 1), fl2(n + 1), want_fl(n + 1);
  if (!conv) {
    // Every C form refuses it: UNSUPPORTED with the library's reason.
    softmx_converter* h = nullptr;
    std::uint64_t code = 0;
    std::uint8_t f = 0;
    const int s1 = softmx_convert(&cs, &cd, inputs.front(), &set.c, &code, &f, &err);
    t.check(s1 == SOFTMX_ERR_UNSUPPORTED && std::string(err.message).find(refused) != std::string::npos,
            [&] { return what + ": softmx_convert gave " + softmx_status_name(s1) + " " + err.message + ", the library: " + refused; });
    const int s2 = softmx_convert_batch(&cs, &cd, &set.c, in.data(), out.data(), fl.data(), n, nullptr, &err);
    t.check(s2 == SOFTMX_ERR_UNSUPPORTED, [&] { return what + ": softmx_convert_batch gave " + softmx_status_name(s2); });
    const int s3 = softmx_converter_new(&cs, &cd, &set.c, &h, &err);
    t.check(s3 == SOFTMX_ERR_UNSUPPORTED && h == nullptr,
            [&] { return what + ": softmx_converter_new gave " + softmx_status_name(s3); });
    const int s4 = softmx_check_support(&cd, &set.c, &err);
    // check_support asks about the destination only; a refused source is the converter's.
    const bool dst_refused = unsupported_reason(d, fd, set.cpp).has_value();
    t.check((s4 == SOFTMX_ERR_UNSUPPORTED) == dst_refused,
            [&] { return what + ": softmx_check_support gave " + softmx_status_name(s4); });
    softmx_converter_free(h);
    return false;
  }
  conv->run(in.data(), want.data(), want_fl.data(), n);
  auto count = [&](const std::vector<unsigned char>& got, const std::vector<std::uint8_t>* got_fl, const char* form) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t g = load(got, ob, i), w = load(want, ob, i);
      t.check(g == w && (!got_fl || (*got_fl)[i] == want_fl[i]), [&] {
        return what + " " + form + ": input " + hex(inputs[i]) + " gave " + hex(g) + " flags " +
               (got_fl ? hex((*got_fl)[i]) : "-") + ", the library " + hex(w) + " flags " + hex(want_fl[i]);
      });
    }
  };
  // The batch with flags, and without (the codes alone).
  int st = softmx_convert_batch(&cs, &cd, &set.c, in.data(), out.data(), fl.data(), n, nullptr, &err);
  if (st != SOFTMX_OK) {
    t.fail(what + ": softmx_convert_batch: " + err.message, n);
    return true;
  }
  count(out, &fl, "softmx_convert_batch");
  st = softmx_convert_batch(&cs, &cd, &set.c, in.data(), out2.data(), nullptr, n, nullptr, &err);
  if (st != SOFTMX_OK) t.fail(what + ": softmx_convert_batch without flags: " + err.message, n);
  else count(out2, nullptr, "softmx_convert_batch (no flags)");
  // A converter: run, and the single-value calls.
  softmx_converter* h = nullptr;
  if (softmx_converter_new(&cs, &cd, &set.c, &h, &err) != SOFTMX_OK) {
    t.fail(what + ": softmx_converter_new: " + err.message, n);
    return true;
  }
  std::fill(out.begin(), out.end(), 0x5A);
  if (softmx_converter_run(h, in.data(), out.data(), fl.data(), n, nullptr, &err) != SOFTMX_OK)
    t.fail(what + ": softmx_converter_run: " + err.message, n);
  else
    count(out, &fl, "softmx_converter_run");
  const std::size_t step = scalar ? 1 : 61;
  for (std::size_t i = 0; i < n; i += step) {
    std::uint64_t code = ~0ull, code2 = ~0ull;
    std::uint8_t f = 0xFF, f2 = 0xFF;
    const int a = softmx_convert(&cs, &cd, inputs[i], &set.c, &code, &f, &err);
    const Result r = convert(fs, fd, inputs[i], set.cpp, d);
    t.check(a == SOFTMX_OK && code == r.code && f == r.flags, [&] {
      return what + " softmx_convert: input " + hex(inputs[i]) + " gave " + hex(code) + " flags " + hex(f) + " (" +
             softmx_status_name(a) + " " + err.message + "), the library " + hex(r.code) + " flags " + hex(r.flags);
    });
    const int b = softmx_converter_convert(h, inputs[i], &code2, &f2, &err);
    t.check(b == SOFTMX_OK && code2 == r.code && f2 == r.flags, [&] {
      return what + " softmx_converter_convert: input " + hex(inputs[i]) + " gave " + hex(code2) + ", the library " +
             hex(r.code);
    });
  }
  softmx_converter_free(h);
  return true;
}

}  // namespace

// Every f16 and bf16 input into every spec under ocp, every deterministic mode x saturation, both
// tininess rules for rne: the batch and converter forms on every input and setting; softmx_convert
// and the converter's single-value call on every f16 input under rne/finite, rz/none, ru/finite and
// rd/none (every 61st under the others).
TEST(CApiRuntimeConvert, EverySpecFromEveryF16AndBf16Input) {
  conformance::Tally t("capi: runtime specs, every f16 and bf16 input into each spec, ocp, every setting");
  for (const char* spec : kConvertSpecs)
    for (const char* src : {"f16", "bf16"}) {
      const auto inputs = every_code(parse_format_spec(src));
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          const bool scalar = std::string(src) == "f16" &&
                              ((r == Rounding::rne && s == Saturation::finite) || (r == Rounding::rz && s == Saturation::none) ||
                               (r == Rounding::ru && s == Saturation::finite) || (r == Rounding::rd && s == Saturation::none));
          ASSERT_TRUE(check_runtime_conversion(t, src, spec, ocp_dialect(), explicit_setting(ocp_dialect(), r, s), inputs,
                                               scalar))
              << "ocp refused " << src << " -> " << spec;
        }
      check_runtime_conversion(t, src, spec, ocp_dialect(),
                               explicit_setting(ocp_dialect(), Rounding::rne, Saturation::finite, Tininess::before_rounding),
                               inputs, false);
      check_runtime_conversion(t, src, spec, ocp_dialect(), default_setting(ocp_dialect(), parse_format_spec(spec)), inputs,
                               false);
    }
  t.report();
}

// Every code of each spec into every named format and every spec (itself included), under ocp,
// every deterministic mode x saturation, every C form on every code.
TEST(CApiRuntimeConvert, EveryCodeOfEverySpecIntoEveryFormat) {
  conformance::Tally t("capi: runtime specs, every code of each spec into every named format and spec, ocp, every setting");
  std::vector<std::string> dsts;
  for (const Format& f : all_formats()) dsts.emplace_back(f.name);
  for (const char* spec : kConvertSpecs) dsts.emplace_back(spec);
  for (const char* spec : kConvertSpecs) {
    const auto inputs = every_code(parse_format_spec(spec));
    for (const std::string& dst : dsts)
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none})
          ASSERT_TRUE(check_runtime_conversion(t, spec, dst, ocp_dialect(), explicit_setting(ocp_dialect(), r, s), inputs,
                                               true))
              << "ocp refused " << spec << " -> " << dst;
  }
  t.report();
}

// Every dialect, with its defaults and with every mode x saturation: every f16 input into each
// spec and every code of each spec into f32 and e4m3. Where the library refuses (cuda refuses
// every runtime format, torchao those with specials, ...), every C form refuses with
// SOFTMX_ERR_UNSUPPORTED and the library's reason. softmx_check_support and
// softmx_dialect_support agree with unsupported_reason mode by mode.
TEST(CApiRuntimeConvert, EveryDialect) {
  conformance::Tally t("capi: runtime specs under every dialect (conversions, refusals, support queries)");
  std::size_t refused = 0, served = 0;
  const auto f16 = every_code(format(FormatId::f16));
  for (const Dialect& d : all_dialects())
    for (const char* spec : kConvertSpecs) {
      const Format fd = parse_format_spec(spec);
      const softmx_format cd = clookup(spec);
      // Into the spec from every f16 input under the defaults; the modes on a sample.
      (check_runtime_conversion(t, "f16", spec, d, default_setting(d, fd), f16, false) ? served : refused)++;
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          std::vector<std::uint64_t> sample;
          for (std::uint64_t x = r == Rounding::rne ? 0 : static_cast<std::uint64_t>(r); x < 65536; x += 257) sample.push_back(x);
          (check_runtime_conversion(t, "f16", spec, d, explicit_setting(d, r, s), sample, true) ? served : refused)++;
        }
      // From the spec: every code into f32 and e4m3 under the defaults.
      const auto codes = every_code(fd);
      for (const char* dst : {"f32", "e4m3"})
        (check_runtime_conversion(t, spec, dst, d, default_setting(d, parse_format_spec(dst)), codes, true) ? served
                                                                                                          : refused)++;
      // The support queries, mode by mode (rs included).
      std::uint32_t want_modes = 0, want_sats = 0;
      for (int r = 0; r < kRoundingCount; ++r)
        for (Saturation s : {Saturation::finite, Saturation::none, Saturation::propagate}) {
          const Context c = context(static_cast<Rounding>(r), s, Tininess::after_rounding);
          const auto why = unsupported_reason(d, fd, c);
          softmx_context cc = cctx(d, static_cast<Rounding>(r), s, Tininess::after_rounding);
          softmx_error err;
          const int st = softmx_check_support(&cd, &cc, &err);
          t.check(why ? st == SOFTMX_ERR_UNSUPPORTED && std::string(err.message).find(*why) != std::string::npos
                      : st == SOFTMX_OK,
                  [&] { return std::string(d.name) + " " + spec + ": softmx_check_support " + softmx_status_name(st) + " " + err.message; });
          if (!why) {
            want_modes |= 1u << r;
            want_sats |= 1u << (s == Saturation::finite    ? SOFTMX_SAT_FINITE
                                : s == Saturation::propagate ? SOFTMX_SAT_PROPAGATE
                                                             : SOFTMX_SAT_NONE);
          }
        }
      std::uint32_t modes = 99, sats = 99;
      int32_t dr = 99, ds = 99;
      const int st = softmx_dialect_support(cdialect(d), &cd, &modes, &sats, &dr, &ds, nullptr);
      const DestinationSupport& sup = support_for(d, fd);
      t.check(st == SOFTMX_OK && modes == want_modes && sats == want_sats &&
                  dr == static_cast<int32_t>(sup.default_rounding) &&
                  ds == (sup.default_saturation == Saturation::finite ? SOFTMX_SAT_FINITE : SOFTMX_SAT_NONE),
              [&] { return std::string(d.name) + " " + spec + ": softmx_dialect_support masks " + hex(modes) + "/" + hex(sats) +
                           ", expected " + hex(want_modes) + "/" + hex(want_sats); });
    }
  std::printf("[ counts   ] %zu conversions served, %zu refused by their dialect (each refusal checked)\n", served, refused);
  EXPECT_GT(served, 0u);
  EXPECT_GT(refused, 0u);
  t.report();
}

// Stochastic rounding into each spec: the context's rbits for one value, each element's own in a
// batch, and the converter's per-call form, at several widths.
TEST(CApiRuntimeConvert, StochasticRounding) {
  conformance::Tally t("capi: runtime specs, stochastic rounding (scalar, batch with per-element rbits, converter)");
  SplitMix64 rng(26);
  const auto inputs = every_code(format(FormatId::f16));
  const softmx_format cs = cfmt(FormatId::f16);
  for (const char* spec : kConvertSpecs)
    for (std::uint8_t w : {1, 8, 32}) {
      const softmx_format cd = clookup(spec);
      const Format fd = parse_format_spec(spec);
      const std::uint64_t mask = w == 64 ? ~0ull : (std::uint64_t{1} << w) - 1;
      std::vector<std::uint64_t> rb(inputs.size());
      for (auto& r : rb) r = rng.next() & mask;
      const Context ctx = context(Rounding::rs, Saturation::finite, Tininess::after_rounding, w);
      const softmx_context cc = cctx(ocp_dialect(), Rounding::rs, Saturation::finite, Tininess::after_rounding, w);
      const Converter conv(format(FormatId::f16), fd, ctx);
      const auto in = stored(FormatId::f16, inputs);
      const std::size_t n = inputs.size(), ob = bytes_of(fd);
      std::vector<unsigned char> want(n * ob), out(n * ob);
      std::vector<std::uint8_t> wf(n), f(n);
      conv.run(in.data(), want.data(), wf.data(), n, rb.data());
      softmx_error err;
      ASSERT_EQ(softmx_convert_batch(&cs, &cd, &cc, in.data(), out.data(), f.data(), n, rb.data(), &err), SOFTMX_OK)
          << err.message;
      for (std::size_t i = 0; i < n; ++i)
        t.check(load(out, ob, i) == load(want, ob, i) && f[i] == wf[i],
                [&] { return std::string(spec) + " rs batch, input " + hex(inputs[i]); });
      softmx_converter* h = nullptr;
      ASSERT_EQ(softmx_converter_new(&cs, &cd, &cc, &h, &err), SOFTMX_OK) << err.message;
      for (std::size_t i = 0; i < n; i += 13) {
        std::uint64_t code = 0, code2 = 0;
        std::uint8_t f1 = 0, f2 = 0;
        softmx_context one = cc;
        one.rbits = rb[i];
        Context c1 = ctx;
        c1.rbits = rb[i];
        const Result r = convert(format(FormatId::f16), fd, inputs[i], c1, ocp_dialect());
        const int a = softmx_convert(&cs, &cd, inputs[i], &one, &code, &f1, &err);
        const int b = softmx_converter_convert_rs(h, inputs[i], rb[i], &code2, &f2, &err);
        t.check(a == SOFTMX_OK && b == SOFTMX_OK && code == r.code && f1 == r.flags && code2 == r.code && f2 == r.flags &&
                    r.code == load(want, ob, i),
                [&] { return std::string(spec) + " rs scalar, input " + hex(inputs[i]) + " rbits " + hex(rb[i]); });
      }
      softmx_converter_free(h);
    }
  t.report();
}

// softmx_converter_run_on: every instruction set this CPU runs gives the scalar loop's results,
// from every f16 input and from random f32 inputs into each spec, and from each spec into f32.
TEST(CApiRuntimeConvert, EveryInstructionSet) {
  conformance::Tally t("capi: runtime specs, softmx_converter_run_on every instruction set");
  for (const char* spec : kConvertSpecs) {
    const Format fd = parse_format_spec(spec);
    struct Pair {
      std::string src, dst;
      std::vector<std::uint64_t> inputs;
    };
    const Pair pairs[] = {{"f16", spec, every_code(format(FormatId::f16))},
                          {"f32", spec, conformance::random_inputs(FormatId::f32, fd, 20000, 26)},
                          {spec, "f32", every_code(fd)}};
    for (const Pair& p : pairs) {
      const softmx_format cs = clookup(p.src.c_str()), cd = clookup(p.dst.c_str());
      const Format fs = parse_format_spec(p.src), fdst = parse_format_spec(p.dst);
      const Converter conv(fs, fdst, Context{});
      const auto in = stored_as(fs, p.inputs);
      const std::size_t n = p.inputs.size(), ob = bytes_of(fdst);
      std::vector<unsigned char> want(n * ob), out(n * ob);
      std::vector<std::uint8_t> wf(n), f(n);
      run_on(conv, Isa::scalar, in.data(), want.data(), wf.data(), n);
      softmx_converter* h = nullptr;
      softmx_error err;
      ASSERT_EQ(softmx_converter_new(&cs, &cd, nullptr, &h, &err), SOFTMX_OK) << err.message;
      for (int isa = 0; isa < 3; ++isa) {
        if (!isa_supported(static_cast<Isa>(isa))) continue;
        ASSERT_EQ(softmx_converter_run_on(h, isa, in.data(), out.data(), f.data(), n, nullptr, &err), SOFTMX_OK)
            << err.message;
        for (std::size_t i = 0; i < n; ++i)
          t.check(load(out, ob, i) == load(want, ob, i) && f[i] == wf[i], [&] {
            return p.src + " -> " + p.dst + " on " + softmx_isa_name(isa) + ": input " + hex(p.inputs[i]);
          });
      }
      softmx_converter_free(h);
    }
  }
  t.report();
}

// Ownership: a converter keeps copies of its descriptors and context (the caller's may change or
// die at once); softmx_converter_info gives the canonical descriptors; converters made and freed
// by several threads at once (no shared state). Run under ASan (scripts/test-sanitized.sh) and
// valgrind, this is the handle-lifetime check.
TEST(CApiRuntimeConvert, ConvertersOwnCopiesOfTheirDescriptors) {
  const auto inputs = every_code(format(FormatId::f16));
  const auto in = stored(FormatId::f16, inputs);
  for (const char* spec : kConvertSpecs) {
    const Format fd = parse_format_spec(spec);
    softmx_converter* h = nullptr;
    {
      auto cs = std::make_unique<softmx_format>(cfmt(FormatId::f16));
      auto cd = std::make_unique<softmx_format>(clookup(spec));
      auto cc = std::make_unique<softmx_context>(cctx(ocp_dialect(), Rounding::rz, Saturation::none, Tininess::after_rounding));
      ASSERT_EQ(softmx_converter_new(cs.get(), cd.get(), cc.get(), &h, nullptr), SOFTMX_OK);
      std::memset(cd.get(), 0xA5, sizeof *cd);  // scribbled, then freed: the converter must not look
      std::memset(cc.get(), 0xA5, sizeof *cc);
    }
    const Converter conv(format(FormatId::f16), fd, context(Rounding::rz, Saturation::none, Tininess::after_rounding));
    std::vector<unsigned char> want(inputs.size() * bytes_of(fd)), out(want.size());
    conv.run(in.data(), want.data(), nullptr, inputs.size());
    ASSERT_EQ(softmx_converter_run(h, in.data(), out.data(), nullptr, inputs.size(), nullptr, nullptr), SOFTMX_OK);
    EXPECT_EQ(out, want) << spec;
    softmx_format s{}, d{};
    softmx_context c{};
    ASSERT_EQ(softmx_converter_info(h, &s, &d, &c, nullptr), SOFTMX_OK);
    const softmx_format looked = clookup(spec);
    EXPECT_EQ(std::memcmp(&d, &looked, sizeof d), 0) << spec << ": info gave " << d.name;
    EXPECT_EQ(s.id, SOFTMX_FORMAT_F16);
    EXPECT_EQ(c.rounding, SOFTMX_ROUND_RZ);
    EXPECT_EQ(c.saturation, SOFTMX_SAT_NONE);
    softmx_converter_free(h);
  }
  // Threads making, using and freeing their own converters from one shared descriptor table.
  std::vector<softmx_format> table;
  for (const char* spec : kConvertSpecs) table.push_back(clookup(spec));
  const softmx_format f32 = cfmt(FormatId::f32);
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      for (int rep = 0; rep < 200; ++rep) {
        const softmx_format& d = table[static_cast<std::size_t>(rep + th) % table.size()];
        softmx_converter* h = nullptr;
        softmx_error err;
        std::uint64_t code = 0;
        if (softmx_converter_new(&f32, &d, nullptr, &h, &err) != SOFTMX_OK ||
            softmx_converter_convert(h, 0x3F800000u, &code, nullptr, &err) != SOFTMX_OK)
          ++bad[static_cast<std::size_t>(th)];
        std::uint64_t direct = 0;
        if (softmx_convert(&f32, &d, 0x3F800000u, nullptr, &direct, nullptr, &err) != SOFTMX_OK || direct != code)
          ++bad[static_cast<std::size_t>(th)];
        softmx_converter_free(h);
      }
    });
  for (auto& th : threads) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

// softmx_explain into and from runtime formats equals the C++ functions' text, and its result
// line softmx_convert's: every 61st f16 input into each spec, every code of each spec into f32.
TEST(CApiRuntimeConvert, ExplainEqualsTheCppExplanation) {
  conformance::Tally t("capi: runtime specs, softmx_explain == softmx/explain.hpp composition");
  auto expected = [](const ExplainInput& in, const Format& dst, const Context& c, Result* result) {
    const Neighbours nb = find_neighbours(in, dst);
    const Result r = convert(*in.from, dst, *in.code, c, ocp_dialect());
    *result = r;
    char head[64];
    std::snprintf(head, sizeof head, "result %0*llX flags %02X: ", dst.hex_digits(),
                  static_cast<unsigned long long>(r.code), static_cast<unsigned>(r.flags));
    return input_text(in, dst) + "destination " + describe_format(dst) + "\n" + neighbours_text(in, nb, dst) + head +
           rounding_reason(in, nb, dst, c, ocp_dialect(), r) + "\n";
  };
  for (const char* spec : kConvertSpecs)
    for (int dir = 0; dir < 2; ++dir) {
      const std::string src = dir == 0 ? "f16" : spec, dst = dir == 0 ? spec : "f32";
      const Format fs = parse_format_spec(src), fdst = parse_format_spec(dst);
      const softmx_format cs = clookup(src.c_str()), cd = clookup(dst.c_str());
      for (auto [r, s] : {std::pair{Rounding::rne, Saturation::finite}, std::pair{Rounding::rz, Saturation::none}}) {
        const Context c = context(r, s, Tininess::after_rounding);
        const softmx_context cc = cctx(ocp_dialect(), r, s, Tininess::after_rounding);
        for (std::uint64_t code = 0; code <= fs.code_mask(); code += dir == 0 ? 61 : 1) {
          Result want{};
          const std::string exp = expected(explain_input_code(fs, code), fdst, c, &want);
          std::size_t n = 0;
          softmx_error e{};
          std::string got(4096, '\0');
          const int st = softmx_explain(&cs, &cd, code, &cc, got.data(), got.size(), &n, &e);
          got.resize(st == SOFTMX_OK ? n : 0);
          t.check(st == SOFTMX_OK && got == exp,
                  [&] { return src + " -> " + dst + " " + hex(code) + ": " + e.message + got + " vs " + exp; });
        }
      }
    }
  // explain_value into a runtime format: 248 into FP8ALT rounds past 240 (overflow), and an
  // IEEE-like destination overflows to Inf by default (SEMANTICS 4.1, issue 29).
  const softmx_format alt = clookup("e4m3:specials=ieee");
  char buf[4096];
  std::size_t n = 0;
  ASSERT_EQ(softmx_explain_value("248", &alt, nullptr, buf, sizeof buf, &n, nullptr), SOFTMX_OK);
  EXPECT_NE(std::string(buf, n).find("result 78 flags 05: "), std::string::npos) << buf;
  t.report();
}

// By hand, from docs/SEMANTICS.md: FP8ALT (e4m3, IEEE specials: max 240, Inf 0x78, quiet NaN
// 0x7C), e4m3fnuz (NaN 0x80) and int4; storage sizes of runtime formats; e8m0 named as a spec.
TEST(CApiRuntimeConvert, HandCases) {
  const softmx_format f32 = cfmt(FormatId::f32), alt = clookup("e4m3:specials=ieee"), fnuz = clookup("e4m3fnuz"),
                      int4 = clookup("int4");
  EXPECT_EQ(alt.id, SOFTMX_FORMAT_RUNTIME);
  EXPECT_EQ(std::string(alt.name), "e4m3:specials=ieee");
  EXPECT_EQ(alt.specials, SOFTMX_SPECIALS_IEEE);
  softmx_format ml;
  ASSERT_EQ(softmx_format_lookup("float8_e4m3", &ml, nullptr), SOFTMX_OK);  // ml_dtypes' name for it
  EXPECT_EQ(std::memcmp(&ml, &alt, sizeof ml), 0);
  softmx_context none, finite;
  softmx_context_init(&none);
  none.saturation = SOFTMX_SAT_NONE;
  softmx_context_init(&finite);
  finite.saturation = SOFTMX_SAT_FINITE;
  struct Case {
    const softmx_format* src;
    const softmx_format* dst;
    std::uint64_t in;
    const softmx_context* ctx;
    std::uint64_t code;
    std::uint8_t flags;
  };
  const Case cases[] = {
      {&f32, &alt, 0x43700000u, nullptr, 0x77, 0},                                            // 240: max
      // An IEEE-like runtime destination overflows to Inf by default, as f16 (SEMANTICS 4.1).
      {&f32, &alt, 0x43780000u, nullptr, 0x78, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},  // 248: Inf
      {&f32, &alt, 0x43780000u, &finite, 0x77, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},  // 248: satfinite
      {&f32, &alt, 0x43780000u, &none, 0x78, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},    // 248: Inf
      {&f32, &alt, 0x7F800000u, nullptr, 0x78, 0},                                            // Inf stays Inf
      {&f32, &alt, 0x7F800000u, &finite, 0x77, SOFTMX_FLAG_INVALID},                         // Inf: satfinite
      {&f32, &alt, 0xFF800000u, &none, 0xF8, 0},                                              // -Inf
      {&f32, &alt, 0x7FC00000u, nullptr, 0x7C, 0},                                            // quiet NaN
      {&f32, &alt, 0x7F800001u, nullptr, 0x7C, SOFTMX_FLAG_INVALID},                         // signalling NaN
      {&alt, &f32, 0x78, nullptr, 0x7F800000u, 0},                                            // Inf back
      {&alt, &f32, 0x01, nullptr, 0x3B000000u, 0},                                            // 2^-9, the least subnormal
      {&f32, &fnuz, 0x7FC00000u, nullptr, 0x80, 0},                                           // NaN: 0x80
      {&f32, &fnuz, 0x80000000u, nullptr, 0x00, 0},                                           // -0: +0
      {&fnuz, &f32, 0x80, nullptr, 0xFFC00000u, 0},                                           // NaN, sign bit kept
      {&f32, &int4, 0x3F800000u, nullptr, 0x4, 0},                                            // 1: int4 counts quarters
      {&f32, &int4, 0x40E00000u, nullptr, 0x7, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},  // 7: max 1.75
      {&int4, &f32, 0x8, nullptr, 0xC0000000u, 0},                                            // -2
  };
  for (const Case& c : cases) {
    std::uint64_t code = 0;
    std::uint8_t fl = 0;
    softmx_error err;
    ASSERT_EQ(softmx_convert(c.src, c.dst, c.in, c.ctx, &code, &fl, &err), SOFTMX_OK) << err.message;
    EXPECT_EQ(code, c.code) << c.src->name << " " << hex(c.in) << " -> " << c.dst->name;
    EXPECT_EQ(fl, c.flags) << c.src->name << " " << hex(c.in) << " -> " << c.dst->name;
  }
  // Storage: a runtime format's codes take the bytes of its width.
  EXPECT_EQ(softmx_storage_bytes(&alt), 1u);
  EXPECT_EQ(softmx_storage_bytes(&int4), 1u);
  const softmx_format e6m9 = clookup("e6m9"), e8m20 = clookup("e8m20");
  EXPECT_EQ(softmx_storage_bytes(&e6m9), 2u);
  EXPECT_EQ(softmx_storage_bytes(&e8m20), 4u);
  // A 16-bit and a 29-bit runtime format through the batch (2- and 4-byte storage).
  for (const softmx_format* wide : {&e6m9, &e8m20}) {
    const std::uint32_t in[3] = {0x3F800000u, 0x40490FDBu, 0xC2F6E979u};  // 1, pi, -123.456
    std::uint32_t out32[3] = {};
    std::uint16_t out16[3] = {};
    void* out = wide->width <= 16 ? static_cast<void*>(out16) : static_cast<void*>(out32);
    softmx_error err;
    ASSERT_EQ(softmx_convert_batch(&f32, wide, nullptr, in, out, nullptr, 3, nullptr, &err), SOFTMX_OK) << err.message;
    const Format fw = parse_format_spec(wide->name);
    for (int i = 0; i < 3; ++i) {
      const Result r = convert(format(FormatId::f32), fw, in[i], Context{});
      EXPECT_EQ(wide->width <= 16 ? out16[i] : out32[i], r.code) << wide->name << " " << hex(in[i]);
    }
  }
  // e8m0 named as a spec is e8m0.
  const softmx_format e8m0 = clookup("e8m0:sign=none:subnormals=no:specials=fn");
  EXPECT_EQ(e8m0.id, SOFTMX_FORMAT_E8M0);
}

// What a runtime format cannot do fails with a status and a message naming the argument and the
// field: bad specs (the library's message), hand-made descriptors, codes beyond the width, the
// dialects that refuse runtime formats, and the entry points whose C++ functions take a named
// format (block and NVFP4 sources, dequantize destinations, the tensor-core mma).
TEST(CApiRuntimeConvert, ErrorsNameTheArgumentAndTheField) {
  struct Spec {
    const char* spec;
    int status;
    const char* part;
  };
  for (const Spec& c : {Spec{"e4m3:specials=foo", SOFTMX_ERR_INVALID_ARGUMENT, "specials: expected ieee, fn, fnuz or none"},
                        Spec{"e4m3:bias=2000", SOFTMX_ERR_INVALID_ARGUMENT, "bias: expected an integer"},
                        Spec{"e9m2", SOFTMX_ERR_INVALID_ARGUMENT, "exp: expected 0 to 8 exponent bits"},
                        Spec{"e4m3:frob=1", SOFTMX_ERR_INVALID_ARGUMENT, "key: unknown key 'frob'"},
                        Spec{"e4m3:sign=maybe", SOFTMX_ERR_INVALID_ARGUMENT, "sign: expected magnitude, none or twos"},
                        Spec{"x4m3", SOFTMX_ERR_UNKNOWN_NAME, "unknown format 'x4m3'"}}) {
    softmx_format f;
    softmx_error err;
    EXPECT_EQ(softmx_format_lookup(c.spec, &f, &err), c.status) << c.spec;
    EXPECT_EQ(err.code, c.status);
    EXPECT_NE(std::string(err.message).find(c.part), std::string::npos) << c.spec << ": " << err.message;
    EXPECT_EQ(std::string(err.message).rfind("softmx_format_lookup: ", 0), 0u) << err.message;
    std::printf("[ message  ] %s\n", err.message);
  }
  const softmx_format f32 = cfmt(FormatId::f32), e4m3 = cfmt(FormatId::e4m3), alt = clookup("e4m3:specials=ieee"),
                      int4 = clookup("int4");
  std::uint64_t r = 0;
  std::uint8_t fl = 0;
  softmx_error err;
  // Hand-made runtime descriptors: a width its fields do not give; a bad specials value.
  softmx_format w9 = alt;
  w9.width = 9;
  EXPECT_EQ(softmx_convert(&f32, &w9, 0, nullptr, &r, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("softmx_convert: dst: a runtime format's field width = 9 differs from the 8 bits"),
            std::string::npos) << err.message;
  softmx_format sp = alt;
  sp.specials = 7;
  softmx_converter* h = nullptr;
  EXPECT_EQ(softmx_converter_new(&sp, &f32, nullptr, &h, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("src: a runtime format's field specials = 7"), std::string::npos) << err.message;
  EXPECT_EQ(h, nullptr);
  // A code beyond a runtime source's width, alone and in a batch.
  EXPECT_EQ(softmx_convert(&int4, &f32, 0x10, nullptr, &r, &fl, &err), SOFTMX_ERR_BAD_CODE);
  EXPECT_NE(std::string(err.message).find("code 0x10 is not a code of int4 (4 bits: at most 0xF)"), std::string::npos)
      << err.message;
  const std::uint8_t codes[3] = {1, 2, 0x13};
  std::uint32_t out[3];
  EXPECT_EQ(softmx_convert_batch(&int4, &f32, nullptr, codes, out, nullptr, 3, nullptr, &err), SOFTMX_ERR_BAD_CODE);
  EXPECT_NE(std::string(err.message).find("in[2] = 0x13 is not a code of int4"), std::string::npos) << err.message;
  // A dialect that converts named formats only.
  softmx_context cuda;
  softmx_context_init(&cuda);
  ASSERT_EQ(softmx_dialect_lookup("cuda", &cuda.dialect, nullptr), SOFTMX_OK);
  EXPECT_EQ(softmx_convert(&f32, &alt, 0, &cuda, &r, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("dialect cuda cannot convert to the runtime format e4m3:specials=ieee"),
            std::string::npos) << err.message;
  EXPECT_EQ(softmx_convert(&alt, &f32, 0, &cuda, &r, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("dialect cuda cannot read the runtime format e4m3:specials=ieee"),
            std::string::npos) << err.message;
  // The C++ functions that take a FormatId.
  EXPECT_EQ(softmx_dequantize_element(&e4m3, 127, 0x38, &alt, nullptr, &r, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("softmx_dequantize_element: dst: e4m3:specials=ieee is a runtime format"),
            std::string::npos) << err.message;
  std::uint8_t sc = 0, el[4] = {};
  const std::uint8_t vals[4] = {0x38, 0x40, 0x48, 0x50};
  EXPECT_EQ(softmx_quantize_block(&alt, vals, 4, nullptr, &sc, el, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("src: e4m3:specials=ieee is a runtime format; the source must be f64, f32, f16 or bf16"),
            std::string::npos) << err.message;
  const softmx_accumulation* hopper = nullptr;
  ASSERT_EQ(softmx_accumulation_lookup("hopper-fp8-mma", &hopper, nullptr), SOFTMX_OK);
  std::uint32_t d = 0;
  EXPECT_EQ(softmx_mma(hopper, &alt, vals, &e4m3, vals, 4, &f32, 0, &d, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("a_format: e4m3:specials=ieee is a runtime format"), std::string::npos)
      << err.message;
  const std::size_t shape[1] = {16};
  std::uint8_t sc16[1] = {0x38}, c16[16] = {};
  std::uint32_t o16[16];
  EXPECT_EQ(softmx_dequantize_nvfp4(shape, 1, 0, 0x3F800000u, 0x3F800000u, sc16, 1, c16, 16, &alt, nullptr, o16, 16,
                                    &fl, &err),
            SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("dst: e4m3:specials=ieee is a runtime format"), std::string::npos)
      << err.message;
}

// IEEE P3109 through the C API (issue 28): SOFTMX_SAT_PROPAGATE (P3109's SatPropagate) and
// SOFTMX_SPECIALS_EXTENDED, appended to their enums (no value renumbered); the draft's names are
// parsed; the p3109 dialect lists propagate and the ocp dialect refuses it; every bf16 input into
// binary8p{3,4,5}se and binary8p3sf under propagate gives the C++ library's code and flags.
TEST(CApiP3109, SatPropagateAndExtendedSpecials) {
  EXPECT_EQ(SOFTMX_SAT_FINITE, 0);
  EXPECT_EQ(SOFTMX_SAT_NONE, 1);
  EXPECT_EQ(SOFTMX_SAT_PROPAGATE, 2);
  EXPECT_EQ(SOFTMX_SPECIALS_FNUZ, 3);
  EXPECT_EQ(SOFTMX_SPECIALS_EXTENDED, static_cast<int32_t>(Specials::extended));
  const std::pair<const char*, int32_t> names[] = {{"SatPropagate", SOFTMX_SAT_PROPAGATE},
                                                   {"propagate", SOFTMX_SAT_PROPAGATE},
                                                   {"SATPROPAGATE", SOFTMX_SAT_PROPAGATE},
                                                   {"SatFinite", SOFTMX_SAT_FINITE},
                                                   {"SatNone", SOFTMX_SAT_NONE},
                                                   {"OvfInf", SOFTMX_SAT_NONE}};
  for (const auto& [n, want] : names) {
    int32_t v = -5;
    softmx_error err;
    ASSERT_EQ(softmx_saturation_from_name(n, &v, &err), SOFTMX_OK) << n << ": " << err.message;
    EXPECT_EQ(v, want) << n;
  }
  int32_t v = -5;
  softmx_error err;
  EXPECT_EQ(softmx_saturation_from_name("SatClamp", &v, &err), SOFTMX_ERR_UNKNOWN_NAME);
  EXPECT_NE(std::string(err.message).find("propagate"), std::string::npos) << err.message;

  const softmx_format bf16 = cfmt(FormatId::bf16), f32 = cfmt(FormatId::f32), p3 = clookup("binary8p3se");
  EXPECT_EQ(p3.id, SOFTMX_FORMAT_RUNTIME);
  EXPECT_EQ(p3.specials, SOFTMX_SPECIALS_EXTENDED);
  EXPECT_EQ(p3.width, 8);
  const softmx_dialect* p3109 = nullptr;
  const softmx_dialect* ocp = nullptr;
  ASSERT_EQ(softmx_dialect_lookup("p3109", &p3109, nullptr), SOFTMX_OK);
  ASSERT_EQ(softmx_dialect_lookup("ocp", &ocp, nullptr), SOFTMX_OK);

  // The p3109 dialect lists propagate; its default into an extended format is none (SatNone).
  uint32_t rm = 0, sm = 0;
  int32_t dr = -5, ds = -5;
  ASSERT_EQ(softmx_dialect_support(p3109, &p3, &rm, &sm, &dr, &ds, &err), SOFTMX_OK) << err.message;
  EXPECT_EQ(sm, (1u << SOFTMX_SAT_FINITE) | (1u << SOFTMX_SAT_NONE) | (1u << SOFTMX_SAT_PROPAGATE));
  EXPECT_EQ(dr, SOFTMX_ROUND_RNE);
  EXPECT_EQ(ds, SOFTMX_SAT_NONE);
  ASSERT_EQ(softmx_dialect_support(ocp, &f32, &rm, &sm, &dr, &ds, &err), SOFTMX_OK) << err.message;
  EXPECT_EQ((sm >> SOFTMX_SAT_PROPAGATE) & 1u, 0u);

  // Hand cases: 1e10 overflows, Inf is Inf only under none and propagate.
  struct Case {
    std::uint32_t in;
    int32_t sat;
    std::uint64_t code;
    std::uint8_t flags;
  };
  const Case cases[] = {
      {0x501502F9u, SOFTMX_SAT_PROPAGATE, 0x7E, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},  // 1e10: max
      {0x501502F9u, SOFTMX_SAT_FINITE, 0x7E, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},
      {0x501502F9u, SOFTMX_SAT_NONE, 0x7F, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT},  // Inf
      {0x7F800000u, SOFTMX_SAT_PROPAGATE, 0x7F, 0},                                      // +Inf stays
      {0xFF800000u, SOFTMX_SAT_PROPAGATE, 0xFF, 0},                                      // -Inf stays
      {0x7F800000u, SOFTMX_SAT_FINITE, 0x7E, SOFTMX_FLAG_INVALID},
      {0x7FC00000u, SOFTMX_SAT_PROPAGATE, 0x80, 0},  // the one NaN
      {0x3F800000u, SOFTMX_SAT_PROPAGATE, 0x40, 0},  // 1 = 2^0: exponent field 16 (bias 16)
  };
  for (const Case& c : cases) {
    softmx_context ctx;
    softmx_context_init(&ctx);
    ctx.saturation = c.sat;
    ctx.dialect = p3109;
    std::uint64_t code = 0;
    std::uint8_t fl = 0;
    ASSERT_EQ(softmx_convert(&f32, &p3, c.in, &ctx, &code, &fl, &err), SOFTMX_OK) << err.message;
    EXPECT_EQ(code, c.code) << hex(c.in) << " sat " << c.sat;
    EXPECT_EQ(fl, c.flags) << hex(c.in) << " sat " << c.sat;
  }

  // The ocp dialect refuses propagate, with the saturation's name in the message.
  softmx_context octx;
  softmx_context_init(&octx);
  octx.saturation = SOFTMX_SAT_PROPAGATE;
  octx.dialect = ocp;
  std::uint64_t code = 0;
  std::uint8_t fl = 0;
  EXPECT_EQ(softmx_convert(&f32, &f32, 0x3F800000u, &octx, &code, &fl, &err), SOFTMX_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("propagate"), std::string::npos) << err.message;
  octx.saturation = 3;  // not a SOFTMX_SAT_ value
  EXPECT_EQ(softmx_convert(&f32, &f32, 0x3F800000u, &octx, &code, &fl, &err), SOFTMX_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("SOFTMX_SAT_PROPAGATE"), std::string::npos) << err.message;

  // Every bf16 input, through a converter, equals the C++ library; converter_info gives the
  // saturation back.
  const Dialect& dp = *find_dialect("p3109");
  for (const char* spec : {"binary8p3se", "binary8p4se", "binary8p5se", "binary8p3sf"}) {
    const softmx_format dst = clookup(spec);
    const Format fd = parse_format_spec(spec);
    softmx_context ctx;
    softmx_context_init(&ctx);
    ctx.saturation = SOFTMX_SAT_PROPAGATE;
    ctx.dialect = p3109;
    softmx_converter* h = nullptr;
    ASSERT_EQ(softmx_converter_new(&bf16, &dst, &ctx, &h, &err), SOFTMX_OK) << spec << ": " << err.message;
    softmx_context back;
    ASSERT_EQ(softmx_converter_info(h, nullptr, nullptr, &back, &err), SOFTMX_OK) << err.message;
    EXPECT_EQ(back.saturation, SOFTMX_SAT_PROPAGATE);
    std::vector<std::uint16_t> in(65536);
    for (std::uint32_t i = 0; i < 65536; ++i) in[i] = static_cast<std::uint16_t>(i);
    std::vector<std::uint8_t> out(65536), flags(65536);
    ASSERT_EQ(softmx_converter_run(h, in.data(), out.data(), flags.data(), in.size(), nullptr, &err), SOFTMX_OK) << err.message;
    softmx_converter_free(h);
    Context c;
    c.saturation = Saturation::propagate;
    std::size_t bad = 0;
    for (std::uint32_t i = 0; i < 65536; ++i) {
      const Result r = convert(format(FormatId::bf16), fd, i, c, dp);
      if (out[i] != r.code || flags[i] != r.flags) ++bad;
    }
    EXPECT_EQ(bad, 0u) << spec;
  }
}
