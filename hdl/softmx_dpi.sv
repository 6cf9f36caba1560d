// hdl/softmx_dpi.sv: softmx as a SystemVerilog DPI-C reference model.
//
//   import softmx_dpi::*;
//   softmx_result_t r = softmx_convert("f32", "e4m3", 64'h43E80000, "rne", "finite", "ocp");
//   // r.code == 8'h7E (448), r.flags == SOFTMX_FLAG_INEXACT, r.status == 0
//
// Compile this package and its C side, softmx_dpi.c, with the testbench, and link
// libsoftmx.so (README, "Certifying RTL"; examples/verilator/ is a complete bench):
//
//   $ verilator --binary softmx_dpi.sv tb.sv dut.sv softmx_dpi.c \
//     -CFLAGS "$(pkg-config --cflags softmx)" -LDFLAGS "$(pkg-config --libs softmx)"
//
// Codes travel as 64-bit integers holding the format's bit pattern in their low bits; flags
// as a byte with TestFloat's bits (SOFTMX_FLAG_*). Names are softmx's: formats ("f32", "e4m3",
// "e2m1", "e8m0", aliases such as "float8_e4m3fn"), rounding modes ("rne" "rna" "rz" "ru" "rd"
// "ro"), saturations ("finite", "none", "propagate" = P3109's SatPropagate, also by the draft's
// names "SatFinite", "SatNone", "SatPropagate"), tininess ("after", "before"), dialects ("ocp", "cuda",
// ...), scale rules ("floor", "ceil", "even", "rceil") and accumulation models ("exact",
// "fp32-sequential", "hopper-fp8-mma", "hopper-fp8-wgmma"); "" asks for the dialect's default.
//
// A format argument is a spec string (docs/SEMANTICS.md 1.2): besides the named formats, any
// runtime format, so a scoreboard checks a unit whose format softmx has no name for by writing
// its fields:
//
//   // FPnew's FP8ALT: E4M3 with IEEE specials (max 240, Inf 8'h78, quiet NaN 8'h7C)
//   softmx_result_t r = softmx_convert("f32", "e4m3:specials=ieee", 64'h43780000, "rne", "finite");
//   // r.code == 8'h77 (240), r.flags == SOFTMX_FLAG_OVERFLOW | SOFTMX_FLAG_INEXACT
//   chandle c = softmx_dpi_converter_new("f16", "e4m3fnuz", "rne", "finite", "after", "ocp");
//
// Conversions (softmx_convert, the converters, softmx_result_settings) take runtime formats on
// either side; blocks, dequantization and DotGeneral take runtime elements of at most 8 bits
// (their sources and destinations are named formats). softmx_format_info(spec) gives a spec's
// width and canonical spec; a bad spec fails with the library's message naming the field
// ("format spec 'e4m3:specials=foo': specials: expected ieee, fn, fnuz or none, ...").
//
// Every import returns 0 or a softmx status (SOFTMX_ERR_*, include/softmx/softmx.h) and leaves
// the message for softmx_dpi_error() (the calling thread's last one). The package's functions
// (softmx_convert, softmx_quantize_block, ...) report a failure with $error and return it in
// .status.
package softmx_dpi;

  // ---- TestFloat's flag bits, as softmx returns them -------------------------------------------
  /* verilator lint_off UNUSEDPARAM */
  localparam byte unsigned SOFTMX_FLAG_INEXACT = 8'h01;
  localparam byte unsigned SOFTMX_FLAG_UNDERFLOW = 8'h02;
  localparam byte unsigned SOFTMX_FLAG_OVERFLOW = 8'h04;
  localparam byte unsigned SOFTMX_FLAG_INFINITE = 8'h08;
  localparam byte unsigned SOFTMX_FLAG_INVALID = 8'h10;
  /* verilator lint_on UNUSEDPARAM */

  // ---- the C functions (softmx_dpi.c) ---------------------------------------------------------------

  // The C ABI version of the linked libsoftmx (SOFTMX_ABI_VERSION).
  import "DPI-C" function int softmx_dpi_abi_version();
  // The message of this thread's last failed call ("" after a success).
  import "DPI-C" function string softmx_dpi_error();

  // What a format spec names: 0 with its width in bits, its canonical spec ("float8_e4m3" gives
  // "e4m3:specials=ieee"), and runtime = 1 for a runtime format (0 for a named one); or a softmx
  // status (SOFTMX_ERR_UNKNOWN_NAME, SOFTMX_ERR_INVALID_ARGUMENT naming the bad field) with the
  // message for softmx_dpi_error(), the outputs 0 and "".
  import "DPI-C" function int softmx_dpi_format(input string spec, output int width, output string canonical,
                                                output int runtime);

  // One conversion by names (looked up on every call).
  import "DPI-C" function int softmx_dpi_convert(input string src, input string dst, input longint unsigned code,
                                                 input string rounding, input string saturation, input string dialect,
                                                 output longint unsigned result, output byte unsigned flags);

  // A converter with its names resolved once (null on failure: see softmx_dpi_error()); free it
  // with softmx_dpi_converter_free.
  import "DPI-C" function chandle softmx_dpi_converter_new(input string src, input string dst, input string rounding,
                                                           input string saturation, input string tininess,
                                                           input string dialect);
  import "DPI-C" function void softmx_dpi_converter_free(input chandle converter);
  import "DPI-C" function int softmx_dpi_converter_convert(input chandle converter, input longint unsigned code,
                                                           output longint unsigned result,
                                                           output byte unsigned flags);
  // A whole array at once (softmx's batch kernels): results[i] and flags[i] of codes[i]; results
  // and flags at least as long as codes.
  import "DPI-C" function int softmx_dpi_converter_run(input chandle converter, input longint unsigned codes[],
                                                       output longint unsigned results[],
                                                       output byte unsigned flags[]);

  // One MX block: values[] (codes of src) into an E8M0 scale and element codes (codes[] at least
  // as long as values[]); flags are the OR of the elements' flags.
  import "DPI-C" function int softmx_dpi_quantize_block(input string src, input string element,
                                                        input string scale_rule, input string rounding,
                                                        input string saturation, input string dialect,
                                                        input longint unsigned values[], output byte unsigned scale,
                                                        output byte unsigned codes[], output byte unsigned flags);
  // One element: value(code) * 2^(scale - 127), rounded once into dst.
  import "DPI-C" function int softmx_dpi_dequantize(input string element, input string dst, input byte unsigned scale,
                                                    input byte unsigned code, input string rounding,
                                                    input string saturation, input string dialect,
                                                    output longint unsigned result, output byte unsigned flags);
  // DotGeneral over n = size(a_scales) block pairs of `block` elements (a_codes, b_codes: n * block
  // codes, pair by pair), as an f32 code rounded with `rounding`.
  import "DPI-C" function int softmx_dpi_dot(input string a_format, input string b_format, input string model,
                                             input int block, input byte unsigned a_scales[],
                                             input byte unsigned a_codes[], input byte unsigned b_scales[],
                                             input byte unsigned b_codes[], input string rounding,
                                             output int unsigned result, output byte unsigned flags);
  // The same with an addend and a destination, as an MX dot-product unit computes it
  // (docs/BLOCKS.md 5.1): `to` "f32" (or ""), "f16" or "bf16"; addend 0: no C, else c is C, a code
  // of `to`; result is a code of `to` (f16 and bf16 in its low 16 bits), rounded with rounding and
  // saturation ("" for the defaults: rne, none). exact adds C to the exact sum and rounds once,
  // fp32-sequential starts its f32 accumulator at C, a tensor-core model takes C as its own
  // (bf16 it refuses).
  import "DPI-C" function int softmx_dpi_dot_to(input string a_format, input string b_format, input string model,
                                                input int block, input byte unsigned a_scales[],
                                                input byte unsigned a_codes[], input byte unsigned b_scales[],
                                                input byte unsigned b_codes[], input string to, input int addend,
                                                input int unsigned c, input string rounding, input string saturation,
                                                output int unsigned result, output byte unsigned flags);

  // ---- SystemVerilog-side conveniences --------------------------------------------------------------

  typedef struct {
    longint unsigned code;  // the result's code
    byte unsigned flags;    // its flags
    int status;             // 0, or the softmx status of a failure (reported with $error)
  } softmx_result_t;

  typedef struct {
    int width;     // bits in a code
    string name;   // the canonical spec ("e4m3", "e4m3:specials=ieee", "e4m3fnuz")
    bit runtime;   // 1: a runtime format (no FormatId), 0: a named one
    int status;    // 0, or the softmx status of a failure (reported with $error)
  } softmx_format_t;

  // softmx_format_info(spec) -> {width, name, runtime}: what a format spec names.
  function automatic softmx_format_t softmx_format_info(input string spec);
    softmx_format_t f;
    int w, rt;
    string n;
    f.status = softmx_dpi_format(spec, w, n, rt);
    f.width = w;
    f.name = n;
    f.runtime = rt != 0;
    if (f.status != 0) $error("softmx_format_info: %s", softmx_dpi_error());
    return f;
  endfunction

  // softmx_convert(src, dst, code, mode, sat, dialect) -> {code, flags}.
  function automatic softmx_result_t softmx_convert(input string src, input string dst, input longint unsigned code,
                                                    input string rounding = "", input string saturation = "",
                                                    input string dialect = "ocp");
    softmx_result_t r;
    longint unsigned c;
    byte unsigned f;
    r.status = softmx_dpi_convert(src, dst, code, rounding, saturation, dialect, c, f);
    r.code = c;
    r.flags = f;
    if (r.status != 0) $error("softmx_convert: %s", softmx_dpi_error());
    return r;
  endfunction

  // softmx_dequantize(element, dst, scale, code, ...) -> {code, flags}.
  function automatic softmx_result_t softmx_dequantize(input string element, input string dst,
                                                       input byte unsigned scale, input byte unsigned code,
                                                       input string rounding = "", input string saturation = "",
                                                       input string dialect = "ocp");
    softmx_result_t r;
    longint unsigned c;
    byte unsigned f;
    r.status = softmx_dpi_dequantize(element, dst, scale, code, rounding, saturation, dialect, c, f);
    r.code = c;
    r.flags = f;
    if (r.status != 0) $error("softmx_dequantize: %s", softmx_dpi_error());
    return r;
  endfunction

  // The names of softmx's deterministic rounding modes, for a scoreboard that asks which modes
  // would give a unit's result.
  localparam int SOFTMX_MODE_COUNT = 6;
  function automatic string softmx_mode_name(input int i);
    case (i)
      0: return "rne";
      1: return "rna";
      2: return "rz";
      3: return "ru";
      4: return "rd";
      default: return "ro";
    endcase
  endfunction

  // The (rounding, saturation) settings as a mask: bit 2 * m + s for mode m (softmx_mode_name)
  // and saturation s (0 finite, 1 none).
  typedef bit [2 * SOFTMX_MODE_COUNT - 1:0] softmx_settings_t;

  // Every setting under `dialect` whose result for `code` is {result, flags} (flags compared only
  // where check_flags is set): what a unit that disagrees with its specification seems to
  // implement.
  function automatic softmx_settings_t softmx_result_settings(input string src, input string dst,
                                                              input longint unsigned code,
                                                              input longint unsigned result,
                                                              input byte unsigned flags, input bit check_flags,
                                                              input string dialect = "ocp");
    softmx_settings_t found = '0;
    for (int m = 0; m < SOFTMX_MODE_COUNT; m++)
      for (int s = 0; s < 2; s++) begin
        longint unsigned c;
        byte unsigned f;
        if (softmx_dpi_convert(src, dst, code, softmx_mode_name(m), s == 0 ? "finite" : "none", dialect, c, f) == 0 &&
            c == result && (!check_flags || f == flags))
          found[2*m+s] = 1'b1;
      end
    return found;
  endfunction

  // The settings of a mask as "rna/finite rna/none" ("" for none).
  function automatic string softmx_settings_names(input softmx_settings_t settings);
    string names = "";
    for (int m = 0; m < SOFTMX_MODE_COUNT; m++)
      for (int s = 0; s < 2; s++)
        if (settings[2*m+s]) names = {names, names == "" ? "" : " ", softmx_mode_name(m), "/", s == 0 ? "finite" : "none"};
    return names;
  endfunction

  // softmx_settings_names(softmx_result_settings(...)).
  function automatic string softmx_explain_result(input string src, input string dst, input longint unsigned code,
                                                  input longint unsigned result, input byte unsigned flags,
                                                  input bit check_flags, input string dialect = "ocp");
    return softmx_settings_names(softmx_result_settings(src, dst, code, result, flags, check_flags, dialect));
  endfunction

endpackage
