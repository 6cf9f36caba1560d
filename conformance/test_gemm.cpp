// conformance/test_gemm.cpp: the batched GEMM kernels (softmx/gemm.hpp) against the reference,
// dot_general() per output, bit for bit: codes, flags per output and their OR.
//
// Every kernel this CPU runs is checked (portable, avx2, avx512) and, where AVX2 runs, the
// 64-byte kernels' source compiled for AVX2 (gemm_wide_kernels.cpp), so that the AVX-512 lane
// logic and tile shapes are exercised on a machine without AVX-512. Every model: exact and
// fp32-sequential under every output mode, saturation and tininess, the named tensor-core
// models, and tensor-core parameter sets that take each branch of the kernel (product-exponent
// reference, nearest-even alignment, other groups, widths, accumulator modes and fraction
// bits, flushed subnormals) or that the kernel must hand to the reference (addend after the
// group, a group sum wider than its lanes). With 1 and 3 threads.
//
// Spaces: every code pair of every format pair with companions that make the sum round; every
// scale pair (NaN included) with extreme codes; random matrices with adversarial features
// (scale spreads up to E8M0's whole range, NaN/Inf codes and NaN scales, zero blocks of mixed
// signs, cancelling rows, sizes that are not multiples of any tile or vector width, k not a
// multiple of the block, transposed layouts).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gemm/kernel_api.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "support/gemm_kernels.hpp"
#include "support/report.hpp"

namespace softmx::conformance {
namespace {

/// An A (M x K row-major, scales M x nb) and a B (K x N row-major, scales nb x N), or B held
/// as N x K rows (transposed).
struct Mats {
  FormatId fa = FormatId::e4m3, fb = FormatId::e4m3;
  std::size_t M = 0, N = 0, K = 0, block = 32;
  bool b_rows = false;
  FormatId sf = FormatId::e8m0;  // the scales' format (e4m3: UE4M3, GST models only)
  std::vector<std::uint8_t> a, as, b, bs;
  std::size_t nb() const { return (K + block - 1) / block; }
  GemmOperand A() const {
    GemmOperand o = gemm_rows(fa, M, K, block, a, as);
    o.scale_format = sf;
    return o;
  }
  GemmOperand B() const {
    GemmOperand o = b_rows ? gemm_rows(fb, N, K, block, b, bs) : gemm_columns(fb, K, N, block, b, bs);
    o.scale_format = sf;
    return o;
  }
  void alloc() {
    a.assign(M * K, 0);
    as.assign(M * nb(), 127);
    b.assign(K * N, 0);
    bs.assign(nb() * N, 127);
  }
  std::uint8_t& ac(std::size_t i, std::size_t t) { return a[i * K + t]; }
  std::uint8_t& bc(std::size_t t, std::size_t j) { return b_rows ? b[j * K + t] : b[t * N + j]; }
  std::uint8_t& asc(std::size_t i, std::size_t blk) { return as[i * nb() + blk]; }
  std::uint8_t& bsc(std::size_t blk, std::size_t j) { return b_rows ? bs[j * nb() + blk] : bs[blk * N + j]; }
};

/// One model on one pair of matrices: the reference, then every kernel with 1 and 3 threads.
/// ref_out: when given, receives the reference's codes.
void compare(const Mats& m, const ModelCase& mc, Tally& tally, bool one_thread_only = false, bool pairs = false,
             std::vector<std::uint32_t>* ref_out = nullptr) {
  std::ostringstream what;
  what << (pairs ? "dot_pairs " : "") << mc.label << " (" << format(m.fa).name << " x " << format(m.fb).name << ", M "
       << m.M << " N " << m.N << " K " << m.K << " block " << m.block << (m.b_rows ? ", B as rows" : "")
       << (m.sf == FormatId::e4m3 ? ", UE4M3 scales" : "") << ")";
  // The first output that differs as (i, j), and with SOFTMX_GEMM_DEBUG its operands, block by block.
  const auto at = [&](std::size_t first) {
    const std::size_t i = pairs ? first : first / m.N, j = pairs ? first : first % m.N;
    std::ostringstream s;
    s << " at (" << i << ", " << j << ")";
    if (std::getenv("SOFTMX_GEMM_DEBUG")) {
      Mats& mm = const_cast<Mats&>(m);
      for (std::size_t b = 0; b < m.nb(); ++b) {
        s << "\n  block " << b << ": A scale " << int(mm.asc(i, b)) << " codes";
        for (std::size_t t = b * m.block; t < std::min(m.K, (b + 1) * m.block); ++t) s << ' ' << hex8(mm.ac(i, t)).substr(6);
        s << " | B scale " << int(mm.bsc(b, j)) << " codes";
        for (std::size_t t = b * m.block; t < std::min(m.K, (b + 1) * m.block); ++t) s << ' ' << hex8(mm.bc(t, j)).substr(6);
      }
    }
    return s.str();
  };
  std::vector<std::uint32_t> rc =
      compare_with_reference(pairs, m.A(), m.B(), options_for(mc, 2), one_thread_only, what.str(), tally, at);
  if (ref_out) *ref_out = std::move(rc);
}

struct Custom {
  const char* name;
  int group, F;
  AlignRounding ar;
  AlignReference ref;
  int bits;
  Rounding mode;
  bool flush = false;
  bool addend_in_group = true;
  std::vector<int> order = {};
  bool after = false;
  Rounding addend_mode = Rounding::rne;
};

TensorCoreModel custom(const Custom& c) {
  TensorCoreParams p;
  p.name = c.name;
  p.group_size = c.group;
  p.alignment_bits = c.F;
  p.align_rounding = c.ar;
  p.align_reference = c.ref;
  p.f32 = {c.bits, c.mode, c.addend_mode};
  p.flush_subnormal_inputs = c.flush;
  p.flush_subnormal_outputs = c.flush;
  p.addend_in_group = c.addend_in_group;
  p.product_order = c.order;
  p.addend_stage = c.after ? AddendStage::after_products : AddendStage::first_group;
  return TensorCoreModel(p);
}

std::vector<int> pair_order() {  // hopper-fp8-mma's: k mod 4 in {0, 1}, then {2, 3}
  std::vector<int> o;
  for (int half = 0; half < 2; ++half)
    for (int k = 0; k < 32; ++k)
      if ((k % 4) / 2 == half) o.push_back(k);
  return o;
}

/// Tensor-core parameter sets beyond the named models: each takes a branch of the kernel (the
/// first kQuickCustom), or is one the kernel must leave to the reference.
constexpr std::size_t kQuickCustom = 10;
const std::vector<TensorCoreModel>& custom_models() {
  using AR = AlignRounding;
  using RF = AlignReference;
  static const std::vector<TensorCoreModel> v = {
      custom({"g16-product-ref", 16, 13, AR::truncate, RF::product_exponent, 23, Rounding::rz}),
      custom({"g7-nearest-f5-rne3", 7, 5, AR::nearest_even, RF::operand_exponents, 3, Rounding::rne}),
      custom({"g64-f20-ru", 64, 20, AR::truncate, RF::operand_exponents, 23, Rounding::ru}),
      custom({"g1-f0-rd1", 1, 0, AR::truncate, RF::operand_exponents, 1, Rounding::rd}),
      custom({"g8-f3-nearest-product-ro", 8, 3, AR::nearest_even, RF::product_exponent, 5, Rounding::ro}),
      custom({"g32-flush-rna", 32, 13, AR::truncate, RF::operand_exponents, 13, Rounding::rna, true}),
      custom({"g32-f25-rz (64-bit lanes)", 32, 25, AR::truncate, RF::operand_exponents, 23, Rounding::rz}),
      custom({"g16-pair-order-after-ru-rd (64-bit lanes)", 16, 25, AR::truncate, RF::operand_exponents, 23,
              Rounding::ru, false, true, pair_order(), true, Rounding::rd}),
      custom({"g8-addend-separate-rne10", 8, 10, AR::nearest_even, RF::operand_exponents, 10, Rounding::rne, false,
              false}),
      custom({"g4-reversed-after-separate-rna-ro", 4, 7, AR::truncate, RF::product_exponent, 5, Rounding::rna, false,
              false, {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, true, Rounding::ro}),
      custom({"g32-f60 (reference: wider than 64-bit lanes)", 32, 60, AR::truncate, RF::operand_exponents, 23,
              Rounding::rz}),
  };
  return v;
}

/// Every model and output context. full: every mode x saturation x tininess for exact and
/// fp32-sequential; otherwise every mode once (the saturation and tininess cannot change a
/// kernel's result: they only route overflows and subnormal steps, which go to the reference).
/// routed: also the cases the driver routes to the reference whole (rs for fp32-sequential, the
/// parameter sets without a kernel).
std::vector<ModelCase> model_cases(bool full, bool routed = true) {
  std::vector<ModelCase> v;
  const Rounding modes[] = {Rounding::rne, Rounding::rna, Rounding::rz, Rounding::ru, Rounding::rd, Rounding::ro};
  for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()})
    for (Rounding r : modes)
      for (Saturation s : {Saturation::none, Saturation::finite})
        for (Tininess t : {Tininess::after_rounding, Tininess::before_rounding}) {
          if (!full && (s == Saturation::finite) != (r == Rounding::ru || r == Rounding::rz)) continue;
          if (!full && t == Tininess::before_rounding && r != Rounding::rd) continue;
          if (!full && m == &exact_accumulation() && r != Rounding::rne && r != Rounding::rd) continue;
          Context c;
          c.rounding = r;
          c.saturation = s;
          c.tininess = t;
          v.push_back({m, c, std::string(m->name()) + " " + std::string(name(r)) + " " + std::string(name(s)) + " " +
                                 std::string(name(t))});
        }
  v.push_back({&exact_accumulation(), Context{}, "exact, the default context (saturation by destination)"});
  v.push_back({&fp32_sequential_accumulation(), Context{}, "fp32-sequential, the default context"});
  Context rs;
  rs.rounding = Rounding::rs;
  rs.rbits_width = 20;
  rs.rbits = 0x5A5A5;
  rs.saturation = Saturation::none;
  v.push_back({&exact_accumulation(), rs, "exact rs"});
  if (routed) v.push_back({&fp32_sequential_accumulation(), rs, "fp32-sequential rs (reference)"});
  Context none;
  none.saturation = Saturation::none;
  // The GST models (blackwell-mxf4, blackwell-nvf4) take e2m1 blocks of multiples of 16 only and
  // run as the reference in gemm (test_blackwell_mma); blackwell-f8f6f4 has the arithmetic of
  // blackwell-mxf8f6f4 under another name; ada-fp8-mma runs in the long test only.
  for (const TensorCoreModel* m : tensor_core_models())
    if (m->params().scale_application != ScaleApplication::per_group && m->name() != "blackwell-f8f6f4" &&
        (full || m->name() != "ada-fp8-mma"))  // Ada (group 16, F = 13): the long run (CI time)
      v.push_back({m, none, std::string(m->name())});
  const auto& cm = custom_models();
  for (std::size_t i = 0; i < cm.size(); ++i)
    if (i < kQuickCustom || routed) v.push_back({&cm[i], none, std::string(cm[i].name())});
  return v;
}

#ifdef SOFTMX_GEMM_LONG
constexpr bool kLong = true;
#else
constexpr bool kLong = false;
#endif

const FormatId kFormats[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1, FormatId::int8};

std::uint8_t code_of(FormatId f, double v) {
  Context c;
  c.saturation = Saturation::finite;
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  return static_cast<std::uint8_t>(convert(FormatId::f64, f, bits, c).code);
}

// ---- every code pair ----------------------------------------------------------------------------

// A's rows are every code of fa, B's rows every code of fb, each followed by companions
// (element 1: 1.0 x c, element 2: x x y again for the fp32 order) in two blocks, so that the
// output is x*y + companion products: every code pair meets alignment, truncation and rounding.
void code_pairs(bool full) {
  Tally tally("gemm every code pair x companions, every model x kernel");
  const auto cases = model_cases(full, full);
  for (FormatId fa : kFormats)
    for (FormatId fb : kFormats) {
      const std::size_t na = format(fa).code_mask() + 1, nbn = format(fb).code_mask() + 1;
      // Companion pairs: (1, 1), (max, -min subnormal-ish), (0, -0).
      const double comp[][2] = {{1.0, 1.0}, {0.5, -3.0}, {-0.0, 0.0}};
      for (const auto& cp : comp) {
        if (!full && cp[0] == -0.0 && fa != fb) continue;
        Mats m;
        m.fa = fa;
        m.fb = fb;
        m.M = na;
        m.N = nbn;
        m.K = 3;
        m.block = 2;
        m.b_rows = true;
        m.alloc();
        for (std::size_t i = 0; i < na; ++i) {
          m.ac(i, 0) = static_cast<std::uint8_t>(i);
          m.ac(i, 1) = code_of(fa, cp[0]);
          m.ac(i, 2) = static_cast<std::uint8_t>(i);
        }
        for (std::size_t j = 0; j < nbn; ++j) {
          m.bc(0, j) = static_cast<std::uint8_t>(j);
          m.bc(1, j) = code_of(fb, cp[1]);
          m.bc(2, j) = code_of(fb, 1.0);
        }
        for (const ModelCase& mc : cases) compare(m, mc, tally, true);
      }
    }
  tally.report();
}

TEST(Gemm, EveryCodePairWithCompanions) { code_pairs(kLong); }

// ---- every scale pair -----------------------------------------------------------------------------

// A's rows carry every E8M0 scale (NaN included), B's rows too; the codes are extremes of the
// format (largest, smallest subnormal, one, a negative) so that the scaled products reach
// overflow, the subnormal steps and the NaN scale.
void scale_pairs(FormatId f, bool full) {
  Tally tally(std::string("gemm every scale pair, ") + std::string(format(f).name));
  Mats m;
  m.fa = m.fb = f;
  m.M = m.N = 256;
  m.K = 4;
  m.block = 4;
  m.b_rows = true;
  m.alloc();
  const std::uint8_t big = static_cast<std::uint8_t>(format(f).max_finite_magnitude());
  const std::uint8_t tiny = 1, one = code_of(f, 1.0), neg = code_of(f, -1.5);
  const std::uint8_t ra[4] = {big, tiny, one, neg}, rb[4] = {big, one, tiny, big};
  for (std::size_t i = 0; i < 256; ++i) {
    for (std::size_t t = 0; t < 4; ++t) m.ac(i, t) = ra[t];
    m.asc(i, 0) = static_cast<std::uint8_t>(i);
  }
  for (std::size_t j = 0; j < 256; ++j) {
    for (std::size_t t = 0; t < 4; ++t) m.bc(t, j) = rb[t];
    m.bsc(0, j) = static_cast<std::uint8_t>(j);
  }
  for (const ModelCase& mc : model_cases(full)) compare(m, mc, tally, true);
  tally.report();
}

TEST(Gemm, EveryScalePairE4M3) { scale_pairs(FormatId::e4m3, kLong); }
TEST(Gemm, EveryScalePairE5M2) { scale_pairs(FormatId::e5m2, kLong); }
TEST(Gemm, EveryScalePairInt8) { scale_pairs(FormatId::int8, kLong); }
TEST(Gemm, EveryScalePairE2M1) { scale_pairs(FormatId::e2m1, kLong); }

// ---- the largest group sums ----------------------------------------------------------------------

// Every product at the format pair's largest magnitude, with one sign or alternating, so that a
// group's sum reaches the bound the driver sizes the lanes by (32 or 64 bits); k spans several
// groups and instructions, and the scales are equal so that nothing is cut.
TEST(Gemm, LargestGroupSums) {
  Tally tally("gemm largest group sums, every format pair");
  const auto cases = model_cases(false);
  for (FormatId fa : kFormats)
    for (FormatId fb : kFormats) {
      Mats m;
      m.fa = fa;
      m.fb = fb;
      m.M = 4;
      m.N = 4;
      m.K = 192;
      m.block = 32;
      m.alloc();
      auto big = [](FormatId f, bool neg) {
        const Format& fm = format(f);
        if (f == FormatId::int8) return static_cast<std::uint8_t>(neg ? 0x80 : 0x7F);  // -2.0: |N| = 128
        const auto c = static_cast<std::uint8_t>(fm.max_finite_magnitude());
        return static_cast<std::uint8_t>(neg ? c | (1u << (fm.width - 1)) : c);
      };
      for (std::size_t t = 0; t < m.K; ++t)
        for (std::size_t i = 0; i < 4; ++i) {
          m.ac(i, t) = big(fa, i == 1 || (i == 2 && t % 2) || (i == 3 && t % 7 == 0));
          m.bc(t, i) = big(fb, i == 2 || (i == 3 && t % 3 == 0));
        }
      for (const ModelCase& mc : cases) compare(m, mc, tally, true);
    }
  tally.report();
}

// ---- random and adversarial matrices ----------------------------------------------------------------

struct Features {
  int spread;         // scale spread around 127 (0..127)
  double special;     // chance of a NaN/Inf code per element
  double nan_scale;   // chance of a NaN scale per block
  double zero_block;  // chance of a block of zeros (signs mixed)
  double cancel;      // chance that a B vector is a negated copy of an A vector
  double extreme;     // chance of an extreme code (largest, smallest subnormal)
};

std::uint8_t random_code(SplitMix64& rng, FormatId f, const Features& ft) {
  const Format& fm = format(f);
  const double u = static_cast<double>(rng.next() >> 11) * 0x1p-53;
  std::uint8_t c;
  if (u < ft.special && fm.has_nan()) {
    c = static_cast<std::uint8_t>(fm.has_inf() ? (rng.below(2) ? 0x7C : 0x7D + rng.below(3)) : 0x7F);
    if (rng.below(2)) c |= 0x80;
    return c;
  }
  if (u < ft.special + ft.extreme) {
    const std::uint8_t mags[] = {static_cast<std::uint8_t>(fm.max_finite_magnitude()), 1, 0};
    c = mags[rng.below(3)];
    if (f == FormatId::int8) return rng.below(2) ? static_cast<std::uint8_t>(-static_cast<int>(c)) : c;
    if (rng.below(2)) c |= static_cast<std::uint8_t>(1u << (fm.width - 1));
    return c;
  }
  for (;;) {
    c = static_cast<std::uint8_t>(rng.below(fm.code_mask() + 1));
    const Unpacked x = unpack(fm, c);
    if (x.cls != ValueClass::nan && x.cls != ValueClass::inf) return c;
  }
}

std::uint8_t negate(FormatId f, std::uint8_t c) {
  const Format& fm = format(f);
  if (f == FormatId::int8) return c == 0x80 ? c : static_cast<std::uint8_t>(-static_cast<int>(c));
  return static_cast<std::uint8_t>(c ^ (1u << (fm.width - 1)));
}

Mats random_mats(SplitMix64& rng, const Features& ft, std::size_t maxdim, std::size_t maxk) {
  Mats m;
  m.fa = kFormats[rng.below(6)];
  m.fb = rng.below(3) ? kFormats[rng.below(6)] : m.fa;
  m.M = 1 + rng.below(maxdim);
  m.N = 1 + rng.below(maxdim);
  m.K = 1 + rng.below(maxk);
  const std::size_t blocks[] = {1, 2, 3, 7, 16, 32, 32, 33, 64};
  m.block = blocks[rng.below(9)];
  m.b_rows = rng.below(3) == 0;
  m.alloc();
  auto scale = [&] {
    if (static_cast<double>(rng.next() >> 11) * 0x1p-53 < ft.nan_scale) return std::uint8_t{0xFF};
    const int s = 127 + static_cast<int>(rng.below(2 * ft.spread + 1)) - ft.spread;
    return static_cast<std::uint8_t>(std::clamp(s, 0, 254));
  };
  for (std::size_t i = 0; i < m.M; ++i)
    for (std::size_t t = 0; t < m.K; ++t) m.ac(i, t) = random_code(rng, m.fa, ft);
  for (std::size_t j = 0; j < m.N; ++j)
    for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = random_code(rng, m.fb, ft);
  for (std::size_t i = 0; i < m.M; ++i)
    for (std::size_t b = 0; b < m.nb(); ++b) m.asc(i, b) = scale();
  for (std::size_t j = 0; j < m.N; ++j)
    for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = scale();
  auto zero = [&](FormatId f) {
    const bool neg = rng.below(2) && f != FormatId::int8;
    return static_cast<std::uint8_t>(neg ? 1u << (format(f).width - 1) : 0u);
  };
  for (std::size_t b = 0; b < m.nb(); ++b) {
    const std::size_t t0 = b * m.block, t1 = std::min(m.K, t0 + m.block);
    for (std::size_t i = 0; i < m.M; ++i)
      if (static_cast<double>(rng.next() >> 11) * 0x1p-53 < ft.zero_block)
        for (std::size_t t = t0; t < t1; ++t) m.ac(i, t) = zero(m.fa);
    for (std::size_t j = 0; j < m.N; ++j)
      if (static_cast<double>(rng.next() >> 11) * 0x1p-53 < ft.zero_block)
        for (std::size_t t = t0; t < t1; ++t) m.bc(t, j) = zero(m.fb);
  }
  // Cancellation: B vector j = -(A vector i) with the same scales, when the formats agree: the
  // output (i, j) of an A vector against its negation's partner... and a row of A equal to
  // another row of A negated, so that pairs of outputs cancel in sums over B.
  if (m.fa == m.fb)
    for (std::size_t j = 0; j < m.N; ++j)
      if (static_cast<double>(rng.next() >> 11) * 0x1p-53 < ft.cancel) {
        const std::size_t i = rng.below(m.M);
        for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = m.ac(i, t);
        for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = m.asc(i, b);
        // Negate the second half of the vector: x.x over the first half cancels against the second
        // half when the halves repeat.
        const std::size_t h = m.K / 2;
        for (std::size_t t = 0; t < h && h + t < m.K; ++t) {
          m.ac(i, h + t) = m.ac(i, t);
          m.bc(h + t, j) = negate(m.fb, m.bc(t, j));
        }
      }
  return m;
}

void random_matrices(std::uint64_t seed, int count, const Features& ft, std::size_t maxdim, std::size_t maxk,
                     const std::string& what) {
  Tally tally("gemm random matrices, " + what);
  SplitMix64 rng(seed);
  const auto cases = model_cases(kLong);
  if (kLong) count *= 8;
  for (int n = 0; n < count; ++n) {
    const Mats m = random_mats(rng, ft, maxdim, maxk);
    for (const ModelCase& mc : cases) compare(m, mc, tally);
  }
  tally.report();
}

TEST(Gemm, RandomOrdinary) {
  random_matrices(0x6E11, 12, Features{3, 0, 0, 0, 0, 0}, 40, 150, "ordinary (scales 127 +- 3)");
}
TEST(Gemm, RandomAdversarial) {
  random_matrices(0x6E12, 16, Features{20, 0.002, 0.005, 0.08, 0.2, 0.05}, 40, 140,
                  "adversarial (spread 20, specials, NaN scales, zero blocks, cancellation, extremes)");
}
TEST(Gemm, RandomExtremeScales) {
  random_matrices(0x6E13, 12, Features{127, 0.0, 0.0, 0.05, 0.1, 0.2}, 30, 100, "scales over E8M0's whole range");
}
TEST(Gemm, RandomSparse) {
  random_matrices(0x6E14, 10, Features{2, 0, 0, 0.7, 0.3, 0.0}, 40, 100, "mostly zero blocks");
}

// fp32-sequential's accumulator overflowing while each block's scaled sum is finite: blocks of
// 2^127 (one product 1 * 1 under X = 2^127) add to 2^128. The FPU's sum is Inf and TwoSum's
// error NaN; under rz and ro a NaN with the sign bit set once stepped the Inf back to
// 0x7F7FFFFF, which hid the overflow from the check that routes it to the reference: the code
// was right by chance and the overflow flag lost (found by python/tests/test_matmul.py).
// Row 0: +2^127 twice (overflow), row 1: -2^127 twice, row 2: +2^127 and +2^126 (finite);
// column 1 scales one binade lower (2^127 total: no overflow).
TEST(Gemm, AccumulatorOverflowsUnderEveryMode) {
  Tally tally("fp32-sequential and exact: the accumulator overflows with finite blocks");
  for (const std::size_t K : {std::size_t{64}, std::size_t{96}}) {
    Mats m;
    m.M = 3;
    m.N = 2;
    m.K = K;
    m.alloc();
    for (std::size_t blk = 0; blk < m.nb(); ++blk) {
      m.ac(0, blk * 32) = 0x38;  // e4m3 1.0
      m.ac(1, blk * 32) = 0xB8;  // -1.0
      m.ac(2, blk * 32) = blk ? 0x30 : 0x38;  // 0.5 after the first block
      for (std::size_t i = 0; i < m.M; ++i) m.asc(i, blk) = 254;  // 2^127
      for (std::size_t j = 0; j < m.N; ++j) {
        m.bc(blk * 32, j) = 0x38;
        m.bsc(blk, j) = j ? 126 : 127;
      }
    }
    for (const ModelCase& mc : model_cases(true, false))
      if (mc.model == &exact_accumulation() || mc.model == &fp32_sequential_accumulation()) compare(m, mc, tally, true);
  }
  tally.report();
}

// ---- GST-FDPA: blackwell-mxf4, blackwell-nvf4 ----------------------------------------------------

// The GST models take E2M1 blocks, a multiple of 16 long, with k a multiple of the block (the
// reference refuses anything else). Their kernel (gst_tile) against the reference on: every code
// pair with companions in the other groups of the instruction, every E8M0 scale pair (NaN
// included), and random matrices with adversarial features: scales over E8M0's whole range (a
// chained C near 2^128 and in the subnormals, cut to nothing or overflowing), NaN scales,
// all-zero groups of mixed or negative signs (zero results -0 only when every product is a
// negative zero), groups that cancel (their offer stays x_a + x_b), a previous instruction's
// result that the next one cancels (a zero C), k of 1..13 groups (not a multiple of 32 or 64),
// blocks of 16, 32, 48 and 64, m and n not multiples of any tile, B as rows or columns.
std::vector<ModelCase> gst_cases() {
  Context none;
  none.saturation = Saturation::none;
  std::vector<ModelCase> v;
  for (const TensorCoreModel* m : tensor_core_models())
    if (m->params().scale_application == ScaleApplication::per_group) v.push_back({m, none, std::string(m->name())});
  return v;
}

constexpr std::uint8_t kE2m1One = 0x2, kE2m1Six = 0x7, kE2m1Half = 0x1;

TEST(Gemm, GstEveryCodePair) {
  Tally tally("gemm GST every e2m1 code pair x companions, every kernel");
  // Output (i, j): a_i * b_j in group 0 (scale 1), 6 * 6 in group 1 under 2^x and -0.5 * 1 in
  // group 2 (one instruction of 64); then the next instruction's C is the first one's result,
  // with a_i * b_(15 - j) and -1 * 1 at scale 1. x puts the pair's term on, next to and below the
  // quantum 2^(E - 35) (E = x + 0 for the group term 36 * 2^x: 2^(x + 5)), and C's cut below.
  for (const int x : {0, 33, 34, 35, 36, 37, 38, 40, 60, -60}) {
    Mats m;
    m.fa = m.fb = FormatId::e2m1;
    m.M = 16;
    m.N = 16;
    m.K = 128;
    m.block = 16;
    m.b_rows = true;
    m.alloc();
    for (std::size_t i = 0; i < 16; ++i) {
      m.ac(i, 0) = static_cast<std::uint8_t>(i);
      for (std::size_t t = 16; t < 32; t += 5) m.ac(i, t) = kE2m1Six;
      m.ac(i, 33) = 0x8 | kE2m1Half;  // -0.5
      m.ac(i, 64) = kE2m1One;
      m.ac(i, 100) = static_cast<std::uint8_t>(i);
      m.asc(i, 1) = static_cast<std::uint8_t>(127 + x / 2);
    }
    for (std::size_t j = 0; j < 16; ++j) {
      m.bc(0, j) = static_cast<std::uint8_t>(j);
      for (std::size_t t = 16; t < 32; t += 5) m.bc(t, j) = kE2m1Six;
      m.bc(33, j) = kE2m1One;
      m.bc(64, j) = 0x8 | kE2m1One;
      m.bc(100, j) = static_cast<std::uint8_t>(15 - j);
      m.bsc(1, j) = static_cast<std::uint8_t>(127 + x - x / 2);
    }
    for (const ModelCase& mc : gst_cases()) compare(m, mc, tally);
  }
  tally.report();
}

/// A and B of 256 vectors whose block 0 carries every scale code (block 1 at the code of 1: E8M0
/// 127, UE4M3 0x38): 6 * 6 and 0.5 * -1 in block 0, 0.5 * 0.5 - 6 * 6 in block 1.
Mats gst_scale_pair_mats(std::uint8_t one) {
  Mats m;
  m.fa = m.fb = FormatId::e2m1;
  m.M = m.N = 256;
  m.K = 32;
  m.block = 16;
  m.b_rows = true;
  m.alloc();
  for (std::size_t i = 0; i < 256; ++i) {
    for (std::size_t t = 0; t < 16; ++t) m.ac(i, t) = t % 5 ? kE2m1Six : kE2m1Half;
    m.ac(i, 16) = kE2m1Half;
    m.ac(i, 17) = 0x8 | kE2m1Six;
    m.asc(i, 0) = static_cast<std::uint8_t>(i);
    m.asc(i, 1) = one;
  }
  for (std::size_t j = 0; j < 256; ++j) {
    for (std::size_t t = 0; t < 16; ++t) m.bc(t, j) = t % 3 ? kE2m1Six : (0x8 | kE2m1One);
    m.bc(16, j) = kE2m1Half;
    m.bc(17, j) = kE2m1Six;
    m.bsc(0, j) = static_cast<std::uint8_t>(j);
    m.bsc(1, j) = one;
  }
  return m;
}

TEST(Gemm, GstEveryScalePair) {
  Tally tally("gemm GST every E8M0 scale pair (NaN included), every kernel");
  const Mats m = gst_scale_pair_mats(127);
  for (const ModelCase& mc : gst_cases()) compare(m, mc, tally, true);
  tally.report();
}

// The same with UE4M3 scales (kind::mxf4nvf4 4X): every pair of the 256 codes (the sign bit
// ignored, 0x7F/0xFF NaN, 0x00/0x80 zero: the group offers -139 and adds nothing).
TEST(Gemm, GstEveryScalePairUe4m3) {
  Tally tally("gemm GST every UE4M3 scale pair (NaN and zero included), every kernel");
  Mats m = gst_scale_pair_mats(0x38);
  m.sf = FormatId::e4m3;
  std::vector<std::uint32_t> rc;
  std::size_t nan = 0;
  for (const ModelCase& mc : gst_cases()) {
    compare(m, mc, tally, true, false, &rc);
    for (const std::uint32_t c : rc) nan += (c & 0x7FFFFFFF) > 0x7F800000u;
  }
  // NaN exactly for the rows and columns of 0x7F and 0xFF (2 of 256 each): the others reach the kernel.
  EXPECT_EQ(nan, gst_cases().size() * (256 * 256 - 254 * 254));
  tally.report();
}

// The sign of a zero result (run_gst): a sum the cut leaves at zero is +0 in the first
// instruction (no C) and -0 only when C is -0 and every product of the instruction is a negative
// zero; a non-zero sum below 2^-149 truncates (RZ) to a zero of its own sign, which then is the
// next instruction's C. One scale (2^-80) for every block, so that the kernel, not the
// reference, decides every output: A row 0 starts with -0.5 (B's 0.5: a product -2^-162, which
// truncates to -0), row 1 with +0.5 (+0), row 2 with zeros only, row 3 with a pair of products
// that cancel; then two instructions of zeros: row 0 all -0, rows 1-3 +0 and -0 alternating.
// B column 0 is all +0 after its 0.5, column 1 all -0, column 2 alternating, column 3 all +0
// with the 0.5 moved to the last instruction (a term below the quantum of nothing).
TEST(Gemm, GstSignOfZero) {
  Tally tally("gemm GST the sign of zero results, every kernel");
  Mats m;
  m.fa = m.fb = FormatId::e2m1;
  m.M = 4;
  m.N = 4;
  m.K = 192;
  m.block = 16;
  m.alloc();
  const std::uint8_t pz = 0x0, nz = 0x8, half = kE2m1Half, nhalf = 0x8 | kE2m1Half;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t t = 0; t < m.K; ++t) m.ac(i, t) = i == 0 || t % 2 ? nz : pz;
    for (std::size_t b = 0; b < m.nb(); ++b) m.asc(i, b) = 47;
  }
  m.ac(0, 0) = nhalf;
  m.ac(1, 0) = half;
  m.ac(3, 0) = half;
  m.ac(3, 1) = nhalf;
  for (std::size_t j = 0; j < 4; ++j) {
    for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = j == 1 || (j == 2 && t % 3 == 0) ? nz : pz;
    for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = 47;
    m.bc(j == 3 ? 150 : 0, j) = half;
    m.bc(1, j) = half;
  }
  std::vector<std::uint32_t> rc;
  std::size_t neg = 0, pos = 0;
  for (const ModelCase& mc : gst_cases()) {
    compare(m, mc, tally, false, false, &rc);
    for (const std::uint32_t c : rc) (c == 0x80000000u ? neg : c == 0 ? pos : pos) += c == 0x80000000u || c == 0;
  }
  EXPECT_GT(neg, 0u) << "no -0 result: the case lost its point";
  EXPECT_GT(pos, 0u);
  std::printf("[ features ] zero results: -0 %zu, +0 %zu\n", neg, pos);
  tally.report();
}

Mats gst_random(SplitMix64& rng, int spread, FormatId sf = FormatId::e8m0) {
  Mats m;
  m.fa = m.fb = FormatId::e2m1;
  m.sf = sf;
  m.M = 1 + rng.below(37);
  m.N = 1 + rng.below(37);
  const std::size_t blocks[] = {16, 16, 32, 32, 48, 64};
  m.block = blocks[rng.below(6)];
  m.K = m.block * (1 + rng.below(std::max<std::size_t>(1, 208 / m.block)));
  m.b_rows = rng.below(3) == 0;
  m.alloc();
  auto u = [&] { return static_cast<double>(rng.next() >> 11) * 0x1p-53; };
  auto code = [&] {
    const double x = u();
    if (x < 0.15) return static_cast<std::uint8_t>(rng.below(2) ? 0x8 : 0x0);  // signed zeros
    return static_cast<std::uint8_t>(rng.below(16));
  };
  const double zero_group = u() * 0.5, negzero = u(), nan_scale = u() < 0.3 ? 0.01 : 0.0;
  for (std::size_t i = 0; i < m.M; ++i)
    for (std::size_t t = 0; t < m.K; ++t) m.ac(i, t) = code();
  for (std::size_t j = 0; j < m.N; ++j)
    for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = code();
  // Whole zero groups, mostly negative zeros (A -0 against B +0 and the reverse).
  for (std::size_t g = 0; g < m.K / 16; ++g) {
    for (std::size_t i = 0; i < m.M; ++i)
      if (u() < zero_group)
        for (std::size_t t = g * 16; t < g * 16 + 16; ++t) m.ac(i, t) = u() < negzero ? 0x8 : 0x0;
    for (std::size_t j = 0; j < m.N; ++j)
      if (u() < zero_group)
        for (std::size_t t = g * 16; t < g * 16 + 16; ++t) m.bc(t, j) = u() < negzero ? 0x0 : 0x8;
  }
  auto scale = [&] {
    if (sf == FormatId::e4m3) {  // UE4M3: any code, the sign bit set or not, NaN 0x7F/0xFF and zeros rarer
      const std::uint8_t c = static_cast<std::uint8_t>(rng.below(256));
      if ((c & 0x7F) == 0x7F && u() >= nan_scale * 50) return static_cast<std::uint8_t>(c ^ 0x01);
      return c;
    }
    if (u() < nan_scale) return std::uint8_t{0xFF};
    const int s = 127 + static_cast<int>(rng.below(2 * static_cast<std::uint64_t>(spread) + 1)) - spread;
    return static_cast<std::uint8_t>(std::clamp(s, 0, 254));
  };
  // Adversarial (spread > 20): whole matrices near the top or bottom of E8M0 too.
  const int base_a = spread > 20 ? static_cast<int>(rng.below(3)) - 1 : 0;
  const int base_b = spread > 20 ? static_cast<int>(rng.below(3)) - 1 : 0;
  auto shifted = [&](std::uint8_t s, int base) {  // whole matrices near the top or bottom of E8M0
    if (s == 0xFF || base == 0 || sf == FormatId::e4m3) return s;
    return static_cast<std::uint8_t>(std::clamp(static_cast<int>(s) + base * 100, 0, 254));
  };
  for (std::size_t i = 0; i < m.M; ++i)
    for (std::size_t b = 0; b < m.nb(); ++b) m.asc(i, b) = shifted(scale(), base_a);
  for (std::size_t j = 0; j < m.N; ++j)
    for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = shifted(scale(), base_b);
  // Cancellation: B vector j the negation of A vector i (same scales): output (i, j) is
  // -sum a^2; or the second half of the k range repeating the first with B negated, so that a
  // later instruction cancels an earlier one's result (a zero C, or a C that the cut leaves).
  for (std::size_t j = 0; j < m.N; ++j) {
    const double x = u();
    if (x > 0.3) continue;
    const std::size_t i = rng.below(m.M);
    for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = static_cast<std::uint8_t>(m.ac(i, t) ^ (x < 0.1 ? 0x8 : 0x0));
    for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = m.asc(i, b);
    if (x >= 0.1) {
      const std::size_t h = m.K / 2 / 16 * 16;
      for (std::size_t t = 0; t < h && h + t < m.K; ++t) {
        m.ac(i, h + t) = m.ac(i, t);
        m.bc(h + t, j) = static_cast<std::uint8_t>(m.bc(t, j) ^ 0x8);
      }
      for (std::size_t b = 0; b < m.nb(); ++b)
        if ((b * m.block) >= h) {
          m.asc(i, b) = m.asc(i, (b * m.block - h) / m.block);
          m.bsc(b, j) = m.bsc((b * m.block - h) / m.block, j);
        }
    }
  }
  return m;
}

void gst_random_matrices(std::uint64_t seed, int count, int spread, const std::string& what,
                         FormatId sf = FormatId::e8m0) {
  Tally tally("gemm GST random matrices, " + what);
  Tally pairs("dot_pairs GST random pairs, " + what);
  SplitMix64 rng(seed);
  if (kLong) count *= 8;
  // What the reference's results hold (so that the features are seen to occur): -0, +0, the
  // subnormals, Inf, NaN.
  std::size_t negzero = 0, poszero = 0, subnormal = 0, inf = 0, nan = 0, finite = 0;
  std::vector<std::uint32_t> rc;
  for (int n = 0; n < count; ++n) {
    Mats m = gst_random(rng, spread, sf);
    for (const ModelCase& mc : gst_cases()) {
      compare(m, mc, tally, false, false, &rc);
      for (const std::uint32_t c : rc) {
        const std::uint32_t e = (c >> 23) & 255, f = c & 0x7FFFFF;
        if (c == 0x80000000u) ++negzero;
        else if (c == 0) ++poszero;
        else if (e == 0) ++subnormal;
        else if (e == 255) ++(f ? nan : inf);
        else ++finite;
      }
    }
    m.N = m.M;  // dot_pairs: the first M vectors of a fresh B of M
    Mats p = gst_random(rng, spread, sf);
    p.M = p.N = m.M;
    p.K = m.K;
    p.block = m.block;
    p.b_rows = m.b_rows;
    const std::vector<std::uint8_t> a = m.a, as = m.as;
    p.alloc();
    p.a.assign(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(p.a.size()));
    p.as.assign(as.begin(), as.begin() + static_cast<std::ptrdiff_t>(p.as.size()));
    for (std::size_t j = 0; j < p.N; ++j) {
      for (std::size_t t = 0; t < p.K; ++t) p.bc(t, j) = static_cast<std::uint8_t>(rng.below(16));
      for (std::size_t b = 0; b < p.nb(); ++b)
        p.bsc(b, j) = static_cast<std::uint8_t>(sf == FormatId::e4m3 ? rng.below(0x7F) : 120 + rng.below(15));
      if (j % 3 == 0)  // a negated copy: the pair cancels
        for (std::size_t t = 0; t < p.K; ++t) p.bc(t, j) = static_cast<std::uint8_t>(p.ac(j, t) ^ 0x8);
    }
    for (const ModelCase& mc : gst_cases()) compare(p, mc, pairs, true, true);
  }
  std::printf("[ features ] %s: reference results -0 %zu, +0 %zu, subnormal %zu, Inf %zu, NaN %zu, normal %zu\n",
              what.c_str(), negzero, poszero, subnormal, inf, nan, finite);
  if (spread > 20 && sf == FormatId::e8m0) {
    EXPECT_GT(negzero, 0u);
    EXPECT_GT(subnormal, 0u);
    EXPECT_GT(inf, 0u);
    EXPECT_GT(nan, 0u);
  }
  EXPECT_GT(poszero, 0u);
  tally.report();
  pairs.report();
}

TEST(Gemm, GstRandomOrdinary) { gst_random_matrices(0x6E17, 8, 4, "ordinary (scales 127 +- 4)"); }
TEST(Gemm, GstRandomUe4m3) {
  gst_random_matrices(0x6E19, 14, 0, "UE4M3 scales (every code, NaN 0x7F/0xFF, zeros, zero groups, cancellation)",
                      FormatId::e4m3);
}
TEST(Gemm, GstRandomAdversarial) {
  gst_random_matrices(0x6E18, 14, 40, "adversarial (spread 40, matrices near E8M0's ends, NaN scales, zero groups, cancellation)");
}

// ---- dot_pairs ---------------------------------------------------------------------------------------

// Independent dot products, one pair per lane: the kernels against the reference, and the
// reference against gemm's diagonal (dot_general per output).
TEST(Gemm, DotPairs) {
  Tally tally("dot_pairs random and adversarial pairs, every model x kernel");
  Tally diag("dot_pairs reference == gemm diagonal");
  SplitMix64 rng(0x6E16);
  const auto cases = model_cases(kLong);
  for (int n = 0; n < (kLong ? 64 : 10); ++n) {
    const Features ft = n % 2 ? Features{3, 0, 0, 0, 0, 0} : Features{20, 0.002, 0.005, 0.1, 0.3, 0.05};
    Mats m = random_mats(rng, ft, 100, 140);
    if (m.N != m.M) {  // same number of vectors: redraw B with M vectors
      Mats t = random_mats(rng, ft, 1, 1);
      (void)t;
      m.N = m.M;
      const std::vector<std::uint8_t> a = m.a, as = m.as;
      const FormatId fa = m.fa;
      m.alloc();
      m.a = a;
      m.as = as;
      m.fa = fa;
      for (std::size_t j = 0; j < m.N; ++j)
        for (std::size_t t = 0; t < m.K; ++t) m.bc(t, j) = random_code(rng, m.fb, ft);
      for (std::size_t j = 0; j < m.N; ++j)
        for (std::size_t b = 0; b < m.nb(); ++b) m.bsc(b, j) = static_cast<std::uint8_t>(124 + rng.below(7));
    }
    for (const ModelCase& mc : cases) {
      compare(m, mc, tally, false, true);
      GemmOptions o = options_for(mc, 0);
      o.kernel = GemmKernel::reference;
      std::vector<std::uint32_t> pc(m.M), gc(m.M * m.N);
      std::vector<Flags> pf(m.M), gf(m.M * m.N);
      dot_pairs(m.A(), m.B(), o, pc, pf);
      gemm(m.A(), m.B(), o, gc, gf);
      for (std::size_t l = 0; l < m.M; ++l)
        diag.check(pc[l] == gc[l * m.N + l] && pf[l] == gf[l * m.N + l],
                   [&] { return mc.label + ": pair " + std::to_string(l) + " " + hex8(pc[l]) + " vs " + hex8(gc[l * m.N + l]); });
    }
  }
  tally.report();
  diag.report();
}

// ---- the reference path is dot_general ---------------------------------------------------------------

// gemm's reference indexes the operands itself; this builds every output's blocks independently
// and calls dot_general().
TEST(Gemm, ReferenceIsDotGeneralPerOutput) {
  Tally tally("gemm reference == dot_general per output");
  SplitMix64 rng(0x6E15);
  for (int n = 0; n < 20; ++n) {
    const Mats m = random_mats(rng, Features{10, 0.01, 0.01, 0.1, 0.1, 0.1}, 12, 70);
    for (const ModelCase& mc : model_cases(false)) {
      GemmOptions o = options_for(mc, 0);
      o.kernel = GemmKernel::reference;
      std::vector<std::uint32_t> c(m.M * m.N);
      std::vector<Flags> f(m.M * m.N);
      gemm(m.A(), m.B(), o, c, f);
      Mats mm = m;
      for (std::size_t i = 0; i < m.M; ++i)
        for (std::size_t j = 0; j < m.N; ++j) {
          std::vector<std::vector<std::uint8_t>> ca(m.nb()), cb(m.nb());
          std::vector<BlockRef> ra, rb;
          for (std::size_t b = 0; b < m.nb(); ++b) {
            for (std::size_t t = b * m.block; t < std::min(m.K, (b + 1) * m.block); ++t) {
              ca[b].push_back(mm.ac(i, t));
              cb[b].push_back(mm.bc(t, j));
            }
          }
          for (std::size_t b = 0; b < m.nb(); ++b) {
            ra.push_back({m.fa, mm.asc(i, b), ca[b]});
            rb.push_back({m.fb, mm.bsc(b, j), cb[b]});
          }
          const Result r = dot_general(ra, rb, mc.ctx, *mc.model);
          tally.check(r.code == c[i * m.N + j] && r.flags == f[i * m.N + j], [&] {
            return mc.label + ": output (" + std::to_string(i) + ", " + std::to_string(j) + ") dot_general " +
                   hex8(r.code) + " gemm " + hex8(c[i * m.N + j]);
          });
        }
    }
  }
  tally.report();
}

// ---- bad input -----------------------------------------------------------------------------------

TEST(Gemm, BadInputIsRefused) {
  std::vector<std::uint8_t> a(64, 0x38), as(2, 127), b(64, 0x38), bs(2, 127), bad(64, 0x40);
  std::vector<std::uint32_t> c(4);
  const GemmOptions o;
  auto expect = [&](const GemmOperand& x, const GemmOperand& y, std::span<std::uint32_t> cc, const char* needle) {
    try {
      gemm(x, y, o, cc);
      ADD_FAILURE() << "accepted: expected an error containing '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const GemmOperand A = gemm_rows(FormatId::e4m3, 2, 32, 32, a, as), B = gemm_rows(FormatId::e4m3, 2, 32, 32, b, bs);
  expect(gemm_rows(FormatId::f32, 2, 32, 32, a, as), B, c, "not an MX element format");
  expect(gemm_rows(FormatId::e4m3, 3, 32, 32, a, as), B, c, "codes holds 64 bytes");
  expect(gemm_rows(FormatId::e4m3, 2, 32, 16, a, as), gemm_rows(FormatId::e4m3, 2, 32, 16, b, bs), c, "scales holds 2");
  expect(A, gemm_rows(FormatId::e4m3, 2, 16, 32, b, bs), c, "same k");
  expect(A, gemm_rows(FormatId::e2m1, 2, 32, 32, bad, bs), c, "out of range for e2m1");
  expect(A, B, std::span(c.data(), 3), "c holds 3");
  expect(gemm_rows(FormatId::e4m3, 0, 32, 32, a, as), B, c, "rows is 0");
  expect(gemm_rows(FormatId::e4m3, 2, 32, 0, a, as), B, c, "block is 0");
  GemmOperand U = A;
  U.scale_format = FormatId::e4m3;
  expect(U, B, c, "need the same scale format");
  GemmOperand V = B;
  V.scale_format = FormatId::e4m3;
  // UE4M3 under exact is the reference's (test_dot_scale_format); a tensor-core model without
  // per-group scales refuses it.
  try {
    GemmOptions hopper;
    hopper.model = find_accumulation_model("hopper-fp8-mma");
    gemm(U, V, hopper, c);
    ADD_FAILURE() << "accepted UE4M3 scales under hopper-fp8-mma";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("UE4M3 (e4m3) scales need a model with per-group scales"), std::string::npos)
        << e.what();
  }
  U.scale_format = V.scale_format = FormatId::e5m2;
  expect(U, V, c, "is not a block scale format");
  EXPECT_EQ(bad[0], 0x40);  // inputs are never modified
}

}  // namespace
}  // namespace softmx::conformance
