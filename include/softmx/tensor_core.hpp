// softmx/tensor_core.hpp: a parameterised model of tensor-core (matrix-unit) accumulation,
// for DotGeneral over MX blocks and for one output element of an mma instruction
// (docs/TENSOR_CORES.md gives every parameter with its published value, its source and what
// published hardware data confirmed).
//
// The model, for one output element D = sum_k A_k * B_k + C:
//
//   1. Terms. Every element is split as v = (-1)^s * N * 2^(e - m), where m is its format's
//      fraction bits, e = max(floor(log2 |v|), emin) its exponent clamped to the format's
//      smallest normal exponent (so a subnormal keeps e = emin and N < 2^m) and N the integer
//      significand. A product term is N_a * N_b * 2^((e_a - m_a) + (e_b - m_b) + X), exact, where
//      X is the sum of the two block scales' exponents (0 for mma, which has no scales). The
//      addend C (f32 or f16) is one term too, split the same way.
//   2. Instructions and groups. The products are taken one instruction at a time: n
//      consecutive products (n = product_order.size(), or every product when the order is
//      empty), the last instruction possibly short. Within an instruction of products
//      first .. first + n - 1, position i holds product first + product_order[i] (none when
//      that is past the last product; empty order: position i holds product first + i), and
//      the groups are the runs of group_size positions, in order. A group whose positions hold
//      no product is skipped.
//   3. The running sum. Each instruction keeps a running value r: with AddendStage::first_group
//      r starts as the accumulator (C for the first instruction, then the previous
//      instruction's D), with AddendStage::after_products it starts empty. With
//      addend_in_group, r is one more term of each group (step 4) and the group's result
//      becomes r; without it, the group's terms are summed and rounded alone (steps 4-6) and
//      r becomes r + that result, exact, rounded again onto the grid (step 6). An empty r
//      takes no part in either.
//   4. Alignment. The group's reference exponent E is the largest alignment exponent of its
//      non-zero terms: e_a + e_b + X for a product (AlignReference::operand_exponents: the
//      significand product N_a * N_b / 2^(m_a + m_b) lies in [0, 4), as in MMA-Sim) or
//      floor(log2 |term|) (AlignReference::product_exponent); e for r. Every term is then cut
//      to a multiple of 2^(E - F), F = alignment_bits: truncated toward zero
//      (AlignRounding::truncate) or rounded to nearest, ties to even (nearest_even). Zero terms
//      take no part in E, except that with a zero_exponent z every group's E is at least z
//      (MMA-Sim's e_zero, the exponent a zero term offers: with an f32/f16 accumulator and
//      z <= its emin this is the same as a floor; docs/research/blackwell-mma.md 2).
//   5. The group's cut terms are added exactly (no intermediate rounding, no width limit: a
//      carry out of the top never loses a bit).
//   6. The exact group sum is rounded once to the accumulator grid: `fraction_bits` bits
//      after the leading bit, exponent range of the accumulator format (f32: 2^-126 .. 2^127,
//      f16: 2^-14 .. 2^15) with gradual underflow whose quantum is 2^(emin - fraction_bits)
//      (f32 with 13 bits: 2^-139), under `mode`. A value at or above 2^(emax + 1) after rounding
//      becomes Inf of its sign, whatever the mode (MMA-Sim's behaviour; unverified).
//   7. The end of an instruction. With AddendStage::first_group its D is r. With
//      AddendStage::after_products its D is the accumulator + r, exact, rounded once onto the
//      grid under `addend_mode` (the accumulator is absent only for the first instruction of a
//      DotGeneral, which has no C: then D = r).
//   8. D is the last instruction's D, encoded in the accumulator format (f32: a 13-bit grid
//      value is an f32 value, so D is always a valid f32 code).
//
// With an empty product_order and AddendStage::first_group the instructions are invisible:
// the accumulator runs through every group of K products in k order.
//
// Specials follow the steps: each group's result (and each instruction's, and step 7's) is the
// next step's running value or accumulator, NaN and Inf included, as the terms' own arithmetic
// gives them (MMA-Sim's chained T-FDPAs; docs/TENSOR_CORES.md 5). A step whose terms hold a NaN
// gives NaN; one whose terms hold +Inf and -Inf gives NaN; one whose terms hold Inf of one sign
// gives that Inf; a term may be an Inf product (an e5m2 Inf element times a non-zero one), C =
// Inf, or a running value or accumulator that an earlier step made Inf by overflow. So any NaN
// operand (element, C, or an E8M0 scale 0xFF) or Inf * 0 gives the model's NaN code and Inf
// operands of both signs give NaN, wherever they sit; Inf operands of one sign give that Inf,
// unless a step they never entered overflowed to the other sign and the two meet: NaN (Ada's
// first group of 16 overflowing an f16 accumulator to +Inf before a -Inf product in the second;
// hopper-fp8-mma's HMMA steps overflowing to +Inf before C = -Inf is added). An overflow is
// kept by every later step that takes it as a term; where a step does not (after_products, or
// addend_in_group false) a later overflow to the other sign meets it: NaN. Zero results of a
// group: -0 only when every term (the products and, when it joins, r) is a negative zero;
// otherwise +0, or -0 when the mode is rd. The same for the addition of step 7 under
// addend_mode (IEEE 754 6.3).
//
// Flags (tensor cores raise none; these describe the model's result against the exact sum):
// inexact when D differs from the exact value of sum A_k * B_k + C, overflow when a rounding
// reached Inf (not when an Inf operand makes D and the exact value Inf), underflow when D is
// below 2^emin (or zero from a non-zero exact sum) and inexact, invalid for a NaN made from
// non-NaN operands (Inf * 0, Inf - Inf, an overflowed step meeting an Inf of the other sign:
// then with overflow and inexact) or a signalling NaN operand.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/dot.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// How each term is cut to the group's alignment quantum 2^(E - F).
enum class AlignRounding : std::uint8_t {
  truncate,      ///< toward zero (magnitude truncated): Fasi et al. 2021, MMA-Sim, Khattak & Mikaitis
  nearest_even,  ///< to nearest, ties to even (for exploring models; not a published hardware value)
};

/// Which exponent of a product term the alignment reference E is the maximum of.
enum class AlignReference : std::uint8_t {
  operand_exponents,  ///< e_a + e_b (+ scales): significand products in [0, 4) (MMA-Sim)
  product_exponent,   ///< floor(log2 |A_k * B_k|) (+ scales): the exact product normalised
};

/// Where the accumulator (C, then the previous instruction's D) enters an instruction.
enum class AddendStage : std::uint8_t {
  first_group,     ///< it is the running value the groups start from (MMA-Sim's t_fdpa, FHMP21)
  after_products,  ///< the groups start empty; it is added to their result last (header step 7)
};

/// The rounding of a fused sum into the accumulator (C and D) format.
struct AccumulatorRounding {
  /// Significand bits kept after the leading bit: 1..23 for f32 (23 is f32 itself, 13 is
  /// MMA-Sim's e8m13), 1..10 for f16.
  int fraction_bits = 23;
  /// The rounding of each group's sum: any deterministic mode (not rs).
  Rounding mode = Rounding::rz;
  /// AddendStage::after_products: the rounding of accumulator + the instruction's result
  /// (header step 7), onto the same grid. Any deterministic mode; unused with first_group.
  Rounding addend_mode = Rounding::rne;
};

/// How block scales enter a model (mma_scaled() and DotGeneral's block scales).
enum class ScaleApplication : std::uint8_t {
  /// No block-scaled form: mma_scaled() refuses (DotGeneral still adds its block scales'
  /// exponents X to each product, header step 1).
  none,
  /// ST-FDPA (MMA-Sim): each product's exponent gets the two scale exponents X, exactly as
  /// header step 1 says; E8M0 scales only (tcgen05 kind::mxf8f6f4).
  per_product,
  /// GST-FDPA (MMA-Sim fdpa.py:199-227): products in groups of `scale_group` are summed
  /// exactly, each group sum times sigma_a * sigma_b (the two scales' full values; UE4M3 scales
  /// have 3 fraction bits) is one term whose alignment exponent is eps_a + eps_b (the scales'
  /// exponents, UE4M3 clamped at -6), or zero_exponent when all its products are zero or a
  /// scale is zero (a group whose products cancel keeps eps_a + eps_b). The group terms and C
  /// are aligned to E = max(those, e(C) or zero_exponent for C = 0), cut to F fraction bits
  /// toward zero, summed exactly and rounded once (f32 accumulator only). K is taken in runs of
  /// group_size products, each run's result the next one's C. E2M1 elements only (kind::mxf4,
  /// kind::mxf4nvf4).
  per_group,
};

/// The parameters of a tensor-core model (docs/TENSOR_CORES.md). Checked by TensorCoreModel's
/// constructor.
struct TensorCoreParams {
  std::string name;                  ///< the model's name ("hopper-fp8-wgmma")
  int group_size = 32;               ///< products per fused sum, 1..4096
  /// The products' positions within one instruction (header step 2): a permutation of
  /// 0 .. n-1 with n a multiple of group_size, n <= 4096; empty: k order, one instruction.
  std::vector<int> product_order;
  int alignment_bits = 13;           ///< F: bits kept below the reference's unit 2^E, 0..1000
  AlignRounding align_rounding = AlignRounding::truncate;
  AlignReference align_reference = AlignReference::operand_exponents;
  bool addend_in_group = true;       ///< the running value r is aligned with each group's products (step 3)
  AddendStage addend_stage = AddendStage::first_group;  ///< where C enters (steps 3 and 7)
  AccumulatorRounding f32{13, Rounding::rz, Rounding::rne};   ///< when the accumulator is f32
  AccumulatorRounding f16{10, Rounding::rne, Rounding::rne};  ///< when the accumulator is f16
  bool flush_subnormal_inputs = false;   ///< subnormal elements and C read as zero (same sign)
  bool flush_subnormal_outputs = false;  ///< results below 2^emin become zero (same sign)
  /// The exponent every zero term offers to E (header step 4; MMA-Sim's e_zero); none: zero
  /// terms take no part in E.
  std::optional<int> zero_exponent;
  ScaleApplication scale_application = ScaleApplication::none;
  int scale_group = 16;                  ///< per_group: products per exactly summed group
  /// False for a model that has not been checked against any hardware capture (the Blackwell
  /// and Ada models of docs/TENSOR_CORES.md 7); reports and `softmx dialects` say so.
  bool confirmed = true;
  std::uint32_t nan_f32 = 0x7FFFFFFF;    ///< the f32 NaN code of a NaN result (MMA-Sim: 0x7FFFFFFF)
  std::uint16_t nan_f16 = 0x7FFF;        ///< the f16 NaN code of a NaN result (MMA-Sim: 0x7FFF)
};

/// One non-zero term of a traced group: (-1)^neg * n * 2^q exactly, cut to
/// (-1)^neg * kept * 2^kept_q (kept_q = max(q, quantum): a term already on the grid is kept
/// as it is, kept = n).
struct TensorCoreTraceTerm {
  /// The product's k (0-based, across all groups); -1 for the running value r (C, or the
  /// accumulator, or the previous group's result); in an addend step -1 for the accumulator
  /// and -2 for the instruction's result.
  int index = 0;
  bool neg = false;
  std::uint64_t n = 0;
  int q = 0;
  int align_exponent = 0;   ///< the exponent this term offers to the reference E
  std::uint64_t kept = 0;
  int kept_q = 0;
  bool kept_exact = true;   ///< the cut lost nothing
  /// Per-group (GST) models: the term is the exact sum of the products index .. index + count -
  /// 1 of one scale group, times its two block scales (n * 2^q is that scaled sum); 1 otherwise.
  int count = 1;
};

/// One traced group (its terms, reference, quantum and result), or the addend step of header
/// step 7 (addend_step: terms the accumulator and the instruction's result, added exactly; no
/// reference or cut).
struct TensorCoreTraceGroup {
  /// The group's products (k, 0-based) in position order; empty for an addend step.
  std::vector<int> products;
  /// When those are consecutive: products first .. first + count - 1; otherwise first = -1
  /// and count = products.size().
  int first = 0, count = 0;
  bool addend_step = false;
  int reference = 0;         ///< E (meaningless when every term is zero)
  int quantum = 0;           ///< E - F
  std::vector<TensorCoreTraceTerm> terms;
  Unpacked sum;              ///< the exact sum of the cut terms (64 leading bits + sticky)
  std::uint32_t result = 0;  ///< the accumulator code after this group
};

/// The steps of one mma() or mma_scaled() evaluation (for reports).
struct TensorCoreTrace {
  bool special = false;  ///< decided by NaN/Inf operands (or a NaN scale); no groups
  std::vector<TensorCoreTraceGroup> groups;
  Result result;
  /// mma_scaled(): the scale format (e8m0: UE8M0, e4m3: UE4M3), the products per scale, and the
  /// scale codes of A and B as given (scale j covers products j * scale_block ..); scale_block
  /// is 0 for an unscaled mma. In per_product models each product term's q already includes the
  /// scales' exponents; in per_group models each term is a scale group's sum (count > 1).
  FormatId scale_format = FormatId::e8m0;
  std::size_t scale_block = 0;
  std::vector<std::uint8_t> sa, sb;
};

/// A tensor-core accumulation model: an AccumulationModel for DotGeneral over MX blocks, and a
/// direct mma entry point. Deterministic and thread-safe (no state after construction).
class TensorCoreModel final : public AccumulationModel {
 public:
  /// Throws std::invalid_argument naming the bad parameter.
  explicit TensorCoreModel(TensorCoreParams p);

  const TensorCoreParams& params() const { return p_; }
  std::string_view name() const override { return p_.name; }

  /// DotGeneral: the products of every block pair in order (pair 0's k products, then pair
  /// 1's, ...), each scaled exactly by 2^((SA_j - 127) + (SB_j - 127)), with C = +0 and an f32
  /// accumulator. `out` is not used: the model's own rounding decides (hardware has no modes).
  Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context& out) const override;

  /// DotGeneral for ScaleApplication::per_group models with the block scales read as
  /// scale_format: e8m0 (UE8M0, as dot_general() reads them) or e4m3 (UE4M3: the e4m3 value of
  /// code & 0x7F, 0x7F and 0xFF NaN, as mma_scaled() reads them; kind::mxf4nvf4 4X). C is +0
  /// and absent, as in dot_general(). Throws std::invalid_argument for another model or scale
  /// format, and as dot_general() for blocks it cannot take (e2m1 blocks of one size, a
  /// multiple of scale_group).
  Result dot_general_gst(std::span<const BlockRef> a, std::span<const BlockRef> b, FormatId scale_format) const;

  /// One output element of an mma: D = model(sum_k a_k * b_k + C). Preconditions (checked,
  /// std::invalid_argument): a.size() == b.size() >= 1; a_format and b_format MX element
  /// formats with every code in range; acc is f32 or f16 and c a code of it. The result is a
  /// code of acc with the flags above.
  Result mma(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format, std::span<const std::uint8_t> b,
             FormatId acc, std::uint32_t c) const;

  /// A block-scaled mma (tcgen05 kind::mxf8f6f4 / mxf4 / mxf4nvf4 and the sm_120 mma.sync
  /// block_scale forms): as mma() with scale codes sa[j], sb[j] for products
  /// j * scale_block .. (j + 1) * scale_block - 1. scale_format is e8m0 (UE8M0: 2^(code - 127),
  /// 0xFF NaN) or e4m3 (UE4M3: the e4m3 value of code & 0x7F, sign bit ignored as MMA-Sim's
  /// truncate_e4m3_to_ue4m3; 0x7F NaN; per_group models only). Models with
  /// ScaleApplication::none refuse (std::invalid_argument). A NaN scale gives the NaN code
  /// even for zero products. Preconditions (std::invalid_argument): those of mma(),
  /// scale_block >= 1 divides a.size(), sa and sb hold a.size() / scale_block codes; for
  /// per_group models the formats are e2m1, acc is f32, scale_group divides scale_block and
  /// a.size() is a multiple of group_size.
  Result mma_scaled(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                    std::span<const std::uint8_t> b, FormatId scale_format, std::size_t scale_block,
                    std::span<const std::uint8_t> sa, std::span<const std::uint8_t> sb, FormatId acc,
                    std::uint32_t c) const;

  /// mma() with every step recorded.
  TensorCoreTrace trace(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                        std::span<const std::uint8_t> b, FormatId acc, std::uint32_t c) const;

  /// mma_scaled() with every step recorded (the same preconditions and result; the trace's
  /// result equals mma_scaled()'s).
  TensorCoreTrace trace_scaled(FormatId a_format, std::span<const std::uint8_t> a, FormatId b_format,
                               std::span<const std::uint8_t> b, FormatId scale_format, std::size_t scale_block,
                               std::span<const std::uint8_t> sa, std::span<const std::uint8_t> sb, FormatId acc,
                               std::uint32_t c) const;

 private:
  TensorCoreParams p_;
};

/// Hopper (sm_90) FP8 mma.sync m16n8k32: the compiler runs it as two FP16 HMMA k16 steps
/// (products k mod 4 in {0, 1}, then {2, 3}; F = 25) and adds C last. The f16 accumulator is
/// confirmed by Khattak & Mikaitis' published H100/H200 captures; B200 (sm_100) FP8 mma.sync
/// runs the same steps: their B200 f32 and f16 captures fit it (docs/TENSOR_CORES.md 6).
const TensorCoreModel& hopper_fp8_mma_model();
/// Hopper FP8 wgmma as MMA-Sim (Xie et al. 2025) and Khattak & Mikaitis 2025 publish it: one
/// fused sum of 32 products, F = 13, f32 results on e8m13 (RZ). The f32 result with C = 0 is
/// confirmed by their published H100/H200 captures (docs/TENSOR_CORES.md 6).
const TensorCoreModel& hopper_fp8_wgmma_model();
/// Blackwell tcgen05 kind::f8f6f4 and sm_120 FP8 mma.sync as MMA-Sim models them: one fused
/// sum of 32 products and C, F = 25, zero exponent -133, RZ to f32 (RNE to f16). Unconfirmed.
const TensorCoreModel& blackwell_f8f6f4_model();
/// Blackwell kind::mxf8f6f4 (tcgen05, sm_120 mma.sync block_scale 1X): blackwell-f8f6f4 with
/// the UE8M0 block scales added to each product's exponent (ST-FDPA). Unconfirmed.
const TensorCoreModel& blackwell_mxf8f6f4_model();
/// Blackwell kind::mxf4 / mxf4nvf4 with UE8M0 scales (block 32, or 16 for mxf4nvf4 4X): GST-FDPA,
/// groups of 16 exact, F = 35, zero exponent -139, K runs of 64, RZ to f32. Unconfirmed.
const TensorCoreModel& blackwell_mxf4_model();
/// Blackwell kind::mxf4nvf4 with UE4M3 scales, block 16: the same GST-FDPA. Unconfirmed.
const TensorCoreModel& blackwell_nvf4_model();
/// Ada (sm_89) FP8 mma.sync as MMA-Sim models it: fused sums of 16 products with C (K = 32 is
/// two, chained), F = 13, f32 results RZ to e8m13, f16 RNE. Khattak & Mikaitis' Ada captures
/// (f32 and f16, C != 0) and L40S captures (f32) fit it with 0 mismatches, checked by
/// test_published_captures (docs/TENSOR_CORES.md 6).
const TensorCoreModel& ada_fp8_mma_model();
/// The named tensor-core models, in a fixed order.
std::span<const TensorCoreModel* const> tensor_core_models();
/// The named models' names, comma-separated, in tensor_core_models() order (for messages).
std::string tensor_core_model_names();
/// A named tensor-core model, or nullptr. Takes the models' names and the aliases that name them
/// by instruction ("sm90-wgmma", "sm100-mma-sync-fp8"; tensor_core_instructions.hpp); the model
/// found always gives its own name().
const TensorCoreModel* find_tensor_core_model(std::string_view name);

}  // namespace softmx
