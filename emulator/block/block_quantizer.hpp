// emulator/block/block_quantizer.hpp: block quantization with its options checked once
// (internal; quantize_block and quantize_tensor use it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "block/scale_lanes.hpp"
#include "core/kernels.hpp"
#include "simd/plan.hpp"
#include "simd/scale_kernels.hpp"
#include "softmx/block.hpp"

namespace softmx::detail {

class BlockQuantizer {
 public:
  /// Validates the source, element format, dialect and context (std::invalid_argument).
  BlockQuantizer(FormatId src, const BlockOptions& options);

  /// Quantizes `count` values (source storage type) into `codes` (count bytes) and returns
  /// the scale; ORs the flags into `flags`. `rbits` (count values) is read for rs only.
  /// Throws std::invalid_argument where the dialect raises (NaN under nan_to_finite = error).
  /// The scale code fits its scale format (E8M0: at most 0xFF).
  std::uint32_t run(const void* values, std::size_t count, const std::uint64_t* rbits, std::uint8_t* codes,
                    Flags& flags);

  /// run() for a scale format other than E8M0 (scale_format.cpp, BLOCKS.md 1.2).
  std::uint32_t run_scale_format(const void* values, std::size_t count, const std::uint64_t* rbits, std::uint8_t* codes,
                                Flags& flags);

  /// Quantizes `blocks` consecutive blocks of k values each (source storage type) into
  /// scale code b of `scales` (scale_code_bytes() bytes each) and codes[b * k ...] and ORs the flags into `flags`: run() per block, or the
  /// vector block kernel when one serves (same results). Not for rs.
  void run_blocks(const void* values, std::size_t blocks, std::size_t k, std::uint8_t* scales, std::uint8_t* codes,
                  Flags& flags);

  bool stochastic() const { return ctx_.rounding == Rounding::rs; }

  /// Whether run_blocks has the vector many-block kernel (simd::BlocksFn) for these options.
  bool many_block_kernel() const { return blocks_ != nullptr; }
  /// Sets h.floor_emax and h.scale_round where the block kernel can compute the scale exponent
  /// itself from amax's bits, as the scale rule would (quantize.cpp); leaves h alone otherwise.
  void kernel_scale(simd::BlockHooks& h) const;

 private:
  /// The scale exponent for a block whose values are finite with largest magnitude `amax`
  /// (zero for an all-zero block), clamped into E8M0's range; nan: the scale is NaN.
  struct ScaleChoice {
    int s = 0;
    bool nan = false;
  };
  ScaleChoice finite_scale(const Unpacked& amax) const;

  /// One element rounded into ef_: the named kernel, or round_pack reading the descriptor.
  Result round_element(const Unpacked& u, const Context& c) const {
    return round_pack_ ? round_pack_(u, c, d_) : round_pack(ef_, u, c, d_);
  }

  FormatId src_;
  const BlockOptions& o_;
  const Dialect& d_;
  Format ef_;  // the element format (canonical: ElementFormat holds it so)
  Context ctx_;
  ScaleRule rule_;
  int shift_ = 0;              // int8_integer_elements: elements are scaled by 2^-(s + 6)
  int precision_ = 24;         // the precision floor_log2_rn rounds log2 amax to
  std::uint8_t negative_zero_ = 0;  // ZeroSign::positive: the -0 code to turn into +0 (0: none)
  RoundPackKernel round_pack_ = nullptr;  // null: a runtime element (round_element)
  std::vector<Unpacked> v_;  // scratch, reused across blocks
  // The vector path (null scaled_: none serves these options).
  Isa isa_ = Isa::scalar;
  std::optional<simd::Plan> plan_;
  simd::BatchFn scaled_ = nullptr;
  simd::BlocksFn blocks_ = nullptr;
  std::uint32_t inf_bits_ = 0;  // the source's Inf code: a magnitude at or above it is Inf or NaN
  std::vector<Flags> fl_;       // scratch: the elements' flags
  // A scale format other than E8M0 (init_scale_format(), run_scale_format()).
  void init_scale_format();
  bool generic_scale_ = false;
  std::uint32_t scale_min_code_ = 0;  // the smallest positive scale code
  std::int64_t scale_nan_code_ = -1;  // the scale format's quiet NaN code, or -1 when none
  std::size_t scale_bytes_ = 1;       // scale_code_bytes(scale format)
  Unpacked max_element_;             // max_E
  // run_scale_format() in vector lanes (block/scale_lanes.cpp, BLOCKS.md 1.3); null
  // scale_quotient_: none serves these options.
  void init_scale_lanes();
  bool run_scale_lanes(const void* values, std::size_t count, std::uint8_t* codes, Flags& flags, std::uint32_t& S);
  void run_blocks_scale(const void* values, std::size_t blocks, std::size_t k, std::uint8_t* scales,
                        std::uint8_t* codes, Flags& flags);
  bool scale_of_block(const std::uint32_t* x, std::size_t count, std::uint32_t& S, float& s, int& k) const;
  std::optional<simd::Plan> scale_plan_;
  simd::QuotientFn scale_quotient_ = nullptr;
  // scale_of_block's f64 route (block/scale_lanes.cpp, fast_scale): off when scale_f64_.max_e == 0.
  ScaleF64 scale_f64_;
  // That route in lanes across the blocks of a chunk (run_blocks_scale); null without the route.
  simd::BlockScalesFn scale_blocks_ = nullptr;
};

}  // namespace softmx::detail
