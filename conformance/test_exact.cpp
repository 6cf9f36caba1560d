// test_exact.cpp: exact parsing, exact <-> Unpacked, exact decimal printing.
#include "softmx/exact.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace softmx {
namespace {

ExactValue parse_ok(const std::string& s) {
  std::string err;
  auto v = parse_exact(s, &err);
  EXPECT_TRUE(v.has_value()) << s << ": " << err;
  return v.value_or(ExactValue{});
}

Rational rat(long long n, long long d = 1) { return Rational(BigInt(n), BigInt(d)); }

Rational parse_value(const std::string& s) { return to_rational(parse_ok(s)); }

Unpacked unpacked_of(const std::string& s) { return to_unpacked(parse_ok(s)); }

Unpacked finite(bool sign, std::int32_t exp, std::uint64_t sig, bool sticky = false) {
  Unpacked u;
  u.cls = ValueClass::finite;
  u.sign = sign;
  u.exp = exp;
  u.sig = sig;
  u.sticky = sticky;
  return u;
}

void expect_unpacked(const Unpacked& u, bool sign, std::int32_t exp, std::uint64_t sig, bool sticky) {
  EXPECT_EQ(u.cls, ValueClass::finite);
  EXPECT_EQ(u.sign, sign);
  EXPECT_EQ(u.exp, exp);
  EXPECT_EQ(u.sig, sig) << std::hex << u.sig;
  EXPECT_EQ(u.sticky, sticky);
}

double f64_of(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

/// Unpacked of a finite non-zero double, exactly.
Unpacked unpack_f64(double d) {
  Unpacked u;
  u.cls = ValueClass::finite;
  u.sign = d < 0;
  int e = 0;
  const double m = std::frexp(std::fabs(d), &e);  // [0.5, 1)
  u.exp = e - 1;
  u.sig = static_cast<std::uint64_t>(std::ldexp(m, 64));
  return u;
}

// ---------------------------------------------------------------- parsing: values

TEST(ParseExact, Decimals) {
  EXPECT_EQ(parse_value("1.5"), rat(3, 2));
  EXPECT_EQ(parse_value("+2"), rat(2));
  EXPECT_EQ(parse_value(".5"), rat(1, 2));
  EXPECT_EQ(parse_value("5."), rat(5));
  EXPECT_EQ(parse_value("00012"), rat(12));
  EXPECT_EQ(parse_value("0012.500"), rat(25, 2));
  EXPECT_EQ(parse_value("1.5E+3"), rat(1500));
  EXPECT_EQ(parse_value("1.5e3"), rat(1500));
  EXPECT_EQ(parse_value("-0.25"), rat(-1, 4));
  EXPECT_EQ(parse_value("0.1"), rat(1, 10));
  EXPECT_EQ(parse_value("1e-40"), Rational(BigInt(1), boost::multiprecision::pow(BigInt(10), 40)));
  EXPECT_EQ(parse_value("1e+0"), rat(1));
  EXPECT_EQ(parse_value("1e-0"), rat(1));
  EXPECT_EQ(parse_value("120e-1"), rat(12));
  EXPECT_EQ(parse_value("0.000e00005"), rat(0));
  EXPECT_EQ(parse_value("464.0000000000000000001"),
            rat(464) + Rational(BigInt(1), boost::multiprecision::pow(BigInt(10), 19)));
}

TEST(ParseExact, HexFloats) {
  EXPECT_EQ(parse_value("0x1.8p3"), rat(12));
  EXPECT_EQ(parse_value("-0X.1P-2"), rat(-1, 64));
  EXPECT_EQ(parse_value("0x10p0"), rat(16));
  EXPECT_EQ(parse_value("0xAbC.dEp+4"), Rational(BigInt(0xABCDE), BigInt(16)));
  EXPECT_EQ(parse_value("0x1.p-1"), rat(1, 2));
  EXPECT_EQ(parse_value("0x.8p1"), rat(1));
  EXPECT_EQ(parse_value("0x1e5p0"), rat(0x1e5));
  EXPECT_EQ(parse_value("+0x0001p-0"), rat(1));
  // f64 max and min subnormal written as C99 hex floats.
  EXPECT_EQ(parse_value("0x1.fffffffffffffp1023"),
            dyadic(BigInt((std::uint64_t{1} << 53) - 1), 1023 - 52));
  EXPECT_EQ(parse_value("0x0.0000000000001p-1022"), dyadic(1, -1074));
}

TEST(ParseExact, Zeros) {
  auto z = parse_ok("-0");
  EXPECT_EQ(z.cls, ValueClass::zero);
  EXPECT_TRUE(z.sign);
  z = parse_ok("0");
  EXPECT_EQ(z.cls, ValueClass::zero);
  EXPECT_FALSE(z.sign);
  for (const char* s : {"+0", "0.0", ".0", "0.", "000", "0e100000", "-0x0p0", "0x0.000p-5"}) {
    z = parse_ok(s);
    EXPECT_EQ(z.cls, ValueClass::zero) << s;
    EXPECT_EQ(z.sign, s[0] == '-') << s;
  }
}

TEST(ParseExact, Specials) {
  struct Case {
    const char* text;
    ValueClass cls;
    bool sign;
    bool quiet;
  };
  const Case cases[] = {
      {"inf", ValueClass::inf, false, true},      {"-inf", ValueClass::inf, true, true},
      {"+INF", ValueClass::inf, false, true},     {"Infinity", ValueClass::inf, false, true},
      {"-iNfInItY", ValueClass::inf, true, true}, {"nan", ValueClass::nan, false, true},
      {"-NaN", ValueClass::nan, true, true},      {"+nan", ValueClass::nan, false, true},
      {"snan", ValueClass::nan, false, false},    {"-sNaN", ValueClass::nan, true, false},
      {"SNAN", ValueClass::nan, false, false},
  };
  for (const Case& c : cases) {
    const ExactValue v = parse_ok(c.text);
    EXPECT_EQ(v.cls, c.cls) << c.text;
    EXPECT_EQ(v.sign, c.sign) << c.text;
    EXPECT_EQ(v.nan_quiet, c.quiet) << c.text;
  }
}

TEST(ParseExact, ExponentLimit) {
  EXPECT_TRUE(parse_exact("1e100000").has_value());
  EXPECT_TRUE(parse_exact("1e-100000").has_value());
  EXPECT_TRUE(parse_exact("0x1p100000").has_value());
  EXPECT_TRUE(parse_exact("0x1p-100000").has_value());
  EXPECT_TRUE(parse_exact("1e0000000000000000100000").has_value());  // leading zeros
  for (const char* s : {"1e100001", "1e-100001", "0x1p100001", "0x1p-100001", "1e99999999999999999999999",
                        "0e200000"}) {
    std::string err;
    EXPECT_FALSE(parse_exact(s, &err).has_value()) << s;
    EXPECT_EQ(err, "exponent out of range (limit 100000)") << s;
  }
}

// ---------------------------------------------------------------- parsing: errors

TEST(ParseExact, Errors) {
  const char* bad[] = {
      "",       "+",       "-",     "1e",      "1e+",     "1E-",    "0x1.8",   "0x1.8P",  "0x1.8p+",
      "1..2",   "1.2.3",   "1x",    "12abc",   ".",       "-.",     ".e5",     "e5",      "0x",
      "0x.p1",  "0xp1",    "0x1.8g", "0x1p3x", "1e5.5",   " 1",     "1 ",      "\t1",     "--1",
      "+-1",    "abc",     "infx",  "inff",    "infinit", "nanx",   "snan1",   "in",      "na",
      "1,5",    "1_000",   "0b101", "1e5e5",   "0x1.8p3.5", "nan(1)", "1.5f",  "\xff",    "1\n",
  };
  for (const char* s : bad) {
    std::string err;
    const auto v = parse_exact(s, &err);
    EXPECT_FALSE(v.has_value()) << '"' << s << '"';
    EXPECT_FALSE(err.empty()) << '"' << s << '"';
  }
  // A null error pointer is allowed.
  EXPECT_FALSE(parse_exact("1..2", nullptr).has_value());
  EXPECT_FALSE(parse_exact("1..2").has_value());
}

TEST(ParseExact, ErrorMessages) {
  auto err_of = [](const std::string& s) {
    std::string err;
    EXPECT_FALSE(parse_exact(s, &err).has_value()) << s;
    return err;
  };
  EXPECT_NE(err_of("").find("expected a decimal number, hex float (0x1.8p3), inf or nan"), std::string::npos);
  EXPECT_NE(err_of("abc").find("expected a decimal number, hex float (0x1.8p3), inf or nan"),
            std::string::npos);
  EXPECT_EQ(err_of("-"), "expected a number after the sign");
  EXPECT_EQ(err_of("1e"), "expected exponent digits after 'e'");
  EXPECT_EQ(err_of("0x1p"), "expected exponent digits after 'p'");
  EXPECT_EQ(err_of("0x1.8"), "hex float needs a binary exponent 'p' (as in 0x1.8p3)");
  EXPECT_EQ(err_of("0x"), "expected hex digits after '0x'");
  EXPECT_EQ(err_of("1..2"), "unexpected \".2\" after \"1.\"");
  EXPECT_EQ(err_of("infx"), "unexpected \"x\" after \"inf\"");
  EXPECT_NE(err_of(" 1").find("whitespace"), std::string::npos);
  EXPECT_NE(err_of("1 ").find("whitespace"), std::string::npos);
  EXPECT_EQ(err_of("1\x01"), "unexpected \"\\x01\" after \"1\"");
}

// ---------------------------------------------------------------- to_unpacked

TEST(ToUnpacked, Examples) {
  expect_unpacked(unpacked_of("0.1"), false, -4, 0xCCCCCCCCCCCCCCCCull, true);
  expect_unpacked(unpacked_of("1"), false, 0, std::uint64_t{1} << 63, false);
  expect_unpacked(unpacked_of("-1"), true, 0, std::uint64_t{1} << 63, false);
  expect_unpacked(unpacked_of("464"), false, 8, 0xE800000000000000ull, false);
  expect_unpacked(unpacked_of("464.0000000000000000001"), false, 8, 0xE800000000000000ull, true);
  expect_unpacked(unpacked_of("448"), false, 8, 0xE000000000000000ull, false);
  expect_unpacked(unpacked_of("0x1.8p3"), false, 3, 0xC000000000000000ull, false);
  expect_unpacked(unpacked_of("1.3"), false, 0, 0xA666666666666666ull, true);
  expect_unpacked(unpacked_of("0.75"), false, -1, 0xC000000000000000ull, false);
  expect_unpacked(unpacked_of("3"), false, 1, 0xC000000000000000ull, false);
  expect_unpacked(unpacked_of("0.3333333333333333333333333"), false, -2, 0xAAAAAAAAAAAAAAAAull, true);
  // Exactly 64 significant bits: not sticky; 65: sticky.
  expect_unpacked(unpacked_of("18446744073709551615"), false, 63, ~std::uint64_t{0}, false);
  expect_unpacked(unpacked_of("36893488147419103231"), false, 64, ~std::uint64_t{0}, true);
  expect_unpacked(unpacked_of("36893488147419103230"), false, 64, ~std::uint64_t{0}, false);
  // Just below a power of two: exp is the lower one.
  expect_unpacked(unpacked_of("0.99999999999999999999999999999"), false, -1, ~std::uint64_t{0}, true);
}

TEST(ToUnpacked, Specials) {
  Unpacked u = unpacked_of("-0");
  EXPECT_EQ(u.cls, ValueClass::zero);
  EXPECT_TRUE(u.sign);
  u = unpacked_of("-inf");
  EXPECT_EQ(u.cls, ValueClass::inf);
  EXPECT_TRUE(u.sign);
  u = unpacked_of("snan");
  EXPECT_EQ(u.cls, ValueClass::nan);
  EXPECT_FALSE(u.nan_quiet);
  EXPECT_EQ(u.nan_payload, 0u);
  u = unpacked_of("-nan");
  EXPECT_EQ(u.cls, ValueClass::nan);
  EXPECT_TRUE(u.nan_quiet);
  EXPECT_TRUE(u.sign);

  ExactValue bad;
  bad.cls = ValueClass::finite;  // magnitude 0
  EXPECT_THROW(to_unpacked(bad), std::invalid_argument);
}

TEST(ToUnpacked, MatchesDoubleParsingWhereExact) {
  // Values representable in f64: the Unpacked is exact and equals the double's.
  for (const char* s : {"1.5", "-2.75", "0.0078125", "65504", "448", "57344", "1e22", "0x1.fffffffffffffp1023",
                        "0x1p-1074", "0x1p-1022", "0x1.23456789abcdep-500", "-9007199254740992", "0.0009765625"}) {
    const Unpacked u = unpacked_of(s);
    const double d = std::strtod(s, nullptr);
    const Unpacked ref = unpack_f64(d);
    EXPECT_FALSE(u.sticky) << s;
    EXPECT_EQ(u.exp, ref.exp) << s;
    EXPECT_EQ(u.sig, ref.sig) << s;
    EXPECT_EQ(u.sign, ref.sign) << s;
  }
}

// 1e100000 and 1e-100000 parse exactly (their speed is not a unit test's business: a timed test
// fails under load, and the suite's per-test timeout already catches a pathological slowdown).
TEST(ToUnpacked, HugeExponents) {
  const Unpacked big = unpacked_of("1e100000");
  const Unpacked small = unpacked_of("1e-100000");
  const Unpacked big2 = unpacked_of("9.999999999999999999999999999e100000");
  const Unpacked b2 = unpacked_of("0x1p100000");
  const Unpacked s2 = unpacked_of("-0x1p-100000");
  // floor(100000 * log2(10)) = 332192; 10^100000 is not a power of 2, so sticky.
  EXPECT_EQ(big.exp, 332192);
  EXPECT_TRUE(big.sticky);
  EXPECT_EQ(small.exp, -332193);
  EXPECT_TRUE(small.sticky);
  EXPECT_EQ(big2.exp, 332196);  // just below 10^100001
  expect_unpacked(b2, false, 100000, std::uint64_t{1} << 63, false);
  expect_unpacked(s2, true, -100000, std::uint64_t{1} << 63, false);
}

// ---------------------------------------------------------------- from_unpacked, dyadic

TEST(FromUnpacked, Values) {
  EXPECT_EQ(dyadic(3, -1), rat(3, 2));
  EXPECT_EQ(dyadic(-3, 2), rat(-12));
  EXPECT_EQ(dyadic(0, -5), rat(0));
  EXPECT_EQ(dyadic(12, -2), rat(3));
  EXPECT_EQ(dyadic(BigInt(1) << 200, -200), rat(1));

  ExactValue v = from_unpacked(finite(false, 8, 0xE000000000000000ull));
  EXPECT_EQ(v.cls, ValueClass::finite);
  EXPECT_EQ(v.magnitude, rat(448));
  EXPECT_EQ(to_string(v), "448");
  v = from_unpacked(finite(true, -9, std::uint64_t{1} << 63));
  EXPECT_EQ(to_string(v), "-0.001953125");
  EXPECT_THROW(from_unpacked(finite(false, 0, std::uint64_t{1} << 63, true)), std::invalid_argument);
  EXPECT_THROW(from_unpacked(finite(false, 0, 0)), std::invalid_argument);

  Unpacked n;
  n.cls = ValueClass::nan;
  n.sign = true;
  n.nan_quiet = false;
  n.nan_payload = 0x4000000000000000ull;
  v = from_unpacked(n);
  EXPECT_EQ(v.cls, ValueClass::nan);
  EXPECT_TRUE(v.sign);
  EXPECT_FALSE(v.nan_quiet);
  Unpacked z;
  z.sign = true;
  v = from_unpacked(z);
  EXPECT_EQ(v.cls, ValueClass::zero);
  EXPECT_TRUE(v.sign);
}

TEST(FromUnpacked, RoundTrips) {
  const std::uint64_t sigs[] = {std::uint64_t{1} << 63, 0x8000000000000001ull, 0xC000000000000000ull,
                                ~std::uint64_t{0}, 0xA5A5A5A5A5A5A5A5ull};
  const std::int32_t exps[] = {0, 1, -1, 63, 64, -64, 127, -149, 1023, -1074, 100000, -100000};
  for (auto sig : sigs) {
    for (auto exp : exps) {
      for (bool sign : {false, true}) {
        const Unpacked u = finite(sign, exp, sig);
        const ExactValue v = from_unpacked(u);
        const Unpacked back = to_unpacked(v);
        expect_unpacked(back, sign, exp, sig, false);
        if (exp > 1100 || exp < -1100) continue;  // text of 2^+-100000 is ~70000 digits: slow
        // Through text and back.
        const ExactValue again = parse_ok(to_string(v));
        EXPECT_EQ(again.cls, ValueClass::finite);
        EXPECT_EQ(again.sign, sign);
        EXPECT_EQ(again.magnitude, v.magnitude) << to_string(v);
      }
    }
  }
}

TEST(FromUnpacked, DoubleBitPatterns) {
  // Every f64 printed exactly parses back to the same double via strtod (correctly rounded).
  const std::uint64_t patterns[] = {0x0000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull,
                                    0x3FB999999999999Aull, 0x7FEFFFFFFFFFFFFFull, 0x400921FB54442D18ull,
                                    0xC07C800000000000ull};
  for (auto bits : patterns) {
    const double d = f64_of(bits);
    const ExactValue v = from_unpacked(unpack_f64(d));
    const std::string text = to_string(v);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), d) << text;
    EXPECT_EQ(parse_ok(text).magnitude, v.magnitude);
  }
}

// ---------------------------------------------------------------- to_decimal, to_string

TEST(ToDecimal, Plain) {
  EXPECT_EQ(to_decimal(rat(0)), "0");
  EXPECT_EQ(to_decimal(rat(448)), "448");
  EXPECT_EQ(to_decimal(rat(-3, 2)), "-1.5");
  EXPECT_EQ(to_decimal(rat(1, 512)), "0.001953125");
  EXPECT_EQ(to_decimal(rat(1, 10)), "0.1");
  EXPECT_EQ(to_decimal(rat(1000)), "1000");
  EXPECT_EQ(to_decimal(rat(12345, 100)), "123.45");
  EXPECT_EQ(to_decimal(rat(57344)), "57344");
  EXPECT_EQ(to_decimal(dyadic(1, -24)), "0.000000059604644775390625");
  EXPECT_EQ(to_decimal(dyadic(1, 127)), "170141183460469231731687303715884105728");
  EXPECT_EQ(to_decimal(dyadic(BigInt(0xFFFFFF), 104)), "340282346638528859811704183484516925440");
  // Up to 24 leading zeros after the point, or 24 trailing zeros, stay positional.
  EXPECT_EQ(to_decimal(parse_value("1e-25")), "0.0000000000000000000000001");
  EXPECT_EQ(to_decimal(parse_value("1e24")), "1000000000000000000000000");
  EXPECT_EQ(to_decimal(parse_value("-2.5e-25")), "-0.00000000000000000000000025");
}

TEST(ToDecimal, Scientific) {
  EXPECT_EQ(to_decimal(parse_value("1e-26")), "1e-26");
  EXPECT_EQ(to_decimal(parse_value("1e25")), "1e+25");
  EXPECT_EQ(to_decimal(parse_value("-1.25e30")), "-1.25e+30");
  EXPECT_EQ(to_decimal(parse_value("1.5e-30")), "1.5e-30");
  EXPECT_EQ(to_decimal(dyadic(1, -127)), "5.8774717541114375398436826861112283890933277838604376075437585313920862972736358642578125e-39");
  EXPECT_EQ(to_decimal(dyadic(1, -149)),
            "1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125e-45");
}

TEST(ToDecimal, F64Extremes) {
  const std::string min_sub =
      "4.940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359923797"
      "965646954457177309266567103559397963987747960107818781263007131903114045278458171678489821036887186360"
      "569987307230500063874091535649843873124733972731696151400317153853980741262385655911710266585566867681"
      "870395603106249319452715914924553293054565444011274801297099995419319894090804165633245247571478690147"
      "267801593552386115501348035264934720193790268107107491703332226844753335720832431936092382893458368060"
      "106011506169809753078342277318329247904982524730776375927247874656084778203734469699533647017972677717"
      "585125660551199131504891101451037862738167250955837389733598993664809941164205702637090279242767544565"
      "229087538682506419718265533447265625e-324";
  EXPECT_EQ(to_decimal(dyadic(1, -1074)), min_sub);
  EXPECT_EQ(to_decimal(dyadic(-1, -1074)), "-" + min_sub);
  const std::string max_f64 =
      "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540"
      "458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133"
      "942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368";
  EXPECT_EQ(max_f64.size(), 309u);
  EXPECT_EQ(to_decimal(dyadic((BigInt(1) << 53) - 1, 1023 - 52)), max_f64);
  EXPECT_EQ(to_decimal(parse_value("0x1.fffffffffffffp1023")), max_f64);
}

TEST(ToDecimal, NonTerminating) {
  EXPECT_EQ(to_decimal(rat(1, 3)), "0.3333333333333333333333333333333333333333...");
  EXPECT_EQ(to_decimal(rat(1, 3), 40), "0.3333333333333333333333333333333333333333...");
  EXPECT_EQ(to_decimal(rat(2, 3), 5), "0.66666...");  // truncated, not rounded
  EXPECT_EQ(to_decimal(rat(-1, 3), 3), "-0.333...");
  EXPECT_EQ(to_decimal(rat(10, 3), 4), "3.333...");
  EXPECT_EQ(to_decimal(rat(1000, 7), 6), "142.857...");
  EXPECT_EQ(to_decimal(rat(1, 7), 0), "0.1...");
  EXPECT_EQ(to_decimal(rat(1, 30), 3), "0.0333...");
  EXPECT_EQ(to_decimal(rat(100, 3), 2), "3.3...e+1");  // integer part needs all the digits
  const Rational third_e30 = Rational(BigInt(1), 3 * boost::multiprecision::pow(BigInt(10), 30));
  EXPECT_EQ(to_decimal(third_e30, 4), "3.333...e-31");
  const Rational big = Rational(boost::multiprecision::pow(BigInt(10), 50), BigInt(3));
  EXPECT_EQ(to_decimal(big, 5), "3.3333...e+49");
  // Boundaries of floor(log10): 1/9 = 0.111..., 10/9 = 1.11..., 99/100 terminates.
  EXPECT_EQ(to_decimal(rat(1, 9), 3), "0.111...");
  EXPECT_EQ(to_decimal(rat(10, 9), 3), "1.11...");
  EXPECT_EQ(to_decimal(rat(89, 9), 3), "9.88...");
  EXPECT_EQ(to_decimal(rat(90, 9) + rat(1, 3), 3), "10.3...");
}

TEST(ToString, Classes) {
  EXPECT_EQ(to_string(parse_ok("0")), "0");
  EXPECT_EQ(to_string(parse_ok("-0")), "-0");
  EXPECT_EQ(to_string(parse_ok("+0.000")), "0");
  EXPECT_EQ(to_string(parse_ok("inf")), "inf");
  EXPECT_EQ(to_string(parse_ok("-Infinity")), "-inf");
  EXPECT_EQ(to_string(parse_ok("NaN")), "nan");
  EXPECT_EQ(to_string(parse_ok("-nan")), "-nan");
  EXPECT_EQ(to_string(parse_ok("snan")), "snan");
  EXPECT_EQ(to_string(parse_ok("-snan")), "-snan");
  EXPECT_EQ(to_string(parse_ok("-1.50")), "-1.5");
  EXPECT_EQ(to_string(parse_ok("0x1.8p3")), "12");
  EXPECT_EQ(to_string(parse_ok("464.0000000000000000001")), "464.0000000000000000001");
  EXPECT_EQ(to_string(parse_ok("00012")), "12");
  EXPECT_EQ(to_string(parse_ok("1e100")),
            "1e+100");
  EXPECT_EQ(to_string(parse_ok("-1e-100000")), "-1e-100000");
  EXPECT_EQ(to_string(parse_ok("1e100000")), "1e+100000");
}

TEST(Rationals, FromAndTo) {
  ExactValue v = from_rational(rat(-3, 4));
  EXPECT_EQ(v.cls, ValueClass::finite);
  EXPECT_TRUE(v.sign);
  EXPECT_EQ(v.magnitude, rat(3, 4));
  EXPECT_EQ(to_rational(v), rat(-3, 4));
  v = from_rational(rat(0));
  EXPECT_EQ(v.cls, ValueClass::zero);
  EXPECT_FALSE(v.sign);
  EXPECT_EQ(to_rational(parse_ok("-0")), rat(0));
  EXPECT_THROW(to_rational(parse_ok("inf")), std::invalid_argument);
  // Exact distance: 1.3 vs the e4m3 neighbours 1.25 and 1.375.
  const Rational x = parse_value("1.3");
  EXPECT_EQ(to_decimal(x - rat(5, 4)), "0.05");
  EXPECT_EQ(to_decimal(rat(11, 8) - x), "0.075");
}

}  // namespace
}  // namespace softmx
