// emulator/dot/tensor_core_instructions.cpp: see tensor_core_instructions.hpp.
#include "softmx/tensor_core_instructions.hpp"

#include <algorithm>
#include <cctype>

#include "softmx/tensor_core.hpp"

namespace softmx {
namespace {

// One row per instruction a user runs. The model column must name a model of
// tensor_core_models(); test_tensor_core_instructions checks every row and that every model has
// a row. Sources: docs/TENSOR_CORES.md (sections 3, 6, 7) and docs/research/blackwell-mma.md.
constexpr TensorCoreInstruction kRows[] = {
    {"sm_89", "L40S, RTX 4090, RTX 6000 Ada", "mma.sync.aligned.m16n8k32", "e4m3, e5m2", "none", "f32, f16",
     "ada-fp8-mma", "sm89-mma-sync-fp8", true,
     "Khattak & Mikaitis' Ada and L40S captures, f32 and f16 with C: 6 files x 5000, 0 mismatches (the L40S files "
     "are the Ada files); two fused sums of 16 products with C, as MMA-Sim"},
    {"sm_90", "H100, H200", "wgmma.mma_async (kind FP8, K 32)", "e4m3, e5m2", "none", "f32, f16", "hopper-fp8-wgmma",
     "sm90-wgmma", true,
     "Khattak & Mikaitis' H100 and H200 captures, f32 with C = 0: 4 files x 5000, 0 mismatches (f16 untested)"},
    {"sm_90", "H100, H200", "mma.sync.aligned.m16n8k32", "e4m3, e5m2", "none", "f16, f32", "hopper-fp8-mma",
     "sm90-mma-sync-fp8", true,
     "Khattak & Mikaitis' H100 and H200 captures, f16 with C: 4 files x 5000, 0 mismatches (f32 untested on sm_90); "
     "the compiler runs it as two FP16 HMMA k16 steps"},
    {"sm_100", "B200, GB200", "tcgen05.mma kind::f8f6f4", "e4m3, e5m2, e3m2, e2m3, e2m1", "none", "f32, f16",
     "blackwell-f8f6f4", "sm100-tcgen05-f8f6f4", false, "MMA-Sim (fdpa.py T-FDPA) and Khattak & Mikaitis' B200TC.m"},
    {"sm_100", "B200, GB200", "tcgen05.mma kind::mxf8f6f4 (scale_vec::1X)", "e4m3, e5m2, e3m2, e2m3, e2m1",
     "UE8M0 per 32", "f32", "blackwell-mxf8f6f4", "sm100-tcgen05-mxf8f6f4", false, "MMA-Sim (fdpa.py ST-FDPA)"},
    {"sm_100", "B200, GB200", "tcgen05.mma kind::mxf4 (scale_vec::2X)", "e2m1", "UE8M0 per 32", "f32", "blackwell-mxf4",
     "sm100-tcgen05-mxf4", false, "MMA-Sim (fdpa.py GST-FDPA)"},
    {"sm_100", "B200, GB200", "tcgen05.mma kind::mxf4nvf4 (scale_vec::2X/4X, UE8M0)", "e2m1", "UE8M0 per 32 or 16",
     "f32", "blackwell-mxf4", "sm100-tcgen05-mxf4nvf4-ue8m0", false, "MMA-Sim (fdpa.py GST-FDPA)"},
    {"sm_100", "B200, GB200", "tcgen05.mma kind::mxf4nvf4 (scale_vec::4X, UE4M3)", "e2m1", "UE4M3 per 16", "f32",
     "blackwell-nvf4", "sm100-tcgen05-nvf4", false, "MMA-Sim (fdpa.py GST-FDPA)"},
    // Not the tcgen05 model: Khattak & Mikaitis' B200 captures follow the HMMA emulation that
    // sm_90's mma.sync runs (the tcgen05 model fails 1793 / 1764 of 5000 f32 cases,
    // test_published_captures B200MmaSyncRunsTheHmmaStepsNotTcgen05); hopper-fp8-mma is that
    // emulation.
    {"sm_100", "B200, GB200", "mma.sync.aligned.m16n8k32", "e4m3, e5m2", "none", "f32, f16", "hopper-fp8-mma",
     "sm100-mma-sync-fp8", true,
     "Khattak & Mikaitis' B200 captures, f32 and f16 with C: 4 files x 5000, 0 mismatches: the HMMA emulation, not "
     "tcgen05"},
    {"sm_120", "RTX 5090, RTX PRO 6000", "mma.sync.aligned.m16n8k32", "e4m3, e5m2, e3m2, e2m3, e2m1", "none",
     "f32, f16", "blackwell-f8f6f4", "sm120-mma-sync-fp8", false,
     "MMA-Sim (nv_ptx.py, sm_120); an RTX 5090 probe summary agrees (F = 25, C in the fused sum; "
     "docs/research/published-tensor-core-data.md), no bit-level captures"},
    {"sm_120", "RTX 5090, RTX PRO 6000", "mma.sync.aligned.m16n8k32 ... block_scale (1X)",
     "e4m3, e5m2, e3m2, e2m3, e2m1", "UE8M0 per 32", "f32", "blackwell-mxf8f6f4", "sm120-mma-sync-mxf8f6f4", false,
     "MMA-Sim (fdpa.py ST-FDPA)"},
    {"sm_120", "RTX 5090, RTX PRO 6000", "mma.sync.aligned.m16n8k64 ... block_scale (2X/4X)", "e2m1",
     "UE8M0 per 32 or 16", "f32", "blackwell-mxf4", "sm120-mma-sync-mxf4", false, "MMA-Sim (fdpa.py GST-FDPA)"},
    {"sm_120", "RTX 5090, RTX PRO 6000", "mma.sync.aligned.m16n8k64 ... block_scale (4X, UE4M3)", "e2m1",
     "UE4M3 per 16", "f32", "blackwell-nvf4", "sm120-mma-sync-nvf4", false, "MMA-Sim (fdpa.py GST-FDPA)"},
};

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

/// A word or a text reduced for matching: lower case, '_', '-' and '.' dropped (so "sm90" finds
/// "sm_90", "mma-sync" finds "mma.sync" and "kind::mxf4" finds "kind::mxf4").
std::string key(std::string_view s) {
  std::string r;
  for (char c : lower(s))
    if (c != '_' && c != '-' && c != '.') r += c;
  return r;
}

std::string row_text(const TensorCoreInstruction& r) {
  std::string s;
  for (std::string_view f : {r.arch, r.gpus, r.instruction, r.elements, r.scales, r.accumulator, r.model, r.alias})
    s.append(f).append(" ");
  return key(s);
}

std::string pad(std::string_view s, std::size_t w) {
  std::string r(s);
  if (r.size() < w) r.append(w - r.size(), ' ');
  return r;
}

}  // namespace

std::span<const TensorCoreInstruction> tensor_core_instructions() { return kRows; }

std::vector<const TensorCoreInstruction*> find_tensor_core_instructions(std::string_view query) {
  std::vector<std::string> words;
  std::string w;
  for (char c : query) {
    if (c == ' ' || c == ',' || c == '\t') {
      if (!w.empty()) words.push_back(key(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(key(w));
  std::vector<const TensorCoreInstruction*> out;
  for (const TensorCoreInstruction& r : kRows) {
    const std::string t = row_text(r);
    if (std::all_of(words.begin(), words.end(), [&](const std::string& x) { return x.empty() || t.find(x) != std::string::npos; }))
      out.push_back(&r);
  }
  return out;
}

const TensorCoreModel* tensor_core_model_by_alias(std::string_view alias) {
  for (const TensorCoreInstruction& r : kRows)
    if (r.alias == alias) {
      for (const TensorCoreModel* m : tensor_core_models())
        if (m->name() == r.model) return m;
    }
  return nullptr;
}

std::string tensor_core_instruction_table(const std::vector<const TensorCoreInstruction*>& rows) {
  if (rows.empty()) return "no instruction matches (softmx models lists them all)\n";
  std::size_t w[6] = {4, 4, 11, 8, 6, 5};
  for (const TensorCoreInstruction* r : rows) {
    w[0] = std::max(w[0], r->arch.size());
    w[1] = std::max(w[1], r->instruction.size());
    w[2] = std::max(w[2], r->elements.size() + 3 + r->scales.size());
    w[3] = std::max(w[3], r->accumulator.size());
    w[4] = std::max(w[4], r->model.size());
    w[5] = std::max(w[5], r->alias.size());
  }
  std::string s = pad("arch", w[0]) + "  " + pad("instruction", w[1]) + "  " + pad("elements / scales", w[2]) + "  " +
                  pad("C and D", w[3]) + "  " + pad("model", w[4]) + "  " + pad("alias", w[5]) + "  evidence\n";
  for (const TensorCoreInstruction* r : rows) {
    s += pad(r->arch, w[0]) + "  " + pad(r->instruction, w[1]) + "  " +
         pad(std::string(r->elements) + " / " + std::string(r->scales), w[2]) + "  " + pad(r->accumulator, w[3]) + "  " +
         pad(r->model, w[4]) + "  " + pad(r->alias, w[5]) + "  " + (r->confirmed ? "confirmed: " : "UNCONFIRMED: ") +
         std::string(r->evidence) + " (" + std::string(r->gpus) + ")\n";
  }
  return s;
}

std::string tensor_core_instruction_markdown() {
  std::string s =
      "| architecture (GPUs) | instruction | elements | block scales | C and D | model | alias | evidence |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const TensorCoreInstruction& r : kRows)
    s += "| " + std::string(r.arch) + " (" + std::string(r.gpus) + ") | `" + std::string(r.instruction) + "` | " +
         std::string(r.elements) + " | " + std::string(r.scales) + " | " + std::string(r.accumulator) + " | `" +
         std::string(r.model) + "` | `" + std::string(r.alias) + "` | " + (r.confirmed ? "**confirmed**: " : "unconfirmed: ") +
         std::string(r.evidence) + " |\n";
  return s;
}

}  // namespace softmx
