// conformance/test_dot_scale_format.cpp: Dot and DotGeneral over blocks whose scale format is
// not E8M0 (docs/BLOCKS.md 5: BlockRef::scale_format; ue4m3, ue5m3, e4m3, ...), under the exact
// and fp32-sequential models: cases computed by hand, an MPFR computation of the definition on
// random blocks, and the GEMM's UE4M3 operands under those models against dot_general.
//
// The oracle never asks softmx for a value: every element and scale is the oracle's decoding of
// its code (conformance/oracles), every term ((P^A * P^B) * X_A) * X_B is formed by MPFR
// multiplications (exact at 2048 bits; Inf * 0 is MPFR's NaN), the exact model is the MPFR sum
// rounded once by the oracle, and fp32-sequential replays BLOCKS.md 5 with every f32 rounding
// done by the oracle.
#include <gtest/gtest.h>

#include <bit>
#include <mpfr.h>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "support/bridge.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

Format spec(const char* s) { return parse_format_spec(s); }

using Mpfr = conformance::MpfrValue<2048>;

// ---- by hand ----
//
// ue4m3: unsigned, bias 7, 3 fraction bits, 0x7F NaN; 1.25 = 1.010b * 2^0 = (7 << 3) | 2 = 0x3A,
// 0.75 = 1.100b * 2^-1 = (6 << 3) | 4 = 0x34, 1.0 = 0x38, 0 = 0x00. ue5m3: bias 15, ieee: 0x78
// = 1.0, 0xF8 = Inf, 0xF9..0xFB signalling NaNs, 0xFC..0xFF quiet. e2m1: 1.5 = 0x3, 2 = 0x4,
// 4 = 0x6, -0.5 = 0x9. e4m3: 1.0 = 0x38, sign bit 0x80.

const Format kUe4m3 = spec("ue4m3");
const Format kUe5m3 = spec("ue5m3");
const Format kE4m3 = format(FormatId::e4m3);

BlockRef blk(FormatId f, std::uint8_t scale, const std::vector<std::uint8_t>& codes, const Format* sf) {
  return BlockRef{f, scale, codes, nullptr, sf};
}

TEST(DotScaleFormat, Ue4m3ScalesByHand) {
  // (1.5 * 4 + 2 * -0.5) * 1.25 * 0.75 = 5 * 0.9375 = 4.6875 = 0x40960000, exact under both models
  // (fp32-sequential: s = 6, then 5; d = RN(5 * 0.9375) = 4.6875).
  const std::vector<std::uint8_t> a = {0x3, 0x4}, b = {0x6, 0x9};
  const BlockRef A = blk(FormatId::e2m1, 0x3A, a, &kUe4m3), B = blk(FormatId::e2m1, 0x34, b, &kUe4m3);
  for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()}) {
    const Result r = dot(A, B, Context{}, *m);
    EXPECT_EQ(r.code, 0x40960000u) << m->name();
    EXPECT_EQ(r.flags, 0) << m->name();
  }
  // 1 * 1 * 1.25 * 1.125 (0x39) = 1.40625 = 0x3FB40000.
  const std::vector<std::uint8_t> one = {0x38};
  EXPECT_EQ(dot(blk(FormatId::e4m3, 0x3A, one, &kUe4m3), blk(FormatId::e4m3, 0x39, one, &kUe4m3), Context{}).code,
            0x3FB40000u);
  // Four factors of 15/8 (e4m3 0x3F, ue4m3 0x3F): 50625 / 4096 = 12.359619140625; 50625 =
  // 1.1000101110000001b * 2^15 (16 significant bits), exact in f32: exponent field 130, fraction
  // 17857 * 2^8 = 0x45C100, so 0x4145C100; the same under rz.
  const std::vector<std::uint8_t> m = {0x3F};
  Context rz;
  rz.rounding = Rounding::rz;
  EXPECT_EQ(dot(blk(FormatId::e4m3, 0x3F, m, &kUe4m3), blk(FormatId::e4m3, 0x3F, m, &kUe4m3), rz).code, 0x4145C100u);
}

TEST(DotScaleFormat, ZeroInfNaNAndSignedScalesByHand) {
  const std::vector<std::uint8_t> one = {0x38}, minus_one = {0xB8}, zero = {0x00};
  // A zero scale (ue4m3 0x00): 1 * -1 * 0 * 1 = -0, every product -0: exact gives -0;
  // fp32-sequential gives +0 (d = RN(-1 * 0) = -0, then acc = RN(+0 + -0) = +0).
  const BlockRef A0 = blk(FormatId::e4m3, 0x00, one, &kUe4m3), B = blk(FormatId::e4m3, 0x38, minus_one, &kUe4m3);
  EXPECT_EQ(dot(A0, B, Context{}).code, 0x80000000u);
  EXPECT_EQ(dot(A0, B, Context{}, fp32_sequential_accumulation()).code, 0x00000000u);
  // An Inf scale (ue5m3 0xF8) times 1 * 1: +Inf, no flag; times a zero element: NaN, invalid.
  const BlockRef Ainf = blk(FormatId::e4m3, 0xF8, one, &kUe5m3), B1 = blk(FormatId::e4m3, 0x78, one, &kUe5m3);
  for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()}) {
    const Result r = dot(Ainf, B1, Context{}, *m);
    EXPECT_EQ(r.code, 0x7F800000u) << m->name();
    EXPECT_EQ(r.flags, 0) << m->name();
    const Result z = dot(blk(FormatId::e4m3, 0xF8, zero, &kUe5m3), B1, Context{}, *m);
    EXPECT_EQ(z.code, 0x7FC00000u) << m->name();
    EXPECT_EQ(z.flags, flag::invalid) << m->name();
    // A quiet NaN scale (ue4m3 0x7F; ue5m3 0xFC): NaN, no flag; a signalling one (ue5m3 0xF9): invalid.
    const Result q = dot(blk(FormatId::e4m3, 0x7F, one, &kUe4m3), blk(FormatId::e4m3, 0x38, one, &kUe4m3), Context{}, *m);
    EXPECT_EQ(q.code, 0x7FC00000u) << m->name();
    EXPECT_EQ(q.flags, 0) << m->name();
    EXPECT_EQ(dot(blk(FormatId::e4m3, 0xFC, zero, &kUe5m3), B1, Context{}, *m).flags, 0) << m->name();
    const Result s = dot(blk(FormatId::e4m3, 0xF9, zero, &kUe5m3), B1, Context{}, *m);
    EXPECT_EQ(s.code, 0x7FC00000u) << m->name();
    EXPECT_EQ(s.flags, flag::invalid) << m->name();
    // A negative scale of a sign-magnitude scale format (e4m3 0xB8 = -1): 1 * 1 * -1 * 1 = -1.
    EXPECT_EQ(dot(blk(FormatId::e4m3, 0xB8, one, &kE4m3), blk(FormatId::e4m3, 0x38, one, &kE4m3), Context{}, *m).code,
              0xBF800000u)
        << m->name();
  }
  // E8M0's descriptor as scale_format is E8M0 (nullptr): 2^(130 - 127) * 2^(125 - 127) = 2.
  const Format e8m0 = format(FormatId::e8m0);
  EXPECT_EQ(dot(blk(FormatId::e4m3, 130, one, &e8m0), blk(FormatId::e4m3, 125, one, nullptr), Context{}).code,
            0x40000000u);
}

TEST(DotScaleFormat, Refusals) {
  const std::vector<std::uint8_t> one = {0x38};
  const BlockRef good = blk(FormatId::e4m3, 0x38, one, &kUe4m3);
  auto refuses = [&](const BlockRef& x, const AccumulationModel& m, const char* needle) {
    try {
      dot(x, good, Context{}, m);
      ADD_FAILURE() << "accepted; expected an error naming '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // A scale code beyond ue4m3's 7 bits.
  refuses(blk(FormatId::e4m3, 0x80, one, &kUe4m3), exact_accumulation(), "out of range for ue4m3");
  // Formats that cannot be a scale: mx_scale_reason's field.
  const Format int4 = spec("int4"), f64 = format(FormatId::f64), e4m3fn_twos = spec("e4m3:sign=twos:specials=none");
  refuses(blk(FormatId::e4m3, 0x00, one, &int4), exact_accumulation(), "scale_format");
  refuses(blk(FormatId::e4m3, 0x00, one, &f64), exact_accumulation(), "width");
  refuses(blk(FormatId::e4m3, 0x00, one, &e4m3fn_twos), exact_accumulation(), "sign");
  // The tensor-core models read E8M0 scales here.
  refuses(good, *find_accumulation_model("hopper-fp8-mma"), "scale format ue4m3");
  refuses(good, *find_accumulation_model("blackwell-mxf4"), "scale format ue4m3");
}

// ---- against MPFR ----

struct Factor {
  bool nan = false, signalling = false;
  Mpfr v{64};
};

// The oracle's reading of a code: NaN (signalling when an ieee format's top fraction bit is
// clear, SEMANTICS 1.1), or its exact value.
void read(const oracle::Desc& d, std::uint64_t code, Factor& f) {
  f.nan = !oracle::decode(d, code, f.v.x);
  f.signalling = f.nan && d.specials == oracle::Desc::Specials::ieee && d.man_bits > 0 &&
                 ((code >> (d.man_bits - 1)) & 1) == 0;
}

struct Side {
  Format element;
  const Format* scale;  // nullptr: E8M0
  std::uint32_t sc;
  std::vector<std::uint8_t> codes;
};

struct Oracle {
  oracle::Policies pol;
  oracle::Desc f32d = conformance::to_oracle(format(FormatId::f32));

  static oracle::Desc scale_desc(const Format* sf) { return conformance::to_oracle(sf ? *sf : format(FormatId::e8m0)); }

  // One term ((x * y) * sa) * sb into `t`; returns false for NaN, setting `invalid` when a step
  // made NaN from numbers (Inf * 0) or an operand was a signalling NaN.
  static bool term(const Factor& x, const Factor& y, const Factor& sa, const Factor& sb, mpfr_ptr t, bool& invalid) {
    bool nan = false;
    mpfr_set_ui(t, 1, MPFR_RNDN);
    for (const Factor* f : {&x, &y, &sa, &sb}) {
      if (f->signalling) invalid = true;
      if (nan || f->nan) {
        nan = true;
        continue;
      }
      mpfr_mul(t, t, f->v.x, MPFR_RNDN);  // exact at 2048 bits
      if (mpfr_nan_p(t)) {
        nan = true;
        invalid = true;
      }
    }
    return !nan;
  }

  struct Want {
    bool skip = false;  // an f32 overflow inside fp32-sequential (the E8M0 suites skip it too)
    std::uint32_t code = 0;
    Flags flags = 0;
  };

  Want special_or_exact(const std::vector<Side>& A, const std::vector<Side>& B, oracle::Mode om, oracle::Sat os,
                        bool& special, bool exact) const {
    Mpfr sum, t;
    mpfr_set_zero(sum.x, 1);
    bool any_nan = false, invalid = false, pos = false, neg = false, all_neg0 = true, all_pos0 = true;
    Factor x, y, sa, sb;
    for (std::size_t j = 0; j < A.size(); ++j) {
      read(scale_desc(A[j].scale), A[j].sc, sa);
      read(scale_desc(B[j].scale), B[j].sc, sb);
      if (!A[j].scale) sa.signalling = false;  // E8M0's NaN raises nothing (OCP MX 6.2)
      if (!B[j].scale) sb.signalling = false;
      for (std::size_t i = 0; i < A[j].codes.size(); ++i) {
        read(conformance::to_oracle(A[j].element), A[j].codes[i], x);
        read(conformance::to_oracle(B[j].element), B[j].codes[i], y);
        if (!term(x, y, sa, sb, t.x, invalid)) {
          any_nan = true;
          continue;
        }
        if (mpfr_inf_p(t.x)) {
          (mpfr_signbit(t.x) ? neg : pos) = true;
          continue;
        }
        if (mpfr_zero_p(t.x)) {
          (mpfr_signbit(t.x) ? all_pos0 : all_neg0) = false;
        } else {
          all_neg0 = all_pos0 = false;
        }
        mpfr_add(sum.x, sum.x, t.x, MPFR_RNDN);  // exact
      }
    }
    Want w;
    special = any_nan || pos || neg;
    if (special) {
      if (any_nan || (pos && neg)) {
        w.code = 0x7FC00000u;
        w.flags = (invalid || (pos && neg && !any_nan)) ? flag::invalid : 0;
      } else {
        // An infinite sum is an f32 Inf rounded as any other (SEMANTICS 5.6: saturation finite
        // gives the largest finite value, with invalid).
        Mpfr inf;
        mpfr_set_inf(inf.x, neg ? -1 : 1);
        const oracle::Outcome o = oracle::round_value_all(inf.x, f32d, pol).at(om, os, oracle::Tiny::after);
        w.code = static_cast<std::uint32_t>(o.code);
        w.flags = static_cast<Flags>(o.flags | (invalid ? flag::invalid : 0));
      }
      return w;
    }
    if (!exact) return w;
    if (mpfr_zero_p(sum.x)) {
      const bool negz = all_neg0 || (!all_pos0 && om == oracle::Mode::rd);
      w.code = negz ? 0x80000000u : 0u;
      return w;
    }
    const oracle::Outcome o = oracle::round_value_all(sum.x, f32d, pol).at(om, os, oracle::Tiny::after);
    w.code = static_cast<std::uint32_t>(o.code);
    w.flags = o.flags;
    return w;
  }

  Want exact(const std::vector<Side>& A, const std::vector<Side>& B, oracle::Mode om, oracle::Sat os) const {
    bool special = false;
    return special_or_exact(A, B, om, os, special, true);
  }

  Want fp32_sequential(const std::vector<Side>& A, const std::vector<Side>& B, oracle::Mode om, oracle::Sat os) const {
    bool special = false;
    const Want sp = special_or_exact(A, B, om, os, special, false);
    if (special) return sp;
    Want w;
    Mpfr acc, s, p, d;
    Factor x, y, sa, sb;
    mpfr_set_zero(acc.x, 1);
    auto round_f32 = [&](mpfr_ptr v) {
      const oracle::Outcome o = oracle::round_value_all(v, f32d, pol).at(om, os, oracle::Tiny::after);
      w.flags |= o.flags;
      oracle::decode(f32d, o.code, v);
      if (mpfr_inf_p(v)) w.skip = true;
    };
    const mpfr_rnd_t zero_rule = om == oracle::Mode::rd ? MPFR_RNDD : MPFR_RNDN;  // IEEE 6.3's zero sign
    for (std::size_t j = 0; j < A.size(); ++j) {
      mpfr_set_zero(s.x, 1);
      for (std::size_t i = 0; i < A[j].codes.size(); ++i) {
        read(conformance::to_oracle(A[j].element), A[j].codes[i], x);
        read(conformance::to_oracle(B[j].element), B[j].codes[i], y);
        mpfr_mul(p.x, x.v.x, y.v.x, MPFR_RNDN);
        mpfr_add(s.x, s.x, p.x, zero_rule);  // exact
        round_f32(s.x);
      }
      read(scale_desc(A[j].scale), A[j].sc, sa);
      read(scale_desc(B[j].scale), B[j].sc, sb);
      mpfr_mul(d.x, s.x, sa.v.x, MPFR_RNDN);  // exact: s_j * X_A * X_B, one rounding below
      mpfr_mul(d.x, d.x, sb.v.x, MPFR_RNDN);
      round_f32(d.x);
      mpfr_add(acc.x, acc.x, d.x, zero_rule);
      round_f32(acc.x);
    }
    w.code = static_cast<std::uint32_t>(oracle::round_value_all(acc.x, f32d, pol).at(om, os, oracle::Tiny::after).code);
    return w;
  }
};

// A code of f: mostly finite, now and then any code (NaN, Inf).
std::uint8_t draw_code(const Format& f, SplitMix64& rng) {
  for (;;) {
    const auto c = static_cast<std::uint8_t>(rng.below(f.code_mask() + 1));
    if (rng.below(16) == 0) return c;
    const ValueClass k = unpack(f, c).cls;
    if (k == ValueClass::finite || k == ValueClass::zero) return c;
  }
}

// A scale code of sf (nullptr: E8M0): mostly within a few binades of 1.0, now and then any code
// (zero, subnormals, the largest, Inf, NaN); sign-magnitude formats sometimes negative.
std::uint32_t draw_scale(const Format* sf, SplitMix64& rng) {
  if (!sf) return static_cast<std::uint32_t>(rng.below(12) == 0 ? rng.below(256) : 120 + rng.below(15));
  if (rng.below(8) == 0) {
    // Any code; for the wide formats (bf16, f16, f32) half of these at the ends of the range
    // (zero, subnormals, the largest finite values, Inf, NaN), which a uniform draw rarely meets.
    if (sf->width > 8 && rng.below(2)) {
      const std::uint64_t inf = sf->all_ones_magnitude() & ~((std::uint64_t{1} << sf->man_bits) - 1);
      const std::uint64_t ends[] = {0, 1, 2, inf - 1, inf - 2, inf, inf + 1, sf->all_ones_magnitude()};
      return static_cast<std::uint32_t>(ends[rng.below(8)]);
    }
    return static_cast<std::uint32_t>(rng.below(sf->code_mask() + 1));
  }
  const int one = sf->bias << sf->man_bits;  // the code of 1.0
  int c = one + static_cast<int>(rng.below(std::uint64_t{6} << sf->man_bits)) - (3 << sf->man_bits);
  if (c < 0) c = 0;
  std::uint64_t code = static_cast<std::uint64_t>(c);
  if (sf->sign == SignEncoding::magnitude && rng.below(6) == 0) code |= std::uint64_t{1} << (sf->width - 1);
  return static_cast<std::uint32_t>(code & sf->code_mask());
}

TEST(DotScaleFormat, DotGeneralAgainstMpfr) {
  conformance::Tally t(
      "mpfr: DotGeneral with scale formats ue4m3/ue5m3/e4m3/ue3m4/bf16/f16/f32/e8m0, exact and fp32-sequential, "
      "rne/rz/ru/rd x finite/none");
  const char* pairs[][2] = {{"e2m1", "e2m1"}, {"e4m3", "e4m3"}, {"e5m2", "e3m2"}, {"e1m2", "int4"}, {"e2m3", "e4m3fnuz"}};
  const Format ue3m4 = spec("ue3m4");
  const Format bf16 = format(FormatId::bf16), f16 = format(FormatId::f16), f32 = format(FormatId::f32);
  const Format* scales[] = {&kUe4m3, &kUe5m3, &kE4m3, &ue3m4, &bf16, &f16, &f32, nullptr};
  const std::size_t ns = std::size(scales);
  const Oracle o;
  SplitMix64 rng(0x5CA1E);
  std::size_t skipped = 0;
  for (const auto& pr : pairs) {
    const Format fa = spec(pr[0]), fb = spec(pr[1]);
    for (int trial = 0; trial < 200; ++trial) {
      const std::size_t n = 1 + rng.below(3), k = 1 + rng.below(16);
      const Format* sfa = scales[rng.below(ns)];
      const Format* sfb = rng.below(3) == 0 ? scales[rng.below(ns)] : sfa;
      if (!sfa && !sfb) sfa = &kUe4m3;  // at least one side not E8M0
      std::vector<Side> A(n), B(n);
      std::vector<BlockRef> ra, rb;
      for (std::size_t j = 0; j < n; ++j) {
        A[j] = Side{fa, sfa, draw_scale(sfa, rng), {}};
        B[j] = Side{fb, sfb, draw_scale(sfb, rng), {}};
        for (std::size_t i = 0; i < k; ++i) {
          A[j].codes.push_back(draw_code(fa, rng));
          B[j].codes.push_back(draw_code(fb, rng));
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        ra.push_back(BlockRef{fa.id, A[j].sc, A[j].codes, &A[j].element, sfa});
        rb.push_back(BlockRef{fb.id, B[j].sc, B[j].codes, &B[j].element, sfb});
      }
      for (Rounding r : {Rounding::rne, Rounding::rz, Rounding::ru, Rounding::rd})
        for (Saturation sat : {Saturation::finite, Saturation::none}) {
          const Context c{.rounding = r, .saturation = sat};
          const oracle::Mode om = conformance::to_oracle(r);
          const oracle::Sat os = conformance::to_oracle(sat);
          auto describe = [&](const char* model, const Result& got, const Oracle::Want& w) {
            std::ostringstream s;
            s << std::hex << model << " " << pr[0] << " x " << pr[1] << " scales "
              << (sfa ? std::string(sfa->name) : "e8m0") << "/" << (sfb ? std::string(sfb->name) : "e8m0") << " "
              << name(r) << " " << name(sat) << " n=" << n << " k=" << k << " SA0=" << A[0].sc
              << " SB0=" << B[0].sc << ": softmx " << got.code << "/" << int(got.flags) << " oracle " << w.code
              << "/" << int(w.flags);
            return s.str();
          };
          const Oracle::Want we = o.exact(A, B, om, os);
          const Result ge = dot_general(ra, rb, c, exact_accumulation());
          t.check(ge.code == we.code && ge.flags == we.flags, [&] { return describe("exact", ge, we); });
          const Oracle::Want ws = o.fp32_sequential(A, B, om, os);
          if (ws.skip) {
            ++skipped;
            continue;
          }
          const Result gs = dot_general(ra, rb, c, fp32_sequential_accumulation());
          t.check(gs.code == ws.code && gs.flags == ws.flags, [&] { return describe("fp32-sequential", gs, ws); });
        }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  EXPECT_LT(skipped, t.cases() / 20) << "too few fp32-sequential cases checked";
}

// ---- the GEMM's UE4M3 operands under exact and fp32-sequential ----

// gemm() and dot_pairs() with scale_format e4m3 (UE4M3: code c read as ue4m3 c & 0x7F) under
// exact and fp32-sequential: the reference per output, equal to dot_general over ue4m3 blocks.
TEST(DotScaleFormat, GemmUe4m3OperandsEqualDotGeneral) {
  conformance::Tally t("gemm/dot_pairs UE4M3 scales, exact and fp32-sequential, == dot_general");
  SplitMix64 rng(0x6E33);
  const std::size_t M = 5, N = 4, K = 48, block = 16, nb = K / block;
  for (FormatId ef : {FormatId::e2m1, FormatId::e4m3}) {
    std::vector<std::uint8_t> ac(M * K), bc(K * N), as(M * nb), bs(nb * N);
    for (auto& c : ac) c = draw_code(format(ef), rng);
    for (auto& c : bc) c = draw_code(format(ef), rng);
    // Every byte: the sign bit is ignored as the GST models ignore it; 0x7F and 0xFF are NaN.
    for (auto& s : as) s = static_cast<std::uint8_t>(rng.below(10) == 0 ? rng.below(256) : 0x30 + rng.below(16));
    for (auto& s : bs) s = static_cast<std::uint8_t>(rng.below(10) == 0 ? rng.below(256) : 0x30 + rng.below(16));
    GemmOperand A = gemm_rows(ef, M, K, block, ac, as), B = gemm_columns(ef, K, N, block, bc, bs);
    A.scale_format = B.scale_format = FormatId::e4m3;
    for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()})
      for (unsigned threads : {1u, 2u}) {
        GemmOptions go;
        go.model = m;
        go.threads = threads;
        std::vector<std::uint32_t> c(M * N);
        std::vector<Flags> fl(M * N);
        gemm(A, B, go, c, fl);
        for (std::size_t i = 0; i < M; ++i)
          for (std::size_t j = 0; j < N; ++j) {
            std::vector<std::vector<std::uint8_t>> ca(nb), cb(nb);
            std::vector<BlockRef> ra, rb;
            for (std::size_t b = 0; b < nb; ++b)
              for (std::size_t e = 0; e < block; ++e) {
                ca[b].push_back(ac[i * K + b * block + e]);
                cb[b].push_back(bc[(b * block + e) * N + j]);
              }
            for (std::size_t b = 0; b < nb; ++b) {
              ra.push_back(BlockRef{ef, static_cast<std::uint8_t>(as[i * nb + b] & 0x7F), ca[b], nullptr, &kUe4m3});
              rb.push_back(BlockRef{ef, static_cast<std::uint8_t>(bs[b * N + j] & 0x7F), cb[b], nullptr, &kUe4m3});
            }
            const Result want = dot_general(ra, rb, Context{}, *m);
            t.check(c[i * N + j] == want.code && fl[i * N + j] == want.flags, [&] {
              std::ostringstream s;
              s << std::hex << m->name() << " " << format(ef).name << " (" << i << "," << j << "): gemm " << c[i * N + j]
                << "/" << int(fl[i * N + j]) << " dot_general " << want.code << "/" << int(want.flags);
              return s.str();
            });
          }
      }
    // dot_pairs: pair l is row l of A and row l of a second M x K operand.
    std::vector<std::uint8_t> pc(M * K), ps(M * nb);
    for (auto& x : pc) x = draw_code(format(ef), rng);
    for (auto& x : ps) x = static_cast<std::uint8_t>(rng.below(10) == 0 ? rng.below(256) : 0x30 + rng.below(16));
    GemmOperand P = gemm_rows(ef, M, K, block, pc, ps);
    P.scale_format = FormatId::e4m3;
    for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()}) {
      GemmOptions go;
      go.model = m;
      std::vector<std::uint32_t> c(M);
      std::vector<Flags> fl(M);
      dot_pairs(A, P, go, c, fl);
      for (std::size_t l = 0; l < M; ++l) {
        std::vector<BlockRef> ra, rb;
        for (std::size_t b = 0; b < nb; ++b) {
          ra.push_back(BlockRef{ef, static_cast<std::uint8_t>(as[l * nb + b] & 0x7F),
                                std::span(ac.data() + l * K + b * block, block), nullptr, &kUe4m3});
          rb.push_back(BlockRef{ef, static_cast<std::uint8_t>(ps[l * nb + b] & 0x7F),
                                std::span(pc.data() + l * K + b * block, block), nullptr, &kUe4m3});
        }
        const Result want = dot_general(ra, rb, Context{}, *m);
        t.check(c[l] == want.code && fl[l] == want.flags, [&] {
          std::ostringstream s;
          s << std::hex << "dot_pairs " << m->name() << " " << format(ef).name << " pair " << l << ": " << c[l] << "/"
            << int(fl[l]) << " dot_general " << want.code << "/" << int(want.flags);
          return s.str();
        });
      }
    }
  }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
  // Other models than exact, fp32-sequential and the GST ones still refuse UE4M3.
  std::vector<std::uint8_t> codes(32, 0x38), sc(1, 0x38);
  GemmOperand A = gemm_rows(FormatId::e4m3, 1, 32, 32, codes, sc), B = gemm_columns(FormatId::e4m3, 32, 1, 32, codes, sc);
  A.scale_format = B.scale_format = FormatId::e4m3;
  GemmOptions go;
  go.model = find_accumulation_model("hopper-fp8-mma");
  std::vector<std::uint32_t> c(1);
  EXPECT_THROW(gemm(A, B, go, c), std::invalid_argument);
}


// ---- the GEMM over any scale format (GemmOperand::block_scale_format) ----

namespace {

// M x K and K x N operands with scale codes of `sf` (scale_code_bytes() bytes each): codes at
// both ends of the range now and then, else within a few binades of 1.0 (draw_scale).
struct AnyScaleProblem {
  std::size_t M, N, K, block, nb;
  std::vector<std::uint8_t> ac, bc, as, bs;  // as, bs: scale bytes
  std::vector<std::uint32_t> asc, bsc;        // the same scale codes, one per entry
};

AnyScaleProblem any_scale_problem(FormatId ef, const Format& sf, SplitMix64& rng) {
  AnyScaleProblem p{5, 4, 40, 16, 3, {}, {}, {}, {}, {}, {}};
  const std::size_t sb = scale_code_bytes(sf);
  p.ac.resize(p.M * p.K);
  p.bc.resize(p.K * p.N);
  for (auto& c : p.ac) c = draw_code(format(ef), rng);
  for (auto& c : p.bc) c = draw_code(format(ef), rng);
  for (std::size_t n : {p.M * p.nb, p.nb * p.N}) {
    auto& codes = n == p.M * p.nb && p.asc.empty() ? p.asc : p.bsc;
    auto& bytes = &codes == &p.asc ? p.as : p.bs;
    codes.resize(n);
    bytes.resize(n * sb);
    for (std::size_t i = 0; i < n; ++i) {
      codes[i] = draw_scale(&sf, rng);
      store_scale_code(bytes.data(), i, sb, codes[i]);
    }
  }
  return p;
}

}  // namespace

// gemm() and dot_pairs() with block_scale_format bf16, f16, f32, ue5m3 and a signed e4m3 (read
// with its sign, unlike scale_format e4m3) under exact and fp32-sequential, on 1 and 2 threads:
// every output and its flags equal dot_general over the same blocks with BlockRef::scale_format
// (which DotGeneralAgainstMpfr checks against MPFR).
TEST(DotScaleFormat, GemmAnyScaleFormatEqualsDotGeneral) {
  conformance::Tally t("gemm/dot_pairs with block_scale_format bf16/f16/f32/ue5m3/e4m3, exact and fp32-sequential, "
                       "== dot_general");
  SplitMix64 rng(0xB5F);
  const Format sfs[] = {format(FormatId::bf16), format(FormatId::f16), format(FormatId::f32), spec("ue5m3"),
                        format(FormatId::e4m3)};
  for (const Format& sf : sfs)
    for (FormatId ef : {FormatId::e2m1, FormatId::e4m3, FormatId::e5m2}) {
      const AnyScaleProblem p = any_scale_problem(ef, sf, rng);
      GemmOperand A = gemm_rows(ef, p.M, p.K, p.block, p.ac, p.as), B = gemm_columns(ef, p.K, p.N, p.block, p.bc, p.bs);
      A.block_scale_format = B.block_scale_format = &sf;
      for (const AccumulationModel* m : {&exact_accumulation(), &fp32_sequential_accumulation()})
        for (unsigned threads : {1u, 2u}) {
          GemmOptions go;
          go.model = m;
          go.threads = threads;
          std::vector<std::uint32_t> c(p.M * p.N);
          std::vector<Flags> fl(p.M * p.N);
          gemm(A, B, go, c, fl);
          for (std::size_t i = 0; i < p.M; ++i)
            for (std::size_t j = 0; j < p.N; ++j) {
              std::vector<std::vector<std::uint8_t>> ca(p.nb), cb(p.nb);
              std::vector<BlockRef> ra, rb;
              for (std::size_t b = 0; b < p.nb; ++b) {
                for (std::size_t e = 0; e < p.block && b * p.block + e < p.K; ++e) {
                  ca[b].push_back(p.ac[i * p.K + b * p.block + e]);
                  cb[b].push_back(p.bc[(b * p.block + e) * p.N + j]);
                }
              }
              for (std::size_t b = 0; b < p.nb; ++b) {
                ra.push_back(BlockRef{ef, p.asc[i * p.nb + b], ca[b], nullptr, &sf});
                rb.push_back(BlockRef{ef, p.bsc[b * p.N + j], cb[b], nullptr, &sf});
              }
              const Result want = dot_general(ra, rb, Context{}, *m);
              t.check(c[i * p.N + j] == want.code && fl[i * p.N + j] == want.flags, [&] {
                std::ostringstream s;
                s << std::hex << m->name() << " " << format(ef).name << " x " << sf.name << " (" << i << "," << j
                  << "): gemm " << c[i * p.N + j] << "/" << int(fl[i * p.N + j]) << " dot_general " << want.code << "/"
                  << int(want.flags);
                return s.str();
              });
            }
          // dot_pairs: pair l is row l of A with itself.
          std::vector<std::uint32_t> d(p.M);
          dot_pairs(A, A, go, d);
          for (std::size_t l = 0; l < p.M; ++l) {
            std::vector<std::vector<std::uint8_t>> ca(p.nb);
            std::vector<BlockRef> ra;
            for (std::size_t b = 0; b < p.nb; ++b)
              for (std::size_t e = 0; e < p.block && b * p.block + e < p.K; ++e)
                ca[b].push_back(p.ac[l * p.K + b * p.block + e]);
            for (std::size_t b = 0; b < p.nb; ++b) ra.push_back(BlockRef{ef, p.asc[l * p.nb + b], ca[b], nullptr, &sf});
            const Result want = dot_general(ra, ra, Context{}, *m);
            t.check(d[l] == want.code, [&] {
              return std::string(m->name()) + " dot_pairs " + std::string(sf.name) + " pair " + std::to_string(l);
            });
          }
        }
    }
  t.report();
  EXPECT_EQ(t.mismatches(), 0u);
}

// A runtime element whose products leave the E8M0 kernels' accumulator range (e4m3:bias=40:
// 2^-84 times E8M0's 2^-254 is below 2^-320) is refused with E8M0 scales, but with f32 scales
// the reference per output sums in dot_general's wider accumulator: equal to dot_general.
TEST(DotScaleFormat, GemmAnyScaleFormatTakesFarBiases) {
  const Format el = spec("e4m3:bias=40"), f32 = format(FormatId::f32);
  SplitMix64 rng(40);
  const std::size_t M = 2, N = 3, K = 32, block = 32;
  std::vector<std::uint8_t> ac(M * K), bc(K * N), as(M), bs(N), asw(4 * M), bsw(4 * N);
  for (auto& c : ac) c = draw_code(el, rng);
  for (auto& c : bc) c = draw_code(el, rng);
  std::vector<std::uint32_t> asc(M), bsc(N);
  for (std::size_t i = 0; i < M; ++i) store_scale_code(asw.data(), i, 4, asc[i] = draw_scale(&f32, rng));
  for (std::size_t j = 0; j < N; ++j) store_scale_code(bsw.data(), j, 4, bsc[j] = draw_scale(&f32, rng));
  GemmOptions go;
  std::vector<std::uint32_t> c(M * N);
  {
    GemmOperand A = gemm_rows(el, M, K, block, ac, as), B = gemm_columns(el, K, N, block, bc, bs);
    EXPECT_THROW(gemm(A, B, go, c), std::invalid_argument);  // E8M0: the kernels' range
  }
  GemmOperand A = gemm_rows(el, M, K, block, ac, asw), B = gemm_columns(el, K, N, block, bc, bsw);
  A.block_scale_format = B.block_scale_format = &f32;
  std::vector<Flags> fl(M * N);
  gemm(A, B, go, c, fl);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      std::vector<std::uint8_t> ca(ac.begin() + static_cast<long>(i * K), ac.begin() + static_cast<long>((i + 1) * K)),
          cb(K);
      for (std::size_t t = 0; t < K; ++t) cb[t] = bc[t * N + j];
      const BlockRef ra{FormatId::runtime, asc[i], ca, &el, &f32}, rb{FormatId::runtime, bsc[j], cb, &el, &f32};
      const Result want = dot(ra, rb, Context{}, exact_accumulation());
      EXPECT_EQ(c[i * N + j], want.code) << i << "," << j;
      EXPECT_EQ(fl[i * N + j], want.flags) << i << "," << j;
    }
}

// What the GEMM refuses with block_scale_format, each error naming the cause.
TEST(DotScaleFormat, GemmAnyScaleFormatRefusals) {
  SplitMix64 rng(7);
  const Format f32 = format(FormatId::f32), bf16 = format(FormatId::bf16), f64 = format(FormatId::f64);
  const AnyScaleProblem p = any_scale_problem(FormatId::e4m3, f32, rng);
  auto refused = [&](GemmOperand A, GemmOperand B, const AccumulationModel& m, const char* needle) {
    GemmOptions go;
    go.model = &m;
    std::vector<std::uint32_t> c(p.M * p.N);
    try {
      gemm(A, B, go, c);
      ADD_FAILURE() << "accepted; wanted " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  GemmOperand A = gemm_rows(FormatId::e4m3, p.M, p.K, p.block, p.ac, p.as);
  GemmOperand B = gemm_columns(FormatId::e4m3, p.K, p.N, p.block, p.bc, p.bs);
  A.block_scale_format = B.block_scale_format = &f32;
  // A tensor-core model reads E8M0 (or UE4M3) scales.
  refused(A, B, *find_accumulation_model("hopper-fp8-mma"), "scale format f32 takes exact or fp32-sequential");
  // Both sides the same format.
  GemmOperand Bb = B;
  Bb.block_scale_format = &bf16;
  refused(A, Bb, exact_accumulation(), "A's scales are f32 and B's bf16");
  GemmOperand Be = B;
  Be.block_scale_format = nullptr;
  refused(A, Be, exact_accumulation(), "A's scales are f32 and B's e8m0");
  // A format that cannot be a scale.
  GemmOperand Af = A, Bf = B;
  Af.block_scale_format = Bf.block_scale_format = &f64;
  refused(Af, Bf, exact_accumulation(), "width");
  // Scales one code short: 4 bytes per code.
  GemmOperand As = A;
  As.scales = std::span(p.as.data(), p.as.size() - 1);
  refused(As, B, exact_accumulation(), "codes of 4 bytes");
  // A code beyond e5m3's 9 bits (2 bytes per code), naming the operand, vector and block.
  const Format e5m3 = spec("e5m3");
  std::vector<std::uint8_t> sa(p.M * p.nb * 2), sb(p.nb * p.N * 2);
  for (std::size_t i = 0; i < p.M * p.nb; ++i) store_scale_code(sa.data(), i, 2, 0x0F0);  // 1.0
  for (std::size_t i = 0; i < p.nb * p.N; ++i) store_scale_code(sb.data(), i, 2, 0x0F0);
  GemmOperand A9 = gemm_rows(FormatId::e4m3, p.M, p.K, p.block, p.ac, sa);
  GemmOperand B9 = gemm_columns(FormatId::e4m3, p.K, p.N, p.block, p.bc, sb);
  A9.block_scale_format = B9.block_scale_format = &e5m3;
  {
    GemmOptions go;
    std::vector<std::uint32_t> c(p.M * p.N);
    EXPECT_NO_THROW(gemm(A9, B9, go, c));
  }
  store_scale_code(sa.data(), 1 * p.nb + 2, 2, 0x200);
  refused(A9, B9, exact_accumulation(), "operand A: scale code 512 (vector 1, block 2) is out of range for e5m3");
}

}  // namespace
}  // namespace softmx
