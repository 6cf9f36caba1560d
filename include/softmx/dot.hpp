// softmx/dot.hpp: Dot and DotGeneral over MX blocks (OCP MX v1.0 section 6; docs/BLOCKS.md 5).
//
//   Dot(A, B)        = X_A * X_B * sum_i P^A_i * P^B_i            over one block pair
//   DotGeneral(A, B) = sum_j Dot(A_j, B_j)                         over n block pairs
//
// The result is an f32 code with flags. How the sum is accumulated is a model: `exact` (the
// exact sum rounded once), `fp32-sequential` (FP32 additions in order, as BLOCKS.md defines),
// or any AccumulationModel (a hardware model implements the interface: the tensor-core models
// of softmx/tensor_core.hpp).
#pragma once

#include <cstdint>
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
};

/// The built-in models.
const AccumulationModel& exact_accumulation();
const AccumulationModel& fp32_sequential_accumulation();
/// Looks a model up by name: "exact", "fp32-sequential", or a named tensor-core model
/// ("hopper-fp8-mma", "hopper-fp8-wgmma"; softmx/tensor_core.hpp); nullptr if unknown.
const AccumulationModel* find_accumulation_model(std::string_view name);

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

/// Dot over one block pair.
Result dot(const BlockRef& a, const BlockRef& b, const Context& out,
           const AccumulationModel& model = exact_accumulation());

}  // namespace softmx
