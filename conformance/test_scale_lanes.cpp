// conformance/test_scale_lanes.cpp: the vector paths of MX blocks whose scale is not E8M0 and
// of NVFP4 (block/scale_lanes.cpp, block/nvfp4_lanes.cpp, simd/scale_lanes.hpp; docs/BLOCKS.md
// 1.3) against the scalar reference path (Isa::scalar), bit for bit: element codes, scale
// codes and flags.
//
// Quantize: every scale format {ue4m3, ue5m3, e4m3, bf16, f16, f32} x element {e2m1, e2m3,
// e3m2, e4m3, e5m2} x deterministic rounding x saturation x tininess x every dialect that
// accepts the options, on seeded random blocks of wide exponent spread, blocks built on exact
// grid points, midpoints and their f32 neighbours, and blocks with zeros, subnormals, Inf and
// NaN; and exhaustively every f16 value x as an element against every finite ue4m3 scale
// (the block [S max_E, x]) for each element and rounding. Dequantize: every element code x
// every code of the 8- and 16-bit scale formats, and random f32 scale codes; the scale codes
// where the one-multiply form's per-block choice changes (products crossing 2^-126, 2^-100 and
// FLT_MAX) between blocks of scale 1, and a byte beyond a 4-bit element's codes. NVFP4: random
// tensors (with and without a global amax, Inf and NaN among them, partial blocks, several
// chunks of blocks), and its exact dequantization for every scale code x code under a spread of
// encode scales (and with bytes beyond 15).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/nvfp4.hpp"
#include "softmx/prng.hpp"

namespace softmx {
namespace {

std::uint32_t f32_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// The value of code c of f as a double (exact for every format here); NaN for NaN, +-Inf.
double to_double(const Format& f, std::uint64_t c) {
  const Unpacked u = unpack(f, c);
  double v = 0;
  if (u.cls == ValueClass::nan) return std::nan("");
  if (u.cls == ValueClass::inf) v = INFINITY;
  if (u.cls == ValueClass::finite) v = std::ldexp(static_cast<double>(u.sig >> 11), u.exp - 52);
  return u.sign ? -v : v;
}
std::string_view name(FormatId e) { return format(e).name; }

std::vector<Isa> vector_isas() {
  std::vector<Isa> r;
  for (Isa i : {Isa::avx2, Isa::avx512})
    if (isa_supported(i)) r.push_back(i);
  return r;
}

// The quick build samples the two exhaustive sweeps (every third rounding of the f16 sweep,
// every fifth 16-bit scale code); test_scale_lanes_long (label long) runs them whole.
#ifdef SOFTMX_SCALE_LANES_LONG
constexpr std::size_t kSample = 1;
#else
constexpr std::size_t kSample = 5;
#endif

const char* const kScaleFormats[] = {"ue4m3", "ue5m3", "e4m3", "bf16", "f16", "f32"};
const FormatId kElements[] = {FormatId::e2m1, FormatId::e2m3, FormatId::e3m2, FormatId::e4m3, FormatId::e5m2};

// A random f32 of magnitude about 2^e (e in f32's range; subnormal or 0 below it).
std::uint32_t random_f32(SplitMix64& rng, int e) {
  const float m = 1.0f + static_cast<float>(rng.next() >> 41) * 0x1p-23f;
  const float v = std::ldexp(m, std::max(e, -160));
  return f32_bits(rng.below(2) ? -v : v);
}

// Blocks of k values: wide spread, exact grid points and midpoints of a scale, specials.
std::vector<std::uint32_t> random_blocks(SplitMix64& rng, std::size_t blocks, std::size_t k, const Format& sf,
                                         const Format& ef) {
  std::vector<std::uint32_t> v(blocks * k);
  const double max_e = to_double(ef, ef.max_finite_magnitude());
  for (std::size_t b = 0; b < blocks; ++b) {
    std::uint32_t* x = v.data() + b * k;
    const int kind = static_cast<int>(rng.below(8));
    const int top = -150 + static_cast<int>(rng.below(280));
    if (kind <= 3) {  // spread below a top exponent, some zeros and subnormals
      for (std::size_t j = 0; j < k; ++j) {
        const int e = top - static_cast<int>(rng.below(kind == 0 ? 200 : 30));
        x[j] = rng.below(16) == 0 ? (rng.below(2) ? 0x80000000u : 0u) : random_f32(rng, e);
      }
    } else if (kind <= 6) {  // S from a random scale code; elements on S * (grid, midpoints, quarters) +- an ulp
      const std::uint64_t sc = rng.below(sf.code_mask() + 1);
      const double s = to_double(sf, sc);
      const double amax = s * max_e;
      if (!(s > 0) || !std::isfinite(amax) || std::fabs(amax) > 3e38 || std::fabs(amax) < 1e-37) {
        for (std::size_t j = 0; j < k; ++j) x[j] = random_f32(rng, top - static_cast<int>(rng.below(10)));
        continue;
      }
      x[0] = f32_bits(static_cast<float>(amax));
      for (std::size_t j = 1; j < k; ++j) {
        // m = i * 2^(e - man - 2): grid points, midpoints and quarter points of the element.
        const double m = static_cast<double>(rng.below(std::uint64_t{4} << ef.man_bits)) *
                         std::ldexp(1.0, ef.emin() - static_cast<int>(ef.man_bits) - 2 +
                                             static_cast<int>(rng.below(element_emax(ef) - ef.emin() + 2)));
        float f = static_cast<float>(s * std::min(m, max_e));
        std::uint32_t bits = f32_bits(f);
        const int nudge = static_cast<int>(rng.below(5));
        if (nudge == 1 && (bits & 0x7FFFFFFF)) bits += 1;
        if (nudge == 2 && (bits & 0x7FFFFFFF) > 1) bits -= 1;
        x[j] = bits | (rng.below(2) ? 0x80000000u : 0u);
      }
    } else {  // specials: Inf, NaN, zero blocks
      for (std::size_t j = 0; j < k; ++j) x[j] = random_f32(rng, top - static_cast<int>(rng.below(20)));
      const int what = static_cast<int>(rng.below(4));
      const std::size_t at = rng.below(k);
      if (what == 0) x[at] = 0x7F800000u | (rng.below(2) ? 0x80000000u : 0u);
      if (what == 1) x[at] = 0x7FC00000u;
      if (what == 2) x[at] = 0x7F800001u;
      if (what == 3)
        for (std::size_t j = 0; j < k; ++j) x[j] = rng.below(2) ? 0x80000000u : 0u;
    }
  }
  return v;
}

struct Config {
  const Dialect* d;
  Rounding r;
  Saturation sat;
  Tininess tin;
};

// Every (dialect, rounding, saturation, tininess) the options accept for this pair, with
// `stride` thinning the combinations (0: all).
std::vector<Config> configs(const Format& sf, FormatId e) {
  std::vector<Config> out;
  for (const Dialect& d : all_dialects())
    for (Rounding r : kDeterministicRoundings)
      for (Saturation sat : {Saturation::finite, Saturation::none})
        for (Tininess tin : {Tininess::after_rounding, Tininess::before_rounding}) {
          BlockOptions o;
          o.element = e;
          o.scale_format = sf;
          o.dialect = &d;
          o.rounding = r;
          o.saturation = sat;
          o.tininess = tin;
          if (quantize_unsupported_reason(FormatId::f32, o)) continue;
          out.push_back({&d, r, sat, tin});
        }
  return out;
}

std::string describe(const Format& sf, FormatId e, const Config& c, Isa isa) {
  return std::string(sf.name) + " " + std::string(name(e)) + " " + std::string(c.d->name) + " " +
         std::string(name(c.r)) + " sat=" + std::to_string(static_cast<int>(c.sat)) +
         " tin=" + std::to_string(static_cast<int>(c.tin)) + " " + name(isa);
}

// quantize_tensor on one instruction set, or the error it throws.
struct Outcome {
  MxTensor t;
  std::string error;
};
Outcome quantize(const std::vector<std::uint32_t>& v, std::size_t k, BlockOptions o, Isa isa) {
  o.isa = isa;
  const std::size_t shape[1] = {v.size()};
  Outcome r;
  try {
    r.t = quantize_tensor(FormatId::f32, v.data(), shape, 0, k, o);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// Compares the vector paths with the scalar one on `v`; returns the mismatching blocks.
std::size_t compare_quantize(const std::vector<std::uint32_t>& v, std::size_t k, const BlockOptions& o,
                             const std::string& what) {
  const Outcome ref = quantize(v, k, o, Isa::scalar);
  std::size_t bad = 0;
  for (Isa isa : vector_isas()) {
    const Outcome got = quantize(v, k, o, isa);
    if (got.error != ref.error) {
      ADD_FAILURE() << what << " " << name(isa) << ": error '" << got.error << "' vs '" << ref.error << "'";
      ++bad;
      continue;
    }
    if (!ref.error.empty()) continue;
    if (got.t.flags != ref.t.flags) {
      if (bad < 3) ADD_FAILURE() << what << " " << name(isa) << ": flags " << int(got.t.flags) << " vs " << int(ref.t.flags);
      ++bad;
    }
    const std::size_t sb = o.scale_format.code_bytes();
    for (std::size_t b = 0; b * k < v.size(); ++b) {
      const bool scale_ok = std::memcmp(got.t.scales.data() + b * sb, ref.t.scales.data() + b * sb, sb) == 0;
      const std::size_t len = std::min(k, v.size() - b * k);
      const bool codes_ok = std::memcmp(got.t.codes.data() + b * k, ref.t.codes.data() + b * k, len) == 0;
      if (scale_ok && codes_ok) continue;
      if (bad < 3) {
        std::string msg = what + " " + name(isa) + ": block " + std::to_string(b) + (scale_ok ? "" : " scale") +
                          (codes_ok ? "" : " codes") + "; values";
        char buf[16];
        for (std::size_t j = 0; j < len; ++j) {
          std::snprintf(buf, sizeof buf, " %08X", static_cast<unsigned>(v[b * k + j]));
          msg += buf;
        }
        ADD_FAILURE() << msg;
      }
      ++bad;
    }
  }
  return bad;
}

TEST(ScaleLanes, QuantizeRandomMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0x5CA1E5);
  std::size_t cases = 0, configs_run = 0, bad = 0;
  for (const char* sname : kScaleFormats) {
    const Format sf = parse_format_spec(sname);
    for (FormatId e : kElements) {
      const std::vector<Config> cs = configs(sf, e);
      ASSERT_FALSE(cs.empty()) << sname << " " << name(e);
      for (const Config& c : cs) {
        BlockOptions o;
        o.element = e;
        o.scale_format = sf;
        o.dialect = c.d;
        o.rounding = c.r;
        o.saturation = c.sat;
        o.tininess = c.tin;
        // ocp gets many blocks; the other dialects fewer (they share the lanes).
        const bool main = std::string_view(c.d->name) == "ocp";
        const std::size_t blocks = main ? 400 : 40;
        const std::size_t k = rng.below(4) == 0 ? 16 + rng.below(40) : 32;
        const std::vector<std::uint32_t> v = random_blocks(rng, blocks, k, sf, format(e));
        bad += compare_quantize(v, k, o, describe(sf, e, c, Isa::scalar));
        cases += v.size();
        ++configs_run;
        // quantize_block (one block: BlockQuantizer::run) on the first blocks as well.
        for (std::size_t b = 0; b < 24 && (b + 1) * k <= v.size(); ++b) {
          BlockOptions q = o;
          q.isa = Isa::scalar;
          QuantizedBlock want;
          try {
            want = quantize_block(FormatId::f32, v.data() + b * k, k, q);
          } catch (const std::exception&) {
            continue;  // compare_quantize compared the errors
          }
          for (Isa isa : vector_isas()) {
            q.isa = isa;
            QuantizedBlock got;
            try {
              got = quantize_block(FormatId::f32, v.data() + b * k, k, q);
            } catch (const std::exception&) {
              got.flags = 0xFF;
            }
            if (got.codes != want.codes || got.scale != want.scale || got.flags != want.flags) {
              if (bad < 3) ADD_FAILURE() << describe(sf, e, c, isa) << ": quantize_block " << b;
              ++bad;
            }
          }
        }
      }
    }
  }
  std::printf("quantize: %zu configurations, %zu values, %zu mismatching blocks\n", configs_run, cases, bad);
  EXPECT_EQ(bad, 0u);
}

// Every finite f16 value x against every finite positive ue4m3 scale S: blocks [S max_E, x, ...]
// (31 values of x per block), so that the block's scale is S and every x with |x| <= S max_E is
// divided by it; for each element and deterministic rounding (ocp, both saturations).
TEST(ScaleLanes, QuantizeF16ExhaustiveUe4m3) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  const Format sf = parse_format_spec("ue4m3");
  std::vector<std::uint32_t> xs;
  const Format& f16 = format(FormatId::f16);
  for (std::uint32_t c = 0; c < 0x10000; ++c) {
    const double d = to_double(f16, c);
    if (std::isfinite(d)) xs.push_back(f32_bits(static_cast<float>(d)));
  }
  std::size_t cases = 0, bad = 0;
  for (FormatId e : kElements) {
    const double max_e = to_double(format(e), format(e).max_finite_magnitude());
    for (std::size_t ri = 0; ri < std::size(kDeterministicRoundings); ri += kSample > 1 ? 3 : 1)
      for (Saturation sat : {Saturation::finite, Saturation::none}) {
        const Rounding r = kDeterministicRoundings[(ri + static_cast<std::size_t>(e)) % std::size(kDeterministicRoundings)];
        BlockOptions o;
        o.element = e;
        o.scale_format = sf;
        o.rounding = r;
        o.saturation = sat;
        std::vector<std::uint32_t> v;
        for (std::uint32_t s = 1; s < 0x7F; ++s) {
          const double amax = to_double(sf, s) * max_e;
          const std::uint32_t head = f32_bits(static_cast<float>(amax));
          std::size_t in_block = 0;
          for (std::uint32_t x : xs) {
            if (std::fabs(static_cast<double>(std::bit_cast<float>(x))) > amax) continue;
            if (in_block == 0) v.push_back(head);
            v.push_back(x);
            if (++in_block == 31) in_block = 0;
          }
          while (in_block && in_block++ < 31) v.push_back(0);
        }
        bad += compare_quantize(v, 32, o,
                                std::string("f16 x ue4m3 ") + std::string(name(e)) + " " + std::string(name(r)));
        cases += v.size();
      }
  }
  std::printf("f16 x ue4m3 exhaustive: %zu values, %zu mismatching blocks\n", cases, bad);
  EXPECT_EQ(bad, 0u);
}

// The positive finite codes of scale format sf taken by the boundary tests: every one of an
// 8-bit format, every step16-th of a 16-bit one, n32 random ones (rng) of a wider one.
std::vector<std::uint64_t> scale_codes(const Format& sf, std::uint64_t step16, int n32, SplitMix64& rng) {
  std::vector<std::uint64_t> scodes;
  const std::uint64_t top = sf.max_finite_magnitude();
  const std::uint64_t step = sf.width <= 8 ? 1 : sf.width <= 16 ? step16 : 0;
  if (step)
    for (std::uint64_t c = 1; c <= top; c += step) scodes.push_back(c);
  else
    for (int i = 0; i < n32; ++i) scodes.push_back(1 + rng.below(top));
  return scodes;
}

// One block of k f32 codes at v: `top` at a random place, the others top times random factors
// in (0, 1], each with a random sign.
void fill_block(std::uint32_t* v, std::size_t k, float top, SplitMix64& rng) {
  const std::size_t at = rng.below(k);
  for (std::size_t j = 0; j < k; ++j) {
    const float x = j == at ? top : top * static_cast<float>(static_cast<double>(1 + rng.below(1u << 24)) * 0x1p-24);
    v[j] = f32_bits(x) | (rng.below(2) ? 0x80000000u : 0u);
  }
}

// The scale of a block at the rounding boundaries of every scale format: scale_of_block's f64
// route (block/scale_lanes.cpp, scale_code_f64) against run_scale_format's exact quotient and
// round_pack. Each block's largest magnitude is an f32 at, or 1 or 2 f32 steps either side
// of, value(c) max_E and the midpoint (value(c) + value(c + 1)) / 2 max_E rounded to f32, for
// every positive finite scale code c (every 5th 16-bit and a sampled set of f32 codes), then
// random amax over f32's whole range, subnormals included. The other elements are amax times
// random factors in (0, 1], so the block's codes are compared too.
TEST(ScaleLanes, QuantizeScaleBoundariesMatchScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xB0DA);
  constexpr std::size_t k = 32;
  std::size_t bad = 0, blocks = 0;
  for (const char* sname : kScaleFormats) {
    const Format sf = parse_format_spec(sname);
    const std::vector<std::uint64_t> scodes = scale_codes(sf, 5, 20000, rng);
    const std::uint64_t top = sf.max_finite_magnitude();
    for (FormatId e : kElements) {
      const double max_e = to_double(format(e), format(e).max_finite_magnitude());
      std::vector<float> amax;
      for (std::uint64_t c : scodes) {
        const double v = to_double(sf, c);
        const double next = c < top ? to_double(sf, c + 1) : 2 * v;
        for (double t : {v * max_e, (v + next) / 2 * max_e}) {
          if (!(t < 3.4e38) || !(t > 0)) continue;
          const std::uint32_t b = f32_bits(static_cast<float>(t));
          for (int d = -2; d <= 2; ++d) {
            const std::uint32_t x = b + static_cast<std::uint32_t>(d);
            if (x != 0 && x < 0x7F800000u) amax.push_back(std::bit_cast<float>(x));
          }
        }
      }
      for (int i = 0; i < 20000; ++i)
        amax.push_back(std::bit_cast<float>(1 + static_cast<std::uint32_t>(rng.below(0x7F7FFFFFu))));
      std::vector<std::uint32_t> v;
      v.resize(amax.size() * k);
      for (std::size_t i = 0; i < amax.size(); ++i) fill_block(v.data() + i * k, k, amax[i], rng);
      BlockOptions o;
      o.element = e;
      o.scale_format = ScaleFormat(sf);
      bad += compare_quantize(v, k, o, std::string(sname) + " " + std::string(name(e)) + " boundaries");
      blocks += amax.size();
    }
  }
  EXPECT_EQ(bad, 0u);
  RecordProperty("blocks", static_cast<int>(blocks));
}

// The element's overflow boundary, where the vector paths decide overflow once per block from
// its largest magnitude (simd/scale_fused.hpp's quotients_overflow): tensors of 17 blocks (the
// chunked path, its lanes and its tail), one of them at a random place the block under test,
// the others with amax max_E / 8 (quotients max_E exactly: no overflow), so that the tensor's
// flags are that block's; the block's largest
// magnitude is an f32 at, or 1 f32 step either side of, value(c) T for every positive finite
// scale code c (every 67th 16-bit one, a sampled set of f32 ones), T the midpoint of the
// element's largest value and the value a quantum above it (where rne starts to overflow), the
// other elements that amax times random factors in (0, 1]; under satfinite and satnone.
TEST(ScaleLanes, QuantizeOverflowBoundaryMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0x0F10);
  constexpr std::size_t k = 32;
  std::size_t bad = 0, blocks = 0;
  for (const char* sname : kScaleFormats) {
    const Format sf = parse_format_spec(sname);
    const std::vector<std::uint64_t> scodes = scale_codes(sf, 67, 1000, rng);
    for (FormatId e : kElements) {
      const std::uint64_t mx = format(e).max_finite_magnitude();
      const double max_e = to_double(format(e), mx), below = to_double(format(e), mx - 1);
      const double t_ovf = max_e + (max_e - below) / 2;  // the largest value's quantum is max_e - below
      const std::string what = std::string(sname) + " " + std::string(name(e)) + " overflow boundary";
      constexpr std::size_t kBlocks = 17;
      std::vector<std::uint32_t> v(kBlocks * k);
      for (std::uint64_t c : scodes) {
        const double a = to_double(sf, c) * t_ovf;
        if (!(a < 3.4e38) || !(a > 1e-37)) continue;
        const std::uint32_t b = f32_bits(static_cast<float>(a));
        for (int d = -1; d <= 1; ++d) {
          const float am = std::bit_cast<float>(b + static_cast<std::uint32_t>(d));
          const std::size_t tb = rng.below(kBlocks);
          for (std::size_t bl = 0; bl < kBlocks; ++bl) {
            fill_block(v.data() + bl * k, k, bl == tb ? am : static_cast<float>(max_e / 8), rng);
          }
          for (Saturation sat : {Saturation::finite, Saturation::none}) {
            BlockOptions o;
            o.element = e;
            o.scale_format = ScaleFormat(sf);
            o.saturation = sat;
            bad += compare_quantize(v, k, o, what);
            ++blocks;
          }
        }
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  std::printf("overflow boundary: %zu tensors of 17 blocks, %zu mismatches\n", blocks, bad);
  RecordProperty("blocks", static_cast<int>(blocks));
}

// Dequantizer::run on a vector instruction set against Isa::scalar, with and without flags.
std::size_t compare_dequantize(const Format& e, const Format& sf, const std::vector<std::uint8_t>& scales,
                               const std::vector<std::uint8_t>& codes, std::size_t k, const Context& ctx,
                               const std::string& what) {
  Dequantizer ref(e, ScaleFormat(sf), FormatId::f32, ctx);
  ref.set_isa(Isa::scalar);
  const std::size_t n = codes.size();
  std::vector<std::uint32_t> want(n), got(n);
  std::vector<Flags> want_f(n), got_f(n);
  const Flags want_all = ref.run(scales.data(), codes.data(), n, k, want.data(), want_f.data());
  std::size_t bad = 0;
  for (Isa isa : vector_isas()) {
    for (bool with_flags : {true, false}) {
      Dequantizer d(e, ScaleFormat(sf), FormatId::f32, ctx);
      d.set_isa(isa);
      std::fill(got.begin(), got.end(), 0xDEADBEEFu);
      const Flags all = d.run(scales.data(), codes.data(), n, k, got.data(), with_flags ? got_f.data() : nullptr);
      if (all != want_all) {
        ADD_FAILURE() << what << " " << name(isa) << ": flags " << int(all) << " vs " << int(want_all);
        ++bad;
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (got[i] == want[i] && (!with_flags || got_f[i] == want_f[i])) continue;
        if (bad < 3)
          ADD_FAILURE() << what << " " << name(isa) << ": element " << i << " code " << int(codes[i]) << " scale block "
                        << i / k << ": " << std::hex << got[i] << " vs " << want[i] << " flags " << int(got_f[i])
                        << " vs " << int(want_f[i]);
        ++bad;
      }
    }
  }
  return bad;
}

// Every element code x every scale code (8- and 16-bit formats); random f32 scale codes.
TEST(ScaleLanes, DequantizeEveryCodeMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xDE9);
  std::size_t cases = 0, bad = 0;
  for (const char* sname : kScaleFormats) {
    const Format sf = parse_format_spec(sname);
    for (FormatId eid : kElements) {
      const Format& e = format(eid);
      const std::size_t ncodes = std::size_t{1} << e.width;
      const std::size_t sb = scale_code_bytes(sf);
      // Scale codes: all of them up to 16 bits (every element code once per scale: k = ncodes),
      // 4096 random ones for f32 (with the specials among them).
      std::vector<std::uint32_t> scodes;
      if (sf.width <= 16) {
        const std::uint64_t step = sf.width > 8 ? kSample : 1;
        for (std::uint64_t s = 0; s <= sf.code_mask(); s += step) scodes.push_back(static_cast<std::uint32_t>(s));
      } else {
        for (int i = 0; i < 4096; ++i) scodes.push_back(static_cast<std::uint32_t>(rng.next()));
        for (std::uint32_t s : {0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 1u, 0x7F7FFFFFu, 0x00800000u})
          scodes.push_back(s);
      }
      std::vector<std::uint8_t> scales(scodes.size() * sb), codes;
      for (std::size_t i = 0; i < scodes.size(); ++i) {
        store_scale_code(scales.data(), i, sb, scodes[i]);
        for (std::size_t c = 0; c < ncodes; ++c) codes.push_back(static_cast<std::uint8_t>(c));
      }
      for (Rounding r : {Rounding::rne, Rounding::rz}) {
        Context ctx;
        ctx.rounding = r;
        bad += compare_dequantize(e, sf, scales, codes, ncodes,  ctx,
                                  std::string(sname) + " " + std::string(e.name) + " " + std::string(name(r)));
        cases += codes.size();
      }
      // Blocks of 32 random codes (block length not a multiple of the lanes in places).
      std::vector<std::uint8_t> rc(scodes.size() * 20);
      for (auto& c : rc) c = static_cast<std::uint8_t>(rng.below(ncodes));
      bad += compare_dequantize(e, sf, scales, rc, 20, Context{}, std::string(sname) + " " + std::string(e.name) + " k=20");
      cases += rc.size();
    }
  }
  std::printf("dequantize: %zu elements, %zu mismatches\n", cases, bad);
  EXPECT_EQ(bad, 0u);
}

// The one-multiply form's per-block choice (block/scale_lanes.cpp): scale codes around the
// values where a product of the element's smallest non-zero magnitude crosses 2^-126 (and
// 2^-100, the bound of f32 scales, whose products are wide) and where one of its largest
// crosses FLT_MAX, of both signs, in blocks of every element code and of 7 random codes
// between blocks of scale 1 (so that fast and slow blocks alternate within a chunk), under
// saturation none and finite.
TEST(ScaleLanes, DequantizeScaleBoundariesMatchScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xB0D);
  std::size_t cases = 0, bad = 0, scodes_n = 0;
  for (const char* sname : kScaleFormats) {
    const Format sf = parse_format_spec(sname);
    const std::size_t sb = scale_code_bytes(sf);
    const std::uint64_t max_code = sf.max_finite_magnitude();
    const std::uint64_t sign_bit = sf.sign == SignEncoding::magnitude ? std::uint64_t{1} << (sf.width - 1) : 0;
    // The positive code whose value is the largest not above v (values rise with the code).
    auto code_below = [&](double v) {
      std::uint64_t l = 0, h = max_code;
      while (l < h) {
        const std::uint64_t mid = l + (h - l + 1) / 2;
        if (to_double(sf, mid) <= v) l = mid; else h = mid - 1;
      }
      return l;
    };
    const std::uint64_t one = code_below(1.0);
    for (FormatId eid : kElements) {
      const Format& e = format(eid);
      const std::size_t ncodes = std::size_t{1} << e.width;
      const double tmax = to_double(e, e.max_finite_magnitude()), tmin = to_double(e, 1);
      std::vector<std::uint64_t> scodes;
      for (double target : {0x1p-126 / tmin, 0x1p-100 / tmin, 3.40282346638528859812e+38 / tmax}) {
        const std::uint64_t c = code_below(target);
        for (std::uint64_t d = 0; d < 7; ++d) {
          if (c + d < 3 || c + d - 3 > max_code) continue;
          scodes.push_back(c + d - 3);
          if (sign_bit) scodes.push_back((c + d - 3) | sign_bit);
          scodes_n += sign_bit ? 2 : 1;
        }
      }
      // f32 scales: random 24-bit significands where the products of the smallest magnitude
      // lie in [2^-126, 2^-96] (wide products with the smallest rounding errors), half of them
      // in the 4 binades just above 2^-126.
      if (sf.width == 32)
        for (int i = 0; i < 128; ++i) {
          const int ex = static_cast<int>(std::floor(std::log2(0x1p-126 / tmin))) + static_cast<int>(rng.below(i % 2 ? 4 : 31));
          const float v = std::ldexp(1.0f + static_cast<float>(rng.next() >> 41) * 0x1p-23f, ex);
          scodes.push_back(f32_bits(rng.below(2) ? -v : v));
          ++scodes_n;
        }
      std::vector<std::uint8_t> scales, codes, scales7, codes7;
      std::size_t nb = 0, nb7 = 0;
      auto add = [&](std::vector<std::uint8_t>& sc, std::vector<std::uint8_t>& co, std::size_t& n, std::uint64_t s,
                     std::size_t k, bool every) {
        sc.resize((n + 1) * sb);
        store_scale_code(sc.data(), n++, sb, static_cast<std::uint32_t>(s));
        for (std::size_t i = 0; i < k; ++i)
          co.push_back(static_cast<std::uint8_t>(every ? i : rng.below(ncodes)));
      };
      for (std::uint64_t s : scodes) {
        add(scales, codes, nb, s, ncodes, true);
        add(scales, codes, nb, one, ncodes, true);
        add(scales7, codes7, nb7, s, 7, false);
        add(scales7, codes7, nb7, one, 7, false);
      }
      for (Saturation sat : {Saturation::none, Saturation::finite}) {
        Context ctx;
        ctx.saturation = sat;
        const std::string what = std::string(sname) + " " + std::string(e.name) + " boundaries";
        bad += compare_dequantize(e, sf, scales, codes, ncodes, ctx, what);
        bad += compare_dequantize(e, sf, scales7, codes7, 7, ctx, what + " k=7");
        cases += codes.size() + codes7.size();
      }
    }
  }
  // A byte beyond a 4-bit element's 16 codes: the reference rejects it (throws), and so must the
  // lanes (the one-multiply form hands the block back rather than reading the table).
  for (FormatId eid : {FormatId::e2m1}) {
    const Format& e = format(eid);
    for (const char* sname : kScaleFormats) {
      const Format sf = parse_format_spec(sname);
      const std::size_t sb = scale_code_bytes(sf);
      std::vector<std::uint8_t> scales(2 * sb), codes(64);
      store_scale_code(scales.data(), 0, sb, static_cast<std::uint32_t>(sf.max_finite_magnitude() / 2));
      store_scale_code(scales.data(), 1, sb, static_cast<std::uint32_t>(sf.max_finite_magnitude() / 2));
      for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i % 16);
      codes[37] = 0x13;
      std::vector<std::uint32_t> out(codes.size());
      auto throws = [&](Isa isa) {
        Dequantizer d(e, ScaleFormat(sf), FormatId::f32, Context{});
        d.set_isa(isa);
        try {
          d.run(scales.data(), codes.data(), codes.size(), 32, out.data());
        } catch (const std::exception&) {
          return true;
        }
        return false;
      };
      const bool want = throws(Isa::scalar);
      for (Isa isa : vector_isas()) {
        if (throws(isa) != want) {
          ADD_FAILURE() << sname << " e2m1 byte 0x13: " << name(isa) << (want ? " did not throw" : " threw");
          ++bad;
        }
        ++cases;
      }
    }
  }
  std::printf("dequantize boundaries: %zu scale codes, %zu elements, %zu mismatches\n", scodes_n, cases, bad);
  EXPECT_EQ(bad, 0u);
}

// ---- NVFP4 ----

bool same(const Nvfp4Tensor& a, const Nvfp4Tensor& b) {
  return a.scales == b.scales && a.codes == b.codes && a.flags == b.flags && a.global_amax == b.global_amax &&
         a.encode_scale == b.encode_scale && a.scale_shape == b.scale_shape;
}

// NVFP4 quantization of v (rows x len, blocked along len) with options o on every vector
// instruction set against Isa::scalar: the values compared added to cases, the mismatching
// tensors to bad (the first three reported, named by `what`).
void compare_nvfp4(const std::vector<std::uint32_t>& v, std::array<std::size_t, 2> shape, Nvfp4Options o,
                   const std::string& what, std::size_t& cases, std::size_t& bad) {
  o.isa = Isa::scalar;
  const Nvfp4Tensor want = quantize_nvfp4(FormatId::f32, v.data(), shape, 1, o);
  for (Isa isa : vector_isas()) {
    o.isa = isa;
    const Nvfp4Tensor got = quantize_nvfp4(FormatId::f32, v.data(), shape, 1, o);
    if (!same(got, want)) {
      if (bad < 3) ADD_FAILURE() << what << " " << name(isa) << " flags " << int(got.flags) << " vs " << int(want.flags);
      ++bad;
    }
    cases += v.size();
  }
}

TEST(ScaleLanes, Nvfp4QuantizeMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xF4);
  std::size_t cases = 0, bad = 0;
  for (int trial = 0; trial < 600; ++trial) {
    // Every fifth trial larger (up to 640 blocks: more than one chunk of the lanes, groups of 16 blocks).
    const bool big = trial % 5 == 4;
    const std::size_t rows = 1 + rng.below(big ? 40 : 8),
                      len = trial % 3 == 0 ? 1 + rng.below(100) : 16 * (1 + rng.below(big ? 16 : 8));
    std::vector<std::uint32_t> v(rows * len);
    const int top = -150 + static_cast<int>(rng.below(280));
    const int spread = trial % 2 ? 8 : 60;
    for (auto& x : v) x = rng.below(20) == 0 ? 0u : random_f32(rng, top - static_cast<int>(rng.below(spread)));
    if (trial % 10 == 7) v[rng.below(v.size())] = rng.below(2) ? 0x7F800000u : 0x7FC00000u;
    Nvfp4Options o;
    if (trial % 4 == 1) o.global_amax = std::ldexp(1.0f, static_cast<int>(rng.below(250)) - 125);
    if (trial % 8 == 3) o.global_amax = 0.0f;
    if (trial % 8 == 5) o.multiplier = Nvfp4Multiplier::division;
    compare_nvfp4(v, {rows, len}, o, "trial " + std::to_string(trial), cases, bad);
  }
  std::printf("nvfp4 quantize: %zu values, %zu mismatching tensors\n", cases, bad);
  EXPECT_EQ(bad, 0u);
}

// The fused NVFP4 pass (mul_round_direct) decides Inf products, zero products and the direct
// path's range from the blocks' bmax, bmin and m_b alone, and takes subnormal products as they
// are: a given global amax 2^-gap times the data's top pushes the products x * m_b (about
// 6 * 2^gap) through the binades up to FLT_MAX and Inf (above 2^106 the direct path does not
// serve) and, for gap <= -130, down into f32's subnormals; two groups of 16 whole blocks, a zero
// in some tensors.
TEST(ScaleLanes, Nvfp4QuantizeProductRangeMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xF6);
  std::size_t cases = 0, bad = 0;
  for (int e = -140; e <= 127; e += 3) {
    for (int gap : {-150, -140, -130, -60, -30, 0, 20, 60, 100, 110, 120, 124, 125, 126, 127, 140, 200}) {
      std::vector<std::uint32_t> v(512);  // 2 x 256: 32 blocks, two groups of 16
      for (auto& x : v) x = random_f32(rng, std::max(-149, e - static_cast<int>(rng.below(12))));
      if (gap % 20 == 0) v[rng.below(v.size())] = 0;
      Nvfp4Options o;
      o.global_amax = std::ldexp(1.0f, std::clamp(e - gap, -149, 127));
      compare_nvfp4(v, {2, 256}, o, "e " + std::to_string(e) + " gap " + std::to_string(gap), cases, bad);
    }
  }
  std::printf("nvfp4 product range: %zu values, %zu mismatching tensors\n", cases, bad);
  EXPECT_EQ(bad, 0u);
}

// A block whose largest product x * m is exactly 7.0, E2M1's overflow threshold (the midpoint of
// 6 and 8, a tie that rne takes to 8, so overflow), and one f32 step either side. TransformerEngine's
// steps (nvfp4_steps.hpp: encode_scale, block_scale, multiplier under reciprocal_product) in f32
// on the FPU: S_enc = RN(2688 / G), S_dec = RN(1 / S_enc), the block scale code c (E4M3 c 2^-9,
// a subnormal: only there is x m >= 7 reachable, since the scale's rounding error is up to a half
// code) when RN(x RN(S_enc RN(1/6))) lies strictly inside ((c - 1/2) 2^-9, (c + 1/2) 2^-9), and
// m = RN(1 / RN(c 2^-9 S_dec)). Codes 1 and 2 (3 puts 7.0 on the scale's own tie). The other
// values of the block lie below x, the other blocks of the group are zero, so the tensor's flags
// are the block's. It pins the group's `pmax >= ovf_from` (a `>` passes every other test).
TEST(ScaleLanes, Nvfp4QuantizeOverflowThresholdMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xF7);
  std::size_t cases = 0, bad = 0, tensors = 0, found = 0;
  for (float g : {1.0f, 3.0f, 0.37f, 1e10f, 7.5e-20f, 5.0f, 11.0f, 0.9f, 2.2e5f, 6.1e-3f, 1.3f, 40.0f}) {
    const float s_enc = std::min(2688.0f / g, 3.4028235e38f), s_dec = 1.0f / s_enc;
    const float eo6 = s_enc * (1.0f / 6.0f);
    for (int c : {1, 2}) {
      const float sdec_b = std::ldexp(static_cast<float>(c), -9);
      const float m = std::min(1.0f / (sdec_b * s_dec), 3.4028235e38f);
      const auto scale_is_c = [&](float x) {
        const float y = x * eo6;
        return y > std::ldexp(c - 0.5f, -9) && y < std::ldexp(c + 0.5f, -9);
      };
      // x with RN(x m) = 7.0 and the block scale code c, searched outward from 7 / m.
      float x7 = 0;
      for (int k = 0; k <= 64 && x7 == 0; ++k)
        for (float x : {std::nextafter(7.0f / m, 0.0f), 7.0f / m}) {
          for (int j = 0; j < k; ++j) x = std::nextafter(x, k % 2 ? 1e38f : 0.0f);
          if (x * m == 7.0f && scale_is_c(x)) x7 = x;
        }
      // x m moves by ulp(x) m, more than ulp(7) where x's significand is below 1.75: some (G, c)
      // have no such x.
      if (x7 == 0) continue;
      ++found;
      for (int step = -1; step <= 1; ++step) {
        const float x = step == 0 ? x7 : std::nextafter(x7, step > 0 ? 1e38f : 0.0f);
        if (!scale_is_c(x)) continue;
        for (int fill = 0; fill < 8; ++fill) {
          std::vector<std::uint32_t> v(256, 0);  // one group of 16 blocks of 16
          const std::size_t b = rng.below(16);
          for (std::size_t i = 0; i < 16; ++i) {
            const float u = static_cast<float>(rng.below(1u << 20)) / static_cast<float>(1u << 20);
            v[b * 16 + i] = f32_bits(x * u) | (rng.below(2) ? 0x80000000u : 0u);
          }
          v[b * 16 + rng.below(16)] = f32_bits(x) | (fill % 2 ? 0x80000000u : 0u);
          Nvfp4Options o;
          o.global_amax = g;
          compare_nvfp4(v, {1, 256}, o, "G " + std::to_string(g) + " code " + std::to_string(c) + " step " +
                                            std::to_string(step), cases, bad);
          ++tensors;
        }
      }
    }
  }
  std::printf("nvfp4 overflow threshold: %zu (G, code) pairs reach 7.0, %zu tensors, %zu values, %zu mismatching tensors\n",
              found, tensors, cases, bad);
  EXPECT_GE(found, 8u);
  EXPECT_EQ(bad, 0u);
}

TEST(ScaleLanes, Nvfp4DequantizeEveryCodeMatchesScalar) {
  if (vector_isas().empty()) GTEST_SKIP() << "no vector instruction set on this CPU";
  SplitMix64 rng(0xF5);
  // Every scale code (rows) x every code (16 per row), under encode scales across f32's range.
  Nvfp4Tensor t;
  t.shape = {256, 16};
  t.axis = 1;
  t.scale_shape = {256, 1};
  for (int s = 0; s < 256; ++s) {
    t.scales.push_back(static_cast<std::uint8_t>(s));
    for (int c = 0; c < 16; ++c) t.codes.push_back(static_cast<std::uint8_t>(c));
  }
  std::vector<std::uint32_t> encs = {f32_bits(1.0f), f32_bits(3.0f), f32_bits(2688.0f), 0x7F7FFFFFu, 0x00000001u,
                                     0x00800000u, f32_bits(-5.5f), f32_bits(1e-30f), f32_bits(1e30f)};
  for (int i = 0; i < 40; ++i) encs.push_back(random_f32(rng, static_cast<int>(rng.below(250)) - 125));
  std::size_t cases = 0, bad = 0;
  for (std::uint32_t enc : encs) {
    t.encode_scale = enc;
    for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru}) {
      Context ctx;
      ctx.rounding = r;
      std::vector<std::uint32_t> want(t.codes.size()), got(t.codes.size());
      const Flags wf = dequantize_nvfp4(t, FormatId::f32, want.data(), ctx, Nvfp4Dequantization::exact, Isa::scalar);
      for (Isa isa : vector_isas()) {
        std::fill(got.begin(), got.end(), 0xDEADBEEFu);
        const Flags gf = dequantize_nvfp4(t, FormatId::f32, got.data(), ctx, Nvfp4Dequantization::exact, isa);
        if (gf != wf || got != want) {
          if (bad < 3) ADD_FAILURE() << "encode scale " << std::hex << enc << " " << name(isa);
          ++bad;
        }
        cases += got.size();
      }
    }
  }
  // Bytes beyond E2M1's 16 codes in some blocks (the reference reads them its own way; the
  // lanes hand those blocks to it and go on with the next).
  Nvfp4Tensor t2 = t;
  for (auto& c : t2.codes)
    if (rng.below(64) == 0) c = static_cast<std::uint8_t>(16 + rng.below(240));
  for (std::size_t i = 0; i < 12; ++i) {
    t2.encode_scale = encs[i];
    std::vector<std::uint32_t> want(t2.codes.size()), got(t2.codes.size());
    const Flags wf = dequantize_nvfp4(t2, FormatId::f32, want.data(), Context{}, Nvfp4Dequantization::exact, Isa::scalar);
    for (Isa isa : vector_isas()) {
      std::fill(got.begin(), got.end(), 0xDEADBEEFu);
      const Flags gf = dequantize_nvfp4(t2, FormatId::f32, got.data(), Context{}, Nvfp4Dequantization::exact, isa);
      if (gf != wf || got != want) {
        if (bad < 3) ADD_FAILURE() << "codes beyond 15, encode scale " << std::hex << encs[i] << " " << name(isa);
        ++bad;
      }
      cases += got.size();
    }
  }
  std::printf("nvfp4 dequantize: %zu elements, %zu mismatching tensors\n", cases, bad);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace softmx
