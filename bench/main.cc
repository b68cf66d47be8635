// atoll-bench: runs one benchmark subcommand and prints CSV to stdout.
//
//   atoll-bench <command> [flags...]
//   atoll-bench --help

#include <cstdio>
#include <string>
#include <vector>

#include "command.h"

namespace atl::bench {

std::map<std::string, Command>& Commands() {
  static std::map<std::string, Command> commands;
  return commands;
}

}  // namespace atl::bench

int main(int argc, char** argv) {
  const auto& commands = atl::bench::Commands();
  if (argc < 2 || std::string(argv[1]) == "--help" ||
      std::string(argv[1]) == "help") {
    std::printf("usage: atoll-bench <command> [flags]\n\ncommands:\n");
    for (const auto& [name, command] : commands) {
      std::printf("  %-12s %s\n", name.c_str(), command.summary);
    }
    return argc < 2 ? 2 : 0;
  }
  const auto it = commands.find(argv[1]);
  if (it == commands.end()) {
    std::fprintf(stderr, "atoll-bench: unknown command '%s' (see --help)\n",
                 argv[1]);
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return it->second.run(args);
}
