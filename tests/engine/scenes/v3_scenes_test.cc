// The replicas of Box2D v3's ten benchmark scenes (shared/benchmarks.c at
// 617d32a) build what v3 builds: the body, shape and joint counts that v3's
// benchmark prints after the last step (shared/baselines/box2d-v3-bench),
// here at creation; rain's after all its waves, which is where v3's end
// count comes from.

#include <string>

#include <gtest/gtest.h>

#include "atoll/scene.h"

namespace atl {
namespace {

struct V3Counts {
  const char* scene;
  int32_t bodies;
  int32_t shapes;
  int32_t joints;
};

// As box2d-v3-bench prints them (Release build, --threads=1).
constexpr V3Counts kV3[] = {
    {"compounds", 3001, 6282, 0},      {"joint_grid", 10000, 10000, 19800},
    {"junkyard", 8002, 8262, 0},       {"large_pyramid", 5051, 5051, 0},
    {"many_pyramids", 22001, 22020, 0}, {"smash", 9601, 9601, 0},
    {"spinner", 6078, 6437, 1},        {"tumbler", 2027, 2029, 1},
    {"washer", 8102, 8140, 0},
};

TEST(V3ScenesTest, DefaultSizesBuildV3sBodiesShapesAndJoints) {
  for (const V3Counts& v3 : kV3) {
    const SceneDesc desc = MakeScene(v3.scene).value();
    std::unique_ptr<World> world = BuildWorld(desc).value();
    const WorldCounters c = world->GetCounters();
    EXPECT_EQ(c.bodies, v3.bodies) << v3.scene;
    EXPECT_EQ(c.shapes, v3.shapes) << v3.scene;
    EXPECT_EQ(c.joints, v3.joints) << v3.scene;
  }
}

TEST(V3ScenesTest, RainHoldsV3sCountsAfterItsWaves) {
  // 5 floors x 40 columns of groups of 5 ragdolls (11 bodies, 13 shapes,
  // 10 joints each) on a ground of 5 x 501 boxes. The waves run to step
  // 992; the world is not stepped, only filled and recycled.
  const SceneDesc desc = MakeScene("rain").value();
  ASSERT_EQ(desc.steps, 1000);
  std::unique_ptr<World> world = BuildWorld(desc).value();
  EXPECT_EQ(world->GetCounters().shapes, 2505);
  for (int64_t step = 0; step < desc.steps; ++step) {
    ASSERT_TRUE(ApplySceneWaves(world.get(), desc, step).ok()) << "step " << step;
  }
  const WorldCounters c = world->GetCounters();
  EXPECT_EQ(c.bodies, 11001);
  EXPECT_EQ(c.shapes, 15505);
  EXPECT_EQ(c.joints, 10000);
}

TEST(V3ScenesTest, StepCountsAreV3s) {
  const std::pair<const char*, int32_t> steps[] = {
      {"compounds", 500}, {"joint_grid", 500}, {"junkyard", 800}, {"large_pyramid", 500},
      {"many_pyramids", 200}, {"rain", 1000}, {"smash", 300}, {"spinner", 500},
      {"tumbler", 750}, {"washer", 500}};
  for (const auto& [name, count] : steps) {
    EXPECT_EQ(MakeScene(name, {.size = 1}).value().steps, count) << name;
  }
}

TEST(V3ScenesTest, SleepIsOffWhereV3TurnsItOff) {
  for (const char* name : {"joint_grid", "large_pyramid", "many_pyramids"}) {
    EXPECT_FALSE(MakeScene(name, {.size = 2}).value().world.enable_sleep) << name;
  }
  for (const char* name : {"compounds", "junkyard", "rain", "smash", "spinner", "tumbler", "washer"}) {
    EXPECT_TRUE(MakeScene(name, {.size = 2}).value().world.enable_sleep) << name;
  }
}

TEST(V3ScenesTest, FirstStepTouchesWhereV3Touches) {
  // Touching contacts after the first step depend on the geometry alone,
  // not on how two solvers diverge later: v3 (its library, counting the
  // touching flags after one step) finds these. Within 1 % so a solver
  // change that moves a few borderline pairs does not trip the test.
  const std::pair<const char*, int32_t> v3_touching[] = {
      {"compounds", 2850}, {"joint_grid", 0},     {"junkyard", 0},     {"large_pyramid", 14950},
      {"many_pyramids", 58000}, {"rain", 0},      {"smash", 0},        {"spinner", 24056},
      {"tumbler", 0},      {"washer", 31862}};
  for (const auto& [name, touching] : v3_touching) {
    const SceneDesc desc = MakeScene(name).value();
    std::unique_ptr<World> world = BuildWorld(desc).value();
    ASSERT_TRUE(ApplySceneWaves(world.get(), desc, 0).ok());
    ASSERT_TRUE(world->Step(desc.time_step).ok());
    EXPECT_NEAR(world->GetCounters().touching_contacts, touching, 0.01 * touching) << name;
  }
}

TEST(V3ScenesTest, JunkyardPusherFollowsV3sPath) {
  // v3 sets the pusher's target to x = 60 sin(0.2 t) before every step.
  const SceneDesc desc = MakeScene("junkyard", {.size = 20}).value();
  ASSERT_EQ(desc.drives.size(), 1u);
  std::unique_ptr<World> world = BuildWorld(desc).value();
  const BodyId pusher = world->GetBodyIds()[static_cast<size_t>(desc.drives[0].body)];
  EXPECT_EQ(world->GetBody(pusher)->type, BodyType::kKinematic);
  for (int k = 0; k < 90; ++k) {
    ASSERT_TRUE(ApplySceneWaves(world.get(), desc, k).ok());
    ASSERT_TRUE(world->Step(desc.time_step).ok());
  }
  const float t = 89.0f * desc.time_step;
  EXPECT_NEAR(world->GetBody(pusher)->transform.p.x, 60.0f * MakeRot(0.2f * t).s, 1e-3f);
  EXPECT_NEAR(world->GetBody(pusher)->transform.p.y, 0.0f, 1e-6f);
}

TEST(V3ScenesTest, SmallerSizesShrinkTheScene) {
  // The size knob still counts what ListScenes says it does.
  EXPECT_EQ(MakeScene("compounds", {.size = 40}).value().bodies.size(), 1u + 40u);
  EXPECT_EQ(MakeScene("junkyard", {.size = 400}).value().bodies.size(), 1u + 400u + 1u);
  EXPECT_EQ(MakeScene("spinner", {.size = 30}).value().bodies.size(), 2u + 30u);
  EXPECT_EQ(MakeScene("washer", {.size = 10}).value().bodies.size(), 2u + 100u);
  EXPECT_EQ(MakeScene("tumbler", {.size = 10}).value().bodies.size(), 2u + 100u);
  EXPECT_EQ(MakeScene("smash", {.size = 600}).value().bodies.size(), 1u + 600u);
  EXPECT_EQ(MakeScene("joint_grid", {.size = 10}).value().joints.size(), 2u * 10u * 9u);
  EXPECT_EQ(MakeScene("many_pyramids", {.size = 30}).value().bodies.size(), 1u + 30u * 55u);
  EXPECT_EQ(MakeScene("large_pyramid", {.size = 10}).value().bodies.size(), 1u + 55u);
  // rain: 5 floors x 3 columns x 5 ragdolls, the first three drops filling.
  const SceneDesc rain = MakeScene("rain", {.size = 3}).value();
  std::unique_ptr<World> world = BuildWorld(rain).value();
  for (int64_t step = 0; step < rain.steps; ++step) {
    ASSERT_TRUE(ApplySceneWaves(world.get(), rain, step).ok());
  }
  EXPECT_EQ(world->GetCounters().bodies, 1 + 5 * 3 * 5 * 11);
}

}  // namespace
}  // namespace atl
