// atoll-server — a stream's bounded outbox.
//
// Producers (the tick thread, a batch worker) push messages; the stream
// writes them one at a time and starts the next write from OnWriteDone (the
// gRPC callback pattern: one write in flight, never a blocking write). A
// producer never waits for a client: Push fails when the outbox is full,
// and the world then collapses the queue to a fresh snapshot (see
// WorldHost::Tick), so memory per session stays bounded.
//
// A push into an idle outbox makes a write due. gRPC may perform that write
// — serialization, HTTP/2 framing, the socket send — inline in the thread
// that starts it, so an outbox with a SendDispatcher hands the start to it
// instead of running it on the producer: a tick thread never pays for a
// client's network (this once made ticks of 0.3 ms take 2 to 6 ms). Writes
// started from OnWriteDone stay on gRPC's own thread.

#ifndef ATOLL_SERVER_OUTBOX_H_
#define ATOLL_SERVER_OUTBOX_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <grpcpp/support/status.h>

#include "absl/base/thread_annotations.h"
#include "atoll/v1/session.pb.h"
#include "pi_mutex.h"

namespace atl::server {

/// The stream end of an outbox: a gRPC reactor.
template <typename Message>
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  /// Starts writing *message (which stays valid until OnWriteDone).
  virtual void StartMessageWrite(const Message* message) = 0;
  /// Ends the call with `status`.
  virtual void FinishCall(const grpc::Status& status) = 0;
};

/// Runs the gRPC calls that producers' pushes make due (see the file
/// comment), in the order given, each exactly once.
class SendDispatcher {
 public:
  virtual ~SendDispatcher() = default;
  virtual void Dispatch(std::function<void()> call) = 0;
};

/// Counters of an outbox, for WorldInfo.sessions.
struct OutboxStats {
  uint32_t length = 0;
  uint32_t high_water = 0;
  uint64_t collapses = 0;
  uint64_t dropped = 0;
};

template <typename Message>
class StreamOutbox : public std::enable_shared_from_this<StreamOutbox<Message>> {
 public:
  /// `sink` must outlive every call that reaches it: the outbox calls the
  /// sink only until it has called FinishCall, and gRPC destroys a reactor
  /// only after its Finish. With a `dispatcher` (which must outlive the
  /// outbox's calls), the outbox must be owned by a shared_ptr.
  StreamOutbox(MessageSink<Message>* sink, uint32_t capacity,
               SendDispatcher* dispatcher = nullptr)
      : sink_(sink), capacity_(capacity), dispatcher_(dispatcher) {}

  /// Queues a message. Returns false (and queues nothing) when the outbox
  /// is full (unless `force`: the bounded burst a session starts with) or
  /// closed.
  bool Push(Message message, bool force = false) {
    Next next;
    {
      PiMutexLock lock(&mu_);
      if (closing_ || (!force && queue_.size() >= capacity_)) return false;
      queue_.push_back(std::move(message));
      stats_.high_water =
          std::max<uint32_t>(stats_.high_water, static_cast<uint32_t>(queue_.size()));
      next = NextLocked();
    }
    RunFromProducer(next);
    return true;
  }

  /// Replaces everything queued with `messages` (the newest snapshot and
  /// frame); counts the dropped ones.
  void Collapse(std::vector<Message> messages) {
    Next next;
    {
      PiMutexLock lock(&mu_);
      if (closing_) return;
      stats_.dropped += queue_.size();
      ++stats_.collapses;
      queue_.clear();
      for (Message& m : messages) queue_.push_back(std::move(m));
      next = NextLocked();
    }
    RunFromProducer(next);
  }

  /// Called by the reactor's OnWriteDone.
  void OnWriteDone(bool ok) {
    Next next;
    {
      PiMutexLock lock(&mu_);
      writing_ = false;
      if (!ok) {
        // The client is gone; nothing more can be written.
        closing_ = true;
        drain_ = false;
        queue_.clear();
        if (status_.ok()) status_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream broken");
      }
      next = NextLocked();
    }
    Run(next);
  }

  /// Ends the call with `status` once the write in flight (if any) is done;
  /// queued messages are discarded. Idempotent.
  void Close(const grpc::Status& status) {
    Next next;
    {
      PiMutexLock lock(&mu_);
      if (closing_ && !drain_) return;
      closing_ = true;
      drain_ = false;
      status_ = status;
      queue_.clear();
      next = NextLocked();
    }
    RunFromProducer(next);
  }

  /// Ends the call after the queued messages are written (graceful
  /// shutdown, the last message of a batch).
  void CloseAfterDrain(const grpc::Status& status) {
    Next next;
    {
      PiMutexLock lock(&mu_);
      if (closing_) return;
      closing_ = true;
      drain_ = true;
      status_ = status;
      next = NextLocked();
    }
    RunFromProducer(next);
  }

  uint32_t capacity() const { return capacity_; }

  bool closed() const {
    PiMutexLock lock(&mu_);
    return closing_;
  }

  OutboxStats stats() const {
    PiMutexLock lock(&mu_);
    OutboxStats s = stats_;
    s.length = static_cast<uint32_t>(queue_.size());
    return s;
  }

 private:
  enum class Next { kNothing, kWrite, kFinish };

  // Decides the next write or the Finish, if one is due; the caller does it
  // outside the lock (gRPC may run a reaction inline).
  Next NextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || finished_) return Next::kNothing;
    if (!queue_.empty()) {
      in_flight_ = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
      return Next::kWrite;
    }
    if (closing_) {
      finished_ = true;
      return Next::kFinish;
    }
    return Next::kNothing;
  }

  // A due call from a producer's thread: to the dispatcher, if any.
  void RunFromProducer(Next next) {
    if (next == Next::kNothing) return;
    if (dispatcher_ == nullptr) {
      Run(next);
      return;
    }
    // The write in flight (or the finish) holds the stream open until the
    // dispatched call has run, and the closure holds the outbox.
    dispatcher_->Dispatch([self = this->shared_from_this(), next] { self->Run(next); });
  }

  void Run(Next next) {
    if (next == Next::kWrite) {
      // in_flight_ is not touched again before OnWriteDone.
      const Message* message;
      {
        PiMutexLock lock(&mu_);
        message = &in_flight_;
      }
      sink_->StartMessageWrite(message);
    } else if (next == Next::kFinish) {
      grpc::Status status;
      {
        PiMutexLock lock(&mu_);
        status = status_;
      }
      sink_->FinishCall(status);
    }
  }

  MessageSink<Message>* const sink_;
  const uint32_t capacity_;
  SendDispatcher* const dispatcher_;
  // Shared with the tick thread that pushes: priority inheritance
  // (pi_mutex.h).
  mutable PiMutex mu_;
  std::deque<Message> queue_ ABSL_GUARDED_BY(mu_);
  Message in_flight_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;   // no more pushes
  bool drain_ ABSL_GUARDED_BY(mu_) = false;     // finish once the queue is empty
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // FinishCall made
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  OutboxStats stats_ ABSL_GUARDED_BY(mu_);
};

using Outbox = StreamOutbox<v1::ServerMessage>;

}  // namespace atl::server

#endif  // ATOLL_SERVER_OUTBOX_H_
