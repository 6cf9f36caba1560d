// conformance/support/runtime_elements.hpp: what the block tests of runtime element formats
// (test_blocks_runtime, test_block_kernel_elements) share: the family of runtime elements they
// sweep, and the comparison of one block of two quantized tensors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/format.hpp"

namespace softmx::conformance {

/// Every sign-magnitude ExMy of 4 to 8 bits (E >= 0, M = width - 1 - E) with each specials kind
/// its width can hold (none, fn, fnuz, ieee), then the formats of `specs` (parse_format_spec),
/// in that order; each once, and only those that are runtime MX elements (no FormatId, and
/// mx_element_reason has no objection).
inline std::vector<Format> runtime_element_family(std::initializer_list<const char*> specs) {
  std::vector<Format> v;
  auto add = [&](const Format& f) {
    for (const Format& g : v)
      if (g == f) return;
    if (!f.is_named() && !mx_element_reason(f)) v.push_back(f);
  };
  for (int w = 4; w <= 8; ++w)
    for (int e = 0; e <= w - 1; ++e)
      for (Specials sp : {Specials::none, Specials::fn, Specials::fnuz, Specials::ieee}) {
        FormatFields ff;
        ff.exp_bits = e;
        ff.man_bits = w - 1 - e;
        ff.specials = sp;
        try {
          add(make_format(ff));
        } catch (const FormatError&) {  // specials this width cannot hold
        }
      }
  for (const char* s : specs) add(parse_format_spec(s));
  return v;
}

/// Whether block b (scale and k element codes) of two tensors quantized with blocks of k is the same.
inline bool same_block(const MxTensor& got, const MxTensor& want, std::size_t b, std::size_t k) {
  const auto at = [&](const MxTensor& x, std::size_t i) { return x.codes.begin() + static_cast<long>(i * k); };
  return got.scales[b] == want.scales[b] && std::equal(at(got, b), at(got, b + 1), at(want, b));
}

}  // namespace softmx::conformance
