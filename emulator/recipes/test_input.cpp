// emulator/recipes/test_input.cpp: the deterministic input tensors of `softmx recipe --seed` and
// of the committed recipe vector sets (include/softmx/recipe.hpp, recipe_test_input).
//
// Every value is built from its bits (sign, exponent, mantissa drawn from SplitMix64), never
// through the host's floating point, so the same seed gives the same codes on any machine.
#include <stdexcept>
#include <string>

#include "softmx/prng.hpp"
#include "softmx/recipe.hpp"

namespace softmx {

std::vector<std::uint32_t> recipe_test_input(FormatId source, std::size_t count, std::uint64_t seed) {
  int mant = 0, bias = 0;
  switch (source) {
    case FormatId::f32: mant = 23, bias = 127; break;
    case FormatId::bf16: mant = 7, bias = 127; break;
    case FormatId::f16: mant = 10, bias = 15; break;
    default:
      throw std::invalid_argument("recipe_test_input: the source must be f32, bf16 or f16, not " +
                                  std::string(format(source).name));
  }
  const int width = 1 + (source == FormatId::f16 ? 5 : 8) + mant;  // sign, exponent, mantissa
  SplitMix64 g(seed);
  std::vector<std::uint32_t> v(count);
  int base = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // A new base binade every 16 values: 2^-7 .. 2^12, so blocks and tiles get different scales.
    if (i % 16 == 0) base = static_cast<int>(g.next() % 20) - 7;
    const std::uint64_t r = g.next();
    const int e = base - static_cast<int>((r >> 8) % 8);  // up to 7 binades below the base: >= 2^-14
    const std::uint32_t sign = static_cast<std::uint32_t>(r >> 63);
    const std::uint32_t m = static_cast<std::uint32_t>(r >> 16) & ((std::uint32_t{1} << mant) - 1);
    std::uint32_t code = sign << (width - 1) | static_cast<std::uint32_t>(e + bias) << mant | m;
    if (r % 41 == 0) code = sign << (width - 1);  // ±0 now and then
    v[i] = code;
  }
  return v;
}

}  // namespace softmx
