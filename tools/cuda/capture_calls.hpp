// tools/cuda/capture_calls.hpp: the catalogue of every GPU conversion capture.
//
// A capture is a Call: one NVIDIA header function (__nv_cvt_* from cuda_fp8.h, cuda_fp6.h,
// cuda_fp4.h) or one PTX cvt instruction, with its source and destination formats, rounding and
// saturation. Plain C++ without any include of CUDA or softmx, so that the device code
// (capture_functions.hpp), the host program and the tests share one list; capture_catalog.hpp
// says what each means in softmx's terms (formats, rounding, file name, x- text).
#pragma once

#include <cstddef>
#include <cstdint>

namespace softmx::capture {

/// The formats a capture reads or writes (a subset of softmx's FormatId, kept separate so that
/// device code needs no softmx header; capture_catalog.cpp maps them).
enum class Fmt : std::uint8_t { f32, f16, bf16, e4m3, e5m2, e3m2, e2m3, e2m1, e8m0 };
/// cudaRoundNearest / .rn, cudaRoundZero / .rz, cudaRoundPosInf / .rp, .rs.
enum class Mode : std::uint8_t { rn, rz, rp, rs };

/// What is called.
enum class Api : std::uint8_t {
  nv_encode,     ///< __nv_cvt_{float,halfraw,bfloat16raw}_to_{fp8,fp6,fp4,e8m0} (by `to`)
  nv_decode,     ///< __nv_cvt_fp8_to_halfraw, __nv_cvt_fp6_to_halfraw, __nv_cvt_fp4_to_halfraw,
                 ///< __nv_cvt_e8m0_to_bf16raw (by `from`)
  ptx_encode_x2, ///< cvt.{rn,rz,rp}[.satfinite].{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2,ue8m0x2}.{f32,f16x2,bf16x2}
  ptx_decode_x2, ///< cvt.rn.f16x2.{e4m3x2,e5m2x2}
  ptx_rs_x4,     ///< cvt.rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 with rbits
};

/// Where a capture can run: a header function on every target (software or hardware, as the
/// header compiles it), or a PTX instruction on the targets named by the guards above.
enum class Needs : std::uint8_t { any, fp8_cvt, blackwell_cvt, cvt_rs };

/// One capture's call. A structural type: it is the template argument of evaluate().
struct Call {
  Api api;
  Fmt from, to;
  Mode mode;
  bool satfinite;  ///< __NV_SATFINITE / .satfinite (FP6/FP4 functions have no such argument: true)
};

/// Needs of a call (which guard its code sits behind).
constexpr Needs needs(const Call& c) {
  switch (c.api) {
    case Api::nv_encode:
    case Api::nv_decode: return Needs::any;
    case Api::ptx_rs_x4: return Needs::cvt_rs;
    case Api::ptx_decode_x2: return Needs::fp8_cvt;
    case Api::ptx_encode_x2:
      return (c.to == Fmt::e4m3 || c.to == Fmt::e5m2) ? Needs::fp8_cvt : Needs::blackwell_cvt;
  }
  return Needs::any;
}

/// The catalogue: every capture, in the order the program runs them (sm_90 instructions, the
/// Blackwell instructions, the stochastic-rounding instructions, then the header functions).
inline constexpr Call kCaptures[] = {
    // PTX, sm_89+: FP8 from f32 and f16x2, and the f16x2 decode.
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e4m3, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e5m2, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f16, Fmt::e4m3, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f16, Fmt::e5m2, Mode::rn, true},
    {Api::ptx_decode_x2, Fmt::e4m3, Fmt::f16, Mode::rn, false},
    {Api::ptx_decode_x2, Fmt::e5m2, Fmt::f16, Mode::rn, false},
    // PTX, Blackwell family: FP6, FP4, UE8M0.
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e2m3, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e3m2, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e2m1, Mode::rn, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rz, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rz, false},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rp, true},
    {Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rp, false},
    {Api::ptx_encode_x2, Fmt::bf16, Fmt::e8m0, Mode::rz, true},
    {Api::ptx_encode_x2, Fmt::bf16, Fmt::e8m0, Mode::rz, false},
    {Api::ptx_encode_x2, Fmt::bf16, Fmt::e8m0, Mode::rp, true},
    {Api::ptx_encode_x2, Fmt::bf16, Fmt::e8m0, Mode::rp, false},
    // PTX, sm_100a/sm_103a: stochastic rounding (case files over fixed inputs and rbits).
    {Api::ptx_rs_x4, Fmt::f32, Fmt::e4m3, Mode::rs, true},
    {Api::ptx_rs_x4, Fmt::f32, Fmt::e5m2, Mode::rs, true},
    {Api::ptx_rs_x4, Fmt::f32, Fmt::e2m3, Mode::rs, true},
    {Api::ptx_rs_x4, Fmt::f32, Fmt::e3m2, Mode::rs, true},
    {Api::ptx_rs_x4, Fmt::f32, Fmt::e2m1, Mode::rs, true},
    // Header functions: FP8, both saturations.
    {Api::nv_encode, Fmt::f32, Fmt::e4m3, Mode::rn, true},
    {Api::nv_encode, Fmt::f32, Fmt::e4m3, Mode::rn, false},
    {Api::nv_encode, Fmt::f32, Fmt::e5m2, Mode::rn, true},
    {Api::nv_encode, Fmt::f32, Fmt::e5m2, Mode::rn, false},
    {Api::nv_encode, Fmt::f16, Fmt::e4m3, Mode::rn, true},
    {Api::nv_encode, Fmt::f16, Fmt::e4m3, Mode::rn, false},
    {Api::nv_encode, Fmt::f16, Fmt::e5m2, Mode::rn, true},
    {Api::nv_encode, Fmt::f16, Fmt::e5m2, Mode::rn, false},
    {Api::nv_encode, Fmt::bf16, Fmt::e4m3, Mode::rn, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e4m3, Mode::rn, false},
    {Api::nv_encode, Fmt::bf16, Fmt::e5m2, Mode::rn, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e5m2, Mode::rn, false},
    // FP6 and FP4: cudaRoundNearest and cudaRoundZero (no saturation argument: they clamp).
    {Api::nv_encode, Fmt::f32, Fmt::e3m2, Mode::rn, true},
    {Api::nv_encode, Fmt::f32, Fmt::e3m2, Mode::rz, true},
    {Api::nv_encode, Fmt::f32, Fmt::e2m3, Mode::rn, true},
    {Api::nv_encode, Fmt::f32, Fmt::e2m3, Mode::rz, true},
    {Api::nv_encode, Fmt::f32, Fmt::e2m1, Mode::rn, true},
    {Api::nv_encode, Fmt::f32, Fmt::e2m1, Mode::rz, true},
    {Api::nv_encode, Fmt::f16, Fmt::e3m2, Mode::rn, true},
    {Api::nv_encode, Fmt::f16, Fmt::e3m2, Mode::rz, true},
    {Api::nv_encode, Fmt::f16, Fmt::e2m3, Mode::rn, true},
    {Api::nv_encode, Fmt::f16, Fmt::e2m3, Mode::rz, true},
    {Api::nv_encode, Fmt::f16, Fmt::e2m1, Mode::rn, true},
    {Api::nv_encode, Fmt::f16, Fmt::e2m1, Mode::rz, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e3m2, Mode::rn, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e3m2, Mode::rz, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e2m3, Mode::rn, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e2m3, Mode::rz, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e2m1, Mode::rn, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e2m1, Mode::rz, true},
    // E8M0: cudaRoundZero and cudaRoundPosInf, both saturations (float and bfloat16raw sources).
    {Api::nv_encode, Fmt::f32, Fmt::e8m0, Mode::rz, true},
    {Api::nv_encode, Fmt::f32, Fmt::e8m0, Mode::rz, false},
    {Api::nv_encode, Fmt::f32, Fmt::e8m0, Mode::rp, true},
    {Api::nv_encode, Fmt::f32, Fmt::e8m0, Mode::rp, false},
    {Api::nv_encode, Fmt::bf16, Fmt::e8m0, Mode::rz, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e8m0, Mode::rz, false},
    {Api::nv_encode, Fmt::bf16, Fmt::e8m0, Mode::rp, true},
    {Api::nv_encode, Fmt::bf16, Fmt::e8m0, Mode::rp, false},
    // Decodes to halfraw / bf16raw.
    {Api::nv_decode, Fmt::e4m3, Fmt::f16, Mode::rn, false},
    {Api::nv_decode, Fmt::e5m2, Fmt::f16, Mode::rn, false},
    {Api::nv_decode, Fmt::e3m2, Fmt::f16, Mode::rn, false},
    {Api::nv_decode, Fmt::e2m3, Fmt::f16, Mode::rn, false},
    {Api::nv_decode, Fmt::e2m1, Fmt::f16, Mode::rn, false},
    {Api::nv_decode, Fmt::e8m0, Fmt::bf16, Mode::rn, false},
};
inline constexpr std::size_t kCaptureCount = sizeof(kCaptures) / sizeof(kCaptures[0]);

}  // namespace softmx::capture
