// emulator/block/nvfp4.cpp: NVFP4 as TransformerEngine computes it (include/softmx/nvfp4.hpp).
#include "softmx/nvfp4.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "block/nvfp4_steps.hpp"
#include "core/storage.hpp"
#include "dot/wide_accumulator.hpp"

namespace softmx {
namespace {

using detail::div_f32;
using detail::f32_value;
using detail::mul_f32;
using detail::round_f32;
namespace steps = detail::nvfp4;

constexpr std::size_t kBlock = 16;

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
    throw Unsupported("nvfp4: TransformerEngine rounds elements with rne or rs, not " +
                                std::string(name(o.rounding)));
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[axis], n = outer * len * inner, nb = (len + kBlock - 1) / kBlock;
  if (o.rounding == Rounding::rs && o.rbits.size() < n)
    throw std::invalid_argument("nvfp4: stochastic rounding needs one random value per element (" + std::to_string(n) +
                                "), got " + std::to_string(o.rbits.size()));

  if (src == FormatId::f32 && inner == 1 && o.rounding == Rounding::rne) {
    const Isa isa = o.isa.value_or(default_isa());
    if (!isa_supported(isa)) throw Unsupported(std::string("nvfp4: this CPU cannot run ") + name(isa));
    if (auto t = detail::nvfp4::quantize_lanes(static_cast<const std::uint32_t*>(data), shape, axis, o, isa))
      return std::move(*t);
  }
  const Format& sf = format(src);
  std::vector<Unpacked> v(n);
  Unpacked gmax;  // +0
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = detail::round_f32(unpack(sf, load(src, data, i)));  // f16/bf16 widen exactly
    if (v[i].cls == ValueClass::nan) v[i] = detail::nan_value();
    gmax = steps::fmax(gmax, steps::abs(v[i]));
  }
  if (o.global_amax) gmax = f32_value(*o.global_amax);

  Nvfp4Tensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.axis = axis;
  t.global_amax = std::bit_cast<std::uint32_t>(detail::to_float(gmax));
  const Unpacked s_enc = steps::encode_scale(gmax);
  t.encode_scale = std::bit_cast<std::uint32_t>(detail::to_float(s_enc));
  const Unpacked enc_over_6 = mul_f32(s_enc, steps::sixth());
  const Unpacked rcp_enc = div_f32(f32_value(1.0f), s_enc);

  t.scale_shape = t.shape;
  t.scale_shape[axis] = nb;
  t.scales.resize(outer * nb * inner);
  t.codes.resize(n);
  Context sat;  // rne, satfinite: cvt.rn.satfinite
  sat.saturation = Saturation::finite;
  const Format& e4m3 = format(FormatId::e4m3);
  const Format& e2m1 = format(FormatId::e2m1);
  for (std::size_t o2 = 0; o2 < outer; ++o2)
    for (std::size_t in = 0; in < inner; ++in)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * kBlock, count = std::min(kBlock, len - first);
        auto at = [&](std::size_t j) { return (o2 * len + first + j) * inner + in; };
        Unpacked bmax;
        for (std::size_t j = 0; j < count; ++j) bmax = steps::fmax(bmax, steps::abs(v[at(j)]));
        const Result sb = steps::block_scale(bmax, enc_over_6);
        t.scales[(o2 * nb + b) * inner + in] = static_cast<std::uint8_t>(sb.code);
        t.flags |= sb.flags;
        const Unpacked m = steps::multiplier(unpack(e4m3, sb.code), s_enc, rcp_enc, o.multiplier);
        for (std::size_t j = 0; j < count; ++j) {
          const Unpacked x = mul_f32(v[at(j)], m);
          if (o.rounding == Rounding::rs && o.stochastic_form == StochasticForm::software) {
            const Result r = te_stochastic_round_e2m1(std::bit_cast<std::uint32_t>(detail::to_float(x)), o.rbits[at(j)]);
            t.codes[at(j)] = static_cast<std::uint8_t>(r.code);
            t.flags |= r.flags;
            continue;
          }
          Context c = sat;
          c.rounding = o.rounding;
          c.rbits_width = o.rbits_width;
          if (o.rounding == Rounding::rs) c.rbits = o.rbits[at(j)];
          // cvt.rn.satfinite.e2m1x2.f32: NaN has no E2M1 code; softmx gives +max (what the
          // hardware does is not determined).
          const Result r = round_pack(e2m1, x, c, ocp_dialect());
          t.codes[at(j)] = static_cast<std::uint8_t>(r.code);
          t.flags |= r.flags;
        }
      }
  return t;
}

Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx, Nvfp4Dequantization form) {
  return dequantize_nvfp4(t, dst, out, ctx, form, default_isa());
}

Flags dequantize_nvfp4(const Nvfp4Tensor& t, FormatId dst, void* out, const Context& ctx, Nvfp4Dequantization form,
                       Isa isa) {
  if (!isa_supported(isa))
    throw std::invalid_argument(std::string("nvfp4: this CPU cannot run instruction set ") + name(isa));
  if (t.shape.empty() || t.axis >= t.shape.size()) throw std::invalid_argument("nvfp4: bad tensor shape");
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < t.axis; ++d) outer *= t.shape[d];
  for (std::size_t d = t.axis + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  const std::size_t len = t.shape[t.axis], nb = (len + kBlock - 1) / kBlock;
  if (t.codes.size() != outer * len * inner || t.scales.size() != outer * nb * inner)
    throw std::invalid_argument("nvfp4: the tensor's scales or codes do not match its shape");
  if (form == Nvfp4Dequantization::te_kernel) {
    if (dst != FormatId::f32 && dst != FormatId::bf16 && dst != FormatId::f16)
      throw std::invalid_argument("nvfp4: TE's dequantize kernel writes f32, bf16 or f16, not " +
                                  std::string(format(dst).name));
    Flags flags = 0;
    for (std::size_t i = 0; i < t.codes.size(); ++i) {
      const std::size_t o2 = i / (len * inner), a = (i / inner) % len, in = i % inner;
      const Result r = detail::nvfp4::te_dequantize(t.codes[i], t.scales[(o2 * nb + a / kBlock) * inner + in],
                                                    t.global_amax, dst);
      detail::store_code(dst, out, i, r.code);
      flags |= r.flags;
    }
    return flags;
  }
  const Unpacked s_enc = unpack(format(FormatId::f32), t.encode_scale);
  // The division below needs a finite non-zero S_enc (quantize_nvfp4 never makes a zero, Inf or
  // NaN one: S_enc is at most FLT_MAX, and 1.0 instead of 0).
  if (s_enc.cls != ValueClass::finite) {
    char bits[9];
    std::snprintf(bits, sizeof bits, "%08X", static_cast<unsigned>(t.encode_scale));
    throw std::invalid_argument(std::string("nvfp4: the encode scale must be a finite non-zero f32, not ") + bits);
  }
  const Format& d = format(dst);
  if (isa != Isa::scalar && dst == FormatId::f32 && inner == 1)
    return detail::nvfp4::dequantize_lanes(t, s_enc, static_cast<std::uint32_t*>(out), ctx, isa);
  const std::size_t bytes = d.width <= 8 ? 1 : d.width / 8;
  Flags flags = 0;
  for (std::size_t i = 0; i < t.codes.size(); ++i) {
    const std::size_t o2 = i / (len * inner), a = (i / inner) % len, in = i % inner;
    const Result r = detail::nvfp4::exact_element(t.codes[i], t.scales[(o2 * nb + a / kBlock) * inner + in], s_enc, d, ctx);
    std::memcpy(static_cast<unsigned char*>(out) + i * bytes, &r.code, bytes);
    flags |= r.flags;
  }
  return flags;
}

namespace detail::nvfp4 {

Result exact_element(std::uint8_t code, std::uint8_t scale, const Unpacked& s_enc, const Format& d, const Context& ctx) {
    Unpacked x = unpack(format(FormatId::e2m1), code);
    const Unpacked sdec = unpack(format(FormatId::e4m3), scale);
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
    return r;
}

}  // namespace detail::nvfp4

Result te_stochastic_round_e2m1(std::uint32_t x, std::uint64_t rbits) {
  const Unpacked v = unpack(format(FormatId::f32), x);
  const std::uint8_t sign = v.sign && v.cls != ValueClass::nan ? 0x8 : 0x0;
  if (v.cls == ValueClass::nan) return {0x7, flag::invalid};  // fminf(NaN, 6) = 6, positive
  if (v.cls == ValueClass::inf) return {std::uint64_t{sign | 0x7u}, flag::invalid};
  if (v.cls == ValueClass::zero) return {std::uint64_t{sign}, 0};  // t = r/256 * 0.5 < 0.5: floor gives 0
  const bool above_max = v.exp > 2 || (v.exp == 2 && v.sig > (std::uint64_t{3} << 62));  // |x| > 6
  if (above_max) return {std::uint64_t{sign | 0x7u}, flag::overflow | flag::inexact};  // t >= |x| > 6
  // a and t in units of 2^-160 would not fit; use exponents instead. step(a): 2^1, 2^0, 2^-1.
  auto step_exp = [](const Unpacked& a) { return a.exp >= 2 ? 1 : a.exp >= 1 ? 0 : -1; };
  const int se = step_exp(v);
  // t = RN_f32(a + (r / 256) * step): the product is exact; one rounding of the exact sum.
  detail::WideAccumulator acc;
  acc.add(false, v.sig, v.exp - 63);
  acc.add(false, rbits & 0xFF, se - 8);
  Unpacked t = round_f32(acc.to_unpacked());
  const int te = step_exp(t);
  // floor(t / step_t) * step_t, capped at 6: the number of steps below t.
  const int shift = 63 - (t.exp - te);  // t / step_t = sig * 2^(t.exp - te - 63)
  const std::uint64_t n = shift >= 64 ? 0 : t.sig >> shift;
  // q = n * 2^te in halves: n << (te + 1).
  std::uint64_t halves = n << (te + 1);
  if (halves > 12) halves = 12;
  static constexpr std::uint8_t kCodeOfHalves[13] = {0x0, 0x1, 0x2, 0x3, 0x4, 0xFF, 0x5, 0xFF, 0x6, 0xFF, 0xFF, 0xFF, 0x7};
  const std::uint8_t code = kCodeOfHalves[halves] | sign;
  // Flags: is q = |x|? |x| = sig * 2^(exp - 63); q = halves / 2.
  Flags f = 0;
  bool exact = false;
  if (v.exp >= -1) {  // |x| >= 0.5: compare |x| * 2 with halves
    const int sh = 63 - (v.exp + 1);
    exact = !v.sticky && (v.sig & ((std::uint64_t{1} << sh) - 1)) == 0 && (v.sig >> sh) == halves;
  }
  if (!exact) f |= flag::inexact;
  if (!exact && v.exp < 0) f |= flag::underflow;  // below E2M1's smallest normal, 1.0
  return {code, f};
}

std::array<std::uint16_t, 16> te_hadamard16(std::span<const std::uint16_t, 16> v, std::uint16_t sign_mask) {
  const Format& bf16 = format(FormatId::bf16);
  std::array<Unpacked, 16> x;
  bool any_nan = false;
  for (int k = 0; k < 16; ++k) {
    x[k] = unpack(bf16, v[k]);
    if ((sign_mask >> k) & 1) x[k].sign = !x[k].sign;  // s_k * v_k
    any_nan |= x[k].cls == ValueClass::nan;
  }
  Context rn;  // rne, overflow to Inf: cvt.rn.bf16x2.f32
  rn.saturation = Saturation::none;
  const Dialect& gpu = *find_dialect("transformer-engine");  // NaN: the GPU's 0x7FFF
  std::array<std::uint16_t, 16> out{};
  for (int j = 0; j < 16; ++j) {
    Unpacked sum;
    bool pos_inf = false, neg_inf = false;
    detail::WideAccumulator acc;
    for (int k = 0; k < 16; ++k) {
      const bool neg = x[k].sign != ((std::popcount(static_cast<unsigned>(k & j)) & 1) != 0);  // * H[k][j]
      if (x[k].cls == ValueClass::inf) (neg ? neg_inf : pos_inf) = true;
      else if (x[k].cls == ValueClass::finite) acc.add(neg, x[k].sig, x[k].exp - 63 - 2);  // / 4
    }
    if (any_nan || (pos_inf && neg_inf)) {
      sum = detail::nan_value();
    } else if (pos_inf || neg_inf) {
      sum.cls = ValueClass::inf;
      sum.sign = neg_inf;
    } else {
      sum = acc.to_unpacked();  // an exact zero is +0 (the accumulator starts at +0)
    }
    out[j] = static_cast<std::uint16_t>(round_pack(bf16, sum, rn, gpu).code);
  }
  return out;
}

}  // namespace softmx
