#include "hosted_world_feed.h"

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/viewer/draw_frame.h"

namespace atl::server {
namespace {

// While messages keep coming (a backlog after a stall), a frame still goes
// out this often, so the page shows progress.
constexpr absl::Duration kBackloggedFrameEvery = absl::Milliseconds(100);

bool HasPending(const v1::ServerMessage* const* pending) { return *pending != nullptr; }

}  // namespace

absl::StatusOr<std::unique_ptr<HostedWorldFeed>> HostedWorldFeed::Create(
    std::shared_ptr<WorldHost> host, uint32_t outbox_capacity,
    const viewer::FeedOptions& options) {
  // The scene's spawn templates are needed to re-simulate spawns.
  absl::StatusOr<v1::Recording> header = host->GetRecording(/*header_only=*/true);
  if (!header.ok()) return header.status();
  std::unique_ptr<HostedWorldFeed> feed(new HostedWorldFeed(host, options));
  feed->scene_ = header->header().scene();
  // No dispatcher: a push runs StartMessageWrite on the tick thread, which
  // only stores a pointer and wakes the viewer's thread.
  feed->outbox_ = std::make_shared<Outbox>(feed.get(), outbox_capacity);
  v1::WatchRequest request;
  request.set_world_id(host->id());
  request.set_snapshot_every_ticks(kViewerSnapshotEveryTicks);
  if (absl::Status s = host->Watch(request, feed->outbox_); !s.ok()) return s;
  return feed;
}

HostedWorldFeed::~HostedWorldFeed() {
  // No tick pushes to the outbox after Leave; then end it. A message taken
  // but not acknowledged (none here: Next acknowledges before returning) or
  // one the outbox started writing is given back as failed, which lets the
  // outbox finish.
  host_->Leave(outbox_.get());
  outbox_->Close(grpc::Status(grpc::StatusCode::CANCELLED, "the viewer left"));
  bool in_flight = false;
  {
    absl::MutexLock lock(&mu_);
    in_flight = pending_ != nullptr;
    pending_ = nullptr;
  }
  if (in_flight) outbox_->OnWriteDone(false);
  // FinishCall may run on another thread (WorldHost::Stop closing the
  // outbox at the same time); the sink must live until it has.
  finished_.WaitForNotification();
}

void HostedWorldFeed::StartMessageWrite(const v1::ServerMessage* message) {
  absl::MutexLock lock(&mu_);
  pending_ = message;
}

void HostedWorldFeed::FinishCall(const grpc::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    ended_ = true;
    end_status_ = status;
  }
  // Last touch of this object by the calling thread.
  finished_.Notify();
}

absl::StatusOr<std::optional<std::string>> HostedWorldFeed::Next(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    const v1::ServerMessage* message = nullptr;
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithDeadline(absl::Condition(
                                +[](HostedWorldFeed* f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(f->mu_) {
                                  return f->pending_ != nullptr || f->ended_;
                                },
                                this),
                            deadline);
      message = pending_;
      pending_ = nullptr;
      if (message == nullptr && ended_) {
        const std::string why = end_status_.error_message().empty()
                                    ? std::string("the world has ended")
                                    : end_status_.error_message();
        return absl::UnavailableError(absl::StrCat("world '", host_->id(), "': ", why));
      }
    }
    const absl::Time now = absl::Now();
    if (message == nullptr) {
      // Timed out: show a state not shown yet, if any.
      if (RenderDue(now, /*caught_up=*/true)) return Render(now);
      return std::nullopt;
    }
    Apply(*message);
    // The outbox's in-flight message is not read again after this.
    outbox_->OnWriteDone(true);
    bool caught_up = false;
    {
      absl::MutexLock lock(&mu_);
      caught_up = !HasPending(&pending_);
    }
    if (RenderDue(now, caught_up)) return Render(now);
    if (now >= deadline) return std::nullopt;
  }
}

bool HostedWorldFeed::RenderDue(absl::Time now, bool caught_up) const {
  if (replica_ == nullptr || awaiting_snapshot_) return false;
  if (rendered_tick_.has_value() && *rendered_tick_ == replica_->tick()) return false;
  const absl::Duration since = now - last_render_;
  return caught_up ? since >= options_.min_interval : since >= kBackloggedFrameEvery;
}

std::string HostedWorldFeed::Render(absl::Time now) {
  viewer::DrawFrameInfo info;
  info.world_id = host_->id();
  info.tick_rate_hz = host_->config().tick_rate_hz();
  info.step_ms = step_ms_;
  info.hash_matches = hash_matches_;
  info.expected_hash = expected_hash_;
  viewer::DrawFrameOptions options;
  options.aabbs = options_.aabbs;
  rendered_tick_ = replica_->tick();
  last_render_ = now;
  return viewer::DrawFrameJson(*replica_, info, options);
}

void HostedWorldFeed::Apply(const v1::ServerMessage& message) {
  if (message.has_snapshot()) {
    const v1::Snapshot& s = message.snapshot();
    // A spectator never acknowledges, so its snapshots are always full.
    if (!s.full()) return;
    if (replica_ != nullptr && !awaiting_snapshot_ && s.tick() <= replica_->tick()) return;
    v1::Checkpoint cp;
    cp.set_tick(s.tick());
    cp.set_snapshot(s.data());
    *cp.mutable_owners() = s.owners();
    *cp.mutable_joint_owners() = s.joint_owners();
    cp.set_state_hash(s.state_hash());
    absl::Status restored;
    if (replica_ == nullptr) {
      absl::StatusOr<std::unique_ptr<sim::Simulation>> made =
          sim::Simulation::Restore(scene_, host_->config(), cp);
      restored = made.status();
      if (made.ok()) replica_ = *std::move(made);
    } else {
      restored = replica_->RestoreCheckpoint(cp);
    }
    awaiting_snapshot_ = !restored.ok();
    hash_matches_ = restored.ok();
    expected_hash_ = s.state_hash();
    step_ms_ = 0.0;
    return;
  }
  if (!message.has_frame() || replica_ == nullptr || awaiting_snapshot_) return;
  const v1::Frame& frame = message.frame();
  if (frame.tick() <= replica_->tick()) return;
  if (frame.tick() != replica_->tick() + 1) {
    // A gap (the outbox was collapsed): the snapshot that came with the
    // collapse, or the next periodic one, restores the replica.
    awaiting_snapshot_ = true;
    return;
  }
  const std::vector<v1::ConfirmedInput> inputs(frame.inputs().begin(), frame.inputs().end());
  const auto start = std::chrono::steady_clock::now();
  if (!replica_->Step(inputs, nullptr).ok()) {
    awaiting_snapshot_ = true;
    return;
  }
  step_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                 .count();
  hash_matches_ = replica_->hash() == frame.state_hash();
  expected_hash_ = frame.state_hash();
}

}  // namespace atl::server
