// tools/cuda/mma/mma_cases.cpp: see mma_cases.hpp.
#include "mma_cases.hpp"

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "softmx/block.hpp"

namespace softmx::mma_capture {
namespace {

using vec::MmaScaleFormat;

MmaCase from_operands(const CaseShape& s, std::span<const std::uint64_t> ops) {
  const auto k = static_cast<std::size_t>(s.k), n = static_cast<std::size_t>(s.scales());
  MmaCase c;
  c.a.assign(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(k));
  c.b.assign(ops.begin() + static_cast<std::ptrdiff_t>(k), ops.begin() + static_cast<std::ptrdiff_t>(2 * k));
  c.sa.assign(ops.begin() + static_cast<std::ptrdiff_t>(2 * k), ops.begin() + static_cast<std::ptrdiff_t>(2 * k + n));
  c.sb.assign(ops.begin() + static_cast<std::ptrdiff_t>(2 * k + n), ops.begin() + static_cast<std::ptrdiff_t>(2 * k + 2 * n));
  c.c = s.addend ? static_cast<std::uint32_t>(ops[2 * k + 2 * n]) : 0;
  return c;
}

}  // namespace

vec::Header shape_header(const CaseShape& s, const std::string& model) {
  vec::Header h;
  h.operation = vec::Operation::mma;
  h.from = s.a;
  h.to = s.b;
  h.block = static_cast<std::uint32_t>(s.k);
  h.accumulator = s.acc;
  h.addend = s.addend;
  h.model = model;
  h.scale_format = s.scale_format;
  h.scale_block = s.scale_format == MmaScaleFormat::none ? 0 : static_cast<std::uint32_t>(s.scale_block);
  return h;
}

std::vector<MmaCase> make_cases(const CaseShape& s, const vec::GenOptions& o) {
  if (s.k != 32 && s.k != 64) throw std::invalid_argument("mma capture cases: K must be 32 or 64, not " + std::to_string(s.k));
  if (!is_mx_element(s.a) || !is_mx_element(s.b) || s.a == FormatId::int8 || s.b == FormatId::int8)
    throw std::invalid_argument("mma capture cases: A and B must be FP8/FP6/FP4 element formats");
  if (s.acc != FormatId::f32 && s.acc != FormatId::f16) throw std::invalid_argument("mma capture cases: C is f32 or f16");
  const bool scaled = s.scale_format != MmaScaleFormat::none;
  if (scaled && (s.scale_block < 1 || s.k % s.scale_block != 0))
    throw std::invalid_argument("mma capture cases: the scale block " + std::to_string(s.scale_block) + " does not divide K = " +
                                std::to_string(s.k));

  // gen mma's cases, scaled or not (the same generator, vectors/README.md 6).
  std::vector<MmaCase> out;
  vec::for_each_case(shape_header(s, ""), o,
                     [&](std::span<const std::uint64_t> ops) { out.push_back(from_operands(s, ops)); });
  return out;
}

std::vector<std::uint64_t> operands(const CaseShape& s, const MmaCase& c) {
  std::vector<std::uint64_t> v;
  v.reserve(2 * c.a.size() + 2 * c.sa.size() + 1);
  v.insert(v.end(), c.a.begin(), c.a.end());
  v.insert(v.end(), c.b.begin(), c.b.end());
  v.insert(v.end(), c.sa.begin(), c.sa.end());
  v.insert(v.end(), c.sb.begin(), c.sb.end());
  if (s.addend) v.push_back(c.c);
  return v;
}

}  // namespace softmx::mma_capture
