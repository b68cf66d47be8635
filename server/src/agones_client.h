// atoll-server — the Agones SDK client of --agones: talks to the SDK sidecar
// through its HTTP/JSON gateway (the REST API of Agones 1.38,
// https://agones.dev/site/docs/guides/client-sdks/rest/) on
// localhost:$AGONES_SDK_HTTP_PORT, with cpp-httplib; no SDK code is linked.
//
// Two threads of its own, never a tick thread:
// - the lifecycle thread posts /ready once MarkReady() was called, then
//   every health period posts /health, but only when the tick scheduler's
//   heartbeat advanced since the last ping (a stalled tick thread stops the
//   pings and Agones marks the GameServer Unhealthy), sets the labels
//   atoll-worlds and atoll-players when they changed (Agones prefixes
//   "agones.dev/sdk-"), and posts /shutdown once with
//   shutdown_when_empty when the last world of an allocated server ended;
// - the watch thread reads GET /watch/gameserver (JSON lines
//   {"result": GameServer}) and, when status.state becomes "Allocated",
//   creates the world named by the annotations atoll.dev/scene and
//   atoll.dev/world.
// A gateway that is down or slow costs these threads only: every request
// has a short timeout, failures are retried with backoff (0.5 s doubling to
// 10 s) and logged once per change of state, not per request.

#ifndef ATOLL_SERVER_AGONES_CLIENT_H_
#define ATOLL_SERVER_AGONES_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace atl::server {

/// The annotation holding the scene of an allocated match: a built-in scene
/// name ("pyramid") or a SceneSpec in protobuf's JSON mapping.
inline constexpr char kAgonesSceneAnnotation[] = "atoll.dev/scene";
/// The annotation naming the match's world; "match" when unset.
inline constexpr char kAgonesWorldAnnotation[] = "atoll.dev/world";

struct AgonesOptions {
  /// The SDK gateway's host and port (AGONES_SDK_HTTP_PORT, default 9358).
  std::string host = "localhost";
  int port = 9358;
  /// How often a health ping is sent while the tick threads beat, and how
  /// often labels are updated at most.
  absl::Duration health_period = absl::Seconds(2);
  /// Post /shutdown when the last world of an allocated server ends.
  bool shutdown_when_empty = false;
  /// Timeouts of each request (the watch stream has no read timeout).
  absl::Duration connect_timeout = absl::Milliseconds(500);
  absl::Duration request_timeout = absl::Seconds(1);
  /// Retry backoff after a failed request: first and longest wait.
  absl::Duration initial_backoff = absl::Milliseconds(500);
  absl::Duration max_backoff = absl::Seconds(10);
};

/// What the client reads from, and does to, the server it runs in. Every
/// function is called from the client's own threads and must stay callable
/// until the client is destroyed.
struct AgonesHooks {
  /// TickScheduler::heartbeat.
  std::function<uint64_t()> heartbeat;
  /// Worlds hosted (not stopped) and players connected to them.
  std::function<void(uint32_t* worlds, uint32_t* players)> counts;
  /// Creates world `world_id` from `scene` (a built-in scene name or
  /// SceneSpec JSON) through the server's CreateWorld path.
  std::function<absl::Status(const std::string& world_id, const std::string& scene)> create_world;
};

class AgonesClient {
 public:
  /// Starts the threads; nothing is posted before MarkReady(). Never fails:
  /// a missing gateway is retried.
  static std::unique_ptr<AgonesClient> Start(const AgonesOptions& options, AgonesHooks hooks);
  /// Stops the threads (an in-flight request is cut short).
  virtual ~AgonesClient() = default;

  /// The restored worlds are in the tick scheduler: post /ready once the
  /// heartbeat has advanced since this call (once; retried until it
  /// succeeds), then start the health pings.
  virtual void MarkReady() = 0;
};

/// The port of the SDK gateway from $AGONES_SDK_HTTP_PORT; 9358 when unset
/// or malformed.
int AgonesPortFromEnvironment();

}  // namespace atl::server

#endif  // ATOLL_SERVER_AGONES_CLIENT_H_
