// emulator/kernels/runtime.cpp: the kernels of a pair with a runtime format (see
// core/kernels.hpp): convert_inline() with the rounding mode constant and both descriptors read
// at run time. The vector kernels (simd/) and the code tables (code_table.hpp) make batches of
// runtime formats fast; this is their reference and the path for everything they do not serve.
#include <array>
#include <utility>

#include "core/kernels.hpp"
#include "core/storage.hpp"

namespace softmx::detail {
namespace {

template <int R>
Result runtime_one(const Format& src, const Format& dst, std::uint64_t bits, const Context& c, const Dialect& d) {
  Context k = c;
  k.rounding = static_cast<Rounding>(R);
  return convert_inline(src, dst, bits, k, d);
}

template <int R>
void runtime_batch(const Format& src, const Format& dst, const void* in, void* out, Flags* flags, std::size_t n,
                   const std::uint64_t* rbits, const Context& c, const Dialect& d) {
  Context k = c;
  k.rounding = static_cast<Rounding>(R);
  const std::size_t in_bytes = storage_bytes(src);
  for (std::size_t i = 0; i < n; ++i) {
    if (rbits) k.rbits = rbits[i];
    const Result r = convert_inline(src, dst, load_code(in_bytes, in, i), k, d);
    store_code(dst, out, i, r.code);
    if (flags) flags[i] = r.flags;
  }
}

template <std::size_t... R>
constexpr std::array<KernelPair, kRoundingCount> table(std::index_sequence<R...>) {
  return {KernelPair{&runtime_one<static_cast<int>(R)>, &runtime_batch<static_cast<int>(R)>}...};
}

constexpr auto kTable = table(std::make_index_sequence<kRoundingCount>{});

}  // namespace

KernelPair runtime_kernels(Rounding r) { return kTable[static_cast<int>(r)]; }

}  // namespace softmx::detail
