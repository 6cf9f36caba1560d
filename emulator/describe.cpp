// emulator/describe.cpp: see describe.hpp.
#include "softmx/describe.hpp"

#include <cctype>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/convert.hpp"

namespace softmx {

std::string value_text(const Format& f, std::uint64_t code) {
  const Unpacked u = unpack(f, code);
  switch (u.cls) {
    case ValueClass::nan:
      // fnuz's one NaN is the -0 code: its sign bit is part of the encoding, not a sign.
      if (f.nan_is_negative_zero()) return "NaN";
      return std::string(u.sign ? "-" : "") + (u.nan_quiet ? "NaN" : "sNaN");
    case ValueClass::inf: return u.sign ? "-inf" : "inf";
    case ValueClass::zero: return u.sign ? "-0" : "0";
    case ValueClass::finite: break;
  }
  return to_string(from_unpacked(u));
}

std::string testfloat_text(const Format& f, std::uint64_t code) {
  if (f.sign == SignEncoding::twos_complement) {
    const bool neg = (code >> (f.width - 1)) & 1;
    const std::uint64_t mag = neg ? ((~code + 1) & f.code_mask()) : code;
    return std::string(neg ? "-" : "+") + std::to_string(mag) + "/" + std::to_string(1u << f.man_bits);
  }
  std::string s;
  std::uint64_t mag = code;
  if (f.sign == SignEncoding::magnitude) {
    s += ((code >> (f.width - 1)) & 1) ? '-' : '+';
    mag &= f.all_ones_magnitude();
  }
  s += hex(mag >> f.man_bits, (f.exp_bits + 3) / 4);
  s += '.';
  if (f.man_bits) s += hex(mag & ((std::uint64_t{1} << f.man_bits) - 1), (f.man_bits + 3) / 4);
  return s;
}

namespace {

std::string bits(std::uint64_t v, int n) {
  std::string s;
  for (int i = n - 1; i >= 0; --i) s += ((v >> i) & 1) ? '1' : '0';
  return s;
}

}  // namespace

std::string fields_text(const Format& f, std::uint64_t code) {
  std::string s;
  std::uint64_t mag = code;
  if (f.sign == SignEncoding::magnitude) {
    s += "sign " + std::to_string((code >> (f.width - 1)) & 1) + "  ";
    mag &= f.all_ones_magnitude();
  } else if (f.sign == SignEncoding::twos_complement) {
    const bool neg = (code >> (f.width - 1)) & 1;
    mag = neg ? ((~code + 1) & f.code_mask()) : code;
    return "two's complement " + bits(code, f.width) + " = " + (neg ? "-" : "") + std::to_string(mag) + " x 2^-" +
           std::to_string(f.man_bits);
  }
  const std::uint64_t e = mag >> f.man_bits;
  s += "exponent " + bits(e, f.exp_bits) + " (" + std::to_string(e);
  const Unpacked u = unpack(f, code);
  if (u.cls == ValueClass::finite)
    s += (f.subnormals && e == 0) ? ": subnormal, 2^" + std::to_string(f.emin()) : ": 2^" + std::to_string(static_cast<long>(e) - f.bias);
  else if (u.cls == ValueClass::nan || u.cls == ValueClass::inf)
    s += ": special";
  s += ")";
  if (f.man_bits) s += "  fraction " + bits(mag & ((std::uint64_t{1} << f.man_bits) - 1), f.man_bits);
  return s;
}

namespace {

/// `sign` and "NaN", "inf" or "0": the text of a value that is not finite (nor subnormal or normal).
std::string special_text(const Unpacked& u, const std::string& sign) {
  switch (u.cls) {
    case ValueClass::nan: return sign + "NaN";
    case ValueClass::inf: return sign + "inf";
    default: return sign + "0";
  }
}

}  // namespace

std::string hexfloat_text(const Unpacked& u) {
  const std::string sign = u.sign ? "-" : "";
  if (u.cls != ValueClass::finite) return special_text(u, sign);
  // sig = 1.f (bit 63 the leading one): 15 hex digits of fraction, trailing zeros dropped.
  std::string frac = hex(u.sig << 1 >> 4, 15);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  for (char& c : frac) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return sign + "0x1" + (frac.empty() ? "" : "." + frac) + (u.sticky ? "..." : "") + "p" +
         (u.exp >= 0 ? "+" : "") + std::to_string(u.exp);
}

std::string binary_text(const Unpacked& u, int frac_bits) {
  const std::string sign = u.sign ? "-" : "+";
  if (u.cls != ValueClass::finite) return special_text(u, sign);
  std::string s = sign + "1";
  // Show at least the requested digits and every non-zero bit of sig.
  int last = 0;
  for (int i = 62; i >= 0; --i)
    if ((u.sig >> i) & 1) last = 63 - i;
  const int n = std::max(frac_bits, last);
  if (n > 0) {
    s += '.';
    for (int i = 1; i <= n; ++i) s += ((u.sig >> (63 - i)) & 1) ? '1' : '0';
  }
  if (u.sticky) s += "...";
  return s + " x 2^" + std::to_string(u.exp);
}

}  // namespace softmx
