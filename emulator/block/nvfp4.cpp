// emulator/block/nvfp4.cpp: NVFP4 as TransformerEngine computes it (include/softmx/nvfp4.hpp).
#include "softmx/nvfp4.hpp"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "block/f32_arith.hpp"

namespace softmx {
namespace {

using detail::div_f32;
using detail::f32_value;
using detail::mul_f32;
using detail::round_f32;

constexpr std::size_t kBlock = 16;

Unpacked abs(Unpacked u) {
  u.sign = false;
  return u;
}

// max(a, b) of non-negative values, ignoring NaN as fmaxf does.
Unpacked fmax(const Unpacked& a, const Unpacked& b) {
  if (a.cls == ValueClass::nan) return b;
  if (b.cls == ValueClass::nan) return a;
  const float fa = detail::to_float(a), fb = detail::to_float(b);
  return fb > fa ? b : a;
}

Unpacked min_flt_max(const Unpacked& x) {  // fminf(x, FLT_MAX) for x >= 0 or NaN
  const Unpacked m = f32_value(std::numeric_limits<float>::max());
  if (x.cls == ValueClass::nan) return m;
  return detail::to_float(x) > std::numeric_limits<float>::max() ? m : x;
}

std::uint64_t load(FormatId src, const void* data, std::size_t i) {
  return format(src).width == 16 ? static_cast<const std::uint16_t*>(data)[i] : static_cast<const std::uint32_t*>(data)[i];
}

}  // namespace

Nvfp4Tensor quantize_nvfp4(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                           const Nvfp4Options& o) {
  if (src != FormatId::f32 && src != FormatId::bf16 && src != FormatId::f16)
    throw std::invalid_argument("nvfp4: the source must be f32, bf16 or f16, not " + std::string(format(src).name));
  if (shape.empty()) throw std::invalid_argument("nvfp4: the tensor needs at least one dimension");
  if (axis >= shape.size())
    throw std::invalid_argument("nvfp4: axis " + std::to_string(axis) + " does not exist in a " +
                                std::to_string(shape.size()) + "-d tensor");
  if (o.rounding != Rounding::rne && o.rounding != Rounding::rs)
    throw std::invalid_argument("nvfp4: TransformerEngine rounds elements with rne or rs, not " +
                                std::string(name(o.rounding)));
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[axis], n = outer * len * inner, nb = (len + kBlock - 1) / kBlock;
  if (o.rounding == Rounding::rs && o.rbits.size() < n)
    throw std::invalid_argument("nvfp4: stochastic rounding needs one random value per element (" + std::to_string(n) +
                                "), got " + std::to_string(o.rbits.size()));

  const Format& sf = format(src);
  std::vector<Unpacked> v(n);
  Unpacked gmax;  // +0
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = detail::round_f32(unpack(sf, load(src, data, i)));  // f16/bf16 widen exactly
    if (v[i].cls == ValueClass::nan) v[i] = detail::nan_value();
    gmax = fmax(gmax, abs(v[i]));
  }
  if (o.global_amax) gmax = f32_value(*o.global_amax);

  Nvfp4Tensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.axis = axis;
  t.global_amax = std::bit_cast<std::uint32_t>(detail::to_float(gmax));
  // S_enc = fminf(448 * 6 / amax, FLT_MAX); 1.0 when amax or S_enc is 0.
  Unpacked s_enc = min_flt_max(div_f32(f32_value(448.0f * 6.0f), gmax));
  if (gmax.cls == ValueClass::zero || s_enc.cls == ValueClass::zero) s_enc = f32_value(1.0f);
  t.encode_scale = std::bit_cast<std::uint32_t>(detail::to_float(s_enc));
  const Unpacked sixth = f32_value(1.0f / 6.0f);  // RN(1/6), as the source's constant
  const Unpacked enc_over_6 = mul_f32(s_enc, sixth);
  const Unpacked rcp_enc = div_f32(f32_value(1.0f), s_enc);

  t.scale_shape = t.shape;
  t.scale_shape[axis] = nb;
  t.scales.resize(outer * nb * inner);
  t.codes.resize(n);
  Context sat;  // rne, satfinite: the CUDA FP8 constructor and cvt.rn.satfinite
  sat.saturation = Saturation::finite;
  const Format& e4m3 = format(FormatId::e4m3);
  const Format& e2m1 = format(FormatId::e2m1);
  for (std::size_t o2 = 0; o2 < outer; ++o2)
    for (std::size_t in = 0; in < inner; ++in)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * kBlock, count = std::min(kBlock, len - first);
        auto at = [&](std::size_t j) { return (o2 * len + first + j) * inner + in; };
        Unpacked bmax;
        for (std::size_t j = 0; j < count; ++j) bmax = fmax(bmax, abs(v[at(j)]));
        // S_dec_b = static_cast<fp8e4m3>(block_amax * (S_enc * (1/6)))
        const Result sb = round_pack(e4m3, mul_f32(bmax, enc_over_6), sat, ocp_dialect());
        t.scales[(o2 * nb + b) * inner + in] = static_cast<std::uint8_t>(sb.code);
        t.flags |= sb.flags;
        const Unpacked sdec = unpack(e4m3, sb.code);
        Unpacked m = o.multiplier == Nvfp4Multiplier::division
                         ? div_f32(s_enc, sdec)
                         : min_flt_max(div_f32(f32_value(1.0f), mul_f32(sdec, rcp_enc)));
        for (std::size_t j = 0; j < count; ++j) {
          Context c = sat;
          c.rounding = o.rounding;
          c.rbits_width = o.rbits_width;
          if (o.rounding == Rounding::rs) c.rbits = o.rbits[at(j)];
          // cvt.rn.satfinite.e2m1x2.f32: NaN has no E2M1 code; softmx gives +max (what the
          // hardware does is not determined).
          const Result r = round_pack(e2m1, mul_f32(v[at(j)], m), c, ocp_dialect());
          t.codes[at(j)] = static_cast<std::uint8_t>(r.code);
          t.flags |= r.flags;
        }
      }
  return t;
}

Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx) {
  if (t.shape.empty() || t.axis >= t.shape.size()) throw std::invalid_argument("nvfp4: bad tensor shape");
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < t.axis; ++d) outer *= t.shape[d];
  for (std::size_t d = t.axis + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  const std::size_t len = t.shape[t.axis], nb = (len + kBlock - 1) / kBlock;
  if (t.codes.size() != outer * len * inner || t.scales.size() != outer * nb * inner)
    throw std::invalid_argument("nvfp4: the tensor's scales or codes do not match its shape");
  const Unpacked s_enc = unpack(format(FormatId::f32), t.encode_scale);
  // The division below needs a finite non-zero S_enc (quantize_nvfp4 never makes a zero, Inf or
  // NaN one: S_enc is at most FLT_MAX, and 1.0 instead of 0).
  if (s_enc.cls != ValueClass::finite) {
    char bits[9];
    std::snprintf(bits, sizeof bits, "%08X", static_cast<unsigned>(t.encode_scale));
    throw std::invalid_argument(std::string("nvfp4: the encode scale must be a finite non-zero f32, not ") + bits);
  }
  const Format& d = format(dst);
  const std::size_t bytes = d.width <= 8 ? 1 : d.width / 8;
  Flags flags = 0;
  for (std::size_t i = 0; i < t.codes.size(); ++i) {
    const std::size_t o2 = i / (len * inner), a = (i / inner) % len, in = i % inner;
    Unpacked x = unpack(format(FormatId::e2m1), t.codes[i]);
    const Unpacked sdec = unpack(format(FormatId::e4m3), t.scales[(o2 * nb + a / kBlock) * inner + in]);
    // x * S_dec_b / S_enc exactly: both factors are small dyadic numbers, so the product is
    // exact and one division-with-rounding remains. Form it at full precision, then round.
    Result r;
    if (x.cls == ValueClass::zero || sdec.cls == ValueClass::zero) {
      Unpacked z;
      z.sign = (x.sign != sdec.sign) != s_enc.sign;
      r = round_pack(d, z, ctx, ocp_dialect());
    } else if (sdec.cls == ValueClass::nan) {
      r = round_pack(d, detail::nan_value(), ctx, ocp_dialect());
    } else {
      Unpacked p;
      p.cls = ValueClass::finite;
      p.sign = x.sign != sdec.sign;
      // Each significand has at most 4 bits, all in its top 32: the product fits 64 bits.
      const std::uint64_t prod = (x.sig >> 32) * (sdec.sig >> 32);
      const int lz = std::countl_zero(prod);
      p.sig = prod << lz;
      p.exp = x.exp + sdec.exp + 1 - lz;
      // Divide by S_enc with 64 quotient bits and a sticky bit, then round once into dst.
      const detail::u128 num = static_cast<detail::u128>(p.sig) << 64;
      const detail::u128 q = num / s_enc.sig;
      const bool big = static_cast<std::uint64_t>(q >> 64) != 0;
      Unpacked qv;
      qv.cls = ValueClass::finite;
      qv.sign = p.sign != s_enc.sign;  // a negative S_enc comes from a negative global_amax
      qv.sig = static_cast<std::uint64_t>(q >> (big ? 1 : 0));
      qv.sticky = num % s_enc.sig != 0 || (big && (q & 1));
      qv.exp = p.exp - s_enc.exp - (big ? 0 : 1);
      r = round_pack(d, qv, ctx, ocp_dialect());
    }
    std::memcpy(static_cast<unsigned char*>(out) + i * bytes, &r.code, bytes);
    flags |= r.flags;
  }
  return flags;
}

}  // namespace softmx
