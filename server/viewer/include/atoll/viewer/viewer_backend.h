// atoll::viewer — where the web viewer's worlds come from: atoll-server's
// hosted worlds (server/src/registry_viewer_backend.h) or the `atoll view`
// process's local world (client/cli/local_world_backend.h).

#ifndef ATOLL_VIEWER_VIEWER_BACKEND_H_
#define ATOLL_VIEWER_VIEWER_BACKEND_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace atl::viewer {

/// One row of the world list (GET /api/worlds).
struct WorldSummary {
  std::string id;
  /// "hosted" (atoll-server), "scene" or "recording" (atoll view).
  std::string kind = "hosted";
  uint64_t tick = 0;
  uint64_t state_hash = 0;
  uint32_t tick_rate_hz = 60;
  uint32_t bodies = 0;
  uint32_t awake_bodies = 0;
  /// Connected sessions (players and spectators; viewers count too).
  uint32_t sessions = 0;
  /// Ticks started more than a period late, the worst lateness, and ticks
  /// skipped (WorldInfo's fields of the same names).
  uint64_t late_ticks = 0;
  uint64_t max_lateness_us = 0;
  uint64_t skipped_ticks = 0;
};

/// What a viewer asks of a followed world.
struct FeedOptions {
  /// Include the AABB layer in each frame.
  bool aabbs = false;
  /// Frames no closer together than this (newest state wins).
  absl::Duration min_interval = absl::Milliseconds(16);
};

/// One viewer following one world: a source of draw frames
/// (atoll/viewer/draw_frame.h). Used by one thread at a time.
class WorldFeed {
 public:
  virtual ~WorldFeed() = default;
  /// Waits up to `timeout` for a frame of a state newer than the last one
  /// returned and returns its JSON; nullopt when none came in time.
  /// Unavailable (or the world's own status) once the world has ended.
  virtual absl::StatusOr<std::optional<std::string>> Next(absl::Duration timeout) = 0;
};

class ViewerBackend {
 public:
  virtual ~ViewerBackend() = default;
  /// Every world, in id order.
  virtual std::vector<WorldSummary> ListWorlds() const = 0;
  /// Starts following `world_id`. NotFound naming it for an unknown world;
  /// Unavailable when it is shutting down.
  virtual absl::StatusOr<std::unique_ptr<WorldFeed>> Follow(const std::string& world_id,
                                                            const FeedOptions& options) = 0;
};

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_VIEWER_BACKEND_H_
