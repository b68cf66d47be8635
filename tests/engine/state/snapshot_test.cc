// Snapshots: canonical, complete (rollback equivalence) and defensive.

#include "atoll/snapshot.h"

#include <gtest/gtest.h>

#include "atoll/random.h"
#include "atoll/scene.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

// A busy world: falling mixed shapes on a ground, so there are contacts,
// islands, sleeping and waking.
std::unique_ptr<World> BusyWorld(uint64_t seed) {
  return BuildWorld(MakeScene("mixed_static_dynamic", {.size = 200, .seed = seed}).value()).value();
}

TEST(SnapshotTest, SaveLoadSaveIsByteIdentical) {
  auto world = BusyWorld(1);
  testing::StepN(world.get(), 90);
  const std::string first = SaveSnapshot(*world);
  auto loaded = LoadSnapshot(first);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(SaveSnapshot(**loaded), first);
  EXPECT_EQ(HashWorld(**loaded), HashWorld(*world));
}

TEST(SnapshotTest, RestoreThenStepEqualsSteppingOn) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto world = BusyWorld(seed);
    Random rng(seed);
    std::vector<std::string> saved;
    std::vector<uint64_t> hashes;
    for (int tick = 0; tick < 240; ++tick) {
      saved.push_back(SaveSnapshot(*world));
      hashes.push_back(HashWorld(*world));
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    }
    hashes.push_back(HashWorld(*world));
    // Restore at random ticks into a fresh world and re-step to the end.
    for (int trial = 0; trial < 5; ++trial) {
      const int from = static_cast<int>(rng.Below(240));
      auto replay = LoadSnapshot(saved[from]);
      ASSERT_TRUE(replay.ok());
      for (int tick = from; tick < 240; ++tick) {
        ASSERT_EQ(HashWorld(**replay), hashes[tick]) << "seed " << seed << " from " << from
                                                     << " diverged at " << tick;
        ASSERT_TRUE((*replay)->Step(1.0f / 60.0f).ok());
      }
      EXPECT_EQ(HashWorld(**replay), hashes[240]);
    }
  }
}

TEST(SnapshotTest, HashIgnoresBroadPhaseStrategy) {
  SceneDesc desc = MakeScene("falling_squares", {.size = 150}).value();
  std::vector<uint64_t> reference;
  for (BroadPhaseType type : {BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
                              BroadPhaseType::kDynamicTree, BroadPhaseType::kBruteForce}) {
    desc.world.broad_phase = type;
    auto world = BuildWorld(desc).value();
    std::vector<uint64_t> chain;
    for (int i = 0; i < 120; ++i) {
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
      chain.push_back(HashWorld(*world));
    }
    if (reference.empty()) {
      reference = chain;
    } else {
      EXPECT_EQ(chain, reference) << BroadPhaseTypeName(type);
    }
  }
}

TEST(SnapshotTest, BadBlobsAreRejectedAndWorldIsUnchanged) {
  auto world = BusyWorld(2);
  testing::StepN(world.get(), 30);
  const std::string good = SaveSnapshot(*world);
  const uint64_t before = HashWorld(*world);

  std::string truncated = good.substr(0, good.size() / 2);
  absl::Status s = RestoreSnapshot(truncated, world.get());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s;

  std::string corrupted = good;
  corrupted[corrupted.size() / 2] ^= 0x40;
  s = RestoreSnapshot(corrupted, world.get());
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  std::string wrong_version = good;
  wrong_version[8] = 99;
  s = RestoreSnapshot(wrong_version, world.get());
  EXPECT_NE(s.message().find("version"), std::string::npos) << s;

  std::string not_snapshot = "hello, world, this is not a snapshot at all";
  EXPECT_NE(RestoreSnapshot(not_snapshot, world.get()).message().find("magic"), std::string::npos);
  EXPECT_FALSE(RestoreSnapshot(std::string(), world.get()).ok());

  EXPECT_EQ(HashWorld(*world), before);
  EXPECT_TRUE(world->Step(1.0f / 60.0f).ok());
}

TEST(SnapshotTest, HashChangesWhenAnythingChanges) {
  auto world = BusyWorld(3);
  const uint64_t h0 = HashWorld(*world);
  const BodyId first = world->GetBodyIds().back();
  ASSERT_TRUE(world->SetLinearVelocity(first, {0.0f, 1e-3f}).ok());
  EXPECT_NE(HashWorld(*world), h0);
}

}  // namespace
}  // namespace atl
