// conformance/test_cli_recipe.cpp: `softmx recipe` and `softmx recipes` through the real binary.
//
//   - Each recipe, under each role and implementation that applies (RHT on bf16, stochastic
//     rounding with random-bit files, 2-d tiles, HYBRID, power-of-2 scales, a given amax), on
//     SplitMix64 tensors with specials mixed in: the CLI's output, parsed back, equals
//     quantize_recipe's on the same input field for field (codes, scales, multipliers, RHT input,
//     amax, tensor scale and inverse, flags, shapes), te_compact_scales's and gemm_swizzled_scales's
//     (--layouts) and dequantize_recipe's (--dequantize, into f32, bf16 and f16 in turn), and
//     --binary input and stdin give the same bytes as a hex file.
//   - The hand-checked case RecipeNvfp4.GlobalAmax10 (test_recipes_nvfp4.cpp, TE
//     core_nvfp4.cuh:87-94, 51-52, :549-550) reproduced from the command line.
//   - -o FILE gets the bytes standard output gets, and a refused run leaves it as it was.
//   - Bad input exits 2 naming the argument or the file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "softmx/prng.hpp"
#include "softmx/recipe.hpp"
#include "softmx/scale_layout.hpp"
#include "support/cli_run.hpp"

namespace softmx {
namespace {

using testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return testing::run_cli(args, input); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string ones(int n) {
  std::string t;
  for (int i = 0; i < n; ++i) t += "3F800000 ";
  return t;
}

std::string hx(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

/// One output as the CLI printed it.
struct Parsed {
  std::map<std::string, std::string> fields;                   // the "# rowwise" line's key=value
  std::map<std::string, std::vector<std::uint64_t>> matrices;  // "codes", "scales", ...
  std::map<std::string, std::string> dims;                     // "codes" -> "16x16"
};

std::map<std::string, Parsed> parse(const std::string& out) {
  std::map<std::string, Parsed> r;
  std::istringstream in(out);
  std::string line, dir, section;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string first;
    ls >> first;
    if (first == "#") {
      std::string which;
      ls >> which;
      section.clear();
      if (which != "rowwise" && which != "columnwise") continue;
      dir = which;
      std::string kv;
      while (ls >> kv) {
        const auto eq = kv.find('=');
        r[dir].fields[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    } else if (first == "rowwise" || first == "columnwise") {
      dir = first;
      ls >> section;
      ls >> r[dir].dims[section];
      r[dir].matrices[section];
    } else {
      std::istringstream vs(line);
      std::string tok;
      while (vs >> tok) r[dir].matrices[section].push_back(std::stoull(tok, nullptr, 16));
    }
  }
  return r;
}

template <typename T>
std::vector<std::uint64_t> widen(const std::vector<T>& v) {
  return std::vector<std::uint64_t>(v.begin(), v.end());
}

/// Compares one output with the library's, field by field; returns the number of mismatching fields.
int compare(const RecipeOutput& o, const Parsed& p, const std::string& what) {
  int bad = 0;
  auto check = [&](bool ok, const std::string& field) {
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << ": " << field;
    }
  };
  auto f = [&](const char* k) { return p.fields.count(k) ? p.fields.at(k) : std::string("<absent>"); };
  check(f("rows") == std::to_string(o.rows) && f("cols") == std::to_string(o.cols), "shape");
  check(f("element") == format(o.element).name, "element");
  check(f("block") == std::to_string(o.block_rows) + "x" + std::to_string(o.block_cols), "block");
  check(f("scale_format") == format(o.scale_format).name, "scale_format");
  check(f("scale_shape") == std::to_string(o.scale_rows) + "x" + std::to_string(o.scale_cols), "scale_shape");
  check(f("amax") == hx(o.amax, 8), "amax " + f("amax") + " vs " + hx(o.amax, 8));
  check(f("tensor_scale") == hx(o.tensor_scale, 8), "tensor_scale");
  check(f("tensor_scale_inv") == hx(o.tensor_scale_inv, 8), "tensor_scale_inv");
  check(f("flags") == hx(o.flags, 2), "flags");
  auto m = [&](const char* k) { return p.matrices.count(k) ? p.matrices.at(k) : std::vector<std::uint64_t>{}; };
  check(m("codes") == widen(o.codes), "codes");
  check(m("scales") == widen(o.scales), "scales");
  check(m("multipliers") == widen(o.multipliers), "multipliers");
  check(m("rht_input") == widen(o.rht_input), "rht_input");
  check(p.matrices.count("rht_input") == (o.rht_input.empty() ? 0u : 1u), "rht_input present");
  return bad;
}

/// A tensor of `src` codes: SplitMix64 values over many binades, with zeros, infinities and NaNs
/// every so often (specials only when `specials`).
std::vector<std::uint32_t> tensor(std::uint64_t seed, std::size_t n, bool specials) {
  SplitMix64 g(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    const std::uint64_t r = g.next();
    const std::uint32_t sign = static_cast<std::uint32_t>(r >> 63) << 31;
    const std::uint32_t exp = 127 - 20 + static_cast<std::uint32_t>((r >> 40) % 30);  // 2^-20 .. 2^9
    x = sign | exp << 23 | static_cast<std::uint32_t>(r & 0x7FFFFF);
    if (specials) {
      const auto k = (r >> 32) % 97;
      if (k == 0) x = sign;                      // ±0
      else if (k == 1) x = sign | 0x7F800000u;   // ±Inf
      else if (k == 2) x = 0x7FC00000u;          // NaN
    }
  }
  return v;
}

struct Case {
  std::string recipe, args;
  FormatId src;
  std::size_t rows, cols;
  RecipeOptions options;
  bool specials = true;
  bool sr = false;  // random-bit files for both outputs
};

std::vector<Case> cases() {
  std::vector<Case> c;
  auto opt = [](auto f) {
    RecipeOptions o;
    f(o);
    return o;
  };
  // te-fp8-current: every role x impl; HYBRID gradient; power of 2; a given amax; an epsilon.
  for (const char* role : {"input", "weight", "gradient"})
    for (const char* impl : {"kernel", "reference", "custom-reference"})
      c.push_back({"te-fp8-current", std::string("--role ") + role + " --impl " + impl, FormatId::f32, 8, 24,
                   opt([&](RecipeOptions& o) {
                     o.role = *parse_tensor_role(role);
                     o.impl = *parse_recipe_impl(impl);
                   })});
  c.push_back({"te-fp8-current", "--fp8-format e4m3 --role gradient --power-2-scale 1 --amax 43E00000", FormatId::bf16, 4,
               40, opt([](RecipeOptions& o) {
                 o.fp8_format = Fp8Format::e4m3;
                 o.role = TensorRole::gradient;
                 o.power_2_scale = true;
                 o.amax = 0x43E00000u;
               })});
  c.push_back({"te-fp8-current", "--amax-epsilon 3F800000 --outputs rowwise", FormatId::f16, 3, 5,
               opt([](RecipeOptions& o) {
                 o.amax_epsilon = 0x3F800000u;
                 o.columnwise = false;
               }),
               false});
  // te-fp8-block: 1x128 with partial blocks, 128x128 tiles, FP32 scales, bf16.
  c.push_back({"te-fp8-block", "", FormatId::f32, 3, 300, {}});
  c.push_back({"te-fp8-block", "--role weight", FormatId::bf16, 130, 140,
               opt([](RecipeOptions& o) { o.role = TensorRole::weight; })});
  c.push_back({"te-fp8-block", "--power-2-scale 0 --role gradient --impl reference", FormatId::f16, 5, 129,
               opt([](RecipeOptions& o) {
                 o.power_2_scale = false;
                 o.role = TensorRole::gradient;
                 o.impl = RecipeImpl::reference;
               }),
               false});
  // te-mxfp8: both dialects, HYBRID gradients.
  c.push_back({"te-mxfp8", "", FormatId::f32, 64, 32, {}});
  c.push_back({"MXFP8BlockScaling", "--role gradient --dialect transformer-engine-2025 --outputs columnwise",
               FormatId::bf16, 32, 64, opt([](RecipeOptions& o) {
                 o.role = TensorRole::gradient;
                 o.dialect = find_dialect("transformer-engine-2025");
                 o.rowwise = false;
               })});
  // te-nvfp4: RHT on bf16 (TE's and another sign mask), tiles, the reference, stochastic rounding.
  c.push_back({"te-nvfp4", "", FormatId::bf16, 32, 48, {}});
  c.push_back({"te-nvfp4", "--rht-signs 1234 --rht-amax 40000000", FormatId::bf16, 16, 32, opt([](RecipeOptions& o) {
                 o.rht_sign_mask = 0x1234;
                 o.rht_amax = 0x40000000u;
               })});
  c.push_back({"te-nvfp4", "--role weight --impl reference", FormatId::f32, 32, 32, opt([](RecipeOptions& o) {
                 o.role = TensorRole::weight;
                 o.impl = RecipeImpl::reference;
               })});
  c.push_back({"te-nvfp4", "--random-hadamard 0 --amax 41200000 --tiles-2d 1", FormatId::f16, 16, 16,
               opt([](RecipeOptions& o) {
                 o.random_hadamard = false;
                 o.amax = 0x41200000u;
                 o.tiles_2d = true;
               }),
               false});
  Case sr{"te-nvfp4", "--role gradient", FormatId::bf16, 16, 32, opt([](RecipeOptions& o) { o.role = TensorRole::gradient; })};
  sr.sr = true;
  c.push_back(sr);
  Case rs{"te-nvfp4", "--role gradient --stochastic-form rs --rbits 12", FormatId::bf16, 16, 16,
          opt([](RecipeOptions& o) {
            o.role = TensorRole::gradient;
            o.stochastic_form = StochasticForm::rs;
            o.rbits_width = 12;
          })};
  rs.sr = true;
  c.push_back(rs);
  return c;
}

TEST(CliRecipe, EachRecipeEqualsTheLibrary) {
  const std::string dir = testing::scratch_dir("cli_recipe");
  int n = 0, bad = 0;
  for (const Case& k : cases()) {
    const std::size_t count = k.rows * k.cols;
    std::vector<std::uint32_t> v = tensor(0x5EC0DE + n, count, k.specials);
    const bool f32 = k.src == FormatId::f32;
    std::vector<std::uint16_t> v16(count);
    for (std::size_t i = 0; i < count; ++i)
      v16[i] = k.src == FormatId::bf16 ? static_cast<std::uint16_t>(v[i] >> 16)
                                       : static_cast<std::uint16_t>((v[i] >> 31) << 15 | ((v[i] >> 13) & 0x7FFF));
    std::string text, bytes;
    for (std::size_t i = 0; i < count; ++i) {
      text += hx(f32 ? v[i] : v16[i], f32 ? 8 : 4) + (i % 16 == 15 ? "\n" : " ");
      const std::uint32_t w = f32 ? v[i] : v16[i];
      for (int b = 0; b < (f32 ? 4 : 2); ++b) bytes += static_cast<char>(w >> (8 * b));
    }
    const std::string in = dir + "/in" + std::to_string(n), bin = in + ".bin";
    testing::write_file(in, text);
    testing::write_file(bin, bytes);
    RecipeOptions o = k.options;
    std::vector<std::uint64_t> rbits;
    std::string args = k.args;
    if (k.sr) {
      SplitMix64 g(99 + n);
      const unsigned width = o.stochastic_form == StochasticForm::rs ? o.rbits_width : 8;
      std::string rt;
      for (std::size_t i = 0; i < count; ++i) {
        rbits.push_back(g.next() & ((std::uint64_t{1} << width) - 1));
        rt += hx(rbits.back(), static_cast<int>((width + 3) / 4)) + "\n";
      }
      testing::write_file(in + ".r", rt);
      o.rbits_rowwise = rbits;
      o.rbits_columnwise = rbits;
      args += " --rbits-rowwise '" + in + ".r' --rbits-columnwise '" + in + ".r'";
    }
    const std::size_t shape[2] = {k.rows, k.cols};
    const RecipeTensor t = quantize_recipe(*find_recipe(k.recipe), k.src,
                                           f32 ? static_cast<const void*>(v.data()) : v16.data(), shape, o);
    const FormatId dst = n % 3 == 0 ? FormatId::f32 : n % 3 == 1 ? FormatId::bf16 : FormatId::f16;
    const std::string common = "recipe " + k.recipe + " --shape " + std::to_string(k.rows) + "x" + std::to_string(k.cols) +
                               " --from " + std::string(format(k.src).name) + " --layouts --dequantize " +
                               std::string(format(dst).name) + " " + args;
    const CliRun r = run(common + " '" + in + "'");
    ASSERT_EQ(r.status, 0) << common << ": " << r.err;
    EXPECT_EQ(r.err, "");
    auto p = parse(r.out);
    EXPECT_EQ(p.count("rowwise"), t.rowwise ? 1u : 0u) << common;
    EXPECT_EQ(p.count("columnwise"), t.columnwise ? 1u : 0u) << common;
    for (RecipeDirection d : {RecipeDirection::rowwise, RecipeDirection::columnwise}) {
      const auto& out = d == RecipeDirection::rowwise ? t.rowwise : t.columnwise;
      if (!out) continue;
      const std::string dn(name(d));
      Parsed& pd = p[dn];
      bad += compare(*out, pd, common + " " + dn);
      // --layouts: TE's compact tensor, the swizzled bytes (MXFP8, NVFP4).
      const PaddedScales te = te_compact_scales(t, d);
      bad += pd.matrices["te_scales"] != widen(te.codes) || pd.dims["te_scales"] != std::to_string(te.rows) + "x" + std::to_string(te.cols);
      if (out->scale_format != FormatId::f32) bad += pd.matrices["swizzled_scales"] != widen(gemm_swizzled_scales(t, d));
      else bad += pd.matrices.count("swizzled_scales") != 0;
      // --dequantize: dequantize_recipe's codes.
      std::vector<std::uint32_t> v32(out->rows * out->cols);
      std::vector<std::uint16_t> v16(out->rows * out->cols);
      const bool w32 = dst == FormatId::f32;
      dequantize_recipe(t, d, dst, w32 ? static_cast<void*>(v32.data()) : v16.data());
      bad += pd.matrices["dequantized"] != (w32 ? widen(v32) : widen(v16));
      EXPECT_EQ(bad, 0) << common << " " << dn << " layouts or dequantized";
    }
    // The header names the resolved settings.
    EXPECT_TRUE(has(r.out, "element=" + std::string(format(t.element).name) + " power_2_scale=" +
                               std::to_string(t.power_2_scale) + " tiles_2d=" + std::to_string(t.tiles_2d) +
                               " random_hadamard=" + std::to_string(t.random_hadamard)))
        << r.out.substr(0, 300);
    // --binary and stdin: the same bytes.
    const CliRun rb = run(common + " --binary '" + bin + "'");
    EXPECT_EQ(rb.status, 0) << rb.err;
    EXPECT_EQ(rb.out, r.out) << common << " --binary";
    const CliRun rs = run(common + " -", text);
    EXPECT_EQ(rs.out, r.out) << common << " stdin";
    ++n;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(n, 22);
}

// recipe_test_input, the input of --seed and of the committed sets under vectors/recipes/: finite
// normal numbers of the source (or ±0), the base binade per 16 values within 2^-7..2^12 and each
// value at most 7 binades below the group's largest, about one zero in 41; the same seed gives
// the same codes, another seed others.
TEST(CliRecipe, TestInputProperties) {
  for (const FormatId src : {FormatId::f32, FormatId::bf16, FormatId::f16}) {
    const int mant = src == FormatId::f32 ? 23 : src == FormatId::bf16 ? 7 : 10;
    const int bias = src == FormatId::f16 ? 15 : 127, ebits = src == FormatId::f16 ? 5 : 8;
    const std::size_t n = 16 * 512;
    const std::vector<std::uint32_t> v = recipe_test_input(src, n, 1);
    ASSERT_EQ(v.size(), n);
    EXPECT_EQ(v, recipe_test_input(src, n, 1));
    EXPECT_NE(v, recipe_test_input(src, n, 2));
    std::size_t zeros = 0, negative = 0;
    for (std::size_t g = 0; g < n; g += 16) {
      int lo = 99, hi = -99;
      for (std::size_t i = g; i < g + 16; ++i) {
        ASSERT_EQ(std::uint64_t{v[i]} >> (1 + ebits + mant), 0u) << i;  // no bits above the source's width
        negative += v[i] >> (ebits + mant);
        const std::uint32_t mag = v[i] & ((1u << (ebits + mant)) - 1);
        if (mag == 0) {
          ++zeros;
          continue;
        }
        const int e = static_cast<int>(mag >> mant) - bias;
        ASSERT_GE(e, -14) << i;  // a normal number of f16, bf16 and f32
        ASSERT_LE(e, 12) << i;
        lo = std::min(lo, e);
        hi = std::max(hi, e);
      }
      if (hi >= lo) {
        EXPECT_LE(hi - lo, 7) << g;
      }
    }
    EXPECT_GT(zeros, n / 41 / 2);
    EXPECT_LT(zeros, n / 41 * 2);
    EXPECT_GT(negative, n / 3);
    EXPECT_LT(negative, 2 * n / 3);
  }
  EXPECT_THROW(recipe_test_input(FormatId::f64, 4, 1), std::invalid_argument);
}

// --seed S quantizes recipe_test_input(--from, M*K, S): the same output as that tensor given as
// a file (one seed per recipe, the settings of the committed sets), with seed=S in the header.
TEST(CliRecipe, SeedIsTheLibrarysTestInput) {
  const std::string dir = testing::scratch_dir("cli_recipe_seed");
  int n = 0;
  for (const auto& [recipe, src, shape] : {std::tuple{"te-fp8-current", FormatId::f32, "16x64"},
                                           std::tuple{"te-fp8-block", FormatId::f16, "4x256"},
                                           std::tuple{"te-mxfp8", FormatId::bf16, "32x32"},
                                           std::tuple{"te-nvfp4", FormatId::bf16, "32x32"}}) {
    const std::size_t count = 1024;  // every shape here
    const std::vector<std::uint32_t> v = recipe_test_input(src, count, 5 + n);
    std::string text;
    for (std::uint32_t x : v) text += hx(x, src == FormatId::f32 ? 8 : 4) + " ";
    const std::string file = dir + "/in" + std::to_string(n);
    testing::write_file(file, text);
    const std::string common = std::string("recipe ") + recipe + " --shape " + shape + " --from " +
                               std::string(format(src).name) + " --layouts";
    const CliRun seeded = run(common + " --seed " + std::to_string(5 + n));
    const CliRun given = run(common + " " + file);
    ASSERT_EQ(seeded.status, 0) << seeded.err;
    ASSERT_EQ(given.status, 0) << given.err;
    const std::string tag = " seed=" + std::to_string(5 + n) + "\n";
    const std::size_t eol = seeded.out.find('\n');
    ASSERT_NE(eol, std::string::npos);
    EXPECT_EQ(seeded.out.substr(0, eol + 1).size() - tag.size() + 1, given.out.find('\n') + 1);
    EXPECT_EQ(seeded.out.substr(eol + 1 - tag.size(), tag.size()), tag);
    EXPECT_EQ(seeded.out.substr(eol + 1), given.out.substr(given.out.find('\n') + 1)) << recipe;
    ++n;
  }
  EXPECT_EQ(n, 4);
  const CliRun file = run("recipe te-fp8-current --shape 2x2 --seed 1 x.hex");
  EXPECT_EQ(file.status, 2);
  EXPECT_TRUE(has(file.err, "--seed makes the input tensor: no FILE ('x.hex') with it")) << file.err;
  const CliRun bin = run("recipe te-fp8-current --shape 2x2 --seed 1 --binary");
  EXPECT_EQ(bin.status, 2);
  EXPECT_TRUE(has(bin.err, "--binary describes an input FILE; --seed makes the input tensor")) << bin.err;
  const CliRun bad = run("recipe te-fp8-current --shape 2x2 --seed -1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.err, "--seed")) << bad.err;
}

TEST(CliRecipe, GlobalAmax10ByHand) {
  // test_recipes_nvfp4.cpp case 1: G = 10, block [10, 1, -2.5, 0.75]; S_enc = RN(2688/10)
  // (core_nvfp4.cuh:87-94), scale 0x7E (:51-52), m = RN(1 / RN(448 * S_dec)) (:549-550).
  std::string in;
  for (int i = 0; i < 256; ++i) {
    const char* v = i == 0 ? "41200000" : i == 1 ? "3F800000" : i == 2 ? "C0200000" : i == 3 ? "3F400000" : "00000000";
    in += std::string(v) + (i % 16 == 15 ? "\n" : " ");
  }
  const CliRun r = run("recipe te-nvfp4 --shape 16x16 --random-hadamard 0", in);
  ASSERT_EQ(r.status, 0) << r.err;
  auto p = parse(r.out);
  EXPECT_EQ(p["rowwise"].fields["amax"], "41200000");
  EXPECT_EQ(p["rowwise"].fields["tensor_scale"], "43866666");
  EXPECT_EQ(p["rowwise"].fields["tensor_scale_inv"], "3B73CF3E");
  EXPECT_EQ(p["rowwise"].fields["scale_format"], "e4m3");
  EXPECT_EQ(p["rowwise"].matrices["scales"][0], 0x7Eu);
  EXPECT_EQ(p["rowwise"].matrices["scales"][1], 0x00u);  // row 1: all zero
  EXPECT_EQ(p["rowwise"].matrices["multipliers"][0], 0x3F199999u);
  EXPECT_TRUE(has(r.out, "rowwise codes 16x16\n7 1 B 1 0 0 0 0 0 0 0 0 0 0 0 0\n")) << r.out.substr(0, 400);
  EXPECT_EQ(p["columnwise"].fields["rows"], "16");
  EXPECT_EQ(p["columnwise"].fields["tensor_scale"], "43866666");
  EXPECT_EQ(p["columnwise"].matrices["scales"][0], 0x7Eu);
  EXPECT_EQ(p["columnwise"].matrices["codes"][0], 0x7u);
}

TEST(CliRecipe, OutputFile) {
  // -o FILE and --out FILE write what standard output gets; a refused run leaves the file as it was.
  const std::string dir = testing::scratch_dir("cli_recipe_out");
  const std::string in = ones(64);
  CliRun plain;
  ASSERT_NO_FATAL_FAILURE(
      testing::expect_out_file_matches_stdout("recipe te-fp8-block --shape 4x16", in, dir + "/q.txt", plain));
  const CliRun bad = run("recipe te-fp8-block --shape 4x17 --out " + dir + "/q.txt", in);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(testing::slurp(dir + "/q.txt"), plain.out);
  EXPECT_TRUE(has(run("recipe te-fp8-block --shape 4x16 -o a -o b", in).err, "option -o given twice"));
}

TEST(CliRecipe, ListsTheRecipes) {
  const CliRun a = run("recipes"), b = run("recipe --list");
  EXPECT_EQ(a.status, 0);
  EXPECT_EQ(a.out, b.out);
  for (const Recipe& r : all_recipes()) {
    EXPECT_TRUE(has(a.out, std::string(r.name))) << r.name;
    EXPECT_TRUE(has(a.out, std::string(r.te_name))) << r.te_name;
  }
  EXPECT_EQ(run("recipes extra").status, 2);
}

TEST(CliRecipe, BadInputNamesTheArgument) {
  const std::string dir = testing::scratch_dir("cli_recipe_err");
  const std::string four = "3F800000 40000000\n40400000 40800000\n";
  struct E {
    std::string args, input, message;
  };
  const std::vector<E> errors = {
      {"recipe nope --shape 2x2", four, "unknown recipe 'nope' (expected one of te-fp8-current, te-fp8-block, te-mxfp8, te-nvfp4)"},
      {"recipe", "", "missing the recipe NAME"},
      {"recipe te-fp8-current", four, "missing --shape MxK"},
      {"recipe te-fp8-current --shape 2x0", four, "--shape expects dimensions as positive integers"},
      {"recipe te-fp8-current --shape 2xq", four, "--shape expects"},
      {"recipe te-fp8-current --shape 1x3", four, "<stdin> line 2: more values than --shape holds (3)"},
      {"recipe te-fp8-current --shape 2x2", "3F800000 40000000\n4040000\n", "<stdin> line 2: expected 8 hex digits"},
      {"recipe te-fp8-current --shape 3x2", four, "<stdin>: expected 6 values (--shape), got 4"},
      {"recipe te-fp8-current --shape 2x2 --from e4m3", four, "--from must be f32, bf16 or f16"},
      {"recipe te-fp8-current --shape 2x2 --role bias", four, "--role expects input, weight or gradient, got 'bias'"},
      {"recipe te-fp8-current --shape 2x2 --impl gpu", four, "--impl expects kernel, reference or custom-reference"},
      {"recipe te-fp8-current --shape 2x2 --outputs none", four, "--outputs expects rowwise, columnwise or both"},
      {"recipe te-fp8-current --shape 2x2 --power-2-scale yes", four, "--power-2-scale expects 0 or 1, got 'yes'"},
      {"recipe te-fp8-current --shape 2x2 --amax 1.0", four, "--amax expects 8 hex digits"},
      {"recipe te-fp8-current --shape 2x2 --tiles-2d 1", four, "2-d tiles apply to te-fp8-block and te-nvfp4 only (option --tiles-2d)"},
      {"recipe te-mxfp8 --shape 2x2", four, "MXFP8 needs both dimensions divisible by 32 (quantizer.cpp:1514-1516), got 2 x 2 (option --shape)"},
      {"recipe te-nvfp4 --shape 16x16", ones(256), "the random Hadamard transform needs bf16 input (quantizer.cpp:2632-2634), got f32; give bf16 data or turn random_hadamard off (option --random-hadamard)"},
      {"recipe te-fp8-block --shape 2x2 --amax 3F800000", four, "a given amax applies to per-tensor scales (te-fp8-current, te-nvfp4) only (option --amax)"},
      {"recipe te-mxfp8 --shape 32x32 --impl reference", ones(1024), "only impl kernel (option --impl)"},
      {"recipe te-fp8-current --shape 2x2 --power-2-scale 1 --fp8-format hybrid --outputs rowwise --amax-epsilon 00000000 --rht-amax 3F800000", four, "rht_amax applies to te-nvfp4 only (option --rht-amax)"},
      {"recipe te-nvfp4 --shape 2x2 --rht-signs 12345", four, "--rht-signs expects 4 hex digits"},
      {"recipe te-fp8-current --shape 2x2 /nonexistent/x.hex", "", "cannot open '/nonexistent/x.hex'"},
      {"recipe te-fp8-current --shape 2x2 --binary", "abc", "<stdin>: expected 16 bytes"},
      {"recipe te-fp8-current --shape 2x2 --rbits 8", four, "--rbits sets the random bits of --stochastic-form rs"},
      {"recipe te-fp8-current --shape 2x2 --frob 1", four, "unknown option --frob"},
      {"recipe te-fp8-block --shape 2x2 --dialect nope", four, "unknown dialect 'nope' for --dialect"},
      {"recipe te-fp8-block --shape 2x2 --dequantize e4m3", four, "--dequantize expects f32, bf16 or f16"},
      {"recipe te-fp8-current --shape 2x2 --rht-signs D7E8", four, "--rht-signs applies with the random Hadamard transform"},
      {"recipe te-nvfp4 --shape 16x16 --role weight --rht-signs D7E8", ones(256), "--rht-signs applies with the random Hadamard transform (te-nvfp4, inputs and gradients, or --random-hadamard 1); it is off here"},
      {"recipe te-nvfp4 --shape 16x16 --from bf16 --stochastic-form rs", [] {
         std::string t;
         for (int i = 0; i < 256; ++i) t += "3F80 ";
         return t;
       }(), "--stochastic-form applies with stochastic rounding (te-nvfp4 gradients, or --stochastic-rounding 1); it is off here"},
  };
  for (const E& e : errors) {
    const CliRun r = run(e.args, e.input);
    EXPECT_EQ(r.status, 2) << e.args;
    EXPECT_EQ(r.out, "") << e.args;
    EXPECT_TRUE(has(r.err, "softmx recipe: error: ")) << e.args << ": " << r.err;
    EXPECT_TRUE(has(r.err, e.message)) << e.args << ": " << r.err;
  }
  // Stochastic rounding needs a random value per element, from the file given.
  std::string in;
  for (int i = 0; i < 256; ++i) in += "3F80 ";
  testing::write_file(dir + "/r", "00 11\n22\n");
  const CliRun few = run("recipe te-nvfp4 --shape 16x16 --from bf16 --role gradient --rbits-rowwise " + dir + "/r --rbits-columnwise " + dir + "/r", in);
  EXPECT_EQ(few.status, 2);
  EXPECT_TRUE(has(few.err, "--rbits-rowwise " + dir + "/r: expected one random value per element of the output (256), got 3")) << few.err;
  testing::write_file(dir + "/r2", "100\n");
  const CliRun wide = run("recipe te-nvfp4 --shape 16x16 --from bf16 --role gradient --rbits-rowwise " + dir + "/r2", in);
  EXPECT_TRUE(has(wide.err, "--rbits-rowwise " + dir + "/r2 line 1: expected random bits as 2 hex digits (below 2^8), got \"100\"")) << wide.err;
  const CliRun none = run("recipe te-nvfp4 --shape 16x16 --from bf16 --role gradient", in);
  EXPECT_EQ(none.status, 2);
  EXPECT_TRUE(has(none.err, "stochastic rounding needs one random value per rowwise element (256), got 0 (option --rbits-rowwise FILE)")) << none.err;
}

}  // namespace
}  // namespace softmx
