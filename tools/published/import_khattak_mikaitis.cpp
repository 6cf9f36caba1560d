// tools/published/import_khattak_mikaitis.cpp: `softmx_import_km CLONE OUTDIR --commit SHA`
//
// Turns the FP8 tensor-core captures that F. A. Khattak and M. Mikaitis published with their
// MATLAB models (github.com/north-numerical-computing/MATLAB-tensor-core, BSD-2-Clause,
// folder model_validation/) into softmx mma vector files (vectors/README.md, operation mma),
// so that `softmx verify` checks a tensor-core model against them. CLONE is a checkout of that
// repository; OUTDIR receives one folder per GPU (H100/, H200/, B200/, Ada/, L40S/) plus
// MANIFEST (the source files' and the written files' SHA-256) and LICENSE (the source's
// licence, which must accompany redistributed data). vectors/published/khattak-mikaitis/
// README.md explains the provenance; this program is the exact conversion.
//
// Source files, per GPU G and FP8 format F in {E4M3, E5M2}, in CLONE/model_validation/G/F/
// (5000 lines each, line i of every file is case i):
//   a_G_F.txt, b_G_F.txt  32 f32 values as 8 hex digits, separated by blanks: row 0 of A and
//                         column 0 of B (k = 0..31 in order) before the GPU converted them with
//                         __nv_cvt_float_to_fp8(x, __NV_SATFINITE, F). This program refuses any
//                         value that F does not hold exactly, so the conversion is exact and
//                         neither the saturation nor the rounding ever acts.
//   c_G_fp32.txt          C as 32 binary digits (an f32).
//   d_G_fp32.txt          D[0][0] as 32 binary digits, f32 accumulation. Which instruction and
//                         which C depend on G (kGpus below): the authors' validation script
//                         (model_validation/Validate_TC_models.m lines 69-75) reads C from
//                         c_G_fp32.txt for every GPU except H100 and H200, where it sets C = 0
//                         "for fp8 with WGMMA"; for B200, Ada and L40S the results are
//                         mma.sync.aligned.m16n8k32.row.col.f32.F.F.f32 with C[0][0] = c
//                         (model_validation/CUDA/mma_fp8_output_fp32.cu lines 139, 234, 408,
//                         413; its GPU macros, lines 40-44, name B200, L40S, H200, H100, Ada).
//   d_G_fp16.txt          D[0][0] of mma.sync.aligned.m16n8k32.row.col.f16.F.F.f16
//                         (model_validation/CUDA/mma_fp8_output_fp16.cu), with C[0][0] =
//                         __float2half(c) (round to nearest even), written as the 32 binary
//                         digits of __half2float(D): an f16 value. L40S has none.
//
// Written files, in OUTDIR/G/:
//   mma-F-f32.vec  a = b = F, block 32, accumulator f32. H100, H200: addend no (C = +0), model
//                  hopper-fp8-wgmma; lines A_1..A_32 B_1..B_32 D. B200, Ada, L40S: addend yes,
//                  C the f32 read (exact), model as kGpus says; lines A B C D.
//   mma-F-f16.vec  accumulator f16, addend yes, model as kGpus says; lines A B C D, C the f16
//                  code nearest (ties to even) to c, D the f16 code of the f32 value read.
// A_k is the a file's value k and B_k the b file's (the CUDA programs pass them the other way
// round, A from b and B from a: the products, hence D, are the same).
//
// Every malformed line, value out of range or inexact FP8 input is an error naming the file
// and line; nothing is written unless every source file converts.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/sha256.hpp"
#include "softmx/convert.hpp"
#include "softmx/format.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"

namespace {

namespace fs = std::filesystem;
using softmx::FormatId;

constexpr int kK = 32;
constexpr std::size_t kRows = 5000;
constexpr const char* kSource = "https://github.com/north-numerical-computing/MATLAB-tensor-core";

/// One GPU's folder: what its result files are and which softmx model reproduces each (every
/// case; conformance/test_published_captures checks it, docs/TENSOR_CORES.md 6 says why).
struct Gpu {
  const char* name;        ///< the folder and the files' middle part ("H100")
  const char* device;      ///< x-gpu: the GPU as the authors name it
  bool f32_wgmma;          ///< d_G_fp32.txt is wgmma with C = 0 (Validate_TC_models.m:69-75), else mma.sync with C
  bool has_f16;            ///< d_G_fp16.txt exists
  const char* f32_model;   ///< header model of mma-F-f32.vec
  const char* f16_model;   ///< header model of mma-F-f16.vec (when has_f16)
  const char* note;        ///< x-note of every file written for this GPU, or nullptr
};

// B200 (sm_100) runs FP8 mma.sync as sm_90 does, through two FP16 HMMA steps and C added last:
// hopper-fp8-mma reproduces its f32 and f16 results, and the tcgen05 model blackwell-f8f6f4 does
// not (docs/TENSOR_CORES.md 6.2). L40S is an Ada (sm_89) GPU; its files are byte for byte
// Ada's (the same inputs, C and results).
constexpr Gpu kGpus[] = {
    {"H100", "NVIDIA H100", true, true, "hopper-fp8-wgmma", "hopper-fp8-mma", nullptr},
    {"H200", "NVIDIA H200", true, true, "hopper-fp8-wgmma", "hopper-fp8-mma", nullptr},
    {"B200", "NVIDIA B200", false, true, "hopper-fp8-mma", "hopper-fp8-mma",
     "sm_100 FP8 mma.sync follows the sm_90 HMMA path (two FP16 HMMA k16 steps, C added last), "
     "not tcgen05 kind::f8f6f4 (blackwell-f8f6f4): docs/TENSOR_CORES.md 6.2"},
    {"Ada", "NVIDIA RTX 1000 Ada Generation (models/AdaTC.m: 'Ada RTX 1000')", false, true, "ada-fp8-mma",
     "ada-fp8-mma", nullptr},
    {"L40S", "NVIDIA L40S", false, false, "ada-fp8-mma", nullptr,
     "an Ada (sm_89) GPU; the source files are byte-identical to model_validation/Ada/ (docs/TENSOR_CORES.md 6.2)"},
};

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(p.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(p.string() + ": read error");
  return s.str();
}

/// The file's lines (LF or CRLF), which must be exactly kRows.
std::vector<std::string> lines_of(const fs::path& p) {
  const std::string text = slurp(p);
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) throw Error(p.string() + " line " + std::to_string(out.size() + 1) + ": no newline at the end");
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
    at = end + 1;
  }
  if (out.size() != kRows)
    throw Error(p.string() + ": " + std::to_string(out.size()) + " lines, expected " + std::to_string(kRows));
  return out;
}

std::string where(const fs::path& p, std::size_t i) { return p.string() + " line " + std::to_string(i + 1); }

/// 32 binary digits, as the CUDA programs' bitset<32> wrote them.
std::uint32_t binary32(const std::string& s, const fs::path& p, std::size_t i) {
  if (s.size() != 32 || s.find_first_not_of("01") != std::string::npos)
    throw Error(where(p, i) + ": expected 32 binary digits, got '" + s.substr(0, 40) + "'");
  std::uint32_t v = 0;
  for (char c : s) v = (v << 1) | static_cast<std::uint32_t>(c - '0');
  return v;
}

/// A line of 32 f32 values in hex, each converted exactly into the FP8 format f.
std::vector<std::uint8_t> fp8_row(const std::string& line, FormatId f, const fs::path& p, std::size_t i) {
  std::istringstream in(line);
  std::string tok;
  std::vector<std::uint8_t> out;
  softmx::Context exact;
  exact.rounding = softmx::Rounding::rne;
  exact.saturation = softmx::Saturation::finite;
  while (in >> tok) {
    if (tok.size() != 8 || tok.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw Error(where(p, i) + ": value " + std::to_string(out.size() + 1) + " '" + tok.substr(0, 12) +
                  "' is not 8 hex digits (an f32)");
    const auto bits = static_cast<std::uint32_t>(std::stoul(tok, nullptr, 16));
    const softmx::Result r = softmx::convert(FormatId::f32, f, bits, exact);
    if (r.flags != 0)
      throw Error(where(p, i) + ": value " + std::to_string(out.size() + 1) + " (f32 " + tok + ") is not exactly a " +
                  std::string(softmx::format(f).name) + " value (flags " + std::to_string(r.flags) +
                  "): the GPU's __NV_SATFINITE rounding would act, which this import does not model");
    out.push_back(static_cast<std::uint8_t>(r.code));
  }
  if (out.size() != kK)
    throw Error(where(p, i) + ": " + std::to_string(out.size()) + " values, expected " + std::to_string(kK));
  return out;
}

struct Capture {
  const Gpu* gpu = nullptr;
  std::string fmt;  // "E4M3"
  FormatId f;
  std::vector<std::vector<std::uint8_t>> a, b;
  std::vector<std::uint32_t> c32, d32;
  std::vector<std::uint16_t> c16, d16;
  std::vector<std::pair<std::string, std::string>> sources;  // (path in the clone, SHA-256)
};

std::string sha_of(const std::string& bytes) {
  return softmx::sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

Capture read_capture(const fs::path& clone, const Gpu& g, const std::string& fmt) {
  Capture c;
  c.gpu = &g;
  c.fmt = fmt;
  const std::string gpu = g.name;
  c.f = fmt == "E4M3" ? FormatId::e4m3 : FormatId::e5m2;
  const fs::path rel = fs::path("model_validation") / gpu / fmt;
  const auto file = [&](const std::string& name) {
    const fs::path r = rel / name;
    c.sources.emplace_back(r.string(), sha_of(slurp(clone / r)));
    return clone / r;
  };
  const fs::path pa = file("a_" + gpu + "_" + fmt + ".txt"), pb = file("b_" + gpu + "_" + fmt + ".txt"),
                 pc = file("c_" + gpu + "_fp32.txt"), pd = file("d_" + gpu + "_fp32.txt"),
                 ph = g.has_f16 ? file("d_" + gpu + "_fp16.txt") : fs::path();
  const auto la = lines_of(pa), lb = lines_of(pb), lc = lines_of(pc), ld = lines_of(pd);
  const auto lh = g.has_f16 ? lines_of(ph) : std::vector<std::string>();
  softmx::Context rne;
  rne.rounding = softmx::Rounding::rne;
  rne.saturation = softmx::Saturation::none;  // __float2half: overflow gives Inf
  for (std::size_t i = 0; i < kRows; ++i) {
    c.a.push_back(fp8_row(la[i], c.f, pa, i));
    c.b.push_back(fp8_row(lb[i], c.f, pb, i));
    c.c32.push_back(binary32(lc[i], pc, i));
    c.d32.push_back(binary32(ld[i], pd, i));
    c.c16.push_back(static_cast<std::uint16_t>(softmx::convert(FormatId::f32, FormatId::f16, c.c32.back(), rne).code));
    if (!g.has_f16) continue;
    const std::uint32_t h = binary32(lh[i], ph, i);
    const softmx::Result d = softmx::convert(FormatId::f32, FormatId::f16, h, rne);
    if (d.flags != 0 || softmx::unpack(softmx::format(FormatId::f32), h).cls == softmx::ValueClass::nan)
      throw Error(where(ph, i) + ": f32 " + std::to_string(h) + " is not exactly an f16 value (an f16 result widened)");
    c.d16.push_back(static_cast<std::uint16_t>(d.code));
  }
  return c;
}

std::string vector_file(const Capture& c, bool f16, const std::string& commit) {
  namespace vec = softmx::vec;
  const Gpu& g = *c.gpu;
  const std::string gpu = g.name, fmt = std::string(softmx::format(c.f).name);
  // The f32 results of wgmma were taken with C = 0; every mma.sync result has its C.
  const bool addend = f16 || !g.f32_wgmma;
  vec::Header h;
  h.operation = vec::Operation::mma;
  h.from = h.to = c.f;
  h.block = kK;
  h.accumulator = f16 ? FormatId::f16 : FormatId::f32;
  h.addend = addend;
  h.model = f16 ? g.f16_model : g.f32_model;
  h.generator = "softmx_import_km (tools/published/import_khattak_mikaitis.cpp)";
  const std::string dir = "model_validation/" + gpu + "/" + c.fmt + "/";
  const std::string ab = dir + "a_" + gpu + "_" + c.fmt + ".txt " + dir + "b_" + gpu + "_" + c.fmt + ".txt ";
  const std::string exact_ab = "line i = source line i; A_k, B_k = a, b value k (exact in " + fmt + "); ";
  std::string instruction, files, conversion;
  if (f16) {
    instruction = "mma.sync.aligned.m16n8k32.row.col.f16." + fmt + "." + fmt + ".f16 (model_validation/CUDA/mma_fp8_output_fp16.cu)";
    files = ab + dir + "c_" + gpu + "_fp32.txt " + dir + "d_" + gpu + "_fp16.txt";
    conversion = exact_ab + "C = c rounded to f16 (nearest even, as __float2half); D = the f16 value read";
  } else if (g.f32_wgmma) {
    instruction = "wgmma with D = 0 (model_validation/Validate_TC_models.m: C = 0 'for fp8 with WGMMA'; "
                  "the capture program is not published)";
    files = ab + dir + "d_" + gpu + "_fp32.txt";
    conversion = exact_ab + "C = +0 (the c file is not used); D = the f32 read";
  } else {
    instruction = "mma.sync.aligned.m16n8k32.row.col.f32." + fmt + "." + fmt + ".f32 (model_validation/CUDA/mma_fp8_output_fp32.cu)";
    files = ab + dir + "c_" + gpu + "_fp32.txt " + dir + "d_" + gpu + "_fp32.txt";
    conversion = exact_ab + "C = the f32 read from c (as the program passes it); D = the f32 read";
  }
  h.extra = {
      {"x-source", std::string(kSource) + " (BSD-2-Clause: see LICENSE beside this folder)"},
      {"x-commit", commit},
      {"x-gpu", g.device},
      {"x-instruction", instruction},
      {"x-files", files},
      {"x-conversion", conversion},
  };
  if (g.note) h.extra.emplace_back("x-note", g.note);
  h.validate("import");
  // The count and digest of the rows, as gen records them, so verify can check the file whole.
  vec::record_cases(h, [&](const vec::CaseSink& sink) {
    std::vector<std::uint64_t> ops;
    for (std::size_t i = 0; i < kRows; ++i) {
      ops.clear();
      for (int k = 0; k < kK; ++k) ops.push_back(c.a[i][static_cast<std::size_t>(k)]);
      for (int k = 0; k < kK; ++k) ops.push_back(c.b[i][static_cast<std::size_t>(k)]);
      if (addend) ops.push_back(f16 ? c.c16[i] : c.c32[i]);
      sink(ops);
    }
  });
  const vec::LineLayout layout = vec::line_layout(h);
  std::string s = vec::header_text(h);
  s += "# " + layout.columns() + "\n";
  for (std::size_t i = 0; i < kRows; ++i) {
    for (int k = 0; k < kK; ++k) {
      vec::append_hex(s, c.a[i][static_cast<std::size_t>(k)], 2);
      s += ' ';
    }
    for (int k = 0; k < kK; ++k) {
      vec::append_hex(s, c.b[i][static_cast<std::size_t>(k)], 2);
      s += ' ';
    }
    if (f16) {
      vec::append_hex(s, c.c16[i], 4);
      s += ' ';
      vec::append_hex(s, c.d16[i], 4);
    } else {
      if (addend) {
        vec::append_hex(s, c.c32[i], 8);
        s += ' ';
      }
      vec::append_hex(s, c.d32[i], 8);
    }
    s += '\n';
  }
  return s;
}

void write_file(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.flush();
  if (!out) throw Error(p.string() + ": write error: " + std::strerror(errno));
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string commit;
  std::vector<std::string> pos;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--commit" && i + 1 < args.size()) commit = args[++i];
    else pos.push_back(args[i]);
  }
  if (pos.size() != 2 || commit.size() != 40 || commit.find_first_not_of("0123456789abcdef") != std::string::npos) {
    std::cerr << "usage: softmx_import_km CLONE OUTDIR --commit SHA\n"
                 "  CLONE: a checkout of " << kSource << " at commit SHA (40 lower-case hex digits)\n";
    return 2;
  }
  const fs::path clone = pos[0], out = pos[1];
  const std::string licence = slurp(clone / "LICENCE");
  std::vector<Capture> caps;
  for (const Gpu& g : kGpus)
    for (const char* fmt : {"E4M3", "E5M2"}) caps.push_back(read_capture(clone, g, fmt));

  // Everything read and checked: write.
  std::string manifest =
      "# Khattak & Mikaitis' FP8 tensor-core captures as softmx mma vector files (README.md here).\n"
      "# source: " + std::string(kSource) + "\n# commit: " + commit +
      "\n# licence: BSD-2-Clause, Copyright (c) 2025, Faizan A. Khattak and Mantas Mikaitis (LICENSE)\n"
      "# made by: softmx_import_km CLONE OUTDIR --commit " + commit + " (tools/published/import_khattak_mikaitis.cpp)\n"
      "# source files: SHA-256<TAB>path in the source repository\n";
  for (const Capture& c : caps)
    for (const auto& [path, sha] : c.sources) manifest += "source\t" + sha + "\t" + path + "\n";
  manifest += "# written files: SHA-256<TAB>path here<TAB>what\n";
  write_file(out / "LICENSE", licence);
  manifest += "file\t" + sha_of(licence) + "\tLICENSE\tthe source repository's LICENCE, verbatim\n";
  std::size_t written = 0;
  for (const Capture& c : caps)
    for (bool f16 : {false, true}) {
      const Gpu& g = *c.gpu;
      if (f16 && !g.has_f16) continue;
      const std::string rel = std::string(g.name) + "/mma-" +
                              (c.f == FormatId::e4m3 ? std::string("e4m3") : std::string("e5m2")) +
                              (f16 ? "-f16.vec" : "-f32.vec");
      const std::string text = vector_file(c, f16, commit);
      write_file(out / rel, text);
      ++written;
      const std::string cfile = "C from c_" + std::string(g.name) + "_fp32.txt, model ";
      manifest += "file\t" + sha_of(text) + "\t" + rel + "\t" +
                  (f16            ? "mma.sync f16, " + cfile + g.f16_model
                   : g.f32_wgmma ? "wgmma f32, C = 0, model " + std::string(g.f32_model)
                                  : "mma.sync f32, " + cfile + g.f32_model) +
                  "\n";
    }
  write_file(out / "MANIFEST", manifest);
  std::cout << "wrote " << written << " vector files, LICENSE and MANIFEST to " << out.string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "softmx_import_km: " << e.what() << "\n";
    return 1;
  }
}
