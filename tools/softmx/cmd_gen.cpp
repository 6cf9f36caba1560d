// tools/softmx/cmd_gen.cpp: placeholder, being written.
#include "cli.hpp"
#include "commands.hpp"

namespace softmx::cli {
int cmd_gen(int, char**) { throw UsageError("not implemented yet"); }
}  // namespace softmx::cli
