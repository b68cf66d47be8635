// atoll client — simulated players: random inputs through prediction and
// rollback against a live world. `atoll bot` and the client tests use it.

#ifndef ATOLL_CLIENT_BOT_H_
#define ATOLL_CLIENT_BOT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/client/predicted_world.h"
#include "atoll/v1/scene.pb.h"

namespace atl::client {

struct BotOptions {
  std::string address;
  std::string world_id;
  /// The world's scene (its templates are needed to predict spawns).
  v1::SceneSpec scene;
  /// Join token of slot i+1 at index i; players take slots 1..players.
  std::vector<std::string> tokens;
  int players = 1;
  /// Confirmed ticks each player plays before leaving.
  uint64_t ticks = 600;
  /// One-way latency injected in each player's session (Session options).
  absl::Duration injected_latency = absl::ZeroDuration();
  /// Window and input delay; local_slot is set per player.
  PredictionOptions prediction;
  /// Seed of the random inputs (player i uses seed + i).
  uint64_t seed = 1;
  /// Snapshot rate asked for; 0 uses the world's.
  uint32_t snapshot_every_ticks = 0;
  /// Test knob: player 1 drops its stream once when its confirmed tick
  /// reaches this (0: never) and reconnects with resume_from_tick.
  uint64_t drop_stream_at_tick = 0;
  /// Largest impulse component of a random input, N s.
  float max_impulse = 2.0f;
};

/// What one simulated player saw.
struct BotReport {
  uint32_t slot = 0;
  PredictionStats stats;
  std::vector<DesyncReport> desyncs;
  /// Mean round trip of the health checks made at start and end (with the
  /// injected latency), milliseconds.
  double rtt_ms = 0;
  uint64_t inputs_sent = 0;
  /// Error messages the server sent on the stream (late commands on dead
  /// bodies, ...).
  uint64_t server_errors = 0;
  uint64_t reconnects = 0;
  /// Redirects followed (the world moved to another server).
  uint64_t redirects = 0;
  uint64_t first_tick = 0;
  uint64_t last_tick = 0;
  /// Confirmed hash per tick (the newest 4096).
  std::map<uint64_t, uint64_t> hashes;
};

/// Runs options.players players, one thread each, until each has confirmed
/// options.ticks ticks. Each sends one input per confirmed tick (a random
/// impulse on each body it owns), scheduled one round trip plus the input
/// delay ahead, predicts up to the window and rolls back on mispredictions.
/// Errors: a join that fails (as Session::Connect) or a replica that cannot
/// be stepped; desyncs are reported, not errors.
absl::StatusOr<std::vector<BotReport>> RunBots(const BotOptions& options);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_BOT_H_
