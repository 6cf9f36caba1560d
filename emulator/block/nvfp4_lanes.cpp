// emulator/block/nvfp4_lanes.cpp: NVFP4 (softmx/nvfp4.hpp) for f32 data in vector lanes, the
// same results as nvfp4.cpp's scalar steps (docs/BLOCKS.md 1.3 and 6).
//
// Quantization: every step of TransformerEngine's is one IEEE f32 operation rounded to nearest
// even (nvfp4_steps.hpp), which the host's FPU performs identically in its default mode (round
// to nearest even, gradual underflow: checked per call) for finite operands:
//   d_b = fminf(bmax_b * RN(S_enc RN(1/6)), FLT_MAX)   one f32 multiply per block
//   S_dec_b = e4m3_satfinite(d_b)                      the f32 -> E4M3 vector kernel (with flags)
//   m_b = multiplier(S_dec_b)                          nvfp4_steps' scalar steps, once per scale code
//   x * m_b                                            one f32 multiply per element
//   e2m1_satfinite(x * m_b)                            the f32 -> E2M1 vector kernel (with flags)
// The vector conversion kernels are the scalar round_pack by construction (simd/lanes.hpp).
// A tensor holding Inf or NaN, or a non-finite m_b, takes the scalar steps (their NaN handling
// is nvfp4.cpp's). When the blocked axis is a multiple of 16, the blocks' amax come first (their
// largest is the tensor's), and the products x * m_b go chunk by chunk through the MX quotient
// kernel with s = 1 and shift 0, which ORs the flags (docs/BLOCKS.md 1.3 and 6).
//
// Dequantization (exact form) into f32: the result of an element depends only on its code and
// its block's scale code (S_enc is the tensor's), so each scale code's 16 results are made once
// by nvfp4::exact_element, the scalar reference, and read by code (a block is one permutation of
// its row in lanes, simd/scale_lanes.hpp's rows16_u32).
#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <memory>
#include <vector>

#include "block/nvfp4_steps.hpp"
#include "core/kernels.hpp"
#include "simd/plan.hpp"
#include "simd/scale_kernels.hpp"

namespace softmx::detail::nvfp4 {
namespace {

constexpr std::size_t kBlock = 16;

// The f32 -> dst (rne, satfinite, ocp) conversion kernel with flags on `isa`, and its plan.
struct Rounder {
  std::optional<simd::Plan> plan;
  simd::BatchFn fn = nullptr;
  Rounder(FormatId dst, Isa isa) {
    Context c;
    c.saturation = Saturation::finite;
    const Format& f32 = format(FormatId::f32);
    const Format& d = format(dst);
    plan = simd::make_plan(f32, d, c, ocp_dialect(), kernels_for(f32, d, Rounding::rne).one);
    if (plan) fn = simd::batch_kernel(*plan, isa, true);
  }
  Flags run(const std::uint32_t* in, std::uint8_t* out, std::uint8_t* fl, std::size_t n) const {
    fn(*plan, in, out, fl, n, 0);
    Flags f = 0;
    for (std::size_t i = 0; i < n; ++i) f |= fl[i];
    return f;
  }
};

}  // namespace

std::optional<Nvfp4Tensor> quantize_lanes(const std::uint32_t* x, std::span<const std::size_t> shape, std::size_t axis,
                                          const Nvfp4Options& o, Isa isa) {
  if (isa == Isa::scalar || !simd::scale_kernels(isa) || !simd::scale_fpu_default()) return std::nullopt;
  std::size_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  const std::size_t len = shape[axis], n = outer * len, nb = (len + kBlock - 1) / kBlock;
  if (n == 0) return std::nullopt;
  // Whole blocks of 16 one after another (len a multiple of 16): each block's largest
  // magnitude first, and the tensor's is the largest of those (one pass over the data).
  const simd::ScaleKernels* kern = simd::scale_kernels(isa);
  const bool whole = len % kBlock == 0;
  const std::size_t blocks = outer * nb;
  // Per block: d_b's bits (and, for whole blocks, pass 1's largest and smallest magnitudes,
  // which the fused pass reads instead of finding them again). Written before read: not zeroed.
  // (new T[n] default-initializes: make_unique_for_overwrite's effect, which not every standard
  // library of the CI's compilers has.)
  const std::unique_ptr<std::uint32_t[]> d(new std::uint32_t[blocks]);
  const std::unique_ptr<std::uint32_t[]> bmax(new std::uint32_t[whole ? blocks : 0]);
  const std::unique_ptr<std::uint32_t[]> bmin(new std::uint32_t[whole ? blocks : 0]);
  std::uint32_t mx = 0;
  if (whole) {
    mx = kern->block_range16(x, blocks, bmax.get(), bmin.get());
  } else {
    mx = simd::max_magnitude_bits(x, n, 32, isa);
  }
  if (mx >= 0x7F800000u) return std::nullopt;  // Inf or NaN: the scalar steps
  const Rounder to_e4m3(FormatId::e4m3, isa), to_e2m1(FormatId::e2m1, isa);
  if (!to_e4m3.fn || !to_e2m1.fn) return std::nullopt;

  // The tensor's scales, as nvfp4.cpp forms them (gmax of finite values: the largest magnitude).
  const Unpacked gmax = o.global_amax ? f32_value(*o.global_amax) : unpack(format(FormatId::f32), mx);
  Nvfp4Tensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.axis = axis;
  t.global_amax = std::bit_cast<std::uint32_t>(to_float(gmax));
  const Unpacked s_enc = encode_scale(gmax);
  t.encode_scale = std::bit_cast<std::uint32_t>(to_float(s_enc));
  const Unpacked enc_over_6 = mul_f32(s_enc, sixth());
  const Unpacked rcp_enc = div_f32(f32_value(1.0f), s_enc);
  t.scale_shape = t.shape;
  t.scale_shape[axis] = nb;
  t.scales.resize(outer * nb);
  t.codes.resize(n);

  // d_b per block (block_scale's multiply and fminf), then S_dec_b in lanes.
  const float e6 = to_float(enc_over_6);
  auto d_of = [e6](std::uint32_t bm) {
    const float db = std::bit_cast<float>(bm) * e6;
    return std::bit_cast<std::uint32_t>(db > std::numeric_limits<float>::max() ? std::numeric_limits<float>::max() : db);
  };
  if (whole) {
    for (std::size_t b = 0; b < blocks; ++b) d[b] = d_of(bmax[b]);
  } else {
    for (std::size_t o2 = 0; o2 < outer; ++o2)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::uint32_t* v = x + o2 * len + b * kBlock;
        const std::size_t count = std::min(kBlock, len - b * kBlock);
        std::uint32_t bm = 0;  // +0: the padding's zeros change nothing
        for (std::size_t j = 0; j < count; ++j) bm = std::max(bm, v[j] & 0x7FFFFFFFu);
        d[o2 * nb + b] = d_of(bm);
      }
  }
  std::vector<std::uint8_t> fl(std::max<std::size_t>(16 * kBlock, blocks));
  t.flags |= to_e4m3.run(d.get(), t.scales.data(), fl.data(), blocks);

  // m_b per scale code (the scalar steps), then x * m_b, then the elements in lanes.
  std::array<float, 256> m{};
  std::array<bool, 256> made{};
  // Whole blocks one after another (len a multiple of 16): chunks of blocks whose products
  // x * m_b go through the MX quotient kernel with s = 1 and shift 0 (simd/scale_fused.hpp:
  // RO_f32(p / 1) is p itself for a zero or normal p, and the stand-in for |p| < 2^-100 rounds
  // as p does, docs/BLOCKS.md 1.3), which ORs the flags instead of making them per element; a
  // block whose products reach Inf takes the conversion kernel with flags.
  const simd::QuotientFn quotient = kern->pick_quotient(*to_e2m1.plan);
  const simd::MulRoundFn mul_round = kern->pick_mul_round(*to_e2m1.plan);
  if (quotient && whole) {
    // m_b for every scale code in use first, so that the chunks only read them.
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint8_t sc = t.scales[b];
      if (made[sc]) continue;
      const Unpacked mb = multiplier(unpack(format(FormatId::e4m3), sc), s_enc, rcp_enc, o.multiplier);
      if (mb.cls == ValueClass::nan || mb.cls == ValueClass::inf) return std::nullopt;
      m[sc] = to_float(mb);
      made[sc] = true;
    }
    constexpr std::size_t kChunk = 256;
    alignas(64) std::array<std::uint32_t, kChunk * kBlock> p;
    std::array<float, kChunk> one, mj, gone;
    std::array<int, kChunk> shift{};
    for (std::size_t g0 = 0; g0 < blocks; g0 += kChunk) {
      const std::size_t cn = std::min(kChunk, blocks - g0);
      for (std::size_t j = 0; j < cn; ++j) mj[j] = m[t.scales[g0 + j]];
      std::uint8_t* codes = t.codes.data() + g0 * kBlock;
      const std::size_t groups = cn / 16;
      if (mul_round) {
        // Groups of 16 blocks in one fused pass (multiply, round); a group with a product at
        // Inf or NaN, and the blocks past the last whole group, as below.
        std::array<std::uint8_t, kChunk / 16> skip;
        t.flags |= mul_round(*to_e2m1.plan, x + g0 * kBlock, groups, mj.data(), bmax.get() + g0, bmin.get() + g0, codes,
                             skip.data());
        for (std::size_t gi = 0; gi < groups; ++gi)
          if (skip[gi]) {
            kern->products16(x + (g0 + gi * 16) * kBlock, mj.data() + gi * 16, 16, p.data(), one.data());
            t.flags |= to_e2m1.run(p.data(), codes + gi * 16 * kBlock, fl.data(), 16 * kBlock);
          }
        const std::size_t rest = groups * 16;
        if (rest < cn) {
          kern->products16(x + (g0 + rest) * kBlock, mj.data() + rest, cn - rest, p.data(), one.data());
          t.flags |= quotient(*to_e2m1.plan, p.data(), cn - rest, kBlock, one.data(), shift.data(), nullptr, nullptr,
                              codes + rest * kBlock);
          for (std::size_t j = 0; j < cn - rest; ++j)
            if (one[j] == 0) t.flags |= to_e2m1.run(p.data() + j * kBlock, codes + (rest + j) * kBlock, fl.data(), kBlock);
        }
        continue;
      }
      kern->products16(x + g0 * kBlock, mj.data(), cn, p.data(), one.data());
      // The products in groups of 16 blocks (256 values, one kernel block each: with s = 1 and
      // shift 0 an element's code and flags do not depend on its neighbours), a group with a
      // product at Inf or NaN through the conversion kernel; the blocks past the last whole
      // group one by one.
      for (std::size_t gi = 0; gi < groups; ++gi) {
        float ok = 1.0f;
        for (std::size_t j = 0; j < 16; ++j) ok = one[gi * 16 + j] == 0 ? 0.0f : ok;
        gone[gi] = ok;
      }
      t.flags |= quotient(*to_e2m1.plan, p.data(), groups, 16 * kBlock, gone.data(), shift.data(), nullptr, nullptr,
                          codes);
      for (std::size_t gi = 0; gi < groups; ++gi)
        if (gone[gi] == 0)
          t.flags |= to_e2m1.run(p.data() + gi * 16 * kBlock, codes + gi * 16 * kBlock, fl.data(), 16 * kBlock);
      const std::size_t rest = groups * 16;
      t.flags |= quotient(*to_e2m1.plan, p.data() + rest * kBlock, cn - rest, kBlock, one.data() + rest, shift.data(),
                          nullptr, nullptr, codes + rest * kBlock);
      for (std::size_t j = rest; j < cn; ++j)
        if (one[j] == 0) t.flags |= to_e2m1.run(p.data() + j * kBlock, codes + j * kBlock, fl.data(), kBlock);
    }
    return t;
  }
  std::vector<std::uint32_t> p(n);
  for (std::size_t o2 = 0; o2 < outer; ++o2)
    for (std::size_t b = 0; b < nb; ++b) {
      const std::uint8_t sc = t.scales[o2 * nb + b];
      if (!made[sc]) {
        const Unpacked mb = multiplier(unpack(format(FormatId::e4m3), sc), s_enc, rcp_enc, o.multiplier);
        if (mb.cls == ValueClass::nan || mb.cls == ValueClass::inf) return std::nullopt;
        m[sc] = to_float(mb);
        made[sc] = true;
      }
      const float mb = m[sc];
      const std::size_t first = o2 * len + b * kBlock, count = std::min(kBlock, len - b * kBlock);
      for (std::size_t j = first; j < first + count; ++j) p[j] = std::bit_cast<std::uint32_t>(std::bit_cast<float>(x[j]) * mb);
    }
  fl.resize(std::max(n, fl.size()));
  t.flags |= to_e2m1.run(p.data(), t.codes.data(), fl.data(), n);
  return t;
}

Flags dequantize_lanes(const Nvfp4Tensor& t, const Unpacked& s_enc, std::uint32_t* out, const Context& ctx, Isa isa) {
  const std::size_t len = t.shape[t.axis], nb = (len + kBlock - 1) / kBlock;
  const std::size_t outer = len ? t.codes.size() / len : 0;
  const Format& f32 = format(FormatId::f32);
  std::vector<std::uint32_t> rows(256 * 16);
  std::vector<Flags> row_flags(256 * 16);
  std::array<Flags, 256> any{};
  std::array<bool, 256> made{};
  Flags flags = 0;
  auto make = [&](std::uint8_t sc) {
    for (unsigned c = 0; c < 16; ++c) {
      const Result r = exact_element(static_cast<std::uint8_t>(c), sc, s_enc, f32, ctx);
      rows[sc * 16 + c] = static_cast<std::uint32_t>(r.code);
      row_flags[sc * 16 + c] = r.flags;
      any[sc] |= r.flags;
    }
    made[sc] = true;
  };
  // Whole blocks one after another (len a multiple of 16): every used row made first, then the
  // kernel reads them and ORs their flags (simd/scale_lanes.hpp's rows16_u32); a block it leaves
  // (a code beyond 15) goes through the loop below, then the kernel goes on.
  const simd::ScaleKernels* kern = isa == Isa::scalar ? nullptr : simd::scale_kernels(isa);
  if (kern && len % kBlock == 0) {
    const std::size_t blocks = outer * nb;
    for (std::size_t g = 0; g < blocks; ++g)
      if (!made[t.scales[g]]) make(t.scales[g]);
    std::vector<std::uint8_t> fbytes(256 * 16);
    for (std::size_t i = 0; i < fbytes.size(); ++i) fbytes[i] = static_cast<std::uint8_t>(row_flags[i]);
    for (std::size_t g = 0; g < blocks;) {
      std::uint8_t f = 0;
      g = kern->rows16_u32(rows.data(), fbytes.data(), t.scales.data(), t.codes.data(), g, blocks, out, &f);
      flags |= f;
      if (g == blocks) break;
      const std::uint8_t sc = t.scales[g];
      for (std::size_t i = g * kBlock; i < (g + 1) * kBlock; ++i) {
        const Result r = t.codes[i] < 16 ? Result{rows[sc * 16 + t.codes[i]], row_flags[sc * 16 + t.codes[i]]}
                                         : exact_element(t.codes[i], sc, s_enc, f32, ctx);
        out[i] = static_cast<std::uint32_t>(r.code);
        flags |= r.flags;
      }
      ++g;
    }
    return flags;
  }
  for (std::size_t o2 = 0; o2 < outer; ++o2)
    for (std::size_t b = 0; b < nb; ++b) {
      const std::uint8_t sc = t.scales[o2 * nb + b];
      if (!made[sc]) make(sc);
      const std::uint32_t* row = rows.data() + sc * 16;
      const Flags* rf = row_flags.data() + sc * 16;
      const std::size_t first = o2 * len + b * kBlock, end = first + std::min(kBlock, len - b * kBlock);
      const std::uint8_t* codes = t.codes.data();
      bool in_range = true;
      for (std::size_t i = first; i < end; ++i) in_range &= codes[i] < 16;
      if (!in_range) {  // a byte beyond E2M1's codes: the reference reads it its own way
        for (std::size_t i = first; i < end; ++i) {
          const Result r = exact_element(codes[i], sc, s_enc, f32, ctx);
          out[i] = static_cast<std::uint32_t>(r.code);
          flags |= r.flags;
        }
        continue;
      }
      for (std::size_t i = first; i < end; ++i) out[i] = row[codes[i]];
      if (any[sc])
        for (std::size_t i = first; i < end; ++i) flags |= rf[codes[i]];
    }
  return flags;
}

}  // namespace softmx::detail::nvfp4
