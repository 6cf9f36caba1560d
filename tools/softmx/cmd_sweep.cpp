// tools/softmx/cmd_sweep.cpp: placeholder, being written.
#include "cli.hpp"
#include "commands.hpp"

namespace softmx::cli {
int cmd_sweep(int, char**) { throw UsageError("not implemented yet"); }
}  // namespace softmx::cli
namespace softmx::cli { int cmd_merge(int, char**) { throw UsageError("not implemented yet"); } }
