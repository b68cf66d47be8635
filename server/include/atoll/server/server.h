// atoll-server — the gRPC server that hosts Atoll worlds.

#ifndef ATOLL_SERVER_SERVER_H_
#define ATOLL_SERVER_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace atl::server {

/// How to start a server.
struct ServerOptions {
  /// "HOST:PORT" to listen on; port 0 asks the kernel for a free port.
  std::string listen = "127.0.0.1:50051";
  /// Directory of world recordings (docs/recording.md); worlds found there
  /// are restored at start. Empty: recordings live in memory only.
  std::string data_dir;
  /// Worlds this server hosts at most (CreateWorld: RESOURCE_EXHAUSTED).
  uint32_t max_worlds = 64;
  /// Bodies per world at most (scene and spawns: RESOURCE_EXHAUSTED).
  uint32_t max_bodies_per_world = 100000;
  /// Largest request message, bytes (gRPC answers RESOURCE_EXHAUSTED).
  int max_message_bytes = 16 << 20;
  /// Threads stepping worlds.
  int tick_threads = 2;
  /// 1..99: the tick threads run under SCHED_FIFO at this priority, so a
  /// tick that falls due preempts every normally scheduled thread at once
  /// (Start fails with FailedPrecondition when the process may not: it
  /// needs root, CAP_SYS_NICE or RLIMIT_RTPRIO). 0: normal scheduling.
  int tick_priority = 0;
  /// Scheduling priority of everything but the tick threads, as a nice
  /// increment 0..19: Start() lowers the calling thread's priority by this
  /// much right after starting the tick threads, so every thread created
  /// afterwards (gRPC's, the send thread, batch workers) inherits it, and
  /// when the cores are short, ticks start on time while client I/O waits in
  /// its bounded outboxes. Linux nice values are per thread and lowering one
  /// needs no privilege. 0 leaves every thread at the caller's priority.
  int io_niceness = 0;
  /// Threads running batches and replays.
  int batch_threads = 1;
  /// Messages a session's outbox holds before it collapses to a snapshot.
  uint32_t outbox_capacity = 256;
  /// HTTP/2 keepalive ping interval for long-lived streams.
  absl::Duration keepalive_time = absl::Seconds(20);
  /// How long a keepalive ping may go unanswered before the connection is
  /// closed.
  absl::Duration keepalive_timeout = absl::Seconds(10);
  /// PEM files of the server's certificate (chain) and private key. Both
  /// set: serve TLS only; both empty: plaintext.
  std::string tls_cert_path;
  std::string tls_key_path;
  /// "HOST:PORT" of the read-only web viewer (docs/viewer.md); empty (the
  /// default) serves none. Port 0 picks a free port.
  std::string http_listen;
  /// Web viewer streams served at once at most.
  int http_max_streams = 16;
  /// "HOST:PORT" serving Prometheus metrics at /metrics (text format
  /// 0.0.4, deploy/README.md); empty (the default) serves none. Port 0 picks
  /// a free port.
  std::string metrics_listen;
  /// Talk to the Agones SDK sidecar (deploy/agones, server/src/agones_client.h):
  /// Ready once the restored worlds tick, health pings while the tick
  /// threads beat, labels with world and player counts, a world from the
  /// atoll.dev/scene annotation when allocated. Off by default.
  bool agones = false;
  /// The SDK's HTTP gateway port on localhost; 0: $AGONES_SDK_HTTP_PORT,
  /// else 9358.
  int agones_port = 0;
  /// How often health pings go out (while the tick threads beat).
  absl::Duration agones_health_period = absl::Seconds(2);
  /// Ask Agones to shut the GameServer down when the last world of an
  /// allocated server ends.
  bool agones_shutdown_when_empty = false;
};

/// A running gRPC server with Atoll's services, standard health checking
/// (grpc.health.v1.Health, reporting SERVING while up) and server
/// reflection. Create() starts it; the destructor shuts it down.
class Server {
 public:
  /// Restores the worlds recorded in options.data_dir and starts serving on
  /// options.listen. Returns InvalidArgument for a malformed address or
  /// option (also one TLS file without the other, or one that cannot be
  /// read, or a malformed http_listen or metrics_listen), Internal when data_dir cannot be
  /// used and Unavailable when an address cannot be bound.
  static absl::StatusOr<std::unique_ptr<Server>> Create(
      const ServerOptions& options);

  virtual ~Server() = default;

  /// The address actually bound, with the real port when 0 was asked for.
  virtual const std::string& address() const = 0;

  /// The web viewer's "http://HOST:PORT/" with the real port; empty when
  /// options.http_listen was.
  virtual std::string http_url() const = 0;

  /// "http://HOST:PORT/metrics" with the real port; empty when
  /// options.metrics_listen was.
  virtual std::string metrics_url() const = 0;

  /// Marks every service NOT_SERVING, ends every session (UNAVAILABLE, after
  /// writing what is queued for it), syncs every recording, lets in-flight
  /// calls finish for up to `grace`, then cancels the rest. Safe to call
  /// more than once.
  virtual void Shutdown(absl::Duration grace) = 0;

  /// Blocks until Shutdown() has completed.
  virtual void Wait() = 0;

  /// What startup recovery did, one line per recording found.
  virtual const std::vector<std::string>& recovery_log() const = 0;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SERVER_H_
