// tools/softmx/commands.hpp: the subcommands. Each returns the process exit status and throws
// UsageError for bad usage or input.
#pragma once

namespace softmx::cli {

int cmd_convert(int argc, char** argv);
int cmd_explain(int argc, char** argv);
int cmd_formats(int argc, char** argv);
int cmd_dialects(int argc, char** argv);
int cmd_models(int argc, char** argv);
int cmd_quantize(int argc, char** argv);
int cmd_dequantize(int argc, char** argv);
int cmd_dot(int argc, char** argv);
int cmd_gemm_golden(int argc, char** argv);
int cmd_gemm_golden_lut(int argc, char** argv);  // gemm-golden --layout lut-argmin
int cmd_gen(int argc, char** argv);
int cmd_verify(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_merge(int argc, char** argv);
int cmd_diff(int argc, char** argv);
int cmd_identify(int argc, char** argv);
int cmd_report(int argc, char** argv);   // the certificate (report_data.hpp, docs/REPORT.md)
int cmd_recipe(int argc, char** argv);   // TransformerEngine's recipes (recipe.hpp)
int cmd_recipes(int argc, char** argv);
int cmd_layout(int argc, char** argv);   // the scale layouts (scale_layout.hpp)
int cmd_torchmx(int argc, char** argv);  // torchmx's entry points (torchmx.hpp)
int cmd_pychop(int argc, char** argv);   // pychop's mx_quantize (pychop.hpp)

}  // namespace softmx::cli
