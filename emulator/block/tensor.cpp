// emulator/block/tensor.cpp: N-d tensors quantized along one axis (docs/BLOCKS.md 3).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "block/block_quantizer.hpp"
#include "core/storage.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {
namespace {

// The tensor as (outer, len, inner): element (o, i, n) is at (o * len + i) * inner + n, with
// i running along the blocked axis.
struct Geometry {
  std::size_t outer = 1, len = 0, inner = 1;
};

Geometry geometry(std::span<const std::size_t> shape, std::size_t axis) {
  if (shape.empty()) throw std::invalid_argument("quantize: the tensor needs at least one dimension");
  if (axis >= shape.size())
    throw std::invalid_argument("quantize: axis " + std::to_string(axis) + " does not exist in a " +
                                std::to_string(shape.size()) + "-d tensor");
  Geometry g;
  for (std::size_t d = 0; d < axis; ++d) g.outer *= shape[d];
  g.len = shape[axis];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) g.inner *= shape[d];
  return g;
}

using detail::storage_bytes;

}  // namespace

MxTensor quantize_tensor(FormatId src, const void* data, std::span<const std::size_t> shape, std::size_t axis,
                         std::size_t k, const BlockOptions& options) {
  const Geometry g = geometry(shape, axis);
  if (k == 0) throw std::invalid_argument("quantize: the block size must be at least 1");
  detail::BlockQuantizer bq(src, options);  // validates once
  MxTensor t;
  t.element = options.element;
  t.shape.assign(shape.begin(), shape.end());
  t.axis = axis;
  t.block = k;
  const std::size_t nb = (g.len + k - 1) / k;
  t.scale_shape = t.shape;
  t.scale_shape[axis] = nb;
  t.scales.resize(g.outer * nb * g.inner);
  t.codes.resize(g.outer * g.len * g.inner);
  const std::size_t bytes = storage_bytes(src);
  const bool rs = bq.stochastic();
  if (rs && options.rbits.size() < t.codes.size())
    throw std::invalid_argument("quantize: stochastic rounding needs one random value per element (" +
                                std::to_string(t.codes.size()) + "), got " + std::to_string(options.rbits.size()));
  const unsigned char* in = static_cast<const unsigned char*>(data);
  std::vector<unsigned char> block(k * bytes);
  std::vector<std::uint8_t> codes(k);
  std::vector<std::uint64_t> rbits(rs ? k : 0);
  // Blocks along the last axis are contiguous: whole rows of full blocks go to run_blocks
  // (the vector block kernel where one serves); the rest block by block below.
  const std::size_t full = g.inner == 1 && !rs ? g.len / k : 0;
  if (full)
    for (std::size_t o = 0; o < g.outer; ++o)
      bq.run_blocks(in + o * g.len * bytes, full, k, &t.scales[o * nb], &t.codes[o * g.len], t.flags);
  for (std::size_t o = 0; o < g.outer; ++o)
    for (std::size_t n = 0; n < g.inner; ++n)
      for (std::size_t b = full; b < nb; ++b) {
        // A last partial block is shorter: zeros would not change it.
        const std::size_t first = b * k, count = std::min(k, g.len - first);
        const std::size_t base = (o * g.len + first) * g.inner + n;
        const unsigned char* src_block = in + base * bytes;
        if (g.inner != 1) {  // gather a strided block
          for (std::size_t j = 0; j < count; ++j) std::memcpy(&block[j * bytes], in + (base + j * g.inner) * bytes, bytes);
          src_block = block.data();
        }
        if (rs)
          for (std::size_t j = 0; j < count; ++j) rbits[j] = options.rbits[base + j * g.inner];
        std::uint8_t* out = g.inner == 1 ? &t.codes[base] : codes.data();
        t.scales[(o * nb + b) * g.inner + n] = bq.run(src_block, count, rs ? rbits.data() : nullptr, out, t.flags);
        if (g.inner != 1)
          for (std::size_t j = 0; j < count; ++j) t.codes[base + j * g.inner] = codes[j];
      }
  return t;
}

Flags dequantize_tensor(const MxTensor& t, FormatId dst, void* out, const Context& ctx, const Dialect& dialect) {
  const Geometry g = geometry(t.shape, t.axis);
  const std::size_t nb = (g.len + t.block - 1) / t.block;
  if (t.scales.size() != g.outer * nb * g.inner || t.codes.size() != g.outer * g.len * g.inner)
    throw std::invalid_argument("dequantize: the tensor's scales or codes do not match its shape");
  Dequantizer dq(t.element, dst, ctx, dialect);
  Flags flags = 0;
  if (g.inner == 1) {  // blocks along the last axis: each row's blocks are contiguous
    for (std::size_t o = 0; o < g.outer; ++o)
      flags |= dq.run(&t.scales[o * nb], &t.codes[o * g.len], g.len, t.block,
                      static_cast<unsigned char*>(out) + o * g.len * storage_bytes(dst));
    return flags;
  }
  for (std::size_t o = 0; o < g.outer; ++o)
    for (std::size_t i = 0; i < g.len; ++i)
      for (std::size_t n = 0; n < g.inner; ++n) {
        const std::size_t at = (o * g.len + i) * g.inner + n;
        const Result r = dq(t.scales[(o * nb + i / t.block) * g.inner + n], t.codes[at]);
        detail::store_code(dst, out, at, r.code);
        flags |= r.flags;
      }
  return flags;
}

}  // namespace softmx
