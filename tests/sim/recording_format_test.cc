// The recording file codec shared by server and clients: round trip, a torn
// tail after a crash, corruption, and files that are not recordings.

#include "atoll/sim/recording_format.h"

#include <gtest/gtest.h>

#include <string>

namespace atl::sim {
namespace {

v1::Recording SmallRecording() {
  v1::Recording r;
  r.mutable_header()->set_world_id("w");
  r.add_checkpoints()->set_tick(0);
  for (uint64_t t = 1; t <= 5; ++t) {
    v1::RecordedTick* tick = r.add_ticks();
    tick->set_tick(t);
    tick->set_state_hash(0x1234 + t);
  }
  r.add_checkpoints()->set_tick(3);
  return r;
}

TEST(RecordingFormatTest, RoundTripsAndCountsEveryByte) {
  const v1::Recording r = SmallRecording();
  const std::string bytes = EncodeRecording(r);
  absl::StatusOr<ParsedRecording> parsed = ParseRecording(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->valid_bytes, bytes.size());
  EXPECT_EQ(parsed->recording.SerializeAsString(), r.SerializeAsString());
  // Re-encoding the parsed recording gives the same bytes.
  EXPECT_EQ(EncodeRecording(parsed->recording), bytes);
}

TEST(RecordingFormatTest, ATornTailIsDroppedAndReportedByValidBytes) {
  const std::string bytes = EncodeRecording(SmallRecording());
  const std::string last = EncodeRecord(RecordType::kTick, "partial");
  const std::string torn = bytes + last.substr(0, last.size() - 3);
  absl::StatusOr<ParsedRecording> parsed = ParseRecording(torn);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->valid_bytes, bytes.size());
  EXPECT_EQ(parsed->recording.ticks_size(), 5);
}

TEST(RecordingFormatTest, ACorruptRecordEndsTheRecording) {
  std::string bytes = EncodeRecording(SmallRecording());
  bytes[bytes.size() - 1] ^= 0x40;  // the payload of the last record, tick 5
  absl::StatusOr<ParsedRecording> parsed = ParseRecording(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_LT(parsed->valid_bytes, bytes.size());
  EXPECT_EQ(parsed->recording.checkpoints_size(), 2);  // 0, and 3 after tick 3
  EXPECT_EQ(parsed->recording.ticks_size(), 4);
}

TEST(RecordingFormatTest, RejectsWhatIsNotARecording) {
  EXPECT_EQ(ParseRecording("").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ParseRecording("NOTATOLLxxxxyyyy").status().code(), absl::StatusCode::kDataLoss);
  std::string wrong_version = RecordingFileHeader();
  wrong_version[8] = 9;
  absl::Status s = ParseRecording(wrong_version).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("version 9"), absl::string_view::npos) << s;
  // A header with no initial checkpoint is not a usable recording.
  v1::RecordingHeader header;
  header.set_world_id("w");
  const std::string no_checkpoint =
      RecordingFileHeader() + EncodeRecord(RecordType::kHeader, header.SerializeAsString());
  EXPECT_EQ(ParseRecording(no_checkpoint).status().code(), absl::StatusCode::kDataLoss);
}

TEST(RecordingFormatTest, ReadingAMissingFileNamesIt) {
  absl::Status s = ReadRecording("/nonexistent/dir/w.atrec").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/dir/w.atrec"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace atl::sim
