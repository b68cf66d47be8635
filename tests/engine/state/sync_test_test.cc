#include "atoll/sync_test.h"

#include <gtest/gtest.h>

#include "atoll/scene.h"
#include "world/world_state.h"

namespace atl {
namespace {

TEST(SyncTestTest, BuiltInScenesReplayBitForBit) {
  for (const char* name : {"pyramid", "tumbler", "mixed_static_dynamic", "smash"}) {
    SceneParams params;
    params.size = std::string(name) == "tumbler" ? 12 : (std::string(name) == "smash" ? 400 : 0);
    const SceneDesc scene = MakeScene(name, params).value();
    auto result = RunSyncTest(scene, {.ticks = 120, .rollback = 8, .seed = 3});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->divergent_tick, -1) << name << "\n" << FormatDiffs(result->diffs);
    EXPECT_GT(result->resimulated, 8 * 100);
  }
}

TEST(SyncTestTest, RejectsBadOptions) {
  const SceneDesc scene = MakeScene("pyramid", {.size = 3}).value();
  EXPECT_FALSE(RunSyncTest(scene, {.ticks = 0}).ok());
  EXPECT_FALSE(RunSyncTest(scene, {.ticks = 10, .rollback = 0}).ok());
  EXPECT_FALSE(RunSyncTest(scene, {.ticks = 10, .rollback = 11}).ok());
}

TEST(WorldDiffTest, NamesTheBodyAndField) {
  auto a = BuildWorld(MakeScene("pyramid", {.size = 3}).value()).value();
  auto b = BuildWorld(MakeScene("pyramid", {.size = 3}).value()).value();
  EXPECT_TRUE(DiffWorlds(*a, *b).empty());
  ASSERT_TRUE(b->SetLinearVelocity(b->GetBodyIds()[2], {0.0f, 1.0f}).ok());
  const auto diffs = DiffWorlds(*a, *b);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].index, 2u);
  EXPECT_NE(diffs[0].what.find("velocity"), std::string::npos);
}

}  // namespace
}  // namespace atl
