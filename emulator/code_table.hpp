// emulator/code_table.hpp: every result of a conversion from a narrow source, tabulated on
// first use by a batch (internal; Converter holds one for sources of at most 8 bits, and for
// runtime pairs from sources of 9 to 16 bits that no vector kernel serves).
//
// A source of at most 16 bits has at most 65536 codes, so a batch of them is faster read from a
// table of the scalar kernel's own results than computed element by element: the table holds
// exactly what operator() returns, so the batch equals it by construction (and
// conformance/test_batch_simd.cpp and test_runtime_batch.cpp check every code).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "softmx/convert.hpp"

namespace softmx::detail {

struct CodeTable {
  explicit CodeTable(int source_width) : size(std::size_t{1} << source_width) {}
  std::once_flag made;
  std::size_t size;                  ///< 2^width of the source
  std::vector<std::uint64_t> codes;  ///< the result of source code c (filled by `made`)
  std::vector<Flags> flags;
  Flags any = 0;                     ///< the OR of all the flags
  /// Inputs converted so far without the table: a table of more than 256 entries is made once
  /// this reaches its size (it then costs at most what has already been spent).
  std::atomic<std::uint64_t> before{0};
};

}  // namespace softmx::detail
