#include "shared_world_feed.h"

namespace atl::server {
namespace {

// How long the feed thread waits for a frame before it checks for a stop.
constexpr absl::Duration kPoll = absl::Milliseconds(100);

}  // namespace

absl::StatusOr<std::shared_ptr<SharedWorldFeed>> SharedWorldFeed::Start(
    std::shared_ptr<WorldHost> host, uint32_t outbox_capacity,
    const viewer::FeedOptions& options) {
  absl::StatusOr<std::unique_ptr<HostedWorldFeed>> feed =
      HostedWorldFeed::Create(std::move(host), outbox_capacity, options);
  if (!feed.ok()) return feed.status();
  std::shared_ptr<SharedWorldFeed> shared(new SharedWorldFeed(*std::move(feed)));
  shared->thread_ = std::thread([raw = shared.get()] { raw->Run(); });
  return shared;
}

SharedWorldFeed::~SharedWorldFeed() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void SharedWorldFeed::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stop_) return;
    }
    absl::StatusOr<std::optional<std::string>> frame = feed_->Next(kPoll);
    absl::MutexLock lock(&mu_);
    if (!frame.ok()) {
      ended_ = true;
      end_ = frame.status();
      return;
    }
    if (frame->has_value()) {
      newest_.number += 1;
      newest_.json = std::make_shared<const std::string>(**std::move(frame));
    }
  }
}

absl::StatusOr<std::optional<SharedWorldFeed::Frame>> SharedWorldFeed::NextAfter(
    uint64_t seen, absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto ready = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return newest_.number > seen || ended_;
  };
  mu_.AwaitWithDeadline(absl::Condition(&ready), deadline);
  if (newest_.number > seen) return newest_;
  if (ended_) return end_;
  return std::nullopt;
}

bool SharedWorldFeed::ended() const {
  absl::MutexLock lock(&mu_);
  return ended_;
}

absl::StatusOr<std::optional<std::string>> SharedFeedViewer::Next(absl::Duration timeout) {
  absl::StatusOr<std::optional<SharedWorldFeed::Frame>> frame =
      shared_->NextAfter(seen_, absl::Now() + timeout);
  if (!frame.ok()) return frame.status();
  if (!frame->has_value()) return std::nullopt;
  seen_ = (*frame)->number;
  return *(*frame)->json;
}

}  // namespace atl::server
