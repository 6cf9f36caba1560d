// softmx/parallel.hpp: large batches on every core, with results that do not depend on the
// number of threads.
//
// Each function here splits its work into contiguous ranges of independent items (codes,
// blocks, outputs), runs each range on its own std::thread (the calling thread takes the
// first), and combines the per-range results with operations whose result does not depend
// on the grouping (an OR of flags, an exact sum). So a call gives the same bytes for any
// `threads`, 1 included. No pool and no global state: the threads live for one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "softmx/convert.hpp"
#include "softmx/flags.hpp"

namespace softmx {

/// The number of threads a call given `threads` uses: `threads` itself when it is at least 1,
/// otherwise (0) std::thread::hardware_concurrency(), or 1 when that is unknown.
unsigned worker_count(unsigned threads);

/// Calls fn(first, last) for contiguous ranges that cover [0, n) exactly once, at most
/// worker_count(threads) of them and no more than n / min_items (at least one), each on its
/// own thread, the first on the calling thread. Range boundaries are multiples of `align`
/// (>= 1) except the end, so ranges of a byte array do not share cache lines when align is
/// 64. Waits for every range; if any threw, rethrows the exception of the lowest range that
/// threw (the same one whatever the thread count when fn's exceptions depend on the items
/// only and the ranges before it threw nothing). n = 0 calls nothing.
void parallel_ranges(std::size_t n, unsigned threads, std::size_t min_items, std::size_t align,
                     const std::function<void(std::size_t first, std::size_t last)>& fn);

/// Converter::run over n codes on worker_count(threads) threads, at most n / 2^16 of them (at
/// least one), each claiming chunks of 2^16 codes in turn until none is left: the same codes and
/// flags as conv.run(in, out, flags, n, rbits), for any thread count and any scheduling.
/// Storage types as Converter::run.
void run_parallel(const Converter& conv, const void* in, void* out, Flags* flags, std::size_t n,
                  const std::uint64_t* rbits = nullptr, unsigned threads = 0);

}  // namespace softmx
