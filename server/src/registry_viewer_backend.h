// atoll-server — the web viewer's view of the server's worlds: the world
// list from WorldHost::Info, and a HostedWorldFeed per viewer.

#ifndef ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_
#define ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atoll/viewer/viewer_backend.h"
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
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_REGISTRY_VIEWER_BACKEND_H_
