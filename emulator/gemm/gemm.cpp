// emulator/gemm/gemm.cpp: the GEMM entry points (include/softmx/gemm.hpp): gemm, dot_pairs and
// mma_pairs choose the instruction set's kernels (kernels_of), gemm_on checks the operands and
// options together and builds the Problem, and the registry (models.hpp) runs it. The parts:
// driver.hpp (what they share: sides, the problem, tiles, blocking, threads, the work items'
// prologue), operands.cpp (checks, make_side, gemm_rows/columns), reference.cpp (dot_general
// per output), exact_block.hpp and one driver per kernel family (exact_model.cpp,
// sequential_model.cpp, tensor_core_model.cpp, gst_model.cpp), models.cpp (the registry),
// tables.cpp (per-code tables) and kernels.hpp (the tile kernels, per instruction set).
#include "softmx/gemm.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dot/tensor_core_dot.hpp"
#include "gemm/models.hpp"
#include "softmx/batch.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx {
namespace {

// ---- kernels by instruction set -----------------------------------------------------------------

/// Every GemmKernel with its name, in supported_gemm_kernels() order.
constexpr std::array<std::pair<GemmKernel, const char*>, 4> kKernelNames{{
    {GemmKernel::reference, "reference"},
    {GemmKernel::portable, "portable"},
    {GemmKernel::avx2, "avx2"},
    {GemmKernel::avx512, "avx512"},
}};

const gemm_detail::Kernels& kernels_for(GemmKernel k) {
  switch (k) {
    case GemmKernel::avx512: return gemm_detail::kernels_avx512();
    case GemmKernel::avx2: return gemm_detail::kernels_avx2();
    default: return gemm_detail::kernels_portable();
  }
}

/// The entry points' prologue: the kernels of `kernel` (default: default_gemm_kernel()), null
/// for the reference; throws when this CPU cannot run it.
const gemm_detail::Kernels* kernels_of(const char* what, std::optional<GemmKernel> kernel) {
  const GemmKernel k = kernel.value_or(default_gemm_kernel());
  if (!gemm_kernel_supported(k))
    throw std::invalid_argument(std::string(what) + ": this CPU cannot run the " + name(k) + " kernel");
  return k == GemmKernel::reference ? nullptr : &kernels_for(k);
}

}  // namespace

const char* name(GemmKernel k) {
  for (const auto& [kernel, text] : kKernelNames)
    if (kernel == k) return text;
  return "?";
}

bool gemm_kernel_supported(GemmKernel k) {
  switch (k) {
    case GemmKernel::reference:
    case GemmKernel::portable: return true;
    case GemmKernel::avx2: return isa_supported(Isa::avx2) && __builtin_cpu_supports("fma");
    case GemmKernel::avx512: return isa_supported(Isa::avx512) && __builtin_cpu_supports("fma");
  }
  return false;
}

std::span<const GemmKernel> supported_gemm_kernels() {
  static const std::vector<GemmKernel> v = [] {
    std::vector<GemmKernel> r;
    for (const auto& [k, text] : kKernelNames)
      if (gemm_kernel_supported(k)) r.push_back(k);
    return r;
  }();
  return v;
}

GemmKernel default_gemm_kernel() { return supported_gemm_kernels().back(); }

namespace gemm_detail {

Flags gemm_on(const Kernels* kern, bool pairs, const GemmOperand& a, const GemmOperand& b,
                           const GemmOptions& options, std::span<std::uint32_t> c, std::span<Flags> flags,
              const MmaAddend* mma) {
  check_shape(a, false);
  check_shape(b, true);
  if (a.k != b.k)
    throw std::invalid_argument("gemm: A's vectors hold " + std::to_string(a.k) + " codes and B's " + std::to_string(b.k) +
                                "; they need the same k");
  if (a.block != b.block)
    throw std::invalid_argument("gemm: A's blocks hold " + std::to_string(a.block) + " codes and B's " +
                                std::to_string(b.block) + "; they need the same block size");
  std::size_t mn = 0;
  if (pairs) {
    if (a.rows != b.rows)
      throw std::invalid_argument("dot_pairs: A holds " + std::to_string(a.rows) + " vectors and B " +
                                  std::to_string(b.rows) + "; they need the same number (one per pair)");
    mn = a.rows;
  } else if (!mul_add(a.rows, b.rows, 0, mn)) {
    mn = ~std::size_t{0};
  }
  const std::string what = pairs ? "dot_pairs" : "gemm";
  const std::string shape = pairs ? std::to_string(mn) + " pairs" : "M x N = " + std::to_string(a.rows) + " x " + std::to_string(b.rows);
  if (c.size() < mn)
    throw std::invalid_argument(what + ": c holds " + std::to_string(c.size()) + " entries; " + shape + " needs " +
                                std::to_string(mn));
  if (!flags.empty() && flags.size() < mn)
    throw std::invalid_argument(what + ": flags holds " + std::to_string(flags.size()) + " entries; " + shape +
                                " needs " + std::to_string(mn) + " (or pass none)");
  const AccumulationModel& model = options.model ? *options.model : exact_accumulation();

  const auto* tc = dynamic_cast<const TensorCoreModel*>(&model);
  const bool exact_or_seq = &model == &exact_accumulation() || &model == &fp32_sequential_accumulation();
  if (any_scale_format(a) || any_scale_format(b)) {
    const std::string na = any_scale_format(a) ? std::string(a.block_scale_format->name) : std::string(format(a.scale_format).name);
    const std::string nb = any_scale_format(b) ? std::string(b.block_scale_format->name) : std::string(format(b.scale_format).name);
    if (!any_scale_format(a) || !any_scale_format(b) || !(*a.block_scale_format == *b.block_scale_format))
      throw std::invalid_argument(what + ": A's scales are " + na + " and B's " + nb + "; they need the same scale format");
    if (!exact_or_seq)
      throw std::invalid_argument(what + ": the accumulation model " + std::string(model.name()) + " reads E8M0 (or UE4M3) " +
                                  "block scales; scale format " + na + " takes exact or fp32-sequential");
    if (mma) throw std::invalid_argument(what + ": block_scale_format " + na + " is not a tensor-core scale format");
  } else if (a.scale_format != b.scale_format)
    throw std::invalid_argument(what + ": A's scales are " + std::string(format(a.scale_format).name) + " and B's " +
                                std::string(format(b.scale_format).name) + "; they need the same scale format");
  if (!any_scale_format(a) && a.scale_format == FormatId::e4m3 && !exact_or_seq &&
      !(tc && tc->params().scale_application == ScaleApplication::per_group))
    throw std::invalid_argument(what + ": UE4M3 (e4m3) scales need a model with per-group scales (" +
                                "blackwell-mxf4, blackwell-nvf4), or exact or fp32-sequential, not " +
                                std::string(model.name()));
  const bool runtime = !a.format.is_named() || !b.format.is_named();
  if (runtime && &model != &exact_accumulation() && &model != &fp32_sequential_accumulation())
    throw std::invalid_argument(what + ": the accumulation model " + std::string(model.name()) +
                                " models hardware for the named element formats; a runtime element (" +
                                std::string((a.format.is_named() ? b : a).format.name()) +
                                ") takes exact or fp32-sequential");
  // The kernels' accumulator range for runtime elements with E8M0 (or UE4M3) scales; any other
  // scale format goes to dot_general per output, which checks its own (wider) range.
  if (runtime && !any_scale_format(a)) check_runtime_range(what, a, b);
  Problem P;
  // GST (run_gst) reads every element as it is: flush_subnormal_inputs does not apply.
  const bool flush = tc && tc->params().flush_subnormal_inputs &&
                     tc->params().scale_application != ScaleApplication::per_group;
  P.a = make_side(a, false, flush);
  P.b = make_side(b, true, flush);
  P.M = a.rows;
  P.N = b.rows;
  P.K = a.k;
  P.block = a.block;
  P.nb = a.blocks();
  P.model = &model;
  // As dot_general(): the output is an f32 (or options.to: f16, bf16), where by_destination
  // means none (SEMANTICS 4.1).
  P.ctx = resolve(ocp_dialect(), options.to, options.out);
  P.dest = options.to != FormatId::f32 || !options.addend.empty();
  P.to = &format(options.to);
  if (P.dest) {
    if (mma) throw std::invalid_argument(what + ": mma_pairs takes its C in f32 (GemmOptions::to and addend unused)");
    if (options.to != FormatId::f32 && options.to != FormatId::f16 && options.to != FormatId::bf16)
      throw std::invalid_argument(what + ": the destination (GemmOptions::to) is f32, f16 or bf16, not " +
                                  std::string(P.to->name));
    if (!options.addend.empty()) {
      if (options.addend.size() < mn)
        throw std::invalid_argument(what + ": addend holds " + std::to_string(options.addend.size()) + " codes; " +
                                    shape + " needs " + std::to_string(mn) + " (or pass none)");
      const std::uint64_t mask = P.to->code_mask();
      for (std::size_t l = 0; l < mn; ++l)
        if (options.addend[l] > mask)
          throw std::invalid_argument(what + ": addend[" + std::to_string(l) + "] = " + std::to_string(options.addend[l]) +
                                      " is not a code of " + std::string(P.to->name));
      P.dot_c = options.addend.data();
    }
    // A tensor-core model's destinations (f32 and f16; f32 only under per-group scales), asked
    // with no block pairs, so that a refusal comes before any work (tensor_core_dot.hpp).
    if (tc) (void)detail::tensor_core_dot_general(*tc, {}, {}, FormatId::e8m0, options.to, std::nullopt);
    // Another model that defines no addend or destination refuses in the reference, per output.
  }
  P.c = c.data();
  P.flags = flags.empty() ? nullptr : flags.data();
  P.kern = kern;
  P.tc = tc;
  P.pairs = pairs;
  if (any_scale_format(a)) {
    P.any_ref = a.block_scale_format;
  } else if (a.scale_format == FormatId::e4m3) {
    P.ue4m3 = tc;
    if (exact_or_seq) {
      P.ue4m3_ref = &ue4m3_format();
    }
  }
  // Non-E8M0 scales under the exact model: the exact kernel, with each scale's significand
  // folded into the packed elements, where exact_scales_fit allows (else the reference).
  if (kern && &model == &exact_accumulation() && (P.any_ref || P.ue4m3_ref)) {
    const Format& sf = P.any_ref ? *P.any_ref : *P.ue4m3_ref;
    const std::uint32_t mask = P.any_ref ? ~std::uint32_t{0} : 0x7Fu;  // UE4M3: code & 0x7F, as the reference
    if (exact_scales_fit(P.a, P.b, sf, P.K)) {
      decode_scales(P.a, sf, mask);
      decode_scales(P.b, sf, mask);
      P.exact_scales = true;
    }
  }
  // Under fp32-sequential: its kernel, with each block sum rounded once times the two scale
  // values, where seq_scales_fit allows (else the reference).
  if (kern && &model == &fp32_sequential_accumulation() && (P.any_ref || P.ue4m3_ref)) {
    const Format& sf = P.any_ref ? *P.any_ref : *P.ue4m3_ref;
    const std::uint32_t mask = P.any_ref ? ~std::uint32_t{0} : 0x7Fu;  // UE4M3: code & 0x7F, as the reference
    if (seq_scales_fit(sf)) {
      decode_scale_values(P.a, sf, mask);
      decode_scale_values(P.b, sf, mask);
      P.seq_scales = true;
    }
  }
  if (mma) {
    P.addend = mma->c.data();
    P.scaled = mma->scaled;
  }
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  return run_problem(P, threads);
}


}  // namespace gemm_detail

Flags gemm(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
           std::span<Flags> flags) {
  return gemm_detail::gemm_on(kernels_of("gemm", options.kernel), false, a, b, options, c, flags);
}

Flags dot_pairs(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
                std::span<Flags> flags) {
  return gemm_detail::gemm_on(kernels_of("dot_pairs", options.kernel), true, a, b, options, c, flags);
}

void mma_pairs(const GemmOperand& a, const GemmOperand& b, const TensorCoreModel& model, bool scaled,
               std::span<const std::uint32_t> c, std::span<std::uint32_t> d, unsigned threads,
               std::optional<GemmKernel> kernel) {
  const std::size_t n = a.rows;
  if (c.size() < n || d.size() < n)
    throw std::invalid_argument("mma_pairs: C holds " + std::to_string(c.size()) + " and D " + std::to_string(d.size()) +
                                " codes; " + std::to_string(n) + " pairs need that many each");
  if (!a.format.is_named() || !b.format.is_named())
    throw std::invalid_argument("mma_pairs: the tensor-core models take the named element formats, not " +
                                std::string((a.format.is_named() ? b : a).format.name()));
  if (!scaled)  // one block of unit scales per vector: the products are the elements' own
    for (const GemmOperand* o : {&a, &b}) {
      if (o->block != o->k)
        throw std::invalid_argument("mma_pairs: an unscaled operand is one block of k = " + std::to_string(o->k) +
                                    " codes, not blocks of " + std::to_string(o->block));
      for (std::size_t r = 0; r < o->rows; ++r)
        if (o->scales.size() > r * o->scale_row_stride && o->scales[r * o->scale_row_stride] != 127)
          throw std::invalid_argument("mma_pairs: an unscaled operand's scale codes are 127 (1.0)");
    }
  // The model's own checks of the formats, scales and block, once, on a zero line.
  {
    const std::vector<std::uint8_t> za(a.k, 0), zb(b.k, 0);
    if (scaled) {
      const std::size_t nb = a.blocks();
      const std::vector<std::uint8_t> s1(nb, a.scale_format == FormatId::e4m3 ? 0x38 : 127);
      (void)model.mma_scaled(a.format.id(), za, b.format.id(), zb, a.scale_format, a.block, s1, s1, FormatId::f32, 0);
    } else {
      (void)model.mma(a.format.id(), za, b.format.id(), zb, FormatId::f32, 0);
    }
  }
  GemmOptions o;
  o.model = &model;
  o.threads = threads;
  const gemm_detail::MmaAddend add{c, scaled};
  gemm_detail::gemm_on(kernels_of("mma_pairs", kernel), true, a, b, o, d, {}, &add);
}

}  // namespace softmx
