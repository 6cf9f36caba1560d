// emulator/gemm/tables.hpp: what the GEMM kernels read for each element code (internal).
//
// Every table is made from the format's descriptor through unpack() (convert.hpp), so a format
// the descriptors can describe needs no code here: a runtime element format (a descriptor of at
// most 8 bits, e1m2, e4m3fnuz, int4, ...) gets its tables the same way and runs the same
// kernels as the named ones. A table serves one GEMM call (256 entries,
// made in microseconds): no state outlives the call.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "softmx/format.hpp"

namespace softmx::gemm_detail {

/// An exponent no element has: the alignment exponent of a zero (or flushed) element, so that
/// a product with a zero factor never becomes a group's largest exponent. The sum of two stays
/// far inside int32 and far below every real exponent (|e| < 2^10 with any scale).
inline constexpr std::int32_t kZeroExponent = -(1 << 24);
/// ElementTables::quantum of a code without a non-zero finite value: above every real one.
inline constexpr std::int32_t kNoQuantum = 1 << 24;

/// Part of a format's finite values as exact integers: value(c) = n[c] * 2^q for the codes of
/// the part (n = 0 for every other code, zeros and specials included). |n[c]| < 2^bits. The
/// parts of a format split its codes by magnitude so that each spans at most
/// kMaxComponentBits bits (one part for every MX format but e5m2, which has two).
struct Component {
  int q = 0;
  int bits = 0;
  std::array<double, 256> n{};
};
inline constexpr int kMaxComponentBits = 20;

struct ElementTables {
  int man_bits = 0;                 ///< m: fraction bits
  std::array<bool, 256> special{};  ///< NaN or Inf codes (a product with one goes to the reference)
  std::vector<Component> parts;     ///< exact model: the value split by magnitude (1 or 2 parts)
  std::array<float, 256> value{};   ///< fp32-sequential: the value as an f32 (exact for every named MX element)
  /// Every finite value is exactly value[c] (false: a runtime format whose values leave f32's
  /// range; the fp32-sequential kernel is not used for it).
  bool value_exact = true;
  double max_abs = 0;               ///< the largest finite magnitude (0: none)
  /// fp32-sequential's exact blocks: the exponent of the lowest set bit of a finite non-zero
  /// value (value = odd * 2^quantum); kNoQuantum for zeros, flushed and special codes.
  std::array<std::int32_t, 256> quantum{};
  /// Tensor-core models: value = n * 2^(e - m) with e = max(floor(log2|v|), emin) (a subnormal
  /// keeps emin); n signed; zeros (and flushed subnormals) n = 0, e = kZeroExponent.
  std::array<std::int32_t, 256> tc_n{};
  std::array<std::int32_t, 256> tc_e{};
  std::array<std::uint8_t, 256> sign{};  ///< the code's sign bit (for the sign of zero products)
  std::uint8_t code_mask = 0;
};

/// The tables of an MX element format (named or runtime, at most 8 bits). flush_subnormals: subnormal codes read as zeros of their
/// sign everywhere (TensorCoreParams::flush_subnormal_inputs; the exact sum its flags compare
/// against is of the flushed values too).
ElementTables make_element_tables(const Format& f, bool flush_subnormals);

}  // namespace softmx::gemm_detail
