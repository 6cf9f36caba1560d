// tools/softmx/commands.hpp: the subcommands. Each returns the process exit status and throws
// UsageError for bad usage or input.
#pragma once

namespace softmx::cli {

/// A subcommand's entry point: `softmx NAME ARGS...` is cmd_NAME(argc, argv), argv[1] the name.
/// kCommands (help.cpp) maps each name to its function.
using CommandFn = int(int argc, char** argv);

CommandFn cmd_convert, cmd_explain, cmd_formats, cmd_dialects, cmd_models, cmd_quantize, cmd_dequantize;
CommandFn cmd_dot, cmd_gemm_golden, cmd_gen, cmd_verify, cmd_sweep, cmd_merge, cmd_diff, cmd_identify;
CommandFn cmd_gemm_golden_lut;           // gemm-golden --layout lut-argmin (called by cmd_gemm_golden)
CommandFn cmd_report;                    // the certificate (report_data.hpp, docs/REPORT.md)
CommandFn cmd_recipe, cmd_recipes;       // TransformerEngine's recipes (recipe.hpp)
CommandFn cmd_layout;                    // the scale layouts (scale_layout.hpp)
CommandFn cmd_torchmx;                   // torchmx's entry points (torchmx.hpp)
CommandFn cmd_pychop;                    // pychop's mx_quantize (pychop.hpp)

}  // namespace softmx::cli
