// emulator/block/tensor.cpp: N-d tensors quantized along one axis (docs/BLOCKS.md 3), on one
// thread or many (softmx/parallel.hpp: the same bytes for any thread count).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include "block/block_quantizer.hpp"
#include "core/storage.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/pack.hpp"
#include "softmx/parallel.hpp"

namespace softmx {
namespace {

// The tensor as (outer, len, inner): element (o, i, n) is at (o * len + i) * inner + n, with
// i running along the blocked axis.
struct Geometry {
  std::size_t outer = 1, len = 0, inner = 1;
};

Geometry geometry(std::span<const std::size_t> shape, std::size_t axis, const char* what) {
  if (shape.empty()) throw std::invalid_argument(std::string(what) + ": the tensor needs at least one dimension");
  if (axis >= shape.size())
    throw std::invalid_argument(std::string(what) + ": axis " + std::to_string(axis) + " does not exist in a " +
                                std::to_string(shape.size()) + "-d tensor");
  Geometry g;
  for (std::size_t d = 0; d < axis; ++d) g.outer *= shape[d];
  g.len = shape[axis];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) g.inner *= shape[d];
  return g;
}

using detail::storage_bytes;

// A range of work is at least this many elements, so that a thread is worth starting.
constexpr std::size_t kMinElementsPerThread = std::size_t{1} << 16;

}  // namespace

std::vector<std::size_t> scale_shape(std::span<const std::size_t> shape, std::size_t axis, std::size_t k) {
  if (k == 0) throw std::invalid_argument("quantize: the block size must be at least 1");
  geometry(shape, axis, "quantize");
  std::vector<std::size_t> s(shape.begin(), shape.end());
  s[axis] = (s[axis] + k - 1) / k;
  return s;
}

Flags quantize_tensor_into(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                           std::size_t k, const BlockOptions& options, std::span<std::uint8_t> scales,
                           std::span<std::uint8_t> codes, unsigned threads) {
  const Geometry g = geometry(shape, axis, "quantize");
  if (k == 0) throw std::invalid_argument("quantize: the block size must be at least 1");
  detail::BlockQuantizer check(src, options);  // validates once, before any thread starts
  const std::size_t nb = (g.len + k - 1) / k;
  const std::size_t n_codes = g.outer * g.len * g.inner, n_scales = g.outer * nb * g.inner;
  const std::size_t sb = options.scale_format.code_bytes();  // bytes per scale code
  if (codes.size() < n_codes || scales.size() < n_scales * sb)
    throw std::invalid_argument("quantize: the output arrays hold " + std::to_string(codes.size()) + " codes and " +
                                std::to_string(scales.size()) + " bytes of scales; the tensor needs " +
                                std::to_string(n_codes) + " codes and " + std::to_string(n_scales * sb) +
                                " bytes of scales (" + std::to_string(n_scales) + " " +
                                std::string(options.scale_format.name()) + " codes of " + std::to_string(sb) + ")");
  const std::size_t bytes = storage_bytes(src);
  const bool rs = check.stochastic();
  if (rs && options.rbits.size() < n_codes)
    throw std::invalid_argument("quantize: stochastic rounding needs one random value per element (" +
                                std::to_string(n_codes) + "), got " + std::to_string(options.rbits.size()));
  const unsigned char* in = static_cast<const unsigned char*>(data);
  std::atomic<unsigned> all_flags{0};

  if (g.inner == 1) {
    // Blocks along the last axis are contiguous. Work items: the outer * nb blocks in order;
    // runs of full blocks within a row go to run_blocks (the vector block kernel where one
    // serves), a last partial block (and every block under rs) to run.
    const std::size_t full = rs ? 0 : g.len / k;
    parallel_ranges(g.outer * nb, threads, std::max<std::size_t>(1, kMinElementsPerThread / k), 8,
                    [&](std::size_t first, std::size_t last) {
                      detail::BlockQuantizer bq(src, options);
                      Flags f = 0;
                      for (std::size_t j = first; j < last;) {
                        const std::size_t o = j / nb, b = j % nb;
                        const std::size_t row_end = std::min(last, (o + 1) * nb) - o * nb;  // block index bound
                        if (b < full) {
                          const std::size_t cnt = std::min(row_end, full) - b;
                          bq.run_blocks(in + (o * g.len + b * k) * bytes, cnt, k, &scales[(o * nb + b) * sb],
                                        &codes[o * g.len + b * k], f);
                          j += cnt;
                          continue;
                        }
                        const std::size_t at = o * g.len + b * k, cnt = std::min(k, g.len - b * k);
                        store_scale_code(scales.data(), o * nb + b, sb,
                                         bq.run(in + at * bytes, cnt, rs ? options.rbits.data() + at : nullptr, &codes[at], f));
                        ++j;
                      }
                      all_flags.fetch_or(f);
                    });
    return static_cast<Flags>(all_flags.load());
  }

  // Strided blocks (an axis other than the last). Work items: the outer * inner lines along
  // the axis, each gathered block by block.
  parallel_ranges(g.outer * g.inner, threads, std::max<std::size_t>(1, kMinElementsPerThread / std::max<std::size_t>(g.len, 1)),
                  1, [&](std::size_t first, std::size_t last) {
                    detail::BlockQuantizer bq(src, options);
                    std::vector<unsigned char> block(k * bytes);
                    std::vector<std::uint8_t> out(k);
                    std::vector<std::uint64_t> rbits(rs ? k : 0);
                    Flags f = 0;
                    for (std::size_t line = first; line < last; ++line) {
                      const std::size_t o = line / g.inner, n = line % g.inner;
                      for (std::size_t b = 0; b < nb; ++b) {
                        // A last partial block is shorter: zeros would not change it.
                        const std::size_t i0 = b * k, cnt = std::min(k, g.len - i0);
                        const std::size_t base = (o * g.len + i0) * g.inner + n;
                        for (std::size_t j = 0; j < cnt; ++j)
                          std::memcpy(&block[j * bytes], in + (base + j * g.inner) * bytes, bytes);
                        if (rs)
                          for (std::size_t j = 0; j < cnt; ++j) rbits[j] = options.rbits[base + j * g.inner];
                        store_scale_code(scales.data(), (o * nb + b) * g.inner + n, sb,
                                         bq.run(block.data(), cnt, rs ? rbits.data() : nullptr, out.data(), f));
                        for (std::size_t j = 0; j < cnt; ++j) codes[base + j * g.inner] = out[j];
                      }
                    }
                    all_flags.fetch_or(f);
                  });
  return static_cast<Flags>(all_flags.load());
}

// Along the last axis, rows whose packed codes start on a byte (len * w a multiple of 8, or one
// row), not rs: chunks of C = 8 * max(1, 512 / k) blocks, a multiple of 8 so that every chunk
// starts on a byte of the packed array too, each quantized into a buffer of C * k codes (4 KiB
// for k <= 512: it stays in the L1 cache) and packed from there by pack_into. pack_into's bit
// stream from a byte boundary is the whole stream's from there on, its last partial byte
// included, so the bytes are those of pack_into over the whole tensor. Anything else: the whole
// tensor's codes, then pack_into.
Flags quantize_tensor_packed_into(FormatId src, const void* data, std::span<const std::size_t> shape,
                                  std::size_t axis, std::size_t k, const BlockOptions& options,
                                  std::span<std::uint8_t> scales, std::span<std::uint8_t> packed, unsigned threads) {
  const Geometry g = geometry(shape, axis, "quantize");
  if (k == 0) throw std::invalid_argument("quantize: the block size must be at least 1");
  detail::BlockQuantizer check(src, options);  // validates once, before any thread starts
  const Format& f = options.element.format();
  const std::size_t n = g.outer * g.len * g.inner, w = f.width;
  if (packed.size() != packed_size(f, n))
    throw std::invalid_argument("quantize: " + std::to_string(n) + " " + std::string(f.name) + " codes take " +
                                std::to_string(packed_size(f, n)) + " bytes packed, got " +
                                std::to_string(packed.size()));
  if (g.inner != 1 || check.stochastic() || (g.outer > 1 && g.len * w % 8 != 0) || n == 0) {
    std::vector<std::uint8_t> codes(n);
    const Flags fl = quantize_tensor_into(src, data, shape, axis, k, options, scales, codes, threads);
    pack_into(f, codes, packed);
    return fl;
  }
  const std::size_t nb = (g.len + k - 1) / k, sb = options.scale_format.code_bytes();
  if (scales.size() < g.outer * nb * sb)
    throw std::invalid_argument("quantize: the scale array holds " + std::to_string(scales.size()) +
                                " bytes; the tensor needs " + std::to_string(g.outer * nb * sb));
  const std::size_t chunk = 8 * std::max<std::size_t>(1, 512 / k);  // blocks per chunk
  const std::size_t per_row = (nb + chunk - 1) / chunk, bytes = storage_bytes(src);
  const unsigned char* in = static_cast<const unsigned char*>(data);
  std::atomic<unsigned> all_flags{0};
  parallel_ranges(g.outer * per_row, threads, std::max<std::size_t>(1, kMinElementsPerThread / (chunk * k)), 1,
                  [&](std::size_t first, std::size_t last) {
                    detail::BlockQuantizer bq(src, options);
                    std::vector<std::uint8_t> buf(chunk * k);
                    Flags fl = 0;
                    for (std::size_t j = first; j < last; ++j) {
                      const std::size_t o = j / per_row, b = j % per_row * chunk;
                      const std::size_t i0 = b * k, i1 = std::min(g.len, (b + chunk) * k);
                      const std::size_t full = (i1 - i0) / k;  // whole blocks; then at most one short one
                      const unsigned char* at = in + (o * g.len + i0) * bytes;
                      if (full) bq.run_blocks(at, full, k, &scales[(o * nb + b) * sb], buf.data(), fl);
                      if (full * k < i1 - i0)
                        store_scale_code(scales.data(), o * nb + b + full, sb,
                                         bq.run(at + full * k * bytes, i1 - i0 - full * k, nullptr,
                                                buf.data() + full * k, fl));
                      pack_into(f, {buf.data(), i1 - i0},
                                packed.subspan((o * g.len + i0) * w / 8, packed_size(f, i1 - i0)));
                    }
                    all_flags.fetch_or(fl);
                  });
  return static_cast<Flags>(all_flags.load());
}

MxTensor quantize_tensor(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                         std::size_t k, const BlockOptions& options) {
  MxTensor t;
  t.element = options.element;
  t.scale_format = options.scale_format;
  t.shape.assign(shape.begin(), shape.end());
  t.axis = axis;
  t.block = k;
  t.scale_shape = scale_shape(shape, axis, k);
  std::size_t n_codes = 1, n_scales = 1;
  for (std::size_t d : t.shape) n_codes *= d;
  for (std::size_t d : t.scale_shape) n_scales *= d;
  t.scales.resize(n_scales * options.scale_format.code_bytes());
  t.codes.resize(n_codes);
  t.flags = quantize_tensor_into(src, data, shape, axis, k, options, t.scales, t.codes, 1);
  return t;
}

Flags dequantize_tensor(const MxTensorRef& t, FormatId dst, void* out, const Context& ctx, const Dialect& dialect,
                        unsigned threads) {
  const Geometry g = geometry(t.shape, t.axis, "dequantize");
  if (t.block == 0) throw std::invalid_argument("dequantize: the block size must be at least 1");
  if (auto why = mx_element_reason(t.element)) throw std::invalid_argument("dequantize: " + *why);
  const std::size_t nb = (g.len + t.block - 1) / t.block;
  const std::size_t sb = t.scale_format.code_bytes();  // bytes per scale code
  if (t.scales.size() != g.outer * nb * g.inner * sb || t.codes.size() != g.outer * g.len * g.inner)
    throw std::invalid_argument("dequantize: the tensor's shape needs " + std::to_string(g.outer * g.len * g.inner) +
                                " codes and " + std::to_string(g.outer * nb * g.inner) + " scales, got " +
                                std::to_string(t.codes.size()) + " and " + std::to_string(t.scales.size() / sb) +
                                (sb > 1 ? " (" + std::to_string(t.scales.size()) + " bytes of " +
                                              std::string(t.scale_format.name()) + " codes, " + std::to_string(sb) +
                                              " each)"
                                        : std::string()));
  const Format& ef = t.element.format();
  {
    std::uint8_t any = 0;
    const std::uint8_t above = static_cast<std::uint8_t>(~ef.code_mask());
    if (above)  // an 8-bit element has no byte beyond its codes: no pass over them
      for (std::uint8_t c : t.codes) any |= c & above;
    if (any)
      for (std::size_t i = 0; i < t.codes.size(); ++i)
        if (t.codes[i] & above)
          throw std::invalid_argument("dequantize: code " + std::to_string(t.codes[i]) + " at index " +
                                      std::to_string(i) + " is out of range for " + std::string(ef.name) +
                                      " (0.." + std::to_string(ef.code_mask()) + ")");
  }
  if (!t.scale_format.is_e8m0()) {
    if (auto why = mx_scale_reason(t.scale_format)) throw std::invalid_argument("dequantize: " + *why);
    const Format& sf = t.scale_format;
    for (std::size_t i = 0; i < t.scales.size() / sb; ++i)
      if (const std::uint32_t c = load_scale_code(t.scales.data(), i, sb); c > sf.code_mask())
        throw std::invalid_argument("dequantize: scale code " + std::to_string(c) + " at index " +
                                    std::to_string(i) + " is out of range for " + std::string(sf.name) + " (0.." +
                                    std::to_string(sf.code_mask()) + ")");
  }
  (void)Dequantizer(t.element.format(), t.scale_format, dst, ctx, dialect);  // validates the destination before any thread starts
  if (t.codes.empty()) return 0;  // a shape with a 0 extent: nothing to do (and g.inner may be 0)
  const std::size_t ob = storage_bytes(dst);
  std::atomic<unsigned> all_flags{0};
  if (g.inner == 1) {  // blocks along the last axis: each row's blocks are contiguous
    const std::size_t k = t.block;
    parallel_ranges(g.outer * nb, threads, std::max<std::size_t>(1, kMinElementsPerThread / k), 8,
                    [&](std::size_t first, std::size_t last) {
                      Dequantizer dq(t.element.format(), t.scale_format, dst, ctx, dialect);
                      Flags f = 0;
                      for (std::size_t j = first; j < last;) {
                        const std::size_t o = j / nb, b = j % nb;
                        const std::size_t b_end = std::min(last, (o + 1) * nb) - o * nb;
                        const std::size_t i0 = b * k, i1 = std::min(g.len, b_end * k);
                        f |= dq.run(&t.scales[(o * nb + b) * sb], &t.codes[o * g.len + i0], i1 - i0, k,
                                    static_cast<unsigned char*>(out) + (o * g.len + i0) * ob);
                        j += b_end - b;
                      }
                      all_flags.fetch_or(f);
                    });
    return static_cast<Flags>(all_flags.load());
  }
  parallel_ranges(g.outer * g.len, threads, std::max<std::size_t>(1, kMinElementsPerThread / g.inner), 1,
                  [&](std::size_t first, std::size_t last) {
                    Dequantizer dq(t.element.format(), t.scale_format, dst, ctx, dialect);
                    Flags f = 0;
                    for (std::size_t row = first; row < last; ++row) {  // row = o * len + i
                      const std::size_t o = row / g.len, i = row % g.len;
                      const std::uint8_t* srow = &t.scales[(o * nb + i / t.block) * g.inner * sb];
                      for (std::size_t n = 0; n < g.inner; ++n) {
                        const std::size_t at = row * g.inner + n;
                        const Result r = dq(load_scale_code(srow, n, sb), t.codes[at]);
                        detail::store_code(dst, out, at, r.code);
                        f |= r.flags;
                      }
                    }
                    all_flags.fetch_or(f);
                  });
  return static_cast<Flags>(all_flags.load());
}

Flags dequantize_tensor(const MxTensor& t, FormatId dst, void* out, const Context& ctx, const Dialect& dialect) {
  return dequantize_tensor(MxTensorRef{t.element, t.shape, t.axis, t.block, t.scales, t.codes, t.scale_format}, dst, out, ctx, dialect, 1);
}

}  // namespace softmx
