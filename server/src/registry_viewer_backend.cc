#include "registry_viewer_backend.h"

#include "absl/strings/str_cat.h"

namespace atl::server {

std::vector<viewer::WorldSummary> RegistryViewerBackend::ListWorlds() const {
  std::vector<viewer::WorldSummary> out;
  for (const std::shared_ptr<WorldHost>& host : registry_->List()) {
    const v1::WorldInfo info = host->Info();
    viewer::WorldSummary w;
    w.id = info.world_id();
    w.kind = "hosted";
    w.tick = info.tick();
    w.state_hash = info.state_hash();
    w.tick_rate_hz = info.config().tick_rate_hz();
    w.bodies = info.body_count();
    w.awake_bodies = info.awake_body_count();
    w.sessions = static_cast<uint32_t>(info.sessions_size());
    w.late_ticks = info.late_ticks();
    w.max_lateness_us = info.max_lateness_us();
    w.skipped_ticks = info.skipped_ticks();
    out.push_back(std::move(w));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<viewer::WorldFeed>> RegistryViewerBackend::Follow(
    const std::string& world_id, const viewer::FeedOptions& options) {
  absl::StatusOr<std::shared_ptr<WorldHost>> host = registry_->Find(world_id);
  if (!host.ok()) {
    if (absl::IsNotFound(host.status())) {
      return absl::NotFoundError(absl::StrCat("world '", world_id, "' not found"));
    }
    return host.status();
  }
  const FeedKey key{world_id, options.aabbs, absl::ToInt64Microseconds(options.min_interval)};
  absl::MutexLock lock(&mu_);
  std::erase_if(feeds_, [](const auto& entry) { return entry.second.expired(); });
  std::shared_ptr<SharedWorldFeed> shared = feeds_[key].lock();
  // A feed of a world that ended (destroyed, moved) is not reused: a world
  // of the same id now is another one.
  if (shared == nullptr || shared->ended()) {
    absl::StatusOr<std::shared_ptr<SharedWorldFeed>> started =
        SharedWorldFeed::Start(*std::move(host), outbox_capacity_, options);
    if (!started.ok()) return started.status();
    shared = *std::move(started);
    feeds_[key] = shared;
  }
  return std::unique_ptr<viewer::WorldFeed>(new SharedFeedViewer(std::move(shared)));
}

}  // namespace atl::server
