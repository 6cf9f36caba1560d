// emulator/dialects.cpp: the table of named dialects.
//
// Each entry is data: policy values (docs/SEMANTICS.md section 5) and, per destination, the
// rounding modes and saturations the modelled implementation offers. docs/DIALECTS.md says
// where every value comes from. The names of the policy values are dialect_names.cpp.
//
// A dialect is one row of kRows (at the end): its name, summary and sources, and the builders
// that make its values. make() starts from base() (dialect.hpp's defaults, which are ocp's
// decisions, and every mode into every format), applies the parent's builder where the dialect
// is a variant of another, then its own, which sets only the fields where its implementation
// differs; conformance/test_dialect_table.cpp pins every resulting field.
//
// Why one long file (over 800 lines): it is the table itself, one constexpr builder per
// dialect with its sources cited beside each value, read side by side when one dialect is
// compared with another; a dialect is one builder here and one row of kRows (adding one:
// docs/ARCHITECTURE.md, "Tables").
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

constexpr void set(std::array<DestinationSupport, kFormatCount>& a, std::initializer_list<FormatId> ids,
                   DestinationSupport s) {
  for (FormatId id : ids) a[static_cast<int>(id)] = s;
}

constexpr void unsupported(std::array<DestinationSupport, kFormatCount>& a, std::initializer_list<FormatId> ids,
                           std::string_view why) {
  for (FormatId id : ids) a[static_cast<int>(id)] = {0, 0, why, Rounding::rne, Saturation::finite};
}

constexpr SaturationSet kFinite = saturation_bit(Saturation::finite);
constexpr SaturationSet kNone = saturation_bit(Saturation::none);
constexpr RoundingSet kRne = rounding_bit(Rounding::rne);

// The base every dialect starts from: dialect.hpp's default policy values (NaN sign preserved,
// canonical NaN payloads, NaN into a format without NaN gives +max, E8M0 clamps below 2^-127,
// 0x00 for zero, NaN for negatives, ties to even; OCP MX 6.3's floor scale, 2^-127 for a zero
// block, a NaN or Inf amax gives the NaN scale with zero elements, a scale above 127 clamps),
// with every mode and saturation into every format (all_supported). A builder below sets only
// the fields where its implementation differs, each next to the source that says so; the
// dialect's name, summary and sources are its row of kRows.
constexpr Dialect base(std::string_view name, std::string_view summary, std::string_view sources) {
  Dialect d;
  d.name = name;
  d.summary = summary;
  d.sources = sources;
  d.support = all_supported();
  return d;
}

// PyTorch's float8_e8m0fnu cast (fp8e8m0fnu_from_fp32_value), which torchao and the seed-003
// generator use for their scales: sign ignored, zero -> 0x00, ties round up on the implicit bit
// (3.0 -> 4.0), f32 subnormals above 2^-127 -> 0x01, overflow and Inf -> 0xFF (saturation none).
constexpr void pytorch_e8m0_cast(Dialect& d) {
  d.e8m0_negative = E8m0Negative::magnitude;
  d.e8m0_ties = E8m0Ties::up;
  d.e8m0_lowest_binade_rounds_up = true;
  set(d.support, {FormatId::e8m0},
      {kRne, kNone, "PyTorch's float8_e8m0fnu cast rounds to nearest (ties up) and overflows to NaN", Rounding::rne,
       Saturation::none});
}

// ---------------------------------------------------------------------------------------------
// ocp: the OCP MX v1.0 and OFP8 v1.0 specification. Every mode and saturation is available;
// the implementation-defined points are decided as documented in docs/DIALECTS.md.
constexpr void ocp_policies(Dialect& d) {
  // OCP MX 6.3 (floor); the open points as microxcaling, the spec authors' reference code,
  // decides them: zero block 2^-127, NaN or Inf amax makes the scale NaN, an exponent above
  // 127 is NaN. Elements under a NaN scale carry no information: ocp stores 0. Runtime formats:
  // the same rules as the named ones, every mode and saturation (the base's).
  d.block = {.scale_overflow = ScaleOverflow::nan};
}

// ---------------------------------------------------------------------------------------------
// cuda: NVIDIA's host/software conversion functions in cuda_fp8.hpp, cuda_fp6.hpp,
// cuda_fp4.hpp (CUDA 13.0), float and double inputs alike; blocks as cuDNN documents them.
constexpr void cuda_policies(Dialect& d) {
  // The float path replaces any NaN by 0x7FFFFFFF before converting, so FP8 from float/half/bf16
  // gives 0x7F; the double path keeps the sign and, for E5M2, the fraction's next bit.
  d.nan_payload.fill(NanPayload::preserve);
  // __float2half_rn and __float2bfloat16_rz return 0x7FFF for every NaN.
  d.nan_payload[static_cast<int>(FormatId::f16)] = NanPayload::all_ones;
  d.nan_payload[static_cast<int>(FormatId::bf16)] = NanPayload::all_ones;
  for (auto& n : d.nan_canonical_ones) n = 23;  // f32 0x7FFFFFFF (f16 widens to it too)
  d.nan_canonical_ones[static_cast<int>(FormatId::f64)] = 0;   // the double path keeps the NaN
  d.nan_canonical_ones[static_cast<int>(FormatId::e8m0)] = 7;  // decodes through bf16 0x7FFF
  // __nv_cvt_double_to_fp6/fp4: "NaN converts to positive MAXNORM" (the base's nan_to_finite).
  // __nv_cvt_bfloat16raw_to_e8m0 takes the exponent field and ignores the sign; zero and tiny
  // values give 0x00. E8M0 ties: unused, only rz and ru exist.
  d.e8m0_negative = E8m0Negative::magnitude;
  set(d.support, {FormatId::e4m3, FormatId::e5m2}, {kRne, kAllSaturations, "__nv_cvt_*_to_fp8 rounds to nearest even only"});
  set(d.support, {FormatId::e3m2, FormatId::e2m3, FormatId::e2m1},
      {bits({Rounding::rne, Rounding::rz}), kAllSaturations,
       "__nv_cvt_*_to_fp6/fp4 accept cudaRoundNearest and cudaRoundZero only"});
  set(d.support, {FormatId::e8m0},
      {bits({Rounding::rz, Rounding::ru}), kAllSaturations,
       "__nv_cvt_*_to_e8m0 accept cudaRoundZero and cudaRoundPosInf only", Rounding::ru, Saturation::finite});
  unsupported(d.support, {FormatId::int8}, "CUDA has no MXINT8 conversion");
  // cuDNN: scale = quantize_round_up(amax / vmax), output = round_to_even(vals / scale): exact
  // RCEIL. Its NaN and Inf handling is undocumented: softmx follows cvt.rp.satfinite.ue8m0
  // (NaN -> 0xFF, Inf -> 0xFE) and the FP8 conversions (NaN elements -> 0x7F).
  d.block = {.scale_rule = ScaleRule::rceil, .inf_block = InfBlock::max_scale,
             .nan_scale_elements = NanScaleElements::nan};
  d.runtime.refused = "NVIDIA's conversion functions and cvt instructions exist only for the named formats "
                      "(e4m3, e5m2, e3m2, e2m3, e2m1, e8m0, f16, bf16, f32, f64)";
}

// ---------------------------------------------------------------------------------------------
// cuda-sm90 and cuda-sm100: what a GPU computes for each conversion, instruction or software path
// as the CUDA 13.0 headers compile it for that target (docs/DIALECTS.md, "cuda-sm90, cuda-sm100").
// Every documented result of the hardware paths equals the software path's, so both are
// variants of cuda (its builder first). The points the documentation leaves open are listed in
// docs/DIALECTS.md as unverified until a capture (tools/cuda/) measures them, and each is one
// policy value of cuda_policies: cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2} on NaN gives the
// positive all-ones NaN (0x7F), as the software path does for float NaN; cvt.rn.f16x2.e4m3x2
// decodes NaN to 0x7FFF, sign dropped, as __nv_cvt_fp8_to_halfraw's host path; the ue8m0
// instructions give 0x00 for zero and ignore the sign, as __nv_cvt_bfloat16raw_to_e8m0's host
// path (nan_canonical_ones, nan_payload, e8m0_zero, e8m0_negative). cuda-sm90 changes nothing
// (its row has no builder of its own); cuda-sm100 adds cvt.rs (stochastic rounding from f32)
// into the FP8, FP6 and FP4 formats.
constexpr void cuda_sm100_policies(Dialect& d) {
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1}) {
    DestinationSupport& s = d.support[static_cast<int>(f)];
    s.roundings |= rounding_bit(Rounding::rs);
    s.why = "CUDA offers rne (and rz for FP6/FP4) through __nv_cvt_*, and rs through cvt.rs.satfinite.*x4.f32 "
            "(sm_100a, sm_103a)";
  }
}

// ---------------------------------------------------------------------------------------------
// torchao: torchao/prototype/mx_formats (to_mx, ScaleCalculationMode) with PyTorch's casts.
constexpr void torchao_policies(Dialect& d) {
  // PyTorch's FP8 casts keep a NaN's sign; E5M2 NaN is 0x7F | sign (the fp8_max branch).
  d.nan_payload[static_cast<int>(FormatId::e5m2)] = NanPayload::all_ones;
  // Float8_e8m0fnu::operator float returns fp32_from_bits(0x7f800001) for 0xFF, a signalling NaN
  // (torch/headeronly/util/Float8_e8m0fnu.h:137-140); torchao decodes E8M0 through it
  // (_e8m0_scale_to_reciprocal_fp32, mx_tensor.py:142-143 on PyTorch 2.14+, and its own
  // 0x7F800001 at :153-157 before). Into f16 and bf16 PyTorch's float casts give the canonical NaN.
  d.nan_payload_paths[0] = {FormatId::e8m0, FormatId::f32, NanPayload::signalling_one};
  d.nan_payload_path_count = 1;
  // _f32_to_fpx_unpacked has no NaN branch: an x86 quiet NaN (0x7FC0000x) goes through the
  // normal-number bit arithmetic and comes out as 1.5 (E2M1 0x3, E2M3 0x0C, E3M2 0x0E), with
  // its sign. (On CUDA, 0x7FFFFFFF gives 2.0 instead: softmx models the CPU.)
  d.nan_to_finite = NanToFinite::signed_value;
  d.nan_finite_value = 1.5;
  // PyTorch fp8e8m0fnu_from_fp32_value for E8M0.
  pytorch_e8m0_cast(d);
  // E4M3: PyTorch's fp8e4m3fn_from_fp32_value saturates finite overflow and Inf to 0x7E | sign since
  // PR 178817 (Float8_e4m3fn.h:181-188, 209-212), and to_mx clamps to +-448 before the cast on
  // older PyTorch (mx_tensor.py:361-373): no e4m3 conversion of this torchao is non-saturating.
  set(d.support, {FormatId::e4m3},
      {kRne, kFinite,
       "PyTorch's float8_e4m3fn cast rounds to nearest even and, since PR 178817 (2026-04-17), saturates; "
       "the earlier non-saturating cast is --dialect torchao-pre-178817 --sat none"});
  // E5M2: the cast rounds to nearest even and overflows to Inf (none); to_mx clamps first (finite).
  set(d.support, {FormatId::e5m2}, {kRne, kAllSaturations, "PyTorch's float8 casts round to nearest even"});
  set(d.support, {FormatId::e3m2, FormatId::e2m3, FormatId::e2m1},
      {kRne, kFinite, "_f32_to_fpx_unpacked rounds to nearest even and saturates"});
  unsupported(d.support, {FormatId::int8}, "torchao has no MXINT8 (\"TODO(future PR): add support for MX int8\")");
  // to_mx: amax propagates NaN; a non-finite amax gives 0xFF and every element NaN (the exact
  // reciprocal of 0xFF is NaN); the zero block clamps to 0x00; elements are V * (1/X) in f32
  // with an exact reciprocal; RCEIL divides by max_pos as max_abs * (1.0 / max_pos) in f32;
  // EVEN rounds the f32 amax bits, so a carry past 2^128 gives Inf and 0xFF.
  d.block = {.nan_scale_elements = NanScaleElements::nan, .scale_overflow = ScaleOverflow::nan,
             .rceil_f32_reciprocal = true, .even_f32_overflow_nan = true,
             .element_scaling = ElementScaling::f32_reciprocal};
  // Runtime formats: _f32_to_fpx_unpacked(x, ebits, mbits) takes any ebits/mbits, without Inf
  // or NaN (the FP6/FP4 path); PyTorch's float8 dtypes are a closed set.
  d.runtime.specials = specials_bit(Specials::none);
  d.runtime.support = {kRne, kFinite,
                       "torchao converts runtime formats only through _f32_to_fpx_unpacked(x, ebits, mbits): no Inf or "
                       "NaN (specials=none), round to nearest even, saturating"};
}

// torchao-pre-178817: torchao with a PyTorch from before PR 178817 (main before 2026-04-17; torchao
// 36027d82 treats PyTorch < 2.13 so). fp8e4m3fn_from_fp32_value gave 0x7F | sign (NaN) for
// |x| >= 480, Inf and NaN, and the carry of (464, 480) into 0x7F (Float8_e4m3fn.h at 0316fdce):
// saturation none. to_mx clamped to +-448 first (needs_eager_saturation), so its MX bytes, and
// this dialect's default (finite), are torchao's; only the plain cast differs.
constexpr void torchao_pre_178817_policies(Dialect& d) {
  set(d.support, {FormatId::e4m3},
      {kRne, kAllSaturations,
       "PyTorch's float8 casts round to nearest even; before PR 178817 the e4m3 cast does not saturate (none) "
       "and to_mx clamps before it (finite)"});
}

// ---------------------------------------------------------------------------------------------
// ml_dtypes: scalar conversions only (float8_e4m3fn, e5m2, float6_e3m2fn, e2m3fn, float4_e2m1fn,
// float8_e8m0fnu), with its default ConvertFrom<kSaturate = false, kTruncate = false>; --sat finite
// is ConvertFrom<kSaturate = true> (C++ only). Every pair converts through the generic ConvertImpl,
// as NumPy's casts do (through float); ml_dtypes-cpp adds the direct half <-> e5m2 paths.
constexpr void ml_dtypes_policies(Dialect& d) {
  // NaN -> +-quiet_NaN() by the input's sign (the base's nan_sign). FP4/FP6 quiet_NaN() is the
  // -0 code, and -quiet_NaN() flips its sign: +NaN -> -0, -NaN -> +0.
  d.nan_to_finite = NanToFinite::flipped_zero;
  // E8M0: the implicit bit is the round-off LSB, so every tie rounds up (3.0 -> 4.0); zero and
  // negatives have no representation and become NaN (kSaturate = false); f32 subnormals above
  // 2^-127 round up to 2^-126. ConvertImpl::run (float8.h:1380-1401): zero gives kSaturate ?
  // denorm_min() : quiet_NaN(), a negative kSaturate ? lowest() : quiet_NaN(); both 0x00
  // (:1036-1038, :1058-1061).
  d.e8m0_zero = E8m0Zero::min_if_satfinite;
  d.e8m0_negative = E8m0Negative::min_if_satfinite;
  d.e8m0_ties = E8m0Ties::up;
  d.e8m0_lowest_binade_rounds_up = true;
  // :1370-1374: an Inf gives +-infinity() whatever kSaturate is (e4m3fn: 0x7F, the NaN; e8m0: 0xFF);
  // kSaturate clamps only the finite overflow of :1503-1512.
  d.satfinite_inf = SatfiniteInf::as_none;
  const DestinationSupport cast = {kRne, kAllSaturations,
                                   "ml_dtypes' casts round to nearest even (kTruncate = false); by default "
                                   "they do not saturate (kSaturate = false)",
                                   Rounding::rne, Saturation::none};
  set(d.support, {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::e8m0},
      cast);
  unsupported(d.support, {FormatId::int8}, "ml_dtypes has no MXINT8 type");
  d.block.unsupported = "ml_dtypes has scalar types only, no block quantization";
  // Runtime formats: ConvertImpl is one template over every float8 type's traits (bias,
  // specials, signedness), with the same rounding and saturation as the named types.
  d.runtime.support = cast;
}

// ml_dtypes-cpp: ml_dtypes' C++ constructors and conversion operators. float8_e5m2(Eigen::half) and
// static_cast<Eigen::half>(float8_e5m2) take the direct specialisations of float8.h:1528-1569, which
// keep a NaN's payload; every other pair is ConvertImpl, as ml_dtypes.
constexpr void ml_dtypes_cpp_policies(Dialect& d) {
  // f16 -> e5m2: sign, exponent and the fraction's top two bits, quiet bit forced (preserve);
  // e5m2 -> f16: the code shifted left 8, a signalling NaN stays signalling (exact).
  d.nan_payload_paths[0] = {FormatId::f16, FormatId::e5m2, NanPayload::preserve};
  d.nan_payload_paths[1] = {FormatId::e5m2, FormatId::f16, NanPayload::exact};
  d.nan_payload_path_count = 2;
}

// ---------------------------------------------------------------------------------------------
// microxcaling: Microsoft's MX reference emulation, its custom_cuda path (exact exponent
// extraction; the default Python path differs, see docs/DIALECTS.md).
constexpr void microxcaling_policies(Dialect& d) {
  // nan_to_finite: undefined there (its output is float), the base's +max. MXINT8 clamps to
  // +-127/64: -2 is never produced (the base's int8_minus2 false).
  // Element rounding: "nearest" (the default) = floor(|x| + 0.5) = ties away; "even"; "floor" =
  // toward zero. Saturation: always clamps to +-max_norm.
  const RoundingSet modes = bits({Rounding::rna, Rounding::rne, Rounding::rz});
  constexpr std::string_view why = "microxcaling rounds \"nearest\" (ties away, the default), \"even\" or "
                                   "\"floor\" (toward zero), and always saturates";
  set(d.support, {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8},
      {modes, kFinite, why, Rounding::rna, Saturation::finite});
  unsupported(d.support, {FormatId::e8m0}, "microxcaling takes scales from exponent bits; it has no float-to-E8M0 cast");
  // Scale: floor (exponent bits), below -127 clamps, above 127 is NaN; a NaN or Inf amax makes
  // the shared exponent NaN and every element NaN; the zero block gets 0x00.
  d.block = {.nan_scale_elements = NanScaleElements::nan, .scale_overflow = ScaleOverflow::nan,
             .element_rounding = Rounding::rna};
  // Runtime formats: _quantize_elemwise_core(A, bits, exp_bits, max_norm) takes any element
  // shape (its int4, int2 and FP6/FP4 use it), without Inf or NaN codes.
  d.runtime.specials = specials_bit(Specials::none);
  d.runtime.support = {modes, kFinite,
                       "microxcaling's _quantize_elemwise_core serves any exp_bits/mbits without Inf or NaN "
                       "(specials=none); it rounds \"nearest\" (ties away), \"even\" or \"floor\" and always "
                       "saturates",
                       Rounding::rna, Saturation::finite};
}

// ---------------------------------------------------------------------------------------------
// transformer-engine: NVIDIA TransformerEngine's MXFP8 quantization kernels at d0067d0 (2026-08-22),
// and NVFP4 in softmx/nvfp4.hpp; the recipes are in softmx/recipe.hpp.
constexpr void transformer_engine_policies(Dialect& d) {
  // cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 on the GPU: NaN -> 0x7F (the sign the hardware gives
  // is not determined; softmx uses +).
  d.nan_sign = NanSign::positive;
  d.nan_payload.fill(NanPayload::all_ones);
  // float_to_e8m0: NaN -> 0xFF, Inf -> 0xFE, 0 -> 0x00, sign dropped, rounding up.
  d.e8m0_negative = E8m0Negative::magnitude;
  set(d.support, {FormatId::e4m3, FormatId::e5m2, FormatId::e2m1},
      {kRne, kFinite, "TransformerEngine converts with cvt.rn.satfinite"});
  set(d.support, {FormatId::e8m0},
      {bits({Rounding::ru}), kFinite, "float_to_e8m0 rounds up (cvt.rp.satfinite.ue8m0x2.f32)", Rounding::ru,
       Saturation::finite});
  unsupported(d.support, {FormatId::e3m2, FormatId::e2m3}, "TransformerEngine has no FP6 quantization");
  unsupported(d.support, {FormatId::int8}, "TransformerEngine has no MXINT8 quantization");
  // MXFP8: biased = float_to_e8m0(amax * max_norm_rcp) (an f32 multiply, then rounding up);
  // amax = fmaxf(.., fabsf(x)) from 0 ignores NaN; Inf -> 0xFE. The element multiplier
  // exp2f_rcp<float>(biased) (ptx.cuh:308-317, since PR 2647) is the exact f32 2^(127 - S) for
  // every S <= 0xFE (0x00 -> 2^127, 0xFE -> the subnormal 2^-127), so x * m rounded to f32 is
  // the f32_reciprocal policy; dequantization multiplies by ptx::exp2f(biased) (ptx.cuh:335-341,
  // since PR 3262): 2^-127 for 0x00, NaN for 0xFF.
  d.block = {.scale_rule = ScaleRule::rceil, .nan_block = NanBlock::propagate, .inf_block = InfBlock::max_scale,
             .nan_scale_elements = NanScaleElements::nan, .rceil_f32_reciprocal = true,
             .element_scaling = ElementScaling::f32_reciprocal, .dequant_scaling = DequantScaling::te_exp2f};
  d.runtime.refused = "TransformerEngine quantizes only to e4m3, e5m2 and e2m1 (NVFP4) with e8m0 or e4m3 scales";
}

// transformer-engine-2025: the same kernels before 2026-02-05 (TE PR 2647, commit 71971e33d, changed
// exp2f_rcp) and 2026-08-05 (PR 3262, commit 4ff5fdfed, changed exp2f), as shipped in 2025 releases.
constexpr void transformer_engine_2025_policies(Dialect& d) {
  d.block.element_scaling = ElementScaling::te_int_reciprocal;
  d.block.dequant_scaling = DequantScaling::te_bits;
}

// ---------------------------------------------------------------------------------------------
// gfloat: Graphcore's generic float library (quantize_block / encode_block).
constexpr void gfloat_policies(Dialect& d) {
  // encode_float(NaN) is code_of_nan: the all-ones code (E4M3 and E5M2 0xFF, sign bit set).
  d.nan_sign = NanSign::negative;
  d.nan_payload.fill(NanPayload::all_ones);
  // FP6, FP4, INT8: ValueError("No NaN in format").
  d.nan_to_finite = NanToFinite::error;
  // E8M0: round_float with precision 1 ties to the even code; no zero (0.0 -> code_of_nan).
  d.e8m0_zero = E8m0Zero::nan;
  d.int8_minus2 = true;  // format_info_ocp_int8: min = -2
  const DestinationSupport modes = {bits({Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd}),
                                    kAllSaturations,
                                    "gfloat's deterministic RoundModes: TiesToEven, TiesToAway, TowardZero, "
                                    "TowardPositive, TowardNegative (its stochastic modes use other bit alignments)"};
  set(d.support,
      {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8, FormatId::e8m0},
      modes);
  // compute_scale_amax: floor(log2(amax)) - emax clipped to [-127, 127] (float64 log2: exact for
  // f32-valued data); zero block 2^-127; NaN amax -> scale NaN (0xFF) with NaN elements; Inf
  // amax -> clip -> 0xFE, the Inf element saturated; elements vals / scale in float64.
  d.block = {.inf_block = InfBlock::max_scale, .nan_scale_elements = NanScaleElements::nan};
  // Runtime formats: FormatInfo describes any format (bits, precision, bias, signedness, Infs,
  // NaNs, negative zero: format_info_p3109 is FNUZ-like), encoded as the named ones.
  d.runtime.support = modes;
  d.runtime.nan_payload = NanPayload::all_ones;
}

// ---------------------------------------------------------------------------------------------
// lut-argmin: the MX-FP4 GEMM golden generator of seed 003 (a PyTorch script): each element is
// the argmin of |clamp(x, -max, max) - table[i]| over the 16-entry value table, the first
// (lowest-index) minimum winning (docs/research/lut-argmin-golden.md section 3). The table is
// ordered by magnitude within each sign, so that is round to nearest with ties toward zero,
// saturating; index 0 (+0.0) beats index 8 (-0.0) on every tie, so a zero result is always +0;
// a NaN gives every distance NaN and PyTorch's argmin keeps the first NaN: index 0, +0.
constexpr void lut_argmin_policies(Dialect& d) {
  d.nan_to_finite = NanToFinite::positive_zero;  // L58-59: every distance NaN, index 0
  d.nearest_ties = NearestTies::toward_zero;     // L59: the lower index, the smaller magnitude
  d.zero_sign = ZeroSign::positive;              // L59: index 0 (+0.0) before index 8 (-0.0)
  // The scales go through PyTorch's float8_e8m0fnu cast (L118), as under torchao.
  pytorch_e8m0_cast(d);
  unsupported(d.support, {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::int8},
              "the seed-003 generator has only FP4 tables (E2M1 and E1M2)");
  set(d.support, {FormatId::e2m1},
      {kRne, kFinite, "the generator clamps to +-6 (L57) and takes the nearest table entry (L58-59)"});
  // E1M2, the script's other table, is no runtime conversion here: include/softmx/lut_argmin.hpp
  // holds its table, with the argmin's tie and zero rules.
  d.runtime.refused = "the seed-003 generator converts only through its E2M1 and E1M2 tables; E1M2 is served by "
                      "softmx gemm-golden --layout lut-argmin (include/softmx/lut_argmin.hpp)";
  // Blocks: the generator's scale is floor(f32 log2(max(amax, 1e-12))) - emax, 0 below f32(1e-12),
  // which no ScaleRule expresses; include/softmx/lut_argmin.hpp models the whole generator.
  d.block.unsupported = "lut-argmin's block scale (floor of the f32 log2, 1e-12 threshold) is the seed-003 "
                        "generator's: use softmx gemm-golden --layout lut-argmin (include/softmx/lut_argmin.hpp)";
}

// ---------------------------------------------------------------------------------------------
// amd-gfx942: what an MI300 (gfx940/941/942) computes through its FP8 conversion instructions
// v_cvt_pk_{fp8,bf8}_f32 (RNE) and v_cvt_sr_{fp8,bf8}_f32 (stochastic), which on gfx94x read and
// write only the FNUZ encodings (HIP amd_hip_fp8.h:41-44, 145-160; MLIR ArithToAMDGPU match()).
// Inferred from AMD's code and LLVM's, not measured: docs/research/amd-fnuz.md sections 2 and 4;
// docs/DIALECTS.md "amd-gfx942" marks each point.
constexpr std::string_view kGfx942Formats[] = {"e4m3fnuz", "e5m2fnuz"};

constexpr void amd_gfx942_policies(Dialect& d) {
  // One NaN, 0x80, for every NaN and NaN-making input (nan_sign does not apply to fnuz). A NaN
  // decoded into f32 (v_cvt_f32_fp8 of 0x80): its bits are undocumented; softmx gives the
  // positive canonical NaN 0x7FC00000 (unverified, research 2.2). nan_to_finite: unused, every
  // destination it has holds NaN (the base's +max).
  d.nan_sign = NanSign::positive;
  unsupported(d.support, {FormatId::e4m3, FormatId::e5m2},
              "gfx942 converts FP8 only in the FNUZ encodings (e4m3fnuz, e5m2fnuz); its instructions have no OCP mode");
  unsupported(d.support, {FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8, FormatId::e8m0},
              "gfx942 has no conversion instruction for FP6, FP4, MXINT8 or E8M0");
  // Blocks: gfx942 has no MX instruction; AMD's MX software (aiter) is not this dialect.
  d.block.unsupported = "gfx942 has no MX block instruction (AMD's MX software, aiter, rounds its scales up: "
                        "docs/DIALECTS.md, amd-gfx942)";
  // Runtime formats: e4m3fnuz and e5m2fnuz (kGfx942Formats, checked in unsupported_reason).
  // v_cvt_pk_* rounds to nearest even; v_cvt_sr_* adds random bits below the kept mantissa
  // (which seed bits: research 2.4, unverified). The instruction does not saturate: overflow
  // gives 0x80 after rounding (248 and above for e4m3fnuz; research 2.4, unverified against
  // rocBLAS's model). HIP's __HIP_SATFINITE and CK's clip clamp finite inputs in software first
  // (fmed3(x, max, -max), HIP 519-533): saturation finite, offered, not the default. The clamp
  // passes Inf (HIP 521, "propagate NAN/INF, no clipping"), which the instruction then turns
  // into 0x80 with invalid: satfinite_inf as_none (SEMANTICS 5.6), as under saturation none.
  d.satfinite_inf = SatfiniteInf::as_none;
  d.runtime.specials = specials_bit(Specials::fnuz);
  d.runtime.support = {bits({Rounding::rne, Rounding::rs}), kNone | kFinite,
                       "gfx942's FP8 instructions v_cvt_pk_{fp8,bf8}_f32 (rne) and v_cvt_sr_{fp8,bf8}_f32 (rs) "
                       "produce only e4m3fnuz and e5m2fnuz; saturation finite is HIP's __HIP_SATFINITE clamp",
                       Rounding::rne, Saturation::none};
}

// ---------------------------------------------------------------------------------------------
// torchmx: rain-neuromorphics/torchmx at 7648b97 (2025-05-30) with the torchao it pins (v0.6.1)
// and PyTorch's casts; its default ("simulated") quantization path. docs/research/torchmx.md
// cites every line; its layout (bf16 only, the last dimension, padding, FP4 nibble order, the
// bf16 matmul) is softmx/torchmx.hpp.
constexpr void torchmx_policies(Dialect& d) {
  // The element casts are PyTorch's float8_e4m3fn cast and torchao 0.6.1's _f32_to_floatx_unpacked
  // (the torchao dialect's); quantize_mx never hands them a NaN (a NaN scale's quotients become
  // +0.0 first, mx_quantization_utils.py:473). MXINT8: clamp to +-127 before torch.round
  // (mx_quantization_utils.py:469-471, 496), so no -2 (the base's int8_minus2).
  d.nan_to_finite = NanToFinite::signed_value;
  d.nan_finite_value = 1.5;
  set(d.support, {FormatId::e4m3, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8},
      {kRne, kFinite,
       "torchmx clamps V / X to +-max before every cast (mx_quantization_utils.py:469-471) "
       "and rounds to nearest even (PyTorch's float8 cast, torchao 0.6.1's "
       "_f32_to_floatx_unpacked, torch.round)"});
  unsupported(d.support, {FormatId::e5m2},
              "torchmx has no e5m2: SUPPORTED_ELEM_DTYPES lists float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1 "
              "and int8 (dtypes.py:143-149)");
  unsupported(d.support, {FormatId::e8m0},
              "torchmx takes its scales from bf16 exponent fields (mx_quantization_utils.py:527-549); it has no "
              "float-to-E8M0 cast");
  d.runtime.refused = "torchmx's element dtypes are a closed set: SUPPORTED_ELEM_DTYPES lists float8_e4m3, "
                      "float6_e3m2, float6_e2m3, float4_e2m1 and int8 (dtypes.py:143-149)";
  // get_e8m0_shared_exponent: max exponent field - emax, clamped to [0, 254] (the top is
  // unreachable from bf16), 0xFF when a field is 255 (Inf or NaN); the NaN scale's elements are
  // +0. int8 has max_pow2 = 6: its elements are integers.
  d.block = {.int8_integer_elements = true,
             .sources = format_bit(FormatId::bf16),
             .sources_why = "torchmx's quantize_mx asserts data_hp.dtype == torch.bfloat16 (mx_tensor.py:59-61)"};
}

// torchmx-hw-exact: the same with MX_HARDWARE_EXACT_QUANTIZATION=True (env_variables.py:16), whose
// bit-level path (quantize_mx_with_e8m0_shared_exponent_hw_exact) equals the default one on every
// finite block and writes subnormal codes into NaN-scale blocks (docs/research/torchmx.md section 4).
constexpr void torchmx_hw_exact_policies(Dialect& d) {
  d.block.nan_scale_elements = NanScaleElements::hw_exact_subnormals;
}

// ---------------------------------------------------------------------------------------------
// pychop: inEXASCALE/pychop's mx_quantize, the MX backend of 682f803 onwards (v0.5.9, v0.6.0,
// HEAD 242e079); the legacy backend of v0.5.6-0.5.8 is pychop_mx_quantize's version option
// (softmx/pychop.hpp). docs/research/pychop.md cites every line.
constexpr void pychop_policies(Dialect& d) {
  // _quantize_float_element returns np.nan, a positive quiet NaN, for every NaN; FP6, FP4 and
  // MXINT8 have no NaN code: softmx stores +0 with invalid (pychop returns the NaN value,
  // pychop_mx_quantize's values keep it: docs/DIALECTS.md, "pychop").
  d.nan_sign = NanSign::positive;
  d.nan_to_finite = NanToFinite::positive_zero;
  d.int8_minus2 = true;  // np.clip(q, -2^(bits-1), 2^(bits-1) - 1): -128/64 = -2 (np/mx_formats.py:62-67)
  set(d.support, {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8},
      {kRne, kFinite,
       "pychop rounds with np.rint (half to even) and sends every value >= max to max "
       "before rounding (np/mx_formats.py:62-92)"});
  unsupported(d.support, {FormatId::e8m0}, "pychop keeps each scale as the float 2^s; it has no float-to-E8M0 cast");
  // Runtime formats: a custom MXSpec (exp_bits, sig_bits) is a format without Inf or NaN (its
  // all-ones exponent is a binade: research/pychop.md, "Custom specs have no special values"),
  // rounded by the same np.rint after the same clamp to max; FNUZ and IEEE-style runtime
  // formats are nothing pychop computes.
  d.runtime.specials = specials_bit(Specials::none);
  d.runtime.support = {kRne, kFinite,
                       "pychop's custom MXSpec formats have no Inf or NaN (specials=none); it rounds with np.rint "
                       "(half to even) after clamping to max (np/mx_formats.py:62-92)"};
  // MXBlock_._quantize (np/mx_formats.py:178-211): all-zero block 2^-127; amax = np.nanmax;
  // NaN among zeros only: the zero block; an infinite amax: 2^127; else np.floor(np.log2(amax))
  // - emax clipped to [-127, 127]; elements: value == 0 and rounded == 0 give +0.0.
  d.block = {.scale_rule = ScaleRule::floor_log2_rn, .nan_block = NanBlock::nanmax,
             .inf_block = InfBlock::max_scale, .nan_scale_elements = NanScaleElements::nan,
             .zero_sign = ZeroSign::positive,
             .sources = format_bit(FormatId::f32) | format_bit(FormatId::f64),
             .sources_why = "pychop computes in NumPy: a torch bfloat16 tensor cannot reach it (.numpy() raises), and "
                            "float16 input computes 2^s in float16, which under- and overflows (not modelled)"};
}

// ---------------------------------------------------------------------------------------------
// fpnew: the FP-to-FP casts of FPnew (openhwgroup/cvfpu, fpnew_cast_multi.sv), the FPU of CVA6 and
// the PULP cores, with the fixes of issue 138 (PR 140: Inf casts) and issue 165 (PR 168: tininess
// after rounding, as RISC-V mandates). docs/DIALECTS.md, "fpnew", cites every line; "cast" below
// is src/fpnew_cast_multi.sv at develop 0ad2cd7 (2024-10-23), "pkg" src/fpnew_pkg.sv there, "pkg8"
// src/fpnew_pkg.sv at e34456c (PR 131, FP8ALT).
constexpr std::string_view kFpnewFormats[] = {"e4m3:specials=ieee"};  // FP8ALT (pkg8:53-59, bias 7)

constexpr void fpnew_policies(Dialect& d) {
  // Every NaN input gives {1'b0, QNAN_EXPONENT, QNAN_MANTISSA}: positive, quiet, the fraction's
  // MSB only, whatever the input's sign and payload (cast 642-650); invalid only for a signalling
  // input (cast 667). That is nan_sign positive with the canonical payload in every format and
  // runtime destination (the base's; an fn format's positive NaN is its one positive NaN code;
  // fnuz has one NaN).
  d.nan_sign = NanSign::positive;
  // Overflow: the largest normal with the round and sticky bits set (cast 467-470), which
  // fpnew_rounding.sv (47-59) turns into Inf under RNE and RMM, Inf or max by sign under RDN and RUP,
  // max under RTZ and ROD (max's code is odd); OF and NX (cast 728-731). An Inf input stays Inf
  // with no flag (cast 462-465, PR 140). That is saturation none (SEMANTICS 4, 5.6), the only one
  // FPnew has; finite stays available into f64, f32, f16 and bf16 as under every dialect.
  const RoundingSet modes =
      bits({Rounding::rne, Rounding::rz, Rounding::rd, Rounding::ru, Rounding::rna, Rounding::ro});
  set(d.support, {FormatId::f64, FormatId::f32, FormatId::f16, FormatId::bf16},
      {modes, kAllSaturations, "FPnew's roundmode_e: RNE, RTZ, RDN, RUP, RMM and ROD (fpnew_pkg.sv 140-148)",
       Rounding::rne, Saturation::none});
  set(d.support, {FormatId::e5m2},
      {modes, kNone,
       "FPnew's FP8 (5, 2) rounds by roundmode_e (RNE, RTZ, RDN, RUP, RMM, ROD) and overflows as IEEE 754 7.4 "
       "(fpnew_cast_multi.sv 467-470): it has no saturating cast",
       Rounding::rne, Saturation::none});
  unsupported(d.support,
              {FormatId::e4m3, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8, FormatId::e8m0},
              "FPnew's formats are FP64, FP32, FP16, FP16ALT (bf16), FP8 (e5m2) and FP8ALT (e4m3:specials=ieee, "
              "IEEE-like, max 240; not OCP's e4m3): fpnew_pkg.sv FP_ENCODINGS");
  // FP8ALT: the exponent's all-ones field is Inf and NaN as in every FPnew format
  // (fpnew_classifier.sv 56-61), bias 2^(e-1) - 1 = 7 (pkg 347-348): the runtime spec
  // e4m3:specials=ieee (kFpnewFormats), as source and destination.
  d.runtime.specials = specials_bit(Specials::ieee);
  d.runtime.support = {modes, kNone,
                       "FPnew's only runtime-described format is FP8ALT, e4m3:specials=ieee (PR 131: fpnew_pkg.sv "
                       "53-59; IEEE-like, bias 7), rounded by roundmode_e and overflowing as IEEE 754 7.4",
                       Rounding::rne, Saturation::none};
  d.block.unsupported = "FPnew has no MX block instruction (its casts convert one element at a time)";
}

// ---------------------------------------------------------------------------------------------
// p3109: IEEE P3109 interim report v4.0 (2026-06-26; P3109/Public 26df0d0), section 4.7's
// projection: every rounding direction of 4.2 (StochasticA/B/C are rs with Context::stochastic),
// SatFinite = finite, SatPropagate = propagate, SatNone = none, with 4.7.5's rules as policies.
// docs/research/p3109.md and docs/FORMATS.md section 5 give the mapping.
constexpr void p3109_policies(Dialect& d) {
  // The base's: nan_sign preserve (one NaN per P3109 format: no sign to choose), canonical
  // payloads (4.8.2: the quiet NaN with zero payload recommended), nan_to_finite +max,
  // satfinite_inf max_finite (SatFinite rules 23, 24).
  d.e8m0_negative = E8m0Negative::saturate_zero;  // 4.7.5: Mlo = 0 for unsigned formats
  d.overflow_no_inf = OverflowNoInf::max_finite;   // 4.7.5 SatNone rules 36, 39, 45, 47
  d.ro_overflow = RoOverflow::odd_code;             // 4.7.5 SatNone rules 40, 43, 46
  constexpr SaturationSet kP3109Sats =
      saturation_bit(Saturation::finite) | saturation_bit(Saturation::none) | saturation_bit(Saturation::propagate);
  // The draft gives no default projection; softmx's: NearestTiesToEven and SatNone (IEEE 754's
  // overflow) everywhere, SatFinite into the MX formats as under ocp.
  for (int i = 0; i < kFormatCount; ++i) d.support[i].saturations = kP3109Sats;
  d.runtime.support = {kAllRoundings, kP3109Sats, "", Rounding::rne, Saturation::none};
  d.block.scale_overflow = ScaleOverflow::nan;
}

// The table: one row per dialect, ocp first (ocp_dialect). A row is the dialect's name, summary
// and sources, the builder of the dialect it is a variant of (nullptr: none), and its own builder
// (nullptr: none, every value its parent's). make() applies them in that order to base().
struct Row {
  std::string_view name, summary, sources;
  void (*parent)(Dialect&);
  void (*policies)(Dialect&);
};

constexpr Row kRows[] = {
    {"ocp",
     "OCP MX v1.0 / OFP8 v1.0 as written; implementation-defined points decided and documented",
     "OCP Microscaling Formats (MX) v1.0 sections 5-6; OCP 8-bit Floating Point (OFP8) v1.0 "
     "section 5 and table 3; IEEE 754-2019 sections 4.3, 6.2, 7.4 for what they leave open",
     nullptr, ocp_policies},
    {"cuda",
     "what NVIDIA's cuda_fp8.hpp / cuda_fp6.hpp / cuda_fp4.hpp conversion functions compute (CUDA 13.0)",
     "CUDA 13.0 headers: __nv_cvt_{float,double,halfraw,bfloat16raw}_to_{fp8,fp6,fp4}, "
     "__nv_cvt_{float,double,bfloat16raw}_to_e8m0, __nv_cvt_fp8_to_halfraw, __nv_cvt_e8m0_to_bf16raw "
     "and the __nv_fp8_e4m3/e5m2/e8m0 operators; blocks: cuDNN BLOCK_SCALE_QUANTIZE "
     "(scale = round-up(amax / max), elements round-to-even)",
     nullptr, cuda_policies},
    {"cuda-sm90",
     "what an H100/H200 (sm_90) computes: FP8 instructions for f32/f16 -> e4m3/e5m2 rn satfinite and the "
     "e4m3/e5m2 -> f16 decode, NVIDIA's software path (the cuda dialect) for everything else",
     "PTX ISA 9.x cvt (rn.satfinite e4m3x2/e5m2x2 from f32 and f16x2; rn.f16x2 from e4m3x2/e5m2x2, sm_89+); "
     "CUDA 13.0 cuda_fp8.hpp/cuda_fp6.hpp/cuda_fp4.hpp compiled for sm_90a; captures: tools/cuda/",
     cuda_policies, nullptr},
    {"cuda-sm100",
     "what a Blackwell GPU (sm_100a/103a) computes: the FP8, FP6, FP4 and UE8M0 cvt instructions, cvt.rs "
     "stochastic rounding from f32, NVIDIA's software path for the rest",
     "PTX ISA 9.x cvt (rn.satfinite e2m3x2/e3m2x2/e2m1x2.f32; rz/rp[.satfinite].ue8m0x2.{f32,bf16x2}; "
     "rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32); CUDA 13.0 headers compiled for sm_100a "
     "(__CUDA_ARCH_FAMILY_SPECIFIC__ paths); captures: tools/cuda/",
     cuda_policies, cuda_sm100_policies},
    {"torchao",
     "torchao's MX formats (to_mx: FLOOR default, CEIL, EVEN, RCEIL) with PyTorch's float8 and e8m0 casts, "
     "PyTorch after PR 178817 (2026-04-17: the e4m3 cast saturates)",
     "pytorch/ao 36027d82 torchao/prototype/mx_formats/mx_tensor.py (to_mx, _to_mx_rceil, "
     "_e8m0_scale_to_reciprocal_fp32), constants.py, torchao/prototype/custom_fp_utils.py "
     "(_f32_to_fpx_unpacked); PyTorch c10 Float8_e4m3fn/e5m2 and headeronly Float8_e8m0fnu casts, "
     "PR 178817 (9deaf8d); docs/research/block-dialects.md sections 2 and 7, "
     "research/ml-dtypes-pytorch-casts.md sections 3 and 4",
     nullptr, torchao_policies},
    {"ml_dtypes",
     "ml_dtypes' scalar casts through float, as NumPy's (round to nearest even; non-saturating, or "
     "ConvertFrom<kSaturate = true> with --sat finite); no block quantization",
     "jax-ml/ml_dtypes b793a6e ml_dtypes/include/float8.h (ConvertImpl :1340-1518, "
     "RoundBitsToNearestEven), include/mxfloat.h, _src/floats.cc (NPyCast); issues 298, 400; PR 398 "
     "(E8M0 ties); docs/research/block-dialects.md section 3, research/ml-dtypes-pytorch-casts.md section 1",
     nullptr, ml_dtypes_policies},
    {"microxcaling",
     "microsoft/microxcaling (the MX spec authors' emulation library), custom_cuda path: "
     "floor scale, ties-away elements",
     "microsoft/microxcaling mx/mx_ops.py (_shared_exponents, _quantize_mx), mx/elemwise_ops.py "
     "(_quantize_elemwise_core, _round_mantissa), mx/formats.py, mx/cpp/shared_exp.cuh, quantize.cuh; "
     "docs/research/block-dialects.md section 1",
     nullptr, microxcaling_policies},
    {"transformer-engine",
     "NVIDIA TransformerEngine MXFP8 (d0067d0, 2026-08): RCEIL on an f32 quotient, NaN-ignoring amax, "
     "cvt.rn.satfinite elements, exact multipliers 2^(127-S) (PR 2647), ptx::exp2f dequantization (PR 3262)",
     "NVIDIA/TransformerEngine d0067d0: transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh, "
     "dequantize_mxfp8.cuh, common/util/ptx.cuh:308-341 (exp2f_rcp, exp2f), ptx_arch_spec.cuh:72-104 "
     "(float_to_e8m0), cast/nvfp4/*; PRs 2647 (71971e33d) and 3262 (4ff5fdfed); "
     "docs/research/transformer-engine-recipes.md section 3",
     nullptr, transformer_engine_policies},
    {"gfloat",
     "graphcore-research/gfloat: floor scale in float64, NaN as the all-ones code, MXINT8 with -2",
     "graphcore-research/gfloat src/gfloat/block.py (compute_scale_amax, quantize_block, encode_block), "
     "round.py (round_float), encode.py, formats.py; docs/research/block-dialects.md section 5",
     nullptr, gfloat_policies},
    {"transformer-engine-2025",
     "NVIDIA TransformerEngine MXFP8 before PR 2647 (2026-02-05): exp2f_rcp 0x00 -> 1.0 and "
     "0xFE -> +0.0; dequantization by the f32 bits S << 23 (0x00 -> 0, 0xFF -> Inf) before PR 3262",
     "NVIDIA/TransformerEngine util/ptx.cuh before 71971e33d (exp2f_rcp: (biased_exp == 0) ? 1 : "
     "__int_as_float((254 - biased_exp) << 23)) and before 4ff5fdfed (exp2f: __int_as_float(biased << 23)); "
     "docs/research/block-dialects.md section 4, transformer-engine-recipes.md section 3",
     transformer_engine_policies, transformer_engine_2025_policies},
    {"torchao-pre-178817",
     "torchao with PyTorch before PR 178817 (2026-04-17): the plain e4m3 cast (--sat none) gives NaN "
     "on overflow and Inf; to_mx clamps first, so MX bytes are torchao's",
     "PyTorch c10 Float8_e4m3fn.h before PR 178817 (0316fdce: f_bits >= fp8_max -> 0x7f); pytorch/ao "
     "36027d82 mx_tensor.py:361-373 (the clamp for PyTorch < 2.13); otherwise as torchao; "
     "docs/research/ml-dtypes-pytorch-casts.md section 4",
     torchao_policies, torchao_pre_178817_policies},
    {"ml_dtypes-cpp",
     "ml_dtypes' C++ casts: as ml_dtypes, but Eigen::half <-> float8_e5m2 take the direct bit paths, "
     "which keep a NaN's payload",
     "jax-ml/ml_dtypes b793a6e ml_dtypes/include/float8.h:1528-1560 (ConvertImpl<Eigen::half, "
     "float8_e5m2>: NaN -> (bits >> 8) | 0b10), :1563-1569 (ConvertImpl<float8_e5m2, Eigen::half>: "
     "bits << 8), :80-81 and :99-101 (the constructor and operator that reach them); otherwise as ml_dtypes; "
     "docs/research/ml-dtypes-pytorch-casts.md section 2",
     ml_dtypes_policies, ml_dtypes_cpp_policies},
    {"amd-gfx942",
     "AMD MI300 (gfx942) FP8 instructions: e4m3fnuz/e5m2fnuz only, RNE or SR, no saturation by default "
     "(finite: HIP's clamp, Inf still NaN), NaN 0x80; "
     "inferred, not measured",
     "ROCm/clr amd_hip_fp8.h @f9f995c (HIP_FP8_TYPE_FNUZ 41-44, __hip_cvt_float_to_fp8 device path 519-545); "
     "composable_kernel ck_tile float8.hpp @03fe5f1 (cast_to_f8_from_f32); llvm-project ArithToAMDGPU.cpp "
     "@0272474 (clampInput, TruncFToFloat8RewritePattern); LLVM gfx940 MC tests; docs/research/amd-fnuz.md",
     nullptr, amd_gfx942_policies},
    {"torchmx",
     "rain-neuromorphics/torchmx (7648b97, torchao 0.6.1): bf16 blocks, floor scale from the exponent "
     "fields, clamp-then-cast rne elements, MXINT8 as integers (scale code OCP's minus 6)",
     "rain-neuromorphics/torchmx 7648b97: torchmx/mx_tensor.py (quantize_mx, dequantize_mx, to_mx), "
     "mx_quantization_utils.py (get_e8m0_shared_exponent, quantize_mx_with_e8m0_shared_exponent_simulated, "
     "dequantize_to_dtype), dtypes.py; pytorch/ao v0.6.1 custom_fp_utils.py (_f32_to_floatx_unpacked); "
     "docs/research/torchmx.md",
     nullptr, torchmx_policies},
    {"torchmx-hw-exact",
     "torchmx with MX_HARDWARE_EXACT_QUANTIZATION=True: as torchmx, but a NaN-scale block keeps the "
     "subnormal codes of |V| / 2^128",
     "rain-neuromorphics/torchmx 7648b97: mx_quantization_utils.py:253-412 "
     "(quantize_mx_with_e8m0_shared_exponent_hw_exact), mx_tensor.py:80-90, env_variables.py:16; "
     "docs/research/torchmx.md section 4",
     torchmx_policies, torchmx_hw_exact_policies},
    {"pychop",
     "inEXASCALE/pychop mx_quantize (0.6.0, 242e079): floor of np.log2 in the input dtype, NaN ignored "
     "by amax, Inf gives 0xFE, +0 for every zero FP element, MXINT8 with -2",
     "inEXASCALE/pychop 242e079: pychop/np/mx_formats.py (MXBlock_._quantize, _quantize_float_element, "
     "_quantize_mxint, _mx_float_params, _scale_exponent_bounds), pychop/mx_formats.py (MXSpec, MX_FORMATS); "
     "docs/research/pychop.md",
     nullptr, pychop_policies},
    {"lut-argmin",
     "the MX-FP4 GEMM golden generator (seed 003): clamp, then argmin over the FP4 value table "
     "(nearest, ties toward zero, zeros +0, NaN +0); PyTorch's e8m0 cast for its scales",
     "seed 003 (../shared/seeds/003_1cfc0588c37cecb0.txt) lines 28-61 (_build_fp4_lut, "
     "_quantize_to_fp4_lut: clamp L57, distances L58, argmin L59), lines 83-87 and 118 (scale, "
     "float8_e8m0fnu cast); PyTorch aten/src/ATen/native/SharedReduceOps.h LessOrNan (the first "
     "minimum and the first NaN win); docs/research/lut-argmin-golden.md sections 2-4",
     nullptr, lut_argmin_policies},
    {"fpnew",
     "FPnew / CVFPU (openhwgroup/cvfpu) FP-to-FP casts: IEEE formats only (FP64, FP32, FP16, FP16ALT = "
     "bf16, FP8 = e5m2, FP8ALT = e4m3:specials=ieee), RNE RTZ RDN RUP RMM ROD, IEEE overflow, every NaN "
     "the RISC-V canonical NaN",
     "openhwgroup/cvfpu develop 0ad2cd7 (2024-10-23): src/fpnew_cast_multi.sv (special results 636-667, "
     "over/underflow 460-483, flags 583-584 and 724-731), src/fpnew_rounding.sv 45-65, src/fpnew_pkg.sv "
     "50-56 and 140-148 (FP_ENCODINGS, roundmode_e), 347-348 (bias); FP8ALT: PR 131 (e34456c) "
     "src/fpnew_pkg.sv 53-59; tininess: issues 165, 166 and PR 168 (merged 2026-05-06); Inf: PR 140",
     nullptr, fpnew_policies},
    {"p3109",
     "IEEE P3109 interim report v4.0: binaryKpP formats, its projection specification (rounding x "
     "SatFinite, SatPropagate, SatNone)",
     "IEEE SA P3109 Interim Report v4.0 (2026-06-26), github.com/P3109/Public 26df0d0: 3.1-3.2 formats "
     "and names, 4.2 projection specifications, 4.7.2-4.7.6 decode, project, round, saturate, encode",
     nullptr, p3109_policies},
};

constexpr Dialect make(const Row& r) {
  Dialect d = base(r.name, r.summary, r.sources);
  if (r.parent) r.parent(d);
  if (r.policies) r.policies(d);
  return d;
}

constexpr std::array<Dialect, std::size(kRows)> make_all() {
  std::array<Dialect, std::size(kRows)> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = make(kRows[i]);
  return a;
}

const std::array<Dialect, std::size(kRows)> kDialects = make_all();

// The runtime formats a dialect restricts itself to, by canonical spec (empty: every one its
// RuntimeFormatPolicy admits). A table here until RuntimeFormatPolicy carries it.
struct RuntimeOnly {
  std::string_view dialect;
  std::span<const std::string_view> specs;
};
constexpr RuntimeOnly kRuntimeOnly[] = {{"amd-gfx942", kGfx942Formats}, {"fpnew", kFpnewFormats}};

bool runtime_listed(const Dialect& d, const Format& f) {
  for (const RuntimeOnly& r : kRuntimeOnly)
    if (r.dialect == d.name) {
      for (std::string_view s : r.specs)
        if (f.name == s) return true;
      return false;
    }
  return true;
}

std::string rounding_list(RoundingSet set) {
  std::string s;
  for (int i = 0; i < kRoundingCount; ++i)
    if (set & (1u << i)) {
      if (!s.empty()) s += ", ";
      s += name(static_cast<Rounding>(i));
    }
  return s;
}

// Why `s` refuses ctx's rounding or saturation, as "`where` with rounding ... (why)"; nullopt
// when it accepts both. `where` names the dialect and the destination.
std::optional<std::string> mode_reason(const std::string& where, const DestinationSupport& s, const Context& ctx) {
  if (!(s.roundings & rounding_bit(ctx.rounding)))
    return where + " with rounding " + std::string(name(ctx.rounding)) + " (" + std::string(s.why) +
           "); it supports: " + rounding_list(s.roundings);
  if (!(s.saturations & saturation_bit(ctx.saturation)))
    return where + " with saturation " + std::string(name(ctx.saturation)) + " (" + std::string(s.why) + ")";
  return std::nullopt;
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
  return mode_reason(where, s, ctx);
}

std::optional<std::string> unsupported_reason(const Dialect& d, const Format& dst, const Context& given) {
  if (dst.is_named()) return unsupported_reason(d, dst.id, given);
  const Context ctx = resolve(d, dst, given);
  const RuntimeFormatPolicy& r = d.runtime;
  const std::string where = "dialect " + std::string(d.name) + " cannot convert to the runtime format " +
                            std::string(dst.name);
  if (!r.refused.empty()) return where + " (" + std::string(r.refused) + ")";
  if (!(r.specials & specials_bit(dst.specials)) || !runtime_listed(d, dst))
    return where + " (" + std::string(r.support.why) + ")";
  const DestinationSupport& s = r.support;
  return mode_reason(where, s, ctx);
}

std::optional<std::string> unsupported_source_reason(const Dialect& d, const Format& src) {
  if (src.is_named()) return std::nullopt;
  // A dialect reads the runtime formats it writes: the same specials and list as a destination
  // (a decoder for a format the implementation has no encoder for does not exist there either:
  // torchao's, microxcaling's and pychop's runtime formats have no specials at all).
  if (d.runtime.refused.empty() && (!runtime_listed(d, src) || !(d.runtime.specials & specials_bit(src.specials))))
    return "dialect " + std::string(d.name) + " cannot read the runtime format " + std::string(src.name) + " (" +
           std::string(d.runtime.support.why) + ")";
  if (d.runtime.refused.empty()) return std::nullopt;
  return "dialect " + std::string(d.name) + " cannot read the runtime format " + std::string(src.name) + " (" +
         std::string(d.runtime.refused) + ")";
}

// The names of the policy values: dialect_names.cpp.

}  // namespace softmx
