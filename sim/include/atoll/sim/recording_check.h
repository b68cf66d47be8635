// atoll::sim — re-simulating a recording against its hash chain.

#ifndef ATOLL_SIM_RECORDING_CHECK_H_
#define ATOLL_SIM_RECORDING_CHECK_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/sim/simulation.h"
#include "atoll/v1/recording.pb.h"

namespace atl::sim {

/// The verification loop every verifier shares (atoll verify,
/// ReplayService.Verify, the viewer's replay inspector), so they compare the
/// same things the same way: restore the first checkpoint, apply each
/// recorded tick's inputs as the server did, and compare the state hash and
/// the events hash (RecordedTick.events_hash, when recorded) after each.
class RecordingCheck {
 public:
  /// Restores recording.checkpoints[0]; `recording` must outlive the check.
  /// InvalidArgument naming the field for a recording without header or
  /// checkpoint, with a bad config, or whose first checkpoint does not
  /// restore.
  static absl::StatusOr<std::unique_ptr<RecordingCheck>> Start(const v1::Recording& recording);

  /// Verifies up to `max_ticks` more recorded ticks, stopping at the first
  /// that diverges. InvalidArgument naming the field for a gap in the ticks;
  /// a step's error.
  absl::Status Advance(int64_t max_ticks);

  /// Every tick verified, or a divergence found.
  bool done() const { return done_; }
  /// No divergence so far.
  bool ok() const { return !diverged_; }
  uint64_t ticks_verified() const { return ticks_verified_; }
  uint64_t total_ticks() const { return static_cast<uint64_t>(recording_.ticks_size()); }
  /// The divergent tick and the recorded and re-simulated hashes there: the
  /// state hashes, or the events hashes when events_diverged().
  uint64_t first_divergent_tick() const { return divergent_tick_; }
  uint64_t expected_hash() const { return expected_hash_; }
  uint64_t actual_hash() const { return actual_hash_; }
  /// The states matched at the divergent tick but the events did not.
  bool events_diverged() const { return events_diverged_; }

  /// After a state divergence, for a per-body diff: steps the re-simulation
  /// on to the first recorded checkpoint at or after the divergent tick and
  /// returns that checkpoint's index, or -1 when there is none (or the
  /// ticks end before it). A step's error.
  absl::StatusOr<int> StepToDiffCheckpoint();

  /// The re-simulated state.
  const Simulation& simulation() const { return *sim_; }

 private:
  RecordingCheck(const v1::Recording& recording, std::unique_ptr<Simulation> sim)
      : recording_(recording), sim_(std::move(sim)) {}
  absl::Status StepRecorded(int index);

  const v1::Recording& recording_;
  std::unique_ptr<Simulation> sim_;
  int next_ = 0;  // index into recording_.ticks()
  bool done_ = false;
  bool diverged_ = false;
  bool events_diverged_ = false;
  uint64_t ticks_verified_ = 0;
  uint64_t divergent_tick_ = 0;
  uint64_t expected_hash_ = 0;
  uint64_t actual_hash_ = 0;
};

}  // namespace atl::sim

#endif  // ATOLL_SIM_RECORDING_CHECK_H_
