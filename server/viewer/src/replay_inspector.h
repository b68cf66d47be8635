// atoll::viewer — one recording opened in the replay inspector: draw frames
// of any recorded tick (re-simulated from the nearest earlier checkpoint)
// and a verification run in steps, so the page can show its progress.
//
// Seeking restores sim::Simulation from the last checkpoint at or before the
// tick wanted and steps it with each RecordedTick's inputs, as
// client/src/verify.cc does; a seek forward from the cursor's own tick just
// steps on, so playing costs one step per tick and stepping back costs at
// most one checkpoint interval.

#ifndef ATOLL_VIEWER_REPLAY_INSPECTOR_H_
#define ATOLL_VIEWER_REPLAY_INSPECTOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "atoll/sim/recording_check.h"
#include "atoll/sim/simulation.h"
#include "atoll/v1/recording.pb.h"
#include "atoll/viewer/draw_frame.h"

namespace atl::viewer {

class ReplayInspector {
 public:
  /// Checks `recording` (a header, a first checkpoint, ticks following it
  /// one by one) and restores its first checkpoint. InvalidArgument naming
  /// the field otherwise.
  static absl::StatusOr<std::unique_ptr<ReplayInspector>> Create(std::string id,
                                                                 v1::Recording recording);

  const std::string& id() const { return id_; }
  const v1::Recording& recording() const { return *recording_; }
  /// The first checkpoint's tick and the last recorded tick.
  uint64_t first_tick() const { return first_tick_; }
  uint64_t last_tick() const { return first_tick_ + recording_->ticks_size(); }
  /// The recorded state hash of `tick` (first_tick..last_tick).
  uint64_t RecordedHash(uint64_t tick) const;

  /// {"id", "world", "first_tick", "last_tick", "tick_rate",
  ///  "checkpoints": [ticks], "bodies"} as JSON.
  std::string SummaryJson() const;

  /// The draw frame of the re-simulated state at `tick`; its hash_matches
  /// compares it with the recorded hash of that tick. OutOfRange outside
  /// first_tick..last_tick; a step's error otherwise.
  absl::StatusOr<std::string> FrameAt(uint64_t tick, const DrawFrameOptions& options);

  /// A verification of the whole recording, advanced by the caller.
  class Verification {
   public:
    /// Steps up to `max_ticks` more ticks, stopping at the first tick whose
    /// state hash or events hash differs from the recorded one. A step's
    /// error.
    absl::Status Advance(int max_ticks) { return check_->Advance(max_ticks); }
    bool done() const { return check_->done(); }
    uint64_t ticks_verified() const { return check_->ticks_verified(); }
    uint64_t total_ticks() const { return check_->total_ticks(); }
    /// Once done: {"ok", "ticks_verified", "total_ticks"} and, on a
    /// divergence, "kind" ("state" or "events"), "tick", "expected_hash",
    /// "actual_hash", "message", and for a state divergence "diff_tick"
    /// (the first checkpoint at or after the divergent tick, 0 for none),
    /// "diff_at_divergent_tick", "bodies" (each differing body's index,
    /// what differs, its "recorded" and "replayed" fields) and the two
    /// draw frames "recorded_frame" and "replayed_frame" at diff_tick.
    absl::StatusOr<std::string> ResultJson();

   private:
    friend class ReplayInspector;
    Verification(const ReplayInspector* inspector, std::unique_ptr<sim::RecordingCheck> check)
        : inspector_(inspector), check_(std::move(check)) {}

    const ReplayInspector* const inspector_;
    // The verification loop atoll verify and ReplayService.Verify run too.
    std::unique_ptr<sim::RecordingCheck> check_;
  };
  /// A verification from the first checkpoint, on its own Simulation (the
  /// inspector's frames are not disturbed). Restore's errors.
  absl::StatusOr<std::unique_ptr<Verification>> Verify() const;

 private:
  ReplayInspector(std::string id, std::shared_ptr<const v1::Recording> recording,
                  v1::WorldConfig config)
      : id_(std::move(id)), recording_(std::move(recording)), config_(std::move(config)) {}
  // Restores the checkpoint at `index` of the recording.
  absl::StatusOr<std::unique_ptr<sim::Simulation>> RestoreCheckpoint(int index) const;
  // Steps `sim` with the recorded inputs until it reaches `tick`.
  absl::Status StepTo(sim::Simulation* sim, uint64_t tick) const;
  // The index of the last checkpoint at or before `tick`.
  int CheckpointBefore(uint64_t tick) const;

  const std::string id_;
  const std::shared_ptr<const v1::Recording> recording_;
  const v1::WorldConfig config_;
  uint64_t first_tick_ = 0;

  // The cursor: the state last drawn, stepped on by the next seek forward.
  absl::Mutex mu_;
  std::unique_ptr<sim::Simulation> cursor_ ABSL_GUARDED_BY(mu_);
  double step_ms_ ABSL_GUARDED_BY(mu_) = 0.0;
};

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_REPLAY_INSPECTOR_H_
