// atoll-server: hosts Atoll worlds over gRPC.
//
//   atoll-server --listen=127.0.0.1:50051 --data_dir=/var/lib/atoll
//   atoll-server --listen=0.0.0.0:50051 --tls_cert=cert.pem --tls_key=key.pem
//
// With --data_dir every world is recorded there and restored at the next
// start (docs/recording.md). With --http_listen=127.0.0.1:8080 it also serves
// the read-only web viewer and replay inspector (docs/viewer.md).
//
// Prints "atoll-server listening on HOST:PORT" once it serves (with the real
// port when --listen asked for port 0), then "atoll-server viewer at
// http://HOST:PORT/" when --http_listen is set, then "atoll-server metrics at
// http://HOST:PORT/metrics" when --metrics_listen is set (Prometheus text
// format, deploy/README.md), and shuts down gracefully on SIGINT or SIGTERM.
// With --agones it also reports to the Agones SDK sidecar (Ready, health,
// labels, allocation; deploy/README.md, server/src/agones_client.h).

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "atoll/server/server.h"
#include "atoll/viewer/web_server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "HOST:PORT to serve on; port 0 picks a free port");
ABSL_FLAG(std::string, data_dir, "",
          "directory for world recordings; worlds found there are restored at "
          "start. Empty: recordings are kept in memory only");
ABSL_FLAG(uint32_t, max_worlds, 64, "most worlds this server hosts");
ABSL_FLAG(uint32_t, max_bodies_per_world, 100000, "most bodies in one world");
ABSL_FLAG(int32_t, max_message_bytes, 16 << 20,
          "largest request message accepted, bytes");
ABSL_FLAG(int32_t, tick_threads, 2, "threads that step worlds");
ABSL_FLAG(int32_t, tick_priority, 0,
          "1..99: the tick threads run under SCHED_FIFO at this priority and preempt "
          "every other thread when a tick falls due (needs root, CAP_SYS_NICE or "
          "RLIMIT_RTPRIO); 0: normal scheduling");
ABSL_FLAG(int32_t, io_niceness, 5,
          "how much lower (nice increment, 0..19) every thread but the tick threads "
          "runs: gRPC, sending, batches; ticks start on time when cores are short");
ABSL_FLAG(int32_t, batch_threads, 1, "threads for BatchService and ReplayService");
ABSL_FLAG(uint32_t, outbox_capacity, 256,
          "messages queued per session before it is collapsed to a snapshot");
ABSL_FLAG(absl::Duration, keepalive_time, absl::Seconds(20),
          "HTTP/2 keepalive ping interval");
ABSL_FLAG(absl::Duration, keepalive_timeout, absl::Seconds(10),
          "how long a keepalive ping may go unanswered");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate (chain) file; with --tls_key the server speaks TLS only");
ABSL_FLAG(std::string, tls_key, "", "PEM private key file of --tls_cert");
ABSL_FLAG(std::string, http_listen, "",
          "HOST:PORT of the read-only web viewer (live worlds in a browser, and "
          "the replay inspector on --data_dir's recordings or uploaded ones); "
          "empty: no viewer. Use a loopback HOST unless others should see it");
ABSL_FLAG(int32_t, http_max_streams, 16, "web viewer streams served at once at most");
ABSL_FLAG(std::string, metrics_listen, "",
          "HOST:PORT serving Prometheus metrics at GET /metrics (text format 0.0.4); "
          "empty: none. 0.0.0.0:9100 lets a Prometheus in the cluster scrape it");
ABSL_FLAG(bool, agones, false,
          "talk to the Agones SDK sidecar through its HTTP gateway on "
          "localhost:$AGONES_SDK_HTTP_PORT (default 9358): Ready, health pings from the tick "
          "threads, world/player labels, a world from the atoll.dev/scene annotation when "
          "allocated (deploy/README.md)");
ABSL_FLAG(absl::Duration, agones_health_period, absl::Seconds(2),
          "with --agones: how often health pings are sent while the tick threads run");
ABSL_FLAG(bool, agones_shutdown_when_empty, false,
          "with --agones: ask Agones to shut down when the last world of an allocated "
          "server ends");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(5),
          "how long in-flight calls may run after SIGTERM before cancellation");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Hosts deterministic Atoll physics worlds over gRPC.\n"
      "usage: atoll-server --listen=HOST:PORT [--data_dir=DIR]");
  absl::ParseCommandLine(argc, argv);
  // Debian's Abseil checks every mutex acquisition against a global lock
  // graph (deadlock detection, meant for debug builds); the tests keep it,
  // a serving process does not pay for it on every tick and message.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  // Block the stop signals in every thread (gRPC's threads inherit this
  // mask) and receive them synchronously below with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A malformed --http_listen is a usage error, like a malformed flag.
  const std::string http_listen = absl::GetFlag(FLAGS_http_listen);
  if (!http_listen.empty()) {
    std::string host;
    int port = 0;
    if (absl::Status s = atl::viewer::ParseHostPort(http_listen, "--http_listen", &host, &port);
        !s.ok()) {
      std::fprintf(stderr, "atoll-server: %s\n", std::string(s.message()).c_str());
      return 2;
    }
  }
  const std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  if (!metrics_listen.empty()) {
    std::string host;
    int port = 0;
    if (absl::Status s =
            atl::viewer::ParseHostPort(metrics_listen, "--metrics_listen", &host, &port);
        !s.ok()) {
      std::fprintf(stderr, "atoll-server: %s\n", std::string(s.message()).c_str());
      return 2;
    }
  }

  atl::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.max_bodies_per_world = absl::GetFlag(FLAGS_max_bodies_per_world);
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.tick_threads = absl::GetFlag(FLAGS_tick_threads);
  options.tick_priority = absl::GetFlag(FLAGS_tick_priority);
  options.io_niceness = absl::GetFlag(FLAGS_io_niceness);
  options.batch_threads = absl::GetFlag(FLAGS_batch_threads);
  options.outbox_capacity = absl::GetFlag(FLAGS_outbox_capacity);
  options.keepalive_time = absl::GetFlag(FLAGS_keepalive_time);
  options.keepalive_timeout = absl::GetFlag(FLAGS_keepalive_timeout);
  options.tls_cert_path = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key_path = absl::GetFlag(FLAGS_tls_key);
  options.http_listen = http_listen;
  options.http_max_streams = absl::GetFlag(FLAGS_http_max_streams);
  options.metrics_listen = metrics_listen;
  options.agones = absl::GetFlag(FLAGS_agones);
  options.agones_health_period = absl::GetFlag(FLAGS_agones_health_period);
  options.agones_shutdown_when_empty = absl::GetFlag(FLAGS_agones_shutdown_when_empty);
  auto server = atl::server::Server::Create(options);
  if (!server.ok()) {
    std::fprintf(stderr, "atoll-server: %s\n",
                 std::string(server.status().message()).c_str());
    return 1;
  }
  for (const std::string& line : (*server)->recovery_log()) {
    std::printf("atoll-server: %s\n", line.c_str());
  }
  std::printf("atoll-server listening on %s\n", (*server)->address().c_str());
  if (!(*server)->http_url().empty()) {
    std::printf("atoll-server viewer at %s\n", (*server)->http_url().c_str());
  }
  if (!(*server)->metrics_url().empty()) {
    std::printf("atoll-server metrics at %s\n", (*server)->metrics_url().c_str());
  }
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
