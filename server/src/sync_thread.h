// atoll-server — the thread that makes recordings durable.
//
// A checkpoint is written by its world's tick thread, but fdatasync(2) can
// take milliseconds and would stall every world on that thread. Writers
// hand the sync to this thread instead. Each file has its own duplicate of
// the writer's descriptor (SyncTarget), so a recording closed or removed
// while a sync is pending never has its number reused under the sync; a
// file is queued at most once however many checkpoints wait for it.

#ifndef ATOLL_SERVER_SYNC_THREAD_H_
#define ATOLL_SERVER_SYNC_THREAD_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server_metrics.h"

namespace atl::server {

/// One file to sync: owns a duplicate of the writer's descriptor.
class SyncTarget {
 public:
  /// Duplicates `fd`; fails with Internal naming `path`.
  static absl::StatusOr<std::shared_ptr<SyncTarget>> Dup(int fd, const std::string& path);
  ~SyncTarget();
  SyncTarget(const SyncTarget&) = delete;
  SyncTarget& operator=(const SyncTarget&) = delete;

  const std::string& path() const { return path_; }

 private:
  friend class SyncThread;
  SyncTarget(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  const int fd_;
  const std::string path_;
  bool queued_ = false;         // guarded by the SyncThread's mutex
  absl::Time queued_at_;        // likewise: when queued_ was set
  bool failure_logged_ = false;  // only touched by the sync thread
};

class SyncThread {
 public:
  /// With `latency`, observes each sync's time from its request to the
  /// end of its fdatasync there (`latency` must outlive the thread).
  explicit SyncThread(AtomicHistogram* latency = nullptr);
  /// Syncs every file still queued, then stops the thread.
  ~SyncThread();

  /// Queues `target` for fdatasync unless it is queued already.
  void Request(std::shared_ptr<SyncTarget> target);

  /// Blocks until every request made before the call is synced.
  void Flush();

  /// Syncs completed so far (for tests and logs).
  uint64_t completed() const;

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::deque<std::shared_ptr<SyncTarget>> queue_ ABSL_GUARDED_BY(mu_);
  uint64_t queued_total_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  AtomicHistogram* const latency_;
  std::thread thread_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SYNC_THREAD_H_
