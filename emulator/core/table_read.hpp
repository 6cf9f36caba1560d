// emulator/core/table_read.hpp: a batch of 8- or 16-bit codes through a table of results (internal).
//
// Two batch paths tabulate a reference function once and then read the table per element:
// Converter from a source of at most 8 bits (emulator/code_table.hpp) and Dequantizer per scale
// code (emulator/block/dequantize.cpp). This is their one read loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/storage.hpp"
#include "softmx/convert.hpp"

namespace softmx::detail {

/// Whether every in[i] (i < n) is below `size` (a table of `size` entries serves them all).
template <class In>
bool all_below(const In* in, std::size_t n, std::size_t size) {
  if (size > std::size_t{In(~In{0})}) return true;
  In largest = 0;
  for (std::size_t i = 0; i < n; ++i) largest = in[i] > largest ? in[i] : largest;
  return n == 0 || largest < size;
}

template <class T, bool WithFlags, class In>
Flags read_table_as(const std::uint64_t* codes, const Flags* tab_flags, const In* in, std::size_t n, T* out,
                    Flags* flags) {
  Flags all = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = in[i];
    out[i] = static_cast<T>(codes[c]);
    const Flags f = tab_flags[c];
    if constexpr (WithFlags) flags[i] = f;
    all |= f;
  }
  return all;
}

/// out[i] = table[in[i]], without flags. The table read stays scalar: a loop the compiler
/// vectorises gathers the indices out of vector registers one by one, which measured 2.3x slower
/// (bench_block, dequantize on Zen 3) than the plain loads, two per element.
template <class T, class In>
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void read_table_plain(const std::uint64_t* codes, const In* in, std::size_t n, T* out) {
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(codes[in[i]]);
}

/// out[i] = codes[in[i]] (as `out_bytes`-byte codes) and, when `flags` is not null, flags[i] =
/// tab_flags[in[i]], for i < n; returns the OR of those flags. `tab_any` is the OR of the whole
/// table's flags: when it is 0 and no flags are wanted, the flags are not read at all.
/// Precondition: every in[i] indexes the table (all_below). In: std::uint8_t or std::uint16_t.
template <class In>
Flags read_table(std::size_t out_bytes, const std::uint64_t* codes, const Flags* tab_flags, Flags tab_any,
                 const In* in, std::size_t n, void* out, Flags* flags) {
  auto as = [&](auto* o) -> Flags {
    using T = std::remove_pointer_t<decltype(o)>;
    if (flags) return read_table_as<T, true>(codes, tab_flags, in, n, o, flags);
    if (tab_any == 0) {
      read_table_plain<T>(codes, in, n, o);
      return 0;
    }
    return read_table_as<T, false>(codes, tab_flags, in, n, o, nullptr);
  };
  switch (out_bytes) {
    case 1: return as(static_cast<std::uint8_t*>(out));
    case 2: return as(static_cast<std::uint16_t*>(out));
    case 4: return as(static_cast<std::uint32_t*>(out));
    default: return as(static_cast<std::uint64_t*>(out));
  }
}
inline Flags read_table(FormatId dst, const std::uint64_t* codes, const Flags* tab_flags, Flags tab_any,
                        const std::uint8_t* in, std::size_t n, void* out, Flags* flags) {
  return read_table(storage_bytes(dst), codes, tab_flags, tab_any, in, n, out, flags);
}

}  // namespace softmx::detail
