// softmx/dot.hpp: Dot and DotGeneral over MX blocks (OCP MX v1.0 section 6; docs/BLOCKS.md 5).
//
//   Dot(A, B)        = X_A * X_B * sum_i P^A_i * P^B_i            over one block pair
//   DotGeneral(A, B) = sum_j Dot(A_j, B_j)                         over n block pairs
//
// The result is an f32 code with flags, or (DotDestination) an f16 or bf16 code, with an addend
// C of the destination's format added as an MX dot-product unit adds it (MXDOTP: the products
// summed, scaled, added to an FP32 C and rounded once). How the sum is accumulated is a model:
// `exact` (the exact sum rounded once), `fp32-sequential` (FP32 additions in order, as
// BLOCKS.md defines), or any AccumulationModel (a hardware model implements the interface: the
// tensor-core models of softmx/tensor_core.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/format.hpp"

namespace softmx {

/// One MX block: its element format, its scale code and its element codes (one code per byte,
/// unpacked; see pack.hpp to unpack stored data). A runtime element format (docs/BLOCKS.md 1.1)
/// is format = FormatId::runtime with `element` pointing at its descriptor, which must outlive
/// the call; `element` is ignored for a named format.
///
/// `scale` is an E8M0 code (2^(scale - 127), 0xFF NaN; above 0xFF an error) unless
/// `scale_format` points at another scale format (block.hpp mx_scale_reason: ue4m3, ue5m3, e4m3,
/// bf16, f16, f32, ...; docs/BLOCKS.md 1.2), whose code it then is (bits above the format's
/// width are an error); the descriptor must outlive the call. Such blocks take the exact and
/// fp32-sequential models (BLOCKS.md 5).
struct BlockRef {
  FormatId format;
  std::uint32_t scale;
  std::span<const std::uint8_t> codes;
  const Format* element = nullptr;
  const Format* scale_format = nullptr;  ///< nullptr (or E8M0's descriptor): E8M0
};

/// Where a DotGeneral's result goes, and what is added to it (docs/BLOCKS.md 5, "Addend and
/// destination"). The default is DotGeneral itself: an f32 result and no addend.
struct DotDestination {
  /// The format of the result and of C: f32, f16 or bf16 (anything else: std::invalid_argument).
  FormatId to = FormatId::f32;
  /// The addend C, a code of `to` (a code above the format's mask: std::invalid_argument);
  /// nullopt: no addend, the sum alone. C = +0 is an addend like any other: it differs from no
  /// addend only in the sign of a zero result (under exact, -0 + +0 = +0 except under rd).
  std::optional<std::uint32_t> c;
};

/// An accumulation model: how DotGeneral sums. Implementations must be deterministic.
class AccumulationModel {
 public:
  virtual ~AccumulationModel() = default;
  /// The model's name ("exact", "fp32-sequential").
  virtual std::string_view name() const = 0;
  /// DotGeneral over the block pairs (a[j], b[j]), as an f32 code with flags. Preconditions
  /// (checked by dot_general()): a.size() == b.size() >= 1 and a[j].codes.size() ==
  /// b[j].codes.size() >= 1 for every j.
  virtual Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b,
                             const Context& out) const = 0;
  /// DotGeneral into dst.to with the addend dst.c, as a code of dst.to with flags (each model's
  /// rule: dot_general() below). Preconditions: those of dot_general(a, b, out), dst checked
  /// (to f32, f16 or bf16, c a code of it) and `out` resolved for dst.to (dot_general() sees to
  /// both). exact and fp32-sequential define every destination; a TensorCoreModel (which this
  /// default serves: tensor_core.hpp cannot override it) its f32 and f16 accumulators with C as
  /// its own C, and refuses bf16 (std::invalid_argument). For any other model the default is
  /// dot_general(a, b, out) when dst is f32 without C, and std::invalid_argument naming the
  /// model otherwise: a model that can add C or round into f16 or bf16 overrides this.
  virtual Result dot_general_to(std::span<const BlockRef> a, std::span<const BlockRef> b, const DotDestination& dst,
                                const Context& out) const;
};

/// The built-in models.
const AccumulationModel& exact_accumulation();
const AccumulationModel& fp32_sequential_accumulation();
/// Looks a model up by name: "exact", "fp32-sequential", "mxdotp", or a tensor-core model by
/// its name or an instruction's alias (softmx/tensor_core.hpp, tensor_core_instructions.hpp);
/// nullptr if unknown.
const AccumulationModel* find_accumulation_model(std::string_view name);
/// Every model, once, in a fixed order: exact, fp32-sequential, mxdotp, then the tensor-core
/// models in tensor_core_models() order. The one list the CLI's help, Python's
/// accumulation_models() and the C API's model handles come from.
std::span<const AccumulationModel* const> accumulation_models();

/// DotGeneral. `out` rounds the f32 result (and the f32 partial sums of fp32-sequential); its
/// Saturation::by_destination (Context's default) is none, as for any f32 destination: an
/// overflowing sum gives Inf. Throws std::invalid_argument when the preconditions above fail,
/// when a block's element format is not an MX element format (a runtime one: no descriptor, or
/// mx_element_reason's field), a code is out of its format's range, a scale format cannot be
/// one (mx_scale_reason's field) or a scale code is out of its range, a pair of runtime formats
/// (elements or scales) whose products leave the exact accumulator's range (a bias far from the
/// default), or a runtime element or a scale format other than E8M0 under a model other than
/// exact and fp32-sequential (the tensor-core models are the named formats' hardware, reading
/// E8M0 scales here).
Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const Context& out,
                   const AccumulationModel& model = exact_accumulation());

/// DotGeneral into dst.to with the addend dst.c: D = the model's sum of every product and C
/// (docs/BLOCKS.md 5, "Addend and destination"). With DotDestination{} (f32, no C) it is
/// dot_general(a, b, out, model), bit for bit. The context is resolved for dst.to (saturation by
/// destination: none into f32, f16 and bf16, IEEE overflow to Inf).
///
///  - exact: sum_j sum_i A_ji * B_ji * X_Aj * X_Bj + C formed exactly and rounded once into
///    dst.to under `out` (rounding, saturation, tininess; the flags of that one rounding). NaN
///    and Inf C join the special inputs: a NaN C gives the canonical NaN of dst.to (invalid when
///    C is a signalling NaN), an Inf C gives that Inf unless an Inf product of the other sign
///    makes NaN (invalid). An exact zero D is signed by IEEE 754 6.3 over every term, C included:
///    -0 when every product and C are -0, +0 when all are +0, otherwise +0 (-0 under rd).
///  - fp32-sequential: C is the accumulator's initial value (instead of +0), widened exactly
///    into f32; then every step of BLOCKS.md 5 as before in f32 (acc = round_f32(acc + d_j)),
///    and for an f16 or bf16 destination one last rounding of acc into dst.to under `out`; the
///    flags are the OR of every step's. Specials as exact. (With C = +0 the result is that of
///    no C: the model's accumulator starts at +0 either way.)
///  - a TensorCoreModel: its own C (the accumulator before the first instruction, as mma()
///    takes it; header of tensor_core.hpp) and its own accumulator: f32, or f16 (the model's f16
///    rounding, TensorCoreParams::f16); bf16 is refused (no model defines a bf16 accumulator),
///    and so is f16 under a per-group (GST) model, whose accumulator is f32 only. `out` is not
///    used. Without C the result is dot_general()'s.
///
/// Throws as dot_general(a, b, out, model), and std::invalid_argument when dst.to is not f32,
/// f16 or bf16, dst.c is not a code of it, or the model does not define the destination.
Result dot_general(std::span<const BlockRef> a, std::span<const BlockRef> b, const DotDestination& dst,
                   const Context& out, const AccumulationModel& model = exact_accumulation());

/// Dot over one block pair.
Result dot(const BlockRef& a, const BlockRef& b, const Context& out,
           const AccumulationModel& model = exact_accumulation());
/// Dot over one block pair into dst.to with the addend dst.c (dot_general above).
Result dot(const BlockRef& a, const BlockRef& b, const DotDestination& dst, const Context& out,
           const AccumulationModel& model = exact_accumulation());

}  // namespace softmx
