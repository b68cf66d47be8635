// Stacks must stand and then sleep.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/random.h"
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

// Twenty boxes of masses 1 to 10 kg and sizes 0.2 to 1 m dropped into a
// bin, eight different heaps: small ones end up wedged on the corners of
// big ones, where the contacts' feature ids change from step to step
// (contact_manager.cc, kCarryDistance). Each heap must come to rest and
// sleep within 10 s of release (the last box lands after about two
// seconds), not rock for ever; seed 8 never slept while impulses were
// carried by feature id alone.
TEST(StackingTest, MixedMassPileOfTwentySleepsWithinTenSeconds) {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    auto world = testing::MakeWorld();
    testing::AddGround(world.get(), 20.0f);
    for (float side : {-1.0f, 1.0f}) {
      BodyDef wall;
      wall.position = {side * 3.0f, 3.0f};
      const BodyId id = world->CreateBody(wall).value();
      ASSERT_TRUE(world->CreatePolygonShape(id, {}, testing::BoxOrDie(0.1f, 3.0f)).ok());
    }
    Random rng(seed);
    std::vector<BodyId> boxes;
    for (int i = 0; i < 20; ++i) {
      const float h = rng.Uniform(0.1f, 0.5f);
      const float mass = static_cast<float>(1 + i % 10);
      ShapeDef sd;
      sd.density = mass / (4.0f * h * h);
      const Vec2 at{-2.0f + 1.2f * static_cast<float>(i % 4), 0.6f + 1.2f * static_cast<float>(i / 4)};
      BodyDef bd;
      bd.type = BodyType::kDynamic;
      bd.position = at;
      bd.angle = rng.Uniform(-0.5f, 0.5f);
      const BodyId id = world->CreateBody(bd).value();
      ASSERT_TRUE(world->CreatePolygonShape(id, sd, testing::BoxOrDie(h, h)).ok());
      boxes.push_back(id);
    }
    int asleep_at = -1;
    for (int step = 0; step < 600 && asleep_at < 0; ++step) {
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
      if (world->GetCounters().awake_bodies == 0) asleep_at = step;
    }
    EXPECT_GE(asleep_at, 0) << "seed " << seed << ": the heap never slept";
    for (BodyId b : boxes) {
      const BodyInfo info = world->GetBody(b).value();
      EXPECT_LT(std::abs(info.world_center.x), 3.0f) << "seed " << seed;
      EXPECT_GT(info.world_center.y, 0.0f) << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace atl
