// conformance/test_mma_pairs.cpp: mma_pairs (gemm.hpp), the batched kernels behind `softmx gen
// mma`, against TensorCoreModel::mma / mma_scaled called once per line, the definition.
//
// For every named tensor-core model, every element pair it takes (up to three), unscaled where
// mma() takes the pair and block-scaled with the model's instruction scales (mma_shape_defaults:
// UE8M0 per 32, UE4M3 per 16), random lines whose C is drawn to reach every branch of the
// kernels' seeding: +-0, normal values near and far from the products, values with bits below
// Ada's e8m13 grid, subnormals, +-Inf and NaN; elements with NaN/Inf codes now and then; lines
// whose every product is a zero (the sign rules with C = +-0); NaN and extreme scales. Each
// line's D must equal the definition's bit for bit on every kernel table this CPU runs (and
// the reference path), with 1 and 3 threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "softmx/gemm.hpp"
#include "softmx/prng.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"
#include "support/gemm_kernels.hpp"

namespace softmx {
namespace {

using conformance::hex8;

/// C drawn to cover the seeding's branches (gemm.cpp, seed_tc_accumulator; GST: NaN/Inf).
std::uint32_t draw_c(SplitMix64& rng) {
  const std::uint32_t sign = static_cast<std::uint32_t>(rng.below(2)) << 31;
  switch (rng.below(10)) {
    case 0: return sign;                                                             // +-0
    case 1: return sign | static_cast<std::uint32_t>(1 + rng.below(0x7FFFFF));       // subnormal
    case 2: return sign | 0x7F800000u;                                               // +-Inf
    case 3: return 0x7FC00000u | static_cast<std::uint32_t>(rng.below(0x400000));    // NaN
    case 4: return sign | static_cast<std::uint32_t>(rng.below(0x7F800000u));        // anywhere finite
    case 5:  // on e8m13's grid (the low 10 fraction bits zero), near the products
      return sign | static_cast<std::uint32_t>((110 + rng.below(40)) << 23) |
             (static_cast<std::uint32_t>(rng.below(1u << 13)) << 10);
    default:  // near the products, any fraction
      return sign | static_cast<std::uint32_t>((110 + rng.below(40)) << 23) |
             static_cast<std::uint32_t>(rng.below(0x800000));
  }
}

struct Lines {
  std::size_t n = 0, k = 0, nb = 0;
  std::vector<std::uint8_t> a, b, sa, sb;
  std::vector<std::uint32_t> c;
};

Lines draw_lines(SplitMix64& rng, std::size_t n, std::size_t k, FormatId fa, FormatId fb, bool scaled,
                 std::size_t scale_block, FormatId sf) {
  Lines L;
  L.n = n;
  L.k = k;
  L.nb = scaled ? k / scale_block : 1;
  const unsigned wa = format(fa).width, wb = format(fb).width;
  auto code = [&](unsigned w, bool zeros) -> std::uint8_t {
    if (zeros) return static_cast<std::uint8_t>(rng.below(2) << (w - 1));  // +-0
    return static_cast<std::uint8_t>(rng.below(std::uint64_t{1} << w));
  };
  auto scale = [&]() -> std::uint8_t {
    if (!scaled) return 127;
    const auto u = rng.below(40);
    if (sf == FormatId::e4m3) {
      if (u == 0) return 0x7F;                                   // NaN
      if (u == 1) return static_cast<std::uint8_t>(0x80 | rng.below(0x7F));  // the sign bit, ignored
      return static_cast<std::uint8_t>(rng.below(0x7F));
    }
    if (u == 0) return 0xFF;  // NaN
    if (u == 1) return static_cast<std::uint8_t>(rng.below(2) ? 0 : 254);
    return static_cast<std::uint8_t>(112 + rng.below(31));
  };
  for (std::size_t l = 0; l < n; ++l) {
    const bool zeros = rng.below(8) == 0;  // every product a zero: the sign rules
    for (std::size_t t = 0; t < k; ++t) {
      L.a.push_back(code(wa, zeros));
      L.b.push_back(code(wb, zeros && rng.below(4) != 0));
    }
    for (std::size_t j = 0; j < L.nb; ++j) {
      L.sa.push_back(scale());
      L.sb.push_back(scale());
    }
    L.c.push_back(draw_c(rng));
  }
  return L;
}

TEST(MmaPairs, EqualsTheModelPerLineOnEveryKernel) {
  const FormatId elems[] = {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1};
  const auto kerns = conformance::kernels_under_test();
  SplitMix64 rng(0x6d6d61u);
  std::uint64_t lines = 0, compared = 0, bad = 0;
  std::map<std::string, std::uint64_t> bad_by_model;  // printed: which models' kernels a failure is in
  for (const TensorCoreModel* m : tensor_core_models()) {
    const vec::MmaShapeDefaults sh = vec::mma_shape_defaults(*m);
    const std::size_t k = sh.block;
    for (int scaled = 0; scaled < 2; ++scaled) {
      if (scaled && sh.scale_format == vec::MmaScaleFormat::none) continue;
      const FormatId sf = sh.scale_format == vec::MmaScaleFormat::ue4m3 ? FormatId::e4m3 : FormatId::e8m0;
      const std::size_t sblock = scaled ? sh.scale_block : k;
      int pairs = 0;
      for (FormatId fa : elems)
        for (FormatId fb : elems) {
          if (pairs == 3) break;
          const std::vector<std::uint8_t> za(k, 0), s1(k / sblock, sf == FormatId::e4m3 ? 0x38 : 127);
          try {  // the pairs the model takes (its own refusal decides)
            if (scaled) (void)m->mma_scaled(fa, za, fb, za, sf, sblock, s1, s1, FormatId::f32, 0);
            else (void)m->mma(fa, za, fb, za, FormatId::f32, 0);
          } catch (const std::invalid_argument&) {
            continue;
          }
          ++pairs;
          const Lines L = draw_lines(rng, 300, k, fa, fb, scaled != 0, sblock, sf);
          // The definition, line by line.
          std::vector<std::uint32_t> want(L.n);
          for (std::size_t l = 0; l < L.n; ++l) {
            const std::span<const std::uint8_t> a(L.a.data() + l * k, k), b(L.b.data() + l * k, k);
            want[l] = static_cast<std::uint32_t>(
                scaled ? m->mma_scaled(fa, a, fb, b, sf, sblock, std::span(L.sa.data() + l * L.nb, L.nb),
                                       std::span(L.sb.data() + l * L.nb, L.nb), FormatId::f32, L.c[l])
                             .code
                       : m->mma(fa, a, fb, b, FormatId::f32, L.c[l]).code);
          }
          lines += L.n;
          GemmOperand A = gemm_rows(fa, L.n, k, sblock, L.a, L.sa);
          GemmOperand B = gemm_rows(fb, L.n, k, sblock, L.b, L.sb);
          A.scale_format = B.scale_format = sf;
          const std::string what = std::string(m->name()) + " " + std::string(format(fa).name) + " x " +
                                   std::string(format(fb).name) + (scaled ? " scaled" : " unscaled");
          auto check = [&](const std::vector<std::uint32_t>& got, const std::string& how) {
            for (std::size_t l = 0; l < L.n; ++l) {
              ++compared;
              if (got[l] != want[l]) ++bad_by_model[std::string(m->name())];
              if (got[l] != want[l] && ++bad <= 10)
                ADD_FAILURE() << what << " " << how << " line " << l << ": C " << hex8(L.c[l]) << " got "
                              << hex8(got[l]) << " want " << hex8(want[l]);
            }
          };
          const gemm_detail::MmaAddend add{L.c, scaled != 0};
          GemmOptions o;
          o.model = m;
          for (unsigned threads : {1u, 3u}) {
            o.threads = threads;
            std::vector<std::uint32_t> d(L.n, 0xDEADBEEF);
            gemm_detail::gemm_on(nullptr, true, A, B, o, d, {}, &add);
            check(d, "reference path, threads " + std::to_string(threads));
            for (const auto& kt : kerns) {
              std::fill(d.begin(), d.end(), 0xDEADBEEF);
              gemm_detail::gemm_on(kt.k, true, A, B, o, d, {}, &add);
              check(d, kt.name + ", threads " + std::to_string(threads));
            }
          }
          std::vector<std::uint32_t> d(L.n);
          mma_pairs(A, B, *m, scaled != 0, L.c, d);
          check(d, "mma_pairs");
        }
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << compared;
  for (const auto& [name, n] : bad_by_model)
    std::printf("  %s: %llu mismatches\n", name.c_str(), static_cast<unsigned long long>(n));
  std::printf("mma_pairs vs TensorCoreModel::mma per line: %llu lines, %llu comparisons, %llu mismatches\n",
              static_cast<unsigned long long>(lines), static_cast<unsigned long long>(compared),
              static_cast<unsigned long long>(bad));
}

TEST(MmaPairs, RefusesWhatItCannotCompute) {
  const TensorCoreModel& m = *find_tensor_core_model("hopper-fp8-mma");
  const std::vector<std::uint8_t> codes(64, 0), s127(2, 127), s126(2, 126);
  std::vector<std::uint32_t> c(2), d(2);
  auto expect_refusal = [&](const GemmOperand& a, const GemmOperand& b, bool scaled, std::span<std::uint32_t> dd,
                            const std::string& needle) {
    try {
      mma_pairs(a, b, m, scaled, c, dd);
      ADD_FAILURE() << "no refusal; expected one naming '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const GemmOperand ok = gemm_rows(FormatId::e4m3, 2, 32, 32, codes, s127);
  // Unscaled operands are one block of unit scales.
  expect_refusal(gemm_rows(FormatId::e4m3, 2, 32, 16, codes, std::span(codes.data(), 4)), ok, false, d, "one block");
  expect_refusal(gemm_rows(FormatId::e4m3, 2, 32, 32, codes, s126), ok, false, d, "127");
  // D too short; a runtime element; the model's own refusal (hopper-fp8-mma has no scaled form).
  std::vector<std::uint32_t> d1(1);
  expect_refusal(ok, ok, false, d1, "2 pairs");
  expect_refusal(gemm_rows(parse_format_spec("e1m2"), 2, 32, 32, codes, s127), ok, false, d, "e1m2");
  expect_refusal(ok, ok, true, d, "hopper-fp8-mma");
  mma_pairs(ok, ok, m, false, c, d);  // and the well-formed call runs: 0 x 0 + 0 = +0
  EXPECT_EQ(d[0], 0u);
}

}  // namespace
}  // namespace softmx
