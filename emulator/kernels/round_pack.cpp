// emulator/kernels/round_pack.cpp: round_pack specialised per (destination, rounding mode), for
// callers whose values are not codes of a source format (block quantization, exact sums).
#include <array>
#include <utility>

#include "core/kernels.hpp"

namespace softmx::detail {
namespace {

template <int D, std::size_t... R>
constexpr std::array<RoundPackKernel, kRoundingCount> row(std::index_sequence<R...>) {
  return {&round_pack_kernel<D, static_cast<int>(R)>...};
}

template <std::size_t... D>
constexpr std::array<std::array<RoundPackKernel, kRoundingCount>, kFormatCount> table(std::index_sequence<D...>) {
  return {row<static_cast<int>(D)>(std::make_index_sequence<kRoundingCount>{})...};
}

constexpr auto kTable = table(std::make_index_sequence<kFormatCount>{});

}  // namespace

RoundPackKernel round_pack_kernel_for(FormatId dst, Rounding r) {
  return kTable[static_cast<int>(dst)][static_cast<int>(r)];
}

}  // namespace softmx::detail
