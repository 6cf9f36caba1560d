// capi/block.cpp: MX blocks: quantize, dequantize, tensors, packing (softmx/block.hpp, pack.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "shell.hpp"
#include "softmx/pack.hpp"
#include "softmx/text.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

// The C++ BlockOptions of C options (null: the defaults).
BlockOptions block_options_of(const softmx_block_options* o) {
  softmx_block_options defaults;
  softmx_block_options_init(&defaults);
  if (!o) o = &defaults;
  check_reserved(o->reserved, 1, "options");
#if UINTPTR_MAX == 0xFFFFFFFFu
  if (o->reserved_pad) fail(SOFTMX_ERR_INVALID_ARGUMENT, "options: reserved_pad is not zero");
#endif
  BlockOptions b;
  b.scale_format = scale_format_of(o->scale_format, "options->scale_format");
  if (o->element) b.element = element_of(o->element, "options->element");
  b.dialect = &dialect_of(o->dialect);
  if (o->scale_rule != SOFTMX_DEFAULT) b.rule = scale_rule_of(o->scale_rule, "options->scale_rule");
  if (o->rounding != SOFTMX_DEFAULT) b.rounding = rounding_of(o->rounding, "options->rounding");
  if (o->saturation != SOFTMX_DEFAULT) b.saturation = saturation_of(o->saturation, "options->saturation");
  b.tininess = tininess_of(o->tininess, "options->tininess");
  b.rbits_width = rbits_width_of(o->rbits_width, "options->rbits_width");
  if (o->isa != SOFTMX_DEFAULT) b.isa = isa_of(o->isa, "options->isa");
  if (o->rbits_count) {
    need(o->rbits, "options->rbits");
    for (std::size_t i = 0; i < o->rbits_count; ++i) check_rbits(o->rbits[i], b.rbits_width, "options->rbits[i]");
    b.rbits = std::span<const std::uint64_t>(o->rbits, o->rbits_count);
  }
  if (o->custom_rule) {
    softmx_scale_rule_fn fn = o->custom_rule;
    void* user = o->custom_rule_user;
    b.custom_rule = [fn, user](const Unpacked& amax, const Format& element) -> int {
      softmx_format f;
      fill(&f, element);
      return fn(user, amax.exp, amax.sig, amax.sticky ? 1 : 0, &f);
    };
  }
  return b;
}

// The data a block quantization reads is f64, f32, f16 or bf16 (softmx::quantize_block takes a
// FormatId): a runtime descriptor never is one of them (one with their fields is that format).
FormatId source_of(const softmx_format* src) {
  return named_of(src, "src", SOFTMX_ERR_INVALID_ARGUMENT,
                  "the source must be f64, f32, f16 or bf16 (softmx::quantize_block takes a named format)");
}

// The dequantize destinations: the C++ functions take a named format (FormatId).
FormatId destination_of(const softmx_format* dst) {
  return named_of(dst, "dst", SOFTMX_ERR_UNSUPPORTED,
                  "softmx::dequantize_element, Dequantizer and dequantize_tensor write a named format "
                  "(softmx_format_count())");
}

}  // namespace

extern "C" {

void softmx_block_options_init(softmx_block_options* o) {
  if (!o) return;
  *o = softmx_block_options{};
  o->element = nullptr;
  o->dialect = nullptr;
  o->scale_rule = SOFTMX_DEFAULT;
  o->rounding = SOFTMX_DEFAULT;
  o->saturation = SOFTMX_DEFAULT;
  o->tininess = SOFTMX_TININESS_AFTER;
  o->rbits_width = 32;
  o->isa = SOFTMX_DEFAULT;
}

int softmx_quantize_block(const softmx_format* src, const void* values, size_t count,
                          const softmx_block_options* options, uint8_t* scale, uint8_t* codes, uint8_t* flags,
                          softmx_error* err) {
  return guard(err, "softmx_quantize_block", [&] {
    const FormatId s = source_of(src);
    if (count == 0) fail(SOFTMX_ERR_SHAPE, "a block needs at least one value (count is 0)");
    need(values, "values");
    need(scale, "scale");
    need(codes, "codes");
    check_codes(s, values, count, "values");
    const BlockOptions b = block_options_of(options);
    const QuantizedBlock q = quantize_block(s, values, count, b);
    store_scale_code(scale, 0, b.scale_format.code_bytes(), q.scale);
    std::copy(q.codes.begin(), q.codes.end(), codes);
    if (flags) *flags = q.flags;
  });
}

int softmx_scale_count(const size_t* shape, size_t rank, size_t axis, size_t block, size_t* count,
                       softmx_error* err) {
  return guard(err, "softmx_scale_count", [&] {
    need(count, "count");
    *count = extent_of(shape, rank, axis, block).scales;
  });
}

int softmx_quantize_tensor(const softmx_format* src, const void* data, const size_t* shape, size_t rank, size_t axis,
                           size_t block, const softmx_block_options* options, uint8_t* scales,
                           size_t scales_capacity, uint8_t* codes, size_t codes_capacity, uint8_t* flags,
                           softmx_error* err) {
  return guard(err, "softmx_quantize_tensor", [&] {
    const FormatId s = source_of(src);
    const Extent e = extent_of(shape, rank, axis, block);
    if (e.elements) need(data, "data");
    if (e.scales) need(scales, "scales");
    if (e.elements) need(codes, "codes");
    const BlockOptions b = block_options_of(options);
    check_capacity(scales_capacity, e.scales * b.scale_format.code_bytes(), "scales");
    check_capacity(codes_capacity, e.elements, "codes");
    check_codes(s, data, e.elements, "data");
    const MxTensor t = quantize_tensor(s, data, std::span<const std::size_t>(shape, rank), axis, block, b);
    std::copy(t.scales.begin(), t.scales.end(), scales);
    std::copy(t.codes.begin(), t.codes.end(), codes);
    if (flags) *flags = t.flags;
  });
}

namespace {

// The dequantize entry points with and without a scale format share these (`who` names the
// entry point in messages; scale_format NULL: E8M0).
int dequantize_element_impl(const char* who, const softmx_format* element, const softmx_format* scale_format,
                            uint32_t scale, uint8_t code, const softmx_format* dst, const softmx_context* ctx,
                            uint64_t* result, uint8_t* flags, softmx_error* err) {
  return guard(err, who, [&] {
    const Format e = element_of(element, "element");
    const FormatId d = destination_of(dst);
    const ScaleFormat sf = scale_format_of(scale_format, "scale_format");
    need(result, "result");
    check_byte_codes(e, &code, 1, "code");
    check_code(sf.format(), scale, "scale");
    const Conversion c = conversion_of(ctx, d);
    const Result r = dequantize_element(e, sf, scale, code, d, c.ctx, *c.dialect);
    *result = r.code;
    if (flags) *flags = r.flags;
  });
}

int dequantize_impl(const char* who, const softmx_format* element, const softmx_format* scale_format,
                    const softmx_format* dst, const softmx_context* ctx, const uint8_t* scales, const uint8_t* codes,
                    size_t n, size_t block, void* out, uint8_t* flags, uint8_t* flags_or, softmx_error* err) {
  return guard(err, who, [&] {
    const Format e = element_of(element, "element");
    const FormatId d = destination_of(dst);
    const ScaleFormat sf = scale_format_of(scale_format, "scale_format");
    if (block == 0) fail(SOFTMX_ERR_SHAPE, "the block size must be at least 1");
    if (n) {
      need(scales, "scales");
      need(codes, "codes");
      need(out, "out");
    }
    check_byte_codes(e, codes, n, "codes");
    check_scale_codes(sf, scales, n ? (n - 1) / block + 1 : 0, "scales");
    const Conversion c = conversion_of(ctx, d);
    Dequantizer dq(e, sf, d, c.ctx, *c.dialect);
    const Flags all = n ? dq.run(scales, codes, n, block, out, flags) : 0;
    if (flags_or) *flags_or = all;
  });
}

int dequantize_tensor_impl(const char* who, const softmx_format* element, const softmx_format* scale_format,
                           const size_t* shape, size_t rank, size_t axis, size_t block, const uint8_t* scales,
                           size_t scale_count, const uint8_t* codes, size_t code_count, const softmx_format* dst,
                           const softmx_context* ctx, void* out, size_t out_capacity, uint8_t* flags_or,
                           softmx_error* err) {
  return guard(err, who, [&] {
    const Format e = element_of(element, "element");
    const FormatId d = destination_of(dst);
    const ScaleFormat sf = scale_format_of(scale_format, "scale_format");
    const Extent x = extent_of(shape, rank, axis, block);
    check_dequantize_buffers(x, scale_count, code_count, out_capacity, scales, codes, out, "blocks");
    check_byte_codes(e, codes, code_count, "codes");
    check_scale_codes(sf, scales, scale_count, "scales");
    const Conversion c = conversion_of(ctx, d);
    const MxTensorRef t{e, std::span<const std::size_t>(shape, rank), axis, block,
                        std::span<const std::uint8_t>(scales, scale_count * sf.code_bytes()),
                        std::span<const std::uint8_t>(codes, code_count), sf};
    const Flags all = dequantize_tensor(t, d, out, c.ctx, *c.dialect, 1);
    if (flags_or) *flags_or = all;
  });
}

}  // namespace

int softmx_dequantize_element(const softmx_format* element, uint8_t scale, uint8_t code, const softmx_format* dst,
                              const softmx_context* ctx, uint64_t* result, uint8_t* flags, softmx_error* err) {
  return dequantize_element_impl("softmx_dequantize_element", element, nullptr, scale, code, dst, ctx, result, flags,
                                 err);
}

int softmx_dequantize(const softmx_format* element, const softmx_format* dst, const softmx_context* ctx,
                      const uint8_t* scales, const uint8_t* codes, size_t n, size_t block, void* out, uint8_t* flags,
                      uint8_t* flags_or, softmx_error* err) {
  return dequantize_impl("softmx_dequantize", element, nullptr, dst, ctx, scales, codes, n, block, out, flags, flags_or,
                         err);
}

int softmx_dequantize_tensor(const softmx_format* element, const size_t* shape, size_t rank, size_t axis, size_t block,
                             const uint8_t* scales, size_t scale_count, const uint8_t* codes, size_t code_count,
                             const softmx_format* dst, const softmx_context* ctx, void* out, size_t out_capacity,
                             uint8_t* flags_or, softmx_error* err) {
  return dequantize_tensor_impl("softmx_dequantize_tensor", element, nullptr, shape, rank, axis, block, scales,
                                scale_count, codes, code_count, dst, ctx, out, out_capacity, flags_or, err);
}

int softmx_dequantize_element_scaled(const softmx_format* element, const softmx_format* scale_format, uint32_t scale,
                                     uint8_t code, const softmx_format* dst, const softmx_context* ctx, uint64_t* result,
                                     uint8_t* flags, softmx_error* err) {
  return dequantize_element_impl("softmx_dequantize_element_scaled", element, scale_format, scale, code, dst, ctx,
                                 result, flags, err);
}

int softmx_dequantize_scaled(const softmx_format* element, const softmx_format* scale_format, const softmx_format* dst,
                             const softmx_context* ctx, const uint8_t* scales, const uint8_t* codes, size_t n,
                             size_t block, void* out, uint8_t* flags, uint8_t* flags_or, softmx_error* err) {
  return dequantize_impl("softmx_dequantize_scaled", element, scale_format, dst, ctx, scales, codes, n, block, out,
                         flags, flags_or, err);
}

int softmx_dequantize_tensor_scaled(const softmx_format* element, const softmx_format* scale_format,
                                    const size_t* shape, size_t rank, size_t axis, size_t block, const uint8_t* scales,
                                    size_t scale_count, const uint8_t* codes, size_t code_count,
                                    const softmx_format* dst, const softmx_context* ctx, void* out,
                                    size_t out_capacity, uint8_t* flags_or, softmx_error* err) {
  return dequantize_tensor_impl("softmx_dequantize_tensor_scaled", element, scale_format, shape, rank, axis, block,
                                scales, scale_count, codes, code_count, dst, ctx, out, out_capacity, flags_or, err);
}

int softmx_packed_size(const softmx_format* f, size_t n, size_t* bytes, softmx_error* err) {
  return guard(err, "softmx_packed_size", [&] {
    const Format id = descriptor_of(f, "format");
    need(bytes, "bytes");
    check_byte_codes(id, nullptr, 0, "format");
    *bytes = packed_size(id, n);
  });
}

int softmx_pack(const softmx_format* f, const uint8_t* codes, size_t n, uint8_t* out, size_t capacity,
                softmx_error* err) {
  return guard(err, "softmx_pack", [&] {
    const Format id = descriptor_of(f, "format");
    check_byte_codes(id, nullptr, 0, "format");
    if (n) need(codes, "codes");
    check_byte_codes(id, codes, n, "codes");
    const std::size_t bytes = packed_size(id, n);
    check_capacity(capacity, bytes, "out");
    if (bytes) need(out, "out");
    const std::vector<std::uint8_t> p = pack(id, std::span<const std::uint8_t>(codes, n));
    std::copy(p.begin(), p.end(), out);
  });
}

int softmx_unpack_codes(const softmx_format* f, const uint8_t* bytes, size_t n_bytes, size_t n, uint8_t* codes,
                        softmx_error* err) {
  return guard(err, "softmx_unpack_codes", [&] {
    const Format id = descriptor_of(f, "format");
    check_byte_codes(id, nullptr, 0, "format");
    const std::size_t want = packed_size(id, n);
    if (n_bytes != want)
      fail(SOFTMX_ERR_SHAPE, std::to_string(n) + " " + std::string(id.name) + " codes take " +
                                 std::to_string(want) + " bytes packed, n_bytes is " + std::to_string(n_bytes));
    if (n_bytes) need(bytes, "bytes");
    if (n) need(codes, "codes");
    const std::vector<std::uint8_t> c = unpack_codes(id, std::span<const std::uint8_t>(bytes, n_bytes), n);
    std::copy(c.begin(), c.end(), codes);
  });
}

}  // extern "C"

int softmx_scale_code_bytes(const softmx_format* scale_format, size_t* bytes, softmx_error* err) {
  return guard(err, "softmx_scale_code_bytes", [&] {
    need(bytes, "bytes");
    *bytes = scale_format_of(scale_format, "scale_format").code_bytes();
  });
}
