// tools/softmx/cmd_gemm_lut.cpp: `softmx gemm-golden --layout lut-argmin`, the files of the
// seed-003 MX-FP4 GEMM golden generator (include/softmx/lut_argmin.hpp does the work).
//
//   softmx gemm-golden --layout lut-argmin --m M --n N --k K --trans-a 0|1 --trans-b 0|1
//                      [--a e2m1|e1m2] [--b e2m1|e1m2] [--seed S] [--log2 rounded|exact] -o DIR
//
// Writes DIR/data/input/{a_8,b_8,a_scale,b_scale}.bin as the script would for the same f32
// inputs, and DIR/data/golden/expected_data.bin (softmx's exact C), expected_f32_sequential.bin
// (the script's f32 matmul as one sequential order), a_f32.bin and b_f32.bin (the inputs) and
// manifest.txt. Each of the two folders is replaced as a unit (vec::OutputDirectory); both are
// written in full before either is swapped in.
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "softmx/sha256.hpp"
#include "softmx/lut_argmin.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {
namespace {

std::span<const std::uint8_t> le_bytes32(const std::vector<std::uint32_t>& v, std::vector<std::uint8_t>& out) {
  out.clear();
  out.reserve(v.size() * 4);
  for (std::uint32_t x : v)
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
  return out;
}

bool flag_arg(const Args& a, const char* opt) {
  const auto v = a.get(opt);
  if (!v || *v == "0") return false;
  if (*v == "1") return true;
  throw UsageError(std::string("--") + opt + " expects 0 or 1, got " + quote(*v, '\''));
}

LutFormat lut_arg(const Args& a, const char* opt) {
  const auto v = a.get(opt);
  if (!v) return LutFormat::e2m1;
  if (auto f = parse_lut_format(*v)) return *f;
  throw UsageError(std::string("--") + opt + " expects e2m1 or e1m2 (the generator's FP4 tables), got " + quote(*v, '\''));
}

}  // namespace

int cmd_gemm_golden_lut(int argc, char** argv) {
  // "-o DIR" as the issue writes it, beside --out DIR.
  std::vector<std::string> args(argv, argv + argc);
  for (auto& s : args)
    if (s == "-o") s = "--out";
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());
  const Args a = parse_args("gemm-golden", static_cast<int>(av.size()), av.data(), 2,
                            {"layout", "out", "m", "n", "k", "trans-a", "trans-b", "a", "b", "seed", "log2"});
  if (!a.positionals.empty()) throw UsageError("unexpected argument " + quote(a.positionals[0], '\''));
  if (a.get("layout") != "lut-argmin")
    throw UsageError("unknown --layout " + quote(a.get("layout").value_or(""), '\'') + " (expected lut-argmin)");
  const auto out_dir = a.get("out");
  if (!out_dir) throw UsageError("missing -o DIR (where data/input and data/golden go)");
  LutGemmOptions o;
  o.m = parse_count(a, "m", 64, 1 << 14);
  o.n = parse_count(a, "n", 64, 1 << 14);
  o.k = parse_count(a, "k", 256, 1 << 16);
  constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 26;
  if (std::uint64_t{o.m} * o.k > kMaxValues || std::uint64_t{o.k} * o.n > kMaxValues || std::uint64_t{o.m} * o.n > kMaxValues)
    throw UsageError("--layout lut-argmin takes at most 2^26 values in each of A (m x k), B (k x n) and C (m x n); got " +
                     std::to_string(o.m) + " x " + std::to_string(o.n) + " x " + std::to_string(o.k));
  o.trans_a = flag_arg(a, "trans-a");
  o.trans_b = flag_arg(a, "trans-b");
  o.a = lut_arg(a, "a");
  o.b = lut_arg(a, "b");
  if (auto l = a.get("log2")) {
    if (*l == "rounded") o.log2 = Log2Model::correctly_rounded_f32;
    else if (*l == "exact") o.log2 = Log2Model::exact;
    else throw UsageError("--log2 expects rounded or exact, got " + quote(*l, '\''));
  }
  const std::uint64_t seed = parse_seed(a, 1);

  vec::OutputLimits space;
  if (const char* v = std::getenv("SOFTMX_TEST_SPACE_LIMIT")) {
    char* end = nullptr;
    space.space = std::strtoull(v, &end, 10);
    if (!*v || *end) throw UsageError("SOFTMX_TEST_SPACE_LIMIT expects a number of bytes, got " + quote(v, '\''));
  }
  const std::string base = *out_dir + "/data/";
  vec::OutputDirectory in_dir(base + "input", {"a_8.bin", "b_8.bin", "a_scale.bin", "b_scale.bin"}, space);
  vec::OutputDirectory gold_dir(base + "golden", {"expected_data.bin", "expected_f32_sequential.bin", "a_f32.bin",
                                                  "b_f32.bin", "manifest.txt"},
                                space);

  const std::vector<std::uint32_t> ab = gemm_golden_inputs(seed, o.m * o.k + o.k * o.n);
  const std::vector<std::uint32_t> A(ab.begin(), ab.begin() + static_cast<std::ptrdiff_t>(o.m * o.k));
  const std::vector<std::uint32_t> B(ab.begin() + static_cast<std::ptrdiff_t>(o.m * o.k), ab.end());
  LutGemmFiles f;
  try {
    f = lut_argmin_gemm_golden(A, B, o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  std::vector<std::uint8_t> s1, s2, s3, s4;
  struct FileInfo {
    vec::OutputDirectory* dir;
    std::string name, layout;
    std::span<const std::uint8_t> bytes;
  };
  const std::string an = std::string(lut_format(o.a).name), bn = std::string(lut_format(o.b).name);
  const std::vector<FileInfo> files = {
      {&in_dir, "a_8.bin",
       o.trans_a ? "A^T (k x m) " + an + " table indices, rows of ceil(m/2) bytes, low nibble first"
                 : "A (m x k) " + an + " table indices, rows of ceil(k/2) bytes, low nibble first",
       f.a_8},
      {&in_dir, "b_8.bin",
       o.trans_b ? "B^T (n x k) " + bn + " table indices, rows of ceil(k/2) bytes, low nibble first"
                 : "B (k x n) " + bn + " table indices, rows of ceil(n/2) bytes, low nibble first",
       f.b_8},
      {&in_dir, "a_scale.bin",
       std::string("A E8M0 scales, paired layout (m, nb_even/2, 2)") + (o.trans_a ? " permuted (1, 0, 2)" : ""), f.a_scale},
      {&in_dir, "b_scale.bin",
       std::string("B E8M0 scales, paired layout (nb_even/2, 2, n) permuted ") + (o.trans_b ? "(2, 0, 1)" : "(0, 2, 1)"),
       f.b_scale},
      {&gold_dir, "expected_data.bin", "C (m x n) f32: the exact sum of a_fp32 x b_fp32 rounded once (rne)",
       le_bytes32(f.expected, s1)},
      {&gold_dir, "expected_f32_sequential.bin",
       "C (m x n) f32: s = +0, s = RN(s + RN(a x b)) in k order, no FMA (one BLAS order, not the script's)",
       le_bytes32(f.f32_sequential, s2)},
      {&gold_dir, "a_f32.bin", "A (m x k) f32 before quantization", le_bytes32(A, s3)},
      {&gold_dir, "b_f32.bin", "B (k x n) f32 before quantization", le_bytes32(B, s4)},
  };
  std::string cmdline = "softmx";
  for (int i = 1; i < argc; ++i) cmdline += std::string(" ") + argv[i];
  std::string manifest =
      "# softmx gemm-golden --layout lut-argmin manifest (seed 003 MX-FP4 GEMM golden generator)\ncommand = " + cmdline +
      "\nseed = " + std::to_string(seed) + "\nm = " + std::to_string(o.m) + "\nn = " + std::to_string(o.n) +
      "\nk = " + std::to_string(o.k) + "\ntrans_a = " + (o.trans_a ? "1" : "0") + "\ntrans_b = " + (o.trans_b ? "1" : "0") +
      "\na_format = " + an + "\nb_format = " + bn + "\nblock = 32\nlog2 = " +
      (o.log2 == Log2Model::exact ? "exact" : "rounded (floor of the correctly rounded f32 log2)") +
      "\ndialect = lut-argmin\ninput_distribution = (sum of 12 SplitMix64 draws >> 40, minus 6 * 2^24) * 2^-24, "
      "rounded to f32 rne; A row-major then B row-major\n"
      "note = the script's own expected_data.bin is a BLAS sgemm of the dequantized matrices: its summation order "
      "(blocking, FMA, threads) is the BLAS's; where the sum is exact in every order (docs/research/lut-argmin-golden.md "
      "section 7) it equals expected_data.bin here\nendianness = little\n";
  for (const FileInfo& fi : files) {
    fi.dir->write(fi.name, fi.bytes);
    manifest += "file = " + std::string(fi.dir == &in_dir ? "data/input/" : "data/golden/") + fi.name +
                " bytes=" + std::to_string(fi.bytes.size()) + " sha256=" + sha256_hex(fi.bytes) + " layout: " + fi.layout + "\n";
  }
  gold_dir.write("manifest.txt", std::span(reinterpret_cast<const std::uint8_t*>(manifest.data()), manifest.size()));
  in_dir.commit();
  gold_dir.commit();
  Output out;
  out.printf("wrote %s/data: C = A (%zu x %zu %s%s) x B (%zu x %zu %s%s), lut-argmin; golden flags %s\n", out_dir->c_str(),
             o.m, o.k, an.c_str(), o.trans_a ? ", stored transposed" : "", o.k, o.n, bn.c_str(),
             o.trans_b ? ", stored transposed" : "", flags_words(f.expected_flags).c_str());
  out.commit();
  return 0;
}

}  // namespace softmx::cli
