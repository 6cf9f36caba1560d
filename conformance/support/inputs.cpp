// conformance/support/inputs.cpp: see inputs.hpp.
#include "inputs.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "softmx/convert.hpp"
#include "softmx/prng.hpp"

namespace softmx::conformance {
namespace {

// Exact f64 value of a destination magnitude code, extended past max finite with the binade
// pattern (so the midpoint above max and the overflow thresholds are covered).
double magnitude_value(const Format& f, std::uint64_t mag) {
  const std::uint64_t e = mag >> f.man_bits;
  const std::uint64_t frac = mag & ((std::uint64_t{1} << f.man_bits) - 1);
  if (f.subnormals && e == 0) return std::ldexp(static_cast<double>(frac), f.emin() - f.man_bits);
  return std::ldexp(static_cast<double>((std::uint64_t{1} << f.man_bits) | frac),
                    static_cast<int>(e) - f.bias - f.man_bits);
}

// Representable magnitudes of dst, and the values between them that matter, as doubles.
std::vector<double> boundary_values(const Format& dst, SplitMix64& rng) {
  std::vector<double> v;
  const std::uint64_t top = dst.max_finite_magnitude() + (std::uint64_t{2} << dst.man_bits);  // two binades more
  auto add_pair = [&](double a, double b) {
    v.push_back(a);
    v.push_back((a + b) / 2);  // exact: both have few bits
  };
  if (dst.width <= 16) {
    for (std::uint64_t m = 0; m + 1 <= top; ++m) add_pair(magnitude_value(dst, m), magnitude_value(dst, m + 1));
  } else {
    // f32 / f64 destinations: every binade's edges and a few random midpoints in each.
    const std::uint64_t binades = top >> dst.man_bits;
    for (std::uint64_t e = 0; e <= binades; ++e) {
      const std::uint64_t base = e << dst.man_bits;
      for (int i = 0; i < 6; ++i) {
        std::uint64_t m = base;
        if (i == 1) m = base + 1;
        if (i == 2) m = base + ((std::uint64_t{1} << dst.man_bits) - 1);
        if (i >= 3) m = base + rng.below(std::uint64_t{1} << dst.man_bits);
        if (m + 1 <= top) add_pair(magnitude_value(dst, m), magnitude_value(dst, m + 1));
      }
    }
  }
  const double lowest = magnitude_value(dst, dst.subnormals ? 1 : 0);
  v.push_back(lowest / 2);
  v.push_back(lowest / 4);
  v.push_back(lowest * 0.75);
  return v;
}

template <class T, class U>
std::vector<std::uint64_t> around(double x, int k) {
  std::vector<std::uint64_t> out;
  if (!std::isfinite(static_cast<T>(x)) && std::isfinite(x)) return out;  // beyond the source's range
  const T t = static_cast<T>(x);  // nearest source value (exact for every boundary we make)
  const U b = std::bit_cast<U>(t);
  for (int d = -k; d <= k; ++d) {
    const U c = static_cast<U>(b + static_cast<U>(d));
    out.push_back(c);
    out.push_back(c ^ (U{1} << (sizeof(U) * 8 - 1)));  // the negative twin
  }
  return out;
}

}  // namespace

std::vector<std::uint64_t> special_inputs(FormatId src) {
  const Format& f = format(src);
  const std::uint64_t sign = std::uint64_t{1} << (f.width - 1);
  const std::uint64_t exp_all = ((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits;
  const std::uint64_t quiet = std::uint64_t{1} << (f.man_bits - 1);
  const std::uint64_t frac_all = (std::uint64_t{1} << f.man_bits) - 1;
  std::vector<std::uint64_t> v = {0,
                                  exp_all,                          // Inf
                                  exp_all | quiet,                  // canonical quiet NaN
                                  exp_all | frac_all,               // all-ones NaN
                                  exp_all | 1,                      // signalling NaN, payload 1
                                  exp_all | (quiet >> 1),           // signalling NaN, high payload
                                  exp_all | quiet | 1,              // quiet NaN with payload
                                  exp_all | quiet | (quiet >> 1),   // quiet NaN, next bit set
                                  exp_all - 1,                      // max finite
                                  std::uint64_t{1} << f.man_bits,   // min normal
                                  1,                                // min subnormal
                                  frac_all};                        // max subnormal
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(v[i] | sign);
  return v;
}

std::vector<std::uint64_t> boundary_inputs(FormatId src, FormatId dst, int k) {
  return boundary_inputs(src, format(dst), k);
}

std::vector<std::uint64_t> boundary_inputs(FormatId src, const Format& dst, int k) {
  // The seed of the named destinations as before; a runtime one's from its fields.
  const unsigned id = dst.is_named() ? static_cast<unsigned>(dst.id)
                                     : 977u * dst.width + 31u * dst.exp_bits + static_cast<unsigned>(dst.bias + 2048) +
                                           7u * static_cast<unsigned>(dst.specials) + 3u * static_cast<unsigned>(dst.sign);
  SplitMix64 rng(0xB0B0 + id * 131 + static_cast<unsigned>(src));
  std::vector<std::uint64_t> out = special_inputs(src);
  for (double x : boundary_values(dst, rng)) {
    const auto a = src == FormatId::f32 ? around<float, std::uint32_t>(x, k) : around<double, std::uint64_t>(x, k);
    out.insert(out.end(), a.begin(), a.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::uint64_t> random_inputs(FormatId src, FormatId dst, std::size_t n, std::uint64_t seed) {
  return random_inputs(src, format(dst), n, seed);
}

std::vector<std::uint64_t> random_inputs(FormatId src, const Format& d, std::size_t n, std::uint64_t seed) {
  const Format& s = format(src);
  SplitMix64 rng(seed);
  std::vector<std::uint64_t> out;
  out.reserve(n);
  const int lo = d.emin() - d.man_bits - 4;
  const int hi = static_cast<int>(d.max_finite_magnitude() >> d.man_bits) - d.bias + 3;
  const int smin = s.emin() - s.man_bits, smax = (1 << (s.exp_bits - 1));
  const std::uint64_t mask = s.code_mask();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng.next();
    const std::uint64_t sign = (r & 1) ? std::uint64_t{1} << (s.width - 1) : 0;
    switch (rng.below(4)) {
      case 0:  // any bit pattern
        out.push_back(rng.next() & mask);
        break;
      case 1:
      case 2: {  // in and around the destination's range, random fraction bits
        const int e = std::clamp(lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1))), smin, smax - 1);
        const double x = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng.next() >> 11), -53), e);
        const std::uint64_t bits = src == FormatId::f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(x))
                                                        : std::bit_cast<std::uint64_t>(x);
        out.push_back((bits | sign) & mask);
        break;
      }
      default: {  // within a few source ulps of a midpoint of two destination neighbours
        const int e = std::clamp(lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1))), smin + 8, smax - 1);
        const std::uint64_t frac = rng.below(std::uint64_t{1} << d.man_bits);
        const double mid = std::ldexp(static_cast<double>((std::uint64_t{1} << (d.man_bits + 1)) | (2 * frac + 1)),
                                      e - d.man_bits - 1);
        const std::uint64_t bits = src == FormatId::f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(mid))
                                                        : std::bit_cast<std::uint64_t>(mid);
        const std::int64_t delta = static_cast<std::int64_t>(rng.below(64)) - 32;
        out.push_back(((bits + static_cast<std::uint64_t>(delta)) | sign) & mask);
        break;
      }
    }
  }
  return out;
}

}  // namespace softmx::conformance
