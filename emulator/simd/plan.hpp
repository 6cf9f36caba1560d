// emulator/simd/plan.hpp: what the vector conversion kernels need to know about one
// conversion, worked out once (internal).
//
// The vector kernels (simd/lanes.hpp) are the generic round-and-pack of core/round_pack.hpp
// written for N lanes at once. They take every format and dialect fact from a Plan: the
// source's and destination's descriptor fields, the codes the dialect gives to overflow, and
// the results for input classes whose result does not depend on the input's digits (zeros,
// infinities, NaNs, E8M0 negatives), which the plan gets by asking the scalar kernel once per
// class. Lanes the vector code does not decide (rare edge cases listed in lanes.hpp) are
// handed to the scalar kernel, so the vector path is the scalar reference by construction
// and the exhaustive tests (conformance/test_batch_simd.cpp) check that it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "softmx/batch.hpp"
#include "softmx/convert.hpp"

namespace softmx::simd {

/// A result fixed for an input class, per sign (index 0: +, 1: -).
struct ClassResult {
  std::uint32_t code[2] = {0, 0};
  std::uint8_t flags[2] = {0, 0};
};

struct Plan {
  // Source (f32, f16 or bf16; an IEEE-style descriptor). A code is sign | exponent | fraction.
  int src_width = 32;
  int src_m = 23;        ///< fraction bits
  int src_bias = 127;
  int src_exp_max = 255; ///< the all-ones exponent field (Inf and NaN)

  // Destination: a named one's descriptor is compile-time constants in the kernels
  // (kFormats[dst]); a runtime one (dst == FormatId::runtime) is `rt`, which the same kernels
  // read at run time. The dialect's values are here.
  FormatId dst = FormatId::e4m3;
  struct RuntimeDst {
    int man_bits = 0, emin = 0, bias = 0, width = 8;
    SignEncoding sign = SignEncoding::magnitude;
    bool subnormals = true, fixed_point = false, fnuz = false;
  } rt;
  std::uint32_t max_mag[2] = {0x7E, 0x7E};  ///< largest finite magnitude code per sign
  bool tiny_after = true;       ///< tininess after rounding (Tininess::after_rounding)
  /// Tininess::after_bounded: a lane is tiny when its delivered magnitude code is a zero or a
  /// subnormal (lanes.hpp); the block and fused-sweep kernels, which decide tininess from
  /// the input's binade, do not take such a plan (pick_blocks, sweep_fused_serves).
  bool tiny_bounded = false;
  bool ties_up = false;         ///< e8m0 ties up under rne (dialect)
  /// Lanes need their significand normalised (source subnormals may be tiny in the
  /// destination; E8M0 has no subnormals). See lanes.hpp.
  bool normalize = false;

  // Overflow: the code per sign and the flags (overflow | inexact).
  std::uint32_t ovf_code[2] = {0, 0};
  bool ovf_is_max = false;  ///< ovf_code[s] is the largest finite code of sign s (saturation)

  // Input classes decided by one scalar call each.
  ClassResult zero, inf, qnan, snan;
  bool nan_by_class = true;  ///< false: a NaN's result depends on its payload (scalar per lane)
  bool neg_const = false;    ///< e8m0 under E8m0Negative::nan, min_if_satfinite: finite negatives give `neg`
  ClassResult neg;
  std::uint8_t neg_extra = 0;  ///< e8m0 under E8m0Negative::magnitude: invalid, sign dropped

  // The scalar reference for the lanes the vector code hands on.
  FormatId src = FormatId::f32;
  Format src_format, dst_format;
  Converter::Kernel scalar = nullptr;
  Context ctx;
  const Dialect* dialect = nullptr;
  /// The scalar kernel's result for one source code.
  Result call(std::uint64_t bits) const { return scalar(src_format, dst_format, bits, ctx, *dialect); }
};

/// The plan for converting `src` into `dst` (canonical descriptors), or nullopt when no vector
/// kernel serves the conversion (a source other than f32, f16, bf16; a destination wider than
/// 16 bits; rs rounding). Precondition: the dialect supports the conversion (Converter checked it).
std::optional<Plan> make_plan(const Format& src, const Format& dst, const Context& ctx, const Dialect& dialect,
                              Converter::Kernel scalar);

/// A batch conversion: n source codes (storage type of the source: std::uint32_t for f32,
/// std::uint16_t for f16 and bf16) to n destination codes (std::uint8_t, or std::uint16_t for
/// f16 and bf16 destinations) and, when `flags` is not null, n flag bytes. A scaled kernel
/// (block quantization) first divides every finite value by 2^shift exactly; others ignore it.
using BatchFn = void (*)(const Plan& p, const void* in, void* out, Flags* flags, std::size_t n, int shift);

/// The kernel for the plan compiled for `isa` (not Isa::scalar), with or without flags,
/// scaled or not (scaled: MX element destinations only, else null). Precondition:
/// isa_supported(isa).
BatchFn batch_kernel(const Plan& p, Isa isa, bool with_flags, bool scaled = false);

/// Converts the n consecutive source codes first, first + 1, ... (first + n <= 2^width): a
/// sweep's inputs, with no input array. Otherwise as BatchFn.
using ConsecutiveFn = void (*)(const Plan& p, std::uint64_t first, void* out, Flags* flags, std::size_t n);
ConsecutiveFn consecutive_kernel(const Plan& p, Isa isa, bool with_flags);
ConsecutiveFn consecutive_kernel_avx2(const Plan& p, bool with_flags);
ConsecutiveFn consecutive_kernel_avx512(const Plan& p, bool with_flags);

/// The segments of the n consecutive inputs first, first + 1, ... (Segment, batch.hpp) into
/// `out` (room for n); returns how many.
using SegmentsFn = std::size_t (*)(const Plan& p, std::uint64_t first, std::size_t n, Segment* out);
SegmentsFn segments_kernel(const Plan& p, Isa isa);
SegmentsFn segments_kernel_avx2(const Plan& p);
SegmentsFn segments_kernel_avx512(const Plan& p);

/// What a block-quantizing kernel asks of its caller (the BlockQuantizer), per block.
struct BlockHooks {
  void* ctx;
  /// >= 0: the kernel computes the scale of a block with a normal, finite amax itself, as
  ///   s = ((amax_bits + scale_round) >> m_src) - bias_src - floor_emax
  /// (at least -127; a block whose s would exceed 127 goes to `scale`). That is the floor rule
  /// (OCP MX 6.3: floor(log2 amax) - emax_E) with scale_round = 0 and floor_emax = emax_E, and
  /// every rule that rounds log2 amax up by a carry out of amax's fraction (the BlockQuantizer
  /// sets these: quantize.cpp, kernel_scale): ceil (scale_round = 2^m_src - 1), rceil
  /// (2^m_src - 1 - the fraction of max_E in m_src bits) and even (2^(m_src - m_E - 1)).
  int floor_emax = -1;
  std::uint32_t scale_round = 0;
  /// The scale exponent s for a block whose largest sign-cleared code is `amax_bits`; false
  /// when the block needs the scalar path (an Inf or NaN in it, or a NaN scale).
  bool (*scale)(void* ctx, std::uint32_t amax_bits, int& s);
  /// The scalar path for one block of k values: writes k codes, ORs flags, returns the scale.
  std::uint8_t (*slow)(void* ctx, const void* block, std::size_t k, std::uint8_t* codes, Flags& flags);
};
/// Quantizes `blocks` consecutive blocks of k source codes (k a multiple of 16) into the
/// plan's element format: scales[b], codes[b * k ...], and the OR of all flags into `flags`.
using BlocksFn = void (*)(const Plan& p, const void* in, std::size_t blocks, std::size_t k, const BlockHooks& hooks,
                          std::uint8_t* scales, std::uint8_t* codes, Flags& flags);
/// The block kernel for the plan on `isa`, or null (rs, or not an MX element destination).
BlocksFn blocks_kernel(const Plan& p, Isa isa);
BlocksFn blocks_kernel_avx2(const Plan& p);
BlocksFn blocks_kernel_avx512(const Plan& p);

/// The largest sign-cleared bit pattern among n codes of `width` (32 or 16) bits, on `isa`.
std::uint32_t max_magnitude_bits(const void* in, std::size_t n, int width, Isa isa);

/// One value as a scaled kernel computes it: the source code's value times 2^-shift (exactly,
/// when finite), rounded into the destination by the scalar round_pack.
Result scaled_scalar(const Plan& p, std::uint64_t bits, int shift);

/// MX dequantization into f32 in lanes (simd/dequant_lanes.hpp): a sign-magnitude element
/// format with subnormals or a two's complement fixed-point one, described by its fields, and
/// the Dequantizer's tables.
struct DequantLanes {
  int width, man, bias;
  Specials specials;
  int x_lo, x_hi;                       ///< scale exponents X whose every result is a normal f32
  /// Per scale code: a row whose NaN and Inf codes' results are that scale's (they are every
  /// scale's but 0xFF's: the Dequantizer passes the row of scale 127 for all), or null (then
  /// not here). The kernel reads only NaN and Inf codes from it.
  const std::uint64_t* const* tabs;
  /// Null: those results raise no flag. Else their flags by code, ORed into *flags_or.
  const Flags* special_flags = nullptr;
  Flags* flags_or = nullptr;
  /// A two's complement fixed-point element (MXINT8, int4): code c is the integer c
  /// (sign-extended from `width` bits) times 2^(1 - bias - man); no specials.
  bool twos = false;
};
/// Dequantizes blocks b, b + 1, ... of k codes (n codes in all; scale of block j: scales[j]) into
/// out (f32 bits) while each block's scale is in range with a table; returns the first block
/// it did not do.
using DequantFn = std::size_t (*)(const DequantLanes& d, const std::uint8_t* scales, const std::uint8_t* codes,
                                  std::size_t n, std::size_t k, std::size_t b, std::uint32_t* out);
/// The form for `isa` (precondition: isa_supported(isa)), or null for Isa::scalar.
DequantFn dequant_kernel(Isa isa);
DequantFn dequant_kernel_avx2();
DequantFn dequant_kernel_avx512();

// The per-instruction-set entry points (simd/isa_*.cpp).
BatchFn batch_kernel_avx2(const Plan& p, bool with_flags, bool scaled);
BatchFn batch_kernel_avx512(const Plan& p, bool with_flags, bool scaled);
std::uint32_t max_magnitude_bits_avx2(const void* in, std::size_t n, int width);
std::uint32_t max_magnitude_bits_avx512(const void* in, std::size_t n, int width);

}  // namespace softmx::simd

namespace softmx::detail {

/// What a Converter keeps for its batches: the plan and its kernels for every instruction set
/// this CPU supports, with flags [1] and without [0] (null for unsupported sets).
struct BatchPlan {
  simd::Plan plan;
  simd::BatchFn kernels[3][2] = {};  // indexed by Isa
  simd::ConsecutiveFn consecutive[3][2] = {};
  simd::SegmentsFn segments[3] = {};
};

}  // namespace softmx::detail
