// conformance/test_cli_peers.cpp: `softmx torchmx` and `softmx pychop`, the seeds' own entry
// points from the command line, through the real binary.
//
//   - torchmx quantize-mx / to-mx for every element dtype, both paths, 2-d and 3-d shapes, on
//     SplitMix64 bf16 tensors with zeros, infinities, NaNs and an all-zero block: the printed
//     scale, data and to_dtype (f32 and bf16) equal torchmx_quantize_mx / torchmx_to_mx /
//     torchmx_to_dtype's; --binary input gives the same bytes as hex; the hand cases of
//     docs/DIALECTS.md's torchmx rows.
//   - torchmx dequantize-mx on arbitrary bytes (block_dim -1 and 0) equals torchmx_dequantize_mx;
//     matmul and linear (with a bias, both accumulation models) equal torchmx_matmul /
//     torchmx_linear on the to_mx tensors.
//   - pychop quantize for each MX_FORMATS key, a tuple, a create_mx_spec spec, f64 and f32, the
//     backends and NumPy promotions: values, scales, codes, uncoded and statistics() equal
//     pychop_mx_quantize / pychop_statistics; the statistics' floats printed as Python prints
//     them (hand-computed from mx_formats.py:309-332). pychop specs lists MX_FORMATS.
//   - Bad input exits 2 naming the argument, the file or the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/prng.hpp"
#include "softmx/pychop.hpp"
#include "softmx/torchmx.hpp"
#include "support/cli_run.hpp"

namespace softmx {
namespace {

using testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return testing::run_cli(args, input); }

std::string hx(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

template <class V>
std::string hex_text(const V& v, int digits) {
  std::string t;
  for (const auto x : v) t += hx(static_cast<std::uint64_t>(x), digits) + " ";
  return t;
}

template <class V>
std::string le_bytes(const V& v, int width) {
  std::string t;
  for (const auto x : v)
    for (int b = 0; b < width; ++b) t += static_cast<char>((static_cast<std::uint64_t>(x) >> (8 * b)) & 0xFF);
  return t;
}

template <class T>
std::vector<std::uint64_t> widen(const std::vector<T>& v) {
  return std::vector<std::uint64_t>(v.begin(), v.end());
}

/// The sections of an output: "scale" -> values (hex), with the section line's dims and note;
/// "#" -> the header's key=value pairs; "statistics" -> key value lines; "uncoded" decimal.
struct Parsed {
  std::map<std::string, std::string> header;
  std::map<std::string, std::string> dims, notes;
  std::map<std::string, std::vector<std::uint64_t>> values;
  std::map<std::string, std::string> statistics;
};

Parsed parse(const std::string& out) {
  static const char* kSections[] = {"scale", "data", "to_dtype", "dequantized", "c", "values", "scales", "codes", "uncoded"};
  Parsed p;
  std::istringstream in(out);
  std::string line, section;
  bool stats = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string first;
    ls >> first;
    if (first == "#") {
      std::string kv;
      while (ls >> kv)
        if (const auto eq = kv.find('='); eq != std::string::npos) p.header[kv.substr(0, eq)] = kv.substr(eq + 1);
      continue;
    }
    if (first == "statistics") {
      stats = true;
      continue;
    }
    if (stats) {
      std::string v;
      ls >> v;
      p.statistics[first] = v;
      continue;
    }
    bool is_section = false;
    for (const char* s : kSections) is_section |= first == s;
    if (is_section) {
      section = first;
      ls >> p.dims[section];
      std::string rest;
      std::getline(ls, rest);
      p.notes[section] = rest;
      p.values[section];
      continue;
    }
    std::istringstream vs(line);
    std::string tok;
    while (vs >> tok) p.values[section].push_back(std::stoull(tok, nullptr, section == "uncoded" ? 10 : 16));
  }
  return p;
}

std::string dims(const std::vector<std::size_t>& d) {
  std::string s;
  for (std::size_t x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

/// bf16 codes from SplitMix64: many binades, with ±0, ±Inf and NaN every so often; the first
/// block of the second row all zero.
std::vector<std::uint16_t> bf16_tensor(std::uint64_t seed, std::size_t rows, std::size_t cols) {
  SplitMix64 g(seed);
  std::vector<std::uint16_t> v(rows * cols);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t r = g.next();
    const std::uint16_t sign = static_cast<std::uint16_t>((r >> 63) << 15);
    const std::uint16_t exp = static_cast<std::uint16_t>(127 - 12 + (r >> 40) % 24);
    std::uint16_t x = static_cast<std::uint16_t>(sign | exp << 7 | (r & 0x7F));
    const auto k = (r >> 32) % 61;
    if (k == 0) x = sign;
    else if (k == 1) x = sign | 0x7F80;
    else if (k == 2) x = 0x7FC0;
    v[i] = x;
  }
  if (rows > 1)
    for (std::size_t c = 0; c < std::min<std::size_t>(cols, 32); ++c) v[cols + c] = 0;
  return v;
}

const char* const kElems[] = {"float8_e4m3", "float6_e3m2", "float6_e2m3", "float4_e2m1", "int8"};

TEST(CliTorchmx, QuantizeEqualsTheLibrary) {
  const std::string dir = testing::scratch_dir("cli_peers");
  int cases = 0;
  for (const char* elem : kElems)
    for (const bool to_mx : {false, true})
      for (const TorchmxPath path : {TorchmxPath::simulated, TorchmxPath::hardware_exact}) {
        const std::vector<std::size_t> shape = to_mx ? std::vector<std::size_t>{3, 40} : std::vector<std::size_t>{2, 2, 64};
        const std::size_t n = shape[0] * shape[1] * (shape.size() > 2 ? shape[2] : 1);
        const auto x = bf16_tensor(static_cast<std::uint64_t>(cases) + 11, n / shape.back(), shape.back());
        const TorchmxTensor t = to_mx ? torchmx_to_mx(x.data(), shape, elem, 32, path)
                                      : torchmx_quantize_mx(x.data(), shape, elem, 32, path);
        std::vector<std::uint32_t> f32(n);
        torchmx_to_dtype(t, FormatId::f32, f32.data());
        const std::string cmd = std::string("torchmx ") + (to_mx ? "to-mx" : "quantize-mx") + " --elem " + elem +
                                " --shape " + dims(shape) + " --path " + std::string(name(path)) + " --to-dtype f32";
        const CliRun o = run(cmd, hex_text(x, 4));
        ASSERT_EQ(o.status, 0) << cmd << ": " << o.err;
        const Parsed p = parse(o.out);
        EXPECT_EQ(p.values.at("scale"), widen(t.scale)) << cmd;
        EXPECT_EQ(p.dims.at("scale"), dims(t.scale_shape)) << cmd;
        EXPECT_EQ(p.values.at("data"), widen(t.data)) << cmd;
        EXPECT_EQ(p.dims.at("data"), dims(t.data_shape)) << cmd;
        EXPECT_EQ(p.values.at("to_dtype"), widen(f32)) << cmd;
        EXPECT_EQ(p.header.at("padding"), std::to_string(t.padding)) << cmd;
        EXPECT_EQ(p.header.at("flags"), hx(t.flags, 2)) << cmd;
        // --binary from a file: the same bytes.
        const std::string file = dir + "/x" + std::to_string(cases) + ".bin";
        testing::write_file(file, le_bytes(x, 2));
        EXPECT_EQ(run(cmd + " --binary " + file).out, o.out) << cmd;
        ++cases;
      }
  EXPECT_EQ(cases, 20);
}

TEST(CliTorchmx, HandCases) {
  // docs/DIALECTS.md torchmx row: bf16 [1.0, -0.5] -> int8, k = 2: scale 0x79 (ocp's - 6),
  // data 0x40 0xE0 (64 and -32 as two's complement); to_dtype gives the values back.
  EXPECT_EQ(run("torchmx quantize-mx --elem int8 --block 2 --shape 1x2 --to-dtype bf16", "3F80 BF00").out,
            "# torchmx quantize_mx elem=int8 block=2 path=simulated shape=1x2 padding=0 flags=00\n"
            "scale 1x1\n79\ndata 1x2\n40 E0\nto_dtype 1x2 to=bf16 flags=00\n3F80 BF00\n");
  // torchmx-hw-exact row: a NaN-scale block keeps the subnormal codes of |V| / 2^128.
  const std::string x = "7C00 7C40 7F80 7AC0";
  EXPECT_NE(run("torchmx quantize-mx --elem float8_e4m3 --block 4 --shape 1x4 --path hardware-exact", x).out.find(
                "scale 1x1\nFF\ndata 1x4\n04 06 00 01\n"),
            std::string::npos);
  EXPECT_NE(run("torchmx quantize-mx --elem float8_e4m3 --block 4 --shape 1x4", x).out.find("scale 1x1\nFF\ndata 1x4\n00 00 00 00\n"),
            std::string::npos);
  // to_mx of 3 values, FP4, block 4: one +0.0 of padding; amax 2.0 gives the scale
  // floor(log2 2) - emax(e2m1) = 1 - 2 = -1 (0x7E), so the elements are 2.0, -1.0, 4.0, +0: codes
  // 4, A, 6, 0, packed element 2i in the high nibble: 4A 60.
  EXPECT_NE(run("torchmx to-mx --elem float4_e2m1 --block 4 --shape 1x3", "3F80 BF00 4000").out.find(
                "padding=1 flags=00\nscale 1x1\n7E\ndata 1x2\n4A 60\n"),
            std::string::npos);
}

TEST(CliTorchmx, DequantizeMatmulLinearEqualTheLibrary) {
  const std::string dir = testing::scratch_dir("cli_peers");
  int cases = 0;
  // dequantize_mx on arbitrary bytes, along the last dimension and along dimension 0.
  SplitMix64 g(99);
  for (const char* elem : {"float8_e4m3", "int8", "float4_e2m1"})
    for (const int block_dim : {-1, 0})
      for (const FormatId target : {FormatId::bf16, FormatId::f32}) {
        const bool fp4 = std::string(elem) == "float4_e2m1";
        const std::vector<std::size_t> dshape = block_dim == 0 ? std::vector<std::size_t>{fp4 ? 32u : 64u, 3}
                                                               : std::vector<std::size_t>{3, fp4 ? 32u : 64u};
        const std::vector<std::size_t> sshape = block_dim == 0 ? std::vector<std::size_t>{2, 3} : std::vector<std::size_t>{3, 2};
        std::vector<std::uint8_t> data(dshape[0] * dshape[1]), scale(6);
        for (auto& b : data) b = static_cast<std::uint8_t>(g.next());
        for (auto& b : scale) b = static_cast<std::uint8_t>(0x70 + g.next() % 32);
        scale[5] = 0xFF;  // a NaN scale
        const bool f32 = target == FormatId::f32;
        std::vector<std::uint32_t> w32(192);
        std::vector<std::uint16_t> w16(192);
        const Flags f = torchmx_dequantize_mx(data, dshape, scale, sshape, elem, 32, target, block_dim == 0 ? 0 : 1,
                                              f32 ? static_cast<void*>(w32.data()) : w16.data());
        const std::string sfile = dir + "/s" + std::to_string(cases) + ".hex";
        testing::write_file(sfile, hex_text(scale, 2));
        const std::string cmd = std::string("torchmx dequantize-mx --elem ") + elem + " --data-shape " + dims(dshape) +
                                " --scale-shape " + dims(sshape) + " --scales " + sfile + " --block-dim " +
                                std::to_string(block_dim) + " --target " + std::string(format(target).name);
        const CliRun o = run(cmd, hex_text(data, 2));
        ASSERT_EQ(o.status, 0) << cmd << ": " << o.err;
        const Parsed p = parse(o.out);
        EXPECT_EQ(p.values.at("dequantized"), f32 ? widen(w32) : widen(w16)) << cmd;
        EXPECT_EQ(p.notes.at("dequantized"), " to=" + std::string(format(target).name) + " flags=" + hx(f, 2)) << cmd;
        ++cases;
      }
  // matmul A [4, 40] x B [40, 3]; linear A x W^T for W [3, 40], with and without a bias.
  const auto a = bf16_tensor(5, 4, 40), b = bf16_tensor(6, 40, 3), w = bf16_tensor(7, 3, 40), bias = bf16_tensor(8, 1, 3);
  const std::size_t sa[2] = {4, 40}, sb[2] = {40, 3}, sw[2] = {3, 40};
  const std::string fa = dir + "/a.hex", fb = dir + "/b.hex", fw = dir + "/w.hex", fbias = dir + "/bias.hex";
  testing::write_file(fa, hex_text(a, 4));
  testing::write_file(fb, hex_text(b, 4));
  testing::write_file(fw, hex_text(w, 4));
  testing::write_file(fbias, hex_text(bias, 4));
  for (const TorchmxAccumulation acc : {TorchmxAccumulation::exact_f32, TorchmxAccumulation::fp32_sequential})
    for (const char* eb : {"float8_e4m3", "float6_e2m3"}) {
      const TorchmxTensor ta = torchmx_to_mx(a.data(), sa, "float8_e4m3", 32);
      const TorchmxTensor tb = torchmx_to_mx(b.data(), sb, eb, 32), tw = torchmx_to_mx(w.data(), sw, eb, 32);
      const std::string opts = std::string(" --elem float8_e4m3 --elem-b ") + eb + " --acc " + std::string(name(acc));
      const TorchmxMatmul m = torchmx_matmul(ta, tb, acc);
      CliRun o = run("torchmx matmul --shape 4x40 --shape-b 40x3" + opts + " " + fa + " " + fb);
      ASSERT_EQ(o.status, 0) << o.err;
      EXPECT_EQ(parse(o.out).values.at("c"), widen(m.c)) << opts;
      EXPECT_EQ(parse(o.out).header.at("flags"), hx(m.flags, 2)) << opts;
      const TorchmxMatmul l = torchmx_linear(ta, tw, std::nullopt, acc);
      o = run("torchmx linear --shape 4x40 --shape-b 3x40" + opts + " " + fa + " -", hex_text(w, 4));
      ASSERT_EQ(o.status, 0) << o.err;
      EXPECT_EQ(parse(o.out).values.at("c"), widen(l.c)) << opts;
      const TorchmxMatmul lb = torchmx_linear(ta, tw, std::span<const std::uint16_t>(bias), acc);
      o = run("torchmx linear --shape 4x40 --shape-b 3x40 --bias " + fbias + opts + " " + fa + " " + fw);
      ASSERT_EQ(o.status, 0) << o.err;
      EXPECT_EQ(parse(o.out).values.at("c"), widen(lb.c)) << opts;
      EXPECT_NE(lb.c, l.c);
      cases += 3;
    }
  EXPECT_EQ(cases, 12 + 12);
}

TEST(CliPychop, QuantizeEqualsTheLibrary) {
  SplitMix64 g(3);
  std::vector<std::uint64_t> x64(50);
  for (auto& v : x64) v = (g.next() & 0x800FFFFFFFFFFFFFull) | ((1023 - 8 + g.next() % 16) << 52);
  x64[5] = 0x7FF8000000000000ull;  // NaN: ignored by amax, no code in FP6/FP4/MXINT8
  x64[9] = 0xFFF0000000000000ull;  // -Inf
  x64[12] = 0x8000000000000000ull;  // -0: MXINT8 code 00 (uncoded)
  std::vector<std::uint32_t> x32(50);
  for (std::size_t i = 0; i < 50; ++i) x32[i] = static_cast<std::uint32_t>(g.next() & 0xBFFFFFFFu);  // |x| < 2
  x32[7] = 0x7FC00000u;
  struct Case {
    std::string args;
    PychopFormat format;
    PychopOptions options;
  };
  std::vector<Case> cases;
  for (const PychopNamedSpec& s : pychop_named_specs()) cases.push_back({"--format " + std::string(s.key), PychopFormat::named(s.key), {}});
  cases.push_back({"--format MXFP6_E3M2 --block 16", PychopFormat::named("mxfp6_e3m2"), {}});
  cases.back().options.block_size = 16;
  cases.push_back({"--format mxfp4_e2m1 --block 16 --backend torch", PychopFormat::named("mxfp4_e2m1"), {}});
  cases.back().options.block_size = 16;
  cases.back().options.backend = PychopBackend::torch;
  cases.push_back({"--format 2,1 --scale-exp-bits 4 --scale-sig-bits 3", PychopFormat::tuple(2, 1), {}});
  cases.back().options.scale_exp_bits = 4;
  cases.back().options.scale_sig_bits = 3;
  cases.push_back({"--spec 3,2,16,8,MINE --numpy 1", PychopFormat::of(pychop_custom_spec(3, 2, 16, 8, "MINE")), {}});
  cases.back().options.numpy = PychopNumpy::v1;
  cases.push_back({"--spec 0,7 --backend jax", PychopFormat::of(pychop_custom_spec(0, 7)), {}});
  cases.back().options.backend = PychopBackend::jax;
  // Custom specs, runtime element formats (DIALECTS.md pychop): max 480, bias 0, MXINT4, E3M0.
  cases.push_back({"--format 4,3", PychopFormat::tuple(4, 3), {}});
  cases.push_back({"--format 1,2 --block 8", PychopFormat::tuple(1, 2), {}});
  cases.back().options.block_size = 8;
  cases.push_back({"--format 0,3 --block 4", PychopFormat::tuple(0, 3), {}});
  cases.back().options.block_size = 4;
  cases.push_back({"--spec 3,0,16", PychopFormat::of(pychop_custom_spec(3, 0, 16)), {}});
  int n = 0;
  for (const Case& c : cases)
    for (const FormatId src : {FormatId::f64, FormatId::f32}) {
      const std::size_t shape[2] = {5, 10};
      const void* data = src == FormatId::f64 ? static_cast<const void*>(x64.data()) : x32.data();
      const PychopResult r = pychop_mx_quantize(src, data, shape, c.format, c.options);
      const PychopStatistics st = pychop_statistics(r.spec, r.shape);
      const std::string input = src == FormatId::f64 ? hex_text(x64, 16) : hex_text(x32, 8);
      const std::string cmd = "pychop quantize --shape 5x10 --from " + std::string(format(src).name) + " " + c.args;
      const CliRun o = run(cmd, input);
      ASSERT_EQ(o.status, 0) << cmd << ": " << o.err;
      const Parsed p = parse(o.out);
      EXPECT_EQ(p.values.at("values"), r.values) << cmd;
      EXPECT_EQ(p.dims.at("values"), "5x10") << cmd;
      EXPECT_EQ(p.values.at("scales"), widen(r.scales)) << cmd;
      EXPECT_EQ(p.values.at("codes"), widen(r.codes)) << cmd;
      EXPECT_EQ(p.dims.at("codes"), std::to_string(r.num_blocks) + "x" + std::to_string(r.spec.block_size)) << cmd;
      EXPECT_EQ(p.values.at("uncoded"), widen(r.uncoded)) << cmd;
      EXPECT_EQ(p.header.at("spec"), r.spec.name) << cmd;
      EXPECT_EQ(p.header.at("element"), r.element.name()) << cmd;
      EXPECT_EQ(p.header.at("value_format"), format(r.value_format).name) << cmd;
      EXPECT_EQ(p.header.at("flags"), hx(r.flags, 2)) << cmd;
      EXPECT_EQ(p.statistics.at("format"), st.format) << cmd;
      EXPECT_EQ(p.statistics.at("num_blocks"), std::to_string(st.num_blocks)) << cmd;
      EXPECT_EQ(p.statistics.at("block_size"), std::to_string(st.block_size)) << cmd;
      EXPECT_EQ(p.statistics.at("scale_exp_bits"), std::to_string(st.scale_exp_bits)) << cmd;
      EXPECT_EQ(std::stod(p.statistics.at("compression_ratio_fp32")), st.compression_ratio_fp32) << cmd;
      EXPECT_EQ(std::stod(p.statistics.at("bits_per_element")), st.bits_per_element) << cmd;
      // --binary: the same output.
      const std::string bin = src == FormatId::f64 ? le_bytes(x64, 8) : le_bytes(x32, 4);
      EXPECT_EQ(run(cmd + " --binary", bin).out, o.out) << cmd;
      ++n;
    }
  EXPECT_EQ(n, 2 * 15);
}

TEST(CliPychop, StatisticsAsPythonPrintsThem) {
  // 50 elements, mxfp4_e2m1, block 32: B = 2 blocks of T = 4 * 32 + 8 = 136 bits
  // (mx_formats.py:100-105); statistics() (np/mx_formats.py:309-332) divides 32 * 50 / 272,
  // 16 * 50 / 272 and 272 / 50, which Python prints as below (python/tests/test_peers.py pins the
  // same dict).
  std::string x;
  for (int i = 0; i < 50; ++i) x += "3FF0000000000000 ";
  const CliRun o = run("pychop quantize --shape 50 --format mxfp4_e2m1", x);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("statistics\nformat MXFP4_E2M1\nexp_bits 2\nsig_bits 1\nblock_size 32\nscale_exp_bits 8\n"
                       "original_shape 50\nnum_blocks 2\ntotal_elements 50\ncompression_ratio_fp32 5.882352941176471\n"
                       "compression_ratio_fp16 2.9411764705882355\nbits_per_element 5.44\n"),
            std::string::npos)
      << o.out;
  // DIALECTS.md pychop row: NaN into e2m1 gives +0 (code 0, uncoded), not OCP's 7; amax ignores
  // the NaN, so the scale is floor(log2 1.0) - emax(e2m1) = -2 (7D) and 1.0 / 2^-2 = 4.0 is code 6.
  const CliRun nan = run("pychop quantize --shape 2 --from f32 --format mxfp4_e2m1", "7FC00000 3F800000");
  EXPECT_NE(nan.out.find("values 2\n7FC00000 3F800000\nscales 1\n7D\ncodes 1x32\n0 6 0"), std::string::npos) << nan.out;
  EXPECT_NE(nan.out.find("uncoded 1\n0\n"), std::string::npos) << nan.out;
  const CliRun specs = run("pychop specs");
  EXPECT_EQ(specs.status, 0);
  int lines = 0;
  for (const PychopNamedSpec& s : pychop_named_specs()) {
    EXPECT_NE(specs.out.find(std::string(s.key)), std::string::npos);
    ++lines;
  }
  EXPECT_EQ(std::count(specs.out.begin(), specs.out.end(), '\n'), lines);
}

TEST(CliPeers, ErrorsNameTheArgument) {
  const std::string dir = testing::scratch_dir("cli_peers");
  testing::write_file(dir + "/s1.hex", "7F");
  struct Bad {
    std::string args, input, message;
  };
  const std::vector<Bad> bad = {
      {"torchmx", "", "missing the action: quantize-mx, to-mx, dequantize-mx, matmul or linear"},
      {"torchmx frob", "", "unknown action 'frob'"},
      {"torchmx quantize-mx --shape 1x2", "3F80 3F80", "missing --elem NAME"},
      {"torchmx quantize-mx --elem float8_e5m2 --shape 1x32", "", "--elem: torchmx: torchmx has no e5m2"},
      {"torchmx quantize-mx --elem fp8 --shape 1x32", "", "--elem: torchmx: unknown element dtype 'fp8'"},
      {"torchmx quantize-mx --elem int8", "", "missing --shape D0x..xDn"},
      {"torchmx quantize-mx --elem int8 --shape 1x0", "", "--shape expects dimensions as positive integers"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 0", "", "--block expects an integer from 1 to 65536"},
      {"torchmx quantize-mx --elem int8 --shape 1x3 --block 2", "3F80 3F80 3F80",
       "torchmx: the last dimension (3) must be a multiple of block_size (2)"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2", "3F80", "<stdin>: expected 2 values (bf16 codes, --shape 1x2), got 1"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2", "3F80 3F8", "<stdin> line 1: expected 4 hex digits"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2 --path fast", "", "--path expects simulated or hardware-exact"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2 --to-dtype f16", "", "--to-dtype expects bf16 or f32"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2 --acc exact-f32", "", "--acc does not apply to torchmx quantize-mx"},
      {"torchmx to-mx --elem int8 --shape 1x3 --block 5", "3F80 3F80 3F80", "needs an even block_size"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2 missing.hex", "", "cannot open 'missing.hex'"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x2 --scale-shape 1x1 --block 2", "00 00", "missing --scales FILE"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x2 --scale-shape 1x1 --block 2 --scales -", "00 00",
       "--scales must name a file"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x2 --scale-shape 1x1 --block 2 --block-dim 2 --scales " + dir + "/s1.hex",
       "00 00", "--block-dim 2 is out of range for --data-shape 1x2 (expected -2 to 1)"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x2 --scale-shape 1 --block 2 --scales " + dir + "/s1.hex", "00 00",
       "--scale-shape 1 must have --data-shape's rank 2"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x2 --scale-shape 1x2 --block 2 --scales " + dir + "/s1.hex", "00 00",
       "expected 2 values (E8M0 scale bytes, --scale-shape 1x2), got 1"},
      {"torchmx dequantize-mx --elem int8 --data-shape 1x4 --scale-shape 1x1 --block 2 --scales " + dir + "/s1.hex",
       "00 00 00 00", "torchmx: the scale's shape (1, 1) should be (1, 2) for data (1, 4)"},
      {"torchmx dequantize-mx --elem float6_e3m2 --data-shape 1x2 --scale-shape 1x1 --block 2 --scales " + dir + "/s1.hex",
       "40 00", "torchmx: data_lp byte 0 (0x40) has bits above the 6-bit float6_e3m2 code"},
      {"torchmx matmul --elem int8 --shape 2x2 --shape-b 2x2 --block 2", "", "torchmx matmul needs two files, A and B"},
      {"torchmx matmul --elem int8 --shape 2x2 --shape-b 2x2 --block 2 - -", "", "only one of A and B can be -"},
      {"torchmx matmul --elem int8 --shape 2x2x2 --shape-b 2x2 --block 2 - x", "", "--shape 2x2x2: A must be 2-d (MxK)"},
      {"torchmx matmul --elem int8 --shape 2x2 --shape-b 2x2 --block 2 --bias x - y", "", "--bias applies to torchmx linear only"},
      {"torchmx matmul --elem int8 --shape 2x2 --shape-b 4x2 --block 2 --acc fast - y", "", "--acc expects exact-f32 or fp32-sequential"},
      {"pychop", "", "missing the action: quantize or specs"},
      {"pychop specs --shape 2", "", "pychop specs takes no other argument"},
      {"pychop quantize", "", "missing --shape D0x..xDn"},
      {"pychop quantize --shape 2 --from bf16", "", "--from must be f64 or f32"},
      {"pychop quantize --shape 2 --format mxfp9", "", "unknown --format 'mxfp9' (expected a key of MX_FORMATS, mxfp8_e5m2"},
      {"pychop quantize --shape 2 --format 4,x", "", "--format's sig_bits expects an integer from 0 to 64, got 'x'"},
      {"pychop quantize --shape 2 --format 4,4", "", "CUSTOM_MX9_E4M4 (exp_bits 4, sig_bits 4) is the format e4m4:bias=7:specials=none, not an MX block element"},
      {"pychop quantize --shape 2 --format 2,1 --spec 2,1", "", "--format and --spec are two ways"},
      {"pychop quantize --shape 2 --spec 2", "", "--spec expects E,S[,BLOCK[,SCALE_EXP_BITS[,NAME]]]"},
      {"pychop quantize --shape 2 --spec 2,1,0", "", "--spec's block_size expects an integer from 1 to 65536, got '0'"},
      {"pychop quantize --shape 2 --scale-exp-bits 9", "", "--scale-exp-bits expects an integer from 1 to 8, got '9'"},
      {"pychop quantize --shape 2 --backend cupy", "", "--backend expects numpy, torch or jax, got 'cupy'"},
      {"pychop quantize --shape 2 --numpy 3", "", "--numpy expects 2 (NumPy >= 2, NEP 50 promotion) or 1, got '3'"},
      {"pychop quantize --shape 2", "3FF0000000000000", "<stdin>: expected 2 values (f64 codes, --shape 2), got 1"},
      {"pychop quantize --shape 1 --from f32", "3F80", "<stdin> line 1: expected 8 hex digits"},
      {"pychop quantize --shape 1 --from f32 --binary", "\x01\x02", "<stdin>: expected 4 bytes (1 f32 codes of 4 bytes"},
      {"pychop quantize --shape 1 --from f32 --binary", "\x01\x02\x03\x04\x05", "<stdin>: expected 4 bytes (1 f32 codes of 4 bytes, little-endian, f32 codes, --shape 1), got more"},
      {"torchmx quantize-mx --elem int8 --shape 1x2 --block 2 --binary", "\x80\x3F\x01", "<stdin>: expected 4 bytes (2 bf16 codes of 2 bytes, little-endian, bf16 codes, --shape 1x2), got 3"},
      {"pychop quantize --shape 1 --bogus 1", "", "unknown option --bogus"},
  };
  for (const Bad& b : bad) {
    const CliRun o = run(b.args, b.input);
    EXPECT_EQ(o.status, 2) << b.args << ": " << o.err;
    EXPECT_EQ(o.out, "") << b.args;
    EXPECT_NE(o.err.find(b.message), std::string::npos) << b.args << "\n  got: " << o.err << "  want: " << b.message;
  }
}

}  // namespace
}  // namespace softmx
