// softmx/tensor_core_instructions.hpp: which tensor-core model computes the instruction a user
// runs. A user knows "B200, mma.sync m16n8k32 e4m3, f32" or "H100, wgmma", not softmx's model
// names: this table maps architecture x instruction x accumulator to the model
// (tensor_core.hpp), with the evidence behind each row, and gives each row an alias that names
// the model by its instruction ("sm90-wgmma"). find_tensor_core_model() takes the aliases too;
// files and messages always spell the model's own name.
//
// The table is data (emulator/dot/tensor_core_instructions.cpp): a new instruction is one row.
// `softmx models`, `softmx help dot`, `softmx help gen`, Python's
// softmx.tensor_core_instructions() and docs/TENSOR_CORES.md section 3 all print it from here
// (conformance/test_tensor_core_instructions.cpp checks the doc against it).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace softmx {

class TensorCoreModel;

/// One instruction on one architecture, and the model that computes it.
struct TensorCoreInstruction {
  std::string_view arch;         ///< the compute capability, "sm_90"
  std::string_view gpus;         ///< the GPUs that have it, "H100, H200"
  std::string_view instruction;  ///< the PTX instruction and shape, "mma.sync.aligned.m16n8k32"
  std::string_view elements;     ///< the A and B element formats it takes, "e4m3, e5m2"
  std::string_view scales;       ///< its block scales ("none", "UE8M0 per 32", ...)
  std::string_view accumulator;  ///< C and D, "f32, f16"
  std::string_view model;        ///< the model's name (tensor_core_models())
  std::string_view alias;        ///< a model name naming it by instruction, "sm90-mma-sync-fp8"
  bool confirmed = false;        ///< a hardware capture reproduced by the model (evidence says which)
  std::string_view evidence;     ///< the captures or the simulator the row rests on
};

/// Every row, by architecture, in a fixed order.
std::span<const TensorCoreInstruction> tensor_core_instructions();

/// The rows whose text (arch, GPUs, instruction, elements, scales, accumulator, model, alias)
/// holds every word of `query` (case-insensitive; words separated by blanks or commas; "sm90"
/// matches "sm_90", "mma.sync" and "mma-sync" match each other). An empty query gives every row.
std::vector<const TensorCoreInstruction*> find_tensor_core_instructions(std::string_view query);

/// The model an alias of the table names, or nullptr (find_tensor_core_model() calls it).
const TensorCoreModel* tensor_core_model_by_alias(std::string_view alias);

/// The rows as a text table (one line each, columns aligned, a header line), as `softmx models`
/// prints it; `rows` empty prints a line saying that nothing matched.
std::string tensor_core_instruction_table(const std::vector<const TensorCoreInstruction*>& rows);

/// The rows as a Markdown table (docs/TENSOR_CORES.md section 3 holds exactly this text).
std::string tensor_core_instruction_markdown();

}  // namespace softmx
