// capi/nvfp4.cpp: NVFP4 quantize and dequantize (softmx/nvfp4.hpp).
#include <algorithm>
#include <cstring>

#include "shell.hpp"
#include "softmx/nvfp4.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

constexpr std::size_t kNvfp4Block = 16;  // NVFP4's block size (nvfp4.hpp): the scale count's unit

}  // namespace

extern "C" {

void softmx_nvfp4_options_init(softmx_nvfp4_options* o) {
  if (!o) return;
  *o = softmx_nvfp4_options{};
  o->multiplier = SOFTMX_NVFP4_RECIPROCAL_PRODUCT;
  o->has_global_amax = 0;
  o->rounding = SOFTMX_ROUND_RNE;
  o->rbits_width = 32;
}

int softmx_quantize_nvfp4(const softmx_format* src, const void* data, const size_t* shape, size_t rank, size_t axis,
                          const softmx_nvfp4_options* options, uint8_t* scales, size_t scales_capacity,
                          uint8_t* codes, size_t codes_capacity, uint32_t* global_amax, uint32_t* encode_scale,
                          uint8_t* flags, softmx_error* err) {
  return guard(err, "softmx_quantize_nvfp4", [&] {
    const FormatId s = named_of(src, "src", SOFTMX_ERR_INVALID_ARGUMENT,
                                "the source must be f32, bf16 or f16 (softmx::quantize_nvfp4 takes a named format)");
    const Extent e = extent_of(shape, rank, axis, kNvfp4Block);
    if (e.elements) {
      need(data, "data");
      need(codes, "codes");
    }
    if (e.scales) need(scales, "scales");
    check_capacity(scales_capacity, e.scales, "scales");
    check_capacity(codes_capacity, e.elements, "codes");
    check_codes(s, data, e.elements, "data");
    softmx_nvfp4_options defaults;
    softmx_nvfp4_options_init(&defaults);
    const softmx_nvfp4_options* o = options ? options : &defaults;
    if (o->reserved0 != 0) fail(SOFTMX_ERR_INVALID_ARGUMENT, "options: reserved0 is not zero");
    check_reserved(o->reserved, 2, "options");
    Nvfp4Options n;
    n.axis = axis;
    if (o->multiplier != SOFTMX_NVFP4_DIVISION && o->multiplier != SOFTMX_NVFP4_RECIPROCAL_PRODUCT)
      fail(SOFTMX_ERR_INVALID_ARGUMENT, "options->multiplier = " + std::to_string(o->multiplier) +
                                            " is not SOFTMX_NVFP4_DIVISION or SOFTMX_NVFP4_RECIPROCAL_PRODUCT");
    n.multiplier = o->multiplier == SOFTMX_NVFP4_DIVISION ? Nvfp4Multiplier::division
                                                          : Nvfp4Multiplier::reciprocal_product;
    if (o->has_global_amax) {
      float f;
      std::memcpy(&f, &o->global_amax, sizeof f);
      n.global_amax = f;
    }
    n.rounding = rounding_of(o->rounding, "options->rounding");
    n.rbits_width = rbits_width_of(o->rbits_width, "options->rbits_width");
    if (o->rbits_count) {
      need(o->rbits, "options->rbits");
      for (std::size_t i = 0; i < o->rbits_count; ++i) check_rbits(o->rbits[i], n.rbits_width, "options->rbits[i]");
      n.rbits = std::span<const std::uint64_t>(o->rbits, o->rbits_count);
    }
    const Nvfp4Tensor t = quantize_nvfp4(s, data, std::span<const std::size_t>(shape, rank), axis, n);
    std::copy(t.scales.begin(), t.scales.end(), scales);
    std::copy(t.codes.begin(), t.codes.end(), codes);
    if (global_amax) *global_amax = t.global_amax;
    if (encode_scale) *encode_scale = t.encode_scale;
    if (flags) *flags = t.flags;
  });
}

int softmx_dequantize_nvfp4(const size_t* shape, size_t rank, size_t axis, uint32_t global_amax,
                            uint32_t encode_scale, const uint8_t* scales, size_t scale_count, const uint8_t* codes,
                            size_t code_count, const softmx_format* dst, const softmx_context* ctx, void* out,
                            size_t out_capacity, uint8_t* flags_or, softmx_error* err) {
  return guard(err, "softmx_dequantize_nvfp4", [&] {
    const FormatId d = named_of(dst, "dst", SOFTMX_ERR_UNSUPPORTED,
                                "softmx::dequantize_nvfp4 writes a named format (softmx_format_count())");
    const Extent x = extent_of(shape, rank, axis, kNvfp4Block);
    check_dequantize_buffers(x, scale_count, code_count, out_capacity, scales, codes, out, "blocks of 16");
    check_byte_codes(FormatId::e2m1, codes, code_count, "codes");
    const Context c = plain_context_of(ctx);
    Nvfp4Tensor t;
    t.shape.assign(shape, shape + rank);
    t.axis = axis;
    t.global_amax = global_amax;
    t.encode_scale = encode_scale;
    t.scale_shape = t.shape;
    t.scale_shape[axis] = shape[axis] / kNvfp4Block + (shape[axis] % kNvfp4Block != 0);
    t.scales.assign(scales, scales + scale_count);
    t.codes.assign(codes, codes + code_count);
    const Flags all = dequantize_nvfp4(t, d, out, c);
    if (flags_or) *flags_or = all;
  });
}

}  // extern "C"
