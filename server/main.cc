// atoll-server: hosts Atoll worlds over gRPC.
//
//   atoll-server --listen=127.0.0.1:50051
//
// Prints "atoll-server listening on HOST:PORT" once it serves (with the real
// port when --listen asked for port 0), and shuts down gracefully on SIGINT
// or SIGTERM.

#include <csignal>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "atoll/server/server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "HOST:PORT to serve on; port 0 picks a free port");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(5),
          "how long in-flight calls may run after SIGTERM before cancellation");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Hosts deterministic Atoll physics worlds over gRPC.\n"
      "usage: atoll-server --listen=HOST:PORT");
  absl::ParseCommandLine(argc, argv);

  // Block the stop signals in every thread (gRPC's threads inherit this
  // mask) and receive them synchronously below with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  atl::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  auto server = atl::server::Server::Create(options);
  if (!server.ok()) {
    std::fprintf(stderr, "atoll-server: %s\n",
                 std::string(server.status().message()).c_str());
    return 1;
  }
  std::printf("atoll-server listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::printf("atoll-server: received %s, shutting down\n",
              signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  std::fflush(stdout);
  (*server)->Shutdown(absl::GetFlag(FLAGS_shutdown_grace));
  (*server)->Wait();
  return 0;
}
