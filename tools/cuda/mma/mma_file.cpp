// tools/cuda/mma/mma_file.cpp: see mma_file.hpp.
#include "mma_file.hpp"

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/operation.hpp"

namespace softmx::mma_capture {

TileBatch place(const CaseShape& s, const std::vector<MmaCase>& cases) {
  TileBatch t;
  t.k = s.k;
  t.scales = s.scales();
  t.tiles = static_cast<int>((cases.size() + kCasesPerTile - 1) / kCasesPerTile);
  const std::size_t slots = static_cast<std::size_t>(t.tiles) * kCasesPerTile;
  t.a.assign(slots * t.k, 0);
  t.b.assign(slots * t.k, 0);
  t.sa.assign(slots * t.scales, 0);
  t.sb.assign(slots * t.scales, 0);
  t.c.assign(slots, 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MmaCase& c = cases[i];
    std::copy(c.a.begin(), c.a.end(), t.a.begin() + static_cast<std::ptrdiff_t>(i * t.k));
    std::copy(c.b.begin(), c.b.end(), t.b.begin() + static_cast<std::ptrdiff_t>(i * t.k));
    std::copy(c.sa.begin(), c.sa.end(), t.sa.begin() + static_cast<std::ptrdiff_t>(i * t.scales));
    std::copy(c.sb.begin(), c.sb.end(), t.sb.begin() + static_cast<std::ptrdiff_t>(i * t.scales));
    t.c[i] = s.addend ? c.c : 0;
  }
  return t;
}

vec::Header file_header(const CaptureForm& f, const std::string& model, const capture::Provenance& p,
                        const vec::GenOptions& o) {
  vec::Header h = shape_header(f.shape, model);
  h.level = std::to_string(o.level);
  h.seed = o.seed;
  h.generator = std::string(vec::kGeneratorName);  // every form's cases are gen mma's (mma_cases.hpp)
  h.extra = {{"x-gpu", p.gpu},
             {"x-compute-capability", p.compute_capability},
             {"x-driver", p.driver},
             {"x-cuda-runtime", p.cuda_runtime},
             {"x-build-target", p.build_target},
             {"x-instruction", f.instruction},
             {"x-date", p.date},
             {"x-capture", p.capture}};
  vec::Header check = h;
  if (!find_tensor_core_model(check.model)) check.model = std::string(capture::kStandInModel);
  check.validate("softmx_capture_mma " + f.file);
  return h;
}

std::string file_text(const vec::Header& header, const CaseShape& s, const std::vector<MmaCase>& cases,
                      const std::vector<std::uint32_t>& d) {
  // The header records the count and digest of the cases, as gen's do.
  vec::Header h = header;
  vec::record_cases(h, [&](const vec::CaseSink& sink) {
    for (const MmaCase& c : cases) sink(operands(s, c));
  });
  const vec::LineLayout layout = vec::line_layout(h);
  std::string text = vec::header_text(h) + "# " + layout.columns() + "\n";
  const int d_digits = layout.results.at(0).digits;
  const std::uint64_t d_mask = layout.results.at(0).max;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::vector<std::uint64_t> ops = operands(s, cases[i]);
    for (std::size_t f = 0; f < ops.size(); ++f) text += softmx::hex(ops[f], layout.operands.at(f).digits) + " ";
    text += softmx::hex(d.at(i) & d_mask, d_digits) + "\n";
  }
  return text;
}

}  // namespace softmx::mma_capture
