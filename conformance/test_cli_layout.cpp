// conformance/test_cli_layout.cpp: `softmx layout` through the real binary.
//
//   - encode, for several shapes per layout (partial tiles: 100x2, 130x7, 257x13 for the 128x4
//     tiles; odd K-block counts for the paired layout, both operands and both trans flags; TE's
//     compact padding, transposed and f32): the CLI's bytes (--binary-out, and the hex text
//     parsed) equal the library's encode_swizzled_128x4 / torchao_to_blocked / encode_paired /
//     pad_scales on the same S, --binary input gives the same output as hex, and decode of the
//     library's buffer gives S back (round trip through the CLI both ways).
//   - Hand-checked 128x4 offsets (index = (tileY*nTilesX + tileX)*512 + (r%32)*16 + (r/32)*4 + c
//     within the tile; TE swizzle.cuh:30-41), pinned as literal numbers: `layout index`, and
//     encode of an S with a single nonzero byte puts it there.
//   - -o FILE gets what standard output gets, and a refused run leaves an existing file as it was.
//   - Bad input exits 2 naming the argument, the file or the line, and what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "softmx/prng.hpp"
#include "softmx/scale_layout.hpp"
#include "support/cli_run.hpp"

namespace softmx {
namespace {

using testing::CliRun;

CliRun run(const std::string& args, const std::string& input = "") { return testing::run_cli(args, input); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string hx(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, v);
  return buf;
}

template <typename T>
std::string hex_text(const std::vector<T>& v, int digits) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += hx(static_cast<std::uint32_t>(v[i]), digits) + (i % 7 == 6 ? "\n" : " ");
  return s;
}

std::vector<std::uint32_t> parse_hex(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::uint32_t> v;
  std::string t;
  while (in >> t) v.push_back(static_cast<std::uint32_t>(std::stoul(t, nullptr, 16)));
  return v;
}

std::string bytes_of(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }

std::vector<std::uint8_t> random_bytes(std::uint64_t seed, std::size_t n) {
  SplitMix64 g(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(g.next() >> 56);
  return v;
}

std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

struct Case {
  std::string base;  // --layout and --operand: what size takes
  std::string trans; // --transposed: decode takes it too
  std::string pad;   // --pad: encode only
  std::size_t rows, cols;
  int kind;          // 0 128x4 (pad), 1 torchao, 2 paired
  PairedOperand op = PairedOperand::a;
  bool transposed = false;
  std::uint8_t pad_byte = 0;
};

std::vector<std::uint8_t> library_encode(const Case& c, const std::vector<std::uint8_t>& s) {
  if (c.kind == 0) return encode_swizzled_128x4(s, c.rows, c.cols, c.pad_byte);
  if (c.kind == 1) return torchao_to_blocked(s, c.rows, c.cols);
  return encode_paired(s, c.rows, c.cols, c.op, c.transposed);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (auto [r, c] : {std::pair{1, 1}, {100, 2}, {130, 7}, {128, 4}, {257, 13}, {3, 300}}) {
    v.push_back({"--layout cublas-128x4", "", "", std::size_t(r), std::size_t(c), 0});
    v.push_back({"--layout swizzled-128x4", "", " --pad 7F", std::size_t(r), std::size_t(c), 0, PairedOperand::a, false, 0x7F});
    v.push_back({"--layout torchao", "", "", std::size_t(r), std::size_t(c), 1});
  }
  for (auto [r, c] : {std::pair{1, 1}, {3, 5}, {4, 4}, {7, 2}, {64, 9}})
    for (int op = 0; op < 2; ++op)
      for (int t = 0; t < 2; ++t)
        v.push_back({std::string("--layout paired --operand ") + (op ? "b" : "a"), " --transposed " + std::to_string(t), "",
                     std::size_t(r), std::size_t(c), 2, op ? PairedOperand::b : PairedOperand::a, t == 1});
  return v;
}

TEST(CliLayout, EncodeDecodeEqualTheLibrary) {
  const std::string dir = testing::scratch_dir("cli_layout");
  int n = 0, bad = 0;
  for (const Case& c : cases()) {
    const std::vector<std::uint8_t> s = random_bytes(c.rows * 1000 + c.cols + static_cast<std::size_t>(c.kind), c.rows * c.cols);
    const std::vector<std::uint8_t> want = library_encode(c, s);
    const std::string in = dir + "/s" + std::to_string(n) + ".txt", bin = dir + "/s" + std::to_string(n) + ".bin";
    testing::write_file(in, hex_text(s, 2));
    testing::write_file(bin, bytes_of(s));
    const std::string common = "layout encode " + c.base + c.trans + c.pad + " --shape " + shape(c.rows, c.cols);
    const CliRun hex = run(common + " '" + in + "'");
    ASSERT_EQ(hex.status, 0) << common << ": " << hex.err;
    const auto got = parse_hex(hex.out);
    bad += got != std::vector<std::uint32_t>(want.begin(), want.end());
    EXPECT_EQ(got, std::vector<std::uint32_t>(want.begin(), want.end())) << common;
    // The hex text has 16 bytes a line (the last may be short).
    EXPECT_EQ(std::count(hex.out.begin(), hex.out.end(), '\n'), static_cast<long>((want.size() + 15) / 16)) << common;
    // --binary in, --binary-out, stdin: the same bytes.
    EXPECT_EQ(run(common + " --binary '" + bin + "'").out, hex.out) << common << " --binary";
    EXPECT_EQ(run(common, hex_text(s, 2)).out, hex.out) << common << " stdin";
    EXPECT_EQ(run(common + " - --binary --binary-out", bytes_of(s)).out, bytes_of(want)) << common << " --binary-out";
    // decode: the library's buffer gives S back, hex or binary, one row a line.
    const std::string dcommon = "layout decode " + c.base + c.trans + " --shape " + shape(c.rows, c.cols);
    const CliRun d = run(dcommon, hex.out);
    ASSERT_EQ(d.status, 0) << dcommon << ": " << d.err;
    EXPECT_EQ(parse_hex(d.out), std::vector<std::uint32_t>(s.begin(), s.end())) << dcommon;
    EXPECT_EQ(std::count(d.out.begin(), d.out.end(), '\n'), static_cast<long>(c.rows)) << dcommon;
    EXPECT_EQ(run(dcommon + " --binary --binary-out", bytes_of(want)).out, bytes_of(s)) << dcommon << " binary";
    // size: the buffer's bytes.
    const std::string scommon = "layout size " + c.base + " --shape " + shape(c.rows, c.cols);
    EXPECT_EQ(run(scommon).out, std::to_string(want.size()) + "\n") << scommon << run(scommon).err;
    ++n;
  }
  EXPECT_EQ(bad, 0) << "of " << n << " cases";
  EXPECT_EQ(n, 38);
}

// Offsets computed by hand from index = (tileY*nTilesX + tileX)*512 + (r%32)*16 + ((r%128)/32)*4
// + c%4, nTilesX = ceil(cols/4) (TE common/cast/mxfp8/swizzle.cuh:30-41 gemm_swizzled_scale_idx).
TEST(CliLayout, HandCheckedSwizzleOffsets) {
  struct Hand {
    std::size_t rows, cols, r, c, offset;
  };
  const Hand hand[] = {
      {100, 2, 0, 0, 0},        {100, 2, 0, 1, 1},        {100, 2, 1, 0, 16},
      {100, 2, 31, 1, 497},     // 31*16 + 1
      {100, 2, 32, 0, 4},       // (32/32)*4
      {100, 2, 99, 1, 61},      // (99%32=3)*16 + (99/32=3)*4 + 1
      {100, 2, 127, 3, 511},    // padding: the tile's last byte
      {130, 7, 0, 4, 512},      // tileX 1
      {130, 7, 128, 0, 1024},   // tileY 1, nTilesX 2
      {130, 7, 129, 6, 1554},   // (1*2+1)*512 + 1*16 + 0 + 2
      {130, 7, 96, 2, 14},      // 0 + 0*16 + 3*4 + 2
      {130, 7, 65, 5, 512 + 16 + 8 + 1},
  };
  for (const Hand& h : hand) {
    ASSERT_EQ(swizzled_128x4_index(h.r, h.c, h.cols), h.offset) << h.r << "," << h.c;  // the library agrees
    const std::string sh = " --shape " + shape(h.rows, h.cols);
    for (const char* l : {"cublas-128x4", "torchao"}) {
      const CliRun ix = run(std::string("layout index --layout ") + l + sh + " " + std::to_string(h.r) + " " + std::to_string(h.c));
      EXPECT_EQ(ix.out, std::to_string(h.offset) + "\n") << l << " " << h.r << "," << h.c << ": " << ix.err;
    }
    if (h.r >= h.rows || h.c >= h.cols) continue;  // padding: no byte of S lands there
    std::vector<std::uint8_t> s(h.rows * h.cols, 0);
    s[h.r * h.cols + h.c] = 0xA5;
    const CliRun e = run("layout encode --layout cublas-128x4 --binary --binary-out" + sh, bytes_of(s));
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(e.out.size(), swizzled_128x4_size(h.rows, h.cols));
    EXPECT_EQ(e.out.find_first_not_of('\0'), h.offset) << h.r << "," << h.c;
    EXPECT_EQ(e.out.find_last_not_of('\0'), h.offset) << h.r << "," << h.c;
  }
  // The paired layout: A, trans_a = 0, 2x3 (nb = 3, padded to 4 with 7F): order [i][j][t].
  EXPECT_EQ(run("layout encode --layout paired --operand a --shape 2x3", "01 02 03 04 05 06").out, "01 02 03 7F 04 05 06 7F\n");
  // trans_a = 1: order [j][i][t].
  EXPECT_EQ(run("layout encode --layout paired --operand a --transposed 1 --shape 2x3", "01 02 03 04 05 06").out,
            "01 02 04 05 03 7F 06 7F\n");
  EXPECT_EQ(run("layout index --layout paired --operand a --transposed 1 --shape 2x3 1 2").out, "6\n");
  // B (nb x n = 3x2), trans_b = 0: order [j][c][t].
  EXPECT_EQ(run("layout encode --layout paired --operand b --shape 3x2", "01 02 03 04 05 06").out, "01 03 02 04 05 7F 06 7F\n");
}

TEST(CliLayout, TePadded) {
  // S 2x3, transposed to 3x2, padded to 4x4 with 00: one padded row a line.
  EXPECT_EQ(run("layout encode --layout te-padded --multiple 4x4 --transposed 1 --shape 2x3", "01 02 03 04 05 06").out,
            "01 04 00 00\n02 05 00 00\n03 06 00 00\n00 00 00 00\n");
  int n = 0;
  for (auto [r, c] : {std::pair{1, 1}, {100, 2}, {130, 7}, {5, 129}})
    for (int t = 0; t < 2; ++t)
      for (auto [rm, cm] : {std::pair{128, 4}, {4, 128}}) {
        const std::vector<std::uint8_t> s8 = random_bytes(std::size_t(r) * 7 + std::size_t(c), std::size_t(r * c));
        const std::vector<std::uint32_t> s(s8.begin(), s8.end());
        const PaddedScales p = pad_scales(s, std::size_t(r), std::size_t(c), t == 1, std::size_t(rm), std::size_t(cm), 0x11);
        const std::string cmd = "layout encode --layout te-padded --pad 11 --multiple " + shape(rm, cm) +
                                " --transposed " + std::to_string(t) + " --shape " + shape(r, c);
        const CliRun o = run(cmd, hex_text(s8, 2));
        ASSERT_EQ(o.status, 0) << cmd << ": " << o.err;
        EXPECT_EQ(parse_hex(o.out), p.codes) << cmd;
        EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), static_cast<long>(p.rows)) << cmd;
        EXPECT_EQ(run(cmd + " --binary --binary-out", bytes_of(s8)).out,
                  bytes_of(std::vector<std::uint8_t>(p.codes.begin(), p.codes.end()))) << cmd;
        // decode is the library's unpad_scales and gives S back (one row of S a line).
        const std::string dcmd = "layout decode --layout te-padded --multiple " + shape(rm, cm) + " --transposed " +
                                 std::to_string(t) + " --shape " + shape(r, c);
        const CliRun d = run(dcmd, o.out);
        ASSERT_EQ(d.status, 0) << dcmd << ": " << d.err;
        EXPECT_EQ(parse_hex(d.out), unpad_scales(p.codes, std::size_t(r), std::size_t(c), t == 1, std::size_t(rm), std::size_t(cm)));
        EXPECT_EQ(parse_hex(d.out), s) << dcmd;
        EXPECT_EQ(std::count(d.out.begin(), d.out.end(), '\n'), static_cast<long>(r)) << dcmd;
        EXPECT_EQ(run("layout size --layout te-padded --multiple " + shape(rm, cm) + " --transposed " + std::to_string(t) +
                      " --shape " + shape(r, c)).out,
                  std::to_string(p.codes.size()) + "\n");
        ++n;
      }
  EXPECT_EQ(n, 16);
  // Decode by hand: TE FP8 1x128 rowwise, q (3, 256), compact [2, roundup(3, 4)] = S transposed;
  // TE reads it back as scale_inv[:, :q_M].transpose(-2, -1)
  // (float8_blockwise_tensor_storage.py:292-295). Column 3 is padding: whatever it holds is dropped.
  EXPECT_EQ(run("layout decode --layout te-padded --multiple 1x4 --transposed 1 --shape 3x2", "0A 0B 0C EE 14 15 16 EE").out,
            "0A 14\n0B 15\n0C 16\n");
  // f32 scales (FP8 block scaling's scale_inv): 8 hex digits, 4 little-endian bytes.
  const std::vector<std::uint32_t> f = {0x3F800000u, 0x40000000u, 0x3C000000u};
  const PaddedScales p = pad_scales(f, 3, 1, false, 4, 1, 0x7FC00000u);
  const CliRun o = run("layout encode --layout te-padded --scale-format f32 --multiple 4x1 --pad 7FC00000 --shape 3x1",
                       "3F800000 40000000 3C000000");
  EXPECT_EQ(o.out, "3F800000\n40000000\n3C000000\n7FC00000\n") << o.err;
  EXPECT_EQ(parse_hex(o.out), p.codes);
  EXPECT_EQ(run("layout decode --layout te-padded --scale-format f32 --multiple 4x1 --shape 3x1", o.out).out,
            "3F800000\n40000000\n3C000000\n");
  EXPECT_EQ(run("layout encode --layout te-padded --scale-format f32 --multiple 4x1 --shape 3x1 --binary --binary-out",
                std::string("\x00\x00\x80\x3F\x00\x00\x00\x40\x00\x00\x00\x3C", 12)).out,
            std::string("\x00\x00\x80\x3F\x00\x00\x00\x40\x00\x00\x00\x3C\x00\x00\x00\x00", 16));
}

TEST(CliLayout, OutputFileIsAtomic) {
  const std::string dir = testing::scratch_dir("cli_layout_out");
  const std::string s = "01 02 03 04 05 06";
  CliRun plain;
  ASSERT_NO_FATAL_FAILURE(
      testing::expect_out_file_matches_stdout("layout encode --layout cublas-128x4 --shape 2x3", s, dir + "/l.txt", plain));
  // Refused runs (a shape mismatch, bad hex, a library refusal) leave the file as it was.
  for (const char* bad : {"--shape 2x4", "--shape 2x2", "--layout torchao --shape 1x1 --pad 00"}) {
    const std::string cmd = std::string("layout encode ") + (has(bad, "--layout") ? "" : "--layout cublas-128x4 ") + bad +
                            " --out " + dir + "/l.txt";
    const CliRun r = run(cmd, s);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_EQ(testing::slurp(dir + "/l.txt"), plain.out) << cmd;
  }
  const CliRun d = run("layout decode --layout cublas-128x4 --shape 2x3 --out " + dir + "/l.txt", "01 02");
  EXPECT_EQ(d.status, 2);
  EXPECT_EQ(testing::slurp(dir + "/l.txt"), plain.out);
  EXPECT_TRUE(has(run("layout encode --layout torchao --shape 2x3 -o a -o b", s).err, "option -o given twice"));
}

TEST(CliLayout, ErrorsNameTheArgument) {
  const std::string dir = testing::scratch_dir("cli_layout_err");
  testing::write_file(dir + "/bad.txt", "01 02\n03 4\n");
  struct Bad {
    std::string args, input, message;
  };
  const std::vector<Bad> bad = {
      {"layout", "", "missing the action: encode, decode, size or index"},
      {"layout swizzle --layout torchao --shape 1x1", "", "unknown action 'swizzle' (expected encode, decode, size or index)"},
      {"layout encode --shape 1x1", "00", "missing --layout L (cublas-128x4"},
      {"layout encode --layout nope --shape 1x1", "00", "unknown scale layout 'nope' for --layout (expected cublas-128x4"},
      {"layout encode --layout torchao", "00", "missing --shape RxC"},
      {"layout encode --layout torchao --shape 3", "00", "--shape expects RxC (the scale matrix's rows and columns), two positive integers"},
      {"layout encode --layout torchao --shape 0x4", "", "--shape expects RxC"},
      {"layout encode --layout torchao --shape 2x2", "01 02 03", "<stdin>: expected 4 values (a 2x2 scale matrix, row-major, --shape), got 3"},
      {"layout encode --layout torchao --shape 1x2", "01 02 03", "<stdin> line 1: more values than expected (2: a 1x2 scale matrix"},
      {"layout encode --layout torchao --shape 2x2 " + dir + "/bad.txt", "", "bad.txt line 2: expected a code as 2 hex digits, got '4'"},
      {"layout encode --layout torchao --shape 2x2 " + dir + "/missing.txt", "", "cannot open '" + dir + "/missing.txt': No such file or directory"},
      {"layout encode --layout torchao --shape 2x2 --binary", "abc", "<stdin>: expected 4 bytes (a 2x2 scale matrix, row-major, --shape), got 3"},
      {"layout decode --layout cublas-128x4 --shape 100x2", "00", "<stdin>: expected 512 values (the cublas-128x4 buffer of a 100x2 scale matrix, --shape), got 1"},
      {"layout decode --layout paired --operand b --shape 3x2 --binary", "abcdef", "<stdin>: expected 8 bytes (the paired buffer of a 3x2"},
      {"layout encode --layout paired --shape 2x2", "", "--layout paired needs --operand a"},
      {"layout encode --layout paired --operand c --shape 2x2", "", "--operand expects a or b, got 'c'"},
      {"layout encode --layout torchao --operand a --shape 1x1", "00", "--operand applies to --layout paired only"},
      {"layout encode --layout cublas-128x4 --transposed 1 --shape 1x1", "00", "--transposed applies to --layout paired (trans_a / trans_b) and te-padded only"},
      {"layout encode --layout paired --operand a --transposed 2 --shape 1x1", "00", "--transposed expects 0 or 1, got '2'"},
      {"layout encode --layout torchao --pad 00 --shape 1x1", "00", "--pad applies to --layout cublas-128x4 and te-padded only (torchao's to_blocked pads with 00)"},
      {"layout encode --layout paired --operand a --pad 00 --shape 1x1", "00", "(the paired layout pads with 7F, E8M0 1.0)"},
      {"layout encode --layout 128x4 --pad 100 --shape 1x1", "00", "--pad expects the padding code as 2 hex digits, got '100'"},
      {"layout decode --layout 128x4 --pad 00 --shape 1x1", "00", "--pad applies to encode only"},
      {"layout encode --layout te-padded --shape 1x1", "00", "missing --multiple RMxCM"},
      {"layout encode --layout te-padded --multiple 4x0 --shape 1x1", "00", "--multiple expects RMxCM"},
      {"layout encode --layout te-padded --multiple 4x4 --scale-format f16 --shape 1x1", "00", "--scale-format expects e8m0, e4m3 (1-byte codes) or f32"},
      {"layout encode --layout te-padded --multiple 4x4 --scale-format f32 --shape 1x1", "00", "<stdin> line 1: expected a code as 8 hex digits, got '00'"},
      {"layout decode --layout te-padded --multiple 4x4 --shape 1x1", "00", "<stdin>: expected 16 values (the te-padded buffer of a 1x1 scale matrix, --shape), got 1"},
      {"layout decode --layout te-padded --multiple 4x4 --shape 1x1 --pad 00", "00", "--pad applies to encode only"},
      {"layout index --layout te-padded --multiple 4x4 --shape 1x1 0 0", "", "--layout te-padded: index applies to cublas-128x4, torchao and paired"},
      {"layout encode --layout torchao --multiple 4x4 --shape 1x1", "00", "--multiple applies to --layout te-padded only"},
      {"layout encode --layout 128x4 --shape 1x268435456", "", "gives a cublas-128x4 buffer of 34359738368 codes, more than 2^28"},
      {"layout encode --layout 128x4 --shape 1x1 a b", "", "unexpected argument 'b'"},
      {"layout encode --layout 128x4 --shape 1x1 --frob", "", "--frob"},
      {"layout index --layout 128x4 --shape 130x7 256 0", "", "R C = 256 0 is outside the padded 256x8 scale matrix of --layout cublas-128x4 --shape 130x7"},
      {"layout index --layout paired --operand a --shape 2x3 0 4", "", "outside the padded 2x4 scale matrix"},
      {"layout index --layout 128x4 --shape 4x4 1", "", "index needs R C"},
      {"layout index --layout 128x4 --shape 4x4 1 x", "", "C expects a non-negative integer, got 'x'"},
      {"layout size --layout 128x4 --shape 4x4 -o f", "", "size writes one number on standard output"},
  };
  for (const Bad& b : bad) {
    const CliRun r = run(b.args, b.input);
    EXPECT_EQ(r.status, 2) << b.args;
    EXPECT_EQ(r.out, "") << b.args;
    EXPECT_TRUE(has(r.err, "softmx layout: error: ")) << b.args << ": " << r.err;
    EXPECT_TRUE(has(r.err, b.message)) << b.args << ":\n  got  " << r.err << "  want " << b.message;
  }
  // size takes an empty matrix, as scale_layout_size does.
  EXPECT_EQ(run("layout size --layout 128x4 --shape 0x5").out, "0\n");
}

}  // namespace
}  // namespace softmx
