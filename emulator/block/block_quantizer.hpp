// emulator/block/block_quantizer.hpp: block quantization with its options checked once
// (internal; quantize_block and quantize_tensor use it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/kernels.hpp"
#include "softmx/block.hpp"

namespace softmx::detail {

class BlockQuantizer {
 public:
  /// Validates the source, element format, dialect and context (std::invalid_argument).
  BlockQuantizer(FormatId src, const BlockOptions& options);

  /// Quantizes `count` values (source storage type) into `codes` (count bytes) and returns
  /// the scale; ORs the flags into `flags`. `rbits` (count values) is read for rs only.
  /// Throws std::invalid_argument where the dialect raises (NaN under nan_to_finite = error).
  std::uint8_t run(const void* values, std::size_t count, const std::uint64_t* rbits, std::uint8_t* codes,
                   Flags& flags);

  bool stochastic() const { return ctx_.rounding == Rounding::rs; }

 private:
  FormatId src_;
  const BlockOptions& o_;
  const Dialect& d_;
  Context ctx_;
  ScaleRule rule_;
  RoundPackKernel round_pack_;
  std::vector<Unpacked> v_;  // scratch, reused across blocks
};

}  // namespace softmx::detail
