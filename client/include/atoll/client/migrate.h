// atoll client — moving a live world from one atoll-server to another
// (WorldService.ExportWorld, then ImportWorld), as a fleet drains a node.

#ifndef ATOLL_CLIENT_MIGRATE_H_
#define ATOLL_CLIENT_MIGRATE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace atl::client {

struct MigrateOptions {
  std::string world_id;
  /// "HOST:PORT" of the server the world is on, and of the one it goes to.
  std::string from;
  std::string to;
  /// The address the world's sessions are redirected to (what players can
  /// reach); empty: `to`.
  std::string redirect_to;
  /// Deadline of each call.
  absl::Duration timeout = absl::Seconds(10);
};

struct MigrateReport {
  /// The last tick stepped on `from`; `to` steps tick + 1 next.
  uint64_t tick = 0;
  uint64_t state_hash = 0;
  /// Size of the export (snapshot, retained frames, pending inputs).
  size_t export_bytes = 0;
  absl::Duration export_time;
  absl::Duration import_time;
  /// From the export's start to the import's end: how long the world did
  /// not step (its tick period times `paused_ticks`).
  absl::Duration paused;
  double paused_ticks = 0;
};

/// Exports the world from `from` (its sessions are redirected to
/// options.redirect_to) and imports it into `to`, where it goes on at the
/// next tick with the same hash chain. Errors name the server and the
/// field. When the import is refused the world is imported back into
/// `from` (its redirected sessions then find it gone from `to`); the error
/// says whether that worked.
absl::StatusOr<MigrateReport> MigrateWorld(const MigrateOptions& options);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_MIGRATE_H_
