// tools/softmx/cmd_gemm_lut.cpp: `softmx gemm-golden --layout lut-argmin`, the files of the
// seed-003 MX-FP4 GEMM golden generator (include/softmx/lut_argmin.hpp and lut_argmin_files.hpp do
// the work; the Python module's lut_argmin_golden calls the same functions).
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
#include "options.hpp"
#include "commands.hpp"
#include "softmx/lut_argmin.hpp"
#include "softmx/lut_argmin_files.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {
namespace {

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
  const Args a = parse_command("gemm-golden", static_cast<int>(av.size()), av.data(), 2, "lut-argmin");
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
  std::string cmdline = "softmx";
  for (int i = 1; i < argc; ++i) cmdline += std::string(" ") + argv[i];
  LutGoldenOutput g;
  try {
    g = lut_argmin_golden_output(o, seed, cmdline);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  write_lut_argmin_golden(*out_dir, g, space);
  const std::string an = std::string(lut_format(o.a).name), bn = std::string(lut_format(o.b).name);
  Output out;
  out.printf("wrote %s/data: C = A (%zu x %zu %s%s) x B (%zu x %zu %s%s), lut-argmin; golden flags %s\n", out_dir->c_str(),
             o.m, o.k, an.c_str(), o.trans_a ? ", stored transposed" : "", o.k, o.n, bn.c_str(),
             o.trans_b ? ", stored transposed" : "", flags_words(g.expected_flags).c_str());
  out.commit();
  return 0;
}

}  // namespace softmx::cli
