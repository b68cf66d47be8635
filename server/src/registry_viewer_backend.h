// atoll-server — the web viewer's view of the server's worlds: the world
// list from WorldHost::Info, and one SharedWorldFeed per followed world
// (and feed options) for all of its viewers.

#ifndef ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_
#define ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "atoll/viewer/viewer_backend.h"
#include "shared_world_feed.h"
#include "world_registry.h"

namespace atl::server {

class RegistryViewerBackend final : public viewer::ViewerBackend {
 public:
  /// `registry` must outlive the backend; each viewer's outbox holds
  /// `outbox_capacity` messages (as a session's).
  RegistryViewerBackend(WorldRegistry* registry, uint32_t outbox_capacity)
      : registry_(registry), outbox_capacity_(outbox_capacity) {}

  std::vector<viewer::WorldSummary> ListWorlds() const override;
  /// NotFound "world 'ID' not found"; Unavailable when it is stopping.
  absl::StatusOr<std::unique_ptr<viewer::WorldFeed>> Follow(
      const std::string& world_id, const viewer::FeedOptions& options) override;

 private:
  WorldRegistry* const registry_;
  const uint32_t outbox_capacity_;
  // The feeds being followed, by world, AABB layer and frame interval; a
  // feed lives as long as one of its viewers.
  using FeedKey = std::tuple<std::string, bool, int64_t>;
  absl::Mutex mu_;
  std::map<FeedKey, std::weak_ptr<SharedWorldFeed>> feeds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_
