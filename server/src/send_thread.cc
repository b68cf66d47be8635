#include "send_thread.h"

#include <utility>

namespace atl::server {

SendThread::SendThread() : thread_([this] { Run(); }) {}

SendThread::~SendThread() {
  {
    PiMutexLock lock(&mu_);
    stop_ = true;
    queued_.Signal();
  }
  thread_.join();
}

void SendThread::Dispatch(std::function<void()> call) {
  PiMutexLock lock(&mu_);
  queue_.push_back(std::move(call));
  queued_.Signal();
}

void SendThread::Run() {
  std::deque<std::function<void()>> batch;
  while (true) {
    {
      PiMutexLock lock(&mu_);
      while (!stop_ && queue_.empty()) queued_.Wait(&mu_);
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
