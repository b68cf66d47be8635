// A recording kept in memory stays within its budget by dropping its
// oldest checkpoint intervals, and what is left is a whole recording that
// starts at a checkpoint.

#include "recording.h"

#include <gtest/gtest.h>

#include <string>

namespace atl::server {
namespace {

v1::Checkpoint CheckpointAt(uint64_t tick, size_t state_bytes) {
  v1::Checkpoint c;
  c.set_tick(tick);
  c.set_state_hash(0x1234 + tick);
  c.set_snapshot(std::string(state_bytes, 'x'));
  return c;
}

v1::RecordedTick TickAt(uint64_t tick) {
  v1::RecordedTick t;
  t.set_tick(tick);
  t.set_state_hash(0x1234 + tick);
  return t;
}

// Writes ticks first..last with a checkpoint of `state_bytes` every `every`.
void Play(RecordingWriter* writer, uint64_t first, uint64_t last, uint64_t every,
          size_t state_bytes) {
  for (uint64_t tick = first; tick <= last; ++tick) {
    ASSERT_TRUE(writer->AppendTick(TickAt(tick)).ok());
    if (tick % every == 0) {
      ASSERT_TRUE(writer->AppendCheckpoint(CheckpointAt(tick, state_bytes)).ok());
    }
  }
}

TEST(RecordingWriterTest, InMemoryRecordingUnderItsBudgetIsWhole) {
  v1::RecordingHeader header;
  header.set_world_id("w");
  auto writer = RecordingWriter::Create("", header, CheckpointAt(0, 1000), 1 << 20);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Play(writer->get(), 1, 100, 10, 1000);
  absl::StatusOr<v1::Recording> read = (*writer)->Read();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->header().world_id(), "w");
  ASSERT_EQ(read->checkpoints_size(), 11);
  EXPECT_EQ(read->checkpoints(0).tick(), 0u);
  ASSERT_EQ(read->ticks_size(), 100);
  EXPECT_EQ(read->ticks(0).tick(), 1u);
}

TEST(RecordingWriterTest, InMemoryRecordingDropsItsOldestIntervalsBeyondItsBudget) {
  v1::RecordingHeader header;
  header.set_world_id("w");
  // Checkpoints of 10 000 bytes every 10 ticks against a 35 000-byte
  // budget: three finished intervals fit, a fourth does not.
  constexpr size_t kBudget = 35000;
  auto writer = RecordingWriter::Create("", header, CheckpointAt(0, 10000), kBudget);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Play(writer->get(), 1, 1005, 10, 10000);

  RecordingWriter::Contents contents = (*writer)->Snapshot();
  size_t bytes = 0;
  for (const auto& piece : contents.pieces) bytes += piece->size();
  // The budget, plus the interval being written and the header.
  EXPECT_LE(bytes, kBudget + 11000);
  absl::StatusOr<v1::Recording> read = RecordingWriter::Parse(contents);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->header().world_id(), "w");
  // Starts at a checkpoint, holds every tick from there to the last.
  ASSERT_EQ(read->checkpoints_size(), 4);
  const uint64_t first = read->checkpoints(0).tick();
  EXPECT_EQ(first, 970u);
  for (int i = 0; i < read->checkpoints_size(); ++i) {
    EXPECT_EQ(read->checkpoints(i).tick(), first + 10 * static_cast<uint64_t>(i));
  }
  ASSERT_EQ(read->ticks_size(), static_cast<int>(1005 - first));
  for (int i = 0; i < read->ticks_size(); ++i) {
    EXPECT_EQ(read->ticks(i).tick(), first + 1 + static_cast<uint64_t>(i));
  }
}

TEST(RecordingWriterTest, ASnapshotIsUnchangedByLaterAppends) {
  v1::RecordingHeader header;
  auto writer = RecordingWriter::Create("", header, CheckpointAt(0, 100), 1 << 20);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Play(writer->get(), 1, 15, 10, 100);
  const RecordingWriter::Contents contents = (*writer)->Snapshot();
  Play(writer->get(), 16, 30, 10, 100);
  absl::StatusOr<v1::Recording> read = RecordingWriter::Parse(contents);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->ticks_size(), 15);
  EXPECT_EQ(read->checkpoints_size(), 2);
}

}  // namespace
}  // namespace atl::server
