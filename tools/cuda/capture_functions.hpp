// tools/cuda/capture_functions.hpp: what the capture program evaluates for one input.
//
// evaluate<I>(x) runs the capture_calls.hpp Call kCaptures[I] (an NVIDIA header function or a
// PTX cvt instruction) on one input. It is generic over the Call's fields; the kernels and the host tests
// instantiate it once per catalogue entry. The header functions are __host__ __device__: compiled
// by g++ they run NVIDIA's software path, which is how the conformance suite runs this file's
// pipeline without a GPU. The PTX forms exist on the device only, inside the guards below; where
// an instruction is not compiled in, evaluate() says so (Lanes::missing) instead of answering.
//
// Plain C++17 with the CUDA headers; no softmx header, so nvcc never parses the emulator.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include "capture_calls.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SOFTMX_CAPTURE_HD __host__ __device__ __forceinline__
#define SOFTMX_CAPTURE_HDC __host__ __device__ constexpr  // constexpr helpers used on both sides
#else
#define SOFTMX_CAPTURE_HD inline
#define SOFTMX_CAPTURE_HDC constexpr
#endif

// Which PTX conversions this compilation pass holds (device passes only). The conditions are
// those of the PTX ISA 9.x "Target ISA notes" of cvt, as cuda_fp8.h tests them:
//  - FP8 x2 conversions: sm_89 and later;
//  - FP6/FP4 x2 and ue8m0x2: the family-specific Blackwell targets (sm_100f/a, 103, 110, 120,
//    121: __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000; sm_90a also defines the macro, as 900);
//  - cvt.rs: sm_100a and sm_103a only (__CUDA_ARCH_SPECIFIC__; ptxas rejects .rs for sm_100f,
//    sm_110a, sm_120a, as tools/cuda/README.md records).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define SOFTMX_CAPTURE_HAS_FP8_CVT 1
#endif
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000
#define SOFTMX_CAPTURE_HAS_BLACKWELL_CVT 1
#endif
#if defined(__CUDA_ARCH_SPECIFIC__) && (__CUDA_ARCH_SPECIFIC__ == 1000 || __CUDA_ARCH_SPECIFIC__ == 1030)
#define SOFTMX_CAPTURE_HAS_CVT_RS 1
#endif

namespace softmx::capture {

/// The result for one input: the code (lane 0 of the x2/x4 forms), whether every lane gave the
/// same code (the input is in every lane), and whether the call was not compiled into this
/// binary (then `code` means nothing).
struct Lanes {
  std::uint32_t code;
  bool agree;
  bool missing;
};

namespace detail {

SOFTMX_CAPTURE_HD float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
SOFTMX_CAPTURE_HD __half_raw half_raw(std::uint32_t bits) {
  __half_raw h;
  h.x = static_cast<unsigned short>(bits);
  return h;
}
SOFTMX_CAPTURE_HD __nv_bfloat16_raw bf16_raw(std::uint32_t bits) {
  __nv_bfloat16_raw b;
  b.x = static_cast<unsigned short>(bits);
  return b;
}
SOFTMX_CAPTURE_HDC cudaRoundMode round_mode(Mode m) {
  return m == Mode::rz ? cudaRoundZero : m == Mode::rp ? cudaRoundPosInf : cudaRoundNearest;
}
SOFTMX_CAPTURE_HDC __nv_saturation_t saturation(bool satfinite) { return satfinite ? __NV_SATFINITE : __NV_NOSAT; }
SOFTMX_CAPTURE_HDC __nv_fp8_interpretation_t fp8_kind(Fmt f) { return f == Fmt::e4m3 ? __NV_E4M3 : __NV_E5M2; }
SOFTMX_CAPTURE_HDC __nv_fp6_interpretation_t fp6_kind(Fmt f) { return f == Fmt::e3m2 ? __NV_E3M2 : __NV_E2M3; }

/// `lanes` fields of `bits` wide each, packed from bit 0: the first one, and whether all agree.
SOFTMX_CAPTURE_HD Lanes split(std::uint32_t packed, int lanes, int bits) {
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  const std::uint32_t first = packed & mask;
  bool agree = true;
  for (int i = 1; i < lanes; ++i) agree = agree && ((packed >> (i * bits)) & mask) == first;
  return Lanes{first, agree, false};
}

template <std::size_t I>
SOFTMX_CAPTURE_HD std::uint32_t nv_encode(std::uint32_t x) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
  if constexpr (C.to == Fmt::e4m3 || C.to == Fmt::e5m2) {
    constexpr auto s = saturation(C.satfinite);
    constexpr auto k = fp8_kind(C.to);
    if constexpr (C.from == Fmt::f32) return __nv_cvt_float_to_fp8(as_float(x), s, k);
    else if constexpr (C.from == Fmt::f16) return __nv_cvt_halfraw_to_fp8(half_raw(x), s, k);
    else return __nv_cvt_bfloat16raw_to_fp8(bf16_raw(x), s, k);
  } else if constexpr (C.to == Fmt::e3m2 || C.to == Fmt::e2m3) {
    constexpr auto k = fp6_kind(C.to);
    constexpr auto m = round_mode(C.mode);
    if constexpr (C.from == Fmt::f32) return __nv_cvt_float_to_fp6(as_float(x), k, m);
    else if constexpr (C.from == Fmt::f16) return __nv_cvt_halfraw_to_fp6(half_raw(x), k, m);
    else return __nv_cvt_bfloat16raw_to_fp6(bf16_raw(x), k, m);
  } else if constexpr (C.to == Fmt::e2m1) {
    constexpr auto m = round_mode(C.mode);
    if constexpr (C.from == Fmt::f32) return __nv_cvt_float_to_fp4(as_float(x), __NV_E2M1, m);
    else if constexpr (C.from == Fmt::f16) return __nv_cvt_halfraw_to_fp4(half_raw(x), __NV_E2M1, m);
    else return __nv_cvt_bfloat16raw_to_fp4(bf16_raw(x), __NV_E2M1, m);
  } else {
    static_assert(C.to == Fmt::e8m0, "nv_encode: no such destination");
    static_assert(C.from == Fmt::f32 || C.from == Fmt::bf16, "e8m0 functions take float and bfloat16raw");
    constexpr auto s = saturation(C.satfinite);
    constexpr auto m = round_mode(C.mode);
    if constexpr (C.from == Fmt::f32) return __nv_cvt_float_to_e8m0(as_float(x), s, m);
    else return __nv_cvt_bfloat16raw_to_e8m0(bf16_raw(x), s, m);
  }
}

template <std::size_t I>
SOFTMX_CAPTURE_HD std::uint32_t nv_decode(std::uint32_t x) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
  if constexpr (C.from == Fmt::e4m3 || C.from == Fmt::e5m2)
    return __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x), fp8_kind(C.from)).x;
  else if constexpr (C.from == Fmt::e3m2 || C.from == Fmt::e2m3)
    return __nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(x), fp6_kind(C.from)).x;
  else if constexpr (C.from == Fmt::e2m1)
    return __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(x), __NV_E2M1).x;
  else
    return __nv_cvt_e8m0_to_bf16raw(static_cast<__nv_fp8_storage_t>(x)).x;
}

#if defined(__CUDACC__)
// The PTX forms. Each puts the input in every lane. A string literal per instruction is what
// inline asm needs; the macro only spells the operand lists once.
#define SOFTMX_CVT_F32X2(INSN) asm(INSN " %0, %1, %1;" : "=h"(r16) : "f"(f))
#define SOFTMX_CVT_X2IN(INSN) asm(INSN " %0, %1;" : "=h"(r16) : "r"(x | (x << 16)))

template <std::size_t I>
__device__ __forceinline__ Lanes ptx_encode_x2(std::uint32_t x) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
  [[maybe_unused]] unsigned short r16 = 0;
  [[maybe_unused]] const float f = as_float(x);
  constexpr bool fp8 = C.to == Fmt::e4m3 || C.to == Fmt::e5m2;
  if constexpr (fp8) {
#if defined(SOFTMX_CAPTURE_HAS_FP8_CVT)
    if constexpr (C.from == Fmt::f32 && C.to == Fmt::e4m3) SOFTMX_CVT_F32X2("cvt.rn.satfinite.e4m3x2.f32");
    else if constexpr (C.from == Fmt::f32) SOFTMX_CVT_F32X2("cvt.rn.satfinite.e5m2x2.f32");
    else if constexpr (C.to == Fmt::e4m3) SOFTMX_CVT_X2IN("cvt.rn.satfinite.e4m3x2.f16x2");
    else SOFTMX_CVT_X2IN("cvt.rn.satfinite.e5m2x2.f16x2");
    return split(r16, 2, 8);
#else
    return Lanes{0, false, true};
#endif
  } else {
#if defined(SOFTMX_CAPTURE_HAS_BLACKWELL_CVT)
    if constexpr (C.to == Fmt::e2m3) SOFTMX_CVT_F32X2("cvt.rn.satfinite.e2m3x2.f32");
    else if constexpr (C.to == Fmt::e3m2) SOFTMX_CVT_F32X2("cvt.rn.satfinite.e3m2x2.f32");
    else if constexpr (C.to == Fmt::e2m1) {
      asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %1; mov.b16 %0, {t, 0}; }" : "=h"(r16) : "f"(f));
      return split(r16, 2, 4);
    } else if constexpr (C.from == Fmt::f32) {
      if constexpr (C.mode == Mode::rz && C.satfinite) SOFTMX_CVT_F32X2("cvt.rz.satfinite.ue8m0x2.f32");
      else if constexpr (C.mode == Mode::rz) SOFTMX_CVT_F32X2("cvt.rz.ue8m0x2.f32");
      else if constexpr (C.satfinite) SOFTMX_CVT_F32X2("cvt.rp.satfinite.ue8m0x2.f32");
      else SOFTMX_CVT_F32X2("cvt.rp.ue8m0x2.f32");
    } else {
      if constexpr (C.mode == Mode::rz && C.satfinite) SOFTMX_CVT_X2IN("cvt.rz.satfinite.ue8m0x2.bf16x2");
      else if constexpr (C.mode == Mode::rz) SOFTMX_CVT_X2IN("cvt.rz.ue8m0x2.bf16x2");
      else if constexpr (C.satfinite) SOFTMX_CVT_X2IN("cvt.rp.satfinite.ue8m0x2.bf16x2");
      else SOFTMX_CVT_X2IN("cvt.rp.ue8m0x2.bf16x2");
    }
    return split(r16, 2, 8);
#else
    return Lanes{0, false, true};
#endif
  }
}

template <std::size_t I>
__device__ __forceinline__ Lanes ptx_decode_x2([[maybe_unused]] std::uint32_t x) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
#if defined(SOFTMX_CAPTURE_HAS_FP8_CVT)
  std::uint32_t r32;
  const unsigned short in = static_cast<unsigned short>(x | (x << 8));
  if constexpr (C.from == Fmt::e4m3) asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r32) : "h"(in));
  else asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r32) : "h"(in));
  return split(r32, 2, 16);
#else
  return Lanes{0, false, true};
#endif
}

#define SOFTMX_CVT_RS_X4(INSN) asm(INSN " %0, {%1, %1, %1, %1}, %2;" : "=r"(r32) : "f"(f), "r"(rbits))

template <std::size_t I>
__device__ __forceinline__ Lanes ptx_rs_x4([[maybe_unused]] std::uint32_t x, [[maybe_unused]] std::uint32_t rbits) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
#if defined(SOFTMX_CAPTURE_HAS_CVT_RS)
  const float f = as_float(x);
  std::uint32_t r32 = 0;
  if constexpr (C.to == Fmt::e4m3) SOFTMX_CVT_RS_X4("cvt.rs.satfinite.e4m3x4.f32");
  else if constexpr (C.to == Fmt::e5m2) SOFTMX_CVT_RS_X4("cvt.rs.satfinite.e5m2x4.f32");
  else if constexpr (C.to == Fmt::e2m3) SOFTMX_CVT_RS_X4("cvt.rs.satfinite.e2m3x4.f32");
  else if constexpr (C.to == Fmt::e3m2) SOFTMX_CVT_RS_X4("cvt.rs.satfinite.e3m2x4.f32");
  else {
    unsigned short r16;
    asm("cvt.rs.satfinite.e2m1x4.f32 %0, {%1, %1, %1, %1}, %2;" : "=h"(r16) : "f"(f), "r"(rbits));
    return split(r16, 4, 4);
  }
  return split(r32, 4, 8);
#else
  return Lanes{0, false, true};
#endif
}

#undef SOFTMX_CVT_F32X2
#undef SOFTMX_CVT_X2IN
#undef SOFTMX_CVT_RS_X4
#endif  // __CUDACC__

}  // namespace detail

/// The code of catalogue entry I (C = kCaptures[I]; an index, not the Call itself, so that the
/// device code is C++17 and nvcc's kernel stubs can name it) for input `x` (the raw bits of C.from, in the low bits), and for ptx_rs_x4
/// the random bits `rbits` (the instruction's 32-bit rbits operand). On the host only the header
/// functions exist (Needs::any); the PTX forms answer Lanes::missing there.
template <std::size_t I>
SOFTMX_CAPTURE_HD Lanes evaluate(std::uint32_t x, [[maybe_unused]] std::uint32_t rbits = 0) {
  [[maybe_unused]] constexpr Call C = kCaptures[I];
  if constexpr (C.api == Api::nv_encode) return Lanes{detail::nv_encode<I>(x), true, false};
  else if constexpr (C.api == Api::nv_decode) return Lanes{detail::nv_decode<I>(x), true, false};
  else {
#if defined(__CUDA_ARCH__)
    if constexpr (C.api == Api::ptx_encode_x2) return detail::ptx_encode_x2<I>(x);
    else if constexpr (C.api == Api::ptx_decode_x2) return detail::ptx_decode_x2<I>(x);
    else return detail::ptx_rs_x4<I>(x, rbits);
#else
    return Lanes{0, false, true};
#endif
  }
}

/// Bit i set when this compilation pass holds the code of Needs(i) (device code; on the host
/// only Needs::any).
SOFTMX_CAPTURE_HD std::uint32_t compiled_needs() {
  std::uint32_t m = 1u << static_cast<int>(Needs::any);
#if defined(SOFTMX_CAPTURE_HAS_FP8_CVT)
  m |= 1u << static_cast<int>(Needs::fp8_cvt);
#endif
#if defined(SOFTMX_CAPTURE_HAS_BLACKWELL_CVT)
  m |= 1u << static_cast<int>(Needs::blackwell_cvt);
#endif
#if defined(SOFTMX_CAPTURE_HAS_CVT_RS)
  m |= 1u << static_cast<int>(Needs::cvt_rs);
#endif
  return m;
}

}  // namespace softmx::capture
