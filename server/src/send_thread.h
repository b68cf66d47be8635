// atoll-server — the thread that starts gRPC writes for the tick threads.
//
// See outbox.h: a push into an idle session outbox makes a write due, and
// gRPC may run that whole write inline in the thread that starts it. The
// tick threads hand such starts (and stream finishes) to this thread, which
// runs them in order. Every outbox has at most one start pending, so the
// queue is bounded by the number of open streams; nothing queued is ever
// dropped, since a stream whose start never ran would never end.

#ifndef ATOLL_SERVER_SEND_THREAD_H_
#define ATOLL_SERVER_SEND_THREAD_H_

#include <deque>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "outbox.h"
#include "pi_mutex.h"

namespace atl::server {

class SendThread final : public SendDispatcher {
 public:
  SendThread();
  /// Runs every call still queued, then stops the thread.
  ~SendThread() override;

  void Dispatch(std::function<void()> call) override;

 private:
  void Run();

  // Taken by the tick threads' Dispatch: priority inheritance (pi_mutex.h).
  PiMutex mu_;
  PiCondVar queued_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SEND_THREAD_H_
