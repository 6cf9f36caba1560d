// conformance/test_cuda_mma_capture.cpp: the host half of the tensor-core captures
// (tools/cuda/mma/), without a GPU:
//   - the block-scale keys of the mma vector header (scale-format, scale-block) and the SA/SB
//     columns they add;
//   - the catalogue of forms: names, instructions, models, and why a GPU or build skips a form;
//   - the cases: the unscaled forms are exactly `softmx gen mma`'s (checked against the CLI),
//     the block-scaled ones add scale probes and random scales; the same arguments give the same
//     bytes (pinned digests);
//   - the files: the placement in tiles, a capture file made with softmx's own model standing in
//     for the GPU verifies (and fails with one D changed), and the Blackwell files, whose models
//     softmx does not know yet, are read, listed in the MANIFEST and reported as waiting.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "capture_host.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "mma_cases.hpp"
#include "mma_catalog.hpp"
#include "mma_file.hpp"
#include "softmx/sha256.hpp"
#include "softmx/convert.hpp"
#include "softmx/tensor_core.hpp"
#include "support/cli_run.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx {
namespace {

using mma_capture::CaptureForm;
using mma_capture::CaseShape;
using mma_capture::DeviceStatus;
using mma_capture::Feature;
using mma_capture::MmaCase;
using testing::run_cli;
using testing::run_shell;
using testing::scratch_dir;
using testing::slurp;
using testing::write_file;
using vec::MmaScaleFormat;

const CaptureForm& form(const std::string& file) {
  for (const CaptureForm& f : mma_capture::capture_forms())
    if (f.file == file) return f;
  throw std::logic_error("no form " + file);
}

capture::Provenance provenance(const std::string& target = "sm_100a (__CUDA_ARCH__ 1000)") {
  return {"NVIDIA Test B200", "10.0", "13.0", "13.0", target, "2026-01-02T03:04:05Z", "softmx_capture_mma 0.1.0"};
}

vec::GenOptions options(int level, std::uint64_t count, std::uint64_t seed) {
  vec::GenOptions o;
  o.level = level;
  if (level == 2) o.count = count;
  o.seed = seed;
  return o;
}

std::string operand_text(const CaseShape& s, const std::vector<MmaCase>& cases) {
  std::string t;
  for (const MmaCase& c : cases) {
    for (std::uint64_t v : mma_capture::operands(s, c)) t += softmx::hex(v, 8) + " ";
    t += "\n";
  }
  return t;
}

std::string digest(const std::string& text) {
  return softmx::sha256_hex({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

// ---------------------------------------------------------------------------------------------
// The header keys.

TEST(MmaScaleKeys, WrittenReadBackAndColumns) {
  const CaseShape s{FormatId::e2m1, FormatId::e2m1, FormatId::f32, 64, MmaScaleFormat::ue4m3, 16, true};
  const vec::Header h = mma_capture::shape_header(s, "hopper-fp8-wgmma");
  const std::string text = vec::header_text(h);
  EXPECT_NE(text.find("model = hopper-fp8-wgmma\nscale-format = ue4m3\nscale-block = 16\n"), std::string::npos) << text;
  const auto r = vec::VectorReader::from_string(text, "t.vec");
  EXPECT_EQ(r->header().scale_format, MmaScaleFormat::ue4m3);
  EXPECT_EQ(r->header().scale_block, 16u);
  const vec::LineLayout l = vec::line_layout(r->header());
  ASSERT_EQ(l.operands.size(), 2u * 64 + 2 * 4 + 1);
  EXPECT_EQ(l.operands[128].label, "SA_1");
  EXPECT_EQ(l.operands[131].label, "SA_4");
  EXPECT_EQ(l.operands[132].label, "SB_1");
  EXPECT_EQ(l.operands[136].label, "C");
  EXPECT_EQ(l.operands[130].digits, 2);
  EXPECT_EQ(l.operands[130].max, 0xFFu);  // UE4M3 codes as the instruction reads them, sign bit too
  // One scale per side: SA SB.
  vec::Header one = mma_capture::shape_header({FormatId::e4m3, FormatId::e5m2, FormatId::f32, 32, MmaScaleFormat::ue8m0, 32, false},
                                              "hopper-fp8-wgmma");
  EXPECT_NE(vec::line_layout(one).columns().find("B_32 SA SB D"), std::string::npos) << vec::line_layout(one).columns();
  EXPECT_NE(vec::describe(one).find("scales ue8m0/32"), std::string::npos) << vec::describe(one);
  // Unscaled headers are as before: no scale keys.
  vec::Header plain = one;
  plain.scale_format = MmaScaleFormat::none;
  plain.scale_block = 0;
  EXPECT_EQ(vec::header_text(plain).find("scale-"), std::string::npos);
}

TEST(MmaScaleKeys, MistakesAreNamed) {
  const std::string base = "softmx-vectors = 1\noperation = mma\na = e4m3\nb = e4m3\nblock = 32\naccumulator = f32\naddend = yes\n"
                           "model = hopper-fp8-wgmma\n";
  auto error = [](const std::string& text) {
    try {
      vec::VectorReader::from_string(text, "f.vec");
    } catch (const softmx::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(base + "scale-format = ue8m0\n").find("needs both 'scale-format' and 'scale-block'"), std::string::npos);
  EXPECT_NE(error(base + "scale-block = 32\n").find("needs both"), std::string::npos);
  EXPECT_NE(error(base + "scale-format = e8m0\nscale-block = 32\n").find("bad value 'e8m0' for 'scale-format'"),
            std::string::npos);
  EXPECT_NE(error(base + "scale-format = ue8m0\nscale-block = 12\n").find("must divide block"), std::string::npos);
  EXPECT_NE(error(base + "scale-format = ue8m0\nscale-block = 0\n").find("bad value '0' for 'scale-block'"), std::string::npos);
  const std::string dot = "softmx-vectors = 1\noperation = dot\na = e4m3\nb = e4m3\nblock = 32\nblocks = 1\n"
                          "accumulation = exact\nrounding = rne\nsaturation = finite\ntininess = after\nscale-block = 32\n";
  EXPECT_NE(error(dot).find("header key 'scale-block' does not apply to operation dot"), std::string::npos) << error(dot);
  // A known model that takes no scales: the file reads, softmx refuses to compute it.
  const auto r = vec::VectorReader::from_string(base + "scale-format = ue8m0\nscale-block = 32\n", "f.vec");
  try {
    vec::Evaluator ev(r->header());
    ADD_FAILURE() << "no error";
  } catch (const softmx::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the model takes no block scales"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// The catalogue.

TEST(MmaCatalog, FormsNamesAndInstructions) {
  const auto& forms = mma_capture::capture_forms();
  std::set<std::string> files;
  std::map<std::string, int> by_prefix;
  for (const CaptureForm& f : forms) {
    EXPECT_TRUE(files.insert(f.file).second) << f.file;
    EXPECT_EQ(f.file.rfind("mma-", 0), 0u) << f.file;
    EXPECT_EQ(f.file.substr(f.file.size() - 4), ".vec");
    if (f.shape.scale_format != MmaScaleFormat::none) {
      EXPECT_EQ(f.shape.k % f.shape.scale_block, 0) << f.file;
      EXPECT_EQ(f.shape.scales(), f.dev.scale_vec) << f.file;
      EXPECT_EQ(f.shape.acc, FormatId::f32) << f.file;  // block-scaled D is f32 only
    }
    // Without C: mma.sync runs C = +0; tcgen05 runs enable-input-d false.
    if (f.dev.engine == mma_capture::Engine::tcgen05) EXPECT_EQ(f.shape.addend, f.dev.enable_c) << f.file;
    else EXPECT_TRUE(f.dev.enable_c) << f.file;
    ++by_prefix[f.file.substr(0, f.file.find('-', 4))];
  }
  EXPECT_EQ(forms.size(), 145u);
  EXPECT_EQ(by_prefix["mma-sync"], 25 + 25 + 4);
  EXPECT_EQ(by_prefix["mma-tcgen05"], 37 + 30 + 8);
  // The FP8 mma.sync forms keep the names and instructions of the first capture program.
  const CaptureForm& legacy = forms.at(2);
  EXPECT_EQ(legacy.file, "mma-e4m3-e4m3-f16-c.vec");
  EXPECT_EQ(legacy.instruction, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16");
  EXPECT_EQ(forms.at(15).file, "mma-e5m2-e5m2-f16-noc.vec");
  EXPECT_EQ(form("mma-sync-mxf8f6f4-e3m2-e2m1-ue8m0x32-f32-c.vec").instruction,
            "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0");
  EXPECT_EQ(form("mma-sync-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-c.vec").instruction,
            "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
  EXPECT_EQ(form("mma-sync-f8f6f4-e2m1-e4m3-f32-c.vec").instruction, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32");
  EXPECT_EQ(form("mma-tcgen05-mxf4-e2m1-e2m1-ue8m0x32-f32-noc.vec").instruction,
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X m128n8k64 A e2m1 B e2m1 D f32 scales ue8m0, "
            "enable-input-d false, idesc 0x08820480 (K-major, no swizzle)");
  EXPECT_EQ(form("mma-tcgen05-f8f6f4-e5m2-e4m3-f16-c.vec").instruction,
            "tcgen05.mma.cta_group::1.kind::f8f6f4 m128n8k32 A e5m2 B e4m3 D f16, enable-input-d true, idesc 0x08020080 "
            "(K-major, no swizzle)");
  // The models of issue 17's research note (docs/research/blackwell-mma.md section 8).
  EXPECT_EQ(form("mma-tcgen05-mxf8f6f4-e4m3-e4m3-ue8m0x32-f32-c.vec").model, "blackwell-mxf8f6f4");
  EXPECT_EQ(form("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec").model, "blackwell-mxf4");
  EXPECT_EQ(form("mma-sync-mxf4nvf4-e2m1-e2m1-ue8m0x16-f32-c.vec").model, "blackwell-mxf4");
  EXPECT_EQ(form("mma-tcgen05-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-c.vec").model, "blackwell-nvf4");
  EXPECT_EQ(form("mma-tcgen05-f8f6f4-e2m3-e2m3-f32-c.vec").model, "blackwell-f8f6f4");
  EXPECT_EQ(form("mma-tcgen05-mxf4nvf4-e2m1-e2m1-ue8m0x16-f32-c.vec").shape.scale_block, 16);
  EXPECT_EQ(form("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec").shape.k, 64);
}

TEST(MmaCatalog, TheFp8MmaSyncModelFollowsTheGpu) {
  const CaptureForm& f = form("mma-e4m3-e5m2-f32-c.vec");
  EXPECT_EQ(mma_capture::model_for(f, 8, 9), "ada-fp8-mma");
  EXPECT_EQ(mma_capture::model_for(f, 9, 0), "hopper-fp8-mma");
  EXPECT_EQ(mma_capture::model_for(f, 10, 0), "hopper-fp8-mma");
  EXPECT_EQ(mma_capture::model_for(f, 12, 0), "blackwell-f8f6f4");
  EXPECT_EQ(mma_capture::model_for(form("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec"), 9, 0), "blackwell-mxf4");
}

TEST(MmaCatalog, WhatEachGpuRunsAndWhyTheRestIsSkipped) {
  using mma_capture::feature_bit;
  auto runs = [](const DeviceStatus& d) {
    std::map<Feature, int> n;
    for (const CaptureForm& f : mma_capture::capture_forms())
      if (!mma_capture::skip_reason(f, d)) ++n[f.needs];
    return n;
  };
  const DeviceStatus h100{9, 0, feature_bit(Feature::mma_fp8), "sm_90a (__CUDA_ARCH__ 900)", 13, 0};
  const DeviceStatus b200{10, 0, feature_bit(Feature::mma_fp8) | feature_bit(Feature::tcgen05), "sm_100a (__CUDA_ARCH__ 1000)", 13, 0};
  const DeviceStatus rtx{12, 0, feature_bit(Feature::mma_fp8) | feature_bit(Feature::mma_sm120), "sm_120f (__CUDA_ARCH__ 1200)", 13, 0};
  EXPECT_EQ(runs(h100), (std::map<Feature, int>{{Feature::mma_fp8, 16}}));
  EXPECT_EQ(runs(b200), (std::map<Feature, int>{{Feature::mma_fp8, 16}, {Feature::tcgen05, 75}}));
  EXPECT_EQ(runs(rtx), (std::map<Feature, int>{{Feature::mma_fp8, 16}, {Feature::mma_sm120, 53}}));
  const auto tc_on_h100 = mma_capture::skip_reason(form("mma-tcgen05-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec"), h100);
  ASSERT_TRUE(tc_on_h100);
  EXPECT_NE(tc_on_h100->find("tcgen05.mma needs a Blackwell datacenter GPU (compute capability 10.0, 10.3 or 11.0"),
            std::string::npos);
  EXPECT_NE(tc_on_h100->find("this GPU: compute capability 9.0, running code for sm_90a"), std::string::npos) << *tc_on_h100;
  const auto sync_on_b200 = mma_capture::skip_reason(form("mma-sync-mxf8f6f4-e4m3-e4m3-ue8m0x32-f32-c.vec"), b200);
  ASSERT_TRUE(sync_on_b200);
  EXPECT_NE(sync_on_b200->find("needs an sm_120-family GPU"), std::string::npos) << *sync_on_b200;
  const auto x4 = mma_capture::skip_reason(form("mma-sync-mxf4nvf4-e2m1-e2m1-ue8m0x16-f32-c.vec"), rtx);
  ASSERT_TRUE(x4);
  EXPECT_NE(x4->find("needs PTX ISA 9.1 (CUDA 13.1 or later); the capture program was built with CUDA 13.0"), std::string::npos)
      << *x4;
  DeviceStatus rtx131 = rtx;
  rtx131.features |= feature_bit(Feature::mma_sm120_4x_ue8m0);
  EXPECT_FALSE(mma_capture::skip_reason(form("mma-sync-mxf4nvf4-e2m1-e2m1-ue8m0x16-f32-c.vec"), rtx131));
}

// ---------------------------------------------------------------------------------------------
// The cases.

TEST(MmaCases, UnscaledCasesAreGenMmasCases) {
  for (const auto& [file, k] : {std::pair<std::string, int>{"mma-e4m3-e5m2-f16-noc.vec", 32}, {"mma-tcgen05-f8f6f4-e2m1-e3m2-f32-c.vec", 32}}) {
    const CaptureForm& f = form(file);
    const auto cases = mma_capture::make_cases(f.shape, options(2, 40, 7));
    const std::string args = std::string("gen mma --a ") + std::string(format(f.shape.a).name) + " --b " +
                             std::string(format(f.shape.b).name) + " --block " + std::to_string(k) + " --accumulator " +
                             std::string(format(f.shape.acc).name) + " --addend " + (f.shape.addend ? "yes" : "no") +
                             " --level 2 --count 40 --seed 7 --inputs-only";
    const auto r = run_cli(args);
    ASSERT_EQ(r.status, 0) << args << r.err;
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#' && line.find('=') == std::string::npos) lines.push_back(line);
    ASSERT_EQ(lines.size(), cases.size()) << file;
    const vec::Header h = mma_capture::shape_header(f.shape, "hopper-fp8-wgmma");
    const vec::LineLayout l = vec::line_layout(h);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::string want;
      const auto ops = mma_capture::operands(f.shape, cases[i]);
      for (std::size_t j = 0; j < ops.size(); ++j) want += (j ? " " : "") + softmx::hex(ops[j], l.operands[j].digits);
      ASSERT_EQ(lines[i], want) << file << " case " << i;
    }
  }
}

TEST(MmaCases, BlockScaledCasesLevel1ThenProbesThenRandomScales) {
  for (const char* file : {"mma-sync-mxf8f6f4-e4m3-e4m3-ue8m0x32-f32-c.vec", "mma-tcgen05-mxf4-e2m1-e2m1-ue8m0x32-f32-noc.vec",
                           "mma-sync-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-c.vec", "mma-tcgen05-mxf4nvf4-e2m1-e2m1-ue8m0x16-f32-c.vec",
                           "mma-sync-mxf8f6f4-e2m3-e5m2-ue8m0x32-f32-c.vec"}) {
    const CaptureForm& f = form(file);
    const CaseShape& s = f.shape;
    const int n = s.scales();
    const std::uint8_t one = s.scale_format == MmaScaleFormat::ue8m0 ? 0x7F : 0x38;
    const std::uint8_t nan = s.scale_format == MmaScaleFormat::ue8m0 ? 0xFF : 0x7F;
    CaseShape plain = s;
    plain.scale_format = MmaScaleFormat::none;
    plain.scale_block = 0;
    const auto gen1 = mma_capture::make_cases(plain, options(1, 0, 1));
    const auto l1 = mma_capture::make_cases(s, options(1, 0, 1));
    const auto l2 = mma_capture::make_cases(s, options(2, 300, 1));
    // Level 1 of gen mma first, every scale 1; then the probes; level 2 adds exactly 300.
    ASSERT_GT(l1.size(), gen1.size() + 40) << file;
    for (std::size_t i = 0; i < gen1.size(); ++i) {
      EXPECT_EQ(l1[i].a, gen1[i].a);
      EXPECT_EQ(l1[i].c, gen1[i].c);
      EXPECT_EQ(l1[i].sa, std::vector<std::uint8_t>(n, one));
      EXPECT_EQ(l1[i].sb, std::vector<std::uint8_t>(n, one));
    }
    ASSERT_EQ(l2.size(), l1.size() + 300) << file;
    for (std::size_t i = 0; i < l1.size(); ++i) ASSERT_EQ(l2[i], l1[i]) << file << " " << i;
    std::set<std::vector<std::uint64_t>> distinct;
    for (const MmaCase& c : l1) {
      EXPECT_TRUE(distinct.insert(mma_capture::operands(s, c)).second) << file;
      ASSERT_EQ(c.a.size(), static_cast<std::size_t>(s.k));
      ASSERT_EQ(c.sa.size(), static_cast<std::size_t>(n));
      if (!s.addend) {
        EXPECT_EQ(c.c, 0u);
      }
    }
    // Probes that must be there: a NaN scale over zero elements with C = 1, and (several
    // scales) one product on each side of every block boundary with the lower block's scale
    // halved.
    bool nan_zero = false;
    for (const MmaCase& c : l1)
      nan_zero = nan_zero || (c.sa[0] == nan && std::all_of(c.a.begin(), c.a.end(), [](auto x) { return x == 0; }));
    EXPECT_TRUE(nan_zero) << file;
    for (int j = 1; j < n; ++j) {
      const int at = j * s.scale_block;
      bool found = false;
      for (const MmaCase& c : l1) {
        int nonzero = 0;
        for (auto x : c.a) nonzero += x != 0;
        found = found || (nonzero == 2 && c.a[at - 1] != 0 && c.a[at] != 0 && c.sa[j - 1] != one && c.sa[j] == one);
      }
      EXPECT_TRUE(found) << file << " boundary " << at;
    }
    // The random scales: every kind shows in 300 draws (kind 0's any bits: a UE8M0 scale of
    // 2^64 or more, a UE4M3 scale with its sign bit; kind 2: all scales of a side equal with
    // n > 1; kinds 0 and 3: a scale below 2^-20).
    bool wide = false, common = false, tiny = false;
    for (std::size_t i = l1.size(); i < l2.size(); ++i) {
      const MmaCase& c = l2[i];
      for (auto x : c.sa) wide = wide || (s.scale_format == MmaScaleFormat::ue8m0 ? x >= 0xBF : x >= 0x80);
      common = common || (n > 1 && std::all_of(c.sa.begin(), c.sa.end(), [&](auto x) { return x == c.sa[0]; }));
      for (auto x : c.sb) tiny = tiny || (s.scale_format == MmaScaleFormat::ue8m0 ? x < 0x6B : x < 0x20);
    }
    EXPECT_TRUE(wide) << file;
    EXPECT_TRUE(common || n == 1) << file;
    EXPECT_TRUE(tiny) << file;
  }
}

TEST(MmaCases, TheSameArgumentsGiveTheSameBytes) {
  const CaseShape s = form("mma-tcgen05-mxf8f6f4-e2m1-e4m3-ue8m0x32-f32-c.vec").shape;
  const std::string once = operand_text(s, mma_capture::make_cases(s, options(2, 500, 42)));
  EXPECT_EQ(operand_text(s, mma_capture::make_cases(s, options(2, 500, 42))), once);
  EXPECT_NE(operand_text(s, mma_capture::make_cases(s, options(2, 500, 43))), once);
  // Pinned: a change of these digests changes every capture file made from now on (the
  // generator's order and streams are part of the file format: mma_cases.hpp). Last changed
  // by gen mma's level-1 item 13 (chained fused sums of 16), which no committed file holds.
  EXPECT_EQ(digest(once), "1a5053bb549678c29fdce679e4c1b9ccb276aa9121c699f79d80e1e12dd0d318");
  const CaseShape nv = form("mma-sync-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-c.vec").shape;
  EXPECT_EQ(digest(operand_text(nv, mma_capture::make_cases(nv, options(2, 200, 1)))),
            "481cafd1717f46b2813401334a47f343ba37e0e27ca98ae8e1e00ad5026cf234");
}

TEST(MmaCases, ShapesWithoutAFormAreRefused) {
  CaseShape s;
  s.k = 16;
  EXPECT_THROW(mma_capture::make_cases(s, options(1, 0, 1)), std::invalid_argument);
  s.k = 32;
  s.scale_format = MmaScaleFormat::ue8m0;
  s.scale_block = 12;
  EXPECT_THROW(mma_capture::make_cases(s, options(1, 0, 1)), std::invalid_argument);
  s.scale_block = 32;
  s.a = FormatId::int8;
  EXPECT_THROW(mma_capture::make_cases(s, options(1, 0, 1)), std::invalid_argument);
  s.a = FormatId::e4m3;
  s.acc = FormatId::bf16;
  EXPECT_THROW(mma_capture::make_cases(s, options(1, 0, 1)), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// The files.

TEST(MmaFiles, CasesGoOnTheDiagonalOfTiles) {
  const CaseShape s = form("mma-sync-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-c.vec").shape;
  auto cases = mma_capture::make_cases(s, options(1, 0, 1));
  cases.resize(11);
  const mma_capture::TileBatch t = mma_capture::place(s, cases);
  ASSERT_EQ(t.tiles, 2);
  ASSERT_EQ(t.a.size(), 16u * 64);
  ASSERT_EQ(t.sa.size(), 16u * 4);
  for (std::size_t i = 0; i < 16; ++i) {
    for (int k = 0; k < 64; ++k) {
      EXPECT_EQ(t.a[i * 64 + k], i < 11 ? cases[i].a[k] : 0);
      EXPECT_EQ(t.b[i * 64 + k], i < 11 ? cases[i].b[k] : 0);
    }
    for (int j = 0; j < 4; ++j) EXPECT_EQ(t.sb[i * 4 + j], i < 11 ? cases[i].sb[j] : 0);
    EXPECT_EQ(t.c[i], i < 11 ? cases[i].c : 0u);
  }
}

/// Writes form f's file into dir with D from `d_of` (softmx's model standing in for the GPU).
template <class D>
std::string write_capture(const std::string& dir, const CaptureForm& f, const std::string& model, const capture::Provenance& p,
                          D&& d_of, std::uint64_t count = 60) {
  const vec::GenOptions o = options(2, count, 5);
  const auto cases = mma_capture::make_cases(f.shape, o);
  std::vector<std::uint32_t> d;
  for (const MmaCase& c : cases) d.push_back(d_of(c));
  const vec::Header h = mma_capture::file_header(f, model, p, o);
  const std::string path = dir + "/" + f.file;
  write_file(path, mma_capture::file_text(h, f.shape, cases, d));
  return path;
}

TEST(MmaFiles, AHopperCaptureVerifiesAndOneWrongDFails) {
  const std::string dir = scratch_dir("mma_capture_files") + "/h100";
  std::filesystem::create_directories(dir);
  const CaptureForm& f = form("mma-e5m2-e4m3-f32-c.vec");
  const std::string model = mma_capture::model_for(f, 9, 0);
  const TensorCoreModel* m = find_tensor_core_model(model);
  ASSERT_NE(m, nullptr);
  auto d_of = [&](const MmaCase& c) {
    return static_cast<std::uint32_t>(m->mma(f.shape.a, c.a, f.shape.b, c.b, f.shape.acc, c.c).code);
  };
  const std::string path = write_capture(dir, f, model, provenance("sm_90a (__CUDA_ARCH__ 900)"), d_of);
  const std::string text = slurp(path);
  EXPECT_NE(text.find("operation = mma\na = e5m2\nb = e4m3\nblock = 32\naccumulator = f32\naddend = yes\nmodel = hopper-fp8-mma\n"
                      "level = 2\nseed = 5\ncases = 177\ninputs-sha256 = "),
            std::string::npos)
      << text.substr(0, 600);
  EXPECT_NE(text.find("x-instruction = mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32\n"), std::string::npos);
  EXPECT_NE(text.find("\ngenerator = softmx 0.1.0\nx-gpu = NVIDIA Test B200\n"), std::string::npos);
  // The count and digest are those gen records for the same cases (vec::record_cases).
  const auto gen = run_cli("gen mma --a e5m2 --b e4m3 --block 32 --accumulator f32 --addend yes --model hopper-fp8-mma "
                           "--level 2 --seed 5 --count 60 --inputs-only");
  ASSERT_EQ(gen.status, 0) << gen.err;
  const auto key_lines = [](const std::string& t) {
    const std::size_t at = t.find("\ncases = ");
    return at == std::string::npos ? std::string() : t.substr(at, t.find("\ngenerator", at) - at);
  };
  EXPECT_NE(key_lines(gen.out), "");
  EXPECT_EQ(key_lines(text), key_lines(gen.out));
  EXPECT_FALSE(capture::verify_blocker(path));
  const auto ok = run_cli("verify '" + path + "'");
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("complete"), std::string::npos) << ok.out;
  // The last case cut off: the header's count says so.
  {
    std::string cut = text;
    cut.erase(cut.rfind('\n', cut.size() - 2) + 1);
    write_file(path, cut);
    const auto r = run_cli("verify '" + path + "'");
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("176"), std::string::npos) << r.out;
  }
  // One D one unit off: verify must fail.
  std::string bad = text;
  const std::size_t eol = bad.find('\n', bad.find("# A_1"));
  const std::size_t line_end = bad.find('\n', eol + 1);
  char& last = bad[line_end - 1];
  last = last == '0' ? '1' : '0';
  write_file(path, bad);
  const auto r = run_cli("verify '" + path + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
}

TEST(MmaFiles, BlackwellFilesAreReadListedAndWaitForTheirModels) {
  const std::string dir = scratch_dir("mma_capture_blackwell") + "/b200";
  // (The models landed with issue 17: these files now verify; the name is kept.)
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  for (const char* file : {"mma-tcgen05-mxf8f6f4-e4m3-e2m1-ue8m0x32-f32-c.vec", "mma-tcgen05-mxf4nvf4-e2m1-e2m1-ue4m3x16-f32-noc.vec",
                           "mma-tcgen05-f8f6f4-e4m3-e4m3-f16-c.vec"}) {
    const CaptureForm& f = form(file);
    paths.push_back(write_capture(dir, f, f.model, provenance(), [](const MmaCase& c) { return c.c ^ 0x5A5A5A5Au; }, 30));
    const std::string text = slurp(paths.back());
    // Every line: the operands, then D.
    std::string unknown;
    const auto r = vec::VectorReader::from_string(capture::with_known_model(text, unknown), paths.back());
    vec::Record rec;
    std::size_t lines = 0;
    while (r->next(rec)) {
      ++lines;
      ASSERT_EQ(rec.operands.size(), 2u * f.shape.k + 2u * f.shape.scales() + (f.shape.addend ? 1 : 0));
      ASSERT_EQ(rec.results.size(), 1u);
    }
    EXPECT_EQ(lines, mma_capture::make_cases(f.shape, options(2, 30, 5)).size());
    if (f.shape.scale_format != MmaScaleFormat::none) {
      EXPECT_NE(text.find("scale-format = " + std::string(vec::name(f.shape.scale_format)) + "\nscale-block = " +
                          std::to_string(f.shape.scale_block) + "\n"),
                std::string::npos);
      EXPECT_NE(text.find("generator = softmx 0.1.0\n"), std::string::npos);  // gen mma's cases
    }
    // The model exists now (tensor_core.hpp): nothing blocks verify, and the D values written
    // here (C ^ 0x5A5A5A5A, not the model's) disagree: exit 1.
    EXPECT_EQ(unknown, "");
    EXPECT_FALSE(capture::verify_blocker(paths.back())) << file;
    EXPECT_EQ(run_cli("verify '" + paths.back() + "'").status, 1) << file;
  }
  // A conversion table from the other program (its own build target) beside them: the MANIFEST
  // lists all, with both targets.
  {
    capture::Provenance q = provenance("sm_100f (__CUDA_ARCH__ 1000, __CUDA_ARCH_FAMILY_SPECIFIC__ 1000)");
    q.capture = "softmx_capture_cuda 0.1.0";
    q.date = "2026-01-02T03:00:00Z";
    const Converter conv(FormatId::e2m1, FormatId::f16, Context{}, *find_dialect("cuda-sm100"));
    const vec::Header h = capture::capture_header(FormatId::e2m1, FormatId::f16, Rounding::rne, Saturation::none, "cuda-sm100",
                                                  0, 15, q, {"x-instruction", "cvt.rn.f16x2.e2m1x2"});
    std::vector<capture::ChangePoint> points;
    for (std::uint64_t x = 0; x < 16; ++x) points.push_back({x, conv(x).code});
    std::string text;
    capture::reduce_to_run_table(h, points, text);
    write_file(dir + "/ptx-e2m1-f16.vec", text);
  }
  capture::Provenance p;
  const auto entries = capture::scan_tables(dir, p);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(p.build_target, "sm_100a (__CUDA_ARCH__ 1000) [softmx_capture_mma 0.1.0]; sm_100f (__CUDA_ARCH__ 1000, "
                            "__CUDA_ARCH_FAMILY_SPECIFIC__ 1000) [softmx_capture_cuda 0.1.0]");
  EXPECT_EQ(p.date, "2026-01-02T03:00:00Z");
  EXPECT_EQ(entries[0].what.rfind("instruction tcgen05.mma.cta_group::1.kind::f8f6f4 m128n8k32", 0), 0u) << entries[0].what;
  // The manifest tool's --can-verify: 0 for every file now.
  EXPECT_EQ(run_shell(std::string(SOFTMX_CAPTURE_MANIFEST) + " --can-verify '" + paths[0] + "'").status, 0);
  EXPECT_EQ(run_shell(std::string(SOFTMX_CAPTURE_MANIFEST) + " --can-verify '" + dir + "/ptx-e2m1-f16.vec'").status, 0);
  EXPECT_EQ(run_shell(std::string(SOFTMX_CAPTURE_MANIFEST) + " --can-verify '" + dir + "/missing.vec'").status, 2);
}

TEST(MmaFiles, TheHostHalfOfCaptureShVerifiesWaitsAndFails) {
  const std::string dir = scratch_dir("mma_capture_sh") + "/test-gpu";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const CaptureForm& hopper = form("mma-e4m3-e4m3-f32-c.vec");
  const TensorCoreModel* m = find_tensor_core_model("hopper-fp8-mma");
  ASSERT_NE(m, nullptr);
  const std::string good = write_capture(dir, hopper, "hopper-fp8-mma", provenance(), [&](const MmaCase& c) {
    return static_cast<std::uint32_t>(m->mma(FormatId::e4m3, c.a, FormatId::e4m3, c.b, FormatId::f32, c.c).code);
  });
  const CaptureForm& fp4 = form("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec");
  write_capture(dir, fp4, "blackwell-mxf4", provenance(),
                [&](const MmaCase& c) {
                  return static_cast<std::uint32_t>(blackwell_mxf4_model()
                                                        .mma_scaled(FormatId::e2m1, c.a, FormatId::e2m1, c.b,
                                                                    FormatId::e8m0, fp4.shape.scale_block, c.sa, c.sb,
                                                                    FormatId::f32, c.c)
                                                        .code);
                },
                20);
  const std::string cmd = std::string("'") + SOFTMX_SOURCE_DIR + "/tools/cuda/verify_capture.sh' '" + dir + "' '" + SOFTMX_CLI +
                          "' '" + SOFTMX_CAPTURE_MANIFEST + "'";
  const auto r = run_shell(cmd);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 files in " + dir + "; 2 verify, 0 disagree"), std::string::npos) << r.out;
  const std::string manifest = slurp(dir + "/MANIFEST");
  EXPECT_NE(manifest.find("\tmma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec\tinstruction mma.sync.aligned.m16n8k64"), std::string::npos)
      << manifest;
  // A wrong D in the file softmx can check: exit 1, named.
  std::string t = slurp(good);
  // The last line's D: its 8 digits before the final newline.
  t.replace(t.size() - 9, 8, t.substr(t.size() - 9, 8) == "00000000" ? "00000001" : "00000000");
  write_file(good, t);
  const auto w = run_shell(cmd);
  EXPECT_EQ(w.status, 1) << w.out;
  EXPECT_NE(w.out.find("DISAGREES: mma-e4m3-e4m3-f32-c.vec"), std::string::npos) << w.out;
  EXPECT_TRUE(std::filesystem::exists(good + ".verify.txt"));
}

TEST(MmaFiles, AKnownModelWithBlockScalesWaitsToo) {
  const std::string dir = scratch_dir("mma_capture_scaled_known");
  const CaptureForm& f = form("mma-sync-mxf8f6f4-e4m3-e4m3-ue8m0x32-f32-c.vec");
  const std::string path = write_capture(dir, f, "hopper-fp8-wgmma", provenance(), [](const MmaCase&) { return 0u; }, 10);
  const auto why = capture::verify_blocker(path);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the model takes no block scales"), std::string::npos) << *why;
}

}  // namespace
}  // namespace softmx
