// fp8_from_f32.sv: an f32 -> FP8 converter (OCP E4M3 or E5M2, or E4M3 with IEEE specials), as
// a hardware team would write it: combinational, synthesizable, no loops, no real numbers.
//
// Semantics (softmx's `ocp` dialect, docs/SEMANTICS.md): round to nearest, ties to even;
// saturation `finite` (OFP8 SAT: overflow and Inf give the largest finite number of their
// sign); NaN keeps its sign (E4M3 S.1111.111, E5M2 the quiet NaN S.11111.10, IEEE-style E4M3
// the quiet NaN S.1111.100); tininess after rounding. The third format, e4m3_ieee, is FPnew's
// FP8ALT: E4M3 laid out as IEEE 754 (exponent 1111 holds Inf and NaN, largest finite 240 =
// 0x77); softmx has no name for it and checks it as the runtime format "e4m3:specials=ieee".
// The flags are TestFloat's bits, as softmx returns them:
//   flags[0] inexact, [1] underflow, [2] overflow, [3] infinite (never), [4] invalid.
//
// Build with -DPLANT_TIES_AWAY_BUG to get the faulty copy the certification example must
// catch: in the binade [8, 16) it rounds ties away from zero instead of to even.
module fp8_from_f32 (
    input  logic [31:0] x,        // f32 bit pattern
    input  logic        to_e5m2,  // 0: E4M3 (bias 7, no Inf), 1: E5M2 (bias 15, IEEE specials)
    input  logic        e4m3_ieee,// with to_e5m2 = 0: E4M3 with IEEE specials (bias 7, max 0x77)
    output logic [7:0]  code,     // the FP8 code
    output logic [4:0]  flags
);
  logic        s;
  logic [7:0]  ef;     // f32 exponent field
  logic [22:0] fr;     // f32 fraction
  assign s  = x[31];
  assign ef = x[30:23];
  assign fr = x[22:0];

  // Destination constants.
  logic [1:0]  m;        // fraction bits: 3 or 2
  logic [4:0]  bias;     // 7 or 15
  logic [6:0]  max_mag;  // largest finite magnitude code: 0x7E, 0x7B, or 0x77 (IEEE-style E4M3)
  logic [6:0]  nan_mag;  // NaN magnitude code: 0x7F, 0x7E, or 0x7C (IEEE-style E4M3's quiet NaN)
  assign m       = to_e5m2 ? 2'd2 : 2'd3;
  assign bias    = to_e5m2 ? 5'd15 : 5'd7;
  assign max_mag = to_e5m2 ? 7'h7B : e4m3_ieee ? 7'h77 : 7'h7E;
  assign nan_mag = to_e5m2 ? 7'h7E : e4m3_ieee ? 7'h7C : 7'h7F;

  // The input as sig * 2^(e - 23), e the unbiased exponent (subnormals: -126, no hidden bit).
  logic [23:0]        sig;
  logic signed [9:0]  e;
  logic signed [9:0]  emin;  // 1 - bias: -6 or -14
  assign sig  = {ef != 8'd0, fr};
  assign e    = (ef == 8'd0) ? -10'sd126 : $signed({2'b00, ef}) - 10'sd127;
  assign emin = 10'sd1 - $signed({5'b0, bias});

  // Shift to the destination's quantum 2^(max(e, emin) - m), clamped at 26 (every bit of sig
  // below the round bit then, so the result is 0 with the sticky bit set).
  logic signed [10:0] below;   // emin - e when positive
  logic [5:0]         sh;
  always_comb begin
    below = emin - e;
    if (below <= 0) sh = 6'd23 - {4'd0, m};
    else if (below >= 11'sd26) sh = 6'd26;
    else sh = 6'd23 - {4'd0, m} + below[5:0];
    if (sh > 6'd26) sh = 6'd26;
  end

  /* verilator lint_off UNUSEDSIGNAL */
  logic [49:0] ext;     // sig shifted; bits 49:30 are always 0 (sh >= 20)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [3:0]  n;       // truncated significand at the quantum (< 2^(m+1))
  logic        rbit, sticky, inc;
  logic [4:0]  nr;      // rounded significand: at most 2^(m+1) = 16
  always_comb begin
    ext    = {sig, 26'b0} >> sh;
    n      = ext[29:26];
    rbit   = ext[25];
    sticky = |ext[24:0];
`ifdef PLANT_TIES_AWAY_BUG
    if (e == 10'sd3) inc = rbit;  // the fault: ties away from zero in [8, 16)
    else inc = rbit & (sticky | n[0]);
`else
    inc = rbit & (sticky | n[0]);
`endif
    nr = {1'b0, n} + {4'd0, inc};
  end

  // Magnitude code: (e + bias - 1) * 2^m + nr for a normal result (nr in [2^m, 2^(m+1)], the
  // top value carrying into the next binade), nr alone below 2^emin (subnormal or zero).
  logic [11:0] mag;
  always_comb begin
    if (e >= emin) mag = ((12'(e) + 12'(bias) - 12'd1) << m) + 12'(nr);
    else mag = 12'(nr);
  end

  // Tininess after rounding: |x| rounded to m + 1 significant bits with an unbounded exponent
  // range is below 2^emin. Only e = emin - 1 can round up to 2^emin: when its top m + 1 bits
  // are all ones and the rest rounds them up.
  logic [3:0]  top;     // the top m + 1 bits of sig
  logic        r1, st1, up1, all_ones, tiny;
  always_comb begin
    top      = (m == 2'd2) ? {1'b0, sig[23:21]} : sig[23:20];
    r1       = (m == 2'd2) ? sig[20] : sig[19];
    st1      = (m == 2'd2) ? |sig[19:0] : |sig[18:0];
    all_ones = (m == 2'd2) ? (top[2:0] == 3'b111) : (top[3:0] == 4'b1111);
    up1      = r1 & (st1 | top[0]);
    if (e >= emin) tiny = 1'b0;
    else if (e == emin - 10'sd1) tiny = !(all_ones && up1);
    else tiny = 1'b1;
  end

  always_comb begin
    if (ef == 8'hFF && fr != 23'd0) begin          // NaN: invalid when signalling
      code  = {s, nan_mag};
      flags = {!fr[22], 4'b0000};
    end else if (ef == 8'hFF) begin                 // Inf: saturated, invalid
      code  = {s, max_mag};
      flags = 5'b10000;
    end else if (ef == 8'd0 && fr == 23'd0) begin   // zero
      code  = {s, 7'd0};
      flags = 5'b00000;
    end else if (mag > {5'd0, max_mag}) begin       // overflow: saturated
      code  = {s, max_mag};
      flags = 5'b00101;
    end else begin
      code  = {s, mag[6:0]};
      flags = {3'b000, tiny & (rbit | sticky), rbit | sticky};
    end
  end
endmodule
