/* hdl/softmx_dpi.c: the C side of the SystemVerilog package softmx_dpi (softmx_dpi.sv).
 *
 * Compile it with the testbench, by the simulator (it includes the simulator's svdpi.h), and
 * link the C API, libsoftmx.so:
 *
 *   verilator --binary ... softmx_dpi.sv tb.sv softmx_dpi.c \
 *     -CFLAGS "$(pkg-config --cflags softmx)" -LDFLAGS "$(pkg-config --libs softmx)"
 *
 * Each function translates SystemVerilog's DPI types (strings, 64-bit integers, bytes, open
 * arrays) into the C API (include/softmx/softmx.h) and back; it computes nothing itself.
 * Names ("e4m3", "rne", "finite", "ocp") are looked up on every call of the name-taking
 * functions; a sweep makes one converter (softmx_dpi_converter_new) and calls it with whole
 * arrays (softmx_dpi_converter_run), which runs softmx's batch kernels.
 *
 * Formats are named by any spec softmx_format_lookup takes (docs/SEMANTICS.md 1.2): the named
 * formats and their aliases ("e4m3", "float8_e5m2", ...) and runtime formats such as
 * "e4m3:specials=ieee" (FPnew's FP8ALT), "e4m3fnuz", "e3m4", "int4", in every function that
 * takes a format name; softmx_dpi_format says what a spec is (its width and canonical spec).
 *
 * Errors: every function returns 0 or a SOFTMX_ERR_* status (the chandle makers return null)
 * and leaves the message where softmx_dpi_error() finds it (a bad spec: the library's message,
 * naming the field). That message, and the canonical spec softmx_dpi_format hands back, are
 * per thread (C11 _Thread_local, C++ thread_local): a simulator calls a DPI function and then
 * softmx_dpi_error() from the same thread, and two threads never see each other's. They are
 * the only state this file keeps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softmx/softmx.h"
#include "svdpi.h"

/* The file compiles as C99/C11 and as C++ (some flows compile every DPI source with the C++
 * compiler); the DPI functions have C linkage either way. */
#ifdef __cplusplus
#define SOFTMX_DPI_THREAD_LOCAL thread_local
extern "C" {
#else
#define SOFTMX_DPI_THREAD_LOCAL _Thread_local
#endif

static SOFTMX_DPI_THREAD_LOCAL char last_error[SOFTMX_ERROR_MESSAGE_SIZE];
static SOFTMX_DPI_THREAD_LOCAL char last_format[SOFTMX_FORMAT_NAME_SIZE];

static int keep(int status, const softmx_error* e) {
  if (status == SOFTMX_OK)
    last_error[0] = '\0';
  else
    snprintf(last_error, sizeof last_error, "%s", e->message);
  return status;
}

static int fail(int status, const char* message) {
  snprintf(last_error, sizeof last_error, "%s", message);
  return status;
}

const char* softmx_dpi_error(void) { return last_error; }

int softmx_dpi_abi_version(void) { return softmx_abi_version(); }

/* "" and "default" ask for the dialect's default (SOFTMX_DEFAULT). */
static int is_default(const char* name) { return name == NULL || name[0] == '\0' || strcmp(name, "default") == 0; }

/* The context of rounding, saturation, tininess and dialect names. */
static int context_of(const char* rounding, const char* saturation, const char* tininess, const char* dialect,
                      softmx_context* ctx, softmx_error* e) {
  int s;
  softmx_context_init(ctx);
  if (!is_default(rounding) && (s = softmx_rounding_from_name(rounding, &ctx->rounding, e)) != SOFTMX_OK) return s;
  if (!is_default(saturation) && (s = softmx_saturation_from_name(saturation, &ctx->saturation, e)) != SOFTMX_OK)
    return s;
  if (!is_default(tininess) && (s = softmx_tininess_from_name(tininess, &ctx->tininess, e)) != SOFTMX_OK) return s;
  if (!is_default(dialect) && (s = softmx_dialect_lookup(dialect, &ctx->dialect, e)) != SOFTMX_OK) return s;
  return SOFTMX_OK;
}

/* ---- formats --------------------------------------------------------------------------------- */

/* What `spec` names: *width its bits, *canonical its canonical spec ("float8_e4m3" gives
 * "e4m3:specials=ieee"; valid until this thread's next softmx_dpi_format call), *runtime 1 for a
 * runtime format, 0 for a named one. On failure the outputs are 0 and "". */
int softmx_dpi_format(const char* spec, int* width, const char** canonical, int* runtime) {
  softmx_error e;
  softmx_format f;
  int s = softmx_format_lookup(spec, &f, &e);
  *width = 0;
  *runtime = 0;
  last_format[0] = '\0';
  *canonical = last_format;
  if (s != SOFTMX_OK) return keep(s, &e);
  *width = f.width;
  *runtime = f.id == SOFTMX_FORMAT_RUNTIME;
  snprintf(last_format, sizeof last_format, "%s", f.name);
  return keep(SOFTMX_OK, &e);
}

/* ---- conversion ------------------------------------------------------------------------------ */

/* What a one-value call (softmx_dpi_convert, softmx_dpi_dequantize) works with: its source and
 * destination formats, its context, the result code and its flags, and the error of a failure. */
typedef struct {
  softmx_error e;
  softmx_format from, to;
  softmx_context ctx;
  uint64_t result;
  uint8_t flags;
} one_value;

/* Looks up the formats `from` and `to` and builds the context of rounding, saturation and
 * dialect (tininess: the dialect's) into *v, whose result and flags it zeroes. Returns SOFTMX_OK
 * or the first failing status, v->e saying why. */
static int one_value_setup(one_value* v, const char* from, const char* to, const char* rounding,
                           const char* saturation, const char* dialect) {
  int s;
  v->result = 0;
  v->flags = 0;
  if ((s = softmx_format_lookup(from, &v->from, &v->e)) != SOFTMX_OK ||
      (s = softmx_format_lookup(to, &v->to, &v->e)) != SOFTMX_OK)
    return s;
  return context_of(rounding, saturation, "", dialect, &v->ctx, &v->e);
}

/* A one-value call's success: hands its result and flags to the DPI outputs. */
static int one_value_done(one_value* v, unsigned long long* result, unsigned char* flags) {
  *result = v->result;
  *flags = v->flags;
  return keep(SOFTMX_OK, &v->e);
}

int softmx_dpi_convert(const char* src, const char* dst, unsigned long long code, const char* rounding,
                       const char* saturation, const char* dialect, unsigned long long* result,
                       unsigned char* flags) {
  one_value v;
  int s;
  if ((s = one_value_setup(&v, src, dst, rounding, saturation, dialect)) != SOFTMX_OK ||
      (s = softmx_convert(&v.from, &v.to, code, &v.ctx, &v.result, &v.flags, &v.e)) != SOFTMX_OK)
    return keep(s, &v.e);
  return one_value_done(&v, result, flags);
}

void* softmx_dpi_converter_new(const char* src, const char* dst, const char* rounding, const char* saturation,
                               const char* tininess, const char* dialect) {
  softmx_error e;
  softmx_format f, t;
  softmx_context ctx;
  softmx_converter* c = NULL;
  int s;
  if ((s = softmx_format_lookup(src, &f, &e)) != SOFTMX_OK || (s = softmx_format_lookup(dst, &t, &e)) != SOFTMX_OK ||
      (s = context_of(rounding, saturation, tininess, dialect, &ctx, &e)) != SOFTMX_OK ||
      (s = softmx_converter_new(&f, &t, &ctx, &c, &e)) != SOFTMX_OK) {
    keep(s, &e);
    return NULL;
  }
  keep(SOFTMX_OK, &e);
  return c;
}

void softmx_dpi_converter_free(void* converter) { softmx_converter_free((softmx_converter*)converter); }

int softmx_dpi_converter_convert(void* converter, unsigned long long code, unsigned long long* result,
                                 unsigned char* flags) {
  softmx_error e;
  uint64_t r = 0;
  uint8_t fl = 0;
  int s = softmx_converter_convert((const softmx_converter*)converter, code, &r, &fl, &e);
  if (s == SOFTMX_OK) {
    *result = r;
    *flags = fl;
  }
  return keep(s, &e);
}

/* An open array's elements, contiguous: svGetArrayPtr where the simulator has one, else a copy
 * element by element (into `copy`, `bytes` each). */
static const void* read_array(const svOpenArrayHandle h, size_t n, size_t bytes, void* copy) {
  const void* p = svGetArrayPtr(h);
  size_t i;
  if (p) return p;
  for (i = 0; i < n; ++i) memcpy((char*)copy + i * bytes, svGetArrElemPtr1(h, svLow(h, 1) + (int)i), bytes);
  return copy;
}

static void write_array(const svOpenArrayHandle h, size_t n, size_t bytes, const void* from) {
  void* p = svGetArrayPtr(h);
  size_t i;
  if (p) {
    memcpy(p, from, n * bytes);
    return;
  }
  for (i = 0; i < n; ++i) memcpy(svGetArrElemPtr1(h, svLow(h, 1) + (int)i), (const char*)from + i * bytes, bytes);
}

/* Narrows 64-bit codes into a storage type of `bytes` (1, 2, 4, 8), and widens back. */
static void narrow(const uint64_t* in, void* out, size_t n, size_t bytes) {
  size_t i;
  for (i = 0; i < n; ++i) switch (bytes) {
      case 1: ((uint8_t*)out)[i] = (uint8_t)in[i]; break;
      case 2: ((uint16_t*)out)[i] = (uint16_t)in[i]; break;
      case 4: ((uint32_t*)out)[i] = (uint32_t)in[i]; break;
      default: ((uint64_t*)out)[i] = in[i]; break;
    }
}
static void widen(const void* in, uint64_t* out, size_t n, size_t bytes) {
  size_t i;
  for (i = 0; i < n; ++i) switch (bytes) {
      case 1: out[i] = ((const uint8_t*)in)[i]; break;
      case 2: out[i] = ((const uint16_t*)in)[i]; break;
      case 4: out[i] = ((const uint32_t*)in)[i]; break;
      default: out[i] = ((const uint64_t*)in)[i]; break;
    }
}

int softmx_dpi_converter_run(void* converter, const svOpenArrayHandle codes, const svOpenArrayHandle results,
                             const svOpenArrayHandle flags) {
  softmx_error e;
  softmx_format f, t;
  const softmx_converter* c = (const softmx_converter*)converter;
  size_t n, in_bytes, out_bytes;
  void *in = NULL, *out = NULL, *codes_copy = NULL;
  uint64_t* wide = NULL;
  uint8_t* fl = NULL;
  int s;
  if ((s = softmx_converter_info(c, &f, &t, NULL, &e)) != SOFTMX_OK) return keep(s, &e);
  n = (size_t)svSize(codes, 1);
  if ((size_t)svSize(results, 1) < n || (size_t)svSize(flags, 1) < n)
    return fail(SOFTMX_ERR_BUFFER_TOO_SMALL, "softmx_dpi_converter_run: results[] and flags[] need as many elements "
                                             "as codes[]");
  in_bytes = softmx_storage_bytes(&f);
  out_bytes = softmx_storage_bytes(&t);
  codes_copy = malloc(n * 8 + 1);
  in = malloc(n * in_bytes + 1);
  out = malloc(n * out_bytes + 1);
  wide = (uint64_t*)malloc(n * 8 + 1);
  fl = (uint8_t*)malloc(n + 1);
  if (!codes_copy || !in || !out || !wide || !fl) {
    s = fail(SOFTMX_ERR_OUT_OF_MEMORY, "softmx_dpi_converter_run: out of memory");
  } else {
    narrow((const uint64_t*)read_array(codes, n, 8, codes_copy), in, n, in_bytes);
    s = keep(softmx_converter_run(c, in, out, fl, n, NULL, &e), &e);
    if (s == SOFTMX_OK) {
      widen(out, wide, n, out_bytes);
      write_array(results, n, 8, wide);
      write_array(flags, n, 1, fl);
    }
  }
  free(codes_copy);
  free(in);
  free(out);
  free(wide);
  free(fl);
  return s;
}

/* ---- blocks ---------------------------------------------------------------------------------- */

int softmx_dpi_quantize_block(const char* src, const char* element, const char* scale_rule, const char* rounding,
                              const char* saturation, const char* dialect, const svOpenArrayHandle values,
                              unsigned char* scale, const svOpenArrayHandle codes, unsigned char* flags) {
  softmx_error e;
  softmx_format f, el;
  softmx_block_options o;
  softmx_context ctx;
  size_t n = (size_t)svSize(values, 1), bytes;
  void *copy = NULL, *in = NULL;
  uint8_t *out = NULL, sc = 0, fl = 0;
  int s;
  if ((s = softmx_format_lookup(src, &f, &e)) != SOFTMX_OK || (s = softmx_format_lookup(element, &el, &e)) != SOFTMX_OK ||
      (s = context_of(rounding, saturation, "", dialect, &ctx, &e)) != SOFTMX_OK)
    return keep(s, &e);
  softmx_block_options_init(&o);
  o.element = &el;
  o.dialect = ctx.dialect;
  o.rounding = ctx.rounding;
  o.saturation = ctx.saturation;
  if (!is_default(scale_rule) && (s = softmx_scale_rule_from_name(scale_rule, &o.scale_rule, &e)) != SOFTMX_OK)
    return keep(s, &e);
  if ((size_t)svSize(codes, 1) < n)
    return fail(SOFTMX_ERR_BUFFER_TOO_SMALL, "softmx_dpi_quantize_block: codes[] needs as many elements as values[]");
  bytes = softmx_storage_bytes(&f);
  copy = malloc(n * 8 + 1);
  in = malloc(n * bytes + 1);
  out = (uint8_t*)malloc(n + 1);
  if (!copy || !in || !out) {
    s = fail(SOFTMX_ERR_OUT_OF_MEMORY, "softmx_dpi_quantize_block: out of memory");
  } else {
    narrow((const uint64_t*)read_array(values, n, 8, copy), in, n, bytes);
    s = keep(softmx_quantize_block(&f, in, n, &o, &sc, out, &fl, &e), &e);
    if (s == SOFTMX_OK) {
      *scale = sc;
      *flags = fl;
      write_array(codes, n, 1, out);
    }
  }
  free(copy);
  free(in);
  free(out);
  return s;
}

int softmx_dpi_dequantize(const char* element, const char* dst, unsigned char scale, unsigned char code,
                          const char* rounding, const char* saturation, const char* dialect,
                          unsigned long long* result, unsigned char* flags) {
  one_value v;
  int s;
  if ((s = one_value_setup(&v, element, dst, rounding, saturation, dialect)) != SOFTMX_OK ||
      (s = softmx_dequantize_element(&v.from, scale, code, &v.to, &v.ctx, &v.result, &v.flags, &v.e)) != SOFTMX_OK)
    return keep(s, &v.e);
  return one_value_done(&v, result, flags);
}

/* ---- dot ------------------------------------------------------------------------------------ */

/* softmx_dpi_dot and softmx_dpi_dot_to: one body. `fn` names the caller in messages; `to` NULL
 * is softmx_dpi_dot (softmx_dot_general_flat: f32, no addend, saturation by destination), else
 * softmx_dot_general_flat_to into `to` with the addend c when `addend` is not 0. */
static int dot_any(const char* fn, const char* a_format, const char* b_format, const char* model, int block,
                   const svOpenArrayHandle a_scales, const svOpenArrayHandle a_codes,
                   const svOpenArrayHandle b_scales, const svOpenArrayHandle b_codes, const char* to, int addend,
                   unsigned int c, const char* rounding, const char* saturation, unsigned int* result,
                   unsigned char* flags) {
  softmx_error e;
  softmx_format fa, fb, ft;
  softmx_context ctx;
  const softmx_accumulation* m = NULL;
  size_t n = (size_t)svSize(a_scales, 1), k = block > 0 ? (size_t)block : 0;
  uint8_t *as = NULL, *ac = NULL, *bs = NULL, *bc = NULL, fl = 0;
  uint32_t r = 0, cc = (uint32_t)c;
  char msg[160];
  int s;
  if ((s = softmx_format_lookup(a_format, &fa, &e)) != SOFTMX_OK ||
      (s = softmx_format_lookup(b_format, &fb, &e)) != SOFTMX_OK ||
      (to && (s = softmx_format_lookup(is_default(to) ? "f32" : to, &ft, &e)) != SOFTMX_OK) ||
      (!is_default(model) && (s = softmx_accumulation_lookup(model, &m, &e)) != SOFTMX_OK) ||
      (s = context_of(rounding, saturation, "", "", &ctx, &e)) != SOFTMX_OK)
    return keep(s, &e);
  if (k == 0) {
    snprintf(msg, sizeof msg, "%s: block must be at least 1", fn);
    return fail(SOFTMX_ERR_SHAPE, msg);
  }
  if ((size_t)svSize(b_scales, 1) != n || (size_t)svSize(a_codes, 1) != n * k || (size_t)svSize(b_codes, 1) != n * k) {
    snprintf(msg, sizeof msg, "%s: a_scales[] and b_scales[] need n elements, a_codes[] and b_codes[] n * block", fn);
    return fail(SOFTMX_ERR_SHAPE, msg);
  }
  as = (uint8_t*)malloc(n + 1);
  bs = (uint8_t*)malloc(n + 1);
  ac = (uint8_t*)malloc(n * k + 1);
  bc = (uint8_t*)malloc(n * k + 1);
  if (!as || !bs || !ac || !bc) {
    snprintf(msg, sizeof msg, "%s: out of memory", fn);
    s = fail(SOFTMX_ERR_OUT_OF_MEMORY, msg);
  } else {
    const uint8_t* pas = (const uint8_t*)read_array(a_scales, n, 1, as);
    const uint8_t* pbs = (const uint8_t*)read_array(b_scales, n, 1, bs);
    const uint8_t* pac = (const uint8_t*)read_array(a_codes, n * k, 1, ac);
    const uint8_t* pbc = (const uint8_t*)read_array(b_codes, n * k, 1, bc);
    s = keep(to ? softmx_dot_general_flat_to(&fa, NULL, pas, pac, &fb, NULL, pbs, pbc, k, n, &ft, addend ? &cc : NULL,
                                             &ctx, m, &r, &fl, &e)
                : softmx_dot_general_flat(&fa, pas, pac, &fb, pbs, pbc, k, n, &ctx, m, &r, &fl, &e),
             &e);
    if (s == SOFTMX_OK) {
      *result = r;
      *flags = fl;
    }
  }
  free(as);
  free(bs);
  free(ac);
  free(bc);
  return s;
}

int softmx_dpi_dot(const char* a_format, const char* b_format, const char* model, int block,
                   const svOpenArrayHandle a_scales, const svOpenArrayHandle a_codes, const svOpenArrayHandle b_scales,
                   const svOpenArrayHandle b_codes, const char* rounding, unsigned int* result, unsigned char* flags) {
  return dot_any("softmx_dpi_dot", a_format, b_format, model, block, a_scales, a_codes, b_scales, b_codes, NULL, 0, 0,
                 rounding, "", result, flags);
}

/* DotGeneral with an addend and a destination (softmx_dot_general_flat_to, docs/BLOCKS.md 5.1):
 * `to` "f32" (or "" / "default"), "f16" or "bf16"; addend 0: no C, else c is C, a code of `to`;
 * *result receives a code of `to` rounded with `rounding` and `saturation`. */
int softmx_dpi_dot_to(const char* a_format, const char* b_format, const char* model, int block,
                      const svOpenArrayHandle a_scales, const svOpenArrayHandle a_codes,
                      const svOpenArrayHandle b_scales, const svOpenArrayHandle b_codes, const char* to, int addend,
                      unsigned int c, const char* rounding, const char* saturation, unsigned int* result,
                      unsigned char* flags) {
  return dot_any("softmx_dpi_dot_to", a_format, b_format, model, block, a_scales, a_codes, b_scales, b_codes,
                 to ? to : "", addend, c, rounding, saturation, result, flags);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif
