// emulator/block/nvfp4_steps.hpp: the steps of TransformerEngine's NVFP4 quantization, each an
// f32 operation formed exactly and rounded once (internal; softmx/nvfp4.hpp and the te-nvfp4
// recipe use them). Line numbers are TE d0067d0's (docs/research/transformer-engine-recipes.md 4).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "block/f32_arith.hpp"
#include "softmx/dialect.hpp"
#include "softmx/nvfp4.hpp"

namespace softmx::detail::nvfp4 {

inline Unpacked abs(Unpacked u) {
  u.sign = false;
  return u;
}

inline Unpacked flt_max() { return f32_value(std::numeric_limits<float>::max()); }

/// fmaxf(a, b) of non-negative values: a NaN operand is ignored (libdevice __nv_fmaxf).
inline Unpacked fmax(const Unpacked& a, const Unpacked& b) {
  if (a.cls == ValueClass::nan) return b;
  if (b.cls == ValueClass::nan) return a;
  return to_float(b) > to_float(a) ? b : a;
}

/// max(a, b) of non-negative values as torch.max/torch.amax compute it: NaN propagates.
inline Unpacked max_propagating(const Unpacked& a, const Unpacked& b) {
  if (a.cls == ValueClass::nan) return a;
  if (b.cls == ValueClass::nan) return b;
  return to_float(b) > to_float(a) ? b : a;
}

/// fminf(x, FLT_MAX) for x >= 0 or NaN: NaN gives FLT_MAX (the kernels).
inline Unpacked fmin_flt_max(const Unpacked& x) {
  if (x.cls == ValueClass::nan) return flt_max();
  return to_float(x) > std::numeric_limits<float>::max() ? flt_max() : x;
}

/// torch.min(x, FLT_MAX): NaN propagates (the Python reference).
inline Unpacked min_flt_max_propagating(const Unpacked& x) {
  if (x.cls == ValueClass::nan) return x;
  return to_float(x) > std::numeric_limits<float>::max() ? flt_max() : x;
}

/// S_enc from the global amax (core_nvfp4.cuh:81-95): fminf(2688 / amax, FLT_MAX), and 1.0
/// when amax or S_enc is zero. reference (reference_nvfp4.py:712-729): torch.min (NaN stays),
/// and only S_enc == 0 gives 1 (amax = 0 leaves FLT_MAX).
inline Unpacked encode_scale(const Unpacked& gmax, bool reference = false) {
  const Unpacked q = div_f32(f32_value(448.0f * 6.0f), gmax);
  if (reference) {
    const Unpacked s = min_flt_max_propagating(q);
    return s.cls == ValueClass::zero ? f32_value(1.0f) : s;
  }
  const Unpacked s = fmin_flt_max(q);
  if (gmax.cls == ValueClass::zero || s.cls == ValueClass::zero) return f32_value(1.0f);
  return s;
}

/// RN(1/6): the f32 constant fp4_max_inv (core_nvfp4.cuh), 0x3E2AAAAB.
inline Unpacked sixth() { return f32_value(1.0f / 6.0f); }

/// The E4M3 block decode scale of a block with amax bmax (core_nvfp4.cuh:40-53):
/// e4m3_satfinite(fminf(bmax * (S_enc * RN(1/6)), FLT_MAX)); enc_over_6 = RN(S_enc * RN(1/6)).
/// reference (reference_nvfp4.py:748-762): torch.min (NaN stays), clamp to +-448 and PyTorch's
/// cast: the same code for every non-NaN value, and 0x7F for NaN.
inline Result block_scale(const Unpacked& bmax, const Unpacked& enc_over_6, bool reference = false) {
  Unpacked d = mul_f32(bmax, enc_over_6);
  d = reference ? min_flt_max_propagating(d) : fmin_flt_max(d);
  Context sat;  // rne, satfinite: the __nv_fp8_e4m3 constructor (cvt.rn.satfinite.e4m3x2.f32)
  sat.saturation = Saturation::finite;
  if (d.cls == ValueClass::nan) return Result{0x7F, flag::invalid};
  return round_pack(format(FormatId::e4m3), d, sat, ocp_dialect());
}

/// The element multiplier (quantize_transpose_nvfp4.cuh:549-550): reciprocal_product gives
/// fminf(1 / (float(S_dec_b) * S_dec), FLT_MAX) with S_dec = RN(1 / S_enc); division (TE's
/// deleted quantize_nvfp4.cuh) __fdiv_rn(S_enc, float(S_dec_b)). reference: torch.min.
inline Unpacked multiplier(const Unpacked& sdec_b, const Unpacked& s_enc, const Unpacked& s_dec, Nvfp4Multiplier form,
                           bool reference = false) {
  if (form == Nvfp4Multiplier::division) return div_f32(s_enc, sdec_b);
  const Unpacked m = div_f32(f32_value(1.0f), mul_f32(sdec_b, s_dec));
  return reference ? min_flt_max_propagating(m) : fmin_flt_max(m);
}

/// TE's NVFP4 dequantization of one element (dequantize_nvfp4.cuh:65-77):
///   final_scale = RN(RN(float(S_dec_b) * amax) * RN(1/2688)),  out = OType(RN(e2m1 * final_scale))
/// with OType's cast rne and overflowing to Inf (static_cast on the GPU; NaN 0x7FFF...).
/// amax is the tensor's global amax (f32 bits). dst: f32, bf16 or f16.
inline Result te_dequantize(std::uint8_t code, std::uint8_t scale, std::uint32_t amax, FormatId dst) {
  const Unpacked factor_inv = f32_value(1.0f / (6.0f * 448.0f));  // constexpr f32, 0x39C30C31
  const Unpacked fs = mul_f32(mul_f32(unpack(format(FormatId::e4m3), scale), unpack(format(FormatId::f32), amax)),
                              factor_inv);
  const Unpacked x = mul_f32(unpack(format(FormatId::e2m1), code), fs);
  Context rn;
  rn.saturation = Saturation::none;
  static const Dialect& gpu = *find_dialect("transformer-engine");
  Result r = round_pack(format(dst), x, rn, gpu);
  return r;
}

/// dequantize_nvfp4's exact form for one element: value(code) * float(S_dec_b) / S_enc, formed
/// exactly and rounded once into d under ctx (s_enc finite and non-zero).
Result exact_element(std::uint8_t code, std::uint8_t scale, const Unpacked& s_enc, const Format& d, const Context& ctx);

/// quantize_nvfp4 in vector lanes (block/nvfp4_lanes.cpp) for f32 data blocked along the last
/// axis (`axis` is shape.size() - 1), rne, on `isa`; nullopt (nothing done) when a value is
/// Inf or NaN, the FPU is not in its default mode, or `isa` has no kernels.
std::optional<Nvfp4Tensor> quantize_lanes(const std::uint32_t* data, std::span<const std::size_t> shape,
                                          std::size_t axis, const Nvfp4Options& o, Isa isa);
/// dequantize_nvfp4's exact form into f32 for a tensor blocked along its last axis: per scale
/// code, a row of the 16 results of exact_element, read by code.
Flags dequantize_lanes(const Nvfp4Tensor& t, const Unpacked& s_enc, std::uint32_t* out, const Context& ctx, Isa isa);

}  // namespace softmx::detail::nvfp4
