// conformance/test_cuda_capture_committed.cpp: every GPU capture committed under vectors/cuda/*/.
//
// For each folder: its MANIFEST must be exactly what softmx_capture_manifest writes for the
// tables there (so every digest matches and no table is missing or unlisted), and every table
// must pass `softmx verify` in the dialect or tensor-core model its header names (a file whose
// model softmx does not know yet is checked line by line for form, and listed as waiting).
// Until a capture is committed the test skips, saying so; the checker itself is proved on a
// capture made here, which must pass, and on corrupted copies, which must fail.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "capture_host.hpp"
#include "mma_catalog.hpp"
#include "mma_file.hpp"
#include "softmx/convert.hpp"
#include "support/cli_run.hpp"
#include "test_cuda_capture_strips.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::scratch_dir;
using testing::slurp;
using testing::write_file;

/// What is wrong with the capture folder `dir` (empty: nothing). A file that names a
/// tensor-core model this softmx does not know yet (or carries block scales no model takes) is
/// not verified: it is read line by line (every field checked against its header) and listed in
/// `waiting` with the reason, once per file.
std::vector<std::string> check_capture_folder(const std::string& dir, std::vector<std::string>* waiting = nullptr) {
  std::vector<std::string> problems;
  capture::Provenance p;
  std::vector<capture::ManifestEntry> entries;
  try {
    entries = capture::scan_tables(dir, p);
  } catch (const std::exception& e) {
    return {e.what()};
  }
  if (!fs::exists(dir + "/MANIFEST")) problems.push_back(dir + ": no MANIFEST (run softmx_capture_manifest " + dir + ")");
  else if (slurp(dir + "/MANIFEST") != capture::manifest_text(p, entries))
    problems.push_back(dir + "/MANIFEST does not match the tables (a digest, a table missing or unlisted, or the "
                             "provenance differs); softmx_capture_manifest " + dir + " writes the right one");
  for (const auto& e : entries) {
    const std::string path = dir + "/" + e.path;
    std::optional<std::string> why;
    try {
      why = capture::verify_blocker(path);
    } catch (const std::exception& x) {
      problems.push_back(path + ": " + x.what());
      continue;
    }
    if (why) {
      try {
        std::string unknown;
        const auto r = vec::VectorReader::from_string(capture::with_known_model(slurp(path), unknown), path);
        vec::Record rec;
        std::uint64_t lines = 0;
        while (r->next(rec)) {
          ++lines;
          if (rec.results.size() != 1) throw std::runtime_error(r->where() + ": a capture line must end in its result");
        }
        if (lines == 0) throw std::runtime_error(path + ": no data lines");
      } catch (const std::exception& x) {
        problems.push_back(path + ": " + x.what());
      }
      if (waiting) waiting->push_back(path + ": " + *why);
      continue;
    }
    const auto r = run_cli("verify '" + path + "'");
    if (r.status != 0) problems.push_back(dir + "/" + e.path + ": softmx verify exit " + std::to_string(r.status) + ": " + r.out + r.err);
  }
  return problems;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(CommittedCaptures, EveryTableMatchesItsManifestAndVerifies) {
  const fs::path root = fs::path(SOFTMX_SOURCE_DIR) / "vectors" / "cuda";
  std::vector<std::string> folders;
  if (fs::is_directory(root))
    for (const auto& d : fs::directory_iterator(root))
      if (d.is_directory()) {
        bool has_table = false;
        for (const auto& f : fs::directory_iterator(d.path())) has_table = has_table || f.path().extension() == ".vec";
        if (has_table) folders.push_back(d.path().string());
      }
  if (folders.empty())
    GTEST_SKIP() << "no GPU capture is committed under " << root.string()
                 << "/*/ yet (tools/cuda/capture.sh on a GPU makes one): nothing to check";
  std::vector<std::string> waiting;
  for (const auto& f : folders) EXPECT_EQ(join(check_capture_folder(f, &waiting)), "") << f;
  // Files whose model softmx lacks are checked for form only; say which, so that a run that
  // looks green does not hide them (they verify once the models land).
  for (const auto& w : waiting) std::printf("waiting for its model: %s\n", w.c_str());
}

// A capture folder as the programs write it, from softmx's own results in cuda-sm90.
std::string make_capture(const std::string& dir) {
  fs::create_directories(dir);
  const capture::Provenance p{"NVIDIA Test GPU", "9.0", "13.0", "13.0", "sm_90a (__CUDA_ARCH__ 900)",
                              "2025-01-02T03:04:05Z", "softmx_capture_cuda 0.1.0"};
  struct T {
    FormatId from, to;
    const char* file;
    const char* insn;
  };
  for (const T t : {T{FormatId::f16, FormatId::e5m2, "ptx-f16-e5m2-rne-satfinite.vec", "cvt.rn.satfinite.e5m2x2.f16x2"},
                    T{FormatId::e4m3, FormatId::f16, "ptx-e4m3-f16-rne.vec", "cvt.rn.f16x2.e4m3x2"}}) {
    const Saturation s = t.to == FormatId::f16 ? Saturation::none : Saturation::finite;
    Context c;
    c.saturation = s;
    const Converter conv(t.from, t.to, c, *find_dialect("cuda-sm90"));
    const std::uint64_t last = format(t.from).code_mask();
    const vec::Header h = capture::capture_header(t.from, t.to, Rounding::rne, s, "cuda-sm90", 0, last, p,
                                                  {"x-instruction", t.insn}, {{"x-lanes-agree", "yes"}});
    std::string text;
    capture::reduce_to_run_table(h, testing::strip_change_points([&](std::uint64_t x) { return conv(x).code; }, 0, last), text);
    write_file(dir + "/" + t.file, text);
  }
  capture::Provenance got;
  const auto entries = capture::scan_tables(dir, got);
  write_file(dir + "/MANIFEST", capture::manifest_text(got, entries));
  return dir;
}

TEST(CommittedCaptures, TheCheckerPassesAGoodCaptureAndFailsBadOnes) {
  const std::string base = scratch_dir("capture_committed");
  EXPECT_EQ(join(check_capture_folder(make_capture(base + "/good"))), "");

  // A wrong result with a MANIFEST that matches it: verify must catch it. e4m3 0x38 is 1.0
  // (f16 0x3C00); the table says 0x3C01.
  const std::string wrong = make_capture(base + "/wrong");
  const std::string path = wrong + "/ptx-e4m3-f16-rne.vec";
  std::string t = slurp(path);
  const std::size_t at = t.find("\n38 3C00\n");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 9, "\n38 3C01\n");
  write_file(path, t);
  capture::Provenance p;
  write_file(wrong + "/MANIFEST", capture::manifest_text(p, capture::scan_tables(wrong, p)));
  const auto w = check_capture_folder(wrong);
  ASSERT_EQ(w.size(), 1u) << join(w);
  EXPECT_NE(w[0].find("ptx-e4m3-f16-rne.vec: softmx verify exit 1"), std::string::npos) << w[0];

  // A table edited after its MANIFEST was written (a stale digest).
  const std::string stale = make_capture(base + "/stale");
  write_file(stale + "/ptx-f16-e5m2-rne-satfinite.vec", slurp(stale + "/ptx-f16-e5m2-rne-satfinite.vec") + "# edited\n");
  const auto s = check_capture_folder(stale);
  ASSERT_EQ(s.size(), 1u) << join(s);
  EXPECT_NE(s[0].find("MANIFEST does not match the tables"), std::string::npos) << s[0];

  // A tensor-core capture under a Blackwell model: verified like the others; a line that lost its
  // D is caught.
  const std::string bw = make_capture(base + "/blackwell");
  {
    const mma_capture::CaptureForm* f = nullptr;
    for (const auto& x : mma_capture::capture_forms())
      if (x.file == "mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec") f = &x;
    ASSERT_NE(f, nullptr);
    const capture::Provenance p{"NVIDIA Test GPU", "9.0", "13.0", "13.0", "sm_120f (__CUDA_ARCH__ 1200)", "2025-01-02T03:04:05Z",
                                "softmx_capture_mma 0.1.0"};
    vec::GenOptions o;
    const auto cases = mma_capture::make_cases(f->shape, o);
    const vec::Header h = mma_capture::file_header(*f, f->model, p, o);
    write_file(bw + "/" + f->file, mma_capture::file_text(h, f->shape, cases, std::vector<std::uint32_t>(cases.size(), 0)));
    capture::Provenance got;
    write_file(bw + "/MANIFEST", capture::manifest_text(got, capture::scan_tables(bw, got)));
    // softmx knows the model now (blackwell-mxf4, docs/TENSOR_CORES.md 7, unconfirmed): the file
    // is verified, not waiting, and a D of 0 for every line is wrong.
    std::vector<std::string> waiting;
    const auto z = check_capture_folder(bw, &waiting);
    EXPECT_TRUE(waiting.empty()) << join(waiting);
    ASSERT_EQ(z.size(), 1u) << join(z);
    EXPECT_NE(z[0].find("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec: softmx verify exit 1"), std::string::npos) << z[0];
    std::string t = slurp(bw + "/" + f->file);
    t.erase(t.size() - 10, 9);  // the last line's " DDDDDDDD"
    write_file(bw + "/" + f->file, t);
    write_file(bw + "/MANIFEST", capture::manifest_text(got, capture::scan_tables(bw, got)));
    const auto b = check_capture_folder(bw);
    ASSERT_EQ(b.size(), 1u) << join(b);
    EXPECT_NE(b[0].find("mma-sync-mxf4-e2m1-e2m1-ue8m0x32-f32-c.vec"), std::string::npos) << b[0];
  }

  // An unlisted table, and a missing MANIFEST.
  const std::string extra = make_capture(base + "/extra");
  fs::copy_file(extra + "/ptx-e4m3-f16-rne.vec", extra + "/ptx-e4m3-f16-rne-copy.vec");
  EXPECT_EQ(check_capture_folder(extra).size(), 1u);
  fs::remove(extra + "/MANIFEST");
  EXPECT_NE(join(check_capture_folder(extra)).find("no MANIFEST"), std::string::npos);
}

}  // namespace
}  // namespace softmx
