// softmx/prng.hpp: the specified pseudo-random generator used for sampled tests and vectors.
//
// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014; the public-domain reference is Vigna's splitmix64.c). Anyone can regenerate a stream
// from its seed with these few lines:
//
//   state += 0x9E3779B97F4A7C15;
//   z = state;
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//   z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//   return z ^ (z >> 31);
//
// All arithmetic is modulo 2^64. Never rand(): its stream differs between C libraries.
#pragma once

#include <cstdint>

namespace softmx {

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits.
  constexpr std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// A value in [0, n) for n > 0, by Lemire's multiply-shift (bias below 2^-64 * n; the
  /// stream stays a pure function of the seed).
  constexpr std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * n) >> 64);
  }

 private:
  std::uint64_t state_;
};

}  // namespace softmx
