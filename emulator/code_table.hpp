// emulator/code_table.hpp: every result of a conversion from an 8-bit source, tabulated on
// first use by a batch (internal; Converter holds one for sources of at most 8 bits).
//
// A source of at most 8 bits has at most 256 codes, so a batch of them is faster read from a
// table of the scalar kernel's own results than computed element by element: the table holds
// exactly what operator() returns, so the batch equals it by construction (and
// conformance/test_batch_simd.cpp checks every code under every setting).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "softmx/convert.hpp"

namespace softmx::detail {

struct CodeTable {
  std::once_flag made;
  std::size_t size = 0;                  ///< 2^width of the source
  std::array<std::uint64_t, 256> codes{};  ///< the result of source code c
  std::array<Flags, 256> flags{};
  Flags any = 0;                         ///< the OR of all the flags
};

}  // namespace softmx::detail
