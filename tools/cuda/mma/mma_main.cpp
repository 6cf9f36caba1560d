// tools/cuda/mma/mma_main.cpp: softmx_capture_mma, the tensor-core captures.
//
//   softmx_capture_mma OUTDIR [--level 1|2] [--count N] [--seed S] [--only TEXT]
//   softmx_capture_mma --list
//
// For every form of mma_catalog.hpp that this GPU and build can run (the others are listed at
// the end, one "skip" line per reason with the number of forms and the reason), makes the cases (mma_cases.hpp; level 2 by default, each form's
// default count unless --count), runs them through the tensor cores (mma_device.cu) and writes
// OUTDIR/<form's file> (mma_file.hpp): operation mma, the model the capture is to be checked
// against, the provenance x- keys, one line per case with the device's D. --only TEXT keeps the
// forms whose file name contains TEXT. --list prints the forms (file, model, what it needs,
// instruction) without touching a GPU. Exit status 0 when every form that could run was
// written, 1 when one failed, 2 for a usage error or no usable GPU.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include "capture_host.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "mma_catalog.hpp"
#include "mma_device_api.hpp"
#include "mma_file.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::mma_capture {
namespace {

const char* feature_text(Feature f) {
  switch (f) {
    case Feature::mma_fp8: return "sm_89+";
    case Feature::mma_sm120: return "sm_120 family";
    case Feature::mma_sm120_4x_ue8m0: return "sm_120 family, PTX 9.1";
    case Feature::tcgen05: return "sm_100a/103a/110a";
  }
  return "?";
}

std::uint64_t number(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end || v[0] == '-') throw softmx::InputError(opt + " expects a decimal number, got '" + v + "'");
  return n;
}

int run(int argc, char** argv) {
  std::string outdir, only;
  vec::GenOptions base;
  base.level = 2;
  std::optional<std::uint64_t> count;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw softmx::InputError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--list") list = true;
    else if (a == "--only") only = value();
    else if (a == "--level") {
      const std::string v = value();
      if (v != "1" && v != "2") throw softmx::InputError("--level expects 1 or 2, got '" + v + "'");
      base.level = v == "1" ? 1 : 2;
    } else if (a == "--count") count = number(a, value());
    else if (a == "--seed") base.seed = number(a, value());
    else if (!a.empty() && a[0] == '-') throw softmx::InputError("unknown option '" + a + "'");
    else if (outdir.empty()) outdir = a;
    else throw softmx::InputError("more than one OUTDIR ('" + outdir + "', '" + a + "')");
  }
  if (list) {
    for (const CaptureForm& f : capture_forms())
      std::printf("%-52s %-20s %-24s %s\n", f.file.c_str(), f.model.empty() ? "(by GPU)" : f.model.c_str(),
                  feature_text(f.needs), f.instruction.c_str());
    return 0;
  }
  if (outdir.empty())
    throw softmx::InputError("usage: softmx_capture_mma OUTDIR [--level 1|2] [--count N] [--seed S] [--only TEXT] | --list");

  MmaDeviceInfo d;
  try {
    d = query_mma_device();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softmx_capture_mma: no usable GPU: %s\n", e.what());
    return 2;
  }
  const capture::Provenance p = capture::provenance_now(
      d.name, d.major, d.minor, d.driver, d.runtime, capture::build_target_text(d.cuda_arch, d.family_specific, d.arch_specific),
      "softmx_capture_mma " + std::string(capture::kCaptureVersion));
  const DeviceStatus status{d.major, d.minor, d.features, p.build_target, d.nvcc_major, d.nvcc_minor};
  std::filesystem::create_directories(outdir);
  std::printf("GPU %s (compute capability %s), driver %s, CUDA runtime %s, running %s (built with CUDA %d.%d)\n",
              p.gpu.c_str(), p.compute_capability.c_str(), p.driver.c_str(), p.cuda_runtime.c_str(), p.build_target.c_str(),
              d.nvcc_major, d.nvcc_minor);

  int written = 0, skipped = 0, failed = 0, blackwell_skipped = 0;
  // Skipped forms, grouped by their reason (in the order first met): one line per reason.
  std::vector<std::pair<std::string, std::vector<std::string>>> skips;
  for (const CaptureForm& f : capture_forms()) {
    if (!only.empty() && f.file.find(only) == std::string::npos) continue;
    if (const auto why = skip_reason(f, status)) {
      auto it = std::find_if(skips.begin(), skips.end(), [&](const auto& s) { return s.first == *why; });
      if (it == skips.end()) it = skips.insert(skips.end(), {*why, {}});
      it->second.push_back(f.file);
      ++skipped;
      if (f.needs != Feature::mma_fp8) ++blackwell_skipped;
      continue;
    }
    try {
      vec::GenOptions o = base;
      if (o.level == 2) o.count = count ? *count : f.default_count;
      const std::vector<MmaCase> cases = make_cases(f.shape, o);
      const TileBatch t = place(f.shape, cases);
      const std::vector<std::uint32_t> dv = run_tiles(f.dev, t.tiles, t.k, t.scales, t.a, t.b, t.sa, t.sb, t.c);
      const vec::Header h = file_header(f, model_for(f, d.major, d.minor), p, o);
      vec::OutputFile out(outdir + "/" + f.file);
      out.text() = file_text(h, f.shape, cases, dv);
      out.commit();
      std::printf("wrote %-52s %zu cases, model %s (%s)\n", f.file.c_str(), cases.size(), h.model.c_str(),
                  f.instruction.c_str());
      ++written;
    } catch (const std::exception& e) {
      std::printf("FAIL  %-52s %s\n", f.file.c_str(), e.what());
      ++failed;
    }
  }
  for (const auto& [why, files] : skips)
    std::printf("skip  %zu form%s (%s%s): %s\n", files.size(), files.size() == 1 ? "" : "s", files.front().c_str(),
                files.size() == 1 ? "" : (" .. " + files.back()).c_str(), why.c_str());
  std::printf("%d mma files written, %d skipped, %d failed\n", written, skipped, failed);
  if (blackwell_skipped)
    std::printf("%d Blackwell forms skipped: they need a Blackwell GPU (compute capability 10.x/11.0 for tcgen05, 12.x for "
                "the sm_120 mma.sync forms) and a build for it; this GPU is %s, compute capability %s\n",
                blackwell_skipped, p.gpu.c_str(), p.compute_capability.c_str());
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace softmx::mma_capture

int main(int argc, char** argv) { return softmx::capture::capture_main("softmx_capture_mma", softmx::mma_capture::run, argc, argv); }
