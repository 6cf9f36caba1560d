// emulator/golden/lut_argmin_files.cpp: see softmx/lut_argmin_files.hpp. The layout texts and the
// manifest are those `softmx gemm-golden --layout lut-argmin` has always written (moved here
// from tools/softmx/cmd_gemm_lut.cpp so that Python writes the same bytes).
#include "softmx/lut_argmin_files.hpp"

#include <stdexcept>

#include "softmx/sha256.hpp"

namespace softmx {
namespace {

std::vector<std::uint8_t> le_bytes32(std::span<const std::uint32_t> v) {
  std::vector<std::uint8_t> out;
  out.reserve(v.size() * 4);
  for (std::uint32_t x : v)
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
  return out;
}

LutGoldenOutput make_output(std::span<const std::uint32_t> A, std::span<const std::uint32_t> B, const LutGemmOptions& o,
                            std::optional<std::uint64_t> seed, std::string_view command) {
  LutGemmFiles f = lut_argmin_gemm_golden(A, B, o);
  LutGoldenOutput g;
  g.options = o;
  g.seed = seed;
  g.expected_flags = f.expected_flags;
  const std::string an(lut_format(o.a).name), bn(lut_format(o.b).name);
  g.files = {
      {"data/input/a_8.bin",
       o.trans_a ? "A^T (k x m) " + an + " table indices, rows of ceil(m/2) bytes, low nibble first"
                 : "A (m x k) " + an + " table indices, rows of ceil(k/2) bytes, low nibble first",
       std::move(f.a_8)},
      {"data/input/b_8.bin",
       o.trans_b ? "B^T (n x k) " + bn + " table indices, rows of ceil(k/2) bytes, low nibble first"
                 : "B (k x n) " + bn + " table indices, rows of ceil(n/2) bytes, low nibble first",
       std::move(f.b_8)},
      {"data/input/a_scale.bin",
       std::string("A E8M0 scales, paired layout (m, nb_even/2, 2)") + (o.trans_a ? " permuted (1, 0, 2)" : ""),
       std::move(f.a_scale)},
      {"data/input/b_scale.bin",
       std::string("B E8M0 scales, paired layout (nb_even/2, 2, n) permuted ") + (o.trans_b ? "(2, 0, 1)" : "(0, 2, 1)"),
       std::move(f.b_scale)},
      {"data/golden/expected_data.bin", "C (m x n) f32: the exact sum of a_fp32 x b_fp32 rounded once (rne)",
       le_bytes32(f.expected)},
      {"data/golden/expected_f32_sequential.bin",
       "C (m x n) f32: s = +0, s = RN(s + RN(a x b)) in k order, no FMA (one BLAS order, not the script's)",
       le_bytes32(f.f32_sequential)},
      {"data/golden/a_f32.bin", "A (m x k) f32 before quantization", le_bytes32(A)},
      {"data/golden/b_f32.bin", "B (k x n) f32 before quantization", le_bytes32(B)},
  };
  std::string manifest =
      "# softmx gemm-golden --layout lut-argmin manifest (seed 003 MX-FP4 GEMM golden generator)\ncommand = " +
      std::string(command) + "\n" + (seed ? "seed = " + std::to_string(*seed) + "\n" : std::string()) +
      "m = " + std::to_string(o.m) + "\nn = " + std::to_string(o.n) + "\nk = " + std::to_string(o.k) +
      "\ntrans_a = " + (o.trans_a ? "1" : "0") + "\ntrans_b = " + (o.trans_b ? "1" : "0") + "\na_format = " + an +
      "\nb_format = " + bn + "\nblock = 32\nlog2 = " +
      (o.log2 == Log2Model::exact ? "exact" : "rounded (floor of the correctly rounded f32 log2)") +
      "\ndialect = lut-argmin\n" +
      (seed ? "input_distribution = (sum of 12 SplitMix64 draws >> 40, minus 6 * 2^24) * 2^-24, "
              "rounded to f32 rne; A row-major then B row-major\n"
            : "inputs = given by the caller (data/golden/a_f32.bin, b_f32.bin)\n") +
      "note = the script's own expected_data.bin is a BLAS sgemm of the dequantized matrices: its summation order "
      "(blocking, FMA, threads) is the BLAS's; where the sum is exact in every order (docs/research/lut-argmin-golden.md "
      "section 7) it equals expected_data.bin here\nendianness = little\n";
  for (const LutGoldenFile& fi : g.files)
    manifest += "file = " + fi.path + " bytes=" + std::to_string(fi.bytes.size()) + " sha256=" + sha256_hex(fi.bytes) +
                " layout: " + fi.layout + "\n";
  g.files.push_back({"data/golden/manifest.txt", "", std::vector<std::uint8_t>(manifest.begin(), manifest.end())});
  return g;
}

}  // namespace

LutGoldenOutput lut_argmin_golden_output(const LutGemmOptions& o, std::uint64_t seed, std::string_view command) {
  constexpr std::size_t kMax = static_cast<std::size_t>(-1) / 8;
  if ((o.k != 0 && (o.m > kMax / o.k || o.n > kMax / o.k)) || o.m * o.k > kMax - o.k * o.n)
    throw std::invalid_argument("lut-argmin golden: " + std::to_string(o.m) + " x " + std::to_string(o.n) + " x " +
                                std::to_string(o.k) + " is too large");
  const std::vector<std::uint32_t> ab = gemm_golden_inputs(seed, o.m * o.k + o.k * o.n);
  const std::span<const std::uint32_t> all(ab);
  return make_output(all.first(o.m * o.k), all.subspan(o.m * o.k), o, seed, command);
}

LutGoldenOutput lut_argmin_golden_output(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                         const LutGemmOptions& o, std::string_view command) {
  return make_output(a, b, o, std::nullopt, command);
}

void write_lut_argmin_golden(const std::string& dir, const LutGoldenOutput& out, vec::OutputLimits limits) {
  const std::string input = "data/input/", golden = "data/golden/";
  std::vector<std::string> in_names, gold_names;
  for (const LutGoldenFile& f : out.files) {
    if (f.path.rfind(input, 0) == 0) in_names.push_back(f.path.substr(input.size()));
    else if (f.path.rfind(golden, 0) == 0) gold_names.push_back(f.path.substr(golden.size()));
    else throw std::invalid_argument("lut-argmin golden: unexpected file " + f.path);
  }
  vec::OutputDirectory in_dir(dir + "/" + input.substr(0, input.size() - 1), in_names, limits);
  vec::OutputDirectory gold_dir(dir + "/" + golden.substr(0, golden.size() - 1), gold_names, limits);
  for (const LutGoldenFile& f : out.files) {
    const bool in = f.path.rfind(input, 0) == 0;
    (in ? in_dir : gold_dir).write(f.path.substr(in ? input.size() : golden.size()), f.bytes);
  }
  in_dir.commit();
  gold_dir.commit();
}

}  // namespace softmx
