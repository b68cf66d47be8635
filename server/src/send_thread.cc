#include "send_thread.h"

#include <utility>

namespace atl::server {

SendThread::SendThread() : thread_([this] { Run(); }) {}

SendThread::~SendThread() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void SendThread::Dispatch(std::function<void()> call) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(call));
}

void SendThread::Run() {
  std::deque<std::function<void()>> batch;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](SendThread* t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t->mu_) {
            return t->stop_ || !t->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, and nothing left to run
      batch.swap(queue_);
    }
    // Outside the lock: a call may make another due (gRPC can run
    // OnWriteDone inline), which dispatches again.
    for (std::function<void()>& call : batch) call();
    batch.clear();
  }
}

}  // namespace atl::server
