#include "sync_thread.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace atl::server {

absl::StatusOr<std::shared_ptr<SyncTarget>> SyncTarget::Dup(int fd, const std::string& path) {
  const int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) {
    return absl::InternalError(absl::StrCat("recording ", path, ": ", std::strerror(errno)));
  }
  return std::shared_ptr<SyncTarget>(new SyncTarget(dup, path));
}

SyncTarget::~SyncTarget() { close(fd_); }

SyncThread::SyncThread(AtomicHistogram* latency) : latency_(latency), thread_([this] { Run(); }) {}

SyncThread::~SyncThread() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void SyncThread::Request(std::shared_ptr<SyncTarget> target) {
  absl::MutexLock lock(&mu_);
  // A queued sync that has not started covers this request too.
  if (target->queued_) return;
  target->queued_ = true;
  target->queued_at_ = absl::Now();
  queue_.push_back(std::move(target));
  ++queued_total_;
}

void SyncThread::Flush() {
  absl::MutexLock lock(&mu_);
  // The queue is synced in order: every sync queued so far is done once as
  // many have completed.
  std::pair<SyncThread*, uint64_t> wait{this, queued_total_};
  mu_.Await(absl::Condition(
      +[](std::pair<SyncThread*, uint64_t>* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        return w->first->completed_ >= w->second;
      },
      &wait));
}

uint64_t SyncThread::completed() const {
  absl::MutexLock lock(&mu_);
  return completed_;
}

void SyncThread::Run() {
  while (true) {
    std::shared_ptr<SyncTarget> target;
    absl::Time queued_at;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](SyncThread* t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t->mu_) {
            return t->stop_ || !t->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, and nothing left to sync
      target = std::move(queue_.front());
      queue_.pop_front();
      // From here on a new request needs a sync of its own.
      target->queued_ = false;
      queued_at = target->queued_at_;
    }
    if (fdatasync(target->fd_) != 0 && !target->failure_logged_) {
      target->failure_logged_ = true;
      std::fprintf(stderr, "atoll-server: fdatasync %s: %s (logged once per recording)\n",
                   target->path_.c_str(), std::strerror(errno));
    }
    if (latency_ != nullptr) latency_->Observe(absl::Now() - queued_at);
    absl::MutexLock lock(&mu_);
    ++completed_;
  }
}

}  // namespace atl::server
