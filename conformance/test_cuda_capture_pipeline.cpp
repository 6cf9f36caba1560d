// conformance/test_cuda_capture_pipeline.cpp: the GPU capture pipeline end to end, minus the GPU.
//
// Every capture the program can run on any target (the NVIDIA header functions, Needs::any) is
// evaluated here by the same evaluate<C>() the kernels call, compiled by g++ (so NVIDIA's
// software path runs), reduced by the kernel's strip algorithm (test_cuda_capture_strips.hpp)
// and the capture program's reduce_to_run_table, written with its header, and checked by the
// real `softmx verify` in the cuda-sm90 and cuda-sm100 dialects: over every f16 and bf16 input,
// every element code, and the f32 inputs 0x3F000000..0x3F3FFFFF (0.5 up to 0.75: every format's
// rounding boundaries there). A table with one planted wrong run must fail verify. Skipped,
// saying so, without NVIDIA's headers.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "capture_catalog.hpp"
#include "capture_host.hpp"
#include "support/cli_run.hpp"
#include "test_cuda_capture_strips.hpp"

#if defined(SOFTMX_HAVE_CUDA_HEADERS)
#include "capture_functions.hpp"
#endif

namespace softmx {
namespace {

using testing::run_cli;
using testing::scratch_dir;
using testing::write_file;

#if defined(SOFTMX_HAVE_CUDA_HEADERS)

constexpr std::uint64_t kF32First = 0x3F000000, kF32Last = 0x3F3FFFFF;

struct Built {
  std::string path, text;
  std::uint64_t lines = 0;
};

// The table of catalogue entry I, as the capture program writes it, in `dialect`.
template <std::size_t I>
Built build(const std::string& dir, const std::string& dialect) {
  constexpr capture::Call C = capture::kCaptures[I];
  const FormatId from = capture::format_of(C.from);
  const std::uint64_t first = from == FormatId::f32 ? kF32First : 0;
  const std::uint64_t last = from == FormatId::f32 ? kF32Last : format(from).code_mask();
  auto f = [](std::uint64_t x) -> std::uint64_t {
    const capture::Lanes l = capture::evaluate<I>(static_cast<std::uint32_t>(x));
    if (l.missing || !l.agree) throw std::logic_error("a header function answered as a PTX form");
    return l.code;
  };
  capture::Provenance p{"host (NVIDIA's software path, g++)", "none", "none", "none", "x86-64 host", "2025-01-01T00:00:00Z",
                        "test_cuda_capture_pipeline"};
  const vec::Header h = capture::capture_header(from, capture::format_of(C.to), capture::rounding_of(C.mode),
                                                capture::saturation_of(C), dialect, first, last, p, capture::call_text(C));
  Built b;
  testing::StripOptions o;
  o.seed = I + 1;
  o.record_strip_starts = (I % 2) == 0;
  o.duplicates = 17;
  b.lines = capture::reduce_to_run_table(h, testing::strip_change_points(f, first, last, o), b.text);
  b.path = dir + "/" + dialect + "-" + capture::file_name(C);
  write_file(b.path, b.text);
  return b;
}

template <std::size_t... I>
void for_each_header_function(std::index_sequence<I...>, const auto& visit) {
  (
      [&] {
        if constexpr (capture::needs(capture::kCaptures[I]) == capture::Needs::any) visit.template operator()<I>();
      }(),
      ...);
}

TEST(CapturePipeline, EveryHeaderFunctionVerifiesInTheDeviceDialects) {
  const std::string dir = scratch_dir("capture_pipeline");
  int tables = 0;
  for_each_header_function(std::make_index_sequence<capture::kCaptureCount>{}, [&]<std::size_t I>() {
    for (const char* dialect : {"cuda-sm90", "cuda-sm100"}) {
      const Built b = build<I>(dir, dialect);
      const auto r = run_cli("verify '" + b.path + "'");
      EXPECT_EQ(r.status, 0) << b.path << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find(", all match; flags not given"), std::string::npos) << r.out;
      ++tables;
    }
  });
  // 44 header functions (12 FP8, 12 FP6, 6 FP4, 8 E8M0, 6 decodes), two dialects each.
  EXPECT_EQ(tables, 88);
}

TEST(CapturePipeline, AWrongRunFailsVerify) {
  // f16 -> e4m3 satfinite, __nv_cvt_halfraw_to_fp8: the run that gives 1.0 (e4m3 0x38; f16
  // inputs just below 0x3C00 up to 0x3C3F) is changed to 0x39; verify must report it.
  constexpr std::size_t kIndex = [] {
    for (std::size_t i = 0; i < capture::kCaptureCount; ++i) {
      const capture::Call c = capture::kCaptures[i];
      if (c.api == capture::Api::nv_encode && c.from == capture::Fmt::f16 && c.to == capture::Fmt::e4m3 && c.satfinite)
        return i;
    }
    return capture::kCaptureCount;
  }();
  static_assert(kIndex < capture::kCaptureCount);
  const std::string dir = scratch_dir("capture_pipeline_bad");
  Built b = build<kIndex>(dir, "cuda-sm90");
  const std::size_t at = b.text.find(" 38\n");
  ASSERT_NE(at, std::string::npos) << "the table has a run of 1.0";
  const std::string first = b.text.substr(at - 4, 4);  // that run's FIRST
  b.text.replace(at, 4, " 39\n");
  write_file(b.path, b.text);
  const auto r = run_cli("verify '" + b.path + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(first), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mismatch"), std::string::npos) << r.out;
}

#else

TEST(CapturePipeline, SkippedWithoutNvidiaHeaders) {
  GTEST_SKIP() << "NVIDIA's CUDA headers (cuda_fp8.h) were not found when this was built: the capture pipeline is "
                  "not run through NVIDIA's host functions (install the CUDA toolkit or set CUDA_HOME, then rebuild)";
}

#endif

}  // namespace
}  // namespace softmx
