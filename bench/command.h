// atoll-bench — subcommand registry.
//
// Each benchmark lives in its own file and registers itself with
// ATOLL_BENCH_COMMAND, so adding a benchmark touches no shared file. The
// registration also declares the command's flags (with the defaults it
// applies), usage line and one example: `atoll-bench help CMD` prints them,
// and main refuses any other flag with that help before the command runs.

#ifndef ATOLL_BENCH_COMMAND_H_
#define ATOLL_BENCH_COMMAND_H_

#include <map>
#include <span>
#include <string>
#include <vector>

namespace atl::bench {

/// A benchmark entry point: receives the arguments after the subcommand
/// name and returns the process exit code. Output is CSV on stdout.
using CommandFn = int (*)(const std::vector<std::string>& args);

/// One `--name=value` flag of a subcommand.
struct Flag {
  const char* name;
  /// What the command uses when the flag is absent, as text; nullptr for a
  /// switch, on when given at all (`--ccd`).
  const char* default_value;
  const char* help;
};

/// What `atoll-bench help CMD` shows besides the summary.
struct CommandHelp {
  /// After "usage: ", e.g. "atoll-bench v3 [--scene=A,B] [--runs=N]".
  const char* usage;
  /// Every flag the command accepts; keep the array in static storage and
  /// pass FlagNames() of it to Args::Parse, so help and parser agree.
  std::span<const Flag> flags;
  /// One complete command line.
  const char* example;
};

struct Command {
  const char* summary;
  CommandFn run;
  CommandHelp help;
};

/// All registered subcommands by name (ordered, so `--help` is stable).
std::map<std::string, Command>& Commands();

/// The names of `flags`, for Args::Parse.
std::vector<std::string> FlagNames(std::span<const Flag> flags);

/// A subcommand's help: usage line, summary, every flag as
/// `--name=DEFAULT  help`, and the example.
std::string CommandHelpText(const Command& command);

struct CommandRegistrar {
  CommandRegistrar(const char* name, const char* summary, CommandFn run,
                   CommandHelp help) {
    Commands()[name] = Command{summary, run, help};
  }
};

}  // namespace atl::bench

/// ATOLL_BENCH_COMMAND("name", "summary", RunFn,
///                     {.usage = "...", .flags = kFlags, .example = "..."});
#define ATOLL_BENCH_COMMAND(name, summary, fn, ...)                       \
  static const ::atl::bench::CommandRegistrar atoll_bench_registrar_##fn( \
      name, summary, fn, __VA_ARGS__)

#endif  // ATOLL_BENCH_COMMAND_H_
