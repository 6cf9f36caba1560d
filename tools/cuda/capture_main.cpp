// tools/cuda/capture_main.cpp: softmx_capture_cuda, the conversion-capture program.
//
//   softmx_capture_cuda OUTDIR [--only TEXT]
//   softmx_capture_cuda --print-slug        the GPU's folder name under vectors/cuda/ (gpu_slug)
//
// Runs every capture of capture_calls.hpp that this binary holds for the GPU it finds (device 0)
// and writes one vector file per capture into OUTDIR (created if missing): canonical run tables
// for the exhaustive captures, case files for cvt.rs. Captures not compiled for the GPU's target
// are skipped with a line saying so; nothing is ever written for them. --only keeps the captures
// whose file name contains TEXT. Exit status: 0 when every capture that ran was written, 1 when
// any failed (each failure is printed), 2 for bad arguments or no usable GPU.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "capture_catalog.hpp"
#include "capture_host.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "device_api.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::capture {
namespace {

/// "sm_90a (__CUDA_ARCH__ 900, __CUDA_ARCH_FAMILY_SPECIFIC__ 900, __CUDA_ARCH_SPECIFIC__ 900)".
std::string build_target(const DeviceInfo& d) { return build_target_text(d.cuda_arch, d.family_specific, d.arch_specific); }

const char* needs_text(Needs n) {
  switch (n) {
    case Needs::any: return "any target";
    case Needs::fp8_cvt: return "sm_89 or later";
    case Needs::blackwell_cvt: return "a Blackwell family-specific target (sm_100f/a, 103, 110, 120, 121)";
    case Needs::cvt_rs: return "sm_100a or sm_103a";
  }
  return "?";
}

void write_file(const std::string& path, const std::string& text) {
  vec::OutputFile out(path);
  out.text() = text;
  out.commit();
}

/// The cvt.rs case file: softmx gen's level-1 cases of f32 -> to with rs and 32 random bits
/// (vectors/README.md 6: the boundary inputs, each with R in {0, 1, 2^31 - 1, 2^31, 2^32 - 1}),
/// R passed unchanged as the instruction's rbits operand.
std::string rs_cases(std::size_t index, const Call& c, const std::string& dialect, const Provenance& p, bool& ok) {
  vec::Header h;
  h.operation = vec::Operation::convert;
  h.layout = vec::Layout::cases;
  h.from = format_of(c.from);
  h.to = format_of(c.to);
  h.ctx.rounding = Rounding::rs;
  h.ctx.rbits_width = 32;
  h.ctx.saturation = Saturation::finite;
  h.ctx.tininess = Tininess::after_rounding;
  h.dialect = dialect;
  h.level = "1";
  h.seed = 1;
  h.generator = p.capture;
  std::vector<std::uint32_t> in, rb;
  vec::for_each_case(h, vec::GenOptions{}, [&](std::span<const std::uint64_t> ops) {
    in.push_back(static_cast<std::uint32_t>(ops[0]));
    rb.push_back(static_cast<std::uint32_t>(ops[1]));
  });
  const CasesResult r = run_cases(index, in, rb);
  if (r.missing) throw std::logic_error("not compiled in, yet the probe said it was");
  h.extra = {{"x-gpu", p.gpu},
             {"x-compute-capability", p.compute_capability},
             {"x-driver", p.driver},
             {"x-cuda-runtime", p.cuda_runtime},
             {"x-build-target", p.build_target},
             call_text(c),
             {"x-date", p.date},
             {"x-capture", p.capture},
             {"x-rbits-operand", "R, unchanged (the 32-bit rbits register); the same input in all four lanes"},
             {"x-lanes-agree", r.lanes_disagree ? "no (first at case " + std::to_string(r.first_disagreeing + 1) + ")"
                                                : "yes"}};
  h.validate("capture");
  // The count and digest of the cases, as gen records them, so verify can check the file whole.
  vec::record_cases(h, [&](const vec::CaseSink& sink) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::uint64_t ops[2] = {in[i], rb[i]};
      sink(ops);
    }
  });
  ok = !r.lanes_disagree;
  std::string text = vec::header_text(h) + "# IN R OUT\n";
  const int in_d = format(h.from).hex_digits(), out_d = format(h.to).hex_digits();
  for (std::size_t i = 0; i < in.size(); ++i) {
    vec::append_hex(text, in[i], in_d);
    text += ' ';
    vec::append_hex(text, rb[i], 8);
    text += ' ';
    vec::append_hex(text, r.codes[i], out_d);
    text += '\n';
  }
  return text;
}

int run(int argc, char** argv) {
  std::string outdir, only;
  bool print_slug = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--print-slug") print_slug = true;
    else if (!a.empty() && a[0] == '-') throw softmx::InputError("unknown option '" + a + "' (usage: softmx_capture_cuda OUTDIR [--only TEXT])");
    else if (outdir.empty()) outdir = a;
    else throw softmx::InputError("more than one OUTDIR ('" + outdir + "', '" + a + "')");
  }
  if (outdir.empty() && !print_slug) throw softmx::InputError("usage: softmx_capture_cuda OUTDIR [--only TEXT] | --print-slug");

  DeviceInfo d;
  try {
    d = query_device();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softmx_capture_cuda: no usable GPU: %s\n", e.what());
    return 2;
  }
  if (print_slug) {
    std::printf("%s\n", gpu_slug(d.name).c_str());
    return 0;
  }
  const std::string dialect = d.major >= 10 ? "cuda-sm100" : "cuda-sm90";
  if (d.major < 9) {
    std::fprintf(stderr, "softmx_capture_cuda: compute capability %d.%d: no dialect models it (cuda-sm90 is sm_90, cuda-sm100 Blackwell)\n",
                 d.major, d.minor);
    return 2;
  }
  const Provenance p = provenance_now(d.name, d.major, d.minor, d.driver, d.runtime, build_target(d),
                                      "softmx_capture_cuda " + std::string(kCaptureVersion));
  std::filesystem::create_directories(outdir);
  std::printf("GPU %s (compute capability %s), driver %s, CUDA runtime %s, running %s; dialect %s\n", p.gpu.c_str(),
              p.compute_capability.c_str(), p.driver.c_str(), p.cuda_runtime.c_str(), p.build_target.c_str(),
              dialect.c_str());

  int written = 0, skipped = 0, failed = 0;
  for (std::size_t i = 0; i < kCaptureCount; ++i) {
    const Call& c = kCaptures[i];
    const std::string file = file_name(c);
    if (!only.empty() && file.find(only) == std::string::npos) continue;
    const auto [key, text] = call_text(c);
    if (!(d.compiled_needs & (1u << static_cast<int>(needs(c))))) {
      std::printf("skip  %-40s %s: not compiled for %s (needs %s)\n", file.c_str(), text.c_str(), p.build_target.c_str(),
                  needs_text(needs(c)));
      ++skipped;
      continue;
    }
    try {
      bool ok = true;
      std::string table;
      double seconds = 0;
      if (c.api == Api::ptx_rs_x4) {
        table = rs_cases(i, c, dialect, p, ok);
      } else {
        const FormatId from = format_of(c.from);
        const std::uint64_t last = format(from).code_mask();
        SweepResult r = sweep_change_points(i, 0, last);
        if (r.missing) throw std::logic_error("not compiled in, yet the probe said it was");
        seconds = r.seconds;
        std::vector<std::pair<std::string, std::string>> more;
        if (is_instruction(c)) {
          more.emplace_back("x-lanes-agree", r.lanes_disagree ? "no (first at input " +
                                                                    softmx::hex(r.first_disagreeing, format(from).hex_digits()) + ")"
                                                              : "yes");
          ok = !r.lanes_disagree;
        }
        const vec::Header h = capture_header(from, format_of(c.to), rounding_of(c.mode), saturation_of(c), dialect, 0,
                                             last, p, {key, text}, std::move(more));
        reduce_to_run_table(h, std::move(r.points), table);
      }
      write_file(outdir + "/" + file, table);
      std::printf("wrote %-40s %s (%.2f s)%s\n", file.c_str(), text.c_str(), seconds,
                  ok ? "" : "  LANES DISAGREE: see x-lanes-agree");
      ++written;
      if (!ok) ++failed;
    } catch (const std::exception& e) {
      std::printf("FAIL  %-40s %s: %s\n", file.c_str(), text.c_str(), e.what());
      ++failed;
    }
  }
  std::printf("%d tables written, %d skipped (not compiled for this GPU), %d failed\n", written, skipped, failed);
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace softmx::capture

int main(int argc, char** argv) { return softmx::capture::capture_main("softmx_capture_cuda", softmx::capture::run, argc, argv); }
