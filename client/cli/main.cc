// atoll: the command-line client of atoll-server.
//
//   atoll COMMAND [ARGUMENTS] [--flag=VALUE ...]
//   atoll help [COMMAND]    (or atoll COMMAND --help)
//
// The commands, their arguments and the flags each reads are listed in
// command_help.cc, which also answers help requests and usage errors.
// A failure prints one line to stderr and exits 1; a usage error prints one
// line and the command's help to stderr and exits 2.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "atoll/client/connection.h"
#include "atoll/version.h"
#include "client/cli/command_help.h"
#include "client/cli/commands.h"
#include "client/cli/loadtest_command.h"
#include "client/cli/synctest_command.h"

ABSL_FLAG(std::string, server, "", "atoll-server address HOST:PORT");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(2),
          "how long to wait for the server");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the CA (or self-signed certificate) to trust: talk TLS "
          "to --server");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "atoll: %s\n", message.c_str());
  return 1;
}

int RunVersion() {
  std::printf("atoll %s (engine %s)\n", ATOLL_CLIENT_VERSION,
              atl::EngineVersion());
  const std::string server = absl::GetFlag(FLAGS_server);
  if (server.empty()) return 0;
  auto info = atl::client::GetServerInfo(server, absl::GetFlag(FLAGS_timeout));
  if (!info.ok()) return Fail(std::string(info.status().message()));
  std::printf("atoll-server %s (engine %s) at %s, up %.1f s\n",
              info->server_version().c_str(), info->engine_version().c_str(),
              server.c_str(), info->uptime_ms() / 1000.0);
  return 0;
}

int RunHealth() {
  const std::string server = absl::GetFlag(FLAGS_server);
  atl::client::ChannelOptions channel;
  channel.tls_ca_path = absl::GetFlag(FLAGS_tls_ca);
  auto status = atl::client::CheckHealth(server, channel, "", absl::GetFlag(FLAGS_timeout));
  if (!status.ok()) return Fail(std::string(status.status().message()));
  std::printf("%s %s\n", server.c_str(),
              atl::client::HealthStatusName(*status));
  return *status == atl::client::HealthStatus::kServing ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(atl::cli::GeneralUsage());
  // `atoll --version` as most tools answer it: the version command.
  if (argc == 2 && std::string(argv[1]) == "--version") return RunVersion();
  // Help, unknown commands and flags, bad values and missing arguments are
  // answered here, before Abseil (which exits 1 on an unknown flag) parses.
  if (std::optional<int> code = atl::cli::CheckCommandLine(argc, argv)) {
    return *code;
  }
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  const std::string command = positional[1];
  if (const atl::cli::CommandSpec* spec = atl::cli::FindCommand(
          command, positional.size() > 2 ? positional[2] : "")) {
    if (std::optional<int> code = atl::cli::CheckRequiredFlags(*spec)) {
      return *code;
    }
  }
  if (command == "version") return RunVersion();
  if (command == "health") return RunHealth();
  const std::vector<std::string> args(positional.begin() + 2, positional.end());
  if (command == "worlds") return atl::cli::RunWorldsCommand(args);
  if (command == "create") return atl::cli::RunCreateCommand(args);
  if (command == "destroy") return atl::cli::RunDestroyCommand(args);
  if (command == "watch") return atl::cli::RunWatchCommand(args);
  if (command == "bot") return atl::cli::RunBotCommand(args);
  if (command == "verify") return atl::cli::RunVerifyCommand(args);
  if (command == "migrate") return atl::cli::RunMigrateCommand(args);
  if (command == "batch") return atl::cli::RunBatchCommand(args);
  if (command == "query") return atl::cli::RunQueryCommand(args);
  if (command == "view") return atl::cli::RunViewCommand(args);
  if (command == "synctest") return atl::cli::RunSyncTestCommand(args);
  if (command == "probe") return atl::cli::RunProbeCommand(args);
  if (command == "loadtest") {
    atl::client::ChannelOptions channel;
    channel.tls_ca_path = absl::GetFlag(FLAGS_tls_ca);
    return atl::cli::RunLoadTestCommand(absl::GetFlag(FLAGS_server), channel);
  }
  // A command in the table without a branch above.
  std::fprintf(stderr, "atoll: command '%s' is not implemented\n",
               command.c_str());
  return 2;
}
