// atoll view — the web viewer's backend for one world in this process: a
// scene stepped at its tick rate, or a recording played back tick by tick
// (its hash chain checked as it goes), no server involved.
//
// One stepping thread owns the Simulation. After a step it renders a draw
// frame — at most 60 a second, and only while a viewer is connected — into
// a newest-wins slot that the viewers' HTTP threads wait on; they never
// touch the Simulation, so a slow browser can only miss frames, never hold
// a step.

#ifndef ATOLL_CLIENT_CLI_LOCAL_WORLD_BACKEND_H_
#define ATOLL_CLIENT_CLI_LOCAL_WORLD_BACKEND_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "atoll/sim/simulation.h"
#include "atoll/v1/recording.pb.h"
#include "atoll/viewer/viewer_backend.h"

namespace atl::cli {

class LocalWorldBackend final : public viewer::ViewerBackend {
 public:
  /// `spec` built with `config` (normalized here; up to 64 owner slots) and
  /// stepped with no inputs from tick 0, named `id`. Errors of
  /// sim::Simulation::Create.
  static absl::StatusOr<std::unique_ptr<LocalWorldBackend>> ForScene(
      const std::string& id, const v1::SceneSpec& spec, const v1::WorldConfig& config);
  /// `recording` played back from its first checkpoint at its tick rate,
  /// each tick's hash compared with the recorded one; after the last tick
  /// the world stays there. Errors of sim::Simulation::Restore, and
  /// InvalidArgument for a recording without checkpoint.
  static absl::StatusOr<std::unique_ptr<LocalWorldBackend>> ForRecording(
      const std::string& id, v1::Recording recording);
  /// Stops the stepping thread; the viewers' feeds end.
  ~LocalWorldBackend() override;

  std::vector<viewer::WorldSummary> ListWorlds() const override;
  /// NotFound "world 'ID' not found" for any other id.
  absl::StatusOr<std::unique_ptr<viewer::WorldFeed>> Follow(
      const std::string& world_id, const viewer::FeedOptions& options) override;

  /// Stops stepping; feeds answer Unavailable from then on. Idempotent.
  void Stop();

 private:
  class Feed;

  LocalWorldBackend(std::string id, std::string kind) : id_(std::move(id)), kind_(std::move(kind)) {}
  void Start();
  void Run();
  // One step (the next recorded tick, when playing a recording); false at
  // the end of the recording.
  bool StepOnce();
  void PublishLocked(bool force) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string id_;
  const std::string kind_;  // "scene" or "recording"
  std::unique_ptr<sim::Simulation> sim_;  // owned by the stepping thread
  std::optional<v1::Recording> recording_;
  int next_recorded_ = 0;  // index into recording_->ticks()
  std::thread thread_;

  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  viewer::WorldSummary summary_ ABSL_GUARDED_BY(mu_);
  double step_ms_ ABSL_GUARDED_BY(mu_) = 0.0;
  std::optional<uint64_t> diverged_at_ ABSL_GUARDED_BY(mu_);
  uint64_t expected_hash_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  // The newest frame without [0] and with [1] AABBs, its version, and how
  // many feeds want each; a new feed asks for a render (render_wanted_).
  std::shared_ptr<const std::string> frame_[2] ABSL_GUARDED_BY(mu_);
  uint64_t version_[2] ABSL_GUARDED_BY(mu_) = {0, 0};
  int viewers_[2] ABSL_GUARDED_BY(mu_) = {0, 0};
  bool render_wanted_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time last_render_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_LOCAL_WORLD_BACKEND_H_
