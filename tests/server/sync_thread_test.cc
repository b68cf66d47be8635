// Recordings synced off the tick thread: a checkpoint's fdatasync runs on
// the sync thread, on a descriptor of its own, and Flush waits for it.

#include "sync_thread.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "atoll/sim/recording_format.h"
#include "recording.h"

namespace atl::server {
namespace {

// A fresh directory, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() : path_(::testing::TempDir() + "atoll_sync_XXXXXX") {
    EXPECT_NE(mkdtemp(path_.data()), nullptr);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

v1::Checkpoint CheckpointAt(uint64_t tick) {
  v1::Checkpoint c;
  c.set_tick(tick);
  c.set_state_hash(0x1234 + tick);
  return c;
}

TEST(SyncThreadTest, FlushWaitsForEveryQueuedSync) {
  const TempDir temp;
  const std::string& dir = temp.path();
  SyncThread thread;
  for (int i = 0; i < 3; ++i) {
    const std::string path = dir + "/f" + std::to_string(i);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "x", 1), 1);
    absl::StatusOr<std::shared_ptr<SyncTarget>> target = SyncTarget::Dup(fd, path);
    ASSERT_TRUE(target.ok()) << target.status();
    // The writer's descriptor may close at once: the target has its own.
    close(fd);
    thread.Request(*target);
  }
  thread.Flush();
  EXPECT_EQ(thread.completed(), 3u);
}

TEST(SyncThreadTest, FlushCoversRepeatedRequestsForOneFile) {
  const TempDir temp;
  const std::string path = temp.path() + "/f";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  absl::StatusOr<std::shared_ptr<SyncTarget>> target = SyncTarget::Dup(fd, path);
  ASSERT_TRUE(target.ok()) << target.status();
  close(fd);
  SyncThread thread;
  constexpr int kRequests = 1000;
  for (int i = 0; i < kRequests; ++i) thread.Request(*target);
  thread.Flush();
  // Flush returned, so the last request's sync ran; requests made while the
  // file was still queued shared a sync (how many did is up to timing).
  EXPECT_GE(thread.completed(), 1u);
  EXPECT_LE(thread.completed(), static_cast<uint64_t>(kRequests));
}

TEST(SyncThreadTest, BadDescriptorIsRefusedWithItsPath) {
  absl::StatusOr<std::shared_ptr<SyncTarget>> target = SyncTarget::Dup(-1, "/no/such/file");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(target.status().message().find("/no/such/file"), std::string::npos);
}

TEST(RecordingWriterTest, CheckpointsAreSyncedOnTheSyncThread) {
  const TempDir temp;
  const std::string path = temp.path() + "/world.atollrec";
  v1::RecordingHeader header;
  header.set_format_version(1);
  header.set_world_id("w");
  auto writer = RecordingWriter::Create(path, header, CheckpointAt(0));
  ASSERT_TRUE(writer.ok()) << writer.status();
  SyncThread thread;
  ASSERT_TRUE((*writer)->SyncOn(&thread).ok());
  v1::RecordedTick tick;
  tick.set_tick(1);
  tick.set_state_hash(7);
  ASSERT_TRUE((*writer)->AppendTick(tick).ok());
  ASSERT_TRUE((*writer)->AppendCheckpoint(CheckpointAt(1)).ok());
  thread.Flush();
  EXPECT_EQ(thread.completed(), 1u);
  // The bytes are the same as with a sync in place.
  absl::StatusOr<v1::Recording> read = (*writer)->Read();
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->checkpoints_size(), 2);
  EXPECT_EQ(read->checkpoints(1).state_hash(), 0x1235u);
  EXPECT_EQ(read->ticks_size(), 1);
}

TEST(RecordingWriterTest, InMemoryRecordingNeverQueuesASync) {
  v1::RecordingHeader header;
  header.set_world_id("w");
  auto writer = RecordingWriter::Create("", header, CheckpointAt(0));
  ASSERT_TRUE(writer.ok()) << writer.status();
  SyncThread thread;
  ASSERT_TRUE((*writer)->SyncOn(&thread).ok());
  ASSERT_TRUE((*writer)->AppendCheckpoint(CheckpointAt(1)).ok());
  thread.Flush();
  EXPECT_EQ(thread.completed(), 0u);
}

}  // namespace
}  // namespace atl::server
