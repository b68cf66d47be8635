// Joining the recordings of a world that moved between servers: the pieces
// of one world join at the second's first checkpoint; pieces of different
// worlds, or that do not meet, are refused naming the field.

#include "atoll/sim/recording_join.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace atl::sim {
namespace {

// A recording of ticks first..last with checkpoints at `checkpoints`;
// tick t's hash is 100 + t.
v1::Recording Piece(uint64_t first, uint64_t last, std::vector<uint64_t> checkpoints) {
  v1::Recording r;
  r.mutable_header()->set_world_id("w");
  r.mutable_header()->set_engine_version("e");
  r.mutable_header()->mutable_config()->set_tick_rate_hz(60);
  for (uint64_t c : checkpoints) {
    v1::Checkpoint* cp = r.add_checkpoints();
    cp->set_tick(c);
    cp->set_state_hash(100 + c);
  }
  for (uint64_t t = first; t <= last; ++t) {
    v1::RecordedTick* tick = r.add_ticks();
    tick->set_tick(t);
    tick->set_state_hash(100 + t);
  }
  return r;
}

TEST(RecordingJoinTest, TheSecondPieceTakesOverAtItsFirstCheckpoint) {
  // The first server recorded 0..12 (a checkpoint at 6); the second
  // continues from its checkpoint of tick 10 (the first's last ticks after
  // 10 are dropped: an export stops at its checkpoint, but a join must not
  // depend on it).
  const v1::Recording first = Piece(1, 12, {0, 6});
  const v1::Recording second = Piece(11, 20, {10, 16});
  absl::StatusOr<v1::Recording> joined = JoinRecordings(first, second);
  ASSERT_TRUE(joined.ok()) << joined.status();
  ASSERT_EQ(joined->ticks_size(), 20);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(joined->ticks(i).tick(), static_cast<uint64_t>(i + 1));
  ASSERT_EQ(joined->checkpoints_size(), 3);
  EXPECT_EQ(joined->checkpoints(0).tick(), 0u);
  EXPECT_EQ(joined->checkpoints(1).tick(), 6u);
  EXPECT_EQ(joined->checkpoints(2).tick(), 16u);
  EXPECT_EQ(joined->header().world_id(), "w");
}

TEST(RecordingJoinTest, RefusesPiecesThatAreNotOfOneWorldOrDoNotMeet) {
  const v1::Recording first = Piece(1, 12, {0});
  struct Case {
    const char* what;
    std::function<void(v1::Recording*)> change;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"another world", [](v1::Recording* r) { r->mutable_header()->set_world_id("x"); },
       "second.header.world_id"},
      {"another engine", [](v1::Recording* r) { r->mutable_header()->set_engine_version("f"); },
       "second.header.engine_version"},
      {"another config",
       [](v1::Recording* r) { r->mutable_header()->mutable_config()->set_tick_rate_hz(30); },
       "second.header.config"},
      {"another scene",
       [](v1::Recording* r) { r->mutable_header()->mutable_scene()->add_bodies(); },
       "second.header.scene"},
      {"no checkpoint", [](v1::Recording* r) { r->clear_checkpoints(); }, "second.checkpoints"},
      {"starting after the first ends",
       [](v1::Recording* r) { r->mutable_checkpoints(0)->set_tick(13); },
       "second.checkpoints[0].tick"},
      {"another state at the meeting tick",
       [](v1::Recording* r) { r->mutable_checkpoints(0)->set_state_hash(1); },
       "second.checkpoints[0].state_hash"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    v1::Recording second = Piece(11, 20, {10});
    c.change(&second);
    absl::StatusOr<v1::Recording> joined = JoinRecordings(first, second);
    EXPECT_EQ(joined.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(joined.status().message(), c.field)) << joined.status();
  }
}

}  // namespace
}  // namespace atl::sim
