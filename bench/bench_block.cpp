// bench/bench_block.cpp: MX block quantization and dequantization throughput, one core, k = 32,
// E8M0 scales, against the memory loops of the same instruction set on the same data size.
//
// Rows, at three data sizes (L2: 256 KiB of f32; L3: a part of the last-level cache; DRAM: at
// least 256 MiB and twice the last-level cache, from sysconf; SOFTMX_BENCH_DRAM_MIB overrides
// it), for every vector instruction set this CPU has (and Isa::scalar, the reference, at the
// L2 size only):
//  - quantize f32 -> MXFP8 (e4m3, e5m2; floor and rceil scale rules), MXFP6 (e2m3, e3m2),
//    MXFP4 (e2m1: one code per byte, and packed two per byte: softmx::quantize_tensor_packed_into,
//    which packs each few thousand codes from the L1 cache), and runtime elements (parse_format_spec; BLOCKS.md 1.1): e4m3fnuz,
//    e5m2fnuz, e2m2, int4, each against the named element of the same width (e2m2, 5 bits,
//    against e2m3; int4 against e2m1);
//  - dequantize the same back to f32 (a Dequantizer made per call, as dequantize_tensor does,
//    on the row's instruction set; packed e2m1 through softmx::unpack_into first);
//  - the memory loops (limit_loops*.cpp, built per instruction set): read f32 and write a
//    byte; read a byte and write f32;
//  - a dequantize call's fixed cost: one block through a Dequantizer made per call (e4m3 and
//    e4m3fnuz; time per call), which bounds the small sizes.
// Rates are GB/s of f32 (the input of quantize, the output of dequantize). The summary prints
// each row's rate, its share of the same instruction set's memory loop at the same size, the
// bytes per value the row moves through memory (reads + writes of every pass it makes: the
// memory loops move 5), and for runtime rows the ratio to the named element.
#include <benchmark/benchmark.h>

#include "limit_loops.hpp"
#include "rate_reporter.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"

namespace {

using softmx::FormatId;
using softmx::Isa;

constexpr std::size_t kBlock = 32;

/// One data size: a name and the number of f32 values.
struct Size {
  std::string name;
  std::size_t values;
};

std::size_t cache_bytes(int name, std::size_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::size_t>(v) : fallback;
}

std::size_t pow2_at_least(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/// L2: 256 KiB of f32 (and its codes) inside the per-core L2. L3: a quarter of the last-level
/// cache, at most 32 MiB of f32, at least 4x L2. DRAM: at least 256 MiB of f32 and twice the
/// last-level cache.
std::vector<Size> sizes() {
  const std::size_t l2 = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
  const std::size_t l3 = cache_bytes(_SC_LEVEL3_CACHE_SIZE, 32 << 20);
  const std::size_t l3_bytes = std::max<std::size_t>(4 * l2, std::min<std::size_t>(l3 / 4, std::size_t{32} << 20));
  std::size_t dram_bytes = pow2_at_least(std::max<std::size_t>(std::size_t{256} << 20, 2 * l3));
  if (const char* e = std::getenv("SOFTMX_BENCH_DRAM_MIB")) dram_bytes = std::strtoull(e, nullptr, 10) << 20;
  auto values = [](std::size_t bytes) { return bytes / 4 / kBlock * kBlock; };
  return {{"L2", values(256 << 10)}, {"L3", values(l3_bytes)}, {"DRAM", values(dram_bytes)}};
}

std::size_t max_values() {
  std::size_t n = 0;
  for (const Size& s : sizes()) n = std::max(n, s.values);
  return n;
}

/// The f32 data (the largest size; smaller sizes read its start): sign, a binade in
/// [2^-8, 2^8) and 23 random fraction bits per value.
const std::vector<std::uint32_t>& data() {
  static const std::vector<std::uint32_t> v = [] {
    std::vector<std::uint32_t> r(max_values());
    softmx::SplitMix64 rng(0xB10C);
    for (auto& x : r) {
      const std::uint64_t z = rng.next();
      const std::uint32_t e = 127 - 8 + static_cast<std::uint32_t>(z >> 60);
      x = static_cast<std::uint32_t>(z >> 59 & 1) << 31 | e << 23 | (static_cast<std::uint32_t>(z) & 0x7FFFFF);
    }
    return r;
  }();
  return v;
}

/// Output arrays shared by every row (made once, touched once).
struct Buffers {
  std::vector<std::uint8_t> codes, scales, packed;
  std::vector<std::uint32_t> f32;
  Buffers()
      : codes(max_values()), scales(max_values() / kBlock), packed(max_values() / 2 + 1), f32(max_values()) {}
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

/// One element row of the matrix.
struct Element {
  std::string label;  ///< e.g. "e4m3_floor", "e2m1_packed", "rt_e4m3fnuz"
  std::string spec;   ///< parse_format_spec input
  softmx::ScaleRule rule = softmx::ScaleRule::floor;
  bool packed = false;  ///< codes packed (pack_into) after quantizing
  std::string peer;     ///< runtime rows: the named row they are compared with
};

// The rows, in this order: each named MX element under floor (E4M3 and E5M2 also under rceil,
// E2M1 also packed), then the runtime descriptors, each under floor and compared with the named
// row of its shape. Labels are made, not written: [rt_]SPEC_RULE[_packed].
const std::vector<Element>& elements() {
  using softmx::ScaleRule;
  static const std::vector<Element> v = [] {
    std::vector<Element> out;
    auto add = [&out](const char* spec, ScaleRule rule, bool packed, const std::string& peer) {
      const std::string rule_name = rule == ScaleRule::floor ? "floor" : "rceil";
      out.push_back({(peer.empty() ? "" : "rt_") + std::string(spec) + "_" + rule_name + (packed ? "_packed" : ""),
                     spec, rule, packed, peer});
    };
    for (const char* spec : {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}) {
      const std::string name = spec;
      add(spec, ScaleRule::floor, false, "");
      if (name == "e4m3" || name == "e5m2") add(spec, ScaleRule::rceil, false, "");
      if (name == "e2m1") add(spec, ScaleRule::floor, true, "");
    }
    const std::pair<const char*, const char*> runtime[] = {
        {"e4m3fnuz", "e4m3_floor"}, {"e5m2fnuz", "e5m2_floor"}, {"e2m2", "e2m3_floor"}, {"int4", "e2m1_floor"}};
    for (const auto& [spec, peer] : runtime) add(spec, ScaleRule::floor, false, peer);
    return out;
  }();
  return v;
}

softmx::BlockOptions options(const Element& e, Isa isa) {
  softmx::BlockOptions o;
  o.element = softmx::parse_format_spec(e.spec);
  o.rule = e.rule;
  o.isa = isa;
  return o;
}

/// Bytes moved per value: quantize reads 4 and writes a code byte and 1/32 of a scale byte;
/// packed, it writes w/8 bytes in place of the code byte (quantize_tensor_packed_into). Dequantize
/// of packed codes unpacks them first: reads w/8 and writes a code byte, then reads it again.
double bytes_per_value(const Element& e, bool dequant) {
  const double base = 4 + 1 + 1.0 / kBlock;
  if (!e.packed) return base;
  const double w = softmx::parse_format_spec(e.spec).width;
  return dequant ? base + 1 + w / 8 : base - 1 + w / 8;
}

void quantize(benchmark::State& st, const Element* e, Isa isa, std::size_t n) {
  const std::uint32_t* in = data().data();
  Buffers& b = buffers();
  const softmx::BlockOptions o = options(*e, isa);
  const softmx::Format& f = o.element;
  const std::size_t shape[1] = {n};
  for (auto _ : st) {
    const softmx::Flags fl =
        e->packed ? softmx::quantize_tensor_packed_into(FormatId::f32, in, shape, 0, kBlock, o,
                                                        {b.scales.data(), n / kBlock},
                                                        {b.packed.data(), softmx::packed_size(f, n)}, 1)
                  : softmx::quantize_tensor_into(FormatId::f32, in, shape, 0, kBlock, o, {b.scales.data(), n / kBlock},
                                                 {b.codes.data(), n}, 1);
    benchmark::DoNotOptimize(fl);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(n * 4));
}

/// The codes and scales of element e over the first n values, made once per (element, n) in a
/// row (the rows of one element and size are registered together).
void quantized_for(const Element& e, std::size_t n) {
  static std::string key;
  const std::string k = e.label + "/" + std::to_string(n);
  if (key == k) return;
  Buffers& b = buffers();
  const softmx::BlockOptions o = options(e, softmx::default_isa());
  const std::size_t shape[1] = {n};
  softmx::quantize_tensor_into(FormatId::f32, data().data(), shape, 0, kBlock, o, {b.scales.data(), n / kBlock},
                               {b.codes.data(), n}, 1);
  if (e.packed) {
    const softmx::Format& f = o.element;
    softmx::pack_into(f, {b.codes.data(), n}, {b.packed.data(), softmx::packed_size(f, n)});
  }
  key = k;
}

void dequantize(benchmark::State& st, const Element* e, Isa isa, std::size_t n) {
  quantized_for(*e, n);
  Buffers& b = buffers();
  const softmx::Format f = softmx::parse_format_spec(e->spec);
  const softmx::Context ctx;
  for (auto _ : st) {
    if (e->packed) softmx::unpack_into(f, {b.packed.data(), softmx::packed_size(f, n)}, {b.codes.data(), n});
    softmx::Dequantizer dq(f, FormatId::f32, ctx);
    dq.set_isa(isa);
    benchmark::DoNotOptimize(dq.run(b.scales.data(), b.codes.data(), n, kBlock, b.f32.data()));
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(n * 4));
}

/// A call's fixed cost: dequantize one block (a Dequantizer made per call, as dequantize_tensor
/// does: the row of scale 127 by 2^width reference calls, the lanes' check) of element e.
void dequantize_one_block(benchmark::State& st, const Element* e, Isa isa) {
  quantized_for(*e, kBlock);
  Buffers& b = buffers();
  const softmx::Format f = softmx::parse_format_spec(e->spec);
  for (auto _ : st) {
    softmx::Dequantizer dq(f, FormatId::f32, softmx::Context{});
    dq.set_isa(isa);
    benchmark::DoNotOptimize(dq.run(b.scales.data(), b.codes.data(), kBlock, kBlock, b.f32.data()));
    benchmark::ClobberMemory();
  }
}

// The limits: read the f32 values and write one byte each (a shift), or read a byte and write
// an f32, built for one instruction set (the compiler vectorises it as that set allows).
void memory_loop(benchmark::State& st, softmx::bench::LimitLoops loops, std::size_t n) {
  const std::uint32_t* in = data().data();
  Buffers& b = buffers();
  for (auto _ : st) {
    loops.f32_to_u8(in, b.codes.data(), n);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(n * 4));
}

void dequantize_memory_loop(benchmark::State& st, softmx::bench::LimitLoops loops, std::size_t n) {
  Buffers& b = buffers();
  for (auto _ : st) {
    loops.u8_to_f32(b.codes.data(), b.f32.data(), n);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * static_cast<std::int64_t>(n * 4));
}

/// The limit loops this CPU runs: the baseline build, then avx2 and avx512 where supported.
std::vector<softmx::bench::LimitLoops> limit_loops() {
  std::vector<softmx::bench::LimitLoops> v{softmx::bench::limit_loops_baseline()};
  if (softmx::isa_supported(Isa::avx2)) v.push_back(softmx::bench::limit_loops_avx2());
  if (softmx::isa_supported(Isa::avx512)) v.push_back(softmx::bench::limit_loops_avx512());
  return v;
}

/// The limit loops' instruction set for a kernel's: scalar kernels against the baseline build.
std::string loop_isa(Isa isa) { return isa == Isa::scalar ? "baseline" : softmx::name(isa); }

/// The instruction sets of the rows at one size: the vector ones, and the scalar reference at L2.
std::vector<Isa> row_isas(const Size& s) {
  std::vector<Isa> v;
  for (Isa isa : softmx::supported_isas())
    if (isa != Isa::scalar || s.name == "L2") v.push_back(isa);
  return v;
}

std::string qname(const Size& s, Isa isa, const Element& e) {
  return "quantize_" + std::string(softmx::name(isa)) + "/" + e.label + "/" + s.name;
}
std::string dname(const Size& s, Isa isa, const Element& e) {
  return "dequantize_" + std::string(softmx::name(isa)) + "/" + e.label + "/" + s.name;
}
std::string mname(const Size& s, const std::string& isa, bool dequant) {
  return "memory_loop_" + isa + (dequant ? "/read_u8_write_f32/" : "/read_f32_write_u8/") + s.name;
}

void summary(const Size& s, softmx::bench::RateReporter& rep) {
  auto rate = [&](const std::string& n) {
    auto it = rep.rate.find(n);
    return it == rep.rate.end() ? 0.0 : it->second;
  };
  std::printf("\n%s: %zu values (%.2f MiB of f32), k = 32, E8M0 scales, one core; GB/s of f32, %% of the same "
              "instruction set's memory loop, bytes per value moved:\n",
              s.name.c_str(), s.values, static_cast<double>(s.values) * 4 / (1 << 20));
  for (const auto& l : limit_loops())
    std::printf("  %-44s quantize limit %7.2f GB/s, dequantize limit %7.2f GB/s (5.00 B/value)\n",
                (std::string("memory loop, ") + l.isa + " build").c_str(), rate(mname(s, l.isa, false)) / 1e9,
                rate(mname(s, l.isa, true)) / 1e9);
  for (bool deq : {false, true}) {
    std::printf("  %s:\n", deq ? "dequantize -> f32" : "quantize f32 ->");
    for (const Element& e : elements())
      for (Isa isa : row_isas(s)) {
        const std::string n = deq ? dname(s, isa, e) : qname(s, isa, e);
        const double r = rate(n), mem = rate(mname(s, loop_isa(isa), deq));
        if (r <= 0 || mem <= 0) continue;
        std::printf("    %-36s %7.2f GB/s %6.1f%% of %-8s %5.2f B/value", n.c_str(), r / 1e9, 100 * r / mem,
                    loop_isa(isa).c_str(), bytes_per_value(e, deq));
        if (!e.peer.empty()) {
          Element peer;
          for (const Element& x : elements())
            if (x.label == e.peer) peer = x;
          const double pr = rate(deq ? dname(s, isa, peer) : qname(s, isa, peer));
          if (pr > 0) std::printf("  %5.2fx %s", r / pr, e.peer.c_str());
        }
        std::printf("\n");
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;  // Google Benchmark keeps the name pointers
  auto reg = [&](const std::string& name, auto fn, auto... args) {
    names.push_back(name);
    benchmark::RegisterBenchmark(names.back().c_str(), fn, args...)->Unit(benchmark::kMillisecond)->MinTime(0.2);
  };
  for (const Size& s : sizes()) {
    for (const auto& l : limit_loops()) {
      reg(mname(s, l.isa, false), memory_loop, l, s.values);
      reg(mname(s, l.isa, true), dequantize_memory_loop, l, s.values);
    }
    for (const Element& e : elements()) {
      for (Isa isa : row_isas(s)) reg(qname(s, isa, e), quantize, &e, isa, s.values);
      for (Isa isa : row_isas(s)) reg(dname(s, isa, e), dequantize, &e, isa, s.values);
    }
  }
  for (const Element& e : elements())
    if (e.label == "e4m3_floor" || e.label == "rt_e4m3fnuz_floor")
      for (Isa isa : softmx::supported_isas()) {
        names.push_back("dequantize_one_block_" + std::string(softmx::name(isa)) + "/" + e.label);
        benchmark::RegisterBenchmark(names.back().c_str(), dequantize_one_block, &e, isa)
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(0.1);
      }
  benchmark::Initialize(&argc, argv);
  softmx::bench::RateReporter rep("bytes_per_second");
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  // Runs are named with their min_time suffix ("/min_time:0.200") and, with repetitions, an
  // aggregate's ("_median", "_mean", ...): the summary looks them up by name alone, taking the
  // median where there are repetitions.
  // (The reporter sees every repetition's run as well as the aggregates.)
  std::map<std::string, double> plain, median;
  for (const auto& [n, r] : rep.rate) {
    const std::size_t at = n.find("/min_time:");
    const std::string tail = at == std::string::npos ? "" : n.substr(at);
    // "min_time" itself holds an underscore: only the aggregates' own suffixes mark them.
    const auto ends = [&tail](const std::string& s) {
      return tail.size() >= s.size() && tail.compare(tail.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("_median")) median[n.substr(0, at)] = r;
    else if (!ends("_mean") && !ends("_stddev") && !ends("_cv")) plain[n.substr(0, at)] = r;
  }
  for (const auto& [n, r] : median) plain[n] = r;
  rep.rate = plain;
  for (const Size& s : sizes()) summary(s, rep);
  return 0;
}
