// conformance/test_blocks.cpp: block and tensor quantization against an independent reference.
//
// The reference recomputes each dialect's scale rule without softmx (std::ilogb and exact
// comparisons for floor, ceil and exact rceil; MPFR's ties-away rounding for even; host f32
// arithmetic for the f32-reciprocal forms torchao and TransformerEngine use), then checks every
// element code against the MPFR oracle's rounding of V * 2^-s (or of the f32 product the
// dialect forms). Special blocks (NaN, Inf, zero) are pinned in test_dialects.cpp.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "softmx/block.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

const bool kSeeded = [] { return setenv("RC_PARAMS", "seed=20261122 max_success=500", 0) == 0; }();

constexpr FormatId kElements[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2,
                                  FormatId::e2m3, FormatId::e2m1, FormatId::int8};

// ---- the reference ----

double max_value(FormatId e) {
  switch (e) {
    case FormatId::e4m3: return 448;
    case FormatId::e5m2: return 57344;
    case FormatId::e3m2: return 28;
    case FormatId::e2m3: return 7.5;
    case FormatId::e2m1: return 6;
    default: return 127.0 / 64;  // int8
  }
}
int emax_of(FormatId e) { return std::ilogb(max_value(e)); }
int mbits(FormatId e) {
  switch (e) {
    case FormatId::e4m3: case FormatId::e2m3: return 3;
    case FormatId::e5m2: case FormatId::e3m2: return 2;
    case FormatId::e2m1: return 1;
    default: return 6;
  }
}

// The scale exponent the dialect's rule gives for amax > 0 (before clamping), or 999 for NaN.
int reference_scale(ScaleRule rule, double amax, FormatId e, const BlockPolicies& p) {
  switch (rule) {
    case ScaleRule::floor: return std::ilogb(amax) - emax_of(e);
    case ScaleRule::ceil: return std::ilogb(amax) + (amax != std::ldexp(1.0, std::ilogb(amax))) - emax_of(e);
    case ScaleRule::even: {
      mpfr_t x;
      mpfr_init2(x, 64);
      mpfr_set_d(x, amax, MPFR_RNDN);
      mpfr_prec_round(x, mbits(e) + 1, MPFR_RNDNA);
      const int lg = static_cast<int>(mpfr_get_exp(x)) - 1;
      mpfr_clear(x);
      if (p.even_f32_overflow_nan && lg > 127) return 999;
      return lg - emax_of(e);
    }
    case ScaleRule::rceil: {
      if (p.rceil_f32_reciprocal) {
        const float rcp = 1.0f / static_cast<float>(max_value(e));  // host IEEE division, RNE
        const float descale = static_cast<float>(amax) * rcp;        // host IEEE multiply, RNE
        if (descale == 0) return -127;
        const int lg = std::ilogb(descale);
        return lg + (descale != std::ldexp(1.0f, lg));
      }
      int s = std::ilogb(amax) - std::ilogb(max_value(e)) - 1;
      while (std::ldexp(max_value(e), s) < amax) ++s;
      return s;
    }
    case ScaleRule::floor_log2_rn:  // pychop's rule: its own oracle in test_pychop, not drawn here
      break;
  }
  return 0;
}

struct Block {
  FormatId src;
  std::vector<std::uint64_t> codes;  // source codes
  std::vector<double> values;        // their values (exact)
};

Block random_block(SplitMix64& rng) {
  static constexpr FormatId kSources[] = {FormatId::f32, FormatId::f32, FormatId::bf16, FormatId::f16, FormatId::f64};
  Block b;
  b.src = kSources[rng.below(5)];
  const std::size_t k = std::array<std::size_t, 6>{1, 2, 7, 16, 32, 33}[rng.below(6)];
  const int centre = b.src == FormatId::f16 ? static_cast<int>(rng.below(30)) - 14
                                            : static_cast<int>(rng.below(260)) - 140;
  for (std::size_t i = 0; i < k; ++i) {
    double x = 0;
    if (rng.below(8) != 0) {
      const int e = centre - static_cast<int>(rng.below(12));
      x = std::ldexp(1.0 + static_cast<double>(rng.next() >> 11) * 0x1p-53, e);
      if (rng.below(2)) x = -x;
    }
    // Round x into the source format (exactly, by softmx's converter: the value, not the
    // conversion, is what is under test here).
    Context c;
    c.saturation = Saturation::none;
    const std::uint64_t code = convert(FormatId::f64, b.src, std::bit_cast<std::uint64_t>(x), c).code;
    b.codes.push_back(code);
    c.saturation = Saturation::none;
    b.values.push_back(std::bit_cast<double>(convert(b.src, FormatId::f64, code, c).code));
  }
  return b;
}

std::vector<unsigned char> storage(const Block& b) {
  const std::size_t w = format(b.src).width / 8;
  std::vector<unsigned char> out(b.codes.size() * w);
  for (std::size_t i = 0; i < b.codes.size(); ++i) std::memcpy(&out[i * w], &b.codes[i], w);
  return out;
}

TEST(Blocks, QuantizeMatchesTheReference) {
  conformance::Tally t("block quantize vs reference scale + MPFR elements: 6000 random blocks x every dialect, "
                       "element format, mode and saturation");
  SplitMix64 rng(0xB10C);
  std::vector<Block> blocks;
  for (int i = 0; i < 6000; ++i) blocks.push_back(random_block(rng));
  for (const Dialect& d : all_dialects()) {
    // torchmx (bf16 only, integer MXINT8) and pychop (its own scale rule): test_torchmx, test_pychop.
    if (!d.block.unsupported.empty() || d.block.sources != kHostFormats) continue;
    const oracle::Policies pol = conformance::to_oracle(d);
    for (FormatId e : kElements)
      for (Rounding r : kDeterministicRoundings)
        for (Saturation s : {Saturation::finite, Saturation::none}) {
          Context ec;
          ec.rounding = r;
          ec.saturation = s;
          if (unsupported_reason(d, e, ec)) continue;
          for (ScaleRule rule : {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil}) {
            if (d.name != std::string_view("ocp") && d.name != std::string_view("torchao") && rule != d.block.scale_rule)
              continue;  // every rule under ocp (exact) and torchao (f32 forms); others their own
            for (std::size_t bi = rule == d.block.scale_rule ? 0 : 3000; bi < (rule == d.block.scale_rule ? 6000u : 3300u);
                 ++bi) {
              const Block& b = blocks[bi];
              BlockOptions o;
              o.element = e;
              o.dialect = &d;
              o.rule = rule;
              o.rounding = r;
              o.saturation = s;
              const auto in = storage(b);
              const QuantizedBlock q = quantize_block(b.src, in.data(), b.codes.size(), o);
              // Dialects that compute in f32 see f64 data cast to f32 first.
              std::vector<double> vals = b.values;
              if (d.block.element_scaling != ElementScaling::exact)
                for (double& x : vals) x = static_cast<float>(x);
              double amax = 0;
              for (double v : vals) amax = std::max(amax, std::fabs(v));
              int sref;
              if (amax == 0) {
                sref = d.block.zero_block_scale == ZeroBlockScale::min_scale ? -127 : 0;
              } else {
                sref = reference_scale(rule, amax, e, d.block);
                if (sref == 999) {
                  t.check(q.scale == 0xFF, [&] { return std::string(d.name) + ": expected a NaN scale"; });
                  continue;
                }
                sref = std::clamp(sref, -127, 127);
              }
              bool ok = static_cast<int>(q.scale) == sref + 127;
              std::ostringstream why;
              if (!ok) why << "scale " << int(q.scale) << " reference " << sref + 127;
              // Elements.
              const std::uint8_t S = q.scale;
              for (std::size_t i = 0; ok && i < vals.size(); ++i) {
                double scaled = std::ldexp(vals[i], -sref);  // exact in double for these ranges
                if (d.block.element_scaling == ElementScaling::f32_reciprocal) {
                  scaled = static_cast<double>(static_cast<float>(vals[i]) * std::ldexp(1.0f, -sref));
                } else if (d.block.element_scaling == ElementScaling::te_int_reciprocal) {
                  const float mult = S == 0 ? 1.0f : (S == 0xFE ? 0.0f : std::ldexp(1.0f, 127 - S));
                  scaled = static_cast<double>(static_cast<float>(vals[i]) * mult);
                }
                mpfr_t x;
                mpfr_init2(x, 64);
                mpfr_set_d(x, scaled, MPFR_RNDN);
                const oracle::Outcome want = oracle::round_value_all(x, conformance::to_oracle(e), pol)
                                                 .at(conformance::to_oracle(r), conformance::to_oracle(s), oracle::Tiny::after);
                mpfr_clear(x);
                if (q.codes[i] != want.code) {
                  ok = false;
                  why << "element " << i << " (" << vals[i] << ") code " << int(q.codes[i]) << " reference "
                      << want.code;
                }
              }
              t.check(ok, [&] {
                return std::string(d.name) + " " + std::string(format(e).name) + " " + std::string(name(r)) + " " +
                       std::string(name(s)) + " " + std::string(name(rule)) + " from " +
                       std::string(format(b.src).name) + ": " + why.str();
              });
            }
          }
        }
  }
  t.report();
}

// ---- tensors ----

TEST(Blocks, TensorsAlongEveryAxisEqualTheirBlocks) {
  conformance::Tally t("tensor quantize/dequantize: random 1-4-d tensors along every axis, partial blocks");
  SplitMix64 rng(0x7E45);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = 1 + rng.below(4);
    std::vector<std::size_t> shape(rank);
    std::size_t n = 1;
    for (auto& d : shape) n *= (d = 1 + rng.below(rank == 1 ? 100 : 9));
    std::vector<std::uint32_t> data(n);
    for (auto& x : data) x = std::bit_cast<std::uint32_t>(std::ldexp(static_cast<float>(rng.below(2000)) - 1000.0f, -static_cast<int>(rng.below(20))));
    const std::size_t axis = rng.below(rank);
    const std::size_t k = 1 + rng.below(8);
    BlockOptions o;
    o.element = kElements[rng.below(6)];
    const MxTensor q = quantize_tensor(FormatId::f32, data.data(), shape, axis, k, o);
    // Independent gather: walk every block along the axis.
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (std::size_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    const std::size_t len = shape[axis], nb = (len + k - 1) / k;
    bool ok = q.scale_shape[axis] == nb && q.scales.size() == outer * nb * inner;
    for (std::size_t o2 = 0; ok && o2 < outer; ++o2)
      for (std::size_t in = 0; ok && in < inner; ++in)
        for (std::size_t b = 0; ok && b < nb; ++b) {
          // The block zero-padded to k: the padding must not change anything.
          std::vector<std::uint32_t> blk(k, 0);
          std::vector<std::size_t> at;
          for (std::size_t j = 0; j < k && b * k + j < len; ++j) {
            at.push_back((o2 * len + b * k + j) * inner + in);
            blk[j] = data[at.back()];
          }
          const QuantizedBlock want = quantize_block(FormatId::f32, blk.data(), k, o);
          ok = q.scales[(o2 * nb + b) * inner + in] == want.scale;
          for (std::size_t j = 0; ok && j < at.size(); ++j) ok = q.codes[at[j]] == want.codes[j];
        }
    // Dequantize equals element by element.
    std::vector<std::uint32_t> back(n);
    Context c;
    dequantize_tensor(q, FormatId::f32, back.data(), c);
    for (std::size_t i = 0; ok && i < n; ++i) {
      const std::size_t o2 = i / (len * inner), a = (i / inner) % len, in = i % inner;
      ok = back[i] == dequantize_element(o.element, q.scales[(o2 * nb + a / k) * inner + in], q.codes[i],
                                         FormatId::f32, c).code;
    }
    t.check(ok, [&] { return "trial " + std::to_string(trial) + " rank " + std::to_string(rank) + " axis " + std::to_string(axis); });
  }
  t.report();
}

// A scale rule given as a function: it receives the exact amax and the element format, and
// its exponent is clamped like any rule's.
TEST(Blocks, CustomScaleRule) {
  const std::uint32_t v[2] = {std::bit_cast<std::uint32_t>(3.0f), std::bit_cast<std::uint32_t>(-0.5f)};
  BlockOptions o;
  o.element = FormatId::e2m1;
  Unpacked seen;
  o.custom_rule = [&](const Unpacked& amax, const Format& e) {
    seen = amax;
    EXPECT_EQ(e.id, FormatId::e2m1);
    return -1;  // X = 1/2: 3.0 -> 6.0, -0.5 -> -1.0
  };
  const QuantizedBlock q = quantize_block(FormatId::f32, v, 2, o);
  EXPECT_EQ(seen.exp, 1);  // amax = 3 = 1.5 * 2^1
  EXPECT_EQ(seen.sig, 0xC000000000000000u);
  EXPECT_EQ(q.scale, 0x7E);
  EXPECT_EQ(q.codes, (std::vector<std::uint8_t>{0x7, 0xA}));
  o.custom_rule = [](const Unpacked&, const Format&) { return -1000; };
  EXPECT_EQ(quantize_block(FormatId::f32, v, 2, o).scale, 0x00);  // clamped to 2^-127
}

TEST(Blocks, BadArgumentsAreRefused) {
  const std::uint32_t v[2] = {0, 0};
  BlockOptions o;
  EXPECT_THROW(quantize_block(FormatId::f32, v, 0, o), std::invalid_argument);
  EXPECT_THROW(quantize_block(FormatId::e4m3, v, 2, o), std::invalid_argument);
  o.element = FormatId::f16;
  EXPECT_THROW(quantize_block(FormatId::f32, v, 2, o), std::invalid_argument);
  o.element = FormatId::e4m3;
  o.rounding = Rounding::rs;  // without random bits
  EXPECT_THROW(quantize_block(FormatId::f32, v, 2, o), std::invalid_argument);
  const std::size_t shape[2] = {1, 2};
  BlockOptions ok;
  EXPECT_THROW(quantize_tensor(FormatId::f32, v, shape, 2, 32, ok), std::invalid_argument);
  EXPECT_THROW(quantize_tensor(FormatId::f32, v, shape, 0, 0, ok), std::invalid_argument);
}

// ---- properties ----

rc::Gen<std::vector<float>> block_values() {
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 40), [](std::size_t k) {
    return rc::gen::container<std::vector<float>>(
        k, rc::gen::map(rc::gen::pair(rc::gen::inRange(-2000, 2001), rc::gen::inRange(-30, 31)),
                        [](std::pair<int, int> p) { return std::ldexp(static_cast<float>(p.first), p.second); }));
  });
}

// Scaling a block by 2^j shifts its scale by j and leaves the element codes alone, until the
// scale clamps.
RC_GTEST_PROP(BlockProperties, ScaleShiftsWithTheData, ()) {
  const auto values = *block_values();
  const int j = *rc::gen::inRange(-40, 41);
  const FormatId e = *rc::gen::elementOf(std::vector<FormatId>(std::begin(kElements), std::end(kElements)));
  const ScaleRule rule = *rc::gen::element(ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil);
  BlockOptions o;
  o.element = e;
  o.rule = rule;
  std::vector<std::uint32_t> a, b;
  for (float v : values) {
    a.push_back(std::bit_cast<std::uint32_t>(v));
    b.push_back(std::bit_cast<std::uint32_t>(std::ldexp(v, j)));
  }
  const QuantizedBlock qa = quantize_block(FormatId::f32, a.data(), a.size(), o);
  const QuantizedBlock qb = quantize_block(FormatId::f32, b.data(), b.size(), o);
  RC_PRE(qa.scale > 0 && qa.scale < 0xFE && qa.scale + j > 0 && qa.scale + j < 0xFE);
  RC_ASSERT(int(qb.scale) == int(qa.scale) + j);
  RC_ASSERT(qa.codes == qb.codes);
}

// dequantize(quantize(x)) is within the rule's bound: half a unit in the element's last place
// at the value's magnitude (times X), or, where the element saturates, exactly max_E * X.
RC_GTEST_PROP(BlockProperties, RoundTripErrorWithinTheBound, ()) {
  const auto values = *block_values();
  const FormatId e = *rc::gen::elementOf(std::vector<FormatId>(std::begin(kElements), std::end(kElements)));
  const ScaleRule rule = *rc::gen::element(ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil);
  BlockOptions o;
  o.element = e;
  o.rule = rule;
  std::vector<std::uint32_t> a;
  for (float v : values) a.push_back(std::bit_cast<std::uint32_t>(v));
  const QuantizedBlock q = quantize_block(FormatId::f32, a.data(), a.size(), o);
  RC_PRE(q.scale != 0 && q.scale != 0xFF);
  const double X = std::ldexp(1.0, q.scale - 127);
  const double maxE = max_value(e);
  const int emin = format(e).emin();  // int8: 0, its uniform step 2^-6 below 1 as well
  Context c;
  c.saturation = Saturation::none;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const double got = std::bit_cast<float>(static_cast<std::uint32_t>(dequantize_element(e, q.scale, q.codes[i], FormatId::f32, c).code));
    const double r = std::fabs(v) / X;
    if (r > maxE) {
      RC_ASSERT(std::fabs(got) == maxE * X);
    } else {
      const int lg = r == 0 ? emin : std::max(std::ilogb(r), emin);
      const double half_ulp = std::ldexp(1.0, lg - format(e).man_bits - 1) * X;
      RC_ASSERT(std::fabs(got - v) <= half_ulp);
    }
    // The floor rule is the only one that may saturate.
    if (rule != ScaleRule::floor && rule != ScaleRule::even) RC_ASSERT(r <= maxE);
  }
}

}  // namespace
}  // namespace softmx
