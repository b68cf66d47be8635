// atoll-server — one hosted world: the Simulation, the inputs queued per
// tick, the sessions watching it and its recording.
//
// Thread model: the tick scheduler calls Tick() from one of its threads
// (never two at once for the same world); session reactors call Join /
// SubmitInput / Ack / Leave from gRPC threads. One mutex guards everything;
// Tick holds it for one step, so a client can delay a tick only by the time
// it takes to check one Input. Messages leave through each session's
// bounded Outbox, which never blocks the tick. Queries (QueryService) hold
// the mutex for the query alone and yield to a waiting tick (see Query).

#ifndef ATOLL_SERVER_WORLD_HOST_H_
#define ATOLL_SERVER_WORLD_HOST_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/server/simulation.h"
#include "atoll/v1/session.pb.h"
#include "atoll/v1/world.pb.h"
#include "outbox.h"
#include "pi_mutex.h"
#include "recording.h"
#include "server_metrics.h"
#include "sync_thread.h"

namespace atl::server {

/// WorldInfo.lateness_histogram_us50: 200 buckets of 50 µs and one for
/// 10 ms or more (sent without its trailing empty buckets).
inline constexpr int kLatenessBucketUs = 50;
inline constexpr int kLatenessBuckets = 201;

/// Snapshots a world keeps after sending them, so that a session's Ack can
/// name one as its delta base.
inline constexpr size_t kKeptSentSnapshots = 8;

/// The overload policy (docs/protocol.md, "Overload"): a tick that starts
/// more than 1/kLateFraction of a period late reduces the world's sends —
/// snapshots kSnapshotSlowdown times rarer, a session whose outbox is half
/// full collapsed to the newest snapshot at once — until kOnTimeSeconds of
/// ticks in a row have started on time again.
inline constexpr int kLateFraction = 4;
inline constexpr uint32_t kSnapshotSlowdown = 4;
inline constexpr uint32_t kOnTimeSeconds = 2;

struct WorldHostOptions {
  /// Messages a session's outbox holds before it is collapsed.
  uint32_t outbox_capacity = 256;
  /// How far back (in ticks) Watch / resume can start from memory.
  uint64_t retain_ticks = 4096;
  /// At most this many checkpoints are kept in memory.
  size_t retain_checkpoints = 8;
  /// The world's phase as a fraction of any period, in units of 2^-32:
  /// snapshots go out and checkpoints are recorded at the ticks t with
  /// (t + PhaseTicks(every)) % every == 0 (Joined.snapshot_phase), so that
  /// the periodic serialization of worlds created together does not fall
  /// on one tick (WorldRegistry spreads them).
  uint32_t phase = 0;
  /// Where checkpoints are synced (fdatasync) off the tick thread; null:
  /// synced by the tick thread itself. Must outlive the host.
  SyncThread* sync_thread = nullptr;
  /// Where the world counts its ticks for --metrics_listen; null: nowhere.
  /// Must outlive the host.
  ServerMetrics* metrics = nullptr;
};

/// A world's gauges as it last published them (server_metrics.h).
struct WorldGauges {
  uint32_t bodies = 0;
  uint32_t awake_bodies = 0;
  uint32_t players = 0;
  uint32_t spectators = 0;
};

class WorldHost {
 public:
  /// A new world at tick 0 with fresh slot tokens (returned in *tokens).
  /// `recording_path` empty keeps the recording in memory. `config` must be
  /// normalized. Errors as Simulation::Create and RecordingWriter::Create.
  static absl::StatusOr<std::shared_ptr<WorldHost>> Create(
      const std::string& id, const v1::SceneSpec& spec,
      const v1::WorldConfig& config, const std::string& recording_path,
      const WorldHostOptions& options, std::vector<v1::SlotToken>* tokens);

  /// Restores a world from its recording file at the last recorded tick:
  /// loads the last checkpoint and re-applies the ticks after it, checking
  /// every hash (DataLoss on a mismatch). A torn last record is dropped.
  static absl::StatusOr<std::shared_ptr<WorldHost>> Recover(
      const std::string& path, const WorldHostOptions& options);

  /// Continues an exported world (WorldService.ExportWorld) at the tick
  /// after its checkpoint, recording from that checkpoint on. `config` is
  /// the export's config, normalized. Refused with nothing created, the
  /// message starting with the field: FailedPrecondition
  /// "world.header.engine_version" for another engine; InvalidArgument for
  /// tokens that do not match the slots, a checkpoint that does not
  /// restore or hash as recorded, pending inputs that are not valid;
  /// ResourceExhausted over config.max_bodies.
  static absl::StatusOr<std::shared_ptr<WorldHost>> Import(
      const v1::WorldExport& world, const v1::WorldConfig& config,
      const std::string& recording_path, const WorldHostOptions& options);

  const std::string& id() const { return id_; }
  const v1::WorldConfig& config() const { return config_; }
  absl::Duration period() const;

  /// Applies the inputs queued for the next tick, steps, records, and sends
  /// the Frame (and due Snapshots) to every session. `lateness` is how late
  /// the scheduler started it.
  void Tick(absl::Duration lateness);
  /// The scheduler gave up `ticks` ticks (WorldInfo.skipped_ticks).
  void AddSkippedTicks(uint64_t ticks);

  /// Adds a player session (after checking slot and token; a spectator
  /// when join.spectate) and queues its Joined, Snapshot and resumed
  /// Frames. NotFound never (the caller found the world); InvalidArgument
  /// "join.slot", PermissionDenied "join.token", OutOfRange
  /// "join.resume_from_tick".
  absl::Status Join(const v1::Join& join, std::shared_ptr<Outbox> outbox);
  /// Adds a spectator. OutOfRange "from_tick" when not in memory.
  absl::Status Watch(const v1::WatchRequest& request, std::shared_ptr<Outbox> outbox);
  void Leave(const Outbox* outbox);

  /// Queues an Input of the session's slot for its tick (late inputs for the
  /// next one). Errors name the field in *field and the message:
  /// PermissionDenied (spectator, foreign body), InvalidArgument (sequence,
  /// target_tick too far ahead, bad values), NotFound (dead body, unknown
  /// template), ResourceExhausted (commands per tick, body limit).
  absl::Status SubmitInput(const Outbox* session, const v1::Input& input,
                           std::string* field);
  /// Records that the session keeps the snapshot of `snapshot_tick`; when
  /// the world still holds that snapshot it becomes the session's delta
  /// base (an older or unknown tick leaves the base as it was).
  void Ack(const Outbox* session, uint64_t snapshot_tick);

  /// Runs `query` on the world's newest state (after the last finished
  /// step) and returns that state's tick. `query` must only read the world
  /// (World's const queries) and should be short: ticks wait for it. It
  /// never starts while a tick is waiting, so a tick waits for at most the
  /// one query already running. Unavailable once the world is stopped.
  absl::StatusOr<uint64_t> Query(absl::FunctionRef<void(const World&)> query) const;

  /// As of the world's last tick (awake_body_count as of its last
  /// second of ticks): published by the tick thread, so a caller never
  /// waits for a tick nor delays one (ListWorlds under load).
  v1::WorldInfo Info() const;
  /// The gauges a metrics scrape reads: atomics, never the world's mutex,
  /// so a scrape cannot delay a tick. Bodies are published at creation and
  /// then every tick_rate_hz ticks (counting awake bodies walks every body,
  /// too much for every tick), sessions whenever they change.
  WorldGauges gauges() const;
  /// The recording so far without its join tokens; with `header_only`, the
  /// header alone (from memory, no file read).
  absl::StatusOr<v1::Recording> GetRecording(bool header_only) const;
  uint64_t tick() const;

  /// Stops stepping after the current tick and returns what Import needs
  /// to continue the world elsewhere; every session gets a Redirect to
  /// `redirect_to` (none when empty) and its stream ends with UNAVAILABLE
  /// after what is queued. The recording is synced and, when it is a file
  /// and `archive_dir` is not empty, moved to archive_dir/<id>-<tick>.atrec.
  /// Unavailable for a world already stopped, FailedPrecondition for one
  /// that diverged.
  absl::StatusOr<v1::WorldExport> Export(const std::string& redirect_to,
                                         const std::string& archive_dir);

  /// Stops ticking, ends every session with `status` (after draining their
  /// outboxes when `drain`), syncs the recording and deletes it when
  /// `remove_recording`. Idempotent.
  void Stop(const grpc::Status& status, bool drain, bool remove_recording);
  /// Without a lock: the tick scheduler asks while it holds its own lock,
  /// and must not wait there for an I/O thread that holds this world's
  /// (Stop holds it while it syncs or deletes the recording).
  bool stopped() const { return stopped_.load(std::memory_order_acquire); }

 private:
  // The bytes of a snapshot some session was sent, shared by every session
  // that was sent it (and by those that use it as their delta base).
  struct SentSnapshot {
    uint64_t tick = 0;
    std::string data;
  };

  struct Session {
    std::shared_ptr<Outbox> outbox;
    uint32_t slot = 0;  // 0: spectator
    uint32_t snapshot_every = 60;
    uint64_t acked = 0;
    // The newest acknowledged snapshot the world still held when the Ack
    // came: deltas are made against it. Null: snapshots go out full. The
    // only per-session snapshot memory, and shared with other sessions.
    std::shared_ptr<const SentSnapshot> base;
    // A SendPolicy message is due: it goes out when the outbox has room
    // (never forced past its capacity, nor dropped by a collapse).
    bool policy_due = false;
  };

  WorldHost(std::string id, v1::WorldConfig config, const WorldHostOptions& options)
      : id_(std::move(id)),
        config_(std::move(config)),
        options_(options),
        rate_metrics_(options.metrics != nullptr
                          ? options.metrics->ForTickRate(config_.tick_rate_hz())
                          : nullptr) {}

  // Publishes the gauges read by gauges().
  void PublishBodiesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PublishSessionsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Publishes what Info() returns.
  void PublishInfoLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The overload policy, once per tick: enters or leaves reduced sends and
  // tells every session when it does.
  void UpdateSendPolicyLocked(uint64_t tick, absl::Duration lateness)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The session's snapshot rate now (slowed while sends are reduced).
  uint32_t SnapshotEveryLocked(const Session& session) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return sends_reduced_ ? session.snapshot_every * kSnapshotSlowdown : session.snapshot_every;
  }
  // Whether the session's periodic snapshot is due at tick `t`: on the
  // phase Joined announced for its rate, and while sends are reduced only
  // every kSnapshotSlowdown-th of those ticks, so the phase still holds.
  bool SnapshotDueLocked(const Session& session, uint64_t t) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return (t + PhaseTicks(session.snapshot_every)) % SnapshotEveryLocked(session) == 0;
  }
  v1::ServerMessage SendPolicyMessageLocked(const Session& session, const std::string& reason) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Queues Joined, the newest checkpoint at or before `from` (or the current
  // state when !from) and the frames after it.
  absl::Status AddSessionLocked(Session session, std::optional<uint64_t> from,
                                const std::string& from_field)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RetainLocked(v1::Frame frame, std::optional<v1::Checkpoint> checkpoint)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::Frame MakeFrameLocked(std::vector<v1::ConfirmedInput> inputs) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The world's phase in a period of `every` ticks: 0 <= phase < every.
  uint32_t PhaseTicks(uint32_t every) const {
    return static_cast<uint32_t>((uint64_t{options_.phase} * every) >> 32);
  }
  // Whether tick `t` is one of every `every` ticks at the world's phase.
  bool DueEvery(uint64_t t, uint32_t every) const {
    return (t + PhaseTicks(every)) % every == 0;
  }
  // Keeps the bytes of a snapshot about to be sent (one copy per tick) in
  // sent_, evicting the oldest beyond kKeptSentSnapshots.
  std::shared_ptr<const SentSnapshot> RememberSentLocked(uint64_t tick, const std::string& data)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string id_;
  const v1::WorldConfig config_;
  const WorldHostOptions options_;
  TickRateMetrics* const rate_metrics_;  // null without options_.metrics
  std::atomic<uint32_t> bodies_gauge_{0};
  std::atomic<uint32_t> awake_bodies_gauge_{0};
  std::atomic<uint32_t> players_gauge_{0};
  std::atomic<uint32_t> spectators_gauge_{0};

  // Taken by each tick and by the I/O side (inputs, acks, joins, queries,
  // control calls): with priority inheritance (pi_mutex.h), so a tick that
  // waits for it waits for the holder's critical section only, not for the
  // holder's turn on a core shared with every other thread.
  mutable PiMutex mu_;
  // Held only to swap or copy the pointer (lock order: mu_, then info_mu_);
  // taken by every tick and by control calls, so with priority inheritance
  // too.
  mutable PiMutex info_mu_ ABSL_ACQUIRED_AFTER(mu_);
  std::shared_ptr<const v1::WorldInfo> info_ ABSL_GUARDED_BY(info_mu_);
  // True from just before Tick asks for mu_ until it holds it: Query waits
  // on tick_done_ while it is set, so queries cannot queue up in front of
  // a tick. Tick signals tick_done_ as it ends.
  std::atomic<bool> tick_waiting_{false};
  mutable PiCondVar tick_done_;
  std::unique_ptr<Simulation> sim_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RecordingWriter> recording_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> tokens_ ABSL_GUARDED_BY(mu_);  // index slot-1
  // The recording's header without its tokens: what GetRecording serves.
  v1::RecordingHeader public_header_ ABSL_GUARDED_BY(mu_);
  // Inputs by the tick that will apply them.
  std::map<uint64_t, std::vector<v1::ConfirmedInput>> pending_ ABSL_GUARDED_BY(mu_);
  // Bodies the spawns among pending_ will add (Simulation::SpawnedBodies).
  int pending_spawns_ ABSL_GUARDED_BY(mu_) = 0;
  // Highest sequence accepted / applied, per slot (index slot-1).
  std::vector<uint64_t> accepted_sequence_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> applied_sequence_ ABSL_GUARDED_BY(mu_);
  std::vector<Session> sessions_ ABSL_GUARDED_BY(mu_);
  // Recent checkpoints and every frame after the oldest, for Watch/resume.
  std::deque<v1::Checkpoint> checkpoints_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::Frame> frames_ ABSL_GUARDED_BY(mu_);
  // The snapshots sent last, oldest first: the candidates for delta bases.
  std::deque<std::shared_ptr<const SentSnapshot>> sent_ ABSL_GUARDED_BY(mu_);
  // Set under mu_ (Stop, Export); atomic so that stopped() reads it
  // without the lock.
  std::atomic<bool> stopped_{false};
  bool recording_failed_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t late_ticks_ ABSL_GUARDED_BY(mu_) = 0;
  // Set when the engine refused a step (the world diverged): the world
  // stays at its last good tick, reported once.
  bool step_failed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration max_lateness_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> lateness_histogram_ ABSL_GUARDED_BY(mu_) =
      std::vector<uint64_t>(kLatenessBuckets, 0);
  uint64_t skipped_ticks_ ABSL_GUARDED_BY(mu_) = 0;
  // The overload policy's state (UpdateSendPolicyLocked).
  bool sends_reduced_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t on_time_ticks_ ABSL_GUARDED_BY(mu_) = 0;
  std::string policy_reason_ ABSL_GUARDED_BY(mu_);  // of the last change
  uint64_t reduced_send_ticks_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_WORLD_HOST_H_
