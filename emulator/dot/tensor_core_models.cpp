// emulator/dot/tensor_core_models.cpp: the published tensor-core models (TensorCoreParams per
// instruction family; docs/TENSOR_CORES.md has the citations and the open points), the list
// tensor_core_models() and the lookups by name. The instructions that name them are the table
// in tensor_core_instructions.cpp; the arithmetic is tensor_core.cpp.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"

namespace softmx {

namespace {

// The published models (docs/TENSOR_CORES.md has the citations and the open points).
/// mma.sync m16n8k32 FP8 on sm_90 has no FP8 tensor-core instruction behind it: the compiler
/// converts the FP8 operands to FP16 and issues two HMMA k16 steps (NVIDIA, cutlass issue
/// 1986). Each 32-bit register of four FP8 codes becomes two f16x2 registers; the first HMMA
/// takes the low pair of each (k mod 4 in {0, 1}), the second the high pair. Khattak &
/// Mikaitis' H100/H200 f16 captures and their B200 (sm_100) f32 and f16 mma.sync captures
/// (vectors/published/khattak-mikaitis) fit exactly this, C added last; docs/TENSOR_CORES.md 6.1
/// and 6.2 list what they confirm and what is assumed.
std::vector<int> hmma_pair_order() {
  std::vector<int> order;
  for (int half = 0; half < 2; ++half)
    for (int k = 0; k < 32; ++k)
      if ((k % 4) / 2 == half) order.push_back(k);
  return order;
}

TensorCoreParams hopper_mma_params() {
  TensorCoreParams p;
  p.name = "hopper-fp8-mma";
  p.group_size = 16;                     // one HMMA m16n8k16 step (the data: 16, not 32)
  p.product_order = hmma_pair_order();   // 0 1 4 5 .. 28 29, then 2 3 6 7 .. 30 31 (the data)
  p.alignment_bits = 25;                 // Khattak & Mikaitis' H100 FP16 HMMA: 2 bits beyond 23 (the data: >= 18)
  p.align_rounding = AlignRounding::truncate;            // their model; the data cannot tell at F = 25
  p.align_reference = AlignReference::operand_exponents; // their model; the data cannot tell at F = 25
  p.addend_in_group = true;              // the second HMMA takes the first one's D as its C (the data)
  p.addend_stage = AddendStage::after_products;  // C is added after both HMMAs (the data, f16)
  p.f32 = {23, Rounding::rz, Rounding::rne};     // HMMA f32 output RZ (their model); the C add: assumed RN
  p.f16 = {10, Rounding::rne, Rounding::rne};    // HMMA f16 output RNE, C added with RNE (the data)
  return p;
}

TensorCoreParams hopper_wgmma_params() {
  TensorCoreParams p;
  p.name = "hopper-fp8-wgmma";
  p.group_size = 32;             // MMA-Sim: L_max = 32 bytes / 1-byte FP8 = 32 products (the data: 32)
  p.alignment_bits = 13;         // F = 13 (the data: exactly 13)
  p.align_rounding = AlignRounding::truncate;             // torch.trunc (the data: not nearest)
  p.align_reference = AlignReference::operand_exponents;  // fp_to_sig_exp (the data: not the product's)
  p.addend_in_group = true;      // t_fdpa: C joins the fused sum (the data has C = 0: untested)
  p.f32 = {13, Rounding::rz, Rounding::rne};   // RZ-E8M13 (the data: 13 bits, RZ)
  p.f16 = {10, Rounding::rne, Rounding::rne};  // RNE-FP16 (no data)
  return p;
}

// The Blackwell and Ada models of docs/research/blackwell-mma.md 8 (MMA-Sim, peichenxie/MMA-Sim
// 0a5ce40 src/mmasim/mmasim/arithmetic/fdpa.py, with the e_zero values bksaiki/fpy 0f09612 passes
// to its classes). No capture of a Blackwell tensor core confirms the Blackwell ones (an RTX 5090
// probe agrees with blackwell-f8f6f4 on exact sums: docs/TENSOR_CORES.md 7); ada-fp8-mma is
// reproduced by Khattak & Mikaitis' Ada and L40S captures (docs/TENSOR_CORES.md 6.2), and its
// `confirmed` flag changes together with test_blackwell_mma's list of unconfirmed models.
TensorCoreParams fdpa_params(const char* name, int group, int F, int output_bits, int zero_exp) {
  TensorCoreParams p;
  p.name = name;
  p.group_size = group;
  p.alignment_bits = F;
  p.align_rounding = AlignRounding::truncate;             // torch.trunc (fdpa.py:78)
  p.align_reference = AlignReference::operand_exponents;  // frexp_and_normalize (fdpa.py:25-42)
  p.addend_in_group = true;                               // C is one more term of the fused sum (fdpa.py:76)
  p.addend_stage = AddendStage::first_group;              // K > L: the result is the next C (fdpa.py:108-118)
  p.f32 = {output_bits, Rounding::rz, Rounding::rne};     // RZ-FP32 / RZ-E8M13 (fdpa.py:55-60)
  p.f16 = {10, Rounding::rne, Rounding::rne};             // RNE-FP16 (fdpa.py:49-51)
  p.zero_exponent = zero_exp;
  p.confirmed = false;
  return p;
}

TensorCoreParams blackwell_mxf8f6f4_params() {
  TensorCoreParams p = fdpa_params("blackwell-mxf8f6f4", 32, 25, 23, -133);  // MMA_ST_FDPA(25, RZ-FP32, 32, -133)
  p.scale_application = ScaleApplication::per_product;
  return p;
}

/// Ada's FP8 mma.sync: two T-FDPAs of 16 chained (nv_ptx.py:28-49). Confirmed: Khattak &
/// Mikaitis' Ada and L40S captures (vectors/published/khattak-mikaitis/Ada, L40S: f32 and f16,
/// with C; 6 files x 5000, 0 mismatches) pin every parameter but the zero exponent
/// (docs/TENSOR_CORES.md 6.2).
TensorCoreParams ada_params() {
  TensorCoreParams p = fdpa_params("ada-fp8-mma", 16, 13, 13, -132);
  p.confirmed = true;
  return p;
}

TensorCoreParams gst_params(const char* name) {
  TensorCoreParams p = fdpa_params(name, 64, 35, 23, -139);  // MMA_GST_FDPA(16, 35, RZ-FP32, 64, -139)
  p.scale_application = ScaleApplication::per_group;
  p.scale_group = 16;
  return p;
}

const TensorCoreModel kHopperMma(hopper_mma_params());
const TensorCoreModel kHopperWgmma(hopper_wgmma_params());
const TensorCoreModel kBlackwellF8f6f4(fdpa_params("blackwell-f8f6f4", 32, 25, 23, -133));
const TensorCoreModel kBlackwellMxf8f6f4(blackwell_mxf8f6f4_params());
const TensorCoreModel kBlackwellMxf4(gst_params("blackwell-mxf4"));
const TensorCoreModel kBlackwellNvf4(gst_params("blackwell-nvf4"));
const TensorCoreModel kAdaMma(ada_params());
constexpr std::array<const TensorCoreModel*, 7> kModels{&kHopperMma,         &kHopperWgmma,   &kBlackwellF8f6f4,
                                                        &kBlackwellMxf8f6f4, &kBlackwellMxf4, &kBlackwellNvf4,
                                                        &kAdaMma};

}  // namespace

const TensorCoreModel& hopper_fp8_mma_model() { return kHopperMma; }
const TensorCoreModel& hopper_fp8_wgmma_model() { return kHopperWgmma; }
const TensorCoreModel& blackwell_f8f6f4_model() { return kBlackwellF8f6f4; }
const TensorCoreModel& blackwell_mxf8f6f4_model() { return kBlackwellMxf8f6f4; }
const TensorCoreModel& blackwell_mxf4_model() { return kBlackwellMxf4; }
const TensorCoreModel& blackwell_nvf4_model() { return kBlackwellNvf4; }
const TensorCoreModel& ada_fp8_mma_model() { return kAdaMma; }
std::span<const TensorCoreModel* const> tensor_core_models() { return kModels; }

std::string tensor_core_model_names() {
  std::string s;
  for (const TensorCoreModel* m : kModels) s += (s.empty() ? "" : ", ") + std::string(m->name());
  return s;
}

const TensorCoreModel* find_tensor_core_model(std::string_view name) {
  for (const TensorCoreModel* m : kModels)
    if (m->name() == name) return m;
  // An instruction's alias ("sm90-wgmma"; tensor_core_instructions.hpp).
  return tensor_core_model_by_alias(name);
}

}  // namespace softmx
