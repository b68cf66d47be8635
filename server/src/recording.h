// atoll-server — a world's recording: header, checkpoints and one record
// per tick, appended to a file under --data_dir (docs/recording.md) or, with
// no data dir, to memory in the same format (atoll/sim/recording_format.h
// reads it back).

#ifndef ATOLL_SERVER_RECORDING_H_
#define ATOLL_SERVER_RECORDING_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/sim/recording_format.h"
#include "atoll/v1/recording.pb.h"
#include "sync_thread.h"

namespace atl::server {

/// Appends records. Not thread-safe: its WorldHost serializes calls.
class RecordingWriter {
 public:
  /// Creates `path` (empty: keep the recording in memory) and writes the
  /// header and the initial checkpoint, synced. Fails with Internal /
  /// AlreadyExists naming the path.
  static absl::StatusOr<std::unique_ptr<RecordingWriter>> Create(
      const std::string& path, const v1::RecordingHeader& header,
      const v1::Checkpoint& initial);

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
  /// are read whole or dropped as a torn tail), or a copy of the bytes of a
  /// recording kept in memory.
  struct Contents {
    std::string path;
    std::string bytes;
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
  RecordingWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  absl::Status Append(sim::RecordType type, const std::string& payload);

  std::string path_;
  int fd_;  // -1: in memory
  SyncThread* sync_thread_ = nullptr;
  std::shared_ptr<SyncTarget> sync_target_;  // with sync_thread_
  std::string memory_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_RECORDING_H_
