/* softmx/softmx.h: the C API of softmx (C99 and later, and C++).
 *
 * A thin shell over the C++ library (the .hpp headers beside this one): every entry point
 * translates its arguments, calls the C++ function of the same name and translates the result
 * and any error back. It computes nothing of its own, so its results are the C++ API's bit for
 * bit.
 *
 *   softmx_format f32, e4m3;
 *   softmx_format_lookup("f32", &f32, NULL);
 *   softmx_format_lookup("e4m3", &e4m3, NULL);
 *   softmx_context ctx = SOFTMX_CONTEXT_INIT;            (rne, the dialect's saturation, ocp)
 *   uint64_t code; uint8_t flags; softmx_error err;
 *   if (softmx_convert(&f32, &e4m3, 0x43E80000u, &ctx, &code, &flags, &err) != SOFTMX_OK)
 *     fprintf(stderr, "%s\n", err.message);
 *   // code == 0x7E (448), flags == SOFTMX_FLAG_INEXACT
 *
 * Any format spec of docs/SEMANTICS.md 1.2 works the same way (softmx_format):
 *
 *   softmx_format fp8alt;                                (FPnew's FP8ALT: E4M3, IEEE specials)
 *   if (softmx_format_lookup("e4m3:specials=ieee", &fp8alt, &err) != SOFTMX_OK) ...
 *   softmx_convert(&f32, &fp8alt, 0x43780000u, &ctx, &code, &flags, &err);
 *   // 248: code == 0x77 (240, satfinite), flags == SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT
 *
 * Conventions, for every function:
 * - Codes are unsigned integers holding a format's bit pattern in their low `width` bits
 *   (uint64_t for one value; arrays in the format's storage type, softmx_storage_bytes()).
 * - Functions that can fail return an int status: SOFTMX_OK (0) or one of SOFTMX_ERR_*. The
 *   last parameter, `err`, may be NULL; when it is not, it receives the status and a message
 *   naming the argument and what was expected (on success: code 0, empty message). Messages are
 *   truncated to SOFTMX_ERROR_MESSAGE_SIZE - 1 bytes. softmx keeps no error state of its own,
 *   so any number of threads may call it at once, each with its own softmx_error.
 * - No C++ exception leaves the library: every entry point catches everything.
 * - On failure the outputs are unspecified (they may be partly written); inputs are never
 *   modified.
 * - Enumerated options are int32_t constants (SOFTMX_ROUND_RNE, ...). SOFTMX_DEFAULT (-1), where
 *   a field allows it, asks for what the dialect uses for the destination when not told (as the
 *   command line without --round or --sat): softmx_dialect_support() says what that is.
 *
 * ABI. SOFTMX_ABI_VERSION numbers the binary interface; the shared library's soname is
 * libsoftmx.so.<SOFTMX_ABI_VERSION>, and any change that would break a program compiled against
 * this header (a struct layout, a function's parameters, an enumerator's value) increments it.
 * Structs carry reserved fields (set them to zero: the init functions do) so that fields can be
 * added without a new ABI. softmx_abi_version() returns the library's value: a program may
 * check it against the macro it was compiled with. Serving more arguments than before (runtime
 * formats in conversions) changes no ABI; libsoftmx.so exports every softmx_* function
 * (capi/softmx.map).
 */
#ifndef SOFTMX_SOFTMX_H
#define SOFTMX_SOFTMX_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SOFTMX_API
#else
#define SOFTMX_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ---------------------------------------------------------------------------- */

/** The C ABI version this header describes. */
#define SOFTMX_ABI_VERSION 1
/** The softmx release this header comes with. */
#define SOFTMX_VERSION_MAJOR 0
#define SOFTMX_VERSION_MINOR 1
#define SOFTMX_VERSION_PATCH 0

/** The C ABI version of the library linked at run time (SOFTMX_ABI_VERSION when it matches). */
SOFTMX_API int softmx_abi_version(void);
/** The library's release as "MAJOR.MINOR.PATCH" (a static string). */
SOFTMX_API const char* softmx_version(void);

/* ---- status codes and errors ------------------------------------------------------------- */

enum {
  SOFTMX_OK = 0,
  SOFTMX_ERR_NULL_POINTER = 1,     /**< a required pointer argument is NULL */
  SOFTMX_ERR_UNKNOWN_NAME = 2,     /**< a format spec, dialect, mode, rule or model name is unknown */
  SOFTMX_ERR_INVALID_ARGUMENT = 3, /**< an enumerated value or a number is out of its range */
  SOFTMX_ERR_BAD_CODE = 4,         /**< a code has bits set above its format's width */
  SOFTMX_ERR_UNSUPPORTED = 5,      /**< the dialect (or operation) does not support this format or mode */
  SOFTMX_ERR_SHAPE = 6,            /**< a shape, axis, block size or length does not fit */
  SOFTMX_ERR_BUFFER_TOO_SMALL = 7, /**< an output buffer's capacity is below what is needed */
  SOFTMX_ERR_OUT_OF_MEMORY = 8,    /**< allocation failed */
  SOFTMX_ERR_INTERNAL = 9          /**< anything else (a bug: please report the message) */
};

#define SOFTMX_ERROR_MESSAGE_SIZE 512

/** Where a failing call explains itself. Caller-owned; softmx writes it only when passed one. */
typedef struct softmx_error {
  int32_t code;                             /**< the status the call returned */
  char message[SOFTMX_ERROR_MESSAGE_SIZE];  /**< NUL-terminated; empty on success */
} softmx_error;

/** The name of a status ("SOFTMX_OK", "SOFTMX_ERR_BAD_CODE", ...); "SOFTMX_ERR_?" if unknown. */
SOFTMX_API const char* softmx_status_name(int status);

/* ---- flags (TestFloat's bits, as softmx/flags.hpp) ----------------------------------------- */

#define SOFTMX_FLAG_INEXACT 0x01u   /**< the delivered value differs from the exact one */
#define SOFTMX_FLAG_UNDERFLOW 0x02u /**< tiny and inexact */
#define SOFTMX_FLAG_OVERFLOW 0x04u  /**< too large for the destination after rounding */
#define SOFTMX_FLAG_INFINITE 0x08u  /**< division by zero (never raised by these operations) */
#define SOFTMX_FLAG_INVALID 0x10u   /**< no meaningful result (docs/SEMANTICS.md 5.1) */

/* ---- enumerations -------------------------------------------------------------------------- */

/** "Use the default": the dialect's choice for the destination (see softmx_dialect_support). */
#define SOFTMX_DEFAULT (-1)

/* Rounding modes (docs/SEMANTICS.md 2). */
enum {
  SOFTMX_ROUND_RNE = 0, /**< to nearest, ties to even */
  SOFTMX_ROUND_RNA = 1, /**< to nearest, ties away from zero */
  SOFTMX_ROUND_RZ = 2,  /**< toward zero */
  SOFTMX_ROUND_RU = 3,  /**< toward +infinity */
  SOFTMX_ROUND_RD = 4,  /**< toward -infinity */
  SOFTMX_ROUND_RO = 5,  /**< to odd */
  SOFTMX_ROUND_RS = 6   /**< stochastic, with caller-given random bits (rbits_width, rbits) */
};
/* Saturation (docs/SEMANTICS.md 4). */
enum {
  SOFTMX_SAT_FINITE = 0,   /**< overflow and Inf give +-max finite (OFP8 SAT, PTX .satfinite) */
  SOFTMX_SAT_NONE = 1,     /**< overflow gives Inf, or NaN where the format has no Inf */
  SOFTMX_SAT_PROPAGATE = 2 /**< IEEE P3109's SatPropagate: finite overflow gives +-max finite, an
                                Inf input stays Inf (docs/SEMANTICS.md 4; only dialects that list
                                it accept it: p3109). Added without an ABI change; a library
                                built before it refuses the value (SOFTMX_ERR_INVALID_ARGUMENT) */
};
/* When a result is tiny, for the underflow flag (docs/SEMANTICS.md 5.3): after rounding (IEEE
   754's default, with unbounded exponent range), before rounding, or after rounding in the
   destination's bounded range (the delivered result is below the minimum normal: FPnew's cast
   before its PR 168). SOFTMX_TININESS_AFTER_BOUNDED was added without an ABI change; a library
   built before it refuses the value with SOFTMX_ERR_INVALID_ARGUMENT. */
enum { SOFTMX_TININESS_AFTER = 0, SOFTMX_TININESS_BEFORE = 1, SOFTMX_TININESS_AFTER_BOUNDED = 2 };
/* Block scale rules (docs/BLOCKS.md 1). */
enum { SOFTMX_SCALE_FLOOR = 0, SOFTMX_SCALE_CEIL = 1, SOFTMX_SCALE_EVEN = 2, SOFTMX_SCALE_RCEIL = 3 };
/* Instruction sets of the batch kernels (results are equal on every one; softmx/batch.hpp). */
enum { SOFTMX_ISA_SCALAR = 0, SOFTMX_ISA_AVX2 = 1, SOFTMX_ISA_AVX512 = 2 };

/** Canonical names ("rne", "finite", "after", "floor", "avx2"), or NULL for a value out of
 *  range. Static strings. */
SOFTMX_API const char* softmx_rounding_name(int32_t rounding);
SOFTMX_API const char* softmx_saturation_name(int32_t saturation);
SOFTMX_API const char* softmx_tininess_name(int32_t tininess);
SOFTMX_API const char* softmx_scale_rule_name(int32_t rule);
SOFTMX_API const char* softmx_isa_name(int32_t isa);

/** Parse a name, case-insensitively, with the C++ API's aliases ("nearest-even", "satfinite",
 *  ...). SOFTMX_ERR_UNKNOWN_NAME lists what is accepted. */
SOFTMX_API int softmx_rounding_from_name(const char* name, int32_t* rounding, softmx_error* err);
SOFTMX_API int softmx_saturation_from_name(const char* name, int32_t* saturation, softmx_error* err);
SOFTMX_API int softmx_tininess_from_name(const char* name, int32_t* tininess, softmx_error* err);
SOFTMX_API int softmx_scale_rule_from_name(const char* name, int32_t* rule, softmx_error* err);

/** 1 when this CPU can run `isa` (SOFTMX_ISA_SCALAR always), else 0. */
SOFTMX_API int softmx_isa_supported(int32_t isa);

/* ---- formats ------------------------------------------------------------------------------- */

/* Named formats (the order of softmx::FormatId). */
enum {
  SOFTMX_FORMAT_F64 = 0,
  SOFTMX_FORMAT_F32 = 1,
  SOFTMX_FORMAT_F16 = 2,
  SOFTMX_FORMAT_BF16 = 3,
  SOFTMX_FORMAT_E4M3 = 4,
  SOFTMX_FORMAT_E5M2 = 5,
  SOFTMX_FORMAT_E3M2 = 6,
  SOFTMX_FORMAT_E2M3 = 7,
  SOFTMX_FORMAT_E2M1 = 8,
  SOFTMX_FORMAT_INT8 = 9,
  SOFTMX_FORMAT_E8M0 = 10,
  SOFTMX_FORMAT_RUNTIME = -1 /**< not a named format: a descriptor made from its fields */
};
/* How a code encodes its sign (softmx::SignEncoding). */
enum { SOFTMX_SIGN_MAGNITUDE = 0, SOFTMX_SIGN_TWOS_COMPLEMENT = 1, SOFTMX_SIGN_NONE = 2 };
/* How a format encodes non-finite values (softmx::Specials). */
/* SOFTMX_SPECIALS_EXTENDED: IEEE P3109's extended domain (one NaN, +-Inf, no -0; docs/FORMATS.md 5),
   added without an ABI change. */
enum {
  SOFTMX_SPECIALS_IEEE = 0,
  SOFTMX_SPECIALS_FN = 1,
  SOFTMX_SPECIALS_NONE = 2,
  SOFTMX_SPECIALS_FNUZ = 3,
  SOFTMX_SPECIALS_EXTENDED = 4
};

#define SOFTMX_FORMAT_NAME_SIZE 64

/** A format descriptor, filled by softmx_format_lookup or softmx_format_named and passed by
 *  pointer to every function that takes a format. The fields are the C++ softmx::Format's
 *  (docs/SEMANTICS.md 1): read them freely.
 *
 *  Named and runtime formats. id 0 .. SOFTMX_FORMAT_E8M0 names one of the 11 named formats,
 *  whose other fields must stay those softmx_format_named gives (an edited one is refused with
 *  SOFTMX_ERR_INVALID_ARGUMENT naming the argument). id SOFTMX_FORMAT_RUNTIME describes a
 *  format by its fields alone (width through fixed_point; `name` is ignored on input): the
 *  library checks them on every call as softmx::make_format does (SOFTMX_ERR_INVALID_ARGUMENT
 *  naming the field: sign, specials, subnormals, fixed_point, exp_bits, man_bits, bias, or
 *  width when it is not (sign != NONE) + exp_bits + man_bits), and a runtime descriptor whose
 *  fields equal a named format's is that format. softmx_format_lookup fills one from any spec
 *  of docs/SEMANTICS.md 1.2 ("e4m3:specials=ieee", "e4m3fnuz", "e3m4", "int4", ...).
 *
 *  Where runtime formats are served: conversion (softmx_convert, softmx_convert_batch, the
 *  converter), softmx_explain and softmx_explain_value, softmx_check_support,
 *  softmx_dialect_support and softmx_storage_bytes take any runtime format of 1 to 32 bits as
 *  source and destination (the dialect may refuse one: SOFTMX_ERR_UNSUPPORTED with its
 *  reason; ocp serves every one); block elements (quantize, dequantize, tensors), packing and
 *  DotGeneral (exact and fp32-sequential) a runtime element of at most 8 bits (docs/BLOCKS.md
 *  1.1); block scales a runtime float format of at most 32 bits (softmx_block_options). The C++
 *  functions behind the block and NVFP4 sources (f64, f32, f16, bf16), the dequantize
 *  destinations and softmx_mma take named formats only: a runtime format there is answered with
 *  SOFTMX_ERR_INVALID_ARGUMENT (a source) or SOFTMX_ERR_UNSUPPORTED (a destination, an mma
 *  operand), "ARG: NAME is a runtime format; ...". An earlier libsoftmx.so.1 answered
 *  SOFTMX_ERR_UNSUPPORTED for a runtime format in a conversion (serving more is no ABI change):
 *  softmx_check_support(&fmt, NULL, NULL) == SOFTMX_OK tells a program that the linked library
 *  converts into fmt.
 *
 *  Why a caller-owned struct and not a handle: a descriptor is a plain value of fixed size (no
 *  allocation, nothing to free, no lifetime: it may live on the stack, be copied, memcmp'd,
 *  shared between threads, and outlive nothing; a converter made from it keeps its own copy),
 *  it carries the format's fields for the caller to read (width for masks and storage), and a
 *  runtime format fits it without a new ABI (its fields are the format; reserved words remain
 *  for later fields). A spec is parsed once, by softmx_format_lookup; every call after that
 *  checks the fields, which costs a few comparisons (a converter checks them once). */
typedef struct softmx_format {
  int32_t id;          /**< SOFTMX_FORMAT_F64 .. SOFTMX_FORMAT_E8M0, or SOFTMX_FORMAT_RUNTIME */
  int32_t width;       /**< bits in a code: (sign != SOFTMX_SIGN_NONE) + exp_bits + man_bits */
  int32_t exp_bits;    /**< exponent field bits (runtime: 0..8) */
  int32_t man_bits;    /**< stored fraction bits m, precision m + 1 (runtime: 0..23) */
  int32_t bias;        /**< exponent bias */
  int32_t sign;        /**< SOFTMX_SIGN_* */
  int32_t specials;    /**< SOFTMX_SPECIALS_* */
  int32_t subnormals;  /**< 1: exponent field 0 holds zero and subnormals (0: e8m0) */
  int32_t fixed_point; /**< 1: uniform spacing, underflow never raised (int8, intN) */
  int32_t reserved0;   /**< zero */
  char name[SOFTMX_FORMAT_NAME_SIZE]; /**< canonical name or spec, NUL-terminated ("e4m3",
                                           "e4m3:specials=ieee"); output only */
  uint64_t reserved[4];               /**< zero */
} softmx_format;

/** Fills *format from a spec (case-insensitive): a canonical name (f64 f32 f16 bf16 e4m3 e5m2
 *  e3m2 e2m3 e2m1 int8 e8m0) or an alias (fp32, half, bfloat16, float8_e4m3fn, fp4, mxint8,
 *  ue8m0, ...) gives that named format's descriptor; any other format spec of docs/SEMANTICS.md
 *  1.2 (e4m3:specials=ieee, float8_e4m3, e4m3fnuz, e5m2fnuz, e3m4, e1m2, e2m2, ue4m3, int4,
 *  e4m3:bias=11:specials=fnuz, ...) a runtime descriptor (id SOFTMX_FORMAT_RUNTIME, name its
 *  canonical spec), unless its fields are a named format's (e8m0:sign=none gives e8m0).
 *  Preconditions: spec NUL-terminated, format writable. The descriptor is the caller's (see
 *  softmx_format for where each kind is served). Errors: SOFTMX_ERR_NULL_POINTER (spec or
 *  format NULL); SOFTMX_ERR_UNKNOWN_NAME for a name that is no format or spec (the message lists
 *  the names); SOFTMX_ERR_INVALID_ARGUMENT for a spec with a bad field, the library's message
 *  naming it ("format spec 'e4m3:bias=2000': bias: expected ..."; fields exp, man, bias, sign,
 *  specials, subnormals, fixed, width, key). */
SOFTMX_API int softmx_format_lookup(const char* spec, softmx_format* format, softmx_error* err);
/** The descriptor of a named format (SOFTMX_FORMAT_F64 .. SOFTMX_FORMAT_E8M0). */
SOFTMX_API int softmx_format_named(int32_t id, softmx_format* format, softmx_error* err);
/** The number of named formats (their ids are 0 .. count - 1). */
SOFTMX_API int32_t softmx_format_count(void);
/** Bytes of one code in arrays (the storage type): 1 for widths up to 8, 2 up to 16, 4 up to
 *  32, 8 up to 64, named or runtime (e3m4: 1, a 12-bit e5m6: 2); 0 for a NULL or invalid
 *  descriptor. */
SOFTMX_API size_t softmx_storage_bytes(const softmx_format* format);

/* ---- dialects ------------------------------------------------------------------------------ */

/** A dialect (softmx::Dialect): a static object owned by the library, never freed. NULL stands
 *  for ocp wherever a dialect is asked for. */
typedef struct softmx_dialect softmx_dialect;

/** Looks a dialect up by name, case-insensitively ("ocp", "cuda", "torchao", ...). */
SOFTMX_API int softmx_dialect_lookup(const char* name, const softmx_dialect** dialect, softmx_error* err);
/** The number of built-in dialects, and the i-th (ocp first; NULL beyond the last). */
SOFTMX_API size_t softmx_dialect_count(void);
SOFTMX_API const softmx_dialect* softmx_dialect_at(size_t i);
/** Its name and one-line summary (static strings; NULL stands for ocp). */
SOFTMX_API const char* softmx_dialect_name(const softmx_dialect* dialect);
SOFTMX_API const char* softmx_dialect_summary(const softmx_dialect* dialect);
/** What `dialect` accepts for destination `dst`, named or runtime: the rounding modes (bit i =
 *  SOFTMX_ROUND_ i), the saturations (bit i = SOFTMX_SAT_ i; both masks 0 when it cannot
 *  produce `dst`, e.g. cuda for any runtime format) and the rounding and saturation
 *  SOFTMX_DEFAULT means (a runtime `dst`: the dialect's runtime-format policy). Any output
 *  pointer may be NULL. */
SOFTMX_API int softmx_dialect_support(const softmx_dialect* dialect, const softmx_format* dst,
                                      uint32_t* roundings, uint32_t* saturations, int32_t* default_rounding,
                                      int32_t* default_saturation, softmx_error* err);

/* ---- the rounding context ------------------------------------------------------------------ */

/** Everything a caller chooses for a conversion (softmx::Context plus the dialect). */
typedef struct softmx_context {
  int32_t rounding;              /**< SOFTMX_ROUND_*, or SOFTMX_DEFAULT */
  int32_t saturation;            /**< SOFTMX_SAT_*, or SOFTMX_DEFAULT */
  int32_t tininess;              /**< SOFTMX_TININESS_* */
  uint32_t rbits_width;          /**< rs: random bits per rounding, 1..64 */
  uint64_t rbits;                /**< rs: the random value for a single conversion, < 2^rbits_width */
  const softmx_dialect* dialect; /**< NULL: ocp */
  uint64_t reserved[2];          /**< zero */
} softmx_context;

/** Defaults: the dialect's rounding and saturation for the destination (ocp: rne, satfinite
 *  into the MX formats), tininess after rounding, 32 random bits, the ocp dialect. */
#define SOFTMX_CONTEXT_INIT \
  { SOFTMX_DEFAULT, SOFTMX_DEFAULT, SOFTMX_TININESS_AFTER, 32u, 0u, NULL, { 0u, 0u } }
/** Sets *ctx to SOFTMX_CONTEXT_INIT. */
SOFTMX_API void softmx_context_init(softmx_context* ctx);

/** SOFTMX_OK when the context's dialect can convert into `dst` (named or runtime) under the
 *  context, otherwise SOFTMX_ERR_UNSUPPORTED with the dialect's reason and the modes it
 *  accepts. */
SOFTMX_API int softmx_check_support(const softmx_format* dst, const softmx_context* ctx, softmx_error* err);

/* ---- conversion ---------------------------------------------------------------------------- */

/** Converts one code of `src` into `dst` (softmx::convert), each a named or a runtime format
 *  (softmx_format): *result gets the destination code in its low dst->width bits, *flags (may
 *  be NULL) its exception flags (SOFTMX_FLAG_*). ctx NULL means SOFTMX_CONTEXT_INIT; its
 *  SOFTMX_DEFAULT fields take the dialect's choices for `dst` (softmx_dialect_support).
 *  Errors: SOFTMX_ERR_NULL_POINTER (src, dst or result NULL); SOFTMX_ERR_INVALID_ARGUMENT (an
 *  edited named descriptor, a runtime descriptor's bad field, a context field out of range;
 *  the message names it); SOFTMX_ERR_BAD_CODE (code has bits above src->width);
 *  SOFTMX_ERR_UNSUPPORTED (the dialect cannot convert into dst under ctx, or cannot read a
 *  runtime src). */
SOFTMX_API int softmx_convert(const softmx_format* src, const softmx_format* dst, uint64_t code,
                              const softmx_context* ctx, uint64_t* result, uint8_t* flags, softmx_error* err);

/** Converts n codes: `in` holds n codes in the source's storage type, `out` receives n in the
 *  destination's, `flags` (NULL: not computed, faster) n flag bytes. For rs, `rbits` (NULL: the
 *  context's rbits for every element) holds one random value per element. Vector kernels run
 *  where they serve (the results are softmx_convert's bit for bit). */
SOFTMX_API int softmx_convert_batch(const softmx_format* src, const softmx_format* dst, const softmx_context* ctx,
                                    const void* in, void* out, uint8_t* flags, size_t n, const uint64_t* rbits,
                                    softmx_error* err);

/** A conversion with its formats and context checked once (softmx::Converter), any two
 *  formats, named or runtime. Made by softmx_converter_new, freed by softmx_converter_free (once;
 *  the caller owns it). It keeps its own copies of the descriptors and the context, so they may
 *  be changed or go out of scope as soon as softmx_converter_new returns. Its functions only
 *  read it, so threads may share one. */
typedef struct softmx_converter softmx_converter;

SOFTMX_API int softmx_converter_new(const softmx_format* src, const softmx_format* dst, const softmx_context* ctx,
                                    softmx_converter** converter, softmx_error* err);
/** Frees a converter (NULL is ignored). */
SOFTMX_API void softmx_converter_free(softmx_converter* converter);
/** One code (rs: with the context's rbits). */
SOFTMX_API int softmx_converter_convert(const softmx_converter* converter, uint64_t code, uint64_t* result,
                                        uint8_t* flags, softmx_error* err);
/** One code with its own random bits (rs; other modes ignore rbits). */
SOFTMX_API int softmx_converter_convert_rs(const softmx_converter* converter, uint64_t code, uint64_t rbits,
                                           uint64_t* result, uint8_t* flags, softmx_error* err);
/** n codes, as softmx_convert_batch. */
SOFTMX_API int softmx_converter_run(const softmx_converter* converter, const void* in, void* out, uint8_t* flags,
                                    size_t n, const uint64_t* rbits, softmx_error* err);
/** n codes on a chosen instruction set (softmx::run_on; results are the same on every one).
 *  SOFTMX_ERR_UNSUPPORTED when this CPU cannot run `isa`. */
SOFTMX_API int softmx_converter_run_on(const softmx_converter* converter, int32_t isa, const void* in, void* out,
                                       uint8_t* flags, size_t n, const uint64_t* rbits, softmx_error* err);
/** What the converter resolved: its formats (canonical descriptors: a runtime one with its
 *  canonical spec as name, one equal to a named format as that format) and its context with
 *  SOFTMX_DEFAULT replaced by the dialect's choices (any output may be NULL). */
SOFTMX_API int softmx_converter_info(const softmx_converter* converter, softmx_format* src, softmx_format* dst,
                                     softmx_context* ctx, softmx_error* err);

/* ---- MX blocks (docs/BLOCKS.md; softmx/block.hpp) ------------------------------------------ */

/** A scale rule of the caller's: given a block's amax (finite, > 0) as sig * 2^(exp - 63) with
 *  sig's bit 63 set (and sticky != 0 when non-zero bits lie below sig), and the element
 *  format, return the scale exponent s (X = 2^s) before clamping into E8M0's range. Must not
 *  throw or longjmp. */
typedef int32_t (*softmx_scale_rule_fn)(void* user, int32_t amax_exp, uint64_t amax_sig, int32_t amax_sticky,
                                        const softmx_format* element);

/** Options of a block quantization (softmx::BlockOptions). */
typedef struct softmx_block_options {
  const softmx_format* element;  /**< the element format: an MX element format or a runtime one of at
                                      most 8 bits (e1m2, e4m3fnuz, int4; INVALID_ARGUMENT naming the
                                      field it cannot have); NULL: e4m3 */
  const softmx_dialect* dialect; /**< NULL: ocp */
  int32_t scale_rule;            /**< SOFTMX_SCALE_*, or SOFTMX_DEFAULT: the dialect's */
  int32_t rounding;              /**< element rounding, or SOFTMX_DEFAULT: the dialect's */
  int32_t saturation;            /**< element saturation, or SOFTMX_DEFAULT: the dialect's */
  int32_t tininess;              /**< SOFTMX_TININESS_* */
  uint32_t rbits_width;          /**< rs: random bits per element, 1..64 */
  int32_t isa;                   /**< SOFTMX_ISA_*, or SOFTMX_DEFAULT: the widest this CPU has */
  const uint64_t* rbits;         /**< rs: one random value per element (row-major for tensors) */
  size_t rbits_count;            /**< how many values rbits holds */
  softmx_scale_rule_fn custom_rule; /**< non-NULL: overrides scale_rule */
  void* custom_rule_user;           /**< passed to custom_rule */
  /** The block scale format (docs/BLOCKS.md 1.2): NULL or e8m0 for OCP's E8M0 scales; a named
   *  format (e4m3: positive codes) or a runtime one (id SOFTMX_FORMAT_RUNTIME), from
   *  softmx_format_lookup ("ue4m3", "ue5m3", ...) or filled by hand (ue4m3: width 7, exp_bits 4,
   *  man_bits 3, bias 7, SOFTMX_SIGN_NONE, SOFTMX_SPECIALS_FN, subnormals 1; bf16, f16, f32): a
   *  float format of at most 32 bits whose scale is amax / max_E rounded to nearest into it. Its
   *  codes take softmx_scale_code_bytes() bytes each (1, 2 or 4) in every scale buffer, in the
   *  host's byte order (a uint8_t, uint16_t or uint32_t array viewed as bytes). Took the place
   *  of reserved[0]; the struct's size is unchanged. */
  const softmx_format* scale_format;
#if UINTPTR_MAX == 0xFFFFFFFFu
  uint32_t reserved_pad;            /**< zero (32-bit targets: keeps the struct's size) */
#endif
  uint64_t reserved[1];             /**< zero */
} softmx_block_options;

/** Defaults: e4m3 elements, the dialect's (ocp's) rule, rounding and saturation. */
SOFTMX_API void softmx_block_options_init(softmx_block_options* options);

/** Bytes per stored scale code of `scale_format` (NULL: e8m0): 1 up to 8 bits, 2 up to 16
 *  (bf16, f16), 4 up to 32 (f32). SOFTMX_ERR_INVALID_ARGUMENT when it cannot be a block scale. */
SOFTMX_API int softmx_scale_code_bytes(const softmx_format* scale_format, size_t* bytes, softmx_error* err);

/** Quantizes `count` values of `src` (f64, f32, f16 or bf16, in its storage type) into one
 *  block: scale gets the scale code (E8M0 unless options->scale_format; softmx_scale_code_bytes
 *  bytes, host order), codes[0 .. count-1] the element codes (one per byte),
 *  *flags (may be NULL) the OR of the element flags (+ invalid for a NaN scale). options NULL:
 *  softmx_block_options_init's. */
SOFTMX_API int softmx_quantize_block(const softmx_format* src, const void* values, size_t count,
                                     const softmx_block_options* options, uint8_t* scale, uint8_t* codes,
                                     uint8_t* flags, softmx_error* err);

/** The number of scales of a tensor of `shape` (rank dimensions) blocked along `axis` in blocks
 *  of `block`: the product of the shape with shape[axis] replaced by ceil(shape[axis] / block). */
SOFTMX_API int softmx_scale_count(const size_t* shape, size_t rank, size_t axis, size_t block, size_t* count,
                                  softmx_error* err);

/** Quantizes a row-major tensor of `src` codes along `axis` in blocks of `block`
 *  (softmx::quantize_tensor; a last partial block is quantized as if padded with zeros).
 *  scales receives softmx_scale_count() scale codes (E8M0 unless options->scale_format;
 *  softmx_scale_code_bytes() bytes each), row-major in the shape with shape[axis] replaced by
 *  the block count; codes receives one element code per input, row-major in `shape`; *flags
 *  (may be NULL) the OR of all flags. SOFTMX_ERR_BUFFER_TOO_SMALL when a capacity (in bytes) is
 *  short. */
SOFTMX_API int softmx_quantize_tensor(const softmx_format* src, const void* data, const size_t* shape, size_t rank,
                                      size_t axis, size_t block, const softmx_block_options* options,
                                      uint8_t* scales, size_t scales_capacity, uint8_t* codes,
                                      size_t codes_capacity, uint8_t* flags, softmx_error* err);

/** Dequantizes one element: value(code) * 2^(scale - 127) rounded once into `dst`
 *  (softmx::dequantize_element; scale 0xFF gives NaN). `element` named or runtime; `dst` a
 *  named format, in this and every dequantize function (a runtime one: SOFTMX_ERR_UNSUPPORTED,
 *  as the C++ functions take a FormatId). */
SOFTMX_API int softmx_dequantize_element(const softmx_format* element, uint8_t scale, uint8_t code,
                                         const softmx_format* dst, const softmx_context* ctx, uint64_t* result,
                                         uint8_t* flags, softmx_error* err);

/** Dequantizes n elements: element i (codes[i]) with scale scales[i / block] into element i of
 *  `out` (dst's storage type), its flags into flags[i] (flags may be NULL), the OR of all
 *  flags into *flags_or (may be NULL) (softmx::Dequantizer::run). */
SOFTMX_API int softmx_dequantize(const softmx_format* element, const softmx_format* dst, const softmx_context* ctx,
                                 const uint8_t* scales, const uint8_t* codes, size_t n, size_t block, void* out,
                                 uint8_t* flags, uint8_t* flags_or, softmx_error* err);

/** Dequantizes a tensor made by softmx_quantize_tensor (the same shape, rank, axis and block;
 *  scale_count scales and the product of the shape codes) into `out` (dst's storage type,
 *  row-major in `shape`, out_capacity elements) (softmx::dequantize_tensor). */
SOFTMX_API int softmx_dequantize_tensor(const softmx_format* element, const size_t* shape, size_t rank, size_t axis,
                                        size_t block, const uint8_t* scales, size_t scale_count,
                                        const uint8_t* codes, size_t code_count, const softmx_format* dst,
                                        const softmx_context* ctx, void* out, size_t out_capacity,
                                        uint8_t* flags_or, softmx_error* err);

/** softmx_dequantize_element, softmx_dequantize and softmx_dequantize_tensor with scales in
 *  `scale_format` (NULL: e8m0; otherwise as softmx_block_options.scale_format, runtime
 *  descriptors included): value(code) * value(scale) rounded once into `dst`
 *  (softmx::dequantize_element(element, scale_format, ...); docs/BLOCKS.md 2). `scales` holds
 *  codes of softmx_scale_code_bytes() bytes each (scale_count counts codes). A scale code above
 *  the scale format's width fails with SOFTMX_ERR_BAD_CODE. */
SOFTMX_API int softmx_dequantize_element_scaled(const softmx_format* element, const softmx_format* scale_format,
                                                uint32_t scale, uint8_t code, const softmx_format* dst,
                                                const softmx_context* ctx, uint64_t* result, uint8_t* flags,
                                                softmx_error* err);
SOFTMX_API int softmx_dequantize_scaled(const softmx_format* element, const softmx_format* scale_format,
                                        const softmx_format* dst, const softmx_context* ctx, const uint8_t* scales,
                                        const uint8_t* codes, size_t n, size_t block, void* out, uint8_t* flags,
                                        uint8_t* flags_or, softmx_error* err);
SOFTMX_API int softmx_dequantize_tensor_scaled(const softmx_format* element, const softmx_format* scale_format,
                                               const size_t* shape, size_t rank, size_t axis, size_t block,
                                               const uint8_t* scales, size_t scale_count, const uint8_t* codes,
                                               size_t code_count, const softmx_format* dst, const softmx_context* ctx,
                                               void* out, size_t out_capacity, uint8_t* flags_or, softmx_error* err);

/** Bytes that n codes of `format` (at most 8 bits wide) take packed (docs/BLOCKS.md 4). */
SOFTMX_API int softmx_packed_size(const softmx_format* format, size_t n, size_t* bytes, softmx_error* err);
/** Packs n codes (one per byte) into `out` (capacity bytes: at least softmx_packed_size). */
SOFTMX_API int softmx_pack(const softmx_format* format, const uint8_t* codes, size_t n, uint8_t* out,
                           size_t capacity, softmx_error* err);
/** Unpacks n codes from n_bytes packed bytes (exactly softmx_packed_size) into codes[0 .. n-1]. */
SOFTMX_API int softmx_unpack_codes(const softmx_format* format, const uint8_t* bytes, size_t n_bytes, size_t n,
                                   uint8_t* codes, softmx_error* err);

/* ---- NVFP4 (docs/BLOCKS.md 6; softmx/nvfp4.hpp) -------------------------------------------- */

/* How the element multiplier is formed (softmx::Nvfp4Multiplier). */
enum { SOFTMX_NVFP4_DIVISION = 0, SOFTMX_NVFP4_RECIPROCAL_PRODUCT = 1 };

typedef struct softmx_nvfp4_options {
  int32_t multiplier;       /**< SOFTMX_NVFP4_*; default reciprocal product */
  int32_t has_global_amax;  /**< 1: global_amax is the tensor's amax; 0: computed from the data */
  uint32_t global_amax;     /**< f32 bits */
  int32_t rounding;         /**< SOFTMX_ROUND_RNE or SOFTMX_ROUND_RS */
  uint32_t rbits_width;     /**< rs: random bits per element, 1..64 */
  uint32_t reserved0;       /**< zero */
  const uint64_t* rbits;    /**< rs: one value per element, row-major */
  size_t rbits_count;
  uint64_t reserved[2];     /**< zero */
} softmx_nvfp4_options;

SOFTMX_API void softmx_nvfp4_options_init(softmx_nvfp4_options* options);

/** Quantizes a row-major tensor of f32, bf16 or f16 codes into NVFP4 along `axis` (blocks of
 *  16): scales receives the E4M3 block scales (count: softmx_scale_count with block 16), codes
 *  the E2M1 codes (one per byte, row-major), *global_amax and *encode_scale the f32 bits of
 *  the tensor's amax and S_enc, *flags the OR of the flags (global_amax, encode_scale and
 *  flags may be NULL). options NULL: softmx_nvfp4_options_init's. */
SOFTMX_API int softmx_quantize_nvfp4(const softmx_format* src, const void* data, const size_t* shape, size_t rank,
                                     size_t axis, const softmx_nvfp4_options* options, uint8_t* scales,
                                     size_t scales_capacity, uint8_t* codes, size_t codes_capacity,
                                     uint32_t* global_amax, uint32_t* encode_scale, uint8_t* flags,
                                     softmx_error* err);

/** Dequantizes an NVFP4 tensor into `out` (dst's storage type, row-major, out_capacity
 *  elements): element * scale / S_enc, rounded once (softmx::dequantize_nvfp4). */
SOFTMX_API int softmx_dequantize_nvfp4(const size_t* shape, size_t rank, size_t axis, uint32_t global_amax,
                                       uint32_t encode_scale, const uint8_t* scales, size_t scale_count,
                                       const uint8_t* codes, size_t code_count, const softmx_format* dst,
                                       const softmx_context* ctx, void* out, size_t out_capacity,
                                       uint8_t* flags_or, softmx_error* err);

/* ---- Dot and DotGeneral (docs/BLOCKS.md 5, docs/TENSOR_CORES.md; softmx/dot.hpp) ------------ */

/** An accumulation model (softmx::AccumulationModel): a static object owned by the library.
 *  NULL stands for "exact" wherever a model is asked for. */
typedef struct softmx_accumulation softmx_accumulation;

/** Looks a model up by name: "exact", "fp32-sequential", "hopper-fp8-mma", "hopper-fp8-wgmma". */
SOFTMX_API int softmx_accumulation_lookup(const char* name, const softmx_accumulation** model, softmx_error* err);
/** The number of models, and the i-th (NULL beyond the last). */
SOFTMX_API size_t softmx_accumulation_count(void);
SOFTMX_API const softmx_accumulation* softmx_accumulation_at(size_t i);
/** Its name (a static string; NULL stands for exact). */
SOFTMX_API const char* softmx_accumulation_name(const softmx_accumulation* model);

/** One MX block: its element format, E8M0 scale code and `count` element codes (one per byte). */
typedef struct softmx_block {
  const softmx_format* format;
  uint8_t scale;
  const uint8_t* codes;
  size_t count;
} softmx_block;

/** DotGeneral = sum over j of Dot(a[j], b[j]) (n >= 1 pairs, a[j].count == b[j].count >= 1),
 *  as an f32 code in *result with its flags in *flags (may be NULL). ctx rounds the f32 result
 *  (its dialect is not used; SOFTMX_DEFAULT: softmx::Context's defaults); NULL: defaults. */
SOFTMX_API int softmx_dot_general(const softmx_block* a, const softmx_block* b, size_t n, const softmx_context* ctx,
                                  const softmx_accumulation* model, uint32_t* result, uint8_t* flags,
                                  softmx_error* err);

/** DotGeneral over n block pairs of one format each, stored flat: pair j is scales a_scales[j]
 *  and b_scales[j] with codes a_codes[j*block .. j*block + block-1] and the same of b. */
SOFTMX_API int softmx_dot_general_flat(const softmx_format* a_format, const uint8_t* a_scales, const uint8_t* a_codes,
                                       const softmx_format* b_format, const uint8_t* b_scales, const uint8_t* b_codes,
                                       size_t block, size_t n, const softmx_context* ctx,
                                       const softmx_accumulation* model, uint32_t* result, uint8_t* flags,
                                       softmx_error* err);

/** softmx_dot_general_flat with each operand's block scale format (docs/BLOCKS.md 1.2 and 5):
 *  NULL or e8m0 for E8M0 scales; otherwise a float format of at most 32 bits (softmx_format_lookup
 *  "ue4m3", "ue5m3", "e4m3", "bf16", "f32", ...), whose codes a_scales / b_scales then hold,
 *  softmx_scale_code_bytes() bytes each (SOFTMX_ERR_BAD_CODE for one beyond its width). Each term is ((a * b) * X_A) * X_B under IEEE rules; blocks with a
 *  scale format other than E8M0 take the exact and fp32-sequential models only (another model:
 *  SOFTMX_ERR_INVALID_ARGUMENT). */
SOFTMX_API int softmx_dot_general_flat_scaled(const softmx_format* a_format, const softmx_format* a_scale_format,
                                              const uint8_t* a_scales, const uint8_t* a_codes,
                                              const softmx_format* b_format, const softmx_format* b_scale_format,
                                              const uint8_t* b_scales, const uint8_t* b_codes, size_t block, size_t n,
                                              const softmx_context* ctx, const softmx_accumulation* model,
                                              uint32_t* result, uint8_t* flags, softmx_error* err);

/** softmx_dot_general_flat_scaled into the destination `to` with the addend *c, as an MX
 *  dot-product unit computes it (softmx::DotDestination, docs/BLOCKS.md 5.1): *result receives
 *  a code of `to` (f32, f16 or bf16; NULL: f32), the DotGeneral plus C rounded once under
 *  exact, C the initial f32 accumulator under fp32-sequential (then one rounding into `to`),
 *  the model's own C and f16 accumulator under a tensor-core model. c NULL: no addend (to f32
 *  and c NULL: softmx_dot_general_flat_scaled's result, bit for bit). ctx rounds into `to`.
 *  SOFTMX_ERR_UNSUPPORTED for another `to` (a runtime format too); SOFTMX_ERR_BAD_CODE for a
 *  *c beyond `to`'s width; SOFTMX_ERR_INVALID_ARGUMENT for a destination the model does not
 *  define (bf16 under a tensor-core model, f16 under a per-group one). */
SOFTMX_API int softmx_dot_general_flat_to(const softmx_format* a_format, const softmx_format* a_scale_format,
                                          const uint8_t* a_scales, const uint8_t* a_codes,
                                          const softmx_format* b_format, const softmx_format* b_scale_format,
                                          const uint8_t* b_scales, const uint8_t* b_codes, size_t block, size_t n,
                                          const softmx_format* to, const uint32_t* c, const softmx_context* ctx,
                                          const softmx_accumulation* model, uint32_t* result, uint8_t* flags,
                                          softmx_error* err);

/** One output element of an mma under a tensor-core model (softmx::TensorCoreModel::mma):
 *  D = model(sum_k a[k] * b[k] + c) over k codes each, c and *d codes of `acc` (f32 or f16).
 *  SOFTMX_ERR_UNSUPPORTED for a model that is not a tensor-core model, and for a runtime format
 *  (the instructions read named formats). */
SOFTMX_API int softmx_mma(const softmx_accumulation* model, const softmx_format* a_format, const uint8_t* a,
                          const softmx_format* b_format, const uint8_t* b, size_t k, const softmx_format* acc,
                          uint32_t c, uint32_t* d, uint8_t* flags, softmx_error* err);

/* ---- explain ------------------------------------------------------------------------------- */

/** Explains one conversion into `dst` as text (softmx/explain.hpp), the anatomy `softmx
 *  explain` begins with: the input's exact value and bit fields, the destination, its two
 *  representable neighbours of the input's magnitude with the distance to each in ulps and
 *  whether it is a tie, then one line "result CODE flags FLAGS: REASON" for the context's
 *  rounding, saturation and dialect (REASON names the neighbour and the rule that chose it).
 *  Lines end in '\n'. The input is `code` of format `src`.
 *
 *  The text, NUL-terminated, goes to `text` when `capacity` (bytes, the NUL included) is
 *  enough; *length (may be NULL) always receives its length without the NUL, so a call with
 *  text NULL and capacity 0 sizes the buffer. SOFTMX_ERR_BUFFER_TOO_SMALL (text untouched)
 *  when capacity <= the length; SOFTMX_ERR_UNSUPPORTED when the dialect cannot convert into
 *  dst under ctx. ctx NULL means SOFTMX_CONTEXT_INIT. */
SOFTMX_API int softmx_explain(const softmx_format* src, const softmx_format* dst, uint64_t code,
                              const softmx_context* ctx, char* text, size_t capacity, size_t* length,
                              softmx_error* err);

/** The same for an input given as text, `value`: a decimal ("464", "-1.5e-3") or C99 hex float
 *  ("0x1.08p+3"), taken exactly (not rounded to any format first). SOFTMX_ERR_INVALID_ARGUMENT
 *  when it does not parse. */
SOFTMX_API int softmx_explain_value(const char* value, const softmx_format* dst, const softmx_context* ctx,
                                    char* text, size_t capacity, size_t* length, softmx_error* err);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* SOFTMX_SOFTMX_H */
