// emulator/block/scale_lanes.cpp: MX blocks whose scale is not E8M0 in vector lanes
// (BlockQuantizer::run_scale_lanes; docs/BLOCKS.md 1.3 gives the argument).
//
// A block of f32 values without Inf or NaN, with a finite positive scale S = S' 2^k (S' in
// [1, 2), k in [-36, 127]): every element is RO_f32(x / S') (simd/scale_fused.hpp's ro_vec,
// the true quotient rounded to odd at 24 bits), then rounded into the element by the vector
// kernel that E8M0 blocks use (VectorKernel), which multiplies by 2^-k exactly first. Rounding to odd at 24
// bits and then to an element of at most 4 significant bits gives what rounding the true
// quotient x / S once gives, in every deterministic mode, with the same flags; so the codes,
// flags and scale equal run_scale_format()'s. Every other block takes run_scale_format()'s
// scalar steps. The scale S itself comes from scale_code_f64 (f64 arithmetic and a round-to-odd
// step, block/scale_lanes.hpp) where the scale format's code layout allows it.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "block/block_quantizer.hpp"
#include "block/f32_arith.hpp"
#include "block/scale_lanes.hpp"
#include "core/kernels.hpp"
#include "softmx/convert.hpp"

namespace softmx::detail {

void BlockQuantizer::init_scale_lanes() {
  // f32 data into the MX element formats whose codes the lanes know at compile time (not
  // int8: fixed point). Stochastic rounding has no plan (make_plan), nor do policies the lanes
  // do not model.
  if (src_ != FormatId::f32 || isa_ == Isa::scalar || shift_ != 0) return;
  switch (ef_.id) {
    case FormatId::e2m1: case FormatId::e2m3: case FormatId::e3m2: case FormatId::e4m3: case FormatId::e5m2: break;
    default: return;
  }
  // The scale's significand must fit an f32's 24 bits (it does for every scale format of at most
  // 32 bits: f32 is the widest with the most fraction bits; checked all the same).
  if (o_.scale_format.format().man_bits > 23) return;
  const simd::ScaleKernels* kernels = simd::scale_kernels(isa_);
  if (!kernels) return;
  const Format& f32 = format(FormatId::f32);
  scale_plan_ = simd::make_plan(f32, ef_, ctx_, d_, kernels_for(f32, ef_, ctx_.rounding).one);
  if (scale_plan_) scale_quotient_ = kernels->pick_quotient(*scale_plan_);
  scale_f64_ = make_scale_f64(o_.scale_format.format(), max_element_, scale_min_code_);
  if (scale_f64_.max_e != 0) scale_blocks_ = kernels->block_scales;
}

ScaleF64 make_scale_f64(const Format& sf, const Unpacked& max_element, std::uint32_t min_code) {
  ScaleF64 c;
  if (!sf.subnormals || sf.fixed_point || sf.man_bits > 23 || sf.width > 32 ||
      (sf.sign != SignEncoding::none && sf.sign != SignEncoding::magnitude) || sf.specials == Specials::fnuz ||
      max_element.cls != ValueClass::finite || max_element.sign || (max_element.sig & 0x7FF) != 0 ||
      max_element.exp < -1000 || max_element.exp > 1000)
    return c;
  c.m = sf.man_bits;
  c.emin = sf.emin();
  c.bias = sf.bias;
  c.max_code = static_cast<std::uint32_t>(sf.max_finite_magnitude());
  c.min_code = min_code;
  // The code layout (E << m) | F: checked on the largest finite code, whose value must be
  // (2^m + F) 2^(E - bias - m).
  const Unpacked mx = unpack(sf, c.max_code);
  const std::uint32_t E = c.max_code >> c.m, F = c.max_code & ((1u << c.m) - 1);
  if (mx.cls != ValueClass::finite || mx.sign || E == 0 ||
      mx.exp != static_cast<int>(E) - c.bias || (mx.sig >> (63 - c.m)) != ((1ull << c.m) | F))
    return c;
  c.max_value = std::ldexp(static_cast<double>((1ull << c.m) | F), static_cast<int>(E) - c.bias - c.m);
  // The smallest positive code's value, by the same layout (E = 0: F 2^(emin - m)).
  if (min_code == 0 || min_code > c.max_code) return c;
  const std::uint32_t Emin = min_code >> c.m, Fmin = min_code & ((1u << c.m) - 1);
  c.min_value = Emin != 0 ? std::ldexp(static_cast<double>((1ull << c.m) | Fmin), static_cast<int>(Emin) - c.bias - c.m)
                          : std::ldexp(static_cast<double>(Fmin), c.emin - c.m);
  c.max_e = std::ldexp(static_cast<double>(max_element.sig >> 11), max_element.exp - 52);
  return c;
}

std::uint32_t scale_code_f64(const ScaleF64& c, std::uint32_t amax_bits) {
  const double a = static_cast<double>(std::bit_cast<float>(amax_bits));
  double q = a / c.max_e;
  const double r = std::fma(-q, c.max_e, a);  // a - q max_E, exact
  // Without branches (r's sign is data): (q - [r < 0]) | [r != 0] is q, q | 1 or (q - 1) | 1.
  const std::uint64_t qb = (std::bit_cast<std::uint64_t>(q) - static_cast<std::uint64_t>(r < 0)) |
                           static_cast<std::uint64_t>(r != 0);
  q = std::bit_cast<double>(qb);
  const int e = std::max(static_cast<int>(qb >> 52) - 1023, c.emin);
  const double C = std::bit_cast<double>(static_cast<std::uint64_t>(e - c.m + 52 + 1023) << 52);
  const double v = (q + C) - C;  // RN_p(q) at the scale format's quantum 2^(e - m), exact
  if (v == 0) return c.min_code;
  if (v > c.max_value) return c.max_code;
  const std::uint64_t vb = std::bit_cast<std::uint64_t>(v);
  const int ev = static_cast<int>(vb >> 52) - 1023;
  if (ev < c.emin)  // a subnormal: v / 2^(emin - m), an integer below 2^m
    return static_cast<std::uint32_t>(std::ldexp(v, c.m - c.emin));
  const std::uint32_t frac = static_cast<std::uint32_t>((vb >> (52 - c.m)) & ((1ull << c.m) - 1));
  return (static_cast<std::uint32_t>(ev + c.bias) << c.m) | frac;
}

bool BlockQuantizer::scale_of_block(const std::uint32_t* x, std::size_t count, std::uint32_t& S_out, float& s,
                                    int& k) const {
  const std::uint32_t mx = simd::max_magnitude_bits(x, count, 32, isa_);
  if (mx >= 0x7F800000u || mx == 0) return false;  // Inf or NaN (the block's policies), or a zero block
  // The scale as run_scale_format() forms it: RN(amax / max_E), saturating, and the smallest
  // positive scale for one that rounds to zero.
  const Format& sf = o_.scale_format;
  if (scale_f64_.max_e != 0) {
    // scale_code_f64 (the caller checked the FPU's mode), and S = s 2^k read from the code.
    const std::uint32_t S = scale_code_f64(scale_f64_, mx);
    const ScaleF64& c = scale_f64_;
    const std::uint32_t E = S >> c.m, F = S & ((1u << c.m) - 1);
    // s = significand / 2^top in [1, 2), exact: the f32 of 2^top's bits is (127 + top) << 23.
    const std::uint32_t sig = E != 0 ? ((1u << c.m) | F) : F;  // F != 0 for a subnormal (min_code > 0)
    const int top = std::bit_width(sig) - 1;
    k = E != 0 ? static_cast<int>(E) - c.bias : c.emin - c.m + top;
    s = static_cast<float>(sig) / std::bit_cast<float>(static_cast<std::uint32_t>(127 + top) << 23);
    if (k < -36 || k > 127) return false;  // ro_vec's stand-in for tiny values needs k >= -36
    S_out = S;
    return true;
  }
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = Saturation::finite;
  std::uint32_t S = static_cast<std::uint32_t>(
      round_pack(sf, exact_quotient(unpack_inline(format(FormatId::f32), mx), max_element_), c, ocp_dialect()).code);
  Unpacked scale = unpack_inline(sf, S);
  if (scale.cls != ValueClass::finite) {
    S = scale_min_code_;
    scale = unpack_inline(sf, S);
  }
  if (scale.cls != ValueClass::finite || scale.sign) return false;
  // S = s 2^k with s = sig / 2^63 in [1, 2) (at most 24 significant bits: exact in f32).
  k = scale.exp;
  if (k < -36 || k > 127) return false;  // ro_vec's stand-in for tiny values needs k >= -36
  s = static_cast<float>(scale.sig >> 40) * 0x1p-23f;
  S_out = S;
  return true;
}

bool BlockQuantizer::run_scale_lanes(const void* values, std::size_t count, std::uint8_t* codes, Flags& flags,
                                     std::uint32_t& S_out) {
  if (!simd::scale_fpu_default()) return false;
  const auto* x = static_cast<const std::uint32_t*>(values);
  float s = 0;
  int k = 0;
  if (!scale_of_block(x, count, S_out, s, k)) return false;
  flags |= scale_quotient_(*scale_plan_, x, 1, count, &s, &k, nullptr, nullptr, codes);
  if (negative_zero_)
    for (std::size_t i = 0; i < count; ++i)
      if (codes[i] == negative_zero_) codes[i] = 0;
  return true;
}

void BlockQuantizer::run_blocks_scale(const void* values, std::size_t blocks, std::size_t k, std::uint8_t* scales,
                                      std::uint8_t* codes, Flags& flags) {
  const auto* x = static_cast<const std::uint32_t*>(values);
  // Chunks of blocks (16 KiB of f32 data: the second pass reads them from L1): the scales first
  // (in f64 lanes, with each block's largest and smallest magnitude, or scalar), then one kernel
  // call for the chunk's blocks that the lanes take (s = 0 marks the others, which run() does
  // one by one).
  constexpr std::size_t kChunk = 128;
  std::array<float, kChunk> s;
  std::array<int, kChunk> shift;
  std::array<std::uint32_t, kChunk> S, amax, amin;
  for (std::size_t c0 = 0; c0 < blocks; c0 += kChunk) {
    const std::size_t n = std::min(kChunk, blocks - c0);
    const bool fpu = simd::scale_fpu_default();
    bool ranges = false;  // amax and amin filled (the kernel then does not look for them)
    if (!fpu) {
      s.fill(0);
    } else if (scale_blocks_) {  // scale_of_block's f64 route in lanes across blocks
      scale_blocks_(scale_f64_, x + c0 * k, n, k, S.data(), s.data(), shift.data(), amax.data(), amin.data());
      ranges = true;
    } else {
      for (std::size_t b = 0; b < n; ++b)
        if (!scale_of_block(x + (c0 + b) * k, k, S[b], s[b], shift[b])) s[b] = 0;
    }
    flags |= scale_quotient_(*scale_plan_, x + c0 * k, n, k, s.data(), shift.data(), ranges ? amax.data() : nullptr,
                             ranges ? amin.data() : nullptr, codes + c0 * k);
    for (std::size_t b = 0; b < n; ++b) {
      if (s[b] == 0) S[b] = run(x + (c0 + b) * k, k, nullptr, codes + (c0 + b) * k, flags);
      store_scale_code(scales, c0 + b, scale_bytes_, S[b]);
    }
    if (negative_zero_)
      for (std::size_t i = c0 * k; i < (c0 + n) * k; ++i)
        if (codes[i] == negative_zero_) codes[i] = 0;
  }
}

}  // namespace softmx::detail

namespace softmx::detail {

std::optional<Flags> dequantize_scale_lanes(const Format& ef, const ScaleFormat& scale_format, const Context& ctx,
                                            const Dialect& dialect, Isa isa, const std::uint8_t* scales,
                                            const std::uint8_t* codes, std::size_t n, std::size_t k,
                                            std::uint32_t* out, Flags* flags) {
  if (isa == Isa::scalar || ctx.rounding != Rounding::rne || dialect.nearest_ties != NearestTies::even ||
      dialect.zero_sign != ZeroSign::keep || dialect.block.int8_integer_elements || ef.width > 8 || k == 0)
    return std::nullopt;
  const simd::ScaleKernels* kern = simd::scale_kernels(isa);
  if (!kern || !simd::scale_fpu_default()) return std::nullopt;
  const Format& f32 = format(FormatId::f32);
  const Format& sf = scale_format;
  // Every code's value as an f32 (exact: at most 8 bits); NaN marks what the lanes leave to the
  // reference (NaN, Inf, a value f32 cannot hold, a byte beyond the format's codes).
  alignas(64) std::array<float, 256> tab;
  tab.fill(std::numeric_limits<float>::quiet_NaN());
  Context exact;
  exact.saturation = Saturation::none;
  for (std::uint32_t c = 0; c < (1u << ef.width); ++c) {
    const Unpacked u = unpack(ef, c);
    if (u.cls != ValueClass::finite && u.cls != ValueClass::zero) continue;
    const Result r = round_pack(f32, u, exact, ocp_dialect());
    if (r.flags) continue;
    tab[c] = std::bit_cast<float>(static_cast<std::uint32_t>(r.code));
  }
  const std::size_t sbytes = scale_format.code_bytes();
  // The one-multiply form (ScaleKernels::scaled_blocks_f32) takes a block when its scale is an
  // f32 and keeps every product of a non-zero element value in the normal range: the table's
  // smallest non-zero and largest magnitudes, and the most significant bits of its values (pe).
  // A product of pe + ps <= 24 bits (ps: the scale's) is exact in f32 (not wide).
  double tmin = std::numeric_limits<double>::infinity(), tmax = 0;
  int pe = 0;
  for (unsigned c = 0; c < 256; ++c) {
    const float v = tab[c];
    if (v != v || v == 0) continue;
    const double a = std::fabs(static_cast<double>(v));
    tmin = std::min(tmin, a);
    tmax = std::max(tmax, a);
    // The significant bits of a normal v (a subnormal one, which no element of up to 8 bits
    // has, counts as 24).
    const std::uint32_t sig = (std::bit_cast<std::uint32_t>(v) & 0x7FFFFFu) | 0x800000u;
    pe = std::max(pe, a >= 0x1p-126 ? 24 - std::countr_zero(sig) : 24);
  }
  const bool wide = pe + sf.man_bits + 1 > 24;
  const double lo = wide ? 0x1p-100 : 0x1p-126, flt_max = std::numeric_limits<float>::max();
  const unsigned ncodes = ef.width <= 4 ? 16u : 256u;
  // Chunks of blocks: their f32 scales (NaN: not the one-multiply form), the kernel, then the
  // blocks it left (bstatus 2) the old way and the flags of the others.
  const std::size_t chunk = std::max<std::size_t>(1, 4096 / k);
  std::vector<std::uint8_t> status(std::max(k, chunk * k)), bstatus(chunk), pstatus(k);
  std::vector<float> sf32(chunk);
  Flags all = 0;
  auto reference = [&](std::uint32_t scale, std::size_t i) {
    const Result r = dequantize_element(ef, scale_format, scale, codes[i], FormatId::f32, ctx, dialect);
    out[i] = static_cast<std::uint32_t>(r.code);
    if (flags) flags[i] = r.flags;
    all |= r.flags;
  };
  // A scale's f32 value for the one-multiply form, or NaN where that form does not take it
  // (one-byte scale codes: all 256 made once).
  auto fast_of = [&](std::uint32_t scale) {
    if (scale > sf.code_mask()) return std::numeric_limits<float>::quiet_NaN();
    const Unpacked s = unpack_inline(sf, scale);
    if (s.cls == ValueClass::zero) return s.sign ? -0.0f : 0.0f;
    if (s.cls != ValueClass::finite || s.exp < -1000 || s.exp > 1000) return std::numeric_limits<float>::quiet_NaN();
    // value(S) exactly in f64 (at most 24 significant bits; s.sig has its leading bit at 63),
    // taken when it is an f32.
    const double sv = std::bit_cast<double>((static_cast<std::uint64_t>(s.exp + 1023) << 52) | ((s.sig << 1) >> 12));
    const float f = static_cast<float>(sv);
    if (static_cast<double>(f) == sv && sv * tmin >= lo && sv * tmax <= flt_max) return s.sign ? -f : f;
    return std::numeric_limits<float>::quiet_NaN();
  };
  std::array<float, 256> fast_scale{};
  if (sbytes == 1)
    for (std::uint32_t c = 0; c < 256; ++c) fast_scale[c] = fast_of(c);
  // Wider scale codes by their fields (make_scale_f64's layout: (E << m) | F below the largest
  // finite magnitude, a sign bit on top for sign-magnitude formats), without unpack; checked
  // against fast_of on 2^8 codes spread over the format (both ends included), else fast_of.
  Unpacked one_unp;
  one_unp.cls = ValueClass::finite;
  one_unp.sig = 1ull << 63;
  const ScaleF64 lay = make_scale_f64(sf, one_unp, 1);
  const bool sm = sf.sign == SignEncoding::magnitude;
  const std::uint32_t mag_mask = sm ? (1u << (sf.width - 1)) - 1 : static_cast<std::uint32_t>(sf.code_mask());
  // The magnitudes [mag_lo, mag_hi] whose value fast_of takes (values rise with the magnitude
  // code): found by bisection on fast_of's own test, then narrowed so that every value in
  // between has an f32 exponent field in [1, 254] (E != 0) or is F 2^(emin - m) with that
  // step an f32 (E = 0).
  auto value_of = [&](std::uint32_t mag) {
    const std::uint32_t E = mag >> lay.m, F = mag & ((1u << lay.m) - 1);
    return E != 0 ? std::ldexp(static_cast<double>((1u << lay.m) | F), static_cast<int>(E) - lay.bias - lay.m)
                  : std::ldexp(static_cast<double>(F), lay.emin - lay.m);
  };
  std::uint32_t mag_lo = 1, mag_hi = 0;
  const float sub_step = std::ldexp(1.0f, lay.emin - lay.m);
  if (lay.max_e != 0 && sbytes > 1) {
    auto first_true = [&](auto pred) {  // the smallest mag in [1, max_code + 1] with pred (monotone)
      std::uint32_t l = 1, h = lay.max_code + 1;
      while (l < h) {
        const std::uint32_t mid = l + (h - l) / 2;
        if (pred(mid)) h = mid; else l = mid + 1;
      }
      return l;
    };
    mag_lo = first_true([&](std::uint32_t g) { return value_of(g) * tmin >= lo && value_of(g) >= 0x1p-149; });
    mag_hi = first_true([&](std::uint32_t g) { return !(value_of(g) * tmax <= flt_max && value_of(g) <= flt_max); }) - 1;
    if (lay.emin - lay.m < -149) mag_lo = std::max(mag_lo, 1u << lay.m);          // subnormal steps below f32's
    mag_lo = std::max<std::uint32_t>(mag_lo, static_cast<std::uint32_t>(std::max(0, lay.bias - 126)) << lay.m);
    if (static_cast<int>(mag_hi >> lay.m) - lay.bias > 127) mag_hi = 0;            // not expected: no fields route
  }
  auto fields_of = [&](std::uint32_t scale) {
    const std::uint32_t mag = scale & mag_mask;
    const bool neg = sm && (scale >> (sf.width - 1)) != 0;
    if (scale > sf.code_mask()) return std::numeric_limits<float>::quiet_NaN();
    if (mag == 0) return neg ? -0.0f : 0.0f;
    if (mag < mag_lo || mag > mag_hi) return std::numeric_limits<float>::quiet_NaN();
    const std::uint32_t E = mag >> lay.m, F = mag & ((1u << lay.m) - 1);
    const float f = E != 0 ? std::bit_cast<float>(((E + 127 - lay.bias) << 23) | (F << (23 - lay.m)))
                           : static_cast<float>(F) * sub_step;
    return neg ? -f : f;
  };
  bool by_fields = sbytes > 1 && lay.max_e != 0 && mag_lo <= mag_hi;
  if (by_fields) {
    const std::uint64_t top = sf.code_mask();
    for (std::uint64_t c = 0; c <= top && by_fields; c += std::max<std::uint64_t>(1, top >> 7)) {
      for (const std::uint64_t code : {c, top - c}) {
        const float a = fields_of(static_cast<std::uint32_t>(code)), b = fast_of(static_cast<std::uint32_t>(code));
        if (std::bit_cast<std::uint32_t>(a) != std::bit_cast<std::uint32_t>(b) && !(a != a && b != b)) by_fields = false;
      }
    }
  }
  // fields_of's steps in lanes (ScaleKernels::scale_values_f32), for the chunks' scales.
  simd::ScaleFields fields;
  fields.code_mask = static_cast<std::uint32_t>(sf.code_mask());
  fields.mag_mask = mag_mask;
  fields.mag_lo = mag_lo;
  fields.mag_hi = mag_hi;
  fields.sign_shift = sm ? static_cast<std::uint32_t>(sf.width - 1) : 32u;
  fields.m = lay.m;
  fields.bias = lay.bias;
  fields.sub_step = sub_step;
  const std::size_t nblocks = (n + k - 1) / k;
  for (std::size_t b0 = 0; b0 < nblocks; b0 += chunk) {
    const std::size_t nb = std::min(chunk, nblocks - b0), first0 = b0 * k, len0 = std::min(n - first0, nb * k);
    if (sbytes == 1)
      for (std::size_t j = 0; j < nb; ++j) sf32[j] = fast_scale[scales[b0 + j]];
    else if (by_fields)
      kern->scale_values_f32(fields, scales + b0 * sbytes, nb, static_cast<unsigned>(sbytes), sf32.data());
    else
      for (std::size_t j = 0; j < nb; ++j) sf32[j] = fast_of(load_scale_code(scales, b0 + j, sbytes));
    const std::uint8_t chunk_any = kern->scaled_blocks_f32(tab.data(), ncodes, codes + first0, len0, k, sf32.data(), wide,
                                                           out + first0, flags ? status.data() : nullptr,
                                                           bstatus.data());
    if (!flags && chunk_any < 2) {  // every block done, no flags per element wanted: nothing left per block
      if (chunk_any) all |= flag::inexact;
      continue;
    }
    for (std::size_t j = 0; j < nb; ++j) {
      const std::size_t first = first0 + j * k, len = std::min(k, n - first);
      if (bstatus[j] == 0) {
        if (flags) std::fill(flags + first, flags + first + len, Flags{0});
        continue;
      }
      if (bstatus[j] == 1) {
        all |= flag::inexact;
        if (flags)
          for (std::size_t i = 0; i < len; ++i) flags[first + i] = status[j * k + i] ? flag::inexact : 0;
        continue;
      }
      const std::uint32_t scale = load_scale_code(scales, b0 + j, sbytes);
      const Unpacked s = scale <= sf.code_mask() ? unpack_inline(sf, scale) : Unpacked{ValueClass::nan};
      if (s.cls != ValueClass::finite && s.cls != ValueClass::zero) {
        for (std::size_t i = first; i < first + len; ++i) reference(scale, i);
        continue;
      }
      // value(S) exactly in f64 (at most 24 significant bits).
      const double sv = s.cls == ValueClass::zero ? 0.0 : std::ldexp(static_cast<double>(s.sig >> 40), s.exp - 23);
      const double sd = s.sign ? -sv : sv;
      const std::uint8_t any = kern->products_f32(tab.data(), ncodes, codes + first, len, sd, out + first, pstatus.data());
      if (!flags && any < 2) {  // every element done, inexact at most
        all |= any ? flag::inexact : 0;
        continue;
      }
      Flags f = 0;
      for (std::size_t i = 0; i < len; ++i) {
        if (pstatus[i] == 2) {
          reference(scale, first + i);
          continue;
        }
        const Flags fi = pstatus[i] ? flag::inexact : 0;
        if (flags) flags[first + i] = fi;
        f |= fi;
      }
      all |= f;
    }
  }
  return all;
}

}  // namespace softmx::detail
