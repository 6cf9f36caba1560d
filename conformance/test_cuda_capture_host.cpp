// conformance/test_cuda_capture_host.cpp: the host half of the GPU captures (tools/cuda/), without
// a GPU and without NVIDIA's headers: change points -> canonical run table, the capture header,
// the GPU slug, the catalogue's names, and the MANIFEST.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "capture_catalog.hpp"
#include "capture_host.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/convert.hpp"
#include "support/cli_run.hpp"
#include "test_cuda_capture_strips.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_table.hpp"

namespace softmx {
namespace {

using capture::ChangePoint;
using testing::run_shell;
using testing::scratch_dir;
using testing::slurp;
using testing::write_file;

capture::Provenance test_provenance() {
  return {"NVIDIA Test GPU 80GB", "9.0", "13.0", "13.0", "sm_90a (__CUDA_ARCH__ 900)", "2025-01-02T03:04:05Z",
          "softmx_capture_cuda 0.1.0"};
}

vec::Header header_for(FormatId from, FormatId to, std::uint64_t first, std::uint64_t last,
                       const std::string& dialect = "cuda-sm90") {
  return capture::capture_header(from, to, Rounding::rne, Saturation::finite, dialect, first, last, test_provenance(),
                                 {"x-function", "test"});
}

// The table written independently of the reduction: one run per input, in order, through the
// RunTableWriter (which joins equal neighbours).
template <class F>
std::string one_run_per_input(const vec::Header& h, F&& f) {
  std::string text;
  vec::RunTableWriter w(h, false, text);
  for (std::uint64_t x = h.first;; ++x) {
    w.add(vec::Run{x, x, f(x), false, 0});
    if (x == h.last) break;
  }
  w.finish();
  return text;
}

// A step function with long and one-input runs: 256 e4m3 codes -> f16 codes.
std::uint64_t step(std::uint64_t x) { return x < 3 ? 7 : x == 3 ? 8 : (x / 10) % 4 == 0 ? 0x3C00 : (x * 37) % 5; }

TEST(CaptureReduce, AnyOrderDuplicatesAndStripStartsGiveTheCanonicalTable) {
  const vec::Header h = header_for(FormatId::e4m3, FormatId::f16, 0, 255);
  const std::string want = one_run_per_input(h, step);
  for (std::uint64_t strip : {1, 7, 64, 300}) {
    for (bool starts : {false, true}) {
      testing::StripOptions o;
      o.strip = strip;
      o.seed = strip * 2 + starts;
      o.record_strip_starts = starts;
      o.duplicates = 40;
      std::string got;
      const std::uint64_t lines = capture::reduce_to_run_table(h, testing::strip_change_points(step, 0, 255, o), got);
      EXPECT_EQ(got, want) << "strip " << strip << " starts " << starts;
      EXPECT_GT(lines, 10u);
    }
  }
  // Lines without FLAGS: "FIRST OUT".
  EXPECT_NE(want.find("# FIRST OUT\n00 0007\n03 0008\n04 3C00\n"), std::string::npos) << want;
}

TEST(CaptureReduce, SubRangeOfA32BitSource) {
  // Inputs 0xFFFFFF00..0xFFFFFFFF: the last input of the range is the last f32 code.
  const vec::Header h = header_for(FormatId::f32, FormatId::e4m3, 0xFFFFFF00u, 0xFFFFFFFFu);
  auto f = [](std::uint64_t x) -> std::uint64_t { return (x >> 5) & 0xFF; };
  std::string got;
  capture::reduce_to_run_table(h, testing::strip_change_points(f, h.first, h.last, {13, 5, true, 3}), got);
  EXPECT_EQ(got, one_run_per_input(h, f));
  EXPECT_NE(got.find("first = FFFFFF00\nlast = FFFFFFFF\n"), std::string::npos);
}

TEST(CaptureReduce, BadChangePointsAreErrorsNamingTheInput) {
  const vec::Header h = header_for(FormatId::e4m3, FormatId::f16, 0, 255);
  auto error_of = [&](std::vector<ChangePoint> pts) {
    std::string text;
    try {
      capture::reduce_to_run_table(h, std::move(pts), text);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({{1, 5}}), "no change point at the table's first input 00 (the device records the first input of its range)");
  EXPECT_EQ(error_of({}), "no change point at the table's first input 00 (the device records the first input of its range)");
  EXPECT_EQ(error_of({{0, 1}, {9, 2}, {9, 3}}), "change points disagree at input 09: codes 0002 and 0003");
  EXPECT_EQ(error_of({{0, 1}, {256, 2}}), "change point at input 100 lies outside the table's range 00..FF");
  EXPECT_NE(error_of({{0, 0x10000}}).find("does not fit f16"), std::string::npos);
  EXPECT_EQ(error_of({{0, 1}, {9, 2}, {9, 2}}), "no error");  // an exact duplicate is harmless
}

TEST(CaptureHeader, CarriesTheSettingsAndTheProvenanceInOrder) {
  const vec::Header h =
      capture::capture_header(FormatId::bf16, FormatId::e8m0, Rounding::ru, Saturation::none, "cuda-sm100", 0, 0xFFFF,
                              test_provenance(), {"x-instruction", "cvt.rp.ue8m0x2.bf16x2"}, {{"x-lanes-agree", "yes"}});
  std::string text;
  capture::reduce_to_run_table(h, {{0, 0x7F}}, text);
  EXPECT_EQ(text,
            "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = bf16\nto = e8m0\nrounding = ru\n"
            "saturation = none\ntininess = after\ndialect = cuda-sm100\nfirst = 0000\nlast = FFFF\nlevel = exhaustive\n"
            "generator = softmx_capture_cuda 0.1.0\nx-gpu = NVIDIA Test GPU 80GB\nx-compute-capability = 9.0\n"
            "x-driver = 13.0\nx-cuda-runtime = 13.0\nx-build-target = sm_90a (__CUDA_ARCH__ 900)\n"
            "x-instruction = cvt.rp.ue8m0x2.bf16x2\nx-date = 2025-01-02T03:04:05Z\n"
            "x-capture = softmx_capture_cuda 0.1.0\nx-lanes-agree = yes\n# FIRST OUT\n0000 7F\n");
  // The reader takes it back with the same keys.
  auto r = vec::VectorReader::from_string(text, "t");
  EXPECT_EQ(r->header().extra, h.extra);
  EXPECT_EQ(r->header().dialect, "cuda-sm100");
  // An unknown dialect, rs, and a range outside the source are refused.
  EXPECT_THROW(capture::capture_header(FormatId::f16, FormatId::e4m3, Rounding::rne, Saturation::finite, "cuda-sm80", 0,
                                       0xFFFF, test_provenance(), {"x-function", "f"}),
               softmx::InputError);
  EXPECT_THROW(capture::capture_header(FormatId::f32, FormatId::e4m3, Rounding::rs, Saturation::finite, "cuda-sm100", 0,
                                       0xFFFFFFFF, test_provenance(), {"x-function", "f"}),
               softmx::InputError);
  EXPECT_THROW(capture::capture_header(FormatId::f16, FormatId::e4m3, Rounding::rne, Saturation::finite, "cuda-sm90", 0,
                                       0x10000, test_provenance(), {"x-function", "f"}),
               softmx::InputError);
}

TEST(CaptureHeader, GpuSlug) {
  EXPECT_EQ(capture::gpu_slug("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3");
  EXPECT_EQ(capture::gpu_slug("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(capture::gpu_slug("  NVIDIA GeForce RTX 5090 "), "geforce-rtx-5090");
  EXPECT_EQ(capture::gpu_slug("NVIDIA B200"), "b200");
  EXPECT_EQ(capture::gpu_slug("nvidia"), "unknown-gpu");
  EXPECT_EQ(capture::gpu_slug(""), "unknown-gpu");
}

TEST(CaptureCatalog, NamesAreDerivedAndDistinct) {
  std::set<std::string> files, texts;
  for (const capture::Call& c : capture::kCaptures) {
    EXPECT_TRUE(files.insert(capture::file_name(c)).second) << capture::file_name(c);
    EXPECT_TRUE(texts.insert(capture::call_text(c).second).second) << capture::call_text(c).second;
  }
  using capture::Api, capture::Fmt, capture::Mode;
  auto text = [](capture::Call c) { return capture::call_text(c); };
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(text({Api::ptx_encode_x2, Fmt::f32, Fmt::e4m3, Mode::rn, true}), (P{"x-instruction", "cvt.rn.satfinite.e4m3x2.f32"}));
  EXPECT_EQ(text({Api::ptx_encode_x2, Fmt::f16, Fmt::e5m2, Mode::rn, true}), (P{"x-instruction", "cvt.rn.satfinite.e5m2x2.f16x2"}));
  EXPECT_EQ(text({Api::ptx_decode_x2, Fmt::e4m3, Fmt::f16, Mode::rn, false}), (P{"x-instruction", "cvt.rn.f16x2.e4m3x2"}));
  EXPECT_EQ(text({Api::ptx_encode_x2, Fmt::bf16, Fmt::e8m0, Mode::rz, true}), (P{"x-instruction", "cvt.rz.satfinite.ue8m0x2.bf16x2"}));
  EXPECT_EQ(text({Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rp, false}), (P{"x-instruction", "cvt.rp.ue8m0x2.f32"}));
  EXPECT_EQ(text({Api::ptx_rs_x4, Fmt::f32, Fmt::e2m1, Mode::rs, true}), (P{"x-instruction", "cvt.rs.satfinite.e2m1x4.f32"}));
  EXPECT_EQ(text({Api::nv_encode, Fmt::f32, Fmt::e4m3, Mode::rn, false}), (P{"x-function", "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3)"}));
  EXPECT_EQ(text({Api::nv_encode, Fmt::bf16, Fmt::e2m3, Mode::rz, true}),
            (P{"x-function", "__nv_cvt_bfloat16raw_to_fp6(x, __NV_E2M3, cudaRoundZero)"}));
  EXPECT_EQ(text({Api::nv_encode, Fmt::f16, Fmt::e2m1, Mode::rn, true}),
            (P{"x-function", "__nv_cvt_halfraw_to_fp4(x, __NV_E2M1, cudaRoundNearest)"}));
  EXPECT_EQ(text({Api::nv_encode, Fmt::f32, Fmt::e8m0, Mode::rp, true}),
            (P{"x-function", "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)"}));
  EXPECT_EQ(text({Api::nv_decode, Fmt::e3m2, Fmt::f16, Mode::rn, false}), (P{"x-function", "__nv_cvt_fp6_to_halfraw(x, __NV_E3M2)"}));
  EXPECT_EQ(text({Api::nv_decode, Fmt::e8m0, Fmt::bf16, Mode::rn, false}), (P{"x-function", "__nv_cvt_e8m0_to_bf16raw(x)"}));
  EXPECT_EQ(capture::file_name({Api::ptx_encode_x2, Fmt::f32, Fmt::e8m0, Mode::rp, false}), "ptx-f32-e8m0-ru-nosat.vec");
  EXPECT_EQ(capture::file_name({Api::nv_decode, Fmt::e4m3, Fmt::f16, Mode::rn, false}), "fn-e4m3-f16-rne.vec");
  EXPECT_EQ(capture::saturation_of({Api::nv_decode, Fmt::e4m3, Fmt::f16, Mode::rn, false}), Saturation::none);
  EXPECT_EQ(capture::rounding_of(Mode::rp), Rounding::ru);
}

// Writes the canonical table of f16 -> e4m3 in `dialect` (as softmx computes it) with the test
// provenance, plus `more` x- keys, the way the capture program writes a table.
std::string softmx_table(FormatId from, FormatId to, const std::string& dialect, std::pair<std::string, std::string> what,
                         const capture::Provenance& p = test_provenance()) {
  Context c;
  const Converter conv(from, to, c, *find_dialect(dialect));
  const std::uint64_t last = format(from).code_mask();
  const vec::Header h = capture::capture_header(from, to, Rounding::rne, Saturation::finite, dialect, 0, last, p, what);
  std::string text;
  capture::reduce_to_run_table(h, testing::strip_change_points([&](std::uint64_t x) { return conv(x).code; }, 0, last), text);
  return text;
}

TEST(CaptureManifest, HashesEveryTableAndStatesTheProvenanceOnce) {
  const std::string dir = scratch_dir("capture_manifest") + "/h100-test";
  std::filesystem::create_directories(dir);
  write_file(dir + "/fn-f16-e4m3-rne-satfinite.vec",
             softmx_table(FormatId::f16, FormatId::e4m3, "cuda-sm90", {"x-function", "__nv_cvt_halfraw_to_fp8(...)"}));
  write_file(dir + "/ptx-e4m3-f16-rne.vec",
             softmx_table(FormatId::e4m3, FormatId::f16, "cuda-sm90", {"x-instruction", "cvt.rn.f16x2.e4m3x2"}));
  capture::Provenance later = test_provenance();
  later.date = "2025-01-02T04:00:00Z";  // the mma program ran later
  write_file(dir + "/mma-e4m3-k32.vec",
             softmx_table(FormatId::e4m3, FormatId::f32, "ocp", {"x-instruction", "mma.sync.m16n8k32"}, later));
  write_file(dir + "/notes.txt", "not a table\n");
  capture::Provenance p;
  const auto entries = capture::scan_tables(dir, p);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, "fn-f16-e4m3-rne-satfinite.vec");
  EXPECT_EQ(entries[1].path, "mma-e4m3-k32.vec");
  EXPECT_EQ(entries[1].what, "instruction mma.sync.m16n8k32");
  EXPECT_EQ(entries[2].what, "instruction cvt.rn.f16x2.e4m3x2");
  EXPECT_EQ(p.gpu, "NVIDIA Test GPU 80GB");
  EXPECT_EQ(p.date, "2025-01-02T03:04:05Z");  // the earliest
  // The digests, against sha256sum (an implementation that is not softmx's).
  for (const auto& e : entries) {
    const auto r = run_shell("sha256sum '" + dir + "/" + e.path + "'");
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(r.out.substr(0, 64), e.sha256) << e.path;
  }
  const std::string m = capture::manifest_text(p, entries);
  EXPECT_NE(m.find("# gpu: NVIDIA Test GPU 80GB\n# compute capability: 9.0\n# driver: 13.0\n# cuda runtime: 13.0\n"
                   "# build target: sm_90a (__CUDA_ARCH__ 900)\n# date: 2025-01-02T03:04:05Z\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(entries[1].sha256 + "\tmma-e4m3-k32.vec\tinstruction mma.sync.m16n8k32\n"), std::string::npos) << m;
}

TEST(CaptureManifest, RefusesTablesOfAnotherGpuOrWithoutProvenance) {
  const std::string dir = scratch_dir("capture_manifest_bad") + "/mixed";
  std::filesystem::create_directories(dir);
  capture::Provenance p;
  EXPECT_THROW(capture::scan_tables(dir, p), softmx::InputError);  // no table
  write_file(dir + "/a.vec", softmx_table(FormatId::e4m3, FormatId::f16, "cuda-sm90", {"x-function", "f"}));
  capture::Provenance other = test_provenance();
  other.gpu = "NVIDIA H200";
  write_file(dir + "/b.vec", softmx_table(FormatId::e5m2, FormatId::f16, "cuda-sm90", {"x-function", "g"}, other));
  try {
    capture::scan_tables(dir, p);
    ADD_FAILURE() << "no error";
  } catch (const softmx::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("b.vec: x-gpu = NVIDIA H200, but a.vec has NVIDIA Test GPU 80GB"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(dir + "/b.vec");
  // A table without x-function / x-instruction (what `softmx sweep` writes).
  const auto r = testing::run_cli("sweep --from e2m1 --to f16 --dialect cuda-sm90 -o '" + dir + "/c.vec'");
  ASSERT_EQ(r.status, 0) << r.err;
  try {
    capture::scan_tables(dir, p);
    ADD_FAILURE() << "no error";
  } catch (const softmx::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.vec: the header has neither x-instruction nor x-function"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace softmx
