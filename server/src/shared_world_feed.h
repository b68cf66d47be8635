// atoll-server — one replica per followed world, shared by every web viewer
// of that world with the same options.
//
// A HostedWorldFeed re-simulates its world (a sim::Simulation stepped and
// hashed with each Frame): per viewer, eight browsers on a 2 000-body world
// took 1.8 of the machine's 2 cores and made its ticks late. Here one feed
// thread per world drives one HostedWorldFeed and publishes each draw frame
// it renders; every viewer's Next returns the newest published frame it has
// not returned yet (newest state wins, as before). The world sees one
// spectator session however many viewers follow it.

#ifndef ATOLL_SERVER_SHARED_WORLD_FEED_H_
#define ATOLL_SERVER_SHARED_WORLD_FEED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "atoll/viewer/viewer_backend.h"
#include "hosted_world_feed.h"

namespace atl::server {

class SharedWorldFeed {
 public:
  /// Follows `host` (HostedWorldFeed::Create) on a thread of its own.
  static absl::StatusOr<std::shared_ptr<SharedWorldFeed>> Start(
      std::shared_ptr<WorldHost> host, uint32_t outbox_capacity,
      const viewer::FeedOptions& options);
  /// Stops the feed thread and leaves the world.
  ~SharedWorldFeed();
  SharedWorldFeed(const SharedWorldFeed&) = delete;
  SharedWorldFeed& operator=(const SharedWorldFeed&) = delete;

  /// A published frame: its number (1, 2, ...) and JSON.
  struct Frame {
    uint64_t number = 0;
    std::shared_ptr<const std::string> json;
  };
  /// The newest frame numbered after `seen`, waiting until `deadline`;
  /// nullopt when none came. The world's end status (HostedWorldFeed::Next)
  /// once it has ended.
  absl::StatusOr<std::optional<Frame>> NextAfter(uint64_t seen, absl::Time deadline);
  /// True once the world has ended for this feed (a new viewer needs a new
  /// feed).
  bool ended() const;

 private:
  explicit SharedWorldFeed(std::unique_ptr<HostedWorldFeed> feed) : feed_(std::move(feed)) {}
  void Run();

  const std::unique_ptr<HostedWorldFeed> feed_;  // used by the feed thread only
  mutable absl::Mutex mu_;
  Frame newest_ ABSL_GUARDED_BY(mu_);
  absl::Status end_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

/// One viewer's view of a SharedWorldFeed.
class SharedFeedViewer final : public viewer::WorldFeed {
 public:
  explicit SharedFeedViewer(std::shared_ptr<SharedWorldFeed> shared)
      : shared_(std::move(shared)) {}
  absl::StatusOr<std::optional<std::string>> Next(absl::Duration timeout) override;

 private:
  const std::shared_ptr<SharedWorldFeed> shared_;
  uint64_t seen_ = 0;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SHARED_WORLD_FEED_H_
