// tools/cuda/mma/capture_mma.cu: `softmx_capture_mma OUTDIR [--level 1|2] [--count N] [--seed S]`
//
// Runs the probes of `softmx gen mma` (the same generator, vectors/README.md section 6, linked
// from the vectors library) through the tensor cores and writes the device's D for every case
// as mma-*.vec files: one per (A, B) in {e4m3, e5m2}^2, accumulator f32 / f16, with and without
// C, and per instruction:
//   - mma.sync.aligned.m16n8k32.row.col.{f32,f16}.<a>.<b>.{f32,f16} (sm_89 and later);
//   - wgmma (sm_90a): not captured yet; reported as "skipped: ...".
// Each file's header is that of `gen mma` with model = hopper-fp8-mma (so `softmx verify FILE`
// checks the published model; `softmx verify` then names the model that does reproduce a
// disagreeing line) plus x-gpu, x-compute-capability, x-driver, x-cuda-runtime,
// x-build-target, x-instruction, x-date, x-capture.
//
// Placement: one mma computes a 16 x 8 tile D = A B + C; case j of a batch of 8 (j = 0..7)
// puts its A codes in row j of A, its B codes in column j of B and its C in C[j][j], and reads
// D[j][j] = sum_k A[j][k] B[k][j] + C[j][j], which depends on that case only (rows 8..15 and
// the off-diagonal C are +0 and never read). Fragments follow fragment.hpp (PTX ISA layout).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "fragment.hpp"
#include "vectors/generate.hpp"
#include "vectors/header.hpp"
#include "vectors/operation.hpp"

namespace {

using softmx::FormatId;
namespace frag = softmx::mma_frag;
namespace vec = softmx::vec;

constexpr int kCasesPerTile = 8;

#define CUDA_CHECK(x)                                                                              \
  do {                                                                                             \
    const cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "softmx_capture_mma: %s: %s\n", #x, cudaGetErrorString(e_));            \
      std::exit(3);                                                                                \
    }                                                                                              \
  } while (0)

// The instruction for one (A, B, accumulator) choice; AT/BT: 0 e4m3, 1 e5m2.
template <int AT, int BT, bool F16>
__device__ void mma_tile(std::uint32_t d[4], const std::uint32_t a[4], const std::uint32_t b[2], const std::uint32_t c[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define SOFTMX_MMA_F32(TA, TB)                                                                              \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, " \
               "{%10,%11,%12,%13};"                                                                        \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]),    \
                 "r"(c[2]), "r"(c[3]))
#define SOFTMX_MMA_F16(TA, TB)                                                                       \
  do {                                                                                               \
    std::uint32_t c01 = frag::pack_f16x2(c[0], c[1]), c23 = frag::pack_f16x2(c[2], c[3]), d01, d23;  \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." TA "." TB ".f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
                 : "=r"(d01), "=r"(d23)                                                               \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c01), "r"(c23)); \
    d[0] = frag::f16x2_lo(d01), d[1] = frag::f16x2_hi(d01), d[2] = frag::f16x2_lo(d23), d[3] = frag::f16x2_hi(d23); \
  } while (0)
  if constexpr (!F16) {
    if constexpr (AT == 0 && BT == 0) SOFTMX_MMA_F32("e4m3", "e4m3");
    else if constexpr (AT == 0) SOFTMX_MMA_F32("e4m3", "e5m2");
    else if constexpr (BT == 0) SOFTMX_MMA_F32("e5m2", "e4m3");
    else SOFTMX_MMA_F32("e5m2", "e5m2");
  } else {
    if constexpr (AT == 0 && BT == 0) SOFTMX_MMA_F16("e4m3", "e4m3");
    else if constexpr (AT == 0) SOFTMX_MMA_F16("e4m3", "e5m2");
    else if constexpr (BT == 0) SOFTMX_MMA_F16("e5m2", "e4m3");
    else SOFTMX_MMA_F16("e5m2", "e5m2");
  }
#undef SOFTMX_MMA_F32
#undef SOFTMX_MMA_F16
#else
  for (int i = 0; i < 4; ++i) d[i] = 0xFFFFFFFFu;  // never run: the host checks sm_89 first
  (void)a, (void)b, (void)c;
#endif
}

// One warp per tile: a[tile][16*32] row-major, b[tile][8*32] column-major, c/d[tile][16*8].
template <int AT, int BT, bool F16>
__global__ void mma_kernel(const std::uint8_t* a, const std::uint8_t* b, const std::uint32_t* c, std::uint32_t* d, int tiles) {
  const int tile = blockIdx.x;
  if (tile >= tiles) return;
  const int lane = threadIdx.x % 32;
  std::uint32_t ra[4], rb[2], rc[4], rd[4];
  frag::pack_a(a + tile * frag::kM * frag::kK, lane, ra);
  frag::pack_b(b + tile * frag::kN * frag::kK, lane, rb);
  frag::gather_c(c + tile * frag::kM * frag::kN, lane, rc);
  mma_tile<AT, BT, F16>(rd, ra, rb, rc);
  frag::scatter_d(d + tile * frag::kM * frag::kN, lane, rd);
}

// The __CUDA_ARCH__ the device runs (the build target chosen from the fat binary).
__global__ void arch_kernel(int* out) {
#if defined(__CUDA_ARCH__)
  *out = __CUDA_ARCH__;
#endif
}

using Launcher = void (*)(const std::uint8_t*, const std::uint8_t*, const std::uint32_t*, std::uint32_t*, int);
template <int AT, int BT, bool F16>
void launch(const std::uint8_t* a, const std::uint8_t* b, const std::uint32_t* c, std::uint32_t* d, int tiles) {
  mma_kernel<AT, BT, F16><<<tiles, 32>>>(a, b, c, d, tiles);
}
Launcher launcher(int at, int bt, bool f16) {
  const Launcher t[2][2][2] = {{{launch<0, 0, false>, launch<0, 0, true>}, {launch<0, 1, false>, launch<0, 1, true>}},
                               {{launch<1, 0, false>, launch<1, 0, true>}, {launch<1, 1, false>, launch<1, 1, true>}}};
  return t[at][bt][f16 ? 1 : 0];
}

std::string hex(std::uint64_t v, int digits) {
  static const char* d = "0123456789ABCDEF";
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = d[v & 15];
  return s;
}

struct Env {
  std::string gpu, cc, driver, runtime, target, date;
};

/// Captures one configuration into OUTDIR/mma-<a>-<b>-<acc>-<c|noc>.vec.
void capture(const std::string& outdir, const Env& env, FormatId fa, FormatId fb, FormatId acc, bool addend,
             const vec::GenOptions& o) {
  vec::Header h;
  h.operation = vec::Operation::mma;
  h.from = fa;
  h.to = fb;
  h.block = 32;
  h.accumulator = acc;
  h.addend = addend;
  h.model = "hopper-fp8-mma";
  h.level = std::to_string(o.level);
  h.seed = o.seed;
  h.generator = std::string(vec::kGeneratorName);
  const std::string an(softmx::format(fa).name), bn(softmx::format(fb).name), cn(softmx::format(acc).name);
  const std::string instr = "mma.sync.aligned.m16n8k32.row.col." + cn + "." + an + "." + bn + "." + cn;
  h.extra = {{"x-gpu", env.gpu},          {"x-compute-capability", env.cc}, {"x-driver", env.driver},
             {"x-cuda-runtime", env.runtime}, {"x-build-target", env.target}, {"x-instruction", instr},
             {"x-date", env.date},        {"x-capture", "softmx_capture_mma (tools/cuda/mma)"}};
  h.validate("softmx_capture_mma");
  const vec::LineLayout layout = vec::line_layout(h);

  std::vector<std::vector<std::uint64_t>> cases;
  vec::for_each_case(h, o, [&](std::span<const std::uint64_t> ops) { cases.emplace_back(ops.begin(), ops.end()); });
  const int tiles = static_cast<int>((cases.size() + kCasesPerTile - 1) / kCasesPerTile);
  std::vector<std::uint8_t> a(static_cast<std::size_t>(tiles) * frag::kM * frag::kK, 0),
      b(static_cast<std::size_t>(tiles) * frag::kN * frag::kK, 0);
  std::vector<std::uint32_t> c(static_cast<std::size_t>(tiles) * frag::kM * frag::kN, 0), d(c.size(), 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::size_t t = i / kCasesPerTile, j = i % kCasesPerTile;
    for (int k = 0; k < 32; ++k) {
      a[t * frag::kM * frag::kK + j * frag::kK + k] = static_cast<std::uint8_t>(cases[i][k]);
      b[t * frag::kN * frag::kK + j * frag::kK + k] = static_cast<std::uint8_t>(cases[i][32 + k]);
    }
    c[t * frag::kM * frag::kN + j * frag::kN + j] = addend ? static_cast<std::uint32_t>(cases[i][64]) : 0;
  }
  std::uint8_t *da, *db;
  std::uint32_t *dc, *dd;
  CUDA_CHECK(cudaMalloc(&da, a.size()));
  CUDA_CHECK(cudaMalloc(&db, b.size()));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * 4));
  CUDA_CHECK(cudaMalloc(&dd, d.size() * 4));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  launcher(fa == FormatId::e5m2, fb == FormatId::e5m2, acc == FormatId::f16)(da, db, dc, dd, tiles);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  CUDA_CHECK(cudaFree(dd));

  std::string text = vec::header_text(h) + "# " + layout.columns() + "\n";
  const int dd_digits = softmx::format(acc).hex_digits();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (std::size_t f = 0; f < cases[i].size(); ++f) text += hex(cases[i][f], layout.operands[f].digits) + " ";
    const std::size_t t = i / kCasesPerTile, j = i % kCasesPerTile;
    text += hex(d[t * frag::kM * frag::kN + j * frag::kN + j] & (acc == FormatId::f16 ? 0xFFFFu : 0xFFFFFFFFu), dd_digits) + "\n";
  }
  const std::string path = outdir + "/mma-" + an + "-" + bn + "-" + cn + (addend ? "-c" : "-noc") + ".vec";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "softmx_capture_mma: cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::printf("%s: %zu cases (%s)\n", path.c_str(), cases.size(), instr.c_str());
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "softmx_capture_mma: %s\nusage: softmx_capture_mma OUTDIR [--level 1|2] [--count N] [--seed S]\n",
               why.c_str());
  std::exit(2);
}

std::uint64_t number(const char* opt, const char* v) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (!*v || *end) usage(std::string(opt) + " expects a decimal number, got '" + v + "'");
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("missing OUTDIR");
  const std::string outdir = argv[1];
  vec::GenOptions o;
  o.level = 2;
  o.count = 10000;
  for (int i = 2; i < argc; ++i) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) usage(opt + " needs a value");
    const char* v = argv[++i];
    if (opt == "--level") {
      o.level = static_cast<int>(number("--level", v));
      if (o.level != 1 && o.level != 2) usage("--level expects 1 or 2");
      if (o.level == 1) o.count.reset();
    } else if (opt == "--count") {
      o.count = number("--count", v);
    } else if (opt == "--seed") {
      o.seed = number("--seed", v);
    } else {
      usage("unknown option " + opt);
    }
  }
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    std::printf("skipped: no CUDA device\n");
    return 0;
  }
  Env env;
  env.gpu = p.name;
  env.cc = std::to_string(p.major) + "." + std::to_string(p.minor);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  env.driver = std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10);
  env.runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
  int* darch = nullptr;
  int arch = 0;
  CUDA_CHECK(cudaMalloc(&darch, sizeof(int)));
  arch_kernel<<<1, 1>>>(darch);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&arch, darch, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(darch));
  env.target = "sm_" + std::to_string(arch / 10);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  env.date = date;
  if (p.major * 10 + p.minor < 89 || arch < 890) {
    std::printf("skipped: mma.sync FP8 needs sm_89 or later (device %s, running code for %s)\n", env.cc.c_str(),
                env.target.c_str());
    return 0;
  }
  for (FormatId fa : {FormatId::e4m3, FormatId::e5m2})
    for (FormatId fb : {FormatId::e4m3, FormatId::e5m2})
      for (FormatId acc : {FormatId::f32, FormatId::f16})
        for (bool addend : {true, false}) capture(outdir, env, fa, fb, acc, addend, o);
  std::printf("skipped: wgmma FP8 (sm_90a) is not captured by this version (docs/TENSOR_CORES.md section 5)\n");
  return 0;
}
