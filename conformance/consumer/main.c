/* A C program of softmx's users (conformance/consumer/run.sh builds it against an installed
 * softmx, by find_package and by pkg-config): a conversion, a batch, a block, a dot, conversions
 * into and out of runtime formats named by spec, and errors, each checked against values
 * computed by hand. Prints what it computed; exit 0 when all agree. */
#include <stdio.h>
#include <string.h>

#include "softmx/softmx.h"

static int failures = 0;

static void expect(const char* what, unsigned long long got, unsigned long long want) {
  printf("%-44s %llX%s\n", what, got, got == want ? "" : "  MISMATCH");
  if (got != want) {
    fprintf(stderr, "consumer_c: %s: got %llX, expected %llX\n", what, got, want);
    ++failures;
  }
}

int main(void) {
  softmx_format f32, e4m3, e2m1;
  softmx_context ctx = SOFTMX_CONTEXT_INIT;
  softmx_error err;
  uint64_t code = 0;
  uint8_t flags = 0, scale = 0, codes[4];
  uint32_t dot = 0;
  const uint32_t in[4] = {0x3F800000u, 0x43E80001u, 0xC0400000u, 0x7F800000u}; /* 1, 464+, -3, Inf */
  const uint8_t a_scale = 0x7F, b_scale = 0x80, a_codes[4] = {0x38, 0x38, 0x38, 0x38}, b_codes[4] = {0x40, 0x40, 0x40, 0x40};
  size_t i;

  expect("ABI version (library == header)", (unsigned long long)softmx_abi_version(), SOFTMX_ABI_VERSION);
  if (softmx_format_lookup("f32", &f32, &err) || softmx_format_lookup("float8_e4m3fn", &e4m3, &err) ||
      softmx_format_lookup("fp4", &e2m1, &err)) {
    fprintf(stderr, "consumer_c: %s\n", err.message);
    return 1;
  }
  /* 464 + 2^-15 is above the E4M3 tie at 464, so it rounds past 448 (overflow); satfinite gives
   * 448 (7E) with overflow and inexact. */
  if (softmx_convert(&f32, &e4m3, 0x43E80001u, &ctx, &code, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
  expect("convert f32 43E80001 -> e4m3", code, 0x7E);
  expect("  flags", flags, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT);
  /* A batch into e2m1: 1 -> 2 (1.0), 464+ -> 7 (6, saturated), -3 -> D, Inf -> 7 (invalid). */
  {
    uint8_t out[4], fl[4];
    if (softmx_convert_batch(&f32, &e2m1, &ctx, in, out, fl, 4, NULL, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("batch f32 3F800000 -> e2m1", out[0], 0x2);
    expect("batch f32 43E80001 -> e2m1 (satfinite)", out[1], 0x7);
    expect("batch f32 C0400000 -> e2m1", out[2], 0xD);
    expect("batch f32 7F800000 -> e2m1", out[3], 0x7);
    expect("  flags of Inf", fl[3], SOFTMX_FLAG_INVALID);
  }
  /* One MX block of 1, 464+, -3, 0 into e4m3 (floor rule): amax 464 -> scale 2^0 (7F), as 448 saturates. */
  {
    const uint32_t blk[4] = {0x3F800000u, 0x43E80001u, 0xC0400000u, 0};
    if (softmx_quantize_block(&f32, blk, 4, NULL, &scale, codes, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("quantize_block scale", scale, 0x7F);
    expect("  codes[0..3]", (unsigned long long)codes[0] << 24 | (unsigned long long)codes[1] << 16 |
                                (unsigned long long)codes[2] << 8 | codes[3], 0x387EC400ull);
  }
  /* Dot of (1,1,1,1) * 2^0 and (2,2,2,2) * 2^1: 16 = 0x41800000. */
  {
    const softmx_block a = {&e4m3, a_scale, a_codes, 4}, b = {&e4m3, b_scale, b_codes, 4};
    const softmx_accumulation* m = NULL;
    if (softmx_accumulation_lookup("fp32-sequential", &m, &err) ||
        softmx_dot_general(&a, &b, 1, NULL, m, &dot, &flags, &err))
      return fprintf(stderr, "%s\n", err.message), 1;
    expect("dot_general fp32-sequential", dot, 0x41800000u);
  }
  /* A runtime element (issue 14): 1.75, 0.875, -0.5, 0 into e1m2 (bias 1, max 1.75, emax 0):
     scale 2^0 (7F); 0.875 ties between 0.75 (3) and 1.0 (4), rne takes the even 4; -0.5 is A. */
  {
    softmx_format e1m2;
    softmx_block_options o;
    const uint32_t blk[4] = {0x3FE00000u, 0x3F600000u, 0xBF000000u, 0};
    if (softmx_format_lookup("e1m2", &e1m2, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("e1m2 is a runtime format", (unsigned long long)(e1m2.id == SOFTMX_FORMAT_RUNTIME), 1);
    softmx_block_options_init(&o);
    o.element = &e1m2;
    if (softmx_quantize_block(&f32, blk, 4, &o, &scale, codes, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("e1m2 quantize_block scale", scale, 0x7F);
    expect("  codes[0..3]", (unsigned long long)codes[0] << 24 | (unsigned long long)codes[1] << 16 |
                                (unsigned long long)codes[2] << 8 | codes[3], 0x07040A00ull);
  }
  /* Runtime formats in conversions (issue 26), named by spec: FPnew's FP8ALT, E4M3 with IEEE
     specials (max 240 = 77, Inf 78): 248 rounds past 240, so the default (an IEEE-like
     destination overflows to Inf, as f16: SEMANTICS 4.1) and saturation none give Inf 78, and
     satfinite gives 77, each with overflow and inexact. Then a converter from f32 into e4m3fnuz
     (NaN 80, max 240 = 7F): 1, 240, NaN, -0 give 40, 7F, 80, 00; back from e4m3fnuz 80 is NaN. */
  {
    softmx_format alt, fnuz;
    softmx_context none = SOFTMX_CONTEXT_INIT, finite = SOFTMX_CONTEXT_INIT;
    softmx_converter* c = NULL;
    const uint32_t vals[4] = {0x3F800000u, 0x43700000u, 0x7FC00000u, 0x80000000u};
    uint8_t out[4], fl[4];
    none.saturation = SOFTMX_SAT_NONE;
    finite.saturation = SOFTMX_SAT_FINITE;
    if (softmx_format_lookup("e4m3:specials=ieee", &alt, &err) || softmx_format_lookup("e4m3fnuz", &fnuz, &err))
      return fprintf(stderr, "%s\n", err.message), 1;
    expect("e4m3:specials=ieee is a runtime format", (unsigned long long)(alt.id == SOFTMX_FORMAT_RUNTIME), 1);
    if (softmx_convert(&f32, &alt, 0x43780000u, &ctx, &code, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("convert f32 43780000 -> e4m3:specials=ieee (default: Inf)", code, 0x78);
    expect("  flags", flags, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT);
    if (softmx_convert(&f32, &alt, 0x43780000u, &finite, &code, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("  with saturation finite", code, 0x77);
    expect("  flags", flags, SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT);
    if (softmx_convert(&f32, &alt, 0x43780000u, &none, &code, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("  with saturation none (Inf)", code, 0x78);
    if (softmx_converter_new(&f32, &fnuz, &ctx, &c, &err) || softmx_converter_run(c, vals, out, fl, 4, NULL, &err))
      return fprintf(stderr, "%s\n", err.message), 1;
    softmx_converter_free(c);
    expect("converter f32 -> e4m3fnuz: 1, 240, NaN, -0", (unsigned long long)out[0] << 24 | (unsigned long long)out[1] << 16 |
                                                           (unsigned long long)out[2] << 8 | out[3], 0x407F8000ull);
    if (softmx_convert(&fnuz, &f32, 0x80, &ctx, &code, &flags, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    expect("convert e4m3fnuz 80 -> f32 (NaN)", code, 0xFFC00000u);
  }
  /* Errors: an unknown format, and a spec with a bad field, with their status and message. */
  {
    softmx_format x;
    int s = softmx_format_lookup("e4m3x", &x, &err);
    expect("unknown format: status", (unsigned long long)s, SOFTMX_ERR_UNKNOWN_NAME);
    printf("  message: %s\n", err.message);
    if (strstr(err.message, "unknown format 'e4m3x'") == NULL) ++failures;
    s = softmx_format_lookup("e9m2", &x, &err);
    expect("bad spec: status", (unsigned long long)s, SOFTMX_ERR_INVALID_ARGUMENT);
    if (strstr(err.message, "exp:") == NULL) ++failures;
    s = softmx_format_lookup("e4m3:specials=foo", &x, &err);
    expect("bad specials: status", (unsigned long long)s, SOFTMX_ERR_INVALID_ARGUMENT);
    printf("  message: %s\n", err.message);
    if (strstr(err.message, "specials: expected ieee, fn, fnuz or none") == NULL) ++failures;
  }
  for (i = 0; i < softmx_dialect_count(); ++i) printf("dialect %s\n", softmx_dialect_name(softmx_dialect_at(i)));
  printf("consumer_c: %s\n", failures ? "FAILED" : "all results as expected");
  return failures ? 1 : 0;
}
