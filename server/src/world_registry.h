// atoll-server — the worlds of a server: creation (with the server's
// limits), lookup, destruction, recovery from --data_dir and shutdown.

#ifndef ATOLL_SERVER_WORLD_REGISTRY_H_
#define ATOLL_SERVER_WORLD_REGISTRY_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "atoll/v1/session.pb.h"
#include "atoll/v1/world.pb.h"
#include "tick_scheduler.h"
#include "world_host.h"

namespace atl::server {

/// How many moved worlds a registry remembers (WorldRegistry::MovedTo).
inline constexpr size_t kRememberedMoves = 1024;

struct RegistryOptions {
  /// Directory for recordings; empty keeps them in memory.
  std::string data_dir;
  uint32_t max_worlds = 64;
  uint32_t max_bodies_per_world = 100000;
  int tick_threads = 2;
  /// SCHED_FIFO priority of the tick threads, 0 for normal scheduling
  /// (TickScheduler).
  int tick_priority = 0;
  WorldHostOptions host;
};

class WorldRegistry {
 public:
  /// Creates <data_dir>/worlds when needed. Internal naming the path when it
  /// cannot.
  static absl::StatusOr<std::unique_ptr<WorldRegistry>> Create(const RegistryOptions& options);
  ~WorldRegistry();

  /// Restores every world recorded under data_dir (see WorldHost::Recover)
  /// and starts stepping them. Worlds that cannot be restored are reported
  /// in the returned messages and left on disk untouched.
  std::vector<std::string> RecoverAll();

  /// WorldService.CreateWorld.
  absl::StatusOr<v1::CreateWorldResponse> CreateWorld(const v1::CreateWorldRequest& request);
  /// NotFound "world_id" for an unknown world.
  absl::StatusOr<std::shared_ptr<WorldHost>> Find(const std::string& world_id) const;
  absl::Status DestroyWorld(const std::string& world_id);
  /// WorldService.ExportWorld: the world leaves this server (WorldHost::
  /// Export), its recording archived as <data_dir>/exported/<id>-<tick>.atrec.
  absl::StatusOr<v1::WorldExport> ExportWorld(const v1::ExportWorldRequest& request);
  /// WorldService.ImportWorld: the exported world continues here
  /// (WorldHost::Import) under the server's limits.
  absl::StatusOr<v1::WorldInfo> ImportWorld(const v1::ImportWorldRequest& request);
  /// Where a world exported from here with a redirect went (the last
  /// kRememberedMoves of them), so that a session that missed the Redirect
  /// (its stream was down) is sent there when it comes back; nullopt for a
  /// world that did not move or whose id was taken here again since.
  std::optional<v1::Redirect> MovedTo(const std::string& world_id) const;
  std::vector<std::shared_ptr<WorldHost>> List() const;

  /// Stops every world (sessions drained and ended with UNAVAILABLE,
  /// recordings synced) and the tick threads.
  void Shutdown();

  const RegistryOptions& options() const { return options_; }

  /// The tick threads' heartbeat (TickScheduler::heartbeat).
  uint64_t TickHeartbeat() const { return scheduler_.heartbeat(); }
  /// The tick threads' pauses when busy (TickScheduler::pauses).
  uint64_t TickPauses() const { return scheduler_.pauses(); }

 private:
  explicit WorldRegistry(const RegistryOptions& options)
      : options_(options), scheduler_(options.tick_threads, options.tick_priority) {}
  std::string RecordingPath(const std::string& world_id) const;
  // Reserves `id` in worlds_ (a null entry) after checking the limits and
  // that it is free; `field` names the id in the errors.
  absl::Status ReserveLocked(const std::string& id, const std::string& field)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The host options of the next world: its own phase (WorldHostOptions::
  // phase), a fraction of the period stepped by the golden ratio, so that
  // any number of worlds created in a row spread evenly over every period.
  WorldHostOptions NextHostOptions() ABSL_LOCKS_EXCLUDED(mu_);

  const RegistryOptions options_;
  TickScheduler scheduler_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<WorldHost>> worlds_ ABSL_GUARDED_BY(mu_);
  // MovedTo's memory, and its ids oldest first.
  std::map<std::string, v1::Redirect> moved_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> moved_order_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint32_t next_phase_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_WORLD_REGISTRY_H_
