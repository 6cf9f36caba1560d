// conformance/test_gemm_runtime.cpp: the GEMM (softmx/gemm.hpp) on runtime element formats
// (issue 14: descriptors of at most 8 bits made at run time, docs/BLOCKS.md 1.1).
//
// - Every kernel this CPU runs (portable, avx2, and the 64-byte source compiled for AVX2) with 1
//   and 3 threads, gemm() and dot_pairs(), equals the reference (dot_general() per output) bit
//   for bit, codes and flags, under exact and fp32-sequential, over random and adversarial
//   matrices of runtime formats (e1m2, e2m2, e3m4 with its Inf and NaN, e4m3fnuz, e5m2fnuz,
//   e4m3b11fnuz, int4, e1m1, e0m3) alone and against named ones. A far bias (e5m2:bias=-40,
//   products up to 2^143) checks the fp32-sequential kernel's hand-over to the reference.
// - The reference is dot_general() per output with the runtime descriptor (checked directly).
// - MPFR, the independent oracle: a few hundred outputs of the exact model (the exact sum of
//   the products times their scales, at 2048 bits, rounded once into f32 by the oracle).
// - Refusals: a runtime element under a tensor-core model, a bias whose products leave the exact
//   accumulator's range, an element format that cannot be one (the field named).
//
// Planted bugs it catches (2026-11-24): the exact tables dropping the sign of negative codes of
// formats narrower than 8 bits: 50,388 kernel outputs differ and 152 of 604 MPFR outputs;
// seq_kernel_fits always true (or the tables' max_abs left 0): 4,664 fp32-sequential outputs
// differ (e5m2:bias=-40's products overflow the kernel's f32 block sums); gemm_on without
// check_runtime_range: e4m3:bias=200 is accepted (RefusesWhatDotGeneralRefuses fails).
#include <gtest/gtest.h>

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gemm/kernel_api.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/gemm_kernels.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

namespace softmx::conformance {
namespace {

/// A format's codes by kind, from the descriptor: specials (NaN, Inf), finite non-extreme codes,
/// extremes (zeros, the smallest and largest magnitudes), and each finite code's negation.
struct Codes {
  ElementFormat f;
  std::vector<std::uint8_t> special, finite, extreme, zeros;
  std::vector<std::uint8_t> neg;  // neg[c]: the code of -value(c) (c itself when there is none)
  explicit Codes(const ElementFormat& e) : f(e) {
    const Format& fm = f;
    const int n = static_cast<int>(fm.code_mask()) + 1;
    std::vector<double> v(n, 0);
    double lo = 0, hi = 0;
    for (int c = 0; c < n; ++c) {
      const Unpacked u = unpack(fm, static_cast<std::uint64_t>(c));
      if (u.cls == ValueClass::nan || u.cls == ValueClass::inf) {
        special.push_back(static_cast<std::uint8_t>(c));
        continue;
      }
      if (u.cls == ValueClass::zero) {
        zeros.push_back(static_cast<std::uint8_t>(c));
        continue;
      }
      const double m = std::ldexp(static_cast<double>(u.sig), u.exp - 63);
      v[c] = u.sign ? -m : m;
      if (lo == 0 || m < lo) lo = m;
      hi = std::max(hi, m);
    }
    neg.resize(n);
    for (int c = 0; c < n; ++c) {
      neg[c] = static_cast<std::uint8_t>(c);
      if (v[c] != 0)
        for (int d = 0; d < n; ++d)
          if (v[d] == -v[c]) neg[c] = static_cast<std::uint8_t>(d);
      if (v[c] == 0) continue;
      const double m = std::abs(v[c]);
      (m == lo || m == hi ? extreme : finite).push_back(static_cast<std::uint8_t>(c));
    }
    for (std::uint8_t z : zeros) extreme.push_back(z);
    if (finite.empty()) finite = extreme;
  }
};

struct Features {
  int spread;         // scale spread around 127
  double special;     // chance of a NaN/Inf code per element (formats that have them)
  double nan_scale;   // chance of a NaN scale per block
  double zero_block;  // chance of a block of zeros
  double cancel;      // chance that a B vector is A's row with its second half negated
  double extreme;     // chance of an extreme code
};

/// A (M x K row-major, scales M x nb) and B (K x N row-major, scales nb x N).
struct Mats {
  ElementFormat fa, fb;
  std::size_t M = 0, N = 0, K = 0, block = 32;
  std::vector<std::uint8_t> a, as, b, bs;
  std::size_t nb() const { return (K + block - 1) / block; }
  GemmOperand A() const { return gemm_rows(fa, M, K, block, a, as); }
  GemmOperand B() const { return gemm_columns(fb, K, N, block, b, bs); }
  std::string label() const {
    return std::string(fa.name()) + " x " + std::string(fb.name()) + ", M " + std::to_string(M) + " N " +
           std::to_string(N) + " K " + std::to_string(K) + " block " + std::to_string(block);
  }
};

double uniform(SplitMix64& rng) { return static_cast<double>(rng.next() >> 11) * 0x1p-53; }

std::uint8_t draw(const Codes& c, SplitMix64& rng, const Features& ft) {
  const double u = uniform(rng);
  if (u < ft.special && !c.special.empty()) return c.special[rng.below(c.special.size())];
  if (u < ft.special + ft.extreme) return c.extreme[rng.below(c.extreme.size())];
  return c.finite[rng.below(c.finite.size())];
}

Mats random_mats(const Codes& ca, const Codes& cb, SplitMix64& rng, const Features& ft, std::size_t maxdim,
                 std::size_t maxk) {
  Mats m{ca.f, cb.f, 0, 0, 0, 32, {}, {}, {}, {}};  // every field: -Wmissing-field-initializers
  m.M = 1 + rng.below(maxdim);
  m.N = 1 + rng.below(maxdim);
  m.K = 1 + rng.below(maxk);
  const std::size_t blocks[] = {1, 3, 7, 16, 32, 32, 33};
  m.block = blocks[rng.below(7)];
  m.a.resize(m.M * m.K);
  m.b.resize(m.K * m.N);
  m.as.resize(m.M * m.nb());
  m.bs.resize(m.nb() * m.N);
  auto scale = [&] {
    if (uniform(rng) < ft.nan_scale) return std::uint8_t{0xFF};
    return static_cast<std::uint8_t>(std::clamp(127 + static_cast<int>(rng.below(2 * ft.spread + 1)) - ft.spread, 0, 254));
  };
  for (auto& c : m.a) c = draw(ca, rng, ft);
  for (auto& c : m.b) c = draw(cb, rng, ft);
  for (auto& s : m.as) s = scale();
  for (auto& s : m.bs) s = scale();
  for (std::size_t blk = 0; blk < m.nb(); ++blk) {
    const std::size_t t0 = blk * m.block, t1 = std::min(m.K, t0 + m.block);
    for (std::size_t i = 0; i < m.M; ++i)
      if (uniform(rng) < ft.zero_block)
        for (std::size_t t = t0; t < t1; ++t) m.a[i * m.K + t] = ca.zeros[rng.below(ca.zeros.size())];
    for (std::size_t j = 0; j < m.N; ++j)
      if (uniform(rng) < ft.zero_block)
        for (std::size_t t = t0; t < t1; ++t) m.b[t * m.N + j] = cb.zeros[rng.below(cb.zeros.size())];
  }
  // Cancellation (same formats): B column j = A row i with its second half the first half
  // negated, and A row i's halves equal, so that the halves' products cancel.
  if (m.fa == m.fb)
    for (std::size_t j = 0; j < m.N; ++j)
      if (uniform(rng) < ft.cancel) {
        const std::size_t i = rng.below(m.M), h = m.K / 2;
        for (std::size_t t = 0; t < m.K; ++t) m.b[t * m.N + j] = m.a[i * m.K + t];
        for (std::size_t blk = 0; blk < m.nb(); ++blk) m.bs[blk * m.N + j] = m.as[i * m.nb() + blk];
        for (std::size_t t = 0; t < h && h + t < m.K; ++t) {
          m.a[i * m.K + h + t] = m.a[i * m.K + t];
          m.b[(h + t) * m.N + j] = cb.neg[m.b[t * m.N + j]];
        }
      }
  return m;
}

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> v;
  Context c;
  v.push_back({&exact_accumulation(), c, "exact rne"});
  c.rounding = Rounding::rz;
  c.saturation = Saturation::finite;
  v.push_back({&exact_accumulation(), c, "exact rz finite"});
  for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::rna, Rounding::ro}) {
    Context s;
    s.rounding = r;
    v.push_back({&fp32_sequential_accumulation(), s, std::string("fp32-sequential ") + std::string(name(r))});
  }
  return v;
}

/// The reference (gemm_on with no kernels: dot_general per output), then every kernel with 1 and
/// 3 threads, gemm and dot_pairs (pairs: A's first min(M, N) rows against B's first columns).
void compare(const Mats& m, const ModelCase& mc, Tally& tally) {
  for (bool pairs : {false, true}) {
    Mats p = m;
    if (pairs) {  // dot_pairs takes as many B vectors as A's: the first min(M, N) of each
      const std::size_t L = std::min(m.M, m.N);
      p.M = p.N = L;
      p.a.resize(L * m.K);
      p.as.resize(L * m.nb());
      p.b.resize(m.K * L);
      p.bs.resize(m.nb() * L);
      for (std::size_t t = 0; t < m.K; ++t)
        for (std::size_t j = 0; j < L; ++j) p.b[t * L + j] = m.b[t * m.N + j];
      for (std::size_t blk = 0; blk < m.nb(); ++blk)
        for (std::size_t j = 0; j < L; ++j) p.bs[blk * L + j] = m.bs[blk * m.N + j];
    }
    compare_with_reference(pairs, p.A(), p.B(), options_for(mc, 2), false,
                           (pairs ? "dot_pairs " : "gemm ") + mc.label + " (" + p.label() + ")", tally);
  }
}

// The runtime formats under test, alone and against named and other runtime ones.
const char* const kPairs[][2] = {
    {"e1m2", "e1m2"},   {"e2m2", "e2m2"},     {"e3m4", "e3m4"},        {"e4m3fnuz", "e4m3fnuz"}, {"int4", "int4"},
    {"e1m1", "e1m1"},   {"e1m2", "e2m1"},     {"e2m2", "e4m3"},        {"e5m2fnuz", "e4m3fnuz"}, {"int4", "int8"},
    {"e3m4", "e5m2"},   {"e4m3b11fnuz", "e0m3"}, {"e1m1", "e2m2"},     {"e5m2:bias=-40", "e5m2:bias=-40"},
    {"e5m2:bias=-40", "e1m2"}};

void random_matrices(std::uint64_t seed, int per_pair, const Features& ft, std::size_t maxdim, std::size_t maxk,
                     const std::string& what) {
  Tally tally("gemm runtime elements, kernels == reference, " + what);
  SplitMix64 rng(seed);
  const auto cases = model_cases();
  for (const auto& pr : kPairs) {
    const Codes ca(parse_format_spec(pr[0])), cb(parse_format_spec(pr[1]));
    for (int n = 0; n < per_pair; ++n) {
      const Mats m = random_mats(ca, cb, rng, ft, maxdim, maxk);
      for (const ModelCase& mc : cases) compare(m, mc, tally);
    }
  }
  tally.report();
}

TEST(GemmRuntime, RandomOrdinary) {
  random_matrices(0x6E21, 2, Features{3, 0, 0, 0, 0, 0.05}, 24, 90, "ordinary (scales 127 +- 3)");
}
TEST(GemmRuntime, RandomAdversarial) {
  random_matrices(0x6E22, 2, Features{30, 0.004, 0.005, 0.1, 0.3, 0.2}, 24, 90,
                  "adversarial (spread 30, specials, NaN scales, zero blocks, cancellation, extremes)");
}
TEST(GemmRuntime, RandomExtremeScales) {
  random_matrices(0x6E23, 1, Features{127, 0, 0, 0.05, 0.1, 0.3}, 20, 70, "scales over E8M0's whole range");
}

// The reference the kernels are held to is dot_general() per output with the descriptor.
TEST(GemmRuntime, ReferenceIsDotGeneralPerOutput) {
  Tally tally("gemm runtime elements: reference == dot_general per output");
  SplitMix64 rng(0x6E24);
  for (const auto& pr : kPairs) {
    const Codes ca(parse_format_spec(pr[0])), cb(parse_format_spec(pr[1]));
    const Mats m = random_mats(ca, cb, rng, Features{10, 0.01, 0.01, 0.1, 0.1, 0.1}, 6, 40);
    for (const ModelCase& mc : model_cases()) {
      GemmOptions o = options_for(mc, 0);
      o.kernel = GemmKernel::reference;
      std::vector<std::uint32_t> c(m.M * m.N);
      std::vector<Flags> f(m.M * m.N);
      gemm(m.A(), m.B(), o, c, f);
      for (std::size_t i = 0; i < m.M; ++i)
        for (std::size_t j = 0; j < m.N; ++j) {
          std::vector<std::vector<std::uint8_t>> xa(m.nb()), xb(m.nb());
          std::vector<BlockRef> ra, rb;
          for (std::size_t blk = 0; blk < m.nb(); ++blk)
            for (std::size_t t = blk * m.block; t < std::min(m.K, (blk + 1) * m.block); ++t) {
              xa[blk].push_back(m.a[i * m.K + t]);
              xb[blk].push_back(m.b[t * m.N + j]);
            }
          for (std::size_t blk = 0; blk < m.nb(); ++blk) {
            ra.push_back({m.fa.id(), m.as[i * m.nb() + blk], xa[blk], &m.fa.format()});
            rb.push_back({m.fb.id(), m.bs[blk * m.N + j], xb[blk], &m.fb.format()});
          }
          const Result r = dot_general(ra, rb, mc.ctx, *mc.model);
          tally.check(r.code == c[i * m.N + j] && r.flags == f[i * m.N + j], [&] {
            return mc.label + " " + m.label() + ": output (" + std::to_string(i) + ", " + std::to_string(j) +
                   ") dot_general " + hex8(r.code) + " gemm " + hex8(c[i * m.N + j]);
          });
        }
    }
  }
  tally.report();
}

using Mpfr = MpfrValue<2048>;

// The exact model's outputs on the default kernel against MPFR: the sum of every product times
// 2^(sa + sb - 254), exact at 2048 bits, rounded once into f32 by the oracle (rne and rz x
// finite/none). Non-zero sums only (a zero sum's sign is the products' rule, BLOCKS.md 5).
TEST(GemmRuntime, ExactModelAgainstMpfr) {
  Tally tally("mpfr: gemm exact model on runtime elements (default kernel)");
  const oracle::Policies pol = to_oracle(ocp_dialect());
  const oracle::Desc f32d = to_oracle(format(FormatId::f32));
  SplitMix64 rng(0x6E25);
  for (const auto& pr : kPairs) {
    const Codes ca(parse_format_spec(pr[0])), cb(parse_format_spec(pr[1]));
    const oracle::Desc da = to_oracle(ca.f.format()), db = to_oracle(cb.f.format());
    const Mats m = random_mats(ca, cb, rng, Features{40, 0, 0, 0.05, 0.2, 0.2}, 5, 80);
    for (Rounding r : {Rounding::rne, Rounding::rz})
      for (Saturation sat : {Saturation::finite, Saturation::none}) {
        GemmOptions o;
        o.out.rounding = r;
        o.out.saturation = sat;
        std::vector<std::uint32_t> c(m.M * m.N);
        std::vector<Flags> f(m.M * m.N);
        gemm(m.A(), m.B(), o, c, f);
        Mpfr sum(2048), x(2048), y(2048);
        for (std::size_t i = 0; i < m.M; ++i)
          for (std::size_t j = 0; j < m.N; ++j) {
            mpfr_set_zero(sum.x, 1);
            for (std::size_t t = 0; t < m.K; ++t) {
              oracle::decode(da, m.a[i * m.K + t], x.x);
              oracle::decode(db, m.b[t * m.N + j], y.x);
              mpfr_mul(x.x, x.x, y.x, MPFR_RNDN);
              const std::size_t blk = t / m.block;
              mpfr_mul_2si(x.x, x.x, static_cast<long>(m.as[i * m.nb() + blk]) + m.bs[blk * m.N + j] - 254, MPFR_RNDN);
              mpfr_add(sum.x, sum.x, x.x, MPFR_RNDN);
            }
            if (mpfr_zero_p(sum.x)) continue;
            const oracle::Outcome w = oracle::round_value_all(sum.x, f32d, pol)
                                          .at(to_oracle(r), to_oracle(sat), oracle::Tiny::after);
            const std::size_t at = i * m.N + j;
            tally.check(c[at] == w.code && f[at] == w.flags, [&] {
              return m.label() + " " + std::string(name(r)) + " " + std::string(name(sat)) + ": output (" +
                     std::to_string(i) + ", " + std::to_string(j) + ") gemm " + hex8(c[at]) + "/" +
                     std::to_string(f[at]) + " mpfr " + hex8(w.code) + "/" + std::to_string(w.flags);
            });
          }
      }
  }
  tally.report();
}

// e1m2 by hand (the seed's E1M2, max 1.75): A = [1.75, -0.25] at 2^0 and B = [1.0, 0.5] at 2^1:
// (1.75 - 0.125) * 2 = 3.25 = 0x40500000; as a dot_pairs pair too.
TEST(GemmRuntime, E1m2ByHand) {
  const ElementFormat e1m2 = parse_format_spec("e1m2");
  // e1m2 codes are s e m m with bias 1: 1.75 = 0111, -0.25 = 1001 (subnormal 1/4), 1.0 = 0100,
  // 0.5 = 0010 (subnormal 2/4).
  const std::vector<std::uint8_t> a = {0x7, 0x9}, as = {127}, b = {0x4, 0x2}, bs = {128};
  std::vector<std::uint32_t> c(1);
  for (GemmKernel k : supported_gemm_kernels()) {
    GemmOptions o;
    o.kernel = k;
    gemm(gemm_rows(e1m2, 1, 2, 32, a, as), gemm_columns(e1m2, 2, 1, 32, b, bs), o, c);
    EXPECT_EQ(c[0], 0x40500000u) << name(k);
    o.model = &fp32_sequential_accumulation();
    dot_pairs(gemm_rows(e1m2, 1, 2, 32, a, as), gemm_rows(e1m2, 1, 2, 32, b, bs), o, c);
    EXPECT_EQ(c[0], 0x40500000u) << name(k);
  }
}

TEST(GemmRuntime, RefusesWhatDotGeneralRefuses) {
  std::vector<std::uint8_t> a(64, 0x1), as(2, 127);
  std::vector<std::uint32_t> c(4);
  auto expect = [&](const GemmOperand& x, const GemmOperand& y, const GemmOptions& o, const char* needle) {
    try {
      gemm(x, y, o, c);
      ADD_FAILURE() << "accepted: expected an error containing '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const ElementFormat e1m2 = parse_format_spec("e1m2");
  const GemmOperand A = gemm_rows(e1m2, 2, 32, 32, a, as);
  GemmOptions tc;
  tc.model = find_accumulation_model("hopper-fp8-mma");
  expect(A, A, tc, "models hardware for the named element formats; a runtime element (e1m2)");
  expect(gemm_rows(FormatId::e4m3, 2, 32, 32, a, as), A, tc, "a runtime element (e1m2)");
  const ElementFormat far = parse_format_spec("e4m3:bias=200");
  expect(gemm_rows(far, 2, 32, 32, a, as), gemm_rows(far, 2, 32, 32, a, as), GemmOptions{}, "bias");
  const ElementFormat u = parse_format_spec("ue4m3");
  expect(gemm_rows(u, 2, 32, 32, a, as), A, GemmOptions{}, "operand A: ");
  std::vector<std::uint8_t> bad(64, 0x9);  // above e1m1's 3-bit codes
  expect(gemm_rows(parse_format_spec("e1m1"), 2, 32, 32, bad, as), A, GemmOptions{}, "out of range for e1m1");
  // A runtime spec equal to a named format is that format (its tensor-core model takes it).
  EXPECT_TRUE(ElementFormat(parse_format_spec("e4m3:bias=7:specials=fn")).is_named());
}

}  // namespace
}  // namespace softmx::conformance
