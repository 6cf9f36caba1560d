// tools/softmx/help.hpp: what `softmx CMD --help`, `softmx CMD -h`, `softmx help CMD` and
// `softmx --version` print.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"

namespace softmx::cli {

/// The subcommands, in the order `softmx --help` lists them.
const std::vector<std::string_view>& command_names();

/// The entry point of subcommand `cmd` (commands.hpp), or nullptr: not a subcommand, or "help",
/// which main() answers.
CommandFn* command_function(std::string_view cmd);

/// "convert, explain, ... or dialects": command_names() as a sentence, for error messages.
std::string command_list();

/// The help of subcommand `cmd`: its usage lines, what it reads and writes, every option it
/// accepts with its default, and its exit statuses; ends in '\n'. nullopt when `cmd` is not a
/// subcommand. The lists of formats and dialects are the library's tables (all_formats(),
/// all_dialects()), so a new dialect appears here without an edit.
std::optional<std::string> command_help(std::string_view cmd);

/// Whether the arguments argv[first..argc) ask for help: "--help" or "-h" among them, before a
/// "--" (after which every argument is an operand, so a file named "-h" can still be given).
bool asks_for_help(int argc, char** argv, int first);

/// What `softmx --version` prints: "softmx X.Y.Z" (the CMake project version), then "C ABI N"
/// (SOFTMX_ABI_VERSION, the C API's and libsoftmx.so's soname number); each line ends in '\n'.
std::string version_text();

}  // namespace softmx::cli
