// atoll client — prediction and rollback over a server's confirmed frames.
//
// A PredictedWorld holds two replicas of a hosted world, both atoll::sim
// Simulations (the server's own deterministic core):
//
//   confirmed  the state at the last confirmed tick C, stepped only with the
//              inputs of the server's Frames; its hash is checked against
//              every Frame's state_hash. Only confirmed state is compared.
//   predicted  the state at tick P >= C, stepped with the local player's own
//              inputs and a guess for everybody else (each other slot repeats
//              its last confirmed input).
//
// When a confirmed Frame's inputs differ from the ones the predicted world
// used for that tick, the next PredictTo() restores the predicted world from
// the confirmed one (a snapshot round trip) and re-simulates up to P.

#ifndef ATOLL_CLIENT_PREDICTED_WORLD_H_
#define ATOLL_CLIENT_PREDICTED_WORLD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/client/snapshot_bases.h"
#include "atoll/sim/simulation.h"
#include "atoll/v1/session.pb.h"
#include "atoll/world_diff.h"

namespace atl::client {

struct PredictionOptions {
  /// The local player's slot; 0 for a spectator (no prediction).
  uint32_t local_slot = 0;
  /// Ticks the predicted world may run ahead of the confirmed one, 0..60.
  int prediction_window = 8;
  /// Ticks between the predicted tick and the tick a new local input is
  /// scheduled for (MakeLocalInput), 0..60.
  int input_delay = 0;
};

/// What prediction cost so far.
struct PredictionStats {
  /// Restores of the predicted world from the confirmed one because the
  /// confirmed inputs differed from the predicted ones.
  uint64_t rollbacks = 0;
  /// Ticks stepped again during rollbacks.
  uint64_t frames_resimulated = 0;
  /// Ticks stepped ahead of the confirmed world (first time).
  uint64_t frames_predicted = 0;
  /// Confirmed frames applied and hash-checked.
  uint64_t confirmed_frames = 0;
  /// Confirmed hashes that differed from the server's.
  uint64_t desyncs = 0;
  /// Restores of the confirmed world from a server snapshot (after a desync
  /// or a gap in the frames).
  uint64_t resyncs = 0;
  /// P - C now, and the most it has been.
  int prediction_depth = 0;
  int max_prediction_depth = 0;
  /// Wall time of rollbacks (restore plus re-simulation), milliseconds.
  double total_rollback_ms = 0;
  double max_rollback_ms = 0;
  double mean_rollback_ms() const {
    return rollbacks == 0 ? 0.0 : total_rollback_ms / static_cast<double>(rollbacks);
  }
};

/// A confirmed hash that differed from the server's.
struct DesyncReport {
  /// The first tick whose hash differed, and both hashes.
  uint64_t tick = 0;
  uint64_t server_hash = 0;
  uint64_t local_hash = 0;
  /// The tick of the server snapshot the diff was taken against (0: none
  /// was available at the same tick).
  uint64_t diff_tick = 0;
  /// Local (a) against server (b), body by body (DiffWorlds).
  std::vector<BodyDiff> diffs;
  /// "desync at tick N: server 0x.. local 0x..; at tick M: body 3: ...".
  std::string ToString() const;
};

class PredictedWorld {
 public:
  /// Both replicas in the state of the server's full `snapshot`, for the
  /// world built from `spec` (its spawn templates matter) under the
  /// effective `config` (Joined.config). InvalidArgument for bad options or
  /// a delta snapshot; errors of sim::Simulation::Restore otherwise.
  static absl::StatusOr<std::unique_ptr<PredictedWorld>> Create(
      const v1::SceneSpec& spec, const v1::WorldConfig& config, const v1::Snapshot& snapshot,
      const PredictionOptions& options);

  /// Feeds one server message in stream order: Frames and Snapshots are
  /// applied, an Error refusing a local Input drops it from the prediction,
  /// the rest is ignored. Never fails on a desync (see TakeDesyncs);
  /// returns an error only when the replica cannot be stepped or restored.
  absl::Status OnServerMessage(const v1::ServerMessage& message);
  /// A confirmed frame: frames at or before the confirmed tick are skipped,
  /// the next one is applied and its hash checked, a later one (a gap) makes
  /// the world wait for the next snapshot.
  absl::Status OnFrame(const v1::Frame& frame);
  /// A server snapshot: ahead of the confirmed tick it is restored (a jump
  /// after a collapsed outbox); at the confirmed tick its hash is checked
  /// (and a desync resolved: diffed, then restored); older ones are ignored.
  /// Delta snapshots are applied to their base, one of the last 8
  /// snapshots received (FailedPrecondition when it is not kept).
  absl::Status OnSnapshot(const v1::Snapshot& snapshot);

  /// The next Input of the local player: for `target_tick` (0: predicted_tick()
  /// + 1 + input_delay), the next sequence number, `commands`. It is
  /// remembered and used by the prediction; the caller sends it.
  v1::Input MakeLocalInput(uint64_t target_tick, std::vector<v1::Command> commands);
  /// Remembers an input the local player sent (MakeLocalInput does this).
  void AddLocalInput(const v1::Input& input);
  /// Sequence numbers continue from here. They must grow per slot over
  /// every session; a client that does not know its slot's last one can
  /// start from the Unix time in microseconds (RunBots does).
  void set_next_sequence(uint64_t sequence) { next_sequence_ = sequence; }
  uint64_t next_sequence() const { return next_sequence_; }

  /// Brings the predicted world to min(tick, confirmed_tick() + window),
  /// first rolling back when a confirmed frame disproved the prediction.
  /// Does nothing for a spectator.
  absl::Status PredictTo(uint64_t tick);

  uint64_t confirmed_tick() const { return confirmed_->tick(); }
  /// A spectator has no predicted replica: these give the confirmed one.
  uint64_t predicted_tick() const { return predicted().tick(); }
  const sim::Simulation& confirmed() const { return *confirmed_; }
  const sim::Simulation& predicted() const {
    return predicted_ != nullptr ? *predicted_ : *confirmed_;
  }
  const PredictionStats& stats() const { return stats_; }
  const PredictionOptions& options() const { return options_; }
  /// True after a gap or a desync until a snapshot has been restored.
  bool awaiting_snapshot() const { return awaiting_snapshot_; }
  /// Confirmed hash of every tick applied so far (tick -> hash), newest
  /// 4096.
  const std::map<uint64_t, uint64_t>& confirmed_hashes() const { return hashes_; }
  /// Desync reports completed since the last call.
  std::vector<DesyncReport> TakeDesyncs();

 private:
  PredictedWorld() = default;
  std::vector<v1::ConfirmedInput> PredictInputs(uint64_t tick) const;
  absl::Status StepPredicted(uint64_t tick);
  absl::Status ResyncFrom(const v1::Snapshot& snapshot, const std::string& full_bytes);
  void RecordHash(uint64_t tick, uint64_t hash);

  PredictionOptions options_;
  std::unique_ptr<sim::Simulation> confirmed_;
  std::unique_ptr<sim::Simulation> predicted_;  // null for a spectator
  // Inputs the predicted world applied at each tick in (C, P].
  std::map<uint64_t, std::vector<v1::ConfirmedInput>> predicted_inputs_;
  // Local inputs not yet seen in a confirmed frame, by sequence.
  std::map<uint64_t, v1::Input> local_inputs_;
  // Each other slot's most recent confirmed commands (its guess).
  std::map<uint32_t, std::vector<v1::ConfirmedInput>> last_inputs_;
  uint64_t next_sequence_ = 1;
  bool rollback_needed_ = false;
  bool awaiting_snapshot_ = false;
  std::optional<DesyncReport> pending_desync_;
  std::vector<DesyncReport> desyncs_;
  std::map<uint64_t, uint64_t> hashes_;
  // The bases of delta snapshots.
  SnapshotBases bases_;
  PredictionStats stats_;
};

}  // namespace atl::client

#endif  // ATOLL_CLIENT_PREDICTED_WORLD_H_
