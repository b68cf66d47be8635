// atoll-bench: runs one benchmark subcommand and prints CSV to stdout.
//
//   atoll-bench <command> [flags...]
//   atoll-bench help [command]   (or atoll-bench <command> --help)

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"

namespace {

std::string GeneralUsage() {
  std::string out = "usage: atoll-bench <command> [flags]\n\ncommands:\n";
  for (const auto& [name, command] : atl::bench::Commands()) {
    char line[512];
    std::snprintf(line, sizeof(line), "  %-12s %s\n", name.c_str(),
                  command.summary);
    out += line;
  }
  out +=
      "\n`atoll-bench help <command>` or `atoll-bench <command> --help` "
      "lists the\ncommand's flags with their defaults and gives an example.\n";
  return out;
}

bool IsHelp(const std::string& arg) {
  return arg == "--help" || arg == "-h" || arg == "help";
}

}  // namespace

int main(int argc, char** argv) {
  const auto& commands = atl::bench::Commands();
  if (argc < 2) {
    std::fputs(GeneralUsage().c_str(), stderr);
    return 2;
  }
  std::string name = argv[1];
  const bool help = IsHelp(name);
  if (help) {
    if (name != "help" || argc < 3) {
      std::fputs(GeneralUsage().c_str(), stdout);
      return 0;
    }
    name = argv[2];
  }
  const auto it = commands.find(name);
  if (it == commands.end()) {
    std::fprintf(stderr, "atoll-bench: unknown command '%s' (see --help)\n",
                 name.c_str());
    return 2;
  }
  const atl::bench::Command& command = it->second;
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (help || std::any_of(args.begin(), args.end(), [](const std::string& arg) {
        return arg == "--help" || arg == "-h";
      })) {
    std::fputs(atl::bench::CommandHelpText(command).c_str(), stdout);
    return 0;
  }
  // The flags the command declares are the ones it parses: anything else is
  // refused here, with the command's help, before it prints a header.
  const absl::StatusOr<atl::bench::Args> parsed =
      atl::bench::Args::Parse(args, atl::bench::FlagNames(command.help.flags));
  if (!parsed.ok()) {
    std::fprintf(stderr, "atoll-bench %s: %s\n\n%s", name.c_str(),
                 std::string(parsed.status().message()).c_str(),
                 atl::bench::CommandHelpText(command).c_str());
    return 2;
  }
  return command.run(args);
}
