// atoll CLI — what each command accepts (positional arguments, the flags it
// reads, the ones it cannot run without) and how that is explained: the
// general usage, `atoll help COMMAND` / `atoll COMMAND --help`, and the
// usage errors. One table drives all of it; flag help and defaults come from
// the ABSL_FLAG definitions themselves, so the text cannot drift from them.

#ifndef ATOLL_CLIENT_CLI_COMMAND_HELP_H_
#define ATOLL_CLIENT_CLI_COMMAND_HELP_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace atl::cli {

/// One `atoll` command as its help and the argument checks see it.
struct CommandSpec {
  absl::string_view name{};
  /// One line for the general usage.
  absl::string_view summary{};
  /// The usage line after "usage: ", positionals and required flags
  /// included.
  absl::string_view usage{};
  /// What the positional arguments are, for "missing ..." errors ("" when
  /// the command takes none).
  absl::string_view arguments{};
  int min_args = 0;
  int max_args = 0;
  /// Every Abseil flag the command reads, in help order; any other flag is
  /// refused.
  std::vector<absl::string_view> flags{};
  /// String flags the command cannot run without (refused when empty).
  std::vector<absl::string_view> required_flags{};
  /// One complete command line.
  absl::string_view example{};
};

/// Every command, in the order of the general usage.
const std::vector<CommandSpec>& AllCommands();
/// The command called `name`, or nullptr.
const CommandSpec* FindCommand(absl::string_view name);
/// The command a command line names by its first two words: the subcommand
/// "NAME FIRST_ARG" when the table has it ("batch run", "batch merge"),
/// else `name`; nullptr for an unknown name.
const CommandSpec* FindCommand(absl::string_view name, absl::string_view first_arg);

/// The general usage: every command with its summary and how to get a
/// command's help.
std::string GeneralUsage();
/// A command's usage line, summary, flags (`--name=DEFAULT  help`) and
/// example.
std::string CommandHelp(const CommandSpec& command);

/// Looks at argv before absl::ParseCommandLine (which would exit 1 on an
/// unknown flag and knows nothing of commands): answers help requests
/// (stdout, exit 0) and refuses a missing or unknown command, a flag the
/// command does not read, a flag without a valid value or a wrong number of
/// positional arguments (one line and the usage on stderr, exit 2).
/// nullopt: argv is fit to parse and run.
std::optional<int> CheckCommandLine(int argc, char** argv);

/// After parsing (so --flagfile counts too): refuses `command` without its
/// required flags (exit 2, as above); nullopt when they are all set.
std::optional<int> CheckRequiredFlags(const CommandSpec& command);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_COMMAND_HELP_H_
