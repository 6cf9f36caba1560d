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
  flags |= scale_quotient_(*scale_plan_, x, 1, count, &s, &k, codes);
  if (negative_zero_)
    for (std::size_t i = 0; i < count; ++i)
      if (codes[i] == negative_zero_) codes[i] = 0;
  return true;
}

void BlockQuantizer::run_blocks_scale(const void* values, std::size_t blocks, std::size_t k, std::uint8_t* scales,
                                      std::uint8_t* codes, Flags& flags) {
  const auto* x = static_cast<const std::uint32_t*>(values);
  // Chunks of blocks: the scales first (scalar), then one kernel call for the chunk's blocks
  // that the lanes take (s = 0 marks the others, which run() does one by one).
  constexpr std::size_t kChunk = 128;
  std::array<float, kChunk> s;
  std::array<int, kChunk> shift;
  std::array<std::uint32_t, kChunk> S;
  for (std::size_t c0 = 0; c0 < blocks; c0 += kChunk) {
    const std::size_t n = std::min(kChunk, blocks - c0);
    const bool fpu = simd::scale_fpu_default();
    for (std::size_t b = 0; b < n; ++b)
      if (!fpu || !scale_of_block(x + (c0 + b) * k, k, S[b], s[b], shift[b])) s[b] = 0;
    flags |= scale_quotient_(*scale_plan_, x + c0 * k, n, k, s.data(), shift.data(), codes + c0 * k);
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
  // One-byte scale codes already have the Dequantizer's tables (a row per scale code, read by
  // code), which bench_block_scales measured faster than these lanes for 4-bit elements on
  // both instruction sets and for 8-bit ones on AVX2 (gathers): the lanes take them only for
  // 8-bit elements on AVX-512.
  if (sbytes == 1 && !(isa == Isa::avx512 && ef.width > 4)) return std::nullopt;
  std::vector<std::uint8_t> status(k);
  Flags all = 0;
  auto reference = [&](std::uint32_t scale, std::size_t i) {
    const Result r = dequantize_element(ef, scale_format, scale, codes[i], FormatId::f32, ctx, dialect);
    out[i] = static_cast<std::uint32_t>(r.code);
    if (flags) flags[i] = r.flags;
    all |= r.flags;
  };
  for (std::size_t b = 0, first = 0; first < n; ++b, first += k) {
    const std::size_t len = n - first < k ? n - first : k;
    const std::uint32_t scale = load_scale_code(scales, b, sbytes);
    const Unpacked s = scale <= sf.code_mask() ? unpack_inline(sf, scale) : Unpacked{ValueClass::nan};
    if (s.cls != ValueClass::finite && s.cls != ValueClass::zero) {
      for (std::size_t i = first; i < first + len; ++i) reference(scale, i);
      continue;
    }
    // value(S) exactly in f64 (at most 24 significant bits).
    const double sv = s.cls == ValueClass::zero ? 0.0
                                                 : std::ldexp(static_cast<double>(s.sig >> 40), s.exp - 23);
    const double sd = s.sign ? -sv : sv;
    const std::uint8_t any = kern->products_f32(tab.data(), ef.width <= 4 ? 16u : 256u, codes + first, len, sd, out + first, status.data());
    if (!flags && any < 2) {  // every element done, inexact at most
      all |= any ? flag::inexact : 0;
      continue;
    }
    Flags f = 0;
    for (std::size_t j = 0; j < len; ++j) {
      if (status[j] == 2) {
        reference(scale, first + j);
        continue;
      }
      const Flags fj = status[j] ? flag::inexact : 0;
      if (flags) flags[first + j] = fj;
      f |= fj;
    }
    all |= f;
  }
  return all;
}

}  // namespace softmx::detail
