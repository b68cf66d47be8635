// The step reuses last step's broad-phase pairs while no proxy changed
// (BroadPhase::pairs_may_have_changed): results must be those of recomputing them.

#include <gtest/gtest.h>

#include "atoll/scene.h"
#include "atoll/snapshot.h"

namespace atl {
namespace {

// A small pyramid that settles and falls asleep.
std::unique_ptr<World> SleepingLevel(SceneDesc* desc) {
  *desc = MakeScene("pyramid", {.size = 6}).value();
  std::unique_ptr<World> world = BuildWorld(*desc).value();
  for (int i = 0; i < 1200 && world->GetCounters().awake_bodies > 0; ++i) {
    EXPECT_TRUE(world->Step(desc->time_step).ok());
  }
  EXPECT_EQ(world->GetCounters().awake_bodies, 0);
  return world;
}

TEST(UnchangedPairsTest, RestoredWorldMatchesOneThatReusedItsPairs) {
  // The restored copy recomputes its pairs on its first step; the original
  // reuses them. Wake a body midway so the pair set changes too.
  SceneDesc desc;
  std::unique_ptr<World> world = SleepingLevel(&desc);
  const std::string saved = SaveSnapshot(*world);
  std::unique_ptr<World> copy = BuildWorld(desc).value();
  ASSERT_TRUE(RestoreSnapshot(saved, copy.get()).ok());
  const BodyId mover = world->GetBodyIds().back();
  for (int i = 0; i < 120; ++i) {
    if (i == 30) {
      ASSERT_TRUE(world->SetLinearVelocity(mover, {2.0f, 2.0f}).ok());
      ASSERT_TRUE(copy->SetLinearVelocity(mover, {2.0f, 2.0f}).ok());
    }
    ASSERT_TRUE(world->Step(desc.time_step).ok());
    ASSERT_TRUE(copy->Step(desc.time_step).ok());
    ASSERT_EQ(HashWorld(*world), HashWorld(*copy)) << "step " << i;
  }
}

TEST(UnchangedPairsTest, TeleportedSleeperLandsOnTheGround) {
  // Moving a body between steps changes its proxies; the next steps must
  // pair it with the ground at its new place although nothing else moved.
  SceneDesc desc;
  std::unique_ptr<World> world = SleepingLevel(&desc);
  const BodyId top = world->GetBodyIds().back();
  ASSERT_TRUE(world->SetTransform(top, {15.0f, 3.0f}, 0.0f).ok());
  for (int i = 0; i < 120; ++i) ASSERT_TRUE(world->Step(desc.time_step).ok());
  EXPECT_NEAR(world->GetBody(top)->transform.p.y, 0.5f, 0.05f);
}

}  // namespace
}  // namespace atl
