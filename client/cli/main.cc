// atoll: the command-line client of atoll-server.
//
//   atoll version [--server=HOST:PORT]
//   atoll health  --server=HOST:PORT [--timeout=2s] [--tls_ca=CA.pem]
//   atoll synctest SCENE [--ticks=N] [--rollback=K] [--size=N] [--seed=S]
//   atoll loadtest [--server=HOST:PORT] [--worlds=32] [--bodies=500] [--clients=128]
//                  [--seconds=10] [--tick_hz=60] [--scene=falling_squares]
//                  [--client_niceness=19] [--settle_seconds=120]
//   atoll worlds  --server=HOST:PORT
//   atoll create  SCENE --server=... [--id=ID] [--slots=N] [--tick_rate=HZ]
//                 [--input_delay=T] [--size=N] [--seed=S]
//   atoll destroy WORLD --server=...
//   atoll watch   WORLD --server=... [--ticks=N | --forever] [--svg=DIR]
//   atoll bot     WORLD --server=... --players=N [--ticks=N] [--latency=D]
//                 [--window=W] [--input_delay=T]
//   atoll verify  RECORDING
//   atoll batch   SCENE --server=... --steps=N [--tick_rate=HZ]
//
// Every failure prints one line to stderr and exits non-zero.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "atoll/client/connection.h"
#include "atoll/version.h"
#include "client/cli/commands.h"
#include "client/cli/loadtest_command.h"
#include "client/cli/synctest_command.h"

ABSL_FLAG(std::string, server, "",
          "atoll-server address HOST:PORT (default: none)");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(2),
          "how long to wait for the server");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the CA (or self-signed certificate) to trust: talk TLS "
          "to --server");

namespace {

constexpr char kUsage[] =
    "usage: atoll <command> [flags]\n"
    "commands:\n"
    "  version   print client and engine versions (and the server's with "
    "--server)\n"
    "  health    exit 0 only when --server reports SERVING\n"
    "  worlds    list the server's worlds\n"
    "  create    create a world from a SceneSpec JSON file or a built-in scene\n"
    "  destroy   destroy a world\n"
    "  watch     follow a world: ticks, awake bodies, events (--svg DIR)\n"
    "  bot       simulated players that predict and roll back; prints stats\n"
    "  verify    re-simulate a recording file against its hash chain\n"
    "  batch     run a scene headless on the server with a progress bar\n"
    "  synctest  roll back and re-simulate a built-in scene every tick;\n"
    "            exit 1 and print the first divergent tick on a mismatch\n"
    "  loadtest  load a server (its own when no --server) with worlds and\n"
    "            streaming clients; print one CSV line of lateness and bytes\n";

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
  if (server.empty()) return Fail("health needs --server=HOST:PORT");
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
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = positional[1];
  if (command == "version") return RunVersion();
  if (command == "health") return RunHealth();
  const std::vector<std::string> args(positional.begin() + 2, positional.end());
  if (command == "worlds") return atl::cli::RunWorldsCommand(args);
  if (command == "create") return atl::cli::RunCreateCommand(args);
  if (command == "destroy") return atl::cli::RunDestroyCommand(args);
  if (command == "watch") return atl::cli::RunWatchCommand(args);
  if (command == "bot") return atl::cli::RunBotCommand(args);
  if (command == "verify") return atl::cli::RunVerifyCommand(args);
  if (command == "batch") return atl::cli::RunBatchCommand(args);
  if (command == "synctest") {
    return atl::cli::RunSyncTestCommand(
        std::vector<std::string>(positional.begin() + 2, positional.end()));
  }
  if (command == "loadtest") {
    atl::client::ChannelOptions channel;
    channel.tls_ca_path = absl::GetFlag(FLAGS_tls_ca);
    return atl::cli::RunLoadTestCommand(absl::GetFlag(FLAGS_server), channel);
  }
  std::fprintf(stderr, "atoll: unknown command '%s'\n%s", command.c_str(),
               kUsage);
  return 2;
}
