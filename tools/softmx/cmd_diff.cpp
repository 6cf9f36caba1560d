// tools/softmx/cmd_diff.cpp: placeholder, being written.
#include "cli.hpp"
#include "commands.hpp"

namespace softmx::cli {
int cmd_diff(int, char**) { throw UsageError("not implemented yet"); }
}  // namespace softmx::cli
