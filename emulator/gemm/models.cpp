// emulator/gemm/models.cpp: the registry of the GEMM's kernel families (models.hpp), which
// gemm_on dispatches by and gemm_model_kernels() (gemm.hpp) gives to the documentation.
#include "gemm/models.hpp"

#include <array>
#include <string_view>

namespace softmx::gemm_detail {
namespace {

// What every family hands to the reference per output, besides its own reasons.
constexpr std::string_view kExactReference[] = {
    "vectors holding NaN or Inf codes or NaN scales",
    "an exact-zero sum (its sign follows every zero product) or a sum that C cancels to zero",
    "a scale spread beyond 128 bits",
    "C NaN or Inf",
    "block scales other than E8M0 whose significands do not fit the integer lanes (exact_scales_fit: "
    "e4m3 or e5m2 with bf16, f16 or f32 scales, e2m1 with f32), or NaN or Inf scales",
};
constexpr std::string_view kSequentialReference[] = {
    "block scales other than E8M0 whose values do not fit the double lanes (seq_scales_fit: f32 scales), "
    "or NaN or Inf scales",
    "vectors holding NaN or Inf codes or NaN scales",
    "rounding mode rs (the reference, with the context's random bits)",
    "the FPU not in its default state (read, never set)",
    "element values not exact in f32, or products that could leave f32's normal range (a runtime "
    "format with a far bias)",
    "a step that reaches f32's subnormal steps or overflows (a scaled block sum: below 2^-126 or beyond "
    "f32's largest)",
    "C NaN or Inf",
};
constexpr std::string_view kTensorCoreReference[] = {
    "vectors holding NaN or Inf codes or NaN scales",
    "group sums beyond 64-bit lanes, or more than 90 alignment bits",
    "an f16 destination (the model's f16 accumulator)",
    "C NaN, Inf, subnormal, or off the accumulator grid of a model that adds C by grid additions",
    "the FPU not in its default state (read, never set)",
    "a step that leaves the range the kernel handles, or a scale spread beyond 128 bits",
};
constexpr std::string_view kGstReference[] = {
    "vectors holding NaN or Inf codes or NaN scales",
    "elements other than E2M1, k not a multiple of the block, or a block not a multiple of 16",
    "C or an f16/bf16 destination (dot_general_to per output)",
    "an overflow, or C NaN or Inf (mma_pairs)",
    "the FPU not in its default state (read, never set)",
};

constexpr std::array<GemmPath, 4> kPaths{{
    {{"exact", "exact",
      "block sums as exact integers in double lanes, shifted by their scales into an exact "
      "accumulator per output in vector lanes (one int64 where the scale spreads allow, else 128 "
      "bits), rounded once (C added exactly)",
      kExactReference},
     exact_takes, exact_run},
    {{"fp32-sequential", "fp32-sequential",
      "the FPU's f32 additions in order, each addition's exact error (TwoSum) for the flags and the "
      "other rounding modes; blocks proven exact (by bounds, or on AVX-512 by chains rounded down and "
      "up that agree) without error terms; a block's sum scaled in the exponent field (E8M0), or times "
      "both scale values exactly in double lanes and rounded once into f32 (other scale formats)",
      kSequentialReference},
     sequential_takes, sequential_run},
    {{"tensor-core", "tensor-core models (TensorCoreModel) but the per-group ones",
      "per group the largest exponent, every product shifted and cut in integer lanes (truncation "
      "with the operands' exponents: an f32 product truncated by the conversion), the group sum "
      "normalised and rounded onto the accumulator grid (rz: by the f32 conversion); the exact sum "
      "decides the flags",
      kTensorCoreReference},
     tensor_core_takes, tensor_core_run},
    {{"gst-fdpa", "blackwell-mxf4, blackwell-nvf4 (per-group scales)",
      "each group of 16 summed exactly in float lanes, E from C and the groups' scale exponents, the "
      "group terms and C cut in 64-bit lanes, RZ to f32; the exact sum decides the flags",
      kGstReference},
     gst_takes, gst_run},
}};

}  // namespace

std::span<const GemmPath> gemm_paths() { return kPaths; }

Flags run_problem(const Problem& P, unsigned threads) {
  // UE4M3 scales under exact or fp32-sequential, and any other block scale format: the kernels
  // read E8M0 scales (powers of two); the reference takes the scale format (BLOCKS.md 5), but
  // for the exact and fp32-sequential kernels with the scales decoded (exact_scales,
  // seq_scales: Problem).
  if (P.kern && (P.exact_scales || P.seq_scales || (!P.ue4m3_ref && !P.any_ref)))
    for (const GemmPath& p : kPaths)
      if (p.takes(P)) return p.run(P, threads);
  return reference_run(P, threads);
}

}  // namespace softmx::gemm_detail

namespace softmx {

std::span<const GemmModelKernel> gemm_model_kernels() {
  static const std::array<GemmModelKernel, gemm_detail::kPaths.size()> v = [] {
    std::array<GemmModelKernel, gemm_detail::kPaths.size()> r{};
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = gemm_detail::kPaths[i].info;
    return r;
  }();
  return v;
}

}  // namespace softmx
