// tools/softmx/cmd_identify.cpp: placeholder, being written.
#include "cli.hpp"
#include "commands.hpp"

namespace softmx::cli {
int cmd_identify(int, char**) { throw UsageError("not implemented yet"); }
}  // namespace softmx::cli
