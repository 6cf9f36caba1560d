// tools/softmx/cmd_gemm.cpp: `softmx gemm-golden`, golden data for an MX GEMM.
//
//   softmx gemm-golden --out DIR [--m M] [--n N] [--k K] [--a FMT] [--b FMT] [--block 32]
//                      (FMT: a named MX element format or a runtime spec of at most 8 bits: e1m2, e2m2, int4)
//                      [--seed S] [--scale RULE] [--dialect NAME]
//                      [--acc exact|fp32-sequential|TENSOR-CORE-MODEL (softmx dialects lists them)]
//                      [--round MODE] [--sat finite|none] [--threads N] [--scale-format SPEC]
//     --scale-format ue4m3 (or e4m3): UE4M3 block scales (docs/BLOCKS.md 1.2), for the models that
//     read them (blackwell-mxf4, blackwell-nvf4: GemmOperand::scale_format e4m3), exact and
//     fp32-sequential (the reference per output, BLOCKS.md 5). Any other scale format (ue5m3,
//     bf16, f16, f32, ...): exact and fp32-sequential (GemmOperand::block_scale_format); its
//     scale files hold codes of 1, 2 or 4 bytes (little-endian).
//
// A (M x K) and B (K x N) are f32 values drawn from SplitMix64(seed): each is
// (sum of 12 draws of 24 bits - 6 * 2^24) * 2^-24, a bell-shaped value in [-6, 6], rounded to
// f32 (rne). A is quantized along K per row, B along K per column (blocks of --block; a last
// partial block is padded with zeros). C[i][j] = DotGeneral over the K blocks (f32 output),
// computed by softmx::gemm (the batched kernels, on --threads threads, default every core; the
// bytes do not depend on it). The files (all little-endian) and their layouts are listed in DIR/manifest.txt with SHA-256s.
//
// DIR is replaced as a unit (vec::OutputDirectory: a new folder beside it, swapped in), or left
// as it was: a failure midway leaves no mix of old and new files. The memory the arrays need is
// computed before anything is allocated, and a GEMM that does not fit is refused with the number.
// For tests, SOFTMX_TEST_SPACE_LIMIT=BYTES makes the files fail with ENOSPC past BYTES in all, as
// a full disk would, and SOFTMX_TEST_NO_EXCHANGE=1 swaps the folder in three renames, as on a
// file system without RENAME_EXCHANGE.
#include <sys/resource.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "softmx/tensor_core.hpp"
#include "commands.hpp"
#include "softmx/sha256.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {
namespace {

/// --a / --b: a named MX element format or a runtime spec of at most 8 bits (e1m2, e2m2, int4).
Format element_arg(const Args& a, const char* opt, FormatId dflt) {
  auto v = a.get(opt);
  if (!v) return format(dflt);
  return mx_element_option(opt, *v);
}

/// The files of a golden directory, in the order written (the manifest last).
const std::vector<std::string> kFiles = {"a_f32.bin", "b_f32.bin", "a.bin",        "a_scale.bin",
                                         "b.bin",     "b_scale.bin", "c_golden.bin", "manifest.txt"};

/// The bytes of `v` in little-endian order: its own memory on a little-endian host (no copy),
/// else a converted copy in `scratch`.
std::span<const std::uint8_t> le_bytes(const std::vector<std::uint32_t>& v, std::vector<std::uint8_t>& scratch) {
  if constexpr (std::endian::native == std::endian::little) {
    return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
  } else {
    scratch.clear();
    for (std::uint32_t x : v)
      for (int i = 0; i < 4; ++i) scratch.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
    return scratch;
  }
}

/// The memory this process may still use, and what sets the bound: the smallest of the
/// available memory (MemAvailable), the cgroup's memory.max (less what it already uses), and
/// the address-space and data limits (ulimit -v, ulimit -d; less what is already mapped).
struct MemoryLimit {
  std::uint64_t bytes = UINT64_MAX;
  std::string what;
};

std::optional<std::uint64_t> read_number(const std::string& path, const std::string& key = "") {
  std::ifstream f(path);
  std::string k;
  std::uint64_t v = 0;
  if (key.empty()) return (f >> v) ? std::optional(v) : std::nullopt;  // "max" gives nullopt
  while (f >> k) {
    if (k == key && (f >> v)) return v;
    f.ignore(1 << 20, '\n');
  }
  return std::nullopt;
}

MemoryLimit memory_limit() {
  MemoryLimit m;
  auto consider = [&](std::uint64_t bytes, std::string what) {
    if (bytes < m.bytes) m = {bytes, std::move(what)};
  };
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) consider(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page), "physical memory");
  if (auto kb = read_number("/proc/meminfo", "MemAvailable:")) consider(*kb * 1024, "available memory (MemAvailable)");
  // cgroup v2: "0::/PATH" in /proc/self/cgroup.
  std::ifstream cg("/proc/self/cgroup");
  for (std::string line; std::getline(cg, line);) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string dir = "/sys/fs/cgroup" + line.substr(3);
    const auto max = read_number(dir + "/memory.max"), cur = read_number(dir + "/memory.current");
    if (max) consider(*max > cur.value_or(0) ? *max - cur.value_or(0) : 0, "the cgroup's memory.max");
  }
  // Mapped and data pages now (/proc/self/statm: size ... data, in pages).
  std::uint64_t size = 0, data = 0;
  {
    std::ifstream st("/proc/self/statm");
    std::uint64_t f[6] = {};
    for (auto& x : f) st >> x;
    size = f[0] * static_cast<std::uint64_t>(page > 0 ? page : 4096);
    data = f[5] * static_cast<std::uint64_t>(page > 0 ? page : 4096);
  }
  rlimit rl{};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur > size ? rl.rlim_cur - size : 0, "the address-space limit (ulimit -v)");
  if (::getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur > data ? rl.rlim_cur - data : 0, "the data-size limit (ulimit -d)");
  return m;
}

std::string binary_size(std::uint64_t b) {
  char s[32];
  if (b >= (std::uint64_t{1} << 30)) std::snprintf(s, sizeof s, "%.1f GiB", static_cast<double>(b) / (1 << 30));
  else std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(b) / (1 << 20));
  return s;
}

}  // namespace

int cmd_gemm_golden(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)  // --layout lut-argmin: the seed-003 generator's files (cmd_gemm_lut.cpp)
    if (std::string_view(argv[i]).starts_with("--layout")) return cmd_gemm_golden_lut(argc, argv);
  const Args a = parse_command("gemm-golden", argc, argv, 2, "mx");
  if (!a.positionals.empty()) throw UsageError("unexpected argument " + quote(a.positionals[0], '\''));
  const auto out_dir = a.get("out");
  if (!out_dir) throw UsageError("missing --out DIR (where the golden files go)");
  const std::size_t M = parse_count(a, "m", 64, 1 << 14), N = parse_count(a, "n", 64, 1 << 14), K = parse_count(a, "k", 256, 1 << 16);
  const std::size_t blk = parse_count(a, "block", 32, 1 << 16);
  const std::uint64_t seed = parse_seed(a, 1);
  const Format fa = element_arg(a, "a", FormatId::e2m1), fb = element_arg(a, "b", FormatId::e2m1);
  const AccumulationModel* model = find_accumulation_model(a.get("acc").value_or("exact"));
  if (!model)
    throw UsageError("unknown accumulation " + quote(*a.get("acc"), '\'') +
                     " for --acc (expected exact, fp32-sequential, mxdotp or a tensor-core model: " + tensor_core_model_names() + ")");
  check_gemm_operands(fa, fb, K, blk, *model, a.get("acc").value_or("exact"));  // runtime elements: exact, fp32-sequential
  Args common = a;
  for (const char* o : {"out", "m", "n", "k", "a", "b", "block", "seed", "scale", "acc", "round", "sat", "threads",
                        "scale-format"})
    common.options.erase(o);
  const unsigned threads = parse_threads(a, std::max(1u, std::thread::hardware_concurrency()));
  const ConversionOptions co = conversion_options(common, false);
  BlockOptions bo;
  bo.dialect = co.dialect;
  bo.rule = scale_rule_option(a);
  // The scale format: E8M0, or UE4M3 (ue4m3, or e4m3's positive codes: the same values) for the
  // GST models, which read UE4M3 scales (GemmOperand::scale_format e4m3).
  bo.scale_format = scale_format_option(a, *co.dialect);
  // Another scale format goes to the reference per output (GemmOperand::block_scale_format).
  const std::optional<FormatId> gemm_sf = gemm_scale_format(bo.scale_format);
  const bool ue4m3 = !bo.scale_format.is_e8m0();  // any scale format but E8M0 (rounded amax / max_E)
  const std::size_t sb = bo.scale_format.code_bytes();  // bytes per scale code
  if (ue4m3 && bo.rule)
    throw UsageError("--scale " + *a.get("scale") + " chooses an E8M0 exponent; with --scale-format " +
                     std::string(bo.scale_format.name()) + " the scale is amax / max_E rounded to nearest: drop --scale");
  const std::string scale_name = !ue4m3 ? "E8M0" : gemm_sf ? "UE4M3" : std::string(bo.scale_format.name());
  if (auto r = a.get("round")) {
    bo.rounding = parse_rounding(*r);
    if (!bo.rounding || *bo.rounding == Rounding::rs)
      throw UsageError("--round expects rne, rna, rz, ru, rd or ro for the element conversions, got " + quote(*r, '\''));
  }
  if (auto s = a.get("sat")) {  // the element conversions'; unset: the dialect's element saturation
    bo.saturation = parse_saturation(*s);
    if (!bo.saturation) throw UsageError("unknown saturation " + quote(*s, '\'') + " for --sat (expected finite or none)");
  }
  const std::size_t nb = (K + blk - 1) / blk;

  // The memory the arrays below take at their peak, before any is allocated: A and B as f32,
  // their codes and scales, the packed rows, B's scales transposed, and C.
  const std::uint64_t mk = std::uint64_t{M} * K, kn = std::uint64_t{K} * N;
  const std::uint64_t need = 4 * (mk + kn) + (mk + kn) + 2 * (M + N) * nb * sb +
                             M * packed_size(fa, K) + N * packed_size(fb, K) + 4 * std::uint64_t{M} * N;
  const MemoryLimit limit = memory_limit();
  if (need > limit.bytes)
    throw UsageError("a " + std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) + " GEMM needs " +
                     std::to_string(need) + " bytes of memory (" + binary_size(need) +
                     ": A and B as f32 and as codes, C as f32), more than the " + std::to_string(limit.bytes) +
                     " bytes (" + binary_size(limit.bytes) + ") " + limit.what + " allows; use smaller --m, --n or --k");

  // The folder, checked (and a new one made beside it) before the work.
  vec::OutputLimits space;
  if (const char* v = std::getenv("SOFTMX_TEST_SPACE_LIMIT")) {
    char* end = nullptr;
    space.space = std::strtoull(v, &end, 10);
    if (!*v || *end) throw UsageError("SOFTMX_TEST_SPACE_LIMIT expects a number of bytes, got " + quote(v, '\''));
  }
  if (const char* v = std::getenv("SOFTMX_TEST_NO_EXCHANGE")) space.exchange = std::string_view(v) != "1";
  vec::OutputDirectory dir(*out_dir, kFiles, space);
  Context out_ctx;  // the f32 golden output: rne, IEEE overflow to Inf
  out_ctx.saturation = Saturation::none;

  // The inputs.
  SplitMix64 rng(seed);
  auto draw = [&] {
    std::int64_t s = 0;
    for (int i = 0; i < 12; ++i) s += static_cast<std::int64_t>(rng.next() >> 40);
    const double v = std::ldexp(static_cast<double>(s - 6 * (std::int64_t{1} << 24)), -24);  // exact
    Context c;
    return static_cast<std::uint32_t>(convert(FormatId::f64, FormatId::f32, std::bit_cast<std::uint64_t>(v), c).code);
  };
  std::vector<std::uint32_t> A(M * K), B(K * N);
  for (auto& x : A) x = draw();
  for (auto& x : B) x = draw();

  // Quantize: A along K per row (axis 1 of M x K), B along K per column (axis 0 of K x N).
  const std::size_t a_shape[2] = {M, K}, b_shape[2] = {K, N};
  MxTensor qa, qb;
  try {
    bo.element = fa;
    qa = quantize_tensor(FormatId::f32, A.data(), a_shape, 1, blk, bo);
    bo.element = fb;
    qb = quantize_tensor(FormatId::f32, B.data(), b_shape, 0, blk, bo);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  // Golden C = A x B: DotGeneral of row i of A and column j of B for every output, by the
  // batched kernels (softmx/gemm.hpp: the same outputs and flags as dot_general, on every core).
  std::vector<std::uint32_t> C(M * N);
  GemmOptions go;
  go.model = model;
  go.out = out_ctx;
  go.threads = threads;
  GemmOperand ga = gemm_rows(fa, M, K, blk, qa.codes, qa.scales), gb = gemm_columns(fb, K, N, blk, qb.codes, qb.scales);
  ga = with_scale_format(ga, bo.scale_format);
  gb = with_scale_format(gb, bo.scale_format);
  Flags all_flags = 0;
  try {
    all_flags = gemm(ga, gb, go, C);
  } catch (const std::invalid_argument& e) {  // a model that reads no UE4M3 scales
    throw UsageError(e.what());
  }

  // Files.
  std::vector<std::uint8_t> a_bin, b_bin, b_scale, scratch_a, scratch_b, scratch_c;
  // Scale code i of a tensor appended little-endian (sb bytes), whatever the host's order.
  auto append_le_scale = [sb](std::vector<std::uint8_t>& out, const MxTensor& q, std::size_t i) {
    const std::uint32_t c = load_scale_code(q.scales.data(), i, sb);
    for (std::size_t y = 0; y < sb; ++y) out.push_back(static_cast<std::uint8_t>(c >> (8 * y)));
  };
  a_bin.reserve(M * packed_size(fa, K));
  b_bin.reserve(N * packed_size(fb, K));
  b_scale.reserve(N * nb * sb);
  for (std::size_t i = 0; i < M; ++i) {
    const auto p = pack(fa, std::span(qa.codes.data() + i * K, K));
    a_bin.insert(a_bin.end(), p.begin(), p.end());
  }
  for (std::size_t j = 0; j < N; ++j) {  // B^T: row j = column j of B, along K
    std::vector<std::uint8_t> col(K);
    for (std::size_t t = 0; t < K; ++t) col[t] = qb.codes[t * N + j];
    const auto p = pack(fb, col);
    b_bin.insert(b_bin.end(), p.begin(), p.end());
    for (std::size_t b = 0; b < nb; ++b) append_le_scale(b_scale, qb, b * N + j);
  }
  std::vector<std::uint8_t> a_scale;  // A's scales, little-endian
  a_scale.reserve(M * nb * sb);
  for (std::size_t i = 0; i < M * nb; ++i) append_le_scale(a_scale, qa, i);
  const std::string scale_unit = sb == 1 ? " bytes" : " codes of " + std::to_string(sb) + " bytes (little-endian)";
  struct FileInfo {
    std::string name, layout;
    std::span<const std::uint8_t> bytes;
  };
  const std::string rowbytes_a = std::to_string(packed_size(fa, K)), rowbytes_b = std::to_string(packed_size(fb, K));
  const std::vector<FileInfo> files = {
      {"a_f32.bin", "A, f32 (M x K) row-major: the values quantized", le_bytes(A, scratch_a)},
      {"b_f32.bin", "B, f32 (K x N) row-major", le_bytes(B, scratch_b)},
      {"a.bin", "A element codes, M rows of " + rowbytes_a + " bytes: the K codes of a row packed (docs/BLOCKS.md 4)", a_bin},
      {"a_scale.bin", "A " + scale_name + " scales, M x " + std::to_string(nb) + scale_unit + " row-major: scale of block b of row i at i*" + std::to_string(nb) + "+b", a_scale},
      {"b.bin", "B element codes as B^T: N rows (one per column of B) of " + rowbytes_b + " bytes, the K codes packed", b_bin},
      {"b_scale.bin", "B " + scale_name + " scales as B^T: N x " + std::to_string(nb) + scale_unit + ": scale of block b of column j at j*" + std::to_string(nb) + "+b", b_scale},
      {"c_golden.bin", "C = A x B, f32 (M x N) row-major: DotGeneral of row i of A and column j of B", le_bytes(C, scratch_c)},
  };
  std::string cmdline = "softmx";
  for (int i = 1; i < argc; ++i) cmdline += std::string(" ") + argv[i];
  std::string manifest =
      "# softmx gemm-golden manifest\ngenerator = softmx gemm-golden\ngenerator_version = 0.1.0\ncommand = " + cmdline +
      "\nseed = " + std::to_string(seed) + "\nm = " + std::to_string(M) + "\nn = " + std::to_string(N) +
      "\nk = " + std::to_string(K) + "\nblock = " + std::to_string(blk) + "\na_format = " + std::string(fa.name) +
      "\nb_format = " + std::string(fb.name) +
      (ue4m3 ? "\nscale_format = " + std::string(bo.scale_format.name()) + "\nscale_rule = rne(amax / max_E) (docs/BLOCKS.md 1.2)"
             : "\nscale_rule = " + std::string(name(bo.rule.value_or(co.dialect->block.scale_rule)))) +
      "\ndialect = " + std::string(co.dialect->name) +
      "\nelement_rounding = " + std::string(name(bo.rounding.value_or(co.dialect->block.element_rounding))) +
      "\nelement_saturation = " + std::string(name(bo.saturation.value_or(co.dialect->block.element_saturation))) +
      "\naccumulation = " + std::string(model->name()) + "\noutput = f32, rne, overflow to Inf" +
      "\ninput_distribution = (sum of 12 SplitMix64 draws >> 40, minus 6 * 2^24) * 2^-24, rounded to f32 rne; A row-major then B row-major" +
      "\npartial_block = the last block along K is padded with zeros (not stored)\nendianness = little\n";
  for (const FileInfo& f : files) {
    dir.write(f.name, f.bytes);
    manifest += "file = " + f.name + " bytes=" + std::to_string(f.bytes.size()) + " sha256=" + sha256_hex(f.bytes) +
                " layout: " + f.layout + "\n";
  }
  dir.write("manifest.txt", std::span(reinterpret_cast<const std::uint8_t*>(manifest.data()), manifest.size()));
  dir.commit();
  Output out;
  out.printf("wrote %s: C = A (%zu x %zu %s) x B (%zu x %zu %s), %zu-element blocks, %s accumulation; golden flags %s\n",
             out_dir->c_str(), M, K, std::string(fa.name).c_str(), K, N, std::string(fb.name).c_str(),
             blk, std::string(model->name()).c_str(), flags_words(all_flags).c_str());
  out.commit();
  return 0;
}

}  // namespace softmx::cli
