// Stacks must stand and then sleep.

#include <gtest/gtest.h>

#include "atoll/scene.h"
#include "atoll/world.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

TEST(StackingTest, PyramidOfBase20StandsTenSecondsThenSleeps) {
  SceneDesc desc = MakeScene("pyramid", {.size = 20}).value();
  ASSERT_EQ(desc.bodies.size(), 1u + 210u);
  desc.world.enable_sleep = false;  // stand 10 s awake first
  auto world = BuildWorld(desc).value();
  const BodyId top{static_cast<uint32_t>(desc.bodies.size() - 1), 1, 1};
  const Vec2 start = world->GetBody(top)->transform.p;
  testing::StepN(world.get(), 600);
  const Vec2 end = world->GetBody(top)->transform.p;
  EXPECT_LT(Distance(start, end), 0.01f) << "top box drifted";

  // With sleep on, the same pyramid comes to rest and sleeps.
  desc.world.enable_sleep = true;
  auto sleepy = BuildWorld(desc).value();
  testing::StepN(sleepy.get(), 600);
  EXPECT_EQ(sleepy->GetCounters().awake_bodies, 0);
}

TEST(StackingTest, VerticalStackOf15Stands) {
  SceneDesc desc = MakeScene("vertical_stack", {.size = 15}).value();
  desc.world.enable_sleep = false;
  auto world = BuildWorld(desc).value();
  testing::StepN(world.get(), 600);
  for (uint32_t i = 1; i <= 15; ++i) {
    const BodyInfo b = world->GetBody({i, 1, 1}).value();
    EXPECT_NEAR(b.transform.p.x, 0.0f, 0.02f) << "box " << i;
    EXPECT_NEAR(b.transform.p.y, static_cast<float>(i) - 0.5f, 0.05f) << "box " << i;
  }
}

}  // namespace
}  // namespace atl
