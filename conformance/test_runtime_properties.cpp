// conformance/test_runtime_properties.cpp: properties of conversions into and out of randomly
// drawn runtime formats (RapidCheck): every non-NaN code survives a round trip through f64
// exactly and without flags; conversion is monotone; sign-magnitude formats are symmetric under
// the symmetric modes (and ru(-x) = -rd(x)); a runtime pair gives the same results as the same
// conversion through the generic kernels with the descriptors read at run time. The MPFR oracle
// checks the values themselves (test_mpfr_runtime.cpp); these hold for any descriptor.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "softmx/convert.hpp"

namespace softmx {
namespace {

/// A random valid descriptor of at most `max_width` bits (the width is drawn first, so no draw is
/// rejected for width; a field set the rules refuse is discarded).
Format random_format(int max_width) {
  FormatFields ff;
  ff.sign = *rc::gen::element(SignEncoding::magnitude, SignEncoding::none, SignEncoding::twos_complement);
  const int sign = ff.sign == SignEncoding::none ? 0 : 1;
  const int width = *rc::gen::inRange(std::max(2, sign + 1), max_width + 1);
  ff.exp_bits = *rc::gen::inRange(0, std::min(8, width - sign) + 1);
  ff.man_bits = width - sign - ff.exp_bits;
  if (ff.man_bits > 23) RC_DISCARD("more than 23 fraction bits");
  if (*rc::gen::arbitrary<bool>()) ff.bias = default_bias(ff.exp_bits) + *rc::gen::inRange(-20, 21);
  if (ff.sign == SignEncoding::twos_complement) {
    ff.specials = Specials::none;
    ff.fixed_point = ff.exp_bits <= 1 && *rc::gen::arbitrary<bool>();
  } else {
    ff.specials = *rc::gen::element(Specials::ieee, Specials::fn, Specials::none, Specials::fnuz);
    ff.subnormals = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
  }
  try {
    return make_format(ff);
  } catch (const FormatError&) {
    RC_DISCARD("not a valid descriptor");
  }
}

/// A random code of f that is finite (code 0 always is).
std::uint64_t random_value_code(const Format& f) {
  const std::uint64_t c = *rc::gen::inRange<std::uint64_t>(0, f.code_mask() + 1);
  const ValueClass k = unpack(f, c).cls;
  return k == ValueClass::nan || k == ValueClass::inf ? 0 : c;
}

/// The value of a code (exact; Inf stays Inf: saturation none).
double to_f64(const Format& f, std::uint64_t code) {
  Context c;
  c.saturation = Saturation::none;
  return std::bit_cast<double>(convert(f, format(FormatId::f64), code, c).code);
}

/// The ocp policies with two's complement -2 allowed, so every code of an intN round-trips.
const Dialect& minus2_dialect() {
  static const Dialect d = [] {
    Dialect x = ocp_dialect();
    x.int8_minus2 = true;
    return x;
  }();
  return d;
}

TEST(RuntimeProperties, EveryValueCodeRoundTripsThroughF64) {
  EXPECT_TRUE(rc::check("code -> f64 -> code is exact, no flags, every mode and saturation", [] {
    const Format f = random_format(32);
    const std::uint64_t c = random_value_code(f);
    const double x = to_f64(f, c);
    for (Rounding r : kDeterministicRoundings)
      for (Saturation s : {Saturation::finite, Saturation::none}) {
        Context ctx;
        ctx.rounding = r;
        ctx.saturation = s;
        const Result back = convert(format(FormatId::f64), f, std::bit_cast<std::uint64_t>(x), ctx, minus2_dialect());
        RC_ASSERT(back.flags == Flags{0});
        RC_ASSERT(back.code == c);
      }
  }));
}

TEST(RuntimeProperties, ConversionIsMonotone) {
  EXPECT_TRUE(rc::check("x <= y gives value(x) <= value(y), every mode", [] {
    const Format f = random_format(16);
    const int lo = f.emin() - f.man_bits - 3;
    const int hi = static_cast<int>(f.max_finite_magnitude() >> f.man_bits) - f.bias + 3;
    auto draw = [&] {
      const double m = 1.0 + static_cast<double>(*rc::gen::inRange<std::uint32_t>(0, 1u << 30)) * 0x1p-30;
      const double x = std::ldexp(m, *rc::gen::inRange(lo, hi + 1));
      return f.is_signed() && *rc::gen::arbitrary<bool>() ? -x : x;  // unsigned: negatives are NaN
    };
    double x = draw(), y = draw();
    if (y < x) std::swap(x, y);
    for (Rounding r : kDeterministicRoundings) {
      Context ctx;
      ctx.rounding = r;  // saturation finite: every result finite
      const double a = to_f64(f, convert(format(FormatId::f64), f, std::bit_cast<std::uint64_t>(x), ctx).code);
      const double b = to_f64(f, convert(format(FormatId::f64), f, std::bit_cast<std::uint64_t>(y), ctx).code);
      RC_ASSERT(a <= b);
    }
  }));
}

TEST(RuntimeProperties, SignMagnitudeFormatsAreSymmetric) {
  EXPECT_TRUE(rc::check("value(-x) = -value(x) under rne, rna, rz, ro; ru(-x) = -rd(x)", [] {
    const Format f = random_format(16);
    RC_PRE(f.sign == SignEncoding::magnitude);
    const double m = 1.0 + static_cast<double>(*rc::gen::inRange<std::uint32_t>(0, 1u << 30)) * 0x1p-30;
    const int hi = static_cast<int>(f.max_finite_magnitude() >> f.man_bits) - f.bias + 3;
    const double x = std::ldexp(m, *rc::gen::inRange(f.emin() - f.man_bits - 3, hi + 1));
    auto conv = [&](double v, Rounding r, Saturation s) {
      Context ctx;
      ctx.rounding = r;
      ctx.saturation = s;
      return convert(format(FormatId::f64), f, std::bit_cast<std::uint64_t>(v), ctx);
    };
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      for (Rounding r : {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ro}) {
        const Result p = conv(x, r, s), n = conv(-x, r, s);
        RC_ASSERT(p.flags == n.flags);
        const double a = to_f64(f, p.code), b = to_f64(f, n.code);
        RC_ASSERT((std::isnan(a) && std::isnan(b)) || a == -b);
      }
      const Result up = conv(-x, Rounding::ru, s), down = conv(x, Rounding::rd, s);
      RC_ASSERT(up.flags == down.flags);
      const double a = to_f64(f, up.code), b = to_f64(f, down.code);
      RC_ASSERT((std::isnan(a) && std::isnan(b)) || a == -b);
    }
  }));
}

TEST(RuntimeProperties, BatchesEqualSingleValues) {
  // Converter::run over random codes of a random runtime source (the generic batch kernel, or
  // the code table for sources of at most 16 bits) equals operator() per code.
  EXPECT_TRUE(rc::check("run() == operator() for random runtime pairs", [] {
    const Format s = random_format(16), d = random_format(32);
    Context ctx;
    ctx.rounding = *rc::gen::element(Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro);
    const Converter conv(s, d, ctx);
    const std::size_t n = 70000;  // past 2^16: a 16-bit source's table is made and read
    std::vector<std::uint16_t> in16(n);
    std::vector<std::uint8_t> in8(n);
    for (std::size_t i = 0; i < n; ++i) {
      in16[i] = static_cast<std::uint16_t>((i * 0x9E3779B1u) & s.code_mask());
      in8[i] = static_cast<std::uint8_t>(in16[i]);
    }
    std::vector<std::uint32_t> out(n);
    std::vector<Flags> flags(n);
    const void* in = s.width <= 8 ? static_cast<const void*>(in8.data()) : in16.data();
    for (int pass = 0; pass < 2; ++pass) {
      if (d.width <= 8) {
        std::vector<std::uint8_t> o(n);
        conv.run(in, o.data(), flags.data(), n);
        for (std::size_t i = 0; i < n; ++i) out[i] = o[i];
      } else if (d.width <= 16) {
        std::vector<std::uint16_t> o(n);
        conv.run(in, o.data(), flags.data(), n);
        for (std::size_t i = 0; i < n; ++i) out[i] = o[i];
      } else {
        conv.run(in, out.data(), flags.data(), n);
      }
      for (std::size_t i = 0; i < n; i += 97) {
        const Result r = conv(in16[i]);
        RC_ASSERT(out[i] == r.code);
        RC_ASSERT(flags[i] == r.flags);
      }
    }
  }));
}

}  // namespace
}  // namespace softmx
