// bench/bench_convert.cpp: conversion throughput, softmx against its peers in one process over
// the same inputs, one core. Prints the ratios at the end.
//
// Peers, per conversion (f32 into each format and mode NVIDIA's host functions accept):
//   nvidia        NVIDIA's host function (cuda_fp8.h / cuda_fp6.h / cuda_fp4.h, CUDA toolkit) in a
//                 plain loop over the array, inlined as in user code: the baseline of every ratio;
//   mpfr          the conformance suite's MPFR oracle (correct rounding, arbitrary precision);
//   scalar        a straightforward loop of softmx's single-value API (Converter::operator());
//   batch/ISA     Converter::run on each instruction set, with flags and without (flags == null:
//                 NVIDIA's functions give none, so that is the like-for-like comparison).
//
// Runtime formats (docs/SEMANTICS.md 1.1) against the named formats of the same width, same run
// and inputs: f32 -> e4m3fnuz and e5m2fnuz against e4m3, e3m2:bias=4 against e3m2, e2m2 against
// e2m1 (batches on each instruction set, with and without flags: the vector lanes reading the
// destination from the plan), and e4m3fnuz -> f16 against e4m3 -> f16 (the code tables).
//
// Inputs: 4096 f32 values from a fixed SplitMix64 stream: magnitudes 2^-12 .. 2^10 (mostly inside
// E4M3's range, some saturating, some subnormal), random signs and fractions, so branches are
// not predictable. Every benchmark converts the whole array per iteration (items = values).
#include <benchmark/benchmark.h>

#include "rate_reporter.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"

#if defined(SOFTMX_HAVE_MPFR_ORACLE)
#include "oracles/mpfr_oracle.hpp"
#endif
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

namespace {

using softmx::FormatId;
using softmx::Isa;
constexpr std::size_t kN = 4096;

const std::vector<float>& inputs() {
  static const std::vector<float> v = [] {
    std::vector<float> r(kN);
    softmx::SplitMix64 rng(0xBE7C4);
    for (float& x : r) {
      const int e = -12 + static_cast<int>(rng.below(23));
      const float m = 1.0f + static_cast<float>(rng.next() >> 41) * 0x1p-23f;
      x = std::ldexp(rng.below(2) ? -m : m, e);
    }
    return r;
  }();
  return v;
}

softmx::Context ctx(softmx::Rounding r, softmx::Saturation s) {
  softmx::Context c;
  c.rounding = r;
  c.saturation = s;
  return c;
}

void items(benchmark::State& st) { st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(kN)); }

// A loop of softmx's single-value API.
void scalar_loop(benchmark::State& st, FormatId dst, softmx::Context c) {
  const auto& in = inputs();
  std::vector<std::uint8_t> out(kN);
  const softmx::Converter conv(FormatId::f32, dst, c);
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) out[i] = static_cast<std::uint8_t>(conv(std::bit_cast<std::uint32_t>(in[i])).code);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  items(st);
}

// Converter::run on one instruction set, with or without flags.
void batch_to(benchmark::State& st, const softmx::Format& dst, softmx::Context c, Isa isa, bool with_flags) {
  const auto& in = inputs();
  std::vector<std::uint8_t> out(kN);
  std::vector<softmx::Flags> flags(kN);
  const softmx::Converter conv(softmx::format(FormatId::f32), dst, c);
  for (auto _ : st) {
    softmx::run_on(conv, isa, in.data(), out.data(), with_flags ? flags.data() : nullptr, kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  items(st);
}
void batch(benchmark::State& st, FormatId dst, softmx::Context c, Isa isa, bool with_flags) {
  batch_to(st, softmx::format(dst), c, isa, with_flags);
}

// Decoding: FP8 codes to f16 (every code about 16 times, shuffled). softmx's batch reads a table
// of its scalar kernel's results (sources of at most 8 bits); the scalar loop calls it per code.
const std::vector<std::uint8_t>& codes_in() {
  static const std::vector<std::uint8_t> v = [] {
    std::vector<std::uint8_t> r(kN);
    softmx::SplitMix64 rng(0xDEC0DE);
    for (auto& c : r) c = static_cast<std::uint8_t>(rng.below(256));
    return r;
  }();
  return v;
}

void decode_from(benchmark::State& st, const softmx::Format& src, bool batch, bool with_flags) {
  const auto& in = codes_in();
  std::vector<std::uint16_t> out(kN);
  std::vector<softmx::Flags> flags(kN);
  const softmx::Converter conv(src, softmx::format(FormatId::f16), ctx(softmx::Rounding::rne, softmx::Saturation::none));
  for (auto _ : st) {
    if (batch) {
      conv.run(in.data(), out.data(), with_flags ? flags.data() : nullptr, kN);
    } else {
      for (std::size_t i = 0; i < kN; ++i) out[i] = static_cast<std::uint16_t>(conv(in[i]).code);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  items(st);
}
void decode(benchmark::State& st, FormatId src, bool batch, bool with_flags) {
  decode_from(st, softmx::format(src), batch, with_flags);
}

#if defined(SOFTMX_HAVE_MPFR_ORACLE)
void mpfr(benchmark::State& st, FormatId dst, softmx::Context c) {
  namespace o = softmx::oracle;
  const auto& in = inputs();
  std::vector<std::uint8_t> out(kN);
  const auto fmt = static_cast<o::Fmt>(static_cast<int>(dst));
  const auto mode = static_cast<o::Mode>(static_cast<int>(c.rounding));
  const auto sat = c.saturation == softmx::Saturation::finite ? o::Sat::finite : o::Sat::none;
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i)
      out[i] = static_cast<std::uint8_t>(
          o::convert(o::Fmt::f32, fmt, std::bit_cast<std::uint32_t>(in[i]), mode, sat, o::Tiny::after).code);
    benchmark::DoNotOptimize(out.data());
  }
  items(st);
}
#endif

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
// NVIDIA's host function, inlined into a loop over the array as it is in user code (it is
// defined in the header): the baseline every ratio is taken against.
template <unsigned char (*fn)(float)>
void nvidia(benchmark::State& st) {
  const auto& in = inputs();
  std::vector<std::uint8_t> out(kN);
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) out[i] = fn(in[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  items(st);
}
inline unsigned char e4m3_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
inline unsigned char e4m3_nosat(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); }
inline unsigned char e5m2_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }
inline unsigned char e5m2_nosat(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2); }
inline unsigned char e3m2_rn(float x) { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest); }
inline unsigned char e3m2_rz(float x) { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundZero); }
inline unsigned char e2m3_rn(float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest); }
inline unsigned char e2m3_rz(float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundZero); }
inline unsigned char e2m1_rn(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); }
inline unsigned char e2m1_rz(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero); }
inline unsigned char e8m0_rz(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero); }
inline unsigned char e8m0_ru(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf); }
inline unsigned char e8m0_ru_nosat(float x) { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf); }
template <__nv_fp8_interpretation_t I>
void nvidia_decode(benchmark::State& st) {
  const auto& in = codes_in();
  std::vector<std::uint16_t> out(kN);
  for (auto _ : st) {
    for (std::size_t i = 0; i < kN; ++i) out[i] = __nv_cvt_fp8_to_halfraw(in[i], I).x;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  items(st);
}
using NvFn = void (*)(benchmark::State&);
#else
using NvFn = void*;
#endif

}  // namespace

int main(int argc, char** argv) {
  using R = softmx::Rounding;
  using S = softmx::Saturation;
  struct Case {
    std::string name;
    FormatId dst;
    softmx::Context c;
    NvFn nv;
  };
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#define NV(f) &nvidia<f>
#else
#define NV(f) nullptr
#endif
  // The settings NVIDIA's functions accept, in the cuda dialect's terms.
  const std::vector<Case> cases = {
      {"f32_to_e4m3_rne_satfinite", FormatId::e4m3, ctx(R::rne, S::finite), NV(e4m3_sat)},
      {"f32_to_e4m3_rne_nosat", FormatId::e4m3, ctx(R::rne, S::none), NV(e4m3_nosat)},
      {"f32_to_e5m2_rne_satfinite", FormatId::e5m2, ctx(R::rne, S::finite), NV(e5m2_sat)},
      {"f32_to_e5m2_rne_nosat", FormatId::e5m2, ctx(R::rne, S::none), NV(e5m2_nosat)},
      {"f32_to_e3m2_rne", FormatId::e3m2, ctx(R::rne, S::finite), NV(e3m2_rn)},
      {"f32_to_e3m2_rz", FormatId::e3m2, ctx(R::rz, S::finite), NV(e3m2_rz)},
      {"f32_to_e2m3_rne", FormatId::e2m3, ctx(R::rne, S::finite), NV(e2m3_rn)},
      {"f32_to_e2m3_rz", FormatId::e2m3, ctx(R::rz, S::finite), NV(e2m3_rz)},
      {"f32_to_e2m1_rne", FormatId::e2m1, ctx(R::rne, S::finite), NV(e2m1_rn)},
      {"f32_to_e2m1_rz", FormatId::e2m1, ctx(R::rz, S::finite), NV(e2m1_rz)},
      {"f32_to_e8m0_rz_satfinite", FormatId::e8m0, ctx(R::rz, S::finite), NV(e8m0_rz)},
      {"f32_to_e8m0_ru_satfinite", FormatId::e8m0, ctx(R::ru, S::finite), NV(e8m0_ru)},
      {"f32_to_e8m0_ru_nosat", FormatId::e8m0, ctx(R::ru, S::none), NV(e8m0_ru_nosat)},
  };
#undef NV
  std::vector<Isa> isas;
  for (Isa i : softmx::supported_isas())
    if (i != Isa::scalar) isas.push_back(i);
  for (const Case& k : cases) {
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
    benchmark::RegisterBenchmark(("nvidia/" + k.name).c_str(), k.nv);
#endif
    benchmark::RegisterBenchmark(("scalar/" + k.name).c_str(), scalar_loop, k.dst, k.c);
    for (Isa i : isas)
      for (bool fl : {false, true})
        benchmark::RegisterBenchmark(
            (std::string("batch_") + softmx::name(i) + (fl ? "_flags/" : "/") + k.name).c_str(), batch, k.dst, k.c, i,
            fl);
#if defined(SOFTMX_HAVE_MPFR_ORACLE)
    if (&k == &cases.front()) benchmark::RegisterBenchmark(("mpfr/" + k.name).c_str(), mpfr, k.dst, k.c);
#endif
  }
  const std::pair<const char*, FormatId> decodes[] = {{"e4m3_to_f16", FormatId::e4m3}, {"e5m2_to_f16", FormatId::e5m2}};
  for (const auto& [n, src] : decodes) {
#if defined(SOFTMX_HAVE_CUDA_HEADERS)
    benchmark::RegisterBenchmark((std::string("nvidia/") + n).c_str(),
                                 src == FormatId::e4m3 ? &nvidia_decode<__NV_E4M3> : &nvidia_decode<__NV_E5M2>);
#endif
    benchmark::RegisterBenchmark((std::string("scalar/") + n).c_str(), decode, src, false, false);
    benchmark::RegisterBenchmark((std::string("batch/") + n).c_str(), decode, src, true, false);
    benchmark::RegisterBenchmark((std::string("batch_flags/") + n).c_str(), decode, src, true, true);
  }
  // Runtime formats against named ones of the same width.
  struct RuntimeCase {
    std::string name;
    FormatId named;
    std::string spec;
    softmx::Context c;
  };
  const std::vector<RuntimeCase> runtime_cases = {
      {"e4m3fnuz_vs_e4m3_rne", FormatId::e4m3, "e4m3fnuz", ctx(R::rne, S::finite)},
      {"e4m3fnuz_vs_e4m3_rz", FormatId::e4m3, "e4m3fnuz", ctx(R::rz, S::finite)},
      {"e5m2fnuz_vs_e4m3_rne_nosat", FormatId::e4m3, "e5m2fnuz", ctx(R::rne, S::none)},
      {"e3m2b4_vs_e3m2_rne", FormatId::e3m2, "e3m2:bias=4", ctx(R::rne, S::finite)},
      {"e3m2b4_vs_e3m2_ru", FormatId::e3m2, "e3m2:bias=4", ctx(R::ru, S::finite)},
      {"e2m2_vs_e2m1_rne", FormatId::e2m1, "e2m2", ctx(R::rne, S::finite)},
      {"int4_vs_int8_rne", FormatId::int8, "int4", ctx(R::rne, S::finite)},
  };
  for (const RuntimeCase& k : runtime_cases) {
    const softmx::Format rt = softmx::parse_format_spec(k.spec);
    for (Isa i : isas)
      for (bool fl : {false, true}) {
        const std::string tag = std::string(softmx::name(i)) + (fl ? "_flags/" : "/");
        benchmark::RegisterBenchmark(("named_" + tag + k.name).c_str(), batch, k.named, k.c, i, fl);
        benchmark::RegisterBenchmark(("runtime_" + tag + k.name).c_str(), batch_to, rt, k.c, i, fl);
      }
  }
  benchmark::RegisterBenchmark("named_decode/e4m3fnuz_vs_e4m3_to_f16", decode, FormatId::e4m3, true, true);
  benchmark::RegisterBenchmark("runtime_decode/e4m3fnuz_vs_e4m3_to_f16", decode_from,
                               softmx::parse_format_spec("e4m3fnuz"), true, true);

  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("items_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
  std::printf("\nthroughput relative to NVIDIA's host function on one core (higher is faster; same run, same "
              "inputs); the targets: batch >= 8x for e4m3 rne satfinite, >= 4x for the rest\n");
  std::printf("  %-28s %9s", "conversion", "NVIDIA");
  for (Isa i : isas) std::printf(" %10s %10s", softmx::name(i), (std::string(softmx::name(i)) + "+fl").c_str());
  std::printf(" %8s %8s\n", "scalar", "mpfr");
  for (const Case& k : cases) {
    const auto nv = rep.rate.find("nvidia/" + k.name);
    if (nv == rep.rate.end() || nv->second <= 0) continue;
    auto ratio = [&](const std::string& key) {
      const auto s = rep.rate.find(key + "/" + k.name);
      return s == rep.rate.end() ? 0.0 : s->second / nv->second;
    };
    std::printf("  %-28s %6.2f ns", k.name.c_str(), 1e9 / nv->second);
    for (Isa i : isas)
      std::printf(" %9.2fx %9.2fx", ratio(std::string("batch_") + softmx::name(i)),
                  ratio(std::string("batch_") + softmx::name(i) + "_flags"));
    std::printf(" %7.2fx", ratio("scalar"));
    const double m = ratio("mpfr");
    if (m > 0) std::printf(" %7.3fx", m);
    std::printf("\n");
  }
  std::printf("  (+fl: with the flags NVIDIA's functions do not compute; NVIDIA column: its time per value)\n");
  std::printf("\ndecoding FP8 codes to f16, relative to NVIDIA's __nv_cvt_fp8_to_halfraw (softmx's batch: a table of "
              "its scalar results)\n  %-28s %9s %10s %10s %8s\n", "conversion", "NVIDIA", "batch", "batch+fl", "scalar");
  for (const auto& [n, src] : decodes) {
    const double nv = rep.rate["nvidia/" + std::string(n)];
    if (nv <= 0) continue;
    std::printf("  %-28s %6.2f ns %9.2fx %9.2fx %7.2fx\n", n, 1e9 / nv, rep.rate["batch/" + std::string(n)] / nv,
                rep.rate["batch_flags/" + std::string(n)] / nv, rep.rate["scalar/" + std::string(n)] / nv);
  }
#else
  std::printf("\nNVIDIA's CUDA headers were not found at build time: no baseline to compare with\n");
#endif
  std::printf("\nruntime formats: throughput relative to the named format of the same width (same run, same inputs; "
              "the target is >= 0.5x)\n  %-28s", "conversion");
  for (Isa i : isas) std::printf(" %10s %10s", softmx::name(i), (std::string(softmx::name(i)) + "+fl").c_str());
  std::printf("\n");
  for (const RuntimeCase& k : runtime_cases) {
    std::printf("  %-28s", k.name.c_str());
    for (Isa i : isas)
      for (bool fl : {false, true}) {
        const std::string tag = std::string(softmx::name(i)) + (fl ? "_flags/" : "/");
        const double named = rep.rate["named_" + tag + k.name], runtime = rep.rate["runtime_" + tag + k.name];
        std::printf(" %9.2fx", named > 0 ? runtime / named : 0.0);
      }
    std::printf("\n");
  }
  const double dn = rep.rate["named_decode/e4m3fnuz_vs_e4m3_to_f16"];
  if (dn > 0)
    std::printf("  %-28s %9.2fx (batch with flags: the code table)\n", "e4m3fnuz_vs_e4m3_to_f16",
                rep.rate["runtime_decode/e4m3fnuz_vs_e4m3_to_f16"] / dn);
  return 0;
}
