// emulator/dialects.cpp: the table of named dialects.
//
// Each entry is data: policy values (docs/SEMANTICS.md section 5) and, per destination, the
// rounding modes and saturations the modelled implementation offers. docs/DIALECTS.md says
// where every value comes from.
#include <array>
#include <string>

#include "core/ascii.hpp"
#include "softmx/dialect.hpp"

namespace softmx {
namespace {

constexpr RoundingSet bits(std::initializer_list<Rounding> rs) {
  RoundingSet s = 0;
  for (Rounding r : rs) s |= rounding_bit(r);
  return s;
}

// Every mode and both saturations into every format. The default saturation: none into f64,
// f32, f16 and bf16, where every modelled implementation overflows as IEEE 754 7.4 says (Inf,
// and Inf stays Inf; OFP8's saturation concerns the MX formats): CUDA's __float2half_rn and
// __float2bfloat16, PyTorch's casts, microxcaling's _quantize_fp/_quantize_bfloat
// (saturate_normals=False), gfloat's round_float (sat=False), ml_dtypes' casts;
// docs/DIALECTS.md cites each. finite into the MX formats and e8m0 unless a dialect says
// otherwise below.
constexpr std::array<DestinationSupport, kFormatCount> all_supported() {
  std::array<DestinationSupport, kFormatCount> a{};
  for (int i = 0; i < kFormatCount; ++i)
    a[i] = {kAllRoundings, kAllSaturations, "", Rounding::rne,
            is_ieee_host_format(static_cast<FormatId>(i)) ? Saturation::none : Saturation::finite};
  return a;
}

constexpr void set(std::array<DestinationSupport, kFormatCount>& a, FormatId id, DestinationSupport s) {
  a[static_cast<int>(id)] = s;
}

constexpr void unsupported(std::array<DestinationSupport, kFormatCount>& a, FormatId id, std::string_view why) {
  a[static_cast<int>(id)] = {0, 0, why, Rounding::rne, Saturation::finite};
}

constexpr SaturationSet sats(std::initializer_list<Saturation> ss) {
  SaturationSet r = 0;
  for (Saturation x : ss) r |= saturation_bit(x);
  return r;
}

constexpr SaturationSet kFinite = saturation_bit(Saturation::finite);
constexpr SaturationSet kNone = saturation_bit(Saturation::none);

// ---------------------------------------------------------------------------------------------
// ocp: the OCP MX v1.0 and OFP8 v1.0 specification. Every mode and saturation is available;
// the implementation-defined points are decided as documented in docs/DIALECTS.md.
constexpr Dialect make_ocp() {
  Dialect d;
  d.name = "ocp";
  d.summary = "OCP MX v1.0 / OFP8 v1.0 as written; implementation-defined points decided and documented";
  d.sources = "OCP Microscaling Formats (MX) v1.0 sections 5-6; OCP 8-bit Floating Point (OFP8) v1.0 "
              "section 5 and table 3; IEEE 754-2019 sections 4.3, 6.2, 7.4 for what they leave open";
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::canonical);
  d.nan_to_finite = NanToFinite::positive_max;
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::min_scale;
  d.e8m0_negative = E8m0Negative::nan;
  d.e8m0_ties = E8m0Ties::even;
  d.int8_minus2 = false;
  d.support = all_supported();
  // OCP MX 6.3 (floor); the open points as microxcaling, the spec authors' reference code,
  // decides them: zero block 2^-127, NaN or Inf amax makes the scale NaN, an exponent above
  // 127 is NaN. Elements under a NaN scale carry no information: ocp stores 0.
  d.block.scale_rule = ScaleRule::floor;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::nan_scale;
  d.block.inf_block = InfBlock::nan_scale;
  d.block.nan_scale_elements = NanScaleElements::zero;
  d.block.scale_overflow = ScaleOverflow::nan;
  return d;
}

// ---------------------------------------------------------------------------------------------
// cuda: NVIDIA's host/software conversion functions in cuda_fp8.hpp, cuda_fp6.hpp,
// cuda_fp4.hpp (CUDA 13.0), float and double inputs alike; blocks as cuDNN documents them.
constexpr Dialect make_cuda() {
  Dialect d;
  d.name = "cuda";
  d.summary = "what NVIDIA's cuda_fp8.hpp / cuda_fp6.hpp / cuda_fp4.hpp conversion functions compute (CUDA 13.0)";
  d.sources = "CUDA 13.0 headers: __nv_cvt_{float,double,halfraw,bfloat16raw}_to_{fp8,fp6,fp4}, "
              "__nv_cvt_{float,double,bfloat16raw}_to_e8m0, __nv_cvt_fp8_to_halfraw, __nv_cvt_e8m0_to_bf16raw "
              "and the __nv_fp8_e4m3/e5m2/e8m0 operators; blocks: cuDNN BLOCK_SCALE_QUANTIZE "
              "(scale = round-up(amax / max), elements round-to-even)";
  // The float path replaces any NaN by 0x7FFFFFFF before converting, so FP8 from float/half/bf16
  // gives 0x7F; the double path keeps the sign and, for E5M2, the fraction's next bit.
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::preserve);
  // __float2half_rn and __float2bfloat16_rz return 0x7FFF for every NaN.
  d.nan_payload[static_cast<int>(FormatId::f16)] = NanPayload::all_ones;
  d.nan_payload[static_cast<int>(FormatId::bf16)] = NanPayload::all_ones;
  for (auto& n : d.nan_canonical_ones) n = 23;  // f32 0x7FFFFFFF (f16 widens to it too)
  d.nan_canonical_ones[static_cast<int>(FormatId::f64)] = 0;   // the double path keeps the NaN
  d.nan_canonical_ones[static_cast<int>(FormatId::e8m0)] = 7;  // decodes through bf16 0x7FFF
  // __nv_cvt_double_to_fp6/fp4: "NaN converts to positive MAXNORM".
  d.nan_to_finite = NanToFinite::positive_max;
  // __nv_cvt_bfloat16raw_to_e8m0 takes the exponent field and ignores the sign; zero and tiny
  // values give 0x00.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::min_scale;
  d.e8m0_negative = E8m0Negative::magnitude;
  d.e8m0_ties = E8m0Ties::even;  // unused: only rz and ru exist
  d.int8_minus2 = false;
  d.support = all_supported();
  const RoundingSet rn = bits({Rounding::rne});
  set(d.support, FormatId::e4m3, {rn, kAllSaturations, "__nv_cvt_*_to_fp8 rounds to nearest even only"});
  set(d.support, FormatId::e5m2, {rn, kAllSaturations, "__nv_cvt_*_to_fp8 rounds to nearest even only"});
  const RoundingSet rn_rz = bits({Rounding::rne, Rounding::rz});
  constexpr std::string_view fp6 = "__nv_cvt_*_to_fp6/fp4 accept cudaRoundNearest and cudaRoundZero only";
  set(d.support, FormatId::e3m2, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e2m3, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e2m1, {rn_rz, kAllSaturations, fp6});
  set(d.support, FormatId::e8m0,
      {bits({Rounding::rz, Rounding::ru}), kAllSaturations,
       "__nv_cvt_*_to_e8m0 accept cudaRoundZero and cudaRoundPosInf only", Rounding::ru, Saturation::finite});
  unsupported(d.support, FormatId::int8, "CUDA has no MXINT8 conversion");
  // cuDNN: scale = quantize_round_up(amax / vmax), output = round_to_even(vals / scale): exact
  // RCEIL. Its NaN and Inf handling is undocumented: softmx follows cvt.rp.satfinite.ue8m0
  // (NaN -> 0xFF, Inf -> 0xFE) and the FP8 conversions (NaN elements -> 0x7F).
  d.block.scale_rule = ScaleRule::rceil;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::nan_scale;
  d.block.inf_block = InfBlock::max_scale;
  d.block.nan_scale_elements = NanScaleElements::nan;
  d.block.scale_overflow = ScaleOverflow::clamp;
  return d;
}

// ---------------------------------------------------------------------------------------------
// cuda-sm90 and cuda-sm100: what a GPU computes for each conversion, instruction or software path
// as the CUDA 13.0 headers compile it for that target (docs/DIALECTS.md, "cuda-sm90, cuda-sm100").
// Every documented result of the hardware paths equals the software path's, so both start from
// make_cuda(); the points the documentation leaves open are listed in docs/DIALECTS.md as
// unverified until a capture (tools/cuda/) measures them, and each is one policy value here.
struct DeviceDialect {
  std::string_view name, summary, sources;
  /// Destinations that gain cvt.rs (stochastic rounding); empty for sm_90.
  std::initializer_list<FormatId> rs_destinations;
};

constexpr Dialect make_cuda_device(const DeviceDialect& dd) {
  Dialect d = make_cuda();
  d.name = dd.name;
  d.summary = dd.summary;
  d.sources = dd.sources;
  // Unverified (docs/DIALECTS.md): cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2} on NaN gives the
  // positive all-ones NaN (0x7F), as the software path does for float NaN; cvt.rn.f16x2.e4m3x2
  // decodes NaN to 0x7FFF, sign dropped, as __nv_cvt_fp8_to_halfraw's host path; the ue8m0
  // instructions give 0x00 for zero and ignore the sign, as __nv_cvt_bfloat16raw_to_e8m0's host
  // path. These are make_cuda()'s values: nan_canonical_ones, nan_payload, e8m0_zero, e8m0_negative.
  for (FormatId f : dd.rs_destinations) {
    DestinationSupport& s = d.support[static_cast<int>(f)];
    s.roundings |= rounding_bit(Rounding::rs);
    s.why = "CUDA offers rne (and rz for FP6/FP4) through __nv_cvt_*, and rs through cvt.rs.satfinite.*x4.f32 "
            "(sm_100a, sm_103a)";
  }
  return d;
}

constexpr Dialect make_cuda_sm90() {
  return make_cuda_device(
      {"cuda-sm90",
       "what an H100/H200 (sm_90) computes: FP8 instructions for f32/f16 -> e4m3/e5m2 rn satfinite and the "
       "e4m3/e5m2 -> f16 decode, NVIDIA's software path (the cuda dialect) for everything else",
       "PTX ISA 9.x cvt (rn.satfinite e4m3x2/e5m2x2 from f32 and f16x2; rn.f16x2 from e4m3x2/e5m2x2, sm_89+); "
       "CUDA 13.0 cuda_fp8.hpp/cuda_fp6.hpp/cuda_fp4.hpp compiled for sm_90a; captures: tools/cuda/",
       {}});
}

constexpr Dialect make_cuda_sm100() {
  return make_cuda_device(
      {"cuda-sm100",
       "what a Blackwell GPU (sm_100a/103a) computes: the FP8, FP6, FP4 and UE8M0 cvt instructions, cvt.rs "
       "stochastic rounding from f32, NVIDIA's software path for the rest",
       "PTX ISA 9.x cvt (rn.satfinite e2m3x2/e3m2x2/e2m1x2.f32; rz/rp[.satfinite].ue8m0x2.{f32,bf16x2}; "
       "rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32); CUDA 13.0 headers compiled for sm_100a "
       "(__CUDA_ARCH_FAMILY_SPECIFIC__ paths); captures: tools/cuda/",
       {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1}});
}

// ---------------------------------------------------------------------------------------------
// torchao: torchao/prototype/mx_formats (to_mx, ScaleCalculationMode) with PyTorch's casts.
constexpr Dialect make_torchao() {
  Dialect d;
  d.name = "torchao";
  d.summary = "torchao's MX formats (to_mx: FLOOR default, CEIL, EVEN, RCEIL) with PyTorch's float8 and e8m0 casts";
  d.sources = "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py (to_mx, _to_mx_rceil, "
              "_e8m0_scale_to_reciprocal_fp32), constants.py, torchao/prototype/custom_fp_utils.py "
              "(_f32_to_fpx_unpacked); PyTorch c10 Float8_e4m3fn/e5m2 and headeronly Float8_e8m0fnu casts; "
              "docs/research/block-dialects.md sections 2 and 7";
  // PyTorch's FP8 casts keep a NaN's sign; E5M2 NaN is 0x7F | sign (the fp8_max branch).
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::canonical);
  d.nan_payload[static_cast<int>(FormatId::e5m2)] = NanPayload::all_ones;
  // _f32_to_fpx_unpacked has no NaN branch: an x86 quiet NaN (0x7FC0000x) goes through the
  // normal-number bit arithmetic and comes out as 1.5 (E2M1 0x3, E2M3 0x0C, E3M2 0x0E), with
  // its sign. (On CUDA, 0x7FFFFFFF gives 2.0 instead: softmx models the CPU.)
  d.nan_to_finite = NanToFinite::signed_value;
  d.nan_finite_value = 1.5;
  // PyTorch fp8e8m0fnu_from_fp32_value: sign ignored, zero -> 0x00, ties round up on the
  // implicit bit (3.0 -> 4.0), f32 subnormals above 2^-127 -> 0x01, overflow and Inf -> 0xFF.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::min_scale;
  d.e8m0_negative = E8m0Negative::magnitude;
  d.e8m0_ties = E8m0Ties::up;
  d.e8m0_lowest_binade_rounds_up = true;
  d.int8_minus2 = false;
  d.support = all_supported();
  const RoundingSet rn = bits({Rounding::rne});
  set(d.support, FormatId::e4m3, {rn, kAllSaturations, "PyTorch's float8 casts round to nearest even"});
  set(d.support, FormatId::e5m2, {rn, kAllSaturations, "PyTorch's float8 casts round to nearest even"});
  constexpr std::string_view fpx = "_f32_to_fpx_unpacked rounds to nearest even and saturates";
  set(d.support, FormatId::e3m2, {rn, kFinite, fpx});
  set(d.support, FormatId::e2m3, {rn, kFinite, fpx});
  set(d.support, FormatId::e2m1, {rn, kFinite, fpx});
  set(d.support, FormatId::e8m0,
      {rn, kNone, "PyTorch's float8_e8m0fnu cast rounds to nearest (ties up) and overflows to NaN", Rounding::rne,
       Saturation::none});
  unsupported(d.support, FormatId::int8, "torchao has no MXINT8 (\"TODO(future PR): add support for MX int8\")");
  // to_mx: amax propagates NaN; a non-finite amax gives 0xFF and every element NaN (the exact
  // reciprocal of 0xFF is NaN); the zero block clamps to 0x00; elements are V * (1/X) in f32
  // with an exact reciprocal; RCEIL divides by max_pos as max_abs * (1.0 / max_pos) in f32;
  // EVEN rounds the f32 amax bits, so a carry past 2^128 gives Inf and 0xFF.
  d.block.scale_rule = ScaleRule::floor;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::nan_scale;
  d.block.inf_block = InfBlock::nan_scale;
  d.block.nan_scale_elements = NanScaleElements::nan;
  d.block.scale_overflow = ScaleOverflow::nan;
  d.block.rceil_f32_reciprocal = true;
  d.block.even_f32_overflow_nan = true;
  d.block.element_scaling = ElementScaling::f32_reciprocal;
  return d;
}

// ---------------------------------------------------------------------------------------------
// ml_dtypes: scalar conversions only (float8_e4m3fn, e5m2, float6_e3m2fn, e2m3fn, float4_e2m1fn,
// float8_e8m0fnu), with its default ConvertFrom<kSaturate = false, kTruncate = false>.
constexpr Dialect make_ml_dtypes() {
  Dialect d;
  d.name = "ml_dtypes";
  d.summary = "ml_dtypes' scalar casts (non-saturating, round to nearest even); no block quantization";
  d.sources = "jax-ml/ml_dtypes ml_dtypes/include/float8.h (ConvertImpl, RoundBitsToNearestEven), "
              "include/mxfloat.h; issues 298, 400; PR 398 (E8M0 ties); docs/research/block-dialects.md section 3";
  d.nan_sign = NanSign::preserve;  // NaN -> +-quiet_NaN() by the input's sign
  d.nan_payload.fill(NanPayload::canonical);
  // FP4/FP6 quiet_NaN() is the -0 code, and -quiet_NaN() flips its sign: +NaN -> -0, -NaN -> +0.
  d.nan_to_finite = NanToFinite::flipped_zero;
  // E8M0: the implicit bit is the round-off LSB, so every tie rounds up (3.0 -> 4.0); zero and
  // negatives have no representation and become NaN (kSaturate = false); f32 subnormals above
  // 2^-127 round up to 2^-126.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::nan;
  d.e8m0_negative = E8m0Negative::nan;
  d.e8m0_ties = E8m0Ties::up;
  d.e8m0_lowest_binade_rounds_up = true;
  d.int8_minus2 = false;
  d.support = all_supported();
  constexpr std::string_view why = "ml_dtypes' casts round to nearest even (kTruncate = false); by default "
                                   "they do not saturate (kSaturate = false)";
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::e8m0})
    set(d.support, f, {bits({Rounding::rne}), kAllSaturations, why, Rounding::rne, Saturation::none});
  unsupported(d.support, FormatId::int8, "ml_dtypes has no MXINT8 type");
  d.block.unsupported = "ml_dtypes has scalar types only, no block quantization";
  return d;
}

// ---------------------------------------------------------------------------------------------
// microxcaling: Microsoft's MX reference emulation, its custom_cuda path (exact exponent
// extraction; the default Python path differs, see docs/DIALECTS.md).
constexpr Dialect make_microxcaling() {
  Dialect d;
  d.name = "microxcaling";
  d.summary = "microsoft/microxcaling (the MX spec authors' emulation library), custom_cuda path: "
              "floor scale, ties-away elements";
  d.sources = "microsoft/microxcaling mx/mx_ops.py (_shared_exponents, _quantize_mx), mx/elemwise_ops.py "
              "(_quantize_elemwise_core, _round_mantissa), mx/formats.py, mx/cpp/shared_exp.cuh, quantize.cuh; "
              "docs/research/block-dialects.md section 1";
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::canonical);
  d.nan_to_finite = NanToFinite::positive_max;  // undefined there (its output is float)
  d.int8_minus2 = false;                        // clamps to +-127/64: -2 is never produced
  d.support = all_supported();
  // Element rounding: "nearest" (the default) = floor(|x| + 0.5) = ties away; "even"; "floor" =
  // toward zero. Saturation: always clamps to +-max_norm.
  const RoundingSet modes = bits({Rounding::rna, Rounding::rne, Rounding::rz});
  constexpr std::string_view why = "microxcaling rounds \"nearest\" (ties away, the default), \"even\" or "
                                   "\"floor\" (toward zero), and always saturates";
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8})
    set(d.support, f, {modes, kFinite, why, Rounding::rna, Saturation::finite});
  unsupported(d.support, FormatId::e8m0, "microxcaling takes scales from exponent bits; it has no float-to-E8M0 cast");
  // Scale: floor (exponent bits), below -127 clamps, above 127 is NaN; a NaN or Inf amax makes
  // the shared exponent NaN and every element NaN; the zero block gets 0x00.
  d.block.scale_rule = ScaleRule::floor;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::nan_scale;
  d.block.inf_block = InfBlock::nan_scale;
  d.block.nan_scale_elements = NanScaleElements::nan;
  d.block.scale_overflow = ScaleOverflow::nan;
  d.block.element_rounding = Rounding::rna;
  d.block.element_saturation = Saturation::finite;
  return d;
}

// ---------------------------------------------------------------------------------------------
// transformer-engine: NVIDIA TransformerEngine's MXFP8 quantization kernels at d0067d0 (2026-08-22),
// and NVFP4 in softmx/nvfp4.hpp; the recipes are in softmx/recipe.hpp.
constexpr Dialect make_transformer_engine() {
  Dialect d;
  d.name = "transformer-engine";
  d.summary = "NVIDIA TransformerEngine MXFP8 (d0067d0, 2026-08): RCEIL on an f32 quotient, NaN-ignoring amax, "
              "cvt.rn.satfinite elements, exact multipliers 2^(127-S) (PR 2647), ptx::exp2f dequantization (PR 3262)";
  d.sources = "NVIDIA/TransformerEngine d0067d0: transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh, "
              "dequantize_mxfp8.cuh, common/util/ptx.cuh:308-341 (exp2f_rcp, exp2f), ptx_arch_spec.cuh:72-104 "
              "(float_to_e8m0), cast/nvfp4/*; PRs 2647 (71971e33d) and 3262 (4ff5fdfed); "
              "docs/research/transformer-engine-recipes.md section 3";
  // cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 on the GPU: NaN -> 0x7F (the sign the hardware gives
  // is not determined; softmx uses +).
  d.nan_sign = NanSign::positive;
  d.nan_payload.fill(NanPayload::all_ones);
  d.nan_to_finite = NanToFinite::positive_max;
  // float_to_e8m0: NaN -> 0xFF, Inf -> 0xFE, 0 -> 0x00, sign dropped, rounding up.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::min_scale;
  d.e8m0_negative = E8m0Negative::magnitude;
  d.support = all_supported();
  const RoundingSet rn = bits({Rounding::rne});
  constexpr std::string_view cvt = "TransformerEngine converts with cvt.rn.satfinite";
  set(d.support, FormatId::e4m3, {rn, kFinite, cvt});
  set(d.support, FormatId::e5m2, {rn, kFinite, cvt});
  set(d.support, FormatId::e2m1, {rn, kFinite, cvt});
  set(d.support, FormatId::e8m0,
      {bits({Rounding::ru}), kFinite, "float_to_e8m0 rounds up (cvt.rp.satfinite.ue8m0x2.f32)", Rounding::ru,
       Saturation::finite});
  unsupported(d.support, FormatId::e3m2, "TransformerEngine has no FP6 quantization");
  unsupported(d.support, FormatId::e2m3, "TransformerEngine has no FP6 quantization");
  unsupported(d.support, FormatId::int8, "TransformerEngine has no MXINT8 quantization");
  // MXFP8: biased = float_to_e8m0(amax * max_norm_rcp) (an f32 multiply, then rounding up);
  // amax = fmaxf(.., fabsf(x)) from 0 ignores NaN; Inf -> 0xFE. The element multiplier
  // exp2f_rcp<float>(biased) (ptx.cuh:308-317, since PR 2647) is the exact f32 2^(127 - S) for
  // every S <= 0xFE (0x00 -> 2^127, 0xFE -> the subnormal 2^-127), so x * m rounded to f32 is
  // the f32_reciprocal policy; dequantization multiplies by ptx::exp2f(biased) (ptx.cuh:335-341,
  // since PR 3262): 2^-127 for 0x00, NaN for 0xFF.
  d.block.scale_rule = ScaleRule::rceil;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::propagate;
  d.block.inf_block = InfBlock::max_scale;
  d.block.nan_scale_elements = NanScaleElements::nan;
  d.block.scale_overflow = ScaleOverflow::clamp;
  d.block.rceil_f32_reciprocal = true;
  d.block.element_scaling = ElementScaling::f32_reciprocal;
  d.block.dequant_scaling = DequantScaling::te_exp2f;
  return d;
}

// transformer-engine-2025: the same kernels before 2026-02-05 (TE PR 2647, commit 71971e33d, changed
// exp2f_rcp) and 2026-08-05 (PR 3262, commit 4ff5fdfed, changed exp2f), as shipped in 2025 releases.
constexpr Dialect make_transformer_engine_2025() {
  Dialect d = make_transformer_engine();
  d.name = "transformer-engine-2025";
  d.summary = "NVIDIA TransformerEngine MXFP8 before PR 2647 (2026-02-05): exp2f_rcp 0x00 -> 1.0 and "
              "0xFE -> +0.0; dequantization by the f32 bits S << 23 (0x00 -> 0, 0xFF -> Inf) before PR 3262";
  d.sources = "NVIDIA/TransformerEngine util/ptx.cuh before 71971e33d (exp2f_rcp: (biased_exp == 0) ? 1 : "
              "__int_as_float((254 - biased_exp) << 23)) and before 4ff5fdfed (exp2f: __int_as_float(biased << 23)); "
              "docs/research/block-dialects.md section 4, transformer-engine-recipes.md section 3";
  d.block.element_scaling = ElementScaling::te_int_reciprocal;
  d.block.dequant_scaling = DequantScaling::te_bits;
  return d;
}

// ---------------------------------------------------------------------------------------------
// gfloat: Graphcore's generic float library (quantize_block / encode_block).
constexpr Dialect make_gfloat() {
  Dialect d;
  d.name = "gfloat";
  d.summary = "graphcore-research/gfloat: floor scale in float64, NaN as the all-ones code, MXINT8 with -2";
  d.sources = "graphcore-research/gfloat src/gfloat/block.py (compute_scale_amax, quantize_block, encode_block), "
              "round.py (round_float), encode.py, formats.py; docs/research/block-dialects.md section 5";
  // encode_float(NaN) is code_of_nan: the all-ones code (E4M3 and E5M2 0xFF, sign bit set).
  d.nan_sign = NanSign::negative;
  d.nan_payload.fill(NanPayload::all_ones);
  // FP6, FP4, INT8: ValueError("No NaN in format").
  d.nan_to_finite = NanToFinite::error;
  // E8M0: round_float with precision 1 ties to the even code; no zero (0.0 -> code_of_nan).
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::nan;
  d.e8m0_negative = E8m0Negative::nan;
  d.e8m0_ties = E8m0Ties::even;
  d.int8_minus2 = true;  // format_info_ocp_int8: min = -2
  d.support = all_supported();
  const RoundingSet modes = bits({Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd});
  constexpr std::string_view why = "gfloat's deterministic RoundModes: TiesToEven, TiesToAway, TowardZero, "
                                   "TowardPositive, TowardNegative (its stochastic modes use other bit alignments)";
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1,
                                    FormatId::int8, FormatId::e8m0})
    set(d.support, f, {modes, kAllSaturations, why});
  // compute_scale_amax: floor(log2(amax)) - emax clipped to [-127, 127] (float64 log2: exact for
  // f32-valued data); zero block 2^-127; NaN amax -> scale NaN (0xFF) with NaN elements; Inf
  // amax -> clip -> 0xFE, the Inf element saturated; elements vals / scale in float64.
  d.block.scale_rule = ScaleRule::floor;
  d.block.zero_block_scale = ZeroBlockScale::min_scale;
  d.block.nan_block = NanBlock::nan_scale;
  d.block.inf_block = InfBlock::max_scale;
  d.block.nan_scale_elements = NanScaleElements::nan;
  d.block.scale_overflow = ScaleOverflow::clamp;
  return d;
}

// ---------------------------------------------------------------------------------------------
// lut-argmin: the MX-FP4 GEMM golden generator of seed 003 (a PyTorch script): each element is
// the argmin of |clamp(x, -max, max) - table[i]| over the 16-entry value table, the first
// (lowest-index) minimum winning (docs/research/lut-argmin-golden.md section 3). The table is
// ordered by magnitude within each sign, so that is round to nearest with ties toward zero,
// saturating; index 0 (+0.0) beats index 8 (-0.0) on every tie, so a zero result is always +0;
// a NaN gives every distance NaN and PyTorch's argmin keeps the first NaN: index 0, +0.
constexpr Dialect make_lut_argmin() {
  Dialect d;
  d.name = "lut-argmin";
  d.summary = "the MX-FP4 GEMM golden generator (seed 003): clamp, then argmin over the FP4 value table "
              "(nearest, ties toward zero, zeros +0, NaN +0); PyTorch's e8m0 cast for its scales";
  d.sources = "seed 003 (../shared/seeds/003_1cfc0588c37cecb0.txt) lines 28-61 (_build_fp4_lut, "
              "_quantize_to_fp4_lut: clamp L57, distances L58, argmin L59), lines 83-87 and 118 (scale, "
              "float8_e8m0fnu cast); PyTorch aten/src/ATen/native/SharedReduceOps.h LessOrNan (the first "
              "minimum and the first NaN win); docs/research/lut-argmin-golden.md sections 2-4";
  d.nan_sign = NanSign::preserve;
  d.nan_payload.fill(NanPayload::canonical);
  d.nan_to_finite = NanToFinite::positive_zero;  // L58-59: every distance NaN, index 0
  d.nearest_ties = NearestTies::toward_zero;     // L59: the lower index, the smaller magnitude
  d.zero_sign = ZeroSign::positive;              // L59: index 0 (+0.0) before index 8 (-0.0)
  // The scales go through PyTorch's float8_e8m0fnu cast (L118), as under torchao.
  d.e8m0_below = E8m0Below::clamp_min;
  d.e8m0_zero = E8m0Zero::min_scale;
  d.e8m0_negative = E8m0Negative::magnitude;
  d.e8m0_ties = E8m0Ties::up;
  d.e8m0_lowest_binade_rounds_up = true;
  d.support = all_supported();
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::int8})
    unsupported(d.support, f, "the seed-003 generator has only FP4 tables (E2M1 and E1M2)");
  set(d.support, FormatId::e2m1,
      {bits({Rounding::rne}), kFinite, "the generator clamps to +-6 (L57) and takes the nearest table entry (L58-59)"});
  set(d.support, FormatId::e8m0,
      {bits({Rounding::rne}), kNone, "PyTorch's float8_e8m0fnu cast rounds to nearest (ties up) and overflows to NaN",
       Rounding::rne, Saturation::none});
  // Blocks: the generator's scale is floor(f32 log2(max(amax, 1e-12))) - emax, 0 below f32(1e-12),
  // which no ScaleRule expresses; include/softmx/lut_argmin.hpp models the whole generator.
  d.block.unsupported = "lut-argmin's block scale (floor of the f32 log2, 1e-12 threshold) is the seed-003 "
                        "generator's: use softmx gemm-golden --layout lut-argmin (include/softmx/lut_argmin.hpp)";
  return d;
}

const std::array<Dialect, 11> kDialects = {make_ocp(),          make_cuda(),
                                           make_cuda_sm90(),    make_cuda_sm100(),
                                           make_torchao(),      make_ml_dtypes(),
                                           make_microxcaling(), make_transformer_engine(),
                                           make_gfloat(),       make_transformer_engine_2025(),
                                           make_lut_argmin()};

std::string rounding_list(RoundingSet set) {
  std::string s;
  for (int i = 0; i < kRoundingCount; ++i)
    if (set & (1u << i)) {
      if (!s.empty()) s += ", ";
      s += name(static_cast<Rounding>(i));
    }
  return s;
}

}  // namespace

const Dialect& ocp_dialect() { return kDialects[0]; }

std::span<const Dialect> all_dialects() { return kDialects; }

const Dialect* find_dialect(std::string_view n) {
  const std::string k = detail::ascii_lower(n);
  for (const Dialect& d : kDialects)
    if (k == d.name) return &d;
  return nullptr;
}

std::optional<std::string> unsupported_reason(const Dialect& d, FormatId dst, const Context& given) {
  const Context ctx = resolve(d, dst, given);
  const DestinationSupport& s = d.support[static_cast<int>(dst)];
  if ((s.roundings & rounding_bit(ctx.rounding)) && (s.saturations & saturation_bit(ctx.saturation)))
    return std::nullopt;
  const std::string where = "dialect " + std::string(d.name) + " cannot convert to " + std::string(format(dst).name);
  if (s.roundings == 0) return where + " (" + std::string(s.why) + ")";
  if (!(s.roundings & rounding_bit(ctx.rounding)))
    return where + " with rounding " + std::string(name(ctx.rounding)) + " (" + std::string(s.why) +
           "); it supports: " + rounding_list(s.roundings);
  if (!(s.saturations & saturation_bit(ctx.saturation)))
    return where + " with saturation " + std::string(name(ctx.saturation)) + " (" + std::string(s.why) + ")";
  return std::nullopt;
}

std::string_view name(NanSign v) {
  switch (v) {
    case NanSign::preserve: return "preserve";
    case NanSign::positive: return "positive";
    case NanSign::negative: return "negative";
  }
  return "?";
}
std::string_view name(NanPayload v) {
  switch (v) {
    case NanPayload::canonical: return "canonical";
    case NanPayload::preserve: return "preserve";
    case NanPayload::all_ones: return "all_ones";
  }
  return "?";
}
std::string_view name(NanToFinite v) {
  switch (v) {
    case NanToFinite::positive_max: return "positive_max";
    case NanToFinite::signed_max: return "signed_max";
    case NanToFinite::positive_zero: return "positive_zero";
    case NanToFinite::negative_zero: return "negative_zero";
    case NanToFinite::flipped_zero: return "flipped_zero";
    case NanToFinite::signed_value: return "signed_value";
    case NanToFinite::error: return "error";
  }
  return "?";
}
std::string_view name(E8m0Below v) { return v == E8m0Below::clamp_min ? "clamp_min" : "nan"; }
std::string_view name(E8m0Zero v) { return v == E8m0Zero::min_scale ? "min_scale" : "nan"; }
std::string_view name(E8m0Negative v) { return v == E8m0Negative::nan ? "nan" : "magnitude"; }
std::string_view name(E8m0Ties v) { return v == E8m0Ties::even ? "even" : "up"; }
std::string_view name(NearestTies v) { return v == NearestTies::even ? "even" : "toward_zero"; }
std::string_view name(ZeroSign v) { return v == ZeroSign::preserve ? "preserve" : "positive"; }
std::string_view name(ZeroBlockScale v) { return v == ZeroBlockScale::min_scale ? "min_scale" : "unit_scale"; }
std::string_view name(NanBlock v) { return v == NanBlock::nan_scale ? "nan_scale" : "propagate"; }
std::string_view name(InfBlock v) {
  switch (v) {
    case InfBlock::nan_scale: return "nan_scale";
    case InfBlock::max_scale: return "max_scale";
    case InfBlock::ignore: return "ignore";
  }
  return "?";
}
std::string_view name(NanScaleElements v) {
  switch (v) {
    case NanScaleElements::convert: return "convert";
    case NanScaleElements::zero: return "zero";
    case NanScaleElements::nan: return "nan";
  }
  return "?";
}
std::string_view name(ScaleOverflow v) { return v == ScaleOverflow::clamp ? "clamp" : "nan"; }
std::string_view name(ElementScaling v) {
  switch (v) {
    case ElementScaling::exact: return "exact";
    case ElementScaling::f32_reciprocal: return "f32_reciprocal";
    case ElementScaling::te_int_reciprocal: return "te_int_reciprocal";
  }
  return "?";
}
std::string_view name(DequantScaling v) {
  switch (v) {
    case DequantScaling::exact: return "exact";
    case DequantScaling::te_exp2f: return "te_exp2f";
    case DequantScaling::te_bits: return "te_bits";
  }
  return "?";
}

}  // namespace softmx
