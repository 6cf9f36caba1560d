// fuzz/fuzz_exact.cpp: fuzzes softmx::parse_exact (include/softmx/exact.hpp), the exact decimal
// and C99 hex-float parser behind `softmx convert VALUE` and `softmx explain VALUE`, on the whole
// input as one string (NUL bytes included), and checks what it returns:
//
//   - a parsed value is well formed (finite: magnitude > 0; the other classes: magnitude 0);
//   - it prints and parses back to itself: parse_exact(to_string(v)) == v (every value the
//     parser accepts is a terminating decimal, which to_string prints exactly);
//   - to_unpacked(v) is the value's leading 64 bits: sig has bit 63 set and
//     sig * 2^(exp-63) <= |v| < (sig+1) * 2^(exp-63), equal exactly when sticky is clear, and
//     then from_unpacked gives v back;
//   - a rejected input comes with a non-empty error message.
//
// Work cap: inputs with a written exponent from 1000 up to the parser's limit (100000) are
// skipped (fuzz::slow_exponent in common.hpp: correct but slow, up to 0.3 s each in a Release
// build and over 10 s under the sanitizers). Exponents beyond the limit still go in.
//
// Finding: a crash, a sanitizer report, any exception (parse_exact reports bad text through its
// return value, never by throwing), or a failed check above (reported by abort()).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common.hpp"
#include "softmx/exact.hpp"

namespace {

namespace mp = boost::multiprecision;

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_exact: %s (input: \"%.*s\")\n", what, static_cast<int>(input.size() > 200 ? 200 : input.size()),
               input.data());
  std::abort();
}

bool same(const softmx::ExactValue& a, const softmx::ExactValue& b) {
  if (a.cls != b.cls || a.sign != b.sign) return false;
  if (a.cls == softmx::ValueClass::nan) return a.nan_quiet == b.nan_quiet;
  return a.magnitude == b.magnitude;
}

// Bits in the numerator and denominator: the round trip prints every digit, so very large or
// very small values (1e99999, 0x1p-99999) are only checked up to a size that keeps one run fast.
constexpr unsigned long long kMaxRoundTripBits = 40000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (softmx::fuzz::slow_exponent(text)) return 0;
  std::string err;
  const auto v = softmx::parse_exact(text, &err);
  if (!v) {
    if (err.empty()) fail("rejected without an error message", text);
    return 0;
  }
  const bool finite = v->cls == softmx::ValueClass::finite;
  if (finite ? v->magnitude <= 0 : v->magnitude != 0) fail("parsed value is not well formed", text);
  if (!finite) {
    const std::string s = softmx::to_string(*v);
    const auto back = softmx::parse_exact(s);
    if (!back || !same(*back, *v)) fail("special value does not print and parse back to itself", text);
    return 0;
  }

  const softmx::BigInt p = mp::numerator(v->magnitude), q = mp::denominator(v->magnitude);
  const bool small = mp::msb(p) + mp::msb(q) <= kMaxRoundTripBits;
  if (small) {
    const std::string s = softmx::to_string(*v);
    const auto back = softmx::parse_exact(s);
    if (!back || !same(*back, *v)) fail(("does not print and parse back to itself; printed " + s.substr(0, 100)).c_str(), text);
  }

  const softmx::Unpacked u = softmx::to_unpacked(*v);
  if (u.cls != softmx::ValueClass::finite || u.sign != v->sign || !(u.sig >> 63))
    fail("to_unpacked: not a normalized finite value", text);
  const softmx::Rational lo = softmx::dyadic(softmx::BigInt(u.sig), static_cast<long>(u.exp) - 63);
  const softmx::Rational hi = lo + softmx::dyadic(softmx::BigInt(1), static_cast<long>(u.exp) - 63);
  if (!(lo <= v->magnitude && v->magnitude < hi)) fail("to_unpacked: sig and exp do not bracket the value", text);
  if (u.sticky != (lo != v->magnitude)) fail("to_unpacked: sticky does not say whether bits were dropped", text);
  if (!u.sticky && !same(softmx::from_unpacked(u), *v)) fail("from_unpacked(to_unpacked(v)) != v", text);
  return 0;
}
