// Harness wrapper (softmx examples/mxdotp): MXDOTP with no pipeline registers, one
// 64-bit lane of elements per operand, every operand NaN-boxed.
module mxdotp_dut (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [63:0] a_i,
  input  logic [63:0] b_i,
  input  logic [1:0]  a_rem_i,
  input  logic [1:0]  b_rem_i,
  input  logic [7:0]  sa_i,
  input  logic [7:0]  sb_i,
  input  logic [31:0] c_i,
  input  logic [2:0]  rnd_i,
  input  logic        is_int_i,
  input  logic [3:0]  src_fmt_i,
  input  logic [3:0]  dst_fmt_i,
  output logic [31:0] result_o,
  output logic [4:0]  status_o,
  output logic        valid_o
);
  fpnew_pkg::status_t status;
  fpnew_mxdotp_multi #(
    .NumPipeRegs ( 0 ),
    .PipeConfig  ( fpnew_pkg::BEFORE )
  ) i_dut (
    .clk_i, .rst_ni,
    .operands_a_i         ( a_i ),
    .operands_b_i         ( b_i ),
    .operands_a_fp6_rem_i ( a_rem_i ),
    .operands_b_fp6_rem_i ( b_rem_i ),
    .operands_c_i         ( {sb_i, sa_i} ),
    .operand_d_i          ( c_i ),
    .is_boxed_i           ( '1 ),
    .rnd_mode_i           ( fpnew_pkg::roundmode_e'(rnd_i) ),
    .op_i                 ( is_int_i ? fpnew_pkg::MXDOTPI : fpnew_pkg::MXDOTPF ),
    .op_mod_i             ( 1'b0 ),
    .src_fmt_i            ( fpnew_pkg::fp_format_e'(src_fmt_i) ),
    .int_fmt_i            ( fpnew_pkg::INT8 ),
    .dst_fmt_i            ( fpnew_pkg::fp_format_e'(dst_fmt_i) ),
    .tag_i                ( 1'b0 ),
    .mask_i               ( 1'b1 ),
    .aux_i                ( 1'b0 ),
    .in_valid_i           ( 1'b1 ),
    .in_ready_o           ( ),
    .flush_i              ( 1'b0 ),
    .result_o             ( result_o ),
    .status_o             ( status ),
    .extension_bit_o      ( ),
    .tag_o                ( ),
    .mask_o               ( ),
    .aux_o                ( ),
    .out_valid_o          ( valid_o ),
    .out_ready_i          ( 1'b1 ),
    .busy_o               ( )
  );
  assign status_o = status;
endmodule
