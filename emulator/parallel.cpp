// emulator/parallel.cpp: see softmx/parallel.hpp.
#include "softmx/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "core/storage.hpp"

namespace softmx {

unsigned worker_count(unsigned threads) {
  if (threads >= 1) return threads;
  const unsigned h = std::thread::hardware_concurrency();
  return h >= 1 ? h : 1;
}

void parallel_ranges(std::size_t n, unsigned threads, std::size_t min_items, std::size_t align,
                     const std::function<void(std::size_t, std::size_t)>& fn) {
  if (n == 0) return;
  if (align == 0) align = 1;
  std::size_t parts = worker_count(threads);
  parts = std::min<std::size_t>(parts, std::max<std::size_t>(1, n / std::max<std::size_t>(min_items, 1)));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  // Equal shares rounded up to `align`; the last range takes what is left.
  std::size_t share = (n + parts - 1) / parts;
  share = (share + align - 1) / align * align;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t first = 0; first < n; first += share) ranges.emplace_back(first, std::min(n, first + share));
  std::vector<std::exception_ptr> errors(ranges.size());
  std::vector<std::thread> workers;
  workers.reserve(ranges.size() - 1);
  auto run = [&](std::size_t r) {
    try {
      fn(ranges[r].first, ranges[r].second);
    } catch (...) {
      errors[r] = std::current_exception();
    }
  };
  try {
    for (std::size_t r = 1; r < ranges.size(); ++r) workers.emplace_back(run, r);
  } catch (...) {  // no thread could be started: finish the rest here
    for (std::size_t r = workers.size() + 1; r < ranges.size(); ++r) run(r);
  }
  run(0);
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void run_parallel(const Converter& conv, const void* in, void* out, Flags* flags, std::size_t n,
                  const std::uint64_t* rbits, unsigned threads) {
  // The descriptors, not the ids: a runtime format has no table entry (format(FormatId::runtime) throws).
  const std::size_t ib = detail::storage_bytes(conv.source_format()), ob = detail::storage_bytes(conv.destination_format());
  auto convert = [&](std::size_t first, std::size_t last) {
    conv.run(static_cast<const unsigned char*>(in) + first * ib, static_cast<unsigned char*>(out) + first * ob,
             flags ? flags + first : nullptr, last - first, rbits ? rbits + first : nullptr);
  };
  // Chunks of 2^16 codes (a chunk's source and codes stay in L2; its boundaries are multiples of
  // 64 bytes in every storage type), claimed in turn by each worker until none is left. Equal
  // fixed shares would make the call wait for the slowest thread: on a machine whose cores are
  // busy, one descheduled worker held a whole share back (two threads came out slower than one).
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const std::size_t workers = std::min<std::size_t>(worker_count(threads), std::max<std::size_t>(1, n / kChunk));
  if (workers <= 1) return convert(0, n);
  std::atomic<std::size_t> next{0};
  parallel_ranges(workers, static_cast<unsigned>(workers), 1, 1, [&](std::size_t, std::size_t) {
    for (std::size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < chunks;)
      convert(k * kChunk, std::min(n, (k + 1) * kChunk));
  });
}

}  // namespace softmx
