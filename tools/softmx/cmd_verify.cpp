// tools/softmx/cmd_verify.cpp: placeholder, being written.
#include "cli.hpp"
#include "commands.hpp"

namespace softmx::cli {
int cmd_verify(int, char**) { throw UsageError("not implemented yet"); }
}  // namespace softmx::cli
