// tools/softmx/options.hpp: every subcommand's options, declared once (issue 32).
//
// One table per subcommand (options.cpp): each row an option's name, whether it takes a value,
// its metavar and its help. The parser (parse_command: what the command accepts), the options
// block of `softmx CMD --help` and `softmx help CMD` (options_help), and the unknown-option error
// all read it, so an option cannot be accepted without being documented
// (conformance/test_cli_options.cpp walks every table). Adding an option: one row here, then
// read it with a.get(name) / a.has_switch(name) in the command, plus its tests.
#pragma once

#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "cli.hpp"

namespace softmx::cli {

enum class Arg {
  value,  ///< --name VALUE or --name=VALUE
  flag,   ///< --name, no value
  none,   ///< not an option: a heading (help printed as is) or a note row (head and help)
};

/// One row of a command's options table.
struct Option {
  Option(std::string name_, Arg arg_, std::string metavar_, std::string help_, std::string head_ = {},
         std::string only_ = {})
      : name(std::move(name_)), arg(arg_), metavar(std::move(metavar_)), help(std::move(help_)),
        head(std::move(head_)), only(std::move(only_)) {}

  std::string name;     ///< without "--"; "" for a row that is not an option
  Arg arg = Arg::value;
  std::string metavar;  ///< shown after --name ("" for a flag)
  std::string help;     ///< the help, lines separated by '\n' (a leading '\n': below the head)
  std::string head;     ///< the left column when it is not "--name METAVAR" (a row for several
                        ///< options names each; an option with empty help is named by such a row)
  std::string only;     ///< the modes that take it, space-separated ("" every mode): gemm-golden's
                        ///< "mx" and "lut-argmin"
};

/// The options every command takes (main() handles them before the command's parser):
/// --quiet-spec and -h/--help. Shown last in each command's options block.
const std::vector<Option>& global_options();

/// The table of `command` (a name of command_names()), or nullptr for none.
const std::vector<Option>* command_options(std::string_view command);

/// "options:\n" and the rows of `command`'s table, then the global options, as --help shows them.
std::string options_help(std::string_view command);

/// parse_args with the options of `command`'s table that `mode` takes: the rows whose `only` is
/// empty or names `mode`. With `short_out`, "-o FILE" before a "--" is "--out FILE"
/// (parse_args_short_out).
Args parse_command(const std::string& command, int argc, char** argv, int first, std::string_view mode = {},
                   bool short_out = false);

/// parse_command(command, argc, argv, 2) for a filter, a command whose input is standard input
/// only (quantize, dequantize, dot): an argument that is no option is a UsageError
/// "unexpected argument 'ARG' (WHAT are read from stdin)", `what` naming the input ("values").
Args parse_filter_command(const std::string& command, int argc, char** argv, std::string_view what);

}  // namespace softmx::cli
