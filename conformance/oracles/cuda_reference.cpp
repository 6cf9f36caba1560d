// conformance/oracles/cuda_reference.cpp: see cuda_reference.hpp.
#include "cuda_reference.hpp"

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstring>
#endif

namespace softmx::cudaref {

#if !defined(SOFTMX_HAVE_CUDA_HEADERS)

bool available() { return false; }
std::optional<std::uint64_t> convert(FormatId, FormatId, std::uint64_t, Rounding, Saturation) { return std::nullopt; }
bool supports(FormatId, FormatId, Rounding, Saturation) { return false; }
void convert_f32_batch(FormatId, Rounding, Saturation, const std::uint32_t*, std::uint8_t*, std::size_t) {}

#else

namespace {

bool is_fp8(FormatId f) { return f == FormatId::e4m3 || f == FormatId::e5m2; }
bool is_fp6(FormatId f) { return f == FormatId::e3m2 || f == FormatId::e2m3; }
bool is_source(FormatId f) { return is_ieee_host_format(f); }
bool is_element(FormatId f) {
  return is_fp8(f) || is_fp6(f) || f == FormatId::e2m1 || f == FormatId::e8m0;
}

__nv_fp8_interpretation_t fp8_kind(FormatId f) { return f == FormatId::e4m3 ? __NV_E4M3 : __NV_E5M2; }
__nv_fp6_interpretation_t fp6_kind(FormatId f) { return f == FormatId::e3m2 ? __NV_E3M2 : __NV_E2M3; }
__nv_saturation_t sat(Saturation s) { return s == Saturation::finite ? __NV_SATFINITE : __NV_NOSAT; }
cudaRoundMode mode(Rounding r) {
  switch (r) {
    case Rounding::rz: return cudaRoundZero;
    case Rounding::ru: return cudaRoundPosInf;
    case Rounding::rd: return cudaRoundMinInf;
    default: return cudaRoundNearest;
  }
}

float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double as_double(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
std::uint64_t double_bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
__half_raw half_raw(std::uint64_t bits) {
  __half_raw h;
  h.x = static_cast<unsigned short>(bits);
  return h;
}
__nv_bfloat16_raw bf16_raw(std::uint64_t bits) {
  __nv_bfloat16_raw b;
  b.x = static_cast<unsigned short>(bits);
  return b;
}

std::uint64_t encode(FormatId src, FormatId dst, std::uint64_t bits, Rounding r, Saturation s) {
  if (is_fp8(dst)) {
    switch (src) {
      case FormatId::f32: return __nv_cvt_float_to_fp8(as_float(static_cast<std::uint32_t>(bits)), sat(s), fp8_kind(dst));
      case FormatId::f64: return __nv_cvt_double_to_fp8(as_double(bits), sat(s), fp8_kind(dst));
      case FormatId::f16: return __nv_cvt_halfraw_to_fp8(half_raw(bits), sat(s), fp8_kind(dst));
      default: return __nv_cvt_bfloat16raw_to_fp8(bf16_raw(bits), sat(s), fp8_kind(dst));
    }
  }
  if (is_fp6(dst)) {
    switch (src) {
      case FormatId::f32: return __nv_cvt_float_to_fp6(as_float(static_cast<std::uint32_t>(bits)), fp6_kind(dst), mode(r));
      case FormatId::f64: return __nv_cvt_double_to_fp6(as_double(bits), fp6_kind(dst), mode(r));
      case FormatId::f16: return __nv_cvt_halfraw_to_fp6(half_raw(bits), fp6_kind(dst), mode(r));
      default: return __nv_cvt_bfloat16raw_to_fp6(bf16_raw(bits), fp6_kind(dst), mode(r));
    }
  }
  if (dst == FormatId::e2m1) {
    switch (src) {
      case FormatId::f32: return __nv_cvt_float_to_fp4(as_float(static_cast<std::uint32_t>(bits)), __NV_E2M1, mode(r));
      case FormatId::f64: return __nv_cvt_double_to_fp4(as_double(bits), __NV_E2M1, mode(r));
      case FormatId::f16: return __nv_cvt_halfraw_to_fp4(half_raw(bits), __NV_E2M1, mode(r));
      default: return __nv_cvt_bfloat16raw_to_fp4(bf16_raw(bits), __NV_E2M1, mode(r));
    }
  }
  // E8M0. There is no half entry point with a rounding argument; __nv_fp8_e8m0(__half) widens
  // with __internal_halfraw_to_float and calls the float function, which is what we do too.
  switch (src) {
    case FormatId::f32: return __nv_cvt_float_to_e8m0(as_float(static_cast<std::uint32_t>(bits)), sat(s), mode(r));
    case FormatId::f64: return __nv_cvt_double_to_e8m0(as_double(bits), sat(s), mode(r));
    case FormatId::f16: return __nv_cvt_float_to_e8m0(__internal_halfraw_to_float(half_raw(bits)), sat(s), mode(r));
    default: return __nv_cvt_bfloat16raw_to_e8m0(bf16_raw(bits), sat(s), mode(r));
  }
}

// Decodes through the element types' conversion operators, as user code writes them.
template <class T>
std::uint64_t decode_via(std::uint64_t bits, FormatId dst) {
  T v;
  v.__x = static_cast<decltype(v.__x)>(bits);
  switch (dst) {
    case FormatId::f32: return float_bits(static_cast<float>(v));
    case FormatId::f64: return double_bits(static_cast<double>(v));
    case FormatId::f16: return static_cast<__half_raw>(static_cast<__half>(v)).x;
    default: return static_cast<__nv_bfloat16_raw>(static_cast<__nv_bfloat16>(v)).x;
  }
}

std::uint64_t decode(FormatId src, FormatId dst, std::uint64_t bits) {
  switch (src) {
    case FormatId::e4m3: return decode_via<__nv_fp8_e4m3>(bits, dst);
    case FormatId::e5m2: return decode_via<__nv_fp8_e5m2>(bits, dst);
    case FormatId::e3m2: return decode_via<__nv_fp6_e3m2>(bits, dst);
    case FormatId::e2m3: return decode_via<__nv_fp6_e2m3>(bits, dst);
    case FormatId::e2m1: return decode_via<__nv_fp4_e2m1>(bits, dst);
    default: return decode_via<__nv_fp8_e8m0>(bits, dst);
  }
}

}  // namespace

bool available() { return true; }

bool supports(FormatId src, FormatId dst, Rounding r, Saturation s) {
  if (is_source(src) && is_element(dst)) {
    if (is_fp8(dst)) return r == Rounding::rne;
    if (dst == FormatId::e8m0) return r == Rounding::rz || r == Rounding::ru;
    return r == Rounding::rne || r == Rounding::rz;  // fp6, fp4
  }
  if (is_element(src) && is_source(dst)) return r == Rounding::rne && s == Saturation::none;
  return false;
}

std::optional<std::uint64_t> convert(FormatId src, FormatId dst, std::uint64_t bits, Rounding r, Saturation s) {
  if (!supports(src, dst, r, s)) return std::nullopt;
  if (is_element(dst)) return encode(src, dst, bits, r, s);
  return decode(src, dst, bits);
}

void convert_f32_batch(FormatId dst, Rounding r, Saturation s, const std::uint32_t* in, std::uint8_t* out,
                       std::size_t n) {
  // One loop per destination so the compiler inlines NVIDIA's function as user code would.
  if (is_fp8(dst)) {
    const auto k = fp8_kind(dst);
    const auto st = sat(s);
    for (std::size_t i = 0; i < n; ++i) out[i] = __nv_cvt_float_to_fp8(as_float(in[i]), st, k);
  } else if (is_fp6(dst)) {
    const auto k = fp6_kind(dst);
    const auto m = mode(r);
    for (std::size_t i = 0; i < n; ++i) out[i] = __nv_cvt_float_to_fp6(as_float(in[i]), k, m);
  } else if (dst == FormatId::e2m1) {
    const auto m = mode(r);
    for (std::size_t i = 0; i < n; ++i) out[i] = __nv_cvt_float_to_fp4(as_float(in[i]), __NV_E2M1, m);
  } else {
    const auto st = sat(s);
    const auto m = mode(r);
    for (std::size_t i = 0; i < n; ++i) out[i] = __nv_cvt_float_to_e8m0(as_float(in[i]), st, m);
  }
}

#endif

}  // namespace softmx::cudaref
