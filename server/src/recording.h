// atoll-server — a world's recording: header, checkpoints and one record
// per tick, appended to a file under --data_dir (docs/recording.md) or, with
// no data dir, to memory in the same format (atoll/sim/recording_format.h
// reads it back).
//
// A recording in memory is bounded: it is kept as segments, each a
// checkpoint and the ticks after it, and once they hold more than the
// writer's memory budget the oldest are dropped, so the recording then
// starts at a later checkpoint (a server without --data_dir would
// otherwise grow by every world's checkpoints for as long as it runs: some
// 90 KB a second for a 500-body world at the default checkpoint interval).
// Finished segments never change, so Snapshot shares them instead of
// copying the recording under the world's lock.

#ifndef ATOLL_SERVER_RECORDING_H_
#define ATOLL_SERVER_RECORDING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/sim/recording_format.h"
#include "atoll/v1/recording.pb.h"
#include "sync_thread.h"

namespace atl::server {

/// Bytes a recording kept in memory holds at most (plus the segment being
/// written): about 12 minutes of a 500-body world checkpointed every 240
/// ticks.
inline constexpr size_t kMemoryRecordingBudget = size_t{64} << 20;

/// Appends records. Not thread-safe: its WorldHost serializes calls.
class RecordingWriter {
 public:
  /// Creates `path` (empty: keep the recording in memory) and writes the
  /// header and the initial checkpoint, synced. Fails with Internal /
  /// AlreadyExists naming the path.
  static absl::StatusOr<std::unique_ptr<RecordingWriter>> Create(
      const std::string& path, const v1::RecordingHeader& header,
      const v1::Checkpoint& initial, size_t memory_budget = kMemoryRecordingBudget);

  /// Opens an existing file for appending after `valid_bytes` (truncating a
  /// torn tail).
  static absl::StatusOr<std::unique_ptr<RecordingWriter>> Reopen(
      const std::string& path, uint64_t valid_bytes);

  ~RecordingWriter();

  /// Appends a tick record with write(): durable against a process crash
  /// once this returns; against a machine crash after the next Sync().
  absl::Status AppendTick(const v1::RecordedTick& tick);
  /// Appends a checkpoint and syncs (fdatasync): here, or on the thread
  /// given to SyncOn.
  absl::Status AppendCheckpoint(const v1::Checkpoint& checkpoint);
  /// Syncs here, now.
  absl::Status Sync();
  /// Makes AppendCheckpoint hand its sync to `thread` (which must outlive
  /// the writer) instead of waiting for it. A file only: no effect on a
  /// recording kept in memory.
  absl::Status SyncOn(SyncThread* thread);

  /// Where the recording so far is, taken under the owner's lock so that
  /// Parse can run without it: the file's path (records appended meanwhile
  /// are read whole or dropped as a torn tail), or the pieces of a
  /// recording kept in memory, in order (shared, or copied for the one
  /// still written).
  struct Contents {
    std::string path;
    std::vector<std::shared_ptr<const std::string>> pieces;
  };
  Contents Snapshot() const;
  /// The whole recording in `contents`.
  static absl::StatusOr<v1::Recording> Parse(const Contents& contents);
  /// The whole recording so far: Parse(Snapshot()).
  absl::StatusOr<v1::Recording> Read() const { return Parse(Snapshot()); }

  /// Moves the file to `path` (same file system); the writer keeps
  /// appending to it there. Internal naming both paths when it cannot. No
  /// effect on a recording kept in memory.
  absl::Status MoveTo(const std::string& path);

  /// Closes and deletes the file.
  absl::Status Remove();

  const std::string& path() const { return path_; }

 private:
  RecordingWriter(std::string path, int fd, size_t memory_budget = kMemoryRecordingBudget)
      : path_(std::move(path)), fd_(fd), memory_budget_(memory_budget) {}
  absl::Status Append(sim::RecordType type, const std::string& payload);
  // In memory: ends the open segment and drops the oldest finished ones
  // beyond the budget.
  void StartSegment();

  std::string path_;
  int fd_;  // -1: in memory
  SyncThread* sync_thread_ = nullptr;
  std::shared_ptr<SyncTarget> sync_target_;  // with sync_thread_
  // In memory: the file header and header record, the finished segments
  // oldest first (their bytes in finished_bytes_), the open one.
  const size_t memory_budget_;
  std::shared_ptr<const std::string> memory_head_;
  std::deque<std::shared_ptr<const std::string>> finished_;
  size_t finished_bytes_ = 0;
  std::string open_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_RECORDING_H_
