// exact.cpp: parsing typed values exactly, exact <-> Unpacked, exact decimal printing.
#include "softmx/exact.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

namespace softmx {

namespace {

namespace mp = boost::multiprecision;

constexpr const char* kExpected = "expected a decimal number, hex float (0x1.8p3), inf or nan";

/// Zeros allowed between the point and the first significant digit, or at the end of an
/// integer, before to_decimal switches to scientific notation.
constexpr long kMaxPlainZeros = 24;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_hex(char c) {
  const char l = lower(c);
  return is_dec(c) || (l >= 'a' && l <= 'f');
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}
bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// `s` in double quotes for an error message: at most 16 characters, non-printables as \xHH.
std::string quote(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  const std::size_t n = std::min<std::size_t>(s.size(), 16);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > n) out += "...";
  out += '"';
  return out;
}

std::optional<ExactValue> fail(std::string* error, std::string msg) {
  if (error != nullptr) *error = std::move(msg);
  return std::nullopt;
}

/// Message for junk after a well-formed prefix `text[0, pos)`.
std::string junk_message(std::string_view text, std::size_t pos) {
  return "unexpected " + quote(text.substr(pos)) + " after " + quote(text.substr(0, pos));
}

/// Reads an optionally signed exponent's decimal digits at text[j...]. Returns false if there
/// are no digits. Sets `over` if the magnitude exceeds kMaxParsedExponent.
bool read_exponent(std::string_view text, std::size_t& j, long& value, bool& over) {
  bool neg = false;
  if (j < text.size() && (text[j] == '+' || text[j] == '-')) {
    neg = text[j] == '-';
    ++j;
  }
  const std::size_t start = j;
  long v = 0;
  over = false;
  for (; j < text.size() && is_dec(text[j]); ++j) {
    if (!over) {
      v = v * 10 + (text[j] - '0');
      if (v > kMaxParsedExponent) over = true;
    }
  }
  value = neg ? -v : v;
  return j > start;
}

BigInt pow10(unsigned long long n) { return mp::pow(BigInt(10), static_cast<unsigned>(n)); }

/// m / 10^k as a Rational, m > 0 with no factor 10 (so the gcd is a power of 2 or of 5).
Rational decimal_fraction(const BigInt& m, long long e10) {
  if (e10 >= 0) return Rational(m * pow10(static_cast<unsigned long long>(e10)));
  return Rational(m, pow10(static_cast<unsigned long long>(-e10)));
}

ExactValue finite_or_zero(bool sign, Rational mag) {
  ExactValue v;
  v.sign = sign;
  if (mag == 0) {
    v.cls = ValueClass::zero;
  } else {
    v.cls = ValueClass::finite;
    v.magnitude = std::move(mag);
  }
  return v;
}

/// Reads DIGITS[.DIGITS] from text[j] on (is_digit tells a digit), appending every digit to
/// `digits` and counting those after the point in `frac_count`; j ends past them.
template <class IsDigit>
void read_significand(std::string_view text, std::size_t& j, std::string& digits, long long& frac_count,
                      IsDigit is_digit) {
  for (; j < text.size() && is_digit(text[j]); ++j) digits += text[j];
  if (j < text.size() && text[j] == '.') {
    ++j;
    for (; j < text.size() && is_digit(text[j]); ++j) {
      digits += text[j];
      ++frac_count;
    }
  }
}

std::optional<ExactValue> parse_decimal(std::string_view text, std::size_t i, bool sign,
                                        std::string* error) {
  std::string digits;
  long long frac_count = 0;
  std::size_t j = i;
  read_significand(text, j, digits, frac_count, is_dec);
  if (digits.empty()) return fail(error, "expected digits before or after '.'");
  long exp10 = 0;
  bool over = false;
  if (j < text.size() && lower(text[j]) == 'e') {
    ++j;
    if (!read_exponent(text, j, exp10, over)) return fail(error, "expected exponent digits after 'e'");
  }
  if (j < text.size()) return fail(error, junk_message(text, j));
  if (over) return fail(error, "exponent out of range (limit 100000)");

  // Value = digits * 10^(exp10 - frac_count). Drop leading and trailing zeros.
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return finite_or_zero(sign, Rational(0));
  const std::size_t last = digits.find_last_not_of('0');
  const long long e10 =
      static_cast<long long>(exp10) - frac_count + static_cast<long long>(digits.size() - 1 - last);
  // No leading '0' is left, so cpp_int reads the string as decimal (not octal).
  const BigInt m(digits.substr(first, last - first + 1));
  return finite_or_zero(sign, decimal_fraction(m, e10));
}

std::optional<ExactValue> parse_hex(std::string_view text, std::size_t i, bool sign,
                                    std::string* error) {
  std::string digits = "0x";
  long long frac_count = 0;
  std::size_t j = i + 2;  // past "0x"
  read_significand(text, j, digits, frac_count, is_hex);
  if (digits.size() == 2) return fail(error, "expected hex digits after '0x'");
  if (j == text.size()) return fail(error, "hex float needs a binary exponent 'p' (as in 0x1.8p3)");
  if (lower(text[j]) != 'p') {
    return fail(error, junk_message(text, j) + "; hex float needs a binary exponent 'p' (as in 0x1.8p3)");
  }
  ++j;
  long exp2 = 0;
  bool over = false;
  if (!read_exponent(text, j, exp2, over)) return fail(error, "expected exponent digits after 'p'");
  if (j < text.size()) return fail(error, junk_message(text, j));
  if (over) return fail(error, "exponent out of range (limit 100000)");

  const BigInt m(digits);
  const long long e2 = static_cast<long long>(exp2) - 4 * frac_count;
  if (e2 < std::numeric_limits<long>::min()) throw std::out_of_range("softmx: hex float too long");
  return finite_or_zero(sign, dyadic(m, static_cast<long>(e2)));
}

/// Divides d (> 0) by `base` as often as it divides exactly, returning how many times. Works in
/// chunks of base^k that fit in one limb (division by one limb is much cheaper in cpp_int than by
/// a multi-limb divisor), then single factors.
unsigned long long strip_factor(BigInt& d, unsigned base) {
  unsigned chunk_exp = 0;
  std::uint64_t chunk = 1;
  while (chunk <= std::numeric_limits<std::uint64_t>::max() / base) {
    chunk *= base;
    ++chunk_exp;
  }
  unsigned long long count = 0;
  BigInt quot, rem;
  for (const auto& [divisor, step] : {std::pair{chunk, chunk_exp}, std::pair{std::uint64_t{base}, 1u}}) {
    const BigInt div(divisor);
    for (;;) {
      mp::divide_qr(d, div, quot, rem);
      if (rem != 0) break;
      d.swap(quot);
      count += step;
    }
  }
  return count;
}

/// "d.ddd" + suffix + "e+-E" from a digit string.
std::string scientific(const std::string& digits, long long e10, const char* suffix) {
  std::string out(1, digits[0]);
  if (digits.size() > 1) {
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  out += suffix;
  out += e10 < 0 ? "e-" : "e+";
  out += std::to_string(e10 < 0 ? -e10 : e10);
  return out;
}

/// Exact digits of p/q (terminating: q = 2^a 5^b), unsigned.
std::string terminating_decimal(const BigInt& p, unsigned long long a, unsigned long long b) {
  const unsigned long long n = std::max(a, b);
  BigInt d = p;
  if (n > a) d <<= static_cast<unsigned long long>(n - a);
  if (n > b) d *= mp::pow(BigInt(5), static_cast<unsigned>(n - b));
  // value = d * 10^-n. Only an integer (n == 0) can end in zeros (otherwise p is coprime to 10
  // or d is odd or not a multiple of 5): strip them arithmetically, which is much cheaper than
  // printing them for 1e100000.
  long long exp10 = -static_cast<long long>(n);
  if (n == 0) exp10 = static_cast<long long>(strip_factor(d, 10));
  std::string digits = d.str();
  const std::size_t last = digits.find_last_not_of('0');
  exp10 += static_cast<long long>(digits.size() - 1 - last);
  digits.resize(last + 1);
  const long long k = static_cast<long long>(digits.size());
  const long long sci_e = k - 1 + exp10;  // floor(log10 value)
  if (exp10 >= 0) {  // an integer
    if (exp10 > kMaxPlainZeros) return scientific(digits, sci_e, "");
    return digits + std::string(static_cast<std::size_t>(exp10), '0');
  }
  if (sci_e >= 0) {  // int.frac
    const auto int_len = static_cast<std::size_t>(sci_e + 1);
    return digits.substr(0, int_len) + "." + digits.substr(int_len);
  }
  const long long zeros = -sci_e - 1;
  if (zeros > kMaxPlainZeros) return scientific(digits, sci_e, "");
  return "0." + std::string(static_cast<std::size_t>(zeros), '0') + digits;
}

/// Truncated leading `max_digits` digits of p/q (non-terminating), unsigned, with "...".
std::string truncated_decimal(const BigInt& p, const BigInt& q, int max_digits) {
  // E = floor(log10(p/q)): estimate from bit lengths, then correct.
  const long long bits = static_cast<long long>(mp::msb(p)) - static_cast<long long>(mp::msb(q));
  long long e = static_cast<long long>(static_cast<double>(bits) * 0.30102999566398120);
  auto ge_pow10 = [&](long long k) {  // p/q >= 10^k
    if (k >= 0) return p >= q * pow10(static_cast<unsigned long long>(k));
    return p * pow10(static_cast<unsigned long long>(-k)) >= q;
  };
  while (!ge_pow10(e)) --e;
  while (ge_pow10(e + 1)) ++e;
  const long long s = static_cast<long long>(max_digits) - 1 - e;
  BigInt num = p, den = q;
  if (s >= 0) num *= pow10(static_cast<unsigned long long>(s));
  else den *= pow10(static_cast<unsigned long long>(-s));
  const BigInt scaled = num / den;
  const std::string digits = scaled.str();  // exactly max_digits digits
  if (e >= 0 && e + 1 < max_digits) {
    const auto int_len = static_cast<std::size_t>(e + 1);
    return digits.substr(0, int_len) + "." + digits.substr(int_len) + "...";
  }
  if (e < 0 && -e - 1 <= kMaxPlainZeros)
    return "0." + std::string(static_cast<std::size_t>(-e - 1), '0') + digits + "...";
  return scientific(digits, e, "...");
}

}  // namespace

std::optional<ExactValue> parse_exact(std::string_view text, std::string* error) {
  if (text.empty()) return fail(error, std::string("empty string; ") + kExpected);
  if (is_space(text.front())) return fail(error, std::string("unexpected leading whitespace; ") + kExpected);
  if (is_space(text.back())) return fail(error, "unexpected trailing whitespace");
  std::size_t i = 0;
  bool sign = false;
  if (text[0] == '+' || text[0] == '-') {
    sign = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return fail(error, "expected a number after the sign");
  const std::string_view rest = text.substr(i);

  struct Word {
    std::string_view word;
    ValueClass cls;
    bool quiet;
  };
  static constexpr Word kWords[] = {
      {"infinity", ValueClass::inf, true},
      {"inf", ValueClass::inf, true},
      {"snan", ValueClass::nan, false},
      {"nan", ValueClass::nan, true},
  };
  for (const Word& w : kWords) {
    if (iequals(rest, w.word)) {
      ExactValue v;
      v.cls = w.cls;
      v.sign = sign;
      v.nan_quiet = w.quiet;
      return v;
    }
  }
  for (const Word& w : kWords) {
    if (istarts_with(rest, w.word)) return fail(error, junk_message(text, i + w.word.size()));
  }

  if (rest.size() >= 2 && rest[0] == '0' && lower(rest[1]) == 'x') return parse_hex(text, i, sign, error);
  if (is_dec(rest[0]) || rest[0] == '.') return parse_decimal(text, i, sign, error);
  return fail(error, std::string(kExpected) + ", got " + quote(text));
}

Unpacked to_unpacked(const ExactValue& v) {
  Unpacked u;
  u.sign = v.sign;
  switch (v.cls) {
    case ValueClass::zero:
      u.cls = ValueClass::zero;
      return u;
    case ValueClass::inf:
      u.cls = ValueClass::inf;
      return u;
    case ValueClass::nan:
      u.cls = ValueClass::nan;
      u.nan_quiet = v.nan_quiet;
      u.nan_payload = 0;
      return u;
    case ValueClass::finite:
      break;
  }
  if (v.magnitude <= 0) throw std::invalid_argument("softmx::to_unpacked: finite magnitude must be > 0");
  const BigInt p = mp::numerator(v.magnitude);
  const BigInt q = mp::denominator(v.magnitude);
  // e = floor(log2(p/q)): msb difference, minus one if p/q < 2^e.
  long long e = static_cast<long long>(mp::msb(p)) - static_cast<long long>(mp::msb(q));
  const bool below = e >= 0 ? p < (q << static_cast<unsigned long long>(e))
                            : (p << static_cast<unsigned long long>(-e)) < q;
  if (below) --e;
  if (e < std::numeric_limits<std::int32_t>::min() || e > std::numeric_limits<std::int32_t>::max())
    throw std::out_of_range("softmx::to_unpacked: exponent does not fit in int32");

  // sig = floor(p/q * 2^(63 - e)), sticky = remainder != 0.
  const long long s = 63 - e;
  BigInt num;
  bool sticky = false;
  if (s >= 0) {
    num = p << static_cast<unsigned long long>(s);
  } else {
    const auto r = static_cast<unsigned long long>(-s);
    sticky = mp::lsb(p) < r;  // bits shifted out of p
    num = p >> r;
  }
  BigInt quot, rem;
  mp::divide_qr(num, q, quot, rem);
  if (rem != 0) sticky = true;
  if (mp::msb(quot) != 63) throw std::logic_error("softmx::to_unpacked: normalization failed");
  u.cls = ValueClass::finite;
  u.exp = static_cast<std::int32_t>(e);
  u.sig = static_cast<std::uint64_t>(quot);
  u.sticky = sticky;
  return u;
}

ExactValue from_unpacked(const Unpacked& u) {
  ExactValue v;
  v.cls = u.cls;
  v.sign = u.sign;
  switch (u.cls) {
    case ValueClass::zero:
    case ValueClass::inf:
      return v;
    case ValueClass::nan:
      v.nan_quiet = u.nan_quiet;
      return v;
    case ValueClass::finite:
      break;
  }
  if (u.sticky) throw std::invalid_argument("softmx::from_unpacked: sticky value is not exact");
  if (u.sig == 0) throw std::invalid_argument("softmx::from_unpacked: finite value with zero sig");
  v.magnitude = dyadic(BigInt(u.sig), static_cast<long>(u.exp) - 63);
  return v;
}

Rational dyadic(const BigInt& sig, long exp2) {
  if (sig == 0) return Rational(0);
  BigInt m = mp::abs(sig);
  const unsigned long long tz = mp::lsb(m);
  m >>= tz;
  const long long e = static_cast<long long>(exp2) + static_cast<long long>(tz);
  Rational r = e >= 0 ? Rational(m << static_cast<unsigned long long>(e))
                      : Rational(m, BigInt(1) << (0ULL - static_cast<unsigned long long>(e)));
  return sig < 0 ? Rational(-r) : r;
}

ExactValue from_rational(const Rational& r) {
  return finite_or_zero(r < 0, r < 0 ? Rational(-r) : r);
}

Rational to_rational(const ExactValue& v) {
  switch (v.cls) {
    case ValueClass::zero:
      return Rational(0);
    case ValueClass::finite:
      return v.sign ? Rational(-mp::abs(v.magnitude)) : Rational(mp::abs(v.magnitude));
    default:
      throw std::invalid_argument("softmx::to_rational: inf or nan has no rational value");
  }
}

std::string to_decimal(const Rational& r, int max_digits) {
  if (r == 0) return "0";
  max_digits = std::max(max_digits, 1);
  const bool neg = r < 0;
  const BigInt p = mp::abs(mp::numerator(r));
  BigInt q = mp::denominator(r);
  const unsigned long long a = mp::lsb(q);
  q >>= a;
  const unsigned long long b = strip_factor(q, 5);
  std::string body = q == 1 ? terminating_decimal(p, a, b)
                            : truncated_decimal(p, mp::denominator(r), max_digits);
  return neg ? "-" + body : body;
}

std::string to_string(const ExactValue& v, int max_digits) {
  const std::string s = v.sign ? "-" : "";
  switch (v.cls) {
    case ValueClass::zero:
      return s + "0";
    case ValueClass::inf:
      return s + "inf";
    case ValueClass::nan:
      return s + (v.nan_quiet ? "nan" : "snan");
    case ValueClass::finite:
      break;
  }
  return s + to_decimal(mp::abs(v.magnitude), max_digits);
}

}  // namespace softmx
