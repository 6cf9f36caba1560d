// capi/convert.cpp: scalar and batch conversion (softmx::convert, softmx::Converter), between
// any two formats, named or runtime: the C descriptors become softmx::Format (descriptor_of)
// and the C++ overloads that take descriptors do the rest.
#include <memory>

#include "shell.hpp"
#include "softmx/batch.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

// Checks a batch's arguments against a converter: buffers, codes and (rs) random values.
void check_batch(const Converter& c, const void* in, void* out, std::size_t n, const std::uint64_t* rbits) {
  if (n == 0) return;
  need(in, "in");
  need(out, "out");
  check_codes(c.source_format(), in, n, "in");
  if (c.context().rounding == Rounding::rs && rbits)
    for (std::size_t i = 0; i < n; ++i) check_rbits(rbits[i], c.context().rbits_width, "rbits[i]");
}

const Converter& converter_of(const softmx_converter* h) { return need(h, "converter")->conv; }

}  // namespace

extern "C" {

int softmx_convert(const softmx_format* src, const softmx_format* dst, uint64_t code, const softmx_context* ctx,
                   uint64_t* result, uint8_t* flags, softmx_error* err) {
  return guard(err, "softmx_convert", [&] {
    const Format s = descriptor_of(src, "src"), d = descriptor_of(dst, "dst");
    need(result, "result");
    check_code(s, code, "code");
    const Conversion c = conversion_of(ctx, d);
    // Named pairs take the FormatId overload (no canonicalisation per call); the results are the same.
    const Result r = s.is_named() && d.is_named() ? convert(s.id, d.id, code, c.ctx, *c.dialect)
                                                  : convert(s, d, code, c.ctx, *c.dialect);
    *result = r.code;
    if (flags) *flags = r.flags;
  });
}

int softmx_convert_batch(const softmx_format* src, const softmx_format* dst, const softmx_context* ctx,
                         const void* in, void* out, uint8_t* flags, size_t n, const uint64_t* rbits,
                         softmx_error* err) {
  return guard(err, "softmx_convert_batch", [&] {
    const Format s = descriptor_of(src, "src"), d = descriptor_of(dst, "dst");
    const Conversion c = conversion_of(ctx, d);
    const Converter conv(s, d, c.ctx, *c.dialect);
    check_batch(conv, in, out, n, rbits);
    if (n) conv.run(in, out, flags, n, rbits);
  });
}

int softmx_converter_new(const softmx_format* src, const softmx_format* dst, const softmx_context* ctx,
                         softmx_converter** out, softmx_error* err) {
  return guard(err, "softmx_converter_new", [&] {
    need(out, "converter");
    *out = nullptr;
    const Format s = descriptor_of(src, "src"), d = descriptor_of(dst, "dst");
    const Conversion c = conversion_of(ctx, d);
    *out = new softmx_converter{Converter(s, d, c.ctx, *c.dialect)};
  });
}

void softmx_converter_free(softmx_converter* h) { delete h; }

int softmx_converter_convert(const softmx_converter* h, uint64_t code, uint64_t* result, uint8_t* flags,
                             softmx_error* err) {
  return guard(err, "softmx_converter_convert", [&] {
    const Converter& c = converter_of(h);
    need(result, "result");
    check_code(c.source_format(), code, "code");
    const Result r = c(code);
    *result = r.code;
    if (flags) *flags = r.flags;
  });
}

int softmx_converter_convert_rs(const softmx_converter* h, uint64_t code, uint64_t rbits, uint64_t* result,
                                uint8_t* flags, softmx_error* err) {
  return guard(err, "softmx_converter_convert_rs", [&] {
    const Converter& c = converter_of(h);
    need(result, "result");
    check_code(c.source_format(), code, "code");
    if (c.context().rounding == Rounding::rs) check_rbits(rbits, c.context().rbits_width, "rbits");
    const Result r = c(code, rbits);
    *result = r.code;
    if (flags) *flags = r.flags;
  });
}

int softmx_converter_run(const softmx_converter* h, const void* in, void* out, uint8_t* flags, size_t n,
                         const uint64_t* rbits, softmx_error* err) {
  return guard(err, "softmx_converter_run", [&] {
    const Converter& c = converter_of(h);
    check_batch(c, in, out, n, rbits);
    if (n) c.run(in, out, flags, n, rbits);
  });
}

int softmx_converter_run_on(const softmx_converter* h, int32_t isa, const void* in, void* out, uint8_t* flags,
                            size_t n, const uint64_t* rbits, softmx_error* err) {
  return guard(err, "softmx_converter_run_on", [&] {
    const Converter& c = converter_of(h);
    const Isa i = isa_of(isa, "isa");
    if (!isa_supported(i)) fail(SOFTMX_ERR_UNSUPPORTED, std::string("this CPU cannot run ") + name(i));
    check_batch(c, in, out, n, rbits);
    if (n) run_on(c, i, in, out, flags, n, rbits);
  });
}

int softmx_converter_info(const softmx_converter* h, softmx_format* src, softmx_format* dst, softmx_context* ctx,
                          softmx_error* err) {
  return guard(err, "softmx_converter_info", [&] {
    const Converter& c = converter_of(h);
    if (src) fill(src, c.source_format());
    if (dst) fill(dst, c.destination_format());
    if (ctx) {
      softmx_context_init(ctx);
      const Context& x = c.context();
      ctx->rounding = static_cast<int32_t>(x.rounding);
      ctx->saturation = c_saturation(x.saturation);
      ctx->tininess = c_tininess(x.tininess);
      ctx->rbits_width = x.rbits_width;
      ctx->rbits = x.rbits;
      ctx->dialect = handle_of(c.dialect());
    }
  });
}

}  // extern "C"
