// atoll-server — a mutex with priority inheritance, for the locks a tick
// thread shares with the I/O side (a world's lock, a session's outbox, the
// send thread's queue).
//
// Under --tick_priority the tick threads run under SCHED_FIFO and every
// other thread at normal priority. A gRPC thread that holds an outbox's
// lock can then lose its core to any of the process's or the machine's
// other threads, and a tick thread that wants the same lock waits for as
// long as the holder is not scheduled: the load test saw a tick's sends
// take 20-80 ms that way. With PTHREAD_PRIO_INHERIT the kernel runs the
// holder at the waiter's priority until it unlocks, so a tick waits for
// the critical section only. Uncontended, locking is one atomic operation
// in user space, as with absl::Mutex.

#ifndef ATOLL_SERVER_PI_MUTEX_H_
#define ATOLL_SERVER_PI_MUTEX_H_

#include <pthread.h>

#include "absl/base/thread_annotations.h"

namespace atl::server {

class ABSL_LOCKABLE PiMutex {
 public:
  PiMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~PiMutex() { pthread_mutex_destroy(&mu_); }
  PiMutex(const PiMutex&) = delete;
  PiMutex& operator=(const PiMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { pthread_mutex_lock(&mu_); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { pthread_mutex_unlock(&mu_); }

 private:
  friend class PiCondVar;
  pthread_mutex_t mu_;
};

/// Holds a PiMutex for its scope.
class ABSL_SCOPED_LOCKABLE PiMutexLock {
 public:
  explicit PiMutexLock(PiMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~PiMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  PiMutexLock(const PiMutexLock&) = delete;
  PiMutexLock& operator=(const PiMutexLock&) = delete;

 private:
  PiMutex* const mu_;
};

/// A condition variable for a PiMutex.
class PiCondVar {
 public:
  PiCondVar() { pthread_cond_init(&cv_, nullptr); }
  ~PiCondVar() { pthread_cond_destroy(&cv_); }
  PiCondVar(const PiCondVar&) = delete;
  PiCondVar& operator=(const PiCondVar&) = delete;

  /// Releases `mu` (held), waits for a signal (or wakes spuriously) and
  /// takes `mu` again.
  void Wait(PiMutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { pthread_cond_wait(&cv_, &mu->mu_); }
  void Signal() { pthread_cond_signal(&cv_); }
  void SignalAll() { pthread_cond_broadcast(&cv_); }

 private:
  pthread_cond_t cv_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_PI_MUTEX_H_
