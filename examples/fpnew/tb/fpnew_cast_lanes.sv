// examples/fpnew/tb/fpnew_cast_lanes.sv: LANES copies of FPnew's cast unit (fpnew_cast_multi) side
// by side, combinational (NumPipeRegs = 0), all doing F2F from src_fmt_i to dst_fmt_i under
// rnd_mode_i, each on its own operand. The C++ driver (sim_main.cpp) sets the operands, evaluates
// once and reads LANES results: one evaluation's fixed cost is shared by LANES inputs.
//
// Formats enabled: FP32, FP16, FP8 (e5m2), FP16ALT (bf16) and, where the snapshot has it, FP8ALT
// (e4m3, IEEE-like): FpFmtConfig 6'b101111 (fpnew_pkg's fmt_logic_t is indexed FP32, FP64, FP16,
// FP8, FP16ALT, FP8ALT from the left). FP64 is left out so that the unit is 32 bits wide (its
// internal "super format" is then 8 exponent and 23 fraction bits, FP32's). Integer formats:
// INT32 only (F2F never reads them; the unit's width counts them).
//
// Operands are given NaN-boxed by the driver (upper bits ones) and is_boxed_i is all ones, as
// fpnew_top passes a correctly boxed scalar operand. The unit's ports are those of cvfpu's
// develop branch since "Add ext reg ena" (#129): reg_ena_i exists when FPNEW_HAS_REG_ENA is
// defined (certify.sh defines it when fpnew_cast_multi.sv has the port).
module fpnew_cast_lanes #(
  parameter int unsigned LANES = 32,
  // >= 0: the source (destination) format is this constant and src_fmt_i (dst_fmt_i) is ignored,
  // so that Verilator folds the unit's format multiplexers (a faster simulation of the same RTL)
  parameter int          SRC_FMT = -1,
  parameter int          DST_FMT = -1,
  parameter int          RND_MODE = -1
) (
  input  logic [LANES-1:0][31:0] operands_i,
  input  logic [2:0]             rnd_mode_i,  // fpnew_pkg::roundmode_e
  input  logic [2:0]             src_fmt_i,   // fpnew_pkg::fp_format_e
  input  logic [2:0]             dst_fmt_i,   // fpnew_pkg::fp_format_e
  output logic [LANES-1:0][31:0] result_o,
  output logic [LANES-1:0][31:0] status_o     // {27'b0, NV, DZ, OF, UF, NX}
);
  // Every FP format of the snapshot's fpnew_pkg but FP64: 6'b101111 where it has FP8ALT, 5'b10111
  // where it does not.
  function automatic fpnew_pkg::fmt_logic_t fp_formats();
    fpnew_pkg::fmt_logic_t c = '1;
    c[fpnew_pkg::FP64] = 1'b0;
    return c;
  endfunction
  localparam fpnew_pkg::fmt_logic_t  FpFmtConfig  = fp_formats();
  localparam fpnew_pkg::ifmt_logic_t IntFmtConfig = 4'b0010;  // INT32

  logic [2:0] src_fmt, dst_fmt, rnd_mode;
  assign src_fmt = SRC_FMT >= 0 ? 3'(SRC_FMT) : src_fmt_i;
  assign dst_fmt = DST_FMT >= 0 ? 3'(DST_FMT) : dst_fmt_i;
  assign rnd_mode = RND_MODE >= 0 ? 3'(RND_MODE) : rnd_mode_i;

  for (genvar l = 0; l < int'(LANES); l++) begin : gen_lane
    fpnew_pkg::status_t status;
    /* verilator lint_off PINCONNECTEMPTY */
    fpnew_cast_multi #(
      .FpFmtConfig  ( FpFmtConfig  ),
      .IntFmtConfig ( IntFmtConfig ),
      .NumPipeRegs  ( 0            ),
      .PipeConfig   ( fpnew_pkg::BEFORE ),
      .TagType      ( logic        ),
      .AuxType      ( logic        )
    ) i_cast (
      .clk_i           ( 1'b0 ),
      .rst_ni          ( 1'b1 ),
      .operands_i      ( operands_i[l] ),
      .is_boxed_i      ( '1 ),
      .rnd_mode_i      ( fpnew_pkg::roundmode_e'(rnd_mode) ),
      .op_i            ( fpnew_pkg::F2F ),
      .op_mod_i        ( 1'b0 ),
      .src_fmt_i       ( fpnew_pkg::fp_format_e'(src_fmt) ),
      .dst_fmt_i       ( fpnew_pkg::fp_format_e'(dst_fmt) ),
      .int_fmt_i       ( fpnew_pkg::INT32 ),
      .tag_i           ( 1'b0 ),
      .mask_i          ( 1'b1 ),
      .aux_i           ( 1'b0 ),
      .in_valid_i      ( 1'b1 ),
      .in_ready_o      ( ),
      .flush_i         ( 1'b0 ),
      .result_o        ( result_o[l] ),
      .status_o        ( status ),
      .extension_bit_o ( ),
      .tag_o           ( ),
      .mask_o          ( ),
      .aux_o           ( ),
      .out_valid_o     ( ),
      .out_ready_i     ( 1'b1 ),
`ifdef FPNEW_HAS_REG_ENA
      .reg_ena_i       ( '0 ),
`endif
      .busy_o          ( )
    );
    /* verilator lint_on PINCONNECTEMPTY */
    assign status_o[l] = {27'b0, status};
  end
endmodule
