// atoll-server — a replica of a hosted world for the web viewer, driven by
// one thread (a SharedWorldFeed's, for all the viewers of the world).
//
// Why a replica: the feed follows a world exactly as a spectator does
// (WorldHost::Watch with a bounded Outbox), keeps its own sim::Simulation
// restored from the stream's snapshot and stepped with each Frame's
// confirmed inputs (as `atoll watch` does), and renders draw frames from
// that replica on its own thread. The tick thread's part is what it does for
// any spectator — push one Frame per tick (and, when the feed falls behind,
// collapse its outbox to a snapshot) — and never a render, a JSON string or
// a wait for a browser. Reading the hosted World directly would need the
// world's mutex for every render (WorldHost::Query), delaying ticks by the
// render time; copying it per tick would cost the tick thread a snapshot
// per viewer.
//
// Falling behind: the feed applies messages only between the frames it
// renders, so a feed that cannot keep up stops the draining, the outbox
// fills and the world collapses it to its newest snapshot, and the replica
// jumps there: memory stays bounded by the outbox capacity and the newest
// state wins. (A slow browser only skips published frames:
// shared_world_feed.h.)

#ifndef ATOLL_SERVER_HOSTED_WORLD_FEED_H_
#define ATOLL_SERVER_HOSTED_WORLD_FEED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "atoll/sim/simulation.h"
#include "atoll/viewer/viewer_backend.h"
#include "outbox.h"
#include "world_host.h"

namespace atl::server {

/// Snapshots a viewer's session asks for, in ticks: the stream's first
/// snapshot and the collapses of a slow viewer are what it needs; a periodic
/// one only bounds how long a replica that went wrong stays wrong.
inline constexpr uint32_t kViewerSnapshotEveryTicks = 600;

class HostedWorldFeed final : public viewer::WorldFeed, public MessageSink<v1::ServerMessage> {
 public:
  /// Joins `host` as a spectator whose outbox holds `outbox_capacity`
  /// messages. Unavailable when the world is shutting down.
  static absl::StatusOr<std::unique_ptr<HostedWorldFeed>> Create(
      std::shared_ptr<WorldHost> host, uint32_t outbox_capacity,
      const viewer::FeedOptions& options);
  /// Leaves the world and waits until its outbox has finished (so that no
  /// call reaches this sink afterwards).
  ~HostedWorldFeed() override;

  /// Applies the messages that came (each acknowledged to the outbox right
  /// after, which lets the next one in) and renders the replica once it has
  /// caught up and options.min_interval has passed since the last frame.
  absl::StatusOr<std::optional<std::string>> Next(absl::Duration timeout) override;

  /// MessageSink, called by the outbox (from the tick thread: constant
  /// time, no allocation).
  void StartMessageWrite(const v1::ServerMessage* message) override;
  void FinishCall(const grpc::Status& status) override;

 private:
  HostedWorldFeed(std::shared_ptr<WorldHost> host, const viewer::FeedOptions& options)
      : host_(std::move(host)), options_(options) {}

  // Brings the replica to the message's state: a snapshot newer than it (or
  // the first) is restored, the next Frame is stepped and its hash checked,
  // a gap waits for the next snapshot.
  void Apply(const v1::ServerMessage& message);
  bool RenderDue(absl::Time now, bool caught_up) const;
  std::string Render(absl::Time now);

  const std::shared_ptr<WorldHost> host_;
  const viewer::FeedOptions options_;
  v1::SceneSpec scene_;
  std::shared_ptr<Outbox> outbox_;

  // The replica and what the page is told about it; touched only by the
  // thread calling Next (one at a time).
  std::unique_ptr<sim::Simulation> replica_;
  bool awaiting_snapshot_ = false;
  double step_ms_ = 0.0;
  bool hash_matches_ = true;
  uint64_t expected_hash_ = 0;
  std::optional<uint64_t> rendered_tick_;
  absl::Time last_render_ = absl::InfinitePast();

  absl::Mutex mu_;
  // The message the outbox is "writing": valid until OnWriteDone.
  const v1::ServerMessage* pending_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status end_status_ ABSL_GUARDED_BY(mu_);
  absl::Notification finished_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_HOSTED_WORLD_FEED_H_
