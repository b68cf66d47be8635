// SnapshotBases: the client keeps the newest snapshots, so a delta the
// server based on an older acknowledged snapshot still decodes.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atoll/client/snapshot_bases.h"
#include "atoll/delta.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"

namespace atl::client {
namespace {

// Snapshots of a falling pyramid at ticks 1..count.
std::vector<std::string> Snapshots(int count) {
  SceneDesc desc = MakeScene("pyramid", {.size = 4}).value();
  std::unique_ptr<World> world = BuildWorld(desc).value();
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    EXPECT_TRUE(world->Step(desc.time_step).ok());
    out.push_back(SaveSnapshot(*world));
  }
  return out;
}

v1::Snapshot Full(uint64_t tick, const std::string& bytes) {
  v1::Snapshot s;
  s.set_tick(tick);
  s.set_full(true);
  s.set_data(bytes);
  return s;
}

v1::Snapshot Delta(uint64_t tick, uint64_t base_tick, const std::string& base,
                   const std::string& target) {
  v1::Snapshot s;
  s.set_tick(tick);
  s.set_base_tick(base_tick);
  s.set_data(MakeDelta(base, target).value());
  return s;
}

TEST(SnapshotBasesTest, ADeltaAgainstAnOlderKeptSnapshotDecodes) {
  const std::vector<std::string> snaps = Snapshots(12);
  SnapshotBases bases;
  ASSERT_TRUE(bases.Accept(Full(1, snaps[0])).ok());
  // Ticks 2..5 arrive as deltas against 1 (the server saw no newer ack).
  for (uint64_t t = 2; t <= 5; ++t) {
    absl::StatusOr<std::string> got = bases.Accept(Delta(t, 1, snaps[0], snaps[t - 1]));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, snaps[t - 1]);
  }
  // Then against 3, older than the newest (5) the client holds.
  absl::StatusOr<std::string> got = bases.Accept(Delta(6, 3, snaps[2], snaps[5]));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, snaps[5]);
}

TEST(SnapshotBasesTest, OnlyTheNewestKeptSnapshotsServeAsBases) {
  const std::vector<std::string> snaps = Snapshots(12);
  SnapshotBases bases;
  for (uint64_t t = 1; t <= 10; ++t) ASSERT_TRUE(bases.Accept(Full(t, snaps[t - 1])).ok());
  // Kept: ticks 3..10. Tick 2 is gone.
  const absl::StatusOr<std::string> old = bases.Accept(Delta(11, 2, snaps[1], snaps[10]));
  EXPECT_EQ(old.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(old.status().message().find("snapshot.base_tick"), std::string::npos);
  EXPECT_TRUE(bases.Accept(Delta(11, 3, snaps[2], snaps[10])).ok());
}

TEST(SnapshotBasesTest, ACorruptDeltaIsRefusedAndNotKept) {
  const std::vector<std::string> snaps = Snapshots(3);
  SnapshotBases bases;
  ASSERT_TRUE(bases.Accept(Full(1, snaps[0])).ok());
  v1::Snapshot bad = Delta(2, 1, snaps[0], snaps[1]);
  bad.set_data(bad.data().substr(0, bad.data().size() / 2));
  EXPECT_FALSE(bases.Accept(bad).ok());
  // Tick 2 was not kept: a delta against it has no base.
  EXPECT_EQ(bases.Accept(Delta(3, 2, snaps[1], snaps[2])).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace atl::client
