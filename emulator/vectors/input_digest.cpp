// emulator/vectors/input_digest.cpp: see input_digest.hpp.
#include "softmx/vectors/input_digest.hpp"

#include "softmx/vectors/output_file.hpp"

namespace softmx::vec {
namespace {

void append_canonical(std::string& s, const LineLayout& l, std::span<const std::uint64_t> operands) {
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (i) s += ' ';
    append_hex(s, operands[i], l.operands[i].digits);
  }
  s += '\n';
}

/// SplitMix64's output function: a bijection of 64-bit values that mixes every input bit into
/// every output bit.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void InputDigest::add(std::span<const std::uint64_t> operands) {
  line_.clear();
  append_canonical(line_, *layout_, operands);
  sha_.update(line_);
  ++count_;
}

std::string canonical_operands(const LineLayout& l, std::span<const std::uint64_t> operands) {
  std::string s;
  append_canonical(s, l, operands);
  return s;
}

std::uint64_t operand_fingerprint(std::span<const std::uint64_t> operands) {
  std::uint64_t h = mix(0x6A09E667F3BCC908ull ^ operands.size());
  for (std::uint64_t v : operands) h = mix(h + 0x9E3779B97F4A7C15ull + v) ^ (h >> 7);
  return mix(h);
}

}  // namespace softmx::vec
