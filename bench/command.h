// atoll-bench — subcommand registry.
//
// Each benchmark lives in its own file and registers itself with
// ATOLL_BENCH_COMMAND, so adding a benchmark touches no shared file.

#ifndef ATOLL_BENCH_COMMAND_H_
#define ATOLL_BENCH_COMMAND_H_

#include <map>
#include <string>
#include <vector>

namespace atl::bench {

/// A benchmark entry point: receives the arguments after the subcommand
/// name and returns the process exit code. Output is CSV on stdout.
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* summary;
  CommandFn run;
};

/// All registered subcommands by name (ordered, so `--help` is stable).
std::map<std::string, Command>& Commands();

struct CommandRegistrar {
  CommandRegistrar(const char* name, const char* summary, CommandFn run) {
    Commands()[name] = Command{summary, run};
  }
};

}  // namespace atl::bench

#define ATOLL_BENCH_COMMAND(name, summary, fn)                   \
  static const ::atl::bench::CommandRegistrar                  \
      atoll_bench_registrar_##fn(name, summary, fn)

#endif  // ATOLL_BENCH_COMMAND_H_
