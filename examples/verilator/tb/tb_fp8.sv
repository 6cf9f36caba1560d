// examples/verilator/tb/tb_fp8.sv: the certification bench of fp8_from_f32 (rtl/), with softmx as
// its reference model through DPI-C (hdl/softmx_dpi.sv). Two modes, chosen by plusargs:
//
//   +mode=sweep +space=f16|bf16|f32 +fmt=FMT [+first=HEX] [+count=N] [+max_errors=N]
//     The scoreboard: every input of the space (f16 and bf16 widened exactly to f32 here, in
//     SystemVerilog; f32 from +first, +count of them, default all 2^32) goes through LANES
//     copies of the unit at once; softmx converts the same inputs (the original f16/bf16/f32
//     codes, so the widening is checked too) with rne, satfinite, ocp; every code and flag is
//     compared. A mismatch is reported with the settings under which softmx gives the unit's
//     result (what the unit seems to implement); the first one is named on its own line:
//       FIRST MISMATCH: f16 4840 ...
//
//   +mode=vectors +fmt=FMT +in=FILE.memh +out=FILE.vec
//     The vector flow: FILE.memh is `softmx gen convert --from f32 --to FMT ... --inputs-only
//     --export readmemh`; the bench loads it with $readmemh, drives every input through the
//     unit and writes the results as a softmx vector file (the header from FILE.memh's comment
//     lines, then `IN OUT FLAGS`), for `softmx verify` and `softmx identify`.
//
// FMT is a softmx format spec for one of the unit's three formats: e4m3, e5m2, or E4M3 with IEEE
// specials (FPnew's FP8ALT), which softmx knows as the runtime format "e4m3:specials=ieee" (also
// spelt "float8_e4m3", ml_dtypes' name). The bench asks softmx what FMT is
// (softmx_format_info: its canonical spec and width) and sets the unit's format inputs from
// that; the scoreboard converts into FMT itself, so a runtime format goes through softmx's spec
// path end to end. +unit=FMT2 sets the unit to another of its formats than the one softmx
// checks (a negative control: the IEEE-style unit checked as OCP E4M3 must fail).
//
// The bench reports a failed check with $error and a bad set-up with $fatal, and ends with
// $finish; sim_main.cpp turns that into the exit status (0: every check passed, 1: not).
module tb_fp8 #(
    parameter int LANES = 64  // copies of the unit evaluated per clock cycle
);
  import softmx_dpi::*;

  localparam longint unsigned LANES64 = 64'(LANES);
  localparam int MAX_VECTORS = 1 << 20;

  // ---- the units under test ---------------------------------------------------------------------
  // A clock, and input registers loaded from x_next at its rising edge: the bench writes x_next,
  // waits for the edge, and reads the units' outputs at the falling edge, as a hardware bench
  // samples a registered datapath. (Verilator 5.006 does not re-evaluate logic fed by variables
  // that a timed initial process writes directly; registered inputs are evaluated as usual.)
  logic clk = 1'b0;
  /* verilator lint_off BLKSEQ */
  always #1 clk = ~clk;
  /* verilator lint_on BLKSEQ */
  logic [LANES-1:0][31:0] x, x_next;
  logic        to_e5m2, to_e5m2_next, e4m3_ieee, e4m3_ieee_next;
  always_ff @(posedge clk) begin
    x <= x_next;
    to_e5m2 <= to_e5m2_next;
    e4m3_ieee <= e4m3_ieee_next;
  end
  logic [7:0]  code[LANES];
  logic [4:0]  flags[LANES];
  for (genvar i = 0; i < LANES; i++) begin : lane
    fp8_from_f32 dut (.x(x[i]), .to_e5m2(to_e5m2), .e4m3_ieee(e4m3_ieee), .code(code[i]), .flags(flags[i]));
  end

  // ---- exact widening of the 16-bit spaces (independent of softmx) ------------------------------
  function automatic logic [31:0] f16_to_f32(input logic [15:0] h);
    logic [4:0] e = h[14:10];
    logic [9:0] f = h[9:0];
    int p;
    if (e == 5'h1F) return {h[15], 8'hFF, f, 13'b0};              // Inf, NaN (payload kept)
    if (e != 5'd0) return {h[15], {3'b000, e} + 8'd112, f, 13'b0};  // normal: bias 15 -> 127
    if (f == 10'd0) return {h[15], 31'b0};                         // zero
    p = 9;                                                         // subnormal f * 2^-24:
    while (!f[p]) p--;                                             // leading one at bit p
    return {h[15], 8'(p + 103), 23'(({13'b0, f} << (23 - p)) & 23'h7FFFFF)};
  endfunction

  // The input spaces: 0 f32, 1 f16, 2 bf16.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [31:0] widen(input int space, input longint unsigned c);
    if (space == 1) return f16_to_f32(c[15:0]);
    if (space == 2) return {c[15:0], 16'h0000};
    return c[31:0];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- sweep: the DPI scoreboard ------------------------------------------------------------------
  longint unsigned inputs[LANES];
  longint unsigned want[LANES];
  byte unsigned want_flags[LANES];

  task automatic sweep(input string space, input string fmt);
    chandle conv;
    longint unsigned first = 0, count, base, last, checked = 0, errors = 0, max_errors = 10;
    longint unsigned first_bad = 0;
    logic [30:0] lo = '1, hi = '0;  // the smallest and largest |x| (f32 bits) that mismatched
    softmx_settings_t set = '0, common = '1;
    int kind = space == "f16" ? 1 : space == "bf16" ? 2 : 0;
    string s;
    if (space != "f16" && space != "bf16" && space != "f32") $fatal(1, "tb_fp8: +space=%s: expected f16, bf16 or f32", space);
    count = space == "f32" ? 64'h1_0000_0000 : 64'h1_0000;
    if ($value$plusargs("first=%h", first)) ;
    if ($value$plusargs("count=%d", count)) ;
    if ($value$plusargs("max_errors=%d", max_errors)) ;
    last = first + count;
    conv = softmx_dpi_converter_new(space, fmt, "rne", "finite", "after", "ocp");
    if (conv == null) $fatal(1, "tb_fp8: softmx: %s", softmx_dpi_error());
    $display("tb_fp8: sweep %s -> %s, inputs %h .. %h, %0d lanes, softmx ABI %0d", space, fmt, first, last - 1, LANES,
             softmx_dpi_abi_version());
    for (base = first; base < last; base += LANES64) begin
      longint unsigned n = last - base < LANES64 ? last - base : LANES64;
      for (int i = 0; i < LANES; i++) begin
        inputs[i] = 64'(i) < n ? base + 64'(i) : base;  // a short last batch repeats its first input
        x_next[i] = widen(kind, inputs[i]);
      end
      @(posedge clk);
      @(negedge clk);  // the units have settled
      if (softmx_dpi_converter_run(conv, inputs, want, want_flags) != 0)
        $fatal(1, "tb_fp8: softmx: %s", softmx_dpi_error());
      for (int i = 0; i < int'(n); i++)
        if (64'(code[i]) != want[i] || {3'b000, flags[i]} != want_flags[i]) begin
          errors++;
          if (errors == 1) begin
            first_bad = inputs[i];
            $display("FIRST MISMATCH: %s %0h (f32 %h) -> %s", space, inputs[i], x[i], fmt);
          end
          if (x[i][30:0] < lo) lo = x[i][30:0];
          if (x[i][30:0] > hi) hi = x[i][30:0];
          // Which settings give the unit's result here; the intersection over the mismatches is
          // what the unit seems to implement where it departs from rne (asked for the first
          // 100000 mismatches).
          if (errors <= 100000) begin
            set = softmx_result_settings(space, fmt, inputs[i], {56'b0, code[i]}, {3'b000, flags[i]}, 1'b1, "ocp");
            common &= set;
          end
          if (errors <= max_errors) begin
            s = softmx_settings_names(set);
            $display("MISMATCH %s %0h (f32 %h) -> %s: unit %h flags %h, softmx %h flags %h; softmx gives the unit's result under: %s",
                     space, inputs[i], x[i], fmt, code[i], {3'b000, flags[i]}, want[i][7:0], want_flags[i],
                     s == "" ? "no setting (code and flags)" : s);
          end
        end
      checked += n;
      if (space == "f32" && checked % (64'd1 << 28) == 0) begin
        $display("tb_fp8: %0d of %0d inputs checked, %0d mismatches", checked, count, errors);
        $fflush;
      end
    end
    softmx_dpi_converter_free(conv);
    $display("tb_fp8: sweep %s -> %s: %0d inputs through DPI, %0d mismatches", space, fmt, checked, errors);
    if (errors != 0) begin
      $display("SUMMARY: %0d mismatches, |x| from %h to %h (f32); on every mismatch the unit's result is softmx's under: %s",
               errors, {1'b0, lo}, {1'b0, hi},
               common == '0 ? "no single setting" : softmx_settings_names(common));
      $error("tb_fp8: %0d mismatches; the first at %s %0h", errors, space, first_bad);
    end
  endtask

  // ---- vectors: $readmemh in, a softmx vector file out --------------------------------------------
  logic [31:0] mem[MAX_VECTORS];

  task automatic vectors(input string fmt);
    string in, out, line;
    int fd, od, n = 0;
    if (!$value$plusargs("in=%s", in)) $fatal(1, "tb_fp8: +mode=vectors needs +in=FILE.memh");
    if (!$value$plusargs("out=%s", out)) $fatal(1, "tb_fp8: +mode=vectors needs +out=FILE.vec");
    fd = $fopen(in, "r");
    if (fd == 0) $fatal(1, "tb_fp8: cannot open %s", in);
    od = $fopen(out, "w");
    if (od == 0) $fatal(1, "tb_fp8: cannot write %s", out);
    // The header: the `// key = value` lines of the readmemh file, without the `// `.
    while ($fgets(line, fd) != 0) begin
      if (line.len() >= 3 && line.substr(0, 2) == "// ") begin
        for (int i = 3; i < line.len(); i++)
          if (line[i] == "=") begin
            $fwrite(od, "%s", line.substr(3, line.len() - 1));
            break;
          end
      end else if (line.len() > 1) n++;  // a data word
    end
    $fclose(fd);
    if (n > MAX_VECTORS) $fatal(1, "tb_fp8: %s has %0d words, more than MAX_VECTORS = %0d", in, n, MAX_VECTORS);
    $fwrite(od, "# IN OUT FLAGS: fp8_from_f32 (to_e5m2 = %0d, e4m3_ieee = %0d) in Verilator\n", to_e5m2_next,
            e4m3_ieee_next);
    $readmemh(in, mem, 0, n - 1);
    for (int base = 0; base < n; base += LANES) begin
      for (int i = 0; i < LANES; i++) x_next[i] = base + i < n ? mem[base+i] : 32'h0;
      @(posedge clk);
      @(negedge clk);
      for (int i = 0; i < LANES && base + i < n; i++) $fwrite(od, "%h %h %h\n", x[i], code[i], {3'b000, flags[i]});
    end
    $fclose(od);
    $display("tb_fp8: vectors -> %s: %0d inputs from %s, results in %s", fmt, n, in, out);
  endtask

  initial begin
    string mode, space, fmt, unit;
    softmx_format_t f, u;
    if (!$value$plusargs("mode=%s", mode)) mode = "sweep";
    if (!$value$plusargs("fmt=%s", fmt)) fmt = "e4m3";
    if (!$value$plusargs("unit=%s", unit)) unit = fmt;
    if (!$value$plusargs("space=%s", space)) space = "f16";
    // What the specs name, by softmx's canonical spec: one of the unit's formats, or a set-up
    // error, reported with $error and then $finish (sim_main.cpp lets $fatal carry on, as $error).
    f = softmx_format_info(fmt);  // a bad spec: $error with softmx's message, naming the field
    u = softmx_format_info(unit);
    if (f.status == 0 && u.status == 0) begin
      if (f.width != 8) $error("tb_fp8: +fmt=%s is %s, %0d bits: the unit's codes have 8", fmt, f.name, f.width);
      if (u.name != "e4m3" && u.name != "e5m2" && u.name != "e4m3:specials=ieee")
        $error("tb_fp8: +unit=%s is %s: the unit converts into e4m3, e5m2 or e4m3:specials=ieee", unit, u.name);
    end
    if (f.status == 0 && u.status == 0 && f.width == 8 &&
        (u.name == "e4m3" || u.name == "e5m2" || u.name == "e4m3:specials=ieee")) begin
      to_e5m2_next = u.name == "e5m2";
      e4m3_ieee_next = u.name == "e4m3:specials=ieee";
      if (f.runtime) $display("tb_fp8: +fmt=%s is softmx's runtime format %s; the unit converts into %s", fmt, f.name, u.name);
      else $display("tb_fp8: +fmt=%s is softmx's named format %s; the unit converts into %s", fmt, f.name, u.name);
      if (mode == "sweep") sweep(space, fmt);
      else if (mode == "vectors") vectors(fmt);
      else $fatal(1, "tb_fp8: +mode=%s: expected sweep or vectors", mode);
    end
    $finish;
  end
endmodule
