// capi/dot.cpp: Dot, DotGeneral (with an addend and f16/bf16 destinations: DotDestination) and
// the tensor-core mma (softmx/dot.hpp, tensor_core.hpp).
#include <vector>

#include "shell.hpp"
#include "softmx/tensor_core.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

void check_pairs(std::size_t n) {
  if (n == 0) fail(SOFTMX_ERR_SHAPE, "DotGeneral needs at least one block pair (n is 0)");
}

void check_pair(std::size_t j, std::size_t a, std::size_t b) {
  if (a == 0 || a != b)
    fail(SOFTMX_ERR_SHAPE, "block pair " + std::to_string(j) + " has " + std::to_string(a) + " and " +
                               std::to_string(b) + " elements; they need the same number, at least one");
}

void store(const Result& r, uint32_t* result, uint8_t* flags) {
  *result = static_cast<uint32_t>(r.code);
  if (flags) *flags = r.flags;
}

// softmx_dot_general_flat, its _scaled form (scale formats null: E8M0) and its _to form (the
// destination `to`, null: f32, and the addend *c, null: none; dest false: neither given, the
// plain DotGeneral); `who` names the entry point.
int dot_general_flat_impl(const char* who, const softmx_format* a_format, const softmx_format* a_scale_format,
                          const uint8_t* a_scales, const uint8_t* a_codes, const softmx_format* b_format,
                          const softmx_format* b_scale_format, const uint8_t* b_scales, const uint8_t* b_codes,
                          size_t block, size_t n, const softmx_context* ctx, const softmx_accumulation* model,
                          uint32_t* result, uint8_t* flags, softmx_error* err, bool dest = false,
                          const softmx_format* to = nullptr, const uint32_t* c = nullptr) {
  return guard(err, who, [&] {
    DotDestination dst;  // f32, no C
    if (dest) {
      if (to) {
        dst.to = named_of(to, "to", SOFTMX_ERR_UNSUPPORTED, "the destination is f32, f16 or bf16");
        if (dst.to != FormatId::f32 && dst.to != FormatId::f16 && dst.to != FormatId::bf16)
          fail(SOFTMX_ERR_UNSUPPORTED, "to: the destination is f32, f16 or bf16, not " + std::string(format(dst.to).name));
      }
      if (c) {
        check_code(dst.to, *c, "c");
        dst.c = *c;
      }
    }
    const Format fa = element_of(a_format, "a_format"), fb = element_of(b_format, "b_format");
    const ScaleFormat sa = scale_format_of(a_scale_format, "a_scale_format"),
                      sb = scale_format_of(b_scale_format, "b_scale_format");
    check_pairs(n);
    if (block == 0) fail(SOFTMX_ERR_SHAPE, "the block size must be at least 1");
    if (n > SIZE_MAX / block) fail(SOFTMX_ERR_SHAPE, "block * n overflows size_t");
    need(a_scales, "a_scales");
    need(a_codes, "a_codes");
    need(b_scales, "b_scales");
    need(b_codes, "b_codes");
    need(result, "result");
    check_byte_codes(fa, a_codes, n * block, "a_codes");
    check_byte_codes(fb, b_codes, n * block, "b_codes");
    check_scale_codes(sa, a_scales, n, "a_scales");
    check_scale_codes(sb, b_scales, n, "b_scales");
    // E8M0 is BlockRef's null scale format; any other is passed by its descriptor.
    const Format* psa = sa.is_e8m0() ? nullptr : &sa.format();
    const Format* psb = sb.is_e8m0() ? nullptr : &sb.format();
    std::vector<BlockRef> ra, rb;
    ra.reserve(n);
    rb.reserve(n);
    for (std::size_t j = 0; j < n; ++j) {
      ra.push_back(BlockRef{fa.id, load_scale_code(a_scales, j, sa.code_bytes()),
                            std::span<const std::uint8_t>(a_codes + j * block, block), &fa, psa});
      rb.push_back(BlockRef{fb.id, load_scale_code(b_scales, j, sb.code_bytes()),
                            std::span<const std::uint8_t>(b_codes + j * block, block), &fb, psb});
    }
    if (dest) store(dot_general(ra, rb, dst, plain_context_of(ctx), model_of(model)), result, flags);
    else store(dot_general(ra, rb, plain_context_of(ctx), model_of(model)), result, flags);
  });
}


}  // namespace

extern "C" {

int softmx_dot_general(const softmx_block* a, const softmx_block* b, size_t n, const softmx_context* ctx,
                       const softmx_accumulation* model, uint32_t* result, uint8_t* flags, softmx_error* err) {
  return guard(err, "softmx_dot_general", [&] {
    check_pairs(n);
    need(a, "a");
    need(b, "b");
    need(result, "result");
    std::vector<BlockRef> ra, rb;
    std::vector<Format> fa, fb;  // reserved up front: the BlockRefs point into them
    ra.reserve(n);
    rb.reserve(n);
    fa.reserve(n);
    fb.reserve(n);
    for (std::size_t j = 0; j < n; ++j) {
      check_pair(j, a[j].count, b[j].count);
      // A runtime element is passed by its descriptor (BlockRef::element), held in fa/fb below.
      fa.push_back(element_of(a[j].format, "a[j].format"));
      fb.push_back(element_of(b[j].format, "b[j].format"));
      need(a[j].codes, "a[j].codes");
      need(b[j].codes, "b[j].codes");
      check_byte_codes(fa[j], a[j].codes, a[j].count, "a[j].codes");
      check_byte_codes(fb[j], b[j].codes, b[j].count, "b[j].codes");
      ra.push_back(BlockRef{fa[j].id, a[j].scale, std::span<const std::uint8_t>(a[j].codes, a[j].count), &fa[j]});
      rb.push_back(BlockRef{fb[j].id, b[j].scale, std::span<const std::uint8_t>(b[j].codes, b[j].count), &fb[j]});
    }
    store(dot_general(ra, rb, plain_context_of(ctx), model_of(model)), result, flags);
  });
}

int softmx_dot_general_flat(const softmx_format* a_format, const uint8_t* a_scales, const uint8_t* a_codes,
                            const softmx_format* b_format, const uint8_t* b_scales, const uint8_t* b_codes,
                            size_t block, size_t n, const softmx_context* ctx, const softmx_accumulation* model,
                            uint32_t* result, uint8_t* flags, softmx_error* err) {
  return dot_general_flat_impl("softmx_dot_general_flat", a_format, nullptr, a_scales, a_codes, b_format, nullptr,
                               b_scales, b_codes, block, n, ctx, model, result, flags, err);
}

int softmx_dot_general_flat_scaled(const softmx_format* a_format, const softmx_format* a_scale_format,
                                   const uint8_t* a_scales, const uint8_t* a_codes, const softmx_format* b_format,
                                   const softmx_format* b_scale_format, const uint8_t* b_scales,
                                   const uint8_t* b_codes, size_t block, size_t n, const softmx_context* ctx,
                                   const softmx_accumulation* model, uint32_t* result, uint8_t* flags,
                                   softmx_error* err) {
  return dot_general_flat_impl("softmx_dot_general_flat_scaled", a_format, a_scale_format, a_scales, a_codes, b_format,
                               b_scale_format, b_scales, b_codes, block, n, ctx, model, result, flags, err);
}

int softmx_dot_general_flat_to(const softmx_format* a_format, const softmx_format* a_scale_format,
                               const uint8_t* a_scales, const uint8_t* a_codes, const softmx_format* b_format,
                               const softmx_format* b_scale_format, const uint8_t* b_scales, const uint8_t* b_codes,
                               size_t block, size_t n, const softmx_format* to, const uint32_t* c,
                               const softmx_context* ctx, const softmx_accumulation* model, uint32_t* result,
                               uint8_t* flags, softmx_error* err) {
  return dot_general_flat_impl("softmx_dot_general_flat_to", a_format, a_scale_format, a_scales, a_codes, b_format,
                               b_scale_format, b_scales, b_codes, block, n, ctx, model, result, flags, err, true, to, c);
}


int softmx_mma(const softmx_accumulation* model, const softmx_format* a_format, const uint8_t* a,
               const softmx_format* b_format, const uint8_t* b, size_t k, const softmx_format* acc, uint32_t c,
               uint32_t* d, uint8_t* flags, softmx_error* err) {
  return guard(err, "softmx_mma", [&] {
    const AccumulationModel& m = model_of(model);
    const auto* tc = dynamic_cast<const TensorCoreModel*>(&m);
    if (!tc)
      fail(SOFTMX_ERR_UNSUPPORTED, "the accumulation model " + std::string(m.name()) +
                                       " is not a tensor-core model (softmx_mma needs one: hopper-fp8-mma, "
                                       "hopper-fp8-wgmma)");
    // TensorCoreModel::mma takes FormatIds: the instructions it models read named formats only.
    const char* why = "a tensor-core model reads the named formats its instruction takes (softmx::TensorCoreModel::mma)";
    const FormatId fa = named_of(a_format, "a_format", SOFTMX_ERR_UNSUPPORTED, why),
                   fb = named_of(b_format, "b_format", SOFTMX_ERR_UNSUPPORTED, why);
    const FormatId fc = named_of(acc, "acc", SOFTMX_ERR_UNSUPPORTED, why);
    if (k == 0) fail(SOFTMX_ERR_SHAPE, "k must be at least 1");
    need(a, "a");
    need(b, "b");
    need(d, "d");
    check_byte_codes(fa, a, k, "a");
    check_byte_codes(fb, b, k, "b");
    check_code(fc, c, "c");
    store(tc->mma(fa, std::span<const std::uint8_t>(a, k), fb, std::span<const std::uint8_t>(b, k), fc, c), d, flags);
  });
}

}  // extern "C"
