// examples/device_standin.cpp: a stand-in for a device under test, for the worked example of
// the certification workflow (examples/README.md): gen -> device -> verify -> identify.
//
//   device_standin < inputs.vec > results.vec
//
// It plays the part of a GPU kernel or an RTL simulation: it reads a softmx vector file of
// inputs (operation = convert, from f32, f16 or bf16, to e4m3 or e5m2, rounding rne,
// saturation finite or none), converts each input with its own code, and writes the same
// header followed by "IN OUT" lines (a device without exception flags, as GPUs are). It is
// plain C++ and shares no code with softmx: the conversion below is a straightforward one on
// host doubles, which is what makes the example a real cross-check.
//
// Built twice by CMake: `device_standin` (correct) and `device_faulty`, compiled with
// STANDIN_FAULT_TIES_AWAY, which rounds ties away from zero in e5m2 (only): the planted fault
// that verify must report and identify must name.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace {

struct Fp8 {
  int man_bits, bias;
  double max;               // largest finite value
  std::uint32_t max_code;   // its magnitude code
  bool has_inf;             // e5m2: Inf is 0x7C and NaN 0x7E; e4m3: no Inf, NaN 0x7F
};

constexpr Fp8 kE4m3{3, 7, 448.0, 0x7E, false};
constexpr Fp8 kE5m2{2, 15, 57344.0, 0x7B, true};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "device_standin: %s\n", what.c_str());
  std::exit(2);
}

double decode(const std::string& from, std::uint32_t bits) {
  if (from == "f32") {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (from == "bf16") {
    const std::uint32_t w = bits << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  // f16
  const int sign = (bits >> 15) & 1, e = (bits >> 10) & 0x1F, m = bits & 0x3FF;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return sign ? -v : v;
}

// Rounds |x| (finite, > 0) to the format's grid, to nearest with ties to even (or away).
std::uint32_t encode_magnitude(double a, const Fp8& f, bool ties_away, bool saturate) {
  const int emin = 1 - f.bias;
  int e;
  std::frexp(a, &e);
  e -= 1;  // a in [2^e, 2^(e+1))
  if (e < emin) e = emin;
  const double q = std::ldexp(1.0, e - f.man_bits);  // the spacing of the grid at a
  const double n = a / q;                              // exact: a has few bits
  double r = ties_away ? std::round(n) : std::nearbyint(n);  // nearbyint: ties to even
  if (r * q > f.max) return saturate ? f.max_code : (f.has_inf ? 0x7C : 0x7F);
  const double unit = std::ldexp(1.0, f.man_bits);
  if (r < unit) return static_cast<std::uint32_t>(r);  // subnormal (or zero)
  if (r >= 2 * unit) r /= 2, ++e;                      // carried into the next binade
  return static_cast<std::uint32_t>((e + f.bias) << f.man_bits) | static_cast<std::uint32_t>(r - unit);
}

std::uint32_t convert(double x, const Fp8& f, bool ties_away, bool saturate) {
  const std::uint32_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return sign | (f.has_inf ? 0x7E : 0x7F);
  if (std::isinf(x)) return sign | (saturate ? f.max_code : (f.has_inf ? 0x7C : 0x7F));
  if (x == 0) return sign;
  return sign | encode_magnitude(std::fabs(x), f, ties_away, saturate);
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

int main() {
  std::string line, from, to, rounding, saturation;
  std::string out;
  bool in_header = true;
  const Fp8* fmt = nullptr;
  bool saturate = true, ties_away = false;
  int in_digits = 8;
  unsigned long long n = 0;
  while (std::getline(std::cin, line)) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto eq = t.find('=');
    if (in_header && eq != std::string::npos) {
      const std::string k = trim(t.substr(0, eq)), v = trim(t.substr(eq + 1));
      if (k == "operation" && v != "convert") fail("only operation = convert is implemented, not " + v);
      if (k == "from") from = v;
      if (k == "to") to = v;
      if (k == "rounding") rounding = v;
      if (k == "saturation") saturation = v;
      out += t + "\n";  // the results file carries the same header
      continue;
    }
    if (in_header) {
      in_header = false;
      if (from != "f32" && from != "f16" && from != "bf16") fail("from = " + from + " is not implemented");
      if (to != "e4m3" && to != "e5m2") fail("to = " + to + " is not implemented");
      if (rounding != "rne") fail("rounding = " + rounding + " is not implemented");
      fmt = to == "e4m3" ? &kE4m3 : &kE5m2;
      saturate = saturation == "finite";
      in_digits = from == "f32" ? 8 : 4;
#ifdef STANDIN_FAULT_TIES_AWAY
      ties_away = to == "e5m2";  // the planted fault
#endif
      out += "# IN OUT (no flags: this device has none)\n";
    }
    const std::string in = t.substr(0, t.find_first_of(" \t"));
    if (static_cast<int>(in.size()) != in_digits) fail("line " + std::to_string(n + 1) + ": bad input " + in);
    const std::uint32_t bits = static_cast<std::uint32_t>(std::stoul(in, nullptr, 16));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s %02X\n", in.c_str(), convert(decode(from, bits), *fmt, ties_away, saturate));
    out += buf;
    ++n;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
