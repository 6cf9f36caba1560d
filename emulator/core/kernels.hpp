// emulator/core/kernels.hpp: the specialised entry points (internal).
//
// For every (source, destination, rounding mode) of named formats there is a single-value
// kernel and a batch kernel, both the generic convert_inline() with the formats and the mode
// as constants; the batch kernel inlines it into its loop. They are instantiated in one
// translation unit per source format (emulator/kernels/from_<format>.cpp) so the build spreads
// over cores. A pair with a runtime format has the same two kernels per mode with the
// descriptors read at run time (runtime_kernels, emulator/kernels/runtime.cpp): the same
// convert_inline, so runtime formats do not fork the core.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/format_table.hpp"
#include "core/round_pack.hpp"
#include "softmx/convert.hpp"

namespace softmx::detail {

using OneKernel = Converter::Kernel;
using BatchKernel = Converter::BatchKernel;

struct KernelPair {
  OneKernel one;
  BatchKernel many;
};

/// kernels[destination][rounding] for one source format.
using KernelRow = std::array<std::array<KernelPair, kRoundingCount>, kFormatCount>;

/// The row for `src`; defined by the per-source translation units.
const KernelRow& kernels_from(FormatId src);

/// The kernels of a pair where either format is a runtime one (descriptors read at run time);
/// defined in kernels/runtime.cpp.
KernelPair runtime_kernels(Rounding r);

/// The kernels for any pair: specialised for named pairs, runtime_kernels otherwise.
inline KernelPair kernels_for(const Format& src, const Format& dst, Rounding r) {
  if (src.is_named() && dst.is_named()) return kernels_from(src.id)[static_cast<int>(dst.id)][static_cast<int>(r)];
  return runtime_kernels(r);
}

/// round_pack with the destination format and the rounding mode as constants.
using RoundPackKernel = Result (*)(const Unpacked& v, const Context& c, const Dialect& d);

template <int D, int R>
Result round_pack_kernel(const Unpacked& v, const Context& c, const Dialect& d) {
  Context k = c;
  k.rounding = static_cast<Rounding>(R);
  return round_pack_inline(kFormats[D], v, k, d);
}

/// The specialised round_pack for (destination, rounding); defined in kernels/round_pack.cpp.
RoundPackKernel round_pack_kernel_for(FormatId dst, Rounding r);

/// Storage type of a code of width W bits.
template <int W>
using Storage = std::conditional_t<(W <= 8), std::uint8_t,
                                   std::conditional_t<(W <= 16), std::uint16_t,
                                                      std::conditional_t<(W <= 32), std::uint32_t, std::uint64_t>>>;

template <int S, int D, int R>
Result one_kernel(const Format&, const Format&, std::uint64_t bits, const Context& c, const Dialect& d) {
  // A local copy of the context with the mode constant lets the compiler drop the other modes.
  Context k = c;
  k.rounding = static_cast<Rounding>(R);
  return convert_inline(kFormats[S], kFormats[D], bits, k, d);
}

template <int S, int D, int R>
void batch_kernel(const Format&, const Format&, const void* in, void* out, Flags* flags, std::size_t n,
                  const std::uint64_t* rbits, const Context& c, const Dialect& d) {
  using In = Storage<kFormats[S].width>;
  using Out = Storage<kFormats[D].width>;
  const In* src = static_cast<const In*>(in);
  Out* dst = static_cast<Out*>(out);
  Context k = c;
  k.rounding = static_cast<Rounding>(R);
  for (std::size_t i = 0; i < n; ++i) {
    if (rbits) k.rbits = rbits[i];
    const Result r = convert_inline(kFormats[S], kFormats[D], src[i], k, d);
    dst[i] = static_cast<Out>(r.code);
    if (flags) flags[i] = r.flags;
  }
}

template <int S, int D, std::size_t... R>
constexpr std::array<KernelPair, kRoundingCount> mode_row(std::index_sequence<R...>) {
  return {KernelPair{&one_kernel<S, D, static_cast<int>(R)>, &batch_kernel<S, D, static_cast<int>(R)>}...};
}

template <int S, std::size_t... D>
constexpr KernelRow kernel_row(std::index_sequence<D...>) {
  return {mode_row<S, static_cast<int>(D)>(std::make_index_sequence<kRoundingCount>{})...};
}

/// Defines the kernel row of one source format (used once per translation unit).
#define SOFTMX_DEFINE_KERNEL_ROW(SRC)                                                                     \
  namespace softmx::detail {                                                                            \
  const KernelRow& kernel_row_##SRC() {                                                                 \
    static constexpr KernelRow row =                                                                    \
        kernel_row<static_cast<int>(FormatId::SRC)>(std::make_index_sequence<kFormatCount>{});          \
    return row;                                                                                         \
  }                                                                                                     \
  }

#define SOFTMX_DECLARE_KERNEL_ROW(SRC) const KernelRow& kernel_row_##SRC();
SOFTMX_DECLARE_KERNEL_ROW(f64)
SOFTMX_DECLARE_KERNEL_ROW(f32)
SOFTMX_DECLARE_KERNEL_ROW(f16)
SOFTMX_DECLARE_KERNEL_ROW(bf16)
SOFTMX_DECLARE_KERNEL_ROW(e4m3)
SOFTMX_DECLARE_KERNEL_ROW(e5m2)
SOFTMX_DECLARE_KERNEL_ROW(e3m2)
SOFTMX_DECLARE_KERNEL_ROW(e2m3)
SOFTMX_DECLARE_KERNEL_ROW(e2m1)
SOFTMX_DECLARE_KERNEL_ROW(int8)
SOFTMX_DECLARE_KERNEL_ROW(e8m0)
#undef SOFTMX_DECLARE_KERNEL_ROW

}  // namespace softmx::detail
