// atoll-server — a few threads for batch runs and replays, with a bounded
// queue so a flood of requests is refused instead of piling up.

#ifndef ATOLL_SERVER_WORKER_POOL_H_
#define ATOLL_SERVER_WORKER_POOL_H_

#include <algorithm>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace atl::server {

class WorkerPool {
 public:
  WorkerPool(int threads, size_t max_queued) : max_queued_(max_queued) {
    for (int i = 0; i < std::max(1, threads); ++i) {
      threads_.emplace_back([this] { Run(); });
    }
  }
  /// Runs the jobs already started; drops queued ones.
  ~WorkerPool() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      queue_.clear();
    }
    for (std::thread& t : threads_) t.join();
  }

  /// Queues `job`; false when max_queued jobs are already waiting.
  bool TrySchedule(std::function<void()> job) {
    absl::MutexLock lock(&mu_);
    if (stop_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(job));
    return true;
  }

  /// Waits until no job is queued or running, or `deadline`; true when idle.
  bool WaitIdle(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithDeadline(
        absl::Condition(
            +[](WorkerPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return p->queue_.empty() && p->running_ == 0;
            },
            this),
        deadline);
  }

 private:
  void Run() {
    while (true) {
      std::function<void()> job;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](WorkerPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return p->stop_ || !p->queue_.empty();
            },
            this));
        if (stop_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        ++running_;
      }
      job();
      absl::MutexLock lock(&mu_);
      --running_;
    }
  }

  const size_t max_queued_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_WORKER_POOL_H_
