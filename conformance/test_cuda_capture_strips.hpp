// conformance/test_cuda_capture_strips.hpp: the capture kernel's change-point algorithm, on the
// host, for the capture tests.
//
// capture_device.cu's change_points_kernel gives each thread a contiguous strip of inputs; a
// thread appends (input, code) for the strip's first input when its code differs from the input
// before it (computed again by the thread), and for every later input whose code differs from
// its predecessor's, to one buffer through an atomic counter, so the points arrive in any order.
// strip_change_points() does the same strip by strip, then shuffles the points (SplitMix64: the
// threads' completion order is not the input order) and, like a device that re-records strip
// starts, optionally adds each strip's first input even where the code does not change, and some
// exact duplicates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "change_point.hpp"
#include "softmx/prng.hpp"

namespace softmx::testing {

struct StripOptions {
  std::uint64_t strip = 4099;        ///< inputs per strip (not a power of two: unaligned boundaries)
  std::uint64_t seed = 1;            ///< shuffles the points
  bool record_strip_starts = false;  ///< also record every strip's first input
  std::uint64_t duplicates = 0;      ///< this many points appended twice (drawn with the seed)
};

/// The change points of `f` (std::uint64_t input -> std::uint64_t code) over first..last.
template <class F>
std::vector<capture::ChangePoint> strip_change_points(F&& f, std::uint64_t first, std::uint64_t last,
                                                      const StripOptions& o = {}) {
  std::vector<capture::ChangePoint> pts;
  for (std::uint64_t begin = first;; begin += o.strip) {
    const std::uint64_t end = (last - begin < o.strip - 1) ? last : begin + o.strip - 1;
    bool have_prev = begin > first;
    std::uint64_t prev = have_prev ? f(begin - 1) : 0;
    for (std::uint64_t i = begin;; ++i) {
      const std::uint64_t v = f(i);
      if (!have_prev || v != prev || (o.record_strip_starts && i == begin)) pts.push_back({i, v});
      prev = v;
      have_prev = true;
      if (i == end) break;
    }
    if (end == last) break;
  }
  SplitMix64 rng(o.seed);
  for (std::uint64_t d = 0; d < o.duplicates && !pts.empty(); ++d) pts.push_back(pts[rng.below(pts.size())]);
  for (std::size_t i = pts.size(); i > 1; --i) std::swap(pts[i - 1], pts[rng.below(i)]);
  return pts;
}

}  // namespace softmx::testing
